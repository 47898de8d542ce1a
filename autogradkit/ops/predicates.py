"""Questions asked of every element: ``isnan``, ``isinf``, ``isfinite``,
``isposinf``, ``isneginf``, ``isreal``, ``signbit``, and the logical connectives
``logical_and``, ``logical_or``, ``logical_xor``, ``logical_not``.

Each answers with a bool tensor that is never differentiated (its result does not
require grad): a yes/no answer has no slope. Integer and bool tensors have no
nan and no infinity, so the tests answer False (``isfinite``: True) for them. The
logical connectives read any nonzero element as True, as Python's ``bool`` does.

>>> import autogradkit as torch
>>> x = torch.tensor([1.0, float("nan"), float("inf"), -0.0])
>>> torch.isnan(x), x.isfinite()
(tensor([False,  True, False, False]), tensor([ True, False, False,  True]))
>>> torch.signbit(x)
tensor([False, False, False,  True])
>>> torch.logical_and(torch.tensor([1.0, 0.0, 2.0]), torch.tensor([3, 5, 0]))
tensor([ True, False, False])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..tensor import Tensor
from .arithmetic import broadcast_error

__all__ = [
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "isreal",
    "signbit",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
]


def _check_tensor(name: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )


def _answer(name: str, input, test: Callable[[np.ndarray], np.ndarray]) -> Tensor:
    """``test`` of each element of a float tensor as a bool tensor; for integer and
    bool tensors ``test`` of their values as floats (exact for the integers a test
    can tell apart: none is nan or infinite)."""
    _check_tensor(name, input)
    data = input._data
    if data.dtype.kind != "f":
        data = data.astype(np.float64)
    return Tensor._make(np.asarray(test(data)))


def isnan(input: Tensor) -> Tensor:
    """Where the elements are nan (not a number), as a bool tensor.

    >>> import autogradkit as torch
    >>> torch.isnan(torch.tensor([1.0, float("nan")]))
    tensor([False,  True])
    """
    return _answer("isnan", input, np.isnan)


def isinf(input: Tensor) -> Tensor:
    """Where the elements are +inf or -inf, as a bool tensor."""
    return _answer("isinf", input, np.isinf)


def isfinite(input: Tensor) -> Tensor:
    """Where the elements are neither nan nor ±inf, as a bool tensor."""
    return _answer("isfinite", input, np.isfinite)


def isposinf(input: Tensor) -> Tensor:
    """Where the elements are +inf, as a bool tensor."""
    return _answer("isposinf", input, np.isposinf)


def isneginf(input: Tensor) -> Tensor:
    """Where the elements are -inf, as a bool tensor."""
    return _answer("isneginf", input, np.isneginf)


def isreal(input: Tensor) -> Tensor:
    """Where the elements have no imaginary part: everywhere, for the real tensors
    autogradkit has."""
    return _answer("isreal", input, lambda values: np.ones(values.shape, bool))


def signbit(input: Tensor) -> Tensor:
    """Where the sign bit is set: negative numbers, -0.0, -inf, and a nan whose
    sign bit is set (as the bit pattern says, like C's ``signbit``).

    >>> import autogradkit as torch
    >>> torch.signbit(torch.tensor([-2.0, -0.0, 0.0, 3.0]))
    tensor([ True,  True, False, False])
    """
    return _answer("signbit", input, np.signbit)


def _connect(name: str, input, other, connective: Callable) -> np.ndarray:
    """``connective`` of the truth values (nonzero is True) of two tensors,
    broadcast together."""
    _check_tensor(name, input)
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    try:
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    except ValueError:
        raise broadcast_error(input._data, other._data) from None
    truth = connective(input._data != 0, other._data != 0)
    return np.asarray(np.broadcast_to(truth, shape))


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """True where both elements are nonzero.

    >>> import autogradkit as torch
    >>> torch.logical_and(torch.tensor([True, True]), torch.tensor([True, False]))
    tensor([ True, False])
    """
    return Tensor._make(_connect("logical_and", input, other, np.logical_and))


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """True where at least one of the two elements is nonzero."""
    return Tensor._make(_connect("logical_or", input, other, np.logical_or))


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """True where exactly one of the two elements is nonzero."""
    return Tensor._make(_connect("logical_xor", input, other, np.logical_xor))


def logical_not(input: Tensor) -> Tensor:
    """True where the element is zero.

    >>> import autogradkit as torch
    >>> torch.logical_not(torch.tensor([0.0, 1.5]))
    tensor([ True, False])
    """
    _check_tensor("logical_not", input)
    return Tensor._make(np.asarray(input._data == 0))
