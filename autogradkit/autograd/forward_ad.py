"""Forward-mode automatic differentiation (mirrors ``torch/autograd/forward_ad.py``).

Reverse mode (``backward``) sends one gradient from the output back to every input:
one pass gives a whole row of the Jacobian, vᵀJ. Forward mode goes the other way:
each value carries, beside it, its **tangent** — how fast it changes when the inputs
move in one chosen direction — and every operation computes its output's tangent
from its inputs' tangents as it runs. One pass gives a column of the Jacobian, J·v,
with no graph and no second pass.

>>> import autogradkit as torch
>>> import autogradkit.autograd.forward_ad as fwAD
>>> x = torch.tensor([0.0, 1.0, 2.0])
>>> with fwAD.dual_level():
...     dual = fwAD.make_dual(x, torch.ones(3))  # x, moving in the direction (1, 1, 1)
...     y = (dual * dual).sum()
...     print(y)
...     print(fwAD.unpack_dual(y).tangent)  # d/dt sum((x + t·v)²) = 2·x·v summed
tensor(5., tangent=6.0)
tensor(6.)

How a tangent travels
---------------------
While a dual level is active, :meth:`Function.apply` hands every operation to
:func:`push_tangent` after running it. If an input has a tangent, the operation's
**tangent rule** — its ``jvp(ctx, *tangents)`` static method, written next to its
``backward`` — computes the output's tangent: ∂f/∂x·ẋ + ∂f/∂y·ẏ + …. Most
operations inherit their rule from a base class in :mod:`.function` that says what
kind of function they are (elementwise, linear, bilinear, a reduction to a number);
the rest write theirs out. ``grad_fn`` and backward are untouched: a dual tensor can
also take part in an ordinary backward pass.

As in PyTorch, the tangent of a view (``x[0]``, ``x.t()``) is that view of its
base's tangent, so an in-place change through a view (``x[0].mul_(2)``) changes
the tangent of the base and of every other view of it.

Tangents are computed without recording a graph (so, unlike PyTorch, a tangent never
has a ``grad_fn`` of its own: no backward through forward mode), and, as in PyTorch,
one dual level may be active at a time.

:func:`forward_steps` runs a function and returns what every operation did to the
tangents, in order: the forward-mode twin of :func:`~autogradkit.autograd.backward_steps`.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._dtype import from_numpy_dtype
from ..tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
    "forward_steps",
    "ForwardStep",
    "ForwardTrace",
]


class _DualState:
    """The active dual level (None: forward mode is off) and, while a
    :func:`forward_steps` runs, the list its steps are appended to."""

    __slots__ = ("level", "recorder")

    def __init__(self) -> None:
        self.level: int | None = None
        self.recorder: list[ForwardStep] | None = None


# Function.apply reads state.level once per operation: that is the whole cost of
# forward mode for code that does not use it.
state = _DualState()

# The tangents of the active level: id(tensor) -> (weak reference to it, tangent).
# Kept beside the tensors rather than in them, so a tensor is not one slot bigger
# and a tangent disappears with its tensor (or when the level ends). None marks
# a tensor that has no tangent even though its base has one (unpack_dual's primal).
_tangents: dict[int, tuple[weakref.ref, Tensor | None]] = {}


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal (a view of the dual tensor's
    values, without tangent) and the tangent (None when it has none)."""

    primal: Tensor
    tangent: Tensor | None


# -- levels ------------------------------------------------------------------------------


def enter_dual_level() -> int:
    """Start forward mode: from now on tensors made by :func:`make_dual` carry
    tangents through every operation. Returns the new level (0). Prefer the
    ``with dual_level():`` block, which always ends the level."""
    if state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = 0
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """End forward mode: every tangent of the level is dropped (dual tensors become
    ordinary tensors)."""
    if state.level is None:
        raise RuntimeError("Dual level must be a positive number.")
    if level is not None and level != state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    _tangents.clear()
    state.level = None


class dual_level:
    """Context manager for forward mode: ``with dual_level():`` enters a dual level
    and exits it at the end of the block (its tangents are then gone)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: Any) -> None:
        exit_dual_level()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Forward mode off for a while (a custom Function's ``forward`` and ``jvp`` run
    so): tensors show no tangents and operations carry none."""
    level, state.level = state.level, None
    try:
        yield
    finally:
        state.level = level


# -- dual tensors ---------------------------------------------------------------------


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` that carries ``tangent``: the direction in which the
    operations that follow are differentiated.

    ``tangent`` must have ``tensor``'s shape; both must be floating point. The result
    shares ``tensor``'s values (and, if ``tensor`` requires grad, records a
    ``ViewBackward0``, so backward still reaches ``tensor``); the tangent is stored
    as it is, not copied, unless it is laid out differently in memory.
    """
    _check_level(
        level,
        "Trying to create a dual Tensor for forward AD but no level exists, "
        "make sure to enter_dual_level() first.",
        "_make_dual",
    )
    if not isinstance(tangent, Tensor):
        raise AttributeError(
            f"'{type(tangent).__name__}' object has no attribute 'is_floating_point'"
        )
    _check_floating("primal", tensor)
    _check_floating("tangent", tangent)
    _check_size(tensor, tangent)
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {state.level} is not supported."
        )
    if not _same_layout(tensor._data, tangent._data):
        # As PyTorch does: a tangent laid out differently in memory (a transpose, an
        # expanded tensor) is copied into the primal's layout.
        copy = np.empty_like(tensor._data, dtype=tangent._data.dtype)
        copy[...] = tangent._data
        tangent = Tensor._make(copy)
    dual = tensor.view(tensor.shape)
    _set_tangent(dual, tangent)
    return dual


def _same_layout(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one shape step through memory alike (in elements)."""
    return [s // a.itemsize for s in a.strides] == [s // b.itemsize for s in b.strides]


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """Split a dual tensor into ``(primal, tangent)``; the tangent is None for a
    tensor without one (and outside a dual level).

    >>> import autogradkit as torch
    >>> import autogradkit.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0)) ** 3
    ...     fwAD.unpack_dual(y)
    UnpackedDualTensor(primal=tensor(8.), tangent=tensor(12.))
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(
            "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    if state.level is None:
        return UnpackedDualTensor(tensor, None)
    _check_level(level, "", "_unpack_dual")
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    from ..ops.shape import primal_view

    primal = primal_view(tensor)
    _set_tangent(primal, None)  # the primal is the value alone
    return UnpackedDualTensor(primal, tangent)


def tangent_of(tensor: Tensor) -> Tensor | None:
    """The tangent ``tensor`` carries in the active level, or None. As in PyTorch,
    the tangent of a view is the same view of its base's tangent, when the base
    has one: an in-place change through the view or the base shows in both."""
    entry = _tangents.get(id(tensor))
    own = entry[1] if entry is not None and entry[0]() is tensor else None
    info = tensor._view
    if info is None or (entry is not None and own is None and entry[0]() is tensor):
        return own
    base_tangent = _own_tangent(info.base)
    if base_tangent is None:
        return own  # a dual made by make_dual (a view) and its views carry their own
    return Tensor._make(_view_of(info.steps, base_tangent._data))


def _own_tangent(tensor: Tensor) -> Tensor | None:
    """The tangent stored for ``tensor`` itself (not one derived from its base)."""
    entry = _tangents.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def _view_of(steps: tuple, array: np.ndarray) -> np.ndarray:
    """The view that a view's ``steps`` (see ``autograd/views.py``) make of ``array``,
    an array shaped like the view's base."""
    for step in steps:
        array = step.forward(array)
    return array


def copy_tangent(source: Tensor, target: Tensor) -> None:
    """Give ``target`` the tangent ``source`` carries in the active level (if any)."""
    tangent = tangent_of(source)
    if tangent is not None:
        _set_tangent(target, tangent)


def _set_tangent(tensor: Tensor, tangent: Tensor | None) -> None:
    key = id(tensor)
    _tangents[key] = (weakref.ref(tensor, _forget(key)), tangent)


def _forget(key: int) -> Callable[[weakref.ref], None]:
    """A callback that drops the tangent of a tensor that no longer exists."""

    def forget(reference: weakref.ref) -> None:
        entry = _tangents.get(key)
        if entry is not None and entry[0] is reference:
            del _tangents[key]

    return forget


def _check_level(level: int | None, missing: str, function_name: str) -> None:
    if state.level is None:
        raise RuntimeError(missing)
    if level is not None and level != state.level:
        raise RuntimeError(f"Invalid level given to {function_name}")


def _check_floating(what: str, tensor: Tensor) -> None:
    if tensor._data.dtype.kind not in "fc":
        raise ValueError(
            f"Expected {what} to be floating point or complex, but got: "
            f"{from_numpy_dtype(tensor._data.dtype)}"
        )


# -- carrying tangents through operations ------------------------------------------------


def push_tangent(cls: Any, args: tuple, arrays: list, ctx: Any, result: Tensor) -> None:
    """Give ``result`` (the output of ``cls`` applied to ``args``) its tangent, if an
    input has one. :meth:`Function.apply` calls this for every operation while a dual
    level is active.

    The tangent rule ``cls.jvp`` gets a context of its own: ``forward`` runs on it once
    more, as if every input with a tangent needed a gradient, so the values the rule
    reads from ``ctx.saved_tensors`` are there whatever the inputs' ``requires_grad``;
    ``ctx.primals`` holds ``forward``'s arguments and ``ctx.result`` its output.
    """
    tangents = [_tangent_array(arg) for arg in args]
    output_tangent = None
    if any(t is not None for t in tangents) and result._data.dtype.kind in "fc":
        jvp_ctx = _tangent_context(cls, args, arrays, tangents)
        value = cls.jvp(jvp_ctx, *tangents)
        value = _fit_tangent(value, result._data)
        if result._view is None and any(_aliases(value, t) for t in tangents):
            # A rule that handed back an input's tangent (an identity): the result's
            # tangent must be its own, or an in-place change of the result (which
            # writes into its tangent) would change the input's too.
            value = value.copy()
        output_tangent = Tensor._make(value)
        _set_tangent(result, output_tangent)
        node = result._grad_fn
        if node is not None and node is ctx:
            # A backward formula that reads the saved output (exp's, softmax's) under
            # create_graph gets a new tensor of those values: keep the tangent for it
            # too (PyTorch's saved variables keep their forward gradient).
            holder = Tensor._make(result._data)
            _set_tangent(holder, output_tangent)
            node._output_tangent = holder
    if state.recorder is not None:
        _record_step(args, ctx, cls.node_name, result, output_tangent)


def _aliases(value: np.ndarray, tangent: np.ndarray | None) -> bool:
    return tangent is not None and np.may_share_memory(value, tangent)


def _tangent_array(arg: Any) -> np.ndarray | None:
    if type(arg) is not Tensor:
        return None
    tangent = tangent_of(arg)
    return None if tangent is None else tangent._data


def _tangent_context(cls: Any, args: tuple, arrays: list, tangents: list) -> Any:
    ctx = cls._node_class.__new__(cls._node_class)
    ctx._saved = None
    ctx.needs_input_grad = tuple(t is not None for t in tangents)
    out = np.asarray(cls.forward(ctx, *arrays))
    ctx._saved_sources = None
    ctx.primals, ctx.result = arrays, out
    # Which arguments could carry a tangent at all (floating-point tensors).
    ctx.differentiable = tuple(type(arg) is Tensor and arg._data.dtype.kind in "fc" for arg in args)
    return ctx


def _fit_tangent(value: Any, like: np.ndarray) -> np.ndarray:
    """The rule's answer as an array of the output's shape and dtype (a rule may
    return a number, None for zero, or an array that still broadcasts)."""
    if value is None:
        return np.zeros_like(like)
    if isinstance(value, Tensor):
        value = value._data
    value = np.asarray(value)
    if value.shape != like.shape:
        value = np.broadcast_to(value, like.shape).copy()
    if value.dtype != like.dtype:
        # The tangent has the output's dtype, as in PyTorch: a float32 tangent of an
        # operand promoted to float64 (d - x), or a rule that computed in float64.
        value = value.astype(like.dtype)
    return value


def push_custom_tangent(cls: Any, args: tuple, ctx: Any, result: Tensor) -> None:
    """The same for a custom :class:`~autogradkit.autograd.Function`: its ``jvp``
    gets one tangent tensor per ``forward`` argument (zeros for a tensor without
    one, None for anything else, as in PyTorch) and reads what ``forward`` saved
    with ``ctx.save_for_forward`` from ``ctx.saved_tensors``."""
    tangents = [tangent_of(arg) if type(arg) is Tensor else None for arg in args]
    output_tangent = None
    if any(t is not None for t in tangents):
        given = [
            _zeros_like(arg) if type(arg) is Tensor and t is None else t
            for arg, t in zip(args, tangents)
        ]
        output_tangent = _run_custom_jvp(cls, ctx, given, result)
        _set_tangent(result, output_tangent)
    if state.recorder is not None:
        _record_step(args, ctx, ctx.name(), result, output_tangent)


def _zeros_like(tensor: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(tensor._data))


def _run_custom_jvp(cls: Any, ctx: Any, tangents: list, result: Tensor) -> Tensor:
    ctx.__dict__["_jvp_running"] = True  # saved_tensors: what save_for_forward kept
    try:
        with paused():  # the rule computes with plain values, as forward did
            value = cls.jvp(ctx, *tangents)
    finally:
        del ctx.__dict__["_jvp_running"]
    values = value if isinstance(value, tuple) else (value,)
    if len(values) != 1:
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected 1 but "
            f"got {len(values)})"
        )
    (tangent,) = values
    tangent = tangent if isinstance(tangent, Tensor) else Tensor._make(np.asarray(tangent))
    _check_size(result, tangent)
    return tangent


def _check_size(tensor: Tensor, tangent: Tensor) -> None:
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}."
        )


# -- in-place changes ----------------------------------------------------------------------


def inplace_tangent(tensor: Tensor, out_of_place: Callable, other: Any = None) -> Tensor | None:
    """The tangent ``tensor`` will have after an in-place operation (``x.mul_(y)``):
    that of the out-of-place operation at its values before (None: neither has one).
    Called by the in-place methods, before they change anything."""
    own = tangent_of(tensor)
    if own is None and (type(other) is not Tensor or tangent_of(other) is None):
        return None
    from .grad_mode import no_grad

    before = Tensor._make(tensor._data.copy())
    if own is not None:
        _set_tangent(before, own)
    with no_grad():
        result = out_of_place(before) if other is None else out_of_place(before, other)
    tangent = tangent_of(result)
    return _zeros_like(tensor) if tangent is None else tangent


def write_tangent(tensor: Tensor, key: Any, source: Any) -> None:
    """After ``tensor[key] = source`` (or ``copy_``/``fill_``, where key is ``...``):
    the written elements take ``source``'s tangent (zero for a constant)."""
    own = tangent_of(tensor)
    new = tangent_of(source) if type(source) is Tensor else None
    if own is None and new is None:
        return
    tangent = np.zeros_like(tensor._data) if own is None else own._data.copy()
    tangent[key] = 0 if new is None else new._data
    set_tangent(tensor, Tensor._make(tangent))


def set_tangent(tensor: Tensor, tangent: Tensor) -> None:
    """After an in-place change of ``tensor``, its tangent is ``tangent``.

    As in PyTorch, a tangent that already exists is changed in place, not
    replaced: a tangent unpacked before the change (``unpack_dual(y).tangent``)
    shows it, and keeps its dtype. For a view the change is made where PyTorch
    makes it: in the base's tangent (zeros first if the base had none), which the
    view and every other view of the base then show; for a dual made by
    :func:`make_dual` (a view whose base has no tangent) and its views, in the
    tangent they share (as in PyTorch, the tangent given to ``make_dual`` changes
    too).
    """
    info = tensor._view
    own = _own_tangent(tensor)
    if info is None or (own is not None and _own_tangent(info.base) is None):
        if own is None:
            _set_tangent(tensor, tangent)
        else:
            _write_into(tensor, own, tangent._data)
        return
    base = info.base
    base_tangent = _own_tangent(base)
    if base_tangent is None:
        base_tangent = Tensor._make(np.zeros_like(base._data))
        _set_tangent(base, base_tangent)
    _view_of(info.steps, base_tangent._data)[...] = tangent._data
    _tangents.pop(id(tensor), None)  # from now on the view's tangent is read from the base


def _write_into(tensor: Tensor, own: Tensor, values: np.ndarray) -> None:
    """Write ``values`` into ``tensor``'s own tangent ``own``, in place."""
    if own._data.flags.writeable:
        own._data[...] = values
    else:  # pragma: no cover - a tangent NumPy cannot write (read-only memory): replace it
        _set_tangent(tensor, Tensor._make(values.astype(own._data.dtype)))


# -- watching forward mode ----------------------------------------------------------------


class ForwardStep:
    """What one operation did in forward mode: the record :func:`forward_steps` lists.

    Attributes
    ----------
    index : int
        0 for the first operation run, 1 for the next, …
    node : Node or None
        The ``grad_fn`` the operation recorded (when an input requires grad and grad
        mode is on), else None.
    name : str
        PyTorch's name for the operation's backward node, e.g. ``"MulBackward0"``,
        whether or not a node was recorded (so forward and backward steps of one
        graph can be matched by name).
    inputs : list of Tensor
        The operation's tensor inputs.
    input_tangents : list of (Tensor or None)
        Each input's tangent (None where it had none).
    output : Tensor
        The operation's result (the primal value).
    output_tangent : Tensor or None
        The tangent the operation's ``jvp`` gave the result (None when no input had
        one).
    """

    __slots__ = ("index", "node", "name", "inputs", "input_tangents", "output", "output_tangent")

    def __init__(
        self,
        index: int,
        node: Any,
        name: str,
        inputs: list,
        input_tangents: list,
        output: Tensor,
        output_tangent: Tensor | None,
    ) -> None:
        self.index = index
        self.node = node
        self.name = name
        self.inputs = inputs
        self.input_tangents = input_tangents
        self.output = output
        self.output_tangent = output_tangent

    def __repr__(self) -> str:
        return f"<ForwardStep {self.index}: {self.name}>"


class ForwardTrace(Sequence):
    """What :func:`forward_steps` returns: the steps, in the order the operations
    ran (index it, iterate it, ``len()`` it), with the function's ``outputs`` and
    their tangents (``output_tangents``, one per output, None where it has none)."""

    def __init__(self, steps: list[ForwardStep], outputs: tuple, output_tangents: tuple) -> None:
        self.steps = steps
        self.outputs = outputs
        self.output_tangents = output_tangents

    def __getitem__(self, index):
        return self.steps[index]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[ForwardStep]:
        return iter(self.steps)


def _record_step(args, ctx, name, result, output_tangent) -> None:
    recorder = state.recorder
    assert recorder is not None
    inputs = [arg for arg in args if type(arg) is Tensor]
    input_tangents = [tangent_of(arg) for arg in inputs]
    node = result.grad_fn if result.grad_fn is ctx else None
    recorder.append(
        ForwardStep(len(recorder), node, name, inputs, input_tangents, result, output_tangent)
    )


def forward_steps(fn: Callable, primals, tangents) -> ForwardTrace:
    """Run ``fn(*primals)`` in forward mode, with ``tangents`` as the directions of
    the primals, and return every operation's step in the order they ran.

    ``primals`` and ``tangents`` are a tensor or a tuple of tensors (a tangent may be
    None for a primal that does not move). The function runs inside a dual level of
    its own (or the one already active); its outputs and their tangents are in the
    result's ``outputs`` and ``output_tangents``. The steps hold the tensors
    themselves, so their tangents can be read after the level ended.

    Examples
    --------
    >>> import autogradkit as torch
    >>> from autogradkit.autograd.forward_ad import forward_steps
    >>> x = torch.tensor([1.0, 2.0])
    >>> trace = forward_steps(lambda t: (t * t).sin(), x, torch.tensor([1.0, 0.0]))
    >>> for step in trace:
    ...     print(step.index, step.name, step.input_tangents, step.output_tangent)
    0 MulBackward0 [tensor([1., 0.]), tensor([1., 0.])] tensor([2., 0.])
    1 SinBackward0 [tensor([2., 0.])] tensor([1.0806, -0.0000])
    >>> trace.output_tangents
    (tensor([1.0806, -0.0000]),)
    """
    primals = (primals,) if isinstance(primals, Tensor) else tuple(primals)
    tangents = (tangents,) if tangents is None or isinstance(tangents, Tensor) else tuple(tangents)
    if len(tangents) != len(primals):
        raise ValueError(f"forward_steps got {len(primals)} primals but {len(tangents)} tangents")
    own_level = state.level is None
    if own_level:
        enter_dual_level()
    try:
        duals = tuple(p if t is None else make_dual(p, t) for p, t in zip(primals, tangents))
        steps: list[ForwardStep] = []
        state.recorder = steps
        try:
            out = fn(*duals)
        finally:
            state.recorder = None
        outputs = (out,) if isinstance(out, Tensor) else tuple(out)
        output_tangents = tuple(tangent_of(o) for o in outputs)
    finally:
        if own_level:
            exit_dual_level()
    return ForwardTrace(steps, outputs, output_tangents)
