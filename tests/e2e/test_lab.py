"""The stepper, the Jacobian explorer and the forward/reverse explorer in a real JupyterLab, in headless Chromium.

Each test opens its notebook (from the cleared copy the lab server serves), runs
every cell with the menu Run → Run All Cells, waits for the kernel to finish, then
presses the widget's controls like a reader would and checks the DOM against what
the same widget objects show when the notebook runs outside the browser
(:func:`e2e_support.expected_for`)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from e2e_support import (
    ARTIFACTS,
    JACOBIAN_NOTEBOOK,
    KERNEL_TIMEOUT,
    LAYOUT,
    MODES_NOTEBOOK,
    STEPPER_NOTEBOOK,
    TEST_TIMEOUT,
    UI_TIMEOUT,
    check_layout,
    close_page,
    expected_for,
    expects_error,
    new_page,
    poll,
    save_screenshot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(TEST_TIMEOUT)]


# ------------------------------------------------------------------ JupyterLab helpers
def open_notebook(page, server, name: str):
    # A workspace of its own, reset: each page shows only its notebook, whatever
    # another page (test) left open in the server-side default workspace.
    workspace = "agk-" + re.sub(r"\W", "-", name)
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={server.token}")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.wait_for(timeout=KERNEL_TIMEOUT * 1000)
    # Collapse the file browser: more room for the widgets (and the screenshots).
    left_tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if left_tab.count():
        left_tab.first.click()
    wait_kernel_idle(page)
    return panel


def wait_kernel_idle(page) -> None:
    """The notebook's execution indicator and the status bar both say the kernel is idle."""
    page.wait_for_function(
        """() => {
            const indicator = document.querySelector(
                '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
            const bar = document.querySelector('#jp-main-statusbar');
            return indicator !== null && indicator.dataset.status === 'idle'
                && bar !== null && /\\|\\s*Idle/.test(bar.textContent);
        }""",
        timeout=KERNEL_TIMEOUT * 1000,
    )


def click_menu(page, menu: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(menu)}$")).click()
    page.locator(
        ".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel",
        has_text=re.compile(f"^{re.escape(item)}$"),
    ).click()


def save_notebook(page) -> None:
    """File → Save Notebook. The menu, not Ctrl+S: a key press goes to whatever has
    the focus, and after typing into a widget (the Jacobian explorer's readout) the
    widget may keep it, so that JupyterLab never sees the shortcut and nothing is
    saved. The menu command always reaches the current notebook."""
    click_menu(page, "File", "Save Notebook")


_CELL_STATE = """() => {
    const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    return Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell')).map(cell => ({
        code: cell.classList.contains('jp-CodeCell'),
        prompt: (cell.querySelector('.jp-InputArea-prompt') || {textContent: ''}).textContent.trim(),
        source: (cell.querySelector('.cm-content') || {textContent: ''}).textContent,
        stderr: Array.from(cell.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')).map(e => e.textContent),
    }));
}"""

_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|^\s*\w*(Error|Exception)\b", re.MULTILINE
)


def run_all_cells(page, notebook_path) -> None:
    """Run → Run All Cells; wait until every non-empty code cell has an execution
    count and the kernel is idle; fail on any cell showing an error (except cells
    tagged raises-exception)."""
    import nbformat

    cells = nbformat.read(notebook_path, as_version=4).cells
    click_menu(page, "Run", "Run All Cells")

    def settled():
        state = page.evaluate(_CELL_STATE)
        if any(any(_TRACEBACK.search(text) for text in cell["stderr"]) for cell in state):
            return state  # stop waiting: an error stops Run All
        done = all(
            re.fullmatch(r"\[\d+\]:", cell["prompt"])
            for cell in state
            if cell["code"] and cell["source"].strip()
        )
        return state if done else None

    state = poll(
        settled, KERNEL_TIMEOUT, "Run All Cells to finish (every code cell numbered)", 0.25
    )
    assert len(state) == len(cells), (
        f"the DOM shows {len(state)} cells, the notebook has {len(cells)}"
    )
    for index, (shown, cell) in enumerate(zip(state, cells)):
        if expects_error(cell):
            continue
        tracebacks = [text for text in shown["stderr"] if _TRACEBACK.search(text)]
        assert not tracebacks, (
            f"cell {index} shows an error in JupyterLab:\n{tracebacks[0][-2000:]}"
        )
    wait_kernel_idle(page)


def saved_error_outputs(page, name: str, served_path) -> list[str]:
    """Save the notebook (``served_path``, the copy the server serves, never the
    repository's) and return the error outputs the saved file holds."""
    import nbformat

    before = served_path.stat().st_mtime_ns
    save_notebook(page)
    seen: dict[str, object] = {"modified": False, "outputs": None}

    def saved():
        # The file itself, not the contents API: polling the API makes the busy
        # server check the notebook's trust and validate it on every call.
        if served_path.stat().st_mtime_ns == before:
            return None
        try:
            nb = nbformat.read(served_path, as_version=4)
        except (ValueError, OSError):  # caught mid-write: read it again
            return None
        outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
        seen["modified"] = True
        seen["outputs"] = [sorted(o.get("data", {})) or o["output_type"] for o in outputs]
        widget = "application/vnd.jupyter.widget-view+json"
        return nb.cells if any(widget in o.get("data", {}) for o in outputs) else None

    cells = poll(
        saved,
        UI_TIMEOUT,
        lambda: f"{name} to be saved with its widget outputs (last seen: {seen})",
        0.5,
    )
    return [
        f"cell {i}: {o['ename']}: {o['evalue']}"
        for i, cell in enumerate(cells)
        if cell.cell_type == "code" and not expects_error(cell)
        for o in cell.outputs
        if o["output_type"] == "error"
    ]


# ------------------------------------------------------------------ the stepper
class StepperView:
    """The first BackwardStepper of the stepper notebook, as JupyterLab shows it."""

    def __init__(self, page, expected: dict) -> None:
        self.page = page
        self.total, self.start = expected["total"], expected["start"]
        self.positions = expected["positions"]
        self.widget = page.locator(".jp-OutputArea-output:has(.agk-stepper-graph)").first
        self.graph = self.widget.locator(".agk-stepper-graph svg.agk-graph")
        self.panel = self.widget.locator(".agk-stepper-panel")
        self.plots = self.widget.locator(".agk-stepper-plots")
        self.slider = self.widget.locator(
            ".widget-slider", has=page.locator(".widget-label", has_text=re.compile("^step$"))
        )

    def click_and_time_redraw(self, name: str, label: str | None) -> float:
        """Click a button; return the ms until the graph marks ``label`` current,
        timed in the page (from the click event to the DOM change)."""
        self.graph.evaluate(
            """(svg, label) => {
            const view = svg.closest('.agk-stepper-graph');
            window.__agkRedraw = new Promise(resolve => {
                let start = null;
                document.addEventListener('click', () => { start = performance.now(); },
                                          {capture: true, once: true});
                const shown = () => {
                    const current = view.querySelector('g.node.current');
                    return label === null ? current === null : current?.dataset.node === label;
                };
                const observer = new MutationObserver(() => {
                    if (start !== null && shown()) { observer.disconnect(); resolve(performance.now() - start); }
                });
                observer.observe(view, {subtree: true, childList: true, attributes: true});
            });
        }""",
            label,
        )
        self.button(name).click()
        return float(self.page.evaluate("() => window.__agkRedraw"))

    def button(self, name: str):
        # By text, not by accessible name: Chromium counts the Font Awesome icon's
        # CSS glyph into the name.
        return self.widget.locator("button.widget-button", has_text=re.compile(rf"^\s*{name}\s*$"))

    def shown_position(self) -> int:
        return int(self.slider.locator(".widget-readout").inner_text())

    def check_position(self, k: int) -> None:
        """After k steps: exactly one node is current, the one the engine ran k-th;
        the ones it ran before are done; the panel says "Step k of N" and names the
        node; the step slider shows k; the plot area shows a picture."""
        positions, graph = self.positions, self.graph
        current = graph.locator("g.node.current")
        if positions[k]["current"] is None:
            poll(lambda: current.count() == 0, UI_TIMEOUT, f"no current node at step {k}")
        else:
            label = positions[k]["current"]
            poll(
                lambda: current.count() == 1 and current.get_attribute("data-node") == label,
                UI_TIMEOUT,
                f"node {label!r} to be current at step {k}",
            )
            for earlier in positions[1:k]:
                if earlier["current"] != label:
                    node = graph.locator(f'g.node[data-node="{earlier["current"]}"]')
                    assert "done" in node.get_attribute("class").split(), (
                        f"{earlier['current']} ran before step {k} but is not drawn as done"
                    )
        # The slider too: its update (and the Play widget's, linked to it in the
        # browser) must have arrived before the next click, or a stale echo of it
        # would move the stepper (see test_run_all_leaves_the_stepper_where_the_notebook_did).
        poll(lambda: self.shown_position() == k, UI_TIMEOUT, f"the step slider to show {k}")
        text = self.panel.inner_text()
        assert f"Step {k} of {self.total}" in text, f"panel at step {k} says:\n{text}"
        if positions[k]["label"] is not None:
            assert positions[k]["label"] in text, (
                f"panel at step {k} does not name the node:\n{text}"
            )
        image = self.plots.locator("svg, img").first
        assert image.is_visible(), "the plot area shows no image"
        box = image.bounding_box()
        assert box and box["width"] > 20 and box["height"] > 20, f"the plot image is {box}"


@pytest.fixture(scope="module")
def stepper_lab(browser, lab_server, notebook_dir):
    """The stepper notebook opened in JupyterLab and run with Run All Cells (once per
    module); yields the view and the position it showed right after Run All."""
    notebook = notebook_dir / STEPPER_NOTEBOOK
    expected = expected_for(notebook)
    assert expected["steppers"], f"{STEPPER_NOTEBOOK} displays no BackwardStepper"
    page = new_page(browser)
    open_notebook(page, lab_server, STEPPER_NOTEBOOK)
    run_all_cells(page, notebook)
    view = StepperView(page, expected["steppers"][0])
    view.widget.wait_for(timeout=UI_TIMEOUT * 1000)
    view.widget.scroll_into_view_if_needed()
    after_run_all = view.shown_position()
    yield view, after_run_all
    close_page(page)


def test_backward_stepper_in_jupyterlab(stepper_lab, lab_server, notebook_dir):
    view, _ = stepper_lab
    page, positions, total = view.page, view.positions, view.total

    # The drawing in the browser is the drawing the test computed.
    shown_nodes = sorted(
        set(
            view.graph.locator("g[data-node]").evaluate_all(
                "nodes => nodes.map(n => n.dataset.node)"
            )
        )
    )
    assert shown_nodes == positions[0]["nodes"], "the browser shows a different graph"

    # A reader starts from the beginning: Reset, Step ×4 (fewer if the pass is
    # shorter), Back once.
    if view.shown_position() != 0:
        view.button("Reset").click()
    view.check_position(0)
    save_screenshot(view.widget, "lab-stepper-00")
    forward = min(4, total)
    redraw_ms = []
    for k in range(1, forward + 1):
        redraw_ms.append(view.click_and_time_redraw("Step", positions[k]["current"]))
        view.check_position(k)
        save_screenshot(view.widget, f"lab-stepper-{k:02d}")
    # Reported, not asserted (speed targets live in benchmarks/): what a learner
    # waits between clicking Step and seeing the next node marked.
    report = f"Step click → graph redrawn in the browser: {', '.join(f'{ms:.0f}' for ms in redraw_ms)} ms"
    print(f"\n[e2e] {report}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "stepper-latency.txt").write_text(report + "\n")
    page.mouse.move(0, 0)  # no hover highlight in the picture
    # The tutorial's graph fits the width of a laptop's JupyterLab (1400 px) without
    # scrolling: the loss end, where the pass starts, must be visible.
    assert view.widget.locator(".agk-stepper-graph").evaluate(
        "box => box.scrollWidth <= box.clientWidth + 1"
    ), "the graph does not fit: it scrolls sideways"
    save_screenshot(view.widget, "lab-stepper-midway")  # the README's docs/images/stepper.png
    save_screenshot(page, "lab-stepper-page")
    view.button("Back").click()
    view.check_position(forward - 1)
    save_screenshot(view.widget, f"lab-stepper-back-to-{forward - 1:02d}")

    assert not saved_error_outputs(page, STEPPER_NOTEBOOK, notebook_dir / STEPPER_NOTEBOOK)
    assert not page.errors, f"JavaScript errors in the page: {page.errors}"


def test_run_all_leaves_the_stepper_where_the_notebook_did(stepper_lab):
    """Under Run All, the browser echoes positions the kernel has already left
    behind (Play follows the slider through a jslink); the stepper must not act on
    them, or it would rewind the leaves' .grad that later cells printed."""
    view, after_run_all = stepper_lab
    assert after_run_all == view.start, (
        f"after Run All the stepper shows step {after_run_all}; the notebook left it at step "
        f"{view.start} (as nbclient, without a browser, runs it)"
    )


# ------------------------------------------------------------------ the Jacobian explorer
def _numbers(table) -> np.ndarray:
    return np.array([float(text) for text in table.locator("td").all_inner_texts()])


def test_jacobian_explorer_in_jupyterlab(page, lab_server, notebook_dir):
    notebook = notebook_dir / JACOBIAN_NOTEBOOK
    expected = expected_for(notebook)
    assert expected["explorers"], f"{JACOBIAN_NOTEBOOK} displays no JacobianExplorer"
    explorer = expected["explorers"][0]
    J = np.array(explorer["jacobian"])
    v = np.array(explorer["v"])
    labels = explorer["output_labels"]

    page.set_viewport_size({"width": 1400, "height": 1800})  # room for J, sliders and results
    open_notebook(page, lab_server, JACOBIAN_NOTEBOOK)
    run_all_cells(page, notebook)

    widget = page.locator(".jp-OutputArea-output:has(table.agk-jacobian)").first
    widget.wait_for(timeout=UI_TIMEOUT * 1000)
    results = widget.locator(".agk-jacobian-results")
    backward_table = results.locator("table.agk-vjp-backward")
    explicit_table = results.locator("table.agk-vjp-explicit")
    v_table = results.locator("table.agk-v")
    verdict = results.locator(".agk-verdict")
    sliders = widget.locator(".widget-slider")
    assert sliders.locator(".widget-label").all_inner_texts() == explorer["slider_labels"], (
        "the browser shows a different explorer"
    )

    def check(v: np.ndarray, what: str) -> None:
        """The tables show v, vᵀJ by backward and by NumPy (3 significant digits)."""
        want = v @ J
        poll(
            lambda: np.allclose(_numbers(backward_table), want, rtol=6e-3, atol=1e-3) or None,
            UI_TIMEOUT,
            f"vᵀJ = {np.round(want, 3).tolist()} after {what} "
            f"(shown: {backward_table.locator('td').all_inner_texts()})",
        )
        assert np.allclose(_numbers(explicit_table), want, rtol=6e-3, atol=1e-3)
        assert np.allclose(_numbers(v_table), v, rtol=6e-3, atol=1e-3)
        assert verdict.inner_text().startswith("equal"), (
            f"verdict after {what}: {verdict.inner_text()}"
        )

    assert np.allclose(_numbers(backward_table), explorer["vjp_backward"], rtol=6e-3, atol=1e-3)
    check(v, "running the notebook")
    save_screenshot(widget, "lab-jacobian-initial")

    # Keyboard on the first slider's handle: each ArrowRight is one step (0.1).
    before = _numbers(backward_table)  # read before the keys: the page may update at once
    first = sliders.first
    before = _numbers(backward_table)  # read before the keys: the kernel may answer at once
    first.locator(".noUi-handle").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    flat = 0 if explorer["many"] else labels.index(explorer["slider_labels"][0])
    v = v.copy()
    v[flat] = round(v[flat] + 0.2, 10)
    check(v, f"ArrowRight ×3, ArrowLeft on {explorer['slider_labels'][0]}")
    assert not np.allclose(_numbers(backward_table), before), "vᵀJ did not change"

    # Typing into another slider's readout.
    if not explorer["many"] and len(labels) > 1:
        index = min(2, len(labels) - 1)
        readout = sliders.nth(index).locator(".widget-readout")
        readout.click()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type("-0.5")
        page.keyboard.press("Enter")
        v[labels.index(explorer["slider_labels"][index])] = -0.5
        check(v, f"typing -0.5 into the readout of {explorer['slider_labels'][index]}")
    save_screenshot(widget, "lab-jacobian-moved")

    assert not saved_error_outputs(page, JACOBIAN_NOTEBOOK, notebook)
    assert not page.errors, f"JavaScript errors in the page: {page.errors}"


# ------------------------------------------------------------------ forward and reverse mode
def test_forward_reverse_explorer_in_jupyterlab(page, lab_server, notebook_dir):
    """Reset and Step on each side: the node the pass ran last is marked current, the
    ones before done, and J fills in as the kernel says; choosing another seed starts
    its pass from the beginning."""
    notebook = notebook_dir / MODES_NOTEBOOK
    expected = expected_for(notebook)
    assert expected["modes"], f"{MODES_NOTEBOOK} displays no ForwardReverseExplorer"
    open_notebook(page, lab_server, MODES_NOTEBOOK)
    run_all_cells(page, notebook)
    widget = page.locator(".jp-OutputArea-output:has(.agk-forward-side)").first
    widget.wait_for(timeout=UI_TIMEOUT * 1000)
    widget.scroll_into_view_if_needed()
    save_screenshot(widget, "lab-modes-after-run-all")
    for name in ("forward", "reverse"):
        ModesSide(widget, name, expected["modes"][0][name]).drive()
    save_screenshot(widget, "lab-modes-driven")
    assert not page.errors, f"JavaScript errors in the page: {page.errors}"


class ModesSide:
    """One side (forward or reverse) of the first ForwardReverseExplorer."""

    def __init__(self, widget, name: str, want: dict) -> None:
        self.name, self.want = name, want
        self.side = widget.locator(f".agk-{name}-side")
        self.graph = self.side.locator(f".agk-{name}-graph svg.agk-graph")
        self.known = self.side.locator(f".agk-{name}-jacobian td.agk-known")
        self.panel = self.side.locator(f".agk-{name}-panel")

    def button(self, label: str):
        return self.side.locator("button.widget-button", has_text=re.compile(rf"^\s*{label}\s*$"))

    def check(self, k: int) -> None:
        position, name = self.want["positions"][k], self.name
        current = self.graph.locator("g.node.current")
        if position["current"] is None:
            poll(lambda: current.count() == 0, UI_TIMEOUT, f"{name}: nothing current at 0")
        else:
            poll(
                lambda: (
                    current.count() == 1
                    and current.get_attribute("data-node") == position["current"]
                ),
                UI_TIMEOUT,
                f"{name}: {position['current']!r} current at step {k}",
            )
        done = self.graph.locator("g.node.done").evaluate_all("gs => gs.map(g => g.dataset.node)")
        assert sorted(done) == position["done"], f"{name} at step {k}: done {done}"
        assert self.known.count() == position["known"], f"{name} at step {k}: cells of J known"
        assert f"Step {k} of {self.want['total']}" in self.panel.inner_text()

    def drive(self) -> None:
        if self.want["start"] != 0:
            self.button("Reset").click()
        self.check(0)
        last = min(3, self.want["total"])
        for k in range(1, last + 1):
            self.button("Step").click()
            self.check(k)
        save_screenshot(self.side, f"lab-modes-{self.name}-step-{last}")
        self.button("Back").click()
        self.check(last - 1)
        # Another seed: its pass starts again from step 0.
        labels = self.want["seed_labels"]
        other = labels[(self.want["seed"] + 1) % len(labels)][0]
        self.side.locator("select").select_option(label=other)
        poll(
            lambda: "Step 0 of" in self.panel.inner_text() and other in self.panel.inner_text(),
            UI_TIMEOUT,
            f"{self.name}: the pass seeded on {other} at step 0",
        )


# ------------------------------------------------------------------ the stepper's layout
@pytest.mark.parametrize("width", [1000, 1100, 1400, 1600])
def test_stepper_layout_keeps_the_formula_in_view(stepper_lab, width):
    """At step 1 (the loss's local derivative, the heart of the lesson) the formula is
    shown whole, nothing covers it, nothing is cut off, and the text is readable."""
    view, _ = stepper_lab
    page = view.page
    page.set_viewport_size({"width": width, "height": 1000})
    if view.shown_position() != 0:
        view.button("Reset").click()
    view.check_position(0)
    view.button("Step").click()
    view.check_position(1)
    view.widget.scroll_into_view_if_needed()
    layout = view.widget.evaluate(LAYOUT)
    save_screenshot(view.widget, f"lab-stepper-layout-{width}")
    check_layout(layout, f"JupyterLab at {width} px")
