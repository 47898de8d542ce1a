"""Edge values against PyTorch: where a careful learner finds a wrong gradient.

Each class of issue 12's "wrong answers" is a family of programs here, run on
autogradkit and compared with PyTorch's record (``tests/golden/differential.json``,
or PyTorch itself when installed), values, ``.grad``, graphs and errors alike:

* an infinite gradient meeting a mask (``clamp``/``relu``/``maximum``/``max``
  followed by ``sqrt``/``log``/``x ** -0.5``): PyTorch *selects*, giving 0, not
  ``inf · 0 = nan``;
* derivatives at ``nan``/``±inf``/0 (``relu``, ``abs``, ``clamp``, ``maximum``,
  ``minimum``, ``x ** y``, ``c ** x``);
* ``max``/``min``, differentiated, with ``dim`` returning ``(values, indices)``;
* reductions over ``dim=[]``, boolean and empty indices, tensors inside lists,
  dtype promotion of ``cat``/``stack``/``clamp``/``where``, ``jacobian`` of an
  integer input, binary cross-entropy with confident logits.
"""

from __future__ import annotations

import zlib
from typing import Any

import harness as H
import pytest
from harness import Program, attempt

PROGRAMS: list[Program] = []
# Forward-mode programs below: PyTorch's first make_dual warns unless this ran first.
H.import_torch_jvp_decompositions()
F32, F64 = "float32", "float64"
NAN, INF = float("nan"), float("inf")
# Values where derivatives have kinks, poles or no value at all.
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.0, -2.5, 0.5]


def register(pid: str, fn, inputs=None, **options) -> None:
    pid = "edge/" + pid
    PROGRAMS.append(
        Program(pid, fn, dict(inputs or {}), zlib.crc32(pid.encode()) % 100_000, **options)
    )


def grads_of(f, values, dtype: str = F32):
    """A program: ``x = tensor(values)``, ``f(lib, x).sum().backward()``; records
    ``y`` and ``x`` (with its ``.grad``)."""

    def fn(lib, inp):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = f(lib, x)
        y.sum().backward()
        return {"y": y, "x": x}

    return fn


# ----------------------------------------------------------------------------- masks meet inf

STEPS = {
    "clamp_min": lambda lib, x: x.clamp(min=0),
    "clamp_min_tensor": lambda lib, x: x.clamp(min=lib.zeros(())),
    "clamp_min_max": lambda lib, x: x.clamp(0, 4),
    "clamp_max_neg": lambda lib, x: -x.clamp(max=0),
    "clamp_both_tensors": lambda lib, x: x.clamp(lib.zeros(()), lib.full((), 4.0)),
    "relu": lambda lib, x: x.relu(),
    "relu_F": lambda lib, x: lib.nn.functional.relu(x),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros(())),
    "minimum_neg": lambda lib, x: -lib.minimum(x, lib.zeros(())),
    "max_with_tensor": lambda lib, x: lib.max(x, lib.zeros_like(x)),
    "where": lambda lib, x: lib.where(x > 0, x, 0.0),
}
SINGULAR_AT_ZERO = {
    "sqrt": lambda lib, y: y.sqrt(),
    "log": lambda lib, y: y.log(),
    "pow_neg_half": lambda lib, y: y**-0.5,
    "reciprocal": lambda lib, y: 1 / y,
}
for step_name, step in STEPS.items():
    for sing_name, sing in SINGULAR_AT_ZERO.items():
        for dt in (F32, F64):
            register(
                f"mask-meets-inf/{step_name}-{sing_name}-{dt}",
                grads_of(
                    lambda lib, x, step=step, sing=sing: sing(lib, step(lib, x)),
                    [-1.0, 4.0, 0.0, -3.0, 0.25, 9.0],
                    dt,
                ),
            )

# ----------------------------------------------------------------------------- nan, inf and 0

POINTWISE_AT_SPECIAL = {
    "relu": lambda lib, x: x.relu(),
    "abs": lambda lib, x: x.abs(),
    "clamp_min": lambda lib, x: x.clamp(min=0.0),
    "clamp_max": lambda lib, x: x.clamp(max=1.0),
    "clamp_both": lambda lib, x: x.clamp(-1.0, 1.0),
    "clamp_tensor": lambda lib, x: x.clamp(min=lib.full((), -1.0), max=lib.ones(())),
    "maximum_1": lambda lib, x: lib.maximum(x, lib.ones(())),
    "minimum_1": lambda lib, x: lib.minimum(x, lib.ones(())),
    "maximum_tie": lambda lib, x: lib.maximum(x, x * 1),
    "sqrt": lambda lib, x: x.sqrt(),
    "log": lambda lib, x: x.log(),
    "exp": lambda lib, x: x.exp(),
    "tanh": lambda lib, x: x.tanh(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "pow_2": lambda lib, x: x**2,
    "pow_0": lambda lib, x: x**0,
    "pow_neg1": lambda lib, x: x**-1,
    "pow_half": lambda lib, x: x**0.5,
    "rpow_0": lambda lib, x: 0**x,
    "rpow_0_float": lambda lib, x: 0.0**x,
    "rpow_2": lambda lib, x: 2**x,
    "rpow_neg2": lambda lib, x: (-2.0) ** x,
}
for name, f in POINTWISE_AT_SPECIAL.items():
    for dt in (F32, F64):
        register(f"special/{name}-{dt}", grads_of(f, SPECIAL, dt))


def _pow_grid(lib, inp):
    bases = [0.0, -0.0, -1.0, 2.0, -2.0, NAN, INF, 0.5]
    exponents = [-1.0, 0.0, 0.5, 2.0, NAN, -INF, 3.0]
    x = lib.tensor([[b] * len(exponents) for b in bases], requires_grad=True)
    y = lib.tensor([exponents] * len(bases), requires_grad=True)
    z = x**y
    z.sum().backward()
    return {"z": z, "x": x, "y": y}


register("special/pow-tensor-grid", _pow_grid)


def _pow_inf_grad(lib, inp):
    # An infinite incoming gradient at an exponent of 0 (the branch PyTorch zeroes).
    x = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = lib.tensor([0.0, 0.0, 1.0], requires_grad=True)
    (x**y).sqrt().sum().backward()
    a = lib.tensor([0.0, 3.0], requires_grad=True)
    (a**0).mul(lib.tensor([INF, 1.0])).sum().backward()
    return {"x": x, "y": y, "a": a}


register("special/pow-inf-incoming", _pow_inf_grad)

# ----------------------------------------------------------------------------- max / min


def _max_program(reduce, values):
    def fn(lib, inp):
        x = lib.tensor(values, requires_grad=True)
        out: Any = reduce(lib, x)
        record = {"x": x}
        if type(out).__name__ in ("max", "min"):  # the (values, indices) pair
            record.update(
                kind=type(out).__name__,
                is_tuple=isinstance(out, tuple),
                values=out.values,
                indices=out.indices,
                unpacked=list(out),
                repr=repr(out),
            )
            (
                out.values * lib.arange(1, out.values.numel() + 1).reshape(out.values.shape)
            ).sum().backward()
        else:
            record["y"] = out
            (out * 3).sum().backward()
        return record

    return fn


MATRIX = [[1.0, 5.0, 2.0, 5.0], [7.0, 0.0, 7.0, -1.0], [NAN, 1.0, 2.0, 3.0]]
MAX_FORMS = {
    "max-all": (lambda lib, x: x.max(), [[1.0, 3.0, 2.0], [3.0, 0.0, -1.0]]),
    "min-all": (lambda lib, x: x.min(), [[1.0, 3.0, 1.0], [3.0, 0.0, 0.0]]),
    "max-all-nan": (lambda lib, x: lib.max(x), [1.0, NAN, 2.0, NAN]),
    "max-all-inf": (lambda lib, x: x.max(), [1.0, INF, INF]),
    "max-dim1": (lambda lib, x: x.max(dim=1), MATRIX),
    "max-dim0": (lambda lib, x: lib.max(x, 0), MATRIX),
    "max-dim-neg-keepdim": (lambda lib, x: x.max(-1, keepdim=True), MATRIX),
    "min-dim1": (lambda lib, x: x.min(1), MATRIX),
    "min-dim0-keepdim": (lambda lib, x: lib.min(x, dim=0, keepdim=True), MATRIX),
    "max-0d-dim": (lambda lib, x: x.max(0), 3.0),
    "max-0d-all": (lambda lib, x: x.max(), 3.0),
    "max-3d": (lambda lib, x: x.max(1), [[[1.0, 2.0], [3.0, 0.0]], [[2.0, 2.0], [2.0, 5.0]]]),
}
for name, (reduce, values) in MAX_FORMS.items():
    register(f"max/{name}", _max_program(reduce, values))


def _max_times_x(lib, inp):
    x = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
    (x.max() * x).sum().backward()
    w = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
    w.max().backward()
    return {"x": x, "w": w}


register("max/max-times-x", _max_times_x)


def _max_int(lib, inp):
    t = lib.tensor([[1, 5, 5], [-2, 0, 9]])
    b = lib.tensor([True, False])
    return {
        "max": t.max(),
        "min_dim": tuple(t.min(1)),
        "bool_max": b.max(),
        "argmax": t.argmax(1),
    }


register("max/integers", _max_int)


def _max_errors(lib, inp):
    return {
        "empty_all": attempt(lambda: lib.ones(0).max()),
        "empty_all_min": attempt(lambda: lib.ones(0).min()),
        "empty_dim": attempt(lambda: lib.ones(0, 2).max(0)),
        "empty_other_dim": attempt(lambda: tuple(lib.ones(0, 2).max(1))),
        "dim_out_of_range": attempt(lambda: lib.ones(2).max(5)),
    }


register("max/errors", _max_errors)

# ----------------------------------------------------------------------------- reductions, indexing, creation, promotion


def _empty_dims(lib, inp):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    s = x.sum(dim=[])
    m = x.mean(dim=[])
    s2 = lib.sum(x, dim=())
    k = x.sum(dim=[], keepdim=True)
    (s + m + s2 + k.sum()).backward()
    return {"s": s, "m": m, "s2": s2, "k": k, "x": x}


register("reduce/empty-dim-list", _empty_dims)


def _indexing(lib, inp):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    outs = {
        "true": x[True],
        "false": x[False],
        "int_then_true": x[0, True],
        "true_then_int": x[True, 0],
        "tensor_true": x[lib.tensor(True)],
        "empty_list": x[[]],
        "int_empty_list": x[0, []],
        "ellipsis_none": x[..., None],
        "none_ellipsis": x[None, ...],
        "ellipsis_int": x[..., 1],
    }
    total = None
    for i, y in enumerate(outs.values()):
        term = (y * (i + 1)).sum()
        total = term if total is None else total + term
    total.backward()
    return {**outs, "x": x}


register("index/bool-empty-ellipsis", _indexing)


def _creation(lib, inp):
    return {
        "one_element_tensors": lib.tensor([lib.ones(1), lib.ones(1)]),
        "zero_d_tensors": lib.tensor([lib.tensor(1), lib.tensor(2)]),
        "float64_tensor_inside": lib.tensor([lib.tensor(1.0, dtype=lib.float64), 2.0]),
        "bool_tensor_inside": lib.tensor([lib.tensor(True), 1]),
        "range": lib.tensor(range(3)),
        "nested_ranges": lib.tensor([range(2), range(2)]),
        "empty_range": lib.tensor(range(0)),
        "two_element_tensors": attempt(lambda: lib.tensor([lib.ones(2), lib.ones(2)])),
    }


register("create/tensors-inside-lists", _creation)


def _promotion(lib, inp):
    i = lib.tensor([1, -2, 3])
    f = lib.tensor([0.5, 1.5, 2.5])
    d = lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64)
    c = lib.tensor([True, False, True])
    return {
        "cat_int_float": lib.cat([i, f]),
        "cat_float_double": lib.cat([f, d]),
        "cat_bool_int": lib.cat([c, i]),
        "stack_int_float": lib.stack([i, f]),
        "stack_bool_float": lib.stack([c, f]),
        "clamp_int_float_bound": lib.clamp(i, min=0.5),
        "clamp_int_int_bound": lib.clamp(i, min=0),
        "clamp_int_max_float": i.clamp(max=2.5),
        "where_int_float": lib.where(c, i, 0.5),
        "where_float_double": lib.where(c, f, d),
        "where_indices": lib.where(c),
    }


register("promote/cat-stack-clamp-where", _promotion)


def _cat_grads(lib, inp):
    i = lib.tensor([1, 2])
    f = lib.tensor([0.5, 1.5], requires_grad=True)
    d = lib.tensor([2.0], dtype=lib.float64, requires_grad=True)
    y = lib.cat([i, f, d])
    (y * lib.arange(1, 6)).sum().backward()
    return {"y": y, "f": f, "d": d}


register("promote/cat-mixed-grads", _cat_grads)


def _jacobian_int(lib, inp):
    jac = lib.autograd.functional.jacobian
    return {
        "int": attempt(lambda: jac(lambda x: x * 2, lib.tensor([1, 2]))),
        "float": jac(lambda x: x * 2, lib.tensor([1.0, 2.0])),
    }


register("functional/jacobian-int", _jacobian_int)


def _bce_logits(lib, inp):
    F = lib.nn.functional
    z = lib.tensor([20.0, -20.0, 100.0, -100.0, 0.0, 30.0, 20.0, -20.0], requires_grad=True)
    y = lib.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    each = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    weighted = F.binary_cross_entropy_with_logits(
        z, y, pos_weight=lib.full((8,), 3.0), reduction="sum"
    )
    (each.sum() + weighted).backward()
    return {"each": each, "weighted": weighted, "z": z}


register("loss/bce-logits-confident", _bce_logits, rtol=1e-4, atol=1e-12)
register(
    "loss/bce-logits-confident-float64",
    lambda lib, inp: {
        "each": lib.nn.functional.binary_cross_entropy_with_logits(
            lib.tensor([20.0, 40.0, -40.0, 0.0], dtype=lib.float64),
            lib.tensor([1.0, 1.0, 0.0, 0.5], dtype=lib.float64),
            reduction="none",
        )
    },
)


def _tangent_dtypes(lib, inp):
    """A tangent has its output's dtype: a float32 dual meeting float64 values
    (promoted by a linear operation, where its tangent alone reaches the output),
    a formula computed with a NumPy float64 (1.5 ** x, x.max()'s 1/k share)."""
    fwAD = lib.autograd.forward_ad
    d = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor([1.0, 3.0, 3.0]), lib.tensor([1.0, 2.0, 3.0]))
        outs = {
            "sub": d - x,
            "where": lib.where(x > 1, x, d),
            "cat": lib.cat([x, d]),
            "rpow": 1.5**x,
            "max": x.max(),
            "min": x[:1].min(),
            "mul": x * d,
        }
        return {name: list(fwAD.unpack_dual(y)) for name, y in outs.items()}


register("promotion/tangent-dtypes", _tangent_dtypes)


def _pow_in_place(lib, inp):
    """x.pow_(exponent) with a tensor exponent (recorded when only the exponent
    requires grad), with numbers (an integer tensor refuses a float exponent; a
    negative base gives nan silently); bool bases (bool ** 2 is int64, bool ** bool
    is not implemented)."""
    w = lib.tensor([0.5, 2.0], requires_grad=True)
    y = lib.tensor([2.0, 3.0])
    y.pow_(w)
    y.sum().backward()
    x = lib.tensor([[1.5, -2.0], [0.5, 3.0]])
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    b.pow_(lib.tensor([2.0, 3.0]))
    (ga,) = lib.autograd.grad(b.sum(), a)
    return {
        "y": y,
        "w": w,
        "b": b,
        "ga": ga,
        "tensor_exponent": x.clone().pow_(lib.tensor([[2.0, 0.5], [1.0, 3.0]])),
        "half": x.clone().pow_(0.5),
        "square": x.clone().pow_(2),
        "int_half": attempt(lambda: lib.tensor([1, 2]).pow_(0.5)),
        "int_square": lib.tensor([1, 2]).pow_(2),
        "broadcast_into_0d": attempt(lambda: lib.tensor(2.0).pow_(lib.tensor([1.0, 2.0]))),
        "bool_square": lib.tensor([True, False]) ** 2,
        "bool_true": lib.tensor([True, False]) ** True,
        "bool_false": lib.tensor([True, False]) ** False,
        "bool_bool": attempt(lambda: lib.tensor([True, False]) ** lib.tensor([True, True])),
        "bool_in_place": attempt(lambda: lib.tensor([True, False]).pow_(2)),
    }


register("promotion/pow-in-place", _pow_in_place)


def _bool_operands(lib, inp):
    """Masks in arithmetic: subtraction with a bool tensor is refused in every
    spelling (1 - mask, sub with alpha, sub_), ~ only takes integers and bools,
    sign of a bool is the bool."""
    mask, f, i = lib.tensor([True, False]), lib.tensor([1.5, 2.0]), lib.tensor([3, 4])
    spellings = {
        "number_minus_mask": lambda: 1 - mask,
        "true_minus_float": lambda: True - f,
        "sub_alpha": lambda: lib.sub(f, mask, alpha=2),
        "int_sub_": lambda: i.clone().sub_(mask),
        "mask_sub_": lambda: mask.clone().sub_(mask),
        "invert_float": lambda: ~f,
        "invert_int": lambda: ~i,
        "invert_mask": lambda: ~mask,
        "sign_mask": lambda: mask.sign(),
        "torch_sign_mask": lambda: lib.sign(mask),
    }
    return {name: attempt(spelling) for name, spelling in spellings.items()}


register("promotion/bool-operands", _bool_operands)


def _in_place_refusals(lib, inp):
    """An in-place result that fits neither in shape nor in dtype: PyTorch names the
    shape first; true division names its own result dtype (Double for a float64
    operand); a Python bool is refused in a subtraction with alpha."""
    i0, mask = lib.tensor(3), lib.tensor([True, False, True])
    f64 = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    spellings = {
        "int_0d_sub_": lambda: i0.clone().sub_(f64),
        "mask_mul_": lambda: mask.clone().mul_(lib.ones(2, 3)),
        "mask_add_": lambda: mask.clone().add_(f64.reshape(3, 1)),
        "int_div_0d_double": lambda: i0.clone().div_(lib.tensor(2.0, dtype=lib.float64)),
        "int_div_number": lambda: i0.clone().div_(2.0),
        "int_div_int": lambda: i0.clone().div_(lib.tensor(2)),
        "int_div_vector": lambda: i0.clone().div_(lib.ones(3)),
        "sub_alpha_python_bool": lambda: lib.sub(f64, True, alpha=2),
        "fits": lambda: f64.clone().mul_(lib.tensor(2)),
    }
    return {name: attempt(spelling) for name, spelling in spellings.items()}


register("promotion/in-place-refusals", _in_place_refusals)


# ----------------------------------------------------------------------------- hooks, flags, comparisons


def _hooks(lib, inp):
    def myhook(g):
        return lib.ones(2)

    results = {}
    tensor_hooks: dict[str, Any] = {
        "shape": lambda g: lib.ones(5),
        "dtype": lambda g: g.double(),
        "number": lambda g: 5,
        "long": lambda g: g.long(),
        "named": myhook,
        "scaled": lambda g: g * 3,
        "none": lambda g: None,
    }
    for name, hook in tensor_hooks.items():
        x = lib.ones(3, requires_grad=True)
        x.register_hook(hook)
        results["leaf_" + name] = attempt(lambda x=x: (x * 2).sum().backward())
        results["leaf_" + name + "_grad"] = x.grad
        y = lib.ones(3, requires_grad=True)
        z = y * 2
        z.register_hook(hook)
        results["nonleaf_" + name] = attempt(lambda z=z: z.sum().backward())
        results["nonleaf_" + name + "_grad"] = y.grad
    node_hooks: dict[str, Any] = {
        "count": lambda gi, go: (lib.ones(5),),
        "shape": lambda gi, go: (lib.ones(5), None),
        "dtype": lambda gi, go: (gi[0].double(), None),
        "number": lambda gi, go: (5, None),
        "nones": lambda gi, go: (None, None),
        "list": lambda gi, go: [gi[0] * 2, None],
        "tensor": lambda gi, go: gi[0],
        "scaled": lambda gi, go: (gi[0] * 2, None),
    }
    for name, hook in node_hooks.items():
        y = lib.ones(3, requires_grad=True)
        z = y * 2
        z.grad_fn.register_hook(hook)
        results["post_" + name] = attempt(lambda z=z: z.sum().backward())
        results["post_" + name + "_grad"] = y.grad
    pre_hooks: dict[str, Any] = {
        "shape": lambda go: (lib.ones(5),),
        "number": lambda go: 5,
        "tuple_number": lambda go: (5,),
        "tensor": lambda go: go[0],
        "scaled": lambda go: (go[0] * 2,),
    }
    for name, hook in pre_hooks.items():
        y = lib.ones(3, requires_grad=True)
        z = y * 2
        z.grad_fn.register_prehook(hook)
        results["pre_" + name] = attempt(lambda z=z: z.sum().backward())
        results["pre_" + name + "_grad"] = y.grad
    return results


register("hooks/checked-results", _hooks)


def _kept_by_hooks(lib, inp):
    """Gradients a hook keeps must not change when a later pass accumulates into
    the leaf's .grad (a post-hook's grad_inputs, passed on or returned; a tensor
    hook's returned gradient; a pre-hook's returned gradient)."""
    results: dict[str, Any] = {}
    post_hooks: dict[str, Any] = {
        "passed-on": lambda gi, go: None,
        "returned": lambda gi, go: (gi[0] * 1, None),
    }
    for name, make in post_hooks.items():
        w = lib.ones(3, requires_grad=True)
        kept: list = []
        y = w * 2

        def post(gi, go, make=make, kept=kept):
            answer = make(gi, go)
            kept.append(gi[0] if answer is None else answer[0])
            return answer

        y.grad_fn.register_hook(post)
        y.sum().backward()
        (w * 3).sum().backward()
        results["post_" + name] = kept[0]
        results["post_" + name + "_grad"] = w.grad
    x = lib.ones(3, requires_grad=True)
    seen: list = []

    def tensor_hook(g):
        seen.append(g * 1)
        return seen[-1]

    x.register_hook(tensor_hook)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    results["tensor_returned"] = seen[0]
    results["tensor_returned_grad"] = x.grad
    v = lib.ones(3, requires_grad=True)
    z = v * 2
    held: list = []

    def pre(go):
        held.append(go[0] * 1)
        return (held[-1],)

    z.grad_fn.register_prehook(pre)
    z.sum().backward()
    (v * 5).sum().backward()
    results["pre_returned"] = held[0]
    results["pre_returned_grad"] = v.grad
    return results


register("hooks/kept-gradients-unchanged", _kept_by_hooks)


def _hook_order(lib, inp):
    """At a node, PyTorch runs the tensor's hooks, then retain_grad, then the node's
    pre-hooks (whatever order they were registered in), then its post-hooks: the
    retained .grad has the tensor hooks' change but not the pre-hooks'."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    v = x.exp()
    order: list = []

    def node_pre_hook(grad_outputs):
        order.append("node pre-hook")
        return (grad_outputs[0] * 10,)

    def tensor_hook(grad):
        order.append("tensor hook")
        return grad * 2

    v.grad_fn.register_prehook(node_pre_hook)
    v.retain_grad()
    v.register_hook(tensor_hook)
    v.grad_fn.register_hook(lambda gi, go: order.append(["post-hook", go[0]]))
    (v * 3).sum().backward()
    pieces = (x * 1).unbind(0)
    pieces[1].grad_fn.register_prehook(lambda go: tuple(None if g is None else g * 10 for g in go))
    pieces[1].retain_grad()
    (pieces[1] * 3).backward()
    return {"order": order, "v": v, "x": x, "piece": pieces[1]}


register("hooks/order-at-a-node", _hook_order)


def _returned_inputs(lib, inp):
    """A custom Function's forward returns an input unchanged: the output is a new
    tensor; an input it also saved is saved as the input (so a create_graph pass
    through its backward does not loop back into the node, and the second derivative
    is PyTorch's); marked non-differentiable, that new tensor does not require grad;
    an input marked dirty but not returned is refused."""

    class PassY(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, y

        @staticmethod
        def backward(ctx, g_product, g_y):
            x, y = ctx.saved_tensors
            return g_product * y, g_product * x + g_y

    class Frozen(lib.autograd.Function):  # type: ignore[name-defined]
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_non_differentiable(y)
            return x * 2, y

        @staticmethod
        def backward(ctx, g, g_y):
            return g * 2, None

    class DirtyNotReturned(lib.autograd.Function):  # type: ignore[name-defined]
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([3.0, -1.0], requires_grad=True)
    product, passed = PassY.apply(x, y)
    gx, gy = lib.autograd.grad((product * passed).sum(), (x, y), create_graph=True)
    second = lib.autograd.grad((gx * gy).sum(), (x, y), allow_unused=True)
    doubled, frozen = Frozen.apply(x, y)
    return {
        "passed": passed,
        "first": [gx, gy],
        "second": list(second),
        "frozen": frozen,
        "frozen_is_y": frozen is y,
        "dirty": attempt(lambda: DirtyNotReturned.apply(x * 1)),
    }


register("custom-function/returned-inputs", _returned_inputs)


def _invalid_gradient_shapes(lib, inp):
    """A custom Function's backward returns a gradient of another shape: one the
    input broadcasts to is summed back; any other is refused in PyTorch's words
    (not a NumPy error from deep inside), also in a create_graph pass."""

    def function_returning(make_grad):
        class Shaped(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return make_grad(lib, g), None

        return Shaped

    shapes = {
        "one-element": lambda lib, g: g.reshape(-1)[:1],
        "flat": lambda lib, g: g.reshape(-1),
        "transposed": lambda lib, g: g.t(),
        "broadcast": lambda lib, g: g.expand(4, 2, 3),
        "leading-one": lambda lib, g: g.unsqueeze(0),
    }
    results = {}
    for name, make_grad in shapes.items():
        for create_graph in (False, True):
            x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
            out = function_returning(make_grad).apply(x, lib.tensor(2.0))
            results[f"{name}/{create_graph}"] = attempt(
                lambda out=out, x=x, c=create_graph: lib.autograd.grad(out.sum(), x, create_graph=c)
            )
    return results


register("custom-function/invalid-gradient-shapes", _invalid_gradient_shapes)


def _requires_grad_flags(lib, inp):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    return {
        "set_true": attempt(lambda: setattr(y, "requires_grad", True)),
        "set_false": attempt(lambda: setattr(y, "requires_grad", False)),
        "method_true": attempt(lambda: y.requires_grad_(True)),
        "method_false": attempt(lambda: y.requires_grad_(False)),
        "leaf_false": attempt(lambda: setattr(x, "requires_grad", False)),
        "x": x,
        "y": y,
    }


register("flags/requires-grad-on-a-non-leaf", _requires_grad_flags)


def _compare_with_non_tensors(lib, inp):
    t = lib.tensor([1.0, 2.0])
    out = {}
    for name, other in (("none", None), ("str", "a"), ("list", [1.0, 2.0]), ("object", object())):
        out[name + "_eq"] = attempt(lambda other=other: t == other)
        out[name + "_ne"] = attempt(lambda other=other: t != other)
        out[name + "_lt"] = attempt(lambda other=other: t < other)
    out["number_eq"] = t == 1.0
    out["tensor_eq"] = t == lib.tensor([1.0, 3.0])
    return out


register("compare/with-none-and-others", _compare_with_non_tensors)


def _deepcopy(lib, inp):
    import copy

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    c = copy.deepcopy(x)
    (c * 1).sum().backward()  # the copy's .grad is its own
    both = copy.deepcopy([x, x])
    return {
        "copy": c,
        "x": x,
        "shared_in_memo": both[0] is both[1],
        "grad_is_copied": c.grad is not x.grad,
    }


register("copy/deepcopy-keeps-grad", _deepcopy)


# ----------------------------------------------------------------------------- errors in PyTorch's words


def _errors(lib, inp):
    import numpy as np

    def backward_into(which):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        (x * y * 3).sum().backward(inputs=which(x, y))
        return x.grad, y.grad

    def expanded_add():
        return lib.zeros(1).expand(3).add_(1)

    def slice_assign():
        t = lib.zeros(3)
        t[0:2] = lib.ones(3)

    def row_assign():
        t = lib.zeros(2, 3)
        t[0] = lib.ones(2)

    return {
        "zeros_overflow": attempt(lambda: lib.zeros(2**62, 2**62)),
        "linspace_negative_steps": attempt(lambda: lib.linspace(0, 1, -1)),
        "full_str": attempt(lambda: lib.full((2,), "a")),
        "arange_inf": attempt(lambda: lib.arange(float("inf"))),
        "arange_nan": attempt(lambda: lib.arange(0, float("nan"))),
        "bool_sub": attempt(lambda: lib.tensor([True]) - lib.tensor([False])),
        "bool_sub_number": attempt(lambda: lib.tensor([True]) - 1),
        "bool_neg": attempt(lambda: -lib.tensor([True])),
        "int_div_": attempt(lambda: lib.tensor([1, 2]).div_(2)),
        "copy_wrong_size": attempt(lambda: lib.zeros(3).copy_(lib.ones(2))),
        "copy_broadcast": lib.zeros(3).copy_(lib.ones(1)),
        "slice_assign_wrong_size": attempt(slice_assign),
        "row_assign_wrong_size": attempt(row_assign),
        "inplace_on_expanded": attempt(expanded_add),
        "copy_into_expanded": attempt(lambda: lib.zeros(1).expand(3).copy_(lib.ones(3))),
        "mean_empty": lib.ones(0).mean(),
        "mean_empty_dim": lib.ones(0, 2).mean(0),
        "mv_list": attempt(lambda: lib.mv(lib.ones(2, 2), [1.0, 1.0])),
        "bce_weight_shape": attempt(
            lambda: lib.nn.functional.binary_cross_entropy(
                lib.full((3,), 0.5), lib.ones(3), weight=lib.ones(2)
            )
        ),
        "int_negative_power": attempt(lambda: lib.tensor([2]) ** -1),
        "cat_empty": attempt(lambda: lib.cat([])),
        "backward_inputs_list": backward_into(lambda x, y: [x]),
        "backward_inputs_tensor": backward_into(lambda x, y: y),
        "backward_inputs_empty": attempt(lambda: backward_into(lambda x, y: [])),
        "ndarray_is_not_a_gradient": isinstance(
            attempt(lambda: (lib.ones(2, requires_grad=True) * 2).backward(np.ones(2))),
            H.Raised,
        ),
    }


register("errors/in-pytorchs-words", _errors)


def _floordiv_mod(lib, inp):
    x = lib.tensor([5.0, -5.0, 2.5, -0.5], requires_grad=True)
    y = lib.tensor([3.0, 3.0, -2.0, 2.0], requires_grad=True)
    r = x % 3
    rt = x % y
    (r.sum() + (rt * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum()).backward()
    i = lib.tensor([5, -5, 7])
    q = x // 2
    return {
        "r": r,
        "rt": rt,
        "x": x,
        "y": y,
        "q": q,
        "q_backward": attempt(lambda: q.sum().backward()),
        "rq": 7 // y,
        "rmod": attempt(lambda: (7 % y).sum().backward()),
        "int_floordiv": i // 2,
        "int_mod": i % 3,
        "int_mod_neg": i % -3,
        "int_floordiv_float": i // 2.0,
        "fn_remainder": lib.remainder(i, 4),
        "fn_floor_divide": lib.floor_divide(x.detach(), 2),
        "method": x.detach().remainder(2),
    }


register("arith/floordiv-and-mod", _floordiv_mod)


def _floordiv_edges(lib, inp):
    """The NotImplemented node of ``//`` has an edge for each operand that requires
    grad only: none for an int64, bool or float tensor that does not."""
    a = lib.tensor([3.5, -2.0, 7.0], requires_grad=True)
    b = lib.tensor([2.0, 3.0, -2.0], requires_grad=True)
    i = lib.tensor([2, 3, -2])
    y = a * 1
    y //= i
    s = a * 1
    s[0:2] //= i[:2]
    return {
        "a_by_int": a // i,
        "int_by_a": i // a,
        "fn": lib.floor_divide(a, i),
        "by_float_plain": a // b.detach(),
        "by_bool": a // lib.tensor([True, True, True]),
        "by_0d_int": a // lib.tensor(2),
        "both": a // b,
        "inplace": y,
        "inplace_view": s,
    }


register("arith/floordiv-edges", _floordiv_edges)


def _nll_nothing_to_average(lib, inp):
    """nll_loss / cross_entropy with reduction="mean" when the targets' weights sum
    to 0 (all ignored, or weighted 0): the loss is nan, silently, and an ignored
    target's gradient is 0 (it was 0/0 = nan, with NumPy's warnings)."""
    out = {}
    cases = {
        "all_ignored": ([-100, -100], None, -100),
        "all_ignore_index": ([1, 1], None, 1),
        "zero_weights": ([0, 1], [0.0, 0.0, 1.0], -100),
        "one_kept": ([2, -100], [1.0, 1.0, 0.5], -100),
    }
    for name, (target, weight, ignore) in cases.items():
        for fn in ("nll_loss", "cross_entropy"):
            x = lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
            w = None if weight is None else lib.tensor(weight)
            loss = getattr(lib.nn.functional, fn)(
                x, lib.tensor(target), weight=w, ignore_index=ignore
            )
            loss.backward()
            out[f"{name}/{fn}"] = [loss, x.grad]
    return out


register("loss/nll-nothing-to-average", _nll_nothing_to_average)


def _legacy_reduction_arguments(lib, inp):
    """The old size_average/reduce arguments of mse_loss, binary_cross_entropy and
    binary_cross_entropy_with_logits choose the reduction (they were ignored:
    size_average=False gave the mean, not the sum), with PyTorch's warning."""
    F = lib.nn.functional
    x = lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
    y = lib.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    losses = {
        "mse": lambda **k: F.mse_loss(x, y, **k),
        "bce": lambda **k: F.binary_cross_entropy(x.sigmoid(), y, **k),
        "bce_logits": lambda **k: F.binary_cross_entropy_with_logits(x, y, **k),
    }
    out = {}
    for size_average in (None, True, False):
        for reduce in (None, True, False):
            for name, loss in losses.items():
                value = loss(size_average=size_average, reduce=reduce, reduction="sum")
                out[f"{name}/{size_average}/{reduce}"] = value
    return out


register("loss/legacy-size_average-reduce", _legacy_reduction_arguments)


def _integer_division_by_zero(lib, inp):
    """Integer ``//`` and ``%`` by zero raise in PyTorch (NumPy would give 0 and
    warn); float ones give inf/nan, also when only the divisor is an integer."""
    i = lib.tensor([5, -5, 0])
    f = lib.tensor([1.5, -2.0, 0.0])
    return {
        "floordiv_int": attempt(lambda: i // 0),
        "mod_int": attempt(lambda: i % 0),
        "floordiv_tensor": attempt(lambda: lib.floor_divide(i, lib.tensor([1, 0, 2]))),
        "remainder_tensor": attempt(lambda: lib.remainder(i, lib.tensor([1, 0, 2]))),
        "rfloordiv": attempt(lambda: 7 // lib.tensor([0, 1])),
        "rmod": attempt(lambda: 7 % lib.tensor([0, 1])),
        "method_remainder": attempt(lambda: i.remainder(0)),
        "method_floor_divide": attempt(lambda: i.floor_divide(0)),
        "int_by_float_zero": i // 0.0,
        "int_mod_float_zero": i % 0.0,
        "float_by_int_zero": f // 0,
        "float_mod_int_zero": f % 0,
        "float_rmod": 7.0 % lib.tensor([0, 1]),
        "int_mod_float_tensor": lib.tensor([5, 6]) % lib.tensor([2, 0.0]),
        "nonzero": (i // 2, i % 3),
    }


register("arith/integer-division-by-zero", _integer_division_by_zero)


def _batched_matvec(lib, inp):
    a = lib.tensor(
        [[[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], [[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]]],
        requires_grad=True,
    )
    b = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = a @ b  # PyTorch: UnsafeViewBackward0(MvBackward0(ViewBackward0(a), b))
    deep = lib.ones(2, 1, 2, 3, requires_grad=True)
    z = lib.matmul(deep, b)
    (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    z.sum().backward()
    return {
        "y": y,
        "z": z,
        "a": a,
        "b": b,
        "deep": deep,
        "mismatch": attempt(lambda: lib.ones(2, 2, 3) @ lib.ones(4)),
    }


register("linalg/batched-matrix-times-vector", _batched_matvec)


# ----------------------------------------------------------------------------- silent float specials
# inf - inf, 0 * inf, inf + -inf and overflow give nan/inf in both libraries; NumPy
# also warns (RuntimeWarning), PyTorch does not. The harness records every warning.

SPECIAL_PAIRS = {
    "sub": lambda a, b: a - b,
    "add": lambda a, b: a + (-b),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "rsub": lambda a, b: 1.0 - a - b,
    "mul_number": lambda a, b: b * 0,
    "sub_number": lambda a, b: a - INF,
}


def _float_specials(op, dtype):
    def fn(lib, inp):
        dt = getattr(lib, dtype)
        a = lib.tensor([INF, 0.0, 1.0, -INF, 3e38, NAN], dtype=dt, requires_grad=True)
        b = lib.tensor([INF, INF, 0.0, -INF, 3e38, 1.0], dtype=dt, requires_grad=True)
        y = op(a, b)
        y.backward(lib.ones_like(y))
        scalar = op(lib.tensor(INF, dtype=dt), lib.tensor(INF, dtype=dt))
        return {"y": y, "a": a, "b": b, "scalar": scalar}

    return fn


for _name, _op in SPECIAL_PAIRS.items():
    for _dt in (F32, F64):
        register(f"silent-specials/{_name}-{_dt}", _float_specials(_op, _dt))


def _silent_sums_and_inplace(lib, inp):
    big = lib.tensor([3e38, 3e38])
    c = lib.tensor([INF, 1.0, 0.0])
    c -= lib.tensor([INF, 1.0, 0.0])
    d = lib.tensor([INF, 1.0])
    d.mul_(0)
    e = lib.tensor([INF, 2.0])
    e.add_(lib.tensor([-INF, 1.0]), alpha=2)
    return {
        "sum": lib.tensor([INF, -INF]).sum(),
        "sum_dim": lib.tensor([[INF, -INF], [1.0, 2.0]]).sum(1),
        "sum_overflow": big.sum(),
        "add_alpha": lib.add(lib.tensor([INF]), lib.tensor([INF]), alpha=-1),
        "sub_alpha": lib.sub(lib.tensor([INF]), lib.tensor([INF]), alpha=1.5),
        "isub": c,
        "mul_": d,
        "add_": e,
    }


register("silent-specials/sums-and-in-place", _silent_sums_and_inplace)


# ----------------------------------------------------------------------------- double backward
# g = dy/dx computed with create_graph=True is itself a graph: a learner who walks
# g.grad_fn.next_functions must see PyTorch's nodes (MulBackward1 where a formula
# multiplies by a number, one node where PyTorch's formula calls a fused backward
# function: TanhBackwardBackward0, ThresholdBackwardBackward0,
# SoftmaxBackwardDataBackward0, ...), and differentiating g again must give
# PyTorch's second derivative (and third).

FIRST_DERIVATIVES = {
    "mul_scalar": lambda lib, x: x * 3.0,
    "mul_self": lambda lib, x: x * x,
    "add_self": lambda lib, x: x + x,
    "div_scalar": lambda lib, x: x / 3.0,
    "rdiv": lambda lib, x: 2.0 / x,
    "pow2": lambda lib, x: x**2,
    "pow3": lambda lib, x: x**3,
    "pow_half": lambda lib, x: x**0.5,
    "rpow": lambda lib, x: 2.0**x,
    "neg": lambda lib, x: -x,
    "reciprocal": lambda lib, x: x.reciprocal(),
    "exp": lambda lib, x: x.exp(),
    "log": lambda lib, x: x.log(),
    "sqrt": lambda lib, x: x.sqrt(),
    "clamp": lambda lib, x: x.clamp(0.2, 0.8),
    "sin": lambda lib, x: x.sin(),
    "cos": lambda lib, x: x.cos(),
    "tan": lambda lib, x: x.tan(),
    "atan": lambda lib, x: x.atan(),
    "sinh": lambda lib, x: x.sinh(),
    "cosh": lambda lib, x: x.cosh(),
    "log1p": lambda lib, x: x.log1p(),
    "expm1": lambda lib, x: x.expm1(),
    "log2": lambda lib, x: x.log2(),
    "log10": lambda lib, x: x.log10(),
    "exp2": lambda lib, x: x.exp2(),
    "rsqrt": lambda lib, x: x.rsqrt(),
    "square": lambda lib, x: x.square(),
    "sum": lambda lib, x: x.sum(),
    "mean": lambda lib, x: x.mean(),
    "prod": lambda lib, x: x.prod(),
    "cumsum": lambda lib, x: x.cumsum(0),
    "maximum": lambda lib, x: lib.maximum(x, lib.tensor([0.3, 0.3, 0.3])),
    "max": lambda lib, x: x.max(),
    "mm": lambda lib, x: x.reshape(1, 3) @ lib.ones(3, 2),
    "dot": lambda lib, x: lib.dot(x, x),
    "frac": lambda lib, x: x.frac(),
    "sigmoid": lambda lib, x: x.sigmoid(),  # SigmoidBackwardBackward0
    "tanh": lambda lib, x: x.tanh(),  # TanhBackwardBackward0
    "silu": lambda lib, x: x * x.sigmoid(),
    "abs": lambda lib, x: x.abs(),  # grad * sgn(x): SgnBackward0
    "relu": lambda lib, x: x.relu(),  # ThresholdBackwardBackward0
    "asin": lambda lib, x: x.asin(),  # through RsqrtBackward0
    "acos": lambda lib, x: x.acos(),
    "logsumexp": lambda lib, x: x.logsumexp(0),  # UnsqueezeBackward0
    "outer_matmul": lambda lib, x: x.reshape(3, 1) @ x.reshape(1, 3),  # TBackward0
    # vector @ matrix squeezes the product (SqueezeBackward4); squaring it makes the
    # gradient reaching that node depend on x, so g's graph shows the node that puts
    # the dimension back: UnsqueezeBackward0.
    "vector_matmul": lambda lib, x: (x @ lib.ones(3, 2)) ** 2,
    "softmax": lambda lib, x: x.softmax(0),  # SoftmaxBackwardDataBackward0
    "log_softmax": lambda lib, x: x.log_softmax(0),  # LogSoftmaxBackwardDataBackward0
    "norm": lambda lib, x: x.norm(),  # (x / norm).masked_fill_(norm == 0, 0)
    "pow_tensor": lambda lib, x: x**x,  # where(y == 0, 0, ...) + grad * where(..., xʸ·ln x)
}


def _second_derivative(f):
    """``g = dy/dx`` with ``create_graph=True`` (its graph is compared), then ``dg/dx``
    (also with ``create_graph=True``) and its derivative, the third (values, or the
    error where the second derivative has no graph)."""

    def fn(lib, inp):
        x = lib.tensor([0.25, 0.5, 0.75], requires_grad=True)
        (g,) = lib.autograd.grad(f(lib, x).sum(), x, create_graph=True)
        g2 = attempt(lambda: lib.autograd.grad(g.sum(), x, create_graph=True)[0])
        if isinstance(g2, H.Raised):
            return {"y": g, "second": g2}
        # zeros(3) + ...: PyTorch may return a "ZeroTensor" that has no NumPy values.
        third = attempt(lambda: lib.zeros(3) + lib.autograd.grad(g2.sum(), x)[0])
        return {"y": g, "second": (lib.zeros(3) + g2).detach(), "third": third}

    return fn


for _name, _f in FIRST_DERIVATIVES.items():
    register(f"double-backward/{_name}", _second_derivative(_f))


def _second_derivative_graph(f):
    """The graph of ``dg/dx`` (built with ``create_graph=True``) itself: PyTorch's
    nodes for the gradients of the first pass's nodes (a divisor's −g·((x/y)/y),
    ``sum_to``'s SumBackward0/ViewBackward0, a formula's number: MulBackward1)."""

    def fn(lib, inp):
        x = lib.tensor([0.25, 0.5, 0.75], requires_grad=True)
        (g,) = lib.autograd.grad(f(lib, x).sum(), x, create_graph=True)
        return {"second": lib.autograd.grad(g.sum(), x, create_graph=True)[0]}

    return fn


# x ** x is left out: its dg/dx adds the same terms in another order (the engine's
# order of accumulation, not a formula).
for _name in ("log", "sqrt", "atan", "log2", "log10", "prod", "norm", "mul_scalar", "tanh"):
    register(
        f"double-backward-graph/{_name}",
        _second_derivative_graph(FIRST_DERIVATIVES[_name]),
        graph_key="second",
    )


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_edge_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_edge_live(prog):
    H.check_against_live_torch(prog)
