"""Matrix products. ``matmul`` dispatches on the operands' dimensions exactly as
PyTorch does, so the graph shows the same nodes: ``DotBackward0`` (vector·vector),
``MvBackward0`` (matrix·vector), ``MmBackward0`` (matrix·matrix), and for the
tutorial's vector·matrix an unsqueeze, an ``MmBackward0`` and a
``SqueezeBackward4``.
"""

from __future__ import annotations

import numpy as np

from .._dtype import c_type_name, scalar_type_name
from .._numpy_protocols import UFUNCS
from .._quiet_numpy import quietly
from ..autograd.forward_ad import tangent_of
from ..autograd.function import Bilinear, Function
from ..tensor import Tensor
from .arithmetic import Mul, broadcast_error
from .shape import SqueezeInplace, UnsafeView, Unsqueeze, View, expand

__all__ = ["matmul", "mm", "mv", "dot", "outer", "addmm"]


# ndarray.dot clears its output (memset) before BLAS writes it, which np.matmul does
# not; np.matmul costs more to dispatch instead. From about this many elements of
# output (32 KiB of float32) the clearing costs as much as the dispatch (measured:
# equal time at 64 KiB), so larger products use np.matmul.
_DOT_MAX_OUTPUT = 8192


def _mm(a, b):
    """a @ b for 2-d operands. On arrays, ndarray.dot for small results: for the
    small matrices of teaching examples it is about twice as fast as ``@`` (same
    result); np.matmul for large ones (see _DOT_MAX_OUTPUT). On tensors (a
    create_graph pass), ``@``, which records the product."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return a @ b
    if len(a) * b.shape[1] < _DOT_MAX_OUTPUT:
        return a.dot(b)
    return np.matmul(a, b)


def _t(m):
    """mᵀ for a matrix. On a tensor (a create_graph pass) ``t()``, which records
    TBackward0 as PyTorch's formula does (``.T`` would record PermuteBackward0)."""
    return m.T if type(m) is np.ndarray else m.t()


class Mm(Bilinear):
    """f(A, B) = A·B (matrices);   ∂f/∂A = G·Bᵀ,   ∂f/∂B = Aᵀ·G  (G: the gradient)"""

    node_name = "MmBackward0"
    formula = r"f(A, B) = A B \qquad \frac{\partial \ell}{\partial A} = G\,B^\top, \quad \frac{\partial \ell}{\partial B} = A^\top G \quad (G = \tfrac{\partial \ell}{\partial f})"

    @staticmethod
    def forward(ctx, a, b):
        (rows, inner), (inner_b, columns) = a.shape, b.shape
        if inner != inner_b:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and "
                f"{inner_b}x{columns})"
            )
        if a.dtype != b.dtype:
            _raise_dtype_mismatch(a, b)
        # Each operand is needed only for the other's gradient.
        ctx.save_for_backward(
            a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None
        )
        # _mm's choice, written out: this runs for every product a learner records.
        return a.dot(b) if rows * columns < _DOT_MAX_OUTPUT else np.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = _mm(grad_output, _t(b)) if ctx.needs_input_grad[0] else None
        grad_b = _mm(_t(a), grad_output) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Bmm(Bilinear):
    """f(A, B) = A·B for stacks of matrices of the same batch shape;
    ∂f/∂A = G·Bᵀ,   ∂f/∂B = Aᵀ·G, matrix by matrix"""

    node_name = "BmmBackward0"
    formula = r"f(A, B) = A B \text{ per batch} \qquad \frac{\partial \ell}{\partial A} = G\,B^\top, \quad \frac{\partial \ell}{\partial B} = A^\top G \quad (G = \tfrac{\partial \ell}{\partial f})"

    @staticmethod
    @quietly  # overflow and inf · 0, silently (as PyTorch)
    def forward(ctx, a, b):
        if a.dtype != b.dtype:  # PyTorch's bmm words it this way
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}"
            )
        # Each operand is needed only for the other's gradient.
        ctx.save_for_backward(
            a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None
        )
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = grad_output @ np.swapaxes(b, -1, -2) if ctx.needs_input_grad[0] else None
        grad_b = np.swapaxes(a, -1, -2) @ grad_output if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Mv(Bilinear):
    """f(A, v) = A·v;   ∂f/∂A = g vᵀ (outer product),   ∂f/∂v = Aᵀ·g"""

    node_name = "MvBackward0"
    formula = r"f(A, v) = A v \qquad \frac{\partial \ell}{\partial A} = g\,v^\top, \quad \frac{\partial \ell}{\partial v} = A^\top g \quad (g = \tfrac{\partial \ell}{\partial f})"

    @staticmethod
    @quietly  # overflow and inf · 0, silently (as PyTorch)
    def forward(ctx, a, v):
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})"
            )
        if a.dtype != v.dtype:
            _raise_dtype_mismatch(a, v)
        ctx.save_for_backward(
            a if ctx.needs_input_grad[1] else None, v if ctx.needs_input_grad[0] else None
        )
        return a @ v

    @staticmethod
    def backward(ctx, grad_output):
        a, v = ctx.saved_tensors
        grad_a = grad_output[:, None] * v[None, :] if ctx.needs_input_grad[0] else None
        grad_v = a.T @ grad_output if ctx.needs_input_grad[1] else None
        return grad_a, grad_v


class Dot(Bilinear):
    """f(x, y) = Σᵢ xᵢyᵢ;   ∂f/∂x = g·y,   ∂f/∂y = g·x"""

    node_name = "DotBackward0"
    formula = r"f(x, y) = \textstyle\sum_i x_i y_i \qquad \frac{\partial f}{\partial x} = y, \quad \frac{\partial f}{\partial y} = x"

    @staticmethod
    @quietly  # overflow and inf · 0, silently (as PyTorch)
    def forward(ctx, x, y):
        if x.shape != y.shape:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have the same number "
                f"of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively"
            )
        if x.dtype != y.dtype:  # PyTorch's dot words it this way
            raise RuntimeError(
                f"dot : expected both vectors to have same dtype, but found "
                f"{scalar_type_name(x.dtype)} and {scalar_type_name(y.dtype)}"
            )
        ctx.save_for_backward(
            x if ctx.needs_input_grad[1] else None, y if ctx.needs_input_grad[0] else None
        )
        return np.dot(x, y)

    # The product rule, exactly as for Mul: the 0-d gradient scales the other vector.
    backward = Mul.backward


def _raise_dtype_mismatch(a: np.ndarray, b: np.ndarray) -> None:
    raise RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {c_type_name(a.dtype)} != {c_type_name(b.dtype)}"
    )


def _check_tensors(input, other, name: str) -> None:
    for arg, position in ((input, 1), (other, 2)):
        if not isinstance(arg, Tensor):
            raise TypeError(
                f"{name}(): argument '{'input' if position == 1 else 'other'}' (position {position}) "
                f"must be Tensor, not {type(arg).__name__}"
            )


def _folded_matmul(input: Tensor, other: Tensor) -> Tensor:
    """A batch of matrices times one matrix or one vector, as PyTorch computes it:
    the batch dimensions folded into the rows of one matrix (ViewBackward0), one
    mm or mv, then unfolded (UnsafeViewBackward0)."""
    batch = input.shape[:-1]
    rows = int(np.prod(batch))
    if other.ndim == 1:
        if input.shape[-1] != other.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({rows}), mat ({rows}x{input.shape[-1]}), "
                f"vec ({other.shape[0]})"
            )
        folded = View.apply(input, (-1, input.shape[-1]))
        return UnsafeView.apply(Mv.apply(folded, other), batch)
    if input.shape[-1] != other.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} "
            f"and {other.shape[0]}x{other.shape[1]})"
        )
    folded = View.apply(input, (-1, input.shape[-1]))
    return UnsafeView.apply(Mm.apply(folded, other), batch + (other.shape[1],))


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's rules for 1-d and batched operands.

    >>> import autogradkit as torch
    >>> x, w = torch.ones(5), torch.ones(5, 3, requires_grad=True)
    >>> torch.matmul(x, w)
    tensor([5., 5., 5.], grad_fn=<SqueezeBackward4>)
    """
    _check_tensors(input, other, "matmul")
    a, b = input._data.ndim, other._data.ndim
    if a == 0 or b == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D"
        )
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        n, (rows, columns) = input._data.shape[0], other._data.shape
        if n != rows:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{n} and {rows}x{columns})"
            )
        # PyTorch computes vector @ matrix as (1×n row) @ matrix, then squeezes.
        tracked = input._requires_grad or tangent_of(input) is not None
        row = Unsqueeze.apply(input, 0) if tracked else Tensor._make(input._data[None])
        out = SqueezeInplace.apply(Mm.apply(row, other), (0,))
        # PyTorch squeezes with the in-place squeeze_, which bumps the version counter:
        # the result starts at version 1 (it shows in "is at version …" errors).
        out._version_counter[0] += 1
        return out
    if a == 2 and b == 2:
        return Mm.apply(input, other)
    if a >= 3 and b <= 2:
        return _folded_matmul(input, other)
    error = _batched_shape_error(input, other)
    if error is not None:
        raise error
    return _batched_matmul(input, other)


def _batched_shape_error(input: Tensor, other: Tensor) -> RuntimeError | None:
    """PyTorch's error for batched operands whose inner sizes differ. Its wording
    depends on how PyTorch would have computed the product: folded into one mm/mv
    (a ≥3-d tensor with a vector, or -- when the smaller operand requires grad -- a
    matrix or vector with a ≥3-d tensor, transposed) or as a bmm of broadcast
    batches."""
    a_shape, b_shape = tuple(input.shape), tuple(other.shape)
    inner_a, inner_b = a_shape[-1], (b_shape[-2] if len(b_shape) > 1 else b_shape[0])
    if inner_a == inner_b:
        return None
    t1: tuple[int, ...] | None = None
    t2: tuple[int, ...] = ()
    if len(a_shape) >= 3 and len(b_shape) <= 2:
        t1, t2 = a_shape, b_shape
    elif len(b_shape) >= 3 and len(a_shape) <= 2 and input._requires_grad:
        t1 = b_shape[:-2] + (b_shape[-1], b_shape[-2])
        t2 = a_shape[::-1]
    if t1 is not None:
        rows = int(np.prod(t1[:-1]))
        if len(t2) == 2:
            return RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{t1[-1]} and {t2[0]}x{t2[1]})"
            )
        return RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{t1[-1]}), vec ({t2[0]})"
        )
    x_batch = a_shape[:-2]
    y_batch = b_shape[:-2]
    try:
        batch = np.broadcast_shapes(x_batch, y_batch)
    except ValueError:
        return broadcast_error(np.broadcast_to(0, x_batch), np.broadcast_to(0, y_batch))
    n = int(np.prod(batch))
    return RuntimeError(
        f"Expected size for first two dimensions of batch2 tensor to be: "
        f"[{n}, {inner_a}] but got: [{n}, {inner_b}]."
    )


def _batched_matmul(input: Tensor, other: Tensor) -> Tensor:
    x = Unsqueeze.apply(input, 0) if input.ndim == 1 else input
    y = Unsqueeze.apply(other, 1) if other.ndim == 1 else other
    if x.shape[-1] != y.shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(x.shape[:-2]))}, {x.shape[-1]}] but got: "
            f"[{int(np.prod(y.shape[:-2]))}, {y.shape[-2]}]."
        )
    try:
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({x.shape[0]}) must match the size of tensor b ({y.shape[0]}) "
            "at non-singleton dimension 0"
        ) from None
    if x.shape[:-2] != batch:
        x = expand(x, *batch, *x.shape[-2:])
    if y.shape[:-2] != batch:
        y = expand(y, *batch, *y.shape[-2:])
    out = Bmm.apply(x, y)
    if input.ndim == 1:
        out = SqueezeInplace.apply(out, (-2,))
    if other.ndim == 1:
        out = SqueezeInplace.apply(out, (-1,))
    return out


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Product of two matrices (2-d only; see :func:`matmul` for the general case)."""
    _check_tensors(input, mat2, "mm")
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    return Mm.apply(input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix times vector."""
    for name, position, value in (("input", 1, input), ("vec", 2, vec)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"mv(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    return Mv.apply(input, vec)


def dot(input: Tensor, other: Tensor) -> Tensor:
    """Inner product of two vectors."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return Dot.apply(input, other)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors: ``out[i, j] = input[i] · vec2[j]``.

    Recorded as PyTorch records it: ``input`` viewed as a column, times ``vec2``
    broadcast along the rows (so the node is ``MulBackward0``).

    >>> import autogradkit as torch
    >>> torch.outer(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 10.0, 100.0]))
    tensor([[  1.,  10., 100.],
            [  2.,  20., 200.]])
    """
    # PyTorch calls the first argument `input` in its signature, `self` in the shape check.
    for argument, checked_as, position, value in (
        ("input", "self", 1, input),
        ("vec2", "vec2", 2, vec2),
    ):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"outer(): argument '{argument}' (position {position}) "
                f"must be Tensor, not {type(value).__name__}"
            )
        if value.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {checked_as}, but got {value.ndim}-D")
    return input.reshape(input.shape[0], 1) * vec2


class Addmm(Function):
    """f(b, A, B) = b + A·B (``nn.Linear``: bias + input·Wᵀ);
    ∂ℓ/∂b = G summed over rows,   ∂ℓ/∂A = G·Bᵀ,   ∂ℓ/∂B = Aᵀ·G"""

    node_name = "AddmmBackward0"
    formula = r"f(b, A, B) = b + A B \qquad \frac{\partial \ell}{\partial b} = \textstyle\sum_{\text{rows}} G, \quad \frac{\partial \ell}{\partial A} = G\,B^\top, \quad \frac{\partial \ell}{\partial B} = A^\top G"

    @staticmethod
    def forward(ctx, bias, a, b):
        (rows, inner), (inner_b, columns) = a.shape, b.shape
        if inner != inner_b:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and "
                f"{inner_b}x{columns})"
            )
        if a.dtype != b.dtype:
            _raise_dtype_mismatch(a, b)
        # As in Mm: each matrix is needed only for the other's gradient.
        _, needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        return _mm(a, b) + bias  # the base class sums b's gradient back to b's shape

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        _, needs_a, needs_b = ctx.needs_input_grad
        grad_a = _mm(grad_output, b.T) if needs_a else None
        grad_b = _mm(a.T, grad_output) if needs_b else None
        return grad_output, grad_a, grad_b

    @staticmethod
    def jvp(ctx, t_bias, t_a, t_b):
        """ḟ = ḃ + Ȧ·B + A·Ḃ (the product rule; b enters linearly)."""
        _, a, b = ctx.primals
        total = np.zeros_like(ctx.result) if t_bias is None else t_bias
        if t_a is not None:
            total = total + t_a.dot(b)
        if t_b is not None:
            total = total + a.dot(t_b)
        return total


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """input + mat1 @ mat2 (``input`` broadcast over the rows), recorded as one node."""
    return Addmm.apply(input, mat1, mat2)


# np.matmul called on tensors (in backward formulas under create_graph) runs matmul.
UFUNCS[np.matmul] = matmul
