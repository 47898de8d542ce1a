"""JacobianExplorer, driven from Python as a learner drives it: J against the
analytic Jacobian (and PyTorch's, when installed), vᵀJ from the real
``backward(v)`` against ``v @ J``, the sliders, the HTML shown, the static
fallback, and the errors for bad input."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autogradkit as torch
from autogradkit.viz._style import format_value

pytest.importorskip("ipywidgets")
from autogradkit.widgets import JacobianExplorer

A = [[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]


# -- functions with a known Jacobian: make(lib) -> (func, x, analytic J) -----------------
# `lib` is autogradkit or torch: the same code runs on both.
def tutorial(lib):
    x = lib.eye(4, 5)
    expected = np.diag(2 * (x.numpy().reshape(-1) + 1))
    return (lambda x: (x + 1).pow(2)), x, expected


def tutorial_transposed(lib):
    x = lib.eye(4, 5)
    expected = np.zeros((20, 20), dtype=np.float32)
    for i in range(5):  # out[i, j] = (x[j, i] + 1)²: row i*4+j, column j*5+i
        for j in range(4):
            expected[i * 4 + j, j * 5 + i] = 2 * (x.numpy()[j, i] + 1)
    return (lambda x: (x + 1).pow(2).t()), x, expected


def matrix_times_vector(lib):
    a = lib.tensor(A)
    return (lambda x: lib.matmul(a, x)), lib.tensor([0.5, -1.0, 2.0]), np.array(A)


def column_sums(lib):
    expected = np.zeros((4, 12))
    for j in range(4):  # out[j] = sum_i x[i, j]: x[i, j] is column i*4+j
        expected[j, [j, 4 + j, 8 + j]] = 1
    return (lambda x: x.sum(0)), lib.arange(12.0).reshape(3, 4), expected


CASES = [tutorial, tutorial_transposed, matrix_times_vector, column_sums]


def cells(html: str, css_class: str) -> list[list[str]]:
    """The text of every <td> of the table with ``css_class``, row by row."""
    root = ET.fromstring(html)
    tables = [t for t in root.iter("table") if css_class in t.get("class", "").split()]
    assert len(tables) == 1, f"expected one table {css_class!r}, found {len(tables)}"
    return [
        [td.text or "" for td in tr.iter("td")]
        for tr in tables[0].iter("tr")
        if tr.find("td") is not None
    ]


def shown(values) -> list[list[str]]:
    """How the tables write a tensor's values: a matrix of format_value strings."""
    matrix = np.asarray(values, dtype=float)
    matrix = matrix.reshape(1, 1) if matrix.ndim == 0 else matrix.reshape(-1, matrix.shape[-1])
    return [[format_value(v) for v in row] for row in matrix]


# -- the Jacobian ------------------------------------------------------------------------
@pytest.mark.parametrize("make", CASES)
def test_jacobian_is_the_analytic_one(make):
    func, x, expected = make(torch)
    explorer = JacobianExplorer(func, x)
    assert tuple(explorer.jacobian.shape) == expected.shape
    np.testing.assert_allclose(explorer.jacobian.numpy(), expected, rtol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("make", CASES)
def test_jacobian_is_pytorchs(make):
    real_torch = pytest.importorskip("torch")
    func, x, _ = make(torch)
    torch_func, torch_x, _ = make(real_torch)
    theirs = real_torch.autograd.functional.jacobian(torch_func, torch_x)
    ours = JacobianExplorer(func, x).jacobian.numpy()
    np.testing.assert_allclose(ours, theirs.numpy().reshape(ours.shape), rtol=1e-6)


def test_the_table_has_one_cell_per_output_and_input_element():
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), torch.eye(4, 5))
    root = ET.fromstring(explorer.jacobian_view.value)
    table = next(t for t in root.iter("table") if "agk-jacobian" in t.get("class", ""))
    header, *rows = table.iter("tr")
    assert [th.text for th in header.iter("th")][1:] == [
        f"x[{i},{j}]" for i in range(4) for j in range(5)
    ]
    assert [row.find("th").text for row in rows] == [
        f"y[{i},{j}]" for i in range(5) for j in range(4)
    ]
    assert [len(row.findall("td")) for row in rows] == [20] * 20
    assert cells(explorer.jacobian_view.value, "agk-jacobian") == shown(explorer.jacobian.numpy())
    assert rows[0].findall("td")[0].get("title") == "∂y[0,0]/∂x[0,0]"
    assert rows[1].findall("td")[5].get("title") == "∂y[0,1]/∂x[1,0]"


# -- vᵀJ -------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", CASES)
def test_with_v_ones_backward_gives_what_the_tutorial_prints(make):
    func, x, expected = make(torch)
    explorer = JacobianExplorer(func, x)
    # The tutorial, run with the core: out.backward(torch.ones_like(out)); inp.grad
    inp = x.clone().requires_grad_()
    out = func(inp)
    out.backward(torch.ones_like(out), retain_graph=True)
    np.testing.assert_array_equal(explorer.v.numpy(), np.ones(tuple(out.shape)))
    np.testing.assert_allclose(explorer.vjp_backward.numpy(), inp.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(explorer.vjp_explicit.numpy(), inp.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        explorer.vjp_backward.numpy().reshape(-1), expected.sum(0), rtol=1e-6
    )
    assert explorer.equal


def test_the_tutorials_printed_gradient():
    inp = torch.eye(4, 5, requires_grad=True)
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), inp)
    printed = [
        [4.0, 2.0, 2.0, 2.0, 2.0],
        [2.0, 4.0, 2.0, 2.0, 2.0],
        [2.0, 2.0, 4.0, 2.0, 2.0],
        [2.0, 2.0, 2.0, 4.0, 2.0],
    ]
    np.testing.assert_array_equal(explorer.vjp_backward.numpy(), printed)


@pytest.mark.torch
def test_backward_of_v_is_pytorchs():
    real_torch = pytest.importorskip("torch")
    v = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    inp = real_torch.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(real_torch.from_numpy(v))
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), torch.eye(4, 5))
    explorer.v = torch.from_numpy(v)
    np.testing.assert_allclose(explorer.vjp_backward.numpy(), inp.grad.numpy(), rtol=1e-6)


def test_moving_a_slider_changes_v_and_the_products_shown():
    func, x, jac = tutorial_transposed(torch)
    explorer = JacobianExplorer(func, x)
    before = cells(explorer.result_view.value, "agk-vjp-backward")

    explorer.sliders[5].value = -1.5  # y[1,1] = (x[1,1] + 1)², x[1,1] = 1
    v = np.ones(20)
    v[5] = -1.5
    expected = (v @ jac).reshape(4, 5)
    np.testing.assert_array_equal(explorer.v.numpy().reshape(-1), v)
    assert explorer.vjp_backward[1, 1].item() == pytest.approx(-6.0)
    np.testing.assert_allclose(explorer.vjp_backward.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(explorer.vjp_explicit.numpy(), expected, rtol=1e-6)
    after = cells(explorer.result_view.value, "agk-vjp-backward")
    assert after != before
    assert after == shown(expected)
    assert cells(explorer.result_view.value, "agk-vjp-explicit") == shown(expected)
    assert cells(explorer.result_view.value, "agk-v") == shown(v.reshape(5, 4))
    assert "equal ✓" in explorer.result_view.value


def test_setting_v_moves_the_sliders():
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), torch.eye(4, 5))
    v = torch.arange(20.0).reshape(5, 4) / 10 - 1
    explorer.v = v
    assert [s.value for s in explorer.sliders] == pytest.approx(v.numpy().reshape(-1).tolist())
    np.testing.assert_allclose(
        explorer.vjp_backward.numpy(), explorer.vjp_explicit.numpy(), rtol=1e-6
    )
    explorer.v = torch.full((5, 4), 3.5)  # beyond the slider's range: widened, not clipped
    assert [s.value for s in explorer.sliders] == [3.5] * 20
    assert explorer.vjp_backward[0, 0].item() == pytest.approx(14.0)


def test_the_buttons_set_v_to_ones_and_zeros():
    explorer = JacobianExplorer(lambda x: x * 2, torch.ones(3))
    explorer.zeros_button.click()
    assert explorer.v.tolist() == [0.0, 0.0, 0.0]
    assert [s.value for s in explorer.sliders] == [0.0, 0.0, 0.0]
    assert explorer.vjp_backward.tolist() == [0.0, 0.0, 0.0]
    explorer.sliders[1].value = 1.0  # one-hot: picks row 1 of J
    assert explorer.vjp_backward.tolist() == explorer.jacobian[1].tolist() == [0.0, 2.0, 0.0]
    explorer.ones_button.click()
    assert explorer.vjp_backward.tolist() == [2.0, 2.0, 2.0]


def test_many_outputs_get_one_slider_and_a_menu():
    explorer = JacobianExplorer(lambda x: x * x, torch.arange(30.0).reshape(6, 5))
    assert len(explorer.sliders) == 1 and explorer.element is not None
    assert len(explorer.element.options) == 30
    explorer.element.value = 7  # y[1,2]
    assert explorer.sliders[0].value == 1.0
    explorer.sliders[0].value = -2.0
    v = np.ones(30)
    v[7] = -2.0
    np.testing.assert_array_equal(explorer.v.numpy().reshape(-1), v)
    assert explorer.vjp_backward[1, 2].item() == pytest.approx(-2.0 * 2 * 7)
    explorer.v = torch.full((6, 5), 0.5)
    assert explorer.sliders[0].value == 0.5


def test_updates_never_call_func_or_recompute_j():
    calls = []

    def func(x):
        calls.append(1)
        return (x + 1).pow(2)

    explorer = JacobianExplorer(func, torch.eye(4, 5))
    built = len(calls)
    for k, slider in enumerate(explorer.sliders):
        slider.value = k / 10
    explorer.v = torch.ones(4, 5)
    assert len(calls) == built == 2  # one forward for backward, one inside jacobian()
    assert explorer.equal


# -- the user's tensors stay as they were -------------------------------------------------
def test_the_users_input_and_its_grad_are_untouched():
    inp = torch.eye(4, 5, requires_grad=True)
    inp.grad = torch.full((4, 5), 7.0)
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), inp)
    explorer.sliders[0].value = 2.0
    explorer.v = torch.zeros(5, 4)
    assert inp.grad.tolist() == [[7.0] * 5] * 4
    assert inp.grad_fn is None and inp.requires_grad
    no_grad = torch.eye(3)
    JacobianExplorer(lambda x: x * 2, no_grad)
    assert not no_grad.requires_grad and no_grad.grad is None


def test_tensors_func_closes_over_get_no_grad():
    w = torch.tensor(A, requires_grad=True)
    explorer = JacobianExplorer(lambda x: torch.matmul(w, x).tanh(), torch.tensor([0.5, -1.0, 2.0]))
    explorer.sliders[0].value = -1.0
    assert w.grad is None and w.requires_grad
    assert explorer.vjp_backward.abs().sum().item() > 0
    assert explorer.equal


def test_an_engine_error_in_a_slider_move_is_shown_not_raised():
    w = torch.tensor(A, requires_grad=True)
    explorer = JacobianExplorer(lambda x: torch.matmul(w, x), torch.tensor([0.5, -1.0, 2.0]))
    with torch.no_grad():
        w.add_(1.0)  # the graph saved w: backward must refuse
    explorer.sliders[0].value = 0.0
    assert "agk-error" in explorer.result_view.value and "inplace" in explorer.result_view.value
    assert "differ ✗" in explorer.result_view.value and not explorer.equal
    with pytest.raises(RuntimeError, match="inplace"):
        explorer.v = torch.ones(2)


# -- display ---------------------------------------------------------------------------------
def test_the_static_fallback_has_the_tables():
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), torch.eye(4, 5))
    explorer.sliders[0].value = 0.5
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    html = bundle["text/html"]
    assert cells(html, "agk-jacobian") == shown(explorer.jacobian.numpy())
    assert cells(html, "agk-v") == shown(explorer.v.numpy())
    assert cells(html, "agk-vjp-backward") == shown(explorer.vjp_backward.numpy())
    assert cells(html, "agk-vjp-explicit") == shown(explorer.vjp_explicit.numpy())
    assert bundle["text/plain"].startswith("<JacobianExplorer: x [4, 5] → y [5, 4], J is 20×20")
    assert "y.backward(v)" in bundle["text/plain"]
    assert len(repr(explorer).splitlines()) == 1


def test_the_formula_is_maths():
    explorer = JacobianExplorer(lambda x: x * 2, torch.ones(2))
    assert type(explorer.header).__name__ == type(explorer.result_view).__name__ == "HTMLMath"
    assert r"v^\top J" in explorer.header.value and r"v^\top J" in explorer.result_view.value
    assert isinstance(explorer, __import__("ipywidgets").VBox)


def test_scalar_input_and_output():
    explorer = JacobianExplorer(lambda x: (x * x).sum(), torch.tensor([1.0, 2.0]))
    assert explorer.output_labels == ["y"] and explorer.jacobian.tolist() == [[2.0, 4.0]]
    explorer.v = torch.tensor(3.0)
    assert explorer.vjp_backward.tolist() == [6.0, 12.0]
    assert JacobianExplorer(lambda x: x * 3, torch.tensor(2.0)).input_labels == ["x"]


# -- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "func, inputs, error, match",
    [
        (lambda x: 1.0, torch.ones(2), TypeError, "must return an autogradkit Tensor, got float"),
        (lambda x: x.detach().numpy() * 2, torch.ones(2), TypeError, "got ndarray.*not NumPy"),
        (
            lambda x: (x, x),
            torch.ones(2),
            TypeError,
            "got tuple: for several outputs, return one tensor",
        ),
        (lambda x: x.detach() * 2, torch.ones(2), ValueError, "does not require grad"),
        (lambda x: x[:0], torch.ones(2), ValueError, "no elements"),
        (
            lambda x: x * 2,
            torch.ones(2, dtype=torch.int64),
            TypeError,
            "floating-point input.*inputs.float()",
        ),
        (
            lambda x: x * 2,
            [1.0, 2.0],
            TypeError,
            "must be an autogradkit Tensor, got list.*torch.tensor",
        ),
        (
            lambda x: x,
            (torch.ones(2), torch.ones(2)),
            TypeError,
            "one input tensor, got a tuple of 2",
        ),
        ("x * 2", torch.ones(2), TypeError, "func must be a function"),
    ],
)
def test_bad_input_says_what_to_do(func, inputs, error, match):
    with pytest.raises(error, match=match):
        JacobianExplorer(func, inputs)


def test_v_of_the_wrong_shape_is_refused():
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), torch.eye(4, 5))
    with pytest.raises(ValueError, match=r"output's shape \[5, 4\].*got \[4, 5\]"):
        explorer.v = torch.ones(4, 5)
    assert explorer.v.tolist() == [[1.0] * 4] * 5


# -- property: the engine's vᵀJ is v @ J --------------------------------------------------
@settings(max_examples=40)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
def test_backward_of_v_equals_v_times_j(data, shape):
    values = st.floats(-3, 3, width=32)
    x = data.draw(hnp.arrays(np.float32, shape, elements=values))
    v = data.draw(hnp.arrays(np.float32, shape, elements=values))
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2) * x.tanh(), torch.from_numpy(x))
    explorer.v = torch.from_numpy(v)
    x64 = x.astype(np.float64)
    derivative = 2 * (x64 + 1) * np.tanh(x64) + (x64 + 1) ** 2 * (1 - np.tanh(x64) ** 2)
    np.testing.assert_allclose(
        explorer.vjp_backward.numpy(), explorer.vjp_explicit.numpy(), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(explorer.vjp_backward.numpy(), v * derivative, rtol=1e-4, atol=1e-4)
    assert explorer.equal


def test_a_column_of_j_with_inf_or_nan_is_undefined_not_a_difference():
    # log at 0: each row of J is e_i / x, so x[1]'s column is [nan, inf, nan] (0/0 off
    # the diagonal, as PyTorch's jacobian has it) and v @ J is nan there, while
    # backward(v) gives v/0 = inf. The explorer says where v @ J is undefined.
    explorer = JacobianExplorer(torch.log, torch.tensor([-1.0, 0.0, 1.0]))
    J = explorer.jacobian.numpy()
    assert np.isnan(J[0, 1]) and np.isinf(J[1, 1])
    assert np.isinf(explorer.vjp_backward.numpy()[1]) and np.isnan(explorer.vjp_explicit.numpy()[1])
    np.testing.assert_array_equal(explorer.undefined, [False, True, False])
    assert explorer.equal
    assert "equal ✓ where v @ J is defined" in repr(explorer) and "x[1]" in repr(explorer)
    assert "x[1]" in explorer.result_view.value
    # A real difference in a defined column is still reported.
    explorer._J[0, 0] = 5.0
    explorer.v = torch.ones(3)
    assert not explorer.equal and "differ ✗" in explorer.result_view.value


def test_float32_rounding_in_a_cancelling_derivative_is_no_difference():
    # (x + 1)² · tanh x at x = -0.318: the derivative 0.00057 is the difference of two
    # terms near 0.42, so backward(v) and v @ J (the same terms summed in another
    # order) differ by ~2e-8 in float32: equal to float32's rounding, which the
    # explorer must not report as a difference (hypothesis found it in the property
    # test above).
    x = torch.tensor(-0.31838912)
    explorer = JacobianExplorer(lambda x: (x + 1).pow(2) * x.tanh(), x)
    explorer.v = torch.tensor(0.3359375)
    assert explorer.equal and "equal ✓" in repr(explorer)
    # A real difference at this scale (J twice what it is) is still reported.
    explorer._J[0, 0] *= 2
    explorer.v = torch.tensor(0.3359375)
    assert not explorer.equal and "differ ✗" in explorer.result_view.value
