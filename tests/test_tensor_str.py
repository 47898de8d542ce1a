"""Tensor printing must match PyTorch's ``repr`` character for character.

Three layers:

* golden: replay ``tests/golden/tensor_str.json`` (PyTorch's reprs recorded by
  ``tests/golden/make_tensor_str_golden.py``); runs without PyTorch.
* live: the same cases, plus hypothesis-generated arrays, compared against
  the installed PyTorch (skipped when it is missing).
* print options: ``set_printoptions``/``get_printoptions`` semantics.

The only intended difference from PyTorch is the dtype module name:
``dtype=autogradkit.float64`` where PyTorch prints ``dtype=torch.float64``.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from autogradkit import _tensor_str
from autogradkit._tensor_str import format_tensor, get_printoptions, set_printoptions

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_JSON = GOLDEN_DIR / "tensor_str.json"

DEFAULT_OPTIONS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


def _load_generator():
    """Import the golden generator script (it is not in a package)."""
    spec = importlib.util.spec_from_file_location(
        "make_tensor_str_golden", GOLDEN_DIR / "make_tensor_str_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden_gen = _load_generator()


def expected_from_torch(text: str) -> str:
    """PyTorch's repr with the dtype module renamed, which is what we print."""
    return text.replace("torch.", "autogradkit.")


def ours(
    arr: np.ndarray, dtype: str, requires_grad: bool, grad_fn: str | None, options: dict[str, Any]
) -> str:
    """format_tensor under the given print options (restored afterwards)."""
    set_printoptions(profile="default")
    set_printoptions(**options)
    try:
        return format_tensor(
            arr, dtype_name=dtype, requires_grad=requires_grad, grad_fn_name=grad_fn
        )
    finally:
        set_printoptions(profile="default")


def report(mismatches: list[tuple[str, str, str]], total: int) -> str:
    """Readable failure message showing the first few differences."""
    lines = [f"{len(mismatches)} of {total} cases differ from PyTorch"]
    for name, want, got in mismatches[:5]:
        lines += [f"--- {name}", "want:", want, "got:", got]
    return "\n".join(lines)


@pytest.fixture(autouse=True)
def _restore_print_options():
    """Leave both libraries' print options at their defaults after every test."""
    yield
    set_printoptions(profile="default")
    # Only reset PyTorch if a test imported it: importing it here would slow
    # down golden-only runs.
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


# ---------------------------------------------------------------------------
# Golden file (always runs)
# ---------------------------------------------------------------------------


def _golden_cases() -> list[dict[str, Any]]:
    with GOLDEN_JSON.open() as f:
        return json.load(f)["cases"]


GOLDEN_CASES = _golden_cases()


def _golden_array(case: dict[str, Any]) -> np.ndarray:
    # reshape restores empty shapes such as (0, 3) that a nested list loses.
    return np.array(case["data"], dtype=case["dtype"]).reshape(case["shape"])


def test_golden_file_covers_the_brief():
    """The recorded cases span every dtype, flag and layout feature."""
    cases = GOLDEN_CASES
    assert len(cases) > 1500
    assert {c["dtype"] for c in cases} == {"float32", "float64", "int64", "bool"}
    reprs = [c["repr"] for c in cases]
    assert any("requires_grad=True" in r for r in reprs)
    assert any("grad_fn=<MulBackward0>" in r for r in reprs)
    assert any(",\n" in r and "grad_fn=<" in r.split(",\n")[-1] for r in reprs)  # wrapped suffix
    assert any("..." in r for r in reprs)
    assert any("e+" in r or "e-" in r for r in reprs)
    assert any("nan" in r and "inf" in r for r in reprs)
    assert any("size=(2, 0)" in r for r in reprs)
    assert any("\n\n" in r for r in reprs)  # blank lines between 3-d slices
    assert any(c["options"] for c in cases)
    assert any(len(c["shape"]) == 0 for c in cases)
    assert any(len(c["shape"]) >= 4 for c in cases)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_golden(dtype):
    cases = [c for c in GOLDEN_CASES if c["dtype"] == dtype]
    mismatches = []
    for case in cases:
        want = expected_from_torch(case["repr"])
        got = ours(
            _golden_array(case), dtype, case["requires_grad"], case["grad_fn"], case["options"]
        )
        if got != want:
            mismatches.append((case["name"], want, got))
    assert not mismatches, report(mismatches, len(cases))


def test_golden_matches_generator():
    """The JSON was written from the current build_cases() (regenerate if not).

    Only the names, dtypes and shapes must match exactly. The generator makes its
    data with NumPy's math (geomspace, powers, normal draws), whose last bits
    differ between CPUs (SIMD paths) and C libraries, so the values are compared
    to a relative 1e-12; test_golden replays the stored data itself, bit for bit.
    An int64 case truncates such a float, which may then land one integer over.
    """
    built = golden_gen.build_cases()
    assert len(built) == len(GOLDEN_CASES)
    for b, g in zip(built, GOLDEN_CASES):
        what = (g["name"], g["dtype"])
        assert (b["name"], b["dtype"], list(b["array"].shape)) == (
            g["name"],
            g["dtype"],
            g["shape"],
        )
        stored = _golden_array(g)
        if g["dtype"].startswith("float"):
            np.testing.assert_allclose(b["array"], stored, rtol=1e-12, atol=0, err_msg=str(what))
        elif g["dtype"] == "int64":
            assert np.all(np.abs(b["array"] - stored) <= 1), what
        else:
            np.testing.assert_array_equal(b["array"], stored, err_msg=str(what))


# ---------------------------------------------------------------------------
# Hand-written expectations (always run; document the rules)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arr, dtype, kwargs, want",
    [
        (
            np.array([1.0, 2.0], np.float64),
            "float64",
            {"requires_grad": True},
            "tensor([1., 2.], dtype=autogradkit.float64, requires_grad=True)",
        ),
        (
            np.array(0.75161, np.float32),
            "float32",
            {"grad_fn_name": "BinaryCrossEntropyWithLogitsBackward0"},
            "tensor(0.7516, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)",
        ),
        (np.array([0.0, np.nan]), "float32", {}, "tensor([0., nan])"),
        # Only non-zero finite values set the column width, so -0 overflows it.
        (np.array([-0.0, 1.5]), "float32", {}, "tensor([-0.0000, 1.5000])"),
        (np.array([1e-5, 1.0]), "float32", {}, "tensor([1.0000e-05, 1.0000e+00])"),
        (np.zeros((2, 0)), "int64", {}, "tensor([], size=(2, 0), dtype=autogradkit.int64)"),
        (np.zeros(0), "float32", {}, "tensor([])"),
        (np.array([True, False]), "bool", {}, "tensor([ True, False])"),
        (np.array(7), "int64", {}, "tensor(7)"),
        # requires_grad is implied by a grad_fn and so not printed with one.
        (
            np.array(1.0),
            "float32",
            {"requires_grad": True, "grad_fn_name": "SumBackward0"},
            "tensor(1., grad_fn=<SumBackward0>)",
        ),
        (np.array([1.0]), "float32", {"prefix": "Parameter("}, "Parameter([1.])"),
    ],
)
def test_examples(arr, dtype, kwargs, want):
    assert format_tensor(arr, dtype_name=dtype, **kwargs) == want


def test_wrapping_is_decided_as_pytorch_would():
    """Line breaks fall where PyTorch's (shorter ``torch.``) spelling puts them."""
    arr = np.array([-0.0011, -0.0013, 0.0006, 0.0006, 0.0013])
    got = format_tensor(arr, dtype_name="float64")
    assert got == (
        "tensor([-0.0011, -0.0013,  0.0006,  0.0006,  0.0013], dtype=autogradkit.float64)"
    )


def test_data_is_rounded_through_declared_dtype():
    """float64 data declared float32 prints as the float32 values would."""
    wide = np.array([0.1, 1 / 3])
    assert format_tensor(wide, dtype_name="float32") == format_tensor(
        wide.astype(np.float32), dtype_name="float32"
    )


def test_default_dtype_name_controls_dtype_suffix():
    a32 = np.arange(3, dtype=np.float32)
    a64 = np.arange(3, dtype=np.float64)
    assert (
        format_tensor(a64, dtype_name="float64", default_dtype_name="float64")
        == "tensor([0., 1., 2.])"
    )
    assert format_tensor(a32, dtype_name="float32", default_dtype_name="float64") == (
        "tensor([0., 1., 2.], dtype=autogradkit.float32)"
    )


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------


def test_default_printoptions():
    assert get_printoptions() == DEFAULT_OPTIONS
    assert list(get_printoptions()) == list(DEFAULT_OPTIONS)


def test_set_printoptions_profiles_and_overrides():
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="full", precision=6)
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 6, "threshold": math.inf}
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTIONS


def test_sci_mode_is_reset_by_every_call():
    set_printoptions(sci_mode=True)
    assert get_printoptions()["sci_mode"] is True
    set_printoptions(precision=3)  # as in PyTorch, sci_mode goes back to None
    assert get_printoptions()["sci_mode"] is None


def test_printoptions_context_manager_restores():
    set_printoptions(precision=3)
    with _tensor_str.printoptions(precision=1, linewidth=20):
        assert format_tensor(np.array([1.25, 2.5]), dtype_name="float32") == "tensor([1.2, 2.5])"
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 3}


def test_get_printoptions_round_trips():
    set_printoptions(precision=2, threshold=7, edgeitems=1, linewidth=50, sci_mode=False)
    saved = get_printoptions()
    set_printoptions(profile="default")
    set_printoptions(**saved)
    assert get_printoptions() == saved


# ---------------------------------------------------------------------------
# Live comparison with PyTorch
# ---------------------------------------------------------------------------


def test_live_cases_match_torch():
    """Every golden case, freshly printed by the installed PyTorch."""
    pytest.importorskip("torch")
    cases = golden_gen.build_cases()
    mismatches = []
    for case in cases:
        text, grad_fn_name = golden_gen.torch_repr(case)
        got = ours(
            case["array"], case["dtype"], case["requires_grad"], grad_fn_name, case["options"]
        )
        if got != expected_from_torch(text):
            mismatches.append((case["name"] + " " + case["dtype"], expected_from_torch(text), got))
    assert not mismatches, report(mismatches, len(cases))


def test_live_printoptions_match_torch():
    torch = pytest.importorskip("torch")
    assert torch._tensor_str.get_printoptions() == get_printoptions()
    for options in golden_gen.OPTION_SETS:
        torch.set_printoptions(**options)
        set_printoptions(**options)
        assert torch._tensor_str.get_printoptions() == get_printoptions(), options


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_live_default_dtype_float64(dtype):
    """After torch.set_default_dtype(torch.float64) the suffix rules flip."""
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    for arr in (np.arange(3.0), np.zeros(0), np.zeros((2, 0)), np.array(2.5)):
        arr = arr.astype(dtype)
        want = expected_from_torch(repr(torch.from_numpy(arr)))
        assert format_tensor(arr, dtype_name=dtype, default_dtype_name="float64") == want


def test_live_subclass_prefix():
    """``prefix`` reproduces PyTorch's repr of a Tensor subclass (indent included)."""
    torch = pytest.importorskip("torch")

    class MyTensor(torch.Tensor):  # type: ignore[name-defined]  # torch is a local module
        pass

    arr = np.linspace(-3, 3, 40).astype(np.float32)
    t = torch.from_numpy(arr).as_subclass(MyTensor)
    assert format_tensor(arr, dtype_name="float32", prefix="MyTensor(") == repr(t)


# Hypothesis: random shapes (0-d to 4-d, some empty, some summarised), random
# values (nan/inf/-0.0/subnormals included), random print options.
# Imported softly so a machine without hypothesis still runs everything else.
try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover
    given = None  # type: ignore[assignment]

if given is not None:
    _OPTION_CHOICES = [
        {},
        {},
        {},
        {"precision": 2},
        {"threshold": 20, "edgeitems": 2},
        {"linewidth": 40},
        {"sci_mode": False},
        {"threshold": 8, "edgeitems": 0},
    ]

    @st.composite
    def _float_arrays(draw):
        dtype = draw(st.sampled_from([np.float32, np.float64]))
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=7))
        kind = draw(st.sampled_from(["any", "scaled", "integral"]))
        if kind == "any":
            # Full float range: nan, inf, -0.0, subnormals, huge values.
            return draw(hnp.arrays(dtype, shape))
        base = draw(hnp.arrays(np.float64, shape, elements=st.floats(-1000, 1000)))
        if kind == "integral":
            base = np.round(base)
        exponent = draw(st.integers(-12, 12))
        return (base * 10.0**exponent).astype(dtype)

    @settings(max_examples=100, deadline=None, derandomize=True, database=None)
    @given(
        arr=_float_arrays(),
        options=st.sampled_from(_OPTION_CHOICES),
        grad=st.sampled_from(["none", "requires_grad", "grad_fn"]),
    )
    def test_hypothesis_floats_match_torch(arr, options, grad):
        torch = pytest.importorskip("torch")
        t = torch.from_numpy(np.array(arr, copy=True))
        grad_fn_name = None
        if grad != "none":
            t.requires_grad_(True)
        if grad == "grad_fn":
            t = t * 1
            grad_fn_name = "MulBackward0"
        torch.set_printoptions(**options)
        try:
            want = expected_from_torch(repr(t))
        finally:
            torch.set_printoptions(profile="default")
        got = ours(arr, str(arr.dtype), grad == "requires_grad", grad_fn_name, options)
        assert got == want

    @settings(max_examples=50, deadline=None, derandomize=True, database=None)
    @given(
        arr=hnp.arrays(
            st.sampled_from([np.int64, np.bool_]),
            hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12),
        )
    )
    def test_hypothesis_int_bool_match_torch(arr):
        torch = pytest.importorskip("torch")
        want = expected_from_torch(repr(torch.from_numpy(np.array(arr, copy=True))))
        assert format_tensor(arr, dtype_name=str(arr.dtype)) == want
else:  # pragma: no cover

    def test_hypothesis_unavailable():
        pytest.skip("hypothesis not installed")
