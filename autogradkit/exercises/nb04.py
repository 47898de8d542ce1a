"""Checkers for notebook 4, "More on computational graphs"."""

from __future__ import annotations

from collections.abc import Callable

from .. import Tensor, tensor
from ..autograd import backward_steps
from ..nn.functional import binary_cross_entropy_with_logits
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


@exercise(
    1,
    "a node runs as soon as all of its gradients have arrived. Count how many nodes lie "
    "between AddBackward0 and each of the two leaves.",
)
def check_exercise_1(answer: object, x: Tensor, w: Tensor, b: Tensor, y: Tensor) -> str:
    expect(answer in ("w", "b"), f'give the string "w" or "b", not {answer!r}.')
    # Replay the pass on fresh leaves with the same values and see which fills first.
    fresh_w = w.detach().requires_grad_()
    fresh_b = b.detach().requires_grad_()
    loss = binary_cross_entropy_with_logits(x @ fresh_w + fresh_b, y)
    names = {id(fresh_w): "w", id(fresh_b): "b"}
    order = [names[id(acc.tensor)] for step in backward_steps(loss) for acc in step.accumulations]
    expect(
        answer == order[0],
        f"the engine filled {order[0]}.grad first (order: {order}). Follow the gradient from "
        "AddBackward0: one of its inputs is a leaf, the other is still two nodes away from one.",
    )
    return (
        f"{order[0]}.grad is filled first; AddBackward0 sends to b directly, and w waits for "
        "two more nodes."
    )


@exercise(
    2,
    "torch.autograd.backward_steps gives one step for every node that runs, and "
    "step.node.name() names its node. Count the MulBackward0 ones.",
)
def check_exercise_2(answer: object, model: Callable[[Tensor], Tensor]) -> str:
    expect(
        isinstance(answer, int) and not isinstance(answer, bool),
        f"give an int, not {type(answer).__name__}.",
    )
    start = tensor(1.2, requires_grad=True)
    expected = sum(step.node.name() == "MulBackward0" for step in backward_steps(model(start)))
    expect(
        answer == expected,
        f"{answer} is not it: 1.2 is squared until it exceeds 100, and the graph has one node "
        "per multiplication that actually ran.",
    )
    return f"{answer} squarings (1.2 → 1.44 → 2.07 → 4.30 → 18.5 → 342); 1.5 needed 4."


@exercise(
    3,
    "look for a tensor that two later operations use (two arrows leave its box in the drawing).",
)
def check_exercise_3(answer: object, a: Tensor, u: Tensor, v: Tensor, out: Tensor) -> str:
    expect(
        answer is not out, "out is the root: it receives a single gradient, 1, to start the pass."
    )
    expect(answer is not v, "v is used only once, by the last multiplication.")
    expect(
        answer is not a,
        "a is used only once (by a * 2); what reaches it was already summed one node earlier.",
    )
    expect(answer is u, "give one of the tensors a, u, v, out (the variable, not a string).")
    return (
        "u is used by tanh and by the final product, so its MulBackward0 waits for both "
        "gradients and adds them: 0.9951 + 0.0296 = 1.0247."
    )
