"""``torch.linalg``: linear algebra on (batches of) matrices.

The operations themselves, each with its derivative, are in
:mod:`autogradkit.ops.square_matrices`; this module gives them PyTorch's names.

>>> import autogradkit as torch
>>> A = torch.tensor([[2.0, 0.0], [1.0, 4.0]])
>>> torch.linalg.det(A), torch.linalg.solve(A, torch.tensor([2.0, 9.0]))
(tensor(8.), tensor([1., 2.]))
"""

from __future__ import annotations

import math

from ._dtype import scalar_type_name as _scalar_type_name
from .ops.accumulate import norm as _norm
from .ops.products import linalg_cross as cross
from .ops.products import multi_dot
from .ops.pseudo_inverse import lstsq, pinv
from .ops.square_matrices import LinAlgError, det, inv, matrix_power, solve
from .ops.square_matrices import linalg_slogdet as slogdet
from .ops.statistics import amax, amin
from .tensor import Tensor

__all__ = ["LinAlgError", "cross", "det", "inv", "matrix_power", "multi_dot", "slogdet", "solve"]
__all__ += ["vector_norm", "matrix_norm", "norm", "pinv", "lstsq"]


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The vector ord-norm of all of ``x``'s elements, or along ``dim``
    (LinalgVectorNormBackward0).

    >>> import autogradkit as torch
    >>> torch.linalg.vector_norm(torch.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor(5.)
    """
    return _norm(x, ord, dim, keepdim, dtype)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """A matrix norm over the two dimensions ``dim``: ``'fro'`` (the Frobenius norm,
    √Σ aᵢⱼ²), 1 / -1 (the largest / smallest column sum of |aᵢⱼ|) and inf / -inf
    (the same over rows), computed as PyTorch computes them (a vector norm, then
    amax or amin). ``'nuc'``, 2 and -2 need singular values: not written yet.

    >>> import autogradkit as torch
    >>> torch.linalg.matrix_norm(torch.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if A._data.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. "
            f"Got {_scalar_type_name(A._data.dtype)}"
        )
    first, second = (d % A.ndim for d in dim)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return _norm(A, 2, (first, second), keepdim, dtype)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(
            f"autogradkit's matrix_norm has no ord={ord!r} yet (it needs singular values)"
        )
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # The 1-norm sums |aᵢⱼ| down columns (over the first dim), the inf-norm along rows.
    summed, kept = (second, first) if abs(ord) == math.inf else (first, second)
    if not keepdim and summed < kept:
        kept -= 1
    sums = _norm(A, 1, summed, keepdim, dtype)
    return amax(sums, kept, keepdim) if ord > 0 else amin(sums, kept, keepdim)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.norm``: :func:`vector_norm` for a vector (or with ``ord``
    None), :func:`matrix_norm` for a matrix with an ``ord`` (or a 2-tuple ``dim``).

    >>> import autogradkit as torch
    >>> torch.linalg.norm(torch.tensor([3.0, 4.0]))
    tensor(5.)
    """
    if dim is not None and not isinstance(dim, int) and len(dim) == 2 and ord is not None:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2 or isinstance(ord, str):
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {A.ndim}D."
            )
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)
