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

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "active_hooks",
]  # and Node, on use (see __getattr__)

# The (pack, unpack) pairs of the saved_tensors_hooks contexts now open, innermost last.
_stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []
# While disable_saved_tensors_hooks is open: the message opening a context raises.
_disabled: list[str | None] = [None]


def active_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """The innermost (pack, unpack) pair, or None outside every context."""
    return _stack[-1] if _stack else None


class saved_tensors_hooks:
    """Context manager: pack every tensor saved for backward with ``pack_hook`` and
    unpack it with ``unpack_hook`` when backward reads it."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        _stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info: object) -> None:
        _stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Context manager: keep the tensors saved for backward on the CPU, and bring
    them back to their device when backward reads them (PyTorch's way to spare GPU
    memory). autogradkit runs on the CPU only, so the hooks keep each tensor as it
    is, as PyTorch does for a tensor already on the CPU.

    Parameters
    ----------
    pin_memory : bool
        Save into pinned (page-locked) memory, for fast copies to a GPU. As in
        PyTorch on a machine without one, asking for it fails when a tensor is
        saved, unless ``device_type`` names a backend that is not available
        (``"cuda"``, the default): then an ordinary copy is saved.
    device_type : str
        The accelerator the pinned memory is for.

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> with torch.autograd.graph.save_on_cpu():
    ...     y = (x * x.exp()).sum()
    >>> y.backward()
    >>> x.grad
    tensor([ 5.4366, 22.1672])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        import autogradkit

        # PyTorch's torch.cpu is always available (autogradkit has no such module);
        # any other backend is not, and then PyTorch saves an ordinary copy.
        device_module = getattr(autogradkit, device_type, autogradkit.cuda)
        pinnable = device_type == "cpu" or device_module.is_available()

        def pack_to_cpu(tensor: Any) -> tuple:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            if pinnable:  # but no accelerator: no allocator of pinned memory
                raise RuntimeError(
                    "pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                    "memory allocator is available on this system."
                )
            packed = autogradkit.empty(tensor.size(), dtype=tensor.dtype)
            packed.copy_(tensor.detach())
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Context manager: while it is open, opening a :class:`saved_tensors_hooks`
    context (or :class:`save_on_cpu`) raises ``RuntimeError(error_message)``; so does
    opening it while such hooks are active. For code that cannot work with them.

    Examples
    --------
    >>> import autogradkit as torch
    >>> with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    ...     with torch.autograd.graph.save_on_cpu():
    ...         pass
    Traceback (most recent call last):
    ...
    RuntimeError: no hooks here
    """
    if not isinstance(error_message, str):
        raise TypeError(
            "_saved_tensors_hooks_disable(): incompatible function arguments. The following "
            "argument types are supported:\n    1. (error_message: str, fail_if_non_empty: "
            f"bool = True) -> None\n\nInvoked with: {error_message!r}"
        )
    previous = _disabled[0]
    try:
        if _stack:  # hooks already active: PyTorch refuses with the message itself
            raise RuntimeError(error_message)
        _disabled[0] = error_message
        yield
    finally:
        _disabled[0] = previous


def __getattr__(name: str) -> Any:
    # torch.autograd.graph.Node; imported on use, since function.py imports this module.
    if name == "Node":
        from .function import Node

        return Node
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
