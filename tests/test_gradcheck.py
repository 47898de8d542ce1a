"""Numerical gradient checks for every differentiable operation.

The tests are built from one table, ``OPS``: one :class:`Op` per operation
(variant) says how to call it, on which input domain, for which shapes. Several
kinds of test are generated from that table:

* ``test_gradcheck``          — ``autogradkit.autograd.gradcheck`` (central
  differences on the full Jacobian, float64);
* ``test_central_differences`` — an independent five-point finite-difference
  vector-Jacobian product written here, so a bug in ``gradcheck`` cannot hide a
  bug in an operation;
* ``test_matches_torch``       — forward values and the same vector-Jacobian
  product computed by PyTorch (when it is installed);
* ``test_gradgradcheck``       — second derivatives (``create_graph=True``).

Then come tests of ``gradcheck``/``gradgradcheck`` themselves (they must reject
a deliberately wrong ``Function``), third derivatives against closed forms, and a
Hessian-vector product of a small MLP against PyTorch.

Functions in the table take the library as their first argument (``L`` is
``autogradkit`` or ``torch``), so the same description runs on both.
"""

from __future__ import annotations

import itertools
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import autogradkit as ak
from autogradkit.autograd import Function, gradcheck, gradgradcheck
from autogradkit.autograd.gradcheck import GradcheckError

try:  # PyTorch is an optional oracle, never a dependency.
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None  # type: ignore[assignment]

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

Shape = tuple


# ----------------------------------------------------------------------------- domains


def _uniform(lo: float, hi: float):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def _nonzero(rng, shape):
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)


DOMAINS: dict[str, Callable] = {
    "real": _uniform(-2.0, 2.0),
    "wide": _uniform(-3.0, 3.0),
    "positive": _uniform(0.5, 2.0),
    "nonzero": _nonzero,  # |x| ≥ 0.3: away from the kink of abs/relu and the pole of 1/x
    "prob": _uniform(0.1, 0.9),  # probabilities, away from 0 and 1
    "unit": _uniform(0.0, 1.0),  # targets
    "weight": _uniform(0.5, 2.0),
    "low": _uniform(-2.0, -0.2),  # clamp's lower bounds
    "high": _uniform(0.2, 2.0),  # clamp's upper bounds
    "logits": _uniform(-30.0, 30.0),  # far into sigmoid's saturated tails
}


@dataclass(frozen=True)
class Arg:
    """One input of an operation: where its values come from and whether it is
    differentiated (constants such as loss weights are not)."""

    domain: str = "real"
    requires_grad: bool = True


@dataclass(frozen=True)
class Op:
    """A test factory entry: ``fn(L, *inputs)`` for every tuple of input shapes
    in ``shapes``.

    ``valid`` rejects samples too close to a kink (ties of ``maximum``, the bounds
    of ``clamp``); ``smooth`` selects the op for ``gradgradcheck``; ``tol`` are
    ``gradcheck``-style tolerances (eps, atol, rtol) for ops that round through
    float32.
    """

    name: str
    fn: Callable
    shapes: tuple[tuple[Shape, ...], ...]
    args: tuple[Arg, ...] = (Arg(),)
    smooth: bool = True
    valid: Callable[[list[np.ndarray]], bool] | None = None
    tol: dict = field(default_factory=dict)

    def arg(self, i: int) -> Arg:
        return self.args[i] if i < len(self.args) else self.args[-1]


def away_from(*points: float, gap: float = 1e-3):
    """valid(): the first input keeps ``gap`` away from every point."""
    return lambda arrays: all(np.all(np.abs(arrays[0] - p) > gap) for p in points)


def no_ties(gap: float = 1e-3):
    """valid(): the first two inputs (broadcast together) differ by more than ``gap``."""
    return lambda arrays: bool(np.all(np.abs(arrays[0] - arrays[1]) > gap))


def away_from_bounds(gap: float = 1e-3):
    """valid() for clamp(x, lo, hi): x keeps away from both bounds."""

    def valid(arrays):
        x, bounds = arrays[0], arrays[1:]
        return all(np.all(np.abs(x - b) > gap) for b in bounds)

    return valid


def away_from_jumps(divisor: float | None = None, gap: float = 1e-3):
    """valid() for fmod, remainder and rounded division: x / y keeps ``gap`` away
    from the integers, where they jump (y: the second input, or ``divisor``)."""

    def valid(arrays):
        quotient = arrays[0] / (arrays[1] if divisor is None else divisor)
        return bool(np.all(np.abs(quotient - np.round(quotient)) > gap))

    return valid


def sample(op: Op, shapes: tuple[Shape, ...], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        arrays = [
            np.asarray(DOMAINS[op.arg(i).domain](rng, s), dtype=np.float64)
            for i, s in enumerate(shapes)
        ]
        if op.valid is None or op.valid(arrays):
            return arrays
    raise AssertionError(f"could not sample valid inputs for {op.name} {shapes}")


def tensors(L, op: Op, arrays: list[np.ndarray]) -> list:
    return [
        L.tensor(a, dtype=L.float64, requires_grad=op.arg(i).requires_grad)
        for i, a in enumerate(arrays)
    ]


# ----------------------------------------------------------------------------- the table

UNARY = (((),), ((4,),), ((2, 3),), ((2, 3, 2),))
NONSCALAR = (((4,),), ((2, 3),), ((2, 3, 2),))
BROADCAST = (
    ((), ()),
    ((3,), (3,)),
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((), (2, 3)),
    ((2, 3, 2), (3, 1)),
)


def checkerboard(shape) -> np.ndarray:
    """A fixed boolean mask (non-empty, not everything) for mask indexing."""
    return np.indices(shape).sum(axis=0) % 2 == 0


def _reverse_dims(lib, a):
    """``a.T``, without the deprecation warning both libraries give below/above 2-d
    (tests/test_warnings.py checks that warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return a.T


def unary(name, fn, domain="real", shapes=UNARY, **kw) -> Op:
    return Op(name, fn, shapes, (Arg(domain),), **kw)


def binary(name, fn, domains=("real", "real"), shapes=BROADCAST, **kw) -> Op:
    return Op(name, fn, shapes, tuple(Arg(d) for d in domains), **kw)


ARITHMETIC = [
    binary("add", lambda L, a, b: a + b),
    binary("add_alpha", lambda L, a, b: L.add(a, b, alpha=2.5)),
    unary("add_scalar", lambda L, a: a + 1.5),
    unary("radd_scalar", lambda L, a: 1.5 + a),
    binary("sub", lambda L, a, b: a - b),
    binary("sub_alpha", lambda L, a, b: L.sub(a, b, alpha=-0.5)),
    unary("sub_scalar", lambda L, a: a - 1.5),
    unary("rsub_scalar", lambda L, a: 2 - a),
    binary("rsub", lambda L, a, b: L.rsub(a, b)),
    binary("mul", lambda L, a, b: a * b),
    unary("mul_scalar", lambda L, a: a * 2.5),
    unary("rmul_scalar", lambda L, a: 2 * a),
    unary("mul_self", lambda L, a: a * a),
    binary("div", lambda L, a, b: a / b, ("real", "nonzero")),
    unary("div_scalar", lambda L, a: a / 3.0),
    unary("rdiv_scalar", lambda L, a: 3 / a, "nonzero"),
    unary("neg", lambda L, a: -a),
    unary("neg_fn", lambda L, a: L.neg(a)),
    unary("reciprocal", lambda L, a: a.reciprocal(), "nonzero"),
    *[
        unary(f"pow_{n}", (lambda n: lambda L, a: a**n)(n), "positive")  # noqa: B023 (n is bound)
        for n in (0, 1, 2, 0.5, -1.5, 3.0)
    ],
    unary("pow_int_3_real", lambda L, a: a**3),
    unary("pow_method", lambda L, a: a.pow(2)),
    binary("pow_tensor", lambda L, a, b: a**b, ("positive", "real")),
    unary("rpow_2", lambda L, a: 2**a),
    unary("rpow_half", lambda L, a: 0.5**a),
    binary("fmod", lambda L, a, b: L.fmod(a, b), ("real", "nonzero"), valid=away_from_jumps()),
    unary("fmod_scalar", lambda L, a: a.fmod(0.75), valid=away_from_jumps(0.75)),
    binary("remainder", lambda L, a, b: a % b, ("real", "nonzero"), valid=away_from_jumps()),
    unary("remainder_scalar", lambda L, a: a % -0.75, valid=away_from_jumps(-0.75)),
    *[
        binary(
            f"div_{mode}",
            (lambda mode: lambda L, a, b: L.div(a, b, rounding_mode=mode))(mode),  # noqa: B023
            ("real", "nonzero"),
            valid=away_from_jumps(),
        )
        for mode in ("floor", "trunc")
    ],
    binary("div_mode_none", lambda L, a, b: a.div(b, rounding_mode=None), ("real", "nonzero")),
    unary(
        "div_floor_scalar",
        lambda L, a: L.div(a, 0.5, rounding_mode="floor"),
        valid=away_from_jumps(0.5),
    ),
]

POINTWISE = [
    unary("exp", lambda L, a: a.exp()),
    unary("log", lambda L, a: a.log(), "positive"),
    unary("sqrt", lambda L, a: a.sqrt(), "positive"),
    unary("abs", lambda L, a: a.abs(), "nonzero"),
    unary("sigmoid", lambda L, a: a.sigmoid()),
    unary("sigmoid_fn", lambda L, a: L.sigmoid(a)),
    unary("tanh", lambda L, a: a.tanh()),
    unary("relu", lambda L, a: a.relu(), "nonzero"),
    unary("relu_fn", lambda L, a: L.nn.functional.relu(a), "nonzero"),
    unary("clamp", lambda L, a: a.clamp(-1.0, 1.0), "real", valid=away_from(-1.0, 1.0)),
    unary("clamp_min", lambda L, a: L.clamp(a, min=-0.5), "real", valid=away_from(-0.5)),
    unary("clamp_max", lambda L, a: L.clamp(a, max=0.5), "real", valid=away_from(0.5)),
    unary("clamp_int_bounds", lambda L, a: a.clamp(-1, 1), "real", valid=away_from(-1.0, 1.0)),
    Op(
        "clamp_tensor",
        lambda L, x, lo, hi: L.clamp(x, lo, hi),
        (((4,), (4,), (4,)), ((), (), ()), ((2, 3), (3,), (2, 1)), ((2, 3, 2), (3, 2), ())),
        (Arg("wide"), Arg("low"), Arg("high")),
        valid=away_from_bounds(),
    ),
    Op(
        "clamp_tensor_min",
        lambda L, x, lo: L.clamp(x, min=lo),
        (((4,), (4,)), ((2, 3), (3,))),
        (Arg("real"), Arg("real")),
        valid=away_from_bounds(),
    ),
    Op(
        "clamp_tensor_max",
        lambda L, x, hi: L.clamp(x, max=hi),
        (((4,), (4,)), ((2, 3), (2, 1))),
        (Arg("real"), Arg("real")),
        valid=away_from_bounds(),
    ),
    binary("maximum", lambda L, a, b: L.maximum(a, b), valid=no_ties()),
    binary(
        "maximum_method", lambda L, a, b: a.maximum(b), shapes=(((2, 3), (3,)),), valid=no_ties()
    ),
]

REDUCTIONS = [
    unary("sum", lambda L, a: a.sum()),
    unary("sum_fn", lambda L, a: L.sum(a)),
    unary("sum_dim0", lambda L, a: a.sum(0)),  # dim 0 of a 0-d tensor is allowed
    unary("sum_dim_last_keepdim", lambda L, a: a.sum(-1, keepdim=True)),
    unary(
        "sum_keepdim_all",
        lambda L, a: a.sum(dim=tuple(range(a.dim())), keepdim=True),
        shapes=NONSCALAR,
    ),
    unary("sum_tuple_01", lambda L, a: a.sum((0, 1)), shapes=(((2, 3),), ((2, 3, 2),))),
    unary(
        "sum_tuple_02_keepdim", lambda L, a: a.sum(dim=(0, 2), keepdim=True), shapes=(((2, 3, 2),),)
    ),
    unary("mean", lambda L, a: a.mean()),
    unary("mean_fn", lambda L, a: L.mean(a)),
    unary("mean_dim0", lambda L, a: a.mean(0)),
    unary("mean_dim_last_keepdim", lambda L, a: a.mean(-1, keepdim=True)),
    unary("mean_tuple_neg", lambda L, a: a.mean((-1, -2)), shapes=(((2, 3),), ((2, 3, 2),))),
    unary(
        "mean_tuple_02_keepdim",
        lambda L, a: a.mean(dim=(0, 2), keepdim=True),
        shapes=(((2, 3, 2),),),
    ),
    unary("var", lambda L, a: a.var(), shapes=NONSCALAR),
    unary("var_dim_last", lambda L, a: L.var(a, -1), shapes=NONSCALAR),
    unary(
        "var_tuple_keepdim_biased",
        lambda L, a: a.var((0, 1), keepdim=True, unbiased=False),
        shapes=(((2, 3),), ((2, 3, 2),)),
    ),
    unary("var_correction", lambda L, a: a.var(0, correction=0.5), shapes=NONSCALAR),
    unary("std", lambda L, a: a.std(), shapes=NONSCALAR),
    unary("std_dim0_keepdim", lambda L, a: L.std(a, 0, keepdim=True), shapes=NONSCALAR),
    unary(
        "std_mean", lambda L, a: L.std_mean(a, -1)[0] * 2 + L.std_mean(a, -1)[1], shapes=NONSCALAR
    ),
    unary("var_mean_keepdim", lambda L, a: L.var_mean(a, 0, keepdim=True)[0], shapes=NONSCALAR),
    unary("amax", lambda L, a: a.amax()),
    unary("amax_dim_last", lambda L, a: L.amax(a, -1), shapes=NONSCALAR),
    unary("amin_tuple_keepdim", lambda L, a: a.amin((0, 1), keepdim=True), shapes=NONSCALAR[1:]),
    unary("nansum", lambda L, a: L.nansum(a)),
    unary("nansum_dim_keepdim", lambda L, a: a.nansum(-1, keepdim=True), shapes=NONSCALAR),
    unary("nanmean_dim0", lambda L, a: L.nanmean(a, 0), shapes=NONSCALAR),
    unary("aminmax", lambda L, a: L.aminmax(a).min + L.aminmax(a).max * 2),
    unary("aminmax_dim_last", lambda L, a: a.aminmax(dim=-1).max, shapes=NONSCALAR),
]

REARRANGE = [
    Op(
        "einsum_matmul",
        lambda L, a, b: L.einsum("ij,jk->ik", a, b),
        (((2, 3), (3, 4)),),
        (Arg(), Arg()),
    ),
    Op(
        "einsum_batched_lonely",
        lambda L, a, b: L.einsum("bij,bk->bj", a, b),
        (((2, 2, 3), (2, 4)),),
        (Arg(), Arg()),
    ),
    unary("einsum_trace_outer", lambda L, a: L.einsum("ii,jk->jk", a, a), shapes=(((3, 3),),)),
    unary("erf", lambda L, a: L.erf(a)),
    binary("logaddexp", lambda L, a, b: L.logaddexp(a, b)),
    binary("logaddexp2", lambda L, a, b: a.logaddexp2(b)),
    binary("fmax", lambda L, a, b: L.fmax(a, b), valid=no_ties()),
    binary("fmin", lambda L, a, b: a.fmin(b), valid=no_ties()),
    binary("copysign", lambda L, a, b: L.copysign(a, b), ("nonzero", "nonzero")),
    binary("float_power", lambda L, a, b: L.float_power(a, b), ("positive", "real")),
    unary("erfinv", lambda L, a: L.erfinv(a), "unit"),
    binary(
        "kron", lambda L, a, b: L.kron(a, b), shapes=(((2, 3), (2, 2)), ((3,), (2, 2)), ((), (2,)))
    ),
    binary("atan2", lambda L, a, b: L.atan2(a, b), ("real", "nonzero")),
    binary("hypot", lambda L, a, b: a.hypot(b), ("nonzero", "nonzero")),
    binary("xlogy", lambda L, a, b: L.xlogy(a, b), ("nonzero", "positive")),
    unary("xlogy_number", lambda L, a: L.xlogy(a, 2.5)),
    binary("lerp", lambda L, a, b: L.lerp(a, b, 0.3)),
    binary("lerp_tensor_weight", lambda L, a, w: L.lerp(a, a * 2 + 1, w), ("real", "unit")),
    binary("addcmul", lambda L, a, b: L.addcmul(a, b, a, value=-0.5)),
    binary("addcdiv", lambda L, a, b: L.addcdiv(a, a, b, value=-0.5), ("real", "nonzero")),
    unary("sort", lambda L, a: a.sort().values),
    unary(
        "sort_descending_dim0", lambda L, a: L.sort(a, 0, descending=True).values, shapes=NONSCALAR
    ),
    unary("sort_stable", lambda L, a: a.sort(stable=True).values, shapes=NONSCALAR),
    unary("topk", lambda L, a: a.topk(2).values, shapes=NONSCALAR),
    unary(
        "topk_smallest_dim0", lambda L, a: L.topk(a, 1, 0, largest=False).values, shapes=NONSCALAR
    ),
    unary("logcumsumexp", lambda L, a: a.logcumsumexp(-1)),
    unary("cummax", lambda L, a: L.cummax(a, 0).values, shapes=NONSCALAR),
    unary("cummin", lambda L, a: a.cummin(dim=-1).values),
    unary("kthvalue", lambda L, a: a.kthvalue(1).values),
    unary("kthvalue_dim0_keepdim", lambda L, a: L.kthvalue(a, 2, 0, True).values, shapes=NONSCALAR),
    unary("quantile", lambda L, a: a.quantile(0.3)),
    unary(
        "quantile_several_dim0",
        lambda L, a: L.quantile(a, L.tensor([0.2, 0.7], dtype=L.float64), dim=0),
        shapes=NONSCALAR,
    ),
    unary("mode", lambda L, a: a.mode().values),
    unary("median", lambda L, a: a.median()),
    unary("median_dim", lambda L, a: L.median(a, 0).values, shapes=NONSCALAR),
    unary("nanmedian_keepdim", lambda L, a: a.nanmedian(-1, keepdim=True).values),
    unary("diagonal", lambda L, a: a.diagonal(), shapes=(((3, 3),), ((2, 3, 4),))),
    unary("diag_embed", lambda L, a: L.diag_embed(a, -1, 0, 2), shapes=(((2, 3),), ((2, 3, 2),))),
    unary("diagonal_offset_dims", lambda L, a: L.diagonal(a, -1, 2, 0), shapes=(((2, 3, 4),),)),
    unary("flip", lambda L, a: a.flip(0), shapes=NONSCALAR),
    unary("flip_all", lambda L, a: L.flip(a, tuple(range(a.dim())))),
    unary("roll", lambda L, a: a.roll(1, -1), shapes=NONSCALAR),
    unary("roll_flattened", lambda L, a: L.roll(a, 2)),
    unary("tril", lambda L, a: a.tril(), shapes=(((3, 3),), ((2, 3, 2),))),
    unary("triu_offset", lambda L, a: L.triu(a, -1), shapes=(((3, 3),), ((2, 4),))),
    unary(
        "index_select",
        lambda L, a: a.index_select(-1, L.tensor([1, 0, 1])),
        shapes=(((4,),), ((2, 3),)),
    ),
    unary("trace", lambda L, a: a.trace(), shapes=(((3, 3),), ((2, 3),))),
    unary("diag_matrix", lambda L, a: L.diag(a, 1), shapes=(((3, 3),), ((2, 4),))),
    unary("diag_vector", lambda L, a: a.diag(-1), shapes=(((3,),),)),
    unary("masked_fill", lambda L, a: a.masked_fill(a > 0.5, 2.0), valid=away_from(0.5)),
    binary(
        "masked_fill_tensor_value",
        lambda L, a, v: a.masked_fill(a > 0.5, v),
        shapes=(((2, 3), ()), ((4,), ())),
        valid=away_from(0.5),
    ),
]

SHAPE = [
    unary("reshape_flat", lambda L, a: a.reshape(-1)),
    unary("reshape", lambda L, a: a.reshape(3, 2), shapes=(((2, 3),), ((6,),))),
    unary("reshape_scalar", lambda L, a: a.reshape(1, 1), shapes=(((),),)),
    unary("view", lambda L, a: a.view(4, 3), shapes=(((2, 3, 2),),)),
    unary("view_tuple", lambda L, a: a.view((3, -1)), shapes=(((2, 3),),)),
    unary("t", lambda L, a: a.t(), shapes=(((),), ((4,),), ((2, 3),))),
    unary("t_fn", lambda L, a: L.t(a), shapes=(((2, 3),),)),
    unary("transpose", lambda L, a: a.transpose(0, 1), shapes=(((2, 3),), ((2, 3, 2),))),
    unary("transpose_neg", lambda L, a: L.transpose(a, 0, -1), shapes=(((2, 3, 2),),)),
    unary("T", _reverse_dims),  # PyTorch deprecates .T on other than 2 dims; still defined
    unary("permute", lambda L, a: a.permute(2, 0, 1), shapes=(((2, 3, 2),),)),
    unary("permute_fn", lambda L, a: L.permute(a, (1, 0)), shapes=(((2, 3),),)),
    unary("unsqueeze0", lambda L, a: a.unsqueeze(0)),
    unary("unsqueeze_last", lambda L, a: L.unsqueeze(a, -1)),
    unary("squeeze_all", lambda L, a: a.squeeze(), shapes=(((),), ((1, 3, 1),), ((2, 1),))),
    unary("squeeze_dim", lambda L, a: a.squeeze(0), shapes=(((1, 3),), ((2, 3),))),
    unary("squeeze_neg", lambda L, a: L.squeeze(a, -1), shapes=(((2, 1),),)),
    unary("expand", lambda L, a: a.expand(2, 3, 4), shapes=(((3, 1),), ((4,),), ((),))),
    unary("expand_keep", lambda L, a: a.expand(2, -1), shapes=(((1, 3),),)),
    unary("flatten", lambda L, a: a.flatten(), shapes=(((2, 3, 2),),)),
    unary("clone", lambda L, a: a.clone()),
    unary("clone_fn", lambda L, a: L.clone(a)),
    unary("to_float64", lambda L, a: a.to(L.float64)),  # float64 -> float64: no copy
    unary("double", lambda L, a: (a * 1).double()),
    # float64 -> float32 -> float64: the rounding needs loose tolerances.
    unary(
        "to_float32_and_back",
        lambda L, a: a.to(L.float32).to(L.float64),
        tol={"eps": 1e-3, "atol": 1e-3, "rtol": 1e-2},
    ),
]

INDEXING = [
    unary("index_int", lambda L, a: a[1], shapes=NONSCALAR),
    unary("index_neg_int", lambda L, a: a[-1], shapes=NONSCALAR),
    unary("index_slice", lambda L, a: a[1:3], shapes=NONSCALAR),
    unary("index_step_slice", lambda L, a: a[::2], shapes=NONSCALAR),
    unary("index_2d_step", lambda L, a: a[:, 1::2], shapes=(((2, 3),), ((2, 3, 2),))),
    unary("index_none", lambda L, a: a[None]),
    unary("index_none_middle", lambda L, a: a[:, None], shapes=NONSCALAR),
    unary("index_ellipsis", lambda L, a: a[..., 1], shapes=NONSCALAR),
    unary("index_ellipsis_only", lambda L, a: a[...]),
    unary("index_full_slice", lambda L, a: a[:], shapes=NONSCALAR),
    unary("index_int_slice", lambda L, a: a[1, ::2], shapes=(((2, 3),), ((2, 3, 2),))),
    unary("index_list_repeats", lambda L, a: a[[0, 0, 1, 0]], shapes=NONSCALAR),
    unary("index_long_tensor", lambda L, a: a[L.tensor([1, 1, 0])], shapes=NONSCALAR),
    unary("index_two_lists", lambda L, a: a[[0, 1, 1], [2, 0, 2]], shapes=(((2, 3),),)),
    unary("index_bool_mask", lambda L, a: a[L.tensor(checkerboard(a.shape))], shapes=NONSCALAR),
    unary("index_bool_rows", lambda L, a: a[L.tensor([True, False])], shapes=(((2, 3),),)),
    unary("repeat", lambda L, a: a.repeat(2, 1, 3), shapes=(((2, 3),), ((3,),))),
    unary("repeat_interleave", lambda L, a: a.repeat_interleave(2, dim=0), shapes=NONSCALAR),
    unary("rot90", lambda L, a: L.rot90(a, 3, (1, 0)), shapes=(((2, 3),), ((2, 3, 2),))),
    unary("take", lambda L, a: a.take(L.tensor([[0, 1], [1, 0]])), shapes=NONSCALAR),
    unary(
        "masked_select",
        lambda L, a: a.masked_select(L.tensor(checkerboard(a.shape))),
        shapes=NONSCALAR,
    ),
    binary(
        "index_add",
        lambda L, a, s: a.index_add(0, L.tensor([1, 1]), s, alpha=-3),
        shapes=(((2, 3), (2, 3)),),
    ),
    binary(
        "index_copy",
        lambda L, a, s: L.index_copy(a, 1, L.tensor([2, 0]), s),
        shapes=(((2, 3), (2, 2)),),
    ),
]

JOIN = [
    binary(
        "stack", lambda L, a, b: L.stack([a, b]), shapes=(((), ()), ((3,), (3,)), ((2, 3), (2, 3)))
    ),
    binary(
        "stack_last",
        lambda L, a, b: L.stack((a, b), dim=-1),
        shapes=(((3,), (3,)), ((2, 3), (2, 3))),
    ),
    Op(
        "stack_three_reused",
        lambda L, a, b: L.stack([a, b, a], 1),
        (((2, 3), (2, 3)),),
        (Arg(), Arg()),
    ),
    binary(
        "cat",
        lambda L, a, b: L.cat([a, b]),
        shapes=(((2,), (3,)), ((2, 3), (1, 3)), ((1, 2, 2), (2, 2, 2))),
    ),
    binary("cat_last", lambda L, a, b: L.cat((a, b), dim=-1), shapes=(((2, 3), (2, 1)),)),
    Op(
        "cat_three_reused", lambda L, a, b: L.cat([a, b, a], 0), (((2, 3), (1, 3)),), (Arg(), Arg())
    ),
]

MATMUL_SHAPES = (
    ((3,), (3,)),  # 1-d @ 1-d: dot
    ((2, 3), (3,)),  # 2-d @ 1-d: mv
    ((3,), (3, 2)),  # 1-d @ 2-d
    ((2, 3), (3, 4)),  # 2-d @ 2-d: mm
    ((2, 2, 3), (3, 4)),  # 3-d @ 2-d: folded into one mm
    ((3, 4), (2, 4, 2)),  # 2-d @ 3-d
    ((2, 2, 3), (2, 3, 4)),  # 3-d @ 3-d: bmm
    ((3,), (2, 3, 4)),  # 1-d @ 3-d
    ((2, 3, 4), (4,)),  # 3-d @ 1-d
    ((2, 1, 2, 3), (3, 3, 2)),  # 4-d @ 3-d, broadcast batch
    ((1, 2, 3), (2, 3, 2)),  # batch of 1 broadcast
)

LINALG = [
    binary("matmul", lambda L, a, b: a @ b, shapes=MATMUL_SHAPES),
    binary("matmul_fn", lambda L, a, b: L.matmul(a, b), shapes=(((2, 3), (3, 4)),)),
    binary("mm", lambda L, a, b: L.mm(a, b), shapes=(((2, 3), (3, 4)), ((1, 1), (1, 3)))),
    binary("mm_method", lambda L, a, b: a.mm(b), shapes=(((3, 2), (2, 2)),)),
    binary("mv", lambda L, a, b: L.mv(a, b), shapes=(((2, 3), (3,)),)),
    binary("dot", lambda L, a, b: L.dot(a, b), shapes=(((3,), (3,)), ((1,), (1,)))),
    binary("dot_method", lambda L, a, b: a.dot(b), shapes=(((4,), (4,)),)),
    Op("matmul_self", lambda L, a: a @ a, (((3, 3),), ((2, 2, 2),)), (Arg(),)),
]

LOSS_SHAPES = ((), (3,), (2, 3), (2, 3, 2))


def _bce_logits_ops() -> list[Op]:
    ops = []
    for reduction, weighted, pos in itertools.product(
        ("mean", "sum", "none"), (False, True), (False, True)
    ):

        def fn(L, z, y, *extra, reduction=reduction, weighted=weighted, pos=pos):
            rest = list(extra)
            weight = rest.pop(0) if weighted else None
            pos_weight = rest.pop(0) if pos else None
            return L.nn.functional.binary_cross_entropy_with_logits(
                z, y, weight=weight, reduction=reduction, pos_weight=pos_weight
            )

        shapes = []
        for s in LOSS_SHAPES:
            case = [s, s]
            if weighted:
                case.append(s[1:])  # broadcast over the first dimension
            if pos:
                case.append(s[-1:])  # one per class: the last dimension
            shapes.append(tuple(case))
        args = (Arg("real"), Arg("unit")) + (Arg("weight", requires_grad=False),) * (weighted + pos)
        tag = "+".join(["w"] * weighted + ["pos"] * pos) or "plain"
        ops.append(Op(f"bce_logits_{reduction}_{tag}", fn, tuple(shapes), args))
    ops.append(
        Op(
            "bce_logits_saturated",
            lambda L, z, y: L.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="sum"),
            (((5,), (5,)),),
            (Arg("logits"), Arg("unit")),
        )
    )
    return ops


def _bce_ops() -> list[Op]:
    ops = []
    for reduction, weighted in itertools.product(("mean", "sum", "none"), (False, True)):

        def fn(L, p, y, *w, reduction=reduction):
            return L.nn.functional.binary_cross_entropy(
                p, y, weight=w[0] if w else None, reduction=reduction
            )

        shapes = tuple(((s, s, s) if weighted else (s, s)) for s in LOSS_SHAPES)
        args = (Arg("prob"), Arg("unit")) + (
            (Arg("weight", requires_grad=False),) if weighted else ()
        )
        ops.append(Op(f"bce_{reduction}_{'w' if weighted else 'plain'}", fn, shapes, args))
    return ops


def _mse_ops() -> list[Op]:
    return [
        Op(
            f"mse_{reduction}",
            (lambda r: lambda L, x, y: L.nn.functional.mse_loss(x, y, reduction=r))(reduction),
            tuple((s, s) for s in LOSS_SHAPES),
            (Arg(), Arg()),
        )
        for reduction in ("mean", "sum", "none")
    ] + [
        Op(
            "mse_target_constant",
            lambda L, x, y: L.nn.functional.mse_loss(x, y),
            (((2, 3), (2, 3)),),
            (Arg(), Arg(requires_grad=False)),
        )
    ]


LOSSES = _bce_logits_ops() + _bce_ops() + _mse_ops()


def _fn(name: str, *args, **kwargs):
    """``L.<name>(a, *args, **kwargs)``: the same call on autogradkit and torch."""
    return lambda L, a: getattr(L, name)(a, *args, **kwargs)


ELEMENTARY = [
    unary("sin", _fn("sin")),
    unary("cos", _fn("cos")),
    unary("tan", _fn("tan"), "prob"),
    unary("asin", _fn("asin"), "prob"),
    unary("acos", _fn("acos"), "prob"),
    unary("atan", _fn("atan")),
    unary("sinh", _fn("sinh")),
    unary("cosh", _fn("cosh")),
    unary("log1p", _fn("log1p"), "positive"),
    unary("expm1", _fn("expm1")),
    unary("log2", _fn("log2"), "positive"),
    unary("log10", _fn("log10"), "positive"),
    unary("exp2", _fn("exp2")),
    unary("rsqrt", _fn("rsqrt"), "positive"),
    unary("square", _fn("square")),
    unary("frac", _fn("frac"), "real", valid=away_from(-2.0, -1.0, 0.0, 1.0, 2.0)),
    # Piecewise constant: the gradient is 0 (and so are the finite differences
    # away from the jumps).
    unary("sign", _fn("sign"), "nonzero", smooth=False),
    unary("floor", _fn("floor"), valid=away_from(-2.0, -1.0, 0.0, 1.0, 2.0), smooth=False),
    unary("ceil", _fn("ceil"), valid=away_from(-2.0, -1.0, 0.0, 1.0, 2.0), smooth=False),
    unary("round", _fn("round"), valid=away_from(-1.5, -0.5, 0.5, 1.5), smooth=False),
    unary("trunc", _fn("trunc"), valid=away_from(-2.0, -1.0, 1.0, 2.0), smooth=False),
    unary("lgamma", _fn("lgamma"), "positive"),
    unary("lgamma_negative", lambda L, a: L.lgamma(a - 2.7), "prob"),
    unary("digamma", _fn("digamma"), "positive"),
    unary("polygamma_2", lambda L, a: L.polygamma(2, a), "positive"),
    unary("asinh", _fn("asinh")),
    unary("acosh", lambda L, a: L.acosh(a + 1.5), "positive"),
    unary("atanh", _fn("atanh"), "prob"),
    unary("arcsinh_method", lambda L, a: a.arcsinh() + a.arctanh(), "prob"),
    unary("erfc", _fn("erfc")),
    unary("logit", _fn("logit"), "prob"),
    unary("logit_eps", _fn("logit", eps=0.05), "prob"),
    unary("sinc", _fn("sinc")),
    unary("deg2rad", _fn("deg2rad")),
    unary("rad2deg", _fn("rad2deg")),
    # (sgn: PyTorch's gradient is a zero tensor NumPy cannot read; see ops/sgn.)
    unary("fix", _fn("fix"), valid=away_from(-2.0, -1.0, 1.0, 2.0), smooth=False),
]

SOFTMAX_SHAPES = (((4,),), ((2, 3),), ((2, 3, 2),))
NORMALISE = [
    unary("softmax", _fn("softmax", dim=-1), shapes=SOFTMAX_SHAPES),
    unary("softmax_dim0", _fn("softmax", 0), shapes=SOFTMAX_SHAPES),
    unary("log_softmax", _fn("log_softmax", dim=-1), shapes=SOFTMAX_SHAPES),
    unary("log_softmax_dim0", _fn("log_softmax", 0), shapes=SOFTMAX_SHAPES),
    unary("logsumexp", _fn("logsumexp", -1), shapes=SOFTMAX_SHAPES),
    unary("logsumexp_keepdim", _fn("logsumexp", (0, 1), keepdim=True), shapes=SOFTMAX_SHAPES[1:]),
    unary("prod", _fn("prod"), "nonzero"),
    unary("prod_dim", _fn("prod", -1), "nonzero", shapes=NONSCALAR),
    unary("prod_dim_keepdim", _fn("prod", 0, keepdim=True), "nonzero", shapes=NONSCALAR),
    unary("cumsum", _fn("cumsum", 0)),
    unary("cumsum_last", _fn("cumsum", -1), shapes=NONSCALAR),
    unary("cumprod", _fn("cumprod", 0), "nonzero"),
    unary("cumprod_last", _fn("cumprod", -1), "nonzero", shapes=NONSCALAR),
    unary("norm", _fn("norm"), "nonzero"),
    unary("norm_dim", _fn("norm", dim=-1), "nonzero", shapes=NONSCALAR),
    unary("norm_p1", _fn("norm", p=1), "nonzero", smooth=False),
    unary("norm_p3_keepdim", _fn("norm", 3, dim=0, keepdim=True), "nonzero", shapes=NONSCALAR),
    binary("where", lambda L, a, b: L.where(a > 0, a, b), valid=away_from(0.0)),
    unary("where_scalar", lambda L, a: L.where(a > 0, a, 0.5), valid=away_from(0.0)),
    unary(
        "gather",
        lambda L, a: a.gather(-1, L.zeros(a.shape[:-1] + (2,), dtype=L.int64)),
        shapes=NONSCALAR,
    ),
    binary(
        "scatter",
        lambda L, a, s: a.scatter(0, L.tensor([[1, 0, 1], [0, 1, 0]]), s),
        shapes=(((2, 3), (2, 3)),),
    ),
    unary(
        "scatter_value",
        lambda L, a: L.scatter(a, -1, L.tensor([[2], [0]]), 0.5),
        shapes=(((2, 3),),),
    ),
    binary(
        "scatter_add",
        lambda L, a, s: a.scatter_add(1, L.tensor([[0, 0, 2], [1, 1, 1]]), s),
        shapes=(((2, 3), (2, 3)),),
    ),
    Op(
        "linear",
        lambda L, x, w, b: L.nn.functional.linear(x, w, b),
        (((4, 3), (2, 3), (2,)), ((3,), (2, 3), (2,)), ((2, 4, 3), (2, 3), (2,))),
        (Arg(), Arg(), Arg()),
    ),
    Op(
        "linear_no_bias",
        lambda L, x, w: L.nn.functional.linear(x, w),
        (((4, 3), (2, 3)),),
        (Arg(), Arg()),
    ),
    Op(
        "cross_entropy",
        lambda L, a: L.nn.functional.cross_entropy(a, L.tensor([2, 0])),
        (((2, 3),),),
        (Arg(),),
    ),
]

OPS: list[Op] = (
    ARITHMETIC
    + POINTWISE
    + REDUCTIONS
    + REARRANGE
    + SHAPE
    + INDEXING
    + JOIN
    + LINALG
    + LOSSES
    + ELEMENTARY
    + NORMALISE
)


def _shape_id(shapes) -> str:
    return ",".join("x".join(map(str, s)) if s else "0d" for s in shapes)


def cases(kind: str = "first"):
    """pytest parameters (op, shapes, seed) for every op and shape tuple."""
    for op in OPS:
        if kind == "second" and not op.smooth:
            continue
        for shapes in op.shapes:
            case_id = f"{op.name}-{_shape_id(shapes)}"
            yield pytest.param(op, shapes, zlib.crc32(case_id.encode()), id=case_id)


def _ak_function(op: Op) -> Callable:
    return lambda *xs: op.fn(ak, *xs)


# ----------------------------------------------------------------------------- first derivatives


@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_gradcheck(op: Op, shapes, seed):
    inputs = tensors(ak, op, sample(op, shapes, seed))
    assert gradcheck(_ak_function(op), tuple(inputs), **op.tol) is True


def central_difference_vjp(
    f: Callable[[list[np.ndarray]], np.ndarray],
    arrays: list[np.ndarray],
    index: int,
    v: np.ndarray,
    h: float,
) -> np.ndarray:
    """vᵀ·∂f/∂arrays[index] by the five-point stencil
    (−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h)) / 12h, element by element.

    Independent of autogradkit's gradcheck: fresh arrays for every evaluation, a
    different stencil, and only the forward pass of the library is used.
    """
    x = arrays[index]
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        values = []
        for step in (2, 1, -1, -2):
            moved = [a.copy() for a in arrays]
            moved[index][idx] += step * h
            values.append(float(np.sum(v * f(moved))))
        grad[idx] = (-values[0] + 8 * values[1] - 8 * values[2] + values[3]) / (12 * h)
    return grad


@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_central_differences(op: Op, shapes, seed):
    arrays = sample(op, shapes, seed)
    inputs = tensors(ak, op, arrays)
    out = op.fn(ak, *inputs)
    v = np.random.default_rng(seed + 1).standard_normal(out.shape)
    wrt = [i for i in range(len(inputs)) if op.arg(i).requires_grad]
    analytic = ak.autograd.grad(
        out, [inputs[i] for i in wrt], ak.tensor(v, dtype=out.dtype), allow_unused=True
    )

    def forward(moved):
        with ak.no_grad():
            return op.fn(ak, *[ak.tensor(a, dtype=ak.float64) for a in moved]).numpy()

    h = op.tol.get("eps", 1e-4)
    rtol, atol = (op.tol.get("rtol", 1e-6), op.tol.get("atol", 1e-7)) if op.tol else (1e-6, 1e-7)
    for i, g in zip(wrt, analytic):
        expected = central_difference_vjp(forward, arrays, i, v, h)
        got = np.zeros_like(arrays[i]) if g is None else g.numpy()
        assert got.shape == arrays[i].shape, f"gradient of input {i} has the wrong shape"
        np.testing.assert_allclose(
            got, expected, rtol=rtol, atol=atol, err_msg=f"{op.name}: gradient of input {i}"
        )


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_matches_torch(op: Op, shapes, seed):
    arrays = sample(op, shapes, seed)
    ours, theirs = tensors(ak, op, arrays), tensors(torch, op, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, expected = op.fn(ak, *ours), op.fn(torch, *theirs)
    assert tuple(out.shape) == tuple(expected.shape)
    assert out.dtype.name == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_allclose(
        out.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12
    )
    assert (out.grad_fn is None) == (expected.grad_fn is None)
    v = np.random.default_rng(seed + 1).standard_normal(out.shape)
    wrt = [i for i in range(len(arrays)) if op.arg(i).requires_grad]
    grads = ak.autograd.grad(out, [ours[i] for i in wrt], ak.tensor(v), allow_unused=True)
    expected_grads = torch.autograd.grad(
        expected, [theirs[i] for i in wrt], torch.tensor(v), allow_unused=True
    )
    for i, g, e in zip(wrt, grads, expected_grads):
        got = np.zeros(arrays[i].shape) if g is None else g.numpy()
        want = np.zeros(arrays[i].shape) if e is None else e.numpy()
        np.testing.assert_allclose(
            got, want, rtol=1e-10, atol=1e-12, err_msg=f"{op.name}: gradient of input {i}"
        )


# ----------------------------------------------------------------------------- second derivatives


@pytest.mark.parametrize("op, shapes, seed", list(cases("second")))
def test_gradgradcheck(op: Op, shapes, seed):
    inputs = tensors(ak, op, sample(op, shapes, seed))
    ak.manual_seed(seed)  # gradgradcheck draws random output gradients
    assert gradgradcheck(_ak_function(op), tuple(inputs), **op.tol) is True


def test_gradgradcheck_with_given_grad_outputs():
    x = ak.tensor([[0.3, -1.0], [2.0, 0.7]], dtype=ak.float64, requires_grad=True)
    w = ak.tensor([[1.5, -0.2], [0.4, 0.9]], dtype=ak.float64, requires_grad=True)
    go = ak.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=ak.float64, requires_grad=True)
    assert gradgradcheck(lambda a, b: (a @ b).tanh() * a, (x, w), go)
    assert gradgradcheck(lambda a, b: (a @ b).tanh() * a, (x, w), (go,))


# Third derivatives against closed forms: d³/dx³ of f, elementwise.
THIRD_DERIVATIVES: dict[str, tuple[Callable, Callable, str]] = {
    "cube": (lambda t: t**3, lambda x: 6 * np.ones_like(x), "real"),
    "exp": (lambda t: t.exp(), np.exp, "real"),
    "sigmoid": (
        lambda t: t.sigmoid(),
        lambda x: (lambda s: s * (1 - s) * (1 - 6 * s + 6 * s * s))(1 / (1 + np.exp(-x))),
        "real",
    ),
    "tanh": (
        lambda t: t.tanh(),
        lambda x: -2 * (1 - np.tanh(x) ** 2) * (1 - 3 * np.tanh(x) ** 2),
        "real",
    ),
    "log": (lambda t: t.log(), lambda x: 2 / x**3, "positive"),
    "sqrt": (lambda t: t.sqrt(), lambda x: 3 / 8 * x**-2.5, "positive"),
    "reciprocal": (lambda t: t.reciprocal(), lambda x: -6 / x**4, "nonzero"),
}


@pytest.mark.parametrize("name", THIRD_DERIVATIVES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_third_derivative(name, shape):
    f, closed_form, domain = THIRD_DERIVATIVES[name]
    data = DOMAINS[domain](np.random.default_rng(zlib.crc32(name.encode())), shape)
    x = ak.tensor(data, dtype=ak.float64, requires_grad=True)
    (d1,) = ak.autograd.grad(f(x).sum(), x, create_graph=True)
    (d2,) = ak.autograd.grad(d1.sum(), x, create_graph=True)
    assert d2.requires_grad and d2.grad_fn is not None
    (d3,) = ak.autograd.grad(d2.sum(), x)
    np.testing.assert_allclose(d3.numpy(), closed_form(data), rtol=1e-10, atol=1e-12)


def test_third_derivative_of_cube_via_backward():
    x = ak.tensor(3.0, dtype=ak.float64, requires_grad=True)
    y = x**3
    (dy,) = ak.autograd.grad(y, x, create_graph=True)  # 3x² = 27
    (d2y,) = ak.autograd.grad(dy, x, create_graph=True)  # 6x = 18
    d2y.backward()  # 6
    assert (dy.item(), d2y.item(), x.grad.item()) == (27.0, 18.0, 6.0)


# Third derivatives of the operations whose gradient goes through a node of its own
# under create_graph (PyTorch's fused backward functions, rsqrt, masked_fill, where):
# gradgradcheck of the gradient function x ↦ ∂ℓ/∂x checks that node's backward, and
# its backward's gradient, against finite differences.
GRADIENTS_WITH_THEIR_OWN_NODES: dict[str, tuple[Callable, str]] = {
    "softmax": (lambda t: t.softmax(-1), "real"),
    "softmax_dim0": (lambda t: t.softmax(0), "real"),
    "log_softmax": (lambda t: t.log_softmax(-1), "real"),
    "logsumexp": (lambda t: t.logsumexp(-1), "real"),
    "std": (lambda t: t.std(-1), "real"),
    "relu": (lambda t: t.relu(), "nonzero"),
    "abs": (lambda t: t.abs(), "nonzero"),
    "asin": (lambda t: t.asin(), "prob"),
    "acos": (lambda t: t.acos(), "prob"),
    "tanh": (lambda t: t.tanh(), "real"),
    "sigmoid": (lambda t: t.sigmoid(), "real"),
    "norm": (lambda t: t.norm(), "nonzero"),
    "norm_dim": (lambda t: t.norm(dim=-1), "nonzero"),
    "norm_p3": (lambda t: t.norm(p=3), "nonzero"),
    "norm_p1_5": (lambda t: t.norm(p=1.5, dim=-1), "nonzero"),
    "norm_p0_5": (lambda t: t.norm(p=0.5), "nonzero"),
    "pow_self": (lambda t: t**t, "positive"),
    "outer": (lambda t: t.reshape(-1, 1) @ t.reshape(1, -1), "real"),
}


@pytest.mark.parametrize("name", GRADIENTS_WITH_THEIR_OWN_NODES)
def test_third_derivative_through_the_gradients_own_node(name):
    f, domain = GRADIENTS_WITH_THEIR_OWN_NODES[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = ak.tensor(DOMAINS[domain](rng, (2, 3)), dtype=ak.float64, requires_grad=True)
    weights = ak.tensor(rng.standard_normal(f(x).shape), dtype=ak.float64)

    def gradient(t):
        # A weighted sum: softmax's plain sum is constant, with every derivative 0.
        return ak.autograd.grad((f(t) * weights).sum(), t, create_graph=True)[0]

    ak.manual_seed(0)  # gradgradcheck draws random output gradients
    assert gradgradcheck(gradient, (x,)) is True


# Hessian-vector products of small MLP-like losses, against PyTorch.


def _mlp_tanh(L, x, y, w1, b1, w2):
    hidden = (x @ w1 + b1).tanh()
    out = (hidden @ w2).sigmoid()
    return L.nn.functional.mse_loss(out, y) + 0.01 * (w1 * w1).sum()


def _mlp_mixed(L, x, y, w1, b1, w2):
    hidden = (x @ w1 + b1).exp().sqrt() / (1 + (x @ w1).sigmoid())
    out = hidden @ w2
    return ((out - y) ** 2).mean() + (w2**2).sum().sqrt()


@needs_torch
@pytest.mark.torch
@pytest.mark.parametrize("loss", [_mlp_tanh, _mlp_mixed], ids=["tanh_sigmoid_mse", "exp_sqrt_div"])
def test_hessian_vector_product_matches_torch(loss):
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 2))
    params = [rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((5, 2))]
    vs = [rng.standard_normal(p.shape) for p in params]

    ps = [ak.tensor(p, dtype=ak.float64, requires_grad=True) for p in params]
    value = loss(ak, ak.tensor(x, dtype=ak.float64), ak.tensor(y, dtype=ak.float64), *ps)
    grads = ak.autograd.grad(value, ps, create_graph=True)
    dot = sum((g * ak.tensor(v, dtype=ak.float64)).sum() for g, v in zip(grads, vs))
    hvp = ak.autograd.grad(dot, ps)

    tx, ty = torch.tensor(x), torch.tensor(y)
    t_value, t_hvp = torch.autograd.functional.hvp(
        lambda *p: loss(torch, tx, ty, *p),
        tuple(torch.tensor(p) for p in params),
        tuple(torch.tensor(v) for v in vs),
    )

    np.testing.assert_allclose(value.item(), t_value.item(), rtol=1e-12)
    for ours, theirs in zip(hvp, t_hvp):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12)


def test_hessian_vector_product_matches_finite_differences_of_gradient():
    """Hv ≈ (∇f(w + hv) − ∇f(w − hv)) / 2h, with no oracle."""
    rng = np.random.default_rng(11)
    x, y = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 2))
    params = [rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((5, 2))]
    vs = [rng.standard_normal(p.shape) for p in params]
    X, Y = ak.tensor(x, dtype=ak.float64), ak.tensor(y, dtype=ak.float64)

    def gradient(arrays):
        ps = [ak.tensor(a, dtype=ak.float64, requires_grad=True) for a in arrays]
        return [g.numpy() for g in ak.autograd.grad(_mlp_tanh(ak, X, Y, *ps), ps)]

    ps = [ak.tensor(p, dtype=ak.float64, requires_grad=True) for p in params]
    grads = ak.autograd.grad(_mlp_tanh(ak, X, Y, *ps), ps, create_graph=True)
    hvp = ak.autograd.grad(sum((g * ak.tensor(v)).sum() for g, v in zip(grads, vs)), ps)
    h = 1e-5
    plus = gradient([p + h * v for p, v in zip(params, vs)])
    minus = gradient([p - h * v for p, v in zip(params, vs)])
    for ours, p, m in zip(hvp, plus, minus):
        np.testing.assert_allclose(ours.numpy(), (p - m) / (2 * h), rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------------- gradcheck itself


class WrongScaleExp(Function):
    """exp with a backward that is off by a factor 2."""

    @staticmethod
    def forward(ctx, x):
        out = np.exp(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return 2 * grad_output * out


class WrongSignSquare(Function):
    """x² with the sign of the derivative flipped."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return -2 * grad_output * x


class SwappedMul(Function):
    """x·y whose backward sends each input the other's gradient."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * x, grad_output * y


class ForgetsSecondInput(Function):
    """x + 3y whose backward returns no gradient for y."""

    @staticmethod
    def forward(ctx, x, y):
        return x + 3 * y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class ZeroBackward(Function):
    """2x with a backward that returns zeros."""

    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 0


class IgnoresGradOutput(Function):
    """sin x whose backward returns cos x, forgetting to multiply by grad_output:
    right for a single scalar output, wrong for anything else."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return np.cos(x) + 0 * grad_output


class ConstantSecondDerivative(Function):
    """x² whose backward treats x as a constant: the first derivative is right, but
    a create_graph pass loses ∂(2x)/∂x, so the second derivative is wrong (0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * (x.detach() if isinstance(x, ak.Tensor) else x)


WRONG = {
    "wrong_scale": (lambda x, y: WrongScaleExp.apply(x), 1),
    "wrong_sign": (lambda x, y: WrongSignSquare.apply(x), 1),
    "swapped_inputs": (lambda x, y: SwappedMul.apply(x, y), 2),
    "missing_gradient": (lambda x, y: ForgetsSecondInput.apply(x, y), 2),
    "zero_backward": (lambda x, y: ZeroBackward.apply(x), 1),
    "ignores_grad_output": (lambda x, y: IgnoresGradOutput.apply(x).sum() * 2, 1),
}


def _pair(shape=(3,)):
    rng = np.random.default_rng(3)
    return tuple(
        ak.tensor(rng.uniform(0.5, 2, shape), dtype=ak.float64, requires_grad=True)
        for _ in range(2)
    )


@pytest.mark.parametrize("name", WRONG)
def test_gradcheck_raises_on_wrong_backward(name):
    fn, arity = WRONG[name]
    x, y = _pair((2, 3))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(fn, (x, y))


@pytest.mark.parametrize("name", WRONG)
def test_gradcheck_returns_false_on_wrong_backward(name):
    fn, arity = WRONG[name]
    x, y = _pair((2, 3))
    assert gradcheck(fn, (x, y), raise_exception=False) is False


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: x.exp() * x,
        lambda x, y: (x * y).sum(),
        lambda x, y: (x.sigmoid(), y.tanh() * x),  # several outputs
        lambda x, y: x @ y.t(),
        # The wrong op only sees a constant, so its backward never runs.
        lambda x, y: WrongScaleExp.apply(ak.tensor([[0.5, 1.0, 1.5]], dtype=ak.float64)) * x + y,
    ],
    ids=["exp_times_x", "sum", "two_outputs", "matmul", "wrong_op_on_constant"],
)
def test_gradcheck_returns_true_on_correct_functions(fn):
    x, y = _pair((2, 3))
    assert gradcheck(fn, (x, y)) is True
    assert gradcheck(fn, (x, y), raise_exception=False) is True


@pytest.mark.parametrize(
    "p, rows, mode",
    [
        (2.0, 4, "use_mm_for_euclid_dist_if_necessary"),
        (2.0, 27, "use_mm_for_euclid_dist_if_necessary"),
        (2.0, 3, "use_mm_for_euclid_dist"),
        (1.0, 4, "donot_use_mm_for_euclid_dist"),
        (0.5, 3, "use_mm_for_euclid_dist_if_necessary"),
        (3.0, 4, "use_mm_for_euclid_dist_if_necessary"),
        (float("inf"), 4, "use_mm_for_euclid_dist_if_necessary"),
    ],
)
def test_cdist_gradcheck(p, rows, mode):
    """cdist is outside the table above: PyTorch has no forward mode for it, and no
    second derivative on its direct path (the matrix-product path has one)."""
    rng = np.random.default_rng(rows + int(10 * min(p, 9)))
    x1 = ak.tensor(rng.standard_normal((rows, 3)), requires_grad=True)
    x2 = ak.tensor(rng.standard_normal((2, 1, 3)), requires_grad=True)  # broadcast batch

    def distances(a, b):
        return ak.cdist(a, b, p=p, compute_mode=mode)

    assert gradcheck(distances, (x1, x2))
    if p == 2 and (rows > 25 or mode == "use_mm_for_euclid_dist"):
        assert gradgradcheck(distances, (x1, x2))


def test_gradcheck_accepts_a_single_tensor_and_skips_constant_inputs():
    x, y = _pair()
    assert gradcheck(lambda t: t.exp(), x) is True
    assert gradcheck(lambda a, b, scale: a * b.detach() * scale, (x, y.detach(), 2.0)) is True


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="requires_grad=True"):
        gradcheck(lambda t: t * 2, (ak.ones(3, dtype=ak.float64),))


def test_gradcheck_warns_on_single_precision_inputs():
    x = ak.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda t: t * 2, (x,), eps=1e-2, atol=1e-2)


def test_gradcheck_restores_the_inputs():
    x, y = _pair((2, 3))
    before = x.detach().numpy().copy()
    version = x._version
    gradcheck(lambda a, b: a * b, (x, y))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x._version == version
    assert x.grad is None and y.grad is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: ak.tensor(np.arange(6.0).reshape(3, 2) / 7 + 0.5, dtype=ak.float64).t(),
        lambda: ak.tensor([0.5, 1.0, 1.5], dtype=ak.float64).expand(2, 3),
        lambda: ak.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3) / 5 + 0.5)),
    ],
    ids=["transposed", "expanded_read_only", "fortran_order"],
)
def test_gradcheck_perturbs_non_contiguous_inputs(make):
    """Regression: gradcheck perturbed ``data.reshape(-1)``, a copy for these
    layouts, so the numerical Jacobian was silently zero (and a backward that
    returns zeros passed)."""
    x = make().detach().requires_grad_(True)
    assert gradcheck(lambda t: t * t, (x,)) is True
    with pytest.raises(GradcheckError):
        gradcheck(lambda t: ZeroBackward.apply(t), (x,))


def test_gradgradcheck_rejects_a_wrong_second_derivative():
    x, _ = _pair((2, 2))
    # First derivatives are right …
    assert gradcheck(lambda t: ConstantSecondDerivative.apply(t), (x,)) is True
    # … the second are not.
    with pytest.raises(GradcheckError):
        gradgradcheck(lambda t: ConstantSecondDerivative.apply(t), (x,))
    assert (
        gradgradcheck(lambda t: ConstantSecondDerivative.apply(t), (x,), raise_exception=False)
        is False
    )
    assert gradgradcheck(lambda t: t * t, (x,)) is True


def test_saved_none_stays_none_in_double_backward():
    """Regression: a saved None came back as Tensor(None) in create_graph passes, so
    double backward of a loss without weight/pos_weight raised TypeError."""

    class MaybeScaled(Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x, scale)
            return x * x if scale is None else x * x * scale

        @staticmethod
        def backward(ctx, grad_output):
            x, scale = ctx.saved_tensors
            grad = 2 * x * grad_output
            return (grad if scale is None else grad * scale), None

    x = ak.tensor([1.0, 2.0], dtype=ak.float64, requires_grad=True)
    (g,) = ak.autograd.grad(MaybeScaled.apply(x, None).sum(), x, create_graph=True)
    (gg,) = ak.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.numpy(), [2.0, 2.0])


class ScalarExp(Function):
    """exp written the natural NumPy way: for 0-d input ``np.exp`` returns a scalar."""

    @staticmethod
    def forward(ctx, x):
        out = np.exp(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out


def test_saved_scalar_output_is_differentiated_twice():
    x = ak.tensor(0.5, dtype=ak.float64, requires_grad=True)
    (g,) = ak.autograd.grad(ScalarExp.apply(x), x, create_graph=True)
    (gg,) = ak.autograd.grad(g, x)
    assert gg.item() == pytest.approx(np.exp(0.5))


def test_saved_scalar_output_modified_in_place_is_detected():
    x = ak.tensor(0.5, dtype=ak.float64, requires_grad=True)
    y = ScalarExp.apply(x)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.exp(),
        lambda t: t.sqrt(),
        lambda t: t.tanh(),
        lambda t: t.reciprocal(),
        lambda t: t**t,
    ],
    ids=["exp", "sqrt", "tanh", "reciprocal", "pow_tensor"],
)
def test_builtin_ops_saving_their_0d_output(fn):
    """Regression: built-in ops that save their 0-d output keep it connected."""
    x = ak.tensor(0.7, dtype=ak.float64, requires_grad=True)
    assert gradgradcheck(fn, (x,))
    y = fn(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_mixed_dtype_product_is_differentiated_twice():
    """Regression: Mul saved dtype-promoted copies of its operands, which the engine
    took for constants (no second derivative, no version check)."""
    x = ak.tensor([1.0, 2.0], requires_grad=True)  # float32
    y = ak.tensor([3.0, 4.0], dtype=ak.float64, requires_grad=True)
    (gy,) = ak.autograd.grad((x * y).sum(), y, create_graph=True)
    (gx,) = ak.autograd.grad(gy.sum(), x)
    assert gx.dtype == ak.float32
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0])
    z = x * y
    x.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_op_table_covers_every_differentiable_public_operation():
    names = {op.name.split("_")[0] for op in OPS}
    for required in (
        "add",
        "sub",
        "rsub",
        "mul",
        "div",
        "neg",
        "reciprocal",
        "pow",
        "rpow",
        "exp",
        "log",
        "sqrt",
        "abs",
        "sigmoid",
        "tanh",
        "relu",
        "clamp",
        "maximum",
        "sum",
        "mean",
        "reshape",
        "view",
        "t",
        "transpose",
        "T",
        "permute",
        "unsqueeze",
        "squeeze",
        "expand",
        "index",
        "stack",
        "cat",
        "clone",
        "to",
        "matmul",
        "mm",
        "mv",
        "dot",
        "bce",
        "mse",
        *(
            [
                "sin",
                "cos",
                "tan",
                "asin",
                "acos",
                "atan",
                "sinh",
                "cosh",
                "log1p",
                "expm1",
                "log2",
                "log10",
                "exp2",
                "rsqrt",
            ]
        ),
        *(["square", "frac", "sign", "floor", "ceil", "round", "trunc", "softmax", "log"]),
        *(["logsumexp", "prod", "cumsum", "norm", "where", "gather", "cross"]),
    ):
        assert required in names, required
