"""A learner's tour, for people to look at (not a test): every notebook opened in a
fresh JupyterLab (file browser open, as it starts), screenshotted before running (as
committed: untrusted) and after Run All, at 1100 and 1400 px, page by page from the
top to the bottom of the notebook.

    python tests/e2e/tour.py              # every notebook; screenshots in tests/e2e/artifacts/tour/
    python tests/e2e/tour.py 01 04        # those whose names start so

Pages are ``NN-before-WIDTH-pKK.png`` and ``NN-after-WIDTH-pKK.png``. The tour also
lists what a learner would have to scroll sideways to see (an output wider than the
output area) and every output written to stderr, in ``report.txt`` beside them.

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
WIDTHS = (1100, 1400)
HEIGHT = 900

# Outputs whose content is wider than the output area, and stderr outputs, by cell.
_FINDINGS = """() => {
    const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    const cells = Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell'));
    const found = [];
    cells.forEach((cell, index) => {
        cell.querySelectorAll('.jp-OutputArea-output').forEach(output => {
            const area = output.getBoundingClientRect();
            for (const e of [output, ...output.querySelectorAll('*')]) {
                if (e.scrollWidth > e.clientWidth + 1
                    && /auto|scroll/.test(getComputedStyle(e).overflowX)) {
                    found.push(`cell ${index}: scrolls sideways (${e.scrollWidth} px in `
                               + `${e.clientWidth}): ${e.tagName.toLowerCase()}.${e.className}`);
                    break;
                }
                if (e.getBoundingClientRect().right > area.right + 2) {
                    found.push(`cell ${index}: sticks out of the output area: `
                               + `${e.tagName.toLowerCase()}.${e.className}`);
                    break;
                }
            }
            if (output.dataset.mimeType === 'application/vnd.jupyter.stderr') {
                found.push(`cell ${index}: stderr: ${output.textContent.slice(0, 120)}`);
            }
        });
    });
    return found;
}"""


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    report: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "notebooks", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        for source in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"):
            if not argv or source.name.startswith(tuple(argv)):
                shutil.copy2(source, root / source.name)
        server = _start_lab(root, home)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
                )
                for path in sorted(root.glob("*.ipynb")):
                    report += tour(browser, server, path.name)
                browser.close()
        finally:
            server.stop()
    (OUT / "report.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print("\n".join(report))
    print(f"screenshots in {OUT}")
    return 0


def tour(browser, server, name: str) -> list[str]:
    context = browser.new_context(viewport={"width": WIDTHS[-1], "height": HEIGHT})
    page = context.new_page()
    workspace = "tour-" + re.sub(r"\W", "-", name)
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={server.token}")
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").wait_for(timeout=KERNEL_TIMEOUT * 1000)
    wait_kernel_idle(page)
    stem = name[:2]
    report = pages(page, f"{stem}-before")
    click_menu(page, "Run", "Run All Cells")
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll(
               '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt'))
             .every(p => /\\[\\d+\\]/.test(p.textContent))""",
        timeout=KERNEL_TIMEOUT * 1000,
    )
    wait_kernel_idle(page)
    report += pages(page, f"{stem}-after")
    context.close()
    return report


def pages(page, prefix: str) -> list[str]:
    """Screenshots from the top of the notebook to its bottom at each width; what
    overflows there."""
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer")
    report = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        page.mouse.move(0, 0)  # no hover highlight in the pictures
        top, number = 0, 1
        while True:
            notebook.evaluate("(n, top) => n.scrollTo(0, top)", top)
            page.screenshot(path=str(OUT / f"{prefix}-{width}-p{number:02d}.png"))
            # Done when the last cell is in view (below it is only JupyterLab's padding).
            view, done = notebook.evaluate(
                """n => [n.clientHeight, Array.from(n.querySelectorAll('.jp-Cell')).pop()
                         .getBoundingClientRect().bottom <= n.getBoundingClientRect().bottom]"""
            )
            if done:
                break
            top, number = top + int(view * 0.9), number + 1
        report += [f"{prefix}-{width}: {finding}" for finding in page.evaluate(_FINDINGS)]
    return report


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
