"""Gradients as small SVG charts, drawn without matplotlib so the backward
stepper can redraw them at every step in a millisecond.

The chart for a shape is the one :func:`autogradkit.viz.plot_grad` draws with
matplotlib (see :mod:`._style`): the value for a scalar, bars for a vector, a
heatmap for a matrix, all on one diverging colour scale centred at zero.
"""

from __future__ import annotations

import base64
import struct
import zlib
from html import escape

import numpy as np

from ._style import (
    ANNOTATE_UP_TO,
    as_matrix,
    display_kind,
    diverging_rgb,
    format_value,
    symmetric_limit,
    text_colour,
)

__all__ = ["grad_panel_svg", "grad_chart_svg", "png_bytes"]

CHART_HEIGHT = 150.0
TITLE_HEIGHT = 20.0
MAX_CELLS = 24  # larger matrices become one image, one pixel per element
MAX_BARS = 48  # longer vectors are shown as a one-row heatmap


def grad_panel_svg(items: list[tuple[str, object, tuple]]) -> str:
    """One chart per ``(name, grad, shape)`` side by side; ``grad`` is a Tensor or
    None (not computed yet, drawn as an empty frame)."""
    charts = [grad_chart_svg(name, grad, shape) for name, grad, shape in items]
    x = 0.0
    parts = []
    for width, body in charts:
        parts.append(f'<g transform="translate({x:.0f},0)">{body}</g>')
        x += width + 16
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="agk-grads" width="{max(x - 16, 1):.0f}" '
        f'height="{CHART_HEIGHT + TITLE_HEIGHT:.0f}" font-family="ui-monospace, Menlo, Consolas, '
        f'monospace" font-size="12">{"".join(parts)}</svg>'
    )


def grad_chart_svg(name: str, grad, shape: tuple) -> tuple[float, str]:
    """``(width, svg elements)`` of one gradient's chart."""
    shape_text = "[" + ", ".join(str(n) for n in shape) + "]"
    if grad is None:
        width = 140.0
        return width, (
            f'<g class="grad-chart empty" data-tensor="{escape(name)}">'
            f'<text x="0" y="14" font-weight="bold">{escape(name)}.grad {shape_text}</text>'
            f'<rect x="0" y="{TITLE_HEIGHT}" width="{width}" height="{CHART_HEIGHT - 10}" fill="#f6f8fa" '
            f'stroke="#d0d7de" stroke-dasharray="4 3"/><text x="{width / 2}" y="{TITLE_HEIGHT + 70}" '
            f'text-anchor="middle" fill="#6e7781">None yet</text></g>'
        )
    values = np.asarray(grad, dtype=float)
    kind = display_kind(values.shape)
    if kind == "bars" and values.size > MAX_BARS:
        kind = "heatmap"
    limit = symmetric_limit(values)
    draw = {"value": _value, "bars": _bars, "heatmap": _heatmap}[kind]
    width, body = draw(values, limit)
    width = max(width, len(name + shape_text) * 7 + 50)
    title = f'<text x="0" y="14" font-weight="bold">{escape(name)}.grad {shape_text}</text>'
    return width, f'<g class="grad-chart {kind}" data-tensor="{escape(name)}">{title}{body}</g>'


def _value(values: np.ndarray, limit: float) -> tuple[float, str]:
    value = values.reshape(())
    r, g, b = diverging_rgb(value, limit)
    return 110.0, (
        f'<rect x="0" y="{TITLE_HEIGHT + 30}" width="110" height="60" rx="6" '
        f'fill="rgb({r},{g},{b})" stroke="#57606a"/>'
        f'<text x="55" y="{TITLE_HEIGHT + 66}" text-anchor="middle" font-size="16" '
        f'fill="{text_colour((r, g, b))}">{format_value(float(value))}</text>'
    )


def _bars(values: np.ndarray, limit: float) -> tuple[float, str]:
    annotate = values.size <= ANNOTATE_UP_TO
    # An annotated bar is as wide as its number (-0.00269), so no label is cut off.
    bar = 54.0 if annotate and values.size <= 12 else 26.0 if values.size <= 12 else 12.0
    height = CHART_HEIGHT - 30
    zero = TITLE_HEIGHT + 10 + height / 2
    colours = diverging_rgb(values, limit)
    out = [f'<line x1="0" x2="{bar * values.size:.0f}" y1="{zero}" y2="{zero}" stroke="#57606a"/>']
    for i, (value, (r, g, b)) in enumerate(zip(values, colours)):
        extent = 0.0 if not np.isfinite(value) else value / limit * height / 2
        top = zero - max(extent, 0)
        out.append(
            f'<rect class="bar" x="{i * bar + 2:.1f}" y="{top:.1f}" width="{bar - 4:.1f}" '
            f'height="{abs(extent):.1f}" fill="rgb({r},{g},{b})" data-value="{value:.6g}">'
            f"<title>[{i}] = {value:.6g}</title></rect>"
        )
        if annotate and bar >= 20:
            y = zero - extent - 3 if extent >= 0 else zero - extent + 11
            out.append(
                f'<text x="{i * bar + bar / 2:.1f}" y="{y:.1f}" text-anchor="middle" '
                f'font-size="11">{format_value(value)}</text>'
            )
    return bar * values.size, "".join(out)


def _heatmap(values: np.ndarray, limit: float) -> tuple[float, str]:
    matrix = as_matrix(values)
    rows, columns = matrix.shape
    colours = diverging_rgb(matrix, limit)
    top = TITLE_HEIGHT + 4
    if rows > MAX_CELLS or columns > MAX_CELLS:
        scale = min((CHART_HEIGHT - 10) / rows, 300 / columns, 8.0)
        width, height = columns * scale, rows * scale
        data = base64.b64encode(png_bytes(colours)).decode("ascii")
        return width, (
            f'<image x="0" y="{top}" width="{width:.1f}" height="{height:.1f}" '
            f'preserveAspectRatio="none" style="image-rendering:pixelated" '
            f'href="data:image/png;base64,{data}"/>'
        )
    annotate = matrix.size <= ANNOTATE_UP_TO
    cell_height = min((CHART_HEIGHT - 10) / rows, 36.0)
    # Annotated cells must be wide enough for a number such as -0.00269.
    cell_width = max(cell_height, 54.0) if annotate else cell_height
    out = []
    for i in range(rows):
        for j in range(columns):
            r, g, b = colours[i, j]
            value = matrix[i, j]
            out.append(
                f'<rect class="cell" x="{j * cell_width:.1f}" y="{top + i * cell_height:.1f}" '
                f'width="{cell_width:.1f}" height="{cell_height:.1f}" fill="rgb({r},{g},{b})" '
                f'data-value="{value:.6g}"><title>[{i}, {j}] = {value:.6g}</title></rect>'
            )
            if annotate:
                out.append(
                    f'<text x="{(j + 0.5) * cell_width:.1f}" '
                    f'y="{top + (i + 0.5) * cell_height + 3:.1f}" text-anchor="middle" '
                    f'font-size="11" fill="{text_colour((r, g, b))}">{format_value(value)}</text>'
                )
    return columns * cell_width, "".join(out)


def png_bytes(rgb: np.ndarray) -> bytes:
    """Encode an (H, W, 3) uint8 image as PNG (the format is simple enough to write
    by hand: a header, the rows deflated, a footer)."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
