#!/usr/bin/env python3
"""Time autogradkit against PyTorch and a hand-written NumPy floor.

This is a benchmark, not a test: it reports timings and never fails on them.
It exits 0 unless the script itself crashes.

Workloads (one forward + backward per iteration, gradients cleared each time):

  tutorial  the step from PyTorch's autograd tutorial: z = x @ w + b, BCE-with-logits
  mlp       batch 64, 784-128-10, ReLU, BCE-with-logits, float32
  chain     a 0-d leaf through 200 steps of t = t * 1.001 + 0.001
  fanout    one (3, 3) leaf multiplied by 500 constant matrices, summed
  import    wall time of `python -c "import X"` minus `python -c "pass"`

The autogradkit and torch columns run literally the same code: the workload
functions take the library as an argument (`lib = autogradkit` or
`lib = torch`) and use only PyTorch API names. The numpy column is the same
math written by hand with NumPy arrays and a hand-written backward: the floor
that no engine built on NumPy can beat.

Everything runs on one thread (torch.set_num_threads(1); the BLAS thread
environment variables default to 1 before NumPy is imported), so the
comparison is about per-op overhead, not parallelism.

Before timing, each library's loss and gradients are checked against the NumPy
floor on the same inputs (the "check" column), so every column computes the
same thing.

Usage:
  python benchmarks/bench_core.py [--quick] [--only NAME[,NAME]] [--libs LIB[,LIB]] [--json PATH]
"""

from __future__ import annotations

import os

# One BLAS thread for NumPy (and so for autogradkit), like torch below.
# Must happen before NumPy is imported. Set the variables yourself to override.
for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ.setdefault(_var, "1")

import argparse
import contextlib
import gc
import importlib
import json
import math
import platform
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
# Run from a clone without installing: prefer the repository's autogradkit.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

ALL_LIBS = ("autogradkit", "torch", "numpy")
ALL_WORKLOADS = ("tutorial", "mlp", "chain", "fanout", "import")

# Targets: (reference column, maximum ratio autogradkit / reference).
TARGETS: dict[str, list[tuple[str, float]]] = {
    "tutorial": [("torch", 0.6)],
    "mlp": [("torch", 1.0), ("numpy", 1.1)],
    "chain": [("torch", 0.75)],
    "fanout": [("torch", 0.75)],
    "import": [("torch", 0.15)],
}

SEED = 0
MLP_BATCH, MLP_IN, MLP_HIDDEN, MLP_OUT = 64, 784, 128, 10
CHAIN_LEN = 200
FANOUT = 500


@dataclass
class Settings:
    warmup_s: float  # time spent running a workload before measuring
    block_s: float  # target duration of one timed block
    repeats: int  # timed blocks per library (interleaved); the median is reported
    import_runs: int  # fresh-process runs per import measurement


QUICK = Settings(warmup_s=0.05, block_s=0.04, repeats=5, import_runs=5)
FULL = Settings(warmup_s=0.3, block_s=0.2, repeats=15, import_runs=21)


# --------------------------------------------------------------------------
# Workloads. Each `*_lib` function builds the workload for a PyTorch-API
# library and returns a Case; each `*_numpy` function is the hand-written floor.
# --------------------------------------------------------------------------


@dataclass
class Case:
    step: Callable[[], Any]  # one timed iteration: forward, backward, clear grads
    result: Callable[[], dict[str, Any]]  # one iteration that returns loss and grads
    inputs: Callable[[], dict[str, np.ndarray]] | None = None  # the leaves' values


def _np(t) -> np.ndarray:
    """A tensor's values as a float64 NumPy array (works for torch and autogradkit)."""
    return np.asarray(t.tolist(), dtype=np.float64)


def _lib_tensor(lib, arr: np.ndarray, requires_grad: bool = False):
    """The same float32 values in any PyTorch-API library (via nested lists)."""
    return lib.tensor(arr.tolist(), requires_grad=requires_grad)


def _mlp_data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    f32 = np.float32
    return {
        "X": rng.standard_normal((MLP_BATCH, MLP_IN)).astype(f32),
        "Y": (rng.random((MLP_BATCH, MLP_OUT)) < 0.5).astype(f32),
        "W1": (rng.standard_normal((MLP_IN, MLP_HIDDEN)) / math.sqrt(MLP_IN)).astype(f32),
        "b1": (0.1 * rng.standard_normal(MLP_HIDDEN)).astype(f32),
        "W2": (rng.standard_normal((MLP_HIDDEN, MLP_OUT)) / math.sqrt(MLP_HIDDEN)).astype(f32),
        "b2": (0.1 * rng.standard_normal(MLP_OUT)).astype(f32),
    }


def _fanout_data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return {
        "a": rng.standard_normal((3, 3)).astype(np.float32),
        "ms": (rng.standard_normal((FANOUT, 3, 3)) / 3).astype(np.float32),
    }


# -- a. tutorial ------------------------------------------------------------


def tutorial_lib(lib) -> Case:
    lib.manual_seed(SEED)
    x = lib.ones(5)
    y = lib.zeros(3)
    w = lib.randn(5, 3, requires_grad=True)
    b = lib.randn(3, requires_grad=True)
    bce = lib.nn.functional.binary_cross_entropy_with_logits

    def forward_backward():
        z = lib.matmul(x, w) + b
        loss = bce(z, y)
        loss.backward()
        return loss

    def step():
        forward_backward()
        w.grad = None
        b.grad = None

    def result():
        loss = forward_backward()
        out = {"loss": loss.tolist(), "w": _np(w.grad), "b": _np(b.grad)}
        w.grad = None
        b.grad = None
        return out

    def inputs():
        return {"x": _np(x), "y": _np(y), "w": _np(w), "b": _np(b)}

    return Case(step, result, inputs)


def _bce_with_logits_np(z, y):
    """Mean BCE-with-logits and its gradient wrt z (PyTorch's stable formula)."""
    loss = np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))
    dz = (1.0 / (1.0 + np.exp(-z)) - y) / z.size
    return loss, dz


def tutorial_floor(x, y, w, b):
    z = x @ w + b
    loss, dz = _bce_with_logits_np(z, y)
    return loss, {"w": np.outer(x, dz), "b": dz}


def tutorial_numpy() -> Case:
    rng = np.random.default_rng(SEED)
    x = np.ones(5, np.float32)
    y = np.zeros(3, np.float32)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)

    def step():
        tutorial_floor(x, y, w, b)

    def result():
        loss, grads = tutorial_floor(x, y, w, b)
        return {"loss": float(loss), **grads}

    return Case(step, result)


# -- b. MLP -----------------------------------------------------------------


def mlp_lib(lib) -> Case:
    lib.manual_seed(SEED)
    d = _mlp_data()
    X, Y = _lib_tensor(lib, d["X"]), _lib_tensor(lib, d["Y"])
    W1, b1 = _lib_tensor(lib, d["W1"], True), _lib_tensor(lib, d["b1"], True)
    W2, b2 = _lib_tensor(lib, d["W2"], True), _lib_tensor(lib, d["b2"], True)
    bce = lib.nn.functional.binary_cross_entropy_with_logits

    def forward_backward():
        h = lib.relu(X @ W1 + b1)
        logits = h @ W2 + b2
        loss = bce(logits, Y)
        loss.backward()
        return loss

    def step():
        forward_backward()
        W1.grad = None
        b1.grad = None
        W2.grad = None
        b2.grad = None

    def result():
        loss = forward_backward()
        out = {
            "loss": loss.tolist(),
            "W1": _np(W1.grad),
            "b1": _np(b1.grad),
            "W2": _np(W2.grad),
            "b2": _np(b2.grad),
        }
        W1.grad = None
        b1.grad = None
        W2.grad = None
        b2.grad = None
        return out

    def inputs():
        return {
            "X": _np(X),
            "Y": _np(Y),
            "W1": _np(W1),
            "b1": _np(b1),
            "W2": _np(W2),
            "b2": _np(b2),
        }

    return Case(step, result, inputs)


def mlp_floor(X, Y, W1, b1, W2, b2):
    a = X @ W1 + b1
    h = np.maximum(a, 0)
    logits = h @ W2 + b2
    loss, dlogits = _bce_with_logits_np(logits, Y)
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dh = dlogits @ W2.T
    da = dh * (a > 0)
    dW1 = X.T @ da
    db1 = da.sum(axis=0)
    return loss, {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}


def mlp_numpy() -> Case:
    d = _mlp_data()
    args = (d["X"], d["Y"], d["W1"], d["b1"], d["W2"], d["b2"])

    def step():
        mlp_floor(*args)

    def result():
        loss, grads = mlp_floor(*args)
        return {"loss": float(loss), **grads}

    return Case(step, result)


# -- c. chain ---------------------------------------------------------------


def chain_lib(lib) -> Case:
    t0 = lib.tensor(1.0, requires_grad=True)

    def forward_backward():
        t = t0
        for _ in range(CHAIN_LEN):
            t = t * 1.001 + 0.001
        t.backward()
        return t

    def step():
        forward_backward()
        t0.grad = None

    def result():
        t = forward_backward()
        out = {"loss": t.tolist(), "t0": _np(t0.grad)}
        t0.grad = None
        return out

    def inputs():
        return {"t0": _np(t0)}

    return Case(step, result, inputs)


def chain_floor(t0):
    # forward
    t = t0
    for _ in range(CHAIN_LEN):
        t = t * 1.001 + 0.001
    # backward: d(t * c + d)/dt = c, applied once per step
    g = np.ones_like(t0)
    for _ in range(CHAIN_LEN):
        g = g * 1.001
    return t, {"t0": g}


def chain_numpy() -> Case:
    t0 = np.asarray(1.0, dtype=np.float32)

    def step():
        chain_floor(t0)

    def result():
        t, grads = chain_floor(t0)
        return {"loss": float(t), **grads}

    return Case(step, result)


# -- d. fan-out -------------------------------------------------------------


def fanout_lib(lib) -> Case:
    d = _fanout_data()
    a = _lib_tensor(lib, d["a"], True)
    ms = [_lib_tensor(lib, m) for m in d["ms"]]

    def forward_backward():
        s = a @ ms[0]
        for m in ms[1:]:
            s = s + a @ m
        loss = s.sum()
        loss.backward()
        return loss

    def step():
        forward_backward()
        a.grad = None

    def result():
        loss = forward_backward()
        out = {"loss": loss.tolist(), "a": _np(a.grad)}
        a.grad = None
        return out

    def inputs():
        return {"a": _np(a)}

    return Case(step, result, inputs)


def fanout_floor(a, ms):
    # forward
    s = a @ ms[0]
    for m in ms[1:]:
        s = s + a @ m
    loss = s.sum()
    # backward: ds = ones; each a @ m contributes ds @ m.T to a's gradient
    ds = np.ones_like(s)
    ga = np.zeros_like(a)
    for m in ms:
        ga = ga + ds @ m.T
    return loss, {"a": ga}


def fanout_numpy() -> Case:
    d = _fanout_data()
    a, ms = d["a"], list(d["ms"])

    def step():
        fanout_floor(a, ms)

    def result():
        loss, grads = fanout_floor(a, ms)
        return {"loss": float(loss), **grads}

    return Case(step, result)


BUILDERS: dict[str, tuple[Callable[[Any], Case], Callable[[], Case]]] = {
    "tutorial": (tutorial_lib, tutorial_numpy),
    "mlp": (mlp_lib, mlp_numpy),
    "chain": (chain_lib, chain_numpy),
    "fanout": (fanout_lib, fanout_numpy),
}


def reference(workload: str, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """The NumPy floor's loss and gradients on a library's own inputs (float64)."""
    if workload == "tutorial":
        loss, grads = tutorial_floor(inputs["x"], inputs["y"], inputs["w"], inputs["b"])
    elif workload == "mlp":
        loss, grads = mlp_floor(*(inputs[k] for k in ("X", "Y", "W1", "b1", "W2", "b2")))
    elif workload == "chain":
        loss, grads = chain_floor(inputs["t0"])
    elif workload == "fanout":
        loss, grads = fanout_floor(inputs["a"], list(_fanout_data()["ms"].astype(np.float64)))
    else:
        raise KeyError(workload)
    return {"loss": float(loss), **grads}


def check(workload: str, case: Case) -> str:
    """'ok' if one iteration's loss and grads match the NumPy floor on the same inputs."""
    got = case.result()
    want = reference(workload, case.inputs())
    bad = []
    for key, w in want.items():
        g = np.asarray(got.get(key), dtype=np.float64)
        if g.shape != np.shape(w) or not np.allclose(g, w, rtol=2e-4, atol=1e-5):
            bad.append(key)
    return "ok" if not bad else "MISMATCH(" + ",".join(bad) + ")"


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def _run_block(step: Callable[[], Any], n: int) -> float:
    """Seconds per iteration over n iterations. The GC stays on: it is part of the cost."""
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t0) / n


def _calibrate(step: Callable[[], Any], warmup_s: float, block_s: float) -> int:
    """Warm up for warmup_s and return the iteration count of a block_s block."""
    n, spent, iters = 1, 0.0, 0
    while spent < warmup_s or iters == 0:
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        spent += time.perf_counter() - t0
        iters += n
        n *= 2
    per_iter = spent / iters
    return max(1, round(block_s / per_iter))


def time_cases(cases: dict[str, Case], s: Settings) -> dict[str, float]:
    """Median µs/iter per library; blocks are interleaved across libraries so drift
    in machine speed hits every column alike."""
    counts = {name: _calibrate(c.step, s.warmup_s, s.block_s) for name, c in cases.items()}
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(s.repeats):
        for name, case in cases.items():
            samples[name].append(_run_block(case.step, counts[name]))
    return {name: statistics.median(v) * 1e6 for name, v in samples.items()}


def _spawn(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def time_imports(modules: dict[str, str], runs: int) -> dict[str, float]:
    """µs of `import M` in a fresh process, minus a bare interpreter start (medians)."""
    codes = {"<baseline>": "pass", **{lib: f"import {mod}" for lib, mod in modules.items()}}
    for code in codes.values():  # warm the OS file cache and .pyc files
        _spawn(code)
    samples: dict[str, list[float]] = {k: [] for k in codes}
    for _ in range(runs):
        for key, code in codes.items():
            samples[key].append(_spawn(code))
    base = statistics.median(samples.pop("<baseline>"))
    return {k: max(0.0, statistics.median(v) - base) * 1e6 for k, v in samples.items()}


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def load_libs(names: list[str]) -> dict[str, Any]:
    libs: dict[str, Any] = {}
    for name in names:
        if name == "numpy":
            libs[name] = np
            continue
        try:
            mod = importlib.import_module(name)
        except Exception as e:
            print(f"{name}: not importable: {type(e).__name__}: {e}")
            continue
        missing = [a for a in ("tensor", "randn", "matmul", "nn") if not hasattr(mod, a)]
        if missing:  # e.g. a half-written package, or a namespace package without __init__
            print(
                f"{name}: not importable: module {name!r} ({getattr(mod, '__file__', None)}) "
                f"lacks {', '.join(missing)}"
            )
            continue
        if name == "torch":
            mod.set_num_threads(1)
            with contextlib.suppress(RuntimeError):
                mod.set_num_interop_threads(1)
        libs[name] = mod
    return libs


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _fmt_us(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _fmt_ratio(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def run(args: argparse.Namespace) -> dict[str, Any]:
    s = QUICK if args.quick else FULL
    lib_names = [n.strip() for n in args.libs.split(",") if n.strip()]
    unknown = [n for n in lib_names if n not in ALL_LIBS]
    if unknown:
        raise SystemExit(f"unknown --libs {unknown}; choose from {', '.join(ALL_LIBS)}")
    workloads = (
        list(ALL_WORKLOADS)
        if not args.only
        else [w.strip() for w in args.only.split(",") if w.strip()]
    )
    unknown = [w for w in workloads if w not in ALL_WORKLOADS]
    if unknown:
        raise SystemExit(f"unknown --only {unknown}; choose from {', '.join(ALL_WORKLOADS)}")

    libs = load_libs(lib_names)
    meta = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "versions": {n: getattr(m, "__version__", "?") for n, m in libs.items()},
        "quick": bool(args.quick),
        "settings": s.__dict__,
        "threads": {"torch": 1, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS")},
    }
    print(
        f"python {meta['python']} on {meta['platform']}; "
        + ", ".join(f"{n} {v}" for n, v in meta["versions"].items())
        + ("; quick mode" if args.quick else "")
    )

    results = []
    for wl in workloads:
        t_start = time.perf_counter()
        us: dict[str, float | None] = dict.fromkeys(ALL_LIBS)
        checks: dict[str, str] = {}
        errors: dict[str, str] = {}
        if wl == "import":
            modules = {n: n for n in libs}
            try:
                us.update(time_imports(modules, s.import_runs))
            except Exception as e:
                errors["import"] = f"{type(e).__name__}: {e}"
        else:
            lib_builder, np_builder = BUILDERS[wl]
            cases: dict[str, Case] = {}
            for name, mod in libs.items():
                try:
                    case = np_builder() if name == "numpy" else lib_builder(mod)
                    try:
                        checks[name] = "ref" if case.inputs is None else check(wl, case)
                    except Exception as e:
                        checks[name] = f"n/a ({type(e).__name__})"
                    case.step()  # must not raise before we time it
                    cases[name] = case
                except Exception as e:
                    errors[name] = f"{type(e).__name__}: {e}"
                    if args.verbose:
                        traceback.print_exc()
            us.update(time_cases(cases, s) if cases else {})
        for name, err in errors.items():
            print(f"  {wl}/{name}: error: {err}")
        for name, c in checks.items():
            if c not in ("ok", "ref"):
                print(f"  {wl}/{name}: check: {c}")

        agk = us["autogradkit"]
        ratios = {"torch": _ratio(agk, us["torch"]), "numpy": _ratio(agk, us["numpy"])}
        targets = TARGETS[wl]
        verdicts = [ratios[ref] <= limit for ref, limit in targets if ratios[ref] is not None]
        met = None if len(verdicts) < len(targets) else all(verdicts)
        results.append(
            {
                "workload": wl,
                "us_per_iter": us,
                "ratio_agk_torch": ratios["torch"],
                "ratio_agk_numpy": ratios["numpy"],
                "target": {f"agk/{ref}": limit for ref, limit in targets},
                "met": met,
                "check": checks,
                "errors": errors,
                "seconds": round(time.perf_counter() - t_start, 2),
            }
        )
    return {"meta": meta, "results": results}


def print_table(report: dict[str, Any]) -> None:
    header = [
        "workload",
        "autogradkit µs",
        "torch µs",
        "numpy µs",
        "agk/torch",
        "agk/numpy",
        "target",
        "met?",
        "check",
    ]
    rows = [header]
    for r in report["results"]:
        us = r["us_per_iter"]
        target = ", ".join(f"{k}≤{v:g}" for k, v in r["target"].items())
        met = {True: "yes", False: "NO", None: "n/a"}[r["met"]]
        agk_check = r["check"].get("autogradkit", "-" if r["workload"] != "import" else "")
        rows.append(
            [
                r["workload"],
                _fmt_us(us["autogradkit"]),
                _fmt_us(us["torch"]),
                _fmt_us(us["numpy"]),
                _fmt_ratio(r["ratio_agk_torch"]),
                _fmt_ratio(r["ratio_agk_numpy"]),
                target,
                met,
                agk_check,
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print()
    for i, row in enumerate(rows):
        print(
            "  ".join(
                cell.ljust(w) if j in (0, 6, 7, 8) else cell.rjust(w)
                for j, (cell, w) in enumerate(zip(row, widths))
            ).rstrip()
        )
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print(
        "\nµs per iteration (import: µs per fresh-process import, interpreter start "
        "subtracted); median of interleaved blocks. Timings are reported, not asserted."
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer, shorter runs (< 60 s in all)")
    p.add_argument(
        "--only",
        metavar="NAME[,NAME]",
        help=f"run only these workloads: {', '.join(ALL_WORKLOADS)}",
    )
    p.add_argument(
        "--libs",
        default=",".join(ALL_LIBS),
        help="comma-separated libraries to time (default: %(default)s)",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of errors")
    args = p.parse_args(argv)

    t0 = time.perf_counter()
    report = run(args)
    report["meta"]["total_seconds"] = round(time.perf_counter() - t0, 2)
    print_table(report)
    print(f"total {report['meta']['total_seconds']:.1f} s")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
