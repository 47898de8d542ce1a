"""Checkers for notebook 5, "Tensor gradients and Jacobian products"."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import Tensor
from ..autograd.functional import jacobian
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


@exercise(
    1,
    "one call puts 2·(x+1) into .grad; what does every further call do to it? inp[0, 0] is 1.",
)
def check_exercise_1(answer: object) -> str:
    expect(
        isinstance(answer, (int, float)) and not isinstance(answer, bool),
        f"give a number, not {type(answer).__name__}.",
    )
    expect(
        answer == 12,
        f"{answer} is not it. One call gives 2·(1+1) = 4 at [0, 0]; does backward overwrite "
        ".grad or add to it?",
    )
    return "3 × 4 = 12. Gradients accumulate until you zero them."


def _jacobian(g: Callable[[Tensor], Tensor], x0: Tensor) -> np.ndarray:
    return jacobian(g, x0.detach()).numpy()


@exercise(
    2,
    "a weighted sum of the rows of J is vᵀJ, with the weights as v. One backward call on y "
    "with such a v does it; mind what x.grad held before.",
)
def check_exercise_2(answer: object, g: Callable[[Tensor], Tensor], x0: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor, not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expect(
        tuple(answer.shape) == (3,),
        f"the result has one entry per input of g, so shape (3,), not {tuple(answer.shape)}.",
    )
    rows = _jacobian(g, x0)
    expected = 3 * rows[0] - rows[1]
    expect(
        np.allclose(answer.detach().numpy(), expected, atol=1e-5),
        "not the weighted sum of the rows. Did x.grad still hold an earlier gradient? Clear it "
        "before calling backward.",
    )
    return f"{answer}, one backward pass with v = [3, -1]."


@exercise(
    3,
    "jvp returns a pair: the function's value and J·v, with v shaped like the input. Which "
    "of the two do you want, and which v moves all three inputs together?",
)
def check_exercise_3(answer: object, g: Callable[[Tensor], Tensor], x0: Tensor) -> str:
    expect(
        isinstance(answer, Tensor),
        f"give a tensor, not {type(answer).__name__} (jvp returns a pair).",
    )
    assert isinstance(answer, Tensor)
    expect(
        tuple(answer.shape) == (2,),
        f"J·u has one entry per output of g, so shape (2,), not {tuple(answer.shape)}.",
    )
    expected = _jacobian(g, x0).sum(axis=1)
    expect(
        np.allclose(answer.detach().numpy(), expected, atol=1e-5),
        "not J·(1, 1, 1): moving all inputs together adds up each row of J.",
    )
    return f"{answer}, the row sums of J."
