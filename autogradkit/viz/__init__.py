"""Pictures of autograd, drawn from the real graph and the real gradients.

* :func:`draw_graph` — the computational graph as SVG, laid out in pure Python
  (no Graphviz), displayed by Jupyter as it is;
* :func:`stack` — several drawings one above the other, at one scale;
* :func:`plot_grad`, :func:`plot_grads` — gradients as matplotlib heatmaps and bars.

Loading this module does not load matplotlib; the plotting functions do, on first use.
"""

from __future__ import annotations

from ._html import DrawingStack, stack
from .graph import GraphDrawing, draw_graph
from .plots import plot_grad, plot_grads

__all__ = ["draw_graph", "GraphDrawing", "stack", "DrawingStack", "plot_grad", "plot_grads"]
