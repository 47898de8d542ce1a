"""Shape functions PyTorch builds out of the basic views and joins: broadcasting
(``broadcast_to``, ``broadcast_tensors``, ``meshgrid``), stacking
(``hstack``, ``vstack``, ``dstack``, ``column_stack``), moving dimensions
(``movedim``, ``swapaxes``), ``ravel``, ``unflatten``, ``atleast_1d/2d/3d``,
splitting at indices (``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``),
``fliplr``/``flipud``, ``diff``, and the index lists ``tril_indices`` /
``triu_indices``.

None of them is a new node of the graph: each calls ``expand``, ``cat``,
``permute``, ``transpose``, ``reshape``, ``narrow``, ``flip`` or a subtraction,
so the graph shows what PyTorch's shows (``torch.hstack`` records a
``CatBackward0``, ``torch.movedim`` a ``PermuteBackward0``), and a view stays a
view: ``broadcast_to(x, shape)`` shares ``x``'s memory as ``x.expand(shape)`` does.

>>> import autogradkit as torch
>>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> torch.broadcast_to(x, (2, 3))
tensor([[1., 2., 3.],
        [1., 2., 3.]], grad_fn=<ExpandBackward0>)
>>> torch.vstack([x, x * 2])
tensor([[1., 2., 3.],
        [2., 4., 6.]], grad_fn=<CatBackward0>)
>>> torch.diff(x * x)
tensor([3., 5.], grad_fn=<SubBackward0>)
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._dtype import dtype as DType
from .._dtype import scalar_type_name
from .._warn_once import warn_once
from ..tensor import Size, Tensor, _wrap_dim
from .rearrange import flip
from .shape import (
    Alias,
    _shape_arg,
    cat,
    contiguous,
    expand,
    narrow,
    permute,
    reshape,
    transpose,
    unsqueeze,
)

__all__ = [
    "broadcast_to",
    "broadcast_shapes",
    "broadcast_tensors",
    "meshgrid",
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "movedim",
    "swapaxes",
    "ravel",
    "unflatten",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "fliplr",
    "flipud",
    "diff",
    "tril_indices",
    "triu_indices",
]


# -- broadcasting -------------------------------------------------------------------------


def broadcast_to(input: Tensor, size) -> Tensor:
    """``input`` expanded to ``size``: a view (ExpandBackward0), as ``input.expand(size)``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.broadcast_to(torch.tensor([[1], [2]]), (2, 3))
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            "broadcast_to(): argument 'size' (position 2) must be tuple of ints, "
            f"not {type(size).__name__}"
        )
    return expand(input, _shape_arg(tuple(size)))


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of ``shapes`` broadcast to, without making any
    tensor (an int stands for a 1-d shape).

    Sizes are lined up from the right; in each column every size is 1 or the
    same number n, and the result has n there.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.broadcast_shapes((2, 1), (3,), 1)
    autogradkit.Size([2, 3])
    """
    result: list[int] = []
    for index, shape in enumerate(shapes):
        sizes = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if len(sizes) > len(result):
            result = [1] * (len(sizes) - len(result)) + result
        for back in range(1, len(sizes) + 1):
            size, current = int(sizes[-back]), result[-back]
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if size == current or size == 1:
                continue
            if current != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {-back}! "
                    f"Mismatching argument at index {index} had {tuple(sizes)}; but expected "
                    f"shape should be broadcastable to {result}"
                )
            result[-back] = size
    return Size(result)


def broadcast_tensors(*tensors) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape. A tensor already of
    that shape is returned as it is (no node); the others are expanded views
    (ExpandBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> a, b = torch.broadcast_tensors(torch.zeros(2, 1), torch.tensor([1.0, 2.0, 3.0]))
    >>> b
    tensor([[1., 2., 3.],
            [1., 2., 3.]])
    """
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    shape = tuple(tensors[0].shape) if tensors else ()
    for t in tensors[1:]:
        shape = _broadcast_pair(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def _broadcast_pair(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes, refused in the words of PyTorch's binary
    operations (``a`` is what came before, ``b`` the next tensor)."""
    ndim = builtins.max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    out = []
    for d, (m, n) in enumerate(zip(a, b)):
        if m != n and m != 1 and n != 1:
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {d}"
            )
        out.append(n if m == 1 else m)
    return tuple(out)


def _check_meshgrid_inputs(tensors: tuple, indexing: str) -> None:
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{t.ndim}-d tensor of shape {list(t.shape)}"
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )


def meshgrid(*tensors, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-d tensors: with ``indexing='ij'`` output k varies
    along dimension k (matrix indexing); with ``'xy'`` the first two dimensions are
    swapped (Cartesian indexing, as NumPy's default). Each output is an expanded
    view of its input (ExpandBackward0). Without ``indexing`` PyTorch uses ``'ij'``
    and warns that the argument will be required.

    Examples
    --------
    >>> import autogradkit as torch
    >>> rows, cols = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([5, 6, 7]), indexing="ij")
    >>> rows
    tensor([[1, 1, 1],
            [2, 2, 2]])
    >>> cols
    tensor([[5, 6, 7],
            [5, 6, 7]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument."
        )
        indexing = "ij"
    _check_meshgrid_inputs(tensors, indexing)
    # Output k varies along dimension k, but with 'xy' inputs 0 and 1 trade
    # places: x runs along the columns (dimension 1), y along the rows.
    places = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        places[0], places[1] = 1, 0
    shape = [0] * len(tensors)
    for t, place in zip(tensors, places):
        shape[place] = t.numel()
    grids = []
    for t, place in zip(tensors, places):
        view_shape = [1] * len(tensors)
        view_shape[place] = -1
        grids.append(expand(reshape(t, *view_shape), tuple(shape)))
    return tuple(grids)


# -- stacking -----------------------------------------------------------------------------


def _tensor_list(tensors, name: str) -> list[Tensor]:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
            f"not {type(tensors).__name__}"
        )
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors) -> Tensor:
    """Join along the columns: ``cat(tensors, 1)``, or along dimension 0 when the
    tensors are 1-d (0-d tensors count as 1-d).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.hstack([torch.tensor([1, 2]), torch.tensor([3])])
    tensor([1, 2, 3])
    """
    pieces = atleast_1d(_tensor_list(tensors, "hstack"))
    return cat(pieces, 0 if pieces[0].ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    """Join along the rows: ``cat(atleast_2d(tensors), 0)`` (a 1-d tensor is one row).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.vstack([torch.tensor([1, 2]), torch.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    return cat(atleast_2d(_tensor_list(tensors, "vstack")), 0)


def row_stack(tensors) -> Tensor:
    """Another name for :func:`vstack`."""
    return cat(atleast_2d(_tensor_list(tensors, "row_stack")), 0)


def dstack(tensors) -> Tensor:
    """Join along the depth: ``cat(atleast_3d(tensors), 2)``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.dstack([torch.tensor([1, 2]), torch.tensor([3, 4])]).shape
    autogradkit.Size([1, 2, 2])
    """
    return cat(atleast_3d(_tensor_list(tensors, "dstack")), 2)


def column_stack(tensors) -> Tensor:
    """Join as columns: a 0-d or 1-d tensor becomes one column (n × 1), then
    ``cat(..., 1)``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.column_stack([torch.tensor([1, 2]), torch.tensor([3, 4])])
    tensor([[1, 3],
            [2, 4]])
    """
    pieces = [
        reshape(t, t.numel(), 1) if t.ndim <= 1 else t
        for t in _tensor_list(tensors, "column_stack")
    ]
    return cat(pieces, 1)


# -- moving dimensions, ravel, unflatten, atleast_nd -------------------------------------


def _dims_list(dims) -> list[int]:
    return [int(d) for d in dims] if isinstance(dims, (list, tuple)) else [int(dims)]


def movedim(input: Tensor, source, destination) -> Tensor:
    """The dimensions ``source`` moved to the places ``destination``, the others
    keeping their order: a view (PermuteBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.movedim(torch.zeros(2, 3, 4), 0, -1).shape
    autogradkit.Size([3, 4, 2])
    """
    src, dst = _dims_list(source), _dims_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)"
        )
    ndim = input.ndim
    src = [_wrap_dim(d, ndim) for d in src]
    dst = [_wrap_dim(d, ndim) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(
                f"movedim: repeated dim in `{name}` ({_dims_list(source if name == 'source' else destination)})"
            )
    order: list[int | None] = [None] * builtins.max(ndim, 1)
    for s, d in zip(src, dst):
        order[d] = s
    if ndim == 0:  # nothing to move: PyTorch's alias of the tensor (a view)
        return Alias.apply(input, ())
    rest = iter(d for d in range(ndim) if d not in src)
    dims = [next(rest) if d is None else d for d in order][:ndim]
    return permute(input, *dims)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """NumPy's name for :func:`~autogradkit.transpose` (TransposeBackward0)."""
    return transpose(input, axis0, axis1)


def ravel(input: Tensor) -> Tensor:
    """The elements in one dimension: ``reshape(-1)`` (a view when the memory allows).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.ravel(torch.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    return reshape(contiguous(input), -1)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (one may be -1): the inverse of
    :func:`~autogradkit.flatten`, a view when the memory allows (ViewBackward0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.unflatten(torch.arange(6), 0, (2, -1))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    dim = _wrap_dim(dim, input.ndim)
    sizes = [int(n) for n in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input.shape[dim]
    known = math.prod(n for n in sizes if n != -1)
    if -1 not in sizes and known != size:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
            f"({size}) in the input tensor"
        )
    shape = list(input.shape[:dim]) + sizes + list(input.shape[dim + 1 :])
    return reshape(input, *shape)


def _atleast(tensors: tuple, ndim: int):
    """``atleast_{ndim}d``: one tensor in, one out; several (or a list), a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast_one(t, ndim) for t in tensors[0])
    if len(tensors) == 1:
        return _atleast_one(tensors[0], ndim)
    return tuple(_atleast_one(t, ndim) for t in tensors)


def _atleast_one(t: Tensor, ndim: int) -> Tensor:
    # PyTorch's steps: a 0-d tensor is reshaped to all ones; a 1-d vector of n
    # becomes 1 × n (then 1 × n × 1), a matrix gets a trailing 1.
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return reshape(t, *([1] * ndim))
    if t.ndim == 1:
        t = unsqueeze(t, 0)
        if ndim == 2:
            return t
    return unsqueeze(t, -1)


def atleast_1d(*tensors):
    """Tensors with at least one dimension (a 0-d tensor becomes shape (1,)); a
    tensor with enough dimensions comes back as it is.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.atleast_1d(torch.tensor(5))
    tensor([5])
    """
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Tensors with at least two dimensions (a 1-d tensor of n becomes 1 × n)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Tensors with at least three dimensions (n becomes 1 × n × 1, m × n becomes
    m × n × 1)."""
    return _atleast(tensors, 3)


# -- splitting at indices ---------------------------------------------------------------


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of ``input`` along ``dim`` (SliceBackward0 each): n sections of
    nearly equal size (the first ``size % n`` one longer) for an int, or the
    pieces between the given indices for a list (indices past the end give empty
    pieces, as slicing does).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.tensor_split(torch.arange(7), 3)
    (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
    >>> torch.tensor_split(torch.arange(7), [1, 5])
    (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    if isinstance(indices_or_sections, Tensor):
        split = indices_or_sections
        if split.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {split.ndim} dims"
            )
        if split.dtype.is_floating_point or split.dtype.name == "bool":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{scalar_type_name(split.dtype.numpy)}"
            )
        values = split._data.tolist()
        indices_or_sections = values if split.ndim == 1 else int(values)
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(indices_or_sections, (list, tuple)):
        starts = [0] + [int(i) for i in indices_or_sections]
        ends = [int(i) for i in indices_or_sections] + [size]
    else:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, longer = divmod(size, sections)
        lengths = [base + 1] * longer + [base] * (sections - longer)
        starts = [builtins.sum(lengths[:i]) for i in range(sections)]
        ends = [s + n for s, n in zip(starts, lengths)]
    pieces = []
    for start, end in zip(starts, ends):
        # A slice start:end of the dimension, clipped as Python slices clip.
        start = builtins.min(builtins.max(start + size if start < 0 else start, 0), size)
        end = builtins.min(builtins.max(end + size if end < 0 else end, 0), size)
        pieces.append(narrow(input, dim, start, builtins.max(end - start, 0)))
    return tuple(pieces)


def _split_along(input: Tensor, sections, dim: int, name: str, min_ndim: int) -> tuple:
    if input.ndim < min_ndim:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a "
            f"tensor with {input.ndim} dimensions!"
        )
    if isinstance(sections, (int, np.integer)):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                f"dimension {size} is not divisible by the split_size {sections}!"
            )
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """Split into columns: :func:`tensor_split` along dimension 1 (0 for a 1-d
    tensor), where an int must divide the size exactly."""
    dim = 0 if input.ndim == 1 else 1
    return _split_along(input, indices_or_sections, dim, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """Split into rows: :func:`tensor_split` along dimension 0 of a tensor of 2 or
    more dimensions, where an int must divide the size exactly."""
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """Split along the depth: :func:`tensor_split` along dimension 2 of a tensor of
    3 or more dimensions, where an int must divide the size exactly."""
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


# -- flips and differences -------------------------------------------------------------


def fliplr(input: Tensor) -> Tensor:
    """Columns in reverse order: ``flip(input, (1,))`` (a copy, FlipBackward0)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Rows in reverse order: ``flip(input, (0,))`` (a copy, FlipBackward0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _check_diff_edges(input: Tensor, dim: int, prepend, append) -> None:
    """PyTorch's refusals of a ``prepend``/``append`` that cannot be joined to input."""
    for other in (prepend, append):
        if other is not None and other.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for other in (prepend, append):
        for d in range(input.ndim):
            if other is not None and d != dim and other.shape[d] != input.shape[d]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({d}) = "
                    f"{input.shape[d]}, but got tensor.size({d}) = {other.shape[d]}"
                )


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """The n-th forward difference along ``dim``: out[i] = x[i+1] − x[i], taken n
    times (``prepend``/``append`` are joined to x first). For booleans the
    difference is "not equal" (XOR), as PyTorch's.

    Each difference is a subtraction of two views (SubBackward0 over two
    SliceBackward0), so ∂out[i]/∂x[i+1] = 1 and ∂out[i]/∂x[i] = −1.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.diff(torch.tensor([1, 4, 9, 16]))
    tensor([3, 5, 7])
    >>> torch.diff(torch.tensor([1, 4, 9, 16]), n=2)
    tensor([2, 2])
    """
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.ndim)
    _check_diff_edges(input, dim, prepend, append)
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = cat(parts, dim)
    if n == 0:
        # PyTorch returns a copy made by copy_ (CopyBackwards).
        from .._creation import empty_like

        return empty_like(input).copy_(input)
    result = input
    for _ in range(n):
        length = builtins.max(result.shape[dim] - 1, 0)
        later, earlier = (
            narrow(result, dim, 1 if length else 0, length),
            narrow(result, dim, 0, length),
        )
        result = later != earlier if result.dtype.name == "bool" else later - earlier
    return result


# -- index lists --------------------------------------------------------------------------


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype, upper: bool) -> Tensor:
    from .._creation import tensor
    from .._dtype import int64

    dtype = int64 if dtype is None else dtype
    if not isinstance(dtype, DType):
        raise TypeError(
            f"{name}(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
        )
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype.is_floating_point or dtype.name == "bool":
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{scalar_type_name(dtype.numpy)}'"
        )
    rows, cols = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return tensor(np.stack([rows, cols]).astype(np.int64), dtype=dtype)


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None
) -> Tensor:
    """The row and column indices (a 2 × N tensor, row-major order) of the lower
    triangle of a ``row`` × ``col`` matrix, on and below diagonal ``offset``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    return _triangle_indices("tril_indices", row, col, offset, dtype, upper=False)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None
) -> Tensor:
    """The row and column indices (2 × N, row-major order) of the upper triangle
    of a ``row`` × ``col`` matrix, on and above diagonal ``offset``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
    """
    return _triangle_indices("triu_indices", row, col, offset, dtype, upper=True)
