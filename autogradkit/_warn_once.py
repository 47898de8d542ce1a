"""Warnings PyTorch gives once per process (its C++ ``TORCH_WARN_ONCE``).

A learner who writes ``float(loss)`` in a loop sees PyTorch's warning about it
the first time only, in the whole session; :func:`set_warn_always` makes such
warnings appear every time, as ``torch.set_warn_always`` does.

Examples
--------
>>> import autogradkit as torch
>>> torch.is_warn_always_enabled()
False
"""

from __future__ import annotations

import warnings

__all__ = ["set_warn_always", "is_warn_always_enabled", "warn_once"]

_warn_always = False
_given: set[str] = set()  # the warnings already given once


def set_warn_always(b: bool) -> None:
    """If ``True``, warnings that are given once per process are given every time;
    ``False`` (the default) goes back to once.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.set_warn_always(True)
    >>> torch.is_warn_always_enabled()
    True
    >>> torch.set_warn_always(False)
    """
    global _warn_always
    if type(b) is not bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always = b


def is_warn_always_enabled() -> bool:
    """Whether warnings that are given once per process are given every time."""
    return _warn_always


def warn_once(message: str, category: type[Warning] = UserWarning, stacklevel: int = 1) -> None:
    """``warnings.warn`` the first time ``message`` comes up in this process (every
    time under ``set_warn_always(True)``, which does not use up the first time)."""
    if not _warn_always:
        if message in _given:
            return
        _given.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
