"""Anomaly mode: the forward traceback kept only while it is on, the warning and
the nan check in the engine's _call path (PyTorch's messages are compared in
tests/differential/test_errors_vs_torch.py, the ``anomaly/`` programs)."""

from __future__ import annotations

import threading
import warnings

import pytest

import autogradkit as torch
from autogradkit.autograd import anomaly_mode


@pytest.fixture(autouse=True)
def _anomaly_mode_off_afterwards():
    yield
    torch.set_anomaly_enabled(False)


def _caught(run) -> tuple[BaseException | None, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run()
        except Exception as error:
            return error, [str(w.message) for w in caught]
    return None, [str(w.message) for w in caught]


def test_nodes_keep_no_traceback_while_anomaly_mode_is_off():
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).exp()
    assert getattr(y.grad_fn, "_forward_trace", None) is None
    with torch.autograd.set_detect_anomaly(True):
        z = y.sin()
    assert "z = y.sin()" in z.grad_fn._forward_trace
    # The library's own frames are left out: the last frame is this test's line.
    assert z.grad_fn._forward_trace.rstrip().endswith("z = y.sin()")


def test_the_switch_is_one_for_the_whole_process_as_in_pytorch():
    seen = []
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        thread = threading.Thread(
            target=lambda: seen.append(
                (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
            )
        )
        thread.start()
        thread.join()
    assert seen == [(True, False)]
    assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (False, True)


def test_a_failing_hook_warns_with_the_forward_line_of_its_node():
    x = torch.ones(2, requires_grad=True)

    def broken(grad):
        raise ValueError("hook failed")

    with torch.autograd.set_detect_anomaly(True):
        y = x * 3
        y.register_hook(broken)
        error, messages = _caught(lambda: y.sum().backward())
    assert isinstance(error, ValueError)
    assert messages[0].startswith("Error detected in MulBackward0. Traceback of forward call")
    assert messages[0].rstrip().endswith("y = x * 3")


def test_an_in_place_write_through_a_view_names_the_copy_slices_node():
    x = torch.ones(3, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        y = x * 1
        y[0].mul_(-1)
        z = y.sqrt()
        error, messages = _caught(lambda: z.sum().backward())
    assert str(error) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert messages[0].rstrip().endswith("z = y.sqrt()")
    assert "y[0].mul_(-1)" in y.grad_fn._forward_trace  # CopySlices keeps its line too


def test_the_nan_check_names_which_output_holds_the_nan():
    a = torch.tensor([float("inf")], requires_grad=True)
    b = torch.tensor([1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        c = a * b
        # d/da = 0 * b = 0, d/db = 0 * inf = nan: Mul's second output (PyTorch's "1th").
        error, _ = _caught(lambda: c.backward(torch.tensor([0.0])))
    assert str(error) == "Function 'MulBackward0' returned nan values in its 1th output."
    assert a.grad is None and b.grad is None  # raised before anything reached .grad


def test_the_stepper_runs_under_anomaly_mode_too():
    x = torch.tensor([-1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        steps = torch.autograd.backward_steps(x.sqrt().sum())
        first = next(steps)
        assert first.node.name() == "SumBackward0"
        error, messages = _caught(lambda: next(steps))
    assert str(error) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert messages[0].startswith("Error detected in SqrtBackward0.")


def test_backward_without_anomaly_mode_stays_quiet():
    x = torch.tensor([-1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        y = x.sqrt()
    error, messages = _caught(lambda: y.sum().backward())
    assert error is None and messages == []
    assert anomaly_mode.is_anomaly_enabled() is False


def test_a_node_recorded_by_a_create_graph_backward_keeps_its_parent_only_meanwhile():
    x = torch.tensor([4.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        y = x.sqrt()
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        later = g * 2  # recorded after the backward: no parent
    assert g.grad_fn._anomaly_parent is y.grad_fn
    assert getattr(later.grad_fn, "_anomaly_parent", None) is None
    assert anomaly_mode._running.node is None


def test_the_error_warning_comes_from_the_line_that_called_backward():
    # Not from the engine's file: in a notebook that is the learner's cell (its
    # name is masked), and no line number of the library shows.
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            s = x.sigmoid()
            s.mul_(2)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                s.sum().backward()
    detected = [w for w in caught if str(w.message).startswith("Error detected in")]
    assert [w.filename for w in detected] == [__file__]


def test_in_jupyter_the_forward_trace_starts_at_the_first_cell():
    import traceback

    kernel = traceback.FrameSummary("/site-packages/ipykernel/kernelbase.py", 508, "dispatch")
    cell = traceback.FrameSummary("/tmp/ipykernel_31642/1818395555.py", 4, "<module>")
    helper = traceback.FrameSummary("/tmp/ipykernel_31642/2918395555.py", 2, "model")
    frames = [kernel, cell, helper]
    assert anomaly_mode._from_the_first_cell(frames) == [cell, helper]
    assert anomaly_mode._from_the_first_cell([kernel]) == [kernel]  # not in Jupyter
