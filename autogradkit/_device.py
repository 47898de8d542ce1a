"""Devices, honestly: autogradkit computes with NumPy, on the CPU only.

``torch.device("cpu")``, ``device=`` on every factory, ``.to("cpu")``, ``.cpu()``
and ``torch.cuda.is_available()`` (``False``) work as in PyTorch on a machine
without a GPU, so code written for either runs unchanged. Asking for ``"cuda"``
(or any other device) raises an error that says so.
"""

from __future__ import annotations

from typing import Any

__all__ = ["device", "set_default_device", "get_default_device", "check_device"]

_KNOWN_TYPES = ("cpu", "cuda", "mps", "xpu", "meta")


def _cpu_only(requested: str) -> RuntimeError:
    return RuntimeError(
        f"autogradkit runs on the CPU only (it computes with NumPy); the device {requested!r} "
        "is not available. Use device='cpu', or leave device= out."
    )


class device:
    """Where a tensor lives: always ``device(type='cpu')`` here.

    >>> import autogradkit as torch
    >>> torch.device("cpu")
    device(type='cpu')
    """

    __slots__ = ("type", "index")

    type: str
    index: int | None

    def __init__(self, type: Any, index: int | None = None) -> None:
        spec = type
        if isinstance(spec, device):
            index = spec.index
            spec = spec.type
        if not isinstance(spec, str):
            raise TypeError(
                f"device() expects a string such as 'cpu', not {spec.__class__.__name__}"
            )
        name, _, number = spec.partition(":")
        if name not in _KNOWN_TYPES:
            raise RuntimeError(
                f"Expected one of cpu, cuda, mps, xpu, meta device type at start of device string: {spec}"
            )
        if name != "cpu":
            raise _cpu_only(spec)
        self.type = name
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type={self.type!r})"
        return f"device(type={self.type!r}, index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def check_device(requested: Any) -> None:
    """Accept ``None``, ``"cpu"``, ``"cpu:0"`` or a cpu ``device``; refuse the rest
    with the CPU-only error."""
    if requested is None or isinstance(requested, device):
        return
    if isinstance(requested, int):
        raise _cpu_only(f"cuda:{requested}")  # PyTorch reads device=0 as the first GPU
    if isinstance(requested, str) and requested.partition(":")[0] not in _KNOWN_TYPES:
        raise RuntimeError(f"Invalid device string: '{requested}'")
    device(requested)


def set_default_device(requested: Any) -> None:
    """Accepted for ``"cpu"`` (and ``None``, the default): every tensor is on the CPU."""
    check_device(requested)


def get_default_device() -> device:
    return CPU


class _Cuda:
    """``torch.cuda`` on a machine without a GPU."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def manual_seed(seed: int) -> None:
        """Seeding the (absent) GPUs does nothing, as in PyTorch without CUDA."""

    manual_seed_all = manual_seed


cuda = _Cuda()
