"""Seeded random numbers that match PyTorch's CPU generator bit for bit.

This module mirrors ``torch/random.py`` (``manual_seed``, ``seed``,
``initial_seed``, ``get_rng_state``, ``set_rng_state``, ``fork_rng``) and
provides the :class:`Generator` that the tensor factories (``rand``, ``randn``,
``randint``) draw from.  After ``manual_seed(s)`` the same sequence of calls
gives exactly the numbers PyTorch's default CPU generator gives.

How PyTorch makes its numbers (``aten/src/ATen/core/MT19937RNGEngine.h``,
``CPUGeneratorImpl.cpp``, ``core/TransformationHelper.h``,
``core/DistributionsHelper.h``, ``native/cpu/DistributionTemplates.h``,
``native/cpu/avx_mathfun.h``), and how this file follows it:

* **Engine.**  A standard 32-bit Mersenne Twister (MT19937).  Seeding keeps the
  full 64-bit seed for ``initial_seed()`` but only its low 32 bits enter the
  state (Knuth's ``1812433253`` recurrence).  The first draw after seeding
  triggers the first "twist" of the 624-word state.  Here each twist is a
  few NumPy array operations on whole slices of the block, and tempering is
  applied to all requested words at once.
* **64-bit draws** (used by float64) are two 32-bit draws, the first one being
  the high half.
* **rand.**  float32: ``(u32 & (2**24 - 1)) * 2**-24``; float64:
  ``(u64 & (2**53 - 1)) * 2**-53``.  Both are exact in NumPy.
* **randn with fewer than 16 elements** uses ``at::normal_distribution<double>``
  one element at a time: two float64 uniforms ``u1, u2``,
  ``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``; it returns ``r cos(theta)``
  and *caches* ``r sin(theta)`` in the generator.  The next scalar normal
  (even in a later call, and for either dtype) returns the cached value
  without drawing.  ``manual_seed`` clears the cache; ``get_state`` saves it.
  The transcendental functions are the C library's, reached through Python's
  :mod:`math` module, which calls the same ``libm`` that PyTorch calls.
* **randn with 16 or more elements** fills the tensor with uniforms, then turns
  each block of 16 into normals with Box-Muller (``u1 = 1 - data[j]``,
  ``u2 = data[j + 8]`` for ``j < 8``).  When the size is not a multiple of 16
  it draws 16 *fresh* uniforms and recomputes the *last* 16 elements from
  them (overwriting part of the last full block).

  - float64 uses ``std::log``/``std::cos``/``std::sin`` from ``libm``; they are
    reached through :mod:`math` (one ``map`` call per function), so they agree
    with PyTorch exactly.
  - float32 on x86-64 CPUs with AVX2 uses 8-wide AVX2 code whose logarithm and
    sine/cosine are the Cephes polynomials of ``avx_mathfun.h``, compiled with
    fused multiply-adds.  :func:`_normal16_avx2` replays those float32
    operations one by one in NumPy, emulating each fused multiply-add exactly.
  - float32 elsewhere (ARM, or ``ATEN_CPU_CAPABILITY=default``) uses the C
    library's ``logf``/``cosf``/``sinf``, which are not correctly rounded and
    which NumPy cannot call.  :func:`_normal16_scalar_float` computes them in
    float64 and rounds instead: about 1.5% of the elements then differ from
    PyTorch by 1-3 float32 ulps (far below the 4 decimals PyTorch prints).
"""

from __future__ import annotations

import contextlib
import math
import operator
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "fork_rng",
]

# ---------------------------------------------------------------- constants --

_N = 624  # MT19937 state words
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)

# torch.Generator() without a seed uses this one (default_rng_seed_val).
_DEFAULT_RNG_SEED = 67280421310721

_U64 = (1 << 64) - 1

# Layout of the byte tensor returned by torch.get_rng_state() (see
# CPUGeneratorImplState in CPUGeneratorImpl.cpp): a C struct of
#   uint64 the_initial_seed; int32 left; int32 seeded; uint64 next;
#   uint64 state[624]; double normal_x, normal_y, normal_rho;
#   int32 normal_is_valid; (pad 4) float next_float_normal_sample;
#   bool is_next_float_normal_sample_valid; (pad 3)
_STATE_DTYPE = np.dtype(
    {
        "names": [
            "the_initial_seed",
            "left",
            "seeded",
            "next",
            "state",
            "normal_x",
            "normal_y",
            "normal_rho",
            "normal_is_valid",
            "next_float_normal_sample",
            "is_next_float_normal_sample_valid",
        ],
        "formats": [
            "<u8",
            "<i4",
            "<i4",
            "<u8",
            ("<u8", (_N,)),
            "<f8",
            "<f8",
            "<f8",
            "<i4",
            "<f4",
            "u1",
        ],
        "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
        "itemsize": 5056,
    }
)
STATE_SIZE = _STATE_DTYPE.itemsize  # 5056 bytes, like torch.get_rng_state()


# ------------------------------------------------------------------ engine ---


@lru_cache(maxsize=16)
def _seeded_key(seed32: int) -> np.ndarray:
    """MT19937 ``init_genrand``: the 624-word state for a 32-bit seed.

    The recurrence is sequential, so it is a Python loop (about 0.1 ms); the
    result is cached, because programs tend to reseed with the same value.
    """
    words = [seed32]
    x = seed32
    for j in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        words.append(x)
    key = np.array(words, dtype=np.uint32)
    key.flags.writeable = False
    return key


def _twist(old: np.ndarray) -> np.ndarray:
    """Return the next 624-word MT19937 block (PyTorch's ``next_state``).

    Word ``i`` of the new block depends on old words ``i`` and ``i + 1`` and on
    word ``i + 397``, which is an *old* word for ``i < 227`` and a *new* word
    (``i - 227``) after that.  So the block is made in four slices, each one
    vectorised, that only read words already finished.
    """
    # mix_bits(u, v) >> 1 ^ (v & 1 ? MATRIX_A : 0) for every pair (i, i + 1).
    y = (old[:-1] & _UPPER) | (old[1:] & _LOWER)
    t = (y >> np.uint32(1)) ^ ((old[1:] & np.uint32(1)) * _MATRIX_A)
    new = np.empty(_N, dtype=np.uint32)
    k = _N - _M  # 227
    np.bitwise_xor(old[_M:], t[:k], out=new[:k])
    np.bitwise_xor(new[:k], t[k : 2 * k], out=new[k : 2 * k])
    np.bitwise_xor(new[k : _N - 1 - k], t[2 * k :], out=new[2 * k : _N - 1])
    last = int(old[-1])
    first = int(new[0])
    y_last = (last & 0x80000000) | (first & 0x7FFFFFFF)
    new[-1] = int(new[_M - 1]) ^ (y_last >> 1) ^ (0x9908B0DF if first & 1 else 0)
    return new


def _temper(y: np.ndarray) -> np.ndarray:
    """MT19937 output tempering, applied to a whole array in place."""
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


def _check_seed(seed, who: str = "manual_seed") -> int:
    """Validate a seed like PyTorch's ``Generator.manual_seed`` and return it as
    an unsigned 64-bit integer (negative seeds wrap, as in PyTorch)."""
    if isinstance(seed, (bool, np.bool_)) or not hasattr(type(seed), "__index__"):
        raise TypeError(f"{who} expected an int, but got {type(seed).__name__}")
    value = operator.index(seed)
    if not -(1 << 63) <= value <= _U64:
        raise ValueError(
            f"{who}: seed must be within the range "
            f"[-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff], but got {value}"
        )
    return value & _U64


def _check_shape(shape) -> tuple[int, ...]:
    """Turn ``shape`` into a tuple of non-negative ints, with PyTorch's error."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be a tuple of ints, but got {shape!r}") from None
    for d in dims:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    return dims


def _check_float_dtype(dtype, who: str) -> np.dtype:
    """float32 or float64 from a NumPy or autogradkit dtype (None: float32)."""
    if dtype is None:
        return np.dtype(np.float32)
    try:
        dt = np.dtype(getattr(dtype, "numpy", dtype))
    except TypeError:
        raise TypeError(f"{who}: {dtype!r} is not a dtype") from None
    if dt not in (np.float32, np.float64):
        raise TypeError(f"{who} supports float32 and float64, but got {dt}")
    return dt


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# ------------------------------------------------------ normal transforms ----

_TWO_PI = 2.0 * math.pi  # c10::pi<double> * 2, exact doubling


def _fma32(a, b, c) -> np.ndarray:
    """Exact float32 fused multiply-add ``round_f32(a * b + c)``.

    ``a * b`` is exact in float64 (24 + 24 bits < 53), so only the addition
    rounds twice (to float64, then to float32).  That can go wrong only when
    the float64 sum lands exactly halfway between two float32 numbers (or in
    the float32 subnormal range): for those rare elements the exact error of
    the addition (TwoSum) tells which way the true sum lies, and the float64
    sum is nudged one float64 ulp that way before rounding.
    """
    p = np.multiply(a, b, dtype=np.float64)
    s = p + c
    # A float32 midpoint has the float64 bit pattern 1000...0 in the 29 bits
    # that float32 drops; float32 subnormals (never reached by randn, which
    # has no values that small) are checked separately.
    low = s.view(np.uint64) & np.uint64(0x1FFFFFFF)
    suspect = np.flatnonzero((low == np.uint64(0x10000000)) | (np.abs(s) < 2.0**-125))
    if suspect.size:
        ps, ss = p.ravel()[suspect], s.ravel()[suspect]
        tiny = np.abs(ss) < 2.0**-125
        scaled = ss * 2.0**150  # exact; subnormal midpoints are odd integers
        is_mid = np.where(tiny, (scaled == np.floor(scaled)) & (np.fmod(scaled, 2.0) != 0), True)
        suspect, ps, ss = suspect[is_mid], ps[is_mid], ss[is_mid]
        cs = np.broadcast_to(np.asarray(c, np.float64), s.shape).ravel()[suspect]
        bb = ss - ps
        err = (ps - (ss - bb)) + (cs - bb)
        s.ravel()[suspect] = np.where(err != 0, np.nextafter(ss, np.copysign(np.inf, err)), ss)
    return s.astype(np.float32)


# Veltkamp's constant 2**27 + 1: it splits a double into two halves of 26 bits,
# whose products are exact (Dekker's exact product below).
_SPLITTER = 134217729.0


def _two_product(a: np.ndarray, b) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p = a * b`` rounded and ``p + e`` exactly ``a · b``."""
    p = a * b
    a_high = a * _SPLITTER
    a_high = a_high - (a_high - a)
    a_low = a - a_high
    b_high = b * _SPLITTER
    b_high = b_high - (b_high - b)
    b_low = b - b_high
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _two_sum(a, b) -> tuple[np.ndarray, np.ndarray]:
    """``(s, e)`` with ``s = a + b`` rounded and ``s + e`` exactly ``a + b``."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """Exact float64 fused multiply-add ``round(a * b + c)`` (NumPy has none;
    ``math.fma`` needs Python 3.13).

    ``a·b + c`` is exactly ``s + t + g`` (error-free products and sums); rounding
    ``s + t`` gives the right answer unless that sum sits next to a halfway
    point between two doubles, where ``g`` decides. Those few elements (and any
    tiny or non-finite one) are computed exactly with fractions.
    """
    with np.errstate(all="ignore"):
        p, product_error = _two_product(a, b)
        s, sum_error = _two_sum(p, c)
        t, g = _two_sum(product_error, sum_error)
        result = s + t
        off_by = t - (result - s)  # how far the rounded sum is from s + t
        halfway = np.spacing(np.abs(result)) / 2
        suspect = np.flatnonzero(
            ~np.isfinite(result)
            | (np.abs(np.abs(off_by) - halfway) <= 2 * np.abs(g))
            | (np.abs(result) < 2.0**-960)
        )
    flat = result.reshape(-1)
    for i in suspect.tolist():
        x = float(a.flat[i])
        if math.isfinite(x) and math.isfinite(b) and math.isfinite(c):
            flat[i] = float(Fraction(x) * Fraction(b) + Fraction(c))
        else:
            flat[i] = x * b + c
    return result


# float32 constants of avx_mathfun.h (declared as float literals there).
_f32 = np.float32
_LOG_P = [
    _f32(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1 = _f32(-2.12194440e-4)
_LOG_Q2 = _f32(0.693359375)
_SQRTHF = _f32(0.707106781186547524)
_FOPI = _f32(1.27323954473516)
_DP1 = _f32(-0.78515625)
_DP2 = _f32(-2.4187564849853515625e-4)
_DP3 = _f32(-3.77489497744594108e-8)
_SINCOF = [_f32(v) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_COSCOF = [
    _f32(v) for v in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
]
_TWO_PI_F32 = _f32(_TWO_PI)


def _log256_ps(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` of avx_mathfun.h for x in (0, 1], step by step."""
    xi = np.maximum(x, _f32(np.finfo(np.float32).tiny)).view(np.int32)
    e = ((xi >> 23) - 0x7F).astype(np.float32) + _f32(1)
    m = ((xi & ~0x7F800000) | 0x3F000000).view(np.float32)  # mantissa in [0.5, 1)
    small = m < _SQRTHF
    e = e - np.where(small, _f32(1), _f32(0))
    x = (m - _f32(1)) + np.where(small, m, _f32(0))
    z = x * x
    y = _fma32(np.full_like(x, _LOG_P[0]), x, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = _fma32(y, x, p)
    y = y * x
    y = _fma32(y, z, e * _LOG_Q1)
    y = _fma32(-z, _f32(0.5), y)
    x = x + y
    return _fma32(e, _LOG_Q2, x)


def _sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` of avx_mathfun.h for x >= 0, step by step."""
    j = (x * _FOPI).astype(np.int32)  # cvttps: truncation
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    sign_sin = (j & 4) != 0
    poly_sin = (j & 2) == 0  # use the sine polynomial for the sine
    sign_cos = ((j - 2) & 4) == 0
    x = _fma32(y, _DP1, x)
    x = _fma32(y, _DP2, x)
    x = _fma32(y, _DP3, x)
    z = x * x
    c = _fma32(np.full_like(z, _COSCOF[0]), z, _COSCOF[1])
    c = _fma32(c, z, _COSCOF[2])
    c = c * z
    c = _fma32(c, z, -(z * _f32(0.5)))  # c*z - z/2, fused
    c = c + _f32(1)
    s = _fma32(np.full_like(z, _SINCOF[0]), z, _SINCOF[1])
    s = _fma32(s, z, _SINCOF[2])
    s = s * z
    s = _fma32(s, x, x)
    sin = np.where(poly_sin, s, c)
    cos = np.where(poly_sin, c, s)
    sin = np.where(sign_sin, -sin, sin)
    cos = np.where(sign_cos, -cos, cos)
    return sin, cos


def _normal16_avx2(u: np.ndarray) -> np.ndarray:
    """Box-Muller on blocks of 16 float32 uniforms, as ``NormalFill16<float>``
    does with AVX2 (``u`` has shape (blocks, 16))."""
    u1 = _f32(1) - u[:, :8]
    u2 = u[:, 8:]
    radius = np.sqrt(_f32(-2) * _log256_ps(u1))
    sin, cos = _sincos256_ps(_TWO_PI_F32 * u2)
    out = np.empty_like(u)
    out[:, :8] = radius * cos
    out[:, 8:] = radius * sin
    out += _f32(0)  # fmadd(n, std=1, mean=0) turns -0.0 into +0.0
    return out


def _normal16_scalar_float(u: np.ndarray) -> np.ndarray:
    """Box-Muller on blocks of 16 float32 uniforms as the portable C++ loop
    does (``logf``/``cosf``/``sinf``), approximated by rounding float64
    results: about 1.5% of the outputs differ from PyTorch's by 1-3 ulps."""
    u1 = (_f32(1) - u[:, :8]).astype(np.float64)
    u2 = u[:, 8:]
    radius = np.sqrt(_f32(-2) * np.log(u1).astype(np.float32))
    theta = (_TWO_PI * u2.astype(np.float64)).astype(np.float32).astype(np.float64)
    out = np.empty_like(u)
    out[:, :8] = radius * np.cos(theta).astype(np.float32)
    out[:, 8:] = radius * np.sin(theta).astype(np.float32)
    out += _f32(0)
    return out


def _normal16_double(u: np.ndarray) -> np.ndarray:
    """Box-Muller on blocks of 16 float64 uniforms with the C library's
    ``log``/``cos``/``sin`` (via :mod:`math`), as ``NormalFill16<double>``."""
    u1 = (1.0 - u[:, :8]).ravel().tolist()
    theta = (_TWO_PI * u[:, 8:]).ravel().tolist()
    log_u1 = np.fromiter(map(math.log, u1), np.float64, len(u1))
    cos = np.fromiter(map(math.cos, theta), np.float64, len(theta))
    sin = np.fromiter(map(math.sin, theta), np.float64, len(theta))
    radius = np.sqrt(-2.0 * log_u1)
    out = np.empty_like(u)
    out[:, :8] = (radius * cos).reshape(-1, 8)
    out[:, 8:] = (radius * sin).reshape(-1, 8)
    out += 0.0
    return out


def _detect_float32_normal_kernel() -> str:
    """Which float32 ``NormalFill16`` PyTorch runs on this machine.

    PyTorch picks a kernel by CPU capability: x86-64 CPUs with AVX2 (or
    AVX-512, which falls back to the AVX2 kernel for normal_) run the AVX2
    code; everything else runs the portable loop.  ``ATEN_CPU_CAPABILITY``
    overrides the choice in PyTorch, so it does here too.
    """
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower()
    if forced == "default":
        return "scalar"
    if forced in ("avx2", "avx512"):
        return "avx2"
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64", "x64"):
        return "scalar"
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("flags"):
                        flags = line.split()
                        return "avx2" if "avx2" in flags and "fma" in flags else "scalar"
        except OSError:
            pass
    return "avx2"  # every x86-64 CPU sold since about 2015 has AVX2


_NORMAL_CHUNK = 4096  # blocks of 16 transformed per NumPy pass

#: "avx2" or "scalar": the float32 Box-Muller kernel PyTorch uses here.
FLOAT32_NORMAL_KERNEL = _detect_float32_normal_kernel()


# --------------------------------------------------------------- generator ---


class Generator:
    """A Mersenne Twister random number generator, like ``torch.Generator()``.

    Parameters
    ----------
    seed : int, optional
        Initial seed.  Without one the generator uses PyTorch's default seed
        ``67280421310721``, so ``Generator()`` and ``torch.Generator()`` give
        the same numbers.

    Examples
    --------
    >>> g = Generator().manual_seed(0)
    >>> g.rand((3,), np.float32)       # torch.rand(3) after torch.manual_seed(0)
    array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
    >>> g.manual_seed(0).randn((3,), np.float32)
    array([ 1.5409961, -0.2934289, -2.1787894], dtype=float32)
    """

    __slots__ = ("_seed", "_key", "_left", "_next", "_normal_cache", "_float_normal_cache")

    def __init__(self, seed: int | None = None, device=None) -> None:
        # torch.Generator(device="cpu") or torch.Generator("cpu"): a device, checked
        # as tensors' are (the seed argument is this kit's own, for its tests).
        if isinstance(seed, str) or type(seed).__name__ == "device":
            seed, device = None, seed
        from ._device import check_device

        check_device(device)
        self.manual_seed(_DEFAULT_RNG_SEED if seed is None else seed)

    @property
    def device(self):
        """Always the CPU (``device(type='cpu')``)."""
        from ._device import device

        return device("cpu")

    def __repr__(self) -> str:
        return f"<autogradkit.Generator initial_seed={self._seed}>"

    # -- seeding ---------------------------------------------------------

    def manual_seed(self, seed: int) -> Generator:
        """Seed the generator (clearing any cached normal) and return it."""
        value = _check_seed(seed)
        self._seed = value
        self._key = _seeded_key(value & 0xFFFFFFFF)  # read-only until twisted
        # PyTorch's (left_, next_): "left - 1" words remain; left == 1 means
        # the next draw must twist first.
        self._left = 1
        self._next = 0
        self._normal_cache: float | None = None
        self._float_normal_cache: float | None = None
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the seed."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed last given to :meth:`manual_seed` (as an unsigned int)."""
        return self._seed

    # -- state -----------------------------------------------------------

    def get_state(self) -> np.ndarray:
        """The full state as 5056 bytes, laid out like ``torch.get_rng_state()``.

        ``torch.set_rng_state(torch.from_numpy(g.get_state()))`` moves it to
        PyTorch, and ``g.set_state(torch.get_rng_state().numpy())`` back.
        """
        st = np.zeros((), dtype=_STATE_DTYPE)
        st["the_initial_seed"] = self._seed
        st["left"] = self._left
        st["seeded"] = 1
        st["next"] = self._next
        st["state"] = self._key
        if self._normal_cache is not None:
            st["normal_is_valid"] = 1
            st["normal_y"] = self._normal_cache
        if self._float_normal_cache is not None:
            st["is_next_float_normal_sample_valid"] = 1
            st["next_float_normal_sample"] = self._float_normal_cache
        return np.frombuffer(st.tobytes(), dtype=np.uint8).copy()

    def set_state(self, new_state) -> Generator:
        """Restore a state from :meth:`get_state` (or ``torch.get_rng_state()``,
        converted with ``.numpy()``)."""
        raw = np.asarray(new_state)
        if raw.dtype != np.uint8:
            raise TypeError(f"RNG state must be a uint8 (byte) array, but got dtype {raw.dtype}")
        if raw.size != STATE_SIZE:
            raise ValueError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                f"the input RNG state size to be {raw.size}"
            )
        st = np.frombuffer(np.ascontiguousarray(raw).tobytes(), dtype=_STATE_DTYPE)[0]
        left, nxt = int(st["left"]), int(st["next"])
        if not (st["seeded"] and 0 < left <= _N and 0 <= nxt <= _N and nxt + left - 1 <= _N):
            raise ValueError("Invalid mt19937 state")
        self._seed = int(st["the_initial_seed"])
        self._key = st["state"].astype(np.uint32)  # keeps the low 32 bits
        self._left = left
        self._next = nxt
        self._normal_cache = float(st["normal_y"]) if st["normal_is_valid"] else None
        self._float_normal_cache = (
            float(st["next_float_normal_sample"])
            if st["is_next_float_normal_sample_valid"]
            else None
        )
        return self

    def clone_state(self) -> Generator:
        """An independent copy of this generator (same state, same cache)."""
        other = Generator.__new__(Generator)
        other._seed = self._seed
        other._key = self._key
        other._left = self._left
        other._next = self._next
        other._normal_cache = self._normal_cache
        other._float_normal_cache = self._float_normal_cache
        return other

    # -- raw draws ---------------------------------------------------------

    def random_bits32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs (PyTorch's ``random()``) as uint32."""
        n = operator.index(n)
        if n < 0:
            raise ValueError(f"n must be non-negative, but got {n}")
        avail = self._left - 1
        if n <= avail:  # common fast path: no twist needed
            out = self._key[self._next : self._next + n].copy()
            self._next += n
            self._left -= n
            return _temper(out)
        parts = [self._key[self._next : self._next + avail]]
        need = n - avail
        key = self._key
        while need > 0:
            key = _twist(key)
            take = min(need, _N)
            parts.append(key[:take])
            need -= take
        self._key = key
        self._next = take
        self._left = _N + 1 - take
        return _temper(np.concatenate(parts))

    def random_bits64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit outputs (PyTorch's ``random64()``): each is two
        32-bit draws, the first one being the high half."""
        w = self.random_bits32(2 * operator.index(n)).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def _uniform(self, n: int, dt: DTypeLike) -> np.ndarray:
        """``n`` draws of ``at::uniform_real_distribution<dt>(0, 1)``."""
        if dt == np.float32:
            bits = self.random_bits32(n) & np.uint32((1 << 24) - 1)
            return bits.astype(np.float32) * np.float32(2.0**-24)
        w = self.random_bits32(2 * n)
        hi = (w[0::2] & np.uint32((1 << 21) - 1)).astype(np.float64)
        lo = w[1::2].astype(np.float64)
        return (hi * 2.0**32 + lo) * 2.0**-53  # every step is exact

    # -- distributions -----------------------------------------------------

    def rand(self, shape: Sequence[int] | int, dtype=np.float32) -> np.ndarray:
        """Uniform numbers in [0, 1), as ``torch.rand(*shape, dtype=dtype)``."""
        dims = _check_shape(shape)
        dt = _check_float_dtype(dtype, "rand")
        return self._uniform(_numel(dims), dt).reshape(dims)

    def randn(self, shape: Sequence[int] | int, dtype=np.float32) -> np.ndarray:
        """Standard normal numbers, as ``torch.randn(*shape, dtype=dtype)``."""
        dims = _check_shape(shape)
        dt = _check_float_dtype(dtype, "randn")
        n = _numel(dims)
        if n < 16:
            return self._scalar_normals(n).astype(dt).reshape(dims)
        data = self._uniform(n, dt)
        if dt == np.float32:
            kernel = _normal16_avx2 if FLOAT32_NORMAL_KERNEL == "avx2" else _normal16_scalar_float
        else:
            kernel = _normal16_double
        full = n // 16
        head = data[: full * 16].reshape(full, 16)
        # Chunks keep the many temporaries small and in cache (3x faster).
        for i in range(0, full, _NORMAL_CHUNK):
            head[i : i + _NORMAL_CHUNK] = kernel(head[i : i + _NORMAL_CHUNK])
        if n % 16:
            # PyTorch draws 16 fresh uniforms and recomputes the last 16 values.
            data[n - 16 :] = kernel(self._uniform(16, dt).reshape(1, 16)).ravel()
        return data.reshape(dims)

    def normal(
        self, shape: Sequence[int] | int, mean: float, std: float, dtype=np.float32
    ) -> np.ndarray:
        """Normal numbers of mean ``mean`` and standard deviation ``std``, as
        ``torch.normal(mean, std, shape)`` and ``Tensor.normal_(mean, std)``.

        PyTorch's kernels draw what :meth:`randn` draws and scale it inside the
        same loop, ``n · std + mean``, which the compiler fuses into one
        multiply-add (checked bit for bit against PyTorch 2.13): in float64 for
        fewer than 16 elements, else in the tensor's dtype (the portable float32
        loop, without AVX2, has no fused multiply-add).
        """
        dims = _check_shape(shape)
        dt = _check_float_dtype(dtype, "normal")
        if _numel(dims) < 16:
            return (
                _fma64(self._scalar_normals(_numel(dims)), float(std), float(mean))
                .astype(dt)
                .reshape(dims)
            )
        standard = self.randn(dims, dt)
        if dt == np.float64:
            return _fma64(standard, float(std), float(mean))
        std32, mean32 = np.float32(std), np.float32(mean)
        if FLOAT32_NORMAL_KERNEL == "avx2":
            return _fma32(standard, std32, mean32)
        return standard * std32 + mean32

    def _scalar_normals(self, n: int) -> np.ndarray:
        """``n`` draws of ``at::normal_distribution<double>(0, 1)``, which returns
        ``r cos(theta)`` and caches ``r sin(theta)`` for the next draw."""
        out = [0.0] * n
        i = 0
        if n and self._normal_cache is not None:
            out[0] = self._normal_cache + 0.0  # "* std + mean" turns -0.0 into 0.0
            self._normal_cache = None
            i = 1
        pairs = (n - i + 1) // 2
        if pairs:
            u = self._uniform(2 * pairs, np.float64).tolist()
            log1p, sqrt, cos, sin = math.log1p, math.sqrt, math.cos, math.sin
            for k in range(pairs):
                u1, u2 = u[2 * k], u[2 * k + 1]
                r = sqrt(-2.0 * log1p(-u2))
                theta = _TWO_PI * u1
                out[i] = r * cos(theta) + 0.0
                i += 1
                if i < n:
                    out[i] = r * sin(theta) + 0.0
                    i += 1
                else:
                    self._normal_cache = r * sin(theta)
        return np.array(out, dtype=np.float64)

    def randperm(self, n: int) -> np.ndarray:
        """A random permutation of ``0 … n-1`` as int64, as ``torch.randperm(n)``:
        PyTorch's Fisher-Yates shuffle, which swaps element i with element
        ``i + random() % (n - i)`` for i = 0 … n-2 (one 32-bit draw each)."""
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        if n >= 2**32 // 20:  # pragma: no cover - PyTorch switches to random64 there
            raise NotImplementedError("autogradkit's randperm takes n < 214748364")
        result = np.arange(n, dtype=np.int64)
        if n < 2:
            return result
        draws = self.random_bits32(n - 1).tolist()
        order = result.tolist()  # a Python list: element swaps are cheaper than on arrays
        for i, draw in enumerate(draws):
            j = i + draw % (n - i)
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)

    def randint(self, low: int, high: int, shape: Sequence[int] | int) -> np.ndarray:
        """Integers in ``[low, high)`` as int64, as ``torch.randint(low, high, shape)``."""
        low = operator.index(low)
        high = operator.index(high)
        dims = _check_shape(shape)
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if low < -(1 << 63) or high > (1 << 63) - 1:
            raise ValueError(
                f"randint: low and high must fit in int64, but got low={low}, high={high}"
            )
        n = _numel(dims)
        span = high - low
        # PyTorch's public builds switch to 64-bit draws from a span of 2**28
        # on (to keep the modulo bias small), whatever the dtype.
        if span >= 1 << 28:
            bits = self.random_bits64(n)
        else:
            bits = self.random_bits32(n).astype(np.uint64)
        # uint64 arithmetic that wraps, then a cast, as in uniform_int_from_to.
        vals = (bits % np.uint64(span)) + np.uint64(low & _U64)
        return vals.view(np.int64).reshape(dims)


# ----------------------------------------------------- module-level API -----

#: The generator behind ``manual_seed`` and the tensor factories.  Like
#: PyTorch's, it starts from a non-deterministic seed.
default_generator = Generator(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed: int) -> Generator:
    """Seed the default generator and return it, like ``torch.manual_seed``.

    ``seed`` must be an int in ``[-2**63, 2**64)``; negative seeds wrap to
    unsigned 64-bit values, as in PyTorch.
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The initial seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state() -> np.ndarray:
    """The default generator's state as a uint8 array (``torch.get_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state (``torch.set_rng_state``)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(enabled: bool = True) -> Iterator[None]:
    """Context manager that restores the default generator's state on exit,
    like ``torch.random.fork_rng`` for the CPU."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
