"""Tensor's in-place operations: ``add_``, ``mul_``, ``zero_``, ``copy_``, ``t[i] = v``,
``+=`` and the functions' in-place forms (``x.sin_()``), and the machinery they share.

Without autograd in the way, an in-place operation is NumPy writing into the
tensor's array. When the operation must be recorded, it runs out of place and the
result replaces the tensor's values and history, as PyTorch "rebases" the
tensor's ``grad_fn``. Either way the version counter goes up, so backward can
tell when a saved tensor was modified.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Self

import numpy as np

from . import _dtype, _ranges, autograd, ops
from ._quiet_numpy import silently
from ._tensor_base import TensorBase
from .autograd import grad_mode

if TYPE_CHECKING:
    from .tensor import Tensor

LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
VIEW_OF_LEAF_INPLACE_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


class InplaceMethods(TensorBase):
    """Mixed into :class:`autogradkit.Tensor`."""

    __slots__ = ()

    # -- the machinery -------------------------------------------------------------------
    def _check_inplace(self, other=None) -> None:
        """PyTorch's refusals of an in-place operation that would be recorded."""
        if not grad_mode._state.enabled:
            return
        other_requires = isinstance(other, TensorBase) and other.requires_grad
        if self._view is not None and (self.requires_grad or other_requires):
            autograd.views.check_inplace(self)
        if self._requires_grad and self.grad_fn is None:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)

    def _records_inplace(self, other=None) -> bool:
        """Will an in-place operation on this tensor (with ``other``) be recorded?"""
        if not grad_mode._state.enabled:
            return False
        # other.requires_grad, not other._requires_grad: a view made under no_grad of
        # a tensor that requires grad requires grad too, and PyTorch records with it.
        return self.requires_grad or (isinstance(other, TensorBase) and other.requires_grad)

    def _inplace(self, out_of_place: Callable, numpy_inplace: Callable, other=None) -> Self:
        """Shared logic of ``add_``, ``mul_``, …: plain NumPy when nothing is recorded,
        otherwise the out-of-place operation whose result replaces this tensor's
        values and history (PyTorch 'rebases' the tensor's ``grad_fn`` the same way)."""
        self._check_inplace(other)  # PyTorch's autograd checks come first
        _check_writable(self._data)
        if isinstance(other, TensorBase):  # PyTorch checks overlap before shapes
            if other._view is not None and self._records_inplace(other):
                # PyTorch reads the operand's history first, so a stale view made
                # under no_grad is refused before the kernel looks at memory.
                autograd.views.refresh(other)
            _check_no_partial_overlap(self._data, other._data)
        forward_ad, tangent = autograd.forward_ad, None
        if forward_ad.state.level is not None:  # forward mode: the tangent changes too
            tangent = forward_ad.inplace_tangent(self, out_of_place, other)
        if self._records_inplace(other):
            self._record_inplace(out_of_place, other)
        else:
            other_data = other._data if isinstance(other, TensorBase) else other
            if other is not None:
                _check_inplace_operand(self._data, other_data)
                silently(numpy_inplace, self._data, other_data)  # as PyTorch: no warnings
            else:
                if self._data.dtype.kind != "f":
                    _check_unary_inplace(self, out_of_place)
                silently(numpy_inplace, self._data)  # log2_ of 0: -inf, without a word
        self._version_counter[0] += 1
        if tangent is not None:
            forward_ad.set_tangent(self, tangent)
        return self

    def _record_inplace(self, out_of_place: Callable, other=None) -> None:
        """Run ``out_of_place`` on a copy of this tensor that carries its history, and
        take the result's values and history (a view hands it to its base)."""
        before = self._make(self._data.copy(), grad_fn=self.grad_fn)
        before._output_nr = self._output_nr
        before._requires_grad = self._requires_grad
        result = out_of_place(before, other) if other is not None else out_of_place(before)
        _store_inplace(self, result._data)
        self._rebase_history(result._grad_fn)
        _saved_output_follows(self, result)

    def add_(self, other, *, alpha=1) -> Self:
        """In place: ``self += alpha * other``."""
        if alpha.__class__ is int and alpha == 1:
            return self._inplace(ops.arithmetic.add, _np_add_inplace, other)
        alpha = _checked_alpha("add_", self, other, alpha)
        return self._inplace(
            lambda a, b: ops.arithmetic.add(a, b, alpha=alpha),
            lambda a, b: _np_add_scaled_inplace(a, b, alpha),
            other,
        )

    def sub_(self, other, *, alpha=1) -> Self:
        """In place: ``self -= alpha * other``."""
        other_data = other._data if isinstance(other, TensorBase) else other
        ops.arithmetic.refuse_bool_subtraction(self._data, other_data)
        if alpha.__class__ is int and alpha == 1:
            return self._inplace(ops.arithmetic.sub, _np_sub_inplace, other)
        alpha = _checked_alpha("sub_", self, other, alpha)
        return self._inplace(
            lambda a, b: ops.arithmetic.sub(a, b, alpha=alpha),
            lambda a, b: _np_add_scaled_inplace(a, b, -alpha),
            other,
        )

    def mul_(self, other) -> Self:
        """In place: ``self *= other``."""
        return self._inplace(ops.arithmetic.mul, _np_mul_inplace, other)

    def div_(self, other, **rounding_mode) -> Self:
        """In place: ``self /= other`` (or rounded, with ``rounding_mode=``)."""
        if rounding_mode.get("rounding_mode") is not None:  # keeps integer dtypes
            return self._binary_inplace(ops.arithmetic.div, other, **rounding_mode)
        if self._data.dtype.kind != "f":  # true division gives floats: refused
            from .ops._promotion import result_dtype

            other_data = other._data if isinstance(other, TensorBase) else other
            result = result_dtype(self._data, other_data)
            _check_inplace_operand(
                self._data,
                other_data,
                result if result.kind == "f" else _dtype.default_float().numpy,
            )
        if rounding_mode:  # rounding_mode=None given: DivBackward2, as PyTorch
            return self._binary_inplace(ops.arithmetic.div, other, **rounding_mode)
        return self._inplace(ops.arithmetic.div, _np_div_inplace, other)

    def fmod_(self, other) -> Self:
        """In place: ``self = fmod(self, other)``."""
        return self._binary_inplace(ops.arithmetic.fmod, other)

    def floor_divide_(self, other) -> Self:
        """In place: ``self //= other``."""
        return self._binary_inplace(ops.arithmetic.floor_divide, other)

    def remainder_(self, other) -> Self:
        """In place: ``self %= other``."""
        return self._binary_inplace(ops.arithmetic.remainder, other)

    def _binary_inplace(self, operation: Callable, other, **options) -> Self:
        """In place, for an operation whose arithmetic lives in its Function
        (``operation(tensor, other, **options)``): its result is written back."""

        def out_of_place(x, y):
            return operation(x, y, **options)

        def compute(a, b):
            # (_inplace hands over the operand's array: a tensor again for operation)
            operand = self._make(b) if isinstance(b, np.ndarray) else b
            a[...] = out_of_place(self._make(a), operand)._data

        return self._inplace(out_of_place, compute, other)

    def _compare_inplace(self, name: str, other) -> Self:
        """``x.gt_(other)`` and its kin: 1 where the comparison holds, else 0, in this
        tensor's dtype (never a dtype error: the result is 0s and 1s)."""
        ops.comparison.check_method_operand(name + "_", other)
        values = other._data if isinstance(other, TensorBase) else other
        _check_inplace_operand(self._data, values, result=self._data.dtype)
        ufunc = ops.comparison.UFUNCS[name]

        def out_of_place(x, y=other):
            return ops.comparison.recorded_inplace(name, x, y)

        def compute(a, b=None):
            a[...] = ufunc(a, values)

        # other is handed on only when it requires grad: then it is recorded too.
        recorded = isinstance(other, TensorBase) and other.requires_grad
        return self._inplace(out_of_place, compute, other if recorded else None)

    def eq_(self, other) -> Self:
        """In place: 1 where ``self == other``, else 0."""
        return self._compare_inplace("eq", other)

    def ne_(self, other) -> Self:
        """In place: 1 where ``self != other``, else 0."""
        return self._compare_inplace("ne", other)

    def lt_(self, other) -> Self:
        """In place: 1 where ``self < other``, else 0."""
        return self._compare_inplace("lt", other)

    def le_(self, other) -> Self:
        """In place: 1 where ``self <= other``, else 0."""
        return self._compare_inplace("le", other)

    def gt_(self, other) -> Self:
        """In place: 1 where ``self > other``, else 0.

        >>> import autogradkit as torch
        >>> torch.tensor([1.0, 3.0]).gt_(2)
        tensor([0., 1.])
        """
        return self._compare_inplace("gt", other)

    def ge_(self, other) -> Self:
        """In place: 1 where ``self >= other``, else 0."""
        return self._compare_inplace("ge", other)

    def zero_(self) -> Self:
        """In place: set every element to 0 (``w.grad.zero_()`` between steps)."""
        return self._inplace(ops.arithmetic.zeros_like_op, _np_zero_inplace)

    def fill_(self, value) -> Self:
        """In place: set every element to ``value``."""
        if isinstance(value, TensorBase) and value._data.ndim != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        self._check_inplace(value)  # PyTorch's autograd checks come first
        _check_writable(self._data)
        if self._records_inplace(value):
            self._record_inplace(ops.shape.fill, value)
        else:
            self._data[...] = value._data if isinstance(value, TensorBase) else value
        self._version_counter[0] += 1
        _write_tangent(self, ..., value)
        return self

    def copy_(self, source: Tensor) -> Self:
        """In place: copy ``source``'s values into this tensor (broadcast to its
        shape, converted to its dtype)."""
        self._check_inplace(source)  # autograd's refusals first, as in PyTorch
        _check_writable(self._data)
        values = source._data if isinstance(source, TensorBase) else np.asarray(source)
        if isinstance(source, TensorBase):
            _check_no_partial_overlap(self._data, values)
        try:
            np.broadcast_shapes(values.shape, self._data.shape)
        except ValueError:
            raise ops.arithmetic.broadcast_error(self._data, values) from None
        if np.broadcast_shapes(values.shape, self._data.shape) != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(values.shape, self._data.shape))}"
            )
        if self._records_inplace(source):
            if not isinstance(source, TensorBase):
                source = self._make(values)
            self._record_inplace(ops.shape.copy_from, source)
        else:
            self._data[...] = values
        self._version_counter[0] += 1
        _write_tangent(self, ..., source)
        return self

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __ifloordiv__(self, other):
        return self._binary_inplace(ops.arithmetic.floor_divide, other)

    def __ipow__(self, other):
        return self.pow_(other)

    def __imod__(self, other):
        return self.remainder_(other)

    def __setitem__(self, key, value) -> None:
        key = ops.shape.normalize_key(key)
        if not ops.shape.is_basic(key):
            value = _strip_leading_ones(value)
            # As PyTorch does: index_put_ into the view that the integers and slices make.
            target, advanced = ops.shape.split_for_put(self, key)
            if advanced is None:  # only 0-d integer tensors: x[i] = v
                target.copy_(value)
            else:
                target._index_put(advanced, _as_values(target, value), False)
            return
        if self._records_inplace(value):
            # As PyTorch does: copy_ (or fill_) into the view self[key], recorded as
            # CopySlices; into self itself when key selects everything.
            _copy_to(ops.shape.assigned_view(self, key), value)
            return
        if grad_mode._state.enabled:
            if self.grad_fn is None and self._requires_grad:
                # x[i] = v writes through the view x[i] of the leaf x.
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
            self._check_inplace(value)
        _check_writable(self._data)
        values = _without_leading_ones(value._data) if isinstance(value, TensorBase) else value
        try:
            if isinstance(value, TensorBase):
                _check_assignment_overlap(self._data[key], values)
            self._data[key] = values
        except IndexError:
            ops.shape.getitem(self, key)  # raises PyTorch's words for the bad index
            raise
        except ValueError:
            raise _expand_error(self, self._data[key].shape, np.asarray(values)) from None
        self._version_counter[0] += 1
        _write_tangent(self, key, value)

    def index_put_(self, indices, values, accumulate: bool = False) -> Self:
        """In place: ``self[indices] = values`` (``accumulate=True``: ``+=``, where a
        repeated index adds every value). ``indices`` is a tuple of integer or bool
        tensors, one per leading dimension."""
        key = ops.shape.index_tensors(self, indices, values, "index_put_")
        return self._index_put(key, values, accumulate)

    def _index_put(self, key: tuple, values: Tensor, accumulate: bool) -> Self:
        """``index_put_`` with an advanced index in NumPy's form (index arrays, ``:``
        for the dimensions not indexed): recorded as ``IndexPutBackward0`` (as
        ``CopySlices`` for a view) when it must be, otherwise NumPy writing."""
        self._check_inplace(values)  # PyTorch's autograd checks come first
        _check_writable(self._data)
        # index_put_ refuses any overlap it sees, and a tensor written into itself
        # even when it is empty (NumPy sees no shared memory there; PyTorch sees the
        # same tensor).
        if (values is self or np.may_share_memory(self._data, values._data)) and memory_overlap(
            self._data, values._data
        ) in ("full", "partial"):
            raise RuntimeError(OVERLAP_MESSAGE)
        ops.shape.check_put_values(self._data, key, values._data)

        def out_of_place(before, values):
            return ops.shape.put(before, key, values, accumulate)

        forward_ad, tangent = autograd.forward_ad, None
        if forward_ad.state.level is not None:  # forward mode: the tangent changes too
            tangent = forward_ad.inplace_tangent(self, out_of_place, values)
        if self._records_inplace(values):
            self._record_inplace(out_of_place, values)
        else:
            ops.shape.put_values(self._data, key, values._data, accumulate)
        self._version_counter[0] += 1
        if tangent is not None:
            forward_ad.set_tangent(self, tangent)
        return self

    # -- functions in place (x.sin_(), x.exp_(), ...) -------------------------------------
    def _unary_inplace(self, name: str, ufunc):
        function = getattr(ops.elementary, name)
        return self._inplace(function, lambda a: ufunc(a, out=a))

    def asin_(self):
        return self._unary_inplace("asin", np.arcsin)

    def acos_(self):
        return self._unary_inplace("acos", np.arccos)

    def atan_(self):
        return self._unary_inplace("atan", np.arctan)

    def sinh_(self):
        return self._unary_inplace("sinh", np.sinh)

    def cosh_(self):
        return self._unary_inplace("cosh", np.cosh)

    def log2_(self):
        return self._unary_inplace("log2", np.log2)

    def log10_(self):
        return self._unary_inplace("log10", np.log10)

    def log1p_(self):
        return self._unary_inplace("log1p", np.log1p)

    def expm1_(self):
        return self._unary_inplace("expm1", np.expm1)

    def square_(self):
        return self._written_inplace(ops.elementary.square)

    def rsqrt_(self):
        return self._written_inplace(ops.elementary.rsqrt)

    def reciprocal_(self):
        return self._written_inplace(ops.arithmetic.reciprocal)

    def trunc_(self):
        return self._written_inplace(ops.elementary.trunc)

    def ceil_(self):
        return self._written_inplace(ops.elementary.ceil)

    def sign_(self):
        return self._written_inplace(ops.elementary.sign)

    def frac_(self):
        return self._written_inplace(ops.elementary.frac)

    def nan_to_num_(self, nan: float = 0.0, posinf=None, neginf=None):
        """In place: nan, +inf and −inf replaced (see :func:`~autogradkit.nan_to_num`)."""
        return self._written_inplace(lambda x: ops.elementary.nan_to_num(x, nan, posinf, neginf))

    def cumsum_(self, dim: int):
        """In place: the running sum along ``dim``."""
        return self._written_inplace(lambda x: ops.accumulate.cumsum(x, dim))

    def sin_(self):
        return self._unary_inplace("sin", np.sin)

    def cos_(self):
        return self._unary_inplace("cos", np.cos)

    def tan_(self):
        return self._unary_inplace("tan", np.tan)

    def exp_(self):
        return self._inplace(ops.pointwise.exp, lambda a: np.exp(a, out=a))

    def log_(self):
        return self._inplace(ops.pointwise.log, lambda a: np.log(a, out=a))

    def sqrt_(self):
        return self._inplace(ops.pointwise.sqrt, lambda a: np.sqrt(a, out=a))

    def tanh_(self):
        return self._inplace(ops.pointwise.tanh, lambda a: np.tanh(a, out=a))

    def sigmoid_(self):
        def compute(a):
            a[...] = ops.pointwise._sigmoid(a)

        return self._inplace(ops.pointwise.sigmoid, compute)

    def relu_(self):
        return self._inplace(ops.pointwise.relu, lambda a: np.maximum(a, 0, out=a))

    def abs_(self):
        ops.pointwise.refuse_bool_abs(self)
        return self._inplace(ops.pointwise.abs, lambda a: np.abs(a, out=a))

    absolute_ = abs_

    def neg_(self):
        return self._inplace(ops.arithmetic.neg, lambda a: np.negative(a, out=a))

    def pow_(self, exponent):
        """In place: ``self = self ** exponent`` (a number or a tensor)."""
        return self._binary_inplace(ops.arithmetic.pow, exponent)

    def clamp_(self, min=None, max=None):
        """In place: every element limited to ``[min, max]`` (numbers or tensors), as
        :func:`~autogradkit.clamp` computes it; the result must fit this tensor."""
        return self._clamp_inplace(
            functools.partial(ops.pointwise.clamp, min=min, max=max), min, max
        )

    clip_ = clamp_

    def clamp_min_(self, min):
        """In place: ``self = max(self, min)``, as :func:`~autogradkit.clamp_min`."""
        ops.pointwise.check_clamp_bound("clamp_min_", "min", min, method=True)
        return self._clamp_inplace(functools.partial(ops.pointwise.clamp_min, min=min), min)

    def clamp_max_(self, max):
        """In place: ``self = min(self, max)``, as :func:`~autogradkit.clamp_max`."""
        ops.pointwise.check_clamp_bound("clamp_max_", "max", max, method=True)
        return self._clamp_inplace(functools.partial(ops.pointwise.clamp_max, max=max), max)

    def _clamp_inplace(self, out_of_place: Callable, *bounds):
        """A clamp written into this tensor: ``out_of_place(x)`` computes it; the
        result must fit this tensor's dtype."""
        with grad_mode.no_grad():
            values = out_of_place(self._make(self._data))._data
        given = [b for b in bounds if b is not None]
        _check_clamp_result(self._data, values, all(isinstance(b, TensorBase) for b in given))
        # A bound that requires grad has the operation recorded, as an operand would.
        bound = next((b for b in bounds if isinstance(b, TensorBase) and b.requires_grad), None)

        def compute(a, _bound=None):
            a[...] = values

        return self._inplace(lambda x, _bound=None: out_of_place(x), compute, bound)

    def floor_(self):
        return self._unary_inplace("floor", np.floor)

    def masked_fill_(self, mask, value) -> Self:
        """In place: ``value`` written where ``mask`` holds, as
        :func:`~autogradkit.masked_fill` computes it; the mask must broadcast to this
        tensor's shape (not beyond it)."""
        return self._written_inplace(
            functools.partial(ops.select.masked_fill, mask=mask, value=value), value
        )

    def scatter_(self, dim: int, index, src=None, *, value=None) -> Self:
        """In place: the elements of ``src`` (or the number ``value``) written along
        ``dim`` at the positions ``index`` holds, as :func:`~autogradkit.scatter`."""
        operand = src if src is not None else value
        return self._written_inplace(
            lambda x: ops.select.scatter(x, dim, index, src, value=value), operand
        )

    def scatter_add_(self, dim: int, index, src) -> Self:
        """In place: the elements of ``src`` added along ``dim`` at the positions
        ``index`` holds, as :func:`~autogradkit.scatter_add`."""
        if not isinstance(src, TensorBase):  # (PyTorch names the in-place form)
            raise TypeError(
                "scatter_add_(): argument 'src' (position 3) must be Tensor, "
                f"not {type(src).__name__}"
            )
        return self._written_inplace(lambda x: ops.select.scatter_add(x, dim, index, src), src)

    def index_add_(self, dim: int, index, source, *, alpha=1) -> Self:
        """In place: ``alpha * source``'s slices added at the slices ``index`` along
        ``dim``, as :func:`~autogradkit.index_add`."""
        return self._written_inplace(
            lambda x: ops.indexing.index_add(x, dim, index, source, alpha=alpha), source
        )

    def index_copy_(self, dim: int, index, source) -> Self:
        """In place: the slices ``index`` along ``dim`` replaced by ``source``'s, as
        :func:`~autogradkit.index_copy`."""
        return self._written_inplace(
            lambda x: ops.indexing.index_copy(x, dim, index, source), source
        )

    def bernoulli_(self, p=0.5, *, generator=None) -> Self:
        """In place: 1 with probability ``p`` (a number, or a tensor broadcast to
        this one's shape), else 0, the numbers PyTorch's generator gives (see
        :func:`~autogradkit.bernoulli`); recorded with a zero gradient."""
        self._check_inplace()
        data = self._data
        if isinstance(p, TensorBase):
            from .ops.shape import expanded_shape

            expanded_shape(p._data, data.shape)  # PyTorch's refusal of a p that does not fit
            sample = ops.drawing.draw_bernoulli(generator, p._data, data.shape, data.dtype)
            return self._written_inplace(
                lambda x: ops.drawing.BernoulliInplaceTensor.apply(x, p, sample), p
            )
        ops.drawing._check_number_p(p)
        sample = ops.drawing.draw_bernoulli_number(generator, float(p), data.shape, data.dtype)
        return self._written_inplace(lambda x: ops.drawing.BernoulliInplace.apply(x, sample))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Self:
        """In place: samples of N(mean, std²), the numbers PyTorch's generator gives
        (see :func:`~autogradkit.normal`); recorded with a zero gradient."""
        from . import random

        self._check_inplace()  # PyTorch refuses a leaf before it looks at std
        ops.sampling.check_float(self._data)
        ops.sampling.check_std(std)
        gen = generator or random.default_generator
        sample = gen.normal(self._data.shape, float(mean), float(std), self._data.dtype)
        return self._written_inplace(lambda x: ops.sampling.NormalInplace.apply(x, sample))

    def erf_(self) -> Self:
        """In place: ``self = erf(self)``."""
        return self._written_inplace(ops.special.erf)

    def erfinv_(self) -> Self:
        """In place: ``self = erfinv(self)``."""
        return self._written_inplace(ops.special.erfinv)

    def asinh_(self) -> Self:
        """In place: ``self = asinh(self)``."""
        return self._written_inplace(ops.elementary_more.AsinhInPlace.apply)

    def acosh_(self) -> Self:
        """In place: ``self = acosh(self)``."""
        return self._written_inplace(ops.elementary_more.AcoshInPlace.apply)

    def atanh_(self) -> Self:
        """In place: ``self = atanh(self)``."""
        return self._written_inplace(ops.elementary_more.AtanhInPlace.apply)

    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_

    def erfc_(self) -> Self:
        """In place: ``self = erfc(self)``."""
        return self._written_inplace(ops.elementary_more.erfc)

    def logit_(self, eps=None) -> Self:
        """In place: ``self = logit(self, eps)``."""
        return self._written_inplace(lambda x: ops.elementary_more.logit(x, eps))

    def sinc_(self) -> Self:
        """In place: ``self = sinc(self)``."""
        return self._written_inplace(ops.elementary_more.sinc)

    def deg2rad_(self) -> Self:
        """In place: degrees to radians."""
        return self._written_inplace(ops.elementary_more.deg2rad)

    def rad2deg_(self) -> Self:
        """In place: radians to degrees."""
        return self._written_inplace(ops.elementary_more.rad2deg)

    def sgn_(self) -> Self:
        """In place: ``self = sgn(self)``."""
        return self._written_inplace(ops.elementary_more.sgn)

    def fix_(self) -> Self:
        """In place: rounded towards zero (``trunc``)."""
        return self._written_inplace(ops.elementary.trunc)

    def copysign_(self, other) -> Self:
        """In place: ``self = copysign(self, other)``."""
        return self._written_inplace(lambda x: ops.binary_more.copysign(x, other), other)

    def heaviside_(self, values) -> Self:
        """In place: ``self = heaviside(self, values)``."""
        return self._written_inplace(lambda x: ops.binary_more.heaviside(x, values), values)

    def float_power_(self, exponent) -> Self:
        """In place: ``self = float_power(self, exponent)``; ``self`` must be float64,
        the dtype of the result, as PyTorch requires."""
        if self._data.dtype != np.float64:
            raise RuntimeError(
                "the base given to float_power_ has dtype "
                f"{_dtype.scalar_type_name(self._data.dtype)} but the operation's result "
                "requires dtype Double"
            )
        return self._written_inplace(lambda x: ops.binary_more.float_power(x, exponent), exponent)

    def lgamma_(self) -> Self:
        """In place: ``self = lgamma(self)``."""
        return self._written_inplace(ops.gamma.lgamma)

    def digamma_(self) -> Self:
        """In place: ``self = digamma(self)``."""
        return self._written_inplace(ops.gamma.digamma)

    def polygamma_(self, n) -> Self:
        """In place: ``self = polygamma(n, self)``."""
        return self._written_inplace(lambda x: ops.gamma.polygamma(n, x))

    def atan2_(self, other) -> Self:
        """In place: ``self = atan2(self, other)``."""
        return self._written_inplace(lambda x: ops.special.atan2(x, other), other)

    arctan2_ = atan2_

    def hypot_(self, other) -> Self:
        """In place: ``self = hypot(self, other)``."""
        return self._written_inplace(lambda x: ops.special.hypot(x, other), other)

    def xlogy_(self, other) -> Self:
        """In place: ``self = xlogy(self, other)``."""
        return self._written_inplace(lambda x: ops.special.xlogy(x, other), other)

    def lerp_(self, end, weight) -> Self:
        """In place: ``self += weight · (end − self)`` (PyTorch's Adam keeps its running
        average of gradients with ``exp_avg.lerp_(grad, 1 - beta1)``)."""
        operand = end if isinstance(end, TensorBase) and end.requires_grad else weight
        return self._written_inplace(lambda x: ops.special.lerp(x, end, weight), operand)

    def addcmul_(self, tensor1, tensor2, *, value=1) -> Self:
        """In place: ``self += value · tensor1 · tensor2`` (optimisers' running averages
        of squared gradients: ``v.mul_(beta2).addcmul_(g, g, value=1 - beta2)``)."""
        operand = tensor1 if isinstance(tensor1, TensorBase) and tensor1.requires_grad else tensor2
        return self._written_inplace(
            lambda x: ops.special.addcmul(x, tensor1, tensor2, value=value), operand
        )

    def addcdiv_(self, tensor1, tensor2, *, value=1) -> Self:
        """In place: ``self += value · tensor1 / tensor2`` (Adam's step written out:
        ``p.addcdiv_(exp_avg, exp_avg_sq.sqrt().add_(eps), value=-lr)``)."""
        operand = tensor1 if isinstance(tensor1, TensorBase) and tensor1.requires_grad else tensor2
        return self._written_inplace(
            lambda x: ops.special.addcdiv(x, tensor1, tensor2, value=value), operand
        )

    def cumprod_(self, dim, *, dtype=None) -> Self:
        """In place: running products along ``dim``."""
        return self._written_inplace(lambda x: ops.accumulate.cumprod(x, dim, dtype=dtype))

    def tril_(self, diagonal: int = 0) -> Self:
        """In place: zeros above diagonal ``diagonal``, as :func:`~autogradkit.tril`."""
        return self._written_inplace(functools.partial(ops.rearrange.tril, diagonal=diagonal))

    def triu_(self, diagonal: int = 0) -> Self:
        """In place: zeros below diagonal ``diagonal``, as :func:`~autogradkit.triu`."""
        return self._written_inplace(functools.partial(ops.rearrange.triu, diagonal=diagonal))

    # PyTorch records no node for the logical connectives in place: the tensor's
    # values change and its grad_fn stays what it was (even on a leaf that requires
    # grad), so autogradkit does the same.
    def logical_and_(self, other) -> Self:
        """In place: 1 where this tensor and ``other`` are both nonzero, else 0."""
        return self._logical_inplace("logical_and_", ops.predicates.logical_and, other)

    def logical_or_(self, other) -> Self:
        """In place: 1 where this tensor or ``other`` is nonzero, else 0."""
        return self._logical_inplace("logical_or_", ops.predicates.logical_or, other)

    def logical_xor_(self, other) -> Self:
        """In place: 1 where exactly one of this tensor and ``other`` is nonzero."""
        return self._logical_inplace("logical_xor_", ops.predicates.logical_xor, other)

    def logical_not_(self) -> Self:
        """In place: 1 where this tensor is zero, else 0."""
        return self._logical_inplace("logical_not_", ops.predicates.logical_not)

    def _logical_inplace(self, name: str, connective: Callable, *other) -> Self:
        if other and not isinstance(other[0], TensorBase):
            raise TypeError(
                f"{name}(): argument 'other' (position 1) must be Tensor, "
                f"not {type(other[0]).__name__}"
            )
        truth = connective(self._make(self._data), *other)._data
        if truth.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                f"shape {list(truth.shape)}"
            )
        self._data[...] = truth
        self._version_counter[0] += 1
        return self

    def _written_inplace(self, out_of_place: Callable, operand=None) -> Self:
        """An operation computed out of place and written into this tensor, whose
        result must keep this tensor's shape; recorded when this tensor or the
        ``operand`` (a tensor) requires grad."""
        with grad_mode.no_grad():
            values = out_of_place(self._make(self._data))._data
        if values.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                f"shape {list(values.shape)}"
            )
        if not np.can_cast(values.dtype, self._data.dtype, casting="same_kind"):
            # (an integer tensor cannot hold erf's or asinh's floats: PyTorch refuses)
            raise RuntimeError(
                f"result type {_dtype.scalar_type_name(values.dtype)} can't be cast to the "
                f"desired output type {_dtype.scalar_type_name(self._data.dtype)}"
            )
        operand = operand if isinstance(operand, TensorBase) and operand.requires_grad else None

        def compute(a, _operand=None):
            a[...] = values

        return self._inplace(lambda x, _operand=None: out_of_place(x), compute, operand)

    # PyTorch's longer names for the in-place arithmetic.
    multiply_, subtract_, divide_, true_divide_, negative_ = mul_, sub_, div_, div_, neg_

    def round_(self):
        return self._unary_inplace("round", np.round)


def _strip_leading_ones(value):
    """``x[i] = v`` first views a tensor ``v`` without its leading dimensions of size
    1, as PyTorch does (recorded as ``ViewBackward0``); they broadcast away anyway."""
    if not isinstance(value, TensorBase):
        return value
    shape = value._data.shape
    ones = 0
    while ones < len(shape) and shape[ones] == 1:
        ones += 1
    return value if ones == 0 else ops.shape.view(value, shape[ones:])


def _copy_to(target, value) -> None:
    """``target = value`` as PyTorch's assignment does it (its ``copy_to``):
    ``copy_`` of a value of the same shape, ``fill_`` with a 0-d one (a number is
    one), else ``copy_`` of the value viewed without its leading 1s and expanded
    (so a value that does not fit gets expand's error, before any other)."""
    if not isinstance(value, TensorBase):
        value = target._make(np.asarray(value, dtype=target._data.dtype))
    if value._data.shape == target._data.shape:
        target.copy_(value)
    elif value._data.ndim == 0:
        target.fill_(value)
    else:
        shape = value._data.shape
        ones = 0
        while ones < len(shape) and shape[ones] == 1:
            ones += 1
        viewed = ops.shape.view(value, shape[ones:])
        if viewed._data.shape != target._data.shape:
            viewed = ops.shape.expand(viewed, *target._data.shape)
        target.copy_(viewed)


def _as_values(target, value):
    """The value of ``x[index] = value`` as a tensor for ``index_put_``: a number
    takes the tensor's dtype (a tensor must have it already, as in PyTorch)."""
    if isinstance(value, TensorBase):
        return value
    return target._make(np.asarray(value, dtype=target._data.dtype))


def _write_tangent(tensor, key, source) -> None:
    """Forward mode: after ``tensor[key] = source``, the written elements take
    ``source``'s tangent (only while a dual level is active)."""
    if autograd.forward_ad.state.level is not None:
        autograd.forward_ad.write_tangent(tensor, key, source)


def _check_writable(data: np.ndarray) -> None:
    """An expanded tensor repeats one element in many places: writing into it is
    refused, as in PyTorch (NumPy says "read-only")."""
    if not data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the operation."
        )


def _check_no_partial_overlap(data: np.ndarray, other: np.ndarray) -> None:
    """Reading from some of the elements being written (``x.add_(x[0])``, a view of
    x) is refused, as in PyTorch; the very same elements (``x.add_(x)``) are fine."""
    if type(other) is not np.ndarray or other is data or not np.may_share_memory(data, other):
        return
    if memory_overlap(data, other) == "partial":
        raise RuntimeError(OVERLAP_MESSAGE)


def _check_assignment_overlap(target: np.ndarray, values: np.ndarray) -> None:
    """``x[key] = v`` is PyTorch's ``copy_`` of ``v`` expanded to ``x[key]``'s shape,
    so it refuses what ``copy_`` refuses: ``d[...] = d.t()`` reads elements it
    writes. (A value that does not fit is left to the assignment's own error.)"""
    try:
        expanded = np.broadcast_to(values, target.shape)
    except ValueError:
        return
    _check_no_partial_overlap(target, expanded)


def memory_overlap(a: np.ndarray, b: np.ndarray) -> str:
    """How two arrays share memory, as PyTorch's ``get_overlap_status`` tells it:
    ``"full"`` (the very same elements, in the same order), ``"partial"``, ``"no"``,
    or ``"too hard"`` when either is not dense (a column, a strided slice), where
    PyTorch looks no further and lets the operation run, so we do too.

    >>> x = np.zeros((2, 3))
    >>> memory_overlap(x[0, 1:], x[0, :2]), memory_overlap(x[0], x[1]), memory_overlap(x[:, 0], x[:, 1])
    ('partial', 'no', 'too hard')
    """
    if a is b:
        return "full"
    if a.size == 0 or b.size == 0:
        return "no"
    if not (_dense(a) and _dense(b)):
        return "too hard"
    a_begin, b_begin = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if a_begin == b_begin and a_end == b_end:
        return "full" if _torch_strides(a) == _torch_strides(b) else "partial"
    if a_begin < b_end and b_begin < a_end:
        return "partial"
    return "no"


def _torch_strides(a: np.ndarray) -> tuple:
    """``a``'s strides as PyTorch's views and ``expand`` set them: a dimension of
    size 1 strides over the dimensions after it (the next size times the next
    stride), where NumPy's ``broadcast_to`` gives a new leading dimension stride 0.
    So ``d[...] = a`` with ``d = a.unsqueeze(0).detach()`` copies ``a`` expanded onto
    the very same elements, which PyTorch allows."""
    strides = list(a.strides)
    for i in reversed(range(a.ndim)):
        if a.shape[i] == 1:
            strides[i] = a.shape[i + 1] * strides[i + 1] if i + 1 < a.ndim else a.itemsize
    return tuple(strides)


def _dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill one block of memory
    without gaps or repeats, with the dimensions taken in some order."""
    expected = a.itemsize
    for stride, size in sorted(
        (stride, size) for stride, size in zip(a.strides, a.shape) if size != 1
    ):
        if stride != expected:
            return False
        expected *= size
    return True


def _without_leading_ones(values: np.ndarray) -> np.ndarray:
    """``values`` without leading dimensions of size 1 (PyTorch's assignment drops
    them: a ``[1]`` value fits a single element)."""
    shape = values.shape
    while shape and shape[0] == 1:
        shape = shape[1:]
    return values if shape == values.shape else values.reshape(shape)


def _expand_error(tensor, target: tuple, values: np.ndarray) -> RuntimeError:
    """PyTorch's message for ``x[key] = value`` when value's shape does not fit:
    expand's, as its assignment expands the value (without leading 1s) to fit."""
    shape = _without_leading_ones(values).shape
    try:
        ops.shape.expand(tensor._make(np.zeros(shape, values.dtype)), *target)
    except RuntimeError as error:
        return error
    return RuntimeError(  # pragma: no cover - NumPy and expand agree on what fits
        f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
        f"indexing result of shape {list(target)}"
    )


def _check_inplace_operand(data: np.ndarray, other, result: np.dtype | None = None) -> None:
    """PyTorch's errors for ``a.add_(b)`` when the result would not fit in ``a``: its
    shape first, then its dtype (``result``: the operation's, when it is not the
    operands' promoted dtype)."""
    from .ops._promotion import result_dtype

    other_shape = np.shape(other)
    try:
        shape = np.broadcast_shapes(data.shape, other_shape)
    except ValueError:
        raise ops.arithmetic.broadcast_error(data, other) from None
    if shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    result = result_dtype(data, other) if result is None else result
    if not np.can_cast(result, data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(result)} can't be cast to the desired "
            f"output type {_dtype.scalar_type_name(data.dtype)}"
        )


def _saved_output_follows(tensor: TensorBase, result: TensorBase) -> None:
    """``exp_``, ``sigmoid_``, ``tanh_``… are recorded out of place, and their node
    saves the result, which ``tensor`` now holds. As PyTorch's node saves the tensor
    itself, the node checks ``tensor``'s version counter, at the version this
    in-place operation gives it: a later in-place change of ``tensor`` is refused in
    backward. (The result's own counter let it through: a wrong gradient.)"""
    node = result._grad_fn
    if node is None:
        return
    sources = node._saved_sources
    if not isinstance(sources, tuple) or not any(s[2] == "output" for s in sources):
        return
    counter = tensor._version_counter
    after = counter[0] + 1  # the caller bumps the counter once the values are stored
    node._saved_sources = tuple(
        (counter, after, "output", None) if s[2] == "output" else s for s in sources
    )


def _store_inplace(t: TensorBase, values: np.ndarray) -> None:
    if values.dtype != t._data.dtype and not np.can_cast(
        values.dtype, t._data.dtype, casting="same_kind"
    ):
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(values.dtype)} can't be cast to the desired "
            f"output type {_dtype.scalar_type_name(t._data.dtype)}"
        )
    if values.shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {list(t._data.shape)} doesn't match the broadcast shape {list(values.shape)}"
        )
    t._data[...] = values


def _checked_alpha(name: str, tensor: TensorBase, other, alpha):
    """``alpha`` of ``add_``/``sub_`` checked in PyTorch's order: its type, then
    whether the result fits ``tensor``, then alpha against the result's dtype."""
    alpha = ops.arithmetic.alpha_number(name, alpha)
    if isinstance(other, (TensorBase, int, float)):
        _check_inplace_operand(
            tensor._data, other._data if isinstance(other, TensorBase) else other
        )
    return ops.arithmetic.check_alpha(name, alpha, tensor, other)


def _check_unary_inplace(tensor: TensorBase, out_of_place: Callable) -> None:
    """``exp_``, ``neg_``, ``floor_``… of an integer or bool tensor: the out-of-place
    operation raises PyTorch's refusals (negation and floor of bools…), and a float
    result (``exp_`` of int64) cannot be written back, in PyTorch's words (NumPy's
    own would be a UFuncTypeError about casting rules)."""
    result = out_of_place(tensor._make(tensor._data))._data
    if not np.can_cast(result.dtype, tensor._data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(result.dtype)} can't be cast to the desired "
            f"output type {_dtype.scalar_type_name(tensor._data.dtype)}"
        )


def _check_clamp_result(data: np.ndarray, values: np.ndarray, tensor_bounds: bool) -> None:
    """PyTorch's errors for ``x.clamp_(...)`` whose result does not fit ``x`` (its
    kernels name the dtype as C does, "long int", when a bound is a number, and as
    PyTorch does, "Long", when every bound given is a tensor)."""
    if values.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape "
            f"{list(values.shape)}"
        )
    if not np.can_cast(values.dtype, data.dtype, casting="same_kind"):
        name = _dtype.scalar_type_name if tensor_bounds else _dtype.c_type_name
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(values.dtype)} can't be cast to the desired "
            f"output type {name(data.dtype)}"
        )


def _np_add_inplace(a, b):
    np.add(a, b, out=a, casting="same_kind")


def _np_add_scaled_inplace(a, b, alpha) -> None:
    """a += alpha·b with one rounding, as PyTorch's CPU kernel computes it (a fused
    multiply-add, alpha first rounded to a's dtype): what optimizer steps such as
    ``p.add_(grad, alpha=-lr)`` print depends on it."""
    if a.dtype.kind != "f":
        _np_add_inplace(a, np.multiply(b, alpha))
        return
    alpha = a.dtype.type(alpha)
    if a.dtype == np.float32:
        # The product of two float32 numbers is exact in float64.
        exact = np.asarray(a, np.float64) + np.float64(alpha) * np.asarray(b, np.float64)
        a[...] = exact
    else:
        a[...] = _ranges.fused_multiply_add(alpha, b, a)


def _np_sub_inplace(a, b):
    np.subtract(a, b, out=a, casting="same_kind")


def _np_mul_inplace(a, b):
    np.multiply(a, b, out=a, casting="same_kind")


def _np_div_inplace(a, b):
    np.true_divide(a, b, out=a, casting="same_kind")


def _np_zero_inplace(a):
    a[...] = 0
