"""plot_grad / plot_grads: checked through matplotlib's artists (the image's array,
the bars' heights, the texts and their positions), never through pixels."""

from __future__ import annotations

import subprocess
import sys
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from graphs import tutorial_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autogradkit as torch
from autogradkit.viz import plot_grad, plot_grads
from autogradkit.viz._style import (
    ANNOTATE_UP_TO,
    as_matrix,
    format_value,
    symmetric_limit,
)
from autogradkit.viz.plots import chart_kind

matplotlib.use("Agg")  # off screen; pyplot picks its backend at the first figure, not at import


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def tutorial():
    """PyTorch's autograd tutorial: one layer, binary cross-entropy, backward."""
    x, _, w, b, z, loss = tutorial_graph()
    loss.retain_grad()
    loss.backward()
    return {"x": x, "w": w, "b": b, "z": z, "loss": loss}


def texts_by_position(ax) -> dict[tuple[float, ...], str]:
    return {tuple(float(c) for c in text.get_position()): text.get_text() for text in ax.texts}


def labels_by_point(ax) -> dict[tuple[float, ...], str]:
    """Bar labels are annotations: the point they label, and their text."""
    return {tuple(float(c) for c in text.xy): text.get_text() for text in ax.texts}


def pixels(image) -> np.ndarray:
    """An image's values (matplotlib types them as optional; a plotted image has them)."""
    values = image.get_array()
    assert values is not None
    return values


def bar_heights(ax) -> np.ndarray:
    (bars,) = ax.containers
    return np.array([bar.get_height() for bar in bars])


# -- heatmaps ----------------------------------------------------------------------------
def test_a_matrix_gradient_is_a_heatmap_of_exactly_its_values(tutorial):
    w = tutorial["w"]
    ax = plot_grad(w, name="w")
    (image,) = ax.images
    plotted = pixels(image)
    assert not np.ma.getmaskarray(plotted).any()
    np.testing.assert_array_equal(np.ma.getdata(plotted), w.grad.numpy())
    assert ax.get_title() == "w.grad  [5, 3]"


def test_the_heatmap_colour_scale_is_diverging_and_centred_at_zero(tutorial):
    grad = tutorial["w"].grad.numpy()
    (image,) = plot_grad(tutorial["w"], name="w").images
    limit = float(np.abs(grad).max())
    assert image.get_clim() == pytest.approx((-limit, limit))
    assert image.get_cmap().name == "RdBu_r"
    assert image.colorbar is not None


def test_each_heatmap_cell_is_annotated_with_its_value_in_a_readable_colour(tutorial):
    grad = tutorial["w"].grad.numpy()
    ax = plot_grad(tutorial["w"], name="w")
    expected = {
        (float(j), float(i)): format_value(grad[i, j])
        for i in range(grad.shape[0])
        for j in range(grad.shape[1])
    }
    assert texts_by_position(ax) == expected
    colour_at = {tuple(text.get_position()): text.get_color() for text in ax.texts}
    # Column 0 holds the largest gradient (dark red), column 2 one near zero (white).
    assert abs(grad[0, 0]) == np.abs(grad).max() and abs(grad[0, 2]) < 0.05 * abs(grad[0, 0])
    assert colour_at[(0, 0)] == "#fff"
    assert colour_at[(2, 0)] == "#000"


def test_a_big_matrix_is_not_annotated():
    grad = np.arange(ANNOTATE_UP_TO + 1, dtype=float).reshape(1, -1) - 10
    ax = plot_grad(grad)
    assert len(ax.texts) == 0
    np.testing.assert_array_equal(ax.images[0].get_array(), grad)


def test_more_than_two_dimensions_fold_into_the_rows():
    grad = np.arange(24, dtype=float).reshape(2, 3, 4) - 12
    ax = plot_grad(grad, name="g")
    np.testing.assert_array_equal(ax.images[0].get_array(), grad.reshape(6, 4))
    assert ax.get_title() == "g  [2, 3, 4]"
    assert "flattened" in ax.get_ylabel()


# -- bars and values ---------------------------------------------------------------------
def test_a_vector_gradient_is_bars_of_its_values_coloured_on_the_same_scale(tutorial):
    b = tutorial["b"]
    grad = b.grad.numpy()
    ax = plot_grad(b, name="b")
    np.testing.assert_array_equal(bar_heights(ax), grad)
    assert len(ax.images) == 0
    assert ax.get_title() == "b.grad  [3]"
    cmap = matplotlib.colormaps["RdBu_r"]
    limit = np.abs(grad).max()
    for bar, value in zip(ax.containers[0], grad):
        np.testing.assert_allclose(bar.get_facecolor(), cmap((value / limit + 1) / 2), atol=1e-6)
    assert labels_by_point(ax) == {
        (float(i), float(v)): format_value(v) for i, v in enumerate(grad)
    }
    # zero in the middle, like the colour scale
    bottom, top = ax.get_ylim()
    assert bottom == -top and top >= limit


def test_a_scalar_gradient_is_shown_as_its_number():
    w = torch.tensor(3.0, requires_grad=True)
    (w * w).backward()
    ax = plot_grad(w, name="w")
    assert [text.get_text() for text in ax.texts] == ["6"]
    assert len(ax.images) == 0 and len(ax.containers) == 0
    assert ax.get_title() == "w.grad  []"


def test_the_tutorial_loss_gradient_is_one(tutorial):
    ax = plot_grad(tutorial["loss"], name="loss")
    assert [text.get_text() for text in ax.texts] == ["1"]
    assert ax.get_title() == "loss.grad  []"


def test_non_finite_entries_are_labelled_and_have_no_bar():
    grad = np.array([1.0, np.nan, -np.inf, -2.0])
    ax = plot_grad(grad)
    np.testing.assert_array_equal(bar_heights(ax), [1.0, 0.0, 0.0, -2.0])
    assert [text.get_text() for text in ax.texts] == ["1", "nan", "-inf", "-2"]
    (image,) = plot_grad(grad.reshape(2, 2)).images
    np.testing.assert_array_equal(np.ma.getmaskarray(pixels(image)), [[False, True], [True, False]])
    assert image.get_clim() == (-2.0, 2.0)


def test_a_long_vector_is_a_one_row_heatmap_as_in_the_svg_pictures():
    grad = np.linspace(-1, 1, 200)
    assert chart_kind(grad.shape) == "heatmap"
    ax = plot_grad(grad)
    assert len(ax.containers) == 0
    np.testing.assert_array_equal(ax.images[0].get_array(), grad.reshape(1, 200))


def test_an_empty_gradient_says_so():
    ax = plot_grad(np.zeros((3, 0)), name="e")
    assert [text.get_text() for text in ax.texts] == ["no elements"]
    assert len(ax.images) == 0 and len(ax.containers) == 0
    assert ax.get_title() == "e  [3, 0]"


# -- what is plotted ---------------------------------------------------------------------
def test_a_gradient_passed_itself_plots_the_same_chart(tutorial):
    w = tutorial["w"]
    from_tensor = plot_grad(w, name="w")
    from_grad = plot_grad(w.grad, name="w.grad")
    assert from_grad.get_title() == from_tensor.get_title() == "w.grad  [5, 3]"
    np.testing.assert_array_equal(
        from_grad.images[0].get_array(), from_tensor.images[0].get_array()
    )


def test_numpy_arrays_and_tensors_without_grad_are_plotted_as_values(tutorial):
    ax = plot_grad(np.array([0.5, -1.5]))
    np.testing.assert_array_equal(bar_heights(ax), [0.5, -1.5])
    assert ax.get_title() == "grad  [2]"
    ax = plot_grad(tutorial["x"], name="x")
    np.testing.assert_array_equal(bar_heights(ax), np.ones(5))
    assert ax.get_title() == "x  [5]"


def test_a_non_leaf_that_retained_its_grad_is_plotted():
    torch.manual_seed(1)
    w = torch.randn(2, 2, requires_grad=True)
    hidden = w * 3
    hidden.retain_grad()
    (hidden * hidden).sum().backward()
    ax = plot_grad(hidden, name="hidden")
    assert ax.get_title() == "hidden.grad  [2, 2]"
    np.testing.assert_allclose(pixels(ax.images[0]), 2 * hidden.detach().numpy())


def test_a_gradient_with_its_own_graph_is_plotted_through_its_tensor():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True warns about a reference cycle
        (w**3).sum().backward(create_graph=True)
    np.testing.assert_array_equal(bar_heights(plot_grad(w, name="w")), [3.0, 12.0])
    with pytest.raises(ValueError, match=r"backward\(create_graph=True\), pass its \.detach\(\)"):
        plot_grad(w.grad, name="w.grad")  # type: ignore[arg-type,unused-ignore]
    np.testing.assert_array_equal(
        bar_heights(plot_grad(w.grad.detach(), name="w.grad")), [3.0, 12.0]
    )


# -- where it is drawn -------------------------------------------------------------------
def test_a_given_axes_is_drawn_on_and_no_figure_is_made(tutorial):
    left, right = plt.subplots(1, 2)[1]
    figures = plt.get_fignums()
    assert plot_grad(tutorial["w"], name="w", ax=right) is right
    assert plt.get_fignums() == figures
    assert len(right.images) == 1 and len(left.images) == 0


def test_without_axes_a_figure_is_made_and_its_axes_returned(tutorial):
    assert plt.get_fignums() == []
    ax = plot_grad(tutorial["b"], name="b")
    assert plt.get_fignums() == [ax.figure.number]
    assert ax.figure.axes[0] is ax


def test_plot_grads_draws_one_chart_per_entry_in_order(tutorial):
    fig, axes = plot_grads({"w": tutorial["w"], "b": tutorial["b"], "loss": tutorial["loss"]})
    assert isinstance(axes, list) and len(axes) == 3
    assert [ax.get_title() for ax in axes] == ["w.grad  [5, 3]", "b.grad  [3]", "loss.grad  []"]
    assert all(ax.figure is fig for ax in axes)
    np.testing.assert_array_equal(axes[0].images[0].get_array(), tutorial["w"].grad.numpy())
    np.testing.assert_array_equal(bar_heights(axes[1]), tutorial["b"].grad.numpy())
    # Widths follow the content: annotated 5x3 heatmap > three bars > one number.
    ratios = np.asarray(axes[0].get_gridspec().get_width_ratios())
    assert ratios[0] > ratios[1] > ratios[2]


def test_plot_grads_takes_name_tensor_pairs_too(tutorial):
    _, axes = plot_grads([("b", tutorial["b"]), ("w", tutorial["w"])])
    assert [ax.get_title() for ax in axes] == ["b.grad  [3]", "w.grad  [5, 3]"]


# -- mistakes ----------------------------------------------------------------------------
def test_a_leaf_before_backward_says_to_call_backward():
    w = torch.randn(5, 3, requires_grad=True)
    with pytest.raises(
        ValueError, match=r"w\.grad is None: the gradient has not been computed yet.*backward\(\)"
    ):
        plot_grad(w, name="w")
    assert plt.get_fignums() == []


def test_a_non_leaf_says_backward_does_not_keep_its_grad_and_does_not_warn(tutorial):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PyTorch-style warning on top of the error
        with pytest.raises(ValueError, match=r"z is not a leaf.*AddBackward0.*retain_grad\(\)"):
            plot_grad(tutorial["z"], name="z")


def test_a_retained_non_leaf_before_backward_says_to_call_backward():
    hidden = torch.randn(3, requires_grad=True) * 2
    hidden.retain_grad()
    with pytest.raises(ValueError, match="not been computed yet"):
        plot_grad(hidden)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([1.0, 2.0], r"expected a Tensor .* got list"),
        (None, r"expected a Tensor .* got NoneType"),
        (np.array(["a", "b"]), r"can only plot real numbers"),
        (np.array([1 + 2j]), r"can only plot real numbers"),
    ],
)
def test_plot_grad_rejects_what_is_not_numbers(bad, message):
    with pytest.raises(TypeError, match=message):
        plot_grad(bad)
    assert plt.get_fignums() == []


def test_plot_grad_rejects_a_bad_name_or_axes(tutorial):
    with pytest.raises(TypeError, match="name must be a str"):
        plot_grad(tutorial["w"], name=3)  # type: ignore[arg-type]  # wrong on purpose
    _, axes = plt.subplots(1, 2)
    with pytest.raises(TypeError, match=r"one matplotlib Axes, got ndarray.*axes\[0\]"):
        plot_grad(tutorial["w"], ax=axes)


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ({}, ValueError, "nothing to plot"),
        ([], ValueError, "nothing to plot"),
        ("w", TypeError, "a dict"),
        (5, TypeError, "not int"),
        ([("w", "b", "c")], TypeError, "pairs, but one entry is tuple"),
        ({1: np.ones(2)}, TypeError, "names must be str"),
        ({"w": [1.0, 2.0]}, TypeError, "expected a Tensor"),
    ],
)
def test_plot_grads_rejects_bad_input_before_drawing(bad, error, message):
    with pytest.raises(error, match=message):
        plot_grads(bad)
    assert plt.get_fignums() == []


def test_plot_grads_given_one_tensor_points_to_plot_grad(tutorial):
    with pytest.raises(TypeError, match=r"for one tensor use plot_grad"):
        plot_grads(tutorial["w"])


def test_plot_grads_names_the_entry_whose_grad_is_missing(tutorial):
    fresh = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"fresh\.grad is None"):
        plot_grads({"w": tutorial["w"], "fresh": fresh})
    assert plt.get_fignums() == []


# -- import cost -------------------------------------------------------------------------
def test_importing_viz_does_not_load_matplotlib():
    code = "import autogradkit.viz, sys; assert 'matplotlib' not in sys.modules, 'matplotlib was loaded'"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


# -- every shape -------------------------------------------------------------------------
shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)
# Zero, or magnitudes from 1e-6 to 1e3: matplotlib widens a colour scale narrower
# than about ±1e-287 to ±0.1, and no gradient worth looking at is that small.
numbers = st.one_of(st.just(0.0), st.floats(1e-6, 1e3), st.floats(-1e3, -1e-6))


@settings(max_examples=40)
@given(data=st.data(), shape=shapes)
def test_every_small_shape_gets_its_chart_and_the_chart_is_the_gradient(data, shape):
    upstream = data.draw(hnp.arrays(np.float64, shape, elements=numbers))
    w = torch.tensor(np.zeros(shape), requires_grad=True)
    (w * torch.tensor(upstream)).sum().backward()
    grad = w.grad.numpy()
    np.testing.assert_array_equal(grad, upstream)  # d/dw sum(w * u) = u

    ax = plot_grad(w, name="w")
    try:
        assert ax.get_title() == f"w.grad  [{', '.join(map(str, shape))}]"
        if len(shape) == 0 or shape == (1,):
            assert len(ax.images) == 0 and len(ax.containers) == 0
            assert [text.get_text() for text in ax.texts] == [format_value(grad.item())]
        elif len(shape) == 1:
            assert len(ax.images) == 0
            np.testing.assert_array_equal(bar_heights(ax), grad)
        else:
            (image,) = ax.images
            np.testing.assert_array_equal(image.get_array(), as_matrix(grad))
            limit = symmetric_limit(grad)
            assert image.get_clim() == (-limit, limit)
            assert len(ax.texts) == (grad.size if grad.size <= ANNOTATE_UP_TO else 0)
    finally:
        plt.close(ax.get_figure(root=True))
