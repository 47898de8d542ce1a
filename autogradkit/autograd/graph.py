"""``torch.autograd.graph``: the graph's node type and hooks on saved tensors.

``saved_tensors_hooks(pack_hook, unpack_hook)``: while the context is active, every
tensor an operation saves for backward is handed to ``pack_hook`` as it is saved,
and what ``pack_hook`` returns is kept instead; when backward needs the tensor,
``unpack_hook`` gets that value back and must return a tensor with the same values
(PyTorch's "Hooks for autograd saved tensors": to log, compress or move saved
tensors).

>>> import autogradkit as torch
>>> def pack(t):
...     print("packing", t.shape)
...     return t
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
...     y = x.exp()
packing autogradkit.Size([2])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["saved_tensors_hooks", "active_hooks"]  # and Node, on use (see __getattr__)

# The (pack, unpack) pairs of the saved_tensors_hooks contexts now open, innermost last.
_stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


def active_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """The innermost (pack, unpack) pair, or None outside every context."""
    return _stack[-1] if _stack else None


class saved_tensors_hooks:
    """Context manager: pack every tensor saved for backward with ``pack_hook`` and
    unpack it with ``unpack_hook`` when backward reads it."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        _stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info: object) -> None:
        _stack.pop()


def __getattr__(name: str) -> Any:
    # torch.autograd.graph.Node; imported on use, since function.py imports this module.
    if name == "Node":
        from .function import Node

        return Node
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
