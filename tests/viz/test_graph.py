"""draw_graph: what is drawn (checked against the graph PyTorch records for the same
code), how it is named, where it is placed, and that the SVG is well-formed."""

from __future__ import annotations

import base64
import itertools
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from graphs import tutorial_graph
from hypothesis import given, settings
from hypothesis import strategies as st

import autogradkit as torch
from autogradkit.viz import GraphDrawing, draw_graph
from autogradkit.viz.graph import build_graph, layout, node_lines

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str):
    tree = ET.fromstring(svg)
    nodes = {g.get("data-node"): g for g in tree.iter(f"{SVG}g") if g.get("data-node") is not None}
    edges = {
        (g.get("data-from"), g.get("data-to"))
        for g in tree.iter(f"{SVG}g")
        if g.get("data-from") is not None
    }
    return tree, nodes, edges


def test_the_tutorial_graph_is_drawn_as_the_tutorial_pictures_it():
    x, y, w, b, z, loss = tutorial_graph(torch)
    drawing = draw_graph(loss)
    tree, nodes, edges = parse(drawing.svg)
    kinds = {label: (set(g.get("class").split()) - {"node"}) for label, g in nodes.items()}
    assert kinds == {
        "x": {"input"},
        "y": {"input"},
        "w": {"leaf"},
        "b": {"leaf"},
        "loss": {"output"},
        "MmBackward0": {"op"},
        "SqueezeBackward4": {"op"},
        "AddBackward0": {"op"},
        "BinaryCrossEntropyWithLogitsBackward0": {"op"},
    }
    assert edges == {
        ("x", "MmBackward0"),
        ("w", "MmBackward0"),
        ("MmBackward0", "SqueezeBackward4"),
        ("SqueezeBackward4", "AddBackward0"),
        ("b", "AddBackward0"),
        ("AddBackward0", "BinaryCrossEntropyWithLogitsBackward0"),
        ("y", "BinaryCrossEntropyWithLogitsBackward0"),
        ("BinaryCrossEntropyWithLogitsBackward0", "loss"),
    }
    # The result of the addition is the variable z, and the boxes say so.
    assert "→ z [3]" in "".join(nodes["AddBackward0"].itertext())
    assert "[5, 3] requires_grad" in "".join(nodes["w"].itertext())
    assert tree.get("class") == "agk-graph"


def short(name: str) -> str:
    """A node's name without the C++ namespace (torch::autograd::CopySlices)."""
    return name.split("::")[-1]


def torch_op_edges(root_fn) -> set[tuple[str, str]]:
    """(producer, consumer) pairs of op names in a PyTorch graph; leaves as 'leaf'."""
    edges, stack, seen = set(), [root_fn], set()
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        for child, _ in fn.next_functions:
            if child is None:
                continue
            name = "leaf" if child.name().endswith("AccumulateGrad") else short(child.name())
            edges.add((name, short(fn.name())))
            stack.append(child)
    return edges


def our_op_edges(drawing: GraphDrawing) -> set[tuple[str, str]]:
    edges = set()
    for edge in drawing.graph.edges:
        if edge.source.kind in ("input",) or edge.target.kind == "output":
            continue
        source = "leaf" if edge.source.kind == "leaf" else short(edge.source.autograd_node.name())
        edges.add((source, short(edge.target.autograd_node.name())))
    return edges


PROGRAMS = {
    "tutorial": lambda lib: tutorial_graph(lib)[-1],
    "mlp": lambda lib: lib.relu(
        lib.ones(4, 3) @ lib.ones(3, 5, requires_grad=True) + lib.ones(5, requires_grad=True)
    ).sum(),
    "fan_out": lambda lib: (lambda a: (a.exp() * a + a.exp() * 3).mean())(
        lib.ones(3, requires_grad=True)
    ),
    "pow_t": lambda lib: (lib.eye(4, 5, requires_grad=True) + 1).pow(2).t(),
    "inplace_through_views": lambda lib: _inplace_through_views(lib),
}


def _inplace_through_views(lib):
    """In-place changes through views rewrite c's history (CopySlices); a view made
    before them gets an AsStridedBackward0 history."""
    a = lib.ones(2, 3, requires_grad=True)
    x = lib.ones(2, requires_grad=True)
    c = a * 2
    r = c[:, 0]
    c[0].mul_(3)
    c[:, 1].add_(x)
    return (c * c).sum() + r.sum()


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_the_operations_and_edges_are_the_ones_pytorch_records(name):
    real = pytest.importorskip("torch")
    ours = draw_graph(PROGRAMS[name](torch))
    assert our_op_edges(ours) == torch_op_edges(PROGRAMS[name](real).grad_fn)


def test_names_come_from_params_first_then_the_callers_variables():
    def inside_a_function():
        weights = torch.ones(2, requires_grad=True)
        total = (weights * weights).sum()
        return draw_graph(total, params={"W": weights})

    labels = {n.label for n in inside_a_function().graph.nodes}
    assert labels == {"W", "MulBackward0", "SumBackward0", "total"}


def test_unnamed_tensors_get_numbered_labels():
    drawing = draw_graph(
        [(torch.ones(2, requires_grad=True) * torch.ones(2, requires_grad=True)).sum()]
    )
    assert {n.label for n in drawing.graph.nodes} == {
        "leaf",
        "leaf #2",
        "MulBackward0",
        "SumBackward0",
        "output",
    }


def test_a_repeated_operation_gets_a_numbered_label_in_forward_order():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    first = a * 2
    second = first * 3
    drawing = draw_graph(second.sum())
    assert drawing.graph.node("MulBackward0").output_name == "first"
    assert drawing.graph.node("MulBackward0 #2").output_name == "second"


def test_a_tensor_used_twice_is_one_box_with_two_arrows():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    h = a.exp()
    out = (h * h + h * a).sum()
    _, nodes, edges = parse(draw_graph(out).svg)
    assert sum(1 for label in nodes if label == "a") == 1
    assert {("a", "ExpBackward0"), ("a", "MulBackward0 #2")} <= edges
    assert {("ExpBackward0", "MulBackward0"), ("ExpBackward0", "MulBackward0 #2")} <= edges


def test_gradients_show_once_computed_and_saved_tensors_on_request():
    x, y, w, b, z, loss = tutorial_graph(torch)
    before = draw_graph(loss, show_saved=True)
    assert "saved: [1, 5]" in " ".join(node_lines(before.graph.node("MmBackward0"), True))
    assert not any(line.startswith("grad") for line in node_lines(before.graph.node("b")))
    loss.backward()
    after = draw_graph(loss, show_saved=True)
    b_lines = node_lines(after.graph.node("b"))
    assert b_lines[-1] == "grad [" + ", ".join(f"{v:.3g}" for v in b.grad.numpy()) + "]"
    assert node_lines(after.graph.node("w"))[-1] == "grad [5, 3]"  # too many numbers for a box
    assert "saved: freed" in node_lines(after.graph.node("MmBackward0"), True)
    _, nodes, _ = parse(after.svg)
    assert "grad = [[" in nodes["w"].find(f"{SVG}title").text  # all of them in the tooltip


def test_a_leaf_alone_and_several_outputs():
    leaf = torch.ones(3, requires_grad=True)
    assert [(n.kind, n.label) for n in draw_graph(leaf).graph.nodes] == [("leaf", "leaf")]
    a = torch.ones(2, requires_grad=True)
    u, v = a * 2, a.exp()
    drawing = draw_graph([u, v])
    assert {n.label for n in drawing.graph.nodes if n.kind == "output"} == {"u", "v"}


def test_bad_input_says_what_to_do():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        draw_graph(torch.ones(3).sum())
    with pytest.raises(TypeError, match="draw_graph expects a tensor"):
        draw_graph("loss")  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(TypeError, match="params must be a dict"):
        draw_graph((torch.ones(2, requires_grad=True) * 2).sum(), params=[1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"params\['w'\] is a list"):
        draw_graph((torch.ones(2, requires_grad=True) * 2).sum(), params={"w": [1.0]})  # type: ignore[dict-item]


def test_the_drawing_is_deterministic_and_displays_in_jupyter():
    # Notebooks are tested by comparing their stored outputs, SVG included.
    *_, loss = tutorial_graph(torch)
    first, second = draw_graph(loss), draw_graph(loss)
    assert first.svg == second.svg
    assert first._repr_svg_() == first.svg
    # Its HTML is the same SVG as an <img>, which sanitised (untrusted) HTML keeps.
    (image,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', first._repr_html_())
    assert base64.b64decode(image).decode() == first.svg and "<svg" not in first._repr_html_()
    assert "Backward0 → loss" in first._repr_html_()  # the alt text
    assert repr(first) == "<GraphDrawing: 4 op, 2 leaf, 2 input, 1 output; 8 edges>"


def test_stacked_drawings_share_one_scale():
    # A chain twice as long must look twice as long: no drawing is shrunk to the page.
    from autogradkit.viz import stack

    a = torch.tensor(1.5, requires_grad=True)
    short, long = draw_graph(a * 2), draw_graph(a * 2 * 2 * 2 * 2)
    html = stack({"short": short, "long": long})._repr_html_()
    images = re.findall(r'<img[^>]*src="data:image/svg\+xml;base64,([^"]+)"[^>]*>', html)
    assert [base64.b64decode(i).decode() for i in images] == [short.svg, long.svg]
    widths = [float(w) for w in re.findall(r'<img[^>]*style="width:([\d.]+)%"', html)]
    assert widths == pytest.approx([100 * short.graph.width / long.graph.width, 100.0], abs=0.2)
    assert f"max-width:{long.graph.width:.0f}px" in html  # never drawn larger than life
    assert html.index("short") < html.index("long") and "<svg" not in html
    assert long.graph.width > 2 * short.graph.width


# -- layout ---------------------------------------------------------------------------------
def assert_readable(graph):
    for edge in graph.edges:
        if edge.source.band == edge.target.band:
            assert edge.source.x + edge.source.width < edge.target.x, f"{edge} points left"
        else:  # a folded graph continues in the band below, like a line of text
            assert edge.source.band < edge.target.band, f"{edge} points up"
    bands: dict[int, list] = {}
    for node in graph.nodes:
        bands.setdefault(node.band, []).append(node)
    for upper, lower in itertools.pairwise(bands[b] for b in sorted(bands)):
        assert max(n.y + n.height for n in upper) < min(n.y for n in lower), "bands overlap"
    by_column: dict[int, list] = {}
    for node in graph.nodes:
        by_column.setdefault(node.layer, []).append(node)
        assert node.x >= 0 and node.x + node.width <= graph.width
        assert node.y >= 0 and node.y + node.height <= graph.height
    for column in by_column.values():
        column.sort(key=lambda n: n.y)
        for upper, lower in itertools.pairwise(column):
            assert upper.y + upper.height <= lower.y, f"{upper} overlaps {lower}"


def crossings(graph) -> int:
    """Crossings among edges between neighbouring columns, from the drawn positions."""
    segments = [
        (e.source.y + e.source.height / 2, e.target.y + e.target.height / 2, e.source.layer)
        for e in graph.edges
        if e.target.layer == e.source.layer + 1
    ]
    return sum(
        1
        for i, (a, b, la) in enumerate(segments)
        for c, d, lc in segments[i + 1 :]
        if la == lc and (a - c) * (b - d) < 0
    )


def test_the_tutorial_layout_has_no_crossings_and_flows_left_to_right():
    x, y, w, b, z, loss = tutorial_graph(torch)
    graph = draw_graph(loss).graph
    assert_readable(graph)
    assert crossings(graph) == 0
    columns = {n.label: n.layer for n in graph.nodes}
    assert columns["x"] == columns["w"] == 0 and columns["loss"] == max(columns.values())
    assert columns["b"] == columns["AddBackward0"] - 1


def test_ordering_untangles_a_crossed_ladder():
    # Built so that the order in which nodes are found crosses every rung.
    leaves = [torch.ones(1, requires_grad=True) for _ in range(4)]
    firsts = [leaf * 2 for leaf in leaves]
    seconds = [f.exp() for f in reversed(firsts)]
    total = seconds[0]
    for s in seconds[1:]:
        total = total + s
    graph = build_graph(total.sum())
    # In one row: crossings are counted between neighbouring columns of a band.
    layout(graph, {n: node_lines(n) for n in graph.nodes}, fold_width=float("inf"))
    assert_readable(graph)
    assert crossings(graph) == 0


@st.composite
def random_programs(draw):
    """A random DAG: each new value combines one or two earlier ones."""
    count = draw(st.integers(1, 4))
    values = [torch.tensor([1.0 + i], requires_grad=True) for i in range(count)]
    for _ in range(draw(st.integers(1, 30))):
        i = draw(st.integers(0, len(values) - 1))
        j = draw(st.integers(0, len(values) - 1))
        op = draw(st.sampled_from(["add", "mul", "exp"]))
        values.append(
            values[i] + values[j]
            if op == "add"
            else values[i] * values[j]
            if op == "mul"
            else (values[i] * 0.1).exp()
        )
    total = values[-1]
    return total.sum()


@settings(max_examples=40)
@given(random_programs())
def test_any_graph_is_laid_out_readably(root):
    drawing = draw_graph(root)
    assert_readable(drawing.graph)
    tree, nodes, edges = parse(drawing.svg)
    assert len(nodes) == len(drawing.graph.nodes) and len(edges) == len(drawing.graph.edges)
    assert float(tree.get("width")) == pytest.approx(drawing.graph.width, abs=1)


def test_a_hundred_node_graph_stays_readable():
    torch.manual_seed(0)
    h = torch.randn(4, requires_grad=True)
    weights = [torch.randn(4, 4, requires_grad=True) for _ in range(16)]
    for w in weights:
        h = torch.tanh(torch.matmul(w, h)) + h * 0.5
    root = (h * h).sum()
    graph = build_graph(root)
    lines = {n: node_lines(n) for n in graph.nodes}
    # Bands of 2,400 px: few enough that the whole graph is drawn, none summarised.
    layout(graph, lines, fold_width=2400.0)
    assert len(graph.nodes) >= 70
    assert_readable(graph)
    columns = max(n.layer for n in graph.nodes) + 1
    widest = max(n.width for n in graph.nodes)
    assert graph.width <= columns * (widest + 50), (
        "columns should be no wider than their boxes need"
    )
    assert graph.height < 1200


def test_draw_graph_does_not_need_matplotlib_or_widgets():
    import subprocess
    import sys

    code = (
        "import sys, autogradkit as torch; from autogradkit.viz import draw_graph; "
        "a = torch.ones(2, requires_grad=True); draw_graph((a * a).sum()); "
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_values_of_small_inputs_and_outputs_are_shown():
    x, y, w, b, z, loss = tutorial_graph(torch)
    graph = draw_graph(loss).graph
    assert node_lines(graph.node("x"))[-1] == "[1, 1, 1, 1, 1]"
    assert node_lines(graph.node("loss"))[-1] == f"= {float(loss.item()):.3g}"
    assert np.isfinite(loss.item())


# -- big graphs -------------------------------------------------------------------------
def shared_chain(n):
    """``h = h * w`` n times: one leaf used at every step (an unrolled RNN's shape)."""
    w = torch.tensor(0.999, requires_grad=True)
    y = torch.tensor(1.0, requires_grad=True)
    h = y
    for _ in range(n):
        h = h * w
    return h, w, y


def test_a_long_chain_folds_into_bands_read_like_text():
    from autogradkit.viz.graph import FOLD_WIDTH, LONG_SPAN

    h, w, y = shared_chain(30)
    graph = draw_graph(h, {"w": w, "y": y}).graph
    assert_readable(graph)
    bands = {n.band for n in graph.nodes}
    assert len(bands) > 1 and graph.width <= FOLD_WIDTH  # folded, not one long row
    ops = sorted((n for n in graph.nodes if n.kind == "op"), key=lambda n: n.layer)
    assert len(ops) == 30 and all(n.kind != "summary" for n in graph.nodes)
    for a, b in itertools.pairwise(ops):  # in reading order: along a band, then the next
        assert (a.band, a.x) < (b.band, b.x)
    # w's arrows to far-away steps run along a lane just above their target's band.
    leaf = graph.node("w")
    for edge in (e for e in graph.edges if e.source is leaf):
        if edge.target.band != leaf.band or edge.target.layer - leaf.layer > LONG_SPAN:
            (x1, lane), (x2, lane_again) = edge.points
            assert lane == lane_again and lane < edge.target.y
            band_top = min(n.y for n in graph.nodes if n.band == edge.target.band)
            assert lane < band_top
            assert x2 < edge.target.x


def test_draw_graph_folds_at_the_width_it_is_given():
    """Notebook 4's chain of seven boxes: one row of about 1,000 px by default,
    shrunk to two thirds in JupyterLab at 1100 px; folded at 640 px it is two rows
    that fit there at full size, read in the same order."""
    a = torch.tensor(1.5, requires_grad=True)
    out = a
    for _ in range(4):
        out = out * out
    out = out / 10
    one_row = draw_graph(out).graph
    assert {n.band for n in one_row.nodes} == {0} and one_row.width > 640
    folded = draw_graph(out, fold_width=640).graph
    assert_readable(folded)
    assert len({n.band for n in folded.nodes}) == 2 and folded.width <= 640
    in_order = sorted(folded.nodes, key=lambda n: n.layer)
    for before, after in itertools.pairwise(in_order):
        assert (before.band, before.x) < (after.band, after.x)
    assert sorted(n.label for n in folded.nodes) == sorted(n.label for n in one_row.nodes)


@pytest.mark.parametrize("fold_width", [300.0, 700.0, 1000.0])
def test_folded_bands_share_the_columns_about_equally(fold_width):
    """As many bands as cutting at fold_width needs, none a stub: their widths differ
    by less than the widest column, and none is much wider than fold_width."""
    from autogradkit.viz.graph import COLUMN_GAP

    h, w, y = shared_chain(9)
    graph = build_graph(h, {"w": w, "y": y})
    layout(graph, fold_width=fold_width)
    assert_readable(graph)
    spans: dict[int, tuple[float, float]] = {}
    for node in graph.nodes:
        low, high = spans.get(node.band, (node.x, node.x + node.width))
        spans[node.band] = (min(low, node.x), max(high, node.x + node.width))
    widths = [high - low + COLUMN_GAP for low, high in spans.values()]
    widest_column = max(n.width for n in graph.nodes) + COLUMN_GAP
    one_row = layout(build_graph(h, {"w": w, "y": y}), fold_width=float("inf")).width
    assert len(widths) > 1 and len(widths) <= one_row // fold_width + 2
    assert max(widths) - min(widths) < widest_column
    assert graph.width <= fold_width


def test_a_very_long_graph_summarises_its_middle_and_stays_small():
    from autogradkit.viz.graph import MAX_BANDS

    h, w, y = shared_chain(1000)
    drawing = draw_graph(h, {"w": w, "y": y})
    graph = drawing.graph
    assert_readable(graph)
    (summary,) = [n for n in graph.nodes if n.kind == "summary"]
    drawn_ops = [n for n in graph.nodes if n.kind == "op"]
    hidden = 1000 - len(drawn_ops)
    assert summary.label == f"⋯ {hidden:,} operations not drawn ⋯"
    assert summary.details == [f"{hidden:,} × MulBackward0"]
    assert len({n.band for n in graph.nodes}) <= MAX_BANDS
    assert graph.height < 1000 and len(graph.nodes) < 120
    # Every autograd node has a box: its own, or the summary it is hidden in.
    node, seen = h.grad_fn, 0
    while node is not None:
        assert graph.box_of[node] in graph.nodes
        seen += graph.box_of[node] is summary
        node = next(
            (n for n, _ in node.next_functions if n is not None and n.name() == "MulBackward0"),
            None,
        )
    assert seen == hidden
    _, nodes, edges = parse(drawing.svg)
    assert len(nodes) == len(graph.nodes) and len(edges) == len(graph.edges)
    assert "⋯" in drawing.alt_text()


def test_the_stepper_lights_the_summary_box_while_the_engine_runs_inside_it():
    pytest.importorskip("ipywidgets")
    from autogradkit.widgets import BackwardStepper

    h, w, y = shared_chain(400)
    stepper = BackwardStepper(h, params={"w": w, "y": y})
    summary = next(n for n in stepper.graph.nodes if n.kind == "summary")
    lit = []
    for _ in range(200):
        stepper.step()
        lit.append('class="node summary current"' in stepper.svg)
    # Runs of the hidden steps light the summary box; the drawn ones do not.
    assert any(lit) and not all(lit)
    assert summary.label in stepper.svg


def test_a_graph_rewritten_through_views_is_drawn():
    drawing = draw_graph(_inplace_through_views(torch))
    names = {short(n.autograd_node.name()) for n in drawing.graph.nodes if n.kind == "op"}
    assert {"CopySlices", "AsStridedBackward0", "MulBackward0"} <= names
    ET.fromstring(drawing.svg)  # well-formed


# -- fitting a notebook ------------------------------------------------------------------
# JupyterLab's output area at a window of 1100 px with the file browser open (measured
# in Chromium: 660 px; a little to spare for other fonts and scrollbars).
OUTPUT_AREA_AT_1100_PX = 650


def _min_widths(html: str) -> list[float]:
    return [float(w) for w in re.findall(r"min-width:([\d.]+)px", html)]


def _notebook_4_model(value):
    out = value
    while out < 100:
        out = out * out
    return out.log() if out > 1000 else out / 10


def test_the_notebooks_drawings_fit_jupyterlab_at_1100_px_without_scrolling():
    """A drawing shrinks with the page down to MIN_SCALE, then scrolls sideways. The
    drawings of notebooks 1, 3 and 4 (the tutorial's graph, with and without the
    saved tensors and gradients, and notebook 4's two chains drawn to one scale) must
    fit before that: wide ones fold into rows."""
    from autogradkit.viz import stack
    from autogradkit.viz.graph import MIN_SCALE

    x, y, w, b, z, loss = tutorial_graph(torch)
    drawings = {
        "tutorial": draw_graph(loss),
        "tutorial, saved": draw_graph(loss, {"w": w, "b": b}, show_saved=True),
    }
    loss.backward(retain_graph=True)
    drawings["tutorial, saved, after backward"] = draw_graph(loss, show_saved=True)
    for name, drawing in drawings.items():
        html = drawing._repr_html_()
        assert _min_widths(html) == [pytest.approx(drawing.graph.width * MIN_SCALE, abs=1)]
        assert max(_min_widths(html)) <= OUTPUT_AREA_AT_1100_PX, f"{name} scrolls at 1100 px"
        assert_readable(drawing.graph)
    a1 = torch.tensor(1.5, requires_grad=True)
    a2 = torch.tensor(3.0, requires_grad=True)
    chains = {
        "model(1.5)": draw_graph(_notebook_4_model(a1)),
        "model(3.0)": draw_graph(_notebook_4_model(a2)),
    }
    # The two chains compare at a glance: each in one row, not folded.
    assert all(len({n.band for n in d.graph.nodes}) == 1 for d in chains.values())
    assert max(_min_widths(stack(chains)._repr_html_())) <= OUTPUT_AREA_AT_1100_PX
