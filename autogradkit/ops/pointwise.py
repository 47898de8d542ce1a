"""Elementwise functions of one tensor, plus ``clamp`` and ``maximum``.

Where the derivative is a step function (``relu``, ``abs``, ``clamp``), backward
multiplies by a mask computed in forward; a mask is a constant, so the same line is
right for higher derivatives too.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._promotion import _cast, promote, result_dtype
from .arithmetic import BinaryFunction

__all__ = ["exp", "log", "sqrt", "abs", "sigmoid", "tanh", "relu", "clamp", "clamp_min", "maximum"]


def _float(x: np.ndarray) -> np.ndarray:
    """Math functions of integer tensors give the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(np.float32)


class Exp(Function):
    """f(x) = eˣ;   ∂f/∂x = eˣ = f(x)"""

    node_name = "ExpBackward0"
    formula = r"f(x) = e^x \qquad \frac{\partial f}{\partial x} = e^x"

    @staticmethod
    def forward(ctx, x):
        # np.asarray: NumPy returns a scalar for 0-d input, and the engine must see
        # the very array it returns to treat the saved value as the output.
        with np.errstate(over="ignore"):  # e^1000 is inf, silently, as in PyTorch
            out = np.asarray(np.exp(_float(x)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out


class Log(Function):
    """f(x) = ln x;   ∂f/∂x = 1/x"""

    node_name = "LogBackward0"
    formula = r"f(x) = \ln x \qquad \frac{\partial f}{\partial x} = \frac{1}{x}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / x


class Sqrt(Function):
    """f(x) = √x;   ∂f/∂x = 1/(2√x)"""

    node_name = "SqrtBackward0"
    formula = r"f(x) = \sqrt{x} \qquad \frac{\partial f}{\partial x} = \frac{1}{2\sqrt{x}}"

    @staticmethod
    def forward(ctx, x):
        with np.errstate(invalid="ignore"):
            out = np.asarray(np.sqrt(_float(x)))  # an array for 0-d x too (see Exp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output / (2 * out)


class Abs(Function):
    """f(x) = |x|;   ∂f/∂x = sign(x)  (0 at x = 0, as in PyTorch)"""

    node_name = "AbsBackward0"
    formula = r"f(x) = |x| \qquad \frac{\partial f}{\partial x} = \operatorname{sign}(x)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(np.sign(x))
        return np.abs(x)

    @staticmethod
    def backward(ctx, grad_output):
        (sign,) = ctx.saved_tensors
        return grad_output * sign


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1/(1+e⁻ˣ) overflows for very negative x; e^(−|x|) never does.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


class Sigmoid(Function):
    """f(x) = σ(x) = 1/(1 + e⁻ˣ);   ∂f/∂x = σ(x)·(1 − σ(x))"""

    node_name = "SigmoidBackward0"
    formula = r"f(x) = \sigma(x) = \frac{1}{1 + e^{-x}} \qquad \frac{\partial f}{\partial x} = \sigma(x)\,(1 - \sigma(x))"

    @staticmethod
    def forward(ctx, x):
        out = _sigmoid(_float(x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out * (1 - out)


class Tanh(Function):
    """f(x) = tanh x;   ∂f/∂x = 1 − tanh²x"""

    node_name = "TanhBackward0"
    formula = r"f(x) = \tanh x \qquad \frac{\partial f}{\partial x} = 1 - \tanh^2 x"

    @staticmethod
    def forward(ctx, x):
        out = np.asarray(np.tanh(_float(x)))  # an array for 0-d x too (see Exp)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (1 - out * out)


class Relu(Function):
    """f(x) = max(x, 0);   ∂f/∂x = 1 where x > 0, else 0"""

    node_name = "ReluBackward0"
    formula = r"f(x) = \max(x, 0) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x):
        out = np.maximum(x, 0)
        ctx.save_for_backward(out > 0)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (positive,) = ctx.saved_tensors
        return grad_output * positive


class Clamp(Function):
    """f(x) = min(max(x, lo), hi) for numbers lo, hi;
    ∂f/∂x = 1 where lo ≤ x ≤ hi, else 0"""

    node_name = "ClampBackward1"
    formula = r"f(x) = \min(\max(x, lo), hi) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & lo \le x \le hi \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, low, high):
        out = np.clip(x, low, high)
        inside = np.ones(x.shape, dtype=bool)
        if low is not None:
            inside &= x >= low
        if high is not None:
            inside &= x <= high
        ctx.save_for_backward(inside)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (inside,) = ctx.saved_tensors
        return grad_output * inside, None, None


class ClampMin(Clamp):
    """f(x) = max(x, lo) (``x.clamp_min(lo)``);   ∂f/∂x = 1 where x ≥ lo, else 0"""

    node_name = "ClampMinBackward0"
    formula = r"f(x) = \max(x, lo) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x \ge lo \\ 0 & \text{otherwise} \end{cases}"


class ClampTensor(Function):
    """f(x, lo, hi) = min(max(x, lo), hi) with tensor bounds;
    ∂f/∂x = 1 inside the bounds, ∂f/∂lo = 1 where x < lo, ∂f/∂hi = 1 where x > hi.
    Where lo > hi the result is hi, so (as in PyTorch) hi gets the gradient there and
    lo none."""

    node_name = "ClampBackward0"
    formula = r"f(x, lo, hi) = \min(\max(x, lo), hi) \qquad \frac{\partial f}{\partial x} = 1 \text{ inside the bounds}, \quad \frac{\partial f}{\partial lo} = 1 \text{ where } x < lo, \quad \frac{\partial f}{\partial hi} = 1 \text{ where } x > hi"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, low, high):
        low = None if low is _NO_BOUND else low
        high = None if high is _NO_BOUND else high
        # PyTorch promotes the three operands together (a 0-d float64 bound does not
        # make a float32 tensor float64).
        target = result_dtype(x, low, high)
        x, low, high = (None if v is None else _cast(v, target) for v in (x, low, high))
        out = x
        below = np.zeros(x.shape, dtype=bool) if low is None else x < low
        above = np.zeros(x.shape, dtype=bool) if high is None else x > high
        inside = ~(below | above)
        if low is not None and high is not None:
            # PyTorch's clamp_backward_min_max: an inverted interval sends the
            # gradient to max only.
            below = below & (low < high)
            above = above | (high < low)
        if low is not None:
            out = np.maximum(out, low)
        if high is not None:
            out = np.minimum(out, high)
        ctx.save_for_backward(inside, below, above)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        inside, below, above = ctx.saved_tensors
        return grad_output * inside, grad_output * below, grad_output * above


class Maximum(BinaryFunction):
    """f(x, y) = max(x, y);   ∂f/∂x = 1 where x > y, ∂f/∂y = 1 where y > x,
    and ½ each where they tie (PyTorch's convention)"""

    node_name = "MaximumBackward0"
    formula = r"f(x, y) = \max(x, y) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x > y \\ \tfrac12 & x = y \\ 0 & x < y \end{cases}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        x, y = promote(x, y)
        share_x = (x > y) + 0.5 * (x == y)
        ctx.save_for_backward(share_x.astype(np.result_type(x, y)))
        return np.maximum(x, y)

    @staticmethod
    def backward(ctx, grad_output):
        (share_x,) = ctx.saved_tensors
        return grad_output * share_x, grad_output * (1 - share_x)


def exp(input: Tensor) -> Tensor:
    """eˣ elementwise."""
    return Exp.apply(input)


def log(input: Tensor) -> Tensor:
    """Natural logarithm elementwise (``nan`` for negatives, ``-inf`` at 0)."""
    return Log.apply(input)


def sqrt(input: Tensor) -> Tensor:
    """Square root elementwise."""
    return Sqrt.apply(input)


def abs(input: Tensor) -> Tensor:
    """|x| elementwise."""
    return Abs.apply(input)


def sigmoid(input: Tensor) -> Tensor:
    """The logistic function σ(x) = 1/(1 + e⁻ˣ), elementwise."""
    return Sigmoid.apply(input)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent elementwise."""
    return Tanh.apply(input)


def relu(input: Tensor) -> Tensor:
    """max(x, 0) elementwise."""
    return Relu.apply(input)


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    """Limit every element to ``[min, max]``; bounds may be numbers or tensors."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # PyTorch's ClampBackward0 always lists three inputs (x, min, max), with
        # (None, 0) for a missing bound: a placeholder tensor stands in for it.
        return ClampTensor.apply(input, _bound(min), _bound(max))
    for name, bound in (("min", min), ("max", max)):
        if bound is not None and not isinstance(bound, (int, float, np.number)):
            raise TypeError(
                f"clamp(): argument '{name}' must be a number or a Tensor, not {type(bound).__name__}"
            )
    return Clamp.apply(input, min, max)


_NO_BOUND = np.empty(0)


def _bound(value):
    return Tensor._make(_NO_BOUND) if value is None else value


def clamp_min(input: Tensor, min) -> Tensor:
    """max(x, min) elementwise, ``min`` a number."""
    if isinstance(min, Tensor):
        return ClampTensor.apply(input, min, _bound(None))
    return ClampMin.apply(input, min, None)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (broadcasting)."""
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError(
            f"maximum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    return Maximum.apply(input, other)
