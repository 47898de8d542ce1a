"""Learning-rate schedules (mirrors ``torch/optim/lr_scheduler.py``).

A scheduler changes its optimizer's ``param_group["lr"]`` once per call of its
``step()``, usually once an epoch, after that epoch's ``optimizer.step()`` calls:

>>> import autogradkit as torch
>>> w = torch.nn.Parameter(torch.ones(1))
>>> optimizer = torch.optim.SGD([w], lr=1.0)
>>> scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
>>> for epoch in range(5):
...     optimizer.step()              # (a whole epoch of training steps)
...     print(epoch, scheduler.get_last_lr())
...     scheduler.step()
0 [1.0]
1 [1.0]
2 [0.5]
3 [0.5]
4 [0.25]

Each schedule is its ``get_lr``: the next learning rates, computed from the
current ones (PyTorch's "chainable" form, so two schedulers on one optimizer
compose). Creating a scheduler counts as its step 0: it records each group's
``initial_lr`` and sets ``last_epoch`` to 0.
"""

from __future__ import annotations

import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "LinearLR",
    "CosineAnnealingLR",
    "ReduceLROnPlateau",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "SequentialLR",
    "MultiplicativeLR",
    "ConstantLR",
    "PolynomialLR",
    "ChainedScheduler",
]

_SCHEDULE_DOCS = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"

_EPOCH_DEPRECATION = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


def _note_optimizer_steps(optimizer: Optimizer) -> None:
    """Make ``optimizer.step()`` set ``optimizer._opt_called``, so the scheduler's
    first ``step()`` can tell whether the optimizer stepped before it (PyTorch
    wraps the method of the instance the same way, and marks the wrapper)."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step = optimizer.step.__func__  # type: ignore[attr-defined]
    optimizer_ref = weakref.ref(optimizer)  # the optimizer must not keep itself alive

    @functools.wraps(step)
    def step_and_note(*args: Any, **kwargs: Any) -> Any:
        stepping = optimizer_ref()
        stepping._opt_called = True  # type: ignore[union-attr]
        return step(stepping, *args, **kwargs)

    step_and_note._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = step_and_note  # type: ignore[method-assign]


class LRScheduler:
    """Base class of the schedulers: subclasses define ``get_lr`` (and may give
    ``_get_closed_form_lr``, the rate at an arbitrary epoch)."""

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:  # resuming: the optimizer's groups must come from a checkpoint
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{index}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _note_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Step 0, which sets the learning rates of epoch 0."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer (PyTorch's checkpoint of a scheduler)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step()`` set, one per parameter group."""
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The next learning rates (called by ``step()``; to read the current ones,
        use :meth:`get_last_lr`)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch's learning rates. Call it after the epoch's
        ``optimizer.step()`` calls: called before any, it warns (as PyTorch), since
        the first rate of the schedule is then never used."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    f"before `lr_scheduler.step()`. See more details at {_SCHEDULE_DOCS}",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    f"See more details at {_SCHEDULE_DOCS}",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Set the next epoch's learning rates (or, given ``epoch``, that epoch's:
        by the closed form where there is one)."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:  # the deprecated form: jump to an epoch, by the closed form if any
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)

    def _set_lrs(self, values: Iterable[float]) -> None:
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_called_directly(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    """lr = initial lr × ``lr_lambda(epoch)`` (one function, or one per group).

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
    >>> warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: min(1, (epoch + 1) / 4))
    >>> warmup.get_last_lr()
    [0.025]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_lambda_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As the base class's, but a plain function is saved as None (functions do
        not pickle); a callable object is saved as its ``__dict__``."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "lr_lambdas")
        }
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        return [
            base_lr * lr_lambda(self.last_epoch)
            for lr_lambda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


def _one_lambda_per_group(optimizer: Optimizer, lr_lambda) -> list:
    """``lr_lambda`` for each of the optimizer's parameter groups (LambdaLR's and
    MultiplicativeLR's argument): one function for all, or a list of one per group."""
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


class StepLR(LRScheduler):
    """lr × ``gamma`` every ``step_size`` epochs: lr_e = lr₀·γ^⌊e / step_size⌋."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class MultiStepLR(LRScheduler):
    """lr × ``gamma`` at each epoch listed in ``milestones`` (a milestone listed
    twice multiplies by γ²)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        passed = bisect_right(milestones, self.last_epoch)
        return [base_lr * self.gamma**passed for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr × ``gamma`` every epoch: lr_e = lr₀·γᵉ."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr × a factor that moves in a straight line from ``start_factor`` to
    ``end_factor`` over ``total_iters`` epochs, then stays (a warm-up, with the
    defaults: from lr/3 to lr in 5 epochs).

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.25, total_iters=3)
    >>> rates = []
    >>> for _ in range(5):
    ...     optimizer.step()
    ...     rates.append(round(warmup.get_last_lr()[0], 4))
    ...     warmup.step()
    >>> rates
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        # The chainable form: the ratio of this epoch's factor to the last one's,
        # f_e / f_(e−1) = 1 + Δ / (total·start + (e − 1)·Δ), Δ = end − start.
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base_lr * factor for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr follows half a cosine from its initial value down to ``eta_min`` over
    ``T_max`` epochs (then back up, and so on):
    lr_e = η_min + (lr₀ − η_min)·(1 + cos(π·e/T_max))/2.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
    >>> rates = []
    >>> for _ in range(5):
    ...     optimizer.step()
    ...     rates.append(round(cosine.get_last_lr()[0], 4))
    ...     cosine.step()
    >>> rates
    [1.0, 0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        lrs, low = self._current_lrs(), self.eta_min
        if self._is_initial:
            return lrs
        if self._step_count == 1 and self.last_epoch > 0:  # resumed at a later epoch
            return self._get_closed_form_lr()
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # At the bottom of the cosine the ratio below would divide by 0: take
            # the step up from η_min directly.
            rise = (1 - math.cos(math.pi / self.T_max)) / 2
            return [lr + (base_lr - low) * rise for lr, base_lr in zip(lrs, self.base_lrs)]
        # The chainable form: (lr − η_min) scaled by the ratio of consecutive cosines.
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (
            1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)
        )
        return [ratio * (lr - low) + low for lr in lrs]

    def _get_closed_form_lr(self) -> list[float]:
        return [
            self.eta_min
            + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]


class ReduceLROnPlateau(LRScheduler):
    """Multiply lr by ``factor`` when a watched number (``scheduler.step(val_loss)``)
    has not improved for more than ``patience`` epochs, then wait ``cooldown``
    epochs; never below ``min_lr``. Improvement is by more than ``threshold``
    (relative, or absolute with ``threshold_mode='abs'``), downwards with
    ``mode='min'``, upwards with ``'max'`` (an accuracy).

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1)
    >>> for val_loss in [5.0, 4.0, 4.0, 4.0, 3.0]:
    ...     plateau.step(val_loss)
    ...     print(plateau.get_last_lr())
    [1.0]
    [1.0]
    [1.0]
    [0.1]
    [0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        # Not LRScheduler.__init__: no schedule to follow, nothing to step at start.
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self._set_comparison(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _set_comparison(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _is_better(self, value: float, best: float) -> bool:
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return value < best * (1.0 - self.threshold)
            return value < best - self.threshold
        if self.threshold_mode == "rel":
            return value > best * (self.threshold + 1.0)
        return value > best + self.threshold

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Take this epoch's value of the watched number (a float or a 0-d tensor)."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:  # bad epochs in the cooldown do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _reduce_lr(self) -> None:
        groups = len(self.optimizer.param_groups)
        if groups != len(self.min_lrs):  # a group was added since
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({groups}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually "
                    "due to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * groups
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:  # (changes smaller than eps are skipped)
                group["lr"] = new_lr

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter, 2017): half a cosine from the initial lr down to
    ``eta_min`` over ``T_0`` epochs, then a restart at the initial lr, each cycle
    ``T_mult`` times longer than the one before:
    lr = η_min + (lr₀ − η_min)·(1 + cos(π·T_cur/T_i))/2.
    ``step(epoch)`` may be given a fractional epoch (steps within an epoch), as in
    PyTorch, without its deprecation warning.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> restarts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2)
    >>> rates = []
    >>> for _ in range(5):
    ...     optimizer.step()
    ...     rates.append(restarts.get_last_lr()[0])
    ...     restarts.step()
    >>> rates
    [1.0, 0.5, 1.0, 0.5, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0  # the length of the current cycle
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch  # epochs since the last restart
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        progress = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base_lr - self.eta_min) * progress for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """The next epoch (or ``epoch``, which may be fractional); PyTorch's own
        step, without the base class's warnings and step count."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # a restart
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # The cycles so far: T_0·(T_mult^n − 1)/(T_mult − 1) epochs for n of them.
                n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        self._set_lrs(values)


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: ``param`` itself if it is a list or tuple
    (of the right length), else ``param`` repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
        return list(param)
    return [param] * len(optimizer.param_groups)


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin, 2018), stepped after every batch: lr rises
    from max_lr/``div_factor`` to ``max_lr`` over the first ``pct_start`` of
    ``total_steps``, then falls to that start/``final_div_factor`` (by half cosines,
    or straight lines with ``anneal_strategy='linear'``); the momentum (or Adam's
    β₁) moves the other way, between ``max_momentum`` and ``base_momentum``.
    ``three_phase=True`` comes back down to the start symmetrically before the
    final fall. The group settings it adds (initial_lr, max_lr, min_lr,
    max_momentum, base_momentum) are PyTorch's.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9)
    >>> one_cycle = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=5)
    >>> rates = []
    >>> for _ in range(5):
    ...     optimizer.step()
    ...     rates.append(round(one_cycle.get_last_lr()[0], 4))
    ...     one_cycle.step()
    >>> rates
    [0.04, 0.9505, 0.6113, 0.1883, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = _one_cycle_phases(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for index, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[index] / div_factor
                group["max_lr"] = max_lrs[index]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._set_up_momentum(max_momentum, base_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _set_up_momentum(self, max_momentum: Any, base_momentum: Any, last_epoch: int) -> None:
        """The momentum (or Adam's β₁) starts at ``max_momentum``; each group keeps
        its bounds, as PyTorch's."""
        optimizer = self.optimizer
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError(
                "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
            )
        self.use_beta1 = "betas" in optimizer.defaults
        max_momentums = _format_param("max_momentum", optimizer, max_momentum)
        base_momentums = _format_param("base_momentum", optimizer, base_momentum)
        if last_epoch != -1:
            return
        for highest, lowest, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            if self.use_beta1:
                group["betas"] = (highest, *group["betas"][1:])
            else:
                group["momentum"] = highest
            group["max_momentum"] = highest
            group["base_momentum"] = lowest

    def _anneal(self, start: float, end: float, fraction: float) -> float:
        """From ``start`` to ``end`` as ``fraction`` goes from 0 to 1."""
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)
        return (end - start) * fraction + start

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(
                f"Tried to step {step_num} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for index, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or index == len(self._schedule_phases) - 1:
                    fraction = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], fraction)
                    if self.cycle_momentum:
                        momentum = self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], fraction
                        )
                        if self.use_beta1:
                            group["betas"] = (momentum, *group["betas"][1:])
                        else:
                            group["momentum"] = momentum
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
        return lrs


def _total_steps(total_steps: int | None, epochs: int | None, steps_per_epoch: int | None) -> int:
    """OneCycleLR's length: ``total_steps``, or ``epochs`` × ``steps_per_epoch``."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(
                f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
            )
        return epochs * steps_per_epoch
    raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")


def _one_cycle_phases(pct_start: float, total_steps: int, three_phase: bool) -> list[dict]:
    """OneCycleLR's phases: the step each ends at and the group settings its lr and
    momentum go from and to."""
    up = {
        "end_step": float(pct_start * total_steps) - 1,
        "start_lr": "initial_lr",
        "end_lr": "max_lr",
        "start_momentum": "max_momentum",
        "end_momentum": "base_momentum",
    }
    if not three_phase:
        down = {
            "end_step": total_steps - 1,
            "start_lr": "max_lr",
            "end_lr": "min_lr",
            "start_momentum": "base_momentum",
            "end_momentum": "max_momentum",
        }
        return [up, down]
    back = {
        "end_step": float(2 * pct_start * total_steps) - 2,
        "start_lr": "max_lr",
        "end_lr": "initial_lr",
        "start_momentum": "base_momentum",
        "end_momentum": "max_momentum",
    }
    final = {
        "end_step": total_steps - 1,
        "start_lr": "initial_lr",
        "end_lr": "min_lr",
        "start_momentum": "max_momentum",
        "end_momentum": "max_momentum",
    }
    return [up, back, final]


class SequentialLR(LRScheduler):
    """Several schedulers one after the other: ``schedulers[i]`` runs from
    ``milestones[i - 1]`` (restarted there at its epoch 0) until ``milestones[i]``
    — a warm-up followed by a decay, for example.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.5, total_iters=2)
    >>> decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    >>> both = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[2])
    >>> rates = []
    >>> for _ in range(5):
    ...     optimizer.step()
    ...     rates.append(both.get_last_lr()[0])
    ...     both.step()
    >>> rates
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        _check_sequence(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each scheduler took its step 0 when it was made: undo those, and take the
        # first one's again.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = bisect_right(self._milestones, 0)
        self._schedulers[first]._initial_step()
        self._last_lr = schedulers[first].get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """One epoch back for every scheduler inside (nested sequences too)."""
        schedulers = self if sched is None else sched
        if hasattr(schedulers, "_schedulers"):
            for scheduler in schedulers._schedulers:
                self.recursive_undo(scheduler)
        elif hasattr(schedulers, "last_epoch"):
            schedulers.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)  # its start: epoch 0, by its closed form
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer, the schedulers' own state dicts in
        ``'_schedulers'``."""
        state = {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "_schedulers")
        }
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        saved = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, scheduler_state in zip(self._schedulers, saved):
            scheduler.load_state_dict(scheduler_state)


def _check_sequence(sequence: Any, optimizer: Optimizer, schedulers: list[LRScheduler]) -> None:
    """PyTorch's refusals of what SequentialLR is given."""
    name = type(sequence).__name__
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{index} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {index} has "
                f"{scheduler.optimizer}, which is different from {type(optimizer).__name__}."
            )


class MultiplicativeLR(LambdaLR):
    """lr × ``lr_lambda(epoch)`` at each step (the factor multiplies the current
    rate, where LambdaLR's multiplies the initial one).

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> halving = torch.optim.lr_scheduler.MultiplicativeLR(optimizer, lambda epoch: 0.5)
    >>> rates = []
    >>> for _ in range(3):
    ...     optimizer.step()
    ...     rates.append(halving.get_last_lr()[0])
    ...     halving.step()
    >>> rates
    [1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_lambda_per_group(optimizer, lr_lambda)
        for function in self.lr_lambdas:
            if not callable(function):
                raise TypeError(
                    f"lr_lambda should be a function, but got {type(function).__name__}"
                )
        LRScheduler.__init__(self, optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self._is_initial:
            return self._current_lrs()
        return [
            group["lr"] * lr_lambda(self.last_epoch)
            for lr_lambda, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]


class ConstantLR(LRScheduler):
    """lr × ``factor`` for the first ``total_iters`` epochs, then lr itself (a
    constant warm-up).

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> warmup = torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2)
    >>> rates = []
    >>> for _ in range(4):
    ...     optimizer.step()
    ...     rates.append(warmup.get_last_lr()[0])
    ...     warmup.step()
    >>> rates
    [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        after = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + after * (1 - self.factor)) for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr decays as (1 − e/``total_iters``)^``power`` to 0 at epoch ``total_iters``
    (a straight line with power 1), then stays there.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> decay = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=4)
    >>> rates = []
    >>> for _ in range(6):
    ...     optimizer.step()
    ...     rates.append(decay.get_last_lr()[0])
    ...     decay.step()
    >>> rates
    [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_called_directly()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        # The chainable form: the ratio of this epoch's factor to the last one's.
        decay_factor = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [lr * decay_factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * remaining**self.power for base_lr in self.base_lrs]


class ChainedScheduler(LRScheduler):
    """Several schedulers on one optimizer stepped together (their factors
    multiply): ``step()`` steps each in turn.

    Examples
    --------
    >>> import autogradkit as torch
    >>> optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    >>> S = torch.optim.lr_scheduler
    >>> chained = S.ChainedScheduler(
    ...     [S.ConstantLR(optimizer, factor=0.5, total_iters=2), S.ExponentialLR(optimizer, 0.9)]
    ... )
    >>> rates = []
    >>> for _ in range(4):
    ...     optimizer.step()
    ...     rates.append(round(chained.get_last_lr()[0], 4))
    ...     chained.step()
    >>> rates
    [0.5, 0.45, 0.81, 0.729]
    """

    def __init__(self, schedulers: list[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                "scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_sequence(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer, the schedulers' own state dicts in
        ``'_schedulers'``."""
        return SequentialLR.state_dict(self)  # type: ignore[arg-type]

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        SequentialLR.load_state_dict(self, state_dict)  # type: ignore[arg-type]
