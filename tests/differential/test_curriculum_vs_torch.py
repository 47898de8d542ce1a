"""What learners meet after the first autograd tutorial, against PyTorch: the
elementary functions (forward, backward and double backward), softmax and its
relatives, products, running sums, norms, selections, creation functions, devices
and legacy names.

Each ``op`` program builds leaves from seeded inputs, applies one operation and
runs backward; ``op2`` programs also differentiate the gradient again
(``create_graph=True``), which checks the graph the backward pass records.
The harness compares values, dtypes, graphs, gradients, errors and reprs.
"""

from __future__ import annotations

import math
import zlib

import harness as H
import pytest
from harness import Inp, Program, attempt

PROGRAMS: list[Program] = []
H.import_torch_jvp_decompositions()  # (their first import warns: see there)
F32, F64 = "float32", "float64"
FLOATS = (F32, F64)


def _seed(pid: str) -> int:
    return zlib.crc32(pid.encode()) % 100_000


def register(pid: str, fn, inputs=None, **options) -> None:
    pid = "curriculum/" + pid
    PROGRAMS.append(Program(pid, fn, dict(inputs or {}), _seed(pid), **options))


def op(pid: str, f, inputs: dict, grad=None, **options) -> None:
    """``y = f(lib, **leaves)``, then ``y.backward(v)`` for a fixed random ``v``."""
    if grad is None:
        grad = tuple(n for n, i in inputs.items() if i.dtype.startswith("float"))
    seed = _seed("curriculum/" + pid)

    def prog(lib, inp):
        t = H.leaves(lib, inp, grad)
        y = f(lib, **t)
        H.backward_outputs(lib, y, seed, "gradient")
        return {"y": y, **t}

    register(pid, prog, inputs, **options)


def op2(pid: str, f, inputs: dict, **options) -> None:
    """Second derivative: g = ∂(Σ v⊙f(x))/∂x recorded with create_graph, then
    Σ g is differentiated again into x.grad."""
    seed = _seed("curriculum/" + pid)

    def prog(lib, inp):
        x = lib.tensor(inp["x"], requires_grad=True)
        y = f(lib, x)
        v = H.weight_like(lib, y, seed)
        (g,) = lib.autograd.grad((y * v).sum(), x, create_graph=True)
        g.sum().backward()
        return {"y": y, "g": g, "x": x}

    register(pid, prog, inputs, ignore_graph=True, **options)


# ----------------------------------------------------------------------------- elementary

ELEMENTARY = {
    # name: input kind (a domain where the function and its derivative are finite)
    "sin": "normal",
    "cos": "normal",
    "tan": "unit",
    "asin": "unit",
    "acos": "unit",
    "atan": "normal",
    "sinh": "normal",
    "cosh": "normal",
    "log1p": "positive",
    "expm1": "normal",
    "log2": "positive",
    "log10": "positive",
    "exp2": "normal",
    "rsqrt": "positive",
    "reciprocal": "nonzero",
    "square": "normal",
    "sign": "halves",
    "floor": "normal",
    "ceil": "normal",
    "round": "normal",
    "trunc": "normal",
    "frac": "normal",
    "erfinv": "unit",
}
SMOOTH = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "log1p", "expm1"}
SMOOTH |= {"log2", "log10", "exp2", "rsqrt", "reciprocal", "square", "frac", "erfinv"}

for name, kind in ELEMENTARY.items():
    for dt in FLOATS:
        op(
            f"{name}-fn-{dt}",
            lambda lib, x, name=name: getattr(lib, name)(x),
            {"x": Inp((2, 3), dt, kind)},
        )
    op(f"{name}-method", lambda lib, x, name=name: getattr(x, name)(), {"x": Inp((4,), F32, kind)})
    op(f"{name}-0d", lambda lib, x, name=name: getattr(x, name)(), {"x": Inp((), F64, kind)})
    if name in SMOOTH:
        op2(
            f"{name}-double-backward",
            lambda lib, x, name=name: getattr(lib, name)(x),
            {"x": Inp((3,), F64, kind)},
        )
    if name not in ("reciprocal", "square", "frac", "rsqrt", "exp2"):
        register(
            f"{name}-of-int",
            lambda lib, inp, name=name: getattr(lib, name)(lib.tensor(inp["i"]).abs() + 1),
            {"i": Inp((4,), "int64", "int")},
        )

op("round-decimals", lambda lib, x: lib.round(x, decimals=2), {"x": Inp((5,), F64)})
op("round-halves-to-even", lambda lib, x: x.round(), {"x": Inp((9,), F32, "halves")})
op("trig-identity", lambda lib, x: x.sin() ** 2 + x.cos() ** 2, {"x": Inp((5,), F64)})
op("sinh-cosh-chain", lambda lib, x: lib.tanh(x).cosh() * lib.sinh(x), {"x": Inp((4,), F32)})


def _inplace(name: str, *args):
    def f(lib, x):
        y = x * 1
        out = getattr(y, name + "_")(*args)
        return (y, out is y)

    return f


for name, kind, args in (
    ("sin", "normal", ()),
    ("cos", "normal", ()),
    ("exp", "normal", ()),
    ("log", "positive", ()),
    ("sqrt", "positive", ()),
    ("tanh", "normal", ()),
    ("sigmoid", "normal", ()),
    ("relu", "nonzero", ()),
    ("abs", "nonzero", ()),
    ("neg", "normal", ()),
    ("pow", "positive", (2,)),
    ("clamp", "normal", (-0.5, 0.5)),
    ("floor", "normal", ()),
):
    op(f"inplace-{name}_", _inplace(name, *args), {"x": Inp((5,), F32, kind)})


def register_program(pid: str, inputs=None):
    """Decorator: register ``fn(lib, inputs)`` as program ``curriculum/<pid>``."""

    def decorate(fn):
        register(pid, fn, inputs)
        return fn

    return decorate


@register_program("inplace-on-leaf-error", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    return attempt(lambda: x.sin_())


@register_program("inplace-under-no_grad", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    with lib.no_grad():
        x.cos_()
    return {"x": x, "version": x._version}


# ----------------------------------------------------------------------------- softmax & co.

for dt in FLOATS:
    for dim in (0, 1, -1):
        op(
            f"softmax-dim{dim}-{dt}",
            lambda lib, x, dim=dim: lib.softmax(x, dim=dim),
            {"x": Inp((2, 3), dt)},
        )
        op(
            f"log_softmax-dim{dim}-{dt}",
            lambda lib, x, dim=dim: lib.log_softmax(x, dim),
            {"x": Inp((2, 3), dt)},
        )
    op(f"logsumexp-{dt}", lambda lib, x: lib.logsumexp(x, 1), {"x": Inp((2, 3), dt)})
    op(
        f"logsumexp-keepdim-{dt}",
        lambda lib, x: x.logsumexp(dim=0, keepdim=True),
        {"x": Inp((2, 3), dt)},
    )
op("softmax-method", lambda lib, x: x.softmax(-1), {"x": Inp((3, 4), F32)})
op("softmax-F", lambda lib, x: lib.nn.functional.softmax(x, dim=0), {"x": Inp((4,), F32)})
op("log_softmax-F", lambda lib, x: lib.nn.functional.log_softmax(x, dim=1), {"x": Inp((2, 4), F32)})
op("softmax-extreme", lambda lib, x: lib.softmax(x, 0), {"x": Inp((4,), F32, "extreme")})
op("log_softmax-extreme", lambda lib, x: lib.log_softmax(x, 0), {"x": Inp((4,), F32, "extreme")})
op("logsumexp-extreme", lambda lib, x: lib.logsumexp(x, 0), {"x": Inp((4,), F64, "extreme")})
op("softmax-implicit-dim", lambda lib, x: lib.nn.functional.softmax(x), {"x": Inp((2, 3), F32)})
op2("softmax-double-backward", lambda lib, x: lib.softmax(x, 0), {"x": Inp((4,), F64)})
op2("log_softmax-double-backward", lambda lib, x: lib.log_softmax(x, 0), {"x": Inp((4,), F64)})
op2("logsumexp-double-backward", lambda lib, x: lib.logsumexp(x, 0), {"x": Inp((4,), F64)})

# ----------------------------------------------------------------------------- prod, cumsum, norm

for dt in FLOATS:
    op(f"prod-{dt}", lambda lib, x: x.prod(), {"x": Inp((2, 3), dt, "nonzero")})
    op(f"prod-dim-{dt}", lambda lib, x: lib.prod(x, 1), {"x": Inp((2, 3), dt, "nonzero")})
    op(f"cumsum-{dt}", lambda lib, x: x.cumsum(0), {"x": Inp((3, 2), dt)})
    op(f"cumsum-last-{dt}", lambda lib, x: lib.cumsum(x, dim=-1), {"x": Inp((3, 2), dt)})
    op(f"norm-{dt}", lambda lib, x: x.norm(), {"x": Inp((2, 3), dt)})
    op(f"norm-dim-{dt}", lambda lib, x: lib.norm(x, dim=1), {"x": Inp((2, 3), dt)})
for dt in FLOATS:
    op(f"cumprod-{dt}", lambda lib, x: x.cumprod(1), {"x": Inp((2, 4), dt, "nonzero")})
    op(
        f"cumprod-with-zeros-{dt}",
        lambda lib, x: lib.cumprod(x, dim=-1),
        {"x": Inp((3, 5), dt, "ties")},
    )
op("cumprod-dim0-zeros", lambda lib, x: x.cumprod(0), {"x": Inp((5, 2), F64, "ties")})
op("cumprod-0d", lambda lib, x: x.cumprod(0), {"x": Inp((), F64)})
op("cumprod-dtype", lambda lib, x: x.cumprod(0, dtype=lib.float64), {"x": Inp((4,), F32)})
op2(
    "cumprod-double-backward",
    lambda lib, x: x.cumprod(0) * lib.arange(1.0, 5.0, dtype=lib.float64),
    {"x": Inp((4,), F64, "nonzero")},
)
register(
    "cumprod-ints-and-errors",
    lambda lib, inp: {
        "int": lib.tensor([1, 2, 3, -2]).cumprod(0),
        "bool": lib.tensor([True, True, False]).cumprod(0),
        "no-dim": attempt(lambda: lib.ones(3).cumprod()),
        "dim-out-of-range": attempt(lambda: lib.ones(3).cumprod(1)),
    },
)
op("prod-keepdim", lambda lib, x: x.prod(0, keepdim=True), {"x": Inp((2, 3), F64, "nonzero")})
op("prod-with-a-zero", lambda lib, x: x.prod(), {"x": Inp((5,), F64, "ties")})
op("prod-dim-with-zeros", lambda lib, x: x.prod(1), {"x": Inp((3, 4), F64, "ties")})
op("norm-p1", lambda lib, x: x.norm(p=1), {"x": Inp((4,), F64, "nonzero")})
op("norm-p3-keepdim", lambda lib, x: x.norm(3, dim=0, keepdim=True), {"x": Inp((2, 3), F64)})
op("norm-fro", lambda lib, x: lib.norm(x, p="fro"), {"x": Inp((2, 2), F32)})
op("norm-of-zeros", lambda lib, x: (x * 0).norm(), {"x": Inp((3,), F32)})
op2("prod-double-backward", lambda lib, x: x.prod(), {"x": Inp((3,), F64, "nonzero")})
op2("cumsum-double-backward", lambda lib, x: x.cumsum(0) ** 2, {"x": Inp((4,), F64)})
op2("norm-double-backward", lambda lib, x: x.norm(), {"x": Inp((3,), F64)})
for dt in FLOATS:
    op(f"norm-inf-{dt}", lambda lib, x: x.norm(p=math.inf), {"x": Inp((2, 3), dt)})
    op(f"norm-minus-inf-{dt}", lambda lib, x: lib.norm(x, -math.inf), {"x": Inp((2, 3), dt)})
op("norm-inf-dim", lambda lib, x: x.norm(float("inf"), dim=1), {"x": Inp((3, 4), F64)})
op("norm-inf-keepdim", lambda lib, x: x.norm(math.inf, 0, True), {"x": Inp((3, 2), F32)})
op("norm-inf-ties", lambda lib, x: x.norm(p=math.inf), {"x": Inp((6,), F64, "ties")})
op("norm-minus-inf-ties", lambda lib, x: x.norm(-math.inf, dim=0), {"x": Inp((3, 2), F64, "ties")})


def _optimizer_trace(lib, make, steps=4):
    """The parameters after each of ``steps`` optimiser steps on a small quadratic,
    and the optimiser's state names at the end."""
    w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    b = lib.tensor(0.25, requires_grad=True)
    optimizer = make([w, b])
    trace = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = ((w * (step + 1) - 1) ** 2).sum() + (b - 2 * w.sum()) ** 2
        loss.backward()
        optimizer.step()
        trace.append((w.detach().clone(), b.detach().clone()))
    return {"trace": trace, "state": sorted(optimizer.state[w])}


register(
    "rmsprop-centered",
    lambda lib, inp: _optimizer_trace(lib, lambda p: lib.optim.RMSprop(p, lr=0.05, centered=True)),
)
register(
    "rmsprop-centered-momentum",
    lambda lib, inp: _optimizer_trace(
        lib, lambda p: lib.optim.RMSprop(p, lr=0.02, momentum=0.9, centered=True, weight_decay=0.1)
    ),
)
register(
    "adam-amsgrad",
    lambda lib, inp: _optimizer_trace(lib, lambda p: lib.optim.Adam(p, lr=0.1, amsgrad=True)),
)
register(
    "adam-amsgrad-weight-decay",
    lambda lib, inp: _optimizer_trace(
        lib,
        lambda p: lib.optim.Adam(p, lr=0.3, betas=(0.5, 0.9), amsgrad=True, weight_decay=0.01),
        6,
    ),
)

register(
    "adamw",
    lambda lib, inp: _optimizer_trace(
        lib, lambda p: lib.optim.AdamW(p, lr=0.3, weight_decay=0.2), 6
    ),
)

# ----------------------------------------------------------------------------- var, std, amax, amin

for dt in FLOATS:
    op(f"std-{dt}", lambda lib, x: x.std(), {"x": Inp((2, 3), dt)})
    op(f"var-dim-{dt}", lambda lib, x: lib.var(x, 1), {"x": Inp((2, 3), dt)})
    op(f"amax-dim-{dt}", lambda lib, x: x.amax(1), {"x": Inp((3, 4), dt, "ties")})
    op(f"amin-all-{dt}", lambda lib, x: lib.amin(x), {"x": Inp((3, 4), dt, "ties")})
op(
    "std-dim-keepdim-biased",
    lambda lib, x: x.std(dim=0, keepdim=True, unbiased=False),
    {"x": Inp((3, 2), F64)},
)
op(
    "std-positional-unbiased-keepdim",
    lambda lib, x: lib.std(x, 1, True, True),
    {"x": Inp((2, 4), F32)},
)
op("std-unbiased-only", lambda lib, x: x.std(False), {"x": Inp((2, 3), F64)})
op("var-correction", lambda lib, x: x.var((0, 2), correction=2), {"x": Inp((2, 3, 2), F64)})
op(
    "var-correction-float",
    lambda lib, x: lib.var(x, dim=-1, correction=0.5, keepdim=True),
    {"x": Inp((2, 3), F32)},
)
op("var-1d-dim", lambda lib, x: x.var(0), {"x": Inp((5,), F64)})
op("var-0d", lambda lib, x: x.var(), {"x": Inp((), F64)})
op("std-of-equal-elements", lambda lib, x: (x * 0 + 1).std(1), {"x": Inp((2, 3), F64)})
op("var-no-degrees-of-freedom-dim", lambda lib, x: x.var(0, correction=3), {"x": Inp((2, 3), F64)})
op("var-no-degrees-of-freedom-all", lambda lib, x: x.var(correction=7), {"x": Inp((2, 3), F64)})
op("std-no-degrees-of-freedom", lambda lib, x: x.std(correction=6), {"x": Inp((2, 3), F64)})
op(
    "amax-dims-keepdim",
    lambda lib, x: lib.amax(x, (0, 2), True),
    {"x": Inp((2, 3, 2), F64, "ties")},
)
op("amax-empty-dims", lambda lib, x: x.amax(dim=()), {"x": Inp((2, 3), F64, "ties")})
op("amin-last-dim", lambda lib, x: x.amin(-1), {"x": Inp((2, 5), F32, "ties")})
op("amax-0d", lambda lib, x: x.amax(0), {"x": Inp((), F64)})
op("std_mean-dim-keepdim", lambda lib, x: lib.std_mean(x, 1, keepdim=True), {"x": Inp((2, 3), F32)})
op("std_mean-all-biased", lambda lib, x: lib.std_mean(x, unbiased=False), {"x": Inp((2, 3), F64)})
op(
    "var_mean-correction",
    lambda lib, x: lib.var_mean(x, dim=0, correction=0),
    {"x": Inp((3, 2), F64)},
)
op(
    "var_mean-only-the-mean-used",
    lambda lib, x: lib.var_mean(x, (0, 1))[1] * 3,
    {"x": Inp((2, 3), F64)},
)
op("std_mean-of-equal-elements", lambda lib, x: lib.std_mean(x * 0 + 2, 1), {"x": Inp((2, 3), F64)})
op2(
    "std_mean-double-backward",
    lambda lib, x: lib.std_mean(x)[0] * lib.std_mean(x)[1],
    {"x": Inp((4,), F64)},
)
register(
    "var_mean-std_mean-errors",
    lambda lib, inp: {
        "int": attempt(lambda: lib.std_mean(lib.tensor([1, 2]))),
        "int-var": attempt(lambda: lib.var_mean(lib.tensor([1, 2]))),
        "one-element": attempt(lambda: lib.var_mean(lib.tensor([1.0]))),
        "dim-out-of-range": attempt(lambda: lib.std_mean(lib.ones(2, 3), 2)),
    },
)
op2("var-double-backward", lambda lib, x: x.var(), {"x": Inp((4,), F64)})
op2("std-double-backward", lambda lib, x: x.std(0), {"x": Inp((4,), F64)})
op2("amax-double-backward", lambda lib, x: x.amax() ** 2, {"x": Inp((5,), F64, "ties")})


@register_program("std-var-amax-amin-ints-and-errors", {"i": Inp((2, 3), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    x = i.double().requires_grad_()
    return {
        "amax-int": i.amax(0),
        "amin-bool": (i > 0).amin(),
        "std-int": attempt(lambda: i.std()),
        "var-dim-out-of-range": attempt(lambda: x.var(2)),
        "amax-dim-out-of-range": attempt(lambda: x.amax(5)),
        "amax-repeated-dim": attempt(lambda: x.amax((0, 0))),
        "amax-empty": attempt(lambda: lib.zeros(0).amax()),
        "amax-empty-dim": attempt(lambda: lib.zeros(0, 3).amax(0)),
        "amin-empty-other-dim": attempt(lambda: lib.zeros(0, 3).amin(1)),
        "var-empty": attempt(lambda: lib.zeros(0).var()),
    }


# ----------------------------------------------------------------------------- masked_fill, flip, roll, tril, diag

for dt in FLOATS:
    op(f"masked_fill-{dt}", lambda lib, x: x.masked_fill(x > 0, 0.0), {"x": Inp((2, 3), dt)})
    op(f"flip-{dt}", lambda lib, x: lib.flip(x, (0, 1)), {"x": Inp((2, 3), dt)})
    op(f"roll-{dt}", lambda lib, x: x.roll(1, 1), {"x": Inp((2, 3), dt)})
    op(f"tril-{dt}", lambda lib, x: x.tril(), {"x": Inp((3, 3), dt)})
    op(f"triu-{dt}", lambda lib, x: lib.triu(x, 1), {"x": Inp((3, 4), dt)})
    op(
        f"index_select-{dt}",
        lambda lib, x: x.index_select(1, lib.tensor([2, 0, 2])),
        {"x": Inp((2, 3), dt)},
    )
    op(f"trace-{dt}", lambda lib, x: x.trace(), {"x": Inp((3, 3), dt)})
    op(f"diag-of-matrix-{dt}", lambda lib, x: lib.diag(x), {"x": Inp((3, 3), dt)})
    op(f"diag-of-vector-{dt}", lambda lib, x: x.diag(), {"x": Inp((3,), dt)})
op(
    "masked_fill-attention",
    lambda lib, x: x.masked_fill(lib.ones(3, 3).tril() == 0, float("-inf")).softmax(-1),
    {"x": Inp((3, 3), F32)},
)
op(
    "masked_fill-broadcast-mask",
    lambda lib, x: lib.masked_fill(x, lib.tensor([True, False, True]), 2.5),
    {"x": Inp((2, 3), F64)},
)
op(
    "masked_fill-mask-broadcasts-input",
    lambda lib, x: x.masked_fill(lib.ones(2, 3, dtype=lib.bool), 1.0),
    {"x": Inp((3,), F64)},
)
op(
    "masked_fill-tensor-value",
    lambda lib, x, v: x.masked_fill(x < 0, v),
    {"x": Inp((2, 3), F32), "v": Inp((), F64)},
)
op(
    "masked_fill-tensor-value-no-grad",
    lambda lib, x: x.masked_fill(x < 0, lib.tensor(3)),
    {"x": Inp((4,), F32)},
)
op(
    "masked_fill_-on-clone",
    lambda lib, x: x.clone().masked_fill_(x > 0, -1.0),
    {"x": Inp((2, 3), F64)},
)
op(
    "masked_fill_-tensor-value",
    lambda lib, x, v: x.clone().masked_fill_(x > 0, v),
    {"x": Inp((4,), F64), "v": Inp((), F64)},
)
op("flip-method-varargs", lambda lib, x: x.flip(0, -1), {"x": Inp((2, 3, 2), F64)})
op("flip-dims-keyword", lambda lib, x: x.flip(dims=[1]), {"x": Inp((2, 3), F32)})
op("flip-0d", lambda lib, x: x.flip(0), {"x": Inp((), F64)})
op("roll-flattened", lambda lib, x: lib.roll(x, 2), {"x": Inp((2, 3), F64)})
op("roll-several-dims", lambda lib, x: x.roll((1, -1), (0, 1)), {"x": Inp((2, 3), F64)})
op("roll-keywords", lambda lib, x: x.roll(shifts=-4, dims=-1), {"x": Inp((2, 3), F64)})
op("tril-negative-diagonal-batched", lambda lib, x: x.tril(-1), {"x": Inp((2, 3, 3), F64)})
op("tril_-on-clone", lambda lib, x: x.clone().tril_(1), {"x": Inp((3, 3), F64)})
op("triu_-on-clone", lambda lib, x: x.clone().triu_(), {"x": Inp((3, 2), F64)})
op(
    "index_select-dim0-0d-index",
    lambda lib, x: lib.index_select(x, 0, lib.tensor(1)),
    {"x": Inp((2, 3), F64)},
)
op("index_select-0d-input", lambda lib, x: x.index_select(0, lib.tensor([0])), {"x": Inp((), F64)})
op(
    "index_select-empty-index",
    lambda lib, x: x.index_select(1, lib.tensor([], dtype=lib.int64)),
    {"x": Inp((2, 3), F64)},
)
op("trace-rectangle", lambda lib, x: x.trace(), {"x": Inp((2, 3), F64)})
op("diag-offsets", lambda lib, x: (x.diag(1), x.diag(-1), x.diag(5)), {"x": Inp((2, 3), F64)})
op("diag-of-vector-offset", lambda lib, x: lib.diag(x, -1), {"x": Inp((2,), F64)})
op2("flip-double-backward", lambda lib, x: x.flip(0) ** 2 * x, {"x": Inp((4,), F64)})
op2("roll-double-backward", lambda lib, x: x.roll(1) ** 2 * x, {"x": Inp((4,), F64)})
op2("tril-double-backward", lambda lib, x: x.tril() ** 2, {"x": Inp((3, 3), F64)})
op2(
    "index_select-double-backward",
    lambda lib, x: x.index_select(0, lib.tensor([1, 1, 3])) ** 2,
    {"x": Inp((4,), F64)},
)
op2("trace-double-backward", lambda lib, x: x.trace() ** 2, {"x": Inp((2, 2), F64)})
op2("diag-double-backward", lambda lib, x: x.diag() ** 2, {"x": Inp((3,), F64)})
op2("diagonal-double-backward", lambda lib, x: x.diag() ** 2, {"x": Inp((3, 3), F64)})
op2(
    "masked_fill-double-backward",
    lambda lib, x: x.masked_fill(x > 0, 1.0) ** 2,
    {"x": Inp((4,), F64)},
)


@register_program("masked_fill-flip-roll-tril-diag-errors", {"i": Inp((2, 3), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    x = i.double().requires_grad_()
    m = lib.tensor([True, False, True])
    return {
        "masked_fill-int-truncates": i.masked_fill(m, 2.5),
        "masked_fill-bool": (i > 0).masked_fill(m, 0),
        "trace-int": i.trace(),
        "tril-int": i.tril(),
        "masked_fill-int-mask": attempt(lambda: x.masked_fill(m.long(), 0.0)),
        "masked_fill-float-mask": attempt(lambda: x.masked_fill(m.float(), 0.0)),
        "masked_fill-value-1d": attempt(lambda: x.masked_fill(m, lib.tensor([1.0, 2.0]))),
        "masked_fill-value-str": attempt(lambda: x.masked_fill(m, "a")),
        "masked_fill-shapes": attempt(
            lambda: x.masked_fill(lib.tensor([[True], [False], [True]]), 0)
        ),
        "masked_fill-inf-into-int": attempt(lambda: i.masked_fill(m, float("inf"))),
        "masked_fill_-leaf": attempt(lambda: x.masked_fill_(m, 0.0)),
        "masked_fill_-broadcast-beyond": attempt(
            lambda: lib.zeros(3).masked_fill_(lib.ones(2, 3, dtype=lib.bool), 1.0)
        ),
        "flip-no-dims": attempt(lambda: x.flip()),
        "flip-int-dims-function": attempt(lambda: lib.flip(x, 0)),
        "flip-repeated": attempt(lambda: x.flip((0, 0))),
        "flip-out-of-range": attempt(lambda: x.flip(2)),
        "roll-misaligned": attempt(lambda: x.roll(1, (0, 1))),
        "roll-tuple-no-dims": attempt(lambda: x.roll((1, 2))),
        "roll-empty": attempt(lambda: x.roll([], [])),
        "roll-0d-dim": attempt(lambda: lib.roll(lib.tensor(3.0), 1, 0)),
        "tril-1d": attempt(lambda: lib.tril(lib.ones(3))),
        "index_select-out-of-bounds": attempt(lambda: x.index_select(1, lib.tensor([3]))),
        "index_select-negative": attempt(lambda: x.index_select(1, lib.tensor([-1]))),
        "index_select-float-index": attempt(lambda: x.index_select(1, lib.tensor([1.0]))),
        "index_select-2d-index": attempt(lambda: x.index_select(1, lib.tensor([[1]]))),
        "index_select-0d-two": attempt(lambda: lib.tensor(5.0).index_select(0, lib.tensor([0, 0]))),
        "trace-1d": attempt(lambda: lib.trace(lib.ones(3))),
        "diag-3d": attempt(lambda: lib.diag(lib.ones(2, 2, 2))),
        "diag-0d": attempt(lambda: lib.diag(lib.tensor(1.0))),
    }


# ----------------------------------------------------------------------------- normal


@register_program("normal-d2l-synthetic-data")
def _(lib, inp):
    # d2l's linear-regression chapter, as written there.
    lib.manual_seed(0)
    true_w, true_b = lib.tensor([2, -3.4]), 4.2
    features = lib.normal(0, 1, (1000, len(true_w)))
    labels = lib.matmul(features, true_w) + true_b
    labels += lib.normal(0, 0.01, labels.shape)
    w = lib.normal(0, 0.01, size=(2, 1), requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    loss = ((features @ w + b - labels.reshape(-1, 1)) ** 2 / 2).mean()
    loss.backward()
    return {"features": features[:20], "labels": labels[-20:], "w": w, "b": b, "loss": loss}


@register_program("normal-sizes-dtypes-and-the-generator-state")
def _(lib, inp):
    lib.manual_seed(3)
    out = {}
    for n in (1, 3, 15, 16, 17, 40):
        out[f"f32-{n}"] = lib.normal(0.5, 2.5, (n,))
        out[f"f64-{n}"] = lib.normal(-1.25, 0.3, size=(n,), dtype=lib.float64)
        out[f"randn-after-{n}"] = lib.randn(3)  # the cached second normal carries over
    out["keywords"] = lib.normal(mean=3.0, std=0.5, size=(2, 3))
    out["std-zero"] = lib.normal(1.0, 0.0, (4,))
    out["generator"] = lib.normal(0.0, 1.0, (3,), generator=lib.manual_seed(7))
    return out


@register_program("generator-objects")
def _(lib, inp):
    g = lib.Generator().manual_seed(42)
    first = (lib.normal(0.0, 1.0, (3,), generator=g), lib.randperm(6, generator=g))
    h = lib.Generator(device="cpu")
    return {
        "first": first,
        "again": lib.randn(2, generator=g),
        "initial_seed": (g.initial_seed(), h.initial_seed()),
        "device": str(h.device),
        "is-a-generator": isinstance(lib.manual_seed(1), lib.Generator),
        "positional-device": lib.Generator("cpu").manual_seed(5).initial_seed(),
    }


@register_program("normal-with-tensor-parameters")
def _(lib, inp):
    lib.manual_seed(1)
    mean = lib.tensor([0.0, 10.0, 100.0], requires_grad=True)
    std = lib.tensor([1.0, 0.5, 0.25], requires_grad=True)
    a = lib.normal(mean, 2.0)
    b = lib.normal(1.5, std)
    c = lib.normal(mean, std)
    d = lib.normal(lib.zeros(2, 1, dtype=lib.float64), std.detach() * 0.3)
    e = lib.normal(lib.zeros(20), 0.3)
    (a.sum() + b.sum() + c.sum()).backward()  # the gradient of a sample is zero
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "mean": mean, "std": std}


@register_program("normal_-in-place")
def _(lib, inp):
    lib.manual_seed(2)
    w = lib.zeros(4, 5, requires_grad=True)
    with lib.no_grad():
        w.normal_(0, 0.01)  # d2l: net[0].weight.data.normal_(0, 0.01)
    h = lib.ones(20).normal_()
    x = lib.ones(3, requires_grad=True)
    y = (x * 2).normal_(1.0, 3.0)
    y.sum().backward()
    return {"w": w, "h": h, "y": y, "x": x, "after": lib.randn(2)}


@register_program("normal-errors")
def _(lib, inp):
    m = lib.zeros(3, requires_grad=True)
    return {
        "negative-std": attempt(lambda: lib.normal(0, -1, (2,))),
        "negative-std-tensor-mean": attempt(lambda: lib.normal(m, -1.0)),
        "negative-std-tensor": attempt(lambda: lib.normal(m, -lib.ones(3))),
        "no-size": attempt(lambda: lib.normal(0.0, 1.0)),
        "int-size": attempt(lambda: lib.normal(0, 1, 3)),
        "int-mean-tensor": attempt(lambda: lib.normal(lib.tensor([1, 2]), 1.0)),
        "int-dtype": attempt(lambda: lib.normal(0, 1, (2,), dtype=lib.int64)),
        "shapes": attempt(lambda: lib.normal(lib.zeros(2), lib.ones(3))),
        "normal_-leaf": attempt(lambda: m.normal_()),
        "normal_-negative-std": attempt(lambda: lib.zeros(2).normal_(std=-1)),
        "normal_-int": attempt(lambda: lib.zeros(2, dtype=lib.int64).normal_()),
    }


# ----------------------------------------------------------------------------- sort, argsort, topk

for dt in FLOATS:
    op(f"sort-{dt}", lambda lib, x: x.sort(), {"x": Inp((3, 4), dt, "ties")})
    op(
        f"sort-descending-dim0-{dt}",
        lambda lib, x: lib.sort(x, 0, descending=True),
        {"x": Inp((4, 3), dt, "ties")},
    )
    op(f"topk-{dt}", lambda lib, x: x.topk(2), {"x": Inp((3, 5), dt)})
    op(f"topk-ties-{dt}", lambda lib, x: x.topk(3), {"x": Inp((4, 9), dt, "ties")})
    op(
        f"topk-smallest-dim0-{dt}",
        lambda lib, x: lib.topk(x, 3, dim=0, largest=False),
        {"x": Inp((5, 2), dt, "ties")},
    )
op(
    "sort-stable-keyword",
    lambda lib, x: x.sort(dim=-1, stable=True),
    {"x": Inp((2, 5), F64, "ties")},
)
op(
    "sort-stable-none",
    lambda lib, x: lib.sort(x, stable=None, dim=0),
    {"x": Inp((3, 2), F64, "ties")},
)
op("sort-0d", lambda lib, x: x.sort(), {"x": Inp((), F64)})
op("topk-0d", lambda lib, x: (x.topk(1), x.topk(0)), {"x": Inp((), F64)})
op("topk-k-0", lambda lib, x: x.topk(0), {"x": Inp((2, 3), F64)})
op("topk-unsorted", lambda lib, x: x.topk(3, sorted=False), {"x": Inp((6,), F64)})
op(
    "sort-then-sum-of-largest",
    lambda lib, x: x.sort(descending=True).values[:, :2].sum(),
    {"x": Inp((3, 4), F32)},
)
op2(
    "sort-double-backward",
    lambda lib, x: x.sort().values ** 2 * lib.arange(4.0, dtype=lib.float64),
    {"x": Inp((4,), F64)},
)
op2("topk-double-backward", lambda lib, x: x.topk(2).values ** 3, {"x": Inp((5,), F64)})


@register_program("sort-argsort-topk-ints-nans-errors", {"i": Inp((3, 4), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    nans = lib.tensor([float("nan"), 1.0, float("nan"), -2.0, 3.0])
    return {
        "sort-int": i.sort(1),
        "sort-int-descending": i.sort(0, True),
        "sort-bool": (i > 0).sort(),
        "argsort": i.argsort(),
        "argsort-descending": lib.argsort(i, 0, True),
        "argsort-stable": lib.argsort(i, dim=1, stable=True),
        "argsort-bool-dim-method": attempt(lambda: i.argsort(True)),
        "argsort-bool-dim": attempt(lambda: lib.argsort(i, True)),
        "sort-bool-dim-method": attempt(lambda: i.sort(True)),
        "topk-int": i.topk(2, 1),
        "topk-int-ties-unsorted": i.topk(3, 1, sorted=False),
        "topk-many-ties": lib.tensor([1.0, 5.0, 5.0, 5.0, 2.0, 5.0, 1.0, 5.0]).topk(3),
        "topk-partial-sort-ties": (lib.arange(200) % 7).topk(3),
        "topk-partial-sort-smallest": (lib.arange(130) % 5).topk(2, largest=False),
        "sort-nan": nans.sort(),
        "sort-nan-descending": nans.sort(descending=True),
        "argsort-nan": nans.argsort(descending=True),
        "topk-nan": nans.topk(3),
        "topk-nan-smallest": nans.topk(3, largest=False),
        "topk-too-large": attempt(lambda: i.topk(5)),
        "topk-negative": attempt(lambda: i.topk(-1)),
        "sort-bool-dim": attempt(lambda: lib.sort(i, True)),
        "sort-dim-out-of-range": attempt(lambda: i.sort(2)),
    }


# ----------------------------------------------------------------------------- kthvalue

for dt in FLOATS:
    op(f"kthvalue/{dt}", lambda lib, x: x.kthvalue(2), {"x": Inp((3, 5), dt)})
    op(
        f"kthvalue/ties-dim0-keepdim-{dt}",
        lambda lib, x: lib.kthvalue(x, 3, 0, True),
        {"x": Inp((9, 4), dt, "ties")},
    )
op("kthvalue/0d", lambda lib, x: x.kthvalue(1), {"x": Inp((), F64)})
op2(
    "kthvalue/double-backward",
    lambda lib, x: x.kthvalue(2, dim=0).values ** 3,
    {"x": Inp((4, 3), F64)},
)


@register_program("kthvalue/ties-nans-and-errors", {"i": Inp((4, 30), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    nan = float("nan")
    nans = lib.tensor([[nan, 1.0, nan, 2.0, 1.0, nan], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0]])
    return {
        "int-ties": [i.kthvalue(k, 1) for k in (1, 7, 15, 30)],
        "nans": [nans.kthvalue(k, 1) for k in (2, 3, 4, 6)],
        "k-too-large": attempt(lambda: i.kthvalue(31)),
        "k-zero": attempt(lambda: i.kthvalue(0, 0)),
        "k-float": attempt(lambda: i.kthvalue(1.5)),
        "0d-k-2": attempt(lambda: lib.tensor(3.0).kthvalue(2)),
        "bool": attempt(lambda: (i > 0).kthvalue(1)),
        "empty-dim": attempt(lambda: lib.zeros(0, 3).kthvalue(1, 0)),
        "empty-rows": lib.zeros(0, 3).kthvalue(1, 1),
    }


# ----------------------------------------------------------------------------- mode

for dt in FLOATS:
    op(f"mode/ties-{dt}", lambda lib, x: x.mode(), {"x": Inp((3, 9), dt, "ties")})
op(
    "mode/dim0-keepdim",
    lambda lib, x: lib.mode(x, 0, keepdim=True),
    {"x": Inp((7, 3), F64, "ties")},
)
op("mode/0d", lambda lib, x: x.mode(0), {"x": Inp((), F64)})


@register_program("mode/ints-nans-errors", {"i": Inp((3, 40), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    nan = float("nan")
    return {
        "int": i.mode(1),
        "bool": (i > 0).mode(1),
        "nans": lib.tensor([[nan, 1.0, nan, 1.0], [nan, nan, 2.0, 3.0]]).mode(),
        "empty-rows": lib.zeros(0, 2).mode(1),
        "empty-dim": attempt(lambda: lib.zeros(0, 2).mode(0)),
        "dim-out-of-range": attempt(lambda: i.mode(2)),
    }


# ----------------------------------------------------------------------------- quantile, nanquantile

for dt in FLOATS:
    op(f"quantile/{dt}", lambda lib, x: lib.quantile(x, 0.3, dim=1), {"x": Inp((3, 5), dt)})
    op(
        f"quantile/several-dim0-keepdim-{dt}",
        lambda lib, x: x.quantile(lib.tensor([0.1, 0.5, 0.9], dtype=x.dtype), 0, True),
        {"x": Inp((5, 2), dt)},
    )
for _mode in ("lower", "higher", "midpoint", "nearest"):
    op(
        f"quantile/{_mode}",
        lambda lib, x, mode=_mode: lib.quantile(x, 0.4, interpolation=mode),
        {"x": Inp((2, 4), F64, "ties")},
    )
op(
    "quantile/all-elements-3d-middle-dim",
    lambda lib, x: (x.quantile(0.75), x.quantile(0.5, dim=1)),
    {"x": Inp((2, 3, 4), F64)},
)
op(
    "quantile/0d",
    lambda lib, x: (x.quantile(0.5), x.quantile(0.2, dim=0), x.quantile(0.2, -1, True)),
    {"x": Inp((), F64)},
)
op2("quantile/double-backward", lambda lib, x: x.quantile(0.3, dim=0) ** 2, {"x": Inp((4, 3), F64)})


@register_program("quantile/nans-and-errors", {"x": Inp((2, 4), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"])
    nan = float("nan")
    nans = lib.tensor(
        [[nan, 1.0, 2.0, 5.0], [nan, nan, nan, nan], [0.0, 1.0, 2.0, 3.0]], requires_grad=True
    )
    ignoring = nans.nanquantile(lib.tensor([0.25, 1.0]), dim=1)
    ignoring.sum().backward()
    return {
        "quantile-nan": nans.quantile(0.5, dim=1),
        "nanquantile": [ignoring, nans.grad],
        "nanquantile-all": nans.nanquantile(0.5),
        "q-out-of-range": attempt(lambda: x.quantile(1.5)),
        "q-tensor-out-of-range": attempt(lambda: x.quantile(lib.tensor([0.5, -0.1]))),
        "q-2d": attempt(lambda: x.quantile(lib.tensor([[0.5]]))),
        "q-dtype": attempt(lambda: x.quantile(lib.tensor([0.5], dtype=lib.float64))),
        "int": attempt(lambda: x.long().quantile(0.5)),
        "empty": attempt(lambda: lib.quantile(lib.tensor([]), 0.5)),
        "interpolation": attempt(lambda: x.quantile(0.5, interpolation="foo")),
        "nanquantile-q-out-of-range": attempt(lambda: x.nanquantile(2.0)),
        "dim-out-of-range": attempt(lambda: x.quantile(0.5, dim=2)),
    }


# ----------------------------------------------------------------------------- median, nanmedian

for dt in FLOATS:
    op(f"median-{dt}", lambda lib, x: x.median(), {"x": Inp((3, 4), dt)})
    op(f"median-ties-{dt}", lambda lib, x: lib.median(x), {"x": Inp((3, 5), dt, "ties")})
    op(f"median-dim-ties-{dt}", lambda lib, x: x.median(1), {"x": Inp((5, 8), dt, "ties")})
    op(f"nanmedian-dim-{dt}", lambda lib, x: lib.nanmedian(x, 0), {"x": Inp((4, 3), dt, "ties")})
op(
    "median-dim0-keepdim",
    lambda lib, x: lib.median(x, 0, keepdim=True),
    {"x": Inp((5, 3, 2), F64, "ties")},
)
op("median-even-count", lambda lib, x: (x.median(), x.median(-1)), {"x": Inp((2, 4), F64)})
op("median-0d", lambda lib, x: (x.median(), x.median(0), x.nanmedian(-1)), {"x": Inp((), F64)})
op2("median-double-backward", lambda lib, x: x.median() ** 3, {"x": Inp((5,), F64)})
op2("median-dim-double-backward", lambda lib, x: x.median(0).values ** 2, {"x": Inp((3, 4), F64)})


@register_program("median-nanmedian-ints-nans-errors", {"i": Inp((3, 7), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    nan = float("nan")
    nans = lib.tensor([[nan, 1.0, 2.0, nan], [3.0, 1.0, 2.0, 1.0], [nan, nan, nan, nan]])
    x = nans.clone().requires_grad_()
    x.nanmedian().backward()
    w = nans.clone().requires_grad_()
    w.median().backward()
    e = lib.tensor([], requires_grad=True)
    empty_median = e.median()
    empty_median.backward()
    return {
        "int": i.median(),
        "int-dim": i.median(1),
        "int-nanmedian": lib.nanmedian(i, 0),
        "ties-take-the-stable-order": lib.tensor([1, 2, 2, 2, 2, 3, 2]).median(0),
        "ties-unordered": lib.tensor([2.0, 1, 2, 2, 0, 2, 2, 2, 3]).median(0),
        "nan": nans.median(),
        "nan-dim": nans.median(1),
        "nanmedian": nans.nanmedian(),
        "nanmedian-dim": nans.nanmedian(1, True),
        "nanmedian-grad": x.grad,
        "median-nan-grad": w.grad,
        "empty": empty_median,
        "empty-grad": e.grad,
        "empty-rows": lib.zeros(0, 2).median(1),
        "empty-dim": attempt(lambda: lib.zeros(0, 2).median(0)),
        "bool": attempt(lambda: (i > 0).median()),
        "bool-dim": attempt(lambda: (i > 0).median(0)),
        "bool-nanmedian": attempt(lambda: (i > 0).nanmedian()),
        "keepdim-without-dim": attempt(lambda: lib.median(nans, keepdim=True)),
        "dim-out-of-range": attempt(lambda: i.median(2)),
        "dim-float": attempt(lambda: i.median(dim=0.5)),
    }


# ----------------------------------------------------------------------------- diagonal

for dt in FLOATS:
    op(f"diagonal/{dt}", lambda lib, x: x.diagonal(), {"x": Inp((3, 4), dt)})
    op(
        f"diagonal/offset-dims-{dt}",
        lambda lib, x: lib.diagonal(x, 1, 0, 2),
        {"x": Inp((2, 3, 4), dt)},
    )
op(
    "diagonal/below-negative-dims",
    lambda lib, x: x.diagonal(offset=-1, dim1=-1, dim2=-3),
    {"x": Inp((4, 2, 3), F64)},
)
op("diagonal/out-of-the-matrix", lambda lib, x: x.diagonal(5), {"x": Inp((2, 3), F64)})
op(
    "diagonal/of-batched-squares-sum",
    lambda lib, x: x.diagonal(dim1=-2, dim2=-1).sum(-1),
    {"x": Inp((2, 3, 3), F32)},
)
op2("diagonal/double-backward", lambda lib, x: x.diagonal(-1) ** 3, {"x": Inp((3, 3), F64)})


@register_program("diagonal/view-and-errors", {"x": Inp((3, 3), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"])
    d = x.diagonal()
    d.fill_(0.0)  # a view: x's diagonal is now zero
    w = lib.ones(2, 2, requires_grad=True)
    return {
        "x": x,
        "d": d,
        "shares": d._base is x,
        "versions": [x._version, d._version],
        "is-contiguous": d.is_contiguous(),
        "int": lib.tensor([[1, 2], [3, 4]]).diagonal(),
        "leaf-view-in-place": attempt(lambda: w.diagonal().mul_(2)),
        "same-dims": attempt(lambda: x.diagonal(0, 1, 1)),
        "same-dims-negative": attempt(lambda: x.diagonal(0, 1, -1)),
        "vector": attempt(lambda: lib.ones(3).diagonal()),
        "dim-out-of-range": attempt(lambda: x.diagonal(0, 0, 2)),
    }


# ----------------------------------------------------------------------------- diag_embed

for dt in FLOATS:
    op(f"diag-embed/{dt}", lambda lib, x: lib.diag_embed(x), {"x": Inp((2, 3), dt)})
op(
    "diag-embed/offset-dims",
    lambda lib, x: x.diag_embed(1, 0, 2),
    {"x": Inp((2, 3), F64)},
)
op(
    "diag-embed/below-negative-dims",
    lambda lib, x: lib.diag_embed(x, offset=-2, dim1=-1, dim2=0),
    {"x": Inp((3, 2), F64)},
)
op2("diag-embed/double-backward", lambda lib, x: lib.diag_embed(x**2, 1), {"x": Inp((2, 3), F64)})


@register_program("diag-embed/graphs-and-errors", {"v": Inp((3,), F64)})
def _(lib, inp):
    v = lib.tensor(inp["v"], requires_grad=True)
    # diag of a vector is diag_embed: differentiated twice, PyTorch records the
    # diagonal of the gradient (DiagonalBackward0), for diag and diag_embed alike.
    (g_diag,) = lib.autograd.grad((lib.diag(v, 1) ** 2).sum(), v, create_graph=True)
    (g_embed,) = lib.autograd.grad((lib.diag_embed(v) ** 3).sum(), v, create_graph=True)
    return {
        "diag-gradient": [g_diag, type(g_diag.grad_fn).__name__],
        "diag-embed-gradient": [g_embed, type(g_embed.grad_fn).__name__],
        "int": lib.diag_embed(lib.tensor([1, 2]), -1),
        "same-dims": attempt(lambda: lib.diag_embed(v, 0, 1, 1)),
        "dim-out-of-range": attempt(lambda: lib.diag_embed(v, 0, 0, 2)),
        "0d": attempt(lambda: lib.diag_embed(lib.tensor(2.0))),
    }


# ----------------------------------------------------------------------------- nonzero, argwhere, where(condition)


@register_program("nonzero-argwhere-where", {"x": Inp((3, 4), F32, "ties")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    with_nan = lib.tensor([[0.0, float("nan")], [2.0, 0.0]])
    return {
        "nonzero": x.nonzero(),
        "nonzero-fn-as-tuple": lib.nonzero(x, as_tuple=True),
        "argwhere": lib.argwhere(x),
        "argwhere-method": (x > 0).argwhere(),
        "where-one-argument": lib.where(x < 0),
        "index-with-the-tuple": x[x.nonzero(as_tuple=True)],
        "nan-is-not-zero": with_nan.nonzero(),
        "int-3d": lib.tensor([[[0, 1], [2, 0]], [[0, 0], [0, 5]]]).nonzero(),
        "0d": [lib.tensor(3.0).nonzero(), lib.tensor(0.0).argwhere()],
        "0d-as-tuple": [
            lib.tensor(3.0).nonzero(as_tuple=True),
            lib.tensor(0).nonzero(as_tuple=True),
        ],
        "0d-where": [lib.where(lib.tensor(True)), lib.where(lib.tensor(0.0))],
        "empty": [lib.zeros(2, 0).nonzero(), lib.zeros(2, 0).nonzero(as_tuple=True)],
        "positional-as-tuple": attempt(lambda: lib.nonzero(x, True)),
    }


# ----------------------------------------------------------------------------- scatter, scatter_add

# Rows 0 and 2 of the first index repeat in some columns: the last write wins in
# scatter, and scatter_add adds them all up.
SCATTER_INDEX = [[0, 1, 2, 0], [2, 0, 0, 1], [2, 2, 1, 0]]


for dt in FLOATS:
    op(
        f"scatter/src-{dt}",
        lambda lib, x, s: x.scatter(0, lib.tensor(SCATTER_INDEX), s),
        {"x": Inp((3, 4), dt), "s": Inp((3, 4), dt)},
    )
    op(
        f"scatter/add-{dt}",
        lambda lib, x, s: lib.scatter_add(x, 0, lib.tensor(SCATTER_INDEX), s),
        {"x": Inp((3, 4), dt), "s": Inp((3, 4), dt)},
    )
op(
    "scatter/value-dim1",
    lambda lib, x: lib.scatter(x, 1, lib.tensor([[3, 0], [1, 1], [2, 0]]), 2.5),
    {"x": Inp((3, 4), F64)},
)
op(
    "scatter/value-keyword-negative-dim",
    lambda lib, x: x.scatter(-1, lib.tensor([[1], [0]]), value=-1.0),
    {"x": Inp((2, 3), F64)},
)
op(
    "scatter/smaller-index-into-larger-self",
    lambda lib, x, s: x.scatter(1, lib.tensor([[2, 4], [0, 0]]), s),
    {"x": Inp((3, 5), F64), "s": Inp((2, 2), F64)},
)
op(
    "scatter/one-hot",
    lambda lib, x: lib.zeros(3, 4).scatter(1, lib.tensor([[1], [3], [0]]), 1.0) * x,
    {"x": Inp((3, 4), F32)},
)
op(
    "scatter/in-place",
    lambda lib, x, s: (x * 1).scatter_(1, lib.tensor([[0, 2], [1, 1]]), s[:2, :2]),
    {"x": Inp((2, 3), F64), "s": Inp((3, 3), F64)},
)
op(
    "scatter/add-in-place",
    lambda lib, x, s: (x * 1).scatter_add_(0, lib.tensor([[1, 1, 0]]), s),
    {"x": Inp((2, 3), F64), "s": Inp((1, 3), F64)},
)
op(
    "scatter/add-counts-into-bins",
    lambda lib, w: lib.zeros(4, dtype=lib.float64).scatter_add(0, lib.tensor([0, 2, 2, 3, 0]), w),
    {"w": Inp((5,), F64)},
)
op2(
    "scatter/double-backward",
    lambda lib, x: x.scatter(0, lib.tensor([[1, 0, 1]]), x[1:] ** 2) ** 2,
    {"x": Inp((2, 3), F64)},
)
op2(
    "scatter/add-double-backward",
    lambda lib, x: x.scatter_add(1, lib.tensor([[0, 0], [1, 0]]), x[:, :2] ** 3) ** 2,
    {"x": Inp((2, 3), F64)},
)


@register_program("scatter/forward-mode", {"x": Inp((2, 3), F64), "t": Inp((2, 3), F64)})
def _(lib, inp):
    fwad = lib.autograd.forward_ad
    index = lib.tensor([[2, 0], [1, 1]])
    with fwad.dual_level():
        x = fwad.make_dual(lib.tensor(inp["x"]), lib.tensor(inp["t"]))
        outputs = {
            "scatter": x.scatter(1, index, x[:, 1:] * 2),
            "value": x.scatter(1, index, 7.0),
            "add": x.scatter_add(1, index, x.exp()[:, :2]),
        }
        return {name: list(fwad.unpack_dual(y)) for name, y in outputs.items()}


@register_program("scatter/errors", {"x": Inp((3, 4), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    s = lib.ones(3, 4, requires_grad=True)
    index = lib.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
    return {
        "leaf-in-place": attempt(lambda: x.scatter_(0, index, s)),
        "float-index": attempt(lambda: x.scatter(0, index.float(), s)),
        "index-out-of-bounds": attempt(lambda: x.scatter(0, index + 5, s)),
        "index-negative": attempt(lambda: lib.zeros(3).scatter(0, lib.tensor([-1]), 1.0)),
        "index-dims": attempt(lambda: x.scatter(0, lib.tensor([0, 1]), s)),
        "dtypes": attempt(lambda: x.scatter(0, index, s.double())),
        "index-too-large": attempt(lambda: x.scatter(0, lib.zeros(3, 5, dtype=lib.int64), s)),
        "index-too-large-value": attempt(
            lambda: x.scatter(1, lib.zeros(4, 2, dtype=lib.int64), 1.0)
        ),
        "src-larger-than-index-backward": attempt(
            lambda: x.scatter_add(0, index, s).sum().backward()
        ),
        "src-larger-than-index-scatter-backward": attempt(
            lambda: x.scatter(0, index, s).sum().backward()
        ),
        "add-number": attempt(lambda: x.scatter_add(0, index, 2.0)),
        "add-in-place-number": attempt(lambda: x.detach().scatter_add_(0, index, 2.0)),
        "no-src": attempt(lambda: x.scatter(0, index)),
        "str-src": attempt(lambda: x.scatter(0, index, "a")),
        "int-self-float-value": lib.zeros(3, dtype=lib.int64).scatter(0, lib.tensor([1]), 2.7),
        "repeats-last-wins": lib.zeros(3).scatter(
            0, lib.tensor([1, 1, 1]), lib.tensor([1.0, 2.0, 3.0])
        ),
        "0d": lib.tensor(1.0).scatter(0, lib.tensor(0), lib.tensor(5.0)),
        "empty-index": lib.zeros(3).scatter(0, lib.tensor([], dtype=lib.int64), lib.tensor([1.0])),
        "detached-self-src-with-grad": x.detach().scatter_(0, index, s),
    }


# ----------------------------------------------------------------------------- kron, erfinv's edges

for dt in FLOATS:
    op(f"kron/{dt}", lambda lib, a, b: lib.kron(a, b), {"a": Inp((2, 3), dt), "b": Inp((2, 2), dt)})
op("kron/vector-matrix", lambda lib, a, b: a.kron(b), {"a": Inp((3,), F64), "b": Inp((2, 2), F64)})
op(
    "kron/3d-2d",
    lambda lib, a, b: lib.kron(a, b),
    {"a": Inp((2, 1, 2), F64), "b": Inp((3, 2), F64)},
)
op(
    "kron/0d",
    lambda lib, a, b: (lib.kron(a, b), lib.kron(a, a)),
    {"a": Inp((), F64), "b": Inp((3,), F64)},
)
op(
    "kron/block-diagonal",
    lambda lib, b: lib.kron(lib.eye(2, dtype=lib.float64), b),
    {"b": Inp((2, 2), F64)},
)
op2("kron/double-backward", lambda lib, x: lib.kron(x, x**2), {"x": Inp((2, 2), F64)})


@register_program("kron-erfinv-edges", {"i": Inp((2, 2), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    y = lib.tensor([-1.0, 1.0, 1.5, -2.0, float("nan"), 0.0, -0.0, 1 - 1e-12, 1e-300])
    w = lib.tensor([0.2, -0.7, 0.99], requires_grad=True)
    z = w * 1
    z.erfinv_()
    z.sum().backward()
    return {
        "kron-int": lib.kron(i, i),
        "kron-int-float": lib.kron(i, lib.tensor([0.5, 2.0])),
        "kron-number": attempt(lambda: lib.kron(i, 2)),
        "erfinv-edges": y.erfinv(),
        "erfinv-edges-float32": y.float().erfinv(),
        "erfinv-in-place": [z, w.grad],
        "erfinv-leaf-in-place": attempt(lambda: w.erfinv_()),
        "erfinv-int": lib.erfinv(lib.tensor([0, 1, -1])),
    }


# ----------------------------------------------------------------------------- cdist

for dt in FLOATS:
    op(
        f"cdist/{dt}",
        lambda lib, a, b: lib.cdist(a, b),
        {"a": Inp((4, 3), dt), "b": Inp((5, 3), dt)},
    )
    op(
        f"cdist/matrix-products-{dt}",
        lambda lib, a, b: lib.cdist(a, b),
        {"a": Inp((27, 2), dt), "b": Inp((3, 2), dt)},
    )
for _p in (1.0, 0.0, 3.0, 0.5, math.inf):
    op(
        f"cdist/p-{_p}",
        lambda lib, a, b, p=_p: lib.cdist(a, b, p=p),
        {"a": Inp((3, 4), F64, "halves"), "b": Inp((2, 4), F64, "halves")},
    )
op(
    "cdist/batched-broadcast",
    lambda lib, a, b: lib.cdist(a, b),
    {"a": Inp((2, 3, 2), F64), "b": Inp((1, 4, 2), F64)},
)
op(
    "cdist/batched-broadcast-matrix-products",
    lambda lib, a, b: lib.cdist(a, b),
    {"a": Inp((2, 26, 2), F64), "b": Inp((1, 4, 2), F64)},
)
op(
    "cdist/mode-always-matrix-products",
    lambda lib, a, b: lib.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
    {"a": Inp((3, 2), F64), "b": Inp((4, 2), F64)},
)
op(
    "cdist/mode-never-matrix-products",
    lambda lib, a, b: lib.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
    {"a": Inp((30, 2), F64), "b": Inp((2, 2), F64)},
)
op(
    "cdist/coinciding-points",
    lambda lib, a: (lib.cdist(a, a), lib.cdist(a, a, p=1), lib.cdist(a, a, p=math.inf)),
    {"a": Inp((3, 2), F64, "ties")},
)
op(
    "cdist/nearest-centre-loss",
    lambda lib, x, c: lib.cdist(x, c).min(dim=1).values.pow(2).mean(),
    {"x": Inp((6, 2), F32), "c": Inp((2, 2), F32)},
)
op2(
    "cdist/matrix-products-double-backward",
    lambda lib, x: lib.cdist(x, x[:2] * 2, compute_mode="use_mm_for_euclid_dist"),
    {"x": Inp((3, 2), F64)},
)


@register_program("cdist/errors", {"a": Inp((4, 3), F64), "b": Inp((5, 3), F64)})
def _(lib, inp):
    a = lib.tensor(inp["a"], requires_grad=True)
    b = lib.tensor(inp["b"], requires_grad=True)
    (g,) = lib.autograd.grad(lib.cdist(a, b).sum(), a, create_graph=True)
    return {
        "double-backward": attempt(lambda: g.sum().backward()),
        "1d": attempt(lambda: lib.cdist(a[0], b)),
        "columns": attempt(lambda: lib.cdist(a, b[:, :2])),
        "negative-p": attempt(lambda: lib.cdist(a, b, p=-1)),
        "int": attempt(lambda: lib.cdist(a.long(), b.long())),
        "dtypes": attempt(lambda: lib.cdist(a, b.float())),
        "mode": attempt(lambda: lib.cdist(a, b, compute_mode="foo")),
        "empty": lib.cdist(lib.zeros(0, 3), lib.zeros(2, 3)),
        "no-columns": [
            lib.cdist(lib.zeros(2, 0), lib.zeros(3, 0)),
            lib.cdist(lib.zeros(2, 0), lib.zeros(30, 0)),
        ],
    }


# ----------------------------------------------------------------------------- logcumsumexp, cummax, cummin

for dt in FLOATS:
    op(f"logcumsumexp/{dt}", lambda lib, x: lib.logcumsumexp(x, 1), {"x": Inp((3, 5), dt)})
    op(f"cummax/ties-{dt}", lambda lib, x: x.cummax(1), {"x": Inp((3, 6), dt, "ties")})
    op(f"cummin/ties-{dt}", lambda lib, x: lib.cummin(x, dim=0), {"x": Inp((6, 3), dt, "ties")})
op(
    "logcumsumexp/extreme",
    lambda lib, x: x.logcumsumexp(dim=-1),
    {"x": Inp((2, 6), F64, "extreme")},
)
op("logcumsumexp/0d", lambda lib, x: x.logcumsumexp(0), {"x": Inp((), F64)})
op("cummax/0d", lambda lib, x: (x.cummax(0), x.cummin(-1)), {"x": Inp((), F64)})
op2("logcumsumexp/double-backward", lambda lib, x: x.logcumsumexp(0) ** 2, {"x": Inp((4,), F64)})
op2("cummax/double-backward", lambda lib, x: x.cummax(0).values ** 3, {"x": Inp((5,), F64)})
op2("cummin/double-backward", lambda lib, x: x.cummin(0).values ** 3, {"x": Inp((5,), F64)})


@register_program("cummax-cummin-logcumsumexp-edges", {"i": Inp((3, 4), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    nan, inf = float("nan"), float("inf")
    nans = lib.tensor([[1.0, 3.0, nan, 2.0, nan, 9.0], [5.0, 5.0, 1.0, 5.0, 1.0, 7.0]])
    x = nans.clone().requires_grad_()
    x.cummax(1).values.sum().backward()
    z = lib.tensor([-inf, -inf, 1.0, inf], requires_grad=True)
    running = z.logcumsumexp(0)
    running.sum().backward()
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        d = fwad.make_dual(lib.tensor([0.5, -1.0, 2.0, -300.0]), lib.tensor([1.0, 2.0, 3.0, 4.0]))
        tangents = [
            fwad.unpack_dual(d.logcumsumexp(0)).tangent,
            fwad.unpack_dual(d.cummax(0).values).tangent,
            fwad.unpack_dual(d.cummin(0).values).tangent,
        ]
    return {
        "int": [i.cummax(1), i.cummin(0)],
        "bool": (i > 0).cummax(1),
        "nan": [nans.cummax(1), nans.cummin(1)],
        "nan-grad": x.grad,
        "logcumsumexp-infinities": [running, z.grad],
        "forward-mode": tangents,
        "empty": [lib.zeros(0, 2).cummax(0), lib.zeros(0, 2).logcumsumexp(1)],
        "no-dim": attempt(lambda: i.cummax()),
        "no-dim-fn": attempt(lambda: lib.cummin(i)),
        "logcumsumexp-no-dim": attempt(lambda: lib.logcumsumexp(nans)),
        "logcumsumexp-int": attempt(lambda: i.logcumsumexp(0)),
        "dim-out-of-range": attempt(lambda: i.cummax(2)),
    }


# ----------------------------------------------------------------------------- addcdiv

for dt in FLOATS:
    op(
        f"addcdiv/{dt}",
        lambda lib, s, a, b: lib.addcdiv(s, a, b, value=-0.5),
        {"s": Inp((2, 3), dt), "a": Inp((3,), dt), "b": Inp((2, 3), dt, "nonzero")},
    )
op(
    "addcdiv/method-default-value",
    lambda lib, s, a: s.addcdiv(a, a * a + 1),
    {"s": Inp((4,), F64), "a": Inp((4,), F64)},
)
op2(
    "addcdiv/double-backward",
    lambda lib, x: lib.addcdiv(x, x * x, x + 3, value=0.3),
    {"x": Inp((4,), F64, "positive")},
)


@register_program("addcdiv/adam-by-hand-and-errors", {"w": Inp((3,), F32), "g": Inp((3,), F32)})
def _(lib, inp):
    """Adam written out, as tutorials write it: the step is an addcdiv_."""
    w = lib.tensor(inp["w"], requires_grad=True)
    m, v = lib.zeros(3), lib.zeros(3)
    steps = []
    for t in range(1, 4):
        loss = ((w - lib.tensor(inp["g"])) ** 2).sum()
        loss.backward()
        with lib.no_grad():
            m.mul_(0.9).add_(w.grad, alpha=0.1)
            v.mul_(0.999).addcmul_(w.grad, w.grad, value=0.001)
            denom = (v / (1 - 0.999**t)).sqrt().add_(1e-8)
            w.addcdiv_(m, denom, value=-0.1 / (1 - 0.9**t))
        w.grad.zero_()
        steps.append(w.clone())
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.addcdiv_(x, x + 1, value=2.0)  # recorded: AddcdivBackward0 in place
    y.sum().backward()
    return {
        "steps": steps,
        "in-place-recorded": [y, x.grad],
        "by-zero": lib.addcdiv(lib.ones(2), lib.tensor([1.0, -1.0]), lib.tensor([0.0, 0.0])),
        "int-input-float-tensors": lib.addcdiv(
            lib.ones(2, dtype=lib.int64), lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])
        ),
        "int-tensors": attempt(
            lambda: lib.addcdiv(lib.ones(2), lib.tensor([1, 2]), lib.tensor([3, 4]))
        ),
        "number-tensor1": attempt(lambda: lib.addcdiv(lib.ones(2), 2.0, lib.tensor([3.0, 4.0]))),
        "leaf-in-place": attempt(lambda: x.addcdiv_(x, x)),
        "positional-value": attempt(lambda: lib.addcdiv(x, x, x, 2)),
    }


# ----------------------------------------------------------------------------- erf, atan2, hypot, xlogy, lerp, addcmul, isclose, randperm

for dt in FLOATS:
    op(f"erf-{dt}", lambda lib, x: lib.erf(x), {"x": Inp((2, 3), dt)})
    op(
        f"atan2-{dt}",
        lambda lib, y, x: lib.atan2(y, x),
        {"y": Inp((2, 3), dt), "x": Inp((2, 3), dt)},
    )
    op(f"hypot-{dt}", lambda lib, x, y: x.hypot(y), {"x": Inp((2, 3), dt), "y": Inp((3,), dt)})
    op(
        f"xlogy-{dt}",
        lambda lib, x, y: lib.xlogy(x, y),
        {"x": Inp((2, 3), dt, "halves"), "y": Inp((2, 3), dt, "positive")},
    )
    op(
        f"lerp-{dt}",
        lambda lib, a, b: lib.lerp(a, b, 0.3),
        {"a": Inp((2, 3), dt), "b": Inp((2, 3), dt)},
    )
    op(
        f"addcmul-{dt}",
        lambda lib, s, a, b: lib.addcmul(s, a, b, value=0.5),
        {"s": Inp((2, 3), dt), "a": Inp((3,), dt), "b": Inp((2, 3), dt)},
    )
op("erf-method-0d", lambda lib, x: x.erf(), {"x": Inp((), F64)})
op(
    "atan2-method-broadcast",
    lambda lib, y, x: y.atan2(x),
    {"y": Inp((2, 1), F64), "x": Inp((3,), F64)},
)
op(
    "arctan2",
    lambda lib, y, x: lib.arctan2(y, x) + y.arctan2(x),
    {"y": Inp((3,), F64), "x": Inp((3,), F64)},
)
op(
    "xlogy-method",
    lambda lib, x, y: x.xlogy(y),
    {"x": Inp((4,), F64, "binary"), "y": Inp((4,), F64, "positive")},
)
op("xlogy-number-second", lambda lib, x: lib.xlogy(x, 2.0), {"x": Inp((4,), F32)})
op("xlogy-number-first", lambda lib, y: lib.xlogy(2.0, y), {"y": Inp((4,), F32, "positive")})
op(
    "lerp-tensor-weight",
    lambda lib, a, b, w: lib.lerp(a, b, w),
    {"a": Inp((2, 3), F64), "b": Inp((3,), F64), "w": Inp((2, 3), F64, "unit")},
)
op(
    "lerp-method-ends",
    lambda lib, a, b: (a.lerp(b, 0.0), a.lerp(b, 1.0), a.lerp(b, 0.75)),
    {"a": Inp((4,), F32), "b": Inp((4,), F32)},
)
op(
    "addcmul-method-default-value",
    lambda lib, s, a: s.addcmul(a, a),
    {"s": Inp((3,), F64), "a": Inp((3,), F64)},
)
op2("erf-double-backward", lambda lib, x: lib.erf(x), {"x": Inp((3,), F64)})
op2("atan2-double-backward", lambda lib, x: lib.atan2(x, x * x + 1), {"x": Inp((3,), F64)})
op2("hypot-double-backward", lambda lib, x: lib.hypot(x, x + 2), {"x": Inp((3,), F64)})
op2("xlogy-double-backward", lambda lib, x: lib.xlogy(x, x * x + 1), {"x": Inp((3,), F64)})
op2("lerp-double-backward", lambda lib, x: lib.lerp(x, x * x, 0.25), {"x": Inp((3,), F64)})
op2(
    "addcmul-double-backward",
    lambda lib, x: lib.addcmul(x, x, x * 3, value=2),
    {"x": Inp((3,), F64)},
)


@register_program("erf-xlogy-isclose-edges-and-errors", {"i": Inp((4,), "int64", "int")})
def _(lib, inp):
    i = lib.tensor(inp["i"])
    x = lib.tensor([0.0, 1.0, float("nan"), float("inf"), -float("inf"), 1e-7])
    return {
        "erf-int": lib.erf(i),
        "atan2-int": lib.atan2(i, i + 10),
        "hypot-int-float": lib.hypot(i, lib.ones(4)),
        "erf-edges": x.erf(),
        "xlogy-zeros": lib.xlogy(lib.tensor([0.0, 1.0, 0.0]), lib.tensor([0.0, 0.0, float("nan")])),
        "isclose": lib.isclose(x, x + 1e-9),
        "isclose-nan": lib.isclose(x, x, equal_nan=True),
        "isclose-tolerances": x.isclose(lib.zeros(6), rtol=0, atol=1e-6),
        "isclose-int": lib.isclose(i, i + 1, atol=1),
        "isclose-dtypes": attempt(lambda: lib.isclose(x, x.double())),
        "isclose-number": attempt(lambda: lib.isclose(x, 1.0)),
        "atan2-number": attempt(lambda: lib.atan2(x, 2.0)),
        "hypot-number": attempt(lambda: lib.hypot(x, 2.0)),
        "lerp-number-end": attempt(lambda: lib.lerp(x, 1.0, 0.3)),
        "lerp-int": attempt(lambda: lib.lerp(i, i, 0.5)),
        "addcmul-number": attempt(lambda: lib.addcmul(x, x, 2.0)),
    }


@register_program("atan2-lerp-trace-at-zeros-and-infinities")
def _(lib, inp):
    nan, inf = float("nan"), float("inf")
    y = lib.tensor([0.0, 0.0, 1.0, 1.0], requires_grad=True)
    x = lib.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    angle = lib.atan2(y, x)  # the origin's gradient is 0 in PyTorch, not nan
    angle.sum().backward()
    a = lib.tensor([inf, 1.0, -inf], requires_grad=True)
    line = lib.lerp(a, a * 2, 0.5)
    line.sum().backward()
    m = lib.tensor([[inf, 1.0], [1.0, -inf]], requires_grad=True)
    both = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
    return {
        "angle": angle,
        "y": y,
        "x": x,
        "line": line,
        "a": a,
        "trace": m.trace(),
        "atan2-same-tensor": lib.autograd.grad(lib.atan2(both, both).sum(), both),
        "erf-edges": lib.erf(lib.tensor([inf, -inf, nan])),
        "xlogy-edges": lib.xlogy(lib.tensor([0.0, inf, nan]), lib.tensor([0.0, inf, nan])),
    }


@register_program("in-place-erf-atan2-hypot-xlogy-lerp-addcmul-cumprod")
def _(lib, inp):
    leaf = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = leaf * 1
    steps = []
    y.addcmul_(leaf, leaf, value=0.5)
    steps.append(y.clone())
    y.lerp_(leaf * 2, 0.3)
    y.erf_()
    y.atan2_(leaf)
    y = y * 1
    y.hypot_(leaf)
    y = y * 1
    y.xlogy_(leaf + 1)
    y.cumprod_(0)
    y.sum().backward()
    with lib.no_grad():  # an optimiser's running averages, written out
        v, m, g = lib.zeros(3), lib.zeros(3), lib.tensor([1.0, -2.0, 3.0])
        v.mul_(0.9).addcmul_(g, g, value=0.1)
        m.lerp_(g, 0.1)
    return {
        "steps": steps,
        "y": y,
        "leaf": leaf,
        "v": v,
        "m": m,
        "broadcast-beyond": attempt(lambda: lib.ones(3).addcmul_(lib.ones(2, 3), lib.ones(3))),
        "leaf-in-place": attempt(lambda: leaf.addcmul_(leaf, leaf)),
        "lerp-beyond": attempt(lambda: lib.ones(3).lerp_(lib.ones(2, 3), 0.5)),
    }


@register_program("randperm")
def _(lib, inp):
    lib.manual_seed(0)
    out = {f"n{n}": lib.randperm(n) for n in (0, 1, 2, 5, 10, 100, 1000)}
    out["float"] = lib.randperm(6, dtype=lib.float32)
    out["then-randn"] = lib.randn(3)
    out["generator"] = lib.randperm(8, generator=lib.manual_seed(5))
    out["shuffled-rows"] = lib.arange(12.0).reshape(6, 2)[lib.randperm(6)]
    out["negative"] = attempt(lambda: lib.randperm(-1))
    return out


# ----------------------------------------------------------------------------- einsum
# (ignore_graph: PyTorch records the bmm/permute/view einsum decomposes into,
# autogradkit one EinsumBackward0; docs/differences.md says so.)

EINSUMS = {
    "matmul": ("ij,jk->ik", ((2, 3), (3, 4))),
    "transpose": ("ij->ji", ((2, 3),)),
    "sum": ("ij->", ((2, 3),)),
    "dot": ("i,i->", ((3,), (3,))),
    "matvec": ("ij,j->i", ((2, 3), (3,))),
    "batched": ("bij,bjk->bik", ((2, 2, 3), (2, 3, 4))),
    "outer": ("i,j->ij", ((3,), (2,))),
    "implicit": ("ij,jk", ((2, 3), (3, 4))),
    "ellipsis": ("...ij,...jk->...ik", ((2, 2, 3), (3, 4))),
    "lonely-index": ("ij,i->j", ((2, 3), (2,))),
    "row-sums-of-product": ("ij,kj->i", ((2, 3), (4, 3))),
    "trace": ("ii->", ((3, 3),)),
    "diagonal": ("ii->i", ((3, 3),)),
    "attention-scores": ("bqd,bkd->bqk", ((2, 3, 4), (2, 5, 4))),
}
for name, (equation, shapes) in EINSUMS.items():
    names = "abc"[: len(shapes)]
    op(
        f"einsum-{name}",
        lambda lib, equation=equation, **t: lib.einsum(equation, *t.values()),
        {n: Inp(shape, F64) for n, shape in zip(names, shapes)},
        ignore_graph=True,
    )
op(
    "einsum-float32-list",
    lambda lib, a, b: lib.einsum("ij,jk->ik", [a, b]),
    {"a": Inp((2, 3), F32), "b": Inp((3, 2), F32)},
    ignore_graph=True,
)
op(
    "einsum-same-operand-twice",
    lambda lib, a: lib.einsum("ij,ij->i", a, a),
    {"a": Inp((2, 3), F64)},
    ignore_graph=True,
)
op2(
    "einsum-double-backward", lambda lib, x: lib.einsum("i,j->ij", x, x) ** 2, {"x": Inp((3,), F64)}
)
op2(
    "einsum-trace-double-backward",
    lambda lib, x: lib.einsum("ii,ij->j", x.reshape(2, 2), x.reshape(2, 2)) ** 2,
    {"x": Inp((4,), F64)},
)
register(
    "einsum-errors",
    lambda lib, inp: {
        "sizes": attempt(lambda: lib.einsum("ij,jk->ik", lib.ones(2, 3), lib.ones(2, 3))),
        "output-letter": attempt(lambda: lib.einsum("ij->ik", lib.ones(2, 3))),
        "too-few-operands": attempt(lambda: lib.einsum("ij,jk->ik", lib.ones(2, 3))),
        "too-many-operands": attempt(lambda: lib.einsum("i", lib.ones(2), lib.ones(2))),
        "too-many-letters": attempt(lambda: lib.einsum("ijk->", lib.ones(2, 3))),
    },
)


# ----------------------------------------------------------------------------- selections

for dt in FLOATS:
    op(
        f"where-{dt}",
        lambda lib, x, y: lib.where(x > 0, x, y),
        {"x": Inp((2, 3), dt), "y": Inp((2, 3), dt)},
    )
op("where-scalar", lambda lib, x: lib.where(x > 0, x, 0.0), {"x": Inp((5,), F32)})
op("where-broadcast", lambda lib, x, y: lib.where(x > y, x, y), {"x": Inp((2, 3)), "y": Inp((3,))})
op("where-method", lambda lib, x: x.where(x < 0, x * 2), {"x": Inp((4,), F64)})
op("relu-by-where", lambda lib, x: lib.where(x > 0, x, lib.zeros_like(x)), {"x": Inp((4,))})
op(
    "gather-dim1",
    lambda lib, x: x.gather(1, lib.tensor([[0, 0], [2, 1]])),
    {"x": Inp((2, 3), F32)},
)
op(
    "gather-dim0",
    lambda lib, x: lib.gather(x, 0, lib.tensor([[1, 0, 1]])),
    {"x": Inp((2, 3), F64)},
)
op2(
    "gather-double-backward",
    lambda lib, x: x.gather(0, lib.tensor([2, 2, 0])) ** 2,
    {"x": Inp((3,), F64)},
)


@register_program("argmin-all-any-equal", {"x": Inp((3, 4), F32, "ties")})
def _(lib, inp):
    x = lib.tensor(inp["x"])
    return {
        "argmin": x.argmin(),
        "argmin1": lib.argmin(x, dim=1),
        "argmin0k": x.argmin(0, keepdim=True),
        "argmax1": x.argmax(1),
        "all": lib.all(x > -3),
        "all1": (x > 0).all(1),
        "any": lib.any(x > 1),
        "any0": (x > 1).any(dim=0),
        "equal_self": lib.equal(x, x.clone()),
        "equal_other": x.equal(x + 1),
        "equal_shape": lib.equal(x, x.reshape(4, 3)),
        "nonzero_where": lib.where(x > 1),
    }


# ----------------------------------------------------------------------------- creation


@register_program("creation-functions")
def _(lib, inp):
    x = lib.ones(2, 3, dtype=lib.float64)
    return {
        "linspace": lib.linspace(-1, 1, steps=5),
        "linspace_pi": lib.linspace(-math.pi, math.pi, 2000),
        "linspace_f64": lib.linspace(0, 1, 7, dtype=lib.float64),
        "linspace_int_dtype": lib.linspace(0, 10, 6, dtype=lib.int64),
        "logspace": lib.logspace(0, 2, 3),
        "logspace_base2": lib.logspace(0, 4, 5, base=2),
        "full": lib.full((2, 2), 7.0),
        "full_int": lib.full((2,), 3),
        "full_bool": lib.full((2,), True),
        "full_like": lib.full_like(x, 2.5),
        "zeros_like": lib.zeros_like(x, dtype=lib.float32),
        "ones_like": lib.ones_like(x, device="cpu"),
        "empty_shape": lib.empty(2, 3).shape,
        "empty_like_shape": lib.empty_like(x).shape,
        "rg": lib.full((3,), 1.0, requires_grad=True),
    }


@register_program("arange-as-pytorch")
def _(lib, inp):
    return {
        "steps": lib.arange(-8.0, 8.0, 0.1),
        "steps64": lib.arange(-8.0, 8.0, 0.1, dtype=lib.float64),
        "element80": lib.arange(-8.0, 8.0, 0.1)[80].item(),
        "small": lib.arange(0, 1, 0.01),
        "odd": lib.arange(1.5, 100.2, 0.77),
        "ints": lib.arange(5),
        "int_step": lib.arange(1, 10, 3),
        "relu_grad": _relu_grad_on_arange(lib),
    }


def _relu_grad_on_arange(lib):
    x = lib.arange(-8.0, 8.0, 0.1, requires_grad=True)
    lib.relu(x).sum().backward()
    return x.grad


# ----------------------------------------------------------------------------- devices and legacy names


@register_program("devices", {"x": Inp((3,), F32)})
def _(lib, inp):
    cpu = lib.device("cpu")
    x = lib.tensor(inp["x"], device=cpu)
    return {
        "device_repr": repr(cpu),
        "device_str": str(cpu),
        "device_type": cpu.type,
        "x_device": str(x.device),
        "same": x.device == cpu,
        "cuda": lib.cuda.is_available(),
        "to_cpu": x.to("cpu"),
        "to_device": x.to(cpu),
        "to_device_dtype": x.to(cpu, lib.float64),
        "cpu": x.cpu(),
        "zeros_dev": lib.zeros(2, device=cpu),
        "randn_shape": lib.randn(2, 2, device="cpu").shape,
        "ones_dev": lib.ones(2, device="cpu", dtype=lib.float64),
        "full_dev": lib.full((2,), 1.5, device=cpu),
        "arange_dev": lib.arange(3, device=cpu),
        "linspace_dev": lib.linspace(0, 1, 3, device=cpu),
        "device_count": lib.cuda.device_count(),
    }


@register_program("legacy-names", {"x": Inp((3,), F32)})
def _(lib, inp):
    from_variable = lib.autograd.Variable(lib.tensor(inp["x"]), requires_grad=True)
    y = (from_variable * 2).sum()
    y.backward()
    floats = lib.FloatTensor([1, 2, 3])
    return {
        "variable": from_variable,
        "variable_type": type(from_variable).__name__,
        "float_tensor": floats,
        "double_tensor": lib.DoubleTensor([1.5]),
        "long_tensor": lib.LongTensor([1, 2]),
        "data": from_variable.data,
        "data_requires_grad": from_variable.data.requires_grad,
        "double": floats.double(),
        "float": floats.double().float(),
        "type": floats.type(),
        "is_tensor": isinstance(floats, lib.Tensor),
    }


@register_program("set_default_device")
def _(lib, inp):
    lib.set_default_device("cpu")
    try:
        return {"t": lib.ones(2), "device": str(lib.ones(2).device)}
    finally:
        lib.set_default_device(None)


def _cuda_errors(lib):
    return {
        "tensor": attempt(lambda: lib.tensor([1.0], device="cuda")),
        "zeros": attempt(lambda: lib.zeros(2, device="cuda")),
        "to": attempt(lambda: lib.ones(2).to("cuda")),
        "method": attempt(lambda: lib.ones(2).cuda()),
    }


# ----------------------------------------------------------------------------- several outputs
op("split-int", lambda lib, x: x.split(2), {"x": Inp((5,), F32)})
op("split-sizes-dim1", lambda lib, x: lib.split(x, [1, 3], dim=1), {"x": Inp((2, 4), F64)})
op("split-larger-than-dim", lambda lib, x: lib.split(x, 10), {"x": Inp((3,), F32)})
op("chunk-last-dim", lambda lib, x: x.chunk(3, -1), {"x": Inp((2, 7), F32)})
op("chunk-fewer-pieces", lambda lib, x: lib.chunk(x, 4), {"x": Inp((6,), F32)})
op("unbind-dim1", lambda lib, x: x.unbind(1), {"x": Inp((3, 2), F32)})
op("unbind-1d", lambda lib, x: lib.unbind(x), {"x": Inp((3,), F64)})


def _halves_product(lib, x):
    a, b = x.split(2)
    return a * b.exp()


def _pieces_product(lib, x):
    a, b, c = x.unbind()
    return lib.stack([a * b, b * c])


op2("split-double-backward", _halves_product, {"x": Inp((4,), F64)})
op2("unbind-double-backward", _pieces_product, {"x": Inp((3,), F64)})


@register_program("split-some-pieces-used", {"x": Inp((6,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    h = x * 2
    pieces = h.split([1, 2, 3])
    (pieces[2] * pieces[0]).sum().backward()
    node = pieces[0].grad_fn
    return {
        "x": x,
        "pieces": pieces,
        "output_nr": [p.output_nr for p in pieces],
        "same_node": all(p.grad_fn is node for p in pieces),
        "saved": (node._saved_split_sizes, node._saved_dim, node._saved_self_sym_sizes),
        "chunk_saved": h.chunk(2)[1].grad_fn._saved_split_size,
        "unbind_saved": h.unbind()[3].grad_fn._saved_dim,
    }


@register_program("split-hooks-retain-grad-and-grad", {"x": Inp((4,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    a, b = (x * 1).chunk(2)
    a.retain_grad()
    b.register_hook(lambda g: g * 10)
    seen = []
    a.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_outputs))
    (a * b).sum().backward()
    c, d = (x * 1).chunk(2)
    return {
        "x": x,
        "a": a,
        "seen": seen,
        "grad_of_piece": lib.autograd.grad((c * d.exp()).sum(), [d, x]),
    }


@register_program("split-errors", {"x": Inp((6,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    return {
        "sizes-sum": attempt(lambda: x.split([1, 2])),
        "zero": attempt(lambda: x.split(0)),
        "negative": attempt(lambda: x.split(-1)),
        "negative-size": attempt(lambda: x.split([1, -1, 6])),
        "dim": attempt(lambda: x.split(2, dim=1)),
        "chunks": attempt(lambda: x.chunk(0)),
        "0-d": attempt(lambda: lib.tensor(2.0).split(1)),
        "unbind-0-d": attempt(lambda: lib.tensor(2.0).unbind()),
        "unbind-dim": attempt(lambda: x.unbind(2)),
        "empty": (lib.zeros(0).split(2), lib.zeros(0).chunk(2), x.split([6, 0])),
    }


def _sin_cos(lib, materialize=True):
    class SinCos(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, grad_sin, grad_cos):
            (x,) = ctx.saved_tensors
            ctx.received = (grad_sin, grad_cos)
            grad = None
            if grad_sin is not None:
                grad = grad_sin * x.cos()
            if grad_cos is not None:
                grad = -grad_cos * x.sin() if grad is None else grad - grad_cos * x.sin()
            return grad

    return SinCos


@register_program("custom-two-outputs", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    s, c = _sin_cos(lib).apply(x)
    (s * c).sum().backward()
    both = x.grad.clone()
    x.grad = None
    s2, c2 = _sin_cos(lib).apply(x)
    c2.sum().backward()
    return {
        "s": s,
        "c": c,
        "output_nr": (s.output_nr, c.output_nr),
        "same_node": s.grad_fn is c.grad_fn,
        "both": both,
        "x": x,
        "zeros_for_unused": s2.grad_fn.received,
    }


@register_program("custom-two-outputs-double-backward", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    s, c = _sin_cos(lib).apply(x)
    (g,) = lib.autograd.grad((s * c).sum(), x, create_graph=True)
    g.sum().backward()
    return {"g": g, "x": x}


@register_program("custom-materialize-grads-false", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    s, c = _sin_cos(lib, materialize=False).apply(x)
    s.sum().backward()
    return {"x": x, "received": s.grad_fn.received}


@register_program("custom-sort-like-indices", {"x": Inp((5,), F32)})
def _(lib, inp):
    class SortLike(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            indices = lib.from_numpy(x.detach().numpy().argsort(kind="stable"))
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return x[indices], indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            ctx.received = grad_indices
            grad = lib.zeros_like(grad_values)
            grad[indices] = grad_values
            return grad

    x = lib.tensor(inp["x"], requires_grad=True)
    values, indices = SortLike.apply(x)
    (values * lib.arange(1.0, 6.0)).sum().backward()
    return {
        "values": values,
        "indices": indices,
        "output_nr": (values.output_nr, indices.output_nr),
        "x": x,
        "indices_grad": values.grad_fn.received,
    }


@register_program("custom-outputs-that-are-not-tensors", {"x": Inp((2,), F32)})
def _(lib, inp):
    class WithCount(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            return 2, x * 3, x * 2

        @staticmethod
        def backward(ctx, grad_count, grad_a, grad_b):
            ctx.received = (grad_count, grad_a, grad_b)
            return grad_a * 3 + grad_b * 2

    class One(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            return (x * 3,)

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    x = lib.tensor(inp["x"], requires_grad=True)
    out = WithCount.apply(x)
    out[2].sum().backward()
    one = One.apply(x)
    return {
        "out": out,
        "output_nr": (out[1].output_nr, out[2].output_nr),
        "x": x,
        "received": out[1].grad_fn.received,
        "one": one,
    }


@register_program("custom-wrong-number-of-gradients", {"x": Inp((2,), F32)})
def _(lib, inp):
    class TooFew(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x, y):
            return x + y, x - y

        @staticmethod
        def backward(ctx, grad_sum, grad_difference):
            return grad_sum + grad_difference

    class TooMany(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            return x + 1, x - 1

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a, grad_b, None

    x = lib.tensor(inp["x"], requires_grad=True)

    def run(function, *args):
        a, b = function.apply(*args)
        (a + b).sum().backward()

    return {
        "too-few": attempt(lambda: run(TooFew, x, x)),
        "too-many": attempt(lambda: run(TooMany, x)),
    }


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_curriculum_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_curriculum_live(prog):
    H.check_against_live_torch(prog)


def test_asking_for_cuda_says_the_kit_runs_on_the_cpu():
    """PyTorch without CUDA says 'Torch not compiled with CUDA enabled'; the kit says
    what it is instead, and every entry point raises the same kind of error."""
    import autogradkit

    for outcome in _cuda_errors(autogradkit).values():
        assert isinstance(outcome, H.Raised), outcome
        assert isinstance(outcome.error, RuntimeError)
        assert "CPU only" in str(outcome.error)
