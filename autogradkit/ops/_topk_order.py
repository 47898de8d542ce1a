"""Which of several tied elements ``topk`` (and ``nanmedian``, ``kthvalue``, ``mode``)
returns: PyTorch's CPU order, step by step.

PyTorch's CPU ``topk`` (``aten/src/ATen/native/TopKImpl.h``) puts each row's
``(value, position)`` pairs in a vector and calls C++'s ``std::partial_sort`` (when
``k * 64 <= n``) or ``std::nth_element`` followed by ``std::sort`` of the first
``k - 1`` pairs. Those algorithms leave equal values in an order that depends on
their inner workings, not on the positions. This module replays GCC's libstdc++
versions of them (``bits/stl_algo.h``, ``bits/stl_heap.h``) on a Python list, so
that tied elements come out at the same positions as in PyTorch. It is a detail
of parity, not a lesson: ``ordering.topk`` is where topk is explained.

Only comparisons with ``before`` (PyTorch's comparator: larger first, nan as the
largest; or smaller first) decide anything, so any value type works.
"""

from __future__ import annotations

import math
from collections.abc import Callable

Before = Callable[[float, float], bool]

_THRESHOLD = 16  # libstdc++'s _S_threshold: ranges this small are insertion-sorted


def before_largest(a: float, b: float) -> bool:
    return (math.isnan(a) and not math.isnan(b)) or a > b


def before_smallest(a: float, b: float) -> bool:
    return (not math.isnan(a) and math.isnan(b)) or a < b


def topk_positions(values: list, k: int, largest: bool, sorted: bool) -> list[int]:
    """The positions of the k values PyTorch's CPU topk returns, in its order."""
    queue = [(v, j) for j, v in enumerate(values)]
    comp = before_largest if largest else before_smallest

    def less(a: tuple, b: tuple) -> bool:
        return comp(a[0], b[0])

    if k == 0:
        return []
    if k * 64 <= len(queue):
        _partial_sort(queue, 0, k, len(queue), less)
    else:
        _nth_element(queue, 0, k - 1, len(queue), less)
        if sorted:
            _sort(queue, 0, k - 1, less)
    return [j for _, j in queue[:k]]


def all_equal_nth_position(n: int) -> int:
    """Which of ``n`` values that are all equivalent (no one before another: a row
    of nans for ``nanmedian``) C++'s ``std::nth_element`` leaves at the front."""
    queue = list(range(n))
    _nth_element(queue, 0, 0, n, lambda a, b: False)
    return queue[0] if queue else 0


def mode_position(values: list) -> int:
    """Where the most frequent of ``values`` is, as PyTorch's CPU ``mode`` finds it:
    (value, position) pairs sorted by value with C++'s ``std::sort`` (which leaves
    equal values in no particular order), then the first run of equal values that
    is longer than every run before it; its last pair's position."""
    pairs = [(v, j) for j, v in enumerate(values)]
    _sort(pairs, 0, len(pairs), lambda a, b: a[0] < b[0])
    best, best_count, count = pairs[0], 0, 0
    for i, pair in enumerate(pairs):
        count += 1
        if i == len(pairs) - 1 or pair[0] != pairs[i + 1][0]:  # (nan != nan: a run of 1)
            if count > best_count:
                best, best_count = pair, count
            count = 0
    return best[1]


def kthvalue_position(values: list, k: int) -> int:
    """Where the k-th smallest of ``values`` (k counted from 0) is, as PyTorch's CPU
    ``kthvalue`` picks it among equal values: its own quickselect
    (``quick_select_template`` in ``aten/src/ATen/native/SortingUtils.h``), median
    of three for the pivot, nan as the largest value."""
    pairs = [(v, j) for j, v in enumerate(values)]
    low, high = 0, len(pairs) - 1
    while high > low:
        if high == low + 1:  # two elements
            if _smaller(pairs[high], pairs[low]):
                _swap(pairs, low, high)
            break
        j, i = _quickselect_partition(pairs, low, high)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return pairs[k][1]


def _smaller(a: tuple, b: tuple) -> bool:
    return before_smallest(a[0], b[0])


def _swap(q: list, i: int, j: int) -> None:
    q[i], q[j] = q[j], q[i]


def _quickselect_partition(q: list, low: int, high: int) -> tuple[int, int]:
    """One step of PyTorch's quickselect on q[low..high]: the median of three
    elements as pivot (moved to q[low]), then Hoare's partition around it; returns
    where the pivot ends (j) and where the upper part starts (i)."""
    _swap(q, low + (high - low) // 2, low + 1)
    if _smaller(q[high], q[low + 1]):
        _swap(q, low + 1, high)
    if _smaller(q[high], q[low]):
        _swap(q, low, high)
    if _smaller(q[low], q[low + 1]):
        _swap(q, low + 1, low)
    i, j, pivot = low + 1, high, q[low]
    while True:
        i += 1
        while _smaller(q[i], pivot):
            i += 1
        j -= 1
        while _smaller(pivot, q[j]):
            j -= 1
        if j < i:
            break
        _swap(q, i, j)
    _swap(q, low, j)
    return j, i


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _insertion_sort(q: list, first: int, last: int, less) -> None:
    if first == last:
        return
    for i in range(first + 1, last):
        if less(q[i], q[first]):
            value = q[i]
            q[first + 1 : i + 1] = q[first:i]
            q[first] = value
        else:
            _unguarded_linear_insert(q, i, less)


def _unguarded_linear_insert(q: list, last: int, less) -> None:
    value = q[last]
    nxt = last - 1
    while less(value, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = value


def _move_median_to_first(q: list, result: int, a: int, b: int, c: int, less) -> None:
    if less(q[a], q[b]):
        if less(q[b], q[c]):
            q[result], q[b] = q[b], q[result]
        elif less(q[a], q[c]):
            q[result], q[c] = q[c], q[result]
        else:
            q[result], q[a] = q[a], q[result]
    elif less(q[a], q[c]):
        q[result], q[a] = q[a], q[result]
    elif less(q[b], q[c]):
        q[result], q[c] = q[c], q[result]
    else:
        q[result], q[b] = q[b], q[result]


def _unguarded_partition(q: list, first: int, last: int, pivot: int, less) -> int:
    while True:
        while less(q[first], q[pivot]):
            first += 1
        last -= 1
        while less(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _unguarded_partition_pivot(q: list, first: int, last: int, less) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(q, first + 1, last, first, less)


def _adjust_heap(q: list, first: int, hole: int, length: int, value, less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _make_heap(q: list, first: int, last: int, less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: list, first: int, last: int, result: int, less) -> None:
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, less)


def _heap_select(q: list, first: int, middle: int, last: int, less) -> None:
    _make_heap(q, first, middle, less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            _pop_heap(q, first, middle, i, less)


def _partial_sort(q: list, first: int, middle: int, last: int, less) -> None:
    _heap_select(q, first, middle, last, less)
    while middle - first > 1:  # __sort_heap
        middle -= 1
        _pop_heap(q, first, middle, middle, less)


def _nth_element(q: list, first: int, nth: int, last: int, less) -> None:
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _sort(q: list, first: int, last: int, less) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * _lg(last - first), less)
    if last - first > _THRESHOLD:  # __final_insertion_sort
        _insertion_sort(q, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def _introsort_loop(q: list, first: int, last: int, depth: int, less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(q, first, last, last, less)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last, less)
        _introsort_loop(q, cut, last, depth, less)
        last = cut
