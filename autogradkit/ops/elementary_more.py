"""More elementary functions: the inverse hyperbolic functions ``asinh``, ``acosh``,
``atanh``, the complementary error function ``erfc``, the log-odds ``logit``, the
normalised ``sinc``, and the angle conversions ``deg2rad``/``rad2deg``.

As in :mod:`.elementary`, every derivative is written with operators and NumPy
functions, so the same line serves a plain backward pass (arrays) and a
``create_graph=True`` pass (tensors). Where PyTorch's formula picks a value at a
point (sinc's derivative at 0, logit's outside [0, 1]), it does so with ``where``,
and so does autogradkit.

>>> import autogradkit as torch
>>> torch.asinh(torch.tensor([0.0, 1.0]))
tensor([0.0000, 0.8814])
>>> torch.logit(torch.tensor([0.5, 0.75]))
tensor([0.0000, 1.0986])
>>> torch.sinc(torch.tensor([0.0, 0.5]))
tensor([1.0000, 0.6366])
"""

from __future__ import annotations

import math

import numpy as np

from .._numpy_protocols import UFUNCS
from .._quiet_numpy import quietly
from ..autograd.function import Elementwise
from ..tensor import Tensor
from .arithmetic import Sub
from .elementary import Rsqrt
from .pointwise import Sgn, _float
from .where import Where, _values


def _one_minus(x):
    """1 − x in a backward formula. On tensors (create_graph) as PyTorch's C++
    ``1 - t`` records it: the 1 wrapped into a tensor, so SubBackward0 with an edge
    (None, 0) for it, where Python's ``1 - t`` would record RsubBackward1."""
    if isinstance(x, Tensor):
        return Sub.apply(Tensor._make(np.ones((), x._data.dtype)), x)
    return 1 - x


__all__ = [
    "asinh",
    "acosh",
    "atanh",
    "erfc",
    "logit",
    "sinc",
    "deg2rad",
    "rad2deg",
    "sgn",
    "positive",
]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_erfc_of_each = np.frompyfunc(math.erfc, 1, 1)  # NumPy has no erfc; the C library's


class Asinh(Elementwise):
    """f(x) = arsinh x = ln(x + √(x² + 1));   ∂f/∂x = 1/√(x² + 1)"""

    node_name = "AsinhBackward0"
    formula = r"f(x) = \operatorname{arsinh} x \qquad \frac{\partial f}{\partial x} = \frac{1}{\sqrt{x^2 + 1}}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arcsinh(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Rsqrt.in_formula(x**2 + 1)  # as PyTorch's formula


class Acosh(Elementwise):
    """f(x) = arcosh x = ln(x + √(x² − 1)) for x ≥ 1;   ∂f/∂x = 1/√(x² − 1)"""

    node_name = "AcoshBackward0"
    formula = r"f(x) = \operatorname{arcosh} x \qquad \frac{\partial f}{\partial x} = \frac{1}{\sqrt{x^2 - 1}}"

    @staticmethod
    @quietly  # nan below 1, silently (as PyTorch)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arccosh(_float(x))

    @staticmethod
    @quietly  # 1/√0 = inf at x = 1, nan below: silently
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Rsqrt.in_formula(x * x - 1)  # as PyTorch's formula


class Atanh(Elementwise):
    """f(x) = artanh x = ½ ln((1 + x)/(1 − x)) for |x| ≤ 1;   ∂f/∂x = 1/(1 − x²)"""

    node_name = "AtanhBackward0"
    formula = (
        r"f(x) = \operatorname{artanh} x \qquad \frac{\partial f}{\partial x} = \frac{1}{1 - x^2}"
    )

    @staticmethod
    @quietly  # ±inf at ±1, nan beyond, silently (as PyTorch)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arctanh(_float(x))

    @staticmethod
    @quietly  # 1/0 at x = ±1: inf, silently
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / _one_minus(x**2)  # as PyTorch's formula


class _InPlaceWithoutDerivative(Elementwise):
    """``x.asinh_()``, ``x.acosh_()``, ``x.atanh_()`` recorded as PyTorch 2.13
    records them: a node of their own (AsinhBackward1, ...) whose backward refuses,
    as PyTorch has no derivative for these in-place forms. (The out-of-place forms
    differentiate; ``x = x.asinh()`` is the way round.)"""

    operation = ""

    @classmethod
    def backward(cls, ctx, grad_output):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {cls.operation}' is not implemented."
        )


class AsinhInPlace(_InPlaceWithoutDerivative):
    """f(x) = arsinh x, written into x;   ∂f/∂x = 1/√(x² + 1), which PyTorch does
    not compute for the in-place form (its backward refuses)"""

    node_name = "AsinhBackward1"
    formula = Asinh.formula
    operation = "asinh"
    forward = staticmethod(Asinh.forward)


class AcoshInPlace(_InPlaceWithoutDerivative):
    """f(x) = arcosh x, written into x;   ∂f/∂x = 1/√(x² − 1), which PyTorch does
    not compute for the in-place form (its backward refuses)"""

    node_name = "AcoshBackward1"
    formula = Acosh.formula
    operation = "acosh"
    forward = staticmethod(Acosh.forward)


class AtanhInPlace(_InPlaceWithoutDerivative):
    """f(x) = artanh x, written into x;   ∂f/∂x = 1/(1 − x²), which PyTorch does
    not compute for the in-place form (its backward refuses)"""

    node_name = "AtanhBackward1"
    formula = Atanh.formula
    operation = "atanh"
    forward = staticmethod(Atanh.forward)


class Erfc(Elementwise):
    """f(x) = erfc x = 1 − erf x;   ∂f/∂x = −(2/√π) e^(−x²)"""

    node_name = "ErfcBackward0"
    formula = r"f(x) = \operatorname{erfc} x = 1 - \operatorname{erf} x \qquad \frac{\partial f}{\partial x} = -\frac{2}{\sqrt{\pi}}\, e^{-x^2}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x = _float(x)
        # In float64, element by element, then rounded: erfc keeps its precision in
        # the tail (erfc 10 = 2.1e-45) where 1 − erf x would give 0.
        return np.asarray(_erfc_of_each(x.astype(np.float64)), np.float64).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return -_TWO_OVER_SQRT_PI * np.exp(-(x**2)) * grad_output  # as PyTorch's formula


class Logit(Elementwise):
    """f(x) = ln(x/(1 − x)), the log-odds of a probability x (clamped to
    [ε, 1 − ε] first when ``eps`` is given);   ∂f/∂x = 1/(x(1 − x)), nan outside
    [0, 1] (0 outside [ε, 1 − ε] with ``eps``)"""

    node_name = "LogitBackward0"
    formula = (
        r"f(x) = \ln \frac{x}{1 - x} \qquad \frac{\partial f}{\partial x} = \frac{1}{x\,(1 - x)}"
    )

    @staticmethod
    @quietly  # ±inf at 0 and 1, nan outside: silently (as PyTorch)
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        x = _float(x)
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        return np.asarray(np.log(x / (1 - x)))

    @staticmethod
    @quietly  # 1/0 at the ends of [0, 1]: inf, silently
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        values, eps = _values(x), ctx.eps
        # PyTorch's logit_backward: nan outside [0, 1] (without eps); with eps, 0
        # wherever the clamp to [eps, 1 − eps] held the input (its flat part) or
        # the input is nan.
        if eps is None:
            inside, value = ~((values < 0) | (values > 1)), math.nan
        else:
            inside, value = (values >= eps) & (values <= 1 - eps), 0.0
        return Where.in_formula(inside, grad_output / (x * _one_minus(x)), value), None


class Sinc(Elementwise):
    """f(x) = sin(πx)/(πx), and 1 at x = 0;
    ∂f/∂x = (πx cos(πx) − sin(πx))/(πx²), and 0 at x = 0"""

    node_name = "SincBackward0"
    formula = r"f(x) = \frac{\sin \pi x}{\pi x} \qquad \frac{\partial f}{\partial x} = \frac{\pi x \cos \pi x - \sin \pi x}{\pi x^2} \ (0 \text{ at } x = 0)"

    @staticmethod
    @quietly  # 0/0 at x = 0, replaced by 1
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x = _float(x)
        angle = math.pi * x
        return np.asarray(np.where(x == 0, np.ones((), x.dtype), np.sin(angle) / angle))

    @staticmethod
    @quietly  # 0/0 at x = 0, replaced by 0
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        angle = math.pi * x
        slope = grad_output * ((angle * np.cos(angle) - np.sin(angle)) / (x * x * math.pi))
        return Where.in_formula(_values(x) == 0, 0.0, slope)  # as PyTorch's formula


class Deg2rad(Elementwise):
    """f(x) = x · π/180, degrees to radians;   ∂f/∂x = π/180"""

    node_name = "Deg2RadBackward0"
    formula = r"f(x) = \frac{\pi}{180}\, x \qquad \frac{\partial f}{\partial x} = \frac{\pi}{180}"

    @staticmethod
    def forward(ctx, x):
        return np.asarray(_float(x) * (math.pi / 180))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (math.pi / 180)


class Rad2deg(Elementwise):
    """f(x) = x · 180/π, radians to degrees;   ∂f/∂x = 180/π"""

    node_name = "Rad2DegBackward0"
    formula = r"f(x) = \frac{180}{\pi}\, x \qquad \frac{\partial f}{\partial x} = \frac{180}{\pi}"

    @staticmethod
    def forward(ctx, x):
        return np.asarray(_float(x) * (180 / math.pi))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (180 / math.pi)


def asinh(input: Tensor) -> Tensor:
    """The inverse hyperbolic sine elementwise.

    >>> import autogradkit as torch
    >>> torch.asinh(torch.tensor([-1.0, 2.0]))
    tensor([-0.8814,  1.4436])
    """
    return Asinh.apply(input)


def acosh(input: Tensor) -> Tensor:
    """The inverse hyperbolic cosine elementwise (nan below 1)."""
    return Acosh.apply(input)


def atanh(input: Tensor) -> Tensor:
    """The inverse hyperbolic tangent elementwise (±inf at ±1, nan beyond)."""
    return Atanh.apply(input)


def erfc(input: Tensor) -> Tensor:
    """The complementary error function 1 − erf x elementwise, exact in the tail.

    >>> import autogradkit as torch
    >>> torch.erfc(torch.tensor([0.0, 1.0]))
    tensor([1.0000, 0.1573])
    """
    return Erfc.apply(input)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """The log-odds ln(p/(1 − p)) elementwise, the inverse of ``sigmoid``; with
    ``eps``, p is clamped to [eps, 1 − eps] first (so 0 and 1 give finite values).

    >>> import autogradkit as torch
    >>> torch.logit(torch.tensor([0.0, 0.5]), eps=1e-6)
    tensor([-13.8155,   0.0000])
    """
    return Logit.apply(input, None if eps is None else float(eps))


def sinc(input: Tensor) -> Tensor:
    """The normalised sinc function sin(πx)/(πx) elementwise, 1 at x = 0."""
    return Sinc.apply(input)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians elementwise.

    >>> import autogradkit as torch
    >>> torch.deg2rad(torch.tensor([180.0, 90.0]))
    tensor([3.1416, 1.5708])
    """
    return Deg2rad.apply(input)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees elementwise."""
    return Rad2deg.apply(input)


def sgn(input: Tensor) -> Tensor:
    """The sign of each element, −1, 0 or 1 (0 at nan; a bool is its own sign): for
    real tensors the same values as ``sign``, recorded as SgnBackward0 (its
    gradient is 0).

    >>> import autogradkit as torch
    >>> torch.sgn(torch.tensor([-2.0, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """
    return Sgn.apply(input)


def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself (no copy, no node), as PyTorch returns it;
    refused for bool tensors, as PyTorch refuses unary plus there."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# NumPy functions a create_graph pass may call on tensors run these operations.
UFUNCS.update({np.arcsinh: asinh, np.arccosh: acosh, np.arctanh: atanh})
