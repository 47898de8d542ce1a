"""Pictures as HTML that every notebook viewer shows.

A notebook opened without trust (a fresh clone in JupyterLab), GitHub's preview and
nbviewer clean a saved ``text/html`` output before showing it, and the cleaning
removes inline ``<svg>``: only the text inside it stays, run together. An ``<img>``
whose ``src`` is the same SVG as a ``data:`` URL survives (an image cannot run
code), so the HTML of every drawing here is such an image. Live widgets keep their
inline SVG: they are only ever shown by a running, trusted kernel.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from html import escape
from typing import Protocol

__all__ = ["svg_img", "DrawingStack", "stack"]


def svg_img(
    svg: str, alt: str, *, css_class: str = "", fit: bool = True, min_width: float = 0
) -> str:
    """An ``<img>`` tag that shows ``svg``; ``alt`` is what a screen reader (or a
    viewer that shows no images) says instead.

    With ``fit`` the picture shrinks to the width of the page (not below
    ``min_width`` pixels); without it, it keeps its own size, so that several
    pictures are drawn to one scale.
    """
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    if fit:
        style = "max-width:100%;height:auto"
        if min_width:
            style += f";min-width:{min_width:.0f}px"
    else:
        style = "max-width:none"
    class_attribute = f'class="{escape(css_class)}" ' if css_class else ""
    return (
        f'<img {class_attribute}src="data:image/svg+xml;base64,{data}" '
        f'alt="{escape(alt)}" style="{style}"/>'
    )


class _Drawing(Protocol):
    svg: str

    def alt_text(self) -> str: ...


class DrawingStack:
    """Several drawings one above the other, left-aligned and at one scale, so the
    lengths of long chains compare at a glance. Together they shrink to the page's
    width (not below ``MIN_SCALE``; narrower than that, the view scrolls)."""

    MIN_SCALE = 0.65

    def __init__(self, drawings: Mapping[str, _Drawing]) -> None:
        self.drawings = dict(drawings)

    def _repr_html_(self) -> str:
        widths = {title: _svg_width(drawing.svg) for title, drawing in self.drawings.items()}
        widest = max(widths.values(), default=1.0)
        panels = "".join(
            f'<div><p style="margin:4px 0"><b>{escape(title)}</b></p>'
            + svg_img(
                drawing.svg, drawing.alt_text(), css_class="agk-graph-drawing", fit=False
            ).replace("max-width:none", f"width:{100 * widths[title] / widest:.2f}%")
            + "</div>"
            for title, drawing in self.drawings.items()
        )
        return (
            '<div class="agk-drawing-stack" style="overflow-x:auto">'
            f'<div style="max-width:{widest:.0f}px;min-width:{widest * self.MIN_SCALE:.0f}px">'
            f"{panels}</div></div>"
        )

    def __repr__(self) -> str:
        return f"<DrawingStack: {', '.join(self.drawings)}>"


def _svg_width(svg: str) -> float:
    found = re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg)
    return float(found.group(1)) if found else 1.0


def stack(drawings: Mapping[str, _Drawing]) -> DrawingStack:
    """Show drawings one above the other at the same scale, each under its title.

    >>> import autogradkit as torch
    >>> from autogradkit.viz import draw_graph, stack
    >>> a = torch.tensor(2.0, requires_grad=True)
    >>> stack({"a²": draw_graph(a * a), "a⁴": draw_graph(a * a * a * a)})
    <DrawingStack: a², a⁴>
    """
    return DrawingStack(drawings)
