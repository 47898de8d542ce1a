"""Distances between two sets of points: ``cdist``.

``cdist(x1, x2)[i, j]`` is the distance between row i of ``x1`` and row j of
``x2``: ‖x1ᵢ − x2ⱼ‖ₚ (Euclidean for p = 2). PyTorch computes it in one of two
ways, and the graph shows which:

* directly, from the differences x1ᵢ − x2ⱼ (``CdistBackward0``), for up to 25
  rows in each set or a p other than 2;
* for p = 2 with more rows, through matrix products, as
  ‖a − b‖² = ‖a‖² − 2 a·b + ‖b‖² (``EuclideanDistBackward0``, under a
  ``ViewBackward0``): faster for many points, a little less exact (the
  subtraction can cancel), clamped at 0 before the square root.

>>> import autogradkit as torch
>>> a = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
>>> b = torch.tensor([[3.0, 4.0]])
>>> torch.cdist(a, b)
tensor([[5.0000],
        [3.6056]])
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import scalar_type_name
from .._quiet_numpy import quietly
from ..autograd.function import Function
from ..tensor import Tensor
from .shape import Clone, View

__all__ = ["cdist"]

# compute_mode's values, as PyTorch numbers them for its C++ cdist.
_MODES = {
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def _no_forward_mode(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"Trying to use forward AD with {name} that does not support it because it has not "
        "been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
        "we can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml"
    )


def _pairwise_differences(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1ᵢ − x2ⱼ for every pair of rows: shape (..., P, R, M)."""
    return x1[..., :, None, :] - x2[..., None, :, :]


def _norms(differences: np.ndarray, p: float) -> np.ndarray:
    """The p-norm of each difference (over the last axis)."""
    size = np.abs(differences)
    if p == 0:  # how many coordinates differ
        return np.count_nonzero(size, axis=-1).astype(size.dtype)
    if p == math.inf:
        return size.max(axis=-1, initial=0)
    if p == 1:
        return size.sum(axis=-1)
    if p == 2:
        return np.sqrt((size * size).sum(axis=-1))
    return (size**p).sum(axis=-1) ** (1 / p)


@quietly  # 0/0 and 0 ** negative at coinciding points, replaced by 0 below
def _norm_gradient(differences: np.ndarray, distances: np.ndarray, p: float) -> np.ndarray:
    """∂‖d‖ₚ/∂d for each difference d, as PyTorch's ``_cdist_backward`` computes it:
    d/‖d‖ for p = 2, sign(d) for p = 1, sign(d)·|d|^(p−1)/‖d‖^(p−1) in general,
    sign(d) at the coordinates that reach the maximum for p = ∞; 0 where the two
    points coincide (a subgradient), and everywhere for p = 0."""
    dist = distances[..., None]
    if p == 0:
        return np.zeros_like(differences)
    if p == 1:
        return np.sign(differences)
    if p == math.inf:
        return np.sign(differences) * (np.abs(differences) == dist)
    if p == 2:
        slope = differences / dist
    elif p < 2:
        slope = np.sign(differences) * np.abs(differences) ** (p - 1) / dist ** (p - 1)
        if p < 1:  # |d|^(p−1) is infinite at d = 0: PyTorch takes 0 there
            slope = np.where(differences == 0, 0, slope)
    else:
        slope = differences * np.abs(differences) ** (p - 2) / dist ** (p - 1)
    return np.where(dist == 0, 0, slope)


class Cdist(Function):
    """f(x1, x2)ᵢⱼ = ‖x1ᵢ − x2ⱼ‖ₚ;   ∂fᵢⱼ/∂x1ᵢ = ∂‖d‖ₚ/∂d at d = x1ᵢ − x2ⱼ
    (d/‖d‖ for p = 2), ∂fᵢⱼ/∂x2ⱼ = −the same; 0 where the points coincide"""

    node_name = "CdistBackward0"
    formula = r"f_{ij} = \lVert x_i - y_j \rVert_p \qquad \frac{\partial f_{ij}}{\partial x_i} = -\frac{\partial f_{ij}}{\partial y_j} = \frac{x_i - y_j}{f_{ij}} \ (p = 2)"

    @staticmethod
    def forward(ctx, x1, x2, p):
        ctx.p = p
        out = _norms(_pairwise_differences(x1, x2), p)
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x1, x2, out = ctx.saved_tensors
        needs_x1, needs_x2, _ = ctx.needs_input_grad
        # As PyTorch: x2's gradient is x1's formula with the two sets swapped.
        grad_x1 = CdistBackward.in_formula(grad_output, x1, x2, out, ctx.p) if needs_x1 else None
        grad_x2 = None
        if needs_x2:
            grad_x2 = CdistBackward.in_formula(_swapped(grad_output), x2, x1, _swapped(out), ctx.p)
        return grad_x1, grad_x2, None

    @staticmethod
    def jvp(ctx, *tangents):
        raise _no_forward_mode("_cdist_forward")


def _swapped(t):
    """``t`` with its last two dimensions swapped (rows of x1 ↔ rows of x2)."""
    return t.mT if isinstance(t, Tensor) else np.swapaxes(t, -1, -2)


class CdistBackward(Function):
    """The gradient of ``cdist`` for x1 (PyTorch's ``_cdist_backward``):
    ∂ℓ/∂x1ᵢ = Σⱼ gᵢⱼ ∂‖d‖ₚ/∂d at d = x1ᵢ − x2ⱼ. Recorded when differentiating
    twice, but PyTorch has no derivative for it: backward through it raises."""

    node_name = "CdistBackwardBackward0"
    formula = r"\frac{\partial \ell}{\partial x_i} = \textstyle\sum_j g_{ij} \frac{\partial \lVert d \rVert_p}{\partial d}\Big|_{d = x_i - y_j} \qquad \text{(PyTorch has no derivative for it)}"

    @staticmethod
    def forward(ctx, grad, x1, x2, distances, p):
        slopes = _norm_gradient(_pairwise_differences(x1, x2), distances, p)
        return (grad[..., None] * slopes).sum(axis=-2)  # over x2's rows

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")

    @staticmethod
    def jvp(ctx, *tangents):
        raise _no_forward_mode("_cdist_backward")


class EuclideanDist(Function):
    """f(x1, x2)ᵢⱼ = √max(0, ‖x1ᵢ‖² − 2 x1ᵢ·x2ⱼ + ‖x2ⱼ‖²), by matrix products;
    with r = g/f (0 where f = 0):  ∂ℓ/∂x1 = x1·Σⱼ r − r·x2,  ∂ℓ/∂x2 = x2·Σᵢ r − rᵀ·x1"""

    node_name = "EuclideanDistBackward0"
    formula = r"f_{ij} = \sqrt{\lVert x_i\rVert^2 - 2\, x_i \cdot y_j + \lVert y_j\rVert^2} \qquad \frac{\partial \ell}{\partial x} = x \textstyle\sum_j r_{ij} - r\, y, \quad r = G / f"

    @staticmethod
    def forward(ctx, x1, x2):
        # PyTorch's arrangement: [−2·x1, ‖x1‖², 1] · [x2, 1, ‖x2‖²]ᵀ in one product.
        x1_norm = (x1 * x1).sum(axis=-1, keepdims=True)
        x2_norm = (x2 * x2).sum(axis=-1, keepdims=True)
        left = np.concatenate([x1 * -2, x1_norm, np.ones_like(x1_norm)], axis=-1)
        right = np.concatenate([x2, np.ones_like(x2_norm), x2_norm], axis=-1)
        out = np.sqrt(np.maximum(left @ np.swapaxes(right, -1, -2), 0))
        ctx.save_for_backward(x1, x2, out)
        return out

    @staticmethod
    @quietly  # g/0 where two points coincide, replaced by 0
    def backward(ctx, grad_output):
        x1, x2, out = ctx.saved_tensors
        if isinstance(grad_output, Tensor):  # create_graph: PyTorch's formula, recorded
            ratio = (grad_output / out).masked_fill(out == 0, 0)
            return (
                x1 * ratio.sum(-1, True) - ratio.matmul(x2),
                x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1),
            )
        ratio = np.where(out == 0, 0, grad_output / out)
        return (
            x1 * ratio.sum(axis=-1, keepdims=True) - ratio @ x2,
            x2 * ratio.sum(axis=-2)[..., None] - np.swapaxes(ratio, -1, -2) @ x1,
        )

    @staticmethod
    def jvp(ctx, *tangents):
        raise _no_forward_mode("_euclidean_dist")


def _check(x1, x2, p: float) -> None:
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            kind = scalar_type_name(x._data.dtype)
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {kind}")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(x1._data.dtype)} but found "
            f"{scalar_type_name(x2._data.dtype)}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


def _flattened_batch(x: Tensor, batch: tuple, product: int) -> Tensor:
    """``x`` expanded to the common batch shape and viewed as (product, rows, M), as
    PyTorch's cdist does before its matrix products (copied when expanded)."""
    expanded = x.expand(*batch, *x.shape[-2:])
    shape = (product, *x.shape[-2:])
    if not expanded._data.flags.c_contiguous:
        expanded = Clone.apply(expanded, "C")
    return View.apply(expanded, shape)


def _euclidean(x1: Tensor, x2: Tensor) -> Tensor:
    """cdist for p = 2 through matrix products (PyTorch's ``_euclidean_dist``)."""
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    output_shape = (*batch, x1.shape[-2], x2.shape[-2])
    product = int(np.prod(batch, dtype=np.int64))
    if product != 1:
        x1, x2 = _flattened_batch(x1, batch, product), _flattened_batch(x2, batch, product)
    return View.apply(EuclideanDist.apply(x1, x2), output_shape)


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The distance ‖x1ᵢ − x2ⱼ‖ₚ between every row of ``x1`` (P × M) and every row
    of ``x2`` (R × M): a P × R matrix (batches of them for batched inputs). p = 2
    is the Euclidean distance; p = 1 the city-block one, p = ∞ the largest
    coordinate difference, p = 0 the number of coordinates that differ.

    ``compute_mode``: for p = 2, whether to use matrix products (see the module's
    notes): ``"use_mm_for_euclid_dist_if_necessary"`` (when either set has more
    than 25 rows), ``"use_mm_for_euclid_dist"`` or ``"donot_use_mm_for_euclid_dist"``.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    >>> torch.cdist(x, x)
    tensor([[0., 5.],
            [5., 0.]], grad_fn=<CdistBackward0>)
    >>> torch.cdist(x, x, p=1)
    tensor([[0., 7.],
            [7., 0.]], grad_fn=<CdistBackward0>)
    """
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    _check(x1, x2, p)
    mode, many_rows = _MODES[compute_mode], x1.shape[-2] > 25 or x2.shape[-2] > 25
    empty = x1._data.size == 0 or x2._data.size == 0
    if p == 2 and not empty and (mode == 1 or (mode == 0 and many_rows)):
        return _euclidean(x1, x2)
    return Cdist.apply(x1, x2, float(p))
