"""Modules: containers of parameters with a ``forward`` (mirrors ``torch.nn.Module``).

A module is autograd's user, nothing more: ``model(x)`` runs ``forward``, which
applies ordinary tensor operations to the input and to the module's parameters,
so the output's graph reaches the parameters and ``loss.backward()`` fills their
``.grad``. What a Module adds is bookkeeping:

* assigning a :class:`Parameter` or a Module to an attribute registers it, so
  ``parameters()`` can find every parameter of a model, children included;
* ``zero_grad()`` resets the ``.grad`` of all of them;
* ``train()``/``eval()`` set a flag some layers read;
* ``repr`` prints the tree of modules as PyTorch does.

>>> import autogradkit as torch
>>> model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
>>> model
Sequential(
  (0): Linear(in_features=3, out_features=1, bias=True)
  (1): Flatten(start_dim=0, end_dim=1)
)
>>> [name for name, _ in model.named_parameters()]
['0.weight', '0.bias']
"""

from __future__ import annotations

import math
import operator
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .. import _creation
from ..autograd.grad_mode import no_grad
from ..ops import pointwise, shape
from ..tensor import Tensor
from . import functional as F
from . import init
from .backward_hook import BackwardHook
from .parameter import Parameter, UninitializedParameter, materialize

__all__ = [
    "Module",
    "Linear",
    "LazyLinear",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Embedding",
    "LayerNorm",
    "BatchNorm1d",
    "Flatten",
    "Unflatten",
    "Identity",
    "CosineSimilarity",
    "PairwiseDistance",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "Softmin",
    "ReLU",
    "LeakyReLU",
    "GELU",
    "ELU",
    "SiLU",
    "Softplus",
    "Softshrink",
    "Hardshrink",
    "Tanhshrink",
    "Threshold",
    "PReLU",
    "ReLU6",
    "Hardtanh",
    "SELU",
    "CELU",
    "Mish",
    "LogSigmoid",
    "Softsign",
    "Hardswish",
    "Hardsigmoid",
    "Dropout",
    "Tanh",
    "Sigmoid",
    "Softmax",
    "LogSoftmax",
    "MSELoss",
    "L1Loss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "TripletMarginLoss",
    "MultiLabelSoftMarginLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
]


def _quoted(names: list[str]) -> str:
    return ", ".join(f'"{name}"' for name in names)


class _IncompatibleKeys(NamedTuple):
    """What :meth:`Module.load_state_dict` returns."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
            f"unexpected_keys={self.unexpected_keys})"
        )

    def __str__(self) -> str:
        return repr(self)


class Module:
    """Base class of every layer and model. Subclasses set parameters and
    submodules as attributes in ``__init__`` (after ``super().__init__()``) and
    define ``forward``."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        # Tensors that are state but not parameters (running statistics, constant
        # tables): saved in state_dict(), moved by to(), never given to an optimizer.
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        # (hook, takes kwargs) pairs, run by __call__ around forward
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_backward_pre_hooks", [])
        object.__setattr__(self, "_backward_hooks", [])
        object.__setattr__(self, "training", True)

    # -- registration ------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")
        # A replacement keeps its predecessor's place (model.fc = nn.Linear(...) does
        # not move fc's parameters to the end of named_parameters()), as PyTorch:
        # only the other registry forgets the name. A plain attribute of that name
        # (the None of Linear(bias=False)'s bias) goes, or it would hide the new value.
        buffers = self.__dict__.get("_buffers", {})
        if isinstance(value, Parameter):
            self.__dict__.pop(name, None)
            self._modules.pop(name, None)
            buffers.pop(name, None)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self.__dict__.pop(name, None)
            self._parameters.pop(name, None)
            buffers.pop(name, None)
            self._modules[name] = value
        elif name in self._parameters:  # a parameter takes only a Parameter (or None)
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, None)
        elif name in self._modules:  # a child module takes only a Module (or None)
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules.pop(name)
            object.__setattr__(self, name, None)
        elif name in buffers:  # a registered buffer takes a new tensor (or None)
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = value
        else:
            self._parameters.pop(name, None)
            self._modules.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: parameters and submodules live in
        # the two dictionaries, not in the instance's __dict__.
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Tensor | None) -> None:
        if param is None:
            self._parameters.pop(name, None)
            object.__setattr__(self, name, None)
        else:
            setattr(self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Keep ``tensor`` as this module's state under ``name`` (read back as
        ``self.name``): not a parameter, so no optimizer updates it, but saved in
        ``state_dict()`` (unless ``persistent=False``) and moved by ``to()``.

        Examples
        --------
        >>> import autogradkit as torch
        >>> counter = torch.nn.Module()
        >>> counter.register_buffer("steps", torch.zeros(1))
        >>> counter.steps += 1
        >>> counter.state_dict()
        OrderedDict([('steps', tensor([1.]))])
        """
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_type_name(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path ``target`` (``"1.0"``: child 0 of child 1;
        ``""``: this module)."""
        module = self
        for name in target.split(".") if target else []:
            if not hasattr(module, name):
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            module = getattr(module, name)
            if not isinstance(module, Module):
                raise AttributeError(f"`{name}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Tensor:
        """The parameter at the dotted path ``target`` (``"1.0.weight"``), as
        ``named_parameters()`` names it.

        Examples
        --------
        >>> import autogradkit as torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1))
        >>> model.get_parameter("1.bias").shape
        autogradkit.Size([1])
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def register_module(self, name: str, module: Module | None) -> None:
        """:meth:`add_module` under PyTorch's other name."""
        self.add_module(name, module)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child called ``name`` (what attribute
        assignment does, for names that are not identifiers: ``"0"``), refusing
        what PyTorch refuses: a non-module, a name that is not a string, has a dot
        (names are joined with dots in ``named_parameters``), is empty, or is taken
        by an attribute (``forward``)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_type_name(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    # -- running ---------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        """``forward`` between the hooks: each pre-hook may replace the arguments,
        each forward hook the output, in the order they were registered; with
        backward hooks, the tensor arguments and outputs pass through identity
        nodes that will see their gradients (see backward_hook.py)."""
        args, kwargs = self._run_forward_pre_hooks(args, kwargs)
        backward_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(
                self,
                [hook for (hook,) in self._backward_hooks],
                [hook for (hook,) in self._backward_pre_hooks],
            )
            args = backward_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hook, with_kwargs in list(self._forward_hooks):
            replaced = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if replaced is not None:
                output = replaced
        if backward_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(output)}",
                    stacklevel=3,
                )
            output = backward_hook.setup_output_hook(output)
        return output

    def _run_forward_pre_hooks(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments after the forward pre-hooks, each of which may replace them."""
        for hook, with_kwargs in list(self._forward_pre_hooks):
            if with_kwargs:
                replaced = hook(self, args, kwargs)
                if replaced is not None:
                    if not (isinstance(replaced, tuple) and len(replaced) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {replaced}."
                        )
                    args, kwargs = replaced
            else:
                replaced = hook(self, args)
                if replaced is not None:
                    args = replaced if isinstance(replaced, tuple) else (replaced,)
        return args, kwargs

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> _HookHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with
        respect to the module's inputs have been computed in a backward pass: one
        entry per positional argument (None for one that is not a tensor), and one
        per output. A result other than None replaces ``grad_input``. If no input
        requires grad, the hook runs with the output's gradients and None for the
        inputs (PyTorch warns then). The module's outputs (and inputs inside
        ``forward``) pass through ``BackwardHookFunctionBackward`` nodes.

        Examples
        --------
        >>> import autogradkit as torch
        >>> layer = torch.nn.Linear(2, 1)
        >>> def show(module, grad_input, grad_output):
        ...     print("grad_input:", grad_input, "grad_output:", grad_output)
        >>> handle = layer.register_full_backward_hook(show)
        >>> x = torch.ones(1, 2, requires_grad=True)
        >>> y = layer(x)
        >>> y.grad_fn.name()
        'BackwardHookFunctionBackward'
        >>> y.backward(torch.tensor([[3.0]]))  # doctest: +ELLIPSIS
        grad_input: (tensor([[...]]),) grad_output: (tensor([[3.]]),)
        >>> handle.remove()
        """
        return _registered(self._backward_hooks, (hook,), prepend)

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> _HookHandle:
        """Call ``hook(module, grad_output)`` when the gradients with respect to the
        module's outputs have been computed, before those with respect to its
        inputs; a result other than None replaces ``grad_output``."""
        return _registered(self._backward_pre_hooks, (hook,), prepend)

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> _HookHandle:
        """Call ``hook(module, args)`` before each ``forward``; a result other than
        None replaces the arguments (a single value is made a 1-tuple). With
        ``with_kwargs=True``: ``hook(module, args, kwargs)``, returning None or
        ``(args, kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
        return _registered(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> _HookHandle:
        """Call ``hook(module, args, output)`` after each ``forward`` (the usual way
        to look at a layer's activations); a result other than None replaces the
        output. With ``with_kwargs=True``: ``hook(module, args, kwargs, output)``.
        Returns a handle whose ``remove()`` unregisters it.

        Examples
        --------
        >>> import autogradkit as torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
        >>> seen = {}
        >>> def keep(module, args, output):
        ...     seen[type(module).__name__] = output.detach()
        >>> handle = model[1].register_forward_hook(keep)
        >>> _ = model(torch.ones(1, 2))
        >>> list(seen)
        ['ReLU']
        >>> handle.remove()
        """
        return _registered(self._forward_hooks, (hook, with_kwargs), prepend)

    # -- walking the tree -------------------------------------------------------------
    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(name, parameter)`` for this module's parameters, then its children's
        (``"0.weight"``); a parameter shared by two modules is listed once."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for module_prefix, module in modules:
            for name, param in module._parameters.items():
                if id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(name, buffer)`` for this module's buffers, then its children's."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for module_prefix, module in modules:
            for name, buffer in module._buffers.items():
                if buffer is None or (remove_duplicate and id(buffer) in seen):
                    continue
                seen.add(id(buffer))
                yield (f"{module_prefix}.{name}" if module_prefix else name), buffer

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def _named_state(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        """What ``state_dict()`` saves, in PyTorch's order: each module's parameters,
        then its persistent buffers, then its children's, depth first. Unlike
        ``named_parameters()`` nothing is skipped as a duplicate: a layer used twice
        is saved under both names, as PyTorch saves it."""
        for name, param in self._parameters.items():
            if param is not None:
                yield prefix + name, param
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                yield prefix + name, buffer
        for name, child in self._modules.items():
            if child is not None:
                yield from child._named_state(prefix + name + ".")

    def named_children(self) -> Iterator[tuple[str, Module]]:
        for name, module in self._modules.items():
            if module is not None:
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every module below it, depth first, each once."""
        seen: set[int] = set()
        pending = [(prefix, self)]
        while pending:
            name, module = pending.pop(0)
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            children = [
                (f"{name}.{child_name}" if name else child_name, child)
                for child_name, child in module.named_children()
            ]
            pending[:0] = children

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every child module (recursively), then on this one, and
        return this module: the usual way to initialise a model's layers.

        Examples
        --------
        >>> import autogradkit as torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
        >>> def zero_biases(m):
        ...     if isinstance(m, torch.nn.Linear):
        ...         torch.nn.init.zeros_(m.bias)
        >>> model.apply(zero_biases)[1].bias
        Parameter containing:
        tensor([0.], requires_grad=True)
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def state_dict(self) -> OrderedDict:
        """Every parameter and persistent buffer by name, detached (for saving or
        comparing)."""
        return OrderedDict(
            # (a lazy module's parameter before its first call is listed as it is)
            (name, p if isinstance(p, UninitializedParameter) else p.detach())
            for name, p in self._named_state()
        )

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False):
        """Copy the parameters' values from ``state_dict`` (as :meth:`state_dict`
        gives it). Returns the names missing from it and the names it has that this
        module has not; with ``strict`` (the default) either is an error, and so,
        always, is a value of another shape (PyTorch's message lists them all,
        after copying what fits). With ``assign=True`` the values themselves become
        the parameters (their dtype kept; a tensor that is not a Parameter is
        wrapped in one), each requiring grad as the parameter it replaces did.

        >>> import autogradkit as torch
        >>> layer = torch.nn.Linear(2, 1)
        >>> layer.load_state_dict({"weight": torch.ones(1, 2), "bias": torch.zeros(1)})
        <All keys matched successfully>
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = dict(self._named_state())
        missing = [name for name in own if name not in state_dict]
        unexpected = [name for name in state_dict if name not in own]
        errors = []
        with no_grad():
            for name, param in own.items():
                if name not in state_dict:
                    continue
                value = state_dict[name]
                if isinstance(param, UninitializedParameter):
                    # A lazy module takes the checkpoint's shapes (before any call).
                    materialize(param, tuple(value.shape))
                if tuple(value.shape) != tuple(param.shape):
                    errors.append(
                        f"size mismatch for {name}: copying a param with shape {value.shape} from "
                        f"checkpoint, the shape in current model is {param.shape}."
                    )
                elif assign:
                    self._assign_parameter(name, param, value)
                else:
                    param.copy_(value)
        # PyTorch lists missing, then unexpected names, before the size mismatches.
        if strict and unexpected:
            errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
        if strict and missing:
            errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def _assign_parameter(self, name: str, param: Tensor, value: Tensor) -> None:
        """``load_state_dict(..., assign=True)`` for the parameter called ``name``
        (``"0.weight"``: found through the child modules)."""
        *path, attribute = name.split(".")
        owner = self
        for part in path:
            owner = owner._modules[part]
        if attribute in owner._buffers:  # a buffer takes the tensor as it is
            owner._buffers[attribute] = value
            return
        if not isinstance(value, Parameter):
            value = Parameter(value, requires_grad=param.requires_grad)
        value.requires_grad_(param.requires_grad)
        setattr(owner, attribute, value)

    # -- state ---------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the ``.grad`` of every parameter: to None (the default, as in
        PyTorch 2), or to zeros."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                # As PyTorch: detach_() only a grad with a history (a view may not be detached
                # in place; a leaf grad, view or not, just stops requiring grad).
                if param.grad.grad_fn is not None:
                    param.grad.detach_()
                else:
                    param.grad.requires_grad_(False)
                param.grad.zero_()

    def train(self, mode: bool = True) -> Module:
        """Set ``training`` on this module and every module below it."""
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move to a device (only the CPU exists) or convert floating-point
        parameters and buffers to a dtype, in place."""
        for param in self.parameters():
            converted = param.to(*args, **kwargs)
            if converted is not param:
                param.data = converted
        for module in self.modules():
            for name, buffer in module._buffers.items():
                # (an integer buffer, a step count say, keeps its dtype, as in PyTorch)
                if buffer is not None and buffer.is_floating_point():
                    module._buffers[name] = buffer.to(*args, **kwargs)
        return self

    def cpu(self) -> Module:
        return self

    def double(self) -> Module:
        from .._dtype import float64

        return self.to(float64)

    def float(self) -> Module:
        from .._dtype import float32

        return self.to(float32)

    # -- printing ------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text between the parentheses of this module's repr (override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + _indent(repr(module), 2) for name, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __dir__(self) -> list[str]:
        registered = set(self._parameters) | set(self._buffers) | set(self._modules)
        return sorted(set(super().__dir__()) | registered)


class _HookHandle:
    """What the ``register_*_hook`` methods return: ``remove()`` unregisters the hook."""

    def __init__(self, hooks: list, entry: tuple) -> None:
        self._hooks, self._entry = hooks, entry

    def remove(self) -> None:
        # By identity: the same function registered twice is two entries.
        for index, registered in enumerate(self._hooks):
            if registered is self._entry:
                del self._hooks[index]
                return


def _registered(hooks: list, entry: tuple, prepend: bool) -> _HookHandle:
    """Add ``entry`` to ``hooks`` (first with ``prepend``) and return its handle."""
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return _HookHandle(hooks, entry)


def _type_name(value: Any) -> str:
    """How PyTorch's errors name a value's type (``torch.typename``): a tensor by
    its legacy type (``torch.FloatTensor``), anything else by its class."""
    return value.type() if isinstance(value, Tensor) else type(value).__name__


def _indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


# ----------------------------------------------------------------------------- layers


class Linear(Module):
    """y = x·Wᵀ + b, with W of shape (out_features, in_features).

    W and b start uniform in ±1/√in_features, drawn as PyTorch draws them, so after
    ``torch.manual_seed(s)`` a Linear has PyTorch's numbers.
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(
            _creation.empty(out_features, in_features, dtype=dtype, device=device)
        )
        if bias:
            self.bias = Parameter(_creation.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class LazyLinear(Linear):
    """A Linear layer whose ``in_features`` is read from its first input: until then
    its parameters are uninitialized (``<UninitializedParameter>``); the first call
    gives them their shapes, draws them as ``Linear`` draws them (so the numbers are
    PyTorch's after the same seed), and the module becomes a ``Linear``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> layer = torch.nn.LazyLinear(2)
    >>> layer
    LazyLinear(in_features=0, out_features=2, bias=True)
    >>> layer(torch.ones(5, 3)).shape
    autogradkit.Size([5, 2])
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    """

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        Module.__init__(self)  # (not Linear's: there is no in_features to draw for yet)
        self.in_features = 0
        self.out_features = out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.in_features != 0 and not isinstance(self.weight, UninitializedParameter):
            super().reset_parameters()

    def forward(self, input: Tensor) -> Tensor:
        if self.in_features == 0:  # (also when loaded from a checkpoint, as PyTorch)
            self.in_features = input.shape[-1]
        if isinstance(self.weight, UninitializedParameter):
            with no_grad():
                materialize(self.weight, (self.out_features, self.in_features))
                if self.bias is not None:
                    materialize(self.bias, (self.out_features,))
                self.reset_parameters()
        # From now on an ordinary Linear (as in PyTorch, type(layer) changes too).
        self.__class__ = Linear  # type: ignore[assignment]
        return F.linear(input, self.weight, self.bias)


class Sequential(Module):
    """Modules applied one after the other: ``Sequential(a, b)(x)`` is ``b(a(x))``."""

    def __init__(self, *modules: Any) -> None:  # modules, or one OrderedDict of them
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):  # keeps the modules' names, as PyTorch's does
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._name_at(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(
                f"cannot assign '{type(module).__name__}' as child module '{index}' "
                "(torch.nn.Module or None expected)"
            )
        self._modules[self._name_at(index)] = module

    def __delitem__(self, index: int | slice) -> None:
        names = list(self._modules)
        doomed = names[index] if isinstance(index, slice) else [self._name_at(index)]
        for name in doomed:
            del self._modules[name]
        self._name_in_order(list(self._modules.values()))

    def _name_at(self, index: int) -> str:
        """The name of the module at ``index`` (negative counts from the end)."""
        index = operator.index(index)
        size = len(self._modules)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return list(self._modules)[index % size]

    def _name_in_order(self, modules: list[Module]) -> None:
        """Hold ``modules`` named 0, 1, 2, … (after a removal or an insertion, as PyTorch)."""
        self._modules.clear()
        for index, module in enumerate(modules):
            self._modules[str(index)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        return Sequential(*self, *other)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._name_in_order(modules)
        return self

    def pop(self, index: int | slice) -> Module:
        module = self[index]
        del self[index]
        return module


def _absolute_index(index: int, size: int) -> str:
    """The name of position ``index`` (negative counts from the end) in a list-like
    container of ``size`` entries, with PyTorch's error beyond either end."""
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of range")
    return str(index % size)


class ModuleList(Module):
    """Modules held in a list, registered as children ``0``, ``1``, … so that
    ``parameters()`` finds their parameters (a plain Python list would hide them).
    It has no ``forward``: the model that holds it decides how to call them.

    Examples
    --------
    >>> import autogradkit as torch
    >>> layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
    >>> layers.append(torch.nn.Linear(2, 1))
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
      (3): Linear(in_features=2, out_features=1, bias=True)
    )
    >>> [name for name, _ in layers.named_parameters()][:3]
    ['0.weight', '0.bias', '1.weight']
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):  # a new list, named 0, 1, … again
            return type(self)(list(self._modules.values())[index])
        return self._modules[_absolute_index(index, len(self))]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, _absolute_index(index, len(self)), module)

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            for position in range(len(self))[index]:
                del self._modules[str(position)]
        else:
            del self._modules[_absolute_index(index, len(self))]
        # The rest are renamed 0, 1, … so that names keep being positions.
        remaining = list(self._modules.values())
        self._modules.clear()
        for position, module in enumerate(remaining):
            self._modules[str(position)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for module in [*self, *other]:
            combined.append(module)
        return combined

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``, moving the later ones up one."""
        for position in range(len(self), index, -1):
            self._modules[str(position)] = self._modules[str(position - 1)]
        self._modules[str(index)] = module

    def pop(self, index: int | slice) -> Any:
        module = self[index]
        del self[index]
        return module

    def __repr__(self) -> str:
        """As PyTorch prints it: a run of modules that print alike is one line,
        ``(0-2): 3 x Linear(...)``."""
        texts = [repr(module) for module in self]
        if not texts:
            return self._get_name() + "()"
        runs: list[tuple[int, int, str]] = []  # (first, last, text)
        for position, text in enumerate(texts):
            if runs and runs[-1][2] == text:
                runs[-1] = (runs[-1][0], position, text)
            else:
                runs.append((position, position, text))
        lines = []
        for first, last, text in runs:
            label = f"({first}): " if first == last else f"({first}-{last}): {last - first + 1} x "
            lines.append(_indent(label + text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Modules held in a dictionary, by name, in the order they were added, each
    registered as a child (``parameters()`` finds theirs).

    Examples
    --------
    >>> import autogradkit as torch
    >>> heads = torch.nn.ModuleDict({"relu": torch.nn.ReLU(), "tanh": torch.nn.Tanh()})
    >>> heads["tanh"](torch.tensor([0.0]))
    tensor([0.])
    >>> list(heads)
    ['relu', 'tanh']
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add (or replace) modules from a mapping or from ``(name, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for position, pair in enumerate(modules):
            # (PyTorch's message has no space after 'is'.)
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ModuleDict update sequence element #{position} should be Iterable; "
                    f"is{type(pair).__name__}"
                )
            pair = list(pair)
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{position} has length {len(pair)}; "
                    "2 is required"
                )
            self[pair[0]] = pair[1]


class ParameterList(Module):
    """Parameters held in a list, registered as ``0``, ``1``, … (a tensor that is
    not yet a Parameter becomes one), so that ``parameters()`` and optimizers see
    them. It is not callable.

    Examples
    --------
    >>> import autogradkit as torch
    >>> weights = torch.nn.ParameterList([torch.ones(2, 3), torch.zeros(3)])
    >>> weights
    ParameterList(
        (0): Parameter containing: [autogradkit.float32 of size 2x3]
        (1): Parameter containing: [autogradkit.float32 of size 3]
    )
    >>> [name for name, _ in weights.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return type(self)([self[position] for position in range(len(self))[index]])
        return getattr(self, _absolute_index(index, len(self)))

    def __setitem__(self, index: int, value: Any) -> None:
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, _absolute_index(index, len(self)), value)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[position] for position in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        # A tensor is iterable, but extending by its rows is surely a mistake.
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        lines = []
        for position, value in enumerate(self):
            if isinstance(value, Tensor):
                kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
                size = "x".join(str(length) for length in value.shape)
                described = f"{kind} containing: [{value.dtype} of size {size}]"
            else:
                described = f"Object of type: {type(value).__name__}"
            lines.append(f"  ({position}): {described}")
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters held in an ordered dictionary with string keys, registered under
    those keys (a tensor that is not yet a Parameter becomes one), so that
    ``parameters()`` and optimizers see them. It is not callable.

    Examples
    --------
    >>> import autogradkit as torch
    >>> weights = torch.nn.ParameterDict({"left": torch.ones(2, 3), "right": torch.zeros(3)})
    >>> weights
    ParameterDict(
        (left): Parameter containing: [torch.FloatTensor of size 2x3]
        (right): Parameter containing: [torch.FloatTensor of size 3]
    )
    >>> [name for name, _ in weights.named_parameters()]
    ['left', 'right']
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}  # the order of the keys (values are attributes)
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        attribute = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attribute, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in self._keys.copy():
            del self[key]

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        key, _ = self._keys.popitem()  # the last key (read, then deleted with its value)
        self._keys[key] = None
        value = self[key]
        del self[key]
        return key, value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (this is get)

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((key, default) for key in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((key, self[key]) for key in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[key] for key in self._keys)

    def update(self, parameters: Any) -> None:
        """Add or replace entries from a mapping or from (key, value) pairs; a plain
        ``dict`` is added in sorted key order (as PyTorch does), an ``OrderedDict``
        or ParameterDict in its own order."""
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value "
                "pairs, but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            for position, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(
                        f"ParameterDict update sequence element #{position} should be "
                        f"Iterable; is{type(pair).__name__}"
                    )
                pair = list(pair)  # (PyTorch takes len() of it and indexes it)
                if len(pair) != 2:
                    raise ValueError(
                        f"ParameterDict update sequence element #{position} has length "
                        f"{len(pair)}; 2 is required"
                    )
                self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        lines = []
        for key, value in self.items():
            if isinstance(value, Tensor):
                kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
                size = "x".join(str(length) for length in value.shape)
                # (PyTorch names the tensor type here, where ParameterList names the dtype)
                described = f"{kind} containing: [{value.type()} of size {size}]"
            else:
                described = f"Object of type: {type(value).__name__}"
            lines.append(f"  ({key}): {described}")
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``, looked up by
    index: ``nn.functional.embedding``. The weight starts standard normal (PyTorch's
    numbers after the same ``manual_seed``), with the ``padding_idx`` row zero.

    Examples
    --------
    >>> import autogradkit as torch
    >>> table = torch.nn.Embedding(10, 3, padding_idx=0)
    >>> table
    Embedding(10, 3, padding_idx=0)
    >>> table(torch.tensor([[0, 4], [4, 9]])).shape
    autogradkit.Size([2, 2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(
                _creation.empty(num_embeddings, embedding_dim, dtype=dtype, device=device),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text


class LayerNorm(Module):
    """Normalise each sample over its last dimensions (``normalized_shape``), then
    scale and shift by learned ``weight`` (ones) and ``bias`` (zeros):
    ``nn.functional.layer_norm``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> norm = torch.nn.LayerNorm(3)
    >>> norm
    LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> norm(torch.tensor([[1.0, 2.0, 3.0]]))
    tensor([[-1.2247,  0.0000,  1.2247]], grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...] | list[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(
                _creation.ones(*self.normalized_shape, dtype=dtype, device=device)
            )
            if bias:
                self.bias = Parameter(
                    _creation.zeros(*self.normalized_shape, dtype=dtype, device=device)
                )
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class BatchNorm1d(Module):
    """Normalise each of ``num_features`` channels over the batch: ``(N, C)`` or
    ``(N, C, L)`` inputs (``nn.functional.batch_norm``). Training uses the batch's
    statistics and moves the running ones (buffers ``running_mean``,
    ``running_var``, ``num_batches_tracked``) towards them; ``eval()`` uses the
    running ones. ``momentum=None`` keeps a plain average of all batches instead.

    Examples
    --------
    >>> import autogradkit as torch
    >>> norm = torch.nn.BatchNorm1d(2)
    >>> norm
    BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> list(norm.state_dict())
    ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_creation.zeros(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", _creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the average of every batch so far
                factor = 1.0 / float(self.num_batches_tracked)
        # The batch's statistics in training, and in eval when there are no running ones.
        batch_statistics = self.training or self.running_mean is None
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            batch_statistics,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class Flatten(Module):
    """Flatten dimensions ``start_dim``..``end_dim`` into one (default: all but the batch)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return shape.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one size may be −1, inferred):
    the inverse of Flatten, recorded as a view (``ViewBackward0``).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.Unflatten(1, (2, 3))(torch.ones(4, 6)).shape
    autogradkit.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        shape = list(input.shape)
        dim = self.dim % len(shape) if shape else 0
        sizes = [int(size) for size in self.unflattened_size]
        known = math.prod(size for size in sizes if size != -1)
        if -1 in sizes and known and shape[dim] % known == 0:
            sizes[sizes.index(-1)] = shape[dim] // known
        if math.prod(sizes) != shape[dim]:
            raise RuntimeError(
                f"unflatten: Provided sizes {[int(s) for s in self.unflattened_size]} don't "
                f"multiply up to the size of dim {self.dim} ({shape[dim]}) in the input tensor"
            )
        return input.view(*shape[:dim], *sizes, *shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size!r}"


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class CosineSimilarity(Module):
    """The cosine of the angle between two inputs along ``dim``:
    ``nn.functional.cosine_similarity``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> similarity = torch.nn.CosineSimilarity(dim=0)
    >>> similarity(torch.tensor([1.0, 1.0]), torch.tensor([2.0, 0.0]))
    tensor(0.7071)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm distance between rows: ``nn.functional.pairwise_distance``."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class _ConstantPadNd(Module):
    """Pads its input's last dimensions with ``value``: ``nn.functional.pad``."""

    dimensions: int  # how many trailing dimensions it pads

    def __init__(self, padding: int | Iterable[int], value: float) -> None:
        super().__init__()
        # A number pads every side by it; a sequence is (before, after) per
        # dimension, the last dimension first.
        if isinstance(padding, Iterable):
            self.padding = tuple(padding)
        else:
            self.padding = (padding,) * (2 * self.dimensions)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with ``value`` (left, right)."""

    dimensions = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with ``value`` (left, right, top, bottom).

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.ConstantPad2d((1, 0, 0, 1), 9.0)(torch.ones(1, 1, 2))
    tensor([[[9., 1., 1.],
             [9., 9., 9.]]])
    """

    dimensions = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with ``value``."""

    dimensions = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding: int | Iterable[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros (left, right, top, bottom)."""

    def __init__(self, padding: int | Iterable[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding: int | Iterable[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReLU(Module):
    """max(x, 0) elementwise."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return input.relu_() if self.inplace else pointwise.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x where x > 0, else ``negative_slope``·x: ``nn.functional.leaky_relu``."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class GELU(Module):
    """x·Φ(x), or its tanh approximation: ``nn.functional.gelu``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.GELU(approximate="tanh")
    GELU(approximate='tanh')
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class ELU(Module):
    """x where x > 0, else α(eˣ − 1): ``nn.functional.elu``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class SiLU(Module):
    """x·σ(x): ``nn.functional.silu``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """log(1 + e^(βx))/β: ``nn.functional.softplus``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """x where x > 0, else a·x, with the slope a a parameter (one, or one per
    channel), initialised to ``init``: ``nn.functional.prelu``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> torch.nn.PReLU(3)
    PReLU(num_parameters=3)
    >>> torch.nn.PReLU().weight
    Parameter containing:
    tensor([0.2500], requires_grad=True)
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Hardtanh(Module):
    """x clipped to [``min_val``, ``max_val``]: ``nn.functional.hardtanh``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val, (
            f"max_val ({max_val}) must be greater than min_val ({min_val})"
        )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): a :class:`Hardtanh` from 0 to 6."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class SELU(Module):
    """λ·ELU with PyTorch's self-normalising constants: ``nn.functional.selu``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    """x where x > 0, else α(e^(x/α) − 1): ``nn.functional.celu``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class Mish(Module):
    """x·tanh(softplus(x)): ``nn.functional.mish``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LogSigmoid(Module):
    """log σ(x): ``nn.functional.logsigmoid``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|): ``nn.functional.softsign``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Hardswish(Module):
    """x·relu6(x + 3)/6: ``nn.functional.hardswish`` (PyTorch's repr does not show
    ``inplace``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    """relu6(x + 3)/6: ``nn.functional.hardsigmoid`` (PyTorch's repr does not show
    ``inplace``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Softshrink(Module):
    """x − λ above λ, x + λ below −λ, 0 between: ``nn.functional.softshrink``."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    """x where |x| > λ, else 0: ``nn.functional.hardshrink``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Tanhshrink(Module):
    """x − tanh(x): ``nn.functional.tanhshrink``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Threshold(Module):
    """x where x > ``threshold``, else ``value``: ``nn.functional.threshold``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class Dropout(Module):
    """During training, zero each element with probability ``p`` and scale the rest
    by 1/(1 − p); after ``model.eval()``, pass the input through:
    ``nn.functional.dropout``.

    Examples
    --------
    >>> import autogradkit as torch
    >>> layer = torch.nn.Dropout(p=0.25)
    >>> layer
    Dropout(p=0.25, inplace=False)
    >>> x = torch.ones(3)
    >>> layer.eval()(x) is x
    True
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Tanh(Module):
    """tanh elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return pointwise.tanh(input)


class Sigmoid(Module):
    """σ(x) = 1/(1 + e⁻ˣ) elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return pointwise.sigmoid(input)


class Softmax(Module):
    """softmax along ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)  # the warning names your line

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Softmax):
    """softmax of −x along ``dim``: ``nn.functional.softmin``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)  # the warning names your line


class LogSoftmax(Softmax):
    """log_softmax along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


# ----------------------------------------------------------------------------- losses


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    """Mean (or sum) of squared differences: ``nn.functional.mse_loss``."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean (or sum) of absolute differences: ``nn.functional.l1_loss``.

    .. math:: \\ell(x, y) = \\frac{1}{N} \\sum_i |x_i - y_i|

    Examples
    --------
    >>> import autogradkit as torch
    >>> loss_fn = torch.nn.L1Loss()
    >>> loss_fn(torch.tensor([1.0, 3.0]), torch.tensor([2.0, 2.0]))
    tensor(1.)
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error beyond: ``nn.functional.smooth_l1_loss``.

    .. math:: \\ell(d) = \\tfrac{d^2}{2\\beta} \\text{ for } |d| < \\beta, \\text{ else }
        |d| - \\tfrac{\\beta}{2} \\qquad (d = x - y)

    Examples
    --------
    >>> import autogradkit as torch
    >>> loss_fn = torch.nn.SmoothL1Loss(beta=0.5)
    >>> loss_fn(torch.tensor([0.0, 3.0]), torch.tensor([0.25, 2.0]))
    tensor(0.4062)
    """

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta``-scaled absolute error beyond:
    ``nn.functional.huber_loss``.

    .. math:: \\ell(d) = \\tfrac12 d^2 \\text{ for } |d| < \\delta, \\text{ else }
        \\delta\\,(|d| - \\tfrac12\\delta) \\qquad (d = x - y)

    Examples
    --------
    >>> import autogradkit as torch
    >>> loss_fn = torch.nn.HuberLoss(delta=0.5)
    >>> loss_fn(torch.tensor([0.0, 3.0]), torch.tensor([0.25, 2.0]))
    tensor(0.2031)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """The Kullback–Leibler divergence of the target from the input's distribution
    (the input holds log-probabilities): ``nn.functional.kl_div``. Use
    ``reduction='batchmean'`` for the divergence per sample.

    Examples
    --------
    >>> import autogradkit as torch
    >>> loss_fn = torch.nn.KLDivLoss(reduction="batchmean")
    >>> loss_fn(torch.tensor([[0.5, 0.5]]).log(), torch.tensor([[0.9, 0.1]]))
    tensor(0.3681)
    """

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """max(0, −y·(x₁ − x₂) + margin): ``nn.functional.margin_ranking_loss``."""

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """x for similar pairs, max(0, margin − x) for dissimilar ones:
    ``nn.functional.hinge_embedding_loss``."""

    def __init__(
        self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, d(a, p) − d(a, n) + margin): ``nn.functional.triplet_margin_loss``."""

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


class MultiLabelSoftMarginLoss(_Loss):
    """Per-class binary cross-entropy of logits, averaged over the classes:
    ``nn.functional.multilabel_soft_margin_loss``."""

    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class PoissonNLLLoss(_Loss):
    """The Poisson negative log-likelihood of counts: ``nn.functional.poisson_nll_loss``."""

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average=None,
        eps: float = 1e-8,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log-likelihood with predicted variances:
    ``nn.functional.gaussian_nll_loss``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class NLLLoss(_Loss):
    """Negative log-likelihood of class indices under log-probabilities:
    ``nn.functional.nll_loss`` (``log_softmax`` then ``NLLLoss`` is cross-entropy).

    .. math:: \\ell(x, t) = -\\frac{1}{N} \\sum_n x_{n, t_n}

    Examples
    --------
    >>> import autogradkit as torch
    >>> log_p = torch.tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> torch.nn.NLLLoss()(log_p, torch.tensor([0, 1]))
    tensor(0.3000)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities: ``nn.functional.binary_cross_entropy``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits (σ applied inside, stably)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, weight=self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class CrossEntropyLoss(_Loss):
    """Cross-entropy of class indices under unnormalised scores:
    ``nll_loss(log_softmax(input, 1), target)``, optionally with label smoothing
    (``nn.functional.cross_entropy``)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(F._legacy_reduction(size_average, reduce, reduction))
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )
