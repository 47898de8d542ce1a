"""More products: ``vdot``, ``cross``, the fused ``add`` + product operations
(``addmv``, ``addr``, ``baddbmm``, ``addbmm``: β·input + α·product, one node each)
and chains of matrix products (``linalg.multi_dot``, ``chain_matmul``), as PyTorch
computes and records them.

The fused operations scale each part: with G the gradient of the result,

* ∂ℓ/∂input = β·G (summed back to input's shape where it was broadcast)
* the product's operands get α times the product's own gradients.
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from .._warn_once import warn_once
from ..autograd.function import Bilinear, Function
from ..tensor import Tensor
from .arithmetic import broadcast_error
from .shape import expanded_shape

__all__ = ["vdot", "cross", "linalg_cross", "addmv", "addr", "baddbmm", "addbmm"]
__all__ += ["multi_dot", "chain_matmul", "tensordot", "inner"]


def _scaled(grad, factor):
    """factor·grad; grad itself for a factor of 1 (PyTorch's maybe_multiply), so a
    create_graph pass records no extra MulBackward node."""
    return grad if factor == 1 else grad * factor


def _beta_times(input_array: np.ndarray, beta, shape: tuple) -> np.ndarray:
    """β·input broadcast to the product's shape; for β = 0 zeros, not 0·input: a
    nan or inf in input is ignored, as PyTorch documents."""
    if beta == 0:
        return np.zeros(shape, input_array.dtype)
    return np.broadcast_to(input_array * beta if beta != 1 else input_array, shape)


def _result(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The result in the operands' dtype (α and β are Python numbers: NumPy would
    make an integer product float when one of them is a float)."""
    return np.asarray(values).astype(dtype, copy=False)


# -- vdot ------------------------------------------------------------------------------


class Vdot(Bilinear):
    """f(x, y) = Σᵢ x̄ᵢyᵢ (for real vectors, the dot product);
    ∂f/∂x = y, ∂f/∂y = x

    >>> import autogradkit as torch
    >>> torch.vdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor(11.)
    """

    node_name = "VdotBackward0"
    formula = r"f(x, y) = \textstyle\sum_i \bar x_i y_i \qquad \frac{\partial f}{\partial x} = y, \quad \frac{\partial f}{\partial y} = x"

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(
            x if ctx.needs_input_grad[1] else None, y if ctx.needs_input_grad[0] else None
        )
        with np.errstate(all="ignore"):
            return np.asarray(np.dot(x, y))

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_x = grad_output * y if ctx.needs_input_grad[0] else None
        grad_y = grad_output * x if ctx.needs_input_grad[1] else None
        return grad_x, grad_y


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """Dot product of two 1-d tensors (complex ones conjugate the first; the kit
    has none, so it is :func:`dot` with its own node, VdotBackward0)."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        n, m = input.shape[0], other.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{scalar_type_name(input._data.dtype)} and {scalar_type_name(other._data.dtype)}"
        )
    return Vdot.apply(input, other)


# -- cross -----------------------------------------------------------------------------


class LinalgCross(Bilinear):
    """f(a, b) = a × b along ``dim`` (size 3);   ∂ℓ/∂a = b × G,   ∂ℓ/∂b = G × a
    (from ⟨G, a × b⟩ = ⟨b × G, a⟩ = ⟨G × a, b⟩)

    >>> import autogradkit as torch
    >>> torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """

    node_name = "LinalgCrossBackward0"
    formula = r"f(a, b) = a \times b \qquad \frac{\partial \ell}{\partial a} = b \times G, \quad \frac{\partial \ell}{\partial b} = G \times a"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        ctx.save_for_backward(
            a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None
        )
        with np.errstate(all="ignore"):
            return np.cross(a, b, axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        dim = ctx.dim
        grad_a = _cross_in_formula(b, grad_output, dim) if ctx.needs_input_grad[0] else None
        grad_b = _cross_in_formula(grad_output, a, dim) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


def _cross_in_formula(a, b, dim: int):
    """a × b in a backward formula: computed on arrays, recorded on tensors."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.cross(a, b, axis=dim)
    return LinalgCross.apply(a, b, dim)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the last by default), batch
    dimensions broadcast."""
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
            f"{scalar_type_name(other._data.dtype)}"
        )
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    ndim = input.ndim
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input.shape[dim]} and {other.shape[dim]}"
        )
    try:  # (the batch broadcasts; backward sums each gradient back to its input)
        np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    except ValueError:
        raise broadcast_error(input._data, other._data) from None
    return LinalgCross.apply(input, other, dim % ndim)


_CROSS_DIM_WARNING = (
    "Using torch.cross without specifying the dim arg is deprecated.\n"
    "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
    "The default value of dim will change to agree with that of linalg.cross in a "
    "future release."
)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``torch.cross``: :func:`linalg_cross`, except that without ``dim`` it takes
    the first dimension of size 3 (with PyTorch's deprecation warning, once).

    >>> import autogradkit as torch
    >>> torch.cross(torch.tensor([0.0, 1.0, 0.0]), torch.tensor([0.0, 0.0, 1.0]), dim=0)
    tensor([1., 0., 0.])
    """
    if dim is None:
        warn_once(_CROSS_DIM_WARNING, stacklevel=2)
        sizes = list(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    return linalg_cross(input, other, dim=dim)


# -- β·input + α·product ---------------------------------------------------------------


class Addmv(Function):
    """f(b, A, v) = β·b + α·A·v;   ∂ℓ/∂b = β·g,   ∂ℓ/∂A = α·g vᵀ,   ∂ℓ/∂v = α·Aᵀg

    >>> import autogradkit as torch
    >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([2.0, 3.0]), alpha=2)
    tensor([5., 7.])
    """

    node_name = "AddmvBackward0"
    formula = r"f(b, A, v) = \beta b + \alpha A v \qquad \frac{\partial \ell}{\partial b} = \beta g, \quad \frac{\partial \ell}{\partial A} = \alpha\, g v^\top, \quad \frac{\partial \ell}{\partial v} = \alpha A^\top g"

    @staticmethod
    def forward(ctx, bias, a, v, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        needs_a, needs_v = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(a if needs_v else None, v if needs_a else None)
        with np.errstate(all="ignore"):
            product = a @ v
            return _result(_beta_times(bias, beta, product.shape) + alpha * product, a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        a, v = ctx.saved_tensors
        needs_bias, needs_a, needs_v = ctx.needs_input_grad[:3]
        grad_bias = _scaled(grad_output, ctx.beta) if needs_bias else None
        grad_a = _scaled(_outer(grad_output, v), ctx.alpha) if needs_a else None
        grad_v = _scaled(_mT(a) @ grad_output, ctx.alpha) if needs_v else None
        return grad_bias, grad_a, grad_v, None, None

    @staticmethod
    def jvp(ctx, t_bias, t_a, t_v, _beta, _alpha):
        """ḟ = β·ḃ + α·(Ȧ v + A v̇)."""
        _, a, v, beta, alpha = ctx.primals
        total = np.zeros_like(ctx.result)
        if t_bias is not None:
            total = total + beta * t_bias
        if t_a is not None:
            total = total + alpha * (t_a @ v)
        if t_v is not None:
            total = total + alpha * (a @ t_v)
        return total


def _outer(u, v):
    """u vᵀ: on arrays computed, on tensors recorded (as PyTorch's outer)."""
    if isinstance(u, np.ndarray) and isinstance(v, np.ndarray):
        return np.multiply.outer(u, v)
    return u.outer(v)


def _mT(m):
    return np.swapaxes(m, -1, -2) if isinstance(m, np.ndarray) else m.mT


def _check_same_dtype_addmv(input: Tensor, mat: Tensor, vec: Tensor) -> None:
    dtypes = (input._data.dtype, mat._data.dtype, vec._data.dtype)
    if len(set(dtypes)) > 1:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            + ", ".join(scalar_type_name(d) for d in dtypes[:2])
            + f", and {scalar_type_name(dtypes[2])}"
        )


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """β·input + α·(mat @ vec), one node (AddmvBackward0); ``input`` broadcasts to
    the result's length."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}"
        )
    rows, columns = mat.shape
    if vec.shape[0] != columns or (input.ndim == 1 and input.shape[0] not in (1, rows)):
        size = input.shape[0] if input.ndim == 1 else 1
        raise RuntimeError(
            f"size mismatch, got input ({size}), mat ({rows}x{columns}), vec ({vec.shape[0]})"
        )
    _check_same_dtype_addmv(input, mat, vec)
    return Addmv.apply(input, mat, vec, beta, alpha)


class Addr(Function):
    """f(M, u, v) = β·M + α·u vᵀ;   ∂ℓ/∂M = β·G,   ∂ℓ/∂u = α·G v,   ∂ℓ/∂v = α·Gᵀu

    >>> import autogradkit as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """

    node_name = "AddrBackward0"
    formula = r"f(M, u, v) = \beta M + \alpha\, u v^\top \qquad \frac{\partial \ell}{\partial M} = \beta G, \quad \frac{\partial \ell}{\partial u} = \alpha G v, \quad \frac{\partial \ell}{\partial v} = \alpha G^\top u"

    @staticmethod
    def forward(ctx, matrix, u, v, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        needs_u, needs_v = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(u if needs_v else None, v if needs_u else None)
        with np.errstate(all="ignore"):
            product = np.multiply.outer(u, v)
            # addr promotes mixed dtypes (float32 with float64 gives float64), as PyTorch.
            dtype = np.result_type(matrix, u, v)
            return _result(_beta_times(matrix, beta, product.shape) + alpha * product, dtype)

    @staticmethod
    def backward(ctx, grad_output):
        u, v = ctx.saved_tensors
        needs_matrix, needs_u, needs_v = ctx.needs_input_grad[:3]
        grad_matrix = _scaled(grad_output, ctx.beta) if needs_matrix else None
        grad_u = _scaled(grad_output @ v, ctx.alpha) if needs_u else None
        grad_v = _scaled(_mT(grad_output) @ u, ctx.alpha) if needs_v else None
        return grad_matrix, grad_u, grad_v, None, None

    @staticmethod
    def jvp(ctx, t_matrix, t_u, t_v, _beta, _alpha):
        """ḟ = β·Ṁ + α·(u̇ vᵀ + u v̇ᵀ)."""
        _, u, v, beta, alpha = ctx.primals
        total = np.zeros_like(ctx.result)
        if t_matrix is not None:
            total = total + beta * t_matrix
        if t_u is not None:
            total = total + alpha * np.multiply.outer(t_u, v)
        if t_v is not None:
            total = total + alpha * np.multiply.outer(u, t_v)
        return total


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """β·input + α·outer(vec1, vec2), one node (AddrBackward0); ``input``
    broadcasts to the outer product's shape."""
    for name, vector in (("vec1", vec1), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vector.ndim}-D")
    expanded_shape(input._data, (vec1.shape[0], vec2.shape[0]))
    return Addr.apply(input, vec1, vec2, beta, alpha)


class Baddbmm(Function):
    """f(C, A, B) = β·C + α·A·B, matrix by matrix of the batch;
    ∂ℓ/∂C = β·G,   ∂ℓ/∂A = α·G·Bᵀ,   ∂ℓ/∂B = α·Aᵀ·G"""

    node_name = "BaddbmmBackward0"
    formula = r"f(C, A, B) = \beta C + \alpha A B \qquad \frac{\partial \ell}{\partial C} = \beta G, \quad \frac{\partial \ell}{\partial A} = \alpha G B^\top, \quad \frac{\partial \ell}{\partial B} = \alpha A^\top G"

    @staticmethod
    def forward(ctx, c, a, b, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        needs_a, needs_b = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        with np.errstate(all="ignore"):
            product = a @ b
            return _result(_beta_times(c, beta, product.shape) + alpha * product, a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        needs_c, needs_a, needs_b = ctx.needs_input_grad[:3]
        grad_c = _scaled(grad_output, ctx.beta) if needs_c else None
        grad_a = _scaled(grad_output @ _mT(b), ctx.alpha) if needs_a else None
        grad_b = _scaled(_mT(a) @ grad_output, ctx.alpha) if needs_b else None
        return grad_c, grad_a, grad_b, None, None

    @staticmethod
    def jvp(ctx, t_c, t_a, t_b, _beta, _alpha):
        """ḟ = β·Ċ + α·(Ȧ B + A Ḃ)."""
        _, a, b, beta, alpha = ctx.primals
        total = np.zeros_like(ctx.result)
        if t_c is not None:
            total = total + beta * t_c
        if t_a is not None:
            total = total + alpha * (t_a @ b)
        if t_b is not None:
            total = total + alpha * (a @ t_b)
        return total


def _check_batches(batch1: Tensor, batch2: Tensor) -> tuple[int, int, int, int]:
    """PyTorch's refusals for two stacks of matrices; (b, n, m, p)."""
    for name, value in (("batch1", batch1), ("batch2", batch2)):
        if value.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (stacks, rows, inner), (stacks2, inner2, columns) = batch1.shape, batch2.shape
    if (stacks2, inner2) != (stacks, inner):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{stacks}, {inner}] but got: [{stacks2}, {inner2}]."
        )
    return stacks, rows, inner, columns


def _check_dtypes(input: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    for other in (batch1, batch2):
        if other._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(input._data.dtype)} but found "
                f"{scalar_type_name(other._data.dtype)}"
            )


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """β·input + α·(batch1 @ batch2) for stacks of matrices, one node
    (BaddbmmBackward0); ``input`` broadcasts to the (b, n, p) result.

    >>> import autogradkit as torch
    >>> torch.baddbmm(torch.zeros(2, 1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1)).flatten()
    tensor([3., 3.])
    """
    if batch1.ndim >= 2 and batch2.ndim >= 3:  # PyTorch expands input first
        expanded_shape(input._data, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    _check_batches(batch1, batch2)
    _check_dtypes(input, batch1, batch2)
    return Baddbmm.apply(input, batch1, batch2, beta, alpha)


class Addbmm(Function):
    """f(M, A, B) = β·M + α·Σₖ Aₖ·Bₖ (the products of the batch, added up);
    ∂ℓ/∂M = β·G,   ∂ℓ/∂Aₖ = α·G·Bₖᵀ,   ∂ℓ/∂Bₖ = α·Aₖᵀ·G"""

    node_name = "AddbmmBackward0"
    formula = r"f(M, A, B) = \beta M + \alpha \textstyle\sum_k A_k B_k \qquad \frac{\partial \ell}{\partial M} = \beta G, \quad \frac{\partial \ell}{\partial A_k} = \alpha G B_k^\top, \quad \frac{\partial \ell}{\partial B_k} = \alpha A_k^\top G"

    @staticmethod
    def forward(ctx, matrix, a, b, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        needs_a, needs_b = ctx.needs_input_grad[1:3]
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        with np.errstate(all="ignore"):
            product = (a @ b).sum(axis=0)
            return _result(_beta_times(matrix, beta, product.shape) + alpha * product, a.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        needs_matrix, needs_a, needs_b = ctx.needs_input_grad[:3]
        grad_matrix = _scaled(grad_output, ctx.beta) if needs_matrix else None
        # G reaches every product of the batch: the same G for each k.
        grad_a = _scaled(_each(grad_output, b) @ _mT(b), ctx.alpha) if needs_a else None
        grad_b = _scaled(_mT(a) @ _each(grad_output, a), ctx.alpha) if needs_b else None
        return grad_matrix, grad_a, grad_b, None, None

    @staticmethod
    def jvp(ctx, t_matrix, t_a, t_b, _beta, _alpha):
        """ḟ = β·Ṁ + α·Σₖ (Ȧₖ Bₖ + Aₖ Ḃₖ)."""
        _, a, b, beta, alpha = ctx.primals
        total = np.zeros_like(ctx.result)
        if t_matrix is not None:
            total = total + beta * t_matrix
        if t_a is not None:
            total = total + alpha * (t_a @ b).sum(axis=0)
        if t_b is not None:
            total = total + alpha * (a @ t_b).sum(axis=0)
        return total


def _each(grad, batch):
    """G repeated along the batch of ``batch`` (an expand: no copy)."""
    shape = (batch.shape[0], *grad.shape)
    if isinstance(grad, np.ndarray):
        return np.broadcast_to(grad, shape)
    return grad.unsqueeze(0).expand(*shape)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """β·input + α·Σₖ batch1[k] @ batch2[k], one node (AddbmmBackward0); ``input``
    broadcasts to the (n, p) result.

    >>> import autogradkit as torch
    >>> torch.addbmm(torch.zeros(1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1))
    tensor([[6.]])
    """
    if batch1.ndim >= 2 and batch2.ndim >= 3:  # PyTorch expands input first
        expanded_shape(input._data, (batch1.shape[1], batch2.shape[2]))
    for name, value in (("batch1", batch1), ("batch2", batch2)):
        if value.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(
            "batch1 and batch2 must have same number of batches, got "
            f"{batch1.shape[0]} and {batch2.shape[0]}"
        )
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
            f"{batch2.shape[1]}x{batch2.shape[2]})"
        )
    _check_dtypes(input, batch1, batch2)
    return Addbmm.apply(input, batch1, batch2, beta, alpha)


# -- chains of matrix products ---------------------------------------------------------


def _chain_order(sizes: list[int]) -> list[list[int]]:
    """Where to split each sub-chain so that the whole product costs the fewest
    multiplications (the textbook dynamic programme PyTorch runs): matrix i is
    sizes[i] × sizes[i + 1]; split[i][j] is the k with (Mᵢ…Mₖ)(Mₖ₊₁…Mⱼ) cheapest."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if cost[i][j] == -1 or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _multiply_chain(matrices: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    from .linalg import mm

    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_multiply_chain(matrices, split, i, k), _multiply_chain(matrices, split, k + 1, j))


def _check_chain(tensors: list) -> None:
    """PyTorch's refusals for multi_dot's list."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, middle in enumerate(tensors[1:-1], start=1):
        if middle.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {middle.ndim}D")
    dtype = first._data.dtype
    for i, tensor in enumerate(tensors[1:], start=1):
        if tensor._data.dtype != dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_C_NAMES[dtype.name]} and tensor {i} {_C_NAMES[tensor._data.dtype.name]}"
            )


# How PyTorch's messages print a dtype (its C++ type name).
_C_NAMES = {"float32": "float", "float64": "double", "int64": "long", "bool": "bool"}


def multi_dot(tensors) -> Tensor:
    """The product of a list of matrices (the first may be a row vector, the last
    a column vector), multiplied in the order that costs the fewest operations,
    as PyTorch chooses it. Recorded as mm nodes and a final view.

    >>> import autogradkit as torch
    >>> torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4)])
    tensor([12., 12.])
    """
    tensors = list(tensors)
    _check_chain(tensors)
    first, last = tensors[0], tensors[-1]
    out_shape = ([first.shape[0]] if first.ndim == 2 else []) + (
        [last.shape[1]] if last.ndim == 2 else []
    )
    matrices = list(tensors)
    if first.ndim == 1:
        matrices[0] = first.unsqueeze(0)
    if last.ndim == 1:
        matrices[-1] = last.unsqueeze(1)
    for i in range(len(matrices) - 1):
        left, right = matrices[i], matrices[i + 1]
        if left.shape[1] != right.shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} "
                f"and {list(tensors[i + 1].shape)} cannot be multiplied"
            )
    sizes = [matrices[0].shape[0]] + [matrix.shape[1] for matrix in matrices]
    if len(matrices) == 3:
        # PyTorch's rule for three: compare the two orders' costs directly.
        a, b, c, d = sizes
        left_first = a * c * (b + d) <= b * d * (a + c)
        split = [[0, 0, 1 if left_first else 0]] + [[0, 0, 1]] * 2
    else:
        split = _chain_order(sizes)
    product = _multiply_chain(matrices, split, 0, len(matrices) - 1)
    return product.view(*out_shape)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of the matrices given (deprecated in PyTorch, with its warning
    once: :func:`multi_dot` takes a list). One matrix is returned as a copy."""
    warn_once(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
        "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
        "rather than multiple parameters.",
        stacklevel=2,
    )
    if len(matrices) == 1:
        if matrices[0].ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrices[0].ndim}, expected 2 instead.")
        return matrices[0].clone()
    for matrix in matrices:
        if matrix.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.ndim}, expected 2 instead.")
    return multi_dot(matrices)


# -- tensordot and inner ---------------------------------------------------------------


def _tensordot_dims(a: Tensor, b: Tensor, dims) -> tuple[list[int], list[int]]:
    """The contracted dimensions of a and of b, from tensordot's ``dims``: an int n
    (the last n of a with the first n of b) or two lists."""
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    first, second = dims
    if isinstance(first, int) or isinstance(second, int):
        raise TypeError(
            "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int"
        )
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise RuntimeError("both dimension lists should have same length")
    return first, second


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """Σ over the contracted dimensions of a·b: ``dims`` pairs dimensions of ``a``
    with dimensions of ``b``; the result has a's other dimensions, then b's.
    Computed as PyTorch computes it, so the graph shows its nodes: each operand
    permuted (contracted dimensions last in a, first in b), reshaped to a matrix,
    one mm, reshaped back. With nothing left over it is a dot product.

    >>> import autogradkit as torch
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1)
    tensor([[3., 3., 3., 3.],
            [3., 3., 3., 3.]])
    """
    from .linalg import dot, mm

    dims_a, dims_b = _tensordot_dims(a, b, dims)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    contracted_a = [d % a.ndim for d in dims_a]
    contracted_b = [d % b.ndim for d in dims_b]
    left, right, contracted_size = a, b, 1
    for da, db, given_a, given_b in zip(contracted_a, contracted_b, dims_a, dims_b):
        size_a, size_b = a.shape[da], b.shape[db]
        if size_b == 1:  # a size-1 dimension pairs with any size: sum the other side
            left = left.sum(da, keepdim=True)
        elif size_a == 1:
            right = right.sum(db, keepdim=True)
        elif size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim "
                f"{given_a} and second has size {size_b} in dim {given_b}"
            )
        else:
            contracted_size *= size_a
    free_a = [d for d in range(a.ndim) if d not in contracted_a]
    free_b = [d for d in range(b.ndim) if d not in contracted_b]
    out_shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    rows = int(np.prod([a.shape[d] for d in free_a]))
    columns = int(np.prod([b.shape[d] for d in free_b]))
    left = left.permute(*free_a, *dims_a)
    right = right.permute(*dims_b, *free_b)
    if rows == 1 and columns == 1:
        # A dot product (PyTorch's path): of the flattened operands when both are
        # laid out in order, else multiplied and summed (no copies).
        if left.is_contiguous() and right.is_contiguous():
            return dot(left.flatten(), right.flatten()).reshape(out_shape)
        return (left.squeeze() * right.squeeze()).sum().reshape(out_shape)
    left = left.reshape(rows, contracted_size)
    right = right.reshape(contracted_size, columns)
    return mm(left, right).reshape(out_shape)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Σ over the last dimension of both: for vectors the dot product, in general
    ``tensordot(input, other, ([-1], [-1]))``; a 0-d operand multiplies.

    >>> import autogradkit as torch
    >>> torch.inner(torch.tensor([1.0, 2.0]), torch.tensor([[1.0, 1.0], [0.0, 3.0]]))
    tensor([3., 6.])
    """
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))
