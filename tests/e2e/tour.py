"""A learner's tour, for people to look at (not a test): every notebook opened in a
fresh JupyterLab, screenshotted before running (as committed: untrusted) and after
Run All, at 1100 and 1400 px.

    python tests/e2e/tour.py            # screenshots in tests/e2e/artifacts/tour/

Uses the end-to-end tests' helpers (Chromium at /usr/bin/chromium, Playwright)."""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import _start_lab
from e2e_support import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, KERNEL_TIMEOUT, NOTEBOOKS
from test_lab import click_menu, wait_kernel_idle

OUT = ARTIFACTS / "tour"


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "notebooks", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        for source in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"):
            shutil.copy2(source, root / source.name)
        server = _start_lab(root, home)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
                )
                for path in sorted(root.glob("*.ipynb")):
                    tour(browser, server, path.name)
                browser.close()
        finally:
            server.stop()
    print(f"screenshots in {OUT}")
    return 0


def tour(browser, server, name: str) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    workspace = "tour-" + re.sub(r"\W", "-", name)
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={server.token}")
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").wait_for(timeout=KERNEL_TIMEOUT * 1000)
    wait_kernel_idle(page)
    stem = name[:2]
    for width in (1400, 1100):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(OUT / f"{stem}-before-{width}.png"))
    page.set_viewport_size({"width": 1400, "height": 900})
    click_menu(page, "Run", "Run All Cells")
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll(
               '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt'))
             .every(p => /\\[\\d+\\]/.test(p.textContent))""",
        timeout=KERNEL_TIMEOUT * 1000,
    )
    wait_kernel_idle(page)
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer")
    for width in (1400, 1100):
        page.set_viewport_size({"width": width, "height": 900})
        notebook.evaluate("n => n.scrollTo(0, 0)")
        page.screenshot(path=str(OUT / f"{stem}-after-{width}.png"))
        widgets = page.locator(".jp-OutputArea-output:has(.widget-button, .agk-jacobian)")
        if widgets.count():
            widgets.first.scroll_into_view_if_needed()
            page.screenshot(path=str(OUT / f"{stem}-after-{width}-widget.png"))
        errors = page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        )
        if errors.count():
            errors.first.scroll_into_view_if_needed()
            page.screenshot(path=str(OUT / f"{stem}-after-{width}-error.png"))
    context.close()


if __name__ == "__main__":
    sys.exit(main())
