"""``softmax``, ``log_softmax`` and ``logsumexp``: the functions that turn scores
into probabilities (and their logarithms), computed the stable way (subtract the
largest score first, so ``exp`` never overflows).

Their derivatives are written with the saved *result*:

* softmax  s = eˣ/Σeˣ:        ∂ℓ/∂x = s ⊙ (g − Σ g⊙s)
* log_softmax  o = x − lse(x): ∂ℓ/∂x = g − eᵒ·Σ g
* logsumexp  l = ln Σ eˣ:      ∂ℓ/∂x = g·e^(x − l)

where sums run along ``dim``.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from .._quiet_numpy import quietly
from ..autograd.function import Function, Linear, Reduction, _sum_over_inputs
from ..tensor import Tensor, _wrap_dim
from .pointwise import _float
from .reduction import _dims, _unsqueezed

__all__ = ["softmax", "log_softmax", "logsumexp", "nll_loss", "cross_entropy"]


def _shifted(x: np.ndarray, dim) -> np.ndarray:
    """x minus its largest value along ``dim`` (0 where that is ±inf, as PyTorch does;
    the largest of nothing is −inf, so an empty tensor comes back empty)."""
    top = np.max(x, axis=dim, keepdims=True, initial=-np.inf)
    return x - np.where(np.isfinite(top), top, 0)


class Softmax(Function):
    """f(x)ᵢ = eˣⁱ / Σⱼ eˣʲ along ``dim``;   ∂ℓ/∂x = f ⊙ (g − Σ g ⊙ f)"""

    node_name = "SoftmaxBackward0"
    formula = r"f(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}} \qquad \frac{\partial f_i}{\partial x_j} = f_i\,(\delta_{ij} - f_j)"

    @staticmethod
    @quietly  # inf - inf and overflow, silently (as PyTorch)
    def forward(ctx, x, dim):
        e = np.exp(_shifted(_float(x), dim))
        out = np.asarray(e / e.sum(axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return SoftmaxBackwardData.in_formula(grad_output, out, ctx.dim), None

    @staticmethod
    def jvp(ctx, tangent, dim):
        """ḟ = f ⊙ (ṫ − Σ f ⊙ ṫ): the Jacobian diag(f) − f fᵀ is symmetric, so J·ṫ
        is backward's formula applied to the tangent."""
        return Softmax.backward(ctx, tangent)[0]


class SoftmaxBackwardData(Function):
    """Softmax's backward as one operation (PyTorch's ``_softmax_backward_data``), so
    that a create_graph pass records it as one node. With the gradient g and the
    softmax output y, sums along ``dim``:
    f(g, y) = y ⊙ (g − Σ g⊙y);   ∂ℓ/∂g = f(G, y),   ∂ℓ/∂y = g⊙G − (Σ y⊙g)·G − g·(Σ y⊙G)
    (G: the incoming gradient)"""

    node_name = "SoftmaxBackwardDataBackward0"
    formula = r"f(g, y) = y \odot \left(g - \textstyle\sum g \odot y\right) \qquad \frac{\partial \ell}{\partial g} = f(G, y), \quad \frac{\partial \ell}{\partial y} = g \odot G - \left(\textstyle\sum y \odot g\right) G - g \textstyle\sum y \odot G"

    @staticmethod
    def forward(ctx, g, y, dim):
        ctx.dim = dim
        ctx.save_for_backward(g, y)
        return y * (g - (g * y).sum(axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx, grad_output):
        g, y = ctx.saved_tensors
        dim = ctx.dim
        grad_g = SoftmaxBackwardData.in_formula(grad_output, y, dim)
        # PyTorch's softmax_double_backward, grouped as it is.
        grad_y = (
            g * grad_output
            - (y * g).sum(axis=dim, keepdims=True) * grad_output
            - g * (y * grad_output).sum(axis=dim, keepdims=True)
        )
        return grad_g, grad_y, None

    @staticmethod
    def jvp(ctx, *tangents):
        """ḟ = f(ġ, y) + ẏ ⊙ (g − Σ g⊙y) − y ⊙ Σ g⊙ẏ (the product rule)."""
        g, y, dim = ctx.primals

        def part(i: int, tangent):
            if i == 0:
                return y * (tangent - (tangent * y).sum(axis=dim, keepdims=True))
            along = (g * y).sum(axis=dim, keepdims=True)
            return tangent * (g - along) - y * (g * tangent).sum(axis=dim, keepdims=True)

        return _sum_over_inputs(tangents[:2], part)


class LogSoftmax(Function):
    """f(x)ᵢ = xᵢ − ln Σⱼ eˣʲ along ``dim``;   ∂ℓ/∂x = g − e^f · Σ g"""

    node_name = "LogSoftmaxBackward0"
    formula = r"f(x)_i = x_i - \ln \sum_j e^{x_j} \qquad \frac{\partial f_i}{\partial x_j} = \delta_{ij} - e^{f_j}"

    @staticmethod
    @quietly  # inf - inf and overflow, silently (as PyTorch)
    def forward(ctx, x, dim):
        shifted = _shifted(_float(x), dim)
        out = np.asarray(shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True)))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.in_formula(grad_output, out, ctx.dim), None

    @staticmethod
    def jvp(ctx, tangent, dim):
        """ḟ = ṫ − Σⱼ e^fⱼ ṫⱼ along ``dim`` (the softmax-weighted mean of ṫ)."""
        out = ctx.result
        return tangent - (np.exp(out) * tangent).sum(axis=ctx.dim, keepdims=True)


class LogSoftmaxBackwardData(Function):
    """Log_softmax's backward as one operation (PyTorch's
    ``_log_softmax_backward_data``), so that a create_graph pass records it as one
    node. With the gradient g and the log_softmax output o, sums along ``dim``:
    f(g, o) = g − eᵒ·Σ g;   ∂ℓ/∂g = G − Σ G⊙eᵒ,   ∂ℓ/∂o = −(Σ g)·eᵒ⊙G
    (G: the incoming gradient)"""

    node_name = "LogSoftmaxBackwardDataBackward0"
    formula = r"f(g, o) = g - e^{o} \textstyle\sum g \qquad \frac{\partial \ell}{\partial g} = G - \textstyle\sum G \odot e^{o}, \quad \frac{\partial \ell}{\partial o} = -\left(\textstyle\sum g\right) e^{o} \odot G"

    @staticmethod
    def forward(ctx, g, out, dim):
        ctx.dim = dim
        ctx.save_for_backward(g, out)
        return g - np.exp(out) * g.sum(axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx, grad_output):
        g, out = ctx.saved_tensors
        dim = ctx.dim
        # PyTorch's formulas, grouped as they are.
        grad_g = grad_output - (grad_output * np.exp(out)).sum(axis=dim, keepdims=True)
        grad_out = -g.sum(axis=dim, keepdims=True) * np.exp(out) * grad_output
        return grad_g, grad_out, None

    @staticmethod
    def jvp(ctx, *tangents):
        """ḟ = ġ − eᵒ·Σ ġ − (Σ g)·eᵒ⊙ȯ."""
        g, out, dim = ctx.primals

        def part(i: int, tangent):
            if i == 0:
                return tangent - np.exp(out) * tangent.sum(axis=dim, keepdims=True)
            return -g.sum(axis=dim, keepdims=True) * np.exp(out) * tangent

        return _sum_over_inputs(tangents[:2], part)


class Logsumexp(Reduction):
    """f(x) = ln Σᵢ eˣⁱ along ``dims``;   ∂f/∂xᵢ = e^(xᵢ − f) (the softmax)"""

    node_name = "LogsumexpBackward0"
    formula = r"f(x) = \ln \sum_i e^{x_i} \qquad \frac{\partial f}{\partial x_i} = e^{x_i - f(x)}"

    @staticmethod
    @quietly  # inf - inf and overflow, silently (as PyTorch)
    def forward(ctx, x, dims, keepdim):
        x = _float(x)
        top = np.max(x, axis=dims, keepdims=True, initial=-np.inf)  # of nothing: ln 0 = −inf
        top = np.where(np.isfinite(top), top, 0)
        out = np.log(np.exp(x - top).sum(axis=dims, keepdims=True)) + top
        if not keepdim:
            out = out.reshape(np.sum(x, axis=dims).shape)
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not ctx.keepdim and x.ndim:
            grad_output = _unsqueezed(grad_output, ctx.dims, x.shape)
            out = _unsqueezed(out, ctx.dims, x.shape)
        return grad_output * np.exp(x - out), None, None


def implicit_dim(input: Tensor, dim, name: str, stacklevel: int):
    """``F.softmax(x)`` without ``dim``: PyTorch's legacy choice of dimension, with
    its deprecation warning. (``torch.softmax`` and ``x.softmax()`` require dim.)"""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if input.ndim in (0, 1, 3) else 1


# The default of a required ``dim``: PyTorch's message for a missing one is not Python's.
_REQUIRED: Any = object()


def _softmax_dim(input: Tensor, dim, name: str) -> int:
    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(
            f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
        ) from None
    return _wrap_dim(dim, input.ndim)  # (a 0-d tensor's dim is -1 or 0)


def _refuse_integers(input: Tensor, dim: int, dtype, name: str) -> None:
    """PyTorch has no softmax kernel for integers or bools (``dtype=`` converts
    first); its error names the kernel it looked for, the one for the last
    dimension or the general one."""
    kind = input._data.dtype.kind
    if dtype is None and kind in "biu" and input._data.size:
        kernel = "lastdim_kernel_impl" if dim >= input.ndim - 1 else "kernel_impl"
        raise NotImplementedError(
            f"\"{name}_{kernel}\" not implemented for '{scalar_type_name(input._data.dtype)}'"
        )


def _cast_first(input: Tensor, dtype) -> Tensor:
    return input if dtype is None else input.to(dtype)


def softmax(input: Tensor, dim: int = _REQUIRED, dtype=None) -> Tensor:
    """eˣ normalised to sum to 1 along ``dim``.

    >>> import autogradkit as torch
    >>> torch.softmax(torch.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    dim = _softmax_dim(input, dim, "softmax")
    _refuse_integers(input, dim, dtype, "softmax")
    return Softmax.apply(_cast_first(input, dtype), dim)


def log_softmax(input: Tensor, dim: int = _REQUIRED, dtype=None) -> Tensor:
    """The logarithm of ``softmax``, computed without forming the softmax."""
    dim = _softmax_dim(input, dim, "log_softmax")
    _refuse_integers(input, dim, dtype, "log_softmax")
    return LogSoftmax.apply(_cast_first(input, dtype), dim)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """ln Σ eˣ along ``dim`` (an int or a tuple of ints), without overflow."""
    return Logsumexp.apply(input, _dims(dim, input.ndim), keepdim)


class NllLoss(Linear):
    """f(o, t) = −Σᵢ w_{tᵢ}·o[i, tᵢ] / Σᵢ w_{tᵢ} (``reduction="mean"``): the negative
    log-likelihood of the targets t given log-probabilities o;
    ∂f/∂o[i, tᵢ] = −w_{tᵢ}/Σ w, and 0 for every other class"""

    node_name = "NllLossBackward0"
    formula = r"f(o, t) = -\frac{\sum_i w_{t_i}\, o_{i, t_i}}{\sum_i w_{t_i}} \qquad \frac{\partial f}{\partial o_{i,c}} = \begin{cases} -w_{t_i} / \sum_i w_{t_i} & c = t_i \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, log_probs, target, weight, reduction, ignore_index):
        batched = log_probs.ndim == 2
        rows = np.arange(target.size) if batched else ()
        targets = target.reshape(-1) if batched else target
        kept = targets != ignore_index
        safe_targets = np.where(kept, targets, 0)
        per_sample = (np.ones(np.shape(targets)) if weight is None else weight[safe_targets]) * kept
        picked = log_probs[rows, safe_targets] if batched else log_probs[safe_targets]
        losses = -(per_sample * picked).astype(log_probs.dtype)
        scale = per_sample.astype(log_probs.dtype)
        if reduction == "mean":
            total = per_sample.sum()
            # Every target ignored: the loss is 0/0 = nan, silently, and an ignored
            # target's gradient stays 0 (PyTorch skips them), not 0/0.
            with np.errstate(divide="ignore", invalid="ignore"):
                out, scale = losses.sum() / total, np.where(kept, scale / total, 0)
        elif reduction == "sum":
            out = losses.sum()
        else:
            out = losses
        ctx.key = (rows, safe_targets) if batched else safe_targets
        ctx.shape, ctx.scale, ctx.reduction = log_probs.shape, scale, reduction
        # The input too, as PyTorch saves it (its backward reads only the shape): an
        # input changed in place before backward is refused there.
        ctx.save_for_backward(log_probs, target)
        return np.asarray(out, dtype=log_probs.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        from .shape import scatter_into_zeros

        picked_grad = -grad_output * ctx.scale
        return scatter_into_zeros(picked_grad, ctx.key, ctx.shape), None, None, None, None


def nll_loss(
    input: Tensor, target: Tensor, weight=None, ignore_index: int = -100, reduction: str = "mean"
) -> Tensor:
    """Negative log-likelihood of class indices ``target`` (N,) under
    log-probabilities ``input`` (N, C) — or (C,) and a 0-d target."""
    _check_reduction(reduction)
    if isinstance(target, Tensor):
        _check_batch(input, target)
    _check_target(target, "nll_loss_nd")
    if input.ndim not in (1, 2):
        raise NotImplementedError(
            "autogradkit's nll_loss/cross_entropy take (N, C) or (C,) scores; "
            f"got {input.ndim} dimensions"
        )
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    targets = target._data
    if np.any((targets != ignore_index) & ((targets < 0) | (targets >= classes))):
        bad = targets[(targets != ignore_index) & ((targets < 0) | (targets >= classes))][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    weights = None if weight is None else weight._data
    return NllLoss.apply(input, targets, weights, reduction, ignore_index)


def _check_reduction(reduction: str) -> None:
    """PyTorch's refusal of an unknown ``reduction`` (which would otherwise count as
    "none": a tensor of losses where one number was asked for)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_batch(input: Tensor, target: Tensor) -> None:
    """PyTorch's refusals of a target that does not fit the scores: one class index
    per row of ``input``. Without them NumPy would broadcast a target of another
    length and a loss would come out (a (3, 2) input with a target of 2 indices)."""
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    batch = target.shape[0] if target.ndim else 0
    if input.ndim != 1 and input.shape[0] != batch:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({batch})."
        )
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        )


def _check_target(target, function: str) -> None:
    """PyTorch's refusals of a ``target`` that is not a tensor of class indices."""
    if not isinstance(target, Tensor):
        raise TypeError(
            f"{function}(): argument 'target' (position 2) must be Tensor, not "
            f"{type(target).__name__}"
        )
    if target._data.dtype != np.int64:
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{scalar_type_name(target._data.dtype)}"
        )


def cross_entropy(
    input: Tensor, target: Tensor, weight=None, ignore_index: int = -100, reduction: str = "mean"
) -> Tensor:
    """Cross-entropy of class indices ``target`` under unnormalised scores
    ``input``: ``nll_loss(log_softmax(input, 1), target)``, as PyTorch records it."""
    _check_reduction(reduction)
    if (
        isinstance(target, Tensor)
        and target._data.dtype.kind == "f"
        and target.shape == input.shape
    ):
        raise NotImplementedError(
            "autogradkit's cross_entropy takes class indices (int64) as target; class "
            "probabilities (a float target shaped like the input) are not written yet"
        )
    if isinstance(target, Tensor) and target.shape == input.shape:
        # PyTorch reads a target shaped like the scores as class probabilities.
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            + scalar_type_name(target._data.dtype)
        )
    _check_target(target, "cross_entropy_loss")
    dim = 1 if input.ndim >= 2 else 0
    return nll_loss(log_softmax(input, dim), target, weight, ignore_index, reduction)
