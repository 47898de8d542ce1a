"""The :class:`Tensor`: a NumPy array plus what autograd needs to know about it
(mirrors ``torch/_tensor.py``).

A tensor is either

* a **leaf**: made by you (``torch.randn(5, 3, requires_grad=True)``), with
  ``grad_fn = None``; when it requires grad, backward stores its gradient in ``.grad``;
* or the **result of an operation** on tensors that require grad, with ``grad_fn``
  pointing at the backward node that will turn the gradient of this result into
  gradients for the operation's inputs.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _device, _dtype, _ranges
from ._dtype import dtype as DType
from ._math_methods import MathMethods

if TYPE_CHECKING:
    from .autograd.function import Node

__all__ = ["Tensor", "Size"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
NON_LEAF_REQUIRES_GRAD_MESSAGE = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
FLOAT_ONLY_MESSAGE = "only Tensors of floating point and complex dtype can require gradients"


class Size(tuple):
    """A tensor's shape: a tuple that prints like PyTorch's ``torch.Size``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"autogradkit.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n


class Tensor(MathMethods):
    """A multi-dimensional array that can record the operations applied to it.

    Create tensors with :func:`autogradkit.tensor`, :func:`autogradkit.ones`,
    :func:`autogradkit.randn` and friends rather than with this class.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (w * w).sum()
    >>> y
    tensor(5., grad_fn=<SumBackward0>)
    >>> y.backward()
    >>> w.grad
    tensor([2., 4.])
    """

    __slots__ = (
        "_data",
        "_requires_grad",
        "grad_fn",
        "_grad",
        "_version_counter",
        "_retains_grad",
        "_accumulator",
        "_hooks",
        "_base",
        "__weakref__",
    )
    # The slots' types (the class body defines methods named bool and float, hence builtins.bool).
    _data: np.ndarray
    _requires_grad: builtins.bool
    grad_fn: Node | None
    _grad: Tensor | None
    _version_counter: list[int]  # shared by a tensor and its views; bumped by in-place ops
    _retains_grad: builtins.bool
    _accumulator: AccumulateGrad | None  # a leaf's node, made on first use
    _hooks: list[Callable[[Tensor], Tensor | None]] | None  # a leaf's hooks
    _base: Tensor | None  # the tensor this one is a view of
    # Make NumPy hand mixed expressions such as ``array * tensor`` to us.
    __array_priority__ = 1000

    def __init__(self, *args: Any) -> None:
        # ``torch.Tensor(2, 3)`` (uninitialised floats) and ``torch.Tensor([1, 2])``.
        if len(args) == 1 and not isinstance(args[0], int):
            from ._creation import tensor as _tensor

            source = _tensor(args[0], dtype=_dtype.float32)
        else:
            from ._creation import zeros

            source = zeros(*args)
        for name in _STATE_SLOTS:  # become the leaf that was just made
            setattr(self, name, getattr(source, name))

    # -- construction helpers -------------------------------------------------
    @staticmethod
    def _make(data: np.ndarray, grad_fn: Node | None = None) -> Tensor:
        """Wrap an array without copying (internal; ``grad_fn`` makes it a non-leaf)."""
        t = _new_tensor(Tensor)
        t._data = data
        t._requires_grad = grad_fn is not None
        t.grad_fn = grad_fn
        t._grad = None
        t._version_counter = [0]
        t._retains_grad = False
        t._accumulator = None
        t._hooks = None
        t._base = None
        return t

    def _grad_accumulator(self):
        """The ``AccumulateGrad`` node of this leaf, shared by every graph that uses it."""
        node = self._accumulator
        if node is None:
            node = self._accumulator = AccumulateGrad(self)
            if self._hooks is not None:
                node._tensor_pre_hooks = self._hooks
                node._hooked = True
        return node

    # -- autograd attributes --------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for backward."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self.grad_fn is None and self._data.dtype.kind != "f":
            raise RuntimeError(FLOAT_ONLY_MESSAGE)  # the setter words it as the factories do
        if self.grad_fn is not None:
            # Unlike requires_grad_(True), the attribute refuses even the value it has.
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables."
                if value
                else NON_LEAF_REQUIRES_GRAD_MESSAGE
            )
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only) and return ``self``.

        Raises
        ------
        RuntimeError
            On a non-leaf (use ``detach()`` instead), or when asking an integer or
            bool tensor to require grad.
        """
        if not isinstance(requires_grad, (bool, np.bool_)):
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{type(requires_grad).__name__}"
            )
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD_MESSAGE)
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = builtins.bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors you created (and for results of operations that did not
        require grad); False for results recorded in a graph."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward passes (leaves, and ``retain_grad()``
        tensors); None until the first one. Reading it on another non-leaf warns."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor "
                    f"of size '{list(self._data.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.c_type_name(value._data.dtype)}' "
                    f"to a tensor with grad_dtype '{_dtype.scalar_type_name(self._data.dtype)}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                    "the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Ask backward to fill ``.grad`` of this non-leaf tensor too."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self._retains_grad:
            self._retains_grad = True
            self.grad_fn._retained = weakref.ref(self)
            self.grad_fn._hooked = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]):
        """Call ``hook(grad)`` whenever a gradient for this tensor is computed; if it
        returns a tensor, that replaces the gradient.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            node = self.grad_fn
            if node._tensor_pre_hooks is None:
                node._tensor_pre_hooks = []
                node._hooked = True
            hooks = node._tensor_pre_hooks
        else:
            if self._hooks is None:
                self._hooks = []
                if self._accumulator is not None:
                    self._accumulator._tensor_pre_hooks = self._hooks
                    self._accumulator._hooked = True
            hooks = self._hooks
        hooks.append(hook)
        from .autograd.function import _RemovableHandle

        return _RemovableHandle(hooks, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs=None,
    ) -> None:
        """Compute the gradient of this tensor with respect to the graph's leaves and
        add it into their ``.grad``.

        Parameters
        ----------
        gradient : Tensor, optional
            The vector ``v`` of the vector-Jacobian product ``vᵀJ``; required when this
            tensor has more than one element. ``backward()`` on a scalar means
            ``backward(torch.tensor(1.0))``.
        retain_graph : bool, optional
            Keep the saved tensors so that another backward pass through this graph
            works. Defaults to ``create_graph``.
        create_graph : bool
            Record the backward pass itself, for higher-order derivatives.
        """
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new leaf that shares this tensor's data (and version counter) but is cut
        out of the graph: ``requires_grad=False``."""
        t = Tensor._make(self._data)
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The tensor's values as a tensor outside the graph (like ``detach()``)."""
        return self.detach()

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = (
            value._data if isinstance(value, Tensor) else np.asarray(value, dtype=self._data.dtype)
        )
        if self._accumulator is not None:
            self._accumulator.leaf_changed()

    @property
    def _version(self) -> int:
        """How many times this tensor's data was modified in place."""
        return self._version_counter[0]

    # -- metadata -----------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape as a ``Size``, or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> DType:
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @property
    def device(self) -> _device.device:
        """Always ``device(type='cpu')``: autogradkit computes with NumPy on the CPU."""
        return _device.CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- conversion ---------------------------------------------------------------
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

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

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
            elif isinstance(arg, Tensor):
                target = arg.dtype
            else:
                raise TypeError(
                    f"to() expects a dtype, a device string or a tensor, not {type(arg).__name__}"
                )
        if target is None or target.numpy == self._data.dtype:
            return self
        return _ops_shape.to_dtype(self, target)

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
        return self

    def __bool__(self) -> builtins.bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._data.reshape(()))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._requires_grad:
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.",
                UserWarning,
                stacklevel=3,
            )
        return self._data.reshape(()).item()

    def __float__(self) -> builtins.float:
        return builtins.float(self._scalar())

    def __int__(self) -> int:
        return builtins.int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __deepcopy__(self, memo: dict) -> Tensor:
        """A new leaf with copies of the values and of ``.grad`` (PyTorch's rule: only
        leaves can be deep-copied; a result in a graph would lose its history)."""
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        copy = Tensor._make(self._data.copy())
        memo[id(self)] = copy
        copy._requires_grad = self._requires_grad
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        return copy

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data, self._requires_grad))

    # -- printing ---------------------------------------------------------------
    def __repr__(self, *, tensor_contents: Any = None) -> str:
        from ._parameter_marks import is_marked
        from ._tensor_str import format_tensor

        grad_fn_name = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        tangent = _forward_ad.tangent_of(self) if _forward_ad.state.level is not None else None
        text = format_tensor(
            self._data,
            dtype_name=self._data.dtype.name,
            requires_grad=self._requires_grad,
            grad_fn_name=grad_fn_name,
            tangent=None if tangent is None else f"{tangent}",
        )
        return "Parameter containing:\n" + text if is_marked(self) else text

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # As in PyTorch: a 0-d tensor formats as its Python number (f"{loss:.3f}").
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    # -- arithmetic operators -------------------------------------------------------
    # The common case, two tensors (or a tensor and a Python number), goes straight to
    # the operation's Function; everything else takes the checked path in autogradkit.ops.
    def __add__(self, other):
        if type(other) is Tensor or type(other) is float or type(other) is int:
            return _Add.apply(self, other)
        return _ops_arith.add(self, other)

    def __radd__(self, other):
        return _ops_arith.add(self, other)

    def __sub__(self, other):
        if type(other) is Tensor or type(other) is float or type(other) is int:
            return _Sub.apply(self, other)
        return _ops_arith.sub(self, other)

    def __rsub__(self, other):
        return _ops_arith.rsub(self, other)

    def __mul__(self, other):
        if type(other) is Tensor or type(other) is float or type(other) is int:
            return _Mul.apply(self, other)
        return _ops_arith.mul(self, other)

    def __rmul__(self, other):
        return _ops_arith.mul(self, other)

    def __truediv__(self, other):
        return _ops_arith.div(self, other)

    def __rtruediv__(self, other):
        return _ops_arith.mul(_ops_arith.reciprocal(self), other)

    def __floordiv__(self, other):
        return _ops_arith.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _ops_arith.floor_divide(other, self)

    def __mod__(self, other):
        return _ops_arith.remainder(self, other)

    def __rmod__(self, other):
        return _ops_arith.remainder(other, self)

    def remainder(self, other):
        return _ops_arith.remainder(self, other)

    def floor_divide(self, other):
        return _ops_arith.floor_divide(self, other)

    def __pow__(self, exponent):
        return _ops_arith.pow(self, exponent)

    def __rpow__(self, base):
        return _ops_arith.pow(base, self)

    def __matmul__(self, other):
        if type(other) is Tensor and self._data.ndim == 2 and other._data.ndim == 2:
            return _Mm.apply(self, other)
        return _ops_linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return _ops_linalg.matmul(_ops_arith._as_tensor(other), self)

    def __neg__(self):
        return _ops_arith.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops_pointwise.abs(self)

    # Comparisons give bool tensors and are never differentiated.
    def _compare(self, other, ufunc) -> Tensor:
        if isinstance(other, Tensor):
            other = other._data
        elif not isinstance(other, (int, float, np.generic, np.ndarray)):
            # t == None is False and t < None a TypeError, as in PyTorch (Python's
            # own answers once the comparison is declined).
            return NotImplemented
        return Tensor._make(np.asarray(ufunc(self._data, other)))

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    def eq(self, other):
        return self == other

    def __and__(self, other):
        return self._compare(
            other, np.logical_and if self._data.dtype == np.bool_ else np.bitwise_and
        )

    def __or__(self, other):
        return self._compare(
            other, np.logical_or if self._data.dtype == np.bool_ else np.bitwise_or
        )

    def __invert__(self):
        return Tensor._make(np.asarray(~self._data))

    # -- in-place operations --------------------------------------------------------
    def _check_inplace(self, other=None) -> None:
        if not grad_mode._state.enabled:
            return
        base = self._base
        if base is not None and (
            base._requires_grad
            or self._requires_grad
            or (isinstance(other, Tensor) and other._requires_grad)
        ):
            if base.grad_fn is None and base._requires_grad:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
            raise NotImplementedError(
                "autogradkit does not record in-place operations on a view of a tensor that is "
                "part of a graph (PyTorch rebases the base's history through a CopySlices node). "
                "Compute the new values out of place instead (e.g. c = c * mask), or clone() first."
            )
        if self.grad_fn is None and self._requires_grad:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)

    def _inplace(self, out_of_place: Callable, numpy_inplace: Callable, other=None) -> Tensor:
        """Shared logic of ``add_``, ``mul_``, …: plain NumPy when nothing is recorded,
        otherwise the out-of-place operation whose result replaces this tensor's
        values and history (PyTorch 'rebases' the tensor's ``grad_fn`` the same way)."""
        _check_writable(self._data)
        self._check_inplace(other)
        other_requires = isinstance(other, Tensor) and other._requires_grad
        if grad_mode._state.enabled and (self._requires_grad or other_requires):
            before = Tensor._make(self._data.copy(), grad_fn=self.grad_fn)
            before._requires_grad = self._requires_grad
            result = out_of_place(before, other) if other is not None else out_of_place(before)
            _store_inplace(self, result._data)
            if self._retains_grad and self.grad_fn is not None:
                # retain_grad() follows the tensor to its new history (as in PyTorch).
                self.grad_fn._retained = None
                result.grad_fn._retained = weakref.ref(self)
                result.grad_fn._hooked = True
            new_fn: Node = result.grad_fn
            self.grad_fn = new_fn
            # The node's output is this tensor now: gradients for it take its dtype.
            new_fn.input_metadata = ((self._data.shape, self._data.dtype),)
            self._requires_grad = True
        else:
            other_data = other._data if isinstance(other, Tensor) else other
            if other is not None:
                _check_inplace_operand(self._data, other_data)
                numpy_inplace(self._data, other_data)
            else:
                numpy_inplace(self._data)
        self._version_counter[0] += 1
        return self

    def add_(self, other, *, alpha=1) -> Tensor:
        """In place: ``self += alpha * other``."""
        if alpha == 1:
            return self._inplace(_ops_arith.add, _np_add_inplace, other)
        return self._inplace(
            lambda a, b: _ops_arith.add(a, b, alpha=alpha),
            lambda a, b: _np_add_scaled_inplace(a, b, alpha),
            other,
        )

    def sub_(self, other, *, alpha=1) -> Tensor:
        """In place: ``self -= alpha * other``."""
        if alpha == 1:
            return self._inplace(_ops_arith.sub, _np_sub_inplace, other)
        return self._inplace(
            lambda a, b: _ops_arith.sub(a, b, alpha=alpha),
            lambda a, b: _np_add_scaled_inplace(a, b, -alpha),
            other,
        )

    def mul_(self, other) -> Tensor:
        """In place: ``self *= other``."""
        return self._inplace(_ops_arith.mul, _np_mul_inplace, other)

    def div_(self, other) -> Tensor:
        """In place: ``self /= other``."""
        if self._data.dtype.kind != "f":  # true division gives floats
            raise RuntimeError(
                "result type Float can't be cast to the desired output type "
                f"{_dtype.scalar_type_name(self._data.dtype)}"
            )
        return self._inplace(_ops_arith.div, _np_div_inplace, other)

    def zero_(self) -> Tensor:
        """In place: set every element to 0 (``w.grad.zero_()`` between steps)."""
        return self._inplace(_ops_arith.zeros_like_op, _np_zero_inplace)

    def fill_(self, value) -> Tensor:
        """In place: set every element to ``value``."""
        self._check_inplace()
        self._data[...] = value._data if isinstance(value, Tensor) else value
        self._version_counter[0] += 1
        return self

    def copy_(self, source: Tensor) -> Tensor:
        """In place: copy ``source``'s values into this tensor."""
        self._check_inplace()
        _check_writable(self._data)
        values = source._data if isinstance(source, Tensor) else np.asarray(source)
        try:
            np.broadcast_shapes(values.shape, self._data.shape)
        except ValueError:
            raise _ops_arith.broadcast_error(self._data, values) from None
        if np.broadcast_shapes(values.shape, self._data.shape) != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(values.shape, self._data.shape))}"
            )
        self._data[...] = values
        self._version_counter[0] += 1
        return self

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __setitem__(self, key, value) -> None:
        if grad_mode._state.enabled:
            if self.grad_fn is None and self._requires_grad:
                # x[i] = v writes through the view x[i] of the leaf x.
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
            self._check_inplace(value)
        value_requires = isinstance(value, Tensor) and value._requires_grad
        if (self._requires_grad or value_requires) and grad_mode._state.enabled:
            raise NotImplementedError(
                "autogradkit does not record item assignment on tensors that require grad; "
                "build the tensor with torch.stack/torch.cat instead, or assign under torch.no_grad()"
            )
        _check_writable(self._data)
        key = _ops_shape.normalize_key(key)
        values = value._data if isinstance(value, Tensor) else value
        try:
            self._data[key] = values
        except ValueError:
            raise _expand_error(self._data[key].shape, np.shape(values)) from None
        self._version_counter[0] += 1

    # -- NumPy interoperability (lets backward formulas run on tensors) --------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        function = _UFUNCS.get(ufunc)
        if function is None:
            if ufunc in _NON_DIFFERENTIABLE_UFUNCS:
                arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
                return Tensor._make(np.asarray(ufunc(*arrays, **kwargs)))
            return NotImplemented
        return function(*inputs)

    def __array_function__(self, func, types, args, kwargs):
        function = _ARRAY_FUNCTIONS.get(func)
        if function is None:
            return NotImplemented
        return function(*args, **kwargs)

    # -- methods that are operations (defined in autogradkit.ops) ----------------------
    def add(self, other, *, alpha=1):
        return _ops_arith.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _ops_arith.sub(self, other, alpha=alpha)

    def mul(self, other):
        return _ops_arith.mul(self, other)

    def div(self, other):
        return _ops_arith.div(self, other)

    def neg(self):
        return _ops_arith.neg(self)

    def pow(self, exponent):
        return _ops_arith.pow(self, exponent)

    def reciprocal(self):
        return _ops_arith.reciprocal(self)

    def exp(self):
        return _ops_pointwise.exp(self)

    def log(self):
        return _ops_pointwise.log(self)

    def sqrt(self):
        return _ops_pointwise.sqrt(self)

    def abs(self):
        return _ops_pointwise.abs(self)

    def sigmoid(self):
        return _ops_pointwise.sigmoid(self)

    def tanh(self):
        return _ops_pointwise.tanh(self)

    def relu(self):
        return _ops_pointwise.relu(self)

    def clamp(self, min=None, max=None):
        return _ops_pointwise.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min):
        return _ops_pointwise.clamp_min(self, min)

    def maximum(self, other):
        return _ops_pointwise.maximum(self, other)

    def sum(
        self, dim=None, keepdim: builtins.bool = False, *, dtype=None, axis=None, keepdims=None
    ):
        return _ops_reduction.sum(self, dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)

    def mean(
        self, dim=None, keepdim: builtins.bool = False, *, dtype=None, axis=None, keepdims=None
    ):
        return _ops_reduction.mean(self, dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)

    def max(self, dim=None, keepdim: builtins.bool = False):
        return _ops_reduction.max(self, dim, keepdim)

    def min(self, dim=None, keepdim: builtins.bool = False):
        return _ops_reduction.min(self, dim, keepdim)

    def argmax(self, dim=None, keepdim: builtins.bool = False):
        return _ops_reduction.argmax(self, dim, keepdim)

    def matmul(self, other):
        return _ops_linalg.matmul(self, other)

    def mm(self, other):
        return _ops_linalg.mm(self, other)

    def dot(self, other):
        return _ops_linalg.dot(self, other)

    def outer(self, vec2):
        return _ops_linalg.outer(self, vec2)

    def allclose(
        self,
        other,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        return _ops_reduction.allclose(self, other, rtol, atol, equal_nan)

    def reshape(self, *shape):
        return _ops_shape.reshape(self, *shape)

    def view(self, *shape):
        return _ops_shape.view(self, *shape)

    def view_as(self, other):
        return _ops_shape.view(self, other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        return _ops_shape.flatten(self, start_dim, end_dim)

    def t(self):
        return _ops_shape.t(self)

    @property
    def T(self):
        return _ops_shape.numpy_T(self)

    @property
    def mT(self):
        return _ops_shape.transpose(self, -2, -1)

    def transpose(self, dim0: int, dim1: int):
        return _ops_shape.transpose(self, dim0, dim1)

    def permute(self, *dims):
        return _ops_shape.permute(self, *dims)

    def unsqueeze(self, dim: int):
        return _ops_shape.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return _ops_shape.squeeze(self, dim)

    def expand(self, *sizes):
        return _ops_shape.expand(self, *sizes)

    def expand_as(self, other):
        return _ops_shape.expand(self, *other.shape)

    def clone(self):
        return _ops_shape.clone(self)

    def __getitem__(self, key):
        return _ops_shape.getitem(self, key)


_new_tensor = object.__new__


_STATE_SLOTS = tuple(name for name in Tensor.__slots__ if name != "__weakref__")


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(data)
    t._requires_grad = requires_grad
    return t


def _wrap_dim(dim: int, ndim: int) -> int:
    """PyTorch's dimension wrapping: -1 is the last dimension; clear error otherwise."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim + ndim if dim < 0 else (dim if ndim else 0)


def _check_writable(data: np.ndarray) -> None:
    """An expanded tensor repeats one element in many places: writing into it is
    refused, as in PyTorch (NumPy says "read-only")."""
    if not data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the operation."
        )


def _expand_error(target: tuple, given: tuple) -> RuntimeError:
    """PyTorch's message for ``x[key] = value`` when value's shape does not fit."""
    for offset in range(1, max(len(target), len(given)) + 1):
        want = target[-offset] if offset <= len(target) else 1
        have = given[-offset] if offset <= len(given) else 1
        if have not in (1, want):
            return RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({have}) "
                f"at non-singleton dimension {max(len(target), len(given)) - offset}.  "
                f"Target sizes: {list(target)}.  Tensor sizes: {list(given)}"
            )
    return RuntimeError(
        f"shape mismatch: value tensor of shape {list(given)} cannot be broadcast to indexing "
        f"result of shape {list(target)}"
    )


def _check_inplace_operand(data: np.ndarray, other) -> None:
    """PyTorch's errors for ``a.add_(b)`` when the result would not fit in ``a``."""
    from .ops._promotion import result_dtype

    result = result_dtype(data, other)
    if not np.can_cast(result, data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(result)} can't be cast to the desired "
            f"output type {_dtype.scalar_type_name(data.dtype)}"
        )
    other_shape = np.shape(other)
    try:
        shape = np.broadcast_shapes(data.shape, other_shape)
    except ValueError:
        raise _ops_arith.broadcast_error(data, other) from None
    if shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape {list(shape)}"
        )


def _store_inplace(t: Tensor, values: np.ndarray) -> None:
    if values.dtype != t._data.dtype and not np.can_cast(
        values.dtype, t._data.dtype, casting="same_kind"
    ):
        raise RuntimeError(
            f"result type {_dtype.scalar_type_name(values.dtype)} can't be cast to the desired "
            f"output type {_dtype.scalar_type_name(t._data.dtype)}"
        )
    if values.shape != t._data.shape:
        raise RuntimeError(
            f"output with shape {list(t._data.shape)} doesn't match the broadcast shape {list(values.shape)}"
        )
    t._data[...] = values


def _np_add_inplace(a, b):
    np.add(a, b, out=a, casting="same_kind")


def _np_add_scaled_inplace(a, b, alpha) -> None:
    """a += alpha·b with one rounding, as PyTorch's CPU kernel computes it (a fused
    multiply-add, alpha first rounded to a's dtype): what optimizer steps such as
    ``p.add_(grad, alpha=-lr)`` print depends on it."""
    if a.dtype.kind != "f":
        _np_add_inplace(a, np.multiply(b, alpha))
        return
    alpha = a.dtype.type(alpha)
    if a.dtype == np.float32:
        # The product of two float32 numbers is exact in float64.
        exact = np.asarray(a, np.float64) + np.float64(alpha) * np.asarray(b, np.float64)
        a[...] = exact
    else:
        a[...] = _ranges.fused_multiply_add(alpha, b, a)


def _np_sub_inplace(a, b):
    np.subtract(a, b, out=a, casting="same_kind")


def _np_mul_inplace(a, b):
    np.multiply(a, b, out=a, casting="same_kind")


def _np_div_inplace(a, b):
    np.true_divide(a, b, out=a, casting="same_kind")


def _np_zero_inplace(a):
    a[...] = 0


# Imported last: these modules need the Tensor class defined above.
from . import autograd as _autograd  # noqa: E402
from .autograd import forward_ad as _forward_ad  # noqa: E402
from .autograd import grad_mode  # noqa: E402
from .autograd.function import AccumulateGrad  # noqa: E402
from .ops import arithmetic as _ops_arith  # noqa: E402
from .ops import linalg as _ops_linalg  # noqa: E402
from .ops import pointwise as _ops_pointwise  # noqa: E402
from .ops import reduction as _ops_reduction  # noqa: E402
from .ops import shape as _ops_shape  # noqa: E402
from .ops.arithmetic import Add as _Add  # noqa: E402
from .ops.arithmetic import Mul as _Mul  # noqa: E402
from .ops.arithmetic import Sub as _Sub  # noqa: E402
from .ops.linalg import Mm as _Mm  # noqa: E402

_UFUNCS: dict[np.ufunc, Callable[..., Tensor]] = {
    np.add: _ops_arith.add,
    np.subtract: _ops_arith.sub,
    np.multiply: _ops_arith.mul,
    np.true_divide: _ops_arith.div,
    np.negative: _ops_arith.neg,
    np.power: _ops_arith.pow,
    np.exp: _ops_pointwise.exp,
    np.log: _ops_pointwise.log,
    np.sqrt: _ops_pointwise.sqrt,
    np.tanh: _ops_pointwise.tanh,
    np.absolute: _ops_pointwise.abs,
    np.maximum: _ops_pointwise.maximum,
    np.matmul: _ops_linalg.matmul,
    np.reciprocal: _ops_arith.reciprocal,
}
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
    np.broadcast_to: lambda array, shape, subok=False: _ops_shape.expand(array, *shape),
    np.swapaxes: lambda array, axis1, axis2: _ops_shape.transpose(array, axis1, axis2),
    np.transpose: lambda array, axes=None: _ops_shape.permute(
        array, *(axes if axes is not None else range(array.ndim - 1, -1, -1))
    ),
    np.reshape: lambda array, shape, **kw: _ops_shape.reshape(array, shape),
    np.sum: lambda array, axis=None, dtype=None, keepdims=False, **kw: _ops_reduction.sum(
        array, axis, keepdims
    ),
    np.expand_dims: lambda array, axis: _ops_shape.unsqueeze(array, axis),
    np.shape: lambda array: array.shape,
    np.ndim: lambda array: array.ndim,
}
