"""The examples in autogradkit's docstrings are documentation learners copy: run
them all, so none of them rots."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import autogradkit

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(autogradkit.__path__, prefix="autogradkit.")
)
# The visual tools need the test extra's matplotlib (drawing off screen) and ipywidgets.
VISUAL = ("autogradkit.viz", "autogradkit.widgets")


@pytest.mark.parametrize("name", ["autogradkit", *MODULES])
def test_docstring_examples(name: str) -> None:
    if name.startswith(VISUAL):
        pytest.importorskip("matplotlib").use("Agg")
        pytest.importorskip("ipywidgets")
    module = importlib.import_module(name)
    result = doctest.testmod(
        module,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
        report=True,
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) in {name} failed (see above)"


def test_the_core_modules_have_examples() -> None:
    """A module that teaches by example should keep having examples."""
    finder = doctest.DocTestFinder()
    with_examples = {
        name
        for name in MODULES
        if any(test.examples for test in finder.find(importlib.import_module(name)))
    }
    for name in (
        "autogradkit.tensor",
        "autogradkit.autograd.engine",
        "autogradkit.autograd.grad_mode",
        "autogradkit.autograd.functional",
        "autogradkit.nn.functional",
        "autogradkit._creation",
        "autogradkit.viz.graph",
        "autogradkit.widgets.stepper",
    ):
        assert name in with_examples, f"{name} lost its docstring examples"
