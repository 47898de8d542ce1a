"""``autogradkit.autograd``: the engine's public face (mirrors ``torch.autograd``).

* :func:`backward` — add gradients of some tensors into the leaves' ``.grad``
  (what ``loss.backward()`` calls);
* :func:`grad` — return gradients instead of storing them;
* :func:`backward_steps` — the same backward pass, one node per ``next()``, for
  watching the chain rule at work;
* :mod:`.functional` — ``jacobian``, ``vjp``, ``jvp``, ``hessian``, ``vhp``, ``hvp``;
* :mod:`.forward_ad` — forward mode: dual tensors carry tangents through every
  operation (``dual_level``, ``make_dual``, ``unpack_dual``, ``forward_steps``);
* :func:`gradcheck` — compare a function's analytic gradients with finite differences.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._legacy import Variable
from . import forward_ad, functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .custom_function import Function
from .engine import (
    CREATE_GRAPH_BACKWARD_WARNING,
    Accumulation,
    BackwardPass,
    BackwardStep,
    backward_steps,
    prepare,
    run_to_end,
)
from .function import Edge, FunctionCtx, Node, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "backward",
    "grad",
    "backward_steps",
    "BackwardPass",
    "BackwardStep",
    "Accumulation",
    "Edge",
    "Function",
    "FunctionCtx",
    "Node",
    "functional",
    "forward_ad",
    "graph",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "detect_anomaly",
    "set_detect_anomaly",
    "once_differentiable",
    "Variable",
]


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Compute the sum of gradients of ``tensors`` and accumulate them into the
    ``.grad`` of the graph's leaves.

    ``grad_tensors`` gives, per tensor, the vector ``v`` of the vector-Jacobian
    product (None for scalars, meaning 1). Unless ``retain_graph=True`` the graph's
    saved tensors are freed afterwards.
    """
    if create_graph:
        warnings.warn(CREATE_GRAPH_BACKWARD_WARNING, UserWarning, stacklevel=2)
    if inputs is not None:
        _backward_into(tensors, grad_tensors, retain_graph, create_graph, inputs)
        return
    run_to_end(prepare(tensors, grad_tensors, retain_graph, create_graph))


def _backward_into(tensors, grad_tensors, retain_graph, create_graph, inputs) -> None:
    """``backward(inputs=[...])``: accumulate into the ``.grad`` of those tensors
    only (leaves or not), leaving every other leaf's ``.grad`` alone."""
    from ..tensor import Tensor

    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if grad_tensors is not None and isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    grads = grad(
        roots,
        inputs,
        grad_tensors,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )
    for tensor, value in zip(inputs, grads):
        if value is None:
            continue
        value = value if create_graph else value.detach()
        tensor._grad = value if tensor._grad is None else tensor._grad + value
        if tensor._accumulator is not None and tensor._accumulator._post_accumulate_hooks:
            tensor._accumulator.run_post_accumulate_hooks(create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Return the gradients of ``outputs`` with respect to ``inputs`` (a tuple, one
    per input) without touching any ``.grad``.

    With ``create_graph=True`` the returned gradients are themselves part of a graph,
    so they can be differentiated again (second derivatives, Hessian-vector products).

    Examples
    --------
    >>> import autogradkit as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> y = x ** 3
    >>> (dy,) = torch.autograd.grad(y, x, create_graph=True)
    >>> dy
    tensor(27., grad_fn=<MulBackward0>)
    >>> torch.autograd.grad(dy, x)
    (tensor(18.),)
    """
    from ..tensor import Tensor

    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        batched = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph)
        return _materialized(batched, inputs, allow_unused, materialize_grads, create_graph)
    task = prepare(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs)
    run_to_end(task)
    results: list[Tensor | None] = []
    for value in task.captured:
        if value is None:
            results.append(None)
        elif isinstance(value, Tensor):
            results.append(value)
        else:
            value = np.asarray(value)  # a 0-d gradient may be a NumPy scalar
            results.append(
                Tensor._make(
                    value.copy() if value.base is not None or not value.flags.writeable else value
                )
            )
    return _materialized(results, inputs, allow_unused, materialize_grads, create_graph)


def _materialized(
    results: list, inputs: tuple, allow_unused: bool, materialize: bool, create_graph: bool
) -> tuple:
    """The gradients as :func:`grad` returns them: an input the outputs do not
    depend on gets None, zeros (``materialize_grads``: requiring grad under
    ``create_graph``, as in PyTorch) or PyTorch's error."""
    from .._creation import zeros_like

    for index, value in enumerate(results):
        if value is not None:
            continue
        if not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have been "
                "used in the graph. Set allow_unused=True if this is the desired behavior."
            )
        if materialize:
            results[index] = zeros_like(inputs[index], requires_grad=create_graph)
    return tuple(results)


def _batched_grad(outputs, inputs: tuple, grad_outputs, retain_graph, create_graph) -> list:
    """``grad(..., is_grads_batched=True)``: one vector-Jacobian product per entry
    of the first dimension of every grad_output, stacked (PyTorch vectorises the
    same loop with vmap). An input no gradient reaches stays None."""
    from ..ops.shape import stack
    from ..tensor import Size, Tensor

    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    for index, (out, batch) in enumerate(zip(outputs, grad_outputs)):
        if batch is not None and tuple(batch.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch was "
                # (PyTorch prints the shape of one batch entry without its first dimension)
                f"detected: grad_output[{index}] has a shape of {Size(batch.shape[2:])} and "
                f"output[{index}] has a shape of {out.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap."
            )
    size = next(len(batch) for batch in grad_outputs if batch is not None)
    retain = create_graph if retain_graph is None else retain_graph
    rows = [
        grad(
            outputs,
            inputs,
            [None if batch is None else batch[k] for batch in grad_outputs],
            retain_graph=retain or k < size - 1,
            create_graph=create_graph,
            allow_unused=True,
        )
        for k in range(size)
    ]
    return [None if column[0] is None else stack(list(column)) for column in zip(*rows)]
