"""Spread and extremes over dimensions: ``var``, ``std`` and ``amax``, ``amin``.

``var`` is the mean squared deviation from the mean, divided by N − correction
rather than N (``correction=1``, Bessel's correction, is the default: the unbiased
estimate from a sample); ``std`` is its square root. ``amax``/``amin`` are the
largest/smallest element over one or several dimensions, without the indices that
``max(dim)`` also returns, and they share the gradient evenly among ties.

>>> import autogradkit as torch
>>> x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], requires_grad=True)
>>> x.var(dim=1)
tensor([1.0000, 2.3333], grad_fn=<VarBackward0>)
>>> x.std()
tensor(2.1602, grad_fn=<StdBackward0>)
>>> x.amax(dim=0)
tensor([4., 5., 7.], grad_fn=<AmaxBackward0>)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from .._quiet_numpy import quietly
from ..autograd.anomaly_mode import _outside_the_package
from ..autograd.function import MultiOutputFunction, Reduction
from ..tensor import Tensor, _wrap_dim
from .reduction import _dims, _spread, _unsqueezed
from .where import MaskedFill, _values

__all__ = ["var", "std", "var_mean", "std_mean", "amax", "amin"]


def _count(shape: tuple, dims: tuple | None) -> int:
    """How many elements each output element summarises (N)."""
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


class Var(Reduction):
    """f(x) = Σᵢ (xᵢ − x̄)² / (N − c), x̄ the mean of the N elements reduced and c
    the correction;   ∂f/∂xᵢ = 2 (xᵢ − x̄) / (N − c)

    (The terms of ∂x̄/∂xᵢ add up to 0, since Σᵢ (xᵢ − x̄) = 0.)"""

    node_name = "VarBackward0"
    formula = r"f(x) = \frac{1}{N - c}\textstyle\sum_i (x_i - \bar x)^2 \qquad \frac{\partial f}{\partial x_i} = \frac{2\,(x_i - \bar x)}{N - c}"

    @staticmethod
    @quietly  # N ≤ c divides by 0: inf or nan, silently (the caller warned as PyTorch does)
    def forward(ctx, x, dims, correction, keepdim):
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        ctx.save_for_backward(x)
        return _variance(x, dims, correction, keepdim)

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return _var_grad(x, grad_output, ctx.dims, ctx.correction, ctx.keepdim), None, None, None


class Std(Reduction):
    """f(x) = √var(x);   ∂f/∂xᵢ = (xᵢ − x̄) / ((N − c)·f(x)), and 0 where f(x) = 0
    (all the elements equal: PyTorch's choice at the kink of √)"""

    node_name = "StdBackward0"
    formula = r"f(x) = \sqrt{\operatorname{var}(x)} \qquad \frac{\partial f}{\partial x_i} = \frac{x_i - \bar x}{(N - c)\, f(x)}"

    @staticmethod
    @quietly  # as Var
    def forward(ctx, x, dims, correction, keepdim):
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        out = np.sqrt(_variance(x, dims, correction, keepdim))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        # PyTorch's std_backward: the chain rule through √ (1 / 2√var), with 0
        # where the deviation is 0, then var's gradient.
        with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where out is 0: filled
            grad_var = MaskedFill.in_formula(grad_output / (out * 2), _values(out) == 0, 0)
        return _var_grad(x, grad_var, ctx.dims, ctx.correction, ctx.keepdim), None, None, None


def _variance(x: np.ndarray, dims: tuple | None, correction: float, keepdim: bool) -> np.ndarray:
    """Σ (x − x̄)² / max(N − c, 0) over ``dims`` (None: all), as PyTorch divides."""
    count = _count(x.shape, dims)
    divisor = max(count - correction, 0)
    mean = x.sum(axis=dims, keepdims=True) / count  # (np.mean warns on nothing; 0/0 is nan)
    deviations = x - mean
    squares = (deviations * deviations).sum(axis=dims, keepdims=keepdim)
    return np.asarray(squares / np.asarray(divisor, x.dtype))


def _var_grad(x, grad, dims: tuple | None, correction: float, keepdim: bool):
    """PyTorch's var_backward, grouped as it is: 2/(N − c) · grad · (x − x̄). On a
    whole tensor with N ≤ c the factor is infinite, and PyTorch answers inf, or nan
    where x equals its mean (inf · 0), without the sign of the deviation."""
    if dims is None:
        degrees = x.size if isinstance(x, np.ndarray) else x.numel()
        degrees -= correction
        if degrees <= 0:
            values = _values(x)
            with np.errstate(divide="ignore", invalid="ignore"):  # the mean of nothing: nan
                at_mean = values == values.sum() / values.size
            return grad * np.where(at_mean, math.nan, math.inf).astype(values.dtype)
        return (2.0 / degrees) * grad * (x - x.mean())
    if not keepdim and x.ndim > 1:
        grad = _unsqueezed(grad, dims, x.shape)
    degrees = _count(x.shape, dims) - correction
    factor = 2.0 / degrees if degrees else math.inf
    return factor * grad * (x - x.mean(axis=dims, keepdims=True))


def _std_var_arguments(name: str, input: Tensor, dim, unbiased, correction):
    """``(dims, correction)`` from PyTorch's three ways of calling std/var:
    ``(dim, unbiased, keepdim)``, ``(dim, *, correction, keepdim)`` and
    ``(unbiased)``; dims None means every dimension."""
    if isinstance(dim, bool):  # x.var(False): the (unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments: 'unbiased' and "
            "'correction' cannot both be given (unbiased=False is correction=0)"
        )
    if dim is not None and not isinstance(dim, (int, np.integer, list, tuple)):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    if input._data.dtype.kind != "f":
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = None if dim is None or input.ndim == 0 else _dims(dim, input.ndim)
    if dim is not None and input.ndim == 0:
        _check_dims_of_0d(dim)
    return dims, correction


def _check_dims_of_0d(dim) -> None:
    """A 0-d tensor takes dim 0 or -1 (there is nothing to reduce); others are out
    of range, in PyTorch's words."""
    for d in dim if isinstance(dim, (list, tuple)) else (dim,):
        _wrap_dim(d, 0)


def _warn_if_no_degrees_of_freedom(name: str, input: Tensor, dims, correction) -> None:
    if _count(input.shape, dims) - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=_outside_the_package(),
        )


def var(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None
) -> Tensor:
    """The variance over ``dim`` (all elements by default): Σ (x − x̄)² / (N − c)
    with c = ``correction`` (1 by default; ``unbiased=False`` means 0, the mean
    squared deviation).

    >>> import autogradkit as torch
    >>> torch.var(torch.tensor([1.0, 2.0, 3.0, 6.0]), correction=0)
    tensor(3.5000)
    """
    dims, correction = _std_var_arguments("var", input, dim, unbiased, correction)
    _warn_if_no_degrees_of_freedom("var", input, dims, correction)
    return Var.apply(input, dims, correction, bool(keepdim))


def std(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None
) -> Tensor:
    """The standard deviation over ``dim``: the square root of :func:`var`.

    >>> import autogradkit as torch
    >>> torch.std(torch.tensor([[1.0, 3.0], [2.0, 2.0]]), dim=1, unbiased=False)
    tensor([1., 0.])
    """
    dims, correction = _std_var_arguments("std", input, dim, unbiased, correction)
    _warn_if_no_degrees_of_freedom("std", input, dims, correction)
    return Std.apply(input, dims, correction, bool(keepdim))


class VarMean(MultiOutputFunction):
    """(var(x), mean(x)) in one operation: one node for both results, whose
    gradient is the sum of var's and mean's (1/N each)"""

    node_name = "VarMeanBackward0"
    formula = r"(v, m) = (\operatorname{var} x, \bar x) \qquad \frac{\partial \ell}{\partial x_i} = g_v \frac{2\,(x_i - \bar x)}{N - c} + \frac{g_m}{N}"
    takes_root = False

    @classmethod
    def forward(cls, ctx, x, dims, correction, keepdim):
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):  # N ≤ c: inf or nan, silently (the caller warned)
            spread = _variance(x, dims, correction, keepdim)
            mean = np.asarray(x.sum(axis=dims, keepdims=keepdim) / _count(x.shape, dims))
            return (np.sqrt(spread) if cls.takes_root else spread), mean

    @classmethod
    def backward(cls, ctx, grad_outputs):
        (x,) = ctx.saved_tensors
        dims, correction, keepdim = ctx.dims, ctx.correction, ctx.keepdim
        grad_spread, grad_mean = grad_outputs
        grad = None
        if grad_spread is not None:
            if cls.takes_root:  # PyTorch's std_backward, with the std computed again
                with np.errstate(divide="ignore", invalid="ignore"):
                    out = _root_of_variance(x, dims, correction, keepdim)
                    grad_spread = MaskedFill.in_formula(
                        grad_spread / (out * 2), _values(out) == 0, 0
                    )
            grad = _var_grad(x, grad_spread, dims, correction, keepdim)
        if grad_mean is not None:
            count = _count(tuple(x.shape), dims)
            if dims is not None and not keepdim and x.ndim:
                grad_mean = _unsqueezed(grad_mean, dims, tuple(x.shape))
            part = _spread(grad_mean / count, tuple(x.shape))
            grad = part if grad is None else grad + part
        return grad, None, None, None

    @classmethod
    def jvp(cls, ctx, tangent, dims, correction, keepdim):
        """Tangents of both results: v̇ = Σ 2(x − x̄)ẋ / (N − c) (ṡ = v̇ / 2s for the
        standard deviation) and ṁ = the mean of ẋ."""
        x = ctx.primals[0]
        with np.errstate(all="ignore"):
            count = _count(x.shape, dims)
            deviations = x - x.sum(axis=dims, keepdims=True) / count
            spread_tangent = (2 * deviations * tangent).sum(axis=dims, keepdims=keepdim) / (
                count - correction
            )
            if cls.takes_root:
                spread_tangent = spread_tangent / (
                    2 * np.sqrt(_variance(x, dims, correction, keepdim))
                )
            mean_tangent = tangent.sum(axis=dims, keepdims=keepdim) / count
        return np.asarray(spread_tangent, x.dtype), np.asarray(mean_tangent, x.dtype)


class StdMean(VarMean):
    """(std(x), mean(x)) in one operation: one node for both results"""

    node_name = "StdMeanBackward0"
    formula = r"(s, m) = (\operatorname{std} x, \bar x) \qquad \frac{\partial \ell}{\partial x_i} = g_s \frac{x_i - \bar x}{(N - c)\, s} + \frac{g_m}{N}"
    takes_root = True


def _root_of_variance(x, dims, correction, keepdim):
    """std of ``x`` again: on arrays computed, on tensors (create_graph) recorded."""
    if isinstance(x, Tensor):
        return Std.apply(x, dims, correction, keepdim)
    return np.sqrt(_variance(x, dims, correction, keepdim))


def var_mean(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None
) -> tuple[Tensor, Tensor]:
    """``(var(input, ...), mean(input, ...))`` with one node (VarMeanBackward0) for both.

    >>> import autogradkit as torch
    >>> torch.var_mean(torch.tensor([1.0, 2.0, 3.0, 6.0]))
    (tensor(4.6667), tensor(3.))
    """
    dims, correction = _std_var_arguments("var_mean", input, dim, unbiased, correction)
    _warn_if_no_degrees_of_freedom("var_mean", input, dims, correction)
    return VarMean.apply(input, dims, correction, bool(keepdim))


def std_mean(
    input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None
) -> tuple[Tensor, Tensor]:
    """``(std(input, ...), mean(input, ...))`` with one node (StdMeanBackward0) for both."""
    dims, correction = _std_var_arguments("std_mean", input, dim, unbiased, correction)
    _warn_if_no_degrees_of_freedom("std_mean", input, dims, correction)
    return StdMean.apply(input, dims, correction, bool(keepdim))


class Amax(Reduction):
    """f(x) = max over the dimensions ``dims``;   ∂f/∂xᵢ = 1/k where xᵢ is one of the
    k elements equal to its maximum, 0 elsewhere (ties share the gradient evenly)"""

    node_name = "AmaxBackward0"
    formula = r"f(x) = \max_{\text{dims}} x \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1/k & x_i = f(x) \text{ (}k\text{ ties)} \\ 0 & \text{otherwise} \end{cases}"
    reducer: Callable[..., np.ndarray] = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx, x, dims, keepdim):
        kept = cls.reducer(x, axis=dims, keepdims=True)
        ctx.dims, ctx.keepdim = dims, keepdim
        # Where the extremes are, and how many per output element: a constant of
        # the backward formula (PyTorch's scale_grad_by_count).
        chosen = x == kept
        ctx.chosen, ctx.ties = chosen, chosen.sum(axis=dims, keepdims=True)
        ctx.save_for_backward(x)  # as PyTorch, which compares it with the result
        return np.asarray(kept if keepdim else kept.reshape(np.sum(x, axis=dims).shape))

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = _unsqueezed(grad_output, ctx.dims, x.shape)
        with np.errstate(divide="ignore", invalid="ignore"):  # no ties at a nan extreme
            return (grad_output / ctx.ties) * ctx.chosen, None, None


class Amin(Amax):
    """f(x) = min over the dimensions ``dims``;   ∂f/∂xᵢ = 1/k where xᵢ is one of the
    k elements equal to its minimum, 0 elsewhere"""

    node_name = "AminBackward0"
    formula = r"f(x) = \min_{\text{dims}} x \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1/k & x_i = f(x) \text{ (}k\text{ ties)} \\ 0 & \text{otherwise} \end{cases}"
    reducer = staticmethod(np.min)


def _extreme(name: str, function: type[Amax], input: Tensor, dim, keepdim: bool) -> Tensor:
    everything = dim is None or (isinstance(dim, (list, tuple)) and not dim)
    dims = tuple(range(input.ndim)) if everything else _dims(dim, input.ndim)
    if input.ndim == 0 and not everything:
        _check_dims_of_0d(dim)
    if input._data.size == 0:
        if everything:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        given = (dim,) if isinstance(dim, int) else tuple(dim)
        for named in given:  # in the order given, named as given (-1 stays -1)
            if input.shape[_wrap_dim(named, input.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {named} to have non-zero size.")
    return function.apply(input, dims, bool(keepdim))


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The largest element over ``dim`` (an int or a tuple; all dimensions by
    default). Unlike ``max(dim)`` it returns no indices, takes several dimensions,
    and shares the gradient evenly among tied maxima.

    >>> import autogradkit as torch
    >>> torch.amax(torch.tensor([[1.0, 5.0], [7.0, 0.0]]), dim=1)
    tensor([5., 7.])
    """
    return _extreme("amax", Amax, input, dim, keepdim)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """The smallest element over ``dim`` (see :func:`amax`).

    >>> import autogradkit as torch
    >>> torch.tensor([[1.0, 5.0], [7.0, 0.0]]).amin(0)
    tensor([1., 0.])
    """
    return _extreme("amin", Amin, input, dim, keepdim)
