"""Operations with several outputs: ``split``, ``chunk`` and ``unbind`` cut a tensor
into pieces along one dimension.

Each is one node of the graph with one output per piece: the pieces share a
``grad_fn`` and differ in ``output_nr`` (0, 1, …). Backward receives one gradient
per piece and puts them back together where the pieces came from; a piece no
gradient reached contributes zeros.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from ..autograd.function import MultiOutputFunction
from ..tensor import Tensor, _wrap_dim

__all__ = ["split", "chunk", "unbind"]


def _filled(grads: list, shapes: list, dtype: np.dtype) -> list:
    """The gradients of the pieces, with zeros for a piece none reached (a tensor
    of zeros in a create_graph pass, where the others are tensors too)."""
    recorded = builtins.any(type(g) is Tensor for g in grads)
    filled = []
    for grad, shape in zip(grads, shapes):
        if grad is None:
            zeros = np.zeros(shape, dtype)
            grad = Tensor._make(zeros) if recorded else zeros
        filled.append(grad)
    return filled


def _pieces(ctx, x: np.ndarray, sizes: list, dim: int) -> list:
    """Cut ``x`` into pieces of ``sizes`` along ``dim`` (views of ``x``); ``ctx``
    keeps what backward needs to put their gradients together again."""
    ctx.dim, ctx.self_sym_sizes = dim, x.shape
    ctx._sizes, ctx._dtype = sizes, x.dtype
    return np.split(x, np.cumsum(sizes)[:-1], axis=dim)


def _split_backward(ctx, grad_outputs: list) -> tuple:
    before = ctx.self_sym_sizes[: ctx.dim]
    after = ctx.self_sym_sizes[ctx.dim + 1 :]
    shapes = [before + (size,) + after for size in ctx._sizes]
    return _joined(_filled(grad_outputs, shapes, ctx._dtype), ctx.dim), None, None


class SplitWithSizes(MultiOutputFunction):
    """f(x) = (x₁, …, xₙ), consecutive pieces of x of the given sizes along ``dim``;
    ∂ℓ/∂x = the pieces' gradients joined back along ``dim``"""

    node_name = "SplitWithSizesBackward0"
    formula = r"f(x) = (x_1, \dots, x_n) \qquad \frac{\partial \ell}{\partial x} = \operatorname{cat}(G_1, \dots, G_n)"
    creates_view = True

    @staticmethod
    def forward(ctx, x, split_sizes, dim):
        ctx.split_sizes = tuple(split_sizes)
        return _pieces(ctx, x, list(split_sizes), dim)

    @staticmethod
    def backward(ctx, grad_outputs):
        return _split_backward(ctx, grad_outputs)


class Split(MultiOutputFunction):
    """f(x) = (x₁, …, xₙ), pieces of ``split_size`` along ``dim`` (the last may be
    smaller); ∂ℓ/∂x = the pieces' gradients joined back along ``dim``"""

    node_name = "SplitBackward0"
    formula = SplitWithSizes.formula
    creates_view = True

    @staticmethod
    def forward(ctx, x, split_size, dim):
        ctx.split_size = split_size
        size = x.shape[dim]
        count = builtins.max(math.ceil(size / split_size), 1) if split_size else 1
        sizes = [split_size] * (count - 1) + [size - split_size * (count - 1)]
        return _pieces(ctx, x, sizes, dim)

    @staticmethod
    def backward(ctx, grad_outputs):
        return _split_backward(ctx, grad_outputs)


class Unbind(MultiOutputFunction):
    """f(x) = (x[0], …, x[n-1]) along ``dim`` (that dimension removed);
    ∂ℓ/∂x = the gradients stacked back along ``dim``"""

    node_name = "UnbindBackward0"
    formula = r"f(x) = (x_0, \dots, x_{n-1}) \qquad \frac{\partial \ell}{\partial x} = \operatorname{stack}(G_0, \dots, G_{n-1})"
    creates_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim, ctx._shape, ctx._dtype = dim, x.shape, x.dtype
        before = (slice(None),) * dim
        # x[..., i, ...] with an Ellipsis stays a 0-d array for a 1-d x (not a scalar).
        return [x[before + (i, Ellipsis)] for i in range(x.shape[dim])]

    @staticmethod
    def backward(ctx, grad_outputs):
        piece = ctx._shape[: ctx.dim] + ctx._shape[ctx.dim + 1 :]
        grads = _filled(grad_outputs, [piece] * len(grad_outputs), ctx._dtype)
        if builtins.any(type(g) is Tensor for g in grads):
            from .shape import stack  # a create_graph pass records the join (StackBackward0)

            return stack(grads, ctx.dim), None
        return np.stack(grads, axis=ctx.dim), None


def _joined(grads: list, dim: int):
    if builtins.any(type(g) is Tensor for g in grads):
        from .shape import cat  # a create_graph pass records the join (CatBackward0)

        return cat(grads, dim)
    return np.concatenate(grads, axis=dim)


# -- public functions -----------------------------------------------------------------


def _checked_dim(input: Tensor, dim: int, who: str = "split") -> int:
    if input.ndim == 0:
        raise RuntimeError(f"{who} expects at least a 1-dimensional tensor")
    return _wrap_dim(dim, input.ndim)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Cut ``tensor`` into pieces along ``dim``: of ``split_size_or_sections``
    elements each (an int; the last piece may be smaller) or of the given sizes (a
    list, which must add up to the dimension's size)."""
    dim = _checked_dim(tensor, dim)
    size = tensor.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(n) for n in split_size_or_sections]
        if builtins.any(n < 0 for n in sizes):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={sizes}"
            )
        if builtins.sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sizes}"
            )
        return SplitWithSizes.apply(tensor, sizes, dim)
    split_size = int(split_size_or_sections)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    if split_size == 0 and size != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    return Split.apply(tensor, split_size, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Cut ``input`` into ``chunks`` pieces of equal size along ``dim`` (the last
    may be smaller, and there may be fewer: ``split`` by ⌈size / chunks⌉)."""
    if input.ndim == 0:  # (before the count: PyTorch's order)
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _checked_dim(input, dim, "chunk")
    size = input.shape[dim]
    if size == 0:
        return split(input, [0] * chunks, dim)
    return split(input, math.ceil(size / chunks), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of ``input`` along ``dim``, that dimension removed."""
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return Unbind.apply(input, _wrap_dim(dim, input.ndim))
