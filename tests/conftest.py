"""Shared pytest configuration.

Hypothesis profiles
-------------------
* ``ci``  — reproducible: derandomized, no example database, and a failing
  example's reproduction blob is printed (``@reproduce_failure``).
* ``dev`` — random exploration with the local example database, so a failure
  found once is replayed first next time.

Choose one with ``HYPOTHESIS_PROFILE=ci|dev``; without it, ``ci`` is used when the
``CI`` environment variable is set (``.ci/run`` sets it) and ``dev`` otherwise.
Per-test ``@settings`` (``max_examples``, ``deadline`` …) still apply on top.

Order of the files
------------------
Files that hold a test marked ``slow`` (the assignment round trips, the JupyterLite
build: minutes each under load) are collected first. pytest-xdist hands out whole
files in collection order (``--dist loadfile --no-loadscope-reorder``), so each
worker starts on one of them and the many short files fill in behind, instead of a
long file starting late on one worker while the other sits idle.

Notebook kernels
----------------
nbval's kernel start is tried a second time if the kernel dies before answering
(see ``_start_kernel_with_one_retry``). It lives here, not in ``notebooks/``, which
learners open and JupyterLite ships; the test command collects ``tests/`` with the
notebooks, so the patch is in place for them.
"""

from __future__ import annotations

import os
from typing import Any

import nbval.kernel
import pytest

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a test extra; plain unit tests still run without it
    settings = None  # type: ignore[assignment,misc]

if settings is not None:
    settings.register_profile(
        "ci",
        derandomize=True,
        database=None,
        print_blob=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile("dev", deadline=None, print_blob=True)
    _default = "ci" if os.environ.get("CI") else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected what does not run
def pytest_collection_modifyitems(config, items) -> None:
    """The files holding a ``slow`` test first, in their order; the rest after, in
    theirs (a file's tests, a notebook's cells, keep their order)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)


_start_new_kernel = nbval.kernel.start_new_kernel


def _start_kernel_with_one_retry(*args: Any, **kwargs: Any) -> Any:
    """nbval's kernel start, tried a second time if the kernel dies before it answers.

    Under ``-n 2`` two workers start kernels at the same moment: jupyter_client
    picks five free ports for each, and the kernel binds them a moment later, so on
    a machine whose cores are all busy a kernel can find a port taken and exit
    ("Kernel died before replying to kernel_info": once in CI with two busy loops,
    for one notebook of ten, every cell of it an error). A second start picks new
    ports; a kernel that cannot start at all still fails the notebook.
    """
    try:
        return _start_new_kernel(*args, **kwargs)
    except RuntimeError:
        return _start_new_kernel(*args, **kwargs)


nbval.kernel.start_new_kernel = _start_kernel_with_one_retry
