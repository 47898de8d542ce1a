"""Checkers for notebook 2, "Computing gradients"."""

from __future__ import annotations

import numpy as np

from .. import Tensor
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


def _dloss_dz(x: Tensor, w: Tensor, b: Tensor, y: Tensor) -> np.ndarray:
    """∂loss/∂z of the notebook's network, (σ(z) − y) / N, computed with NumPy."""
    z = x.detach().numpy() @ w.detach().numpy() + b.detach().numpy()
    return (1 / (1 + np.exp(-z)) - y.numpy()) / z.size


@exercise(1, "each entry w_ij appears in exactly one term w_ij**2 of the sum.")
def check_exercise_1(answer: object, w: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor, not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expect(
        tuple(answer.shape) == tuple(w.shape),
        f"w.grad has the shape of w, {tuple(w.shape)}; your answer has {tuple(answer.shape)}.",
    )
    expect(
        np.allclose(answer.detach().numpy(), 2 * w.detach().numpy()),
        "not the gradient: differentiate one term of the sum with respect to its own entry.",
    )
    return "the gradient of sum(w*w) is 2*w."


@exercise(
    2,
    "h is not a leaf, so its gradient is thrown away unless you ask autograd to keep it "
    "(see 'Only leaves keep .grad'), and you must ask before the backward pass.",
)
def check_exercise_2(answer: object, x: Tensor, w: Tensor, b: Tensor, y: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor (h.grad), not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expect(tuple(answer.shape) == (3,), "h.grad should be a tensor of 3 numbers.")
    expect(
        np.allclose(answer.numpy(), _dloss_dz(x, w, b, y)),
        "the values are off: keep h's gradient before loss2.backward(), and build loss2 from h + b.",
    )
    return "h.grad = (σ(z) − y) / 3, the same as z.grad, since adding b passes gradients through."


@exercise(
    3,
    "see 'A graph can be used only once': the first of the two calls has to keep the graph "
    "for the second.",
)
def check_exercise_3(answer: object, x: Tensor, w: Tensor, b: Tensor, y: Tensor) -> str:
    expect(isinstance(answer, Tensor), f"give a tensor (b.grad), not {type(answer).__name__}.")
    assert isinstance(answer, Tensor)
    expect(
        np.allclose(answer.numpy(), 2 * _dloss_dz(x, w, b, y)),
        "b.grad should hold the gradient twice: did you start from b.grad = None and call "
        "backward exactly twice on one graph?",
    )
    return "two backward passes through one graph accumulate twice the gradient."
