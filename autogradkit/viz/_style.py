"""One look for every gradient picture: the SVG drawings, the stepper's plot area
and the matplotlib plots choose the same kind of chart for a shape and colour
values with the same diverging scale, centred at zero (blue < 0 < red)."""

from __future__ import annotations

import numpy as np

__all__ = [
    "DIVERGING_CMAP",
    "display_kind",
    "symmetric_limit",
    "diverging_rgb",
    "format_value",
    "as_matrix",
    "text_colour",
]

# matplotlib's name for the scale; _DIVERGING_ANCHORS samples it at 9 even points, so
# the pictures drawn without matplotlib use the same colours.
DIVERGING_CMAP = "RdBu_r"
_DIVERGING_ANCHORS = np.array(
    [
        (5, 48, 97),
        (41, 113, 177),
        (107, 172, 208),
        (194, 221, 235),
        (247, 246, 246),
        (250, 204, 180),
        (228, 128, 101),
        (185, 39, 50),
        (103, 0, 31),
    ],
    dtype=float,
)

# Annotate each cell or bar with its number up to this many elements.
ANNOTATE_UP_TO = 36


def display_kind(shape: tuple) -> str:
    """``"value"`` for a scalar, ``"bars"`` for a vector, ``"heatmap"`` for a matrix
    (tensors of more dimensions are shown as a matrix, see :func:`as_matrix`)."""
    if len(shape) == 0 or (len(shape) == 1 and shape[0] == 1):
        return "value"
    if len(shape) == 1:
        return "bars"
    return "heatmap"


def as_matrix(values: np.ndarray) -> np.ndarray:
    """A ≥2-d array as a matrix: leading dimensions folded into the rows."""
    values = np.asarray(values)
    if values.ndim <= 2:
        return values.reshape(-1, values.shape[-1]) if values.ndim else values.reshape(1, 1)
    return values.reshape(-1, values.shape[-1])


def symmetric_limit(values: np.ndarray) -> float:
    """The colour scale runs from −limit to +limit, so zero is always white."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    limit = float(np.abs(finite).max()) if finite.size else 0.0
    return limit if limit > 0 else 1.0


def diverging_rgb(values: np.ndarray, limit: float) -> np.ndarray:
    """Colours (uint8 RGB, shape ``values.shape + (3,)``) on the diverging scale;
    non-finite values are grey."""
    values = np.asarray(values, dtype=float)
    position = np.clip((values / limit + 1) / 2, 0, 1) * (len(_DIVERGING_ANCHORS) - 1)
    position = np.nan_to_num(position, nan=(len(_DIVERGING_ANCHORS) - 1) / 2)
    low = np.floor(position).astype(int).clip(0, len(_DIVERGING_ANCHORS) - 2)
    fraction = (position - low)[..., None]
    rgb = _DIVERGING_ANCHORS[low] * (1 - fraction) + _DIVERGING_ANCHORS[low + 1] * fraction
    rgb = rgb.round().astype(np.uint8)
    rgb[~np.isfinite(values)] = (160, 160, 160)
    return rgb


def text_colour(rgb) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgb``."""
    r, g, b = (int(c) for c in rgb)
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


def format_value(value: float) -> str:
    """A number in a few characters: ``0.312``, ``-1.25``, ``1.3e+04``."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e4:
        return f"{value:.3g}"
    return f"{value:.2g}"
