"""Elementwise functions of one tensor, plus ``clamp`` and ``maximum``/``minimum``.

Where the derivative is a step function (``relu``, ``clamp``, ``maximum``), backward
*selects* the gradient with a mask computed in forward: ``where(mask, grad, 0)``
(:func:`.where.select`), as PyTorch does. Multiplying by the mask would be wrong where the incoming gradient is
infinite: ``x.clamp(min=0).sqrt()`` at ``x = -1`` gets ``inf`` from ``sqrt`` at 0,
and ``inf · 0`` is ``nan`` where PyTorch (and the mathematics of a constant branch)
gives 0. A mask is a constant, so the same line is right for higher derivatives too.
"""

from __future__ import annotations

import numpy as np

from .._dtype import default_float
from .._numpy_protocols import UFUNCS
from ..autograd.function import Elementwise
from ..tensor import Tensor
from ._promotion import _cast, promote, result_dtype
from .arithmetic import BinaryFunction, _zeros_like
from .where import _values, select

__all__ = [
    "exp",
    "log",
    "sqrt",
    "abs",
    "sigmoid",
    "tanh",
    "relu",
    "clamp",
    "clamp_min",
    "clamp_max",
    "absolute",
    "maximum",
    "minimum",
]


def _float(x: np.ndarray) -> np.ndarray:
    """Math functions of integer tensors give the default float dtype, as in PyTorch."""
    return x if x.dtype.kind == "f" else x.astype(default_float().numpy)


class Exp(Elementwise):
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


class Log(Elementwise):
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


class Sqrt(Elementwise):
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


class Abs(Elementwise):
    """f(x) = |x|;   ∂f/∂x = sign(x)  (0 at x = 0 and at nan, as in PyTorch)"""

    node_name = "AbsBackward0"
    formula = r"f(x) = |x| \qquad \frac{\partial f}{\partial x} = \operatorname{sign}(x)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.abs(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Sgn.in_formula(x)  # as PyTorch's formula: a graph through x


class Sgn(Elementwise):
    """f(x) = sgn x ∈ {−1, 0, 1}, 0 at nan (PyTorch's ``sgn`` of a real tensor,
    which abs' backward calls);   ∂f/∂x = 0"""

    node_name = "SgnBackward0"
    formula = r"f(x) = \operatorname{sgn} x \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind == "b":
            return x.copy()  # a bool is its own sign (NumPy has no sign for bools)
        sign = np.sign(x)
        if sign.dtype.kind == "f":
            sign = np.where(np.isnan(sign), 0, sign)  # PyTorch's sgn(nan) is 0
        return sign

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output)  # a constant, as PyTorch's (not grad · 0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1/(1+e⁻ˣ) overflows for very negative x; e^(−|x|) never does.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


class Sigmoid(Elementwise):
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
        return SigmoidBackward.in_formula(grad_output, out)


class SigmoidBackward(Elementwise):
    """Sigmoid's backward as one operation (PyTorch's ``sigmoid_backward``), so that
    a create_graph pass records it as one node:
    f(g, y) = g·(1 − y)·y;   ∂f/∂g = (1 − y)·y,   ∂f/∂y = g·(1 − 2y)"""

    node_name = "SigmoidBackwardBackward0"
    formula = r"f(g, y) = g\,(1 - y)\,y \qquad \frac{\partial f}{\partial g} = (1 - y)\,y, \quad \frac{\partial f}{\partial y} = g\,(1 - 2y)"

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return g * (1 - y) * y

    @staticmethod
    def backward(ctx, grad_output):
        g, y = ctx.saved_tensors
        grad_g = SigmoidBackward.in_formula(grad_output, y)
        return grad_g, grad_output * g * (-2 * y + 1)  # as PyTorch's formula


class Tanh(Elementwise):
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
        return TanhBackward.in_formula(grad_output, out)


class TanhBackward(Elementwise):
    """Tanh's backward as one operation (PyTorch's ``tanh_backward``), so that a
    create_graph pass records it as one node:
    f(g, y) = g·(1 − y²);   ∂f/∂g = 1 − y²,   ∂f/∂y = −2·g·y"""

    node_name = "TanhBackwardBackward0"
    formula = r"f(g, y) = g\,(1 - y^2) \qquad \frac{\partial f}{\partial g} = 1 - y^2, \quad \frac{\partial f}{\partial y} = -2 g y"

    @staticmethod
    def forward(ctx, g, y):
        ctx.save_for_backward(g, y)
        return g * (1 - y * y)

    @staticmethod
    def backward(ctx, grad_output):
        g, y = ctx.saved_tensors
        return TanhBackward.in_formula(grad_output, y), grad_output * (-2 * y * g)


class Relu(Elementwise):
    """f(x) = max(x, 0);   ∂f/∂x = 1 where x > 0, else 0.
    PyTorch's ``threshold_backward`` zeroes the gradient where f(x) ≤ 0, so at
    ``x = nan`` (where f(x) = nan) the gradient passes through."""

    node_name = "ReluBackward0"
    formula = r"f(x) = \max(x, 0) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x):
        out = np.maximum(0, x)  # x on a tie: relu(-0.0) is -0.0, as in PyTorch
        if out.dtype is not x.dtype:  # bools (NumPy's maximum made int64 of them)
            raise RuntimeError("Boolean inputs not supported for relu")
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return ThresholdBackward.in_formula(grad_output, out, 0)


class ThresholdBackward(Elementwise):
    """Relu's backward as one operation (PyTorch's ``threshold_backward``), so that a
    create_graph pass records it as one node: the gradient g selected where the
    output y is above the threshold t (nan passes, as in PyTorch):
    f(g, y) = g where y > t, else 0;   ∂f/∂g = 1 where y > t, else 0,   ∂f/∂y = 0"""

    node_name = "ThresholdBackwardBackward0"
    formula = r"f(g, y) = \begin{cases} g & y > t \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial g} = [y > t], \quad \frac{\partial f}{\partial y} = 0"

    @staticmethod
    def forward(ctx, g, y, threshold):
        ctx.save_for_backward(y)
        ctx.threshold = threshold
        # A selection, not g · mask: where g is inf the branch not taken still gives 0.
        return select(~(y <= threshold), g)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        grad_g = ThresholdBackward.in_formula(grad_output, y, ctx.threshold)
        return grad_g, _zeros_like(grad_output), None


def _clip(x, low, high):
    """min(max(x, low), high), keeping x on ties as PyTorch does (clamp(-0.0, min=0)
    is -0.0; NumPy's clip and maximum return their second operand on a tie)."""
    if low is not None:
        x = np.maximum(low, x)
    if high is not None:
        x = np.minimum(high, x)
    return x


class Clamp(Elementwise):
    """f(x) = min(max(x, lo), hi) for numbers lo, hi;
    ∂f/∂x = 1 where lo ≤ x ≤ hi, else 0"""

    node_name = "ClampBackward1"
    formula = r"f(x) = \min(\max(x, lo), hi) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & lo \le x \le hi \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, low, high):
        x = _cast(x, result_dtype(x, low, high))  # int tensor, float bound: float32
        # x, as PyTorch saves it (so changing it in place before backward is
        # refused); backward compares it with the bounds again.
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return _clip(x, low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return select(_inside(_values(x), ctx.low, ctx.high), grad_output), None, None


class ClampMin(Clamp):
    """f(x) = max(x, lo) (``x.clamp_min(lo)``);   ∂f/∂x = 1 where x ≥ lo, else 0"""

    node_name = "ClampMinBackward0"
    formula = r"f(x) = \max(x, lo) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x \ge lo \\ 0 & \text{otherwise} \end{cases}"


class ClampMax(Clamp):
    """f(x) = min(x, hi) (``x.clamp_max(hi)``);   ∂f/∂x = 1 where x ≤ hi, else 0"""

    node_name = "ClampMaxBackward0"
    formula = r"f(x) = \min(x, hi) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x \le hi \\ 0 & \text{otherwise} \end{cases}"


class ClampMinTensor(Elementwise):
    """f(x, lo) = max(x, lo) with a tensor bound (``x.clamp_min(lo)``);
    ∂f/∂x = 1 where x ≥ lo, ∂f/∂lo = 1 where x < lo (PyTorch's ClampMinBackward1)."""

    node_name = "ClampMinBackward1"
    formula = r"f(x, lo) = \max(x, lo) \qquad \frac{\partial f}{\partial x} = [x \ge lo], \quad \frac{\partial f}{\partial lo} = [x < lo]"
    scalars_are_inputs = False

    saved_order = (1, 0)  # PyTorch packs the bound, then self

    @staticmethod
    def forward(ctx, x, low):
        target = result_dtype(x, low)  # promoted together, as clamp's operands are
        x, low = _cast(x, target), _cast(low, target)
        ctx.save_for_backward(x, low)  # see Clamp
        return np.maximum(low, x)  # see _clip

    @staticmethod
    def backward(ctx, grad_output):
        x, low = (_values(t) for t in ctx.saved_tensors)
        return select(x >= low, grad_output), select(x < low, grad_output)


class ClampMaxTensor(Elementwise):
    """f(x, hi) = min(x, hi) with a tensor bound (``x.clamp_max(hi)``);
    ∂f/∂x = 1 where x ≤ hi, ∂f/∂hi = 1 where x > hi (PyTorch's ClampMaxBackward1)."""

    node_name = "ClampMaxBackward1"
    formula = r"f(x, hi) = \min(x, hi) \qquad \frac{\partial f}{\partial x} = [x \le hi], \quad \frac{\partial f}{\partial hi} = [x > hi]"
    scalars_are_inputs = False

    saved_order = (1, 0)  # PyTorch packs the bound, then self

    @staticmethod
    def forward(ctx, x, high):
        target = result_dtype(x, high)
        x, high = _cast(x, target), _cast(high, target)
        ctx.save_for_backward(x, high)  # see Clamp
        return np.minimum(high, x)  # see _clip

    @staticmethod
    def backward(ctx, grad_output):
        x, high = (_values(t) for t in ctx.saved_tensors)
        return select(x <= high, grad_output), select(x > high, grad_output)


class ClampTensor(Elementwise):
    """f(x, lo, hi) = min(max(x, lo), hi) with tensor bounds;
    ∂f/∂x = 1 inside the bounds, ∂f/∂lo = 1 where x < lo, ∂f/∂hi = 1 where x > hi.
    Where lo > hi the result is hi, so (as in PyTorch) hi gets the gradient there and
    lo none."""

    node_name = "ClampBackward0"
    formula = r"f(x, lo, hi) = \min(\max(x, lo), hi) \qquad \frac{\partial f}{\partial x} = 1 \text{ inside the bounds}, \quad \frac{\partial f}{\partial lo} = 1 \text{ where } x < lo, \quad \frac{\partial f}{\partial hi} = 1 \text{ where } x > hi"
    scalars_are_inputs = False

    saved_order = (2, 1, 0)  # PyTorch packs max, min, then self

    @staticmethod
    def forward(ctx, x, low, high):
        low = None if low is _NO_BOUND else low
        high = None if high is _NO_BOUND else high
        # PyTorch promotes the three operands together (a 0-d float64 bound does not
        # make a float32 tensor float64).
        target = result_dtype(x, low, high)
        x, low, high = (None if v is None else _cast(v, target) for v in (x, low, high))
        ctx.save_for_backward(x, low, high)  # see Clamp
        out = x
        if low is not None:
            out = np.maximum(low, out)  # see _clip
        if high is not None:
            out = np.minimum(high, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        saved_x, saved_low, saved_high = ctx.saved_tensors
        x = _values(saved_x)
        low = None if saved_low is None else _values(saved_low)
        high = None if saved_high is None else _values(saved_high)
        below = np.zeros(np.shape(x), dtype=np.bool_) if low is None else x < low
        above = np.zeros(np.shape(x), dtype=np.bool_) if high is None else x > high
        if low is not None and high is not None:
            # PyTorch's clamp_backward_min_max: an inverted interval sends the
            # gradient to max only.
            below = below & (low < high)
            above = above | (high < low)
        inside = _inside(x, low, high)
        return select(inside, grad_output), select(below, grad_output), select(above, grad_output)


def _inside(x, low, high):
    """Where ``low ≤ x ≤ hi`` (a bound None: no bound). Not "neither below nor
    above": false at nan, as in PyTorch."""
    inside = np.ones(np.shape(x), dtype=bool)
    if low is not None:
        inside = inside & (x >= low)
    if high is not None:
        inside = inside & (x <= high)
    return inside


class Maximum(BinaryFunction):
    """f(x, y) = max(x, y);   ∂f/∂x = 1 where x > y, ∂f/∂y = 1 where y > x,
    and ½ each where they tie (PyTorch's convention). Where either is ``nan`` the
    comparisons are false and both get the whole gradient, as in PyTorch."""

    node_name = "MaximumBackward0"
    saved_order = (1, 0)  # PyTorch packs other, then self
    formula = r"f(x, y) = \max(x, y) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x > y \\ \tfrac12 & x = y \\ 0 & x < y \end{cases}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        x, y = promote(x, y)
        # The inputs, as PyTorch saves them: changing one in place before backward
        # is refused (the comparisons are made again in backward).
        ctx.save_for_backward(x, y)
        return np.maximum(y, x)  # NumPy returns its second operand on a tie, PyTorch x

    @staticmethod
    def backward(ctx, grad_output):
        x, y = (_values(t) for t in ctx.saved_tensors)
        return _tie_split(grad_output, x, y, x_loses=x < y, y_loses=x > y)


class Minimum(BinaryFunction):
    """f(x, y) = min(x, y);   ∂f/∂x = 1 where x < y, ∂f/∂y = 1 where y < x,
    and ½ each where they tie"""

    node_name = "MinimumBackward0"
    saved_order = (1, 0)  # PyTorch packs other, then self
    formula = r"f(x, y) = \min(x, y) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x < y \\ \tfrac12 & x = y \\ 0 & x > y \end{cases}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        x, y = promote(x, y)
        ctx.save_for_backward(x, y)  # see Maximum
        return np.minimum(y, x)  # see Maximum

    @staticmethod
    def backward(ctx, grad_output):
        x, y = (_values(t) for t in ctx.saved_tensors)
        return _tie_split(grad_output, x, y, x_loses=x > y, y_loses=x < y)


def _tie_split(grad_output, x, y, x_loses, y_loses) -> tuple:
    """``maximum``/``minimum``'s gradients: ``grad_output`` where an operand wins,
    half of it to each where they tie, 0 where it loses."""
    share = np.where(x == y, 0.5, 1.0).astype(np.result_type(x, y), copy=False)
    if share.dtype.kind != "f":
        share = share.astype(default_float().numpy)
    grad = grad_output * share
    return select(~np.asarray(x_loses), grad), select(~np.asarray(y_loses), grad)


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
    refuse_bool_abs(input)
    return Abs.apply(input)


def refuse_bool_abs(input) -> None:
    """PyTorch has no ``abs`` for bool tensors (NumPy's would give the bools back)."""
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")


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
    _refuse_bool_clamp(input, min, max)
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


def _refuse_bool_clamp(input: Tensor, min, max) -> None:
    """PyTorch has no clamp whose result is bool (bool tensor, bool bounds) but the
    one with a single tensor bound (a maximum or minimum). A Python number among
    the bounds picks its kernel for numbers, named by the bounds given."""
    if not isinstance(input, Tensor) or input._data.dtype != np.bool_:
        return
    given = [bound for bound in (min, max) if bound is not None]
    if result_dtype(input._data, *(_values(bound) for bound in given)) != np.bool_:
        return
    if all(isinstance(bound, Tensor) for bound in given):
        if len(given) == 1:
            return
        kernel = "clamp_cpu"
    elif min is None:
        kernel = "clamp_max_scalar_cpu"
    elif max is None:
        kernel = "clamp_min_scalar_cpu"
    else:
        kernel = "clamp_scalar_cpu"
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


_NO_BOUND = np.empty(0)


def _bound(value):
    return Tensor._make(_NO_BOUND) if value is None else value


def clamp_min(input: Tensor, min: Tensor | float) -> Tensor:
    """Limit every element from below: ``max(x, min)``.

    .. math:: f(x) = \\max(x, m), \\qquad \\frac{\\partial f}{\\partial x} =
        [x \\ge m], \\qquad \\frac{\\partial f}{\\partial m} = [x < m]

    ``clamp(x, min=m)`` computes the same values; the graph names the operation
    ``ClampMinBackward0`` (``min`` a number) or ``ClampMinBackward1`` (a tensor,
    broadcast against ``x``, which gets the gradient where it is the larger).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    >>> y = torch.clamp_min(x, 0.0)
    >>> y
    tensor([0.0000, 0.5000, 2.0000], grad_fn=<ClampMinBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([0., 1., 1.])
    """
    check_clamp_bound("clamp_min", "min", min)
    if isinstance(min, Tensor):
        return ClampMinTensor.apply(input, min)
    _refuse_bool_clamp(input, min, None)
    return ClampMin.apply(input, min, None)


def clamp_max(input: Tensor, max: Tensor | float) -> Tensor:
    """Limit every element from above: ``min(x, max)``.

    .. math:: f(x) = \\min(x, M), \\qquad \\frac{\\partial f}{\\partial x} =
        [x \\le M], \\qquad \\frac{\\partial f}{\\partial M} = [x > M]

    ``clamp(x, max=M)`` computes the same values; the graph names the operation
    ``ClampMaxBackward0`` (``max`` a number) or ``ClampMaxBackward1`` (a tensor).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    >>> y = x.clamp_max(1.0)
    >>> y
    tensor([-1.0000,  0.5000,  1.0000], grad_fn=<ClampMaxBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([1., 1., 0.])
    """
    check_clamp_bound("clamp_max", "max", max)
    if isinstance(max, Tensor):
        return ClampMaxTensor.apply(input, max)
    _refuse_bool_clamp(input, None, max)
    return ClampMax.apply(input, None, max)


def check_clamp_bound(name: str, argument: str, bound, method: bool = False) -> None:
    """PyTorch's error for a ``clamp_min``/``clamp_max`` bound that is neither a
    number nor a tensor (``None`` included: the bound is required), worded for
    ``torch.clamp_min(x, m)`` or, with ``method``, for ``x.clamp_min(m)``."""
    if isinstance(bound, (Tensor, int, float, np.number)):
        return
    kind = type(bound).__name__
    if method:
        mismatch = (
            f"\n      didn't match because some of the arguments have invalid types: (!{kind}!)"
        )
        forms = f" * (Tensor {argument}){mismatch}\n * (Number {argument}){mismatch}\n"
        got = kind
    else:
        forms = (
            f" * (Tensor input, Tensor {argument}, *, Tensor out = None)\n"
            f" * (Tensor input, Number {argument}, *, Tensor out = None)\n"
        )
        got = f"Tensor, {kind}"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but "
        f"expected one of:\n{forms}"
    )


def absolute(input: Tensor) -> Tensor:
    """|x| elementwise: PyTorch's alias of :func:`abs` (same node, ``AbsBackward0``).

    .. math:: f(x) = |x|, \\qquad \\frac{\\partial f}{\\partial x} = \\operatorname{sign}(x)
        \\quad (0 \\text{ at } x = 0)

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.absolute(torch.tensor([-1.5, 0.0, 2.0]))
    tensor([1.5000, 0.0000, 2.0000])
    """
    return abs(input)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (broadcasting)."""
    _check_tensor_pair("maximum", input, other)
    return Maximum.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (broadcasting)."""
    _check_tensor_pair("minimum", input, other)
    return Minimum.apply(input, other)


def _check_tensor_pair(name: str, input, other) -> None:
    for argument, position, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                f"not {type(value).__name__}"
            )


# NumPy's ufuncs called on tensors (in backward formulas under create_graph) run these.
UFUNCS.update(
    {
        np.exp: exp,
        np.log: log,
        np.sqrt: sqrt,
        np.tanh: tanh,
        np.absolute: abs,
        np.maximum: maximum,
    }
)
