"""Saved tensors one at a time (PyTorch: ``torch/csrc/autograd/saved_variable.cpp``).

A node keeps what its operation saved for backward (``Node._saved``, with
``Node._saved_sources`` saying where each value came from). Hooks change how a
saved tensor is kept: ``pack_hook(tensor)`` runs when it is saved and the node
keeps what it returns instead; ``unpack_hook(packed)`` runs every time the tensor
is needed again (by backward, or by ``grad_fn._saved_self``) and must return a
tensor with the same values. The hooks come from an open
``torch.autograd.graph.saved_tensors_hooks`` context (every tensor saved inside
it) or from ``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)`` (one
tensor, already saved). As in PyTorch:

* a hooked tensor's version is not checked (the hooks may have copied it), but a
  pack hook that modifies its input in place is refused;
* the node keeps the packed value, not the array, until backward frees it (so a
  pack hook's object is deleted then);
* a saved tensor takes one pair of hooks only.

>>> import autogradkit as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = x.pow(2)
>>> y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t / 10)
>>> y.grad_fn._saved_self
tensor([1., 2.], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..tensor import Tensor
from . import function as _core

__all__ = ["SavedTensor"]

FREED_MESSAGE = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward."
)
HOOKS_SET_MESSAGE = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
    "one pair of hooks is allowed at a time."
)
NONE_MESSAGE = "Calling register_hooks on a saved tensor with value None is forbidden"
PACK_IN_PLACE_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)


class Packed(NamedTuple):
    """What a node keeps for a hooked saved tensor: the packed value and the hook
    that turns it back into a tensor."""

    value: Any
    unpack_hook: Callable[[Any], Any]


class SavedTensor:
    """One tensor a node saved for backward: ``grad_fn._raw_saved_self`` (PyTorch's
    ``torch._C._autograd.SavedTensor``). Reading it the usual way,
    ``grad_fn._saved_self``, gives the tensor; this object lets you register hooks
    on it."""

    __slots__ = ("_node", "_index")

    def __init__(self, node: _core.Node, index: int | None) -> None:
        self._node = node
        self._index = index  # which of the node's saved values; None: none saved

    def register_hooks(self, *hooks: Any) -> None:
        """Pack this saved tensor now with ``pack_hook(tensor)`` and keep what it
        returns; ``unpack_hook(packed)`` gives the tensor back each time it is
        needed. Refused once backward freed it, for a value None, and when it
        already has hooks."""
        if len(hooks) != 2 or not all(callable(hook) for hook in hooks):
            raise TypeError(_arguments_message(self, hooks))
        pack_hook, unpack_hook = hooks
        node, index = self._node, self._index
        if node._saved_sources is _core._RELEASED:
            raise RuntimeError(FREED_MESSAGE)
        if index is None or _original_arrays(node)[index] is None:
            raise RuntimeError(NONE_MESSAGE)
        if node._packed is not None and node._packed[index] is not None:
            raise RuntimeError(HOOKS_SET_MESSAGE)
        packed = list(node._packed or [None] * len(node._saved))
        # The pack hook gets the values without their history, as in PyTorch.
        saved = saved_tensor(node, index)
        detached = Tensor._make(saved._data)
        counter = node._saved_sources[index][0]
        detached._version_counter = saved._version_counter if counter is None else counter
        packed[index] = pack(pack_hook, unpack_hook, detached)
        keep_packed(node, packed)

    def __repr__(self) -> str:
        return f"<autogradkit.autograd.saved_variable.SavedTensor object at {id(self):#x}>"


def _arguments_message(saved: SavedTensor, hooks: tuple) -> str:
    invoked = ", ".join([repr(saved), *map(repr, hooks)])
    return (
        "register_hooks(): incompatible function arguments. The following argument types are "
        "supported:\n    1. (self: autogradkit.autograd.saved_variable.SavedTensor, arg0: "
        "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked with: "
        + invoked
    )


def pack(pack_hook: Callable, unpack_hook: Callable, tensor: Tensor) -> Packed:
    """``pack_hook(tensor)``, refused if it modified ``tensor`` in place."""
    version = tensor._version_counter[0]
    value = pack_hook(tensor)
    if tensor._version_counter[0] != version:
        raise RuntimeError(PACK_IN_PLACE_MESSAGE)
    return Packed(value, unpack_hook)


def keep_packed(node: _core.Node, packed: list) -> None:
    """Keep the packed values instead of their arrays. The node then runs through
    the engine's full path, which frees them after backward (a pack hook's object
    is deleted then, as in PyTorch)."""
    _core._note_packed()
    node._packed = packed
    # A plain tuple: saved_tensors returns the saved values of _OnlyConstants
    # sources (arrays computed by forward, no input or output) without a look.
    node._saved_sources = tuple(node._saved_sources)
    node._saved = tuple(None if p is not None else a for a, p in zip(node._saved, packed))
    node._needs_call = True


def unpack_all(node: _core.Node) -> tuple:
    """The saved values with each hooked one unpacked (its unpack hook runs again on
    every call, in the order PyTorch unpacks them)."""
    values = list(node._saved)
    for i in _core._saved_order(node):
        packed = node._packed[i]
        if packed is not None:
            values[i] = _unpacked(packed)._data
    return tuple(values)


def _unpacked(packed: Packed) -> Tensor:
    tensor = packed.unpack_hook(packed.value)
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
            f"type {type(tensor).__name__}"
        )
    return tensor


def saved_tensor(node: _core.Node, index: int) -> Tensor:
    """The saved value ``index`` as ``grad_fn._saved_<name>`` shows it: an input is
    that tensor itself, the output a tensor with ``node`` as its ``grad_fn``. A
    hooked one is unpacked into a new tensor with the history of the original."""
    _, _, kind, original = node._saved_sources[index]
    packed = node._packed[index] if node._packed is not None else None
    if packed is None:
        array = node._saved[index]
        if kind == "input":
            return original
        return Tensor._make(array, grad_fn=node if kind == "output" else None)
    return unpacked_as_tensor(node, index, _unpacked(packed)._data)


def unpacked_as_tensor(node: _core.Node, index: int, data: Any) -> Tensor:
    """The unpacked value ``data`` of hooked saved value ``index`` as a tensor with
    the history of the tensor saved, as PyTorch's SavedVariable gives it back: so a
    ``create_graph`` pass computes with what the unpack hook returned, and its graph
    still reaches the saved tensor's node or leaf."""
    _, _, kind, original = node._saved_sources[index]
    if kind == "output":
        return Tensor._make(data, grad_fn=node)
    if kind != "input" or not original.requires_grad:
        return Tensor._make(data)
    return _with_history(data, _history(original))


def pack_custom(ctx: Any) -> None:
    """A custom Function's ``ctx.save_for_backward`` tensors, packed by the active
    saved_tensors_hooks (in the order they were saved). The node keeps, for each,
    the packed value and the history the unpacked tensor gets back."""
    pack_hook, unpack_hook = _core._graph._stack[-1]
    packed = [
        None if t is None else (pack(pack_hook, unpack_hook, t), _history(t)) for t in ctx._saved
    ]
    _core._note_packed()
    ctx._packed = packed
    ctx._saved = tuple(None if p is not None else t for t, p in zip(ctx._saved, packed))


def unpack_custom(ctx: Any) -> tuple:
    """A custom Function's ``ctx.saved_tensors`` under hooks: each hooked tensor
    unpacked again (with the history of the tensor saved), the others as saved."""
    found = []
    for tensor, hooked in zip(ctx._saved, ctx._packed):
        if hooked is None:
            found.append(tensor)
        else:
            packed, history = hooked
            found.append(_with_history(_unpacked(packed)._data, history))
    return tuple(found)


def _history(tensor: Tensor) -> tuple:
    """What an unpacked copy of ``tensor`` takes from it: its node and output
    number, or (a leaf that requires grad) its AccumulateGrad."""
    if tensor.grad_fn is not None:
        return tensor.grad_fn, tensor._output_nr, None
    return None, 0, tensor._grad_accumulator() if tensor.requires_grad else None


def _with_history(data: Any, history: tuple) -> Tensor:
    grad_fn, output_nr, accumulator = history
    tensor = Tensor._make(data, grad_fn=grad_fn)
    tensor._output_nr = output_nr
    if accumulator is not None:  # a leaf's: it shares the leaf's AccumulateGrad
        tensor._requires_grad = True
        tensor._accumulator = accumulator
    return tensor


def index_by_name(node: _core.Node, key: str) -> int | None:
    """Which saved value ``_saved_<key>`` names (``self``/``other``: that input,
    ``result``: the output); None when the operation saved None there (``x * c``
    keeps no ``self`` when ``c`` needs no gradient). KeyError: it saved nothing
    so named."""
    described = [s if isinstance(s, tuple) else None for s in node._saved_sources or ()]
    if key == "result":
        for i, source in enumerate(described):
            if source is not None and source[2] == "output":
                return i
        raise KeyError(key)
    position = {"self": 0, "other": 1}[key]
    inputs = node._inputs
    if position < len(inputs):
        found = [i for i, s in enumerate(described) if s is not None and s[3] is inputs[position]]
        if found:  # x * x saves x twice: self is the first, other the second
            return position if position in found else found[0]
    if described and any(value is None for value in _original_arrays(node)):
        return None
    raise KeyError(key)


def _original_arrays(node: _core.Node) -> tuple:
    """The saved arrays, with a hooked one counted as saved (not None)."""
    packed = node._packed or [None] * len(node._saved)
    return tuple(a if p is None else True for a, p in zip(node._saved, packed))


def raw_saved(node: _core.Node, name: str) -> SavedTensor:
    """``grad_fn._raw_saved_<key>``: the same object on every read."""
    cache = node.__dict__.setdefault("_raw_saved", {})
    if name not in cache:
        if node._saved_sources is _core._RELEASED:
            cache[name] = SavedTensor(node, None)
        else:
            try:
                index = index_by_name(node, name[len("_raw_saved_") :])
            except KeyError:
                raise AttributeError(
                    f"'{type(node).__name__}' object has no attribute '{name}'"
                ) from None
            cache[name] = SavedTensor(node, index)
    return cache[name]
