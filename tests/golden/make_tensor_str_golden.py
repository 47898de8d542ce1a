"""Write ``tests/golden/tensor_str.json``: PyTorch's tensor reprs for many arrays.

Run ``python3 tests/golden/make_tensor_str_golden.py`` on a machine with
PyTorch to regenerate.  ``tests/test_tensor_str.py`` replays the file without
PyTorch, and (when PyTorch is installed) compares live against the same cases,
which it gets from :func:`build_cases` here.

Each case in the JSON holds: ``name``, ``dtype``, ``shape``, ``data`` (the
array as a nested list; NaN/Infinity are written the way Python's json module
does), ``requires_grad``, ``grad_fn`` (a class name or null), ``options``
(keyword arguments for ``set_printoptions``; empty means the defaults) and
``repr`` (``repr(tensor)`` exactly as PyTorch printed it, with ``torch.``).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN_PATH = Path(__file__).with_name("tensor_str.json")

DTYPES = ("float32", "float64", "int64", "bool")

# How a float case is turned into a tensor with autograd state:
# (requires_grad, grad_fn kind).  "mul" gives MulBackward0 via ``t * 1``;
# "long" gives a long custom-Function name that forces the suffix to wrap.
GRAD_MODES = ((False, None), (True, None), (True, "mul"), (True, "long"))


def _as_dtype(x: np.ndarray, dtype: str) -> np.ndarray:
    """Derive an array of ``dtype`` from float data (ints truncate, bools test > 0)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "bool":
        return x > 0
    if dtype == "int64":
        with np.errstate(invalid="ignore"):
            x = np.nan_to_num(x, nan=0.0, posinf=9.0e18, neginf=-9.0e18)
        return np.clip(x, -9.0e18, 9.0e18).astype(np.int64)
    with np.errstate(over="ignore"):  # 1e300 becomes inf in float32, as in torch
        return x.astype(dtype)


def _special_arrays() -> Iterator[tuple[str, np.ndarray]]:
    """Hand-picked float data exercising each formatting rule."""
    nan, inf = math.nan, math.inf
    scalars = [
        0.0,
        -0.0,
        1.0,
        -3.0,
        0.5,
        1 / 3,
        0.7516,
        1e-5,
        -2.5e-7,
        1e9,
        123456789.0,
        99999999.0,
        100000000.0,
        nan,
        inf,
        -inf,
        9.99995,
        1e300,
    ]
    for v in scalars:
        yield f"scalar {v!r}", np.array(v)
    for shape in [(0,), (2, 0), (0, 3), (0, 2, 3), (1, 0, 1), (3, 0, 0)]:
        yield f"empty {shape}", np.zeros(shape)
    vectors = {
        "integral": [1.0, 2.0, 3.0, 4.0],
        "integral neg": [-1.0, 20.0, -300.0, 0.0],
        "integral with zero and -0": [0.0, -0.0, 5.0],
        "all zero": [0.0, 0.0, 0.0],
        "all -0": [-0.0, -0.0],
        "all nan": [nan, nan],
        "nonfinite only": [nan, inf, -inf, 0.0],
        "nan inf mixed": [1.5, nan, -inf, inf, -0.0, 2.25],
        "nan with integral": [1.0, nan, -inf, 100.0],
        "ratio 1000": [1.0, 1000.0],
        "ratio over 1000": [1.0, 1000.5],
        "ratio float": [0.5, 500.0],
        "max 1e8": [1.0e8, 5.0e7],
        "max over 1e8": [1.5e8, 5.0e7],
        "min 1e-4": [1.0e-4, 0.05],
        "min under 1e-4": [9.9e-5, 0.05],
        "round up": [9.99995, 0.99995, -0.00005, 1.0],
        "round to -0": [-0.00004, 0.3, 0.03],
        "float32 tenths": [0.1, 0.2, 0.3, -0.7],
        "huge": [1e20, -3e25, 7.5e30],
        "tiny": [1e-20, -3e-25, 7.5e-30],
        "denormal": [5e-324, 1.0],
        "big integral": [12345678.0, -1.0, 2.0],
        "sci integral": [1e10, 1.0, 2.0],
        "precision edge": [0.12345, 0.12355, 2.00005],
    }
    for name, values in vectors.items():
        yield name, np.array(values)
    yield "wrap 1d", np.linspace(-5, 5, 37)
    yield "wrap 1d integral", np.arange(-40.0, 60.0)
    yield "wrap 2d", np.linspace(-1, 1, 5 * 24).reshape(5, 24)
    yield "wrap 3d", np.linspace(0, 123, 2 * 3 * 19).reshape(2, 3, 19)
    yield "wrap sci", np.geomspace(1e-6, 1e6, 25)
    yield "4d", np.arange(2 * 3 * 2 * 4, dtype=np.float64).reshape(2, 3, 2, 4) / 7
    yield "5d", np.arange(32, dtype=np.float64).reshape(2, 2, 2, 2, 2) - 16
    yield "ones 1x1x1", np.ones((1, 1, 1))


def _summarised_arrays(rng: np.random.Generator) -> Iterator[tuple[str, np.ndarray]]:
    """Arrays with more than 1000 elements.

    Values are multiples of 1/64 (exact and short in float32 too) to keep the
    JSON small; rounding rules are covered by the small cases.
    """
    shapes = [
        (1001,),
        (2000, 1),
        (1, 2000),
        (40, 40),
        (11, 11, 11),
        (3, 5, 7, 11),
        (7, 200),
        (6, 6, 30),
        (1002,),
    ]
    for shape in shapes:
        yield f"summarised {shape}", np.round(rng.standard_normal(shape) * 192) / 64
    yield "summarised integral", np.arange(1200.0).reshape(30, 40) - 600
    yield "summarised sci", rng.integers(-999, 999, 1500) * 2.0**20


def _random_arrays(rng: np.random.Generator) -> Iterator[tuple[str, np.ndarray]]:
    """Random data at several scales and shapes."""
    shapes = [(), (1,), (4,), (9,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]
    scales = [1e-6, 1e-3, 1.0, 50.0, 1e5, 1e12]
    for shape in shapes:
        for scale in scales:
            yield f"random {shape} x{scale:g}", rng.standard_normal(shape) * scale
    for shape in [(5,), (3, 3)]:
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)
        yield f"mixed magnitudes {shape}", x
        yield f"random integral {shape}", np.round(rng.standard_normal(shape) * 100)
        yield f"random negative {shape}", -np.abs(rng.standard_normal(shape))


# Non-default print options, each paired with a few arrays.
OPTION_SETS: list[dict[str, Any]] = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 10, "edgeitems": 1},
    {"threshold": 3, "edgeitems": 0},
    {"linewidth": 40},
    {"linewidth": 5},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
]


def _option_arrays(rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    return [
        ("opt scalar", np.array(3.14159)),
        ("opt 1d", np.round(rng.standard_normal(12) * 20, 4)),
        ("opt 2d", np.round(rng.standard_normal((4, 9)), 5)),
        ("opt 3d integral", np.arange(24.0).reshape(2, 3, 4)),
        ("opt mixed", np.array([1e-5, 3.0, np.nan, -0.0, 2e6])),
    ]


def build_cases() -> list[dict[str, Any]]:
    """All cases as dicts with ``name, dtype, array, requires_grad, grad_fn, options``.

    ``grad_fn`` here is the *kind* ("mul"/"long"/None); :func:`torch_repr`
    turns it into a real PyTorch grad_fn.  Deterministic (fixed seeds).
    """
    cases: list[dict[str, Any]] = []

    def add(
        name: str,
        x: np.ndarray,
        options: dict[str, Any],
        grads: int,
        dtypes: tuple[str, ...] = DTYPES,
    ) -> None:
        """Add ``x`` in each dtype; float dtypes also get the first ``grads`` grad modes."""
        for dtype in dtypes:
            arr = _as_dtype(x, dtype)
            modes = GRAD_MODES[: max(1, grads)] if dtype.startswith("float") else GRAD_MODES[:1]
            for requires_grad, grad_fn in modes:
                cases.append(
                    {
                        "name": name,
                        "dtype": dtype,
                        "array": arr,
                        "requires_grad": requires_grad,
                        "grad_fn": grad_fn,
                        "options": options,
                    }
                )

    for name, x in _special_arrays():
        add(name, x, {}, grads=len(GRAD_MODES))
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        for name, x in _random_arrays(rng):
            # Autograd flags on one seed only keep the case count moderate.
            add(f"seed {seed} {name}", x, {}, grads=3 if seed == 0 else 1)
    rng = np.random.default_rng(10)
    for i, (name, x) in enumerate(_summarised_arrays(rng)):
        # One float and one non-float dtype per big array keeps the file small
        # while every dtype still meets summarisation several times.
        add(name, x, {}, grads=1, dtypes=(DTYPES[i % 2], DTYPES[2 + (i // 2) % 2]))
    rng = np.random.default_rng(20)
    option_arrays = _option_arrays(rng)
    for options in OPTION_SETS:
        for name, x in option_arrays:
            add(f"{name} {options}", x, options, grads=len(GRAD_MODES) if name == "opt 1d" else 1)
    return cases


def torch_tensor(case: dict[str, Any]):
    """Build the PyTorch tensor for a case; returns (tensor, grad_fn class name or None)."""
    import torch

    class VeryLongIdentityFunctionNamedToForceSuffixWrapping(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    t = torch.from_numpy(np.array(case["array"], copy=True))
    if case["requires_grad"]:
        t.requires_grad_(True)
    if case["grad_fn"] == "mul":
        t = t * 1
    elif case["grad_fn"] == "long":
        t = VeryLongIdentityFunctionNamedToForceSuffixWrapping.apply(t)
    name = None if t.grad_fn is None else type(t.grad_fn).__name__
    return t, name


def torch_repr(case: dict[str, Any]) -> tuple[str, str | None]:
    """PyTorch's repr of the case under its print options (restored afterwards)."""
    import torch

    t, grad_fn_name = torch_tensor(case)
    torch.set_printoptions(profile="default")
    torch.set_printoptions(**case["options"])
    try:
        return repr(t), grad_fn_name
    finally:
        torch.set_printoptions(profile="default")


def main() -> int:
    import torch

    out = []
    for case in build_cases():
        text, grad_fn_name = torch_repr(case)
        arr = case["array"]
        out.append(
            {
                "name": case["name"],
                "dtype": case["dtype"],
                "shape": list(arr.shape),
                "data": arr.tolist(),
                "requires_grad": case["requires_grad"],
                "grad_fn": grad_fn_name,
                "options": case["options"],
                "repr": text,
            }
        )
    doc = {"torch_version": torch.__version__, "cases": out}
    # One case per line: diffable, and far smaller than an indented dump.
    lines = ",\n".join(json.dumps(case) for case in out)
    GOLDEN_PATH.write_text(
        '{"torch_version": '
        + json.dumps(doc["torch_version"])
        + ', "cases": [\n'
        + lines
        + "\n]}\n"
    )
    print(f"wrote {len(out)} cases to {GOLDEN_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
