"""Putting elements in order: ``sort``, ``argsort`` and ``topk``.

``sort`` returns the sorted values and where each came from (``indices``); the
gradient of the values goes back to those places, as for ``gather`` with the same
indices. Ties keep their original order (PyTorch's CPU sort is stable); ``nan``
counts as larger than every number, so it comes last in ascending order and first
in descending order and in ``topk``. Among tied values ``topk`` returns the ones
PyTorch's C++ selection returns (see :mod:`._topk_order`).

>>> import autogradkit as torch
>>> x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
>>> x.sort()
autogradkit.return_types.sort(
values=tensor([1., 2., 3.], grad_fn=<SortBackward0>),
indices=tensor([1, 2, 0]))
>>> torch.topk(x, 2).indices
tensor([0, 2])
"""

from __future__ import annotations

import numpy as np

from .. import return_types
from ..autograd.function import Linear
from ..tensor import Tensor, _wrap_dim
from ._topk_order import topk_positions
from .select import _gather_key
from .shape import scatter_into_zeros

__all__ = ["sort", "argsort", "topk"]


class Sort(Linear):
    """values = x in order along ``dim`` (``indices`` says where each value came
    from);   ∂ℓ/∂x = the gradient of each value put back at its index"""

    node_name = "SortBackward0"
    formula = r"v_j = x_{\text{indices}_j} \qquad \frac{\partial \ell}{\partial x_{\text{indices}_j}} = g_j"

    @staticmethod
    def forward(ctx, x, dim, indices):
        # indices: an array, not a tensor, so it is no input of the node (as in PyTorch)
        ctx.shape = x.shape
        if x.ndim == 0:  # a 0-d tensor is already in order
            ctx.key = ()
            return x.copy()
        ctx.key = _gather_key(indices, dim)
        ctx.save_for_backward(indices)  # as PyTorch: a freed graph refuses a second pass
        return x[ctx.key]

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        return scatter_into_zeros(grad_output, ctx.key, ctx.shape), None, None


class SortStable(Sort):
    """``sort(..., stable=...)``: PyTorch's other overload, the same formula"""

    node_name = "SortBackward1"


class Topk(Sort):
    """values = the k largest (or smallest) elements along ``dim``, in order;
    ∂ℓ/∂x = the gradient of each put back at its index, 0 for the others"""

    node_name = "TopkBackward0"
    formula = r"v_j = x_{\text{indices}_j} \ (j < k) \qquad \frac{\partial \ell}{\partial x_{\text{indices}_j}} = g_j, \text{ 0 elsewhere}"


def _order(data: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """The stable order of ``data`` along ``dim``, with nan as the largest value."""
    if data.ndim == 0:
        return np.zeros((), np.int64)
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    if not descending:
        return np.argsort(data, axis=dim, kind="stable").astype(np.int64)
    if data.dtype.kind == "f":
        is_nan = np.isnan(data)
        # np.lexsort sorts by its last key first: nans (key 0) before numbers,
        # then the numbers by decreasing value; lexsort is stable.
        return np.lexsort((-np.where(is_nan, 0, data), ~is_nan), axis=dim).astype(np.int64)
    return np.argsort(~data, axis=dim, kind="stable").astype(np.int64)  # ~x = -x - 1: reversed


def _as_pytorch_picks_ties(data, indices, axis: int, largest: bool, sorted: bool):
    """``indices`` with the rows where the choice among equal values matters (or
    whose first k - 1 PyTorch leaves unsorted, ``sorted=False``) picked as PyTorch's
    C++ algorithms pick them (see :mod:`._topk_order`); rows of distinct values
    keep the stable order, which is theirs."""
    rows = np.moveaxis(data, axis, -1).reshape(-1, data.shape[axis])
    picked = np.moveaxis(indices, axis, -1).reshape(rows.shape[0], -1).copy()
    redo = np.ones(rows.shape[0], bool)
    if sorted:
        in_order = np.sort(rows, axis=-1)
        redo = np.any(in_order[:, 1:] == in_order[:, :-1], axis=-1)
        if rows.dtype.kind == "f":
            redo |= np.count_nonzero(np.isnan(rows), axis=-1) > 1
    k = picked.shape[1]
    for r in np.flatnonzero(redo).tolist():
        picked[r] = topk_positions(rows[r].tolist(), k, largest, sorted)
    shape = np.moveaxis(indices, axis, -1).shape
    return np.moveaxis(picked.reshape(shape), -1, axis)


def bool_dim_error(name: str, method: bool) -> TypeError:
    """PyTorch's refusal of ``sort(x, True)``/``argsort(x, True)``: ``stable`` is
    keyword-only, and a bool is no dim."""
    if method:
        got, first, second = "(bool)", "(*, ", "(int dim = -1, bool descending = False)"
    else:
        out = ", Tensor out = None" if name == "argsort" else ", tuple of Tensors out = None"
        got, first = "(Tensor, bool)", "(Tensor input, *, "
        second = "(Tensor input, int dim = -1, bool descending = False"
        second += ")" if name == "argsort" else ", *, tuple of Tensors out = None)"
    first += "bool stable, int dim = -1, bool descending = False"
    first += ")" if method else (out + ")")
    return TypeError(
        f"{name}() received an invalid combination of arguments - got {got}, but expected "
        f"one of:\n * {first}\n * {second}\n"
    )


def _sort_dim(input: Tensor, dim) -> int:
    return _wrap_dim(dim, input.ndim) if input.ndim else 0


# The default of sort's ``stable``: PyTorch names the node by whether it was given
# (SortBackward1 then, even for stable=None).
_NOT_GIVEN = object()


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable=_NOT_GIVEN):
    """``input`` in increasing order along ``dim`` (the last by default;
    ``descending=True`` reverses it), and where each value came from, as a
    ``(values, indices)`` pair.

    >>> import autogradkit as torch
    >>> torch.sort(torch.tensor([[2, 9, 4]]), descending=True).indices
    tensor([[1, 2, 0]])
    """
    if isinstance(dim, bool):
        raise bool_dim_error("sort", method=False)
    axis = _sort_dim(input, dim)
    indices = _order(input._data, axis, bool(descending))
    function = Sort if stable is _NOT_GIVEN else SortStable
    values = function.apply(input, axis, indices)
    return return_types.sort(values, Tensor._make(indices))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False):
    """Where the elements of ``input`` would come from if it were sorted along
    ``dim``: ``sort(...).indices`` (int64, not differentiable).

    >>> import autogradkit as torch
    >>> torch.argsort(torch.tensor([3.0, 1.0, 2.0]))
    tensor([1, 2, 0])
    """
    if isinstance(dim, bool):
        raise bool_dim_error("argsort", method=False)
    return Tensor._make(_order(input._data, _sort_dim(input, dim), bool(descending)))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest elements along ``dim`` (the smallest with
    ``largest=False``), in order, and where they were, as a ``(values, indices)``
    pair. The gradient goes back to those k elements only.

    >>> import autogradkit as torch
    >>> torch.topk(torch.tensor([1.0, 7.0, 3.0, 5.0]), 2)
    autogradkit.return_types.topk(
    values=tensor([7., 5.]),
    indices=tensor([1, 3]))
    """
    axis = _sort_dim(input, dim)
    length = input.shape[axis] if input.ndim else 1
    if not 0 <= k <= length:
        raise RuntimeError("selected index k out of range")
    order = _order(input._data, axis, descending=bool(largest))
    # (A 0-d tensor is its own top element, for k = 0 too, as PyTorch answers.)
    indices = np.take(order, np.arange(k), axis=axis) if input.ndim else order
    if input.ndim and k:
        indices = _as_pytorch_picks_ties(input._data, indices, axis, bool(largest), bool(sorted))
    values = Topk.apply(input, axis, indices)
    return return_types.topk(values, Tensor._make(indices))
