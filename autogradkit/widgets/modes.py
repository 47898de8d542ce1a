"""Forward mode and reverse mode on the same graph, one node at a time.

For ``y = f(x)`` with Jacobian J (one row per output element, one column per input
element), the two modes of automatic differentiation compute different slices of J:

* **forward mode** seeds a tangent ``v`` on the inputs (1 on one input element, 0
  elsewhere) and carries it along with the values, in the order the operations run:
  each node's tangent is its local derivative times its inputs' tangents. One pass
  gives ``J·v``: one **column** of J.
* **reverse mode** seeds a gradient ``u`` on the outputs (1 on one output element)
  and sends it back from the outputs to the inputs, as ``backward()`` does. One pass
  gives ``uᵀJ``: one **row** of J.

So a function of many inputs and one output (a loss) needs one reverse pass for its
whole gradient, and n forward passes; a function of few inputs and many outputs is
the other way round. :class:`ForwardReverseExplorer` draws the graph twice, steps
through both passes node by node and fills in J column by column on one side and
row by row on the other.

Both sides show the real machinery's records: forward mode's
(:func:`autogradkit.autograd.forward_ad.forward_steps`, each operation with the
tangents that went in and came out) and the engine's
(:func:`autogradkit.autograd.backward_steps`). A pass is run whole when its seed is
chosen; **Step** and **Back** move through its records.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

import ipywidgets as widgets
import numpy as np

from ..autograd.engine import BackwardStep, backward_steps
from ..autograd.function import AccumulateGrad, Node
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from ..viz._html import svg_img
from ..viz._style import diverging_rgb, format_value, symmetric_limit, text_colour
from ..viz.graph import (
    Graph,
    GraphEdge,
    GraphNode,
    build_graph,
    caller_tensor_names,
    graph_alt_text,
    layout,
    render_svg,
)
from ._fallback import FallbackVBox
from .stepper import _scaled

__all__ = ["ForwardReverseExplorer", "ForwardSide", "ReverseSide"]

# The tangent travels forward in blue, the gradient backward in red (the stepper's).
TANGENT_COLOUR = "#0969da"
GRADIENT_COLOUR = "#d1242f"
EXTRA_STYLE = (
    f".agk-graph .edge.tangent path {{ stroke: {TANGENT_COLOUR}; stroke-width: 2.4px; }}"
    f".agk-graph .edge.tangent polygon {{ fill: {TANGENT_COLOUR}; }}"
    f".agk-graph text.agk-tangent {{ fill: {TANGENT_COLOUR}; font-weight: bold; }}"
    f".agk-graph text.agk-gradient {{ fill: {GRADIENT_COLOUR}; font-weight: bold; }}"
)
# Values are written in a box up to this many elements (beyond: the shape).
SHOW_UP_TO = 4
FONT_PX = 14
# Each side is at least this wide; two do not fit side by side on a narrow page,
# and then the reverse side moves below the forward side.
SIDE_MIN_PX = 600
CELL_STYLE = "padding:2px 6px;text-align:right;font:13px monospace;min-width:38px"
LABEL_STYLE = "padding:2px 6px;font:13px monospace;color:#555;white-space:nowrap"
PENDING = "·"
PANEL_STYLE = ".agk-panel p { margin: 4px 0; }"


class ForwardReverseExplorer(FallbackVBox):
    r"""Forward mode beside reverse mode, on one graph, one node at a time.

    Parameters
    ----------
    fn : callable
        ``fn(*inputs)`` returns a tensor or a tuple of tensors, using autogradkit
        operations.
    inputs : Tensor or sequence of Tensor
        The point at which to differentiate. The explorer works on private copies,
        so the tensors and their ``.grad`` are never touched.
    names : sequence of str, optional
        Names of the inputs in the drawing (default: your variables' names, else
        ``x1, x2, …``).
    output_names : sequence of str, optional
        Names of the outputs (default ``y1, y2, …``, or ``y`` for one).
    scale : float
        Size of everything shown relative to normal (0.5 to 3), e.g. 1.5 on a projector.

    Attributes
    ----------
    forward : ForwardSide
        Forward mode: ``forward.seed`` picks the input element whose tangent is 1;
        ``step()``, ``back()``, ``reset()``, ``run_to_end()``, ``position``,
        ``total``, ``tangents`` (per box, known so far), ``column``.
    reverse : ReverseSide
        Reverse mode: ``reverse.seed`` picks the output element whose gradient is 1;
        the same controls, ``gradients`` and ``row``.
    input_labels, output_labels : list of str
        The columns and rows of J (``x1``, ``x2[0]``, …; ``y1``, …).

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.widgets import ForwardReverseExplorer
    >>> def f(x1, x2):
    ...     return x1 * x2 + torch.sin(x1)
    >>> explorer = ForwardReverseExplorer(f, (torch.tensor(0.0), torch.tensor(2.0)))
    >>> explorer.forward.total, explorer.reverse.total
    (3, 5)
    >>> explorer.forward.run_to_end()
    >>> explorer.forward.column      # ∂y/∂x1 = x2 + cos(x1): column 1 of J
    tensor([3.])
    >>> explorer.reverse.run_to_end()
    >>> explorer.reverse.row         # the whole gradient in one backward pass
    tensor([3., 0.])
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        inputs: Tensor | Sequence[Tensor],
        names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
        *,
        scale: float = 1.0,
    ) -> None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0.5 <= scale <= 3:
            raise ValueError(f"scale must be a number between 0.5 and 3, got {scale!r}")
        self.scale = float(scale)
        if not callable(fn):
            raise TypeError(f"fn must be a function of the inputs, got {type(fn).__name__}")
        self.fn = fn
        originals = _checked_inputs(inputs)
        self.leaves = tuple(t.detach().clone().requires_grad_(True) for t in originals)
        self.names = _input_names(originals, names, caller_tensor_names())
        with enable_grad():  # even if built inside torch.no_grad()
            self.outputs = _checked_outputs(fn(*self.leaves))
        self.output_names = _output_names(len(self.outputs), output_names)
        self.input_labels = [
            label for name, x in zip(self.names, self.leaves) for label in _labels(name, x)
        ]
        self.output_labels = [
            label for name, y in zip(self.output_names, self.outputs) for label in _labels(name, y)
        ]
        self.graph = build_graph(
            list(self.outputs),
            {**dict(zip(self.names, self.leaves)), **dict(zip(self.output_names, self.outputs))},
        )
        self.forward = ForwardSide(self)
        self.reverse = ReverseSide(self)
        self._lines_for_size = {
            box: self._box_lines(box, "tangent", None, sizing=True) for box in self.graph.nodes
        }
        layout(self.graph, self._lines_for_size)
        self.header = widgets.HTML(value=self.header_html())
        self.forward.build_widgets()
        self.reverse.build_widgets()
        sides = widgets.HBox(
            [self.forward.box, self.reverse.box],
            layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start", width="100%"),
        )
        super().__init__(children=[self.header, sides], layout=widgets.Layout(width="100%"))
        self.forward.refresh()
        self.reverse.refresh()

    # -- what both sides share ------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """J's shape: (output elements, input elements)."""
        return len(self.output_labels), len(self.input_labels)

    def values_of(self, box: GraphNode) -> np.ndarray | None:
        """The value of a box's tensor (for an operation: its output)."""
        if box.tensor is not None:
            return _numpy(box.tensor)
        return self.forward.value_of(box)

    def _box_lines(
        self, box: GraphNode, word: str, annotation: np.ndarray | None, sizing: bool = False
    ) -> list[str]:
        """A box's text: its name, its value, and its tangent or gradient (``·`` until
        known). For ``sizing``, the widest numbers that can appear, so that the boxes
        never need to grow as the passes fill them in."""
        value = self.values_of(box)
        lines = [box.label]
        if value is not None:
            lines.append("= " + _values_text(value))
        if sizing and value is not None:
            annotation = np.full(value.shape, -1.25e-4)  # as wide as a number gets
        if annotation is not None:
            lines.append(f"{word} {_values_text(annotation)}")
        elif value is not None:
            lines.append(f"{word} {PENDING}")
        return lines

    def svg_for(
        self,
        word: str,
        annotations: Mapping[GraphNode, np.ndarray],
        node_classes: Mapping[GraphNode, str],
        edge_classes: Mapping[GraphEdge, str],
    ) -> str:
        lines = {box: self._box_lines(box, word, annotations.get(box)) for box in self.graph.nodes}
        svg = render_svg(self.graph, lines, node_classes, edge_classes)
        svg = svg.replace("</style>", EXTRA_STYLE + "</style>", 1)
        css = "agk-tangent" if word == "tangent" else "agk-gradient"
        svg = re.sub(
            rf"<text ([^>]*)>({word} (?!{re.escape(PENDING)}))", rf'<text class="{css}" \1>\2', svg
        )
        return _scaled(svg, self.scale)

    def header_html(self) -> str:
        rows, cols = self.shape
        return (
            f'<div style="font-size:{FONT_PX * self.scale:.0f}px"><p>J is {rows} × {cols}: a row '
            f"per output element ({', '.join(map(escape, self.output_labels))}), a column per "
            f"input element ({', '.join(map(escape, self.input_labels))}). "
            f'<b style="color:{TANGENT_COLOUR}">Forward mode</b> carries a tangent from one '
            f"input to every node, in the order the operations run: one pass fills a column, "
            f"so J takes {cols} passes. "
            f'<b style="color:{GRADIENT_COLOUR}">Reverse mode</b> carries a gradient back from '
            f"one output, as <code>backward()</code> does: one pass fills a row, so J takes "
            f"{rows} {'pass' if rows == 1 else 'passes'}.</p></div>"
        )

    def static_html(self) -> str:
        """Both sides as plain HTML (no controls): drawings as images, J as tables."""
        return (
            f'<div class="agk-modes-static"><p><i>{escape(repr(self))} — run the notebook '
            f"to use the controls.</i></p>{self.header_html()}"
            '<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">'
            f"{self.forward.static_html()}{self.reverse.static_html()}</div></div>"
        )

    def __repr__(self) -> str:
        rows, cols = self.shape
        return (
            f"<ForwardReverseExplorer: J is {rows}×{cols}; forward: seed "
            f"{self.input_labels[self.forward.seed]}, step {self.forward.position} of "
            f"{self.forward.total}, {self.forward.passes_done} of {cols} columns; reverse: seed "
            f"{self.output_labels[self.reverse.seed]}, step {self.reverse.position} of "
            f"{self.reverse.total}, {self.reverse.passes_done} of {rows} rows>"
        )


class _Side:
    """What both modes have: a seed, a pass's records, a position in them, a picture,
    and J as far as the finished passes (and the one under way) have filled it."""

    word = ""  # written in the boxes
    noun = ""  # said in the text
    title = ""
    colour = ""
    seed_what = ""

    def __init__(self, explorer: ForwardReverseExplorer) -> None:
        self.explorer = explorer
        self.graph: Graph = explorer.graph
        self._seed = 0
        self.position = 0
        self._runs: dict[int, list] = {}
        self._finished: set[int] = set()
        self._records = self._run(0)

    # -- the Python API -------------------------------------------------------------
    @property
    def seed(self) -> int:
        """Which element gets the 1 (an index into the labels of J's columns or rows)."""
        return self._seed

    @seed.setter
    def seed(self, index: int) -> None:
        count = len(self._seed_labels())
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"seed must be an index, got {type(index).__name__}")
        if not 0 <= index < count:
            raise ValueError(f"seed must be between 0 and {count - 1}, got {index}")
        self._seed = int(index)
        self._records = self._run(self._seed)
        self.position = 0
        self.refresh()

    @property
    def total(self) -> int:
        """How many steps the pass has."""
        return len(self._records)

    @property
    def records(self) -> list:
        """The pass's records (all of them; ``position`` says how many are shown)."""
        return list(self._records)

    def step(self) -> Any:
        """Show the next step; return its record (None at the end)."""
        if self.position == self.total:
            return None
        self.position += 1
        if self.position == self.total:
            self._finished.add(self._seed)
        self.refresh()
        return self._records[self.position - 1]

    def back(self) -> Any:
        """Take the last step back; return its record (None at 0)."""
        if self.position == 0:
            return None
        self.position -= 1
        self.refresh()
        return self._records[self.position]

    def reset(self) -> None:
        """Back to before the first step."""
        self.position = 0
        self.refresh()

    def run_to_end(self) -> None:
        """Show every step of the pass."""
        while self.step() is not None:
            pass

    @property
    def passes_done(self) -> int:
        """How many seeds have had their pass stepped to the end."""
        return len(self._finished)

    @property
    def marks(self) -> dict[str, str]:
        """Per box label: ``"current"`` (the step just shown) or ``"done"``."""
        classes, _ = self._classes()
        return {box.label: mark for box, mark in classes.items()}

    @property
    def svg(self) -> str:
        classes, edges = self._classes()
        return self.explorer.svg_for(self.word, self._annotations(), classes, edges)

    # -- for subclasses ---------------------------------------------------------------
    def _run(self, seed: int) -> list:
        raise NotImplementedError

    def _seed_labels(self) -> list[str]:
        raise NotImplementedError

    def _annotations(self) -> dict[GraphNode, np.ndarray]:
        raise NotImplementedError

    def _classes(self) -> tuple[dict[GraphNode, str], dict[GraphEdge, str]]:
        raise NotImplementedError

    def _slice(self, seed: int, position: int) -> dict[int, float]:
        """The entries of J's column or row for ``seed`` known after ``position`` steps."""
        raise NotImplementedError

    def step_html(self) -> str:
        raise NotImplementedError

    def known(self) -> np.ndarray:
        """J as this side has found it so far: NaN where not known yet."""
        rows, cols = self.explorer.shape
        J = np.full((rows, cols), np.nan)
        for seed in self._finished | {self._seed}:
            run_position = self.position if seed == self._seed else len(self._runs[seed])
            for other, value in self._slice(seed, run_position).items():
                if self.word == "tangent":
                    J[other, seed] = value
                else:
                    J[seed, other] = value
        return J

    # -- what is shown -----------------------------------------------------------------
    def panel_html(self) -> str:
        label = escape(self._seed_labels()[self._seed])
        if self.position == 0:
            text = (
                f"<p><b>Step 0 of {self.total}</b>: the {self.noun} of <b>{label}</b> is 1, "
                f"every other {self.seed_what}'s 0. Press <b>Step</b>.</p>"
            )
        else:
            text = self.step_html()
        if self.position == self.total:
            text += f"<p><b>Done</b>: {self._done_text(label)}</p>"
        return (
            f'<div class="agk-panel" style="font-size:{FONT_PX * self.explorer.scale:.0f}px">'
            f"<style>{PANEL_STYLE}</style>{text}</div>"
        )

    def _done_text(self, label: str) -> str:
        raise NotImplementedError

    def jacobian_html(self) -> str:
        J = self.known()
        explorer = self.explorer
        rows, cols = explorer.shape
        axis = "column" if self.word == "tangent" else "row"
        count = cols if self.word == "tangent" else rows
        passes = self.passes_done
        head = "<tr><th></th>" + "".join(
            f'<th style="{LABEL_STYLE}">{escape(c)}</th>' for c in explorer.input_labels
        )
        limit = symmetric_limit(np.nan_to_num(J))
        colours = diverging_rgb(np.nan_to_num(J), limit)
        body = []
        for i, row_label in enumerate(explorer.output_labels):
            cells = []
            for j in range(cols):
                active = (j if axis == "column" else i) == self._seed
                border = f";outline:2px solid {self.colour};outline-offset:-2px" if active else ""
                if np.isnan(J[i, j]):
                    cells.append(
                        f'<td style="{CELL_STYLE};background:#f6f8fa;color:#8c959f{border}">'
                        f"{PENDING}</td>"
                    )
                else:
                    r, g, b = colours[i, j]
                    cells.append(
                        f'<td class="agk-known" style="{CELL_STYLE};background:rgb({r},{g},{b});'
                        f'color:{text_colour((r, g, b))}{border}">{escape(format_value(J[i, j]))}</td>'
                    )
            body.append(
                f'<tr><th style="{LABEL_STYLE}">{escape(row_label)}</th>{"".join(cells)}</tr>'
            )
        table = (
            f'<table class="agk-heat agk-modes-jacobian" style="border-collapse:collapse;'
            f'margin:2px 0 6px">{head}</tr>{"".join(body)}</table>'
        )
        return (
            f'<div class="agk-panel" style="font-size:{FONT_PX * explorer.scale:.0f}px">'
            f"<p><b>J</b> by {self.title.lower()}: "
            f'<span class="agk-passes">{passes} of {count} {axis}s complete</span> '
            f"(one pass per {axis}; the outlined {axis} is this pass's).</p>{table}</div>"
        )

    def static_html(self) -> str:
        return (
            f'<div style="flex:1 1 {SIDE_MIN_PX * self.explorer.scale:.0f}px;min-width:0">'
            f'<p style="color:{self.colour}"><b>{self.title}</b>, seed '
            f"{escape(self._seed_labels()[self._seed])}</p>"
            f'<div style="overflow-x:auto">{svg_img(self.svg, self._alt_text(), css_class="agk-graph")}'
            f"</div>{self.panel_html()}{self.jacobian_html()}</div>"
        )

    def _alt_text(self) -> str:
        shown = "; ".join(
            f"{box.label}: {self.word} {_values_text(value)}"
            for box, value in self._annotations().items()
        )
        return f"{self.title}. {graph_alt_text(self.graph)}. Known so far: {shown or 'nothing'}"

    # -- the widgets -------------------------------------------------------------------
    def build_widgets(self) -> None:
        scale = self.explorer.scale
        button = widgets.Layout(width=f"{72 * scale:.0f}px", height=f"{28 * scale:.0f}px")
        font = {"font_size": f"{13 * scale:.0f}px"}
        self.reset_button = widgets.Button(description="Reset", layout=button, style=font)
        self.back_button = widgets.Button(description="Back", layout=button, style=font)
        self.step_button = widgets.Button(
            description="Step", layout=button, style=font, button_style="primary"
        )
        self.seed_menu = widgets.Dropdown(
            options=[(label, i) for i, label in enumerate(self._seed_labels())],
            value=self._seed,
            description=f"1 on {self.seed_what}",
            style={"description_width": "initial"},
            layout=widgets.Layout(width=f"{170 * scale:.0f}px"),
        )
        self.reset_button.on_click(lambda _: self.reset())
        self.back_button.on_click(lambda _: self.back())
        self.step_button.on_click(lambda _: self.step())
        self.seed_menu.observe(self._on_seed, names="value")
        self.title_view = widgets.HTML(
            value=f'<b style="color:{self.colour};font-size:{15 * scale:.0f}px">{self.title}</b>'
        )
        controls = widgets.HBox(
            [self.seed_menu, self.reset_button, self.back_button, self.step_button],
            layout=widgets.Layout(flex_flow="row wrap", align_items="center"),
        )
        # Full width and no margin: ipywidgets' 2 px margins on a 100% wide child made
        # the whole widget scroll sideways by 4 px.
        self.graph_view = widgets.HTML(
            layout=widgets.Layout(overflow="auto", width="100%", margin="0")
        )
        self.panel = widgets.HTML()
        self.jacobian_view = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        kind = "forward" if self.word == "tangent" else "reverse"
        self.graph_view.add_class(f"agk-{kind}-graph")
        self.panel.add_class(f"agk-{kind}-panel")
        self.jacobian_view.add_class(f"agk-{kind}-jacobian")
        self.box = widgets.VBox(
            [self.title_view, controls, self.graph_view, self.panel, self.jacobian_view],
            layout=widgets.Layout(
                flex=f"1 1 {SIDE_MIN_PX * scale:.0f}px", min_width="0", padding="0 8px 0 0"
            ),
        )
        self.box.add_class(f"agk-{kind}-side")

    def _on_seed(self, change) -> None:
        if change["new"] != self._seed:
            self.seed = change["new"]

    def refresh(self) -> None:
        if not hasattr(self, "box"):
            return
        self.graph_view.value = self.svg
        self.panel.value = self.panel_html()
        self.jacobian_view.value = self.jacobian_html()
        self.seed_menu.value = self._seed
        self.step_button.disabled = self.position == self.total
        self.back_button.disabled = self.reset_button.disabled = self.position == 0


class ForwardSide(_Side):
    """Forward mode: a tangent seeded on one input element, carried through the
    operations in the order they run (records of ``forward_ad.forward_steps``)."""

    word = "tangent"
    noun = "tangent"
    title = "Forward mode"
    colour = TANGENT_COLOUR
    seed_what = "input"

    def __init__(self, explorer: ForwardReverseExplorer) -> None:
        # Each operation's box with its node, in the order the operations ran.
        self._ops: list[tuple[GraphNode, Node]] = sorted(
            (
                (box, box.autograd_node)
                for box in explorer.graph.nodes
                if box.kind == "op" and box.autograd_node is not None
            ),
            key=lambda pair: pair[1].sequence_nr,
        )
        self._boxes: dict[int, list[GraphNode]] = {}
        super().__init__(explorer)

    def _seed_labels(self) -> list[str]:
        return self.explorer.input_labels

    def _seed_tangents(self, seed: int) -> tuple[Tensor, ...]:
        tangents, index = [], seed
        for leaf in self.explorer.leaves:
            values = np.zeros(tuple(leaf.shape), dtype=_numpy(leaf).dtype)
            if 0 <= index < values.size:
                values.reshape(-1)[index] = 1
            index -= values.size
            tangents.append(_tensor(values))
        return tuple(tangents)

    def _run(self, seed: int) -> list:
        if seed not in self._runs:
            from ..autograd import forward_ad

            # Plain values, no graph: forward mode needs none.
            primals = tuple(leaf.detach() for leaf in self.explorer.leaves)
            steps = forward_ad.forward_steps(self.explorer.fn, primals, self._seed_tangents(seed))
            records, boxes = self._match(list(steps))
            self._runs[seed], self._boxes[seed] = records, boxes
        return self._runs[seed]

    def _match(self, steps: list) -> tuple[list, list]:
        """Pair each step with the box of the operation it ran, in execution order
        (the graph's operations are numbered in the order they were recorded), by
        the backward node's name. Steps that carried no tangent (only constants
        went in) are not in the graph."""
        records: list = []
        boxes: list[GraphNode] = []
        pending = list(self._ops)
        for step in steps:
            if not pending or all(t is None for t in step.input_tangents):
                continue
            expected = pending[0][1].name()
            if step.name != expected:
                raise RuntimeError(
                    f"fn ran {step.name} where the graph has {expected}: it must run the "
                    "same operations every time it is called"
                )
            records.append(step)
            boxes.append(pending.pop(0)[0])
        if pending:
            raise RuntimeError(
                f"forward mode ran {len(records)} of the graph's {len(self._ops)} operations: "
                "fn must run the same operations every time it is called"
            )
        return records, boxes

    def value_of(self, box: GraphNode) -> np.ndarray | None:
        """An operation's output value (every pass computes the same values)."""
        for record, drawn in zip(self._runs[0], self._boxes[0]):
            if drawn is box:
                return _numpy(record.output)
        return None

    def _annotations(self, seed: int | None = None, position: int | None = None):
        seed = self._seed if seed is None else seed
        position = self.position if position is None else position
        explorer = self.explorer
        shown: dict[GraphNode, np.ndarray] = {}
        drawn = {box.label: box for box in self.graph.nodes}
        for name, tangent in zip(explorer.names, self._seed_tangents(seed)):
            if name in drawn:  # an input fn does not use is not drawn
                shown[drawn[name]] = _numpy(tangent)
        boxes = self._boxes[seed]
        for record, box in zip(self._runs[seed][:position], boxes[:position]):
            if box is not None:
                shown[box] = _numpy(record.output_tangent)
        for name, output in zip(explorer.output_names, explorer.outputs):
            source = self.graph.box_of.get(output.grad_fn) if output.grad_fn else None
            if source is not None and source in shown:
                shown[self.graph.node(name)] = shown[source]
        return shown

    def _classes(self):
        nodes: dict[GraphNode, str] = {}
        edges: dict[GraphEdge, str] = {}
        boxes = self._boxes[self._seed][: self.position]
        for index, box in enumerate(boxes):
            nodes[box] = "current" if index == self.position - 1 else "done"
            for edge in self.graph.edges:
                # Constants (greyed inputs) carry no tangent.
                if edge.target is box and edge.source.kind in ("leaf", "op"):
                    edges[edge] = "tangent"
        for edge in self.graph.edges:
            if edge.target.kind == "output" and edge.source in nodes:
                edges[edge] = "tangent"
                nodes[edge.target] = "done"
        return nodes, edges

    def _slice(self, seed: int, position: int) -> dict[int, float]:
        shown = self._annotations(seed, position)
        found, offset = {}, 0
        for name, output in zip(self.explorer.output_names, self.explorer.outputs):
            tangent = shown.get(self.graph.node(name))
            if tangent is not None:
                for k, value in enumerate(np.ravel(tangent)):
                    found[offset + k] = float(value)
            offset += output.numel()
        return found

    @property
    def tangents(self) -> dict[str, Tensor]:
        """The tangent of every box reached so far, by label (inputs: the seed)."""
        return {box.label: _tensor(value) for box, value in self._annotations().items()}

    @property
    def column(self) -> Tensor | None:
        """After the last step: ``J·v``, the seed's column of J (None before)."""
        if self.position < self.total:
            return None
        return _tensor(self.known()[:, self._seed].astype(_numpy(self.explorer.outputs[0]).dtype))

    def step_html(self) -> str:
        record = self._records[self.position - 1]
        box = self._boxes[self._seed][self.position - 1]
        ins = ", ".join(
            _values_text(_numpy(t)) if t is not None else "0" for t in record.input_tangents
        )
        return (
            f"<p><b>Step {self.position} of {self.total}: {escape(box.label)}</b> runs forward "
            f"and computes its value and its tangent together.</p>"
            f"<p>Tangents in: {escape(ins)} → tangent out: "
            f'<b style="color:{TANGENT_COLOUR}">{escape(_values_text(_numpy(record.output_tangent)))}'
            "</b> (local derivatives × tangents in, summed).</p>"
        )

    def _done_text(self, label: str) -> str:
        return (
            f"the outputs' tangents are ∂y/∂{label}, the column of {label} in J "
            f"({self.passes_done} of {self.explorer.shape[1]} columns known)."
        )


class ReverseSide(_Side):
    """Reverse mode: a gradient seeded on one output element, sent back through the
    graph by the engine (records of ``autograd.backward_steps``)."""

    word = "grad"
    noun = "gradient"
    title = "Reverse mode"
    colour = GRADIENT_COLOUR
    seed_what = "output"

    def _seed_labels(self) -> list[str]:
        return self.explorer.output_labels

    def _output_of(self, seed: int) -> tuple[int, int]:
        """Which output holds element ``seed`` of the flattened outputs, and where."""
        for index, output in enumerate(self.explorer.outputs):
            if seed < output.numel():
                return index, seed
            seed -= output.numel()
        raise IndexError(seed)

    def _run(self, seed: int) -> list[BackwardStep]:
        if seed not in self._runs:
            index, element = self._output_of(seed)
            output = self.explorer.outputs[index]
            values = np.zeros(tuple(output.shape), dtype=_numpy(output).dtype)
            values.reshape(-1)[element] = 1
            for leaf in self.explorer.leaves:
                leaf.grad = None
            # The graph is kept: every row is one more pass over it.
            self._runs[seed] = list(backward_steps(output, _tensor(values), retain_graph=True))
            for leaf in self.explorer.leaves:
                leaf.grad = None
        return self._runs[seed]

    def _annotations(self, seed: int | None = None, position: int | None = None):
        seed = self._seed if seed is None else seed
        position = self.position if position is None else position
        index, element = self._output_of(seed)
        output = self.explorer.outputs[index]
        values = np.zeros(tuple(output.shape), dtype=_numpy(output).dtype)
        values.reshape(-1)[element] = 1
        shown = {self.graph.node(self.explorer.output_names[index]): values}
        for record in self._runs[seed][:position]:
            box = self.graph.box_of.get(record.node)
            if box is not None:
                shown[box] = _numpy(record.grad_output)
        return shown

    def _classes(self):
        nodes: dict[GraphNode, str] = {}
        edges: dict[GraphEdge, str] = {}
        records = self._records[: self.position]
        for index, record in enumerate(records):
            box = self.graph.box_of.get(record.node)
            if box is None:
                continue
            nodes[box] = "current" if index == self.position - 1 else "done"
            for (child, _), sent in zip(record.node.next_functions, record.grad_inputs):
                edge = self.graph.edge_between(record.node, child) if child is not None else None
                if sent is not None and edge is not None:
                    edges[edge] = "carried"
        if self.position:
            index, _ = self._output_of(self._seed)
            output_box = self.graph.node(self.explorer.output_names[index])
            nodes[output_box] = "done"
            for edge in self.graph.edges:
                if edge.target is output_box:
                    edges[edge] = "carried"
        return nodes, edges

    def _slice(self, seed: int, position: int) -> dict[int, float]:
        records = self._runs[seed]
        found, offset = {}, 0
        by_leaf = {
            record.node.variable: _numpy(record.grad_output)
            for record in records[:position]
            if type(record.node) is AccumulateGrad
        }
        for leaf in self.explorer.leaves:
            grad = by_leaf.get(leaf)
            if grad is None and position == len(records):
                grad = np.zeros(tuple(leaf.shape))  # never reached: this output ignores it
            if grad is not None:
                for k, value in enumerate(np.ravel(grad)):
                    found[offset + k] = float(value)
            offset += leaf.numel()
        return found

    @property
    def gradients(self) -> dict[str, Tensor]:
        """The gradient every box has received so far, by label (the output: the seed)."""
        return {box.label: _tensor(value) for box, value in self._annotations().items()}

    @property
    def row(self) -> Tensor | None:
        """After the last step: ``uᵀJ``, the seed's row of J (None before)."""
        if self.position < self.total:
            return None
        return _tensor(self.known()[self._seed, :].astype(_numpy(self.explorer.leaves[0]).dtype))

    def step_html(self) -> str:
        record = self._records[self.position - 1]
        node: Node = record.node
        box = self.graph.box_of.get(node)
        label = box.label if box is not None else node.name()
        received = _values_text(_numpy(record.grad_output))
        if type(node) is AccumulateGrad:
            what = f"stores it: <code>{escape(label)}.grad</code>."
        else:
            sends = [
                f"{escape(self._label(child))}: {escape(_values_text(_numpy(sent)))}"
                for (child, _), sent in zip(node.next_functions, record.grad_inputs)
                if child is not None and sent is not None
            ]
            what = "sends (received × local derivative) " + (", ".join(sends) or "nothing") + "."
        return (
            f"<p><b>Step {self.position} of {self.total}: {escape(label)}</b> receives the "
            f'gradient <b style="color:{GRADIENT_COLOUR}">{escape(received)}</b> and {what}</p>'
        )

    def _label(self, node: Node) -> str:
        box = self.graph.box_of.get(node)
        return box.label if box is not None else node.name()

    def _done_text(self, label: str) -> str:
        return (
            f"the inputs' gradients are ∂{label}/∂x, the row of {label} in J "
            f"({self.passes_done} of {self.explorer.shape[0]} rows known)."
        )


# -- helpers ---------------------------------------------------------------------------
def _checked_inputs(inputs) -> tuple[Tensor, ...]:
    tensors = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not tensors:
        raise ValueError("inputs is empty: give the tensors fn takes")
    for position, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"inputs[{position}] is a {type(tensor).__name__}, not a tensor: wrap it "
                "with torch.tensor(...)"
            )
        if not tensor.is_floating_point():
            raise TypeError(
                f"inputs[{position}] has dtype {tensor.dtype}: differentiating needs a "
                "floating-point tensor (use .float())"
            )
    return tensors


def _checked_outputs(outputs) -> tuple[Tensor, ...]:
    tensors = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
    for position, output in enumerate(tensors):
        if not isinstance(output, Tensor):
            raise TypeError(
                f"fn must return tensors, got {type(output).__name__} (output {position}): "
                "compute it from the inputs with autogradkit operations"
            )
        if output.grad_fn is None:
            raise ValueError(
                f"output {position} of fn is not computed from the inputs by an operation "
                "(it has no grad_fn), so there is nothing to differentiate"
            )
    return tensors


def _input_names(tensors, names, variables: Mapping[str, Tensor]) -> list[str]:
    if names is not None:
        names = [str(name) for name in names]
        if len(names) != len(tensors) or len(set(names)) != len(names):
            raise ValueError(f"names must be {len(tensors)} different names, got {names}")
        return names
    by_id: dict[int, str] = {}
    for name, tensor in variables.items():
        by_id.setdefault(id(tensor), name)
    found = [by_id.get(id(tensor)) for tensor in tensors]
    if None in found or len(set(found)) != len(found):
        return [f"x{k + 1}" for k in range(len(tensors))]
    return [name for name in found if name is not None]


def _output_names(count: int, names) -> list[str]:
    if names is None:
        return ["y"] if count == 1 else [f"y{k + 1}" for k in range(count)]
    names = [str(name) for name in names]
    if len(names) != count or len(set(names)) != len(names):
        raise ValueError(f"output_names must be {count} different names, got {names}")
    return names


def _labels(name: str, tensor: Tensor) -> list[str]:
    if tensor.dim() == 0:
        return [name]
    return [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*tuple(tensor.shape))]


def _numpy(tensor: Tensor) -> np.ndarray:
    return tensor.detach().numpy()


def _tensor(values: np.ndarray) -> Tensor:
    from .. import from_numpy

    return from_numpy(np.array(values))


def _values_text(values: np.ndarray) -> str:
    values = np.asarray(values)
    if values.size > SHOW_UP_TO:
        return "[" + ", ".join(str(n) for n in values.shape) + "]"
    if values.ndim == 0:
        return format_value(float(values))
    return "[" + ", ".join(format_value(v) for v in values.ravel()) + "]"
