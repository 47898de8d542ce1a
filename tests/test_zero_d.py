"""The 0-d fast path of ``+ - * /`` gives the bits NumPy's array arithmetic gives.

A 0-d float tensor with a Python number, or with a 0-d tensor of its dtype, is
computed on NumPy scalars (``ops/_promotion.py``; ``t / number`` in
``ops/arithmetic.py``), which NumPy computes many times
faster than 0-d arrays. Scalar and array arithmetic are specified alike (same
dtype, same IEEE result) but are different code in NumPy, with different warnings
("overflow encountered in scalar multiply"); so here, against the 0-d array
arithmetic computed in this process: the same dtype and bits, no warning, the
result held as an array, and gradients of shape () in ``.grad``. What PyTorch
says of the same programs is in ``differential/test_zero_d_vs_torch.py``.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autogradkit as ak

OPERATIONS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
}
DTYPES: dict[str, tuple[Any, type[np.floating]]] = {
    "float32": (ak.float32, np.float32),
    "float64": (ak.float64, np.float64),
}


def _floats(dtype: str):
    if dtype == "float32":
        return st.floats(width=32, allow_nan=True, allow_infinity=True)
    return st.floats(allow_nan=True, allow_infinity=True)


def _numbers():
    """Python numbers a program may combine with a tensor, including huge ones
    (booleans: see the differential programs; PyTorch refuses ``t - True``)."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(2**53), max_value=2**53),
    )


def _array_result(operation, x, y, np_dtype) -> np.ndarray:
    """The same arithmetic on 0-d arrays, as NumPy computes it (silently)."""
    with np.errstate(all="ignore"):
        return np.asarray(operation(np.asarray(x, np_dtype), y), dtype=np_dtype)


def _same_bits(actual: np.ndarray, expected: np.ndarray) -> bool:
    """Same dtype and bits; any NaN matches any NaN. When both operands are NaN,
    which one's payload (and sign) the result carries is the CPU's and the code
    path's choice, not arithmetic: hypothesis found x = nan, c = a NaN with payload
    1, where scalar and array multiplication propagate different operands."""
    if actual.dtype != expected.dtype:
        return False
    if np.isnan(actual) and np.isnan(expected):
        return True
    return actual.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPERATIONS)
@given(data=st.data())
def test_tensor_with_number_matches_array_arithmetic(dtype, name, data):
    ak_dtype, np_dtype = DTYPES[dtype]
    operation = OPERATIONS[name]
    x = data.draw(_floats(dtype), label="x")
    c = data.draw(_numbers(), label="c")
    t = ak.tensor(x, dtype=ak_dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning may escape
        forward, backward = operation(t, c), operation(c, t)
    assert forward.dtype is ak_dtype and forward.shape == ()
    assert _same_bits(forward.detach().numpy(), _array_result(operation, x, c, np_dtype))
    if name == "div":
        return  # c / t is c * t.reciprocal(), as in PyTorch: other bits than c / x
    with np.errstate(all="ignore"):
        expected_reflected = np.asarray(operation(c, np.asarray(x, np_dtype)), np_dtype)
    assert _same_bits(backward.detach().numpy(), expected_reflected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OPERATIONS)
@given(data=st.data())
def test_two_zero_d_tensors_match_array_arithmetic(dtype, name, data):
    ak_dtype, np_dtype = DTYPES[dtype]
    operation = OPERATIONS[name]
    x, y = data.draw(_floats(dtype), label="x"), data.draw(_floats(dtype), label="y")
    a = ak.tensor(x, dtype=ak_dtype, requires_grad=True)
    b = ak.tensor(y, dtype=ak_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = operation(a, b)
    expected = _array_result(operation, x, np.asarray(y, np_dtype), np_dtype)
    assert _same_bits(result.detach().numpy(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_chain_gradient_is_an_array_backed_zero_d_tensor(dtype):
    ak_dtype, np_dtype = DTYPES[dtype]
    t0 = ak.tensor(1.0, dtype=ak_dtype, requires_grad=True)
    seen = []
    t = t0
    for _ in range(50):
        t = t * 1.001 + 0.001
    t.register_hook(lambda g: seen.append(g))
    t.backward()
    expected = 1.001**50  # d t / d t0 (to float32's precision)
    grad = t0.grad
    assert type(grad) is ak.Tensor and grad.shape == () and grad.dtype is ak_dtype
    assert isinstance(grad.numpy(), np.ndarray)  # .grad holds an array, never a scalar
    assert isinstance(t.detach().numpy(), np.ndarray)
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-5)
    (hooked,) = seen
    assert type(hooked) is ak.Tensor and hooked.shape == () and hooked.dtype is ak_dtype


def test_result_stays_writable_and_in_place_ops_see_it():
    # The fast path hands back a fresh array: the result is writable, owns its
    # memory (not a view of its input) and in-place changes stay in it.
    a = ak.tensor(2.0, requires_grad=True)
    b = a * 1.5
    c = b.detach()
    c.add_(1.0)
    assert b.item() == 4.0 and a.item() == 2.0
    d = a.detach() * 1.0
    d.mul_(3.0)
    assert a.item() == 2.0 and d.item() == 6.0
