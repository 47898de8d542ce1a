"""In an IPython kernel (JupyterLab, Voilà), an error raised inside autogradkit shows
the learner's lines and the message, not the library's internals; other errors are
shown as IPython shows them; AUTOGRADKIT_FULL_TRACEBACKS=1 shows everything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("IPython")
REPO = Path(__file__).resolve().parent.parent

SCRIPT = r"""
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance(colors="nocolor")
shell.run_cell("import autogradkit as torch")
shell.run_cell("x = torch.ones(2, requires_grad=True)\nloss = (x * x).sum()\nloss.backward()")
print("=== second backward")
shell.run_cell("loss.backward()  # the learner's line")
print("=== callback")
shell.run_cell("def f(t):\n    return t.no_such_thing\ntorch.autograd.functional.jacobian(f, x)")
print("=== plain")
shell.run_cell("1 / 0")
"""


def run(full: bool = False) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("AUTOGRADKIT_FULL_TRACEBACKS", None)
    if full:
        env["AUTOGRADKIT_FULL_TRACEBACKS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
    ).stdout
    parts = out.split("=== ")
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in parts[1:]}


def test_autogradkit_frames_are_hidden():
    shown = run()
    second = shown["second backward"]
    assert "loss.backward()  # the learner's line" in second
    assert "RuntimeError: Trying to backward through the graph a second time" in second
    assert "autogradkit" + os.sep not in second and "engine.py" not in second
    (note,) = [line for line in second.splitlines() if "inside autogradkit hidden" in line]
    assert len(note) <= 84, "wider than JupyterLab's output area at 1100 px"
    assert len(second.splitlines()) < 12, second
    # The learner's function called back from the library stays in view.
    callback = shown["callback"]
    assert "return t.no_such_thing" in callback and "AttributeError" in callback
    assert "functional.py" not in callback
    # Errors that never went through autogradkit look as IPython shows them.
    assert "ZeroDivisionError" in shown["plain"] and "hidden" not in shown["plain"]


def test_full_tracebacks_on_request():
    second = run(full=True)["second backward"]
    assert "engine.py" in second and "hidden" not in second
