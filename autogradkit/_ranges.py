"""``arange``, ``linspace`` and ``logspace`` computed the way PyTorch's CPU
kernels compute them, so they print the same digits.

The difference shows: ``torch.arange(-8.0, 8.0, 0.1)[80]`` is ``4.4409e-16``, not
``0``, because PyTorch evaluates ``start + step·i`` as one fused multiply-add in
double precision (exact product, one rounding) and then casts to float32; and
it fills the tensor in blocks, starting each block of 8 floats (4 doubles) from
``start + step·i`` and stepping from that rounded value. Near 0 such last-bit
differences decide whether ``relu``'s gradient there is 0 or 1.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["arange_count", "arange_values", "linspace_values", "logspace_values"]

_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's constant for splitting a double


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def fused_multiply_add(a, b, c) -> np.ndarray:
    """a·b + c with the product kept exact (Dekker's two-product and Knuth's
    two-sum in NumPy doubles), i.e. what a hardware FMA computes."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


def arange_values(start: float, step: float, count: int, dtype: np.dtype) -> np.ndarray:
    """PyTorch's float arange: blocks of two vectors (32 bytes each), each vector
    starting at fma(step, i, start) rounded to ``dtype`` and stepping from there;
    the tail element by element."""
    vector = 32 // dtype.itemsize
    block = 2 * vector
    blocked = count - count % block
    index = np.arange(count, dtype=np.float64)
    values = fused_multiply_add(step, index, start).astype(dtype)
    if blocked:
        vector_starts = values[:blocked:vector].astype(np.float64)
        offsets = np.arange(vector, dtype=np.float64)
        inside = fused_multiply_add(offsets[None, :], step, vector_starts[:, None])
        values[:blocked] = inside.reshape(-1).astype(dtype)
    return values


def linspace_values(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """PyTorch's linspace: computed in ``dtype``, the first half counting up from
    ``start`` and the second half counting down from ``end`` (so both ends are
    exact), each element one fused multiply-add."""
    if steps == 1:
        return np.full(1, start, dtype=dtype)
    work = dtype if dtype.kind == "f" else np.dtype(np.float64)
    first, last = work.type(start), work.type(end)
    step = work.type((last - first) / work.type(steps - 1))
    index = np.arange(steps, dtype=np.float64)
    up = fused_multiply_add(float(step), index, float(first))
    down = fused_multiply_add(-float(step), steps - 1 - index, float(last))
    values = np.where(index < steps // 2, up, down).astype(work)
    return values.astype(dtype) if work != dtype else values


def logspace_values(
    start: float, end: float, steps: int, base: float, dtype: np.dtype
) -> np.ndarray:
    """``base`` raised to ``linspace(start, end, steps)`` (exponents in double)."""
    exponents = linspace_values(start, end, steps, np.dtype(np.float64))
    with np.errstate(over="ignore"):
        return np.power(float(base), exponents).astype(dtype)


def arange_count(start: float, end: float, step: float) -> int:
    return max(0, math.ceil((end - start) / step))
