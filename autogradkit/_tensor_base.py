"""``TensorBase``: the root of :class:`~autogradkit.Tensor`'s method modules
(PyTorch's Tensor also derives from a ``TensorBase``, written in C++).

``Tensor`` (in ``tensor.py``) is assembled from a few classes, each in a module
named for what it holds: operators, math methods, in-place operations,
conversions and the NumPy protocols. They all derive from ``TensorBase``, so
``isinstance(x, TensorBase)`` is the test "x is a tensor" in those modules
(``Tensor`` is the only class built on it), and the annotations below tell a type
checker the state that ``tensor.py`` defines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .autograd.function import Node
    from .autograd.views import ViewInfo
    from .tensor import Tensor


class TensorBase:
    """The state every tensor has (defined as slots by ``Tensor``)."""

    __slots__ = ()

    if TYPE_CHECKING:
        _data: np.ndarray
        _requires_grad: bool
        _grad_fn: Node | None
        _output_nr: int
        _version_counter: list[int]
        _retains_grad: bool
        _view: ViewInfo | None

        @property
        def grad_fn(self) -> Node | None: ...

        @property
        def requires_grad(self) -> bool: ...

        @property
        def _base(self) -> Tensor | None: ...

        @staticmethod
        def _make(data: np.ndarray, grad_fn: Node | None = None) -> Tensor: ...

        def _rebase_history(self, grad_fn: Node) -> None: ...
