"""Property-based tests (hypothesis).

Part 1 — binary operations over mutually broadcastable shapes. One table,
``BINARY``, describes each operation once (how to call it in autogradkit and in
PyTorch, its NumPy forward, its analytic gradients, its input domain, its shape
signature); the properties are generated from it:

* the forward equals NumPy's;
* the result dtype follows PyTorch's promotion and each gradient has its input's
  shape and dtype;
* the gradients equal the analytic expectation, and PyTorch's when it is
  installed (a finite-difference check otherwise);
* Python numbers on either side (``2 * a``, ``a - 1.5``, ``3 / a``) and 0-d
  tensors behave the same way.

Part 2 — properties of the engine: fan-out and reuse, a 100,000-node chain, and
``backward_steps`` on random graphs (same ``.grad`` as ``backward()``, each node
once, in dependency order, gradients of the right shapes, undoable accumulations).
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autogradkit as ak

try:  # PyTorch is an optional oracle.
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None  # type: ignore[assignment]

FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

DTYPES = {"float32": np.float32, "float64": np.float64}


# ----------------------------------------------------------------------------- value domains


def _floats(lo: float, hi: float):
    # width=32: every value is exact in float32 as well, so both dtypes see the same input.
    return st.floats(lo, hi, width=32, allow_nan=False, allow_infinity=False)


ELEMENTS = {
    "real": _floats(-3, 3),
    "positive": _floats(0.25, 3),
    "nonzero": _floats(0.25, 3) | _floats(-3, -0.25),
    "small": _floats(-1.5, 1.5),
}


def _sum_to(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Undo broadcasting (the reference, independent of autogradkit's)."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# ----------------------------------------------------------------------------- the table


def _matmul_grads(a, b, g):
    """Gradients of a @ b with NumPy's 1-d promotion rules and broadcast batches."""
    if a.ndim == 1 and b.ndim == 1:
        return g * b, g * a
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    ga = g2 @ np.swapaxes(b2, -1, -2)
    gb = np.swapaxes(a2, -1, -2) @ g2
    ga = _sum_to(ga, a2.shape)
    gb = _sum_to(gb, b2.shape)
    return ga.reshape(a.shape), gb.reshape(b.shape)


def _clamp_grads(x, lo, hi, g):
    inside = (x >= lo) & (x <= hi)
    below = (x < lo) & (lo < hi)
    above = (x > hi) | (hi < lo)
    return g * inside, g * below, g * above


def _mse_grads(a, b, g):
    d = 2 * (a - b) * g / a.size
    return d, -d


@dataclass(frozen=True)
class Binary:
    """One operation of arity ≥ 2: ``fn(L, *xs)`` in autogradkit or PyTorch,
    ``forward(*arrays)`` in NumPy, ``grads(*arrays, g)`` the analytic vector-Jacobian
    product (on broadcast arrays; summed back to each input's shape by the test)."""

    name: str
    fn: Callable
    forward: Callable
    grads: Callable
    domains: tuple[str, ...] = ("real", "real")
    signature: str | None = None  # a gufunc signature (matmul), else elementwise
    same_shape: bool = False  # the operands take the broadcast shape (mse_loss)
    # The first operand takes the broadcast shape: PyTorch's clamp cannot send a
    # gradient back to an x smaller than its bounds (its backward fails).
    first_is_largest: bool = False
    mixed_dtypes_error: bool = False  # PyTorch refuses mixed dtypes (matmul)
    smooth: bool = True  # finite differences apply (not at the kinks of maximum/clamp)

    @property
    def arity(self) -> int:
        return len(self.domains)


BINARY = [
    Binary("add", lambda L, a, b: a + b, np.add, lambda a, b, g: (g, g)),
    Binary("add_fn", lambda L, a, b: L.add(a, b), np.add, lambda a, b, g: (g, g)),
    Binary("sub", lambda L, a, b: a - b, np.subtract, lambda a, b, g: (g, -g)),
    Binary("mul", lambda L, a, b: a * b, np.multiply, lambda a, b, g: (g * b, g * a)),
    Binary(
        "div",
        lambda L, a, b: a / b,
        np.divide,
        lambda a, b, g: (g / b, -g * a / (b * b)),
        ("real", "nonzero"),
    ),
    Binary(
        "pow",
        lambda L, a, b: a**b,
        np.power,
        lambda a, b, g: (g * b * a ** (b - 1), g * a**b * np.log(a)),
        ("positive", "small"),
    ),
    Binary(
        "maximum",
        lambda L, a, b: L.maximum(a, b),
        np.maximum,
        # ties split the gradient in halves (PyTorch's convention)
        lambda a, b, g: (g * ((a > b) + 0.5 * (a == b)), g * ((b > a) + 0.5 * (a == b))),
        smooth=False,
    ),
    Binary(
        "matmul",
        lambda L, a, b: a @ b,
        np.matmul,
        _matmul_grads,
        signature=np.matmul.signature,
        mixed_dtypes_error=True,
    ),
    Binary(
        "clamp",
        lambda L, x, lo, hi: L.clamp(x, lo, hi),
        lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
        _clamp_grads,
        ("real", "real", "real"),
        first_is_largest=True,
        smooth=False,
    ),
    Binary(
        "mse_loss",
        lambda L, a, b: L.nn.functional.mse_loss(a, b, reduction="mean"),
        lambda a, b: np.mean((a - b) ** 2),
        _mse_grads,
        same_shape=True,
    ),
]
BY_NAME = {op.name: op for op in BINARY}


def _shapes_strategy(op: Binary):
    if op.signature is not None:
        return hnp.mutually_broadcastable_shapes(signature=op.signature, max_dims=4, max_side=4)
    return hnp.mutually_broadcastable_shapes(
        num_shapes=op.arity, min_dims=0, max_dims=4, max_side=4
    )


@st.composite
def binary_cases(draw, op: Binary, mixed_dtypes: bool = True):
    """(shapes, dtypes, arrays) for ``op``: mutually broadcastable shapes, a dtype per
    operand, values from the op's domain."""
    bshapes = draw(_shapes_strategy(op))
    shapes = list(bshapes.input_shapes)
    if op.same_shape:
        shapes = [bshapes.result_shape] * op.arity
    if op.first_is_largest:
        shapes[0] = bshapes.result_shape
    if mixed_dtypes:
        dtypes = [draw(st.sampled_from(sorted(DTYPES))) for _ in shapes]
    else:
        dtype = draw(st.sampled_from(sorted(DTYPES)))
        dtypes = [dtype] * len(shapes)
    arrays = [
        draw(hnp.arrays(np.float64, s, elements=ELEMENTS[d])) for s, d in zip(shapes, op.domains)
    ]
    return shapes, dtypes, arrays


def torch_result_dtype(shapes, dtypes) -> str:
    """PyTorch's promotion for float operands: dimensioned tensors decide; 0-d
    tensors only when every operand is 0-d."""
    dimensioned = [d for s, d in zip(shapes, dtypes) if len(s)]
    pool = dimensioned or dtypes
    return "float64" if "float64" in pool else "float32"


def _tolerance(dtype: str) -> dict:
    return {"rtol": 2e-5, "atol": 2e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _run(L, op: Binary, arrays, dtypes, g=None):
    xs = [L.tensor(a, dtype=getattr(L, d), requires_grad=True) for a, d in zip(arrays, dtypes)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = op.fn(L, *xs)
    grad_output = L.tensor(g, dtype=out.dtype) if g is not None else None
    out.backward(grad_output)
    return out, xs


def _check_binary(op: Binary, shapes, dtypes, arrays, seed: int):
    if op.mixed_dtypes_error and len(set(dtypes)) > 1:
        xs = [
            ak.tensor(a, dtype=getattr(ak, d), requires_grad=True) for a, d in zip(arrays, dtypes)
        ]
        with pytest.raises(RuntimeError):
            op.fn(ak, *xs)
        return
    expected_dtype = torch_result_dtype(shapes, dtypes)
    reference_shape = np.shape(op.forward(*arrays))
    g = np.random.default_rng(seed).uniform(-1, 1, reference_shape)
    g = g.astype(expected_dtype).astype(np.float64)  # exact in either dtype
    out, xs = _run(ak, op, arrays, dtypes, g)

    # forward: shape, dtype (PyTorch's promotion) and values (NumPy in that dtype)
    assert out.dtype.name == expected_dtype, (out.dtype, shapes, dtypes)
    assert tuple(out.shape) == reference_shape
    tol = _tolerance(expected_dtype)
    with np.errstate(all="ignore"):
        expected = op.forward(*[a.astype(expected_dtype) for a in arrays])
    np.testing.assert_allclose(out.detach().numpy(), expected, **tol)

    # gradients: shape and dtype of the input, analytic value
    broadcast = np.broadcast_arrays(*arrays) if op.signature is None else arrays
    with np.errstate(all="ignore"):
        analytic = op.grads(*broadcast, g)
    for x, a, d, want in zip(xs, arrays, dtypes, analytic):
        assert x.grad is not None
        assert tuple(x.grad.shape) == a.shape
        assert x.grad.dtype.name == d
        np.testing.assert_allclose(
            x.grad.numpy(),
            _sum_to(np.asarray(want, dtype=np.float64), a.shape),
            **_tolerance("float32" if "float32" in dtypes else "float64"),
        )

    if torch is not None:
        t_out, t_xs = _run(torch, op, arrays, dtypes, g)
        assert str(t_out.dtype) == f"torch.{expected_dtype}"
        np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), **tol)
        for x, t in zip(xs, t_xs):
            assert str(t.grad.dtype).removeprefix("torch.") == x.grad.dtype.name
            np.testing.assert_allclose(
                x.grad.numpy(),
                t.grad.numpy(),
                **_tolerance("float32" if "float32" in dtypes else "float64"),
            )
    elif op.smooth and all(d == "float64" for d in dtypes) and g.size <= 64:
        _check_finite_differences(op, arrays, xs, g)


def _check_finite_differences(op: Binary, arrays, xs, g, h: float = 1e-6):
    for i, x in enumerate(xs):
        numeric = np.zeros(arrays[i].shape)
        for idx in np.ndindex(arrays[i].shape):
            values = []
            for step in (h, -h):
                moved = [a.copy() for a in arrays]
                moved[i][idx] += step
                values.append(np.sum(g * op.forward(*moved)))
            numeric[idx] = (values[0] - values[1]) / (2 * h)
        np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", BINARY, ids=[op.name for op in BINARY])
@FAST
@given(data=st.data())
def test_binary_op_over_broadcast_shapes_and_dtypes(op: Binary, data):
    shapes, dtypes, arrays = data.draw(binary_cases(op))
    if op.name == "maximum" or op.name == "clamp":
        # Values from a coarse grid: ties (and, for clamp, inverted bounds) happen often.
        arrays = [np.asarray(np.round(a * 2) / 2) for a in arrays]
    _check_binary(op, shapes, dtypes, arrays, seed=data.draw(st.integers(0, 2**16)))


@pytest.mark.parametrize("name", ["add", "mul", "div", "pow", "maximum", "matmul"])
@FAST
@given(data=st.data())
def test_binary_op_same_dtype(name, data):
    """Same dtype on both sides (the common case, and the only one matmul accepts)."""
    op = BY_NAME[name]
    shapes, dtypes, arrays = data.draw(binary_cases(op, mixed_dtypes=False))
    _check_binary(op, shapes, dtypes, arrays, seed=0)


# Python numbers on either side of an operator.
SCALAR_OPS = {
    "add": (lambda a, c: a + c, lambda x, c: x + c, lambda x, c: 1.0 + 0 * x, "real", "any"),
    "radd": (lambda a, c: c + a, lambda x, c: c + x, lambda x, c: 1.0 + 0 * x, "real", "any"),
    "sub": (lambda a, c: a - c, lambda x, c: x - c, lambda x, c: 1.0 + 0 * x, "real", "any"),
    "rsub": (lambda a, c: c - a, lambda x, c: c - x, lambda x, c: -1.0 + 0 * x, "real", "any"),
    "mul": (lambda a, c: a * c, lambda x, c: x * c, lambda x, c: c + 0 * x, "real", "any"),
    "rmul": (lambda a, c: c * a, lambda x, c: c * x, lambda x, c: c + 0 * x, "real", "any"),
    "div": (lambda a, c: a / c, lambda x, c: x / c, lambda x, c: 1 / c + 0 * x, "real", "nonzero"),
    "rdiv": (lambda a, c: c / a, lambda x, c: c / x, lambda x, c: -c / (x * x), "nonzero", "any"),
    "pow": (lambda a, c: a**c, lambda x, c: x**c, lambda x, c: c * x ** (c - 1), "positive", "any"),
    "rpow": (
        lambda a, c: c**a,
        lambda x, c: c**x,
        lambda x, c: c**x * np.log(c),
        "real",
        "positive",
    ),
}


def _python_numbers(kind: str):
    ints = st.integers(-3, 3)
    floats = st.sampled_from([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.0, 3.0])
    numbers = ints | floats
    if kind == "nonzero":
        return numbers.filter(lambda c: c != 0)
    if kind == "positive":
        return st.sampled_from([0.5, 1.5, 2, 3, 2.5])
    return numbers


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
@FAST
@given(data=st.data())
def test_python_number_operand(name, data):
    fn, forward, derivative, domain, number_kind = SCALAR_OPS[name]
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, max_side=4))
    dtype = data.draw(st.sampled_from(sorted(DTYPES)))
    c = data.draw(_python_numbers(number_kind))
    x = data.draw(hnp.arrays(np.float64, shape, elements=ELEMENTS[domain]))
    a = ak.tensor(x, dtype=getattr(ak, dtype), requires_grad=True)
    out = fn(a, c)
    # A Python number never changes a float tensor's dtype.
    assert out.dtype.name == dtype and tuple(out.shape) == shape
    tol = _tolerance(dtype)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(out.detach().numpy(), forward(x.astype(dtype), c), **tol)
    out.sum().backward()
    assert a.grad.dtype.name == dtype and tuple(a.grad.shape) == shape
    np.testing.assert_allclose(a.grad.numpy(), np.broadcast_to(derivative(x, c), shape), **tol)
    if torch is not None:
        t = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
        t_out = fn(t, c)
        t_out.sum().backward()
        assert str(t_out.dtype) == f"torch.{dtype}"
        np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), **tol)
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), **tol)


@FAST
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
    dtypes=st.tuples(st.sampled_from(sorted(DTYPES)), st.sampled_from(sorted(DTYPES))),
    zero_d_first=st.booleans(),
    name=st.sampled_from(["add", "sub", "mul", "div", "maximum"]),
)
def test_zero_d_tensor_does_not_promote_a_dimensioned_one(shape, dtypes, zero_d_first, name):
    """0-d float64 with a float32 vector gives float32 (PyTorch), unlike NumPy."""
    op = BY_NAME[name]
    vec_dtype, scalar_dtype = dtypes
    arrays = [np.full(shape, 1.5), np.asarray(0.75)]
    tensor_dtypes = [vec_dtype, scalar_dtype]
    if zero_d_first:
        arrays.reverse()
        tensor_dtypes.reverse()
    out, xs = _run(ak, op, arrays, tensor_dtypes, np.ones(shape))
    assert out.dtype.name == vec_dtype
    for x, d in zip(xs, tensor_dtypes):
        assert x.grad.dtype.name == d


# ----------------------------------------------------------------------------- the engine

UNARY_CHAINS = {
    "tanh": lambda t: t.tanh(),
    "sigmoid_mul": lambda t: t.sigmoid() * t,
    "square_plus": lambda t: t * t + t,
    "exp_small": lambda t: (t * 0.1).exp(),
    "matmul_self": lambda t: t @ t.T if t.ndim == 2 else t * t,
    "index_repeat": lambda t: t[..., [0, 0]] if t.ndim else t * 3,
}


@FAST
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
    values=st.data(),
    k=st.integers(1, 6),
    name=st.sampled_from(sorted(UNARY_CHAINS)),
    shared=st.booleans(),
)
def test_reuse_k_times_gives_k_times_the_gradient(shape, values, k, name, shared):
    """x used k times (separate subgraphs, or one shared intermediate fanned out
    k times) gets k times the gradient of a single use."""
    f = UNARY_CHAINS[name]
    if name == "matmul_self" and len(shape) == 2:
        shape = (shape[0], shape[0])
    x_values = values.draw(hnp.arrays(np.float64, shape, elements=ELEMENTS["small"]))

    x = ak.tensor(x_values, dtype=ak.float64, requires_grad=True)
    f(x).sum().backward()
    single = x.grad.numpy().copy()

    x = ak.tensor(x_values, dtype=ak.float64, requires_grad=True)
    if shared:
        h = x * 1.0  # one node whose output fans out k times
        total = f(h).sum()
        for _ in range(k - 1):
            total = total + f(h).sum()
    else:
        total = sum((f(x).sum() for _ in range(k)), start=ak.tensor(0.0, dtype=ak.float64))
    total.backward()
    np.testing.assert_allclose(x.grad.numpy(), k * single, rtol=1e-12, atol=1e-12)


def test_long_chain_does_not_recurse():
    """100,000 nodes in a row: the engine is iterative, so no RecursionError."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # a recursive engine would fail far below 100,000
    try:
        x = ak.tensor(2.0, requires_grad=True)
        t = x
        for _ in range(100_000):
            t = t * 1.0
        t.backward()
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad.item() == 1.0


# Random graphs for backward_steps: a list of (op, i, j, retain) instructions, each
# combining two earlier tensors (leaves or results) of the same shape.
GRAPH_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "tanh_mul": lambda a, b: a.tanh() * b,
    "sigmoid_add": lambda a, b: a.sigmoid() + b,
    "scale": lambda a, b: a * 0.5,
    "sum_keepdim": lambda a, b: a.sum(-1, keepdim=True) * b if a.ndim else a * b,
    "stack_sum": lambda a, b: ak.stack([a, b, a]).sum(0),
}


@st.composite
def graph_programs(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    n_leaves = draw(st.integers(1, 4))
    leaves = [
        draw(hnp.arrays(np.float64, shape, elements=ELEMENTS["small"])) for _ in range(n_leaves)
    ]
    requires = [True] + [draw(st.booleans()) for _ in range(n_leaves - 1)]
    steps = draw(
        st.lists(
            st.tuples(
                st.sampled_from(sorted(GRAPH_OPS)),
                st.integers(0, 50),
                st.integers(0, 50),
                st.booleans(),
            ),
            min_size=1,
            max_size=10,
        )
    )
    roots = draw(st.lists(st.integers(0, 50), min_size=0, max_size=3))
    initial_grads = [draw(st.booleans()) for _ in range(n_leaves)]
    return shape, leaves, requires, steps, roots, initial_grads


def build_graph(program):
    """Run the program; return (leaves, tensors, loss)."""
    shape, leaf_values, requires, steps, roots, initial_grads = program
    leaves = [
        ak.tensor(v, dtype=ak.float64, requires_grad=r) for v, r in zip(leaf_values, requires)
    ]
    for leaf, has_grad, v in zip(leaves, initial_grads, leaf_values):
        if has_grad and leaf.requires_grad:
            leaf.grad = ak.tensor(np.full(v.shape, 0.25))
    tensors = list(leaves)
    for name, i, j, retain in steps:
        a, b = tensors[i % len(tensors)], tensors[j % len(tensors)]
        result = GRAPH_OPS[name](a, b)
        if retain and result.requires_grad:
            result.retain_grad()
        tensors.append(result)
    loss = tensors[-1].sum()
    for r in roots:
        loss = loss + (tensors[r % len(tensors)] * 0.5).sum()
    return leaves, tensors, loss


def _grads(tensors):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of non-leaves
        return [None if t.grad is None else t.grad.numpy().copy() for t in tensors]


def _reachable(root):
    seen, stack = {root}, [root]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=graph_programs())
def test_backward_steps_properties(program):
    leaves, tensors, loss = build_graph(program)
    assume(loss.requires_grad)

    # The reference: the same graph, rebuilt, through backward().
    ref_leaves, ref_tensors, ref_loss = build_graph(program)
    ref_loss.backward()

    watched = [t for t in tensors if t.requires_grad and (t.is_leaf or t.retains_grad)]
    initial = _grads(watched)
    steps: list = []
    received: Counter = Counter()
    sent_to: dict = {}
    accumulations = []
    iterator = ak.autograd.backward_steps(loss)
    while True:
        # Each next() runs one node: snapshot the .grad values before it does.
        before = {id(t): g for t, g in zip(watched, _grads(watched))}
        step = next(iterator, None)
        if step is None:
            break
        steps.append(step)
        # Every .grad this step changed reports its previous value …
        for acc in step.accumulations:
            previous = before[id(acc.tensor)]
            if previous is None:
                assert acc.previous is None
            else:
                np.testing.assert_array_equal(acc.previous.numpy(), previous)
            new = acc.tensor.grad.numpy()
            np.testing.assert_allclose(
                new,
                (0 if previous is None else previous) + acc.grad.numpy(),
                rtol=1e-12,
                atol=1e-12,
            )
            accumulations.append(acc)
        # … and changed no other .grad.
        changed = {id(acc.tensor) for acc in step.accumulations}
        for t, g in zip(watched, _grads(watched)):
            if id(t) not in changed:
                b = before[id(t)]
                assert (g is None) == (b is None)
                if g is not None:
                    np.testing.assert_array_equal(g, b)
        # The gradients it sent have the shapes of the inputs they are for.
        assert len(step.grad_inputs) == len(step.node.next_functions)
        for (child, _), grad in zip(step.node.next_functions, step.grad_inputs):
            if child is None:
                assert grad is None
                continue
            if grad is None:
                continue
            if isinstance(child, ak.autograd.function.AccumulateGrad):
                assert tuple(grad.shape) == tuple(child.variable.shape)
            sent_to.setdefault(child, []).append(grad.numpy())
        received[step.node] += 1

    # Draining the steps is backward(): identical .grad everywhere.
    for ours, theirs in zip(
        _grads(watched),
        _grads([t for t in ref_tensors if t.requires_grad and (t.is_leaf or t.retains_grad)]),
    ):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_array_equal(ours, theirs)

    # Every reachable node ran exactly once.
    assert set(received) == _reachable(loss.grad_fn)
    assert all(count == 1 for count in received.values())

    # Dependency order: a node runs after every node that sends to it.
    position = {step.node: step.index for step in steps}
    assert [step.index for step in steps] == list(range(len(steps)))
    for step in steps:
        for child, _ in step.node.next_functions:
            if child is not None:
                assert position[child] > step.index

    # What a node received is the sum of what was sent to it, each piece shaped
    # like the node's output (= the gradient it received).
    for step in steps:
        if step.node in sent_to:
            pieces = sent_to[step.node]
            assert all(p.shape == tuple(step.grad_output.shape) for p in pieces)
            np.testing.assert_allclose(
                step.grad_output.numpy(), sum(pieces), rtol=1e-12, atol=1e-12
            )
        else:
            assert step.node is loss.grad_fn

    # Restoring the previous values, last step first, undoes the whole pass.
    for acc in reversed(accumulations):
        acc.tensor.grad = acc.previous
    for g, g0 in zip(_grads(watched), initial):
        assert (g is None) == (g0 is None)
        if g is not None:
            np.testing.assert_array_equal(g, g0)


@settings(max_examples=30, deadline=None)
@given(program=graph_programs())
def test_backward_steps_can_stop_half_way(program):
    """The pass runs lazily: taking only some steps leaves later leaves untouched."""
    leaves, tensors, loss = build_graph(program)
    assume(loss.requires_grad)
    watched = [t for t in leaves if t.requires_grad]
    before = _grads(watched)
    iterator = ak.autograd.backward_steps(loss)
    first = next(iterator)
    assert first.index == 0 and first.node is loss.grad_fn
    touched = {id(acc.tensor) for acc in first.accumulations}
    for t, g, g0 in zip(watched, _grads(watched), before):
        if id(t) not in touched:
            assert (g is None) == (g0 is None)
