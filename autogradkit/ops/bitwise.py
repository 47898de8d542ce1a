"""Bitwise operations on integer and bool tensors: ``&``, ``|``, ``^``, ``~`` and
``torch.bitwise_and/or/xor/not`` (with their in-place forms ``&=``, ``bitwise_and_``…).

On bool tensors they are the logical operations learners combine masks with,
``(x > 0) & (x < 1)``; on integers they work bit by bit. The operands are promoted
as for arithmetic first (a bool tensor with a Python int gives int64: ``mask & 2``
is 0 or 2, not True), and floats are refused, as in PyTorch. Never differentiated.

>>> import autogradkit as torch
>>> x = torch.tensor([-1.0, 0.5, 2.0])
>>> (x > 0) & (x < 1)
tensor([False,  True, False])
>>> torch.tensor([6, 3]) ^ 5
tensor([3, 6])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from ..tensor import Tensor
from ._promotion import result_dtype
from .arithmetic import broadcast_error

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"]

_UFUNCS = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _operand(value: Any):
    """The array of a tensor, or a Python/NumPy number as it is; None for anything
    else (the operator then returns NotImplemented, so Python says what is wrong)."""
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, (bool, int, float, np.generic)):
        return value
    return None


def bitwise(name: str, x: Any, y: Any) -> Tensor:
    """``x & y`` (name "and"), ``x | y`` ("or") or ``x ^ y`` ("xor") in the dtype
    PyTorch promotes the operands to."""
    a, b = _operand(x), _operand(y)
    if a is None or b is None:
        return NotImplemented
    dtype = result_dtype(a, b)
    if dtype.kind not in "biu":
        raise NotImplementedError(
            f"\"bitwise_{name}_cpu\" not implemented for '{scalar_type_name(dtype)}'"
        )
    try:
        out = _UFUNCS[name](np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype))
    except ValueError:  # shapes that do not broadcast: PyTorch's words
        raise broadcast_error(a, b) from None
    return Tensor._make(np.asarray(out, dtype=dtype))


def bitwise_inplace(name: str, x: Tensor, y: Any) -> Tensor:
    """``x &= y`` and the other in-place forms: the result written into ``x``, whose
    dtype must hold it (a bool tensor cannot take an int64 result)."""
    result = bitwise(name, x, y)
    if result is NotImplemented:
        return result
    if result._data.dtype != x._data.dtype and x._data.dtype == np.bool_:
        raise RuntimeError(
            f"result type {scalar_type_name(result._data.dtype)} can't be cast to the "
            "desired output type Bool"
        )
    x._data[...] = result._data
    x._version_counter[0] += 1
    return x


def bitwise_and(input: Tensor, other: Any) -> Tensor:
    """Elementwise AND: logical for bools, bit by bit for integers."""
    return _checked(bitwise("and", input, other), "bitwise_and", other)


def bitwise_or(input: Tensor, other: Any) -> Tensor:
    """Elementwise OR: logical for bools, bit by bit for integers."""
    return _checked(bitwise("or", input, other), "bitwise_or", other)


def bitwise_xor(input: Tensor, other: Any) -> Tensor:
    """Elementwise exclusive OR: logical for bools, bit by bit for integers."""
    return _checked(bitwise("xor", input, other), "bitwise_xor", other)


def bitwise_not(input: Tensor) -> Tensor:
    """Elementwise NOT: logical for bools, bit by bit for integers (``~x``)."""
    data = input._data
    if data.dtype.kind not in "biu":
        raise NotImplementedError(
            f"\"bitwise_not_cpu\" not implemented for '{scalar_type_name(data.dtype)}'"
        )
    return Tensor._make(np.asarray(~data))


def _checked(result: Any, name: str, other: Any) -> Tensor:
    """The function forms refuse what the operators decline (a list, None…)."""
    if result is NotImplemented:
        raise TypeError(
            f"{name}(): argument 'other' must be Tensor or Number, not {type(other).__name__}"
        )
    return result
