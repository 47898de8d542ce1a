"""The exercises as an nbgrader assignment (notebooks/assignments.py): the source
notebooks' shape, and generate_assignment + autograde offline on a right and a wrong
submission. The right one gets every point, the wrong one none.

The conversion's shape is checked without the tool; the round trip needs the
``grading`` extra (nbgrader) and is skipped without it, except under CI, where it
fails. otter-grader's side is in test_assignments_otter.py."""

from __future__ import annotations

import re

import pytest

nbformat = pytest.importorskip("nbformat")

from assignment_support import (  # noqa: E402 - after the importorskip above
    LESSONS,
    ROOT,
    convert,
    fill_in,
    require_tool,
    run,
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


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_nbgrader_round_trip(tmp_path):
    require_tool("nbgrader")
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
