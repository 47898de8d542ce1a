"""The pseudo-inverse A⁺ of any matrix (``linalg.pinv``, ``pinverse``): from the
singular value decomposition A = U S Vᵀ, A⁺ = V S⁺ Uᵀ, where S⁺ inverts the
singular values above a cut-off and puts 0 for the others. For a square invertible
matrix it is A⁻¹; for a tall matrix of full column rank, (AᵀA)⁻¹Aᵀ, the least-squares
solver.
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["pinv", "pinverse"]


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
        p_t, g_t = _mT(p), _mT(grad_output)
        # The identities multiplied out, so that the same lines record on tensors.
        left = g_t @ p @ p_t  # Gᵀ P Pᵀ
        right = p_t @ p @ g_t  # Pᵀ P Gᵀ
        return (
            -(p_t @ grad_output @ p_t) + (left - a @ (p @ left)) + (right - (right @ p) @ a),
            None,
            None,
        )

    @staticmethod
    def jvp(ctx, tangent, _atol, _rtol):
        """Ṗ = −P Ȧ P + P Pᵀ Ȧᵀ (I − A P) + (I − P A) Ȧᵀ Pᵀ P."""
        a = ctx.primals[0]
        p = ctx.result
        p_t, t_t = _mT(p), _mT(tangent)
        first = p @ p_t @ t_t
        second = t_t @ p_t @ p
        return -(p @ tangent @ p) + (first - (first @ a) @ p) + (second - p @ (a @ second))


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
