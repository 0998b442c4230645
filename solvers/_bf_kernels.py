"""Numba kernels of the batch best-first engine: an exact closed-set hash table and a binary heap.

Node store (struct of arrays, node ``i`` in row ``i``): ``states (C, L) uint8``, ``g (C,) int64``,
``h (C,) float64``, ``fcur (C,) float64`` (f of the node's newest open-list entry), ``parent (C,) int64`` (-1 at the root), ``action (C,) int64`` (-1 at the root),
``hashes (C,) uint64``, ``closed (C,) bool``.

Closed set: open addressing with linear probing over ``table (T, 2) uint64`` records
``[node id + 1 (0 = empty), hash]`` (``T`` a power of two). The key is the full state row: the
64-bit hash only picks the bucket and short-cuts comparisons (it sits in the record, so a probe
touches one cache line); two states are merged only when all ``L`` bytes are equal, so a hash
collision can never merge two states.

Open list: a binary min-heap of ``(H, 3) float64`` records ``[f, h, node id]`` ordered by
``(f, h)`` (ids are exact in float64 below 2^53); entries made stale by a cheaper path or by an
expansion are skipped when popped (lazy deletion).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_MIX = np.uint64(0x9E3779B97F4A7C15)

NEW, IMPROVED, DUPLICATE = 1, 2, 0


@njit(cache=True)
def hash_row(row):  # pragma: no cover - compiled
    """64-bit hash of one ``uint8`` row: FNV-1a over little-endian 8-byte words, then a mix.

    Words are assembled from independent bytes (instruction-level parallelism), so the serial
    multiply chain is ``L / 8`` long instead of ``L``.
    """
    h = _FNV_OFFSET
    n = row.shape[0]
    full = n - n % 8
    for j in range(0, full, 8):
        w = (np.uint64(row[j]) | (np.uint64(row[j + 1]) << np.uint64(8))
             | (np.uint64(row[j + 2]) << np.uint64(16)) | (np.uint64(row[j + 3]) << np.uint64(24))
             | (np.uint64(row[j + 4]) << np.uint64(32)) | (np.uint64(row[j + 5]) << np.uint64(40))
             | (np.uint64(row[j + 6]) << np.uint64(48)) | (np.uint64(row[j + 7]) << np.uint64(56)))
        h = (h ^ w) * _FNV_PRIME
        h ^= h >> np.uint64(32)
    for j in range(full, n):
        h = (h ^ np.uint64(row[j])) * _FNV_PRIME
    h ^= h >> np.uint64(29)
    return h * _MIX


@njit(cache=True)
def hash_rows(rows, out):  # pragma: no cover - compiled
    """``hash_row`` of every row of ``rows (M, L)`` into ``out (M,) uint64``."""
    for i in range(rows.shape[0]):
        out[i] = hash_row(rows[i])


@njit(cache=True)
def _rows_equal(a, b):  # pragma: no cover - compiled
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


@njit(cache=True)
def insert_children(table, hashes, states, g, parent, action, closed, n_nodes,
                    children, child_hash, child_g, child_parent, child_action, out_ids,
                    out_kind):  # pragma: no cover - compiled
    """Look up each child ``(M, L)`` in the closed set; add new states, improve cheaper ones.

    ``child_hash (M,) uint64`` are the children's ``hash_rows`` (any values work: the hash only
    chooses the bucket and short-cuts comparisons; equality is decided on the full rows).

    For child ``i``: ``out_kind[i]`` is ``NEW`` (a new node ``out_ids[i]`` was appended; its ``h``
    is still to be set), ``IMPROVED`` (node ``out_ids[i]`` was reached by a cheaper path: its
    ``g``, ``parent`` and ``action`` were updated and it is reopened) or ``DUPLICATE`` (no
    better; ``out_ids[i] = -1``). The caller guarantees capacity for ``M`` new nodes and a
    table load below one half. Returns the new node count.
    """
    mask = np.uint64(table.shape[0] - 1)
    n = n_nodes
    for i in range(children.shape[0]):
        row = children[i]
        h = child_hash[i]
        slot = h & mask
        while True:
            tag = table[slot, 0]
            if tag == 0:
                table[slot, 0] = np.uint64(n + 1)
                table[slot, 1] = h
                states[n, :] = row
                g[n] = child_g[i]
                parent[n] = child_parent[i]
                action[n] = child_action[i]
                hashes[n] = h
                closed[n] = False
                out_ids[i] = n
                out_kind[i] = NEW
                n += 1
                break
            if table[slot, 1] == h:
                idx = np.int64(tag) - 1
                if _rows_equal(states[idx], row):
                    if child_g[i] < g[idx]:
                        g[idx] = child_g[i]
                        parent[idx] = child_parent[i]
                        action[idx] = child_action[i]
                        closed[idx] = False
                        out_ids[i] = idx
                        out_kind[i] = IMPROVED
                    else:
                        out_ids[i] = -1
                        out_kind[i] = DUPLICATE
                    break
            slot = (slot + np.uint64(1)) & mask
    return n


@njit(cache=True)
def rebuild_table(table, hashes, n_nodes):  # pragma: no cover - compiled
    """Insert nodes ``0 .. n_nodes-1`` into an empty (all 0) ``table`` by their stored hashes."""
    mask = np.uint64(table.shape[0] - 1)
    for i in range(n_nodes):
        h = hashes[i]
        slot = h & mask
        while table[slot, 0] != 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot, 0] = np.uint64(i + 1)
        table[slot, 1] = h


@njit(cache=True)
def _less(heap, i, j):  # pragma: no cover - compiled
    return heap[i, 0] < heap[j, 0] or (heap[i, 0] == heap[j, 0] and heap[i, 1] < heap[j, 1])


@njit(cache=True)
def _swap(heap, i, j):  # pragma: no cover - compiled
    for c in range(3):
        t = heap[i, c]
        heap[i, c] = heap[j, c]
        heap[j, c] = t


@njit(cache=True)
def heap_push(heap, size, f_new, h_new, ids):  # pragma: no cover - compiled
    """Push records ``(f_new[k], h_new[k], ids[k])`` onto ``heap (H, 3)``; ``size`` is ``(1,)`` int64.

    The caller guarantees ``size[0] + len(ids) <= H``.
    """
    n = size[0]
    for k in range(ids.shape[0]):
        i = n
        n += 1
        heap[i, 0] = f_new[k]
        heap[i, 1] = h_new[k]
        heap[i, 2] = ids[k]
        while i > 0:
            p = (i - 1) >> 1
            if _less(heap, i, p):
                _swap(heap, i, p)
                i = p
            else:
                break
    size[0] = n


@njit(cache=True)
def _pop_one(heap, size):  # pragma: no cover - compiled
    n = size[0] - 1
    f0 = heap[0, 0]
    id0 = np.int64(heap[0, 2])
    for c in range(3):
        heap[0, c] = heap[n, c]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        c = left
        if left + 1 < n and _less(heap, left + 1, left):
            c = left + 1
        if _less(heap, c, i):
            _swap(heap, i, c)
            i = c
        else:
            break
    size[0] = n
    return f0, id0


@njit(cache=True)
def heap_pop_batch(heap, size, closed, fcur, batch, out):  # pragma: no cover - compiled
    """Pop up to ``batch`` live nodes with the lowest ``(f, h)`` into ``out``; mark them closed.

    An entry is stale (skipped) when its node is closed or its ``f`` is no longer the node's
    current ``fcur`` (a cheaper path pushed a newer entry). Returns the number popped.
    """
    k = 0
    while k < batch and size[0] > 0:
        f0, i = _pop_one(heap, size)
        if closed[i] or f0 != fcur[i]:
            continue
        closed[i] = True
        out[k] = i
        k += 1
    return k
