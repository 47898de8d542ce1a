"""Choosing elements: ``where`` (defined in :mod:`.where`, beside the ``select``
helper backward formulas share) and ``gather`` (differentiable: the gradient goes
back to the element that was chosen), and the tests and positions that are
never differentiated: ``argmin``, ``all``, ``any``, ``equal``.
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Linear
from ..tensor import Tensor, _wrap_dim
from .shape import scatter_into_zeros
from .where import where

__all__ = ["where", "gather", "argmin", "all", "any", "equal"]


class Gather(Linear):
    """f(x)ᵢⱼ = x[i, index[i, j]] (for dim = 1);   ∂: the gradient added back at the
    gathered positions (repeats accumulate)"""

    node_name = "GatherBackward0"
    formula = r"f(x)_{ij} = x_{i,\,\text{index}_{ij}} \qquad \frac{\partial \ell}{\partial x} = 0 \text{ with } G \text{ added at the gathered positions}"

    @staticmethod
    def forward(ctx, x, dim, index):
        key = _gather_key(index, dim)
        ctx.key, ctx.shape = key, x.shape
        ctx.save_for_backward(index)
        return x[key]

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        return scatter_into_zeros(grad_output, ctx.key, ctx.shape), None, None


def _gather_key(index: np.ndarray, dim: int) -> tuple:
    """An advanced-indexing key that reads x[..., index[...], ...] with ``index``
    standing in for dimension ``dim`` and every other dimension counted off."""
    grids: tuple[np.ndarray, ...] = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else grid for d, grid in enumerate(grids))


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """Pick ``input``'s elements along ``dim`` at the positions ``index`` holds."""
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise RuntimeError("gather(): Expected dtype int64 for index")
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return Gather.apply(input, _wrap_dim(dim, input.ndim) if input.ndim else 0, index._data)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None), as int64."""
    data = input._data
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(data), dtype=np.int64))
    return Tensor._make(
        np.argmin(data, axis=_wrap_dim(dim, data.ndim), keepdims=keepdim).astype(np.int64)
    )


def _logical(reducer, input: Tensor, dim, keepdim: bool) -> Tensor:
    data = input._data.astype(bool)
    if dim is None:
        return Tensor._make(np.asarray(reducer(data)))
    return Tensor._make(np.asarray(reducer(data, axis=_wrap_dim(dim, data.ndim), keepdims=keepdim)))


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where every element (along ``dim``) is non-zero; a bool tensor."""
    return _logical(np.all, input, dim, keepdim)


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where some element (along ``dim``) is non-zero; a bool tensor."""
    return _logical(np.any, input, dim, keepdim)


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values."""
    a, b = input._data, other._data
    return a.shape == b.shape and bool(np.array_equal(a, b))
