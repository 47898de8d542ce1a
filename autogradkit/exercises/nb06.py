"""Checkers for notebook 6, "Going further"."""

from __future__ import annotations

import math

from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2"]


@exercise(
    1,
    "two calls to torch.autograd.grad: the first must record its own computation (see "
    "create_graph above), so that the second can differentiate its result.",
)
def check_exercise_1(answer: object) -> str:
    expect(
        isinstance(answer, float),
        f"give a Python float (use .item()), not {type(answer).__name__}.",
    )
    assert isinstance(answer, float)
    tanh = math.tanh(0.5)
    first = 1 - tanh**2  # d/dt tanh t
    expected = -2 * tanh * first  # d/dt (1 − tanh² t)
    expect(
        abs(answer - first) > 1e-3,
        f"{first:.4f} is the first derivative, 1 − tanh²(0.5): differentiate it once more.",
    )
    expect(
        abs(answer - expected) < 1e-5,
        f"{answer:.4f} is not the second derivative. Did the first call use create_graph=True?",
    )
    return f"{answer:.4f} = −2·tanh(0.5)·(1 − tanh²(0.5))."


@exercise(
    2,
    "follow the four steps of the training loop above, with (q − 3)² as the loss and q as the "
    "only parameter. Every step matters, the reset too.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        isinstance(answer, float),
        f"give a Python float (use .item()), not {type(answer).__name__}.",
    )
    assert isinstance(answer, float)
    never_reset = _descent(reset=False)
    expect(
        abs(answer - never_reset) > 1e-3,
        f"{never_reset:.4f} is where q lands when q.grad is never reset: each step then also "
        "repeats every earlier gradient, and q overshoots. Reset q.grad after the update.",
    )
    expect(answer < 3.001, f"q = {answer:.4f} went past 3: is the step subtracted?")
    expected = _descent(reset=True)
    expect(
        abs(answer - expected) < 1e-4,
        f"q = {answer:.4f} is not where 50 steps end. Check the learning rate (0.1), the "
        "number of steps (50), the start value (0) and that q.grad is reset each step.",
    )
    return f"q = {answer:.4f}, close to the minimum at 3."


def _descent(reset: bool, steps: int = 50, learning_rate: float = 0.1) -> float:
    """Gradient descent on (q − 3)² from 0, in plain floats."""
    q, grad = 0.0, 0.0
    for _ in range(steps):
        grad = (grad if not reset else 0.0) + 2 * (q - 3)
        q -= learning_rate * grad
    return q
