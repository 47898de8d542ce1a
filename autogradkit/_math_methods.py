"""Tensor methods that are operations: ``x.add(y)``, ``x.exp()``, ``x.sum()``,
``x.matmul(w)``, ``x.reshape(2, 3)``, ``x.sin()``, ``x.softmax(dim=0)``, ...

Each method calls the function of the same name in :mod:`autogradkit.ops`, found
there when the method runs (see :mod:`autogradkit._operators` for why); the
``Tensor`` class inherits them from :class:`MathMethods`. Their in-place forms
(``x.exp_()``) are in :mod:`autogradkit._inplace`.
"""

from __future__ import annotations

import builtins

from . import ops
from ._tensor_base import TensorBase


class MathMethods(TensorBase):
    """Mixed into :class:`autogradkit.Tensor`."""

    __slots__ = ()

    # -- arithmetic, pointwise, reductions, products -------------------------------------
    def add(self, other, *, alpha=1):
        return ops.arithmetic.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return ops.arithmetic.sub(self, other, alpha=alpha)

    def mul(self, other):
        return ops.arithmetic.mul(self, other)

    def div(self, other, **rounding_mode):
        # rounding_mode=... only when given: PyTorch names the node by whether it was.
        return ops.arithmetic.div(self, other, **rounding_mode)

    def neg(self):
        return ops.arithmetic.neg(self)

    # PyTorch's longer names for the same operations (and the same nodes: MulBackward0...)
    multiply, subtract, divide, true_divide, negative = mul, sub, div, div, neg

    def pow(self, exponent):
        return ops.arithmetic.pow(self, exponent)

    def reciprocal(self):
        return ops.arithmetic.reciprocal(self)

    def remainder(self, other):
        return ops.arithmetic.remainder(self, other)

    def fmod(self, other):
        return ops.arithmetic.fmod(self, other)

    def floor_divide(self, other):
        return ops.arithmetic.floor_divide(self, other)

    def exp(self):
        return ops.pointwise.exp(self)

    def log(self):
        return ops.pointwise.log(self)

    def sqrt(self):
        return ops.pointwise.sqrt(self)

    def abs(self):
        return ops.pointwise.abs(self)

    def sigmoid(self):
        return ops.pointwise.sigmoid(self)

    def tanh(self):
        return ops.pointwise.tanh(self)

    def relu(self):
        return ops.pointwise.relu(self)

    def clamp(self, min=None, max=None):
        return ops.pointwise.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min):
        ops.pointwise.check_clamp_bound("clamp_min", "min", min, method=True)
        return ops.pointwise.clamp_min(self, min)

    def clamp_max(self, max):
        ops.pointwise.check_clamp_bound("clamp_max", "max", max, method=True)
        return ops.pointwise.clamp_max(self, max)

    def absolute(self):
        return ops.pointwise.absolute(self)

    def maximum(self, other):
        return ops.pointwise.maximum(self, other)

    def sum_to_size(self, *size, **kwargs):
        return ops.reduction.sum_to_size(self, *size, **kwargs)

    def sum(
        self, dim=None, keepdim: builtins.bool = False, *, dtype=None, axis=None, keepdims=None
    ):
        return ops.reduction.sum(self, dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)

    def mean(
        self, dim=None, keepdim: builtins.bool = False, *, dtype=None, axis=None, keepdims=None
    ):
        return ops.reduction.mean(self, dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)

    def max(self, dim=None, keepdim: builtins.bool = False):
        return ops.reduction.max(self, dim, keepdim)

    def min(self, dim=None, keepdim: builtins.bool = False):
        return ops.reduction.min(self, dim, keepdim)

    def argmax(self, dim=None, keepdim: builtins.bool = False):
        return ops.reduction.argmax(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim: builtins.bool = False, *, correction=None):
        return ops.statistics.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim: builtins.bool = False, *, correction=None):
        return ops.statistics.std(self, dim, unbiased, keepdim, correction=correction)

    def amax(self, dim=(), keepdim: builtins.bool = False):
        return ops.statistics.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim: builtins.bool = False):
        return ops.statistics.amin(self, dim, keepdim)

    def matmul(self, other):
        return ops.linalg.matmul(self, other)

    def mm(self, other):
        return ops.linalg.mm(self, other)

    def mv(self, vec):
        return ops.linalg.mv(self, vec)

    def bmm(self, mat2):
        return ops.linalg.bmm(self, mat2)

    def dot(self, other):
        return ops.linalg.dot(self, other)

    def outer(self, vec2):
        return ops.linalg.outer(self, vec2)

    def inner(self, other):
        return ops.products.inner(self, other)

    def vdot(self, other):
        return ops.products.vdot(self, other)

    def cross(self, other, dim=None):
        return ops.products.cross(self, other, dim)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return ops.products.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return ops.products.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return ops.products.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return ops.products.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def pinverse(self, rcond: builtins.float = 1e-15):
        return ops.pseudo_inverse.pinverse(self, rcond)

    def inverse(self):
        return ops.square_matrices.inverse(self)

    def det(self):
        return ops.square_matrices.det(self)

    def logdet(self):
        return ops.square_matrices.logdet(self)

    def slogdet(self):
        return ops.square_matrices.slogdet(self)

    def matrix_power(self, n: int):
        return ops.square_matrices.matrix_power(self, n)

    def allclose(
        self,
        other,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        return ops.reduction.allclose(self, other, rtol, atol, equal_nan)

    # -- shape ---------------------------------------------------------------------------
    def reshape(self, *shape):
        return ops.shape.reshape(self, *shape)

    def view(self, *shape):
        return ops.shape.view(self, *shape)

    def view_as(self, other):
        return ops.shape.view(self, other.shape)

    def reshape_as(self, other):
        if not isinstance(other, TensorBase):
            raise TypeError(
                "reshape_as(): argument 'other' (position 1) must be Tensor, "
                f"not {type(other).__name__}"
            )
        return ops.shape.reshape(self, other._data.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        return ops.shape.flatten(self, start_dim, end_dim)

    def split(self, split_size, dim: int = 0) -> tuple:
        return ops.split.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        return ops.split.chunk(self, chunks, dim)

    def unbind(self, dim: int = 0) -> tuple:
        return ops.split.unbind(self, dim)

    def t(self):
        return ops.shape.t(self)

    @property
    def T(self):
        return ops.shape.numpy_T(self)

    @property
    def mT(self):
        return ops.shape.matrix_transpose(self, "mT")

    @property
    def mH(self):
        return ops.shape.matrix_transpose(self, "mH")

    @property
    def H(self):
        return ops.shape.adjoint(self)

    def repeat(self, *repeats):
        return ops.shape.repeat(self, *repeats)

    def transpose(self, dim0: int, dim1: int):
        return ops.shape.transpose(self, dim0, dim1)

    def permute(self, *dims):
        return ops.shape.permute(self, *dims)

    def unsqueeze(self, dim: int):
        return ops.shape.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return ops.shape.squeeze(self, dim)

    def expand(self, *sizes):
        return ops.shape.expand(self, *sizes)

    def expand_as(self, other):
        return ops.shape.expand(self, *other.shape)

    def clone(self):
        return ops.shape.clone(self)

    def narrow(self, dim: int, start: int, length: int):
        return ops.shape.narrow(self, dim, start, length)

    def select(self, dim: int, index: int):
        return ops.shape.select(self, dim, index)

    def broadcast_to(self, size):
        return ops.reshaping.broadcast_to(self, size)

    def movedim(self, source, destination):
        return ops.reshaping.movedim(self, source, destination)

    def moveaxis(self, source, destination):
        return ops.reshaping.movedim(self, source, destination)

    def swapaxes(self, axis0: int, axis1: int):
        return ops.reshaping.swapaxes(self, axis0, axis1)

    def swapdims(self, dim0: int, dim1: int):
        return ops.reshaping.swapaxes(self, dim0, dim1)

    def ravel(self):
        return ops.reshaping.ravel(self)

    def unflatten(self, dim: int, sizes):
        return ops.reshaping.unflatten(self, dim, sizes)

    def tensor_split(self, indices_or_sections, dim: int = 0) -> tuple:
        return ops.reshaping.tensor_split(self, indices_or_sections, dim)

    def hsplit(self, indices_or_sections) -> tuple:
        return ops.reshaping.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections) -> tuple:
        return ops.reshaping.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections) -> tuple:
        return ops.reshaping.dsplit(self, indices_or_sections)

    def fliplr(self):
        return ops.reshaping.fliplr(self)

    def flipud(self):
        return ops.reshaping.flipud(self)

    def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None):
        return ops.reshaping.diff(self, n, dim, prepend, append)

    def tile(self, *dims):
        # x.tile(2, 1) and x.tile((2, 1)), as x.repeat takes them.
        wrapped = len(dims) == 1 and isinstance(dims[0], (tuple, list))
        return ops.indexing.tile(self, tuple(dims[0]) if wrapped else dims)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return ops.indexing.repeat_interleave(self, repeats, dim, output_size=output_size)

    def rot90(self, k: int = 1, dims=(0, 1)):
        return ops.indexing.rot90(self, k, dims)

    def take(self, index):
        return ops.indexing.take(self, index)

    def take_along_dim(self, indices, dim=None):
        return ops.indexing.take_along_dim(self, indices, dim)

    def masked_select(self, mask):
        return ops.indexing.masked_select(self, mask)

    def index_add(self, dim: int, index, source, *, alpha=1):
        return ops.indexing.index_add(self, dim, index, source, alpha=alpha)

    def index_copy(self, dim: int, index, source):
        return ops.indexing.index_copy(self, dim, index, source)

    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim=None,
    ):
        return ops.counting.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(
        self, return_inverse: builtins.bool = False, return_counts: builtins.bool = False, dim=None
    ):
        return ops.counting.unique_consecutive(self, return_inverse, return_counts, dim)

    def bincount(self, weights=None, minlength: int = 0):
        return ops.counting.bincount(self, weights, minlength)

    def bernoulli(self, p=None, *, generator=None):
        return ops.drawing.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples: int, replacement: builtins.bool = False, *, generator=None):
        return ops.drawing.multinomial(self, num_samples, replacement, generator=generator)

    def index_put(self, indices, values, accumulate: bool = False):
        return ops.shape.index_put(self, indices, values, accumulate)

    def index_select(self, dim: int, index):
        return ops.rearrange.index_select(self, dim, index)

    def flip(self, *dims, **kwargs):
        # x.flip(0) and x.flip(0, 1) as x.flip((0, 1)): the method, unlike
        # torch.flip, takes the dims one by one too.
        if len(dims) > 1 or (dims and isinstance(dims[0], int)):
            dims = (dims,)
        return ops.rearrange.flip(self, *dims, **kwargs)

    def roll(self, shifts, dims=None):
        return ops.rearrange.roll(self, shifts, dims)

    def tril(self, diagonal: int = 0):
        return ops.rearrange.tril(self, diagonal)

    def triu(self, diagonal: int = 0):
        return ops.rearrange.triu(self, diagonal)

    def diag(self, diagonal: int = 0):
        return ops.rearrange.diag(self, diagonal)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1):
        return ops.rearrange.diagonal(self, offset, dim1, dim2)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1):
        return ops.rearrange.diag_embed(self, offset, dim1, dim2)

    def trace(self):
        return ops.rearrange.trace(self)

    # -- elementary functions -------------------------------------------------------
    def sin(self):
        return ops.elementary.sin(self)

    def cos(self):
        return ops.elementary.cos(self)

    def tan(self):
        return ops.elementary.tan(self)

    def asin(self):
        return ops.elementary.asin(self)

    def acos(self):
        return ops.elementary.acos(self)

    def atan(self):
        return ops.elementary.atan(self)

    arcsin, arccos, arctan = asin, acos, atan

    def asinh(self):
        return ops.elementary_more.asinh(self)

    def acosh(self):
        return ops.elementary_more.acosh(self)

    def atanh(self):
        return ops.elementary_more.atanh(self)

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def erfc(self):
        return ops.elementary_more.erfc(self)

    def logit(self, eps=None):
        return ops.elementary_more.logit(self, eps)

    def sinc(self):
        return ops.elementary_more.sinc(self)

    def deg2rad(self):
        return ops.elementary_more.deg2rad(self)

    def rad2deg(self):
        return ops.elementary_more.rad2deg(self)

    def sgn(self):
        return ops.elementary_more.sgn(self)

    def positive(self):
        return ops.elementary_more.positive(self)

    def logaddexp(self, other):
        return ops.binary_more.logaddexp(self, other)

    def logaddexp2(self, other):
        return ops.binary_more.logaddexp2(self, other)

    def fmax(self, other):
        return ops.binary_more.fmax(self, other)

    def fmin(self, other):
        return ops.binary_more.fmin(self, other)

    def copysign(self, other):
        return ops.binary_more.copysign(self, other)

    def heaviside(self, values):
        return ops.binary_more.heaviside(self, values)

    def float_power(self, exponent):
        return ops.binary_more.float_power(self, exponent)

    def lgamma(self):
        return ops.gamma.lgamma(self)

    def digamma(self):
        return ops.gamma.digamma(self)

    def polygamma(self, n):
        return ops.gamma.polygamma(n, self)

    def sinh(self):
        return ops.elementary.sinh(self)

    def cosh(self):
        return ops.elementary.cosh(self)

    def log1p(self):
        return ops.elementary.log1p(self)

    def expm1(self):
        return ops.elementary.expm1(self)

    def log2(self):
        return ops.elementary.log2(self)

    def log10(self):
        return ops.elementary.log10(self)

    def exp2(self):
        return ops.elementary.exp2(self)

    def rsqrt(self):
        return ops.elementary.rsqrt(self)

    def square(self):
        return ops.elementary.square(self)

    def sign(self):
        return ops.elementary.sign(self)

    def floor(self):
        return ops.elementary.floor(self)

    def ceil(self):
        return ops.elementary.ceil(self)

    def round(self, *, decimals: int = 0):
        return ops.elementary.round(self, decimals=decimals)

    def trunc(self):
        return ops.elementary.trunc(self)

    def fix(self):
        return ops.elementary.trunc(self)

    def nan_to_num(self, nan: float = 0.0, posinf=None, neginf=None):
        return ops.elementary.nan_to_num(self, nan, posinf, neginf)

    def frac(self):
        return ops.elementary.frac(self)

    def erf(self):
        return ops.special.erf(self)

    def erfinv(self):
        return ops.special.erfinv(self)

    def atan2(self, other):
        return ops.special.atan2(self, other)

    arctan2 = atan2

    def hypot(self, other):
        return ops.special.hypot(self, other)

    def xlogy(self, other):
        return ops.special.xlogy(self, other)

    def lerp(self, end, weight):
        return ops.special.lerp(self, end, weight)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return ops.special.addcmul(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return ops.special.addcdiv(self, tensor1, tensor2, value=value)

    def isclose(
        self,
        other,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ):
        return ops.special.isclose(self, other, rtol, atol, equal_nan)

    # -- new tensors with this tensor's dtype ----------------------------------------------
    def new_zeros(self, *size, dtype=None, device=None, requires_grad: builtins.bool = False, **kw):
        return _creation().new_filled(self, "new_zeros", size, 0, dtype, requires_grad, device, kw)

    def new_ones(self, *size, dtype=None, device=None, requires_grad: builtins.bool = False, **kw):
        return _creation().new_filled(self, "new_ones", size, 1, dtype, requires_grad, device, kw)

    def new_empty(self, *size, dtype=None, device=None, requires_grad: builtins.bool = False, **kw):
        # Its values are unspecified in PyTorch; autogradkit's are zeros.
        return _creation().new_filled(self, "new_empty", size, 0, dtype, requires_grad, device, kw)

    def new_full(
        self,
        size,
        fill_value=None,
        *,
        dtype=None,
        device=None,
        requires_grad: builtins.bool = False,
    ):
        if fill_value is None:
            raise TypeError('new_full() missing 1 required positional arguments: "fill_value"')
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                "new_full(): argument 'size' (position 1) must be tuple of ints, "
                f"not {type(size).__name__}"
            )
        return _creation().new_filled(
            self, "new_full", (tuple(size),), fill_value, dtype, requires_grad, device
        )

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad: builtins.bool = False):
        return _creation().new_tensor(self, data, dtype, requires_grad, device)

    # -- questions of each element, and summaries that skip nan -----------------------
    def isnan(self):
        return ops.predicates.isnan(self)

    def isinf(self):
        return ops.predicates.isinf(self)

    def isfinite(self):
        return ops.predicates.isfinite(self)

    def isposinf(self):
        return ops.predicates.isposinf(self)

    def isneginf(self):
        return ops.predicates.isneginf(self)

    def isreal(self):
        return ops.predicates.isreal(self)

    def signbit(self):
        return ops.predicates.signbit(self)

    def logical_and(self, other):
        return ops.predicates.logical_and(self, other)

    def logical_or(self, other):
        return ops.predicates.logical_or(self, other)

    def logical_xor(self, other):
        return ops.predicates.logical_xor(self, other)

    def logical_not(self):
        return ops.predicates.logical_not(self)

    def nansum(self, dim=None, keepdim: builtins.bool = False, *, dtype=None):
        return ops.summaries.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim: builtins.bool = False, *, dtype=None):
        return ops.summaries.nanmean(self, dim, keepdim, dtype=dtype)

    def count_nonzero(self, dim=None):
        return ops.summaries.count_nonzero(self, dim)

    def aminmax(self, *, dim=None, keepdim: builtins.bool = False):
        return ops.summaries.aminmax(self, dim=dim, keepdim=keepdim)

    # -- softmax, products, norms -------------------------------------------------
    def softmax(self, *args, **kwargs):
        return ops.softmax.softmax(self, *args, **kwargs)

    def log_softmax(self, *args, **kwargs):
        return ops.softmax.log_softmax(self, *args, **kwargs)

    def logsumexp(self, dim, keepdim: bool = False):
        return ops.softmax.logsumexp(self, dim, keepdim)

    def prod(self, dim=None, keepdim: bool = False, *, dtype=None):
        return ops.accumulate.prod(self, dim, keepdim, dtype=dtype)

    def cumsum(self, dim, *, dtype=None):
        return ops.accumulate.cumsum(self, dim, dtype=dtype)

    def logcumsumexp(self, *dim, **given):
        # dim is required: the function words PyTorch's error when it is missing
        return ops.accumulate.logcumsumexp(self, *dim, **given)

    def cummax(self, *dim, **given):
        return ops.accumulate.cummax(self, *dim, **given)

    def cummin(self, *dim, **given):
        return ops.accumulate.cummin(self, *dim, **given)

    def cumprod(self, dim=None, *, dtype=None):
        return ops.accumulate.cumprod(self, dim, dtype=dtype)

    def norm(self, p=2, dim=None, keepdim: bool = False, dtype=None):
        return ops.accumulate.norm(self, p, dim, keepdim, dtype)

    # -- selections and tests --------------------------------------------------------
    def gather(self, dim: int, index):
        return ops.select.gather(self, dim, index)

    def scatter(self, dim: int, index, src=None, *, value=None):
        return ops.select.scatter(self, dim, index, src, value=value)

    def scatter_add(self, dim: int, index, src):
        return ops.select.scatter_add(self, dim, index, src)

    def kron(self, other):
        return ops.linalg.kron(self, other)

    def nonzero(self, *, as_tuple: builtins.bool = False):
        return ops.select.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return ops.select.argwhere(self)

    def argmin(self, dim=None, keepdim: bool = False):
        return ops.select.argmin(self, dim, keepdim)

    def all(self, dim=None, keepdim: bool = False):
        return ops.select.all(self, dim, keepdim)

    def any(self, dim=None, keepdim: bool = False):
        return ops.select.any(self, dim, keepdim)

    def equal(self, other) -> bool:
        return ops.select.equal(self, other)

    def sort(self, dim: int = -1, descending: bool = False, **stable):
        # stable=... only when given: PyTorch names the node by whether it was.
        if isinstance(dim, bool):
            raise ops.ordering.bool_dim_error("sort", method=True)
        return ops.ordering.sort(self, dim, descending, **stable)

    def argsort(self, dim: int = -1, descending: bool = False, *, stable: bool = False):
        if isinstance(dim, bool):
            raise ops.ordering.bool_dim_error("argsort", method=True)
        return ops.ordering.argsort(self, dim, descending, stable=stable)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        return ops.ordering.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k: int, dim: int = -1, keepdim: builtins.bool = False):
        return ops.ordering.kthvalue(self, k, dim, keepdim)

    def quantile(self, q, dim=None, keepdim: builtins.bool = False, *, interpolation="linear"):
        return ops.ordering.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim: builtins.bool = False, *, interpolation="linear"):
        return ops.ordering.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def mode(self, dim: int = -1, keepdim: builtins.bool = False):
        return ops.ordering.mode(self, dim, keepdim)

    def median(self, *dim, **keepdim):
        # median() and median(dim, keepdim=False): two overloads, as in PyTorch
        return ops.ordering.median(self, *dim, **keepdim)

    def nanmedian(self, *dim, **keepdim):
        return ops.ordering.nanmedian(self, *dim, **keepdim)

    def masked_fill(self, mask, value):
        return ops.select.masked_fill(self, mask, value)

    def where(self, condition, other):
        return ops.select.where(condition, self, other)


def _creation():
    """autogradkit._creation, imported when first needed: it imports the Tensor
    class, which is built from this module."""
    from . import _creation

    return _creation
