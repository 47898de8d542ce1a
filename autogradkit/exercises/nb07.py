"""Checkers for notebook 7, "From autograd to nn and optim"."""

from __future__ import annotations

from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2"]


@exercise(
    1,
    "every Linear layer holds a weight of out_features × in_features numbers and, with "
    "bias=True, out_features more. model.parameters() lists them all; .numel() counts a "
    "tensor's numbers.",
)
def check_exercise_1(answer: object) -> str:
    expect(
        isinstance(answer, int) and not isinstance(answer, bool),
        f"give a Python int, not {type(answer).__name__} (sum the .numel() of the parameters).",
    )
    weights_only = 4 * 8 + 8 * 8 + 8 * 1
    expect(
        answer != weights_only,
        f"{answer} counts the weights only: each Linear layer also has a bias.",
    )
    expect(
        answer != 3,
        "3 is the number of Linear layers, not of numbers they hold: use .numel().",
    )
    expected = (4 * 8 + 8) + (8 * 8 + 8) + (8 * 1 + 1)
    expect(answer == expected, f"{answer} is not the number of trainable numbers in the model.")
    return f"{answer} = (4·8 + 8) + (8·8 + 8) + (8·1 + 1); ReLU and Tanh have no parameters."


@exercise(
    2,
    "run the loss, backward, then compute by hand what SGD's step does with momentum: the "
    "first step starts the buffer at the gradient, so it moves w by −lr·grad; the second "
    "step's buffer is momentum·buffer + grad.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        isinstance(answer, float),
        f"give a Python float (use .item()), not {type(answer).__name__}.",
    )
    assert isinstance(answer, float)
    lr, momentum, w = 0.1, 0.9, 1.0
    # loss = (w − 3)²: grad = 2(w − 3)
    grad1 = 2 * (w - 3)
    buffer = grad1
    w1 = w - lr * buffer
    grad2 = 2 * (w1 - 3)
    plain = w1 - lr * grad2
    buffer = momentum * buffer + grad2
    expected = w1 - lr * buffer
    expect(
        abs(answer - w1) > 1e-6,
        f"{answer:.4f} is w after one step: the exercise asks for two.",
    )
    expect(
        abs(answer - plain) > 1e-6,
        f"{answer:.4f} is where plain SGD lands after two steps: the second step also carries "
        "0.9 times the first step's buffer.",
    )
    expect(
        abs(answer - expected) < 1e-5,
        f"w = {answer:.4f} is not where two momentum steps from w = 1 end. Did you reset the "
        "gradient between the steps (optimizer.zero_grad())?",
    )
    return f"w = {answer:.4f}: the buffer adds 0.9 × the first gradient to the second one."
