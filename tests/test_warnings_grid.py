"""No NumPy RuntimeWarning reaches the user where PyTorch is silent (issue 12).

A grid: every operation below, forward and backward, at edge values (±inf, nan,
±0, values whose products or squares overflow float32, subnormals whose
reciprocals overflow), in float32 and float64, as a vector, a 0-d tensor and an
empty tensor, with warnings turned into errors. PyTorch gives no warning for
any of them (checked live when it is installed), so neither may autogradkit:
``inf - inf`` is nan and ``3e38 * 10`` is inf, silently, in both.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable

import pytest

import autogradkit as ak

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None  # type: ignore[assignment]

INF, NAN = math.inf, math.nan
VALUES = {
    "inf": [INF, 1.0],
    "-inf": [-INF, 2.0],
    "nan": [NAN, 1.0],
    "zeros": [0.0, -0.0],
    "negative": [-1.0, -2.0],
    "huge": [3e38, -3e38],
    "subnormal": [1e-45, 1e-40],
    "inf-and-minus-inf": [INF, -INF],
    "ones": [1.0, 1.0],
}


def _functional(name: str) -> Callable:
    def loss(lib, x):
        return getattr(lib.nn.functional, name)(x, lib.ones_like(x))

    return loss


OPS: dict[str, Callable] = {
    "exp": lambda lib, x: x.exp(),
    "log": lambda lib, x: x.log(),
    "sqrt": lambda lib, x: x.sqrt(),
    "rsqrt": lambda lib, x: x.rsqrt(),
    "sin": lambda lib, x: x.sin(),
    "cos": lambda lib, x: x.cos(),
    "tan": lambda lib, x: x.tan(),
    "asin": lambda lib, x: x.asin(),
    "acos": lambda lib, x: x.acos(),
    "atan": lambda lib, x: x.atan(),
    "sinh": lambda lib, x: x.sinh(),
    "cosh": lambda lib, x: x.cosh(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "relu": lambda lib, x: x.relu(),
    "abs": lambda lib, x: x.abs(),
    "sign": lambda lib, x: x.sign(),
    "floor": lambda lib, x: x.floor(),
    "round": lambda lib, x: x.round(),
    "frac": lambda lib, x: x.frac(),
    "clamp": lambda lib, x: x.clamp(-1, 1),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros_like(x)),
    "where": lambda lib, x: lib.where(x > 0, x, 0.0),
    "reciprocal": lambda lib, x: x.reciprocal(),
    "one-over": lambda lib, x: 1 / x,
    "over-zero": lambda lib, x: x / 0,
    "over-self": lambda lib, x: x / x,
    "times-10": lambda lib, x: x * 10,
    "square": lambda lib, x: x * x,
    "plus-self": lambda lib, x: x + x,
    "minus-self": lambda lib, x: x - x,
    "plus-1": lambda lib, x: x + 1,
    "pow-2": lambda lib, x: x**2,
    "pow-3.0": lambda lib, x: x**3.0,
    "pow-minus-1": lambda lib, x: x**-1,
    "pow-half": lambda lib, x: x**0.5,
    "two-to-the": lambda lib, x: 2**x,
    "zero-to-the": lambda lib, x: 0.0**x,
    "pow-self": lambda lib, x: x**x,
    "floordiv": lambda lib, x: x // 0.5,
    "mod": lambda lib, x: x % 1.5,
    "fmod": lambda lib, x: lib.fmod(x, 1.5),
    "sum": lambda lib, x: x.sum(),
    "mean": lambda lib, x: x.mean(),
    "prod": lambda lib, x: x.prod(),
    "cumsum": lambda lib, x: x.cumsum(0),
    "norm": lambda lib, x: x.norm(),
    "max": lambda lib, x: x.max(),
    "dot": lambda lib, x: lib.dot(x, x),
    "mv": lambda lib, x: lib.mv(x.reshape(1, -1), x),
    "mm": lambda lib, x: lib.mm(x.reshape(1, -1), x.reshape(-1, 1)),
    "outer": lambda lib, x: x.reshape(-1, 1) @ x.reshape(1, -1),
    # 128 x 128: a product this size goes through np.matmul, not ndarray.dot.
    "big-outer": lambda lib, x: lib.cat([x] * 64).reshape(-1, 1) @ lib.cat([x] * 64).reshape(1, -1),
    "softmax": lambda lib, x: x.softmax(0),
    "log_softmax": lambda lib, x: x.log_softmax(0),
    "logsumexp": lambda lib, x: x.logsumexp(0),
    "mse_loss": _functional("mse_loss"),
    "binary_cross_entropy_with_logits": _functional("binary_cross_entropy_with_logits"),
}
# Operations that reduce over a dimension: not defined on 0-d (-1 is their dim),
# and not on an empty tensor where PyTorch raises (max, softmax of nothing...).
NO_EMPTY = {"max", "mv", "mm", "prod"}


def _cases(name: str):
    for values in VALUES:
        for dtype in ("float32", "float64"):
            yield values, dtype, "vector"
            yield values, dtype, "0-d"
    if name not in NO_EMPTY:
        yield "ones", "float32", "empty"


def _run(lib, name: str, values: str, dtype: str, form: str) -> None:
    kind = getattr(lib, dtype)
    if form == "empty":
        x = lib.zeros(0, dtype=kind, requires_grad=True)
    elif form == "0-d":
        x = lib.tensor(VALUES[values][0], dtype=kind, requires_grad=True)
    else:
        x = lib.tensor(VALUES[values], dtype=kind, requires_grad=True)
    y = OPS[name](lib, x)
    y.sum().backward()


def _warnings_of(lib, name: str, case) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Refusals are compared elsewhere; here only what is printed.
        with contextlib.suppress(RuntimeError, IndexError, ValueError):
            _run(lib, name, *case)
    return [f"{w.category.__name__}: {w.message}" for w in caught]


def _numpy_warning_of(name: str, case) -> str | None:
    """The first warning autogradkit gives for ``case`` (warnings made errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            _run(ak, name, *case)
        except Warning as warning:
            return f"{type(warning).__name__}: {warning}"
        except (RuntimeError, IndexError, ValueError):
            pass  # refusals are compared elsewhere; here only what is printed
    return None


@pytest.mark.parametrize("name", sorted(OPS))
def test_no_numpy_warning_where_pytorch_is_silent(name):
    given = {case: _numpy_warning_of(name, case) for case in _cases(name)}
    assert {case: w for case, w in given.items() if w is not None} == {}
    if torch is not None:
        assert {case: _warnings_of(torch, name, case) for case in given} == {
            case: [] for case in given
        }, "PyTorch warns here: not a case where it is silent"
