"""Properties of integer and floating division (issue 12, "no wrong answers").

The rules, each checked over many operands (int64, float32, float64 and bool;
tensors, 0-d tensors and Python numbers; every sign; zero divisors):

* ``//`` and ``%`` (``div(rounding_mode='floor')``, ``remainder``) and
  ``div(rounding_mode='trunc')`` and ``fmod`` are two pairs of quotient and
  remainder: ``a == b·q + r`` exactly for integers, with ``r`` taking the sign of
  ``b`` (floor) or of ``a`` (trunc), and ``|r| < |b|``;
* integers divided by 0 raise PyTorch's ``RuntimeError: ZeroDivisionError``, floats
  give ``inf``/``nan``, and two bools are refused;
* the result dtype is PyTorch's promotion of the operands.

PyTorch is the oracle when it is installed (values, dtypes and errors must be the
same); the identities above are PyTorch's rules restated, so they run without it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autogradkit as ak

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None  # type: ignore[assignment]

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPS = {
    "floordiv": lambda lib, a, b: a // b,
    "mod": lambda lib, a, b: a % b,
    "div_floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "div_trunc": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
}
SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=4)
INTS = st.integers(-50, 50)
FLOATS = st.one_of(
    st.floats(-50, 50, width=32), st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan])
)


def _operand(draw, dtype: str, shape):
    """An array of ``dtype`` and ``shape``, or a Python number (``shape`` None)."""
    elements = {"int64": INTS, "float32": FLOATS, "float64": FLOATS, "bool": st.booleans()}[dtype]
    if shape is None:
        return {"int64": int, "bool": bool}.get(dtype, float)(draw(elements))
    return draw(hnp.arrays(np.dtype(dtype), shape, elements=elements))


@st.composite
def operand_pairs(draw):
    """A tensor, and a divisor that is a tensor of its shape or its last dimension,
    a 0-d tensor or a Python number; each of any of the four dtypes."""
    dtypes = st.sampled_from(["int64", "float32", "float64", "bool"])
    a = _operand(draw, draw(dtypes), draw(SHAPES))
    b_shape = draw(st.sampled_from([a.shape, a.shape[-1:], (), None]))
    return a, _operand(draw, draw(dtypes), b_shape)


def _run(lib, name: str, a, b):
    """The operation's values and dtype name, or its error's type and message."""
    ta = lib.tensor(a)
    tb = lib.tensor(b) if isinstance(b, np.ndarray) else b
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a NumPy warning PyTorch does not give fails
            out = OPS[name](lib, ta, tb)
    except (RuntimeError, NotImplementedError) as error:
        return type(error).__name__, str(error)
    return str(out.dtype).split(".")[-1], out.numpy()


@pytest.mark.parametrize("name", sorted(OPS))
@SETTINGS
@given(pair=operand_pairs())
def test_division_matches_pytorch(name, pair):
    a, b = pair
    got = _run(ak, name, a, b)
    if torch is not None:
        expected = _run(torch, name, a, b)
        assert got[0] == expected[0]
        if isinstance(expected[1], str):
            assert got[1] == expected[1]
        else:
            # Floats: PyTorch's CPU kernels and NumPy can differ in the last bit
            # of a quotient; integers and the positions of inf/nan are exact.
            np.testing.assert_allclose(got[1], expected[1], rtol=1e-6, atol=0, equal_nan=True)


@st.composite
def integer_pairs(draw):
    shape = draw(SHAPES)
    a = draw(hnp.arrays(np.int64, shape, elements=INTS))
    b = draw(hnp.arrays(np.int64, shape, elements=INTS.filter(bool)))
    return a, b


@SETTINGS
@given(pair=integer_pairs())
def test_integer_quotients_and_remainders_fit_together(pair):
    a, b = pair
    ta, tb = ak.tensor(a), ak.tensor(b)
    for quotient, remainder, sign_of in (
        (ak.div(ta, tb, rounding_mode="floor"), ta % tb, b),
        (ak.div(ta, tb, rounding_mode="trunc"), ak.fmod(ta, tb), a),
    ):
        q, r = quotient.numpy(), remainder.numpy()
        assert quotient.dtype is ak.int64 and remainder.dtype is ak.int64
        np.testing.assert_array_equal(b * q + r, a)
        assert np.all(np.abs(r) < np.abs(b))
        assert np.all((r == 0) | (np.sign(r) == np.sign(sign_of)))
    np.testing.assert_array_equal((ta // tb).numpy(), ak.div(ta, tb, rounding_mode="floor").numpy())


@SETTINGS
@given(a=hnp.arrays(np.int64, SHAPES, elements=INTS), name=st.sampled_from(sorted(OPS)))
def test_integer_division_by_zero_raises(a, name):
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError$"):
        OPS[name](ak, ak.tensor(a), 0)
    divisors = np.ones_like(a)
    divisors.reshape(-1)[-1] = 0
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError$"):
        OPS[name](ak, ak.tensor(a), ak.tensor(divisors))


@SETTINGS
@given(a=hnp.arrays(np.float32, SHAPES, elements=FLOATS), name=st.sampled_from(sorted(OPS)))
def test_float_division_by_zero_is_inf_or_nan_silently(a, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = OPS[name](ak, ak.tensor(a), 0.0).numpy()
    rounded = name in ("floordiv", "div_floor", "div_trunc")
    with np.errstate(all="ignore"):
        expected = a / np.float32(0) if rounded else np.full_like(a, np.nan)
    np.testing.assert_array_equal(out, expected)
