"""NumPy arithmetic without NumPy's floating-point warnings, as PyTorch computes.

``inf - inf``, ``0 * inf`` and overflow give nan or ±inf in both libraries, but
NumPy also warns ("RuntimeWarning: invalid value encountered in subtract") where
PyTorch is silent. ``with np.errstate(all="ignore")`` silences it at a cost of about
10,000 CPU instructions each time (a Python object, ``__enter__``/``__exit__`` and
a new error state), more than a small operation itself. NumPy keeps its error
state in a context variable: :func:`silently` sets it to an "ignore" state made
once, and restores it, for about a quarter of that (callgrind, NumPy 2.4).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from math import isfinite
from typing import Any

import numpy as np

__all__ = ["silently", "arithmetic"]


def arithmetic(operation: Callable[[Any, Any], Any], x: Any, y: Any) -> Any:
    """``operation(x, y)`` (``operator.add``, ``operator.mul``, ...) without NumPy's
    floating-point warnings. Two finite numbers (the 0-d fast path) are computed
    directly: setting the error state costs more than their arithmetic, and only
    infinite or nan operands make it warn (overflow of finite numbers aside)."""
    if type(x) is not np.ndarray and type(y) is not np.ndarray and isfinite(x) and isfinite(y):
        return operation(x, y)
    return silently(operation, x, y)


def silently(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` (``operator.sub``, ``np.sum``, ...) with
    NumPy's floating-point warnings off, as with ``np.errstate(all="ignore")``."""
    if _STATE is None:  # pragma: no cover
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    token = _STATE.set(_IGNORE)
    try:
        return function(*args, **kwargs)
    finally:
        _STATE.reset(token)


def _numpy_error_state() -> tuple[ContextVar | None, Any]:
    """The context variable np.errstate sets (NumPy >= 2.0) and an "ignore" value."""
    try:
        from numpy._core.umath import _extobj_contextvar, _make_extobj
    except ImportError:  # pragma: no cover - a NumPy that keeps it elsewhere
        return None, None
    return _extobj_contextvar, _make_extobj(all="ignore")


_STATE, _IGNORE = _numpy_error_state()
