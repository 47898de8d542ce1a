"""Names from before PyTorch 0.4 that tutorials and answers still use.

* ``torch.FloatTensor([1, 2])``, ``DoubleTensor``, ``LongTensor``: old spellings of
  ``torch.tensor(data, dtype=...)`` (or, given sizes, of ``torch.zeros``);
  ``isinstance(t, torch.FloatTensor)`` tests the dtype.
* ``torch.autograd.Variable(t, requires_grad=True)``: since 0.4 a Variable *is* a
  Tensor; calling it returns a tensor, as PyTorch does.
"""

from __future__ import annotations

from typing import Any

from . import _dtype
from .tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor", "Variable"]


class _LegacyTensorType(type):
    """The metaclass that makes ``isinstance(t, FloatTensor)`` a dtype test."""

    dtype: _dtype.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args: Any) -> Tensor:
        from ._creation import full, tensor

        if len(args) == 1 and not isinstance(args[0], int):
            return tensor(args[0], dtype=cls.dtype)
        return full(args, 0, dtype=cls.dtype)


class FloatTensor(metaclass=_LegacyTensorType):
    """``FloatTensor(data)`` is ``tensor(data, dtype=float32)``."""

    dtype = _dtype.float32


class DoubleTensor(metaclass=_LegacyTensorType):
    """``DoubleTensor(data)`` is ``tensor(data, dtype=float64)``."""

    dtype = _dtype.float64


class LongTensor(metaclass=_LegacyTensorType):
    """``LongTensor(data)`` is ``tensor(data, dtype=int64)``."""

    dtype = _dtype.int64


class _VariableType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)

    def __call__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        result = data.detach()
        return result.requires_grad_(requires_grad) if requires_grad else result


class Variable(metaclass=_VariableType):
    """``Variable(t, requires_grad=True)`` returns a tensor (a Variable *is* a Tensor
    since PyTorch 0.4)."""
