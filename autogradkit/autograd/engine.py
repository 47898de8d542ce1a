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

from collections.abc import Iterator, Sequence
from heapq import heappop, heappush
from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray costs more: NumPy's module has a __getattr__)

from .._dtype import scalar_type_name
from .._quiet_numpy import silently
from ..tensor import Tensor
from . import anomaly_mode, grad_mode
from .function import (
    _RELEASED,
    AccumulateGrad,
    Edge,
    Node,
    _fit_to_input,
    _fits_input,
    _one_per_edge,
    gradient_edge,
)
from .function import _fit_array as fit_array

__all__ = ["backward_steps", "BackwardPass", "BackwardStep", "Accumulation"]

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
        A copy of ``.grad`` before the step (None if it had none).

    :meth:`undo` puts the ``.grad`` before the step back; :meth:`redo` the one after it.
    """

    __slots__ = ("tensor", "_grad", "previous", "_after")

    def __init__(self, tensor, grad, previous) -> None:
        # A private copy: the array may have become .grad itself, which later
        # passes add into in place.
        if isinstance(grad, np.ndarray):
            grad = np.array(grad, copy=True)
        self.tensor, self._grad, self.previous = tensor, grad, previous
        self._after = _copy(tensor._grad)

    @property
    def grad(self):
        return _as_tensor(self._grad)

    def undo(self) -> None:
        """Take this update back out of ``tensor.grad``: exactly the ``.grad`` before
        it when nothing else has changed ``.grad`` since; otherwise (another pass,
        or a second stepper over the same leaves, added to it meanwhile) only this
        update's gradient is subtracted, so the others' contributions stay."""
        if _same_values(self.tensor._grad, self._after):
            self.tensor._grad = _copy(self.previous)
        else:
            self.tensor._grad = _combine(self.tensor, self._grad, np.subtract)

    def redo(self) -> None:
        """Make this update again: exactly the ``.grad`` after it when ``.grad`` is
        as this update found it, otherwise its gradient added to what is there."""
        if _same_values(self.tensor._grad, self.previous):
            self.tensor._grad = _copy(self._after)
        else:
            self.tensor._grad = _combine(self.tensor, self._grad, np.add)

    def __repr__(self) -> str:
        return f"Accumulation(tensor shape={tuple(self.tensor.shape)}, grad={self.grad!r})"


def _same_values(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a._data.shape == b._data.shape and bool(
        np.array_equal(a._data, b._data, equal_nan=a._data.dtype.kind == "f")
    )


def _combine(tensor, grad, ufunc):
    """``tensor.grad ± grad`` as a fresh ``.grad`` (``grad`` fitted to the tensor)."""
    grad = fit_array(grad._data if isinstance(grad, Tensor) else np.asarray(grad), tensor._data)
    current = tensor._grad
    base = np.zeros_like(grad) if current is None else current._data
    return Tensor._make(ufunc(base, grad))


def _copy(tensor):
    # A fresh array each time: the engine adds later gradients into .grad in place,
    # which must never reach the copies kept for undo and redo.
    return None if tensor is None else Tensor._make(np.array(tensor._data, copy=True))


class BackwardStep:
    """What one node did during a backward pass: the record
    :func:`backward_steps` yields.

    Attributes
    ----------
    index : int
        0 for the first node executed, 1 for the next, …
    node : Node
        The node that ran (``MulBackward0``, ``AccumulateGrad``, …).
    grad_output : Tensor, or tuple of (Tensor or None)
        The gradient the node received: the sum of everything sent to it, i.e. the
        gradient of the roots with respect to the node's output. For a node with
        several outputs (``SplitBackward0``, a custom Function returning a tuple),
        a tuple with one gradient per output, None for an output none reached.
    grad_outputs : tuple of (Tensor or None)
        Always a tuple, one gradient per output of the node (PyTorch's hooks get
        the same tuple).
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
        return _as_tensors(self._grad_output)

    @property
    def grad_outputs(self) -> tuple:
        value = _as_tensors(self._grad_output)
        return value if type(value) is tuple else (value,)

    @property
    def grad_inputs(self) -> tuple:
        return tuple(_as_tensor(grad) for grad in self._sent)

    def undo(self) -> None:
        """Undo this step's ``.grad`` updates (last first)."""
        for accumulation in reversed(self.accumulations):
            accumulation.undo()

    def redo(self) -> None:
        """Make this step's ``.grad`` updates again."""
        for accumulation in self.accumulations:
            accumulation.redo()

    def __repr__(self) -> str:
        return f"BackwardStep(index={self.index}, node={self.node.name()})"


def _as_tensor(value):
    if value is None or type(value) is Tensor:
        return value
    return Tensor._make(np.asarray(value))  # 0-d gradients travel as NumPy scalars


def _as_tensors(value):
    """A buffered gradient as tensors: a tuple for a node with several outputs."""
    if type(value) is list:
        return tuple(_as_tensor(grad) for grad in value)
    return _as_tensor(value)


class _GraphTask:
    """State of one backward pass: the dependency counts, the gradient buffers
    and the heap of ready nodes."""

    def __init__(
        self,
        roots: list[Edge],
        root_grads: list,
        retain_graph: bool,
        create_graph: bool,
        captures: dict[Node | None, list[tuple[int, int]]] | None = None,
        observed: bool = False,
    ) -> None:
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        # Observed (backward_steps): keep step records and what undo needs.
        self.observed = observed
        # Anomaly mode (as the pass starts): every node goes through _watched_call.
        self.anomaly = anomaly_mode.enabled
        self.root_grads = root_grads
        self.captures = captures
        self.captured: list = []
        if captures is not None:
            self.captured = [None] * sum(len(places) for places in captures.values())
        # 1. Count, for every node reachable from the roots, the edges into it.
        root_nodes, self.dependencies = _count_dependencies(roots)
        self.total = len(self.dependencies)
        self.needed = None if captures is None else _leading_to(captures, self.dependencies)
        # Gradients waiting for their node (a list, one per output, for a node with
        # several outputs), and the leaves' nodes whose waiting gradient the engine
        # made itself (it may become .grad without a copy).
        self.buffers: dict[Node, Any] = {}
        self.owned: set[Node] = set()
        # The nodes whose waiting gradient is a sum _send made, added to in place
        # (not while a stepper watches, which may show a buffer between steps; not
        # under create_graph, whose gradients are tensors).
        self.summed: set[Node] = set()
        self.sums_in_place = not (observed or create_graph)
        self.ready: list = []
        # How many nodes went onto the heap: each entry's second field, which breaks
        # ties between equal sequence numbers (the leaves' AccumulateGrad) in the
        # order they became ready. The loop counts in a local int, not with
        # next() of an itertools.count (a call per node).
        self.pushed = 0
        self.steps_run = 0
        self.changes: list[Accumulation] = []
        for index, ((root, output_nr), grad) in enumerate(zip(roots, root_grads)):
            assert root is not None  # every root requires grad
            grad = _fitted_root_grad(root, output_nr, grad, create_graph, index)
            if root in self.buffers or root._multi_output:
                self._send(root, output_nr, grad, grad)
            else:
                self.buffers[root] = grad  # the caller's gradient: not ours to keep
        for root in root_nodes:
            if self.dependencies[root] == 0:
                self.pushed += 1
                heappush(self.ready, (-root._sequence_nr, self.pushed, root))

    def run(self) -> Iterator[BackwardStep]:
        """2. Run nodes whose gradient is complete, until none is left (yielding,
        when the pass is observed, what each did)."""
        ready, buffers, observed = self.ready, self.buffers, self.observed
        # Captures (autograd.grad), create_graph, a stepper watching, anomaly mode:
        # each node needs more than its formula, so every node goes through _call.
        calls_every_node = (
            self.captures is not None or self.create_graph or observed or self.anomaly
        )
        call = self._watched_call if self.anomaly else self._call
        free = not self.retain_graph
        while ready:
            node = heappop(ready)[2]  # the ready node recorded last
            grad_output = buffers.pop(node)  # the sum of the gradients sent to it
            if calls_every_node or node._needs_call:
                grad_output, grad_inputs = call(node, grad_output)
            else:  # A plain node: its Function's backward, then what it saved is freed.
                grad_inputs = node._backward(node, grad_output)
                if free and node._saved is not None:
                    node._saved, node._saved_sources = None, _RELEASED
            # 3. Send each gradient along its edge; a node runs once every edge into
            # it has delivered.
            self._send_on(node, grad_output, grad_inputs)
            if not observed:
                # (continue, not an if block around the yield: CPython 3.11 optimises
                # a function's code after 8 unconditional backward jumps, and this is
                # this loop's only one; without it a backward() runs ~7% more
                # instructions until run() was called 8 times.)
                continue
            yield self._record(node, grad_output, grad_inputs)

    def _send_on(self, node: Node, grad_output, grad_inputs: Sequence) -> None:
        """Send each of ``node``'s gradients along its edge (``grad_inputs[i]`` along
        edge ``i``: an index costs less than zip), fitted to the input it is for,
        into the buffer of the node there; a node whose every edge has delivered
        goes onto the heap of ready nodes. (A node _call skips, or a leaf's, sends
        nothing.) A method of its own so that run reads as the algorithm: it costs a
        call per node, which the plain node's formula now called from run (not
        through a helper) and AccumulateGrad's _needs_call (no type test per node)
        pay back."""
        buffers, dependencies = self.buffers, self.dependencies
        next_nodes, input_nrs, i = node._next_nodes, node._input_nrs, -1
        if type(grad_inputs) is not tuple or len(grad_inputs) != len(next_nodes):
            grad_inputs = _one_per_edge(node, grad_inputs)  # (or _call's list, as it is)
        for grad in grad_inputs:
            i += 1
            child = next_nodes[i]
            if child is None:
                continue
            if grad is not None:
                # Summed back to its input's shape and cast to its dtype unless it
                # fits already (Node.apply's rule): passed on as it came (Add's),
                # it fits an input like the node's own output (_fitted_root_grad),
                # told by identity: nodes of one shape and dtype share one metadata
                # tuple (_record); an equal copy just takes the check.
                shape, dtype = metadata = child.input_metadata[input_nrs[i]]
                if (
                    grad is not grad_output or metadata is not node.input_metadata[0]
                ) and not _fits_input(grad, shape, dtype):
                    grad = _fit_to_input(grad, shape, dtype, self.create_graph, node, i)
                # The first gradient for a node with one output is simply stored.
                if child in buffers or type(child) is AccumulateGrad or child._multi_output:
                    self._send(child, input_nrs[i], grad, grad_output)
                else:
                    buffers[child] = grad
            remaining = dependencies[child] - 1  # (then stored: no second look-up)
            dependencies[child] = remaining
            if remaining == 0:
                if child in buffers:
                    # Ready: onto the heap, highest sequence number (recorded last) first.
                    self.pushed += 1
                    heappush(self.ready, (-child._sequence_nr, self.pushed, child))
                else:
                    self._pass_over(child)

    def _pass_over(self, node: Node) -> None:
        """``node`` got None along every edge into it (a custom Function's backward
        may return None for an input that requires grad): it does not run, but the
        nodes below it must stop waiting for it, or one that another path reaches
        would never run (its gradient lost). PyTorch runs such a node with undefined
        gradients, which come out undefined: the same."""
        buffers, dependencies = self.buffers, self.dependencies
        passed_over = [node]
        while passed_over:
            for child in passed_over.pop()._next_nodes:
                if child is None:
                    continue
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0:
                    if child in buffers:
                        self.pushed += 1
                        heappush(self.ready, (-child._sequence_nr, self.pushed, child))
                    else:
                        passed_over.append(child)

    # -- the steps of the loop -----------------------------------------------------
    def _capture(self, node: Node, grad) -> bool:
        """``autograd.grad`` keeps the gradient of each input it was asked about,
        stores no ``.grad``, and runs only the nodes that lead to those inputs:
        True if ``node`` is to be skipped.

        When hooks apply is PyTorch's rule: a node that leads on to another input
        hands over its gradient as it arrived (its hooks run when it is called, on
        what it sends on); a node that is only captured (a leaf's, or one with
        nothing asked about below it) runs its tensor hooks and ``retain_grad``
        first, but not the pre-hooks registered on the node itself."""
        captures, needed = self.captures, self.needed
        assert captures is not None and needed is not None
        skip = type(node) is AccumulateGrad or node not in needed
        places = captures.get(node, ())
        # A node neither asked about nor leading to an input is not run at all: not
        # even the hooks or retain_grad() of its tensors (its gradient is not needed).
        if skip and places and node._needs_call:
            grad = self._tensor_hooks_before(node, grad)
        for position, output_nr in places:
            self.captured[position] = grad[output_nr] if node._multi_output else grad
        return skip

    def _call(self, node: Node, grad_output) -> tuple[Any, Sequence]:
        """Run ``node`` when more than its backward is to be done (the loop runs a
        plain node itself: a call less per node, callgrind 500-product fan-out
        backward 25.06M -> 24.35M, three 200-link chains 19.55M -> 18.68M). Returns
        the gradient it received (after its hooks) and one gradient per edge to
        send on (none for a leaf's ``AccumulateGrad``, which adds it to ``.grad``,
        or for a node ``autograd.grad`` does not run)."""
        if self.captures is not None and self._capture(node, grad_output):
            return grad_output, []
        if type(node) is AccumulateGrad:  # (an empty tuple, which _send_on takes as it is)
            return self._accumulate(node, grad_output), ()
        if node._needs_call:
            grad_output = self._hooks_before(node, grad_output)
        if self.create_graph:
            with grad_mode.enable_grad():
                grad_inputs = node.apply(grad_output, True)
        else:
            grad_inputs = node.apply(grad_output, False)
        if node._needs_call and node._post_hooks is not None:
            grad_inputs = _run_post_hooks(node, grad_inputs, grad_output, self.create_graph)
        if not self.retain_graph and (node._saved is not None or node._release_always):
            node._release()  # 4. Free the saved tensors (a call spared when none).
        return grad_output, grad_inputs

    def _accumulate(self, node: AccumulateGrad, grad):
        """A leaf's AccumulateGrad: its hooks, then its gradient added into ``.grad``.
        (Its class sets _needs_call, which spares the loop a type test per node, so
        whether hooks are attached is read here: only leaves' nodes get here, so the
        reads are cheap, and a leaf without hooks spares _hooks_before's two calls.)"""
        if (
            node._tensor_pre_hooks is not None
            or node._pre_hooks is not None
            or node._retained is not None
        ):
            grad = self._hooks_before(node, grad)
        previous = node.accumulate(grad, self.create_graph, node in self.owned, self.observed)
        if self.observed:
            self.changes.append(Accumulation(node.variable, grad, previous))
        if node._post_accumulate_hooks is not None:
            node.run_post_accumulate_hooks(self.create_graph)
        return grad

    def _watched_call(self, node: Node, grad_output) -> tuple[Any, Sequence]:
        """``_call`` under anomaly mode: a node that fails warns where the forward
        recorded it, and (``check_nan``) one that returns nan raises."""
        return anomaly_mode.watched(self._call, node, grad_output)

    def _send(self, node: Node, input_nr: int, grad, grad_output) -> None:
        """Add ``grad`` into ``node``'s buffer for its output ``input_nr``
        (gradients from several paths sum)."""
        waiting = self.buffers.get(node)
        if waiting is None:
            if node._multi_output:
                self._send_to_output(node, input_nr, grad)
                return
            self.buffers[node] = grad
            # An array the backward formula just made (not its input passed through,
            # not a view) can become a leaf's .grad without a copy. (After a node
            # with several outputs, grad_output is their list: nothing is assumed.)
            if (
                type(node) is AccumulateGrad
                and grad is not grad_output
                and not self.create_graph
                and grad.base is None
                and type(grad_output) is not list
            ):
                self.owned.add(node)
            return
        if type(waiting) is list:  # a node with several outputs
            self._send_to_output(node, input_nr, grad)
            return
        if node in self.summed:
            # A sum this pass made (below), which nothing else holds: added to in
            # place, without a new array for each further gradient (one per product
            # into the fan-out's leaf). The same values as waiting + grad: in a plain
            # pass every gradient sent is an array (a NumPy scalar if 0-d) of its
            # input's shape and dtype (_send_on fits it), so no promotion, no
            # broadcast; a sum of 0-d ones is a scalar, never in summed.
            waiting += grad
            return
        total = waiting + grad
        if type(node) is AccumulateGrad and type(total) is not Tensor:
            self.owned.add(node)  # a sum made here: ours to hand on
        if type(total) is ndarray and self.sums_in_place:
            self.summed.add(node)
        self.buffers[node] = total

    def _send_to_output(self, node: Node, output_nr: int, grad) -> None:
        """A node with several outputs buffers one gradient per output; the outputs
        no gradient reaches stay None when it runs."""
        waiting = self.buffers.get(node)
        if waiting is None:
            waiting = self.buffers[node] = [None] * len(node.input_metadata)
        previous = waiting[output_nr]
        waiting[output_nr] = grad if previous is None else previous + grad

    def _record(self, node: Node, grad_output, grad_inputs: Sequence) -> BackwardStep:
        step = BackwardStep(self.steps_run, node, grad_output, grad_inputs, tuple(self.changes))
        self.steps_run += 1
        self.changes = []
        return step

    # -- hooks and .grad updates ----------------------------------------------------
    def _hooks_before(self, node: Node, grad):
        if node._multi_output:
            return self._output_hooks_before(node, grad)
        if node._tensor_pre_hooks is not None or node._pre_hooks is not None:
            self.owned.discard(node)
        # PyTorch's order: the tensor's hooks, retain_grad, then the node's pre-hooks
        # (so .grad of a retain_grad() tensor is not what its node's pre-hooks make).
        grad = self._tensor_hooks_before(node, grad)
        if node._pre_hooks is not None:
            grad = _run_pre_hooks(node, grad, self.create_graph, tensor_hooks=False)
        return grad

    def _tensor_hooks_before(self, node: Node, grad):
        """The hooks of the tensors ``node`` made (``register_hook``,
        ``retain_grad``), without the node's own pre-hooks: what PyTorch runs on a
        gradient ``autograd.grad`` captures at a node it does not call."""
        if node._multi_output:
            return self._output_hooks_before(node, grad, node_hooks=False)
        if node._tensor_pre_hooks is not None:
            grad = _run_pre_hooks(node, grad, self.create_graph, node_hooks=False)
        if node._retained is not None:
            self._retain(node._retained, grad)
        return grad

    def _output_hooks_before(self, node: Node, grads: list, node_hooks: bool = True) -> list:
        """The hooks of a node with several outputs: each output's tensor hooks and
        retain_grad() see that output's gradient; the node's pre-hooks (unless
        ``node_hooks`` is False) see them all."""
        hooks = node.__dict__.get("_output_hooks", {})
        retained = node.__dict__.get("_retained_outputs", {})
        for output_nr, grad in enumerate(grads):
            if grad is None:
                continue
            for hook in hooks.get(output_nr, ()):
                with grad_mode.set_grad_enabled(self.create_graph):
                    result = hook(_as_tensor(grad))
                if result is not None:
                    grad = _checked_hook_value(hook, result, grad, self.create_graph)
            grads[output_nr] = grad
            if output_nr in retained:
                self._retain(retained[output_nr], grad)
        for hook in (node._pre_hooks if node_hooks else None) or ():
            result = hook(tuple(_as_tensor(g) for g in grads))
            if result is not None:
                grads = _checked_hook_values(hook, result, grads, self.create_graph)
        return grads

    def _retain(self, reference, grad) -> None:
        """``retain_grad()``: this non-leaf's ``.grad`` gets the gradient too."""
        tensor = reference()
        if tensor is None:
            return
        previous = tensor._grad
        # A copy, as PyTorch's retain_grad hook clones: .grad must not be the very
        # gradient that flows on (autograd.grad may hand that one out, or a leaf
        # accumulate it), or zeroing .grad would zero them too. Under create_graph the
        # clone is recorded, as PyTorch's.
        value = (
            _as_tensor(grad).clone() if self.create_graph else _as_tensor(np.array(grad, copy=True))
        )
        tensor._grad = value if previous is None else previous + value
        if self.observed:
            self.changes.append(Accumulation(tensor, grad, previous))


def _fitted_root_grad(root: Node, output_nr: int, grad, create_graph: bool, index: int):
    """A root's gradient fitted to the output it is for, as the loop fits every
    gradient it sends (PyTorch's engine validates the roots' gradients too). Every
    gradient a node receives then fits its output (as do their sums, and what a
    hook returns, which must keep shape and dtype), and the loop need not look at
    a gradient a node passes on unchanged (Add's) to an input of that shape and
    dtype: callgrind (backward passes only, tiny script) 500-product fan-out
    21.69M -> 20.73M, 200-link chain 4.84M -> 4.73M, tutorial unchanged (159k)."""
    shape, dtype = root.input_metadata[output_nr]
    return (
        grad
        if _fits_input(grad, shape, dtype)
        else _fit_to_input(grad, shape, dtype, create_graph, None, index)
    )


def _count_dependencies(roots: list[Edge]) -> tuple[list[Node], dict[Node, int]]:
    """The roots' nodes (each once), and for every node reachable from them how
    many edges lead into it."""
    dependencies: dict[Node, int] = {}
    for root, _ in roots:
        assert root is not None  # every root requires grad
        dependencies[root] = 0
    root_nodes = list(dependencies)
    stack = root_nodes.copy()
    while stack:
        node: Node | None = stack.pop()
        # Depth first, going on from a node's last new child directly rather than
        # through the stack (it would be popped next: same order): a chain never
        # touches the stack, and a list a node or two deep reallocates its memory
        # on nearly every append and pop (callgrind, 500-product fan-out 2.44M ->
        # 2.15M instructions; 200-link chain backward -1%).
        while node is not None:
            last_new = None
            for child in node._next_nodes:
                if child is None:
                    continue
                if child in dependencies:
                    dependencies[child] += 1
                else:
                    dependencies[child] = 1
                    if last_new is not None:
                        stack.append(last_new)
                    last_new = child
            node = last_new
    return root_nodes, dependencies


def _leading_to(targets, nodes) -> set[Node]:
    """The nodes among ``nodes`` from which one of ``targets`` can be reached
    below them (a target is among them only if another target is below it)."""
    parents: dict[Node, list[Node]] = {}
    for node in nodes:
        for child in node._next_nodes:
            if child is not None:
                parents.setdefault(child, []).append(node)
    needed: set[Node] = set()
    stack = list(targets)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


class BackwardPass:
    """A backward pass run one node per ``next()``: what :func:`backward_steps`
    returns.

    It is an iterator of :class:`BackwardStep` records, and it also tells, read
    only, where the pass stands: how many nodes it will run, which nodes are still
    pending and how many gradients each still waits for, the gradients already
    waiting in their buffers, and the gradients it started from.

    Attributes
    ----------
    total : int
        How many nodes the pass runs (every node the roots depend on, once).
    root_grads : tuple of Tensor
        The seed: one gradient per tensor the pass starts from (``tensor(1.)`` for
        a scalar ``loss``).
    """

    def __init__(self, task: _GraphTask) -> None:
        self._task = task
        self._records = task.run()
        self.total = task.total
        self.root_grads = tuple(_as_tensor(grad) for grad in task.root_grads)

    def __iter__(self) -> BackwardPass:
        return self

    def __next__(self) -> BackwardStep:
        # Backward formulas meet x/0 and 0·inf at the edges of their domains;
        # PyTorch returns inf/nan there without a word.
        with np.errstate(all="ignore"):
            return next(self._records)

    @property
    def next_node(self) -> Node | None:
        """The node the next ``next()`` runs (None when the pass is over)."""
        ready = self._task.ready
        return ready[0][2] if ready else None

    @property
    def finished(self) -> bool:
        """True once no node is left to run."""
        return not self._task.ready

    @property
    def pending(self) -> dict[Node, int]:
        """Every node still to run, with how many of the edges into it have yet to
        deliver their gradient (0: ready)."""
        task = self._task
        return {
            node: count
            for node, count in task.dependencies.items()
            if count > 0 or node in task.buffers
        }

    @property
    def buffered(self) -> dict[Node, Any]:
        """The gradients waiting for their node: the sum of what has arrived so far
        (for a node with several outputs, a tuple with one entry per output, None
        where nothing has arrived)."""
        return {node: _as_tensors(grad) for node, grad in self._task.buffers.items()}

    def __repr__(self) -> str:
        return f"<BackwardPass: {self._task.steps_run} of {self.total} nodes run>"


def _run_pre_hooks(
    node: Node, grad, create_graph: bool, node_hooks: bool = True, tensor_hooks: bool = True
):
    """The tensor hooks of ``node``'s output (unless ``tensor_hooks`` is False), then
    (unless ``node_hooks`` is False) the pre-hooks registered on the node itself."""
    for hook in (node._tensor_pre_hooks if tensor_hooks else None) or ():
        with grad_mode.set_grad_enabled(create_graph):
            result = hook(_as_tensor(grad))
        if result is not None:
            grad = _checked_hook_value(hook, result, grad, create_graph)
    for hook in (node._pre_hooks if node_hooks else None) or ():
        with grad_mode.set_grad_enabled(create_graph):
            result = hook((_as_tensor(grad),))
        if result is not None:
            (grad,) = _checked_hook_values(hook, result, [grad], create_graph)
    if create_graph and type(grad) is not Tensor:
        grad = Tensor._make(grad)
    return grad


def _run_post_hooks(node: Node, sent: list, grad, create_graph: bool) -> list:
    inputs = tuple(_as_tensor(g) for g in sent)
    outputs = _as_tensors(grad) if node._multi_output else (_as_tensor(grad),)
    for hook in node._post_hooks or ():
        result = hook(inputs, outputs)
        if result is not None:
            inputs = tuple(_checked_hook_values(hook, result, list(inputs), create_graph=True))
    return [None if g is None else _seen_by_hook(g, create_graph) for g in inputs]


def _seen_by_hook(grad: Tensor, create_graph: bool):
    """A gradient a post-hook saw or returned, as the engine sends it on. The hook
    may have kept it, so it must never become a leaf's ``.grad`` that a later pass
    adds into in place: it goes on as a view (``_send`` only hands on as ``.grad``,
    without a copy, an array that is no view), so the leaf gets a copy."""
    if create_graph:
        return grad
    return grad._data.view()


def _checked_hook_value(hook, result, like, create_graph: bool):
    """What a hook returned in place of the gradient ``like``, with PyTorch's checks:
    a tensor of the same shape and dtype (a hook may change values, not shapes: a
    [3] leaf must not end up with a [5] gradient)."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    like_data = like._data if isinstance(like, Tensor) else like
    if result._data.shape != like_data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if result._data.dtype != like_data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was "
            f"torch.{scalar_type_name(like_data.dtype)}Tensor got "
            f"torch.{scalar_type_name(result._data.dtype)}Tensor)"
        )
    return result if create_graph else result._data


def _checked_hook_values(hook, result, likes: list, create_graph: bool) -> list:
    """A node hook's tuple of gradients, one per ``likes`` (None keeps no gradient)."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(likes):
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(result)}, "
            f"but expected {len(likes)})"
        )
    return [
        value
        if value is None or like is None
        else _checked_hook_value(hook, value, like, create_graph)
        for value, like in zip(result, likes)
    ]


def _make_grads(tensors: Sequence, grad_tensors: Sequence | None, create_graph: bool) -> list:
    """The seed of the pass: one gradient per tensor (``1`` for a scalar given none)."""
    if grad_tensors is not None and len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"grad_tensors has {len(grad_tensors)} gradients but there are {len(tensors)} "
            "tensors: give one gradient (or None) per tensor"
        )
    grads = []
    for i, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"backward expects tensors, got {type(tensor).__name__}")
        grad = None if grad_tensors is None else grad_tensors[i]
        if grad is None:
            value = _implicit_grad(tensor)
        else:
            value = _given_grad(i, tensor, grad, create_graph)
        grads.append(_as_tensor(value) if create_graph else value)
    return grads


def _implicit_grad(tensor: Tensor) -> np.ndarray | np.generic:
    """``loss.backward()`` means ``loss.backward(torch.tensor(1.))``: scalars only."""
    data = tensor._data
    if data.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    one = _ONES.get(data.dtype.type)
    if one is None:
        one = _one_of(tensor)
    if data.ndim == 0:
        # A 0-d gradient travels as a NumPy scalar, like every 0-d gradient inside
        # the engine: made and multiplied several times faster than a 0-d array.
        return one
    # One element, so every dimension is 1 and ndmin gives the shape (a tenth of
    # what np.ones costs).
    return np.array(one, ndmin=data.ndim)


# The scalar 1 of each floating dtype (by its scalar type: hashing a dtype costs
# more), made once: NumPy scalars are immutable, so every pass can share it, and
# making one costs ~2.7k instructions (callgrind).
_ONES: dict[type, np.generic] = {}


def _one_of(tensor: Tensor) -> np.generic:
    dtype = tensor._data.dtype
    if dtype.kind != "f":
        raise RuntimeError(
            "grad can be implicitly created only for real scalar outputs but got "
            f"torch.{tensor.dtype.name}"
        )
    one = _ONES[dtype.type] = dtype.type(1)
    return one


def _given_grad(i: int, tensor: Tensor, grad, create_graph: bool):
    if not isinstance(grad, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    if grad._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of "
            f"torch.Size({list(grad._data.shape)}) and output[{i}] has a shape of "
            f"torch.Size({list(tensor._data.shape)})."
        )
    if create_graph:
        return grad
    value = grad._data
    return value if value.dtype == tensor._data.dtype else value.astype(tensor._data.dtype)


def _root_edges(tensors: Sequence) -> list[Edge]:
    """Where each root's gradient goes: its node, and which output it is there."""
    roots = []
    for i, tensor in enumerate(tensors):
        if not tensor._requires_grad:
            raise _no_grad_fn_error(i)
        roots.append(gradient_edge(tensor))
    return roots


def _no_grad_fn_error(i: int) -> RuntimeError:
    """PyTorch's error for root number ``i`` of a pass that requires no grad."""
    return RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def prepare(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence | None = None,
    observed: bool = False,
) -> _GraphTask:
    """Validate the arguments and set up a pass (used by backward, grad and the stepper)."""
    if retain_graph is None:
        retain_graph = create_graph
    if type(tensors) is Tensor and grad_tensors is None:
        roots, grads = _scalar_root(tensors, create_graph)
    else:
        tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
        if grad_tensors is not None:
            grad_tensors = _given_grads(grad_tensors)
        roots = _root_edges(tensors)
        grads = _make_grads(tensors, grad_tensors, create_graph)
    captures = None if inputs is None else _captures(inputs)
    return _GraphTask(roots, grads, retain_graph, create_graph, captures, observed)


def _scalar_root(tensor: Tensor, create_graph: bool) -> tuple[list[Edge], list]:
    """_root_edges and _make_grads for the commonest call, ``loss.backward()`` (one
    tensor, no gradient given), without their loops: same checks in the same order,
    prepare 38.1k -> 34.1k instructions for the tutorial (callgrind)."""
    if not tensor._requires_grad:
        raise _no_grad_fn_error(0)
    value = _implicit_grad(tensor)
    return [gradient_edge(tensor)], [_as_tensor(value) if create_graph else value]


def _given_grads(grad_tensors) -> tuple:
    """The ``gradient``/``grad_tensors`` argument as a tuple of tensors (or None)."""
    if isinstance(grad_tensors, Tensor):
        return (grad_tensors,)
    if isinstance(grad_tensors, (np.ndarray, int, float)):
        raise TypeError(
            f"gradient must be a Tensor (or None for a scalar output), not "
            f"{type(grad_tensors).__name__}: wrap it, e.g. torch.tensor(...)"
        )
    return tuple(grad_tensors)


def _captures(inputs: Sequence) -> dict[Node | None, list[tuple[int, int]]]:
    """For ``autograd.grad``: the node of each input, and where its gradient goes
    in the result (with which output of the node the input is)."""
    captures: dict[Node | None, list[tuple[int, int]]] = {}
    for position, tensor in enumerate(inputs):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(tensor).__name__}")
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        # A view made under no_grad of a tensor that requires grad requires grad too,
        # but has no edge (node None): no gradient reaches it, as in PyTorch. Its
        # place is kept under None, which no node of the graph is.
        node, output_nr = gradient_edge(tensor)
        captures.setdefault(node, []).append((position, output_nr))
    return captures


def run_to_end(task: _GraphTask) -> None:
    """Drain a pass (what backward and grad do). Backward formulas meet x/0 and
    0·inf at the edges of their domains; PyTorch returns inf/nan there without a
    word, so NumPy's floating-point warnings are silenced for the pass."""
    silently(_drain, task.run())


def _drain(steps: Iterator) -> None:
    for _ in steps:
        pass


def backward_steps(
    tensors, grad_tensors=None, retain_graph: bool | None = None, create_graph: bool = False
) -> BackwardPass:
    """Run a backward pass one node at a time.

    Arguments are checked, and the graph's dependencies counted, when you call it;
    each ``next()`` then runs one node and returns its :class:`BackwardStep`.
    Draining the iterator does exactly what ``autograd.backward(tensors,
    grad_tensors, retain_graph, create_graph)`` does — that function is this loop.
    The :class:`BackwardPass` it returns also tells where the pass stands
    (``total``, ``pending``, ``buffered``, ``next_node``, ``root_grads``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> a = torch.tensor([2.0, 3.0], requires_grad=True)
    >>> loss = (a * a).sum()
    >>> steps = torch.autograd.backward_steps(loss)
    >>> steps.total, steps.next_node.name(), steps.root_grads
    (3, 'SumBackward0', (tensor(1.),))
    >>> for step in steps:
    ...     print(step.index, step.node.name(), step.grad_output)
    0 SumBackward0 tensor(1.)
    1 MulBackward0 tensor([1., 1.])
    2 autogradkit::autograd::AccumulateGrad tensor([4., 6.])
    >>> a.grad
    tensor([4., 6.])
    >>> step.undo(); a.grad is None
    True
    """
    return BackwardPass(prepare(tensors, grad_tensors, retain_graph, create_graph, observed=True))
