"""pytest's settings for the notebooks, which nbval runs each in a fresh kernel."""

from __future__ import annotations

from typing import Any

import nbval.kernel

_start_new_kernel = nbval.kernel.start_new_kernel


def _start_kernel_with_one_retry(*args: Any, **kwargs: Any) -> Any:
    """nbval's kernel start, tried a second time if the kernel dies before it answers.

    Under ``-n 2`` two workers start kernels at the same moment: jupyter_client
    picks five free ports for each, and the kernel binds them a moment later, so on
    a machine whose cores are all busy a kernel can find a port taken and exit
    ("Kernel died before replying to kernel_info": once in CI with two busy loops,
    for one notebook of ten, every cell of it an error). A second start picks new
    ports; a kernel that cannot start at all still fails the notebook.
    """
    try:
        return _start_new_kernel(*args, **kwargs)
    except RuntimeError:
        return _start_new_kernel(*args, **kwargs)


nbval.kernel.start_new_kernel = _start_kernel_with_one_retry
