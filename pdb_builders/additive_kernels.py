"""Numba kernels for additive tile pattern databases: the breadth-first build and the lookups.

Canonical layout: the blank-first goal on a ``w x w`` board, ``n = w * w`` cells (tile ``t``'s
goal cell is ``t``). A pattern is ``k`` tiles; a placement is the ``(k,)`` cells they occupy,
ranked by :mod:`puzzles.perm_ranks`.

Abstract state of the build = (placement, blank region): the blank's moves are free, so all blank
positions in one connected region of non-pattern cells are one state. A state is coded as
``rank * n + rep`` where ``rep`` is the lowest cell of its region; the visited set is a bit array
over these codes (``n`` bits a placement). Boards up to 7x7 fit one ``uint64`` cell mask.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from puzzles.perm_ranks import rank_partial, unrank_partial

UNSEEN = 255


@njit(cache=True, nogil=True, inline="always")
def _bit(c) -> np.uint64:
    return np.uint64(1) << np.uint64(c)


@njit(cache=True, nogil=True)
def col_masks(w: int) -> tuple[np.uint64, np.uint64, np.uint64]:
    """(cells not in the left column, cells not in the right column, all cells) as bit masks."""
    not_left = np.uint64(0)
    not_right = np.uint64(0)
    full = np.uint64(0)
    for c in range(w * w):
        full |= _bit(c)
        if c % w != 0:
            not_left |= _bit(c)
        if c % w != w - 1:
            not_right |= _bit(c)
    return not_left, not_right, full


@njit(cache=True, nogil=True)
def flood(seed: np.uint64, free: np.uint64, w: int, not_left: np.uint64,
          not_right: np.uint64) -> np.uint64:
    """The connected component of ``free`` cells containing the cells of ``seed`` (a bit mask)."""
    m = seed
    sw = np.uint64(w)
    one = np.uint64(1)
    while True:
        g = m | ((m & not_right) << one) | ((m >> one) & not_right) | (m << sw) | (m >> sw)
        # (m >> 1) & not_right: a cell moving left must not wrap from the left column to the
        # previous row's right column; cells landing in the right column came from a left column
        g &= free
        g |= m
        if g == m:
            return m
        m = g


@njit(cache=True, nogil=True)
def lowest_cell(m: np.uint64) -> int:
    c = 0
    while (m & np.uint64(1)) == np.uint64(0):
        m >>= np.uint64(1)
        c += 1
    return c


@njit(cache=True)
def expand_chunk(frontier: np.ndarray, n: int, w: int, k: int, visited: np.ndarray,
                 table: np.ndarray, depth: int, out: np.ndarray, filled: np.ndarray) -> int:
    """Expand ``frontier`` codes (``(F,)`` int64, all at distance ``depth - 1``).

    Marks new codes in ``visited`` (``(ceil(entries * n / 64),)`` uint64), sets ``table[rank]``
    (``(entries,)`` uint8) to ``depth`` where it is still ``UNSEEN``, and writes the new codes to
    ``out`` (``(F * 4 * k,)`` int64). Returns how many were written; ``filled[0]`` counts the
    table entries set.
    """
    not_left, not_right, full = col_masks(w)
    pos = np.empty(k, dtype=np.int64)
    cnt = 0
    nn = np.int64(n)
    for f in range(frontier.shape[0]):
        code = frontier[f]
        r = code // nn
        rep = code - r * nn
        unrank_partial(r, n, k, pos)
        occ = np.uint64(0)
        for i in range(k):
            occ |= _bit(pos[i])
        free = full & ~occ
        region = flood(_bit(rep), free, w, not_left, not_right)
        for i in range(k):
            c = pos[i]
            cr = c // w
            cc = c - cr * w
            for d in range(4):
                if d == 0:
                    if cr == 0:
                        continue
                    b = c - w
                elif d == 1:
                    if cr == w - 1:
                        continue
                    b = c + w
                elif d == 2:
                    if cc == 0:
                        continue
                    b = c - 1
                else:
                    if cc == w - 1:
                        continue
                    b = c + 1
                if (region & _bit(b)) == np.uint64(0):
                    continue
                pos[i] = b
                nfree = (free | _bit(c)) & ~_bit(b)
                nreg = flood(_bit(c), nfree, w, not_left, not_right)
                nrep = lowest_cell(nreg)
                nr = rank_partial(pos, n)
                ncode = nr * nn + nrep
                word = ncode >> 6
                mask = np.uint64(1) << np.uint64(ncode & 63)
                if (visited[word] & mask) == np.uint64(0):
                    visited[word] |= mask
                    out[cnt] = ncode
                    cnt += 1
                    if table[nr] == UNSEEN:
                        table[nr] = depth
                        filled[0] += 1
                pos[i] = c
    return cnt


@njit(cache=True)
def seed_codes(goal_pos: np.ndarray, blank_cell: int, n: int, w: int) -> np.int64:
    """The code of the goal state: pattern at ``goal_pos``, blank region holding ``blank_cell``."""
    not_left, not_right, full = col_masks(w)
    occ = np.uint64(0)
    for i in range(goal_pos.shape[0]):
        occ |= _bit(goal_pos[i])
    region = flood(_bit(blank_cell), full & ~occ, w, not_left, not_right)
    return rank_partial(goal_pos, n) * np.int64(n) + lowest_cell(region)


@njit(cache=True)
def full_bfs(n: int, w: int, k: int, out_table: np.ndarray, progress_every: int) -> int:
    """Exact distances of every state of the ``w x w`` puzzle from the blank-first goal.

    ``out_table`` (``(n!/2,)`` uint8, filled with ``UNSEEN``) is indexed by the rank of the cells
    of items ``0 .. k-1`` (``k = n - 2``: the blank and tiles ``1 .. n-3``); the two last tiles'
    cells follow from solvability. Returns the number of states reached.
    """
    total = out_table.shape[0]
    queue = np.empty(total, dtype=np.int64)  # full-permutation ranks (items 0 .. n-1)
    pos = np.empty(n, dtype=np.int64)
    for i in range(n):
        pos[i] = i
    queue[0] = rank_partial(pos, n)
    out_table[rank_partial(pos[:k], n)] = 0
    head = 0
    tail = 1
    while head < tail:
        code = queue[head]
        head += 1
        unrank_partial(code, n, n, pos)
        dist = out_table[rank_partial(pos[:k], n)]
        blank = pos[0]
        br = blank // w
        bc = blank - br * w
        for d in range(4):
            if d == 0:
                if br == 0:
                    continue
                nb = blank - w
            elif d == 1:
                if br == w - 1:
                    continue
                nb = blank + w
            elif d == 2:
                if bc == 0:
                    continue
                nb = blank - 1
            else:
                if bc == w - 1:
                    continue
                nb = blank + 1
            # the tile at nb moves to blank
            t = -1
            for j in range(1, n):
                if pos[j] == nb:
                    t = j
                    break
            pos[t] = blank
            pos[0] = nb
            pr = rank_partial(pos[:k], n)
            if out_table[pr] == UNSEEN:
                out_table[pr] = dist + 1
                queue[tail] = rank_partial(pos, n)
                tail += 1
            pos[t] = nb
            pos[0] = blank
    return tail


# ----------------------------------------------------------------------------- lookups
@njit(cache=True, nogil=True, inline="always")
def table_get(table: np.ndarray, packed: bool, i: np.int64) -> np.int64:
    # i is a rank, never negative: an unsigned index skips Numba's negative-index wraparound
    if packed:
        b = np.int64(table[np.uint64(i >> 1)])  # signed: unsigned arithmetic would widen sums
        return (b >> 4) if (i & 1) else (b & 15)
    return np.int64(table[np.uint64(i)])


@njit(cache=True, nogil=True)
def entry_value(e: int, pos: np.ndarray, ent_tiles: np.ndarray, ent_k: np.ndarray,
                ent_flag: np.ndarray, ent_tab: np.ndarray, transpose: np.ndarray, tables,
                packed: np.ndarray, n: int, buf: np.ndarray) -> np.int64:
    """Value of lookup entry ``e`` for the tile positions ``pos`` (``(n,)``, ``pos[t]`` = cell of t).

    A plain entry reads the cells of its tiles; a transposed one (``ent_flag[e]``) reads the
    state mirrored about the main diagonal: cell ``T[pos[T[a]]]`` for tile ``a``.
    """
    u = np.uint64
    ue = u(e)
    k = ent_k[ue]
    if ent_flag[ue]:
        for i in range(k):
            buf[u(i)] = transpose[u(pos[u(transpose[u(ent_tiles[ue, u(i)])])])]
    else:
        for i in range(k):
            buf[u(i)] = pos[u(ent_tiles[ue, u(i)])]
    # rank_partial inlined over buf (cells are indices: unsigned, no wraparound)
    r = np.int64(0)
    for i in range(k):
        p = buf[u(i)]
        dgt = p
        for j in range(i):
            if buf[u(j)] < p:
                dgt -= 1
        r = r * (n - i) + dgt
    t = ent_tab[ue]
    return table_get(tables[t], packed[u(t)], r)


@njit(cache=True)
def eval_batch(states: np.ndarray, ent_tiles: np.ndarray, ent_k: np.ndarray,
               ent_flag: np.ndarray, ent_tab: np.ndarray, num_plain: int, transpose: np.ndarray,
               tables, packed: np.ndarray) -> np.ndarray:
    """``(B, n)`` canonical states -> ``(B,)`` int32: the sum over plain entries ``0 .. P-1``,
    maxed with the sum over the reflected entries ``P ..`` when there are any."""
    b_count, n = states.shape
    out = np.empty(b_count, dtype=np.int32)
    pos = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    num = ent_k.shape[0]
    for b in range(b_count):
        for c in range(n):
            pos[states[b, c]] = c
        h = 0
        for e in range(num_plain):
            h += int(entry_value(e, pos, ent_tiles, ent_k, ent_flag, ent_tab, transpose, tables,
                                 packed, n, buf))
        if num > num_plain:
            hr = 0
            for e in range(num_plain, num):
                hr += int(entry_value(e, pos, ent_tiles, ent_k, ent_flag, ent_tab, transpose,
                                      tables, packed, n, buf))
            if hr > h:
                h = hr
        out[b] = h
    return out


# ----------------------------------------------------------------------------- sparse layout
# The same values indexed by the pattern's cells read as a base-n number, sum_i cell_i n^(k-1-i),
# instead of the gap-free rank: n^k entries (those of placements with a repeated cell unused).
# A search then updates an entry's index when one tile moves with one multiply-add (the moved
# tile's digit changes) instead of ranking the placement again.

@njit(cache=True)
def sparse_layout(table: np.ndarray, packed: bool, n: int, k: int,
                  out_packed: bool) -> np.ndarray:
    """The ``(n^k,)`` (``out_packed``: nibbles, ``(ceil(n^k / 2),)``) uint8 copy of a ranked
    ``table`` (nibbles when ``packed``) indexed by the base-``n`` number of the placement's
    cells (:func:`sparse_index`)."""
    size = np.int64(1)
    for _ in range(k):
        size *= n
    out = np.zeros((size + 1) // 2 if out_packed else size, dtype=np.uint8)
    # the placements in lexicographic order of their cells are the ranks 0, 1, 2, ...: walk
    # them with an odometer over distinct cells instead of unranking each one
    cells = np.arange(k, dtype=np.int64)
    used = np.uint64(0)
    one = np.uint64(1)
    for i in range(k):
        used |= one << np.uint64(i)
    r = np.int64(0)
    while True:
        s = np.int64(0)
        for i in range(k):
            s = s * n + cells[i]
        v = table_get(table, packed, r)
        if out_packed:
            j = np.uint64(s >> 1)
            if s & 1:
                out[j] = (out[j] & np.uint8(15)) | np.uint8(v << 4)
            else:
                out[j] = (out[j] & np.uint8(240)) | np.uint8(v)
        else:
            out[np.uint64(s)] = np.uint8(v)
        r += 1
        # the next placement: raise the rightmost cell that can take a higher free cell ...
        i = k - 1
        while i >= 0:
            used &= ~(one << np.uint64(cells[i]))
            c = cells[i] + 1
            while c < n and (used >> np.uint64(c)) & one:
                c += 1
            if c < n:
                cells[i] = c
                used |= one << np.uint64(c)
                break
            i -= 1
        if i < 0:
            break
        # ... and give the cells after it the lowest free cells
        for j2 in range(i + 1, k):
            c = 0
            while (used >> np.uint64(c)) & one:
                c += 1
            cells[j2] = c
            used |= one << np.uint64(c)
    return out


@njit(cache=True, nogil=True)
def sparse_index(e: int, pos: np.ndarray, ent_tiles: np.ndarray, ent_k: np.ndarray,
                 ent_flag: np.ndarray, transpose: np.ndarray, n: int) -> np.int64:
    """Index of lookup entry ``e`` in its table's sparse layout for the tile positions ``pos``
    (plain or mirrored as in :func:`entry_value`)."""
    s = np.int64(0)
    for i in range(ent_k[e]):
        a = ent_tiles[e, i]
        c = transpose[pos[transpose[a]]] if ent_flag[e] else pos[a]
        s = s * n + c
    return s
