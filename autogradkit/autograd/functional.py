"""Whole-function derivatives built on :func:`autogradkit.autograd.grad`
(mirrors ``torch/autograd/functional.py``, step for step, so results, errors and
the ``create_graph``/``strict`` behaviour are PyTorch's).

* ``vjp(f, x, v)`` — vector-Jacobian product vᵀJ: one backward pass;
* ``jvp(f, x, v)`` — Jacobian-vector product Jv: computed with the "double vjp"
  trick, two backward passes, as PyTorch's ``functional.jvp`` does (so its results,
  down to the sign of a zero, are PyTorch's). Forward mode (:mod:`.forward_ad`)
  gives the same Jv in one pass; notebook 9 compares the two;
* ``jacobian(f, x)`` — the full matrix J, one backward pass per output element
  (``strategy="forward-mode"``: one forward-mode pass per input element);
* ``hessian(f, x)`` — the Jacobian of the gradient of a scalar function;
  ``vhp``/``hvp`` — vᵀH and Hv without building H.

For ``f(x) = (x + 1)²`` on a 5×5 input, J is 25×25 (reshaped to 5×5×5×5) and
diagonal, and ``x.grad`` after ``f(x).backward(v)`` is exactly ``vjp(f, x, v)``.

Every function works on fresh tensors: an input is detached (and made to require
grad) unless ``create_graph=True`` and it requires grad, when it is replaced by
``x.view_as(x)`` so the results stay connected to it. Results are detached unless
``create_graph=True``. With ``strict=True`` an output (or input) that the
derivative does not depend on is an error instead of zeros.

The steps, their order and the helper names follow PyTorch's
``torch/autograd/functional.py`` (BSD-3-Clause, copyright the PyTorch
contributors), so that errors and graphs match; the code and its comments are
written for this kit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


# -- helpers (PyTorch's, of the same names) ------------------------------------------


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``(was it a tuple, value as a tuple of tensors)``; anything but a tensor or a
    tuple of tensors is refused (a list too, as in PyTorch)."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, element in enumerate(values):
        if not isinstance(element, Tensor):
            which = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {which} has type {type(element)}."
            )
    return is_tuple, values


def _tuple_postprocess(result: Any, to_unpack: Any) -> Any:
    """Undo :func:`_as_tuple` for a result: unpack the levels that were not tuples
    (``to_unpack``: one flag, or (outer, inner) for nested results)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            result = tuple(element[0] for element in result)
        if not to_unpack[0]:
            result = result[0]
    elif not to_unpack:
        result = result[0]
    return result


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the inputs: ``x.view_as(x)`` (still connected to x)
    when a graph is created and x requires grad, else a detached copy."""
    if create_graph:
        return tuple(
            x.view_as(x) if x.requires_grad else x.detach().requires_grad_(need_graph)
            for x in inputs
        )
    return tuple(x.detach().requires_grad_(need_graph) for x in inputs)


def _grad_postprocess(results: tuple, create_graph: bool) -> tuple:
    """Detach results (also nested tuples of them) unless a graph was asked for."""
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_grad_postprocess(r, create_graph) for r in results)


def _outputs_and_result(
    outputs: tuple, is_outputs_tuple: bool, result: tuple, is_result_tuple: bool, create_graph: bool
) -> tuple:
    """What vjp, jvp, vhp and hvp return: ``(func(inputs), result)``, each detached
    unless ``create_graph`` and unpacked where the user gave no tuple."""
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_result_tuple),
    )


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (vi, oi) in enumerate(zip(v, other)):
        if vi.size() != oi.size():
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {oi.size()} but got {vi.size()}."
            )


_INDEPENDENT = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
    "outputs must be computed in a differentiable manner from the input when running in "
    "strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of "
    "the user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
    "function with respect to input {i} is independent of the input. This is not allowed in "
    "strict mode. You should ensure that your function is twice differentiable and that the "
    "jacobian depends on the inputs (this would be violated by a linear function for "
    "example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
    "independent of the input. This is not allowed in strict mode. You should ensure that "
    "your function is thrice differentiable and that the hessian depends on the inputs.",
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode: every one of ``tensors`` must depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _autograd_grad(
    outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False, retain_graph=None
) -> tuple:
    """``autograd.grad`` that skips outputs which are None or need no gradient (all
    None when none is left) and gives None for an unused input."""
    from . import grad

    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in pairs],
        inputs,
        [g for _, g in pairs],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_FILL_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
    "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """Zeros (shaped like ``refs``) for the None gradients; errors in strict mode."""
    from .. import zeros_like

    filled = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_ERRORS[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        filled.append(g)
    return tuple(filled)


def _prepare_v(v, reference: tuple, is_reference_tuple: bool, create_graph: bool, fn_name: str):
    """``v`` as a tuple of new tensors, checked against ``reference`` (the outputs
    for vjp, the inputs for the others)."""
    _, vs = _as_tuple(v, "v", fn_name)
    vs = _grad_preprocess(vs, create_graph, need_graph=False)
    _validate_v(vs, reference, is_reference_tuple)
    return vs


def _v_none_allowed(inputs: tuple) -> None:
    """v may be left out only for one input of one element (then it is 1)."""
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )


# -- vector-Jacobian and Jacobian-vector products ------------------------------------


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), vᵀ·J)``.

    ``v`` has the shape of ``func``'s output (it may be omitted when the output has
    one element). The results are detached unless ``create_graph=True``.
    """
    from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*xs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            vs = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp")
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
        else:
            vs = None
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(outputs, xs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, xs, strict, create_graph, "back")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), J·v)``, ``v`` shaped like the inputs.

    Reverse mode gives uᵀJ for any u; as a function of u that is linear, and its
    gradient with respect to u is J·v. So: one backward pass with a dummy u that
    requires grad, recorded (create_graph), then a second pass through it.
    """
    from .. import zeros_like
    from .grad_mode import enable_grad

    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        if v is not None:
            vs = _prepare_v(v, xs, is_inputs_tuple, create_graph, "jvp")
        else:
            _v_none_allowed(xs)
            vs = None
        is_outputs_tuple, outputs = _as_tuple(
            func(*xs), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        # The backward pass is linear in u: its value does not matter (zeros).
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, xs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with enable_grad() if create_graph else _nothing():
        grads = _autograd_grad(grad_inputs, dummies, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_outputs_tuple, create_graph)


def _nothing():
    """No context: jvp's second pass keeps the caller's grad mode unless it records."""
    return contextlib.nullcontext()


# -- Jacobians and Hessians --------------------------------------------------------------


def _check_strategy(strategy: str, create_graph: bool, strict: bool, vectorize: bool) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode" and create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strategy == "forward-mode" and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.'
        )


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

    ``vectorize=True`` is accepted (PyTorch then computes all rows in one batched
    pass; here they are computed one by one, with the same values).

    >>> import autogradkit as torch
    >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    from .grad_mode import enable_grad

    _check_strategy(strategy, create_graph, strict, vectorize)
    if strategy == "forward-mode":
        return _jacobian_forward(func, inputs, vectorize)
    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(
            func(*xs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`."
            )
        rows = tuple(
            _jacobian_rows(i, out, xs, create_graph, strict) for i, out in enumerate(outputs)
        )
        if vectorize and create_graph:
            rows = _as_batched_columns(rows, outputs, xs)
    return _tuple_postprocess(
        _grad_postprocess(rows, create_graph), (is_outputs_tuple, is_inputs_tuple)
    )


def _jacobian_rows(i: int, out: Tensor, xs: tuple, create_graph: bool, strict: bool) -> tuple:
    """∂out/∂x for every input x: one backward pass per element of ``out``."""
    from .. import stack, zeros_like

    per_input: list[list[Tensor]] = [[] for _ in xs]
    for j in range(out.nelement()):
        grads = _autograd_grad(
            (out.reshape(-1)[j],), xs, retain_graph=True, create_graph=create_graph
        )
        for k, (g, x) in enumerate(zip(grads, xs)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input "
                        f"{k}. This is not allowed in strict mode."
                    )
                g = zeros_like(x)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            per_input[k].append(g)
    return tuple(
        stack(rows, 0).view(tuple(out.size()) + tuple(x.size())) for rows, x in zip(per_input, xs)
    )


def _as_batched_columns(rows: tuple, outputs: tuple, xs: tuple) -> tuple:
    """The blocks ``rows[i][j]`` (output i, input j) recorded as PyTorch's vectorized
    Jacobian records them: its one batched vjp gives, per input j, one tensor of
    every output's rows, which is split per output and viewed. So a block requires
    grad when any block of its column does, even one that is identically zero (the
    ∂²(x·sin y)/∂x² of a Hessian)."""
    from .. import cat

    numels = [out.nelement() for out in outputs]
    columns = []
    for j, x in enumerate(xs):
        stacked = cat([rows[i][j].reshape((n, *x.shape)) for i, n in enumerate(numels)])
        columns.append(
            [
                block.view(tuple(out.shape) + tuple(x.shape))
                for block, out in zip(stacked.split(numels, dim=0), outputs)
            ]
        )
    return tuple(tuple(columns[j][i] for j in range(len(xs))) for i in range(len(outputs)))


def _jacobian_forward(func: Callable, inputs, vectorize: bool):
    """The Jacobian column by column in forward mode: one pass per input element,
    its tangent a one-hot vector (PyTorch needs ``vectorize=True`` for this)."""
    from .. import stack, zeros_like
    from . import forward_ad

    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
            "implemented for `vectorize=True`."
        )
    columns: list[list[list[Tensor]]] = []  # [input][element][output]
    is_outputs_tuple = False
    primals: tuple[Tensor, ...] = ()
    for k, x in enumerate(xs):
        columns.append([])
        for j in range(x.nelement()):
            with forward_ad.dual_level():
                duals = tuple(
                    forward_ad.make_dual(t, _one_hot(t, j) if m == k else zeros_like(t))
                    for m, t in enumerate(xs)
                )
                out = func(*duals)
                is_outputs_tuple = isinstance(out, (tuple, list))
                unpacked = [
                    forward_ad.unpack_dual(o) for o in (out if is_outputs_tuple else (out,))
                ]
                primals = tuple(u.primal for u in unpacked)
                columns[k].append(
                    [zeros_like(u.primal) if u.tangent is None else u.tangent for u in unpacked]
                )
    # Lists, not tuples, where PyTorch's forward-mode Jacobian returns lists.
    jac = [
        [
            stack([column[i] for column in columns[k]], -1).reshape(
                tuple(p.shape) + tuple(xs[k].shape)
            )
            for k in range(len(xs))
        ]
        for i, p in enumerate(primals)
    ]
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _one_hot(x: Tensor, j: int) -> Tensor:
    from .. import zeros

    e = zeros(x.nelement(), dtype=x.dtype)
    e[j] = 1
    return e.view(x.shape)


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar function: the Jacobian of its gradient (shape
    ``input.shape + input.shape``; nested tuples ``H[i][j]`` for several inputs)."""
    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*args):
        out = func(*args)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(t.requires_grad_(True) for t in args)
        jac = jacobian(single_output, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    if outer_jacobian_strategy == "forward-mode" and vectorize and not (create_graph or strict):
        from .grad_mode import is_grad_enabled

        if is_grad_enabled():
            result = _recorded_forward_over_reverse(gradient, xs)
            return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))
    result = jacobian(
        gradient,
        xs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


def _recorded_forward_over_reverse(gradient: Callable, xs: tuple) -> list:
    """The forward-over-reverse Hessian, recorded as PyTorch's is.

    PyTorch differentiates the gradient (made with ``create_graph=True`` of inputs
    it sets to require grad) in forward mode, and its tangents record a graph:
    the Hessian requires grad even with ``create_graph=False``. autogradkit's
    tangents record none (docs/differences.md), so the columns are taken from the
    recorded gradient in reverse mode instead: column ``j`` of input ``k``, for
    the gradient ``g_i`` of input ``i``, is ``∂g_i/∂x_k[j] = ∂g_k[j]/∂x_i`` (a
    Hessian is symmetric). As in PyTorch's ``_jacfwd``, the columns of ``g_i``
    are one tensor, split per input, moved last and reshaped, so a block requires
    grad when any block of its row does.
    """
    from .. import cat

    inner = _grad_preprocess(xs, create_graph=True, need_graph=True)
    by_rows = jacobian(gradient, inner, create_graph=True)  # [k][i]: ∂g_k/∂x_i
    numels = [x.nelement() for x in xs]
    result = []
    for i, x_i in enumerate(xs):
        columns = cat([by_rows[k][i].reshape((n, *x_i.shape)) for k, n in enumerate(numels)])
        result.append(
            [
                block.permute(*range(1, block.dim()), 0).reshape((*x_i.shape, *x_k.shape))
                for block, x_k in zip(columns.split(numels, dim=0), xs)
            ]
        )
    return result


def _scalar_function_gradient(
    func: Callable, inputs, v, create_graph: bool, strict: bool, name: str
):
    """What vhp and hvp share: the prepared inputs, ``v``, the output and its
    gradient (recorded)."""
    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", name)
    xs = _grad_preprocess(xs, create_graph, need_graph=True)
    if v is not None:
        vs = _prepare_v(v, xs, is_inputs_tuple, create_graph, name)
    else:
        _v_none_allowed(xs)
        vs = None
    is_outputs_tuple, outputs = _as_tuple(func(*xs), "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    jac = _autograd_grad(outputs, xs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, xs, vs, is_outputs_tuple, outputs, jac


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), vᵀ·H)`` for a scalar ``func`` (H its Hessian)."""
    from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

    with enable_grad():
        is_inputs_tuple, xs, vs, is_outputs_tuple, outputs, jac = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(jac, xs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, xs, strict, create_graph, "double_back")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Return ``(func(inputs), H·v)`` for a scalar ``func``, by the double backward
    trick (as :func:`jvp`) applied to its gradient."""
    from .. import zeros_like
    from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

    with enable_grad():
        is_inputs_tuple, xs, vs, is_outputs_tuple, outputs, jac = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, "hvp"
        )
        grad_jac = tuple(zeros_like(x, requires_grad=True) for x in xs)
        double_back = _autograd_grad(jac, xs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(double_back, grad_jac, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, xs, strict, create_graph, "double_back_trick")
    return _outputs_and_result(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)
