"""Summaries that skip what does not count: ``nansum`` and ``nanmean`` (nan left
out), ``count_nonzero``, and ``aminmax`` (the smallest and the largest element in
one operation).

``nansum`` treats nan as 0, so its gradient is 1 for every number and 0 for every
nan; ``nanmean`` is ``nansum`` divided by how many numbers were summed, as
PyTorch computes it (its node is a DivBackward0 over a NansumBackward0).

>>> import autogradkit as torch
>>> x = torch.tensor([1.0, float("nan"), 3.0])
>>> torch.nansum(x), torch.nanmean(x)
(tensor(4.), tensor(2.))
>>> torch.count_nonzero(torch.tensor([[0, 1], [2, 3]]), dim=1)
tensor([1, 2])
>>> torch.aminmax(torch.tensor([2.0, -1.0, 5.0]))
autogradkit.return_types.aminmax(
min=tensor(-1.),
max=tensor(5.))
"""

from __future__ import annotations

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from .._quiet_numpy import silently
from ..autograd.function import MultiOutputFunction, Reduction
from ..tensor import Tensor, _wrap_dim
from .reduction import _dims, _spread, _unsqueezed

__all__ = ["nansum", "nanmean", "count_nonzero", "aminmax"]


class Nansum(Reduction):
    """f(x) = Σ of the elements that are not nan (over ``dims``, or all);
    ∂f/∂xᵢ = 1 where xᵢ is a number, 0 where it is nan"""

    node_name = "NansumBackward0"
    formula = r"f(x) = \textstyle\sum_{i:\ x_i \ne \mathrm{nan}} x_i \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1 & x_i \text{ is a number} \\ 0 & x_i = \mathrm{nan} \end{cases}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        # Which elements count: a constant of the backward formula (PyTorch's
        # nansum_backward multiplies by self.isnan().logical_not()).
        ctx.numbers = ~np.isnan(x)
        return np.asarray(silently(np.nansum, x, axis=dims, keepdims=keepdim))

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        shape = ctx.numbers.shape
        if not ctx.keepdim:
            dims = tuple(range(len(shape))) if ctx.dims is None else ctx.dims
            grad_output = _unsqueezed(grad_output, dims, shape)
        return _spread(grad_output, shape) * ctx.numbers, None, None


def _reduction_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """None for every dimension, else the dimensions ``dim`` names (wrapped)."""
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return None
    return _dims(dim, ndim) or None


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The sum of the elements, nan counted as 0 (all of them, or over ``dim``).

    >>> import autogradkit as torch
    >>> torch.tensor([[1.0, float("nan")], [2.0, 3.0]]).nansum(dim=1)
    tensor([1., 5.])
    """
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind in "bi":  # no nan there: a plain sum, bools counted as int64
        return input.sum(dim, keepdim)
    return Nansum.apply(input, _reduction_dims(dim, input.ndim), bool(keepdim))


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean of the elements that are not nan (all of them, or over ``dim``):
    ``nansum`` divided by how many numbers it summed (nan where there were none).

    >>> import autogradkit as torch
    >>> torch.nanmean(torch.tensor([1.0, float("nan"), 2.0]))
    tensor(1.5000)
    """
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{scalar_type_name(input._data.dtype)}"
        )
    dims = _reduction_dims(dim, input.ndim)
    counted = np.sum(~np.isnan(input._data), axis=dims, keepdims=bool(keepdim))
    return nansum(input, dim, keepdim) / Tensor._make(np.asarray(counted, np.int64))


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """How many elements are not zero (all of them, or along ``dim``), as int64.

    >>> import autogradkit as torch
    >>> torch.tensor([0.0, 2.0, -1.0]).count_nonzero()
    tensor(2)
    """
    dims = _reduction_dims(dim, input.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=dims), np.int64))


class Aminmax(MultiOutputFunction):
    """(m, M) = (min x, max x) over ``dim`` (or all) in one operation;
    ∂m/∂xᵢ = 1/k where xᵢ is one of the k elements equal to the minimum, 0
    elsewhere (and ∂M/∂xᵢ likewise at the maximum)"""

    node_name = "AminmaxBackward0"
    formula = r"(m, M) = (\min x, \max x) \qquad \frac{\partial m}{\partial x_i} = \frac{[x_i = m]}{k_m}, \quad \frac{\partial M}{\partial x_i} = \frac{[x_i = M]}{k_M}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.dims, ctx.keepdim, ctx.shape = dims, keepdim, x.shape
        outs, ctx.chosen = [], []
        for reducer in (np.min, np.max):
            kept = reducer(x, axis=dims, keepdims=True)
            # Where the extremes are: constants of the backward formula (PyTorch's
            # scale_grad_by_count), the gradient shared evenly among ties.
            chosen = x == kept
            ctx.chosen.append((chosen, chosen.sum(axis=dims, keepdims=True)))
            outs.append(np.asarray(kept if keepdim else np.squeeze(kept, axis=dims)))
        return tuple(outs)

    @staticmethod
    def backward(ctx, grad_outputs):
        grad = None
        for grad_output, (chosen, ties) in zip(grad_outputs, ctx.chosen):
            if grad_output is None:
                continue
            if not ctx.keepdim:
                dims = tuple(range(len(ctx.shape))) if ctx.dims is None else ctx.dims
                grad_output = _unsqueezed(grad_output, dims, ctx.shape)
            with np.errstate(divide="ignore", invalid="ignore"):  # no ties at a nan extreme
                part = (grad_output / ties) * chosen
            grad = part if grad is None else grad + part
        return grad, None, None

    @staticmethod
    def jvp(ctx, tangent, dims, keepdim):
        """Tangents of both results: the mean of ẋ over the tied extremes."""
        x, tangents = ctx.primals[0], []
        for reducer in (np.min, np.max):
            chosen = x == reducer(x, axis=dims, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = (tangent * chosen).sum(axis=dims, keepdims=True) / chosen.sum(
                    axis=dims, keepdims=True
                )
            tangents.append(np.asarray(mean if keepdim else np.squeeze(mean, axis=dims)))
        return tuple(tangents)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False) -> return_types.aminmax:
    """The smallest and the largest element (of all, or along the one dimension
    ``dim``) as a named pair ``(min, max)``, one node for both.

    >>> import autogradkit as torch
    >>> low, high = torch.tensor([[1, 5], [3, 2]]).aminmax(dim=0)
    >>> low, high
    (tensor([1, 2]), tensor([3, 5]))
    """
    if (dim is not None and not isinstance(dim, (int, np.integer))) or isinstance(dim, bool):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    dims = None if dim is None else ((_wrap_dim(int(dim), input.ndim),) if input.ndim else None)
    if input._data.size == 0 and dims is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation "
            "has no identity."
        )
    if input._data.size == 0 and dims is not None and input.shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    low, high = Aminmax.apply(input, dims, bool(keepdim))
    return return_types.aminmax(low, high)
