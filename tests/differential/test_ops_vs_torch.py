"""Every operation of autogradkit's API, forward and backward, against PyTorch.

Each program builds leaf tensors from seeded NumPy inputs, applies one operation
(several shapes, float32 and float64), then runs backward -- either
``y.backward(v)`` with a fixed random ``v`` or ``(y * w).sum().backward()`` --
and returns the output and the leaves. The harness compares values, dtypes,
shapes, flags, ``.grad`` of the leaves, the whole ``grad_fn``/``next_functions``
graph, errors, warnings and reprs (see ``harness.py``).

``test_*_golden`` compares with PyTorch's records in ``tests/golden/differential.json``
(no PyTorch needed); ``test_*_live`` runs PyTorch now (marked ``torch``).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import harness as H
import pytest
from harness import Inp, Program

PROGRAMS: list[Program] = []

F32, F64 = "float32", "float64"
FLOATS = (F32, F64)


def _seed(pid: str) -> int:
    return zlib.crc32(pid.encode()) % 100_000


def register(pid: str, fn, inputs=None, **options) -> None:
    pid = "ops/" + pid
    PROGRAMS.append(Program(pid, fn, dict(inputs or {}), _seed(pid), **options))


def op(pid: str, f, inputs: dict, grad=None, how: str | None = None, extra=None, **options) -> None:
    """A forward+backward program: ``y = f(lib, **leaves)``; backward from ``y``.

    ``grad`` names the inputs that require grad (default: every float input);
    ``how`` is ``"gradient"`` (``y.backward(v)``) or ``"sum"`` (``(y*w).sum().backward()``),
    alternating by default; ``extra(lib, y, leaves)`` may add entries to the record.
    """
    if grad is None:
        grad = tuple(n for n, i in inputs.items() if i.dtype.startswith("float"))
    seed = _seed("ops/" + pid)
    if how is None:
        how = "gradient" if seed % 2 else "sum"

    def prog(lib, inp):
        t = H.leaves(lib, inp, grad)
        y = f(lib, **t)
        total = H.backward_outputs(lib, y, seed, how)
        record = {"y": y, **t}
        if total is not None:
            record["total"] = total
        if extra is not None:
            record.update(extra(lib, y, t))
        return record

    register(pid, prog, inputs, **options)


def shape_id(shape) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


# ----------------------------------------------------------------------------- unary pointwise

UNARY = {
    # name: (function, input kind)
    "exp": (lambda lib, x: lib.exp(x), "normal"),
    "exp_method": (lambda lib, x: x.exp(), "normal"),
    "log": (lambda lib, x: lib.log(x), "positive"),
    "log_method": (lambda lib, x: x.log(), "positive"),
    "sqrt": (lambda lib, x: lib.sqrt(x), "positive"),
    "abs": (lambda lib, x: lib.abs(x), "nonzero"),
    "abs_builtin": (lambda lib, x: abs(x), "nonzero"),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), "normal"),
    "sigmoid_method": (lambda lib, x: x.sigmoid(), "normal"),
    "tanh": (lambda lib, x: lib.tanh(x), "normal"),
    "relu": (lambda lib, x: lib.relu(x), "nonzero"),
    "relu_F": (lambda lib, x: lib.nn.functional.relu(x), "nonzero"),
    "neg": (lambda lib, x: -x, "normal"),
    "neg_fn": (lambda lib, x: lib.neg(x), "normal"),
    "clone": (lambda lib, x: x.clone(), "normal"),
    "clone_fn": (lambda lib, x: lib.clone(x), "normal"),
    "detach": (lambda lib, x: x.detach(), "normal"),
    "to_float64": (lambda lib, x: x.to(lib.float64), "normal"),
    "to_float32": (lambda lib, x: x.to(lib.float32), "normal"),
    "to_dtype_kw": (lambda lib, x: x.to(dtype=lib.float64), "normal"),
    "double": (lambda lib, x: x.double(), "normal"),
    "float": (lambda lib, x: x.float(), "normal"),
    "to_int64": (lambda lib, x: x.to(lib.int64), "halves"),
    "exp_log_chain": (lambda lib, x: lib.log(lib.exp(x) + 1) * lib.tanh(x), "normal"),
}

# Function/method/alias spellings of the same operation get one configuration;
# the operations themselves get every shape and dtype.
SPELLINGS = {
    "exp_method",
    "log_method",
    "abs_builtin",
    "sigmoid_method",
    "relu_F",
    "neg_fn",
    "clone_fn",
    "to_dtype_kw",
    "double",
    "float",
    "to_float32",
    "add_fn",
    "sub_fn",
    "mul_fn",
    "div_fn",
    "pow_tensor_fn",
    "maximum_method",
}


def configs(name, shapes, dtypes=FLOATS):
    if name in SPELLINGS:
        return [(shapes[-1], dtypes[-1])]
    return [(shape, dt) for shape in shapes for dt in dtypes]


# One loop variable for the whole file: each table holds differently-shaped callables.
fn: Callable[..., Any]
for name, (fn, kind) in UNARY.items():
    for shape, dt in configs(name, ((), (4,), (2, 1, 3))):
        op(
            f"{name}-{shape_id(shape)}-{dt}",
            lambda lib, x, fn=fn: fn(lib, x),
            {"x": Inp(shape, dt, kind)},
        )

# Printing-friendly inputs: exact values, so reprs are compared.
for dt in FLOATS:
    op(f"relu-halves-{dt}", lambda lib, x: x.relu(), {"x": Inp((3, 4), dt, "halves")})
    op(f"neg-halves-{dt}", lambda lib, x: -x, {"x": Inp((2, 5), dt, "halves")})
    op(f"abs-halves-at-zero-{dt}", lambda lib, x: x.abs(), {"x": Inp((12,), dt, "halves")})
    op(
        f"sqrt-at-zero-{dt}",
        lambda lib, x: (x * 0).sqrt(),
        {"x": Inp((3,), dt, "positive")},
        how="gradient",
    )
    op(
        f"log-at-zero-and-negative-{dt}",
        lambda lib, x: lib.log(lib.stack([x[0] * 0, -x[1], x[2]])),
        {"x": Inp((3,), dt, "positive")},
        how="gradient",
    )
    op(f"exp-overflow-{dt}", lambda lib, x: (x * 1000).exp(), {"x": Inp((3,), dt, "positive")})
    op(
        f"sigmoid-extreme-{dt}",
        lambda lib, x: (x * 200 - 100).sigmoid(),
        {"x": Inp((5,), dt, "unit")},
    )
    op(f"tanh-extreme-{dt}", lambda lib, x: (x * 200 - 100).tanh(), {"x": Inp((5,), dt, "unit")})

# ----------------------------------------------------------------------------- binary ops

BINARY = {
    "add": lambda lib, x, y: x + y,
    "add_fn": lambda lib, x, y: lib.add(x, y),
    "sub": lambda lib, x, y: x - y,
    "sub_fn": lambda lib, x, y: lib.sub(x, y),
    "mul": lambda lib, x, y: x * y,
    "mul_fn": lambda lib, x, y: lib.mul(x, y),
    "div": lambda lib, x, y: x / y,
    "div_fn": lambda lib, x, y: lib.div(x, y),
    "pow_tensor": lambda lib, x, y: x**y,
    "pow_tensor_fn": lambda lib, x, y: lib.pow(x, y),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "maximum_method": lambda lib, x, y: x.maximum(y),
}
BINARY_KINDS = {
    "div": ("normal", "nonzero"),
    "div_fn": ("normal", "nonzero"),
    "pow_tensor": ("positive", "normal"),
    "pow_tensor_fn": ("positive", "normal"),
}
SHAPE_PAIRS = (
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((2, 1), (1, 3)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((4, 1, 3), (2, 1)),
)

for name, fn in BINARY.items():
    kx, ky = BINARY_KINDS.get(name, ("normal", "normal"))
    for (sx, sy), dt in configs(name, SHAPE_PAIRS):
        op(
            f"{name}-{shape_id(sx)}-{shape_id(sy)}-{dt}",
            lambda lib, x, y, fn=fn: fn(lib, x, y),
            {"x": Inp(sx, dt, kx), "y": Inp(sy, dt, ky)},
        )
    if name in SPELLINGS:
        continue
    # only the first operand requires grad: the other's next_functions entry is None
    op(
        f"{name}-only-x-grad",
        lambda lib, x, y, fn=fn: fn(lib, x, y),
        {"x": Inp((2, 3), F32, kx), "y": Inp((3,), F32, ky)},
        grad=("x",),
    )
    op(
        f"{name}-only-y-grad",
        lambda lib, x, y, fn=fn: fn(lib, x, y),
        {"x": Inp((2, 3), F64, kx), "y": Inp((2, 3), F64, ky)},
        grad=("y",),
    )
    op(
        f"{name}-same-tensor-twice",
        lambda lib, x, fn=fn: fn(lib, x, x),
        {"x": Inp((4,), F32, "positive")},
    )

for dt in FLOATS:
    op(
        f"maximum-ties-{dt}",
        lambda lib, x, y: lib.maximum(x, y),
        {"x": Inp((4, 5), dt, "ties"), "y": Inp((4, 5), dt, "ties")},
    )
    op(
        f"maximum-ties-broadcast-{dt}",
        lambda lib, x, y: lib.maximum(x, y),
        {"x": Inp((3, 4), dt, "ties"), "y": Inp((4,), dt, "ties")},
    )
    op(
        f"add-halves-{dt}",
        lambda lib, x, y: x + y * 2 - x * y,
        {"x": Inp((2, 3), dt, "halves"), "y": Inp((2, 3), dt, "halves")},
    )
    op(
        f"pow-tensor-zero-base-{dt}",
        lambda lib, x, y: (x * 0) ** y,
        {"x": Inp((4,), dt, "positive"), "y": Inp((4,), dt, "positive")},
        how="gradient",
    )
    op(
        f"add-alpha-{dt}",
        lambda lib, x, y: lib.add(x, y, alpha=2),
        {"x": Inp((2, 3), dt), "y": Inp((2, 3), dt)},
    )
    op(
        f"sub-alpha-{dt}",
        lambda lib, x, y: lib.sub(x, y, alpha=0.5),
        {"x": Inp((2, 3), dt), "y": Inp((3,), dt)},
    )
    op(f"add-method-alpha-scalar-{dt}", lambda lib, x: x.add(2, alpha=3), {"x": Inp((3,), dt)})

# ----------------------------------------------------------------------------- scalar operands

SCALAR_OPS = {
    "add_scalar": (lambda lib, x: x + 2, "normal"),
    "radd_scalar": (lambda lib, x: 2.5 + x, "normal"),
    "add_true": (lambda lib, x: x + True, "normal"),
    "sub_scalar": (lambda lib, x: x - 1.5, "normal"),
    "rsub": (lambda lib, x: 2 - x, "normal"),
    "rsub_float": (lambda lib, x: 0.5 - x, "normal"),
    "mul_scalar": (lambda lib, x: x * 3, "normal"),
    "rmul_scalar": (lambda lib, x: 3.5 * x, "normal"),
    "div_scalar": (lambda lib, x: x / 4, "normal"),
    "rdiv": (lambda lib, x: 2 / x, "nonzero"),
    "rdiv_float": (lambda lib, x: 1.5 / x, "nonzero"),
    "pow_2": (lambda lib, x: x**2, "normal"),
    "pow_3_method": (lambda lib, x: x.pow(3), "normal"),
    "pow_fn": (lambda lib, x: lib.pow(x, 2), "normal"),
    "pow_half": (lambda lib, x: x**0.5, "positive"),
    "pow_neg1": (lambda lib, x: x**-1, "nonzero"),
    "pow_0": (lambda lib, x: x**0, "normal"),
    "pow_1": (lambda lib, x: x**1, "normal"),
    "rpow": (lambda lib, x: 2**x, "normal"),
    "rpow_float": (lambda lib, x: 0.5**x, "normal"),
    "pow_scalar_base_fn": (lambda lib, x: lib.pow(3, x), "normal"),
    "pow_0d_tensor_exponent": (lambda lib, x: x ** lib.tensor(2.0), "normal"),
    "rpow_zero_base": (lambda lib, x: 0**x, "positive"),
}
for name, (fn, kind) in SCALAR_OPS.items():
    for shape in ((), (2, 3)):
        for dt in FLOATS:
            op(
                f"{name}-{shape_id(shape)}-{dt}",
                lambda lib, x, fn=fn: fn(lib, x),
                {"x": Inp(shape, dt, kind)},
            )

# ----------------------------------------------------------------------------- reductions

REDUCTIONS = {
    "sum_all": lambda lib, x: x.sum(),
    "sum_fn": lambda lib, x: lib.sum(x),
    "sum_dim0": lambda lib, x: x.sum(0),
    "sum_dim_neg": lambda lib, x: x.sum(-1),
    "sum_dim_kw": lambda lib, x: lib.sum(x, dim=1),
    "sum_tuple": lambda lib, x: x.sum((0, 2)),
    "sum_keepdim": lambda lib, x: x.sum(1, keepdim=True),
    "sum_tuple_keepdim": lambda lib, x: x.sum((0, -1), keepdim=True),
    "mean_all": lambda lib, x: x.mean(),
    "mean_fn": lambda lib, x: lib.mean(x),
    "mean_dim0": lambda lib, x: x.mean(0),
    "mean_dim_neg": lambda lib, x: x.mean(-1),
    "mean_tuple": lambda lib, x: x.mean((0, 2)),
    "mean_keepdim": lambda lib, x: x.mean(1, keepdim=True),
    "mean_tuple_keepdim": lambda lib, x: lib.mean(x, (1, 2), keepdim=True),
}
for name, fn in REDUCTIONS.items():
    for dt in FLOATS:
        op(f"{name}-2x3x4-{dt}", lambda lib, x, fn=fn: fn(lib, x), {"x": Inp((2, 3, 4), dt)})
        op(
            f"{name}-halves-{dt}",
            lambda lib, x, fn=fn: fn(lib, x),
            {"x": Inp((2, 3, 4), dt, "halves")},
        )
for dt in FLOATS:
    op(f"sum_all-vector-{dt}", lambda lib, x: x.sum(), {"x": Inp((5,), dt)})
    op(f"mean_all-scalar-{dt}", lambda lib, x: x.mean(), {"x": Inp((), dt)})
    op(f"sum_dim0-vector-{dt}", lambda lib, x: x.sum(0), {"x": Inp((5,), dt)})
    op(
        f"mean-keepdim-all-{dt}",
        lambda lib, x: x.mean((0, 1), keepdim=True),
        {"x": Inp((2, 3), dt)},
    )
op(
    "sum-int64",
    lambda lib, x: (x.sum(), x.sum(0), x.sum(dim=1, keepdim=True)),
    {"x": Inp((2, 3), "int64", "int")},
)
op("sum-bool", lambda lib, x: (x.sum(), x.sum(0)), {"x": Inp((2, 3), "bool", "bool")})

# ----------------------------------------------------------------------------- shapes

SHAPE_OPS = {
    # name: (function, input shape)
    "reshape": (lambda lib, x: x.reshape(3, -1), (2, 3, 2)),
    "reshape_tuple": (lambda lib, x: x.reshape((4, 3)), (2, 3, 2)),
    "reshape_fn": (lambda lib, x: lib.reshape(x, (-1,)), (2, 3)),
    "view": (lambda lib, x: x.view(-1), (2, 3)),
    "view_2d": (lambda lib, x: x.view(3, 4), (2, 6)),
    "flatten": (lambda lib, x: x.flatten(), (2, 3, 2)),
    "t": (lambda lib, x: x.t(), (2, 3)),
    "t_fn": (lambda lib, x: lib.t(x), (3, 2)),
    "t_1d": (lambda lib, x: x.t(), (4,)),
    "transpose": (lambda lib, x: x.transpose(0, 2), (2, 3, 4)),
    "transpose_neg": (lambda lib, x: lib.transpose(x, -1, -2), (2, 3, 4)),
    "T": (lambda lib, x: x.T, (2, 3)),
    "mT": (lambda lib, x: x.mT, (2, 3, 4)),
    "permute": (lambda lib, x: x.permute(2, 0, 1), (2, 3, 4)),
    "permute_tuple": (lambda lib, x: x.permute((1, 0, 2)), (2, 3, 4)),
    "permute_fn": (lambda lib, x: lib.permute(x, (0, 2, 1)), (2, 3, 4)),
    "unsqueeze0": (lambda lib, x: x.unsqueeze(0), (2, 3)),
    "unsqueeze_neg": (lambda lib, x: x.unsqueeze(-1), (2, 3)),
    "unsqueeze_fn": (lambda lib, x: lib.unsqueeze(x, 1), (3,)),
    "squeeze_all": (lambda lib, x: x.squeeze(), (1, 3, 1, 2)),
    "squeeze_dim": (lambda lib, x: x.squeeze(2), (1, 3, 1, 2)),
    "squeeze_dim_not_one": (lambda lib, x: x.squeeze(1), (1, 3, 1, 2)),
    "squeeze_fn": (lambda lib, x: lib.squeeze(x, 0), (1, 3)),
    "squeeze_scalar": (lambda lib, x: x.squeeze(), ()),
    "expand": (lambda lib, x: x.expand(2, 3, 4), (3, 1)),
    "expand_neg1": (lambda lib, x: x.expand(-1, 4), (3, 1)),
    "expand_new_dims": (lambda lib, x: x.expand(2, 2, 3), (3,)),
    "expand_as": (lambda lib, x: x.expand_as(lib.ones(4, 3)), (1, 3)),
    "view_as": (lambda lib, x: x.view_as(lib.ones(3, 2)), (2, 3)),
    "repeat": (lambda lib, x: x.repeat(2, 1, 3), (2, 3)),
    "repeat_same_dims": (lambda lib, x: x.repeat(3, 1), (2, 3)),
    "repeat_scalar": (lambda lib, x: x.repeat(4), ()),
}
for name, (fn, shape) in SHAPE_OPS.items():
    for dt in FLOATS:
        op(f"{name}-{dt}", lambda lib, x, fn=fn: fn(lib, x), {"x": Inp(shape, dt)})
# (x.T on non-2-d tensors is not here: PyTorch warns about it only once per process.)

# ----------------------------------------------------------------------------- indexing

INDEXING = {
    "int": lambda lib, m: m[1],
    "int_neg": lambda lib, m: m[-1],
    "int_1d": lambda lib, m: m[0][2],
    "slice": lambda lib, m: m[1:],
    "slice_step": lambda lib, m: m[::2],
    "slice_neg": lambda lib, m: m[-2:],
    "slice_empty": lambda lib, m: m[2:1],
    "slice_full": lambda lib, m: m[:],
    "slice_cols": lambda lib, m: m[:, 1:3],
    "none": lambda lib, m: m[None],
    "none_middle": lambda lib, m: m[:, None],
    "ellipsis": lambda lib, m: m[...],
    "ellipsis_int": lambda lib, m: m[..., 1],
    "ellipsis_none": lambda lib, m: m[..., None],
    "full_slices": lambda lib, m: m[:, :],
    "combined": lambda lib, m: m[0, 1:],
    "combined_neg": lambda lib, m: m[-1, :-1],
    "slice_none": lambda lib, m: m[1:3, None],
    "int_list": lambda lib, m: m[[0, 2]],
    "int_list_repeated": lambda lib, m: m[[0, 0, 2, 0]],
    "int_list_cols": lambda lib, m: m[:, [0, 3, 0]],
    "int_and_list": lambda lib, m: m[0, [0, 2]],
    "two_lists": lambda lib, m: m[[0, 1], [2, 3]],
    "long_tensor": lambda lib, m: m[lib.tensor([2, 0])],
    "bool_mask": lambda lib, m: m[m > 0],
    "bool_mask_rows": lambda lib, m: m[lib.tensor([True, False, True])],
    "bool_list": lambda lib, m: m[[True, False, True]],
}
for name, fn in INDEXING.items():
    for dt in FLOATS:
        op(f"index-{name}-{dt}", lambda lib, m, fn=fn: fn(lib, m), {"m": Inp((3, 4), dt)})
op("index-3d-combined", lambda lib, m: m[1, ..., 0:2], {"m": Inp((2, 3, 4), F64)})
op("index-1d-int", lambda lib, v: v[2], {"v": Inp((5,), F32)})
op("index-1d-neg-slice", lambda lib, v: v[-3:-1], {"v": Inp((5,), F32)})

# ----------------------------------------------------------------------------- stack / cat

for dt in FLOATS:
    op(
        f"stack-dim0-{dt}",
        lambda lib, a, b, c: lib.stack([a, b, c]),
        {"a": Inp((2, 3), dt), "b": Inp((2, 3), dt), "c": Inp((2, 3), dt)},
    )
    op(
        f"stack-dim1-{dt}",
        lambda lib, a, b: lib.stack((a, b), dim=1),
        {"a": Inp((2, 3), dt), "b": Inp((2, 3), dt)},
    )
    op(
        f"stack-dim-neg-{dt}",
        lambda lib, a, b: lib.stack([a, b], -1),
        {"a": Inp((4,), dt), "b": Inp((4,), dt)},
    )
    op(
        f"stack-scalars-{dt}",
        lambda lib, a, b: lib.stack([a, b, a]),
        {"a": Inp((), dt), "b": Inp((), dt)},
    )
    op(
        f"stack-one-no-grad-{dt}",
        lambda lib, a, b: lib.stack([a, b]),
        {"a": Inp((3,), dt), "b": Inp((3,), dt)},
        grad=("a",),
    )
    op(
        f"cat-dim0-{dt}",
        lambda lib, a, b: lib.cat([a, b]),
        {"a": Inp((2, 3), dt), "b": Inp((1, 3), dt)},
    )
    op(
        f"cat-dim1-{dt}",
        lambda lib, a, b, c: lib.cat((a, b, c), dim=1),
        {"a": Inp((2, 1), dt), "b": Inp((2, 3), dt), "c": Inp((2, 2), dt)},
    )
    op(
        f"cat-dim-neg-{dt}",
        lambda lib, a, b: lib.cat([a, b], -1),
        {"a": Inp((2, 2), dt), "b": Inp((2, 3), dt)},
    )
    op(
        f"cat-one-no-grad-{dt}",
        lambda lib, a, b: lib.cat([a, b]),
        {"a": Inp((3,), dt), "b": Inp((2,), dt)},
        grad=("b",),
    )
    op(
        f"concat-alias-{dt}",
        lambda lib, a, b: lib.concat([a, b]),
        {"a": Inp((3,), dt), "b": Inp((2,), dt)},
    )

# ----------------------------------------------------------------------------- clamp

CLAMPS = {
    "min": lambda lib, x: x.clamp(min=-0.5),
    "max": lambda lib, x: x.clamp(max=0.5),
    "both": lambda lib, x: lib.clamp(x, -0.5, 0.5),
    "both_kw": lambda lib, x: lib.clamp(x, min=-1, max=1),
    "clip": lambda lib, x: x.clip(-0.5, 0.5),
    "clamp_min": lambda lib, x: x.clamp_min(0.0),
}
for name, fn in CLAMPS.items():
    for dt in FLOATS:
        op(f"clamp-{name}-{dt}", lambda lib, x, fn=fn: fn(lib, x), {"x": Inp((3, 4), dt)})
        op(
            f"clamp-{name}-at-bounds-{dt}",
            lambda lib, x, fn=fn: fn(lib, x),
            {"x": Inp((3, 4), dt, "halves")},
        )
for dt in FLOATS:
    op(
        f"clamp-tensor-min-{dt}",
        lambda lib, x, lo: x.clamp(min=lo),
        {"x": Inp((3, 4), dt), "lo": Inp((4,), dt)},
    )
    op(
        f"clamp-tensor-max-{dt}",
        lambda lib, x, hi: lib.clamp(x, max=hi),
        {"x": Inp((3, 4), dt), "hi": Inp((3, 4), dt)},
    )
    op(
        f"clamp-tensor-both-{dt}",
        lambda lib, x, lo, hi: x.clamp(lo, hi + 1),
        {"x": Inp((3, 4), dt), "lo": Inp((3, 1), dt), "hi": Inp((4,), dt)},
    )
    op(
        f"clamp-tensor-bounds-no-grad-{dt}",
        lambda lib, x, lo: x.clamp(lo, None),
        {"x": Inp((5,), dt, "ties"), "lo": Inp((5,), dt, "ties")},
        grad=("x",),
    )

# ----------------------------------------------------------------------------- matmul

# Batched products are built as PyTorch builds them (autogradkit/ops/linalg.py):
# folded into one mm/mv when one operand has ≥3 dimensions and the other ≤2 (with
# the smaller on the left only if it requires grad, and then transposed), else
# broadcast with ExpandBackward0, reshaped, one BmmBackward0 and UnsafeViewBackward0.
# Which form PyTorch picks depends on requires_grad, so each shape runs with both
# operands, only a, and only b requiring grad; every graph is PyTorch's.
MATMUL = {
    # name: (function, shape a, shape b)
    "1d@1d": (lambda lib, a, b: lib.matmul(a, b), (4,), (4,)),
    "2d@1d": (lambda lib, a, b: lib.matmul(a, b), (3, 4), (4,)),
    "1d@2d": (lambda lib, a, b: lib.matmul(a, b), (4,), (4, 2)),
    "2d@2d": (lambda lib, a, b: lib.matmul(a, b), (3, 4), (4, 2)),
    "3d@2d": (lambda lib, a, b: a @ b, (2, 3, 4), (4, 5)),
    "4d@2d": (lambda lib, a, b: a @ b, (2, 2, 3, 4), (4, 5)),
    "operator_2d@2d": (lambda lib, a, b: a @ b, (2, 3), (3, 2)),
    "method": (lambda lib, a, b: a.matmul(b), (2, 3), (3,)),
    "3d@3d": (lambda lib, a, b: lib.matmul(a, b), (2, 3, 4), (2, 4, 5)),
    "3d@3d-batch-of-one": (lambda lib, a, b: lib.matmul(a, b), (1, 3, 4), (2, 4, 5)),
    "3d@3d-other-batch-of-one": (lambda lib, a, b: lib.matmul(a, b), (2, 3, 4), (1, 4, 5)),
    "broadcast_batch": (lambda lib, a, b: lib.matmul(a, b), (3, 1, 2, 4), (5, 4, 3)),
    "2d@3d": (lambda lib, a, b: a @ b, (3, 4), (2, 4, 5)),
    "2d@4d": (lambda lib, a, b: a @ b, (3, 4), (2, 1, 4, 5)),
    "1d@3d": (lambda lib, a, b: a @ b, (4,), (2, 4, 5)),
    "1d@4d": (lambda lib, a, b: a @ b, (4,), (3, 2, 4, 5)),
    "3d@1d": (lambda lib, a, b: a @ b, (2, 3, 4), (4,)),
    "4d@1d": (lambda lib, a, b: a @ b, (2, 1, 3, 4), (4,)),
    "4d@3d": (lambda lib, a, b: a @ b, (2, 1, 3, 4), (3, 4, 2)),
    "transposed-3d@2d": (lambda lib, a, b: a.mT @ b, (2, 4, 3), (4, 5)),
    "transposed-batch@3d": (lambda lib, a, b: a.transpose(0, 1) @ b, (3, 2, 4), (2, 4, 5)),
    "2d@transposed-3d": (lambda lib, a, b: a @ b.mT, (3, 4), (2, 5, 4)),
}
for name, (fn, sa, sb) in MATMUL.items():
    for dt in FLOATS:
        op(
            f"matmul-{name}-{dt}",
            lambda lib, a, b, fn=fn: fn(lib, a, b),
            {"a": Inp(sa, dt), "b": Inp(sb, dt)},
        )
    for only in ("a", "b"):
        op(
            f"matmul-{name}-only-{only}-grad",
            lambda lib, a, b, fn=fn: fn(lib, a, b),
            {"a": Inp(sa, F32), "b": Inp(sb, F32)},
            grad=(only,),
        )
    op(
        f"matmul-{name}-halves",
        lambda lib, a, b, fn=fn: fn(lib, a, b),
        {"a": Inp(sa, F32, "halves"), "b": Inp(sb, F32, "halves")},
    )
for dt in FLOATS:
    op(f"mm-{dt}", lambda lib, a, b: lib.mm(a, b), {"a": Inp((3, 4), dt), "b": Inp((4, 2), dt)})
    op(f"mm-method-{dt}", lambda lib, a, b: a.mm(b), {"a": Inp((2, 2), dt), "b": Inp((2, 3), dt)})
    op(f"mv-{dt}", lambda lib, a, b: lib.mv(a, b), {"a": Inp((3, 4), dt), "b": Inp((4,), dt)})
    op(
        f"bmm-{dt}",
        lambda lib, a, b: lib.bmm(a, b),
        {"a": Inp((2, 3, 4), dt), "b": Inp((2, 4, 5), dt)},
    )
    op(
        f"bmm-method-{dt}",
        lambda lib, a, b: a.bmm(b),
        {"a": Inp((1, 2, 2), dt), "b": Inp((1, 2, 3), dt)},
    )
    op(f"dot-{dt}", lambda lib, a, b: lib.dot(a, b), {"a": Inp((5,), dt), "b": Inp((5,), dt)})
op(
    "mm-only-b-grad",
    lambda lib, a, b: lib.mm(a, b),
    {"a": Inp((3, 4), F32), "b": Inp((4, 2), F32)},
    grad=("b",),
)
op(
    "matmul-tutorial-layer",
    lambda lib, x, w, b: lib.matmul(x, w) + b,
    {"x": Inp((5,), F32, "positive"), "w": Inp((5, 3), F32), "b": Inp((3,), F32)},
    grad=("w", "b"),
)

# ----------------------------------------------------------------------------- losses


def _bce_logits(**kw):
    return lambda lib, z, y, **t: lib.nn.functional.binary_cross_entropy_with_logits(
        z, y, **kw, **t
    )


for dt in FLOATS:
    for reduction in ("mean", "sum", "none"):
        op(
            f"bce_logits-{reduction}-{dt}",
            _bce_logits(reduction=reduction),
            {"z": Inp((4, 3), dt), "y": Inp((4, 3), dt, "binary")},
            grad=("z",),
        )
        op(
            f"bce_logits-weight-{reduction}-{dt}",
            lambda lib, z, y, w, r=reduction: lib.nn.functional.binary_cross_entropy_with_logits(
                z, y, weight=w, reduction=r
            ),
            {"z": Inp((4, 3), dt), "y": Inp((4, 3), dt, "unit"), "w": Inp((3,), dt, "positive")},
            grad=("z",),
        )
        op(
            f"bce_logits-pos_weight-{reduction}-{dt}",
            lambda lib, z, y, p, r=reduction: lib.nn.functional.binary_cross_entropy_with_logits(
                z, y, pos_weight=p, reduction=r
            ),
            {"z": Inp((4, 3), dt), "y": Inp((4, 3), dt, "binary"), "p": Inp((3,), dt, "positive")},
            grad=("z",),
        )
        # logits of ±30 and ±100 with targets 0 and 1: no overflow, no lost loss
        op(
            f"bce_logits-extreme-{reduction}-{dt}",
            _bce_logits(reduction=reduction),
            {"z": Inp((8,), dt, "extreme"), "y": Inp((8,), dt, "binary")},
            grad=("z",),
        )
        op(
            f"bce_logits-extreme-pos_weight-{reduction}-{dt}",
            lambda lib, z, y, p, r=reduction: lib.nn.functional.binary_cross_entropy_with_logits(
                z, y, pos_weight=p, reduction=r
            ),
            {
                "z": Inp((2, 4), dt, "extreme"),
                "y": Inp((2, 4), dt, "binary"),
                "p": Inp((4,), dt, "positive"),
            },
            grad=("z", "y"),
        )
    op(
        f"bce_logits-target-grad-{dt}",
        _bce_logits(),
        {"z": Inp((5,), dt), "y": Inp((5,), dt, "unit")},
        grad=("z", "y"),
    )
    op(
        f"bce_logits-all-weights-target-grad-{dt}",
        lambda lib, z, y, w, p: lib.nn.functional.binary_cross_entropy_with_logits(
            z, y, weight=w, pos_weight=p, reduction="sum"
        ),
        {
            "z": Inp((2, 3), dt),
            "y": Inp((2, 3), dt, "unit"),
            "w": Inp((2, 3), dt, "positive"),
            "p": Inp((3,), dt, "positive"),
        },
        grad=("z", "y"),
    )
    op(
        f"bce_logits-scalar-{dt}",
        _bce_logits(),
        {"z": Inp((), dt), "y": Inp((), dt, "binary")},
        grad=("z",),
    )
    for reduction in ("mean", "sum", "none"):
        op(
            f"bce-{reduction}-{dt}",
            lambda lib, p, y, r=reduction: lib.nn.functional.binary_cross_entropy(
                p, y, reduction=r
            ),
            {"p": Inp((4, 3), dt, "unit"), "y": Inp((4, 3), dt, "binary")},
            grad=("p",),
        )
        op(
            f"bce-weight-{reduction}-{dt}",
            lambda lib, p, y, w, r=reduction: lib.nn.functional.binary_cross_entropy(
                p, y, weight=w, reduction=r
            ),
            {
                "p": Inp((4, 3), dt, "unit"),
                "y": Inp((4, 3), dt, "unit"),
                "w": Inp((4, 3), dt, "positive"),
            },
            grad=("p",),
        )
        op(
            f"mse-{reduction}-{dt}",
            lambda lib, x, y, r=reduction: lib.nn.functional.mse_loss(x, y, reduction=r),
            {"x": Inp((4, 3), dt), "y": Inp((4, 3), dt)},
            grad=("x",),
        )
    op(
        f"bce-of-sigmoid-{dt}",
        lambda lib, z, y: lib.nn.functional.binary_cross_entropy(lib.sigmoid(z), y),
        {"z": Inp((5,), dt), "y": Inp((5,), dt, "binary")},
        grad=("z",),
    )
    op(
        f"bce-at-0-and-1-{dt}",
        lambda lib, p, y: lib.nn.functional.binary_cross_entropy(p, y, reduction="none"),
        {"p": Inp((6,), dt, "binary"), "y": Inp((6,), dt, "binary")},
        grad=("p",),
        how="gradient",
    )
    op(
        f"bce-target-grad-{dt}",
        lambda lib, p, y: lib.nn.functional.binary_cross_entropy(p, y),
        {"p": Inp((5,), dt, "unit"), "y": Inp((5,), dt, "unit")},
        grad=("p", "y"),
    )
    op(
        f"mse-target-grad-{dt}",
        lambda lib, x, y: lib.nn.functional.mse_loss(x, y),
        {"x": Inp((2, 3), dt), "y": Inp((2, 3), dt)},
        grad=("x", "y"),
    )
    op(
        f"mse-halves-{dt}",
        lambda lib, x, y: lib.nn.functional.mse_loss(x, y, reduction="sum"),
        {"x": Inp((2, 3), dt, "halves"), "y": Inp((2, 3), dt, "halves")},
        grad=("x", "y"),
    )

# ----------------------------------------------------------------------------- dtype promotion

PROMOTION: dict[str, tuple[Callable[..., Any], dict]] = {
    # name: (function, inputs)
    "int_times_float_scalar": (lambda lib, i: i * 1.5, {"i": Inp((3,), "int64", "int")}),
    "int_plus_int_scalar": (lambda lib, i: i + 2, {"i": Inp((3,), "int64", "int")}),
    "int_div_int": (
        lambda lib, i, j: i / (j * 0 + 3),
        {"i": Inp((4,), "int64", "int"), "j": Inp((4,), "int64", "int")},
    ),
    "int_div_scalar": (lambda lib, i: i / 2, {"i": Inp((4,), "int64", "int")}),
    "scalar_div_int": (lambda lib, i: 2 / (i * 0 + 4), {"i": Inp((4,), "int64", "int")}),
    "bool_plus_int": (
        lambda lib, b, i: b + i,
        {"b": Inp((4,), "bool", "bool"), "i": Inp((4,), "int64", "int")},
    ),
    "bool_plus_bool": (
        lambda lib, b, c: b + c,
        {"b": Inp((4,), "bool", "bool"), "c": Inp((4,), "bool", "bool")},
    ),
    "bool_times_float": (
        lambda lib, b, x: b * x,
        {"b": Inp((4,), "bool", "bool"), "x": Inp((4,), F64)},
    ),
    "bool_plus_scalar_int": (lambda lib, b: b + 1, {"b": Inp((3,), "bool", "bool")}),
    "bool_times_scalar_float": (lambda lib, b: b * 2.5, {"b": Inp((3,), "bool", "bool")}),
    "int_pow_int": (lambda lib, i: i**2, {"i": Inp((3,), "int64", "int")}),
    "int_pow_float": (lambda lib, i: (i * 0 + 4) ** 0.5, {"i": Inp((3,), "int64", "int")}),
    "f64_0d_times_f32_vector": (lambda lib, s, v: s * v, {"s": Inp((), F64), "v": Inp((3,), F32)}),
    "f32_vector_plus_f64_0d": (lambda lib, v, s: v + s, {"s": Inp((), F64), "v": Inp((3,), F32)}),
    "f32_plus_f64_vectors": (lambda lib, a, b: a + b, {"a": Inp((3,), F32), "b": Inp((3,), F64)}),
    "f32_times_f64_broadcast": (
        lambda lib, a, b: a * b,
        {"a": Inp((2, 3), F32), "b": Inp((3,), F64)},
    ),
    "int_vector_times_f64_0d": (
        lambda lib, i, s: i * s,
        {"i": Inp((3,), "int64", "int"), "s": Inp((), F64)},
    ),
    "int_vector_times_f32_vector": (
        lambda lib, i, x: i * x,
        {"i": Inp((3,), "int64", "int"), "x": Inp((3,), F32)},
    ),
    "f64_vector_times_float_scalar": (lambda lib, x: x * 1.5, {"x": Inp((3,), F64)}),
    "int_0d_plus_float_vector": (
        lambda lib, i, x: i + x,
        {"i": Inp((), "int64", "int"), "x": Inp((2,), F32)},
    ),
    "f64_0d_plus_f32_0d": (lambda lib, a, b: a + b, {"a": Inp((), F64), "b": Inp((), F32)}),
    "f32_maximum_f64": (
        lambda lib, a, b: lib.maximum(a, b),
        {"a": Inp((3,), F32), "b": Inp((3,), F64)},
    ),
    "int_exp": (lambda lib, i: lib.exp(i), {"i": Inp((3,), "int64", "int")}),
    "int_sigmoid": (lambda lib, i: i.sigmoid(), {"i": Inp((3,), "int64", "int")}),
    "int_neg": (lambda lib, i: -i, {"i": Inp((3,), "int64", "int")}),
    "int_rsub": (lambda lib, i: 1 - i, {"i": Inp((3,), "int64", "int")}),
    "int_to_float": (lambda lib, i: i.float() * 2, {"i": Inp((3,), "int64", "int")}),
    "int_matmul": (
        lambda lib, a, b: a @ b,
        {"a": Inp((2, 3), "int64", "int"), "b": Inp((3,), "int64", "int")},
    ),
    "comparisons": (
        lambda lib, x, y: (x > y, x >= 0, x == y, x != y, x < 0.5, x <= y),
        {"x": Inp((5,), F32, "ties"), "y": Inp((5,), F32, "ties")},
    ),
}
for name, (fn, inputs) in PROMOTION.items():
    op(f"promote-{name}", lambda lib, fn=fn, **t: fn(lib, **t), inputs)

# ----------------------------------------------------------------------------- from_numpy and composites


def _from_numpy_prog(lib, inp):
    a = lib.from_numpy(inp["a"])
    w = lib.from_numpy(inp["w"]).requires_grad_()
    y = (a * w).sum()
    y.backward()
    return {"a": a, "w": w, "y": y}


register("from_numpy-requires_grad_", _from_numpy_prog, {"a": Inp((3,), F64), "w": Inp((3,), F64)})

op(
    "composite-mlp",
    lambda lib, x, w1, w2: lib.sigmoid(lib.relu(x @ w1) @ w2).mean(),
    {"x": Inp((4, 3), F32), "w1": Inp((3, 5), F32), "w2": Inp((5, 2), F32)},
)
op("composite-diamond", lambda lib, x: (x * 2) * (x + 1) - x.tanh() / 2, {"x": Inp((3,), F64)})
op(
    "composite-reuse-index",
    lambda lib, x: x[0] * x[1] + x[0] * x[2] + x.sum(),
    {"x": Inp((3, 2), F32)},
)
op(
    "composite-softplus-like",
    lambda lib, x: lib.log(1 + lib.exp(-x.abs())) + x.relu(),
    {"x": Inp((6,), F64)},
)


# ----------------------------------------------------------------------------- elem26: predicates, nan-skipping summaries


def second(pid: str, f, inputs: dict) -> None:
    """Second derivative: g = ∂(Σ v⊙f(x))/∂x recorded with create_graph, then Σ g
    differentiated again into x.grad (values compared, not the recorded graph)."""
    seed = _seed("ops/" + pid)

    def prog(lib, inp):
        x = lib.tensor(inp["x"], requires_grad=True)
        y = f(lib, x)
        v = H.weight_like(lib, y, seed)
        (g,) = lib.autograd.grad((y * v).sum(), x, create_graph=True)
        g.sum().backward()
        return {"y": y, "g": g, "x": x}

    register(pid, prog, inputs, ignore_graph=True)


_NAN_INF = [1.0, -0.0, float("inf"), -float("inf"), float("nan"), -2.5]


def _predicates_prog(lib, inp):
    attempt = H.attempt
    f = lib.tensor(_NAN_INF, requires_grad=True)
    i, b = lib.tensor(inp["i"]), lib.tensor(inp["b"])
    record: dict = {}
    for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit"):
        record[name] = getattr(lib, name)(f)
        record[name + "-method-int"] = getattr(i, name)()
        record[name + "-bool"] = getattr(lib, name)(b)
        record[name + "-number"] = attempt(lambda name=name: getattr(lib, name)(1.0))
    record["isnan-float64-0d"] = lib.tensor(float("nan"), dtype=lib.float64).isnan()
    record["and"] = lib.logical_and(f, lib.tensor(1))
    record["or"] = f.logical_or(lib.zeros(6))
    record["xor-broadcast"] = lib.logical_xor(i.reshape(2, 3), b[:3])
    record["not"] = lib.logical_not(i)
    record["not-method-float"] = f.logical_not()
    record["and-number"] = attempt(lambda: lib.logical_and(f, 1))
    record["and-shapes"] = attempt(lambda: lib.logical_and(f, lib.ones(2)))
    x = lib.tensor([1.0, 0.0, 2.0])
    record["not_"] = (x.logical_not_(), x._version)
    record["and_-int-into-float"] = x.logical_and_(lib.tensor([1, 1, 0]))
    record["or_-bool"] = lib.tensor([True, False]).logical_or_(lib.tensor([False, False]))
    record["xor_"] = lib.tensor([3, 0]).logical_xor_(lib.tensor([1.0, 1.0]))
    record["xor_-number"] = attempt(lambda: x.logical_xor_(2))
    record["and_-shapes"] = attempt(lambda: lib.ones(2).logical_and_(lib.ones(3, 2)))
    # PyTorch records nothing for these in place, not even on a leaf requiring grad.
    leaf = lib.tensor([1.0, 0.0], requires_grad=True)
    y = leaf * 1
    record["not_-recorded-nothing"] = y.logical_not_()
    record["not_-leaf"] = leaf.logical_not_()
    return record


register(
    "predicates-and-logical",
    _predicates_prog,
    {"i": Inp((6,), "int64", "int"), "b": Inp((6,), "bool", "bool")},
)

for dt in FLOATS:
    op(f"nansum-{dt}", lambda lib, x: lib.nansum(x), {"x": Inp((2, 3), dt)})
    op(f"nanmean-dim-{dt}", lambda lib, x: lib.nanmean(x, 1), {"x": Inp((2, 3), dt)})
    op(
        f"aminmax-{dt}",
        lambda lib, x: tuple(lib.aminmax(x)),
        {"x": Inp((2, 3), dt, "ties")},
    )
op(
    "nansum-dim-keepdim-method",
    lambda lib, x: x.nansum(dim=(0, 2), keepdim=True),
    {"x": Inp((2, 3, 2), F64)},
)
op("nanmean-keepdim-method", lambda lib, x: x.nanmean(-1, keepdim=True), {"x": Inp((3, 2), F32)})
op("aminmax-dim-method", lambda lib, x: tuple(x.aminmax(dim=-1)), {"x": Inp((3, 4), F64, "ties")})
op(
    "aminmax-dim-keepdim-min-only",
    lambda lib, x: lib.aminmax(x, dim=0, keepdim=True).min,
    {"x": Inp((3, 4), F32, "ties")},
)
second("nansum-double-backward", lambda lib, x: lib.nansum(x * x), {"x": Inp((4,), F64)})
second("nanmean-double-backward", lambda lib, x: lib.nanmean(x * x, 0), {"x": Inp((4,), F64)})
second(
    "aminmax-double-backward", lambda lib, x: lib.aminmax(x * x).max, {"x": Inp((4,), F64, "ties")}
)


def _nan_summaries_prog(lib, inp):
    attempt = H.attempt
    nan = float("nan")
    x = lib.tensor([[1.0, nan, 3.0], [nan, nan, nan]], requires_grad=True)
    total = lib.nansum(x * 2)
    means = lib.nanmean(x, dim=1)
    (total + means.nansum()).backward()
    i = lib.tensor(inp["i"])
    low_high = lib.aminmax(x.detach()[0])
    return {
        "total": total,
        "means": means,
        "x": x,
        "nansum-int": lib.nansum(i),
        "nansum-int-dim": i.reshape(2, 3).nansum(1),
        "nansum-bool": lib.nansum(i > 0),
        "nansum-dtype": lib.nansum(i, dtype=lib.float64),
        "nansum-empty": lib.nansum(lib.zeros(0)),
        "nanmean-int": attempt(lambda: lib.nanmean(i)),
        "nanmean-all-nan": lib.nanmean(lib.tensor([nan, nan])),
        "nanmean-dtype": lib.nanmean(x.detach(), dtype=lib.float64),
        "count": lib.count_nonzero(i),
        "count-dim": lib.count_nonzero(i.reshape(2, 3), 0),
        "count-dims": i.reshape(2, 3).count_nonzero(dim=(0, 1)),
        "count-float-nan": lib.count_nonzero(x),
        "aminmax": low_high,
        "aminmax-nan": lib.aminmax(x[0]),
        "aminmax-unpack-names": (low_high.min, low_high.max),
        "aminmax-int": lib.aminmax(i),
        "aminmax-bool": lib.aminmax(i > 0),
        "aminmax-0d": lib.aminmax(lib.tensor(3.0), dim=0),
        "aminmax-keepdim-all": lib.aminmax(lib.ones(2, 3), keepdim=True),
        "aminmax-dim-tuple": attempt(lambda: lib.aminmax(x, dim=(0,))),
        "aminmax-empty": attempt(lambda: lib.aminmax(lib.zeros(0))),
        "aminmax-empty-dim": attempt(lambda: lib.aminmax(lib.zeros(2, 0), dim=1)),
        "aminmax-empty-other-dim": lib.aminmax(lib.zeros(0, 2), dim=1),
    }


register(
    "nansum-nanmean-count-nonzero-aminmax", _nan_summaries_prog, {"i": Inp((6,), "int64", "int")}
)


def _new_tensors_prog(lib, inp):
    attempt = H.attempt
    x = lib.tensor(inp["x"], requires_grad=True)
    i = lib.tensor(inp["i"])
    copy = H.caught_warnings(lambda: x.new_tensor(x))
    y = x.reshape_as(lib.ones(3, 2)) * x.type_as(lib.ones(1)).reshape(3, 2)
    y.sum().backward()
    return {
        "zeros": x.new_zeros(2, 3),
        "zeros-tuple": x.new_zeros((2,)),
        "zeros-size-kw": x.new_zeros(size=(2,)),
        "ones-dtype": x.new_ones([2], dtype=lib.int64),
        "ones-0d-int": i.new_ones(()),
        "full": x.new_full((2,), 3),
        "full-bool-into-float": lib.ones(2).new_full([2], True),
        "full-float-into-int": i.new_full((2,), 2.5),
        "full-requires-grad": x.new_full((2,), 3, requires_grad=True),
        "empty-shape-dtype": (x.new_empty(0).shape, x.new_empty(2, 3).dtype),
        "empty-bool": x.new_empty((2,), dtype=lib.bool).dtype,
        "tensor-list": x.new_tensor([1, 2]),
        "tensor-requires-grad": x.new_tensor(3, requires_grad=True),
        "tensor-int-from-float": i.new_tensor([1.5]),
        "tensor-bool-from-float": lib.tensor([True]).new_tensor([1.5]),
        "tensor-of-int-tensor": x.new_tensor(i),
        "tensor-of-tensor-warns": copy,
        "tensor-of-tensor": x.new_tensor(x),
        "type_as-int": x.type_as(i),
        "type_as-float64": i.type_as(x),
        "type_as-same-is-self": x.type_as(x) is x,
        "y": y,
        "x": x,
        "zeros-str": attempt(lambda: x.new_zeros(2, "a")),
        "full-int-size": attempt(lambda: x.new_full(2, 1.0)),
        "full-no-value": attempt(lambda: x.new_full((2,))),
        "zeros-int-requires-grad": attempt(lambda: i.new_zeros(2, requires_grad=True)),
        "zeros-unknown-keyword": attempt(lambda: x.new_zeros(2, foo=1)),
        "type_as-number": attempt(lambda: x.type_as(1.0)),
        "reshape_as-wrong-size": attempt(lambda: x.reshape_as(lib.ones(4))),
        "reshape_as-list": attempt(lambda: x.reshape_as([1, 2])),
    }


register(
    "new-tensors-type-as-reshape-as",
    _new_tensors_prog,
    {"x": Inp((2, 3), F64), "i": Inp((3,), "int64", "int")},
)


# ----------------------------------------------------------------------------- elem26: more elementary functions

MORE_ELEMENTARY = {
    # name: (function of (lib, x), input kind where it and its derivative are finite)
    "asinh": (lambda lib, x: lib.asinh(x), "normal"),
    "acosh": (lambda lib, x: lib.acosh(x + 1.5), "positive"),
    "atanh": (lambda lib, x: lib.atanh(x), "unit"),
    "erfc": (lambda lib, x: lib.erfc(x), "normal"),
    "logit": (lambda lib, x: lib.logit(x), "unit"),
    "logit_eps": (lambda lib, x: lib.logit(x, eps=0.25), "unit"),
    "sinc": (lambda lib, x: lib.sinc(x), "normal"),
    "deg2rad": (lambda lib, x: lib.deg2rad(x), "normal"),
    "rad2deg": (lambda lib, x: lib.rad2deg(x), "normal"),
    "fix": (lambda lib, x: lib.fix(x), "normal"),
}
MORE_ELEMENTARY_METHODS = {
    "asinh": lambda x: x.asinh() + x.arcsinh(),
    "acosh": lambda x: (x + 1.5).acosh() + (x + 1.5).arccosh(),
    "atanh": lambda x: x.atanh() + x.arctanh(),
    "erfc": lambda x: x.erfc(),
    "logit": lambda x: x.logit(),
    "logit_eps": lambda x: x.logit(0.25),
    "sinc": lambda x: x.sinc(),
    "deg2rad": lambda x: x.deg2rad(),
    "rad2deg": lambda x: x.rad2deg(),
    "fix": lambda x: x.fix(),
}
for name, (function, kind) in MORE_ELEMENTARY.items():
    for dt in FLOATS:
        op(f"{name}-{dt}", function, {"x": Inp((2, 3), dt, kind)})
    method = MORE_ELEMENTARY_METHODS[name]
    op(f"{name}-method-0d", lambda lib, x, method=method: method(x), {"x": Inp((), F64, kind)})
    if name != "fix":  # (its gradient is a constant)
        second(f"{name}-double-backward", function, {"x": Inp((4,), F64, kind)})


def _sgn_prog(lib, inp):
    # PyTorch's gradient of sgn is a "zero tensor" without storage, which prints as
    # zeros but cannot be read into NumPy: the records take clones.
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.sgn(x) * 2 + x.sgn()
    y.sum().backward()
    (g,) = lib.autograd.grad(x.sgn().sum(), x, create_graph=True)
    return {"y": y, "x.grad": x.grad.clone(), "g": g.clone(), "g-requires-grad": g.requires_grad}


register("sgn", _sgn_prog, {"x": Inp((2, 3), F32, "halves")})

for name in ("multiply", "subtract", "divide", "true_divide"):
    op(
        f"{name}-method-and-function",
        lambda lib, x, w, name=name: (getattr(x, name)(w), getattr(lib, name)(x, 2)),
        {"x": Inp((2, 3), F32), "w": Inp((3,), F32, "nonzero")},
    )
op(
    "negative-positive-methods",
    lambda lib, x: (x.negative(), x.positive() * 2),
    {"x": Inp((3,), F64)},
)


def _more_elementary_edges_prog(lib, inp):
    attempt = H.attempt
    nan, inf = float("nan"), float("inf")
    i, b = lib.tensor(inp["i"]), lib.tensor(inp["b"])
    record: dict = {}
    for name in ("asinh", "acosh", "atanh", "erfc", "logit", "sinc", "deg2rad", "rad2deg", "sgn"):
        record[name + "-int"] = getattr(lib, name)(i)
        record[name + "-bool"] = getattr(lib, name)(b)
    record["fix-int"] = lib.fix(i)
    record["fix-bool"] = attempt(lambda: lib.fix(b))
    record["positive-int-is-self"] = lib.positive(i) is i
    record["positive-bool"] = attempt(lambda: lib.positive(b))
    edges = {
        "atanh": [-1.0, 1.0, 1.5, -inf, nan, 0.0],
        "acosh": [1.0, 0.5, inf, nan, 2.0],
        "asinh": [inf, -inf, nan, 0.0, -0.0],
        "erfc": [inf, -inf, nan, 10.0, -10.0, 0.0, 30.0],
        "logit": [0.0, 1.0, -0.1, 1.1, 0.5, nan],
        "sinc": [0.0, 1.0, -2.0, inf, nan, 0.5],
        "sgn": [nan, -0.0, inf, -inf, 0.0],
    }
    for name, values in edges.items():
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = getattr(lib, name)(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        record[name + "-edges"] = y
        record[name + "-edges-grad"] = g.clone()  # (sgn's: a zero tensor in PyTorch)
        if g.requires_grad:  # (sgn's gradient is a constant)
            record[name + "-edges-second"] = lib.autograd.grad(g.sum(), x)
    for eps in (0.0, 0.1, 0.5):
        x = lib.tensor(edges["logit"], dtype=lib.float64, requires_grad=True)
        y = lib.logit(x, eps)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        record[f"logit-eps-{eps}"] = (y, g, lib.autograd.grad(g.sum(), x))
    return record


register(
    "more-elementary-edges-ints-bools",
    _more_elementary_edges_prog,
    {"i": Inp((6,), "int64", "int"), "b": Inp((4,), "bool", "bool")},
)


def _more_elementary_in_place_prog(lib, inp):
    attempt = H.attempt
    leaf = lib.tensor(inp["x"], requires_grad=True)
    y = leaf * 0.5
    steps = []
    for name, args in (
        ("erfc_", ()),
        ("logit_", ()),
        ("logit_", (0.2,)),
        ("sinc_", ()),
        ("deg2rad_", ()),
        ("rad2deg_", ()),
        ("negative_", ()),
        ("multiply_", (leaf,)),
        ("subtract_", (leaf,)),
        ("divide_", (leaf + 3,)),
        ("true_divide_", (2.0,)),
    ):
        out = getattr(y, name)(*args)
        steps.append((name, out is y, y.clone()))
    w = y * 1
    w.sgn_()  # (its gradient: a zero tensor in PyTorch, read through a clone below)
    v = y * 3
    v.fix_()
    (y.sum() + w.sum() + v.sum()).backward()
    leaf_grad = leaf.grad.clone()
    # PyTorch 2.13 records asinh_, acosh_ and atanh_ (AsinhBackward1, ...) but has
    # no derivative for them: backward refuses.
    recorded, refused = {}, {}
    for name, shift in (("asinh_", 0.0), ("arcsinh_", 0.0), ("atanh_", 0.0), ("arctanh_", 0.0)):
        z = leaf * 0.5 + shift
        recorded[name] = (getattr(z, name)(), z.grad_fn.name())
        refused[name] = attempt(lambda z=z: lib.autograd.grad(z.sum(), leaf))
    for name in ("acosh_", "arccosh_"):
        z = leaf + 1.5
        recorded[name] = (getattr(z, name)(), z.grad_fn.name())
        refused[name] = attempt(lambda z=z: lib.autograd.grad(z.sum(), leaf))
    i = lib.tensor([1, 2])
    with lib.no_grad():
        untracked = (leaf + 1.5).acosh_()
    return {
        "steps": steps,
        "y": y,
        "w": w,
        "v": v,
        "leaf": leaf.detach(),
        "leaf.grad": leaf_grad,
        "recorded": recorded,
        "refused": refused,
        "untracked": untracked,
        "plain-acosh_": lib.tensor([2.0]).acosh_(),
        "leaf-in-place": attempt(lambda: leaf.asinh_()),
        "int-in-place": attempt(lambda: i.clone().asinh_()),
        "int-sgn_": i.clone().sgn_(),
        "int-fix_": i.clone().fix_(),
    }


register("more-elementary-in-place", _more_elementary_in_place_prog, {"x": Inp((4,), F64, "unit")})


# ----------------------------------------------------------------------------- elem26: more functions of two tensors

MORE_BINARY = {
    "logaddexp": lambda lib, x, y: lib.logaddexp(x, y),
    "logaddexp2": lambda lib, x, y: x.logaddexp2(y),
    "fmax": lambda lib, x, y: lib.fmax(x, y),
    "fmin": lambda lib, x, y: x.fmin(y),
    "copysign": lambda lib, x, y: lib.copysign(x, y),
    "float_power": lambda lib, x, y: lib.float_power(x.abs() + 0.5, y),
}
for name, binary_function in MORE_BINARY.items():
    for dt in FLOATS:
        op(
            f"{name}-{dt}",
            binary_function,
            {"x": Inp((2, 3), dt, "nonzero"), "y": Inp((3,), dt, "halves")},
        )
    second(
        f"{name}-double-backward",
        lambda lib, x, f=binary_function: f(lib, x, x * x - 1),
        {"x": Inp((4,), F64, "nonzero")},
    )
op("copysign-number", lambda lib, x: x.copysign(-1.0), {"x": Inp((2, 3), F32, "nonzero")})
op(
    "float_power-number",
    lambda lib, x: (lib.float_power(x, 2), x.float_power(0.5)),
    {"x": Inp((3,), F32, "positive")},
)
op("float_power-number-base", lambda lib, x: lib.float_power(2, x), {"x": Inp((3,), F32)})
op(
    "fmax-fmin-ties",
    lambda lib, x, y: lib.fmax(x, y) + lib.fmin(x, y) * 3,
    {"x": Inp((6,), F64, "ties"), "y": Inp((6,), F64, "ties")},
)


def _more_binary_edges_prog(lib, inp):
    attempt = H.attempt
    nan, inf = float("nan"), float("inf")
    i = lib.tensor(inp["i"])
    x = lib.tensor([1.0, nan, 2.0, nan, 0.0, -0.0, inf, -inf], requires_grad=True)
    y = lib.tensor([nan, 1.0, 2.0, nan, -1.0, 1.0, inf, -inf], requires_grad=True)
    record: dict = {}
    for name in ("logaddexp", "logaddexp2", "fmax", "fmin", "copysign"):
        out = getattr(lib, name)(x, y)
        record[name] = (out, lib.autograd.grad(out.sum(), (x, y)))
        record[name + "-int"] = attempt(lambda name=name: getattr(lib, name)(i, i.flip(0)))
        record[name + "-number"] = attempt(lambda name=name: getattr(lib, name)(x, 2))
        record[name + "-number-first"] = attempt(lambda name=name: getattr(lib, name)(2, x))
        record[name + "-dtypes"] = attempt(lambda name=name: getattr(lib, name)(x, y.double()))
    big = lib.tensor([1000.0, -1000.0, 0.0], requires_grad=True)
    out = lib.logaddexp(big, -big)
    record["logaddexp-large"] = (out, lib.autograd.grad(out.sum(), big))
    h = lib.heaviside(x, lib.tensor([0.5]))
    record["heaviside"] = h
    record["heaviside-name"] = h.grad_fn.name()
    record["heaviside-backward"] = attempt(lambda: h.sum().backward())
    record["heaviside-int"] = lib.heaviside(i, lib.tensor([7]))
    record["heaviside-dtypes"] = attempt(lambda: lib.heaviside(x, lib.tensor([1], dtype=lib.int64)))
    record["heaviside-number"] = attempt(lambda: lib.heaviside(x, 0.5))
    record["heaviside-method-untracked"] = x.detach().heaviside(lib.tensor(1.0))
    record["float_power-int"] = lib.float_power(i, 2)
    record["float_power-int-int"] = lib.float_power(i, i.abs())
    record["copysign-int"] = lib.copysign(i, -1)
    z = x.detach() * 1
    record["copysign_"] = z.copysign_(-1.0)
    record["heaviside_"] = z.heaviside_(lib.tensor([0.5]))
    record["float_power_-float32"] = attempt(lambda: lib.ones(2).float_power_(2))
    record["float_power_-float64"] = lib.ones(2, dtype=lib.float64).mul(3).float_power_(2)
    leaf = lib.tensor([1.0, -2.0], requires_grad=True)
    w = leaf * 1
    w.copysign_(lib.tensor([-1.0, -1.0]))
    w.sum().backward()
    record["copysign_-recorded"] = (w, leaf.grad)
    return record


register("more-binary-edges-and-errors", _more_binary_edges_prog, {"i": Inp((4,), "int64", "int")})


# ----------------------------------------------------------------------------- elem26: lgamma and digamma

for name, kind in (("lgamma", "positive"), ("digamma", "positive")):
    for dt in FLOATS:
        op(
            f"{name}-{dt}",
            lambda lib, x, name=name: getattr(lib, name)(x * 3 - 2.2),
            {"x": Inp((2, 3), dt, kind)},
        )
    op(f"{name}-method-0d", lambda lib, x, name=name: getattr(x, name)(), {"x": Inp((), F64, kind)})
    second(
        f"{name}-double-backward",
        lambda lib, x, name=name: getattr(lib, name)(x * 3 - 2.2),
        {"x": Inp((4,), F64, kind)},
    )


def _gamma_edges_prog(lib, inp):
    attempt = H.attempt
    nan, inf = float("nan"), float("inf")
    values = [0.0, -0.0, -1.0, -2.5, 0.5, 1.0, 2.0, 10.0, inf, -inf, nan, 1e-8, 150.0, -7.3, 1e5]
    record: dict = {}
    for name in ("lgamma", "digamma"):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = getattr(lib, name)(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (k,) = lib.autograd.grad(h.sum(), x)
        record[name] = (y, g, h, k)
        record[name + "-float32"] = getattr(lib, name)(x.detach().float())
        record[name + "-int"] = getattr(lib, name)(lib.tensor(inp["i"]))
        record[name + "-bool"] = getattr(lib, name)(lib.tensor([True, False]))
        record[name + "_"] = getattr(lib.tensor([0.5, 3.0]), name + "_")()
        record[name + "_-int"] = attempt(
            lambda name=name: getattr(lib.tensor([1, 2]), name + "_")()
        )
    leaf = lib.tensor([0.5, 3.0], requires_grad=True)
    z = leaf * 2
    z.lgamma_()
    z.digamma_()
    z.sum().backward()
    record["in-place-chain"] = (z, leaf.grad)
    return record


register("lgamma-digamma-edges", _gamma_edges_prog, {"i": Inp((5,), "int64", "int")})


def _polygamma_prog(lib, inp):
    attempt = H.attempt
    x = lib.tensor(inp["x"], requires_grad=True)
    y = lib.polygamma(0, x) + lib.polygamma(1, x) * 2 + x.polygamma(2)
    y.sum().backward()
    edges = lib.tensor([0.0, -0.0, -1.0, -2.5, 1.0, float("inf"), -float("inf"), float("nan")])
    return {
        "y": y,
        "x": x,
        "edges": [lib.polygamma(n, edges) for n in range(4)],
        "int": lib.polygamma(1, lib.tensor([1, 2])),
        "in-place": lib.tensor([0.5, 2.0]).polygamma_(1),
        "in-place-int": attempt(lambda: lib.tensor([1]).polygamma_(1)),
        "negative-n": attempt(lambda: lib.polygamma(-1, x)),
        "float-n": attempt(lambda: lib.polygamma(1.5, x)),
        "tensor-n": attempt(lambda: lib.polygamma(x, 1)),
    }


register("polygamma", _polygamma_prog, {"x": Inp((2, 3), F64, "positive")})
second(
    "polygamma-double-backward",
    lambda lib, x: lib.polygamma(1, x + 0.5),
    {"x": Inp((4,), F64, "positive")},
)


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_op_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_op_live(prog):
    H.check_against_live_torch(prog)
