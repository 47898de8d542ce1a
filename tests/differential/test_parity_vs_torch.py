"""Parity with PyTorch where a careful learner found a different answer (issue 12):

* ``autograd.grad`` asked about a hooked non-leaf and a leaf: which gradient each
  gets, hooked or not, follows PyTorch's engine (a node that leads on to another
  input hands over the gradient before its hooks run; one that is only captured
  runs its tensor hooks and ``retain_grad`` first, not the node's pre-hooks).
"""

from __future__ import annotations

import zlib

import harness as H
import pytest
from harness import Program

PROGRAMS: list[Program] = []


def register(pid: str, fn, inputs=None, **options) -> None:
    PROGRAMS.append(
        Program(pid, fn, dict(inputs or {}), zlib.crc32(pid.encode()) % 100_000, **options)
    )


# ----------------------------------------------------------------------------- grad() and hooks

# Which tensors autograd.grad is asked about, of x (leaf) -> y = 2x -> z = 3y -> sum.
SELECTIONS = ("y", "x", "yx", "xy", "zy", "zyx")
# The hooks in place before the pass.
HOOKS = {
    "tensor-hook": {"y_hook": True},
    "tensor-and-leaf-hook": {"y_hook": True, "x_hook": True},
    "retain-grad": {"y_hook": True, "retain": True},
    "node-prehook": {"y_hook": True, "prehook": True},
    "node-prehook-alone": {"prehook": True},
    "output-hook": {"z_hook": True},
}


def _grad_with_hooks(
    selection: str, y_hook=False, x_hook=False, retain=False, prehook=False, z_hook=False
):
    def fn(lib, inp):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        if y_hook:
            y.register_hook(lambda g: g * 10)
        if retain:
            y.retain_grad()
        if x_hook:
            x.register_hook(lambda g: g * 100)
        if prehook:
            y.grad_fn.register_prehook(lambda grads: (grads[0] * 1000,))
        z = y * 3
        if z_hook:
            z.register_hook(lambda g: g * 7)
        chosen = [{"x": x, "y": y, "z": z}[name] for name in selection]
        grads = lib.autograd.grad(z.sum(), chosen)
        return {"grads": grads, "y_grad": y.grad if retain else None, "x_grad": x.grad}

    return fn


for _selection in SELECTIONS:
    for _name, _hooks in HOOKS.items():
        register(f"grad-capture/{_selection}-{_name}", _grad_with_hooks(_selection, **_hooks))


def _split_output_hooked(lib, inp):
    """A node with several outputs: one output hooked, asked about with the leaf."""
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a, b = (x * 2).split(2)
    a.register_hook(lambda g: g * 10)
    loss = (a * lib.tensor([1.0, 2.0])).sum() + (b * 3).sum()
    only_a = lib.autograd.grad(loss, [a], retain_graph=True)
    with_leaf = lib.autograd.grad(loss, [a, x])
    return {"only_a": only_a, "with_leaf": with_leaf}


register("grad-capture/split-output-hooked", _split_output_hooked)


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_parity_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_parity_live(prog):
    H.check_against_live_torch(prog)
