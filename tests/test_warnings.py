"""Warnings are part of what PyTorch prints: autogradkit gives the same ones, and no
NumPy floating-point warnings that PyTorch would not give."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap
import warnings

import pytest

import autogradkit as ak


def _warnings_of(fn) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]


CASES = {
    "T-of-3d": lambda lib: lib.ones(2, 3, 4).T,
    "T-of-0d": lambda lib: lib.tensor(1.0).T,
    "T-of-2d": lambda lib: lib.ones(2, 3).T,
    "grad-of-non-leaf": lambda lib: (lib.ones(2, requires_grad=True) * 2).grad,
    "float-of-requires-grad": lambda lib: float(lib.tensor(2.0, requires_grad=True)),
    "backward-create_graph": lambda lib: (
        (lib.ones(2, requires_grad=True) ** 2).sum().backward(create_graph=True)
    ),
    "sqrt-at-zero-backward": lambda lib: (
        lib.sqrt(lib.zeros(2, requires_grad=True)).sum().backward()
    ),
    "log-at-zero-backward": lambda lib: lib.log(lib.zeros(2, requires_grad=True)).sum().backward(),
    "divide-by-zero": lambda lib: lib.ones(2) / 0,
    # + - * of a 0-d tensor with a number, or of two 0-d tensors, compute on NumPy
    # scalars, which warn about inf and nan where 0-d arrays would too.
    "0d-inf-times-zero": lambda lib: lib.tensor(float("inf")) * 0.0,
    "0d-inf-minus-inf": lambda lib: lib.tensor(float("inf")) - float("inf"),
    "0d-inf-plus-0d-minus-inf": lambda lib: lib.tensor(float("inf")) + lib.tensor(-float("inf")),
    "vector-inf-minus-inf": lambda lib: lib.tensor([float("inf")]) - lib.tensor([float("inf")]),
    # Two tensors of one dtype take Add's own quiet path (np.add in the quiet context).
    "vector-inf-plus-minus-inf": lambda lib: (
        lib.tensor([float("inf")]) + lib.tensor([-float("inf")])
    ),
    "vector-overflow-plus": lambda lib: lib.tensor([3e38]) + lib.tensor([3e38]),
    # Products and the logits' loss run in _quiet_numpy's context (numpy_quietly).
    "mm-overflow": lambda lib: lib.tensor([[3e38, 1.0]]).T @ lib.tensor([[3e38, 1.0]]),
    "mm-inf-times-0": lambda lib: lib.tensor([[float("inf"), 0.0]]) @ lib.tensor([[0.0], [1.0]]),
    "bce-with-logits-at-inf": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor([float("inf"), -float("inf")]), lib.ones(2)
    ),
}


@pytest.fixture(scope="module")
def torch_warnings() -> dict[str, list[list[str]]]:
    """What PyTorch warns for each case, from a fresh process: several of its
    warnings are given once per process, so earlier tests would hide them here."""
    pytest.importorskip("torch")
    script = textwrap.dedent(f"""
        import json, sys, warnings
        import numpy as np, torch
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        from test_warnings import CASES, _warnings_of
        print(json.dumps({{name: [[c.__name__, m] for c, m in _warnings_of(lambda: fn(torch))]
                          for name, fn in CASES.items()}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def fresh_warn_once(monkeypatch):
    """Our warnings given once per process, not yet given (as in a fresh process)."""
    from autogradkit import _warn_once

    monkeypatch.setattr(_warn_once, "_given", set())
    monkeypatch.setattr(_warn_once, "_warn_always", False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_warnings_as_pytorch(name, torch_warnings, fresh_warn_once):
    with warnings.catch_warnings():
        # Our own once-per-location warnings must show every time here too.
        warnings.resetwarnings()
        ours = [[c.__name__, m] for c, m in _warnings_of(lambda: CASES[name](ak))]
    assert ours == torch_warnings[name]


def _float_once_then_always(lib) -> list[int]:
    """How many warnings each float() of a tensor that requires grad gives: the
    first in the process, a second, two under set_warn_always(True), one after."""
    x = lib.tensor(2.0, requires_grad=True)
    counts = [len(_warnings_of(lambda: float(x))), len(_warnings_of(lambda: float(x * 3)))]
    lib.set_warn_always(True)
    counts.append(len(_warnings_of(lambda: [float(x), float(x)])))
    lib.set_warn_always(False)
    counts.append(len(_warnings_of(lambda: float(x))))
    return counts


def test_float_warns_once_per_process_as_pytorch(fresh_warn_once):
    """PyTorch gives the float() warning once per process (TORCH_WARN_ONCE) unless
    set_warn_always(True): compared with PyTorch in a fresh process."""
    pytest.importorskip("torch")
    script = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        from test_warnings import _float_once_then_always
        print(_float_once_then_always(torch))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    theirs = out.stdout.strip().splitlines()[-1]
    assert str(_float_once_then_always(ak)) == theirs
    assert theirs == "[1, 0, 2, 0]"


@pytest.mark.parametrize(
    "name",
    [
        "sqrt-at-zero-backward",
        "log-at-zero-backward",
        "divide-by-zero",
        "T-of-2d",
        "0d-inf-times-zero",
        "0d-inf-minus-inf",
        "0d-inf-plus-0d-minus-inf",
        "vector-inf-minus-inf",
    ],
)
def test_no_numpy_warnings(name):
    """Runs without torch too: these print nothing in PyTorch."""
    assert _warnings_of(lambda: CASES[name](ak)) == []


def test_T_warns_about_other_than_2d_once_per_process(fresh_warn_once):
    # (The fixture: as in a fresh process, whatever ran before in this worker.)
    x = ak.ones(2, 3, 4)
    assert [c for c, _ in _warnings_of(lambda: x.T)] == [UserWarning]
    assert _warnings_of(lambda: x.T) == []  # PyTorch's TORCH_WARN_ONCE


def test_quiet_addition_keeps_the_callers_error_state():
    """Two tensors of one dtype add in a context whose NumPy error state is "ignore"
    (Add's forward runs np.add there): inside it inf + -inf is silent even under np.errstate(all="raise"),
    and outside it the caller's state is what it was."""
    import numpy as np

    with np.errstate(all="raise"):
        out = ak.tensor([float("inf"), 3e38]) + ak.tensor([-float("inf"), 3e38])
        assert np.geterr()["invalid"] == "raise"
        with pytest.raises(FloatingPointError):
            np.array([float("inf")]) + np.array([-float("inf")])
    assert np.isnan(out[0].item()) and out[1].item() == float("inf")


def test_quiet_addition_while_its_context_is_in_use():
    """When the quiet context is entered already (by another thread), the sum of two
    tensors of one dtype sets the error state itself: the same silent sum."""
    import numpy as np

    from autogradkit import _quiet_numpy

    x = ak.tensor([float("inf"), 1.0], dtype=ak.float64, requires_grad=True)
    y = ak.tensor([-float("inf"), 2.0], dtype=ak.float64)
    if _quiet_numpy._QUIET_CONTEXT is None:  # pragma: no cover - another NumPy
        pytest.skip("this NumPy keeps its error state elsewhere")
    with np.errstate(all="raise"):
        out = _quiet_numpy._QUIET_CONTEXT.run(lambda: x + y)
        assert np.geterr()["invalid"] == "raise"
    assert np.isnan(out[0].item()) and out[1].item() == 3.0
    assert out.grad_fn.name() == "AddBackward0"


def test_quiet_context_entered_already_falls_back_to_silently():
    """One thread at a time may be in numpy_quietly's context: a product begun
    while it is entered (here by this thread) is computed silently all the same."""
    import numpy as np

    from autogradkit._quiet_numpy import run_quietly

    a = ak.tensor([[float("inf"), 0.0]], requires_grad=True)
    b = ak.tensor([[0.0], [1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        product = run_quietly(lambda: a @ b)
    assert np.isnan(product.item()) and product.grad_fn.name() == "MmBackward0"


def test_quiet_products_leave_numpy_error_state_as_it_was():
    """The user's NumPy error state is theirs: unchanged by a product, and not
    used by it (PyTorch neither warns nor raises)."""
    import numpy as np

    with np.errstate(all="raise"):
        before = np.geterr()
        y = ak.tensor([[3e38]]) @ ak.tensor([[10.0]])
        loss = ak.nn.functional.binary_cross_entropy_with_logits(
            ak.tensor([float("inf")]), ak.ones(1)
        )
        assert np.geterr() == before
        with pytest.raises(FloatingPointError):
            np.ones(1, np.float32) * np.float32(3e38) * np.float32(10)
    assert y.item() == float("inf") and np.isnan(loss.item())
