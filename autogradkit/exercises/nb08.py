"""Checkers for notebook 8, "Custom autograd Functions and double backward"."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import float64, tensor
from ..autograd import Function, grad, gradcheck
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]

_POINTS = [0.5, -1.5, 2.0]


def _is_function(answer: object) -> bool:
    return isinstance(answer, type) and issubclass(answer, Function) and answer is not Function


def _run(what: str, compute):
    """``compute()``, or a NotYet that names the error the learner's code raised."""
    __tracebackhide__ = True
    try:
        return compute()
    except Exception as error:  # the learner's code: say what went wrong, in its words
        expect(False, f"{what} raised {type(error).__name__}: {error}")


@exercise(
    1,
    "a class deriving from torch.autograd.Function with two static methods: forward saves "
    "what backward needs with ctx.save_for_backward, and backward multiplies the gradient it "
    "receives by the local derivative of x³. Set answer1 to the class itself.",
)
def check_exercise_1(answer: object) -> str:
    expect(
        _is_function(answer),
        f"answer1 should be your Function class (a subclass of torch.autograd.Function), "
        f"not {type(answer).__name__}.",
    )
    function: Any = answer
    x = tensor(_POINTS, dtype=float64, requires_grad=True)
    y = _run("Cube.apply(x)", lambda: function.apply(x))
    expect(
        getattr(y, "grad_fn", None) is not None,
        "the result of apply has no grad_fn: forward should return a tensor computed from x.",
    )
    expect(
        np.allclose(y.detach().numpy(), np.array(_POINTS) ** 3),
        "forward does not return x³.",
    )
    (g,) = _run("backward", lambda: grad(y.sum(), x))
    expect(
        g is not None and np.allclose(g.numpy(), 3 * np.array(_POINTS) ** 2),
        "the gradient backward returns is not the derivative of x³ times the gradient received.",
    )
    passed = _run("gradcheck", lambda: gradcheck(function.apply, (x,), raise_exception=False))
    expect(passed, "gradcheck finds backward wrong for a gradient other than ones.")
    return f"{y.grad_fn.name()} runs your backward, and gradcheck agrees with it."


@exercise(
    2,
    "forward returns a tuple of two tensors; backward then receives two gradients, one per "
    "output, and returns one per input. Each input's gradient adds up what reaches it through "
    "both outputs.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        _is_function(answer),
        f"answer2 should be your Function class, not {type(answer).__name__}.",
    )
    function: Any = answer
    x = tensor(_POINTS, dtype=float64, requires_grad=True)
    y = tensor([2.0, 0.5, -1.0], dtype=float64, requires_grad=True)
    outputs = _run("apply(x, y)", lambda: function.apply(x, y))
    expect(
        isinstance(outputs, tuple) and len(outputs) == 2,
        "apply should return two tensors (forward returns a tuple of two).",
    )
    total, product = outputs
    expect(
        np.allclose(total.detach().numpy(), (x + y).detach().numpy())
        and np.allclose(product.detach().numpy(), (x * y).detach().numpy()),
        "forward should return (x + y, x * y), in that order.",
    )
    both = _run("backward", lambda: grad((total * 3 + product).sum(), (x, y)))
    expect(
        np.allclose(both[0].numpy(), 3 + y.detach().numpy())
        and np.allclose(both[1].numpy(), 3 + x.detach().numpy()),
        "the gradients are off when both outputs are used: does each input get its share "
        "from both gradients backward receives?",
    )
    (only,) = _run("backward", lambda: grad(function.apply(x, y)[1].sum(), x))
    expect(
        np.allclose(only.numpy(), y.detach().numpy()),
        "with only the product used, x's gradient should come from the product alone.",
    )
    return "backward gets one gradient per output (zeros for an output you did not use)."


@exercise(
    3,
    "differentiate Cube at t twice: the first torch.autograd.grad must record its own "
    "computation (create_graph=True) so that the second can differentiate it. Your backward "
    "uses tensor operations, so it is recorded too.",
)
def check_exercise_3(answer: object) -> str:
    expect(
        isinstance(answer, float),
        f"give a Python float (use .item()), not {type(answer).__name__}.",
    )
    assert isinstance(answer, float)
    t = 1.5
    expect(
        abs(answer - 3 * t**2) > 1e-6,
        f"{answer:.4f} is the first derivative, 3t²: differentiate once more.",
    )
    expect(abs(answer - 6 * t) < 1e-6, f"{answer:.4f} is not the second derivative of t³.")
    return f"{answer:.4f} = 6t at t = 1.5: double backward ran through your backward."
