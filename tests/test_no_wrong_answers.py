"""No wrong answers from the core: hooks that return the wrong thing, threads
running backward into one leaf, two steppers over one graph, flags set on
non-leaves (issue 12). Compared with PyTorch's behaviour where it has one."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import autogradkit as torch
from autogradkit.autograd import function as function_module


def test_concurrent_backward_into_one_leaf_loses_no_update(monkeypatch):
    # Make the read-add-write of an accumulation slow enough that, without a lock,
    # the threads interleave inside it (a sleep releases the GIL) and updates are lost.
    fit = function_module._fit_array

    def slow_fit(grad, like):
        time.sleep(0.002)
        return fit(grad, like)

    monkeypatch.setattr(function_module, "_fit_array", slow_fit)
    for _ in range(3):
        w = torch.ones(3, requires_grad=True)
        barrier = threading.Barrier(8)

        def work(w=w, barrier=barrier):
            y = (w * 2).sum()
            barrier.wait()
            y.backward()
            y2 = (w * 3).sum()
            y2.backward()

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(w.grad.numpy(), np.full(3, 8 * (2 + 3), np.float32))


def test_two_steppers_over_one_graph_undo_only_their_own_contribution():
    from autogradkit.autograd import backward_steps

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()  # d/dw = 2w = [2, 4]
    first = backward_steps(loss, retain_graph=True)
    first_records = list(first)
    second_records = list(backward_steps(loss, retain_graph=True))
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 8.0])
    for record in reversed(first_records):  # the first stepper's reset()
        record.undo()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])  # the second's stays
    for record in first_records:  # and stepping forward again adds it back
        record.redo()
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 8.0])
    for record in reversed(second_records):
        record.undo()
    for record in reversed(first_records):
        record.undo()
    assert w.grad is None  # alone again: restored exactly


def test_two_stepper_widgets_reset_only_their_own_steps():
    pytest.importorskip("ipywidgets")
    from autogradkit.widgets import BackwardStepper

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    loss = (w * w).sum() + b.sum() * 3
    one = BackwardStepper(loss, retain_graph=True)
    one.run_to_end()
    two = BackwardStepper(loss, retain_graph=True)
    two.run_to_end()
    np.testing.assert_array_equal(b.grad.numpy(), [6.0])
    one.reset()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(b.grad.numpy(), [3.0])
    two.reset()
    # Reset out of order, the second finds a .grad the first changed: it takes out
    # what it added, leaving zeros (not the None it started from).
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.0])


def test_a_lone_stepper_restores_grad_bit_for_bit():
    # The exact path: nothing else touched .grad, so undo restores the saved copy,
    # not previous + g - g (0.1 + 0.2 - 0.2 is not 0.1 in floating point).
    from autogradkit.autograd import backward_steps

    w = torch.tensor([0.1], dtype=torch.float64, requires_grad=True)
    w.grad = torch.tensor([0.1], dtype=torch.float64)
    records = list(backward_steps((w * 0.2).sum()))
    for record in reversed(records):
        record.undo()
    assert w.grad.item() == 0.1


# ----------------------------------------------------------------------------- index_put_


def _put(accumulate: bool, key):
    """x[key] = v (or +=) on a copy of x, as a function of both."""

    def f(x, v):
        c = x * 1  # a graph tensor, so the assignment is recorded
        c.index_put_(key, v, accumulate=accumulate)
        return c

    return f


MASK = torch.tensor([[True, False, True], [False, True, False]])
PUT_CASES = [
    # (accumulate, index, shape of the values)
    (True, (torch.tensor([1, 0, 1]),), (3, 3)),  # a repeated row adds both
    (True, (torch.tensor([1, 1]),), (3,)),  # ... values broadcast
    (True, (MASK,), (3,)),
    (True, (torch.tensor([0, 1]), torch.tensor([2, 2])), (1,)),
    # Written (not added), a repeated index keeps one of its values, so the
    # function is not differentiable there (PyTorch gives every repeat G; the
    # differential programs check that): distinct places only.
    (False, (torch.tensor([1, 0]),), (2, 3)),
    (False, (torch.tensor([1]),), (3,)),  # values broadcast
    (False, (MASK,), (3,)),
    (False, (torch.tensor([0, 1]), torch.tensor([2, 0])), (1,)),
]


@pytest.mark.parametrize("accumulate, key, values_shape", PUT_CASES)
def test_index_put_gradients_pass_gradcheck(accumulate, key, values_shape):
    """Both gradients (zero where x was overwritten, G read at the index for the
    values, summed over repeats and broadcast) against finite differences, and
    the second derivatives too."""
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    v = torch.tensor(rng.standard_normal(values_shape), requires_grad=True)
    f = _put(accumulate, key)
    assert torch.autograd.gradcheck(lambda x, v: f(x, v) ** 2, (x, v), check_forward_ad=True)
    assert torch.autograd.gradgradcheck(lambda x, v: f(x, v) ** 2, (x, v))


def test_setitem_with_index_tensors_passes_gradcheck():
    """x[0, [2, 0]] = v: a select view of x, then index_put_ (CopySlices)."""
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    v = torch.tensor(rng.standard_normal(2), requires_grad=True)

    def f(x, v):
        c = x * 1.5
        c[0, [2, 0]] = v * v
        return c * c

    assert torch.autograd.gradcheck(f, (x, v), check_forward_ad=True)
    assert torch.autograd.gradgradcheck(f, (x, v))


def test_grad_mode_off_in_one_thread_leaves_recording_in_another():
    # Recording reads a process-wide flag while every thread has grad mode on, and
    # the thread's own mode otherwise: both threads must see their own mode, for
    # every way an operation's operands are taken apart (two tensors, a tensor and
    # a number, one tensor), and the flag must come back once the thread is done.
    x = torch.ones(3, requires_grad=True)
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with torch.no_grad():
            inside.set()
            done.wait(5)
            seen["worker"] = [(x * x).requires_grad, (x * 1.5).requires_grad, x.exp().grad_fn]

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    here = [(x * x).grad_fn.name(), (x * 1.5).grad_fn.name(), x.exp().grad_fn.name()]
    done.set()
    t.join()
    assert here == ["MulBackward0", "MulBackward0", "ExpBackward0"]
    assert seen["worker"] == [False, False, None]
    with torch.no_grad():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad and (x * x).requires_grad
