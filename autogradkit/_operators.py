"""Tensor's operators: ``+ - * / // % ** @``, unary ``- + abs``, comparisons,
``& | ~`` and indexing (``t[key]``).

Each operator calls its operation in :mod:`autogradkit.ops`. The package is
imported at the top (its ``__init__`` imports nothing) and its modules are looked up
when an operator runs, as ``torch/_tensor.py`` calls ``torch.autograd.backward``:
the ops modules import ``Tensor`` when they load, the Tensor's methods use the ops
only when called, so neither module has to import the other at its bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import ops
from ._tensor_base import TensorBase

if TYPE_CHECKING:
    from .tensor import Tensor


# The Function.apply of Add, Sub and Mul, bound once: ``ops.arithmetic.Mul.apply`` read
# per operation looks up two modules and binds the classmethod afresh (~830
# instructions an operation; callgrind, 200-link chain 17.94M -> 17.61M). The ops
# import Tensor, so they cannot be imported here: ops.arithmetic hands them over
# with bind_arithmetic once its classes exist.
_add_apply: Callable[[Any, Any], Tensor]
_sub_apply: Callable[[Any, Any], Tensor]
_mul_apply: Callable[[Any, Any], Tensor]
# Mm.apply likewise, for ``a @ b`` of two matrices (ops.linalg hands it over).
_mm_apply: Callable[[Any, Any], Tensor]


def bind_arithmetic(add: Any, sub: Any, mul: Any) -> None:
    """Called by :mod:`autogradkit.ops.arithmetic` with its Add, Sub and Mul."""
    global _add_apply, _sub_apply, _mul_apply
    _add_apply = add.apply
    _sub_apply = sub.apply
    _mul_apply = mul.apply


def bind_matmul(mm: Any) -> None:
    """Called by :mod:`autogradkit.ops.linalg` with its Mm."""
    global _mm_apply
    _mm_apply = mm.apply


class Operators(TensorBase):
    """Mixed into :class:`autogradkit.Tensor`."""

    __slots__ = ()

    # -- arithmetic ---------------------------------------------------------------------
    # The common case, two tensors (or a tensor and a Python number), goes straight to
    # the operation's Function; everything else takes the checked path in autogradkit.ops.
    def __add__(self, other):
        if type(other) is type(self) or type(other) is float or type(other) is int:
            return _add_apply(self, other)
        return ops.arithmetic.add(self, other)

    def __radd__(self, other):
        return ops.arithmetic.add(self, other)

    def __sub__(self, other):
        if type(other) is type(self) or type(other) is float or type(other) is int:
            return _sub_apply(self, other)
        return ops.arithmetic.sub(self, other)

    def __rsub__(self, other):
        return ops.arithmetic.rsub(self, other)

    def __mul__(self, other):
        if type(other) is type(self) or type(other) is float or type(other) is int:
            return _mul_apply(self, other)
        return ops.arithmetic.mul(self, other)

    def __rmul__(self, other):
        return ops.arithmetic.mul(self, other)

    def __truediv__(self, other):
        return ops.arithmetic.div(self, other)

    def __rtruediv__(self, other):
        return ops.arithmetic.mul(ops.arithmetic.reciprocal(self), other)

    def __floordiv__(self, other):
        return ops.arithmetic.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return ops.arithmetic.floor_divide(other, self)

    def __mod__(self, other):
        return ops.arithmetic.remainder(self, other)

    def __rmod__(self, other):
        return ops.arithmetic.remainder(other, self)

    def __pow__(self, exponent):
        return ops.arithmetic.pow(self, exponent)

    def __rpow__(self, base):
        return ops.arithmetic.pow(base, self)

    def __matmul__(self, other):
        if type(other) is type(self) and self._data.ndim == 2 and other._data.ndim == 2:
            return _mm_apply(self, other)
        return ops.linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.linalg.matmul(ops.arithmetic._as_tensor(other), self)

    def __neg__(self):
        return ops.arithmetic.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return ops.pointwise.abs(self)

    # Comparisons give bool tensors and are never differentiated.
    def _compare(self, other, ufunc) -> Tensor:
        if isinstance(other, TensorBase):
            other = other._data
        elif not isinstance(other, (int, float, np.generic, np.ndarray)):
            # t == None is False and t < None a TypeError, as in PyTorch (Python's
            # own answers once the comparison is declined).
            return NotImplemented
        try:
            return self._make(np.asarray(ufunc(self._data, other)))
        except ValueError:  # shapes that do not broadcast: PyTorch's words, not NumPy's
            raise ops.arithmetic.broadcast_error(self._data, other) from None

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    def _compare_method(self, name: str, other) -> Tensor:
        ops.comparison.check_method_operand(name, other)
        return ops.comparison.compare(name, self, other)

    def eq(self, other):
        """``self == other`` elementwise (a bool tensor)."""
        return self._compare_method("eq", other)

    def ne(self, other):
        """``self != other`` elementwise (a bool tensor)."""
        return self._compare_method("ne", other)

    def lt(self, other):
        """``self < other`` elementwise (a bool tensor)."""
        return self._compare_method("lt", other)

    def le(self, other):
        """``self <= other`` elementwise (a bool tensor)."""
        return self._compare_method("le", other)

    def gt(self, other):
        """``self > other`` elementwise (a bool tensor).

        >>> import autogradkit as torch
        >>> torch.tensor([1.0, 3.0]).gt(2)
        tensor([False,  True])
        """
        return self._compare_method("gt", other)

    def ge(self, other):
        """``self >= other`` elementwise (a bool tensor)."""
        return self._compare_method("ge", other)

    # PyTorch's other names for them.
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    # & | ^ (see ops/bitwise.py): logical on bool masks, bit by bit on integers.
    def __and__(self, other):
        return ops.bitwise.bitwise("and", self, other)

    def __rand__(self, other):
        return ops.bitwise.bitwise("and", other, self)

    def __iand__(self, other):
        return ops.bitwise.bitwise_inplace("and", self, other)

    def __or__(self, other):
        return ops.bitwise.bitwise("or", self, other)

    def __ror__(self, other):
        return ops.bitwise.bitwise("or", other, self)

    def __ior__(self, other):
        return ops.bitwise.bitwise_inplace("or", self, other)

    def __xor__(self, other):
        return ops.bitwise.bitwise("xor", self, other)

    def __rxor__(self, other):
        return ops.bitwise.bitwise("xor", other, self)

    def __ixor__(self, other):
        return ops.bitwise.bitwise_inplace("xor", self, other)

    def bitwise_and(self, other):
        return ops.bitwise.bitwise_and(self, other)

    def bitwise_or(self, other):
        return ops.bitwise.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return ops.bitwise.bitwise_xor(self, other)

    def bitwise_not(self):
        return ops.bitwise.bitwise_not(self)

    def bitwise_and_(self, other):
        return ops.bitwise.bitwise_inplace("and", self, other)

    def bitwise_or_(self, other):
        return ops.bitwise.bitwise_inplace("or", self, other)

    def bitwise_xor_(self, other):
        return ops.bitwise.bitwise_inplace("xor", self, other)

    def __invert__(self):
        if self._data.dtype.kind not in "biu":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return self._make(np.asarray(~self._data))

    def __getitem__(self, key):
        return ops.shape.getitem(self, key)

    def __hash__(self) -> int:  # defining __eq__ would otherwise make tensors unhashable
        return id(self)
