"""``nn.Parameter``: a leaf tensor that a :class:`~autogradkit.nn.Module` lists
among its parameters.

>>> import autogradkit as torch
>>> torch.nn.Parameter(torch.ones(2))
Parameter containing:
tensor([1., 1.], requires_grad=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._parameter_marks import is_marked, mark
from ..tensor import Tensor

__all__ = ["Parameter"]


class _ParameterType(type):
    """``Parameter(data)`` returns a marked leaf tensor sharing ``data``'s values;
    ``isinstance(t, Parameter)`` reads the mark (see ``autogradkit._parameter_marks``)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and is_marked(obj)

    def __call__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Tensor:
        if data is None:
            from .._creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, not {type(data).__name__}")
        parameter = data.detach()
        if requires_grad:
            parameter.requires_grad_(True)
        mark(parameter)
        return parameter


if TYPE_CHECKING:  # what a Parameter is to a type checker: a Tensor

    class Parameter(Tensor):
        def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None: ...

else:

    class Parameter(metaclass=_ParameterType):
        """A tensor that is a module's parameter: a leaf with ``requires_grad=True``.
        Assigning one to an attribute of a Module registers it there."""
