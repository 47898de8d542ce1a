"""Which tensors are ``nn.Parameter`` objects.

In PyTorch a Parameter is a Tensor subclass. autogradkit's core treats exactly
``Tensor`` as a tensor (that keeps the hot paths simple), so a Parameter is a
plain leaf tensor *marked* here: ``isinstance(t, nn.Parameter)`` reads the mark
and ``repr`` prints PyTorch's ``Parameter containing:`` header for it.
"""

from __future__ import annotations

import weakref
from typing import Any

# id(tensor) -> weak reference to it (ids are reused after an object dies, so the
# reference confirms the id still names the same tensor).
_marked: dict[int, weakref.ref] = {}


def mark(tensor: Any) -> None:
    key = id(tensor)
    _marked[key] = weakref.ref(tensor, lambda _: _marked.pop(key, None))


def is_marked(tensor: Any) -> bool:
    ref = _marked.get(id(tensor))
    return ref is not None and ref() is tensor


# Parameters of a lazy module (nn.LazyLinear) before its first call: no shape yet.
_uninitialized: dict[int, weakref.ref] = {}


def mark_uninitialized(tensor: Any, uninitialized: bool = True) -> None:
    key = id(tensor)
    if uninitialized:
        _uninitialized[key] = weakref.ref(tensor, lambda _: _uninitialized.pop(key, None))
    else:
        _uninitialized.pop(key, None)


def is_uninitialized(tensor: Any) -> bool:
    ref = _uninitialized.get(id(tensor))
    return ref is not None and ref() is tensor
