"""Reductions: ``sum`` and ``mean`` (differentiable), ``max``, ``min`` and
``argmax`` (values only).

Backward of a reduction spreads the gradient back over the elements that were
reduced: ``np.broadcast_to`` does the spreading, after ``keepdim``-style reshaping
puts the reduced axes back as size-1 axes.
"""

from __future__ import annotations

import numpy as np

from .._dtype import int64 as _int64
from .._dtype import scalar_type_name
from ..autograd.function import Function
from ..tensor import Tensor, _wrap_dim
from .arithmetic import broadcast_error

__all__ = ["sum", "mean", "max", "min", "argmax", "allclose"]


def _dims(dim, ndim: int) -> tuple[int, ...]:
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


def _kept_shape(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


class Sum(Function):
    """f(x) = Σᵢ xᵢ;   ∂f/∂xᵢ = 1"""

    node_name = "SumBackward0"
    formula = r"f(x) = \textstyle\sum_i x_i \qquad \frac{\partial f}{\partial x_i} = 1"

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.sum()

    @staticmethod
    def backward(ctx, grad_output):
        return np.broadcast_to(grad_output, ctx.shape)


class SumDim(Function):
    """f(x) = Σ over the dimensions ``dims``;   ∂f/∂x = 1 (the gradient is spread
    back along those dimensions)"""

    node_name = "SumBackward1"
    formula = r"f(x) = \textstyle\sum_{\text{dims}} x \qquad \frac{\partial f}{\partial x} = 1 \text{ (the gradient is spread back along dims)}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        return np.sum(x, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.reshape(_kept_shape(ctx.shape, ctx.dims))
        return np.broadcast_to(grad_output, ctx.shape), None, None


class Mean(Function):
    """f(x) = (1/N) Σᵢ xᵢ;   ∂f/∂xᵢ = 1/N"""

    node_name = "MeanBackward0"
    formula = r"f(x) = \frac{1}{N}\textstyle\sum_i x_i \qquad \frac{\partial f}{\partial x_i} = \frac{1}{N}"

    @staticmethod
    def forward(ctx, x):
        ctx.shape, ctx.count = x.shape, x.size
        return np.add.reduce(x, axis=None) / x.size

    @staticmethod
    def backward(ctx, grad_output):
        return np.broadcast_to(grad_output / ctx.count, ctx.shape)


class MeanDim(Function):
    """f(x) = mean over the dimensions ``dims``;   ∂f/∂x = 1/N, N the number of
    elements averaged"""

    node_name = "MeanBackward1"
    formula = r"f(x) = \operatorname{mean}_{\text{dims}} x \qquad \frac{\partial f}{\partial x} = \frac{1}{N} \text{ (}N\text{ elements averaged)}"

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        ctx.count = int(np.prod([x.shape[d] for d in dims]))
        return np.mean(x, axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output = grad_output.reshape(_kept_shape(ctx.shape, ctx.dims))
        return np.broadcast_to(grad_output / ctx.count, ctx.shape), None, None


def _resolve(dim, keepdim, axis, keepdims):
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, bool(keepdim)


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


def _values_only(input: Tensor, reducer, dim, keepdim):
    data = input._data
    if dim is None:
        return Tensor._make(np.asarray(reducer(data)))
    return Tensor._make(np.asarray(reducer(data, axis=_wrap_dim(dim, data.ndim), keepdims=keepdim)))


def max(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Largest element (not differentiated in autogradkit; use ``maximum``/``relu``)."""
    return _values_only(input, np.max, dim, keepdim)


def min(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Smallest element (not differentiated in autogradkit)."""
    return _values_only(input, np.min, dim, keepdim)


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None), as int64."""
    data = input._data
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(data), dtype=np.int64))
    return Tensor._make(
        np.argmax(data, axis=_wrap_dim(dim, data.ndim), keepdims=keepdim).astype(np.int64)
    )


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
