"""Interactive widgets (ipywidgets) that run the real engine.

* :class:`BackwardStepper` — step through ``loss.backward()`` one node at a time;
* :class:`JacobianExplorer` — the Jacobian, and the vector-Jacobian product that
  ``backward(v)`` computes.

Importing this module imports ipywidgets; ``import autogradkit`` alone does not.
"""

from __future__ import annotations

from .jacobian import JacobianExplorer
from .stepper import BackwardStepper

__all__ = ["BackwardStepper", "JacobianExplorer"]
