"""Putting elements in order: ``sort``, ``argsort``, ``topk``, the k-th smallest
element, ``kthvalue``, the most frequent one, ``mode``, the middle one, ``median``, and the quantiles, ``quantile``
(``nanmedian`` and ``nanquantile`` leave the nans out).

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
from ._topk_order import all_equal_nth_position, kthvalue_position, mode_position, topk_positions
from .reduction import Extremum, MaxDim
from .select import _gather_key
from .shape import Squeeze, Transpose, Unsqueeze, scatter_into_zeros

__all__ = [
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "mode",
    "median",
    "nanmedian",
    "quantile",
    "nanquantile",
]


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


# -- kthvalue --------------------------------------------------------------------------


class Kthvalue(MaxDim):
    """values = the k-th smallest element along ``dim`` (``indices`` says where);
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j, 0 elsewhere"""

    node_name = "KthvalueBackward0"
    formula = r"v_j = x_{(k)j} \text{ (the k-th smallest)} \qquad \frac{\partial v_j}{\partial x_{ij}} = \begin{cases} 1 & i = \text{indices}_j \\ 0 & \text{otherwise} \end{cases}"


def _kthvalue_positions(data: np.ndarray, k: int, axis: int) -> np.ndarray:
    """Where the k-th smallest element of each row along ``axis`` is (axis kept).
    A value that occurs once has one place; where it is tied, PyTorch's quickselect
    decides which of the equal elements it returns (replayed for those rows)."""
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    positions = np.take(_order(data, axis, descending=False), [k - 1], axis=axis)
    kth = np.take_along_axis(data, positions, axis=axis)
    equal = data == kth
    if data.dtype.kind == "f":
        equal |= np.isnan(data) & np.isnan(kth)
    tied = np.moveaxis(np.count_nonzero(equal, axis=axis, keepdims=True) > 1, axis, -1)
    rows = np.moveaxis(data, axis, -1).reshape(-1, data.shape[axis])
    picked = np.moveaxis(positions, axis, -1).reshape(-1).copy()
    for r in np.flatnonzero(tied.reshape(-1)).tolist():
        picked[r] = kthvalue_position(rows[r].tolist(), k - 1)
    return np.moveaxis(picked.reshape(tied.shape), -1, axis)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest element along ``dim`` (k counts from 1) and where it is,
    as a ``(values, indices)`` pair; nan counts as larger than every number. The
    gradient goes to that element.

    >>> import autogradkit as torch
    >>> torch.kthvalue(torch.tensor([[3.0, 1.0, 2.0], [5.0, 4.0, 6.0]]), 2, dim=1)
    autogradkit.return_types.kthvalue(
    values=tensor([2., 5.]),
    indices=tensor([2, 0]))
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(
            f"kthvalue(): argument 'k' (position 1) must be int, not {type(k).__name__}"
        )
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    axis = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        axis = 0  # (dim -1 of a 0-d tensor is its dim 0, in PyTorch's words too)
    length = input.shape[axis] if input.ndim else 1
    if input.ndim and length == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {axis} to have non-zero size.")
    if not 1 <= k <= length:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    if input.ndim == 0:
        values = Kthvalue.apply(input, None, 0, False)
        return return_types.kthvalue(values, Tensor._make(np.asarray(0)))
    indices = _kthvalue_positions(input._data, int(k), axis)
    values = Kthvalue.apply(input, indices, axis, bool(keepdim))
    return return_types.kthvalue(
        values, Tensor._make(indices if keepdim else np.squeeze(indices, axis))
    )


# -- mode ----------------------------------------------------------------------------


class Mode(MaxDim):
    """values = the most frequent element along ``dim`` (the smallest of equally
    frequent ones; ``indices`` says where one of its copies is);
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j, 0 elsewhere"""

    node_name = "ModeBackward0"
    formula = r"v_j = \operatorname{mode}_i x_{ij} \qquad \frac{\partial v_j}{\partial x_{ij}} = \begin{cases} 1 & i = \text{indices}_j \\ 0 & \text{otherwise} \end{cases}"


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """The most frequent value along ``dim`` (the smallest among equally frequent
    ones) and where one of its copies is, as a ``(values, indices)`` pair; which
    copy is PyTorch's (see :mod:`._topk_order`). The gradient goes to that copy.

    >>> import autogradkit as torch
    >>> torch.mode(torch.tensor([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]]), dim=1)
    autogradkit.return_types.mode(
    values=tensor([2., 3.]),
    indices=tensor([2, 1]))
    """
    axis = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return return_types.mode(Mode.apply(input, None, 0, False), Tensor._make(np.asarray(0)))
    if input.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    rows = np.moveaxis(input._data, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    picked = np.array([mode_position(row.tolist()) for row in flat], np.int64)
    indices = np.moveaxis(picked.reshape(rows.shape[:-1] + (1,)), -1, axis)
    values = Mode.apply(input, indices, axis, bool(keepdim))
    return return_types.mode(
        values, Tensor._make(indices if keepdim else np.squeeze(indices, axis))
    )


# -- median --------------------------------------------------------------------------


def _median_rank(count):
    """Which element, counted from the smallest, is the median of ``count`` numbers:
    the lower of the two middle ones when ``count`` is even (PyTorch does not
    average them, so the median is always one of the elements). 0 for no numbers."""
    return np.maximum(count - 1, 0) // 2


def _lower_median(x: np.ndarray) -> np.ndarray:
    """The median of all of ``x``: nan when ``x`` holds a nan, or nothing."""
    flat = x.reshape(-1)
    if flat.size == 0 and flat.dtype.kind != "f":
        # PyTorch's median of nothing is nan converted to the dtype: for int64,
        # its smallest value.
        return np.asarray(np.iinfo(flat.dtype).min, flat.dtype)
    if flat.size == 0 or (flat.dtype.kind == "f" and np.isnan(flat).any()):
        return np.asarray(np.nan, x.dtype)
    return np.asarray(np.partition(flat, _median_rank(flat.size))[_median_rank(flat.size)])


def _lower_nanmedian(x: np.ndarray) -> np.ndarray:
    """The median of the numbers in ``x`` that are not nan (nan if there are none)."""
    flat = x.reshape(-1)
    if flat.dtype.kind != "f":
        return _lower_median(x)
    flat = flat[~np.isnan(flat)]
    if flat.size == 0:
        return np.asarray(np.nan, x.dtype)
    return np.asarray(np.partition(flat, _median_rank(flat.size))[_median_rank(flat.size)])


class Median(Extremum):
    """f(x) = the median of all elements (the lower middle one for an even count);
    ∂f/∂xᵢ = 1/k where xᵢ is one of the k elements equal to the median, 0 elsewhere
    (as for ``x.max()``: the median is one of the elements)"""

    node_name = "MedianBackward0"
    formula = r"f(x) = \operatorname{median}_i x_i \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1/k & x_i = f(x) \text{ (}k\text{ ties)} \\ 0 & \text{otherwise} \end{cases}"
    reducer = staticmethod(_lower_median)


class NanMedian(Median):
    """f(x) = the median of the elements that are not nan;   ∂f/∂xᵢ = 1/k where xᵢ
    is one of the k elements equal to it, 0 elsewhere"""

    node_name = "NanmedianBackward0"
    reducer = staticmethod(_lower_nanmedian)


class MedianDim(MaxDim):
    """values = the median along ``dim`` (``indices`` says where it is);
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j, 0 elsewhere"""

    node_name = "MedianBackward1"
    formula = r"v_j = \operatorname{median}_i x_{ij} \qquad \frac{\partial v_j}{\partial x_{ij}} = \begin{cases} 1 & i = \text{indices}_j \\ 0 & \text{otherwise} \end{cases}"


class NanMedianDim(MedianDim):
    """values = the median along ``dim`` of the elements that are not nan;
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j, 0 elsewhere"""

    node_name = "NanmedianBackward1"


def _median_positions(data: np.ndarray, axis: int, ignore_nan: bool) -> np.ndarray:
    """Where the median of each row along ``axis`` is (that axis kept, size 1).

    PyTorch orders the elements by value and, among equal values, by position,
    then takes the one at the median's rank: a tie goes to the element that a
    stable sort puts there. Without ``ignore_nan`` a row holding a nan has nan as
    its median, at the first nan."""
    if data.dtype.kind == "b":
        data = data.astype(np.int64)
    order = _order(data, axis, descending=False)  # stable; nans last
    count = np.full(_kept(data.shape, axis), data.shape[axis])
    is_nan = np.isnan(data) if data.dtype.kind == "f" else None
    if ignore_nan and is_nan is not None:
        count = count - is_nan.sum(axis=axis, keepdims=True)
    positions = np.take_along_axis(order, _median_rank(count), axis=axis)
    if not ignore_nan and is_nan is not None:
        has_nan = is_nan.any(axis=axis, keepdims=True)
        positions = np.where(has_nan, np.argmax(is_nan, axis=axis, keepdims=True), positions)
    if ignore_nan and is_nan is not None:
        # A row of nans only: nanmedian's nan is the one C++'s nth_element leaves
        # first when no element is smaller than another (see _topk_order).
        all_nan = np.all(is_nan, axis=axis, keepdims=True)
        positions = np.where(all_nan, all_equal_nth_position(data.shape[axis]), positions)
    return positions.astype(np.int64)


def _kept(shape: tuple, axis: int) -> tuple:
    return shape[:axis] + (1,) + shape[axis + 1 :]


_NO_DIM = object()  # PyTorch's median(x) and median(x, dim) are two overloads: no None


def _median(name: str, input: Tensor, dim, keepdim, ignore_nan: bool):
    whole, along, pair = _NANMEDIAN if ignore_nan else _MEDIAN
    if input._data.dtype.kind == "b":
        kernel = "median_cpu" if dim is _NO_DIM else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if dim is _NO_DIM:
        if keepdim is not None:
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        return whole.apply(input)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    axis = _wrap_dim(int(dim), input.ndim)
    if input.ndim == 0:
        return pair(along.apply(input, None, 0, False), Tensor._make(np.asarray(0)))
    if input.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    indices = _median_positions(input._data, axis, ignore_nan)
    values = along.apply(input, indices, axis, bool(keepdim))
    return pair(values, Tensor._make(indices if keepdim else np.squeeze(indices, axis)))


_MEDIAN: tuple[type[Median], type[MedianDim], type[return_types.median | return_types.nanmedian]]
_MEDIAN = (Median, MedianDim, return_types.median)
_NANMEDIAN = (NanMedian, NanMedianDim, return_types.nanmedian)


def median(input: Tensor, dim=_NO_DIM, keepdim=None):
    """The median of all elements, a 0-d tensor; with ``dim``, the median along that
    dimension and where it is, as a ``(values, indices)`` pair. For an even count
    it is the lower of the two middle elements (PyTorch does not average them), and
    it is nan where there is a nan (see :func:`nanmedian`).

    The gradient goes to the element chosen: shared evenly among the elements equal
    to the median of all, to the one ``indices`` names along ``dim``.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[3.0, 1.0, 2.0, 4.0], [5.0, 5.0, 0.0, 9.0]], requires_grad=True)
    >>> x.median()
    tensor(3., grad_fn=<MedianBackward0>)
    >>> x.median(dim=1)
    autogradkit.return_types.median(
    values=tensor([2., 5.], grad_fn=<MedianBackward1>),
    indices=tensor([2, 0]))
    """
    return _median("median", input, dim, keepdim, ignore_nan=False)


def nanmedian(input: Tensor, dim=_NO_DIM, keepdim=None):
    """:func:`median` of the elements that are not nan (nan where all are).

    >>> import autogradkit as torch
    >>> torch.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian()
    tensor(2.)
    """
    return _median("nanmedian", input, dim, keepdim, ignore_nan=True)


# -- quantile ----------------------------------------------------------------------------
# PyTorch computes quantile from other operations (sort, gather, lerp_), so its graph
# shows theirs; the steps below are PyTorch's, in its order. Its last steps change a
# tensor it made itself in place (squeeze_, unsqueeze_, transpose_): recorded under
# the names of those in-place forms.


class _SqueezeInPlace(Squeeze):
    """``squeeze_(dim)`` of an intermediate result (PyTorch's SqueezeBackward4)"""

    node_name = "SqueezeBackward4"
    creates_view = False


class _UnsqueezeInPlace(Unsqueeze):
    """``unsqueeze_(dim)`` of an intermediate result (PyTorch's UnsqueezeBackward1)"""

    node_name = "UnsqueezeBackward1"
    creates_view = False


class _TransposeInPlace(Transpose):
    """``transpose_(d0, d1)`` of an intermediate result (PyTorch's TransposeBackward1)"""

    node_name = "TransposeBackward1"
    creates_view = False


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_checks(input: Tensor, q: Tensor, interpolation: str) -> None:
    if input._data.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q._data.dtype != input._data.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    if not np.all((q._data >= 0) & (q._data <= 1)):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")


def _output_shape(input: Tensor, q: Tensor, axis, keepdim: bool) -> list:
    """PyTorch's quantile_output_shape, with q's dimension first (always, here)."""
    if axis is not None and input.ndim:
        shape = list(input.shape)
        if keepdim:
            shape[axis] = 1
        else:
            del shape[axis]
    else:
        shape = [1] * input.ndim if keepdim else []
    return [q._data.size] + shape


def _ranks(sorted: Tensor, q: Tensor, ignore_nan: bool, interpolation: str) -> Tensor:
    """Where, counted in the sorted values, each quantile lies (a float rank):
    q·(n − 1), n counting only the numbers for nanquantile (rank 0 where there are
    none); for quantile, the last place (a nan) in a row that holds a nan."""
    is_nan = np.isnan(sorted._data)
    if ignore_nan:
        counts = Tensor._make(np.count_nonzero(~is_nan, axis=-1, keepdims=True))
        ranks = q * (counts - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last = sorted.shape[-1] - 1
        any_nan = is_nan.any(axis=-1, keepdims=True)
        scaled = q * last
        shape = np.broadcast_shapes(scaled.shape, any_nan.shape)
        ranks = scaled.expand(*shape).masked_fill(
            Tensor._make(np.broadcast_to(any_nan, shape)), last
        )
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    return ranks


def _sorted_rows(input: Tensor, axis) -> Tensor:
    """The values to pick quantiles from, sorted along the last dimension."""
    if axis is None:
        return sort(input.flatten()).values
    if axis == input.ndim - 1:  # (never for a 0-d input: dim 0 is not its dim -1 here)
        return sort(input).values
    return sort(input.unsqueeze(-1).transpose(axis, -1)).values


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            # (q as C++ prints a double: 2 for 2.0)
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        q = Tensor._make(np.asarray(q, input._data.dtype))
    _quantile_checks(input, q, interpolation)
    axis = None if dim is None else _wrap_dim(dim, input.ndim) % max(input.ndim, 1)
    out_shape = _output_shape(input, q, axis, bool(keepdim))
    sorted = _sorted_rows(input, axis)
    # The rows to reduce, one per element of the result (q's dimension aside).
    sorted = sorted.view(*out_shape[1:], sorted.shape[-1] if sorted.ndim else 1)
    ranks = _ranks(sorted, q, ignore_nan, interpolation)
    below = ranks.long()
    values = sorted.gather(-1, below)
    if interpolation in ("linear", "midpoint"):  # between the values below and above
        if interpolation == "linear":
            weights = ranks - below
        else:
            weights = Tensor._make(np.full_like(ranks._data, 0.5))
        values.lerp_(sorted.gather(-1, ranks.ceil().long()), weights)
    if q.ndim == 0:
        return _SqueezeInPlace.apply(values, (values.ndim - 1,))
    # q's dimension moves to the front: (..., Q) -> (1, ..., Q) -> (Q, ..., 1) -> (Q, ...)
    moved = _TransposeInPlace.apply(_UnsqueezeInPlace.apply(values, 0), 0, values.ndim)
    return _SqueezeInPlace.apply(moved, (moved.ndim - 1,))


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
    """The ``q``-quantiles of ``input`` (of all its elements, or along ``dim``): the
    value below which a fraction q of the values lie, interpolated between the two
    sorted values around rank q·(n − 1) (``interpolation``: ``"linear"``,
    ``"lower"``, ``"higher"``, ``"midpoint"`` or ``"nearest"``). ``q`` a number or a
    1-d tensor (the quantiles then come first). nan where a row holds a nan. The
    gradient goes to the (one or two) sorted values each quantile is made of.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[3.0, 1.0, 2.0, 7.0], [5.0, 4.0, 6.0, 0.0]], requires_grad=True)
    >>> torch.quantile(x, 0.3, dim=1)
    tensor([1.9000, 3.6000], grad_fn=<SqueezeBackward4>)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(
    input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"
):
    """:func:`quantile` of the values that are not nan (nan where all are).

    >>> import autogradkit as torch
    >>> torch.tensor([float("nan"), 1.0, 2.0]).nanquantile(0.5)
    tensor(1.5000)
    """
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)
