"""``torch.save`` and ``torch.load`` (PyTorch: ``torch/serialization.py``).

``save(obj, f)`` pickles ``obj`` into ``f`` (a path or a binary file object): tensors,
parameters, ``state_dict()`` dictionaries, lists, numbers. ``load(f)`` reads it back.
A tensor comes back as a new leaf with the same values, dtype and ``requires_grad``
(its history is not saved, as in PyTorch).

As in PyTorch 2.6 and later, ``load`` refuses by default (``weights_only=True``) to
build anything but tensors, containers, numbers, strings and dtypes: unpickling may
run code, so other classes need ``weights_only=False`` (only for files you trust) or
:func:`add_safe_globals`.

The files are pickles, not PyTorch's zip archives: PyTorch cannot read them, nor
autogradkit PyTorch's.

>>> import io
>>> import autogradkit as torch
>>> buffer = io.BytesIO()
>>> torch.save({"w": torch.ones(2, requires_grad=True)}, buffer)
>>> _ = buffer.seek(0)
>>> torch.load(buffer)
{'w': tensor([1., 1.], requires_grad=True)}
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import io
import os
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _parameter_marks
from ._dtype import dtype as DType
from .tensor import Size, Tensor

__all__ = ["save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals"]

DEFAULT_PROTOCOL = 2

_user_safe_globals: list[Any] = []


def _rebuild_tensor(data: bytes, dtype: str, shape: tuple, requires_grad: bool) -> Tensor:
    """A saved tensor back: a new leaf with its values."""
    array = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy()
    tensor = Tensor._make(array)
    if requires_grad:
        tensor.requires_grad_()
    return tensor


def _rebuild_parameter(data: bytes, dtype: str, shape: tuple, requires_grad: bool) -> Any:
    from .nn.parameter import Parameter

    return Parameter(_rebuild_tensor(data, dtype, shape, False), requires_grad)


def _rebuild_dtype(name: str) -> DType:
    from . import _dtype

    return getattr(_dtype, name)


class _Pickler(pickle.Pickler):
    """Pickles a tensor as its values, dtype, shape and requires_grad only, and a
    dtype by its name."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, DType):
            return _rebuild_dtype, (obj.name,)
        if isinstance(obj, Tensor):
            array = np.ascontiguousarray(obj._data)
            rebuild = _rebuild_parameter if _parameter_marks.is_marked(obj) else _rebuild_tensor
            return rebuild, (array.tobytes(), array.dtype.str, array.shape, obj.requires_grad)
        return NotImplemented


def save(
    obj: object,
    f: Any,
    pickle_module: Any = pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` to ``f``: a path (str or os.PathLike) or a file object opened
    for binary writing."""
    # Protocol 3 at least: below it, bytes (a tensor's values) are pickled through
    # _codecs.encode, a global that load's allowlist would have to take in.
    protocol = max(pickle_protocol, 3)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            _Pickler(file, protocol).dump(obj)
        return
    if not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    _Pickler(f, protocol).dump(obj)


# What load builds with weights_only=True (PyTorch's allowlist, for what can be in
# a file save wrote): tensors, dtypes, sizes, ordered dicts, sets, complex numbers.
_SAFE = {
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_parameter"): _rebuild_parameter,
    (__name__, "_rebuild_dtype"): _rebuild_dtype,
    ("autogradkit.tensor", "Size"): Size,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): builtins.set,
    ("builtins", "frozenset"): builtins.frozenset,
    ("builtins", "complex"): builtins.complex,
}


def _safe_by_name() -> dict:
    found = dict(_SAFE)
    for obj in _user_safe_globals:
        found[(obj.__module__, obj.__qualname__)] = obj
    return found


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        safe = _safe_by_name()
        if (module, name) in safe:
            return safe[(module, name)]
        raise pickle.UnpicklingError(_unsafe_message(f"{module}.{name}"))


def _unsafe_message(qualified: str) -> str:
    # PyTorch names a builtin without its module in the advice (slice, not builtins.slice).
    shown = qualified.removeprefix("builtins.")
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, \x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. "
        "\n\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument "
        "in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` "
        "set to `False` will likely succeed, but it can result in arbitrary code execution. "
        "Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load "
        "with `weights_only=True` please check the recommended steps in the following error "
        f"message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {shown} was not "
        "an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function.\n\nCheck the documentation of torch.load to "
        "learn more about types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
    )


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load what :func:`save` wrote to ``f`` (a path or a binary file object).
    ``map_location`` and ``mmap`` change nothing: everything is on the CPU."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load(file, weights_only is not False, pickle_load_args)
    if not hasattr(f, "seek"):
        raise AttributeError(
            f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load "
            "from a file that is seekable. Please pre-load the data into a buffer like "
            "io.BytesIO and try to load from it instead."
        )
    return _load(f, weights_only is not False, pickle_load_args)


def _load(file: io.IOBase, weights_only: bool, pickle_load_args: dict) -> Any:
    unpickler = _WeightsUnpickler if weights_only else pickle.Unpickler
    return unpickler(file, **pickle_load_args).load()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Let ``load`` with ``weights_only=True`` build these classes or functions too."""
    _user_safe_globals.extend(safe_globals)


def clear_safe_globals() -> None:
    """Forget what :func:`add_safe_globals` allowed."""
    _user_safe_globals.clear()


def get_safe_globals() -> list[Any]:
    """What :func:`add_safe_globals` allowed."""
    return list(_user_safe_globals)


@contextlib.contextmanager
def safe_globals(globals_: list[Any]) -> Iterator[None]:
    """Allow these classes or functions in ``load`` while the context is open."""
    before = list(_user_safe_globals)
    add_safe_globals(globals_)
    try:
        yield
    finally:
        _user_safe_globals[:] = before
