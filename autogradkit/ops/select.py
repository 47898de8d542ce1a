"""Choosing elements: ``where`` (defined in :mod:`.where`, beside the ``select``
helper backward formulas share) and ``gather`` (differentiable: the gradient goes
back to the element that was chosen), its opposite ``scatter`` (and
``scatter_add``, which adds where ``scatter`` overwrites), and the tests and positions that are
never differentiated: ``argmin``, ``all``, ``any``, ``equal``, ``nonzero``,
``argwhere``.
"""

from __future__ import annotations

import builtins

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
    "scatter",
    "scatter_add",
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
    axis = _wrap_dim(dim, input.ndim) if input.ndim else 0
    _check_gather_index(input, axis, index._data)
    return Gather.apply(input, axis, index._data)


def _check_gather_index(input: Tensor, axis: int, index: np.ndarray) -> None:
    """PyTorch's checks of gather's index, in its order and words: no larger than
    the input apart from ``axis``, then every position inside the input (a negative
    one is refused, not counted from the end as NumPy would)."""
    for d, (n, m) in enumerate(zip(index.shape, input.shape)):
        if d != axis and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index.shape)} "
                f"to be no larger than self {list(input.shape)} apart from dimension {axis}"
            )
    size = input.shape[axis] if input.ndim else 1
    outside = (index < 0) | (index >= size)
    if outside.any():
        bad = int(index[outside].reshape(-1)[0])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {axis} with size {size}")


def _within(index: np.ndarray) -> tuple:
    """The part of ``src`` that scatter reads: the corner of index's shape."""
    return tuple(slice(0, n) for n in index.shape)


def _as_index_tensor(index: np.ndarray) -> Tensor:
    return Tensor._make(index)


class Scatter(Linear):
    """f(x, src) = x with src[i, j] written at x[index[i, j], j] (for dim = 0);
    ∂ℓ/∂x = the gradient with 0 where an element was overwritten,
    ∂ℓ/∂src = the gradient read at the places written (``gather``)"""

    node_name = "ScatterBackward0"
    formula = r"f(x, s)_{\text{index}_{ij},\,j} = s_{ij} \qquad \frac{\partial \ell}{\partial x} = G \text{ (0 where written)}, \quad \frac{\partial \ell}{\partial s_{ij}} = G_{\text{index}_{ij},\,j}"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, np.shape(src)
        ctx.save_for_backward(index)  # as PyTorch: a freed graph refuses a second pass
        out = x.copy()
        # Where an index repeats, the last write along dim wins, as in PyTorch's loop.
        out[_gather_key(index, dim)] = src[_within(index)]
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _gathered(ctx, grad_output, "ScatterBackward0")
        return _written_over(ctx, grad_output), None, None, grad_src


def _written_over(ctx, grad_output):
    """The gradient with 0 where scatter wrote (those elements of x were lost):
    ``grad.scatter(dim, index, 0)``, recorded as such when differentiating twice."""
    if isinstance(grad_output, Tensor):
        return scatter(grad_output, ctx.dim, _as_index_tensor(ctx.index), 0)
    return ScatterValue.forward(None, grad_output, ctx.dim, ctx.index, 0)


def _gathered(ctx, grad_output, node_name: str):
    """The gradient read where scatter wrote: ``grad.gather(dim, index)``. PyTorch
    gives it index's shape, so a ``src`` larger than ``index`` is refused then."""
    if ctx.index.shape != ctx.src_shape:
        raise RuntimeError(
            f"Function {node_name} returned an invalid gradient at index 1 - got "
            f"{list(ctx.index.shape)} but expected shape compatible with {list(ctx.src_shape)}"
        )
    if isinstance(grad_output, Tensor):
        return gather(grad_output, ctx.dim, _as_index_tensor(ctx.index))
    return grad_output[_gather_key(ctx.index, ctx.dim)]


class ScatterValue(Linear):
    """f(x) = x with the number ``value`` written at x[index[i, j], j] (dim = 0);
    ∂ℓ/∂x = the gradient with 0 where an element was overwritten"""

    node_name = "ScatterBackward1"
    formula = r"f(x)_{\text{index}_{ij},\,j} = v \qquad \frac{\partial \ell}{\partial x} = G \text{ (0 where written)}"

    @staticmethod
    def forward(ctx, x, dim, index, value):
        if ctx is not None:
            ctx.dim, ctx.index = dim, index
        out = x.copy()
        out[_gather_key(index, dim)] = value
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return _written_over(ctx, grad_output), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_constants):
        # Linear in x, but value is no tangent: the written places have tangent 0.
        dim, index = ctx.primals[1], ctx.primals[2]
        return ScatterValue.forward(None, tangent, dim, index, 0)


class ScatterAdd(Linear):
    """f(x, src) = x with src[i, j] added to x[index[i, j], j] (dim = 0; repeats
    add up);   ∂ℓ/∂x = the gradient,   ∂ℓ/∂src = the gradient read at the places
    added to (``gather``)"""

    node_name = "ScatterAddBackward0"
    formula = r"f(x, s)_{kj} = x_{kj} + \textstyle\sum_{i:\,\text{index}_{ij} = k} s_{ij} \qquad \frac{\partial \ell}{\partial x} = G, \quad \frac{\partial \ell}{\partial s_{ij}} = G_{\text{index}_{ij},\,j}"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, np.shape(src)
        ctx.save_for_backward(index)
        out = x.copy()
        np.add.at(out, _gather_key(index, dim), src[_within(index)])
        return out

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _gathered(ctx, grad_output, "ScatterAddBackward0")
        return grad_output, None, None, grad_src


def _scatter_index(input: Tensor, dim: int, index, src) -> tuple[int, np.ndarray]:
    """``dim`` wrapped and ``index`` as an int64 array, checked as PyTorch checks
    them (dtype, dimensions, sizes, bounds), in its words."""
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    axis = _wrap_dim(dim, input.ndim) if input.ndim else 0
    data = index._data.astype(np.int64)
    if data.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor) and src.ndim != data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    too_large = builtins.any(
        n > m for d, (n, m) in enumerate(zip(data.shape, input.shape)) if d != axis
    )
    message = (
        f"Expected index {list(data.shape)} to be no larger than self {list(input.shape)} "
        f"apart from dimension {axis}"
    )
    if isinstance(src, Tensor):
        too_large = too_large or builtins.any(n > m for n, m in zip(data.shape, src.shape))
        message += f" and to be no larger size than src {list(src.shape)}"
    if too_large:
        raise RuntimeError(message)
    size = input.shape[axis] if input.ndim else 1
    outside = (data < 0) | (data >= size)
    if outside.any():
        bad = int(data[outside].reshape(-1)[0])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {axis} with size {size}")
    return axis, data


def _scatter_src(name: str, input: Tensor, src) -> None:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"{name}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None) -> Tensor:
    """``input`` with the elements of ``src`` (a tensor) or the number ``value``
    written along ``dim`` at the positions ``index`` holds: for dim = 0,
    ``out[index[i][j]][j] = src[i][j]``; the opposite of :func:`gather`. Where an
    index repeats, the last write wins. The gradient of ``src`` is the gradient
    read back where its elements went; ``input``'s is 0 where it was overwritten.

    >>> import autogradkit as torch
    >>> torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 1.0)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    if value is not None:
        src = value
    if not isinstance(src, Tensor) and not isinstance(src, (bool, int, float, np.number)):
        raise TypeError(_scatter_signature_error(src))
    if isinstance(src, Tensor):
        _scatter_src("scatter", input, src)
    axis, data = _scatter_index(input, dim, index, src)
    if not isinstance(src, Tensor):
        return ScatterValue.apply(input, axis, data, src)
    return Scatter.apply(input, axis, data, src)


def _scatter_signature_error(src) -> str:
    """PyTorch's TypeError for a scatter whose third argument is missing or is
    neither a tensor nor a number."""
    if src is None:
        got, mismatch = "(int, Tensor)", ""
    else:
        name = type(src).__name__
        got = f"(int, Tensor, {name})"
        mismatch = (
            "      didn't match because some of the arguments have invalid types: "
            f"(int, Tensor, !{name}!)\n"
        )
    return (
        f"scatter() received an invalid combination of arguments - got {got}, but expected "
        f"one of:\n * (int dim, Tensor index, Tensor src)\n{mismatch}"
        " * (int dim, Tensor index, Tensor src, *, str reduce)\n"
        f" * (int dim, Tensor index, Number value)\n{mismatch}"
        " * (int dim, Tensor index, Number value, *, str reduce)\n"
    )


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``input`` with the elements of ``src`` added along ``dim`` at the positions
    ``index`` holds (for dim = 0, ``out[index[i][j]][j] += src[i][j]``; repeats add
    up): counting, histograms, summing messages into graph nodes.

    >>> import autogradkit as torch
    >>> torch.zeros(3).scatter_add(0, torch.tensor([0, 2, 0]), torch.tensor([1.0, 2.0, 3.0]))
    tensor([4., 0., 2.])
    """
    _scatter_src("scatter_add", input, src)
    axis, data = _scatter_index(input, dim, index, src)
    return ScatterAdd.apply(input, axis, data, src)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None), as int64."""
    return arg_extreme("argmin", np.argmin, input, dim, keepdim)


def arg_extreme(name: str, find, input: Tensor, dim, keepdim: bool) -> Tensor:
    """``argmax``/``argmin`` (``find`` is NumPy's): the index as int64, the first of
    ties, with PyTorch's refusals of bool input and of an empty reduction (NumPy's
    would be a ValueError about an empty sequence)."""
    data = input._data
    if data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if data.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        return Tensor._make(np.asarray(find(data), dtype=np.int64))
    axis = _wrap_dim(dim, data.ndim)
    if data.ndim and data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    return Tensor._make(np.asarray(find(data, axis=axis, keepdims=keepdim), dtype=np.int64))


def _logical(reducer, input: Tensor, dim, keepdim: bool) -> Tensor:
    """``all``/``any`` over ``dim``: None for every element, an int, or a tuple of
    ints (an empty tuple reduces nothing, as in PyTorch)."""
    data = input._data.astype(bool)
    if dim is None:
        return Tensor._make(np.asarray(reducer(data)))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(_wrap_dim(d, data.ndim) for d in dims)  # (checked: -1 or 0 for a 0-d one)
    if data.ndim == 0:  # a 0-d tensor's only dimension reduces nothing
        return Tensor._make(np.asarray(data))
    return Tensor._make(np.asarray(reducer(data, axis=axes, keepdims=keepdim)))


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
