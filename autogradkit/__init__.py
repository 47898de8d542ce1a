"""autogradkit: a small, readable NumPy implementation of PyTorch's autograd.

``import autogradkit as torch`` runs the code of PyTorch's autograd tutorial
unchanged and prints what PyTorch prints. Where to read:

* :mod:`autogradkit.tensor` — the ``Tensor`` class;
* :mod:`autogradkit.autograd.function` — ``Function`` and the graph's ``Node``;
* :mod:`autogradkit.autograd.engine` — the backward pass, one node at a time;
* :mod:`autogradkit.ops` — every operation with its derivative;
* :mod:`autogradkit.nn.functional` — losses such as
  ``binary_cross_entropy_with_logits``.

The core needs only NumPy. Visual tools (graph drawings, widgets, plots) load on
first use.
"""

from __future__ import annotations

import builtins as _builtins

from . import autograd, linalg, return_types
from ._creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from ._device import cuda, device, get_default_device, set_default_device
from ._dtype import bool, double, dtype, float, float32, float64, int64, long
from ._dtype_queries import (
    can_cast,
    get_rng_state,
    promote_types,
    result_type,
    set_default_dtype,
    set_rng_state,
)
from ._legacy import DoubleTensor, FloatTensor, LongTensor
from ._tensor_str import get_printoptions, set_printoptions
from ._tracebacks import install as _install_short_tracebacks
from ._warn_once import is_warn_always_enabled, set_warn_always
from .autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .ops.accumulate import cummax, cummin, cumprod, cumsum, logcumsumexp, norm, prod
from .ops.arithmetic import (
    add,
    div,
    floor_divide,
    fmod,
    mul,
    neg,
    pow,
    reciprocal,
    remainder,
    rsub,
    sub,
)
from .ops.binary_more import (
    copysign,
    float_power,
    fmax,
    fmin,
    heaviside,
    logaddexp,
    logaddexp2,
)
from .ops.bitwise import bitwise_and, bitwise_not, bitwise_or, bitwise_xor
from .ops.comparison import (
    eq,
    ge,
    greater,
    greater_equal,
    gt,
    le,
    less,
    less_equal,
    lt,
    ne,
    not_equal,
)
from .ops.counting import (
    bincount,
    bucketize,
    cartesian_prod,
    combinations,
    searchsorted,
    unique,
    unique_consecutive,
)
from .ops.distance import cdist
from .ops.drawing import bernoulli, multinomial, poisson, randint_like
from .ops.einsum import einsum
from .ops.elementary import (
    acos,
    asin,
    atan,
    ceil,
    cos,
    cosh,
    exp2,
    expm1,
    floor,
    frac,
    log1p,
    log2,
    log10,
    nan_to_num,
    round,
    rsqrt,
    sign,
    sin,
    sinh,
    square,
    tan,
    trunc,
)
from .ops.elementary_more import (
    acosh,
    asinh,
    atanh,
    deg2rad,
    erfc,
    logit,
    positive,
    rad2deg,
    sgn,
    sinc,
)
from .ops.gamma import digamma, lgamma, polygamma
from .ops.indexing import (
    index_add,
    index_copy,
    masked_select,
    repeat_interleave,
    rot90,
    take,
    take_along_dim,
    tile,
)
from .ops.linalg import addmm, bmm, dot, kron, matmul, mm, mv, outer
from .ops.ordering import (
    argsort,
    kthvalue,
    median,
    mode,
    nanmedian,
    nanquantile,
    quantile,
    sort,
    topk,
)
from .ops.pointwise import (
    abs,
    absolute,
    clamp,
    clamp_max,
    clamp_min,
    exp,
    log,
    maximum,
    minimum,
    relu,
    sigmoid,
    sqrt,
    tanh,
)
from .ops.predicates import (
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isreal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    signbit,
)
from .ops.products import (
    addbmm,
    addmv,
    addr,
    baddbmm,
    chain_matmul,
    cross,
    inner,
    tensordot,
    vdot,
)
from .ops.pseudo_inverse import pinverse
from .ops.rearrange import diag, diag_embed, diagonal, flip, index_select, roll, trace, tril, triu
from .ops.reduction import allclose, argmax, max, mean, min, sum
from .ops.reshaping import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    column_stack,
    diff,
    dsplit,
    dstack,
    fliplr,
    flipud,
    hsplit,
    hstack,
    meshgrid,
    movedim,
    ravel,
    row_stack,
    swapaxes,
    tensor_split,
    tril_indices,
    triu_indices,
    unflatten,
    vsplit,
    vstack,
)
from .ops.sampling import normal
from .ops.select import (
    all,
    any,
    argmin,
    argwhere,
    equal,
    gather,
    masked_fill,
    nonzero,
    scatter,
    scatter_add,
    where,
)
from .ops.shape import (
    cat,
    clone,
    flatten,
    index_put,
    narrow,
    permute,
    reshape,
    select,
    squeeze,
    stack,
    t,
    transpose,
    unsqueeze,
)
from .ops.softmax import log_softmax, logsumexp, softmax
from .ops.special import addcdiv, addcmul, atan2, erf, erfinv, hypot, isclose, lerp, xlogy
from .ops.split import chunk, split, unbind
from .ops.square_matrices import det, inverse, logdet, matrix_power, slogdet
from .ops.statistics import amax, amin, std, std_mean, var, var_mean
from .ops.summaries import aminmax, count_nonzero, nanmean, nansum
from .ops.trapezoid import trapezoid, trapz
from .tensor import Size, Tensor

__version__ = "0.1.0"

__all__ = [
    "nan_to_num",
    "pinverse",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "trapz",
    "trapezoid",
    "tensordot",
    "inner",
    "vdot",
    "cross",
    "chain_matmul",
    "baddbmm",
    "addr",
    "addmv",
    "addbmm",
    "bernoulli",
    "poisson",
    "can_cast",
    "get_rng_state",
    "multinomial",
    "promote_types",
    "randint_like",
    "result_type",
    "set_default_dtype",
    "set_rng_state",
    "bincount",
    "bucketize",
    "cartesian_prod",
    "combinations",
    "searchsorted",
    "unique",
    "unique_consecutive",
    "index_add",
    "index_copy",
    "masked_select",
    "repeat_interleave",
    "rot90",
    "take",
    "take_along_dim",
    "tile",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "column_stack",
    "concatenate",
    "diff",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "meshgrid",
    "moveaxis",
    "movedim",
    "narrow",
    "ravel",
    "row_stack",
    "select",
    "swapaxes",
    "swapdims",
    "tensor_split",
    "tril_indices",
    "triu_indices",
    "unflatten",
    "vsplit",
    "vstack",
    "save",
    "load",
    "eq",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "le",
    "less",
    "less_equal",
    "lt",
    "ne",
    "not_equal",
    "abs",
    "absolute",
    "acos",
    "add",
    "addmm",
    "addcdiv",
    "addcmul",
    "all",
    "allclose",
    "amax",
    "amin",
    "any",
    "arange",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "argmax",
    "argmin",
    "argwhere",
    "argsort",
    "as_tensor",
    "asin",
    "atan",
    "atan2",
    "autograd",
    "bool",
    "cat",
    "cdist",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "concat",
    "cos",
    "cosh",
    "cuda",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "det",
    "device",
    "diag",
    "diag_embed",
    "diagonal",
    "div",
    "divide",
    "dot",
    "double",
    "DoubleTensor",
    "dtype",
    "einsum",
    "empty",
    "empty_like",
    "enable_grad",
    "equal",
    "erf",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "flatten",
    "flip",
    "float",
    "float32",
    "float64",
    "FloatTensor",
    "floor",
    "frac",
    "from_numpy",
    "full",
    "full_like",
    "gather",
    "hypot",
    "get_default_device",
    "get_default_dtype",
    "get_printoptions",
    "index_put",
    "index_select",
    "inverse",
    "initial_seed",
    "int64",
    "is_floating_point",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
    "is_warn_always_enabled",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "isclose",
    "set_anomaly_enabled",
    "is_tensor",
    "kron",
    "kthvalue",
    "linalg",
    "linspace",
    "lerp",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logcumsumexp",
    "logdet",
    "logspace",
    "logsumexp",
    "long",
    "LongTensor",
    "manual_seed",
    "masked_fill",
    "matmul",
    "matrix_power",
    "max",
    "maximum",
    "minimum",
    "remainder",
    "fmod",
    "floor_divide",
    "return_types",
    "mean",
    "median",
    "mode",
    "min",
    "mm",
    "bmm",
    "mul",
    "multiply",
    "nanmedian",
    "nanquantile",
    "mv",
    "neg",
    "negative",
    "nn",
    "no_grad",
    "nonzero",
    "norm",
    "normal",
    "numel",
    "ones",
    "ones_like",
    "optim",
    "outer",
    "permute",
    "pow",
    "prod",
    "quantile",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "reciprocal",
    "relu",
    "reshape",
    "round",
    "roll",
    "rsqrt",
    "rsub",
    "scatter",
    "scatter_add",
    "seed",
    "set_default_device",
    "set_grad_enabled",
    "set_printoptions",
    "set_warn_always",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "slogdet",
    "sort",
    "Size",
    "softmax",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "std_mean",
    "split",
    "chunk",
    "unbind",
    "sub",
    "subtract",
    "sum",
    "t",
    "tan",
    "tanh",
    "topk",
    "Tensor",
    "tensor",
    "trace",
    "transpose",
    "tril",
    "triu",
    "true_divide",
    "trunc",
    "unsqueeze",
    "var",
    "var_mean",
    "where",
    "xlogy",
    "zeros",
    "zeros_like",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "signbit",
    "aminmax",
    "count_nonzero",
    "nanmean",
    "nansum",
    "acosh",
    "asinh",
    "atanh",
    "arccosh",
    "arcsinh",
    "arctanh",
    "deg2rad",
    "erfc",
    "logit",
    "positive",
    "rad2deg",
    "sgn",
    "sinc",
    "fix",
    "copysign",
    "float_power",
    "fmax",
    "fmin",
    "heaviside",
    "logaddexp",
    "logaddexp2",
    "digamma",
    "lgamma",
    "polygamma",
]

clip = clamp
concat = cat
concatenate = cat
moveaxis = movedim
swapdims = swapaxes
multiply = mul
subtract = sub
divide = div
true_divide = div
negative = neg
arcsin = asin
arccos = acos
arctan = atan
arctan2 = atan2
arcsinh = asinh
arccosh = acosh
arctanh = atanh
fix = trunc


def is_tensor(obj) -> _builtins.bool:
    """True if ``obj`` is an autogradkit tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """Number of elements of ``input``."""
    return input.numel()


def get_default_dtype() -> dtype:
    """The dtype Python floats and float factories give: float32 unless
    :func:`set_default_dtype` changed it."""
    from ._dtype import default_float

    return default_float()


def is_floating_point(input: Tensor) -> _builtins.bool:
    return input.is_floating_point()


def manual_seed(seed: int):
    """Seed the default random generator: afterwards ``rand``/``randn`` give the same
    numbers PyTorch gives after ``torch.manual_seed(seed)``. Returns the generator."""
    from . import random

    return random.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; return the seed."""
    from . import random

    return random.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    from . import random

    return random.initial_seed()


def save(obj: object, f, *args, **kwargs) -> None:
    """Save ``obj`` (tensors, a ``state_dict()``, containers) to the path or binary
    file ``f``; see :mod:`autogradkit.serialization`."""
    from . import serialization

    serialization.save(obj, f, *args, **kwargs)


def load(f, *args, **kwargs):
    """Load what :func:`save` wrote to ``f``; see :mod:`autogradkit.serialization`."""
    from . import serialization

    return serialization.load(f, *args, **kwargs)


def __getattr__(name: str):
    # nn, optim, the generator and the visual tools load on first use
    # (`torch.nn.Linear` works as in PyTorch), keeping `import autogradkit` fast
    # (matplotlib and ipywidgets are heavy; nn and optim are a third of the kit).
    if name == "Generator":  # torch.Generator().manual_seed(42), for generator=...
        from .random import Generator

        return Generator
    if name in ("nn", "optim", "viz", "widgets", "random", "serialization"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'autogradkit' has no attribute {name!r}")


# In Jupyter, errors raised inside autogradkit show the learner's lines, not ours.
_install_short_tracebacks()
