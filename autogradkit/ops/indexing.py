"""Repeating, rotating and picking elements by index: ``tile`` (a ``repeat``),
``repeat_interleave``, ``rot90``, ``take``, ``take_along_dim``,
``masked_select``, ``index_add`` and ``index_copy``.

Each is linear, so its backward moves the gradient back to where each element
came from: ``rot90`` rotates the
gradient back, ``take`` and ``masked_select`` put it into zeros at the picked
places (adding where a place was picked twice). ``index_add`` passes the
gradient to ``self`` whole and reads ``source``'s part back at the index;
``index_copy`` does the same, with 0 for the overwritten slices of ``self``.

>>> import autogradkit as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> torch.tile(x, (1, 2))
tensor([[1., 2., 1., 2.],
        [3., 4., 3., 4.]], grad_fn=<RepeatBackward0>)
>>> torch.rot90(x)
tensor([[2., 4.],
        [1., 3.]], grad_fn=<Rot90Backward0>)
>>> x.masked_select(x > 1.5)
tensor([2., 3., 4.], grad_fn=<MaskedSelectBackward0>)
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Linear
from ..tensor import Tensor, _wrap_dim
from .rearrange import index_select
from .reshaping import _broadcast_pair, broadcast_to
from .select import gather
from .shape import Clone, _shape_arg, expand, repeat, reshape, scatter_into_zeros, unsqueeze

__all__ = [
    "tile",
    "repeat_interleave",
    "rot90",
    "take",
    "take_along_dim",
    "masked_select",
    "index_add",
    "index_copy",
]


class Rot90(Linear):
    """f(x) = x rotated by 90° ``k`` times in the plane of ``dims`` (from the first
    axis towards the second);   ∂ℓ/∂x = the gradient rotated back by −k"""

    node_name = "Rot90Backward0"
    formula = r"f(x) = \operatorname{rot}_{k}(x) \qquad \frac{\partial \ell}{\partial x} = \operatorname{rot}_{-k}(G)"

    @staticmethod
    def forward(ctx, x, k, dims):
        ctx.k, ctx.dims = k, dims
        return np.rot90(x, k, dims).copy()  # a copy, as PyTorch's rot90

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):
            return rot90(grad_output, -ctx.k, ctx.dims), None, None
        return np.rot90(grad_output, -ctx.k, ctx.dims), None, None


class Take(Linear):
    """f(x) = x's elements (counted in row-major order) at ``index``, in index's
    shape;   ∂ℓ/∂x = zeros with the gradient added at those elements"""

    node_name = "TakeBackward0"
    formula = r"f(x)_j = \operatorname{flat}(x)_{\text{index}_j} \qquad \frac{\partial \ell}{\partial x} = 0 \text{ with } g_j \text{ added at } \text{index}_j"

    @staticmethod
    def forward(ctx, x, index):
        ctx.shape = x.shape
        # (A 0-d x is read as its one element: unravel_index needs a dimension.)
        ctx.key = np.unravel_index(index % max(x.size, 1), x.shape or (1,))
        ctx.save_for_backward(index)  # as PyTorch: a freed graph refuses a second pass
        return x.reshape(x.shape or (1,))[ctx.key].copy()

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        grad = scatter_into_zeros(grad_output, ctx.key, ctx.shape or (1,))
        return _reshaped(grad, ctx.shape), None


def _reshaped(grad, shape: tuple):
    """The gradient in ``shape`` (back to 0-d where the forward read a 0-d tensor
    as one element)."""
    if grad.shape == shape:
        return grad
    return reshape(grad, *shape) if isinstance(grad, Tensor) else grad.reshape(shape)


class MaskedSelect(Linear):
    """f(x) = the elements of x where ``mask`` is True (both broadcast first), in
    row-major order, as a 1-d tensor;   ∂ℓ/∂x = zeros with the gradient put back
    where the mask is True (summed over what broadcasting repeated)"""

    node_name = "MaskedSelectBackward0"
    formula = r"f(x) = (x_i)_{\text{mask}_i} \qquad \frac{\partial \ell}{\partial x_i} = g_{j(i)} \text{ where } \text{mask}_i, \text{ else } 0"

    @staticmethod
    def forward(ctx, x, mask):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        ctx.shape = shape
        # (0-d operands are read as one element: nonzero needs a dimension.)
        read = shape or (1,)
        ctx.key = np.nonzero(np.broadcast_to(mask, shape).reshape(read))
        ctx.save_for_backward(mask)
        return np.broadcast_to(x, shape).reshape(read)[ctx.key].copy()

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        # In the broadcast shape; the engine sums it back to x's shape.
        grad = scatter_into_zeros(grad_output, ctx.key, ctx.shape or (1,))
        return _reshaped(grad, ctx.shape), None


class IndexAdd(Linear):
    """f(x, s) = x with alpha·s's slices added at x's slices ``index`` along ``dim``
    (repeats add up);   ∂ℓ/∂x = G, ∂ℓ/∂s = alpha · G's slices at ``index``"""

    node_name = "IndexAddBackward0"
    formula = r"f(x, s)_{\text{index}_i} = x_{\text{index}_i} + \alpha s_i \qquad \frac{\partial \ell}{\partial x} = G, \quad \frac{\partial \ell}{\partial s_i} = \alpha G_{\text{index}_i}"

    @staticmethod
    def forward(ctx, x, dim, index, source, alpha):
        ctx.dim, ctx.index, ctx.alpha, ctx.source_shape = dim, index, alpha, source.shape
        ctx.save_for_backward(index)
        out = x.copy()
        slices = _along(out, dim)
        key = (slice(None),) * dim + (index,)
        values = np.asarray(source).reshape(slices[key].shape)
        np.add.at(slices, key, (values * alpha).astype(out.dtype, copy=False))
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        return grad_output, None, None, _read_at_index(ctx, grad_output, ctx.alpha), None


class IndexCopy(Linear):
    """f(x, s) = x with its slices ``index`` along ``dim`` replaced by s's slices
    (for a repeated index the last one wins);   ∂ℓ/∂x = G with 0 at the replaced
    slices, ∂ℓ/∂s = G's slices at ``index``"""

    node_name = "IndexCopyBackward0"
    formula = r"f(x, s)_{\text{index}_i} = s_i \qquad \frac{\partial \ell}{\partial x} = G \text{ (0 where replaced)}, \quad \frac{\partial \ell}{\partial s_i} = G_{\text{index}_i}"

    @staticmethod
    def forward(ctx, x, dim, index, source):
        ctx.dim, ctx.index, ctx.source_shape = dim, index, source.shape
        ctx.save_for_backward(index)
        out = x.copy()
        slices = _along(out, dim)
        key = (slice(None),) * dim + (index,)
        slices[key] = np.asarray(source).reshape(slices[key].shape)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        kept = np.ones(grad_output.shape, dtype=bool)
        _along(kept, ctx.dim)[(slice(None),) * ctx.dim + (ctx.index,)] = False
        if isinstance(grad_output, Tensor):  # (a create_graph pass records a product)
            grad_self = grad_output * Tensor._make(kept.astype(grad_output._data.dtype))
        else:
            grad_self = np.where(kept, grad_output, 0).astype(grad_output.dtype)
        return grad_self, None, None, _read_at_index(ctx, grad_output, 1), None


def _along(array: np.ndarray, dim: int) -> np.ndarray:
    """``array`` itself, or a 0-d array as a 1-d view of its one element (a 0-d
    tensor has one slice, at index 0)."""
    return array.reshape(1) if array.ndim == 0 else array


def _read_at_index(ctx, grad_output, alpha):
    """``source``'s gradient: the gradient's slices at ``index`` along ``dim``,
    times ``alpha``, in source's shape (a 0-d source from one slice)."""
    if isinstance(grad_output, Tensor):
        picked = index_select(grad_output, ctx.dim, Tensor._make(ctx.index))
        picked = picked * alpha if alpha != 1 else picked
        return reshape(picked, *ctx.source_shape)
    picked = _along(grad_output, ctx.dim)[(slice(None),) * ctx.dim + (ctx.index,)]
    return (picked * alpha if alpha != 1 else picked).reshape(ctx.source_shape)


# -- public functions ---------------------------------------------------------------------


def tile(input: Tensor, dims) -> Tensor:
    """``input`` repeated ``dims[d]`` times along each dimension, as NumPy's tile:
    fewer ``dims`` than dimensions are padded with leading 1s (then ``repeat``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.tile(torch.tensor([[1, 2]]), (2,))
    tensor([[1, 2, 1, 2]])
    """
    if not isinstance(dims, (tuple, list)):
        raise TypeError(
            f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}"
        )
    dims = _shape_arg(tuple(dims))
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, *dims)


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place:
    [a, b] → [a, a, b, b]. Without ``dim`` the tensor is flattened first.

    An int ``repeats`` is PyTorch's composite unsqueeze → expand → clone → view
    (ViewBackward0 at the top); a tensor of counts (one per slice, or one for all)
    picks the slices with ``index_select`` (IndexSelectBackward0). Given only a
    tensor of counts, returns the indices repeated: ``repeat_interleave(tensor([1,
    2]))`` is ``tensor([0, 1, 1])``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0)
    tensor([[1, 2],
            [1, 2],
            [3, 4],
            [3, 4]])
    >>> torch.repeat_interleave(torch.tensor([1, 2, 0]))
    tensor([0, 1, 1])
    """
    if repeats is None:
        return _repeated_positions(input)
    if isinstance(repeats, Tensor):
        return _repeat_interleave_counts(input, repeats, dim)
    repeats = int(repeats)
    source = input if dim is not None else input.flatten()
    dim = _wrap_dim(0 if dim is None else dim, input.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    widened = unsqueeze(source, dim + 1)
    shape = list(widened.shape)
    shape[dim + 1] = repeats
    # A row-major copy of the expanded view (PyTorch's clone(contiguous)), so
    # merging the two dimensions is a view (ViewBackward0).
    return Clone.apply(expand(widened, *shape), "C").flatten(dim, dim + 1)


def _repeated_positions(counts: Tensor) -> Tensor:
    """0, 1, 2, … each repeated as often as ``counts`` says."""
    if counts.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if counts.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{scalar_type_name(counts._data.dtype)}'"
        )
    if (counts._data < 0).any():
        raise RuntimeError("repeats can not be negative")
    positions = np.repeat(np.arange(counts.numel(), dtype=np.int64), counts._data)
    return Tensor._make(positions)


def _repeat_interleave_counts(input: Tensor, counts: Tensor, dim) -> Tensor:
    source = input if dim is not None else input.flatten()
    dim = 0 if dim is None else _wrap_dim(dim, input.ndim)
    if counts.ndim == 0 or (counts.ndim == 1 and counts.numel() == 1):
        counts = expand(reshape(counts, 1), source.shape[dim])
    elif counts.ndim == 1:
        if counts.shape[0] != source.shape[dim]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{counts.shape[0]} and input.size({dim}) = {source.shape[dim]}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return index_select(source, dim, _repeated_positions(counts))


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """``input`` rotated by 90° ``k`` times in the plane of ``dims``, from the
    first axis towards the second (Rot90Backward0, a copy; k may be negative).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.rot90(torch.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    wrapped = (_wrap_dim(dims[0], input.ndim), _wrap_dim(dims[1], input.ndim))
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.ndim:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return Rot90.apply(input, int(k) % 4, wrapped)


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of ``input`` at ``index`` as if it were 1-d (row-major order;
    negative positions count from the end), in ``index``'s shape (TakeBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.take(torch.tensor([[4, 5], [6, 7]]), torch.tensor([0, 3, -1]))
    tensor([4, 7, 7])
    """
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        got = scalar_type_name(index._data.dtype) if isinstance(index, Tensor) else "?"
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {got}")
    size = input.numel()
    positions = index._data
    bad = positions[(positions < -size) | (positions >= size)]
    if bad.size:
        raise IndexError(
            f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {size} "
            "elements."
        )
    return Take.apply(input, positions)


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """``gather`` with broadcasting: the elements of ``input`` along ``dim`` at
    ``indices`` (the other dimensions broadcast against each other); without
    ``dim``, positions in the flattened tensor. Recorded as PyTorch's composite:
    GatherBackward0 over ExpandBackward0 (or ViewBackward0 without ``dim``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[10, 30, 20], [60, 40, 50]])
    >>> torch.take_along_dim(x, x.argmax(dim=1, keepdim=True), dim=1)
    tensor([[30],
            [60]])
    """
    if indices._data.dtype != np.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{scalar_type_name(indices._data.dtype)}"
        )
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    dim = _wrap_dim(dim, input.ndim)
    # Every dimension but dim broadcasts: indices keeps its length along dim,
    # input its own.
    input_sizes = list(input.shape)
    input_sizes[dim] = indices.shape[dim]
    shape = list(_broadcast_pair(tuple(input_sizes), tuple(indices.shape)))
    indices = broadcast_to(indices, shape)
    shape[dim] = input.shape[dim]
    shape = list(_broadcast_pair(tuple(shape), tuple(input.shape)))
    return gather(broadcast_to(input, shape), dim, indices)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where the boolean ``mask`` is True, as a 1-d
    tensor (``input`` and ``mask`` broadcast together first; MaskedSelectBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[1, -2], [-3, 4]])
    >>> torch.masked_select(x, x > 0)
    tensor([1, 4])
    """
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _broadcast_pair(tuple(mask.shape), tuple(input.shape))
    return MaskedSelect.apply(input, mask._data)


def _index_checks(name: str, input: Tensor, dim: int, index, source) -> tuple[int, np.ndarray]:
    """The dimension (wrapped) and the index positions, after PyTorch's checks
    shared by index_add and index_copy."""
    dim = _wrap_dim(dim, input.ndim)
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        got = scalar_type_name(index._data.dtype) if isinstance(index, Tensor) else "?"
        if name == "index_add_":
            raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {got}")
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {got}")
    if index.ndim > 1:
        if name == "index_add_":
            raise IndexError(
                "index_add_(): Index is supposed to be a vector, but got dim: "
                f"{index.ndim} with type: Long and size: {list(index.shape)}"
            )
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    return dim, index._data.reshape(-1)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source``'s slices added at the slices ``index``
    along ``dim`` (an index that repeats adds each time; IndexAddBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.zeros(3, 2).index_add(0, torch.tensor([0, 2, 0]), torch.ones(3, 2))
    tensor([[2., 2.],
            [0., 0.],
            [1., 1.]])
    """
    dim, positions = _index_checks("index_add_", input, dim, index, source)
    slice_shape = list(input.shape)
    if input.ndim:
        slice_shape[dim] = source.shape[dim] if source.ndim > dim else -1
    if (input.ndim or source.ndim) and list(source.shape) != slice_shape:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    count = source.shape[dim] if source.ndim else 1
    if positions.size != count:
        raise RuntimeError(
            f"index_add_(): Number of indices ({positions.size}) should be equal to "
            f"source.size(dim): ({count}), for dim: {dim}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_type_name(input._data.dtype)}) and source "
            f"({scalar_type_name(source._data.dtype)}) must have the same scalar type"
        )
    _check_bounds("", input, dim, positions)
    return IndexAdd.apply(input, dim, positions, source, alpha)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices ``index`` along ``dim`` replaced by ``source``'s
    slices (IndexCopyBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.zeros(3, 2).index_copy(0, torch.tensor([2, 0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[3., 4.],
            [0., 0.],
            [1., 2.]])
    """
    dim, positions = _index_checks("index_copy_", input, dim, index, source)
    if source.ndim and input.ndim and source.ndim != input.ndim:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
            f"({input.ndim})"
        )
    count = source.shape[dim] if source.ndim else 1
    if positions.size != count:
        raise IndexError(
            f"index_copy_(): Number of indices ({positions.size}) should be equal to "
            f"source.size(dim) ({count})"
        )
    for d in range(source.ndim):
        if d != dim and source.shape[d] != input.shape[d]:
            at = d if d < dim else d - 1  # counted in the slice (dim left out)
            raise RuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {input.shape[d]} at dimension {at} and source slice "
                f"shape: {source.shape[d]} at dimension {at}."
            )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_type_name(input._data.dtype)} and (source) "
            f"{scalar_type_name(source._data.dtype)}"
        )
    _check_bounds("index_copy_(): ", input, dim, positions)
    return IndexCopy.apply(input, dim, positions, source)


def _check_bounds(prefix: str, input: Tensor, dim: int, positions: np.ndarray) -> None:
    size = input.shape[dim] if input.ndim else 1
    bad = positions[(positions < 0) | (positions >= size)]
    if bad.size:
        message = (
            f"{prefix}index {int(bad[0])} is out of bounds for dimension {dim} with size {size}"
        )
        raise IndexError(message) if prefix else RuntimeError(message)
