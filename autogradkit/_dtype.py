"""The four dtypes autogradkit supports, each a thin name over a NumPy dtype.

PyTorch's ``torch.dtype`` objects print as ``torch.float32``; ours print as
``autogradkit.float32`` so a learner always knows which library made a tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

__all__ = [
    "dtype",
    "float32",
    "float64",
    "int64",
    "bool",
    "from_numpy_dtype",
    "c_type_name",
    "scalar_type_name",
]


class dtype:
    """A tensor element type, e.g. ``autogradkit.float32``.

    Attributes
    ----------
    name : str
        ``"float32"``, ``"float64"``, ``"int64"`` or ``"bool"``.
    numpy : numpy.dtype
        The NumPy dtype that stores the elements.
    is_floating_point : bool
        Whether tensors of this dtype can require gradients.
    itemsize : int
        Bytes per element.
    """

    __slots__ = ("name", "numpy", "is_floating_point", "itemsize")

    def __init__(self, name: str, numpy_dtype: DTypeLike) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.itemsize = self.numpy.itemsize

    def __repr__(self) -> str:
        return f"autogradkit.{self.name}"

    def __reduce__(self):
        return (from_numpy_dtype, (self.numpy,))


float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
int64 = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)

float = float32
double = float64
long = int64

_BY_NUMPY = {d.numpy: d for d in (float32, float64, int64, bool)}

# The dtype Python floats and the float factories (``ones``, ``rand``, ``arange(0.5)``…)
# take, and integer division and math of integers give: ``torch.get_default_dtype()``.
_default_float = float32


def default_float() -> dtype:
    """The default floating-point dtype (float32 unless ``set_default_dtype``)."""
    return _default_float


def set_default_float(d: dtype) -> None:
    """Make ``d`` (float32 or float64) the default floating-point dtype."""
    global _default_float
    _default_float = d


def from_numpy_dtype(numpy_dtype) -> dtype:
    """Return the autogradkit dtype that stores elements as ``numpy_dtype``.

    Raises
    ------
    TypeError
        When autogradkit has no such dtype (it supports float32, float64,
        int64 and bool).
    """
    found = _BY_NUMPY.get(np.dtype(numpy_dtype))
    if found is None:
        raise TypeError(
            f"autogradkit does not support the NumPy dtype {np.dtype(numpy_dtype)}; "
            "use float32, float64, int64 or bool (convert with array.astype(...))."
        )
    return found


# PyTorch's messages name a dtype in two ways: as its C++ type ("expected m1 and m2
# to have the same dtype, but got: float != double") and as its scalar type ("result
# type Float can't be cast to the desired output type Long", "torch.FloatTensor").
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}
_SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def c_type_name(numpy_dtype) -> str:
    """``float32`` -> ``"float"``, as PyTorch's messages print it."""
    name = np.dtype(numpy_dtype).name
    return _C_TYPE_NAMES.get(name, name)


def scalar_type_name(numpy_dtype) -> str:
    """``float32`` -> ``"Float"``, as PyTorch's messages print it."""
    name = np.dtype(numpy_dtype).name
    return _SCALAR_TYPE_NAMES.get(name, name)
