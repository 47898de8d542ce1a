"""Write ``tests/golden/differential.json``: PyTorch's record of every differential
program in ``tests/differential/test_{ops,errors,api}_vs_torch.py``.

Run ``python3 tests/golden/make_differential_golden.py`` on a machine with PyTorch
after adding or changing a program. With program ids (or id prefixes) as arguments,
``make_differential_golden.py errors/huber-dtype-pairs api/``, only those programs and
programs not yet in the file are recorded; every other entry is kept as it is. Use
that form for a change to a few programs: PyTorch's float32 ``exp``, ``tanh``... can
differ in the last bit from one CPU to another, and recording everything again on
another machine rewrites a hundred entries that the tests compare with a tolerance. The file stores, per program id, the input
``spec`` (the NumPy seed and the shape/dtype/kind of each input -- the arrays
themselves are regenerated from the seed, not stored) and PyTorch's structured
``record`` (see ``tests/differential/harness.py``). The differential tests compare
autogradkit with these records when PyTorch is absent, and check that they are not
stale when it is present.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIFFERENTIAL = HERE.parent / "differential"
REPO = HERE.parent.parent


def _import(name: str):
    spec = importlib.util.spec_from_file_location(name, DIFFERENTIAL / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def all_programs() -> list:
    for path in (str(DIFFERENTIAL), str(REPO)):
        if path not in sys.path:
            sys.path.insert(0, path)
    harness = _import("harness")
    programs = []
    for name in harness.PROGRAM_MODULES:
        programs.extend(_import(name).PROGRAMS)
    return programs


def _kept_entries(refresh: list[str]) -> dict:
    """The entries of the file as it is, but those whose id starts with one of
    ``refresh`` (all of them when ``refresh`` is empty: everything is recorded)."""
    import harness

    if not refresh or not harness.GOLDEN_PATH.exists():
        return {}
    stored = json.loads(harness.GOLDEN_PATH.read_text())["programs"]
    return {pid: entry for pid, entry in stored.items() if not pid.startswith(tuple(refresh))}


def main(refresh: list[str]) -> None:
    programs = all_programs()
    import harness
    import numpy
    import torch

    ids = [p.id for p in programs]
    assert len(ids) == len(set(ids)), "duplicate program ids"
    kept = _kept_entries(refresh)
    entries = {}
    for prog in programs:
        spec = prog.spec()
        if prog.id in kept and kept[prog.id]["spec"] == spec:
            entries[prog.id] = kept[prog.id]
        else:
            entries[prog.id] = {"spec": spec, "record": harness.run_program(torch, prog)}
    header = {
        "format": harness.GOLDEN_FORMAT,
        "generator": "tests/golden/make_differential_golden.py",
        "torch_version": torch.__version__,
        "numpy_version": numpy.__version__,
    }
    # One program per line: compact, yet a regenerated file diffs program by program.
    lines = [
        json.dumps(pid) + ":" + json.dumps(entry, separators=(",", ":"))
        for pid, entry in entries.items()
    ]
    text = (
        json.dumps(header, separators=(",", ":"))[:-1]
        + ',"programs":{\n'
        + ",\n".join(lines)
        + "\n}}"
    )
    assert json.loads(text)["programs"].keys() == entries.keys()
    harness.GOLDEN_PATH.write_text(text + "\n")
    print(f"wrote {len(entries)} programs to {harness.GOLDEN_PATH} ({len(text) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main(sys.argv[1:])
