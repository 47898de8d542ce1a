"""Views: tensors that share another tensor's memory, and in-place changes made
through them (mirrors PyTorch's view + in-place machinery in
``torch/csrc/autograd/variable.cpp`` and ``CopySlices``).

The idea
--------
``x[0]``, ``x[:, 1:]``, ``x.t()``, ``x.view(6)``, ``x.unsqueeze(0)``, ``x.expand(...)``
… give a *view*: a tensor whose elements are some of ``x``'s, in the same memory.
As in PyTorch:

* a view remembers its **base** (the tensor that owns the memory; a view of a view
  has the same base) and the **steps** that regenerate it from the base (the view
  operations applied, in order);
* the base and all its views share **one version counter**: an in-place change
  through any of them bumps it, so a saved tensor that shares the memory is caught
  by backward's check (``x[0]`` saved by ``x[0] * x[0]``, then ``x.add_(1)``);
* an in-place operation **on a view** of a tensor that needs gradients changes the
  base's values too, so the base's history is rewritten: ``base.grad_fn`` becomes
  :class:`CopySlices`, which holds the base's old history, the steps, and the
  in-place operation's own backward node ``fn``. Its backward: the gradient for
  the base's old values is the incoming gradient with the view's region replaced
  by what ``fn`` gives for the view's old values; ``fn``'s other inputs (the
  ``other`` of ``v.add_(other)``) get theirs;
* after an in-place change to the base or to any of its views, a view's
  ``grad_fn`` is out of date. It is regenerated when next read, as
  ``AsStridedBackward0`` (the name PyTorch uses) pointing at the base's current
  history: its backward runs the steps' own backward formulas in reverse.

A view made under ``no_grad`` may not be changed in place once gradients are
recorded again (PyTorch forbids it as ambiguous). ``detach()`` shares memory and
version counter but is not a view here (its ``_base`` is None, as in PyTorch).
"""

from __future__ import annotations

import types
import weakref
from typing import Any, NamedTuple

import numpy as np

from .._inplace import VIEW_OF_LEAF_INPLACE_MESSAGE
from ..tensor import Tensor
from . import anomaly_mode as _anomaly_mode
from . import grad_mode
from .function import (
    SECOND_BACKWARD_MESSAGE,
    Function,
    Linear,
    Node,
    _forward_name,
    _record,
    _sequence_numbers,
    gradient_edge,
    sum_to_shape,
)

__all__ = [
    "ViewInfo",
    "ViewStep",
    "CopySlices",
    "AsStrided",
    "link_view",
    "regenerate",
    "refresh",
    "without",
    "check_inplace",
    "rebase_history",
]

NO_GRAD_VIEW_MESSAGE = (
    "{which} created in no_grad mode and {what} modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)


class ViewStep(NamedTuple):
    """One view operation on the way from the base to a view: the Function, the
    ``ctx`` its forward filled in (what its backward reads), the forward's other
    arguments, and the shape of its input."""

    function: type[Function]
    ctx: Any
    args: tuple
    input_shape: tuple
    # Which of the outputs of a function with several (split, chunk, unbind) the view
    # is; None for a function with one output.
    piece: int | None = None

    def forward(self, value):
        """Apply this step to an array (a NumPy view of it) or, recorded, to a tensor."""
        if type(value) is Tensor:
            out = self.function.apply(value, *self.args)
        else:
            scratch: Any = types.SimpleNamespace()  # forward's notes for backward are not needed
            out = self.function.forward(scratch, value, *self.args)
        return out if self.piece is None else out[self.piece]

    def backward(self, grad):
        """The gradient for this step's input, given the one for its output."""
        grads = self.function.backward(self.ctx, grad)
        grad = grads[0] if type(grads) is tuple else grads
        if grad.shape != self.input_shape:
            grad = sum_to_shape(grad, self.input_shape)  # an expand: sum over the repeats
        return grad


class ViewInfo:
    """What a view knows about where it comes from (PyTorch: ``ViewInfo`` and
    ``DifferentiableViewMeta``)."""

    __slots__ = ("base", "steps", "version", "made_in_no_grad", "multi_output")

    def __init__(
        self, base: Tensor, steps: tuple, version: int, made_in_no_grad: bool, multi_output: bool
    ) -> None:
        self.base = base
        # One of several views made at once (split, chunk, unbind): never changed in place.
        self.multi_output = multi_output
        self.steps = steps
        # The version at which the view's grad_fn was last set: when the shared
        # counter moves on, the grad_fn is regenerated (PyTorch's attr_version).
        self.version = version
        self.made_in_no_grad = made_in_no_grad


def link_view(
    view: Tensor,
    source: Tensor,
    function: type[Function],
    ctx: Any,
    args: tuple,
    piece: int | None = None,
) -> None:
    """Make ``view`` (the result of ``function`` on ``source``; output number
    ``piece`` of a function with several) a view of ``source``'s base when NumPy
    gave it ``source``'s memory; a copy stays a tensor of its own."""
    data, source_data = view._data, source._data
    if data.base is None or (data.base is not source_data and data.base is not source_data.base):
        return
    step = ViewStep(function, ctx, args, source_data.shape, piece)
    # How the view was made, as PyTorch's creation_meta: in no_grad mode, or (in grad
    # mode) as one of several outputs. A plain view of a view inherits its parent's;
    # a view made either way replaces it (a chunk of a no_grad view is refused as a
    # chunk, not as a no_grad view), as PyTorch's propagate_creation_meta does.
    parent = source._view
    made_in_no_grad = not grad_mode._state.enabled
    multi_output = piece is not None and not made_in_no_grad
    if parent is None:
        base, steps = source, (step,)
    else:
        base, steps = parent.base, parent.steps + (step,)
        if not (made_in_no_grad or multi_output):
            made_in_no_grad, multi_output = parent.made_in_no_grad, parent.multi_output
    counter = source._version_counter
    view._version_counter = counter
    view._view = ViewInfo(base, steps, counter[0], made_in_no_grad, multi_output)


def _info(view: Tensor) -> ViewInfo:
    info = view._view
    if info is None:  # pragma: no cover - callers check
        raise TypeError("not a view")
    return info


def without(view: Tensor, args: tuple, needs: tuple) -> tuple:
    """``needs`` with False for ``view``: a view that requires grad only because its
    base does (made under no_grad, or before the base required grad) is recorded as
    an input that needs no gradient (``(None, 0)`` in ``next_functions``), as in
    PyTorch: no gradient flows into it."""
    return tuple(need and arg is not view for arg, need in zip(args, needs))


def regenerate(steps: tuple, value):
    """The view that ``steps`` make of ``value`` (an array shaped like the base, or
    a tensor, for which the steps are recorded)."""
    for step in steps:
        value = step.forward(value)
    return value


# -- the view's grad_fn, regenerated after an in-place change ----------------------------


class AsStrided(Linear):
    """f(base) = the view's elements of the base;   ∂: the view's gradient put
    back where the view's elements sit (the view operations' own backward
    formulas, last one first), zeros elsewhere"""

    node_name = "AsStridedBackward0"
    formula = r"f(x) = \text{the view's elements of } x \qquad \frac{\partial \ell}{\partial x} = G \text{ at the view's places, } 0 \text{ elsewhere}"

    @staticmethod
    def forward(ctx, base, steps):
        ctx.steps = steps
        return regenerate(steps, base)

    @staticmethod
    def backward(ctx, grad_output):
        grad = grad_output
        for step in reversed(ctx.steps):
            grad = step.backward(grad)
        return grad, None


def refresh(view: Tensor) -> None:
    """Bring ``view``'s ``grad_fn`` up to date after an in-place change to its
    base or another view of it (PyTorch: ``VariableHooks::grad_fn``)."""
    info = _info(view)
    version = view._version_counter[0]
    if info.version == version:
        return
    base = info.base
    if view._grad_fn is None and not base._requires_grad:
        return  # nothing to regenerate (and, as in PyTorch, the version is not taken)
    _refuse_rebase(view, info, what="its base or another view of its base has been")
    ctx: Any = AsStrided._node_class.__new__(AsStrided._node_class)
    ctx._saved = None
    ctx.needs_input_grad = (True, False)
    ctx.steps = info.steps
    ctx._set_edges((gradient_edge(base),))
    _record(ctx, (base, info.steps), view._data, view, not base._requires_grad)
    _move_retained_grad(view, ctx)
    view._grad_fn = ctx
    view._requires_grad = True
    info.version = version


def _move_retained_grad(tensor: Tensor, new_fn: Node) -> None:
    """``retain_grad()`` follows a tensor to its new history (as in PyTorch)."""
    old_fn = tensor._grad_fn
    if tensor._retains_grad and old_fn is not None:
        old_fn._retained = None
        new_fn._retained = weakref.ref(tensor)
        new_fn._needs_call = True


# -- in-place changes through a view -------------------------------------------------------


def check_inplace(view: Tensor) -> None:
    """PyTorch's refusals for an in-place operation on a view that is recorded."""
    info = _info(view)
    _refuse_rebase(view, info, what="is being")
    # As PyTorch's check_inplace: the view requires grad and its base is a leaf
    # (even one that has stopped requiring grad since the view was made).
    if view.requires_grad and info.base._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)


def _refuse_rebase(view: Tensor, info: ViewInfo, what: str) -> None:
    """PyTorch's refusals to rewrite a view's history (``handle_view_on_rebase``)."""
    node = view._grad_fn
    if info.made_in_no_grad:
        # A view made by grad mode from a no_grad view has a node of its own, and
        # PyTorch names it.
        if node is None:
            which = "A view was"
        else:
            which = (
                f"Output {view._output_nr} of {_forward_name(node)} is a view of a view which was"
            )
        raise RuntimeError(NO_GRAD_VIEW_MESSAGE.format(which=which, what=what))
    if info.multi_output:
        if node is None:
            # PyTorch's header for a view without a node, whatever made it.
            header = f"A view was created in no_grad mode and {what} modified inplace with grad mode enabled."
        else:
            header = f"Output {view._output_nr} of {_forward_name(node)} is a view and {what} modified inplace."
        raise RuntimeError(
            f"{header} This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should replace "
            "the inplace operation by an out-of-place one."
        )


class CopySlices(Node):
    """The base's history after an in-place operation on one of its views.

    ``next_functions`` are the base's previous history (where the gradient for
    the base's old values goes) followed by the in-place operation's other inputs.
    Backward: the incoming gradient ``G`` is for the base's new values. The view's
    region of ``G`` goes through ``fn`` (the in-place operation's backward), whose
    first result replaces that region, giving the gradient for the base's old
    values; ``fn``'s other results go to its other inputs.
    """

    _name = "CopySlices"
    _release_always = True  # see _release
    # The engine's loop frees a plain node's saved tensors itself (Node._release
    # written out), so CopySlices, whose _release does more, goes through
    # _GraphTask._call.
    _needs_call = True

    def __init__(self, base: Tensor, steps: tuple, fn: Node) -> None:
        self._saved = self._saved_sources = None
        self.steps = steps
        self.fn: Node | None = fn
        self._set_edges((gradient_edge(base),) + fn.next_functions[1:])
        self._inputs = (base,) + fn._inputs[1:]
        self.needs_input_grad = (base._requires_grad,) + fn.needs_input_grad[1:]
        self.input_metadata = ((base._data.shape, base._data.dtype),)
        self._sequence_nr = next(_sequence_numbers)
        if _anomaly_mode.enabled:
            _anomaly_mode.keep_forward_trace(self)

    def name(self) -> str:
        return "autogradkit::autograd::CopySlices"

    def formula(self) -> str:
        return r"\frac{\partial \ell}{\partial \text{base}} = G \text{ with the view's region replaced by } \texttt{fn}(G_{\text{view}})"

    def apply(self, grad_output, create_graph: bool = False) -> list:
        if self.fn is None:  # released by an earlier pass, saved tensors or not (PyTorch's check)
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        grad_slice = regenerate(self.steps, grad_output)
        if type(grad_slice) is not Tensor:
            grad_slice = grad_slice.copy()
        res = self.fn.apply(grad_slice, create_graph)
        grads: list = [None] + list(res[1:])
        if self._next_nodes[0] is not None:
            region = res[0] if res[0] is not None else np.zeros(grad_slice.shape, grad_slice.dtype)
            grads[0] = _replace_region(grad_output, region, self.steps)
        return grads

    def _release(self) -> None:
        # PyTorch's CopySlices lets go of fn itself, so a second pass fails even when
        # fn saved nothing (copy_ of a number, fill_).
        if self.fn is not None:
            self.fn._release()
            self.fn = None


class ReplaceRegion(Linear):
    """f(g, s) = g with the view's region replaced by s (CopySlices' backward,
    recorded in a ``create_graph`` pass);   ∂f/∂g = G outside the region, 0 in it;
    ∂f/∂s = G's region"""

    node_name = "CopySlicesBackward"
    formula = r"f(g, s) = g \text{ with the view's region replaced by } s \qquad \frac{\partial \ell}{\partial g} = G \text{ outside the region}, \quad \frac{\partial \ell}{\partial s} = G \text{ in it}"

    @staticmethod
    def forward(ctx, g, s, steps):
        ctx.steps = steps
        out = np.array(g, copy=True)
        regenerate(steps, out)[...] = s
        return out

    @staticmethod
    def backward(ctx, grad_output):
        region = regenerate(ctx.steps, grad_output)
        zeros = np.zeros(region.shape, region.dtype)
        return _replace_region(grad_output, zeros, ctx.steps), region, None


def _replace_region(g, s, steps: tuple):
    if type(g) is Tensor or type(s) is Tensor:
        return ReplaceRegion.apply(g, s, steps)
    return ReplaceRegion.forward(types.SimpleNamespace(), g, s, steps)


def rebase_history(view: Tensor, fn: Node) -> None:
    """``view`` was changed in place by the operation whose backward node is ``fn``
    (its first edge leads to the view's old history): the base's history becomes
    ``CopySlices`` (PyTorch: ``rebase_history``). The view's own ``grad_fn`` is
    regenerated from the base when next read."""
    info = _info(view)
    base = info.base
    copy_slices = CopySlices(base, info.steps, fn)
    _move_retained_grad(base, copy_slices)
    base._grad_fn = copy_slices
    base._requires_grad = True
