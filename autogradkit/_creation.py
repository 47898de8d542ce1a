"""Functions that make tensors: ``tensor``, ``ones``, ``zeros``, ``rand``,
``randn``, ``eye``, ``arange``, ``full``, the ``*_like`` family and
``from_numpy``. They follow PyTorch's defaults: Python floats become the default
dtype (float32 unless ``set_default_dtype`` changed it), Python ints int64, and
``requires_grad`` is only allowed for float dtypes.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from . import _dtype, _ranges
from ._dtype import dtype as DType
from .tensor import Tensor

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "ones",
    "zeros",
    "empty",
    "full",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "ones_like",
    "zeros_like",
    "full_like",
    "rand_like",
    "randn_like",
    "empty_like",
]


# What a factory function says when asked for an integer tensor that requires grad
# (Tensor.requires_grad_ words it differently, as PyTorch does).
FACTORY_FLOAT_ONLY_MESSAGE = (
    "Only Tensors of floating point and complex dtype can require gradients"
)

# Python's own types are accepted as dtypes, as in PyTorch: float means float64.
_PYTHON_TYPES = {float: _dtype.float64, int: _dtype.int64, bool: _dtype.bool}


@overload
def _check_dtype(dtype: None, who: str = "tensor") -> None: ...
@overload
def _check_dtype(dtype: DType | type, who: str = "tensor") -> DType: ...
def _check_dtype(dtype, who: str = "tensor") -> DType | None:
    """``dtype`` as an autogradkit dtype (``None`` stays ``None``: the caller's default)."""
    if dtype is None or isinstance(dtype, DType):
        return dtype
    if dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    raise TypeError(
        f"{who}(): argument 'dtype' must be autogradkit.dtype, not {type(dtype).__name__}"
    )


def _plain_nested(data: Any) -> Any:
    """``data`` with every ``range`` as a list and every tensor inside a sequence as
    the one number it holds (a NumPy scalar of its dtype), as PyTorch reads them:
    ``tensor([ones(1), ones(1)])`` has shape ``[2]``."""
    if isinstance(data, (list, tuple, range)):
        return [_plain_nested(item) for item in data]
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(())[()]
    return data


def _float_default(data: Any) -> type:
    """float64 when a float64 NumPy value or tensor is among ``data``'s elements
    (PyTorch keeps their dtype), else the default dtype (float32 unless changed)."""
    if isinstance(data, list):
        if any(_float_default(x) is np.float64 for x in data):
            return np.float64
        return _dtype.default_float().numpy.type
    if isinstance(data, (np.ndarray, np.generic)) and data.dtype == np.float64:
        return np.float64
    return _dtype.default_float().numpy.type


def _leaf(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError(FACTORY_FLOAT_ONLY_MESSAGE)
        t._requires_grad = True
    return t


_KIND_OF_DTYPE = {"b": 0, "i": 1, "u": 1, "f": 2}


def _infer_nested(data: Any) -> tuple[tuple[int, ...], int]:
    """Shape of nested lists and the 'widest' scalar kind in them (0 bool, 1 int,
    2 float), with PyTorch's errors for odd input. Like PyTorch: the shape comes
    from the first element at each depth, the dtype from every element, and only
    then is each element checked against the shape."""
    shape = _first_shape(data)
    kind = _scan_kind(data)
    _check_shape(data, shape, kind, 0)
    return shape, (2 if kind < 0 else kind)


def _first_shape(data: Any) -> tuple[int, ...]:
    shape = []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
        if isinstance(data, str):
            raise ValueError("too many dimensions 'str'")
    if isinstance(data, (Tensor, np.ndarray)):
        shape.extend(data.shape)
    return tuple(shape)


def _scan_kind(data: Any) -> int:
    """The widest kind of any element (-1 for no elements at all)."""
    if isinstance(data, Tensor):
        return _KIND_OF_DTYPE[data._data.dtype.kind]
    if isinstance(data, np.ndarray):
        kind = _KIND_OF_DTYPE.get(data.dtype.kind)
        if kind is None:
            raise TypeError(
                f"can't convert np.ndarray of type {data.dtype} to a tensor; "
                "use float, int or bool arrays"
            )
        return kind
    if isinstance(data, (bool, np.bool_)):
        return 0
    if isinstance(data, numbers.Integral):
        return 1
    if isinstance(data, numbers.Real):
        return 2
    if isinstance(data, (list, tuple)):
        return max((_scan_kind(item) for item in data), default=-1)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _check_shape(data: Any, shape: tuple, kind: int, dim: int) -> None:
    if isinstance(data, (list, tuple)):
        if dim >= len(shape):  # a sequence where a number was expected
            name = type(data).__name__
            raise TypeError(
                f"'{name}' object cannot be interpreted as an integer"
                if kind < 2
                else f"must be real number, not {name}"
            )
        if len(data) != shape[dim]:
            raise ValueError(
                f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})"
            )
        for item in data:
            _check_shape(item, shape, kind, dim + 1)
    elif isinstance(data, (Tensor, np.ndarray)):
        if tuple(data.shape) != tuple(shape[dim:]):
            got = data.shape[0] if data.ndim else 0
            raise ValueError(
                f"expected sequence of length {shape[dim] if dim < len(shape) else 0} "
                f"at dim {dim} (got {got})"
            )
    elif dim < len(shape):  # a number where a sequence was expected
        raise TypeError("not a sequence")


def tensor(
    data: Any, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, a NumPy
    array or another tensor).

    >>> import autogradkit as torch
    >>> torch.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> torch.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    dtype = _check_dtype(dtype, "tensor")
    _check_device(device)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, Tensor):
        # PyTorch's nudge, every time: tensor(t) copies t's values but not its
        # history, which the spelled-out form says.
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        array = data._data.copy()
    elif isinstance(data, np.ndarray):
        _infer_nested(data)
        array = np.array(data, copy=True)
        if array.dtype.kind == "u" or array.dtype == np.int32:
            array = array.astype(np.int64)
        elif array.dtype == np.float16:
            array = array.astype(np.float32)
    elif isinstance(data, np.generic):
        array = np.array(data)
    else:
        data = _plain_nested(data)
        shape, kind = _infer_nested(data)
        default = (np.bool_, np.int64, _float_default(data))[kind]
        try:
            array = np.array(data, dtype=default if dtype is None else dtype.numpy)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
        array = array.reshape(shape)
    if dtype is not None and array.dtype != dtype.numpy:
        array = array.astype(dtype.numpy)
    else:
        _dtype.from_numpy_dtype(array.dtype)  # unsupported dtypes fail clearly here
    return _leaf(array, requires_grad)


def as_tensor(data: Any, dtype: DType | None = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a NumPy array of a supported dtype."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.numpy):
        _dtype.from_numpy_dtype(data.dtype)
        return Tensor._make(data.view())  # its own array object: see from_numpy
    return tensor(data, dtype=dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor that shares memory with ``array``: changing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    # A view of the array, not the array object itself: two tensors made from one
    # array must not share an array object, by which an operation tells which
    # operand a saved array came from (as detach() does).
    return Tensor._make(array.view())


def _check_device(device) -> None:
    from ._device import check_device

    check_device(device)


def _no_size_error(who: str) -> TypeError:
    """PyTorch's error for a factory function called without a size."""
    if who not in ("rand", "randn"):
        return TypeError(f'{who}() missing 1 required positional arguments: "size"')
    signature = (
        "(tuple of ints size, *, {}Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)"
    )
    return TypeError(
        f"{who}() received an invalid combination of arguments - got (), but expected one of:\n"
        f" * {signature.format('torch.Generator generator, ')}\n"
        f" * {signature.format('')}\n"
    )


def _size(size: Sequence, kw_size, who: str = "tensor") -> tuple[int, ...]:  # noqa: C901 - to be split in the readable-core work (issue 10)
    """The shape from ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(size=(2, 3))``,
    with PyTorch's errors."""
    if kw_size is not None:
        if size:
            raise TypeError(f"{who}() got multiple values for argument 'size'")
        size = (kw_size,)
    if not size:  # ones() is no 0-d tensor: that is ones(()) (or ones([]))
        raise _no_size_error(who)
    if isinstance(size[0], (tuple, list)):
        if len(size) > 1:
            raise TypeError(f"{who}() takes 1 positional argument but {len(size)} were given")
        size = tuple(size[0])
    for i, n in enumerate(size):
        if not isinstance(n, (int, np.integer)):
            if len(size) == 1:
                raise TypeError(
                    f"{who}(): argument 'size' (position 1) must be tuple of ints, "
                    f"not {type(n).__name__}"
                )
            raise TypeError(
                f"{who}(): argument 'size' failed to unpack the object at pos {i + 1} "
                f'with error "type must be tuple of ints,but got {type(n).__name__}"'
            )
    for n in size:
        if n < 0:
            if who == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    shape = tuple(int(n) for n in size)
    if math.prod(shape) >= 2**62:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return shape


def _float_dtype(dtype: DType | None, who: str) -> np.dtype:
    dtype = _check_dtype(dtype, who) or _dtype.default_float()
    return dtype.numpy


def ones(*size, dtype: DType | None = None, requires_grad: bool = False, **kwargs) -> Tensor:
    """A tensor of ones: ``ones(5)``, ``ones(2, 3)`` or ``ones((2, 3))``."""
    shape = _size(size, kwargs.pop("size", None), "ones")
    _check_device(kwargs.pop("device", None))
    _no_extra(kwargs, "ones")
    return _leaf(np.ones(shape, dtype=_float_dtype(dtype, "ones")), requires_grad)


def zeros(*size, dtype: DType | None = None, requires_grad: bool = False, **kwargs) -> Tensor:
    """A tensor of zeros."""
    shape = _size(size, kwargs.pop("size", None), "zeros")
    _check_device(kwargs.pop("device", None))
    _no_extra(kwargs, "zeros")
    return _leaf(np.zeros(shape, dtype=_float_dtype(dtype, "zeros")), requires_grad)


def empty(*size, dtype: DType | None = None, requires_grad: bool = False, **kwargs) -> Tensor:
    """A tensor whose values are unspecified (autogradkit fills it with zeros)."""
    if not size and "size" not in kwargs:
        raise _no_size_error("empty")
    return zeros(*size, dtype=dtype, requires_grad=requires_grad, **kwargs)


def full(
    size, fill_value, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (its dtype follows the value)."""
    _check_device(device)
    shape = _size((size,), None, "full")
    if not isinstance(fill_value, (numbers.Number, np.generic)) or isinstance(fill_value, complex):
        raise TypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    if dtype is None:
        dtype = (
            _dtype.bool
            if isinstance(fill_value, bool)
            else (
                _dtype.int64 if isinstance(fill_value, numbers.Integral) else _dtype.default_float()
            )
        )
    return _leaf(np.full(shape, fill_value, dtype=_check_dtype(dtype, "full").numpy), requires_grad)


def eye(
    n: int,
    m: int | None = None,
    dtype: DType | None = None,
    requires_grad: bool = False,
    device=None,
) -> Tensor:
    """The ``n×m`` identity matrix (``m`` defaults to ``n``)."""
    _check_device(device)
    for position, (name, value) in enumerate((("n", n), ("m", m)), start=1):
        if value is not None and (
            not isinstance(value, (int, np.integer)) or isinstance(value, bool)
        ):
            raise TypeError(
                f"eye(): argument '{name}' (position {position}) must be int, "
                f"not {type(value).__name__}"
            )
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return _leaf(np.eye(n, m, dtype=_float_dtype(dtype, "eye")), requires_grad)


def arange(
    start, end=None, step=1, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``;
    int64 when all three are integers, else float32. Float values are computed as
    PyTorch computes them (see :mod:`autogradkit._ranges`).

    >>> import autogradkit as torch
    >>> torch.arange(-8.0, 8.0, 0.1)[80]
    tensor(4.4409e-16)
    """
    _check_device(device)
    if end is None:
        start, end = 0, start
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = _dtype.int64 if integral else _dtype.default_float()
    target = _check_dtype(dtype, "arange").numpy
    count = _ranges.arange_count(start, end, step)
    if target.kind == "f":
        values = _ranges.arange_values(start, step, count, target)
    else:
        values = (start + step * np.arange(count, dtype=np.float64)).astype(target)
    return _leaf(values, requires_grad)


def _float_or(dtype: DType | None) -> np.dtype:
    """``dtype``'s NumPy dtype, float32 (the default dtype) when None."""
    return _dtype.default_float().numpy if dtype is None else dtype.numpy


def linspace(
    start, end, steps: int, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed
    as PyTorch computes them."""
    _check_device(device)
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(
            f"linspace(): argument 'steps' (position 3) must be int, not {type(steps).__name__}"
        )
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = _float_or(_check_dtype(dtype, "linspace"))
    return _leaf(_ranges.linspace_values(start, end, steps, target), requires_grad)


def logspace(
    start,
    end,
    steps: int,
    base: float = 10.0,
    dtype: DType | None = None,
    requires_grad: bool = False,
    device=None,
) -> Tensor:
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in the exponent."""
    _check_device(device)
    target = _float_or(_check_dtype(dtype, "logspace"))
    return _leaf(_ranges.logspace_values(start, end, steps, base, target), requires_grad)


def rand(
    *size, dtype: DType | None = None, requires_grad: bool = False, generator=None, **kwargs
) -> Tensor:
    """Uniform random numbers in [0, 1), the same values PyTorch's CPU generator
    gives after the same ``manual_seed``."""
    from . import random

    shape = _size(size, kwargs.pop("size", None), "rand")
    _check_device(kwargs.pop("device", None))
    _no_extra(kwargs, "rand")
    gen = generator or random.default_generator
    return _leaf(gen.rand(shape, _float_dtype(dtype, "rand")), requires_grad)


def randn(
    *size, dtype: DType | None = None, requires_grad: bool = False, generator=None, **kwargs
) -> Tensor:
    """Standard normal random numbers, the same values PyTorch's CPU generator gives
    after the same ``manual_seed``.

    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """
    from . import random

    shape = _size(size, kwargs.pop("size", None), "randn")
    _check_device(kwargs.pop("device", None))
    _no_extra(kwargs, "randn")
    gen = generator or random.default_generator
    return _leaf(gen.randn(shape, _float_dtype(dtype, "randn")), requires_grad)


def randperm(
    n: int, *, generator=None, dtype: DType | None = None, requires_grad: bool = False, **kwargs
) -> Tensor:
    """A random permutation of ``0, 1, …, n-1`` (int64 by default): the one PyTorch
    gives after the same ``manual_seed``. A DataLoader with ``shuffle=True`` draws
    its order this way.

    >>> import autogradkit as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randperm(5)
    tensor([4, 0, 1, 3, 2])
    """
    from . import random

    _check_device(kwargs.pop("device", None))
    _no_extra(kwargs, "randperm")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    gen = generator or random.default_generator
    values = gen.randperm(int(n))
    if dtype is not None:
        values = values.astype(_check_dtype(dtype, "randperm").numpy)
    return _leaf(values, requires_grad)


def randint(low, high=None, size=None, dtype: DType | None = None, generator=None) -> Tensor:
    """Random integers in ``[low, high)``."""
    from . import random

    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    gen = generator or random.default_generator
    values = gen.randint(low, high, _size((size,), None, "randint"))
    if dtype is not None:
        values = values.astype(_check_dtype(dtype, "randint").numpy)
    return _leaf(values, False)


def _like(input: Tensor, dtype: DType | None, device=None) -> tuple[tuple[int, ...], np.dtype]:
    _check_device(device)
    if not isinstance(input, Tensor):
        raise TypeError(f"expected a Tensor as input, got {type(input).__name__}")
    return input._data.shape, (
        _check_dtype(dtype).numpy if dtype is not None else input._data.dtype
    )


def ones_like(
    input: Tensor, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """Ones with the shape and dtype of ``input``."""
    shape, dt = _like(input, dtype, device)
    return _leaf(np.ones(shape, dtype=dt), requires_grad)


def zeros_like(
    input: Tensor, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """Zeros with the shape and dtype of ``input``."""
    shape, dt = _like(input, dtype, device)
    return _leaf(np.zeros(shape, dtype=dt), requires_grad)


def empty_like(
    input: Tensor, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    return zeros_like(input, dtype, requires_grad, device)


def full_like(
    input: Tensor,
    fill_value,
    dtype: DType | None = None,
    requires_grad: bool = False,
    device=None,
) -> Tensor:
    """``fill_value`` everywhere, with the shape and dtype of ``input``."""
    shape, dt = _like(input, dtype, device)
    return _leaf(np.full(shape, fill_value, dtype=dt), requires_grad)


def rand_like(
    input: Tensor, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """Uniform random numbers with the shape (and float dtype) of ``input``."""
    shape, dt = _like(input, dtype, device)
    return rand(shape, dtype=_dtype.from_numpy_dtype(dt), requires_grad=requires_grad)


def randn_like(
    input: Tensor, dtype: DType | None = None, requires_grad: bool = False, device=None
) -> Tensor:
    """Normal random numbers with the shape (and float dtype) of ``input``."""
    shape, dt = _like(input, dtype, device)
    return randn(shape, dtype=_dtype.from_numpy_dtype(dt), requires_grad=requires_grad)


def _no_extra(kwargs: dict, name: str) -> None:
    if kwargs:
        unexpected = next(iter(kwargs))
        raise TypeError(f"{name}() got an unexpected keyword argument '{unexpected}'")


# -- Tensor.new_*: new tensors with this tensor's dtype (and device) -------------------
NEW_TENSOR_OF_A_TENSOR_MESSAGE = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "tensor.new_tensor(sourceTensor)."
)


def new_filled(
    self: Tensor,
    who: str,
    size: tuple,
    fill_value,
    dtype: DType | None,
    requires_grad: bool,
    device,
    keywords: dict | None = None,
) -> Tensor:
    """``self.new_zeros(size)``, ``new_ones``, ``new_empty`` and ``new_full``: a new
    leaf of ``size`` filled with ``fill_value``, in ``self``'s dtype unless ``dtype``
    says otherwise."""
    _check_device(device)
    keywords = dict(keywords or {})
    shape = _size(size, keywords.pop("size", None), who)
    _no_extra(keywords, who)
    numpy_dtype = self._data.dtype if dtype is None else _check_dtype(dtype, who).numpy
    return _leaf(np.full(shape, fill_value, dtype=numpy_dtype), requires_grad)


def new_tensor(self: Tensor, data: Any, dtype: DType | None, requires_grad: bool, device) -> Tensor:
    """``self.new_tensor(data)``: :func:`tensor` of ``data`` in ``self``'s dtype
    unless ``dtype`` says otherwise. A tensor as ``data`` is copied (detached), with
    PyTorch's warning that ``detach().clone()`` says so more clearly."""
    import warnings

    target = self.dtype if dtype is None else _check_dtype(dtype, "new_tensor")
    if isinstance(data, Tensor):
        warnings.warn(NEW_TENSOR_OF_A_TENSOR_MESSAGE, UserWarning, stacklevel=3)
        _check_device(device)
        return _leaf(data._data.astype(target.numpy, copy=True), requires_grad)
    return tensor(data, dtype=target, requires_grad=requires_grad, device=device)
