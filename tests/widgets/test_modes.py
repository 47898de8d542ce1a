"""ForwardReverseExplorer, driven from Python as a learner drives it with the mouse:
at every step, the marks on the drawing, the tangents and gradients written in the
boxes, and J as far as it is filled, checked against forward mode run straight
through (``make_dual``/``unpack_dual``), against reverse mode run another way
(``autograd.grad`` on the intermediate tensors, ``functional.jvp`` by double
backward) and against ``functional.jacobian`` (and PyTorch's, when installed)."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import autogradkit as torch

widgets = pytest.importorskip("ipywidgets")
forward_ad = pytest.importorskip("autogradkit.autograd.forward_ad")

from autogradkit.autograd import functional  # noqa: E402
from autogradkit.widgets import ForwardReverseExplorer  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


# -- functions to explore: each returns (fn_for, inputs, parts) ----------------------------
# ``fn_for(lib)`` is the function written with ``lib`` (autogradkit or PyTorch);
# ``parts(lib, *xs)`` gives, by box label, each operation's output, so a test can
# differentiate it on its own.
def two_by_three():
    def fn_for(lib):
        def fn(x1, x2, x3):
            a = x1 * x2
            return a + lib.sin(x1), a * x3

        return fn

    def parts(lib, x1, x2, x3):
        a = x1 * x2
        s = lib.sin(x1)
        return {
            "MulBackward0": a,
            "SinBackward0": s,
            "AddBackward0": a + s,
            "MulBackward0 #2": a * x3,
        }

    return fn_for, (torch.tensor(0.5), torch.tensor(2.0), torch.tensor(-1.0)), parts


def vectors():
    def fn_for(lib):
        def fn(x, w):
            return lib.exp(x * w).sum(), lib.tanh(x)

        return fn

    def parts(lib, x, w):
        p = x * w
        e = lib.exp(p)
        return {
            "MulBackward0": p,
            "ExpBackward0": e,
            "SumBackward0": e.sum(),
            "TanhBackward0": lib.tanh(x),
        }

    return fn_for, (torch.tensor([0.3, -1.2]), torch.tensor([2.0, 0.5])), parts


def with_a_constant():
    def fn_for(lib):
        def fn(x):
            c = lib.tensor([1.0, 2.0]) * 3  # constants only: no box, no tangent
            return (x * c).pow(2)

        return fn

    def parts(lib, x):
        m = x * (lib.tensor([1.0, 2.0]) * 3)
        return {"MulBackward0": m, "PowBackward0": m.pow(2)}

    return fn_for, (torch.tensor([0.5, -0.25]),), parts


CASES = [two_by_three, vectors, with_a_constant]


def _flat(tensors) -> np.ndarray:
    return np.concatenate([np.ravel(t.detach().numpy()) for t in tensors])


def _jacobian(lib, fn, inputs) -> np.ndarray:
    """J (output elements × input elements) by ``lib``'s functional.jacobian."""
    outputs = fn(*inputs)
    several = isinstance(outputs, tuple)
    outputs = outputs if several else (outputs,)
    blocks = lib.autograd.functional.jacobian(fn, tuple(inputs))
    blocks = blocks if several else (blocks,)
    return np.concatenate(
        [
            np.concatenate(
                [np.asarray(b.numpy()).reshape(y.numel(), x.numel()) for b, x in zip(row, inputs)],
                axis=1,
            )
            for y, row in zip(outputs, blocks)
        ],
        axis=0,
    )


def _one_hot(inputs, j: int) -> tuple:
    """The tangents of forward pass ``j``: 1 on input element j, 0 elsewhere."""
    flat = np.zeros(sum(x.numel() for x in inputs), dtype=np.float32)
    flat[j] = 1
    pieces, start = [], 0
    for x in inputs:
        pieces.append(torch.tensor(flat[start : start + x.numel()].reshape(tuple(x.shape))))
        start += x.numel()
    return tuple(pieces)


def _values(tensor) -> np.ndarray:
    """A column or row, which is None until its pass has run to the end."""
    assert tensor is not None, "the pass has not run to the end"
    return tensor.numpy()


def _grad_fn(tensor):
    assert tensor.grad_fn is not None
    return tensor.grad_fn


def _classes(svg: str) -> dict[str, set[str]]:
    root = ET.fromstring(svg)
    return {
        str(g.get("data-node")): set(str(g.get("class")).split())
        for g in root.iter(f"{SVG}g")
        if g.get("data-node") is not None
    }


@pytest.mark.parametrize("case", CASES)
def test_each_forward_pass_fills_a_column_of_the_jacobian(case):
    fn_for, inputs, _ = case()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    J = _jacobian(torch, fn, inputs)
    assert explorer.shape == J.shape
    for j in range(J.shape[1]):
        explorer.forward.seed = j
        assert explorer.forward.column is None
        explorer.forward.run_to_end()
        np.testing.assert_allclose(_values(explorer.forward.column), J[:, j], rtol=1e-5, atol=1e-6)
        assert explorer.forward.passes_done == j + 1
    known = explorer.forward.known()
    np.testing.assert_allclose(known, J, rtol=1e-5, atol=1e-6)  # no NaN left: J is whole
    assert np.isnan(explorer.reverse.known()).all()  # the other side has run nothing


@pytest.mark.parametrize("case", CASES)
def test_each_backward_pass_fills_a_row_of_the_jacobian(case):
    fn_for, inputs, _ = case()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    J = _jacobian(torch, fn, inputs)
    for i in range(J.shape[0]):
        explorer.reverse.seed = i
        explorer.reverse.run_to_end()
        np.testing.assert_allclose(_values(explorer.reverse.row), J[i], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(explorer.reverse.known(), J, rtol=1e-5, atol=1e-6)
    for x in inputs:
        assert x.grad is None and not x.requires_grad  # the explorer works on copies


@pytest.mark.parametrize("case", CASES)
def test_the_column_is_what_make_dual_and_unpack_dual_give(case):
    fn_for, inputs, _ = case()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    for j in range(explorer.shape[1]):
        explorer.forward.seed = j
        explorer.forward.run_to_end()
        tangents = _one_hot(inputs, j)
        with forward_ad.dual_level():
            duals = [forward_ad.make_dual(x, t) for x, t in zip(inputs, tangents)]
            outputs = fn(*duals)
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            unpacked = [forward_ad.unpack_dual(y).tangent for y in outputs]
        np.testing.assert_allclose(_values(explorer.forward.column), _flat(unpacked), rtol=1e-6)


@pytest.mark.parametrize("case", CASES)
def test_every_box_shows_its_tangent_step_by_step(case):
    """After k steps: the k operations that ran are marked (the k-th current), each
    shows the tangent of its output, which is J·v of that operation's output as a
    function of the inputs, computed by double backward (functional.jvp)."""
    fn_for, inputs, parts = case()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    side = explorer.forward
    for j in range(explorer.shape[1]):
        side.seed = j
        v = _one_hot(inputs, j)
        ran: list[str] = []
        for k in range(side.total + 1):
            assert side.position == k
            marks = side.marks
            assert [label for label, mark in marks.items() if mark == "current"] == ran[-1:]
            assert set(ran) <= set(marks)
            shown = side.tangents
            for label in ran:
                _, expected = functional.jvp(
                    lambda *xs, label=label: parts(torch, *xs)[label], inputs, v
                )
                np.testing.assert_allclose(
                    shown[label].numpy(), expected.numpy(), rtol=1e-5, atol=1e-6
                )
            for label in set(parts(torch, *inputs)) - set(ran):
                assert label not in shown, f"{label} shows a tangent before it ran"
            if side.step() is not None:
                ran.append(next(n for n, m in side.marks.items() if m == "current"))
        assert side.step() is None and side.position == side.total


@pytest.mark.parametrize("case", CASES)
def test_every_box_shows_its_gradient_step_by_step(case):
    """Reverse mode: each box the engine has run shows ∂y_i/∂(its output), checked
    with autograd.grad on the intermediate tensors."""
    fn_for, inputs, parts = case()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    side = explorer.reverse
    leaves = [x.detach().clone().requires_grad_(True) for x in inputs]
    intermediates = parts(torch, *leaves)
    # The outputs as computed in the same graph as the intermediates.
    produced_by = [explorer.graph.box_of[_grad_fn(y)].label for y in explorer.outputs]
    flat = torch.cat([intermediates[label].reshape(-1) for label in produced_by])
    for i in range(explorer.shape[0]):
        side.seed = i
        side.run_to_end()
        shown = side.gradients
        labels = [name for name in intermediates if name in shown]
        assert labels, "no operation received a gradient"
        wanted = torch.autograd.grad(
            flat[i],
            [intermediates[name] for name in labels] + leaves,
            retain_graph=True,
            allow_unused=True,
        )
        for label, expected in zip(labels + explorer.names, wanted):
            if label in shown:
                np.testing.assert_allclose(
                    shown[label].numpy(), expected.numpy(), rtol=1e-5, atol=1e-6
                )
        current = [label for label, mark in side.marks.items() if mark == "current"]
        assert current == [side.graph.box_of[side.records[-1].node].label]


def test_step_back_reset_and_the_drawing():
    fn_for, inputs, _ = two_by_three()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    forward, reverse = explorer.forward, explorer.reverse
    assert (forward.total, reverse.total) == (4, 5)
    assert _classes(forward.svg)["MulBackward0"] == {"node", "op"}
    forward.step_button.click()
    forward.step_button.click()
    assert forward.position == 2
    classes = _classes(forward.svg)
    assert "done" in classes["MulBackward0"] and "current" in classes["SinBackward0"]
    assert 'class="agk-tangent"' in forward.svg and "tangent 0.878" in forward.svg  # cos(0.5)
    assert forward.back() is not None and forward.position == 1
    assert "current" in _classes(forward.svg)["MulBackward0"]
    forward.reset_button.click()
    assert forward.position == 0 and forward.back_button.disabled and forward.back() is None
    # A step of one side leaves the other alone.
    reverse.step()
    assert (forward.position, reverse.position) == (0, 1)
    assert "current" in _classes(reverse.svg)["AddBackward0"]
    assert 'class="edge carried"' in reverse.svg
    # Choosing another seed starts its pass from the beginning; finished passes stay in J.
    reverse.run_to_end()
    assert reverse.step_button.disabled
    reverse.seed_menu.value = 1
    assert reverse.seed == 1 and reverse.position == 0 and reverse.passes_done == 1
    assert not np.isnan(reverse.known()[0]).any() and np.isnan(reverse.known()[1]).all()
    # Reverse mode from y2 never reaches SinBackward0: y2 does not depend on it.
    reverse.run_to_end()
    assert "SinBackward0" not in reverse.gradients
    assert _values(reverse.row)[0] == pytest.approx(-2.0)  # ∂(x1·x2·x3)/∂x1 = x2·x3


def test_the_column_fills_as_the_outputs_are_reached():
    fn_for, inputs, _ = two_by_three()
    fn = fn_for(torch)
    side = ForwardReverseExplorer(fn, inputs).forward
    filled = []
    for _ in range(side.total):
        side.step()
        filled.append(int((~np.isnan(side.known()[:, 0])).sum()))
    assert filled == [0, 0, 1, 2]  # y1 after AddBackward0, y2 after MulBackward0 #2


def test_static_picture():
    fn_for, inputs, _ = two_by_three()
    fn = fn_for(torch)
    explorer = ForwardReverseExplorer(fn, inputs)
    explorer.forward.run_to_end()
    html = explorer._repr_mimebundle_()["text/html"]
    assert "<svg" not in html and "run the notebook" in html
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert len(images) == 2
    forward_svg, reverse_svg = (base64.b64decode(i).decode() for i in images)
    assert "done" in _classes(forward_svg)["AddBackward0"]
    assert all("done" not in c for c in _classes(reverse_svg).values())
    assert html.count('class="agk-known"') == 2  # one column of two outputs
    assert repr(explorer).startswith("<ForwardReverseExplorer: J is 2×3")
    assert explorer._repr_mimebundle_()["text/plain"] == repr(explorer)


def test_names_come_from_the_callers_variables():
    x1, x2, x3 = torch.tensor(0.5), torch.tensor(2.0), torch.tensor(-1.0)
    fn = two_by_three()[0](torch)
    explorer = ForwardReverseExplorer(fn, (x1, x2, x3), output_names=["u", "v"])
    assert explorer.input_labels == ["x1", "x2", "x3"] and explorer.output_labels == ["u", "v"]
    named = ForwardReverseExplorer(fn, (x1, x2, x3), names=["a", "b", "c"])
    assert named.input_labels == ["a", "b", "c"] and named.output_labels == ["y1", "y2"]


def test_an_input_fn_does_not_use_has_zeros_in_j():
    explorer = ForwardReverseExplorer(lambda a, b: a * 3, (torch.tensor(1.0), torch.tensor(2.0)))
    assert {box.label for box in explorer.graph.nodes} == {"x1", "MulBackward0", "y"}
    for j in range(2):
        explorer.forward.seed = j
        explorer.forward.run_to_end()
    explorer.reverse.run_to_end()
    np.testing.assert_allclose(explorer.forward.known(), [[3.0, 0.0]])
    np.testing.assert_allclose(explorer.reverse.known(), [[3.0, 0.0]])


def test_bad_arguments_get_clear_errors():
    fn_for, inputs, _ = two_by_three()
    fn = fn_for(torch)
    with pytest.raises(TypeError, match="not a tensor"):
        ForwardReverseExplorer(fn, (0.5, 2.0, -1.0))  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError, match="floating-point"):
        ForwardReverseExplorer(lambda x: x * 2, torch.tensor([1, 2]))
    with pytest.raises(TypeError, match="must return tensors"):
        ForwardReverseExplorer(lambda x: 3.0, torch.tensor(1.0))
    with pytest.raises(ValueError, match="no grad_fn"):
        ForwardReverseExplorer(lambda x: x.detach() * 2, torch.tensor(1.0))
    with pytest.raises(ValueError, match="scale"):
        ForwardReverseExplorer(fn, inputs, scale=10)
    explorer = ForwardReverseExplorer(fn, inputs)
    with pytest.raises(ValueError, match="between 0 and 2"):
        explorer.forward.seed = 3
    with pytest.raises(RuntimeError, match="same operations"):
        calls = []

        def changing(x):
            calls.append(1)
            return x * 2 if len(calls) == 1 else x.exp()

        ForwardReverseExplorer(changing, torch.tensor(1.0))


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_jacobian_is_pytorchs(case):
    real = pytest.importorskip("torch")
    fn_for, inputs, _ = case()
    explorer = ForwardReverseExplorer(fn_for(torch), inputs)
    for j in range(explorer.shape[1]):
        explorer.forward.seed = j
        explorer.forward.run_to_end()
    for i in range(explorer.shape[0]):
        explorer.reverse.seed = i
        explorer.reverse.run_to_end()
    theirs = _jacobian(real, fn_for(real), tuple(real.tensor(x.numpy()) for x in inputs))
    np.testing.assert_allclose(explorer.forward.known(), theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(explorer.reverse.known(), theirs, rtol=1e-5, atol=1e-6)
