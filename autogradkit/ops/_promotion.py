"""PyTorch's type promotion for binary operations.

NumPy and PyTorch mostly agree, but not always: ``int64 tensor * 1.5`` is float32
in PyTorch (a Python float takes the *default* dtype) and float64 in NumPy, and a
0-d float64 tensor times a float32 vector stays float32 in PyTorch. The rule:
dimensioned tensors outrank 0-d tensors, which outrank Python numbers, unless a
lower-ranked operand belongs to a higher category (bool < integer < floating).
"""

from __future__ import annotations

from collections.abc import Callable
from math import hypot
from typing import Any

import numpy as np

# ``ndarray`` and ``asarray``, not ``np.ndarray``: NumPy's module has a __getattr__,
# so CPython 3.11 cannot specialise ``np.<name>`` (about 370 instructions a read).
from numpy import asarray, ndarray

from .._dtype import default_float
from .._quiet_numpy import MODERATE, arithmetic, silently

_RANK = {
    np.dtype(np.bool_): 0,
    np.dtype(np.int64): 1,
    np.dtype(np.float32): 2,
    np.dtype(np.float64): 3,
}
_BY_RANK = {rank: dt for dt, rank in _RANK.items()}
_FLOAT32 = np.dtype(np.float32)
# A tensor's float dtypes: `dtype in _FLOAT_DTYPES` (identity first) costs ~300
# instructions less than `dtype.kind == "f"`; any other dtype takes the general path.
_FLOAT_DTYPES = (_FLOAT32, np.dtype(np.float64))


def _promote(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    if a is None:
        return b
    if b is None:
        return a
    return _BY_RANK[max(_RANK.get(a, 3), _RANK.get(b, 3))]


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    # c10's combine_categories.
    if higher is not None and higher.kind == "f":
        return higher
    if higher is not None and (higher.kind == "b" or (lower is not None and lower.kind == "f")):
        return _promote(higher, lower)
    return higher if higher is not None else lower


def _scalar_dtype(value) -> np.dtype:
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    return default_float().numpy  # Python floats take the default dtype


def result_dtype(*operands) -> np.dtype:
    """The dtype PyTorch gives the result of an operation on ``operands``
    (arrays and Python numbers)."""
    dimensioned = zero_dim = wrapped = None
    for x in operands:
        if isinstance(x, ndarray):
            if x.ndim:
                dimensioned = _promote(dimensioned, x.dtype)
            else:
                zero_dim = _promote(zero_dim, x.dtype)
        elif x is not None:
            wrapped = _promote(wrapped, _scalar_dtype(x))
    result = _combine(dimensioned, _combine(zero_dim, wrapped))
    if result is None:  # only Nones: a caller's bug, not a user's
        raise TypeError("result_dtype() needs at least one array or number")
    return result


def common_dtype(arrays) -> np.dtype:
    """The dtype PyTorch gives ``cat``/``stack`` of ``arrays``: every tensor counts
    alike (int64 with float32 is float32, where NumPy would give float64)."""
    target: np.dtype | None = None
    for array in arrays:
        target = _promote(target, array.dtype)
    assert target is not None, "cat/stack check for an empty list first"
    return target


def promote(x, y):
    """Cast the operands of a binary operation so NumPy computes in the dtype
    PyTorch would use. The common cases (same dtypes; a float tensor with a Python
    number) return their inputs untouched; the others look their result dtype up
    by the pair of operand kinds (see :func:`_operand_kind`), computed once."""
    if type(x) is ndarray:
        if type(y) is ndarray:
            if x.dtype == y.dtype:
                return x, y
        elif (type(y) is float or type(y) is int) and x.dtype.kind == "f":
            return x, y
    elif type(y) is ndarray and (type(x) is float or type(x) is int) and y.dtype.kind == "f":
        return x, y
    kinds = (_operand_kind(x), _operand_kind(y))
    target = _PAIR_DTYPES.get(kinds)
    if target is None:
        target = _PAIR_DTYPES[kinds] = result_dtype(x, y)
    return _cast(x, target), _cast(y, target)


def promote_for_arithmetic(x, y):
    """:func:`promote`, then a 0-d array operand as its NumPy scalar: NumPy computes
    ``scalar * 1.001`` some forty times faster than ``0-d array * 1.001``, to the
    same value and dtype, and the operation's result is made a 0-d array anyway.
    For the elementwise arithmetic of ``+ - * /`` only (their forwards save the
    operands before promoting, so what backward checks is the tensor's array)."""
    # The two commonest cases first, answered without a call: a float tensor with a
    # Python number, and two tensors of one dtype that are not 0-d.
    if type(x) is ndarray:
        if type(y) is float or type(y) is int:
            if x.dtype.kind == "f":
                return (x if x.ndim else x[()]), y
        elif type(y) is ndarray and y.dtype is x.dtype and x.ndim and y.ndim:
            return x, y
    x, y = promote(x, y)
    return _as_scalar_if_0d(x), _as_scalar_if_0d(y)


def promoted_arithmetic(operation: Callable[[Any, Any], Any], x, y):
    """``operation(x, y)`` (``operator.add``, ``operator.mul``, ...) as PyTorch
    computes ``+ - *``: :func:`promote_for_arithmetic`, then
    :func:`~autogradkit._quiet_numpy.arithmetic` (no NumPy warnings).

    The commonest operands are answered here, in one call instead of two, to the
    value and dtype those give: a float tensor with a Python number, and two
    float tensors of one dtype. A 0-d float tensor with a number (every
    step of a chain such as ``t * 1.001 + 0.001``) is computed on its NumPy
    scalar, with no error state to set when both are moderate (see arithmetic),
    and handed back as the 0-d array the result tensor holds: made here, it
    spares Function.apply its general scalar-to-array step (_scalar_as_array, a
    call and a look through what forward saved): about 1.6k instructions per
    operation, 2.7% of that 200-link chain. Two 0-d tensors of one float dtype
    (``w * x`` in a scalar neuron) take the same way back (-1.7k of 40.6k)."""
    if type(x) is ndarray:
        if (type(y) is float or type(y) is int) and x.dtype in _FLOAT_DTYPES:
            if x.ndim:
                return silently(operation, x, y)
            x = x[()]
            if hypot(x, y) < MODERATE:  # finite and too small to overflow (see arithmetic)
                return asarray(operation(x, y))
            return asarray(silently(operation, x, y))
        if type(y) is ndarray and y.dtype is x.dtype and y.dtype in _FLOAT_DTYPES:
            if x.ndim and y.ndim:
                return silently(operation, x, y)
            return asarray(arithmetic(operation, _as_scalar_if_0d(x), _as_scalar_if_0d(y)))
    x, y = promote_for_arithmetic(x, y)
    return arithmetic(operation, x, y)


def _as_scalar_if_0d(x):
    # Floating point only: NumPy warns about integer overflow in scalar arithmetic
    # but wraps silently in array arithmetic, as PyTorch does.
    return x[()] if type(x) is ndarray and x.ndim == 0 and x.dtype.kind == "f" else x


# result_dtype of two operands depends only on their kinds: a cache of it.
_PAIR_DTYPES: dict[tuple, np.dtype] = {}


def _operand_kind(x) -> tuple | type:
    """What result_dtype looks at: an array's dtype and whether it is 0-d; for
    anything else, its type (a Python number's dtype follows from its type)."""
    if isinstance(x, ndarray):
        return (x.dtype, x.ndim == 0)
    return type(x)


def _cast(x, target: np.dtype):
    if isinstance(x, ndarray):
        return x if x.dtype == target else x.astype(target)
    if isinstance(x, (bool, int, float, np.generic)):
        # Python numbers stay 'weak': NumPy then computes in the array's dtype.
        return x if target.kind == "f" or not isinstance(x, float) else target.type(x)
    return x
