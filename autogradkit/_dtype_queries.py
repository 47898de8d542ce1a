"""Questions about dtypes and the generator's state, as PyTorch answers them:
``result_type``, ``promote_types``, ``can_cast``, ``set_default_dtype``, and
``get_rng_state``/``set_rng_state``.

>>> import autogradkit as torch
>>> torch.result_type(torch.tensor([1, 2]), 1.5)
autogradkit.float32
>>> torch.promote_types(torch.int64, torch.float32)
autogradkit.float32
>>> torch.can_cast(torch.float32, torch.int64)
False
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _dtype
from ._dtype import dtype as DType
from .ops import _promotion
from .ops._promotion import result_dtype
from .tensor import Tensor

__all__ = [
    "result_type",
    "promote_types",
    "can_cast",
    "set_default_dtype",
    "get_rng_state",
    "set_rng_state",
]


def _operand(value, position: int):
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex):
        return value
    raise TypeError(
        f"result_type(): argument {position} must be a Tensor or a Number, "
        f"not {type(value).__name__}"
    )


def result_type(tensor, other) -> DType:
    """The dtype an arithmetic operation on ``tensor`` and ``other`` (tensors or
    numbers) gives: PyTorch's promotion, where a dimensioned tensor's dtype wins
    over a 0-d tensor's and a number's within the same kind (bool < integer <
    floating), and a Python float alone takes the default dtype.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.result_type(torch.tensor([1.0]), torch.tensor(2.0, dtype=torch.float64))
    autogradkit.float32
    >>> torch.result_type(2, True)
    autogradkit.int64
    """
    return _dtype.from_numpy_dtype(result_dtype(_operand(tensor, 1), _operand(other, 2)))


def _check_dtype_argument(who: str, name: str, position: int, value) -> None:
    if not isinstance(value, DType):
        raise TypeError(
            f"{who}(): argument '{name}' (position {position}) must be torch.dtype, "
            f"not {type(value).__name__}"
        )


def promote_types(type1: DType, type2: DType) -> DType:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing
    their kind: bool < int64 < float32 < float64.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.promote_types(torch.bool, torch.int64)
    autogradkit.int64
    """
    _check_dtype_argument("promote_types", "type1", 1, type1)
    _check_dtype_argument("promote_types", "type2", 2, type2)
    return _dtype.from_numpy_dtype(result_dtype(np.empty(1, type1.numpy), np.empty(1, type2.numpy)))


def can_cast(from_: DType, to: DType) -> bool:
    """Whether PyTorch's casting rule lets an operation write ``from_`` values into
    a ``to`` tensor: never floating into integer or bool, never integer into bool.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.can_cast(torch.int64, torch.float32)
    True
    """
    _check_dtype_argument("can_cast", "from_", 1, from_)
    _check_dtype_argument("can_cast", "to", 2, to)
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (from_ is not _dtype.bool and to is _dtype.bool)


def set_default_dtype(d: DType) -> None:
    """Set the default floating-point dtype (float32 or float64): the dtype of
    Python floats made tensors (``tensor(1.5)``, ``int_tensor * 0.5``), of the
    float factories without a dtype (``ones``, ``rand``, ``randn``,
    ``arange(0.5)``, ``linspace``, ``full(..., 1.5)``, ``Tensor([...])``), of
    integer division and math of integers; tensors of the default dtype print
    without ``dtype=``. Tensors already made keep their dtype.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.set_default_dtype(torch.float64)
    >>> torch.tensor([1.5, 2.0]) / 2
    tensor([0.7500, 1.0000])
    >>> torch.ones(2, dtype=torch.float32)
    tensor([1., 1.], dtype=autogradkit.float32)
    >>> torch.set_default_dtype(torch.float32)
    """
    if not isinstance(d, DType):
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_float(d)
    # result_dtype of a pair of operand kinds is cached; a Python float's changed.
    _promotion._PAIR_DTYPES.clear()


def get_rng_state() -> Tensor:
    """The default generator's state, the 5056 bytes of PyTorch's
    ``CPUGeneratorImplState``, as a 1-d tensor of their values (0 … 255).

    PyTorch returns a ``torch.uint8`` tensor; autogradkit has no uint8 dtype, so
    the bytes are int64 here. Saving the state, drawing, restoring it with
    :func:`set_rng_state` and drawing again gives the same numbers, as in PyTorch.

    Examples
    --------
    >>> import autogradkit as torch
    >>> state = torch.get_rng_state()
    >>> a = torch.rand(3)
    >>> torch.set_rng_state(state)
    >>> torch.equal(a, torch.rand(3))
    True
    """
    from . import random

    return Tensor._make(random.get_rng_state().astype(np.int64))


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from :func:`get_rng_state`'s tensor
    (or a uint8 NumPy array of the same bytes)."""
    from . import random

    if isinstance(new_state, Tensor):
        data = new_state._data
        if data.dtype != np.int64 or (data.size and (data.min() < 0 or data.max() > 255)):
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = data.astype(np.uint8)
    else:
        raw = np.asarray(new_state)
        if raw.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
    if raw.size != random.STATE_SIZE:
        raise RuntimeError(
            f"Expected a CPUGeneratorImplState of size {random.STATE_SIZE} but found the "
            f"input RNG state size to be {raw.size}"
        )
    try:
        random.set_rng_state(raw)
    except ValueError as error:
        raise RuntimeError(str(error)) from None
