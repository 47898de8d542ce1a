"""Where the derivatives of ``det`` knowingly differ from PyTorch's (see
docs/differences.md): at a singular matrix of rank n - 1 the gradient of det is its
matrix of cofactors, not 0."""

from __future__ import annotations

import numpy as np
import pytest

import autogradkit as ak


def _cofactors(m: np.ndarray) -> np.ndarray:
    """The matrix of cofactors, from its definition: (-1)^(i+j) times the minor."""
    n = len(m)
    out = np.empty_like(m)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(m, i, axis=0), j, axis=1)
            out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


SINGULAR = [
    [[1.0, 2.0], [2.0, 4.0]],
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
    [[0.0, 0.0], [0.0, 1.0]],
]


@pytest.mark.parametrize("values", SINGULAR)
@pytest.mark.parametrize("dtype", [ak.float32, ak.float64])
def test_det_gradient_at_a_singular_matrix_is_its_cofactors(values, dtype):
    a = ak.tensor(values, dtype=dtype, requires_grad=True)
    ak.det(a).backward()
    expected = _cofactors(np.array(values))
    assert np.abs(expected).max() > 0  # (rank n - 1: the cofactors are not all 0)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("values", SINGULAR)
def test_det_tangent_at_a_singular_matrix_is_the_cofactors_times_the_direction(values):
    a = np.array(values)
    direction = np.linspace(0.5, 1.5, a.size).reshape(a.shape)
    fwAD = ak.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(ak.tensor(a), ak.tensor(direction))
        tangent = fwAD.unpack_dual(ak.det(dual)).tangent
    np.testing.assert_allclose(tangent.item(), (_cofactors(a) * direction).sum(), atol=1e-12)


def test_det_differentiated_twice_at_a_singular_matrix_is_refused_in_words():
    a = ak.tensor(SINGULAR[0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="second derivative of det at a singular"):
        ak.autograd.grad(ak.det(a), a, create_graph=True)


def test_inverse_and_solve_are_stored_column_by_column_as_in_pytorch():
    """PyTorch returns LAPACK's column-major results: view refuses them."""
    a = ak.tensor([[2.0, 1.0], [1.0, 3.0]])
    for result in (ak.linalg.inv(a), ak.linalg.solve(a, ak.ones(2, 2))):
        assert not result.is_contiguous()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            result.view(-1)
    assert ak.linalg.solve(a, ak.ones(2)).is_contiguous()


@pytest.mark.parametrize("dual_argument", [0, 1])
def test_lstsq_refuses_forward_mode_in_words_rather_than_dropping_a_tangent(dual_argument):
    fwAD = ak.autograd.forward_ad
    operands = [ak.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), ak.tensor([1.0, 2.0, 2.0])]
    with fwAD.dual_level():
        operands[dual_argument] = fwAD.make_dual(
            operands[dual_argument], ak.ones_like(operands[dual_argument])
        )
        with pytest.raises(NotImplementedError, match="lstsq has no forward mode"):
            ak.linalg.lstsq(*operands)
