"""End-to-end tests: the notebooks in a real JupyterLab (and Voilà), in a real
headless Chromium driven by Playwright.

What runs where
---------------
* The servers (``jupyter lab``, ``voila``) run from a temporary copy of
  ``notebooks/`` with every output cleared, so nothing shown in the browser can be
  a stale saved output and autosave never touches the committed files.
* JupyterLab gets its own settings (``overrides.json`` in a temporary app settings
  dir: no news popup, no update check, no notebook windowing so every cell is in
  the DOM), an empty temporary user-settings and workspaces dir, and its own
  runtime dir. Nothing of the machine's own Jupyter configuration is used.
* What the browser must show is computed independently in a plain kernel (nbclient)
  that runs the same notebook and then asks the widget objects themselves
  (:func:`expected_for`).

Requirements: Chromium at ``/usr/bin/chromium`` (Debian's ``apt-get install -y
chromium``; override with ``AGK_CHROMIUM``), and the ``playwright``, ``voila`` and
``jupyterlab`` packages (the ``test`` extra). Never ``playwright install``: the
system Chromium is used. When something is missing the tests are skipped with the
reason — except under CI (env ``CI`` set, as ``.ci/run`` does), where they fail, so
CI cannot silently skip them.

Screenshots and server logs go to ``$AGK_E2E_ARTIFACTS`` (default
``tests/e2e/artifacts/``, git-ignored); the folder is printed at the end of the run.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"  # what the servers serve a cleared copy of
CHROMIUM = Path(os.environ.get("AGK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(
    os.environ.get("AGK_E2E_ARTIFACTS") or Path(__file__).parent / "artifacts"
).resolve()

# Every wait is on a condition (the page, the server or the kernel reporting what
# the test needs), never a sleep: a passing run waits only as long as the machine
# needs. These are the budgets after which a wait gives up. They are generous,
# because CI runs on shared, loaded machines (a save that takes a second on an idle
# one once timed out after 30 s). Only a broken build waits them out.
SERVER_START_TIMEOUT = 240.0  # s: server answering HTTP
KERNEL_TIMEOUT = 300.0  # s: kernel started and idle, notebook run
UI_TIMEOUT = 120.0  # s: one DOM change after one click or key press, a save
# pytest-timeout for one e2e test (its module's servers and Run All included): a
# hang still fails, after more than any of the budgets above.
TEST_TIMEOUT = 900

# The notebooks under test.
STEPPER_NOTEBOOK = "02_computing_gradients.ipynb"
JACOBIAN_NOTEBOOK = "05_jacobian_products.ipynb"
MODES_NOTEBOOK = "09_forward_and_reverse_mode.ipynb"
CANARY_NOTEBOOK = "zz_sanitiser_canary.ipynb"  # written beside the saved copies (conftest)

# JupyterLab settings for a quiet, deterministic UI (keys checked against the schemas
# in share/jupyter/lab/schemas of JupyterLab 4).
LAB_SETTINGS_OVERRIDES = {
    # No "Would you like to receive official Jupyter news?" toast, no update check.
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # Every cell attached to the DOM, visible or not (the default windowing detaches
    # cells out of the viewport, so a widget far down the notebook would not exist).
    "@jupyterlab/notebook-extension:tracker": {
        "windowingMode": "none",
    },
}

artifacts_written: list[Path] = []


# ------------------------------------------------------------------ requirements
def _missing_requirement() -> str | None:
    if not CHROMIUM.exists():
        return (
            f"Chromium not found at {CHROMIUM} (install Debian's: apt-get install -y chromium; "
            "or set AGK_CHROMIUM)"
        )
    for module, package in (
        ("playwright.sync_api", "playwright"),
        ("jupyterlab", "jupyterlab"),
        ("voila", "voila"),
        ("nbclient", "nbclient"),
    ):
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            return f"Python package {package!r} is not installed (pip install -e '.[test]')"
    try:
        import playwright.sync_api  # noqa: F401
    except Exception as error:
        return f"playwright cannot be imported: {type(error).__name__}: {error}"
    return None


def require_browser_stack() -> None:
    """Skip (or, under CI, fail) when the browser or a package is missing."""
    reason = _missing_requirement()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"end-to-end tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(f"end-to-end tests need a browser stack: {reason}")


# ------------------------------------------------------------------ notebooks
def _clear_outputs(nb) -> None:
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None


def expects_error(cell) -> bool:
    """Cells tagged ``raises-exception`` (nbval's and JupyterLab's convention) may
    show an error; no other cell may."""
    return "raises-exception" in cell.get("metadata", {}).get("tags", [])


# What the browser must show, computed by the widgets themselves in a plain kernel.
_PROBE = r"""
import json as _json, re as _re
import numpy as _np
from ipywidgets.widgets.widget import _instances as _agk_instances
from autogradkit.widgets import BackwardStepper as _BS, JacobianExplorer as _JE
from autogradkit.widgets import ForwardReverseExplorer as _FR

def _agk_current(svg):
    found = _re.findall(r'<g class="([^"]*)" data-node="([^"]*)"', svg)
    return [label for classes, label in found if "current" in classes.split()]

def _agk_probe():
    out = {"steppers": [], "explorers": [], "modes": []}
    for widget in list(_agk_instances.values()):
        if isinstance(widget, _BS):
            start = widget.position
            widget.run_to_end()
            positions = []
            for k in range(widget.total + 1):
                widget.seek(k)
                current = _agk_current(widget.svg)
                positions.append({
                    "current": current[0] if current else None,
                    "label": widget._label(widget.current.node) if widget.current else None,
                    "nodes": sorted(set(_re.findall(r'data-node="([^"]*)"', widget.svg))),
                })
            out["steppers"].append({"start": start, "total": widget.total, "positions": positions})
        elif isinstance(widget, _JE):
            out["explorers"].append({
                "jacobian": widget.jacobian.numpy().tolist(),
                "v": widget.v.numpy().reshape(-1).tolist(),
                "output_labels": widget.output_labels,
                "input_shape": list(widget.vjp_backward.shape),
                "vjp_backward": widget.vjp_backward.numpy().reshape(-1).tolist(),
                "slider_labels": [s.description for s in widget.sliders],
                "many": widget.element is not None,
            })
        elif isinstance(widget, _FR):
            sides = {}
            for name in ("forward", "reverse"):
                side = getattr(widget, name)
                start = side.position
                side.reset()
                positions = []
                for k in range(side.total + 1):
                    if k:
                        side.step()
                    marks = side.marks
                    positions.append({
                        "current": next((l for l, m in marks.items() if m == "current"), None),
                        "done": sorted(l for l, m in marks.items() if m == "done"),
                        "known": int((~_np.isnan(side.known())).sum()),
                    })
                sides[name] = {"start": start, "seed": side.seed, "total": side.total,
                               "seed_labels": list(side.seed_menu.options),
                               "positions": positions}
            out["modes"].append(sides)
    return out

print("AGK-PROBE " + _json.dumps(_agk_probe()))
"""

_expected_cache: dict[str, dict] = {}


def expected_for(notebook: Path) -> dict:
    """Run ``notebook`` top to bottom in a fresh kernel of this environment (as
    JupyterLab's Run All would), then ask every BackwardStepper, JacobianExplorer and
    ForwardReverseExplorer it made (in the order they were made) what they show at each position.

    Steppers: ``{"start", "total", "positions": [{"current", "label", "nodes"}]}``
    where ``current`` is the ``data-node`` of the SVG node with class ``current``
    after k steps and ``label`` the name the panel gives it. Explorers: J, v, the
    output labels, the input shape and vᵀJ."""
    key = str(notebook)
    if key not in _expected_cache:
        import nbclient
        import nbformat

        nb = nbformat.read(notebook, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(_PROBE))
        client = nbclient.NotebookClient(
            nb,
            timeout=int(KERNEL_TIMEOUT),
            kernel_name="python3",
            startup_timeout=int(KERNEL_TIMEOUT),
            resources={"metadata": {"path": str(notebook.parent)}},
        )
        client.execute()
        for cell in nb.cells:
            if cell.cell_type == "code" and not expects_error(cell):
                errors = [o for o in cell.outputs if o.output_type == "error"]
                assert not errors, (
                    f"{notebook.name} fails outside the browser already: "
                    f"{errors[0].ename}: {errors[0].evalue}"
                )
        text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
        line = next(line for line in text.splitlines() if line.startswith("AGK-PROBE "))
        _expected_cache[key] = json.loads(line[len("AGK-PROBE ") :])
    return _expected_cache[key]


# ------------------------------------------------------------------ servers
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """Every process started (directly or not) by ``pid``: the kernels run in their
    own sessions, so killing the server's process group does not reach them."""
    try:
        import psutil
    except ImportError:
        return []
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


class Server:
    """A Jupyter server process (lab or voila) in its own process group."""

    def __init__(
        self, name: str, argv: list[str], cwd: Path, env: dict[str, str], url: str, ready_path: str
    ) -> None:
        self.name, self.url = name, url
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"{name}.log"
        # Open for the server's whole life; closed in stop().
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait_ready(ready_path)

    def _wait_ready(self, path: str) -> None:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with code {self.process.returncode} while "
                    f"starting; log:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(self.url + path, timeout=5) as response:
                    if response.status == 200:
                        return
            except urllib.error.HTTPError as error:
                if self.name == "voila":
                    return  # answering at all is enough (voila's pages run the notebook)
                last = error
            except (urllib.error.URLError, OSError) as error:
                last = error
            time.sleep(0.2)
        tail = self.log_tail()
        self.stop()
        raise RuntimeError(
            f"{self.name} did not answer {path} within {SERVER_START_TIMEOUT:.0f} s "
            f"({last}); log:\n{tail}"
        )

    def log_tail(self, lines: int = 40) -> str:
        if not self._log.closed:
            self._log.flush()
        return "\n".join(
            self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            children = _descendants(self.process.pid)
            # SIGTERM lets the server shut its kernels down; then make sure.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
            for pid in children:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        self._log.close()


def _root_flags() -> list[str]:
    return ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []


def _isolated_env(home: Path) -> dict[str, str]:
    """This environment, with Jupyter's per-user state moved into ``home``."""
    env = dict(os.environ)
    for variable, sub in (
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "user-settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ("IPYTHONDIR", "ipython"),
    ):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[variable] = str(home / sub)
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("JUPYTER_TOKEN", None)
    # The servers and kernels start from the venv's python; make sure they see it first.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


# ------------------------------------------------------------------ artifacts


def poll(condition, timeout: float, what, interval: float = 0.1):
    """Return ``condition()``'s first truthy value; fail with ``what`` (a text, or a
    function giving one, e.g. with the last state seen) after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {described}")
        time.sleep(interval)


live_pages: list = []


def new_page(browser):
    """A page in a fresh browser context (1400×1000, no shared storage). Uncaught
    JavaScript errors are collected in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
    context.set_default_timeout(UI_TIMEOUT * 1000)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    live_pages.append(page)
    return page


def close_page(page) -> None:
    live_pages.remove(page)
    page.context.close()


def save_screenshot(target, name: str) -> Path:
    """Screenshot of a page or a locator, saved as ``<ARTIFACTS>/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    target.screenshot(path=str(path))
    artifacts_written.append(path)
    return path


# ------------------------------------------------------------------ the stepper's layout
# Measures the stepper's parts on the page (run on its output element).
LAYOUT = """(widget) => {
    const box = e => { const r = e.getBoundingClientRect();
                       return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                               width: r.width, height: r.height}; };
    const panel = widget.querySelector('.agk-stepper-panel');
    const formula = panel.querySelector('.agk-formula');
    const plots = widget.querySelector('.agk-stepper-plots');
    const graph = widget.querySelector('.agk-stepper-graph');
    const fontSizes = Array.from(panel.querySelectorAll('p, li, pre, code')).map(
        e => parseFloat(getComputedStyle(e).fontSize));
    return {
        widget: box(widget), panel: box(panel), plots: box(plots), graph: box(graph),
        formula: formula ? box(formula) : null,
        formulaVisible: formula ? formula.scrollWidth <= formula.clientWidth + 1 : null,
        panelClips: panel.scrollHeight > panel.clientHeight + 1
                    || panel.scrollWidth > panel.clientWidth + 1,
        graphScrolls: graph.scrollWidth > graph.clientWidth + 1,
        widgetScrolls: (box => box.scrollWidth > box.clientWidth + 1)(
            widget.querySelector('.widget-vbox')),
        minFont: Math.min(...fontSizes),
        viewport: window.innerWidth,
    };
}"""


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


def check_layout(layout: dict, where: str) -> None:
    """At step 1 (the loss's local derivative, the heart of the lesson) the formula is
    shown whole, nothing covers it, nothing is cut off, the text is readable and the
    graph fits the width."""
    assert layout["formula"] is not None, f"{where}: step 1 shows no formula"
    assert layout["formulaVisible"], f"{where}: the formula scrolls: {layout}"
    assert not layout["panelClips"], f"{where}: the panel cuts off its text: {layout}"
    assert not _overlap(layout["formula"], layout["plots"]), (
        f"{where}: the plots cover the formula: {layout}"
    )
    for part in ("panel", "plots", "graph"):
        # (ipywidgets give each child a 2 px margin)
        assert layout[part]["right"] <= layout["widget"]["right"] + 3, (
            f"{where}: the {part} sticks out of the widget: {layout}"
        )
    assert layout["minFont"] >= 12, f"{where}: text of {layout['minFont']} px in the panel"
    # The graph fits the width (folded and shrunk no further than MIN_SCALE): the
    # loss end, where the pass starts, is in view without scrolling sideways.
    assert not layout["graphScrolls"], f"{where}: the graph scrolls sideways: {layout}"
    # Nor does the widget itself (a child 100% wide plus ipywidgets' 2 px margins did).
    assert not layout["widgetScrolls"], f"{where}: the widget scrolls sideways: {layout}"
