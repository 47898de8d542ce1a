"""The elementary functions learners meet after ``exp`` and ``log``: trigonometric
and hyperbolic functions, their inverses, the other logarithms and exponentials,
and the rounding functions whose derivative is zero almost everywhere.

Every derivative is written with operators and NumPy functions only
(``np.cos(x)``, ``x * x``), so the same line runs on arrays in a plain backward
pass and on tensors in a ``create_graph=True`` pass: that is what makes second
derivatives of ``sin`` come out as ``-sin``.

>>> import autogradkit as torch
>>> x = torch.tensor(0.0, requires_grad=True)
>>> y = torch.sin(x)
>>> y
tensor(0., grad_fn=<SinBackward0>)
>>> (dy,) = torch.autograd.grad(y, x, create_graph=True)
>>> dy
tensor(1., grad_fn=<MulBackward0>)
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import scalar_type_name
from .._numpy_protocols import UFUNCS
from .._quiet_numpy import quietly
from ..autograd.function import Elementwise
from ..tensor import Tensor
from .arithmetic import _zeros_like
from .arithmetic import pow as _pow
from .pointwise import _float

__all__ = [
    "nan_to_num",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "exp2",
    "rsqrt",
    "square",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class Sin(Elementwise):
    """f(x) = sin x;   ∂f/∂x = cos x"""

    node_name = "SinBackward0"
    formula = r"f(x) = \sin x \qquad \frac{\partial f}{\partial x} = \cos x"

    @staticmethod
    @quietly  # sin(±inf) is nan, silently (as PyTorch)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.sin(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * np.cos(x)


class Cos(Elementwise):
    """f(x) = cos x;   ∂f/∂x = −sin x"""

    node_name = "CosBackward0"
    formula = r"f(x) = \cos x \qquad \frac{\partial f}{\partial x} = -\sin x"

    @staticmethod
    @quietly  # cos(±inf) is nan, silently (as PyTorch)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.cos(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -np.sin(x)  # grouped as PyTorch's formula


class Tan(Elementwise):
    """f(x) = tan x;   ∂f/∂x = 1 + tan²x"""

    node_name = "TanBackward0"
    formula = r"f(x) = \tan x \qquad \frac{\partial f}{\partial x} = 1 + \tan^2 x"

    @staticmethod
    @quietly  # tan(±inf) is nan, silently (as PyTorch)
    def forward(ctx, x):
        out = np.asarray(np.tan(_float(x)))  # an array for 0-d x, saved as the output
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (1 + out**2)  # as PyTorch's formula


class Asin(Elementwise):
    """f(x) = arcsin x;   ∂f/∂x = 1/√(1 − x²)"""

    node_name = "AsinBackward0"
    formula = r"f(x) = \arcsin x \qquad \frac{\partial f}{\partial x} = \frac{1}{\sqrt{1 - x^2}}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(invalid="ignore"):  # nan outside [-1, 1], as in PyTorch
            return np.arcsin(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * Rsqrt.in_formula(-x * x + 1)  # as PyTorch's formula


class Acos(Elementwise):
    """f(x) = arccos x;   ∂f/∂x = −1/√(1 − x²)"""

    node_name = "AcosBackward0"
    formula = r"f(x) = \arccos x \qquad \frac{\partial f}{\partial x} = -\frac{1}{\sqrt{1 - x^2}}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(invalid="ignore"):
            return np.arccos(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * -Rsqrt.in_formula(-x * x + 1)  # as PyTorch's formula


class Atan(Elementwise):
    """f(x) = arctan x;   ∂f/∂x = 1/(1 + x²)"""

    node_name = "AtanBackward0"
    formula = r"f(x) = \arctan x \qquad \frac{\partial f}{\partial x} = \frac{1}{1 + x^2}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.arctan(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (1 + x * x)


class Sinh(Elementwise):
    """f(x) = sinh x;   ∂f/∂x = cosh x"""

    node_name = "SinhBackward0"
    formula = r"f(x) = \sinh x \qquad \frac{\partial f}{\partial x} = \cosh x"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(over="ignore"):
            return np.sinh(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with np.errstate(over="ignore"):
            return grad_output * np.cosh(x)


class Cosh(Elementwise):
    """f(x) = cosh x;   ∂f/∂x = sinh x"""

    node_name = "CoshBackward0"
    formula = r"f(x) = \cosh x \qquad \frac{\partial f}{\partial x} = \sinh x"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(over="ignore"):
            return np.cosh(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with np.errstate(over="ignore"):
            return grad_output * np.sinh(x)


class Log1p(Elementwise):
    """f(x) = ln(1 + x), accurate for small x;   ∂f/∂x = 1/(1 + x)"""

    node_name = "Log1PBackward0"
    formula = r"f(x) = \ln(1 + x) \qquad \frac{\partial f}{\partial x} = \frac{1}{1 + x}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log1p(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with np.errstate(divide="ignore"):
            return grad_output / (1 + x)


class Expm1(Elementwise):
    """f(x) = eˣ − 1, accurate for small x;   ∂f/∂x = eˣ = f(x) + 1"""

    node_name = "Expm1Backward0"
    formula = r"f(x) = e^x - 1 \qquad \frac{\partial f}{\partial x} = e^x = f(x) + 1"

    @staticmethod
    def forward(ctx, x):
        with np.errstate(over="ignore"):
            out = np.asarray(np.expm1(_float(x)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (out + 1)


class Log2(Elementwise):
    """f(x) = log₂ x;   ∂f/∂x = 1/(x·ln 2)"""

    node_name = "Log2Backward0"
    formula = r"f(x) = \log_2 x \qquad \frac{\partial f}{\partial x} = \frac{1}{x \ln 2}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log2(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (x * _LN2)


class Log10(Elementwise):
    """f(x) = log₁₀ x;   ∂f/∂x = 1/(x·ln 10)"""

    node_name = "Log10Backward0"
    formula = r"f(x) = \log_{10} x \qquad \frac{\partial f}{\partial x} = \frac{1}{x \ln 10}"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log10(_float(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (x * _LN10)


class Exp2(Elementwise):
    """f(x) = 2ˣ;   ∂f/∂x = 2ˣ·ln 2"""

    node_name = "Exp2Backward0"
    formula = r"f(x) = 2^x \qquad \frac{\partial f}{\partial x} = 2^x \ln 2"

    @staticmethod
    def forward(ctx, x):
        with np.errstate(over="ignore"):
            out = np.asarray(np.exp2(_float(x)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out * _LN2


class Rsqrt(Elementwise):
    """f(x) = 1/√x;   ∂f/∂x = −½·x^(−3/2) = −½·f(x)³"""

    node_name = "RsqrtBackward0"
    formula = (
        r"f(x) = \frac{1}{\sqrt{x}} \qquad \frac{\partial f}{\partial x} = -\frac{1}{2} x^{-3/2}"
    )

    @staticmethod
    def forward(ctx, x):
        x = _float(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.asarray(1 / np.sqrt(x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return -0.5 * grad_output * out**3  # as PyTorch's formula


class _ZeroGradient(Elementwise):
    """A piecewise-constant function: its derivative is 0 wherever it exists, and
    PyTorch (like every autograd) uses 0 at the jumps too. The zero gradient is a
    constant, as PyTorch's ``zeros_like(grad)``: 0 even where the gradient from above
    is inf or nan (grad · 0 would be nan), and no graph under create_graph."""

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output)


class Sign(_ZeroGradient):
    """f(x) = sign x ∈ {−1, 0, 1};   ∂f/∂x = 0"""

    node_name = "SignBackward0"
    formula = r"f(x) = \operatorname{sign} x \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind == "b":
            return x.copy()  # a bool is its own sign (NumPy has no sign for bools)
        return np.nan_to_num(np.sign(x), nan=0.0)  # sign(nan) is 0 in PyTorch


def _rounded(rounding, x: np.ndarray) -> np.ndarray:
    """``rounding(x)`` for floats; an integer tensor is already whole, so it comes
    back as a copy (the result owns its memory, as PyTorch's does). PyTorch has no
    rounding kernel for bools."""
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{rounding.__name__}_vml_cpu\" not implemented for 'Bool'")
    return rounding(x) if x.dtype.kind == "f" else x.copy()


class Floor(_ZeroGradient):
    """f(x) = ⌊x⌋;   ∂f/∂x = 0"""

    node_name = "FloorBackward0"
    formula = r"f(x) = \lfloor x \rfloor \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        return _rounded(np.floor, x)


class Ceil(_ZeroGradient):
    """f(x) = ⌈x⌉;   ∂f/∂x = 0"""

    node_name = "CeilBackward0"
    formula = r"f(x) = \lceil x \rceil \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        return _rounded(np.ceil, x)


class Trunc(_ZeroGradient):
    """f(x) = x rounded towards 0;   ∂f/∂x = 0"""

    node_name = "TruncBackward0"
    formula = r"f(x) = \operatorname{trunc} x \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        return _rounded(np.trunc, x)


class Round(_ZeroGradient):
    """f(x) = x rounded to the nearest integer (halves to even);   ∂f/∂x = 0"""

    node_name = "RoundBackward0"
    formula = r"f(x) = \operatorname{round} x \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        return _rounded(np.round, x)


class RoundDecimals(_ZeroGradient):
    """f(x) = x rounded to ``decimals`` decimal places;   ∂f/∂x = 0"""

    node_name = "RoundBackward1"
    formula = r"f(x) = \operatorname{round}(x, d) \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x, decimals):
        return np.round(x, decimals)

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output), None


class Frac(Elementwise):
    """f(x) = x − trunc x;   ∂f/∂x = 1"""

    node_name = "FracBackward0"
    formula = r"f(x) = x - \operatorname{trunc} x \qquad \frac{\partial f}{\partial x} = 1"

    @staticmethod
    @quietly  # inf - trunc(inf) is nan, silently
    def forward(ctx, x):
        if x.dtype.kind != "f":  # (PyTorch has no integer kernel: nothing to take off)
            raise NotImplementedError(
                f"\"frac_cpu\" not implemented for '{scalar_type_name(x.dtype)}'"
            )
        return x - np.trunc(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def sin(input: Tensor) -> Tensor:
    """Sine elementwise (radians)."""
    return Sin.apply(input)


def cos(input: Tensor) -> Tensor:
    """Cosine elementwise (radians)."""
    return Cos.apply(input)


def tan(input: Tensor) -> Tensor:
    """Tangent elementwise (radians)."""
    return Tan.apply(input)


def asin(input: Tensor) -> Tensor:
    """Inverse sine elementwise (``nan`` outside [−1, 1])."""
    return Asin.apply(input)


def acos(input: Tensor) -> Tensor:
    """Inverse cosine elementwise (``nan`` outside [−1, 1])."""
    return Acos.apply(input)


def atan(input: Tensor) -> Tensor:
    """Inverse tangent elementwise."""
    return Atan.apply(input)


def sinh(input: Tensor) -> Tensor:
    """Hyperbolic sine elementwise."""
    return Sinh.apply(input)


def cosh(input: Tensor) -> Tensor:
    """Hyperbolic cosine elementwise."""
    return Cosh.apply(input)


def log1p(input: Tensor) -> Tensor:
    """ln(1 + x) elementwise, accurate when x is small."""
    return Log1p.apply(input)


def expm1(input: Tensor) -> Tensor:
    """eˣ − 1 elementwise, accurate when x is small."""
    return Expm1.apply(input)


def log2(input: Tensor) -> Tensor:
    """Base-2 logarithm elementwise."""
    return Log2.apply(input)


def log10(input: Tensor) -> Tensor:
    """Base-10 logarithm elementwise."""
    return Log10.apply(input)


def exp2(input: Tensor) -> Tensor:
    """2ˣ elementwise."""
    return Exp2.apply(input)


def rsqrt(input: Tensor) -> Tensor:
    """1/√x elementwise."""
    return Rsqrt.apply(input)


def square(input: Tensor) -> Tensor:
    """x² elementwise; recorded as ``pow(x, 2)`` (``PowBackward0``), as PyTorch does."""
    return _pow(input, 2)


def sign(input: Tensor) -> Tensor:
    """−1, 0 or 1 elementwise; its gradient is 0."""
    return Sign.apply(input)


def floor(input: Tensor) -> Tensor:
    """Round down elementwise; its gradient is 0."""
    return Floor.apply(input)


def ceil(input: Tensor) -> Tensor:
    """Round up elementwise; its gradient is 0."""
    return Ceil.apply(input)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round to the nearest integer (halves to even) or to ``decimals`` places;
    its gradient is 0."""
    if decimals:
        return RoundDecimals.apply(input, decimals)
    return Round.apply(input)


def trunc(input: Tensor) -> Tensor:
    """Round towards zero elementwise; its gradient is 0."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"trunc_vml_cpu\" not implemented for 'Bool'")
    return Trunc.apply(input)


class NanToNum(Elementwise):
    """f(x) = x with nan, +inf and −inf replaced by numbers (by default 0 and the
    dtype's largest and smallest finite values);   ∂f/∂x = 1 where x is finite,
    else 0 (PyTorch multiplies the gradient by that mask)"""

    node_name = "NanToNumBackward0"
    formula = r"f(x) = \begin{cases} x & x \text{ finite} \\ c & \text{otherwise} \end{cases} \qquad \frac{\partial f}{\partial x} = [x \text{ finite}]"

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.save_for_backward(x)
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        finite = np.isfinite(x._data if isinstance(x, Tensor) else x)
        return grad_output * finite, None, None, None  # (inf · 0 is nan, as PyTorch's)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf=None, neginf=None) -> Tensor:
    """``input`` with nan, +inf and −inf replaced: by ``nan`` (0), ``posinf`` and
    ``neginf`` (by default the largest and smallest finite values of the dtype).
    Integer and bool tensors have none: they come back as a copy.

    >>> import autogradkit as torch
    >>> torch.nan_to_num(torch.tensor([float("nan"), float("inf"), 1.5]), posinf=9.0)
    tensor([0.0000, 9.0000, 1.5000])
    """
    return NanToNum.apply(input, nan, posinf, neginf)


def frac(input: Tensor) -> Tensor:
    """The fractional part x − trunc(x), elementwise; its gradient is 1."""
    return Frac.apply(input)


# NumPy functions a create_graph pass may call on tensors (np.cos in Sin.backward,
# ...) run these operations, so their derivatives are recorded too.
UFUNCS.update(
    {
        np.sin: sin,
        np.cos: cos,
        np.tan: tan,
        np.arcsin: asin,
        np.arccos: acos,
        np.arctan: atan,
        np.sinh: sinh,
        np.cosh: cosh,
        np.log1p: log1p,
        np.expm1: expm1,
        np.log2: log2,
        np.log10: log10,
        np.exp2: exp2,
        np.floor: floor,
        np.ceil: ceil,
        np.trunc: trunc,
    }
)
