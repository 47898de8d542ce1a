"""Losses and activations (mirrors ``torch/nn/functional.py``).

>>> import autogradkit as torch
>>> z = torch.tensor([0.0, 2.0], requires_grad=True)
>>> torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor([0.0, 1.0]))
tensor(0.4100, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import cast

import numpy as np

# Read once: NumPy's module has a __getattr__, so CPython 3.11 cannot specialise
# ``np.<name>`` (~300 instructions a read), and these run in every loss of a step.
from numpy import add, asarray, exp, float64, logaddexp, reciprocal

from .._dtype import from_numpy_dtype, scalar_type_name
from .._quiet_numpy import quietly, run_quietly, silently
from ..autograd import forward_ad as _forward_ad
from ..autograd.function import (
    Elementwise,
    Function,
    Linear,
    MultiOutputFunction,
    Reduction,
    _zero_if_none,
    scalar_overloads,
)
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import softmax as _softmax
from ..ops._promotion import result_dtype
from ..ops.accumulate import Norm
from ..ops.arithmetic import broadcast_error, refuse_bool_subtraction
from ..ops.linalg import addmm, matmul
from ..ops.pointwise import _zeros_like, sigmoid, tanh
from ..ops.pointwise import relu as pointwise_relu
from ..ops.softmax import cross_entropy as _cross_entropy
from ..ops.softmax import nll_loss
from ..ops.special import xlogy
from ..ops.where import Where, select
from ..tensor import Size, Tensor

__all__ = [
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "triplet_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "sigmoid",
    "relu",
    "relu_",
    "leaky_relu",
    "leaky_relu_",
    "gelu",
    "elu",
    "elu_",
    "silu",
    "softplus",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "hardtanh",
    "hardtanh_",
    "relu6",
    "mish",
    "softshrink",
    "hardshrink",
    "tanhshrink",
    "threshold",
    "threshold_",
    "logsigmoid",
    "softsign",
    "hardswish",
    "hardsigmoid",
    "prelu",
    "normalize",
    "cosine_similarity",
    "pairwise_distance",
    "pad",
    "dropout",
    "one_hot",
    "embedding",
    "layer_norm",
    "batch_norm",
    "tanh",
    "softmax",
    "log_softmax",
    "softmin",
    "nll_loss",
    "cross_entropy",
    "linear",
]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x·Wᵀ + b (what ``nn.Linear`` computes), recorded as PyTorch records it:
    one ``AddmmBackward0`` for a batch of rows, with views around it for other
    input shapes, and a plain matrix product without a bias."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    if bias is None:
        return matmul(input, weight.t())
    if input.dim() == 2:
        return addmm(bias, input, weight.t())
    if weight.dim() == 1:  # a vector input and one output: a dot product plus the bias
        return matmul(input, weight.t()).add_(bias)
    rows = input.reshape(-1, input.shape[-1]) if input.dim() > 1 else input.view(1, -1)
    out = addmm(bias, rows, weight.t())
    return out.view(*input.shape[:-1], weight.shape[0])


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) elementwise; ``inplace=True`` writes it into ``input`` (``relu_``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return input.relu_() if inplace else pointwise_relu(input)


def relu_(input: Tensor) -> Tensor:
    """max(x, 0) written into ``input``."""
    return input.relu_()


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``torch.softmax``, except that a missing ``dim`` is chosen by PyTorch's legacy
    rule, with its deprecation warning.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.softmax(torch.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    dim = _softmax.implicit_dim(input, dim, "softmax", _stacklevel)
    return _softmax.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``torch.log_softmax``, except that a missing ``dim`` is chosen by PyTorch's
    legacy rule, with its deprecation warning."""
    dim = _softmax.implicit_dim(input, dim, "log_softmax", _stacklevel)
    return _softmax.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax of −x along ``dim``: weights that favour the smallest entries
    (``SoftmaxBackward0`` over ``NegBackward0``, as PyTorch records it).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.softmin(torch.tensor([0.0, 1.0]), dim=0)
    tensor([0.7311, 0.2689])
    """
    dim = _softmax.implicit_dim(input, dim, "softmin", _stacklevel)
    return _softmax.softmax(-input, dim, dtype)


_REDUCTIONS = ("mean", "sum", "none")


_add_reduce = add.reduce


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    # np.add.reduce is what np.mean/np.sum call underneath, minus their overhead
    # (bound once, its axis given by position: ~600 instructions less). The 0-d
    # result is made an array here (out=... asks the ufunc for one), which
    # spares Function.apply's wrapping of a NumPy scalar (~1.3k instructions; a
    # 0-d array divided in place would cost 10k more than the scalar division).
    if reduction == "mean":
        return asarray(_add_reduce(loss, None) / loss.size)
    if reduction == "sum":
        return _add_reduce(loss, None, out=...)
    return loss


# A 0-d one of each dtype, by the dtype's scalar type: for the ``1 - y`` and
# ``1 + e⁻ᶻ`` of the losses. NumPy converts a Python 1 to the array's dtype anew on
# every call (~2.8k instructions on the small arrays of teaching examples); a 0-d
# array of that very dtype is taken as it is: same dtype, same values (1 is exact
# in every float dtype). Shared, so never handed out or written to.
_ONES_0D: dict[type, np.ndarray] = {}


def _one_as(array: np.ndarray) -> np.ndarray:
    """A 0-d array holding 1 in ``array``'s dtype."""
    one = _ONES_0D.get(array.dtype.type)
    if one is None:
        one = _ONES_0D[array.dtype.type] = np.ones((), array.dtype)
    return one


class _Loss(Reduction):
    """A loss: elementwise terms, then reduced by ``reduction`` ('mean' and 'sum'
    reduce every element; 'none' none). Its tangent rule is :class:`Reduction`'s."""

    @staticmethod
    def reduced_axes(ctx):
        return (() if ctx.reduction == "none" else None), False


def _reduction_scale(grad_output, reduction: str, count: int):
    """The gradient of the reduction: 1/N for a mean, 1 for a sum, elementwise for none."""
    return grad_output / count if reduction == "mean" else grad_output


def _sigmoid_of(z):
    """σ(z) for an array or, during a create_graph pass, a tensor.

    Backward passes run with NumPy's overflow warnings off, so the plain formula
    is safe here: for very negative z, e⁻ᶻ overflows to inf and σ(z) to 0.
    np.reciprocal(x) is 1 / x to the last bit, without converting the number 1
    to an array first (about 1k instructions less per call).
    """
    if isinstance(z, Tensor):
        return z.sigmoid()
    return reciprocal(_one_as(z) + exp(-z))


def _softplus_of_neg(z):
    """log(1 + e⁻ᶻ), computed without overflow (for an array or, during a
    create_graph pass, a tensor)."""
    if isinstance(z, Tensor):
        return pointwise_relu(-z) + (1 + (-z.abs()).exp()).log()
    return np.maximum(-z, 0) + np.log1p(np.exp(-np.abs(z)))


_ZERO_64 = np.zeros((), float64)


class BinaryCrossEntropyWithLogits(_Loss):
    """ℓ(z, y) = −w·[p·y·log σ(z) + (1 − y)·log(1 − σ(z))], averaged (or summed),
    with p the ``pos_weight`` (1 when absent);

    ∂ℓ/∂z = w·[(p·y + 1 − y)·σ(z) − p·y] / N,   which is (σ(z) − y)/N without weights;
    ∂ℓ/∂y = w·[−z + (p − 1)·log(1 + e⁻ᶻ)] / N.

    Computed as PyTorch does, from log σ(z) = min(z, 0) − log1p(e^−|z|), so large
    |z| neither overflows nor rounds a small loss to 0.
    """

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    formula = r"\ell(z, y) = -\frac{1}{N}\sum_i \big[y_i \log \sigma(z_i) + (1 - y_i) \log(1 - \sigma(z_i))\big] \qquad \frac{\partial \ell}{\partial z} = \frac{\sigma(z) - y}{N}"

    @staticmethod
    def forward(ctx, z, y, weight=None, pos_weight=None, reduction="mean"):
        # (The usual call passes z and y alone: Function.apply's two-tensor path.)
        ctx.save_for_backward(z, y, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, z.size
        # Silently, as PyTorch: at z = ±inf, 0 · inf is nan without a word.
        # (numpy_quietly written out: its *args call cost 1.6k instructions more.)
        try:
            return run_quietly(_bce_with_logits, z, y, weight, pos_weight, reduction)
        except RuntimeError:  # the quiet context is in use by another thread
            return silently(_bce_with_logits, z, y, weight, pos_weight, reduction)

    @staticmethod
    def backward(ctx, grad_output):
        z, y, weight, pos_weight = ctx.saved_tensors
        scale = _reduction_scale(grad_output, ctx.reduction, ctx.count)
        if weight is not None:
            scale = scale * weight
        grad_z = grad_y = None
        if ctx.needs_input_grad[0]:
            if pos_weight is not None:
                py = pos_weight * y
                grad_z = ((py + 1 - y) * _sigmoid_of(z) - py) * scale
            else:
                grad_z = (_sigmoid_of(z) - y) * scale
        if ctx.needs_input_grad[1]:
            grad_y = -z * scale
            if pos_weight is not None:
                grad_y = grad_y + (pos_weight - 1) * _softplus_of_neg(z) * scale
        # One gradient per tensor input, which are its only edges (the weights and
        # the reduction are constants): the engine pairs them with the edges as they are.
        return grad_z, grad_y


def _bce_with_logits(z, y, weight, pos_weight, reduction: str):
    """BinaryCrossEntropyWithLogits's loss, on arrays (NumPy only: it runs in
    :func:`~autogradkit._quiet_numpy.numpy_quietly`'s context)."""
    # −log σ(z) = log(1 + e⁻ᶻ) = max(−z, 0) + log1p(e^−|z|), which is what
    # np.logaddexp(0, −z) computes, in one call instead of five: log1p keeps the
    # loss of a confident right answer (z = 20, y = 1: 2.06e-9) where log(1 + ...)
    # rounds it to 0. Computed in float64 and rounded once, it agrees with
    # PyTorch's float32 kernel to the last bit more often than float32 does.
    # (Its 0 a 0-d float64 array, as _one_as's ones are: ~1.3k instructions less.)
    neg_log_sigmoid = logaddexp(_ZERO_64, -z.astype(float64)).astype(z.dtype)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * y + 1
        loss = (1 - y) * z + log_weight * neg_log_sigmoid
    else:
        loss = (_one_as(y) - y) * z + neg_log_sigmoid
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


class BinaryCrossEntropy(_Loss):
    """ℓ(p, y) = −w·[y·log p + (1 − y)·log(1 − p)], averaged (or summed), with each
    log clamped at −100 as in PyTorch;   ∂ℓ/∂p = w·(p − y) / (p·(1 − p)) / N"""

    node_name = "BinaryCrossEntropyBackward0"
    formula = r"\ell(p, y) = -\frac{1}{N}\sum_i \big[y_i \log p_i + (1 - y_i) \log(1 - p_i)\big] \qquad \frac{\partial \ell}{\partial p} = \frac{p - y}{N\,p\,(1 - p)}"

    @staticmethod
    @quietly  # log 0, and the mean of nothing, silently
    def forward(ctx, p, y, weight, reduction):
        if not np.all((p >= 0) & (p <= 1)):  # nan is refused too, as PyTorch
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not np.all((y >= 0) & (y <= 1)):  # (a target of 2 made a negative loss)
            raise RuntimeError("all elements of target should be between 0 and 1")
        ctx.save_for_backward(p, y, weight)
        ctx.reduction, ctx.count = reduction, p.size
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), -100)
            log_1mp = np.maximum(np.log(1 - p), -100)
        loss = -(y * log_p + (1 - y) * log_1mp)
        if weight is not None:
            loss = loss * weight
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx, grad_output):
        p, y, weight = ctx.saved_tensors
        scale = _reduction_scale(grad_output, ctx.reduction, ctx.count)
        if weight is not None:
            scale = scale * weight
        # PyTorch's EPSILON = 1e-12 keeps p·(1 − p) away from 0; it reaches the kernel
        # as a float32 scalar, so even float64 inputs are clamped at float32(1e-12).
        eps = np.float32(1e-12)
        grad_p = None
        if ctx.needs_input_grad[0]:
            variance = (1 - p) * p
            variance = (
                variance.clamp(min=eps)
                if isinstance(variance, Tensor)
                else np.maximum(variance, eps)
            )
            grad_p = (p - y) / variance * scale
        grad_y = None
        if ctx.needs_input_grad[1]:
            grad_y = (np.log(1 - p) - np.log(p)) * scale
        return grad_p, grad_y, None, None


class MseLoss(_Loss):
    """ℓ(x, y) = (x − y)², averaged (or summed);   ∂ℓ/∂x = 2(x − y)/N = −∂ℓ/∂y"""

    node_name = "MseLossBackward0"
    formula = r"\ell(x, y) = \frac{1}{N}\sum_i (x_i - y_i)^2 \qquad \frac{\partial \ell}{\partial x} = \frac{2(x - y)}{N} = -\frac{\partial \ell}{\partial y}"

    @staticmethod
    @quietly  # overflow, and the mean of nothing, silently
    def forward(ctx, x, y, reduction):
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.count = reduction, np.broadcast(x, y).size
        return _reduce((x - y) ** 2, reduction)

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        # PyTorch's mse_loss_backward scales by 2/N before the difference meets the
        # incoming gradient: 2·(x − y) first would overflow float32 near its largest
        # values (x = 3e38), where the mean's gradient is finite.
        norm = (
            2 / ctx.count if ctx.reduction == "mean" and ctx.count else 2
        )  # (no elements: no gradient)
        grad = norm * (x - y) * grad_output
        return (
            grad if ctx.needs_input_grad[0] else None,
            -grad if ctx.needs_input_grad[1] else None,
            None,
        )


def _check_broadcastable_weight(weight, shape: tuple) -> None:
    """PyTorch's message for a ``weight`` that does not broadcast to the input."""
    if weight is None:
        return
    for offset in range(1, weight.ndim + 1):
        have = weight.shape[-offset]
        want = shape[-offset] if offset <= len(shape) else 1
        if have not in (1, want) or weight.ndim > len(shape):
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {have} at -{offset}! Mismatching "
                f"argument at index 1 had {Size(weight.shape)!r}; but expected shape "
                f"should be broadcastable to {list(shape)}"
            )


def _check_loss_args(name: str, input, target, reduction: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if not isinstance(target, Tensor):
        raise TypeError(
            f"{name}(): argument 'target' (position 2) must be Tensor, not {type(target).__name__}"
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _is_floating(tensor: Tensor) -> bool:
    return tensor._data.dtype.kind == "f"


def _promoted_operands(kernel: str, input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """mse_loss and smooth_l1_loss compute in the dtype PyTorch promotes input and
    target to: an integer or bool target (class labels used as values) is cast to
    the input's float dtype. With neither floating, PyTorch has no kernel."""
    if _is_floating(input) and _is_floating(target):
        return input, target
    if _is_floating(input):
        return input, target.to(input.dtype)
    if _is_floating(target):
        return input.to(target.dtype), target
    promoted = np.result_type(input._data.dtype, target._data.dtype)
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(promoted)}'")


def _huber_target(input: Tensor, target: Tensor) -> tuple[Tensor, str | None]:
    """PyTorch's huber kernel computes in the input's dtype: a target of another dtype
    (class labels as values, or float64 against float32) is cast to it, and the
    loss's backward then refuses with the returned message, as PyTorch's does (a loss
    computed without grad is fine). An integer input has no kernel."""
    if not _is_floating(input):
        if _is_floating(target):
            raise RuntimeError(
                f"result type {scalar_type_name(target._data.dtype)} can't be cast to the "
                f"desired output type {scalar_type_name(input._data.dtype)}"
            )
        promoted = np.result_type(input._data.dtype, target._data.dtype)
        raise NotImplementedError(
            f"\"huber_cpu\" not implemented for '{scalar_type_name(promoted)}'"
        )
    if target._data.dtype == input._data.dtype:
        return target, None
    refusal = (
        f"Found dtype {scalar_type_name(target._data.dtype)} but expected "
        f"{scalar_type_name(input._data.dtype)}"
    )
    return target.to(input.dtype), refusal


def _check_bce_dtypes(input: Tensor, target: Tensor) -> None:
    """binary_cross_entropy takes a target of the input's dtype only (PyTorch's
    words: an integer target of labels is 'Found dtype Long but expected Float')."""
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_type_name(target._data.dtype)} but expected "
            f"{scalar_type_name(input._data.dtype)}"
        )
    if not _is_floating(input):
        name = scalar_type_name(input._data.dtype)
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{name}'")


def _check_bce_with_logits_dtypes(input: Tensor, target: Tensor) -> None:
    """binary_cross_entropy_with_logits: floating logits, and a floating target
    (PyTorch's errors for an integer or bool target come from its formula's steps)."""
    if not _is_floating(input):
        name = scalar_type_name(input._data.dtype)
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{name}'")
    if target._data.dtype.kind == "b":
        refuse_bool_subtraction(target._data, target._data)
    if not _is_floating(target):
        raise RuntimeError(
            f"result type {scalar_type_name(input._data.dtype)} can't be cast to the desired "
            f"output type {scalar_type_name(target._data.dtype)}"
        )


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction PyTorch's old ``size_average``/``reduce`` arguments ask for
    (each None meaning True), with its deprecation warning; ``reduction`` when
    neither is given."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        legacy = "none"
    else:
        legacy = "mean" if size_average else "sum"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{legacy}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return legacy


def _check_constant(name: str, **arguments) -> None:
    """Weights are constants: PyTorch refuses to differentiate with respect to them."""
    for argument, value in arguments.items():
        if isinstance(value, Tensor) and value.requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"The function '{name}' is not differentiable with respect to argument "
                f"'{argument}'. This input cannot have requires_grad True."
            )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross-entropy between ``sigmoid(input)`` and ``target``, computed
    stably from the logits ``input``.

    Parameters
    ----------
    input : Tensor
        Logits z (any shape).
    target : Tensor
        Targets y in [0, 1], same shape as ``input``.
    weight : Tensor, optional
        Rescales each element's loss (broadcast to ``input``'s shape).
    reduction : {'mean', 'sum', 'none'}
    pos_weight : Tensor, optional
        Weight of positive examples, broadcast along the last dimension.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_loss_args("binary_cross_entropy_with_logits", input, target, reduction)
    _check_bce_with_logits_dtypes(input, target)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})".replace(
                "autogradkit.Size", "torch.Size"
            )
        )
    # weight and pos_weight are constants of the loss, not inputs of the graph: PyTorch's
    # node lists only (input, target) in next_functions, so pass their arrays.
    if weight is None and pos_weight is None and reduction == "mean":
        # The usual call: nothing to check (2k instructions), and two arguments
        # take Function.apply's two-tensor path (4k less than five).
        return BinaryCrossEntropyWithLogits.apply(input, target)
    if weight is None and pos_weight is None:
        return BinaryCrossEntropyWithLogits.apply(input, target, None, None, reduction)
    _check_constant("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    weight_data = weight._data if isinstance(weight, Tensor) else weight
    pos_data = pos_weight._data if isinstance(pos_weight, Tensor) else pos_weight
    _check_logit_weights(input._data.shape, weight_data, pos_data)
    return BinaryCrossEntropyWithLogits.apply(input, target, weight_data, pos_data, reduction)


def _check_logit_weights(shape: tuple, weight, pos_weight) -> None:
    """PyTorch's errors for a ``pos_weight`` or ``weight`` that does not broadcast
    to the logits' shape, or would make the loss larger than them (NumPy's own would
    be a ValueError from deep inside): ``pos_weight`` first, as PyTorch meets it
    first (with the target), then ``weight`` (with the losses)."""
    losses = np.broadcast_to(0, shape)
    for w, weight_first in ((pos_weight, True), (weight, False)):
        if w is None:
            continue
        try:
            joined = np.broadcast_shapes(np.shape(w), shape)
        except ValueError:
            raise (
                broadcast_error(w, losses) if weight_first else broadcast_error(losses, w)
            ) from None
        if joined != shape:
            raise RuntimeError(
                f"output with shape {list(shape)} doesn't match the broadcast shape {list(joined)}"
            )


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy between probabilities ``input`` (in [0, 1]) and ``target``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_loss_args("binary_cross_entropy", input, target, reduction)
    _check_bce_dtypes(input, target)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size.".replace(
                "autogradkit.Size", "torch.Size"
            )
        )
    weight_data = weight._data if isinstance(weight, Tensor) else weight  # a constant (see above)
    _check_constant("binary_cross_entropy", weight=weight)
    _check_broadcastable_weight(weight_data, input.shape)
    return BinaryCrossEntropy.apply(input, target, weight_data, reduction)


def mse_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Mean squared error ``mean((input - target)²)``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_loss_args("mse_loss", input, target, reduction)
    input, target = _promoted_operands("mse_cpu", input, target)
    input, target = _broadcast_pair(input, target)
    return MseLoss.apply(input, target, reduction)


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """A regression loss's input and target broadcast to one shape, with PyTorch's
    warning when their shapes differ (usually a mistake: ``(N, 1)`` against ``(N,)``)."""
    if target._data.shape == input._data.shape:
        return input, target
    warnings.warn(
        f"Using a target size ({target.shape}) that is different to the input size "
        f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.".replace("autogradkit.Size", "torch.Size"),
        UserWarning,
        stacklevel=3,
    )
    try:
        shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    except ValueError:
        raise broadcast_error(input._data, target._data) from None
    # PyTorch broadcasts both first (torch.broadcast_tensors): ExpandBackward0 nodes.
    if input._data.shape != shape:
        input = input.expand(*shape)
    if target._data.shape != shape:
        target = target.expand(*shape)
    return input, target


def _weighted(loss: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """``loss * weight``, reduced as PyTorch's weighted l1/huber losses reduce it."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    return weighted.sum() if reduction == "sum" else weighted.mean()


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error: the mean (or sum) of ``|input - target|``.

    .. math:: \\ell(x, y) = \\frac{1}{N} \\sum_i |x_i - y_i|, \\qquad
        \\frac{\\partial \\ell}{\\partial x_i} = \\frac{\\operatorname{sign}(x_i - y_i)}{N}

    Recorded as PyTorch records it, from its parts: ``SubBackward0``,
    ``AbsBackward0``, then ``MeanBackward0`` (or ``SumBackward0``). With ``weight``
    (the shape of ``input``) each term is weighted, and ``'mean'`` divides by
    ``weight.sum()``.

    Parameters
    ----------
    input, target : Tensor
        Floating tensors of one shape (a different shape is broadcast, with a warning).
    reduction : {'mean', 'sum', 'none'}
    weight : Tensor, optional

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([0.5, -2.0, 1.5], requires_grad=True)
    >>> loss = torch.nn.functional.l1_loss(x, torch.zeros(3))
    >>> loss
    tensor(1.3333, grad_fn=<MeanBackward0>)
    >>> loss.backward()
    >>> x.grad
    tensor([ 0.3333, -0.3333,  0.3333])
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_loss_args("l1_loss", input, target, reduction)
    input, target = _broadcast_pair(input, target)
    errors = (input - target).abs()
    if weight is not None:
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        weighted = errors * weight
        if reduction == "none":
            return weighted
        return weighted.sum() if reduction == "sum" else weighted.sum() / weight.sum()
    if reduction == "none":
        return errors
    return errors.sum() if reduction == "sum" else errors.mean()


class SmoothL1Loss(_Loss):
    """ℓ(d) = ½d²/β where |d| < β, else |d| − ½β (d = x − y), averaged (or summed);
    ∂ℓ/∂x = d/β where |d| ≤ β, else sign(d) (over N for the mean) = −∂ℓ/∂y"""

    node_name = "SmoothL1LossBackward0"
    formula = r"\ell(d) = \begin{cases} \tfrac{d^2}{2\beta} & |d| < \beta \\ |d| - \tfrac{\beta}{2} & \text{otherwise} \end{cases} \qquad \frac{\partial \ell}{\partial x} = \begin{cases} d/\beta & |d| \le \beta \\ \operatorname{sign}(d) & \text{otherwise} \end{cases}"

    @staticmethod
    @quietly  # overflow, and the mean of nothing, silently
    def forward(ctx, x, y, reduction, beta):
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.count, ctx.beta, ctx.scale = (
            reduction,
            np.broadcast(x, y).size,
            beta,
            1.0,
        )
        size = np.abs(x - y)
        return _reduce(
            np.where(size < beta, 0.5 * size * size / beta, size - 0.5 * beta), reduction
        )

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        norm = ctx.scale / ctx.count if ctx.reduction == "mean" and ctx.count else ctx.scale
        scaled = grad_output * norm
        # As PyTorch, the target's gradient is the slope at y − x (not minus the
        # input's, which would be −0.0 where x = y).
        return (
            _smooth_l1_slope(x - y, ctx.beta) * scaled if ctx.needs_input_grad[0] else None,
            _smooth_l1_slope(y - x, ctx.beta) * scaled if ctx.needs_input_grad[1] else None,
            None,
            None,
        )


class HuberLoss(SmoothL1Loss):
    """ℓ(d) = ½d² where |d| < δ, else δ(|d| − ½δ) (d = x − y): δ times the smooth L1
    loss with β = δ, averaged (or summed);
    ∂ℓ/∂x = d where |d| ≤ δ, else δ·sign(d) (over N for the mean) = −∂ℓ/∂y"""

    node_name = "HuberLossBackward0"
    formula = r"\ell(d) = \begin{cases} \tfrac12 d^2 & |d| < \delta \\ \delta\,(|d| - \tfrac{\delta}{2}) & \text{otherwise} \end{cases} \qquad \frac{\partial \ell}{\partial x} = \begin{cases} d & |d| \le \delta \\ \delta \operatorname{sign}(d) & \text{otherwise} \end{cases}"

    @staticmethod
    @quietly
    def forward(ctx, x, y, reduction, delta, refusal=None):
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.count = reduction, np.broadcast(x, y).size
        ctx.beta, ctx.scale = delta, delta  # backward: δ · (smooth L1's slope with β = δ)
        ctx.refusal = refusal  # a target of another dtype: PyTorch refuses in backward
        size = np.abs(x - y)
        return _reduce(
            np.where(size < delta, 0.5 * size * size, delta * (size - 0.5 * delta)), reduction
        )

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.refusal is not None:
            raise RuntimeError(ctx.refusal)
        return (*SmoothL1Loss.backward(ctx, grad_output), None)


def _smooth_l1_slope(d, beta: float):
    """d/β where |d| < β, else sign(d) (equal at |d| = β; the strict side is
    PyTorch's, whose second derivative is 0 there). The branch not taken
    contributes exactly 0 (select), so a create_graph pass differentiates it right."""
    inner = np.abs(_values_of(d)) < beta
    return select(inner, d / beta) + select(~inner, np.sign(d))


def _values_of(value):
    """The array of a gradient formula's operand (a tensor in a create_graph pass)."""
    return value._data if isinstance(value, Tensor) else value


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Smooth L1 loss: squared error for small differences, absolute error beyond ``beta``.

    .. math:: \\ell(d) = \\begin{cases} \\frac{d^2}{2\\beta} & |d| < \\beta \\\\
        |d| - \\frac{\\beta}{2} & \\text{otherwise} \\end{cases}, \\qquad
        \\frac{\\partial \\ell}{\\partial x} = \\begin{cases} d / \\beta & |d| \\le \\beta
        \\\\ \\operatorname{sign}(d) & \\text{otherwise} \\end{cases}

    with ``d = input - target``, averaged over the elements (``'mean'``) or summed.
    ``beta = 0`` is :func:`l1_loss`.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([0.5, -2.0, 1.5], requires_grad=True)
    >>> loss = torch.nn.functional.smooth_l1_loss(x, torch.zeros(3))
    >>> loss
    tensor(0.8750, grad_fn=<SmoothL1LossBackward0>)
    >>> loss.backward()
    >>> x.grad
    tensor([ 0.1667, -0.3333,  0.3333])
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_loss_args("smooth_l1_loss", input, target, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _promoted_operands("smooth_l1_cpu", input, target)
    input, target = _broadcast_pair(input, target)
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """Huber loss: squared error for small differences, ``delta``-scaled absolute error beyond.

    .. math:: \\ell(d) = \\begin{cases} \\tfrac12 d^2 & |d| < \\delta \\\\
        \\delta\\,(|d| - \\tfrac12\\delta) & \\text{otherwise} \\end{cases}, \\qquad
        \\frac{\\partial \\ell}{\\partial x} = \\begin{cases} d & |d| \\le \\delta
        \\\\ \\delta \\operatorname{sign}(d) & \\text{otherwise} \\end{cases}

    with ``d = input - target``: ``delta`` times :func:`smooth_l1_loss` with
    ``beta = delta``. With ``weight`` (the shape of ``input``) each term is weighted
    before the reduction.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([0.5, -2.0, 1.5], requires_grad=True)
    >>> loss = torch.nn.functional.huber_loss(x, torch.zeros(3), delta=0.5)
    >>> loss
    tensor(0.5417, grad_fn=<HuberLossBackward0>)
    >>> loss.backward()
    >>> x.grad
    tensor([ 0.1667, -0.1667,  0.1667])
    """
    _check_loss_args("huber_loss", input, target, reduction)
    target, refusal = _huber_target(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_pair(input, target)
    if weight is None:
        return HuberLoss.apply(input, target, reduction, float(delta), refusal)
    losses = HuberLoss.apply(input, target, "none", float(delta), refusal)
    return _weighted(losses, weight, input, reduction)


# ----------------------------------------------------------------------------- activations
# Each is one Function, as PyTorch records one node (LeakyReluBackward0, ...). Its
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback–Leibler divergence of ``target`` from the distribution whose
    log-probabilities are ``input``, pointwise, then reduced:

    .. math:: \\ell_i = y_i(\\log y_i - x_i) \\qquad
        (\\text{or } e^{y_i}(y_i - x_i) \\text{ with } \\texttt{log\\_target=True})

    ``reduction='batchmean'`` sums and divides by the batch size (the first
    dimension): the divergence of each sample, averaged, as the mathematics defines
    it. ``'mean'`` averages over every element, with PyTorch's warning that it
    differs. Recorded as PyTorch's composite computes it (``XlogyBackward0`` for
    y·log y, ``MulBackward0``, ``SubBackward0``, then ``SumBackward0`` /
    ``MeanBackward0``, and ``DivBackward0`` for the batch size).

    Examples
    --------
    >>> import autogradkit as torch
    >>> log_p = torch.tensor([[0.5, 0.5]]).log().requires_grad_()
    >>> torch.nn.functional.kl_div(log_p, torch.tensor([[0.9, 0.1]]), reduction="batchmean")
    tensor(0.3681, grad_fn=<DivBackward0>)
    """
    if size_average is not None or reduce is not None:
        kernel_reduction = _legacy_reduction(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.",
                UserWarning,
                stacklevel=2,
            )
        kernel_reduction = "sum" if reduction == "batchmean" else reduction
        if kernel_reduction not in ("none", "mean", "sum"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
    if not (_is_floating(input) and _is_floating(target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        pointwise = xlogy(target, target) - target * input
    if kernel_reduction == "mean":
        reduced = pointwise.mean()
    elif kernel_reduction == "sum":
        reduced = pointwise.sum()
    else:
        reduced = pointwise
    if reduction == "batchmean" and input.ndim != 0:
        reduced = reduced / input.shape[0]
    return reduced


# backward calls a second Function, the derivative as one operation (PyTorch's
# leaky_relu_backward, gelu_backward, ...), so that a create_graph pass records that
# node too (LeakyReluBackwardBackward0) and differentiates it again correctly: the
# second Function's own backward is written with NumPy calls that, on tensors,
# record the operations they stand for.


def _refuse_integer(input: Tensor, kernel: str) -> None:
    """PyTorch's activations have kernels for floating dtypes only."""
    if not _is_floating(input):
        name = scalar_type_name(input._data.dtype)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _inplace_activation(input: Tensor, function: type[Elementwise], *constants) -> Tensor:
    """``input`` overwritten with ``function`` of itself (``inplace=True``): recorded
    as PyTorch records its in-place kernels (the tensor's history rebased)."""

    def in_place(a: np.ndarray) -> None:
        a[...] = function.in_formula(a, *constants)

    return input._inplace(lambda t: function.apply(t, *constants), in_place)


class LeakyRelu(Elementwise):
    """f(x) = x where x > 0, else s·x (s the negative slope);
    ∂f/∂x = 1 where x > 0, else s"""

    node_name = "LeakyReluBackward0"
    formula = r"f(x) = \begin{cases} x & x > 0 \\ s\,x & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & x > 0 \\ s & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, x, x * slope)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return LeakyReluBackward.in_formula(grad_output, x, ctx.slope), None


class LeakyReluInPlace(LeakyRelu):
    """``leaky_relu_``: PyTorch's in-place kernel saves its result, not x, and so
    cannot tell the two sides apart when the slope is negative: it refuses then."""

    node_name = "LeakyReluBackward1"

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an issue "
                "at https://github.com/pytorch/pytorch if you do require supporting in-place "
                "leakRelu backward calculation with negative slope"
            )
        return LeakyRelu.backward(ctx, grad_output)


class LeakyReluBackward(Elementwise):
    """LeakyRelu's derivative applied to g, as one operation:
    f(g, x) = g where x > 0, else s·g;   ∂f/∂g = 1 or s,   ∂f/∂x = 0"""

    node_name = "LeakyReluBackwardBackward0"
    formula = r"f(g, x) = \begin{cases} g & x > 0 \\ s\,g & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, g, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, g, g * slope)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_g = LeakyReluBackward.in_formula(grad_output, x, ctx.slope)
        return grad_g, _zeros_like(grad_output), None


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, else ``negative_slope``·x, elementwise: a ReLU whose negative
    side keeps a small gradient.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([-2.0, 3.0], requires_grad=True)
    >>> y = torch.nn.functional.leaky_relu(x, 0.1)
    >>> y
    tensor([-0.2000,  3.0000], grad_fn=<LeakyReluBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([0.1000, 1.0000])
    """
    _refuse_integer(input, "leaky_relu_cpu")
    if inplace:
        return _inplace_activation(input, LeakyReluInPlace, negative_slope)
    return LeakyRelu.apply(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """:func:`leaky_relu` written into ``input``."""
    return leaky_relu(input, negative_slope, inplace=True)


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function elementwise (NumPy has none): the C library's, through
    :func:`math.erf`, in float64, rounded once to ``x``'s dtype."""
    wide = np.asarray(x, dtype=np.float64)
    values = np.fromiter(map(math.erf, wide.ravel()), np.float64, wide.size)
    return values.reshape(wide.shape).astype(x.dtype, copy=False)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)  # the tanh approximation's β
_KAPPA = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)  # the normal density's constant


class Gelu(Elementwise):
    """f(x) = x·Φ(x), with Φ the standard normal distribution function,
    Φ(x) = ½(1 + erf(x/√2));   ∂f/∂x = Φ(x) + x·φ(x), φ(x) = e^(−x²/2)/√(2π).

    With ``approximate='tanh'``: f(x) = ½x(1 + tanh u), u = β(x + κx³),
    β = √(2/π), κ = 0.044715;   ∂f/∂x = ½(1 + tanh u) + ½x(1 − tanh²u)·β(1 + 3κx²)."""

    node_name = "GeluBackward0"
    formula = r"f(x) = x\,\Phi(x) \qquad \frac{\partial f}{\partial x} = \Phi(x) + x\,\varphi(x)"

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        wide = x.astype(np.float64)  # rounded once, at the end
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (wide + _KAPPA * wide**3)
            out = 0.5 * wide * (1 + np.tanh(inner))
        else:
            out = wide * 0.5 * (1 + _erf(wide / math.sqrt(2)))
        return out.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return GeluBackward.in_formula(grad_output, x, ctx.approximate), None


class GeluBackward(Elementwise):
    """Gelu's derivative applied to g, as one operation: f(g, x) = g·gelu′(x);
    ∂f/∂g = gelu′(x),   ∂f/∂x = g·gelu″(x), where gelu″(x) = φ(x)(2 − x²)
    (tanh form: (1 − tanh²u)(u′ − x·tanh u·u′² + 3βκx²), u′ = β(1 + 3κx²))."""

    node_name = "GeluBackwardBackward0"
    formula = r"f(g, x) = g\,\big(\Phi(x) + x\,\varphi(x)\big) \qquad \frac{\partial f}{\partial x} = g\,\varphi(x)\,(2 - x^2)"

    @staticmethod
    def forward(ctx, g, x, approximate):
        ctx.save_for_backward(g, x)
        ctx.approximate = approximate
        wide = x.astype(np.float64)
        if approximate == "tanh":
            tanh_inner = np.tanh(_SQRT_2_OVER_PI * (wide + _KAPPA * wide**3))
            slope = 0.5 * (1 + tanh_inner) + 0.5 * wide * (1 - tanh_inner**2) * (
                _SQRT_2_OVER_PI * (1 + 3 * _KAPPA * wide**2)
            )
        else:
            cdf = 0.5 * (1 + _erf(wide / math.sqrt(2)))
            slope = cdf + wide * _INV_SQRT_2PI * np.exp(-0.5 * wide * wide)
        return g * slope.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        g, x = ctx.saved_tensors
        grad_g = GeluBackward.in_formula(grad_output, x, ctx.approximate)
        # gelu″(x), from NumPy calls that record on tensors (a create_graph pass).
        if ctx.approximate == "tanh":
            u_prime = _SQRT_2_OVER_PI * (1 + 3 * _KAPPA * x * x)
            t = np.tanh(_SQRT_2_OVER_PI * (x + _KAPPA * x * x * x))
            curvature = (1 - t * t) * (u_prime - x * t * u_prime * u_prime)
            curvature = curvature + (1 - t * t) * (3 * _SQRT_2_OVER_PI * _KAPPA) * x * x
        else:
            curvature = np.exp(-0.5 * x * x) * _INV_SQRT_2PI * (2 - x * x)
        return grad_g, grad_output * g * curvature, None


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU, x·Φ(x) elementwise (Φ the standard normal's distribution function), or
    its tanh approximation with ``approximate='tanh'``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    >>> torch.nn.functional.gelu(x)
    tensor([-0.1587,  0.0000,  1.9545], grad_fn=<GeluBackward0>)
    >>> torch.nn.functional.gelu(x, approximate="tanh")
    tensor([-0.1588,  0.0000,  1.9546], grad_fn=<GeluBackward0>)
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _refuse_integer(input, "GeluKernelImpl")
    return Gelu.apply(input, approximate)


class Elu(Elementwise):
    """f(x) = s·x where x > 0, else s·α(e^(c·x) − 1) (ELU: s = c = 1; SELU and CELU
    are ELUs with other s and c);   ∂f/∂x = s where x > 0, else s·α·c·e^(c·x)"""

    node_name = "EluBackward0"
    formula = r"f(x) = \begin{cases} s\,x & x > 0 \\ s\,\alpha\,(e^{c x} - 1) & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = \begin{cases} s & x > 0 \\ s\,\alpha\,c\,e^{c x} & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.save_for_backward(x)
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        with np.errstate(over="ignore"):  # the branch not taken may overflow
            negative = np.expm1(x * input_scale) * (alpha * scale)
            return np.where(x > 0, x * scale if scale != 1 else x, negative)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        coefficients = (ctx.alpha, ctx.scale, ctx.input_scale)
        return EluBackward.in_formula(grad_output, x, *coefficients), None, None, None


class EluInPlace(Elu):
    """``elu_`` (and ``selu_``): PyTorch's in-place kernel saves its result, and
    refuses a negative α in backward (the result's sign no longer tells the sides
    apart)."""

    node_name = "EluBackward1"

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is "
                "not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead."
            )
        return Elu.backward(ctx, grad_output)


class Celu(Elu):
    """CELU, x where x > 0, else α(e^(x/α) − 1): an ELU with c = 1/α, recorded under
    its own name (its derivative is ELU's: ``EluBackwardBackward0``)."""

    node_name = "CeluBackward0"


class CeluInPlace(EluInPlace):
    """``celu_``: :class:`EluInPlace` under CELU's name."""

    node_name = "CeluBackward1"


class EluBackward(Elementwise):
    """Elu's derivative applied to g, as one operation:
    f(g, x) = s·g where x > 0, else g·s·α·c·e^(c·x);
    ∂f/∂g = s or s·α·c·e^(c·x),   ∂f/∂x = g·s·α·c²·e^(c·x) where x < 0, else 0"""

    node_name = "EluBackwardBackward0"
    formula = r"f(g, x) = \begin{cases} s\,g & x > 0 \\ g\,s\,\alpha\,c\,e^{c x} & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = \begin{cases} 0 & x > 0 \\ g\,s\,\alpha\,c^2\,e^{c x} & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, g, x, alpha, scale, input_scale):
        ctx.save_for_backward(g, x)
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        negative_slope = alpha * scale * input_scale
        with np.errstate(over="ignore"):
            positive = g * scale if scale != 1 else g
            return np.where(x <= 0, g * negative_slope * np.exp(x * input_scale), positive)

    @staticmethod
    def backward(ctx, grad_output):
        g, x = ctx.saved_tensors
        alpha, scale, input_scale = ctx.alpha, ctx.scale, ctx.input_scale
        grad_g = EluBackward.in_formula(grad_output, x, alpha, scale, input_scale)
        # Strictly negative, as PyTorch's elu_double_backward: at x = 0 the second
        # derivative is 0 (the first uses the x ≤ 0 side there).
        negative = _values_of(x) < 0
        curvature = alpha * scale * input_scale * input_scale
        if input_scale == 1:  # (ELU, SELU: no product to record for c)
            grad_x = grad_output * g * curvature * np.exp(x)
        else:
            grad_x = grad_output * g * curvature * np.exp(x * input_scale)
        return grad_g, select(negative, grad_x), None, None, None


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """ELU: x where x > 0, else α(eˣ − 1), elementwise (smooth where ReLU has a kink
    when α = 1, and negative outputs pull the mean activation towards 0).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.elu(torch.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    _refuse_integer(input, "elu_cpu")
    if inplace:
        return _inplace_activation(input, EluInPlace, alpha, 1.0, 1.0)
    return Elu.apply(input, alpha, 1.0, 1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """:func:`elu` written into ``input``."""
    return elu(input, alpha, inplace=True)


# SELU's constants (Klambauer et al., 2017), to the digits PyTorch's C++ uses.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """SELU: λ·x where x > 0, else λ·α(eˣ − 1), with λ ≈ 1.0507 and α ≈ 1.6733
    chosen so that activations keep mean 0 and variance 1 through deep networks.
    PyTorch computes it as an ELU (``EluBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.selu(torch.tensor([-1.0, 2.0]))
    tensor([-1.1113,  2.1014])
    """
    _refuse_integer(input, "elu_cpu")
    if inplace:
        return _inplace_activation(input, EluInPlace, _SELU_ALPHA, _SELU_SCALE, 1.0)
    return Elu.apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    """:func:`selu` written into ``input``."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """CELU: x where x > 0, else α(e^(x/α) − 1), elementwise (continuously
    differentiable for every α, where ELU is only for α = 1).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.celu(torch.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _refuse_integer(input, "elu_cpu")
    if inplace:
        return _inplace_activation(input, CeluInPlace, alpha, 1.0, 1.0 / alpha)
    return Celu.apply(input, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """:func:`celu` written into ``input``."""
    return celu(input, alpha, inplace=True)


class Silu(Elementwise):
    """f(x) = x·σ(x) (also called swish);   ∂f/∂x = σ(x)·(1 + x·(1 − σ(x)))"""

    node_name = "SiluBackward0"
    formula = r"f(x) = x\,\sigma(x) \qquad \frac{\partial f}{\partial x} = \sigma(x)\,\big(1 + x\,(1 - \sigma(x))\big)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * _sigmoid_array(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # PyTorch's formula in a create_graph pass (its nodes: SigmoidBackward0,
        # MulBackward0, RsubBackward1, AddBackward1), and its arithmetic otherwise.
        sigmoid = _sigmoid_of(x) if isinstance(x, Tensor) else _sigmoid_array(x)
        return grad_output * sigmoid * (1.0 + x * (1.0 - sigmoid))


def _sigmoid_array(x: np.ndarray) -> np.ndarray:
    """σ(x) on an array without overflow (e^(−|x|) never overflows)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """SiLU (swish): x·σ(x) elementwise.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.silu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.2689,  0.0000,  1.7616])
    """
    _refuse_integer(input, "silu_cpu")
    if inplace:
        return _inplace_activation(input, Silu)
    return Silu.apply(input)


class Softplus(Elementwise):
    """f(x) = log(1 + e^(βx))/β, or x where βx > threshold (where the two agree to
    float precision, and e^(βx) could overflow);
    ∂f/∂x = σ(βx) = e^(βx)/(1 + e^(βx)), or 1 beyond the threshold"""

    node_name = "SoftplusBackward0"
    formula = r"f(x) = \tfrac{1}{\beta}\log\big(1 + e^{\beta x}\big) \qquad \frac{\partial f}{\partial x} = \frac{e^{\beta x}}{1 + e^{\beta x}}"

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        scaled = x * beta
        with np.errstate(over="ignore"):
            return np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / beta)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return SoftplusBackward.in_formula(grad_output, x, ctx.beta, ctx.threshold), None, None


class SoftplusBackward(Elementwise):
    """Softplus's derivative applied to g, as one operation:
    f(g, x) = g·σ(βx) (g beyond the threshold);   ∂f/∂g = σ(βx) (or 1),
    ∂f/∂x = g·β·σ(βx)(1 − σ(βx)) (or 0)"""

    node_name = "SoftplusBackwardBackward0"
    formula = r"f(g, x) = g\,\sigma(\beta x) \qquad \frac{\partial f}{\partial x} = g\,\beta\,\sigma(\beta x)\big(1 - \sigma(\beta x)\big)"

    @staticmethod
    def forward(ctx, g, x, beta, threshold):
        ctx.save_for_backward(g, x)
        ctx.beta, ctx.threshold = beta, threshold
        scaled = x * beta
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(scaled)
            return np.where(scaled > threshold, g, g * z / (z + 1))

    @staticmethod
    def backward(ctx, grad_output):
        g, x = ctx.saved_tensors
        grad_g = SoftplusBackward.in_formula(grad_output, x, ctx.beta, ctx.threshold)
        inside = ~(_values_of(x) * ctx.beta > ctx.threshold)
        sigmoid = _sigmoid_of(x * ctx.beta)
        grad_x = select(inside, grad_output * g * ctx.beta * sigmoid * (1 - sigmoid))
        return grad_g, grad_x, None, None


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx))/β elementwise: a smooth ReLU, always positive; linear
    (x itself) where βx > ``threshold``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.softplus(torch.tensor([-1.0, 0.0, 30.0]))
    tensor([ 0.3133,  0.6931, 30.0000])
    """
    _refuse_integer(input, "softplus_cpu")
    return Softplus.apply(input, beta, threshold)


class Hardtanh(Elementwise):
    """f(x) = x clipped to [min, max];   ∂f/∂x = 1 strictly inside, else 0"""

    node_name = "HardtanhBackward0"
    formula = r"f(x) = \min(\max(x, a), b) \qquad \frac{\partial f}{\partial x} = \begin{cases} 1 & a < x < b \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, min_val, max_val):
        ctx.save_for_backward(x)
        ctx.min_val, ctx.max_val = min_val, max_val
        # The bounds in x's dtype (PyTorch truncates them for integer tensors).
        return np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return HardtanhBackward.in_formula(grad_output, x, ctx.min_val, ctx.max_val), None, None


class HardtanhBackward(Elementwise):
    """Hardtanh's derivative applied to g, as one operation:
    f(g, x) = g where min < x < max, else 0;   ∂f/∂g = 1 or 0,   ∂f/∂x = 0"""

    node_name = "HardtanhBackwardBackward0"
    formula = r"f(g, x) = \begin{cases} g & a < x < b \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, g, x, min_val, max_val):
        ctx.save_for_backward(x)
        ctx.min_val, ctx.max_val = min_val, max_val
        outside = (x <= min_val) | (x >= max_val)
        return np.where(outside, np.zeros((), g.dtype), g)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_g = HardtanhBackward.in_formula(grad_output, x, ctx.min_val, ctx.max_val)
        return grad_g, _zeros_like(grad_output), None, None


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """x clipped to [``min_val``, ``max_val``], elementwise: a piecewise-linear tanh.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    >>> torch.nn.functional.hardtanh(x)
    tensor([-1.0000,  0.5000,  1.0000], grad_fn=<HardtanhBackward0>)
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace_activation(input, Hardtanh, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """:func:`hardtanh` written into ``input``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) elementwise: PyTorch computes it as ``hardtanh(x, 0, 6)``
    (``HardtanhBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.relu6(torch.tensor([-1.0, 3.0, 8.0]))
    tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


class Softshrink(Elementwise):
    """f(x) = x − λ where x > λ, x + λ where x < −λ, else 0;
    ∂f/∂x = 1 where |x| > λ, else 0"""

    node_name = "SoftshrinkBackward0"
    formula = r"f(x) = \begin{cases} x - \lambda & x > \lambda \\ x + \lambda & x < -\lambda \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = [\,|x| > \lambda\,]"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        # x·0 in the middle, as PyTorch's kernel: −0.5 gives −0.0 there.
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return SoftshrinkBackward.in_formula(grad_output, x, ctx.lambd), None


class Hardshrink(Softshrink):
    """f(x) = x where |x| > λ, else 0;   ∂f/∂x = 1 where |x| > λ, else 0"""

    node_name = "HardshrinkBackward0"
    formula = r"f(x) = \begin{cases} x & |x| > \lambda \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = [\,|x| > \lambda\,]"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return np.where((x > lambd) | (x < -lambd), x, np.zeros((), x.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return HardshrinkBackward.in_formula(grad_output, x, ctx.lambd), None


class SoftshrinkBackward(Elementwise):
    """Softshrink's derivative applied to g, as one operation (PyTorch's
    softshrink_backward): f(g, x) = g where |x| > λ, else 0;
    ∂f/∂g = 1 or 0,   ∂f/∂x = 0"""

    node_name = "SoftshrinkBackwardBackward0"
    formula = r"f(g, x) = \begin{cases} g & |x| > \lambda \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, g, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return np.where((x > lambd) | (x < -lambd), g, np.zeros((), g.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_g = ctx._function.in_formula(grad_output, x, ctx.lambd)
        return grad_g, _zeros_like(grad_output), None


class HardshrinkBackward(SoftshrinkBackward):
    """Hardshrink's derivative applied to g: the same as Softshrink's (PyTorch's
    hardshrink_backward), under its own node name."""

    node_name = "HardshrinkBackwardBackward0"


def _check_lambda(input: Tensor, lambd: float) -> None:
    """PyTorch's refusal of a negative λ (it names the dtype's largest value)."""
    if not 0 <= lambd <= float(np.finfo(input._data.dtype).max):
        largest = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype "
            f"{scalar_type_name(input._data.dtype)}, but found {lambd:g}"
        )


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x − λ above λ, x + λ below −λ, 0 between: shrinks every value towards 0 by λ
    (the proximal step of the L1 penalty).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.softshrink(torch.tensor([-2.0, 0.25, 1.5]), 0.5)
    tensor([-1.5000,  0.0000,  1.0000])
    """
    _refuse_integer(input, "softshrink_check")
    _check_lambda(input, lambd)
    return Softshrink.apply(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > λ, else 0: small values set to 0.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.hardshrink(torch.tensor([-2.0, 0.25, 1.5]), 0.5)
    tensor([-2.0000,  0.0000,  1.5000])
    """
    _refuse_integer(input, "hardshrink_cpu")
    return Hardshrink.apply(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    """x − tanh(x), as PyTorch's Python writes it (``SubBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.tanhshrink(torch.tensor([1.0]))
    tensor([0.2384])
    """
    return input - input.tanh()


class Threshold(Elementwise):
    """f(x) = x where x > t, else v;   ∂f/∂x = 1 where x > t, else 0"""

    node_name = "ThresholdBackward0"
    formula = r"f(x) = \begin{cases} x & x > t \\ v & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = [\,x > t\,]"

    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold, ctx.value = threshold, value
        return np.where(x > threshold, x, x.dtype.type(value))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return ThresholdBackward.in_formula(grad_output, x, ctx.threshold), None, None


class ThresholdInPlace(Threshold):
    """``threshold_``: the same derivative (PyTorch's keeps the input's values for
    it, so a ``value`` above the threshold still gives 0 there), under PyTorch's
    in-place node name."""

    node_name = "ThresholdBackward1"


class ThresholdBackward(Elementwise):
    """Threshold's derivative applied to g, as one operation (PyTorch's
    threshold_backward): f(g, x) = g where x > t, else 0;   ∂f/∂g = 1 or 0,
    ∂f/∂x = 0"""

    node_name = "ThresholdBackwardBackward0"
    formula = r"f(g, x) = \begin{cases} g & x > t \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, g, x, threshold):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return np.where(x <= threshold, np.zeros((), g.dtype), g)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_g = ThresholdBackward.in_formula(grad_output, x, ctx.threshold)
        return grad_g, _zeros_like(grad_output), None


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > ``threshold``, else ``value``, elementwise (ReLU is
    ``threshold(x, 0, 0)``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.threshold(torch.tensor([-1.0, 0.5, 2.0]), 1.0, -5.0)
    tensor([-5., -5.,  2.])
    """
    return _thresholded(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """:func:`threshold` written into ``input``."""
    return _thresholded(input, threshold, value, inplace=True)


def _thresholded(input: Tensor, at: float, value: float, inplace: bool) -> Tensor:
    """threshold's work (a function of its own: the argument named ``threshold``
    hides the function inside ``threshold_``)."""
    if inplace:
        return _inplace_activation(input, ThresholdInPlace, at, value)
    return Threshold.apply(input, at, value)


class Mish(Elementwise):
    """f(x) = x·tanh(softplus(x));
    ∂f/∂x = tanh(softplus(x)) + x·σ(x)·(1 − tanh²(softplus(x)))"""

    node_name = "MishBackward0"
    formula = r"f(x) = x \tanh(\operatorname{softplus}(x)) \qquad \frac{\partial f}{\partial x} = t + x\,\sigma(x)\,(1 - t^2),\ t = \tanh(\operatorname{softplus}(x))"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.tanh(np.logaddexp(x.dtype.type(0), x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # PyTorch's formula; in a create_graph pass its nodes (SoftplusBackward0,
        # TanhBackward0, SigmoidBackward0, MulBackward0, RsubBackward1, AddBackward0).
        if isinstance(x, Tensor):
            tanh_softplus = softplus(x).tanh()
        else:
            tanh_softplus = np.tanh(np.logaddexp(x.dtype.type(0), x))
        sigmoid = _sigmoid_of(x) if isinstance(x, Tensor) else _sigmoid_array(x)
        return grad_output * (tanh_softplus + x * sigmoid * (1.0 - tanh_softplus * tanh_softplus))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mish: x·tanh(softplus(x)) elementwise, a smooth, non-monotonic ReLU.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.mish(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.3034,  0.0000,  1.9440])
    """
    _refuse_integer(input, "mish_cpu")
    if inplace:
        return _inplace_activation(input, Mish)
    return Mish.apply(input)


class LogSigmoid(Elementwise):
    """f(x) = log σ(x) = −softplus(−x);   ∂f/∂x = 1 − σ(x) = σ(−x)"""

    node_name = "LogSigmoidBackward0"
    formula = r"f(x) = \log \sigma(x) \qquad \frac{\partial f}{\partial x} = 1 - \sigma(x)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        # min(x, 0) − log(1 + e^(−|x|)): e^(−|x|) never overflows.
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return LogSigmoidBackward.in_formula(grad_output, x)


class LogSigmoidBackward(Elementwise):
    """LogSigmoid's derivative applied to g, as one operation: f(g, x) = g·σ(−x);
    ∂f/∂g = σ(−x),   ∂f/∂x = g·(σ(x) − 1)·σ(x)"""

    node_name = "LogSigmoidBackwardBackward0"
    formula = r"f(g, x) = g\,(1 - \sigma(x)) \qquad \frac{\partial f}{\partial x} = g\,(\sigma(x) - 1)\,\sigma(x)"

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(g, x)
        return g * _sigmoid_array(-x)

    @staticmethod
    def backward(ctx, grad_output):
        g, x = ctx.saved_tensors
        grad_g = LogSigmoidBackward.in_formula(grad_output, x)
        sigmoid = _sigmoid_of(x) if isinstance(x, Tensor) else _sigmoid_array(x)
        return grad_g, grad_output * g * (sigmoid - 1) * sigmoid  # PyTorch's double backward


def logsigmoid(input: Tensor) -> Tensor:
    """log σ(x) elementwise, computed without overflow: the log-likelihood of the
    positive class for a logit x.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.logsigmoid(torch.tensor([-100.0, 0.0, 2.0]))
    tensor([-100.0000,   -0.6931,   -0.1269])
    """
    _refuse_integer(input, "log_sigmoid_cpu")
    return LogSigmoid.apply(input)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|) elementwise, as PyTorch's Python writes it (``DivBackward0``
    over ``AddBackward0`` and ``AbsBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.softsign(torch.tensor([-3.0, 1.0]))
    tensor([-0.7500,  0.5000])
    """
    return input / (input.abs() + 1)


class Hardswish(Elementwise):
    """f(x) = x·min(max(x + 3, 0), 6)/6;
    ∂f/∂x = 0 where x ≤ −3, x/3 + ½ where −3 < x < 3, else 1"""

    node_name = "HardswishBackward0"
    formula = r"f(x) = x\,\frac{\min(\max(x + 3, 0), 6)}{6} \qquad \frac{\partial f}{\partial x} = \begin{cases} 0 & x \le -3 \\ \frac{x}{3} + \frac{1}{2} & -3 < x < 3 \\ 1 & x \ge 3 \end{cases}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.clip(x + 3, 0, 6) / 6

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return HardswishBackward.in_formula(grad_output, x)


class HardswishBackward(Elementwise):
    """Hardswish's derivative applied to g, as one operation: f(g, x) = g·hardswish′(x);
    ∂f/∂g = hardswish′(x),   ∂f/∂x = g/3 strictly inside (−3, 3), else 0"""

    node_name = "HardswishBackwardBackward0"
    formula = r"f(g, x) = g\,\operatorname{hardswish}'(x) \qquad \frac{\partial f}{\partial x} = \begin{cases} g / 3 & -3 < x < 3 \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(g, x)
        middle = g * (x / 3 + 0.5)
        # PyTorch's kernel takes the outer sides at x = ±3 (0 and g there).
        return np.where(x <= -3, np.zeros((), g.dtype), np.where(x < 3, middle, g))

    @staticmethod
    def backward(ctx, grad_output):
        g, x = ctx.saved_tensors
        grad_g = HardswishBackward.in_formula(grad_output, x)
        values = _values_of(x)
        inside = (values > -3) & (values < 3)
        return grad_g, select(inside, grad_output * g / 3.0)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Hardswish: x·relu6(x + 3)/6 elementwise, a piecewise cheap SiLU (MobileNetV3).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.hardswish(torch.tensor([-4.0, 1.0, 4.0]))
    tensor([-0.0000,  0.6667,  4.0000])
    """
    _refuse_integer(input, "hardswish_cpu")
    if inplace:
        return _inplace_activation(input, Hardswish)
    return Hardswish.apply(input)


class Hardsigmoid(Elementwise):
    """f(x) = min(max(x + 3, 0), 6)/6;   ∂f/∂x = 1/6 strictly inside (−3, 3), else 0"""

    node_name = "HardsigmoidBackward0"
    formula = r"f(x) = \frac{\min(\max(x + 3, 0), 6)}{6} \qquad \frac{\partial f}{\partial x} = \begin{cases} \frac{1}{6} & -3 < x < 3 \\ 0 & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.clip(x + 3, 0, 6) / 6

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return HardsigmoidBackward.in_formula(grad_output, x)


class HardsigmoidBackward(Elementwise):
    """Hardsigmoid's derivative applied to g: f(g, x) = g/6 strictly inside (−3, 3),
    else 0. PyTorch has no derivative for it (its node is ``NotImplemented``), so
    differentiating hardsigmoid twice is refused, as there."""

    node_name = "NotImplemented"
    formula = r"f(g, x) = \begin{cases} g / 6 & -3 < x < 3 \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x}: \text{not implemented (as in PyTorch)}"

    @staticmethod
    def forward(ctx, g, x):
        ctx.save_for_backward(x)
        inside = (x > -3) & (x < 3)
        return np.where(inside, g / 6, np.zeros((), g.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")

    @staticmethod
    def jvp(ctx, t_g, t_x):
        (x,) = ctx.saved_tensors
        return HardsigmoidBackward.in_formula(_zero_if_none(t_g, x), x)


def _error_node_name(node) -> str:
    """PyTorch's C++ name of its error node (the repr shows ``NotImplemented``)."""
    return "autogradkit::autograd::NotImplemented"


HardsigmoidBackward._node_class.name = _error_node_name  # type: ignore[method-assign,assignment]


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Hardsigmoid: relu6(x + 3)/6 elementwise, a piecewise-linear sigmoid.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.hardsigmoid(torch.tensor([-4.0, 0.0, 1.5]))
    tensor([0.0000, 0.5000, 0.7500])
    """
    _refuse_integer(input, "hardsigmoid_cpu")
    if inplace:
        return _inplace_activation(input, Hardsigmoid)
    return Hardsigmoid.apply(input)


class PreluKernel(Function):
    """f(x, w) = x where x > 0, else w·x (w broadcast over x: one slope per channel);
    ∂f/∂x = 1 or w,   ∂f/∂w = 0 or x (summed over what w was broadcast to)"""

    node_name = "PreluKernelBackward0"
    formula = r"f(x, w) = \begin{cases} x & x > 0 \\ w\,x & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial w} = \begin{cases} 0 & x > 0 \\ x & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return np.where(x > 0, x, weight * x)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return PreluKernelBackward.in_formula(grad_output, x, weight)

    @staticmethod
    def jvp(ctx, t_x, t_weight):
        x, weight = ctx.primals
        tangent = None
        if t_x is not None:
            tangent = np.where(x > 0, t_x, weight * t_x)
        if t_weight is not None:
            part = np.where(x > 0, np.zeros((), x.dtype), t_weight * x)
            tangent = part if tangent is None else tangent + part
        return tangent


class PreluKernelBackward(MultiOutputFunction):
    """PReLU's derivative applied to g, as one operation with two outputs (as
    PyTorch's ``_prelu_kernel_backward``):
    f₀(g, x, w) = g where x > 0, else w·g   (x's gradient),
    f₁(g, x, w) = 0 where x > 0, else x·g   (w's, summed to its shape afterwards).
    Its own derivative is PyTorch's double backward, which compares x ≥ 0."""

    node_name = "PreluKernelBackwardBackward0"
    formula = r"f(g, x, w) = \left(\begin{cases} g & x > 0 \\ w\,g & \text{otherwise} \end{cases},\ \begin{cases} 0 & x > 0 \\ x\,g & \text{otherwise} \end{cases}\right) \qquad \frac{\partial f_0}{\partial w} = \frac{\partial f_1}{\partial x} = \begin{cases} 0 & x \ge 0 \\ g & \text{otherwise} \end{cases}"

    @staticmethod
    def forward(ctx, g, x, weight):
        ctx.save_for_backward(g, x, weight)
        positive = x > 0
        return np.where(positive, g, weight * g), np.where(positive, np.zeros((), g.dtype), x * g)

    @staticmethod
    def backward(ctx, grad_outputs):
        g, x, weight = ctx.saved_tensors
        grad_of_x_grad, grad_of_weight_grad = grad_outputs
        non_negative = _values_of(x) >= 0
        negative = ~non_negative
        # PyTorch's formulas, one where() each (WhereBackward0 in a create_graph pass).
        if grad_of_x_grad is None:
            grad_g = select(negative, grad_of_weight_grad * x)
        elif grad_of_weight_grad is None:
            grad_g = Where.in_formula(non_negative, grad_of_x_grad, grad_of_x_grad * weight)
        else:
            mixed = grad_of_x_grad * weight + grad_of_weight_grad * x
            grad_g = Where.in_formula(non_negative, grad_of_x_grad, mixed)
        grad_x = None if grad_of_weight_grad is None else select(negative, g * grad_of_weight_grad)
        grad_weight = None if grad_of_x_grad is None else select(negative, g * grad_of_x_grad)
        return grad_g, grad_x, grad_weight

    @classmethod
    def jvp(cls, ctx, tangent, *arguments):
        x, weight = arguments
        if _forward_ad.tangent_of(x) is not None or _forward_ad.tangent_of(weight) is not None:
            raise NotImplementedError(
                "autogradkit's forward mode does not go through PReLU's derivative with "
                "respect to its input or slope (forward-over-reverse)"
            )
        return cls.forward(ctx, tangent, x._data, weight._data)  # linear in g


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """PReLU: x where x > 0, else w·x, with the slope w a learned tensor: one number,
    or one per channel (dimension 1 of ``input``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([0.25], requires_grad=True)
    >>> y = torch.nn.functional.prelu(torch.tensor([-2.0, 3.0]), w)
    >>> y
    tensor([-0.5000,  3.0000], grad_fn=<PreluKernelBackward0>)
    >>> y.sum().backward()
    >>> w.grad
    tensor([-2.])
    """
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{scalar_type_name(input._data.dtype)} and {scalar_type_name(weight._data.dtype)}"
        )
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    _refuse_integer(input, "prelu_cpu")
    if input.ndim != weight.ndim:  # one slope per channel, laid along dimension 1
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return PreluKernel.apply(input, weight)


# ----------------------------------------------------------------------------- normalize, cosine_similarity, pad


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """``input`` divided by its p-norm along ``dim``, so that every slice along
    ``dim`` has norm 1 (or less: the norm is taken as at least ``eps``, so a zero
    slice stays zero instead of dividing by 0).

    .. math:: y = \\frac{x}{\\max(\\|x\\|_p, \\epsilon)}

    Recorded as PyTorch's Python code computes it: the norm (``LinalgVectorNormBackward0``),
    ``clamp_min`` (``ClampMinBackward0``), ``expand_as`` (``ExpandBackward0``) and the
    division (``DivBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
    >>> torch.nn.functional.normalize(x)
    tensor([[0.6000, 0.8000],
            [0.0000, 0.0000]], grad_fn=<DivBackward0>)
    """
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denominator


class NormDim(Norm):
    """:class:`Norm` as PyTorch's C++ ``at::norm(x, p, dim)`` records it (what
    ``pairwise_distance`` calls): the same formula under the older node name."""

    node_name = "NormBackward1"


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm distance between the rows of ``x1`` and ``x2`` (broadcast), along
    the last dimension: ‖x₁ − x₂ + eps‖_p, ``eps`` keeping the norm's gradient
    finite when the two are equal. Recorded as PyTorch's C++ computes it
    (``SubBackward0``, ``AddBackward1``, ``NormBackward1``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.pairwise_distance(torch.tensor([[3.0, 0.0]]), torch.tensor([[0.0, 4.0]]))
    tensor([5.])
    """
    last = max(x1.ndim, x2.ndim) - 1
    with scalar_overloads():  # (AddBackward1 for + eps, as PyTorch's C++ records it)
        difference = x1 - x2 + eps
    if difference._data.dtype.kind != "f":  # at::norm takes integers in float32
        difference = difference.float()
    dims = (last % difference.ndim,) if difference.ndim else None
    return NormDim.apply(difference, float(p), dims, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast
    against each other first): each divided by its norm (taken as at least ``eps``),
    then multiplied and summed.

    .. math:: \\cos(x_1, x_2) = \\sum_d \\frac{x_1}{\\max(\\|x_1\\|_2, \\epsilon)}
        \\cdot \\frac{x_2}{\\max(\\|x_2\\|_2, \\epsilon)}

    As PyTorch's C++ computes it: dividing first keeps the result within [-1, 1];
    the norms are cloned (``CloneBackward0``) and clamped in place without
    recording, so the clamp passes the gradient through unchanged.

    Examples
    --------
    >>> import autogradkit as torch
    >>> a = torch.tensor([[1.0, 0.0], [1.0, 1.0]], requires_grad=True)
    >>> torch.nn.functional.cosine_similarity(a, torch.tensor([1.0, 0.0]))
    tensor([1.0000, 0.7071], grad_fn=<SumBackward1>)
    """
    common = result_dtype(x1._data, x2._data)  # PyTorch's promotion (0-d tensors count less)
    if common.kind != "f":
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{scalar_type_name(common)}"
        )
    # Integer (and bool) operands are converted: the norm takes floating tensors only.
    x1 = x1 if _is_floating(x1) else x1.to(from_numpy_dtype(common))
    x2 = x2 if _is_floating(x2) else x2.to(from_numpy_dtype(common))
    if x1.shape != x2.shape:  # PyTorch expands both to the common shape
        try:
            shape = np.broadcast_shapes(x1.shape, x2.shape)
        except ValueError:
            raise broadcast_error(x1._data, x2._data) from None
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    norm1 = x1.norm(2, dim, keepdim=True).clone()
    norm2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():  # a clamp the gradient does not see, as in PyTorch
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


class ConstantPadNd(Function):
    """f(x) = x with ``value`` added around it along its last dimensions (``pad`` =
    (before, after) per dimension, the last dimension first; a negative amount
    crops instead);   ∂ℓ/∂x = the gradient cut back to x's place (the same padding,
    negated, with 0)."""

    node_name = "ConstantPadNdBackward0"
    formula = r"f(x) = \begin{pmatrix} c & c & c \\ c & x & c \\ c & c & c \end{pmatrix} \qquad \frac{\partial \ell}{\partial x} = G \text{ without the padding}"

    @staticmethod
    def forward(ctx, x, pad, value):
        ctx.pad = pad
        out_shape = list(x.shape)
        source = [slice(None)] * x.ndim
        target = [slice(None)] * x.ndim
        for k in range(len(pad) // 2):
            axis = x.ndim - 1 - k
            before, after = pad[2 * k], pad[2 * k + 1]
            size = x.shape[axis]
            out_shape[axis] = size + before + after
            kept = size - max(0, -before) - max(0, -after)  # what cropping leaves of x
            source[axis] = slice(max(0, -before), max(0, -before) + kept)
            target[axis] = slice(max(0, before), max(0, before) + kept)
        out = np.full(out_shape, value, dtype=x.dtype)
        out[tuple(target)] = x[tuple(source)]
        return out

    @staticmethod
    def backward(ctx, grad_output):
        unpadded = tuple(-amount for amount in ctx.pad)
        return ConstantPadNd.in_formula(grad_output, unpadded, 0), None, None

    @staticmethod
    def jvp(ctx, t_x, _pad=None, _value=None):
        return ConstantPadNd.in_formula(t_x, ctx.pad, 0)  # the padding is constant


_PADDING_MODES = ("constant", "reflect", "replicate", "circular")


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """``input`` padded along its last ``len(pad) // 2`` dimensions: ``pad`` gives
    (before, after) for the last dimension, then for the one before it, and so on.
    ``mode='constant'`` fills with ``value`` (0 by default); ``'reflect'`` mirrors
    the input about its edges, ``'replicate'`` repeats the edge elements; a negative
    amount crops. ``'circular'`` is checked as PyTorch checks it but not written
    yet: it raises ``NotImplementedError`` (docs/differences.md).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    >>> y = torch.nn.functional.pad(x, (1, 2), value=9.0)
    >>> y
    tensor([[9., 1., 2., 9., 9.]], grad_fn=<ConstantPadNdBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([[1., 1.]])
    """
    amounts = tuple(pad)
    for position, amount in enumerate(amounts):
        if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)):
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element "
                f"of type {type(amount).__name__} at pos {position}"
            )
    amounts = tuple(int(amount) for amount in amounts)
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(amounts) > 2 * input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(amounts)} and input of dimension {input.ndim}"
        )
    if mode not in _PADDING_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        return _index_padded(input, amounts, mode, value)
    _check_constant_padding(input.shape, amounts)
    return ConstantPadNd.apply(input, amounts, 0 if value is None else value)


def _check_constant_padding(shape: tuple[int, ...], amounts: tuple[int, ...]) -> None:
    """PyTorch's refusal of a padding that crops more than there is: it narrows
    each dimension by the negative amounts, one side after the other."""
    ndim = len(shape)
    for k in range(len(amounts) // 2):
        size = shape[ndim - 1 - k]
        for amount in amounts[2 * k : 2 * k + 2]:
            if amount < 0:
                size += amount
                if size < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")


def _source_indices(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of a padded dimension, the position of the input it copies
    (PyTorch's kernels' index arithmetic, so negative amounts crop as there):
    ``reflect`` mirrors about the edge element (…, 2, 1, [0, 1, 2, …]),
    ``replicate`` repeats it (…, 0, 0, [0, 1, 2, …])."""
    start_in, start_out = max(0, -before), max(0, before)
    positions = np.arange(size + before + after)
    if mode == "reflect":
        mirrored_left = 2 * before - positions
        mirrored_right = 2 * (size + before - 1) - positions
    else:
        mirrored_left = np.full_like(positions, before)
        mirrored_right = np.full_like(positions, size + before - 1)
    inside = np.where(positions < size + before, positions, mirrored_right)
    return np.where(positions < before, mirrored_left, inside) - start_out + start_in


class IndexPad(Function):
    """f(x) = x with its last dimensions extended by copies of its own elements
    (``reflect``: mirrored about the edges; ``replicate``: the edge repeated):
    each output element is one input element;   ∂ℓ/∂x adds each gradient back
    onto the element it was copied from."""

    formula = (
        r"f(x)_j = x_{s(j)} \qquad \frac{\partial \ell}{\partial x_i} = \sum_{j:\, s(j) = i} G_j"
    )
    gradient: type[IndexPadBackward]

    @staticmethod
    def forward(ctx, x, amounts, mode):
        ctx.amounts, ctx.mode = amounts, mode
        ctx.save_for_backward(x)  # (for its shape: the gradient's node takes x as input)
        out = x
        for k in range(len(amounts) // 2):
            axis = x.ndim - 1 - k
            indices = _source_indices(x.shape[axis], amounts[2 * k], amounts[2 * k + 1], mode)
            out = np.take(out, indices, axis=axis)
        return out

    @classmethod
    def backward(cls, ctx, grad_output):
        (x,) = ctx.saved_tensors
        return cls.gradient.in_formula(grad_output, x, ctx.amounts, ctx.mode), None, None

    @classmethod
    def jvp(cls, ctx, t_x, _amounts=None, _mode=None):
        return cls.in_formula(t_x, ctx.amounts, ctx.mode)  # linear in x


class IndexPadBackward(Function):
    """The gradient of :class:`IndexPad`, as one operation: f(g, x) adds each
    element of g onto the element of x it was copied from (x gives the shape);
    ∂f/∂g is the padding itself, ∂f/∂x = 0."""

    formula = r"f(g, x)_i = \sum_{j:\, s(j) = i} g_j \qquad \frac{\partial f}{\partial x} = 0"
    padding: type[IndexPad]

    @staticmethod
    def forward(ctx, g, x, amounts, mode):
        ctx.amounts, ctx.mode = amounts, mode
        grad = g
        for k in reversed(range(len(amounts) // 2)):
            axis = x.ndim - 1 - k
            indices = _source_indices(x.shape[axis], amounts[2 * k], amounts[2 * k + 1], mode)
            shape = list(grad.shape)
            shape[axis] = x.shape[axis]
            summed = np.zeros(shape, grad.dtype)
            # np.add.at adds repeated indices (an element copied several times).
            np.add.at(summed, (slice(None),) * axis + (indices,), grad)
            grad = summed
        return grad

    @classmethod
    def backward(cls, ctx, grad_output):
        grad_g = cls.padding.in_formula(grad_output, ctx.amounts, ctx.mode)
        return grad_g, _zeros_like(grad_output), None, None

    @staticmethod
    def jvp(ctx, t_g, _t_x=None, _amounts=None, _mode=None):
        g, x = ctx.primals[0], ctx.primals[1]
        # Linear in g: the operation itself on its tangent.
        return ctx._function.in_formula(_zero_if_none(t_g, g), x, ctx.amounts, ctx.mode)


def _index_pad_pair(name: str) -> type[IndexPad]:
    """The padding Function under PyTorch's node ``<name>Backward0`` and its
    gradient's under ``<name>BackwardBackward0``."""
    padding = cast(type[IndexPad], type(name, (IndexPad,), {"node_name": f"{name}Backward0"}))
    gradient = cast(
        type[IndexPadBackward],
        type(f"{name}Backward", (IndexPadBackward,), {"node_name": f"{name}BackwardBackward0"}),
    )
    padding.gradient = gradient
    gradient.padding = padding
    return padding


_INDEX_PADDINGS = {
    (mode, dims): _index_pad_pair(f"{kind}Pad{dims}D")
    for mode, kind in (("reflect", "Reflection"), ("replicate", "Replication"))
    for dims in (1, 2, 3)
}


def _index_padded(input: Tensor, amounts: tuple[int, ...], mode: str, value) -> Tensor:
    """``reflect``/``replicate`` padding, after PyTorch's refusals (``circular`` is
    not written yet)."""
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    dims = len(amounts) // 2
    if input.ndim not in (dims + 1, dims + 2) or dims not in (1, 2, 3):
        raise NotImplementedError(
            f"Padding size {len(amounts)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode == "circular":
        raise NotImplementedError(
            "autogradkit's pad supports mode='constant', 'reflect' and 'replicate' "
            "(PyTorch's mode='circular' is not written yet)"
        )
    shape = input.shape
    if mode == "reflect":
        if any(n == 0 for n in shape[1:]):
            raise RuntimeError(
                f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch "
                f"size and other non-zero dimensions for input, but got: {list(shape)}"
            )
        for k in range(dims):
            axis = input.ndim - 1 - k
            before, after = amounts[2 * k], amounts[2 * k + 1]
            if before >= shape[axis] or after >= shape[axis]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({before}, {after}) at dimension {axis} "
                    f"of input {list(shape)}"
                )
    width = shape[-1] + amounts[0] + amounts[1]
    if dims == 1 and width < 1:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {width}")
    return _INDEX_PADDINGS[mode, dims].apply(input, amounts, mode)


def _checked_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction asked for (the legacy arguments turned into one, with their
    warning), refused in PyTorch's words if it is none of PyTorch's."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduced(loss: Tensor, reduction: str) -> Tensor:
    """PyTorch's apply_loss_reduction: the mean, the sum, or the losses themselves."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, −y·(x₁ − x₂) + margin) per pair, reduced: with y = 1 the first input
    should rank higher by at least ``margin``, with y = −1 the second. As PyTorch's
    C++ records it (``MulBackward0``, ``AddBackward1``, the in-place
    ``ClampMinBackward0``, then the reduction).

    Examples
    --------
    >>> import autogradkit as torch
    >>> a = torch.tensor([0.5, 2.0], requires_grad=True)
    >>> torch.nn.functional.margin_ranking_loss(a, torch.tensor([1.0, 1.0]), torch.tensor([1.0, 1.0]))
    tensor(0.2500, grad_fn=<MeanBackward0>)
    """
    reduction = _checked_reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    with scalar_overloads():
        unclamped = -target * (input1 - input2) + margin
    return _reduced(unclamped.clamp_min_(0), reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """x where y = 1, max(0, margin − x) where y = −1 (x a distance, y whether the
    pair is similar), reduced. As PyTorch's C++ records it: margin − x from a tensor
    filled with the margin (``SubBackward0``), ``ClampMinBackward0``, one
    ``WhereBackward0`` per case, their sum.

    Examples
    --------
    >>> import autogradkit as torch
    >>> d = torch.tensor([0.3, 0.2], requires_grad=True)
    >>> torch.nn.functional.hinge_embedding_loss(d, torch.tensor([1.0, -1.0]))
    tensor(0.5500, grad_fn=<MeanBackward0>)
    """
    from ..ops.where import where

    reduction = _checked_reduction(size_average, reduce, reduction)
    zeros = Tensor._make(np.zeros_like(input._data))
    filled = Tensor._make(np.full_like(input._data, margin))
    margin_clamp = (filled - input).clamp_min_(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduced(output_margin + output_self, reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, d(a, p) − d(a, n) + margin) per triplet, d the pairwise distance,
    reduced: the anchor should be nearer the positive than the negative by at
    least ``margin``; ``swap=True`` uses d(p, n) when it is smaller. As PyTorch's
    C++ records it (``NormBackward1`` per distance, ``AddBackward1``,
    ``SubBackward0``, ``ClampMinBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> a = torch.tensor([[0.0, 0.0]], requires_grad=True)
    >>> torch.nn.functional.triplet_margin_loss(a, torch.tensor([[0.0, 1.0]]), torch.tensor([[1.0, 1.0]]))
    tensor(0.5858, grad_fn=<MeanBackward0>)
    """
    from ..ops.pointwise import minimum

    reduction = _checked_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs"
        )
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = minimum(
            distance_negative, pairwise_distance(positive, negative, p, eps)
        )
    with scalar_overloads():
        unclamped = distance_positive + margin - distance_negative
    return _reduced(unclamped.clamp_min(0), reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy of each class's logit against its 0/1 label, averaged
    over the classes (the last dimension), then reduced over the samples; as
    PyTorch's Python computes it, through ``logsigmoid``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[0.0, 2.0]], requires_grad=True)
    >>> torch.nn.functional.multilabel_soft_margin_loss(x, torch.tensor([[0.0, 1.0]]))
    tensor(0.4100, grad_fn=<MeanBackward0>)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)  # one loss per sample
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return _reduced(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of counts ``target`` under Poisson distributions
    with rates λ: e^x − y·x for ``input`` x = log λ (``log_input=True``), else
    λ − y·log(λ + eps); ``full=True`` adds Stirling's approximation of log(y!)
    where y > 1. As PyTorch's C++ computes it.

    Examples
    --------
    >>> import autogradkit as torch
    >>> log_rate = torch.tensor([0.0, 1.0], requires_grad=True)
    >>> torch.nn.functional.poisson_nll_loss(log_rate, torch.tensor([1.0, 3.0]))
    tensor(0.3591, grad_fn=<MeanBackward0>)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        with scalar_overloads():  # (input + eps: AddBackward1, as in PyTorch's C++)
            shifted = input + eps
        loss = input - target * shifted.log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss += stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of ``target`` under normal distributions with
    means ``input`` and variances ``var`` (one per element, or per sample when its
    last dimension is 1 or missing): ½(log σ² + (x − y)²/σ²), σ² at least ``eps``
    (clamped without recording), plus ½·log 2π with ``full=True``; as PyTorch's
    Python computes it.

    Examples
    --------
    >>> import autogradkit as torch
    >>> mean = torch.tensor([0.0, 1.0], requires_grad=True)
    >>> torch.nn.functional.gaussian_nll_loss(mean, torch.tensor([1.0, 1.0]), torch.tensor([1.0, 2.0]))
    tensor(0.4233, grad_fn=<MeanBackward0>)
    """
    variances: Tensor
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        variances = var * Tensor._make(np.ones_like(input._data))
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    else:
        variances = var
    if variances.size() != input.size():
        if input.size()[:-1] == variances.size():
            variances = variances.unsqueeze(-1)
        elif (
            input.ndim == variances.ndim
            and sum(m for n, m in zip(input.size(), variances.size()) if n != m) == 1
        ):  # one variance for the last dimension (heteroscedastic case)
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    variances = variances.clone()
    with no_grad():  # a floor the gradient does not see, as in PyTorch
        variances.clamp_(min=eps)
    loss = 0.5 * (variances.log() + (input - target) ** 2 / variances)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


# ----------------------------------------------------------------------------- dropout


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by 1/(1 − p),
    so the expected value of every element is unchanged; with ``training=False``
    (``model.eval()``), or p = 0, the input itself.

    The mask is drawn as PyTorch's CPU ``bernoulli_(1 − p)`` draws it: element i is
    kept when the i-th float64 uniform of the generator (``torch.rand(n,
    dtype=torch.float64)``) is below 1 − p. So after the same ``torch.manual_seed``
    the same elements are zeroed as in PyTorch. It is recorded as PyTorch records
    it: ``input * mask`` (``MulBackward0``), so the gradient is the mask too.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> x = torch.ones(6, requires_grad=True)
    >>> torch.nn.functional.dropout(x, p=0.5)
    tensor([0., 0., 2., 0., 0., 0.], grad_fn=<MulBackward0>)
    >>> torch.nn.functional.dropout(x, p=0.5, training=False) is x
    True
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:  # PyTorch multiplies by a 0-d zero, drawing nothing
        zero = Tensor._make(np.zeros((), input._data.dtype))
        return input.mul_(zero) if inplace else input * zero
    from .. import random

    keep = 1 - p
    kept = random.default_generator.rand(input.shape, np.float64) < keep
    if not _is_floating(input):  # (PyTorch draws first, then divides the mask by 1 − p)
        name = scalar_type_name(input._data.dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")
    dtype = input._data.dtype
    mask = Tensor._make(kept.astype(dtype) / dtype.type(keep))
    return input.mul_(mask) if inplace else input * mask


# ----------------------------------------------------------------------------- one_hot, embedding


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices as one-hot rows: an int64 tensor of shape ``(*tensor.shape,
    num_classes)`` with a 1 in each index's column (``num_classes = -1``: the
    largest index + 1). Not differentiable: indices have no gradient.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.functional.one_hot(torch.tensor([0, 2, 1]))
    tensor([[1, 0, 0],
            [0, 0, 1],
            [0, 1, 0]])
    """
    indices = tensor._data
    if indices.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if indices.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(indices.max()) + 1
    if indices.size and indices.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if (indices.size and indices.max() >= num_classes) or num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    # Row i of the identity matrix is the one-hot row of class i.
    return Tensor._make(np.eye(num_classes, dtype=np.int64)[indices])


class Embedding(Linear):
    """f(W) = W[indices]: the rows of the weight that the indices pick (a lookup,
    linear in W);   ∂f/∂W sends each row of the gradient back to the row it was
    read from, adding where an index repeats, and none to ``padding_idx``'s row."""

    node_name = "EmbeddingBackward0"
    formula = r"f(W) = W_{i,:} \qquad \frac{\partial \ell}{\partial W_{k,:}} = \sum_{n:\, i_n = k} g_{n,:}"

    @staticmethod
    def forward(ctx, weight, indices, padding_idx):
        ctx.indices, ctx.padding_idx, ctx.rows = indices, padding_idx, weight.shape[0]
        return weight[indices]

    @staticmethod
    def backward(ctx, grad_output):
        grad_weight = EmbeddingDenseBackward.in_formula(
            grad_output, ctx.indices, ctx.rows, ctx.padding_idx
        )
        return grad_weight, None, None


class EmbeddingDenseBackward(Linear):
    """Embedding's backward as one operation (PyTorch's ``embedding_dense_backward``),
    linear in g: f(g) = zeros with row k the sum of the g rows whose index is k
    (none for ``padding_idx``);   its own gradient picks rows again (with those of
    ``padding_idx`` zero)."""

    node_name = "EmbeddingDenseBackwardBackward0"
    formula = r"f(g)_{k,:} = \sum_{n:\, i_n = k,\ k \ne p} g_{n,:} \qquad \frac{\partial f_{k,:}}{\partial g_{n,:}} = [\,i_n = k \ne p\,]"

    @staticmethod
    def forward(ctx, g, indices, rows, padding_idx):
        ctx.indices, ctx.padding_idx = indices, padding_idx
        grad_weight = np.zeros((rows, *g.shape[indices.ndim :]), g.dtype)
        used = indices != padding_idx if padding_idx is not None else np.ones_like(indices, bool)
        np.add.at(grad_weight, indices[used], g[used])  # repeated indices add up
        return grad_weight

    @staticmethod
    def backward(ctx, grad_output):
        picked = Embedding.in_formula(grad_output, ctx.indices, ctx.padding_idx)
        if ctx.padding_idx is not None:
            used = (ctx.indices != ctx.padding_idx)[
                (...,) + (None,) * (picked.ndim - ctx.indices.ndim)
            ]
            picked = select(np.broadcast_to(used, picked.shape), picked)
        return picked, None, None, None


def _check_indices(input: Tensor, function: str) -> np.ndarray:
    """The int64 array of ``input``, refused in PyTorch's words otherwise."""
    if input._data.dtype != np.int64:
        got = "CPUBoolType" if input._data.dtype == np.bool_ else input.type()
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {got} instead (while checking arguments for {function})"
        )
    return input._data


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` at the indices ``input``: shape ``(*input.shape,
    weight.shape[1])``. The row ``padding_idx`` gets no gradient.

    Examples
    --------
    >>> import autogradkit as torch
    >>> weight = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], requires_grad=True)
    >>> torch.nn.functional.embedding(torch.tensor([2, 0, 2]), weight).sum().backward()
    >>> weight.grad
    tensor([[1., 1.],
            [0., 0.],
            [2., 2.]])
    """
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "autogradkit's embedding takes no max_norm, scale_grad_by_freq or sparse"
        )
    indices = _check_indices(input, "embedding")
    rows = weight.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    return Embedding.apply(weight, indices, padding_idx)


# ----------------------------------------------------------------------------- layer_norm


class NativeLayerNorm(Function):
    """Normalise each sample over its last dimensions (the ``normalized_shape``), then
    scale and shift elementwise:
    x̂ = (x − μ)·r,  r = 1/√(σ² + eps),  y = γ·x̂ + β,
    μ and σ² the mean and (biased) variance over those N elements. Backward, per sample:
    ∂ℓ/∂x = r·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) with ĝ = γ·g;
    ∂ℓ/∂γ = Σ g·x̂ and ∂ℓ/∂β = Σ g over the samples."""

    node_name = "NativeLayerNormBackward0"
    formula = r"y = \gamma\,\frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta \qquad \frac{\partial \ell}{\partial x} = \frac{1}{\sqrt{\sigma^2 + \epsilon}}\Big(\hat g - \overline{\hat g} - \hat x\,\overline{\hat g\,\hat x}\Big)"

    @staticmethod
    def forward(ctx, x, weight, bias, dims, eps):
        weight = None if weight is _ABSENT else weight
        bias = None if bias is _ABSENT else bias
        axes = tuple(range(x.ndim - dims, x.ndim))
        # In float64, rounded once at the end (PyTorch accumulates in float32).
        wide = x.astype(np.float64)
        mean = wide.mean(axis=axes, keepdims=True)
        centered = wide - mean
        rstd = 1 / np.sqrt((centered * centered).mean(axis=axes, keepdims=True) + eps)
        out = centered * rstd
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        ctx.save_for_backward(x, weight)
        ctx.axes, ctx.eps = axes, eps
        ctx.x_hat = (centered * rstd).astype(x.dtype)
        ctx.rstd = rstd.astype(x.dtype)
        return out.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        axes = ctx.axes
        if isinstance(x, Tensor):  # a create_graph pass (see _recorded_statistics)
            x_hat, rstd = _recorded_statistics(x, axes, ctx.eps)
        else:
            x_hat, rstd = ctx.x_hat, ctx.rstd
        scaled = grad_output * weight if weight is not None else grad_output
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_x = _standardised_grad(scaled, x_hat, rstd, axes)
        batch_axes = tuple(range(x_hat.ndim - len(axes)))
        if ctx.needs_input_grad[1]:
            grad_weight = np.sum(grad_output * x_hat, axis=batch_axes)
        if ctx.needs_input_grad[2]:
            grad_bias = np.sum(grad_output, axis=batch_axes)
        return grad_x, grad_weight, grad_bias, None, None

    @staticmethod
    def jvp(ctx, t_x, t_weight, t_bias, _dims=None, _eps=None):
        """ẏ = γ·ẋ̂ + γ̇·x̂ + β̇, where ẋ̂ = r·(ẋ − mean(ẋ) − x̂·mean(x̂·ẋ)): the
        Jacobian of x̂ is symmetric, so that is backward's formula on the tangent."""
        _, weight = ctx.saved_tensors
        return _normalization_tangent(ctx, t_x, t_weight, t_bias, weight, ctx.axes)


def _normalization_tangent(ctx, t_x, t_weight, t_bias, weight, axes, per_channel=None):
    """The tangent of γ·x̂ + β (layer or batch norm) from the tangents of x, γ, β
    (``per_channel``: the shape that lays γ and β along dimension 1)."""

    def laid_out(value):
        return value if per_channel is None else value.reshape(per_channel)

    parts = []
    if t_x is not None:
        if getattr(ctx, "batch_statistics", True):
            moved = _standardised_grad(t_x, ctx.x_hat, ctx.rstd, axes)
        else:  # the running statistics are constants
            moved = t_x * ctx.rstd
        parts.append(moved * laid_out(weight) if weight is not None else moved)
    if t_weight is not None:
        parts.append(laid_out(t_weight) * ctx.x_hat)
    if t_bias is not None:
        parts.append(laid_out(t_bias))
    if not parts:
        return None
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _recorded_statistics(x: Tensor, axes: tuple[int, ...], eps: float):
    """x̂ and r = 1/√(σ² + eps) over ``axes``, computed from the tensor x in a
    create_graph pass, so that they are recorded and the second derivative sees
    how the mean and the variance move with x."""
    count = math.prod(x.shape[axis] for axis in axes)
    centered = x - np.sum(x, axis=axes, keepdims=True) / count
    variance = np.sum(centered * centered, axis=axes, keepdims=True) / count
    rstd = 1 / np.sqrt(variance + eps)
    return centered * rstd, rstd


def _standardised_grad(scaled, x_hat, rstd, axes: tuple[int, ...]):
    """The gradient of x̂ = (x − μ)·r, μ and σ² taken over ``axes``, given ĝ
    (``scaled``, the gradient of x̂): r·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂))."""
    count = math.prod(x_hat.shape[axis] for axis in axes)
    mean_scaled = np.sum(scaled, axis=axes, keepdims=True) / count
    mean_projection = np.sum(scaled * x_hat, axis=axes, keepdims=True) / count
    return rstd * (scaled - mean_scaled - x_hat * mean_projection)


def layer_norm(
    input: Tensor,
    normalized_shape: tuple[int, ...] | list[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each sample over its last ``len(normalized_shape)`` dimensions to
    mean 0 and variance 1, then scale by ``weight`` and shift by ``bias``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]], requires_grad=True)
    >>> torch.nn.functional.layer_norm(x, (3,))
    tensor([[-1.2247,  0.0000,  1.2247],
            [-0.7071, -0.7071,  1.4142]], grad_fn=<NativeLayerNormBackward0>)
    """
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
            f"not {type(normalized_shape).__name__}"
        )
    expected = [int(size) for size in normalized_shape]
    shape = list(input.shape)
    if weight is not None and list(weight.shape) != expected:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {expected}"
        )
    if bias is not None and list(bias.shape) != expected:
        raise RuntimeError(
            "Expected bias to be of same shape as normalized_shape, but got bias of shape "
            f"{list(bias.shape)} and normalized_shape = {expected}"
        )
    if len(shape) < len(expected) or shape[len(shape) - len(expected) :] != expected:
        wanted = ", ".join(["*", *map(str, expected)])
        raise RuntimeError(
            f"Given normalized_shape={expected}, expected input with shape [{wanted}], but got "
            f"input of size{shape}"
        )
    _refuse_integer(input, "LayerNormKernelImpl")
    # PyTorch's node always has three edges, (None, 0) for an absent weight or bias:
    # a placeholder tensor stands in for it.
    absent = Tensor._make(_ABSENT)
    return NativeLayerNorm.apply(
        input,
        absent if weight is None else weight,
        absent if bias is None else bias,
        len(expected),
        eps,
    )


_ABSENT = np.zeros(())  # the placeholder's array (recognised by identity in forward)


# ----------------------------------------------------------------------------- batch_norm


class NativeBatchNorm(Function):
    """Normalise each channel (dimension 1) over the batch (and any further
    dimensions), then scale and shift per channel: x̂ = (x − μ)·r, y = γ·x̂ + β.
    In training μ and σ² are the batch's (r = 1/√(σ² + eps)) and backward is
    LayerNorm's over those axes: ∂ℓ/∂x = r·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)); with the
    running statistics (eval) they are constants: ∂ℓ/∂x = r·γ·g.
    ∂ℓ/∂γ = Σ g·x̂ and ∂ℓ/∂β = Σ g per channel."""

    node_name = "NativeBatchNormBackward0"
    formula = r"y = \gamma\,rac{x - \mu_B}{\sqrt{\sigma_B^2 + \epsilon}} + eta \qquad rac{\partial \ell}{\partial x} = rac{1}{\sqrt{\sigma_B^2 + \epsilon}}\Big(\hat g - \overline{\hat g} - \hat x\,\overline{\hat g\,\hat x}\Big)"

    @staticmethod
    def forward(ctx, x, weight, bias, mean, variance, batch_statistics, eps):
        weight = None if weight is _ABSENT else weight
        bias = None if bias is _ABSENT else bias
        per_channel = (1, -1) + (1,) * (x.ndim - 2)  # (C,) broadcast along dimension 1
        rstd = 1 / np.sqrt(variance.reshape(per_channel) + eps)
        x_hat = (x.astype(np.float64) - mean.reshape(per_channel)) * rstd
        out = x_hat
        if weight is not None:
            out = out * weight.reshape(per_channel)
        if bias is not None:
            out = out + bias.reshape(per_channel)
        ctx.save_for_backward(x, weight)
        ctx.axes = (0, *range(2, x.ndim))
        ctx.per_channel, ctx.eps, ctx.batch_statistics = per_channel, eps, batch_statistics
        ctx.x_hat, ctx.rstd = x_hat.astype(x.dtype), rstd.astype(x.dtype)
        ctx.mean = mean.reshape(per_channel).astype(x.dtype)
        return out.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        axes, per_channel = ctx.axes, ctx.per_channel
        x_hat, rstd = ctx.x_hat, ctx.rstd
        if isinstance(x, Tensor):  # a create_graph pass: x̂ recorded as a function of x
            if ctx.batch_statistics:
                x_hat, rstd = _recorded_statistics(x, axes, ctx.eps)
            else:  # (the running statistics are constants; x̂ still moves with x)
                x_hat = (x - ctx.mean) * rstd
        scaled = (
            grad_output * np.reshape(weight, per_channel) if weight is not None else grad_output
        )
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            if ctx.batch_statistics:
                grad_x = _standardised_grad(scaled, x_hat, rstd, axes)
            else:  # the running statistics are constants
                grad_x = scaled * rstd
        if ctx.needs_input_grad[1]:
            grad_weight = np.sum(grad_output * x_hat, axis=axes)
        if ctx.needs_input_grad[2]:
            grad_bias = np.sum(grad_output, axis=axes)
        return grad_x, grad_weight, grad_bias, None, None, None, None

    @staticmethod
    def jvp(ctx, t_x, t_weight, t_bias, *_constants):
        """ẏ = γ·ẋ̂ + γ̇·x̂ + β̇ per channel, ẋ̂ as LayerNorm's over the batch axes in
        training, r·ẋ with the running statistics."""
        _, weight = ctx.saved_tensors
        return _normalization_tangent(ctx, t_x, t_weight, t_bias, weight, ctx.axes, ctx.per_channel)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dimension 1 of an ``(N, C)`` or ``(N, C, L)`` input)
    to mean 0 and variance 1, then scale by ``weight`` and shift by ``bias``. In
    training the batch's statistics are used, and the running ones (if given) move
    towards them: r ← (1 − momentum)·r + momentum·s, with the unbiased variance;
    otherwise the running statistics are used.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 10.0], [3.0, 30.0]])
    >>> mean, var = torch.zeros(2), torch.ones(2)
    >>> torch.nn.functional.batch_norm(x, mean, var, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> mean, var
    (tensor([0.2000, 2.0000]), tensor([ 1.1000, 20.9000]))
    """
    _refuse_integer(input, "batch_norm")
    channels = input.shape[1] if input.dim() > 1 else 1
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
    data = input._data
    axes = (0, *range(2, data.ndim))
    if training:
        values_per_channel = data.size // channels if channels else 0
        if values_per_channel == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                + repr(input.shape).replace("autogradkit.Size", "torch.Size")
            )
        wide = data.astype(np.float64)
        mean = wide.mean(axis=axes)
        variance = wide.var(axis=axes)
        if running_mean is not None and running_var is not None:
            unbiased = variance * values_per_channel / (values_per_channel - 1)
            with no_grad():
                running_mean.copy_(Tensor._make(_moved_towards(running_mean, mean, momentum)))
                running_var.copy_(Tensor._make(_moved_towards(running_var, unbiased, momentum)))
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    else:
        mean = running_mean._data.astype(np.float64)
        variance = running_var._data.astype(np.float64)
    absent = Tensor._make(_ABSENT)
    return NativeBatchNorm.apply(
        input,
        absent if weight is None else weight,
        absent if bias is None else bias,
        mean,
        variance,
        training,
        eps,
    )


def _moved_towards(running: Tensor, batch: np.ndarray, momentum: float) -> np.ndarray:
    """(1 − momentum)·running + momentum·batch, in the running tensor's dtype."""
    moved = (1 - momentum) * running._data.astype(np.float64) + momentum * batch
    return moved.astype(running._data.dtype)


# ----------------------------------------------------------------------------- cross_entropy


def _is_class_probabilities(input: Tensor, target) -> bool:
    """A float target shaped like the input (ops.softmax.cross_entropy refuses it)."""
    return (
        isinstance(target, Tensor)
        and target._data.dtype.kind == "f"
        and target.shape == input.shape
    )


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of class indices ``target`` under unnormalised scores ``input``:
    ``nll_loss(log_softmax(input, 1), target)``.

    With ``label_smoothing`` ε the target is the mixture (1 − ε)·one-hot + ε/C, so
    the loss is (1 − ε)·NLL + ε/C·Σ_c −log p_c, computed and recorded as PyTorch
    computes it (the smoothing term summed over the classes, 0 at ignored targets,
    averaged over the rest, or over their weights).

    Examples
    --------
    >>> import autogradkit as torch
    >>> scores = torch.tensor([[2.0, 0.0, 0.0]], requires_grad=True)
    >>> torch.nn.functional.cross_entropy(scores, torch.tensor([0]))
    tensor(0.2395, grad_fn=<NllLossBackward0>)
    >>> torch.nn.functional.cross_entropy(scores, torch.tensor([0]), label_smoothing=0.3)
    tensor(0.6395, grad_fn=<AddBackward0>)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing):g}"
        )
    if label_smoothing <= 0.0 or _is_class_probabilities(input, target):
        # (PyTorch takes a negative value as none, too; probabilities are refused there)
        return _cross_entropy(input, target, weight, ignore_index, reduction)
    _softmax._check_target(target, "cross_entropy_loss")
    class_dim = 1 if input.dim() >= 2 else 0
    classes = input.shape[class_dim]
    # One log_softmax for both terms: PyTorch's graph shares its node.
    log_p = _softmax.log_softmax(input, class_dim)
    nll = nll_loss(log_p, target, weight, ignore_index, reduction)
    if weight is not None:
        per_class = weight.view(*[classes if d == class_dim else 1 for d in range(input.dim())])
        smooth = -(log_p * per_class).sum(class_dim)
    else:
        smooth = -log_p.sum(class_dim)
    ignored = target._data == ignore_index
    smooth.masked_fill_(Tensor._make(np.asarray(ignored)), 0.0)
    if reduction == "mean":
        kept = target._data[~ignored]
        if weight is not None:  # normalised by the weights, as nll_loss's mean is
            denominator = Tensor._make(np.asarray(weight._data[kept].sum()))
        else:
            denominator = Tensor._make(np.asarray((~ignored).sum()))
        smooth = smooth.sum() / denominator
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)
