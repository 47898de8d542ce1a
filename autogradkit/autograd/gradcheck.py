"""Check analytic gradients against finite differences (mirrors
``torch/autograd/gradcheck.py``).

For every input element xⱼ the numerical derivative of every output element is
the central difference (f(x + ε·eⱼ) − f(x − ε·eⱼ)) / 2ε; the analytic one comes
from backward passes, one per output element. Both fill a Jacobian; they must agree
within ``atol + rtol·|numerical|``. Use float64 inputs: float32 rounding swamps the
differences. ``check_forward_ad=True`` also fills the Jacobian by forward mode,
one column per input element (the tangent of the outputs along eⱼ).

>>> import autogradkit as torch
>>> x = torch.randn(3, dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(lambda t: t.exp() * t, (x,))
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when analytic and numerical gradients differ."""


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    out = func(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def _numerical_jacobian(func, inputs, index: int, eps: float) -> list[np.ndarray]:
    x = inputs[index]
    data = x._data
    outputs = _outputs(func, inputs)
    columns = [np.zeros((o.numel(), data.size)) for o in outputs]
    # Perturb a private, writable, C-ordered copy. ``reshape(-1)`` of a transposed
    # or broadcast (read-only) array is a copy, so perturbing it in place would
    # never reach ``func``: the numerical Jacobian would silently be zero.
    work = np.array(data, order="C", copy=True)
    flat = work.reshape(-1)
    x._data = work
    try:
        for j in range(data.size):
            original = flat[j].copy()
            # Perturb the array directly: this is not an operation autograd should see.
            flat[j] = original + eps
            plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
            flat[j] = original - eps
            minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _outputs(func, inputs)]
            flat[j] = original
            for k, (p, m) in enumerate(zip(plus, minus)):
                columns[k][:, j] = (p - m) / (2 * eps)
    finally:
        x._data = data
    return columns


def _analytic_jacobian(func, inputs, index: int) -> list[np.ndarray]:
    from . import grad

    x = inputs[index]
    outputs = _outputs(func, inputs)
    result = []
    for out in outputs:
        jac = np.zeros((out.numel(), x.numel()))
        if out.requires_grad:
            flat = out.reshape(-1)
            for i in range(out.numel()):
                (g,) = grad(flat[i], x, retain_graph=True, allow_unused=True)
                if g is not None:
                    jac[i] = g._data.reshape(-1)
        result.append(jac)
    return result


def _forward_jacobian(func, inputs, index: int) -> list[np.ndarray]:
    """The Jacobian of every output with respect to ``inputs[index]`` by forward
    mode: column j is the outputs' tangent when input ``index`` moves along eⱼ."""
    from . import forward_ad

    x = inputs[index]
    columns: list[np.ndarray] | None = None
    for j in range(x.numel()):
        direction = np.zeros(x._data.size, dtype=x._data.dtype)
        direction[j] = 1
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x, Tensor._make(direction.reshape(x._data.shape)))
            outputs = _outputs(func, inputs[:index] + (dual,) + inputs[index + 1 :])
            if columns is None:
                columns = [np.zeros((o.numel(), x.numel())) for o in outputs]
            for k, out in enumerate(outputs):
                tangent = forward_ad.unpack_dual(out).tangent
                if tangent is not None:
                    columns[k][:, j] = tangent._data.reshape(-1)
    if columns is None:  # an empty input: no columns to fill
        columns = [np.zeros((o.numel(), 0)) for o in _outputs(func, inputs)]
    return columns


def _checked_inputs(inputs: tuple) -> list[int]:
    """The positions of the inputs that require grad (at least one, as in PyTorch,
    which warns for those that are not float64)."""
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    for i in checked:
        if inputs[i].dtype.name != "float64":
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                UserWarning,
                stacklevel=3,
            )
    return checked


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    **ignored,
) -> bool:
    """Return True when ``func``'s backward agrees with finite differences at
    ``inputs`` (a tensor or a tuple of tensors; those with ``requires_grad=True``
    are checked).

    With ``check_forward_ad=True`` the Jacobian computed by forward mode (one
    tangent per input element, :mod:`.forward_ad`) is checked as well;
    ``check_backward_ad=False`` skips the backward one.

    Raises
    ------
    GradcheckError
        With the two Jacobians, when they differ and ``raise_exception`` is True.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = _checked_inputs(inputs)
    methods = []
    if check_backward_ad:
        methods.append(("", _analytic_jacobian))
    if check_forward_ad:
        methods.append(("computed with forward mode ", _forward_jacobian))
    for i in checked:
        numerical = _numerical_jacobian(func, inputs, i, eps)
        for mode, jacobian in methods:
            for k, (n, a) in enumerate(zip(numerical, jacobian(func, inputs, i))):
                if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"Jacobian {mode}mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{n}\nanalytical:{a}\n"
                    )
    return True


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **ignored,
) -> bool:
    """Check second derivatives: gradcheck of the function that maps the inputs
    (and the output gradients) to the first derivatives computed with
    ``create_graph=True``."""
    from .. import randn_like
    from . import grad

    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o, dtype=o.dtype).requires_grad_(True) for o in outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,)
    n_inputs = len(inputs)
    differentiable = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]

    def first_derivatives(*args):
        xs, gos = args[:n_inputs], args[n_inputs:]
        outs = _outputs(func, xs)
        diff = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        grads = grad(outs, diff, gos, create_graph=True, allow_unused=True)
        from .. import zeros_like

        return tuple(zeros_like(x) if g is None else g for x, g in zip(diff, grads))

    del differentiable
    return gradcheck(
        first_derivatives,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
