"""BackwardStepper, driven from Python as a learner drives it with the mouse: press
the buttons, move the slider, and check at every step the graph's classes, the
panel's text and the leaves' ``.grad`` against the engine run straight through."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

import autogradkit as torch
from autogradkit.autograd.function import SECOND_BACKWARD_MESSAGE

widgets = pytest.importorskip("ipywidgets")
from graphs import tutorial_graph  # noqa: E402

from autogradkit.widgets import BackwardStepper  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


# -- graphs to step through: each returns (root, leaves by name, gradient or None) --------
def tutorial():
    graph = tutorial_graph()
    return graph.loss, {"w": graph.w, "b": graph.b}, None


def fan_out():
    a = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    h = a.exp()
    out = (h * a + h * h).sum()  # h feeds two products, a three places
    return out, {"a": a}, None


def reused_tensors():
    torch.manual_seed(1)
    w = torch.randn(3, 3, requires_grad=True)
    v = torch.randn(3, requires_grad=True)
    h = torch.matmul(w, v).tanh()
    h = torch.matmul(w, h).tanh()  # w used twice, h fed back
    return (h * v).sum(), {"w": w, "v": v}, None


def non_scalar():
    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    return out, {"inp": inp}, torch.ones_like(out)


def dynamic_control_flow():
    a = torch.tensor([0.5, 1.5], requires_grad=True)
    out = a
    for _i in range(3):
        out = out * 2 if out.sum().item() < 10 else out - 1
    return out.mean(), {"a": a}, None


class SinCos(torch.autograd.Function):
    """f(x) = (sin x, cos x), two outputs"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):  # type: ignore[override]  # one gradient per output
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


def several_outputs():
    x = torch.tensor([0.5, 1.0, 2.0, 3.0], requires_grad=True)
    a, b = x.split(2)
    s, c = SinCos.apply(a * b)
    return (s * 2).sum() + c.mean(), {"x": x}, None


def one_output_unused():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    s, _ = SinCos.apply(x)
    first, rest = x.chunk(2)
    return (s * 2).sum() + rest.sum(), {"x": x}, None


def inplace_through_views():
    a = torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], requires_grad=True)
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    c = a * 2
    r = c[1]  # regenerated as AsStridedBackward0 after the changes below
    c[0].mul_(3)  # c's history becomes CopySlices
    c[:, 1].add_(x)
    return (c * c).sum() + (r * r).sum(), {"a": a, "x": x}, None


GRAPHS = [
    tutorial,
    fan_out,
    reused_tensors,
    non_scalar,
    dynamic_control_flow,
    several_outputs,
    one_output_unused,
    inplace_through_views,
]


def reference_run(make):
    """The same program run straight through by the engine: the node order and
    every leaf's .grad after each step."""
    root, leaves, gradient = make()
    order, snapshots = [], []
    for step in torch.autograd.backward_steps(root, gradient):
        order.append(step.node.name())
        snapshots.append(
            {name: None if t.grad is None else t.grad.numpy().copy() for name, t in leaves.items()}
        )
    return order, snapshots


def grads(leaves):
    return {name: None if t.grad is None else t.grad.numpy().copy() for name, t in leaves.items()}


def assert_same_grads(actual, expected, where):
    assert actual.keys() == expected.keys()
    for name in actual:
        if expected[name] is None:
            assert actual[name] is None, f"{where}: {name}.grad should still be None"
        else:
            assert actual[name] is not None, f"{where}: {name}.grad should be set"
            np.testing.assert_array_equal(
                actual[name], expected[name], err_msg=f"{where}: {name}.grad"
            )


def svg_nodes(svg: str) -> dict[str, set[str]]:
    root = ET.fromstring(svg)
    return {
        g.get("data-node", ""): set(g.get("class", "").split())
        for g in root.iter(f"{SVG}g")
        if g.get("data-node") is not None
    }


def current_label(svg: str) -> str | None:
    current = [label for label, classes in svg_nodes(svg).items() if "current" in classes]
    assert len(current) <= 1, f"several nodes marked current: {current}"
    return current[0] if current else None


# -- stepping ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", GRAPHS, ids=lambda f: f.__name__)
def test_every_step_matches_the_engine_run_straight_through(make):
    order, snapshots = reference_run(make)
    root, leaves, gradient = make()
    stepper = BackwardStepper(root, params=leaves, gradient=gradient)
    assert stepper.total == len(order)
    assert current_label(stepper.svg) is None
    for k, expected_name in enumerate(order):
        stepper.step_button.click()
        assert stepper.position == k + 1
        record = stepper.steps[k]
        assert record.node.name() == expected_name
        box = stepper.graph.box_of[record.node]
        assert current_label(stepper.svg) == box.label
        done = {label for label, classes in svg_nodes(stepper.svg).items() if "done" in classes}
        earlier = {stepper.graph.box_of[s.node].label for s in stepper.steps[:k]}
        assert earlier <= done and box.label not in done
        assert box.label in stepper.panel.value
        assert_same_grads(grads(leaves), snapshots[k], f"after step {k + 1}")
        assert stepper.slider.value == stepper.play.value == k + 1
    assert stepper.finished and stepper.step() is None
    assert stepper.step_button.disabled


@pytest.mark.parametrize("make", GRAPHS, ids=lambda f: f.__name__)
def test_the_end_state_is_what_backward_stores(make):
    root, leaves, gradient = make()
    root.backward(gradient)
    expected = grads(leaves)
    root, leaves, gradient = make()
    stepper = BackwardStepper(root, params=leaves, gradient=gradient)
    stepper.run_to_end()
    assert_same_grads(grads(leaves), expected, "end")
    # ...and so is a walk there with detours.
    root, leaves, gradient = make()
    stepper = BackwardStepper(root, params=leaves, gradient=gradient)
    for press in ["step", "step", "back", "step", "reset", "step", "step", "step", "back"]:
        getattr(stepper, f"{press}_button").click()
    stepper.run_to_end()
    assert_same_grads(grads(leaves), expected, "end after detours")


@pytest.mark.parametrize("make", GRAPHS, ids=lambda f: f.__name__)
def test_back_undoes_exactly_what_each_step_did(make):
    order, snapshots = reference_run(make)
    root, leaves, gradient = make()
    stepper = BackwardStepper(root, params=leaves, gradient=gradient)
    stepper.run_to_end()
    for k in range(len(order) - 1, 0, -1):
        stepper.back_button.click()
        assert stepper.position == k
        assert_same_grads(grads(leaves), snapshots[k - 1], f"back to {k}")
        assert current_label(stepper.svg) == stepper.graph.box_of[stepper.steps[k - 1].node].label
    stepper.back()
    assert stepper.position == 0 and current_label(stepper.svg) is None
    assert all(g is None for g in grads(leaves).values())
    assert stepper.back_button.disabled and stepper.reset_button.disabled
    assert stepper.back() is None


def test_back_restores_grads_that_existed_before_the_pass():
    root, leaves, _ = tutorial()
    w = leaves["w"]
    w.grad = torch.full((5, 3), 7.0)
    stepper = BackwardStepper(root)
    stepper.run_to_end()
    assert not np.allclose(w.grad.numpy(), 7.0)
    stepper.reset()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((5, 3), 7.0, dtype=np.float32))


def test_the_slider_and_play_move_the_engine():
    order, snapshots = reference_run(tutorial)
    root, leaves, _ = tutorial()
    stepper = BackwardStepper(root)
    stepper.slider.value = 4
    assert stepper.position == 4
    assert_same_grads(grads(leaves), snapshots[3], "slider at 4")
    stepper.slider.value = 1
    assert stepper.position == 1 and stepper.play.value == 1
    # Play ticks in the browser; a jslink moves the slider, which the kernel follows.
    play_link = stepper._links[0]
    assert {play_link.source, play_link.target} == {
        (stepper.play, "value"),
        (stepper.slider, "value"),
    }
    stepper.slider.value = len(order)
    assert stepper.position == len(order) and stepper.play.value == len(order)
    stepper.play.value = 1  # a late echo of an earlier position (Run All)
    assert stepper.position == len(order), "Play's echo must not undo steps"
    assert_same_grads(grads(leaves), snapshots[-1], "after Play's echo")
    stepper.seek(0)
    assert stepper.slider.value == 0 and all(g is None for g in grads(leaves).values())
    with pytest.raises(ValueError, match="between 0 and 6"):
        stepper.seek(7)


def test_edges_that_carried_a_gradient_are_highlighted():
    loss, leaves, _ = tutorial()
    stepper = BackwardStepper(loss, params=leaves)

    def carried():
        tree = ET.fromstring(stepper.svg)
        return {
            (g.get("data-from"), g.get("data-to"))
            for g in tree.iter(f"{SVG}g")
            if "carried" in (g.get("class") or "").split()
        }

    assert carried() == set()
    stepper.step()  # BCE sends to z's AddBackward0 (y needs no gradient)
    assert carried() == {
        ("BinaryCrossEntropyWithLogitsBackward0", "loss"),
        ("AddBackward0", "BinaryCrossEntropyWithLogitsBackward0"),
    }
    stepper.step()  # Add sends to b and to the Squeeze
    assert {("b", "AddBackward0"), ("SqueezeBackward4", "AddBackward0")} <= carried()
    stepper.run_to_end()
    assert ("x", "MmBackward0") not in carried() and ("w", "MmBackward0") in carried()


# -- the panel ------------------------------------------------------------------------------
def test_the_panel_explains_each_step_of_the_tutorial():
    loss, leaves, _ = tutorial()
    stepper = BackwardStepper(loss, params=leaves)
    text = stepper.panel.value
    assert (
        "Step 0 of 6" in text
        and "starts from <b>loss</b>" in text
        and "Next: <b>BinaryCrossEntropyWithLogitsBackward0" in text
    )
    stepper.step()
    text = stepper.panel.value
    assert "Step 1 of 6: BinaryCrossEntropyWithLogitsBackward0" in text
    assert r"\sigma(z)" in text  # the local derivative, as maths
    assert "Gradient received []" in text and "1." in text
    assert "→ AddBackward0 [3]" in text  # z is not a variable here, so unnamed
    assert "nothing to 1 input that needs no gradient" in text  # y
    stepper.step()
    stepper.step()  # b's AccumulateGrad
    text = stepper.panel.value
    assert "b (AccumulateGrad)" in text and "b.grad =</code> [3]" in text
    b_grad = np.array2string(leaves["b"].grad.numpy(), precision=4, suppress_small=True)
    assert b_grad in text
    stepper.run_to_end()
    assert "w.grad =</code> [5, 3]" in stepper.panel.value and "Done." in stepper.panel.value


def test_a_second_pass_over_the_same_graph_accumulates_with_plus_equals():
    root, leaves, _ = tutorial()
    first = BackwardStepper(root, params=leaves, retain_graph=True)
    first.run_to_end()
    once = leaves["b"].grad.numpy().copy()
    second = BackwardStepper(root, params=leaves)
    second.run_to_end()
    np.testing.assert_allclose(leaves["b"].grad.numpy(), 2 * once)
    assert "w.grad +=</code>" in second.panel.value


# -- the graph is freed like backward() frees it ---------------------------------------------
def test_without_retain_graph_a_second_pass_raises_pytorchs_error():
    root, _, _ = tutorial()
    BackwardStepper(root).run_to_end()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        root.backward()
    again = BackwardStepper(root)
    with pytest.raises(RuntimeError) as error:
        again.step()
    assert str(error.value) == SECOND_BACKWARD_MESSAGE
    # Pressing the button shows the error instead of losing it in a log.
    again.step_button.click()
    assert "Trying to backward through the graph a second time" in again.panel.value
    assert again.step_button.disabled
    with pytest.raises(RuntimeError):
        again.step()


def test_with_retain_graph_the_graph_survives():
    root, leaves, _ = tutorial()
    BackwardStepper(root, retain_graph=True).run_to_end()
    once = leaves["w"].grad.numpy().copy()
    root.backward()
    np.testing.assert_allclose(leaves["w"].grad.numpy(), 2 * once, rtol=1e-6)


def test_bad_input_gets_pytorchs_errors():
    out = torch.ones(3, requires_grad=True) * 2
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        BackwardStepper(out)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        BackwardStepper(torch.ones(3).sum())
    with pytest.raises(TypeError, match="expects the tensor backward starts from"):
        BackwardStepper([out])  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        BackwardStepper(out, gradient=torch.ones(2))


# -- the plot area --------------------------------------------------------------------------
def plotted(stepper) -> dict[str, list[float] | None]:
    tree = ET.fromstring(stepper.plot_area.value)
    charts: dict[str, list[float] | None] = {}
    for g in tree.iter(f"{SVG}g"):
        name = g.get("data-tensor")
        if name is None:
            continue
        if "empty" in g.get("class").split():
            charts[name] = None
        else:
            charts[name] = [
                float(r.get("data-value") or "nan")
                for r in g.iter(f"{SVG}rect")
                if r.get("data-value")
            ]
    return charts


def test_the_plots_fill_in_as_gradients_arrive():
    root, leaves, _ = tutorial()
    stepper = BackwardStepper(root, params=leaves)
    assert plotted(stepper) == {"w": None, "b": None}
    stepper.seek(3)  # b's gradient has landed, w's not yet
    charts = plotted(stepper)
    assert charts["w"] is None
    assert charts["b"] is not None
    np.testing.assert_allclose(charts["b"], leaves["b"].grad.numpy(), rtol=1e-5)
    stepper.run_to_end()
    w_chart = plotted(stepper)["w"]
    assert w_chart is not None
    np.testing.assert_allclose(w_chart, leaves["w"].grad.numpy().ravel(), rtol=1e-5)
    stepper.back()
    assert plotted(stepper)["w"] is None


def test_params_choose_what_is_plotted_and_how_it_is_named():
    root, leaves, _ = tutorial()
    stepper = BackwardStepper(root, params={"bias": leaves["b"]})
    assert list(plotted(stepper)) == ["bias"]
    assert "bias" in svg_nodes(stepper.svg)


# -- where no widget frontend runs -----------------------------------------------------------
def test_static_fallback_shows_the_drawing_and_the_step():
    root, _, _ = tutorial()
    stepper = BackwardStepper(root)
    stepper.seek(2)
    bundle = stepper._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<BackwardStepper: step 2 of 6>"
    html = bundle["text/html"]
    images = [
        base64.b64decode(data).decode()
        for data in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    ]
    # Pictures as <img>, which survive sanitising; inline <svg> would not.
    assert images == [stepper.svg, stepper.plot_area.value] and "<svg" not in html
    assert "Step 2 of 6: AddBackward0" in html


def test_the_drawing_is_valid_svg_at_every_step():
    root, _, _ = tutorial()
    stepper = BackwardStepper(root)
    for _ in range(stepper.total + 1):
        for svg in (stepper.svg, stepper.plot_area.value):
            assert ET.fromstring(svg).tag == f"{SVG}svg"
        stepper.step()


# -- size ------------------------------------------------------------------------------------
def test_scale_enlarges_everything_shown():
    root, _, _ = tutorial()
    normal = BackwardStepper(root)
    root, _, _ = tutorial()
    big = BackwardStepper(root, scale=1.5)

    def size(svg):
        head = svg.split(">", 1)[0]
        return [float(v) for v in re.findall(r'\s(?:width|height)="([\d.]+)"', head)]

    for small, large in ((normal.svg, big.svg), (normal.plots_svg(), big.plots_svg())):
        assert size(large) == pytest.approx([1.5 * v for v in size(small)], abs=1)
        # The drawing itself is the same, only shown larger.
        assert small.split(">", 1)[1] == large.split(">", 1)[1]
    assert 'style="font-size:14px"' in normal.panel_html()
    assert 'style="font-size:21px"' in big.panel_html()
    assert big.step_button.layout.width == "120px" and normal.step_button.layout.width == "80px"
    wrongs: list[Any] = [0, 5, "2", True]
    for wrong in wrongs:
        with pytest.raises(ValueError, match=r"scale must be a number between 0\.5 and 3"):
            BackwardStepper(tutorial()[0], scale=wrong)


def test_a_wide_graph_folds_to_fit_a_notebook_and_shrinks_only_so_far():
    """Notebook 8's graph is 1,300 px in one row: the stepper folds it below FOLD_PX,
    so that at MIN_SCALE it fits JupyterLab's output area at 1100 px with the file
    browser open; the drawing shrinks with the page, but not below MIN_SCALE (then
    it scrolls), live and in the static picture alike."""
    from autogradkit.viz.graph import MIN_SCALE, build_graph, layout
    from autogradkit.widgets.stepper import FOLD_PX

    v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    first, second = v.split([2, 1])
    wave, _ = SinCos.apply(first)
    loss = (wave.sigmoid() * 3).sum() + second.sum()
    one_row = layout(build_graph(loss), fold_width=float("inf"))
    assert one_row.width > FOLD_PX  # one row: too wide
    stepper = BackwardStepper(loss, params={"v": v})
    assert stepper.graph.width <= FOLD_PX and len({n.band for n in stepper.graph.nodes}) == 2
    head = stepper.svg.split(">", 1)[0]
    assert "max-width:100%" in head
    assert f"min-width:{stepper.graph.width * MIN_SCALE:.0f}px" in head
    assert f"min-width:{stepper.graph.width * MIN_SCALE:.0f}px" in stepper.static_html()
    # A graph that fits is drawn as draw_graph draws it, in one row.
    small = BackwardStepper(fan_out()[0])
    assert len({n.band for n in small.graph.nodes}) == 1
    # Shown three times as large, the rows stay 500 px of drawing wide (three rows),
    # not 333 px slivers of a box or two (more rows would soon pass MAX_BANDS and hide
    # the middle of a graph in a summary box).
    big = BackwardStepper(loss, params={"v": v}, scale=3)
    assert len({n.band for n in big.graph.nodes}) == 3 and 400 < big.graph.width <= 500


def test_the_formula_is_shown_one_line_per_part():
    # Side by side, the loss's definition and its derivative need more width than a
    # notebook gives the panel; one display line each, they fit.
    root, _, _ = tutorial()
    stepper = BackwardStepper(root)
    stepper.step()
    formula = re.search(r'<div class="agk-formula">(.*?)</div>', stepper.panel_html(), re.S)
    assert formula is not None
    lines = re.findall(r"\$\$(.*?)\$\$", formula.group(1), re.S)
    assert len(lines) == 2 and all(r"\qquad" not in line for line in lines)
    assert "\\frac{\\sigma(z) - y}{N}" in lines[1]


def test_a_custom_function_with_two_outputs_and_split_are_drawn_and_stepped():
    """The learner's own backward runs as one step, named after their Function;
    its panel lists the gradient of each output (nothing reached c in the second
    graph) and says where each piece of split sends its gradient."""
    root, leaves, _ = one_output_unused()
    stepper = BackwardStepper(root)
    drawing = torch.viz.draw_graph(root)
    assert "SinCosBackward" in drawing.svg and "SplitBackward0" in drawing.svg
    panels = {}
    while stepper.step() is not None:
        record = stepper.steps[stepper.position - 1]
        panels[record.node.name()] = stepper.panel_html()
        assert ET.fromstring(stepper.svg).tag == f"{SVG}svg"
    custom = panels["SinCosBackward"]
    assert "Runs <code>SinCos.backward</code>: <i>f(x) = (sin x, cos x), two outputs</i>" in custom
    assert "Gradients received, one per output" in custom
    assert "output 1: nothing reached it" in custom
    split = panels["SplitBackward0"]
    assert "output 0: nothing reached it" in split and "output 1 [1]" in split
    assert 'class="agk-formula"' in split  # split states its derivative
    expected = 2 * np.cos(np.array([0.5, -1.0, 2.0], dtype=np.float32)) + [0, 0, 1]
    np.testing.assert_allclose(leaves["x"].grad.numpy(), expected, rtol=1e-6)
