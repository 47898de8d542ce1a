"""The autograd API around the operations, against PyTorch: grad mode, detach,
``requires_grad_``, ``retain_grad`` and hooks, ``backward(gradient=...)``,
higher-order gradients, ``autograd.functional``, in-place operations on
non-leaf tensors, tensor metadata and printing.
"""

from __future__ import annotations

import io
import threading
import warnings
import zlib

import harness as H
import pytest
from harness import Inp, Program, attempt

PROGRAMS: list[Program] = []
F32, F64 = "float32", "float64"

H.import_torch_jvp_decompositions()  # (their first import warns: see there)

# Known autogradkit bugs in files this suite does not edit (see test_errors_vs_torch.py).


def program(pid: str, inputs=None, **options):
    """Decorator: register ``fn(lib, inputs)`` as program ``api/<pid>``."""

    def register(fn):
        full = "api/" + pid
        PROGRAMS.append(
            Program(full, fn, dict(inputs or {}), zlib.crc32(full.encode()) % 100_000, **options)
        )
        return fn

    return register


def snapshot(t):
    """A copy of ``t`` (e.g. ``.grad`` between two backward passes)."""
    return None if t is None else t.detach().clone()


# ----------------------------------------------------------------------------- grad mode


@program("no_grad-context", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    before = lib.is_grad_enabled()
    with lib.no_grad():
        inside = lib.is_grad_enabled()
        y = x * 2
        z = y.sum()
    after = lib.is_grad_enabled()
    w = x * 2
    return {"before": before, "inside": inside, "after": after, "y": y, "z": z, "w": w}


@program("no_grad-nested-with-enable_grad", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    modes = []
    with lib.no_grad():
        modes.append(lib.is_grad_enabled())
        a = x * 2
        with lib.enable_grad():
            modes.append(lib.is_grad_enabled())
            b = x * 3
            with lib.no_grad():
                modes.append(lib.is_grad_enabled())
                c = x * 4
            modes.append(lib.is_grad_enabled())
        modes.append(lib.is_grad_enabled())
    modes.append(lib.is_grad_enabled())
    return {"modes": modes, "a": a, "b": b, "c": c}


@program("set_grad_enabled-forms", {"x": Inp((2,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    out = {}
    with lib.set_grad_enabled(False):
        out["ctx_false"] = (lib.is_grad_enabled(), (x * 2).requires_grad)
    with lib.set_grad_enabled(True):
        out["ctx_true"] = (lib.is_grad_enabled(), (x * 2).requires_grad)
    out["after_ctx"] = lib.is_grad_enabled()
    lib.set_grad_enabled(False)  # as a plain call: switches now
    out["after_call"] = (lib.is_grad_enabled(), (x * 2).requires_grad)
    lib.set_grad_enabled(True)
    out["restored"] = lib.is_grad_enabled()

    @lib.set_grad_enabled(False)
    def no_track(t):
        return t * 2, lib.is_grad_enabled()

    out["decorated"] = no_track(x)
    out["after_decorated"] = lib.is_grad_enabled()
    return out


@program("no_grad-and-enable_grad-decorators", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)

    @lib.no_grad()
    def predict(t):
        return t * 2, lib.is_grad_enabled()

    @lib.no_grad
    def predict_bare(t):
        return t * 3

    @lib.enable_grad()
    def train(t):
        return t * 4, lib.is_grad_enabled()

    with lib.no_grad():
        inside = train(x)
    return {
        "predict": predict(x),
        "bare": predict_bare(x),
        "train_inside_no_grad": inside,
        "after": lib.is_grad_enabled(),
        "name": predict.__name__,
    }


@program("no_grad-restores-after-exception")
def _(lib, inp):
    def fail():
        with lib.no_grad():
            raise ValueError("boom")

    error = attempt(fail)
    return {"error": error, "after": lib.is_grad_enabled()}


@program("grad-mode-is-thread-local", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    seen = {}
    switched, checked = threading.Event(), threading.Event()

    def worker_in_default_mode():
        seen["worker_enabled"] = lib.is_grad_enabled()
        seen["worker_result"] = (x * 2).requires_grad

    def worker_turning_it_off():
        with lib.no_grad():
            switched.set()
            checked.wait(5)
            seen["worker_off"] = lib.is_grad_enabled()

    with lib.no_grad():
        t = threading.Thread(target=worker_in_default_mode)
        t.start()
        t.join()
        seen["main_inside_no_grad"] = lib.is_grad_enabled()
    t2 = threading.Thread(target=worker_turning_it_off)
    t2.start()
    switched.wait(5)
    seen["main_while_worker_off"] = lib.is_grad_enabled()
    seen["main_result"] = (x * 2).requires_grad
    checked.set()
    t2.join()
    return seen


# ----------------------------------------------------------------------------- detach, requires_grad_


@program("detach-shares-memory-and-version", {"x": Inp((4,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    d = x.detach()
    flags = (d.requires_grad, d.is_leaf, d.grad_fn, x._version, d._version)
    d.add_(1)
    d.mul_(2)
    return {"flags": flags, "x": x, "d": d, "versions": (x._version, d._version)}


@program("detach-of-non-leaf", {"x": Inp((3,), F64, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 2
    d = y.detach()
    d.zero_()
    loss = y.sum()
    loss.backward()  # y was saved by nothing: still fine
    return {"y": y, "d": d, "versions": (y._version, d._version), "x": x}


@program("detach-then-requires_grad", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x * 2).detach().requires_grad_()
    z = (y * y).sum()
    z.backward()
    return {"y": y, "z": z, "x": x}


@program("requires_grad_-chaining", {"a": Inp((3,), F32), "b": Inp((2, 2), F64)})
def _(lib, inp):
    a = lib.tensor(inp["a"])
    same = a.requires_grad_() is a
    b = lib.tensor(inp["b"]).requires_grad_().requires_grad_(False).requires_grad_(True)
    c = lib.from_numpy(inp["a"].copy()).requires_grad_()
    flags = [(t.requires_grad, t.is_leaf, t.grad_fn) for t in (a, b, c)]
    a.requires_grad = False
    after = a.requires_grad
    y = (b * 2).sum() + (c * 3).sum()
    y.backward()
    return {"same": same, "flags": flags, "after": after, "a": a, "b": b, "c": c, "y": y}


# ----------------------------------------------------------------------------- retain_grad and hooks


@program("retain_grad", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.retain_grad()
    z.backward()
    return {"y": y, "z": z, "x": x, "retains": (x.retains_grad, y.retains_grad, z.retains_grad)}


@program("retain_grad-accumulates", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 3
    y.retain_grad()
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    first = snapshot(y.grad)
    loss.backward()
    return {"first": first, "y": y, "x": x}


@program("hook-replaces-grad", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x.exp()
    seen = []

    def hook(g):
        seen.append(snapshot(g))
        return g * 10

    handle = y.register_hook(hook)
    (y * 2).sum().backward()
    return {"x": x, "seen": seen, "has_remove": callable(handle.remove)}


@program("hook-on-leaf", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(snapshot(g)))
    x.register_hook(lambda g: g + 1)
    (x * x).sum().backward()
    return {"x": x, "seen": seen}


@program("hook-removed-by-handle", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 2
    h1 = y.register_hook(lambda g: g * 100)
    h2 = x.register_hook(lambda g: g * 1000)
    h1.remove()
    h2.remove()
    y.sum().backward()
    return {"x": x}


@program("hooks-run-in-order", {"x": Inp((2,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x + 1
    order = []

    def first(g):
        order.append(("first", snapshot(g)))
        return g * 2

    def second(g):
        order.append(("second", snapshot(g)))
        return g + 3

    y.register_hook(first)
    y.register_hook(second)
    (y * 1).sum().backward()
    return {"order": order, "x": x}


@program("hook-and-retain_grad-order", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    a = x * 2
    a.retain_grad()  # retain_grad registered before the hook ...
    a.register_hook(lambda g: g * 10)
    b = x * 3
    b.register_hook(lambda g: g * 10)  # ... and after it
    b.retain_grad()
    (a + b).sum().backward()
    return {"a": a, "b": b, "x": x}


@program("hook-sees-grad-of-shared-tensor", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    h = x.tanh()
    seen = []
    h.register_hook(lambda g: seen.append(snapshot(g)))
    loss = (h * 2).sum() + (h * h).sum()
    loss.backward()
    return {"seen": seen, "x": x}


# ----------------------------------------------------------------------------- backward(gradient=...)


@program("jacobian-product-tutorial")
def _(lib, inp):
    inp_ = lib.eye(4, 5, requires_grad=True)
    out = (inp_ + 1).pow(2).t()
    out.backward(lib.ones_like(out), retain_graph=True)
    first = snapshot(inp_.grad)
    out.backward(lib.ones_like(out), retain_graph=True)
    second = snapshot(inp_.grad)
    inp_.grad.zero_()
    out.backward(lib.ones_like(out), retain_graph=True)
    return {"out": out, "first": first, "second": second, "third": inp_.grad, "inp": inp_}


@program("backward-gradient-vector", {"x": Inp((4,), F32), "v": Inp((4,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    v = lib.tensor(inp["v"])
    y = x * x * 3
    y.backward(gradient=v)
    return {"y": y, "x": x}


@program("autograd-backward-several-roots", {"x": Inp((3,), F64), "w": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    w = lib.tensor(inp["w"], requires_grad=True)
    a = x * w
    b = (x + w).sum()
    lib.autograd.backward([a, b], [lib.ones(3, dtype=lib.float64) * 2, None])
    return {"x": x, "w": w}


@program("backward-retain_graph-twice", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x.sigmoid() * x).sum()
    y.backward(retain_graph=True)
    first = snapshot(x.grad)
    y.backward(retain_graph=True)
    second = snapshot(x.grad)
    x.grad = None
    y.backward()
    return {"first": first, "second": second, "x": x, "y": y}


@program("grad-accumulates-over-graphs", {"w": Inp((3, 2), F32), "x": Inp((3,), F32)})
def _(lib, inp):
    w = lib.tensor(inp["w"], requires_grad=True)
    x = lib.tensor(inp["x"])
    grads = []
    for _ in range(3):
        loss = (x @ w).relu().sum()
        loss.backward()
        grads.append(snapshot(w.grad))
    with lib.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    return {"grads": grads, "w": w}


@program("scalar-backward-equals-tensor-one", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x**2).sum()
    y.backward(lib.tensor(1.0), retain_graph=True)
    first = snapshot(x.grad)
    x.grad = None
    y.backward()
    return {"first": first, "x": x}


# ----------------------------------------------------------------------------- higher-order gradients

# The first derivative's own graph (built by create_graph=True) follows PyTorch's
# derivative formulas only where autogradkit writes them the same way; where they
# differ in structure the graph is not compared (values and all derivatives are).


# The graph of a derivative follows each backward formula. PyTorch's C++ formulas
# multiply by a Python number with mul.Scalar (MulBackward1, one input) where
# autogradkit's NumPy-style formulas record MulBackward0 with a (None, 0) entry: a
# structural difference only (values and further derivatives agree), so the
# derivative graphs are not compared.
@program("grad-create_graph-x-cubed", {"x": Inp((), F32, "halves")}, ignore_graph=True)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x**3
    (d1,) = lib.autograd.grad(y, x, create_graph=True)
    (d2,) = lib.autograd.grad(d1, x, create_graph=True)
    (d3,) = lib.autograd.grad(d2, x)
    return {"y": y, "d1": d1, "d2": d2, "d3": d3}


@program("grad-create_graph-third-derivatives", {"x": Inp((4,), F64)}, ignore_graph=True)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    out = {}
    for name, f in (
        ("tanh", lambda t: t.tanh()),
        ("sigmoid", lambda t: t.sigmoid()),
        ("exp", lambda t: t.exp() * 0.5),
        ("log", lambda t: (t * t + 1).log()),
        ("sqrt", lambda t: (t * t + 1).sqrt()),
        ("div", lambda t: 1 / (t * t + 2)),
    ):
        y = f(x).sum()
        (d1,) = lib.autograd.grad(y, x, create_graph=True)
        (d2,) = lib.autograd.grad(d1.sum(), x, create_graph=True)
        (d3,) = lib.autograd.grad(d2.sum(), x)
        out[name] = (d1, d2, d3)
    return out


@program(
    "hessian-vector-product",
    {"x": Inp((3,), F64), "y": Inp((3,), F64), "v": Inp((3,), F64)},
    ignore_graph=True,
)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"], requires_grad=True)
    v = lib.tensor(inp["v"])
    f = (x**2 * y).sum() + (x * y).exp().sum()
    gx, gy = lib.autograd.grad(f, (x, y), create_graph=True)
    (hvp,) = lib.autograd.grad(gx, x, grad_outputs=v, retain_graph=True)
    (mixed,) = lib.autograd.grad((gx * v).sum(), y, retain_graph=True)
    (gx * v).sum().backward()
    return {"gx": gx, "gy": gy, "hvp": hvp, "mixed": mixed, "x": x, "y": y}


@program(
    "double-backward-through-layer",
    {"x": Inp((4, 3), F32), "w": Inp((3, 2), F32), "t": Inp((4, 2), F32, "binary")},
    ignore_graph=True,
)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    w = lib.tensor(inp["w"], requires_grad=True)
    t = lib.tensor(inp["t"])
    loss = lib.nn.functional.binary_cross_entropy_with_logits(x @ w, t)
    (gw,) = lib.autograd.grad(loss, w, create_graph=True)
    penalty = (gw**2).sum()
    penalty.backward()
    return {"loss": loss, "gw": gw, "penalty": penalty, "x": x, "w": w}


@program(
    "double-backward-bce",
    {"p": Inp((4,), F64, "unit"), "t": Inp((4,), F64, "unit"), "w": Inp((4,), F64, "positive")},
    ignore_graph=True,
)
def _(lib, inp):
    p = lib.tensor(inp["p"], requires_grad=True)
    t = lib.tensor(inp["t"])
    w = lib.tensor(inp["w"])
    out = {}
    for name, kw in (("plain", {}), ("weight", {"weight": w}), ("sum", {"reduction": "sum"})):
        loss = lib.nn.functional.binary_cross_entropy(p, t, **kw)
        (g,) = lib.autograd.grad(loss, p, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), p)
        out[name] = (loss, g, h)
        lw = lib.nn.functional.binary_cross_entropy_with_logits(p, t, pos_weight=w, **kw)
        (gl,) = lib.autograd.grad(lw, p, create_graph=True)
        (hl,) = lib.autograd.grad(gl.sum(), p)
        out[name + "_logits"] = (lw, gl, hl)
    return out


@program(
    "double-backward-mse-and-relu",
    {"x": Inp((5,), F64, "nonzero"), "y": Inp((5,), F64)},
    ignore_graph=True,
)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"])
    loss = lib.nn.functional.mse_loss(x.relu() * x, y)
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)
    return {"g": g, "h": h}


@program("backward-create_graph", {"x": Inp((3,), F64)}, ignore_graph=True)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x**3).sum()
    y.backward(create_graph=True)
    g = x.grad
    flags = (g.requires_grad, g.grad_fn is not None)
    (h,) = lib.autograd.grad(g.sum(), x)
    return {"g": g, "flags": flags, "h": h}


# ----------------------------------------------------------------------------- autograd.functional


def _f_square(x):
    return (x + 1) ** 2


def _f_matvec(x):
    return x.reshape(2, 3) @ x[:3].tanh()


def _f_two_inputs(x, y):
    return x * y.exp() + x.sum()


def _f_two_outputs(x):
    return x.sigmoid(), (x * x).sum()


def _f_two_in_two_out(x, y):
    return x @ y, (x * 2).sum() - y.sum()


def _f_scalar(x):
    return (x**3).sum()


def _f_ignores_input(x, y):
    return x * 2


FUNCTIONS = {
    "square": (_f_square, {"x": Inp((2, 3), F64)}),
    "matvec": (_f_matvec, {"x": Inp((6,), F64)}),
    "two_inputs": (_f_two_inputs, {"x": Inp((3,), F64), "y": Inp((3,), F64)}),
    "two_outputs": (_f_two_outputs, {"x": Inp((3,), F32)}),
    "two_in_two_out": (_f_two_in_two_out, {"x": Inp((2, 3), F64), "y": Inp((3, 2), F64)}),
    "scalar": (_f_scalar, {"x": Inp((4,), F64)}),
    "ignores_input": (_f_ignores_input, {"x": Inp((3,), F64), "y": Inp((2,), F64)}),
}


def _functional_inputs(lib, inp, spec):
    xs = tuple(lib.tensor(inp[n]) for n in sorted(spec))
    return xs[0] if len(xs) == 1 else xs


for fname, (func, spec) in FUNCTIONS.items():

    def _jacobian(lib, inp, func=func, spec=spec):
        xs = _functional_inputs(lib, inp, spec)
        return {"jacobian": lib.autograd.functional.jacobian(func, xs)}

    def _vjp(lib, inp, func=func, spec=spec):
        xs = _functional_inputs(lib, inp, spec)
        with lib.no_grad():
            outs = func(*xs) if isinstance(xs, tuple) else func(xs)
        if isinstance(outs, tuple):
            v = tuple(H.weight_like(lib, o, 1) for o in outs)
        else:
            v = H.weight_like(lib, outs, 1)
        return {"vjp": lib.autograd.functional.vjp(func, xs, v)}

    def _jvp(lib, inp, func=func, spec=spec):
        xs = _functional_inputs(lib, inp, spec)
        if isinstance(xs, tuple):
            v = tuple(H.weight_like(lib, x, 2 + i) for i, x in enumerate(xs))
        else:
            v = H.weight_like(lib, xs, 2)
        return {"jvp": lib.autograd.functional.jvp(func, xs, v)}

    program(f"functional-jacobian-{fname}", spec)(_jacobian)
    program(f"functional-vjp-{fname}", spec)(_vjp)
    program(f"functional-jvp-{fname}", spec)(_jvp)


@program("functional-vjp-scalar-without-v", {"x": Inp((4,), F64)})
def _(lib, inp):
    return lib.autograd.functional.vjp(_f_scalar, lib.tensor(inp["x"]))


@program("functional-leaves-inputs-alone", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    j = lib.autograd.functional.jacobian(_f_square, x)
    return {"j": j, "x": x}


@program("functional-jacobian-create_graph", {"x": Inp((3,), F64)}, ignore_graph=True)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    j = lib.autograd.functional.jacobian(lambda t: t.tanh() * t, x, create_graph=True)
    j.sum().backward()
    return {"j_requires_grad": j.requires_grad, "x": x}


@program("autograd-grad-options")
def _(lib, inp):
    """autograd.grad's options: materialize_grads (zeros that require grad under
    create_graph; refused with allow_unused=False), is_grads_batched (one
    vector-Jacobian product per row of grad_outputs, unused inputs first),
    only_inputs=False (a FutureWarning)."""
    x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    w = lib.tensor([0.5, 1.5, -1.0], requires_grad=True)
    u = lib.tensor([2.0, 2.0, 2.0], requires_grad=True)
    g = lib.autograd.grad

    def h():
        return (x * w).sin()

    rows = lib.tensor([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]])
    batched = g(h(), (x, w), rows, is_grads_batched=True)
    batched_graph = g(
        h(), (x, u), rows, is_grads_batched=True, create_graph=True, allow_unused=True
    )
    return {
        "materialize": g(h().sum(), (x, u), materialize_grads=True),
        "materialize_create_graph": g(h().sum(), (x, u), materialize_grads=True, create_graph=True),
        "materialize_not_unused": attempt(
            lambda: g(h().sum(), (x, u), materialize_grads=True, allow_unused=False)
        ),
        "batched": batched,
        "batched_graph_requires_grad": [t is None or t.requires_grad for t in batched_graph],
        "batched_values": [None if t is None else t.detach() for t in batched_graph],
        "batched_unused": attempt(lambda: g(h(), (x, u), rows, is_grads_batched=True)),
        "batched_materialize": g(h(), (x, u), rows, is_grads_batched=True, materialize_grads=True),
        "batched_misshapen": attempt(lambda: g(h(), x, lib.ones(2, 2), is_grads_batched=True)),
        "only_inputs": g(h().sum(), x, only_inputs=False),
    }


@program("load_state_dict-and-param-groups")
def _(lib, inp):
    """Module.load_state_dict returns PyTorch's _IncompatibleKeys (and refuses, in
    PyTorch's words, missing and unexpected names and values of another shape);
    an optimizer refuses a parameter in two groups (it would be updated twice), a
    set of parameters and a lone tensor, and warns of one listed twice."""
    nn = lib.nn
    lib.manual_seed(0)

    def model():
        return nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))

    source, target = model(), model()
    sd = source.state_dict()
    bad = dict(sd)
    bad.pop("0.bias")
    bad["extra"] = lib.ones(1)
    bad["2.weight"] = lib.ones(5, 5)
    partial = {k: v for k, v in sd.items() if k != "0.bias"} | {"zz": lib.ones(1)}
    loads = {
        "all": repr(target.load_state_dict(sd)),
        "same_values": [
            bool((a == b).all()) for a, b in zip(source.parameters(), target.parameters())
        ],
        "strict_errors": attempt(lambda: target.load_state_dict(bad)),
        "not_strict": repr(target.load_state_dict(partial, strict=False)),
        "not_strict_keys": list(target.load_state_dict(partial, strict=False)),
        "not_dict": attempt(lambda: target.load_state_dict([1])),
    }
    p = lib.ones(2, requires_grad=True)
    q = lib.ones(3, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1)
    groups = {
        "twice_in_group": len(lib.optim.SGD([p, p], lr=0.1).param_groups[0]["params"]),
        "tensor": attempt(lambda: lib.optim.SGD(lib.ones(2, requires_grad=True), lr=0.1)),
        "two_groups": attempt(lambda: lib.optim.SGD([{"params": [p]}, {"params": p}], lr=0.1)),
        "set": attempt(lambda: lib.optim.SGD([{"params": [p]}, {"params": {q}}], lr=0.1)),
        "adam_two_groups": attempt(lambda: lib.optim.Adam([{"params": [p, q]}, {"params": [q]}])),
        "add_again": attempt(lambda: opt.add_param_group({"params": [p]})),
        "add_new": attempt(lambda: opt.add_param_group({"params": q, "lr": 1.0})),
        "lrs": [g["lr"] for g in opt.param_groups],
    }
    return {"loads": loads, "groups": groups, "target": list(target.parameters())}


@program("sum_to_size")
def _(lib, inp):
    """Tensor.sum_to_size: sums away leading dimensions and those where the size
    has 1 (SumBackward1, then ViewBackward0 when dimensions go); its own size
    returns the tensor itself; sizes that do not expand are refused."""
    x = lib.arange(6.0).reshape(2, 3).requires_grad_()
    sizes = [(1, 3), ((1, 3),), (3,), (2, 1), (1, 1), ([2, 1],), (lib.Size([1, 3]),), (1,)]
    summed = [x.sum_to_size(*size) for size in sizes]
    same = x.sum_to_size(2, 3)
    (summed[0] * lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    return {
        "summed": summed,
        "keyword": x.sum_to_size(size=(2, 1)),
        "same_is_x": same is x,
        "int": lib.arange(6).reshape(2, 3).sum_to_size(3),
        "zero_d": lib.tensor(3.0).sum_to_size(()),
        "x": x,
        "errors": [
            attempt(lambda: x.sum_to_size()),
            attempt(lambda: x.sum_to_size(2)),
            attempt(lambda: x.sum_to_size(4, 3)),
            attempt(lambda: x.sum_to_size(1, 2, 3)),
            attempt(lambda: x.sum_to_size(-1, 3)),
            attempt(lambda: lib.tensor(3.0).sum_to_size(1)),
            attempt(lambda: x.sum_to_size((1.0, 3))),
            attempt(lambda: x.sum_to_size(1.5)),
            attempt(lambda: x.sum_to_size(1.0, 3)),
        ],
    }


@program("tensor-byte-sizes")
def _(lib, inp):
    """element_size(), itemsize and nbytes per dtype (what a hook that keeps a
    smaller copy of a saved tensor saves)."""
    tensors = [
        lib.ones(2, 3),
        lib.ones(4, dtype=lib.float64),
        lib.arange(5),
        lib.tensor([True, False]),
        lib.tensor(1.5),
        lib.ones(0, 3),
    ]
    return [(t.element_size(), t.itemsize, t.nbytes) for t in tensors]


@program("torch-save-and-load")
def _(lib, inp):
    """torch.save / torch.load round trips (a tensor comes back as a leaf with its
    requires_grad; parameters, state_dict, dtypes, sizes, sets), and weights_only
    refusing what is not a weight."""

    def round_trip(obj, **options):
        buffer = io.BytesIO()
        lib.save(obj, buffer)
        buffer.seek(0)
        return lib.load(buffer, **options)

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = round_trip(x * 2)
    lib.manual_seed(0)
    state = round_trip(lib.nn.Linear(2, 1).state_dict())
    p = round_trip(lib.nn.Parameter(lib.ones(2)))
    loaded = round_trip(
        {"n": [1, 2.5, "s", None, (True,)], "t": lib.arange(3), "d": lib.float64},
    )
    return {
        "y": y,
        "y_is_leaf": y.is_leaf,
        "state": dict(state),
        "state_type": type(state).__name__,
        "parameter": (isinstance(p, lib.nn.Parameter), p),
        "loaded": loaded,
        "size_and_set": [repr(v) for v in round_trip((lib.Size([2, 3]), {1, 2}, 1 + 2j))],
        "refused": attempt(lambda: round_trip(slice(1, 2))),
        "trusted": repr(round_trip(slice(1, 2), weights_only=False)),
        "not_a_file": attempt(lambda: lib.save(x, 5)),
        "not_seekable": attempt(lambda: lib.load(5)),
    }


@program("save_on_cpu-and-disable_saved_tensors_hooks")
def _(lib, inp):
    """save_on_cpu is a saved_tensors_hooks (whose with-statement gives None) that
    keeps CPU tensors as they are; pin_memory=True without an accelerator saves a
    copy, or fails for device_type="cpu"; disable_saved_tensors_hooks makes opening
    hooks (or disabling while hooks are open) raise its message, and nests."""
    G = lib.autograd.graph
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out: dict = {"subclass": issubclass(G.save_on_cpu, G.saved_tensors_hooks)}
    for pin in (False, True):
        with G.save_on_cpu(pin_memory=pin) as entered:
            y = x * x.exp()
        y.sum().backward()
        out[f"pin={pin}"] = [entered, y, x.grad.clone()]
        x.grad = None

    def pinned_on_cpu():
        with G.save_on_cpu(True, device_type="cpu"):
            return x * x

    def hooks_inside_disable():
        with G.disable_saved_tensors_hooks("no hooks here"), G.save_on_cpu():
            pass

    def disable_inside_hooks():
        hooks = G.saved_tensors_hooks(lambda t: t, lambda t: t)
        with hooks, G.disable_saved_tensors_hooks("inside"):
            pass

    def nested():
        with G.disable_saved_tensors_hooks("outer"):
            with G.disable_saved_tensors_hooks("inner"):
                pass
            with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def disabled_then_backward():
        with G.disable_saved_tensors_hooks("m"):
            y = x * x
        y.sum().backward()
        return x.grad

    out["attempts"] = [
        attempt(pinned_on_cpu),
        attempt(hooks_inside_disable),
        attempt(disable_inside_hooks),
        attempt(nested),
        attempt(disabled_then_backward),
    ]
    with G.saved_tensors_hooks(lambda t: t * 1, lambda t: t):  # usable again afterwards
        z = (x * x).sum()
    z.backward()
    out["after"] = x.grad
    return out


@program("comparisons")
def _(lib, inp):
    """eq/ne/lt/le/gt/ge as functions, methods (and PyTorch's other names) and in
    place: bool results that never require grad; the in-place forms write 0/1 in
    the tensor's dtype and, recorded, have zero gradients (GtBackward0/1 nodes)."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    o = lib.tensor([2.0, 2.0, 2.0], requires_grad=True)
    i = lib.tensor([1, 5, 0])
    b = lib.tensor([True, False, True])
    out = {
        "functions": [getattr(lib, n)(x, 2) for n in ("eq", "ne", "lt", "le", "gt", "ge")],
        "methods": [getattr(x, n)(o) for n in ("eq", "ne", "lt", "le", "gt", "ge")],
        "aliases": [
            getattr(x, n)(i)
            for n in ("greater", "greater_equal", "less", "less_equal", "not_equal")
        ],
        "keywords": [x.gt(other=2), lib.gt(input=x, other=i)],
        "in_place_plain": [
            x.detach().clone().gt_(i),
            i.clone().lt_(2.5),
            b.clone().ge_(0.5),
            x.detach().clone().eq_(2),
        ],
        "errors": [
            attempt(lambda: x < lib.ones(2)),
            attempt(lambda: x.eq(lib.ones(2))),
            attempt(lambda: x.gt(None)),
            attempt(lambda: x.gt_("a")),
            attempt(lambda: lib.gt(2, x)),
            attempt(lambda: lib.ne(x, None)),
            attempt(lambda: x.gt_(1)),
            attempt(lambda: x.detach().clone().le_(lib.tensor([[1.0], [2.0]]))),
            attempt(lambda: x.lt(2 + 1j)),
        ],
    }
    recorded = {}
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        by_number, by_tensor, by_int = x * 1, x * 1, x * 1
        getattr(by_number, name + "_")(2)
        getattr(by_tensor, name + "_")(o)
        getattr(by_int, name + "_")(i)
        recorded[name] = [by_number, by_tensor, by_int]
    p = lib.zeros(3)
    p.gt_(o)  # only the other operand requires grad
    sum(t.sum() for ts in recorded.values() for t in ts).backward()
    return {**out, "recorded": recorded, "p": p, "x": x, "o": o}


@program("functional-hessian-forward-over-reverse", ignore_graph=True)
def _(lib, inp):
    """hessian with outer_jacobian_strategy="forward-mode" requires grad even with
    create_graph=False (PyTorch's tangents record a graph): every block of a row
    whose column depends on the inputs, a whole row or none; its backward gives the
    third derivatives. Graphs below the top node differ (PyTorch's come from vmap)."""
    F = lib.autograd.functional
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([0.5, -1.0], requires_grad=True)
    z = lib.tensor(1.5)  # not requiring grad: the Hessian still does

    def f(x, y):
        return (x**3 * y.sin()).sum() + x[0] * y[1]

    def g(x, y):
        return (x * y.sin()).sum()  # linear in x: the x-x block is zero

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
        h_f = F.hessian(f, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode")
        h_g = F.hessian(g, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode")
        h_z = F.hessian(
            lambda z: z.exp() * z, z, vectorize=True, outer_jacobian_strategy="forward-mode"
        )
        h_lin = F.hessian(
            lambda x: (x * 3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"
        )
    sum((i + 1) * h.sum() for i, h in enumerate([*h_f[0], *h_f[1]])).backward()
    flags = {
        name: [[(b.requires_grad, type(b.grad_fn).__name__) for b in row] for row in h]
        for name, h in {"f": h_f, "g": h_g}.items()
    }
    return {
        "h_f": h_f,
        "h_g": h_g,
        "h_z": [h_z, h_z.requires_grad, type(h_z.grad_fn).__name__],
        "h_lin": [h_lin, h_lin.requires_grad],
        "flags": flags,
        "x": x,
        "y": y,
    }


def _functional(lib):
    return lib.autograd.functional


def _x2(lib):
    return lib.tensor([1.0, 2.0])


# Each entry calls autograd.functional in a way PyTorch answers with a result or an
# error in its own words (strict mode, misshapen or misplaced v, lists, strategies).
FUNCTIONAL_CALLS = {
    "jacobian-strict-constant": lambda lib, F: F.jacobian(
        lambda x: lib.ones(2), _x2(lib), strict=True
    ),
    "jacobian-strict-detached": lambda lib, F: F.jacobian(
        lambda x: x.detach() * 2, _x2(lib), strict=True
    ),
    "jacobian-strict-unused-input": lambda lib, F: F.jacobian(
        lambda x, y: x * 2, (_x2(lib), _x2(lib)), strict=True
    ),
    "jacobian-strict-create_graph-linear": lambda lib, F: F.jacobian(
        lambda x: x * 2, _x2(lib), strict=True, create_graph=True
    ),
    "jacobian-list-inputs": lambda lib, F: F.jacobian(lambda x, y: x * y, [_x2(lib), _x2(lib)]),
    "jacobian-number-input": lambda lib, F: F.jacobian(lambda x: x * 2, 3.0),
    "jacobian-number-output": lambda lib, F: F.jacobian(lambda x: 3.0, _x2(lib)),
    "jacobian-tuple-output-number": lambda lib, F: F.jacobian(lambda x: (x, 3), _x2(lib)),
    "jacobian-vectorize": lambda lib, F: F.jacobian(
        lambda x, y: (x * y, lib.ones(2)), (_x2(lib), _x2(lib)), vectorize=True
    ),
    "jacobian-strict-vectorize": lambda lib, F: F.jacobian(
        lambda x: x.exp(), _x2(lib), strict=True, vectorize=True
    ),
    "jacobian-bad-strategy": lambda lib, F: F.jacobian(lambda x: x.exp(), _x2(lib), strategy="fwd"),
    "jacobian-forward-mode": lambda lib, F: F.jacobian(
        lambda x: x.exp(), _x2(lib), strategy="forward-mode"
    ),
    "jacobian-forward-mode-vectorize": lambda lib, F: F.jacobian(
        lambda x, y: (x * y, x.sum() * 2, lib.ones(3)),
        (_x2(lib), lib.tensor([3.0, 4.0])),
        strategy="forward-mode",
        vectorize=True,
    ),
    "jacobian-forward-mode-strict": lambda lib, F: F.jacobian(
        lambda x: x.exp(), _x2(lib), strategy="forward-mode", vectorize=True, strict=True
    ),
    "jacobian-forward-mode-create_graph": lambda lib, F: F.jacobian(
        lambda x: x.exp(), _x2(lib), strategy="forward-mode", vectorize=True, create_graph=True
    ),
    "vjp-v-misshapen": lambda lib, F: F.vjp(lambda x: x.exp(), _x2(lib), lib.ones(3)),
    "vjp-v-tuple-for-one-output": lambda lib, F: F.vjp(
        lambda x: x.exp(), _x2(lib), (lib.ones(2), lib.ones(2))
    ),
    "vjp-v-tuple-too-short": lambda lib, F: F.vjp(lambda x: (x.exp(), x), _x2(lib), (lib.ones(2),)),
    "vjp-v-entry-misshapen": lambda lib, F: F.vjp(
        lambda x: (x.exp(), x), _x2(lib), (lib.ones(2), lib.ones(3))
    ),
    "vjp-v-number": lambda lib, F: F.vjp(lambda x: x * 2, _x2(lib), 3.0),
    "vjp-v-list": lambda lib, F: F.vjp(lambda x: x * 2, _x2(lib), [lib.ones(2)]),
    "vjp-list-outputs": lambda lib, F: F.vjp(lambda x: [x * 2, x], _x2(lib), lib.ones(2)),
    "vjp-strict-constant": lambda lib, F: F.vjp(
        lambda x: lib.ones(2), _x2(lib), lib.ones(2), strict=True
    ),
    "vjp-strict-unused": lambda lib, F: F.vjp(
        lambda x, y: x * 2, (_x2(lib), _x2(lib)), lib.ones(2), strict=True
    ),
    "vjp-strict-create_graph-linear": lambda lib, F: F.vjp(
        lambda x: x * 2, _x2(lib), lib.ones(2), strict=True, create_graph=True
    ),
    "vjp-create_graph": lambda lib, F: F.vjp(
        lambda x: x**3, lib.tensor([1.0, 2.0], requires_grad=True), lib.ones(2), create_graph=True
    ),
    "jvp-v-misshapen": lambda lib, F: F.jvp(lambda x: x.exp(), _x2(lib), lib.ones(3)),
    "jvp-v-tuple-for-one-input": lambda lib, F: F.jvp(
        lambda x: x.exp(), _x2(lib), (lib.ones(2), lib.ones(2))
    ),
    "jvp-strict-constant": lambda lib, F: F.jvp(
        lambda x: lib.ones(2), _x2(lib), lib.ones(2), strict=True
    ),
    "jvp-strict-linear": lambda lib, F: F.jvp(lambda x: x * 2, _x2(lib), lib.ones(2), strict=True),
    "jvp-create_graph": lambda lib, F: F.jvp(
        lambda x: x**3, lib.tensor([1.0, 2.0], requires_grad=True), lib.ones(2), create_graph=True
    ),
    "hessian": lambda lib, F: F.hessian(lambda x: (x**3).sum(), _x2(lib)),
    "hessian-two-inputs": lambda lib, F: F.hessian(
        lambda x, y: (x**3 * y).sum(), (_x2(lib), lib.tensor([3.0, 4.0]))
    ),
    "hessian-not-scalar": lambda lib, F: F.hessian(lambda x: x**3, _x2(lib)),
    "hessian-strict-linear": lambda lib, F: F.hessian(
        lambda x: (x * 3).sum(), _x2(lib), strict=True
    ),
    "hessian-bad-strategy": lambda lib, F: F.hessian(
        lambda x: (x**3).sum(), _x2(lib), outer_jacobian_strategy="fwd"
    ),
    "hvp": lambda lib, F: F.hvp(lambda x: (x**3).sum(), _x2(lib), lib.tensor([1.0, -1.0])),
    "hvp-linear": lambda lib, F: F.hvp(lambda x: (x * 3).sum(), _x2(lib), lib.tensor([1.0, -1.0])),
    "vhp": lambda lib, F: F.vhp(
        lambda x, y: (x**3 * y).sum(),
        (_x2(lib), lib.tensor([3.0, 4.0])),
        (lib.tensor([1.0, -1.0]), lib.tensor([2.0, 0.5])),
    ),
    "vhp-strict-linear": lambda lib, F: F.vhp(
        lambda x: (x * 3).sum(), _x2(lib), lib.tensor([1.0, -1.0]), strict=True
    ),
    "vhp-v-entry-misshapen": lambda lib, F: F.vhp(
        lambda x, y: (x * y).sum(), (_x2(lib), _x2(lib)), (lib.ones(2), lib.ones(1))
    ),
    "hvp-not-scalar": lambda lib, F: F.hvp(lambda x: x**3, _x2(lib), lib.ones(2)),
}


def _functional_call(call):
    def fn(lib, inp):
        # PyTorch's vmap of forward mode warns that torch.jit.script is deprecated.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
            return {"result": attempt(lambda: call(lib, _functional(lib)))}

    return fn


for _name, _call in FUNCTIONAL_CALLS.items():
    program(f"functional-calls/{_name}")(_functional_call(_call))


# ----------------------------------------------------------------------------- in-place on non-leaf tensors

INPLACE = {
    "add_": lambda y, z: y.add_(1),
    "add_tensor": lambda y, z: y.add_(z),
    "sub_": lambda y, z: y.sub_(z),
    "mul_": lambda y, z: y.mul_(3),
    "mul_tensor": lambda y, z: y.mul_(z),
    "div_": lambda y, z: y.div_(2),
    "zero_": lambda y, z: y.zero_(),
    "iadd": lambda y, z: y.__iadd__(z),
    "imul": lambda y, z: y.__imul__(z),
    "isub": lambda y, z: y.__isub__(2),
    "itruediv": lambda y, z: y.__itruediv__(z),
}
for name, fn in INPLACE.items():

    def _inplace(lib, inp, fn=fn):
        x = lib.tensor(inp["x"], requires_grad=True)
        z = lib.tensor(inp["z"], requires_grad=True)
        y = x * 2  # a non-leaf ...
        returned = fn(y, z)  # ... modified in place: its history is rebased
        same = returned is y
        (y * y).sum().backward()
        return {"y": y, "same": same, "version": y._version, "x": x, "z": z}

    program(
        f"inplace-non-leaf-{name}", {"x": Inp((3,), F32, "halves"), "z": Inp((3,), F32, "positive")}
    )(_inplace)


@program("inplace-non-leaf-add_-alpha", {"x": Inp((3,), F32, "halves"), "z": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    z = lib.tensor(inp["z"], requires_grad=True)
    y = x * 2
    y.add_(z, alpha=2)
    y.sum().backward()
    return {"y": y, "x": x, "z": z}


@program("inplace-plain-tensor-with-grad-operand", {"w": Inp((3,), F64)})
def _(lib, inp):
    w = lib.tensor(inp["w"], requires_grad=True)
    a = lib.ones(3, dtype=lib.float64)
    a.add_(w)  # a leaf that needs no grad takes w's history
    flags = (a.requires_grad, a.is_leaf)
    (a * a).sum().backward()
    return {"a": a, "flags": flags, "w": w}


@program("inplace-chain-on-non-leaf", {"x": Inp((2, 2), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x.exp()
    y.mul_(2).add_(1).sub_(x)
    y.sum().backward()
    return {"y": y, "x": x, "version": y._version}


# ----------------------------------------------------------------------------- metadata and conversions


@program("metadata", {"m": Inp((2, 3, 4), F32, "halves"), "s": Inp((), F64, "halves")})
def _(lib, inp):
    m = lib.tensor(inp["m"], requires_grad=True)
    s = lib.tensor(inp["s"])
    i = lib.tensor([[1, 2], [3, 4]])
    return {
        "shape": m.shape,
        "size": m.size(),
        "size1": m.size(1),
        "size_neg": m.size(-1),
        "dim": m.dim(),
        "ndim": m.ndim,
        "numel": m.numel(),
        "numel_fn": lib.numel(m),
        "len": len(m),
        "dtype": m.dtype,
        "s_shape": s.shape,
        "s_dim": s.dim(),
        "s_numel": s.numel(),
        "item": s.item(),
        "item_f32": m[0, 0, 0].item(),
        "item_int": i[1, 0].item(),
        "tolist": m[0].tolist(),
        "tolist_scalar": s.tolist(),
        "tolist_int": i.tolist(),
        "numpy": m.detach().numpy(),
        "numpy_int": i.numpy(),
        "is_floating_point": (m.is_floating_point(), i.is_floating_point()),
        "shape_eq_tuple": m.shape == (2, 3, 4),
        "shape_index": m.shape[1],
        "size_numel": m.size().numel(),
        "requires_grad": (m.requires_grad, s.requires_grad),
        "is_leaf": (m.is_leaf, (m * 2).is_leaf),
        "grad_none": m.grad,
        "grad_fn_none": m.grad_fn,
        "is_tensor": lib.is_tensor(m),
        "dtypes": (lib.float32, lib.float64, lib.int64, lib.bool, lib.float, lib.double, lib.long),
        "default_dtype": lib.get_default_dtype(),
    }


@program("numpy-shares-memory", {"a": Inp((3,), F64, "halves")})
def _(lib, inp):
    arr = inp["a"].copy()
    t = lib.from_numpy(arr)
    arr[0] = 100.0
    t.mul_(2)
    back = t.numpy()
    back[1] = -1.0
    return {"t": t, "arr": arr, "dtype": t.dtype}


# ----------------------------------------------------------------------------- printing


@program("print-results", {"x": Inp((3,), F32, "halves"), "w": Inp((2, 3), F64, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    w = lib.tensor(inp["w"], requires_grad=True)
    y = x * 2
    z = (w @ x.double()).sum()
    print(x)
    print(y)
    print(w)
    print(z)
    print(x.detach())
    print(repr(lib.tensor(2.5)), repr(lib.tensor(2.5, requires_grad=True) * 1))
    print("shape:", w.shape, "size:", w.size(), "dtype:", w.dtype)
    print("grad_fn:", z.grad_fn)
    print("next:", z.grad_fn.next_functions)
    print("leaf grad before:", x.grad)
    z.backward()
    print(x.grad)
    print(w.grad)
    print(lib.tensor([[1, 2], [3, 4]]), lib.tensor([True, False]))
    print(lib.ones(2, 3, dtype=lib.float64, requires_grad=True).sum(0))
    print(lib.zeros(3, requires_grad=True) - 1)
    return {"x": x, "w": w}


@program("print-format-0d", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    loss = (x * 2).sum()
    print(f"loss = {loss}")
    print(f"{lib.tensor(2.5)}")
    print(f"{loss:.2f}")
    return {"loss": loss}


@program("print-tutorial-objects")
def _(lib, inp):
    x = lib.ones(5)
    y = lib.zeros(3)
    w = lib.ones(5, 3, requires_grad=True)
    b = lib.full((3,), 0.5, requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
    print("Gradient function for z =", z.grad_fn)
    print("Gradient function for loss =", loss.grad_fn)
    print(z)
    print(loss)
    node = loss.grad_fn
    while node is not None:
        print(node.name(), [(None if n is None else n.name(), i) for n, i in node.next_functions])
        node = next((n for n, _ in node.next_functions if n is not None), None)
    loss.backward()
    print(w.grad)
    print(b.grad)
    return {"loss": loss}


@program("set_grad_enabled-repr")
def _(lib, inp):
    """A notebook cell ending in ``torch.set_grad_enabled(False)`` shows its repr
    (the library's name aside, as everywhere)."""
    texts = [repr(lib.set_grad_enabled(False)), repr(lib.set_grad_enabled(True))]
    return [text.replace(lib.__name__ + ".", "torch.") for text in texts]


# ----------------------------------------------------------------------------- .data against detach()


@program("data-has-its-own-version-counter", {"x": Inp((3,), F32, "positive")})
def _(lib, inp):
    """The classic lesson: an in-place change through ``.data`` is not seen by the
    saved-tensor check (backward silently uses the changed values), one through
    ``detach()`` is (an error)."""
    out: dict[str, object] = {}
    for how in ("data", "detach"):
        x = lib.tensor(inp["x"], requires_grad=True)
        y = x.sigmoid()  # saves its output
        outside = y.data if how == "data" else y.detach()
        outside.mul_(0.5)
        versions = (y._version, outside._version)
        backward = attempt(lambda y=y: y.sum().backward())
        out[how] = {"versions": versions, "backward": backward, "x": x}
    leaf = lib.tensor(inp["x"], requires_grad=True)
    z = leaf * leaf
    leaf.data.mul_(10)
    z.sum().backward()
    out["leaf"] = (leaf, leaf._version)
    return out


# ----------------------------------------------------------------------------- editing a Sequential


@program("sequential-edited")
def _(lib, inp):
    """A Sequential edited as a list, as fine-tuning code does (model[-1] = a new
    head): item assignment, deletion (the others are renamed 0, 1, …), slices that
    keep the names, insert/extend/pop/+, and the refusals."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    out: dict[str, object] = {"slice": repr(model[1:]), "last": repr(model[-1])}
    model[-1] = nn.Linear(3, 2)
    out["assigned"] = [repr(model), sorted(dict(model.named_parameters()))]
    out["refused"] = [
        attempt(lambda: model.__setitem__(5, nn.Tanh())),
        attempt(lambda: model.__setitem__(0, 3)),
        attempt(lambda: model["0"]),
    ]
    del model[1]
    out["deleted"] = [repr(model), list(model.state_dict())]
    model.insert(1, nn.Tanh()).extend([nn.Sigmoid()])
    popped = model.pop(0)
    out["edited"] = [repr(model), repr(popped), repr(model + nn.Sequential(nn.ReLU()))]
    del model[0:2]
    out["sliced-away"] = repr(model)
    out["forward"] = model(lib.ones(1, 2))
    return out


# ----------------------------------------------------------------------------- ModuleList, ModuleDict, ParameterList


@program("module-containers")
def _(lib, inp):
    """The containers models keep layers and weights in: children registered under
    their positions or keys (named_parameters, state_dict), ModuleList's repr that
    folds repeated layers, list and dict editing, and PyTorch's refusals."""
    lib.manual_seed(0)
    nn = lib.nn

    class Net(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
            self.layers.append(nn.Linear(2, 1))
            self.heads = nn.ModuleDict({"act": nn.Tanh(), "out": nn.Identity()})
            self.scales = nn.ParameterList([lib.ones(1), nn.Parameter(lib.zeros(2, 1))])

        def forward(self, x):
            for layer in self.layers[:-1]:
                x = self.heads["act"](layer(x))
            return self.layers[-1](x) * self.scales[0]

    net = Net()
    x = lib.tensor([[1.0, -2.0], [0.5, 3.0]])
    net(x).sum().backward()
    out: dict[str, object] = {
        "repr": repr(net),
        "names": [name for name, _ in net.named_parameters()],
        "state_dict": list(net.state_dict()),
        "grads": [p.grad for p in net.parameters()],
        "scales": [isinstance(p, nn.Parameter) for p in net.scales],
    }
    net.layers = nn.ModuleList([nn.Linear(2, 1)])  # replaced in place: still first
    plain = nn.Linear(2, 1, bias=False)
    plain.bias = nn.Parameter(lib.zeros(1))  # the None it had must not hide it
    out["replaced"] = [[name for name, _ in net.named_parameters()], plain.bias]
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Tanh(), nn.ReLU()])
    out["slices"] = [repr(layers[1:3]), repr(layers[::-2]), repr(layers[-1])]
    layers[0] = nn.Sigmoid()
    del layers[1]
    layers.insert(1, nn.Linear(1, 1))
    layers += [nn.Identity()]
    popped = layers.pop(-2)
    out["edited"] = [repr(layers), repr(popped), len(layers), repr(layers + layers[:1])]
    del layers[0:2]
    out["deleted"] = [repr(layers), list(dict(layers.named_children())), repr(nn.ModuleList())]
    heads = nn.ModuleDict([("a", nn.ReLU()), ("b", nn.Tanh())])
    heads["c"] = nn.Linear(1, 1)
    heads.update({"a": nn.Sigmoid()})
    gone = heads.pop("b")
    out["dict"] = [
        repr(heads),
        list(heads),
        list(heads.keys()),
        [repr(m) for m in heads.values()],
        "c" in heads,
        len(heads),
        repr(gone),
        [name for name, _ in heads.named_parameters()],
    ]
    params = nn.ParameterList([lib.ones(2, 3, requires_grad=False), lib.zeros(3)])
    params.append(nn.Parameter(lib.ones(1, dtype=lib.float64)))
    params.extend([lib.ones(4)])
    params[1] = lib.full((2,), 3.0)
    out["params"] = [
        repr(params),
        repr(params[1:]),
        [name for name, _ in params.named_parameters()],
        params[-1],
        len(params),
        repr(nn.ParameterList()),
    ]
    container = nn.Sequential()
    out["refused"] = [
        attempt(lambda: layers[5]),
        attempt(lambda: layers.append(3)),
        attempt(lambda: nn.ModuleList(3)),
        attempt(lambda: layers(x)),
        attempt(lambda: heads["missing"]),
        attempt(lambda: nn.ModuleDict({"keys": nn.ReLU()})),
        attempt(lambda: nn.ModuleDict([1])),
        attempt(lambda: nn.ModuleDict([("a", nn.ReLU(), 3)])),
        attempt(lambda: nn.ModuleDict(3)),
        attempt(lambda: nn.ModuleDict({"a.b": nn.ReLU()})),
        attempt(lambda: params(x)),
        attempt(lambda: params[7]),
        attempt(lambda: nn.ParameterList(lib.ones(2))),
        attempt(lambda: container.add_module("", nn.ReLU())),
        attempt(lambda: container.add_module(3, nn.ReLU())),
        attempt(lambda: container.add_module("w", lib.ones(2))),
        attempt(lambda: container.add_module("forward", nn.ReLU())),
    ]
    return out


# ----------------------------------------------------------------------------- activations

_ACTIVATIONS = {
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu-0.2": lambda F, x: F.leaky_relu(x, 0.2),
    "leaky_relu-negative": lambda F, x: F.leaky_relu(x, -0.5),
    "gelu": lambda F, x: F.gelu(x),
    "gelu-tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "elu": lambda F, x: F.elu(x),
    "elu-0.5": lambda F, x: F.elu(x, alpha=0.5),
    "silu": lambda F, x: F.silu(x),
    "softplus": lambda F, x: F.softplus(x),
    "softplus-beta": lambda F, x: F.softplus(x, beta=2, threshold=3),
    "relu6": lambda F, x: F.relu6(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh-2": lambda F, x: F.hardtanh(x, -2.0, 1.6),
    "mish": lambda F, x: F.mish(x),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x),
    "celu-0.5": lambda F, x: F.celu(x, alpha=0.5),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softsign": lambda F, x: F.softsign(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "softshrink": lambda F, x: F.softshrink(x, 0.5),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.5),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "threshold": lambda F, x: F.threshold(x, 0.5, -1.0),
}


@program(
    "activations-values-and-derivatives",
    {"x": Inp((7,), F32), "x64": Inp((2, 3), F64)},
    ignore_graph=True,  # third derivatives' graphs: our formulas' own nodes
)
def _(lib, inp):
    """The activations beyond ReLU (values with the kinks and the softplus threshold
    among the inputs, first, second and third derivatives, float32 and float64),
    their nodes and the nodes of their derivatives (LeakyReluBackwardBackward0; SiLU
    differentiated through its formula's MulBackward0), gradcheck/gradgradcheck."""
    F = lib.nn.functional
    special = lib.tensor([-2.0, -0.0, 0.0, 1.6, 25.0, -30.0])
    out: dict[str, object] = {}
    for name, act in _ACTIVATIONS.items():
        x = lib.cat([lib.tensor(inp["x"]), special]).requires_grad_()
        y = act(F, x)
        (first,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(first.sum(), x, create_graph=True)
        # (leaky_relu's second derivative is a constant: nothing to differentiate)
        third = lib.autograd.grad(second.sum(), x)[0] if second.requires_grad else None
        if (
            name == "gelu-tanh" and third is not None
        ):  # PyTorch's is nan at 25 and -30 (docs/differences.md)
            third = third[:-2]
        x64 = lib.tensor(inp["x64"], requires_grad=True)
        out[name] = {
            "y": y.detach(),
            "first": first.detach(),
            "second": second.detach(),
            "third": third,
            "nodes": [y.grad_fn.name(), first.grad_fn.name()],
            "next": [None if n is None else n.name() for n, _ in first.grad_fn.next_functions],
            "float64": act(F, x64),
            "gradcheck": lib.autograd.gradcheck(lambda t, act=act: act(F, t), (x64,)),
            "gradgradcheck": lib.autograd.gradgradcheck(lambda t, act=act: act(F, t), (x64,)),
        }
    return out


@program("activation-modules", {"x": Inp((2, 3), F32)})
def _(lib, inp):
    """The activation layers: reprs, a model built of them trained one step, the
    in-place forms (their nodes: LeakyReluBackward1, EluBackward1, SiluBackward0;
    a negative slope refused in backward), and the refusals."""
    lib.manual_seed(0)
    nn, F = lib.nn, lib.nn.functional
    layers = [
        nn.LeakyReLU(),
        nn.LeakyReLU(0.2, inplace=True),
        nn.GELU(),
        nn.GELU(approximate="tanh"),
        nn.ELU(),
        nn.ELU(alpha=2, inplace=True),
        nn.SiLU(),
        nn.SiLU(inplace=True),
        nn.Softplus(),
        nn.Softplus(beta=2, threshold=10),
    ]
    model = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 4), nn.LeakyReLU(0.1))
    model.append(nn.Linear(4, 2)).extend([nn.SiLU(), nn.Linear(2, 1), nn.Softplus()])
    x = lib.tensor(inp["x"])
    loss = model(x).mean()
    loss.backward()
    w = lib.tensor(inp["x"], requires_grad=True)

    def in_place(act):
        y = w * 1
        act(y)
        y.sum().backward()
        return [y, y.grad_fn.name()]

    return {
        "reprs": [repr(layer) for layer in layers] + [repr(model)],
        "outputs": [layer(x.clone()) for layer in layers],
        "loss": loss,
        "grads": [p.grad for p in model.parameters()],
        "in_place": [
            attempt(lambda: in_place(lambda t: F.leaky_relu(t, 0.3, inplace=True))),
            attempt(lambda: in_place(lambda t: F.leaky_relu_(t))),
            attempt(lambda: in_place(lambda t: F.elu(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.elu_(t, 0.5))),
            attempt(lambda: in_place(lambda t: F.silu(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.leaky_relu_(t, -0.1))),
            attempt(lambda: in_place(lambda t: F.elu_(t, -1.0))),
            attempt(lambda: F.leaky_relu(w, inplace=True)),
            attempt(lambda: F.elu_(lib.tensor([-1.0, 2.0]))),
        ],
        "refused": [
            attempt(lambda: F.gelu(x, approximate="exact")),
            attempt(lambda: nn.GELU("sigmoid")(x)),
            attempt(lambda: F.leaky_relu(lib.tensor([1, -2]))),
            attempt(lambda: F.gelu(lib.tensor([1, -2]))),
            attempt(lambda: F.elu(lib.tensor([1, -2]))),
            attempt(lambda: F.silu(lib.tensor([1, -2]))),
            attempt(lambda: F.softplus(lib.tensor([1, -2]))),
        ],
    }


@program(
    "activation-modules-prelu-relu6-hardtanh-mish-selu-celu-logsigmoid-softsign-hard",
    {"x": Inp((2, 3), F32), "x64": Inp((2, 3), F64)},
)
def _(lib, inp):
    """The activation layers added after GELU's: reprs and state_dict keys (PReLU's
    weight a parameter, 0.25 at first), a model built of them trained one step,
    PReLU with one slope per channel (its nodes: PreluKernelBackward0 over the
    weight's ViewBackward0; first and second derivatives), Hardswish at its kinks
    ±3, the in-place forms' nodes, hardsigmoid's derivative that PyTorch cannot
    differentiate, and the refusals in PyTorch's words."""
    lib.manual_seed(0)
    nn, F = lib.nn, lib.nn.functional
    layers = [
        nn.PReLU(),
        nn.PReLU(3, init=0.1),
        nn.ReLU6(),
        nn.ReLU6(inplace=True),
        nn.Hardtanh(),
        nn.Hardtanh(-2, 2),
        nn.Hardtanh(-0.5, 0.5, inplace=True),
        nn.Mish(),
        nn.Mish(inplace=True),
        nn.SELU(),
        nn.SELU(inplace=True),
        nn.CELU(),
        nn.CELU(alpha=0.5, inplace=True),
        nn.LogSigmoid(),
        nn.Softsign(),
        nn.Hardswish(),
        nn.Hardswish(inplace=True),
        nn.Hardsigmoid(),
        nn.Hardsigmoid(inplace=True),
    ]
    model = nn.Sequential(nn.Linear(3, 4), nn.PReLU(4), nn.Linear(4, 4), nn.SELU())
    model.extend([nn.Linear(4, 3), nn.Mish(), nn.Linear(3, 2), nn.PReLU(), nn.Linear(2, 1)])
    x = lib.tensor(inp["x"])
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    x64 = lib.tensor(inp["x64"], requires_grad=True)
    weight = lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64, requires_grad=True)
    y = F.prelu(x64, weight)
    gx, gw = lib.autograd.grad((y * y).sum(), [x64, weight], create_graph=True)
    second = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x64, weight])
    kinks = lib.tensor([-4.0, -3.0, -1.0, 0.0, 3.0, 4.0], requires_grad=True)
    swish = F.hardswish(kinks)
    (first,) = lib.autograd.grad(swish.sum(), kinks, create_graph=True)
    (curvature,) = lib.autograd.grad(first.sum(), kinks)
    (hard_first,) = lib.autograd.grad(F.hardsigmoid(kinks).sum(), kinks, create_graph=True)
    w = lib.tensor(inp["x"], requires_grad=True)

    def in_place(act):
        h = w * 1
        act(h)
        h.sum().backward()
        return [h, h.grad_fn.name()]

    return {
        "reprs": [repr(layer) for layer in layers] + [repr(model)],
        "state_dict": [list(layer.state_dict()) for layer in layers[:2]],
        "prelu-weights": [layers[0].weight, layers[1].weight],
        "outputs": [layer(x.clone()) for layer in layers],
        "loss": loss,
        "stepped": list(model.parameters()),
        "named": [name for name, _ in model.named_parameters()],
        "prelu": [y, gx, gw, second, y.grad_fn.name()],
        "prelu-next": [None if n is None else n.name() for n, _ in y.grad_fn.next_functions],
        "prelu-1d": F.prelu(lib.tensor([-2.0, 3.0]), lib.tensor([0.5])),
        "gradcheck": [
            lib.autograd.gradcheck(lambda t, v: F.prelu(t, v), (x64, weight)),
            lib.autograd.gradgradcheck(lambda t, v: F.prelu(t, v), (x64, weight)),
            lib.autograd.gradcheck(F.hardswish, (x64,)),
            lib.autograd.gradcheck(F.hardsigmoid, (x64,)),
            lib.autograd.gradcheck(lambda t: F.celu(t, 0.5), (x64,)),
        ],
        "hardswish-kinks": [swish, first, curvature],
        "hardsigmoid": [hard_first.detach(), repr(hard_first.grad_fn).split(" object")[0]],
        "hardsigmoid-twice": attempt(lambda: hard_first.sum().backward()),
        "in_place": [
            attempt(lambda: in_place(lambda t: F.hardtanh_(t, -0.5, 0.5))),
            attempt(lambda: in_place(lambda t: F.relu6(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.mish(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.selu(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.celu(t, 2.0, inplace=True))),
            attempt(lambda: in_place(lambda t: F.hardswish(t, inplace=True))),
            attempt(lambda: in_place(lambda t: F.hardsigmoid(t, inplace=True))),
            attempt(lambda: F.selu(w, inplace=True)),
        ],
        "integers": [
            attempt(lambda: F.relu6(lib.tensor([1, -2, 9]))),
            attempt(lambda: F.hardtanh(lib.tensor([1, -2, 9]), -1.5, 2.5)),
            attempt(lambda: F.softsign(lib.tensor([1, -2, 9]))),
            attempt(lambda: F.mish(lib.tensor([1, -2]))),
            attempt(lambda: F.selu(lib.tensor([1, -2]))),
            attempt(lambda: F.celu(lib.tensor([1, -2]))),
            attempt(lambda: F.logsigmoid(lib.tensor([1, -2]))),
            attempt(lambda: F.hardswish(lib.tensor([1, -2]))),
            attempt(lambda: F.hardsigmoid(lib.tensor([1, -2]))),
            attempt(lambda: F.prelu(lib.tensor([1, -2]), lib.tensor([1]))),
        ],
        "refused": [
            attempt(lambda: F.hardtanh(x, 2.0, 1.0)),
            attempt(lambda: nn.Hardtanh(2.0, 1.0)),
            attempt(lambda: F.celu(x, 0.0)),
            attempt(lambda: F.prelu(x, lib.ones(2))),
            attempt(lambda: F.prelu(x, lib.ones(1, 3))),
            attempt(lambda: F.prelu(x, lib.ones(3, dtype=lib.float64))),
            attempt(lambda: F.prelu(lib.tensor(1.0), lib.ones(3))),
            attempt(lambda: F.prelu(lib.ones(3), lib.ones(3))),
            attempt(lambda: nn.PReLU(2)(x)),
        ],
    }


@program("shrink-and-threshold-activations-and-init-eye", {"x": Inp((2, 3), F32)})
def _(lib, inp):
    """nn.Softshrink, Hardshrink, Tanhshrink and Threshold (reprs, values, the
    in-place threshold's node ThresholdBackward1 and its gradient), integer tensors
    where PyTorch takes them, the refusals, and nn.init.eye_."""
    nn, F = lib.nn, lib.nn.functional
    x = lib.tensor(inp["x"], requires_grad=True)
    layers = [
        nn.Softshrink(),
        nn.Softshrink(0.25),
        nn.Hardshrink(0.3),
        nn.Tanhshrink(),
        nn.Threshold(0.1, 20.0),
        nn.Threshold(-0.5, -1.0, inplace=True),
    ]
    outputs = []
    for layer in layers:
        y = layer(x * 1)
        outputs.append([repr(layer), y, lib.autograd.grad(y.sum(), x)[0]])
    h = x * 1
    F.threshold_(h, 0.0, 0.5)  # a value above the threshold: the mask is still x > 0
    (g,) = lib.autograd.grad(h.sum(), x, create_graph=True)
    return {
        "outputs": outputs,
        "in-place": [h, h.grad_fn.name(), g.detach()],
        "integers": [
            F.threshold(lib.tensor([1, 2, 3]), 1, -7),
            F.tanhshrink(lib.tensor([1, 2])),
            attempt(lambda: F.softshrink(lib.tensor([1, 2]))),
            attempt(lambda: F.hardshrink(lib.tensor([1, 2]))),
        ],
        "refused": [
            attempt(lambda: F.softshrink(x, -1.0)),
            attempt(lambda: F.softshrink(x.double(), -0.5)),
            attempt(lambda: F.threshold(x, 0.0, 0.0, inplace=True)),
        ],
        "eye": [
            lib.nn.init.eye_(lib.empty(2, 3)),
            lib.nn.init.eye_(lib.nn.Linear(3, 3).weight),
            attempt(lambda: lib.nn.init.eye_(lib.empty(3))),
        ],
    }


# ----------------------------------------------------------------------------- normalize, cosine_similarity, pad, parameters_to_vector


@program(
    "normalize-cosine-similarity-and-pad",
    {"x": Inp((2, 3), F32), "y": Inp((3,), F32), "z": Inp((2, 3), F64)},
)
def _(lib, inp):
    """F.normalize (p = 2, 1, inf; a zero row stays zero), F.cosine_similarity and
    nn.CosineSimilarity (broadcast operands: PyTorch expands both; a zero vector;
    integer operands converted), F.pad in constant mode (values, cropping with
    negative amounts, integer tensors, gradients, second derivatives), their graphs,
    forward-mode tangents, and the refusals in PyTorch's words."""
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"], requires_grad=True)
    z = lib.tensor(inp["z"], requires_grad=True)
    out: dict[str, object] = {}
    rows = lib.cat([x, lib.zeros(1, 3)])
    for name, p, dim in [("p2", 2.0, 1), ("p1", 1, 1), ("pinf", float("inf"), 0)]:
        n = F.normalize(rows, p=p, dim=dim)
        (grad,) = lib.autograd.grad((n * n.detach().flip(0)).sum(), x, create_graph=True)
        out["normalize-" + name] = [n, grad, lib.autograd.grad(grad.sum(), x)[0]]
    c = F.cosine_similarity(x, y)
    c.backward(lib.tensor([1.0, -2.0]))
    out["cosine"] = [c, x.grad, y.grad]
    out["cosine-same-shape"] = F.cosine_similarity(x, x.flip(1) * 2, dim=1)
    out["cosine-dim0"] = nn.CosineSimilarity(dim=0)(x, lib.tensor([[1.0, 0.0, 2.0]]))
    out["cosine-zero"] = F.cosine_similarity(lib.zeros(2, 3), x.detach())
    out["cosine-float64"] = F.cosine_similarity(z, x.detach(), dim=-1)
    out["cosine-ints"] = F.cosine_similarity(lib.tensor([1, 2]), lib.tensor([3.0, 1.0]), dim=0)
    out["cosine-module"] = [repr(nn.CosineSimilarity()), repr(nn.CosineSimilarity(0, 1e-6))]
    out["gradcheck"] = [
        lib.autograd.gradcheck(lambda t: F.normalize(t, dim=0), (z,)),
        lib.autograd.gradcheck(lambda t: F.cosine_similarity(t, t * t + 1), (z,)),
        lib.autograd.gradcheck(lambda t: F.pad(t, (1, -1, 2, 0), value=3.0), (z,)),
        lib.autograd.gradgradcheck(lambda t: F.pad(t, (0, 2), value=-1.0), (z,)),
    ]
    padded = {
        "right": F.pad(x, (1, 2)),
        "value": F.pad(x, (1, 1, 0, 1), value=2.5),
        "list": F.pad(x, [0, 1], "constant", -1.0),
        "crop": F.pad(x, (-1, 0)),
        "crop-both": F.pad(x, (-1, -1, -1, 0)),
        "crop-and-pad": F.pad(x, (-1, 2, 1, -1)),
        "ints": F.pad(lib.tensor([1, 2]), (1, 1), value=0.5),
        "3d": F.pad(x.reshape(1, 2, 3), (0, 0, 1, 1, 1, 0)),
        "empty-pad": F.pad(x, ()),
    }
    for name, t in padded.items():
        if t.requires_grad:
            (g,) = lib.autograd.grad((t * t).sum(), x, create_graph=True)
            (gg,) = lib.autograd.grad(g.sum(), x)
            out["pad-" + name] = [t, g, gg, g.grad_fn.name()]
        else:
            out["pad-" + name] = t
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(z.detach(), lib.ones_like(z) * lib.arange(6.0).reshape(2, 3))
        out["tangents"] = [
            fwAD.unpack_dual(F.pad(dual, (1, 1), value=5.0)).tangent,
            fwAD.unpack_dual(F.normalize(dual)).tangent,
            fwAD.unpack_dual(F.cosine_similarity(dual, dual.flip(0))).tangent,
        ]
    out["refused"] = [
        attempt(lambda: F.normalize(lib.tensor([3.0, 4.0]))),
        attempt(lambda: F.normalize(lib.tensor([[1, 2]]))),
        attempt(lambda: F.cosine_similarity(lib.ones(3), lib.ones(3))),
        attempt(lambda: F.cosine_similarity(x, lib.ones(4))),
        attempt(lambda: F.cosine_similarity(lib.tensor([1, 2]), lib.tensor([1, 2]), dim=0)),
        attempt(lambda: F.pad(x, (1,))),
        attempt(lambda: F.pad(x, (1, 1, 1, 1, 1, 1))),
        attempt(lambda: F.pad(x, (-2, -2))),
        attempt(lambda: F.pad(x, (-4, 1))),
        attempt(lambda: F.pad(x, (-3, 0, 1, 0))),
        attempt(lambda: F.pad(x, (1.5, 1))),
        attempt(lambda: F.pad(x, (1, 1), mode="wrap")),
        attempt(lambda: F.pad(x, (1, 1, 1, 1), mode="reflect")),
        attempt(lambda: F.pad(lib.ones(3), (1, 1), mode="replicate")),
        attempt(lambda: F.pad(x, (1, 1), mode="reflect", value=1.0)),
        attempt(lambda: F.pad(lib.tensor(1.0), (1, 1))),
    ]
    return out


@program(
    "pairwise-distance-softmin-and-padding-layers",
    {"x": Inp((3, 4), F32), "y": Inp((3, 4), F32), "x64": Inp((2, 3), F64)},
)
def _(lib, inp):
    """F.pairwise_distance and nn.PairwiseDistance (p = 2, 1, inf; keepdim; a
    broadcast operand; equal rows kept differentiable by eps; PyTorch's C++ nodes:
    NormBackward1 over AddBackward1 over SubBackward0), F.softmin and nn.Softmin
    (the implicit-dim warning), and the constant padding layers (ConstantPad1d/2d/3d,
    ZeroPad1d/2d/3d: reprs, values, gradients)."""
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"])
    out: dict[str, object] = {}
    for name, options in {
        "p2": {},
        "p1": {"p": 1.0},
        "pinf": {"p": float("inf")},
        "keepdim": {"keepdim": True, "eps": 1e-3},
    }.items():
        d = F.pairwise_distance(x, y, **options)
        (grad,) = lib.autograd.grad(d.sum(), x)
        out["distance-" + name] = [d, grad]
    same = F.pairwise_distance(x, x.detach())
    out["same"] = [same, lib.autograd.grad(same.sum(), x)[0]]
    out["broadcast"] = nn.PairwiseDistance()(x, y[0])
    out["module"] = [repr(nn.PairwiseDistance()), repr(nn.PairwiseDistance(1.0, 1e-3, True))]
    x64 = lib.tensor(inp["x64"], requires_grad=True)
    out["gradcheck"] = [
        lib.autograd.gradcheck(lambda t: F.pairwise_distance(t, t.flip(0) * 2), (x64,)),
        lib.autograd.gradgradcheck(lambda t: F.softmin(t, dim=1), (x64,)),
    ]
    s = F.softmin(x, dim=1)
    out["softmin"] = [s, lib.autograd.grad((s * s).sum(), x)[0]]
    out["softmin-implicit"] = H.caught_warnings(lambda: F.softmin(x.detach()))
    out["softmin-module"] = [repr(nn.Softmin(dim=0)), repr(nn.Softmin()), nn.Softmin(0)(x)]
    layers = [
        nn.ConstantPad1d(2, 3.5),
        nn.ConstantPad1d((0, 1), -1.0),
        nn.ConstantPad2d((1, 0, 2, 1), 0.5),
        nn.ConstantPad2d(1, 2.0),
        nn.ConstantPad3d(1, 1.0),
        nn.ZeroPad1d((1, 2)),
        nn.ZeroPad2d(1),
        nn.ZeroPad2d([0, 1, 1, 0]),
        nn.ZeroPad3d((1, 0, 0, 1, 1, 0)),
    ]
    images = x.reshape(1, 3, 4)
    padded = []
    for layer in layers:
        result = layer(images)
        padded.append([repr(layer), result, lib.autograd.grad((result * result).sum(), x)[0]])
    out["padding-layers"] = padded
    out["refused"] = [
        attempt(lambda: F.pairwise_distance(x, lib.ones(5))),
        attempt(lambda: F.pairwise_distance(lib.tensor([[1, 2]]), lib.tensor([[0, 0]]), eps=0)),
        attempt(lambda: nn.ZeroPad2d((1, 1, 1))(images)),
    ]
    return out


@program("pad-reflect-and-replicate", {"x": Inp((2, 3, 4), F64), "x32": Inp((1, 2, 3, 4), F32)})
def _(lib, inp):
    """F.pad with mode='reflect' and 'replicate' as PyTorch 2.13 pads: one, two and
    three dimensions (their nodes ReflectionPad1DBackward0 … ReplicationPad3DBackward0),
    negative amounts cropping, amounts past the edge for replicate, integer tensors,
    gradients adding the copies back, second derivatives (the gradient's own nodes),
    forward-mode tangents, gradcheck, and PyTorch's refusals."""
    F = lib.nn.functional
    x = lib.tensor(inp["x"], requires_grad=True)
    x32 = lib.tensor(inp["x32"], requires_grad=True)
    out: dict[str, object] = {}
    for mode in ["reflect", "replicate"]:
        for pad in [(1, 2), (2, 1, 0, 1), (-1, 3), (2, -2), (0, 0, -1, 2), (3, 0)]:
            y = F.pad(x, pad, mode=mode)
            (g,) = lib.autograd.grad((y * y * y).sum(), x, create_graph=True)
            (gg,) = lib.autograd.grad((g * g).sum(), x)
            out[f"{mode}-{pad}"] = [y, g, gg]
        three = F.pad(x32, (1, 1, 0, 2, 1, 0), mode=mode)
        out[mode + "-3d"] = [three, lib.autograd.grad(three.sum(), x32)[0]]
        out[mode + "-gradcheck"] = [
            lib.autograd.gradcheck(lambda t, mode=mode: F.pad(t, (1, 2, 2, 1), mode=mode), (x,)),
            lib.autograd.gradgradcheck(lambda t, mode=mode: F.pad(t, (2, 0), mode=mode), (x,)),
        ]
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(x.detach(), lib.ones_like(x) * lib.arange(4.0))
            out[mode + "-tangent"] = fwAD.unpack_dual(F.pad(dual, (2, 1), mode=mode)).tangent
    out["replicate-wide"] = F.pad(x, (5, 6), mode="replicate")
    out["integers"] = [
        F.pad(lib.tensor([[1, 2, 3]]), (2, 2), mode="replicate"),
        F.pad(lib.tensor([[1, 2, 3]]), (2, 1), mode="reflect"),
    ]
    out["refused"] = [
        attempt(lambda: F.pad(x, (4, 0), mode="reflect")),
        attempt(lambda: F.pad(x, (0, 0, 3, 0), mode="reflect")),
        attempt(lambda: F.pad(x32, (0, 0, 0, 0, 2, 0), mode="reflect")),
        attempt(lambda: F.pad(lib.zeros(2, 0, 3), (1, 1), mode="reflect")),
        attempt(lambda: F.pad(x[0], (-5, 0), mode="replicate")),
        attempt(lambda: F.pad(x, (1, 1), mode="reflect", value=2.0)),
        attempt(lambda: F.pad(x[0, 0], (1, 1), mode="replicate")),
    ]
    return out


@program("parameters-to-vector-and-back", {"x": Inp((4, 3), F32)})
def _(lib, inp):
    """nn.utils.parameters_to_vector (its graph: CatBackward0 over ViewBackward0s, a
    loss of the vector reaching every parameter) and vector_to_parameters (the
    parameters' values replaced, a wrong vector refused in PyTorch's words)."""
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
    vector = nn.utils.parameters_to_vector(model.parameters())
    (vector * vector).sum().backward()
    grads = [p.grad for p in model.parameters()]
    new = lib.arange(float(vector.numel())) / 10
    nn.utils.vector_to_parameters(new, model.parameters())
    return {
        "vector": vector,
        "grads": grads,
        "after": list(model.parameters()),
        "out": model(lib.tensor(inp["x"])),
        "refused": [
            attempt(lambda: nn.utils.vector_to_parameters([1.0, 2.0], model.parameters())),
            attempt(lambda: nn.utils.vector_to_parameters(lib.ones(3), model.parameters())),
            attempt(lambda: nn.utils.parameters_to_vector([])),
        ],
    }


# ----------------------------------------------------------------------------- KLDivLoss, ParameterDict


@program("kl-div-loss", {"x": Inp((3, 4), F32), "t": Inp((3, 4), F32), "x64": Inp((2, 3), F64)})
def _(lib, inp):
    """F.kl_div and nn.KLDivLoss: every reduction ('mean' with PyTorch's warning,
    'batchmean' dividing by the batch size, 'sum', 'none'), log_target, a target with
    zeros (0·log 0 = 0), a target that requires grad, the legacy size_average, their
    graphs and gradients, and the refusals."""
    F, nn = lib.nn.functional, lib.nn
    log_p = lib.tensor(inp["x"]).log_softmax(1).detach().requires_grad_()
    q = lib.tensor(inp["t"]).softmax(1)
    out: dict[str, object] = {}
    for reduction in ["mean", "batchmean", "sum", "none"]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = F.kl_div(log_p, q, reduction=reduction)
        (grad,) = lib.autograd.grad(loss.sum(), log_p)
        out[reduction] = [loss, grad, [str(w.message) for w in caught]]
    out["log_target"] = F.kl_div(log_p, q.log(), reduction="batchmean", log_target=True)
    with_zeros = lib.tensor([[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25] * 4])
    out["zeros"] = F.kl_div(log_p, with_zeros, reduction="sum")
    target = q.clone().requires_grad_()
    loss = nn.KLDivLoss(reduction="batchmean")(log_p, target)
    loss.backward()
    out["target-grad"] = [loss, log_p.grad, target.grad]
    out["module"] = [
        repr(nn.KLDivLoss()),
        repr(nn.KLDivLoss(reduction="batchmean", log_target=True)),
        nn.KLDivLoss(reduction="sum", log_target=True)(log_p, q.log()),
        nn.KLDivLoss(reduction="none")(log_p, q),
    ]
    out["legacy"] = attempt(lambda: F.kl_div(log_p, q, size_average=False))
    out["0-d"] = F.kl_div(
        lib.tensor(-1.0, requires_grad=True), lib.tensor(0.5), reduction="batchmean"
    )
    out["broadcast"] = F.kl_div(log_p, q[0], reduction="sum")
    x64 = lib.tensor(inp["x64"], requires_grad=True)
    out["gradcheck"] = [
        lib.autograd.gradcheck(
            lambda t: F.kl_div(t, t.detach().softmax(1), reduction="batchmean"), (x64,)
        ),
        lib.autograd.gradgradcheck(lambda t: F.kl_div(t, t.exp(), reduction="sum"), (x64,)),
    ]
    out["refused"] = [
        attempt(lambda: F.kl_div(log_p, q, reduction="average")),
        attempt(lambda: F.kl_div(log_p, lib.tensor([[1, 0, 0, 0]] * 3), reduction="sum")),
        attempt(lambda: F.kl_div(log_p, lib.ones(5), reduction="sum")),
    ]
    return out


@program(
    "margin-hinge-triplet-and-multilabel-soft-margin-losses",
    {"a": Inp((4, 3), F32), "b": Inp((4, 3), F32), "c": Inp((4, 3), F32), "x64": Inp((3, 2), F64)},
)
def _(lib, inp):
    """MarginRankingLoss, HingeEmbeddingLoss, TripletMarginLoss (swap, p = 1) and
    MultiLabelSoftMarginLoss (class weights), functional and modules: values per
    reduction, gradients, PyTorch's C++ graphs, gradcheck, reprs, and refusals."""
    F, nn = lib.nn.functional, lib.nn
    a = lib.tensor(inp["a"], requires_grad=True)
    b = lib.tensor(inp["b"], requires_grad=True)
    c = lib.tensor(inp["c"])
    x64 = lib.tensor(inp["x64"], requires_grad=True)
    signs = lib.tensor([1.0, -1.0, 1.0, -1.0])
    labels = (c > 0).float()
    out: dict[str, object] = {}
    for reduction in ["mean", "sum", "none"]:
        losses = {
            "ranking": F.margin_ranking_loss(a[:, 0], b[:, 0], signs, 0.3, reduction=reduction),
            "hinge": F.hinge_embedding_loss(a[:, 1], signs, margin=0.5, reduction=reduction),
            "triplet": F.triplet_margin_loss(a, b, c, reduction=reduction),
            "triplet-swap": F.triplet_margin_loss(
                a, b, c, 2.0, p=1, swap=True, reduction=reduction
            ),
            "multilabel": F.multilabel_soft_margin_loss(a, labels, reduction=reduction),
        }
        for name, loss in losses.items():
            grads = lib.autograd.grad(loss.sum(), [a, b], allow_unused=True)
            out[f"{name}-{reduction}"] = [loss, grads]
    weighted = F.multilabel_soft_margin_loss(a, labels, weight=lib.tensor([1.0, 2.0, 0.5]))
    out["multilabel-weighted"] = [weighted, lib.autograd.grad(weighted, a)[0]]
    modules = [
        nn.MarginRankingLoss(),
        nn.MarginRankingLoss(margin=0.5, reduction="sum"),
        nn.HingeEmbeddingLoss(),
        nn.HingeEmbeddingLoss(margin=2.0),
        nn.TripletMarginLoss(),
        nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True),
        nn.MultiLabelSoftMarginLoss(),
        nn.MultiLabelSoftMarginLoss(weight=lib.ones(3)),
    ]
    out["reprs"] = [repr(m) for m in modules]
    out["module-values"] = [
        modules[1](a[:, 0], b[:, 0], signs),
        modules[3](a[:, 2], signs),
        modules[5](a, b, c),
        modules[7](a, labels),
        list(modules[7].state_dict()),
    ]
    out["gradcheck"] = [
        lib.autograd.gradcheck(
            lambda t: F.margin_ranking_loss(t[:, 0], t[:, 1], lib.tensor([1.0, -1.0, 1.0]), 0.1),
            (x64,),
        ),
        lib.autograd.gradcheck(lambda t: F.triplet_margin_loss(t, t.flip(0), t * 2), (x64,)),
        lib.autograd.gradcheck(
            lambda t: F.multilabel_soft_margin_loss(t, lib.tensor([[0.0, 1.0]] * 3)), (x64,)
        ),
    ]
    out["refused"] = [
        attempt(lambda: F.margin_ranking_loss(a, b[:, 0], signs)),
        attempt(lambda: F.margin_ranking_loss(a[:, 0], b[:, 0], signs, reduction="avg")),
        attempt(lambda: F.triplet_margin_loss(a, b, c, margin=0.0)),
        attempt(lambda: F.triplet_margin_loss(a, b[0], c)),
        attempt(lambda: nn.TripletMarginLoss(margin=-1.0)),
        attempt(lambda: F.multilabel_soft_margin_loss(a, labels, reduction="avg")),
    ]
    return out


@program(
    "poisson-and-gaussian-nll-losses",
    {"x": Inp((4, 2), F32), "t": Inp((4, 2), F32, "positive"), "v": Inp((4, 2), F32, "positive")},
)
def _(lib, inp):
    """PoissonNLLLoss (log rates or rates with eps, Stirling's term with full=True,
    counts of 0 and 1) and GaussianNLLLoss (per-element, per-sample and float
    variances, the eps floor that the gradient does not see, full=True), each
    reduction, gradients, graphs, reprs, and the refusals."""
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(inp["x"], requires_grad=True)
    counts = (lib.tensor(inp["t"]) * 2).floor()  # 0, 1, 2, 3
    variances = lib.tensor(inp["v"], requires_grad=True)
    out: dict[str, object] = {}
    for reduction in ["mean", "sum", "none"]:
        cases = {
            "poisson": F.poisson_nll_loss(x, counts, reduction=reduction),
            "poisson-rates": F.poisson_nll_loss(
                x.exp(), counts, log_input=False, reduction=reduction
            ),
            "poisson-full": F.poisson_nll_loss(x, counts, full=True, reduction=reduction),
            "gaussian": F.gaussian_nll_loss(x, counts, variances, reduction=reduction),
            "gaussian-per-sample": F.gaussian_nll_loss(
                x, counts, variances[:, 0], full=True, reduction=reduction
            ),
            "gaussian-float": F.gaussian_nll_loss(x, counts, 0.5, reduction=reduction),
        }
        for name, loss in cases.items():
            grads = lib.autograd.grad(loss.sum(), [x, variances], allow_unused=True)
            out[f"{name}-{reduction}"] = [loss, grads]
    tiny = lib.tensor([[1e-9, 2.0]] * 4, requires_grad=True)
    floored = F.gaussian_nll_loss(x, counts, tiny, eps=1e-3)
    out["eps-floor"] = [floored, lib.autograd.grad(floored, tiny)[0]]
    modules = [
        nn.PoissonNLLLoss(),
        nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-6, reduction="sum"),
        nn.GaussianNLLLoss(),
        nn.GaussianNLLLoss(full=True, eps=1e-3),
    ]
    out["modules"] = [
        [repr(m) for m in modules],
        modules[1](x.exp(), counts),
        modules[3](x, counts, variances),
    ]
    out["refused"] = [
        attempt(lambda: F.poisson_nll_loss(x, counts, reduction="avg")),
        attempt(lambda: F.gaussian_nll_loss(x, counts, -1.0)),
        attempt(lambda: F.gaussian_nll_loss(x, counts, variances - 10)),
        attempt(lambda: F.gaussian_nll_loss(x, counts, variances[:2])),
        attempt(lambda: F.gaussian_nll_loss(x, counts, variances, reduction="avg")),
    ]
    return out


@program("parameter-dict", {"x": Inp((2, 3), F32)})
def _(lib, inp):
    """nn.ParameterDict as PyTorch 2.13 defines it: tensors become parameters,
    registered under their keys (named_parameters, state_dict, an optimizer's step),
    a plain dict added in sorted key order and an OrderedDict in its own, the dict
    methods (get, pop, popitem, setdefault, update, |, del, in, reversed), other
    objects kept as they are, its repr, and the refusals."""
    import collections

    lib.manual_seed(0)
    nn = lib.nn

    class Model(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def __init__(self):
            super().__init__()
            self.heads = nn.ParameterDict(
                {"right": nn.Parameter(lib.randn(3, 2)), "left": lib.randn(3, 2)}
            )

        def forward(self, x, choice):
            return x @ self.heads[choice]

    model = Model()
    x = lib.tensor(inp["x"])
    optimizer = lib.optim.SGD(model.parameters(), lr=0.5)
    loss = model(x, "left").sum() + model(x, "right").pow(2).sum()
    loss.backward()
    optimizer.step()
    pd = nn.ParameterDict(collections.OrderedDict([("b", lib.ones(2)), ("a", lib.zeros(1))]))
    pd["c"] = lib.tensor([1.0, 2.0], requires_grad=False)
    pd.setdefault("d", lib.ones(1, 2))
    pd["note"] = "a string"
    keys = list(pd.keys())
    got = [pd.get("a"), pd.get("missing", 5), "c" in pd, len(pd), list(reversed(pd))]
    popped = pd.pop("a")
    last = pd.popitem()
    merged = pd | nn.ParameterDict({"z": lib.ones(1)})
    del pd["b"]
    return {
        "repr": [repr(model), repr(merged)],
        "named": [name for name, _ in model.named_parameters()],
        "state_dict": list(model.state_dict()),
        "stepped": list(model.parameters()),
        "keys": keys,
        "got": got,
        "popped": [popped, last[0], last[1]],
        "after": [list(pd.keys()), list(merged.keys()), isinstance(pd["c"], nn.Parameter)],
        "requires_grad": [p.requires_grad for p in merged.values()],
        "fromkeys": list(pd.fromkeys(["u", "v"], lib.ones(1)).items()),
        "refused": [
            attempt(lambda: pd[0]),
            attempt(lambda: pd.__setitem__(1, lib.ones(1))),
            attempt(lambda: pd["missing"]),
            attempt(lambda: pd(x)),
            attempt(lambda: pd.update(3)),
            attempt(lambda: pd.update([("k", lib.ones(1), 1)])),
            attempt(lambda: pd.update([3])),
        ],
    }


# ----------------------------------------------------------------------------- init.trunc_normal_, init.orthogonal_


@program("init-trunc-normal-and-orthogonal")
def _(lib, inp):
    """nn.init.trunc_normal_ and orthogonal_ draw PyTorch's numbers after the same
    manual_seed: trunc_normal_'s two samplers (normal draws redrawn outside [a, b]
    when it holds more than 30% of the distribution; uniform candidates accepted by
    density otherwise) and the generator's state after them, the warning for a mean
    more than 2 std away, orthogonal_'s QR with R's signs (square, wide, tall and
    3-d tensors, gain), and the refusal of a vector."""
    init = lib.nn.init
    out: dict[str, object] = {}
    cases = {
        "default": ((2, 3), {}),
        "large": ((40, 30), {}),
        "std": ((64,), {"std": 0.02}),
        "narrow": ((3, 4), {"a": -0.5, "b": 0.5}),
        "shifted": ((5, 7), {"mean": 0.5, "std": 0.2, "a": 0.0, "b": 1.0}),
        "tail": ((50,), {"a": 2.5, "b": 4.0}),
        "far-mean": ((17,), {"mean": 5.0, "a": -1.0, "b": 1.0}),
        "float64": ((4, 5), {"std": 0.5}),
    }
    for name, (shape, options) in cases.items():
        lib.manual_seed(1)
        dtype = lib.float64 if name == "float64" else lib.float32
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = init.trunc_normal_(lib.empty(*shape, dtype=dtype), **options)
        out["trunc-" + name] = [t, [str(w.message) for w in caught], lib.rand(2)]
    layer = lib.nn.Linear(6, 4)
    lib.manual_seed(3)
    returned = init.trunc_normal_(layer.weight, std=0.02)
    out["parameter"] = [returned is layer.weight, layer.weight]
    for name, shape, gain in [
        ("square", (4, 4), 1.0),
        ("wide", (2, 3), 1.0),
        ("tall", (5, 3), 1.0),
        ("3d", (3, 2, 2), 2.0),
        ("4d", (4, 3, 2, 1), 0.5),
    ]:
        lib.manual_seed(2)
        w = init.orthogonal_(lib.empty(*shape), gain=gain)
        flat = w.reshape(shape[0], -1)
        gram = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
        out["orthogonal-" + name] = [w, gram, lib.rand(2)]
    out["refused"] = [
        attempt(lambda: init.orthogonal_(lib.empty(3))),
        attempt(lambda: init.orthogonal_(lib.empty(0, 3))),
    ]
    return out


# ----------------------------------------------------------------------------- dropout


@program("dropout-mask-and-modes")
def _(lib, inp):
    """Dropout draws PyTorch's mask after manual_seed (float64 uniforms below 1 − p),
    scales by 1/(1 − p) in the input's dtype, is MulBackward0 (the gradient is the
    mask), leaves the generator where PyTorch's is; eval(), p = 0 and an empty input
    give the input itself; p = 1 multiplies by 0 without drawing; in place; refusals."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    x = lib.randn(4, 5, requires_grad=True)
    y = F.dropout(x, 0.3)
    y.sum().backward()
    out: dict[str, object] = {"y": y, "grad": x.grad, "next": lib.rand(2)}
    lib.manual_seed(1)
    big = F.dropout(lib.ones(40, dtype=lib.float64), 0.75)
    out["big"] = [big, int((big == 0).sum()), lib.rand(1)]
    model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1))
    batch = lib.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]])
    lib.manual_seed(2)
    train_out = model(batch)
    model.eval()
    eval_out = model(batch)
    model.train()
    w = lib.ones(3, requires_grad=True)
    empty = lib.ones(0)
    h = w * 1
    in_place = F.dropout(h, 0.5, inplace=True)
    out["modes"] = {
        "repr": [repr(model), repr(nn.Dropout()), repr(nn.Dropout(0.2, True)), repr(nn.Dropout(1))],
        "train": train_out,
        "eval": eval_out,
        "same": [
            F.dropout(w, 0.5, training=False) is w,
            F.dropout(w, 0.0) is w,
            F.dropout(empty, 0.5) is empty,
            nn.Dropout(0.9).eval()(w) is w,
        ],
        "p=1": [F.dropout(w, 1.0), lib.rand(1)],
        "in_place": [in_place is h, h, h.grad_fn.name()],
    }
    out["refused"] = [
        attempt(lambda: F.dropout(w, 1.5)),
        attempt(lambda: F.dropout(w, -0.1)),
        attempt(lambda: nn.Dropout(2)),
        attempt(lambda: F.dropout(lib.tensor([1, 2]), 0.5)),
        attempt(lambda: F.dropout(w, 0.5, inplace=True)),
        lib.rand(1),  # the integer input's mask was drawn before the refusal
    ]
    return out


# ----------------------------------------------------------------------------- one_hot, Embedding


@program("one_hot-and-embedding")
def _(lib, inp):
    """F.one_hot (shapes, inferred class count, refusals) and nn.Embedding: PyTorch's
    weights after manual_seed (init.normal_, the padding row zero), lookups, the
    gradient adding up repeated indices and skipping padding_idx, a create_graph
    pass (EmbeddingDenseBackwardBackward0) differentiated again, and refusals."""
    nn, F = lib.nn, lib.nn.functional
    labels = lib.tensor([[0, 3], [2, 0]])
    out: dict[str, object] = {
        "one_hot": [
            F.one_hot(labels),
            F.one_hot(labels, 5),
            F.one_hot(lib.tensor(2), 3),
            F.one_hot(lib.tensor([], dtype=lib.long), 2),
        ],
        "one_hot_refused": [
            attempt(lambda: F.one_hot(lib.tensor([0.0, 1.0]))),
            attempt(lambda: F.one_hot(lib.tensor([True]))),
            attempt(lambda: F.one_hot(lib.tensor([-1, 1]))),
            attempt(lambda: F.one_hot(labels, 3)),
            attempt(lambda: F.one_hot(lib.tensor([], dtype=lib.long))),
        ],
    }
    lib.manual_seed(0)
    table = nn.Embedding(6, 3, padding_idx=1)
    plain = nn.Embedding(20, 2)  # 16 or more: randn's vectorised path
    scaled = nn.init.normal_(lib.empty(4, 5), mean=1.0, std=0.5)
    small = nn.init.normal_(lib.empty(3), std=0.01)
    tokens = lib.tensor([[1, 2, 5], [2, 2, 0]])
    looked_up = table(tokens)
    (looked_up**2).sum().backward()
    weight = table.weight
    (grad,) = lib.autograd.grad((table(tokens) ** 3).sum(), weight, create_graph=True)
    (again,) = lib.autograd.grad((grad * grad).sum(), weight)
    out["embedding"] = {
        "reprs": [repr(table), repr(plain), repr(nn.Embedding(3, 2, padding_idx=-1))],
        "weights": [table.weight, plain.weight, scaled, small],
        "looked_up": looked_up,
        "grad": table.weight.grad,
        "create_graph": [grad, grad.grad_fn.name(), again],
        "functional": F.embedding(lib.tensor([0, 0, 3]), plain.weight, padding_idx=0),
    }
    out["embedding_refused"] = [
        attempt(lambda: table(lib.tensor([6]))),
        attempt(lambda: table(lib.tensor([-1]))),
        attempt(lambda: table(lib.tensor([1.0]))),
        attempt(lambda: table(lib.tensor([True]))),
        attempt(lambda: nn.Embedding(3, 2, padding_idx=3)),
    ]
    return out


@program("init-normal-family")
def _(lib, inp):
    """nn.init.kaiming_normal_ (fan_in, fan_out, the gains) and xavier_normal_:
    PyTorch's numbers after manual_seed (tensor.normal_ with the init's std), and
    the refusals (an unknown mode, a vector)."""
    init = lib.nn.init
    lib.manual_seed(0)
    return {
        "kaiming": [
            init.kaiming_normal_(lib.empty(4, 5)),
            init.kaiming_normal_(lib.empty(3, 8), mode="fan_out", nonlinearity="relu"),
            init.kaiming_normal_(lib.empty(5, 6), a=0.2),
        ],
        "xavier": [init.xavier_normal_(lib.empty(6, 4)), init.xavier_normal_(lib.empty(2, 3), 2)],
        "model": lib.nn.Linear(3, 2)
        .apply(lambda m: init.xavier_normal_(m.weight) if isinstance(m, lib.nn.Linear) else None)
        .weight,
        "refused": [
            attempt(lambda: init.kaiming_normal_(lib.empty(2, 3), mode="fan")),
            attempt(lambda: init.kaiming_uniform_(lib.empty(2, 3), mode="fan")),
            attempt(lambda: init.xavier_normal_(lib.empty(3))),
        ],
    }


# ----------------------------------------------------------------------------- LayerNorm


@program(
    "layer_norm",
    {"x": Inp((2, 3, 4), F32), "g": Inp((2, 3, 4), F32), "x64": Inp((3, 4), F64)},
    ignore_graph=True,  # the create_graph pass's graph is our formula's (docs/differences.md)
)
def _(lib, inp):
    """F.layer_norm and nn.LayerNorm: values over the last one or two dimensions,
    gradients of input, weight and bias, the node and its three edges ((None, 0)
    for an absent weight or bias), second derivatives, gradcheck/gradgradcheck in
    float64, reprs and parameter names, and the refusals."""
    nn, F = lib.nn, lib.nn.functional
    x = lib.tensor(inp["x"], requires_grad=True)
    g = lib.tensor(inp["g"])
    norm = nn.LayerNorm(4)
    with lib.no_grad():
        norm.weight.mul_(lib.tensor([0.5, 1.0, -2.0, 3.0]))
        norm.bias.add_(0.25)
    y = norm(x)
    (y * g).sum().backward()
    out: dict[str, object] = {
        "y": y,
        "grads": [x.grad, norm.weight.grad, norm.bias.grad],
        "edges": [
            [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]
            for t in (y, F.layer_norm(x, (4,)), nn.LayerNorm(4, bias=False)(x))
        ],
        "node": y.grad_fn.name(),
        "two_dims": F.layer_norm(x, (3, 4), eps=1e-3),
        "no_affine": nn.LayerNorm([3, 4], elementwise_affine=False)(x),
    }
    x2 = lib.tensor(inp["x"], requires_grad=True)
    (first,) = lib.autograd.grad((F.layer_norm(x2, (4,)) * g).pow(3).sum(), x2, create_graph=True)
    (second,) = lib.autograd.grad((first * g).sum(), x2)
    out["second"] = [first.detach(), second]
    a = lib.tensor(inp["x64"], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0, 1.5], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=lib.float64, requires_grad=True)

    def fn(a, w, b):
        return F.layer_norm(a, (4,), w, b)

    out["checks"] = [
        lib.autograd.gradcheck(fn, (a, w, b)),
        lib.autograd.gradgradcheck(fn, (a, w, b)),
    ]
    out["modules"] = [
        repr(norm),
        repr(nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False)),
        repr(nn.LayerNorm(4, bias=False)),
        [name for name, _ in nn.LayerNorm(4, bias=False).named_parameters()],
        list(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)).state_dict()),
    ]
    out["refused"] = [
        attempt(lambda: F.layer_norm(x, (3,))),
        attempt(lambda: F.layer_norm(x, [2, 4])),
        attempt(lambda: F.layer_norm(x.long(), (4,))),
        attempt(lambda: F.layer_norm(x, (4,), lib.ones(2))),
        attempt(lambda: F.layer_norm(x, (4,), None, lib.ones(3))),
        attempt(lambda: F.layer_norm(x, 4)),
    ]
    return out


@program(
    "batch_norm",
    {"x": Inp((5, 3), F32), "seq": Inp((4, 2, 3), F32), "x64": Inp((4, 3), F64)},
    ignore_graph=True,  # the create_graph pass's graph is our formula's (docs/differences.md)
)
def _(lib, inp):
    """nn.BatchNorm1d trained in a model (batch statistics, running statistics
    moved with the unbiased variance, num_batches_tracked), eval() with the running
    statistics, (N, C, L) inputs, momentum=None, no running statistics, no affine;
    F.batch_norm's node and edges, second derivatives, gradcheck/gradgradcheck, and
    the refusals."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.tensor(inp["x"])
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss)
    norm = model[1]
    out: dict[str, object] = {
        "losses": losses,
        "state": dict(norm.state_dict()),
        "grads": [p.grad for p in model.parameters()],
        "eval": model.eval()(x),
        "repr": repr(model),
    }
    seq = lib.tensor(inp["seq"], requires_grad=True)
    cumulative = nn.BatchNorm1d(2, momentum=None)
    y = cumulative(seq)
    cumulative(seq * 2)
    (y * lib.tensor(inp["seq"])).sum().backward()
    untracked = nn.BatchNorm1d(2, track_running_stats=False, affine=False)
    out["variants"] = {
        "seq": [y, seq.grad, dict(cumulative.state_dict())],
        "untracked": [untracked.eval()(seq), dict(untracked.state_dict()), repr(untracked)],
        "no_bias": [
            repr(nn.BatchNorm1d(2, bias=False)),
            list(nn.BatchNorm1d(2, bias=False).state_dict()),
        ],
        "edges": [
            [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]
            for t in (y, F.batch_norm(seq, None, None, training=True))
        ],
        "node": y.grad_fn.name(),
    }
    a = lib.tensor(inp["x64"], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
    mean, var = (
        lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64),
        lib.tensor([1.5, 0.5, 2.0], dtype=lib.float64),
    )

    def train_fn(a, w, b):
        return F.batch_norm(a, None, None, w, b, training=True)

    def eval_fn(a, w, b):
        return F.batch_norm(a, mean, var, w, b)

    (first,) = lib.autograd.grad((train_fn(a, w, b) ** 3).sum(), a, create_graph=True)
    (second,) = lib.autograd.grad((first * first).sum(), (a,))
    out["checks"] = [
        lib.autograd.gradcheck(train_fn, (a, w, b)),
        lib.autograd.gradgradcheck(train_fn, (a, w, b)),
        lib.autograd.gradcheck(eval_fn, (a, w, b)),
        lib.autograd.gradgradcheck(eval_fn, (a, w, b)),
        first.detach(),
        second,
    ]
    out["refused"] = [
        attempt(lambda: nn.BatchNorm1d(3)(lib.ones(1, 3))),
        attempt(lambda: nn.BatchNorm1d(3)(lib.ones(2, 4))),
        attempt(lambda: nn.BatchNorm1d(3)(lib.ones(3))),
        attempt(lambda: nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5))),
        attempt(lambda: nn.BatchNorm1d(3).eval()(lib.ones(1, 3))),
    ]
    return out


@program(
    "normalization-forward-mode",
    {"x": Inp((4, 3), F64), "tx": Inp((4, 3), F64), "w": Inp((3,), F64), "tw": Inp((3,), F64)},
)
def _(lib, inp):
    """Forward-mode tangents through layer_norm and batch_norm (training and with
    running statistics), for the input's and the weight's and bias's tangents."""
    F, fwAD = lib.nn.functional, lib.autograd.forward_ad
    x, tx, w, tw = (lib.tensor(inp[k]) for k in ("x", "tx", "w", "tw"))
    b, tb = w * 0.5, tw * -2.0
    mean, var = lib.tensor([0.1, -0.2, 0.3], dtype=lib.float64), w * w + 0.5
    functions = {
        "layer_norm": lambda a, c, d: F.layer_norm(a, (3,), c, d),
        "batch_norm-train": lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True),
        "batch_norm-eval": lambda a, c, d: F.batch_norm(a, mean, var, c, d),
    }
    out = {}
    for name, fn in functions.items():
        # (PyTorch's batch_norm tangent formula warns that torch.jit.script is deprecated)
        with warnings.catch_warnings(), fwAD.dual_level():
            warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
            y = fn(fwAD.make_dual(x, tx), fwAD.make_dual(w, tw), fwAD.make_dual(b, tb))
            only_x = fn(fwAD.make_dual(x, tx), w, b)
            out[name] = [fwAD.unpack_dual(y).tangent, fwAD.unpack_dual(only_x).tangent]
    return out


# ----------------------------------------------------------------------------- LazyLinear


@program("lazy-linear")
def _(lib, inp):
    """nn.LazyLinear as d2l's concise chapters use it: uninitialized parameters
    (printed, listed, in the state_dict, handed to an optimizer), the first call
    drawing Linear's numbers and turning the module into a Linear, training with the
    optimizer made before it, init by apply() afterwards, and a clone loading a
    checkpoint before any call."""
    nn = lib.nn
    lib.manual_seed(0)
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    before = {
        "repr": repr(net),
        "weight": repr(net[0].weight),
        "names": [name for name, _ in net.named_parameters()],
        "state_dict": [[k, repr(v)] for k, v in net.state_dict().items()],
        "lazy": [isinstance(p, nn.parameter.UninitializedParameter) for p in net.parameters()],
        "types": [type(m).__name__ for m in net],
    }
    optimizer = lib.optim.SGD(net.parameters(), lr=0.1)
    x = lib.tensor([[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0]])
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss)
    after = {
        "repr": repr(net),
        "types": [type(m).__name__ for m in net],
        "params": list(net.parameters()),
        "lazy": [isinstance(p, nn.parameter.UninitializedParameter) for p in net.parameters()],
        "losses": losses,
    }

    def init_normal(module):
        if type(module) == nn.Linear:  # noqa: E721  # as d2l writes it
            nn.init.normal_(module.weight, mean=0, std=0.01)
            nn.init.zeros_(module.bias)

    net.apply(init_normal)
    clone = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    loaded = str(clone.load_state_dict(net.state_dict()))
    loaded_repr = repr(clone)
    return {
        "before": before,
        "after": after,
        "init": [net[0].weight, net[2].bias],
        "clone": [loaded, loaded_repr, clone(x), repr(clone), clone(x) == net(x)],
        "no_bias": [repr(nn.LazyLinear(3, bias=False)), nn.LazyLinear(3, bias=False)(x)],
    }


# ----------------------------------------------------------------------------- buffers


@program("module-buffers")
def _(lib, inp):
    """register_buffer as custom modules use it (a constant table, a running count):
    attribute access and reassignment, named_buffers/buffers, state_dict in
    PyTorch's order (parameters, then persistent buffers, module by module; a layer
    used twice saved under both names), load_state_dict (also assign=True),
    double() converting floating buffers only, and the refusals."""
    nn = lib.nn

    class Scaled(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def __init__(self):
            super().__init__()
            self.register_buffer("table", lib.tensor([1.0, 2.0, 3.0]))
            self.register_buffer("calls", lib.tensor(0))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.register_buffer("nothing", None)
            self.scale = nn.Parameter(lib.tensor(0.5))

        def forward(self, x):
            self.calls += 1
            return x * self.table * self.scale

    lib.manual_seed(0)
    shared = nn.Linear(3, 3)
    model = nn.Sequential(Scaled(), shared, nn.ReLU(), shared)
    x = lib.tensor([[1.0, -1.0, 2.0]])
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    state = model.state_dict()
    out: dict[str, object] = {
        "state_keys": list(state),
        "buffers": [[name, b] for name, b in model.named_buffers()],
        "params": [name for name, _ in model.named_parameters()],
        "calls": model[0].calls,
        "nothing": model[0].nothing,
        "table": model[0].table,
    }
    model[0].table = lib.tensor([0.0, 1.0, 0.0])
    out["reassigned"] = [model[0].table, list(model[0]._buffers)]
    copy = nn.Sequential(Scaled(), nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 3))
    out["loaded"] = [str(copy.load_state_dict(state)), copy[0].calls, copy(x)]
    assigned = Scaled()
    new_table = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64)
    assigned.load_state_dict(
        {"table": new_table, "calls": lib.tensor(7), "scale": lib.tensor(2.0)}, assign=True
    )
    out["assigned"] = [assigned.table is new_table, assigned.table, assigned.calls]
    converted = Scaled().double()
    out["double"] = [str(converted.table.dtype), str(converted.calls.dtype)]
    out["refused"] = [
        attempt(lambda: Scaled().load_state_dict({"table": lib.ones(3), "scale": lib.ones(())})),
        attempt(lambda: Scaled().load_state_dict({**Scaled().state_dict(), "table": lib.ones(4)})),
        attempt(lambda: model[0].register_buffer(1, lib.ones(1))),
        attempt(lambda: model[0].register_buffer("a.b", lib.ones(1))),
        attempt(lambda: model[0].register_buffer("", lib.ones(1))),
        attempt(lambda: model[0].register_buffer("scale", lib.ones(1))),
        attempt(lambda: model[0].register_buffer("z", 3)),
        attempt(lambda: setattr(model[0], "table", [1.0])),
    ]
    return out


# ----------------------------------------------------------------------------- forward hooks


@program("module-forward-hooks")
def _(lib, inp):
    """register_forward_hook / register_forward_pre_hook as teaching code uses them:
    recording every layer's activations, replacing an output or an input (a single
    value or a tuple; with kwargs), order and prepend, removal by the handle, and a
    gradient flowing through a replaced output."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    activations = {}

    def record(name):
        def hook(module, args, output):
            activations[name] = [type(module).__name__, len(args), output.detach()]

        return hook

    handles = [layer.register_forward_hook(record(str(i))) for i, layer in enumerate(model)]
    x = lib.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
    y = model(x)
    order: list[object] = []
    doubled = model[2].register_forward_hook(lambda m, a, out: out * 2)
    model[2].register_forward_hook(lambda m, a, out: order.append("second"))
    model[2].register_forward_hook(lambda m, a, out: order.append("first"), prepend=True)
    shifted = model[0].register_forward_pre_hook(lambda m, args: args[0] + 1)
    model[0].register_forward_pre_hook(lambda m, args: order.append(("pre", len(args))))
    z = model(x)
    z.sum().backward()
    grad_hooked = x.grad.clone()
    for handle in handles + [doubled, shifted]:
        handle.remove()
    plain = model(x)

    class TwoInputs(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def forward(self, a, scale=1.0):
            return a * scale

    two = TwoInputs()
    two.register_forward_pre_hook(
        lambda m, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 3}), with_kwargs=True
    )
    seen = []
    two.register_forward_hook(
        lambda m, args, kwargs, out: seen.append([len(args), kwargs, out]), with_kwargs=True
    )
    bad = TwoInputs()
    bad.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True)
    return {
        "activations": activations,
        "y": y,
        "z": z,
        "order": order,
        "grad_hooked": grad_hooked,
        "plain": plain,
        "kwargs": [two(lib.ones(2), scale=2.0), seen],
        "refused": attempt(lambda: bad(lib.ones(2))),
    }


@program("module-full-backward-hooks", {"x": Inp((4, 3), F32)})
def _(lib, inp):
    """register_full_backward_hook and register_full_backward_pre_hook as PyTorch
    2.13 runs them: the outputs' BackwardHookFunctionBackward node, grad_input and
    grad_output for each layer of a model in backward order (None for the first
    layer's input, with PyTorch's warning, when the data does not require grad),
    a hook that replaces grad_input, a pre-hook that replaces grad_output, a module
    with two inputs (zeros for one that does not require grad, None for a
    non-tensor) and two outputs (one unused: its gradient None, the other's still
    flowing), removal, no_grad, and the refusal of a wrong number of gradients."""
    nn = lib.nn
    lib.manual_seed(0)
    x = lib.tensor(inp["x"])
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    seen: list[object] = []

    def record(name):
        def hook(module, grad_input, grad_output):
            seen.append([name, type(module).__name__, grad_input, grad_output])

        return hook

    handles = [layer.register_full_backward_hook(record(str(i))) for i, layer in enumerate(model)]
    y = model(x)
    nodes = [y.grad_fn.name(), [n.name() for n, _ in y.grad_fn.next_functions]]
    warned = H.caught_warnings(lambda: y.mean().backward())
    grads = [p.grad.clone() for p in model.parameters()]
    for handle in handles:
        handle.remove()
    unhooked = model(x).grad_fn.name()
    model.zero_grad()
    xr = x.clone().requires_grad_()
    doubling = model[2].register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    model[0].register_full_backward_pre_hook(lambda m, go: seen.append(["pre", go]))
    model(xr).sum().backward()
    replaced = [xr.grad, model[0].weight.grad]
    doubling.remove()

    class Two(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def forward(self, a, b, k=1.0):
            return a * b * k, a + b

    two = Two()
    two.register_full_backward_hook(record("two"))
    two.register_full_backward_pre_hook(lambda m, go: (go[0] * 10, go[1]))
    a = lib.ones(2, requires_grad=True)
    first, second = two(a, lib.full((2,), 2.0), 3.0)
    first.sum().backward()
    a_grad = a.grad.clone()
    a.grad = None
    first, second = two(a, lib.full((2,), 2.0))
    (first * second).sum().backward()
    with lib.no_grad():
        untracked = model(xr)
    bad = nn.Linear(3, 1)
    bad.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    bad_pre = nn.Linear(3, 1)
    bad_pre.register_full_backward_pre_hook(lambda m, go: ())
    return {
        "y": y,
        "nodes": nodes,
        "warned": warned,
        "seen": seen,
        "grads": grads,
        "unhooked": unhooked,
        "replaced": replaced,
        "two": [a_grad, a.grad, first.grad_fn.name(), second.grad_fn.name()],
        "no_grad": untracked.grad_fn,
        "refused": [
            attempt(lambda: bad(xr).sum().backward()),
            attempt(lambda: bad_pre(xr).sum().backward()),
        ],
    }


@program("custom-function-returning-none-for-an-input")
def _(lib, inp):
    """A custom Function whose backward returns None for an input that requires
    grad, where that input's history is reached by another path too: the other
    path's gradient still arrives (the node that got None is passed over, not
    waited for)."""

    class FirstOnly(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a variable
        @staticmethod
        def forward(ctx, x, y):
            return x * 1, y * 1

        @staticmethod
        def backward(ctx, grad_x, grad_y):
            return grad_x, None

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    out = {}
    h = a * 2
    p, q = FirstOnly.apply(h * 3, h + 1)
    p.sum().backward()
    out["first-only"] = a.grad.clone()
    a.grad = None
    h = a * 2
    p, q = FirstOnly.apply(h * 3, h.exp())
    (p.sum() + q.sum()).backward()
    out["both-used"] = a.grad.clone()
    h = a * 2
    p, q = FirstOnly.apply(h * 3, h + 1)
    out["grad"] = lib.autograd.grad(p.sum(), a)
    p, q = FirstOnly.apply(a * 3, a + 1)
    out["unused"] = attempt(lambda: lib.autograd.grad(q.sum(), a))
    p, q = FirstOnly.apply(a * 3, a + 1)
    out["allow_unused"] = lib.autograd.grad(q.sum(), a, allow_unused=True)
    return out


# ----------------------------------------------------------------------------- cross_entropy(label_smoothing=...)


@program(
    "cross-entropy-label-smoothing",
    {"x": Inp((4, 3), F32), "v": Inp((3,), F64)},
    ignore_graph=True,  # MulBackward0 where PyTorch records MulBackward1 (docs/differences.md)
)
def _(lib, inp):
    """label_smoothing in F.cross_entropy and nn.CrossEntropyLoss: every reduction,
    class weights, ignored targets, a single sample, the gradient and the top nodes;
    the legacy size_average/reduce arguments; ε outside [0, 1]."""
    nn, F = lib.nn, lib.nn.functional
    target = lib.tensor([2, 0, 1, -100])
    weight = lib.tensor([1.0, 2.0, 0.5])
    out: dict[str, object] = {}
    for reduction in ("mean", "sum", "none"):
        for name, w in (("plain", None), ("weighted", weight)):
            x = lib.tensor(inp["x"], requires_grad=True)
            loss = F.cross_entropy(x, target, w, reduction=reduction, label_smoothing=0.2)
            loss.sum().backward()
            out[f"{reduction}-{name}"] = [loss, x.grad, loss.grad_fn.name()]
    x = lib.tensor(inp["x"], requires_grad=True)
    module = nn.CrossEntropyLoss(label_smoothing=0.1)
    out["module"] = [repr(module), module(x, lib.tensor([0, 1, 2, 0]))]
    v = lib.tensor(inp["v"], requires_grad=True)
    single = F.cross_entropy(v, lib.tensor(1), label_smoothing=0.5)
    single.backward()
    out["single"] = [single, v.grad]
    # What each weighting multiplies (the Mul nodes' names differ: docs/differences.md),
    # and the one log_softmax node both terms share
    weighted = [n.next_functions[0][0] for n, _ in single.grad_fn.next_functions]
    nll_input = weighted[0].next_functions[0][0]
    smooth_input = weighted[1]
    while smooth_input.name() != "LogSoftmaxBackward0":  # Div, Sum, MaskedFill, Neg, Sum
        smooth_input = smooth_input.next_functions[0][0]
    out["weighted"] = [n.name() for n in weighted] + [nll_input.name(), nll_input is smooth_input]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        legacy = nn.CrossEntropyLoss(None, False)(x, lib.tensor([0, 1, 2, 0]))
    out["legacy"] = [legacy, [str(w.message) for w in caught]]
    out["outside"] = [
        attempt(lambda: F.cross_entropy(x, target, label_smoothing=1.5)),
        attempt(lambda: F.cross_entropy(x, target, label_smoothing=-0.1)),
        attempt(lambda: F.cross_entropy(x, target, label_smoothing=1.0)),
    ]
    return out


@program("get-submodule-parameter-and-unflatten")
def _(lib, inp):
    """Module.get_submodule / get_parameter / register_module, and nn.Unflatten
    (a view; one size inferred), with their refusals."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    model.register_module("extra", nn.Tanh())
    unflatten = nn.Unflatten(1, (2, 3))
    x = lib.ones(4, 6, requires_grad=True)
    y = unflatten(x)
    y.sum().backward()
    return {
        "found": [
            repr(model.get_submodule("1.1")),
            model.get_submodule("") is model,
            model.get_parameter("1.1.bias"),
            list(dict(model.named_children())),
        ],
        "unflatten": [
            repr(unflatten),
            repr(nn.Unflatten(1, [2, 3])),
            y,
            x.grad,
            nn.Unflatten(-1, (2, -1))(lib.ones(2, 6)).shape,
        ],
        "refused": [
            attempt(lambda: model.get_submodule("2")),
            attempt(lambda: model.get_submodule("0.x")),
            attempt(lambda: model.get_submodule("0.weight")),
            attempt(lambda: model.get_parameter("0.x")),
            attempt(lambda: model.get_parameter("0.in_features")),
            attempt(lambda: unflatten(lib.ones(4, 5))),
        ],
    }


@program("concise-training-loop")
def _(lib, inp):
    """A modern concise training program, printed as it runs: LazyLinear layers
    initialised through apply (xavier_normal_), GELU, Dropout, LayerNorm, LeakyReLU,
    BatchNorm1d, AdamW with CosineAnnealingLR, CrossEntropyLoss with label
    smoothing, train()/eval() each epoch (dropout's masks and the running statistics
    as PyTorch's: the losses agree to the printed digits)."""
    nn = lib.nn
    lib.manual_seed(42)
    X = lib.randn(64, 10)
    y = (X[:, 0] > 0).long()
    net = nn.Sequential(
        nn.Flatten(),
        nn.LazyLinear(32),
        nn.GELU(),
        nn.Dropout(0.2),
        nn.LayerNorm(32),
        nn.LazyLinear(16),
        nn.LeakyReLU(0.1),
        nn.BatchNorm1d(16),
        nn.LazyLinear(2),
    )
    net(X[:2])

    def init(m):
        if type(m) == nn.Linear:  # noqa: E721  # as d2l writes it
            nn.init.xavier_normal_(m.weight)
            nn.init.zeros_(m.bias)

    net.apply(init)
    print(net)
    optimizer = lib.optim.AdamW(net.parameters(), lr=0.01)
    scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(5):
        net.train()
        for i in range(0, 64, 16):
            optimizer.zero_grad()
            loss = loss_fn(net(X[i : i + 16]), y[i : i + 16])
            loss.backward()
            optimizer.step()
        scheduler.step()
        net.eval()
        with lib.no_grad():
            accuracy = (net(X).argmax(1) == y).float().mean()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {accuracy.item():.4f}")
        print(f"lr {scheduler.get_last_lr()[0]:.5f}")
    # (the loss's graph: see api/cross-entropy-label-smoothing and docs/differences.md)
    return {
        "state_dict": list(net.state_dict()),
        "running": net[7].running_var,
        "loss": loss.item(),
    }


# ----------------------------------------------------------------------------- load_state_dict(assign=True)


@program("module-load_state_dict-assign")
def _(lib, inp):
    """assign=True: the given tensors become the parameters (dtype kept, wrapped in
    a Parameter unless one already, requires_grad as before); a float64 state dict
    without assign is cast into the float32 parameters."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(2, 1))
    model[0].bias.requires_grad_(False)
    weight = lib.nn.Parameter(lib.tensor([[1.0, 2.0]], dtype=lib.float64), requires_grad=False)
    bias = lib.tensor([0.5], dtype=lib.float64)
    loaded = model.load_state_dict({"0.weight": weight, "0.bias": bias}, assign=True)
    params = dict(model.named_parameters())
    copied = lib.nn.Linear(2, 1)
    copied.load_state_dict({"weight": weight, "bias": bias})
    wrong = attempt(
        lambda: lib.nn.Linear(2, 1).load_state_dict(
            {"weight": lib.ones(1, 3), "bias": lib.ones(1)}, assign=True
        )
    )
    out = model(lib.ones(1, 2, dtype=lib.float64))
    return {
        "loaded": str(loaded),
        "params": params,
        "same": [params["0.weight"] is weight, params["0.bias"] is bias],
        "is_parameter": [isinstance(p, lib.nn.Parameter) for p in params.values()],
        "copied": [copied.weight, copied.bias],
        "wrong": wrong,
        "out": out,
    }


# ----------------------------------------------------------------------------- vectorized jacobian/hessian with create_graph


def _flags(blocks):
    return [[(b.requires_grad, b.grad_fn is not None) for b in row] for row in blocks]


@program(
    "vectorized-jacobian-create_graph-columns",
    {"x": Inp((), F64), "y": Inp((), F64), "v": Inp((2,), F64)},
    ignore_graph=True,  # PyTorch's blocks come from a vmap'd vjp; ours from a cat of rows
)
def _(lib, inp):
    """With vectorize=True, create_graph=True a block requires grad when any block of
    its column does: H[0][0] of x·sin(y) is 0 yet recorded; second derivatives of
    the blocks match."""
    F = lib.autograd.functional
    x, y, v = (lib.tensor(inp[k], requires_grad=True) for k in ("x", "y", "v"))
    out = {}
    for vectorize in (False, True):
        h = F.hessian(lambda a, b: a * b.sin(), (x, y), create_graph=True, vectorize=vectorize)
        j = F.jacobian(
            lambda a, b: (a * b, (a * 2).sum() + b.exp().sum(), a + 1),
            (v, y),
            create_graph=True,
            vectorize=vectorize,
        )
        third = lib.autograd.grad(h[1][1], (x, y), retain_graph=True)
        out[f"vectorize={vectorize}"] = {
            "h": h,
            "h_flags": _flags(h),
            "third": third,
            "j": j,
            "j_flags": _flags(j),
        }
    return out


# ----------------------------------------------------------------------------- post-accumulate-grad hooks


@program("post-accumulate-grad-hook", {"w": Inp((3,), F32), "x": Inp((3,), F32)})
def _(lib, inp):
    """register_post_accumulate_grad_hook: runs once per pass after .grad is
    complete (after the tensor's own hooks), sees the leaf, runs in no_grad mode;
    an SGD step taken inside backward; backward(inputs=...) runs it, grad() not."""
    w = lib.tensor(inp["w"], requires_grad=True)
    x = lib.tensor(inp["x"])
    seen = []

    def record(p):
        seen.append((p is w, p.grad.clone(), lib.is_grad_enabled()))

    handle = w.register_post_accumulate_grad_hook(record)
    w.register_hook(lambda g: g * 2)
    ((w * x).sum() + (w * w).sum()).backward()
    (w.exp() * x).sum().backward(inputs=[w])
    lib.autograd.grad((w * 3).sum(), w)
    handle.remove()
    (w * 5).sum().backward()
    v = lib.tensor(inp["w"], requires_grad=True)

    def sgd_step(p):
        p.add_(p.grad, alpha=-0.1)
        p.grad = None

    v.register_post_accumulate_grad_hook(sgd_step)
    ((v * x).sum() ** 2).backward()
    return {"seen": seen, "w": w, "v": v, "v_grad": v.grad}


@program("post-accumulate-grad-hook-errors", {"w": Inp((3,), F32)})
def _(lib, inp):
    def hooked(hook):
        leaf = lib.tensor(inp["w"], requires_grad=True)
        leaf.register_post_accumulate_grad_hook(hook)
        (leaf * 2).sum().backward()

    w = lib.tensor(inp["w"], requires_grad=True)
    return [
        attempt(lambda: (w * 2).register_post_accumulate_grad_hook(print)),
        attempt(lambda: lib.ones(2).register_post_accumulate_grad_hook(print)),
        attempt(lambda: hooked(lambda p: 5)),
        attempt(lambda: hooked(lambda p: p.grad.mul_(2))),
    ]


# ----------------------------------------------------------------------------- optimizers: repr, state_dict

OPTIMIZERS = {
    "sgd": lambda lib, p: lib.optim.SGD(p, lr=0.1),
    "sgd-nesterov": lambda lib, p: lib.optim.SGD(
        p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01
    ),
    "sgd-two-groups": lambda lib, p: lib.optim.SGD(
        [{"params": [p[0]]}, {"lr": 0.5, "params": [p[1]]}], lr=0.1, momentum=0.5
    ),
    "adam": lambda lib, p: lib.optim.Adam(p, lr=0.1),
    "adam-amsgrad": lambda lib, p: lib.optim.Adam(p, lr=0.1, amsgrad=True, weight_decay=0.1),
    "adam-decoupled": lambda lib, p: lib.optim.Adam(
        p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True
    ),
    "adamw": lambda lib, p: lib.optim.AdamW(p, lr=0.1),
    "adamw-amsgrad": lambda lib, p: lib.optim.AdamW(p, lr=0.1, amsgrad=True, weight_decay=0.5),
    "rmsprop": lambda lib, p: lib.optim.RMSprop(p),
    "rmsprop-centered": lambda lib, p: lib.optim.RMSprop(
        p, momentum=0.5, centered=True, maximize=True
    ),
    "adagrad": lambda lib, p: lib.optim.Adagrad(p, lr=0.1),
    "adagrad-decay": lambda lib, p: lib.optim.Adagrad(
        p, lr=0.1, lr_decay=0.5, weight_decay=0.1, initial_accumulator_value=0.1
    ),
    "adadelta": lambda lib, p: lib.optim.Adadelta(p),
    "adadelta-decay": lambda lib, p: lib.optim.Adadelta(p, lr=0.5, rho=0.8, weight_decay=0.1),
    "adamax": lambda lib, p: lib.optim.Adamax(p, lr=0.1),
    "adamax-maximize": lambda lib, p: lib.optim.Adamax(p, maximize=True, weight_decay=0.1),
    "nadam": lambda lib, p: lib.optim.NAdam(p, lr=0.1),
    "nadam-decoupled": lambda lib, p: lib.optim.NAdam(
        p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True
    ),
    "radam": lambda lib, p: lib.optim.RAdam(p, lr=0.1),
    "radam-decay": lambda lib, p: lib.optim.RAdam(p, lr=0.1, weight_decay=0.1, betas=(0.5, 0.6)),
}


def _train(optimizer, w, b, steps: int) -> None:
    for _ in range(steps):
        optimizer.zero_grad()
        ((w * w).sum() * 2 + (b * w[0]).sum()).backward()
        optimizer.step()


def _optimizer_round_trip(lib, make):
    """repr, param-group keys, state_dict after 3 steps, and training resumed from
    it in a new optimizer (2 more steps each: the same parameters)."""
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    b = lib.nn.Parameter(lib.tensor([0.5]))
    optimizer = make(lib, [w, b])
    text = repr(optimizer)
    keys = [list(group) for group in optimizer.param_groups]
    _train(optimizer, w, b, 3)
    saved = optimizer.state_dict()
    state = {i: (list(values), values) for i, values in saved["state"].items()}
    w2 = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    b2 = lib.nn.Parameter(lib.tensor([0.5]))
    resumed = make(lib, [w2, b2])
    resumed.load_state_dict(saved)
    shares = [resumed.state[w2][k] is optimizer.state[w][k] for k in optimizer.state[w]]
    _train(resumed, w2, b2, 2)
    _train(optimizer, w, b, 2)
    return {
        "repr": text,
        "keys": keys,
        "state": state,
        "groups": saved["param_groups"],
        "shares": shares,
        "after": (w, b, w2, b2),
    }


for _name, _make in OPTIMIZERS.items():
    program(f"optimizer-state_dict/{_name}")(
        lambda lib, inp, make=_make: _optimizer_round_trip(lib, make)
    )


@program("optimizer-step-closure-and-module-apply")
def _(lib, inp):
    """optimizer.step(closure) returns the closure's loss (each optimizer); a
    model initialised with Module.apply (children first, then the model)."""
    visited = []

    def init(module):
        visited.append(type(module).__name__)
        if isinstance(module, lib.nn.Linear):
            lib.nn.init.constant_(module.weight, 0.5)
            lib.nn.init.zeros_(module.bias)

    out: dict[str, object] = {}
    for name, make in OPTIMIZERS.items():
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1))
        returned = model.apply(init) is model
        optimizer = make(lib, list(model.parameters()))
        x = lib.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]])

        def closure(model=model, optimizer=optimizer, x=x):
            optimizer.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            return loss

        losses = [optimizer.step(closure) for _ in range(3)]
        out[name] = {"returned": returned, "losses": losses, "params": list(model.parameters())}
    out["visited"] = visited[:4]
    return out


@program("clip-grad-norm-and-value")
def _(lib, inp):
    """nn.utils.clip_grad_norm_ (norms 2, 1, inf; below the limit: unchanged; no
    gradients; a non-finite norm) and clip_grad_value_ between backward and step."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    x = lib.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, 2.0]])
    utils = lib.nn.utils
    out = {}
    for norm_type in (2.0, 1, float("inf")):
        model.zero_grad()
        (model(x) * 10).pow(2).sum().backward()
        total = utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=norm_type)
        out[f"norm {norm_type}"] = (total, [p.grad for p in model.parameters()])
    model.zero_grad()
    (model(x) * 0.001).sum().backward()
    out["below"] = (utils.clip_grad_norm_(model.parameters(), 5.0), model[2].bias.grad)
    out["no grads"] = utils.clip_grad_norm_([lib.nn.Parameter(lib.ones(2))], 1.0)
    w = lib.nn.Parameter(lib.ones(2))
    w.grad = lib.tensor([float("inf"), 1.0])
    out["nonfinite"] = attempt(lambda: utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True))
    w.grad = lib.tensor([-2.0, 3.0])
    out["value"] = (utils.clip_grad_value_(w, 1.5), w.grad)
    return out


# ----------------------------------------------------------------------------- learning-rate schedulers

SCHEDULERS = {
    "step": lambda S, o: S.StepLR(o, step_size=2, gamma=0.5),
    "multistep": lambda S, o: S.MultiStepLR(o, milestones=[1, 3, 3], gamma=0.1),
    "exponential": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "lambda": lambda S, o: S.LambdaLR(o, lambda epoch: 1 / (epoch + 1)),
    "lambda-per-group": lambda S, o: S.LambdaLR(o, [lambda e: 0.5**e, lambda e: e + 1]),
    "linear": lambda S, o: S.LinearLR(o),
    "linear-short": lambda S, o: S.LinearLR(o, start_factor=0.25, end_factor=0.5, total_iters=3),
    "cosine": lambda S, o: S.CosineAnnealingLR(o, T_max=2, eta_min=0.01),
    "cosine-long": lambda S, o: S.CosineAnnealingLR(o, T_max=10),
    "multiplicative": lambda S, o: S.MultiplicativeLR(o, lambda epoch: 0.9 ** (epoch % 2)),
    "constant": lambda S, o: S.ConstantLR(o),
    "constant-short": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=2),
    "polynomial": lambda S, o: S.PolynomialLR(o, total_iters=4),
    "polynomial-squared": lambda S, o: S.PolynomialLR(o, total_iters=3, power=2.0),
    "chained": lambda S, o: S.ChainedScheduler(
        [S.LinearLR(o, start_factor=0.5, total_iters=2), S.ExponentialLR(o, gamma=0.8)]
    ),
}


@program("lr-schedulers")
def _(lib, inp):
    """StepLR, MultiStepLR, ExponentialLR and LambdaLR through an epoch loop (rates
    per group, the parameters they train), state_dict, resuming from it, two
    schedulers chained, the step-order warning, step(epoch)'s deprecation (closed
    form) and the refusals."""
    S = lib.optim.lr_scheduler
    out: dict[str, object] = {}
    for name, make in SCHEDULERS.items():
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        b = lib.nn.Parameter(lib.tensor([0.5]))
        optimizer = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.2}], lr=0.1)
        scheduler = make(S, optimizer)
        rates = [scheduler.get_last_lr()]
        for _ in range(5):
            _train(optimizer, w, b, 1)
            scheduler.step()
            rates.append(scheduler.get_last_lr())
        saved = scheduler.state_dict()
        resumed_optimizer = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        resumed_optimizer.load_state_dict(
            {"state": {}, "param_groups": [optimizer.state_dict()["param_groups"][0]]}
        )
        out[name] = {
            "rates": rates,
            "groups": [g["lr"] for g in optimizer.param_groups],
            "initial": [g["initial_lr"] for g in optimizer.param_groups],
            "state_dict": {k: v for k, v in saved.items() if k != "milestones"},
            "params": [w, b],
        }
    w = lib.nn.Parameter(lib.ones(1))
    optimizer = lib.optim.SGD([w], lr=1.0)
    first = S.ExponentialLR(optimizer, gamma=0.5)
    second = S.MultiStepLR(optimizer, milestones=[2], gamma=0.1)
    chained = []
    for _ in range(3):
        optimizer.step()
        first.step()
        second.step()
        chained.append([first.get_last_lr(), second.get_last_lr()])
    out["chained"] = chained
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        early = S.StepLR(lib.optim.SGD([w], lr=1.0), step_size=1)
        early.step()  # before any optimizer.step()
        early.step()  # warned once only
        direct = early.get_lr()
        early.step(5)
        jumped = S.MultiStepLR(lib.optim.SGD([w], lr=1.0), milestones=[2, 4], gamma=0.5)
        jumped.step(3)
    out["warned"] = [str(w.message) for w in caught]
    out["early"] = [early.get_last_lr(), direct, early.last_epoch, jumped.get_last_lr()]
    resumed = S.StepLR(optimizer, step_size=2)
    resumed.load_state_dict(first.state_dict())
    out["loaded"] = [resumed.last_epoch, resumed.get_last_lr(), resumed.gamma]
    restarted = lib.optim.SGD([w], lr=1.0)
    restarted.param_groups[0]["initial_lr"] = 2.0
    cosine = S.CosineAnnealingLR(restarted, T_max=8, last_epoch=3)  # resumed at epoch 3
    jumped_cosine = S.CosineAnnealingLR(lib.optim.SGD([w], lr=1.0), T_max=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jumped_cosine.step(6)
    out["resumed_cosine"] = [cosine.get_last_lr(), jumped_cosine.get_last_lr()]
    out["refused"] = [
        attempt(lambda: S.LinearLR(lib.optim.SGD([w], lr=1.0), start_factor=0)),
        attempt(lambda: S.LinearLR(lib.optim.SGD([w], lr=1.0), end_factor=1.5)),
        attempt(lambda: S.StepLR("sgd", step_size=1)),
        attempt(lambda: S.LambdaLR(optimizer, [lambda e: 1.0, lambda e: 2.0])),
        attempt(lambda: S.StepLR(lib.optim.SGD([w], lr=1.0), 2, last_epoch=3)),
    ]
    return out


@program("lr-reduce-on-plateau")
def _(lib, inp):
    """ReduceLROnPlateau driven by a validation loss (min, rel and abs thresholds,
    patience, cooldown, min_lr per group, the eps below which nothing changes) and an
    accuracy (max); a 0-d tensor as the metric; state_dict and resuming; refusals."""
    S = lib.optim.lr_scheduler
    losses = [5.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    runs: dict[str, dict] = {
        "default": {"patience": 1},
        "abs-cooldown": {"patience": 1, "threshold": 0.5, "threshold_mode": "abs", "cooldown": 2},
        "floor": {"patience": 0, "factor": 0.5, "min_lr": [0.3, 0.05]},
        "eps": {"patience": 0, "factor": 0.9, "min_lr": 0.95, "eps": 0.1},
        "max": {"mode": "max", "patience": 1},
    }
    out: dict[str, object] = {}
    for name, options in runs.items():
        w = lib.nn.Parameter(lib.ones(1))
        optimizer = lib.optim.SGD([{"params": [w]}, {"params": [], "lr": 0.2}], lr=1.0)
        plateau = S.ReduceLROnPlateau(optimizer, **options)
        rates = []
        for value in losses:
            plateau.step(lib.tensor(value))
            rates.append([plateau.get_last_lr(), plateau.num_bad_epochs, plateau.best])
        out[name] = {"rates": rates, "state": plateau.state_dict()}
    optimizer = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
    resumed = S.ReduceLROnPlateau(optimizer)
    resumed.load_state_dict({**out["default"]["state"], "min_lrs": [0]})  # type: ignore[index]
    resumed.step(10.0)
    out["resumed"] = [resumed.best, resumed.num_bad_epochs, resumed.last_epoch]
    out["refused"] = [
        attempt(lambda: S.ReduceLROnPlateau(optimizer, factor=1.0)),
        attempt(lambda: S.ReduceLROnPlateau(optimizer, mode="lowest")),
        attempt(lambda: S.ReduceLROnPlateau(optimizer, threshold_mode="relative")),
        attempt(lambda: S.ReduceLROnPlateau(optimizer, min_lr=[0.1, 0.2])),
        attempt(lambda: S.ReduceLROnPlateau("sgd")),
    ]
    return out


@program("adagrad")
def _(lib, inp):
    """Adagrad's steps (lr_decay, weight_decay, initial_accumulator_value, maximize),
    its state before any step, its settings printed, and its refusals."""
    out: dict[str, object] = {}
    for name, options in {
        "default": {},
        "decay": {"lr": 0.5, "lr_decay": 0.1, "weight_decay": 0.2},
        "accumulator": {"initial_accumulator_value": 0.5, "eps": 1e-3, "maximize": True},
    }.items():
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.25]))
        b = lib.nn.Parameter(lib.tensor([0.5]))
        optimizer = lib.optim.Adagrad([w, b], **options)
        before = optimizer.state_dict()["state"]
        _train(optimizer, w, b, 4)
        out[name] = {"before": before, "after": optimizer.state_dict(), "params": [w, b]}
    out["repr"] = repr(optimizer)
    w = lib.nn.Parameter(lib.ones(1))
    out["refused"] = [
        attempt(lambda: lib.optim.Adagrad([w], lr=-1)),
        attempt(lambda: lib.optim.Adagrad([w], lr_decay=-1)),
        attempt(lambda: lib.optim.Adagrad([w], weight_decay=-1)),
        attempt(lambda: lib.optim.Adagrad([w], initial_accumulator_value=-1)),
        attempt(lambda: lib.optim.Adagrad([w], eps=-1)),
    ]
    return out


@program("lr-schedulers-multiplicative-constant-polynomial-chained")
def _(lib, inp):
    """MultiplicativeLR, ConstantLR, PolynomialLR and ChainedScheduler: their
    closed forms (the deprecated step(epoch)), a chained warm-up and decay whose
    state_dict holds the schedulers' own, and their refusals."""
    S = lib.optim.lr_scheduler
    w = lib.nn.Parameter(lib.ones(1))
    out: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # step(epoch)'s deprecation (api/lr-schedulers)
        for name, make in {
            "constant": lambda o: S.ConstantLR(o, factor=0.25, total_iters=3),
            "polynomial": lambda o: S.PolynomialLR(o, total_iters=4, power=2.0),
        }.items():
            jumps = []
            for epoch in [2, 5, 1, 3]:
                scheduler = make(lib.optim.SGD([w], lr=1.0))
                scheduler.step(epoch)
                jumps.append(scheduler.get_last_lr())
            out["closed-" + name] = jumps
    optimizer = lib.optim.SGD([w], lr=1.0)
    chained = S.ChainedScheduler(
        [S.ConstantLR(optimizer, factor=0.1, total_iters=2), S.ExponentialLR(optimizer, 0.9)],
        optimizer=optimizer,
    )
    rates = []
    for _ in range(4):
        optimizer.step()
        chained.step()
        rates.append(chained.get_last_lr())
    saved = chained.state_dict()
    out["chained"] = [rates, list(saved), [list(s) for s in saved["_schedulers"]]]
    other = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.0)
    out["refused"] = [
        attempt(lambda: S.ConstantLR(optimizer, factor=1.5)),
        attempt(lambda: S.MultiplicativeLR(optimizer, 0.5)),
        attempt(lambda: S.MultiplicativeLR(optimizer, [lambda e: 1.0, lambda e: 1.0])),
        attempt(lambda: S.ChainedScheduler([])),
        attempt(lambda: S.ChainedScheduler([S.StepLR(other, 1)], optimizer=optimizer)),
        attempt(lambda: S.ChainedScheduler([S.ReduceLROnPlateau(optimizer)])),
    ]
    return out


@program("lr-schedulers-one-cycle-sequential-warm-restarts")
def _(lib, inp):
    """OneCycleLR (cos and linear, three phases, per-group max_lr, SGD's momentum and
    Adam's β₁ cycled the other way, the settings it adds to each group, stepping
    past total_steps refused), SequentialLR (a warm-up then a decay or a cosine:
    the milestone restarts the next one by its closed form; state_dict with the
    schedulers' own) and CosineAnnealingWarmRestarts (T_mult 1 and 2, eta_min,
    fractional step(epoch)), each training a parameter, and their refusals."""
    S = lib.optim.lr_scheduler
    out: dict[str, object] = {}

    def run(make_optimizer, make_scheduler, steps):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        b = lib.nn.Parameter(lib.tensor([0.5]))
        optimizer = make_optimizer([{"params": [w]}, {"params": [b], "lr": 0.2}])
        scheduler = make_scheduler(optimizer)
        rates, momenta = [scheduler.get_last_lr()], []
        for _ in range(steps):
            _train(optimizer, w, b, 1)
            scheduler.step()
            rates.append(scheduler.get_last_lr())
            group = optimizer.param_groups[0]
            momenta.append(group["betas"][0] if "betas" in group else group.get("momentum"))
        groups = [{k: v for k, v in g.items() if k != "params"} for g in optimizer.param_groups]
        state = {k: v for k, v in scheduler.state_dict().items() if k != "_schedulers"}
        return {
            "rates": rates,
            "momenta": momenta,
            "groups": groups,
            "params": [w, b],
            "state": state,
        }

    def sgd(p):
        return lib.optim.SGD(p, lr=0.1, momentum=0.9)

    def adam(p):
        return lib.optim.Adam(p, lr=0.1)

    out["one-cycle"] = run(sgd, lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=10), 10)
    out["one-cycle-linear"] = run(
        adam,
        lambda o: S.OneCycleLR(
            o, max_lr=[0.5, 2.0], epochs=3, steps_per_epoch=4, anneal_strategy="linear"
        ),
        12,
    )
    out["one-cycle-three-phase"] = run(
        sgd,
        lambda o: S.OneCycleLR(
            o, max_lr=0.4, total_steps=12, three_phase=True, pct_start=0.25, div_factor=10.0
        ),
        12,
    )
    out["one-cycle-no-momentum"] = run(
        lambda p: lib.optim.SGD(p, lr=0.1),
        lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=6, cycle_momentum=False),
        6,
    )
    out["sequential"] = run(
        sgd,
        lambda o: S.SequentialLR(
            o,
            [S.LinearLR(o, start_factor=0.25, total_iters=3), S.ExponentialLR(o, gamma=0.5)],
            milestones=[3],
        ),
        7,
    )
    out["sequential-three"] = run(
        adam,
        lambda o: S.SequentialLR(
            o,
            [
                S.LinearLR(o, start_factor=0.5, end_factor=0.5, total_iters=2),
                S.CosineAnnealingLR(o, T_max=4),
                S.StepLR(o, step_size=2, gamma=0.1),
            ],
            milestones=[2, 6],
        ),
        9,
    )
    out["warm-restarts"] = run(sgd, lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3), 8)
    out["warm-restarts-mult"] = run(
        sgd, lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01), 10
    )
    w = lib.nn.Parameter(lib.ones(1))
    optimizer = lib.optim.SGD([w], lr=1.0)
    restarts = S.CosineAnnealingWarmRestarts(optimizer, T_0=4, T_mult=2)
    fractional = []
    for epoch in [0.5, 1.25, 4.0, 5.5, 13.0, 2.0]:
        restarts.step(epoch)
        fractional.append(
            [restarts.get_last_lr(), restarts.T_cur, restarts.T_i, restarts.last_epoch]
        )
    out["warm-restarts-fractional"] = fractional
    one = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1, momentum=0.9)
    short = S.OneCycleLR(one, max_lr=1.0, total_steps=2)
    short.step()
    out["refused"] = [
        attempt(lambda: [short.step(), short.step()]),
        attempt(lambda: S.OneCycleLR(one, max_lr=1.0)),
        attempt(lambda: S.OneCycleLR(one, max_lr=1.0, total_steps=0)),
        attempt(lambda: S.OneCycleLR(one, max_lr=1.0, epochs=2, steps_per_epoch=0)),
        attempt(lambda: S.OneCycleLR(one, max_lr=1.0, total_steps=5, pct_start=1)),
        attempt(lambda: S.OneCycleLR(one, max_lr=1.0, total_steps=5, anneal_strategy="exp")),
        attempt(lambda: S.OneCycleLR(one, max_lr=[1.0, 2.0], total_steps=5)),
        attempt(lambda: S.OneCycleLR(lib.optim.Adagrad([w]), max_lr=1.0, total_steps=5)),
        attempt(lambda: S.SequentialLR(optimizer, [], milestones=[])),
        attempt(lambda: S.SequentialLR(optimizer, [S.StepLR(optimizer, 2)], milestones=[1])),
        attempt(lambda: S.SequentialLR(optimizer, [S.ReduceLROnPlateau(optimizer)], [])),
        attempt(lambda: S.SequentialLR(optimizer, [object()], [])),
        attempt(lambda: S.CosineAnnealingWarmRestarts(optimizer, T_0=0)),
        attempt(lambda: S.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=0)),
        attempt(lambda: S.CosineAnnealingWarmRestarts(optimizer, T_0=2, eta_min="0")),
        attempt(lambda: restarts.step(-1)),
    ]
    return out


@program("adadelta-adamax-nadam-radam", {"x": Inp((8, 3), F32), "y": Inp((8, 1), F32)})
def _(lib, inp):
    """Adadelta, Adamax, NAdam and RAdam train a small model for twelve steps as
    PyTorch's single-tensor steps do (RAdam's momentum-only steps, then its
    rectified adaptive ones from the sixth; weight decay coupled and decoupled;
    maximize), with PyTorch's state keys and settings, and their refusals."""
    x, y = lib.tensor(inp["x"]), lib.tensor(inp["y"])
    out: dict[str, object] = {}
    for name, make in {
        "adadelta": lambda p: lib.optim.Adadelta(p),
        "adadelta-options": lambda p: lib.optim.Adadelta(
            p, lr=0.5, rho=0.8, weight_decay=0.1, maximize=True
        ),
        "adamax": lambda p: lib.optim.Adamax(p),
        "adamax-decay": lambda p: lib.optim.Adamax(p, lr=0.05, weight_decay=0.01),
        "nadam": lambda p: lib.optim.NAdam(p),
        "nadam-decay": lambda p: lib.optim.NAdam(p, lr=0.01, weight_decay=0.1),
        "nadam-decoupled": lambda p: lib.optim.NAdam(
            p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01
        ),
        "radam": lambda p: lib.optim.RAdam(p, lr=0.01),
        "radam-decay": lambda p: lib.optim.RAdam(p, lr=0.01, weight_decay=0.1),
        "radam-decoupled": lambda p: lib.optim.RAdam(
            p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.8, 0.9)
        ),
    }.items():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        optimizer = make(model.parameters())
        losses = []
        for _ in range(12):
            optimizer.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        out[name] = {
            "losses": losses,
            "params": list(model.parameters()),
            "state": optimizer.state_dict(),
            "repr": repr(optimizer),
        }
    w = lib.nn.Parameter(lib.ones(1))
    out["refused"] = [
        attempt(lambda: lib.optim.Adadelta([w], lr=-1)),
        attempt(lambda: lib.optim.Adadelta([w], rho=1.5)),
        attempt(lambda: lib.optim.Adadelta([w], eps=-1)),
        attempt(lambda: lib.optim.Adadelta([w], weight_decay=-1)),
        attempt(lambda: lib.optim.Adamax([w], betas=(1.0, 0.9))),
        attempt(lambda: lib.optim.Adamax([w], betas=(0.9, -0.1))),
        attempt(lambda: lib.optim.NAdam([w], momentum_decay=-1)),
        attempt(lambda: lib.optim.NAdam([w], lr=-0.1)),
        attempt(lambda: lib.optim.RAdam([w], eps=-1)),
        attempt(lambda: lib.optim.RAdam([w], weight_decay=-1)),
    ]
    return out


@program("optimizer-load_state_dict-checks", rtol=1e-6, atol=1e-9)  # float32 values, widened
def _(lib, inp):
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    b = lib.nn.Parameter(lib.tensor([0.5]))
    optimizer = lib.optim.Adam([w, b])
    _train(optimizer, w, b, 1)
    saved = optimizer.state_dict()
    w64 = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
    b64 = lib.nn.Parameter(lib.zeros(1, dtype=lib.float64))
    wider = lib.optim.Adam([w64, b64])
    wider.load_state_dict(saved)
    return {
        "fewer": attempt(lambda: lib.optim.Adam([w]).load_state_dict(saved)),
        "groups": attempt(
            lambda: lib.optim.Adam([{"params": [w]}, {"params": [b]}]).load_state_dict(saved)
        ),
        "float64": wider.state[w64],
    }


# ----------------------------------------------------------------------------- clamp_min, clamp_max, absolute


@program(
    "clamp_min-clamp_max-absolute", {"x": Inp((2, 3), F32, "halves"), "m": Inp((3,), F32, "halves")}
)
def _(lib, inp):
    """The named forms of clamp and abs: their nodes (ClampMinBackward0/1,
    ClampMaxBackward0/1, AbsBackward0), a tensor bound's gradient, the in-place forms."""
    x = lib.tensor(inp["x"], requires_grad=True)
    m = lib.tensor(inp["m"], requires_grad=True)
    out = {
        "min_number": lib.clamp_min(x, 0.5),
        "max_number": x.clamp_max(-0.5),
        "max_int": lib.clamp_max(x, 1),
        "min_tensor": lib.clamp_min(x, m),
        "max_tensor": x.clamp_max(m),
        "absolute": lib.absolute(x),
        "absolute_method": x.absolute(),
        "int_min_float": lib.clamp_min(lib.tensor([1, 2, 3]), 1.5),
        "int_max_int": lib.tensor([1, 2, 3]).clamp_max(2),
    }
    total = sum(v.sum() for k, v in out.items() if v.requires_grad)
    total.backward()
    inplace = []
    for name, arg in (("clamp_min_", 0.25), ("clamp_max_", m), ("absolute_", None)):
        y = x * 1
        getattr(y, name)(*(() if arg is None else (arg,)))
        inplace.append(y)
    plain = lib.tensor(inp["x"])
    plain.clamp_min_(0.0).clamp_max_(1.0)
    return {**out, "x": x, "m": m, "inplace": inplace, "plain": plain}


@program("clamp_min-clamp_max-arguments", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"])
    return [
        attempt(lambda: lib.clamp_min(x, None)),
        attempt(lambda: lib.clamp_max(x, "a")),
        attempt(lambda: x.clamp_max(None)),
        attempt(lambda: x.clone().clamp_min_("a")),
        attempt(lambda: x.clone().clamp_max_(None)),
        attempt(lambda: lib.absolute(lib.tensor([True]))),
        attempt(lambda: lib.tensor([1, 2]).clamp_min_(1.5)),
    ]


# ----------------------------------------------------------------------------- regression losses

REGRESSION_INPUTS = {"x": Inp((2, 5), F32, "halves"), "y": Inp((2, 5), F32, "halves")}


def _regression_losses(lib, x, y):
    F = lib.nn.functional
    w = lib.arange(1.0, 11.0).reshape(2, 5)
    out = {}
    for reduction in ("mean", "sum", "none"):
        out[f"l1 {reduction}"] = F.l1_loss(x, y, reduction=reduction)
        out[f"l1 weighted {reduction}"] = F.l1_loss(x, y, reduction=reduction, weight=w)
        for k in (0.5, 1.0, 2.0):
            out[f"smooth_l1 {k} {reduction}"] = F.smooth_l1_loss(x, y, reduction=reduction, beta=k)
            out[f"huber {k} {reduction}"] = F.huber_loss(x, y, reduction=reduction, delta=k)
        out[f"huber weighted {reduction}"] = F.huber_loss(x, y, reduction=reduction, weight=w)
    out["smooth_l1 beta=0"] = F.smooth_l1_loss(x, y, beta=0.0)
    return out


@program("regression-losses", REGRESSION_INPUTS)
def _(lib, inp):
    """l1_loss, smooth_l1_loss and huber_loss at |d| below, at and above the
    threshold (halves: differences hit 0.5, 1 and 2 exactly), with their nodes."""
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"], requires_grad=True)
    out = _regression_losses(lib, x, y)
    sum(v.sum() for v in out.values()).backward()
    return {**out, "x": x, "y": y}


@program("regression-losses-second-derivative", REGRESSION_INPUTS, ignore_graph=True)
def _(lib, inp):
    """Their second derivatives (0 at |d| = threshold, as PyTorch's formulas);
    the create_graph graph is autogradkit's own (see docs/differences.md)."""
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"], requires_grad=True)
    out = {}
    for name, loss in _regression_losses(lib, x, y).items():
        gx, gy = lib.autograd.grad(loss.sum(), (x, y), create_graph=True)
        (hx,) = lib.autograd.grad((gx * gx).sum() + gy.sum(), x, allow_unused=True)
        out[name] = (gx.detach(), gy.detach(), hx.clone())  # PyTorch: a ZeroTensor for l1
    return out


@program("regression-loss-modules", REGRESSION_INPUTS)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"])
    nn = lib.nn
    modules = [
        nn.L1Loss(),
        nn.L1Loss(reduction="sum"),
        nn.SmoothL1Loss(beta=0.5),
        nn.HuberLoss(delta=2.0, reduction="none"),
    ]
    losses = [m(x, y) for m in modules]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # size_average's deprecation warning
        legacy = nn.L1Loss(size_average=False).reduction
    return {"reprs": [repr(m) for m in modules], "losses": losses, "legacy": legacy}


@program("regression-loss-arguments", REGRESSION_INPUTS)
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.tensor(inp["y"])
    F = lib.nn.functional
    return [
        attempt(lambda: F.smooth_l1_loss(x, y, beta=-1.0)),
        attempt(lambda: F.huber_loss(x, y, delta=0.0)),
        attempt(lambda: F.l1_loss(x, y, weight=lib.ones(5))),
        attempt(lambda: F.huber_loss(x, y, weight=lib.ones(5))),
        attempt(lambda: F.l1_loss(x, y, reduction="x")),
        attempt(lambda: F.smooth_l1_loss(x, y, reduction="x")),
        attempt(lambda: F.l1_loss(x, lib.ones(3))),
        attempt(lambda: F.smooth_l1_loss(x[0], y)),  # broadcast, with PyTorch's warning
    ]


@program("nll-loss-module", {"z": Inp((4, 3), F32), "t": Inp((4,), "int64")})
def _(lib, inp):
    z = lib.tensor(inp["z"], requires_grad=True)
    t = lib.tensor(inp["t"]).abs().clamp_max(2)
    log_p = lib.log_softmax(z, dim=1)
    modules = [
        lib.nn.NLLLoss(),
        lib.nn.NLLLoss(reduction="sum", weight=lib.tensor([1.0, 2.0, 0.5])),
        lib.nn.NLLLoss(ignore_index=1),
    ]
    losses = [m(log_p, t) for m in modules]
    sum(losses).backward()
    return {"reprs": [repr(m) for m in modules], "losses": losses, "z": z}


@program("saved-tensors-hooks-create-graph")
def _(lib, inp):
    """A create_graph pass computes with what the unpack hook returns, like a plain
    pass, and its graph still reaches the saved tensor's history: a pack hook that
    keeps twice the value doubles the first derivative and its own derivative.
    Inputs (mul, pow, mm), an output (exp) and a non-leaf input are saved."""
    G = lib.autograd.graph
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    out = {}
    for name, pack in [("same", lambda t: t), ("doubled", lambda t: t.detach() * 2)]:
        with G.saved_tensors_hooks(pack, lambda t: t):
            h = x * 3
            y = (x * x).sum() + x.pow(3).sum() + h.exp().sum() + (h[None] @ w).sum()
        first = lib.autograd.grad(y, [x, w], create_graph=True)
        second = lib.autograd.grad(first[0].sum() + first[1].sum(), [x, w], allow_unused=True)
        out[name] = [first, [f.grad_fn is not None for f in first], second]
    return out


@program("inference-mode")
def _(lib, inp):
    """inference_mode records nothing, as no_grad; inference_mode(False) turns grad
    mode on inside it; it decorates with and without parentheses; the switches
    are restored on exit, even after an error."""
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    out = {}
    with lib.inference_mode():
        y = w * 3
        out["inside"] = [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        with lib.inference_mode(False):
            z = w * 3
            out["inside False"] = [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        with lib.autograd.inference_mode(mode=True):
            out["nested"] = [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
    out["y"] = [y, y.requires_grad, y.grad_fn is None]
    out["z"] = [z, z.requires_grad, z.grad_fn.name() if z.grad_fn else None]

    @lib.inference_mode()
    def called(a):
        return a * 2, lib.is_inference_mode_enabled()

    @lib.inference_mode
    def bare(a):
        return a * 2, lib.is_inference_mode_enabled()

    out["decorated"] = [called(w), bare(w)]

    def fails():
        with lib.inference_mode():
            raise ValueError("inside")

    out["error"] = [attempt(fails), lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
    with lib.no_grad(), lib.inference_mode(False):
        out["False under no_grad"] = lib.is_grad_enabled()
    out["after"] = [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
    return out


@program("grad-inputs-skip-unneeded-hooks")
def _(lib, inp):
    """autograd.grad(y, inputs) and backward(inputs=...) run only the nodes that
    lead to the inputs: a tensor off those paths gets no retain_grad() gradient and
    its hooks do not run; an input asked about runs its own hooks. We ran the hooks
    and retain_grad of every node the pass reached: h.grad was set by grad(y, a)."""
    out = {}
    for how in ["grad a", "grad b", "grad h", "grad a and h", "backward inputs a", "backward"]:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor(3.0, requires_grad=True)
        h = b * 2
        h.retain_grad()
        seen: list = []
        h.register_hook(lambda g, seen=seen: seen.append(("h", g.tolist())))
        b.register_hook(lambda g, seen=seen: seen.append(("b", g.tolist())))
        a.register_hook(lambda g, seen=seen: seen.append(("a", g.tolist())))
        y = (h * a).sum()
        if how == "grad a":
            result = lib.autograd.grad(y, a)
        elif how == "grad b":
            result = lib.autograd.grad(y, b)
        elif how == "grad h":
            result = lib.autograd.grad(y, h)
        elif how == "grad a and h":
            result = lib.autograd.grad(y, [a, h])
        elif how == "backward inputs a":
            result = y.backward(inputs=[a])
        else:
            result = y.backward()
        out[how] = [result, seen, h.grad, a.grad, b.grad]
    return out


@program("mean-create-graph-gradient-is-a-new-tensor")
def _(lib, inp):
    """A mean's gradient under create_graph is PyTorch's expand-then-divide: a new
    tensor that can be changed in place (a sum's is an expanded view, refused).
    Ours divided first and expanded the one value, so add_ and friends raised."""
    out = {}
    for reduction in ["mean", "mean0", "mean1 keepdim", "sum"]:
        for op in ["add_", "mul_", "copy_", "setitem"]:
            x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
            if reduction == "mean":
                y = x.mean()
            elif reduction == "mean0":
                y = x.mean(0).sum()
            elif reduction == "mean1 keepdim":
                y = x.mean(1, keepdim=True).sum()
            else:
                y = x.sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)

            def change(g=g, op=op):
                if op == "add_":
                    g.add_(0.5)
                elif op == "mul_":
                    g.mul_(2.0)
                elif op == "copy_":
                    g.copy_(lib.ones(2, 3))
                else:
                    g[0] = 3.0
                return g

            out[f"{reduction} {op}"] = attempt(change)
    return out


@program("expand-that-repeats-nothing-is-writable")
def _(lib, inp):
    """expand to the same shape, or with size-1 dimensions added, repeats no element:
    the view can be changed in place (and changes its base), as in PyTorch; a real
    repeat is refused. A 0-d sum's create_graph gradient is such a view."""
    out = {}
    for name, shape in [("same", (3,)), ("leading 1", (1, 3)), ("two leading 1s", (1, 1, 3))]:
        a = lib.tensor([1.0, 2.0, 3.0])
        e = a.expand(*shape)

        def change(e=e, a=a):
            e.add_(1.0)
            return [e, a, a._version]

        out[name] = attempt(change)
    a = lib.tensor([[1.0, 2.0, 3.0]])
    out["repeated"] = attempt(lambda: a.expand(2, 3).add_(1.0))
    x = lib.tensor(2.0, requires_grad=True)
    (g,) = lib.autograd.grad(x.sum(), x, create_graph=True)
    out["0-d sum gradient"] = attempt(lambda: [g.zero_(), g.add_(3.0)])
    return out


@program("matrix-transposes-mT-mH-H")
def _(lib, inp):
    """x.mT, x.mH and x.H: the last two dimensions swapped (a TransposeBackward0
    view), a 0-d tensor returned as it is with a deprecation warning (given once per
    process, so the program asks for every time), a 1-d one refused; x.H only for
    2-d tensors."""
    previous = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = lib.tensor(2.0, requires_grad=True)
            scalar = [s.mT is s, s.mH is s, s.H is s, s.T is s, s.T.grad_fn is None]
    finally:
        lib.set_warn_always(previous)
    out: dict = {"0-d": [scalar, [str(w.message) for w in caught]]}
    m = lib.arange(6.0).reshape(2, 3).requires_grad_()
    batch = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
    for name in ("mT", "mH", "H"):
        t = getattr(m * 1, name)
        t.pow(2).sum().backward()
        out[name] = [t, t.grad_fn.name(), t._base is not None, m.grad]
        m.grad = None
        out[name + " batch"] = attempt(lambda name=name: getattr(batch, name).shape)
        for shape in [(3,), (2, 2, 2, 2)]:
            x = lib.ones(shape)
            out[f"{name} {len(shape)}-d"] = attempt(lambda x=x, name=name: getattr(x, name).shape)
    return out


@program("register-hook-where-hooks-live")
def _(lib, inp):
    """Where a tensor's hooks go: the first register_hook ties them to the grad_fn
    the tensor has then; later ones join them without reading grad_fn again (a
    no_grad view whose base changed since still takes one), and an in-place change
    of the tensor itself sends the next one to its new grad_fn. detach_() keeps the
    hooks for the leaf it becomes."""
    out: dict = {}

    def recorder(seen, name):
        return lambda g: seen.append([name, g.tolist()])

    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    with lib.no_grad():
        v = b[:2]
    seen: list = []
    v.register_hook(recorder(seen, "first"))
    b.mul_(2)
    out["no_grad view, base changed"] = [
        attempt(lambda: v.register_hook(recorder(seen, "second")) and "registered"),
        attempt(lambda: v.grad_fn),
        seen,
    ]
    for name, change in [("tensor", lambda t, w: t.mul_(3)), ("view", lambda t, w: w.mul_(3))]:
        x = a * 1
        w = x[:2]
        seen = []
        target = x if name == "tensor" else w
        target.register_hook(recorder(seen, "before"))
        change(x, w)
        target.register_hook(recorder(seen, "after"))
        (target * lib.arange(5.0, 5.0 + target.numel())).sum().backward()
        out[f"in-place on the {name}"] = [seen, a.grad]
        a.grad = None
    x = a * 1
    w = x[:1]
    seen = []
    w.register_hook(recorder(seen, "before"))
    x.mul_(2)  # w's grad_fn is made anew from x's new history
    w.register_hook(recorder(seen, "after"))
    (w * 5).sum().backward()
    out["view of a changed base"] = [seen, a.grad]
    a.grad = None
    d = a * 1
    seen = []
    d.register_hook(recorder(seen, "before"))
    d.detach_()
    d.requires_grad_()
    d.register_hook(recorder(seen, "after"))
    (d * 2).sum().backward()
    out["detach_"] = [seen, d.grad, a.grad]
    leaf = lib.tensor(0.0, requires_grad=True)
    with lib.no_grad():
        view = leaf[...]
        view.zero_()
        # The first hook fails on reading grad_fn (the view's base changed), but the
        # tensor's hook list exists by then: the second is taken.
        out["after a failed first hook"] = [
            attempt(lambda: view.register_hook(recorder([], "first")) and "registered"),
            attempt(lambda: view.register_hook(recorder([], "second")) and "registered"),
        ]
    return out


@program("second-backward-through-node-that-saved-nothing")
def _(lib, inp):
    """An operation whose only tracked input is a no_grad view of a tensor that
    requires grad is recorded with no edges. A second backward through it without
    retain_graph is refused only if it saved a tensor: mm, dot and mul save an
    operand only for the other's gradient (none needed: nothing saved), exp saves its
    result; with an input that needs a gradient, the other operand is saved."""
    programs = {
        "dot": lambda d, v, x: d @ v,
        "mm": lambda d, v, x: (d.reshape(1, 2) @ v.reshape(2, 1)).sum(),
        "mul": lambda d, v, x: (d * v).sum(),
        "number times view": lambda d, v, x: (v * 2).sum(),
        "exp": lambda d, v, x: v.exp().sum(),
        "sigmoid": lambda d, v, x: v.sigmoid().sum(),
        "with an input that needs a gradient": lambda d, v, x: (x * v).sum(),
    }
    out = {}
    for name, make in programs.items():
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        x = lib.tensor([3.0, 4.0], requires_grad=True)
        with lib.no_grad():
            v = leaf[:]
        y = make(leaf.detach(), v, x)
        first = attempt(lambda y=y: y.backward())
        second = attempt(lambda y=y: y.backward())
        out[name] = [y.grad_fn.name(), first, second, leaf.grad, x.grad]
    return out


@program("overwritten-tensor-second-order-graph")
def _(lib, inp):
    """What copy_, fill_ and zero_ overwrote gets a zero gradient that is a constant
    (PyTorch's zeros_like(grad)), not grad * 0 recorded: under create_graph the
    second-order graph does not lead back through the overwritten values, so the
    leaves behind them get no .grad from a second backward (we gave them zeros)."""

    def names(node, depth=0):
        if node is None or depth > 6:
            return None
        return [node.name(), [names(child, depth + 1) for child, _ in node.next_functions]]

    overwrites = {
        "copy_ number": lambda y, s: y.copy_(lib.tensor(0.5, dtype=lib.float64)),
        "copy_ tensor": lambda y, s: y.copy_(s),
        "fill_ number": lambda y, s: y.fill_(2.0),
        "fill_ tensor": lambda y, s: y.fill_(s),
        "zero_": lambda y, s: y.zero_(),
    }
    out = {}
    for name, overwrite in overwrites.items():
        a = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        s = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        y = b * a
        overwrite(y, s)
        (g,) = lib.autograd.grad((y @ y) + (y * b).sum(), b, create_graph=True)
        g.sum().backward()
        out[name] = [g, names(g.grad_fn), a.grad, b.grad, s.grad]
    return out


@program("zero-derivative-under-infinite-gradient")
def _(lib, inp):
    """floor, ceil, round, trunc, sign and zero_ have derivative 0, which PyTorch's
    formulas give as zeros_like(grad): 0 even when the gradient arriving is inf or
    nan (we computed grad * 0: nan), and a constant under create_graph."""
    functions = {
        "floor": lambda x: x.floor(),
        "ceil": lambda x: x.ceil(),
        "round": lambda x: x.round(),
        "round decimals": lambda x: x.round(decimals=1),
        "trunc": lambda x: x.trunc(),
        "sign": lambda x: x.sign(),
        "zero_": lambda x: (x * 1).zero_(),
    }
    out = {}
    for name, f in functions.items():
        x = lib.tensor([1.5, -2.5], requires_grad=True)
        (f(x) * float("inf")).sum().backward()
        nan_above = lib.tensor([1.5, -2.5], requires_grad=True)
        (f(nan_above) * float("nan")).sum().backward()
        (g,) = lib.autograd.grad((f(x) * x).sum(), x, create_graph=True)
        out[name] = [x.grad, nan_above.grad, g, g.grad_fn is None]
    return out


@program("cumsum-backward-running-sum-from-the-end")
def _(lib, inp):
    """cumsum's gradient is the running sum of the incoming gradient from the end,
    computed as PyTorch does (flip, cumsum, flip): exact for a small term beside a
    large one in float32, inf (not nan) when an inf arrives, and the same graph
    under create_graph; a dimension of size 1 passes the gradient on as it is."""

    def names(node, depth=0):
        if node is None or depth > 5:
            return None
        return [node.name(), [names(child, depth + 1) for child, _ in node.next_functions]]

    out = {}
    for name, incoming in [
        ("large beside small", [1e8, 1.0, 1.0]),
        ("inf arrives", [1.0, float("inf"), 2.0]),
        ("mixed signs", [3.0, -1.5, 0.25]),
    ]:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x.cumsum(0).backward(lib.tensor(incoming))
        out[name] = x.grad
    m = lib.arange(6.0).reshape(2, 3).requires_grad_()
    m.cumsum(1).backward(lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    out["along dim 1"] = m.grad
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = lib.autograd.grad(x.cumsum(0), x, v, create_graph=True)
    g.pow(2).sum().backward()
    out["create_graph"] = [g, names(g.grad_fn), v.grad]
    column = lib.ones(3, 1, requires_grad=True)
    (h,) = lib.autograd.grad(
        column.cumsum(1), column, lib.ones(3, 1, requires_grad=True), create_graph=True
    )
    out["size-1 dimension"] = [h, names(h.grad_fn)]
    return out


@program("cat-leaves-out-a-1d-empty-tensor")
def _(lib, inp):
    """torch.tensor([]) beside other tensors is left out of cat (the usual start of
    ``out = torch.cat([out, x])`` in a loop): its dtype still counts, it stays an input
    of the node, and its gradient is an empty constant."""
    out = lib.tensor([])
    for i in range(3):
        out = lib.cat([out, lib.full((1, 2), float(i))])
    x = lib.ones(2, 3, requires_grad=True)
    e = lib.zeros(0, requires_grad=True)
    joined = lib.cat([e, x, lib.tensor([])])
    joined.pow(2).sum().backward()
    (g,) = lib.autograd.grad(lib.cat([e, x]).pow(2).sum(), e, create_graph=True)
    return {
        "loop": out,
        "joined": [joined, len(joined.grad_fn.next_functions), e.grad, x.grad],
        "empty gradient": [g, g.grad_fn is None],
        "dtypes": [
            lib.cat([lib.tensor([]).double(), lib.ones(2, 3)]).dtype,
            lib.cat([lib.tensor([]), lib.ones(2, dtype=lib.int64)]).dtype,
            lib.cat([lib.tensor([]), lib.tensor([])]).shape,
        ],
    }


@program("tensor-repeat")
def _(lib, inp):
    """Tensor.repeat: tiles (new leading dimensions for extra entries), a copy with
    RepeatBackward0, whose gradient sums the copies (recorded as PyTorch's under
    create_graph: SumBackward1 over a view); a repeat of 0 gives zeros; PyTorch's
    refusals."""

    def names(node, depth=0):
        if node is None or depth > 6:
            return None
        return [node.name(), [names(child, depth + 1) for child, _ in node.next_functions]]

    x = lib.ones(2, 3)
    y = lib.arange(6.0).reshape(2, 3).requires_grad_()
    z = y.repeat(2, 1, 3)
    (g,) = lib.autograd.grad(z.pow(2).sum(), y, create_graph=True)
    g.sum().backward()
    w = lib.ones(2, 3, requires_grad=True)
    v = lib.tensor(2.0, requires_grad=True)
    r = v.repeat(3)
    r.backward(lib.tensor([1.0, 2.0, 3.0]))
    return {
        "values": [lib.tensor([1.0, 2.0]).repeat(2, 2), x.repeat((2, 2)).shape],
        "sizes": [x.repeat(lib.Size([1, 2, 1])).shape, lib.tensor(3.0).repeat(2).shape],
        "graph": [z, z._base is None, g, names(g.grad_fn), y.grad],
        "zero copies": lib.autograd.grad(w.repeat(0, 1).sum(), w),
        "0-d": [r, v.grad],
        "refused": [
            attempt(lambda: x.repeat(2)),
            attempt(lambda: x.repeat(-1, 2)),
            attempt(lambda: x.repeat(2, 2, -1)),
            attempt(lambda: x.repeat()),
        ],
    }


# ----------------------------------------------------------------------------- linear algebra


def _well_conditioned(lib, values, dtype=None):
    """A square matrix (or batch) from random values, made safely invertible by
    adding n times the identity."""
    a = lib.tensor(values) if dtype is None else lib.tensor(values, dtype=dtype)
    return (a + a.shape[-1] * lib.eye(a.shape[-1], dtype=a.dtype)).detach()


@program(
    "linalg-inv-det-slogdet-logdet",
    {"a": Inp((3, 3), F32), "batch": Inp((2, 3, 3), F32), "a64": Inp((3, 3), F64)},
)
def _(lib, inp):
    """torch.inverse/linalg.inv, det/linalg.det, slogdet/linalg.slogdet and logdet:
    values, return types, nodes, first derivatives (batched too), the second ones
    (create_graph), gradcheck/gradgradcheck in float64 (forward mode too), the Tensor
    methods, a negative determinant (logdet's nan), singular matrices (det 0,
    slogdet's -inf; the cofactors of a rank-one 3×3 matrix are 0)."""
    a = _well_conditioned(lib, inp["a"]).requires_grad_()
    batch = _well_conditioned(lib, inp["batch"]).requires_grad_()
    out: dict[str, object] = {}
    for name, f in [
        ("inverse", lib.inverse),
        ("linalg.inv", lib.linalg.inv),
        ("det", lib.det),
        ("linalg.det", lib.linalg.det),
        ("logdet", lib.logdet),
        ("slogdet.logabsdet", lambda m: lib.slogdet(m).logabsdet),
        ("linalg.slogdet.logabsdet", lambda m: lib.linalg.slogdet(m)[1]),
    ]:
        y = f(a)
        (grad,) = lib.autograd.grad(y.sum(), a, create_graph=True)
        (second,) = lib.autograd.grad((grad * grad).sum(), a)
        yb = f(batch)
        (grad_batch,) = lib.autograd.grad(yb.sum(), batch)
        out[name] = [y, grad.detach(), second, yb, grad_batch]
    out["methods"] = [a.inverse(), a.det(), a.logdet(), a.slogdet()]
    out["return types"] = [lib.slogdet(a.detach()), lib.linalg.slogdet(batch.detach())]
    s = lib.linalg.slogdet(a)
    out["slogdet parts"] = [s.sign, s.logabsdet, type(s).__name__]
    s.sign.sum().backward()
    out["sign alone: no gradient"] = a.grad
    flipped = lib.tensor([[0.0, 1.0], [1.0, 0.0]], requires_grad=True)
    out["negative det"] = [lib.det(flipped), lib.logdet(flipped), lib.slogdet(flipped)]
    # (det's gradient at a singular matrix of rank n - 1 is its cofactors, not 0 as
    # PyTorch's first-order backward says: tests/test_square_matrices.py.)
    singular = lib.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    out["singular"] = [lib.det(singular), lib.logdet(singular), lib.slogdet(singular)]
    # log|det|'s gradient there: the cofactors over a signed zero, ±inf as in PyTorch.
    out["singular log|det| gradient"] = [
        lib.autograd.grad(lib.linalg.slogdet(singular).logabsdet, singular),
        lib.autograd.grad(lib.logdet(singular), singular),
    ]
    rank_one = lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]], requires_grad=True)
    lib.det(rank_one).backward()
    out["singular 3x3 cofactors"] = rank_one.grad
    out["empty"] = [lib.det(lib.ones(0, 0)), lib.linalg.inv(lib.ones(0, 0))]
    a64 = _well_conditioned(lib, inp["a64"]).requires_grad_()
    out["gradcheck"] = [
        lib.autograd.gradcheck(f, (a64,), check_forward_ad=True)
        for f in (lib.linalg.inv, lib.det, lib.logdet, lambda m: lib.linalg.slogdet(m).logabsdet)
    ]
    out["gradgradcheck"] = [
        lib.autograd.gradgradcheck(f, (a64,)) for f in (lib.linalg.inv, lib.det, lib.logdet)
    ]
    out["float64"] = [lib.linalg.inv(a64), lib.det(a64)]
    return out


@program("linalg-inv-det-refusals", {"a": Inp((2, 2), F32)})
def _(lib, inp):
    """Singular matrices refused with PyTorch's _LinAlgError (naming the zero pivot
    and the batch element), non-square and integer matrices, too few dimensions."""
    ok = _well_conditioned(lib, inp["a"])
    singular = lib.tensor([[1.0, 2.0], [2.0, 4.0]])
    attempts = [
        lambda: lib.linalg.inv(singular),
        lambda: lib.inverse(lib.zeros(3, 3)),
        lambda: lib.linalg.inv(lib.stack([ok, singular])),
        lambda: lib.linalg.inv(lib.ones(2, 3)),
        lambda: lib.linalg.inv(lib.ones(3)),
        lambda: lib.linalg.inv(lib.ones(2, 2, dtype=lib.long)),
        lambda: lib.det(lib.ones(2, 3)),
        lambda: lib.det(lib.ones(3)),
        lambda: lib.det(lib.ones(2, 2, dtype=lib.long)),
        lambda: lib.logdet(lib.ones(2, 3)),
        lambda: lib.logdet(lib.ones(2, 2, dtype=lib.long)),
        lambda: lib.slogdet(lib.ones(2, 3)),
        lambda: lib.linalg.slogdet(lib.ones(3)),
    ]
    results = [attempt(f) for f in attempts]
    try:
        lib.linalg.inv(singular)
    except RuntimeError as error:  # a RuntimeError, as learners catch it
        results.append([isinstance(error, lib.linalg.LinAlgError), type(error).__name__])
    return results


@program(
    "linalg-solve",
    {
        "a": Inp((3, 3), F32),
        "b": Inp((3,), F32),
        "bm": Inp((3, 2), F32),
        "batch": Inp((2, 3, 3), F32),
        "a64": Inp((3, 3), F64),
        "b64": Inp((3, 2), F64),
    },
)
def _(lib, inp):
    """linalg.solve: a vector, a matrix, batches broadcast against one matrix, a
    batch of vectors; values, node, gradients of A and B (summed over a broadcast
    batch), second derivatives, gradcheck in float64 (forward mode too) and the
    refusals (singular, shapes, dtypes)."""
    a = _well_conditioned(lib, inp["a"]).requires_grad_()
    batch = _well_conditioned(lib, inp["batch"]).requires_grad_()
    b = lib.tensor(inp["b"], requires_grad=True)
    bm = lib.tensor(inp["bm"], requires_grad=True)
    out: dict[str, object] = {}
    for name, (left, right) in {
        "vector": (a, b),
        "matrix": (a, bm),
        "batch of A, one b": (batch, b),
        "batch of A, one B": (batch, bm),
        "batch of vectors": (batch, b.expand(2, 3)),
        "one A, batch of B": (a, bm.expand(4, 3, 2)),
    }.items():
        x = lib.linalg.solve(left, right)
        grads = lib.autograd.grad((x * x).sum(), (a, batch, b, bm), allow_unused=True)
        out[name] = [x, *grads]
    x = lib.linalg.solve(a, b)
    ga, gb = lib.autograd.grad(x.pow(3).sum(), (a, b), create_graph=True)
    out["second"] = [
        ga.detach(),
        gb.detach(),
        *lib.autograd.grad((ga * ga).sum() + gb.sum(), (a, b)),
    ]
    a64 = _well_conditioned(lib, inp["a64"]).requires_grad_()
    b64 = lib.tensor(inp["b64"], requires_grad=True)
    out["gradcheck"] = [
        lib.autograd.gradcheck(lib.linalg.solve, (a64, b64), check_forward_ad=True),
        lib.autograd.gradcheck(lib.linalg.solve, (a64, b64[:, 0]), check_forward_ad=True),
        lib.autograd.gradgradcheck(lib.linalg.solve, (a64, b64)),
    ]
    eye3 = lib.eye(2).expand(3, 2, 2)
    singular = lib.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
    out["refused"] = [
        attempt(lambda: lib.linalg.solve(lib.tensor([[1.0, 2.0], [2.0, 4.0]]), lib.ones(2))),
        attempt(lambda: lib.linalg.solve(singular, lib.ones(2, 2))),
        attempt(lambda: lib.linalg.solve(lib.ones(2, 3), lib.ones(2))),
        attempt(lambda: lib.linalg.solve(lib.eye(2), lib.ones(3))),
        attempt(lambda: lib.linalg.solve(eye3, lib.ones(3, 3))),
        attempt(lambda: lib.linalg.solve(eye3, lib.ones(4, 2, 1))),
        attempt(lambda: lib.linalg.solve(eye3, lib.ones(3, 3, 1))),
        attempt(lambda: lib.linalg.solve(lib.eye(2), lib.ones(2, dtype=lib.float64))),
        attempt(lambda: lib.linalg.solve(lib.eye(2), lib.ones(2, dtype=lib.long))),
        attempt(lambda: lib.linalg.solve(lib.eye(2, dtype=lib.long), lib.ones(2, dtype=lib.long))),
        attempt(lambda: lib.linalg.solve(lib.ones(2), lib.ones(2))),
        attempt(lambda: lib.linalg.solve(lib.eye(2), lib.tensor(1.0))),
    ]
    return out


@program("matrix-power", {"a": Inp((2, 2), F32), "batch": Inp((3, 2, 2), F32)})
def _(lib, inp):
    """torch.matrix_power/linalg.matrix_power/Tensor.matrix_power for n from -4 to 7:
    values, PyTorch's graphs (A·A, (A·A)·A, then repeated squaring; a clone for 1,
    the inverse for -1, the identity copied into a clone for 0), gradients, batches,
    integer matrices and the refusals."""
    a = _well_conditioned(lib, inp["a"]).mul(0.5).requires_grad_()
    batch = _well_conditioned(lib, inp["batch"]).mul(0.5).requires_grad_()
    out: dict[str, object] = {}
    for n in range(-4, 8):
        p = lib.matrix_power(a, n)
        (grad,) = lib.autograd.grad(p.sum(), a)
        pb = lib.linalg.matrix_power(batch, n)
        (grad_batch,) = lib.autograd.grad(pb.sum(), batch)
        out[str(n)] = [p, grad, pb, grad_batch]
    out["method"] = a.matrix_power(3)
    out["keyword"] = lib.linalg.matrix_power(a, n=2)
    integers = lib.tensor([[1, 1], [1, 0]])
    out["integers"] = [lib.matrix_power(integers, k) for k in (0, 1, 5)]
    out["refused"] = [
        attempt(lambda: lib.matrix_power(lib.ones(2, 3), 2)),
        attempt(lambda: lib.matrix_power(lib.ones(3), 2)),
        attempt(lambda: lib.matrix_power(lib.tensor([[1.0, 2.0], [2.0, 4.0]]), -1)),
        attempt(lambda: lib.matrix_power(integers, -1)),
        attempt(lambda: lib.matrix_power(a, 2.0)),
    ]
    return out


@program(
    "vdot-and-cross",
    {
        "u": Inp((3,), F32),
        "v": Inp((3,), F32),
        "a": Inp((2, 3), F32),
        "b": Inp((1, 3), F32),
        "a64": Inp((2, 3), F64),
        "b64": Inp((2, 3), F64),
    },
)
def _(lib, inp):
    """vdot (VdotBackward0) and cross / linalg.cross (LinalgCrossBackward0, batches
    broadcast through ExpandBackward0, torch.cross without dim taking the first
    dimension of size 3 with PyTorch's warning): values, gradients, second
    derivatives, gradcheck (forward mode too), Tensor methods and refusals."""
    u, v = lib.tensor(inp["u"], requires_grad=True), lib.tensor(inp["v"], requires_grad=True)
    a, b = lib.tensor(inp["a"], requires_grad=True), lib.tensor(inp["b"], requires_grad=True)
    out: dict[str, object] = {}
    d = lib.vdot(u, v)
    out["vdot"] = [d, *lib.autograd.grad(d, (u, v)), u.vdot(v)]
    c = lib.linalg.cross(u, v)
    gu, gv = lib.autograd.grad((c * c).sum(), (u, v), create_graph=True)
    out["cross"] = [c, gu.detach(), gv.detach(), *lib.autograd.grad((gu * gv).sum(), (u, v))]
    broadcast = lib.linalg.cross(a, b)
    out["broadcast"] = [broadcast, *lib.autograd.grad(broadcast.sum(), (a, b))]
    out["dim 0"] = lib.linalg.cross(a.t(), a.t().flip(0), dim=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = lib.cross(lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), lib.ones(3, 2))
    out["torch.cross without dim"] = [first, len(caught) <= 1]
    out["method"] = u.cross(v, dim=0)
    a64, b64 = (
        lib.tensor(inp["a64"], requires_grad=True),
        lib.tensor(inp["b64"], requires_grad=True),
    )
    out["gradcheck"] = [
        lib.autograd.gradcheck(lib.linalg.cross, (a64, b64), check_forward_ad=True),
        lib.autograd.gradcheck(lib.vdot, (a64[0], b64[1]), check_forward_ad=True),
        lib.autograd.gradgradcheck(lib.linalg.cross, (a64, b64)),
    ]
    out["refused"] = [
        attempt(lambda: lib.vdot(u, lib.ones(2))),
        attempt(lambda: lib.vdot(a, a)),
        attempt(lambda: lib.vdot(u, v.double())),
        attempt(lambda: lib.linalg.cross(lib.ones(2, 2), lib.ones(2, 2))),
        attempt(lambda: lib.linalg.cross(lib.ones(2, 3), lib.ones(4, 3))),
        attempt(lambda: lib.linalg.cross(u, v.double())),
        attempt(lambda: lib.cross(lib.ones(2), lib.ones(2), dim=0)),
    ]
    return out


@program(
    "addmv-addr-baddbmm-addbmm",
    {
        "b": Inp((2,), F32),
        "m": Inp((2, 3), F32),
        "v": Inp((3,), F32),
        "c": Inp((2, 5), F32),
        "b1": Inp((4, 2, 3), F32),
        "b2": Inp((4, 3, 5), F32),
        "m64": Inp((2, 3), F64),
        "v64": Inp((3,), F64),
    },
)
def _(lib, inp):
    """addmv, addr, baddbmm and addbmm: β·input + α·product in one node, values
    (β = 0 ignores a nan in input), gradients for every operand with β and α,
    input broadcast, second derivatives, gradcheck (forward mode too), methods,
    refusals in PyTorch's order."""
    t = H.leaves(lib, {k: val for k, val in inp.items() if not k.endswith("64")}, grad=list(inp))
    b, m, v, c, b1, b2 = (t[k] for k in ("b", "m", "v", "c", "b1", "b2"))
    out: dict[str, object] = {}
    for name, f, operands in [
        ("addmv", lambda x, y, z, **k: lib.addmv(x, y, z, **k), (b, m, v)),
        ("addr", lambda x, y, z, **k: lib.addr(x, y, z, **k), (m, b, v)),
        ("baddbmm", lambda x, y, z, **k: lib.baddbmm(x, y, z, **k), (c, b1, b2)),
        ("addbmm", lambda x, y, z, **k: lib.addbmm(x, y, z, **k), (c, b1, b2)),
    ]:
        plain = f(*operands)
        scaled = f(*operands, beta=0.5, alpha=-2)
        grads = lib.autograd.grad((scaled * scaled).sum(), operands, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), operands)
        out[name] = [plain, scaled, [g.detach() for g in grads], second]
    out["beta 0 ignores nan"] = [
        lib.addmv(lib.full((2,), float("nan")), m, v, beta=0),
        lib.addr(lib.full((2, 3), float("nan")), b, v, beta=0, alpha=2),
    ]
    out["broadcast input"] = [
        lib.addmv(lib.tensor([1.0]), m, v),
        lib.addr(lib.tensor(2.0), b, v),
        lib.baddbmm(lib.ones(5), b1, b2),
        lib.addbmm(lib.ones(2, 1), b1, b2),
    ]
    out["methods"] = [
        b.addmv(m, v, alpha=2),
        m.addr(b, v),
        c.baddbmm(b1, b2, beta=2),
        c.addbmm(b1, b2),
    ]
    m64, v64 = (
        lib.tensor(inp["m64"], requires_grad=True),
        lib.tensor(inp["v64"], requires_grad=True),
    )
    bias64 = lib.ones(2, dtype=lib.float64, requires_grad=True)
    out["gradcheck"] = [
        lib.autograd.gradcheck(
            lambda x, y, z: lib.addmv(x, y, z, beta=0.5, alpha=3),
            (bias64, m64, v64),
            check_forward_ad=True,
        ),
        lib.autograd.gradcheck(
            lambda x, y, z: lib.addr(x, y, z, beta=2), (m64, bias64, v64), check_forward_ad=True
        ),
        lib.autograd.gradcheck(
            lambda x, y, z: lib.baddbmm(x, y, z, alpha=2),
            (m64, m64.unsqueeze(0).expand(2, 2, 3), m64.t().unsqueeze(0).expand(2, 3, 3)[:, :, :3]),
            check_forward_ad=True,
        ),
        lib.autograd.gradcheck(
            lambda x, y, z: lib.addbmm(x, y, z, beta=0.5),
            (m64[:, :2], m64.unsqueeze(0).expand(2, 2, 3), m64.t().unsqueeze(0).expand(2, 3, 2)),
            check_forward_ad=True,
        ),
    ]
    ones = lib.ones
    out["refused"] = [
        attempt(lambda: lib.addmv(ones(2), ones(2, 3), ones(4))),
        attempt(lambda: lib.addmv(ones(3), ones(2, 3), ones(3))),
        attempt(lambda: lib.addmv(ones(2), ones(2, 3), ones(3, 1))),
        attempt(lambda: lib.addmv(ones(2), ones(2, 3, dtype=lib.float64), ones(3))),
        attempt(lambda: lib.addr(ones(2, 3), ones(2), ones(4))),
        attempt(lambda: lib.addr(ones(2, 3), ones(2, 1), ones(3))),
        attempt(lambda: lib.baddbmm(ones(2, 5), ones(4, 2, 3), ones(4, 4, 5))),
        attempt(lambda: lib.baddbmm(ones(2, 5), ones(4, 2, 3), ones(3, 3, 5))),
        attempt(lambda: lib.baddbmm(ones(3, 5), ones(4, 2, 3), ones(4, 3, 5))),
        attempt(lambda: lib.baddbmm(ones(2, 5), ones(2, 3), ones(4, 3, 5))),
        attempt(lambda: lib.addbmm(ones(2, 5), ones(4, 2, 3), ones(4, 4, 5))),
        attempt(lambda: lib.addbmm(ones(3, 5), ones(4, 2, 3), ones(4, 3, 5))),
        attempt(lambda: lib.addbmm(ones(2, 5), ones(4, 2, 3), ones(3, 3, 5))),
        attempt(lambda: lib.addbmm(ones(2, 5), ones(2, 3), ones(4, 3, 5))),
    ]
    return out


@program(
    "multi-dot-and-chain-matmul",
    {
        "a": Inp((2, 3), F32),
        "b": Inp((3, 4), F32),
        "c": Inp((4, 5), F32),
        "d": Inp((5, 1), F32),
        "x": Inp((2,), F32),
        "y": Inp((5,), F32),
    },
)
def _(lib, inp):
    """linalg.multi_dot multiplies in the cheapest order, as PyTorch chooses it (two,
    three and four matrices, vectors first and last), recorded as mm nodes under a
    view; chain_matmul is it with PyTorch's deprecation warning (one matrix: a
    clone); gradients and refusals."""
    t = H.leaves(lib, inp, grad=list(inp))
    a, b, c, d, x, y = (t[k] for k in "abcdxy")
    out: dict[str, object] = {}
    for name, chain in {
        "two": [a, b],
        "three": [a, b, c],
        "three, other order": [b.t(), a.t(), a],
        "four": [a, b, c, d],
        "row vector first": [x, a, b],
        "column vector last": [a, b, c, y],
        "two vectors": [y, y],
        "vector, matrix": [x, a],
    }.items():
        product = lib.linalg.multi_dot(chain)
        out[name] = [product, *lib.autograd.grad(product.sum(), chain)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chained = lib.chain_matmul(a, b, c)
        lone = lib.chain_matmul(a)
    out["chain_matmul"] = [chained, lone, len(caught) <= 2]
    out["refused"] = [
        attempt(lambda: lib.linalg.multi_dot([a])),
        attempt(lambda: lib.linalg.multi_dot([a, lib.ones(3, 3, 1)])),
        attempt(lambda: lib.linalg.multi_dot([a, lib.ones(4, 2)])),
        attempt(lambda: lib.linalg.multi_dot([a, lib.ones(3, dtype=lib.float64)])),
        attempt(lambda: lib.linalg.multi_dot([lib.ones(2, 2, 2), a])),
        attempt(lambda: lib.linalg.multi_dot([a, lib.ones(3, 3, 3), b])),
        attempt(lambda: lib.chain_matmul(x)),
    ]
    return out


@program("linalg-norms", {"m": Inp((3, 4), F32), "batch": Inp((2, 3, 4), F32), "v": Inp((4,), F32)})
def _(lib, inp):
    """linalg.vector_norm, linalg.matrix_norm ('fro', ±1, ±inf: a vector norm then
    amax/amin, as PyTorch) and linalg.norm choosing between them; values, nodes,
    gradients, keepdim, dims, and the refusals."""
    m = lib.tensor(inp["m"], requires_grad=True)
    batch = lib.tensor(inp["batch"], requires_grad=True)
    v = lib.tensor(inp["v"], requires_grad=True)
    out: dict[str, object] = {}
    results = {
        "vector_norm": lib.linalg.vector_norm(m),
        "vector_norm ord 1 dim 1": lib.linalg.vector_norm(m, ord=1, dim=1),
        "vector_norm inf keepdim": lib.linalg.vector_norm(batch, float("inf"), (0, 2), True),
        "matrix_norm": lib.linalg.matrix_norm(m),
        "matrix_norm batch": lib.linalg.matrix_norm(batch),
    }
    for order in (1, -1, float("inf"), float("-inf")):
        results[f"matrix_norm {order}"] = lib.linalg.matrix_norm(m, ord=order)
        results[f"matrix_norm {order} batch keepdim"] = lib.linalg.matrix_norm(
            batch, ord=order, keepdim=True
        )
        results[f"matrix_norm {order} dims (0, 2)"] = lib.linalg.matrix_norm(
            batch, ord=order, dim=(0, 2)
        )
    results["norm"] = lib.linalg.norm(m)
    results["norm vector ord 3"] = lib.linalg.norm(v, ord=3)
    results["norm matrix ord 1"] = lib.linalg.norm(m, ord=1)
    results["norm matrix fro"] = lib.linalg.norm(m, "fro")
    results["norm batch"] = lib.linalg.norm(batch)
    results["norm dim 1"] = lib.linalg.norm(batch, dim=1)
    results["norm dim (1, 2) ord -inf"] = lib.linalg.norm(batch, float("-inf"), (1, 2))
    for name, r in results.items():
        out[name] = [r, *lib.autograd.grad(r.sum(), (m, batch, v), allow_unused=True)]
    out["refused"] = [
        attempt(lambda: lib.linalg.matrix_norm(v)),
        attempt(lambda: lib.linalg.matrix_norm(m, ord=3)),
        attempt(lambda: lib.linalg.matrix_norm(m, ord="abc")),
        attempt(lambda: lib.linalg.matrix_norm(m, dim=(0, 0))),
        attempt(lambda: lib.linalg.norm(batch, ord=1)),
        attempt(lambda: lib.linalg.vector_norm(lib.ones(3, dtype=lib.long))),
        attempt(lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.long))),
    ]
    return out


@program(
    "tensordot-and-inner",
    {
        "x": Inp((2, 3, 4), F32),
        "y": Inp((3, 4, 5), F32),
        "m": Inp((2, 3), F32),
        "n": Inp((3, 2), F32),
        "v": Inp((3,), F32),
        "x64": Inp((2, 3), F64),
        "y64": Inp((3, 4), F64),
    },
)
def _(lib, inp):
    """tensordot with dims as an int and as two lists (negative, out of order, a
    size-1 dimension paired with any size, a non-contiguous operand), fully
    contracted (a dot product, or a product summed when an operand is not laid out
    in order), and inner; PyTorch's graphs (permute, view or copy, mm, view),
    values, gradients, gradcheck (forward mode too) and the refusals."""
    t = H.leaves(lib, {k: val for k, val in inp.items() if not k.endswith("64")}, grad=list(inp))
    x, y, m, n, v = (t[k] for k in "xymnv")
    out: dict[str, object] = {}
    for name, (a, b, dims) in {
        "dims 2": (x, y, 2),
        "dims 1": (m, n, 1),
        "dims 0": (v, v, 0),
        "lists": (x, y, ([1, 2], [0, 1])),
        "lists out of order": (x, y, ([2, 1], [1, 0])),
        "a copy": (x, y, ([1], [0])),
        "negative": (m, n, ([-1], [0])),
        "matrix, vector": (m, v, 1),
        "full, in order": (m, m, 2),
        "full, permuted": (m, n, ([0, 1], [1, 0])),
        "full, vectors": (v, v, 1),
        "full, sliced": (x[:, :, :2], x[:, :, 2:], 3),
        "size 1 pairs with 3": (m[:, :1], n, ([1], [0])),
        "tuple dims": (m, n, ((1, 0), (0, 1))),
    }.items():
        r = lib.tensordot(a, b, dims=dims)
        out[name] = [r, *lib.autograd.grad(r.sum(), (x, y, m, n, v), allow_unused=True)]
    for name, (a, b) in {
        "vectors": (v, v),
        "matrix, vector": (m, v),
        "vector, matrix": (v, n.t()),
        "matrices": (m, n.t()),
        "3-d, matrix": (x, y[:, :, 0]),
        "0-d": (m, lib.tensor(2.0)),
    }.items():
        r = lib.inner(a, b)
        out["inner " + name] = [r, *lib.autograd.grad(r.sum(), (x, y, m, n, v), allow_unused=True)]
    out["method"] = m.inner(n.t())
    x64, y64 = (
        lib.tensor(inp["x64"], requires_grad=True),
        lib.tensor(inp["y64"], requires_grad=True),
    )
    out["gradcheck"] = [
        lib.autograd.gradcheck(
            lambda a, b: lib.tensordot(a, b, 1), (x64, y64), check_forward_ad=True
        ),
        lib.autograd.gradcheck(lib.inner, (x64, y64.t()), check_forward_ad=True),
    ]
    out["refused"] = [
        attempt(lambda: lib.tensordot(m, lib.ones(4, 2), dims=1)),
        attempt(lambda: lib.tensordot(m, n, dims=3)),
        attempt(lambda: lib.tensordot(m, n, dims=-1)),
        attempt(lambda: lib.tensordot(m, n, dims=([1], [0, 1]))),
        attempt(lambda: lib.tensordot(m, n.double(), dims=1)),
        attempt(lambda: lib.tensordot(m, n, dims=[1, 0])),
        attempt(lambda: lib.inner(m, lib.ones(2))),
    ]
    return out


@program("bitwise-operators-and-functions")
def _(lib, inp):
    """& | ^ ~ and torch.bitwise_*: logical on bool masks, bit by bit on integers,
    after PyTorch's promotion (a bool mask with a Python int is int64), floats
    refused; the reflected forms (5 & t) and the in-place ones (&=, bitwise_xor_),
    which a bool tensor refuses when the result is int64."""
    b = lib.tensor([True, False])
    i = lib.tensor([3, -2])
    f = lib.tensor([1.5, 2.0])
    x = lib.tensor([-1.0, 0.5, 2.0])
    out: dict = {
        "masks": [(x > 0) & (x < 1), (x > 0) | (x < -0.5), (x > 0) ^ (x > 1), ~(x > 0)],
        "promoted": [b | 2, b & 2, i & True, i | b, 5 & i, True ^ b, lib.tensor(True) & i],
        "functions": [
            lib.bitwise_and(b, 3),
            lib.bitwise_xor(i, i),
            lib.bitwise_not(i),
            b.bitwise_or(b),
            i.bitwise_not(),
        ],
        "refused": [
            attempt(lambda: f & f),
            attempt(lambda: i & 2.0),
            attempt(lambda: f | 1),
            attempt(lambda: lib.bitwise_not(f)),
            attempt(lambda: b & lib.ones(3, dtype=lib.bool)),
        ],
    }
    into_bool = b.clone()
    into_int = i.clone()
    into_int &= b
    flipped = i.clone()
    flipped.bitwise_xor_(1)
    base = i.clone()
    view = base[:1]
    view ^= 7
    out["in place"] = [
        attempt(lambda: into_bool.__iand__(i)),
        [into_int, into_int._version],
        [flipped, flipped._version],
        [base, base._version],
    ]
    return out


@program(
    "trapezoid-and-trapz", {"y": Inp((3, 5), F32), "x": Inp((5,), F32), "x2": Inp((3, 5), F32)}
)
def _(lib, inp):
    """trapezoid/trapz with unit spacing, a constant dx, sample points x (1-d, of
    y's shape, along another dim), an empty interval; PyTorch's graphs (MulBackward1
    and DivBackward1: its C++ multiplies by numbers), gradients for y and x, second
    derivatives and the refusals."""
    y = lib.tensor(inp["y"], requires_grad=True)
    x = lib.tensor(inp["x"]).cumsum(0).detach().requires_grad_()
    x2 = lib.tensor(inp["x2"], requires_grad=True)
    out: dict[str, object] = {}
    for name, r in {
        "unit": lib.trapezoid(y),
        "dx": lib.trapezoid(y, dx=0.25),
        "dim 0": lib.trapezoid(y, dx=2, dim=0),
        "x": lib.trapezoid(y, x),
        "x like y": lib.trapezoid(y, x2),
        "x along dim 0": lib.trapezoid(y, x[:3], dim=0),
        "trapz": lib.trapz(y, x),
        "trapz dx": lib.trapz(y, dx=3.0),
    }.items():
        out[name] = [r, *lib.autograd.grad(r.sum(), (y, x, x2), allow_unused=True)]
    r = lib.trapezoid(y * y, x)
    gy, gx = lib.autograd.grad(r.sum(), (y, x), create_graph=True)
    out["second"] = [gy.detach(), gx.detach(), *lib.autograd.grad((gy * gx).sum(), (y, x))]
    out["empty"] = lib.trapezoid(lib.ones(2, 0))
    out["refused"] = [
        attempt(lambda: lib.trapezoid(y, lib.ones(2))),
        attempt(lambda: lib.trapezoid(y, dim=2)),
        attempt(lambda: lib.trapezoid(y, x, dx=1.0)),
    ]
    return out


@program("remainder-sign-of-zero-and-bool-powers")
def _(lib, inp):
    """x % y for floats as PyTorch's kernel computes it (fmod, then y added where the
    signs differ): a zero remainder keeps x's sign and prints as -0.; True ** a bool
    tensor is refused as PyTorch refuses it."""
    values = [-3.5, -2.0, -0.0, 0.0, 1.0, 2.5, float("inf"), float("-inf")]
    x = lib.tensor(values).reshape(-1, 1)
    y = lib.tensor(values).reshape(1, -1)
    b = lib.tensor([True, False])
    return {
        "table": [x % y, 1 / (x % y)],  # (1 / ±0 is ±inf: the sign of each zero)
        "numbers": [
            lib.tensor([-2.0, 3.0]) % 1,
            2 % lib.tensor([1.5, -2.0]),
            -3 % lib.tensor([1.5, -2.0]),
        ],
        "repr": repr(lib.tensor([-2.0, 2.0]) % 1.0),
        "bool powers": [
            attempt(lambda: True**b),
            attempt(lambda: lib.pow(True, b)),
            2**b,
            2.0**b,
            b**True,
        ],
    }


@program(
    "pinv-and-pinverse",
    {
        "tall": Inp((4, 2), F32),
        "wide": Inp((2, 3), F32),
        "batch": Inp((2, 3, 2), F32),
        "a64": Inp((3, 2), F64),
    },
)
def _(lib, inp):
    """linalg.pinv and pinverse (LinalgPinvBackward0): tall, wide, square and batched
    matrices, the cut-offs (default, rcond, atol, rtol), a zero matrix; gradients,
    second derivatives, gradcheck (forward mode too), gradgradcheck, the method,
    and the refusals."""
    t = H.leaves(lib, {k: val for k, val in inp.items() if not k.endswith("64")}, grad=list(inp))
    out: dict[str, object] = {}
    for name, a in t.items():
        p = lib.linalg.pinv(a)
        (g,) = lib.autograd.grad((p * p).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a)
        out[name] = [p, g.detach(), h, lib.pinverse(a), a.pinverse()]
    small = lib.tensor([[1.0, 0.0], [0.0, 1e-3]])
    out["cut-offs"] = [
        lib.linalg.pinv(lib.tensor([[1.0, 0.0], [0.0, 1e-8]])),
        lib.pinverse(lib.tensor([[1.0, 0.0], [0.0, 1e-8]]), rcond=1e-10),
        lib.linalg.pinv(small, atol=1e-2),
        lib.linalg.pinv(small, rtol=1e-2, atol=0.0),
        lib.linalg.pinv(lib.zeros(2, 2)),
        lib.linalg.pinv(lib.ones(0, 3)),
    ]
    a64 = lib.tensor(inp["a64"], requires_grad=True)
    out["gradcheck"] = [
        lib.autograd.gradcheck(lib.linalg.pinv, (a64,), check_forward_ad=True),
        lib.autograd.gradcheck(lib.pinverse, (a64.t(),), check_forward_ad=True),
        lib.autograd.gradgradcheck(lib.linalg.pinv, (a64,)),
    ]
    out["refused"] = [
        attempt(lambda: lib.pinverse(lib.ones(3))),
        attempt(lambda: lib.pinverse(lib.ones(2, 2, dtype=lib.long))),
        attempt(lambda: lib.linalg.pinv(lib.ones(3))),
    ]
    return out


@program("module-attribute-and-optimizer-argument-refusals")
def _(lib, inp):
    """A registered parameter takes only a Parameter or None, a child module only a
    Module or None (a plain tensor assigned to weight was taken, and left the
    Linear without its weight); Adam/AdamW and RMSprop check all their numbers."""
    nn = lib.nn

    class Net(nn.Module):  # type: ignore[name-defined]  # nn is a variable
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    net = Net()
    linear = nn.Linear(3, 2)
    out = {
        "parameter": attempt(lambda: setattr(linear, "weight", lib.ones(2, 3))),
        "still registered": list(dict(linear.named_parameters())),
        "child": attempt(lambda: setattr(net, "fc", 3)),
    }
    linear.bias = None
    net.fc = None
    out["set to None"] = [list(dict(linear.named_parameters())), linear.bias, net.fc]
    out["optimizers"] = [
        attempt(lambda **kw: lib.optim.Adam([lib.ones(1, requires_grad=True)], betas=(1.0, 0.9))),
        attempt(lambda: lib.optim.AdamW([lib.ones(1, requires_grad=True)], betas=(0.9, 1.0))),
        attempt(lambda: lib.optim.Adam([lib.ones(1, requires_grad=True)], weight_decay=-1)),
        attempt(lambda: lib.optim.RMSprop([lib.ones(1, requires_grad=True)], momentum=-1)),
        attempt(lambda: lib.optim.RMSprop([lib.ones(1, requires_grad=True)], weight_decay=-1)),
        attempt(lambda: lib.optim.RMSprop([lib.ones(1, requires_grad=True)], alpha=-1)),
    ]
    return out


@program("how-a-view-of-a-view-was-made")
def _(lib, inp):
    """A view remembers how it was made (in no_grad mode, or as one of several
    outputs); a plain view of a view keeps its parent's, a view made either way
    replaces it, so an in-place change is refused with the newest reason, as
    PyTorch's propagate_creation_meta does."""
    out = {}
    leaf = lib.tensor(0.25, requires_grad=True)
    with lib.no_grad():
        scalar_view = leaf[None]
    out["chunk of a no_grad view"] = attempt(lambda: scalar_view.chunk(2)[0].add_(0.5))
    base = lib.ones(4, requires_grad=True) * 1
    with lib.no_grad():
        piece = base.chunk(2)[0]
    out["chunk made in no_grad"] = attempt(lambda: piece.add_(1))
    grad_piece = base.chunk(2)[0]
    with lib.no_grad():
        sliced = grad_piece[0:1]
    out["no_grad slice of a chunk"] = attempt(lambda: sliced.add_(1))
    out["slice of a chunk"] = attempt(lambda: grad_piece[0:1].add_(1))
    with lib.no_grad():
        no_grad_slice = base[0:2]
    out["split of a no_grad slice"] = attempt(lambda: no_grad_slice.split(1)[1].mul_(2))
    return out


@program(
    "linalg-lstsq",
    {
        "a": Inp((4, 2), F32),
        "b": Inp((4, 3), F32),
        "v": Inp((4,), F32),
        "a64": Inp((4, 2), F64),
        "b64": Inp((4, 3), F64),
    },
)
def _(lib, inp):
    """linalg.lstsq with the default driver: the named tuple (solution, empty
    residuals with the node, rank, empty singular values), a vector and a matrix
    B, a batch, a rank-deficient A (the shortest solution), gradients of A and B,
    second derivatives, gradcheck/gradgradcheck and the refusals."""
    a = lib.tensor(inp["a"], requires_grad=True)
    b = lib.tensor(inp["b"], requires_grad=True)
    v = lib.tensor(inp["v"], requires_grad=True)
    out: dict[str, object] = {}
    r = lib.linalg.lstsq(a, b)
    out["matrix"] = [r, type(r).__name__, *lib.autograd.grad((r.solution**2).sum(), (a, b))]
    r = lib.linalg.lstsq(a, v)
    out["vector"] = [r.solution, r.rank, *lib.autograd.grad(r.solution.sum(), (a, v))]
    out["batch"] = lib.linalg.lstsq(a.detach().expand(2, 4, 2), b.detach().expand(2, 4, 3))
    out["rank-deficient"] = lib.linalg.lstsq(lib.ones(4, 2), b.detach())
    x = lib.linalg.lstsq(a, b).solution
    ga, gb = lib.autograd.grad(x.pow(3).sum(), (a, b), create_graph=True)
    out["second"] = [
        ga.detach(),
        gb.detach(),
        *lib.autograd.grad((ga * ga).sum() + gb.sum(), (a, b)),
    ]
    a64 = lib.tensor(inp["a64"], requires_grad=True)
    b64 = lib.tensor(inp["b64"], requires_grad=True)

    def solution(m, n):
        return lib.linalg.lstsq(m, n).solution

    out["gradcheck"] = [
        lib.autograd.gradcheck(solution, (a64, b64)),
        lib.autograd.gradgradcheck(solution, (a64, b64)),
    ]
    out["refused"] = [
        attempt(lambda: lib.linalg.lstsq(a, lib.ones(5, 1))),
        attempt(lambda: lib.linalg.lstsq(lib.ones(3), lib.ones(3))),
        attempt(lambda: lib.linalg.lstsq(a, lib.ones(4, 1, dtype=lib.float64))),
        attempt(
            lambda: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.long), lib.ones(3, 1, dtype=lib.long))
        ),
        attempt(lambda: lib.linalg.lstsq(a, lib.ones(5))),
    ]
    return out


@program("nan-to-num")
def _(lib, inp):
    """nan_to_num (function, method, in place): nan, +inf, -inf replaced, by default
    with 0 and the dtype's extremes; NanToNumBackward0 multiplies the gradient by the
    finite mask (so under create_graph an overflowing gradient gives nan there)."""
    x = lib.tensor([float("nan"), float("inf"), -float("inf"), 1.5], requires_grad=True)
    y = lib.nan_to_num(x)
    y.sum().backward()
    first = x.grad
    (g,) = lib.autograd.grad(lib.nan_to_num(x).pow(2).sum(), x, create_graph=True)
    in_place = lib.tensor([float("nan"), 1.0])
    in_place.nan_to_num_(0.5)
    return {
        "default": [y, y.grad_fn.name(), first],
        "given": lib.nan_to_num(x.detach(), nan=1.0, posinf=2.0, neginf=-2.0),
        "float64": lib.nan_to_num(x.detach().double()),
        "ints and bools": [lib.nan_to_num(lib.tensor([1, 2])), lib.nan_to_num(lib.tensor([True]))],
        "method": x.detach().nan_to_num(posinf=5.0),
        "in place": [in_place, in_place._version],
        "create_graph": [g, g.grad_fn.name()],
    }


@program("more-unary-in-place-forms")
def _(lib, inp):
    """asin_, acos_, atan_, sinh_, cosh_, trunc_, fix_, sign_, ceil_, frac_, log2_,
    log10_, log1p_, expm1_, rsqrt_, reciprocal_, square_ and cumsum_: values, the
    version, the node recorded, gradients, and refusals for integers and bools."""
    out = {}
    names = [
        "asin_", "acos_", "atan_", "sinh_", "cosh_", "trunc_", "fix_", "sign_", "ceil_",
        "frac_", "log2_", "log10_", "log1p_", "expm1_", "rsqrt_", "reciprocal_", "square_",
    ]  # fmt: skip
    for name in names:
        row = []
        for values in ([-0.5, 0.0, 0.25, float("nan")], [3, -2], [True, False]):
            x = lib.tensor(values)
            row.append(attempt(lambda x=x, name=name: [getattr(x, name)() is x, x, x._version]))
        a = lib.tensor([0.3, 0.6], requires_grad=True)
        y = a * 1
        getattr(y, name)()
        row.append(attempt(lambda y=y, a=a: [y.grad_fn.name(), y.sum().backward(), a.grad]))
        out[name] = row
    m = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    m.cumsum_(1)
    out["cumsum_"] = [m, m._version]
    return out


@program("tensor-of-a-tensor-warns")
def _(lib, inp):
    """torch.tensor(t) copies t's values, not its history, with PyTorch's warning
    every time (not once)."""
    source = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copies = [
            lib.tensor(source),
            lib.tensor(lib.ones(2)),
            lib.tensor(source, dtype=lib.float64),
        ]
    return {
        "copies": [[c, c.requires_grad, c.is_leaf] for c in copies],
        "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    }


@program("retained-grad-is-a-copy-under-create-graph")
def _(lib, inp):
    """retain_grad() stores a copy of the gradient, as PyTorch's hook clones it, under
    create_graph too: zeroing .grad then changes neither the gradient autograd.grad
    handed out nor anything else (we stored the very gradient, an expanded view that
    zero_ refused, or one shared with the captured result)."""
    l0 = lib.zeros(3, dtype=lib.float64)
    l1 = lib.zeros(3, dtype=lib.float64, requires_grad=True)
    l0.add_(l1)
    l0.retain_grad()
    l0.register_hook(lambda g: g * 2)
    l0.tanh_()
    (captured,) = lib.autograd.grad(l0.sum(), l1, create_graph=True)
    retained = l0.grad
    zeroed = attempt(lambda: retained.zero_())
    c = lib.tensor([1.0, 1.0], requires_grad=True)
    d = c * 1
    d.retain_grad()
    (c_grad,) = lib.autograd.grad((d + 0).sum(), c, create_graph=True)
    d_grad = d.grad
    d_grad.mul_(5)
    return {
        "captured": [captured, zeroed, captured],
        "second": [d_grad, d_grad.grad_fn is None, c_grad],
    }


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_api_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_api_live(prog):
    H.check_against_live_torch(prog)
