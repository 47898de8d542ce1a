"""Helpers of the assignment tests (test_assignments_nbgrader.py,
test_assignments_otter.py): convert the exercises with notebooks/assignments.py, fill
in a learner's submission, right or wrong, and run the grading tools offline.

The two tools' round trips are in two files so that pytest-xdist, which keeps a
file's tests on one worker, runs them side by side on two workers."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "notebooks" / "assignments.py"
# The lessons whose round trips run. 03's answers are values, as in 01-07. 08-10's are
# what a one-line answer cell does not show: classes and functions defined over several
# lines with blank lines inside (nbgrader and otter cut the solution out of that cell
# and put it back), a pair of functions, and 08's exercise 3 uses exercise 1's class.
# Both files take 34 s of CPU instead of 13 s with 03 alone (user time of
# `time pytest -n 2 tests/test_assignments_*.py`; 65 s instead of 27 s of wall time on
# a machine loaded 4 to 1).
LESSONS = ["03", "08", "09", "10"]


def convert(tool: str, out: Path, *lessons: str) -> None:
    subprocess.run(
        [sys.executable, str(SCRIPT), tool, str(out), *lessons],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )


def require_tool(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        message = f"{module} is not installed (pip install -e '.[grading]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _answers(solutions: Path) -> dict[str, str]:
    """Each exercise's worked solution, by answer variable ("answer1")."""
    nb = nbformat.read(solutions, as_version=4)
    found = {}
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            number = re.search(r"check_exercise_(\d+)", cell.source).group(1)
            found[f"answer{number}"] = "\n".join(
                line
                for line in cell.source.splitlines()
                if not line.startswith(("#", "check_exercise"))
            )
    return found


def fill_in(student: Path, lesson: Path, out: Path, *, right: bool) -> None:
    """A learner's submission: the student notebook with each answer cell filled in,
    with the worked solution (right) or with a plausible mistake (wrong)."""
    nb = nbformat.read(student, as_version=4)
    answers = _answers(lesson)
    for cell in nb.cells:
        found = re.search(r"^(answer\d+) = None  # your code here", cell.source, re.M)
        if cell.cell_type == "code" and found:
            name = found.group(1)
            code = answers[name] if right else f"{name} = 0.5"
            cell.source = cell.source.replace(found.group(0), code)
    nbformat.write(nb, out)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m ARGS`` (a tool's command line) in this environment."""
    return _python("-m", *args, cwd=cwd)


def run_python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -c CODE ARGS`` in this environment."""
    return _python("-c", code, *args, cwd=cwd)


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # nbgrader runs the `alembic` command of its environment: put that first on PATH.
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc
