"""Functions of square matrices: the inverse, the determinant (and its logarithm),
solving a linear system and integer powers, batched over leading dimensions as in
PyTorch (``A`` of shape ``(*, n, n)``).

The derivatives all come from one identity, d(A⁻¹) = −A⁻¹ (dA) A⁻¹:

* inverse:       ∂ℓ/∂A = −A⁻ᵀ G A⁻ᵀ
* determinant:   ∂det/∂A = det(A) A⁻ᵀ (the cofactor matrix, which also exists where
  A is singular)
* log |det|:     ∂ℓ/∂A = g A⁻ᵀ
* solve AX = B:  ∂ℓ/∂B = A⁻ᵀ G,  ∂ℓ/∂A = −(∂ℓ/∂B) Xᵀ

Each backward formula is written with ``@``, ``.mT`` and the operations of this
module, so a ``create_graph`` pass records it and second derivatives follow.
The NumPy work is ``np.linalg`` (LAPACK, as PyTorch's CPU kernels).
"""

from __future__ import annotations

import operator

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from ..autograd.function import Function, MultiOutputFunction
from ..tensor import Tensor
from .arithmetic import broadcast_error
from .where import where

__all__ = [
    "LinAlgError",
    "inv",
    "inverse",
    "det",
    "logdet",
    "slogdet",
    "linalg_slogdet",
    "solve",
    "matrix_power",
]


class _LinAlgError(RuntimeError):
    """PyTorch's error for a matrix the computation cannot handle (a singular one):
    a RuntimeError, so ``except RuntimeError`` catches it, as in PyTorch, where it
    is ``torch._C._LinAlgError`` (also ``torch.linalg.LinAlgError``)."""


LinAlgError = _LinAlgError


# -- checks, in PyTorch's words --------------------------------------------------------


def _check_matrices(a: Tensor, name: str, argument: str = "A") -> None:
    """PyTorch's refusals of what is not a (batch of) square matrices."""
    if not isinstance(a, Tensor):
        raise TypeError(
            f"{name.removeprefix('linalg.')}(): argument '{argument}' (position 1) must be "
            f"Tensor, not {type(a).__name__}"
        )
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {argument} must have at least 2 dimensions.")
    rows, columns = a.shape[-2:]
    if rows != columns:
        raise RuntimeError(
            f"{name}: {argument} must be batches of square matrices, but they are "
            f"{rows} by {columns} matrices"
        )


def _check_floating(a: Tensor, name: str) -> None:
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. "
            f"Got {scalar_type_name(a._data.dtype)}"
        )


def _lu_factors(matrix: np.ndarray) -> tuple[np.ndarray, float]:
    """The diagonal of U and the sign of the row swaps in the LU factorisation with
    partial pivoting that LAPACK's getrf computes (as plain elimination: enough to
    say which pivot of a singular matrix is zero, and the sign of its zero det).
    Like getrf, the elimination goes on past a zero pivot."""
    u = matrix.copy()
    n, swaps = len(u), 0
    for k in range(n):
        pivot_row = k + int(np.argmax(np.abs(u[k:, k])))
        if pivot_row != k:
            u[[k, pivot_row]] = u[[pivot_row, k]]
            swaps += 1
        if u[k, k] != 0:
            u[k + 1 :, k:] -= np.outer(u[k + 1 :, k] / u[k, k], u[k, k:])
    return np.diagonal(u).copy(), -1.0 if swaps % 2 else 1.0


def _first_zero_pivot(matrix: np.ndarray) -> int:
    """Which diagonal element of U is zero (1-based; 0: none): PyTorch names it when
    it refuses to invert a singular matrix."""
    zeros = np.flatnonzero(_lu_factors(matrix)[0] == 0)
    return int(zeros[0]) + 1 if len(zeros) else 0


def _signed_zero_determinants(a: np.ndarray) -> np.ndarray:
    """det A per matrix as PyTorch's LU computes it, where it is 0 with a sign
    (-0.0 after an odd number of row swaps): log|det| divides by it."""
    stack = a.reshape(-1, *a.shape[-2:])
    dets = [sign * np.prod(diagonal) for diagonal, sign in map(_lu_factors, stack)]
    return np.array(dets, a.dtype).reshape(a.shape[:-2])


def _batch_prefix(batch_index: int | None) -> str:
    return "" if batch_index is None else f"(Batch element {batch_index}): "


def _singular_element(a: np.ndarray) -> tuple[int | None, int]:
    """(batch index or None, 1-based zero pivot) of the first singular matrix of ``a``."""
    stack = a.reshape(-1, *a.shape[-2:])
    for index, matrix in enumerate(stack):
        pivot = _first_zero_pivot(matrix)
        if pivot:
            return (index if a.ndim > 2 else None), pivot
    # LAPACK found a zero pivot that this elimination rounded away: name the last.
    return (0 if a.ndim > 2 else None), a.shape[-1]


def _column_major(matrices: np.ndarray) -> np.ndarray:
    """The same values with each matrix stored column by column, as PyTorch returns
    what LAPACK computed (Fortran's order): such a result is not contiguous, so
    ``view`` refuses it and ``reshape`` copies it, as in PyTorch."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(matrices, -1, -2)), -1, -2)


def _inverted(a: np.ndarray) -> np.ndarray:
    """A⁻¹ matrix by matrix (stored as PyTorch stores it), or PyTorch's error for a
    singular one."""
    try:
        with np.errstate(all="ignore"):
            return _column_major(np.linalg.inv(a))
    except np.linalg.LinAlgError:
        batch_index, pivot = _singular_element(a)
        raise _LinAlgError(
            f"linalg.inv: {_batch_prefix(batch_index)}The diagonal element {pivot} is zero, "
            "the inversion could not be completed because the input matrix is singular."
        ) from None


def _mT(m):
    """The last two dimensions swapped: on arrays a view, on tensors (a
    create_graph pass) ``.mT``, which records it."""
    return np.swapaxes(m, -1, -2) if isinstance(m, np.ndarray) else m.mT


def _as_matrix_scalars(values):
    """(*,) → (*, 1, 1): one number per matrix, to scale each matrix of a batch."""
    if isinstance(values, Tensor):
        return values.unsqueeze(-1).unsqueeze(-1)
    return np.asarray(values)[..., None, None]  # (0-d arrays multiply into NumPy scalars)


def _inverse_of(a):
    """A⁻¹ inside a backward formula: computed on arrays, recorded on tensors."""
    return _inverted(a) if isinstance(a, np.ndarray) else LinalgInv.apply(a)


# -- inverse ---------------------------------------------------------------------------


class LinalgInv(Function):
    """f(A) = A⁻¹;   ∂ℓ/∂A = −A⁻ᵀ G A⁻ᵀ  (from d(A⁻¹) = −A⁻¹ dA A⁻¹)

    >>> import autogradkit as torch
    >>> A = torch.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> torch.linalg.inv(A)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]], grad_fn=<LinalgInvExBackward0>)
    """

    node_name = "LinalgInvExBackward0"  # PyTorch's inv is its linalg.inv_ex
    formula = r"f(A) = A^{-1} \qquad \frac{\partial \ell}{\partial A} = -A^{-\top} G\, A^{-\top}"

    @staticmethod
    def forward(ctx, a):
        inverse = _inverted(a)
        ctx.save_for_backward(inverse)  # PyTorch keeps the result, not A
        return inverse

    @staticmethod
    def backward(ctx, grad_output):
        (inverse,) = ctx.saved_tensors
        transposed = _mT(inverse)
        return -(transposed @ (grad_output @ transposed))

    @staticmethod
    def jvp(ctx, tangent):
        """Ḟ = −A⁻¹ Ȧ A⁻¹."""
        inverse = ctx.result
        return -(inverse @ tangent @ inverse)


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix, or of each in a batch ``(*, n, n)``.

    A singular matrix is refused with PyTorch's ``_LinAlgError`` (a RuntimeError).

    >>> import autogradkit as torch
    >>> torch.linalg.inv(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[-2.0000,  1.0000],
            [ 1.5000, -0.5000]])
    """
    _check_matrices(A, "linalg.inv")
    _check_floating(A, "linalg.inv")
    return LinalgInv.apply(A)


def inverse(input: Tensor) -> Tensor:
    """``torch.inverse``: :func:`inv` (same node, same errors)."""
    return inv(input)


# -- determinant -----------------------------------------------------------------------


def _determinant_gradient(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """∂det/∂A: det(A)·A⁻ᵀ, the cofactor matrix. Where a matrix of the batch is
    singular, A⁻¹ does not exist but the cofactors do: from A = U S Vᵀ (SVD),
    ∂det/∂A = det(U) det(Vᵀ) · U diag(Πⱼ≠ᵢ sⱼ) Vᵀ (as PyTorch's backward does)."""
    with np.errstate(all="ignore"):
        try:
            return _as_matrix_scalars(det) * _mT(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            u, s, vh = np.linalg.svd(a)
            n = s.shape[-1]
            others = np.stack(
                [np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1
            )
            orientation = np.linalg.det(u) * np.linalg.det(vh)
            scaled = _as_matrix_scalars(orientation) * (u * others[..., None, :])
            return (scaled @ vh).astype(a.dtype)


class LinalgDet(Function):
    """f(A) = det A;   ∂f/∂A = det(A)·A⁻ᵀ (the matrix of cofactors)

    >>> import autogradkit as torch
    >>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> torch.det(A).backward()
    >>> A.grad
    tensor([[ 3., -1.],
            [-1.,  2.]])
    """

    node_name = "LinalgDetBackward0"
    formula = r"f(A) = \det A \qquad \frac{\partial f}{\partial A} = \det(A)\, A^{-\top}"

    @staticmethod
    def forward(ctx, a):
        with np.errstate(all="ignore"):
            det = np.asarray(np.linalg.det(a), a.dtype)
        ctx.save_for_backward(a, det)
        return det

    @staticmethod
    def backward(ctx, grad_output):
        a, det = ctx.saved_tensors
        if isinstance(a, np.ndarray):
            return _as_matrix_scalars(grad_output) * _determinant_gradient(a, det)
        # A create_graph pass: det·A⁻ᵀ, recorded (A⁻¹ exists only where det ≠ 0).
        if not np.all(det._data):
            raise NotImplementedError(
                "autogradkit: the second derivative of det at a singular matrix is not "
                "implemented (PyTorch computes it through an SVD)."
            )
        return _as_matrix_scalars(grad_output * det) * _mT(_inverse_of(a))

    @staticmethod
    def jvp(ctx, tangent):
        """ḟ = Σᵢⱼ (∂det/∂A)ᵢⱼ Ȧᵢⱼ (= det(A)·tr(A⁻¹Ȧ) where A is invertible)."""
        (a,) = ctx.primals
        return np.asarray((_determinant_gradient(a, ctx.result) * tangent).sum(axis=(-2, -1)))


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix, or of each in a batch ``(*, n, n)``.

    >>> import autogradkit as torch
    >>> torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    _check_matrices(A, "linalg.det")
    _check_floating(A, "linalg.det")
    return LinalgDet.apply(A)


# -- sign and log of |det| -------------------------------------------------------------


class LinalgSlogdet(MultiOutputFunction):
    """(s, l) = (sign det A, log |det A|);   ∂ℓ/∂A = g_l·A⁻ᵀ (the sign is piecewise
    constant: its gradient is 0, and PyTorch ignores it)

    >>> import autogradkit as torch
    >>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> torch.linalg.slogdet(A).logabsdet.backward()
    >>> A.grad
    tensor([[ 0.6000, -0.2000],
            [-0.2000,  0.4000]])
    """

    node_name = "LinalgSlogdetBackward0"
    formula = r"(s, l) = (\operatorname{sign}\det A, \log|\det A|) \qquad \frac{\partial \ell}{\partial A} = g_l\, A^{-\top}"

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        with np.errstate(all="ignore"):
            sign, logabsdet = np.linalg.slogdet(a)
        return np.asarray(sign, a.dtype), np.asarray(logabsdet, a.dtype)

    @classmethod
    def backward(cls, ctx, grad_outputs):
        (a,) = ctx.saved_tensors
        _, grad_logabsdet = grad_outputs
        if grad_logabsdet is None:  # only the sign was used: no gradient, as PyTorch
            return (None,)
        if isinstance(a, np.ndarray):
            # g·A⁻ᵀ = g·cofactors / det, which is ±inf at a singular matrix, as in
            # PyTorch (the gradient of log|det| grows without bound there).
            with np.errstate(all="ignore"):
                try:
                    inverse = np.linalg.inv(a)
                except np.linalg.LinAlgError:
                    dets = _signed_zero_determinants(a)
                    inverse = _mT(_determinant_gradient(a, dets) / _as_matrix_scalars(dets))
                return (_as_matrix_scalars(grad_logabsdet) * _mT(inverse),)
        return (_as_matrix_scalars(grad_logabsdet) * _mT(_inverse_of(a)),)

    @classmethod
    def jvp(cls, ctx, tangent):
        """ṡ = 0, l̇ = tr(A⁻¹ Ȧ)."""
        (a,) = ctx.primals
        inverse = _inverted(a)
        rate = np.einsum("...ij,...ji->...", inverse, tangent)
        return np.zeros(a.shape[:-2], a.dtype), np.asarray(rate, a.dtype)


def _slogdet(A: Tensor, name: str) -> tuple[Tensor, Tensor]:
    _check_matrices(A, name)
    _check_floating(A, name)
    return LinalgSlogdet.apply(A)


def slogdet(input: Tensor) -> return_types.slogdet:
    """``(sign, logabsdet)``: the sign of det A and log |det A|, one node for both
    (a ``return_types.slogdet``; ``torch.linalg.slogdet`` names it
    ``linalg_slogdet``). log |det| stays finite where det itself would overflow.

    >>> import autogradkit as torch
    >>> torch.slogdet(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    autogradkit.return_types.slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.6931))
    """
    return return_types.slogdet(*_slogdet(input, "linalg.slogdet"))


def linalg_slogdet(A: Tensor) -> return_types.linalg_slogdet:
    """``torch.linalg.slogdet``: :func:`slogdet`, named as ``torch.linalg`` names it."""
    return return_types.linalg_slogdet(*_slogdet(A, "linalg.slogdet"))


def logdet(input: Tensor) -> Tensor:
    """log det A: log |det A| where det A > 0, nan where it is negative, -inf where
    it is 0. Computed as PyTorch computes it, through slogdet and a ``where``.

    >>> import autogradkit as torch
    >>> torch.logdet(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    _check_matrices(input, "logdet")
    _check_floating(input, "logdet")
    sign, logabsdet = LinalgSlogdet.apply(input)
    return where(sign == -1, float("nan"), logabsdet)


# -- solve -----------------------------------------------------------------------------


class LinalgSolve(Function):
    """X = A⁻¹B, the solution of AX = B;   ∂ℓ/∂B = A⁻ᵀ G (another solve),
    ∂ℓ/∂A = −(∂ℓ/∂B) Xᵀ. ``vector``: B is a vector (or a batch of them)

    >>> import autogradkit as torch
    >>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
    >>> torch.linalg.solve(A, torch.tensor([3.0, 5.0]))
    tensor([0.8000, 1.4000])
    """

    node_name = "LinalgSolveExBackward0"
    formula = r"X = A^{-1} B \qquad \frac{\partial \ell}{\partial B} = A^{-\top} G, \quad \frac{\partial \ell}{\partial A} = -A^{-\top} G\, X^\top"

    @staticmethod
    def forward(ctx, a, b, vector):
        ctx.vector = vector
        try:
            with np.errstate(all="ignore"):
                x = np.linalg.solve(a, b[..., None] if vector else b)
        except np.linalg.LinAlgError:
            raise _singular_system(a) from None
        x = x[..., 0] if vector else _column_major(x)
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        a, x = ctx.saved_tensors
        needs_a, needs_b, _ = ctx.needs_input_grad
        grad_b = _solved(_mT(a), grad_output, ctx.vector)
        grad_a = None
        if needs_a:
            if ctx.vector:
                grad_a = -(_unsqueezed(grad_b, -1) * _unsqueezed(x, -2))
            else:
                grad_a = -(grad_b @ _mT(x))
        return grad_a, (grad_b if needs_b else None), None

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b, _):
        """Ẋ = A⁻¹ (Ḃ − Ȧ X)."""
        a, _, vector = ctx.primals
        x = ctx.result[..., None] if vector else ctx.result  # (a vector as a column)
        rate = np.zeros_like(x)
        if tangent_b is not None:
            rate = rate + (tangent_b[..., None] if vector else tangent_b)
        if tangent_a is not None:
            rate = rate - tangent_a @ x
        change = np.linalg.solve(a, rate)
        return change[..., 0] if vector else change


def _unsqueezed(m, dim: int):
    return np.expand_dims(m, dim) if isinstance(m, np.ndarray) else m.unsqueeze(dim)


def _solved(a, b, vector: bool):
    """A⁻¹B inside a backward formula: computed on arrays, recorded on tensors."""
    if isinstance(a, np.ndarray):
        try:
            with np.errstate(all="ignore"):
                x = np.linalg.solve(a, b[..., None] if vector else b)
        except np.linalg.LinAlgError:
            raise _singular_system(a) from None
        return x[..., 0] if vector else x
    return LinalgSolve.apply(a, b, vector)


def _singular_system(a: np.ndarray) -> _LinAlgError:
    batch_index, _ = _singular_element(a) if a.ndim > 2 else (None, 0)
    return _LinAlgError(
        f"torch.linalg.solve: {_batch_prefix(batch_index)}The solver failed because the "
        "input matrix is singular."
    )


def _check_solve(A: Tensor, B: Tensor) -> bool:
    """PyTorch's refusals for ``solve(A, B)``, in its order; whether B is a vector
    (or a batch of vectors: PyTorch's rule, B of A's shape without its last size)."""
    for argument, value, position in (("A", A, 1), ("B", B, 2)):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"linalg_solve(): argument '{argument}' (position {position}) must be "
                f"Tensor, not {type(value).__name__}"
            )
    if A.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not vector and B.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_type_name(A._data.dtype)} and B of type "
            f"{scalar_type_name(B._data.dtype)} instead"
        )
    _check_floating(A, "linalg.solve")
    _check_matrices(A, "linalg.solve")
    n = A.shape[-1]
    rows, columns = (B.shape[-1], 1) if vector else tuple(B.shape[-2:])
    if rows != n:
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({n}x{n} and {rows}x{columns})"
        )
    batch_a = tuple(A.shape[:-2])
    batch_b = tuple(B.shape[:-1] if vector else B.shape[:-2])
    try:
        np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        raise broadcast_error(np.empty(batch_b), np.empty(batch_a)) from None
    return vector


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with AX = B, for a square A (or a batch), without forming A⁻¹. B is a
    matrix ``(*, n, k)`` or a vector ``(*, n)``; batch dimensions broadcast.

    >>> import autogradkit as torch
    >>> torch.linalg.solve(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.tensor([1.0, 1.0]))
    tensor([0.5000, 0.2500])
    """
    if not left:
        raise NotImplementedError("autogradkit's linalg.solve supports left=True only")
    vector = _check_solve(A, B)
    return LinalgSolve.apply(A, B, vector)


# -- integer powers --------------------------------------------------------------------


def matrix_power(input: Tensor, n: int) -> Tensor:
    """Aⁿ for an integer n (A⁻¹ multiplied for n < 0, the identity for n = 0),
    computed as PyTorch computes it, so the graph shows its nodes: A·A and (A·A)·A
    for n = 2, 3, then squaring (A, A², A⁴, …) and multiplying in the squares that
    n's binary digits select.

    >>> import autogradkit as torch
    >>> torch.linalg.matrix_power(torch.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    from .linalg import matmul  # (linalg's matmul imports nothing from here)

    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(
            f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    _check_matrices(input, "linalg.matrix_power")
    if n == 0:
        # PyTorch copies the identity into a clone of A: the graph reaches A, with
        # gradient 0.
        identity = np.broadcast_to(np.eye(input.shape[-1], dtype=input._data.dtype), input.shape)
        return input.clone().copy_(Tensor._make(np.array(identity)))
    if n == 1:
        return input.clone()
    if n == -1:
        return inv(input)
    a = inv(input) if n < 0 else input
    n = operator.index(abs(n))
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    # Binary powers: the squares A, A², A⁴, …; the result starts at the square of
    # n's lowest 1 bit and is multiplied by the square of each further 1 bit.
    square = a
    while n % 2 == 0:
        square, n = matmul(square, square), n // 2
    result, n = square, n // 2
    while n > 0:
        square = matmul(square, square)
        if n % 2:
            result = matmul(result, square)
        n //= 2
    return result
