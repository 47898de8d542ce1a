"""Checkers for notebook 9, "Forward mode and reverse mode"."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import Tensor
from ..autograd.functional import jacobian
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


@exercise(
    1,
    "one input, many outputs: seed the tangent 1 on t inside a dual level, run curve on "
    "the dual tensor, and unpack the result. Its tangent holds every output's derivative.",
)
def check_exercise_1(answer: object, curve: Callable[[Tensor], Tensor], t0: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor, not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expected = jacobian(curve, t0.detach()).numpy()
    expect(
        tuple(answer.shape) == expected.shape,
        f"one derivative per output of curve, so shape {expected.shape}, not "
        f"{tuple(answer.shape)}.",
    )
    values = answer.detach().numpy()
    expect(
        not np.allclose(values, curve(t0.detach()).numpy(), atol=1e-6),
        "those are the values of curve at t0 (the primal), not its derivatives (the tangent).",
    )
    expect(
        np.allclose(values, expected, atol=1e-5),
        "not the derivatives of curve at t0: was the tangent of t set to 1?",
    )
    return "one forward pass gave the derivatives of all the outputs at once."


@exercise(
    2,
    "a pass of either mode has a 1 on one element: forward mode on one input element, "
    "reverse mode on one output element. Count elements, not tensors.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        isinstance(answer, tuple) and len(answer) == 2,
        f"give a pair (forward passes, reverse passes), not {type(answer).__name__}.",
    )
    assert isinstance(answer, tuple)
    forward, reverse = answer
    expect(
        all(isinstance(n, int) and not isinstance(n, bool) for n in answer),
        "give two whole numbers.",
    )
    expect(
        (forward, reverse) != (3, 2),
        "that counts tensors; a tensor of shape [4, 2] has 8 elements, each its own column.",
    )
    expect(
        (forward, reverse) != (3, 13),
        "the other way round: forward mode needs a pass per input element.",
    )
    expect(forward == 4 + 4 * 2 + 1, f"{forward} forward passes is not it: count input elements.")
    expect(reverse == 2 + 1, f"{reverse} reverse passes is not it: count output elements.")
    return "13 columns by forward mode, or 3 rows by reverse mode: reverse wins here."


@exercise(
    3,
    "one forward pass per input, each with tangent 1 on that input and 0 on the others; the "
    "outputs' tangents of pass j form column j. torch.stack with dim=1 puts columns side "
    "by side.",
)
def check_exercise_3(answer: object, f: Callable[..., Sequence[Tensor]], inputs: tuple) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor, not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    blocks = jacobian(f, tuple(x.detach() for x in inputs))
    expected = np.array([[float(entry) for entry in row] for row in blocks])
    expect(
        tuple(answer.shape) != expected.shape[::-1],
        f"shape {tuple(answer.shape)} has rows and columns swapped: each forward pass gives a "
        "column, one entry per output.",
    )
    expect(
        tuple(answer.shape) == expected.shape,
        f"J has a row per output and a column per input, so shape {expected.shape}, not "
        f"{tuple(answer.shape)}.",
    )
    expect(
        np.allclose(answer.detach().numpy(), expected, atol=1e-5),
        "not the Jacobian of f at the inputs: is tangent 1 on one input per pass, 0 on the others?",
    )
    return "three forward passes, three columns: the whole of J."
