"""More elementwise functions of two tensors: ``logaddexp``, ``logaddexp2``,
``fmax``, ``fmin``, ``copysign``, ``heaviside`` and ``float_power``.

``logaddexp(x, y) = ln(eˣ + eʸ)`` without overflow (the log-sum-exp of two);
``fmax``/``fmin`` are ``maximum``/``minimum`` that ignore a nan (the number wins),
and give a tie's whole gradient to the first operand, as PyTorch does;
``copysign`` is |x| with y's sign; ``heaviside`` is the step function (PyTorch has
no derivative for it); ``float_power`` is ``pow`` in float64.

>>> import autogradkit as torch
>>> torch.logaddexp(torch.tensor([0.0, 100.0]), torch.tensor([0.0, 100.0]))
tensor([  0.6931, 100.6931])
>>> torch.fmax(torch.tensor([float("nan"), 1.0]), torch.tensor([2.0, float("nan")]))
tensor([2., 1.])
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import scalar_type_name
from .._quiet_numpy import quietly
from ..autograd.function import Function
from ..tensor import Tensor
from ._promotion import promote
from .arithmetic import BinaryFunction, _not_implemented_name, _zeros_like
from .arithmetic import pow as _pow
from .pointwise import _check_tensor_pair, _float
from .where import MaskedFill, _values, select

__all__ = ["logaddexp", "logaddexp2", "fmax", "fmin", "copysign", "heaviside", "float_power"]

_LN2 = math.log(2.0)


class Logaddexp(BinaryFunction):
    """f(x, y) = ln(eˣ + eʸ);   ∂f/∂x = 1/(1 + e^(y−x)),   ∂f/∂y = 1/(1 + e^(x−y))"""

    node_name = "LogaddexpBackward0"
    formula = r"f(x, y) = \ln(e^x + e^y) \qquad \frac{\partial f}{\partial x} = \frac{1}{1 + e^{y - x}}, \quad \frac{\partial f}{\partial y} = \frac{1}{1 + e^{x - y}}"
    scalars_are_inputs = False

    @staticmethod
    @quietly  # inf - inf at equal infinities: handled, silently
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        x, y = promote(x, y)
        return np.asarray(np.logaddexp(x, y))

    @staticmethod
    @quietly  # e^(y−x) overflows to inf: the gradient is 0 there, silently
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output / (1 + np.exp(y - x)), grad_output / (1 + np.exp(x - y))


class Logaddexp2(BinaryFunction):
    """f(x, y) = log₂(2ˣ + 2ʸ);   ∂f/∂x = 1/(1 + 2^(y−x)),   ∂f/∂y = 1/(1 + 2^(x−y))"""

    node_name = "Logaddexp2Backward0"
    formula = r"f(x, y) = \log_2(2^x + 2^y) \qquad \frac{\partial f}{\partial x} = \frac{1}{1 + 2^{y - x}}, \quad \frac{\partial f}{\partial y} = \frac{1}{1 + 2^{x - y}}"
    scalars_are_inputs = False

    @staticmethod
    @quietly  # as Logaddexp
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        x, y = promote(x, y)
        return np.asarray(np.logaddexp2(x, y))

    @staticmethod
    @quietly  # as Logaddexp
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output / (1 + _two_to_the(y - x)), grad_output / (1 + _two_to_the(x - y))


def _two_to_the(power):
    """2 ** power as PyTorch's formula writes it, pow(2, ·): recorded as PowBackward2
    on tensors (create_graph); on arrays, a 0-d difference is a NumPy scalar, made
    an array for pow."""
    return _pow(2, power if isinstance(power, Tensor) else np.asarray(power))


class Fmax(BinaryFunction):
    """f(x, y) = max(x, y), the number where one is nan;   ∂f/∂x = 1 where x ≥ y or
    y is nan (ties go to x, as PyTorch), ∂f/∂y = 1 elsewhere"""

    node_name = "FmaxBackward0"
    formula = r"f(x, y) = \max(x, y) \qquad \frac{\partial f}{\partial x} = [x \ge y \lor y = \mathrm{nan}], \quad \frac{\partial f}{\partial y} = 1 - \frac{\partial f}{\partial x}"
    scalars_are_inputs = False
    saved_order = (1, 0)  # PyTorch packs other, then self
    choose = staticmethod(np.fmax)

    @classmethod
    def forward(cls, ctx, x, y):
        x, y = promote(x, y)
        ctx.save_for_backward(x, y)  # compared again in backward, as PyTorch
        return np.asarray(cls.choose(x, y))

    @classmethod
    def backward(cls, ctx, grad_output):
        x, y = (_values(t) for t in ctx.saved_tensors)
        x_wins = cls.first_wins(x, y) | np.isnan(y)
        return select(x_wins, grad_output), select(~x_wins, grad_output)

    @staticmethod
    def first_wins(x, y):
        return x >= y


class Fmin(Fmax):
    """f(x, y) = min(x, y), the number where one is nan;   ∂f/∂x = 1 where x ≤ y or
    y is nan, ∂f/∂y = 1 elsewhere"""

    node_name = "FminBackward0"
    formula = r"f(x, y) = \min(x, y) \qquad \frac{\partial f}{\partial x} = [x \le y \lor y = \mathrm{nan}], \quad \frac{\partial f}{\partial y} = 1 - \frac{\partial f}{\partial x}"
    choose = staticmethod(np.fmin)

    @staticmethod
    def first_wins(x, y):
        return x <= y


class Copysign(BinaryFunction):
    """f(x, y) = |x| with the sign of y;   ∂f/∂x = f/x (±1; 0 at x = 0),
    ∂f/∂y = 0"""

    node_name = "CopysignBackward0"
    formula = r"f(x, y) = |x| \operatorname{sgn} y \qquad \frac{\partial f}{\partial x} = \frac{f(x, y)}{x}, \quad \frac{\partial f}{\partial y} = 0"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        x, y = promote(_float(np.asarray(x)), y)
        out = np.asarray(np.copysign(x, y))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    @quietly  # 0/0 at x = 0, replaced by 0
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        # PyTorch's copysign_tensor_self_backward: grad · (result / self), 0 where
        # self is 0; the sign of other has no slope.
        ratio = MaskedFill.in_formula(out / x, _values(x) == 0, 0)
        grad_y = _zeros_like(grad_output) if ctx.needs_input_grad[1] else None
        return grad_output * ratio, grad_y


class CopysignNumber(Copysign):
    """``copysign(tensor, number)``"""

    node_name = "CopysignBackward1"

    @staticmethod
    def backward(ctx, grad_output):
        return Copysign.backward(ctx, grad_output)[0], None


class Heaviside(Function):
    """f(x, v) = 0 for x < 0, v at x = 0, 1 for x > 0;   ∂f/∂x not implemented
    (PyTorch has no derivative for it: its node is ``NotImplemented``)"""

    node_name = "NotImplemented"
    formula = r"f(x, v) = \begin{cases} 0 & x < 0 \\ v & x = 0 \\ 1 & x > 0 \end{cases} \qquad \frac{\partial f}{\partial x} \text{ not implemented (PyTorch has none)}"

    @staticmethod
    def forward(ctx, x, values):
        # (NumPy's heaviside gives nan at nan; PyTorch's x > 0 test gives 0 there)
        step = np.where(x == 0, values, (x > 0).astype(x.dtype))
        return np.asarray(step.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("derivative for aten::heaviside is not implemented")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            "Trying to use forward AD with aten::heaviside that does not support it."
        )


# PyTorch's C++ node class, as for ``x // 2``: torch::autograd::NotImplemented.
Heaviside._node_class.name = _not_implemented_name  # type: ignore[method-assign,assignment]


def _check_float_kernel(name: str, input: Tensor, other: Tensor) -> None:
    dtype = np.result_type(input._data, other._data)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type_name(dtype)}'")


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """ln(e^input + e^other) elementwise, without overflow.

    >>> import autogradkit as torch
    >>> torch.logaddexp(torch.tensor([0.0]), torch.tensor([0.0]))
    tensor([0.6931])
    """
    _check_tensor_pair("logaddexp", input, other)
    _check_float_kernel("logaddexp", input, other)
    return Logaddexp.apply(input, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log₂(2^input + 2^other) elementwise, without overflow."""
    _check_tensor_pair("logaddexp2", input, other)
    _check_float_kernel("logaddexp2", input, other)
    return Logaddexp2.apply(input, other)


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """The larger of each pair of elements, the number where one of them is nan."""
    _check_tensor_pair("fmax", input, other)
    return Fmax.apply(input, other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """The smaller of each pair of elements, the number where one of them is nan."""
    _check_tensor_pair("fmin", input, other)
    return Fmin.apply(input, other)


def copysign(input: Tensor, other) -> Tensor:
    """|input| with the sign of ``other`` (a tensor or a number), elementwise; the
    sign of -0.0 counts as negative. Integers give float32.

    >>> import autogradkit as torch
    >>> torch.copysign(torch.tensor([1.0, -2.0]), torch.tensor([-0.0, 3.0]))
    tensor([-1.,  2.])
    """
    if not isinstance(input, Tensor):
        kind = "Tensor" if isinstance(other, Tensor) else type(other).__name__
        raise TypeError(
            f"copysign() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {kind}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    if isinstance(other, Tensor):
        return Copysign.apply(input, other)
    return CopysignNumber.apply(input, other)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The Heaviside step function: 0 where input < 0, ``values`` where it is 0, 1
    where it is positive. PyTorch has no derivative for it (backward refuses).

    >>> import autogradkit as torch
    >>> torch.heaviside(torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    for argument, position, value in (("input", 1, input), ("values", 2, values)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"heaviside(): argument '{argument}' (position {position}) must be Tensor, "
                f"not {type(value).__name__}"
            )
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    # PyTorch's NotImplemented node has an edge only for the inputs that require
    # grad: one that does not is handed over as its array, a constant.
    operands = [t if t.requires_grad else t._data for t in (input, values)]
    return Heaviside.apply(*operands)


def float_power(input, exponent) -> Tensor:
    """``input ** exponent`` computed in float64 (both converted first, recorded as
    ToCopyBackward0 then PyTorch's PowBackward node), whatever their dtypes.

    >>> import autogradkit as torch
    >>> torch.float_power(torch.tensor([2, 3]), 2).tolist()
    [4.0, 9.0]
    """
    if isinstance(input, Tensor):
        input = input.double()
    if isinstance(exponent, Tensor):
        exponent = exponent.double()
    return _pow(input, exponent)
