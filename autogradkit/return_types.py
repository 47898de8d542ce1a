"""Named results of the operations that return two tensors (``torch.return_types``).

``x.max(dim=1)`` returns a ``max`` pair: a tuple, so ``values, indices = x.max(1)``
unpacks it, whose parts also have names (``.values``, ``.indices``), and which
prints as PyTorch prints it.
"""

from __future__ import annotations

__all__ = [
    "max",
    "min",
    "sort",
    "topk",
    "median",
    "nanmedian",
    "slogdet",
    "linalg_slogdet",
    "aminmax",
    "cummax",
    "cummin",
    "kthvalue",
    "linalg_lstsq",
    "mode",
]


class _ValuesIndices(tuple):
    """A ``(values, indices)`` pair."""

    __slots__ = ()

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        """The selected values (differentiable)."""
        return self[0]

    @property
    def indices(self):
        """Where they were found along the reduced dimension (int64)."""
        return self[1]

    def __repr__(self) -> str:
        return f"autogradkit.return_types.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    def __reduce__(self):
        return type(self), tuple(self)


class max(_ValuesIndices):  # PyTorch's name for what max(dim) returns
    """What ``max(input, dim)`` returns."""

    __slots__ = ()


class min(_ValuesIndices):  # PyTorch's name for what min(dim) returns
    """What ``min(input, dim)`` returns."""

    __slots__ = ()


class sort(_ValuesIndices):  # PyTorch's name for what sort returns
    """What ``sort(input, dim)`` returns."""

    __slots__ = ()


class topk(_ValuesIndices):  # PyTorch's name for what topk returns
    """What ``topk(input, k, dim)`` returns."""

    __slots__ = ()


class median(_ValuesIndices):  # PyTorch's name for what median(dim) returns
    """What ``median(input, dim)`` returns."""

    __slots__ = ()


class nanmedian(_ValuesIndices):  # PyTorch's name for what nanmedian(dim) returns
    """What ``nanmedian(input, dim)`` returns."""

    __slots__ = ()


class _SignLogabsdet(tuple):
    """A ``(sign, logabsdet)`` pair: the sign of a determinant and log of its size."""

    __slots__ = ()

    def __new__(cls, sign, logabsdet):
        return super().__new__(cls, (sign, logabsdet))

    @property
    def sign(self):
        """The sign of det A: 1, -1, or 0 for a singular matrix."""
        return self[0]

    @property
    def logabsdet(self):
        """log |det A| (differentiable; -inf for a singular matrix)."""
        return self[1]

    def __repr__(self) -> str:
        return f"autogradkit.return_types.{type(self).__name__}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"

    def __reduce__(self):
        return type(self), tuple(self)


class slogdet(_SignLogabsdet):  # PyTorch's name for what torch.slogdet returns
    """What ``slogdet(A)`` returns."""

    __slots__ = ()


class linalg_slogdet(_SignLogabsdet):  # PyTorch's name for what torch.linalg.slogdet returns
    """What ``linalg.slogdet(A)`` returns."""

    __slots__ = ()


class cummax(_ValuesIndices):  # PyTorch's name for what cummax returns
    """What ``cummax(input, dim)`` returns."""

    __slots__ = ()


class cummin(_ValuesIndices):  # PyTorch's name for what cummin returns
    """What ``cummin(input, dim)`` returns."""

    __slots__ = ()


class aminmax(tuple):  # PyTorch's name for what aminmax returns
    """What ``aminmax(input)`` returns: a ``(min, max)`` pair, whose parts are also
    ``.min`` and ``.max``."""

    __slots__ = ()

    def __new__(cls, min, max):
        return super().__new__(cls, (min, max))

    @property
    def min(self):
        """The smallest elements."""
        return self[0]

    @property
    def max(self):
        """The largest elements."""
        return self[1]

    def __repr__(self) -> str:
        return f"autogradkit.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


class linalg_lstsq(tuple):  # PyTorch's name for what torch.linalg.lstsq returns
    """What ``linalg.lstsq(A, B)`` returns: ``(solution, residuals, rank,
    singular_values)``."""

    __slots__ = ()

    def __new__(cls, solution, residuals, rank, singular_values):
        return super().__new__(cls, (solution, residuals, rank, singular_values))

    @property
    def solution(self):
        """X minimising ‖AX − B‖ (differentiable)."""
        return self[0]

    @property
    def residuals(self):
        """Empty with the default driver, as in PyTorch."""
        return self[1]

    @property
    def rank(self):
        """The rank of A (int64)."""
        return self[2]

    @property
    def singular_values(self):
        """Empty with the default driver, as in PyTorch."""
        return self[3]

    def __repr__(self) -> str:
        return (
            f"autogradkit.return_types.linalg_lstsq(\nsolution={self[0]!r},\n"
            f"residuals={self[1]!r},\nrank={self[2]!r},\nsingular_values={self[3]!r})"
        )

    def __reduce__(self):
        return type(self), tuple(self)


class kthvalue(_ValuesIndices):  # PyTorch's name for what kthvalue returns
    """What ``kthvalue(input, k, dim)`` returns."""

    __slots__ = ()


class mode(_ValuesIndices):  # PyTorch's name for what mode returns
    """What ``mode(input, dim)`` returns."""

    __slots__ = ()
