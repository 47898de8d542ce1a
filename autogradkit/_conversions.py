"""Tensor's conversions: to Python numbers and lists (``item``, ``tolist``,
``float(t)``, ``bool(t)``), to NumPy (``numpy()``), and to other dtypes and
devices (``to``, ``float()``, ``double()``, ``long()``, ``cpu()``, ...).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _device, _dtype, ops
from ._dtype import dtype as DType
from ._tensor_base import TensorBase
from ._warn_once import warn_once
from .autograd import grad_mode

if TYPE_CHECKING:
    from .tensor import Tensor


class Conversions(TensorBase):
    """Mixed into :class:`autogradkit.Tensor`. (The class body defines methods named
    ``bool`` and ``float``, hence ``builtins.bool`` in annotations.)"""

    __slots__ = ()

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        """The values as (nested) Python lists."""
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind this tensor (shared memory, no copy)."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def type_as(self, other: Any) -> Tensor:
        """This tensor in ``other``'s dtype (itself when it has that dtype already)."""
        if not isinstance(other, TensorBase):
            raise TypeError(
                "type_as(): argument 'other' (position 1) must be Tensor, "
                f"not {type(other).__name__}"
            )
        return self.to(_dtype.from_numpy_dtype(other._data.dtype))

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to another dtype (``t.to(torch.float64)``); devices other than
        ``"cpu"`` are not available."""
        target = kwargs.get("dtype")
        if target is not None and not isinstance(target, DType):
            raise TypeError(
                f"to() received an invalid combination of arguments - got (dtype={type(target).__name__}, ), "
                "but expected one of:\n"
                " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
                "bool copy = False, *, torch.memory_format memory_format = None)\n"
                " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
                "torch.memory_format memory_format = None)\n"
                " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
                "torch.memory_format memory_format = None)\n"
            )
        _device.check_device(kwargs.get("device"))
        for arg in args:
            if isinstance(arg, DType):
                target = arg
            elif isinstance(arg, (str, _device.device)):
                _device.check_device(arg)
            elif isinstance(arg, TensorBase):
                target = _dtype.from_numpy_dtype(arg._data.dtype)
            else:
                raise TypeError(
                    f"to() expects a dtype, a device string or a tensor, not {type(arg).__name__}"
                )
        if target is None or target.numpy == self._data.dtype:
            return self
        return ops.shape.to_dtype(self, target)

    def float(self) -> Tensor:
        return self.to(_dtype.float32)

    def double(self) -> Tensor:
        return self.to(_dtype.float64)

    def long(self) -> Tensor:
        return self.to(_dtype.int64)

    def bool(self) -> Tensor:
        return self.to(_dtype.bool)

    def type(self, dtype: DType | None = None):
        if dtype is None:
            return f"torch.{_dtype.scalar_type_name(self._data.dtype)}Tensor"
        return self.to(dtype)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device=None) -> Tensor:
        """Refused with a clear error: autogradkit runs on the CPU only."""
        _device.check_device("cuda" if device is None else device)
        return self

    def contiguous(self) -> Tensor:
        """This tensor when its elements lie in row-major order in memory, else a
        row-major copy (a transpose or strided slice is not contiguous)."""
        return ops.shape.contiguous(self)

    def is_contiguous(self) -> builtins.bool:
        return builtins.bool(self._data.flags.c_contiguous)

    def data_ptr(self) -> int:
        """The address of the first element (views of one tensor share its memory)."""
        return int(self._data.__array_interface__["data"][0])

    def __bool__(self) -> builtins.bool:
        if self._data.size != 1:
            count = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {count} is ambiguous")
        return builtins.bool(self._data.reshape(()))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> builtins.float:
        # PyTorch warns for float() only (not int() or item()), in grad mode, before
        # it looks at the number of elements, and once per process.
        if self.requires_grad and grad_mode._state.enabled:
            warn_once(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.",
                stacklevel=2,
            )
        return builtins.float(self._scalar())

    def __int__(self) -> int:
        return builtins.int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())
