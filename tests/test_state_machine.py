"""Stateful differential test: autogradkit and PyTorch side by side.

A hypothesis ``RuleBasedStateMachine`` builds the same program in both libraries,
one random step at a time — leaves, operations, detach, ``requires_grad_``,
``no_grad``, in-place operations, ``backward`` (with and without
``retain_graph``), zeroing gradients, ``retain_grad`` — and after every step
checks that each pair of tensors agrees: values, ``requires_grad``, ``is_leaf``,
``grad_fn`` name, ``.grad`` and version counter. Every step that fails in one
library must fail in the other with the same error type and message.

Views are in the machine: indexing and view operations (slices, ``x[0]``,
``view``, ``t``, ``transpose``, ``unsqueeze``) of leaves and graph tensors, under
grad mode and no_grad alike, and in-place changes (``mul_``, ``add_``, ``copy_``,
``fill_``, assignment by index or index tensor) of views and of tensors that have
views, compared like everything else: values, versions, histories (CopySlices,
AsStridedBackward0) and errors. The tests at the end and
tests/differential/test_views_vs_torch.py pin down the view rules.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (  # noqa: E402
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
)

import autogradkit as ak  # noqa: E402

pytestmark = pytest.mark.torch

SHAPES = [(), (2,), (3,), (2, 3), (3, 2)]
LIBS = (ak, torch)


@dataclass(eq=False)
class Pair:
    """The same tensor in both libraries. ``family`` identifies the storage the
    tensor shares (detach keeps it; indexing views are tracked as such)."""

    ours: ak.Tensor
    theirs: Any  # a torch.Tensor (torch is imported only if installed)
    family: int
    label: str

    def side(self, lib):
        return self.ours if lib is ak else self.theirs

    def __repr__(self) -> str:
        return self.label


# Known wording gap: for a view made with grad mode on from a view made under
# no_grad, PyTorch names the view's node ("Output 0 of Select is a view of a view
# which was created in no_grad mode ..."); autogradkit raises the same error for the
# same cause with the plain sentence ("A view was created in no_grad mode ...").
_VIEW_OF_NO_GRAD_VIEW = re.compile(
    r"Output \d+ of \w+ is a view of a view which was created in no_grad mode and"
)


# PyTorch words an out-of-range index of a 0-d tensor by how the tensor was made:
# "index -1 is out of bounds for dimension 0 with size 0" for most, "select() cannot
# be applied to a 0-dim tensor." for the result of mse_loss (its kernel's output).
# autogradkit gives the first for all; the error and its cause are the same.
_ZERO_DIM_SELECT = re.compile(r"select\(\) cannot be applied to a 0-dim tensor\.")


def _normalise(message: str) -> str:
    message = _VIEW_OF_NO_GRAD_VIEW.sub("A view was created in no_grad mode and", message)
    message = re.sub(r"index -?\d+ is out of bounds for dimension 0 with size 0", "", message)
    message = _ZERO_DIM_SELECT.sub("", message)
    return message.replace("autogradkit", "torch")


def _is_leaf(t):
    """``t.is_leaf``, or the message of the RuntimeError reading it raises."""
    try:
        return t.is_leaf
    except RuntimeError as error:
        return _normalise(str(error))


def _grad_fn_name(t) -> str | None:
    """The name of ``t.grad_fn``, or the error reading it raises (PyTorch refuses to
    regenerate the history of a view made under no_grad whose base changed)."""
    try:
        node = t.grad_fn
    except RuntimeError as error:
        return _normalise(str(error))
    return None if node is None else re.sub(r"^\w+::autograd::", "", node.name())


# Index keys: (key, is a view in PyTorch).
def _index_keys(shape: tuple) -> list:
    if not shape:
        return [(Ellipsis, True), (None, True)]
    keys = [
        (0, True),
        (-1, True),
        (slice(1, None), True),
        (slice(None, None, 2), True),
        ([0, 0], False),
        ([-1, 0, -1], False),
    ]
    if len(shape) == 2:
        keys += [((0, slice(None)), True), ((slice(None), 1), True), (([1, 0], [0, 1]), False)]
    return keys


# Views the machine takes (a key that does not fit the shape fails in both).
VIEWS = {
    "[0]": lambda t: t[0],
    "[1:]": lambda t: t[1:],
    "[:, 0]": lambda t: t[:, 0],
    "[...]": lambda t: t[...],
    ".view(-1)": lambda t: t.view(-1),
    ".t()": lambda t: t.t(),
    ".transpose(0, -1)": lambda t: t.transpose(0, -1),
    ".unsqueeze(0)": lambda t: t.unsqueeze(0),
    ".reshape(-1)": lambda t: t.reshape(-1),
    ".flatten()": lambda t: t.flatten(),
    ".squeeze()": lambda t: t.squeeze(),
    ".narrow(0, 0, 1)": lambda t: t.narrow(0, 0, 1),
    ".chunk(2)[0]": lambda t: t.chunk(2)[0],
    ".split(1)[-1]": lambda t: t.split(1)[-1],
    ".unbind(0)[0]": lambda t: t.unbind(0)[0],
    ".mT": lambda t: t.mT,
    # (No expand that repeats elements: PyTorch lets an in-place op write one element
    # of it through a view, which autogradkit refuses; see docs/differences.md.)
}


# Operations of one tensor: out of place, and in place on a copy (``t * 1`` keeps a
# leaf out of it), which save their input or their output for backward.
UNARY = {
    "exp": lambda lib, t: t.exp(),
    "sigmoid": lambda lib, t: t.sigmoid(),
    "tanh": lambda lib, t: t.tanh(),
    "relu": lambda lib, t: t.relu(),
    "abs": lambda lib, t: t.abs(),
    "square": lambda lib, t: t**2,
    "sum": lambda lib, t: t.sum(),
    "sum0": lambda lib, t: t.sum(0),
    "mean0": lambda lib, t: t.mean(0),
    "softmax": lambda lib, t: t.softmax(-1),
    "clamp": lambda lib, t: t.clamp(-0.5, 0.5),
    "neg": lambda lib, t: -t,
    "scale": lambda lib, t: t * 0.5,
    "exp_": lambda lib, t: (t * 1).exp_(),
    "sigmoid_": lambda lib, t: (t * 1).sigmoid_(),
    "tanh_": lambda lib, t: (t * 1).tanh_(),
    "relu_": lambda lib, t: (t * 1).relu_(),
    "clamp_": lambda lib, t: (t * 1).clamp_(-0.5, 0.5),
}


def _side(value, lib):
    return value.side(lib) if isinstance(value, Pair) else value


def _index_put(lib, t, other):
    index = lib.tensor([0, -1])
    t[index] = other if not isinstance(other, (int, float)) else lib.tensor(other, dtype=t.dtype)


# In-place changes of a view (or of a tensor with views); ``other`` is a number or a tensor.
VIEW_INPLACE = {
    "mul_": lambda lib, t, other: t.mul_(other),
    "add_": lambda lib, t, other: t.add_(other),
    "copy_": lambda lib, t, other: t.copy_(
        other if not isinstance(other, float) else lib.tensor(other, dtype=t.dtype)
    ),
    "fill_": lambda lib, t, other: t.fill_(
        other if isinstance(other, float) or other.ndim == 0 else other.sum()
    ),
    "setitem[0]": lambda lib, t, other: t.__setitem__(0, other),
    "setitem[...]": lambda lib, t, other: t.__setitem__(Ellipsis, other),
    "setitem[index]": _index_put,
    "[0].mul_": lambda lib, t, other: t[0].mul_(other),
    "[-1].copy_": lambda lib, t, other: t[-1].copy_(
        other if not isinstance(other, float) else lib.tensor(other, dtype=t.dtype)
    ),
}


def _order_dependent(apply, x, other) -> bool:
    """Whether PyTorch's ``apply(torch, x, other)`` (an in-place change of ``x`` that
    reads ``other``) gives a result that depends on its loop order. PyTorch refuses
    an operand that overlaps the elements written only where it can tell (both
    dense); otherwise, as in ``x.add_(x[:, 1][1:])``, it may read elements it has
    already written, which its docs leave undefined, while autogradkit reads
    ``other`` as it was. Tried twice on copies of the storage, with ``x`` and
    ``other`` viewing it as they view the original, and ``other`` cloned first the
    second time: different results mean the order mattered."""
    if not isinstance(other, Pair):
        return False
    x, other = x.theirs, other.theirs
    if x.untyped_storage().data_ptr() != other.untyped_storage().data_ptr():
        return False
    size = x.untyped_storage().nbytes() // x.element_size()
    storage = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage(), 0, (size,), (1,))
    results = []
    for clone_first in (False, True):
        copy = storage.clone()
        x_copy = copy.as_strided(x.shape, x.stride(), x.storage_offset())
        other_copy = copy.as_strided(other.shape, other.stride(), other.storage_offset())
        try:
            apply(torch, x_copy, other_copy.clone() if clone_first else other_copy)
        except Exception:  # refused, or any other error: both libraries must agree
            return False
        results.append(copy)
    return not torch.equal(results[0], results[1])


def _matmul_fits(a: tuple, b: tuple) -> bool:
    if not a or not b:
        return False
    return a[-1] == (b[0] if len(b) == 1 else b[-2])


class AutogradPair(RuleBasedStateMachine):
    leaves = Bundle("leaves")
    derived = Bundle("derived")

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[Pair] = []
        self.grad_enabled = True
        self.families_with_views: set[int] = set()
        # A gradient's version counter starts where each engine leaves it: PyTorch's
        # accumulates some gradients in place (x.t() * x gives version 1), which is
        # not autograd's meaning. Later changes of it must move both alike.
        self.version_skew: dict[int, int] = {}
        self.formula_results: set[int] = set()
        self.counter = 0

    # -- helpers ------------------------------------------------------------------
    def _new_family(self) -> int:
        self.counter += 1
        return self.counter

    def _grad_mode(self):
        if self.grad_enabled:
            return _Nothing()
        return _Both(ak.no_grad(), torch.no_grad())

    def _both(self, fn):
        """Run ``fn(lib)`` in both libraries; they must both succeed or both raise the
        same error. Returns the two results, or None when both raised."""
        outcomes = []
        for lib in LIBS:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with self._grad_mode():
                        outcomes.append(("ok", fn(lib)))
            except Exception as error:
                outcomes.append((type(error).__name__, _normalise(str(error))))
        (kind_a, value_a), (kind_b, value_b) = outcomes
        assert kind_a == kind_b, f"autogradkit: {kind_a} {value_a!r}\ntorch: {kind_b} {value_b!r}"
        if kind_a != "ok":
            assert value_a == value_b, f"messages differ:\nautogradkit: {value_a}\ntorch: {value_b}"
            return None
        return value_a, value_b

    def _add(self, results, family: int, label: str):
        if results is None:  # both libraries raised: nothing new
            return multiple()
        ours, theirs = results
        pair = Pair(ours, theirs, family, label)
        self.pairs.append(pair)
        return pair

    def _any_tensor(self):
        return st.one_of(self.leaves, self.derived)

    # -- rules: making tensors -------------------------------------------------------
    @initialize(target=leaves, shape=st.sampled_from(SHAPES), data=st.data())
    def first_leaf(self, shape, data):
        return self.create_leaf(shape, True, data)

    @initialize(
        target=leaves, shape=st.sampled_from(SHAPES), requires_grad=st.booleans(), data=st.data()
    )
    def second_leaf(self, shape, requires_grad, data):
        return self.create_leaf(shape, requires_grad, data)

    @rule(target=leaves, shape=st.sampled_from(SHAPES), requires_grad=st.booleans(), data=st.data())
    def create_leaf(self, shape, requires_grad, data):
        values = data.draw(
            st.lists(
                st.floats(-2, 2, width=32),
                min_size=int(np.prod(shape)),
                max_size=int(np.prod(shape)),
            )
        )
        array = np.asarray(values, dtype=np.float64).reshape(shape)
        ours = ak.tensor(array, dtype=ak.float64, requires_grad=requires_grad)
        theirs = torch.tensor(array, dtype=torch.float64, requires_grad=requires_grad)
        return self._add((ours, theirs), self._new_family(), f"leaf{self.counter}")

    @rule(
        target=derived,
        x=st.one_of(leaves, derived),
        op=st.sampled_from(sorted(UNARY)),
    )
    def unary(self, x, op):
        # Skipped, not assume()d: a rejected step would discard the whole program.
        too_large = np.any(np.abs(x.ours.detach().numpy()) >= 5)  # exp: keep values finite
        if (op in ("exp", "exp_") and too_large) or (
            op in ("sum0", "mean0", "softmax") and x.ours.ndim == 0
        ):
            return multiple()
        results = self._both(lambda lib: UNARY[op](lib, x.side(lib)))
        return self._add(results, self._new_family(), f"{op}({x.label})")

    @rule(
        target=derived,
        a=st.one_of(leaves, derived),
        b=st.one_of(leaves, derived),
        op=st.sampled_from(["mul", "add", "sub", "div", "maximum", "mse_loss"]),
    )
    def binary(self, a, b, op):
        near_zero = np.any(np.abs(b.ours.detach().numpy()) <= 0.25)
        if op == "div" and near_zero:  # a denominator away from 0 keeps values comparable
            return multiple()
        # Shapes that do not broadcast must fail the same way in both.
        if op == "mse_loss":
            results = self._both(lambda lib: lib.nn.functional.mse_loss(a.side(lib), b.side(lib)))
        else:
            results = self._both(lambda lib: getattr(lib, op)(a.side(lib), b.side(lib)))
        return self._add(results, self._new_family(), f"{op}({a.label}, {b.label})")

    @rule(target=derived, a=st.one_of(leaves, derived), b=st.one_of(leaves, derived))
    def matmul(self, a, b):
        # Skipped, not assume()d: a rejected step would discard the whole program.
        if not _matmul_fits(tuple(a.ours.shape), tuple(b.ours.shape)):
            return multiple()
        results = self._both(lambda lib: a.side(lib) @ b.side(lib))
        return self._add(results, self._new_family(), f"({a.label} @ {b.label})")

    @rule(target=derived, x=st.one_of(leaves, derived), data=st.data())
    def index(self, x, data):
        key, is_view = data.draw(st.sampled_from(_index_keys(tuple(x.ours.shape))))
        results = self._both(lambda lib: x.side(lib)[key])
        # A view shares storage (and the version counter) with x in both libraries.
        family = x.family if is_view else self._new_family()
        if is_view:
            self.families_with_views.add(family)
        return self._add(results, family, f"{x.label}[{key!r}]")

    @rule(target=derived, y=st.one_of(leaves, derived), x=leaves)
    def grad_with_graph(self, y, x):
        """autograd.grad(y.sum(), x, create_graph=True): the gradient is a tensor with
        a history of its own, which later rules use, change and differentiate again."""
        results = self._both(
            lambda lib: lib.autograd.grad(
                y.side(lib).sum(), x.side(lib), create_graph=True, allow_unused=True
            )[0]
        )
        if results is None or results[0] is None or results[1] is None:
            assert results is None or (results[0] is None) == (results[1] is None)
            return multiple()
        if results[1]._is_zerotensor():
            # PyTorch's symbolic zero, which it refuses to accumulate into later
            # ("ZeroTensors are immutable"): an implementation detail, not compared.
            return multiple()
        family = self._new_family()
        self.version_skew[family] = results[0]._version - results[1]._version
        pair = self._add(results, family, f"grad({y.label}, {x.label})")
        # Its own node is the last step of a backward formula, which autogradkit
        # writes with its own operations (docs/differences.md): the name may differ.
        self.formula_results.add(id(pair))
        return pair

    # _writes_into_gradient: a gradient from grad_with_graph is often an expanded
    # view (a sum's backward repeats one value). PyTorch lets fill_/zero_ write it,
    # and any in-place op write a view of it that selects one element; autogradkit
    # refuses those (docs/differences.md), so the machine does not write gradients.

    @rule(x=st.one_of(leaves, derived), kind=st.sampled_from(["double", "observe"]))
    def register_hook(self, x, kind):
        """A hook on a tensor: one that doubles the gradient flowing through it, or
        one that returns None (the gradient unchanged)."""

        def hook(grad):
            return grad * 2 if kind == "double" else None

        self._both(lambda lib: x.side(lib).register_hook(hook) and None)

    @rule(target=leaves, x=st.one_of(leaves, derived))
    def detach(self, x):
        results = self._both(lambda lib: x.side(lib).detach())
        return self._add(results, x.family, f"{x.label}.detach()")

    @rule(
        target=derived,
        x=st.one_of(leaves, derived),
        kind=st.sampled_from(sorted(VIEWS)),
    )
    def take_view(self, x, kind):
        """A view of a leaf or graph tensor (both libraries refuse the same views)."""
        results = self._both(lambda lib: VIEWS[kind](x.side(lib)))
        self.families_with_views.add(x.family)
        return self._add(results, x.family, f"{x.label}{kind}")

    @rule(
        x=st.one_of(leaves, derived),
        op=st.sampled_from(sorted(VIEW_INPLACE)),
        data=st.data(),
    )
    def inplace_on_view(self, x, op, data):
        """An in-place change of a tensor that is a view or has views: values,
        versions, histories (CopySlices, AsStridedBackward0) and errors must agree."""
        if x.family in self.version_skew:
            return  # a gradient (maybe an expanded view): see _writes_into_gradient
        other = data.draw(st.one_of(st.sampled_from([0.5, -2.0]), self._any_tensor()))
        if _order_dependent(VIEW_INPLACE[op], x, other):
            return  # PyTorch's result depends on its loop order: nothing to compare
        self._both(lambda lib: VIEW_INPLACE[op](lib, x.side(lib), _side(other, lib)) and None)

    # -- rules: autograd state ----------------------------------------------------------
    @rule(x=st.one_of(leaves, derived), flag=st.booleans())
    def set_requires_grad(self, x, flag):
        self._both(lambda lib: x.side(lib).requires_grad_(flag) and None)

    @rule()
    def toggle_no_grad(self):
        self.grad_enabled = not self.grad_enabled

    @rule(x=st.one_of(leaves, derived))
    def retain_grad(self, x):
        self._both(lambda lib: x.side(lib).retain_grad())

    @rule(
        x=st.one_of(leaves, derived),
        op=st.sampled_from(["add_", "mul_", "zero_", "sub_", "div_"]),
        data=st.data(),
    )
    def inplace(self, x, op, data):
        if x.family in self.version_skew:
            return  # a gradient (maybe an expanded view): see _writes_into_gradient
        if op == "zero_":
            self._both(lambda lib: x.side(lib).zero_() and None)
            return
        other = data.draw(st.one_of(st.sampled_from([0.5, 2.0, -1.0]), self._any_tensor()))
        if (
            op == "div_"
            and isinstance(other, Pair)
            and np.any(np.abs(other.ours.detach().numpy()) <= 0.25)
        ):
            return
        if _order_dependent(lambda lib, t, o: getattr(t, op)(o), x, other):
            return  # PyTorch's result depends on its loop order: nothing to compare
        if isinstance(other, Pair):
            self._both(lambda lib: getattr(x.side(lib), op)(other.side(lib)) and None)
        else:
            self._both(lambda lib: getattr(x.side(lib), op)(other) and None)

    @rule(x=st.one_of(leaves, derived), retain_graph=st.booleans())
    def backward(self, x, retain_graph):
        self._both(lambda lib: x.side(lib).sum().backward(retain_graph=retain_graph))

    @rule(x=leaves, how=st.sampled_from(["zero_", "none"]))
    def clear_grad(self, x, how):
        def clear(lib):
            t = x.side(lib)
            if how == "none":
                t.grad = None
            elif t.grad is not None:
                t.grad.zero_()

        self._both(clear)

    # -- invariants -----------------------------------------------------------------------
    @invariant()
    def same_state(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # .grad of non-leaves
            for pair in self.pairs:
                ours, theirs = pair.ours, pair.theirs
                where = f"{pair.label}"
                assert tuple(ours.shape) == tuple(theirs.shape), where
                np.testing.assert_allclose(
                    ours.detach().numpy(),
                    # force: a gradient PyTorch knows is zero may be its ZeroTensor
                    theirs.detach().numpy(force=True),
                    rtol=1e-12,
                    atol=1e-12,
                    equal_nan=True,
                    err_msg=where,
                )
                assert ours.requires_grad == theirs.requires_grad, where
                assert _is_leaf(ours) == _is_leaf(theirs), where
                if id(pair) not in self.formula_results:
                    assert _grad_fn_name(ours) == _grad_fn_name(theirs), where
                assert ours.retains_grad == theirs.retains_grad, where
                skew = self.version_skew.get(pair.family, 0)
                assert ours._version - skew == theirs._version, where
                g_ours, g_theirs = ours.grad, theirs.grad
                assert (g_ours is None) == (g_theirs is None), where
                if g_ours is not None:
                    np.testing.assert_allclose(
                        g_ours.detach().numpy(),  # (a create_graph pass's .grad has a graph)
                        g_theirs.detach().numpy(force=True),
                        rtol=1e-10,
                        atol=1e-12,
                        equal_nan=True,
                        err_msg=where,
                    )


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Both:
    def __init__(self, *managers):
        self.managers = managers

    def __enter__(self):
        for m in self.managers:
            m.__enter__()
        return self

    def __exit__(self, *exc):
        for m in reversed(self.managers):
            m.__exit__(*exc)
        return False


AutogradPair.TestCase.settings = settings(
    # Fixed examples under every profile, so the test command cannot fail by chance.
    # To hunt for differences from PyTorch, run this file with derandomize=False: of
    # 14 random runs after the no_grad-view, CopySlices and overlap fixes, one found
    # a difference: a view made under no_grad of a 0-d leaf, then the leaf changed in
    # place with grad mode on, which PyTorch refuses ("A view was created in no_grad
    # mode and its base ... has been modified inplace") and we do not. 24 further
    # runs of 150 examples did not find it again (nor did hand-written variants); two
    # of them found matmul's batched graph (vector @ unsqueezed matrix), since fixed.
    derandomize=True,
    database=None,
    max_examples=60,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestAutogradAgainstTorch = AutogradPair.TestCase


# ----------------------------------------------------------------------------- views, scalars, leaves


def test_inplace_on_view_of_leaf_is_refused():
    for lib in LIBS:
        a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            a[0].add_(1)


def test_inplace_on_view_of_a_graph_tensor_rebases_the_base():
    """PyTorch rebases the base's history through a CopySlices node; so does
    autogradkit, with the same graph and gradients."""
    results = []
    for lib in LIBS:
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([0.5, -2.0], dtype=lib.float64, requires_grad=True)
        c = a * 2
        c[0].mul_(5)
        c[:, 1].add_(x)
        (c * c).sum().backward()
        names = (
            _grad_fn_name(c),
            _grad_fn_name(c[0]),
            type(c.grad_fn.next_functions[0][0]).__name__,
        )
        results.append((names, a.grad.numpy(), x.grad.numpy(), c.detach().numpy()))
    (names_ak, *ours), (names_torch, *theirs) = results
    assert names_ak == names_torch == ("CopySlices", "SelectBackward0", "CopySlices")
    for mine, expected in zip(ours, theirs):
        np.testing.assert_array_equal(mine, expected)
    before = c.detach().numpy()[0].copy()
    with ak.no_grad():
        c[0].mul_(5)  # outside the graph it is ordinary NumPy
    np.testing.assert_array_equal(c.detach().numpy()[0], before * 5)


def test_modifying_the_base_of_a_saved_view_is_detected():
    for lib in LIBS:
        a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        b = a * 1
        c = b.t()  # a view of b's storage, saved by the product below
        d = (c * c).sum()
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            d.backward()


def test_a_view_shares_its_base_and_version_counter():
    a = ak.ones(2, 3, dtype=ak.float64)
    for view in (a[0], a[:, 1:], a.t(), a.reshape(6), a.unsqueeze(0), a.T):
        assert view._base is a
        assert view._version == a._version
    row = a[0]
    a.add_(1)
    assert row._version == a._version == 1
    assert a[[0, 1]]._base is None  # advanced indexing copies


def test_view_follows_its_base_requires_grad():
    flags = []
    for lib in LIBS:
        x = lib.zeros(3, dtype=lib.float64)
        v = x[1:]
        x.requires_grad_(True)
        flags.append(v.requires_grad)
    assert flags[0] == flags[1] == True  # noqa: E712 - the flag itself


def test_view_made_under_no_grad_keeps_requires_grad():
    flags = []
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            v = x[1:]
        flags.append((v.requires_grad, v.is_leaf))
    assert flags[0] == flags[1] == (True, True)


def test_scalar_parameter_accumulates_twice():
    b = ak.tensor(0.5, dtype=ak.float64, requires_grad=True)  # a bias
    x = ak.ones(2, dtype=ak.float64)
    (x + b).sum().backward()
    (x + b).sum().backward()
    assert b.grad.item() == 4.0


def test_scalar_parameter_grad_can_be_zeroed():
    b = ak.tensor(0.5, dtype=ak.float64, requires_grad=True)
    (ak.ones(2, dtype=ak.float64) * b).sum().backward()
    b.grad.zero_()
    assert b.grad.item() == 0.0


def test_leaf_switched_off_gets_no_grad():
    """Regression (found by the machine): PyTorch's AccumulateGrad skips a leaf that
    stopped requiring grad after it joined a graph."""
    x = ak.tensor(0.5, dtype=ak.float64, requires_grad=True)
    d = x * x
    x.requires_grad_(False)
    d.backward()
    assert x.grad is None


def test_leaf_moved_into_the_graph_interior():
    for lib in LIBS:
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x.exp()  # the graph of y ends in x's AccumulateGrad
        x.requires_grad_(False)
        x.add_(y)  # x is now a non-leaf: AddBackward0
        with pytest.raises(
            RuntimeError, match="leaf variable has been moved into the graph interior"
        ):
            x.sum().backward()


def test_retained_grad_follows_an_inplace_update():
    results = []
    for lib in LIBS:
        a = lib.ones(3, dtype=lib.float64, requires_grad=True)
        b = a * 2
        b.retain_grad()
        b.mul_(3)
        b.sum().backward()
        results.append(b.grad.numpy())
    np.testing.assert_array_equal(*results)
