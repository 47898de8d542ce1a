#!/usr/bin/env python3
"""Time autogradkit against PyTorch and a hand-written NumPy floor.

This is a benchmark, not a test: it reports timings and never fails on them.
It exits 0 unless the script itself crashes.

Workloads (one forward + backward per iteration, gradients cleared each time):

  tutorial  the step from PyTorch's autograd tutorial: z = x @ w + b, BCE-with-logits
  mlp       batch 64, 784-128-10, ReLU, BCE-with-logits, float32
  chain     a 0-d leaf through 200 links of t = t * 1.001 + 0.001
  fanout    one (3, 3) leaf multiplied by 500 constant matrices, summed
  import    `python -c "import X"` minus `python -c "pass"`

Growth workloads (how the cost scales; a second table):

  chain-N   the chain with N = 200, 2,000, 20,000 links, reported in µs per link
            (one link records a Mul and an Add); the cost per link should stay flat
  mm-N      (a @ b).sum().backward() for two (N, N) float32 leaves, N = 8 ... 1024

The chains are timed with each library in a fresh process of its own that
imports only that library (besides this script's NumPy and standard library),
so one library's heap does not tax the other's garbage collector. A chain's
graph is alive until backward() and the gen-2 (full) collections that its
surviving objects trigger walk every object the process tracks: with torch
imported (~167k tracked objects, against ~24k for autogradkit and NumPy)
those collections take several times longer, while torch's graph lives in C++ and leaves nothing for the collector, so in one
shared process one column paid for the other's heap (at 20,000 links
autogradkit 1.46-1.57x its 200-link cost per link there, 1.32-1.44x in its own
process). The mm-N products stay in this process: their graph is two nodes
freed at each iteration, which triggers no collection at all (none in 2,000
iterations of mm-8 or mm-64 with torch imported), and a process of their own
would have to warm its BLAS and build its large leaves again.

The autogradkit and torch columns run literally the same code: the workload
functions take the library as an argument (`lib = autogradkit` or
`lib = torch`) and use only PyTorch API names. The numpy column is the same
math written by hand with NumPy arrays and a hand-written backward: the floor
that no engine built on NumPy can beat.

Everything runs on one thread (torch.set_num_threads(1); the BLAS thread
environment variables default to 1 before NumPy is imported), so the
comparison is about per-op overhead, not parallelism. Each library's BLAS is
warmed with a few large products before anything is measured: a cold OpenBLAS
runs sgemm at n = 192-256 several times slower until a larger product has run.

Before timing, each library's loss and gradients are checked against the NumPy
floor on the same inputs (the "check" column), so every column computes the
same thing.

Two kinds of figures:

* time (default): CPU time of this process (what the ratios use: on a shared
  machine it does not count the time other processes hold the CPU) and wall
  time, medians of interleaved blocks;
* instructions (--callgrind): each library runs in its own process under
  valgrind's callgrind; counting starts and stops at markers around the
  measured region (an `os.getppid()` call before it, `os.getpgrp()` after it),
  so the figures leave out start-up and warm-up and are the same on a busy
  machine. Slow (10-15 minutes of CPU for everything; --only narrows it; mm-512
  and mm-1024 only when named); never part of CI.

--quick (CI's run) takes fewer, shorter blocks and, like --callgrind, leaves out
mm-512 and mm-1024 unless --only names them.

Usage:
  python benchmarks/bench_core.py [--quick] [--only NAME[,NAME]] [--libs LIB[,LIB]] [--json PATH]
  python benchmarks/bench_core.py --callgrind [--only NAME[,NAME]] [--libs ...] [--json PATH]

NAME may also be `growth` (all chain-N and mm-N) or `main` (the five above).
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
import functools
import gc
import importlib
import json
import math
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
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
MAIN_WORKLOADS = ("tutorial", "mlp", "chain", "fanout", "import")
GROWTH_CHAIN = (200, 2_000, 20_000)
GROWTH_MM = (8, 16, 32, 64, 128, 256, 512, 1024)
GROWTH_WORKLOADS = tuple(f"chain-{n}" for n in GROWTH_CHAIN) + tuple(f"mm-{n}" for n in GROWTH_MM)
ALL_WORKLOADS = MAIN_WORKLOADS + GROWTH_WORKLOADS
LARGE_MM = ("mm-512", "mm-1024")  # left out of --quick and --callgrind unless named

# Targets: (reference column, maximum ratio autogradkit / reference).
TARGETS: dict[str, list[tuple[str, float]]] = {
    "tutorial": [("torch", 0.6)],
    "mlp": [("torch", 1.0), ("numpy", 1.1)],
    "chain": [("torch", 0.6)],
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
    growth_repeats: int  # the same for the growth workloads (long iterations)
    import_runs: int  # fresh-process runs per import measurement


QUICK = Settings(warmup_s=0.05, block_s=0.04, repeats=5, growth_repeats=3, import_runs=3)
FULL = Settings(warmup_s=0.3, block_s=0.2, repeats=15, growth_repeats=7, import_runs=21)


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


def chain_lib(lib, length: int = CHAIN_LEN) -> Case:
    t0 = lib.tensor(1.0, requires_grad=True)

    def forward_backward():
        t = t0
        for _ in range(length):
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


def chain_floor(t0, length: int = CHAIN_LEN):
    # forward
    t = t0
    for _ in range(length):
        t = t * 1.001 + 0.001
    # backward: d(t * c + d)/dt = c, applied once per step
    g = np.ones_like(t0)
    for _ in range(length):
        g = g * 1.001
    return t, {"t0": g}


def chain_numpy(length: int = CHAIN_LEN) -> Case:
    t0 = np.asarray(1.0, dtype=np.float32)

    def step():
        chain_floor(t0, length)

    def result():
        t, grads = chain_floor(t0, length)
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


# -- e. growth: (a @ b).sum().backward() ------------------------------------


def _mm_data(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    scale = 1 / math.sqrt(n)
    return {
        "a": (scale * rng.standard_normal((n, n))).astype(np.float32),
        "b": (scale * rng.standard_normal((n, n))).astype(np.float32),
    }


def mm_lib(lib, n: int) -> Case:
    d = _mm_data(n)
    a, b = _lib_tensor(lib, d["a"], True), _lib_tensor(lib, d["b"], True)

    def forward_backward():
        loss = (a @ b).sum()
        loss.backward()
        return loss

    def step():
        forward_backward()
        a.grad = None
        b.grad = None

    def result():
        loss = forward_backward()
        out = {"loss": loss.tolist(), "a": _np(a.grad), "b": _np(b.grad)}
        a.grad = None
        b.grad = None
        return out

    def inputs():
        return {"a": _np(a), "b": _np(b)}

    return Case(step, result, inputs)


def mm_floor(a, b):
    loss = (a @ b).sum()
    ones = np.ones((a.shape[0], b.shape[1]), dtype=a.dtype)
    return loss, {"a": ones @ b.T, "b": a.T @ ones}


def mm_numpy(n: int) -> Case:
    d = _mm_data(n)

    def step():
        mm_floor(d["a"], d["b"])

    def result():
        loss, grads = mm_floor(d["a"], d["b"])
        return {"loss": float(loss), **grads}

    return Case(step, result)


def _size(workload: str) -> int:
    """The N of a growth workload's name (`chain-2000` -> 2000)."""
    return int(workload.rsplit("-", 1)[1])


def builders(workload: str) -> tuple[Callable[[Any], Case], Callable[[], Case]]:
    """(build for a PyTorch-API library, build the NumPy floor) for one workload."""
    fixed: dict[str, tuple[Callable[[Any], Case], Callable[[], Case]]] = {
        "tutorial": (tutorial_lib, tutorial_numpy),
        "mlp": (mlp_lib, mlp_numpy),
        "chain": (chain_lib, chain_numpy),
        "fanout": (fanout_lib, fanout_numpy),
    }
    if workload in fixed:
        return fixed[workload]
    n = _size(workload)
    if workload.startswith("chain-"):
        return functools.partial(chain_lib, length=n), functools.partial(chain_numpy, n)
    if workload.startswith("mm-"):
        return functools.partial(mm_lib, n=n), functools.partial(mm_numpy, n)
    raise KeyError(workload)


def per_unit(workload: str) -> int:
    """Growth chains are reported per link, everything else per iteration."""
    return _size(workload) if workload.startswith("chain-") else 1


def reference(workload: str, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    """The NumPy floor's loss and gradients on a library's own inputs (float64)."""
    if workload == "tutorial":
        loss, grads = tutorial_floor(inputs["x"], inputs["y"], inputs["w"], inputs["b"])
    elif workload == "mlp":
        loss, grads = mlp_floor(*(inputs[k] for k in ("X", "Y", "W1", "b1", "W2", "b2")))
    elif workload == "chain":
        loss, grads = chain_floor(inputs["t0"])
    elif workload.startswith("chain-"):
        loss, grads = chain_floor(inputs["t0"], _size(workload))
    elif workload == "fanout":
        loss, grads = fanout_floor(inputs["a"], list(_fanout_data()["ms"].astype(np.float64)))
    elif workload.startswith("mm-"):
        loss, grads = mm_floor(inputs["a"], inputs["b"])
    else:
        raise KeyError(workload)
    return {"loss": float(loss), **grads}


def check(workload: str, case: Case) -> str:
    """'ok' if one iteration's loss and grads match the NumPy floor on the same inputs."""
    assert case.inputs is not None, "the NumPy floor is the reference, not checked"
    # float32's 1.001 is 1.001 + 4.7e-8: a chain of N links drifts by about N * 5e-8
    # from the float64 reference.
    rtol = 2e-4 + (1e-7 * per_unit(workload) if workload.startswith("chain-") else 0)
    got = case.result()
    want = reference(workload, case.inputs())
    bad = []
    for key, w in want.items():
        g = np.asarray(got.get(key), dtype=np.float64)
        if g.shape != np.shape(w) or not np.allclose(g, w, rtol=rtol, atol=1e-5):
            bad.append(key)
    return "ok" if not bad else "MISMATCH(" + ",".join(bad) + ")"


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def _run_block(step: Callable[[], Any], n: int) -> tuple[float, float]:
    """(wall, CPU) seconds per iteration over n iterations. The GC stays on: it is
    part of the cost."""
    gc.collect()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        step()
    return (time.perf_counter() - wall0) / n, (time.process_time() - cpu0) / n


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


# One timed block: n iterations -> (wall, CPU) seconds per iteration.
Block = Callable[[int], tuple[float, float]]


def time_blocks(blocks: dict[str, Block], counts: dict[str, int], repeats: int) -> dict[str, tuple]:
    """(wall µs, CPU µs) per iteration and library, medians of `repeats` blocks of
    counts[name] iterations; blocks are interleaved across libraries so drift in
    machine speed hits every column alike."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in blocks}
    for _ in range(repeats):
        for name, block in blocks.items():
            samples[name].append(block(counts[name]))
    return {
        name: (statistics.median(w for w, _ in v) * 1e6, statistics.median(c for _, c in v) * 1e6)
        for name, v in samples.items()
    }


def time_cases(cases: dict[str, Case], s: Settings, repeats: int) -> dict[str, tuple]:
    """time_blocks for cases built in this process."""
    counts = {name: _calibrate(c.step, s.warmup_s, s.block_s) for name, c in cases.items()}
    blocks = {name: functools.partial(_run_block, c.step) for name, c in cases.items()}
    return time_blocks(blocks, counts, repeats)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _import_env() -> dict[str, str]:
    """The environment of the processes that measure an import: bytecode cached, as
    for an installed package (pip compiles it). Python keeps the caches beside the
    sources unless PYTHONDONTWRITEBYTECODE is set (as on some machines) or it cannot
    write to site-packages; then in a cache of this script's own, as every measured
    import would otherwise compile what it cannot cache (the kit's source, and only
    the kit's, with that variable set). Beside the sources when it can: a cache of
    its own must compile everything once more (torch's imported modules: ~3.2 s of
    CPU at every CI run, whose tests have already written the usual caches)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    site = sysconfig.get_paths()["purelib"]
    if "PYTHONDONTWRITEBYTECODE" in os.environ or not os.access(site, os.W_OK):
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "bench_core_pycache")
    return env


def _spawn(code: str) -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh `python -c code`."""
    wall0, cpu0 = time.perf_counter(), _children_cpu()
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=REPO_ROOT,
        env=_import_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - wall0, _children_cpu() - cpu0


def time_imports(modules: dict[str, str], runs: int) -> dict[str, tuple]:
    """(wall µs, CPU µs) of `import M` in a fresh process, minus a bare interpreter
    start (medians)."""
    codes = {"<baseline>": "pass", **{lib: f"import {mod}" for lib, mod in modules.items()}}
    for code in codes.values():  # warm the OS file cache and .pyc files
        _spawn(code)
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in codes}
    for _ in range(runs):
        for key, code in codes.items():
            samples[key].append(_spawn(code))
    medians = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in samples.items()
    }
    base_wall, base_cpu = medians.pop("<baseline>")
    return {
        k: (max(0.0, w - base_wall) * 1e6, max(0.0, c - base_cpu) * 1e6)
        for k, (w, c) in medians.items()
    }


def warm_blas(libs: dict[str, Any], n: int = 512, times: int = 3) -> None:
    """Run a few large products in every library so no BLAS is measured cold
    (OpenBLAS sets up its buffers on the first large sgemm/dgemm)."""
    for dtype in (np.float32, np.float64):
        a = np.ones((n, n), dtype=dtype)
        for _ in range(times):
            a @ a
    torch = libs.get("torch")
    if torch is not None:
        for dtype in (torch.float32, torch.float64):
            t = torch.ones(n, n, dtype=dtype)
            for _ in range(times):
                t @ t


# --------------------------------------------------------------------------
# The growth chains: each library timed in a process of its own
# --------------------------------------------------------------------------


def apart(workload: str) -> bool:
    """Whether a workload is timed in one fresh process per library (see the
    module docstring): the chains, whose graphs leave objects for the collector."""
    return workload.startswith("chain-")


class Worker:
    """A fresh `python bench_core.py --worker LIB` that imports only LIB (besides
    this script's NumPy and standard library) and runs what the parent asks, one
    JSON line per request and per answer on its stdin and stdout."""

    def __init__(self, lib: str) -> None:
        self.lib = lib
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", lib],
            cwd=REPO_ROOT,
            env=_import_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.lib} worker exited with code {self.proc.wait()}")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def block(self, workload: str, n: int) -> tuple[float, float]:
        answer = self.ask(op="block", workload=workload, n=n)
        return answer["wall"], answer["cpu"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def _work(
    request: dict[str, Any], lib_name: str, libs: dict[str, Any], cases: dict[str, Case]
) -> dict[str, Any]:
    """One request in a worker: `prepare` builds, checks and calibrates a
    workload (dropping the previous one), `block` times n iterations of it."""
    wl = request["workload"]
    if request["op"] == "prepare":
        cases.clear()
        lib_builder, np_builder = builders(wl)
        case = np_builder() if lib_name == "numpy" else lib_builder(libs[lib_name])
        try:
            result = "ref" if case.inputs is None else check(wl, case)
        except Exception as e:
            result = f"n/a ({type(e).__name__})"
        if result != "ok":  # the check ran one iteration already
            case.step()  # must not raise before we time it
        cases[wl] = case
        return {
            "check": result,
            "n": _calibrate(case.step, request["warmup_s"], request["block_s"]),
        }
    wall, cpu = _run_block(cases[wl].step, request["n"])
    return {"wall": wall, "cpu": cpu}


def worker(lib_name: str) -> None:
    """The loop of a Worker process: requests on stdin, answers on stdout;
    anything the library or a workload prints goes to stderr."""
    answers, sys.stdout = sys.stdout, sys.stderr
    libs = load_libs([lib_name])
    cases: dict[str, Case] = {}
    for line in sys.stdin:
        try:
            answer = _work(json.loads(line), lib_name, libs, cases)
        except Exception as e:
            answer = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(answer), file=answers, flush=True)


def measure_apart(wl: str, workers: dict[str, Worker], s: Settings) -> dict[str, Any]:
    """_measure's work for one workload, each library in its own Worker."""
    counts: dict[str, int] = {}
    checks: dict[str, str] = {}
    errors: dict[str, str] = {}
    for name, w in workers.items():
        try:
            got = w.ask(op="prepare", workload=wl, warmup_s=s.warmup_s, block_s=s.block_s)
        except Exception as e:
            errors[name] = f"{type(e).__name__}: {e}"
            continue
        checks[name], counts[name] = got["check"], got["n"]
    blocks = {name: functools.partial(workers[name].block, wl) for name in counts}
    timings = time_blocks(blocks, counts, s.growth_repeats) if blocks else {}
    return {"timings": timings, "checks": checks, "errors": errors}


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
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def _fmt_ratio(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _fmt_count(v: float | None) -> str:
    if v is None:
        return "-"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= limit:
            return f"{v / limit:.3g}{suffix}" if v < 100 * limit else f"{v / limit:,.0f}{suffix}"
    return f"{v:.0f}"


def parse_workloads(only: str | None) -> list[str]:
    if not only:
        return list(ALL_WORKLOADS)
    workloads: list[str] = []
    for name in (w.strip() for w in only.split(",")):
        if name == "main":
            workloads += MAIN_WORKLOADS
        elif name == "growth":
            workloads += GROWTH_WORKLOADS
        elif name:
            workloads.append(name)
    unknown = [w for w in workloads if w not in ALL_WORKLOADS]
    if unknown:
        raise SystemExit(
            f"unknown --only {unknown}; choose from main, growth, {', '.join(ALL_WORKLOADS)}"
        )
    return list(dict.fromkeys(workloads))


def parse_libs(libs: str) -> list[str]:
    names = [n.strip() for n in libs.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL_LIBS]
    if unknown:
        raise SystemExit(f"unknown --libs {unknown}; choose from {', '.join(ALL_LIBS)}")
    return names


def _verdict(workload: str, ratios: dict[str, float | None]) -> bool | None:
    targets = TARGETS.get(workload, [])
    known = [(ratios[ref], limit) for ref, limit in targets]
    verdicts = [ratio <= limit for ratio, limit in known if ratio is not None]
    return None if not targets or len(verdicts) < len(targets) else all(verdicts)


def _measure(wl: str, libs: dict[str, Any], s: Settings, verbose: bool) -> dict[str, Any]:
    """Check and time one workload in every library."""
    timings: dict[str, tuple] = {}
    checks: dict[str, str] = {}
    errors: dict[str, str] = {}
    if wl == "import":
        try:
            timings = time_imports({n: n for n in libs}, s.import_runs)
        except Exception as e:
            errors["import"] = f"{type(e).__name__}: {e}"
        return {"timings": timings, "checks": checks, "errors": errors}
    lib_builder, np_builder = builders(wl)
    cases: dict[str, Case] = {}
    for name, mod in libs.items():
        try:
            case = np_builder() if name == "numpy" else lib_builder(mod)
            try:
                checks[name] = "ref" if case.inputs is None else check(wl, case)
            except Exception as e:
                checks[name] = f"n/a ({type(e).__name__})"
            if checks[name] != "ok":  # the check ran one iteration already
                case.step()  # must not raise before we time it
            cases[name] = case
        except Exception as e:
            errors[name] = f"{type(e).__name__}: {e}"
            if verbose:
                traceback.print_exc()
    repeats = s.repeats if wl in MAIN_WORKLOADS else s.growth_repeats
    timings = time_cases(cases, s, repeats) if cases else {}
    return {"timings": timings, "checks": checks, "errors": errors}


def run(args: argparse.Namespace) -> dict[str, Any]:
    s = QUICK if args.quick else FULL
    workloads = parse_workloads(args.only)
    if args.quick and not args.only:
        # CI's quick run leaves out the two largest products, as --callgrind does:
        # with their million-element leaves built and checked through nested lists
        # (the same code in every library) they were a fifth of its time (53 of 260 s
        # on a loaded machine), and mm-256 already shows the large-n end of the curve.
        workloads = [w for w in workloads if w not in LARGE_MM]
    libs = load_libs(parse_libs(args.libs))
    meta: dict[str, Any] = {
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
    warm_blas(libs)

    results = []
    workers: dict[str, Worker] = {}  # started for the first workload timed apart
    for wl in workloads:
        t_start = time.perf_counter()
        if apart(wl):
            workers = workers or {name: Worker(name) for name in libs}
            measured = measure_apart(wl, workers, s)
        else:
            measured = _measure(wl, libs, s, args.verbose)
        for name, err in measured["errors"].items():
            print(f"  {wl}/{name}: error: {err}")
        for name, c in measured["checks"].items():
            if c not in ("ok", "ref"):
                print(f"  {wl}/{name}: check: {c}")
        unit = per_unit(wl) if wl != "import" else 1
        wall: dict[str, float | None] = dict.fromkeys(ALL_LIBS)
        cpu: dict[str, float | None] = dict.fromkeys(ALL_LIBS)
        for name, (w, c) in measured["timings"].items():
            wall[name], cpu[name] = w / unit, c / unit
        agk = cpu["autogradkit"]
        ratios = {"torch": _ratio(agk, cpu["torch"]), "numpy": _ratio(agk, cpu["numpy"])}
        results.append(
            {
                "workload": wl,
                "per": "link" if unit > 1 else "iteration",
                "us_per_iter": wall,
                "cpu_us_per_iter": cpu,
                "ratio_agk_torch": ratios["torch"],
                "ratio_agk_numpy": ratios["numpy"],
                "target": {f"agk/{ref}": limit for ref, limit in TARGETS.get(wl, [])},
                "met": _verdict(wl, ratios),
                "check": measured["checks"],
                "errors": measured["errors"],
                "seconds": round(time.perf_counter() - t_start, 2),
            }
        )
    for w in workers.values():
        w.close()
    return {"meta": meta, "results": results}


def _print_rows(rows: list[list[str]], left: set[int]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print()
    for i, row in enumerate(rows):
        print(
            "  ".join(
                cell.ljust(w) if j in left else cell.rjust(w)
                for j, (cell, w) in enumerate(zip(row, widths))
            ).rstrip()
        )
        if i == 0:
            print("  ".join("-" * w for w in widths))


def print_table(report: dict[str, Any]) -> None:
    header = [
        "workload",
        "agk cpu µs",
        "torch cpu µs",
        "numpy cpu µs",
        "agk/torch",
        "agk/numpy",
        "target",
        "met?",
        "check",
        "agk wall µs",
        "torch wall µs",
    ]
    main_rows, growth_rows = [header], [header[:6] + header[8:]]
    for r in report["results"]:
        cpu, wall = r["cpu_us_per_iter"], r["us_per_iter"]
        name = r["workload"] + (" (per link)" if r["per"] == "link" else "")
        agk_check = r["check"].get("autogradkit", "-" if r["workload"] != "import" else "")
        row = [
            name,
            _fmt_us(cpu["autogradkit"]),
            _fmt_us(cpu["torch"]),
            _fmt_us(cpu["numpy"]),
            _fmt_ratio(r["ratio_agk_torch"]),
            _fmt_ratio(r["ratio_agk_numpy"]),
            ", ".join(f"{k}≤{v:g}" for k, v in r["target"].items()),
            {True: "yes", False: "NO", None: "n/a"}[r["met"]],
            agk_check,
            _fmt_us(wall["autogradkit"]),
            _fmt_us(wall["torch"]),
        ]
        if r["workload"] in MAIN_WORKLOADS:
            main_rows.append(row)
        else:
            growth_rows.append(row[:6] + row[8:])
    if len(main_rows) > 1:
        _print_rows(main_rows, {0, 6, 7, 8})
        print(
            "\nµs per iteration (import: per fresh-process import, interpreter start "
            "subtracted); ratios use CPU time; medians of interleaved blocks. Reported, "
            "not asserted."
        )
    if len(growth_rows) > 1:
        _print_rows(growth_rows, {0, 6})
        print(
            "\nGrowth: chain-N in µs per link (a Mul and an Add, forward and backward), "
            "each library in a process of its own."
        )
        print(growth_summary(report["results"], "cpu_us_per_iter"))


def growth_summary(results: list[dict[str, Any]], key: str) -> str:
    """How much the cost per link grows from the shortest to the longest chain."""
    chains = {r["workload"]: r[key] for r in results if r["workload"].startswith("chain-")}
    first, last = f"chain-{GROWTH_CHAIN[0]}", f"chain-{GROWTH_CHAIN[-1]}"
    if first not in chains or last not in chains:
        return ""
    parts = []
    for lib in ("autogradkit", "torch"):
        ratio = _ratio(chains[last][lib], chains[first][lib])
        parts.append(f"{lib} {_fmt_ratio(ratio)}x")
    return f"Per-link cost at {GROWTH_CHAIN[-1]:,} vs {GROWTH_CHAIN[0]} links: " + ", ".join(parts)


# --------------------------------------------------------------------------
# Instruction counts under callgrind
# --------------------------------------------------------------------------

# Iterations inside the counted region (after a warm-up outside it).
CALLGRIND_ITERATIONS = {"tutorial": 20, "mlp": 2, "chain": 3, "fanout": 2}
# The default set: products above 256 take minutes under valgrind (ask with --only).
CALLGRIND_DEFAULT = [w for w in ALL_WORKLOADS if w not in LARGE_MM]


# CPython 3.11 quickens a function's bytecode once it has been called 8 times, and
# specialises its instructions after that: code that runs once per step (the MLP's
# and the tutorial's nodes) counts at its steady cost only from about the tenth
# step. Two warm-up steps left the MLP's two counted steps paying for that
# (autogradkit 4.97M alone, 4.92M after the tutorial had warmed the shared code).
CALLGRIND_WARMUP = {"tutorial": 10, "mlp": 10}


def callgrind_warmup(workload: str) -> int:
    """Iterations run before counting: ten for the small steps whose code runs once
    a step (above), else two, one for the long chains (about a minute each under
    valgrind)."""
    if workload in CALLGRIND_WARMUP:
        return CALLGRIND_WARMUP[workload]
    return 1 if workload.startswith("chain-") and _size(workload) >= 2_000 else 2


def callgrind_iterations(workload: str) -> int:
    if workload in CALLGRIND_ITERATIONS:
        return CALLGRIND_ITERATIONS[workload]
    if workload.startswith("chain-"):
        return max(1, 2_000 // _size(workload))
    return max(1, 64 // _size(workload))  # mm-N


def _counted(step: Callable[[], Any], n: int) -> None:
    """Run step n times between the two markers callgrind watches."""
    gc.collect()
    os.getppid()  # marker: callgrind dumps (and so zeroes) its counters here
    for _ in range(n):
        step()
    os.getpgrp()  # marker: callgrind writes the counts here (--dump-before)


# The child process: count `import LIB`, then hand over to this script.
_CHILD_CODE = """
import os, runpy, sys
sys.path.insert(0, {root!r})
os.getppid()
import {module}
os.getpgrp()
sys.argv = {argv!r}
runpy.run_path({script!r}, run_name="__main__")
"""


def callgrind_child(lib_name: str, workloads: list[str], manifest: Path) -> None:
    """Runs inside valgrind: one counted region per workload, in order; the
    manifest says which region is which and how many iterations it holds."""
    libs = load_libs([lib_name])
    warm_blas(libs, n=256, times=1)  # instructions, not time: a small warm-up will do
    regions: list[dict[str, Any]] = [{"workload": "import", "iterations": 1}]
    errors: dict[str, str] = {}
    for wl in workloads:
        if wl == "import":
            continue
        lib_builder, np_builder = builders(wl)
        try:
            case = np_builder() if lib_name == "numpy" else lib_builder(libs[lib_name])
            for _ in range(callgrind_warmup(wl)):
                case.step()
        except Exception as e:
            errors[wl] = f"{type(e).__name__}: {e}"
            continue
        n = callgrind_iterations(wl)
        _counted(case.step, n)
        regions.append({"workload": wl, "iterations": n})
    manifest.write_text(json.dumps({"regions": regions, "errors": errors}))


def _read_counts(out_file: Path) -> list[int]:
    """Instructions of each counted region, in order: the parts callgrind dumped at
    an end marker (each part holds what ran since the previous dump, the start
    marker). The part's `summary:` line is its count; its `totals:` line is not
    (it also holds the cost of calls still running when the counters were zeroed,
    which made --zero-before regions read several times too high)."""
    counts = []
    part = 1
    while (path := Path(f"{out_file}.{part}")).exists():
        text = path.read_text()
        if "Trigger: --dump-before=os_getpgrp" in text:
            summary = next(line for line in text.splitlines() if line.startswith("summary:"))
            counts.append(int(summary.split()[1]))
        part += 1
    return counts


def count_instructions(lib_name: str, workloads: list[str], tmp: Path) -> dict[str, Any]:
    """Run one library's workloads under callgrind; instructions per iteration."""
    manifest = tmp / f"{lib_name}.json"
    out_file = tmp / f"callgrind.{lib_name}"
    argv = [str(Path(__file__).resolve()), "--callgrind-child", lib_name]
    argv += ["--only", ",".join(workloads), "--manifest", str(manifest)]
    code = _CHILD_CODE.format(
        root=str(REPO_ROOT), module=lib_name, argv=argv, script=str(Path(__file__).resolve())
    )
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        "--dump-before=os_getppid",
        "--dump-before=os_getpgrp",
        sys.executable,
        "-c",
        code,
    ]
    env = {**_import_env(), "PYTHONHASHSEED": "0"}
    _spawn(f"import {lib_name}")  # write the bytecode cache the counted import reads
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not manifest.exists():
        tail = "\n".join(proc.stderr.splitlines()[-15:])
        return {"counts": {}, "errors": {"*": f"valgrind exited {proc.returncode}: {tail}"}}
    report = json.loads(manifest.read_text())
    counts = _read_counts(out_file)
    if len(counts) != len(report["regions"]):
        return {
            "counts": {},
            "errors": {"*": f"{len(counts)} dumps for {len(report['regions'])} regions"},
        }
    per_iter = {
        r["workload"]: count
        / r["iterations"]
        / (per_unit(r["workload"]) if r["workload"] != "import" else 1)
        for r, count in zip(report["regions"], counts)
    }
    return {"counts": per_iter, "errors": report["errors"]}


def run_callgrind(args: argparse.Namespace) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        raise SystemExit("--callgrind needs valgrind (apt-get install valgrind)")
    workloads = parse_workloads(args.only) if args.only else CALLGRIND_DEFAULT
    lib_names = parse_libs(args.libs)
    counts: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_core_cg_") as tmp:
        for lib in lib_names:
            t0 = time.perf_counter()
            print(f"counting {lib} under callgrind ...", flush=True)
            got = count_instructions(lib, workloads, Path(tmp))
            for wl, err in got["errors"].items():
                print(f"  {wl}/{lib}: error: {err}")
            counts[lib] = got["counts"]
            print(f"  done in {time.perf_counter() - t0:.0f} s", flush=True)
    results = []
    for wl in workloads:
        ir = {lib: counts.get(lib, {}).get(wl) for lib in ALL_LIBS}
        agk = ir["autogradkit"]
        ratios = {"torch": _ratio(agk, ir["torch"]), "numpy": _ratio(agk, ir["numpy"])}
        results.append(
            {
                "workload": wl,
                "per": "link" if wl.startswith("chain-") else "iteration",
                "instructions": ir,
                "ratio_agk_torch": ratios["torch"],
                "ratio_agk_numpy": ratios["numpy"],
                "target": {f"agk/{ref}": limit for ref, limit in TARGETS.get(wl, [])},
                "met": _verdict(wl, ratios),
            }
        )
    return {"meta": {"python": platform.python_version(), "mode": "callgrind"}, "results": results}


def print_callgrind_table(report: dict[str, Any]) -> None:
    header = ["workload", "agk instr", "torch instr", "numpy instr", "agk/torch", "agk/numpy"]
    rows = [header + ["target", "met?"]]
    for r in report["results"]:
        ir = r["instructions"]
        rows.append(
            [
                r["workload"] + (" (per link)" if r["per"] == "link" else ""),
                _fmt_count(ir["autogradkit"]),
                _fmt_count(ir["torch"]),
                _fmt_count(ir["numpy"]),
                _fmt_ratio(r["ratio_agk_torch"]),
                _fmt_ratio(r["ratio_agk_numpy"]),
                ", ".join(f"{k}≤{v:g}" for k, v in r["target"].items()),
                {True: "yes", False: "NO", None: "n/a"}[r["met"]],
            ]
        )
    _print_rows(rows, {0, 6, 7})
    print(
        "\nInstructions (callgrind Ir) per iteration, chain-N per link; import: "
        "`import LIB` in a fresh interpreter (numpy's own import included)."
    )
    print(growth_summary(report["results"], "instructions"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer, shorter runs (for CI)")
    p.add_argument(
        "--only",
        metavar="NAME[,NAME]",
        help=f"run only these workloads: main, growth, {', '.join(ALL_WORKLOADS)}",
    )
    p.add_argument(
        "--libs",
        default=",".join(ALL_LIBS),
        help="comma-separated libraries to time (default: %(default)s)",
    )
    p.add_argument(
        "--callgrind",
        action="store_true",
        help="count instructions under valgrind instead of timing (slow; not in CI)",
    )
    p.add_argument("--callgrind-child", metavar="LIB", help=argparse.SUPPRESS)
    p.add_argument("--manifest", help=argparse.SUPPRESS)
    p.add_argument("--worker", metavar="LIB", help=argparse.SUPPRESS)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of errors")
    args = p.parse_args(argv)

    if args.worker:
        worker(args.worker)
        return 0
    if args.callgrind_child:
        callgrind_child(args.callgrind_child, parse_workloads(args.only), Path(args.manifest))
        return 0
    t0 = time.perf_counter()
    if args.callgrind:
        report = run_callgrind(args)
        report["meta"]["total_seconds"] = round(time.perf_counter() - t0, 2)
        print_callgrind_table(report)
    else:
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
