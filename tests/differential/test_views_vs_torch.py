"""Views against PyTorch: memory, version counters and in-place changes through them.

A view (``x[0]``, ``x[:, 1]``, ``x.t()``, ``x.view(6)``, ``x.unsqueeze(0)``, …)
shares its base's memory and version counter; an in-place change through a view
of a tensor in a graph rewrites the base's history (``CopySlices``) and the
view's (``AsStridedBackward0``). Every program here records values, versions,
graphs and gradients in both libraries; a wrong gradient shows as a difference.
"""

from __future__ import annotations

import zlib
from functools import partial
from typing import Any

import harness as H
import numpy as np
import pytest
from harness import Program, attempt

PROGRAMS: list[Program] = []


H.import_torch_jvp_decompositions()
M = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def register(pid: str, fn, **options) -> None:
    pid = "edge/views/" + pid
    PROGRAMS.append(Program(pid, fn, {}, zlib.crc32(pid.encode()) % 100_000, **options))


# ----------------------------------------------------------------------------- shared memory

VIEWS = {
    "index-int": lambda x: x[0],
    "index-int-int": lambda x: x[1][2],
    "index-two-ints": lambda x: x[1, 2],
    "slice": lambda x: x[:, 1:],
    "slice-step": lambda x: x[:, ::2],
    "column": lambda x: x[:, 1],
    "none": lambda x: x[None],
    "ellipsis": lambda x: x[...],
    "view": lambda x: x.view(6),
    "view-as": lambda x: x.view_as(x),
    "reshape": lambda x: x.reshape(3, 2),
    "flatten": lambda x: x.flatten(),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "expand": lambda x: x[0:1].expand(3, 3),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(1, 2),
    "diagonal": lambda x: x.diagonal(),
    "diagonal-offset": lambda x: x.diagonal(1),
    "view-of-view": lambda x: x.t()[1:].reshape(-1),
    "movedim": lambda x: x.movedim(0, 1),
    "moveaxis-fn": lambda x: torch_like(x).moveaxis(x, -1, 0),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "swapdims": lambda x: x.swapdims(1, 0),
    "ravel": lambda x: x.ravel(),
    "unflatten": lambda x: x.unflatten(1, (3, 1)),
    "narrow-fn": lambda x: torch_like(x).narrow(x, 1, 0, 2),
    "select-fn": lambda x: torch_like(x).select(x, 0, 1),
    "tensor_split-piece": lambda x: x.tensor_split(2, dim=1)[0],
    "hsplit-piece": lambda x: x.hsplit([1])[1],
    "vsplit-piece": lambda x: x.vsplit(2)[1],
    "atleast_3d": lambda x: torch_like(x).atleast_3d(x),
}


def torch_like(x):
    """The library ``x`` comes from (autogradkit or torch), for its functions."""
    import sys

    return sys.modules[type(x).__module__.split(".")[0]]


def _shares_memory(make_view):
    def fn(lib, inp):
        x = lib.tensor(M)
        v = make_view(x)
        before = v.clone()
        x.mul_(2)  # the view sees the change, and its version moves with x's
        version_after_base = v._version
        v.add_(1)  # ... and x sees the view's change
        return {
            "before": before,
            "v": v,
            "x": x,
            "is_base": v._base is x,
            "versions": [version_after_base, v._version, x._version],
        }

    return fn


for _name, _make in VIEWS.items():
    if _name != "expand":
        register(f"shares-memory/{_name}", _shares_memory(_make))


def _expanded_is_read_only(lib, inp):
    x = lib.tensor(M)
    e = x[0:1].expand(3, 3)
    x.add_(1)
    return {"e": e, "write": attempt(lambda: e.add_(1)), "is_base": e._base is x}


register("shares-memory/expand", _expanded_is_read_only)


def _integer_index(lib, inp):
    x = lib.tensor(M)
    x[0].mul_(5)  # changes x
    v = x[1][2]
    x.add_(1)  # updates v
    d = x.detach()
    d[1, 0].sub_(100)  # detach shares memory (and version) but is not a view
    return {"x": x, "v": v, "v_version": v._version, "d_base": d._base is None, "d": d}


register("integer-index-is-a-view", _integer_index)


def _advanced_index_copies(lib, inp):
    x = lib.tensor(M)
    c = x[[0, 1], [1, 2]]
    c.mul_(10)
    return {"x": x, "c": c, "base": c._base is None, "versions": [x._version, c._version]}


register("advanced-index-copies", _advanced_index_copies)


def _saved_view_modified(lib, inp):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[1]
    y = v * v
    v.mul_(2)  # y saved the 0-d view v
    b2 = a * 1
    w = b2[0]
    z = w * w
    b2.add_(1)  # ... or its base changes
    return {"y": attempt(lambda: y.backward()), "z": attempt(lambda: z.backward()), "a": a}


register("saved-view-modified", _saved_view_modified)


# ----------------------------------------------------------------------------- in place through a view


def _through(view_and_op):
    """``c = a * 2`` (a graph tensor), an in-place change through a view of it, then
    backward through ``c`` (a product, so the gradient depends on the values)."""

    def fn(lib, inp):
        a = lib.tensor(M, requires_grad=True)
        o = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        c = a * 2
        v = view_and_op(lib, c, o)
        r = c[1]  # a view made after the change
        (c * c).sum().backward()
        return {"c": c, "v": v, "r": r, "a": a, "o": o, "version": c._version}

    return fn


THROUGH = {
    "select-mul": lambda lib, c, o: c[0].mul_(5),
    "select-mul-tensor": lambda lib, c, o: c[0].mul_(o),
    "column-add": lambda lib, c, o: c[:, 1].add_(o[:2]),
    "slice-sub": lambda lib, c, o: c[:, 1:].sub_(o[1:]),
    "element-div": lambda lib, c, o: c[1, 2].div_(o[2]),
    "element-of-element": lambda lib, c, o: c[0][1].mul_(o[0]),
    "t-row": lambda lib, c, o: c.t()[2].mul_(o[:2]),
    "view-slice": lambda lib, c, o: c.view(6)[1:4].mul_(o),
    "unsqueeze": lambda lib, c, o: c.unsqueeze(0).mul_(o),
    "permute": lambda lib, c, o: c.permute(1, 0).add_(o[:2]),
    "narrow": lambda lib, c, o: c.narrow(1, 0, 2).mul_(o[1:]),
    "select-fn": lambda lib, c, o: c.select(1, 2).add_(o[:2]),
    "diagonal-mul": lambda lib, c, o: c.diagonal().mul_(o[1:]),
    "diagonal-below-add": lambda lib, c, o: lib.diagonal(c, -1).add_(o[0]),
    "diagonal-of-t": lambda lib, c, o: c.t().diagonal(dim1=1, dim2=0).mul_(o[:2]),
    "zero": lambda lib, c, o: c[0].zero_(),
    "fill": lambda lib, c, o: c[:, 0].fill_(3.0),
    "copy": lambda lib, c, o: c[0].copy_(o),
    "whole-view": lambda lib, c, o: c[...].mul_(o),
    "iadd": lambda lib, c, o: c[1].__iadd__(o),
}
for _name, _op in THROUGH.items():
    register(f"inplace-through-view/{_name}", _through(_op), graph_key="c")


def _several_changes(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    c = a * 2
    r = c[:, 0]  # a view made before the changes: its grad_fn is regenerated
    c[0].mul_(5)
    c[:, 1].add_(x[:2])
    c.t()[2].mul_(c[:, 0].detach().clone())
    c.mul_(x)  # the base itself, after its views were changed
    s = (r * lib.tensor([1.0, 3.0])).sum() + (c * c).sum()
    s.backward()
    return {"c": c, "r": r, "a": a, "x": x, "s": s}


register("inplace-through-view/several", _several_changes, graph_key="c")


def _base_changed_view_regenerated(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    c = a * 2
    r = c[0]
    c.mul_(3)  # r's grad_fn becomes AsStridedBackward0 of c's new history
    with lib.no_grad():
        c[1].add_(1)  # no record, but the version moves
    (r * r).sum().backward()
    return {"r": r, "c": c, "a": a}


register("base-changed-view-regenerated", _base_changed_view_regenerated, graph_key="r")


def _view_of_plain_tensor(lib, inp):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = lib.zeros(2, 3)
    c[0].add_(x)  # c did not require grad: it does now, through CopySlices
    v = lib.zeros(2, 3)[1]
    v.mul_(2)
    v.add_(x * x)
    (c * 3).sum().backward()
    (v * v).sum().backward()
    return {"c": c, "v": v, "x": x}


register("inplace-through-view/of-plain-tensor", _view_of_plain_tensor, graph_key="c")


def _retained_and_double_backward(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    c = a * a
    c.retain_grad()
    c[0].mul_(3)
    g = lib.autograd.grad(c.sum(), a, create_graph=True)[0]
    (g * g).sum().backward()
    return {"c": c, "g": g, "a": a}


register("inplace-through-view/retain-grad-and-double-backward", _retained_and_double_backward)


def _setitem(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([7.0, 8.0, 9.0], requires_grad=True)
    c = a * 2
    c[0] = y
    d = a * 2
    d[:, 1] = 5.0
    e = a * 3
    e[0, 1] = y[0]
    f = lib.zeros(3)
    f[1:] = y[:2]
    (c * c).sum().backward()
    (d * d + e * e).sum().backward()
    (f * f).sum().backward()
    return {"c": c, "d": d, "e": e, "f": f, "a": a, "y": y}


register("setitem", _setitem, graph_key="c")


def _copy_fill_zero(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([7.0, 8.0, 9.0], requires_grad=True)
    c = a * 2
    c.copy_(y)
    d = a * 2
    d.fill_(1.0)
    e = a * 2
    e.zero_()
    f = lib.zeros(3)
    f.copy_(y)
    (c * c + d + e).sum().backward()
    (f * f).sum().backward()
    return {"c": c, "d": d, "e": e, "f": f, "a": a, "y": y}


register("copy-fill-zero", _copy_fill_zero, graph_key="c")


def _setitem_as_copy_to(lib, inp):
    """``x[key] = v`` as PyTorch's assignment does it: into x itself for ``...``,
    ``:`` and ``()``; ``fill_`` for a 0-d value, else ``copy_`` of v viewed without
    its leading 1s and expanded (so expand's error comes first)."""
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    cases = {
        "select-0d": lambda c: c.__setitem__(0, y[0]),
        "all-slice": lambda c: c.__setitem__(slice(None), y),
        "ellipsis-0d": lambda c: c.__setitem__(Ellipsis, y[0]),
        "ellipsis-number": lambda c: c.__setitem__(Ellipsis, 2.0),
        "empty-tuple": lambda c: c.__setitem__((), y),
        "leading-one": lambda c: c.__setitem__(0, y.view(1, 3)),
        "column-leading-one": lambda c: c.__setitem__((slice(None), 0), y[:2].view(1, 2)),
        "number": lambda c: c.__setitem__(0, 3.0),
        "none": lambda c: c.__setitem__(None, y),
        "too-long": lambda c: c.__setitem__((0, 0), lib.ones(2)),
        "misfit": lambda c: c.__setitem__(slice(None), lib.ones(4, 3)),
    }
    out = {}
    for name, assign in cases.items():
        c = a * 2
        raised = attempt(lambda assign=assign, c=c: assign(c))
        (c * c).sum().backward()
        out[name] = {"raised": raised, "c": c, "a": a.grad, "y": y.grad}
        a.grad = y.grad = None
    plain = lib.zeros(1)
    plain[0] = lib.tensor([4.0])  # a [1] value fits one element
    out["plain"] = plain
    out["leaf"] = {
        str(k): [
            attempt(lambda k=k: a.__setitem__(k, lib.ones(5))),
            attempt(lambda k=k: a.__setitem__(k, 1.0)),
        ]
        for k in (Ellipsis, None, (), slice(None), 0)
    }
    return out


register("setitem/as-copy-to", _setitem_as_copy_to)


def _indexing_edges(lib, inp):
    """Errors and views found by the state machine."""
    s = lib.tensor(2.0, requires_grad=True)
    a = lib.ones(2, 3, requires_grad=True)
    v = a.view(-1)  # a view of a leaf, made while it required grad ...
    a.requires_grad_(False)  # ... stays one after it stops
    return {
        "index-0d": [attempt(lambda k=k: s[k]) for k in (0, -1, 1, (0,), slice(1, None))],
        "transpose-0d": s.transpose(0, -1),
        "expand-misfit": attempt(lambda: lib.ones(2, 3).expand(3, 2)),
        "bool-empty": attempt(lambda: bool(lib.ones(0))),
        "view-of-former-leaf": attempt(lambda: v.mul_(2)),
    }


register("indexing-edges", _indexing_edges)


def _assign_onto_itself(lib, inp):
    """``x[...] = v`` where ``v`` is the very memory of ``x`` in another shape: the
    assignment expands ``v`` first (a new leading dimension of size 1 strides like
    a view's), so the same elements are written, which PyTorch allows; ``copy_`` and
    the in-place arithmetic compare the shapes as given and refuse (found by the
    state machine)."""
    a = lib.zeros(2, dtype=lib.float64, requires_grad=True)
    d = a.unsqueeze(0).detach()
    out = {
        str(key): attempt(lambda key=key: d.__setitem__(key, a))
        for key in (Ellipsis, slice(None), (slice(None), slice(None)))
    }
    out["copy_"] = attempt(lambda: d.copy_(a))
    x = lib.arange(6.0).reshape(2, 3)
    out["row"] = attempt(lambda: x[0:1].__setitem__(Ellipsis, x[0]))
    out["row-copy_"] = attempt(lambda: x[0:1].copy_(x[0]))
    out["transposed-row"] = attempt(lambda: x.t()[0:1].__setitem__(Ellipsis, x.t()[0]))
    out["flat"] = attempt(lambda: x.view(1, 1, 6).__setitem__(Ellipsis, x.view(6)))
    out["unsqueezed-add_"] = attempt(lambda: x[0].unsqueeze(0).add_(x[0]))
    # Outside the graph too, assignment refuses what copy_ refuses: the same memory
    # in another order (a transpose), or rows shifted onto each other.
    s = lib.arange(9.0).reshape(3, 3)
    out["transposed"] = attempt(lambda: s.__setitem__(Ellipsis, s.t()))
    out["shifted-rows"] = attempt(lambda: s.__setitem__(slice(0, 2), s[1:]))
    out["row-onto-row"] = attempt(lambda: s.__setitem__(0, s[1]))
    out["row-onto-column"] = attempt(lambda: s.__setitem__((slice(None), 0), s[0]))
    out["x"] = x
    out["s"] = s
    out["d"] = d
    return out


register("assign-onto-itself", _assign_onto_itself)


def _no_grad_view_as_operand(lib, inp):
    """A view made under no_grad of a leaf that requires grad requires grad too,
    with no grad_fn and no edge (found by the state machine): an in-place
    operation with it is recorded (with no edge to it), autograd.grad finds it
    unused, and a loss refuses it as a weight."""

    def view_of_leaf():
        a = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            v = a[...]
        return a, v

    out: dict[str, Any] = {}
    for op in ("add_", "sub_", "mul_", "div_", "copy_"):
        a, v = view_of_leaf()
        d = lib.tensor([3.0, 4.0], dtype=lib.float64)
        getattr(d, op)(v)
        (d * d).sum().backward()
        out[op] = {"d": d, "a": a.grad, "v": v.grad}
    a, v = view_of_leaf()
    out["view"] = [v.requires_grad, v.is_leaf, v.grad_fn is None]
    # Products with it are recorded too (vector @ matrix once dropped the history).
    m = lib.tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]], dtype=lib.float64, requires_grad=True)
    for name, product in (("v@m", lambda: v @ m), ("m.t()@v", lambda: m.t() @ v)):
        r = product()
        r.sum().backward()
        out[name] = [r, r.requires_grad, type(r.grad_fn).__name__, m.grad, a.grad, v.grad]
        m.grad = None
    out["grad"] = attempt(lambda: lib.autograd.grad((v * 2).sum(), v))
    out["grad-unused"] = attempt(
        lambda: lib.autograd.grad((v * a).sum(), [a, v], allow_unused=True)
    )
    out["grad-materialized"] = attempt(
        lambda: lib.autograd.grad((v * 2).sum(), [v], materialize_grads=True)
    )
    with lib.no_grad():
        d = lib.zeros(2, dtype=lib.float64)[...]
    out["into-no-grad-view"] = attempt(lambda: d.add_(v))
    out["as-weight"] = attempt(
        lambda: lib.nn.functional.binary_cross_entropy(
            lib.tensor([0.5, 0.25], dtype=lib.float64),
            lib.tensor([1.0, 0.0], dtype=lib.float64),
            weight=v,
        )
    )
    return out


register("no-grad-view-as-operand", _no_grad_view_as_operand)


def _operand_sharing_an_array(lib, inp):
    """Two operands with the same memory, one out of the graph (``y.detach()``,
    ``y.data``, a no-op ``squeeze``, two ``from_numpy`` of one array): each saved
    value is its own operand's. Found by the state machine: ``y * y.detach()``
    under create_graph gave a first gradient that required grad and a second
    derivative of 1 where PyTorch's first gradient is a constant; a version error
    named the wrong tensor."""
    out = {}
    for name in ("detach", "data", "squeeze"):
        for op in ("mul", "dot", "div"):
            x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
            y = x * 3
            other = {"detach": y.detach(), "data": y.data, "squeeze": y.squeeze()}[name]
            if op == "mul":
                r = (y * other).sum()
            elif op == "dot":
                r = y @ other
            else:
                r = (y / other).sum()
            (g,) = lib.autograd.grad(r, x, create_graph=True)
            second = attempt(partial(lib.autograd.grad, g.sum(), x, allow_unused=True))
            out[f"{name}-{op}"] = [g, g.requires_grad, second]
    array = lib.tensor([1.0, 2.0], dtype=lib.float64).numpy()
    a, b = lib.from_numpy(array), lib.from_numpy(array)
    a.requires_grad_()
    (g,) = lib.autograd.grad((a * b).sum(), a, create_graph=True)
    out["from_numpy"] = [g, g.requires_grad]
    leaf = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    view = leaf.t()
    constant = view.detach()
    r = view @ constant
    constant.add_(0.5)
    out["version-error"] = attempt(lambda: r.backward())
    return out


register("operand-sharing-an-array", _operand_sharing_an_array)


def _squeeze_backward_graphs(lib, inp):
    """squeeze's node names (a tuple of dimensions is SqueezeBackward2) and, under
    create_graph, its gradient's history: one UnsqueezeBackward0 per dimension put
    back, none when nothing was squeezed (it was one ViewBackward0)."""
    out = {}
    for shape, dim in (
        ((2, 1), None),
        ((2, 1, 3, 1), None),
        ((2, 3), None),
        ((2, 3), 0),
        ((1, 2, 1), -1),
        ((1, 1, 2), (1, 0)),
        ((1, 1, 2), [2]),
    ):
        x = lib.tensor(np.ones(shape), dtype=lib.float64, requires_grad=True)
        y = (x * 2).squeeze() if dim is None else (x * 2).squeeze(dim)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        out[f"{shape}-{dim}"] = [y, g]
    return out


register("squeeze-backward-graphs", _squeeze_backward_graphs)


def _index_out_of_bounds(lib, inp):
    """Index tensors out of bounds, found by the state machine: PyTorch counts the
    dimension among the index tensors, names no index for a dimension of size 0,
    and refuses an empty tensor written into itself."""
    t = lib.zeros(2, 3, 4)
    mask = lib.tensor([[True, False, True], [False, False, True]])
    keys = {
        "last-dim": (slice(None), slice(None), lib.tensor([9])),
        "second-tensor": (lib.tensor([0]), slice(None), lib.tensor([-9])),
        "after-select": (0, lib.tensor([7])),
        "after-mask": (mask, lib.tensor([4])),
        "after-none": (None, slice(None), lib.tensor([3])),
        "list": (slice(None), [1, 5]),
    }
    out = {}
    for name, key in keys.items():
        out[name] = [
            attempt(lambda key=key: t[key]),
            attempt(lambda key=key: t.__setitem__(key, 1.0)),
        ]
    empty = lib.zeros(2, dtype=lib.float64)[1:][1:]
    index = lib.tensor([0, -1])
    out["empty"] = [
        attempt(lambda: empty[index]),
        attempt(lambda: empty.__setitem__(index, 0.5)),
        attempt(lambda: empty.__setitem__(index, lib.tensor(0.5, dtype=lib.float64))),
        attempt(lambda: empty.__setitem__(index, lib.ones(2, dtype=lib.float64))),
        attempt(lambda: empty.index_put_((index,), lib.tensor(0.5, dtype=lib.float64))),
        attempt(lambda: lib.index_put(empty, (index,), lib.tensor(0.5, dtype=lib.float64))),
        attempt(lambda: empty.__setitem__(index, empty)),
        attempt(lambda: empty.__setitem__(index, empty[...])),
        attempt(lambda: empty.__setitem__(lib.tensor([], dtype=lib.int64), 0.5)),
    ]
    return out


register("index-out-of-bounds", _index_out_of_bounds)


# ----------------------------------------------------------------------------- index_put_


def _index_put_setitem(lib, inp):
    """``x[index tensors] = v`` on graph tensors: IndexPutBackward0 (CopySlices when
    integers or slices make a view first); the gradient for v is G read at the
    index (each repeat of an index gets it), zero for the overwritten x."""
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([7.0, 8.0, 9.0], requires_grad=True)
    rows = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -2.0]])
    mask = lib.tensor([[True, False, True], [False, True, False]])
    out = {}
    cases = {
        "repeated": lambda c: c.__setitem__([1, 1], y),
        "rows-repeated": lambda c: c.__setitem__([0, 0], rows),
        "leading-ones": lambda c: c.__setitem__([1], y.view(1, 1, 3)),
        "pairs": lambda c: c.__setitem__(([0, 1, 1], [2, 0, 2]), y * 2),
        "mask-number": lambda c: c.__setitem__(mask, 5.0),
        "mask-values": lambda c: c.__setitem__(mask, y),
        "column-broadcast": lambda c: c.__setitem__((slice(None), [0, 2]), y[:2].view(2, 1)),
        "select-then-index": lambda c: c.__setitem__((0, [0, 2]), y[1:]),
        "tensor-int": lambda c: c.__setitem__(lib.tensor(1), y),
        "tensor-int-then-index": lambda c: c.__setitem__((lib.tensor(1), [0, 1]), 5.0),
        "empty": lambda c: c.__setitem__([], 1.0),
    }
    for name, assign in cases.items():
        c = a * 2
        assign(c)
        (c * c * w).sum().backward()
        out[name] = {"c": c, "version": c._version, "a": a.grad, "y": y.grad, "rows": rows.grad}
        a.grad = y.grad = rows.grad = None
    plain = lib.zeros(3)
    plain[[0, 2]] = y[:2]
    (plain * plain).sum().backward()
    out["plain"] = {"z": plain, "y": y.grad}
    return out


register("index-put/setitem", _index_put_setitem)


def _index_put_method(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([7.0, 8.0, 9.0], requires_grad=True)
    w = lib.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -2.0]])
    i = lib.tensor([0, 0])
    c = a * 2
    same = c.index_put_((i,), y, accumulate=True)
    d = a * 3
    d.index_put_([lib.tensor([True, False])], y * y)
    e = a * 1
    f = lib.index_put(e, (lib.tensor([1]),), y, accumulate=True)
    g = e.index_put((lib.tensor([1]), lib.tensor([2])), y[0])
    ((c + d + f + g) * w).sum().backward()
    return {
        "same": same is c,
        "c": c,
        "d": d,
        "f": f,
        "g": g,
        "versions": [c._version, d._version, e._version],
        "a": a,
        "y": y,
    }


register("index-put/method", _index_put_method, graph_key="c")


def _index_put_double_backward(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    y = lib.tensor([[0.5, -1.0, 2.0], [1.0, 3.0, -2.0]], requires_grad=True)
    s = lib.tensor([1.5], requires_grad=True)  # one value per place: no broadcast to sum
    c = a * a
    c[[1, 0]] = y * y
    c.index_put_((lib.tensor([0]), lib.tensor([2])), s * 3, accumulate=True)
    ga, gy, gs = lib.autograd.grad((c * c).sum(), [a, y, s], create_graph=True)
    ((ga * ga).sum() + (gy * gy * gy).sum() + (gs * gs).sum()).backward()
    return {"ga": ga, "gy": gy, "gs": gs, "a": a, "y": y, "s": s}


register("index-put/double-backward", _index_put_double_backward, graph_key="ga")


def _index_put_refusals(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    c = a * 2
    z = lib.zeros(3)
    with lib.no_grad():
        zv = z[:2]
        av = a[0]
    y = lib.ones(3, requires_grad=True)
    i = lib.tensor([0])
    out = {
        "leaf": attempt(lambda: a.__setitem__([0], 1.0)),
        "leaf-mask": attempt(lambda: a.__setitem__(lib.tensor([True, False]), 1.0)),
        "leaf-method": attempt(lambda: a.index_put_((i,), lib.tensor(1.0))),
        "view-of-leaf": attempt(lambda: a.__setitem__((0, [0, 1]), 1.0)),
        "no-grad-view": attempt(lambda: zv.__setitem__([0], y[0])),
        "no-grad-view-of-leaf": attempt(lambda: av.__setitem__([0], 1.0)),
        "dtype": attempt(lambda: c.__setitem__([0], lib.tensor([1, 2, 3]))),
        "dtype-double": attempt(lambda: c.__setitem__([0], y.double())),
        "shape": attempt(lambda: c.__setitem__([0], lib.ones(2))),
        "shape-method": attempt(lambda: c.index_put_((i,), lib.ones(1, 1, 3))),
        "out-of-bounds": attempt(lambda: c.__setitem__([5], 1.0)),
        "too-many": attempt(lambda: c.index_put_((i, i, i), lib.tensor(0.0))),
        "mask-shape": attempt(lambda: c.index_put_((lib.tensor([True, False, True]),), y)),
        "indices-tensor": attempt(lambda: c.index_put_(i, y)),
        "indices-int": attempt(lambda: c.index_put_([0], y)),
        "values-number": attempt(lambda: c.index_put_((i,), 1.0)),
        "float-index": attempt(lambda: c.index_put_((lib.tensor([0.0]),), y)),
    }
    with lib.no_grad():
        zv[[1]] = 4.0  # all inside no_grad: allowed
    out["after"] = {"c": c, "version": c._version, "z": z, "a": a}
    return out


register("index-put/refusals", _index_put_refusals)


def _index_put_forward_ad(lib, inp):
    """The written places take the values' tangent (zero for a number)."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        y = fwAD.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, -1.0, 2.0]))
        x = fwAD.make_dual(lib.tensor(M), lib.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]))
        c = x * 2
        c[[1, 1]] = y * y
        d = x * 1
        d[lib.tensor([[False, True, True], [True, False, False]])] = 0.0
        e = lib.zeros(2, 3)
        e.index_put_((lib.tensor([0, 0]),), y, accumulate=True)
        f = x.index_put((lib.tensor([1]), lib.tensor([0])), y[2])
        return {
            name: [fwAD.unpack_dual(t).primal, fwAD.unpack_dual(t).tangent]
            for name, t in {"c": c, "d": d, "e": e, "f": f}.items()
        }


register("index-put/forward-ad", _index_put_forward_ad)


# ----------------------------------------------------------------------------- forward mode


def _tangents(lib, named: dict) -> dict:
    unpack = lib.autograd.forward_ad.unpack_dual
    return {name: [unpack(t).primal, unpack(t).tangent] for name, t in named.items()}


def _forward_through_dual_views(lib, inp):
    """A dual made by make_dual and its views share one tangent: an in-place change
    through any of them changes it for all (and the tangent given to make_dual)."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        t = lib.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
        y = fwAD.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, -1.0, 2.0]))
        x = fwAD.make_dual(lib.tensor(M), t)
        v, w, tr = x[0], x[:, 1], x.t()
        v.mul_(2)
        w.add_(y[:2])
        tr[2].mul_(y[1:])
        x[1, [0, 2]] = y[:2] * 3
        x.unsqueeze(0)[0, 0].zero_()
        return {"t": t, **_tangents(lib, {"x": x, "v": v, "w": w, "tr": tr})}


register("forward-ad/dual-views", _forward_through_dual_views)


def _forward_through_pieces(lib, inp):
    """The pieces of split, chunk and unbind of a dual that an operation made (its
    tangent is its own, not make_dual's) are views of it: each piece's tangent is
    the same piece of the tangent, and so are its views' (also after the base is
    changed in place)."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor(M), lib.tensor([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])) * 2
        first, last = x.split(1, 0)[0], x.chunk(2, 1)[-1]
        row, col = x.unbind(0)[1], x.unbind(1)[2]
        tail = row[1:]
        pieces = {"first": first, "last": last, "row": row, "col": col, "tail": tail}
        # Copies: PyTorch's tangents are views of x's, which mul_ changes in place.
        before = {name: fwAD.unpack_dual(t).tangent.clone() for name, t in pieces.items()}
        x.mul_(fwAD.make_dual(lib.tensor(3.0), lib.tensor(1.0)))
        return {"before": before, "after": _tangents(lib, pieces)}


register("forward-ad/split-pieces", _forward_through_pieces)


def _held_tangents(lib, inp):
    """A tangent unpacked before an in-place change of its (non-leaf) dual shows the
    change: PyTorch changes the tangent in place, keeping its dtype; a copy of a dual
    (clone, x + 0) has a tangent of its own."""
    fwAD = lib.autograd.forward_ad
    held = {}
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor(M), lib.tensor([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]]))
        d64 = fwAD.make_dual(lib.ones(3, dtype=lib.float64), lib.tensor([1.0, 2.0, 3.0]).double())
        changes = {
            "mul_": lambda y: y.mul_(3),
            "add_dual": lambda y: y.add_(x.exp()),
            "add_float64_dual": lambda y: y.add_(d64),
            "sin_": lambda y: y.sin_(),
            "zero_": lambda y: y.zero_(),
            "copy_": lambda y: y.copy_(x * 5),
            "setitem": lambda y: y.__setitem__(0, x[1] * 4),
            "view_mul_": lambda y: y[1].mul_(-2),
            "base_mul_": lambda y: y.mul_(x[0]),
        }
        for name, change in changes.items():
            y = x * 2
            view = y[1]
            before = {"y": fwAD.unpack_dual(y).tangent, "view": fwAD.unpack_dual(view).tangent}
            change(y)
            held[name] = [before, _tangents(lib, {"y": y, "view": view})]
        for name, copy in {"clone": x.clone(), "plus_zero": x + 0}.items():
            held_copy = fwAD.unpack_dual(copy).tangent
            copy.mul_(10)
            held[name] = [held_copy, fwAD.unpack_dual(x).tangent]
    return held


register("forward-ad/held-tangents", _held_tangents)


INDEXINGS = {
    "select": lambda x: x[0],
    "slice": lambda x: x[1:],
    "slice-inner": lambda x: x[:, 1:],
    "select-and-slice": lambda x: x[0, 1:],
    "step": lambda x: x[:, ::2],
    "advanced": lambda x: x[[0, 1, 0]],
    "mask": lambda x: x[x > 2],
    "alias": lambda x: x[...],
    "narrow": lambda x: x.narrow(1, 0, 2),
    "select-method": lambda x: x.select(1, 2),
    "diagonal": lambda x: x.diagonal(1),
}


def _indexing_twice(lib, inp):
    """The backward of indexing, recorded under create_graph: PyTorch's
    SelectBackwardBackward0, SliceBackwardBackward0, IndexPutImplBackward0 (and
    nothing for x[...]), and the second derivatives through them."""
    out = {}
    for name, index in INDEXINGS.items():
        x = lib.tensor(M, requires_grad=True)
        y = index(x)
        (g,) = lib.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (g * g).sum().backward()
        out[name] = {"y": g, "x": x}
    return out


register("indexing-differentiated-twice", _indexing_twice)


# Within an index tuple (and in every assignment) PyTorch skips a slice that takes
# a whole dimension, as written: from 0, step 1, to the size or beyond; x[:, 0:3]
# of 3 columns is then an alias, y[0:2] = 5 of 2 rows a fill_ of y itself. A lone
# slice read (x[0:2]) is still a SliceBackward0.
WHOLE_SLICES = [
    "[:, 0:5]",
    "[:, -3:]",
    "[:, 0:3]",
    "[0:2, 1:]",
    "[0:2, 0:3]",
    "[0:2]",
    "[0:2, ...]",
]
WHOLE_SLICES += ["[None, :, 0:3]", "[0, 0:3]", "[..., 0:3, None]", "[:, :3:1]", "[:, 0:3:2]"]
WHOLE_SLICES += ["[0:2, [0, 1]]", "[[0, 1], 0:3]", "[0:1, [0, 1]]", "[:, :10000000000]"]
WHOLE_ASSIGNED = ["[:]", "[0:2]", "[0:5]", "[:, 0:3]", "[..., 0:3]", "[0:2, [0, 1]]", "[0:1]"]


def _whole_slices(lib, inp):
    x = lib.tensor(M, requires_grad=True)
    read = {key: eval("x" + key, {"x": x}) for key in WHOLE_SLICES}
    total = sum(((i + 1) * r).sum() for i, r in enumerate(read.values()))
    total.backward()
    assigned = {}
    for key in WHOLE_ASSIGNED:
        y = x * 1
        exec("y" + key + " = lib.tensor(5.0)", {"y": y, "lib": lib})
        assigned[key] = y
    return {"read": read, "assigned": assigned, "x": x}


register("whole-dimension-slices", _whole_slices)


def _forward_into_plain_base(lib, inp):
    """A view of a tensor without tangent changed in place with a dual: the base
    gets a tangent (zeros outside the view), and every view of it shows it."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        y = fwAD.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, -1.0, 2.0]))
        q = lib.zeros(2, 3)
        row, col = q[1], q[:, 0]
        row.add_(y)
        col.mul_(y[:2])  # row and col overlap at q[1, 0]
        late = q[:, 2]  # made after the base has a tangent
        q.mul_(y)  # the base itself: the views follow
        s = lib.zeros(3)
        s[1:].copy_(y[1:])
        s[:1].fill_(y[0])
        e = lib.zeros(2, 3)
        e.t()[1:].add_(y[:2].view(2, 1))
        e[0][[2, 0]] = y[:2]
        named = {"q": q, "row": row, "col": col, "late": late, "s": s, "e": e}
        return _tangents(lib, named)


register("forward-ad/plain-base", _forward_into_plain_base)


def _forward_and_backward_through_views(lib, inp):
    """Tangents and gradients of one program: a dual that requires grad, changed
    in place through views of a graph tensor (CopySlices)."""
    fwAD = lib.autograd.forward_ad
    a = lib.tensor(M, requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(a * 1, lib.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, 1.0]]))
        c = x * x
        c[0].mul_(x[1])
        c[:, 2].add_(c[:, 0].clone())
        out = (c * c).sum()
        # Tangents compared by value: PyTorch records how they are computed (a
        # tangent has a grad_fn there), autogradkit does not (see forward_ad.py).
        named = {k: [p, t.detach()] for k, (p, t) in _tangents(lib, {"c": c, "out": out}).items()}
    out.backward()
    return {**named, "a": a.grad, "grad_fn": c.grad_fn.name().split("::")[-1]}


register("forward-ad/with-backward", _forward_and_backward_through_views)


# ----------------------------------------------------------------------------- refusals


def _refusals(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    c = a * 2
    with lib.no_grad():
        nv = c[0]
        nl = a[1]
    direct = attempt(lambda: nv.mul_(2))
    leaf_no_grad = attempt(lambda: nl.mul_(2))
    c2 = a * 2
    with lib.no_grad():
        w = c2[0]
        w.mul_(5)  # allowed: all inside no_grad ...
    indirect = attempt(lambda: w.grad_fn)  # ... but w's history cannot be regenerated
    z = lib.zeros(3)
    with lib.no_grad():
        zv = z[1:]
    x = lib.ones(2, requires_grad=True)
    return {
        "view_of_leaf": attempt(lambda: a[0].mul_(2)),
        "view_of_leaf_setitem": attempt(lambda: a.__setitem__(0, 1.0)),
        "leaf_view_t": attempt(lambda: a.t().add_(1)),
        "no_grad_view": direct,
        "no_grad_view_of_leaf": leaf_no_grad,
        "no_grad_view_regenerated": indirect,
        "no_grad_view_plain": attempt(lambda: zv.add_(x)),
        "no_grad_view_plain_no_record": attempt(lambda: zv.add_(1.0)),
        "expanded": attempt(lambda: (a * 1)[0:1].expand(2, 3).mul_(2)),
        "multi_output_split": attempt(lambda: (a * 1).split(1)[0].mul_(2)),
        "multi_output_unbind": attempt(lambda: (a * 1).unbind(0)[1].add_(1)),
    }


register("refusals", _refusals)


def _detach_in_place(lib, inp):
    a = lib.tensor(M, requires_grad=True)
    b = a * 2
    v = b[0]
    plain = lib.zeros(3)
    with lib.no_grad():
        nv = a[1]
    refused = {
        "graph_view": attempt(lambda: v.detach_()),
        "plain_view": attempt(lambda: plain[1:].detach_()),
        "no_grad_view_of_leaf": attempt(lambda: nv.detach_()),
        "view_of_detached": attempt(lambda: a.detach()[0].detach_()),
        "multi_output": attempt(lambda: (a * 1).split(1)[0].detach_()),
    }
    b.detach_()  # not a view: cut out of the graph; its view keeps its history
    leaf = lib.ones(2, requires_grad=True)
    leaf.detach_()
    d = (a * 3).detach()
    d.detach_()  # detach() is not a view
    (v * v).sum().backward()
    return {
        "refused": refused,
        "b": [b.requires_grad, b.is_leaf, b.grad_fn is None, b._version],
        "v": [v.requires_grad, v.is_leaf],
        "leaf": [leaf.requires_grad, leaf.is_leaf],
        "d": [d.requires_grad, d._base is None],
        "a": a,
    }


register("detach-in-place", _detach_in_place)


def _op_on_a_no_grad_view(lib, inp):
    """A view made under no_grad of a tensor that requires grad requires grad
    through its base: an operation on it is recorded, with no edge into the view,
    and a backward through it reaches nothing."""
    a = lib.tensor(M, requires_grad=True)
    b = a * 2
    with lib.no_grad():
        of_graph = b[1:]
        of_leaf = a[0]
    s = of_graph.sigmoid()
    t = of_leaf * of_leaf
    (s.sum() + t.sum()).backward()
    return {
        "views": [of_graph.requires_grad, of_graph.is_leaf, of_leaf.requires_grad],
        "s": s,
        "t": t,
        "grads": [a.grad is None, of_graph.grad is None, of_leaf.grad is None],
    }


register("op-on-a-no-grad-view", _op_on_a_no_grad_view, graph_key="s")


def _view_of_a_no_grad_view_changed(lib, inp):
    """A view made in grad mode from a view made under no_grad cannot follow an
    in-place change of their base: PyTorch's error names the view's own operation
    ("Output 0 of Squeeze1 is a view of a view which ..."), and retain_grad() asked
    twice returns before it looks at the stale history."""
    a = lib.tensor(M, requires_grad=True)
    leaf0 = lib.tensor(0.0, requires_grad=True)
    b = a * 2
    with lib.no_grad():
        plain = b[...]
        of_leaf = leaf0[...]
    views = {
        "alias": plain[...],
        "slice": plain[1:],
        "squeeze-1": plain.unsqueeze(0).squeeze(0),
        "squeeze-0": plain.unsqueeze(0).squeeze(),
        "t": plain.t(),
        "select": plain[0],
    }
    retained = of_leaf[...]
    retained.retain_grad()
    with lib.no_grad():
        leaf0.add_(0.5)
        retained_again = attempt(retained.retain_grad)
    b.mul_(3)
    out = {name: attempt(lambda v=v: v.grad_fn) for name, v in views.items()}
    out["in-place"] = attempt(lambda: views["slice"].add_(1))
    out["no-grad-view-itself"] = attempt(lambda: plain.grad_fn)
    out["retained-again"] = retained_again
    out["retained-grad_fn"] = attempt(lambda: retained.grad_fn)
    return out


register("view-of-a-no-grad-view-changed", _view_of_a_no_grad_view_changed)


def _stale_no_grad_view_as_operand(lib, inp):
    """An in-place operation whose operand is a view made under no_grad, after its
    base changed through a detached alias: PyTorch refuses the view's stale
    history before it looks at memory (the operand overlaps what is written)."""
    leaf = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
    with lib.no_grad():
        alias = leaf.detach()
        view = leaf.unsqueeze(0)
    alias.zero_()
    return {
        "add_": attempt(lambda: alias.add_(view)),
        "mul_": attempt(lambda: alias.mul_(view)),
        "of-a-copy": attempt(lambda: alias.clone().add_(view)),
        "alias": alias,
    }


register("stale-no-grad-view-as-operand", _stale_no_grad_view_as_operand)


def _expanded_leaf_written(lib, inp):
    """Writing into an expanded view of a leaf: PyTorch's autograd refusal (a view
    of a leaf) comes before the refusal to write one element twice."""
    w = lib.ones(1, requires_grad=True)
    writes = {
        "add_": lambda e: e.add_(1),
        "mul_": lambda e: e.mul_(2),
        "zero_": lambda e: e.zero_(),
        "fill_": lambda e: e.fill_(2.0),
        "copy_": lambda e: e.copy_(lib.zeros(3)),
        "setitem": lambda e: e.__setitem__(0, 1.0),
        "clamp_": lambda e: e.clamp_(0, 1),
    }
    out = {name: attempt(lambda f=f: f(w.expand(3))) for name, f in writes.items()}
    out["not-a-leaf"] = attempt(lambda: (w * 1).expand(3).add_(1))
    out["no-grad"] = attempt(lambda: lib.ones(1).expand(3).add_(1))
    return out


register("expanded-leaf-written", _expanded_leaf_written)


def _copy_slices_twice(lib, inp):
    """CopySlices after copy_/fill_ of a view saves nothing, yet a second backward
    without retain_graph is refused, as PyTorch's (its fn is released)."""
    a = lib.tensor(0.5, requires_grad=True)
    d = lib.ones(3).detach()
    d[-1].copy_(a)
    e = lib.ones(3)
    e[0].fill_(2.0)
    e.requires_grad_(True)
    f = e * 1
    f[1:].fill_(a)
    first = attempt(lambda: (d.sum() + f.sum()).backward())
    return {
        "first": first,
        "second": attempt(lambda: d.sum().backward()),
        "third": attempt(lambda: f.sum().backward()),
        "a": a,
        "e": e,
    }


register("copy-slices-backward-twice", _copy_slices_twice)


def _modified_output_names(lib, inp):
    """The modified-in-place error names the operation as PyTorch does: an overload's
    number stays (FillBackward2 -> Fill2, ClampBackward1 -> Clamp1)."""
    changes = {
        "fill": lambda y: y.fill_(2.0),
        "fill-tensor": lambda y: y.fill_(lib.tensor(2.0)),
        "fill-all": lambda y: y.__setitem__(Ellipsis, 5.0),
        "clamp": lambda y: y.clamp_(min=0),
        "mul": lambda y: y.mul_(2),
    }
    raised = {}
    for name, change in changes.items():
        x = lib.tensor(M, requires_grad=True)
        y = x * 1
        z = y * y
        change(y)
        raised[name] = attempt(lambda z=z: z.sum().backward())
    return raised


register("modified-output-names", _modified_output_names)


def _overlap_as_pytorch_sees_it(lib, inp):
    """In-place reads from memory it writes: refused only where PyTorch sees a
    partial overlap of dense tensors (x[0, 1:] with x[0, :2], x with x.t()); a
    strided column is "too hard" for PyTorch's check, so it runs, and a shape
    mismatch is then the error."""
    cases = {
        "row-slices": lambda x: x[0, 1:].mul_(x[0, :2]),
        "transpose": lambda x: x.add_(x.t()),
        "row-and-whole": lambda x: x[0].mul_(x),
        "column-from-column": lambda x: x[:, 0].copy_(x[:, 1]),
        "column-from-row": lambda x: x[:, 0].copy_(x[0]),
        "column-of-t-from-whole": lambda x: x.t()[-1].copy_(x),
        "column-of-t-add-whole": lambda x: x.t()[-1].add_(x),
        "index-put-of-t": lambda x: x.t().index_put_((lib.tensor([0, 1]),), x[:2]),
        "index-put-of-itself": lambda x: x.index_put_((lib.tensor([0, 1, 2]),), x),
        "empty": lambda x: x[:0].mul_(x[:0]),
    }
    out = {}
    for name, change in cases.items():
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
        out[name] = [attempt(lambda change=change, x=x: change(x) and None), x]
    return out


register("overlap-as-pytorch-sees-it", _overlap_as_pytorch_sees_it)


def _zero_grad_of_a_view_grad(lib, inp):
    w = lib.ones(3, requires_grad=True)
    store = lib.ones(2, 3)
    w.grad = store[0]  # a gradient that is a view: zero_grad must not detach_() it
    opt = lib.optim.SGD([w], lr=0.1)
    opt.zero_grad(set_to_none=False)
    return {"grad": w.grad, "store": store}


register("zero-grad-of-a-view-grad", _zero_grad_of_a_view_grad)


def _requires_grad_follows_base(lib, inp):
    x = lib.zeros(3)
    v = x[1:]
    x.requires_grad_(True)
    y = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        w = y[1:]
    p = lib.zeros(3)
    pv = p[1:]
    pv.requires_grad_(True)  # a view of a tensor that needs no grad may become a leaf
    return {
        "v": [v.requires_grad, v.is_leaf, v.grad_fn is None],
        "w": [w.requires_grad, w.is_leaf, w.grad_fn is None],
        "pv": [pv.requires_grad, pv.is_leaf, p.requires_grad],
        "w_flag_off": attempt(lambda: w.requires_grad_(False) and None),
        "v_flag_off": attempt(lambda: y[1:].requires_grad_(False)),
    }


register("requires-grad-follows-base", _requires_grad_follows_base)


# ----------------------------------------------------------------------------- reshape


def _reshape(lib, inp):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.5, 2.5, 3.5]])
    x.requires_grad_(True)
    v = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    rows = x[::2].reshape(-1)  # CloneBackward0 then UnsafeViewBackward0: a copy
    flat = v[::2].reshape(-1)  # ReshapeAliasBackward0: a view
    tr = x.t().reshape(-1)
    con = x.t().contiguous()
    same = x.contiguous() is x
    view_error = attempt(lambda: x.t().view(-1))
    ok_view = x.t().view(3, 4)  # dimension by dimension: no copy needed
    weights = lib.arange(12.0)
    (rows * weights[:6]).sum().backward()
    (flat * lib.tensor([1.0, 2.0])).sum().backward()
    (tr * weights).sum().backward()
    (con * con).sum().backward()
    (ok_view * ok_view).sum().backward()
    return {
        "rows": rows,
        "flat": flat,
        "tr": tr,
        "con": con,
        "ok_view": ok_view,
        "same": same,
        "view_error": view_error,
        "x": x,
        "v": v,
        "bases": [rows._base is None, flat._base is v, tr._base is None, ok_view._base is x],
        "contiguous": [x.t().is_contiguous(), con.is_contiguous(), x[::2].is_contiguous()],
    }


register("reshape", _reshape, graph_key="rows")


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_views_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_views_live(prog):
    H.check_against_live_torch(prog)
