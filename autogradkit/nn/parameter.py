"""``nn.Parameter``: a leaf tensor that a :class:`~autogradkit.nn.Module` lists
among its parameters.

>>> import autogradkit as torch
>>> torch.nn.Parameter(torch.ones(2))
Parameter containing:
tensor([1., 1.], requires_grad=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._parameter_marks import is_marked, is_uninitialized, mark, mark_uninitialized
from ..tensor import Tensor

__all__ = ["Parameter", "UninitializedParameter"]


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


class _UninitializedParameterType(type):
    """``UninitializedParameter()`` returns a Parameter holding no values yet (a lazy
    module gives it its shape at its first call: :func:`materialize`);
    ``isinstance`` reads its mark, as for Parameter."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and is_uninitialized(obj)

    def __call__(cls, requires_grad: bool = True, device=None, dtype=None) -> Tensor:
        from .._creation import empty

        parameter = Parameter(empty(0, dtype=dtype, device=device), requires_grad)
        mark_uninitialized(parameter)
        return parameter


if TYPE_CHECKING:

    class UninitializedParameter(Parameter):
        def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None: ...

else:

    class UninitializedParameter(metaclass=_UninitializedParameterType):
        """A parameter whose shape is not known yet: it prints
        ``<UninitializedParameter>`` until its lazy module's first call."""


def materialize(parameter: Tensor, shape: tuple[int, ...]) -> None:
    """Give an uninitialized parameter its shape, in place (the same tensor object,
    so an optimizer made before the first call updates it): uninitialized values,
    which the module's ``reset_parameters`` then draws."""
    from .._creation import empty

    parameter.data = empty(*shape, dtype=parameter.dtype)
    mark_uninitialized(parameter, False)
