"""The differentiable operations, one small :class:`~autogradkit.autograd.Function`
subclass each: ``forward`` on NumPy arrays, ``backward`` as the chain rule.

PyTorch keeps these formulas in ``tools/autograd/derivatives.yaml``; here each sits
next to its forward, grouped by kind:

* :mod:`.arithmetic` — ``+ - * / ** // %``, ``fmod``, rounded ``div``, negation, reciprocal
* :mod:`.pointwise` — ``exp, log, sqrt, abs, sigmoid, tanh, relu, clamp, maximum``
* :mod:`.reduction` — ``sum, mean`` (and non-differentiable ``max/min/argmax``)
* :mod:`.rearrange` — ``flip, roll, index_select, tril, triu, diag, trace``
* :mod:`.shape` — ``reshape/view, transpose, t, T, permute, (un)squeeze, expand``,
  indexing, ``stack, cat, clone``
* :mod:`.special` — ``erf, erfinv, atan2, hypot, xlogy, lerp, addcmul`` (and ``isclose``)
* :mod:`.ordering` — ``sort, argsort, topk, median, nanmedian``
* :mod:`.distance` — ``cdist`` (distances between rows)
* :mod:`.einsum` — ``einsum`` (its gradient: an einsum per operand)
* :mod:`.sampling` — ``normal`` (PyTorch's numbers)
* :mod:`.statistics` — ``var, std`` and ``amax, amin`` (over several dimensions)
* :mod:`.linalg` — ``matmul, mm, mv, dot, outer, kron``
* :mod:`.products` — ``vdot, cross, addmv, addr, baddbmm, addbmm, linalg.multi_dot``
* :mod:`.square_matrices` — ``linalg.inv, det, slogdet, logdet, linalg.solve, matrix_power``
* :mod:`.comparison` — ``eq, ne, lt, le, gt, ge`` (bool results; in place: zero gradients)
* :mod:`.bitwise` — ``& | ^ ~``, ``bitwise_and/or/xor/not`` (bools and integers)
* :mod:`.split` — ``split, chunk, unbind``: one node, several outputs
* :mod:`.reshaping` — ``broadcast_to, meshgrid, hstack/vstack/dstack, movedim,
  swapaxes, ravel, unflatten, atleast_nd, tensor_split, fliplr, diff``: built from
  the views and joins above, so their graphs are PyTorch's
* :mod:`.indexing` — ``tile, repeat_interleave, rot90, take,
  take_along_dim, masked_select, index_add, index_copy``
* :mod:`.counting` — ``unique, unique_consecutive, bincount, bucketize,
  searchsorted, cartesian_prod, combinations``
* :mod:`.drawing` — ``bernoulli, multinomial, poisson, randint_like`` (PyTorch's numbers)
* :mod:`.elementary_more` — ``asinh, acosh, atanh, erfc, logit, sinc, deg2rad, rad2deg,
  sgn, positive``
* :mod:`.binary_more` — ``logaddexp, logaddexp2, fmax, fmin, copysign, heaviside,
  float_power``
* :mod:`.gamma` — ``lgamma, digamma, polygamma``
* :mod:`.predicates` — ``isnan, isinf, isfinite, isposinf, isneginf, isreal, signbit``,
  ``logical_and/or/xor/not`` (bool results, never differentiated)
* :mod:`.summaries` — ``nansum, nanmean, count_nonzero, aminmax``
"""
