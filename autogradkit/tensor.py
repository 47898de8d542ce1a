"""The :class:`Tensor`: a NumPy array plus what autograd needs to know about it
(mirrors ``torch/_tensor.py``).

A tensor is either

* a **leaf**: made by you (``torch.randn(5, 3, requires_grad=True)``), with
  ``grad_fn = None``; when it requires grad, backward stores its gradient in ``.grad``;
* or the **result of an operation** on tensors that require grad, with ``grad_fn``
  pointing at the backward node that will turn the gradient of this result into
  gradients for the operation's inputs.

This file tells the Tensor's story: its data, its autograd state (``requires_grad``,
``grad``, ``grad_fn``, ``is_leaf``, hooks, ``retain_grad``) and ``backward``. The
long tail of methods lives in modules named for what they are, mixed into
``Tensor`` as base classes:

* :mod:`._operators` — ``+ - * / // % ** @``, comparisons, ``t[key]``;
* :mod:`._math_methods` — methods that are operations (``x.exp()``, ``x.sum()``, ...);
* :mod:`._inplace` — ``add_``, ``zero_``, ``copy_``, ``t[i] = v``, ``+=``, ``x.sin_()``;
* :mod:`._conversions` — ``item``, ``numpy``, ``to``, ``float()``, ``float(t)``, ...;
* :mod:`._numpy_protocols` — ``np.asarray(t)`` and NumPy functions on tensors.

Those methods reach the operations through the :mod:`autogradkit.ops` package, and
``backward`` reaches the engine through :mod:`autogradkit.autograd`, both looked up
when a method runs (as ``torch/_tensor.py`` calls ``torch.autograd.backward``). The
ops and the engine import ``Tensor`` when they load; ``Tensor``'s modules import
those packages only as namespaces (``autogradkit/__init__.py`` imports ``autograd``
first, which imports this module), so nothing imports at the bottom of a file.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _device, _dtype, autograd
from ._conversions import Conversions
from ._dtype import dtype as DType
from ._inplace import InplaceMethods
from ._math_methods import MathMethods
from ._numpy_protocols import NumPyProtocols
from ._operators import Operators

if TYPE_CHECKING:
    from .autograd.function import AccumulateGrad, Node
    from .autograd.views import ViewInfo

__all__ = ["Tensor", "Size"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
NON_LEAF_REQUIRES_GRAD_MESSAGE = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
FLOAT_ONLY_MESSAGE = "only Tensors of floating point and complex dtype can require gradients"
DETACH_VIEW_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)


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


class Tensor(Operators, MathMethods, InplaceMethods, Conversions, NumPyProtocols):
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
        "_grad_fn",
        "_output_nr",
        "_grad",
        "_version_counter",
        "_retains_grad",
        "_accumulator",
        "_hooks",
        "_view",
        "__weakref__",
    )
    # The slots' types (the class body defines methods named bool and float, hence builtins.bool).
    _data: np.ndarray
    _requires_grad: builtins.bool
    _grad_fn: Node | None  # read through the grad_fn property (a view's may need regenerating)
    _output_nr: int  # which output of grad_fn this tensor is (split's pieces: 0, 1, ...)
    _grad: Tensor | None
    _version_counter: list[int]  # shared by a tensor and its views; bumped by in-place ops
    _retains_grad: builtins.bool
    _accumulator: AccumulateGrad | None  # a leaf's node, made on first use
    _hooks: list[Callable[[Tensor], Tensor | None]] | None  # register_hook's (see there)
    _view: ViewInfo | None  # for a view: its base and how to regenerate it (autograd/views.py)

    def __init__(self, *args: Any) -> None:
        # ``torch.Tensor(2, 3)`` (uninitialised floats) and ``torch.Tensor([1, 2])``.
        if len(args) == 1 and not isinstance(args[0], int):
            from ._creation import tensor as _tensor

            source = _tensor(args[0], dtype=_dtype.default_float())
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
        t._grad_fn = grad_fn
        t._output_nr = 0
        t._grad = None
        t._version_counter = [0]
        t._retains_grad = False
        t._accumulator = None
        t._hooks = None
        t._view = None
        return t

    def _grad_accumulator(self):
        """The ``AccumulateGrad`` node of this leaf, shared by every graph that uses it."""
        node = self._accumulator
        if node is None:
            node = self._accumulator = autograd.function.AccumulateGrad(self)
            if self._hooks is not None:
                node._tensor_pre_hooks = self._hooks
                node._needs_call = True
        return node

    def _rebase_history(self, grad_fn: Node) -> None:
        """Make ``grad_fn`` this tensor's history: an in-place operation recorded out of
        place hands its node to the tensor it modified (PyTorch's ``rebase_history``).
        For a view, the history rewritten is its base's (``CopySlices``; see
        ``autograd/views.py``)."""
        # The node's output is this tensor now: gradients for it take its dtype.
        grad_fn.input_metadata = ((self._data.shape, self._data.dtype),)
        # Hooks registered so far stay with the old history; the next one registered
        # goes to the new grad_fn (PyTorch's order: see register_hook).
        self._hooks = None
        if self._view is not None:
            autograd.views.rebase_history(self, grad_fn)
            return
        if self._retains_grad and self._grad_fn is not None:
            # retain_grad() follows the tensor to its new history (as in PyTorch).
            self._grad_fn._retained = None
            grad_fn._retained = weakref.ref(self)
            grad_fn._needs_call = True
        self._grad_fn, self._output_nr = grad_fn, 0
        self._requires_grad = True

    # -- autograd attributes --------------------------------------------------
    @property
    def grad_fn(self) -> Node | None:
        """The backward node of the operation that made this tensor (None for a leaf).
        A view's is regenerated from its base after an in-place change to either
        (see ``autograd/views.py``)."""
        if self._view is not None:
            autograd.views.refresh(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        self._grad_fn = node

    @property
    def _base(self) -> Tensor | None:
        """The tensor whose memory this view shares (None when not a view)."""
        return None if self._view is None else self._view.base

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for backward (a view's
        follows its base's, as in PyTorch)."""
        return self._requires_grad or (self._view is not None and self._view.base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # Leaves as PyTorch's C++ is_leaf() tells them: by the node as it is.
        if value and self._grad_fn is None and self._data.dtype.kind != "f":
            raise RuntimeError(FLOAT_ONLY_MESSAGE)  # the setter words it as the factories do
        if self._grad_fn is not None:
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
        if self._grad_fn is not None:  # the node as it is, as PyTorch's C++ is_leaf() reads it
            if requires_grad:
                return self
            raise RuntimeError(NON_LEAF_REQUIRES_GRAD_MESSAGE)
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = builtins.bool(requires_grad)
        return self

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is: 0 for most operations, 0, 1, …
        for the pieces of ``split``/``chunk``/``unbind`` and the outputs of a custom
        Function that returns several tensors. Gradients for it reach ``grad_fn``
        along the edge ``(grad_fn, output_nr)``."""
        return self._output_nr

    @property
    def is_leaf(self) -> bool:
        """True for tensors you created (and for results of operations that did not
        require grad); False for results recorded in a graph."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward passes (leaves, and ``retain_grad()``
        tensors); None until the first one. Reading it on another non-leaf warns."""
        # The node as it is, not regenerated (PyTorch's C++ is_leaf() does the same).
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
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
        # A leaf as PyTorch's C++ is_leaf() tells it: by the node as it is.
        if self._grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return  # PyTorch returns here, before it looks at (or regenerates) the node
        node = self.grad_fn  # a view's, regenerated if stale
        if node is not None:
            self._retains_grad = True
            node._retain(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]):
        """Call ``hook(grad)`` whenever a gradient for this tensor is computed; if it
        returns a tensor, that replaces the gradient.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._hooks is None:
            # The first hook decides where this tensor's hooks live (PyTorch's
            # _backward_hooks): with the grad_fn it has now, or for a leaf with its
            # AccumulateGrad. Later hooks join them without looking at grad_fn again,
            # so a no_grad view whose base has changed since can still take one; an
            # in-place change of the tensor itself starts a new list (_rebase_history).
            # The list exists before grad_fn is read, as PyTorch's dict: when reading
            # it raises (a no_grad view whose base changed), the next hook is taken.
            self._hooks = []
            grad_fn = self.grad_fn
            if grad_fn is not None:
                self._hooks = grad_fn._tensor_hooks(self._output_nr)
            elif self._accumulator is not None:  # a leaf's hooks go to its AccumulateGrad
                self._accumulator._tensor_pre_hooks = self._hooks
                self._accumulator._needs_call = True
        self._hooks.append(hook)
        return autograd.function._RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]):
        """Call ``hook(self)`` after each backward pass has added to this leaf's ``.grad``.

        Unlike :meth:`register_hook`, the hook receives the leaf itself (its ``.grad``
        complete for this pass) and must return None; it runs in no_grad mode (unless
        ``create_graph=True``), so it can update the leaf in place, e.g. a step of
        gradient descent taken during backward: ``p ← p − lr · p.grad``.

        Returns a handle whose ``remove()`` unregisters the hook.

        Examples
        --------
        >>> import autogradkit as torch
        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> def sgd_step(p):
        ...     p.sub_(0.1 * p.grad)
        ...     p.grad = None
        >>> handle = w.register_post_accumulate_grad_hook(sgd_step)
        >>> (w**2).sum().backward()
        >>> w
        tensor([0.8000, 1.6000], requires_grad=True)
        >>> handle.remove()
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        return self._grad_accumulator().register_post_accumulate_hook(hook)

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
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new leaf that shares this tensor's data (and version counter) but is cut
        out of the graph: ``requires_grad=False``."""
        # A view, not the array itself: each tensor has its own array object, which
        # is how an operation tells which operand a saved array came from.
        t = Tensor._make(self._data.view())
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor out of the graph in place: it becomes a leaf that does not
        require grad. Refused on a view, as in PyTorch: a view's history is tied to
        its base's (use ``detach()``, which makes a new tensor)."""
        if self._view is not None:
            raise RuntimeError(DETACH_VIEW_MESSAGE)
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The tensor's values as a tensor outside the graph: like ``detach()``, but
        with a version counter of its own, as in PyTorch, so an in-place change made
        through it goes unseen by autograd's check of saved tensors: a backward pass
        then silently uses the changed values (why ``detach()`` is the safe choice)."""
        return Tensor._make(self._data.view())  # (its own array object, as detach's)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = (  # (its own array object, as detach() gives)
            value._data.view()
            if isinstance(value, Tensor)
            else np.asarray(value, dtype=self._data.dtype)
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

    def element_size(self) -> int:
        """Bytes per element: 4 for float32, 8 for float64 and int64, 1 for bool."""
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element, as :meth:`element_size`."""
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take: ``numel() * element_size()``."""
        return self._data.size * self._data.itemsize

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
        from ._parameter_marks import is_marked, is_uninitialized
        from ._tensor_str import format_tensor

        if is_uninitialized(self):  # a lazy module's parameter before its first call
            return "<UninitializedParameter>"

        try:
            grad_fn = self.grad_fn
        except RuntimeError:  # a history that cannot be regenerated (PyTorch prints this too)
            grad_fn_name: str | None = "Invalid"
        else:
            grad_fn_name = type(grad_fn).__name__ if grad_fn is not None else None
        forward_ad = autograd.forward_ad
        tangent = forward_ad.tangent_of(self) if forward_ad.state.level is not None else None
        text = format_tensor(
            self._data,
            dtype_name=self._data.dtype.name,
            default_dtype_name=_dtype.default_float().name,
            requires_grad=self.requires_grad,
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
    if not ndim:
        return 0  # a 0-d tensor's one "dimension" (-1 and 0 both name it)
    return dim + ndim if dim < 0 else dim
