"""Initialisation of parameters (mirrors ``torch/nn/init.py``): the few
functions ``nn.Linear`` uses, drawing the same numbers as PyTorch after
``torch.manual_seed``.

Each one changes a tensor in place under ``no_grad`` (initialising a parameter is
not part of any graph) and returns it.
"""

from __future__ import annotations

import math

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
