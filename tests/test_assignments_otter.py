"""The exercises as otter-grader assignments (notebooks/assignments.py): the master
notebooks' format, and otter assign + otter run offline on a right and a wrong
submission. The right one gets every point, the wrong one none.

The conversion's format is checked without the tool; the round trip needs the
``grading`` extra (otter-grader) and is skipped without it, except under CI, where it
fails. nbgrader's side is in test_assignments_nbgrader.py."""

from __future__ import annotations

import json

import pytest

nbformat = pytest.importorskip("nbformat")

from assignment_support import (  # noqa: E402 - after the importorskip above
    LESSONS,
    ROOT,
    convert,
    fill_in,
    require_tool,
    run,
    run_python,
)

# What `otter run -a ZIP -o OUT SUBMISSION` does (its CLI calls otter.run.main), for
# each (SUBMISSION, OUT) pair: a fresh grading folder and kernel per submission.
OTTER_RUN_EACH = """
import sys
from otter.run import main

autograder, *pairs = sys.argv[1:]
for submission, out in zip(pairs[::2], pairs[1::2]):
    main(submission, autograder=autograder, output_dir=out)
"""


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


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_otter_round_trip(tmp_path):
    require_tool("otter")
    masters = tmp_path / "masters"
    convert("otter", masters, *LESSONS)
    for master in sorted(masters.glob("*.ipynb")):
        dist = tmp_path / f"dist-{master.stem[:2]}"
        # --no-run-tests: otter assign would grade the master notebook's own solutions
        # in a kernel first (3.4 of its 5.9 s of CPU); the right submission below is
        # those solutions, graded by otter run, and must get every point.
        run("otter", "assign", "--no-run-tests", str(master), str(dist), cwd=tmp_path)
        student = dist / "student" / master.name
        text = student.read_text()
        assert "grading=True" not in text and "BEGIN SOLUTION" not in text
        (zipfile,) = (dist / "autograder").glob("*.zip")
        solutions = ROOT / "notebooks" / "solutions" / master.name
        cases = (("right", True), ("wrong", False))
        graded_pairs = []
        for name, right in cases:
            submission = tmp_path / f"{name}-{master.name}"
            fill_in(student, solutions, submission, right=right)
            out = tmp_path / f"results-{name}-{master.stem[:2]}"
            out.mkdir()
            graded_pairs += [str(submission), str(out)]
        # Both submissions graded by one process: `otter run` once per submission spent
        # ~6 s of its ~18 s of CPU importing otter (pandas, nbconvert) again.
        run_python(OTTER_RUN_EACH, str(zipfile), *graded_pairs, cwd=tmp_path)
        for name, right in cases:
            out = tmp_path / f"results-{name}-{master.stem[:2]}"
            results = json.loads((out / "results.json").read_text())
            graded = [t for t in results["tests"] if "score" in t]  # not the summary
            scores = {t["name"]: t["score"] for t in graded}
            points = {t["name"]: t["max_score"] for t in graded}
            assert len(scores) >= 2 and sum(points.values()) >= 2, results
            if right:
                assert scores == points, scores
            else:
                assert not any(scores.values()), scores
