"""Graphs several test modules build (importable because pytest puts ``tests/``,
the folder of ``conftest.py``, on ``sys.path``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import autogradkit


class Tutorial(NamedTuple):
    x: Any
    y: Any
    w: Any
    b: Any
    z: Any
    loss: Any


def tutorial_graph(lib=autogradkit, seed: int = 0) -> Tutorial:
    """The network of PyTorch's autograd tutorial, built with ``lib`` (autogradkit
    or torch): ``loss = BCE-with-logits(x @ w + b, y)``. Nothing is run backward."""
    lib.manual_seed(seed)
    x = lib.ones(5)
    y = lib.zeros(3)
    w = lib.randn(5, 3, requires_grad=True)
    b = lib.randn(3, requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
    return Tutorial(x, y, w, b, z, loss)
