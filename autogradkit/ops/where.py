"""``where(condition, x, y)`` and the ``select`` helper that backward formulas use
to pick a gradient with a mask.

Where a derivative is a step function (``relu``, ``clamp``, ``maximum``, ``max``,
``x ** y`` at 0), PyTorch's formulas *select* the gradient — ``where(mask, grad, 0)``
— rather than multiply it by the mask: ``inf · 0`` is ``nan``, but a branch that was
not taken contributes exactly 0.
"""

from __future__ import annotations

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Elementwise, Linear
from ..tensor import Tensor
from ._promotion import promote

__all__ = ["where", "select"]


def select(mask, grad):
    """``where(mask, grad, 0)``: the gradient where ``mask`` holds, 0 elsewhere, even
    where ``grad`` is ``inf`` or ``nan`` (``grad * mask`` would give ``nan`` there).

    ``grad`` is an array, or a tensor during a ``create_graph`` pass (then the result
    is recorded as ``WhereBackward0``, as PyTorch records it); ``mask`` is a constant.
    """
    mask = _values(mask)
    if isinstance(grad, Tensor):
        return Where.apply(np.asarray(mask), grad, 0)
    if type(grad) is np.ndarray and grad.size >= _BITS_MIN_SIZE and _bits_apply(mask, grad):
        return _select_by_bits(mask, grad)
    return np.where(mask, grad, np.zeros((), grad.dtype))


# Selecting by bits (a speed trick): a float's bits times 0 are +0.0, and its bits
# times 1 are the float itself (inf and nan included), so select() can clear the
# gradient's bits where the mask fails: one integer multiply of the bits viewed as
# integers of the same width by the mask as 1/0 integers (astype, the cheapest way
# from booleans to integers), written into those integers. On arrays of this many
# elements or more that costs under half of np.where (measured: 36k against 99k
# instructions on 64 × 128 float32); below it np.where's single call is cheaper.
_BITS_MIN_SIZE = 1024
# Comparisons make masks of exactly this dtype object, so ``is`` recognises them (a
# few instructions, where ``== np.bool_`` first converts np.bool_ to a dtype).
_BOOL = np.dtype(np.bool_)
_SAME_WIDTH_INT: dict[int, np.dtype] = {
    2: np.dtype(np.int16),
    4: np.dtype(np.int32),
    8: np.dtype(np.int64),
}


def _bits_apply(mask, grad: np.ndarray) -> bool:
    """Whether _select_by_bits can select: a boolean mask, a float16/32/64 gradient."""
    return (
        type(mask) is np.ndarray
        and mask.dtype is _BOOL
        and grad.dtype.kind == "f"
        and grad.dtype.itemsize in _SAME_WIDTH_INT
    )


def _select_by_bits(mask: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """``where(mask, grad, 0)`` for a float array ``grad`` and a boolean array ``mask``,
    by clearing bits (see _BITS_MIN_SIZE); the same result, bit for bit."""
    as_int = _SAME_WIDTH_INT[grad.dtype.itemsize]
    # 1 where the mask holds, else 0; astype casts booleans to integers in one
    # direct pass, where np.negative(mask, dtype=...) went through buffered casts
    # (55k against 40k instructions with the multiply below, on 64 × 128 float32).
    kept = mask.astype(as_int)
    if kept.shape != grad.shape:  # a mask broadcast over the gradient
        return np.multiply(grad.view(as_int), kept).view(grad.dtype)
    return np.multiply(grad.view(as_int), kept, out=kept).view(grad.dtype)


class Where(Elementwise):
    """f(c, x, y) = x where c holds, else y;   ∂f/∂x = 1 where c, ∂f/∂y = 1 where not c
    (the condition ``c`` is a boolean constant: it is passed as an array, so it is
    not an input of the node, as in PyTorch, while a number ``x`` or ``y`` is)"""

    node_name = "WhereBackward0"
    scalars_are_inputs = True
    formula = r"f(c, x, y) = \begin{cases} x & c \\ y & \neg c \end{cases} \qquad \frac{\partial f}{\partial x} = [c], \quad \frac{\partial f}{\partial y} = [\neg c]"

    @staticmethod
    def forward(ctx, condition, x, y):
        ctx.save_for_backward(condition)
        x, y = promote(x, y)
        return np.asarray(np.where(condition, x, y))

    @classmethod
    def forward_error(cls, arrays, error):
        """PyTorch's message for shapes that cannot be broadcast together (NumPy's
        names all three): the condition against x first, then their shape against y."""
        if "broadcast" not in str(error):
            return None
        from .arithmetic import broadcast_error  # (arithmetic imports this module)

        condition, x, y = arrays
        try:
            both = np.broadcast_shapes(np.shape(condition), np.shape(x))
        except ValueError:
            return broadcast_error(condition, x)
        return broadcast_error(np.broadcast_to(0, both), y)

    @staticmethod
    def backward(ctx, grad_output):
        (condition,) = ctx.saved_tensors
        grad_x = select(condition, grad_output) if ctx.needs_input_grad[1] else None
        grad_y = select(~_values(condition), grad_output) if ctx.needs_input_grad[2] else None
        return None, grad_x, grad_y


class MaskedFill(Elementwise):
    """``x.masked_fill(mask, v)`` for a constant boolean mask and a number v, as
    PyTorch's formulas use it (norm's gradient is ``(x / ‖x‖).masked_fill_(‖x‖ == 0,
    0)``): f(x) = v where the mask holds, else x;   ∂f/∂x = 0 where it holds, else 1"""

    node_name = "MaskedFillBackward0"
    formula = r"f(x) = \begin{cases} v & m \\ x & \neg m \end{cases} \qquad \frac{\partial f}{\partial x} = [\neg m]"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        return np.where(mask, np.asarray(value, x.dtype), x)

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return MaskedFill.in_formula(grad_output, _values(mask), 0), None, None


class MaskedFillTensor(Linear):
    """``x.masked_fill(mask, v)`` with v a 0-d tensor: f(x, v) = v where the mask
    holds, else x;   ∂f/∂x = 0 where it holds, else 1;   ∂ℓ/∂v = Σ of the gradient
    where the mask holds (v was copied there)"""

    node_name = "MaskedFillBackward1"
    formula = r"f(x, v) = \begin{cases} v & m \\ x & \neg m \end{cases} \qquad \frac{\partial f}{\partial x} = [\neg m], \quad \frac{\partial \ell}{\partial v} = \textstyle\sum_{m} g"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        return np.where(mask, value.astype(x.dtype), x)

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        mask = _values(mask)
        grad_x = MaskedFill.in_formula(grad_output, mask, 0) if ctx.needs_input_grad[0] else None
        grad_value = select(mask, grad_output).sum() if ctx.needs_input_grad[2] else None
        return grad_x, None, grad_value


def _values(x):
    """The array inside ``x`` (a tensor during a create_graph pass, else an array)."""
    return x._data if isinstance(x, Tensor) else x


def where(condition: Tensor, input=None, other=None):
    """``input`` where ``condition`` holds, else ``other`` (broadcasting; either may
    be a number). With only ``condition``, the indices where it holds, one tensor per
    dimension (``condition.nonzero(as_tuple=True)``).

    >>> import autogradkit as torch
    >>> torch.where(torch.tensor([True, False]), torch.tensor([1.0, 2.0]), 0.0)
    tensor([1., 0.])
    """
    if not isinstance(condition, Tensor):
        raise TypeError(
            f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}"
        )
    if input is None and other is None:
        from .select import nonzero  # (select imports this module)

        return nonzero(condition, as_tuple=True)
    if condition._data.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            + scalar_type_name(condition._data.dtype)
        )
    return Where.apply(condition._data, input, other)
