"""``autogradkit.nn``: layers, losses and their functional forms — autograd's
users. A model is a :class:`Module` holding :class:`Parameter` tensors; its
``forward`` is ordinary tensor code, so ``loss.backward()`` reaches every
parameter.
"""

from . import functional, init, utils
from .modules import (
    ELU,
    GELU,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Flatten,
    HuberLoss,
    Identity,
    L1Loss,
    LeakyReLU,
    Linear,
    LogSoftmax,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "functional",
    "init",
    "utils",
    "Module",
    "Parameter",
    "Linear",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "Flatten",
    "Identity",
    "ReLU",
    "LeakyReLU",
    "GELU",
    "ELU",
    "SiLU",
    "Softplus",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "L1Loss",
    "SmoothL1Loss",
    "HuberLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
]
