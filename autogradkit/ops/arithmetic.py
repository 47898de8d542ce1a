"""Arithmetic: ``+ - * / ** // %``, ``fmod``, rounded ``div``, negation and reciprocal.

Each class states its derivative in its docstring. Broadcasting needs no care
here: when ``x`` of shape (3,) was added to ``y`` of shape (2, 3), ``backward``
returns a (2, 3) gradient for ``x`` too and the base class sums it back to (3,).
"""

from __future__ import annotations

import operator
from math import hypot
from typing import Any

import numpy as np
from numpy import add as _add  # (np.add read per sum would cost ~370 instructions)
from numpy import ndarray

from .. import _operators
from .._dtype import default_float
from .._numpy_protocols import UFUNCS
from .._quiet_numpy import MODERATE, arithmetic, run_quietly, silently
from ..autograd.function import Elementwise, Function, Linear
from ..tensor import Tensor
from ._promotion import promote, promote_for_arithmetic, promoted_arithmetic, result_dtype
from .where import Where, select

__all__ = [
    "add",
    "sub",
    "rsub",
    "mul",
    "div",
    "neg",
    "pow",
    "reciprocal",
    "remainder",
    "fmod",
    "floor_divide",
]


def broadcast_error(x, y) -> RuntimeError:
    """PyTorch's message for operands whose shapes cannot be broadcast together."""
    a, b = np.shape(x), np.shape(y)
    for offset in range(1, max(len(a), len(b)) + 1):
        m = a[-offset] if offset <= len(a) else 1
        n = b[-offset] if offset <= len(b) else 1
        if m != n and m != 1 and n != 1:
            dim = max(len(a), len(b)) - offset
            return RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {dim}"
            )
    return RuntimeError(f"shapes {list(a)} and {list(b)} cannot be broadcast together")


class BinaryFunction(Elementwise):
    """A two-operand elementwise operation: operands are promoted to PyTorch's result
    dtype and a Python number operand counts as an input (``a + 2`` has two
    ``next_functions``, the second ``(None, 0)``)."""

    scalars_are_inputs = True

    @classmethod
    def forward_error(cls, arrays, error):
        if "broadcast" in str(error):
            return broadcast_error(arrays[0], arrays[1])
        return None


class Add(BinaryFunction):
    """f(x, y) = x + y;   ∂f/∂x = 1,   ∂f/∂y = 1"""

    node_name = "AddBackward0"
    scalar_node_name = "AddBackward1"
    formula = r"f(x, y) = x + y \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = 1"

    @staticmethod
    def forward(ctx, x, y):
        if type(y) is ndarray and type(x) is ndarray and x.dtype is y.dtype and x.ndim and y.ndim:
            # Two tensors of one dtype, neither 0-d (``s + a @ m``): nothing to
            # promote, so what promoted_arithmetic would do, without its checks
            # and calls (Add.apply of two 3×3 tensors: 27.2k -> 24.9k instructions),
            # silently (inf + -inf is nan). numpy_quietly written out: a Python
            # call less, ~700 instructions of each such sum (callgrind).
            try:
                return run_quietly(_add, x, y)
            except RuntimeError:  # the quiet context is in use by another thread
                return silently(_add, x, y)
        return promoted_arithmetic(operator.add, x, y)  # inf + -inf is nan without NumPy's warning

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class AddScaled(BinaryFunction):
    """f(x, y) = x + α·y for a number α (``torch.add(x, y, alpha=α)``);
    ∂f/∂x = 1,   ∂f/∂y = α.   One node, as in PyTorch (α is not an input)."""

    node_name = "AddBackward0"
    formula = r"f(x, y) = x + \alpha y \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = \alpha"

    @staticmethod
    def forward(ctx, x, y, alpha):
        (ctx.alpha,) = alpha
        x, y = promote_for_arithmetic(x, y)
        return arithmetic(operator.add, x, arithmetic(operator.mul, ctx.alpha, y))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, (grad_output * ctx.alpha if ctx.needs_input_grad[1] else None), None


class SubScaled(BinaryFunction):
    """f(x, y) = x − α·y for a number α (``torch.sub(x, y, alpha=α)``);
    ∂f/∂x = 1,   ∂f/∂y = −α"""

    node_name = "SubBackward0"
    formula = r"f(x, y) = x - \alpha y \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = -\alpha"

    @staticmethod
    def forward(ctx, x, y, alpha):
        (ctx.alpha,) = alpha
        refuse_bool_subtraction(x, y)
        x, y = promote_for_arithmetic(x, y)
        return arithmetic(operator.sub, x, arithmetic(operator.mul, ctx.alpha, y))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, (grad_output * -ctx.alpha if ctx.needs_input_grad[1] else None), None


class Sub(BinaryFunction):
    """f(x, y) = x − y;   ∂f/∂x = 1,   ∂f/∂y = −1"""

    node_name = "SubBackward0"
    scalar_node_name = "SubBackward1"
    formula = r"f(x, y) = x - y \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = -1"

    @staticmethod
    def forward(ctx, x, y):
        refuse_bool_subtraction(x, y)
        return promoted_arithmetic(operator.sub, x, y)  # inf - inf is nan without NumPy's warning

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, (-grad_output if ctx.needs_input_grad[1] else None)


class Rsub(Elementwise):
    """f(x) = c − x for a number c (``2 - a``);   ∂f/∂x = −1"""

    node_name = "RsubBackward1"
    formula = r"f(x) = c - x \qquad \frac{\partial f}{\partial x} = -1"

    @staticmethod
    def forward(ctx, x, c):
        refuse_bool_subtraction(c, x)
        x, c = promote_for_arithmetic(x, c)
        return arithmetic(operator.sub, c, x)

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output, None


class Mul(BinaryFunction):
    """f(x, y) = x·y;   ∂f/∂x = y,   ∂f/∂y = x"""

    node_name = "MulBackward0"
    saved_order = (1, 0)  # PyTorch packs other, then self
    scalar_node_name = "MulBackward1"
    formula = r"f(x, y) = x \cdot y \qquad \frac{\partial f}{\partial x} = y, \quad \frac{\partial f}{\partial y} = x"

    @staticmethod
    def forward(ctx, x, y):
        # Save the operands themselves, not promoted copies: the engine recognises
        # saved inputs by identity (to check their version and, in a create_graph
        # pass, to differentiate through them). Each is needed only for the other's
        # gradient, so only then is it kept.
        needs_x, needs_y = ctx.needs_input_grad
        ctx.save_for_backward(x if needs_y else None, y if needs_x else None)
        return promoted_arithmetic(operator.mul, x, y)  # 0 * inf is nan without NumPy's warning

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_x = grad_output * y if ctx.needs_input_grad[0] else None
        grad_y = grad_output * x if ctx.needs_input_grad[1] else None
        return grad_x, grad_y


def _zero_d_quotient(x: Any, number: float) -> np.ndarray | None:
    """``x / number`` for a 0-d float array ``x``, computed on its NumPy scalar
    (``t / 2`` on a 0-d tensor: 47k -> 36k instructions recorded, most of it the
    error state that array division sets), where it cannot warn: both below
    MODERATE in magnitude (finite, and the quotient below float32's largest value
    for a divisor above 1/MODERATE) and the divisor no zero. None otherwise: the
    general path then divides, silently."""
    if type(x) is not np.ndarray or x.ndim or x.dtype.kind != "f":
        return None
    scalar = x[()]
    if hypot(scalar, number) < MODERATE and abs(number) > 1 / MODERATE:
        return np.asarray(scalar / number)
    return None


class Div(BinaryFunction):
    """f(x, y) = x / y;   ∂f/∂x = 1/y,   ∂f/∂y = −x/y²"""

    node_name = "DivBackward0"
    saved_order = (1, 0)  # PyTorch packs other, then self
    scalar_node_name = "DivBackward1"
    formula = r"f(x, y) = \frac{x}{y} \qquad \frac{\partial f}{\partial x} = \frac{1}{y}, \quad \frac{\partial f}{\partial y} = -\frac{x}{y^2}"

    @staticmethod
    def forward(ctx, x, y):
        # The operands themselves (see Mul); x only matters for y's gradient.
        ctx.save_for_backward(x if ctx.needs_input_grad[1] else None, y)
        if type(y) is float or type(y) is int:
            quotient = _zero_d_quotient(x, y)
            if quotient is not None:
                return quotient
        x, y = promote(x, y)
        if isinstance(x, np.ndarray) and x.dtype.kind != "f":
            x = x.astype(default_float().numpy)  # integer division: the default float dtype
            if isinstance(y, np.ndarray) and y.dtype.kind != "f":
                y = y.astype(default_float().numpy)  # int / int: not NumPy's float64
        return arithmetic(operator.truediv, x, y)  # x/0 is ±inf or nan, silently

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        grad_x = grad_output / y if ctx.needs_input_grad[0] else None
        # −g·((x/y)/y), grouped as PyTorch's formula (its graph under create_graph).
        grad_y = -grad_output * ((x / y) / y) if ctx.needs_input_grad[1] else None
        return grad_x, grad_y


class Neg(Elementwise):
    """f(x) = −x;   ∂f/∂x = −1"""

    node_name = "NegBackward0"
    formula = r"f(x) = -x \qquad \frac{\partial f}{\partial x} = -1"

    @staticmethod
    def forward(ctx, x):
        if x.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -x

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output


def _is_bool(value) -> bool:
    if type(value) is np.ndarray:
        return value.dtype == np.bool_
    return isinstance(value, (bool, np.bool_))


def _values_of(operand):
    return operand._data if isinstance(operand, Tensor) else operand


def refuse_bool_subtraction(x, y) -> None:
    """PyTorch's refusals of ``-`` on bools (NumPy's words name NumPy)."""
    bools = [_is_bool(x), _is_bool(y)]
    if not any(bools):
        return
    if all(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if any(bools):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class Reciprocal(Elementwise):
    """f(x) = 1/x;   ∂f/∂x = −1/x² = −f(x)²"""

    node_name = "ReciprocalBackward0"
    formula = r"f(x) = \frac{1}{x} \qquad \frac{\partial f}{\partial x} = -\frac{1}{x^2}"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind != "f":
            x = x.astype(default_float().numpy)
        with np.errstate(all="ignore"):  # 1/0 and 1/subnormal are inf, silently
            out = np.asarray(1 / x)  # an array even for 0-d x, so it is saved as the output
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return -grad_output * (out * out)  # grouped as PyTorch's formula


class Pow(Elementwise):
    """f(x) = xⁿ for a number n;   ∂f/∂x = n·xⁿ⁻¹"""

    node_name = "PowBackward0"
    formula = r"f(x) = x^n \qquad \frac{\partial f}{\partial x} = n\,x^{n-1}"

    @staticmethod
    def forward(ctx, x, exponent):
        if x.dtype.kind != "f" and isinstance(exponent, float):
            x = x.astype(default_float().numpy)
        elif x.dtype.kind == "b" and isinstance(exponent, bool):
            return x.copy() if exponent else np.ones_like(x)  # x ** True, x ** False: bools
        elif x.dtype.kind == "b":  # bool ** int is int64 (NumPy's would be int8)
            x = x.astype(np.int64)
        if x.dtype.kind in "iu" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        with np.errstate(all="ignore"):  # 0 ** -1 and overflow are inf, as in PyTorch
            return _power(x, exponent)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        n = ctx.exponent
        if n == 0:
            # x⁰ is constant: exactly 0, even where grad_output is inf (PyTorch).
            return select(np.zeros(grad_output.shape, dtype=bool), grad_output), None
        return grad_output * (n * _power(x, n - 1)), None


def _power(x, n):
    """xⁿ for a number n as PyTorch computes it: n = ½ and n = −½ go through the
    square root, so (−0)^(−½) = 1/√(−0) = −∞ and (−∞)^½ = nan, where NumPy's power
    gives +∞ and +∞. (A tensor, in a create_graph pass, goes through Pow itself.)"""
    if isinstance(x, Tensor):
        return x**n
    if n == 0.5:
        return np.sqrt(x)
    if n == -0.5:
        return 1 / np.sqrt(x)
    return x**n


class PowTensor(BinaryFunction):
    """f(x, y) = xʸ (both tensors);   ∂f/∂x = y·xʸ⁻¹,   ∂f/∂y = xʸ·ln x"""

    node_name = "PowBackward1"
    saved_order = (1, 0, 2)  # PyTorch: exponent, self, result
    formula = r"f(x, y) = x^y \qquad \frac{\partial f}{\partial x} = y\,x^{y-1}, \quad \frac{\partial f}{\partial y} = x^y \ln x"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        xp, yp = promote(x, y)
        if xp.dtype.kind == "b":
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        with np.errstate(all="ignore"):  # 0 ** -1, nan and overflow, silently
            out = np.asarray(_integer_power(xp, yp) if xp.dtype.kind == "i" else xp**yp)
        ctx.save_for_backward(x, y, out)  # the operands themselves (see Mul)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, y, out = ctx.saved_tensors
        grad_x = grad_y = None
        # PyTorch's formulas, grouped as they are. Each selects 0 where its limit
        # says so (where, not a product: the branch not taken may be ∞ or nan).
        with np.errstate(divide="ignore", invalid="ignore"):
            if ctx.needs_input_grad[0]:
                # 0 where y = 0, also at x = 0 where y·x^(y−1) would be 0·∞.
                grad_x = Where.in_formula(_values(y) == 0, 0, grad_output * (y * x ** (y - 1)))
            if ctx.needs_input_grad[1]:
                # 0 where x = 0 and y ≥ 0 (the limit of xʸ·ln x); where x = 0 and
                # y < 0 it is xʸ·ln x = ∞·(−∞) = −∞.
                zero_limit = (_values(x) == 0) & (_values(y) >= 0)
                grad_y = grad_output * Where.in_formula(zero_limit, 0, out * np.log(x))
        return grad_x, grad_y


def _integer_power(x, y) -> np.ndarray:
    """xʸ for integers as PyTorch computes it (its ``powi``): a negative exponent
    gives 1 for x = 1, ±1 for x = −1 (by the parity of y) and 0 for any other x,
    as integer division would; NumPy refuses negative integer powers."""
    negative = np.asarray(y) < 0
    if not negative.any():
        return np.asarray(x**y)
    powers = x ** np.where(negative, 0, y)
    inverse = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
    return np.where(negative, inverse, powers).astype(np.result_type(x, y))


class RPow(Elementwise):
    """f(y) = cʸ for a number c (``2 ** a``);   ∂f/∂y = cʸ·ln c"""

    node_name = "PowBackward2"
    formula = r"f(y) = c^y \qquad \frac{\partial f}{\partial y} = c^y \ln c"

    @staticmethod
    def forward(ctx, base, y):
        if y.dtype.kind == "b" and isinstance(base, bool):  # (bool ** bool stays bool)
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        if y.dtype.kind != "f" and isinstance(base, float):
            y = y.astype(default_float().numpy)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            integers = y.dtype.kind == "i" and isinstance(base, int)
            out = _integer_power(np.int64(base), y) if integers else np.asarray(base**y)
        ctx.save_for_backward(out)
        with np.errstate(divide="ignore", invalid="ignore"):
            ctx.log_base = np.log(base)  # -inf for 0, nan for negative bases
        # 0ʸ: PyTorch defines the gradient as 0 where y ≥ 0 (the limit of cʸ·ln c);
        # where y < 0 it is ∞·(−∞) = −∞.
        ctx.zero_limit = (y >= 0) if base == 0 else None
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        grad = grad_output * (out * ctx.log_base)  # grouped as PyTorch's formula
        if ctx.zero_limit is not None:
            grad = select(~ctx.zero_limit, grad)
        return None, grad


def _values(x):
    """The array inside ``x`` (a tensor during a create_graph pass, else an array)."""
    return x._data if isinstance(x, Tensor) else x


def _check_integer_divisor(dividend, divisor, kernel: str = "div_floor_cpu") -> None:
    """Integer ``//``, ``%``, ``fmod`` and rounded ``div`` by zero: PyTorch raises
    where NumPy gives 0 with a RuntimeWarning (floats divide to ±inf or nan in
    both). Two bools: PyTorch has no such kernel (NumPy would compute in int8)."""
    kind = np.result_type(dividend, divisor).kind
    if kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if kind in "iu" and not np.all(divisor):
        raise RuntimeError("ZeroDivisionError")


def _trunc_divide(x, y):
    """x / y rounded towards 0, as PyTorch's ``div(rounding_mode='trunc')``: for
    floats trunc(x / y); for integers exactly (no detour through floats), the
    floor quotient moved up by one where it was rounded down below 0."""
    if np.result_type(x, y).kind == "f":
        return np.trunc(np.true_divide(x, y))
    quotient = np.floor_divide(x, y)
    return quotient + ((np.remainder(x, y) != 0) & (np.less(x, 0) != np.less(y, 0)))


def _zeros_like(grad_output):
    """A zero gradient of ``grad_output``'s shape, as PyTorch's ``zeros_like(grad)``:
    0 even where the gradient from above is inf or nan, and a constant (no graph)
    in a create_graph pass."""
    if isinstance(grad_output, Tensor):
        return Tensor._make(np.zeros_like(grad_output._data))
    return np.zeros_like(grad_output)


def _remainder(x, y) -> np.ndarray:
    """x mod y with the sign of y. Floats as PyTorch's kernel computes them: fmod,
    then y added where the signs differ, so a zero remainder keeps x's sign (-2.0 % 1
    is -0.0, printed "-0."; NumPy's remainder gives 0.0). Integers as Python's %."""
    with np.errstate(all="ignore"):
        if np.result_type(x, y).kind != "f":
            return np.asarray(np.remainder(x, y))
        mod = np.fmod(x, y)
        return np.asarray(np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod))


class Remainder(Elementwise):
    """f(x) = x mod c for a number c (``x % 3``, the sign of c as in Python);
    ∂f/∂x = 1 (away from the jumps)"""

    node_name = "RemainderBackward0"
    formula = r"f(x) = x \bmod c \qquad \frac{\partial f}{\partial x} = 1"

    @staticmethod
    def forward(ctx, x, c):
        x, c = promote(x, c)
        _check_integer_divisor(x, c, "remainder_cpu")
        return _remainder(x, c)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class RemainderTensor(BinaryFunction):
    """f(x, y) = x mod y (both tensors);   ∂f/∂x = 1,   ∂f/∂y = −⌊x/y⌋"""

    node_name = "RemainderBackward1"
    formula = r"f(x, y) = x \bmod y \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = -\lfloor x / y \rfloor"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        # The operands themselves (see Mul): y's gradient divides them again.
        ctx.save_for_backward(*((x, y) if ctx.needs_input_grad[1] else ()))
        x, y = promote(x, y)
        _check_integer_divisor(x, y, "remainder_cpu")
        return _remainder(x, y)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.needs_input_grad[1]:
            return grad_output, None
        x, y = ctx.saved_tensors  # ⌊x/y⌋ as PyTorch's formula: a node under create_graph
        return grad_output, -grad_output * DivRounded.in_formula(x, y, "floor")


class Fmod(Elementwise):
    """f(x) = x − c·trunc(x/c) for a number c (``torch.fmod(x, 3)``: the remainder
    with the sign of x, as C's fmod);   ∂f/∂x = 1 (away from the jumps)"""

    node_name = "FmodBackward0"
    formula = r"f(x) = x - c \operatorname{trunc}(x / c) \qquad \frac{\partial f}{\partial x} = 1"

    @staticmethod
    def forward(ctx, x, c):
        x, c = promote(x, c)
        _check_integer_divisor(x, c, "fmod_cpu")
        with np.errstate(all="ignore"):
            return np.asarray(np.fmod(x, c))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class FmodTensor(BinaryFunction):
    """f(x, y) = x − y·trunc(x/y) (both tensors);   ∂f/∂x = 1,   ∂f/∂y = −trunc(x/y)"""

    node_name = "FmodBackward1"
    formula = r"f(x, y) = x - y \operatorname{trunc}(x / y) \qquad \frac{\partial f}{\partial x} = 1, \quad \frac{\partial f}{\partial y} = -\operatorname{trunc}(x / y)"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(*((x, y) if ctx.needs_input_grad[1] else ()))  # see Remainder
        x, y = promote(x, y)
        _check_integer_divisor(x, y, "fmod_cpu")
        with np.errstate(all="ignore"):
            return np.asarray(np.fmod(x, y))

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.needs_input_grad[1]:
            return grad_output, None
        x, y = ctx.saved_tensors
        return grad_output, -grad_output * DivRounded.in_formula(x, y, "trunc")


class DivRounded(BinaryFunction):
    """f(x, y) = x / y rounded as ``rounding_mode`` says (``torch.div(x, y,
    rounding_mode=...)``): ⌊x/y⌋ for ``'floor'``, trunc(x/y) for ``'trunc'``, x/y for
    None;   ∂f/∂x = ∂f/∂y = 0 when rounded (a step function: PyTorch's gradient is
    zero), else those of x / y"""

    node_name = "DivBackward2"
    formula = r"f(x, y) = \lfloor x / y \rfloor \text{ or } \operatorname{trunc}(x / y) \qquad \frac{\partial f}{\partial x} = 0, \quad \frac{\partial f}{\partial y} = 0"

    @staticmethod
    def forward(ctx, x, y, rounding_mode):
        ctx.rounding_mode = rounding_mode
        if rounding_mode is None:
            return Div.forward(ctx, x, y)
        x, y = promote(x, y)
        _check_integer_divisor(x, y, f"div_{rounding_mode}_cpu")
        with np.errstate(all="ignore"):  # x/0 is ±inf or nan; int64 min // -1 wraps
            if rounding_mode == "floor":
                return np.asarray(np.floor_divide(x, y))
            return np.asarray(_trunc_divide(x, y))

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.rounding_mode is None:
            return (*Div.backward(ctx, grad_output), None)
        grad_x = _zeros_like(grad_output) if ctx.needs_input_grad[0] else None
        grad_y = _zeros_like(grad_output) if ctx.needs_input_grad[1] else None
        return grad_x, grad_y, None


class NotDifferentiable(Function):
    """An operation PyTorch has no derivative for (``x // 2``, ``2 % x``): its node is
    named ``NotImplemented`` and backward through it raises, as in PyTorch."""

    node_name = "NotImplemented"
    formula = r"f(x, y) = \lfloor x / y \rfloor \text{ or } c \bmod y \qquad \frac{\partial f}{\partial x} \text{ not implemented (PyTorch has none)}"
    scalars_are_inputs = False

    @staticmethod
    def forward(ctx, ufunc, aten_name, x, y):
        ctx.aten_name = aten_name
        x, y = promote(x, y)
        _check_integer_divisor(x, y, _CPU_KERNELS[aten_name])
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(x, y))

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError(f"derivative for aten::{ctx.aten_name} is not implemented")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            f"Trying to use forward AD with aten::{ctx.aten_name} that does not support it."
        )


# PyTorch's names of the kernels behind // and %, which its refusal of bools names.
_CPU_KERNELS = {"floor_divide": "div_floor_cpu", "remainder": "remainder_cpu"}


def _not_implemented_name(node) -> str:
    # PyTorch's C++ node class: torch::autograd::NotImplemented.
    return "autogradkit::autograd::NotImplemented"


NotDifferentiable._node_class.name = _not_implemented_name  # type: ignore[method-assign,assignment]


class ZerosLike(Linear):
    """f(x) = 0 (what ``x.zero_()`` records on a tensor in a graph);   ∂f/∂x = 0"""

    node_name = "ZeroBackward0"
    formula = r"f(x) = 0 \qquad \frac{\partial f}{\partial x} = 0"

    @staticmethod
    def forward(ctx, x):
        return np.zeros_like(x)

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros_like(grad_output)  # a constant, as PyTorch's zeros_like(grad)


def _as_tensor(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from .._creation import tensor

    return tensor(value)


def _check_operand(value, name: str = "other"):
    if isinstance(value, (Tensor, int, float, bool, np.ndarray, np.generic)):
        if isinstance(value, np.ndarray):
            return _as_tensor(value)
        if isinstance(value, np.generic):
            # PyTorch treats a NumPy scalar like the Python number it holds: 'weak',
            # so float32 * np.float64(2) stays float32 (NumPy would give float64).
            return value.item()
        return value
    raise TypeError(
        f"unsupported operand: expected a Tensor or a number for '{name}', got {type(value).__name__}"
    )


def add(input, other, *, alpha=1) -> Tensor:
    """``input + alpha * other``, broadcasting.

    >>> import autogradkit as torch
    >>> torch.add(torch.tensor([1., 2.]), 10)
    tensor([11., 12.])
    """
    other = _check_operand(other)
    if alpha.__class__ is not int or alpha != 1:
        alpha = check_alpha("add", alpha, input, other)
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            return AddScaled.apply(input, other, (alpha,))  # one AddBackward0, as in PyTorch
        other = _scaled(other, alpha)
    if not isinstance(input, Tensor):
        input, other = other, _check_operand(input, "input")
    return Add.apply(input, other)


def sub(input, other, *, alpha=1) -> Tensor:
    """``input - alpha * other``, broadcasting."""
    other = _check_operand(other)
    if alpha.__class__ is not int or alpha != 1:
        refuse_bool_subtraction(_values_of(input), _values_of(other))  # before alpha's checks
        alpha = check_alpha("sub", alpha, input, other)
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            return SubScaled.apply(input, other, (alpha,))  # one SubBackward0, as in PyTorch
        other = _scaled(other, alpha)
    if not isinstance(input, Tensor):
        return rsub(other, input)
    return Sub.apply(input, other)


def check_alpha(name: str, alpha, input, other):
    """PyTorch's checks of ``alpha`` in ``add``/``sub`` (its ``alpha_check``, against
    the dtype of the result), returning alpha as the number to scale by: a bool
    for a bool result, where PyTorch computes ``input OR (other AND alpha)``."""
    alpha = alpha_number(name, alpha)
    dtype = result_dtype(_values_of(input), _values_of(other))
    if isinstance(alpha, bool) and dtype != np.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype.kind not in "fc" and not isinstance(alpha, int):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if dtype.kind != "c" and isinstance(alpha, complex):
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )
    return bool(alpha) if dtype == np.bool_ else alpha


def alpha_number(name: str, alpha):
    """``alpha`` as a Python number, or PyTorch's TypeError for anything else."""
    if isinstance(alpha, Tensor):
        alpha = alpha.item()  # PyTorch takes a one-element tensor as its number
    elif isinstance(alpha, (np.bool_, np.integer)):
        alpha = int(alpha)  # NumPy scalars are numbers of their kind (a NumPy bool: 0 or 1)
    elif isinstance(alpha, np.floating):
        alpha = float(alpha)
    if not isinstance(alpha, (int, float, complex)):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if type(alpha) is int and not -(2**63) <= alpha < 2**63:
        raise OverflowError("int too big to convert")
    return alpha


def _scaled(other, alpha):
    """``alpha * other`` for :func:`add`/:func:`sub`; bools stay bools (AND)."""
    if isinstance(other, Tensor):
        return mul(other, alpha)
    if isinstance(alpha, bool):
        return other and alpha  # other is a bool too: the result is a bool tensor
    return other * alpha


def rsub(input: Tensor, other) -> Tensor:
    """``other - input`` (what ``2 - a`` computes)."""
    other = _check_operand(other)
    if isinstance(other, Tensor):
        return Sub.apply(other, input)
    return Rsub.apply(input, other)


def mul(input, other) -> Tensor:
    """``input * other``, elementwise with broadcasting."""
    other = _check_operand(other)
    if not isinstance(input, Tensor):
        input, other = other, _check_operand(input, "input")
    return Mul.apply(input, other)


_ROUNDING_MODES = (None, "trunc", "floor")
# rounding_mode's default: PyTorch records DivBackward2 whenever the argument is
# given, None included, and DivBackward0 when it is not.
_NOT_GIVEN: Any = object()


def div(input, other, *, rounding_mode=_NOT_GIVEN) -> Tensor:
    """``input / other``, elementwise with broadcasting: true division, or rounded
    down (``rounding_mode='floor'``, as ``//``) or towards 0 (``'trunc'``), which
    keeps integer dtypes and has a zero gradient.

    >>> import autogradkit as torch
    >>> torch.div(torch.tensor([7, -7]), 2, rounding_mode='trunc')
    tensor([ 3, -3])
    """
    other = _check_operand(other)
    if rounding_mode is not _NOT_GIVEN:
        _check_rounding_mode(input, other, rounding_mode)
        if not isinstance(input, Tensor):
            input = _as_tensor(_check_operand(input, "input"))
        return DivRounded.apply(input, other, rounding_mode)
    if not isinstance(input, Tensor):
        return mul(reciprocal(other), input)
    return Div.apply(input, other)


def _check_rounding_mode(input, other, rounding_mode) -> None:
    """PyTorch's refusals of a rounding mode that is not None, 'trunc' or 'floor'."""
    if rounding_mode is not None and not isinstance(rounding_mode, str):
        names = [_argument_type(input), _argument_type(other)]
        raise TypeError(
            f"div() received an invalid combination of arguments - got ({', '.join(names)}, "
            f"rounding_mode={type(rounding_mode).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n"
            " * (Tensor input, Number other, *, str rounding_mode)\n"
        )
    if rounding_mode not in _ROUNDING_MODES:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )


def _argument_type(value) -> str:
    """How PyTorch's argument parser names an argument's type in its messages."""
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def neg(input: Tensor) -> Tensor:
    """``-input``."""
    return Neg.apply(input)


def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``."""
    return Reciprocal.apply(input)


def pow(input, exponent) -> Tensor:
    """``input ** exponent``; either may be a number.

    >>> import autogradkit as torch
    >>> (torch.eye(2) + 1).pow(2)
    tensor([[4., 1.],
            [1., 4.]])
    """
    exponent = _check_operand(exponent, "exponent")
    if not isinstance(input, Tensor):
        return RPow.apply(_check_operand(input, "input"), exponent)
    if isinstance(exponent, Tensor):
        return PowTensor.apply(input, exponent)
    return Pow.apply(input, exponent)


def remainder(input, other) -> Tensor:
    """``input % other``: the remainder with the sign of ``other`` (Python's ``%``).

    >>> import autogradkit as torch
    >>> torch.tensor([5.0, -5.0]) % 3
    tensor([2., 1.])
    """
    other = _check_operand(other)
    if not isinstance(input, Tensor):
        return NotDifferentiable.apply(
            _remainder, "remainder", _check_operand(input, "input"), other
        )
    if isinstance(other, Tensor):
        return RemainderTensor.apply(input, other)
    return Remainder.apply(input, other)


def fmod(input, other) -> Tensor:
    """The remainder of ``input / other`` with the sign of ``input`` (C's ``fmod``;
    ``%`` takes the sign of ``other``).

    >>> import autogradkit as torch
    >>> torch.fmod(torch.tensor([5.0, -5.0]), 3)
    tensor([ 2., -2.])
    """
    if not isinstance(input, Tensor) or not isinstance(other, (Tensor, int, float, bool)):
        names = f"{_argument_type(input)}, {_argument_type(other)}"
        raise TypeError(
            f"fmod() received an invalid combination of arguments - got ({names}), but "
            "expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    if isinstance(other, Tensor):
        return FmodTensor.apply(input, other)
    return Fmod.apply(input, other)


def floor_divide(input, other) -> Tensor:
    """``input // other``: the quotient rounded down (not differentiated, as in PyTorch).

    >>> import autogradkit as torch
    >>> torch.tensor([5, -5]) // 2
    tensor([ 2, -3])
    """
    other = _check_operand(other)
    if not isinstance(input, Tensor):
        input = _check_operand(input, "input")
    result = NotDifferentiable.apply(np.floor_divide, "floor_divide", input, other)
    node = result.grad_fn
    if node is not None:
        # PyTorch's NotImplemented node for // has an edge for each operand that
        # requires grad, and none for the others (a // int_tensor: one edge).
        node._set_edges(edge for edge in node.next_functions if edge[0] is not None)
    return result


def zeros_like_op(input: Tensor) -> Tensor:
    return ZerosLike.apply(input)


# NumPy's ufuncs called on tensors (in backward formulas under create_graph) run these.
UFUNCS.update(
    {
        np.add: add,
        np.subtract: sub,
        np.multiply: mul,
        np.true_divide: div,
        np.negative: neg,
        np.power: pow,
        np.reciprocal: reciprocal,
    }
)

# Tensor's + - * call these classes' apply directly (see _operators).
_operators.bind_arithmetic(Add, Sub, Mul)
