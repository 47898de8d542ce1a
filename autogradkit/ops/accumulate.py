"""Products, running sums and vector norms: ``prod``, ``cumsum``, ``norm``; and
the other running reductions, ``logcumsumexp``, ``cummax`` and ``cummin``.

>>> import autogradkit as torch
>>> x = torch.tensor([3.0, 4.0], requires_grad=True)
>>> n = x.norm()
>>> n.backward()
>>> x.grad
tensor([0.6000, 0.8000])
"""

from __future__ import annotations

import math

import numpy as np

from .. import return_types
from .._dtype import dtype as DType
from .._dtype import int64 as _int64
from .._dtype import scalar_type_name
from .._quiet_numpy import quietly
from ..autograd.function import Function, Linear, Reduction
from ..tensor import Tensor, _wrap_dim
from .arithmetic import _values
from .pointwise import Sgn
from .rearrange import Flip
from .reduction import _dims, _kept_shape, _unsqueezed
from .select import ScatterAdd
from .where import MaskedFill, Where

__all__ = ["prod", "cumsum", "cumprod", "norm", "logcumsumexp", "cummax", "cummin"]


def _product_of_others(x, out, axis):
    """∏ⱼ≠ᵢ xⱼ for each i: out/x where x ≠ 0. With a zero among the factors,
    out/x is 0/0 there, so the products are formed from prefix and suffix
    products instead (arrays only: a create_graph pass refuses them)."""
    values = _values(x)
    if not np.any(values == 0):
        return out / x
    if isinstance(x, Tensor):
        raise NotImplementedError(
            "autogradkit cannot differentiate prod twice when a factor is 0; "
            "PyTorch can. Move the inputs away from 0 or take a single derivative."
        )
    flat_axis = 0 if axis is None else axis
    moved = values.reshape(-1) if axis is None else np.moveaxis(values, axis, 0)
    ones = np.ones_like(moved[:1])
    before = np.cumprod(np.concatenate([ones, moved[:-1]]), axis=0)
    after = np.cumprod(np.concatenate([ones, moved[:0:-1]]), axis=0)[::-1]
    others = before * after
    return others.reshape(values.shape) if axis is None else np.moveaxis(others, 0, flat_axis)


class Prod(Reduction):
    """f(x) = ∏ᵢ xᵢ;   ∂f/∂xᵢ = ∏ⱼ≠ᵢ xⱼ"""

    node_name = "ProdBackward0"
    formula = r"f(x) = \textstyle\prod_i x_i \qquad \frac{\partial f}{\partial x_i} = \textstyle\prod_{j \ne i} x_j"

    @staticmethod
    @quietly  # overflow gives inf, silently (as PyTorch)
    def forward(ctx, x):
        out = np.asarray(np.prod(x))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if not isinstance(x, Tensor) and np.count_nonzero(x == 0) > 1:
            # Two zero factors: every product of the others has a zero in it, so
            # the gradient is exactly zero, whatever else (inf, nan) x holds and
            # whatever the incoming gradient is: PyTorch's prod_backward answers
            # zeros here without multiplying anything.
            return np.zeros_like(x)
        return grad_output * _product_of_others(x, out, None)


class ProdDim(Reduction):
    """f(x) = ∏ along ``dim``;   ∂f/∂xᵢ = the product of the other factors along ``dim``"""

    node_name = "ProdBackward1"
    formula = r"f(x) = \textstyle\prod_{\text{dim}} x \qquad \frac{\partial f}{\partial x_i} = \textstyle\prod_{j \ne i} x_j"

    @staticmethod
    @quietly  # overflow gives inf, silently (as PyTorch)
    def forward(ctx, x, dim, keepdim):
        out = np.prod(x, axis=dim, keepdims=True)
        ctx.dim, ctx.keepdim = dim, keepdim
        ctx.save_for_backward(x)
        return out if keepdim else out.squeeze(dim)

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dim, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad_output = grad_output.reshape(_kept_shape(x.shape, (ctx.dim,)))
        out = np.prod(_values(x), axis=ctx.dim, keepdims=True)
        if isinstance(x, Tensor):
            out = prod(x, ctx.dim, keepdim=True)  # recorded, for the second derivative
        return grad_output * _product_of_others(x, out, ctx.dim), None, None


class Cumsum(Linear):
    """f(x)ᵢ = Σⱼ≤ᵢ xⱼ along ``dim``;   ∂ℓ/∂xⱼ = Σᵢ≥ⱼ gᵢ (a running sum from the end)"""

    node_name = "CumsumBackward0"
    formula = r"f(x)_i = \textstyle\sum_{j \le i} x_j \qquad \frac{\partial \ell}{\partial x_j} = \textstyle\sum_{i \ge j} g_i"

    @staticmethod
    @quietly  # inf + -inf is nan, silently (as PyTorch)
    def forward(ctx, x, dim):
        ctx.dim = dim
        if x.ndim == 0:
            return x.copy()  # a 0-d tensor is its own running sum
        return np.cumsum(x, axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output.ndim == 0 or grad_output.shape[ctx.dim] <= 1:
            return grad_output, None  # each element its own running sum (PyTorch's too)
        # Σᵢ≥ⱼ gᵢ: the running sum from the end, as PyTorch computes it (flip, cumsum,
        # flip). Not total − (running sum up to j) + gⱼ: in float32 that loses the small
        # terms beside a large one ([1e8, 1, 1] gave [1e8, 1, 1], not [1e8, 2, 1]), and
        # an inf among them made every element nan.
        if isinstance(grad_output, Tensor):  # create_graph: recorded, as PyTorch's
            return grad_output.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim), None
        return np.flip(np.flip(grad_output, ctx.dim).cumsum(ctx.dim), ctx.dim), None


class Cumprod(Function):
    """f(x)ᵢ = ∏ⱼ≤ᵢ xⱼ along ``dim``;   ∂ℓ/∂xⱼ = Σᵢ≥ⱼ gᵢ · ∏ₖ≤ᵢ,ₖ≠ⱼ xₖ
    (= Σᵢ≥ⱼ gᵢ f(x)ᵢ / xⱼ where no factor is 0)"""

    node_name = "CumprodBackward0"
    formula = r"f(x)_i = \textstyle\prod_{j \le i} x_j \qquad \frac{\partial \ell}{\partial x_j} = \textstyle\sum_{i \ge j} g_i \prod_{k \le i,\, k \ne j} x_k"

    @staticmethod
    @quietly  # overflow gives inf, silently (as PyTorch)
    def forward(ctx, x, dim, dtype):
        # dtype=... converts inside the operation, as PyTorch's (no ToCopyBackward0).
        x = x if dtype is None else x.astype(dtype)
        ctx.dim = dim
        out = x.copy() if x.ndim == 0 else np.cumprod(x, axis=dim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    @quietly
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if x.ndim == 0:
            return grad_output, None, None
        if isinstance(x, Tensor):
            if np.any(x._data == 0):
                raise NotImplementedError(
                    "autogradkit cannot differentiate cumprod twice when a factor is 0; "
                    "PyTorch can. Move the inputs away from 0 or take a single derivative."
                )
            # Σᵢ≥ⱼ gᵢ f(x)ᵢ, a running sum from the end, over xⱼ: recorded operations.
            dim = ctx.dim
            return (grad_output * out).flip((dim,)).cumsum(dim).flip((dim,)) / x, None, None
        return _cumprod_grad(x, out, grad_output, ctx.dim), None, None

    @staticmethod
    def jvp(ctx, tangent, _dim=None, _dtype=None):
        # ḟᵢ = Σⱼ≤ᵢ ∂fᵢ/∂xⱼ ẋⱼ: the sum over j of f with xⱼ replaced by ẋⱼ; for the
        # tangents of factors that are not 0 that is fᵢ · Σⱼ≤ᵢ ẋⱼ/xⱼ.
        x, out = ctx.primals[0].astype(ctx.result.dtype), ctx.result
        if x.ndim == 0 or tangent is None:
            return tangent
        return _cumprod_tangent(x, out, tangent.astype(out.dtype), ctx.dim)


def _cumprod_grad(x: np.ndarray, out: np.ndarray, grad: np.ndarray, dim: int) -> np.ndarray:
    """PyTorch's cumprod_backward on arrays: Σᵢ≥ⱼ gᵢ fᵢ / xⱼ (a running sum from the
    end) where no factor up to j is 0; at the first 0 of a row, the products of the
    others written out; after it, 0 (every product there has that 0 in it)."""
    # Rows along dim: the formula for all of them, then the rows with a 0 redone.
    moved = np.moveaxis(x, dim, -1)
    n = moved.shape[-1]
    xs, outs = moved.reshape(-1, n), np.moveaxis(out, dim, -1).reshape(-1, n)
    grads = np.moveaxis(grad, dim, -1).reshape(-1, n)
    result = np.flip(np.cumsum(np.flip(grads * outs, -1), -1), -1) / xs
    for r in np.flatnonzero(np.any(xs == 0, axis=-1)).tolist():
        first_zero = int(np.argmax(xs[r] == 0))
        head = np.flip(np.cumsum(np.flip(grads[r, :first_zero] * outs[r, :first_zero])))
        result[r, :first_zero] = head / xs[r, :first_zero]
        before = outs[r, first_zero - 1] if first_zero else 1  # ∏ x[0, z)
        after = np.cumprod(np.concatenate([[1], xs[r, first_zero + 1 :]]))  # ∏ x(z, i]
        result[r, first_zero] = before * np.sum(grads[r, first_zero:] * after)
        result[r, first_zero + 1 :] = 0
    return np.moveaxis(result.reshape(moved.shape), -1, dim).astype(grad.dtype, copy=False)


def _cumprod_tangent(x: np.ndarray, out: np.ndarray, tangent, dim: int) -> np.ndarray:
    """The tangent of cumprod, exactly also at zeros: Σⱼ≤ᵢ ẋⱼ ∏ₖ≤ᵢ,ₖ≠ⱼ xₖ."""
    rows_x, rows_t = np.moveaxis(x, dim, -1), np.moveaxis(tangent, dim, -1)
    result = np.zeros(rows_x.shape, out.dtype)
    n = rows_x.shape[-1]
    for j in range(n):
        factors = rows_x.copy()
        factors[..., j] = rows_t[..., j]
        result[..., j:] += np.cumprod(factors, axis=-1)[..., j:]
    return np.moveaxis(result, -1, dim)


class Norm(Reduction):
    """f(x) = (Σᵢ |xᵢ|ᵖ)^(1/p);   ∂f/∂xᵢ = sign(xᵢ)·|xᵢ|ᵖ⁻¹ / f^(p−1)
    (for p = 2: xᵢ/‖x‖, and 0 where ‖x‖ = 0). For p = ±inf, f(x) = maxᵢ|xᵢ|
    (minᵢ|xᵢ|) and the gradient goes to the elements where |xᵢ| = f, shared
    equally among ties: ∂f/∂xᵢ = sign(xᵢ)/(number of them)."""

    node_name = "LinalgVectorNormBackward0"
    formula = r"f(x) = \Big(\textstyle\sum_i |x_i|^p\Big)^{1/p} \qquad \frac{\partial f}{\partial x_i} = \frac{\operatorname{sign}(x_i)\,|x_i|^{p-1}}{f(x)^{p-1}}"

    @staticmethod
    @quietly  # overflow and inf - inf, silently
    def forward(ctx, x, p, dims, keepdim):
        magnitude = np.abs(x)
        if p == math.inf:
            out = magnitude.max(axis=dims, keepdims=True)
        elif p == -math.inf:
            out = magnitude.min(axis=dims, keepdims=True)
        elif p == 2:
            out = np.sqrt((magnitude * magnitude).sum(axis=dims, keepdims=True))
        elif p == 1:
            out = magnitude.sum(axis=dims, keepdims=True)
        else:
            out = (magnitude**p).sum(axis=dims, keepdims=True) ** (1.0 / p)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        result = out if keepdim else out.reshape(np.sum(x, axis=dims).shape)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def reduced_axes(ctx):
        return ctx.dims, ctx.keepdim

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        # PyTorch puts the reduced dims back only when they were named (dims None:
        # all of them, and the 0-d norm broadcasts as it is).
        if not ctx.keepdim and ctx.dims is not None and x.ndim:
            grad_output = _unsqueezed(grad_output, ctx.dims, x.shape)
            out = _unsqueezed(out, ctx.dims, x.shape)
        return _norm_grad(x, out, grad_output, ctx.p, ctx.dims), None, None, None


def _norm_grad(x, out, grad, p, dims):
    """PyTorch's norm_backward, grouped as it is (so that a create_graph pass
    records its graph): where the norm is 0 every x is 0, and the gradient is 0
    (``masked_fill``), not 0/0."""
    if p == 1:
        return Sgn.in_formula(x) * grad
    if math.isinf(p):
        return _extreme_norm_grad(x, _values(out), grad, dims)
    at_zero = _values(out) == 0
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where at_zero: filled
        if p == 2:
            return grad * MaskedFill.in_formula(x / out, at_zero, 0)
        if p < 1:
            power = MaskedFill.in_formula(np.abs(x) ** (p - 1), _values(x) == 0, 0)
            return Sgn.in_formula(x) * power * grad * out ** (1 - p)
        scale = MaskedFill.in_formula(grad / out ** (p - 1), at_zero, 0)
        scaled = Sgn.in_formula(x) * np.abs(x) ** (p - 1) if p < 2 else x * np.abs(x) ** (p - 2)
    return scaled * scale


def _extreme_norm_grad(x, out: np.ndarray, grad_output, dims: tuple):
    """The gradient of max|x| (or min|x|): to the elements where |x| is that
    extreme (or nan), shared equally among ties, with x's sign (as PyTorch)."""
    magnitude = np.abs(_values(x))
    chosen = (magnitude == out) | np.isnan(magnitude)
    ties = chosen.sum(axis=dims, keepdims=True)
    return Sgn.in_formula(x) * ((grad_output / ties) * chosen)  # grouped as PyTorch's


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype: DType | None = None) -> Tensor:
    """Product of all elements, or along ``dim``."""
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind == "b":
        input = input.to(_int64)
    if dim is None:
        return Prod.apply(input)
    return ProdDim.apply(input, _wrap_dim(dim, input.ndim) if input.ndim else 0, keepdim)


def cumsum(input: Tensor, dim: int, *, dtype: DType | None = None) -> Tensor:
    """Running sums along ``dim``: element i is the sum of elements 0..i."""
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind == "b":
        input = input.to(_int64)
    return Cumsum.apply(input, _wrap_dim(dim, input.ndim) if input.ndim else 0)


def cumprod(input: Tensor, dim: int | None = None, *, dtype: DType | None = None) -> Tensor:
    """Running products along ``dim``: element i is the product of elements 0..i.

    >>> import autogradkit as torch
    >>> torch.cumprod(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0)
    tensor([ 1.,  2.,  6., 24.])
    """
    if dim is None:  # (required, but PyTorch's message is not Python's)
        raise TypeError('cumprod() missing 1 required positional arguments: "dim"')
    if dtype is not None:
        numpy_dtype = dtype.numpy
    elif input._data.dtype.kind == "b":
        numpy_dtype = np.dtype(np.int64)  # products of bools count, as int64 (PyTorch)
    else:
        numpy_dtype = None
    return Cumprod.apply(input, _wrap_dim(dim, input.ndim) if input.ndim else 0, numpy_dtype)


def norm(input: Tensor, p=2, dim=None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
    """The vector p-norm of all elements, or along ``dim`` (p = 2 by default;
    ``"fro"`` means 2, ``inf`` the largest magnitude, ``-inf`` the smallest).
    Other p ≤ 0 are not supported."""
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str) or not (0 < p <= math.inf or p == -math.inf):
        raise NotImplementedError(
            f"autogradkit's norm supports real p > 0, inf, -inf (and 'fro'); got p={p!r}."
        )
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {scalar_type_name(input._data.dtype)}"
        )
    # dims None (all of them) as PyTorch's empty dim list: see Norm.backward.
    dims = None if dim is None else _dims(dim, input.ndim)
    return Norm.apply(input, p, dims, keepdim)


# -- logcumsumexp, cummax, cummin ---------------------------------------------------------

_MISSING = object()  # dim is required; PyTorch's words when it is left out


def _required_dim(name: str, dim) -> None:
    if dim is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')


def _reverse_logcumsumexp(x, dim: int):
    """log Σⱼ≥ᵢ e^(xⱼ): logcumsumexp from the end (flip, accumulate, flip back)."""
    return Flip.in_formula(Logcumsumexp.in_formula(Flip.in_formula(x, (dim,)), dim), (dim,))


class Logcumsumexp(Function):
    """f(x)ᵢ = ln Σⱼ≤ᵢ e^(xⱼ) along ``dim`` (a running logsumexp);
    ∂ℓ/∂xⱼ = Σᵢ≥ⱼ gᵢ e^(xⱼ − fᵢ)"""

    node_name = "LogcumsumexpBackward0"
    formula = r"f(x)_i = \ln \textstyle\sum_{j \le i} e^{x_j} \qquad \frac{\partial \ell}{\partial x_j} = \textstyle\sum_{i \ge j} g_i\, e^{x_j - f(x)_i}"

    @staticmethod
    @quietly  # inf − inf inside logaddexp gives nan, silently (as PyTorch)
    def forward(ctx, x, dim):
        ctx.dim = dim
        out = x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=dim)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    @quietly  # log 0 = −inf for the zero gradients, as PyTorch's formula takes it
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        if x.ndim == 0 or x.size == 0:
            return grad_output, None
        # PyTorch's formula: the positive and negative parts of the gradient summed
        # separately in log space, so e^(xⱼ − fᵢ) never overflows.
        lowest = np.finfo(_values(x).dtype).min
        log_size = np.log(np.abs(grad_output))
        positive = Where.in_formula(_values(grad_output) > 0, log_size, lowest)
        negative = Where.in_formula(_values(grad_output) < 0, log_size, lowest)
        dim = ctx.dim
        from_positive = np.exp(_reverse_logcumsumexp(positive - out, dim) + x)
        from_negative = np.exp(_reverse_logcumsumexp(negative - out, dim) + x)
        return from_positive - from_negative, None

    @staticmethod
    @quietly
    def jvp(ctx, tangent, _dim=None):
        # PyTorch's logcumsumexp_jvp: ḟᵢ = Σⱼ≤ᵢ e^(xⱼ − m) ẋⱼ / Σⱼ≤ᵢ e^(xⱼ − m), m the
        # row's largest element; 0 where the denominator is below 1e-13.
        x = ctx.primals[0]
        if x.ndim == 0:
            return tangent
        weights = np.exp(x - np.max(x, axis=ctx.dim, keepdims=True))
        total = np.cumsum(weights, axis=ctx.dim)
        weighted = np.where(total < 1e-13, 0, np.cumsum(weights * tangent, axis=ctx.dim))
        return weighted / total


class Cummax(Linear):
    """values = the running maximum along ``dim`` (``indices`` says where each was
    found);   ∂ℓ/∂xⱼ = the sum of the gradients of the values taken from xⱼ"""

    node_name = "CummaxBackward0"
    formula = r"v_i = \max_{j \le i} x_j = x_{\text{indices}_i} \qquad \frac{\partial \ell}{\partial x_j} = \textstyle\sum_{i:\, \text{indices}_i = j} g_i"

    @staticmethod
    def forward(ctx, x, indices, dim):
        # indices: an array, not a tensor, so it is no input of the node (as in PyTorch)
        ctx.indices, ctx.dim, ctx.shape = indices, dim, x.shape
        ctx.save_for_backward(indices)  # as PyTorch: a freed graph refuses a second pass
        if x.ndim == 0:
            return x.copy()
        return np.take_along_axis(x, indices, axis=dim)

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        if len(ctx.shape) == 0 or grad_output.size == 0:
            return grad_output, None, None
        # PyTorch's formula: zeros with each value's gradient added where it came from
        # (recorded as ScatterAddBackward0 when differentiating twice).
        zeros = np.zeros(ctx.shape, _values(grad_output).dtype)
        return ScatterAdd.in_formula(zeros, ctx.dim, ctx.indices, grad_output), None, None


class Cummin(Cummax):
    """values = the running minimum along ``dim``;   ∂ℓ/∂xⱼ = the sum of the
    gradients of the values taken from xⱼ"""

    node_name = "CumminBackward0"
    formula = r"v_i = \min_{j \le i} x_j = x_{\text{indices}_i} \qquad \frac{\partial \ell}{\partial x_j} = \textstyle\sum_{i:\, \text{indices}_i = j} g_i"


def _running_positions(data: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    """Where the running maximum (or minimum) along ``axis`` was found, as PyTorch's
    loop finds it: an element equal to the one so far takes over (the latest of
    ties), and a nan takes over and is kept (a later nan takes over again)."""
    moved = np.moveaxis(data, axis, -1)
    positions = np.zeros(moved.shape, np.int64)
    if moved.shape[-1] == 0:
        return np.moveaxis(positions, -1, axis)
    best, where = moved[..., 0], np.zeros(moved.shape[:-1], np.int64)
    for i in range(1, moved.shape[-1]):
        current = moved[..., i]
        reaches = current >= best if largest else current <= best
        # (x != x: nan, for floats; never, for integers and bools)
        takes_over = (current != current) | ((best == best) & reaches)
        best = np.where(takes_over, current, best)
        where = np.where(takes_over, i, where)
        positions[..., i] = where
    return np.moveaxis(positions, -1, axis)


def _cumulative_extreme(name: str, input: Tensor, dim, largest: bool):
    _required_dim(name, dim)
    function, pair = (Cummax, return_types.cummax) if largest else (Cummin, return_types.cummin)
    axis = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return pair(function.apply(input, None, 0), Tensor._make(np.zeros((), np.int64)))
    indices = _running_positions(input._data, axis, largest)
    return pair(function.apply(input, indices, axis), Tensor._make(indices))


def cummax(input: Tensor, dim=_MISSING):
    """The running maximum along ``dim`` and where each was found, as a
    ``(values, indices)`` pair: ``values[i]`` is the largest of ``input[0..i]``
    (nan once a nan was met). The gradient of each value goes to the element it
    was taken from.

    >>> import autogradkit as torch
    >>> torch.cummax(torch.tensor([1.0, 3.0, 2.0, 5.0]), dim=0)
    autogradkit.return_types.cummax(
    values=tensor([1., 3., 3., 5.]),
    indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative_extreme("cummax", input, dim, largest=True)


def cummin(input: Tensor, dim=_MISSING):
    """The running minimum along ``dim`` and where each was found (see
    :func:`cummax`).

    >>> import autogradkit as torch
    >>> torch.tensor([4, 2, 3, 1]).cummin(0).values
    tensor([4, 2, 2, 1])
    """
    return _cumulative_extreme("cummin", input, dim, largest=False)


def logcumsumexp(input: Tensor, dim=_MISSING) -> Tensor:
    """ln Σⱼ≤ᵢ e^(inputⱼ) along ``dim``: a running :func:`~autogradkit.logsumexp`,
    without overflow (running sums of probabilities kept in log space).

    >>> import autogradkit as torch
    >>> torch.logcumsumexp(torch.tensor([0.0, 0.0, 100.0]), dim=0)
    tensor([  0.0000,   0.6931, 100.0000])
    """
    _required_dim("logcumsumexp", dim)
    if input._data.dtype.kind != "f":
        kind = scalar_type_name(input._data.dtype)
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{kind}'")
    return Logcumsumexp.apply(input, _wrap_dim(dim, input.ndim))
