"""The rules of the backward engine, one small test each, in the order
``autogradkit/autograd/engine.py`` states them. Read the two files side by side.

Every test builds a graph a learner could write, runs the pass through the public
step iterator (``torch.autograd.backward_steps``) or ``backward()``, and checks one
rule. Numbers are small and exact in binary, so equalities are exact.
"""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as torch
from autogradkit.autograd import Edge
from autogradkit.autograd.function import SECOND_BACKWARD_MESSAGE


def names(steps) -> list[str]:
    return [step.node.name() for step in steps]


# -- the graph: one Edge per input ----------------------------------------------------
def test_next_functions_holds_one_edge_per_input():
    """``next_functions`` is one ``Edge(node, input_nr)`` per input; an input that
    needs no gradient gets ``(None, 0)``; edges print and unpack as PyTorch's pairs."""
    a = torch.tensor(2.0, requires_grad=True)
    c = torch.tensor(3.0)
    y = a * c
    first, second = y.grad_fn.next_functions
    assert isinstance(first, Edge)
    assert first.node.name().endswith("AccumulateGrad") and first.node.variable is a
    assert first.input_nr == 0
    assert second == (None, 0)
    node, input_nr = first
    assert (node, input_nr) == (first.node, 0)
    assert repr(second) == "(None, 0)"


def test_next_functions_is_a_new_tuple_on_every_read_and_cannot_be_assigned():
    """As in PyTorch: each read builds the tuple anew (equal, not the same object),
    and assigning or deleting it raises PyTorch's AttributeError."""
    a = torch.tensor(2.0, requires_grad=True)
    node = (a * 2 + a).grad_fn
    first = node.next_functions
    assert first == node.next_functions and first is not node.next_functions
    leaf_node = first[1].node
    for target, name in ((node, "AddBackward0"), (leaf_node, "AccumulateGrad")):
        message = f"attribute 'next_functions' of '{name}' objects is not writable"
        with pytest.raises(AttributeError, match=message):
            target.next_functions = ()
        with pytest.raises(AttributeError, match=message):
            del target.next_functions
    assert node.next_functions == first


def test_a_recorded_operation_leaves_two_objects_for_the_garbage_collector():
    """A node keeps its edges as a tuple of next nodes and a shared tuple of input
    numbers, so a long chain leaves about two tracked objects per operation (its
    node and that tuple), not also an Edge and a tuple of Edges per node: the
    oldest generation's collections walk every one of them while the graph lives."""
    import collections
    import gc

    t0 = torch.tensor(1.0, requires_grad=True)

    def tracked() -> collections.Counter:
        gc.collect()
        return collections.Counter(type(o).__name__ for o in gc.get_objects())

    before = tracked()
    t = t0
    for _ in range(500):
        t = t * 1.001 + 0.001
    left = tracked() - before
    assert left["Edge"] == 0
    # Two operations per link, and some slack for objects made on first use.
    assert sum(left.values()) <= 2 * 2 * 500 + 200
    t.backward()
    assert t0.grad.item() == pytest.approx(1.001**500, rel=1e-4)  # float32 products


def test_every_operation_on_a_leaf_gets_the_same_edge_into_its_accumulate_grad():
    """A leaf used by many operations (a weight) has one AccumulateGrad, and every
    node's edge to it leads there with input_nr 0."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    first = (w * 2).grad_fn.next_functions[0]
    second = (w + 1).grad_fn.next_functions[0]
    assert first == second == (first.node, 0)
    assert first.node.variable is w


def test_a_node_that_saved_only_constants_is_freed_like_any_other():
    """``t * 1.5`` saves no tensor (only the number); its graph is still freed by
    the first pass, and a second pass is refused."""
    t = torch.tensor(2.0, requires_grad=True)
    y = t * 1.5
    z = (t * 2.5) * 1.0
    y.backward()
    z.backward()
    assert t.grad.item() == 4.0
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def _sources_by_the_rule(saved, args, out, result):
    """What each saved value is, by the rule _describe_saved documents: the output
    first, else the first tensor argument whose array it is, else a constant."""
    sources: list[tuple] = []
    for value in saved:
        if value is out:
            sources.append(("output", None, result._version_counter))
            continue
        tensor = next((a for a in args if type(a) is torch.Tensor and a._data is value), None)
        if value is not None and tensor is not None:
            sources.append(("input", tensor, tensor._version_counter))
        else:
            sources.append(("constant", None, None))
    return sources


def test_saved_sources_of_two_operands_follow_the_rule():
    """_describe_saved has a written-out path for two operands that saved their own
    arrays (a @ m, x * y): every pairing of saved values and operands gets the
    sources the general loop gives (the output first, then the first operand)."""
    from autogradkit.autograd.function import _describe_saved

    a = torch.ones(2, 2, requires_grad=True)
    m = torch.ones(2, 2) * 3
    b = a * 2
    c = b.detach()  # another tensor holding b's very array
    out = a._data @ m._data
    result = torch.Tensor._make(out)
    operands = [(a, m), (m, a), (a, a), (b, c), (c, b), (a, 2.0), (result, m), (m, result)]
    for x, y in operands:
        arrays = [None, getattr(x, "_data", x), getattr(y, "_data", y), out, 1.5]
        for first in arrays:
            for second in arrays:
                if all(v is None or isinstance(v, float) for v in (first, second)):
                    continue  # _record never asks about numbers and Nones alone
                sources, inputs_saved = _describe_saved((first, second), (x, y), out, result)
                got = [(kind, tensor, counter) for counter, _, kind, tensor in sources]
                expected = _sources_by_the_rule((first, second), (x, y), out, result)
                assert [(k, t) for k, t, _ in got] == [(k, t) for k, t, _ in expected]
                assert all(g[2] is e[2] for g, e in zip(got, expected))
                assert inputs_saved == any(k == "input" for k, _, _ in expected)
                assert all(v == c[0] for c, v, _, _ in sources if c is not None)


# -- 1. Count dependencies --------------------------------------------------------------
def test_dependencies_count_the_edges_into_each_node():
    """Before any node runs, each node's count is the number of edges that lead
    into it: ``h`` is used twice, so its node waits for two gradients."""
    a = torch.tensor(1.5, requires_grad=True)
    h = a.exp()
    loss = h * h
    steps = torch.autograd.backward_steps(loss)
    assert steps.total == 3  # MulBackward0, ExpBackward0, AccumulateGrad
    assert steps.pending == {loss.grad_fn: 0, h.grad_fn: 2, h.grad_fn.next_functions[0].node: 1}
    next(steps)  # Mul sends to h twice: h's count reaches zero
    assert steps.pending[h.grad_fn] == 0


def test_pending_lists_the_nodes_depth_first_from_the_root():
    """The walk that counts dependencies goes depth first, the last input's branch
    before the others, and ``pending`` lists each node when the walk first meets
    it: ``b``'s branch is met before ``exp``'s input ``sin``."""
    a = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.25, requires_grad=True)
    loss = (a.sin().exp() * b.cos()).sum()
    steps = torch.autograd.backward_steps(loss)
    assert [node.name() for node in steps.pending] == [
        "SumBackward0",
        "MulBackward0",
        "ExpBackward0",
        "CosBackward0",
        "autogradkit::autograd::AccumulateGrad",
        "SinBackward0",
        "autogradkit::autograd::AccumulateGrad",
    ]
    cos_node = loss.grad_fn.next_functions[0].node.next_functions[1].node
    assert list(steps.pending)[4] is cos_node.next_functions[0].node  # b's


# -- 2. Run nodes when ready, last recorded first ---------------------------------------
def test_a_node_runs_only_after_all_its_gradients_have_arrived():
    """``h`` feeds two branches; its node runs once, after both, with their sum."""
    a = torch.tensor(1.0, requires_grad=True)
    h = a * 3.0
    loss = h * 2.0 + h * 5.0
    steps = list(torch.autograd.backward_steps(loss))
    order = [step.node for step in steps]
    assert order.count(h.grad_fn) == 1
    h_step = steps[order.index(h.grad_fn)]
    assert h_step.grad_output.item() == 7.0  # 2 + 5, summed in h's buffer
    branches = [edge.node for edge in loss.grad_fn.next_functions]  # h * 2.0, h * 5.0
    assert order.index(h.grad_fn) > max(order.index(node) for node in branches)


def test_among_ready_nodes_the_one_recorded_last_runs_first():
    """Two independent branches: the engine runs the later-recorded one first (as
    PyTorch does), and a leaf's AccumulateGrad as soon as its gradient is complete."""
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(2.0, requires_grad=True)
    first = a.exp()  # recorded first
    second = b.log()  # recorded second
    loss = first + second
    assert names(torch.autograd.backward_steps(loss)) == [
        "AddBackward0",
        "LogBackward0",
        "autogradkit::autograd::AccumulateGrad",
        "ExpBackward0",
        "autogradkit::autograd::AccumulateGrad",
    ]


def test_the_pass_tells_what_runs_next_and_what_waits():
    """The public view of a pass: the next node, the gradients waiting in buffers
    and the seed, before and after one step."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (a * a).sum()
    steps = torch.autograd.backward_steps(loss)
    assert steps.root_grads[0].item() == 1.0
    assert steps.next_node is loss.grad_fn
    assert list(steps.buffered) == [loss.grad_fn]
    next(steps)
    mul = loss.grad_fn.next_functions[0].node
    assert steps.next_node is mul
    assert steps.buffered[mul].tolist() == [1.0, 1.0]
    list(steps)
    assert steps.finished and steps.next_node is None and steps.buffered == {}


# -- 3. Send gradients on: the chain rule, un-broadcast once ----------------------------
def test_a_broadcast_input_gets_its_gradient_summed_back_to_its_shape():
    """``b`` of shape (3,) was stretched over 2 rows: its gradient is summed over
    them by the engine, not by the operation."""
    w = torch.ones(2, 3)
    b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (w + b).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


def test_each_step_reports_what_it_received_and_sent():
    a = torch.tensor(3.0, requires_grad=True)
    c = torch.tensor(4.0)
    loss = a * c
    (mul, leaf) = list(torch.autograd.backward_steps(loss))
    assert mul.grad_output.item() == 1.0
    assert [None if g is None else g.item() for g in mul.grad_inputs] == [4.0, None]
    assert leaf.grad_inputs == ()


def test_a_node_with_several_outputs_buffers_and_receives_one_gradient_per_output():
    """split's node runs once, after the gradients of all its pieces arrived; the
    piece nothing reached is None in the step record, and zeros in x.grad."""
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    a, b, c = x.split(2)
    assert [p.output_nr for p in (a, b, c)] == [0, 1, 2]
    assert a.grad_fn is b.grad_fn is c.grad_fn
    loss = (a * 3).sum() + (c * c).sum()
    records = list(torch.autograd.backward_steps(loss))
    assert [r.node for r in records].count(a.grad_fn) == 1
    split = next(r for r in records if r.node is a.grad_fn)
    assert type(split.grad_output) is tuple and len(split.grad_outputs) == 3
    assert [g is None for g in split.grad_output] == [False, True, False]
    assert split.grad_outputs[0].tolist() == [3.0, 3.0]
    assert split.grad_outputs[1] is None
    assert split.grad_outputs[2].tolist() == [10.0, 12.0]
    assert split.grad_inputs[0].tolist() == [3.0, 3.0, 0.0, 0.0, 10.0, 12.0]
    assert x.grad.tolist() == [3.0, 3.0, 0.0, 0.0, 10.0, 12.0]
    # A node with one output: grad_outputs is the 1-tuple of grad_output.
    mul = next(r for r in records if r.node.name() == "MulBackward0")
    (only,) = mul.grad_outputs
    assert only.tolist() == mul.grad_output.tolist() == [1.0, 1.0]


def test_the_pending_buffer_of_a_node_with_several_outputs_is_a_tuple():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b, c = x.unbind()
    steps = torch.autograd.backward_steps(a * 2 + c)
    next(steps)  # AddBackward0 sends to MulBackward0 and to the unbind node's output 2
    waiting = steps.buffered[a.grad_fn]
    assert waiting[0] is None and waiting[1] is None and waiting[2].item() == 1.0
    assert steps.pending[a.grad_fn] == 1  # still waits for the MulBackward0 edge
    list(steps)
    assert x.grad.tolist() == [2.0, 0.0, 1.0]


# -- .grad accumulates -------------------------------------------------------------------
def test_gradients_accumulate_in_grad_across_passes():
    a = torch.tensor(2.0, requires_grad=True)
    (a * a).backward()
    (a * a).backward()
    assert a.grad.item() == 8.0  # 4 + 4


def test_gradients_from_many_paths_sum_and_what_each_node_sent_stays_as_sent():
    """Three products send into one leaf: its gradient is their sum (the engine adds
    the third into the sum it made of the first two, in place), while each gradient
    a node sent keeps its values, as that node's post-hook saw it and as the step
    records of a watched pass show it."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)

    def products(sent: list):
        terms = [a * c for c in (1.0, 2.0, 4.0)]
        for t in terms:
            t.grad_fn.register_hook(lambda grad_inputs, grad_outputs: sent.append(grad_inputs[0]))
        return (terms[0] + terms[1] + terms[2]).sum()

    sent: list = []
    products(sent).backward()
    assert a.grad.tolist() == [7.0, 7.0]
    assert sorted(g.tolist() for g in sent) == [[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]]
    a.grad.zero_()
    records = list(torch.autograd.backward_steps(products([])))
    assert a.grad.tolist() == [7.0, 7.0]
    muls = [r for r in records if r.node.name() == "MulBackward0"]
    assert sorted(r.grad_inputs[0].tolist() for r in muls) == [[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]]


def test_a_step_can_undo_and_redo_its_grad_update():
    a = torch.tensor(2.0, requires_grad=True)
    (a * 3.0).backward()
    steps = list(torch.autograd.backward_steps(a * 5.0))
    assert a.grad.item() == 8.0
    accumulation = steps[-1].accumulations[0]
    assert accumulation.tensor is a and accumulation.previous.item() == 3.0
    steps[-1].undo()
    assert a.grad.item() == 3.0
    steps[-1].redo()
    assert a.grad.item() == 8.0


# -- 4. Free the graph (unless retain_graph) --------------------------------------------
def test_a_second_pass_through_a_freed_graph_fails():
    a = torch.tensor(2.0, requires_grad=True)
    loss = a * a
    loss.backward()
    with pytest.raises(RuntimeError) as error:
        loss.backward()
    assert str(error.value) == SECOND_BACKWARD_MESSAGE


def test_nodes_free_their_saved_tensors_as_they_run():
    """Freeing happens node by node: after the first step only that node's saved
    tensors are gone."""
    a = torch.tensor(2.0, requires_grad=True)
    h = a * a
    loss = h * h
    steps = torch.autograd.backward_steps(loss)
    next(steps)
    with pytest.raises(RuntimeError):
        _ = loss.grad_fn.saved_tensors
    assert len(h.grad_fn.saved_tensors) == 2


def test_retain_graph_keeps_the_graph_for_another_pass():
    a = torch.tensor(2.0, requires_grad=True)
    loss = a * a
    loss.backward(retain_graph=True)
    loss.backward()
    assert a.grad.item() == 8.0


# -- hooks ------------------------------------------------------------------------------
def test_a_tensor_hook_sees_and_can_replace_the_gradient():
    a = torch.tensor(2.0, requires_grad=True)
    h = a * 3.0
    seen = []

    def times_ten(grad):
        seen.append(grad.item())
        return grad * 10.0

    h.register_hook(times_ten)
    (h * 2.0).backward()
    assert seen == [2.0]
    assert a.grad.item() == 60.0  # 2 · 10 · 3


def test_node_hooks_run_before_and_after_the_node():
    a = torch.tensor(2.0, requires_grad=True)
    h = a * 3.0
    calls = []
    h.grad_fn.register_prehook(lambda grad_outputs: calls.append(("pre", grad_outputs[0].item())))
    h.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: calls.append(("post", grad_inputs[0].item()))
    )
    (h * 2.0).backward()
    assert calls == [("pre", 2.0), ("post", 6.0)]


def test_retain_grad_keeps_a_non_leaf_gradient():
    a = torch.tensor(2.0, requires_grad=True)
    h = a * 3.0
    h.retain_grad()
    (h * h).backward()
    assert h.grad.item() == 12.0  # 2h


def test_saved_tensors_are_tensors_only_while_a_create_graph_pass_runs_the_node():
    # A create_graph pass makes a node's saved_tensors hand out tensors connected to
    # the graph while its formula runs (so the gradient is recorded); afterwards, and
    # in a later plain pass over the retained graph, they are arrays again.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = x * x
    s = z.sum()
    (first,) = torch.autograd.grad(s, x, create_graph=True, retain_graph=True)
    assert first.grad_fn is not None and first.tolist() == [2.0, 4.0]
    assert not any(isinstance(v, torch.Tensor) for v in z.grad_fn.saved_tensors)
    (plain,) = torch.autograd.grad(s, x, retain_graph=True)
    assert plain.grad_fn is None and plain.tolist() == [2.0, 4.0]


def test_a_create_graph_formula_that_fails_leaves_its_node_plain():
    # The formula of z's node fails (x was changed in place after z saved it); the
    # flag that makes saved_tensors hand out tensors is reset all the same.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1.0
    z = w * w
    with torch.no_grad():
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(z.sum(), x, create_graph=True, retain_graph=True)
    assert z.grad_fn._differentiable is False


def test_a_root_gradient_is_cast_to_its_node_dtype_before_the_node_runs():
    # y.data of another dtype leaves y's node recording float32; PyTorch's engine
    # casts the float64 gradient given for y to float32 before MulBackward0 runs,
    # so the product is float32's, not float64's rounded afterwards (6 of these 20
    # values differ in the last bit).
    values = np.random.default_rng(0).standard_normal(20)
    x = torch.ones(20, requires_grad=True)
    y = x * 3.3
    y.data = torch.zeros(20, dtype=torch.float64)
    y.backward(torch.tensor(values, dtype=torch.float64))
    expected = values.astype(np.float32) * 3.3
    assert x.grad.dtype == torch.float32
    assert np.array_equal(x.grad.numpy(), expected)
