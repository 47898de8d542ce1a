"""Checkers for the notebooks' exercises, one module per notebook (``nb01`` … ``nb10``).

A checker takes the learner's answer (and the tensors it needs to judge it) and says
what it thinks, without showing the expected value in the notebook:

* no answer yet (``None``): a hint that points the way, not the code;
* a wrong answer: what is off, as ``Not yet: …``;
* a right answer: ``Correct: …`` with a word on why.

In **grading mode** (``grading=True``, or the environment variable
``AUTOGRADKIT_GRADING=1`` as an autograder sets it) a missing or wrong answer raises
``AssertionError`` instead, so a grader counts it as failed, and a right answer
passes silently (otter-grader's tests compare what a test prints).

The checkers' frames are hidden from IPython's tracebacks (``__tracebackhide__``):
a failed check shows its message and the learner's cell, not this module.
"""

from __future__ import annotations

import functools
import os
import textwrap
from collections.abc import Callable
from typing import Any

__all__ = ["NotYet", "exercise", "expect", "grading_mode"]

# A notebook wraps a long printed line wherever the output area ends, mid-word; at
# 80 characters a line fits JupyterLab's output area at 1100 px with the file
# browser open, so the checker breaks its lines between words itself.
LINE_WIDTH = 80


def _say(text: str) -> None:
    lines = [
        textwrap.fill(line, LINE_WIDTH, break_long_words=False, break_on_hyphens=False)
        if len(line) > LINE_WIDTH
        else line
        for line in text.splitlines()
    ]
    print("\n".join(lines))


class NotYet(AssertionError):
    """A check that the answer did not pass; its message says what is off."""


def grading_mode() -> bool:
    """Whether ``AUTOGRADKIT_GRADING`` asks for grading (anything but empty or ``0``)."""
    return os.environ.get("AUTOGRADKIT_GRADING", "") not in ("", "0")


def expect(condition: object, message: str) -> None:
    """Part of a check: if ``condition`` is false, the answer is not right yet."""
    __tracebackhide__ = True
    if not condition:
        raise NotYet(message)


def exercise(number: int, hint: str) -> Callable[[Callable[..., str]], Callable[..., None]]:
    """Turn ``judge(answer, *context) -> praise`` into a checker (see the module)."""

    def decorate(judge: Callable[..., str]) -> Callable[..., None]:
        @functools.wraps(judge)
        def check(answer: Any, *context: Any, grading: bool | None = None) -> None:
            __tracebackhide__ = True
            grading = grading_mode() if grading is None else grading
            if answer is None:
                if grading:
                    raise AssertionError(f"Exercise {number}: no answer given (it is still None).")
                _say(f"Hint: {hint}")
                return
            try:
                praise = judge(answer, *context)
            except NotYet as miss:
                if grading:
                    raise AssertionError(f"Exercise {number}: {miss}") from None
                _say(f"Not yet: {miss}")
                return
            if not grading:
                _say(f"Correct: {praise}")

        return check

    return decorate
