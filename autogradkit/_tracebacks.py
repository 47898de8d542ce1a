"""Short tracebacks in Jupyter: an error raised inside autogradkit shows the message
and the learner's own lines, not the library's internals.

IPython hides a frame whose locals set ``__tracebackhide__``, but never the frame
that raised, which for autogradkit is deep inside the engine. So, when autogradkit
is imported in an IPython kernel (JupyterLab, Voilà, nbclient), it registers a
handler that leaves every frame of autogradkit's own files out of the traceback
and says how many it left out. Code called back from autogradkit (a hook, the
function given to the Jacobian explorer) stays in. Set the environment variable
``AUTOGRADKIT_FULL_TRACEBACKS=1`` to see everything.

IPython is never imported here: the handler is installed only if it already runs.
"""

from __future__ import annotations

import os
import sys
import types

__all__ = ["install", "trimmed"]

# os.path, not pathlib: pathlib would be imported for this one line.
PACKAGE = os.path.dirname(os.path.realpath(__file__)) + os.sep


def _inside(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename.startswith(PACKAGE)


def trimmed(tb: types.TracebackType | None) -> tuple[types.TracebackType | None, int]:
    """The traceback without autogradkit's frames, and how many were left out."""
    kept: list[types.TracebackType] = []
    hidden = 0
    while tb is not None:
        if _inside(tb.tb_frame):
            hidden += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    rebuilt: types.TracebackType | None = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt, hidden


def _show_short(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: show the usual traceback, minus autogradkit.

    IPython calls it instead of showing the traceback itself, so it shows it (the
    way ``InteractiveShell.showtraceback`` does) and returns the lines shown."""
    short, hidden = trimmed(tb)
    if hidden == 0 or short is None:
        short, hidden = tb, 0
    stb = shell.InteractiveTB.structured_traceback(etype, value, short, tb_offset=tb_offset)
    if hidden:
        # Under 85 characters: the width of JupyterLab's output area at 1100 px (a
        # longer line wraps mid-word).
        note = (
            f"    [{hidden} frame{'s' if hidden > 1 else ''} inside autogradkit hidden: "
            "AUTOGRADKIT_FULL_TRACEBACKS=1 shows them]"
        )
        stb = [*stb[:-1], note, stb[-1]]
    shell._showtraceback(etype, value, stb)
    return stb


def install() -> bool:
    """Register the handler in the running IPython shell, if any; True if it did."""
    if os.environ.get("AUTOGRADKIT_FULL_TRACEBACKS", "") not in ("", "0"):
        return False
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or shell.custom_exceptions:  # leave another handler alone
        return False
    shell.set_custom_exc((Exception,), _show_short)
    return True
