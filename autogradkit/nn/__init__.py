"""``autogradkit.nn``: only the functional losses and activations (``nn.functional``)."""

from . import functional

__all__ = ["functional"]
