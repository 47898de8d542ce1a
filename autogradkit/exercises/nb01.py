"""Checkers for notebook 1, "Tensors, functions and the computational graph"."""

from __future__ import annotations

from .. import Tensor
from ..nn.functional import binary_cross_entropy_with_logits
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


@exercise(
    1,
    "look at the printout of requires_grad and is_leaf above. Set answer1 to a set of "
    "names, such as {'x', 'z'}.",
)
def check_exercise_1(answer: object) -> str:
    expect(
        isinstance(answer, set),
        f"give a set of names such as {{'x'}}, not {type(answer).__name__}.",
    )
    assert isinstance(answer, set)
    expect(
        answer == {"w", "b"},
        f"{sorted(answer)} is not it. Only leaves created with requires_grad=True get .grad; "
        "intermediate results do not keep theirs, and plain data needs none.",
    )
    return "only the leaves that require grad, w and b, receive .grad."


@exercise(
    2,
    "every grad_fn lists the nodes of its inputs in next_functions, as (function, index) "
    "pairs. Which input of the loss was z?",
)
def check_exercise_2(answer: object, z: Tensor) -> str:
    expect(
        answer is z.grad_fn,
        f"that is {answer!r}, not the node that produced z. Each entry of next_functions is a "
        "pair (function, index): the function is its first element.",
    )
    return (
        "the first entry of loss.grad_fn.next_functions is the AddBackward0 node that produced z."
    )


@exercise(
    3,
    "turn the scores into probabilities with the sigmoid, then evaluate the loss formula of "
    "the section 'The loss' for the two outputs; .item() gives a Python float.",
)
def check_exercise_3(answer: object, s: Tensor, t: Tensor) -> str:
    expect(
        isinstance(answer, float),
        f"give a Python float (use .item()), not {type(answer).__name__}.",
    )
    assert isinstance(answer, float)
    expected = binary_cross_entropy_with_logits(s, t).item()
    expect(
        abs(answer - expected) < 1e-6,
        f"{answer:.6f} is not the library's value. Remember the minus sign and the mean over "
        "the two outputs, and use sigmoid(s) as the probability.",
    )
    return f"{answer:.6f}, the same as binary_cross_entropy_with_logits."
