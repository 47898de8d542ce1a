"""Switching gradient tracking on and off (mirrors ``torch/autograd/grad_mode.py``).

While grad mode is off, operations run as plain NumPy and record nothing, so their
results have ``requires_grad=False`` and no ``grad_fn``. The switch is thread-local,
like PyTorch's: turning it off in one thread leaves the others alone.

Examples
--------
>>> import autogradkit as torch
>>> w = torch.ones(3, requires_grad=True)
>>> with torch.no_grad():
...     y = w * 2
>>> y.requires_grad
False
>>> @torch.no_grad()
... def predict(x):
...     return x * w
>>> predict(torch.ones(3)).requires_grad
False
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


class _GradModeState(threading.local):
    # A class attribute is the default each new thread sees.
    enabled: bool = True
    inference: bool = False  # inside inference_mode()


_state = _GradModeState()
# True while grad mode is on in every thread, as it nearly always is. Recording an
# operation then reads this module global instead of the thread-local flag, about
# 500 instructions less per operation (CPython 3.11): ``grad_mode._everywhere or
# grad_mode._state.enabled`` is the current thread's mode either way. (A thread that
# ends with grad mode off leaves it False: slower from then on, never wrong.)
_everywhere = True
_threads_without_grad = 0
_count_lock = threading.Lock()


def _set_enabled(mode: bool) -> None:
    """Set this thread's grad mode, keeping count of the threads that have it off."""
    global _everywhere, _threads_without_grad
    if mode != _state.enabled:
        with _count_lock:
            _threads_without_grad += -1 if mode else 1
            _everywhere = _threads_without_grad == 0
    _state.enabled = mode


def is_grad_enabled() -> bool:
    """Return True when operations are being recorded for backward."""
    return _state.enabled


class _GradModeContext:
    """Base for the context managers below; also usable as function decorators."""

    _mode: bool

    def __init__(self) -> None:
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(_state.enabled)
        _set_enabled(self._mode)

    def __exit__(self, *exc_info: object) -> None:
        _set_enabled(self._previous.pop())

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> _GradModeContext:
        return self.__class__()


class no_grad(_GradModeContext):
    """Context manager and decorator that turns gradient tracking off.

    Use it for inference, or to update parameters in a training loop without the
    update itself becoming part of the graph.
    """

    _mode = False

    def __new__(cls, func: Callable | None = None):
        # ``@no_grad`` without parentheses: PyTorch 2 accepts it, so we do too.
        self = super().__new__(cls)
        if callable(func):
            cls.__init__(self)
            return self(func)
        return self

    def __init__(self, func: Callable | None = None) -> None:
        super().__init__()


class enable_grad(no_grad):
    """Context manager and decorator that turns gradient tracking back on,
    for example inside a ``no_grad`` block."""

    _mode = True


class inference_mode(_GradModeContext):
    """Context manager and decorator for running a model without autograd: like
    :class:`no_grad`, nothing inside it is recorded.

    PyTorch also marks the tensors made inside as *inference tensors*, which it
    refuses to save for backward or to change in place outside the block, and which
    it makes a little faster to compute. autogradkit does not mark them: such a
    tensor is an ordinary tensor that does not require grad (see
    ``docs/differences.md``). ``inference_mode(False)`` turns grad mode on inside
    it, as in PyTorch.

    >>> import autogradkit as torch
    >>> w = torch.ones(3, requires_grad=True)
    >>> with torch.inference_mode():
    ...     y = w * 2
    ...     torch.is_inference_mode_enabled()
    True
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode: bool | Callable = True):
        # ``@inference_mode`` without parentheses decorates the function directly.
        self = super().__new__(cls)
        if callable(mode):
            cls.__init__(self)
            return self(mode)
        return self

    def __init__(self, mode: bool | Callable = True) -> None:
        super().__init__()
        self._inference = True if callable(mode) else bool(mode)
        self._mode = not self._inference
        self._previous_inference: list[bool] = []

    def __enter__(self) -> None:
        super().__enter__()
        self._previous_inference.append(_state.inference)
        _state.inference = self._inference

    def __exit__(self, *exc_info: object) -> None:
        _state.inference = self._previous_inference.pop()
        super().__exit__(*exc_info)

    def __call__(self, func: F) -> F:
        inference = self._inference

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(inference):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> inference_mode:
        return self.__class__(self._inference)


def is_inference_mode_enabled() -> bool:
    """Return True inside :class:`inference_mode` (and not inside ``inference_mode(False)``)."""
    return _state.inference


class set_grad_enabled(_GradModeContext):
    """Set grad mode to ``mode``, now; used as a context manager it restores the
    previous mode on exit.

    >>> import autogradkit as torch
    >>> with torch.set_grad_enabled(False):
    ...     torch.is_grad_enabled()
    False
    >>> torch.is_grad_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}"
            )
        super().__init__()
        self._mode = mode
        self._previous.append(_state.enabled)
        _set_enabled(mode)

    def __enter__(self) -> None:
        # The mode was already set by __init__; entering only marks the scope.
        pass

    def __repr__(self) -> str:
        # What Jupyter shows after a cell ending in torch.set_grad_enabled(False).
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self._mode})"

    def __exit__(self, *exc_info: object) -> None:
        _set_enabled(self._previous.pop())

    def __call__(self, func: F) -> F:
        # The constructor already switched the mode; undo that, then wrap.
        _set_enabled(self._previous.pop())
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> set_grad_enabled:
        return self.__class__(self._mode)
