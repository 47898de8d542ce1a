"""``autogradkit.nn.utils``: gradient clipping, applied between ``backward()`` and
``optimizer.step()`` to keep one large gradient from throwing the parameters far;
all of a model's parameters as one vector and back.

>>> import autogradkit as torch
>>> w = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
>>> w.grad = torch.tensor([3.0, 4.0])
>>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(5.)
>>> w.grad
tensor([0.6000, 0.8000])
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..autograd.grad_mode import no_grad
from ..ops.shape import cat, stack
from ..tensor import Tensor

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "vector_to_parameters",
]


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    """The gradients of ``parameters`` (one tensor or an iterable), those that exist."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


@no_grad()
def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the parameters' gradients, in place, so that their norm taken together
    is at most ``max_norm``; return that norm (before scaling).

    .. math:: \\|g\\| = \\Big\\|\\big(\\|g_1\\|_p, \\ldots, \\|g_k\\|_p\\big)\\Big\\|_p, \\qquad
        g_i \\leftarrow g_i \\cdot \\min\\Big(1, \\frac{\\text{max\\_norm}}{\\|g\\| + 10^{-6}}\\Big)

    the norm of the per-parameter norms (``p = norm_type``, ``inf`` for the largest
    entry), as PyTorch computes it. ``foreach`` is accepted and changes nothing.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> (10 * w).sum().backward()
    >>> torch.nn.utils.clip_grad_norm_(w, 1.0)
    tensor(14.1421)
    >>> w.grad
    tensor([0.7071, 0.7071])
    """
    from .._creation import tensor

    grads = _with_grads(parameters)
    if not grads:
        return tensor(0.0)
    norm_type = float(norm_type)
    total = stack([g.norm(norm_type) for g in grads]).norm(norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    scale = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for grad in grads:
        grad.mul_(scale)
    return total


@no_grad()
def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every entry of the parameters' gradients, in place, into
    ``[-clip_value, clip_value]``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.nn.Parameter(torch.ones(3))
    >>> w.grad = torch.tensor([-2.0, 0.5, 3.0])
    >>> torch.nn.utils.clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    clip_value = float(clip_value)
    for grad in _with_grads(parameters):
        grad.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and joined into one vector, in the order given
    (recorded: ``CatBackward0`` over one ``ViewBackward0`` each, so a loss of the
    vector reaches every parameter).

    Examples
    --------
    >>> import autogradkit as torch
    >>> layer = torch.nn.Linear(2, 1)
    >>> with torch.no_grad():
    ...     _ = layer.weight.copy_(torch.tensor([[1.0, 2.0]])), layer.bias.fill_(3.0)
    >>> torch.nn.utils.parameters_to_vector(layer.parameters())
    tensor([1., 2., 3.], grad_fn=<CatBackward0>)
    """
    return cat([parameter.view(-1) for parameter in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (the inverse of
    :func:`parameters_to_vector`): each parameter's ``.data`` becomes the next
    ``numel()`` entries, shaped like it. Not recorded.

    Examples
    --------
    >>> import autogradkit as torch
    >>> layer = torch.nn.Linear(2, 1)
    >>> torch.nn.utils.vector_to_parameters(torch.tensor([1.0, 2.0, 3.0]), layer.parameters())
    >>> layer.weight, layer.bias
    (Parameter containing:
    tensor([[1., 2.]], requires_grad=True), Parameter containing:
    tensor([3.], requires_grad=True))
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__qualname__}")
    start = 0
    for parameter in parameters:
        count = parameter.numel()
        parameter.data = vec[start : start + count].view_as(parameter).data
        start += count
