"""Gradients as matplotlib charts: what ``w.grad`` looks like after ``loss.backward()``.

The chart depends on the shape, as in the backward stepper's SVG pictures (see
:mod:`._style`): a scalar is shown as its value, a vector as bars, a matrix as a
heatmap (tensors of more dimensions as a matrix, leading dimensions folded into the
rows). All of them use one diverging colour scale centred at zero: blue < 0 < red,
white at 0, so the sign of every entry can be read at a glance.

matplotlib is imported inside the functions, so ``import autogradkit.viz`` stays
light; the first plot loads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..tensor import Tensor
from ._style import (
    ANNOTATE_UP_TO,
    DIVERGING_CMAP,
    as_matrix,
    display_kind,
    format_value,
    symmetric_limit,
    text_colour,
)
from .grad_svg import MAX_BARS

if TYPE_CHECKING:  # only for the annotations; never imported at run time here
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["chart_kind", "plot_grad", "plot_grads"]

# Non-finite entries (an exploding gradient) are grey, as in the SVG pictures.
NON_FINITE_COLOUR = "#a0a0a0"


def plot_grad(tensor: Tensor | np.ndarray, name: str | None = None, ax: Axes | None = None) -> Axes:
    """Plot a gradient: a heatmap for a matrix, bars for a vector, the number for a scalar.

    Parameters
    ----------
    tensor : Tensor or numpy.ndarray
        What to plot, by this rule:

        * a tensor that has a ``.grad`` (a leaf after ``backward()``, or a tensor
          that called ``retain_grad()``): its ``.grad`` is plotted, titled ``name.grad``;
        * a tensor that requires grad but has no ``.grad`` yet: ``ValueError``, the
          gradient has not been computed (call ``loss.backward()`` first); for a
          non-leaf, whose ``.grad`` backward does not keep, the error says so;
        * a tensor that does not require grad, such as ``w.grad`` itself, or a NumPy
          array: its values are plotted, titled ``name``, so
          ``plot_grad(w.grad, name="w.grad")`` and ``plot_grad(w, name="w")`` draw
          the same chart under the same title.
    name : str, optional
        The tensor's name for the title, e.g. ``"w"``. Default: ``"grad"``.
    ax : matplotlib.axes.Axes, optional
        Where to draw. Without it, a new figure sized for the chart is made with
        :func:`matplotlib.pyplot.subplots` (Jupyter shows it below the cell).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; ``ax.figure`` is its figure. A heatmap is
        ``ax.images[0]``, the bars are ``ax.containers[0]``, and the numbers
        written on the chart are ``ax.texts``.

    Raises
    ------
    ValueError
        The gradient has not been computed (``.grad`` is None), or backward does
        not keep it (a non-leaf tensor that did not call ``retain_grad()``).
    TypeError
        ``tensor`` is not a Tensor or a NumPy array of real numbers, or ``ax`` is
        not one Axes.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.viz import plot_grad
    >>> w = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    >>> (w * w).sum().backward()
    >>> ax = plot_grad(w, name="w")
    >>> ax.get_title()
    'w.grad  [2, 2]'
    >>> ax.images[0].get_array().tolist()       # the heatmap is w.grad = 2 * w
    [[2.0, -4.0], [6.0, 1.0]]
    >>> ax.images[0].get_clim()                  # centred at zero
    (-6.0, 6.0)
    >>> [text.get_text() for text in ax.texts]
    ['2', '-4', '6', '1']
    >>> import matplotlib.pyplot as plt
    >>> plt.close(ax.figure)
    """
    values, label = _gradient_to_plot(tensor, name, "plot_grad()")
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.subplots(figsize=_figure_size(values), layout="constrained")[1]
    else:
        _check_axes(ax)
    _draw(ax, values, label)
    return ax


def plot_grads(
    tensors: Mapping[str, Tensor | np.ndarray] | Iterable[tuple[str, Tensor | np.ndarray]],
) -> tuple[Figure, list[Axes]]:
    """Plot several gradients side by side, one chart each (see :func:`plot_grad`).

    Parameters
    ----------
    tensors : dict or iterable of (name, tensor) pairs
        ``{"w": w, "b": b}``: each tensor's ``.grad`` is plotted under its name, in
        this order. Every entry is checked before anything is drawn.

    Returns
    -------
    (matplotlib.figure.Figure, list of matplotlib.axes.Axes)
        The figure and one axes per entry, in the order given. Each chart gets a
        width that suits it: a 5 × 3 heatmap is wider than three bars.

    Raises
    ------
    ValueError
        Nothing to plot, or an entry's gradient is missing (the message names it).
    TypeError
        ``tensors`` is not a dict or (name, tensor) pairs, or an entry is not a
        Tensor or NumPy array.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.viz import plot_grads
    >>> torch.manual_seed(0)
    <...>
    >>> x, y = torch.ones(5), torch.zeros(3)
    >>> w = torch.randn(5, 3, requires_grad=True)
    >>> b = torch.randn(3, requires_grad=True)
    >>> z = torch.matmul(x, w) + b
    >>> torch.nn.functional.binary_cross_entropy_with_logits(z, y).backward()
    >>> fig, axes = plot_grads({"w": w, "b": b})
    >>> [ax.get_title() for ax in axes]
    ['w.grad  [5, 3]', 'b.grad  [3]']
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    charts = [
        _gradient_to_plot(tensor, name, "plot_grads()") for name, tensor in _named_entries(tensors)
    ]

    import matplotlib.pyplot as plt

    sizes = [_figure_size(values) for values, _ in charts]
    figsize = (sum(width for width, _ in sizes), max(height for _, height in sizes))
    fig, axes = plt.subplots(
        1,
        len(charts),
        figsize=figsize,
        layout="constrained",
        squeeze=False,
        width_ratios=[width for width, _ in sizes],
    )
    row = list(axes[0])
    for ax, (values, label) in zip(row, charts):
        _draw(ax, values, label)
    return fig, row


# -- What to plot ------------------------------------------------------------------------
def _gradient_to_plot(tensor: Any, name: Any, caller: str) -> tuple[np.ndarray, str]:
    """The numbers to plot and the title's label, following :func:`plot_grad`'s rule.
    Everything is checked here, before a figure exists, so a mistake leaves none behind."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{caller}: name must be a str such as 'w', not {type(name).__name__}")
    label = name if name is not None else "grad"
    who = name if name is not None else "tensor"

    if isinstance(tensor, Tensor):
        # Ask is_leaf / retains_grad before reading .grad: reading the .grad of a
        # non-leaf warns (as in PyTorch), and the error below says more.
        if not tensor.is_leaf and not tensor.retains_grad:
            maker = tensor.grad_fn.name() if tensor.grad_fn is not None else "an operation"
            raise ValueError(
                f"{caller}: {who} is not a leaf tensor (it was computed by {maker}), "
                "and backward() does not keep the .grad of intermediate results. Plot a leaf "
                "such as w instead, or call .retain_grad() on this tensor before loss.backward(). "
                "If it is itself a gradient made with backward(create_graph=True), pass "
                "its .detach()."
            )
        if tensor.grad is not None:
            return _real_numbers(tensor.grad.detach().numpy(), caller), f"{label}.grad"
        if tensor.requires_grad:
            raise ValueError(
                f"{caller}: {who}.grad is None: the gradient has not been computed yet. "
                "Call .backward() on the result first (e.g. loss.backward()), then plot."
            )
        return _real_numbers(tensor.numpy(), caller), label

    if isinstance(tensor, (np.ndarray, np.generic)):
        return _real_numbers(tensor, caller), label

    raise TypeError(
        f"{caller}: expected a Tensor (e.g. w after loss.backward()) or a NumPy array, got "
        f"{type(tensor).__name__}. Wrap other data with torch.tensor(...) or np.asarray(...)."
    )


def _real_numbers(values: np.ndarray | np.generic, caller: str) -> np.ndarray:
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"{caller}: can only plot real numbers, got an array of dtype {values.dtype}"
        )
    return np.asarray(values, dtype=float)


def _named_entries(tensors: Any) -> list[tuple[str, Any]]:
    if isinstance(tensors, (Tensor, np.ndarray)):
        raise TypeError(
            "plot_grads() takes several named tensors, e.g. plot_grads({'w': w, 'b': b}); "
            "for one tensor use plot_grad(w, name='w')"
        )
    if isinstance(tensors, Mapping):
        entries = list(tensors.items())
    elif isinstance(tensors, Iterable) and not isinstance(tensors, (str, bytes)):
        entries = list(tensors)
        for entry in entries:
            if not (isinstance(entry, tuple) and len(entry) == 2):
                raise TypeError(
                    "plot_grads() takes a dict {'w': w, 'b': b} or (name, tensor) pairs, "
                    f"but one entry is {type(entry).__name__} {entry!r:.40}"
                )
    else:
        raise TypeError(
            "plot_grads() takes a dict {'w': w, 'b': b} or (name, tensor) pairs, "
            f"not {type(tensors).__name__}"
        )
    if not entries:
        raise ValueError("plot_grads() got nothing to plot; pass e.g. {'w': w, 'b': b}")
    for name, _ in entries:
        if not isinstance(name, str):
            raise TypeError(
                f"plot_grads(): names must be str such as 'w', got {type(name).__name__} "
                f"{name!r:.40}"
            )
    return entries


def _check_axes(ax: Any) -> None:
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        hint = (
            " (plt.subplots gave several; pick one, e.g. ax=axes[0])"
            if isinstance(ax, np.ndarray)
            else ""
        )
        raise TypeError(
            f"plot_grad(): ax must be one matplotlib Axes, got {type(ax).__name__}{hint}"
        )


# -- How to draw it ----------------------------------------------------------------------
def chart_kind(shape: tuple) -> str:
    """``display_kind`` as the SVG pictures apply it: a long vector is a one-row heatmap
    (thousands of bars are unreadable and slow), and an empty tensor has no chart."""
    if 0 in shape:
        return "empty"
    kind = display_kind(shape)
    if kind == "bars" and shape[0] > MAX_BARS:
        return "heatmap"
    return kind


def _draw(ax: Axes, values: np.ndarray, label: str) -> None:
    kind = chart_kind(values.shape)
    draw = {
        "value": _draw_value,
        "bars": _draw_bars,
        "heatmap": _draw_heatmap,
        "empty": _draw_empty,
    }[kind]
    draw(ax, values)
    shape_text = "[" + ", ".join(str(n) for n in values.shape) + "]"
    ax.set_title(f"{label}  {shape_text}", fontfamily="monospace", fontweight="bold")


def _colour_scale(values: np.ndarray):
    """The colormap and the zero-centred norm: −limit is dark blue, +limit dark red."""
    import matplotlib
    from matplotlib.colors import Normalize

    limit = symmetric_limit(values)
    cmap = matplotlib.colormaps[DIVERGING_CMAP].with_extremes(bad=NON_FINITE_COLOUR)
    return cmap, Normalize(vmin=-limit, vmax=limit)


def _colours(values: np.ndarray) -> np.ndarray:
    """RGBA (0..1) of each entry on the colour scale, shape ``values.shape + (4,)``."""
    cmap, norm = _colour_scale(values)
    return np.asarray(cmap(norm(np.ma.masked_invalid(values))))


def _rgb_255(rgba) -> tuple[int, int, int]:
    return tuple(round(channel * 255) for channel in rgba[:3])


def _draw_value(ax: Axes, values: np.ndarray) -> None:
    value = float(values.reshape(()))
    colour = _colours(values).reshape(4)
    ax.text(
        0.5,
        0.5,
        format_value(value),
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=26,
        color=text_colour(_rgb_255(colour)),
        bbox={"boxstyle": "round,pad=0.5", "facecolor": colour, "edgecolor": "#57606a"},
    )
    ax.set_axis_off()


def _draw_bars(ax: Axes, values: np.ndarray) -> None:
    limit = symmetric_limit(values)
    # A non-finite bar has no height; its label still says nan or inf.
    heights = np.where(np.isfinite(values), values, 0.0)
    colours = _colours(values)
    positions = np.arange(values.size)
    ax.bar(positions, heights, width=0.8, color=colours, edgecolor="#57606a", linewidth=0.5)
    ax.axhline(0, color="#57606a", linewidth=0.8)
    # Zero in the middle, as on the colour scale; the margin leaves room for the labels.
    ax.set_ylim(-1.3 * limit, 1.3 * limit)
    ax.set_xticks(positions)
    ax.set_xlim(-0.6, values.size - 0.4)
    if values.size <= ANNOTATE_UP_TO:
        for position, value, height in zip(positions, values, heights):
            above = height >= 0
            ax.annotate(
                format_value(value),
                xy=(position, height),
                xytext=(0, 3 if above else -3),
                textcoords="offset points",
                ha="center",
                va="bottom" if above else "top",
                fontsize=8,
            )


def _draw_heatmap(ax: Axes, values: np.ndarray) -> None:
    from matplotlib.ticker import MaxNLocator

    matrix = as_matrix(values)
    rows, columns = matrix.shape
    cmap, norm = _colour_scale(values)
    # Masked cells take the colormap's "bad" colour, so nan and inf show grey.
    image = ax.imshow(
        np.ma.masked_invalid(matrix), cmap=cmap, norm=norm, aspect="auto", interpolation="nearest"
    )
    ax.figure.colorbar(image, ax=ax)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if rows == 1:  # a long vector: there is no row index to show
        ax.set_yticks([])
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if values.ndim > 2:
        ax.set_ylabel(f"rows: dims {list(values.shape[:-1])} flattened", fontsize=8)
    if matrix.size <= ANNOTATE_UP_TO:
        cell_colours = _colours(matrix)
        for i in range(rows):
            for j in range(columns):
                ax.text(
                    j,
                    i,
                    format_value(matrix[i, j]),
                    ha="center",
                    va="center",
                    fontsize=9,
                    color=text_colour(_rgb_255(cell_colours[i, j])),
                )


def _draw_empty(ax: Axes, values: np.ndarray) -> None:
    ax.text(
        0.5, 0.5, "no elements", transform=ax.transAxes, ha="center", va="center", color="#6e7781"
    )
    ax.set_axis_off()


def _figure_size(values: np.ndarray) -> tuple[float, float]:
    """Inches for one chart: annotated cells and bars get room for their numbers."""
    kind = chart_kind(values.shape)
    if kind in ("value", "empty"):
        return 2.6, 2.2
    if kind == "bars":
        return float(np.clip(0.5 * values.size + 1.2, 2.6, 9.0)), 2.8
    rows, columns = as_matrix(values).shape
    if rows * columns <= ANNOTATE_UP_TO:
        cell_width, cell_height = 0.65, 0.4
    else:
        cell_width = cell_height = 0.25
    # About 1.6 inches for the colorbar and the axis labels.
    return (
        float(np.clip(columns * cell_width + 1.6, 2.6, 10.0)),
        float(np.clip(rows * cell_height + 1.0, 2.2, 7.0)),
    )
