"""See the Jacobian J of ``y = func(x)`` and the product ``vᵀJ`` that ``y.backward(v)``
computes.

For a tensor output, ``backward`` needs a vector ``v`` shaped like the output and
stores ``vᵀJ`` — a weighted sum of the rows of J, never J itself — in ``x.grad``.
:class:`JacobianExplorer` shows J as a coloured table, lets you set ``v`` with
sliders, runs the real ``backward(v)`` after every change and compares its result
with the product ``v @ J`` done by NumPy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from html import escape

import ipywidgets as widgets
import numpy as np

from .. import from_numpy
from ..autograd import functional
from ..autograd.function import AccumulateGrad
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from ..viz._style import diverging_rgb, format_value, symmetric_limit, text_colour
from ._fallback import FallbackVBox

__all__ = ["JacobianExplorer"]

# More output elements than this get one slider and a menu choosing what it edits.
MAX_SLIDERS = 24
SLIDER_MIN, SLIDER_MAX, SLIDER_STEP = -2.0, 2.0, 0.1

CELL_STYLE = "padding:2px 5px;text-align:right;font:13px monospace;min-width:30px"
LABEL_STYLE = "padding:2px 5px;font:13px monospace;color:#555;white-space:nowrap"


class JacobianExplorer(FallbackVBox):
    r"""The Jacobian of ``func`` at ``inputs``, and ``vᵀJ`` as ``backward(v)`` computes it.

    Parameters
    ----------
    func : callable
        Maps one floating-point tensor to one tensor, using autogradkit operations.
    inputs : Tensor
        The point x at which to differentiate. The explorer works on a private copy
        that requires grad, so ``inputs`` and its ``.grad`` are never touched (like
        ``torch.autograd.functional.jacobian``). One tensor only: for several inputs,
        concatenate them and split the result inside ``func``.

    Attributes
    ----------
    v : Tensor
        The vector of ``y.backward(v)``, shaped like the output; all ones at first
        (the tutorial's ``torch.ones_like(out)``). Assign to it to move the sliders.
    jacobian : Tensor
        J flattened to a matrix: one row per output element, one column per input
        element (``J[i, j] = ∂y_i/∂x_j``, both in row-major order).
    vjp_backward : Tensor
        ``x.grad`` after ``y.backward(v)``, shaped like the input.
    vjp_explicit : Tensor
        ``v.flatten() @ J`` by NumPy, reshaped like the input.
    equal : bool
        Whether the two products agree (``np.allclose``).
    output_labels, input_labels : list of str
        Row and column names of J: ``y[0,1]``, ``x[2,3]``, …
    sliders : list of ipywidgets.FloatSlider
        One per output element; or, past ``MAX_SLIDERS`` elements, a single slider
        editing the element chosen in ``element`` (otherwise None).
    element : ipywidgets.Dropdown or None
        Which output element the single slider edits (many-element outputs only).
    ones_button, zeros_button : ipywidgets.Button
        Set v to all ones (the tutorial's choice) or all zeros (then one slider at 1
        picks one row of J).
    header, jacobian_view, result_view : ipywidgets.HTMLMath, HTML, HTMLMath
        What is shown: the formula, the table of J, and v with both products.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.widgets import JacobianExplorer
    >>> inp = torch.eye(4, 5, requires_grad=True)
    >>> explorer = JacobianExplorer(lambda x: (x + 1).pow(2).t(), inp)
    >>> explorer.jacobian.shape
    autogradkit.Size([20, 20])
    >>> explorer.vjp_backward
    tensor([[4., 2., 2., 2., 2.],
            [2., 4., 2., 2., 2.],
            [2., 2., 4., 2., 2.],
            [2., 2., 2., 4., 2.]])
    >>> explorer.sliders[0].value = 2.0     # v[0, 0] = 2 counts row y[0,0] twice
    >>> explorer.vjp_backward[0], explorer.equal, inp.grad is None
    (tensor([8., 2., 2., 2., 2.]), True, True)
    """

    def __init__(self, func: Callable[[Tensor], Tensor], inputs: Tensor) -> None:
        self.func = func
        self._x = _private_leaf(inputs)
        with enable_grad():  # even if the explorer is built inside torch.no_grad()
            self._out = _checked_output(func, self._x)
            full = functional.jacobian(func, self._x)
        self._J = full.numpy().reshape(self._out.numel(), self._x.numel())
        self._captured = _captured_leaves(self._out, self._x)
        self._v = np.ones(self._out.shape, dtype=self._out.numpy(force=True).dtype)
        self.output_labels = _labels("y", tuple(self._out.shape))
        self.input_labels = _labels("x", tuple(self._x.shape))
        self.error: Exception | None = None
        self._syncing = False

        self._build_widgets()
        super().__init__(
            children=[self.header, self.jacobian_view, self._controls, self.result_view]
        )
        self._update_or_raise()

    # -- the Python API -----------------------------------------------------------
    @property
    def v(self) -> Tensor:
        return from_numpy(self._v.copy())

    @v.setter
    def v(self, value) -> None:
        self._v = _checked_vector(value, self._v.shape, self._v.dtype)
        self._show_v_on_sliders()
        self._update_or_raise()

    @property
    def jacobian(self) -> Tensor:
        return from_numpy(self._J.copy())

    @property
    def undefined(self) -> np.ndarray:
        """Where ``v @ J`` is not defined (a bool array shaped like the input): input
        elements whose column of J holds ``inf`` or ``nan``. ``log`` at 0 is one: the
        engine computes each row of J as ``e_i / x``, so the off-diagonal entries of
        that column are 0/0 = nan and the sum ``v @ J`` is nan there, while
        ``backward(v)`` gives ``v/0 = inf``. Neither is wrong; only one is defined."""
        return (~np.isfinite(self._J).all(axis=0)).reshape(self._x.shape)

    @property
    def equal(self) -> bool:
        """Whether ``backward(v)`` and ``v @ J`` agree wherever ``v @ J`` is defined
        (see :attr:`undefined`), to the rounding of their dtype. The two add up the
        same terms in different orders, and in float32 that differs by about 1e-7 of
        the terms, which can be far larger than the result when they cancel:
        ``(x + 1)² · tanh x`` at x = -0.318 has derivative 0.00057, the difference of
        two terms near 0.42, and the two products differed by 2e-8 (1e-4 of it), which
        NumPy's default tolerance called a difference."""
        defined = ~self.undefined
        backward, explicit = self.vjp_backward.numpy(), self.vjp_explicit.numpy()
        rtol, atol = (1e-5, 1e-8) if backward.dtype == np.float64 else (1e-4, 1e-5)
        return bool(
            np.allclose(backward[defined], explicit[defined], rtol=rtol, atol=atol, equal_nan=True)
        )

    def _verdict(self) -> str:
        verdict = "equal ✓" if self.equal else "differ ✗"
        undefined = [
            label for label, bad in zip(self.input_labels, self.undefined.reshape(-1)) if bad
        ]
        if undefined:
            verdict += (
                f" where v @ J is defined (J has inf/nan in the column of {', '.join(undefined)})"
            )
        return verdict

    def __repr__(self) -> str:
        rows, cols = self._J.shape
        verdict = self._verdict()
        return (
            f"<JacobianExplorer: x {_shape(self._x)} → y {_shape(self._out)}, J is {rows}×{cols}; "
            f"vᵀJ by backward and by v @ J {verdict}>"
        )

    # -- the engine, run for real ---------------------------------------------------
    def _update(self) -> None:
        """Recompute both products for the current v (J itself never changes)."""
        try:
            backward = self._backward_of_v()
            self.error = None
        except Exception as error:
            self.error = error  # e.g. a tensor func closed over was changed in place
            backward = np.full(self._x.shape, np.nan, dtype=self._J.dtype)
        self.vjp_backward = from_numpy(backward)
        self.vjp_explicit = from_numpy((self._v.reshape(-1) @ self._J).reshape(self._x.shape))
        self.result_view.value = self.results_html()

    def _update_or_raise(self) -> None:
        """``_update`` for changes made in code: there the error is raised, while a
        slider's change can only show it in the panel."""
        self._update()
        if self.error is not None:
            raise self.error

    def _backward_of_v(self) -> np.ndarray:
        # backward adds into .grad; starting from None each time is the tutorial's
        # `inp.grad.zero_()` between calls.
        self._x.grad = None
        with _requires_grad_switched_off(self._captured):
            self._out.backward(from_numpy(self._v.copy()), retain_graph=True)
        grad = self._x.grad
        return np.zeros_like(self._J, shape=self._x.shape) if grad is None else grad.numpy()

    # -- what is shown -----------------------------------------------------------------
    def jacobian_html(self) -> str:
        """J as a table: a row per output element, a column per input element."""
        titles = [[f"∂{row}/∂{col}" for col in self.input_labels] for row in self.output_labels]
        table = _heat_table(
            self._J,
            symmetric_limit(self._J),
            titles,
            self.output_labels,
            self.input_labels,
            "agk-jacobian",
        )
        rows, cols = self._J.shape
        return (
            f"<div><p><b>J</b>, {rows} × {cols}: one row per output element, one column per "
            "input element; the cell in row y[i], column x[j] is ∂y[i]/∂x[j] (hover a cell "
            f"to see its name).</p>{table}</div>"
        )

    def results_html(self) -> str:
        """v, the two products (on one colour scale) and whether they agree."""
        products = np.stack([self.vjp_backward.numpy(), self.vjp_explicit.numpy()])
        limit = symmetric_limit(products)
        in_titles = _as_grid(np.array(self.input_labels, dtype=object), self._x.shape)
        out_titles = _as_grid(np.array(self.output_labels, dtype=object), self._out.shape)
        colour = "#1a7f37" if self.equal else "#d1242f"
        verdict = f'<b class="agk-verdict" style="color:{colour}">{escape(self._verdict())}</b>'

        error = (
            ""
            if self.error is None
            else f'<p class="agk-error" style="color:#d1242f"><b>{type(self.error).__name__}:</b> '
            f"{escape(str(self.error))}</p>"
        )
        return (
            f'<div class="agk-jacobian-results">{error}'
            f"<p><b>v</b> {_shape(self._out)}:</p>"
            + _heat_table(
                _as_grid(self._v), symmetric_limit(self._v), out_titles, css_class="agk-v"
            )
            + f"<p>$v^\\top J$ by the engine: <code>y.backward(v)</code>, then <code>x.grad</code> "
            f"{_shape(self._x)}:</p>"
            + _heat_table(_as_grid(products[0]), limit, in_titles, css_class="agk-vjp-backward")
            + f"<p>$v^\\top J$ by NumPy: <code>v.flatten() @ J</code>, reshaped {_shape(self._x)}:</p>"
            + _heat_table(_as_grid(products[1]), limit, in_titles, css_class="agk-vjp-explicit")
            + f"<p>The two: {verdict}</p></div>"
        )

    def _header_html(self) -> str:
        return (
            "<p>For <i>y</i> = f(<i>x</i>), <code>y.backward(v)</code> does not compute "
            r"$J_{ij} = \partial y_i / \partial x_j$ but the vector-Jacobian product "
            r"$(v^\top J)_j = \sum_i v_i \, \partial y_i / \partial x_j$ and stores it in "
            "<code>x.grad</code>. Move the sliders to change <i>v</i>; set them all to 0 and one "
            "to 1 to pick out one row of J.</p>"
        )

    def static_html(self) -> str:
        """The explorer as plain HTML (no controls): J, v and both products."""
        return (
            f'<div class="agk-jacobian-static"><p><i>{escape(repr(self))} — run the notebook '
            "to move the sliders.</i></p>"
            "<p><code>y.backward(v)</code> computes <i>v</i><sup>⊤</sup><i>J</i>, "
            "not <i>J</i>.</p>"
            f"{self.jacobian_html()}{self.results_html()}</div>"
        )

    def plain_text(self) -> str:
        """J, v and both products as text (the fallback's text/plain)."""

        def show(array):
            return np.array2string(
                np.asarray(array), precision=4, suppress_small=True, threshold=40
            )

        return "\n".join(
            [
                repr(self),
                f"J (flattened, {self._J.shape[0]}×{self._J.shape[1]}):",
                show(self._J),
                f"v {_shape(self._out)}:",
                show(self._v),
                "y.backward(v) → x.grad:",
                show(self.vjp_backward.numpy()),
                "v.flatten() @ J:",
                show(self.vjp_explicit.numpy()),
                "(display it in Jupyter with ipywidgets to move the sliders)",
            ]
        )

    # -- the widgets -------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.header = widgets.HTMLMath(value=self._header_html())
        self.jacobian_view = widgets.HTML(
            value=self.jacobian_html(), layout=widgets.Layout(overflow="auto", max_height="420px")
        )
        self.result_view = widgets.HTMLMath()
        self.ones_button = widgets.Button(
            description="all ones", tooltip="v = torch.ones_like(out)"
        )
        self.zeros_button = widgets.Button(
            description="all zeros", tooltip="v = torch.zeros_like(out)"
        )
        self.ones_button.on_click(lambda _: self._set_all(1.0))
        self.zeros_button.on_click(lambda _: self._set_all(0.0))

        many = self._v.size > MAX_SLIDERS
        self.element = (
            widgets.Dropdown(
                options=[(label, i) for i, label in enumerate(self.output_labels)],
                value=0,
                description="edit v at",
                layout=widgets.Layout(width="220px"),
            )
            if many
            else None
        )
        labels = ["v at"] if many else self.output_labels
        # One layout and one style shared by all sliders: each widget costs ~1 ms to make.
        layout, style = widgets.Layout(width="250px"), widgets.SliderStyle(description_width="56px")
        self.sliders = [
            widgets.FloatSlider(
                value=1.0,
                min=SLIDER_MIN,
                max=SLIDER_MAX,
                step=SLIDER_STEP,
                description=label,
                style=style,
                layout=layout,
            )
            for label in labels
        ]
        for i, slider in enumerate(self.sliders):
            slider.observe(lambda change, i=i: self._on_slider(i, change["new"]), names="value")
        if self.element is not None:
            self.element.observe(lambda _: self._show_v_on_sliders(), names="value")

        buttons = [self.ones_button, self.zeros_button] + ([self.element] if many else [])
        grid = widgets.GridBox(
            self.sliders,
            layout=widgets.Layout(grid_template_columns="repeat(auto-fill, minmax(250px, 1fr))"),
        )
        self._controls = widgets.VBox([widgets.HBox(buttons), grid])

    def _on_slider(self, index: int, value: float) -> None:
        if self._syncing:
            return
        position = self.element.value if self.element is not None else index
        self._v.reshape(-1)[position] = value
        self._update()

    def _set_all(self, value: float) -> None:
        self._v[...] = value
        self._show_v_on_sliders()
        self._update()

    def _show_v_on_sliders(self) -> None:
        flat = self._v.reshape(-1)
        shown = [flat[self.element.value]] if self.element is not None else flat
        self._syncing = True
        try:
            for slider, value in zip(self.sliders, shown):
                value = float(value)
                # Widen the range rather than let the slider clip a value set in code.
                slider.min, slider.max = min(slider.min, value), max(slider.max, value)
                slider.value = value
        finally:
            self._syncing = False


# -- helpers ---------------------------------------------------------------------------
def _private_leaf(inputs) -> Tensor:
    if isinstance(inputs, (tuple, list)) and inputs and all(isinstance(t, Tensor) for t in inputs):
        raise TypeError(
            f"JacobianExplorer takes one input tensor, got a {type(inputs).__name__} of {len(inputs)}: "
            "concatenate them into one tensor and split it inside func"
        )
    if not isinstance(inputs, Tensor):
        raise TypeError(
            f"inputs must be an autogradkit Tensor, got {type(inputs).__name__}: "
            "wrap the values with torch.tensor(...)"
        )
    if not inputs.is_floating_point():
        raise TypeError(
            f"JacobianExplorer needs a floating-point input to differentiate, got dtype "
            f"{inputs.dtype}: convert it with inputs.float()"
        )
    if inputs.numel() == 0:
        raise ValueError("the input has no elements, so its Jacobian has no columns")
    # A copy, not a view: J is computed once, so the point x must not move afterwards.
    return from_numpy(inputs.numpy(force=True).copy()).requires_grad_()


def _checked_output(func, x: Tensor) -> Tensor:
    if not callable(func):
        raise TypeError(f"func must be a function of the input tensor, got {type(func).__name__}")
    out = func(x)
    if not isinstance(out, Tensor):
        if isinstance(out, (tuple, list)):
            hint = "for several outputs, return one tensor (e.g. torch.cat([a.flatten(), b.flatten()]))"
        else:
            hint = "compute it from x with autogradkit operations (not NumPy, not Python numbers)"
        raise TypeError(f"func must return an autogradkit Tensor, got {type(out).__name__}: {hint}")
    if not out.requires_grad:
        raise ValueError(
            "func(x) does not require grad, so backward has nothing to run: compute "
            "the output from x with autogradkit operations (not under torch.no_grad(), "
            "not through .detach(), .item() or .numpy())"
        )
    if out.numel() == 0:
        raise ValueError("func(x) has no elements, so its Jacobian has no rows")
    return out


def _checked_vector(value, shape: tuple, dtype: np.dtype) -> np.ndarray:
    array = np.array(value.detach().numpy() if isinstance(value, Tensor) else value, dtype=dtype)
    if array.shape != shape:
        raise ValueError(
            f"v must have the output's shape {list(shape)} (like torch.ones_like(out)), "
            f"got {list(array.shape)}"
        )
    return array


def _captured_leaves(out: Tensor, x: Tensor) -> list[Tensor]:
    """Leaves other than x that ``out``'s graph reaches: tensors func closed over,
    such as a weight matrix."""
    leaves, seen, pending = [], set(), [out.grad_fn]
    while pending:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            if node.variable is not x:
                leaves.append(node.variable)
        else:
            pending.extend(child for child, _ in node.next_functions)
    return leaves


@contextmanager
def _requires_grad_switched_off(leaves: Sequence[Tensor]) -> Iterator[None]:
    """backward() stores nothing in a leaf whose requires_grad was switched off after
    the graph was built (PyTorch does the same): so the sliders never add into the
    ``.grad`` of the user's weights."""
    for leaf in leaves:
        leaf.requires_grad_(False)
    try:
        yield
    finally:
        for leaf in leaves:
            leaf.requires_grad_(True)


def _labels(name: str, shape: tuple) -> list[str]:
    """``y[0,0]``, ``y[0,1]``, … in row-major order (``y`` alone for a 0-d tensor)."""
    return [
        name + (f"[{','.join(map(str, index))}]" if index else "") for index in np.ndindex(*shape)
    ]


def _as_grid(values: np.ndarray, shape: tuple | None = None) -> np.ndarray:
    """A tensor's values as a matrix to draw: leading dimensions folded into rows."""
    values = np.asarray(values).reshape(shape if shape is not None else np.shape(values))
    return values.reshape(1, 1) if values.ndim == 0 else values.reshape(-1, values.shape[-1])


def _shape(tensor: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in tensor.shape) + "]"


def _heat_table(
    matrix: np.ndarray,
    limit: float,
    titles,
    row_labels: list[str] | None = None,
    col_labels: list[str] | None = None,
    css_class: str = "",
) -> str:
    """An HTML table of coloured cells (blue < 0 < red), each showing its value."""
    matrix = np.asarray(matrix, dtype=float)
    colours = diverging_rgb(matrix, limit)
    head = ""
    if col_labels is not None:
        head = (
            "<tr><th></th>"
            + "".join(f'<th style="{LABEL_STYLE}">{escape(c)}</th>' for c in col_labels)
            + "</tr>"
        )
    rows = []
    for i, row in enumerate(matrix):
        cells = "".join(
            f'<td style="{CELL_STYLE};background:rgb({r},{g},{b});color:{text_colour((r, g, b))}" '
            f'title="{escape(str(titles[i][j]))}">{escape(format_value(value))}</td>'
            for j, (value, (r, g, b)) in enumerate(zip(row, colours[i]))
        )
        label = (
            f'<th style="{LABEL_STYLE}">{escape(row_labels[i])}</th>'
            if row_labels is not None
            else ""
        )
        rows.append(f"<tr>{label}{cells}</tr>")
    return (
        f'<table class="agk-heat {css_class}" style="border-collapse:collapse;margin:2px 0 6px">'
        f"{head}{''.join(rows)}</table>"
    )
