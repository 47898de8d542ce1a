"""Write ``tests/golden/random.json``: PyTorch's CPU generator outputs for fixed
seeds and call sequences.

Run ``python3 tests/golden/make_random_golden.py`` on an x86-64 machine with
PyTorch (AVX2 or AVX-512, where float32 ``randn`` of 16+ elements runs the AVX2
kernel) to regenerate.  ``tests/test_random.py`` replays the file without
PyTorch, and (when PyTorch is installed) runs the same cases live, getting
them from :func:`build_cases` and :func:`run_torch` here.

Each case holds ``name``, ``seed`` and ``calls``; a call is
``["rand" | "randn", shape, dtype]`` or ``["randint", low, high, shape]``.
The recorded ``outputs`` has one entry per call: float values as
``float.hex`` strings (exact), randint values as ints.  The generator's state
after the last call (``torch.get_rng_state()``) is recorded in two parts, so a
replay also checks that the generator ends in PyTorch's state:

* ``mt_state_sha256``: the SHA-256 of the state with the cached normal zeroed
  (seed, position in the Mersenne Twister stream, its 624 words): integer
  arithmetic, the same bits on every machine;
* ``normal_cache``: the cached second Box-Muller value (``float.hex``, or
  null), which comes from the C library's ``log1p``/``cos``/``sin`` and so may
  differ in its last bits on another CPU or C library.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN_PATH = Path(__file__).with_name("random.json")

SEEDS = (0, 1, 42, 2**32 + 5, 2**64 - 1, -7)
SHAPES = ((), (1,), (3,), (15,), (16,), (17,), (31,), (32,), (33,), (5, 3))


def build_cases() -> list[dict[str, Any]]:
    """The call sequences recorded in the golden file."""
    cases: list[dict[str, Any]] = []
    # Every boundary shape of randn (scalar path below 16 elements, block path
    # with and without a tail) and rand, both dtypes; twice, so the second
    # call shows where the first one left the stream and the cache.
    for fn in ("randn", "rand"):
        for dtype in ("float32", "float64"):
            for shape in SHAPES:
                call = [fn, list(shape), dtype]
                cases.append({"name": f"{fn}{shape} {dtype}", "seed": 0, "calls": [call, call]})
    # Mixed sequences after each seed: the cached second Box-Muller value
    # (randn(3) leaves one), block paths, 64-bit draws, randint.
    for seed in SEEDS:
        cases.append(
            {
                "name": f"mixed sequence seed {seed}",
                "seed": seed,
                "calls": [
                    ["randn", [3], "float32"],
                    ["randn", [], "float64"],  # served from the cache
                    ["randn", [2, 2], "float64"],
                    ["rand", [5], "float32"],
                    ["randn", [17], "float32"],
                    ["randn", [1], "float32"],  # leaves a cached value
                    ["randn", [33], "float64"],  # block path ignores the cache
                    ["randn", [1], "float32"],  # ...which is still there
                    ["rand", [3], "float64"],
                    ["randint", 0, 10, [6]],
                    ["randint", -(2**40), 2**40, [3]],
                    ["randint", -5, 2**28 - 5, [2]],
                    ["randn", [5, 3], "float32"],
                ],
            }
        )
    # Crossing the 624-word block boundary, and a tensor-sized draw.
    cases.append(
        {
            "name": "stream crosses twists",
            "seed": 3,
            "calls": [
                ["randint", 0, 10, [610]],
                ["rand", [7], "float64"],
                ["randint", 0, 10, [600]],
                ["randn", [20], "float32"],
                ["randint", 0, 10, [600]],
                ["randn", [5], "float64"],
            ],
        }
    )
    cases.append(
        {"name": "randn 6x7 float64", "seed": 2**32 + 5, "calls": [["randn", [6, 7], "float64"]]}
    )
    cases.append(
        {
            "name": "empty tensors draw nothing",
            "seed": 9,
            "calls": [
                ["randn", [0], "float32"],
                ["rand", [2, 0], "float64"],
                ["randint", 0, 3, [0]],
                ["randn", [2], "float32"],
            ],
        }
    )
    return cases


def encode(values: np.ndarray) -> list:
    """Exact JSON form of one output: float.hex strings, or ints."""
    flat = np.asarray(values).ravel()
    if flat.dtype.kind == "f":  # "0x1.8a7eb80000000p+0" -> "0x1.8a7eb8p+0"
        return [re.sub(r"\.?0+p", "p", float(v).hex()) for v in flat]
    return [int(v) for v in flat]


def state_record(state_bytes: bytes) -> dict[str, Any]:
    """``mt_state_sha256`` and ``normal_cache`` of a 5056-byte generator state."""
    from autogradkit.random import _STATE_DTYPE

    state = np.frombuffer(state_bytes, dtype=_STATE_DTYPE)
    cache = float(state["normal_y"][0]).hex() if state["normal_is_valid"][0] else None
    # Field by field into zeroed memory: the struct's padding bytes are whatever
    # PyTorch's memory held, so they must not be hashed.
    fields = np.zeros(1, dtype=_STATE_DTYPE)
    for name in _STATE_DTYPE.names:
        if name != "normal_y":
            fields[name] = state[name]
    return {
        "mt_state_sha256": hashlib.sha256(fields.tobytes()).hexdigest(),
        "normal_cache": cache,
    }


def run_torch(case: dict[str, Any]) -> dict[str, Any]:
    """Play ``case`` on a fresh ``torch.Generator``."""
    import torch

    g = torch.Generator().manual_seed(case["seed"])
    outputs = []
    for call in case["calls"]:
        if call[0] == "randint":
            _, low, high, shape = call
            out = torch.randint(low, high, tuple(shape), generator=g)
        else:
            fn, shape, dtype = call
            out = getattr(torch, fn)(tuple(shape), dtype=getattr(torch, dtype), generator=g)
        outputs.append(encode(out.numpy()))
    return {"outputs": outputs, **state_record(g.get_state().numpy().tobytes())}


def run_autogradkit(case: dict[str, Any]) -> dict[str, Any]:
    """Play ``case`` on a fresh ``autogradkit.random.Generator``."""
    from autogradkit.random import Generator

    g = Generator().manual_seed(case["seed"])
    outputs = []
    for call in case["calls"]:
        if call[0] == "randint":
            _, low, high, shape = call
            out = g.randint(low, high, tuple(shape))
        else:
            fn, shape, dtype = call
            out = getattr(g, fn)(tuple(shape), np.dtype(dtype))
        outputs.append(encode(out))
    return {"outputs": outputs, **state_record(g.get_state().tobytes())}


def main() -> int:
    import platform

    import torch

    capability = torch.backends.cpu.get_cpu_capability()
    if capability not in ("AVX2", "AVX512"):
        print(
            f"refusing to record: CPU capability {capability} does not run the AVX2 "
            "normal kernel the golden file describes",
            file=sys.stderr,
        )
        return 1
    cases = []
    for case in build_cases():
        cases.append({**case, **run_torch(case)})
    lines = [
        json.dumps(
            {
                "torch_version": torch.__version__,
                "cpu_capability": capability,
                "float32_normal_kernel": "avx2",
                "libc": "-".join(platform.libc_ver()),
                "cases": "...",
            }
        )[: -len('"..."}')]
        + "["
    ]
    lines.append(",\n".join(json.dumps(c) for c in cases))
    lines.append("]}")
    GOLDEN_PATH.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(cases)} cases to {GOLDEN_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
