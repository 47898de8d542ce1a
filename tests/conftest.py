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
"""

from __future__ import annotations

import os

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
