"""``einsum``: products and sums of tensors written with index letters.

``einsum("ij,jk->ik", a, b)`` is ``a @ b``: every letter names a dimension, letters
shared by operands are multiplied along, and letters missing from the output
(after ``->``) are summed over. Its gradient for each operand is another einsum:
the output's gradient times the other operands, with that operand's letters as
the result (a letter that only this operand had was summed over on its own, so
its gradient is spread back along it).

>>> import autogradkit as torch
>>> a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> torch.einsum("ij,ij->", a, a)
tensor(30., grad_fn=<EinsumBackward0>)
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from ..autograd.function import Bilinear
from ..tensor import Tensor
from .shape import scatter_into_zeros

__all__ = ["einsum"]


class Einsum(Bilinear):
    """f(A, B, …) = Σ over the letters not in the output of the products
    A[…]·B[…]·…;   ∂ℓ/∂A = einsum(output, B, … → A's letters) of the gradient
    (spread along letters only A has)"""

    node_name = "EinsumBackward0"  # PyTorch records the bmm/permute/view it decomposes into
    formula = r"f(A, B) = \textstyle\sum_{j} A_{ij} B_{jk} \qquad \frac{\partial \ell}{\partial A_{ij}} = \textstyle\sum_k G_{ik} B_{jk}"

    @staticmethod
    def forward(ctx, equation, *operands):
        ctx.equation = equation
        ctx.save_for_backward(*operands)
        inputs, output = equation
        return np.asarray(np.einsum(f"{','.join(inputs)}->{output}", *operands))

    @staticmethod
    def backward(ctx, grad_output):
        operands = ctx.saved_tensors
        inputs, output = ctx.equation
        grads = [
            _operand_grad(grad_output, operands, inputs, output, i) if needed else None
            for i, needed in enumerate(ctx.needs_input_grad[1:])
        ]
        return (None, *grads)


def _operand_grad(grad, operands, inputs: list[str], output: str, i: int):
    """einsum(output, the others → operand i's letters), spread back along the
    letters that only operand i had; for a letter repeated in operand i (a
    diagonal, ``"ii"``), computed on the diagonal and put back on it."""
    letters = inputs[i]
    distinct = "".join(dict.fromkeys(letters))  # each letter once, in order
    size_of = dict(zip(letters, operands[i].shape))
    others = [k for k in range(len(inputs)) if k != i]
    seen = set(output).union(*(inputs[k] for k in others))
    kept = "".join(c for c in distinct if c in seen)
    parts = [grad] + [operands[k] for k in others]
    equation = f"{','.join([output] + [inputs[k] for k in others])}->{kept}"
    shape = tuple(size_of[c] for c in distinct)
    lonely = tuple(axis for axis, c in enumerate(distinct) if c not in seen)
    result: Any
    if isinstance(grad, Tensor):  # a create_graph pass: recorded einsums
        result = einsum(equation, *parts)
        for axis in lonely:
            result = result.unsqueeze(axis)
        result = result.expand(*shape) if lonely else result
    else:
        result = np.einsum(equation, *parts)
        if lonely:
            spread = np.empty(shape, result.dtype)
            spread[...] = np.expand_dims(result, lonely)
            result = spread
    if distinct == letters:
        return result
    # Each element of the diagonal goes back where operand i held it.
    grids = np.indices(shape, sparse=True)
    key = tuple(grids[distinct.index(c)] for c in letters)
    return scatter_into_zeros(result, key, tuple(operands[i].shape))


def _parse(equation: str, operands: tuple) -> tuple[list[str], str]:
    """The letters of each operand and of the output, with ``...`` written out as
    letters of its own and an implicit output (no ``->``) made explicit."""
    equation = equation.replace(" ", "")
    left, arrow, right = equation.partition("->")
    inputs = left.split(",")
    if len(inputs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(inputs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    expanded, batch = _expand_ellipses(equation, inputs, operands)
    if arrow:
        output = right.replace("...", batch)
    else:
        counts = "".join(expanded)
        output = batch + "".join(
            sorted(c for c in set(counts) if counts.count(c) == 1 and c not in batch)
        )
    for c in output:
        if c not in "".join(expanded):
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any input "
                "operand"
            )
    _check_sizes(expanded, operands)
    return expanded, output


def _expand_ellipses(equation: str, inputs: list[str], operands: tuple) -> tuple[list[str], str]:
    """Each operand's letters with ``...`` replaced by letters of its own (the same
    letters for the same trailing batch dimensions of every operand), and those
    batch letters."""
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in equation]
    ellipsis_rank = 0
    for letters, operand in zip(inputs, operands):
        if "..." in letters:
            ellipsis_rank = max(ellipsis_rank, operand.ndim - (len(letters) - 3))
    batch = "".join(spare[:ellipsis_rank])
    expanded: list[str] = []
    for letters, operand in zip(inputs, operands):
        named = len(letters) - 3 if "..." in letters else len(letters)
        if "..." in letters:
            letters = letters.replace("...", batch[ellipsis_rank - (operand.ndim - named) :])
        elif named != operand.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({operand.ndim}) for operand {len(expanded)} and no "
                "ellipsis was given"
            )
        expanded.append(letters)
    return expanded, batch


def _check_sizes(inputs: list[str], operands: tuple) -> None:
    sizes: dict[str, int] = {}
    for number, (letters, operand) in enumerate(zip(inputs, operands)):
        for c, n in zip(letters, operand.shape):
            if sizes.setdefault(c, n) != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {number} which does not "
                    f"broadcast with previously seen size {sizes[c]}"
                )


def einsum(equation: str, *operands) -> Tensor:
    """Sums of products of ``operands`` named by ``equation``'s index letters:
    ``"ij,jk->ik"`` multiplies matrices, ``"ii->"`` is a trace, ``"bij,bjk->bik"``
    a batch of products, ``"i,j->ij"`` an outer product; without ``->`` the output
    keeps the letters that appear once, in alphabetical order. The operands may
    also come as one list.

    >>> import autogradkit as torch
    >>> torch.einsum("i,j->ij", torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for operand in operands:
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"einsum(): argument 'tensors' must be tuple of Tensors, not "
                f"{type(operand).__name__}"
            )
    inputs, output = _parse(equation, operands)
    return Einsum.apply((inputs, output), *operands)
