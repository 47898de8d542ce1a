"""A module's full backward hooks (mirrors ``torch/utils/hooks.py``'s
``BackwardHook`` and ``torch/nn/modules/_functions.py``'s ``BackwardHookFunction``).

``module.register_full_backward_hook(hook)`` asks for ``hook(module, grad_input,
grad_output)`` once the gradients with respect to the module's inputs are known.
A module is only Python code, so autograd has no node for it: PyTorch passes the
tensor inputs, and then the tensor outputs, through an identity Function,
``BackwardHookFunction``. Its node on the outputs' side sees the gradients with
respect to the outputs (kept as ``grad_output``); its node on the inputs' side sees
those with respect to the inputs, and there the user's hook runs (and may replace
them). That is why a hooked module's output prints
``grad_fn=<BackwardHookFunctionBackward>``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._creation import zeros_like
from ..autograd import grad_mode
from ..autograd.anomaly_mode import _outside_the_package
from ..autograd.custom_function import Function
from ..tensor import Tensor

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """The identity on its tensor arguments (those that do not require grad stay
    without a gradient); its node is where a backward hook waits."""

    formula = r"f(x) = x \qquad \frac{\partial f}{\partial x} = 1 \text{ (the module's hooks see the gradient here)}"

    @staticmethod
    def forward(ctx: Any, *args: Tensor) -> tuple[Tensor, ...]:
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, ...]:
        return grads


class BackwardHook:
    """The backward hooks of one call of ``module``: the gradients with respect to
    its outputs are kept when they reach the outputs' node, then handed to the
    user's hooks with those with respect to its inputs (None for arguments that are
    not tensors)."""

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None
        self.inputs_without_grad: dict[int, Tensor] = {}

    @staticmethod
    def _pack_with_none(indices: list[int], values: Any, size: int) -> tuple:
        """``values`` placed at ``indices`` of a tuple of ``size`` Nones."""
        packed: list[Any] = [None] * size
        for index, value in zip(indices, values, strict=True):
            packed[index] = value
        return tuple(packed)

    @staticmethod
    def _unpack_none(indices: list[int], values: Any) -> tuple:
        return tuple(values[index] for index in indices)

    def _set_user_hook(self, grad_fn: Any) -> None:
        def hook(grad_input: Any, _grad_output: Any) -> tuple | None:
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the
                # outputs (a double backward): no hook, as in PyTorch.
                return None
            assert self.input_tensors_index is not None
            grads = list(grad_input)
            # PyTorch's identity node hands back zeros for an input that does not
            # require grad (its backward gets zeros for that output): so does this.
            for position, tensor in self.inputs_without_grad.items():
                if grads[position] is None:
                    grads[position] = zeros_like(tensor)
            result = self._pack_with_none(self.input_tensors_index, grads, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, result, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(result):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got "
                        f"{len(out)}, but expected {len(result)}"
                    )
                result = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, result)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn: Any, args: tuple) -> tuple[tuple, list[int] | None]:
        """``args`` with their tensors passed through :class:`BackwardHookFunction`
        (when one requires grad and grad mode is on) and ``fn`` given its node."""
        indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in indices]
        requires_grad = any(tensor.requires_grad for tensor in tensors)
        if not (requires_grad and grad_mode.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        if len(new_tensors) == 0:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        grad_fns = [
            t.grad_fn
            for t in new_tensors
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        fn(grad_fns[0])
        replaced = list(args)
        for index, tensor in zip(indices, new_tensors, strict=True):
            replaced[index] = tensor
        return tuple(replaced), indices

    def setup_input_hook(self, args: tuple) -> tuple:
        """The arguments for ``forward``: tensors through the inputs' node."""
        result, indices = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = indices
        if indices is not None:
            self.inputs_without_grad = {
                position: args[index]
                for position, index in enumerate(indices)
                if not args[index].requires_grad
            }
        return result

    def setup_output_hook(self, outputs: Any) -> Any:
        """``forward``'s result, its tensors through the outputs' node."""

        def keep_grad_outputs(grad_fn: Any) -> None:
            def hook(_grad_inputs: Any, grad_output: Any) -> tuple | None:
                assert self.output_tensors_index is not None
                self.grad_outputs = self._pack_with_none(
                    self.output_tensors_index, grad_output, self.n_outputs
                )
                if self.user_pre_hooks:
                    expected = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        replaced = user_pre_hook(self.module, self.grad_outputs)
                        if replaced is None:
                            continue
                        if len(replaced) != expected:
                            raise RuntimeError(
                                "Backward pre hook returned an invalid number of grad_output, "
                                f"got {len(replaced)}, but expected {expected}"
                            )
                        self.grad_outputs = replaced
                grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # No input requires grad: the hooks run now, with None for each.
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients. See "
                        "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                        "#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=_outside_the_package(),  # the line that ran backward
                    )
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        result = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if result is not None and not (
                            isinstance(result, tuple) and all(g is None for g in result)
                        ):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients."
                            )
                    self.grad_outputs = None
                return tuple(grad_outputs[i] for i in self.output_tensors_index)

            grad_fn.register_hook(hook)

        is_tuple = isinstance(outputs, tuple)
        as_tuple = outputs if is_tuple else (outputs,)
        result, indices = self._apply_on_tensors(keep_grad_outputs, as_tuple)
        self.n_outputs = len(as_tuple)
        self.output_tensors_index = indices
        return result if is_tuple else result[0]
