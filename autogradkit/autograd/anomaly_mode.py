"""Anomaly detection for the backward pass (mirrors ``torch/autograd/anomaly_mode.py``).

While anomaly mode is on, every recorded node keeps the traceback of the forward
call that made it. When that node's backward fails, a ``UserWarning`` shows that
traceback ("Error detected in MulBackward0. Traceback of forward call that caused
the error: ...") before the error goes on, so you see which line of *your* forward
code the failing gradient belongs to. With ``check_nan`` (the default), a backward
that returns nan raises at once, naming the node.

As in PyTorch, the mode is one switch for the whole process (not per thread), and
it costs nothing while off: recording a node reads one flag.

Examples
--------
>>> import warnings
>>> import autogradkit as torch
>>> x = torch.tensor([-1.0, 4.0], requires_grad=True)
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     with torch.autograd.detect_anomaly():
...         y = x.sqrt()
...         y.sum().backward()
Traceback (most recent call last):
  ...
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
>>> print(str(caught[1].message).splitlines()[0])
Error detected in SqrtBackward0. Traceback of forward call that caused the error:
"""

from __future__ import annotations

import re
import sys
import threading
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tracebacks import PACKAGE

__all__ = ["detect_anomaly", "set_detect_anomaly"]

# The switch, for the whole process as in PyTorch (its AnomalyMode is a static
# flag, not a thread-local one). Module globals: recording a node reads ``enabled``.
enabled = False
check_nan = True


class _Running(threading.local):
    # The node whose backward runs now in this thread under anomaly mode (None:
    # none): a node recorded meanwhile (create_graph) keeps it as its parent.
    node: Any = None


_running = _Running()


def is_anomaly_enabled() -> bool:
    """Return True while anomaly detection is on."""
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Return True when anomaly detection also checks backward results for nan."""
    return check_nan


def set_anomaly_enabled(mode: bool, check_nan_mode: bool = True) -> None:
    """Turn anomaly detection on or off (PyTorch's ``torch.set_anomaly_enabled``)."""
    global enabled, check_nan
    enabled, check_nan = bool(mode), bool(check_nan_mode)


class detect_anomaly:
    """Context manager that turns anomaly detection on for the autograd engine.

    It does two things:

    - a forward pass run inside it lets a failing backward show the traceback of
      the forward operation that made the failing node;
    - with ``check_nan=True`` (the default), a backward node that returns nan
      raises ``RuntimeError`` naming the node.

    Making one warns that the mode slows everything down: use it for debugging
    only. (As in PyTorch, it is not a decorator.)

    Parameters
    ----------
    check_nan : bool
        Raise when a backward node returns nan values.

    Examples
    --------
    >>> import warnings
    >>> import autogradkit as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    True True
    >>> torch.is_anomaly_enabled()
    False
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime "
            "and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off, now; used as a context manager it restores
    the previous setting on exit. See :class:`detect_anomaly` for what it does.

    Parameters
    ----------
    mode : bool
        True to turn anomaly detection on, False to turn it off.
    check_nan : bool
        Raise when a backward node returns nan values.

    Examples
    --------
    >>> import autogradkit as torch
    >>> with torch.autograd.set_detect_anomaly(True, check_nan=False):
    ...     print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    True False
    >>> torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    (False, True)
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# -- what the engine and the recording use ---------------------------------------------


def keep_forward_trace(node: Any) -> None:
    """Keep on ``node`` the traceback of the forward call recording it: the
    caller's frames, without autogradkit's own at the end (PyTorch's ops run in
    C++, where no Python frame shows)."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(PACKAGE):
        frames.pop()
    node._forward_trace = "".join(traceback.format_list(_from_the_first_cell(frames)))
    if _running.node is not None:
        node._anomaly_parent = _running.node


# The file of a Jupyter cell, as IPython compiles it (ipykernel) or as plain
# IPython names it.
_CELL_FILE = re.compile(r"ipykernel_\d+[\\/]\d+\.py$|^<ipython-input-")


def _from_the_first_cell(frames: list) -> list:
    """In Jupyter, the frames from the first notebook cell on: the ones before it
    are the kernel's (its event loop, IPython running the cell), some forty lines
    of files of the installation that PyTorch's traceback would list too."""
    for i, frame in enumerate(frames):
        if _CELL_FILE.search(frame.filename):
            return frames[i:]
    return frames


def _outside_the_package() -> int:
    """The stacklevel of the first caller outside autogradkit (the line that called
    backward): a warning is shown as coming from there, not from the engine."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def warn_with_forward_trace(node: Any) -> None:
    """PyTorch's warnings for a node whose backward failed: where the forward
    recorded it, then, for a node a backward with ``create_graph`` recorded,
    where the forward recorded the node whose backward that was (and so on up).
    Each is shown as coming from the line that started the backward pass."""
    level = _outside_the_package()
    warnings.warn(_trace_message(node, induced=False), UserWarning, stacklevel=level)
    parent = getattr(node, "_anomaly_parent", None)
    while parent is not None:
        warnings.warn(_trace_message(parent, induced=True), UserWarning, stacklevel=level)
        parent = getattr(parent, "_anomaly_parent", None)


def _trace_message(node: Any, induced: bool) -> str:
    trace = getattr(node, "_forward_trace", None)
    name = node.name()
    if trace is None:
        return (
            f"Error detected in {name}. No forward pass information available. "
            "Enable detect anomaly during forward pass for more information."
        )
    if induced:
        return (
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call "
            f"that induced the previous calculation:\n{trace}"
        )
    return f"Error detected in {name}. Traceback of forward call that caused the error:\n{trace}"


def check_for_nan(node: Any, grad_inputs: Any) -> None:
    """Raise PyTorch's error if a gradient ``node`` returned holds a nan."""
    for i, grad in enumerate(grad_inputs):
        if grad is None:
            continue
        values = getattr(grad, "_data", grad)
        if np.isnan(values).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def watched(call: Callable[[Any, Any], tuple], node: Any, grad_output: Any) -> tuple:
    """Run ``call(node, grad_output)`` (the engine's ``_call``) under anomaly mode:
    the nan check on what it returns, and on any error the forward traceback."""
    previous, _running.node = _running.node, node
    try:
        grad_output, grad_inputs = call(node, grad_output)
        if check_nan:
            check_for_nan(node, grad_inputs)
    except Exception:
        warn_with_forward_trace(node)
        raise
    finally:
        _running.node = previous
    return grad_output, grad_inputs
