"""The exercises as autograded assignments (notebooks/assignments.py): nbgrader's
generate_assignment + autograde and otter-grader's assign + run, offline, on a right
and a wrong submission. The right one gets every point, the wrong one none.

The conversions' shape is checked without the tools; the round trips need the
``grading`` extra (nbgrader, otter-grader) and are skipped without it, except under
CI, where they fail."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "notebooks" / "assignments.py"
LESSONS = ["03"]  # one lesson keeps the round trips short; every lesson converts the same way


def convert(tool: str, out: Path, *lessons: str) -> None:
    subprocess.run(
        [sys.executable, str(SCRIPT), tool, str(out), *lessons],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_nbgrader_source_hides_solutions_and_tests_where_nbgrader_looks(tmp_path):
    convert("nbgrader", tmp_path)
    notebooks = sorted((tmp_path / "source" / "autograd").glob("*.ipynb"))
    lessons = sorted(p.name for p in (ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in notebooks] == lessons and len(lessons) >= 6
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert len(graded) == len(answers) >= 2, path.name
        for cell in answers:
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
            assert "# your code here" in cell.source.split("### BEGIN SOLUTION")[0]
        for cell in graded:
            hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1]
            assert re.search(r"check_exercise_\d\(answer\d.*grading=True\)", hidden), cell.source
        assert not any("solution" in c.metadata.get("tags", []) for c in nb.cells)


def test_otter_master_notebooks_follow_otters_format(tmp_path):
    convert("otter", tmp_path)
    for path in sorted(tmp_path.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        raw = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "raw"]
        assert raw[0] == "# ASSIGNMENT CONFIG"
        questions = raw.count("# BEGIN QUESTION")
        assert questions >= 2 and raw.count("# END QUESTION") == questions
        assert raw.count("# BEGIN SOLUTION") == raw.count("# BEGIN TESTS") == questions
        tests = [c.source for c in nb.cells if "# BEGIN TEST CONFIG" in c.source]
        assert len(tests) == questions and all("grading=True" in t for t in tests)


def _tool(module: str) -> None:
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
    # nbgrader runs the `alembic` command of its environment: put that first on PATH.
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_nbgrader_round_trip(tmp_path):
    _tool("nbgrader")
    course = tmp_path / "course"
    convert("nbgrader", course, *LESSONS)
    run("nbgrader", "generate_assignment", "autograd", "--force", cwd=course)
    release = course / "release" / "autograd"
    for path in sorted(release.glob("*.ipynb")):
        text = path.read_text()
        assert "BEGIN HIDDEN TESTS" not in text and "grading=True" not in text
        assert "BEGIN SOLUTION" not in text
    for student, right in (("right", True), ("wrong", False)):
        folder = course / "submitted" / student / "autograd"
        folder.mkdir(parents=True)
        for path in sorted(release.glob("*.ipynb")):
            solutions = ROOT / "notebooks" / "solutions" / path.name
            fill_in(path, solutions, folder / path.name, right=right)
    run("nbgrader", "autograde", "autograd", "--create", "--force", cwd=course)
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        right = gradebook.find_submission("autograd", "right")
        wrong = gradebook.find_submission("autograd", "wrong")
        assert right.max_score >= 2
        assert right.score == right.max_score, [(n.name, n.score) for n in right.notebooks]
        assert wrong.score == 0


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_otter_round_trip(tmp_path):
    _tool("otter")
    masters = tmp_path / "masters"
    convert("otter", masters, *LESSONS)
    for master in sorted(masters.glob("*.ipynb")):
        dist = tmp_path / f"dist-{master.stem[:2]}"
        run("otter", "assign", str(master), str(dist), cwd=tmp_path)
        student = dist / "student" / master.name
        text = student.read_text()
        assert "grading=True" not in text and "BEGIN SOLUTION" not in text
        (zipfile,) = (dist / "autograder").glob("*.zip")
        solutions = ROOT / "notebooks" / "solutions" / master.name
        for name, right in (("right", True), ("wrong", False)):
            submission = tmp_path / f"{name}-{master.name}"
            fill_in(student, solutions, submission, right=right)
            out = tmp_path / f"results-{name}-{master.stem[:2]}"
            out.mkdir()
            run("otter", "run", "-a", str(zipfile), "-o", str(out), str(submission), cwd=tmp_path)
            results = json.loads((out / "results.json").read_text())
            graded = [t for t in results["tests"] if "score" in t]  # not the summary
            scores = {t["name"]: t["score"] for t in graded}
            points = {t["name"]: t["max_score"] for t in graded}
            assert len(scores) >= 2 and sum(points.values()) >= 2, results
            if right:
                assert scores == points, scores
            else:
                assert not any(scores.values()), scores
