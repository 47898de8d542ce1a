"""``torch.linalg``: linear algebra on (batches of) matrices.

The operations themselves, each with its derivative, are in
:mod:`autogradkit.ops.square_matrices`; this module gives them PyTorch's names.

>>> import autogradkit as torch
>>> A = torch.tensor([[2.0, 0.0], [1.0, 4.0]])
>>> torch.linalg.det(A), torch.linalg.solve(A, torch.tensor([2.0, 9.0]))
(tensor(8.), tensor([1., 2.]))
"""

from __future__ import annotations

from .ops.square_matrices import LinAlgError, det, inv, matrix_power, solve
from .ops.square_matrices import linalg_slogdet as slogdet

__all__ = ["LinAlgError", "det", "inv", "matrix_power", "slogdet", "solve"]
