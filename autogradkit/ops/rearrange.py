"""Moving elements around and picking parts of matrices: ``flip``, ``roll``,
``index_select``, ``tril``/``triu``, ``diag``, ``diagonal`` (a view), ``diag_embed``
and ``trace``.

Each is linear: its backward puts every element of the gradient back where the
element it came from was (``flip`` flips the gradient back, ``roll`` rolls it
back, ``index_select`` adds it at the selected rows, ``tril`` keeps the same
triangle), and zeros where an element was dropped.

>>> import autogradkit as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> x.flip(0)
tensor([[3., 4.],
        [1., 2.]], grad_fn=<FlipBackward0>)
>>> x.trace()
tensor(5., grad_fn=<TraceBackward0>)
"""

from __future__ import annotations

import numpy as np

from .._quiet_numpy import quietly
from ..autograd.function import Linear
from ..tensor import Tensor, _wrap_dim
from .reduction import _dims
from .shape import scatter_into_zeros

__all__ = [
    "flip",
    "roll",
    "index_select",
    "tril",
    "triu",
    "diag",
    "diagonal",
    "diag_embed",
    "trace",
]


class Flip(Linear):
    """f(x) = x with the order of its elements reversed along ``dims``;
    ∂ℓ/∂x = the gradient flipped back along the same dims"""

    node_name = "FlipBackward0"
    formula = r"f(x)_i = x_{n-1-i} \qquad \frac{\partial \ell}{\partial x_j} = g_{n-1-j}"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x, dims).copy()  # a copy, as PyTorch's flip (not a view)

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):
            return flip(grad_output, ctx.dims), None
        return np.flip(grad_output, ctx.dims), None


class Roll(Linear):
    """f(x) = x shifted by ``shifts`` along ``dims``, the elements that fall off one
    end coming back at the other (all elements, flattened, when there are no dims);
    ∂ℓ/∂x = the gradient rolled back by −shifts"""

    node_name = "RollBackward0"
    formula = r"f(x)_i = x_{(i - s) \bmod n} \qquad \frac{\partial \ell}{\partial x_j} = g_{(j + s) \bmod n}"

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return _rolled(x, shifts, dims)

    @staticmethod
    def backward(ctx, grad_output):
        back = tuple(-s for s in ctx.shifts)
        if isinstance(grad_output, Tensor):
            return roll(grad_output, back, ctx.dims if ctx.dims else None), None, None
        return _rolled(grad_output, back, ctx.dims), None, None


def _rolled(x: np.ndarray, shifts: tuple, dims: tuple) -> np.ndarray:
    if not dims:  # no dims: the flattened tensor is rolled, then shaped back
        return np.roll(x, shifts[0])
    return np.roll(x, shifts, dims)


class IndexSelect(Linear):
    """f(x) = the slices of x at ``index`` along ``dim`` (rows of a matrix for dim
    0);   ∂ℓ/∂x = zeros with the gradient added back at those slices (repeats add up)"""

    node_name = "IndexSelectBackward0"
    formula = r"f(x)_{i} = x_{\text{index}_i} \qquad \frac{\partial \ell}{\partial x} = 0 \text{ with } g_i \text{ added at } \text{index}_i"

    @staticmethod
    def forward(ctx, x, dim, index):
        # (A 0-d x has its one element at position 0: index [0] reads it whole.)
        key = (slice(None),) * dim + (index,) if x.ndim else ()
        ctx.key, ctx.shape = key, x.shape
        ctx.save_for_backward(index)  # as PyTorch: a freed graph refuses a second pass
        return x[key].copy() if x.ndim else x.copy()

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # noqa: B018 - raises once the graph was freed
        return scatter_into_zeros(grad_output, ctx.key, ctx.shape), None, None


class Tril(Linear):
    """f(x) = the lower triangle of x (elements on or below diagonal k; of the last
    two dimensions), zeros above;   ∂ℓ/∂x = the same triangle of the gradient"""

    node_name = "TrilBackward0"
    formula = r"f(x)_{ij} = \begin{cases} x_{ij} & j - i \le k \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial \ell}{\partial x_{ij}} = g_{ij} \,[j - i \le k]"
    triangle = staticmethod(np.tril)

    @classmethod
    def forward(cls, ctx, x, diagonal):
        ctx.diagonal = diagonal
        return cls.triangle(x, diagonal)

    @classmethod
    def backward(cls, ctx, grad_output):
        if isinstance(grad_output, Tensor):  # recorded, as PyTorch's tril(grad)
            return cls.apply(grad_output, ctx.diagonal), None
        return cls.triangle(grad_output, ctx.diagonal), None


class Triu(Tril):
    """f(x) = the upper triangle of x (elements on or above diagonal k), zeros
    below;   ∂ℓ/∂x = the same triangle of the gradient"""

    node_name = "TriuBackward0"
    formula = r"f(x)_{ij} = \begin{cases} x_{ij} & j - i \ge k \\ 0 & \text{otherwise} \end{cases} \qquad \frac{\partial \ell}{\partial x_{ij}} = g_{ij} \,[j - i \ge k]"
    triangle = staticmethod(np.triu)


def _diagonal_positions(rows: int, columns: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) positions of diagonal ``offset`` of a rows × columns matrix
    (above the main one for offset > 0)."""
    first_row, first_column = max(-offset, 0), max(offset, 0)
    length = max(min(rows - first_row, columns - first_column), 0)
    steps = np.arange(length)
    return steps + first_row, steps + first_column


class DiagonalCopy(Linear):
    """f(x) = the diagonal ``offset`` of the matrix x, as a vector (``diag`` of a
    matrix);   ∂ℓ/∂x = zeros with the gradient on that diagonal"""

    node_name = "DiagonalBackward0_copy"  # PyTorch's name: diag copies diagonal()
    formula = r"f(x)_i = x_{i,\,i+k} \qquad \frac{\partial \ell}{\partial x_{i,\,i+k}} = g_i \text{ (0 elsewhere)}"

    @staticmethod
    def forward(ctx, x, offset):
        rows, columns = x.shape
        ctx.key, ctx.shape = _diagonal_positions(rows, columns, offset), x.shape
        return x[ctx.key]

    @staticmethod
    def backward(ctx, grad_output):
        return scatter_into_zeros(grad_output, ctx.key, ctx.shape), None


def _diagonal_view(x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """The elements x[..., i, ..., i + offset, ...] of dimensions ``dim1`` and
    ``dim2``, in x's memory: those two dimensions removed, the diagonal appended
    last (NumPy's ``diagonal`` and PyTorch's agree on that layout)."""
    view = np.diagonal(x, offset, dim1, dim2)
    # NumPy hands the view out read-only; writing through it is what makes it a
    # view (x.diagonal().fill_(1) changes x), unless x itself is read-only.
    view.flags.writeable = x.flags.writeable
    return view


class DiagonalBackward(Linear):
    """The backward of ``diagonal``, recorded when differentiating twice: zeros of
    the input's shape with g on the diagonal;   ∂ℓ/∂g = the gradient's diagonal"""

    node_name = "DiagonalBackwardBackward0"
    formula = r"f(g)_{\dots i \dots i+k \dots} = g_{\dots i} \text{ (0 elsewhere)} \qquad \frac{\partial \ell}{\partial g} = \operatorname{diagonal}(G)"

    @staticmethod
    def forward(ctx, grad, shape, offset, dim1, dim2):
        ctx.where = (offset, dim1, dim2)
        out = np.zeros(shape, grad.dtype)
        _diagonal_view(out, offset, dim1, dim2)[...] = grad
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return Diagonal.in_formula(grad_output, *ctx.where), None, None, None, None


class Diagonal(Linear):
    """f(x) = the diagonal ``offset`` of dimensions ``dim1`` and ``dim2`` (a view);
    ∂ℓ/∂x = zeros with the gradient on that diagonal"""

    node_name = "DiagonalBackward0"
    formula = r"f(x)_{\dots i} = x_{\dots i \dots i+k \dots} \qquad \frac{\partial \ell}{\partial x_{\dots i \dots i+k \dots}} = g_{\dots i} \text{ (0 elsewhere)}"
    creates_view = True

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.shape, ctx.where = x.shape, (offset, dim1, dim2)
        return _diagonal_view(x, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad_output):
        grad = DiagonalBackward.in_formula(grad_output, ctx.shape, *ctx.where)
        return grad, None, None, None


class DiagEmbed(Linear):
    """f(v) = zeros with the last dimension of v on diagonal ``offset`` of the two
    new dimensions ``dim1`` and ``dim2`` (``diag`` of a vector: the square matrix
    with v on that diagonal);   ∂ℓ/∂v = the gradient's diagonal"""

    node_name = "DiagEmbedBackward0"
    formula = r"f(v)_{\dots i \dots i+k \dots} = v_{\dots i} \text{ (0 elsewhere)} \qquad \frac{\partial \ell}{\partial v} = \operatorname{diagonal}(G)"

    @staticmethod
    def forward(ctx, v, offset, dim1, dim2):
        ctx.where = (offset, dim1, dim2)
        size = v.shape[-1] + abs(offset)
        others = iter(v.shape[:-1])
        shape = [size if d in (dim1, dim2) else next(others) for d in range(v.ndim + 1)]
        out = np.zeros(shape, v.dtype)
        _diagonal_view(out, offset, dim1, dim2)[...] = v
        return out

    @staticmethod
    def backward(ctx, grad_output):
        if isinstance(grad_output, Tensor):  # create_graph: PyTorch's DiagonalBackward0
            return Diagonal.apply(grad_output, *ctx.where), None, None, None
        return np.diagonal(grad_output, *ctx.where).copy(), None, None, None


class Trace(Linear):
    """f(x) = Σᵢ xᵢᵢ, the sum of the main diagonal;   ∂f/∂xᵢⱼ = 1 if i = j, else 0"""

    node_name = "TraceBackward0"
    formula = r"f(x) = \textstyle\sum_i x_{ii} \qquad \frac{\partial f}{\partial x_{ij}} = [i = j]"

    @staticmethod
    @quietly  # inf + -inf is nan, silently (as PyTorch)
    def forward(ctx, x):
        ctx.shape = x.shape
        return np.asarray(np.trace(x))

    @staticmethod
    def backward(ctx, grad_output):
        # grad · I, with I the identity of x's shape (a rectangle for a non-square x).
        return grad_output * np.eye(*ctx.shape, dtype=_values_dtype(grad_output))


def _values_dtype(array) -> np.dtype:
    return array._data.dtype if isinstance(array, Tensor) else array.dtype


def _int_tuple(name: str, argument: str, position: int, value) -> tuple[int, ...]:
    """``value`` as a tuple of ints, or PyTorch's TypeError for argument ``argument``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (list, tuple)) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value
    ):
        return tuple(int(v) for v in value)
    raise TypeError(
        f"{name}(): argument '{argument}' (position {position}) must be tuple of ints, "
        f"not {type(value).__name__}"
    )


def flip(input: Tensor, *dims, **kwargs) -> Tensor:
    """``input`` with its elements in reverse order along each of ``dims`` (a tuple
    of ints; ``x.flip(0, 1)`` also works as a method).

    >>> import autogradkit as torch
    >>> torch.flip(torch.tensor([[1, 2], [3, 4]]), (1,))
    tensor([[2, 1],
            [4, 3]])
    """
    if "dims" in kwargs:  # flip(x, dims=(0,))
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if len(dims) == 1:
        if isinstance(dims[0], (int, np.integer)) and not isinstance(dims[0], bool):
            raise TypeError(
                "flip(): argument 'dims' (position 2) must be tuple of ints, "
                f"not {type(dims[0]).__name__}"
            )
        dims = _int_tuple("flip", "dims", 2, dims[0])
    else:
        dims = _int_tuple("flip", "dims", 2, dims)
    wrapped = _dims(dims, input.ndim) if dims else ()
    return Flip.apply(input, wrapped)


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """``input`` shifted by ``shifts`` places along ``dims`` (ints or tuples of the
    same length), the elements pushed off one end coming back at the other; with
    no ``dims``, the flattened tensor is rolled.

    >>> import autogradkit as torch
    >>> torch.roll(torch.tensor([1, 2, 3, 4]), 1)
    tensor([4, 1, 2, 3])
    """
    shift_tuple = _int_tuple("roll", "shifts", 2, shifts)
    dim_tuple = () if dims is None else _int_tuple("roll", "dims", 3, dims)
    if not shift_tuple:
        raise RuntimeError("`shifts` required")
    if len(shift_tuple) != len(dim_tuple) and not (len(shift_tuple) == 1 and not dim_tuple):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_tuple)}, dims:{len(dim_tuple)}"
        )
    if input.ndim == 0 and dim_tuple:
        raise IndexError(f"Dimension specified as {dim_tuple[0]} but tensor has no dimensions")
    wrapped = tuple(_wrap_dim(d, input.ndim) for d in dim_tuple)
    return Roll.apply(input, shift_tuple, wrapped)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` along ``dim`` at the positions in ``index`` (a 1-d
    int64 tensor; positions may repeat).

    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> torch.index_select(x, 0, torch.tensor([2, 0]))
    tensor([[5., 6.],
            [1., 2.]])
    """
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    axis = _wrap_dim(dim, input.ndim)
    positions = index._data.reshape(-1)
    if input.ndim == 0:  # a 0-d tensor has one element, at position 0
        if positions.size != 1:
            raise RuntimeError(
                "index_select(): Index to scalar can have only 1 value, "
                f"got {positions.size} value(s)"
            )
        if positions[0] != 0:
            raise IndexError("index out of range in self")
        return IndexSelect.apply(input, axis, positions)
    length = input.shape[axis]
    bad = positions[(positions < 0) | (positions >= length)]
    if bad.size:
        if axis != 1:
            raise IndexError("index out of range in self")
        # (PyTorch's CPU kernel for dim 1 is a loop of its own, with its own words.)
        raise RuntimeError(
            f"INDICES element is out of DATA bounds, id={int(bad[0])} axis_dim={length}"
        )
    return IndexSelect.apply(input, axis, positions)


def _triangle(name: str, function: type[Tril], input: Tensor, diagonal: int) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return function.apply(input, int(diagonal))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of (each matrix in) ``input``: the elements on and below
    diagonal ``diagonal`` (0: the main one, 1: one above), zeros elsewhere.

    >>> import autogradkit as torch
    >>> torch.tril(torch.ones(3, 3))
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """
    return _triangle("tril", Tril, input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of (each matrix in) ``input``: the elements on and above
    diagonal ``diagonal``, zeros elsewhere (see :func:`tril`)."""
    return _triangle("triu", Triu, input, diagonal)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector's diagonal matrix, or a matrix's diagonal as a vector: the vector
    goes on (or is read from) diagonal ``diagonal`` (0: the main one; above it for
    positive values, below for negative ones).

    >>> import autogradkit as torch
    >>> torch.diag(torch.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    >>> torch.diag(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
    tensor([2.])
    """
    if input.ndim == 1:
        return DiagEmbed.apply(input, int(diagonal), 0, 1)
    if input.ndim == 2:
        return DiagonalCopy.apply(input, int(diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the matrices that dimensions ``dim1`` and ``dim2`` hold:
    element i is ``input[i, i + offset]`` for a matrix (``offset`` > 0: above the
    main diagonal, < 0: below). Those two dimensions are removed and the diagonal
    becomes the last one. A view, as in PyTorch: changing it changes ``input``.

    >>> import autogradkit as torch
    >>> x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    >>> x.diagonal()
    tensor([1., 5.], grad_fn=<DiagonalBackward0>)
    >>> torch.diagonal(x, offset=1)
    tensor([2., 6.], grad_fn=<DiagonalBackward0>)
    """
    first, second = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, int(offset), first, second)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor with the last dimension of ``input`` on a diagonal: for a batch of
    vectors, a batch of diagonal matrices. The two new dimensions ``dim1`` and
    ``dim2`` (counted in the result) hold it on diagonal ``offset``; zeros
    elsewhere. The opposite of :func:`diagonal`.

    >>> import autogradkit as torch
    >>> torch.diag_embed(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[[1., 0.],
             [0., 2.]],
    <BLANKLINE>
            [[3., 0.],
             [0., 4.]]])
    """
    first, second = _wrap_dim(dim1, input.ndim + 1), _wrap_dim(dim2, input.ndim + 1)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, int(offset), first, second)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix (int64 for integer matrices).

    >>> import autogradkit as torch
    >>> torch.trace(torch.tensor([[1, 2], [3, 4]]))
    tensor(5)
    """
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._data.dtype.kind == "b":
        input = input.long()
    return Trace.apply(input)
