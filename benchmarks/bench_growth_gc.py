"""Where the per-link growth of a long chain goes: Python's cyclic garbage collector.

``bench_core.py``'s growth table times ``t = t * 1.001 + 0.001`` chains of 200,
2,000 and 20,000 links and reports µs per link. This script explains that figure.
For each library and length it runs, in a fresh process importing only that
library:

* the chain as ``bench_core`` runs it (the cyclic GC on), with the time the GC's
  collections took (measured with ``gc.callbacks``), and
* the same chain with the GC paused (``gc.disable()`` in this benchmark's
  process only; the library itself never touches the GC),

in interleaved blocks, and reports the median of each.

The graph autogradkit records is made of Python objects (two nodes and about two
tuples survive per link), so a long chain's forward pass triggers collections
that walk the whole live graph; PyTorch's graph is C++ and tracks nothing. With
the GC paused what remains is the per-link work itself plus memory effects of a
larger graph. Instruction counts per link, which include the GC's own work, come
from ``bench_core.py --callgrind --only chain-200,chain-2000,chain-20000``.

Usage::

    python benchmarks/bench_growth_gc.py [--libs autogradkit,torch] [--repeat 7]

The figures are reported, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LENGTHS = (200, 2_000, 20_000)
LINKS_PER_BLOCK = 60_000  # each timed block runs about this many links


def chain_step(leaf, length: int) -> None:
    """One forward and backward pass through a chain of ``length`` links."""
    t = leaf
    for _ in range(length):
        t = t * 1.001 + 0.001
    t.backward()
    leaf.grad = None


class CollectionTimer:
    """CPU time spent inside the GC's collections, through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.total = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.total += time.process_time() - self._started


def measure(lib_name: str, length: int, repeat: int) -> dict[str, float]:
    """Median µs per link (CPU time) over ``repeat`` blocks with the GC on, and
    over as many with it paused, interleaved in this one process (fresh
    processes alone differ by tens of percent), and the GC's share with it on."""
    sys.path.insert(0, str(REPO_ROOT))  # this checkout's autogradkit
    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(1)
    leaf = lib.tensor(1.0, requires_grad=True)
    passes = max(1, LINKS_PER_BLOCK // length)
    chain_step(leaf, length)  # warm up
    timer = CollectionTimer()
    gc.callbacks.append(timer)
    per_link: dict[bool, list[float]] = {False: [], True: []}
    gc_share = []
    for _ in range(repeat):
        for paused in (False, True):
            gc.collect()
            if paused:
                gc.disable()
            timer.total = 0.0
            start = time.process_time()
            for _ in range(passes):
                chain_step(leaf, length)
            elapsed = time.process_time() - start
            gc.enable()
            per_link[paused].append(elapsed / (passes * length) * 1e6)
            if not paused:
                gc_share.append(timer.total / elapsed)
    return {
        "gc_on": statistics.median(per_link[False]),
        "gc_paused": statistics.median(per_link[True]),
        "gc_share": statistics.median(gc_share),
    }


def run_apart(lib_name: str, length: int, repeat: int) -> dict[str, float]:
    """``measure`` in a fresh interpreter that imports only ``lib_name``."""
    argv = [sys.executable, __file__, "--child", lib_name, str(length), str(repeat)]
    done = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def available(lib_name: str) -> bool:
    try:
        __import__(lib_name)
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libs", default="autogradkit,torch")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--child", nargs=3, metavar=("LIB", "LENGTH", "REPEAT"))
    args = parser.parse_args()
    if args.child:
        lib_name, length, repeat = args.child
        print(json.dumps(measure(lib_name, int(length), int(repeat))))
        return

    libs = [name for name in args.libs.split(",") if available(name)]
    print(f"{'library':<12} {'links':>7}  {'GC on µs/link':>13}  {'in GC':>6}  {'GC paused':>9}")
    figures = {}
    for lib_name in libs:
        for length in LENGTHS:
            figures[lib_name, length] = f = run_apart(lib_name, length, args.repeat)
            print(
                f"{lib_name:<12} {length:>7,}  {f['gc_on']:>13.2f}  "
                f"{f['gc_share']:>6.1%}  {f['gc_paused']:>9.2f}"
            )
    print(f"\nPer-link cost at {LENGTHS[-1]:,} vs {LENGTHS[0]} links:")
    for lib_name in libs:
        first, last = figures[lib_name, LENGTHS[0]], figures[lib_name, LENGTHS[-1]]
        on = last["gc_on"] / first["gc_on"]
        paused = last["gc_paused"] / first["gc_paused"]
        print(f"  {lib_name:<12} GC on {on:.2f}x, GC paused {paused:.2f}x")


if __name__ == "__main__":
    main()
