"""Parity with PyTorch where a careful learner found a different answer (issue 12):

* integer and bool arithmetic: ``//``, ``%``, ``torch.fmod``, ``torch.remainder``
  and ``torch.div(..., rounding_mode=)`` (and their methods and in-place forms)
  over int64, float32, float64 and bool operands, tensors and numbers, negative
  operands and zero divisors: values, result dtypes, PyTorch's refusals (bools,
  integer division by zero), gradients and ``grad_fn`` names;
* ``autograd.grad`` asked about a hooked non-leaf and a leaf: which gradient each
  gets, hooked or not, follows PyTorch's engine (a node that leads on to another
  input hands over the gradient before its hooks run; one that is only captured
  runs its tensor hooks and ``retain_grad`` first, not the node's pre-hooks);
* every operation of tests/test_warnings_grid.py at edge values (±inf, nan, ±0,
  overflowing and subnormal values) and on an empty tensor: values, gradients and
  warnings (PyTorch gives none).
"""

from __future__ import annotations

import sys
import warnings
import zlib
from pathlib import Path

import harness as H
import pytest
from harness import Program, attempt

# The grid of operations at edge values lives with its warnings test in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import test_warnings_grid as grid

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


# ----------------------------------------------------------------------------- integer arithmetic

NAN, INF = float("nan"), float("inf")
# Dividends and divisors with every sign combination, exact and inexact quotients,
# zeros, and for floats inf and nan.
INT_DIVIDENDS = [7, -7, 6, -6, 0, 1, -1, 5]
INT_DIVISORS = [2, 2, -4, -4, 3, -3, 1, -5]
FLOAT_DIVIDENDS = [7.0, -7.0, 5.5, -5.5, 0.0, -0.0, INF, -2.5, NAN, 3.0, -3.0, 1.0]
FLOAT_DIVISORS = [2.0, 2.0, -3.0, -3.0, 0.0, 2.0, 2.0, 0.0, 1.0, INF, INF, -INF]
BOOLS = ([True, False, True, False], [True, True, False, False])
DIVISIONS = {
    "floordiv": lambda lib, a, b: a // b,
    "mod": lambda lib, a, b: a % b,
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "div-floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "div-trunc": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
    "div-none": lambda lib, a, b: lib.div(a, b, rounding_mode=None),
    "method-div-trunc": lambda lib, a, b: a.div(b, rounding_mode="trunc"),
    "method-fmod": lambda lib, a, b: a.fmod(b),
}


def _operands(lib, dtype: str):
    if dtype == "bool":
        return lib.tensor(BOOLS[0]), lib.tensor(BOOLS[1])
    if dtype == "int64":
        return lib.tensor(INT_DIVIDENDS), lib.tensor(INT_DIVISORS)
    kind = getattr(lib, dtype)
    return lib.tensor(FLOAT_DIVIDENDS, dtype=kind), lib.tensor(FLOAT_DIVISORS, dtype=kind)


def _division_grid(op):
    """One operation over each dtype: tensor by tensor, by numbers of each kind
    (int, float, bool, negative, zero), by a 0-d tensor, and a number by a tensor."""

    def fn(lib, inp):
        out = {}
        for dtype in ("int64", "float32", "float64", "bool"):
            a, b = _operands(lib, dtype)
            out[dtype] = attempt(lambda a=a, b=b: op(lib, a, b))
            for name, number in [
                ("3", 3),
                ("-2", -2),
                ("2.5", 2.5),
                ("-0.5", -0.5),
                ("True", True),
                ("0", 0),
                ("0.0", 0.0),
            ]:
                out[f"{dtype}-by-{name}"] = attempt(lambda a=a, n=number: op(lib, a, n))
            out[f"{dtype}-by-0d"] = attempt(lambda a=a: op(lib, a, lib.tensor(-3)))
            out[f"{dtype}-by-0d-float"] = attempt(lambda a=a: op(lib, a, lib.tensor(1.5)))
            out[f"int-by-{dtype}"] = attempt(
                lambda b=b: op(lib, lib.tensor(INT_DIVIDENDS[:4]), b[:4])
            )
        return out

    return fn


for _name, _op in DIVISIONS.items():
    register(f"arith/grid/{_name}", _division_grid(_op))


def _numbers_first(lib, inp):
    """A number divided by a tensor (``7 // t``, ``7 % t``, ``torch.div(7, t, ...)``)."""
    ints, floats, bools = (
        lib.tensor([2, -3, 4]),
        lib.tensor([2.0, -3.0, 0.0]),
        lib.tensor([True, True]),
    )
    out = {}
    for name, number in [("7", 7), ("-7.5", -7.5), ("True", True)]:
        for tname, t in [("int", ints), ("float", floats), ("bool", bools)]:
            out[f"{name}-floordiv-{tname}"] = attempt(lambda n=number, t=t: n // t)
            out[f"{name}-mod-{tname}"] = attempt(lambda n=number, t=t: n % t)
            out[f"{name}-remainder-{tname}"] = attempt(lambda n=number, t=t: lib.remainder(n, t))
            out[f"{name}-div-floor-{tname}"] = attempt(
                lambda n=number, t=t: lib.div(n, t, rounding_mode="floor")
            )
    return out


register("arith/numbers-first", _numbers_first)


def _division_errors(lib, inp):
    i = lib.tensor([7, -7])
    return {
        "bad-mode": attempt(lambda: lib.div(i, 2, rounding_mode="round")),
        "mode-not-a-str": attempt(lambda: lib.div(i, 2, rounding_mode=3)),
        "fmod-number-first": attempt(lambda: lib.fmod(2, i)),
        "fmod-float-first": attempt(lambda: lib.fmod(2.0, i)),
        "fmod-of-str": attempt(lambda: lib.fmod(i, "a")),
        "int-floordiv-zero-tensor": attempt(
            lambda: lib.div(i, lib.tensor([1, 0]), rounding_mode="floor")
        ),
        "int-fmod-zero-tensor": attempt(lambda: lib.fmod(i, lib.tensor([0, 1]))),
    }


register("arith/errors", _division_errors)


def _inplace_divisions(lib, inp):
    def run(dtype, method, *args, **kwargs):
        t = lib.tensor([7, -7, 5, -6], dtype=getattr(lib, dtype))
        result = attempt(lambda: getattr(t, method)(*args, **kwargs))
        return {"t": t, "same": result is t if isinstance(result, lib.Tensor) else result}

    out = {}
    for dtype in ("int64", "float32"):
        out[f"{dtype}-div-floor"] = run(dtype, "div_", 2, rounding_mode="floor")
        out[f"{dtype}-div-trunc-tensor"] = run(
            dtype, "div_", lib.tensor([2, -2, 3, 4]), rounding_mode="trunc"
        )
        out[f"{dtype}-div-floor-float"] = run(dtype, "div_", 2.5, rounding_mode="floor")
        out[f"{dtype}-div-none"] = run(dtype, "div_", 2, rounding_mode=None)
        out[f"{dtype}-fmod"] = run(dtype, "fmod_", -3)
        out[f"{dtype}-fmod-float"] = run(dtype, "fmod_", 2.5)
        out[f"{dtype}-remainder"] = run(dtype, "remainder_", -3)
        out[f"{dtype}-remainder-zero"] = run(dtype, "remainder_", 0)
        out[f"{dtype}-ifloordiv"] = run(dtype, "__ifloordiv__", 3)
        out[f"{dtype}-imod"] = run(dtype, "__imod__", lib.tensor(-4))
    return out


register("arith/in-place", _inplace_divisions)


def _division_gradients(lib, inp):
    """Gradients and grad_fn names: fmod and remainder pass the gradient to the
    dividend and −trunc(a/b) / −⌊a/b⌋ times it to the divisor; a rounded div has a
    zero gradient for both (DivBackward2, also for rounding_mode=None)."""
    out = {}
    weights = [1.0, 2.0, 3.0, 4.0, 5.0]
    for name, op in DIVISIONS.items():
        if name in ("floordiv",):
            continue
        a = lib.tensor([7.0, -7.0, 5.5, -5.5, 3.0], requires_grad=True)
        b = lib.tensor([2.0, 2.0, -3.0, -3.0, 0.0], requires_grad=True)
        y = op(lib, a, b)
        (y * lib.tensor(weights)).sum().backward()
        c = lib.tensor([7.0, -7.0, 5.5, -5.5, 3.0], requires_grad=True)
        by_number = op(lib, c, 2.5)
        (by_number * lib.tensor(weights)).sum().backward()
        out[name] = {"y": y, "a": a, "b": b, "by_number": by_number, "c": c}
    return out


register("arith/gradients", _division_gradients)


def _division_double_backward(lib, inp):
    out = {}
    for name in ("fmod", "remainder", "div-floor"):
        a = lib.tensor([7.0, -5.5, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([2.0, -3.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = DIVISIONS[name](lib, a, b)
        ga, gb = lib.autograd.grad((y * y).sum(), [a, b], create_graph=True)
        second = attempt(lambda ga=ga, a=a: lib.autograd.grad(ga.sum(), a, allow_unused=True))
        out[name] = {"ga": ga, "gb": gb, "second": second}
    return out


register("arith/double-backward", _division_double_backward)


# ----------------------------------------------------------------------------- a leaf's .grad, held


def _leaf_grad_under_create_graph(lib, inp):
    """backward(create_graph=True) stores a recorded copy as .grad (CopyBackwards),
    not the gradient itself; a later plain backward adds into that same tensor."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's reference-cycle warning
        x = lib.tensor(2.0, requires_grad=True)
        (x**3).backward(create_graph=True)
        first = x.grad
        first_record = {"grad": first, "version": first._version}
        first.backward()  # d(3x^2)/dx added into x.grad, in place
        g = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        leaf = lib.tensor([1.0, 1.0, 1.0], requires_grad=True)
        leaf.backward(g, create_graph=True)
        mixed = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        (mixed.float() * w).sum().backward(create_graph=True)
    return {
        "first": first_record,
        "after_second_backward": {"grad": x.grad, "same_tensor": x.grad is first},
        "held_first": first,
        "root_gradient": {"grad": leaf.grad, "is_g": leaf.grad is g},
        "mixed_dtypes": {"mixed": mixed.grad, "w": w.grad},
    }


register("leaf-grad/create-graph-copy", _leaf_grad_under_create_graph)


def _custom_backward_keeps_its_gradient(lib, inp):
    """A custom Function's backward returns a tensor it keeps and changes later:
    .grad is a copy, as in PyTorch."""
    kept = {}

    class Keep(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, grad_output):
            kept["grad"] = lib.full((3,), 7.0)
            return kept["grad"]

    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Keep.apply(x).sum().backward()
    kept["grad"] += 1
    return {"x_grad": x.grad, "kept": kept["grad"]}


register("leaf-grad/custom-backward-keeps-its-gradient", _custom_backward_keeps_its_gradient)


# ----------------------------------------------------------------------------- edge values, silently

EDGE_VALUES = [INF, -INF, NAN, 0.0, -0.0, -1.0, 3e38, -3e38, 1e-45, 1e-40, 1.0, 0.5]


# Wrong gradients at edge values found by these programs, not fixed yet (and why).
WRONG_AT_EDGES: dict[str, str] = {}


def _at_edges(name: str, dtype: str):
    """An operation of tests/test_warnings_grid.py at every edge value at once:
    values, gradients and warnings (none, in PyTorch) compared."""

    def fn(lib, inp):
        x = lib.tensor(EDGE_VALUES, dtype=getattr(lib, dtype), requires_grad=True)
        y = grid.OPS[name](lib, x)
        backward = attempt(lambda: y.sum().backward())
        empty = lib.zeros(0, dtype=getattr(lib, dtype), requires_grad=True)
        return {
            "y": y,
            "x": x,
            "backward": backward,
            "of_empty": attempt(lambda: grid.OPS[name](lib, empty)),
        }

    return fn


# big-outer (a 128 x 128 product) only in the grid: its record would be megabytes.
for _name in sorted(set(grid.OPS) - {"big-outer"}):
    for _dtype in ("float32", "float64"):
        _pid = f"quiet/{_name}-{_dtype}"
        register(_pid, _at_edges(_name, _dtype), xfail=WRONG_AT_EDGES.get(_pid))


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_parity_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_parity_live(prog):
    H.check_against_live_torch(prog)
