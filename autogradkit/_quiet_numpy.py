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

import functools
import operator
from collections.abc import Callable
from contextvars import Context, ContextVar, copy_context
from math import hypot
from typing import Any

import numpy as np

__all__ = ["silently", "quietly", "arithmetic", "added_quietly"]


# Two numbers below this in magnitude can be added, subtracted or multiplied
# without overflow, even in float32 (whose largest value is 3.4e38 ≈ (1.8e19)²).
MODERATE = 1.8e19


def arithmetic(operation: Callable[[Any, Any], Any], x: Any, y: Any) -> Any:
    """``operation(x, y)`` (``operator.add``, ``operator.sub``, ``operator.mul``)
    without NumPy's floating-point warnings. Two moderate numbers (the 0-d fast
    path) are computed directly: setting the error state costs more than their
    arithmetic, and only infinite, nan or huge operands (``3e38 * 10``) make it
    warn. ``hypot`` checks both in one call (nan and inf fail the comparison)."""
    if type(x) is not np.ndarray and type(y) is not np.ndarray and hypot(x, y) < MODERATE:
        return operation(x, y)
    return silently(operation, x, y)


def quietly(forward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an operation's ``forward`` so it runs :func:`silently`: for the
    operations that meet ``inf - inf``, ``0 · inf``, ``sin(inf)`` or overflow at
    edge values (``softmax``, products, losses, ...), where PyTorch is silent. The
    hot arithmetic (``+ - * /``) uses :func:`arithmetic` instead, which skips the
    cost for the common operands."""

    if _STATE is None:  # pragma: no cover - a NumPy that keeps its state elsewhere

        def quiet_forward(*args: Any) -> Any:
            return silently(forward, *args)

        return functools.wraps(forward)(quiet_forward)

    state, ignore = _STATE, _IGNORE

    @functools.wraps(forward)
    def quiet(*args: Any) -> Any:
        # silently(forward, *args), written out: it runs for every call of forward.
        token = state.set(ignore)
        try:
            return forward(*args)
        finally:
            state.reset(token)

    return quiet


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


def added_quietly(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` for two arrays, silently: :func:`silently` written out for the
    commonest addition, two tensors of one dtype (``s + a @ m``), where the
    ``*args`` call and the ``operator.add`` call inside cost a third of the sum
    itself on the small arrays of teaching examples (callgrind).

    It runs in :data:`_QUIET_CONTEXT`, a context whose error state is "ignore"
    already: entering a context costs less than setting a context variable and
    resetting it (each makes a new mapping of all the variables): -1.4k of the
    5.8k this took for two 3×3 float32 arrays (callgrind, tiny script). Only
    NumPy's C code runs inside, which reads no other context variable and cannot
    enter the context again; another thread may be inside it, and then this
    thread sets the state itself."""
    if _QUIET_CONTEXT is None:  # pragma: no cover - a NumPy that keeps its state elsewhere
        return silently(operator.add, x, y)
    try:
        return _QUIET_CONTEXT.run(operator.add, x, y)
    except RuntimeError:  # "cannot enter context: ... is already entered" (another thread)
        return silently(operator.add, x, y)


def _numpy_error_state() -> tuple[ContextVar | None, Any]:
    """The context variable np.errstate sets (NumPy >= 2.0) and an "ignore" value."""
    try:
        from numpy._core.umath import _extobj_contextvar, _make_extobj
    except ImportError:  # pragma: no cover - a NumPy that keeps it elsewhere
        return None, None
    return _extobj_contextvar, _make_extobj(all="ignore")


_STATE, _IGNORE = _numpy_error_state()


def _quiet_context() -> Context | None:
    """A context in which NumPy's error state is "ignore" (see added_quietly)."""
    if _STATE is None:  # pragma: no cover - a NumPy that keeps its state elsewhere
        return None
    context = copy_context()
    context.run(_STATE.set, _IGNORE)
    return context


_QUIET_CONTEXT = _quiet_context()
