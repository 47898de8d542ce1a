"""Choosing elements: ``where`` (defined in :mod:`.where`, beside the ``select``
helper backward formulas share) and ``gather`` (differentiable: the gradient goes
back to the element that was chosen), and the tests and positions that are
never differentiated: ``argmin``, ``all``, ``any``, ``equal``, ``nonzero``,
``argwhere``.
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Linear
from ..tensor import Tensor, _wrap_dim
from .arithmetic import broadcast_error
from .shape import scatter_into_zeros
from .where import MaskedFill, MaskedFillTensor, where

__all__ = [
    "where",
    "gather",
    "argmin",
    "all",
    "any",
    "equal",
    "nonzero",
    "argwhere",
    "masked_fill",
]


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


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Where ``input`` is not zero (nan counts as not zero): one row of indices per
    such element, in row-major order, an int64 tensor of shape
    ``(count, input.dim())``. With ``as_tuple=True``, one tensor of indices per
    dimension instead, ready for indexing (``x[x.nonzero(as_tuple=True)]``); a 0-d
    input counts as one element then. Not differentiable: indices are integers.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[0.0, 1.5], [2.0, 0.0]])
    >>> torch.nonzero(x)
    tensor([[0, 1],
            [1, 0]])
    >>> x.nonzero(as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
    """
    data = input._data
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(data)))
    return Tensor._make(np.argwhere(data).astype(np.int64))


def argwhere(input: Tensor) -> Tensor:
    """:func:`nonzero`: the indices of the elements that are not zero, one row each.

    >>> import autogradkit as torch
    >>> torch.argwhere(torch.tensor([0, 3, 0, 7]))
    tensor([[1],
            [3]])
    """
    return nonzero(input)


# How PyTorch's masked_fill names a mask's dtype (C++ type names).
_MASK_TYPE_NAMES = {"int64": "long int", "float32": "float", "float64": "double"}


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` (a number or a 0-d tensor) where the boolean
    ``mask`` holds (``mask`` and ``input`` broadcast together). Common in attention:
    ``scores.masked_fill(mask == 0, float("-inf"))`` before a softmax.

    >>> import autogradkit as torch
    >>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> x.masked_fill(x > 1.5, 0.0)
    tensor([1., 0., 0.], grad_fn=<MaskedFillBackward0>)
    """
    mask_array = _mask_array(mask)
    try:
        np.broadcast_shapes(input.shape, mask_array.shape)
    except ValueError:
        raise broadcast_error(mask_array, input._data) from None  # PyTorch's order
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                f"with {value.ndim} dimension(s)."
            )
        return MaskedFillTensor.apply(input, mask_array, value)
    return MaskedFill.apply(input, mask_array, _fill_value(input, value))


def _mask_array(mask) -> np.ndarray:
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}"
        )
    if mask._data.dtype != np.bool_:
        name = mask._data.dtype.name
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            + _MASK_TYPE_NAMES.get(name, scalar_type_name(name))
        )
    return mask._data


def _fill_value(input: Tensor, value):
    """A number ``value`` checked as PyTorch checks it: a number that fits
    ``input``'s dtype (a float is truncated for an integer tensor)."""
    if isinstance(value, (bool, int, float, np.number)):
        if input._data.dtype.kind in "iu" and not np.isfinite(value):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return value
    raise TypeError(
        "masked_fill() received an invalid combination of arguments - got (Tensor, "
        f"{type(value).__name__}), but expected one of:\n"
        " * (Tensor mask, Tensor value)\n"
        f"      didn't match because some of the arguments have invalid types: (Tensor, !{type(value).__name__}!)\n"
        " * (Tensor mask, Number value)\n"
        f"      didn't match because some of the arguments have invalid types: (Tensor, !{type(value).__name__}!)\n"
    )
