"""Build the learners' notebooks from the solutions, run both top to bottom in a
fresh ``python3`` kernel and save them with their outputs, the way they are committed.

    python notebooks/execute.py                      # all of them
    python notebooks/execute.py 02 05                # those whose names start so

One source: ``notebooks/solutions/NN_*.ipynb`` holds the lesson with the worked
solutions (cells tagged ``solution``); edit those. The learner's
``notebooks/NN_*.ipynb`` is the same notebook without the solution cells, written
here, so it shows each exercise, its answer cell and its check, and no solution
output or expected value.

What it does beyond ``jupyter nbconvert --execute --inplace``: no per-cell timing
metadata, and no trace of the machine in the saved outputs. A traceback names
autogradkit's files relative to the repository (``autogradkit/autograd/engine.py``
rather than ``/home/you/autogradkit/...``), and a warning names its cell
``<notebook cell>`` instead of the kernel's temporary file — the same text the nbval
sanitizer (``nbval_sanitize.cfg``) turns a fresh run's output into, so the saved
notebook is exactly what nbval compares against. Cells tagged ``raises-exception``
may raise; any other error stops the run.

A cell's printed text is saved as one output per stream (stdout, stderr) between
other outputs: the kernel sends it in chunks that depend on timing, and saved as
they came the same run gave different files (``"received:"`` and the rest of its
line as two outputs in one run, one in the next). nbval joins them before comparing.

Widgets are saved as their static picture only: the live view's reference
(``application/vnd.jupyter.widget-view+json``) and the widget state are dropped.
Without a kernel nothing can drive a widget anyway, and with them an HTML export
(nbconvert, nbviewer) would try to load a widget manager from a CDN and show
nothing offline instead of the picture.
"""
from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
REPO = HERE.parent
KERNEL_CELL_FILE = re.compile(r"[^\s\"']*ipykernel_\d+[\\/]\d+\.py")
TIMEOUT = 120  # seconds per cell


def _scrub(text: str) -> str:
    text = text.replace(str(REPO) + "/", "")
    return KERNEL_CELL_FILE.sub("<notebook cell>", text)


def scrub_outputs(nb) -> None:
    """Remove machine-specific paths from stream text and tracebacks."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _scrub(output["text"])
            if "traceback" in output:
                output["traceback"] = [_scrub(line) for line in output["traceback"]]


def join_stream_chunks(nb) -> None:
    """Merge consecutive outputs of the same stream into one, keeping the order of
    the outputs (text printed around a picture stays on its side of it)."""
    for cell in nb.cells:
        joined: list = []
        for output in cell.get("outputs", []):
            previous = joined[-1] if joined else None
            if (
                previous is not None
                and output.output_type == previous.output_type == "stream"
                and output.name == previous.name
            ):
                previous.text += output.text
            else:
                joined.append(output)
        if "outputs" in cell:
            cell.outputs = joined


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widget_views(nb) -> None:
    """Keep each widget's static fallback (text/html, text/plain), not its live view."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)


def without_solutions(nb):
    """The learner's notebook: the same cells without those tagged ``solution``."""
    student = copy.deepcopy(nb)
    student.cells = [cell for cell in nb.cells if "solution" not in cell.metadata.get("tags", [])]
    return student


def execute(nb, path: Path) -> None:
    """Run ``nb`` (in the folder of ``path``, as Jupyter would) and save it at ``path``."""
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    join_stream_chunks(nb)
    scrub_outputs(nb)
    drop_widget_views(nb)
    nbformat.write(nb, path)


def build(source: Path) -> None:
    """Save the learner's notebook and the solutions, both executed."""
    nb = nbformat.read(source, as_version=4)
    execute(without_solutions(nb), HERE / source.name)
    execute(nb, source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="run only notebooks whose names start with these")
    args = parser.parse_args(argv)
    notebooks = sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
    if args.prefixes:
        notebooks = [nb for nb in notebooks if nb.name.startswith(tuple(args.prefixes))]
    if not notebooks:
        parser.error(f"no notebook in {HERE} starts with {' or '.join(args.prefixes)}")
    for path in notebooks:
        print(f"executing {path.name} and solutions/{path.name} ...", flush=True)
        build(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
