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

Forward mode
------------
An operation also states how a *tangent* passes through it (forward mode, see
:mod:`.forward_ad`): ``jvp(ctx, *tangents)`` returns J·ṫ where ``backward``
returns Jᵀ·g. Most operations inherit it from the base class that says what kind
of function they are: :class:`Elementwise` (``Mul(Elementwise)``: its Jacobians
are diagonal, so J·ṫ is backward's formula applied to ṫ, here y·ẋ + x·ẏ),
:class:`Linear` (the operation itself, run on the tangents), :class:`Bilinear`
(the product rule) or :class:`Reduction`; the others write it out. ``apply`` hands
every operation to :func:`.forward_ad.push_tangent` while a dual level is active.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

# The hot paths write ``ndarray``, not ``np.ndarray``: NumPy's module has a
# __getattr__, so CPython 3.11 cannot specialise ``np.<name>``, and each such read
# costs about 370 instructions more than reading a global of this module.
from numpy import ndarray

from .._dtype import scalar_type_name
from ..tensor import Tensor
from . import anomaly_mode as _anomaly_mode
from . import forward_ad as _forward_ad
from . import grad_mode
from . import graph as _graph
from . import saved_variable as _saved_variable

__all__ = [
    "Function",
    "Elementwise",
    "Linear",
    "Bilinear",
    "Reduction",
    "MultiOutputFunction",
    "Node",
    "AccumulateGrad",
    "FunctionCtx",
    "once_differentiable",
]

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
        f"version {expected} instead. {_inplace_hint()}"
    )


def _inplace_hint() -> str:
    """The last words of the in-place error: under anomaly mode the warning just
    shown points at the operation; otherwise, how to turn anomaly mode on."""
    if _anomaly_mode.enabled:
        return (
            "Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good luck!"
        )
    return (
        "Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _forward_name(node: Node) -> str:
    """The name PyTorch's messages give the operation itself: ``MulBackward0`` ->
    ``Mul``, but ``FillBackward2`` -> ``Fill2`` (an overload's number stays) and
    ``TanhBackwardBackward0`` -> ``TanhBackward``."""
    return re.sub(r"Backward(?:0|(\d+))?$", r"\1", node.name())


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
        grad = _sum_over(grad, _LEADING_AXES[extra])
    if 1 in shape:  # only a dimension of size 1 can have been stretched
        stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
        if stretched:
            grad = _sum_over(grad, stretched, keepdims=True)
    return grad


def _sum_over(grad, axes: tuple[int, ...], keepdims: bool = False):
    """``grad.sum(axis=axes, keepdims=keepdims)``; on an array it calls np.add.reduce,
    which is what ndarray.sum calls through a Python-level wrapper (saving about 1k
    instructions of each bias gradient in an MLP's backward pass)."""
    if type(grad) is ndarray:
        return _add_reduce(grad, axes, keepdims=True) if keepdims else _add_reduce(grad, axes)
    return grad.sum(axis=axes, keepdims=keepdims)


# The leading axes a gradient has beyond its input's, (), (0,), (0, 1), ... by how
# many (NumPy arrays have at most 64), and np.add.reduce read once (np.<name> is
# not specialised: see the imports): a bias's gradient in an MLP's backward pass,
# sum_to_shape of a 64 × 128 gradient, 29.6k -> 27.5k instructions (callgrind).
_LEADING_AXES = tuple(tuple(range(n)) for n in range(65))
_add_reduce = np.add.reduce


class Edge(NamedTuple):
    """Where a gradient goes: into ``node``, as the gradient of its forward output
    number ``input_nr`` (PyTorch: ``torch::autograd::Edge``).

    ``node`` is None for an input that needs no gradient. Edges print as PyTorch
    prints them, as a ``(node, input_nr)`` pair, and unpack like one.
    """

    node: Node | None
    input_nr: int

    def __repr__(self) -> str:
        return f"({self.node!r}, {self.input_nr})"


NO_EDGE = Edge(None, 0)


class _SavedByName:
    """``grad_fn._saved_<name>``: what the node's operation saved under that name
    (see :func:`_saved_by_name`); an AttributeError where it saved nothing so named."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, node: Node | None, owner: type | None = None) -> Any:
        if node is None:
            return self
        return _saved_by_name(node, self.name)


class _RawSavedByName(_SavedByName):
    """``grad_fn._raw_saved_<name>``: the saved tensor as an object that takes hooks
    (``register_hooks(pack, unpack)``, see :mod:`.saved_variable`)."""

    def __get__(self, node: Node | None, owner: type | None = None) -> Any:
        if node is None:
            return self
        return _saved_variable.raw_saved(node, self.name)


class Node:
    """One recorded operation in the backward graph (PyTorch: ``torch.autograd.graph.Node``).

    Attributes
    ----------
    next_functions : tuple of Edge
        One ``(node, input_nr)`` edge per input PyTorch lists for the operation: the
        node that produced that input (its ``grad_fn``, or the ``AccumulateGrad`` of
        a leaf) and which of that node's outputs it was; ``(None, 0)`` where the
        input needs no gradient. Walking these from ``loss.grad_fn`` visits the
        whole graph.
    needs_input_grad : tuple of bool
        Per ``forward`` argument: does a gradient need to flow there?
    input_metadata : tuple of (shape, dtype)
        Per forward output, the shape and NumPy dtype of that output: a gradient
        arriving for it is summed back to this shape and cast to this dtype. (The
        name is PyTorch's: the *inputs* of a backward node are the gradients of the
        forward's *outputs*.) Most operations have one output; ``split`` has one
        per piece, and a tensor's ``output_nr`` says which one it is.
    metadata : dict
        Free space for your own annotations (as in PyTorch).
    """

    # The fields every recorded node sets are slots; the rest are class-level
    # defaults that a node overrides only when it needs to (most never do), which
    # keeps recording an operation cheap.
    #
    # The edges are kept as two plain tuples, not as Edge objects: _next_nodes (the
    # node each edge leads into, None where no gradient flows) and _input_nrs (which
    # output of that node, nearly always a shared tuple of zeros). next_functions
    # builds the Edges from them when asked. An Edge and the tuple holding the
    # Edges are two more objects per input the garbage collector tracks as long as
    # the graph lives; a graph that outlives a few collections reaches the oldest
    # generation, whose collections walk every object. Per link of the
    # t * 1.001 + 0.001 chain this leaves 4 tracked objects instead of 6: CPU time
    # per link at 20,000 links 24.6 -> 17.9 µs (bench_core --quick, torch imported),
    # and fewer objects to build: callgrind chain 18.34M -> 16.49M instructions.
    __slots__ = (
        "_next_nodes",
        "_input_nrs",
        "needs_input_grad",
        "input_metadata",
        "_sequence_nr",
        "_saved",
        "__dict__",
        "__weakref__",
    )
    _next_nodes: tuple[Node | None, ...]
    _input_nrs: tuple[int, ...]
    needs_input_grad: tuple[bool, ...]
    input_metadata: tuple[tuple[tuple[int, ...], np.dtype], ...]
    _sequence_nr: int | float
    # What save_for_backward got (None: nothing, or freed). forward writes it and
    # _record reads it where it is, rather than from a second field copied over:
    # the lines every operation runs meet nodes of many classes, and each store or
    # read there misses CPython 3.11's per-line cache (kept by type) and takes the
    # slow path. Callgrind (tiny script, mean of 4 heap layouts): forward of the
    # 500-product fan-out 25.50M -> 25.25M, of the 200-link chain 8.48M -> 8.39M.
    _saved: Any
    # Per saved value (counter, version, kind, tensor); None: nothing saved;
    # _RELEASED: freed by a backward pass. A class default, like _inputs, set on
    # the nodes that saved something.
    _saved_sources: Any = None
    _differentiable = False
    # The forward's arguments, kept only where something reads them later (see
    # _record): a class default, set on the node only then, so recording an
    # operation that keeps none (s + p, t * 1.001) spares a store on a line that
    # meets nodes of many classes (see _saved). Callgrind (tiny script, mean of 4
    # heap layouts): forward of the 200-link chain 8.39M -> 8.30M, of the 500-product
    # fan-out 25.25M -> 25.08M.
    _inputs: tuple = ()
    _tensor_pre_hooks: list | None = None
    _pre_hooks: list | None = None
    _post_hooks: list | None = None
    _retained: Any = None  # weakref.ref to the tensor that called retain_grad()
    # What saved_tensors_hooks' pack hook returned (a class default, not a slot: set
    # only under such hooks, and reading it never makes the node a __dict__).
    _packed: Any = None
    # True when the engine must run this node through _GraphTask._call rather than
    # its plain path: once any hook or retain_grad() is attached (one flag read
    # instead of four attributes per node), and always for AccumulateGrad,
    # CopySlices and a custom Function's node, whose backward is more than a formula.
    _needs_call = False
    # True for a node whose forward made several outputs (split, a custom Function
    # returning a tuple): the engine then keeps one gradient per output for it and
    # its backward receives them all, one argument each.
    _multi_output = False
    # True for a node whose _release frees more than its saved tensors (CopySlices
    # lets go of its fn): the engine calls _release on every other node only when
    # it saved something.
    _release_always = False
    # True for a node no input of which needs a gradient (see _computes_nothing).
    _computes_nothing = False
    _name = "Node"
    _function: Any = None  # the Function class whose backward this node runs
    _backward: Callable[..., Any]  # that backward (set on the classes Function makes)
    # True for the nodes of an operation's Scalar overload (MulBackward1, recorded
    # inside a backward formula): see _saved_as_tensor.
    _scalar_overload = False
    # Forward mode: a tensor that carries the output's tangent while its level lasts
    # (see forward_ad.push_tangent), for backward formulas that read the saved output.
    _output_tangent: Any = None
    # Set by forward mode (forward_ad.push_tangent) on the nodes whose jvp reads them.
    primals: tuple
    differentiable: tuple
    result: Any

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        """One ``Edge(node, input_nr)`` per input (see the class docstring): a new
        tuple on every read, as in PyTorch, and not assignable."""
        return tuple(map(_new_edge, self._next_nodes, self._input_nrs))

    @next_functions.setter
    def next_functions(self, value: Any) -> None:
        self._not_writable("next_functions")

    @next_functions.deleter
    def next_functions(self) -> None:
        self._not_writable("next_functions")

    def _not_writable(self, name: str) -> None:
        raise AttributeError(
            f"attribute '{name}' of '{type(self).__name__}' objects is not writable"
        )

    def _set_edges(self, edges: Any) -> None:
        """Keep ``edges`` (Edges or ``(node, input_nr)`` pairs) as this node's edges."""
        edges = tuple(edges)
        self._next_nodes = tuple(node for node, _ in edges)
        self._input_nrs = tuple(input_nr for _, input_nr in edges)

    # -- identity ---------------------------------------------------------------
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

    @property
    def untracked_inputs(self) -> tuple:
        """The tensor inputs of the forward that need no gradient (``x`` and ``y`` in
        the tutorial): their edges are ``(None, 0)``. Not in PyTorch: a drawing of
        the graph shows them, as the tutorial's picture does."""
        return tuple(
            arg
            for arg, needed in zip(self._inputs, self.needs_input_grad)
            if not needed and type(arg) is Tensor
        )

    # -- saved tensors ------------------------------------------------------------
    def save_for_backward(self, *values: Any) -> None:
        """Keep ``values`` (forward's arrays) for ``backward``.

        Save inputs and outputs this way rather than as plain attributes: the engine
        then checks they were not modified in place before backward reads them, frees
        them after the pass (unless ``retain_graph=True``), and hands them to a
        ``create_graph`` pass as tensors connected to the graph.
        """
        self._saved = values

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
        # Tensors in a create_graph pass; never before one (see _run_formula),
        # so until then the flag, a class attribute read (~250 instructions), is not.
        differentiable = _create_graph_seen and self._differentiable
        if type(sources) is _OnlyConstants and not differentiable:
            # Only numbers (or None) were saved (t * 1.001): nothing to check or unpack.
            return self._saved
        if sources is _RELEASED:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        if _packed_seen and self._packed is not None:
            return self._unpacked_saved_tensors(differentiable)
        for counter, version, _, _ in sources:
            if counter is not None and counter[0] != version:
                self._raise_modified()
        if not differentiable:
            return self._saved
        return tuple(self._saved_as_tensor(i) for i in range(len(self._saved)))

    def _unpacked_saved_tensors(self, differentiable: bool) -> tuple:
        """:attr:`saved_tensors` of a node with hooked saved tensors: each unpacked
        again (its unpack hook runs on every read), the others checked unchanged."""
        packed = self._packed
        self._saved = _saved_variable.unpack_all(self)
        for (counter, version, _, _), hooked in zip(self._saved_sources, packed):
            if hooked is None and counter is not None and counter[0] != version:
                self._raise_modified(packed)
        saved = self._saved
        if differentiable:
            saved = tuple(
                self._saved_as_tensor(i)
                if hooked is None or saved[i] is None
                else _saved_variable.unpacked_as_tensor(self, i, saved[i])
                for i, hooked in enumerate(packed)
            )
        # Only the packed values stay kept, as before the read.
        self._saved = tuple(None if p is not None else a for a, p in zip(self._saved, packed))
        return saved

    def _saved_as_tensor(self, i: int):
        array = self._saved[i]
        _, _, kind, tensor = self._saved_sources[i]
        if array is None:
            return None
        if kind == "input":
            return tensor
        if kind == "output":
            saved = Tensor._make(array, grad_fn=self)
            if self._output_tangent is not None:  # forward-over-reverse: keep its tangent
                _forward_ad.copy_tangent(self._output_tangent, saved)
            return saved
        if self._scalar_overload and isinstance(array, (int, float)):
            # The number of a formula's ``2 * y`` (MulBackward1) stays a number: its
            # backward multiplies by a Scalar too, recording MulBackward1 again.
            return array
        return Tensor._make(array)

    def _raise_modified(self, hooked: Sequence | None = None) -> None:
        """PyTorch's error for a saved tensor changed in place since it was saved:
        the first such one in the order PyTorch unpacks them (x / y: y, then x),
        which its message names. (Tensors a saved_tensors hook packed, ``hooked[i]``
        not None, are not checked.)"""
        for i in _saved_order(self):
            counter, expected, kind, tensor = self._saved_sources[i]
            if counter is None or counter[0] == expected:
                continue
            if hooked is not None and hooked[i] is not None:
                continue
            # Like PyTorch's SavedVariable: a saved output is named after this node,
            # a saved input after the grad_fn it has now (an in-place op may have
            # changed it), and a leaf not at all.
            if kind == "output":
                producer = _forward_name(self)
            elif tensor.grad_fn is not None:
                producer = _forward_name(tensor.grad_fn)
            else:
                producer = None
            value = self._saved[i]
            raise RuntimeError(
                _inplace_message(producer, value.shape, value.dtype, expected, counter[0])
            )

    # What the operation saved, by PyTorch's names: its nodes have these as
    # properties (generated from derivatives.yaml), and so do ours. They are named
    # one by one rather than served by a __getattr__, because a class with
    # __getattr__ makes every attribute read on every node (next_functions,
    # input_metadata, saved_tensors, ...) take CPython's slow generic path: about a
    # tenth of a backward pass.
    _saved_self = _SavedByName()
    _saved_other = _SavedByName()
    _saved_result = _SavedByName()
    _saved_exponent = _SavedByName()
    _saved_dim = _SavedByName()
    _saved_dims = _SavedByName()
    _saved_keepdim = _SavedByName()
    _saved_indices = _SavedByName()
    _saved_p = _SavedByName()
    _saved_reduction = _SavedByName()
    _saved_split_size = _SavedByName()
    _saved_split_sizes = _SavedByName()
    _saved_self_sym_sizes = _SavedByName()
    # The saved tensors themselves, to register hooks on (see saved_variable).
    _raw_saved_self = _RawSavedByName()
    _raw_saved_other = _RawSavedByName()
    _raw_saved_result = _RawSavedByName()

    def _release(self) -> None:
        """Free the saved tensors (called by the engine after a pass without retain_graph)."""
        if self._saved is not None:
            if self._computes_nothing and not any(value is not None for value in self._saved):
                return  # nothing was saved: a second pass finds nothing freed (see there)
            self._saved = None
            self._saved_sources = _RELEASED
            if self._packed is not None:
                self._packed = None  # what pack hooks returned goes too

    @property
    def metadata(self) -> dict:
        """Free space for your own annotations on this node (as in PyTorch)."""
        meta = self.__dict__.get("_metadata")
        if meta is None:
            meta = self.__dict__["_metadata"] = {}
        return meta

    # -- hooks ------------------------------------------------------------------
    def _tensor_hooks(self, output_nr: int) -> list:
        """The hooks registered on the tensor that is output ``output_nr`` of this
        node (``tensor.register_hook``), made on first use."""
        self._needs_call = True
        if self._multi_output:
            return self.__dict__.setdefault("_output_hooks", {}).setdefault(output_nr, [])
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        return self._tensor_pre_hooks

    def _retain(self, tensor: Tensor) -> None:
        """``tensor.retain_grad()`` for the tensor that is one of this node's outputs."""
        self._needs_call = True
        if self._multi_output:
            retained = self.__dict__.setdefault("_retained_outputs", {})
            retained[tensor._output_nr] = weakref.ref(tensor)
        else:
            self._retained = weakref.ref(tensor)

    def register_hook(self, fn: Callable) -> _RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; it may return
        new ``grad_inputs``."""
        if self._post_hooks is None:
            self._post_hooks = []
            self._needs_call = True
        self._post_hooks.append(fn)
        return _RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> _RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; it may return new
        ``grad_outputs``."""
        if self._pre_hooks is None:
            self._pre_hooks = []
            self._needs_call = True
        self._pre_hooks.append(fn)
        return _RemovableHandle(self._pre_hooks, fn)

    # -- running ----------------------------------------------------------------
    @property
    def sequence_nr(self) -> int | float:
        """When the operation was recorded: 0 for the first, 1 for the next, …
        (``AccumulateGrad``: infinity, so a leaf's gradient is stored as soon as it
        is complete). Among nodes ready to run, the engine runs the highest first."""
        return self._sequence_nr

    def apply(self, grad_output, create_graph: bool = False) -> list:
        """Run ``backward`` for this node: one gradient per entry of
        ``next_functions`` (None where no gradient flows), each summed back to the
        shape, and cast to the dtype, of the input it is for.

        A node with several outputs gets, and hands to ``backward``, a list: one
        gradient per output (None for an output no gradient reached)."""
        if create_graph:
            grads = _run_formula(self, grad_output)
        else:
            grads = self._backward(self, grad_output)  # its Function's backward
        if type(grads) is not tuple:
            grads = (grads,)
        next_nodes = self._next_nodes
        # Usually every argument has an edge, so the k-th gradient is for the k-th
        # edge (and an argument needs a gradient exactly when its edge leads
        # somewhere); otherwise they are paired up first. An index loop over a list
        # of them: cheaper than zip or a new list appended to (backward of the
        # 200-link chain -4%, callgrind), made by [*grads], not list(grads): no call.
        sent = [*grads] if len(grads) == len(next_nodes) else _one_per_edge(self, grads)
        i = -1
        for node in next_nodes:
            i += 1
            grad = sent[i]
            if node is None:
                sent[i] = None
            elif grad is not None:
                shape, dtype = node.input_metadata[self._input_nrs[i]]
                if not _fits_input(grad, shape, dtype):
                    sent[i] = _fit_to_input(grad, shape, dtype, create_graph, self, i)
        return sent


def _fits_input(grad, shape: tuple, dtype: np.dtype) -> bool:
    """Whether a gradient already fits its input as it is (most do): an array of
    the input's shape and dtype (usually the very same dtype object), or for a 0-d
    input a NumPy scalar of its dtype, told by its type alone (isinstance, .shape
    and .dtype of a scalar cost ~1.1k instructions more; chain -2.8%). Node.apply
    and the engine's loop ask this of every gradient before fitting it."""
    if type(grad) is ndarray:
        return grad.dtype is dtype and grad.shape == shape
    return not shape and type(grad) is dtype.type


# True once a node ran with create_graph: until then no node's _differentiable can
# be set, so saved_tensors need not read it (an unspecialised class attribute read,
# ~250 instructions a node; a global is read for ~30).
_create_graph_seen = False


def _one_per_edge(node: Node, grads) -> list:
    """The gradients of a node with arguments that have no edge (``dim``,
    ``reduction``), one per edge: backward gives one per forward argument, and the
    k-th argument that needs a gradient is the k-th edge that leads somewhere. (A
    backward with one argument may return its gradient alone, not in a tuple; a
    list is what Node.apply made: one per edge already.)"""
    if type(grads) is list:
        return grads
    if type(grads) is not tuple:
        grads = (grads,)
    tracked = itertools.compress(grads, node.needs_input_grad)
    return [None if child is None else next(tracked) for child in node._next_nodes]


def _saved_by_name(node: Node, name: str) -> Any:
    """What ``node``'s operation saved for backward, by PyTorch's attribute names
    ("Autograd mechanics"): ``_saved_self``/``_saved_other`` are the first/second
    input itself, ``_saved_result`` the output (a new tensor, with this node as its
    ``grad_fn``), and other names the operation's saved arguments
    (``PowBackward0._saved_exponent``). After the graph was freed, PyTorch's error."""
    key = name[len("_saved_") :]
    sources = getattr(node, "_saved_sources", None)
    if sources is _RELEASED and (key in ("self", "other", "result") or key in node.__dict__):
        raise RuntimeError(SECOND_BACKWARD_MESSAGE)
    if key in ("self", "other", "result") and sources:
        try:
            index = _saved_variable.index_by_name(node, key)
        except KeyError:
            pass
        else:  # None: saved only when the other input needs a gradient (Mul)
            return None if index is None else _saved_variable.saved_tensor(node, index)
    elif key in node.__dict__:
        return node.__dict__[key]
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")


def _fit_to_input(
    grad,
    shape: tuple,
    dtype: np.dtype,
    create_graph: bool,
    node: Node | None = None,
    index: int = 0,
):
    """Give a gradient the shape and dtype of the input it is for: sum it over the
    axes along which that input was broadcast (PyTorch does this once, in the
    engine, so no operation has to). ``node`` sent it as its ``index``-th gradient
    (None: it is a root's gradient), which PyTorch's error for a gradient that
    fits no broadcast names (one can only arise after ``y.data = <other shape>``)."""
    if grad.shape != shape:
        got = grad.shape
        if len(got) >= len(shape):
            grad = _sum_to(grad, shape) if create_graph else sum_to_shape(grad, shape)
        if grad.shape != shape:
            if math.prod(grad.shape) != math.prod(shape):
                raise _invalid_gradient(node, index, got, shape)
            grad = grad.reshape(shape)
    if create_graph:
        return grad if grad.dtype == dtype else grad.to(_dtype_of(dtype))
    if not isinstance(grad, _NUMPY_VALUE):
        grad = np.asarray(grad)
    return grad if grad.dtype == dtype else grad.astype(dtype)


def _invalid_gradient(node: Node | None, index: int, got: tuple, shape: tuple) -> RuntimeError:
    """PyTorch's error for a gradient whose shape does not broadcast to its input's."""
    sender = "" if node is None else f"Function {node.name()} returned an "
    return RuntimeError(
        f"{sender}invalid gradient at index {index} - got {list(got)} but expected shape "
        f"compatible with {list(shape)}"
    )


def _sum_to(grad: Tensor, shape: tuple) -> Tensor:
    """:func:`sum_to_shape` in a create_graph pass, done as PyTorch's ``sum_to`` so
    that the graph shows its nodes: ``sum()`` to a 0-d shape (SumBackward0), else one
    sum keeping the leading and stretched dims (SumBackward1), then a view that drops
    the leading ones (ViewBackward0)."""
    if not shape:
        return grad.sum()
    leading = grad.ndim - len(shape)
    stretched = [
        leading + i for i, n in enumerate(shape) if n == 1 and grad.shape[leading + i] != 1
    ]
    dims = tuple(range(leading)) + tuple(stretched)
    if dims:
        grad = grad.sum(axis=dims, keepdims=True)
    return grad.view(shape) if leading > 0 else grad


# What gradients are between nodes of a pass: arrays, and NumPy scalars for 0-d
# gradients. NumPy returns a scalar for a 0-d result and computes with scalars
# many times faster than with 0-d arrays, so they stay scalars inside the engine
# and become 0-d arrays where they leave it (.grad, hooks, step records, grad()).
_NUMPY_VALUE = (np.ndarray, np.generic)


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

    __slots__ = ("variable", "_edges_with_constant")
    _name = "AccumulateGrad"
    # The leaf's register_post_accumulate_grad_hook hooks (a class default: most
    # leaves have none, and the engine reads this once per leaf).
    _post_accumulate_hooks: list | None = None
    _needs_call = True  # the engine runs it through _GraphTask._call (its _accumulate)

    def __init__(self, variable) -> None:
        self._saved = self._saved_sources = None
        self.variable = variable
        # The edges of every node of this leaf with a tensor that needs no gradient
        # (a @ m), shared by them all rather than a tuple each (see _unwrap_pair).
        self._edges_with_constant = (self, None)
        self._next_nodes = self._input_nrs = ()
        self.needs_input_grad = ()
        # PyTorch gives AccumulateGrad the largest sequence number, so a leaf's
        # gradient is stored as soon as every contribution to it has arrived.
        self._sequence_nr = math.inf
        self.leaf_changed()

    def leaf_changed(self) -> None:
        """Take the leaf's shape and dtype again (``leaf.data = ...`` may change them)."""
        data = self.variable._data
        self.input_metadata = ((data.shape, data.dtype),)

    def name(self) -> str:
        return "autogradkit::autograd::AccumulateGrad"

    def register_post_accumulate_hook(self, hook: Callable) -> _RemovableHandle:
        """Call ``hook(variable)`` each time a backward pass has added to ``variable.grad``."""
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        self._post_accumulate_hooks.append(hook)
        return _RemovableHandle(self._post_accumulate_hooks, hook)

    def run_post_accumulate_hooks(self, create_graph: bool) -> None:
        """Run the leaf's post-accumulate hooks (in no_grad mode unless create_graph,
        as PyTorch); they act on the leaf itself and must return None."""
        from ..tensor import Tensor
        from .grad_mode import set_grad_enabled

        for hook in list(self._post_accumulate_hooks or ()):
            with set_grad_enabled(create_graph):
                result = hook(self.variable)
            if result is not None and not isinstance(result, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
            if result is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def formula(self) -> str:
        return r"\texttt{leaf.grad} \mathrel{+}= \texttt{grad\_output}"

    def accumulate(self, grad, create_graph: bool, owned: bool, keep_previous: bool = True):
        """Add ``grad`` into ``variable.grad``.

        ``owned``: the engine made this array and nothing else holds it, so it may
        become ``.grad`` without a copy. Returns the previous ``.grad`` (a copy,
        since the sum is taken in place) when ``keep_previous``, else None.
        """
        variable = self.variable
        # (variable.grad_fn, read only when it may be set: the property costs a call.)
        if (variable._grad_fn is not None or variable._view is not None) and (
            variable.grad_fn is not None
        ):
            # It was a leaf when the graph was built, then an in-place op gave it history.
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not variable._requires_grad:
            # requires_grad_(False) after the graph was built: nothing to store (PyTorch).
            return None
        # Read, add, write back: two threads running backward into one leaf must not
        # interleave here, or one's contribution is lost (PyTorch locks per leaf too).
        # acquire/release rather than a with block: ~1.0k instructions less a leaf
        # (callgrind), the with statement's special method look-ups.
        _ACCUMULATE_LOCK.acquire()
        try:
            if variable._grad is None:
                variable._grad = _first_grad(grad, variable, create_graph, owned)
                return None
            return self._add_to_grad(grad, create_graph, keep_previous)
        finally:
            _ACCUMULATE_LOCK.release()

    def _add_to_grad(self, grad, create_graph: bool, keep_previous: bool):
        variable = self.variable
        old = variable._grad
        if create_graph:  # Recorded, as in PyTorch: .grad becomes old + grad (AddBackward0).
            variable._grad = old + (
                grad if type(grad) is Tensor else Tensor._make(np.asarray(grad))
            )
            return old
        # Otherwise PyTorch adds in place, even into a .grad that has a grad_fn (a
        # create_graph pass made it): .grad stays the same tensor, keeps its grad_fn,
        # and a name still holding it sees the sum.
        if type(grad) is Tensor:
            grad = grad._data
        previous = Tensor._make(old._data.copy()) if keep_previous else None
        np.add(old._data, _fit_array(grad, old._data), out=old._data)
        old._version_counter[0] += 1
        return previous


# One lock for every leaf: an accumulation takes microseconds, so sharing it costs
# nothing measurable, and it cannot be missing when two graphs made their own
# AccumulateGrad for one leaf.
_ACCUMULATE_LOCK = threading.RLock()


def _first_grad(grad, variable, create_graph: bool, owned: bool):
    """What ``.grad`` becomes on the first accumulation into ``variable``."""
    if type(grad) is Tensor:
        return _copied_tensor_grad(grad, variable, create_graph)
    data = variable._data
    fitted = grad
    if grad.shape != data.shape or grad.dtype is not data.dtype:
        fitted = _fit_array(grad, data)
    if type(fitted) is not ndarray:
        fitted = np.asarray(fitted)  # a 0-d gradient may be a NumPy scalar
    # The gradient array may be shared (a pass-through of Add, or the user's own
    # `gradient=`), so store a private copy unless the engine knows it was made
    # for us alone.
    return Tensor._make(fitted if owned or fitted is not grad else fitted.copy())


def _copied_tensor_grad(grad: Tensor, variable: Tensor, create_graph: bool) -> Tensor:
    """The first ``.grad`` of ``variable`` from a gradient that arrived as a tensor:
    one a custom Function's backward returned, or, under ``create_graph``, one the
    recorded formulas made.

    PyTorch stores a copy in the leaf's own dtype and layout (its "gradient layout
    contract"), so a tensor the user still holds is not ``.grad`` itself: changing
    it later leaves ``.grad`` alone. Under ``create_graph`` the copy is recorded,
    so ``x.grad`` prints ``grad_fn=<CopyBackwards>`` as in PyTorch, and the next
    derivative flows through it.
    """
    if not create_graph:
        return Tensor._make(grad._data.astype(variable._data.dtype, copy=True))
    with grad_mode.enable_grad():
        return Tensor._make(np.empty_like(variable._data)).copy_(grad)


def _fit_array(grad: np.ndarray, like: np.ndarray) -> np.ndarray:
    if grad.shape != like.shape:
        grad = np.asarray(sum_to_shape(grad, like.shape))
    return grad if grad.dtype == like.dtype else grad.astype(like.dtype)


def _node_class_dict(function: Any, name: str) -> dict:
    """The class body of ``function``'s backward node class, named ``name``."""
    return {
        "__slots__": (),
        "_name": name,
        "_function": function,
        # Node.apply calls this: one class attribute read rather than _function and
        # then its backward (~230 instructions a node; callgrind).
        "_backward": staticmethod(function.backward),
        "__doc__": function.__doc__,
    }


def _set_recipe(function: Any) -> None:
    """Keep what :meth:`Function.apply` reads of ``function`` on every call as one
    tuple, ``function._recipe``: its node class, forward, scalars_are_inputs and
    creates_view, as the class body set them (the node class keeps backward the
    same way). CPython 3.11 does not specialise most reads of a class's attributes:
    one read instead of four, ~250 instructions less per operation (callgrind, tiny
    script: a @ m of 3×3 25.73k -> 25.51k, s + p 20.56k -> 20.29k, one link of
    t * 1.001 + 0.001 41.47k -> 40.77k)."""
    function._recipe = (
        function._node_class,
        function.forward,
        function.scalars_are_inputs,
        function.creates_view,
    )


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
    # PyTorch's name for the operation with a number operand inside a backward formula
    # (C++ calls the Scalar overload there: ``grad * 2`` records MulBackward1); None:
    # the operation has no such overload.
    scalar_node_name: str | None = None
    # Operations whose result shares its first input's memory (reshape, transpose,
    # indexing with ints and slices, ...) set this; see views.link_view.
    creates_view: bool = False
    # The order in which PyTorch packs and unpacks what the operation saves, when it
    # differs from the order forward saves them in (saved_tensors_hooks show it):
    # ``(1, 0)`` for x * y, whose node keeps ``other`` before ``self``.
    saved_order: tuple[int, ...] | None = None
    _node_class: type[Node]
    _scalar_node_class: type[Node]
    _recipe: tuple[type[Node], Callable[..., Any], bool, bool]  # see _set_recipe

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward"
        cls.node_name = name
        cls._node_class = type(name, (Node,), _node_class_dict(cls, name))
        scalar_name = cls.__dict__.get("scalar_node_name")
        if scalar_name is not None:
            cls._scalar_node_class = type(
                scalar_name,
                (Node,),
                {**_node_class_dict(cls, scalar_name), "_scalar_overload": True},
            )
        _set_recipe(cls)

    @staticmethod
    def forward(ctx: Node, *args: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("Function subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx: Node, grad_output: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("Function subclasses must implement backward(ctx, grad_output)")

    @staticmethod
    def jvp(ctx: Node, *tangents: Any) -> Any:
        """The tangent rule of forward mode: the output's tangent, given one tangent
        per ``forward`` argument (a NumPy array, or None where that argument has
        none). It is J·t, the derivative applied to the tangents, where ``backward``
        computes Jᵀ·g. ``ctx.primals`` holds ``forward``'s arguments, ``ctx.result``
        its output, ``ctx.saved_tensors`` what ``forward`` saved as if the inputs
        with tangents needed gradients. Most operations inherit it from
        :class:`Elementwise`, :class:`Linear`, :class:`Bilinear` or
        :class:`Reduction`."""
        raise NotImplementedError(
            f"Trying to use forward AD with {_forward_name(ctx)} that does not support it."
        )

    @classmethod
    def forward_error(cls, arrays: list, error: Exception) -> Exception | None:
        """Turn a NumPy error raised by ``forward`` into PyTorch's (None: re-raise)."""
        return None

    @classmethod
    def apply(cls, *args: Any):
        """Run the operation on tensors (or numbers) and record it when needed.

        The context ``ctx`` that ``forward`` fills in becomes the result's
        ``grad_fn`` when an input needs a gradient and grad mode is on.
        """
        node_class, forward, scalars_are_inputs, creates_view = cls._recipe  # see _set_recipe
        ctx = node_class()  # a Node (no __init__): cheaper than _node_class.__new__
        ctx._saved = None
        # forward may look at needs_input_grad to save only what backward will use
        # (Mul keeps y only when x needs a gradient), as in PyTorch.
        if len(args) == 2:  # (args[0], args[1], not *args: ~900 instructions less)
            arrays, record, untracked = _unwrap_pair(ctx, args[0], args[1], scalars_are_inputs)
        elif len(args) == 1:
            arrays, record, untracked = _unwrap_one(ctx, args[0], scalars_are_inputs)
        else:
            arrays, record, untracked = _unwrap(ctx, args, scalars_are_inputs)
        try:
            if len(arrays) == 2:  # without a *, CPython runs forward ~860 instructions sooner
                out = forward(ctx, arrays[0], arrays[1])
            else:
                out = forward(ctx, *arrays)
        except (ValueError, TypeError) as error:
            raise cls._in_pytorch_words(arrays, error) from None
        if type(out) is not ndarray:
            out = _scalar_as_array(ctx, out)  # NumPy gives scalars for 0-d results
        result = _make_tensor(out, ctx if record else None)
        if record:
            _record(ctx, args, out, result, untracked)
        if creates_view:
            _views.link_view(result, args[0], cls, ctx, args[1:])
        if _forward_ad.state.level is not None:  # forward mode: carry the tangent along
            _forward_ad.push_tangent(cls, args, arrays, ctx, result)
        return result

    @classmethod
    def in_formula(cls, *args: Any) -> Any:
        """Use this operation inside another one's backward formula, as PyTorch's
        formulas call ``tanh_backward``: on NumPy arrays (a plain backward pass) it
        is ``forward``'s arithmetic and nothing more; on tensors (``create_graph``)
        it is applied and recorded, so the graph shows PyTorch's node for it."""
        if Tensor in map(type, args):  # (no generator frame: 1.5k instructions less)
            return cls.apply(*args)
        scratch = cls._node_class.__new__(cls._node_class)
        scratch._saved = None
        scratch.needs_input_grad = (False,) * len(args)
        return cls.forward(scratch, *args)

    @classmethod
    def _in_pytorch_words(cls, arrays: list, error: Exception) -> Exception:
        """The error to raise for a NumPy error in ``forward``: PyTorch's, where
        :meth:`forward_error` knows it, else NumPy's own."""
        translated = cls.forward_error(arrays, error)
        return error if translated is None else translated


# -- tangent rules by kind of function -------------------------------------------------
# An operation states its tangent rule (forward mode) by deriving from one of these
# instead of Function, or by writing its own ``jvp``.


def _zero_if_none(tangent: Any, primal: Any) -> Any:
    """A missing tangent is a zero one (for rules that need every input's)."""
    return np.zeros_like(primal) if tangent is None else tangent


def _sum_over_inputs(tangents: tuple, part: Callable[[int, Any], Any]) -> Any:
    """Σᵢ ``part(i, ẋᵢ)`` over the inputs that have a tangent (None if none has):
    the sum every tangent rule that treats inputs one at a time ends with."""
    total = None
    for i, tangent in enumerate(tangents):
        if tangent is not None:
            contribution = part(i, tangent)
            total = contribution if total is None else total + contribution
    return total


class Elementwise(Function):
    """An operation applied element by element (``sin``, ``exp``, ``*``, ``where``…).

    Tangent rule: ḟ = Σᵢ ∂f/∂xᵢ · ẋᵢ, elementwise. Each ∂f/∂xᵢ is a diagonal
    Jacobian, equal to its own transpose, so ∂f/∂xᵢ · ẋᵢ is exactly what
    ``backward`` computes for input i when handed ẋᵢ as the gradient: the rule is the
    backward formula, applied to the tangents.
    """

    @staticmethod
    def jvp(ctx: Node, *tangents: Any) -> Any:
        def backward_on_tangent(i: int, tangent: Any) -> Any:
            grads = ctx._function.backward(ctx, tangent)
            return grads[i] if type(grads) is tuple else grads

        return _sum_over_inputs(tangents, backward_on_tangent)


class Linear(Function):
    """An operation that is linear in its tensor inputs (``sum``, ``reshape``,
    ``transpose``, indexing, ``cat``, ``neg``…): f(a·x + b·y) = a·f(x) + b·f(y).

    Tangent rule: ḟ = f(ẋ). A linear function is its own derivative, so the
    operation is simply run on the tangents (zeros for inputs without one).
    """

    @staticmethod
    def jvp(ctx: Node, *tangents: Any) -> Any:
        args = [
            _zero_if_none(tangent, primal) if differentiable else primal
            for primal, tangent, differentiable in zip(ctx.primals, tangents, ctx.differentiable)
        ]
        return _forward_again(ctx, args)


class Bilinear(Function):
    """An operation linear in each tensor input separately: ``x @ y``, ``dot``…

    Tangent rule (the product rule): ḟ = f(ẋ, y) + f(x, ẏ) — the operation run once
    per input that has a tangent, with that input replaced by its tangent.
    """

    @staticmethod
    def jvp(ctx: Node, *tangents: Any) -> Any:
        def forward_with_tangent(i: int, tangent: Any) -> Any:
            args = list(ctx.primals)
            args[i] = tangent
            return _forward_again(ctx, args)

        return _sum_over_inputs(tangents, forward_with_tangent)


class Reduction(Function):
    """An operation that reduces its input along some axes (all of them by default):
    ``max()``, ``prod``, ``norm``, ``logsumexp``, a loss averaged over its elements…

    Tangent rule: ḟ = Σⱼ ∂f/∂xⱼ · ẋⱼ over the reduced elements. Handed the gradient 1
    for every output element, ``backward`` returns ∂f/∂xⱼ for every input element:
    multiply by the tangent and add up along the reduced axes (per input that has a
    tangent). A subclass names the axes with ``reduced_axes``.
    """

    @staticmethod
    def reduced_axes(ctx: Node) -> tuple[Any, bool]:
        """``(axis, keepdims)`` for NumPy's ``sum``: which axes the operation
        reduced (None: all, ``()``: none) and whether it kept them."""
        return None, False

    @staticmethod
    def jvp(ctx: Node, *tangents: Any) -> Any:
        grads = ctx._function.backward(ctx, np.ones_like(ctx.result))
        grads = grads if type(grads) is tuple else (grads,)
        axis, keepdims = ctx._function.reduced_axes(ctx)

        def summed_product(i: int, tangent: Any) -> Any:
            return (grads[i] * tangent).sum(axis=axis, keepdims=keepdims)

        return _sum_over_inputs(tangents[: len(grads)], summed_product)


def _forward_again(ctx: Node, args: list) -> Any:
    """Run ``ctx``'s operation once more on ``args``, with a scratch context."""
    scratch = type(ctx).__new__(type(ctx))
    scratch._saved = None
    scratch.needs_input_grad = ctx.needs_input_grad
    return ctx._function.forward(scratch, *args)


class _MultiOutputNode(Node):
    """The node of an operation with several outputs: one gradient per output."""

    __slots__ = ()
    _multi_output = True


class MultiOutputFunction(Function):
    """An operation whose ``forward`` returns a tuple of arrays (``split``,
    ``chunk``, ``unbind``).

    :meth:`apply` returns a tuple of tensors that share one ``grad_fn``; the k-th
    has ``output_nr == k``. ``backward(ctx, grad_outputs)`` receives a list with
    one gradient per output, None for an output that no gradient reached (as
    PyTorch passes an undefined tensor), and returns one per ``forward`` argument.
    Such operations save only inputs.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.node_name
        cls._node_class = type(name, (_MultiOutputNode,), _node_class_dict(cls, name))
        _set_recipe(cls)

    @classmethod
    def jvp(cls, ctx: Node, tangent: Any, *arguments: Any) -> Any:
        """Tangent rule (forward mode): these operations are linear in their tensor
        input, so the tangents of the pieces are the same cut of its tangent
        (``arguments``: the other arguments of ``forward``, sizes and dim)."""
        return cls.forward(ctx, tangent, *arguments)

    @classmethod
    def apply(cls, *args: Any) -> tuple:
        ctx = cls._node_class.__new__(cls._node_class)
        ctx._saved = None
        arrays, record, untracked = _unwrap(ctx, args, cls.scalars_are_inputs)
        outs = tuple(cls.forward(ctx, *arrays))
        results = tuple(Tensor._make(out, ctx if record else None) for out in outs)
        if record:
            _record(ctx, args, outs[0], results[0], untracked)
            ctx.input_metadata = tuple((out.shape, out.dtype) for out in outs)
            for output_nr, result in enumerate(results):
                result._output_nr = output_nr
        if cls.creates_view:
            for piece, result in enumerate(results):
                _views.link_view(result, args[0], cls, ctx, args[1:], piece)
        if _forward_ad.state.level is not None:
            _push_piece_tangents(cls, args, results)
        return results


def _push_piece_tangents(cls: type[MultiOutputFunction], args: tuple, results: tuple) -> None:
    """Forward mode through split, chunk and unbind: cutting is linear, so the
    tangent of each piece is the same piece of the input's tangent (the default
    ``jvp`` of :class:`MultiOutputFunction`; var_mean's reads ``primals``)."""
    tangent = _forward_ad.tangent_of(args[0]) if type(args[0]) is Tensor else None
    if tangent is None:
        return
    scratch = cls._node_class.__new__(cls._node_class)
    # (The inputs, for rules that are not linear: var_mean's and std_mean's.)
    scratch.primals = tuple(a._data if type(a) is Tensor else a for a in args)
    for result, piece in zip(results, cls.jvp(scratch, tangent._data, *args[1:])):
        _forward_ad._set_tangent(result, Tensor._make(np.array(piece)))


def _record(ctx: Node, args: tuple, out: np.ndarray, result: Tensor, untracked: bool):
    """Make ``ctx`` (whose edges :func:`_unwrap` set) the backward node of
    ``result``: number it and keep what forward saved. ``untracked``: a tensor
    input needs no gradient."""
    global _last_shape, _last_dtype, _last_metadata
    shape, dtype = out.shape, out.dtype
    if dtype is not _last_dtype or shape != _last_shape:  # else keep _last_metadata (see there)
        _last_shape, _last_dtype, _last_metadata = shape, dtype, ((shape, dtype),)
    ctx.input_metadata = _last_metadata
    ctx._sequence_nr = next(_sequence_numbers)
    if _anomaly_mode.enabled:  # keep where the forward ran, for a failing backward
        _anomaly_mode.keep_forward_trace(ctx)
    saved = ctx._saved
    inputs_saved = False
    if saved is not None:  # (else _saved_sources stays None, its class default)
        # With each saved tensor, its version now: backward checks it is unchanged.
        # Numbers and Nones alone (``t * 1.5`` saves None and 1.5) need no look,
        # told by their types here, without the call (chain -1.7%, callgrind).
        for value in saved:
            if type(value) not in _PLAIN_CONSTANTS:
                ctx._saved_sources, inputs_saved = _describe_saved(saved, args, out, result)
                break
        else:
            ctx._saved_sources = _ONLY_CONSTANTS[len(saved)]
        if _saved_tensors_hooks:
            _pack_saved(ctx, result)  # read by saved_tensors
    # The inputs are kept only where something reads them later (the drawing's
    # untracked inputs, _saved_self/_saved_other): keeping all of them would keep
    # every intermediate tensor alive as long as the graph (PyTorch keeps none).
    if untracked or inputs_saved:
        ctx._inputs = args


# The input_metadata _record gave the last node it recorded. A node whose result
# has that shape and dtype (every node of the fan-out, of the chain) keeps this
# very tuple rather than three objects of its own (the shape, the pair, the
# tuple), which the garbage collector would count and, as long as the graph
# lives, walk at each collection: fan-out step 48.18M -> 46.44M instructions
# (bench_core --callgrind), 471 -> 189 gen-0 collections per 100 steps, ~8% less
# CPU time; a miss (the tutorial's shapes change at 3 of its 4 nodes) costs ~900.
# One entry, and tuples are immutable: an entry left over from another graph is
# never wrong, only unused. Its shape and dtype are kept beside it, as globals, so
# that the test reads no item of it (200-link chain forward -0.9%, callgrind).
_last_metadata: tuple = ()
_last_shape: tuple | None = None
_last_dtype: np.dtype | None = None


class _FormulaState(threading.local):
    recording = False  # a built-in backward formula is running under create_graph


_formula = _FormulaState()
# How many backward formulas run under create_graph now, in all threads: while none
# does, recording an operation need not read the thread-local flag (a module global
# is read several times faster; see _unwrap_pair and _scalar_input).
_formulas_running = 0
_formulas_lock = threading.Lock()


def _run_formula(node: Node, grad_output: Any) -> Any:
    """Run ``node``'s backward formula recording its own graph (``create_graph``),
    with numbers in it taken as the formula's constants (see _record)."""
    global _formulas_running, _create_graph_seen
    previous = _formula.recording
    _formula.recording = True
    with _formulas_lock:
        _formulas_running += 1
    # While it runs, its saved_tensors hands out tensors connected to the graph, not
    # arrays. Only while it runs: the engine runs a node without create_graph
    # straight through its formula (_GraphTask.run), with nothing to reset.
    _create_graph_seen = True
    node._differentiable = True
    try:
        return node._function.backward(node, grad_output)
    finally:
        node._differentiable = False
        _formula.recording = previous
        with _formulas_lock:
            _formulas_running -= 1


@contextlib.contextmanager
def scalar_overloads() -> Any:
    """Record numbers as PyTorch's C++ does, for an operation the kit writes out as
    a composite of PyTorch's C++ (``pairwise_distance``'s ``x1 - x2 + eps``): there
    a number operand calls the Scalar overload (``AddBackward1``, no edge for the
    number), where Python's ``t + 1e-6`` wraps it into a tensor (``AddBackward0``
    with an edge ``(None, 0)``). The same rule as in a backward formula's constants."""
    global _formulas_running
    previous = _formula.recording
    _formula.recording = True
    with _formulas_lock:
        _formulas_running += 1
    try:
        yield
    finally:
        _formula.recording = previous
        with _formulas_lock:
            _formulas_running -= 1


# True once saved_tensors_hooks packed what a node saved: until then no node's
# _packed is set, and saved_tensors need not read it (an unspecialised class
# attribute read, ~250 instructions per MmBackward0; a global is read for ~30).
_packed_seen = False


def _note_packed() -> None:
    global _packed_seen
    _packed_seen = True


def _saved_order(node: Node) -> Sequence[int]:
    """The order PyTorch packs and unpacks ``node``'s saved values in."""
    order = getattr(node._function, "saved_order", None)
    return range(len(node._saved)) if order is None else order


def _pack_saved(ctx: Node, result: Tensor) -> None:
    """Hand every saved tensor to the active saved_tensors_hooks' pack hook (inputs
    as the input tensors themselves, the output as the result); numbers and None
    are kept as they are."""
    pack_hook, unpack_hook = _graph._stack[-1]
    packed: list = [None] * len(ctx._saved)
    for i in _saved_order(ctx):
        array = ctx._saved[i]
        if type(array) is not np.ndarray:
            continue  # a number or None: not a tensor
        _, _, kind, tensor = ctx._saved_sources[i]
        if kind == "output":
            tensor = result
        elif kind != "input":
            tensor = Tensor._make(array)
        packed[i] = _saved_variable.pack(pack_hook, unpack_hook, tensor)
    if any(p is not None for p in packed):
        _saved_variable.keep_packed(ctx, packed)


def _unwrap(ctx: Node, args: tuple, scalars_are_inputs: bool) -> tuple[list, bool, bool]:
    """``forward``'s arguments (a tensor becomes its array, anything else stays as
    it is); whether the operation is to be recorded (grad mode is on and an input
    needs a gradient); and whether a tensor among them needs no gradient.

    In the same pass over the arguments it sets ``ctx.needs_input_grad`` (per
    argument: does a gradient flow there?) and, in grad mode, the edges (one per
    input PyTorch lists: ``_next_nodes`` and ``_input_nrs``, see :class:`Node`),
    which a recorded operation keeps."""
    arrays = []
    needs = []
    next_nodes: list = []
    input_nrs: list = []
    untracked = False
    through_a_base = False
    recording = grad_mode._everywhere or grad_mode._state.enabled
    for arg in args:
        if type(arg) is Tensor:
            arrays.append(arg._data)
            if arg._view is not None:
                needs.append(_view_needs_grad(arg, recording))
                # A view made under no_grad of a tensor that requires grad requires
                # grad too, through its base, but has no history to send gradients
                # to: PyTorch records the operation anyway, with no edge into it.
                through_a_base = through_a_base or arg.requires_grad
            else:
                needs.append(arg._requires_grad)
            if arg._requires_grad:
                if recording:  # the edge gradient_edge(arg) gives, written out
                    next_nodes.append(arg._grad_fn or arg._accumulator or arg._grad_accumulator())
                    input_nrs.append(arg._output_nr if arg._grad_fn is not None else 0)
            else:
                next_nodes.append(None)
                input_nrs.append(0)
                untracked = True
        else:
            arrays.append(arg)
            needs.append(False)
            if scalars_are_inputs and isinstance(arg, (int, float)):
                _scalar_input(ctx, next_nodes, input_nrs)
    needs_input_grad = ctx.needs_input_grad = tuple(needs)
    if recording:
        ctx._next_nodes = tuple(next_nodes)
        ctx._input_nrs = tuple(input_nrs)
        if through_a_base and True not in needs_input_grad:
            _computes_nothing(ctx)
    return arrays, recording and (True in needs_input_grad or through_a_base), untracked


def _computes_nothing(ctx: Node) -> None:
    """Mark a node recorded only because an input is a no_grad view of a tensor that
    requires grad (``detach(l) @ l_view``): no input of it needs a gradient. An
    operation that saves its inputs only for the gradients that are needed (mm, mul)
    then saves nothing, and a second backward through it is no error: PyTorch's rule
    is that reading a saved tensor after it was freed is, not running a node twice
    (one that saved its result, as exp, still refuses). The engine's _call releases
    such a node (_release), not its plain path."""
    ctx._needs_call = True
    ctx._computes_nothing = True


def _unwrap_pair(ctx: Node, x: Any, y: Any, scalars_are_inputs: bool) -> tuple:
    """:func:`_unwrap` for the commonest operands of a two-argument operation: a
    tensor with a tensor (``a * b``) or with a Python number (``t * 1.001``), neither
    a view. The same results without _unwrap's loop and lists (chain: -5% instructions),
    anything else goes to :func:`_unwrap`.

    Both cases are written out here rather than in a helper each: a helper's call
    costs ~600 instructions per operation (callgrind, tiny script: ``a @ m`` and
    ``s + p`` of 3×3 tensors -700 each)."""
    if type(x) is not Tensor or x._view is not None:
        return _unwrap(ctx, (x, y), scalars_are_inputs)
    needs_x = x._requires_grad
    recording = grad_mode._everywhere or grad_mode._state.enabled
    if type(y) is Tensor and y._view is None:
        needs_y = y._requires_grad
        ctx.needs_input_grad = _NEEDS_PAIR[needs_x][needs_y]  # shared: nothing to allocate
        if recording:
            # The node gradient_edge(x) leads into: its grad_fn (never false), or a
            # leaf's AccumulateGrad, made on first use (written out: see above).
            if needs_x and not needs_y and x._grad_fn is None:  # a leaf with a constant (a @ m)
                ctx._next_nodes = (x._accumulator or x._grad_accumulator())._edges_with_constant
            else:
                ctx._next_nodes = (
                    (x._grad_fn or x._accumulator or x._grad_accumulator()) if needs_x else None,
                    (y._grad_fn or y._accumulator or y._grad_accumulator()) if needs_y else None,
                )
            if x._output_nr == 0 and y._output_nr == 0:
                ctx._input_nrs = _ZERO_NRS[2]
            else:
                ctx._input_nrs = _input_nrs_of(ctx, x, y)
        return (x._data, y._data), recording and (needs_x or needs_y), not (needs_x and needs_y)
    if not ((type(y) is float or type(y) is int) and scalars_are_inputs):
        return _unwrap(ctx, (x, y), scalars_are_inputs)
    # (A condition, as a bool index into a tuple costs ~250 instructions more.)
    ctx.needs_input_grad = _NEEDS_PAIR[1][0] if needs_x else _NEEDS_PAIR[0][0]
    constant = _formulas_running and _formula_constant(ctx)  # nearly always False
    if recording:
        node = (x._grad_fn or x._accumulator or x._grad_accumulator()) if needs_x else None
        ctx._next_nodes = next_nodes = (node,) if constant else (node, None)
        if x._output_nr == 0:
            ctx._input_nrs = _ZERO_NRS[len(next_nodes)]
        else:
            ctx._input_nrs = _input_nrs_of(ctx, x)
    return (x._data, y), recording and needs_x, not needs_x


def _unwrap_one(ctx: Node, x: Any, scalars_are_inputs: bool) -> tuple:
    """:func:`_unwrap` for a one-argument operation on a tensor that is not a view
    (``relu(h)``, ``t.exp()``, matmul's squeeze of x @ w): the same results without
    its loop and lists; anything else goes to :func:`_unwrap`."""
    if type(x) is not Tensor or x._view is not None:
        return _unwrap(ctx, (x,), scalars_are_inputs)
    needs_x = x._requires_grad
    ctx.needs_input_grad = _NEEDS_ONE[needs_x]  # a shared tuple: nothing to allocate
    recording = grad_mode._everywhere or grad_mode._state.enabled
    if recording:
        if needs_x:  # the edge gradient_edge(x) gives, written out (see _unwrap_pair)
            ctx._next_nodes = (x._grad_fn or x._accumulator or x._grad_accumulator(),)
            ctx._input_nrs = (x._output_nr if x._grad_fn is not None else 0,)
        else:
            ctx._next_nodes, ctx._input_nrs = _NO_NODE, _ZERO_NRS[1]
    return (x._data,), recording and needs_x, not needs_x


_NEEDS_ONE = ((False,), (True,))
_NO_NODE = (None,)


# needs_input_grad of two operands, _NEEDS_PAIR[needs_x][needs_y]: bools index tuples.
_NEEDS_PAIR = (((False, False), (False, True)), ((True, False), (True, True)))


def _view_needs_grad(view: Tensor, recording: bool) -> bool:
    """Whether a gradient flows into ``view``: only if it has a history of its own
    (brought up to date first, when the operation may be recorded); a view that
    requires grad only through its base (made under no_grad, or before the base
    required grad) is an input that needs none, as in PyTorch."""
    if recording:
        _views.refresh(view)  # an in-place change may have made its grad_fn stale
        return view._requires_grad
    return view.requires_grad  # a view follows its base


def _input_nrs_of(ctx: Node, *operands: Any) -> tuple[int, ...]:
    """The input numbers of ``ctx``'s edges (set just before) when an operand is a
    later output of its node (a piece of ``split``): ``gradient_edge``'s, and 0 for
    an edge that leads nowhere or for a number."""
    nrs = [
        operand._output_nr if node is not None and operand._grad_fn is not None else 0
        for node, operand in zip(ctx._next_nodes, operands)
    ]
    return tuple(nrs + [0] * (len(ctx._next_nodes) - len(nrs)))


# The input numbers of a two-operand node's edges when both are 0 (nearly always),
# for _unwrap_pair and _unwrap_tensors: one tuple shared by all such nodes rather
# than a new one each. (_unwrap builds its own: checking for zeros costs more.)
_ZERO_NRS = tuple((0,) * n for n in range(3))


def _scalar_input(ctx: Node, next_nodes: list, input_nrs: list) -> None:
    """A number operand where PyTorch wraps it into a tensor (the 2 of ``a + 2``):
    an input with the edge ``(None, 0)``, except as a constant of a backward
    formula (see :func:`_formula_constant`), where it has no edge."""
    if not (_formulas_running and _formula_constant(ctx)):
        next_nodes.append(None)
        input_nrs.append(0)


def _formula_constant(ctx: Node) -> bool:
    """Whether a number operand of ``ctx``'s operation is a constant of a backward
    formula running under create_graph: PyTorch's formulas (C++) then call the
    Scalar overload (``grad * 2`` records MulBackward1), whose node ``ctx`` becomes."""
    if _formula.recording and ctx._function.scalar_node_name:
        ctx.__class__ = ctx._function._scalar_node_class
        return True
    return False


def gradient_edge(tensor: Tensor) -> Edge:
    """The edge along which ``tensor``'s gradient flows: into its ``grad_fn``, or
    into the ``AccumulateGrad`` of a leaf that requires grad; ``(None, 0)`` if it
    needs no gradient (PyTorch: ``torch::autograd::impl::gradient_edge``)."""
    if not tensor._requires_grad:
        return NO_EDGE
    node = tensor.grad_fn
    if node is not None:
        return _new_edge(node, tensor._output_nr)
    return _new_edge(tensor._grad_accumulator(), 0)


_new_tuple = tuple.__new__


def _new_edge(node: Node | None, input_nr: int) -> Edge:
    """``Edge(node, input_nr)``: tuple.__new__ builds the same Edge at a third of
    the cost (a NamedTuple's own constructor is a Python function)."""
    return _new_tuple(Edge, (node, input_nr))


# The open saved_tensors_hooks contexts (graph._stack, a list never rebound), read
# as a global, as ndarray is (see the imports): the graph module has a __getattr__ too.
_saved_tensors_hooks = _graph._stack
# Tensor._make as a module global: apply reads it once per operation, and a global
# is read faster than a class attribute (CPython 3.11 does not specialise those).
_make_tensor = Tensor._make


def _scalar_as_array(ctx: Node, scalar: Any) -> np.ndarray:
    """NumPy returns scalars for 0-d results: make the result an array, and if
    forward saved that scalar, save the array instead."""
    out = np.asarray(scalar)
    saved = ctx._saved
    if saved is not None:
        for value in saved:
            if value is scalar:
                ctx._saved = tuple(out if v is scalar else v for v in saved)
                break
    return out


_CONSTANT_SOURCE = (None, 0, "constant", None)
# The types of saved values that are never arrays: told by type (a failing
# isinstance costs ~300 instructions more, as it looks up ``__class__`` too).
_PLAIN_CONSTANTS = frozenset({type(None), float, int, bool})


def _describe_saved(saved: tuple, args: tuple, out: np.ndarray, result) -> tuple[tuple, bool]:
    """For each saved value: (version counter, version at save time, kind, tensor),
    where kind says whether it is an input, the output, or a constant; and whether
    any of them is an input."""
    if len(saved) == 2 and len(args) == 2 and type(args[0]) is Tensor and type(args[1]) is Tensor:
        x, y = args
        first, second = saved
        # Two operands that saved their own arrays or None, in order (a @ m saves
        # (None, m), x * y saves (x, y)): the sources the loop below would find,
        # written out without its loops and lists (callgrind, tiny script: this
        # function 4.5k -> 2.1k instructions for a @ m). Where a value could be
        # something else too (the output; both operands' array) the loop decides.
        if (
            (first is None or first is x._data)
            and (second is None or (second is y._data and second is not x._data))
            and first is not second  # (not two Nones: that is no tensor saved)
            and first is not out
            and second is not out
        ):
            x_counter, y_counter = x._version_counter, y._version_counter
            return (
                _CONSTANT_SOURCE if first is None else (x_counter, x_counter[0], "input", x),
                _CONSTANT_SOURCE if second is None else (y_counter, y_counter[0], "input", y),
            ), True
    described = []
    inputs_saved = outputs_saved = False
    for value in saved:
        source: tuple = _CONSTANT_SOURCE
        if value is out:
            counter = result._version_counter
            source = (counter, counter[0], "output", None)
            outputs_saved = True
        elif value is not None and isinstance(value, ndarray):  # a tensor's?
            for arg in args:
                if type(arg) is Tensor and arg._data is value:
                    counter = arg._version_counter
                    source = (counter, counter[0], "input", arg)
                    inputs_saved = True
                    break
        described.append(source)
    if inputs_saved or outputs_saved:
        return tuple(described), inputs_saved
    return _ONLY_CONSTANTS[len(described)], False


class _OnlyConstants(tuple):
    """The sources of a node that saved no tensor: saved_tensors, knowing it by its
    type, returns what was saved without looking through them (-1.1k instructions
    per MulBackward0 of ``t * 1.001``; callgrind)."""

    __slots__ = ()


class _SourcesOfConstants(dict):
    """``_ONLY_CONSTANTS[n]``: the sources of ``n`` saved constants, made on first use."""

    def __missing__(self, n: int) -> _OnlyConstants:
        sources = self[n] = _OnlyConstants((_CONSTANT_SOURCE,) * n)
        return sources


# The sources of a node that saved only constants (``t * 1.5`` saves None and 1.5),
# by how many it saved: one tuple shared by all such nodes rather than a new one
# each, which the garbage collector would count and look at.
_ONLY_CONSTANTS = _SourcesOfConstants()


def once_differentiable(fn: Callable) -> Callable:
    """Mark a custom Function's ``backward`` as not differentiable itself, as
    PyTorch's decorator does: it runs without recording, so in a ``create_graph``
    pass its gradient is a plain tensor. If the incoming gradient itself has a
    history (so a second derivative would need this backward's derivative), the
    pass is refused."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grad_outputs: Any) -> Any:
        with grad_mode.no_grad():
            result = fn(ctx, *grad_outputs)
        if grad_mode.is_grad_enabled() and any(
            type(g) is Tensor and g._requires_grad for g in grad_outputs
        ):
            raise RuntimeError(
                "trying to differentiate twice a function that was marked with @once_differentiable"
            )
        return result

    return wrapper


# Imported last: views.py builds on the classes above.
from . import views as _views  # noqa: E402
