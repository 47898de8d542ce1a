"""The pseudo-inverse A⁺ of any matrix (``linalg.pinv``, ``pinverse``): from the
singular value decomposition A = U S Vᵀ, A⁺ = V S⁺ Uᵀ, where S⁺ inverts the
singular values above a cut-off and puts 0 for the others. For a square invertible
matrix it is A⁻¹; for a tall matrix of full column rank, (AᵀA)⁻¹Aᵀ, the least-squares
solver.
"""

from __future__ import annotations

import numpy as np

from .. import return_types
from .._dtype import scalar_type_name
from ..autograd import forward_ad
from ..autograd.function import Function, MultiOutputFunction
from ..tensor import Tensor

__all__ = ["pinv", "pinverse", "lstsq"]


def _mT(m):
    return np.swapaxes(m, -1, -2) if isinstance(m, np.ndarray) else m.mT


class LinalgPinv(Function):
    """f(A) = A⁺;   with P = A⁺ and G the gradient of the loss (P's derivative
    where A's rank does not change, Golub & Pereyra):
    ∂ℓ/∂A = −Pᵀ G Pᵀ + (I − A P) Gᵀ P Pᵀ + Pᵀ P Gᵀ (I − P A)

    >>> import autogradkit as torch
    >>> torch.linalg.pinv(torch.tensor([[1.0], [1.0]]))
    tensor([[0.5000, 0.5000]])
    """

    node_name = "LinalgPinvBackward0"
    formula = r"f(A) = A^{+} \qquad \frac{\partial \ell}{\partial A} = -P^\top G P^\top + (I - A P)\, G^\top P P^\top + P^\top P\, G^\top (I - P A)"

    @staticmethod
    def forward(ctx, a, atol, rtol):
        with np.errstate(all="ignore"):
            pseudo_inverse = _pseudo_inverse(a, atol, rtol)
        ctx.save_for_backward(a, pseudo_inverse)
        return pseudo_inverse

    @staticmethod
    def backward(ctx, grad_output):
        a, p = ctx.saved_tensors
        return _pinv_gradient(a, p, grad_output), None, None

    @staticmethod
    def jvp(ctx, tangent, _atol, _rtol):
        """Ṗ = −P Ȧ P + P Pᵀ Ȧᵀ (I − A P) + (I − P A) Ȧᵀ Pᵀ P."""
        a = ctx.primals[0]
        p = ctx.result
        p_t, t_t = _mT(p), _mT(tangent)
        first = p @ p_t @ t_t
        second = t_t @ p_t @ p
        return -(p @ tangent @ p) + (first - (first @ a) @ p) + (second - p @ (a @ second))


def _pinv_gradient(a, p, grad):
    """∂ℓ/∂A for P = A⁺, given G = ∂ℓ/∂P (see LinalgPinv): arrays, or tensors in a
    create_graph pass. The identities are multiplied out, so that the same lines
    record on tensors."""
    p_t, g_t = _mT(p), _mT(grad)
    left = g_t @ p @ p_t  # Gᵀ P Pᵀ
    right = p_t @ p @ g_t  # Pᵀ P Gᵀ
    return -(p_t @ grad @ p_t) + (left - a @ (p @ left)) + (right - (right @ p) @ a)


def _pseudo_inverse(a: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """V S⁺ Uᵀ, singular values at or below max(atol, rtol·s_max) taken as 0."""
    if a.size == 0:
        return np.zeros((*a.shape[:-2], a.shape[-1], a.shape[-2]), a.dtype)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    cutoff = np.maximum(atol, rtol * s.max(axis=-1, keepdims=True))
    kept = s > cutoff
    inverted = np.where(kept, 1 / np.where(kept, s, 1), 0).astype(a.dtype)
    return np.ascontiguousarray((_mT(vh) * inverted[..., None, :]) @ _mT(u))


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    """The pseudo-inverse of a matrix (or of each in a batch). Singular values at
    or below max(atol, rtol·σ_max) count as 0; by default atol = 0 and rtol =
    ε·max(m, n) (0 when only a positive atol is given), as in PyTorch.
    ``hermitian`` is accepted; the SVD gives the same result.

    >>> import autogradkit as torch
    >>> torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    if not isinstance(A, Tensor):
        raise TypeError(
            f"linalg_pinv(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if A.ndim < 2 or A._data.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.pinv({scalar_type_name(A._data.dtype)}{{{list(A.shape)}}}): expected a "
            "tensor with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    if rtol is None:
        given_atol = atol is not None and float(atol) > 0
        rtol = 0.0 if given_atol else float(np.finfo(A._data.dtype).eps) * max(A.shape[-2:])
    return LinalgPinv.apply(A, 0.0 if atol is None else float(atol), float(rtol))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: :func:`pinv` with singular values at or below
    rcond·σ_max taken as 0."""
    return pinv(input, atol=0.0, rtol=rcond)


# -- least squares ---------------------------------------------------------------------


class LinalgLstsq(MultiOutputFunction):
    """X = A⁺B, the X minimising ‖AX − B‖ (the shortest one if several do); the
    second output is the (empty) residuals, as PyTorch's default driver gives.
    ∂ℓ/∂B = A⁺ᵀ G,   ∂ℓ/∂A = the pseudo-inverse's gradient for ∂ℓ/∂A⁺ = G Bᵀ

    >>> import autogradkit as torch
    >>> A = torch.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> torch.linalg.lstsq(A, torch.tensor([1.0, 2.0, 2.0])).solution
    tensor([1.1667, 0.5000])
    """

    node_name = "LinalgLstsqBackward0"
    formula = r"X = A^{+} B \qquad \frac{\partial \ell}{\partial B} = (A^{+})^\top G, \quad \frac{\partial \ell}{\partial A} = \text{pinv's gradient for } G B^\top"

    @classmethod
    def forward(cls, ctx, a, b, rtol, vector):
        ctx.rtol, ctx.vector = rtol, vector
        ctx.save_for_backward(a, b)
        with np.errstate(all="ignore"):
            pseudo_inverse = _pseudo_inverse(a, 0.0, rtol)
            solution = pseudo_inverse @ (b[..., None] if vector else b)
        solution = solution[..., 0] if vector else np.ascontiguousarray(solution)
        return solution.astype(a.dtype, copy=False), np.zeros(0, a.dtype)

    @classmethod
    def backward(cls, ctx, grad_outputs):
        a, b = ctx.saved_tensors
        grad_solution = grad_outputs[0]
        needs_a, needs_b = ctx.needs_input_grad[:2]
        if grad_solution is None:
            return None, None, None, None
        if ctx.vector:
            grad_solution, b = _column(grad_solution), _column(b)
        p = _pinv_of(a, ctx.rtol)
        grad_a = _pinv_gradient(a, p, grad_solution @ _mT(b)) if needs_a else None
        grad_b = None
        if needs_b:
            grad_b = _mT(p) @ grad_solution
            grad_b = grad_b[..., 0] if ctx.vector else grad_b
        return grad_a, grad_b, None, None

    @classmethod
    def jvp(cls, ctx, tangent, *arguments):
        # (lstsq refuses forward mode before it runs: see _refuse_forward_mode.)
        raise NotImplementedError(_NO_FORWARD_MODE)


_NO_FORWARD_MODE = (
    "autogradkit's linalg.lstsq has no forward mode (tangent rule) yet; PyTorch's has"
)


def _refuse_forward_mode(*tensors: Tensor) -> None:
    """Forward mode through lstsq is not written: refused in words, not a tangent
    left out (its jvp would see A's tangent only)."""
    if forward_ad.state.level is not None and any(
        forward_ad.tangent_of(t) is not None for t in tensors
    ):
        raise NotImplementedError(_NO_FORWARD_MODE)


def _column(v):
    return v[..., None] if isinstance(v, np.ndarray) else v.unsqueeze(-1)


def _pinv_of(a, rtol: float):
    """A⁺ inside a backward formula: computed on arrays, recorded on tensors."""
    if isinstance(a, np.ndarray):
        with np.errstate(all="ignore"):
            return _pseudo_inverse(a, 0.0, rtol)
    return LinalgPinv.apply(a, 0.0, rtol)


def _check_lstsq(A: Tensor, B: Tensor) -> bool:
    """PyTorch's refusals for lstsq's operands; whether B is a vector."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._data.dtype.kind != "f" or B._data.dtype.kind != "f":
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {scalar_type_name(A._data.dtype)} and other's dtype "
            f"{scalar_type_name(B._data.dtype)}"
        )
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != A.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})"
        )
    return vector


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None) -> return_types.linalg_lstsq:
    """The least-squares solution of AX = B (a named tuple: ``solution``, and as
    PyTorch's default driver 'gelsy' gives them, empty ``residuals`` and
    ``singular_values`` and A's ``rank``). Singular values at or below
    rcond·σ_max (by default ε·max(m, n)) count as 0: then X is the shortest
    solution, as gelsy's."""
    if driver not in (None, "gelsy"):
        raise NotImplementedError(
            f"autogradkit's linalg.lstsq has the default driver 'gelsy' only, not {driver!r}"
        )
    vector = _check_lstsq(A, B)
    _refuse_forward_mode(A, B)
    eps = float(np.finfo(A._data.dtype).eps) if A._data.dtype.kind == "f" else 0.0
    rtol = eps * max(A.shape[-2:]) if rcond is None else float(rcond)
    solution, residuals = LinalgLstsq.apply(A, B, rtol, vector)
    return return_types.linalg_lstsq(
        solution, residuals, _rank(A._data, rtol), Tensor._make(np.zeros(0, A._data.dtype))
    )


def _rank(a: np.ndarray, rtol: float) -> Tensor:
    """How many singular values exceed rtol·σ_max, per matrix (int64)."""
    if a.size == 0:
        return Tensor._make(np.zeros(a.shape[:-2], np.int64))
    s = np.linalg.svd(a, compute_uv=False)
    return Tensor._make(
        np.asarray((s > rtol * s.max(axis=-1, keepdims=True)).sum(axis=-1), np.int64)
    )
