"""More elementwise functions of one, two or three tensors: ``erf``, ``erfinv``, ``atan2``,
``hypot``, ``xlogy``, ``lerp``, ``addcmul``, ``addcdiv``, and the test ``isclose``.

As in :mod:`.elementary`, every derivative is written with operators and NumPy
functions, so the same line serves a plain backward pass (arrays) and a
``create_graph=True`` pass (tensors).

>>> import autogradkit as torch
>>> y, x = torch.tensor([1.0]), torch.tensor([-1.0])
>>> torch.atan2(y, x)
tensor([2.3562])
>>> torch.hypot(torch.tensor([3.0]), torch.tensor([4.0]))
tensor([5.])
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import scalar_type_name
from .._quiet_numpy import quietly
from ..autograd.function import Elementwise, Function
from ..tensor import Tensor
from ._promotion import common_dtype, promote, result_dtype
from .arithmetic import BinaryFunction
from .pointwise import _check_tensor_pair, _float
from .where import MaskedFill, _values

__all__ = ["erf", "erfinv", "atan2", "hypot", "xlogy", "lerp", "addcmul", "addcdiv", "isclose"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_erf_of_each = np.frompyfunc(math.erf, 1, 1)  # NumPy has no erf; the C library's, per element
_erfc_of_each = np.frompyfunc(math.erfc, 1, 1)


class Erf(Elementwise):
    """f(x) = erf x = (2/√π) ∫₀ˣ e^(−t²) dt;   ∂f/∂x = (2/√π) e^(−x²)"""

    node_name = "ErfBackward0"
    formula = r"f(x) = \operatorname{erf} x \qquad \frac{\partial f}{\partial x} = \frac{2}{\sqrt{\pi}}\, e^{-x^2}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        x = _float(x)
        return np.asarray(_erf_of_each(x.astype(np.float64)), np.float64).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return _TWO_OVER_SQRT_PI * np.exp(-(x * x)) * grad_output


# Giles' approximation of erfinv (2010): a polynomial in w = −ln(1 − y²), one for
# the centre (w < 5) and one in √w for the tails; good to about 1e-7.
_ERFINV_CENTRE = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERFINV_TAIL = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


_ERFINV_MAX_STEPS = 30


def _erfinv_of(y: np.ndarray) -> np.ndarray:
    """erfinv of a float64 array: Giles' approximation, then Newton steps on
    erf(x) = y (as PyTorch refines its own first guess), which bring it to double
    precision. Near ±1 the steps solve erfc(x) = 1 − |y| instead: 1 − |y| is exact
    there, where erf(x) − |y| would lose every digit to cancellation. ±1 give
    ±inf; outside [−1, 1], nan."""
    inside = np.abs(y) < 1
    z = np.where(inside, np.abs(y), 0.0)
    w = -np.log((1 - z) * (1 + z))
    centre, tail = np.polyval(_ERFINV_CENTRE, w - 2.5), np.polyval(_ERFINV_TAIL, np.sqrt(w) - 3)
    x = np.where(w < 5, centre, tail) * z
    near_one = z > 0.5
    # Two steps suffice where float32 can hold y; beyond (1 − |y| < 1e-7) Giles'
    # guess is rougher and the steps go on until they no longer change x.
    for _ in range(_ERFINV_MAX_STEPS):
        erf_error = np.asarray(_erf_of_each(x), np.float64) - z
        erfc_error = (1 - z) - np.asarray(_erfc_of_each(x), np.float64)
        step = np.where(near_one, erfc_error, erf_error) / (_TWO_OVER_SQRT_PI * np.exp(-(x * x)))
        x = x - step
        if np.all(np.abs(step) <= 1e-16 * np.abs(x)):
            break
    edge = np.where(np.abs(y) == 1, np.inf, np.nan)  # nan stays nan
    return np.copysign(np.where(inside, x, edge), y)


class Erfinv(Elementwise):
    """f(y) = erfinv y, the x with erf x = y (for −1 < y < 1);
    ∂f/∂y = (√π/2) e^(f(y)²), the reciprocal of erf's derivative there"""

    node_name = "ErfinvBackward0"
    formula = r"f(y) = \operatorname{erf}^{-1} y \qquad \frac{\partial f}{\partial y} = \frac{\sqrt{\pi}}{2}\, e^{f(y)^2}"

    @staticmethod
    def forward(ctx, y):
        ctx.save_for_backward(y)
        y = _float(y)
        with np.errstate(all="ignore"):  # the masked elements outside (−1, 1)
            return _erfinv_of(y.astype(np.float64)).astype(y.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        # PyTorch's formula computes erfinv again (recorded, when differentiating twice).
        return _SQRT_PI_OVER_TWO * np.exp(Erfinv.in_formula(y) ** 2) * grad_output


_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2


def _float_pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Two operands promoted as PyTorch does, then made float (integers give
    float32); a Python number takes the other operand's dtype."""
    x, y = promote(x, y)
    if not isinstance(x, np.ndarray):
        x = np.asarray(x, _float(y).dtype)
    if not isinstance(y, np.ndarray):
        y = np.asarray(y, _float(x).dtype)
    return _float(x), _float(y)


class Atan2(BinaryFunction):
    """f(y, x) = atan2(y, x), the angle of the point (x, y);
    ∂f/∂y = x/(x² + y²),   ∂f/∂x = −y/(x² + y²)"""

    node_name = "Atan2Backward0"
    formula = r"f(y, x) = \operatorname{atan2}(y, x) \qquad \frac{\partial f}{\partial y} = \frac{x}{x^2 + y^2}, \quad \frac{\partial f}{\partial x} = \frac{-y}{x^2 + y^2}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(y, x)
        y, x = _float_pair(y, x)
        # In float64, then rounded: NumPy's float32 atan2 can be one ulp off
        # (atan2(1, 1) = 0.78539812), PyTorch's is not.
        return np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(y.dtype)

    @staticmethod
    @quietly  # at the origin: 1/0, replaced
    def backward(ctx, grad_output):
        y, x = ctx.saved_tensors
        squares = y * y + x * x
        # PyTorch's atan2_backward: 1/(x² + y²), and 0 at the origin (no nan there).
        reciprocal = MaskedFill.in_formula(1 / squares, _values(squares) == 0, 0)
        return grad_output * x * reciprocal, grad_output * -y * reciprocal


class Hypot(BinaryFunction):
    """f(x, y) = √(x² + y²);   ∂f/∂x = x/f,   ∂f/∂y = y/f"""

    node_name = "HypotBackward0"
    formula = r"f(x, y) = \sqrt{x^2 + y^2} \qquad \frac{\partial f}{\partial x} = \frac{x}{f}, \quad \frac{\partial f}{\partial y} = \frac{y}{f}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        promoted = result_dtype(x, y)
        if promoted.kind != "f":  # (unlike atan2, PyTorch has no integer hypot)
            raise NotImplementedError(
                f"\"hypot_cpu\" not implemented for '{scalar_type_name(promoted)}'"
            )
        out = np.hypot(*_float_pair(x, y))
        ctx.save_for_backward(x, y, out)
        return out

    @staticmethod
    @quietly  # at the origin: 0/0, nan, as PyTorch
    def backward(ctx, grad_output):
        x, y, out = ctx.saved_tensors
        return grad_output * x / out, grad_output * y / out


class Xlogy(BinaryFunction):
    """f(x, y) = x · log y, and 0 where x = 0 (unless y is nan);
    ∂f/∂x = log y (0 where x = 0 and y ≤ 0, PyTorch's choice),   ∂f/∂y = x / y"""

    node_name = "XlogyBackward0"
    scalars_are_inputs = False  # xlogy(x, 2.0): the number is no input of the node
    formula = r"f(x, y) = x \log y \ (0 \text{ if } x = 0) \qquad \frac{\partial f}{\partial x} = \log y, \quad \frac{\partial f}{\partial y} = \frac{x}{y}"

    @staticmethod
    @quietly  # log 0 = -inf, 0 · -inf replaced: silently
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        x, y = _float_pair(x, y)
        return _xlogy(x, y)

    @staticmethod
    @quietly
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            # PyTorch's xlogy(grad, y).masked_fill((x == 0) & (y <= 0), 0): log y even
            # where x = 0, except where log y is not finite.
            at_edge = (_values(x) == 0) & (np.asarray(_values(y)) <= 0)
            grad_x = MaskedFill.in_formula(Xlogy.in_formula(grad_output, y), at_edge, 0)
        if ctx.needs_input_grad[1]:
            grad_y = grad_output * x / y
        return grad_x, grad_y


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    product = x * np.log(y)
    return np.asarray(np.where((x == 0) & ~np.isnan(y), np.zeros((), product.dtype), product))


class XlogyNumberFirst(Xlogy):
    """``xlogy(number, tensor)``"""

    node_name = "XlogyBackward1"


class XlogyNumberSecond(Xlogy):
    """``xlogy(tensor, number)``"""

    node_name = "XlogyBackward2"


class Lerp(Elementwise):
    """f(a, b) = a + w·(b − a) for a number w;   ∂f/∂a = 1 − w,   ∂f/∂b = w"""

    node_name = "LerpBackward0"
    formula = r"f(a, b) = a + w\,(b - a) \qquad \frac{\partial f}{\partial a} = 1 - w, \quad \frac{\partial f}{\partial b} = w"

    @staticmethod
    @quietly  # inf - inf is nan, silently (as PyTorch)
    def forward(ctx, start, end, weight):
        ctx.weight = weight
        start, end = promote(start, end)
        return _lerp(start, end, np.asarray(weight, start.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * (1 - ctx.weight), grad_output * ctx.weight, None


class LerpTensorWeight(Function):
    """f(a, b, w) = a + w·(b − a);   ∂f/∂a = 1 − w,   ∂f/∂b = w,   ∂f/∂w = b − a"""

    node_name = "LerpBackward1"
    formula = r"f(a, b, w) = a + w\,(b - a) \qquad \frac{\partial f}{\partial a} = 1 - w, \quad \frac{\partial f}{\partial b} = w, \quad \frac{\partial f}{\partial w} = b - a"

    @staticmethod
    @quietly  # as Lerp
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight)
        return _lerp(start, end, weight)

    @staticmethod
    def backward(ctx, grad_output):
        start, end, weight = ctx.saved_tensors
        return grad_output * (1 - weight), grad_output * weight, grad_output * (end - start)

    @staticmethod
    def jvp(ctx, *tangents):
        start, end, weight = ctx.primals
        parts = (1 - weight, weight, end - start)
        total = None
        for part, tangent in zip(parts, tangents):
            if tangent is not None:
                total = part * tangent if total is None else total + part * tangent
        return total


def _lerp(start: np.ndarray, end: np.ndarray, weight) -> np.ndarray:
    """PyTorch's lerp: from ``start`` for weights below ½, from ``end`` above, so
    that weight 1 gives ``end`` exactly."""
    difference = end - start
    return np.asarray(
        np.where(np.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight))
    )


class Addcmul(Function):
    """f(s, a, b) = s + v·a·b for a number v;   ∂f/∂s = 1,   ∂f/∂a = v·b,   ∂f/∂b = v·a"""

    node_name = "AddcmulBackward0"
    formula = r"f(s, a, b) = s + v\,a\,b \qquad \frac{\partial f}{\partial s} = 1, \quad \frac{\partial f}{\partial a} = v\,b, \quad \frac{\partial f}{\partial b} = v\,a"

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.value = value
        ctx.save_for_backward(tensor1, tensor2)
        # In the three tensors' dtype, as PyTorch: for integers ``value`` is made an
        # integer too (addcmul(i, i, i, value=0.5) adds 0, and stays int64).
        dtype = common_dtype((input, tensor1, tensor2))
        if dtype == np.bool_:
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        scale = dtype.type(int(value) if dtype.kind in "iu" else value)
        product = tensor1.astype(dtype, copy=False) * tensor2.astype(dtype, copy=False)
        return np.asarray(input.astype(dtype, copy=False) + scale * product)

    @staticmethod
    def backward(ctx, grad_output):
        tensor1, tensor2 = ctx.saved_tensors
        return (
            grad_output,
            grad_output * tensor2 * ctx.value,
            grad_output * tensor1 * ctx.value,
            None,
        )

    @staticmethod
    def jvp(ctx, *tangents):
        _, tensor1, tensor2, value = ctx.primals
        total = tangents[0]
        for part, tangent in ((value * tensor2, tangents[1]), (value * tensor1, tangents[2])):
            if tangent is not None:
                total = part * tangent if total is None else total + part * tangent
        return total


class Addcdiv(Function):
    """f(s, a, b) = s + v·a/b for a number v;   ∂f/∂s = 1,   ∂f/∂a = v/b,
    ∂f/∂b = −v·a/b²"""

    node_name = "AddcdivBackward0"
    formula = r"f(s, a, b) = s + v\,\frac{a}{b} \qquad \frac{\partial f}{\partial s} = 1, \quad \frac{\partial f}{\partial a} = \frac{v}{b}, \quad \frac{\partial f}{\partial b} = -\frac{v\,a}{b^2}"

    @staticmethod
    @quietly  # a / 0 gives ±inf or nan, silently (as PyTorch)
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.value = value
        ctx.save_for_backward(tensor1, tensor2)
        dtype = common_dtype((input, tensor1, tensor2))  # int64 with float32: float32
        quotient = tensor1.astype(dtype) / tensor2.astype(dtype)
        return np.asarray(input.astype(dtype) + value * quotient)

    @staticmethod
    @quietly
    def backward(ctx, grad_output):
        tensor1, tensor2 = ctx.saved_tensors
        value = ctx.value
        # PyTorch's formulas, in its order of operations
        return (
            grad_output,
            grad_output * (value / tensor2),
            -grad_output * (value * tensor1 / (tensor2 * tensor2)),
            None,
        )

    @staticmethod
    @quietly
    def jvp(ctx, *tangents):
        _, tensor1, tensor2, value = ctx.primals
        total = tangents[0]
        parts = (
            (value / tensor2, tangents[1]),
            (-value * tensor1 / tensor2 / tensor2, tangents[2]),
        )
        for part, tangent in parts:
            if tangent is not None:
                total = part * tangent if total is None else total + part * tangent
        return total


def erf(input: Tensor) -> Tensor:
    """The error function elementwise: erf x = (2/√π) ∫₀ˣ e^(−t²) dt (GELU and the
    normal distribution's cumulative distribution function are built on it).

    >>> import autogradkit as torch
    >>> torch.erf(torch.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8427])
    """
    return Erf.apply(input)


def erfinv(input: Tensor) -> Tensor:
    """The inverse error function elementwise: the x with erf x = input, for input
    in (−1, 1); ±inf at ±1 and nan outside [−1, 1]. (``erfinv(2u − 1)·√2`` turns
    uniform numbers u into normal ones.)

    >>> import autogradkit as torch
    >>> torch.erfinv(torch.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.4769,   -inf])
    """
    return Erfinv.apply(input)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point (other, input) elementwise, in (−π, π]: the arctangent
    of input/other in the right quadrant."""
    _check_tensor_pair("atan2", input, other)
    return Atan2.apply(input, other)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """√(input² + other²) elementwise, without overflow for large values."""
    _check_tensor_pair("hypot", input, other)
    return Hypot.apply(input, other)


def xlogy(input, other) -> Tensor:
    """``input · log(other)`` elementwise, and 0 where ``input`` is 0 (so that
    0 · log 0 = 0, as in entropies); either may be a number.

    >>> import autogradkit as torch
    >>> torch.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    if not isinstance(input, Tensor):
        return XlogyNumberFirst.apply(input, other)
    if not isinstance(other, Tensor):
        return XlogyNumberSecond.apply(input, other)
    return Xlogy.apply(input, other)


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """Linear interpolation ``input + weight · (end − input)`` (weight a number or a
    tensor): ``input`` at weight 0, ``end`` at weight 1.

    >>> import autogradkit as torch
    >>> torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([1.0, 20.0]), 0.25)
    tensor([ 0.2500, 12.5000])
    """
    if not isinstance(end, Tensor):
        kind = "Tensor" if isinstance(weight, Tensor) else type(weight).__name__
        raise TypeError(
            "lerp() received an invalid combination of arguments - got (Tensor, "
            f"{type(end).__name__}, {kind}), but expected one of:\n"
            " * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
            " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n"
        )
    if input._data.dtype.kind != "f":
        name = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{scalar_type_name(input._data.dtype)}'"
        )
    if input._data.dtype != end._data.dtype:
        raise RuntimeError(
            f"expected dtype {scalar_type_name(input._data.dtype).lower()} for `end` but got "
            f"dtype {scalar_type_name(end._data.dtype).lower()}"
        )
    if isinstance(weight, Tensor):
        return LerpTensorWeight.apply(input, end, weight)
    return Lerp.apply(input, end, float(weight))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value · tensor1 · tensor2`` elementwise (broadcasting); optimisers
    use it for running averages of squared gradients.

    >>> import autogradkit as torch
    >>> torch.addcmul(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    for argument, position, operand in (("tensor1", 2, tensor1), ("tensor2", 3, tensor2)):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"addcmul(): argument '{argument}' (position {position}) must be Tensor, "
                f"not {type(operand).__name__}"
            )
    return Addcmul.apply(input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value · tensor1 / tensor2`` elementwise (broadcasting); Adam's step
    written out by hand is ``p.addcdiv_(exp_avg, denom, value=-step_size)``.

    >>> import autogradkit as torch
    >>> torch.addcdiv(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([4.0, 8.0]), value=2)
    tensor([1.5000, 1.5000])
    """
    for argument, position, operand in (("tensor1", 2, tensor1), ("tensor2", 3, tensor2)):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"addcdiv(): argument '{argument}' (position {position}) must be Tensor, "
                f"not {type(operand).__name__}"
            )
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(_INTEGER_ADDCDIV)
    return Addcdiv.apply(input, tensor1, tensor2, value)


_INTEGER_ADDCDIV = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes."
)


def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """Where ``|input − other| ≤ atol + rtol·|other|`` holds, elementwise, as a bool
    tensor (equal infinities are close; nan is close to nan with ``equal_nan``).
    Both must have the same dtype, as in PyTorch.

    >>> import autogradkit as torch
    >>> torch.isclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0 + 1e-7, 2.1]))
    tensor([ True, False])
    """
    _check_tensor_pair("isclose", input, other)
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{scalar_type_name(a.dtype)} did not match {scalar_type_name(b.dtype)}")
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return Tensor._make(np.asarray(close))
