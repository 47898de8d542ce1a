"""torch.outer and torch.allclose: what the notebooks use to check a gradient
against the hand-derived ∂loss/∂w = x ⊗ (σ(z) − y)/N, compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as agk

CASES_OUTER = [((2,), (3,)), ((1,), (4,)), ((5,), (1,))]


def _torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize(("m", "n"), CASES_OUTER)
def test_outer_values_and_gradients_match_the_definition(m, n):
    rng = np.random.default_rng(0)
    a_np, b_np = rng.normal(size=m).astype(np.float32), rng.normal(size=n).astype(np.float32)
    a, b = agk.tensor(a_np, requires_grad=True), agk.tensor(b_np, requires_grad=True)
    out = agk.outer(a, b)
    np.testing.assert_allclose(out.numpy(force=True), np.outer(a_np, b_np), rtol=1e-6)
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(m, b_np.sum()), rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), np.full(n, a_np.sum()), rtol=1e-5)
    assert agk.allclose(a.outer(b), out)


@pytest.mark.torch
def test_outer_matches_pytorch_graph_and_errors():
    torch = _torch()
    graphs = []
    for lib in (agk, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        out = lib.outer(a, lib.tensor([1.0, 2.0, 3.0]))
        graphs.append(
            (
                out.grad_fn.name(),
                [None if node is None else node.name() for node, _ in out.grad_fn.next_functions],
            )
        )
    assert graphs[0] == graphs[1]
    for call in (
        lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2)),
        lambda lib: lib.outer(lib.ones(2), lib.ones(2, 1)),
        lambda lib: lib.outer(lib.ones(2), 3.0),
    ):
        with pytest.raises(Exception) as theirs:
            call(torch)
        with pytest.raises(type(theirs.value)) as ours:
            call(agk)
        assert str(ours.value) == str(theirs.value)


ALLCLOSE_CASES = [
    ([1.0, 2.0], [1.0, 2.0 + 1e-7], {}),
    ([1.0, 2.0], [1.0, 2.1], {}),
    ([1.0, 2.0], [1.0, 2.1], {"atol": 0.2}),
    ([100.0], [100.5], {"rtol": 1e-2}),
    ([float("nan")], [float("nan")], {}),
    ([float("nan")], [float("nan")], {"equal_nan": True}),
    ([[1.0, 2.0], [1.0, 2.0]], [1.0, 2.0], {}),
]


@pytest.mark.torch
@pytest.mark.parametrize(("a", "b", "kwargs"), ALLCLOSE_CASES)
def test_allclose_agrees_with_pytorch(a, b, kwargs):
    torch = _torch()
    expected = torch.allclose(torch.tensor(a), torch.tensor(b), **kwargs)
    assert agk.allclose(agk.tensor(a), agk.tensor(b), **kwargs) is expected
    assert agk.tensor(a).allclose(agk.tensor(b), **kwargs) is expected


def test_allclose_answers_false_for_a_clear_difference_and_true_for_rounding():
    assert agk.allclose(agk.ones(3), agk.ones(3) + 1e-9) is True
    assert agk.allclose(agk.ones(3), agk.ones(3) * 1.01) is False


@pytest.mark.torch
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.allclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
        lambda lib: lib.allclose(lib.ones(2), lib.ones(3)),
        lambda lib: lib.allclose(lib.ones(2), 1.0),
        lambda lib: lib.allclose([1.0], lib.ones(1)),
    ],
    ids=["dtype", "shape", "number", "list"],
)
def test_allclose_errors_are_pytorchs(call):
    torch = _torch()
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(agk)
    assert str(ours.value) == str(theirs.value)
