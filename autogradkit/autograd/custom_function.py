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
freed after the pass), ``needs_input_grad``, ``mark_non_differentiable``,
``mark_dirty`` and ``set_materialize_grads``; ``setup_context`` may fill ``ctx``
instead of ``forward``.

``forward`` may return a tuple: then ``apply`` returns a tuple, the k-th tensor has
``output_nr == k``, and ``backward(ctx, *grad_outputs)`` gets one gradient per
output. An output that no gradient reached gets zeros of its shape, or None after
``ctx.set_materialize_grads(False)`` (non-tensor outputs always get None).

The operations inside autogradkit derive from the same base, but compute on NumPy
arrays (see :mod:`autogradkit.autograd.function`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import anomaly_mode, forward_ad, grad_mode, graph, saved_variable
from . import function as core

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

once_differentiable = core.once_differentiable
FunctionCtx = core.FunctionCtx


class _CustomNode(core.Node):
    """The ``ctx`` of a custom Function, which becomes the output's ``grad_fn``:
    it keeps tensors (not arrays) and calls the user's ``backward`` with tensors."""

    __slots__ = ()
    # Its own apply (the user's backward, on tensors) runs through _GraphTask._call,
    # not the engine loop's plain path.
    _needs_call = True
    _non_differentiable: tuple[Any, ...] = ()
    _dirty: tuple[Any, ...] = ()
    _materialize_grads = True

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
        """With several outputs, an output that no gradient reached gets zeros in
        ``backward`` (the default) or, after ``set_materialize_grads(False)``, None."""
        self._materialize_grads = bool(value)

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
        if self._packed is not None:  # kept by saved_tensors_hooks
            return saved_variable.unpack_custom(self)
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
        grad_outputs = _grads_for_backward(self, grad_output)
        function: Any = self._function  # the user's Function subclass
        if create_graph:
            grads = function.backward(self, *grad_outputs)
        else:
            with grad_mode.no_grad():
                grads = function.backward(self, *grad_outputs)
        if type(grads) is not tuple:
            grads = (grads,)
        _check_count(self, grads)
        tracked = itertools.compress(grads, self.needs_input_grad)
        sent: list[Any] = []
        for index, (node, input_nr) in enumerate(zip(self._next_nodes, self._input_nrs)):
            if node is None:
                sent.append(None)
                continue
            grad = next(tracked)
            if grad is not None:
                grad = _as_engine_grad(grad, create_graph)
                shape, dtype = node.input_metadata[input_nr]
                _check_grad_shape(self, index, grad.shape, shape)
                grad = core._fit_to_input(grad, shape, dtype, create_graph)
            sent.append(grad)
        return sent


def _grads_for_backward(ctx: _CustomNode, grad_output: Any) -> list:
    """What the user's ``backward`` receives: one tensor per output; for an output
    no gradient reached, zeros of its shape and dtype (None if the output is not a
    tensor, or after ``set_materialize_grads(False)``)."""
    grads = grad_output if ctx._multi_output else [grad_output]
    given = []
    for grad, metadata in zip(grads, ctx.input_metadata):
        if grad is None:
            materialize = metadata is not None and ctx._materialize_grads
            given.append(Tensor._make(np.zeros(*metadata)) if materialize else None)
        else:
            given.append(grad if type(grad) is Tensor else Tensor._make(np.asarray(grad)))
    return given


def _producer(tensor: Tensor) -> str | None:
    return None if tensor.grad_fn is None else core._forward_name(tensor.grad_fn)


def _check_grad_shape(ctx: _CustomNode, index: int, got: tuple, expected: tuple) -> None:
    """A gradient must have its input's shape, or one the input broadcasts to (it
    is then summed back), as PyTorch's engine checks."""
    if got != expected and not _expands_to(expected, got):
        raise RuntimeError(
            f"Function {ctx.name()} returned an invalid gradient at index {index} - got "
            f"{list(got)} but expected shape compatible with {list(expected)}"
        )


def _expands_to(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _check_count(ctx: _CustomNode, grads: tuple) -> None:
    expected = len(ctx.needs_input_grad)
    if len(grads) != expected:
        raise RuntimeError(
            f"function {ctx.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {len(grads)})"
        )


def _as_engine_grad(grad: Any, create_graph: bool):
    """The engine works on arrays (tensors in a create_graph pass).

    A view of the tensor's array, not the array: the engine adopts an array it
    made itself as a leaf's ``.grad`` without copying it, and this one is the
    user's (``backward`` may keep the tensor it returned). PyTorch copies such a
    gradient too, so changing the tensor later leaves ``.grad`` alone."""
    if isinstance(grad, Tensor):
        return grad if create_graph else grad._data.view()
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
            name,
            (_CustomNode,),
            {"__slots__": (), "_name": name, "_function": cls, "__doc__": cls.__doc__},
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:  # pragma: no cover - abstract
        """One gradient per ``forward`` output in, one per ``forward`` argument out."""
        raise NotImplementedError("Function subclasses must implement backward(ctx, *grad_outputs)")

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
        ctx._saved = None
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        # forward sees plain values: its own operations are neither recorded nor
        # carry tangents (jvp gives the output's tangent), as in PyTorch.
        with grad_mode.no_grad(), forward_ad.paused():
            if _overrides_setup_context(cls):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        record = True in ctx.needs_input_grad and grad_mode.is_grad_enabled()
        outputs = output if isinstance(output, tuple) else (output,)
        _check_dirty_returned(ctx, outputs)
        if not isinstance(output, tuple):
            _check_output(cls, output)
        results = _record(ctx, args, outputs) if record else outputs
        if forward_ad.state.level is not None:  # forward mode: the user's jvp
            _push_tangents(cls, args, ctx, results)
        return results if isinstance(output, tuple) else results[0]


def _push_tangents(cls: Any, args: tuple, ctx: Any, results: tuple) -> None:
    """Forward mode: the user's ``jvp`` gives the output's tangent. autogradkit runs
    it for a Function with one output; with several, a tangent is refused."""
    if len(results) == 1 and isinstance(results[0], Tensor):
        forward_ad.push_custom_tangent(cls, args, ctx, results[0])
    elif any(type(a) is Tensor and forward_ad.tangent_of(a) is not None for a in args):
        raise NotImplementedError(
            f"{cls.__name__} returns several outputs: autogradkit's forward mode runs the jvp "
            "of custom Functions with one output only"
        )


def _check_dirty_returned(ctx: Any, outputs: tuple) -> None:
    """An input ``forward`` changed in place (``mark_dirty``) must be returned."""
    if any(not any(t is o for o in outputs) for t in ctx._dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )


def _overrides_setup_context(cls: Any) -> bool:
    return cls.setup_context is not Function.setup_context


def _check_output(cls: type, output: Any) -> None:
    if not isinstance(output, Tensor):
        raise TypeError(
            f"{cls.__name__}.forward must return a Tensor or a tuple of values, "
            f"not {type(output).__name__}"
        )


def _record(ctx: Any, args: tuple, outputs: tuple) -> tuple:
    """Make ``ctx`` the ``grad_fn`` of the outputs (the k-th with ``output_nr`` k):
    edges to the tensor inputs, the saved tensors with their versions now, and
    each output's shape and dtype (None for an output that is not a tensor)."""
    ctx._set_edges(core.gradient_edge(a) for a in args if isinstance(a, Tensor))
    ctx._inputs = args
    ctx._sequence_nr = next(core._sequence_numbers)
    if anomaly_mode.enabled:
        anomaly_mode.keep_forward_trace(ctx)
    ctx.input_metadata = tuple(
        (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in outputs
    )
    if len(outputs) > 1:
        ctx._multi_output = True
    results = tuple(
        _output(ctx, args, out, output_nr) if isinstance(out, Tensor) else out
        for output_nr, out in enumerate(outputs)
    )
    # Saved outputs are kept as the tensors handed out (with this node as history);
    # an input returned unchanged is saved as the input (its output is a new tensor).
    returned_inputs = {id(a) for a in args if not any(a is t for t in ctx._dirty)}
    by_id = {
        id(out): result for out, result in zip(outputs, results) if id(out) not in returned_inputs
    }
    ctx._saved = tuple(by_id.get(id(s), s) for s in ctx._saved or ())
    ctx._saved_sources = tuple(None if s is None else s._version_counter[0] for s in ctx._saved)
    if graph._stack and ctx._saved:
        saved_variable.pack_custom(ctx)
    return results


def _output(ctx: Any, args: tuple, out: Tensor, output_nr: int) -> Tensor:
    """The tensor ``apply`` returns for the output ``out`` of ``forward``."""
    if any(out is t for t in ctx._non_differentiable):
        if any(out is a for a in args):
            # An input returned unchanged: a new tensor sharing its data that, like
            # any output marked non-differentiable, does not require grad.
            alias = Tensor._make(out._data)
            alias._version_counter = out._version_counter
            return alias
        return out  # no history: it does not require grad
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
    result._output_nr = output_nr
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
