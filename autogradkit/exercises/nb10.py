"""Checkers for notebook 10, "Saved tensors"."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import Tensor, float32, float64, tensor
from ..autograd.graph import saved_tensors_hooks
from . import exercise, expect

__all__ = ["check_exercise_1", "check_exercise_2", "check_exercise_3"]


def _packed_by(f: Callable[..., Tensor], *inputs: Tensor) -> list[Tensor]:
    """The tensors the graph of ``f(*inputs)`` keeps for backward, as packed."""
    packed: list[Tensor] = []

    def keep(t: Tensor) -> Tensor:
        packed.append(t)
        return t

    fresh = [x.detach().requires_grad_() for x in inputs]
    with saved_tensors_hooks(keep, lambda t: t):
        f(*fresh)
    return packed


@exercise(
    1,
    "write a pack hook that counts its calls and returns its input unchanged, and an "
    "unpack hook that returns what it gets. Run g on x and w inside "
    "saved_tensors_hooks with them; no backward is needed: packing happens in the "
    "forward pass.",
)
def check_exercise_1(answer: object, f: Callable[..., Tensor], x: Tensor, w: Tensor) -> str:
    expect(
        isinstance(answer, int) and not isinstance(answer, bool),
        f"give an int, not {type(answer).__name__}.",
    )
    packed = _packed_by(f, x, w)
    expect(
        answer != len(packed) - 1,
        f"{answer} is one short: the product h * w needs both of its operands, since "
        "its derivative with respect to each one is the other.",
    )
    expect(
        answer == len(packed),
        f"{answer} is not it. Count again with the hook: sin keeps its input, exp its "
        "result; what do the product and the sum need?",
    )
    return (
        f"{len(packed)} tensors: x for sin, exp's result, and both operands of the "
        "product. The sum keeps only a shape."
    )


@exercise(
    2,
    "the pack hook gets a float64 tensor and should return a float32 copy of its "
    "values (detached: the copy needs no history); the unpack hook converts it back "
    "to float64. Give the two functions as a pair.",
)
def check_exercise_2(answer: object) -> str:
    expect(
        isinstance(answer, tuple) and len(answer) == 2 and all(map(callable, answer)),
        "give a pair of functions: (pack, unpack).",
    )
    assert isinstance(answer, tuple)
    pack, unpack = answer
    x = tensor([0.3, -1.2, 2.5, 0.7], dtype=float64, requires_grad=True)
    sample = pack(x.detach().clone())
    expect(
        isinstance(sample, Tensor) and sample.dtype == float32,
        f"pack returned {_described(sample)}: keep a float32 tensor (4 bytes per "
        "element instead of 8).",
    )
    back = unpack(sample)
    expect(
        isinstance(back, Tensor) and back.dtype == float64,
        f"unpack returned {_described(back)}: give backward a float64 tensor again.",
    )
    with saved_tensors_hooks(pack, unpack):
        loss = (x.sin() * x.exp()).sum()
    loss.backward()
    assert x.grad is not None
    exact = np.cos(x.detach().numpy()) * np.exp(x.detach().numpy())
    exact += np.sin(x.detach().numpy()) * np.exp(x.detach().numpy())
    expect(
        np.allclose(x.grad.numpy(), exact, rtol=1e-6),
        "the gradient is off by more than float32 rounding: does unpack give back "
        "the values pack kept?",
    )
    return (
        "half the bytes kept between forward and backward; the gradient agrees with "
        "the exact one to about 7 digits, float32's precision."
    )


def _described(value: object) -> str:
    if isinstance(value, Tensor):
        return f"a tensor of dtype {value.dtype}"
    return f"a {type(value).__name__}"


@exercise(
    3,
    "sigmoid keeps its output for backward, and the in-place multiplication changes "
    "that very tensor. Multiply out of place instead: a new tensor, and the saved "
    "one stays as it was.",
)
def check_exercise_3(answer: object) -> str:
    expect(callable(answer), f"give a function, not {type(answer).__name__}.")
    assert callable(answer)
    values = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    v = tensor(values, requires_grad=True)
    out = answer(v)
    expect(isinstance(out, Tensor), f"it returned {_described(out)}, not a tensor.")
    s = 1 / (1 + np.exp(-values))
    expect(
        np.allclose(out.detach().numpy(), 2 * s.sum(), rtol=1e-5),
        "it should return the same number as before: twice the sum of the sigmoids.",
    )
    expect(out.grad_fn is not None, "no graph leads back to v: was something detached?")
    try:
        out.backward()
    except RuntimeError as error:
        expect(False, f"backward still fails: {str(error)[:70]}...")
    expect(
        v.grad is not None and np.allclose(v.grad.numpy(), 2 * s * (1 - s), rtol=1e-5),
        "backward runs, but v.grad is not 2·σ(v)·(1 − σ(v)).",
    )
    return "backward reads sigmoid's output unchanged (its version is still 0)."
