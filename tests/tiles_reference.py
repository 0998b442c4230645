"""Naive pure-Python references for the tile heuristics, PDBs and IDA* (used by the tests)."""

from __future__ import annotations

import functools
import itertools
from collections import deque

import numpy as np

MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))  # blank U D L R


def neighbours(cell: int, w: int) -> list[tuple[int, int]]:
    """(action, cell) pairs the blank can move to from ``cell``."""
    r, c = divmod(cell, w)
    out = []
    for a, (dr, dc) in enumerate(MOVES):
        rr, cc = r + dr, c + dc
        if 0 <= rr < w and 0 <= cc < w:
            out.append((a, rr * w + cc))
    return out


def bfs_distances(goal: tuple[int, ...], w: int) -> dict[tuple[int, ...], int]:
    """Exact distance of every state reachable from ``goal`` (dict: state tuple -> moves)."""
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        b = s.index(0)
        for _, nb in neighbours(b, w):
            t = list(s)
            t[b], t[nb] = t[nb], 0
            u = tuple(t)
            if u not in dist:
                dist[u] = dist[s] + 1
                queue.append(u)
    return dist


def additive_pattern_table(pattern: tuple[int, ...], w: int) -> dict[tuple[int, ...], int]:
    """0-1 BFS over (pattern placement, blank cell) from the blank-first goal: pattern moves cost
    1, other moves 0; returns placement -> minimum over blank cells."""
    n = w * w
    start = (tuple(pattern), 0)
    dist = {start: 0}
    dq = deque([start])
    while dq:
        (place, blank) = dq.popleft()
        d = dist[(place, blank)]
        for _, nb in neighbours(blank, w):
            if nb in place:
                i = place.index(nb)
                np_ = place[:i] + (blank,) + place[i + 1:]
                key, cost = (np_, nb), 1
            else:
                key, cost = (place, nb), 0
            if key not in dist or dist[key] > d + cost:
                dist[key] = d + cost
                if cost:
                    dq.append(key)
                else:
                    dq.appendleft(key)
    table: dict[tuple[int, ...], int] = {}
    for (place, _), d in dist.items():
        table[place] = min(d, table.get(place, 1 << 30))
    assert len(table) == len(list(itertools.permutations(range(n), len(pattern))))
    return table


def manhattan(s: np.ndarray, goal: np.ndarray, w: int) -> int:
    gpos = {int(t): i for i, t in enumerate(goal)}
    h = 0
    for i, t in enumerate(s):
        if t:
            g = gpos[int(t)]
            h += abs(i // w - g // w) + abs(i % w - g % w)
    return h


def linear_conflict(s: np.ndarray, goal: np.ndarray, w: int) -> int:
    """Manhattan + 2 * (per line: fewest tiles to remove so the rest are in goal order),
    found by trying every subset."""
    gpos = {int(t): i for i, t in enumerate(goal)}
    extra = 0
    for line in range(w):
        for is_row in (True, False):
            cells = [line * w + i for i in range(w)] if is_row else [i * w + line for i in range(w)]
            keys = []
            for c in cells:
                t = int(s[c])
                if t == 0:
                    continue
                g = gpos[t]
                if is_row and g // w == line:
                    keys.append(g % w)
                elif not is_row and g % w == line:
                    keys.append(g // w)
            best = len(keys)
            for r in range(len(keys) + 1):
                for keep in itertools.combinations(range(len(keys)), len(keys) - r):
                    vals = [keys[i] for i in keep]
                    if all(a < b for a, b in itertools.pairwise(vals)):
                        best = min(best, r)
            extra += best
    return manhattan(s, goal, w) + 2 * extra


def ida_manhattan(s: np.ndarray, goal: np.ndarray, w: int) -> tuple[int, int]:
    """IDA* with Manhattan distance counted as in ref_ida15.c: (length, nodes generated)."""
    tiles = [int(x) for x in s]
    g_t = [int(x) for x in goal]
    generated = 0

    def h() -> int:
        return manhattan(np.array(tiles), np.array(g_t), w)

    def dfs(blank: int, g: int, bound: int, prev: int) -> tuple[bool, int]:
        nonlocal generated
        f = g + h()
        if f > bound:
            return False, f
        if tiles == g_t:
            return True, f
        nxt = 1 << 30
        for a, nb in neighbours(blank, w):
            if prev >= 0 and a == (prev ^ 1):
                continue
            generated += 1
            tiles[blank], tiles[nb] = tiles[nb], 0
            ok, f2 = dfs(nb, g + 1, bound, a)
            if ok:
                return True, f2
            tiles[nb], tiles[blank] = tiles[blank], 0
            nxt = min(nxt, f2)
        return False, nxt

    bound = h()
    while True:
        ok, f = dfs(tiles.index(0), 0, bound, -1)
        if ok:
            return f, generated
        bound = f


@functools.cache
def puzzle8_states(layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Every solvable 8-puzzle state ``(181440, 9)`` uint8 and its exact distance ``(181440,)``."""
    goal = tuple(range(9)) if layout == "blank-first" else (1, 2, 3, 4, 5, 6, 7, 8, 0)
    dist = bfs_distances(goal, 3)
    states = np.array(list(dist.keys()), dtype=np.uint8)
    return states, np.array(list(dist.values()), dtype=np.int64)
