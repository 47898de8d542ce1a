"""The exercises' checkers (autogradkit.exercises): a hint while there is no answer,
"Not yet" for a wrong one, "Correct" for the solution; in grading mode a missing or
wrong answer fails. Each right answer is the solution cell's own code, run here on
the notebook's data; each hint is checked not to contain the solution's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import autogradkit as torch
from autogradkit.exercises import (
    nb01,
    nb02,
    nb03,
    nb04,
    nb05,
    nb06,
    nb07,
    nb08,
    nb09,
    nb10,
)

nbformat = pytest.importorskip("nbformat")
SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def network():
    torch.manual_seed(0)
    x, y = torch.ones(5), torch.zeros(3)
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    return x, y, w, b


def model(value):
    out = value
    while out < 100:
        out = out * out
    return out.log() if out > 1000 else out / 10


W = torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])


def g(x):
    return torch.matmul(W, x).pow(2)


class Cube(torch.autograd.Function):
    """Notebook 8's solution to exercise 1."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class CubeWithSquaresSlope(Cube):
    """A wrong backward: the derivative of x² instead of x³."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


class SumAndProduct(torch.autograd.Function):
    """Notebook 8's solution to exercise 2."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x + y, x * y

    @staticmethod
    def backward(ctx, grad_sum, grad_product):  # type: ignore[override]  # one per output
        x, y = ctx.saved_tensors
        return grad_sum + grad_product * y, grad_sum + grad_product * x


class SumAndProductSumOnly(SumAndProduct):
    """A wrong backward: the product's gradient is forgotten."""

    @staticmethod
    def backward(ctx, grad_sum, grad_product):  # type: ignore[override]  # one per output
        return grad_sum, grad_sum


def curve(t):
    return torch.stack([torch.cos(t), torch.sin(t), t * t, torch.exp(-t)])


def f2(x1, x2, x3):
    a = x1 * x2
    return a + torch.sin(x1), a * x3


def forward_jacobian(f, inputs):
    """Notebook 9's solution to exercise 3: one forward pass per input, a column each."""
    fwAD = torch.autograd.forward_ad
    columns = []
    for j in range(len(inputs)):
        with fwAD.dual_level():
            duals = [
                fwAD.make_dual(x, torch.tensor(1.0 if k == j else 0.0))
                for k, x in enumerate(inputs)
            ]
            columns.append(torch.stack([fwAD.unpack_dual(y).tangent for y in f(*duals)]))
    return torch.stack(columns, dim=1)


def curve_derivatives(t0):
    """Notebook 9's solution to exercise 1: one forward pass."""
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.unpack_dual(curve(fwAD.make_dual(t0, torch.tensor(1.0)))).tangent


def g10(x, w):
    """Notebook 10's function of exercise 1."""
    return (x.sin().exp() * w).sum()


def pack_float32(t):
    """Notebook 10's solution to exercise 2: keep a float32 copy..."""
    return t.detach().to(torch.float32)


def unpack_float64(t):
    """... and give backward float64 again."""
    return t.to(torch.float64)


def broken_doubled_sigmoid_sum(v):
    """Notebook 10's exercise 3: changes sigmoid's saved output in place."""
    s = v.sigmoid()
    s.mul_(2)
    return s.sum()


def doubled_sigmoid_sum(v):
    """Notebook 10's solution to exercise 3."""
    s = v.sigmoid()
    s = s * 2
    return s.sum()


def cases():
    """(id, checker, right answer, wrong answer, context) for every exercise."""
    x, y, w, b = network()
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    assert loss.grad_fn is not None
    s, t = torch.tensor([2.0, -1.0]), torch.tensor([1.0, 0.0])
    dz = (torch.sigmoid(z.detach()) - y) / 3
    a = torch.tensor(1.5, requires_grad=True)
    u = a * 2
    v = u.tanh()
    out = u * v
    x0 = torch.tensor([1.0, 0.5, -1.0])
    x10 = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    w10 = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
    t0 = torch.tensor(0.3)
    xs = (torch.tensor(0.5), torch.tensor(2.0), torch.tensor(-1.0))
    right_bce = torch.nn.functional.binary_cross_entropy_with_logits(s, t).item()
    return [
        ("01.1", nb01.check_exercise_1, {"w", "b"}, {"w", "b", "z"}, ()),
        ("01.2", nb01.check_exercise_2, loss.grad_fn.next_functions[0][0], loss.grad_fn, (z,)),
        ("01.3", nb01.check_exercise_3, right_bce, -right_bce, (s, t)),
        ("02.1", nb02.check_exercise_1, 2 * w, w, (w,)),
        ("02.2", nb02.check_exercise_2, dz, 2 * dz, (x, w, b, y)),
        ("02.3", nb02.check_exercise_3, 2 * dz, dz, (x, w, b, y)),
        ("03.1", nb03.check_exercise_1, (x @ w + b).detach(), x @ w + b, (x, w, b)),
        ("03.2", nb03.check_exercise_2, (False, True, False), (False, False, False), ()),
        ("04.1", nb04.check_exercise_1, "b", "w", (x, w, b, y)),
        ("04.2", nb04.check_exercise_2, 5, 4, (model,)),
        ("04.3", nb04.check_exercise_3, u, a, (a, u, v, out)),
        ("05.1", nb05.check_exercise_1, 12, 4, ()),
        ("05.2", nb05.check_exercise_2, torch.tensor([12.0, 17.0, 21.0]), torch.ones(3), (g, x0)),
        ("05.3", nb05.check_exercise_3, torch.tensor([12.0, -14.0]), torch.ones(2), (g, x0)),
        ("06.1", nb06.check_exercise_1, -0.7268619, 0.7864477, ()),
        ("06.2", nb06.check_exercise_2, 2.9999572, 5.1757599, ()),
        ("07.1", nb07.check_exercise_1, 121, 104, ()),
        ("07.2", nb07.check_exercise_2, 2.0799999, 1.72, ()),
        ("08.1", nb08.check_exercise_1, Cube, CubeWithSquaresSlope, ()),
        ("08.2", nb08.check_exercise_2, SumAndProduct, SumAndProductSumOnly, ()),
        ("08.3", nb08.check_exercise_3, 9.0, 6.75, ()),
        ("09.1", nb09.check_exercise_1, curve_derivatives(t0), curve(t0), (curve, t0)),
        ("09.2", nb09.check_exercise_2, (13, 3), (3, 2), ()),
        (
            "09.3",
            nb09.check_exercise_3,
            forward_jacobian(f2, xs),
            forward_jacobian(f2, xs).t(),
            (f2, xs),
        ),
        ("10.1", nb10.check_exercise_1, 4, 3, (g10, x10, w10)),
        ("10.2", nb10.check_exercise_2, (pack_float32, unpack_float64), (abs, abs), ()),
        ("10.3", nb10.check_exercise_3, doubled_sigmoid_sum, broken_doubled_sigmoid_sum, ()),
    ]


CASES = cases()
IDS = [case[0] for case in CASES]


def _fits(text: str) -> bool:
    """No line longer than JupyterLab's output area holds at 1100 px (about 85
    characters; a longer one is wrapped mid-word)."""
    return all(len(line) <= 80 for line in text.splitlines())


@pytest.mark.parametrize(("name", "check", "right", "wrong", "context"), CASES, ids=IDS)
def test_learning_mode(capsys, monkeypatch, name, check, right, wrong, context):
    monkeypatch.delenv("AUTOGRADKIT_GRADING", raising=False)
    check(None, *context)
    said = capsys.readouterr().out
    assert said.startswith("Hint: ") and _fits(said), said
    check(wrong, *context)
    said = capsys.readouterr().out
    assert said.startswith("Not yet: ") and _fits(said), said
    check(right, *context)
    said = capsys.readouterr().out
    assert said.startswith("Correct: ") and _fits(said), said


@pytest.mark.parametrize(("name", "check", "right", "wrong", "context"), CASES, ids=IDS)
def test_grading_mode_fails_without_an_answer_and_on_a_wrong_one(
    capsys, monkeypatch, name, check, right, wrong, context
):
    with pytest.raises(AssertionError, match="no answer given"):
        check(None, *context, grading=True)
    with pytest.raises(AssertionError, match=r"^Exercise \d: "):
        check(wrong, *context, grading=True)
    monkeypatch.setenv("AUTOGRADKIT_GRADING", "1")  # as an autograder sets it
    with pytest.raises(AssertionError, match="no answer given"):
        check(None, *context)
    check(right, *context)
    check(right, *context, grading=True)
    assert capsys.readouterr().out == ""  # a right answer passes silently
    check(right, *context, grading=False)
    assert capsys.readouterr().out.startswith("Correct: ")


def _solution_lines() -> dict[str, list[str]]:
    """The code lines of each solution cell, by exercise ("01.1")."""
    found = {}
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        number = 0
        for cell in nb.cells:
            if "solution" in cell.metadata.get("tags", []):
                number += 1
                lines = [line.strip() for line in cell.source.splitlines()]
                found[f"{path.name[:2]}.{number}"] = [
                    line
                    for line in lines
                    if line and not line.startswith(("#", "check_exercise")) and len(line) > 8
                ]
    return found


@pytest.mark.parametrize(("name", "check", "right", "wrong", "context"), CASES, ids=IDS)
def test_hints_guide_without_the_solutions_code(
    capsys, monkeypatch, name, check, right, wrong, context
):
    monkeypatch.delenv("AUTOGRADKIT_GRADING", raising=False)
    check(None, *context)
    raw = capsys.readouterr().out
    hint = re.sub(r"\s+", "", raw)
    lines = _solution_lines()[name]
    assert lines, f"no solution found for exercise {name}"
    for line in lines:
        assert re.sub(r"\s+", "", line) not in hint, f"the hint of {name} gives away {line!r}"
    # Nor any expression of the answer (a call with arguments, an assignment).
    assert not re.search(r"\w\(\w[^)]*\)|\banswer\d\s*=", raw), f"code in the hint of {name}"


def test_every_exercise_of_the_notebooks_is_covered():
    assert sorted(_solution_lines()) == sorted(IDS)
