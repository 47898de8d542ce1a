"""The trapezoidal rule: ∫ y dx ≈ Σᵢ (xᵢ₊₁ − xᵢ)·(yᵢ + yᵢ₊₁)/2 along one dimension,
written as PyTorch writes it (out of slices, sums and products), so the graph
shows its nodes and the gradient follows from theirs.
"""

from __future__ import annotations

from ..autograd.function import scalar_overloads
from ..tensor import Tensor

__all__ = ["trapezoid", "trapz"]


def _with_constant_spacing(y: Tensor, dx, dim: int) -> Tensor:
    """dx·(Σ y − (y₀ + yₙ₋₁)/2): every inner sample counted once, the two ends half."""
    with scalar_overloads():  # PyTorch's C++ multiplies by numbers: MulBackward1
        ends = y.select(dim, 0) + y.select(dim, -1)
        return (y.sum(dim) - ends * 0.5) * dx


def _with_spacings(y: Tensor, dx: Tensor, dim: int) -> Tensor:
    """Σ (yᵢ + yᵢ₊₁)·Δxᵢ / 2."""
    n = y.shape[dim]
    with scalar_overloads():  # (/ 2 records DivBackward1, as in PyTorch)
        return ((y.narrow(dim, 0, n - 1) + y.narrow(dim, 1, n - 1)) * dx).sum(dim) / 2.0


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule, at
    the points ``x`` (a tensor) or spaced ``dx`` apart (1 by default).

    >>> import autogradkit as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    """
    if x is not None and dx is not None:
        raise TypeError(
            "trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, "
            f"dx={type(dx).__name__}), but expected one of:\n"
            " * (Tensor y, Tensor x, *, int dim = -1)\n"
            " * (Tensor y, *, Number dx = 1, int dim = -1)\n"
        )
    ndim = y.ndim
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
            f"{max(ndim, 1) - 1}], but got {dim})"
        )
    dim %= max(ndim, 1)
    if y.shape[dim] == 0:  # no interval: 0
        return y.sum(dim) * 0
    if x is None:
        return _with_constant_spacing(y, 1 if dx is None else dx, dim)
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        sizes = [1] * ndim
        sizes[dim] = x.shape[0]
        x = x.view(*sizes)
    elif x.ndim < ndim:
        x = x.view(*([1] * (ndim - x.ndim)), *x.shape)
    n = x.shape[dim]
    spacings = x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    return _with_spacings(y, spacings, dim)


def trapz(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """``torch.trapz``: :func:`trapezoid` under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)
