"""Tensor's NumPy protocols: ``np.asarray(t)`` (``__array__``), NumPy functions
called on tensors (``__array_ufunc__``, ``__array_function__``) and mixed
expressions such as ``array * tensor`` (``__array_priority__``).

Backward formulas are written with NumPy functions (``np.cos(x)`` in ``Sin``'s
backward); under ``create_graph=True`` they receive tensors, and these protocols
turn each NumPy call into the tensor operation that computes it, so the backward
pass itself is recorded. Each module of :mod:`autogradkit.ops` adds the ufuncs it
implements to :data:`UFUNCS` when it is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import ops
from ._tensor_base import TensorBase

UFUNCS: dict[np.ufunc, Callable[..., Any]] = {}
"""A NumPy ufunc -> the operation computing it on tensors (filled by autogradkit.ops)."""


class NumPyProtocols(TensorBase):
    """Mixed into :class:`autogradkit.Tensor`."""

    __slots__ = ()

    # Make NumPy hand mixed expressions such as ``array * tensor`` to us.
    __array_priority__ = 1000

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        function = UFUNCS.get(ufunc)
        if function is None:
            if ufunc in _NON_DIFFERENTIABLE_UFUNCS:
                arrays = [x._data if isinstance(x, TensorBase) else x for x in inputs]
                return self._make(np.asarray(ufunc(*arrays, **kwargs)))
            return NotImplemented
        return function(*inputs)

    def __array_function__(self, func, types, args, kwargs):
        function = _ARRAY_FUNCTIONS.get(func)
        if function is None:
            return NotImplemented
        return function(*args, **kwargs)


_NON_DIFFERENTIABLE_UFUNCS = {
    np.sign,
    np.greater,
    np.greater_equal,
    np.less,
    np.less_equal,
    np.equal,
    np.not_equal,
    np.isnan,
    np.isfinite,
    np.logical_and,
    np.logical_or,
    np.logical_not,
}
_ARRAY_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    np.broadcast_to: lambda array, shape, subok=False: ops.shape.expand(array, *shape),
    np.swapaxes: lambda array, axis1, axis2: ops.shape.transpose(array, axis1, axis2),
    # The dims as one tuple: an empty one (a 0-d array) is permute(x, ()), which
    # PyTorch allows, where permute(x) with no dims is refused.
    np.transpose: lambda array, axes=None: ops.shape.permute(
        array, tuple(axes if axes is not None else range(array.ndim - 1, -1, -1))
    ),
    np.reshape: lambda array, shape, **kw: ops.shape.reshape(array, shape),
    np.sum: lambda array, axis=None, dtype=None, keepdims=False, **kw: ops.reduction.sum(
        array, axis, keepdims
    ),
    np.expand_dims: lambda array, axis: ops.shape.unsqueeze(array, axis),
    np.shape: lambda array: array.shape,
    np.ndim: lambda array: array.ndim,
}
