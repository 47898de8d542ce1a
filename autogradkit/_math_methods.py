"""Tensor methods for the elementary functions, softmax & co., products, norms
and selections (``x.sin()``, ``x.cos_()``, ``x.softmax(dim=0)``, ``x.norm()``).

Each method calls the function of the same name in :mod:`autogradkit.ops`; the
``Tensor`` class inherits them from :class:`MathMethods`. The in-place forms
(``x.sin_()``) record the operation as the out-of-place function does and then
replace ``x``'s values and history, as PyTorch does.
"""

from __future__ import annotations

import numpy as np


def _ops():
    # Imported on first call: the ops modules need the Tensor class, which
    # inherits from the class below.
    from .ops import accumulate, elementary, select, softmax

    return elementary, softmax, accumulate, select


class MathMethods:
    """Mixed into :class:`autogradkit.Tensor`."""

    __slots__ = ()

    # -- elementary functions -------------------------------------------------------
    def sin(self):
        return _ops()[0].sin(self)

    def cos(self):
        return _ops()[0].cos(self)

    def tan(self):
        return _ops()[0].tan(self)

    def asin(self):
        return _ops()[0].asin(self)

    def acos(self):
        return _ops()[0].acos(self)

    def atan(self):
        return _ops()[0].atan(self)

    arcsin, arccos, arctan = asin, acos, atan

    def sinh(self):
        return _ops()[0].sinh(self)

    def cosh(self):
        return _ops()[0].cosh(self)

    def log1p(self):
        return _ops()[0].log1p(self)

    def expm1(self):
        return _ops()[0].expm1(self)

    def log2(self):
        return _ops()[0].log2(self)

    def log10(self):
        return _ops()[0].log10(self)

    def exp2(self):
        return _ops()[0].exp2(self)

    def rsqrt(self):
        return _ops()[0].rsqrt(self)

    def square(self):
        return _ops()[0].square(self)

    def sign(self):
        return _ops()[0].sign(self)

    def floor(self):
        return _ops()[0].floor(self)

    def ceil(self):
        return _ops()[0].ceil(self)

    def round(self, *, decimals: int = 0):
        return _ops()[0].round(self, decimals=decimals)

    def trunc(self):
        return _ops()[0].trunc(self)

    def frac(self):
        return _ops()[0].frac(self)

    # -- in place ---------------------------------------------------------------------
    def _unary_inplace(self, name: str, ufunc):
        function = getattr(_ops()[0], name)
        return self._inplace(function, lambda a: ufunc(a, out=a))  # type: ignore[attr-defined]

    def sin_(self):
        return self._unary_inplace("sin", np.sin)

    def cos_(self):
        return self._unary_inplace("cos", np.cos)

    def tan_(self):
        return self._unary_inplace("tan", np.tan)

    def exp_(self):
        from .ops.pointwise import exp

        return self._inplace(exp, lambda a: np.exp(a, out=a))  # type: ignore[attr-defined]

    def log_(self):
        from .ops.pointwise import log

        return self._inplace(log, lambda a: np.log(a, out=a))  # type: ignore[attr-defined]

    def sqrt_(self):
        from .ops.pointwise import sqrt

        return self._inplace(sqrt, lambda a: np.sqrt(a, out=a))  # type: ignore[attr-defined]

    def tanh_(self):
        from .ops.pointwise import tanh

        return self._inplace(tanh, lambda a: np.tanh(a, out=a))  # type: ignore[attr-defined]

    def sigmoid_(self):
        from .ops.pointwise import _sigmoid, sigmoid

        def compute(a):
            a[...] = _sigmoid(a)

        return self._inplace(sigmoid, compute)  # type: ignore[attr-defined]

    def relu_(self):
        from .ops.pointwise import relu

        return self._inplace(relu, lambda a: np.maximum(a, 0, out=a))  # type: ignore[attr-defined]

    def abs_(self):
        from .ops.pointwise import abs

        return self._inplace(abs, lambda a: np.abs(a, out=a))  # type: ignore[attr-defined]

    def neg_(self):
        from .ops.arithmetic import neg

        return self._inplace(neg, lambda a: np.negative(a, out=a))  # type: ignore[attr-defined]

    def pow_(self, exponent):
        from .ops.arithmetic import pow

        def compute(a):
            a[...] = a**exponent

        return self._inplace(lambda x: pow(x, exponent), compute)  # type: ignore[attr-defined]

    def clamp_(self, min=None, max=None):
        from .ops.pointwise import clamp

        def compute(a):
            np.clip(a, min, max, out=a)

        return self._inplace(lambda x: clamp(x, min, max), compute)  # type: ignore[attr-defined]

    clip_ = clamp_

    def floor_(self):
        return self._unary_inplace("floor", np.floor)

    def round_(self):
        return self._unary_inplace("round", np.round)

    # -- softmax, products, norms -------------------------------------------------
    def softmax(self, dim=None, dtype=None):
        return _ops()[1].softmax(self, dim, dtype)

    def log_softmax(self, dim=None, dtype=None):
        return _ops()[1].log_softmax(self, dim, dtype)

    def logsumexp(self, dim, keepdim: bool = False):
        return _ops()[1].logsumexp(self, dim, keepdim)

    def prod(self, dim=None, keepdim: bool = False, *, dtype=None):
        return _ops()[2].prod(self, dim, keepdim, dtype=dtype)

    def cumsum(self, dim, *, dtype=None):
        return _ops()[2].cumsum(self, dim, dtype=dtype)

    def norm(self, p=2, dim=None, keepdim: bool = False, dtype=None):
        return _ops()[2].norm(self, p, dim, keepdim, dtype)

    # -- selections and tests --------------------------------------------------------
    def gather(self, dim: int, index):
        return _ops()[3].gather(self, dim, index)

    def argmin(self, dim=None, keepdim: bool = False):
        return _ops()[3].argmin(self, dim, keepdim)

    def all(self, dim=None, keepdim: bool = False):
        return _ops()[3].all(self, dim, keepdim)

    def any(self, dim=None, keepdim: bool = False):
        return _ops()[3].any(self, dim, keepdim)

    def equal(self, other) -> bool:
        return _ops()[3].equal(self, other)

    def where(self, condition, other):
        return _ops()[3].where(condition, self, other)
