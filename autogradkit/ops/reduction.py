"""Reductions: ``sum``, ``mean``, ``max`` and ``min`` (differentiable) and
``argmax``.

Backward of a reduction spreads the gradient back over the elements that were
reduced: ``_spread`` does the spreading, after ``keepdim``-style reshaping
puts the reduced axes back as size-1 axes. ``max``/``min`` send it only to the
elements that were selected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import return_types
from .._dtype import int64 as _int64
from .._dtype import scalar_type_name
from .._quiet_numpy import numpy_quietly, silently
from ..autograd.function import Linear, Reduction
from ..tensor import Tensor, _wrap_dim
from .arithmetic import broadcast_error
from .pointwise import maximum, minimum
from .where import _values, select

__all__ = ["sum", "sum_to_size", "mean", "max", "min", "argmax", "allclose"]


def _dims(dim, ndim: int) -> tuple[int, ...]:
    if isinstance(dim, (list, tuple)) and not dim:
        return tuple(range(ndim))  # sum(dim=[]) reduces every dimension (PyTorch)
    if isinstance(dim, (list, tuple)):
        wrapped = [_wrap_dim(d, ndim) for d in dim]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims = tuple(sorted(wrapped))
    else:
        dims = (_wrap_dim(dim, ndim),)
    # A 0-d tensor accepts dim 0 (or -1) as PyTorch does: there is nothing to reduce.
    return dims if ndim else ()


def _spread(grad, shape: tuple):
    """``grad`` repeated over ``shape``: the backward of a reduction, once ``grad``
    has size-1 axes where the reduction removed them (or is 0-d).

    On arrays, a new contiguous array: np.broadcast_to's read-only view costs more
    to make than this copy on the small arrays of teaching examples, a leaf can keep
    the copy as its ``.grad`` as it is, and a matrix product that receives it can
    use BLAS (a zero-stride view cannot). On tensors (a create_graph pass),
    ``expand``, which records ExpandBackward0 as PyTorch does.
    """
    if isinstance(grad, Tensor):
        return grad.expand(*shape)
    spread = np.empty(shape, grad.dtype)
    spread[...] = grad
    return spread


def _spread_mean(grad, count: int, shape: tuple):
    """``grad / count`` repeated over ``shape`` (a mean's backward). On tensors (a
    create_graph pass) in PyTorch's order, expand then divide: the gradient is a new
    tensor that can be changed in place, not an expanded view of one value."""
    if isinstance(grad, Tensor):
        return _spread(grad, shape) / count
    return _spread(grad / count, shape)


def _kept_shape(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _unsqueezed(t, dims: tuple, shape: tuple):
    """``t`` with size-1 dimensions put back where a reduction removed ``dims``
    from ``shape``: on a tensor (a create_graph pass) one ``unsqueeze`` per
    dimension, as PyTorch's formulas record it (UnsqueezeBackward0)."""
    if isinstance(t, Tensor):
        for dim in sorted(dims):
            t = t.unsqueeze(dim)
        return t
    return t.reshape(_kept_shape(shape, dims))


class Sum(Linear):
    """f(x) = Σᵢ xᵢ;   ∂f/∂xᵢ = 1"""

    node_name = "SumBackward0"
    formula = r"f(x) = \textstyle\sum_i x_i \qquad \frac{\partial f}{\partial x_i} = 1"

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return numpy_quietly(np.ndarray.sum, x)  # inf + -inf is nan without NumPy's warning

    @staticmethod
    def backward(ctx, grad_output):
        return _spread(grad_output, ctx.shape)


class SumDim(Linear):
    """f(x) = Σ over the dimensions ``dims``;   ∂f/∂x = 1 (the gradient is spread
    back along those dimensions)"""

    node_name = "SumBackward1"
    formula = r"f(x) = \textstyle\sum_{\text{dims}} x \qquad \frac{\partial f}{\partial x} = 1 \text{ (the gradient is spread back along dims)}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        return silently(np.sum, x, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.reshape(_kept_shape(ctx.shape, ctx.dims))
        return _spread(grad_output, ctx.shape), None, None


class Mean(Linear):
    """f(x) = (1/N) Σᵢ xᵢ;   ∂f/∂xᵢ = 1/N"""

    node_name = "MeanBackward0"
    formula = r"f(x) = \frac{1}{N}\textstyle\sum_i x_i \qquad \frac{\partial f}{\partial x_i} = \frac{1}{N}"

    @staticmethod
    def forward(ctx, x):
        ctx.shape, ctx.count = x.shape, x.size
        with np.errstate(invalid="ignore", divide="ignore"):  # mean of nothing: nan, silently
            return np.add.reduce(x, axis=None) / x.size

    @staticmethod
    def backward(ctx, grad_output):
        return _spread_mean(grad_output, ctx.count, ctx.shape)


class MeanDim(Linear):
    """f(x) = mean over the dimensions ``dims``;   ∂f/∂x = 1/N, N the number of
    elements averaged"""

    node_name = "MeanBackward1"
    formula = r"f(x) = \operatorname{mean}_{\text{dims}} x \qquad \frac{\partial f}{\partial x} = \frac{1}{N} \text{ (}N\text{ elements averaged)}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        ctx.count = int(np.prod([x.shape[d] for d in dims]))
        if x.size == 0:  # mean of nothing: nan, silently (NumPy warns)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.add.reduce(x, axis=dims, keepdims=keepdim) / ctx.count
        return np.mean(x, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.reshape(_kept_shape(ctx.shape, ctx.dims))
        return _spread_mean(grad_output, ctx.count, ctx.shape), None, None


def _resolve(dim, keepdim, axis, keepdims):
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, bool(keepdim)


def sum_to_size(input: Tensor, *size, **kwargs) -> Tensor:
    """``input`` summed down to ``size``, which must be expandable to its shape: the
    leading dimensions it lacks are summed away, and so is every dimension where
    ``size`` has 1 and ``input`` has more. It undoes broadcasting, which is what the
    gradient of a broadcast operand needs (autograd does this for ``x + b`` with b
    of shape (3,) and x of shape (2, 3)); as in PyTorch, a ``size`` equal to the
    shape returns ``input`` itself.

    >>> import autogradkit as torch
    >>> x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    >>> x.sum_to_size(1, 3)
    tensor([[3., 5., 7.]], grad_fn=<SumBackward1>)
    >>> x.sum_to_size(3)
    tensor([3., 5., 7.], grad_fn=<ViewBackward0>)
    """
    if "size" in kwargs:
        size = (kwargs.pop("size"),)
    if kwargs or not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    shape = _size_argument(size)
    sizes = input.shape
    leading = len(sizes) - len(shape)
    if leading < 0 or any(s != 1 and s != n for s, n in zip(shape, sizes[leading:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(sizes)}}}.")
    reduce = [i for i in range(len(sizes)) if i < leading or (shape[i - leading] == 1 != sizes[i])]
    result = sum(input, reduce, keepdim=True) if reduce else input
    return result.view(shape) if leading > 0 else result


def _size_argument(size: tuple) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` as one tuple of ints, or PyTorch's
    TypeError for sum_to_size."""
    prefix = "sum_to_size(): argument 'size' (position 1) must be tuple of ints"
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    elif len(size) > 1 and not isinstance(size[0], (int, np.integer)):
        raise TypeError(f"sum_to_size() takes 1 positional argument but {len(size)} were given")
    for pos, n in enumerate(size):
        if not isinstance(n, (int, np.integer)):
            if len(size) == 1:
                raise TypeError(f"{prefix}, not {type(n).__name__}")
            raise TypeError(f"{prefix}, but found element of type {type(n).__name__} at pos {pos}")
    return tuple(int(n) for n in size)


def sum(
    input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, axis=None, keepdims=None
) -> Tensor:
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints).

    >>> import autogradkit as torch
    >>> torch.ones(2, 3).sum(0)
    tensor([2., 2., 2.])
    """
    dim, keepdim = _resolve(dim, keepdim, axis, keepdims)
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "bi":
        # Sums of bools count, as int64 (PyTorch); int64 sums stay int64.
        input = input.to(_int64) if input._data.dtype.kind == "b" else input
    if dim is None:
        if keepdim:
            dim = tuple(range(input.ndim))
        else:
            return Sum.apply(input)
    return SumDim.apply(input, _dims(dim, input.ndim), keepdim)


def mean(
    input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, axis=None, keepdims=None
) -> Tensor:
    """Mean of all elements, or over ``dim``.

    Raises
    ------
    RuntimeError
        For integer tensors, as in PyTorch (convert with ``.float()`` first).
    """
    dim, keepdim = _resolve(dim, keepdim, axis, keepdims)
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input._data.dtype.name.capitalize().replace('Int64', 'Long')}"
        )
    if dim is None:
        if keepdim:
            dim = tuple(range(input.ndim))
        else:
            return Mean.apply(input)
    return MeanDim.apply(input, _dims(dim, input.ndim), keepdim)


class Extremum(Reduction):
    """f(x) = max of all elements (``x.max()``);   ∂f/∂xᵢ = 1/k where xᵢ is one of
    the k elements equal to the maximum, 0 elsewhere (PyTorch's
    ``evenly_distribute_backward``; at a nan maximum, the nans share it)."""

    node_name = "MaxBackward1"
    formula = r"f(x) = \max_i x_i \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1/k & x_i = f(x) \text{ (}k\text{ ties)} \\ 0 & \text{otherwise} \end{cases}"
    reducer: Callable[[np.ndarray], Any] = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx, x):
        out = np.asarray(cls.reducer(x))
        # x and the result, as PyTorch saves them: changing x in place before
        # backward is refused (backward finds the elements equal to it).
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = (_values(t) for t in ctx.saved_tensors)
        hits = _hits(x, out)
        # A Python number (count_nonzero gives a NumPy integer, whose quotient would
        # make a float32 gradient or tangent float64).
        count = int(np.count_nonzero(hits))
        share = 1 / count if count else 0.0  # no element: the median of nothing
        return select(hits, grad_output * share)


def _hits(x, out):
    """Where ``x`` equals its extremum ``out`` (the nans, at a nan extremum)."""
    return np.isnan(x) if out.dtype.kind == "f" and np.isnan(out) else x == out


class MinAll(Extremum):
    """f(x) = min of all elements (``x.min()``);   ∂f/∂xᵢ = 1/k where xᵢ is one of
    the k elements equal to the minimum, 0 elsewhere"""

    node_name = "MinBackward1"
    formula = r"f(x) = \min_i x_i \qquad \frac{\partial f}{\partial x_i} = \begin{cases} 1/k & x_i = f(x) \text{ (}k\text{ ties)} \\ 0 & \text{otherwise} \end{cases}"
    reducer = staticmethod(np.min)


class MaxDim(Linear):
    """values = max along ``dim`` (``x.max(dim)``; ``indices`` says where);
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j (the first of any ties),
    0 elsewhere"""

    node_name = "MaxBackward0"
    formula = r"v_j = \max_i x_{ij} \qquad \frac{\partial v_j}{\partial x_{ij}} = \begin{cases} 1 & i = \text{indices}_j \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, indices, dim, keepdim):
        # indices: where the chosen elements are along dim (argmax, dim kept); an
        # array, not a tensor, so it is no input of the node (as in PyTorch).
        # PyTorch's MaxBackward0 saves the indices, so a second backward pass
        # through a freed graph fails here as it does there.
        ctx.save_for_backward(indices)
        if x.ndim == 0:  # a 0-d tensor is its own maximum
            ctx.indices = None
            return x.copy()
        ctx.indices, ctx.dim, ctx.keepdim, ctx.length = indices, dim, keepdim, x.shape[dim]
        values = np.take_along_axis(x, indices, axis=dim)
        return values if keepdim else np.squeeze(values, dim)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        if ctx.indices is None:
            return grad_output, None, None, None
        if not ctx.keepdim:
            grad_output = grad_output.reshape(ctx.indices.shape)
        # A one-hot mask of the chosen elements selects the gradient.
        positions = np.arange(ctx.length).reshape((-1,) + (1,) * (ctx.indices.ndim - ctx.dim - 1))
        return select(positions == ctx.indices, grad_output), None, None, None


class MinDim(MaxDim):
    """values = min along ``dim`` (``x.min(dim)``; ``indices`` says where);
    ∂valuesⱼ/∂xᵢ = 1 where i is the index chosen for j, 0 elsewhere"""

    node_name = "MinBackward0"
    formula = r"v_j = \min_i x_{ij} \qquad \frac{\partial v_j}{\partial x_{ij}} = \begin{cases} 1 & i = \text{indices}_j \\ 0 & \text{otherwise} \end{cases}"


def _extremum(name: str, input: Tensor, dim, keepdim, kind):
    """``max``/``min`` in PyTorch's three forms: of everything, along ``dim`` (a
    ``(values, indices)`` pair), or of two tensors (``maximum``/``minimum``)."""
    whole, along, arg_reducer, pair, binary = kind
    if isinstance(dim, Tensor):
        if keepdim:
            raise TypeError(f"{name}() got an unexpected keyword argument 'keepdim'")
        return binary(input, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}(): 'keepdim' needs 'dim' (the dimension to reduce)")
        if input._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return whole.apply(input)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(
            f"{name}(): argument 'dim' must be int, not {type(dim).__name__} "
            "(pass a Tensor to compare two tensors elementwise)"
        )
    axis = _wrap_dim(int(dim), input.ndim)
    if input.ndim == 0:
        return pair(along.apply(input, None, 0, False), Tensor._make(np.asarray(0)))
    if input.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    indices = np.expand_dims(arg_reducer(input._data, axis=axis), axis).astype(np.int64)
    values = along.apply(input, indices, axis, bool(keepdim))
    return pair(values, Tensor._make(indices if keepdim else np.squeeze(indices, axis)))


_MAX = (Extremum, MaxDim, np.argmax, return_types.max, maximum)
_MIN = (MinAll, MinDim, np.argmin, return_types.min, minimum)


def max(input: Tensor, dim=None, keepdim: bool = False):
    """The largest element; with ``dim``, the largest along that dimension and where
    it is, as a ``(values, indices)`` pair; with a tensor, ``maximum``.

    The gradient goes to the element(s) chosen: shared evenly among ties for the
    largest of all, to the first of the ties (the one ``indices`` names) along ``dim``.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    >>> x.max(dim=1).indices
    tensor([1, 0])
    >>> x.max()
    tensor(7., grad_fn=<MaxBackward1>)
    """
    return _extremum("max", input, dim, keepdim, _MAX)


def min(input: Tensor, dim=None, keepdim: bool = False):
    """The smallest element; with ``dim``, a ``(values, indices)`` pair; with a
    tensor, ``minimum`` (see :func:`max`)."""
    return _extremum("min", input, dim, keepdim, _MIN)


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None), as int64."""
    from .select import arg_extreme  # (select imports modules this one does not)

    return arg_extreme("argmax", np.argmax, input, dim, keepdim)


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether ``|input − other| ≤ atol + rtol·|other|`` holds everywhere
    (after broadcasting). Both must have the same dtype, as in PyTorch.

    >>> import autogradkit as torch
    >>> torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
    True
    >>> torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
    False
    """
    for name, position, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"allclose(): argument '{name}' (position {position}) must be Tensor, "
                f"not {type(value).__name__}"
            )
    a, b = input.detach().numpy(), other.detach().numpy()
    if a.dtype != b.dtype:
        raise RuntimeError(f"{scalar_type_name(a.dtype)} did not match {scalar_type_name(b.dtype)}")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a, b) from None
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
