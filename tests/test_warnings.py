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
    # Two tensors of one dtype take Add's own quiet path (added_quietly).
    "vector-inf-plus-minus-inf": lambda lib: (
        lib.tensor([float("inf")]) + lib.tensor([-float("inf")])
    ),
    "vector-overflow-plus": lambda lib: lib.tensor([3e38]) + lib.tensor([3e38]),
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_warnings_as_pytorch(name, torch_warnings):
    with warnings.catch_warnings():
        # Our own once-per-location warnings must show every time here too.
        warnings.resetwarnings()
        ours = [[c.__name__, m] for c, m in _warnings_of(lambda: CASES[name](ak))]
    assert ours == torch_warnings[name]


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


def test_T_warns_about_other_than_2d():
    assert [c for c, _ in _warnings_of(lambda: ak.ones(2, 3, 4).T)] == [UserWarning]


def test_quiet_addition_keeps_the_callers_error_state():
    """Two tensors of one dtype add in a context whose NumPy error state is "ignore"
    (added_quietly): inside it inf + -inf is silent even under np.errstate(all="raise"),
    and outside it the caller's state is what it was."""
    import numpy as np

    with np.errstate(all="raise"):
        out = ak.tensor([float("inf"), 3e38]) + ak.tensor([-float("inf"), 3e38])
        assert np.geterr()["invalid"] == "raise"
        with pytest.raises(FloatingPointError):
            np.array([float("inf")]) + np.array([-float("inf")])
    assert np.isnan(out[0].item()) and out[1].item() == float("inf")


def test_quiet_addition_while_its_context_is_in_use():
    """When the quiet context is entered already (by another thread), added_quietly
    sets the error state itself: the same silent sum."""
    import numpy as np

    from autogradkit import _quiet_numpy

    x, y = np.array([float("inf"), 1.0]), np.array([-float("inf"), 2.0])
    if _quiet_numpy._QUIET_CONTEXT is None:  # pragma: no cover - another NumPy
        pytest.skip("this NumPy keeps its error state elsewhere")
    with np.errstate(all="raise"):
        out = _quiet_numpy._QUIET_CONTEXT.run(_quiet_numpy.added_quietly, x, y)
        assert np.geterr()["invalid"] == "raise"
    assert np.isnan(out[0]) and out[1] == 3.0
