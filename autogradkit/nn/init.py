"""Initialisation of parameters (mirrors ``torch/nn/init.py``): the functions
``nn.Linear`` uses and those models choose (Kaiming, Xavier, truncated normal,
orthogonal), drawing the same numbers as PyTorch after ``torch.manual_seed``.

Each one changes a tensor in place under ``no_grad`` (initialising a parameter is
not part of any graph) and returns it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import random
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "uniform_",
    "normal_",
    "zeros_",
    "ones_",
    "constant_",
    "calculate_gain",
    "kaiming_uniform_",
    "xavier_uniform_",
    "kaiming_normal_",
    "xavier_normal_",
    "trunc_normal_",
    "orthogonal_",
    "eye_",
]


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with numbers drawn uniformly from [a, b)."""
    gen = generator or random.default_generator
    data = tensor.detach().numpy()
    draws = gen.rand(data.shape, dtype=data.dtype)
    low, high = data.dtype.type(a), data.dtype.type(b)
    with no_grad():
        # PyTorch scales in the tensor's dtype: u·(b − a) + a.
        tensor.copy_(Tensor._make(np.asarray(draws * (high - low) + low, dtype=data.dtype)))
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with numbers drawn from the normal distribution N(mean, std²):
    ``tensor.normal_``, so PyTorch's numbers after the same ``manual_seed``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.normal_(torch.empty(3), std=0.01)
    tensor([ 0.0154, -0.0029, -0.0218])
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def _fans(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    """The fan the Kaiming initialisations keep the variance for: ``'fan_in'`` keeps
    the forward pass's, ``'fan_out'`` the backward pass's."""
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance steady through ``nonlinearity``."""
    if nonlinearity in ("linear", "sigmoid", "conv1d", "conv2d", "conv3d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Uniform in [−bound, bound] with bound = gain·√(3/fan) (He et al., 2015)."""
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Uniform in [−a, a] with a = gain·√(6/(fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Normal with mean 0 and std = gain/√fan (He et al., 2015): the variance that
    keeps a ReLU network's activations (``mode='fan_in'``) or gradients
    (``'fan_out'``) from growing or shrinking layer by layer.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.kaiming_normal_(torch.empty(2, 8), nonlinearity="relu")[0, :3]
    tensor([-0.5629, -0.5762, -0.1253])
    """
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Normal with mean 0 and std = gain·√(2/(fan_in + fan_out)) (Glorot & Bengio, 2010).

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.xavier_normal_(torch.empty(2, 3))
    tensor([[ 0.9746, -0.1856, -1.3780],
            [ 0.3595, -0.6859, -0.8845]])
    """
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _normal_cdf(x: float) -> float:
    """Φ(x), the standard normal distribution function."""
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill ``tensor`` with numbers drawn from N(mean, std²) truncated to [a, b]:
    values outside are drawn again, as PyTorch 2.13 draws them, so its numbers
    after the same ``manual_seed``.

    When [a, b] holds more than 30% of the distribution (the default ±2 std holds
    95%), every element is drawn from the normal distribution, and those outside
    [a, b] are drawn again (a whole new tensor each round, kept where needed) until
    none is. Otherwise (a narrow or far interval) a candidate is drawn uniformly
    from [a, b] and kept with probability pdf(candidate)/pdf(peak), again until
    every element is kept. PyTorch warns when the mean is more than 2 std from
    [a, b].

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.nn.init.trunc_normal_(torch.empty(2, 3))  # -2.1788 was drawn again
    tensor([[ 1.5410, -0.2934, -0.7193],
            [ 0.5684, -1.0845, -1.3986]])
    """
    from ..ops.where import where

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
            "of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        inside = _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std)
        if inside > 0.3:
            # The bounds in the tensor's dtype, so the test matches the values it holds.
            low, high = (float(tensor._data.dtype.type(bound)) for bound in (a, b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                again = Tensor._make(np.empty_like(result._data)).normal_(
                    mean, std, generator=generator
                )
                result = where(outside, again, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        return _truncated_by_acceptance(tensor, mean, std, a, b, generator)


def _truncated_by_acceptance(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator
) -> Tensor:
    """trunc_normal_ for an interval that holds little of the distribution: a
    candidate c uniform in [a, b] is kept when log u < log(pdf(c)/pdf(peak)) for u
    uniform in [0, 1), PyTorch's steps in its order (so its draws)."""
    from ..ops.where import where

    peak = max(a, min(mean, b))  # where the density is highest within [a, b]
    log_peak = -0.5 * ((peak - mean) / std) ** 2

    def log_relative_density(candidates: Tensor) -> Tensor:
        return candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

    candidates = Tensor._make(np.empty_like(tensor._data))
    accept = Tensor._make(np.empty_like(tensor._data))
    uniform_(tensor, a, b, generator)
    candidates.copy_(tensor)
    log_relative_density(candidates)
    pending = uniform_(accept, generator=generator).log_().gt(candidates)
    result = tensor
    while pending.any():
        uniform_(candidates, a, b, generator)
        result = where(pending, candidates, result)
        log_relative_density(candidates)
        rejected = uniform_(accept, generator=generator).log_().gt(candidates)
        pending = where(pending, rejected, pending)
    if result is not tensor:
        tensor.copy_(result)
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with a (semi-)orthogonal matrix (Saxe et al., 2013), its
    dimensions after the first flattened: the Q of the QR factorisation of a
    standard normal matrix (PyTorch's draws), its columns' signs set by R's
    diagonal so that Q is uniformly distributed, times ``gain``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> w = torch.nn.init.orthogonal_(torch.empty(2, 3))
    >>> (w @ w.T).round(decimals=4)
    tensor([[1., 0.],
            [0., 1.]])
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    columns = tensor.numel() // rows
    flattened = Tensor._make(np.empty((rows, columns), tensor._data.dtype))
    flattened.normal_(0, 1, generator=generator)
    matrix = flattened._data.T if rows < columns else flattened._data
    q, r = np.linalg.qr(matrix)  # LAPACK's Householder QR, as torch.linalg.qr
    q = q * np.sign(np.diagonal(r))
    if rows < columns:
        q = q.T
    with no_grad():
        tensor.view(q.shape).copy_(Tensor._make(np.ascontiguousarray(q, tensor._data.dtype)))
        tensor.mul_(gain)
    return tensor


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the diagonal, zeros
    elsewhere), so a square linear layer starts as the identity map.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.init.eye_(torch.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(Tensor._make(np.eye(*tensor.shape, dtype=tensor._data.dtype)))
    return tensor
