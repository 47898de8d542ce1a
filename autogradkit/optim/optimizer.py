"""``Optimizer`` and nine of PyTorch's optimisers: ``SGD`` (with momentum and
weight decay), ``RMSprop``, ``Adam``, ``AdamW``, ``Adagrad``, ``Adadelta``,
``Adamax``, ``NAdam`` and ``RAdam``.

Each ``step()`` is the same loop: for every parameter that has a ``.grad``,
compute a direction from the gradient (and from running averages kept in
``self.state``), then move the parameter in place — under ``no_grad``, so the
update is not recorded in any graph. The arithmetic follows PyTorch's
single-tensor implementations line by line, so a training loop prints the same
losses.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .._creation import full_like, zeros_like
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.pointwise import maximum
from ..ops.shape import clone
from ..tensor import Tensor

__all__ = [
    "Optimizer",
    "SGD",
    "RMSprop",
    "Adam",
    "AdamW",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "NAdam",
    "RAdam",
]


def _check_duplicates(params: list, groups: list) -> None:
    """PyTorch's warning for a parameter listed twice in a group, and its error for
    one already in another group (the identity of the tensor is what counts)."""
    if len({id(p) for p in params}) != len(params):
        warnings.warn(
            "optimizer contains a parameter group with duplicate parameters; in future, this "
            "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
            "information",
            UserWarning,
            stacklevel=4,
        )
    seen = {id(p) for group in groups for p in group["params"]}
    if any(id(p) in seen for p in params):
        raise ValueError("some parameters appear in more than one parameter group")


class Optimizer:
    """Holds ``param_groups`` (lists of parameters with their settings) and a
    ``state`` per parameter; subclasses define ``step``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        # A defaultdict, as PyTorch's: optimizer.state[p] is {} before p's first step.
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a group of parameters with settings of its own (the optimizer's
        defaults fill in the rest), as when fine-tuning a new layer faster. A
        parameter may be in one group only: twice would update it twice a step."""
        params = group["params"]
        if isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        params = [params] if isinstance(params, Tensor) else list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(param).__name__
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        _check_duplicates(params, self.param_groups)
        # PyTorch's order: the group's own keys ('params' first as usually written),
        # then the defaults it did not set.
        added = {**group, "params": params}
        for key, value in self.defaults.items():
            added.setdefault(key, value)
        self.param_groups.append(added)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (the default), or to zeros."""
        for group in self.param_groups:
            for param in group["params"]:
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

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad`` (one step of the method).

        ``closure``, if given, is called first (with grad mode on) to recompute the
        loss and its gradients: ``zero_grad()``, forward, ``backward()``, return
        the loss. ``step`` returns what it returned (None without one).

        Examples
        --------
        >>> import autogradkit as torch
        >>> w = torch.nn.Parameter(torch.tensor([2.0]))
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w**2).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
        tensor(4., grad_fn=<SumBackward0>)
        >>> w
        Parameter containing:
        tensor([1.6000], requires_grad=True)
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._update()
        return loss

    def _update(self) -> None:
        """The step itself (each optimizer's own), run in no_grad mode."""
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as PyTorch saves it (``torch.save`` checkpoints):
        ``'state'`` maps each parameter's position (counted across the groups, in
        order) to its running values, and ``'param_groups'`` holds each group's
        settings with ``'params'`` as those positions. The state's tensors are the
        optimizer's own (not copies), as in PyTorch.

        Examples
        --------
        >>> import autogradkit as torch
        >>> w = torch.nn.Parameter(torch.ones(2))
        >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> w.grad = torch.tensor([1.0, 2.0])
        >>> opt.step()
        >>> opt.state_dict()["state"]
        {0: {'momentum_buffer': tensor([1., 2.])}}
        >>> opt.state_dict()["param_groups"][0]["params"]
        [0]
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            for param in group["params"]:
                index.setdefault(id(param), len(index))
            packed = {key: value for key, value in group.items() if key != "params"}
            packed["params"] = [index[id(param)] for param in group["params"]]
            groups.append(packed)
        state = {index[id(param)]: values for param, values in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state and group settings of :meth:`state_dict` (of an optimizer
        over parameters of the same shapes, grouped alike), to resume training.
        Each state tensor takes its parameter's dtype (but ``'step'``).

        Examples
        --------
        >>> import autogradkit as torch
        >>> w = torch.nn.Parameter(torch.ones(2))
        >>> saved = torch.optim.SGD([w], lr=0.5).state_dict()
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> opt.load_state_dict(saved)
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(saved["params"]) != len(group["params"])
            for saved, group in zip(saved_groups, self.param_groups)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        by_index = {
            index: param
            for saved, group in zip(saved_groups, self.param_groups)
            for index, param in zip(saved["params"], group["params"])
        }
        self.state = defaultdict(dict)
        for index, values in state_dict["state"].items():
            param = by_index.get(index)
            if param is not None:
                self.state[param] = {
                    key: _like_param(key, value, param) for key, value in values.items()
                }
        self.param_groups = [
            {**saved, "params": group["params"]}
            for saved, group in zip(saved_groups, self.param_groups)
        ]

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):  # a blank line between groups
            text += f"\nParameter Group {index}\n"
            for key in sorted(k for k in group if k != "params"):
                text += f"    {key}: {group[key]}\n"
        return text + ")"


def _like_param(key: str, value: Any, param: Tensor) -> Any:
    """A loaded state value: a tensor takes its parameter's dtype (the same tensor
    when it has it already), except the step count, as PyTorch's load_state_dict."""
    if key == "step" or not isinstance(value, Tensor):
        return value
    return value.to(param.dtype)


def _step_count() -> Tensor:
    """A new parameter's step count: a float32 0-d tensor, as PyTorch keeps it."""
    from .._creation import tensor

    return tensor(0.0)


def _check_not_differentiable(differentiable: bool) -> None:
    if differentiable:
        raise NotImplementedError(
            "autogradkit's optimizers take no differentiable=True: their steps are not "
            "recorded in a graph"
        )


def _check(name: str, value: float) -> None:
    if value < 0:
        raise ValueError(f"Invalid {name}: {value}")


class SGD(Optimizer):
    """Stochastic gradient descent: p ← p − lr·d, where d is the gradient (plus
    ``weight_decay``·p), or with ``momentum`` the running b ← momentum·b + d."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_not_differentiable(differentiable)
        for name, value in (("learning rate", lr), ("momentum value", momentum)):
            _check(name, value)
        _check("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            # PyTorch's implementation choices, kept so the settings print as
            # PyTorch's; they change nothing here (one loop, on the CPU).
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                direction = param.grad if not group["maximize"] else -param.grad
                if group["weight_decay"] != 0:
                    direction = direction.add(param, alpha=group["weight_decay"])
                if momentum != 0:
                    direction = self._momentum(param, direction, group)
                param.add_(direction, alpha=-lr)

    def _momentum(self, param: Tensor, direction: Tensor, group: dict[str, Any]) -> Tensor:
        state = self.state[param]
        buffer = state.get("momentum_buffer")
        if buffer is None:
            buffer = state["momentum_buffer"] = clone(direction).detach()
        else:
            buffer.mul_(group["momentum"]).add_(direction, alpha=1 - group["dampening"])
        if group["nesterov"]:
            return direction.add(buffer, alpha=group["momentum"])
        return buffer


class RMSprop(Optimizer):
    """p ← p − lr·g/(√v + eps), where v is a running average of g²:
    v ← alpha·v + (1 − alpha)·g². ``centered=True`` also keeps a running average
    m of g and divides by √(v − m²) + eps instead (an estimate of g's variance)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,  # (as SGD's foreach: printed, changes nothing)
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            alpha, lr = group["alpha"], group["lr"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad if not group["maximize"] else -param.grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                state = self.state[param]
                if not state:  # PyTorch's keys, in its order
                    state["step"] = _step_count()
                    state["square_avg"] = zeros_like(param)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = zeros_like(param)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(param)
                state["step"] += 1
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
                if group["centered"]:
                    # m ← m + (1 − alpha)(g − m);  divide by √(v − m²) + eps
                    grad_avg = state["grad_avg"]
                    grad_avg.add_(grad - grad_avg, alpha=1 - alpha)
                    avg = (square_avg - grad_avg * grad_avg).sqrt().add_(group["eps"])
                else:
                    avg = square_avg.sqrt().add_(group["eps"])
                if group["momentum"] > 0:
                    buffer = state["momentum_buffer"]
                    buffer.mul_(group["momentum"]).add_(grad / avg)
                    param.add_(buffer, alpha=-lr)
                else:
                    param.add_(grad / avg, alpha=-lr)


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015): running averages m of g and v of g², corrected
    for their start at 0, and p ← p − lr·m̂/(√v̂ + eps). ``amsgrad=True`` (Reddi et
    al., 2018) divides by the largest v seen so far instead of the current one."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check_adam_numbers(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad if not group["maximize"] else -param.grad
                if group["weight_decay"] != 0 and group["decoupled_weight_decay"]:
                    # AdamW (Loshchilov & Hutter): p ← p(1 − lr·λ), apart from the gradient
                    param.mul_(1 - group["lr"] * group["weight_decay"])
                elif group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                state = self.state[param]
                if not state:
                    state["step"] = _step_count()
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                state["step"] += 1
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                step = state["step"].item()
                # m ← m + (1 − β₁)(g − m);  v ← β₂·v + (1 − β₂)·g²
                exp_avg.add_(grad - exp_avg, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = group["lr"] / bias_correction1
                if group["amsgrad"]:
                    largest = state.setdefault("max_exp_avg_sq", zeros_like(param))
                    largest.copy_(maximum(largest, exp_avg_sq))
                    exp_avg_sq = largest
                denom = (exp_avg_sq.sqrt() / bias_correction2**0.5).add_(group["eps"])
                param.add_(exp_avg / denom, alpha=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): each step first
    shrinks p ← p·(1 − lr·weight_decay), apart from the gradient, then takes Adam's
    step. It is ``Adam(..., decoupled_weight_decay=True)`` with weight_decay 0.01.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.AdamW([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([0.8990], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011): each parameter's step is scaled down by the
    square root of the sum s of all its squared gradients so far,
    s ← s + g²,  p ← p − lr·g/(√s + eps), so often-updated directions slow down.
    ``lr_decay`` divides lr by 1 + (t − 1)·lr_decay at step t.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adagrad([w], lr=0.5)
    >>> (w * w).sum().backward()      # g = 2w: each step is lr·g/|g| = lr·sign(g)
    >>> opt.step()
    >>> w
    tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check("learning rate", lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        # Unlike the others, PyTorch's Adagrad fills its state at once: the sums
        # start at initial_accumulator_value, and state_dict() lists them before
        # any step.
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = _step_count()
                state["sum"] = full_like(param, initial_accumulator_value)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                state["step"] += 1
                step = state["step"].item()
                grad = param.grad if not group["maximize"] else -param.grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                current_lr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
                state["sum"].add_(grad * grad)
                std = state["sum"].sqrt().add_(group["eps"])
                # PyTorch's addcdiv_ computes p + (−lr·g)/std, in this order.
                param.add_(grad * -current_lr / std)


def _check_adam_numbers(lr: float, eps: float, betas: tuple[float, float], weight_decay: float):
    """The refusals Adam and its kin (AdamW, Adamax, NAdam, RAdam) share, in PyTorch's
    order: learning rate, epsilon, each beta, weight decay."""
    _check("learning rate", lr)
    _check("epsilon value", eps)
    _check_betas(betas)
    _check("weight_decay value", weight_decay)


def _check_betas(betas: tuple[float, float]) -> None:
    """PyTorch's refusal of a β outside [0, 1)."""
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): a step with no learning rate of its own. It keeps
    running averages of g² and of the squared steps Δ, and scales the gradient by
    the ratio of their roots, so the step has the parameter's units:
    v ← ρ·v + (1 − ρ)·g²,  Δ = √(u + eps)/√(v + eps)·g,  u ← ρ·u + (1 − ρ)·Δ²,
    p ← p − lr·Δ (``lr`` = 1 by default).

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adadelta([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9968, -1.9968], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check("epsilon value", eps)
        _check("weight_decay value", weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            rho, eps = group["rho"], group["eps"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if not state:
                    state["step"] = _step_count()
                    state["square_avg"] = zeros_like(param)
                    state["acc_delta"] = zeros_like(param)
                state["step"] += 1
                grad = param.grad if not group["maximize"] else -param.grad
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-group["lr"])


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, 2015): Adam with the infinity norm in place of the
    root mean square: m ← β₁·m + (1 − β₁)·g,  u ← max(β₂·u, |g| + eps),
    p ← p − lr/(1 − β₁ᵗ)·m/u.

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check_adam_numbers(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if not state:
                    state["step"] = _step_count()
                    state["exp_avg"] = zeros_like(param)
                    state["exp_inf"] = zeros_like(param)
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"] += 1
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
                step_size = group["lr"] / (1 - beta1 ** state["step"].item())
                # PyTorch's addcdiv_ computes p + (−step_size·m)/u, in this order.
                param.add_(exp_avg * -step_size / exp_inf)


class NAdam(Optimizer):
    """NAdam (Dozat, 2016): Adam with Nesterov momentum — the step looks ahead
    with the next momentum coefficient. With μₜ = β₁(1 − ½·0.96^(t·ψ)) (ψ the
    ``momentum_decay``) and their running product Πμ:
    p ← p − lr·(1 − μₜ)/(1 − Πμ)·g/(√v̂ + eps) − lr·μₜ₊₁/(1 − Πμ·μₜ₊₁)·m/(√v̂ + eps).

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()                     # further than Adam's 0.1: it looks ahead
    >>> w
    tensor([ 0.8944, -1.8944], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check_adam_numbers(lr, eps, betas, weight_decay)
        _check("momentum_decay value", momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        from .._creation import tensor

        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, weight_decay = group["lr"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if not state:
                    state["step"] = _step_count()
                    state["mu_product"] = tensor(1.0)  # float32, as PyTorch keeps it
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"] += 1
                step = state["step"].item()
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0 and group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                elif weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                # The momentum coefficients of this step and the next one.
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
                state["mu_product"] *= mu
                mu_product = state["mu_product"].item()
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
                # PyTorch's two addcdiv_ calls: p + (value·t)/denom each.
                param.add_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)) / denom)
                param.add_(exp_avg * ((-lr * mu_next) / (1.0 - mu_product * mu_next)) / denom)


class RAdam(Optimizer):
    """RAdam (Liu et al., 2020): Adam whose adaptive step is switched on only once
    the variance of v can be trusted. With ρ∞ = 2/(1 − β₂) − 1 and
    ρₜ = ρ∞ − 2t·β₂ᵗ/(1 − β₂ᵗ): while ρₜ ≤ 5, p ← p − lr·m̂ (momentum SGD); after,
    p ← p − lr·m̂·r·√(1 − β₂ᵗ)/(√v + eps), r = √((ρₜ − 4)(ρₜ − 2)ρ∞/((ρ∞ − 4)(ρ∞ − 2)ρₜ)).

    Examples
    --------
    >>> import autogradkit as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()                     # first steps: momentum SGD, lr·m̂ = lr·g
    >>> w
    tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_not_differentiable(differentiable)
        _check_adam_numbers(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,  # (as SGD's: printed, changes nothing)
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @no_grad()
    def _update(self) -> None:
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, weight_decay = group["lr"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if not state:
                    state["step"] = _step_count()
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"] += 1
                step = state["step"].item()
                if weight_decay != 0 and group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                elif weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                corrected_exp_avg = exp_avg / bias_correction1
                # The length of the approximated simple moving average, and its limit.
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(group["eps"])
                    rectification = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    param.add_(corrected_exp_avg * lr * adaptive_lr * rectification, alpha=-1.0)
                else:
                    param.add_(corrected_exp_avg * lr, alpha=-1.0)
