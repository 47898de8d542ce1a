"""Tensor printing that matches PyTorch character for character.

This mirrors ``torch/_tensor_str.py`` (PyTorch 2.x) for dense CPU tensors,
using only NumPy.  ``import autogradkit as torch`` should print exactly what
PyTorch prints, with the single difference that a dtype suffix reads
``dtype=autogradkit.float64`` instead of ``dtype=torch.float64``.

The algorithm is PyTorch's, reorganised for speed:

* PyTorch builds a ``_Formatter`` from the (possibly summarised) data, which
  formats every non-zero finite value once to find the column width, then
  formats every *displayed* value again while rendering.  The summarised data
  and the displayed values are the same elements, so here each displayed value
  is formatted exactly once and the width is taken from those strings.
* The nested ``[...]`` text is then assembled from that flat list of strings.

Module state (``PRINT_OPTS``) is shared with :func:`set_printoptions`, so
``autogradkit.set_printoptions`` behaves like ``torch.set_printoptions``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "PRINT_OPTS",
    "format_tensor",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]


@dataclasses.dataclass
class _PrinterOptions:
    """Current print options; field order matches PyTorch's ``get_printoptions()``."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing tensors (same semantics as ``torch.set_printoptions``).

    Args:
        precision: digits after the decimal point for floats (default 4).
        threshold: element count above which a tensor is summarised with
            ``...`` (default 1000).
        edgeitems: items kept at each end of a summarised dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``; applied first, then
            overridden by any explicit argument.
        sci_mode: ``True``/``False`` forces scientific notation on/off;
            ``None`` lets the formatter choose.  Note that, as in PyTorch,
            every call resets ``sci_mode`` (to ``None`` if not given).
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    # PyTorch assigns this unconditionally, so omitting it resets to automatic.
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as a dict usable as ``set_printoptions(**opts)``."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Context manager that temporarily changes the print options."""
    old_kwargs = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old_kwargs)


# ---------------------------------------------------------------------------
# Element formatting (PyTorch's ``_Formatter``)
# ---------------------------------------------------------------------------


def _format_floats(flat: np.ndarray) -> tuple[list[str], int]:
    """Format a flat float64 array the way ``_Formatter`` does; return (strings, width).

    The strings are not yet padded.  ``flat`` must already be float64: PyTorch
    formats ``tensor.tolist()`` values, i.e. float32 widened to Python float.
    """
    precision = PRINT_OPTS.precision
    values = flat.tolist()
    finite = np.isfinite(flat)
    nonzero_finite = finite & (flat != 0)

    if not nonzero_finite.any():
        # No value to infer a style from: PyTorch keeps int_mode=True,
        # sci_mode=False and width 1 (even if sci_mode is forced on).
        int_mode, sci_mode = True, False
    else:
        nz = flat[nonzero_finite]
        nz_abs = np.abs(nz)
        nz_min = float(nz_abs.min())
        nz_max = float(nz_abs.max())
        int_mode = bool(np.all(nz == np.ceil(nz)))
        if PRINT_OPTS.sci_mode is None:
            sci_mode = nz_max / nz_min > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4
        else:
            sci_mode = PRINT_OPTS.sci_mode

    if sci_mode:
        spec = f".{precision}e"
        strings = [format(v, spec) for v in values]
    elif int_mode:
        # Integral floats print as "4." so the reader can tell they are floats;
        # nan/inf get no trailing dot.
        strings = [
            format(v, ".0f") + "." if fin else format(v, ".0f")
            for v, fin in zip(values, finite.tolist())
        ]
    else:
        spec = f".{precision}f"
        strings = [format(v, spec) for v in values]

    # Only non-zero finite values set the column width; a wider "nan" or "-0."
    # simply overflows its column, exactly as in PyTorch.
    width = 1
    for s, counts in zip(strings, nonzero_finite.tolist()):
        if counts and len(s) > width:
            width = len(s)
    return strings, width


def _format_elements(shown: np.ndarray, floating: bool) -> tuple[list[str], int]:
    """Format every displayed element (C order) right-aligned to a common width."""
    if floating:
        strings, width = _format_floats(shown.astype(np.float64, copy=False).ravel())
    else:
        # Integers and bools: str() of the Python value, every value counts.
        strings = [str(v) for v in shown.ravel().tolist()]
        width = max(1, max(map(len, strings)))
    return [s.rjust(width) for s in strings], width


# ---------------------------------------------------------------------------
# Layout (PyTorch's ``_vector_str`` / ``_tensor_str_with_formatter``)
# ---------------------------------------------------------------------------


def _summarized(data: np.ndarray, edgeitems: int) -> np.ndarray:
    """Keep the first/last ``edgeitems`` along every axis longer than 2*edgeitems.

    Equivalent to PyTorch's ``get_summarized_data``; these are exactly the
    elements that get displayed.
    """
    for axis, n in enumerate(data.shape):
        if n > 2 * edgeitems:
            keep = np.r_[0:edgeitems, n - edgeitems : n]
            data = data.take(keep, axis=axis)
    return data


def _layout(
    cells: list[str],
    shape: tuple[int, ...],
    cut: tuple[bool, ...],
    width: int,
    indent: int,
) -> str:
    """Assemble nested brackets from the flat list of formatted cells.

    ``shape`` is the shape of the displayed (summarised) block and ``cut[d]``
    says whether axis ``d`` was summarised, i.e. gets an ellipsis after its
    first ``edgeitems`` entries.
    """
    ndim = len(shape)
    edge = PRINT_OPTS.edgeitems
    linewidth = PRINT_OPTS.linewidth
    # Block size of one index step along each axis, for slicing ``cells``.
    strides = [1] * ndim
    for d in range(ndim - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]

    def render(depth: int, offset: int, indent: int) -> str:
        if depth == ndim - 1:
            row = cells[offset : offset + shape[depth]]
            if cut[depth]:
                # The vector ellipsis carries a leading space and counts as an
                # element when wrapping.
                row = row[:edge] + [" ..."] + row[edge:]
            # Each element takes width + ", "; wrapped lines align under "[".
            per_line = max(1, math.floor((linewidth - indent) / (width + 2)))
            lines = [", ".join(row[i : i + per_line]) for i in range(0, len(row), per_line)]
            return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

        step = strides[depth]
        slices = [render(depth + 1, offset + i * step, indent + 1) for i in range(shape[depth])]
        if cut[depth]:
            slices.insert(edge, "...")
        # One blank line per dimension beyond 2 separates the slices.
        sep = "," + "\n" * (ndim - depth - 1) + " " * (indent + 1)
        return "[" + sep.join(slices) + "]"

    return render(0, 0, indent)


def _tensor_str(data: np.ndarray, floating: bool, indent: int) -> str:
    """The bracketed body of a non-empty tensor (PyTorch's ``_tensor_str``)."""
    summarize = data.size > PRINT_OPTS.threshold
    edge = PRINT_OPTS.edgeitems

    if data.ndim == 0:
        cells, _ = _format_elements(data, floating)
        return cells[0]

    if summarize and not edge:
        # edgeitems=0: PyTorch shows just an ellipsis at the top level.
        return "[...]"

    if summarize:
        shown = _summarized(data, edge)
        cut = tuple(n > 2 * edge for n in data.shape)
    else:
        shown = data
        cut = (False,) * data.ndim

    cells, width = _format_elements(shown, floating)
    return _layout(cells, shown.shape, cut, width, indent)


def _add_suffixes(tensor_str: str, suffixes: list[tuple[str, int]], indent: int) -> str:
    """Append ``, suffix`` items, wrapping to a new line when they would overflow.

    Each suffix comes with the length PyTorch would see for it (see
    :data:`_TORCH_DTYPE_PREFIX`), which decides the wrapping.
    """
    parts = [tensor_str]
    # PyTorch's arithmetic, including its off-by-two when there is no newline.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix, suffix_len in suffixes:
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            parts.append(", " + suffix)
            last_line_len += suffix_len + 2
    parts.append(")")
    return "".join(parts)


# The text shows ``autogradkit.float64`` but line wrapping is decided as if it
# read ``torch.float64``: the output is then PyTorch's repr with only the module
# name swapped, so the line breaks fall exactly where PyTorch puts them.
_DTYPE_PREFIX = "autogradkit."
_TORCH_DTYPE_PREFIX = "torch."


def _shape_str(shape: tuple[int, ...]) -> str:
    """``str(tuple(t.shape))``, e.g. ``(0,)`` or ``(2, 0)``."""
    return str(tuple(int(n) for n in shape))


def _autograd_suffixes(
    requires_grad: bool, grad_fn_name: str | None, tangent: str | None
) -> list[tuple[str, int]]:
    """``grad_fn=<Name>`` (or ``requires_grad=True``), then a dual tensor's
    ``tangent=...``, as PyTorch appends them."""
    texts = []
    if grad_fn_name is not None:
        texts.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        texts.append("requires_grad=True")
    if tangent is not None:
        texts.append("tangent=" + tangent)
    return [(text, len(text)) for text in texts]


def format_tensor(
    data: np.ndarray,
    *,
    dtype_name: str,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
    default_dtype_name: str = "float32",
    tangent: str | None = None,
) -> str:
    """Return PyTorch's ``repr`` of a dense CPU tensor holding ``data``.

    Args:
        data: the values; any shape, including 0-d and empty.
        dtype_name: ``"float32"``, ``"float64"``, ``"int64"`` or ``"bool"``
            (other NumPy float/int names such as ``"float16"`` also work).
        requires_grad: shown as ``requires_grad=True`` when there is no grad_fn.
        grad_fn_name: class name of the grad_fn, shown as ``grad_fn=<Name>``.
        prefix: text before the body; continuation lines are indented by its
            length.
        default_dtype_name: the current default float dtype (what
            ``torch.get_default_dtype()`` would return); it is the dtype
            PyTorch does not print.
        tangent: the text of a dual tensor's tangent (forward mode), shown as
            ``tangent=...`` after the grad_fn.
    """
    np_dtype = np.dtype(dtype_name)
    data = np.asarray(data)
    if data.dtype != np_dtype:
        # Round through the declared dtype so e.g. float32 values print as
        # float32 even if the caller stored them wider.
        data = data.astype(np_dtype)
    floating = np_dtype.kind == "f"
    indent = len(prefix)
    suffixes: list[tuple[str, int]] = []
    dtype_suffix = "dtype=" + _DTYPE_PREFIX + dtype_name
    dtype_item = (dtype_suffix, len("dtype=" + _TORCH_DTYPE_PREFIX + dtype_name))

    def plain(suffix: str) -> tuple[str, int]:
        return suffix, len(suffix)

    if data.size == 0:
        # Explicit shape unless it is (0,), matching NumPy.
        if data.ndim != 1:
            suffixes.append(plain("size=" + _shape_str(data.shape)))
        # With no elements to infer it from, any non-default dtype is shown,
        # int64 and bool included.
        if dtype_name != default_dtype_name:
            suffixes.append(dtype_item)
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(plain("size=" + _shape_str(data.shape)))
        # int64 and bool are recognisable from the printed values.
        if dtype_name not in (default_dtype_name, "int64", "bool"):
            suffixes.append(dtype_item)
        tensor_str = _tensor_str(data, floating, indent)

    suffixes += _autograd_suffixes(requires_grad, grad_fn_name, tangent)
    return _add_suffixes(prefix + tensor_str, suffixes, indent)
