#!/usr/bin/env python3
"""How the graph drawing and the backward stepper scale with the size of the graph.

This is a benchmark, not a test: it reports timings and never fails on them.

Workloads (each at several sizes n):

  shared   ``y = y * w`` n times: a chain that uses one leaf at every step (the
           shape of an unrolled RNN); the leaf's arrows span the whole graph
  chain    ``c = c * 2`` n times: a plain chain, the longest drawing per node

For each: ``draw_graph`` (build + layout + SVG) in ms, and its time per operation
in the graph (µs/op; "boxes" is what is drawn, the middle of a very long graph
being summarised). Near-linear layout means the per-operation figure stays flat as
n grows: "growth" is (time per op at n) / (time per op at the smallest n), where
the old layout grew about n² (12.5 s at n = 300, 110 s at n = 500). The stepper
on the shared chain is built once and then stepped; the table gives its build
time and the median / slowest step (engine + graph redrawn + panel + plots).

Targets (issue 12): drawing the 1,000-step shared chain under 1 s; a stepper step
on it under 100 ms.

Usage:
  python benchmarks/bench_graph.py [--quick] [--json PATH]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import autogradkit as torch
from autogradkit.viz import draw_graph

DRAW_TARGET_S = 1.0  # the 1,000-step shared chain
STEP_TARGET_MS = 100.0


def shared(n: int):
    w = torch.tensor(0.999, requires_grad=True)
    y = torch.tensor(1.0, requires_grad=True)
    h = y
    for _ in range(n):
        h = h * w
    return h, {"w": w, "y": y}


def chain(n: int):
    x = torch.tensor(1.0, requires_grad=True)
    c = x
    for _ in range(n):
        c = c * 1.0001
    return c, {"x": x}


def time_draw(make, n: int, repeats: int) -> tuple[float, int]:
    """Best of ``repeats`` draw_graph times (s) and the number of boxes drawn."""
    best = float("inf")
    boxes = 0
    for _ in range(repeats):
        root, params = make(n)
        start = time.perf_counter()
        drawing = draw_graph(root, params)
        best = min(best, time.perf_counter() - start)
        boxes = len(drawing.graph.nodes)
    return best, boxes


def time_stepper(n: int, steps: int) -> dict:
    from autogradkit.widgets import BackwardStepper

    root, params = shared(n)
    start = time.perf_counter()
    stepper = BackwardStepper(root, params=params)
    built = time.perf_counter() - start
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        if stepper.step() is None:
            break
        times.append(time.perf_counter() - start)
    return {
        "n": n,
        "build_ms": built * 1000,
        "median_step_ms": statistics.median(times) * 1000,
        "slowest_step_ms": max(times) * 1000,
        "steps_timed": len(times),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions (CI)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    sizes = (100, 300, 1000) if args.quick else (100, 300, 1000, 3000)
    repeats = 1 if args.quick else 3
    results: dict = {"draw": [], "stepper": None}
    warnings.simplefilter("ignore")  # long products under/overflow; not what is measured

    print(f"{'workload':<9}{'n':>6}{'boxes':>7}{'draw ms':>10}{'µs/op':>9}{'growth':>8}")
    for name, make in (("shared", shared), ("chain", chain)):
        first_per_box = None
        for n in (*sizes, 5000) if name == "chain" else sizes:
            seconds, boxes = time_draw(make, n, repeats)
            per_box = seconds / n
            first_per_box = first_per_box or per_box
            growth = per_box / first_per_box
            results["draw"].append(
                {"workload": name, "n": n, "boxes": boxes, "ms": seconds * 1000, "growth": growth}
            )
            print(
                f"{name:<9}{n:>6}{boxes:>7}{seconds * 1000:>10.1f}{per_box * 1e6:>9.1f}"
                f"{growth:>8.2f}"
            )
    shared_1000 = next(r for r in results["draw"] if r["workload"] == "shared" and r["n"] == 1000)
    print(
        f"\ndraw_graph, shared chain of 1,000: {shared_1000['ms']:.0f} ms "
        f"(target < {DRAW_TARGET_S * 1000:.0f} ms: "
        f"{'met' if shared_1000['ms'] < DRAW_TARGET_S * 1000 else 'NOT met'})"
    )
    try:
        stepper = time_stepper(1000, 10 if args.quick else 40)
    except ImportError as error:  # ipywidgets is an extra
        print(f"stepper: skipped ({error})")
    else:
        results["stepper"] = stepper
        print(
            f"BackwardStepper on it: built in {stepper['build_ms']:.0f} ms; step median "
            f"{stepper['median_step_ms']:.1f} ms, slowest {stepper['slowest_step_ms']:.1f} ms "
            f"over {stepper['steps_timed']} steps (target < {STEP_TARGET_MS:.0f} ms: "
            f"{'met' if stepper['median_step_ms'] < STEP_TARGET_MS else 'NOT met'})"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
