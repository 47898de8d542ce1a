"""Shape, joining, indexing and counting functions against PyTorch: broadcasting
(``broadcast_to``, ``broadcast_tensors``, ``broadcast_shapes``, ``meshgrid``),
stacking (``hstack``, ``vstack``, ``dstack``, ``column_stack``), moving
dimensions, ``ravel``, ``unflatten``, ``atleast_nd``, ``tensor_split`` and its
h/v/d forms, ``fliplr``/``flipud``, ``diff`` and the triangle index lists.

Each program checks values, dtypes, the recorded graph, gradients, whether a
result is a view of its input (``_base``, versions, writes reaching the base),
printing and errors, as the harness records them.
"""

from __future__ import annotations

import zlib

import harness as H
import pytest
from harness import Inp, Program, attempt

PROGRAMS: list[Program] = []
H.import_torch_jvp_decompositions()  # (their first import warns: see there)
F32, F64 = "float32", "float64"


def _seed(pid: str) -> int:
    return zlib.crc32(pid.encode()) % 100_000


def register(pid: str, fn, inputs=None, **options) -> None:
    pid = "shape/" + pid
    PROGRAMS.append(Program(pid, fn, dict(inputs or {}), _seed(pid), **options))


def program(pid: str, inputs=None, **options):
    """Decorator: register ``fn(lib, inputs)`` as program ``shape/<pid>``."""

    def decorate(fn):
        register(pid, fn, inputs, **options)
        return fn

    return decorate


def op(pid: str, f, inputs: dict, grad=None, **options) -> None:
    """``y = f(lib, **leaves)``, then backward with a fixed random ``v`` per output."""
    if grad is None:
        grad = tuple(n for n, i in inputs.items() if i.dtype.startswith("float"))
    seed = _seed("shape/" + pid)

    def prog(lib, inp):
        t = H.leaves(lib, inp, grad)
        y = f(lib, **t)
        H.backward_outputs(lib, y, seed, "gradient")
        return {"y": y, **t}

    register(pid, prog, inputs, **options)


def view_facts(lib, make_view, base):
    """Is ``make_view(base)`` a view? Its ``_base``, and whether a write through
    the base reaches it and a write through it reaches the base (with versions)."""
    v = make_view(base)
    before = v.clone()
    base.mul_(2)
    seen = v.clone()
    write = attempt(lambda: v.add_(1))
    return {
        "before": before,
        "seen-after-base-write": seen,
        "base-after-view-write": base,
        "write": write if isinstance(write, H.Raised) else None,
        "is-view": v._base is base,
        "versions": [v._version, base._version],
    }


# ----------------------------------------------------------------------------- broadcasting

op(
    "broadcast_to",
    lambda lib, x: (
        lib.broadcast_to(x, (2, 3, 4)),
        x.broadcast_to((3, 4)),
        lib.broadcast_to(x, (-1, 4)),
    ),
    {"x": Inp((3, 1), F64)},
)
op(
    "broadcast_tensors",
    lambda lib, x, y, z: lib.broadcast_tensors(x, y, z),
    {"x": Inp((2, 1), F32), "y": Inp((3,), F32), "z": Inp((2, 3), F32)},
)
op(
    "meshgrid-ij",
    lambda lib, x, y: lib.meshgrid(x, y, indexing="ij"),
    {"x": Inp((3,), F64), "y": Inp((2,), F64)},
)
op(
    "meshgrid-xy",
    lambda lib, x, y, z: lib.meshgrid([x, y, z], indexing="xy"),
    {"x": Inp((3,), F64), "y": Inp((2,), F64), "z": Inp((4,), F64)},
)


@program("broadcast-views-and-errors")
def _(lib, inp):
    m = [[1.0, 2.0, 3.0]]
    out = {
        "broadcast_to": view_facts(lib, lambda b: lib.broadcast_to(b, (2, 3)), lib.tensor(m)),
        "broadcast_tensors": view_facts(
            lib, lambda b: lib.broadcast_tensors(b, lib.zeros(2, 1))[0], lib.tensor(m)
        ),
        "meshgrid": view_facts(
            lib, lambda b: lib.meshgrid(b[0], b[0], indexing="ij")[1], lib.tensor(m)
        ),
        "same-shape-is-itself": [
            t is s for t, s in zip(lib.broadcast_tensors(*[lib.ones(2)] * 2), [lib.ones(2)] * 2)
        ],
        "shapes": [
            lib.broadcast_shapes((2, 1), (3,)),
            lib.broadcast_shapes(2, (3, 1)),
            lib.broadcast_shapes(),
            lib.broadcast_shapes((0, 1), (4,)),
            lib.broadcast_shapes([5, 1, 3], (1, 4, 1)),
        ],
        "one": lib.broadcast_tensors(lib.ones(2)),
        "meshgrid-0d": lib.meshgrid(lib.tensor(1.0), lib.arange(3.0), indexing="ij"),
        "meshgrid-one": lib.meshgrid(lib.arange(3), indexing="xy"),
        "int": lib.broadcast_to(lib.tensor([1, 2]), (2, 2)),
    }
    errors = {
        "broadcast_to": lambda: lib.broadcast_to(lib.ones(3), (2, 4)),
        "broadcast_to-fewer-dims": lambda: lib.broadcast_to(lib.ones(2, 3), (3,)),
        "shapes": lambda: lib.broadcast_shapes((2, 3), (4,)),
        "shapes-later": lambda: lib.broadcast_shapes((1,), (2, 3), (1, 4)),
        "tensors": lambda: lib.broadcast_tensors(lib.ones(2, 3), lib.ones(4)),
        "meshgrid-indexing": lambda: lib.meshgrid(lib.ones(2), indexing="foo"),
        "meshgrid-dtypes": lambda: lib.meshgrid(lib.ones(2), lib.arange(2), indexing="ij"),
        "meshgrid-empty": lambda: lib.meshgrid(indexing="ij"),
    }
    out["errors"] = {name: attempt(f) for name, f in errors.items()}
    return out


@program("meshgrid-warns-without-indexing")
def _(lib, inp):
    lib.set_warn_always(True)  # PyTorch warns once per process; here every time
    try:
        caught = H.caught_warnings(lambda: lib.meshgrid(lib.arange(2.0), lib.arange(3.0)))
    finally:
        lib.set_warn_always(False)
    return {"warnings": caught}


# ----------------------------------------------------------------------------- stacking

op(
    "hstack-vstack-row_stack-2d",
    lambda lib, x, y: (lib.hstack([x, y]), lib.vstack((x, y)), lib.row_stack([y, x])),
    {"x": Inp((2, 3), F64), "y": Inp((2, 3), F64)},
)
op(
    "stacks-of-1d-and-0d",
    lambda lib, x, s: (
        lib.hstack([x, s, x]),
        lib.vstack([x, x * 2]),
        lib.dstack([x, x]),
        lib.column_stack([x, x, x]),
        lib.column_stack([s, s]),
    ),
    {"x": Inp((3,), F32), "s": Inp((), F32)},
)
op(
    "dstack-column_stack-2d-concatenate",
    lambda lib, x, y: (
        lib.dstack([x, y]),
        lib.column_stack([x, y[:, 0]]),
        lib.concatenate([x, y], 1),
        lib.concat((x, y)),
        lib.concatenate([x, y], dim=-1),
    ),
    {"x": Inp((2, 3), F32), "y": Inp((2, 3), F32)},
)


@program("stacks-mixed-dtypes-and-errors")
def _(lib, inp):
    ints, floats = lib.tensor([1, 2]), lib.tensor([0.5, 1.5], dtype=lib.float64)
    out = {
        "hstack": lib.hstack([ints, floats]),
        "vstack": lib.vstack([ints, floats]),
        "dstack-3d": lib.dstack([lib.ones(2, 2, 1), lib.zeros(2, 2, 2)]),
        "column_stack-0d": lib.column_stack([lib.tensor(1), lib.tensor(2)]),
    }
    errors = {
        "hstack-empty": lambda: lib.hstack([]),
        "vstack-empty": lambda: lib.vstack([]),
        "hstack-tensor": lambda: lib.hstack(lib.ones(2)),
        "vstack-sizes": lambda: lib.vstack([lib.ones(2), lib.ones(3)]),
        "column_stack-sizes": lambda: lib.column_stack([lib.ones(2, 2), lib.ones(3)]),
        "dstack-sizes": lambda: lib.dstack([lib.ones(2), lib.ones(3)]),
    }
    out["errors"] = {name: attempt(f) for name, f in errors.items()}
    return out


# ----------------------------------------------------------------------------- moving dimensions

op(
    "movedim-moveaxis",
    lambda lib, x: (
        lib.movedim(x, 0, -1),
        x.movedim((0, 1), (2, 0)),
        lib.moveaxis(x, [2], [0]),
        x.moveaxis(1, 1),
        lib.movedim(x, (), ()),
    ),
    {"x": Inp((2, 3, 4), F64)},
)
op(
    "swapaxes-swapdims-ravel-unflatten",
    lambda lib, x: (
        lib.swapaxes(x, 0, -1),
        x.swapdims(1, 2),
        x.swapaxes(0, 1).ravel(),
        lib.ravel(x),
        x.unflatten(2, (2, 2)),
        lib.unflatten(x, 1, (-1, 1)),
    ),
    {"x": Inp((2, 3, 4), F32)},
)


@program("moved-dims-are-views")
def _(lib, inp):
    def base():
        return lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    return {
        "movedim": view_facts(lib, lambda b: lib.movedim(b, 0, 1), base()),
        "swapaxes": view_facts(lib, lambda b: b.swapaxes(0, 1), base()),
        "swapdims": view_facts(lib, lambda b: lib.swapdims(b, 1, 0), base()),
        "ravel": view_facts(lib, lambda b: b.ravel(), base()),
        "ravel-of-transpose-copies": view_facts(lib, lambda b: b.t().ravel(), base()),
        "unflatten": view_facts(lib, lambda b: b.unflatten(1, (3, 1)), base()),
        "narrow": view_facts(lib, lambda b: lib.narrow(b, 1, 1, 2), base()),
        "select": view_facts(lib, lambda b: lib.select(b, 0, -1), base()),
        "atleast_3d": view_facts(lib, lambda b: lib.atleast_3d(b), base()),
    }


@program("movedim-unflatten-atleast-errors")
def _(lib, inp):
    x = lib.ones(2, 3)
    errors = {
        "movedim-counts": lambda: lib.movedim(x, (0, 1), (1,)),
        "movedim-repeated-source": lambda: lib.movedim(x, (0, 0), (1, 0)),
        "movedim-repeated-destination": lambda: lib.movedim(x, (0, 1), (1, 1)),
        "movedim-out-of-range": lambda: lib.movedim(x, 0, 2),
        "swapaxes-out-of-range": lambda: x.swapaxes(0, 3),
        "unflatten-product": lambda: x.unflatten(1, (2, 2)),
        "unflatten-empty": lambda: lib.unflatten(x, 0, ()),
        "unflatten-dim": lambda: x.unflatten(2, (1, 3)),
        "narrow-length": lambda: lib.narrow(x, 1, 2, 2),
        "select-index": lambda: lib.select(x, 1, 3),
    }
    return {name: attempt(f) for name, f in errors.items()}


op(
    "atleast_1d-2d-3d",
    lambda lib, s, v, m: (
        lib.atleast_1d(s),
        lib.atleast_1d(v),
        lib.atleast_2d(s, v),
        lib.atleast_2d([v, m]),
        lib.atleast_3d(s),
        lib.atleast_3d(v),
        lib.atleast_3d((m,)),
    ),
    {"s": Inp((), F64), "v": Inp((3,), F64), "m": Inp((2, 3), F64)},
)
op(
    "narrow-select-top-level",
    lambda lib, x: (lib.narrow(x, 0, 1, 2), lib.narrow(x, -1, -2, 1), lib.select(x, 1, -1)),
    {"x": Inp((3, 4), F32)},
)

# ----------------------------------------------------------------------------- tensor_split and friends

op(
    "tensor_split-sections",
    lambda lib, x: (*lib.tensor_split(x, 3), *x.tensor_split(2, dim=1), *x.tensor_split(5, 0)),
    {"x": Inp((4, 3), F64)},
)
op(
    "tensor_split-indices",
    lambda lib, x: (
        *x.tensor_split([1, 3], 1),
        *lib.tensor_split(x, (2, 1), dim=0),
        *x.tensor_split([-1, 9], 1),
        *x.tensor_split(lib.tensor([1]), 1),
        *x.tensor_split(lib.tensor(2), 0),
    ),
    {"x": Inp((3, 4), F64)},
)
op(
    "hsplit-vsplit-dsplit",
    lambda lib, x, v: (
        *x.hsplit(2),
        *lib.vsplit(x, [1]),
        *lib.dsplit(x.unsqueeze(-1).expand(2, 4, 2), 2),
        *v.hsplit([2]),
        *lib.hsplit(v, 3),
    ),
    {"x": Inp((2, 4), F32), "v": Inp((6,), F32)},
)


@program("tensor_split-views-and-errors")
def _(lib, inp):
    out = {
        "piece-is-view": view_facts(
            lib, lambda b: b.tensor_split(2, 1)[1], lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        ),
        "int": lib.arange(7).tensor_split(3),
    }
    x = lib.ones(2, 3)
    errors = {
        "zero-sections": lambda: x.tensor_split(0),
        "0d": lambda: lib.tensor(1.0).tensor_split(1),
        "2d-indices": lambda: x.tensor_split(lib.tensor([[1]])),
        "float-indices": lambda: x.tensor_split(lib.tensor([1.0])),
        "dim": lambda: x.tensor_split(2, 2),
        "hsplit-divisible": lambda: lib.ones(3).hsplit(2),
        "vsplit-divisible": lambda: x.vsplit(3),
        "vsplit-1d": lambda: lib.ones(3).vsplit(1),
        "dsplit-2d": lambda: x.dsplit(1),
        "hsplit-0d": lambda: lib.tensor(1.0).hsplit(1),
        "hsplit-zero": lambda: x.hsplit(0),
    }
    out["errors"] = {name: attempt(f) for name, f in errors.items()}
    return out


# ----------------------------------------------------------------------------- flips, diff, triangle indices

op(
    "fliplr-flipud",
    lambda lib, x, v: (lib.fliplr(x), x.flipud(), v.flipud(), lib.flipud(x)),
    {"x": Inp((2, 3), F64), "v": Inp((4,), F64)},
)
op(
    "diff",
    lambda lib, x: (
        lib.diff(x),
        x.diff(n=2, dim=0),
        x.diff(dim=0, n=3),
        x.diff(n=5),
        lib.diff(x, 2, 1),
    ),
    {"x": Inp((4, 5), F64)},
)
op(
    "diff-prepend-append",
    lambda lib, x, p, a: (
        lib.diff(x, prepend=p),
        x.diff(append=a, dim=1),
        x.diff(n=2, prepend=p, append=a),
        x.diff(0),
    ),
    {"x": Inp((2, 3), F32), "p": Inp((2, 1), F32), "a": Inp((2, 2), F32)},
)


@program("diff-ints-bools-errors")
def _(lib, inp):
    out = {
        "int": lib.tensor([1, 5, 2, 2]).diff(),
        "int-n2": lib.diff(lib.tensor([[1, 4, 9, 16]]), n=2),
        "bool": lib.tensor([True, False, False, True]).diff(),
        "bool-n2": lib.tensor([True, False, True]).diff(n=2),
        "fliplr-int": lib.tensor([[1, 2], [3, 4]]).fliplr(),
        "fliplr-is-copy": view_facts(lib, lambda b: b.fliplr(), lib.tensor([[1.0, 2.0]])),
    }
    errors = {
        "negative-n": lambda: lib.ones(3).diff(n=-1),
        "0d": lambda: lib.tensor(1.0).diff(),
        "prepend-ndim": lambda: lib.ones(2, 3).diff(prepend=lib.ones(3)),
        "append-size": lambda: lib.ones(2, 3).diff(append=lib.ones(3, 1)),
        "dim": lambda: lib.ones(2).diff(dim=1),
        "fliplr-1d": lambda: lib.ones(3).fliplr(),
        "flipud-0d": lambda: lib.tensor(1.0).flipud(),
    }
    out["errors"] = {name: attempt(f) for name, f in errors.items()}
    return out


@program("tril_indices-triu_indices")
def _(lib, inp):
    out = {
        "tril": lib.tril_indices(3, 3),
        "tril-below": lib.tril_indices(3, 4, -1),
        "tril-wide-offset": lib.tril_indices(3, 2, 5),
        "triu": lib.triu_indices(3, 3),
        "triu-above": lib.triu_indices(4, 3, 1),
        "triu-far": lib.triu_indices(3, 2, -5),
        "empty": lib.triu_indices(0, 3),
        "index-a-matrix": lib.arange(12.0).reshape(3, 4)[tuple(lib.triu_indices(3, 4, 1))],
    }
    errors = {
        "negative-row": lambda: lib.tril_indices(-1, 3),
        "negative-col": lambda: lib.triu_indices(2, -3),
        "float": lambda: lib.tril_indices(3, 3, dtype=lib.float32),
    }
    out["errors"] = {name: attempt(f) for name, f in errors.items()}
    return out


# ----------------------------------------------------------------------------- repeat, tile, repeat_interleave, rot90


def op2(pid: str, f, inputs: dict, **options) -> None:
    """Second derivative: g = ∂(Σ v⊙f(x))/∂x recorded with create_graph, then
    Σ g² is differentiated again into x.grad (the graph of g is not compared)."""
    seed = _seed("shape/" + pid)

    def prog(lib, inp):
        x = lib.tensor(inp["x"], requires_grad=True)
        y = f(lib, x)
        v = H.weight_like(lib, y, seed)
        (g,) = lib.autograd.grad((y * y * v).sum(), x, create_graph=True)
        (g * g).sum().backward()
        return {"y": y, "g": g, "x": x}

    register(pid, prog, inputs, ignore_graph=True, **options)


op(
    "repeat-tile",
    lambda lib, x: (
        x.repeat(2, 1),
        x.repeat((1, 3)),
        x.repeat([2, 1, 2]),
        x.repeat(2, 0),
        lib.tile(x, (2,)),
        x.tile(2, 1, 1),
        x.tile(()),
    ),
    {"x": Inp((2, 3), F64)},
)
op(
    "repeat_interleave",
    lambda lib, x: (
        x.repeat_interleave(2),
        lib.repeat_interleave(x, 3, dim=0),
        x.repeat_interleave(2, dim=-1),
        x.repeat_interleave(lib.tensor([1, 0, 2]), dim=1),
        x.repeat_interleave(lib.tensor(2), dim=0),
        x.repeat_interleave(lib.tensor([3])),
        x[0, 0].repeat_interleave(3),
    ),
    {"x": Inp((2, 3), F32)},
)
op(
    "rot90",
    lambda lib, x: (
        lib.rot90(x),
        x.rot90(2),
        x.rot90(-1, [1, 2]),
        x.rot90(5, (2, 0)),
        x.rot90(0),
        x.rot90(1, [-1, -3]),
    ),
    {"x": Inp((2, 3, 4), F64)},
)
op2("repeat-double-backward", lambda lib, x: x.repeat(2, 3), {"x": Inp((2, 2), F64)})
op2(
    "repeat_interleave-double-backward",
    lambda lib, x: x.repeat_interleave(lib.tensor([2, 1]), 0),
    {"x": Inp((2, 2), F64)},
)
op2("rot90-double-backward", lambda lib, x: x.rot90(3), {"x": Inp((2, 3), F64)})


@program("repeat-rot90-errors")
def _(lib, inp):
    x = lib.ones(2, 3)
    errors = {
        "repeat-fewer": lambda: x.repeat(2),
        "repeat-negative": lambda: x.repeat(-1, 2),
        "repeat-nothing": lambda: x.repeat(),
        "interleave-negative": lambda: x.repeat_interleave(-1),
        "interleave-counts": lambda: x.repeat_interleave(lib.tensor([1, 2])),
        "interleave-negative-counts": lambda: x.repeat_interleave(lib.tensor([1, -2]), dim=0),
        "interleave-2d-counts": lambda: x.repeat_interleave(lib.tensor([[1, 2]]), dim=0),
        "interleave-float-counts": lambda: lib.repeat_interleave(lib.tensor([1.0, 2.0])),
        "rot90-one-dim": lambda: x.rot90(1, [0]),
        "rot90-same-dims": lambda: x.rot90(1, [0, 0]),
        "rot90-dims-apart": lambda: x.rot90(1, [0, -2]),
        "rot90-out-of-range": lambda: x.rot90(1, [0, 2]),
        "rot90-1d": lambda: lib.ones(3).rot90(),
    }
    return {
        "positions": lib.repeat_interleave(lib.tensor([1, 2, 0, 3])),
        "int": lib.tensor([[1, 2]]).repeat(2, 2),
        "bool": lib.tensor([True, False]).repeat_interleave(2),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


# ----------------------------------------------------------------------------- take, take_along_dim, masked_select

op(
    "take",
    lambda lib, x: (
        x.take(lib.tensor([0, 5, 5, -1])),
        lib.take(x, lib.tensor([[2, 3], [0, 2]])),
        x.take(lib.tensor(4)),
    ),
    {"x": Inp((2, 3), F64)},
)
op(
    "take_along_dim",
    lambda lib, x: (
        lib.take_along_dim(x, lib.tensor([[0], [2]]), dim=1),
        x.take_along_dim(lib.tensor([[1, 0, 1]]), 0),
        lib.take_along_dim(x, lib.tensor([5, 0, 0])),
        x.take_along_dim(x.argsort(dim=1), dim=1),
        lib.take_along_dim(x[:, :1], lib.tensor([[0, 0, 0]]), dim=0),
    ),
    {"x": Inp((2, 3), F32)},
)
op(
    "masked_select",
    lambda lib, x, w: (
        x.masked_select(x > 0),
        lib.masked_select(x, lib.tensor([True, False, True])),
        w.masked_select(lib.tensor([[True], [False]])),
        lib.masked_select(w, lib.tensor([[True, False, True], [False, True, True]])),
    ),
    {"x": Inp((2, 3), F64), "w": Inp((3,), F64)},
)
op2("take-double-backward", lambda lib, x: x.take(lib.tensor([1, 1, 3])), {"x": Inp((2, 2), F64)})
op2(
    "masked_select-double-backward",
    lambda lib, x: x.masked_select(lib.tensor([[True, False], [True, True]])),
    {"x": Inp((2, 2), F64)},
)


@program("take-masked_select-errors")
def _(lib, inp):
    x = lib.ones(2, 3)
    errors = {
        "take-out-of-range": lambda: x.take(lib.tensor([6])),
        "take-negative-out-of-range": lambda: x.take(lib.tensor([-7])),
        "take-float-index": lambda: x.take(lib.tensor([1.0])),
        "along-broadcast": lambda: lib.take_along_dim(x, lib.tensor([[0, 1]]), dim=0),
        "along-ndim": lambda: lib.take_along_dim(x, lib.tensor([0, 1]), dim=1),
        "along-float": lambda: lib.take_along_dim(x, lib.tensor([[0.0]]), dim=1),
        "masked-int-mask": lambda: x.masked_select(lib.tensor([1, 0, 1])),
        "masked-shapes": lambda: x.masked_select(lib.tensor([True, False])),
    }
    return {
        "int": lib.tensor([[1, 2], [3, 4]]).take(lib.tensor([3, 0])),
        "empty": x.masked_select(x < 0),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


# ----------------------------------------------------------------------------- index_add, index_copy

INDEX_INPUTS = {"x": Inp((4, 3), F64), "s": Inp((3, 3), F64)}
op(
    "index_add",
    lambda lib, x, s: (
        x.index_add(0, lib.tensor([0, 2, 0]), s),
        lib.index_add(x, 1, lib.tensor([2, 2, 1]), s[:2].t().t().expand(4, 3), alpha=-2),
        x.index_add(-1, lib.tensor([1]), s[:1, :1].expand(4, 1), alpha=0.5),
    ),
    INDEX_INPUTS,
)
op(
    "index_copy",
    lambda lib, x, s: (
        x.index_copy(0, lib.tensor([3, 1, 0]), s),
        lib.index_copy(x, 1, lib.tensor([2, 0]), s[:, :2].repeat(2, 1)[:4]),
        x[0].index_copy(0, lib.tensor(1), s[0, 0]),
    ),
    INDEX_INPUTS,
)
op(
    "index_add_-index_copy_-in-place",
    lambda lib, x, s: (
        (x * 1).index_add_(0, lib.tensor([1, 1, 3]), s, alpha=3),
        (x * 1).index_copy_(0, lib.tensor([2, 0, 1]), s),
    ),
    INDEX_INPUTS,
)
op2(
    "index_add-double-backward",
    lambda lib, x: x.index_add(0, lib.tensor([1, 1]), x * x, alpha=2),
    {"x": Inp((2, 2), F64)},
)
op2(
    "index_copy-double-backward",
    lambda lib, x: x.index_copy(1, lib.tensor([1]), x[:, :1] ** 3),
    {"x": Inp((2, 2), F64)},
)


@program("indexing-forward-mode", {"x": Inp((2, 3), F64), "t": Inp((2, 3), F64)})
def _(lib, inp):
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        x = fwad.make_dual(lib.tensor(inp["x"]), lib.tensor(inp["t"]))
        outputs = {
            "repeat": x.repeat(2, 1),
            "repeat_interleave": x.repeat_interleave(2, dim=1),
            "rot90": x.rot90(),
            "take": x.take(lib.tensor([4, 0])),
            "take_along_dim": x.take_along_dim(lib.tensor([[1], [0]]), 1),
            "masked_select": x.masked_select(lib.tensor([True, False, True])),
            "index_add": x.index_add(1, lib.tensor([0, 0]), x[:, :2] * 2),
            "index_copy": x.index_copy(0, lib.tensor([1]), x[:1].exp()),
            "diff": x.diff(),
            "hstack": lib.hstack([x, x]),
        }
        return {name: list(fwad.unpack_dual(y)) for name, y in outputs.items()}


@program("index_add-index_copy-ints-and-errors")
def _(lib, inp):
    x, s = lib.zeros(3, 2), lib.ones(2, 2)
    i = lib.tensor([0, 2])
    errors = {
        "add-float-index": lambda: x.index_add(0, lib.tensor([0.0, 2.0]), s),
        "add-2d-index": lambda: x.index_add(0, i.view(2, 1), s),
        "add-source-shape": lambda: x.index_add(0, i, lib.ones(2, 3)),
        "add-count": lambda: x.index_add(0, i, lib.ones(3, 2)),
        "add-out-of-bounds": lambda: x.index_add(0, lib.tensor([0, 3]), s),
        "add-negative": lambda: x.index_add(0, lib.tensor([-1]), lib.ones(1, 2)),
        "add-dtype": lambda: x.index_add(0, i, lib.ones(2, 2, dtype=lib.float64)),
        "add-dim": lambda: x.index_add(2, i, s),
        "add-0d-source": lambda: lib.zeros(3).index_add(0, lib.tensor([1]), lib.tensor(5.0)),
        "copy-float-index": lambda: x.index_copy(0, lib.tensor([0.0, 2.0]), s),
        "copy-2d-index": lambda: x.index_copy(0, i.view(2, 1), s),
        "copy-slice-shape": lambda: x.index_copy(0, i, lib.ones(2, 3)),
        "copy-count": lambda: x.index_copy(0, i, lib.ones(3, 2)),
        "copy-out-of-bounds": lambda: x.index_copy(0, lib.tensor([0, 3]), s),
        "copy-ndim": lambda: x.index_copy(0, i, lib.ones(2, 2, 1)),
        "copy-dtype": lambda: x.index_copy(0, i, lib.ones(2, 2, dtype=lib.float64)),
        "copy_-leaf": lambda: lib.zeros(2, requires_grad=True).index_copy_(
            0, lib.tensor([0]), lib.ones(1)
        ),
    }
    return {
        "int": lib.zeros(3, dtype=lib.int64).index_add(
            0, lib.tensor([1, 1]), lib.tensor([5, 6]), alpha=2
        ),
        "0d-self": lib.zeros(()).index_add(0, lib.tensor([0]), lib.tensor(5.0)),
        "copy-repeated-index": x.index_copy(
            0, lib.tensor([1, 1]), lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        ),
        "copy-0d": lib.zeros(3).index_copy_(0, lib.tensor([1]), lib.tensor(5.0)),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


# ----------------------------------------------------------------------------- unique, bincount, bucketize, searchsorted


@program("unique", {"x": Inp((3, 4), F32, "halves")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    rows = lib.tensor([[1, 2], [1, 2], [0, 5], [1, 0]])
    nan = float("nan")
    values = x.unique()
    return {
        "values": values,
        "backward": attempt(lambda: values.sum().backward()),
        "all": lib.unique(x, return_inverse=True, return_counts=True),
        "unsorted": x.unique(sorted=False, return_counts=True),
        "inverse-rebuilds": lib.equal(values[x.unique(return_inverse=True)[1]], x.detach()),
        "dim0": lib.unique(rows, dim=0, return_inverse=True, return_counts=True),
        "dim1": rows.unique(dim=1, return_counts=True),
        "dim-grad_fn": lib.unique(x, dim=1),
        "bool": lib.tensor([True, False, True]).unique(return_counts=True),
        "0d": lib.unique(lib.tensor(2.0), return_inverse=True),
        "nan": lib.unique(
            lib.tensor([1.0, nan, nan, 1.0]), return_inverse=True, return_counts=True
        ),
        "empty": lib.unique(lib.zeros(0), return_counts=True),
        "dim-out-of-range": attempt(lambda: rows.unique(dim=2)),
    }


@program("unique_consecutive", {"x": Inp((6,), F64, "ties")})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    runs = lib.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    values = x.unique_consecutive()
    return {
        "values": values,
        "backward": attempt(lambda: values.sum().backward()),
        "runs": lib.unique_consecutive(runs, return_inverse=True, return_counts=True),
        "2d-flat": lib.tensor([[1, 1], [1, 2]]).unique_consecutive(return_inverse=True),
        "dim0": lib.unique_consecutive(
            lib.tensor([[1, 1], [1, 1], [2, 2], [1, 1]]),
            dim=0,
            return_inverse=True,
            return_counts=True,
        ),
        "dim1": lib.tensor([[1, 1, 2], [3, 3, 3]]).unique_consecutive(dim=1, return_counts=True),
    }


@program("bincount")
def _(lib, inp):
    i = lib.tensor([0, 2, 2, 5, 1])
    w = lib.tensor([0.5, 1.0, 2.0, 4.0, 8.0], requires_grad=True)
    weighted = i.bincount(w)
    errors = {
        "negative": lambda: lib.tensor([-1, 2]).bincount(),
        "2d": lambda: lib.tensor([[1, 2]]).bincount(),
        "float": lambda: lib.tensor([1.0, 2.0]).bincount(),
        "bool": lambda: lib.tensor([True, False, True]).bincount(),
        "minlength": lambda: i.bincount(minlength=-1),
        "weights-length": lambda: i.bincount(weights=lib.ones(2)),
        "backward": lambda: weighted.sum().backward(),
    }
    return {
        "counts": lib.bincount(i),
        "minlength": i.bincount(minlength=8),
        "weighted": weighted,
        "float64-weights": lib.bincount(i, lib.ones(5, dtype=lib.float64), 3),
        "int-weights": i.bincount(weights=lib.tensor([1, 2, 3, 4, 5])),
        "empty": lib.tensor([], dtype=lib.int64).bincount(),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


@program("bucketize-searchsorted", {"x": Inp((2, 3), F32)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    edges = lib.tensor([-1.0, 0.0, 0.5, 1.0])
    ints = lib.tensor([1, 3, 5, 7])
    rows = lib.tensor([[1, 3, 5], [2, 4, 6]])
    errors = {
        "bucketize-2d-boundaries": lambda: lib.bucketize(lib.ones(1), lib.ones(1, 2)),
        "searchsorted-side": lambda: lib.searchsorted(ints, lib.tensor([3]), side="middle"),
        "searchsorted-opposites": lambda: lib.searchsorted(ints, 3, right=True, side="left"),
        "searchsorted-leading-dims": lambda: lib.searchsorted(rows[:1], lib.tensor([[3], [4]])),
    }
    return {
        "bucketize": lib.bucketize(x, edges),
        "bucketize-right": lib.bucketize(lib.tensor([[1, 5], [3, 9]]), ints, right=True),
        "bucketize-left-ties": lib.bucketize(lib.tensor([1, 5, 0, 9]), ints),
        "bucketize-number": lib.bucketize(3.5, ints),
        "searchsorted": lib.searchsorted(edges, x),
        "searchsorted-rows": lib.searchsorted(rows, lib.tensor([[3, 6], [1, 9]])),
        "searchsorted-right": lib.searchsorted(ints, lib.tensor([[3, 6], [1, 9]]), right=True),
        "searchsorted-side-right": lib.searchsorted(ints, lib.tensor([7, 0]), side="right"),
        "searchsorted-number": lib.searchsorted(ints, 5),
        "searchsorted-same-side": lib.searchsorted(ints, 5, right=True, side="right"),
        "searchsorted-sorter": lib.searchsorted(
            lib.tensor([5, 1, 3]), lib.tensor([3, 4]), sorter=lib.tensor([1, 2, 0])
        ),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


# ----------------------------------------------------------------------------- cartesian_prod, combinations

op(
    "cartesian_prod",
    lambda lib, a, b, c: (lib.cartesian_prod(a, b), lib.cartesian_prod(a, b, c)),
    {"a": Inp((3,), F64), "b": Inp((2,), F64), "c": Inp((2,), F64)},
)
op(
    "combinations",
    lambda lib, a: (
        lib.combinations(a),
        lib.combinations(a, 3),
        lib.combinations(a, r=2, with_replacement=True),
        lib.combinations(a, 1),
        lib.combinations(a, 5),
    ),
    {"a": Inp((4,), F32)},
)


@program("cartesian_prod-combinations-edges")
def _(lib, inp):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    errors = {
        "prod-2d": lambda: lib.cartesian_prod(lib.ones(2, 2)),
        "prod-dtypes": lambda: lib.cartesian_prod(a, lib.tensor([1, 2])),
        "prod-none": lambda: lib.cartesian_prod(),
        "combinations-2d": lambda: lib.combinations(lib.ones(2, 2)),
        "combinations-negative": lambda: lib.combinations(a, -1),
    }
    return {
        "prod-one-is-itself": lib.cartesian_prod(a) is a,
        "prod-ints": lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([3])),
        "combinations-0": lib.combinations(a, 0),
        "combinations-ints": lib.combinations(lib.tensor([4, 5, 6]), with_replacement=True),
        "errors": {name: attempt(f) for name, f in errors.items()},
    }


# ----------------------------------------------------------------------------- random draws, rng state, dtype rules


@program("bernoulli", {"p": Inp((4, 5), F32, "unit"), "q": Inp((7,), F64, "unit")})
def _(lib, inp):
    lib.manual_seed(0)
    p = lib.tensor(inp["p"], requires_grad=True)
    q = lib.tensor(inp["q"])
    sample = lib.bernoulli(p)
    (sample * 3).sum().backward()
    y = p * 1
    y.bernoulli_(0.25)
    z = p * 1
    z.bernoulli_(q[:5])
    w = lib.tensor(inp["q"], requires_grad=True) * 2
    w.bernoulli_(q.clamp(0, 1))
    return {
        "sample": sample,
        "p": p,
        "float64": lib.bernoulli(q),
        "method": q.bernoulli(),
        "number-p": lib.bernoulli(q, 0.7),
        "number-p-graph": lib.bernoulli(p, 0.5),
        "in-place-number": y,
        "in-place-tensor": z,
        "in-place-of-ints": lib.zeros(6, dtype=lib.int64).bernoulli_(0.5),
        "in-place-default": lib.zeros(2, 3).bernoulli_(),
        "w": w,
        "generator": lib.bernoulli(q, generator=lib.Generator().manual_seed(3)),
        "after": lib.rand(2),
    }


@program("bernoulli-errors")
def _(lib, inp):
    x = lib.tensor([0.2, 0.8], requires_grad=True)
    errors = {
        "p-above-1": lambda: lib.bernoulli(lib.tensor([1.5])),
        "p-negative": lambda: lib.bernoulli(lib.tensor([0.5, -0.1])),
        "ints": lambda: lib.bernoulli(lib.tensor([1, 0])),
        "number-p": lambda: lib.zeros(2).bernoulli_(1.5),
        "tensor-p-shape": lambda: lib.zeros(3).bernoulli_(lib.tensor([0.5, 0.5])),
        "leaf": lambda: x.bernoulli_(),
        "number-p-backward": lambda: lib.bernoulli(x, 0.5).sum().backward(),
    }
    return {name: attempt(f) for name, f in errors.items()}


@program("multinomial", {"w": Inp((3, 5), F32, "positive"), "v": Inp((6,), F64, "positive")})
def _(lib, inp):
    lib.manual_seed(1)
    w, v = lib.tensor(inp["w"]), lib.tensor(inp["v"])
    return {
        "with-replacement": lib.multinomial(v, 10, replacement=True),
        "rows-with-replacement": w.multinomial(4, True),
        "without": lib.multinomial(v, 4),
        "all-without": v.multinomial(6),
        "rows-without": lib.multinomial(w, 3),
        "one": lib.multinomial(w, 1),
        "one-with-replacement": v.multinomial(1, replacement=True),
        "zero-weights-never-drawn": lib.multinomial(lib.tensor([0.0, 1.0, 0.0, 2.0]), 8, True),
        "after": lib.rand(2),
    }


@program("multinomial-errors")
def _(lib, inp):
    p = lib.tensor([0.2, 0.3, 0.5])
    errors = {
        "too-many": lambda: lib.multinomial(p, 4),
        "zero": lambda: lib.multinomial(p, 0),
        "3d": lambda: lib.multinomial(lib.ones(2, 2, 2), 1),
        "ints": lambda: lib.multinomial(lib.tensor([1, 2]), 1),
        "negative": lambda: lib.multinomial(lib.tensor([0.5, -0.5]), 1),
        "nan": lambda: lib.multinomial(lib.tensor([0.5, float("nan")]), 1),
        "all-zero": lambda: lib.multinomial(lib.zeros(3), 1),
    }
    return {name: attempt(f) for name, f in errors.items()}


@program("randint_like-and-rng-state")
def _(lib, inp):
    lib.manual_seed(2)
    out = {
        "like-float": lib.randint_like(lib.zeros(2, 3), 10),
        "like-int": lib.randint_like(lib.zeros(4, dtype=lib.int64), 3, 9),
        "like-dtype": lib.randint_like(lib.zeros(3), 5, dtype=lib.float64),
    }
    state = lib.get_rng_state()
    first = [
        lib.rand(3),
        lib.randn(20),
        lib.randint(0, 5, (4,)),
        lib.bernoulli(lib.full((3,), 0.5)),
    ]
    lib.set_rng_state(state)
    again = [
        lib.rand(3),
        lib.randn(20),
        lib.randint(0, 5, (4,)),
        lib.bernoulli(lib.full((3,), 0.5)),
    ]
    lib.randn(1)  # leaves a cached normal in the generator ...
    cached = lib.get_rng_state()
    one = lib.randn(1)
    lib.set_rng_state(cached)  # ... which the state keeps
    out.update(
        {
            "state-size": list(state.shape),
            "same-again": [bool(lib.equal(a, b)) for a, b in zip(first, again)],
            "first": first,
            "cached-normal": [one, lib.randn(1)],
            "float-state": attempt(lambda: lib.set_rng_state(lib.zeros(5056))),
        }
    )
    return out


@program("poisson", {"r": Inp((4, 6), F64, "positive"), "s": Inp((30,), F32, "positive")})
def _(lib, inp):
    lib.manual_seed(3)
    r = lib.tensor(inp["r"], requires_grad=True)
    s = lib.tensor(inp["s"])
    small = lib.poisson(r)
    (small * 2).sum().backward()
    return {
        "small": small,
        "r": r,
        "large-rates": lib.poisson(s * 15),
        "very-large": lib.poisson(lib.tensor([100.0, 1000.0, 12345.5])),
        "zero-and-ten": lib.poisson(lib.tensor([0.0, 10.0, 9.99])),
        "after": lib.rand(2),
        "errors": {
            "negative": attempt(lambda: lib.poisson(lib.tensor([-1.0]))),
            "ints": attempt(lambda: lib.poisson(lib.tensor([1, 2]))),
        },
    }


@program("set_default_dtype-float64", {"x": Inp((3,), F64)})
def _(lib, inp):
    """Every creation path and promotion the default reaches, under float64 (and
    the default restored after: the programs after this one run under float32)."""
    lib.set_default_dtype(lib.float64)
    try:
        lib.manual_seed(0)
        i = lib.tensor([1, 2, 3])
        x = lib.tensor(inp["x"], requires_grad=True)
        y = (x * 2.5 + i / 2).sin().sum()
        y.backward()
        made = {
            "default": lib.get_default_dtype(),
            "tensor": [lib.tensor(1.5), lib.tensor([1, 2.0]), lib.tensor([1, 2]), lib.tensor(True)],
            "float32-kept": [lib.tensor([1.5], dtype=lib.float32), lib.ones(2, dtype=lib.float32)],
            "factories": [
                lib.ones(2),
                lib.zeros(1),
                lib.empty(0),
                lib.full((2,), 1.5),
                lib.full((1,), 2),
            ],
            "ranges": [
                lib.arange(3.0),
                lib.arange(3),
                lib.arange(0, 1, 0.25),
                lib.linspace(0, 1, 3),
            ],
            "more": [lib.logspace(0, 1, 2), lib.eye(2), lib.Tensor([1, 2]), lib.zeros_like(i)],
            "random": [lib.rand(2), lib.randn(3), lib.randn(17)[-2:], lib.normal(0.0, 1.0, (2,))],
            "random-more": [lib.bernoulli(lib.full((3,), 0.5)), lib.randint_like(lib.ones(2), 5)],
            "promotion": [
                i * 1.5,
                i / 2,
                lib.tensor(7) / lib.tensor(2),
                i + lib.tensor(1.5),
                i**0.5,
            ],
            "float32-promotion": [
                lib.tensor([0.5], dtype=lib.float32) * 2.5,
                lib.tensor([0.5]).float() + i,
            ],
            "math-of-ints": [
                i.sin(),
                i.sqrt(),
                i.exp2(),
                i.reciprocal(),
                i.sigmoid(),
                i.clamp(0.5, 2.5),
            ],
            "mixed": [
                lib.where(i > 1, i, 0.5),
                i.maximum(lib.tensor(1.5)),
                lib.cat([i, lib.tensor([0.5])]),
            ],
            "nn": [lib.nn.Linear(2, 1).weight.dtype, i.float().dtype, lib.tensor([1.5]).item()],
        }
    finally:
        lib.set_default_dtype(lib.float32)
    return {
        **made,
        "x": x,
        "y": y,
        "after": [lib.tensor(1.5), lib.ones(1), i * 1.5, lib.tensor([1.0]) * x],
    }


@program("result_type-promote_types-can_cast")
def _(lib, inp):
    dtypes = [lib.bool, lib.int64, lib.float32, lib.float64]
    tensors = [
        lib.tensor([True]),
        lib.tensor([1]),
        lib.tensor([1.0]),
        lib.tensor([1.0], dtype=lib.float64),
    ]
    scalars = [lib.tensor(True), lib.tensor(1), lib.tensor(1.0), lib.tensor(1.0, dtype=lib.float64)]
    numbers = [True, 2, 1.5]
    return {
        "promote_types": [[lib.promote_types(a, b) for b in dtypes] for a in dtypes],
        "can_cast": [[lib.can_cast(a, b) for b in dtypes] for a in dtypes],
        "tensor-tensor": [[lib.result_type(a, b) for b in tensors] for a in tensors],
        "tensor-0d": [[lib.result_type(a, b) for b in scalars] for a in tensors],
        "0d-number": [[lib.result_type(a, n) for n in numbers] for a in scalars],
        "number-tensor": [[lib.result_type(n, a) for a in tensors] for n in numbers],
        "numbers": [[lib.result_type(m, n) for n in numbers] for m in numbers],
        "errors": {
            "promote-int": attempt(lambda: lib.promote_types(lib.float32, 1)),
            "can_cast-int": attempt(lambda: lib.can_cast(1, lib.float32)),
            "default-int": attempt(lambda: lib.set_default_dtype(lib.int64)),
            "default-not-a-dtype": attempt(lambda: lib.set_default_dtype("float64")),
        },
        "default-float32": [lib.set_default_dtype(lib.float32), lib.get_default_dtype()],
    }


def test_set_default_dtype_reaches_promotion_after_the_cache():
    """result_dtype caches its answer per pair of operand kinds: changing the
    default must not leave an int-times-float answer from before."""
    import autogradkit as torch

    assert (torch.tensor([1]) * 1.5).dtype is torch.float32  # fills the cache
    torch.set_default_dtype(torch.float64)
    try:
        assert (torch.tensor([1]) * 1.5).dtype is torch.float64
        assert torch.get_default_dtype() is torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    assert (torch.tensor([1]) * 1.5).dtype is torch.float32
    assert torch.get_default_dtype() is torch.float32


def test_rng_state_is_a_tensor_of_the_state_bytes():
    """PyTorch's state is a uint8 tensor; the kit's holds the same 5056 bytes as
    int64 values, and refuses values that are not bytes or a wrong size."""
    import autogradkit as torch
    from autogradkit import random

    torch.manual_seed(7)
    state = torch.get_rng_state()
    assert state.dtype is torch.int64 and state.shape == (random.STATE_SIZE,)
    assert (state._data == random.get_rng_state()).all()
    with pytest.raises(TypeError, match="ByteTensor"):
        torch.set_rng_state(state + 256)
    with pytest.raises(RuntimeError, match="size 5056 but found the input RNG state size to be 3"):
        torch.set_rng_state(state[:3])


# ----------------------------------------------------------------------------- edges a probe against torch found


@program("edges-0d-and-argument-types")
def _(lib, inp):
    x = lib.tensor(2.0, requires_grad=True)
    moved, taken, picked = (
        lib.movedim(x, 0, 0),
        x.take(lib.tensor([0, 0])),
        x.masked_select(lib.tensor(True)),
    )
    (moved * 2 + taken.sum() + (picked * 3).sum()).backward()
    m = lib.arange(6.0).reshape(2, 3)
    return {
        "movedim-0d": moved,
        "movedim-0d-is-view": moved._base is x,
        "take-0d": taken,
        "masked_select-0d": picked,
        "masked_select-0d-mask": m.masked_select(lib.tensor(False)),
        "x": x,
        "tile-method-ints": [m.tile(2), m.tile(1, 2), m.tile((2, 1, 1))],
        "errors": {
            "broadcast_to-int": attempt(lambda: lib.broadcast_to(lib.ones(1), 5)),
            "broadcast_tensors-list": attempt(
                lambda: lib.broadcast_tensors([lib.ones(2), lib.ones(2)])
            ),
            "broadcast_shapes-negative": attempt(lambda: lib.broadcast_shapes((2, -1))),
            "tile-int": attempt(lambda: lib.tile(m, 2)),
        },
    }


@program("permute-of-0d-differentiated-twice", {"x": Inp((), F64)})
def _(lib, inp):
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.permute(x, ()) * x**2
    (g,) = lib.autograd.grad(y, x, create_graph=True)
    g.backward()
    return {
        "y": y,
        "g": g,
        "x": x,
        "permute-empty": lib.permute(x, ()),
        "no-dims": attempt(lambda: x.permute()),
    }


# ----------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_shape_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_shape_live(prog):
    H.check_against_live_torch(prog)
