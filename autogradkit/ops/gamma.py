"""The log-gamma function ``lgamma`` and its derivatives: ``digamma`` ψ = (ln Γ)′
and the polygamma functions ψ⁽ⁿ⁾ (which the derivatives of ``digamma`` need).

NumPy has none of them. ``lgamma`` is the C library's (Python's ``math.lgamma``),
element by element in float64. ψ⁽¹⁾ is PyTorch's own formula (see
:func:`_trigamma_as_pytorch`); ψ and ψ⁽ⁿ⁾, n ≥ 2, are computed as a textbook does: the
recurrence ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) + (−1)ⁿ⁺¹ n!/xⁿ⁺¹ moves x up to 20 or more, where
the asymptotic series in the Bernoulli numbers is exact to float64's precision;
ψ of a negative x uses the reflection ψ(x) = ψ(1 − x) − π/tan(πx).

>>> import autogradkit as torch
>>> torch.lgamma(torch.tensor([0.5, 5.0]))
tensor([0.5724, 3.1781])
>>> torch.digamma(torch.tensor([1.0, 2.0]))
tensor([-0.5772,  0.4228])
"""

from __future__ import annotations

import math

import numpy as np

from .._quiet_numpy import quietly
from ..autograd.function import Elementwise
from ..tensor import Tensor
from .pointwise import _float

__all__ = ["lgamma", "digamma", "polygamma"]

# B₂, B₄, …, B₂₀: the Bernoulli numbers of the asymptotic series.
_BERNOULLI = (
    1 / 6,
    -1 / 30,
    1 / 42,
    -1 / 30,
    5 / 66,
    -691 / 2730,
    7 / 6,
    -3617 / 510,
    43867 / 798,
    -174611 / 330,
)
_FAR_ENOUGH = 20.0  # from here on, the series is exact to float64's precision


def _lgamma_of(value: float) -> float:
    """ln |Γ(x)| of one number; +inf at the poles 0, −1, −2, … (math raises there)."""
    try:
        return math.lgamma(value)
    except ValueError:
        return math.inf


_lgamma_of_each = np.frompyfunc(_lgamma_of, 1, 1)


def _polygamma_far(n: int, y: np.ndarray) -> np.ndarray:
    """ψ⁽ⁿ⁾(y) for y ≥ 20 from the asymptotic series."""
    if n == 0:
        total = np.log(y) - 0.5 / y
        for k, bernoulli in enumerate(_BERNOULLI, start=1):
            total = total - bernoulli / (2 * k * y ** (2 * k))
        return total
    total = math.factorial(n - 1) / y**n + math.factorial(n) / (2 * y ** (n + 1))
    for k, bernoulli in enumerate(_BERNOULLI, start=1):
        coefficient = bernoulli * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
        total = total + coefficient / y ** (2 * k + n)
    return (-1) ** (n + 1) * total


def _trigamma_as_pytorch(x: np.ndarray) -> np.ndarray:
    """ψ⁽¹⁾(x) as PyTorch's CPU kernel computes it (its calc_trigamma): reflection
    below ½, six steps of the recurrence, three terms of the series. It is good to
    about 1e-9 relative (ψ⁽¹⁾(½) = π²/2 + 1.5e-9), so the second derivative of
    lgamma is PyTorch's value, not a more precise one."""
    # In x's own dtype, constants included, as PyTorch's float and double kernels
    # (float32 then gives PyTorch's float32 values, 1.29e15 at −1 among them).
    real = x.dtype.type
    pi = real(math.pi)
    below_half = x < 0.5
    sine = np.sin(pi * x)
    result = np.where(below_half, -(pi * pi) / (sine * sine), real(0))
    x = np.where(below_half, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    series = real(1 / 6) - ixx * (real(1 / 30) - ixx * real(1 / 42))
    result = result + (1 + 1 / (2 * x) + ixx * series) / x
    return np.where(below_half, -result, result)


@quietly  # poles: 1/0 = inf, replaced where PyTorch gives something else
def polygamma_values(n: int, x: np.ndarray) -> np.ndarray:
    """ψ⁽ⁿ⁾ of every element of a float64 array (n = 0: digamma)."""
    if n == 1:
        return _trigamma_as_pytorch(np.asarray(x))
    x = np.asarray(x, np.float64)
    finite = np.isfinite(x)
    reflected = finite & (x < 0) if n == 0 else np.zeros(x.shape, bool)
    y = np.where(reflected, 1 - x, np.where(finite, x, _FAR_ENOUGH))
    # The recurrence, up to 20: ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + m) + (−1)ⁿ⁺¹ n! Σₖ 1/(x + k)ⁿ⁺¹.
    steps = np.zeros(x.shape)
    while np.any(y < _FAR_ENOUGH):
        near = y < _FAR_ENOUGH
        steps = steps + np.where(near, 1 / np.where(near, y, 1.0) ** (n + 1), 0.0)
        y = np.where(near, y + 1, y)
    out = _polygamma_far(n, y) + (-1) ** (n + 1) * math.factorial(n) * steps
    if n == 0:
        out = np.where(reflected, out - math.pi / np.tan(math.pi * x), out)
        pole = finite & (x <= 0) & (x == np.floor(x))
        # PyTorch: ψ(+0) = −inf, ψ(−0) = +inf, nan at the negative integers.
        at_pole = np.where(x == 0, np.where(np.signbit(x), math.inf, -math.inf), math.nan)
        out = np.where(pole, at_pole, out)
        return np.where(finite, out, np.where(x == math.inf, math.inf, math.nan))
    # PyTorch's (through the Hurwitz zeta function): ±inf at the poles and at −inf,
    # with ψ⁽ⁿ⁾'s sign there, and nan at +inf.
    infinite = (-1) ** (n + 1) * math.inf
    out = np.where(finite & (x <= 0) & (x == np.floor(x)), infinite, out)
    return np.where(finite, out, np.where(x == -math.inf, infinite, math.nan))


class Lgamma(Elementwise):
    """f(x) = ln |Γ(x)|;   ∂f/∂x = ψ(x), the digamma function"""

    node_name = "LgammaBackward0"
    formula = r"f(x) = \ln |\Gamma(x)| \qquad \frac{\partial f}{\partial x} = \psi(x)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x = _float(x)
        wide = np.asarray(_lgamma_of_each(x.astype(np.float64)), np.float64)
        return wide.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Digamma.in_formula(x)  # as PyTorch's formula


class Digamma(Elementwise):
    """f(x) = ψ(x) = Γ′(x)/Γ(x);   ∂f/∂x = ψ⁽¹⁾(x), the trigamma function"""

    node_name = "DigammaBackward0"
    formula = r"f(x) = \psi(x) = \frac{\Gamma'(x)}{\Gamma(x)} \qquad \frac{\partial f}{\partial x} = \psi^{(1)}(x)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x = _float(x)
        return np.asarray(polygamma_values(0, x).astype(x.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Polygamma.in_formula(x, 1)  # as PyTorch's formula


class Polygamma(Elementwise):
    """f(x) = ψ⁽ⁿ⁾(x), the n-th derivative of digamma;   ∂f/∂x = ψ⁽ⁿ⁺¹⁾(x)"""

    node_name = "PolygammaBackward0"
    formula = r"f(x) = \psi^{(n)}(x) \qquad \frac{\partial f}{\partial x} = \psi^{(n+1)}(x)"

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        x = _float(x)
        return np.asarray(polygamma_values(n, x).astype(x.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Polygamma.in_formula(x, ctx.n + 1), None


def lgamma(input: Tensor) -> Tensor:
    """ln |Γ(x)| elementwise (+inf at 0, −1, −2, …).

    >>> import autogradkit as torch
    >>> torch.lgamma(torch.tensor([1.0, 3.0]))
    tensor([0.0000, 0.6931])
    """
    return Lgamma.apply(input)


def digamma(input: Tensor) -> Tensor:
    """The digamma function ψ(x) = (ln Γ)′(x) elementwise (−inf at +0, nan at the
    negative integers, as PyTorch)."""
    return Digamma.apply(input)


def polygamma(n: int, input: Tensor) -> Tensor:
    """ψ⁽ⁿ⁾(x), the n-th derivative of digamma, elementwise (n = 0: digamma itself;
    n = 1: the trigamma function).

    >>> import autogradkit as torch
    >>> torch.polygamma(1, torch.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(input, int(n))
