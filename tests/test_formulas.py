"""Every operation states its local derivative as LaTeX, and the node that a
forward pass records hands it out: the stepper's panel shows it at each step."""

from __future__ import annotations

import re

import pytest

import autogradkit as torch
import autogradkit.nn.functional  # loaded on first use; its losses are operations too
from autogradkit.autograd.function import AccumulateGrad, Function


def _concrete_functions() -> list[type[Function]]:
    found, pending = [], list(Function.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        # The kit's own operations only: test modules collected earlier in the same
        # process (test_gradcheck's deliberately broken Functions) are not lessons.
        if not cls.__module__.startswith("autogradkit."):
            continue
        if "forward" in vars(cls) or any(
            "forward" in vars(base) for base in cls.__mro__[1:-2] if base is not Function
        ):
            found.append(cls)
    return sorted(set(found), key=lambda cls: cls.__qualname__)


FUNCTIONS = _concrete_functions()


def _balanced(latex: str) -> bool:
    depth = 0
    for char in re.sub(r"\\[{}]", "", latex):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_every_operation_is_found():
    names = {cls.__name__ for cls in FUNCTIONS}
    assert {"Add", "Mul", "Mm", "Sum", "BinaryCrossEntropyWithLogits", "View", "Select"} <= names
    assert len(FUNCTIONS) >= 40


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda cls: cls.__name__)
def test_each_operation_has_a_formula_with_a_derivative(function):
    formula = function.formula
    assert isinstance(formula, str) and formula.strip(), f"{function.__name__} has no formula"
    assert r"\partial" in formula, f"{function.__name__}'s formula states no derivative: {formula}"
    assert _balanced(formula), f"unbalanced braces in {function.__name__}'s formula: {formula}"
    assert "$" not in formula, "formulas are bare LaTeX; the display adds the $$ delimiters"


def test_recorded_nodes_hand_out_their_operations_formula():
    torch.manual_seed(0)
    x, y = torch.ones(5), torch.zeros(3)
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    bce_formula = loss.grad_fn.formula()
    assert bce_formula is not None and r"\sigma(z) - y" in bce_formula
    assert z.grad_fn.formula().startswith("f(x, y) = x + y")
    ((accumulate, _),) = [
        edge for edge in z.grad_fn.next_functions if isinstance(edge[0], AccumulateGrad)
    ]
    assert r"\mathrel{+}=" in accumulate.formula()


def test_a_custom_function_without_a_formula_gives_none():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return 2 * x

        @staticmethod
        def backward(ctx, grad_output):
            return 2 * grad_output

    out = Double.apply(torch.ones(2, requires_grad=True))
    assert out.grad_fn.formula() is None
