"""Checkers for notebook 3, "Disabling gradient tracking"."""

from __future__ import annotations

import numpy as np

from .. import Tensor
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2"]


@exercise(
    1,
    "any of the switches in this notebook will do: a block in which nothing is recorded, or "
    "cutting the result off from the graph.",
)
def check_exercise_1(answer: object, x: Tensor, w: Tensor, b: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor, not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expect(
        not answer.requires_grad,
        "answer1 still requires grad: compute it with recording switched off, or cut it from "
        "the graph.",
    )
    expected = x.numpy() @ w.detach().numpy() + b.detach().numpy()
    expect(
        np.allclose(answer.numpy(), expected),
        "right mode, but these are not the values of x @ w + b.",
    )
    return "the same scores, with no graph behind them."


@exercise(
    2,
    "the innermost with-block is the one in force; detach() cuts a tensor from the graph.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        isinstance(answer, tuple) and len(answer) == 3,
        "give a tuple of three booleans, (u.requires_grad, v.requires_grad, d.requires_grad).",
    )
    assert isinstance(answer, tuple)
    wrong = [
        name
        for name, given, right in zip(("u", "v", "d"), answer, (False, True, False))
        if given != right
    ]
    expect(
        not wrong,
        f"look again at {', '.join(wrong)}: the innermost block decides whether an operation "
        "is recorded, and detach() always gives a tensor without history.",
    )
    return "u is untracked (no_grad), v is tracked again (enable_grad), d is detached."
