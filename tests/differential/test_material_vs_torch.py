"""Small programs a learner writes after the first autograd tutorial, run unchanged
under ``import autogradkit as torch`` and against PyTorch.

They follow the public material by topic (our own code): the polynomial fits of
"Learning PyTorch with Examples" (tensors and hand-written gradients, autograd, a
custom autograd Function, ``nn``, ``optim``, a custom ``nn.Module``, the dynamic
net), the activation-function gradients of d2l's "Automatic Differentiation",
``nn.Module`` printing and bookkeeping, one optimiser step read against its
definition, and forward-mode AD as "Forward-mode Automatic Differentiation" uses it
(dual tensors, a custom Function with ``jvp``).

Training loops return their losses as numbers: the harness compares them with a
relative tolerance of 1e-4 ("losses to 4 decimals"). They cannot agree to the
last bit: PyTorch's vectorised ``sin`` and its summation order round differently
in float32 than NumPy's, and a training loop carries such last-bit differences
along. Everything else (printed text, reprs, names, shapes) is compared exactly.
"""

from __future__ import annotations

import math
import random
import zlib

import harness as H
import pytest
from harness import Program, attempt

PROGRAMS: list[Program] = []
LOSS_RTOL = 1e-4


H.import_torch_jvp_decompositions()


def program(pid: str, **options):
    """Decorator: register ``fn(lib, inputs)`` as program ``material/<pid>``."""

    def register(fn):
        full = "material/" + pid
        PROGRAMS.append(Program(full, fn, {}, zlib.crc32(full.encode()) % 100_000, **options))
        return fn

    return register


def _sine_data(lib):
    x = lib.linspace(-math.pi, math.pi, 2000, device=lib.device("cpu"), dtype=lib.float)
    return x, lib.sin(x)


# ----------------------------------------------------------------------------- "Learning PyTorch with Examples"


@program("poly-tensors-manual-gradients", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """The tensor version: gradients written by hand, no autograd."""
    lib.manual_seed(0)
    dtype, device = lib.float, lib.device("cpu")
    x, y = _sine_data(lib)
    a = lib.randn((), device=device, dtype=dtype)
    b = lib.randn((), device=device, dtype=dtype)
    c = lib.randn((), device=device, dtype=dtype)
    d = lib.randn((), device=device, dtype=dtype)
    learning_rate = 1e-6
    losses = []
    for t in range(500):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum().item()
        if t % 100 == 99:
            losses.append(loss)
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x**2).sum()
        grad_d = (grad_y_pred * x**3).sum()
        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d
    return {"losses": losses, "coefficients": [v.item() for v in (a, b, c, d)]}


@program("poly-autograd", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """The same fit with requires_grad=True and loss.backward()."""
    lib.manual_seed(0)
    x, y = _sine_data(lib)
    a, b, c, d = (lib.randn((), dtype=lib.float, requires_grad=True) for _ in range(4))
    learning_rate = 1e-6
    losses = []
    for t in range(500):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            losses.append(loss.item())
        loss.backward()
        with lib.no_grad():
            for v in (a, b, c, d):
                v -= learning_rate * v.grad
                v.grad = None
    return {
        "losses": losses,
        "a": a,
        "loss_grad_fn": loss.grad_fn.name(),
        "pred_grad_fn": y_pred.grad_fn.name(),
    }


@program("poly-custom-function", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """A custom autograd Function for the Legendre polynomial P₃."""

    class LegendrePolynomial3(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    x, y = _sine_data(lib)
    a = lib.full((), 0.0, dtype=lib.float, requires_grad=True)
    b = lib.full((), -1.0, dtype=lib.float, requires_grad=True)
    c = lib.full((), 0.0, dtype=lib.float, requires_grad=True)
    d = lib.full((), 0.3, dtype=lib.float, requires_grad=True)
    learning_rate = 5e-6
    losses = []
    for t in range(500):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            losses.append(loss.item())
        loss.backward()
        with lib.no_grad():
            for v in (a, b, c, d):
                v -= learning_rate * v.grad
                v.grad = None
    return {"losses": losses, "coefficients": [v.item() for v in (a, b, c, d)]}


def _poly_features(lib):
    x, y = _sine_data(lib)
    p = lib.tensor([1, 2, 3])
    return x.unsqueeze(-1).pow(p), y


@program("poly-nn", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """nn.Sequential(Linear, Flatten), MSELoss(reduction='sum'), a manual update."""
    lib.manual_seed(0)
    xx, y = _poly_features(lib)
    model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))
    loss_fn = lib.nn.MSELoss(reduction="sum")
    learning_rate = 1e-6
    losses = []
    for t in range(500):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with lib.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    return {
        "repr": repr(model),
        "losses": losses,
        "bias": linear_layer.bias.item(),
        "weights": [linear_layer.weight[:, i].item() for i in range(3)],
        "graph": y_pred,
    }


def _train_with(lib, make_optimizer, steps: int = 500):
    lib.manual_seed(0)
    xx, y = _poly_features(lib)
    model = lib.nn.Sequential(lib.nn.Linear(3, 1), lib.nn.Flatten(0, 1))
    loss_fn = lib.nn.MSELoss(reduction="sum")
    optimizer = make_optimizer(lib, model.parameters())
    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    grads_after_zero = None
    optimizer.zero_grad()
    grads_after_zero = [p.grad for p in model.parameters()]
    return {"losses": losses, "state": model.state_dict(), "grads": grads_after_zero}


@program("poly-optim-rmsprop", rtol=1e-3, atol=1e-5)
def _(lib, inp):
    return _train_with(lib, lambda lib, params: lib.optim.RMSprop(params, lr=1e-3))


@program("poly-optim-sgd-momentum", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    return _train_with(
        lib, lambda lib, params: lib.optim.SGD(params, lr=1e-6, momentum=0.9, weight_decay=1e-3)
    )


@program("poly-optim-sgd-nesterov", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    return _train_with(
        lib, lambda lib, params: lib.optim.SGD(params, lr=1e-6, momentum=0.9, nesterov=True)
    )


@program("poly-optim-adam", rtol=1e-3, atol=1e-5)
def _(lib, inp):
    return _train_with(lib, lambda lib, params: lib.optim.Adam(params, lr=1e-2))


@program("poly-custom-module", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """A custom nn.Module with four scalar Parameters and SGD."""

    class Polynomial3(lib.nn.Module):  # type: ignore[name-defined]  # lib is a parameter
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Parameter(lib.randn(()))
            self.b = lib.nn.Parameter(lib.randn(()))
            self.c = lib.nn.Parameter(lib.randn(()))
            self.d = lib.nn.Parameter(lib.randn(()))

        def forward(self, x):
            return self.a + self.b * x + self.c * x**2 + self.d * x**3

        def string(self):
            return (
                f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                f"{self.d.item()} x^3"
            )

    lib.manual_seed(0)
    x, y = _sine_data(lib)
    model = Polynomial3()
    criterion = lib.nn.MSELoss(reduction="sum")
    optimizer = lib.optim.SGD(model.parameters(), lr=1e-6)
    losses = []
    for t in range(500):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        if t % 100 == 99:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return {
        "losses": losses,
        "names": [name for name, _ in model.named_parameters()],
        "repr": repr(model),
        "a": model.a,
        "is_parameter": isinstance(model.a, lib.nn.Parameter),
    }


@program("poly-dynamic-net", rtol=LOSS_RTOL, atol=1e-6)
def _(lib, inp):
    """The dynamic net: the forward pass reuses a parameter a random number of times."""

    class DynamicNet(lib.nn.Module):  # type: ignore[name-defined]  # lib is a parameter
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Parameter(lib.randn(()))
            self.b = lib.nn.Parameter(lib.randn(()))
            self.c = lib.nn.Parameter(lib.randn(()))
            self.d = lib.nn.Parameter(lib.randn(()))
            self.e = lib.nn.Parameter(lib.randn(()))

        def forward(self, x, rng):
            y = self.a + self.b * x + self.c * x**2 + self.d * x**3
            for exp in range(4, rng.randint(4, 6)):
                y = y + self.e * x**exp
            return y

    lib.manual_seed(0)
    rng = random.Random(0)
    x, y = _sine_data(lib)
    model = DynamicNet()
    criterion = lib.nn.MSELoss(reduction="sum")
    optimizer = lib.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    losses = []
    for t in range(300):
        y_pred = model(x, rng)
        loss = criterion(y_pred, y)
        if t % 50 == 49:
            losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return {"losses": losses, "e": model.e.item()}


# ----------------------------------------------------------------------------- "Extending torch.autograd"


def _linear_function(lib):
    class LinearFunction(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


@program("custom-function-linear")
def _(lib, inp):
    """forward and backward receive tensors (input.mm(...)); needs_input_grad."""
    LinearFunction = _linear_function(lib)
    lib.manual_seed(0)
    x = lib.randn(4, 3, dtype=lib.double, requires_grad=True)
    w = lib.randn(2, 3, dtype=lib.double, requires_grad=True)
    b = lib.randn(2, dtype=lib.double, requires_grad=True)
    out = LinearFunction.apply(x, w, b)
    out.sum().backward()
    frozen = lib.randn(2, 3, dtype=lib.double)
    partial = LinearFunction.apply(x, frozen)
    return {
        "out": out,
        "x": x,
        "w": w,
        "b": b,
        "name": out.grad_fn.name(),
        "repr": repr(out.grad_fn),
        "partial": partial,
        "gradcheck": lib.autograd.gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4),
    }


@program("custom-function-setup-context")
def _(lib, inp):
    class MulConstant(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = MulConstant.apply(x, 2.5)
    y.backward(lib.tensor([1.0, 0.5, 0.25]))
    with lib.no_grad():
        untracked = MulConstant.apply(x, 2.0)
    return {"y": y, "x": x, "untracked": untracked}


@program("custom-function-double-backward")
def _(lib, inp):
    """Double backward through a custom Function: backward's own operations on the
    saved tensors are recorded in a create_graph pass."""

    class Cube(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 3 * x**2

    class Exp(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    z = lib.tensor(2.0, requires_grad=True)
    (d1,) = lib.autograd.grad(Cube.apply(z), z, create_graph=True)
    (d2,) = lib.autograd.grad(d1, z)
    t = lib.tensor([0.5, 1.0], dtype=lib.double, requires_grad=True)
    e = Exp.apply(t)
    (g,) = lib.autograd.grad(e.sum(), t, create_graph=True)
    g.sum().backward()
    cube_input = lib.tensor([0.3, 1.2], dtype=lib.double, requires_grad=True)
    return {
        "d1": d1,
        "d2": d2,
        "e": e,
        "g": g,
        "t": t,
        "gradgradcheck": lib.autograd.gradgradcheck(Cube.apply, (cube_input,)),
        "second_pass": attempt(lambda: e.sum().backward()),
    }


@program("custom-function-ctx-features")
def _(lib, inp):
    """once_differentiable, mark_non_differentiable, mark_dirty, saved tensors
    modified in place."""

    class Square(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class Argmax(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            return index

        @staticmethod
        def backward(ctx, g):
            return None

    class AddOneInPlace(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    z = lib.tensor(2.0, requires_grad=True)
    Square.apply(z).backward()
    (d,) = lib.autograd.grad(Square.apply(z), z, create_graph=True)
    t = lib.tensor([0.5, 3.0, 1.0], requires_grad=True)
    a = t * 2
    r = AddOneInPlace.apply(a)
    r.sum().backward()
    u = t * 1
    s = Square.apply(u)
    u.mul_(2)
    return {
        "z_grad": z.grad,
        "d": d,
        "d_backward": attempt(lambda: d.backward()),
        "argmax": Argmax.apply(t),
        "same": r is a,
        "r": r,
        "version": a._version,
        "t_grad": t.grad,
        "dirty_leaf": attempt(lambda: AddOneInPlace.apply(t)),
        "modified_saved": attempt(lambda: s.sum().backward()),
    }


@program("custom-function-several-outputs")
def _(lib, inp):
    """A Function with two outputs (polar coordinates of points (x, y)): backward
    gets one gradient per output; checked with gradcheck and gradgradcheck, with an
    output left unused, and beside a sort-like Function whose indices are not
    differentiable."""

    class Polar(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x, y):
            r = lib.sqrt(x * x + y * y)
            theta = lib.atan(y / x)  # the points lie right of the y axis
            ctx.save_for_backward(x, y, r)
            return r, theta

        @staticmethod
        def backward(ctx, grad_r, grad_theta):
            x, y, r = ctx.saved_tensors
            r2 = r * r
            grad_x = grad_r * x / r - grad_theta * y / r2
            grad_y = grad_r * y / r + grad_theta * x / r2
            return grad_x, grad_y

    class SortDescending(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x):
            order = lib.from_numpy((-x.detach().numpy()).argsort(kind="stable"))
            ctx.mark_non_differentiable(order)
            ctx.save_for_backward(order)
            return x[order], order

        @staticmethod
        def backward(ctx, grad_values, grad_order):
            (order,) = ctx.saved_tensors
            grad = lib.zeros_like(grad_values)
            grad[order] = grad_values
            return grad

    x = lib.tensor([1.0, 2.0, 0.5], dtype=lib.float64, requires_grad=True)
    y = lib.tensor([1.0, -1.0, 3.0], dtype=lib.float64, requires_grad=True)
    r, theta = Polar.apply(x, y)
    (r.sum() + 2 * theta.sum()).backward()
    grads = (x.grad.clone(), y.grad.clone())
    x.grad = y.grad = None
    radius_only, _ = Polar.apply(x, y)
    radius_only.sum().backward()
    values, order = SortDescending.apply(x)
    (values * lib.tensor([3.0, 2.0, 1.0], dtype=lib.float64)).sum().backward()
    return {
        "r": r,
        "theta": theta,
        "same_node": r.grad_fn is theta.grad_fn,
        "output_nr": (r.output_nr, theta.output_nr),
        "grads": grads,
        "radius_only": x.grad,
        "gradcheck": lib.autograd.gradcheck(Polar.apply, (x, y)),
        "gradgradcheck": lib.autograd.gradgradcheck(Polar.apply, (x, y)),
        "values": values,
        "order": order,
        "order_requires_grad": order.requires_grad,
    }


# ----------------------------------------------------------------------------- "Autograd mechanics": saved tensors


@program("saved-tensors-by-name")
def _(lib, inp):
    """grad_fn._saved_self / _saved_other / _saved_result / _saved_exponent."""
    lib.manual_seed(0)
    x = lib.randn(5, requires_grad=True)
    y = x.pow(2)
    e = x.exp()
    m = x * lib.ones(5)
    s = x.sigmoid()
    a = x + 1
    saved_result = e.grad_fn._saved_result
    record = {
        "self_equal": x.equal(y.grad_fn._saved_self),
        "self_is_x": x is y.grad_fn._saved_self,
        "exponent": y.grad_fn._saved_exponent,
        "result_equal": e.equal(saved_result),
        "result_is_e": e is saved_result,
        "result": saved_result,
        "mul_self": m.grad_fn._saved_self,
        "mul_other": m.grad_fn._saved_other,
        "sin_self_is_x": x.sin().grad_fn._saved_self is x,
        "sigmoid_result_node": s.grad_fn._saved_result.grad_fn.name(),
        "add_has_none": attempt(lambda: a.grad_fn._saved_self),
        "unknown": attempt(lambda: e.grad_fn._saved_foo),
    }
    e.sum().backward()
    record["after_backward"] = attempt(lambda: e.grad_fn._saved_result)
    return record


@program("saved-tensors-hooks")
def _(lib, inp):
    """torch.autograd.graph.saved_tensors_hooks: pack when saved, unpack in backward."""
    log = []

    def pack_hook(t):
        log.append(("pack", repr(t)))
        return t

    def unpack_hook(t):
        log.append(("unpack", repr(t)))
        return t

    a = lib.ones(5, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a.exp() * 3
        z = (a * 2).sin()
    (y.sum() + z.sum()).backward()
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(
        lambda t: t.detach().numpy().copy(), lambda array: lib.from_numpy(array)
    ):
        e = x.exp()
    e.sum().backward()
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
        w = x.cos()
    return {
        "log": log,
        "a_grad": a.grad,
        "x_grad": x.grad,
        "bad_unpack": attempt(lambda: w.sum().backward()),
    }


@program("saved-tensors-hooks-order-and-every-read")
def _(lib, inp):
    """The saved-tensors-hooks tutorial's printing hooks: what is packed, in which
    order (x * y keeps other before self), and that every read unpacks again,
    into a new tensor with the original's history; no version check under hooks,
    but a pack hook may not modify its input; only the innermost hooks apply."""
    log: list[tuple] = []

    def pack_hook(t):
        log.append(("pack", repr(t)))
        return t.detach()

    def unpack_hook(t):
        log.append(("unpack", repr(t)))
        return t

    a = lib.ones(5, requires_grad=True)
    b = lib.ones(5, requires_grad=True) * 2
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
        q = a / b
        m = lib.ones(2, 5, requires_grad=True) @ lib.ones(5, 3)
        p = b ** (a + 1)
    saved = y.grad_fn._saved_self
    log.append(("read", repr(saved), saved is a, saved.requires_grad, saved.is_leaf))
    log.append(("read", repr(y.grad_fn._saved_other), y.grad_fn._saved_other is b))
    log.append(("none", m.grad_fn._saved_self is None))
    (y.sum() + q.sum() + m.sum() + p.sum()).backward(retain_graph=True)
    y.sum().backward()
    c = a * 1
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        d = c * c
    c.add_(1)
    d.sum().backward()  # the hooks may have copied c: its version is not checked

    def modifies(t):
        t.mul_(2)
        return t

    inner = []

    def naming(name):
        def pack(t):
            inner.append(name)
            return t

        return pack

    with lib.autograd.graph.saved_tensors_hooks(naming("outer"), lambda t: t):
        with lib.autograd.graph.saved_tensors_hooks(naming("inner"), lambda t: t):
            (a * 1).exp()
        (a * 1).exp()
    with lib.autograd.graph.saved_tensors_hooks(modifies, lambda t: t):
        in_place = attempt(lambda: (a * 1).exp())
    return {"log": log, "a_grad": a.grad, "inner": inner, "in_place": in_place}


@program("saved-tensors-hooks-custom-function")
def _(lib, inp):
    """saved_tensors_hooks pack a custom Function's save_for_backward tensors (input,
    a leaf, the output) and unpack them at every read of ctx.saved_tensors, with
    the history of the tensor saved; twice with retain_graph."""
    log: list[tuple] = []

    class F(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, x, y):
            out = x * y.exp()
            ctx.save_for_backward(x, y, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, y, out = ctx.saved_tensors
            log.append(("backward", repr(x), repr(y), repr(out)))
            return g * y.exp(), g * out

    def pack_hook(t):
        log.append(("pack", repr(t)))
        return t.detach() * 1

    def unpack_hook(t):
        log.append(("unpack", repr(t)))
        return t

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([0.5, 0.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        z = F.apply(x * 1, y)
    z.sum().backward(retain_graph=True)
    first = (x.grad.clone(), y.grad.clone())
    z.sum().backward()
    return {"log": log, "first": first, "x_grad": x.grad, "y_grad": y.grad}


@program("saved-tensor-register-hooks")
def _(lib, inp):
    """grad_fn._raw_saved_self.register_hooks(pack, unpack): pack at once, unpack
    at every read; one pair only; refused for None and once freed."""
    log = []

    def pack_hook(t):
        log.append(("pack", repr(t)))
        return t * 10

    def unpack_hook(t):
        log.append(("unpack", repr(t)))
        return t / 10

    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    record = {
        "same_object": raw is y.grad_fn._raw_saved_self,
        "register": raw.register_hooks(pack_hook, unpack_hook),
        "read": y.grad_fn._saved_self,
        "twice": attempt(lambda: raw.register_hooks(pack_hook, unpack_hook)),
        "one_hook": attempt(lambda: raw.register_hooks(abs)),
        "not_callable": attempt(lambda: raw.register_hooks(1, 2)),
    }
    y.sum().backward()
    record["grad"] = x.grad
    record["freed"] = attempt(lambda: raw.register_hooks(pack_hook, unpack_hook))
    e = x.exp()
    e.grad_fn._raw_saved_result.register_hooks(pack_hook, unpack_hook)
    record["result"] = e.grad_fn._saved_result
    record["none"] = attempt(
        lambda: (x * lib.ones(3)).grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    )
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        hooked = x.sin()
    record["already_hooked"] = attempt(
        lambda: hooked.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)
    )
    record["no_such"] = attempt(lambda: e.grad_fn._raw_saved_self)
    w = x * 1
    z = w.pow(2)
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
    w.add_(1)  # the clone is what backward reads
    z.sum().backward()
    record["clone_grad"] = x.grad
    record["log"] = log
    return record


@program("saved-tensors-hooks-packed-freed-after-backward")
def _(lib, inp):
    """What a pack hook returned is deleted when backward frees the graph (the
    tutorial's self-deleting temporary file), and kept with retain_graph."""
    events = []

    class Box:
        def __init__(self, tensor):
            self.tensor = tensor.detach().clone()

        def __del__(self):
            events.append("deleted")

    x = lib.ones(3, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(Box, lambda box: box.tensor):
        y = x.exp().sum()
    y.backward(retain_graph=True)
    events.append("after a retained backward")
    y.backward()
    events.append("after the last backward")
    return {"events": events, "grad": x.grad}


# ----------------------------------------------------------------------------- nn.Module bookkeeping


@program("module-repr-and-parameters")
def _(lib, inp):
    lib.manual_seed(0)
    model = lib.nn.Sequential(
        lib.nn.Linear(4, 3),
        lib.nn.ReLU(),
        lib.nn.Linear(3, 3, bias=False),
        lib.nn.Tanh(),
        lib.nn.Linear(3, 2),
        lib.nn.Sigmoid(),
    )
    model.eval()
    modes = [m.training for m in model.modules()]
    model.train()
    return {
        "repr": repr(model),
        "names": [n for n, _ in model.named_parameters()],
        "shapes": [tuple(p.shape) for p in model.parameters()],
        "children": [type(m).__name__ for m in model.children()],
        "first_weight": model[0].weight,
        "first_bias_repr": repr(model[0].bias),
        "eval_modes": modes,
        "train_mode": model.training,
        "count": sum(p.numel() for p in model.parameters()),
        "losses_repr": [
            repr(lib.nn.MSELoss()),
            repr(lib.nn.CrossEntropyLoss()),
            repr(lib.nn.BCEWithLogitsLoss()),
            repr(lib.nn.Softmax(dim=1)),
            repr(lib.nn.ReLU(inplace=True)),
            repr(lib.nn.Flatten()),
        ],
    }


@program("module-custom-tree")
def _(lib, inp):
    class Block(lib.nn.Module):  # type: ignore[name-defined]  # lib is a parameter
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.ones(2))
            self.inner = lib.nn.Linear(2, 2)
            self.not_a_parameter = lib.ones(2)

        def forward(self, x):
            return self.inner(x) * self.scale

    lib.manual_seed(1)
    net = lib.nn.Sequential(Block(), lib.nn.ReLU(), Block())
    out = net(lib.ones(5, 2)).sum()
    out.backward()
    grads_before = [p.grad is not None for p in net.parameters()]
    net.zero_grad()
    return {
        "repr": repr(net),
        "names": [n for n, _ in net.named_parameters()],
        "out": out,
        "grads_before": grads_before,
        "grads_after": [p.grad for p in net.parameters()],
        "modules": [n for n, _ in net.named_modules()],
    }


@program("linear-graph-and-shapes")
def _(lib, inp):
    lib.manual_seed(2)
    layer = lib.nn.Linear(3, 2)
    x1, x2, x3 = lib.ones(3), lib.ones(4, 3), lib.ones(2, 4, 3)
    no_bias = lib.nn.Linear(3, 2, bias=False)
    return {
        "one": layer(x1),
        "batch": layer(x2),
        "batch3": layer(x3),
        "no_bias": no_bias(x2),
        "functional": lib.nn.functional.linear(x2, layer.weight, layer.bias),
    }


@program("classification-losses")
def _(lib, inp):
    lib.manual_seed(3)
    logits = lib.randn(4, 3, requires_grad=True)
    target = lib.tensor([0, 2, 1, 2])
    ce = lib.nn.CrossEntropyLoss()(logits, target)
    ce.backward()
    scores = lib.randn(5, requires_grad=True)
    labels = lib.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
    bce = lib.nn.BCEWithLogitsLoss()(scores, labels)
    bce.backward()
    probs = lib.nn.Softmax(dim=1)(logits)
    return {
        "ce": ce,
        "logits": logits,
        "bce": bce,
        "scores": scores,
        "probs_rows": probs.sum(1),
        "ce_sum": lib.nn.functional.cross_entropy(logits, target, reduction="sum"),
        "ce_none": lib.nn.functional.cross_entropy(logits, target, reduction="none"),
        "nll": lib.nn.functional.nll_loss(lib.log_softmax(logits, 1), target),
    }


@program("one-sgd-step-by-hand")
def _(lib, inp):
    """What optimizer.step() does: p ← p − lr·grad, under no_grad."""
    w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    loss = (w * w).sum()
    loss.backward()
    grad = w.grad.clone()
    before = w.detach().clone()
    optimizer.step()
    by_hand = before - 0.1 * grad
    optimizer.zero_grad()
    return {"w": w, "by_hand": by_hand, "grad_after_zero": w.grad, "repr": repr(w)}


@program("adam-steps")
def _(lib, inp):
    w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    optimizer = lib.optim.Adam([w], lr=0.1)
    trace = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        optimizer.step()
        trace.append(w.detach().clone())
    return {"trace": trace}


# ----------------------------------------------------------------------------- d2l: activation gradients


@program("d2l-activation-gradients")
def _(lib, inp):
    x = lib.arange(-8.0, 8.0, 0.1, requires_grad=True)
    y = lib.relu(x)
    y.backward(lib.ones_like(x), retain_graph=True)
    relu_grad = x.grad.clone()
    x.grad.data.zero_()
    y = lib.sigmoid(x)
    y.backward(lib.ones_like(x), retain_graph=True)
    sigmoid_grad = x.grad.clone()
    x.grad.data.zero_()
    y = lib.tanh(x)
    y.backward(lib.ones_like(x), retain_graph=True)
    return {
        "x": x,
        "relu_grad": relu_grad,
        "sigmoid_grad": sigmoid_grad,
        "tanh_grad": x.grad,
        "x80": x[80],
    }


@program("d2l-sin-derivative")
def _(lib, inp):
    x = lib.linspace(-3, 3, 13, requires_grad=True)
    y = lib.sin(x)
    y.sum().backward()
    return {
        "grad": x.grad,
        "cos": lib.cos(x.detach()),
        "match": lib.allclose(x.grad, lib.cos(x.detach())),
    }


@program("d2l-control-flow")
def _(lib, inp):
    def f(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        if b.sum() > 0:
            c = b
        else:
            c = 100 * b
        return c

    lib.manual_seed(0)
    a = lib.randn(size=(), requires_grad=True)
    d = f(a)
    d.backward()
    return {"a": a, "grad": a.grad, "ratio": (a.grad == d / a).item()}


# ----------------------------------------------------------------------------- "Forward-mode Automatic Differentiation"


@program("forward-ad-dual-tensors")
def _(lib, inp):
    """dual_level, make_dual and unpack_dual: the tangent rides along with the value."""
    fwAD = lib.autograd.forward_ad
    lib.manual_seed(0)
    primal = lib.randn(3, 3)
    tangent = lib.randn(3, 3)

    def fn(x, y):
        return x**2 + y**2

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        print(dual_input)
        print(fwAD.unpack_dual(dual_input).tangent is tangent)
        # A tangent laid out differently in memory (a transpose) is copied.
        transposed = tangent.T
        dual_alt = fwAD.make_dual(primal, transposed)
        print(fwAD.unpack_dual(dual_alt).tangent is transposed)
        plain_tensor = lib.randn(3, 3)
        dual_output = fn(dual_input, plain_tensor)
        print(dual_output)
        jvp = fwAD.unpack_dual(dual_output).tangent
        print(fwAD.unpack_dual(dual_output))
        with lib.no_grad():
            print(fwAD.unpack_dual(dual_input.sin().sum()).tangent)
        print(fwAD.unpack_dual(plain_tensor).tangent)
    print(fwAD.unpack_dual(dual_output).tangent)
    return {"jvp": jvp, "expected": 2 * primal * tangent}


@program("forward-ad-module-parameters")
def _(lib, inp):
    """The tangent of a module's output when its parameters move: each parameter is
    swapped for a dual tensor of it."""
    fwAD = lib.autograd.forward_ad
    lib.manual_seed(0)
    model = lib.nn.Linear(5, 3)
    input = lib.randn(4, 5)
    params = dict(model.named_parameters())
    tangents = {name: lib.rand_like(p) for name, p in params.items()}
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        out = model(input)
        jvp = fwAD.unpack_dual(out).tangent
    print(model)
    # PyTorch's tangent also has a grad_fn here (its tangents are differentiable);
    # autogradkit computes tangents outside the graph, so compare the values.
    return {"out": out, "jvp": jvp.detach(), "parameters": len(list(model.parameters()))}


@program("forward-ad-custom-function")
def _(lib, inp):
    """A custom Function with a jvp (forward mode), checked with gradcheck."""
    fwAD = lib.autograd.forward_ad

    class Fn(lib.autograd.Function):  # type: ignore[name-defined]  # lib is a parameter
        @staticmethod
        def forward(ctx, foo):
            result = lib.exp(foo)
            ctx.result = result  # kept for jvp, which frees it
            return result

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.result

        @staticmethod
        def jvp(ctx, grad_input):
            grad_output = grad_input * ctx.result
            del ctx.result
            return grad_output

    class Scale(lib.autograd.Function):  # type: ignore[name-defined]
        @staticmethod
        def forward(x, factor):
            print("forward sees", x)  # the primal: forward mode is off inside
            return x * factor

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, factor = inputs
            ctx.save_for_forward(factor)
            ctx.factor = factor

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.factor, grad_output * 0

        @staticmethod
        def jvp(ctx, x_tangent, factor_tangent):
            (factor,) = ctx.saved_tensors
            print("jvp sees", x_tangent, factor_tangent, factor)
            return x_tangent * factor

    class NoJvp(lib.autograd.Function):  # type: ignore[name-defined]
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2

    lib.manual_seed(0)
    primal = lib.randn(2, 3, dtype=lib.double, requires_grad=True)
    tangent = lib.randn(2, 3)
    with fwAD.dual_level():
        dual_output = Fn.apply(fwAD.make_dual(primal, tangent))
        jvp = fwAD.unpack_dual(dual_output).tangent
        scaled = Scale.apply(fwAD.make_dual(tangent, lib.ones(2, 3)), lib.tensor([1.0, 2.0, 3.0]))
        print(scaled)
        error = attempt(lambda: NoJvp.apply(fwAD.make_dual(tangent, lib.ones(2, 3))))
        untouched = NoJvp.apply(tangent)
    checked = lib.autograd.gradcheck(
        Fn.apply,
        (primal,),
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )
    return {
        "jvp": jvp.detach(),
        "expected": (tangent * primal.exp()).detach(),
        "error": error,
        "untouched": untouched,
        "gradcheck": checked,
    }


@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_material_golden(prog):
    H.check_against_golden(prog)


@pytest.mark.torch
@pytest.mark.parametrize("prog", H.params(PROGRAMS))
def test_material_live(prog):
    H.check_against_live_torch(prog)
