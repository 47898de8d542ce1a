"""Every error (and warning) a learner can meet, in PyTorch's words.

Each program provokes errors with :func:`harness.attempt` (which records the
exception's type and message and lets the program go on, so the state after the
error is compared too) or lets one escape. The harness compares type and message
exactly, after the known spelling normalisation (``autogradkit.float32`` ↔
``torch.float32``, ``autogradkit.Size`` ↔ ``torch.Size``, the AccumulateGrad name)
and after stripping PyTorch's ``(Triggered internally at ...)`` suffixes.
"""

from __future__ import annotations

import zlib

import harness as H
import numpy as np
import pytest
from harness import Inp, Program, attempt

PROGRAMS: list[Program] = []
F32, F64 = "float32", "float64"


def program(pid: str, inputs=None, **options):
    """Decorator: register ``fn(lib, inputs)`` as program ``err/<pid>``."""

    def register(fn):
        full = "err/" + pid
        PROGRAMS.append(
            Program(full, fn, dict(inputs or {}), zlib.crc32(full.encode()) % 100_000, **options)
        )
        return fn

    return register


def errors(pid: str, *statements, inputs=None, **options) -> None:
    """A program that runs each ``statement(lib, t)`` (``t``: the inputs as leaf
    tensors requiring grad if float) and records what each raised (or returned)."""
    inputs = inputs or {"x": Inp((3,), F32)}

    def fn(lib, inp):
        t = H.leaves(lib, inp, grad=[n for n, i in inputs.items() if i.dtype.startswith("float")])
        return {"attempts": [attempt(lambda s=s: s(lib, t)) for s in statements], **t}

    program(pid, inputs, **options)(fn)


# ----------------------------------------------------------------------------- backward twice


@program("second-backward-tutorial", {"w": Inp((5, 3), F32), "b": Inp((3,), F32)})
def _(lib, inp):
    x, y = lib.ones(5), lib.zeros(3)
    w = lib.tensor(inp["w"], requires_grad=True)
    b = lib.tensor(inp["b"], requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = lib.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    second = attempt(lambda: loss.backward())
    return {"second": second, "w": w, "b": b}


@program("second-backward-simple", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    return {"second": attempt(lambda: y.backward()), "x": x}


@program("second-backward-after-retain", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward(retain_graph=True)
    y.backward()  # fine: the graph was kept
    third = attempt(lambda: y.backward())
    return {"third": third, "x": x}


@program("second-backward-through-shared-part", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    h = x.sigmoid()
    a = (h * 2).sum()
    b = (h * 3).sum()
    a.backward()
    return {"b": attempt(lambda: b.backward()), "x": x}


@program("second-backward-no-saved-tensors-is-fine", {"x": Inp((3,), F32)})
def _(lib, inp):
    # sum and add save nothing, so PyTorch lets a second pass through.
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    return {"second": attempt(lambda: y.backward()), "x": x}


@program("second-backward-through-saved-indices", {"x": Inp((2, 3), F64)})
def _(lib, inp):
    # IndexPutBackward0 and MaxBackward0 save index tensors (found by the state
    # machine: x[index] = v with only v requiring grad let a second pass through).
    def twice(make):
        x = lib.tensor(inp["x"], requires_grad=True)
        y = make(x)
        y.sum().backward()
        return {"second": attempt(lambda: y.sum().backward()), "x": x}

    def setitem(x):
        z = lib.zeros(2, 3, dtype=lib.float64)
        z[lib.tensor([0, 1])] = x[0, 0]
        return z

    return {
        "setitem-values": twice(setitem),
        "index_put-values": twice(
            lambda x: lib.zeros(2, 3, dtype=lib.float64).index_put((lib.tensor([1]),), x[1])
        ),
        "index_put-accumulate": twice(
            lambda x: lib.zeros(2, 3, dtype=lib.float64).index_put(
                (lib.tensor([1, 1]),), x[0], accumulate=True
            )
        ),
        "max-dim": twice(lambda x: x.max(1)[0]),
        "min-dim-keepdim": twice(lambda x: x.min(0, keepdim=True)[0]),
        "max-dim-0d": twice(lambda x: x[0, 0].max(0)[0]),
    }


@program("grad-twice-without-retain", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x**3).sum()
    first = lib.autograd.grad(y, x)
    second = attempt(lambda: lib.autograd.grad(y, x))
    return {"first": first, "second": second}


@program("grad-then-backward", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = (x.tanh() * x).sum()
    first = lib.autograd.grad(y, [x])
    return {"first": first, "backward": attempt(lambda: y.backward()), "x": x}


# ----------------------------------------------------------------------------- what can be differentiated

errors(
    "backward-non-scalar",
    lambda lib, t: (t["x"] * 2).backward(),
    lambda lib, t: lib.autograd.grad(t["x"] * 2, t["x"]),
    lambda lib, t: (t["x"] * 2).reshape(1, 3).backward(),
    lambda lib, t: lib.autograd.backward([t["x"].sum(), t["x"] * 2]),
)
errors(
    "backward-without-grad",
    lambda lib, t: lib.tensor([1.0, 2.0]).sum().backward(),
    lambda lib, t: lib.tensor(3.0).backward(),
    lambda lib, t: t["x"].detach().sum().backward(),
    lambda lib, t: lib.autograd.backward([t["x"].sum(), lib.ones(1).sum()]),
    lambda lib, t: lib.autograd.grad(lib.ones(2).sum(), t["x"]),
)


@program("backward-of-no_grad-result", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    with lib.no_grad():
        y = (x * 2).sum()
    return {"y": y, "backward": attempt(lambda: y.backward())}


errors(
    "backward-int-scalar",
    lambda lib, t: lib.tensor(3).backward(),
    lambda lib, t: lib.tensor([1, 2]).sum().backward(),
)
errors(
    "backward-gradient-wrong-shape",
    lambda lib, t: (t["x"] * 2).backward(lib.ones(2)),
    lambda lib, t: (t["x"] * 2).backward(lib.ones(3, 1)),
    lambda lib, t: t["x"].sum().backward(lib.ones(2)),
)
errors(
    "backward-gradient-other-dtype",
    lambda lib, t: ((t["x"] * 2).backward(lib.ones(3, dtype=lib.float64)), t["x"].grad)[1],
)
errors(
    "grad-of-input-not-requiring-grad",
    lambda lib, t: lib.autograd.grad((t["x"] * 2).sum(), lib.ones(3)),
)

# ----------------------------------------------------------------------------- requires_grad flags

errors(
    "requires_grad-false-on-non-leaf",
    lambda lib, t: (t["x"] * 2).requires_grad_(False),
    lambda lib, t: setattr(t["x"] * 2, "requires_grad", False),
    lambda lib, t: (t["x"] * 2).requires_grad_(True).requires_grad,  # allowed: no-op
    lambda lib, t: (t["x"] * 2).requires_grad_().grad_fn,
)
errors(
    "requires_grad-on-int",
    lambda lib, t: lib.tensor([1, 2], requires_grad=True),
    lambda lib, t: setattr(lib.tensor([1, 2]), "requires_grad", True),
    lambda lib, t: lib.tensor([True, False], requires_grad=True),
    lambda lib, t: lib.ones(2, dtype=lib.int64, requires_grad=True),
    lambda lib, t: lib.zeros(2, dtype=lib.bool, requires_grad=True),
    lambda lib, t: lib.arange(3, requires_grad=True),
    lambda lib, t: lib.tensor([1, 2]).requires_grad_(False).requires_grad,  # allowed
)
errors(
    "requires_grad_-method-on-int",
    lambda lib, t: lib.tensor([1, 2]).requires_grad_(),
    lambda lib, t: lib.from_numpy(np.arange(3)).requires_grad_(),
    lambda lib, t: lib.ones(2).requires_grad_("yes"),
)
errors(
    "retain_grad-and-hooks-without-grad",
    lambda lib, t: lib.ones(2).retain_grad(),
    lambda lib, t: lib.ones(2).register_hook(lambda g: g),
    lambda lib, t: t["x"].retain_grad(),  # a leaf that requires grad: a no-op
)

errors(
    "dtype-names-in-matmul-and-grad-assignment",
    lambda lib, t: lib.tensor([[1, 2]]) @ lib.ones(2, 1),
    lambda lib, t: lib.ones(1, 2) @ lib.ones(2, 1, dtype=lib.float64),
    lambda lib, t: lib.ones(1, 2, dtype=lib.bool) @ lib.ones(2, 1),
    lambda lib, t: setattr(t["x"], "grad", lib.ones(3, dtype=lib.int64)),
    lambda lib, t: setattr(t["x"], "grad", lib.ones(3, dtype=lib.float64)),
    lambda lib, t: lib.ones(3, dtype=lib.int64).clamp_(min=0.5),
)

# ----------------------------------------------------------------------------- in-place operations on leaves

errors(
    "inplace-on-leaf",
    lambda lib, t: t["x"].add_(1),
    lambda lib, t: t["x"].mul_(2),
    lambda lib, t: t["x"].zero_(),
    lambda lib, t: t["x"].sub_(1),
    lambda lib, t: t["x"].div_(2),
    lambda lib, t: t["x"].fill_(0),
    lambda lib, t: t["x"].copy_(lib.ones(3)),
    lambda lib, t: t["x"].add_(lib.ones(3), alpha=2),
)


@program("inplace-iadd-on-leaf", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)

    def iadd():
        nonlocal x
        x += 1

    def imul():
        nonlocal x
        x *= 2

    return {"iadd": attempt(iadd), "imul": attempt(imul), "x": x}


@program("inplace-setitem-on-leaf", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)

    def setitem():
        x[0] = 1.0

    return {"setitem": attempt(setitem), "x": x}


@program("inplace-on-leaf-under-no_grad-is-fine", {"x": Inp((3,), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    with lib.no_grad():
        x.add_(1)
        x.mul_(2)
        x -= 0.5
        x[0] = 7.0
    return {"x": x, "version": x._version}


errors(
    "inplace-dtype-and-shape",
    lambda lib, t: lib.tensor([1, 2]).add_(1.5),
    lambda lib, t: lib.tensor([1, 2]).mul_(lib.ones(2)),
    lambda lib, t: lib.ones(3).add_(lib.ones(2, 3)),
    lambda lib, t: lib.ones(3).add_(lib.ones(4)),
    lambda lib, t: lib.ones(2, 3).add_(lib.ones(3)),  # fine: broadcasts into self
    lambda lib, t: lib.tensor([True, False]).add_(1),
)

# ----------------------------------------------------------------------------- saved tensors modified in place


@program("modified-saved-input-of-mul", {"x": Inp((3,), F32), "w": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    w = lib.tensor(inp["w"], requires_grad=True)
    a = x + 1  # a is saved by the multiplication below ...
    y = (a * w).sum()
    a.mul_(2)  # ... and then modified
    return {"a": a, "backward": attempt(lambda: y.backward()), "x": x, "w": w}


@program("modified-saved-input-not-requiring-grad", {"x": Inp((3,), F64), "w": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"])  # a plain tensor: saved for w's gradient
    w = lib.tensor(inp["w"], requires_grad=True)
    y = (x * w).sum()
    x.mul_(2)
    return {"backward": attempt(lambda: y.backward()), "w": w, "version": x._version}


@program("modified-saved-output-of-exp", {"x": Inp((2, 2), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x.exp()
    y.add_(1)
    return {"y": y, "backward": attempt(lambda: y.sum().backward()), "x": x}


@program("modified-saved-output-of-sigmoid", {"x": Inp((4,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    s = x.sigmoid()
    loss = (s * 3).sum()
    s.mul_(0.5)
    return {"s": s, "backward": attempt(lambda: loss.backward()), "x": x}


@program("modified-saved-output-of-tanh-twice", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x.tanh()
    z = y.sum()
    y.mul_(2)
    y.add_(1)
    return {"backward": attempt(lambda: z.backward()), "y_version": y._version}


@program("modified-leaf-under-no_grad", {"w": Inp((3,), F32)})
def _(lib, inp):
    w = lib.tensor(inp["w"], requires_grad=True)
    loss = (w**2).sum()
    with lib.no_grad():
        w.add_(1)
    return {"backward": attempt(lambda: loss.backward()), "w": w, "version": w._version}


@program("modified-leaf-under-no_grad-not-saved-is-fine", {"w": Inp((3,), F32)})
def _(lib, inp):
    w = lib.tensor(inp["w"], requires_grad=True)
    loss = (w * 2 + 1).sum()  # w itself is not saved
    with lib.no_grad():
        w.sub_(0.25)
    return {"backward": attempt(lambda: loss.backward()), "w": w}


@program("modified-detached-alias", {"x": Inp((3,), F32)})
def _(lib, inp):
    # detach() shares data and version counter: modifying it trips the check
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x.exp()
    y.detach().zero_()
    return {"y": y, "backward": attempt(lambda: y.sum().backward())}


# ----------------------------------------------------------------------------- shape mismatches

SHAPES = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "matmul": lambda lib, a, b: lib.matmul(a, b),
    "mm": lambda lib, a, b: lib.mm(a, b),
    "bmm": lambda lib, a, b: lib.bmm(a, b),
}
SHAPE_PAIRS = [
    ((3,), (4,)),
    ((2, 3), (3, 2)),
    ((2, 3), (2, 3)),
    ((4,), (3,)),
    ((2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (3, 4, 5)),
    ((3,), (2, 4)),
    ((2, 4), (3,)),
    ((3, 4), (2, 3, 5)),
    ((4,), (2, 3, 5)),
    ((2, 3, 4), (3,)),
    ((2, 3, 4), (5, 2)),
    ((3, 2, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 3, 2)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 2, 3), (4, 2, 3)),
    ((0, 2, 3), (4, 3, 2)),
    ((2, 2, 3), (3, 3, 4)),
    ((2, 3), (2, 4, 3, 2)),
    ((), (3,)),
    ((3,), ()),
]


def _shape_errors(name, fn):
    def prog(lib, inp):
        out = []
        for sa, sb in SHAPE_PAIRS:
            for grad in (True, False):  # PyTorch's matmul words some errors by requires_grad
                a = lib.ones(sa, requires_grad=grad)
                out.append(
                    [list(sa), list(sb), attempt(lambda: tuple(fn(lib, a, lib.ones(sb)).shape))]  # noqa: B023 (called at once)
                )
        return out

    program(f"shape-mismatch-{name}")(prog)


for name, fn in SHAPES.items():
    _shape_errors(name, fn)

errors(
    "shape-errors-of-shape-ops",
    lambda lib, t: lib.ones(2, 3).reshape(4, -1),
    lambda lib, t: lib.ones(2, 3).view(4, 2),
    lambda lib, t: lib.ones(2, 3).view(-1, -1),
    lambda lib, t: lib.ones(2, 3).reshape(5),
    lambda lib, t: lib.ones(3, 1).expand(2, 4),
    lambda lib, t: lib.ones(3, 1).expand(4),
    lambda lib, t: lib.stack([lib.ones(2), lib.ones(3)]),
    lambda lib, t: lib.cat([lib.ones(2, 3), lib.ones(2, 2)]),
    lambda lib, t: lib.cat([lib.ones(2, 3), lib.ones(3)]),
    lambda lib, t: lib.stack([]),
    lambda lib, t: lib.ones(2, 3).permute(0, 0),
    lambda lib, t: lib.ones(2, 3).permute(0),
    lambda lib, t: lib.ones(2, 3, 4).t(),
)
errors(
    "dimension-out-of-range",
    lambda lib, t: lib.ones(2, 3).transpose(0, 2),
    lambda lib, t: lib.ones(2, 3).sum(2),
    lambda lib, t: lib.ones(2, 3).sum(-3),
    lambda lib, t: lib.ones(2, 3).mean((0, 0)),
    lambda lib, t: lib.ones(2, 3).unsqueeze(3),
    lambda lib, t: lib.ones(2, 3).squeeze(2),
    lambda lib, t: lib.ones(2, 3).size(2),
    lambda lib, t: lib.stack([lib.ones(2), lib.ones(2)], dim=2),
    lambda lib, t: lib.cat([lib.ones(2), lib.ones(2)], dim=1),
    lambda lib, t: lib.ones(()).sum(1),
)
errors(
    "matmul-and-mm-arguments",
    lambda lib, t: lib.matmul(lib.ones(()), lib.ones(3)),
    lambda lib, t: lib.mm(lib.ones(3), lib.ones(3, 2)),
    lambda lib, t: lib.mm(lib.ones(2, 3), lib.ones(3)),
    lambda lib, t: lib.dot(lib.ones(2, 2), lib.ones(2, 2)),
    lambda lib, t: lib.mv(lib.ones(2, 3), lib.ones(2, 3)),
    lambda lib, t: lib.matmul(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64)),
    lambda lib, t: lib.matmul(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib, t: lib.matmul(lib.ones(2, 3), [1.0, 2.0, 3.0]),
)
errors(
    "loss-arguments",
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(t["x"], lib.zeros(2)),
    lambda lib, t: lib.nn.functional.binary_cross_entropy(t["x"].sigmoid(), lib.zeros(2)),
    lambda lib, t: lib.nn.functional.binary_cross_entropy(t["x"] * 0 + 2, lib.zeros(3)),
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(
        t["x"], lib.zeros(3), reduction="avg"
    ),
    lambda lib, t: lib.nn.functional.mse_loss(t["x"], lib.zeros(2, 3)),
    lambda lib, t: lib.nn.functional.mse_loss(t["x"], lib.zeros(4)),
    lambda lib, t: lib.nn.functional.mse_loss(t["x"], lib.zeros(3), reduction="total"),
)

# ----------------------------------------------------------------------------- conversions

errors(
    "numpy-of-tensor-requiring-grad",
    lambda lib, t: t["x"].numpy(),
    lambda lib, t: (t["x"] * 2).numpy(),
    lambda lib, t: t["x"].detach().numpy(),
    lambda lib, t: t["x"].numpy(force=True),
)
errors(
    "item-and-bool",
    lambda lib, t: t["x"].item(),
    lambda lib, t: bool(t["x"]),
    lambda lib, t: bool(t["x"][:1] * 0),
    lambda lib, t: len(lib.tensor(1.0)),
    lambda lib, t: list(lib.tensor(1.0)),
    lambda lib, t: int(lib.tensor([7])),
    lambda lib, t: float(lib.tensor([[2.5]])),
)


def _every_time(lib, statement):
    """Run ``statement`` with warnings that PyTorch gives once per process given every
    time, so that what it warns does not depend on which program ran first."""
    lib.set_warn_always(True)
    try:
        return statement()
    finally:
        lib.set_warn_always(False)


errors(
    "scalar-conversion-of-many-elements",
    lambda lib, t: _every_time(lib, lambda: float(t["x"])),
    lambda lib, t: int(lib.ones(2)),
    lambda lib, t: _every_time(lib, lambda: float(t["x"][0])),
)
errors(
    "scalar-conversion-warns-for-float-in-grad-mode",
    lambda lib, t: _every_time(lib, lambda: float(t["x"][0] * 2)),
    lambda lib, t: _every_time(lib, lambda: int(t["x"][0])),
    lambda lib, t: _every_time(lib, lambda: t["x"][0].item()),
    lambda lib, t: _every_time(lib, lambda: "%.3f" % t["x"][1]),  # noqa: UP031 (what learners write)
    lambda lib, t: _every_time(lib, lambda: float(t["x"][1].detach())),
    lambda lib, t: [lib.is_warn_always_enabled(), attempt(lambda: lib.set_warn_always("yes"))],
)


def _float_under_no_grad(lib, inp):
    x = lib.tensor([1.5], requires_grad=True)
    with lib.no_grad():
        return _every_time(lib, lambda: float(x))


program("scalar-conversion-under-no-grad")(_float_under_no_grad)
errors(
    "mean-of-int",
    lambda lib, t: lib.tensor([1, 2]).mean(),
    lambda lib, t: lib.tensor([True, False]).mean(),
    lambda lib, t: lib.mean(lib.tensor([[1, 2]]), 0),
)


@program("grad-of-non-leaf-warns", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 2
    y.sum().backward()
    z = x * 3
    z.retain_grad()
    return {
        "non_leaf": H.caught_warnings(lambda: y.grad),
        "value": attempt(lambda: y.grad),
        "retained": H.caught_warnings(lambda: z.grad),
        "leaf": H.caught_warnings(lambda: x.grad),
        "plain": H.caught_warnings(lambda: lib.ones(2).grad),
    }


errors(
    "assign-grad",
    lambda lib, t: setattr(t["x"], "grad", 1.0),
    lambda lib, t: (setattr(t["x"], "grad", lib.ones(3)), t["x"].grad)[1],  # type: ignore[func-returns-value]
    lambda lib, t: (setattr(t["x"], "grad", None), t["x"].grad)[1],  # type: ignore[func-returns-value]
)
errors(
    "assign-grad-mismatch",
    lambda lib, t: setattr(t["x"], "grad", lib.ones(2)),
    lambda lib, t: setattr(t["x"], "grad", lib.ones(3, dtype=lib.float64)),
)

# ----------------------------------------------------------------------------- creating tensors

errors(
    "tensor-from-bad-data",
    lambda lib, t: lib.tensor([[1, 2], [3]]),
    lambda lib, t: lib.tensor([[1.0, 2.0], [3.0, 4.0, 5.0]]),
    lambda lib, t: lib.tensor([[1, 2], 3]),
    lambda lib, t: lib.tensor([1, [2, 3]]),
    lambda lib, t: lib.tensor([[[1], [2]], [[3], [4, 5]]]),
    lambda lib, t: lib.tensor("abc"),
    lambda lib, t: lib.tensor(["a", "b"]),
    lambda lib, t: lib.tensor([1, "b"]),
    lambda lib, t: lib.tensor(None),
    lambda lib, t: lib.tensor({"a": 1}),
    lambda lib, t: lib.tensor([]),
    lambda lib, t: lib.tensor([[], []]),
    lambda lib, t: lib.tensor([True, 2, 3.5]),
    lambda lib, t: lib.tensor([1, 2**70]),
)
errors(
    "wrong-dtype-arguments",
    lambda lib, t: lib.tensor([1.0], dtype="float"),
    lambda lib, t: lib.tensor([1.0], dtype="float32"),
    lambda lib, t: lib.ones(2, dtype="float32"),
    lambda lib, t: lib.zeros(2, dtype="int64"),
    lambda lib, t: lib.ones(2, dtype=float),
    lambda lib, t: lib.zeros(2, dtype=int),
    lambda lib, t: lib.ones(2, dtype=bool),
    lambda lib, t: lib.tensor([1, 2], dtype=float),
    lambda lib, t: lib.full((2,), 1.5, dtype="float"),
    lambda lib, t: lib.ones(2).to(lib.float64),
    lambda lib, t: lib.ones(2).to(dtype=lib.int64),
)
errors(
    "to-with-a-string",
    lambda lib, t: lib.ones(2).to("float64"),
    lambda lib, t: lib.ones(2).to(dtype="float64"),
)
errors(
    "bad-sizes",
    lambda lib, t: lib.ones(-1),
    lambda lib, t: lib.zeros(2, -3),
    lambda lib, t: lib.ones(2.5),
    lambda lib, t: lib.ones("3"),
    lambda lib, t: lib.eye(-2),
    lambda lib, t: lib.arange(0, 5, 0),
    lambda lib, t: lib.arange(5, 0, 1),
    lambda lib, t: lib.ones((2, 3), 4),
)

# ----------------------------------------------------------------------------- indexing

errors(
    "index-out-of-range",
    lambda lib, t: t["x"][5],
    lambda lib, t: t["x"][-4],
    lambda lib, t: lib.ones(2, 3)[0, 3],
    lambda lib, t: lib.ones(2, 3)[2],
    lambda lib, t: lib.ones(2, 3)[:, -4],
    lambda lib, t: t["x"][[0, 5]],
    lambda lib, t: lib.ones(2, 3)[[0, 1], [1, 3]],
    lambda lib, t: t["x"][lib.tensor([1, 3])],
    lambda lib, t: t["x"][0, 0],
    lambda lib, t: lib.tensor(1.0)[0],
    lambda lib, t: t["x"][5:],  # slices clamp: no error
)
errors(
    "index-bad-types",
    lambda lib, t: t["x"][1.5],
    lambda lib, t: t["x"][lib.tensor([0.0, 1.0])],
    lambda lib, t: t["x"][lib.tensor([True, False])],
    lambda lib, t: t["x"][::-1],
    lambda lib, t: t["x"][::0],
)

# ----------------------------------------------------------------------------- autograd.grad


@program("grad-unused-input", {"x": Inp((3,), F32), "u": Inp((2,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    u = lib.tensor(inp["u"], requires_grad=True)
    y = (x * x).sum()
    return {"unused": attempt(lambda: lib.autograd.grad(y, [x, u]))}


@program("grad-allow-unused", {"x": Inp((3,), F32), "u": Inp((2,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    u = lib.tensor(inp["u"], requires_grad=True)
    y = (x * x).sum()
    return {
        "allow_unused": attempt(
            lambda: lib.autograd.grad(y, [x, u], retain_graph=True, allow_unused=True)
        ),
        "materialize": attempt(
            lambda: lib.autograd.grad(y, (x, u), retain_graph=True, materialize_grads=True)
        ),
        "only_unused": attempt(lambda: lib.autograd.grad(y, u, allow_unused=True)),
        "x_grad_untouched": x.grad,
    }


@program("grad-arguments", {"x": Inp((3,), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = x * 2
    return {
        "non_scalar": attempt(lambda: lib.autograd.grad(y, x, retain_graph=True)),
        "grad_outputs": attempt(
            lambda: lib.autograd.grad(y, x, lib.ones(3, dtype=lib.float64), retain_graph=True)
        ),
        "grad_outputs_kw": attempt(
            lambda: lib.autograd.grad(
                [y], [x], grad_outputs=[lib.ones(3, dtype=lib.float64)], retain_graph=True
            )
        ),
        "wrong_shape": attempt(
            lambda: lib.autograd.grad(y, x, lib.ones(2, dtype=lib.float64), retain_graph=True)
        ),
        "input_no_grad": attempt(lambda: lib.autograd.grad(y.sum(), lib.ones(3))),
    }


def _backward_after_data_swap(lib, x, through_sum: bool, create_graph: bool):
    """``y.data = <other shape>`` then a backward pass: the gradient reaching x's
    node no longer fits x, which PyTorch's engine reports (as a root's or a node's).
    With create_graph through autograd.grad: backward(create_graph=True) warns once
    per process in PyTorch, which would tie this case's record to the others'."""
    y = x * 2
    y.data = lib.ones(5, dtype=x.dtype)
    root = y.sum() if through_sum else y
    seed = None if through_sum else lib.ones(5, dtype=x.dtype)
    if create_graph:
        return lib.autograd.grad(root, x, seed, create_graph=True)
    return root.backward(seed)


@program("root-gradient-after-data-of-other-shape", {"x": Inp((3,), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    out = {}
    for through_sum in (False, True):
        for create_graph in (False, True):
            out[f"sum={through_sum},cg={create_graph}"] = attempt(
                lambda s=through_sum, c=create_graph: _backward_after_data_swap(lib, x, s, c)
            )
    out["second_root"] = attempt(lambda: _grad_after_data_swap(lib, x))
    return {**out, "x": x}


def _grad_after_data_swap(lib, x):
    a, b = x * 2, x * 3
    b.data = lib.ones(2, 2, dtype=x.dtype)
    return lib.autograd.grad([a, b], [x], [lib.ones(3), lib.ones(2, 2)])


# ----------------------------------------------------------------------------- misc

errors(
    "clamp-arguments",
    lambda lib, t: lib.clamp(t["x"]),
    lambda lib, t: t["x"].clamp(),
)
errors(
    "maximum-arguments",
    lambda lib, t: lib.maximum(t["x"], 0.5),
)


# ----------------------------------------------------------------------------- dtype rules of abs, clamp, alpha


def expressions(pid: str, *sources: str) -> None:
    """A program that evaluates each Python expression (names: ``lib``, a bool
    tensor ``b``, an int64 tensor ``i``, a float tensor ``x``, 0-d bool tensors
    ``T``/``F``) and records what it returned or raised."""

    def fn(lib, inp):
        names = {
            "lib": lib,
            "np": np,
            "b": lib.tensor([True, False]),
            "i": lib.tensor([2, -3]),
            "x": lib.tensor([1.5, -2.0]),
            "T": lib.tensor(True),
            "F": lib.tensor(False),
        }
        return {src: attempt(lambda src=src: eval(src, names)) for src in sources}

    program(pid)(fn)


expressions(
    "bool-abs-and-clamp",
    "b.abs()",
    "lib.abs(b)",
    "abs(b)",
    "b.clone().abs_()",
    "lib.tensor([], dtype=lib.bool).abs()",
    "b.clamp(min=True)",
    "b.clamp(max=True)",
    "b.clamp(None, True)",
    "b.clamp(False, True)",
    "b.clamp(T, True)",
    "b.clamp(F, T)",
    "b.clamp(min=T)",
    "b.clamp(max=T)",
    "b.clamp(0, 1)",
    "b.clamp(True, 1)",
    "b.clamp(min=0.5)",
    "b.clamp_min(True)",
    "b.clamp_min(T)",
    "b.clip(min=True)",
    "lib.clamp(b, max=True)",
    "lib.tensor(True).clamp(max=True)",
    "i.clamp(max=True)",
    "b.clone().clamp_(min=True)",
    "b.clone().clamp_(0, 1)",
    "b.clone().clamp_(max=1.5)",
    "b.clone().clamp_(F, T)",
    "b.clone().clamp_(min=T)",
    "b.clone().clamp_(T, 1)",
    "i.clone().clamp_(0.5, 1)",
    "i.clone().clamp_(min=True)",
)
expressions(
    "add-sub-alpha",
    "lib.add(b, b, alpha=2)",
    "lib.add(b, b, alpha=0)",
    "lib.add(b, b, alpha=-1)",
    "lib.add(b, b, alpha=True)",
    "lib.add(b, True, alpha=2)",
    "lib.add(b, False, alpha=5)",
    "lib.add(True, b, alpha=5)",
    "lib.add(b, 1, alpha=2)",
    "lib.add(b, i, alpha=2)",
    "b.add(b, alpha=2)",
    "b.clone().add_(b, alpha=2)",
    "b.clone().add_(True, alpha=0)",
    "lib.add(b, b, alpha=1.5)",
    "lib.add(i, i, alpha=1.5)",
    "lib.add(i, i, alpha=1.0)",
    "lib.add(i, 2, alpha=1.0)",
    "lib.add(i, 2.5, alpha=2)",
    "lib.add(i, i, alpha=True)",
    "lib.add(x, x, alpha=True)",
    "lib.add(x, 2, alpha=1.0)",
    "lib.add(x, x, alpha=lib.tensor(True))",
    "lib.add(i, i, alpha=lib.tensor(1.5))",
    "lib.add(x, x, alpha=lib.tensor(2.0))",
    "lib.add(i, i, alpha=np.float64(2))",
    "lib.add(i, i, alpha=np.int64(2))",
    "lib.add(x, x, alpha=np.bool_(True))",
    "lib.add(b, b, alpha=2+0j)",
    "lib.add(x, x, alpha=2+0j)",
    "lib.add(b, b, alpha='2')",
    "lib.sub(x, x, alpha=None)",
    "x.sub(x, alpha=[1])",
    "b.clone().add_(b, alpha='2')",
    "x.clone().sub_(x, alpha=None)",
    "i.clone().add_(i, alpha=1.5)",
    "x.clone().add_(x, alpha=True)",
    "i.clone().add_(x, alpha=True)",
    "lib.sub(i, i, alpha=1.5)",
    "lib.sub(x, x, alpha=True)",
    "lib.sub(i, 2, alpha=1.5)",
    "lib.sub(b, 2, alpha=2)",
    "lib.add(i, i, alpha=2**70)",
)

expressions(
    "integer-negative-powers",
    "i ** -1",
    "lib.pow(i, -2)",
    "i.clone().pow_(-1)",
    "lib.tensor([], dtype=lib.int64) ** -1",
    "b ** -1",
    "i ** lib.tensor(-1)",
    "i ** lib.tensor([1, -1, 2])[:2]",
    "lib.tensor([1, -1, 0, 2]) ** lib.tensor([-3, -3, -1, -2])",
    "lib.tensor([1, -1]) ** lib.tensor([[-2], [-1], [0]])",
    "i.clone().pow_(lib.tensor(-1))",
    "2 ** lib.tensor([1, -1])",
    "(-1) ** lib.tensor([1, -1, -2])",
    "lib.pow(1, lib.tensor([-5]))",
    "b ** lib.tensor([-1, 1])",
    "i ** -1.0",
    "i ** lib.tensor(-1.0)",
)
expressions("integer-ipow", "i.__ipow__(-1)", "i.__ipow__(lib.tensor(-1))", "i.__ipow__(2)")

expressions(
    "matrix-vector-dtypes",
    "lib.ones(2, 3) @ lib.ones(3, dtype=lib.float64)",
    "lib.ones(2, 3, dtype=lib.float64) @ lib.ones(3)",
    "lib.ones(2, 3) @ lib.ones(3, dtype=lib.int64)",
    "lib.ones(2, 3, dtype=lib.int64) @ lib.ones(3, dtype=lib.bool)",
    "lib.mv(lib.ones(2, 3), lib.ones(3, dtype=lib.float64))",
    "lib.ones(2, 3).mv(lib.ones(3, dtype=lib.float64))",
    "lib.ones(2, 3).mv(lib.ones(3))",
    "lib.ones(4, 2, 3) @ lib.ones(3, dtype=lib.float64)",
    "lib.ones(3, dtype=lib.float64) @ lib.ones(4, 3, 2)",
    "lib.ones(2, 3) @ lib.ones(2, dtype=lib.float64)",
    "lib.ones(3, dtype=lib.float64) @ lib.ones(3, 2)",
    "lib.ones(3, requires_grad=True) @ lib.ones(3, dtype=lib.float64)",
)

expressions(
    "loss-target-dtypes",
    "lib.nn.functional.nll_loss(lib.ones(2, 3), i.clone().float())",
    "lib.nn.functional.nll_loss(lib.ones(2, 3), i.clone().double())",
    "lib.nn.functional.nll_loss(lib.ones(2, 3), b.clone())",
    "lib.nn.functional.cross_entropy(lib.ones(2, 3), i.clone().float())",
    "lib.nn.functional.cross_entropy(lib.ones(2, 3), b.clone())",
    "lib.nn.functional.nll_loss(lib.ones(2, 3), [2, 0])",
    "lib.nn.functional.cross_entropy(lib.ones(2, 3), [2, 0])",
    "lib.nn.functional.cross_entropy(lib.ones(3), lib.tensor(1.0))",
)


@program("loss-dtype-pairs")
def _(lib, inp):
    """Regression losses take an integer or bool target (labels used as values) in
    the input's float dtype; the binary cross-entropies refuse one, in PyTorch's
    words. Each pair: the loss, or what it raised, and the input's gradient."""
    F = lib.nn.functional
    operands = {
        "long": lib.tensor([1, 0, 2]),
        "bool": lib.tensor([True, False, True]),
        "f32": lib.tensor([0.75, 0.0, 1.0]),
        "f64": lib.tensor([0.75, 0.0, 1.0], dtype=lib.float64),
    }
    out = {}
    for loss in ["mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy"]:
        for input_name in ["f32", "f64", "long", "bool"]:
            for target_name in ["f32", "f64", "long", "bool"]:
                x = operands[input_name].clone()
                if x.is_floating_point():
                    x = x.sigmoid() if loss == "binary_cross_entropy" else x
                    x = x.detach().requires_grad_()

                def run(x=x, target=operands[target_name], loss=loss):
                    value = getattr(F, loss)(x, target)
                    grad = lib.autograd.grad(value, x)[0] if x.requires_grad else None
                    return [value, grad]

                out[f"{loss}({input_name}, {target_name})"] = attempt(run)
    logits = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for target_name in ["long", "bool"]:
        target = operands[target_name]
        out[f"with_logits(f32, {target_name})"] = attempt(
            lambda t=target: F.binary_cross_entropy_with_logits(logits, t)
        )
    out["with_logits(long, f32)"] = attempt(
        lambda: F.binary_cross_entropy_with_logits(operands["long"], operands["f32"])
    )
    return out


@program("matmul-operand-modified-before-backward")
def _(lib, inp):
    """An operand that needs no grad, changed in place after a matmul that saved it:
    backward refuses ('... is at version 1; expected version 0'), for every operand
    shape. vector @ matrix saves the vector as a 1×n row; that row shares the
    vector's version counter, or the change gave a silently wrong gradient."""
    out = {}
    shapes = {
        "vector @ matrix": ((2,), (2, 3)),
        "matrix @ vector": ((3, 2), (2,)),
        "vector @ vector": ((2,), (2,)),
        "vector @ batch": ((2,), (4, 2, 3)),
        "batch @ vector": ((4, 3, 2), (2,)),
        "matrix @ matrix": ((3, 2), (2, 3)),
    }
    for name, (constant_shape, leaf_shape) in shapes.items():
        for constant_first in (True, False):
            constant = lib.ones(constant_shape, dtype=lib.float64)
            leaf = lib.ones(leaf_shape, dtype=lib.float64, requires_grad=True)
            if not constant_first:
                constant, leaf = (
                    lib.ones(leaf_shape, dtype=lib.float64),
                    lib.ones(constant_shape, dtype=lib.float64, requires_grad=True),
                )
            y = constant @ leaf if constant_first else leaf @ constant
            constant.add_(0.5)
            key = f"{name} ({'constant' if constant_first else 'leaf'} first)"
            out[key] = attempt(lambda y=y, leaf=leaf: lib.autograd.grad(y.sum(), leaf))
    return out


@program("inplace-saved-output-modified-later")
def _(lib, inp):
    """exp_, sigmoid_, tanh_, sqrt_, relu_ save their result, which is the tensor
    changed in place: a later in-place change of that tensor (or of its base, for a
    view) is refused in backward ('... which is output 0 of Exp, is at version 2;
    expected version 1'), a second in-place function too; untouched, backward runs."""
    out = {}
    for name in ["exp_", "sigmoid_", "tanh_", "sqrt_", "relu_", "abs_", "neg_"]:
        for later in ["nothing", "add_", "again", "view add_", "base add_ (view)"]:
            x = lib.tensor([[0.5, 1.5], [2.0, 0.25]], dtype=lib.float64, requires_grad=True)
            y = x * 1
            if later == "base add_ (view)":
                getattr(y[0], name)()
                y.add_(1.0)
            else:
                getattr(y, name)()
                if later == "add_":
                    y.add_(1.0)
                elif later == "again":
                    getattr(y, name)()
                elif later == "view add_":
                    y[1].add_(1.0)
            out[f"{name} then {later}"] = attempt(lambda y=y, x=x: lib.autograd.grad(y.sum(), x))
    return out


def _packed_by(lib, record) -> list:
    """The values saved_tensors_hooks' pack hook receives while ``record()`` runs."""
    packed: list = []

    def pack(t):
        packed.append(t.tolist())
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        record()
    return packed


@program("maximum-minimum-save-their-inputs")
def _(lib, inp):
    """maximum and minimum save both inputs, as PyTorch does: an operand changed in
    place before backward is refused (we saved masks, so the change went unnoticed),
    and saved_tensors_hooks packs the two inputs. Ties still share the gradient."""
    out = {}
    for name in ["maximum", "minimum"]:
        for changed in ["nothing", "constant", "tie"]:
            c = lib.tensor([0.0, 2.0, 5.0])
            w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            y = getattr(lib, name)(c, w)
            if changed == "constant":
                c.add_(10.0)
            out[f"{name} {changed}"] = attempt(lambda y=y, w=w: lib.autograd.grad(y.sum(), w))
        out[f"{name} packed"] = _packed_by(
            lib, lambda name=name, w=w: getattr(lib, name)(lib.tensor([0.0, 2.0, 5.0]), w)
        )
    return out


@program("clamp-saves-its-inputs")
def _(lib, inp):
    """clamp, clamp_min and clamp_max save the input (and tensor bounds), as PyTorch
    does: changing one in place before backward is refused, and saved_tensors_hooks
    packs them in PyTorch's order (bounds first). We saved masks made in forward."""
    ways = {
        "clamp(0, 1)": lambda t, lo, hi: t.clamp(0.0, 1.0),
        "clamp_min(1)": lambda t, lo, hi: t.clamp_min(1.0),
        "clamp_max(1)": lambda t, lo, hi: t.clamp_max(1.0),
        "clamp_min(lo)": lambda t, lo, hi: t.clamp_min(lo),
        "clamp_max(hi)": lambda t, lo, hi: t.clamp_max(hi),
        "clamp(min=lo)": lambda t, lo, hi: t.clamp(min=lo),
        "clamp(lo, hi)": lambda t, lo, hi: t.clamp(lo, hi),
    }
    out = {}
    for name, way in ways.items():
        for changed in ["nothing", "input", "bound"]:
            x = lib.tensor([0.5, 2.0, -1.0], requires_grad=True)
            lo, hi = lib.tensor([0.0, 1.0, 0.0]), lib.tensor([1.0, 3.0, 0.5])
            h = x * 1
            y = way(h, lo, hi)
            if changed == "input":
                h.add_(1.0)
            elif changed == "bound":
                lo.add_(1.0)
                hi.add_(1.0)
            out[f"{name} {changed}"] = attempt(lambda y=y, x=x: lib.autograd.grad(y.sum(), x))
        out[f"{name} packed"] = _packed_by(
            lib, lambda way=way, x=x, lo=lo, hi=hi: way(x * 1, lo, hi)
        )
    return out


@program("reduction-input-modified-before-backward")
def _(lib, inp):
    """Reductions whose backward reads their input refuse it changed in place before
    backward; x.max() and x.min() saved a mask made in forward, so they did not.
    Ties still share the gradient."""
    ways = {
        "max": lambda h: h.max(),
        "min": lambda h: h.min(),
        "max(0)": lambda h: h.max(0).values,
        "amax(0)": lambda h: h.amax(0),
        "prod": lambda h: h.prod(),
        "std": lambda h: h.std(),
        "norm": lambda h: h.norm(),
        "logsumexp(0)": lambda h: h.logsumexp(0),
        "sort": lambda h: h.sort(-1).values,
        "sum": lambda h: h.sum(),
        "nll_loss": lambda h: lib.nn.functional.nll_loss(h, lib.tensor([0, 1])),
        "cross_entropy": lambda h: lib.nn.functional.cross_entropy(h, lib.tensor([0, 1])),
    }
    out = {}
    for name, way in ways.items():
        for changed in [False, True]:
            x = lib.tensor([[0.5, 3.0], [3.0, -1.0]], requires_grad=True)
            h = x * 1
            y = way(h)
            if changed:
                h.add_(1.0)
            out[f"{name} changed={changed}"] = attempt(
                lambda y=y, x=x: lib.autograd.grad(y.sum(), x)
            )
    return out


@program("multi-output-view-of-a-tensor-without-grad")
def _(lib, inp):
    """A piece of chunk/split/unbind of a tensor that needs no grad, whose base is
    then changed in place with a tensor that requires grad: reading the piece's
    history raises PyTorch's header for a view without a node ("A view was created
    in no_grad mode ...") and its multiple-views sentence. chunk of a 0-d tensor
    names chunk."""
    out = {}
    pieces = {
        "chunk": lambda b: b.chunk(2)[0],
        "split": lambda b: b.split(1)[-1],
        "unbind": lambda b: b.unbind(0)[0],
    }
    for name, piece in pieces.items():
        base = lib.zeros(2, 3)
        view = piece(base)
        base.add_(lib.tensor(0.5, requires_grad=True))
        out[name] = [attempt(lambda v=view: v.is_leaf), attempt(lambda v=view: v.grad_fn)]
    out["chunk 0-d"] = attempt(lambda: lib.tensor(1.0).chunk(2))
    return out


@program("huber-dtype-pairs")
def _(lib, inp):
    """huber_loss computes in the input's dtype whatever the target's (labels as
    values, float64 against float32) and refuses only in backward ('Found dtype Long
    but expected Float'); without grad the loss is a value. An integer input has no
    kernel. Each pair: the loss without grad, the loss with grad, and its gradient."""
    F = lib.nn.functional
    operands = {
        "long": lib.tensor([1, 0, 2]),
        "bool": lib.tensor([True, False, True]),
        "f32": lib.tensor([0.75, 0.0, 3.0]),
        "f64": lib.tensor([0.75, 0.0, 3.0], dtype=lib.float64),
    }
    out = {}
    for input_name in ["f32", "f64", "long"]:
        for target_name in ["f32", "f64", "long", "bool"]:
            target = operands[target_name]
            x = operands[input_name].clone()
            key = f"huber({input_name}, {target_name})"
            out[key + " no grad"] = attempt(lambda x=x, t=target: F.huber_loss(x, t))
            if x.is_floating_point():
                x = x.detach().requires_grad_()
                out[key + " grad"] = attempt(
                    lambda x=x, t=target: lib.autograd.grad(F.huber_loss(x, t, delta=0.5), x)
                )
    return out


expressions(
    "linear-and-addmm-refusals",
    "lib.nn.functional.linear(lib.tensor([[1, 2, 3]]), lib.ones(2, 3), lib.ones(2))",
    "lib.nn.functional.linear(lib.tensor([1, 2, 3]), lib.ones(2, 3), lib.ones(2))",
    "lib.nn.functional.linear(lib.ones(5, 4, 3).long(), lib.ones(2, 3), lib.ones(2))",
    "lib.nn.functional.linear(lib.tensor([[1, 2, 3]]), lib.ones(2, 3))",
    "lib.nn.functional.linear(lib.ones(4, 3), lib.ones(2, 3), lib.ones(2).double())",
    "lib.nn.functional.linear(lib.ones(4, 3), lib.ones(2, 3), lib.ones(3))",
    "lib.nn.functional.linear(lib.ones(4, 4), lib.ones(2, 3), lib.ones(2))",
    "lib.nn.Linear(3, 2)(lib.tensor([[1, 2, 3]]))",
    "lib.addmm(lib.ones(2, 2), lib.ones(4, 3), lib.ones(3, 2))",
    "lib.addmm(lib.ones(3, 4, 2), lib.ones(4, 3), lib.ones(3, 2))",
    "lib.addmm(lib.ones(2), lib.ones(3), lib.ones(3, 2))",
    "lib.addmm(lib.ones(2), lib.ones(4, 3), lib.ones(3))",
    "lib.addmm(lib.ones(4, 1), lib.ones(4, 3), lib.ones(3, 2))",
    "lib.addmm(lib.ones(2).long(), lib.ones(4, 3), lib.ones(3, 2))",
)
expressions(
    "softmax-dim-and-relu-inplace",
    "lib.softmax(lib.ones(3))",
    "lib.ones(3).softmax()",
    "lib.log_softmax(lib.ones(3))",
    "lib.ones(3).log_softmax()",
    "lib.softmax(lib.ones(3), None)",
    "lib.softmax(lib.ones(2, 3), 1)",
    "lib.nn.functional.softmax(lib.ones(2, 3))",
    "lib.nn.functional.log_softmax(lib.ones(2, 3))",
    "lib.nn.Softmax()(lib.ones(2, 3))",
    "lib.nn.functional.relu(lib.tensor([-1.0, 2.0]), inplace=True)",
    "lib.nn.functional.relu(lib.tensor([-1.0, 2.0]), True)",
    "lib.nn.functional.relu_(lib.tensor([-1.0, 2.0]))",
    "lib.nn.functional.relu(lib.ones(2, requires_grad=True), inplace=True)",
    "lib.nn.functional.relu(lib.ones(2, requires_grad=True) * -1, inplace=True)",
)


@program("clamp_-tensor-bounds")
def _(lib, inp):
    """clamp_ with tensor bounds, recorded or not (NumPy's clip refused tensors)."""
    x = lib.tensor([1.5, -2.0, 0.5])
    m = lib.tensor([0.0, -3.0, 1.0], requires_grad=True)
    tried = {
        "min_0d": attempt(lambda: x.clone().clamp_(min=lib.tensor(0.0))),
        "both": attempt(lambda: x.clone().clamp_(lib.tensor([0.0, -3, 1]), lib.tensor(1.0))),
        "max_int": attempt(lambda: x.clone().clamp_(max=lib.tensor(0))),
        "clip_": attempt(lambda: x.clone().clip_(min=lib.tensor(0.0))),
        "broadcast": attempt(lambda: x.clone().clamp_(min=lib.tensor([[0.0], [1.0]]))),
        "none": attempt(lambda: x.clone().clamp_()),
    }
    z = x.clone()
    z.clamp_(min=m)  # only the bound requires grad: recorded all the same
    leaf = lib.tensor([1.5, -2.0, 0.5], requires_grad=True)
    y = leaf * 1
    y[1:].clamp_(max=lib.tensor(0.0))
    (z.sum() + y.sum()).backward()
    return {"tried": tried, "z": z, "y": y, "m": m, "leaf": leaf}


# -- anomaly mode ---------------------------------------------------------------------
# The "Error detected in ..." warning carries the forward traceback, whose file
# paths differ between machines and libraries: these programs catch the warnings
# themselves and keep each one's first line, and of the traceback its last line
# (the user's line of code that recorded the failing node).


def _under_anomaly(run, names_lines: tuple[str, ...] = ()) -> dict:
    """``run()``'s outcome with its warnings: first lines, and the traceback's last
    line (or, given ``names_lines``, whether the traceback shows each of them)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = attempt(run)
    messages = [str(w.message).split(" (Triggered internally at")[0] for w in caught]
    lines: list[str | list[bool]]
    if names_lines:
        lines = [[f"    {line}\n" in message for line in names_lines] for message in messages]
    else:
        lines = [message.rstrip().splitlines()[-1].strip() for message in messages]
    first_lines = [message.strip().splitlines()[0] for message in messages]
    return {"outcome": outcome, "first_lines": first_lines, "forward_line": lines}


@program("anomaly/nan-names-node-and-forward-line", {"x": Inp((3,), F32, "positive")})
def _(lib, inp):
    x = lib.tensor(-inp["x"], requires_grad=True)

    def run():
        with lib.autograd.detect_anomaly():
            inside = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
            y = x.sqrt()
            y.sum().backward()
        return inside

    report = _under_anomaly(run)
    return {**report, "after": lib.is_anomaly_enabled(), "grad": x.grad}


@program("anomaly/inplace-error-hint", {"x": Inp((2, 2), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)

    def run():
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            y = x.exp()
            y.add_(1)
            y.sum().backward()

    return _under_anomaly(run)


@program("anomaly/error-in-custom-backward", {"x": Inp((2,), F64)})
def _(lib, inp):
    class Bad(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("an error in backward")

    def model(x):
        h = x * 3
        return Bad.apply(h)

    x = lib.tensor(inp["x"], requires_grad=True)

    def run():
        with lib.autograd.set_detect_anomaly(True):
            out = model(x).sum()
            out.backward()

    # PyTorch's traceback ends in its own Function.apply: both show the call.
    return _under_anomaly(run, names_lines=("return Bad.apply(h)",))


@program("anomaly/node-recorded-by-a-create-graph-backward")
def _(lib, inp):
    x = lib.tensor([0.0], requires_grad=True)

    def run():
        with lib.autograd.set_detect_anomaly(True):
            y = x.sqrt()
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            lib.autograd.grad((g * 0).sum(), x)  # 0 * inf: nan, in a node of g's graph

    # Two warnings: the failing node's forward line, then the one of the node whose
    # backward recorded it (PyTorch's first traceback also goes on into its engine).
    lines = ("(g,) = lib.autograd.grad(y.sum(), x, create_graph=True)", "y = x.sqrt()")
    return _under_anomaly(run, names_lines=lines)


@program("anomaly/no-forward-information", {"x": Inp((3,), F64, "positive")})
def _(lib, inp):
    x = lib.tensor(-inp["x"], requires_grad=True)
    y = x.sqrt()  # recorded before anomaly mode is on

    def run():
        with lib.autograd.set_detect_anomaly(True):
            lib.autograd.grad(y.sum(), x)

    report = _under_anomaly(run)
    return {"outcome": report["outcome"], "first_lines": report["first_lines"]}


@program("anomaly/check-nan-off-and-switches", {"a": Inp((2,), F32, "positive")})
def _(lib, inp):
    a = lib.tensor(inp["a"], requires_grad=True)
    zero = lib.tensor([0.0, 0.0])
    switches = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
    lib.autograd.set_detect_anomaly(True, check_nan=False)  # a plain call: stays on
    try:
        switches.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        report = _under_anomaly(lambda: (a / zero * 0).sum().backward())
    finally:
        lib.autograd.set_detect_anomaly(False)
    switches.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    b = lib.tensor(inp["a"], requires_grad=True)
    with_nan = _under_anomaly(lambda: _divide_under_detect_anomaly(lib, b, zero))
    return {"switches": switches, "report": report, "grad": a.grad, "with_nan": with_nan}


def _divide_under_detect_anomaly(lib, b, zero):
    with lib.autograd.detect_anomaly(check_nan=True):
        c = b / zero * 0
        c.sum().backward()


errors(
    "narrow-refusals",
    lambda lib, t: t["x"].sum().narrow(0, 0, 1),
    lambda lib, t: lib.tensor(1.0).narrow(5, 0, 1),
    lambda lib, t: t["x"].narrow(1, 0, 1),
    lambda lib, t: t["x"].narrow(0, 5, -1),
    lambda lib, t: t["x"].narrow(0, 4, 0),
    lambda lib, t: t["x"].narrow(0, -4, 1),
    lambda lib, t: t["x"].narrow(0, -3, 4),
    lambda lib, t: t["x"].narrow(0, 2, 2),
    lambda lib, t: t["x"].narrow(0, -1, 1),
    lambda lib, t: t["x"].narrow(0, 3, 0),
)


errors(
    "where-shapes-that-do-not-broadcast",
    lambda lib, t: lib.where(lib.ones(2, 3) > 0, lib.ones(3), lib.ones(4)),
    lambda lib, t: lib.where(lib.ones(4) > 0, lib.ones(2, 3), 1.0),
    lambda lib, t: lib.where(lib.ones(4) > 0, 1.0, lib.ones(2, 3)),
    lambda lib, t: lib.where(lib.ones(0, 0, 1) > 0, lib.ones(0, 0, 1), lib.ones(0, 3, 1)),
    lambda lib, t: lib.where(t["x"] > 0, t["x"], lib.ones(2, 1)),
)
errors(
    "gather-and-index_select-positions-outside",
    lambda lib, t: t["m"].gather(0, lib.tensor([[-1, 0]])),
    lambda lib, t: t["m"].gather(1, lib.tensor([[2, 0]])),
    lambda lib, t: t["m"].gather(0, lib.tensor([[0, 1, 0]])),
    lambda lib, t: t["m"].gather(1, lib.tensor([[1], [0]])),
    lambda lib, t: t["m"].index_select(0, lib.tensor([-1])),
    lambda lib, t: t["m"].index_select(0, lib.tensor([3])),
    lambda lib, t: t["m"].index_select(1, lib.tensor([0, 7])),
    lambda lib, t: t["m"].reshape(1, 3, 2).index_select(2, lib.tensor([2])),
    lambda lib, t: t["m"].reshape(1, 3, 2).index_select(1, lib.tensor([-1])),
    inputs={"m": Inp((3, 2), F32)},
)
errors(
    "cat-zero-dimensional-and-empty",
    lambda lib, t: lib.cat([lib.tensor(1.0), t["x"]]),
    lambda lib, t: lib.cat([t["x"], lib.tensor(1.0)]),
    lambda lib, t: lib.cat([lib.ones(0, 2), lib.tensor([]), lib.ones(2, 3)]),
    lambda lib, t: lib.cat([lib.tensor([]), lib.ones(2, 3)], 2),
    lambda lib, t: lib.cat([lib.tensor([]), lib.tensor([])], 1),
    lambda lib, t: lib.cat([lib.tensor([]), lib.ones(2, dtype=lib.int64)]),
)
errors(
    "nll-and-cross-entropy-target-that-does-not-fit",
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.zeros(2, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.zeros(0, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.tensor(0)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.zeros(3, 1, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"][0], lib.zeros(2, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"][0], lib.zeros(1, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"].sum(), lib.tensor(0)),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.zeros(2)),
    lambda lib, t: lib.nn.functional.cross_entropy(t["s"], lib.zeros(2, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.cross_entropy(t["s"][0], lib.zeros(2, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.cross_entropy(t["s"], lib.zeros(3, 2, dtype=lib.int64)),
    lambda lib, t: lib.nn.functional.cross_entropy(t["s"].sum(), lib.tensor(0)),
    lambda lib, t: lib.nn.functional.cross_entropy(
        t["s"], lib.zeros(4, dtype=lib.int64), label_smoothing=0.1
    ),
    lambda lib, t: lib.nn.CrossEntropyLoss()(t["s"], lib.zeros(1, dtype=lib.int64)),
    inputs={"s": Inp((3, 2), F32)},
)


errors(
    "factory-functions-without-a-size",
    lambda lib, t: lib.ones(),
    lambda lib, t: lib.zeros(),
    lambda lib, t: lib.empty(),
    lambda lib, t: lib.rand(),
    lambda lib, t: lib.randn(),
    lambda lib, t: [lib.ones(()), lib.zeros([]), lib.ones(size=()), lib.empty(size=(2,)).shape],
)
errors(
    "dims-of-zero-dimensional-and-permute",
    lambda lib, t: t["x"].sum().flatten(2, 1),
    lambda lib, t: t["x"].sum().flatten(-1, 0),
    lambda lib, t: t["x"].sum().softmax(2),
    lambda lib, t: t["x"].sum().log_softmax(1),
    lambda lib, t: t["x"].sum().softmax(-1),
    lambda lib, t: t["x"].sum().chunk(0),
    lambda lib, t: t["x"].reshape(1, 3).permute(0, 1, 2),
    lambda lib, t: t["x"].reshape(1, 3).permute(),
    lambda lib, t: t["x"].sum().permute(),
    lambda lib, t: t["x"].sum().permute(()),
    lambda lib, t: t["x"].reshape(1, 3).permute(1, 1),
)
errors(
    "linear-with-vectors-and-scalars",
    lambda lib, t: lib.nn.functional.linear(t["x"].sum(), t["x"].sum()),
    lambda lib, t: lib.nn.functional.linear(t["x"], t["x"].sum()),
    lambda lib, t: lib.nn.functional.linear(t["x"], t["x"], lib.tensor(1.0)),
    lambda lib, t: lib.nn.functional.linear(t["x"], t["x"]),
    lambda lib, t: lib.nn.functional.linear(lib.ones(2, 3), lib.ones(3), lib.tensor(1.0)),
)


errors(
    "argmax-argmin-amax-of-empty-or-bool",
    lambda lib, t: lib.ones(0, 3).argmax(-2),
    lambda lib, t: lib.ones(0, 3).argmax(1),
    lambda lib, t: lib.ones(3, 0).argmax(-1),
    lambda lib, t: lib.ones(0).argmin(),
    lambda lib, t: lib.ones(0, 2).argmin(0, keepdim=True),
    lambda lib, t: (t["x"] > 0).argmax(),
    lambda lib, t: (t["x"] > 0).argmin(0),
    lambda lib, t: lib.ones(2, 0).amax(-1),
    lambda lib, t: lib.ones(2, 0).amin((0, -1)),
    lambda lib, t: lib.ones(0, 3).amax(),
    lambda lib, t: lib.ones(2, 2, 0).amin((0, 2, 1)),
    lambda lib, t: lib.ones(1, 2, 0).amax((2, 0), keepdim=True),
    lambda lib, t: [t["x"].argmax(), t["x"].argmin(0, keepdim=True)],
)
errors(
    "all-any-over-several-dims",
    lambda lib, t: (t["m"] > 0).all((0, 1)),
    lambda lib, t: (t["m"] > 0).any(dim=(0,), keepdim=True),
    lambda lib, t: (t["m"] > 0).all(()),
    lambda lib, t: t["m"].any((-1,)),
    lambda lib, t: lib.ones(2, 0).all(1),
    lambda lib, t: t["m"].all((0, 2)),
    lambda lib, t: [t["m"].sum().all(0), t["m"].sum().any(-1, keepdim=True)],
    lambda lib, t: t["m"].sum().all(1),
    inputs={"m": Inp((2, 3), F32)},
)
errors(
    "softmax-of-integers",
    lambda lib, t: lib.tensor([1, 2, 3]).softmax(0),
    lambda lib, t: lib.tensor([[1, 2], [3, 4]]).softmax(0),
    lambda lib, t: lib.tensor([[1, 2], [3, 4]]).log_softmax(-1),
    lambda lib, t: lib.nn.functional.softmax(lib.tensor([True, False]), dim=0),
    lambda lib, t: lib.tensor(3).log_softmax(0),
    lambda lib, t: lib.tensor([1, 2, 3]).softmax(0, dtype=lib.float32),
    lambda lib, t: lib.nn.functional.cross_entropy(lib.tensor([[1, 2]]), lib.tensor([0])),
)


@program("inplace-error-names-the-operand-pytorch-unpacks-first", {"x": Inp((3,), F64)})
def _(lib, inp):
    """When both saved operands of x * y, x / y, x @ y or x ** y were changed in place,
    the error names the one PyTorch unpacks first (y), with its shape."""
    out = {}
    products = {
        "mul": lambda p, q: p * q,
        "div": lambda p, q: p / q,
        "pow": lambda p, q: p.abs() ** q,
        "matmul": lambda p, q: p.reshape(1, 3) @ q.reshape(3, 1),
    }
    for name, product in products.items():
        leaf = lib.tensor(inp["x"], requires_grad=True)
        p, q = leaf.reshape(3, 1) * 1, leaf * 2  # (3, 1) and (3,)
        if name == "pow":
            p = leaf.reshape(3, 1).abs() + 1
        y = product(p, q)
        p.add_(1.0)
        q.add_(1.0)
        out[name] = attempt(lambda y=y: y.sum().backward())
    leaf = lib.tensor(inp["x"], dtype=lib.float64, requires_grad=True)
    shared = leaf.detach()
    shared.add_(0.5)
    quotient = shared.flatten() / leaf  # saves the flattened view and the leaf
    shared.add_(0.5)  # changes both (detach shares the version counter)
    out["view and leaf"] = attempt(lambda: quotient.sum().backward())
    return out


errors(
    "indexing-with-several-ellipses-and-mismatched-lists",
    lambda lib, t: t["m"][..., ..., ::2],
    lambda lib, t: t["m"][..., ..., 0],
    lambda lib, t: t["m"][..., ..., :],
    lambda lib, t: t["m"][..., None, ...],
    lambda lib, t: t["m"][0, ..., ...],
    lambda lib, t: t["m"][..., 1, ...],
    lambda lib, t: t["m"][0][..., ..., None],
    lambda lib, t: t["m"][..., ..., lib.tensor([1, 0])],
    lambda lib, t: t["m"][[0, 1], [0, 1, 0]],
    lambda lib, t: t["m"][[0, 1], []],
    lambda lib, t: t["m"].sum()[::-1],
    lambda lib, t: t["m"].sum()[::2],
    inputs={"m": Inp((2, 2), F32)},
)


errors(
    "rounding-frac-and-relu-of-bools-and-integers",
    lambda lib, t: lib.tensor([True, False]).floor(),
    lambda lib, t: lib.tensor([True, False]).ceil(),
    lambda lib, t: lib.tensor([True, False]).round(),
    lambda lib, t: lib.tensor([True, False]).trunc(),
    lambda lib, t: lib.tensor([True, False]).frac(),
    lambda lib, t: lib.tensor([3, -2]).frac(),
    lambda lib, t: lib.tensor([True, False]).relu(),
    lambda lib, t: lib.relu(lib.tensor(True)),
    lambda lib, t: [lib.tensor([3, -2]).floor(), lib.tensor([3, -2]).relu(), t["x"].frac()],
)


errors(
    "inplace-functions-of-integers-and-bools",
    lambda lib, t: lib.tensor([3, -2]).exp_(),
    lambda lib, t: lib.tensor([3, 2]).sqrt_(),
    lambda lib, t: lib.tensor([True, False]).sigmoid_(),
    lambda lib, t: lib.tensor([True, False]).neg_(),
    lambda lib, t: lib.tensor(True).neg_(),
    lambda lib, t: lib.tensor([True, False]).floor_(),
    lambda lib, t: lib.tensor([True, False]).relu_(),
    lambda lib, t: [
        lib.tensor([3, -2]).neg_(),
        lib.tensor([3, -2]).abs_(),
        lib.tensor([3, -2]).relu_(),
    ],
    lambda lib, t: lib.tensor([1, 2]).clamp_(min=lib.tensor([0.5, 1.0])),
    lambda lib, t: lib.tensor([1, 2]).clamp_(min=0.5),
    lambda lib, t: lib.tensor([True, False]).clamp_(lib.tensor(1)),
    lambda lib, t: lib.tensor([1.5, -2.0]).fmod_(lib.tensor([1.0, 1.5])),
    lambda lib, t: lib.tensor([1.5, -2.0]).floor_divide_(lib.tensor([1.0, 1.5])),
    lambda lib, t: lib.tensor([7, -7]).floor_divide_(2),
)


errors(
    "loss-arguments-that-do-not-fit",
    lambda lib, t: lib.nn.functional.cross_entropy(t["s"], lib.tensor([0, 1, 0]), reduction="x"),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.tensor([0, 1, 0]), reduction="avg"),
    lambda lib, t: lib.nn.CrossEntropyLoss(reduction="x")(t["s"], lib.tensor([0, 1, 0])),
    lambda lib, t: lib.nn.functional.cross_entropy(
        t["s"], lib.tensor([0, 1, 0]), weight=lib.ones(3)
    ),
    lambda lib, t: lib.nn.functional.nll_loss(t["s"], lib.tensor([0, 1, 0]), weight=lib.ones(2, 1)),
    lambda lib, t: lib.nn.functional.cross_entropy(
        t["s"], lib.tensor([0, 5, 0]), weight=lib.ones(3), label_smoothing=0.1
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy(
        t["s"].sigmoid(), lib.tensor([[0.0, 2.0], [1.0, 0.0], [0.5, 1.0]])
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy(
        t["s"].sigmoid(), lib.tensor([[0.0, -0.1], [1.0, 0.0], [0.5, 1.0]])
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(
        t["s"], lib.zeros(3, 2), pos_weight=lib.ones(3)
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(
        t["s"], lib.zeros(3, 2), pos_weight=lib.ones(3, 1, 1)
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(
        t["s"], lib.zeros(3, 2), weight=lib.ones(4)
    ),
    lambda lib, t: lib.nn.functional.binary_cross_entropy_with_logits(
        t["s"], lib.zeros(3, 2), weight=lib.ones(3, 1), pos_weight=lib.ones(2)
    ),
    inputs={"s": Inp((3, 2), F32)},
)


errors(
    "addcmul-and-hypot-of-integers",
    lambda lib, t: lib.addcmul(
        lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3]), value=0.5
    ),
    lambda lib, t: lib.addcmul(
        lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3]), value=2
    ),
    lambda lib, t: lib.addcmul(t["x"], lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3]), value=0.5),
    lambda lib, t: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([False])),
    lambda lib, t: lib.hypot(lib.tensor([1, 2]), lib.tensor([3, 4])),
    lambda lib, t: lib.hypot(lib.tensor([True]), lib.tensor([False])),
    lambda lib, t: lib.hypot(lib.tensor([1, 2]), lib.tensor([3.0, 4.0])),
    lambda lib, t: lib.atan2(lib.tensor([1, 2]), lib.tensor([3, 4])),
)


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_error_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_error_live(prog):
    H.check_against_live_torch(prog)
