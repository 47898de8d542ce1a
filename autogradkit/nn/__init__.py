"""``autogradkit.nn``: layers, losses and their functional forms — autograd's
users. A model is a :class:`Module` holding :class:`Parameter` tensors; its
``forward`` is ordinary tensor code, so ``loss.backward()`` reaches every
parameter.
"""

from . import functional, init
from .modules import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Flatten,
    Identity,
    Linear,
    LogSoftmax,
    Module,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "functional",
    "init",
    "Module",
    "Parameter",
    "Linear",
    "Sequential",
    "Flatten",
    "Identity",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
]
