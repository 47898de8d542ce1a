#!/usr/bin/env python3
"""How long one step of the BackwardStepper takes to update the whole widget.

This is a benchmark, not a test: it reports timings and never fails on them.

One "step" is what pressing **Step** (or one tick of Play) costs in the kernel:
the engine runs the next node, then the graph (SVG), the panel (HTML + maths) and
the gradient plots are redrawn and the widgets' values set. The widgets'
messages are serialised to JSON as a kernel would before sending them (the
"kB/step" column); the network and the browser's drawing are not measured here.

Workloads:

  tutorial  the graph of PyTorch's autograd tutorial (9 boxes, 6 steps)
  deep100   a 20-layer recurrent tanh net: about 100 boxes, 80 steps
  mlp       batch 64, 784-128-10, ReLU, BCE: large leaves, plotted as images

Per workload the table gives the median, 90th percentile and slowest step in ms,
the issue's target for the median, and -- measured in the same run, as a
reference -- the median time the engine alone takes for a step
(``next(backward_steps(...))``) and the widget's cost as a multiple of it.

Usage:
  python benchmarks/bench_widgets.py [--quick] [--only NAME[,NAME]] [--json PATH]
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
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import comm
from comm.base_comm import BaseComm

import autogradkit as torch
from autogradkit.widgets import BackwardStepper


class SerializingComm(BaseComm):
    """Outside a kernel, ipywidgets' messages go nowhere; this one encodes them to
    JSON first, as the kernel does, so that cost is in the timings too."""

    sent_bytes = 0

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        SerializingComm.sent_bytes += len(json.dumps({"data": data, "metadata": metadata}))


comm.create_comm = SerializingComm

TARGETS_MS = {"tutorial": 30.0, "deep100": 100.0, "mlp": None}


def tutorial():
    torch.manual_seed(0)
    x = torch.ones(5)
    y = torch.zeros(3)
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    return loss, {"w": w, "b": b}


def deep100():
    torch.manual_seed(0)
    h = torch.randn(4, requires_grad=True)
    params = {"h0": h}
    for layer in range(20):
        w = torch.randn(4, 4, requires_grad=True)
        params[f"w{layer}"] = w
        h = torch.tanh(torch.matmul(w, h)) + h * 0.5
    return (h * h).sum(), params


def mlp():
    torch.manual_seed(0)
    x = torch.randn(64, 784)
    y = torch.rand(64, 10)
    w1 = torch.randn(784, 128, requires_grad=True)
    b1 = torch.zeros(128, requires_grad=True)
    w2 = torch.randn(128, 10, requires_grad=True)
    b2 = torch.zeros(10, requires_grad=True)
    logits = torch.relu(x @ w1 + b1) @ w2 + b2
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
    return loss, {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


WORKLOADS = {"tutorial": tutorial, "deep100": deep100, "mlp": mlp}


def time_widget_steps(make, repeats: int) -> tuple[list[float], int, int, float]:
    """Seconds per step() over ``repeats`` fresh steppers; boxes, steps, bytes/step."""
    times = []
    sent = 0
    for _ in range(repeats):
        root, params = make()
        stepper = BackwardStepper(root, params=params)
        while True:
            before = SerializingComm.sent_bytes
            start = time.perf_counter()
            record = stepper.step()
            elapsed = time.perf_counter() - start
            if record is None:
                break
            times.append(elapsed)
            sent += SerializingComm.sent_bytes - before
    return times, len(stepper.graph.nodes), stepper.total, sent / len(times)


def time_engine_steps(make, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        root, _ = make()
        steps = torch.autograd.backward_steps(root)
        while True:
            start = time.perf_counter()
            try:
                next(steps)
            except StopIteration:
                break
            times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (for CI)")
    parser.add_argument("--only", help="comma-separated workloads: " + ",".join(WORKLOADS))
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(WORKLOADS)
    unknown = set(names) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workload(s) {sorted(unknown)}; choose from {list(WORKLOADS)}")

    print(
        f"python {sys.version.split()[0]}, autogradkit {torch.__version__}, "
        f"{os.cpu_count()} cores; times in ms per step (kernel side)"
    )
    header = (
        f"{'workload':<9} {'boxes':>5} {'steps':>5} {'median':>8} {'p90':>8} {'max':>8} "
        f"{'target':>7} {'met':>4} {'engine':>8} {'× engine':>9} {'kB/step':>8}"
    )
    print(header)
    print("-" * len(header))
    results = {}
    for name in names:
        make = WORKLOADS[name]
        repeats = {"tutorial": 40, "deep100": 6, "mlp": 4}[name] // (4 if args.quick else 1) or 1
        time_widget_steps(make, 1)  # warm up (imports, caches)
        widget, boxes, steps, sent = time_widget_steps(make, repeats)
        engine = time_engine_steps(make, repeats)
        median = statistics.median(widget) * 1e3
        p90 = sorted(widget)[int(0.9 * (len(widget) - 1))] * 1e3
        slowest = max(widget) * 1e3
        engine_median = statistics.median(engine) * 1e3
        target = TARGETS_MS[name]
        met = "-" if target is None else ("yes" if median <= target else "no")
        print(
            f"{name:<9} {boxes:>5} {steps:>5} {median:>8.2f} {p90:>8.2f} {slowest:>8.2f} "
            f"{'-' if target is None else f'{target:.0f}':>7} {met:>4} {engine_median:>8.3f} "
            f"{median / engine_median:>9.1f} {sent / 1e3:>8.1f}"
        )
        results[name] = {
            "boxes": boxes,
            "steps": steps,
            "median_ms": median,
            "p90_ms": p90,
            "max_ms": slowest,
            "target_ms": target,
            "engine_median_ms": engine_median,
            "sent_bytes_per_step": sent,
        }
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
