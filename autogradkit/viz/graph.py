"""Drawing the computational graph, in pure Python (PyTorch users know this
picture from torchviz, which needs the Graphviz program; this needs nothing).

Three steps, each a function a learner can read on its own:

1. :func:`build_graph` walks ``grad_fn.next_functions`` from the output, as the
   engine does, and collects what to draw: the operations (``MmBackward0``), the
   leaves that will receive ``.grad`` (``w``, ``b``), the inputs that need no
   gradient (``x``, ``y``, greyed) and the output (``loss``).
2. :func:`layout` places them in columns, forward from left to right (inputs on the
   left, the loss on the right), and orders each column to avoid crossing edges
   (the layered method of Sugiyama et al., with the barycenter heuristic). Big
   graphs stay readable and quick: long arrows run along lanes, long graphs fold
   into bands like lines of text, and the middle of a very long one is summarised
   in one box (see :func:`layout`).
3. :func:`render_svg` writes SVG. Every node is a ``<g>`` with ``data-node="<label>"``
   and a class saying what it is (``leaf``, ``op``, ``input``, ``output``); the
   backward stepper adds ``current`` and ``done``, and ``carried`` on edges that
   have carried a gradient.
"""

from __future__ import annotations

import bisect
import inspect
import itertools
import os
from collections.abc import Iterable, Mapping
from html import escape

import numpy as np

from ..autograd.function import SECOND_BACKWARD_MESSAGE, AccumulateGrad, Node, gradient_edge
from ..tensor import Tensor
from ._html import svg_img
from ._style import format_value

__all__ = [
    "draw_graph",
    "GraphDrawing",
    "build_graph",
    "layout",
    "render_svg",
    "Graph",
    "GraphNode",
    "GraphEdge",
    "caller_tensor_names",
]

# Values are printed inside a node up to this many elements.
SHOW_VALUES_UP_TO = 6


# -- 1. What to draw -------------------------------------------------------------------
class GraphNode:
    """One box of the drawing.

    ``kind`` is ``"op"`` (a backward node such as ``MmBackward0``), ``"leaf"`` (a
    tensor that requires grad; its ``AccumulateGrad`` node runs when its gradient
    is stored), ``"input"`` (a tensor that needs no gradient), ``"output"`` (the
    tensor ``backward`` starts from) or ``"summary"`` (the middle of a very long
    graph, see :func:`layout`). ``label`` is unique within a graph.
    """

    def __init__(
        self,
        kind: str,
        label: str,
        tensor: Tensor | None = None,
        autograd_node: Node | None = None,
        shape: tuple | None = None,
        output_name: str | None = None,
    ) -> None:
        self.kind = kind
        self.label = label
        self.tensor = tensor
        self.autograd_node = autograd_node
        self.shape = shape
        self.output_name = output_name  # for an op: the variable holding its result
        # Extra lines of text (a summary box lists what it stands for).
        self.details: list[str] = []
        # Set by layout(): column, band (row of columns, when a long graph is
        # folded), position in the column, box geometry.
        self.layer = 0
        self.band = 0
        self.order = 0.0
        self.x = self.y = self.width = self.height = 0.0

    def __repr__(self) -> str:
        return f"GraphNode({self.kind!r}, {self.label!r})"


class GraphEdge:
    """An arrow in the forward direction, ``source`` → ``target``; the gradient
    travels it backwards. ``points`` (set by layout) are the bends of a long edge."""

    def __init__(self, source: GraphNode, target: GraphNode) -> None:
        self.source, self.target = source, target
        self.points: list[tuple[float, float]] = []

    def __repr__(self) -> str:
        return f"GraphEdge({self.source.label!r} -> {self.target.label!r})"


class Graph:
    """The nodes and edges to draw, and which box stands for which autograd node."""

    def __init__(self) -> None:
        self.nodes: list[GraphNode] = []
        self.edges: list[GraphEdge] = []
        self.box_of: dict[Node, GraphNode] = {}  # AccumulateGrad -> its leaf's box
        self.width = self.height = 0.0
        self._edge_index: dict[tuple[GraphNode, GraphNode], GraphEdge] = {}

    def connect(self, source: GraphNode, target: GraphNode) -> GraphEdge:
        """The arrow ``source`` → ``target``, added once."""
        edge = self._edge_index.get((source, target))
        if edge is None:
            edge = self._edge_index[(source, target)] = GraphEdge(source, target)
            self.edges.append(edge)
        return edge

    def remove_edges(self) -> list[GraphEdge]:
        """Take every arrow away (to connect the boxes anew); returns the old ones."""
        old, self.edges, self._edge_index = self.edges, [], {}
        return old

    def node(self, label: str) -> GraphNode:
        """The box with this label."""
        for node in self.nodes:
            if node.label == label:
                return node
        raise KeyError(f"no node labelled {label!r}; labels: {[n.label for n in self.nodes]}")

    def edge_between(self, gradient_from: Node, gradient_to: Node) -> GraphEdge | None:
        """The arrow along which ``gradient_from`` sends a gradient to ``gradient_to``."""
        source, target = self.box_of.get(gradient_to), self.box_of.get(gradient_from)
        if source is None or target is None:
            return None
        return self._edge_index.get((source, target))


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_tensor_names() -> dict[str, Tensor]:
    """The tensors held by variables of the code that called into autogradkit (a
    notebook's globals, a function's locals), by name: what a learner calls them.

    Names starting with ``_`` are skipped (IPython's ``_``, ``_3``, ``__``).
    """
    # Skip autogradkit's own frames by file, not by module name: doctests of
    # autogradkit modules run with that module's __name__ but are the caller.
    frame = inspect.currentframe()
    frame = frame.f_back if frame is not None else None  # (None where Python keeps no frames)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    variables: dict[str, Tensor] = {}
    if frame is None:
        return variables
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in list(scope.items()):
            if type(value) is Tensor and not name.startswith("_") and name not in variables:
                variables[name] = value
    return variables


def _tensors(roots) -> list[Tensor]:
    if isinstance(roots, Tensor):
        return [roots]
    roots = list(roots)
    if not roots or not all(isinstance(t, Tensor) for t in roots):
        raise TypeError(
            "draw_graph expects a tensor (or a list of tensors) that is the result of "
            f"operations, e.g. draw_graph(loss); got {roots!r}"
        )
    return roots


def build_graph(  # noqa: C901 - to be split when the layout is reworked (issue 12)
    roots: Tensor | Iterable[Tensor],
    params: Mapping[str, Tensor] | None = None,
    variables: Mapping[str, Tensor] | None = None,
) -> Graph:
    """Collect the boxes and arrows of the graph that ends in ``roots``.

    Tensors are named from ``params`` (``{"w": w, "b": b}``) first, then from
    ``variables`` (:func:`draw_graph` passes the caller's); results of operations
    too, so the box of ``AddBackward0`` says it made ``z``.
    """
    roots = _tensors(roots)
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(
            f"params must be a dict of name -> tensor, e.g. {{'w': w, 'b': b}}; got {type(params).__name__}"
        )
    named: dict[int, tuple[str, Tensor]] = {}
    for name, tensor in (params or {}).items():
        if not isinstance(tensor, Tensor):
            raise TypeError(f"params[{name!r}] is a {type(tensor).__name__}, not a tensor")
        named.setdefault(id(tensor), (name, tensor))
    for name, tensor in (variables or {}).items():
        named.setdefault(id(tensor), (name, tensor))
    tensor_names = {key: name for key, (name, _) in named.items()}
    op_names = _op_names(named.values())
    by_array = {id(_array(t)): t for _, t in named.values()}

    graph = Graph()
    counts: dict[str, int] = {}

    def unique(label: str) -> str:
        counts[label] = counts.get(label, 0) + 1
        return label if counts[label] == 1 else f"{label} #{counts[label]}"

    def tensor_box(kind: str, tensor: Tensor, fallback: str) -> GraphNode:
        box = boxes_by_tensor.get(id(tensor))
        if box is None:
            box = GraphNode(
                kind,
                unique(tensor_names.get(id(tensor), fallback)),
                tensor,
                shape=tuple(tensor.shape),
            )
            boxes_by_tensor[id(tensor)] = box
            graph.nodes.append(box)
        return box

    boxes_by_tensor: dict[int, GraphNode] = {}
    # Walk from the roots as the engine does; ops are numbered in forward order,
    # so "MulBackward0 #2" is the second multiplication you wrote.
    ops: list[Node] = []
    seen: set[Node] = set()
    stack = [t.grad_fn for t in roots if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node) is not AccumulateGrad:
            ops.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                stack.append(child)
    ops.sort(key=lambda n: n.sequence_nr)
    shapes = _output_shapes(ops, roots)
    for op in ops:
        box = GraphNode(
            "op",
            unique(op.name()),
            autograd_node=op,
            shape=shapes.get(op),
            output_name=op_names.get(op),
        )
        graph.box_of[op] = box
        graph.nodes.append(box)

    def box_for(autograd_node: Node) -> GraphNode:
        if type(autograd_node) is AccumulateGrad:
            box = tensor_box("leaf", autograd_node.variable, "leaf")
            box.autograd_node = autograd_node
            graph.box_of[autograd_node] = box
            return box
        return graph.box_of[autograd_node]

    for op in ops:
        target = graph.box_of[op]
        for child, _ in op.next_functions:
            if child is not None:
                graph.connect(box_for(child), target)
        for tensor in op.untracked_inputs:
            graph.connect(tensor_box("input", _named_original(tensor, by_array), "input"), target)

    for position, root in enumerate(roots):
        if root.grad_fn is not None:
            output = GraphNode(
                "output",
                unique(tensor_names.get(id(root), "output")),
                root,
                shape=tuple(root.shape),
            )
            graph.nodes.append(output)
            graph.connect(graph.box_of[root.grad_fn], output)
            graph.box_of[root.grad_fn].output_name = None  # the output box shows the name
        elif root.requires_grad:
            box_for(gradient_edge(root).node)
        else:
            raise RuntimeError(
                f"element {position} of tensors does not require grad and does not have a "
                "grad_fn: there is no graph to draw. Create the inputs with requires_grad=True "
                "(e.g. torch.randn(5, 3, requires_grad=True)) before computing the output."
            )
    return graph


def _op_names(named: Iterable[tuple[str, Tensor]]) -> dict[Node, str]:
    """The variable holding each operation's result, by its node; for an operation
    with several results (``split``), the names of those that have one, in order."""
    by_output: dict[Node, dict[int, str]] = {}
    for name, tensor in named:
        if tensor.grad_fn is not None:
            by_output.setdefault(tensor.grad_fn, {}).setdefault(tensor.output_nr, name)
    return {node: ", ".join(names[nr] for nr in sorted(names)) for node, names in by_output.items()}


def _named_original(tensor: Tensor, by_array: Mapping[int, Tensor]) -> Tensor:
    """An operation may receive a temporary view of a tensor (``matmul`` turns the
    vector ``x`` into a 1×5 row); draw the tensor the user named instead."""
    array = _array(tensor)
    if id(array) in by_array:
        return by_array[id(array)]
    base = array.base
    if base is not None and id(base) in by_array:
        return by_array[id(base)]
    return tensor


def _output_shapes(ops: list[Node], roots: list[Tensor]) -> dict[Node, tuple]:
    """The shape of each operation's result, as the node recorded it."""
    shapes: dict[Node, tuple] = {
        t.grad_fn: tuple(t.shape)
        for t in roots
        if t.grad_fn is not None and len(t.grad_fn.input_metadata) == 1
    }
    for op in ops:
        # Several outputs (split, a custom Function returning a tuple): one shape
        # each, for those that are tensors.
        outputs = [tuple(m[0]) for m in op.input_metadata if m is not None]
        shapes.setdefault(op, outputs[0] if len(outputs) == 1 else tuple(outputs))
    return shapes


# -- 2. Where to draw it ---------------------------------------------------------------
CHAR_WIDTH = 7.4  # px per character of the 12px monospace font (a little to spare)
LINE_HEIGHT = 15.0
PADDING = 8.0
# Room for an arrow between columns: enough for its curve and head, no more, so
# that a chain of seven boxes (notebook 4's model(1.5)) stays within FOLD_WIDTH.
COLUMN_GAP = 32.0
ROW_GAP = 16.0
MARGIN = 10.0
# A graph wider than this is folded into bands (rows of columns), read like text.
# Shrunk to MIN_SCALE, a drawing this wide is 650 px: what JupyterLab's output area
# has at 1100 px with the file browser open. So every drawing fits a laptop's
# notebook without scrolling sideways (the backward stepper folds at it too).
FOLD_WIDTH = 1000.0
# More bands than this and the middle ones are summarised in one box.
MAX_BANDS = 6
# An arrow spanning more columns than this runs along a lane above its target's band.
LONG_SPAN = 3
LANE_GAP = 9.0
BAND_GAP = 30.0
# Folded, the bands start this much further right, so that the arrow coming down
# from the previous band's lane into the first box is long enough to show its head.
FOLD_INDENT = 14.0


def layout(
    graph: Graph,
    lines: Mapping[GraphNode, list[str]] | None = None,
    *,
    fold_width: float = FOLD_WIDTH,
) -> Graph:
    """Give every box a column (``layer``), a place in it and a size, and every long
    edge its bends. Forward runs left to right: a box sits as many columns left of
    the output as its longest path to it is long.

    Big graphs stay readable, and take time proportional to their size:

    * **Long arrows run along lanes.** An arrow that spans more than ``LONG_SPAN``
      columns (a weight shared by every step of an unrolled loop, ``y = y * w``)
      leaves its box, runs along a lane of its own just above the band of its
      target and drops into it: one comb per shared tensor instead of a fan of
      crossing curves.
    * **Long graphs fold.** Columns are laid side by side up to ``fold_width``
      pixels (``FOLD_WIDTH`` unless given), then continue in a new band below, like
      lines of text; the bands share the columns about equally (no stub of a last
      line). An arrow from the end of one band to the start of the next runs along
      the next band's lane.
    * **Very long graphs are summarised.** Past ``MAX_BANDS`` bands, the middle
      columns become one ``summary`` box ("⋯ 4,950 operations not drawn", with the
      most frequent operations listed); the first and last bands are drawn in full.
      The autograd nodes it stands for map to it in ``graph.box_of``, so the
      backward stepper lights the summary box while the engine runs inside it.
    """
    lines = lines or {}
    for node in graph.nodes:
        _size(node, lines.get(node))
    _assign_layers(graph)
    columns = _columns(graph.nodes)
    bands = _bands(columns, fold_width)
    if len(bands) > MAX_BANDS:
        _summarise(graph, columns, bands)
        columns = _columns(graph.nodes)
        bands = _bands(columns, fold_width)
    for number, band in enumerate(bands):
        for index in band:
            for node in columns[index]:
                node.band = number
    chains, left, right = _waypoints(graph, columns)
    _order_columns(columns, left, right)
    lanes = _lanes(graph.edges, len(bands))
    _place(columns, left, right, bands, lanes)
    for edge in graph.edges:
        edge.points = (
            [(w.x, w.y) for w in chains[edge]] if edge in chains else _lane_route(edge, lanes)
        )
    everything = [n for column in columns for n in column]
    graph.width = max((n.x + n.width for n in everything), default=0) + MARGIN
    graph.height = max((n.y + n.height for n in everything), default=0) + MARGIN
    return graph


def _waypoints(graph: Graph, columns: list[list]) -> tuple[dict, dict, dict]:
    """Short arrows inside a band get an invisible waypoint in every column they
    cross, so that ordering can keep them clear of other boxes. Returns the
    waypoints of each such arrow and each box's (or waypoint's) neighbours one
    column to the left and to the right."""
    chains: dict[GraphEdge, list[_Waypoint]] = {}
    left: dict = {n: [] for n in graph.nodes}
    right: dict = {n: [] for n in graph.nodes}
    for edge in graph.edges:
        if _on_lane(edge):
            continue
        chain = [
            _Waypoint(layer, edge.source.band)
            for layer in range(edge.source.layer + 1, edge.target.layer)
        ]
        chains[edge] = chain
        for waypoint in chain:
            left[waypoint], right[waypoint] = [], []
            columns[waypoint.layer].append(waypoint)
        path = [edge.source, *chain, edge.target]
        for before, after in itertools.pairwise(path):
            right[before].append(after)
            left[after].append(before)
    return chains, left, right


def _size(node: GraphNode, text: list[str] | None) -> None:
    text = text or [node.label, *node.details]
    node.width = max(len(line) for line in text) * CHAR_WIDTH + 2 * PADDING
    node.height = len(text) * LINE_HEIGHT + PADDING


def _assign_layers(graph: Graph) -> None:
    """Column = how far a box is from the output, counted along the longest path."""
    consumers: dict[GraphNode, list[GraphNode]] = {n: [] for n in graph.nodes}
    for edge in graph.edges:
        consumers[edge.source].append(edge.target)
    distance = _longest_path_to_sinks(graph.nodes, consumers)
    deepest = max(distance.values(), default=0)
    for node in graph.nodes:
        node.layer = deepest - distance[node]


def _columns(nodes: list[GraphNode]) -> list[list]:
    columns: list[list] = [[] for _ in range(max((n.layer for n in nodes), default=0) + 1)]
    for node in nodes:
        columns[node.layer].append(node)
    return columns


def _bands(columns: list[list], fold_width: float) -> list[range]:
    """Consecutive columns cut into bands: as many as cutting each one at
    ``fold_width`` needs, with the columns shared about equally between them, so
    that the last band is not a stub of one or two boxes. No band is drawn wider
    than ``fold_width`` (unless one column alone is)."""
    widths = [max((n.width for n in column), default=0.0) + COLUMN_GAP for column in columns]
    # What a band's columns may add up to (the last one needs no gap after it).
    room = fold_width + COLUMN_GAP - 2 * MARGIN
    if sum(widths) <= room:
        return [range(len(columns))]
    room -= FOLD_INDENT
    count, used = 1, 0.0
    for index, width in enumerate(widths):
        if index > 0 and used + width > room:
            count, used = count + 1, 0.0
        used += width
    while True:
        bands = _equal_shares(widths, count)
        # Equal shares may give a band one column more than fits: one band more.
        if count >= len(widths) or all(sum(widths[i] for i in band) <= room for band in bands):
            return bands
        count += 1


def _equal_shares(widths: list[float], count: int) -> list[range]:
    """``count`` bands of consecutive columns: each column goes to the band its
    middle falls in, at equal shares of the total width."""
    share = sum(widths) / count
    band_of, done = [], 0.0
    for width in widths:
        band_of.append(min(int((done + width / 2) // share), count - 1))
        done += width
    starts = [i for i in range(len(widths)) if i == 0 or band_of[i] != band_of[i - 1]]
    return [range(a, b) for a, b in itertools.pairwise([*starts, len(widths)])]


def _summarise(graph: Graph, columns: list[list], bands: list[range]) -> None:
    """Replace the columns between the first and the last bands by one summary box."""
    head = MAX_BANDS // 2
    tail = MAX_BANDS - head - 1
    first_hidden, last_hidden = bands[head].start, bands[-tail].start - 1
    hidden = {n for column in columns[first_hidden : last_hidden + 1] for n in column}
    names: dict[str, int] = {}
    for node in hidden:
        name = node.autograd_node.name() if node.kind == "op" and node.autograd_node else node.kind
        names[name] = names.get(name, 0) + 1
    ops = sum(1 for n in hidden if n.kind == "op")
    summary = GraphNode("summary", f"⋯ {ops:,} operations not drawn ⋯")
    common = sorted(names.items(), key=lambda item: -item[1])
    summary.details = [f"{count:,} × {name}" for name, count in common[:3]]
    if len(common) > 3:
        summary.details.append(f"and {len(common) - 3} more kinds")
    _size(summary, None)
    summary.layer = first_hidden
    for node in graph.nodes:
        if node.layer > last_hidden:
            node.layer -= last_hidden - first_hidden
    for autograd_node, box in graph.box_of.items():
        if box in hidden:
            graph.box_of[autograd_node] = summary
    old_edges = graph.remove_edges()
    graph.nodes = [n for n in graph.nodes if n not in hidden] + [summary]
    for edge in old_edges:
        source = summary if edge.source in hidden else edge.source
        target = summary if edge.target in hidden else edge.target
        if source is not target:
            graph.connect(source, target)


def _on_lane(edge: GraphEdge) -> bool:
    """Does this arrow run along a lane (long, or from one band to the next)?"""
    return edge.source.band != edge.target.band or edge.target.layer - edge.source.layer > LONG_SPAN


def _lanes(edges: list[GraphEdge], band_count: int) -> list[dict[GraphNode, int]]:
    """Per band, the lane (0 = nearest the band) of each box whose arrows run along it."""
    lanes: list[dict[GraphNode, int]] = [{} for _ in range(band_count)]
    for edge in edges:
        if _on_lane(edge):
            band = lanes[edge.target.band]
            band.setdefault(edge.source, len(band))
    return lanes


def _lane_route(edge: GraphEdge, lanes: list[dict[GraphNode, int]]) -> list[tuple[float, float]]:
    """Bends of an arrow on a lane: up (or down) to the lane, along it, into the target."""
    source, target = edge.source, edge.target
    band_top = target.band_top  # type: ignore[attr-defined]
    lane_y = band_top - (lanes[target.band][source] + 1) * LANE_GAP
    # A band's first box sits at the margin: the drop into it stays inside the picture.
    return [(source.x + source.width + 10, lane_y), (max(target.x - 16, 2.0), lane_y)]


class _Waypoint:
    """A bend of a long edge: a zero-size box for the layout."""

    def __init__(self, layer: int, band: int) -> None:
        self.layer = layer
        self.band = band
        self.order = 0.0
        self.x = self.y = self.width = self.height = 0.0


def _longest_path_to_sinks(nodes: list[GraphNode], consumers) -> dict[GraphNode, int]:
    distance: dict[GraphNode, int] = {}
    for start in nodes:
        if start in distance:
            continue
        # Iterative depth-first search: a long chain must not hit the recursion limit.
        stack = [(start, iter(consumers[start]))]
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                distance[node] = max((distance[c] + 1 for c in consumers[node]), default=0)
            elif child not in distance:
                stack.append((child, iter(consumers[child])))
    return distance


def _order_columns(columns: list[list], left, right, sweeps: int = 6) -> None:
    """Order each column by the mean position of its neighbours (the barycenter
    heuristic), sweeping right then left, and keep the order with fewest crossings."""
    for column in columns:
        for position, node in enumerate(column):
            node.order = position
    best = [list(c) for c in columns]
    best_crossings = _crossings(columns, left)
    for sweep in range(sweeps):
        forward = sweep % 2 == 0
        indices = range(1, len(columns)) if forward else range(len(columns) - 2, -1, -1)
        for index in indices:
            _sort_by_barycenter(columns[index], left if forward else right)
        crossings = _crossings(columns, left)
        if crossings < best_crossings:
            best, best_crossings = [list(c) for c in columns], crossings
        if best_crossings == 0:
            break
    for column, ordered in zip(columns, best):
        column[:] = ordered
        for position, node in enumerate(column):
            node.order = position


def _sort_by_barycenter(column: list, neighbours) -> None:
    for node in column:
        placed = [n.order for n in neighbours[node]]
        node.order = sum(placed) / len(placed) if placed else node.order
    column.sort(key=lambda n: n.order)
    for position, node in enumerate(column):
        node.order = position


def _crossings(columns: list[list], left) -> int:
    """Pairs of arrows between neighbouring columns that cross: inversions of the
    targets' order once the arrows are sorted by their sources' order."""
    total = 0
    for column in columns[1:]:
        pairs = sorted((source.order, target.order) for target in column for source in left[target])
        seen: list[float] = []
        for _, target_order in pairs:
            # arrows already seen (sources above or level) whose target is below this one
            total += len(seen) - bisect.bisect_right(seen, target_order)
            bisect.insort(seen, target_order)
    return total


def _place(
    columns: list[list], left, right, bands: list[range], lanes: list[dict], rounds: int = 4
) -> None:
    """Coordinates: columns side by side within a band, bands one under the other;
    within a column, boxes keep their order and move towards the mean height of
    their neighbours, so arrows run straight."""
    top = MARGIN
    for number, band in enumerate(bands):
        band_columns = [columns[i] for i in band]
        top += len(lanes[number]) * LANE_GAP
        x = MARGIN + (FOLD_INDENT if len(bands) > 1 else 0.0)
        for column in band_columns:
            width = max((n.width for n in column), default=0)
            for node in column:
                node.x = x + (width - node.width) / 2
            x += width + COLUMN_GAP
        _align_rows(band_columns, left, right, rounds)
        highest = min((n.y for column in band_columns for n in column), default=0.0)
        bottom = top
        for column in band_columns:
            for node in column:
                node.y += top - highest
                node.band_top = top
                bottom = max(bottom, node.y + node.height)
        top = bottom + BAND_GAP


def _align_rows(columns: list[list], left, right, rounds: int) -> None:
    for column in columns:
        y = 0.0
        for node in column:
            node.y = y
            y += node.height + ROW_GAP
    for round_ in range(rounds):
        order = columns if round_ % 2 == 0 else columns[::-1]
        for column in order:
            wanted = []
            for node in column:
                neighbours = left[node] + right[node]
                centre = (
                    sum(n.y + n.height / 2 for n in neighbours) / len(neighbours)
                    if neighbours
                    else node.y + node.height / 2
                )
                wanted.append(centre - node.height / 2)
            _spread(column, wanted)


def _spread(column: list, wanted: list[float]) -> None:
    """Put boxes as near their wanted heights as their order and gaps allow."""
    y = -float("inf")
    for node, target in zip(column, wanted):
        node.y = max(target, y)
        y = node.y + node.height + ROW_GAP
    # Keeping the gaps only ever pushed boxes down: move the column back up by the
    # average push, so it stays centred on where its boxes wanted to be.
    push = sum(node.y - target for node, target in zip(column, wanted)) / max(len(column), 1)
    for node in column:
        node.y -= push


# -- 3. How it looks -------------------------------------------------------------------
MIN_SCALE = 0.65
STYLE = """
.agk-graph text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12px; fill: #1f2328; }
.agk-graph .node rect { stroke-width: 1.2px; }
.agk-graph .op rect { fill: #eef2f7; stroke: #57606a; }
.agk-graph .leaf rect { fill: #dbeafe; stroke: #1d4ed8; }
.agk-graph .input rect { fill: #f6f8fa; stroke: #8c959f; stroke-dasharray: 4 3; }
.agk-graph .input text { fill: #6e7781; }
.agk-graph .output rect { fill: #fef3c7; stroke: #b45309; }
.agk-graph .summary rect { fill: #f6f8fa; stroke: #57606a; stroke-dasharray: 6 3; }
.agk-graph .summary text { fill: #57606a; }
.agk-graph .node .title { font-weight: bold; }
.agk-graph .edge path { fill: none; stroke: #8c959f; stroke-width: 1.3px; }
.agk-graph .edge polygon { fill: #8c959f; }
.agk-graph .edge.carried path { stroke: #d1242f; stroke-width: 2.4px; }
.agk-graph .edge.carried polygon { fill: #d1242f; }
.agk-graph .done rect { stroke: #1a7f37; stroke-width: 2px; }
.agk-graph .current rect { fill: #fff8c5; stroke: #d1242f; stroke-width: 3px; }
"""


def node_lines(node: GraphNode, show_saved: bool = False) -> list[str]:
    """The text of a box: its name, then shape and facts, then values if small."""
    shape = _shape_text(node.shape)
    if node.kind == "op":
        lines = [node.label]
        lines.append(f"→ {node.output_name} {shape}" if node.output_name else f"→ {shape}")
        if show_saved:
            lines.append(_saved_text(node.autograd_node))
        return lines
    tensor = node.tensor
    lines = [node.label]
    if node.kind == "leaf":
        lines.append(f"{shape} requires_grad")
        grad = tensor.grad
        if grad is not None:
            lines.append("grad " + _values_text(_array(grad)))
    elif node.kind == "input":
        lines.append(shape)
        if tensor.numel() <= SHOW_VALUES_UP_TO:
            lines.append(_values_text(_array(tensor)))
    else:
        lines.append(shape)
        if tensor.numel() <= SHOW_VALUES_UP_TO:
            lines.append("= " + _values_text(_array(tensor)))
    return lines


def _shape_text(shape: tuple | None) -> str:
    """``[2, 3]``; for an operation with several outputs, one shape each: ``[2], [2]``."""
    if shape is None:
        return "[?]"
    if shape and isinstance(shape[0], tuple):
        return ", ".join(_shape_text(one) for one in shape)
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _values_text(values: np.ndarray) -> str:
    if values.size > SHOW_VALUES_UP_TO:
        return _shape_text(values.shape)
    if values.ndim == 0:
        return format_value(values)
    return "[" + ", ".join(format_value(v) for v in values.ravel()) + "]"


def _saved_text(node: Node) -> str:
    try:
        saved = node.saved_tensors
    except RuntimeError as error:  # freed by a backward pass, or modified in place
        return "saved: freed" if str(error) == SECOND_BACKWARD_MESSAGE else "saved: modified"
    shapes = [_shape_text(v.shape) for v in saved or () if isinstance(v, (np.ndarray, Tensor))]
    return "saved: " + (", ".join(shapes) if shapes else "nothing")


def _array(tensor: Tensor) -> np.ndarray:
    # The tensor's own array object (detach() would give a view of it): the
    # drawing tells tensors apart by it (_named_original).
    return tensor.numpy(force=True)


def _tooltip(node: GraphNode) -> str:
    parts = [node.label]
    tensor = node.tensor
    if node.kind == "op":
        parts.append(f"{node.autograd_node.name()}: output shape {_shape_text(node.shape)}")
    elif tensor is not None:
        parts.append(f"shape {_shape_text(node.shape)}, requires_grad={tensor.requires_grad}")
        grad = tensor.grad if node.kind == "leaf" else None
        if grad is not None and grad.numel() <= 100:
            parts.append("grad = " + np.array2string(_array(grad), precision=4))
    return "\n".join(parts)


def render_svg(
    graph: Graph,
    lines: Mapping[GraphNode, list[str]],
    node_classes: Mapping[GraphNode, str] | None = None,
    edge_classes: Mapping[GraphEdge, str] | None = None,
) -> str:
    """The SVG text of a laid-out graph. Extra classes per node and edge (the
    stepper's ``current``, ``done``, ``carried``) come from the two mappings."""
    node_classes = node_classes or {}
    edge_classes = edge_classes or {}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="agk-graph" width="{graph.width:.0f}" '
        f'height="{graph.height:.0f}" viewBox="0 0 {graph.width:.0f} {graph.height:.0f}" '
        # Shrink to the notebook's width, but not below MIN_SCALE: past that the
        # text is too small to read, and the view scrolls instead.
        f'style="max-width:100%;min-width:{graph.width * MIN_SCALE:.0f}px;height:auto">',
        f"<style>{STYLE}</style>",
        '<g class="edges">',
    ]
    for edge in graph.edges:
        extra = edge_classes.get(edge)
        out.append(
            f'<g class="edge{" " + extra if extra else ""}" data-from="{escape(edge.source.label)}" '
            f'data-to="{escape(edge.target.label)}">{_edge_shape(edge)}</g>'
        )
    out.append("</g>")
    out.append('<g class="nodes">')
    for node in graph.nodes:
        classes = f"node {node.kind}"
        if node_classes.get(node):
            classes += " " + node_classes[node]
        text = lines.get(node) or [node.label, *node.details]
        out.append(
            f'<g class="{classes}" data-node="{escape(node.label)}" '
            f'transform="translate({node.x:.1f},{node.y:.1f})">'
            f"<title>{escape(_tooltip(node))}</title>"
            f'<rect width="{node.width:.1f}" height="{node.height:.1f}" rx="6"/>'
        )
        for row, line in enumerate(text):
            css = ' class="title"' if row == 0 else ""
            out.append(
                f'<text x="{PADDING:.0f}" y="{PADDING / 2 + LINE_HEIGHT * (row + 0.8):.1f}"'
                f"{css}>{escape(line)}</text>"
            )
        out.append("</g>")
    out.append("</g></svg>")
    return "".join(out)


def _edge_shape(edge: GraphEdge) -> str:
    source, target = edge.source, edge.target
    points = [
        (source.x + source.width, source.y + source.height / 2),
        *edge.points,
        (target.x - 6, target.y + target.height / 2),
    ]
    d = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        middle = (x0 + x1) / 2
        d += f" C{middle:.1f},{y0:.1f} {middle:.1f},{y1:.1f} {x1:.1f},{y1:.1f}"
    tip_x, tip_y = target.x, target.y + target.height / 2
    arrow = (
        f"{tip_x - 7:.1f},{tip_y - 4:.1f} {tip_x:.1f},{tip_y:.1f} {tip_x - 7:.1f},{tip_y + 4:.1f}"
    )
    return f'<path d="{d} L{tip_x - 6:.1f},{tip_y:.1f}"/><polygon points="{arrow}"/>'


def graph_alt_text(graph: Graph) -> str:
    """The graph in words, for an image's ``alt`` text: each arrow as ``a → b``."""
    arrows = "; ".join(f"{edge.source.label} → {edge.target.label}" for edge in graph.edges)
    return f"Computational graph: {arrows}"


# -- The public face -------------------------------------------------------------------
class GraphDrawing:
    """A drawing of a computational graph; Jupyter displays it, ``.svg`` is its text.

    Attributes
    ----------
    svg : str
        The SVG document.
    graph : Graph
        The boxes and arrows, with their positions (``graph.node("w")``).
    """

    def __init__(self, graph: Graph, svg: str) -> None:
        self.graph = graph
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        # An <img>, not inline SVG: it survives the cleaning that untrusted
        # notebooks, GitHub and nbviewer apply to saved HTML (see viz/_html.py).
        image = svg_img(self.svg, self.alt_text(), min_width=self.graph.width * MIN_SCALE)
        return f'<div class="agk-graph-drawing" style="overflow-x:auto">{image}</div>'

    def alt_text(self) -> str:
        """The drawing in words: each box and where its arrows lead."""
        return graph_alt_text(self.graph)

    def __repr__(self) -> str:
        kinds = {}
        for node in self.graph.nodes:
            kinds[node.kind] = kinds.get(node.kind, 0) + 1
        summary = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        return f"<GraphDrawing: {summary}; {len(self.graph.edges)} edges>"

    def save(self, path: str) -> None:
        """Write the SVG to a file (open it in a browser, or put it in slides)."""
        with open(path, "w", encoding="utf-8") as file:
            file.write(self.svg)


def draw_graph(
    root: Tensor | Iterable[Tensor],
    params: Mapping[str, Tensor] | None = None,
    *,
    show_saved: bool = False,
    fold_width: float = FOLD_WIDTH,
) -> GraphDrawing:
    """Draw the computational graph that ends in ``root``.

    Parameters
    ----------
    root : Tensor or list of Tensor
        The output(s), e.g. ``loss``.
    params : dict of str to Tensor, optional
        Names for tensors (``{"w": w, "b": b}``). Tensors not named here are named
        after the caller's variables that hold them, so in a notebook ``x``, ``w``
        and ``z`` are labelled as you called them.
    show_saved : bool
        Also list, per operation, the shapes of the tensors it saved for backward
        ("freed" once a backward pass without ``retain_graph`` has run).
    fold_width : float
        The width in pixels past which the drawing folds into rows (``FOLD_WIDTH``,
        1,000, unless given). A smaller one keeps a long chain at full size in a
        narrow notebook, two or more rows instead of one row shrunk.

    Wide and big graphs: a graph wider than about 1,000 px (``FOLD_WIDTH``) folds
    into rows read like text, the arrow from the end of one row running along a
    lane to the start of the next, so that the drawing fits a notebook (shrunk no
    further than ``MIN_SCALE``, it fits JupyterLab's output area at 1100 px with the
    file browser open). An arrow spanning many columns (a weight used at every step
    of a loop) runs along a lane above its target's row; past six rows, the middle rows
    become one dashed "⋯ N operations not drawn ⋯" box listing the most frequent
    operations, and the first and last rows are drawn in full (:func:`layout`).

    Returns
    -------
    GraphDrawing
        Shown by Jupyter as SVG; ``.svg`` holds the text.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.viz import draw_graph
    >>> x = torch.ones(5)
    >>> w = torch.ones(5, 3, requires_grad=True)
    >>> z = torch.matmul(x, w)
    >>> drawing = draw_graph(z)
    >>> [(n.kind, n.label) for n in drawing.graph.nodes]  # doctest: +NORMALIZE_WHITESPACE
    [('op', 'MmBackward0'), ('op', 'SqueezeBackward4'), ('leaf', 'w'), ('input', 'x'),
     ('output', 'z')]
    >>> drawing.svg.startswith("<svg")
    True
    """
    graph = build_graph(root, params, caller_tensor_names())
    lines = {node: node_lines(node, show_saved) for node in graph.nodes}
    layout(graph, lines, fold_width=fold_width)
    return GraphDrawing(graph, render_svg(graph, lines))
