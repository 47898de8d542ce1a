"""Voilà smoke test: the stepper notebook served as an app renders the live stepper
and no code."""

from __future__ import annotations

import re

import nbformat
import pytest
from e2e_support import (
    KERNEL_TIMEOUT,
    LAYOUT,
    STEPPER_NOTEBOOK,
    TEST_TIMEOUT,
    UI_TIMEOUT,
    check_layout,
    expected_for,
    expects_error,
    poll,
    save_screenshot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(TEST_TIMEOUT)]


def test_stepper_renders_in_voila_without_code(page, voila_server, notebook_dir):
    notebook = notebook_dir / STEPPER_NOTEBOOK
    expected = expected_for(notebook)["steppers"][0]

    # Voilà runs the whole notebook before (or while) it sends the page.
    page.goto(f"{voila_server.url}/?token={voila_server.token}", timeout=KERNEL_TIMEOUT * 1000)
    widget = page.locator(".jp-OutputArea-output:has(.agk-stepper-graph)").first
    graph = widget.locator(".agk-stepper-graph svg.agk-graph")
    graph.wait_for(timeout=KERNEL_TIMEOUT * 1000)
    assert graph.is_visible()
    save_screenshot(page, "voila-stepper-page")

    # No code: no input areas, prompts or editors, and not the text of any code cell.
    # (Markdown cells keep their .jp-InputArea: it holds the rendered text.)
    for selector in (
        ".jp-CodeCell .jp-InputArea",
        ".jp-CodeCell .jp-InputPrompt",
        ".jp-CodeMirrorEditor",
        ".cm-editor",
        ".jp-InputArea-editor",
    ):
        assert page.locator(selector).count() == 0, f"Voilà shows {selector}"
    body = page.locator("body").inner_text()
    cells = nbformat.read(notebook, as_version=4).cells
    code_cells = [
        cell.source.strip()
        for cell in cells
        if cell.cell_type == "code" and "\n" in cell.source.strip()
    ]
    shown = [source for source in code_cells if source in body]
    assert not shown, f"Voilà shows the code of a cell:\n{shown[0]}"
    # Errors only where the notebook means one (cells tagged raises-exception), and
    # those read well: the message and the learner's line, not Voilà's generic box
    # nor autogradkit's internals.
    errors = page.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        has_text=re.compile(r"Traceback \(most recent call last\)"),
    )
    intended = sum(expects_error(cell) for cell in cells)
    assert intended and errors.count() == intended, errors.all_inner_texts()
    assert "There was an error when executing cell" not in body
    for text in errors.all_inner_texts():
        assert "autogradkit/" not in text and "inside autogradkit hidden" in text, text
        assert len(text.strip().splitlines()) < 12, text
    assert "RuntimeError: Trying to backward through the graph a second time" in body

    # It is live: Reset, then one Step makes the engine's first node current.
    reset = widget.locator("button.widget-button", has_text=re.compile(r"^\s*Reset\s*$"))
    step = widget.locator("button.widget-button", has_text=re.compile(r"^\s*Step\s*$"))
    readout = widget.locator(
        ".widget-slider", has=page.locator(".widget-label", has_text=re.compile("^step$"))
    ).locator(".widget-readout")
    current = graph.locator("g.node.current")
    if not reset.is_disabled():
        reset.click()
    # The step slider's update comes last: wait for it too, or the click below could
    # race the browser's stale echo of it (see test_lab.py's xfail).
    poll(
        lambda: current.count() == 0 and readout.inner_text().strip() == "0",
        UI_TIMEOUT,
        "Reset to go back to step 0",
    )
    step.click()
    first = expected["positions"][1]["current"]
    poll(
        lambda: current.count() == 1 and current.get_attribute("data-node") == first,
        UI_TIMEOUT,
        f"{first!r} to be current after one Step",
    )
    assert "Step 1 of" in widget.locator(".agk-stepper-panel").inner_text()
    save_screenshot(widget, "voila-stepper-step1")

    # The formula of step 1 is whole and uncovered from a small laptop to a wide screen.
    for width in (1000, 1600):
        page.set_viewport_size({"width": width, "height": 1000})
        widget.scroll_into_view_if_needed()
        poll(
            lambda: widget.evaluate(LAYOUT)["formula"] is not None,
            UI_TIMEOUT,
            "the formula of step 1",
        )
        check_layout(widget.evaluate(LAYOUT), f"Voilà at {width} px")
        save_screenshot(widget, f"voila-stepper-layout-{width}")
    assert not page.errors, f"JavaScript errors in the page: {page.errors}"
