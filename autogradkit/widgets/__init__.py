"""Interactive widgets (ipywidgets) that run the real engine.

* :class:`BackwardStepper` — step through ``loss.backward()`` one node at a time;
* :class:`JacobianExplorer` — the Jacobian, and the vector-Jacobian product that
  ``backward(v)`` computes;
* :class:`ForwardReverseExplorer` — forward mode beside reverse mode on one graph:
  tangents flowing forward, gradients flowing back, J filled column by column and
  row by row.

Importing this module imports ipywidgets; ``import autogradkit`` alone does not.
"""

from __future__ import annotations

from .jacobian import JacobianExplorer
from .modes import ForwardReverseExplorer
from .stepper import BackwardStepper

__all__ = ["BackwardStepper", "JacobianExplorer", "ForwardReverseExplorer"]
