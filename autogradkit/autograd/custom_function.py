"""Custom autograd Functions as PyTorch has them (``torch.autograd.Function``).

A learner writes::

    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

and calls ``LegendrePolynomial3.apply(x)``. What :meth:`Function.apply` does, as in
PyTorch:

1. ``forward`` runs on the **tensors** it is given, under ``no_grad`` (its own
   operations are not recorded: the Function is one node of the graph);
2. if an input requires grad, ``ctx`` becomes the output's ``grad_fn``, with one
   edge per tensor input;
3. in the backward pass, ``backward`` gets the output's gradient as a tensor and
   returns one gradient per ``forward`` argument (None for non-tensors). It runs
   under ``no_grad``, or, in a ``create_graph=True`` pass, with grad mode on, so the
   operations it does on the saved tensors are recorded and can be differentiated
   again (double backward).

``ctx`` offers ``save_for_backward``/``saved_tensors`` (checked for in-place changes,
freed after the pass), ``needs_input_grad``, ``mark_non_differentiable`` and
``mark_dirty``; ``setup_context`` may fill ``ctx`` instead of ``forward``. A Function
returns one tensor (several outputs are not supported by autogradkit's engine).

The operations inside autogradkit derive from the same base, but compute on NumPy
arrays (see :mod:`autogradkit.autograd.function`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad, grad_mode
from . import function as core

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

once_differentiable = core.once_differentiable
FunctionCtx = core.FunctionCtx


class _CustomNode(core.Node):
    """The ``ctx`` of a custom Function, which becomes the output's ``grad_fn``:
    it keeps tensors (not arrays) and calls the user's ``backward`` with tensors."""

    __slots__ = ()
    _non_differentiable: tuple[Any, ...] = ()
    _dirty: tuple[Any, ...] = ()

    def __repr__(self) -> str:
        # PyTorch names the class of a custom Function's node by its module.
        return f"<autogradkit.autograd.function.{self._name} object at {id(self):#x}>"

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """Outputs that have no gradient (indices, masks): they do not require grad."""
        self._non_differentiable = outputs

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Inputs that ``forward`` modified in place (and returns)."""
        self._dirty = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``jvp`` (forward mode), which reads them from
        ``ctx.saved_tensors``."""
        self.__dict__["_saved_for_forward"] = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted for parity: a single output always gets its gradient."""

    @property
    def saved_tensors(self) -> tuple:
        """The tensors ``forward`` saved, unchanged since (as PyTorch checks); inside
        ``jvp``, those it saved with ``save_for_forward``."""
        if "_jvp_running" in self.__dict__:
            return self.__dict__.get("_saved_for_forward", ())
        if self._saved_sources is core._RELEASED:
            raise RuntimeError(core.SECOND_BACKWARD_MESSAGE)
        if self._saved is None:
            return ()
        for tensor, version in zip(self._saved, self._saved_sources):
            if tensor is not None and tensor._version_counter[0] != version:
                raise RuntimeError(
                    core._inplace_message(
                        _producer(tensor),
                        tensor._data.shape,
                        tensor._data.dtype,
                        version,
                        tensor._version_counter[0],
                    )
                )
        return self._saved

    def apply(self, grad_output, create_graph: bool = False) -> list:
        """Run the user's ``backward`` on tensors, then send each gradient to its
        input (summed back to the input's shape) as the engine expects."""
        if type(grad_output) is not Tensor:
            grad_output = Tensor._make(np.asarray(grad_output))
        function: Any = self._function  # the user's Function subclass
        if create_graph:
            grads = function.backward(self, grad_output)
        else:
            with grad_mode.no_grad():
                grads = function.backward(self, grad_output)
        if type(grads) is not tuple:
            grads = (grads,)
        _check_count(self, grads)
        tracked = itertools.compress(grads, self.needs_input_grad)
        sent: list[Any] = []
        for node, input_nr in self.next_functions:
            if node is None:
                sent.append(None)
                continue
            grad = next(tracked)
            if grad is not None:
                grad = _as_engine_grad(grad, create_graph)
                shape, dtype = node.input_metadata[input_nr]
                grad = core._fit_to_input(grad, shape, dtype, create_graph)
            sent.append(grad)
        return sent


def _producer(tensor: Tensor) -> str | None:
    return None if tensor.grad_fn is None else core._forward_name(tensor.grad_fn)


def _check_count(ctx: _CustomNode, grads: tuple) -> None:
    expected = len(ctx.needs_input_grad)
    if len(grads) != expected:
        raise RuntimeError(
            f"function {ctx.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {len(grads)})"
        )


def _as_engine_grad(grad: Any, create_graph: bool):
    """The engine works on arrays (tensors in a create_graph pass)."""
    if isinstance(grad, Tensor):
        return grad if create_graph else grad._data
    if create_graph:
        return Tensor._make(np.asarray(grad))
    return np.asarray(grad)


class Function(core.Function):
    """Base class for your own differentiable operations (``torch.autograd.Function``).

    Define ``forward(ctx, *args)`` and ``backward(ctx, grad_output)`` as static
    methods working on tensors; call ``YourFunction.apply(*args)``. See the module
    docstring.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        cls.node_name = name
        cls._node_class = type(
            name, (_CustomNode,), {"__slots__": (), "_name": name, "_function": cls}
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Override to fill ``ctx`` from the inputs and the output, with a
        ``forward(*args)`` that takes no ``ctx`` (PyTorch 2's other style)."""
        raise NotImplementedError

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Override for forward mode: the output's tangent, given one tangent per
        ``forward`` argument (J·t, where ``backward`` computes Jᵀ·g)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any) -> Any:
        ctx: Any = cls._node_class.__new__(cls._node_class)
        ctx._to_save = None
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        # forward sees plain values: its own operations are neither recorded nor
        # carry tangents (jvp gives the output's tangent), as in PyTorch.
        with grad_mode.no_grad(), forward_ad.paused():
            if _overrides_setup_context(cls):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        result = _single_output(cls, output)
        if True in ctx.needs_input_grad and grad_mode.is_grad_enabled():
            result = _record(ctx, args, result)
        if forward_ad.state.level is not None:  # forward mode: the user's jvp
            forward_ad.push_custom_tangent(cls, args, ctx, result)
        return (result,) if isinstance(output, tuple) else result


def _overrides_setup_context(cls: Any) -> bool:
    return cls.setup_context is not Function.setup_context


def _single_output(cls: type, output: Any) -> Tensor:
    outputs = output if isinstance(output, tuple) else (output,)
    tensors = [o for o in outputs if isinstance(o, Tensor)]
    if len(outputs) != 1 or len(tensors) != 1:
        raise NotImplementedError(
            f"{cls.__name__}.forward returned {len(outputs)} values; autogradkit's custom "
            "Functions return exactly one tensor (its engine gives each node one output). "
            "Split the computation into one Function per output."
        )
    return tensors[0]


def _record(ctx: Any, args: tuple, out: Any) -> Tensor:
    """Make ``ctx`` the ``grad_fn`` of the output: edges to the tensor inputs,
    the saved tensors with their versions now, and the output's metadata."""
    ctx.next_functions = tuple(core.gradient_edge(a) for a in args if isinstance(a, Tensor))
    ctx._inputs = args
    ctx._sequence_nr = next(core._sequence_numbers)
    ctx.input_metadata = ((out._data.shape, out._data.dtype),)
    if any(out is t for t in ctx._non_differentiable):
        ctx._saved, ctx._saved_sources = None, None
        return out
    result: Any
    if any(out is t for t in ctx._dirty):
        result = _rebase_dirty(ctx, out)
    elif any(out is a for a in args):
        # forward returned an input unchanged: the output is a new tensor (a view in
        # PyTorch) sharing its data, with this node as its history.
        result = Tensor._make(out._data, ctx)
        result._version_counter = out._version_counter
    else:
        result = out
        result.grad_fn, result._requires_grad = ctx, True
    saved = ctx._to_save or ()
    ctx._saved = tuple(result if s is out else s for s in saved)
    ctx._saved_sources = tuple(None if s is None else s._version_counter[0] for s in ctx._saved)
    return result


def _rebase_dirty(ctx: Any, tensor: Any) -> Tensor:
    """``forward`` changed ``tensor`` in place and returned it: the tensor's history
    now ends in this node (PyTorch's rules for in-place operations apply)."""
    if tensor.grad_fn is None and tensor._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )
    tensor._version_counter[0] += 1
    tensor.grad_fn, tensor._requires_grad = ctx, True
    return tensor
