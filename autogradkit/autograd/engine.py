"""The backward engine (PyTorch: ``torch/csrc/autograd/engine.cpp``).

One algorithm serves ``Tensor.backward``, ``autograd.backward``, ``autograd.grad``
and the visual stepper, which all drive the iterator returned by
:func:`backward_steps`:

1. **Count dependencies.** Walk the graph from the roots through ``next_functions``
   and count, for every node, how many edges lead into it.
2. **Run nodes when ready.** A node runs once, after *all* gradients flowing into it
   have arrived and been summed (its count reached zero). Among ready nodes the one
   recorded last in the forward pass runs first, as in PyTorch, and a leaf's
   ``AccumulateGrad`` runs as soon as it is ready.
3. **Send gradients on.** Each node's ``backward`` turns the gradient of its output
   into gradients for its inputs (the chain rule), which are added into the buffers
   of the nodes in ``next_functions``.
4. **Free the graph.** Unless ``retain_graph=True``, a node's saved tensors are
   released right after it runs; a second pass then fails with PyTorch's
   "Trying to backward through the graph a second time" error.

The loop is iterative (a heap of ready nodes, no recursion), so a chain of 100,000
operations does not hit Python's recursion limit.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Sequence

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .function import AccumulateGrad, Node

__all__ = ["backward_steps", "BackwardStep", "Accumulation"]

CREATE_GRAPH_BACKWARD_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
    "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
    "of your parameters to None after use to break the cycle and avoid the leak."
)


class Accumulation:
    """One update of a tensor's ``.grad`` during a backward pass.

    Attributes
    ----------
    tensor : Tensor
        The leaf (or a non-leaf that called ``retain_grad()``) whose ``.grad`` changed.
    grad : Tensor
        The gradient added by this step.
    previous : Tensor or None
        A copy of ``.grad`` before the step (None if it had none). Restoring it
        undoes the step.
    """

    __slots__ = ("tensor", "_grad", "previous")

    def __init__(self, tensor, grad, previous) -> None:
        self.tensor, self._grad, self.previous = tensor, grad, previous

    @property
    def grad(self):
        return _as_tensor(self._grad)

    def __repr__(self) -> str:
        return f"Accumulation(tensor shape={tuple(self.tensor.shape)}, grad={self.grad!r})"


class BackwardStep:
    """What one node did during a backward pass: the record
    :func:`backward_steps` yields.

    Attributes
    ----------
    index : int
        0 for the first node executed, 1 for the next, …
    node : Node
        The node that ran (``MulBackward0``, ``AccumulateGrad``, …).
    grad_output : Tensor
        The gradient the node received: the sum of everything sent to it, i.e. the
        gradient of the roots with respect to the node's output.
    grad_inputs : tuple of (Tensor or None)
        The gradient the node sent along each entry of ``node.next_functions``
        (None where it sent nothing).
    accumulations : tuple of Accumulation
        Every ``.grad`` this step changed (a leaf's ``AccumulateGrad``, or a
        ``retain_grad()`` tensor).
    """

    __slots__ = ("index", "node", "_grad_output", "_sent", "accumulations")

    def __init__(self, index: int, node: Node, grad_output, sent, accumulations) -> None:
        self.index = index
        self.node = node
        self._grad_output = grad_output
        self._sent = sent
        self.accumulations = accumulations

    @property
    def grad_output(self):
        return _as_tensor(self._grad_output)

    @property
    def grad_inputs(self) -> tuple:
        # The k-th entry of next_functions that is not None is the k-th slot.
        sent = iter(self._sent or ())
        return tuple(
            _as_tensor(next(sent)) if next_node is not None else None
            for next_node, _ in self.node.next_functions
        )

    def __repr__(self) -> str:
        return f"BackwardStep(index={self.index}, node={self.node.name()})"


def _as_tensor(value):
    if value is None or type(value) is Tensor:
        return value
    return Tensor._make(value)


class _GraphTask:
    """State of one backward pass: the dependency counts, the gradient buffers
    and the heap of ready nodes."""

    def __init__(
        self,
        roots: list[Node],
        root_grads: list,
        retain_graph: bool,
        create_graph: bool,
        captures: dict[Node, list[int]] | None,
    ) -> None:
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.captures = captures
        self.captured: list = [None] * (sum(len(v) for v in captures.values()) if captures else 0)
        # Gradients waiting for their node: node -> [gradient, whether the engine
        # made that array itself and may hand it to a leaf without copying].
        self.buffers: dict[Node, list] = {}
        self.ready: list = []
        # Breaks ties between equal sequence numbers (roots of separate graphs) in
        # the order they became ready.
        self._tiebreak = itertools.count()

        # 1. Count, for every node reachable from the roots, the edges into it.
        dependencies: dict[Node, int] = {}
        stack = []
        for root in roots:
            if root not in dependencies:
                dependencies[root] = 0
                stack.append(root)
        while stack:
            for slot in stack.pop()._slots:
                child = slot[1]
                if child in dependencies:
                    dependencies[child] += 1
                else:
                    dependencies[child] = 1
                    stack.append(child)
        self.dependencies = dependencies
        self.needed = (
            self._nodes_leading_to_captures(dependencies) if captures is not None else None
        )

        for root, grad in zip(roots, root_grads):
            self._send(root, grad, False)
        for root in dict.fromkeys(roots):
            if dependencies[root] == 0:
                self._push(root)

    def _nodes_leading_to_captures(self, nodes) -> set[Node]:
        """autograd.grad runs only the nodes from which a requested input can be reached."""
        parents: dict[Node, list[Node]] = {}
        for node in nodes:
            for slot in node._slots:
                parents.setdefault(slot[1], []).append(node)
        needed = set(self.captures)
        stack = list(needed)
        while stack:
            node = stack.pop()
            for parent in parents.get(node, ()):
                if parent not in needed:
                    needed.add(parent)
                    stack.append(parent)
        return needed

    def _push(self, node: Node) -> None:
        # Highest sequence number first: the node recorded last in forward runs first.
        heapq.heappush(self.ready, (-node._sequence_nr, next(self._tiebreak), node))

    def _send(self, node: Node, grad, fresh: bool) -> None:
        """Add ``grad`` into ``node``'s buffer (gradients from several paths sum)."""
        entry = self.buffers.get(node)
        if entry is None:
            self.buffers[node] = [grad, fresh]
        else:
            total = entry[0] + grad
            is_array = type(total) is not Tensor  # a made-here array: ours to hand on
            # (np.asarray: NumPy returns 0-d sums as scalars)
            entry[0], entry[1] = (np.asarray(total) if is_array else total), is_array

    def run(self) -> Iterator[tuple]:  # noqa: C901 - to be split in the readable-core work (issue 10)
        """Run ready nodes until none is left, yielding
        ``(node, grad_output, grads_sent, accumulations)`` after each."""
        buffers, dependencies, ready = self.buffers, self.dependencies, self.ready
        create_graph, retain_graph = self.create_graph, self.retain_graph
        captures, needed = self.captures, self.needed
        heappop, heappush = heapq.heappop, heapq.heappush
        tiebreak = self._tiebreak
        while ready:
            node = heappop(ready)[2]
            grad, fresh = buffers.pop(node)
            accumulations = ()
            hooked = node._hooked
            if hooked:
                if node._tensor_pre_hooks is not None or node._pre_hooks is not None:
                    grad = _run_pre_hooks(node, grad, create_graph)
                    fresh = False
                if node._retained is not None:
                    accumulations = _retain(node, grad, create_graph)
            if captures is not None:
                for position in captures.get(node, ()):
                    self.captured[position] = grad
                if type(node) is AccumulateGrad or node not in needed:
                    continue
            if type(node) is AccumulateGrad:
                previous = node.accumulate(grad, create_graph, fresh)
                yield node, grad, (), accumulations + (Accumulation(node.variable, grad, previous),)
                continue
            if create_graph:
                with grad_mode.enable_grad():
                    sent = node.apply(grad, True)
            else:
                sent = node.apply(grad, False)
            if hooked and node._post_hooks is not None:
                sent = _run_post_hooks(node, sent, grad)
            if not retain_graph:
                node._release()
            for slot, child_grad in zip(node._slots, sent):
                child = slot[1]
                if child_grad is not None:
                    # An array the backward formula just made (not its input passed
                    # through, not a view) can become a leaf's .grad without a copy.
                    self._send(
                        child,
                        child_grad,
                        child_grad is not grad and not create_graph and child_grad.base is None,
                    )
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0 and child in buffers:
                    heappush(ready, (-child._sequence_nr, next(tiebreak), child))
            yield node, grad, sent, accumulations


class _Steps:
    """The iterator :func:`backward_steps` returns: the engine's records, numbered
    and wrapped as :class:`BackwardStep` objects."""

    def __init__(self, task: _GraphTask) -> None:
        self.task = task
        self._records = task.run()
        self._index = 0

    def __iter__(self) -> _Steps:
        return self

    def __next__(self) -> BackwardStep:
        with np.errstate(all="ignore"):
            node, grad, sent, accumulations = next(self._records)
        step = BackwardStep(self._index, node, grad, sent, accumulations)
        self._index += 1
        return step


def _run_pre_hooks(node: Node, grad, create_graph: bool):
    for hook in node._tensor_pre_hooks or ():
        with grad_mode.set_grad_enabled(create_graph):
            result = hook(_as_tensor(grad))
        if result is not None:
            grad = result if create_graph else result._data
    for hook in node._pre_hooks or ():
        with grad_mode.set_grad_enabled(create_graph):
            result = hook((_as_tensor(grad),))
        if result is not None:
            grad = result[0] if create_graph else result[0]._data
    if create_graph and type(grad) is not Tensor:
        grad = Tensor._make(grad)
    return grad


def _run_post_hooks(node: Node, sent: list, grad) -> list:
    inputs = tuple(_as_tensor(g) for g in sent)
    for hook in node._post_hooks:
        result = hook(inputs, (_as_tensor(grad),))
        if result is not None:
            inputs = tuple(result)
    return [None if g is None else (g._data if not node._differentiable else g) for g in inputs]


def _retain(node: Node, grad, create_graph: bool) -> tuple:
    tensor = node._retained()
    if tensor is None:
        return ()
    previous = tensor._grad
    value = grad if create_graph else np.array(grad, copy=True)
    tensor._grad = _as_tensor(value) if previous is None else previous + _as_tensor(value)
    return (Accumulation(tensor, grad, previous),)


def _make_grads(tensors: Sequence, grad_tensors: Sequence | None, create_graph: bool) -> list:  # noqa: C901 - to be split in the readable-core work (issue 10)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"grad_tensors has {len(grad_tensors)} gradients but there are {len(tensors)} "
            "tensors: give one gradient (or None) per tensor"
        )
    grads = []
    for i, (tensor, grad) in enumerate(zip(tensors, grad_tensors)):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"backward expects tensors, got {type(tensor).__name__}")
        if grad is None:
            if tensor._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if tensor._data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"torch.{tensor.dtype.name}"
                )
            value = np.ones(tensor._data.shape, dtype=tensor._data.dtype)
        else:
            if not isinstance(grad, Tensor):
                raise TypeError(
                    f"gradients can be either Tensors or None, but got {type(grad).__name__}"
                )
            if grad._data.shape != tensor._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"torch.Size({list(grad._data.shape)}) and output[{i}] has a shape of "
                    f"torch.Size({list(tensor._data.shape)})."
                )
            if create_graph:
                grads.append(grad)
                continue
            value = grad._data
            if value.dtype != tensor._data.dtype:
                value = value.astype(tensor._data.dtype)
        grads.append(Tensor._make(value) if create_graph else value)
    return grads


def _root_nodes(tensors: Sequence) -> list[Node]:
    roots = []
    for i, tensor in enumerate(tensors):
        if tensor.grad_fn is not None:
            roots.append(tensor.grad_fn)
        elif tensor._requires_grad:
            roots.append(tensor._grad_accumulator())
        else:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    return roots


def prepare(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence | None = None,
) -> _GraphTask:
    """Validate the arguments and set up a pass (used by backward, grad and the stepper)."""
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    else:
        tensors = tuple(tensors)
    if isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    elif grad_tensors is not None:
        grad_tensors = tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_nodes(tensors)
    grads = _make_grads(tensors, grad_tensors, create_graph)
    captures = None
    if inputs is not None:
        captures = {}
        for position, tensor in enumerate(inputs):
            if not isinstance(tensor, Tensor):
                raise TypeError(f"inputs must be Tensors, got {type(tensor).__name__}")
            if not tensor._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            node = tensor.grad_fn if tensor.grad_fn is not None else tensor._grad_accumulator()
            captures.setdefault(node, []).append(position)
    return _GraphTask(roots, grads, retain_graph, create_graph, captures)


def run_to_end(task: _GraphTask) -> None:
    """Drain a pass (what backward and grad do). Backward formulas meet x/0 and
    0·inf at the edges of their domains; PyTorch returns inf/nan there without a
    word, so NumPy's floating-point warnings are silenced for the pass."""
    with np.errstate(all="ignore"):
        for _ in task.run():
            pass


def backward_steps(
    tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False
) -> Iterator[BackwardStep]:
    """Run a backward pass one node at a time.

    Arguments are checked, and the graph's dependencies counted, when you call it;
    each ``next()`` then runs one node and returns its :class:`BackwardStep`.
    Draining the iterator does exactly what ``autograd.backward(tensors,
    grad_tensors, retain_graph, create_graph)`` does — that function is this loop.

    Examples
    --------
    >>> import autogradkit as torch
    >>> a = torch.tensor([2.0, 3.0], requires_grad=True)
    >>> loss = (a * a).sum()
    >>> for step in torch.autograd.backward_steps(loss):
    ...     print(step.index, step.node.name(), step.grad_output)
    0 SumBackward0 tensor(1.)
    1 MulBackward0 tensor([1., 1.])
    2 autogradkit::autograd::AccumulateGrad tensor([4., 6.])
    >>> a.grad
    tensor([4., 6.])
    """
    return _Steps(prepare(tensors, grad_tensors, retain_graph, create_graph))
