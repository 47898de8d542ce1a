"""Comparisons: ``eq ne lt le gt ge`` as functions and methods, and their in-place forms.

A comparison gives a bool tensor and is never differentiated: its result does not
require grad. The in-place forms (``x.gt_(y)``) write 1 where the comparison holds
and 0 elsewhere, in ``x``'s own dtype; when they are recorded (``x`` in a graph, or
``y`` requiring grad) PyTorch records a node such as ``GtBackward0`` (``y`` a
number) or ``GtBackward1`` (``y`` a tensor) whose gradients are zeros: the result
is a step function of its inputs.

>>> import autogradkit as torch
>>> x = torch.tensor([1.0, 2.0, 3.0])
>>> x.gt(2), torch.le(x, 2)
(tensor([False, False,  True]), tensor([ True,  True, False]))
>>> x.clone().ne_(2)
tensor([1., 0., 1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
]

UFUNCS = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
_NUMBERS = (int, float, complex, np.generic)


def _type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def check_method_operand(name: str, other: Any) -> None:
    """PyTorch's TypeError for ``x.gt(other)`` (or ``x.gt_``) with an ``other`` that
    is neither a tensor nor a number."""
    if isinstance(other, (Tensor, *_NUMBERS)):
        return
    got = _type_name(other)
    mismatch = f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (Tensor other)\n{mismatch} * (Number other)\n{mismatch}"
    )


def compare(name: str, input: Any, other: Any) -> Tensor:
    """``torch.<name>(input, other)``: the elementwise comparison, broadcasting."""
    if not isinstance(input, Tensor) or not isinstance(other, (Tensor, *_NUMBERS)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({_type_name(input)}, {_type_name(other)}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    values = other._data if isinstance(other, Tensor) else other
    if isinstance(values, complex):  # NumPy would order complex numbers; PyTorch refuses
        kind = "ComplexDouble" if input._data.dtype == np.float64 else "ComplexFloat"
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{kind}'")
    return Tensor._make(np.asarray(_broadcasting(UFUNCS[name], input._data, values)))


def _broadcasting(ufunc: np.ufunc, a: np.ndarray, b: Any) -> Any:
    """``ufunc(a, b)``, with PyTorch's error when the shapes do not broadcast."""
    try:
        return ufunc(a, b)
    except ValueError:
        from .arithmetic import broadcast_error

        raise broadcast_error(a, b) from None


def eq(input: Tensor, other) -> Tensor:
    """``input == other`` elementwise (a bool tensor)."""
    return compare("eq", input, other)


def ne(input: Tensor, other) -> Tensor:
    """``input != other`` elementwise (a bool tensor)."""
    return compare("ne", input, other)


def lt(input: Tensor, other) -> Tensor:
    """``input < other`` elementwise (a bool tensor)."""
    return compare("lt", input, other)


def le(input: Tensor, other) -> Tensor:
    """``input <= other`` elementwise (a bool tensor)."""
    return compare("le", input, other)


def gt(input: Tensor, other) -> Tensor:
    """``input > other`` elementwise (a bool tensor).

    >>> import autogradkit as torch
    >>> torch.gt(torch.tensor([1.0, 3.0]), torch.tensor([2.0, 2.0]))
    tensor([False,  True])
    """
    return compare("gt", input, other)


def ge(input: Tensor, other) -> Tensor:
    """``input >= other`` elementwise (a bool tensor)."""
    return compare("ge", input, other)


# PyTorch's other names for them.
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


# -- in place ----------------------------------------------------------------------------


class InplaceComparison(Function):
    """What ``x.gt_(y)`` records: f(x, y) = 1 where x > y, else 0, in x's dtype.

    A step function: ∂f/∂x = ∂f/∂y = 0 (PyTorch's formula for these nodes is
    zeros). The comparison's ufunc is the first argument, not an input."""

    formula = r"f(x, y) = [x \mathbin{op} y] \qquad \frac{\partial f}{\partial x} = \frac{\partial f}{\partial y} = 0"
    scalars_are_inputs = False  # y as a number has no edge (GtBackward0 has one)

    @staticmethod
    def forward(ctx, ufunc, x, y):
        return np.asarray(_broadcasting(ufunc, x, y)).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        zeros = np.zeros_like(grad_output)
        return None, zeros, (zeros if ctx.needs_input_grad[2] else None)

    @staticmethod
    def jvp(ctx, *tangents):
        return None  # a step function: its tangent is 0


class EqInplace(InplaceComparison):
    node_name, scalar_node_name = "EqBackward1", "EqBackward0"


class NeInplace(InplaceComparison):
    node_name, scalar_node_name = "NeBackward1", "NeBackward0"


class LtInplace(InplaceComparison):
    node_name, scalar_node_name = "LtBackward1", "LtBackward0"


class LeInplace(InplaceComparison):
    node_name, scalar_node_name = "LeBackward1", "LeBackward0"


class GtInplace(InplaceComparison):
    node_name, scalar_node_name = "GtBackward1", "GtBackward0"


class GeInplace(InplaceComparison):
    node_name, scalar_node_name = "GeBackward1", "GeBackward0"


INPLACE = {
    "eq": EqInplace,
    "ne": NeInplace,
    "lt": LtInplace,
    "le": LeInplace,
    "gt": GtInplace,
    "ge": GeInplace,
}


def recorded_inplace(name: str, x: Tensor, other) -> Tensor:
    """The out-of-place form of ``x.<name>_(other)`` that an in-place change records:
    its node is ``<Name>Backward0`` when ``other`` is a number."""
    function = INPLACE[name]
    result = function.apply(UFUNCS[name], x, other)
    node = result.grad_fn
    if node is not None and not isinstance(other, Tensor):
        node.__class__ = function._scalar_node_class
    return result
