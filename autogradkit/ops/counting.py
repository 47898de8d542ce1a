"""Finding and counting values: ``unique``, ``unique_consecutive``, ``bincount``,
``bucketize``, ``searchsorted``, and the index products ``cartesian_prod`` and
``combinations``.

``unique`` and ``bincount`` have no derivative in PyTorch: a result made from a
tensor that requires grad has a node (``Unique2Backward0``, ``NotImplemented``)
whose backward refuses, in PyTorch's words. ``bucketize`` and ``searchsorted``
return positions (int64), never differentiable. ``cartesian_prod`` and
``combinations`` are PyTorch's composites of ``meshgrid``, ``masked_select`` and
``stack``, so the gradient flows back to every copy of an element.

>>> import autogradkit as torch
>>> torch.unique(torch.tensor([3, 1, 3, 2]), return_counts=True)
(tensor([1, 2, 3]), tensor([1, 1, 2]))
>>> torch.bincount(torch.tensor([0, 2, 2]))
tensor([1, 0, 2])
>>> torch.bucketize(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0, 3.0]))
tensor([0, 2])
"""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim
from .indexing import masked_select
from .reshaping import meshgrid
from .shape import reshape, stack

__all__ = [
    "unique",
    "unique_consecutive",
    "bincount",
    "bucketize",
    "searchsorted",
    "cartesian_prod",
    "combinations",
]


class NoDerivative(Function):
    """The values part of an operation PyTorch does not differentiate (``unique``,
    ``bincount``): the forward computes the result; backward refuses, as PyTorch's
    node of the same name does."""

    node_name = "Unique2Backward0"
    formula = r"f(x) = \operatorname{unique}(x) \qquad \frac{\partial f}{\partial x} \text{ not implemented (PyTorch has none)}"

    @staticmethod
    def forward(ctx, x, values, refusal):
        ctx.refusal = refusal
        return values

    @staticmethod
    def backward(ctx, grad_output):
        error, message = ctx.refusal
        raise error(message)

    @staticmethod
    def jvp(ctx, *tangents):
        error, message = ctx.refusal
        raise error(message)


class _UniqueDim(NoDerivative):
    node_name = "UniqueDimBackward0"


class _UniqueConsecutive(NoDerivative):
    node_name = "UniqueConsecutiveBackward0"


class _NotImplemented(NoDerivative):
    node_name = "NotImplemented"


def _not_implemented_name(node) -> str:
    # PyTorch's C++ node class: torch::autograd::NotImplemented.
    return "autogradkit::autograd::NotImplemented"


_NotImplemented._node_class.name = _not_implemented_name  # type: ignore[method-assign,assignment]


def _no_derivative(function: type[NoDerivative], input: Tensor, values: np.ndarray, aten: str):
    """``values`` as a tensor; recorded (with a node that refuses backward) when
    ``input`` requires grad, as PyTorch records it."""
    if function is _NotImplemented:
        refusal = (RuntimeError, f"derivative for aten::{aten} is not implemented")
    else:
        refusal = (NotImplementedError, f"the derivative for '{aten}' is not implemented.")
    return function.apply(input, values, refusal)


def _results(values: Tensor, inverse, counts, return_inverse: bool, return_counts: bool):
    out = [values]
    if return_inverse:
        out.append(Tensor._make(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
):
    """The distinct values of ``input`` in ascending order (PyTorch sorts on the
    CPU even with ``sorted=False``), flattened; with ``dim``, the distinct slices
    along ``dim`` in lexicographic order. ``return_inverse`` adds where each
    element (slice) went in the result, ``return_counts`` how often each distinct
    value occurs. NaNs are all distinct, as in PyTorch.

    Examples
    --------
    >>> import autogradkit as torch
    >>> values, inverse = torch.unique(torch.tensor([2, 0, 2]), return_inverse=True)
    >>> values, inverse
    (tensor([0, 2]), tensor([1, 0, 1]))
    >>> torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)
    tensor([[0, 5],
            [1, 2]])
    """
    data = input._data
    if dim is None:
        values, inverse, counts = np.unique(
            data.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        inverse = inverse.reshape(data.shape)
        result = _no_derivative(NoDerivative, input, values, "_unique2")
        return _results(result, inverse, counts, return_inverse, return_counts)
    dim = _wrap_dim(dim, input.ndim)
    values, inverse, counts = np.unique(
        data, return_inverse=True, return_counts=True, axis=dim, equal_nan=False
    )
    result = _no_derivative(_UniqueDim, input, values, "unique_dim")
    return _results(result, inverse.reshape(-1), counts, return_inverse, return_counts)


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """``input`` with each run of equal consecutive values (slices along ``dim``)
    kept once, in order: [1, 1, 2, 1] gives [1, 2, 1]. ``return_inverse`` and
    ``return_counts`` as in :func:`unique`.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1]), return_counts=True)
    (tensor([1, 2, 1]), tensor([2, 2, 1]))
    """
    data = input._data
    if dim is None:
        runs = data.reshape(-1)
        axis = 0
    else:
        axis = _wrap_dim(dim, input.ndim)
        runs = np.moveaxis(data, axis, 0) if data.ndim else data.reshape(1)
    length = runs.shape[0]
    # A run starts at 0 and wherever a slice differs from the one before it.
    changed = np.ones(length, dtype=bool)
    if length > 1:
        differs = runs[1:] != runs[:-1]
        changed[1:] = differs.reshape(length - 1, -1).any(axis=1)
    starts = np.flatnonzero(changed)
    counts = np.diff(np.append(starts, length))
    inverse = np.cumsum(changed) - 1
    values = runs[starts]
    if dim is not None and data.ndim:
        values = np.moveaxis(values, 0, axis)
    else:
        inverse = inverse.reshape(data.shape)
    result = _no_derivative(_UniqueConsecutive, input, values, "unique_consecutive")
    return _results(result, inverse, counts, return_inverse, return_counts)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, 2, … occurs in the 1-d non-negative integer
    tensor ``input`` (at least ``minlength`` bins); with ``weights``, the sum of
    the weights of each value's occurrences (float64 for integer weights).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.bincount(torch.tensor([1, 1, 3]), weights=torch.tensor([0.5, 0.25, 2.0]))
    tensor([0.0000, 0.7500, 0.0000, 2.0000])
    """
    data = input._data
    if data.dtype != np.int64:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{scalar_type_name(data.dtype)}'"
        )
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._make(np.bincount(data, minlength=minlength).astype(np.int64))
    if weights.ndim != 1 or weights.shape[0] != data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    kind = weights._data.dtype if weights.dtype.is_floating_point else np.dtype(np.float64)
    counts = np.bincount(data, weights=weights._data, minlength=minlength).astype(kind)
    if weights.requires_grad:
        return _no_derivative(_NotImplemented, weights, counts, "bincount")
    return Tensor._make(counts)


def _as_values(input) -> tuple[np.ndarray, bool]:
    if isinstance(input, Tensor):
        return input._data, False
    return np.asarray(input), True


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """For each value, the index of the bucket it falls in among the sorted 1-d
    ``boundaries``: i with boundaries[i-1] < x <= boundaries[i] (``right=True``:
    boundaries[i-1] <= x < boundaries[i]). Values past the last boundary get
    ``len(boundaries)``. A number gives a 0-d tensor.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.bucketize(torch.tensor([1, 4, 9]), torch.tensor([1, 3, 5, 7]), right=True)
    tensor([1, 2, 4])
    """
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    _refuse_int32(out_int32)
    values, _ = _as_values(input)
    side: Literal["left", "right"] = "right" if right else "left"
    return Tensor._make(np.searchsorted(boundaries._data, values, side=side).astype(np.int64))


def _refuse_int32(out_int32: bool) -> None:
    if out_int32:
        raise TypeError(
            "out_int32=True asks for int32 positions; autogradkit has int64 only "
            "(float32, float64, int64 and bool tensors): leave out_int32 out"
        )


def searchsorted(
    sorted_sequence: Tensor,
    input,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """Where each value would be inserted into ``sorted_sequence`` (along its last
    dimension) to keep it sorted: the first such place (``side='left'``) or the
    last (``side='right'``/``right=True``). An N-d ``sorted_sequence`` searches
    row by row, its leading dimensions matching ``input``'s. ``sorter`` gives the
    order that sorts an unsorted sequence.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6, 9]))
    tensor([1, 3, 4])
    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6, 9]), side="right")
    tensor([2, 3, 4])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    _refuse_int32(out_int32)
    sequence = sorted_sequence._data
    if sorter is not None:
        sequence = np.take_along_axis(sequence, sorter._data, axis=-1)
    values, is_number = _as_values(input)
    how: Literal["left", "right"] = "right" if right else "left"
    if sequence.ndim <= 1:
        return Tensor._make(np.searchsorted(sequence, values, side=how).astype(np.int64))
    if is_number or values.shape[:-1] != sequence.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sequence.shape)} and input value tensor "
            f"{list(values.shape)}"
        )
    rows = sequence.reshape(-1, sequence.shape[-1])
    wanted = values.reshape(rows.shape[0], -1)
    found = np.stack([np.searchsorted(r, v, side=how) for r, v in zip(rows, wanted)])
    return Tensor._make(found.reshape(values.shape).astype(np.int64))


def _vector(t: Tensor) -> None:
    if t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-d tensor, one per row (as
    itertools.product): PyTorch's meshgrid, each grid flattened, stacked as
    columns (StackBackward0). A single tensor is returned as it is.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([5, 6]))
    tensor([[1, 5],
            [1, 6],
            [2, 5],
            [2, 6]])
    """
    for t in tensors:
        _vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(grid, -1) for grid in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of a 1-d tensor, one per row
    (as itertools.combinations, or combinations_with_replacement). PyTorch's
    composite: an r-dimensional meshgrid of ``input``, the positions i < j < …
    (i <= j <= … with replacement) picked from each grid by ``masked_select``,
    stacked as columns.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    _vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.empty(0, dtype=input._data.dtype))
    grids = meshgrid(*([input] * r), indexing="ij")
    positions = np.indices((input.shape[0],) * r)
    mask = np.ones(positions.shape[1:], dtype=bool)
    for earlier, later in itertools.pairwise(positions):
        mask &= earlier <= later if with_replacement else earlier < later
    keep = Tensor._make(mask)
    return stack([masked_select(grid, keep) for grid in grids], 1)
