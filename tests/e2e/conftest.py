"""Fixtures of the end-to-end tests (see e2e_support.py for what they do and need):
a cleared copy of notebooks/, a JupyterLab and a Voilà server on it, headless
Chromium and a page per test."""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import sys
from pathlib import Path

import pytest
from e2e_support import (
    ARTIFACTS,
    CANARY_NOTEBOOK,
    CHROMIUM,
    CHROMIUM_ARGS,
    JACOBIAN_NOTEBOOK,
    KERNEL_TIMEOUT,
    LAB_SETTINGS_OVERRIDES,
    NOTEBOOKS,
    STEPPER_NOTEBOOK,
    Server,
    _clear_outputs,
    _isolated_env,
    _root_flags,
    artifacts_written,
    close_page,
    free_port,
    live_pages,
    new_page,
    require_browser_stack,
    save_screenshot,
)


@pytest.fixture(scope="session")
def notebook_dir(tmp_path_factory) -> Path:
    """A copy of notebooks/ with outputs (and saved widget state) cleared, so the
    browser shows only what the kernel computes now."""
    require_browser_stack()
    import nbformat

    root = tmp_path_factory.mktemp("notebooks")
    for source in NOTEBOOKS.iterdir():
        if source.is_dir():
            if source.name != ".ipynb_checkpoints":
                shutil.copytree(source, root / source.name)
        elif source.suffix != ".ipynb":
            shutil.copy2(source, root / source.name)
        else:
            nb = nbformat.read(source, as_version=4)
            _clear_outputs(nb)
            nbformat.write(nb, root / source.name)
    for name in (STEPPER_NOTEBOOK, JACOBIAN_NOTEBOOK):
        assert (root / name).exists(), (
            f"the end-to-end tests drive notebooks/{name}, which is missing"
        )
    return root


def _start_lab(root: Path, home: Path) -> Server:
    """``jupyter lab`` on 127.0.0.1, a free port and a random token, serving ``root``."""
    app_settings = home / "app-settings"
    app_settings.mkdir()
    (app_settings / "overrides.json").write_text(json.dumps(LAB_SETTINGS_OVERRIDES, indent=2))
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        *_root_flags(),
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.app_settings_dir={app_settings}",
    ]
    url = f"http://127.0.0.1:{port}"
    server = Server(
        "jupyterlab", argv, root, _isolated_env(home), url, f"/api/status?token={token}"
    )
    server.token = token
    return server


@pytest.fixture(scope="module")
def lab_server(notebook_dir, tmp_path_factory):
    """JupyterLab serving the cleared copy of notebooks/. One per test module;
    stopped (with its kernels) afterwards."""
    server = _start_lab(notebook_dir, tmp_path_factory.mktemp("lab-home"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def saved_notebook_dir(tmp_path_factory) -> Path:
    """A copy of notebooks/ exactly as committed (with outputs): what a fresh clone has."""
    require_browser_stack()
    import nbformat

    root = tmp_path_factory.mktemp("saved-notebooks")
    for source in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy2(source, root / source.name)
    # A canary saved with inline SVG in its HTML: the sanitiser of untrusted notebooks
    # removes the <svg> (and leaves its text), which shows the pages are untrusted.
    canary = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("canary", execution_count=1)
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/html": '<svg class="agk-canary" width="40" height="20"><text y="15">'
                "canary-text</text></svg>",
                "text/plain": "canary",
            },
        )
    ]
    canary.cells.append(cell)
    canary.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(canary, root / CANARY_NOTEBOOK)
    return root


@pytest.fixture(scope="module")
def saved_lab_server(saved_notebook_dir, tmp_path_factory):
    """JupyterLab serving the notebooks as committed; they open untrusted, as a clone's do."""
    server = _start_lab(saved_notebook_dir, tmp_path_factory.mktemp("saved-lab-home"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def voila_server(notebook_dir, tmp_path_factory):
    """``voila`` serving the stepper notebook (from the copy), no browser, a free port,
    configured by the repository's voila.json, as when started from the repository."""
    home = tmp_path_factory.mktemp("voila-home")
    shutil.copy2(NOTEBOOKS.parent / "voila.json", notebook_dir / "voila.json")
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        sys.executable,
        "-m",
        "voila",
        str(notebook_dir / STEPPER_NOTEBOOK),
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        f"--Voila.token={token}",
        f"--NotebookClient.timeout={int(KERNEL_TIMEOUT)}",
        f"--NotebookClient.startup_timeout={int(KERNEL_TIMEOUT)}",
    ]
    url = f"http://127.0.0.1:{port}"
    server = Server(
        "voila", argv, notebook_dir, _isolated_env(home), url, "/voila/static/agk-readiness-probe"
    )
    server.token = token
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    require_browser_stack()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser page for one test (see :func:`new_page`)."""
    page = new_page(browser)
    yield page
    _screenshot_if_failed(request)
    close_page(page)


@pytest.fixture(autouse=True)
def _screenshot_on_failure(request):
    """After a failed test, a screenshot of every page still open, as an artifact."""
    yield
    _screenshot_if_failed(request)


def _screenshot_if_failed(request) -> None:
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed and not getattr(request.node, "_agk_shot", False):
        request.node._agk_shot = True
        for number, page in enumerate(live_pages):
            with contextlib.suppress(Exception):
                save_screenshot(page, f"FAILED-{request.node.name}-{number}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report


def pytest_terminal_summary(terminalreporter):
    if artifacts_written:
        terminalreporter.write_sep("-", "end-to-end artifacts")
        terminalreporter.write_line(f"screenshots and server logs in {ARTIFACTS}")
