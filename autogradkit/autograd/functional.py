"""Whole-function derivatives built on :func:`autogradkit.autograd.grad`
(mirrors ``torch/autograd/functional.py``).

* ``vjp(f, x, v)`` — vector-Jacobian product vᵀJ: one backward pass;
* ``jvp(f, x, v)`` — Jacobian-vector product Jv: computed with the "double vjp"
  trick, two backward passes, as PyTorch's ``functional.jvp`` does (so its results,
  down to the sign of a zero, and its ``create_graph``/``strict`` behaviour are
  PyTorch's). Forward mode (:mod:`.forward_ad`) gives the same Jv in one pass;
  notebook 9 compares the two;
* ``jacobian(f, x)`` — the full matrix J, one backward pass per output element.

For ``f(x) = (x + 1)²`` on a 5×5 input, J is 25×25 (reshaped to 5×5×5×5) and
diagonal, and ``x.grad`` after ``f(x).backward(v)`` is exactly ``vjp(f, x, v)``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian"]


def _as_tuple(value, what: str) -> tuple[tuple, bool]:
    if isinstance(value, Tensor):
        return (value,), True
    if isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value):
        return tuple(value), False
    raise TypeError(
        f"The {what} given to autogradkit.autograd.functional must be either a Tensor or "
        f"a tuple of Tensors but got {type(value).__name__}."
    )


def _prepare_inputs(inputs: tuple, create_graph: bool) -> tuple:
    """Fresh leaves, so the caller's tensors and their .grad are untouched; with
    create_graph, inputs that require grad are kept so results stay connected to them."""
    prepared = []
    for x in inputs:
        if create_graph and x.requires_grad:
            prepared.append(x)
        else:
            # requires_grad_ raises PyTorch's error for an integer input (no Jacobian).
            prepared.append(x.detach().requires_grad_(True))
    return tuple(prepared)


def _grad_or_zeros(outputs, inputs, grad_outputs, create_graph: bool, retain_graph: bool) -> tuple:
    from .. import zeros_like
    from . import grad

    needing = [x for x in inputs if x.requires_grad]
    outs = [o for o in outputs if o.requires_grad]
    if not outs or not needing:
        return tuple(zeros_like(x) for x in inputs)
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    grads = grad(
        outs, needing, gos, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True
    )
    it = iter(grads)
    result = []
    for x in inputs:
        g = next(it) if x.requires_grad else None
        result.append(zeros_like(x) if g is None else g)
    return tuple(result)


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), vᵀ·J)``.

    ``v`` has the shape of ``func``'s output (it may be omitted when the output has
    one element). The results are detached unless ``create_graph=True``.
    """
    from ..autograd.grad_mode import enable_grad

    inputs_t, single = _as_tuple(inputs, "inputs")
    with enable_grad():
        xs = _prepare_inputs(inputs_t, create_graph)
        outputs = func(*xs)
        outs_t, single_out = _as_tuple(outputs, "outputs of the user-provided function")
        if v is None:
            for o in outs_t:
                if o.numel() != 1:
                    raise RuntimeError(
                        "The vector v can only be None if the user-provided function returns a "
                        "single Tensor with a single element."
                    )
            vs: tuple[Tensor | None, ...] = (None,) * len(outs_t)
        else:
            given, _ = _as_tuple(v, "v")
            for o, vi in zip(outs_t, given):
                if o.shape != vi.shape:
                    raise RuntimeError(
                        f"Mismatch in shape: v has shape {list(vi.shape)} but the function's "
                        f"output has shape {list(o.shape)}"
                    )
            vs = given
        grads = _grad_or_zeros(outs_t, xs, vs, create_graph, retain_graph=create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outs_t)
    grads = tuple(g if create_graph else g.detach() for g in grads)
    return (outs[0] if single_out else outs), (grads[0] if single else grads)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), J·v)``, ``v`` shaped like the inputs.

    Reverse mode gives uᵀJ for any u; as a function of u that is linear, and its
    gradient with respect to u is J·v. So: one backward pass with a dummy u that
    requires grad, recorded (create_graph), then a second pass through it.
    """
    from .. import zeros_like
    from ..autograd.grad_mode import enable_grad
    from . import grad

    inputs_t, _single = _as_tuple(inputs, "inputs")
    if v is None:
        if len(inputs_t) != 1 or inputs_t[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        from .. import ones_like

        vs = (ones_like(inputs_t[0]),)
    else:
        vs, _ = _as_tuple(v, "v")
        for x, vi in zip(inputs_t, vs):
            if x.shape != vi.shape:
                raise RuntimeError(
                    f"Mismatch in shape: v has shape {list(vi.shape)} but the input has shape "
                    f"{list(x.shape)}"
                )
    with enable_grad():
        xs = _prepare_inputs(inputs_t, True)
        outputs = func(*xs)
        outs_t, single_out = _as_tuple(outputs, "outputs of the user-provided function")
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outs_t)
        vjps = _grad_or_zeros(outs_t, xs, dummies, create_graph=True, retain_graph=True)
        usable = [(g, vi) for g, vi in zip(vjps, vs) if g.requires_grad]
        if usable:
            jv = grad(
                [g for g, _ in usable],
                dummies,
                [vi for _, vi in usable],
                create_graph=create_graph,
                allow_unused=True,
            )
            jv = tuple(zeros_like(o) if g is None else g for o, g in zip(outs_t, jv))
        else:
            jv = tuple(zeros_like(o) for o in outs_t)
    outs = tuple(o if create_graph else o.detach() for o in outs_t)
    jv = tuple(g if create_graph else g.detach() for g in jv)
    return (outs[0] if single_out else outs), (jv[0] if single_out else jv)


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: for one input and one output, a
    tensor of shape ``output.shape + input.shape`` whose entry ``[i..., j...]`` is
    ∂outputᵢ/∂inputⱼ. For tuples, nested tuples ``J[i][j]`` (output i, input j).

    >>> import autogradkit as torch
    >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    from .. import stack, zeros
    from ..autograd.grad_mode import enable_grad

    inputs_t, single = _as_tuple(inputs, "inputs")
    with enable_grad():
        xs = _prepare_inputs(inputs_t, create_graph)
        outputs = func(*xs)
        outs_t, single_out = _as_tuple(outputs, "outputs of the user-provided function")
        rows_per_output = []
        for out in outs_t:
            flat = out.reshape(-1)
            per_input: list[list[Tensor]] = [[] for _ in xs]
            for i in range(flat.numel()):
                if flat.requires_grad:
                    grads = _grad_or_zeros((flat[i],), xs, (None,), create_graph, retain_graph=True)
                else:
                    grads = tuple(zeros(x.shape, dtype=x.dtype) for x in xs)
                for j, g in enumerate(grads):
                    per_input[j].append(g)
            blocks = []
            for j, x in enumerate(xs):
                if per_input[j]:
                    block = stack(per_input[j]).reshape(tuple(out.shape) + tuple(x.shape))
                else:
                    block = zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype)
                blocks.append(block if create_graph else block.detach())
            rows_per_output.append(tuple(blocks))
    if single_out and single:
        return rows_per_output[0][0]
    if single_out:
        return rows_per_output[0]
    if single:
        return tuple(row[0] for row in rows_per_output)
    return tuple(rows_per_output)
