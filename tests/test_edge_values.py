"""Properties of gradients at edge values (issue 12, "no wrong answers").

The rules, each checked over many inputs that include 0, ±0, ±inf and nan:

* a step function *selects* its gradient: where ``clamp``/``relu``/``maximum``/
  ``where`` did not pass ``x`` through, ``x.grad`` is exactly 0 whatever came from
  above (``inf`` from ``sqrt`` at 0 included); where it did, it is the gradient
  from above, untouched;
* ``max``/``min`` send the gradient to the chosen elements only: with ``dim``, one
  element per slice (the one ``indices`` names); over everything, shared evenly by
  the ties.

PyTorch is the oracle when it is installed; the expectations below are PyTorch's
rules restated in NumPy, so the properties also run without it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autogradkit as ak

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None  # type: ignore[assignment]

EDGY = st.sampled_from([0.0, -0.0, 1.0, -1.0, 4.0, -2.5, 0.25, np.inf, -np.inf, np.nan])
FINITE = st.floats(-5, 5, width=32)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def arrays(elements, min_side=1):
    return hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=4),
        elements=elements,
    )


# Step functions and where each passes x through (PyTorch's masks, nan included).
STEPS = {
    "clamp_min": (lambda lib, x: x.clamp(min=0), lambda a: a >= 0),
    "clamp_both": (lambda lib, x: x.clamp(0, 2), lambda a: (a >= 0) & (a <= 2)),
    "relu": (lambda lib, x: x.relu(), lambda a: ~(np.maximum(a, 0) <= 0)),
    "maximum": (lambda lib, x: lib.maximum(x, lib.zeros(())), lambda a: ~(a < 0)),
    "where": (lambda lib, x: lib.where(x > 0, x, 0.0), lambda a: a > 0),
}


def _grad(lib, f, a):
    x = lib.tensor(a, requires_grad=True)
    f(lib, x).sum().backward()
    return x.grad.numpy() if lib is ak else x.grad.detach().numpy()


@pytest.mark.parametrize("step", sorted(STEPS))
@SETTINGS
@given(a=arrays(st.one_of(EDGY, FINITE)))
def test_a_step_function_selects_the_gradient_from_above(step, a):
    f, passes = STEPS[step]

    def composed(lib, x):
        return f(lib, x).sqrt()  # inf gradient at 0, nan below

    got = _grad(ak, composed, a)
    mask = passes(a)
    with np.errstate(all="ignore"):
        passed = np.asarray(f(ak, ak.tensor(a)).numpy())
        from_above = np.float32(0.5) / np.sqrt(passed)
    # Where the branch was not taken: exactly 0 (never nan); where it was, sqrt's.
    assert np.array_equal(got[~mask], np.zeros_like(got[~mask]))
    np.testing.assert_allclose(got[mask], from_above[mask], rtol=1e-6)
    if torch is not None:
        # At -0.0 the sign of PyTorch's own maximum(-0.0, 0) depends on whether its
        # vectorised kernel ran (tensor size), so the sign of inf there is not compared.
        signed = (a == 0) & np.signbit(a)
        expected = _grad(torch, composed, a)
        np.testing.assert_allclose(got[~signed], expected[~signed], rtol=1e-6, equal_nan=True)
        assert np.array_equal(np.abs(got[signed]), np.abs(expected[signed]))


@SETTINGS
@given(a=arrays(st.integers(-2, 2).map(float)), data=st.data())
def test_max_min_along_dim_send_the_gradient_to_the_indexed_element(a, data):
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdim = data.draw(st.booleans())
    for name in ("max", "min"):
        x = ak.tensor(a, requires_grad=True)
        values, indices = getattr(x, name)(dim, keepdim)
        assert x.max(dim, keepdim).indices.dtype is ak.int64
        picked = np.take_along_axis(
            a, indices.numpy() if keepdim else np.expand_dims(indices.numpy(), dim), dim
        )
        expected_values = getattr(np, name)(a, axis=dim, keepdims=True)
        assert np.array_equal(picked, expected_values)
        weights = np.arange(1, values.numel() + 1, dtype=np.float32).reshape(values.shape)
        (values * ak.tensor(weights)).sum().backward()
        grad = x.grad.numpy()
        # One nonzero per slice along dim, at the index, carrying that slice's weight.
        assert np.array_equal(
            (grad != 0).sum(axis=dim),
            np.ones(values.shape if not keepdim else np.squeeze(weights, dim).shape),
        )
        chosen = np.take_along_axis(
            grad, indices.numpy() if keepdim else np.expand_dims(indices.numpy(), dim), dim
        )
        assert np.array_equal(chosen.reshape(weights.shape), weights)
        if torch is not None:
            t = torch.tensor(a, requires_grad=True)
            tv, ti = getattr(t, name)(dim, keepdim)
            (tv * torch.tensor(weights)).sum().backward()
            assert np.array_equal(ti.numpy(), indices.numpy())
            assert np.array_equal(t.grad.numpy(), grad)


@SETTINGS
@given(a=arrays(st.one_of(st.integers(-2, 2).map(float), EDGY)))
def test_max_of_everything_shares_the_gradient_among_ties(a):
    for name in ("max", "min"):
        x = ak.tensor(a, requires_grad=True)
        out = getattr(x, name)()
        out.backward()
        value = out.item()
        hits = np.isnan(a) if np.isnan(value) else a == value
        expected = np.where(hits, np.float32(1) / hits.sum(), np.float32(0))
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
        if torch is not None:
            t = torch.tensor(a, requires_grad=True)
            getattr(t, name)().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)


EDGE_VALUES = [0.0, -0.0, 1.0, -1.0, 4.0, -2.5, 0.25, np.inf, -np.inf, np.nan, 1e-40, -1e-40]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("step", sorted(STEPS))
def test_large_arrays_select_the_gradient_bit_for_bit_as_small_ones(step, dtype):
    # Large gradients are selected by clearing bits (ops/where.py, _BITS_MIN_SIZE);
    # each 3-element slice must come out as the same slice selected on its own.
    f, _ = STEPS[step]
    rng = np.random.default_rng(0)
    values = rng.choice(np.array(EDGE_VALUES), size=(700, 3)).astype(dtype)

    upstream = rng.choice(np.array(EDGE_VALUES), size=values.shape).astype(dtype)

    def grad_of(a, g):
        x = ak.tensor(a, requires_grad=True)
        f(ak, x).backward(ak.tensor(g))
        return x.grad.numpy()

    large = grad_of(values, upstream)
    small = np.stack([grad_of(values[i], upstream[i]) for i in range(60)])
    assert large.dtype == small.dtype == dtype
    assert large[:60].tobytes() == small.tobytes()


def test_large_select_broadcasts_its_mask_and_reads_strided_gradients():
    from autogradkit.ops.where import select

    rng = np.random.default_rng(1)
    grad = rng.choice(np.array(EDGE_VALUES), size=(64, 80)).astype(np.float32).T  # strided
    mask = rng.random(64) < 0.5  # broadcast along the rows
    expected = np.where(mask, grad, np.float32(0))
    got = select(mask, grad)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.tobytes() == expected.tobytes()
