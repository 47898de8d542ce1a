"""Operations that move elements around without changing them: reshaping,
transposing, (un)squeezing, expanding, indexing, stacking and concatenating.

Their backward formulas move the gradient back the same way: a reshape is undone
by a reshape, a transpose by the same transpose, an index by scattering the
gradient into zeros at the indexed places.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

import numpy as np

from .._dtype import dtype as DType
from .._dtype import scalar_type_name
from .._warn_once import warn_once
from ..autograd.function import Function, Linear
from ..tensor import Tensor, _wrap_dim
from ._promotion import common_dtype
from .arithmetic import _zeros_like
from .where import _values

__all__ = [
    "reshape",
    "view",
    "flatten",
    "t",
    "numpy_T",
    "transpose",
    "permute",
    "unsqueeze",
    "squeeze",
    "expand",
    "clone",
    "contiguous",
    "narrow",
    "select",
    "getitem",
    "stack",
    "cat",
    "to_dtype",
    "index_put",
    "put",
]


def _shape_arg(shape: tuple) -> tuple:
    """Accept ``reshape(2, 3)``, ``reshape((2, 3))`` and ``reshape([2, 3])``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for n in shape:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(
                f"shape must be a sequence of ints, got {type(n).__name__} in {shape!r}"
            )
    return tuple(int(n) for n in shape)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    if builtins.sum(1 for n in shape if n == -1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for n in shape:
        if n != -1:
            if n < 0:
                raise RuntimeError(f"invalid shape dimension {n}")
            known *= n
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class View(Linear):
    """f(x) = x with a new shape;   backward reshapes the gradient back"""

    node_name = "ViewBackward0"
    formula = r"f(x) = \operatorname{reshape}(x) \qquad \frac{\partial \ell}{\partial x} = \operatorname{reshape}(G, \text{shape of } x)"
    creates_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.reshape(ctx.shape), None


class UnsafeView(View):
    """Like View, on a fresh copy (so not a view of anything); PyTorch names the
    node this way where ``matmul`` folds batch dimensions back out of a matrix
    product, and where ``reshape`` has to copy."""

    node_name = "UnsafeViewBackward0"
    creates_view = False


class ReshapeAlias(View):
    """Like View; PyTorch names the node this way when ``reshape`` views a tensor
    that is not contiguous (``x[::2].reshape(-1)``)."""

    node_name = "ReshapeAliasBackward0"


class T(Linear):
    """f(x) = xᵀ for a matrix (``x.t()``);   ∂: transpose the gradient back"""

    node_name = "TBackward0"
    formula = r"f(x) = x^\top \qquad \frac{\partial \ell}{\partial x} = G^\top"
    creates_view = True

    @staticmethod
    def forward(ctx, x):
        return x.T

    @staticmethod
    def backward(ctx, grad_output):
        # .t() on tensors: their .T warns below 2 dimensions, as PyTorch's does.
        return grad_output.t() if isinstance(grad_output, Tensor) else grad_output.T


class Transpose(Linear):
    """f(x) = x with dimensions ``d0`` and ``d1`` swapped;   ∂: swap them back"""

    node_name = "TransposeBackward0"
    formula = r"f(x) = x \text{ with dims } d_0, d_1 \text{ swapped} \qquad \frac{\partial \ell}{\partial x} = G \text{ with them swapped back}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, d0, d1):
        ctx.dims = (d0, d1)
        return x.swapaxes(d0, d1) if x.ndim else x.view()  # a 0-d tensor: itself

    @staticmethod
    def backward(ctx, grad_output):
        if not grad_output.ndim:
            return grad_output, None, None
        return np.swapaxes(grad_output, *ctx.dims), None, None


class Permute(Linear):
    """f(x) = x with dimensions reordered by ``dims``;   ∂: apply the inverse order"""

    node_name = "PermuteBackward0"
    formula = r"f(x) = \operatorname{permute}(x, \pi) \qquad \frac{\partial \ell}{\partial x} = \operatorname{permute}(G, \pi^{-1})"
    creates_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.inverse = tuple(np.argsort(dims))
        return x.transpose(dims)

    @staticmethod
    def backward(ctx, grad_output):
        return np.transpose(grad_output, ctx.inverse), None


class Unsqueeze(Linear):
    """f(x) = x with a size-1 dimension inserted at ``dim``;   ∂: remove it"""

    node_name = "UnsqueezeBackward0"
    formula = r"f(x) = x \text{ with a size-1 dim inserted} \qquad \frac{\partial \ell}{\partial x} = G \text{ with it removed}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.shape, ctx.dim = x.shape, dim
        return x.reshape(x.shape[:dim] + (1,) + x.shape[dim:])

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):  # create_graph: PyTorch's SqueezeBackward1
            return grad_output.squeeze(ctx.dim), None
        return grad_output.reshape(ctx.shape), None


class Squeeze(Linear):
    """f(x) = x without its size-1 dimensions;   ∂: put them back"""

    node_name = "SqueezeBackward0"
    formula = r"f(x) = x \text{ without its size-1 dims} \qquad \frac{\partial \ell}{\partial x} = G \text{ with them put back}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.shape, ctx.dims = x.shape, dims
        out = x.squeeze(axis=dims)
        # NumPy hands back x itself when there is nothing to squeeze; the result
        # needs an array object of its own (see Tensor.detach).
        return x.view() if out is x else out

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):
            # create_graph: as PyTorch's unsqueeze_to, one UnsqueezeBackward0 per
            # dimension put back, lowest first (none if nothing was squeezed).
            for dim in sorted(ctx.dims):
                grad_output = grad_output.unsqueeze(dim)
            return grad_output, None
        return grad_output.reshape(ctx.shape), None


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """``squeeze(dim=(…))``: PyTorch's overload for a tuple of dimensions."""

    node_name = "SqueezeBackward2"


class SqueezeInplace(Linear):
    """f(x) = x without its leading size-1 dimension (1×m → m);   ∂: put it back.

    The squeeze ``matmul`` applies to a vector-times-matrix result; PyTorch names
    it SqueezeBackward4 (the in-place ``squeeze_`` variant). Its one argument is
    the product (the dimension is always the first), so recording it takes the
    one-tensor path and backward returns one gradient per edge: 36.0k -> 29.1k
    instructions forward and backward together (callgrind, the tutorial's x @ w)."""

    node_name = "SqueezeBackward4"
    formula = Squeeze.formula
    creates_view = False  # squeeze_ changes the product itself: no view of it

    @staticmethod
    def forward(ctx, x):
        return x[0]  # (a view, as x.squeeze(axis=0) is)

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):  # create_graph: PyTorch's UnsqueezeBackward0
            return grad_output.unsqueeze(0)
        # reshape, not [None]: the same (1, m) strides as before for the product's
        # backward.
        return grad_output.reshape(1, len(grad_output))


class Expand(Linear):
    """f(x) = x repeated along size-1 (or new leading) dimensions;
    ∂: the base class sums the gradient back to x's shape"""

    node_name = "ExpandBackward0"
    formula = r"f(x) = x \text{ repeated along size-1 dims} \qquad \frac{\partial \ell}{\partial x} = G \text{ summed over the repeats}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, shape):
        if int(np.prod(shape)) == x.size:
            # Nothing repeated (the same shape, or size-1 dimensions added): each
            # element still appears once, so the view stays writable, as PyTorch's
            # is. (A shape assignment makes a view or raises; it never copies.)
            view = x.view()
            view.shape = shape
            return view
        return np.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class Repeat(Linear):
    """f(x) = x tiled ``repeats[d]`` times along each dimension d (as many new
    leading dimensions as ``repeats`` has more entries than x has dimensions);
    ∂ℓ/∂x = the sum of G over the copies"""

    node_name = "RepeatBackward0"
    formula = r"f(x) = [x\;x\;\cdots\;x] \qquad \frac{\partial \ell}{\partial x} = \textstyle\sum_{\text{copies}} G"

    @staticmethod
    def forward(ctx, x, repeats):
        ctx.repeats, ctx.shape = repeats, x.shape
        padded = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
        return np.tile(padded, repeats)

    @staticmethod
    def backward(ctx, grad_output):
        return _sum_of_copies(grad_output, ctx.repeats, ctx.shape), None


def _sum_of_copies(grad, repeats: tuple, shape: tuple):
    """Repeat's gradient, as PyTorch's ``repeat_backward`` computes (and, under
    create_graph, records) it: the new leading dimensions summed away one by one,
    then each repeated dimension of size r·n read as (r, n) and summed over r. No
    copy at all (a repeat of 0 somewhere): zeros."""
    if 0 in repeats:
        zeros = np.zeros(shape, dtype=_values(grad).dtype)
        return Tensor._make(zeros) if isinstance(grad, Tensor) else zeros
    for _ in range(len(repeats) - len(shape)):
        grad = grad.sum(0)
    split: list[int] = []
    summed: list[int] = []
    for repeat, size in zip(repeats[len(repeats) - len(shape) :], shape):
        if repeat != 1:
            split.append(repeat)
            summed.append(len(split) - 1)
        split.append(size)
    if summed:
        grad = grad.reshape(tuple(split)).sum(tuple(summed))
    return grad


class Clone(Linear):
    """f(x) = a copy of x;   ∂f/∂x = 1"""

    node_name = "CloneBackward0"
    formula = r"f(x) = x \qquad \frac{\partial f}{\partial x} = 1"

    @staticmethod
    def forward(ctx, x, order="K"):
        # "K" keeps x's memory layout (PyTorch's clone preserves strides);
        # contiguous() asks for "C".
        return x.copy(order=order)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class Fill(Function):
    """f(x) = c everywhere (what ``x.fill_(c)`` records for a number c);   ∂f/∂x = 0"""

    node_name = "FillBackward2"
    formula = r"f(x) = c \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x, value):
        return np.full_like(x, value)

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output), None

    @staticmethod
    def jvp(ctx, *tangents):
        return np.zeros_like(ctx.result)


class FillWithTensor(Linear):
    """f(x, v) = v everywhere (``x.fill_(v)`` for a 0-d tensor v);   ∂f/∂x = 0,
    ∂ℓ/∂v = the sum of G"""

    node_name = "FillBackward3"
    formula = r"f(x, v) = v \qquad \frac{\partial \ell}{\partial x} = 0, \quad \frac{\partial \ell}{\partial v} = \textstyle\sum G"

    @staticmethod
    def forward(ctx, x, value):
        return np.full_like(x, value)

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output), grad_output.sum()


class Copy(Linear):
    """f(x, s) = s broadcast to x's shape, in x's dtype (what ``x.copy_(s)``
    records);   ∂f/∂x = 0, ∂ℓ/∂s = G summed back to s's shape, in s's dtype"""

    node_name = "CopyBackwards"
    formula = r"f(x, s) = s \qquad \frac{\partial \ell}{\partial x} = 0, \quad \frac{\partial \ell}{\partial s} = G"

    @staticmethod
    def forward(ctx, x, source):
        return np.broadcast_to(source, x.shape).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        # The engine sums G back to s's shape and casts it to s's dtype.
        return _zeros_like(grad_output), grad_output


def _copy_backwards_name(node) -> str:
    # PyTorch's C++ node class: torch::autograd::CopyBackwards.
    return "autogradkit::autograd::CopyBackwards"


Copy._node_class.name = _copy_backwards_name  # type: ignore[method-assign,assignment]


def fill(input: Tensor, value) -> Tensor:
    """Out of place ``input.fill_(value)``: what the in-place form records."""
    if isinstance(value, Tensor):
        return FillWithTensor.apply(input, value)
    return Fill.apply(input, value)


def copy_from(input: Tensor, source: Tensor) -> Tensor:
    """Out of place ``input.copy_(source)``: what the in-place form records."""
    return Copy.apply(input, source)


class ToCopy(Linear):
    """f(x) = x converted to another dtype;   ∂: convert the gradient back"""

    node_name = "ToCopyBackward0"
    formula = r"f(x) = x \text{ in another dtype} \qquad \frac{\partial \ell}{\partial x} = G \text{ in } x\text{'s dtype}"

    @staticmethod
    def forward(ctx, x, numpy_dtype):
        ctx.dtype = x.dtype
        return x.astype(numpy_dtype)

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):
            from .._dtype import from_numpy_dtype

            return grad_output.to(from_numpy_dtype(ctx.dtype)), None
        return grad_output.astype(ctx.dtype), None


def scatter_into_zeros(grad, key, shape, recorded: Any = None):
    """The gradient of ``x[key]``: zeros of x's ``shape`` with ``grad`` added at
    ``key`` (added, so an index that repeats collects every contribution).
    Differentiating twice records it as ``recorded`` (an :class:`IndexPut`)."""
    if isinstance(grad, Tensor):
        return (recorded or IndexPut).record(grad, key, shape)
    out = np.zeros(shape, dtype=grad.dtype)
    if is_basic(key):
        out[key] = grad
    else:
        np.add.at(out, key, grad)
    return out


class IndexPut(Linear):
    """f(g) = zeros with g added at ``key`` (the backward of indexing, recorded when
    differentiating twice);   ∂f/∂g = the gradient read back at ``key``"""

    node_name = "IndexPutBackward0"
    formula = r"f(g) = 0 \text{ with } g \text{ added at key} \qquad \frac{\partial \ell}{\partial g} = G[\text{key}]"

    @staticmethod
    def forward(ctx, grad, key, shape):
        ctx.key = key
        return scatter_into_zeros(grad, key, shape)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output[ctx.key], None, None

    @classmethod
    def record(cls, grad: Tensor, key, shape) -> Tensor:
        return cls.apply(grad, key, shape)


class IndexPutValues(Linear):
    """f(x, v) = x with v written at ``key`` (``x[key] = v`` and ``index_put_`` with
    index tensors), or added there with ``accumulate``;   ∂ℓ/∂x = G with zeros at
    key (G itself when accumulating: nothing of x is overwritten), ∂ℓ/∂v = G read
    at key (summed over the places a broadcast v filled: the engine sums it to v's
    shape; a repeated index gives each of its values the same G there)"""

    node_name = "IndexPutBackward0"
    formula = r"f(x, v) = x \text{ with } v \text{ at key} \qquad \frac{\partial \ell}{\partial x} = G \text{ with } 0 \text{ at key}, \quad \frac{\partial \ell}{\partial v} = G[\text{key}]"

    @staticmethod
    def forward(ctx, x, values, key, accumulate):
        _save_index_arrays(ctx, key)
        ctx.key, ctx.accumulate = key, accumulate
        out = x.copy()
        put_values(out, key, values, accumulate)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        grad_values = grad_output[ctx.key]
        if ctx.accumulate:
            return grad_output, grad_values, None, None
        return _zeros_at(grad_output, ctx.key), grad_values, None, None


def _save_index_arrays(ctx, key) -> None:
    """Save the index arrays of an advanced ``key``, as PyTorch's IndexBackward0 and
    IndexPutBackward0 save their index tensors: a second backward pass through a
    freed graph then fails there (its ``ctx.saved_tensors``) as it does in PyTorch."""
    parts = key if isinstance(key, tuple) else (key,)
    ctx.save_for_backward(*[p for p in parts if isinstance(p, np.ndarray)])


def put_values(data: np.ndarray, key, values, accumulate: bool) -> None:
    """Write (or, with ``accumulate``, add: a repeated index adds every value)
    ``values`` into ``data`` at the advanced index ``key``."""
    if not accumulate:
        data[key] = values
        return
    parts = key if isinstance(key, tuple) else (key,)
    # np.add.at takes integer index arrays; a mask is its nonzero() positions.
    integer_parts: list = []
    for p in parts:
        if isinstance(p, np.ndarray) and p.dtype.kind == "b":
            integer_parts.extend(np.nonzero(p))
        else:
            integer_parts.append(p)
    np.add.at(data, tuple(integer_parts), values)


def _zeros_at(grad, key):
    """``grad`` with zeros at ``key`` (recorded when ``grad`` is a tensor)."""
    if isinstance(grad, Tensor):
        zero = Tensor._make(np.zeros((), grad._data.dtype))
        return IndexPutValues.apply(grad, zero, key, False)
    out = grad.copy()
    out[key] = 0
    return out


def put(input: Tensor, key, values: Tensor, accumulate: bool = False) -> Tensor:
    """Out of place ``input[key] = values`` for an advanced ``key`` in NumPy's form
    (index arrays, and ``:`` for dimensions not indexed): what the in-place forms
    record. ``values`` must have ``input``'s dtype and broadcast to the shape of
    ``input[key]``."""
    check_put_values(input._data, key, values._data)
    return IndexPutValues.apply(input, values, key, accumulate)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` written (``accumulate``: added) at ``indices``, a
    tuple of integer or bool tensors, one per leading dimension; ``input`` itself
    is unchanged (``Tensor.index_put_`` is the in-place form)."""
    key = index_tensors(input, indices, values, "index_put")
    return put(input, key, values, accumulate)


def index_tensors(input: Tensor, indices, values, name: str) -> tuple:
    """``index_put``'s tuple of index tensors as an advanced index in NumPy's form,
    with PyTorch's errors for arguments it refuses."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
            f"{type(indices).__name__}"
        )
    if not isinstance(values, Tensor):
        raise TypeError(
            f"{name}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}"
        )
    for i, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(index).__name__}"
            )
    normalized = normalize_key(tuple(indices))
    key = normalized if isinstance(normalized, tuple) else (normalized,)
    ndim = input._data.ndim
    used = builtins.sum(p.ndim if p.dtype.kind == "b" else 1 for p in key)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {used})")
    return key


def check_put_values(data: np.ndarray, key, values: np.ndarray) -> None:
    """PyTorch's errors, in its order, for values that ``index_put_`` cannot write
    into ``data[key]`` (a mask that does not fit, values that do not broadcast, a
    dtype that differs, an index out of bounds)."""
    check_masks(data, key)
    # The shape of data[key], found with every index 0, as PyTorch checks it before
    # the indices' bounds.
    zeroed = tuple(
        np.zeros_like(p) if isinstance(p, np.ndarray) and p.dtype.kind != "b" else p for p in key
    )
    try:
        target = data[zeroed].shape
    except IndexError:  # an indexed dimension of size 0 has no element 0
        check_advanced(data, list(key))  # PyTorch's words for it, which it gives first
        raise
    try:
        fits = np.broadcast_shapes(values.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast "
            f"to indexing result of shape {list(target)}"
        )
    if values.dtype != data.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(data.dtype)} for the destination and "
            f"{scalar_type_name(values.dtype)} for the source."
        )
    check_advanced(data, list(key))  # the indices' bounds


def split_for_put(input: Tensor, key) -> tuple[Tensor, tuple | None]:
    """``input[key] = v`` with index tensors in ``key``, the way PyTorch does it:
    the view that key's integers, slices and None make (``input`` itself if they
    select everything) and the advanced index that ``index_put_`` then applies to
    that view (None when key had only 0-d integer tensors: a basic assignment)."""
    basic, advanced = _split_advanced(key, input._data.ndim)
    view = _basic_getitem(input, tuple(basic), skip_whole=True)
    if not builtins.any(isinstance(p, np.ndarray) for p in advanced):
        return view, None
    return view, tuple(advanced)


class SelectBackwardBackward(IndexPut):
    """The backward of ``x[i]`` (an integer index), recorded when differentiating
    twice: zeros with g at i;   ∂f/∂g = the gradient read back at i"""

    node_name = "SelectBackwardBackward0"


class SliceBackwardBackward(IndexPut):
    """The backward of ``x[a:b]``, recorded when differentiating twice: zeros with
    g in the slice;   ∂f/∂g = the gradient's slice"""

    node_name = "SliceBackwardBackward0"


class IndexPutImpl(Linear):
    """The backward of advanced indexing ``x[indices]``, recorded when
    differentiating twice: zeros with g added at the indices;   ∂f/∂g = the
    gradient read back at them"""

    node_name = "IndexPutImplBackward0"
    formula = r"f(0, g) = 0 \text{ with } g \text{ added at the indices} \qquad \frac{\partial \ell}{\partial g} = G[\text{indices}]"

    @staticmethod
    def forward(ctx, zeros, grad, key, shape):
        ctx.key = key
        return scatter_into_zeros(grad, key, shape)

    @staticmethod
    def backward(ctx, grad_output):
        return None, grad_output[ctx.key], None, None

    @classmethod
    def record(cls, grad: Tensor, key, shape) -> Tensor:
        # PyTorch puts the values into a tensor of zeros, its first input (no
        # gradient: a (None, 0) edge); here a placeholder stands for it.
        return cls.apply(Tensor._make(np.zeros(0, dtype=grad._data.dtype)), grad, key, shape)


class Select(Linear):
    """f(x) = x[..., i, ...] (an integer index);   ∂: the gradient scattered back at i"""

    node_name = "SelectBackward0"
    # What its backward records when differentiating twice, as PyTorch names it.
    recorded_backward: Any = SelectBackwardBackward
    formula = r"f(x) = x[\text{index}] \qquad \frac{\partial \ell}{\partial x} = 0 \text{ with } G \text{ added at index}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, key):
        ctx.key, ctx.shape = key, x.shape
        # The trailing ... makes NumPy give a 0-d view, not a copied scalar, when
        # the integers pick a single element: x[0] shares x's memory.
        return x[key + (Ellipsis,)]

    @staticmethod
    def backward(ctx, grad_output):
        recorded = ctx._function.recorded_backward
        return scatter_into_zeros(grad_output, ctx.key, ctx.shape, recorded), None


class Slice(Select):
    """f(x) = x[..., a:b:c, ...];   ∂: the gradient scattered back into the slice"""

    node_name = "SliceBackward0"
    recorded_backward = SliceBackwardBackward


class Alias(Select):
    """f(x) = x (``x[...]``, ``x[()]``): the whole tensor, indexed by nothing;
    ∂f/∂x = 1"""

    node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx, x, key):
        ctx.key, ctx.shape = key, x.shape
        return x[...]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None  # the whole tensor: the gradient as it is


class Index(Select):
    """f(x) = x[indices] with integer or boolean tensors (advanced indexing);
    ∂: the gradient added back at each index (repeats accumulate)"""

    node_name = "IndexBackward0"
    creates_view = False  # advanced indexing copies
    recorded_backward = IndexPutImpl

    @staticmethod
    def forward(ctx, x, key):
        _save_index_arrays(ctx, key)
        ctx.key, ctx.shape = key, x.shape
        return x[key]

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        return Select.backward(ctx, grad_output)


class Stack(Linear):
    """f(x₁, …, xₙ) = the xᵢ stacked along a new dimension;   ∂f/∂xᵢ = slice i of
    the gradient"""

    node_name = "StackBackward0"
    formula = r"f(x_1, \dots, x_n) = \operatorname{stack}(x_1, \dots, x_n) \qquad \frac{\partial \ell}{\partial x_i} = G[i]"

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        return np.stack(xs, axis=dim, dtype=common_dtype(xs))

    @staticmethod
    def backward(ctx, grad_output):
        before = (slice(None),) * ctx.dim
        count = grad_output.shape[ctx.dim]
        return (None,) + tuple(grad_output[before + (i,)] for i in range(count))


class Cat(Linear):
    """f(x₁, …, xₙ) = the xᵢ joined along ``dim``;   ∂f/∂xᵢ = xᵢ's part of the
    gradient"""

    node_name = "CatBackward0"
    formula = r"f(x_1, \dots, x_n) = \operatorname{cat}(x_1, \dots, x_n) \qquad \frac{\partial \ell}{\partial x_i} = x_i\text{'s part of } G"

    @staticmethod
    def forward(ctx, dim, *xs):
        ctx.dim = dim
        # A 1-d empty tensor beside others (torch.tensor([]), the usual start of an
        # ``out = torch.cat([out, x])`` loop) is left out, as PyTorch leaves it; its
        # dtype still counts, and its gradient is empty.
        ctx.left_out = [_left_out_of_cat(x, xs) for x in xs]
        joined = [x for x, out in zip(xs, ctx.left_out) if not out]
        ctx.sizes = [x.shape[dim] for x in joined]
        return np.concatenate(joined, axis=dim, dtype=common_dtype(xs))

    @staticmethod
    def backward(ctx, grad_output):
        before = (slice(None),) * ctx.dim
        grads, start = [None], 0
        sizes = iter(ctx.sizes)
        for left_out in ctx.left_out:
            if left_out:
                grads.append(_empty_gradient(grad_output))
                continue
            size = next(sizes)
            grads.append(grad_output[before + (slice(start, start + size),)])
            start += size
        return tuple(grads)


def _empty_gradient(grad):
    """The gradient of a tensor ``cat`` left out: empty, as it is, and a constant
    under create_graph (as PyTorch's)."""
    if isinstance(grad, Tensor):
        return Tensor._make(np.zeros(0, dtype=grad._data.dtype))
    return np.zeros(0, dtype=grad.dtype)


def _left_out_of_cat(x: np.ndarray, xs: tuple) -> bool:
    """Whether ``cat`` leaves ``x`` out: a 1-d empty array among arrays that are not
    all such (PyTorch's legacy rule for ``torch.tensor([])``)."""
    return x.shape == (0,) and any(other.shape != (0,) for other in xs)


# -- public functions -----------------------------------------------------------------


def _can_view(data: np.ndarray, shape: tuple) -> bool:
    """Can ``data``'s memory be read in ``shape`` without copying? Always for a
    contiguous tensor; for others (a transpose, a strided slice) NumPy's rule is
    PyTorch's (no dimension of the new shape may span two strided runs)."""
    if data.flags.c_contiguous:
        return True
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    return True


def reshape(input: Tensor, *shape) -> Tensor:
    """The same elements in a new shape (one dimension may be -1: inferred): a
    view when the memory allows it, else a copy, recorded as PyTorch records them
    (ViewBackward0; ReshapeAliasBackward0 for a view of a non-contiguous tensor;
    CloneBackward0 then UnsafeViewBackward0 for a copy)."""
    data = input._data
    shape = _infer_shape(_shape_arg(shape), data.size)
    if data.flags.c_contiguous:
        return View.apply(input, shape)
    if _can_view(data, shape):
        return ReshapeAlias.apply(input, shape)
    return UnsafeView.apply(Clone.apply(input, "C"), shape)


def view(input: Tensor, *shape) -> Tensor:
    """The same memory read in a new shape; PyTorch's error when the tensor's
    layout does not allow it (use :func:`reshape` then)."""
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    if not _can_view(input._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return View.apply(input, shape)


def contiguous(input: Tensor) -> Tensor:
    """``input`` itself when its elements are in row-major order in memory, else a
    row-major copy (CloneBackward0)."""
    if input._data.flags.c_contiguous:
        return input
    return Clone.apply(input, "C")


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view of ``length`` elements along ``dim`` from ``start`` (SliceBackward0).
    Its refusals come in PyTorch's order: a 0-d tensor, the dimension, a negative
    length, a start outside ``[-size, size]``, then an end past the size."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, input.ndim)
    size = input._data.shape[dim]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(input, (slice(None),) * dim + (slice(start, start + length),))


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The view at ``index`` along ``dim``, that dimension removed (SelectBackward0)."""
    dim = _wrap_dim(dim, input.ndim)
    size = input._data.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} "
            f"at dimension {dim}"
        )
    return Select.apply(input, (slice(None),) * dim + (int(index),))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` … ``end_dim`` into one."""
    shape = input._data.shape
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if not shape:
        return reshape(input, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = int(np.prod(shape[start : end + 1]))
    return reshape(input, *shape[:start], merged, *shape[end + 1 :])


def t(input: Tensor) -> Tensor:
    """Transpose of a matrix (0-d and 1-d tensors are returned as they are)."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return T.apply(input)


def numpy_T(input: Tensor) -> Tensor:
    """``x.T``: all dimensions reversed (PyTorch records a permute). Its warnings, as
    those of ``mT``/``mH``/``H``, are given once per process, as PyTorch's."""
    if input.ndim == 0:
        warn_once(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            stacklevel=3,
        )
    elif input.ndim != 2:
        warn_once(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            stacklevel=3,
        )
    return Permute.apply(input, tuple(range(input.ndim - 1, -1, -1)))


def matrix_transpose(input: Tensor, name: str = "mT") -> Tensor:
    """``x.mT`` (and ``x.mH``, the same for real tensors): the last two dimensions
    swapped, for a matrix or a batch of them. A 0-d tensor is returned as it is, with
    PyTorch's deprecation warning; a 1-d one is refused."""
    if input.ndim == 0:
        advice = (
            "This function is the identity in these cases."
            if name == "mT"
            else "Consider using x.conj()."
        )
        warn_once(f"Tensor.{name} is deprecated on 0-D tensors. {advice}", stacklevel=3)
        return input
    if input.ndim == 1:
        raise RuntimeError(
            f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return Transpose.apply(input, input.ndim - 2, input.ndim - 1)


def adjoint(input: Tensor) -> Tensor:
    """``x.H``: the transpose of a matrix (its conjugate transpose; autogradkit's tensors
    are real). Only for 2-d tensors, as in PyTorch; a 0-d one is returned as it is, with
    PyTorch's deprecation warning."""
    if input.ndim == 0:
        warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", stacklevel=3)
        return input
    if input.ndim != 2:
        batches = " For batches of matrices, consider using tensor.mH" if input.ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {input.ndim}-D tensor.{batches}"
        )
    return Transpose.apply(input, 0, 1)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    ndim = input.ndim
    return Transpose.apply(input, _wrap_dim(dim0, ndim), _wrap_dim(dim1, ndim))


def permute(input: Tensor, *dims) -> Tensor:
    """Reorder the dimensions."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = _shape_arg(dims)
    if len(dims) != input.ndim:  # (checked before the dims are: PyTorch's order)
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    if sorted(dims) != list(range(input.ndim)):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at ``dim``."""
    return Unsqueeze.apply(input, _wrap_dim(dim, input.ndim + 1))


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dimensions (all of them, or only ``dim`` if it has size 1)."""
    shape = input._data.shape
    if dim is None:
        return Squeeze.apply(input, tuple(i for i, n in enumerate(shape) if n == 1))
    function = SqueezeDims if isinstance(dim, (tuple, list)) else SqueezeDim
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = tuple(_wrap_dim(d, len(shape)) for d in dims)
    return function.apply(input, tuple(d for d in dims if shape and shape[d] == 1))


def expand(input: Tensor, *sizes) -> Tensor:
    """A view repeated along size-1 dimensions (-1 keeps a size)."""
    sizes = _shape_arg(sizes)
    return Expand.apply(input, expanded_shape(input._data, sizes))


def repeat(input: Tensor, *repeats) -> Tensor:
    """``input`` tiled ``repeats[d]`` times along each dimension d; extra leading
    entries add leading dimensions (``torch.ones(2).repeat(3, 1)`` is 3 × 2). A copy,
    not a view (``expand`` repeats without copying).

    >>> import autogradkit as torch
    >>> torch.tensor([1.0, 2.0]).repeat(2, 2)
    tensor([[1., 2., 1., 2.],
            [1., 2., 1., 2.]])
    """
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = _shape_arg(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of "
            "dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - input.ndim) + tuple(input.shape)
    sizes = [r * n for r, n in zip(repeats, padded)]
    for size in sizes:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {sizes}")
    return Repeat.apply(input, repeats)


def expanded_shape(data: np.ndarray, sizes: tuple) -> tuple[int, ...]:
    """The shape ``expand(*sizes)`` gives an array ``data`` of, with PyTorch's
    refusals of sizes it cannot be expanded to."""
    shape = data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.{scalar_type_name(data.dtype)}Tensor{{{list(shape)}}}, "
            f"size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shape)})"
        )
    offset = len(sizes) - len(shape)
    target = tuple(shape[i - offset] if n == -1 else n for i, n in enumerate(sizes))
    for i, n in reversed(list(enumerate(shape))):  # PyTorch reports the last misfit
        if n != 1 and n != target[i + offset]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i + offset]}) must match the existing "
                f"size ({n}) at non-singleton dimension {i + offset}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shape)}"
            )
    return target


def clone(input: Tensor) -> Tensor:
    """A copy that is still connected to the graph."""
    return Clone.apply(input)


def to_dtype(input: Tensor, dtype: DType) -> Tensor:
    """``input`` converted to ``dtype`` (differentiable between float dtypes)."""
    if input._requires_grad and not dtype.is_floating_point:
        return Tensor._make(input._data.astype(dtype.numpy))
    return ToCopy.apply(input, dtype.numpy)


def is_basic(key) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or isinstance(p, (int, np.integer, slice)) for p in parts)


def normalize_key(key):
    """Turn tensors inside an index into arrays; reject what PyTorch rejects."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list = []
    for p in parts:
        if isinstance(p, (bool, np.bool_)) or (
            isinstance(p, Tensor) and p._data.dtype == np.bool_ and p.ndim == 0
        ):
            # x[True] is x with a new dimension of size 1 (x[False]: size 0), as in
            # PyTorch: a 0-d mask (_split_advanced unsqueezes, then indexes).
            out.append(np.asarray(bool(p)))
        elif isinstance(p, Tensor):
            if p._data.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(p._data)
        elif isinstance(p, (list, np.ndarray)):
            array = np.asarray(p)
            if array.size == 0 and isinstance(p, list):
                array = array.astype(np.int64)  # x[[]] selects nothing (PyTorch: a long index)
            if array.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(array)
        elif p is None or p is Ellipsis or isinstance(p, (int, np.integer, slice, bool)):
            out.append(p)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(p).__name__})"
            )
    return tuple(out) if isinstance(key, tuple) or len(out) != 1 else out[0]


def check_advanced(data: np.ndarray, advanced: list) -> None:
    """PyTorch's errors for index tensors that do not fit ``data``."""
    check_masks(data, advanced)
    try:
        data[tuple(advanced)]
    except IndexError as error:
        raise IndexError(_out_of_bounds_message(str(error), advanced)) from None


def _out_of_bounds_message(numpy_message: str, advanced: list) -> str:
    """PyTorch's words for NumPy's "index 9 is out of bounds for axis 2 with size
    4": PyTorch counts the dimension among the index tensors only (``x[:, :, [9]]``
    is "dimension 0"; a mask counts one per dimension it covers), and names neither
    index nor dimension when the size is 0."""
    shapes = re.fullmatch(
        r"shape mismatch: indexing arrays could not be broadcast together with shapes (.*)",
        numpy_message.strip(),
    )
    if shapes is not None:  # NumPy's "(2,) (0,)" in PyTorch's "[2], [0]"
        listed = ", ".join(
            "[" + ", ".join(re.findall(r"\d+", shape)) + "]"
            for shape in re.findall(r"\([^)]*\)", shapes[1])
        )
        return (
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        )
    match = re.fullmatch(
        r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", numpy_message
    )
    if match is None:
        return numpy_message.replace("axis", "dimension")
    index, axis, size = match[1], int(match[2]), match[3]
    if size == "0":
        return "index is out of bounds for dimension with size 0"
    return f"index {index} is out of bounds for dimension {_index_tensor_number(advanced, axis)} with size {size}"


def _index_tensor_number(advanced: list, axis: int) -> int:
    """Which of the index tensors (counting each dimension of a mask) indexes
    ``axis`` of the array."""
    tensors_before, axes_before = 0, 0
    for part in advanced:
        if not isinstance(part, np.ndarray):  # a slice: an axis, but not an index tensor
            axes_before += 1
            continue
        covered = part.ndim if part.dtype.kind == "b" else 1
        if axis < axes_before + covered:
            return tensors_before + axis - axes_before
        tensors_before += covered
        axes_before += covered
    return axis


def check_masks(data: np.ndarray, advanced) -> None:
    """PyTorch's error for a bool mask whose shape is not that of the dimensions it
    indexes."""
    dim = 0
    for p in advanced:
        if isinstance(p, np.ndarray) and p.dtype.kind == "b":
            for k, n in enumerate(p.shape):
                if dim + k >= data.ndim or data.shape[dim + k] != n:
                    raise IndexError(
                        f"The shape of the mask {list(p.shape)} at index {k} does not match the "
                        f"shape of the indexed tensor {list(data.shape)} at index {dim + k}"
                    )
            dim += p.ndim
        else:
            dim += 1


def _split_advanced(key, ndim: int) -> tuple[list, list]:
    """Split an index with index arrays into the basic index PyTorch applies first
    and the advanced index it applies to the result."""
    parts = key if isinstance(key, tuple) else (key,)
    # A 0-d integer tensor indexes like an int (x[torch.tensor(1)] is a select).
    parts = tuple(
        int(p) if isinstance(p, np.ndarray) and p.ndim == 0 and p.dtype.kind in "iu" else p
        for p in parts
    )
    consumed = builtins.sum(
        p.ndim if isinstance(p, np.ndarray) and p.dtype.kind == "b" else 1
        for p in parts
        if p is not None and p is not Ellipsis
    )
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    # Each ``...`` skips the dimensions no other part names (see _basic_parts): with
    # several, the index tensors may land past the last dimension.
    fill = (slice(None),) * (ndim - consumed)
    ellipses = builtins.sum(1 for p in parts if p is Ellipsis)
    if ellipses > 1 and consumed + ellipses * len(fill) > ndim:
        reach = consumed + ellipses * len(fill)
        raise IndexError(f"too many indices for tensor of dimension {ndim} (got {reach})")
    parts = tuple(q for p in parts for q in (fill if p is Ellipsis else (p,)))
    basic: list[Any] = []
    advanced: list[Any] = []
    for p in parts:
        if isinstance(p, np.ndarray) and p.ndim == 0 and p.dtype.kind == "b":
            # x[True]: a new dimension (Unsqueeze), indexed by the mask [True].
            basic.append(None)
            advanced.append(p.reshape(1))
        elif isinstance(p, np.ndarray):
            basic.extend([slice(None)] * (p.ndim if p.dtype.kind == "b" else 1))
            advanced.append(p)
        elif p is None or isinstance(p, slice):
            basic.append(p)
            advanced.append(slice(None))
        else:  # an integer: its dimension is gone after the select
            basic.append(p)
    return basic, advanced


def getitem(input: Tensor, key) -> Tensor:
    """``input[key]``, recorded the way PyTorch records it: an integer is a
    ``SelectBackward0``, a slice a ``SliceBackward0``, ``None`` an unsqueeze, and
    tensors or lists of indices one ``IndexBackward0``."""
    key = normalize_key(key)
    if not is_basic(key):
        return _advanced_getitem(input, key)
    # A lone slice is always recorded (x[0:2] of 2 rows is a SliceBackward0).
    result = _basic_getitem(input, key, skip_whole=not isinstance(key, slice))
    if result is input:
        # A bare x[:] is a slice of the whole tensor; any other index that selects
        # everything (x[...], x[()], x[:, :]; also on 0-d tensors) is recorded by
        # PyTorch as an alias.
        if isinstance(key, slice):
            return Slice.apply(input, (slice(None),))
        return Alias.apply(input, Ellipsis)
    return result


def _basic_getitem(input: Tensor, key, skip_whole: bool) -> Tensor:
    """A basic index applied one dimension at a time, as PyTorch does, so the graph
    shows one node per index that does something: ``input`` itself when none does.
    ``skip_whole``: a slice that takes a whole dimension does nothing (PyTorch's
    rule within a tuple, x[:, 0:3] of 3 columns, and for every assignment)."""
    parts = _basic_parts(key, input._data.ndim)
    result, dim = input, 0
    for position, part in enumerate(parts):
        whole = skip_whole and isinstance(part, slice) and dim < result._data.ndim
        if whole and _takes_all(part, result._data.shape[dim]):
            dim += 1
            continue
        result, dim = _index_one_dimension(result, part, dim, position)
    return result


def assigned_view(input: Tensor, key) -> Tensor:
    """The view that ``input[key] = v`` writes into (``key`` basic), as PyTorch's
    assignment makes it: ``input`` itself when key takes everything (x[:], x[...],
    x[0:2] of 2 rows), so the write is recorded as a copy_ or fill_ of it."""
    return _basic_getitem(input, normalize_key(key), skip_whole=True)


def _advanced_getitem(input: Tensor, key) -> Tensor:
    """PyTorch applies the integers, slices and None first (Select/Slice/Unsqueeze
    nodes), then one IndexBackward0 for the index tensors on what is left. So
    x[0, [0, 2]] is IndexBackward0(SelectBackward0(...)), and x[0, :, [0, 1]] has
    shape (n1, 2), where NumPy's rules would give (2, n1)."""
    basic, advanced = _split_advanced(key, input._data.ndim)
    if not builtins.any(isinstance(p, np.ndarray) for p in advanced):
        return getitem(input, tuple(basic))  # only 0-d integer tensors: selects
    input = _basic_getitem(input, tuple(basic), skip_whole=True)
    check_advanced(input._data, advanced)
    return Index.apply(input, tuple(advanced))


def _basic_parts(key, ndim: int) -> tuple:
    """The parts of a basic index, checked, with ``...`` spelled out as slices."""
    parts = key if isinstance(key, tuple) else (key,)
    specified = builtins.sum(1 for p in parts if p is not None and p is not Ellipsis)
    if ndim == 0 and isinstance(key, (int, np.integer)):
        # PyTorch's wording for a lone integer (in a tuple it is one index too many).
        if key == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
    if ndim == 0 and isinstance(key, slice):
        if key.step is not None and key.step < 0:  # (PyTorch looks at the step first)
            raise ValueError("step must be greater than zero")
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    # Each ``...`` stands for the dimensions no other part names (PyTorch lets a key
    # have several; each one skips that many, so the later ones may point past the
    # last dimension, where only ``:`` and None are accepted).
    fill = (slice(None),) * (ndim - specified)
    return tuple(q for p in parts for q in (fill if p is Ellipsis else (p,)))


def _takes_all(part: slice, size: int) -> bool:
    """Whether a slice takes a whole dimension as written: from 0 (or no start),
    step 1, to the size or beyond (PyTorch does not wrap a negative start first)."""
    return (
        part.start in (None, 0)
        and part.step in (None, 1)
        and (part.stop is None or part.stop >= size)
    )


def _index_one_dimension(result: Tensor, part, dim: int, position: int) -> tuple[Tensor, int]:
    """Apply one part of a basic index at dimension ``dim``: the new result and the
    dimension the next part applies to."""
    if part is None:
        _wrap_dim(dim, result._data.ndim + 1)  # past the last dimension (a second ...)
        return Unsqueeze.apply(result, dim), dim + 1
    if isinstance(part, slice):
        if part == slice(None):
            return result, dim + 1
        if part.step == 0:
            raise ValueError("slice step cannot be zero")
        if part.step is not None and part.step < 0:
            raise ValueError("step must be greater than zero")
        _wrap_dim(dim, result._data.ndim)  # past the last dimension (a second ...)
        return Slice.apply(result, (slice(None),) * dim + (part,)), dim + 1
    size = result._data.shape[dim] if dim < result._data.ndim else 0
    if not -size <= part < size:
        # PyTorch counts the dimension by the index's position (None included).
        raise IndexError(f"index {part} is out of bounds for dimension {position} with size {size}")
    return Select.apply(result, (slice(None),) * dim + (int(part),)), dim


def _tensors_arg(tensors, name: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' must be a tuple or list of Tensors, "
            f"not {type(tensors).__name__}"
        )
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors")
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(
                f"{name}(): expected Tensor as element {i} in argument 0, but got "
                f"{type(t_).__name__}"
            )
    return list(tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors of equal shape along a new dimension ``dim``."""
    tensors = _tensors_arg(tensors, "stack")
    first = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        if t_._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                f"and {list(t_._data.shape)} at entry {i}"
            )
    return Stack.apply(_wrap_dim(dim, len(first) + 1), *tensors)


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension ``dim``. A 1-d empty tensor
    (``torch.tensor([])``) beside others is left out, as in PyTorch."""
    tensors = _tensors_arg(tensors, "cat")
    for i, t_ in enumerate(tensors):
        if t_.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    arrays = tuple(t_._data for t_ in tensors)
    joined = [(i, t_) for i, t_ in enumerate(tensors) if not _left_out_of_cat(t_._data, arrays)]
    ndim = joined[0][1].ndim
    ref = joined[0][1]._data.shape
    # (Only 1-d empty tensors: any dim will do, as in PyTorch; they join along 0.)
    dim = _wrap_dim(dim, ndim) if ref != (0,) else 0
    for i, t_ in joined:
        shape = t_._data.shape
        if len(shape) != ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ndim} and {len(shape)}"
            )
        for d in range(ndim):
            if d != dim and shape[d] != ref[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{ref[d]} but got size {shape[d]} for tensor number {i} in the list."
                )
    return Cat.apply(dim, *tensors)


class _Primal(Linear):
    """f(x) = x: the primal of a dual tensor, as :func:`~autogradkit.autograd.forward_ad.unpack_dual`
    returns it (a view without the tangent);   ∂f/∂x = 1"""

    node_name = "Identity"
    formula = r"f(x) = x \qquad \frac{\partial f}{\partial x} = 1"
    creates_view = True

    @staticmethod
    def forward(ctx, x):
        return x.view()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def _identity_name(node) -> str:
    # PyTorch's C++ node class: torch::autograd::Identity.
    return "autogradkit::autograd::Identity"


_Primal._node_class.name = _identity_name  # type: ignore[method-assign,assignment]


def primal_view(x: Tensor) -> Tensor:
    """The primal of a dual tensor: a view of its values (``grad_fn`` Identity when
    it requires grad)."""
    return _Primal.apply(x)
