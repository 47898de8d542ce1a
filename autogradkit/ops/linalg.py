"""Matrix products. ``matmul`` dispatches on the operands' dimensions exactly as
PyTorch does, so the graph shows the same nodes: ``DotBackward0`` (vector·vector),
``MvBackward0`` (matrix·vector), ``MmBackward0`` (matrix·matrix), and for the
tutorial's vector·matrix an unsqueeze, an ``MmBackward0`` and a
``SqueezeBackward4``.
"""

from __future__ import annotations

import numpy as np

# ``ndarray``, not ``np.ndarray``: NumPy's module has a __getattr__, so CPython 3.11
# cannot specialise ``np.<name>`` (about 370 instructions a read), and the type
# checks below run for every matrix product and its backward.
from numpy import ndarray

from .. import _operators
from .._dtype import c_type_name, scalar_type_name
from .._numpy_protocols import UFUNCS
from .._quiet_numpy import quietly, run_quietly, silently
from ..autograd import forward_ad
from ..autograd.forward_ad import tangent_of
from ..autograd.function import Bilinear, Function
from ..tensor import Tensor
from .arithmetic import Mul, broadcast_error
from .shape import SqueezeInplace, UnsafeView, Unsqueeze, expanded_shape

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "outer", "kron", "addmm"]


# ndarray.dot clears its output (memset) before BLAS writes it, which np.matmul does
# not; np.matmul costs more to dispatch instead. From about this many elements of
# output (32 KiB of float32) the clearing costs as much as the dispatch (measured:
# equal time at 64 KiB), so larger products use np.matmul.
_DOT_MAX_OUTPUT = 8192


_dot, _matmul = ndarray.dot, np.matmul


def _mm(a, b):
    """a @ b for 2-d operands. On arrays, ndarray.dot for small results: for the
    small matrices of teaching examples it is about twice as fast as ``@`` (same
    result); np.matmul for large ones (see _DOT_MAX_OUTPUT). On tensors (a
    create_graph pass), ``@``, which records the product."""
    if type(a) is not ndarray or type(b) is not ndarray:
        return a @ b
    if len(a) * b.shape[1] < _DOT_MAX_OUTPUT:
        return a.dot(b)
    return np.matmul(a, b)


def _t(m):
    """mᵀ for a matrix. On a tensor (a create_graph pass) ``t()``, which records
    TBackward0 as PyTorch's formula does (``.T`` would record PermuteBackward0)."""
    return m.T if type(m) is ndarray else m.t()


class Mm(Bilinear):
    """f(A, B) = A·B (matrices);   ∂f/∂A = G·Bᵀ,   ∂f/∂B = Aᵀ·G  (G: the gradient)"""

    node_name = "MmBackward0"
    saved_order = (1, 0)  # PyTorch packs mat2, then self
    formula = r"f(A, B) = A B \qquad \frac{\partial \ell}{\partial A} = G\,B^\top, \quad \frac{\partial \ell}{\partial B} = A^\top G \quad (G = \tfrac{\partial \ell}{\partial f})"

    @staticmethod
    def forward(ctx, a, b):
        # Only the dtypes are compared here (one identity test: NumPy would mix
        # them silently); inner sizes that differ make NumPy raise, and forward_error
        # words it as PyTorch does. Each check on the arrays costs about a tenth of
        # the product itself on the 3×3 matrices of teaching examples.
        if a.dtype is not b.dtype:
            _refuse_mixed_dtypes(a, b)
        # Each operand is needed only for the other's gradient.
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        # _mm's choice, written out: this runs for every product a learner records.
        # Silently, as PyTorch: inf · 0 is nan and overflow is inf without a word
        # (numpy_quietly written out: a Python call less, ~700 instructions a product).
        product = _dot if len(a) * b.shape[1] < _DOT_MAX_OUTPUT else _matmul
        try:
            return run_quietly(product, a, b)
        except RuntimeError:  # the quiet context is in use by another thread
            return silently(product, a, b)

    @classmethod
    def forward_error(cls, arrays, error):
        return _mm_operand_error(*arrays)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = _times_transposed(grad_output, b) if needs_a else None
        grad_b = _transposed_times(a, grad_output) if needs_b else None
        return grad_a, grad_b


def _mm_operand_error(a: np.ndarray, b: np.ndarray) -> RuntimeError | None:
    """PyTorch's error for mm's operands, in PyTorch's order: inner sizes that
    differ, then dtypes that differ (None if neither)."""
    (rows, inner), (inner_b, columns) = a.shape, b.shape
    if inner != inner_b:
        return RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and {inner_b}x{columns})"
        )
    if a.dtype != b.dtype:
        return _dtype_mismatch(a, b)
    return None


def _refuse_mixed_dtypes(a: np.ndarray, b: np.ndarray) -> None:
    """Raise PyTorch's error for operands whose dtypes differ (NumPy would compute
    with the wider one); a shape error comes first, as in PyTorch."""
    error = _mm_operand_error(a, b)
    if error is not None:
        raise error


def _times_transposed(g, m):
    """g·mᵀ (G·Bᵀ, the gradient of A in A·B): _mm(g, _t(m)) in one call, since it
    runs once per product in every backward pass (measured: 2k instructions of the
    14k MmBackward0 took on 3×3 matrices)."""
    if type(g) is ndarray and type(m) is ndarray:
        return g.dot(m.T) if len(g) * len(m) < _DOT_MAX_OUTPUT else np.matmul(g, m.T)
    return _mm(g, _t(m))


def _transposed_times(m, g):
    """mᵀ·g (Aᵀ·G, the gradient of B in A·B): _mm(_t(m), g) in one call."""
    if type(g) is ndarray and type(m) is ndarray:
        return m.T.dot(g) if m.shape[1] * g.shape[1] < _DOT_MAX_OUTPUT else np.matmul(m.T, g)
    return _mm(_t(m), g)


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
            # PyTorch's mv is addmv into a result of the vector's dtype, named first.
            raise RuntimeError(
                "addmv input tensors must have the same dtype, but got "
                f"{scalar_type_name(v.dtype)}, {scalar_type_name(a.dtype)}, and "
                f"{scalar_type_name(v.dtype)}"
            )
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


def _dtype_mismatch(a: np.ndarray, b: np.ndarray) -> RuntimeError:
    return RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {c_type_name(a.dtype)} != {c_type_name(b.dtype)}"
    )


def _check_tensors(input, other, name: str) -> None:
    for arg, position in ((input, 1), (other, 2)):
        if not isinstance(arg, Tensor):
            raise TypeError(
                f"{name}(): argument '{'input' if position == 1 else 'other'}' (position {position}) "
                f"must be Tensor, not {type(arg).__name__}"
            )


def _should_fold(input: Tensor, other: Tensor) -> bool:
    """PyTorch's choice for a product where one operand has ≥3 dimensions and the
    other ≤2: fold the batch dimensions of the larger into the rows of one matrix
    (one mm or mv) instead of broadcasting both into a bmm. It folds when the
    smaller operand requires grad (so that its gradient is one mm, not a sum over
    a broadcast batch), never when the smaller is a matrix on the left, and
    otherwise when the folding needs no copy (the batch dimensions of the larger,
    transposed if it is on the right, are laid out one after the other)."""
    larger_first = input.ndim >= other.ndim
    larger, smaller = (input, other) if larger_first else (other, input)
    if not (larger.ndim >= 3 and smaller.ndim <= 2):
        return False
    if smaller.requires_grad:
        return True
    if input.ndim == 2:
        return False
    data = larger._data if larger_first else np.swapaxes(larger._data, -1, -2)
    if data.size == 0:
        return True
    strides = [stride // data.itemsize for stride in data.strides]
    return all(strides[i] == strides[i + 1] * data.shape[i + 1] for i in range(data.ndim - 2))


def _folded_matmul(input: Tensor, other: Tensor) -> Tensor:
    """A batch of matrices times one matrix or vector, as PyTorch computes it: the
    batch dimensions folded into the rows of one matrix (a reshape), one mm or mv,
    then unfolded (UnsafeViewBackward0). With the batch on the right, the product
    is computed transposed, (Bᵀ·Aᵀ)ᵀ, and made contiguous (CloneBackward0)."""
    transpose = other.ndim > input.ndim
    if transpose:
        rows, right = other.mT, (input.t() if input.ndim == 2 else input)
    else:
        rows, right = input, other
    batch = tuple(rows.shape[:-1])
    folded = rows.reshape(int(np.prod(batch)), rows.shape[-1])
    if right.ndim == 1:
        return UnsafeView.apply(mv(folded, right), batch)
    product = UnsafeView.apply(mm(folded, right), batch + (right.shape[1],))
    return product.mT.contiguous() if transpose else product


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's rules for 1-d and batched operands.

    >>> import autogradkit as torch
    >>> x, w = torch.ones(5), torch.ones(5, 3, requires_grad=True)
    >>> torch.matmul(x, w)
    tensor([5., 5., 5.], grad_fn=<SqueezeBackward4>)
    """
    # The loop of _check_tensors only when a check fails (it costs 3k instructions,
    # a twentieth of the tutorial's x @ w).
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
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
        # A view goes through Unsqueeze even if it needs no grad: one made under
        # no_grad of a tensor that requires grad requires grad through its base.
        tracked = (
            input._requires_grad
            or input._view is not None
            or (forward_ad.state.level is not None and tangent_of(input) is not None)
        )  # (a tangent exists only inside a dual level; the lookup costs 2k)
        row = Unsqueeze.apply(input, 0) if tracked else _untracked_row(input)
        out = SqueezeInplace.apply(Mm.apply(row, other))
        # PyTorch squeezes with the in-place squeeze_, which bumps the version counter:
        # the result starts at version 1 (it shows in "is at version …" errors).
        out._version_counter[0] += 1
        return out
    if a == 2 and b == 2:
        return Mm.apply(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _untracked_row(vector: Tensor) -> Tensor:
    """``vector`` as a 1×n row, for an operand that needs no unsqueeze node. It
    shares the vector's version counter, as PyTorch's unsqueeze view does: mm saves
    the row for the matrix's gradient, so changing the vector in place before
    backward is refused, not differentiated with the new values."""
    row = Tensor._make(vector._data[None])
    row._version_counter = vector._version_counter
    return row


def _broadcast_batches(batch1: tuple, batch2: tuple) -> tuple:
    """The batch shape both operands broadcast to, or PyTorch's error."""
    try:
        return tuple(np.broadcast_shapes(batch1, batch2))
    except ValueError:
        raise broadcast_error(np.broadcast_to(0, batch1), np.broadcast_to(0, batch2)) from None


def _batched_matmul(input: Tensor, other: Tensor) -> Tensor:
    """Batches of matrices (or vectors) on both sides, as PyTorch computes them:
    both broadcast to one batch shape (ExpandBackward0), each reshaped into a
    3-d stack, one bmm, and the result unfolded (UnsafeViewBackward0). Two 3-d
    stacks whose batch sizes differ, one of them 1 and requiring grad, lose that
    dimension first (SqueezeBackward1), so its gradient is one product."""
    if input.ndim == 3 and other.ndim == 3 and input.shape[0] != other.shape[0]:
        if input.shape[0] == 1 and input.requires_grad:
            return matmul(input.squeeze(0), other)
        if other.shape[0] == 1 and other.requires_grad:
            return matmul(input, other.squeeze(0))
    n = input.shape[-2] if input.ndim > 1 else 1
    m1 = input.shape[-1]
    m2 = other.shape[-2] if other.ndim > 1 else other.shape[0]
    p = other.shape[-1] if other.ndim > 1 else 1
    batch = _broadcast_batches(tuple(input.shape[:-2]), tuple(other.shape[:-2]))
    stacks = int(np.prod(batch))
    left = input.expand(*batch, n, m1).reshape(stacks, n, m1)
    if other.ndim == 1:
        right = other.expand(*batch, m2).reshape(stacks, m2).unsqueeze(2)
    else:
        right = other.expand(*batch, m2, p).reshape(stacks, m2, p)
    product = bmm(left, right)
    if other.ndim == 1:
        product = product.squeeze(-1)
    shape = batch + ((n,) if input.ndim > 1 else ()) + ((p,) if other.ndim > 1 else ())
    return UnsafeView.apply(product, shape)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Product of two matrices (2-d only; see :func:`matmul` for the general case)."""
    _check_tensors(input, mat2, "mm")
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    return Mm.apply(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Products of two stacks of matrices, one pair at a time: ``input`` is
    (b, n, m), ``mat2`` is (b, m, p) and the result (b, n, p). No broadcasting
    (see :func:`matmul` for that).

    >>> import autogradkit as torch
    >>> a = torch.ones(2, 3, 4, requires_grad=True)
    >>> torch.bmm(a, torch.ones(2, 4, 5)).shape
    autogradkit.Size([2, 3, 5])
    """
    _check_tensors(input, mat2, "bmm")
    for name, value in (("batch1", input), ("batch2", mat2)):
        if value.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (stacks, _, inner), (stacks2, rows2, _) = input.shape, mat2.shape
    if (stacks2, rows2) != (stacks, inner):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{stacks}, {inner}] but got: [{stacks2}, {rows2}]."
        )
    return Bmm.apply(input, mat2)


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


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of
    ``other``, laid out block by block (for matrices, block (i, j) is
    ``input[i, j] · other``); the result's size in each dimension is the product
    of theirs (the one with fewer dimensions gets leading 1s).

    Recorded as PyTorch computes it: each operand viewed with a size-1 dimension
    after (``input``) or before (``other``) each of its own, so that one
    broadcast product makes every pair; then that product viewed in the result's
    shape (``UnsafeViewBackward0`` over ``MulBackward0``).

    >>> import autogradkit as torch
    >>> torch.kron(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1.0, 10.0]))
    tensor([[ 1., 10.,  2., 20.],
            [ 3., 30.,  4., 40.]])
    """
    for argument, position, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"kron(): argument '{argument}' (position {position}) "
                f"must be Tensor, not {type(value).__name__}"
            )
    ndim = max(input.ndim, other.ndim)
    a_sizes = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b_sizes = (1,) * (ndim - other.ndim) + tuple(other.shape)
    a_shape = tuple(n for size in a_sizes for n in (size, 1))  # (a0, 1, a1, 1, ...)
    b_shape = tuple(n for size in b_sizes for n in (1, size))  # (1, b0, 1, b1, ...)
    product = UnsafeView.apply(input, a_shape) * UnsafeView.apply(other, b_shape)
    return UnsafeView.apply(product, tuple(a * b for a, b in zip(a_sizes, b_sizes)))


class Addmm(Function):
    """f(b, A, B) = b + A·B (``nn.Linear``: bias + input·Wᵀ);
    ∂ℓ/∂b = G summed over rows,   ∂ℓ/∂A = G·Bᵀ,   ∂ℓ/∂B = Aᵀ·G"""

    node_name = "AddmmBackward0"
    formula = r"f(b, A, B) = b + A B \qquad \frac{\partial \ell}{\partial b} = \textstyle\sum_{\text{rows}} G, \quad \frac{\partial \ell}{\partial A} = G\,B^\top, \quad \frac{\partial \ell}{\partial B} = A^\top G"

    @staticmethod
    def forward(ctx, bias, a, b):
        _check_addmm(bias, a, b)
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


def _check_addmm(bias: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """PyTorch's refusals for ``addmm(bias, a, b)``, in its order: the dtypes, the
    product's shapes, then a bias that does not broadcast to the product."""
    if bias.dtype != b.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {scalar_type_name(bias.dtype)} "
            f"and {scalar_type_name(b.dtype)}"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(a.dtype)} "
            f"and {scalar_type_name(b.dtype)}"
        )
    (rows, inner), (inner_b, columns) = a.shape, b.shape
    if inner != inner_b:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and {inner_b}x{columns})"
        )
    if bias.shape != (columns,):  # (nn.Linear's bias always fits)
        expanded_shape(bias, (rows, columns))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """input + mat1 @ mat2 (``input`` broadcast over the rows), recorded as one node."""
    for name, matrix in (("mat1", mat1), ("mat2", mat2)):
        if matrix.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix.ndim}-D tensor")
    return Addmm.apply(input, mat1, mat2)


# np.matmul called on tensors (in backward formulas under create_graph) runs matmul.
UFUNCS[np.matmul] = matmul
# Tensor's @ of two matrices calls Mm.apply bound once (see _operators.bind_arithmetic).
_operators.bind_matmul(Mm)
