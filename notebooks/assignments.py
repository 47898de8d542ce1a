"""Turn the notebooks' exercises into autograded assignments, for nbgrader and for
otter-grader, from the one source (``notebooks/solutions/``).

    python notebooks/assignments.py nbgrader COURSE_DIR [NN ...]
    python notebooks/assignments.py otter OUT_DIR [NN ...]

**nbgrader**: writes ``COURSE_DIR/source/autograd/NN_*.ipynb`` (and an
``nbgrader_config.py``). Each answer cell becomes a solution cell (the worked
solution between ``### BEGIN SOLUTION`` and ``### END SOLUTION``), the learner's
check cell stays, and after it an autograded test cell runs the checker in grading
mode inside ``### BEGIN HIDDEN TESTS`` (a missing or wrong answer fails it). Then,
in ``COURSE_DIR``: ``nbgrader generate_assignment autograd`` and, on submissions,
``nbgrader autograde autograd``.

**otter-grader**: writes one master notebook per lesson, ``OUT_DIR/NN_*.ipynb``
(otter's format: ``# BEGIN QUESTION`` … raw cells). Then ``otter assign
OUT_DIR/NN_*.ipynb DIST`` builds the student notebook and the autograder zip, and
``otter run -a DIST/autograder/*.zip submission.ipynb`` grades a submission.

Both keep every lesson cell; the solutions appear only where each tool hides them.
The autograder's kernel must be able to ``import autogradkit``.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
PLACEHOLDER = "# your code here"
ASSIGNMENT = "autograd"  # the nbgrader assignment holding the lessons
CHECK_CALL = re.compile(r"^check_exercise_(\d+)\((.*)\)$", re.M)


class Exercise:
    """One exercise of a source notebook: its answer, check and solution cells."""

    def __init__(self, number: int, answer, check, solution) -> None:
        self.number, self.answer, self.check, self.solution = number, answer, check, solution

    @property
    def solution_code(self) -> str:
        """The worked solution without its heading comment and its call of the check."""
        lines = [
            line
            for line in self.solution.source.splitlines()
            if not line.startswith("# Solution to exercise") and not CHECK_CALL.match(line)
        ]
        return "\n".join(lines).strip()

    @property
    def grading_check(self) -> str:
        """The check cell, calling the checker in grading mode."""
        return CHECK_CALL.sub(r"check_exercise_\1(\2, grading=True)", self.check.source)

    def answer_with(self, solution_block: str) -> str:
        """The answer cell with its placeholder line replaced by ``solution_block``."""
        lines = self.answer.source.splitlines()
        index = next(i for i, line in enumerate(lines) if PLACEHOLDER in line)
        return "\n".join(lines[:index] + [solution_block] + lines[index + 1 :])

    def answer_cell(self, begin: str, end: str):
        """A clean copy of the answer cell whose placeholder line stays above the
        solution, which stands between the grader's ``begin`` and ``end`` markers (so
        the learner's notebook, where the grader keeps only the placeholder, runs and
        its check gives a hint)."""
        cell = _clean(self.answer)
        placeholder = next(line for line in self.answer.source.splitlines() if PLACEHOLDER in line)
        cell.source = self.answer_with(f"{placeholder}\n{begin}\n{self.solution_code}\n{end}")
        return cell


def exercises(nb) -> dict[int, Exercise]:
    """The exercises of a solutions notebook, keyed by the index of the answer cell."""
    cells = nb.cells
    found = {}
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or PLACEHOLDER not in cell.source:
            continue
        check, solution = cells[index + 1], cells[index + 2]
        call = CHECK_CALL.search(check.source)
        if call is None or "solution" not in solution.metadata.get("tags", []):
            raise ValueError(f"exercise at cell {index}: expected an answer, a check, a solution")
        found[index] = Exercise(int(call.group(1)), cell, check, solution)
    return found


def lesson(nb):
    """Walk a solutions notebook: each cell that is not part of an exercise (as a clean
    copy), and each exercise once, as an :class:`Exercise` (its check and solution cells
    are not yielded on their own)."""
    found = exercises(nb)
    part_of_exercise: set[int] = set()
    for index, cell in enumerate(nb.cells):
        if index in found:
            part_of_exercise.update({index + 1, index + 2})
            yield found[index]
        elif index not in part_of_exercise:
            yield _clean(cell)


def _clean(cell):
    """A copy of the cell without outputs."""
    cell = nbformat.from_dict(copy.deepcopy(dict(cell)))
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def _nbgrader(cell, grade_id: str, *, solution: bool, grade: bool, points: int = 0):
    cell.metadata["nbgrader"] = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": not solution,
        "schema_version": 3,
        "solution": solution,
        "task": False,
        **({"points": points} if grade else {}),
    }
    return cell


def to_nbgrader(source: Path):
    """The nbgrader source notebook of one lesson."""
    nb = nbformat.read(source, as_version=4)
    cells = []
    for item in lesson(nb):
        if not isinstance(item, Exercise):
            cells.append(item)
            continue
        ex = item
        answer = ex.answer_cell("### BEGIN SOLUTION", "### END SOLUTION")
        cells.append(_nbgrader(answer, f"exercise{ex.number}", solution=True, grade=False))
        cells.append(_clean(ex.check))
        test = nbformat.v4.new_code_cell(
            f"# Graded: exercise {ex.number}\n### BEGIN HIDDEN TESTS\n{ex.grading_check}\n"
            "### END HIDDEN TESTS"
        )
        cells.append(
            _nbgrader(test, f"exercise{ex.number}-test", solution=False, grade=True, points=1)
        )
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    return out


def _raw(text: str):
    return nbformat.v4.new_raw_cell(text)


def to_otter(source: Path):
    """otter-grader's master notebook of one lesson."""
    nb = nbformat.read(source, as_version=4)
    name = "autograd" + source.name[:2]
    cells = [
        _raw(
            "# ASSIGNMENT CONFIG\n"
            f"name: {name}\n"
            "init_cell: false\n"
            "check_all_cell: false\n"
            "export_cell: false\n"
            "generate: true\n"
            "run_tests: true\n"
            "files: []\n"
        )
    ]
    for item in lesson(nb):
        if not isinstance(item, Exercise):
            cells.append(item)
            continue
        ex = item
        answer = ex.answer_cell("# BEGIN SOLUTION NO PROMPT", "# END SOLUTION")
        test = nbformat.v4.new_code_cell(
            '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n' + ex.grading_check
        )
        cells += [
            _raw(f"# BEGIN QUESTION\nname: exercise{ex.number}\npoints: 1"),
            _raw("# BEGIN SOLUTION"),
            answer,
            _raw("# END SOLUTION"),
            _raw("# BEGIN TESTS"),
            test,
            _raw("# END TESTS"),
            _raw("# END QUESTION"),
            _clean(ex.check),
        ]
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    return out


NBGRADER_CONFIG = """c = get_config()  # noqa: F821 - nbgrader's config file
c.CourseDirectory.course_id = "autogradkit"
# The answer cell keeps its "answer = None" line above the stub, so it runs as it is.
c.ClearSolutions.code_stub = dict(python="# YOUR CODE HERE")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool", choices=["nbgrader", "otter"])
    parser.add_argument("out", type=Path, help="course folder (nbgrader) or output folder (otter)")
    parser.add_argument("prefixes", nargs="*", help="only the lessons whose names start so")
    args = parser.parse_args(argv)
    sources = sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
    if args.prefixes:
        sources = [s for s in sources if s.name.startswith(tuple(args.prefixes))]
    if not sources:
        parser.error("no lesson matches")
    if args.tool == "nbgrader":
        folder = args.out / "source" / ASSIGNMENT
        folder.mkdir(parents=True, exist_ok=True)
        (args.out / "nbgrader_config.py").write_text(NBGRADER_CONFIG)
        for source in sources:
            nbformat.write(to_nbgrader(source), folder / source.name)
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        for source in sources:
            nbformat.write(to_otter(source), args.out / source.name)
    print(f"wrote {len(sources)} notebook(s) for {args.tool} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
