"""Nodes of the backward graph and the ``Function`` base class every operation
derives from (mirrors ``torch/autograd/function.py``).

How an operation is recorded
----------------------------
An operation is a :class:`Function` subclass with two static methods::

    class Mul(Function):
        '''f(x, y) = x·y;   ∂f/∂x = y,   ∂f/∂y = x'''
        node_name = "MulBackward0"

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            return grad_output * y, grad_output * x

``Mul.apply(a, b)`` runs ``forward`` on the NumPy arrays inside the tensors. When
gradients are being tracked, the ``ctx`` it passed becomes the result's ``grad_fn``:
a :class:`Node` whose ``next_functions`` point at the nodes of ``a`` and ``b``. That
is PyTorch's design too: in a custom ``torch.autograd.Function`` the ``ctx`` *is*
the backward node.

``backward`` receives the gradient of the loss with respect to the output and
returns one gradient per ``forward`` argument (``None`` for arguments that need
none). If an input was broadcast in ``forward``, its gradient comes back with the
broadcast shape; :meth:`Node.apply` sums it back to the input's shape, once, here,
so no operation has to.

The same ``backward`` code serves first and higher derivatives. Normally it gets
NumPy arrays. When the pass records its own graph (``create_graph=True``) it gets
:class:`~autogradkit.Tensor` objects instead, and because tensors support the same
operators and NumPy functions (``*``, ``@``, ``np.exp`` …) the very same lines build
a differentiable graph of the backward pass.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import scalar_type_name
from ..tensor import Tensor
from . import grad_mode

__all__ = ["Function", "Node", "AccumulateGrad", "FunctionCtx", "once_differentiable"]

_sequence_numbers = itertools.count()
# Marks a node whose saved tensors a backward pass has freed.
_RELEASED = ()

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def _inplace_message(
    producer: str | None, shape: tuple, dtype: np.dtype, expected: int, now: int
) -> str:
    """PyTorch's error for a saved tensor that was modified in place; ``producer`` is
    the forward name of the operation that made it (``"Mul"``), None for a leaf."""
    shape_text = "[" + ", ".join(str(n) for n in shape) + "]"
    type_name = f"{scalar_type_name(dtype)}Tensor"
    origin = f", which is output 0 of {producer}," if producer else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{type_name} {shape_text}]{origin} is at version {now}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _forward_name(node: Node) -> str:
    """``MulBackward0`` -> ``Mul``: the name PyTorch uses for the operation itself."""
    return re.sub(r"Backward\d*$", "", node.name())


def sum_to_shape(grad, shape: tuple[int, ...]):
    """Undo broadcasting: sum ``grad`` over the axes along which an input of
    ``shape`` was stretched, so the result has ``shape`` again.

    Works on arrays and on tensors (whose ``sum`` accepts the NumPy keywords).

    >>> sum_to_shape(np.ones((2, 3)), (3,))
    array([2., 2., 2.])
    >>> sum_to_shape(np.ones((2, 3)), (2, 1))
    array([[3.],
           [3.]])
    """
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad


class Node:
    """One recorded operation in the backward graph (PyTorch: ``torch.autograd.graph.Node``).

    Attributes
    ----------
    next_functions : tuple of (Node or None, int)
        One pair per tensor input of the operation: the node that produced that input
        (its ``grad_fn``, or the ``AccumulateGrad`` of a leaf) and which of that node's
        outputs it was. ``None`` where the input does not require grad. Walking these
        from ``loss.grad_fn`` visits the whole graph.
    needs_input_grad : tuple of bool
        Per ``forward`` argument: does a gradient need to flow there?
    metadata : dict
        Free space for your own annotations (as in PyTorch).
    """

    # The fields every recorded node sets are slots; the rest are class-level
    # defaults that a node overrides only when it needs to (most never do), which
    # keeps recording an operation cheap.
    __slots__ = (
        "_listed",
        "needs_input_grad",
        "_slots",
        "_sequence_nr",
        "_to_save",
        "_saved",
        "_saved_sources",
        "__dict__",
        "__weakref__",
    )
    _differentiable = False
    _tensor_pre_hooks: list | None = None
    _pre_hooks: list | None = None
    _post_hooks: list | None = None
    _retained = None
    # True once any hook or retain_grad() is attached: the engine checks this one
    # flag instead of four attributes per node.
    _hooked = False
    _name = "Node"
    _function: type[Function] | None = None
    # Tensor inputs that do not require grad (``x`` and ``y`` in the tutorial):
    # ``(argument index, tensor)`` pairs. The engine never reads them; they let a
    # drawing of the graph show every input of the forward pass, as PyTorch's
    # tutorial picture does. Set on the few nodes that have such inputs.
    _untracked_inputs: tuple = ()

    # -- identity ---------------------------------------------------------------
    @property
    def next_functions(self) -> tuple:
        """One ``(node, input_nr)`` pair per input PyTorch lists for this operation;
        ``(None, 0)`` where no gradient flows."""
        edges = {slot[0]: (slot[1], slot[2]) for slot in self._slots}
        return tuple(
            edges.get(index, _NO_EDGE) for index, listed in enumerate(self._listed) if listed
        )

    def name(self) -> str:
        """The node's name, e.g. ``'MulBackward0'``."""
        return self._name

    def formula(self) -> str | None:
        r"""The operation's local derivative in LaTeX (its ``Function.formula``),
        e.g. ``\frac{\partial f}{\partial x} = y`` for ``MulBackward0``; None if
        the operation has none. Not in PyTorch: the visuals show it."""
        return None if self._function is None else self._function.formula

    def __repr__(self) -> str:
        return f"<{self._name} object at {id(self):#x}>"

    # -- saved tensors ------------------------------------------------------------
    def save_for_backward(self, *values: Any) -> None:
        """Keep ``values`` (forward's arrays) for ``backward``.

        Save inputs and outputs this way rather than as plain attributes: the engine
        then checks they were not modified in place before backward reads them, frees
        them after the pass (unless ``retain_graph=True``), and hands them to a
        ``create_graph`` pass as tensors connected to the graph.
        """
        self._to_save = values

    @property
    def saved_tensors(self) -> tuple:
        """What ``forward`` passed to :meth:`save_for_backward`.

        Raises
        ------
        RuntimeError
            After the graph was freed by a previous backward pass, or when one of them
            was modified in place since it was saved.
        """
        sources = self._saved_sources
        if sources is None:
            return self._saved
        if sources is _RELEASED:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        for counter, version, _, _ in sources:
            if counter is not None and counter[0] != version:
                self._raise_modified(counter, version)
        if not self._differentiable:
            return self._saved
        return tuple(self._saved_as_tensor(i) for i in range(len(self._saved)))

    def _saved_as_tensor(self, i: int):
        array = self._saved[i]
        _, _, kind, tensor = self._saved_sources[i]
        if array is None:
            return None
        if kind == "input":
            return tensor
        if kind == "output":
            return Tensor._make(array, grad_fn=self)
        return Tensor._make(array)

    def _raise_modified(self, counter: list, expected: int) -> None:
        # Like PyTorch's SavedVariable: a saved output is named after this node, a
        # saved input after the grad_fn it has now (an in-place op may have changed
        # it), and a leaf not at all.
        for value, (c, _, kind, tensor) in zip(self._saved, self._saved_sources):
            if c is counter:
                if kind == "output":
                    producer = _forward_name(self)
                elif tensor.grad_fn is not None:
                    producer = _forward_name(tensor.grad_fn)
                else:
                    producer = None
                raise RuntimeError(
                    _inplace_message(producer, value.shape, value.dtype, expected, counter[0])
                )

    def _release(self) -> None:
        """Free the saved tensors (called by the engine after a pass without retain_graph)."""
        if self._saved is not None:
            self._saved = None
            self._saved_sources = _RELEASED

    @property
    def metadata(self) -> dict:
        """Free space for your own annotations on this node (as in PyTorch)."""
        meta = self.__dict__.get("_metadata")
        if meta is None:
            meta = self._metadata = {}
        return meta

    # -- hooks ------------------------------------------------------------------
    def register_hook(self, fn: Callable) -> _RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; it may return
        new ``grad_inputs``."""
        if self._post_hooks is None:
            self._post_hooks = []
            self._hooked = True
        self._post_hooks.append(fn)
        return _RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> _RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; it may return new
        ``grad_outputs``."""
        if self._pre_hooks is None:
            self._pre_hooks = []
            self._hooked = True
        self._pre_hooks.append(fn)
        return _RemovableHandle(self._pre_hooks, fn)

    # -- running ----------------------------------------------------------------
    def apply(self, grad_output, create_graph: bool = False) -> list:
        """Run ``backward`` for this node and return one gradient per entry of
        ``_slots`` (the inputs that need one), each summed back to its input's shape
        and dtype. ``None`` where ``backward`` gave none."""
        if create_graph or self._differentiable:
            self._differentiable = create_graph
        grads = self._function.backward(self, grad_output)
        if type(grads) is not tuple:
            grads = (grads,)
        results = []
        for index, _, _, shape, dtype in self._slots:
            grad = grads[index]
            if grad is not None:
                if grad.shape != shape:
                    grad = sum_to_shape(grad, shape)
                    if grad.shape != shape:
                        grad = grad.reshape(shape)
                if type(grad) is not np.ndarray and not create_graph:
                    grad = np.asarray(grad)  # NumPy gives scalars for 0-d results
                if grad.dtype != dtype:
                    grad = grad.astype(dtype) if not create_graph else grad.to(_dtype_of(dtype))
            results.append(grad)
        return results


def _dtype_of(numpy_dtype):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(numpy_dtype)


class _RemovableHandle:
    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list, fn: Callable) -> None:
        self._hooks, self._fn = hooks, fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


class AccumulateGrad(Node):
    """The node at a leaf tensor: it adds the gradient it receives to
    ``variable.grad``. Reached through ``next_functions``; leaves themselves have
    ``grad_fn = None``."""

    __slots__ = ("variable",)
    _name = "AccumulateGrad"

    def __init__(self, variable) -> None:
        self._to_save = self._saved = self._saved_sources = None
        self.variable = variable
        self._listed = ()
        self.needs_input_grad = ()
        self._slots = ()
        # PyTorch gives AccumulateGrad the largest sequence number, so a leaf's
        # gradient is stored as soon as every contribution to it has arrived.
        self._sequence_nr = math.inf

    def name(self) -> str:
        return "autogradkit::autograd::AccumulateGrad"

    def formula(self) -> str:
        return r"\texttt{leaf.grad} \mathrel{+}= \texttt{grad\_output}"

    def accumulate(self, grad, create_graph: bool, owned: bool):
        """Add ``grad`` into ``variable.grad``; return the previous ``.grad``
        (a copy, since accumulation is in place) or None."""
        variable = self.variable
        if variable.grad_fn is not None:
            # It was a leaf when the graph was built, then an in-place op gave it history.
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not variable._requires_grad:
            # requires_grad_(False) after the graph was built: nothing to store (PyTorch).
            return None
        if type(grad) is not Tensor:
            if grad.shape != variable._data.shape:
                grad = np.asarray(sum_to_shape(grad, variable._data.shape))
            if grad.dtype != variable._data.dtype:
                grad = grad.astype(variable._data.dtype)
        old = variable._grad
        if old is None:
            if type(grad) is Tensor:
                variable._grad = grad if create_graph else Tensor._make(grad._data)
            else:
                # The gradient array may be shared (a pass-through of Add, or the user's
                # own `gradient=`), so store a private copy unless the engine knows it
                # was freshly made for us.
                variable._grad = Tensor._make(grad if owned else grad.copy())
            return None
        if create_graph or old.grad_fn is not None or type(grad) is Tensor:
            new = old + (grad if type(grad) is Tensor else Tensor._make(grad))
            variable._grad = new if create_graph else new.detach()
            return old
        previous = Tensor._make(old._data.copy())
        np.add(old._data, grad, out=old._data)
        old._version_counter[0] += 1
        return previous


class FunctionCtx:
    """Type name for the ``ctx`` argument of ``forward``/``backward``; at run time
    ``ctx`` is the backward :class:`Node` itself."""


class Function:
    """Base class of every differentiable operation.

    Subclasses define ``forward(ctx, *args)`` on NumPy arrays (tensor arguments
    arrive as their arrays, other arguments as they are) and
    ``backward(ctx, grad_output)``, and set ``node_name`` to the name PyTorch gives
    the node (``"MulBackward0"``). Call them through :meth:`apply`.

    Set ``scalars_are_inputs = True`` for operations where PyTorch wraps a Python
    number argument into a tensor (``a + 2``): the number then gets its own
    ``(None, 0)`` entry in ``next_functions``, as in PyTorch.
    """

    node_name: str = "FunctionBackward"
    # The local derivative in LaTeX, as Node.formula() returns it (the stepper's panel
    # renders it). Written with the names of the forward's docstring: f(x, y) = ...
    formula: str | None = None
    scalars_are_inputs: bool = False
    # Operations whose result shares its first input's memory (reshape, transpose,
    # indexing with ints and slices, ...) set this; see _link_view.
    creates_view: bool = False
    _node_class: type[Node]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        cls.node_name = name
        cls._node_class = type(name, (Node,), {"__slots__": (), "_name": name, "_function": cls})

    @staticmethod
    def forward(ctx: Node, *args: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("Function subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Node, grad_output: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("Function subclasses must implement backward(ctx, grad_output)")

    @classmethod
    def forward_error(cls, arrays: list, error: Exception) -> Exception | None:
        """Turn a NumPy error raised by ``forward`` into PyTorch's (None: re-raise)."""
        return None

    @classmethod
    def apply(cls, *args: Any):  # noqa: C901 - to be split in the readable-core work (issue 10)
        """Run the operation on tensors (or numbers) and record it when needed."""
        record = False
        arrays = []
        needs = []
        for arg in args:
            if type(arg) is Tensor:
                arrays.append(arg._data)
                needs.append(arg._requires_grad)
                if arg._requires_grad:
                    record = True
            else:
                arrays.append(arg)
                needs.append(False)
        node = cls._node_class.__new__(cls._node_class)
        node._to_save = None
        # forward may look at needs_input_grad to save only what backward will use
        # (Mul keeps y only when x needs a gradient), as in PyTorch.
        needs = tuple(needs)
        # Share one tuple per pattern: a graph keeps every node's tuple alive, and
        # fewer long-lived objects make Python's cyclic GC cheaper.
        node.needs_input_grad = _PATTERNS.setdefault(needs, needs)
        try:
            out = cls.forward(node, *arrays)
        except (ValueError, TypeError) as error:
            translated = cls.forward_error(arrays, error)
            if translated is None:
                raise
            raise translated from None
        if type(out) is not np.ndarray:
            scalar, out = out, np.asarray(out)  # NumPy returns scalars for 0-d results
            saved = node._to_save
            if saved is not None:
                for value in saved:
                    if value is scalar:
                        # forward saved the scalar: save the array the result holds instead
                        node._to_save = tuple(out if v is scalar else v for v in saved)
                        break
        if not record or not grad_mode._state.enabled:
            result = Tensor._make(out)
            if cls.creates_view:
                _link_view(result, args[0])
            return result

        # Record: link the node to the nodes that produced its inputs.
        # _slots: where each gradient goes (the engine's view of the edges);
        # _listed: which arguments PyTorch lists in next_functions (tensors, and for
        # arithmetic also Python numbers), kept as one shared tuple per pattern.
        listed = []
        slots = []
        untracked = None
        for index, arg in enumerate(args):
            if type(arg) is Tensor:
                listed.append(True)
                if arg._requires_grad:
                    edge = arg.grad_fn or arg._grad_accumulator()
                    slots.append((index, edge, 0, arg._data.shape, arg._data.dtype))
                elif untracked is None:
                    untracked = [(index, arg)]
                else:
                    untracked.append((index, arg))
            else:
                listed.append(cls.scalars_are_inputs and isinstance(arg, (int, float)))
        if untracked is not None:
            node._untracked_inputs = tuple(untracked)
        listed = tuple(listed)
        node._listed = _PATTERNS.setdefault(listed, listed)
        node._slots = slots
        node._sequence_nr = next(_sequence_numbers)
        result = Tensor._make(out, node)
        saved = node._to_save
        node._saved = saved
        node._saved_sources = None if saved is None else _describe_saved(saved, args, out, result)
        if cls.creates_view:
            _link_view(result, args[0])
        return result


_PATTERNS: dict[tuple, tuple] = {}
_NO_EDGE = (None, 0)
_CONSTANT_SOURCE = (None, 0, "constant", None)


def _link_view(view, source) -> None:
    """Make ``view`` (the result of a view operation on ``source``) a view in
    PyTorch's sense when NumPy gave it ``source``'s memory: it remembers its base and
    shares the base's version counter, so an in-place change through either is seen
    by everything that saved the other."""
    data, source_data = view._data, source._data
    owner = source_data if source_data.base is None else source_data.base
    if data.base is not None and data.base is owner:
        view._base = source._base if source._base is not None else source
        view._version_counter = source._version_counter


def _describe_saved(saved: tuple, args: tuple, out: np.ndarray, result) -> tuple:
    """For each saved value: (version counter, version at save time, kind, tensor),
    where kind says whether it is an input, the output, or a constant."""
    described = []
    for value in saved:
        source = _CONSTANT_SOURCE
        if value is out:
            counter = result._version_counter
            source = (counter, counter[0], "output", None)
        elif value is not None:
            for arg in args:
                if type(arg) is Tensor and arg._data is value:
                    counter = arg._version_counter
                    source = (counter, counter[0], "input", arg)
                    break
        described.append(source)
    return tuple(described)


def once_differentiable(fn: Callable) -> Callable:
    """Mark a backward that cannot itself be differentiated (kept for PyTorch API parity)."""
    return fn
