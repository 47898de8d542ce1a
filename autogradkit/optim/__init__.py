"""``autogradkit.optim``: optimisers (mirrors ``torch.optim``).

An optimiser holds a list of parameters and, in ``step()``, moves each one
against its ``.grad`` — a plain loop under ``no_grad`` (the update itself must not
be recorded). There is nothing more to it: the gradients were computed by
``loss.backward()``; the optimiser only reads them.

>>> import autogradkit as torch
>>> w = torch.tensor([1.0, -2.0], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()      # ∂/∂w = 2w
>>> opt.step()                    # w ← w − 0.1·2w
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""

from . import lr_scheduler
from .optimizer import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, Optimizer, RAdam, RMSprop

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "NAdam",
    "RAdam",
    "lr_scheduler",
]
