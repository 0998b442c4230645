"""Numba kernels: breadth-first search over a symmetry-reduced cube coset table held in two bits
an entry (see :mod:`pdb_builders.cube_coset_eo`).

Layout: entry ``i`` is bits ``2 (i mod 32) .. 2 (i mod 32) + 1`` of the ``uint64`` word
``i // 32`` (on a little-endian machine the same as bits ``2 (i mod 4)`` of byte ``i // 4``, which
is how the stored table and the search read it). Code ``3`` is "not reached yet" during the
build; entries past the table's length (the last word's padding) stay ``3`` and are skipped.

Reduced entries and their children are those of :mod:`pdb_builders._cube_coset_bfs`: entry
``cls * ne + e`` stands for the raw coset ``(reps[cls], e)``; the child by move ``a`` lies at
``classof[c2] * ne + econj[e2, symof[c2]]``.

Two kinds of pass find the entries one move further than a frontier (all entries with code
``val``) and give them code ``new``:

* :func:`forward` expands each frontier entry and marks its unreached children (and the copies
  of a child under its class's self-symmetries). Children land anywhere, so the two threads may
  mark entries of the same word at once: each mark is an atomic ``and`` on the word
  (``3 & new == new``: clearing bits only), which loses no other thread's mark and tells which
  thread reached the entry first (that one counts it).
* :func:`backward` decides each unreached entry on its own: it gets ``new`` when one of its
  neighbours has code ``val`` (moves are closed under inverses). A thread owns whole words and
  writes each word once, so no atomics are needed; a neighbour read while another thread
  rewrites it shows either its old code or ``new``, never ``val``, so the answer is the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

UNSEEN = 3
#: the low bit of every two-bit entry of a word
M1 = np.uint64(0x5555555555555555)


@intrinsic
def _atomic_and(typingctx, arr, idx, val):  # type: ignore[no-untyped-def]
    """``old = arr[idx]; arr[idx] &= val`` as one atomic read-modify-write; returns ``old``."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.uint64):
        return None
    sig = types.uint64(arr, types.intp, types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        arr_t = signature.args[0]
        ary = context.make_array(arr_t)(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [index], wraparound=False)
        return builder.atomic_rmw("and", ptr, args[2], "monotonic")

    return sig, codegen


@njit(cache=True, inline="always")
def code(words: np.ndarray, i: int) -> int:
    return int((words[i >> 5] >> np.uint64((i & 31) << 1)) & np.uint64(3))


@njit(cache=True, inline="always")
def _child(i: int, a: int, ne: int, reps: np.ndarray, cmove: np.ndarray, emove: np.ndarray,
           classof: np.ndarray, symof: np.ndarray, econj: np.ndarray) -> int:
    cls = i // ne
    e = i - cls * ne
    c2 = cmove[reps[cls], a]
    e2 = emove[e, a]
    return int(classof[c2]) * ne + int(econj[e2, symof[c2]])


@njit(cache=True, inline="always")
def _mark_one(words: np.ndarray, j: int, new: int) -> int:
    """Give the unreached entry ``j`` code ``new``; 1 if this call reached it first, else 0."""
    w = j >> 5
    shift = np.uint64((j & 31) << 1)
    if (words[w] >> shift) & np.uint64(3) != np.uint64(UNSEEN):
        return 0
    mask = ~(np.uint64(3 ^ new) << shift)
    old = _atomic_and(words, w, mask)  # type: ignore[call-arg, var-annotated]
    return 1 if (old >> shift) & np.uint64(3) == np.uint64(UNSEEN) else 0


@njit(cache=True, inline="always")
def mark(words: np.ndarray, j: int, new: int, ne: int, selfsym: np.ndarray,
         econj: np.ndarray) -> int:
    """Give entry ``j`` and its copies under its class's self-symmetries code ``new`` (those
    still unreached); returns how many this call reached first."""
    n = _mark_one(words, j, new)
    cls = j // ne
    m = selfsym[cls]
    if m > 1:
        e = j - cls * ne
        base = cls * ne
        for t in range(1, econj.shape[1]):
            if (m >> t) & 1:
                n += _mark_one(words, base + int(econj[e, t]), new)
    return n


@njit(cache=True, parallel=True)
def forward(words: np.ndarray, lo: int, hi: int, val: int, new: int, size: int, ne: int,
            reps: np.ndarray, cmove: np.ndarray, emove: np.ndarray, classof: np.ndarray,
            symof: np.ndarray, econj: np.ndarray, selfsym: np.ndarray) -> int:
    """Expand the entries of code ``val`` in words ``lo .. hi - 1``; returns the entries marked."""
    rep = M1 * np.uint64(val)
    num_moves = cmove.shape[1]
    total = 0
    for w in prange(lo, hi):
        x = words[w] ^ rep
        hit = ~(x | (x >> np.uint64(1))) & M1
        cnt = 0
        if hit != np.uint64(0):
            for k in range(32):
                if (hit >> np.uint64(2 * k)) & np.uint64(1):
                    i = w * 32 + k
                    if i >= size:
                        break
                    for a in range(num_moves):
                        j = _child(i, a, ne, reps, cmove, emove, classof, symof, econj)
                        cnt += mark(words, j, new, ne, selfsym, econj)
        total += cnt
    return total


@njit(cache=True, parallel=True)
def backward(words: np.ndarray, lo: int, hi: int, val: int, new: int, size: int, ne: int,
             reps: np.ndarray, cmove: np.ndarray, emove: np.ndarray, classof: np.ndarray,
             symof: np.ndarray, econj: np.ndarray) -> int:
    """Give code ``new`` to every unreached entry of words ``lo .. hi - 1`` with a neighbour of
    code ``val``; returns how many."""
    num_moves = cmove.shape[1]
    total = 0
    for w in prange(lo, hi):
        word = words[w]
        unseen = word & (word >> np.uint64(1)) & M1
        cnt = 0
        if unseen != np.uint64(0):
            out = word
            for k in range(32):
                if (unseen >> np.uint64(2 * k)) & np.uint64(1):
                    i = w * 32 + k
                    if i >= size:
                        break
                    for a in range(num_moves):
                        if code(words, _child(i, a, ne, reps, cmove, emove, classof, symof,
                                              econj)) == val:
                            out &= ~(np.uint64(3 ^ new) << np.uint64(2 * k))
                            cnt += 1
                            break
            if out != word:
                words[w] = out
        total += cnt
    return total


@njit(cache=True, parallel=True)
def to_base(words: np.ndarray) -> None:
    """Every reached entry (code ``0 .. 2``) becomes ``0``; unreached ones stay ``3``."""
    for w in prange(words.shape[0]):
        word = words[w]
        unseen = word & (word >> np.uint64(1)) & M1
        words[w] = unseen | (unseen << np.uint64(1))


@njit(cache=True, inline="always")
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & M1)
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, parallel=True)
def counts(words: np.ndarray, size: int) -> np.ndarray:
    """``(4,)`` how many of the first ``size`` entries hold each code."""
    nw = words.shape[0]
    c0 = 0
    c1 = 0
    c2 = 0
    for w in prange(nw):
        x = words[w]
        lo = x & M1
        hi = (x >> np.uint64(1)) & M1
        c0 += _popcount(~lo & ~hi & M1)
        c1 += _popcount(lo & ~hi)
        c2 += _popcount(~lo & hi & M1)
    out = np.zeros(4, np.int64)
    out[0], out[1], out[2] = c0, c1, c2
    out[3] = size - c0 - c1 - c2  # the padding past ``size`` holds 3
    return out


@njit(cache=True)
def lookup(table: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``(B,)`` two-bit codes of entries ``idx`` of a stored table (``uint8`` bytes)."""
    out = np.empty(idx.shape[0], np.uint8)
    for b in range(idx.shape[0]):
        i = idx[b]
        out[b] = (table[i >> 2] >> ((i & 3) << 1)) & 3
    return out
