"""Forward-mode AD (``autograd.forward_ad``): every operation's tangent against
PyTorch's, over the operation table of tests/test_gradcheck.py, and the dual-tensor
API (levels, make_dual, unpack_dual, printing, errors) and ``forward_steps``."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
from test_formulas import FUNCTIONS
from test_gradcheck import Op, cases, needs_torch, sample, tensors, torch

import autogradkit as ak
import autogradkit.autograd.forward_ad as fwAD
from autogradkit.autograd import Function, gradcheck
from autogradkit.autograd.forward_ad import ForwardStep, forward_steps
from autogradkit.autograd.gradcheck import GradcheckError

# ----------------------------------------------------------------------------- every op vs torch


def _tangent_of_op(L, op: Op, arrays, directions, tracked: bool):
    """Run ``op`` in forward mode with library ``L``; the output and its tangent."""
    inputs = tensors(L, op, arrays)
    if not tracked:
        inputs = [x.detach() for x in inputs]
    with L.autograd.forward_ad.dual_level():
        duals = [
            L.autograd.forward_ad.make_dual(x, L.tensor(d)) if d is not None else x
            for x, d in zip(inputs, directions)
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = op.fn(L, *duals)
        primal, tangent = L.autograd.forward_ad.unpack_dual(out)
        return primal.detach().numpy(), None if tangent is None else tangent.detach().numpy()


def _directions(op: Op, arrays, seed: int) -> list:
    rng = np.random.default_rng(seed + 7)
    return [
        rng.standard_normal(a.shape) if op.arg(i).requires_grad else None
        for i, a in enumerate(arrays)
    ]


@needs_torch
@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_tangent_matches_torch(op: Op, shapes, seed):
    arrays = sample(op, shapes, seed)
    directions = _directions(op, arrays, seed)
    for tracked in (False, True):  # with and without a backward graph beside it
        value, tangent = _tangent_of_op(ak, op, arrays, directions, tracked)
        expected_value, expected = _tangent_of_op(torch, op, arrays, directions, tracked)
        np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-12)
        assert (tangent is None) == (expected is None)
        if expected is not None:
            assert tangent.dtype == expected.dtype
            np.testing.assert_allclose(
                tangent, expected, rtol=1e-10, atol=1e-12, err_msg=f"{op.name} tangent"
            )


@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_tangent_is_the_jacobian_times_the_direction(op: Op, shapes, seed):
    """Without torch too: the tangent is J·v, with J from backward passes."""
    arrays = sample(op, shapes, seed)
    directions = _directions(op, arrays, seed)
    _, tangent = _tangent_of_op(ak, op, arrays, directions, tracked=False)
    inputs = tensors(ak, op, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = op.fn(ak, *inputs)
    expected = np.zeros(out.shape)
    for x, d in zip(inputs, directions):
        if d is None:
            continue
        jac = ak.autograd.functional.jacobian(lambda t, x=x: _replace(op, inputs, x, t), x)
        expected = expected + np.tensordot(jac.numpy(), d, axes=d.ndim)
    rtol = 1e-6 if op.tol else 1e-9  # ops that round through float32 carry a tolerance
    np.testing.assert_allclose(tangent, expected, rtol=rtol, atol=1e-12)


def _replace(op: Op, inputs, old, new):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return op.fn(ak, *[new if x is old else x for x in inputs])


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda cls: cls.__name__)
def test_each_operation_has_a_tangent_rule(function):
    """Every operation with a backward carries tangents: it derives from a kind of
    function (Elementwise, Linear, Bilinear, Reduction) or writes its own jvp."""
    from autogradkit.autograd.function import Function as Core
    from autogradkit.ops.arithmetic import NotDifferentiable

    if function is NotDifferentiable:  # PyTorch has neither derivative (x // y)
        return
    assert function.jvp is not Core.jvp, (
        f"{function.__name__} has no tangent rule: derive it from Elementwise, Linear, "
        "Bilinear or Reduction (autogradkit.autograd.function), or give it a jvp"
    )


# Operations the table above does not reach, and the kinks it keeps away from, where
# PyTorch's tangent picks one derivative among several (ties share evenly, a clamp's
# bound belongs to the inside, relu'(0) = 0...).
KINKS: dict[str, tuple[Callable, list]] = {
    "max-all-with-ties": (lambda L, x: x.max(), [[3.0, 1.0, 3.0]]),
    "min-all-with-ties": (lambda L, x: x.min(), [[1.0, 1.0, 3.0]]),
    "max-dim": (lambda L, x: x.max(dim=1).values, [[[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]]]),
    "min-dim-keepdim": (lambda L, x: x.min(1, keepdim=True).values, [[[1.0, 5.0], [0.0, 0.0]]]),
    "median-all-with-ties": (lambda L, x: x.median(), [[3.0, 1.0, 3.0, 5.0]]),
    "median-dim-with-ties": (lambda L, x: x.median(1).values, [[[1.0, 5.0, 1.0], [2.0, 2.0, 2.0]]]),
    "nanmedian-with-nan": (lambda L, x: x.nanmedian(), [[float("nan"), 1.0, 3.0]]),
    "maximum-ties": (lambda L, x, y: L.maximum(x, y), [[3.0, 1.0, 2.0], [3.0, 2.0, 2.0]]),
    "minimum-ties": (lambda L, x, y: L.minimum(x, y), [[3.0, 1.0, 2.0], [3.0, 2.0, 1.0]]),
    "clamp-at-bounds": (lambda L, x: x.clamp(1.0, 2.0), [[1.0, 1.5, 2.0, 3.0]]),
    "clamp-min-at-bound": (lambda L, x: x.clamp(min=3.0), [[3.0, 1.0, 4.0]]),
    "relu-at-zero": (lambda L, x: L.relu(x), [[0.0, -1.0, 2.0]]),
    "abs-at-zero": (lambda L, x: x.abs(), [[0.0, -1.0, 2.0]]),
    "norm-of-zeros": (lambda L, x: x.norm(), [[0.0, 0.0]]),
    "remainder-number": (lambda L, x: x % 0.75, [[1.5, -2.2, 0.3]]),
    "remainder-tensor": (lambda L, x, y: L.remainder(x, y), [[1.5, -2.2, 0.3], [0.7, 0.9, -1.1]]),
    "round-decimals": (lambda L, x: L.round(x, decimals=1), [[1.25, -2.21]]),
    "prod-with-a-zero": (lambda L, x: x.prod(), [[2.0, 0.0, 3.0]]),
    "cumsum": (lambda L, x: x.cumsum(0), [[1.0, 2.0, 3.0]]),
    "where": (lambda L, x, y: L.where(x > 0, x, y), [[1.0, -1.0], [5.0, 6.0]]),
    "index-with-repeats": (lambda L, x: x[L.tensor([0, 0, 1])], [[1.0, 2.0]]),
    "to-float32": (lambda L, x: x.float() * 2, [[1.0, 2.0]]),
    "vector-at-matrix": (lambda L, x, y: x @ y, [[1.0, 2.0], [[1.0, 0.5], [2.0, -1.0]]]),
    "linalg-inv": (lambda L, x: L.linalg.inv(x), [[[2.0, 1.0], [1.0, 3.0]]]),
    "det": (lambda L, x: L.det(x), [[[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.0]]]),
    "logdet": (lambda L, x: L.logdet(x), [[[2.0, 1.0], [1.0, 3.0]]]),
    "slogdet": (lambda L, x: L.linalg.slogdet(x).logabsdet, [[[-2.0, 1.0], [1.0, 3.0]]]),
    "linalg-solve": (
        lambda L, a, b: L.linalg.solve(a, b),
        [[[2.0, 1.0], [1.0, 3.0]], [[1.0, 0.5], [2.0, -1.0]]],
    ),
    "linalg-solve-vector": (
        lambda L, a, b: L.linalg.solve(a, b),
        [[[2.0, 1.0], [1.0, 3.0]], [1.0, 2.0]],
    ),
}


@needs_torch
@pytest.mark.parametrize("name", list(KINKS))
def test_kinks_and_other_operations_match_torch(name):
    fn, values = KINKS[name]
    arrays = [np.asarray(v, dtype=np.float64) for v in values]
    directions = [np.linspace(0.5, 1.5, a.size).reshape(a.shape) for a in arrays]
    op = Op(name, fn, ())
    for tracked in (False, True):
        value, tangent = _tangent_of_op(ak, op, arrays, directions, tracked)
        expected_value, expected = _tangent_of_op(torch, op, arrays, directions, tracked)
        np.testing.assert_allclose(value, expected_value, rtol=1e-12)
        assert tangent is not None and expected is not None
        assert tangent.dtype == expected.dtype
        np.testing.assert_allclose(tangent, expected, rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("op, shapes, seed", list(cases()))
def test_gradcheck_with_forward_ad(op: Op, shapes, seed):
    """Forward mode's Jacobian (one tangent per input element) against finite
    differences; test_gradcheck checks the backward one."""
    inputs = tensors(ak, op, sample(op, shapes, seed))
    fn = lambda *xs: op.fn(ak, *xs)  # noqa: E731 - the table's op, bound to our library
    assert gradcheck(fn, tuple(inputs), check_forward_ad=True, check_backward_ad=False, **op.tol)


class _WrongTangent(Function):
    """sin with a backward that is right and a tangent rule that is not."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.cos()

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return tangent * x.sin()


def test_gradcheck_finds_a_wrong_tangent_rule():
    x = ak.tensor([0.3, -1.2], dtype=ak.float64, requires_grad=True)
    assert gradcheck(_WrongTangent.apply, (x,))  # backward alone is right
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gradcheck(_WrongTangent.apply, (x,), check_forward_ad=True)
    assert (
        gradcheck(_WrongTangent.apply, (x,), check_forward_ad=True, raise_exception=False) is False
    )


def _inplace_program(L):
    """In-place changes of dual tensors: the tangent changes with the values."""
    fw = L.autograd.forward_ad
    printed = []
    with fw.dual_level():
        x = L.tensor([1.0, 2.0])
        d = fw.make_dual(x, L.tensor([1.0, 1.0]))
        d.mul_(2)
        printed += [repr(d), repr(x)]
        y = L.zeros(3)
        y[0] = d[1]
        printed.append(repr(y))
        z = L.zeros(2)
        z.copy_(d)
        printed.append(repr(z))
        z.fill_(3.0)
        printed.append(repr(z))
        e = d.clone()
        e.add_(d)
        f = L.zeros(2)
        f.add_(d)
        g = d.clone()
        g.sin_()
        h = d.clone()
        h.clamp_(max=3)
        printed += [repr(e), repr(f), repr(g), repr(h)]
        h.zero_()
        printed.append(repr(h))
    return printed


@needs_torch
def test_inplace_changes_carry_tangents_as_in_pytorch():
    assert _inplace_program(ak) == _inplace_program(torch)


# ----------------------------------------------------------------------------- the API


def test_a_dual_tensor_prints_its_tangent():
    x = ak.tensor([1.0, 2.0, 3.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, ak.tensor([0.5, 0.0, 1.0]))
        assert repr(dual) == "tensor([1., 2., 3.], tangent=tensor([0.5000, 0.0000, 1.0000]))"
        assert str(dual.sum()) == "tensor(6., tangent=1.5)"
    assert repr(dual) == "tensor([1., 2., 3.])"  # the level ended: the tangent is gone


def _requires_grad_program(L):
    fw = L.autograd.forward_ad
    w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with fw.dual_level():
        dual = fw.make_dual(w, L.tensor([0.5, 0.0, 1.0]))
        unpacked = fw.unpack_dual(dual)
        texts = [repr(dual), repr(unpacked), unpacked.primal.grad_fn.name()]
        (unpacked.primal * 2).sum().backward()
    return texts + [repr(w.grad)]


@needs_torch
def test_a_dual_of_a_tensor_that_requires_grad_prints_as_in_pytorch():
    """make_dual records a view of the primal, unpack_dual's primal an Identity."""
    ours = [text.replace("autogradkit::", "torch::") for text in _requires_grad_program(ak)]
    assert ours == _requires_grad_program(torch)


def test_make_dual_shares_the_values_and_keeps_the_tangent_object():
    x, t = ak.tensor([1.0, 2.0]), ak.tensor([3.0, 4.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t)
        primal, tangent = fwAD.unpack_dual(dual)
        assert tangent is t
        x.add_(1.0)
        assert dual.tolist() == [2.0, 3.0] and primal.tolist() == [2.0, 3.0]
        assert fwAD.unpack_dual(primal).tangent is None
        assert fwAD.unpack_dual(dual.detach()).tangent is None


def test_tangents_flow_under_no_grad_and_beside_a_backward_graph():
    w = ak.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(w, ak.tensor([1.0, 1.0]))
        assert type(dual.grad_fn).__name__ == "ViewBackward0"
        loss = (dual * dual).sum()
        assert fwAD.unpack_dual(loss).tangent.item() == 6.0
        loss.backward()
        with ak.no_grad():
            assert fwAD.unpack_dual(dual.exp()).tangent is not None
    assert w.grad.tolist() == [2.0, 4.0]


def test_outside_a_level_nothing_is_dual():
    x = ak.tensor([1.0])
    assert fwAD.unpack_dual(x) == (x, None)
    level = fwAD.enter_dual_level()
    assert level == 0
    fwAD.exit_dual_level()
    with fwAD.dual_level() as level:
        assert level == 0


def _error(fn):
    try:
        fn()
    except Exception as error:
        return type(error).__name__, str(error)
    return None


def _error_programs(L):
    fw = L.autograd.forward_ad
    x = L.tensor([1.0, 2.0, 3.0])

    def in_level(fn):
        def run():
            with fw.dual_level():
                fn()

        return run

    return {
        "outside a level": lambda: fw.make_dual(x, L.ones(3)),
        "wrong size": in_level(lambda: fw.make_dual(x, L.ones(2))),
        "integer tangent": in_level(lambda: fw.make_dual(x, L.ones(3, dtype=L.int64))),
        "integer primal": in_level(lambda: fw.make_dual(L.arange(3), L.arange(3))),
        "list tangent": in_level(lambda: fw.make_dual(x, [1.0, 2.0, 3.0])),
        "nested": in_level(fw.enter_dual_level),
        "dual of a dual": in_level(lambda: fw.make_dual(fw.make_dual(x, L.ones(3)), L.ones(3))),
        "unpack a number": in_level(lambda: fw.unpack_dual(3.0)),
        "exit without level": fw.exit_dual_level,
        "floor_divide": in_level(lambda: fw.make_dual(x, L.ones(3)) // 2),
        "cdist": in_level(lambda: L.cdist(fw.make_dual(x, L.ones(3)).view(3, 1), x.view(3, 1))),
        "cdist-matrix-products": in_level(
            lambda: L.cdist(
                fw.make_dual(x, L.ones(3)).view(3, 1),
                x.view(3, 1),
                compute_mode="use_mm_for_euclid_dist",
            )
        ),
    }


@needs_torch
@pytest.mark.parametrize("name", list(_error_programs(ak)))
def test_errors_in_pytorchs_words(name):
    ours = _error(_error_programs(ak)[name])
    theirs = _error(_error_programs(torch)[name])
    assert ours is not None and theirs is not None
    # Our dtypes print as autogradkit.int64 where PyTorch's print as torch.int64.
    assert (ours[0], ours[1].replace("autogradkit.", "torch.")) == theirs
    assert fwAD.state.level is None and torch.autograd.forward_ad._current_level == -1


# ----------------------------------------------------------------------------- forward_steps


def test_forward_steps_lists_every_operation_in_order():
    x = ak.tensor([1.0, 2.0])
    w = ak.tensor([0.5, -1.0], requires_grad=True)
    trace = forward_steps(lambda a, b: (a * b).sin().sum(), (x, w), (ak.tensor([1.0, 0.0]), None))
    assert [s.name for s in trace] == ["MulBackward0", "SinBackward0", "SumBackward0"]
    assert [s.index for s in trace] == [0, 1, 2]
    assert all(isinstance(s, ForwardStep) for s in trace) and len(trace) == 3
    mul, sin, total = trace
    assert mul.inputs[1] is w and mul.input_tangents[1] is None
    assert mul.node is mul.output.grad_fn and mul.node.name() == "MulBackward0"
    np.testing.assert_allclose(mul.output_tangent.numpy(), [0.5, 0.0])
    assert sin.inputs[0] is mul.output and sin.input_tangents[0] is mul.output_tangent
    np.testing.assert_allclose(sin.output_tangent.numpy(), np.cos([0.5, -2.0]) * [0.5, 0.0])
    assert trace.outputs == (total.output,)
    assert trace.output_tangents[0] is total.output_tangent
    assert fwAD.state.level is None  # its own level ended


def test_forward_steps_without_grad_records_no_nodes_and_keeps_a_level_open():
    x = ak.tensor([1.0, 2.0])
    with fwAD.dual_level():
        trace = forward_steps(lambda a: (a.exp(), a * 2), x, ak.ones(2))
        assert fwAD.state.level == 0
    assert [s.node for s in trace] == [None, None]
    assert len(trace.outputs) == 2
    np.testing.assert_allclose(trace.output_tangents[0].numpy(), np.exp([1.0, 2.0]))
    assert trace.steps[1].output_tangent.tolist() == [2.0, 2.0]


class _Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        raise AssertionError("not reached")

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * tangent


def test_forward_steps_shows_a_custom_function_as_one_step():
    trace = forward_steps(lambda a: _Cube.apply(a) + 1, ak.tensor([1.0, 2.0]), ak.ones(2))
    assert [s.name for s in trace] == ["_CubeBackward", "AddBackward0"]
    assert trace.steps[0].output_tangent.tolist() == [3.0, 12.0]
    assert trace.output_tangents[0].tolist() == [3.0, 12.0]


def test_forward_steps_records_operations_without_tangents_too():
    x, c = ak.tensor([1.0, 2.0]), ak.tensor([3.0, 4.0])
    trace = forward_steps(lambda a: (c * 2) + a, x, ak.ones(2))
    assert [(s.name, s.output_tangent is None) for s in trace] == [
        ("MulBackward0", True),
        ("AddBackward0", False),
    ]


@needs_torch
def test_the_pieces_of_split_chunk_and_unbind_carry_the_pieces_of_the_tangent():
    x, t = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.0, 2.0, 0.5])

    def tangents(L):
        with L.autograd.forward_ad.dual_level():
            d = L.autograd.forward_ad.make_dual(L.tensor(x), L.tensor(t))
            a, b = d.split(2)
            columns = d.view(2, 2).unbind(1)
            outs = (a * b, columns[1], d.chunk(3)[1], L.split(d, [1, 3])[1])
            return [L.autograd.forward_ad.unpack_dual(o).tangent.numpy() for o in outs]

    for ours, theirs in zip(tangents(ak), tangents(torch)):
        np.testing.assert_array_equal(ours, theirs)


# Forward-over-reverse: the tangent of a gradient built with create_graph=True is a
# Hessian-vector product H·v. Backward formulas that read the saved output (exp,
# tanh, softmax, relu's threshold, norm, x ** y, ...) must see its tangent too.
FORWARD_OVER_REVERSE: dict[str, Callable] = {
    "exp": lambda t: t.exp(),
    "tanh": lambda t: t.tanh(),
    "sigmoid": lambda t: t.sigmoid(),
    "softmax": lambda t: t.softmax(-1),
    "log_softmax": lambda t: t.log_softmax(0),
    "logsumexp": lambda t: t.logsumexp(-1),
    "relu": lambda t: (t - 0.6).relu() ** 2,
    "norm": lambda t: t.norm(dim=-1),
    "pow_self": lambda t: t**t,
    "sqrt": lambda t: t.sqrt(),
}


@pytest.mark.parametrize("name", FORWARD_OVER_REVERSE)
def test_forward_over_reverse_is_the_hessian_times_the_direction(name):
    f = FORWARD_OVER_REVERSE[name]
    rng = np.random.default_rng(len(name))
    data, v = rng.uniform(0.3, 0.9, (2, 3)), rng.standard_normal((2, 3))
    x = ak.tensor(data, dtype=ak.float64, requires_grad=True)
    w = ak.tensor(rng.standard_normal(f(x).shape), dtype=ak.float64)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, ak.tensor(v))
        (g,) = ak.autograd.grad((f(dual) * w).sum(), dual, create_graph=True)
        tangent = fwAD.unpack_dual(g).tangent
    # H·v by reverse over reverse: the gradient of ⟨∂ℓ/∂x, v⟩.
    (g,) = ak.autograd.grad((f(x) * w).sum(), x, create_graph=True)
    (hv,) = ak.autograd.grad((g * ak.tensor(v)).sum(), x)
    assert tangent is not None, f"{name}: the gradient got no tangent"
    np.testing.assert_allclose(tangent.numpy(), hv.numpy(), rtol=1e-10, atol=1e-12)
