"""Shared setup of the differential tests (autogradkit vs PyTorch).

* puts this directory on ``sys.path`` so test modules can ``import harness``;
* with ``AUTOGRADKIT_HIDE_TORCH=1`` in the environment, hides PyTorch
  (``sys.modules['torch'] = None`` makes ``import torch`` raise ImportError), so
  the suite can be checked the way it runs on a machine without PyTorch: the
  live tests skip and the golden-file tests still run;
* registers the ``torch`` marker if pyproject.toml does not already.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402

if harness.torch_hidden():
    sys.modules["torch"] = None  # type: ignore[assignment]


def pytest_configure(config):
    registered = config.getini("markers")
    if not any(str(m).startswith("torch:") for m in registered):
        config.addinivalue_line("markers", "torch: needs PyTorch installed live")
