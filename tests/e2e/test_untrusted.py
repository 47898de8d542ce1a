"""The notebooks as a fresh clone shows them: opened in JupyterLab without running
anything (untrusted, so JupyterLab cleans their saved HTML), and exported to HTML
with nbconvert and opened offline. Every drawing must show as a picture.

A drawing counts as shown when its ``<img>`` has loaded (``naturalWidth > 0``) and
is at least 40 px wide on the page. What must be shown is read from the saved
files: every ``<img>`` in a text/html output and every image/png output (plots)."""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat
import pytest
from e2e_support import (
    CANARY_NOTEBOOK,
    KERNEL_TIMEOUT,
    NOTEBOOKS,
    TEST_TIMEOUT,
    UI_TIMEOUT,
    poll,
    save_screenshot,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(TEST_TIMEOUT)]

SAVED = sorted(path.name for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
# Text that only an SVG drawing contains (its boxes' tooltips): shown as words, it
# means a drawing was flattened to text.
FLATTENED_SVG = re.compile(r"output shape \[|requires_grad=(True|False)\n")


def expected_pictures(path) -> int:
    """How many pictures the saved notebook holds."""
    nb = nbformat.read(path, as_version=4)
    count = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                count += 1
            elif "text/html" in data:
                count += len(re.findall(r"<img\b", data["text/html"]))
    return count


WIDGET_REPRS = ("<BackwardStepper", "<JacobianExplorer", "<ForwardReverseExplorer")


def shows_a_widget(path) -> bool:
    """Whether a cell of the saved notebook displays a widget (its static picture)."""
    nb = nbformat.read(path, as_version=4)
    return any(
        output.get("data", {}).get("text/plain", "").startswith(WIDGET_REPRS)
        for cell in nb.cells
        for output in cell.get("outputs", [])
    )


_SHOWN = """(root) => Array.from(root.querySelectorAll('img')).filter(
    img => img.complete && img.naturalWidth > 0 && img.getBoundingClientRect().width >= 40
).length"""


# Pictures a reader would have to scroll sideways to see whole: an element between
# the picture and its output area that scrolls, or a picture sticking out of it.
_SCROLLING_PICTURES = """(root) => Array.from(root.querySelectorAll('.jp-OutputArea-output img'))
    .map(img => {
        const output = img.closest('.jp-OutputArea-output');
        for (let e = img.parentElement; e !== output; e = e.parentElement) {
            if (e.scrollWidth > e.clientWidth + 1) {
                return `${e.className} scrolls: ${e.scrollWidth} px in ${e.clientWidth}`;
            }
        }
        const over = img.getBoundingClientRect().right - output.getBoundingClientRect().right;
        return over > 1 ? `${img.alt.slice(0, 60)} sticks out by ${over} px` : null;
    }).filter(Boolean)"""


def _open_without_running(page, server, name: str):
    workspace = "agk-untrusted-" + re.sub(r"\W", "-", name)
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={server.token}")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.wait_for(timeout=KERNEL_TIMEOUT * 1000)
    return panel


def test_the_test_sees_an_untrusted_notebook(page, saved_lab_server):
    # Inline SVG in saved HTML is removed (its words stay): so the pages below are
    # as untrusted as a fresh clone's, and their pictures survive that cleaning.
    panel = _open_without_running(page, saved_lab_server, CANARY_NOTEBOOK)
    poll(lambda: "canary-text" in panel.inner_text(), UI_TIMEOUT, "the canary's output")
    assert panel.locator("svg.agk-canary").count() == 0, "saved HTML was not sanitised"


@pytest.mark.parametrize("name", SAVED)
def test_every_drawing_is_a_picture_before_running(
    page, saved_lab_server, saved_notebook_dir, name
):
    expected = expected_pictures(saved_notebook_dir / name)
    panel = _open_without_running(page, saved_lab_server, name)
    outputs = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
    if expected:
        poll(
            lambda: outputs.evaluate(_SHOWN) >= expected,
            UI_TIMEOUT,
            f"{expected} pictures in {name} (shown: {outputs.evaluate(_SHOWN)})",
        )
    assert outputs.evaluate(_SHOWN) == expected
    text = panel.locator(".jp-OutputArea").all_inner_texts()
    flattened = [t for t in text if FLATTENED_SVG.search(t)]
    assert not flattened, f"{name}: a drawing shows as text:\n{flattened[0][:300]}"
    save_screenshot(page, f"untrusted-{name[:2]}-first-screen")
    pictures = panel.locator(".jp-OutputArea-output:has(img)")
    if pictures.count():
        pictures.last.scroll_into_view_if_needed()
        save_screenshot(pictures.last, f"untrusted-{name[:2]}-last-picture")

    # A laptop's JupyterLab, 1100 px wide with the file browser open: every picture
    # fits the output area (wide graphs fold; shrunk no further than is readable).
    page.set_viewport_size({"width": 1100, "height": 1000})
    poll(
        lambda: panel.evaluate("p => p.getBoundingClientRect().right <= window.innerWidth"),
        UI_TIMEOUT,
        "JupyterLab to lay the notebook out at 1100 px",
    )
    assert page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").count()
    scrolling = outputs.evaluate(_SCROLLING_PICTURES)
    if pictures.count():
        save_screenshot(pictures.first, f"untrusted-{name[:2]}-first-picture-1100")
    assert not scrolling, f"{name} at 1100 px: pictures to scroll sideways: {scrolling}"


@pytest.fixture(scope="module")
def html_exports(saved_notebook_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(out)]
        + [str(saved_notebook_dir / name) for name in SAVED],
        check=True,
        capture_output=True,
        timeout=KERNEL_TIMEOUT,
    )
    return out


@pytest.mark.parametrize("name", SAVED)
def test_every_drawing_is_a_picture_in_an_offline_html_export(
    page, html_exports, saved_notebook_dir, name
):
    # Offline: every request but the file itself fails (CDN scripts, fonts, widgets).
    page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
    page.goto((html_exports / name).with_suffix(".html").as_uri())
    expected = expected_pictures(saved_notebook_dir / name)
    body = page.locator("body")
    poll(
        lambda: body.evaluate(_SHOWN) >= expected,
        UI_TIMEOUT,
        f"{expected} pictures in the export of {name} (shown: {body.evaluate(_SHOWN)})",
    )
    assert body.evaluate(_SHOWN) == expected
    if shows_a_widget(saved_notebook_dir / name):  # 02, 05, 08 (its stepper), 09
        # The widget's static picture, not the empty box of an unloaded widget manager.
        assert "run the notebook" in body.inner_text()
