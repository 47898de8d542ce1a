"""The notebooks' house rules, checked on the saved files (no kernel is started).

nbval (see ``[tool.pytest.ini_options]`` in pyproject.toml) re-runs every notebook
and compares outputs; it can only do that well if the notebooks are saved a certain
way. These tests check that way:

* every notebook is saved executed, top to bottom, in one run (execution counts
  1, 2, …, n, so nbval has a complete reference output for every cell);
* it runs on the ``python3`` kernel and starts with ``import autogradkit as torch``;
* nbval's markers are cell tags, never ``# NBVAL_...`` comments a learner would read:
  ``nbval-ignore-output`` only where an output cannot be reproduced (a live widget,
  a timing), and on every widget; ``raises-exception`` on exactly the cells whose
  saved output is an error;
* widgets are saved as their static picture (no live view, no widget state), so an
  HTML export shows it offline; drawings are ``<img>`` tags, which survive the
  cleaning of untrusted HTML (inline ``<svg>`` does not);
* the prose says nothing about tests;
* the learner's notebooks (``notebooks/NN_*.ipynb``) are the solutions notebooks
  (``notebooks/solutions/``, the one source) without the cells tagged ``solution``;
* there are at least two exercises, each an answer cell (``# your code here``) and a
  check cell that only calls a checker of ``autogradkit.exercises`` (no expected
  value in sight) and prints a hint while the answer is missing; nothing in the
  learner's notebook says "Correct"; in the solutions, a solution cell after each
  check runs the checker, which says "Correct";
* ``notebooks/README.md`` lists exactly the notebooks in the folder.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))  # the learners'
SOLUTIONS = sorted((NOTEBOOKS_DIR / "solutions").glob("*.ipynb"))  # the source, with solutions
CHECK_CELL = re.compile(
    r"from autogradkit\.exercises\.nb(\d\d) import (check_exercise_\d+)\n\n\2\(answer\d+(, \w+)*\)"
)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLACEHOLDER = "# your code here"
TIMING = re.compile(r"\b(perf_counter|process_time|timeit|time\.time|monotonic)\b")


def _load(path: Path):
    return nbformat.read(path, as_version=4)


def _code_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _markers(cell) -> set[str]:
    """nbval's markers on a cell, from its tags."""
    found = set()
    for tag in cell.metadata.get("tags", []):
        if tag.startswith("nbval-"):
            found.add(tag.upper().replace("-", "_"))
        if tag == "raises-exception":
            found.add("NBVAL_RAISES_EXCEPTION")
    return found


def _shows_widget(cell) -> bool:
    """Whether the cell displays a widget (printing one shows only its repr)."""
    return any(
        output.data.get("text/plain", "").startswith(
            ("<BackwardStepper", "<JacobianExplorer", "<ForwardReverseExplorer")
        )
        for output in cell.outputs
        if "data" in output
    )


def _text(cell) -> str:
    """Everything a cell printed (streams and text/plain)."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def _mimetypes(cell) -> set[str]:
    return {key for output in cell.outputs for key in output.get("data", {})}


def _is_solution(cell) -> bool:
    return "solution" in cell.metadata.get("tags", [])


def _label(cell) -> str:
    first = cell.source.splitlines()[0] if cell.source else "<empty>"
    return f"cell {cell.get('execution_count')} ({first[:50]!r})"


def test_there_are_notebooks():
    # Without this, an empty or moved folder would make every test below vanish.
    assert len(NOTEBOOKS) >= 3, f"expected the notebooks in {NOTEBOOKS_DIR}, found {NOTEBOOKS}"


@pytest.fixture(
    params=NOTEBOOKS + SOLUTIONS,
    ids=[path.name for path in NOTEBOOKS] + ["solutions/" + path.name for path in SOLUTIONS],
)
def notebook(request):
    """Every saved notebook: the learners' and the solutions."""
    return request.param, _load(request.param)


@pytest.fixture(params=NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def student(request):
    return request.param, _load(request.param)


def test_every_notebook_has_its_solutions():
    assert [p.name for p in SOLUTIONS] == [p.name for p in NOTEBOOKS]


def test_valid_nbformat(notebook):
    path, nb = notebook
    nbformat.validate(nb)


def test_saved_executed_in_order(notebook):
    path, nb = notebook
    counts = [cell.execution_count for cell in _code_cells(nb)]
    assert counts, f"{path.name} has no code cells"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts}; save it after a single top-to-bottom run "
        "(python notebooks/execute.py) so nbval has every output"
    )
    assert any(cell.outputs for cell in _code_cells(nb)), f"{path.name} is saved without outputs"


def test_kernel_is_python3(notebook):
    path, nb = notebook
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", path.name


def test_first_code_cell_imports_autogradkit_as_torch(notebook):
    path, nb = notebook
    first = _code_cells(nb)[0]
    lines = [line.strip() for line in first.source.splitlines()]
    assert "import autogradkit as torch" in lines, (
        f"{path.name}: the first code cell must be `import autogradkit as torch`, got {first.source!r}"
    )


def test_nbval_markers_are_tags_not_comments(notebook):
    path, nb = notebook
    for cell in _code_cells(nb):
        assert "NBVAL_" not in cell.source, (
            f"{path.name}, {_label(cell)}: use the cell tag (nbval-ignore-output, raises-exception), "
            "not a comment the learner reads"
        )


def test_ignored_outputs_are_only_widgets_and_timings(notebook):
    path, nb = notebook
    for cell in _code_cells(nb):
        shows_widget = _shows_widget(cell)
        times = bool(TIMING.search(cell.source))
        if "NBVAL_IGNORE_OUTPUT" in _markers(cell):
            assert shows_widget or times, (
                f"{path.name}, {_label(cell)}: nbval-ignore-output hides an output that is neither "
                "a live widget view nor a timing; make the output deterministic instead"
            )
        elif shows_widget:
            raise AssertionError(
                f"{path.name}, {_label(cell)} displays a live widget (random model id, state that "
                "follows the clicks) but is not tagged nbval-ignore-output"
            )


def test_raising_cells_are_exactly_the_marked_ones(notebook):
    path, nb = notebook
    for cell in _code_cells(nb):
        errors = [output for output in cell.outputs if output.output_type == "error"]
        if "NBVAL_RAISES_EXCEPTION" in _markers(cell):
            assert len(errors) == 1, (
                f"{path.name}, {_label(cell)}: marked to raise, but saved without its error"
            )
        else:
            assert not errors, (
                f"{path.name}, {_label(cell)} was saved with {errors[0].ename}: {errors[0].evalue}"
            )


def test_widgets_are_saved_as_pictures(notebook):
    path, nb = notebook
    assert "widgets" not in nb.metadata, f"{path.name} is saved with widget state"
    for cell in _code_cells(nb):
        assert WIDGET_VIEW not in _mimetypes(cell), (
            f"{path.name}, {_label(cell)}: saved with a live widget view; save with notebooks/execute.py"
        )
        if _shows_widget(cell):
            html = "".join(o.data.get("text/html", "") for o in cell.outputs if "data" in o)
            assert "run the notebook" in html, f"{path.name}, {_label(cell)} has no static picture"


def test_drawings_survive_sanitising(notebook):
    """Untrusted notebooks, GitHub and nbviewer strip inline <svg> from saved HTML."""
    path, nb = notebook
    for cell in _code_cells(nb):
        for output in cell.outputs:
            html = output.get("data", {}).get("text/html", "")
            assert "<svg" not in html, (
                f"{path.name}, {_label(cell)}: inline <svg> in text/html shows as garbled text "
                "without trust; use an <img> (autogradkit.viz._html.svg_img)"
            )


def test_prose_says_nothing_about_tests(notebook):
    path, nb = notebook
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found = re.search(r"\b(test suite|nbval|pytest|tests?)\b", cell.source, re.I)
            assert not found, f"{path.name}: a text cell mentions {found.group(0)!r}"


def _exercises(nb) -> list[tuple]:
    """(answer cell, check cells, solution cell or None) for each exercise, in order."""
    cells = _code_cells(nb)
    starts = [
        i for i, cell in enumerate(cells) if PLACEHOLDER in cell.source and not _is_solution(cell)
    ]
    exercises = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(cells)
        following = cells[start + 1 : end]
        solution = next((cell for cell in following if _is_solution(cell)), None)
        checks = following[: following.index(solution)] if solution is not None else following
        exercises.append((cells[start], checks, solution))
    return exercises


def test_at_least_two_exercises(student):
    path, nb = student
    assert len(_exercises(nb)) >= 2, (
        f"{path.name}: an exercise is a code cell with the placeholder {PLACEHOLDER!r}; found "
        f"{len(_exercises(nb))}"
    )


def test_the_learners_notebook_is_the_solutions_without_them(student):
    path, nb = student
    source = _load(NOTEBOOKS_DIR / "solutions" / path.name)
    kept = [cell for cell in source.cells if not _is_solution(cell)]
    assert [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in kept], (
        f"{path.name} differs from solutions/{path.name} without its solution cells: edit the "
        "solutions notebook and run python notebooks/execute.py"
    )


def test_the_learner_sees_no_solution_and_no_expected_value(student):
    path, nb = student
    for answer, checks, solution in _exercises(nb):
        where = f"{path.name}, exercise at {_label(answer)}"
        assert solution is None, f"{where}: a solution cell in the learner's notebook"
        assert len(checks) == 1 and CHECK_CELL.fullmatch(checks[0].source.strip()), (
            f"{where}: the check cell should only call a checker of autogradkit.exercises, "
            f"got {[c.source for c in checks]!r}"
        )
        assert CHECK_CELL.fullmatch(checks[0].source.strip()).group(1) == path.name[:2]
        assert _text(checks[0]).startswith("Hint: "), (
            f"{where}: the check should print a hint while the answer is missing; it printed "
            f"{_text(checks[0])!r}"
        )
    assert not any("correct" in _text(cell).lower() for cell in _code_cells(nb)), (
        f"{path.name} shows a checker's verdict on a solution"
    )


def test_each_solution_passes_its_check():
    for path in SOLUTIONS:
        nb = _load(path)
        exercises = _exercises(nb)
        assert len(exercises) >= 2, path
        for answer, checks, solution in exercises:
            where = f"solutions/{path.name}, exercise at {_label(answer)}"
            assert solution is not None, f"{where}: no solution cell (tag 'solution')"
            assert PLACEHOLDER not in solution.source, f"{where}: the solution has the placeholder"
            call = CHECK_CELL.fullmatch(checks[0].source.strip())
            assert call and call.group(2) + "(" in solution.source, (
                f"{where}: the solution should run the check so it shows it passes"
            )
            assert _text(solution).startswith("Correct: "), (
                f"{where}: the solution's saved output should say it is correct; got "
                f"{_text(solution)!r}"
            )


def test_no_hidden_code(notebook):
    path, nb = notebook
    for cell in _code_cells(nb):
        assert not cell.metadata.get("jupyter", {}).get("source_hidden"), (
            f"{path.name}, {_label(cell)} is hidden"
        )


def test_readme_lists_exactly_the_notebooks():
    readme = (NOTEBOOKS_DIR / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\b(\d\d_[A-Za-z0-9_]+\.ipynb)\b", readme))
    present = {path.name for path in NOTEBOOKS}
    assert listed, "notebooks/README.md names no notebook"
    assert not listed - present, (
        f"notebooks/README.md lists missing notebooks: {sorted(listed - present)}"
    )
    assert not present - listed, f"notebooks/README.md does not mention: {sorted(present - listed)}"


def test_sanitize_file_exists_and_masks_only_addresses_and_cell_names():
    # pyproject's addopts point nbval at this file; keep its masking narrow.
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns(
        (NOTEBOOKS_DIR / "nbval_sanitize.cfg").read_text(encoding="utf-8")
    )
    assert patterns, "nbval_sanitize.cfg has no regex/replace pairs"

    def sanitize(text: str) -> str:
        for regex, replacement in patterns:
            text = re.sub(regex, replacement, text)
        return text

    assert sanitize("<AddBackward0 object at 0x7f74205bc190>") == sanitize(
        "<AddBackward0 object at 0x55d0c1>"
    )
    assert sanitize("/tmp/ipykernel_7127/2878411509.py:1: UserWarning") == sanitize(
        "/tmp/ipykernel_99/2878411509.py:1: UserWarning"
    )
    # Numbers, tensors and SVG drawings are compared as they are.
    for text in (
        "tensor([0.2661, 0.1179, 0.0027])",
        '<rect width="97.2" height="40.0" rx="6"/>',
        "fill: #1f2328;",
        "step 3 of 6",
    ):
        assert sanitize(text) == text


def test_cells_that_plot_come_after_matplotlib_inline(notebook):
    """A kernel started with MPLBACKEND=Agg (as CI sets it) shows no figure unless
    the notebook asks for inline output itself; the saved outputs would then differ."""
    path, nb = notebook
    inline = False
    for cell in _code_cells(nb):
        inline = inline or "%matplotlib inline" in cell.source
        plots = any(name in cell.source for name in ("plt.", "plot_grad", "plot_grads("))
        assert inline or not plots, f"{path.name}: {_label(cell)} plots before `%matplotlib inline`"


def test_saved_outputs_name_no_machine_paths(notebook):
    """Saved with notebooks/execute.py: tracebacks name autogradkit's files relative to
    the repository and warnings their cell, wherever the notebook was run."""
    path, nb = notebook
    for cell in _code_cells(nb):
        for output in cell.outputs:
            text = "".join(output.get("text", "")) + "\n".join(output.get("traceback", []))
            found = re.search(r"(/(work|tmp|root|home|Users)/[\w.-]+/|[A-Za-z]:\\\\)", text)
            assert not found, (
                f"{path.name}: {_label(cell)} stores the path {found.group(0)!r}; "
                "save notebooks with `python notebooks/execute.py`"
            )


def test_printed_text_is_saved_in_one_piece(notebook):
    """Saved with notebooks/execute.py: the chunks the kernel happened to send a
    stream in are joined, so running a notebook again changes no file."""
    path, nb = notebook
    for cell in _code_cells(nb):
        for before, after in itertools.pairwise(cell.outputs):
            assert not (
                before.output_type == after.output_type == "stream" and before.name == after.name
            ), (
                f"{path.name}: {_label(cell)} saves its {before.name} in chunks; "
                "save notebooks with `python notebooks/execute.py`"
            )


# JupyterLab at 1100 px with the file browser open: a code cell shows 84 characters
# of a line (a longer one is cut off at the right edge), an output line 85 (a longer
# one is wrapped mid-word).
CODE_LINE_FITS = 84


def test_code_lines_fit_jupyterlab_at_1100_px(notebook):
    path, nb = notebook
    for cell in _code_cells(nb):
        for line in cell.source.splitlines():
            assert len(line) <= CODE_LINE_FITS, (
                f"{path.name}, {_label(cell)}: a line of {len(line)} characters is cut off "
                f"at 1100 px: {line!r}"
            )


def test_each_notebook_ends_by_leading_to_the_next():
    for path, following in itertools.pairwise(SOLUTIONS):
        last = _load(path).cells[-1]
        assert last.cell_type == "markdown" and f"]({following.name})" in last.source, (
            f"{path.name} does not end with a link to {following.name}"
        )


def test_nbval_kernel_start_is_tried_twice_then_fails(monkeypatch):
    """tests/conftest.py starts a kernel that died before answering once more
    (a port lost to another worker's kernel); a kernel that dies twice still fails."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tests_conftest", Path(__file__).parent / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    starts: list = []

    def dies(times: int):
        def start(*args, **kwargs):
            starts.append(kwargs)
            if len(starts) <= times:
                raise RuntimeError("Kernel died before replying to kernel_info")
            return "manager", "client"

        return start

    monkeypatch.setattr(conftest, "_start_new_kernel", dies(1))
    assert conftest._start_kernel_with_one_retry(kernel_name="k") == ("manager", "client")
    assert starts == [{"kernel_name": "k"}, {"kernel_name": "k"}]
    starts.clear()
    monkeypatch.setattr(conftest, "_start_new_kernel", dies(2))
    with pytest.raises(RuntimeError, match="Kernel died"):
        conftest._start_kernel_with_one_retry(kernel_name="k")
    assert len(starts) == 2
