"""Differential testing of autogradkit against PyTorch.

A *program* is a plain function ``prog(lib, inputs)``: ``lib`` is a library
module (``autogradkit`` or ``torch``), ``inputs`` a dict of NumPy arrays made
deterministically from a seed. It builds tensors with ``lib.tensor(...)`` /
``lib.from_numpy(...)``, runs some code and returns a structured result (tensors,
numbers, strings, nested tuples/lists/dicts, graph nodes, errors caught with
:func:`attempt`).

:func:`run_program` runs a program on one library and turns everything into a
JSON-able *record*:

* ``result`` -- the returned structure, where every tensor becomes its dtype
  name, shape, values, ``requires_grad``/``is_leaf``/``retains_grad`` flags, its
  ``grad_fn`` graph (names, ``None`` entries and ``input_nr`` of the whole
  ``next_functions`` structure, walked recursively; shared nodes become
  references so the graph's *sharing* is compared too), the ``.grad`` of leaves
  (and of ``retain_grad()`` tensors) and its ``repr``;
* ``error`` -- the exception that escaped the program (type and message);
* ``warnings`` -- every warning (category and message);
* ``stdout`` -- whatever the program printed.

:func:`compare` compares two records: values with a dtype-appropriate tolerance
(exact for ints and bools), everything else exactly. Texts (reprs, messages,
printed output) are normalised for the *known, intended* differences only:

* ``autogradkit.float32`` / ``autogradkit.Size([...])`` /
  ``autogradkit.return_types.max(...)`` print where PyTorch prints
  ``torch.float32`` / ``torch.Size([...])`` / ``torch.return_types.max(...)``;
* ``AccumulateGrad.name()`` is ``autogradkit::autograd::AccumulateGrad`` where
  PyTorch says ``torch::autograd::AccumulateGrad`` (likewise ``NotImplemented``);
* PyTorch appends ``(Triggered internally at <C++ file>:<line>.)`` to some
  warnings; that suffix is stripped;
* ``object at 0x7f...`` addresses are masked.

A tensor's ``repr`` is compared only when its values are bit-for-bit equal in
both records (otherwise a last-bit difference could legitimately round to a
different printed digit). When PyTorch is live, tensors whose values differ in
the last bits still get their printing checked: both libraries print a tensor
built from autogradkit's own numbers.

The golden file ``tests/golden/differential.json`` holds PyTorch's records
(written by ``tests/golden/make_differential_golden.py``) so the comparison
also runs where PyTorch is not installed. Set ``AUTOGRADKIT_HIDE_TORCH=1`` to
behave as if PyTorch were not installed.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HIDE_TORCH_ENV = "AUTOGRADKIT_HIDE_TORCH"
TESTS_DIR = Path(__file__).resolve().parent.parent
GOLDEN_PATH = TESTS_DIR / "golden" / "differential.json"
GOLDEN_FORMAT = 1
# The test modules whose PROGRAMS lists the golden file covers.
PROGRAM_MODULES = (
    "test_ops_vs_torch",
    "test_errors_vs_torch",
    "test_api_vs_torch",
    "test_curriculum_vs_torch",
    "test_edges_vs_torch",
    "test_material_vs_torch",
    "test_views_vs_torch",
    "test_parity_vs_torch",
    "test_zero_d_vs_torch",
    "test_shape_vs_torch",
)


# --------------------------------------------------------------------------- libraries


def torch_hidden() -> bool:
    return os.environ.get(HIDE_TORCH_ENV, "").strip() not in ("", "0")


@functools.cache
def load_torch():
    """The ``torch`` module, or None when it is not installed (or hidden)."""
    if torch_hidden():
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch


def require_torch():
    """``torch`` for a live test; skips the test when it is unavailable."""
    import pytest

    torch = load_torch()
    if torch is None:
        pytest.skip("PyTorch is not installed (or AUTOGRADKIT_HIDE_TORCH is set)")
    return torch


def load_autogradkit():
    import autogradkit

    return autogradkit


def is_autogradkit(lib) -> bool:
    return lib.__name__.split(".")[0] == "autogradkit"


# --------------------------------------------------------------------------- programs


@dataclass(frozen=True)
class Inp:
    """How to make one input array: its shape, dtype and kind of values.

    Kinds: ``normal`` (standard normal), ``positive`` (uniform in [0.5, 2)),
    ``halves`` (multiples of 0.5 in [-4, 4]: exactly representable, so sums and
    products print deterministically), ``nonzero`` (|x| in [0.25, 2), random sign:
    away from the kinks of abs/relu/clamp), ``unit`` (uniform in [0.05, 0.95]),
    ``binary`` (0.0 or 1.0), ``extreme`` (±30 and ±100, for logits), ``ties`` (integers in [-2, 2] as floats: many ties),
    ``int`` (integers in [-5, 5]), ``bool``.
    """

    shape: tuple = ()
    dtype: str = "float32"
    kind: str = "normal"

    def to_json(self) -> list:
        return [list(self.shape), self.dtype, self.kind]


@dataclass
class Program:
    """One differential test case.

    ``xfail`` marks a known autogradkit bug (the test is a strict xfail).
    ``ignore_graph`` skips the ``grad_fn`` comparison where autogradkit documents a
    different graph; ``agk_graph`` then gives autogradkit's documented graph of
    ``result[graph_key]`` in :func:`render_graph` form, which is asserted instead.
    ``rtol``/``atol`` override the float tolerance.
    """

    id: str
    fn: Callable[[Any, dict], Any]
    inputs: dict = field(default_factory=dict)
    seed: int = 0
    xfail: str | None = None
    ignore_graph: bool = False
    agk_graph: str | None = None
    graph_key: str = "y"
    rtol: float | None = None
    atol: float | None = None

    def spec(self) -> dict:
        return {
            "seed": self.seed,
            "inputs": {k: v.to_json() for k, v in sorted(self.inputs.items())},
        }


def make_array(rng: np.random.Generator, inp: Inp) -> np.ndarray:
    shape, kind = tuple(inp.shape), inp.kind
    a: np.ndarray
    if kind == "normal":
        a = rng.standard_normal(shape)
    elif kind == "positive":
        a = rng.uniform(0.5, 2.0, shape)
    elif kind == "halves":
        a = rng.integers(-8, 9, shape) / 2.0
    elif kind == "nonzero":
        a = rng.uniform(0.25, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif kind == "unit":
        a = rng.uniform(0.05, 0.95, shape)
    elif kind == "binary":
        a = rng.integers(0, 2, shape).astype(np.float64)
    elif kind == "ties":
        a = rng.integers(-2, 3, shape).astype(np.float64)
    elif kind == "extreme":
        a = rng.choice([-100.0, -30.0, 30.0, 100.0], shape)
    elif kind == "int":
        a = rng.integers(-5, 6, shape)
    elif kind == "bool":
        a = rng.integers(0, 2, shape).astype(bool)
    else:
        raise ValueError(f"unknown input kind {kind!r}")
    return np.asarray(a, dtype=np.dtype(inp.dtype))


def make_inputs(prog: Program) -> dict:
    rng = np.random.default_rng(prog.seed)
    return {name: make_array(rng, prog.inputs[name]) for name in sorted(prog.inputs)}


def weight_array(shape, dtype: str, seed: int) -> np.ndarray:
    """A fixed random weight/gradient of ``shape`` (normal values, rounded to
    multiples of 1/8 so products stay short)."""
    rng = np.random.default_rng(10_000 + seed)
    return (np.round(rng.standard_normal(tuple(shape)) * 8) / 8).astype(np.dtype(dtype))


def dtype_name(dt) -> str:
    return str(dt).rsplit(".", 1)[-1]


class Raised:
    """An exception caught inside a program by :func:`attempt`."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or a :class:`Raised` record of the exception it raised."""
    try:
        return fn()
    except Exception as error:
        return Raised(error)


def caught_warnings(fn: Callable[[], Any]) -> list:
    """Run ``fn`` and return the warnings it emitted as ``[category, message]``
    pairs (inside a program, to tie a warning to the statement that made it)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [[w.category.__name__, normalize_text(str(w.message))] for w in caught]


# --------------------------------------------------------------------------- text

_DTYPE_NAMES = r"(float32|float64|int64|bool|float|double|long|Size|dtype|Tensor|return_types)"
_AGK_NAME = re.compile(r"\bautogradkit\." + _DTYPE_NAMES + r"\b")
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^\n]*?\.\)")
_ADDRESS = re.compile(r"object at 0x[0-9a-fA-F]+")


def normalize_text(text: str) -> str:
    """Apply the known, intended autogradkit→PyTorch spelling differences (and
    mask addresses, strip PyTorch's C++ location suffixes)."""
    text = _AGK_NAME.sub(r"torch.\1", text)
    text = text.replace("autogradkit::autograd::", "torch::autograd::")
    # A custom Function's node is named by its module, as in PyTorch.
    text = text.replace("<autogradkit.autograd.function.", "<torch.autograd.function.")
    # A saved tensor's class is C++'s in PyTorch, Python's here.
    text = text.replace(
        "autogradkit.autograd.saved_variable.SavedTensor", "torch._C._autograd.SavedTensor"
    )
    text = _TRIGGERED.sub("", text)
    text = _ADDRESS.sub("object at 0x<address>", text)
    return text


# --------------------------------------------------------------------------- encoding


class _Encoder:
    def __init__(self, lib) -> None:
        self.lib = lib
        self.nodes: dict[int, int] = {}
        self.keep: list = []  # keep nodes alive so ids stay unique

    def encode(self, obj: Any) -> Any:
        lib = self.lib
        if obj is None:
            return None
        if isinstance(obj, Raised):
            return {"raised": encode_error(obj.error)}
        if isinstance(obj, lib.Tensor):
            return {"tensor": self.tensor(obj)}
        if isinstance(obj, (bool, np.bool_)):
            return {"bool": bool(obj)}
        if isinstance(obj, (int, np.integer)):
            return {"int": int(obj)}
        if isinstance(obj, (float, np.floating)):
            return {"float": float(obj)}
        if isinstance(obj, str):
            return {"str": normalize_text(obj)}
        if isinstance(obj, np.ndarray):
            return {
                "ndarray": {
                    "dtype": obj.dtype.name,
                    "shape": list(obj.shape),
                    "values": obj.tolist(),
                }
            }
        if type(obj).__name__ == "Size" and isinstance(obj, tuple):
            return {"size": [int(n) for n in obj], "repr": normalize_text(repr(obj))}
        if isinstance(obj, lib.dtype):
            return {"dtype": dtype_name(obj)}
        if hasattr(obj, "next_functions") and hasattr(obj, "name"):
            return {"node": self.graph(obj), "repr": normalize_text(repr(obj))}
        if isinstance(obj, tuple):
            return {"tuple": [self.encode(x) for x in obj]}
        if isinstance(obj, list):
            return {"list": [self.encode(x) for x in obj]}
        if isinstance(obj, dict):
            return {"dict": {str(k): self.encode(v) for k, v in obj.items()}}
        raise TypeError(f"cannot encode {type(obj).__name__} in a program record")

    def graph(self, node) -> Any:
        if node is None:
            return None
        key = id(node)
        if key in self.nodes:
            return {"ref": self.nodes[key]}
        self.nodes[key] = len(self.nodes)
        self.keep.append(node)
        return {
            "name": normalize_text(node.name()),
            "id": self.nodes[key],
            "next": [[self.graph(child), int(nr)] for child, nr in node.next_functions],
        }

    def tensor(self, t) -> dict:
        data = t.detach().numpy()
        record = {
            "dtype": dtype_name(t.dtype),
            "shape": list(t.shape),
            "values": data.tolist(),
            "requires_grad": bool(t.requires_grad),
            "is_leaf": bool(t.is_leaf),
            "retains_grad": bool(t.retains_grad),
            "grad_fn": self.graph(t.grad_fn),
            "repr": normalize_text(repr(t)),
        }
        if (t.is_leaf and t.requires_grad) or t.retains_grad:
            record["grad"] = self.encode(t.grad)
        return record


def encode_error(error: BaseException | None) -> Any:
    if error is None:
        return None
    return {"type": type(error).__name__, "message": normalize_text(str(error))}


def run_program(lib, prog: Program) -> dict:
    """Run ``prog`` on ``lib`` and return its JSON-able record."""
    inputs = make_inputs(prog)
    out = io.StringIO()
    result = error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(out):
            try:
                result = prog.fn(lib, inputs)
            except Exception as exc:
                error = exc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoded = _Encoder(lib).encode(result)
    record = {
        "result": encoded,
        "error": encode_error(error),
        "warnings": [[w.category.__name__, normalize_text(str(w.message))] for w in caught],
        "stdout": normalize_text(out.getvalue()),
    }
    # Round-trip through JSON so live records look exactly like golden ones.
    return json.loads(json.dumps(record))


# --------------------------------------------------------------------------- comparing

TOLERANCES = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}


class Comparison:
    def __init__(self, prog: Program, repr_fallback: Callable | None = None) -> None:
        self.prog = prog
        self.problems: list[str] = []
        self.repr_fallback = repr_fallback
        self.reprs_compared = 0

    def fail(self, path: str, message: str) -> None:
        self.problems.append(f"{path or '<record>'}: {message}")

    def tol(self, dtype: str) -> tuple[float, float]:
        rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
        return (
            self.prog.rtol if self.prog.rtol is not None else rtol,
            self.prog.atol if self.prog.atol is not None else atol,
        )

    # -- generic -----------------------------------------------------------------
    def value(self, a: Any, e: Any, path: str) -> None:
        if a is None or e is None:
            if a is not e:
                self.fail(path, f"expected {_short(e)}, got {_short(a)}")
            return
        if set(a) != set(e):
            self.fail(path, f"expected {_short(e)}, got {_short(a)}")
            return
        kind = next(iter(e))
        av, ev = a[kind], e[kind]
        if kind == "tensor":
            self.tensor(av, ev, path)
        elif kind == "float":
            rtol, atol = self.tol("float32")
            if not _close(av, ev, rtol, atol):
                self.fail(path, f"float {av!r} != expected {ev!r}")
        elif kind == "ndarray":
            self.array(av, ev, path)
        elif kind == "node":
            self.node(av, ev, path)
            if a.get("repr") != e.get("repr"):
                self.fail(path + ".repr", f"{a.get('repr')!r} != expected {e.get('repr')!r}")
        elif kind in ("tuple", "list"):
            if len(av) != len(ev):
                self.fail(
                    path,
                    f"{kind} of length {len(av)} != expected {len(ev)}: {_short(a)} vs {_short(e)}",
                )
                return
            for i, (x, y) in enumerate(zip(av, ev)):
                self.value(x, y, f"{path}[{i}]")
        elif kind == "dict":
            if list(av) != list(ev):
                self.fail(path, f"keys {list(av)} != expected {list(ev)}")
                return
            for k in ev:
                self.value(av[k], ev[k], f"{path}.{k}" if path else k)
        elif kind == "raised":
            self.error(av, ev, path)
        elif kind == "size":
            if av != ev or a.get("repr") != e.get("repr"):
                self.fail(path, f"Size {a} != expected {e}")
        else:  # bool, int, str, dtype: exact
            if av != ev or type(av) is not type(ev):
                self.fail(path, f"{kind} {av!r} != expected {ev!r}")

    def error(self, a: Any, e: Any, path: str) -> None:
        if a != e:
            self.fail(path, f"error {_fmt_error(a)}\n      expected {_fmt_error(e)}")

    def array(self, a: dict, e: dict, path: str) -> bool:
        """Compare dtype, shape and values; return whether the values are identical."""
        if a["dtype"] != e["dtype"]:
            self.fail(path, f"dtype {a['dtype']} != expected {e['dtype']}")
            return False
        if a["shape"] != e["shape"]:
            self.fail(path, f"shape {a['shape']} != expected {e['shape']}")
            return False
        av = np.asarray(a["values"], dtype=np.dtype(a["dtype"])).reshape(a["shape"])
        ev = np.asarray(e["values"], dtype=np.dtype(e["dtype"])).reshape(e["shape"])
        if av.dtype.kind == "f":
            rtol, atol = self.tol(a["dtype"])
            if not np.allclose(av, ev, rtol=rtol, atol=atol, equal_nan=True) or not np.array_equal(
                np.isnan(av), np.isnan(ev)
            ):
                worst = np.nanmax(np.abs(av.astype(np.float64) - ev)) if av.size else 0.0
                self.fail(
                    path,
                    f"values differ (max abs diff {worst:.3g}):\n      got      "
                    f"{_short(a['values'])}\n      expected {_short(e['values'])}",
                )
                return False
            return bool(np.array_equal(av, ev, equal_nan=True)) and bool(
                np.array_equal(np.signbit(av), np.signbit(ev))
            )
        if not np.array_equal(av, ev):
            self.fail(path, f"values {_short(a['values'])} != expected {_short(e['values'])}")
            return False
        return True

    def tensor(self, a: dict, e: dict, path: str) -> None:
        identical = self.array(a, e, path)
        for flag in ("requires_grad", "is_leaf", "retains_grad"):
            if a[flag] != e[flag]:
                self.fail(f"{path}.{flag}", f"{a[flag]} != expected {e[flag]}")
        if not self.prog.ignore_graph:
            self.node(a["grad_fn"], e["grad_fn"], path + ".grad_fn")
        if ("grad" in a) != ("grad" in e):
            self.fail(path + ".grad", "present on one side only")
        elif "grad" in e:
            self.value(a["grad"], e["grad"], path + ".grad")
        if identical:
            if a["repr"] != e["repr"] and not (
                self.prog.ignore_graph and _strip_grad_fn(a["repr"]) == _strip_grad_fn(e["repr"])
            ):
                self.fail(
                    path + ".repr", f"\n      got      {a['repr']!r}\n      expected {e['repr']!r}"
                )
            self.reprs_compared += 1
        elif (
            self.repr_fallback is not None and a["dtype"] == e["dtype"] and a["shape"] == e["shape"]
        ):
            got, expected = self.repr_fallback(a)
            if got != expected:
                self.fail(
                    path + ".repr(autogradkit's values)",
                    f"\n      got      {got!r}\n      expected {expected!r}",
                )
            self.reprs_compared += 1

    def node(self, a: Any, e: Any, path: str) -> None:
        if a is None or e is None:
            if a is not e:
                self.fail(path, f"{_render(a)} != expected {_render(e)}")
            return
        if "ref" in a or "ref" in e:
            if a != e:
                self.fail(path, f"graph sharing differs: {a} vs expected {e}")
            return
        if a["name"] != e["name"] or len(a["next"]) != len(e["next"]):
            self.fail(path, f"node {_render(a)}\n      expected {_render(e)}")
            return
        for i, ((ac, anr), (ec, enr)) in enumerate(zip(a["next"], e["next"])):
            if anr != enr:
                self.fail(f"{path}.next_functions[{i}]", f"input_nr {anr} != expected {enr}")
            self.node(ac, ec, f"{path}.next_functions[{i}][0]")

    # -- whole records -------------------------------------------------------------
    def records(self, actual: dict, expected: dict) -> None:
        self.error(actual["error"], expected["error"], "error")
        self.value(actual["result"], expected["result"], "result")
        if actual["warnings"] != expected["warnings"]:
            self.fail("warnings", f"{actual['warnings']}\n      expected {expected['warnings']}")
        if actual["stdout"] != expected["stdout"]:
            self.fail(
                "stdout", f"\n--- got:\n{actual['stdout']}\n--- expected:\n{expected['stdout']}"
            )


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def _strip_grad_fn(text: str) -> str:
    return re.sub(r",\s*grad_fn=<\w+>", "", text)


def _fmt_error(e: Any) -> str:
    if e is None:
        return "no error"
    return f"{e['type']}: {e['message']}"


def _short(x: Any, limit: int = 300) -> str:
    text = json.dumps(x) if not isinstance(x, str) else x
    return text if len(text) <= limit else text[:limit] + "…"


def _render(node: Any) -> str:
    if node is None:
        return "None"
    if "ref" in node:
        return f"@{node['ref']}"
    name = node["name"].replace("torch::autograd::", "")
    if not node["next"]:
        return name
    return name + "(" + ", ".join(_render(c) for c, _ in node["next"]) + ")"


def render_graph(encoded_tensor: dict) -> str:
    """A tensor's graph as ``Name(child, child)`` text (AccumulateGrad unprefixed,
    shared nodes as ``@id``)."""
    return _render(encoded_tensor["tensor"]["grad_fn"])


def compare(actual: dict, expected: dict, prog: Program, repr_fallback=None) -> Comparison:
    comparison = Comparison(prog, repr_fallback)
    comparison.records(actual, expected)
    if prog.ignore_graph and prog.agk_graph is not None and actual["result"] is not None:
        result = actual["result"]["dict"][prog.graph_key]
        if render_graph(result) != prog.agk_graph:
            comparison.fail(
                f"result.{prog.graph_key}.grad_fn",
                f"documented autogradkit graph {prog.agk_graph}, got {render_graph(result)}",
            )
    return comparison


def assert_same(
    actual: dict, expected: dict, prog: Program, against: str, repr_fallback=None
) -> None:
    comparison = compare(actual, expected, prog, repr_fallback)
    if comparison.problems:
        shown = comparison.problems[:12]
        more = len(comparison.problems) - len(shown)
        raise AssertionError(
            f"{prog.id}: autogradkit differs from {against}:\n  "
            + "\n  ".join(shown)
            + (f"\n  … and {more} more" if more > 0 else "")
        )


# --------------------------------------------------------------------------- golden file


@functools.lru_cache(maxsize=1)
def load_golden() -> dict:
    if not GOLDEN_PATH.exists():
        return {}
    with open(GOLDEN_PATH) as f:
        return json.load(f)


def golden_entry(prog: Program) -> dict:
    golden = load_golden()
    if not golden:
        raise AssertionError(
            f"{GOLDEN_PATH} is missing: run tests/golden/make_differential_golden.py"
        )
    entry = golden["programs"].get(prog.id)
    if entry is None:
        raise AssertionError(
            f"{prog.id} is not in {GOLDEN_PATH.name}: regenerate it with "
            "tests/golden/make_differential_golden.py"
        )
    if entry["spec"] != json.loads(json.dumps(prog.spec())):
        raise AssertionError(
            f"{prog.id}: the golden entry was made from other inputs "
            f"({entry['spec']} vs {prog.spec()}); regenerate the golden file"
        )
    return entry


_torch_records: dict[str, dict] = {}


def torch_record(prog: Program) -> dict:
    torch = require_torch()
    if prog.id not in _torch_records:
        _torch_records[prog.id] = run_program(torch, prog)
    return _torch_records[prog.id]


def check_against_golden(prog: Program) -> None:
    """autogradkit vs the PyTorch record stored in the golden file (no torch needed)."""
    entry = golden_entry(prog)
    actual = run_program(load_autogradkit(), prog)
    assert_same(actual, entry["record"], prog, "PyTorch (golden file)")


def check_against_live_torch(prog: Program) -> None:
    """autogradkit vs PyTorch run now; then the golden entry vs PyTorch run now
    (catching a stale golden file)."""
    torch = require_torch()
    agk = load_autogradkit()
    expected = torch_record(prog)
    actual = run_program(agk, prog)

    def repr_fallback(a: dict) -> tuple[str, str]:
        values = np.asarray(a["values"], dtype=np.dtype(a["dtype"])).reshape(a["shape"])
        return (
            normalize_text(repr(agk.tensor(values))),
            normalize_text(repr(torch.tensor(values))),
        )

    assert_same(actual, expected, prog, "live PyTorch", repr_fallback)
    # The golden file must still say what PyTorch says.
    entry = golden_entry(prog)
    comparison = compare(
        entry["record"], expected, Program(prog.id, prog.fn, rtol=prog.rtol, atol=prog.atol)
    )
    if comparison.problems:
        raise AssertionError(
            f"{prog.id}: the golden file is stale (live PyTorch says otherwise; "
            "'got' is the golden file, 'expected' live PyTorch); regenerate it:\n  "
            + "\n  ".join(comparison.problems[:8])
        )


def params(programs: list[Program]) -> list:
    """pytest parameters for ``programs`` (strict xfail for known bugs)."""
    import pytest

    ids = [p.id for p in programs]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"duplicate program ids: {sorted(duplicates)}"
    out = []
    for p in programs:
        marks = [pytest.mark.xfail(strict=True, reason=p.xfail)] if p.xfail else []
        out.append(pytest.param(p, id=p.id, marks=marks))
    return out


# --------------------------------------------------------------------------- helpers for programs


def leaves(lib, inputs: dict, grad=(), names=None) -> dict:
    """``lib.tensor(array)`` for every input; those named in ``grad`` require grad."""
    names = sorted(inputs) if names is None else names
    return {n: lib.tensor(inputs[n], requires_grad=n in grad) for n in names}


def weight_like(lib, t, seed: int):
    """A fixed random tensor with ``t``'s shape and dtype."""
    return lib.tensor(weight_array(tuple(t.shape), dtype_name(t.dtype), seed))


def backward_outputs(lib, outputs, seed: int, how: str = "gradient"):
    """Backward from the float outputs that require grad.

    ``how="gradient"``: ``autograd.backward(outputs, weights)`` (a vector-Jacobian
    product with a fixed random ``v`` per output); ``how="sum"``: the scalar
    ``sum((out * weight).sum())`` and ``.backward()`` on it, which is returned.
    """
    outs = [
        o
        for o in (outputs if isinstance(outputs, (tuple, list)) else (outputs,))
        if isinstance(o, lib.Tensor) and o.requires_grad
    ]
    if not outs:
        return None
    weights = [weight_like(lib, o, seed + i) for i, o in enumerate(outs)]
    if how == "gradient":
        if len(outs) == 1:
            outs[0].backward(weights[0])
        else:
            lib.autograd.backward(outs, weights)
        return None
    total = None
    for o, w in zip(outs, weights):
        term = (o * w).sum()
        total = term if total is None else total + term
    total.backward()
    return total


def import_torch_jvp_decompositions() -> None:
    """PyTorch's first ``make_dual`` in a process imports its jvp decompositions,
    which warn (``torch.jit.script`` is deprecated): import them now, silently, so
    no program's recorded warnings depend on which program ran first."""
    try:
        import torch
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch._decomp.decompositions_for_jvp  # noqa: F401
