"""Random draws beyond the normal distribution: ``bernoulli`` (and
``Tensor.bernoulli_``), ``multinomial`` and ``randint_like``, with the numbers
PyTorch's CPU generator gives after the same ``manual_seed``.

How PyTorch draws them (``aten/src/ATen/native/cpu/DistributionTemplates.h``,
``native/Distributions.cpp``), and so how they are drawn here:

* ``bernoulli(p)`` with a tensor of probabilities: one uniform of p's dtype per
  element, in order, and 1 where u < p. ``x.bernoulli_(p)`` with a number:
  float64 uniforms, whatever x's dtype.
* ``multinomial`` with replacement: per row, one float64 uniform per sample,
  looked up in the row's cumulative distribution (the first category whose
  cumulative probability is not below it).
* ``poisson(rates)``: PyTorch's ``sample_poisson`` element by element, from
  float64 uniforms: multiplying uniforms until the product falls below e^−λ for
  λ < 10, Hörmann's transformed rejection for λ ≥ 10.
* ``multinomial`` without replacement (or one sample): the exponential trick,
  q ~ Exp(1) as −log(1 − u) from float64 uniforms, and the categories with the
  largest p / q (``argmax`` for one sample, ``topk`` for more).

A sample is recorded when its probabilities require grad, with PyTorch's
derivative: zero (``BernoulliBackward0``).

>>> import autogradkit as torch
>>> _ = torch.manual_seed(0)
>>> torch.bernoulli(torch.tensor([0.1, 0.5, 0.9]))
tensor([0., 0., 1.])
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import scalar_type_name
from ..autograd.function import Function
from ..tensor import Tensor
from .counting import _no_derivative, _NotImplemented
from .sampling import SampleOf, _zeros

__all__ = ["bernoulli", "multinomial", "randint_like", "poisson"]


class Bernoulli(SampleOf):
    """f(p) = a sample of Bernoulli(p), 1 with probability p, drawn before the node
    is made;   ∂ℓ/∂p = 0 (PyTorch's derivative of a sample)"""

    node_name = "BernoulliBackward0"
    formula = r"f(p) \sim \operatorname{Bernoulli}(p) \qquad \frac{\partial \ell}{\partial p} = 0"


class BernoulliInplace(SampleOf):
    """``x.bernoulli_(p)`` with a number p, recorded: f(x) = a sample that replaces
    x;   ∂ℓ/∂x = 0 (the old values do not matter)"""

    node_name = "BernoulliBackward2"
    formula = r"f(x) \sim \operatorname{Bernoulli}(p) \qquad \frac{\partial \ell}{\partial x} = 0"


class BernoulliInplaceTensor(Function):
    """``x.bernoulli_(p)`` with a tensor p, recorded: f(x, p) = a sample of
    Bernoulli(p) that replaces x;   ∂ℓ/∂x = ∂ℓ/∂p = 0"""

    node_name = "BernoulliBackward1"
    formula = r"f(x, p) \sim \operatorname{Bernoulli}(p) \qquad \frac{\partial \ell}{\partial x} = \frac{\partial \ell}{\partial p} = 0"

    @staticmethod
    def forward(ctx, x, p, sample):
        ctx.shapes = (x.shape, np.shape(p))
        return sample

    @staticmethod
    def backward(ctx, grad_output):
        return _zeros(grad_output, ctx.shapes[0]), _zeros(grad_output, ctx.shapes[1]), None

    @staticmethod
    def jvp(ctx, *tangents):
        return np.zeros_like(ctx.result)


def _generator(generator):
    from .. import random

    return generator or random.default_generator


def _check_probabilities(data: np.ndarray) -> None:
    if data.size and not ((data >= 0) & (data <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )


def draw_bernoulli(generator, p: np.ndarray, shape: tuple, dtype) -> np.ndarray:
    """1 where a uniform of p's dtype falls below p (p broadcast to ``shape``)."""
    p = np.broadcast_to(p, shape)
    uniform = _generator(generator)._uniform(int(np.prod(shape)), p.dtype).reshape(shape)
    return (uniform < p).astype(dtype)


def draw_bernoulli_number(generator, p: float, shape: tuple, dtype) -> np.ndarray:
    """1 where a float64 uniform falls below the number p."""
    uniform = _generator(generator)._uniform(int(np.prod(shape)), np.float64).reshape(shape)
    return (uniform < p).astype(dtype)


def bernoulli(input: Tensor, p: float | None = None, *, generator=None) -> Tensor:
    """A sample of 0s and 1s: 1 with probability ``input`` (element by element),
    or with the number ``p`` when given; the result has ``input``'s shape and dtype.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.bernoulli(torch.full((2, 3), 0.5))
    tensor([[1., 0., 1.],
            [1., 1., 0.]])
    """
    data = input._data
    if p is not None:
        _check_number_p(p)
        sample = draw_bernoulli_number(generator, float(p), data.shape, data.dtype)
        if input.requires_grad:
            return _no_derivative(_NotImplemented, input, sample, "bernoulli")
        return Tensor._make(sample)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_type_name(data.dtype)}'"
        )
    _check_probabilities(data)
    sample = draw_bernoulli(generator, data, data.shape, data.dtype)
    if input.requires_grad:
        return Bernoulli.apply(input, sample)
    return Tensor._make(sample)


def _check_number_p(p) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator=None
) -> Tensor:
    """``num_samples`` category indices per row of ``input`` (non-negative weights,
    not necessarily summing to 1), drawn with or without replacement (without:
    each category at most once). int64, shape (num_samples,) or (rows,
    num_samples).

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 5, replacement=True)
    tensor([2, 2, 1, 2, 2])
    """
    data = input._data
    _check_multinomial(input, num_samples, replacement)
    rows = data.reshape(-1, data.shape[-1])
    gen = _generator(generator)
    if not replacement or num_samples == 1:
        return _without_replacement(input, rows, num_samples, gen)
    picked = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        cumulative = np.cumsum(row.astype(np.float64))
        cumulative /= cumulative[-1]
        cumulative[-1] = 1.0  # PyTorch's: the last category ends at exactly 1
        uniform = gen._uniform(num_samples, np.float64)
        picked[i] = np.searchsorted(cumulative, uniform, side="left")
    return Tensor._make(picked.reshape(data.shape[:-1] + (num_samples,)))


def _without_replacement(input: Tensor, rows: np.ndarray, num_samples: int, gen) -> Tensor:
    # The exponential trick: the categories with the largest p / q, q ~ Exp(1).
    from .ordering import topk

    uniform = gen._uniform(rows.size, np.float64).reshape(rows.shape)
    q = (-np.log1p(-uniform)).astype(rows.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = rows / q
    shape = input._data.shape[:-1] + (num_samples,)
    if num_samples == 1:
        return Tensor._make(np.argmax(ratio, axis=-1).reshape(shape).astype(np.int64))
    indices = topk(Tensor._make(ratio), num_samples).indices
    return Tensor._make(indices._data.reshape(shape))


def _check_multinomial(input: Tensor, num_samples: int, replacement: bool) -> None:
    data = input._data
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{scalar_type_name(data.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    categories = data.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if not np.isfinite(data).all() or (data < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if data.size == 0 or (data.reshape(-1, categories).sum(axis=-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    dtype=None,
    generator=None,
    requires_grad: bool = False,
) -> Tensor:
    """Random integers in ``[low, high)`` with ``input``'s shape and (unless
    ``dtype`` says otherwise) dtype: ``randint_like(x, 10)`` or
    ``randint_like(x, 3, 10)``. The numbers are ``randint``'s.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randint_like(torch.zeros(4), 10)
    tensor([4., 9., 3., 0.])
    """
    if high is None:
        low, high = 0, low
    values = _generator(generator).randint(low, high, input._data.shape)
    kind = input._data.dtype if dtype is None else dtype.numpy
    out = Tensor._make(values.astype(kind))
    if requires_grad:
        out.requires_grad_(True)
    return out


class Poisson(SampleOf):
    """f(λ) = a sample of Poisson(λ), drawn before the node is made;
    ∂ℓ/∂λ = 0 (PyTorch's derivative of a sample)"""

    node_name = "PoissonBackward0"
    formula = r"f(\lambda) \sim \operatorname{Poisson}(\lambda) \qquad \frac{\partial \ell}{\partial \lambda} = 0"


def _sample_poisson(rate: float, uniform) -> int:
    """PyTorch's ``sample_poisson`` (``aten/src/ATen/native/Distributions.cpp``),
    step for step; ``uniform()`` is the next float64 uniform."""
    if rate >= 10:
        # Transformed rejection (Hörmann, 1993).
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                -rate + k * loglam - math.lgamma(k + 1.0)
            ):
                return k
    if rate == 0:
        return 0
    # Multiply uniforms until the product falls below e^-rate.
    floor, count, product = math.exp(-rate), 0, 1.0
    while True:
        product *= uniform()
        if product > floor:
            count += 1
        else:
            return count


def poisson(input: Tensor, generator=None) -> Tensor:
    """A sample of Poisson(λ) for each rate λ in ``input`` (a float tensor; the
    counts come back in its dtype). Recorded with a zero gradient
    (PoissonBackward0) when the rates require grad.

    Examples
    --------
    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.poisson(torch.tensor([0.5, 3.0, 12.0]))
    tensor([ 2.,  4., 13.])
    """
    data = input._data
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{scalar_type_name(data.dtype)}'"
        )
    if data.size and not (data >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = _generator(generator)

    def uniform() -> float:
        return float(gen._uniform(1, np.float64)[0])

    counts = [_sample_poisson(float(rate), uniform) for rate in data.reshape(-1).tolist()]
    sample = np.array(counts, dtype=data.dtype).reshape(data.shape)
    if input.requires_grad:
        return Poisson.apply(input, sample)
    return Tensor._make(sample)
