"""Drawing from a normal distribution: ``torch.normal`` and ``Tensor.normal_``.

The numbers are PyTorch's, bit for bit, after the same ``manual_seed`` (see
:meth:`autogradkit.random.Generator.normal`). d2l's synthetic regression data is
``torch.normal(0, 1, (num_examples, len(w)))``; its weights start as
``torch.normal(0, 0.01, size=(2, 1), requires_grad=True)``.

When the mean or the standard deviation is a tensor that requires grad, the
result is recorded, but its gradient is **zero**, as in PyTorch: a sample is not
differentiated through its distribution's parameters (that would take the
reparameterisation ``mean + std · ε`` written out, whose gradient is not zero).

>>> import autogradkit as torch
>>> _ = torch.manual_seed(0)
>>> torch.normal(2.0, 3.0, size=(3,))
tensor([ 6.6230,  1.1197, -4.5364])
"""

from __future__ import annotations

import numbers

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from .arithmetic import broadcast_error

__all__ = ["normal"]


class _Sample(Function):
    """f(μ, σ) = a sample of N(μ, σ²), drawn before the node is made;
    ∂ℓ/∂μ = ∂ℓ/∂σ = 0 (PyTorch's derivative of a sample)"""

    formula = r"f(\mu, \sigma) \sim \mathcal{N}(\mu, \sigma^2) \qquad \frac{\partial \ell}{\partial \mu} = \frac{\partial \ell}{\partial \sigma} = 0"

    @staticmethod
    def forward(ctx, mean, std, sample):
        ctx.shapes = (np.shape(mean), np.shape(std))
        return sample

    @staticmethod
    def backward(ctx, grad_output):
        mean_grad, std_grad = (
            _zeros(grad_output, shape) if needed else None
            for shape, needed in zip(ctx.shapes, ctx.needs_input_grad)
        )
        return mean_grad, std_grad, None

    @staticmethod
    def jvp(ctx, *tangents):
        return np.zeros_like(ctx.result)  # a sample's tangent is zero too (PyTorch's)


class SampleOf(Function):
    """A random sample drawn before the node is made, of a distribution with one
    tensor argument (probabilities, rates, or the tensor it replaces in place):
    f = the sample;   ∂ℓ/∂(argument) = 0, PyTorch's derivative of a sample.
    Subclasses name the node."""

    formula = r"f(x) = \text{a sample} \qquad \frac{\partial \ell}{\partial x} = 0"

    @staticmethod
    def forward(ctx, argument, sample):
        ctx.shape = argument.shape
        return sample

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros(grad_output, ctx.shape), None

    @staticmethod
    def jvp(ctx, *tangents):
        return np.zeros_like(ctx.result)  # a sample's tangent is zero too (PyTorch's)


def _zeros(grad, shape: tuple):
    data = grad._data if isinstance(grad, Tensor) else grad
    return np.zeros(shape, data.dtype)


class NormalTensorFloat(_Sample):
    """``normal(mean_tensor, std_number)``: zero gradient for the mean."""

    node_name = "NormalBackward1"


class NormalFloatTensor(_Sample):
    """``normal(mean_number, std_tensor)``: zero gradient for the standard deviation."""

    node_name = "NormalBackward2"


class NormalTensorTensor(_Sample):
    """``normal(mean_tensor, std_tensor)``: zero gradients for both."""

    node_name = "NormalBackward3"


class NormalInplace(SampleOf):
    """``x.normal_(mean, std)`` recorded: f(x) = a sample that replaces x;
    ∂ℓ/∂x = 0 (the old values do not matter)"""

    node_name = "NormalBackward0"
    formula = r"f(x) \sim \mathcal{N}(\mu, \sigma^2) \qquad \frac{\partial \ell}{\partial x} = 0"


def check_std(std) -> None:
    """PyTorch's refusal of a negative standard deviation."""
    if isinstance(std, Tensor):
        if np.any(std._data < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def check_float(data: np.ndarray) -> None:
    if data.dtype.kind != "f":
        name = {"i": "Long", "b": "Bool"}[data.dtype.kind]
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{name}'")


def _signature_error(args: tuple) -> TypeError:
    got = ", ".join(type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args)
    return TypeError(
        f"normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
        " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
        " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
        " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
        "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
        "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    )


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False, **kwargs):
    """Samples of the normal distribution N(mean, std²).

    * ``normal(mean, std, size)`` with numbers: a new tensor of shape ``size``
      (``dtype`` and ``requires_grad`` as for ``randn``);
    * ``normal(mean, std)`` with a tensor for either or both: one sample per
      element of their broadcast shape.

    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.normal(torch.tensor([0.0, 10.0, 100.0]), 1.0)
    tensor([  1.5410,   9.7066,  97.8212])
    """
    from .. import random
    from .._creation import _check_device, _float_dtype, _leaf, _size

    _check_device(kwargs.pop("device", None))
    if kwargs:
        raise TypeError(f"normal() got an unexpected keyword argument '{next(iter(kwargs))}'")
    gen = generator or random.default_generator
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None or not (_is_number(mean) and _is_number(std)):
            raise _signature_error((mean, std) + (() if size is None else (size,)))
        if isinstance(size, (int, np.integer)):
            raise _signature_error((mean, std, size))
        shape = _size((size,), None, "normal")
        check_std(std)
        data_type = _float_dtype(dtype, "normal")
        if data_type.kind != "f":
            check_float(np.empty(0, data_type))
        return _leaf(gen.normal(shape, float(mean), float(std), data_type), requires_grad)
    if size is not None or dtype is not None or requires_grad:
        raise _signature_error((mean, std, size))
    for value in (mean, std):
        if not isinstance(value, Tensor) and not _is_number(value):
            raise _signature_error((mean, std))
    return _normal_of_tensors(gen, mean, std)


def _normal_of_tensors(gen, mean, std) -> Tensor:
    """PyTorch's normal with tensor parameters: standard samples of the broadcast
    shape, then ``· std`` and ``+ mean`` (separately rounded; ``normal(0, std)``
    scaled in the kernel when std is a number)."""
    mean_data = mean._data if isinstance(mean, Tensor) else None
    std_data = std._data if isinstance(std, Tensor) else None
    data_type = mean._data.dtype if isinstance(mean, Tensor) else std._data.dtype
    check_float(np.empty(0, data_type))
    check_std(std)
    mean_shape = () if mean_data is None else mean_data.shape
    std_shape = () if std_data is None else std_data.shape
    try:
        shape = np.broadcast_shapes(mean_shape, std_shape)
    except ValueError:
        raise broadcast_error(np.empty(mean_shape), np.empty(std_shape)) from None
    if std_data is None:  # normal(mean_tensor, std): N(0, std²) drawn, mean added
        sample = gen.normal(shape, 0.0, float(std), data_type) + mean_data
        return NormalTensorFloat.apply(mean, float(std), sample)
    standard = gen.normal(shape, 0.0, 1.0, data_type)
    # (In-place mul_ and add_ compute in the promoted dtype, then round to the output's.)
    sample = (standard * std_data).astype(data_type)
    if mean_data is None:
        sample = (sample + np.asarray(mean, np.float64)).astype(data_type)
        return NormalFloatTensor.apply(float(mean), std, sample)
    sample = (sample + mean_data).astype(data_type)
    return NormalTensorTensor.apply(mean, std, sample)
