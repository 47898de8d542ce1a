"""0-d tensors against PyTorch: the fast path of ``+ - * /`` on 0-d operands.

A 0-d float tensor combined with a Python number (every link of a chain such as
``t = t * 1.001 + 0.001``), or with another 0-d tensor of its dtype, is computed on
NumPy scalars rather than on 0-d arrays (``ops/_promotion.py``), and its 0-d
gradients travel through the engine as NumPy scalars. These programs check what
that path must keep: dtypes and promotion, values at the edges of the float range
without warnings, the "modified by an inplace operation" error for saved 0-d
inputs (recognised by identity), double backward through 0-d products, and the
tensors that hooks, ``retain_grad`` and ``.grad`` hand back (shape ``()``).
"""

from __future__ import annotations

import zlib

import harness as H
import pytest
from harness import Program, attempt

H.import_torch_jvp_decompositions()

PROGRAMS: list[Program] = []
FLOATS = ("float32", "float64")


def register(pid: str, fn, **options) -> None:
    pid = "zero-d/" + pid
    PROGRAMS.append(Program(pid, fn, {}, zlib.crc32(pid.encode()) % 100_000, **options))


# ----------------------------------------------------------------------------- dtypes


def _chain(dtype: str, links: int, start: float):
    def fn(lib, inp):
        t0 = lib.tensor(start, dtype=getattr(lib, dtype), requires_grad=True)
        t = t0
        for _ in range(links):
            t = t * 1.001 + 0.001
        t = 2 - (t - 0.5) * 3
        t.backward()
        return {"y": t, "t0": t0}

    return fn


for _dt in FLOATS:
    register(f"chain/{_dt}", _chain(_dt, 20, 1.0))
    # At the top of the range: overflow to inf, then inf - inf = nan, all silently.
    register(f"chain-overflow/{_dt}", _chain(_dt, 3, {"float32": 3.3e38}.get(_dt, 1.7e308)))


OPERATIONS = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "rmul": lambda x, y: y * x,
    "div": lambda x, y: x / y,
}


def _mixed(make_x, make_y, op: str):
    def fn(lib, inp):
        x, y = make_x(lib), make_y(lib)
        z = OPERATIONS[op](x, y)
        out = {"z": z}
        if z.requires_grad:
            z.sum().backward()
            out.update(x=x, y=y)
        return out

    return fn


def _zero_d(value, dtype: str, grad: bool = False):
    return lambda lib: lib.tensor(value, dtype=getattr(lib, dtype), requires_grad=grad)


OPERANDS = {
    "f32-f32": (_zero_d(1.5, "float32", True), _zero_d(-2.25, "float32", True)),
    "f64-f64": (_zero_d(1.5, "float64", True), _zero_d(1e-3, "float64", True)),
    "f32-f64": (_zero_d(1.5, "float32", True), _zero_d(0.1, "float64", True)),
    "f64-vec-f32": (_zero_d(0.1, "float64", True), lambda lib: lib.ones(3, requires_grad=True)),
    "f32-int": (_zero_d(1.5, "float32", True), lambda lib: 3),
    "f64-float": (_zero_d(1.5, "float64", True), lambda lib: 0.1),
    "f32-bool": (_zero_d(1.5, "float32", True), lambda lib: True),
    "f64-big-int": (_zero_d(1.5, "float64", True), lambda lib: 2**62),
    "f32-huge-float": (_zero_d(2.0, "float32", True), lambda lib: 1e39),
    "f32-tiny-float": (_zero_d(3e38, "float32", True), lambda lib: 1e-30),
    "f32-zero": (_zero_d(1.5, "float32", True), lambda lib: 0.0),
    "f64-zero-int": (_zero_d(-1.5, "float64", True), lambda lib: 0),
    "int-float": (_zero_d(3, "int64"), lambda lib: 1.5),
    "int-int-wraps": (_zero_d(2**62, "int64"), lambda lib: 4),
    "int-int0d-wraps": (_zero_d(2**62, "int64"), _zero_d(2**62, "int64")),
    "bool-int": (_zero_d(True, "bool"), lambda lib: 1),
    "bool-bool": (_zero_d(True, "bool"), _zero_d(True, "bool")),
    "int-f32": (_zero_d(3, "int64"), _zero_d(0.5, "float32", True)),
}
for _name, (_x, _y) in OPERANDS.items():
    for _op in OPERATIONS:
        register(f"operands/{_name}-{_op}", _mixed(_x, _y, _op))


# ----------------------------------------------------------------------------- saved 0-d inputs


def _modified_saved_input(where: str):
    """A 0-d tensor saved by ``*`` (as an input), then changed in place: backward
    must refuse, naming the tensor's version, as PyTorch does."""

    def fn(lib, inp):
        a = lib.tensor(1.5, requires_grad=True)
        w = lib.tensor(-0.5, requires_grad=True)
        b = a * 2.0
        if where == "nonleaf":
            c = b * w  # saves b (for w's gradient) and w
            b.add_(1.0)
        elif where == "leaf":
            c = b * w
            with lib.no_grad():
                w.mul_(3.0)
        else:  # "number": b * 3.0 saves no tensor, so the change is harmless
            c = b * 3.0 + w
            b.add_(1.0)
        return {"error": attempt(lambda: c.backward()), "a": a, "w": w}

    return fn


for _where in ("nonleaf", "leaf", "number"):
    register(f"modified-saved-input/{_where}", _modified_saved_input(_where))


def _modified_view_of_zero_d(fn_name: str):
    """A view of a 0-d tensor changed in place, before backward."""

    def fn(lib, inp):
        a = lib.tensor(1.5, requires_grad=True)
        b = a * 1.25
        v = {"view": lambda: b.view(()), "index": lambda: b[...], "reshape": lambda: b.reshape(1)}[
            fn_name
        ]()
        v.mul_(2.0)
        c = b * 3.0 + 0.5
        c.backward()
        return {"y": c, "b": b, "v": v, "a": a}

    return fn


for _how in ("view", "index", "reshape"):
    register(f"view-in-place/{_how}", _modified_view_of_zero_d(_how))


# ----------------------------------------------------------------------------- double backward


def _double_backward(dtype: str):
    def fn(lib, inp):
        x = lib.tensor(0.75, dtype=getattr(lib, dtype), requires_grad=True)
        w = lib.tensor(-1.25, dtype=getattr(lib, dtype), requires_grad=True)
        y = x * x * w + x * 0.5 - w
        gx, gw = lib.autograd.grad(y, (x, w), create_graph=True)
        gxx, gxw = lib.autograd.grad(gx, (x, w), create_graph=True)
        (gxxx,) = lib.autograd.grad(gxx, x, allow_unused=True, materialize_grads=True)
        return {"y": gx, "gw": gw, "gxx": gxx, "gxw": gxw, "gxxx": gxxx}

    return fn


for _dt in ("float32", "float64"):
    register(f"double-backward/{_dt}", _double_backward(_dt))


# ----------------------------------------------------------------------------- what users get


def _hooks_and_grads(lib, inp):
    seen = []
    x = lib.tensor(2.0, requires_grad=True)
    h = x * 1.5 + 0.25
    h.retain_grad()
    h.register_hook(lambda g: seen.append(g.clone()))
    x.register_hook(lambda g: g * 2)
    y = h * h - 1.0
    y.backward(retain_graph=True)
    first = x.grad.clone()
    (h * 3.0).backward()  # a second pass accumulates into x.grad
    return {"y": y, "h": h, "x": x, "seen": seen, "first": first, "shape": x.grad.shape}


register("hooks-retain-grad", _hooks_and_grads)


def _grad_of_zero_d(lib, inp):
    x = lib.tensor(0.5, requires_grad=True)
    y = (x * 4.0 - 1.0) * x
    (g,) = lib.autograd.grad(y, x)
    y2 = (x * 4.0 - 1.0) * x
    y2.backward(lib.tensor(2.0))
    return {"g": g, "x": x, "shape": g.shape, "dim": g.dim()}


register("autograd-grad", _grad_of_zero_d)


def _saved_tensors_hooks(lib, inp):
    packed = []

    def pack(t):
        packed.append((tuple(t.shape), str(t.dtype)))
        return t

    x = lib.tensor(1.5, requires_grad=True)
    w = lib.tensor(-2.0, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 1.0):
        y = x * w + x * 2.0
    y.backward()
    return {"y": y, "x": x, "w": w, "packed": [list(p) for p in packed]}


register("saved-tensors-hooks", _saved_tensors_hooks)


def _forward_ad_program(lib, inp):
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        x = fwad.make_dual(lib.tensor(1.5), lib.tensor(2.0))
        y = x * x * 0.5 + 3.0 - x
        primal, tangent = fwad.unpack_dual(y)
        return {"primal": primal, "tangent": tangent}


register("forward-ad", _forward_ad_program)


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_zero_d_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_zero_d_live(prog):
    H.check_against_live_torch(prog)
