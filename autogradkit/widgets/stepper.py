"""Step through ``loss.backward()`` one node at a time.

:class:`BackwardStepper` drives the engine's own iterator
(:func:`autogradkit.autograd.backward_steps`): pressing **Step** runs the next node
for real, exactly as ``backward()`` would. **Back** cannot un-run the chain rule,
but it can undo what a step did to the leaves' ``.grad``; stepping forward again
replays the recorded step. So at every position the leaves' ``.grad`` are what the
real pass had stored by then, and at the end they are what ``backward()`` stores.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape

import ipywidgets as widgets
import numpy as np

from ..autograd.engine import BackwardStep, backward_steps
from ..autograd.function import AccumulateGrad, Node
from ..tensor import Tensor
from ..viz._html import svg_img
from ..viz.grad_svg import grad_panel_svg
from ..viz.graph import (
    FOLD_WIDTH,
    MIN_SCALE,
    Graph,
    GraphEdge,
    GraphNode,
    build_graph,
    caller_tensor_names,
    graph_alt_text,
    layout,
    node_lines,
    render_svg,
)
from ._fallback import FallbackVBox

__all__ = ["BackwardStepper"]

PANEL_STYLE = (
    ".agk-panel p { margin: 4px 0; } .agk-panel ul { margin: 2px 0; padding-left: 18px; } "
    ".agk-panel .agk-formula { overflow-x: auto; } "
    ".agk-panel pre { margin: 2px 0 6px; font-size: 0.95em; line-height: 1.25; }"
)
# Text size of the panel at scale 1 (JupyterLab's own is 13 px; a projector wants more:
# see ``scale``).
FONT_PX = 14
# The panel is at least this wide beside the plots (the widest formula, ∂ℓ/∂z of the
# binary cross-entropy, fits); narrower, the plots move below it.
PANEL_MIN_PX = 440
# The graph folds into rows past this width (at scale 1), as draw_graph's does: at
# MIN_SCALE it is then 650 px wide, what JupyterLab's output area has at 1100 px
# with the file browser open.
FOLD_PX = FOLD_WIDTH


class BackwardStepper(FallbackVBox):
    """Run the backward pass of ``root`` one node at a time and watch it.

    Parameters
    ----------
    root : Tensor
        Where backward starts, e.g. ``loss``.
    params : dict of str to Tensor, optional
        The tensors whose ``.grad`` to plot, by name (``{"w": w, "b": b}``). By
        default: every leaf of the graph, named after your variables.
    gradient : Tensor, optional
        For a non-scalar ``root``, the vector ``v`` of ``root.backward(v)``.
    retain_graph : bool
        As in ``backward()``: unless True, the graph is freed as the pass runs, and
        a second pass over it raises PyTorch's error.
    scale : float
        Size of everything shown (text, graph, plots, buttons) relative to normal,
        e.g. ``scale=1.5`` on a projector. Between 0.5 and 3.

    Notes
    -----
    The graph is drawn to fit the notebook's width. A graph that would be shown
    wider than ``FOLD_PX`` (1000 px) folds into rows read like text, the arrow from
    the end of a row leading to the start of the next (at a ``scale`` above 2 the
    rows stay 500 px of drawing wide, so a large graph is not cut into slivers). The
    drawing then shrinks with the width of the output area, but not below
    ``MIN_SCALE`` (0.65) of its size, where its 12 px text would be under 8 px:
    narrower than that, it scrolls sideways.

    Attributes
    ----------
    position : int
        How many steps have run: 0 before the first, ``total`` at the end.
    steps : list of BackwardStep
        The engine's records of the steps run so far (node, gradient received,
        gradients sent, ``.grad`` updates).
    total : int
        How many steps the pass has (every node the output depends on runs once).
    svg : str
        The graph as drawn now: the node that just ran has class ``current``,
        earlier ones ``done``, and edges that carried a gradient ``carried``.
    step_button, back_button, reset_button, play, speed, slider : ipywidgets
        The controls, kept in sync with ``position`` (tests and scripts may press
        ``step_button.click()`` or set ``slider.value``).
    graph_view, panel, plot_area : ipywidgets.HTML
        What is shown: the SVG graph, the text of the step (with maths), the plots.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.widgets import BackwardStepper
    >>> a = torch.tensor([2.0, 3.0], requires_grad=True)
    >>> loss = (a * a).sum()
    >>> stepper = BackwardStepper(loss)
    >>> stepper.step().node.name()
    'SumBackward0'
    >>> stepper.run_to_end()
    >>> stepper.position, a.grad
    (3, tensor([4., 6.]))
    >>> _ = stepper.back(); a.grad is None
    True
    """

    def __init__(
        self,
        root: Tensor,
        params: Mapping[str, Tensor] | None = None,
        gradient: Tensor | None = None,
        retain_graph: bool = False,
        *,
        scale: float = 1.0,
    ) -> None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0.5 <= scale <= 3:
            raise ValueError(f"scale must be a number between 0.5 and 3, got {scale!r}")
        self.scale = float(scale)
        if not isinstance(root, Tensor):
            raise TypeError(
                f"BackwardStepper expects the tensor backward starts from (e.g. loss), "
                f"got {type(root).__name__}"
            )
        # Checks the arguments and counts dependencies now, like backward() would.
        self._engine = backward_steps(root, gradient, retain_graph)
        self.root = root
        self.graph: Graph = build_graph(root, params, caller_tensor_names())
        self._lines = {node: node_lines(node) for node in self.graph.nodes}
        layout(self.graph, self._lines, fold_width=FOLD_PX / min(self.scale, 2.0))
        self._plotted = _plotted_tensors(self.graph, params)
        self._output_box = next((n for n in self.graph.nodes if n.kind == "output"), None)
        self._edges = {(e.source, e.target): e for e in self.graph.edges}

        self.steps: list[BackwardStep] = []
        self.position = 0
        self.total = self._engine.total  # every node reached runs once
        self.finished = False
        self.error: Exception | None = None

        self._build_controls()
        super().__init__(
            children=[self._controls, self.graph_view, self._body],
            layout=widgets.Layout(width="100%"),
        )
        self._refresh()

    # -- the Python API -----------------------------------------------------------
    def step(self) -> BackwardStep | None:
        """Run (or replay) the next step; return its record, or None at the end."""
        record = self._forward_one()
        self._refresh()
        return record

    def back(self) -> BackwardStep | None:
        """Undo the last step's ``.grad`` updates; return its record (None at 0)."""
        record = self._back_one()
        self._refresh()
        return record

    def reset(self) -> None:
        """Back to before the first step (every ``.grad`` as it was)."""
        while self.position > 0:
            self._back_one()
        self._refresh()

    def run_to_end(self) -> None:
        """Run every remaining step, as ``backward()`` would."""
        while self._forward_one() is not None:
            pass
        self._refresh()

    def seek(self, position: int) -> None:
        """Step forward or back until ``position`` steps have run."""
        if not 0 <= position <= self.total:
            raise ValueError(f"position must be between 0 and {self.total}, got {position}")
        while self.position < position and self._forward_one() is not None:
            pass
        while self.position > position:
            self._back_one()
        self._refresh()

    @property
    def svg(self) -> str:
        return _scaled(render_svg(self.graph, self._lines, *self._classes()), self.scale)

    @property
    def current(self) -> BackwardStep | None:
        """The record of the step that ran last (None before the first)."""
        return self.steps[self.position - 1] if self.position else None

    def __repr__(self) -> str:
        return (
            f"<BackwardStepper: step {self.position} of {self.total}"
            f"{' (finished)' if self.finished and self.position == self.total else ''}>"
        )

    # -- stepping ---------------------------------------------------------------------
    def _forward_one(self) -> BackwardStep | None:
        if self.position < len(self.steps):
            self.steps[self.position].redo()
            self.position += 1
            return self.steps[self.position - 1]
        if self.error is not None:
            raise self.error
        if self.finished:
            return None
        try:
            record = next(self._engine)
        except StopIteration:
            self._finish()
            return None
        except Exception as error:
            self.error = error
            raise
        self.steps.append(record)
        self.position += 1
        if self._engine.finished:
            self._finish()
        return record

    def _finish(self) -> None:
        self.finished = True
        self.total = len(self.steps)

    def _back_one(self) -> BackwardStep | None:
        if self.position == 0:
            return None
        self.position -= 1
        self.steps[self.position].undo()
        return self.steps[self.position]

    def _next_node(self) -> Node | None:
        if self.position < len(self.steps):
            return self.steps[self.position].node
        return self._engine.next_node if self.error is None else None

    # -- what the picture shows -------------------------------------------------------
    def _classes(self) -> tuple[dict[GraphNode, str], dict[GraphEdge, str]]:
        node_classes: dict[GraphNode, str] = {}
        edge_classes: dict[GraphEdge, str] = {}
        box_of = self.graph.box_of
        for record in self.steps[: self.position]:
            box = box_of.get(record.node)
            if box is not None:
                node_classes[box] = "done"
            for (child, _), sent in zip(record.node.next_functions, record.grad_inputs):
                edge = self._edge(child, box)
                if sent is not None and edge is not None:
                    edge_classes[edge] = "carried"
        if self.position:
            current = box_of.get(self.steps[self.position - 1].node)
            if current is not None:
                node_classes[current] = "current"
            if self._output_box is not None:
                node_classes[self._output_box] = "done"
                edge = self._edge(self.root.grad_fn, self._output_box)
                if edge is not None:
                    edge_classes[edge] = "carried"
        return node_classes, edge_classes

    def _edge(self, child: Node | None, target: GraphNode | None) -> GraphEdge | None:
        """The drawn edge from ``child``'s box to ``target``, if both are drawn."""
        source = self.graph.box_of.get(child) if child is not None else None
        if source is None or target is None:
            return None
        return self._edges.get((source, target))

    def _label(self, node: Node | None) -> str:
        box = self.graph.box_of.get(node) if node is not None else None
        if box is None:
            return node.name() if node is not None else "—"
        if box.kind == "leaf":
            return f"{box.label} (AccumulateGrad)"
        return box.label + (f" (made {box.output_name})" if box.output_name else "")

    def panel_html(self) -> str:
        """The text beside the graph: what the current step did, in words and maths."""
        parts = []
        if self.error is not None:
            parts.append(
                f'<p class="agk-error" style="color:#d1242f"><b>{type(self.error).__name__}:</b> '
                f"{escape(str(self.error))}</p>"
            )
        if self.position == 0:
            root_name = self._output_box.label if self._output_box is not None else "the output"
            parts.append(
                f"<p><b>Step 0 of {self.total}</b>: nothing has run yet. <code>backward()</code> "
                f"starts from <b>{escape(root_name)}</b> with the gradient "
                f"<code>{_values(self._seed())}</code>{self._seed_meaning(root_name)}. "
                "Press <b>Step</b>.</p>"
            )
        else:
            parts.append(self._step_html(self.steps[self.position - 1]))
        upcoming = self._next_node()
        if upcoming is not None:
            parts.append(f"<p>Next: <b>{escape(self._label(upcoming))}</b></p>")
        elif self.finished and self.position == self.total:
            parts.append(
                "<p><b>Done.</b> Every leaf's <code>.grad</code> now holds what "
                "<code>backward()</code> stores.</p>"
            )
        return (
            f'<div class="agk-panel" style="font-size:{FONT_PX * self.scale:.0f}px">'
            f"<style>{PANEL_STYLE}</style>" + "".join(parts) + "</div>"
        )

    def _seed(self) -> np.ndarray:
        return _array(self._engine.root_grads[0])

    def _seed_meaning(self, root_name: str) -> str:
        # backward() of a scalar starts from 1; of a vector, from the v it was given.
        if self.root.numel() == 1 and np.all(self._seed() == 1):
            return f" (the derivative of {escape(root_name)} with respect to itself)"
        return " (the vector v of backward(v))"

    def _step_html(self, record: BackwardStep) -> str:
        node = record.node
        out = [
            f"<p><b>Step {record.index + 1} of {self.total}: {escape(self._label(node))}</b></p>"
        ]
        out.append(_formula_html(node))
        out.append(_received_html(record.grad_outputs))
        if type(node) is not AccumulateGrad:
            sends = []
            for (child, input_nr), sent in zip(node.next_functions, record.grad_inputs):
                if child is None:
                    continue
                target = escape(self._label(child))
                if len(child.input_metadata) > 1:
                    target += f", its output {input_nr}"
                if sent is None:
                    sends.append(f"<li>→ {target}: nothing</li>")
                else:
                    sends.append(
                        f"<li>→ {target} {_shape(sent)}:<pre>{_values(_array(sent))}</pre></li>"
                    )
            untracked = len(node.untracked_inputs)
            if untracked:
                inputs = "1 input that needs" if untracked == 1 else f"{untracked} inputs that need"
                sends.append(f"<li>(and nothing to {inputs} no gradient)</li>")
            out.append(
                "<p>Sends (chain rule: received × local derivative):</p><ul>"
                + "".join(sends)
                + "</ul>"
            )
        for accumulation in record.accumulations:
            name = self._tensor_name(accumulation.tensor)
            verb = "=" if accumulation.previous is None else "+="
            out.append(
                f"<p><code>{escape(name)}.grad {verb}</code> {_shape(accumulation.grad)}:</p>"
                f"<pre>{_values(_array(accumulation.grad))}</pre>"
            )
        return "".join(out)

    def _tensor_name(self, tensor: Tensor) -> str:
        for box in self.graph.nodes:
            if box.tensor is tensor:
                return box.label
        for name, plotted in self._plotted:
            if plotted is tensor:
                return name
        return "tensor"

    # -- the widgets ------------------------------------------------------------------
    def _build_controls(self) -> None:
        scale = self.scale
        button = widgets.Layout(width=f"{80 * scale:.0f}px", height=f"{28 * scale:.0f}px")
        font = {"font_size": f"{13 * scale:.0f}px"}
        self.reset_button = widgets.Button(
            description="Reset",
            style=font,
            icon="fast-backward",
            layout=button,
            tooltip="Back to before the first step",
        )
        self.back_button = widgets.Button(
            description="Back",
            style=font,
            icon="step-backward",
            layout=button,
            tooltip="Undo the last step's .grad updates",
        )
        self.step_button = widgets.Button(
            description="Step",
            style=font,
            icon="step-forward",
            layout=button,
            button_style="primary",
            tooltip="Run the next node",
        )
        self.play = widgets.Play(
            value=0,
            min=0,
            max=self.total,
            step=1,
            interval=700,
            description="Play",
            show_repeat=False,
        )
        self.speed = widgets.IntSlider(
            value=700,
            min=100,
            max=2000,
            step=100,
            description="ms/step",
            readout=True,
            layout=widgets.Layout(width=f"{220 * scale:.0f}px"),
        )
        self.slider = widgets.IntSlider(
            value=0,
            min=0,
            max=self.total,
            description="step",
            continuous_update=False,
            layout=widgets.Layout(width=f"{260 * scale:.0f}px"),
        )
        # Linked in the browser, so Play runs smoothly without a round trip per tick.
        self._links = (
            widgets.jslink((self.play, "value"), (self.slider, "value")),
            widgets.jslink((self.speed, "value"), (self.play, "interval")),
        )
        self.reset_button.on_click(lambda _: self._guarded(self.reset))
        self.back_button.on_click(lambda _: self._guarded(self.back))
        self.step_button.on_click(lambda _: self._guarded(self.step))
        self.slider.observe(self._on_slider, names="value")
        # Only the slider is watched: Play moves it in the browser (jslink). Watching
        # Play too would act on its echo of an old position, which can arrive after
        # later cells have moved on (Run All) and would undo their steps.
        self._controls = widgets.HBox(
            [
                self.reset_button,
                self.back_button,
                self.step_button,
                self.play,
                self.speed,
                self.slider,
            ],
            layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
        )
        # The graph gets the full width (it is wide: loss is at the right end); the
        # step's text and the plots share the row below.
        # Full width and no margin: ipywidgets' 2 px margins on a 100% wide child made
        # the whole widget scroll sideways by 4 px.
        self.graph_view = widgets.HTML(
            layout=widgets.Layout(overflow="auto", width="100%", margin="0")
        )
        # The panel grows, the plots keep their own width; when both do not fit on one
        # row the plots wrap below the panel, so nothing covers the formula.
        self.panel = widgets.HTMLMath(
            layout=widgets.Layout(
                flex=f"1 1 {PANEL_MIN_PX * scale:.0f}px",
                min_width="0",
                overflow="auto",
                padding="0 12px 0 0",
            )
        )
        self.plot_area = widgets.HTML(
            layout=widgets.Layout(flex="0 1 auto", max_width="100%", overflow="auto")
        )
        self._body = widgets.HBox(
            [self.panel, self.plot_area],
            layout=widgets.Layout(align_items="flex-start", width="100%", flex_flow="row wrap"),
        )
        self.graph_view.add_class("agk-stepper-graph")
        self.panel.add_class("agk-stepper-panel")
        self.plot_area.add_class("agk-stepper-plots")
        self._updating = False

    def _guarded(self, action) -> None:
        # A button's callback has nowhere to raise to: show the error in the panel.
        try:
            action()
        except Exception:
            self._refresh()

    def _on_slider(self, change) -> None:
        if self._updating or change["new"] == self.position:
            return
        self._guarded(lambda: self.seek(min(change["new"], self.total)))

    def _refresh(self) -> None:
        self._updating = True
        try:
            self.graph_view.value = self.svg
            self.panel.value = self.panel_html()
            self.plot_area.value = self.plots_svg()
            for control in (self.slider, self.play):
                control.max = self.total
                control.value = self.position
            at_end = self.finished and self.position == len(self.steps)
            self.step_button.disabled = at_end or (
                self.error is not None and self.position == len(self.steps)
            )
            self.back_button.disabled = self.reset_button.disabled = self.position == 0
        finally:
            self._updating = False

    def _plots_alt_text(self) -> str:
        shown = [
            f"{name}.grad = {'None' if grad is None else _values(_array(grad))}"
            for name, grad in ((name, _grad_of(t)) for name, t in self._plotted)
        ]
        return "Gradients: " + "; ".join(shown)

    def plots_svg(self) -> str:
        """The plot area: each plotted tensor's ``.grad`` as it is now."""
        return _scaled(
            grad_panel_svg(
                [(name, _grad_of(tensor), tuple(tensor.shape)) for name, tensor in self._plotted]
            ),
            self.scale,
        )

    def static_html(self) -> str:
        """The stepper as plain HTML: graph, step text and plots, no controls."""
        return (
            f'<div class="agk-stepper-static"><p><i>{escape(repr(self))} — run the notebook '
            "to use the controls.</i></p>"
            # Images, not inline SVG: they survive the cleaning of untrusted HTML.
            f'<div style="overflow-x:auto">'
            + svg_img(
                self.svg,
                graph_alt_text(self.graph),
                css_class="agk-graph",
                min_width=self.graph.width * self.scale * MIN_SCALE,
            )
            + "</div>"
            f'<div style="display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start">'
            f'<div style="flex:1 1 0;min-width:300px">{self.panel_html()}</div>'
            f"<div>{svg_img(self.plots_svg(), self._plots_alt_text(), css_class='agk-grads')}"
            "</div></div></div>"
        )


def _plotted_tensors(graph: Graph, params: Mapping[str, Tensor] | None) -> list[tuple[str, Tensor]]:
    if params is not None:
        return list(params.items())
    # A leaf's box always carries its tensor; the test narrows the type.
    return [
        (box.label, box.tensor)
        for box in graph.nodes
        if box.kind == "leaf" and box.tensor is not None
    ]


def _scaled(svg: str, scale: float) -> str:
    """The SVG drawn ``scale`` times its size (its viewBox keeps the drawing the same)."""
    if scale == 1:
        return svg
    head, rest = svg.split(">", 1)
    if "viewBox" not in head:
        width = re.search(r'\swidth="([\d.]+)"', head)
        height = re.search(r'\sheight="([\d.]+)"', head)
        if width and height:
            head += f' viewBox="0 0 {width.group(1)} {height.group(1)}"'

    def times(match: re.Match) -> str:
        return f"{match.group(1)}{float(match.group(2)) * scale:.0f}{match.group(3)}"

    head = re.sub(r'(\s(?:width|height)=")([\d.]+)(")', times, head)
    head = re.sub(r"(min-width:)([\d.]+)(px)", times, head)
    return head + ">" + rest


def _array(tensor: Tensor) -> np.ndarray:
    return tensor.detach().numpy()


def _grad_of(tensor: Tensor) -> Tensor | None:
    # A plotted tensor may be a non-leaf without retain_grad(): no warning for it.
    return tensor.grad if tensor.is_leaf or tensor.retains_grad else None


def _formula_html(node: Node) -> str:
    """The node's formula, one display line per part (side by side they would need
    more width than a notebook gives the panel). A node without one (your own
    custom Function's) is named by the ``backward`` it runs, with the first
    paragraph of its docstring if it has one."""
    formula = node.formula()
    if formula:
        lines = "\n".join(f"$${part.strip()}$$" for part in formula.split(r"\qquad"))
        return f'<div class="agk-formula">{lines}</div>'
    function = re.sub(r"Backward\d*$", "", node.name())
    text = f"<p>Runs <code>{escape(function)}.backward</code>"
    doc = (type(node).__doc__ or "").strip().split("\n\n")[0]
    if doc:
        text += f": <i>{escape(' '.join(doc.split()))}</i>"
    return text + "</p>"


def _received_html(grads: tuple) -> str:
    """The gradient the node received; for a node with several outputs (split, a
    custom Function returning a tuple), one per output."""
    if len(grads) == 1:
        (grad,) = grads
        return f"<p>Gradient received {_shape(grad)}:</p><pre>{_values(_array(grad))}</pre>"
    items = []
    for output_nr, grad in enumerate(grads):
        if grad is None:
            items.append(f"<li>output {output_nr}: nothing reached it</li>")
        else:
            items.append(
                f"<li>output {output_nr} {_shape(grad)}:<pre>{_values(_array(grad))}</pre></li>"
            )
    return "<p>Gradients received, one per output:</p><ul>" + "".join(items) + "</ul>"


def _shape(tensor: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in tensor.shape) + "]"


def _values(values: np.ndarray) -> str:
    """Numbers as NumPy prints them (4 decimals, long arrays elided), for a <pre>."""
    text = np.array2string(
        np.asarray(values),
        precision=4,
        suppress_small=True,
        threshold=30,
        edgeitems=3,
        max_line_width=60,
    )
    return escape(text)
