"""Exact shortening of a found path by windows: meet-in-the-middle searches between its states.

A solution ``s_0 -> s_1 -> ... -> s_n`` visits ``n + 1`` states. For every window ``s_i .. s_j``
with ``2 <= j - i <= window`` the distance from ``s_i`` to ``s_j`` is found exactly, when it is at
most ``2 R``, by two breadth-first balls of radius ``R`` (:func:`ball`), one around each state: a
shortest path meets the other ball at its middle state, so the least sum of depths over the
states both balls hold is the distance (:func:`solvers._window_kernels.meet`). Where it is below
``j - i``, the shorter segment (the first ball's moves to the meeting state, then the second
ball's moves back, each inverted) can replace the window. A ball is built once per state and
serves every window that state ends.

The windows chosen are those of a shortest route through the path's states (a dynamic
programme over the shorter segments found: windows may overlap, the route takes the best
non-overlapping set), and the pass repeats on the new path, whose spliced states open new
windows, until no window improves. The result is never longer, and every segment is replayed
before use (a hash collision can only hide an improvement, never produce a wrong path).

The radius: ``R = ceil((window - 1) / 2)`` finds every improvement of a window of up to
``window`` moves; on a puzzle whose moves all flip a parity of the state
(``Puzzle.move_parity``: the sliding tiles, the cubes in the quarter-turn metric) any two
paths between the same states differ in length by an even number, so an improvement saves at
least two moves and ``R = ceil((window - 2) / 2)`` suffices (window 14: balls of radius 6, on
the quarter-turn cube 983,926 states each). Moves must be invertible (``Puzzle.reversible``).

A ball holds no state rows: each state is a 64-bit key, its hash with the low
``DEPTH_BITS`` bits replaced by its depth, sorted once (the meeting compares the hash bits and
adds the depth bits), and in breadth-first order with parent pointers and moves, from which a
meeting state's path is read. On puzzles whose moves are position maps (the cubes:
``Puzzle.position_maps``) the breadth-first search runs once per radius, on the maps themselves,
and a ball around any state is that state read through every map (hashed by a Numba kernel
without making the states), which shares the parents and moves. ``window + 2`` balls live at
once. The time budget (``deadline``) is checked before each ball: when it passes, the windows
found so far are used and the rest skipped.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import InputError
from core.limits import Limits
from puzzles.base import Puzzle
from solvers._window_kernels import hash_mapped, meet, sort_keys
from solvers.goal_table import member, state_hashes

#: parents expanded per batch while a ball is built (bounds the temporary children)
CHUNK = 1 << 15
#: low bits of a ball's key that hold the depth (radius at most 31)
DEPTH_BITS = 5
MAX_RADIUS = (1 << DEPTH_BITS) - 1
_DEPTH_MASK = np.uint64(MAX_RADIUS)
#: buckets of ``_window_kernels.sort_keys``
SORT_BUCKETS = 1 << 16


@dataclass(frozen=True)
class Ball:
    """The states within a radius of a centre (module docstring): ``keys`` (hash bits and
    depth, ascending), and in breadth-first order ``order_keys``, ``parent`` (index of the
    state one move closer, -1 at the centre) and ``action`` (the move from the parent)."""

    keys: np.ndarray
    order_keys: np.ndarray
    parent: np.ndarray
    action: np.ndarray
    #: the keys of the states short of the radius, ascending (the ball one move smaller)
    inner: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of this ball's own arrays (parents and moves may be shared)."""
        return int(self.keys.nbytes + self.order_keys.nbytes + self.inner.nbytes)

    def __len__(self) -> int:
        return int(self.keys.size)

    def moves_to(self, key: int) -> list[int]:
        """The moves from the centre to the state of ``key`` (one of ``keys``)."""
        pos = int(np.flatnonzero(self.order_keys == np.uint64(key))[0])
        out: list[int] = []
        while self.parent[pos] >= 0:
            out.append(int(self.action[pos]))
            pos = int(self.parent[pos])
        return out[::-1]


def _keys(hashes: np.ndarray, depth: np.ndarray) -> np.ndarray:
    return (hashes & ~_DEPTH_MASK) | depth.astype(np.uint64)


def _bfs(expand: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], centre: np.ndarray,
         radius: int, keep_rows: bool) -> tuple[list[np.ndarray], np.ndarray, np.ndarray,
                                                 np.ndarray, np.ndarray]:
    """Breadth-first search from ``centre`` to depth ``radius`` with ``expand`` (a puzzle's):
    ``(rows, hashes, depth, parent, action)`` in breadth-first order, each state once (by
    hash); ``rows`` (the states, layer by layer) only with ``keep_rows``."""
    layer = centre[None, :]
    lh = state_hashes(layer)
    prev = np.zeros(0, dtype=np.uint64)
    rows = [layer] if keep_rows else []
    hashes = [lh]
    depths = [np.zeros(1, dtype=np.uint8)]
    parents = [np.full(1, -1, dtype=np.int64)]
    actions = [np.zeros(1, dtype=np.uint8)]
    base = 0  # breadth-first index of the layer's first state
    total = 1
    for d in range(1, radius + 1):
        kid_h, kid_p, kid_a, kid_s = [], [], [], []
        need_states = keep_rows or d < radius
        for c0 in range(0, layer.shape[0], CHUNK):
            children, valid = expand(layer[c0:c0 + CHUNK])
            p_idx, a_idx = np.nonzero(valid)
            kids = children[p_idx, a_idx]
            kid_h.append(state_hashes(kids))
            kid_p.append(base + c0 + p_idx)
            kid_a.append(a_idx.astype(np.uint8))
            if need_states:
                kid_s.append(kids)
        kh = np.concatenate(kid_h)
        _, first = np.unique(kh, return_index=True)
        first.sort()
        new = first[~member(kh[first], np.sort(np.concatenate([lh, prev])))]
        if new.size == 0:
            break
        hashes.append(kh[new])
        depths.append(np.full(new.size, d, dtype=np.uint8))
        parents.append(np.concatenate(kid_p)[new])
        actions.append(np.concatenate(kid_a)[new])
        base = total
        total += int(new.size)
        prev, lh = lh, kh[new]
        if need_states:
            layer = np.concatenate(kid_s)[new]
            if keep_rows:
                rows.append(layer)
    return (rows, np.concatenate(hashes), np.concatenate(depths), np.concatenate(parents),
            np.concatenate(actions))


def _ball(h: np.ndarray, depth: np.ndarray, parent: np.ndarray, action: np.ndarray,
          radius: int) -> Ball:
    order_keys = _keys(h, depth)
    # the bucket sort wins where buckets hold a few keys each
    keys = sort_keys(order_keys) if SORT_BUCKETS <= order_keys.size <= 64 * SORT_BUCKETS \
        else np.sort(order_keys)
    inner = keys[(keys & _DEPTH_MASK) < np.uint64(radius)]
    return Ball(keys, order_keys, parent, action, inner)


#: per puzzle and radius: the ball of the identity as position maps (rows), with its
#: breadth-first depths, parents and moves (see :func:`ball`)
_MAPS: dict[tuple[str, int], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _map_ball(puzzle: Puzzle, maps: np.ndarray,
              radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    key = (puzzle.name, radius)
    if key not in _MAPS:
        def expand(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            kids = np.take(q, maps, axis=1)
            return kids, np.ones(kids.shape[:2], dtype=bool)

        identity = np.arange(maps.shape[1], dtype=np.uint8)
        rows, _, depth, parent, action = _bfs(expand, identity, radius, keep_rows=True)
        _MAPS.clear()  # one table at a time (a radius-6 cube ball: 53 MB of maps)
        _MAPS[key] = (np.concatenate(rows), depth, parent.astype(np.int32), action)
    return _MAPS[key]


def ball(puzzle: Puzzle, centre: np.ndarray, radius: int) -> Ball:
    """Every state within ``radius`` moves of ``centre``, once (by hash), with a shortest path
    to it (parent pointers). On a puzzle whose moves are position maps (``position_maps()``:
    the cubes) the breadth-first search runs once, on the maps themselves (each row the
    composed map of a move sequence), and a ball is ``centre[maps]`` for them all, hashed and
    sorted; otherwise it is a breadth-first search from ``centre``."""
    if not 1 <= radius <= MAX_RADIUS:
        raise InputError(f"--improve-window: a ball radius of {radius} is outside 1..{MAX_RADIUS}")
    centre = np.asarray(centre, dtype=puzzle.dtype)
    maps = puzzle.position_maps()
    if maps is not None and maps.shape[1] <= 256:
        q, depth, parent, action = _map_ball(puzzle, maps, radius)
        h = np.empty(q.shape[0], dtype=np.uint64)
        hash_mapped(centre, q, h)
        return _ball(h, depth, parent, action, radius)
    _, h, depth, parent, action = _bfs(puzzle.expand, centre, radius, keep_rows=False)
    return _ball(h, depth, parent.astype(np.int32), action, radius)


def radius_for(puzzle: Puzzle, window: int) -> int:
    """The ball radius that finds every improvement of a window of ``window`` moves."""
    need = window - (2 if puzzle.move_parity else 1)
    return max(1, math.ceil(need / 2))


def check_window(puzzle: Puzzle, window: int) -> None:
    """``InputError`` unless ``window`` can shorten paths of ``puzzle``."""
    if isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 2:
        raise InputError(f"--improve-window: must be an integer >= 2, got {window!r}")
    if not puzzle.reversible:
        raise InputError(f"--improve-window: {puzzle.name} has moves that cannot be undone; "
                         "window shortening needs invertible moves")


def warm() -> None:
    """Compile (or load from the cache) the kernels outside a timed search."""
    h = np.zeros(1, dtype=np.uint64)
    meet(h, h, 1, DEPTH_BITS)
    hash_mapped(np.zeros(1, dtype=np.uint8), np.zeros((1, 1), dtype=np.uint8), h)
    sort_keys(h)


@dataclass
class _Pass:
    """What one shortening needs across its passes: balls by centre, distances by window."""

    puzzle: Puzzle
    radius: int
    keep: int
    inverse: list[int]
    #: the least saving of an improvement (2 where ``move_parity`` holds)
    step: int
    balls: OrderedDict[bytes, Ball] = field(default_factory=OrderedDict)
    #: (from, to) state bytes -> (the longest segment looked for, a shortest segment within it
    #: or None)
    known: dict[tuple[bytes, bytes], tuple[int, list[int] | None]] = field(default_factory=dict)
    built: int = 0
    states: int = 0

    def ball_of(self, state: np.ndarray) -> Ball:
        key = state.tobytes()
        b = self.balls.get(key)
        if b is None:
            b = ball(self.puzzle, state, self.radius)
            self.built += 1
            self.states += len(b)
            self.balls[key] = b
            while len(self.balls) > self.keep:
                self.balls.popitem(last=False)
        else:
            self.balls.move_to_end(key)
        return b

    def shorter(self, s: np.ndarray, t: np.ndarray, length: int) -> list[int] | None:
        """A shortest path from ``s`` to ``t`` if it is shorter than ``length`` (the path's
        segment between them), else None. A segment of ``need`` moves or fewer has a state
        within ``a = ceil(need / 2)`` of ``s`` and ``need - a`` of ``t``: where those are short
        of the radius, the smaller inner balls are merged."""
        need = length - self.step
        if need < 0:
            return None
        key = (s.tobytes(), t.tobytes())
        hit = self.known.get(key)
        if hit is None or hit[0] < need:
            bs, bt = self.ball_of(s), self.ball_of(t)
            a = min(self.radius, -(-need // 2))
            b = min(self.radius, need - a)
            ks = bs.inner if a < self.radius else bs.keys
            kt = bt.inner if b < self.radius else bt.keys
            _, i, j = meet(ks, kt, need + 1, DEPTH_BITS)
            seg: list[int] | None = None
            if i >= 0:
                seg = bs.moves_to(int(ks[i])) + [
                    self.inverse[m] for m in reversed(bt.moves_to(int(kt[j])))]
                try:
                    end = self.puzzle.apply_path(s, seg)
                except ValueError:
                    seg = None
                else:
                    if not np.array_equal(end, t):
                        seg = None  # a hash collision: no claim
            hit = (need, seg)
            self.known[key] = hit
        seg = hit[1]
        return seg if seg is not None and len(seg) <= need else None


def shorten(puzzle: Puzzle, start: np.ndarray, path: list[int], window: int,
            deadline: float | None = None) -> tuple[list[int], dict[str, Any]]:
    """``path`` (from ``start``) with windows of up to ``window`` moves replaced by shortest
    segments until none improves (module docstring); ``(path, info)``. ``info``: ``saved``
    (moves), ``passes``, ``balls`` (built), ``ball_states`` (their states together), ``radius``,
    ``seconds`` and ``stopped`` (``"time"`` when ``deadline``, a ``time.perf_counter()`` value,
    passed first)."""
    check_window(puzzle, window)
    t0 = time.perf_counter()
    radius = radius_for(puzzle, window)
    # the balls of one target and the window before it, plus the one before that (the
    # least recently used when the next target's ball is built)
    work = _Pass(puzzle, radius, window + 2,
                 [puzzle.inverse_action(a) for a in range(puzzle.num_actions)],
                 2 if puzzle.move_parity else 1)
    path = [int(m) for m in path]
    n0 = len(path)
    passes = 0
    stopped = None
    while stopped is None:
        passes += 1
        states = [np.asarray(start, dtype=puzzle.dtype)]
        for m in path:
            states.append(puzzle.apply_path(states[-1], [m]))
        n = len(path)
        edges: list[list[tuple[int, list[int]]]] = [[] for _ in range(n + 1)]
        for j in range(2, n + 1):
            for i in range(max(0, j - window), j - 1):
                if deadline is not None and time.perf_counter() >= deadline:
                    stopped = "time"
                    break
                seg = work.shorter(states[i], states[j], j - i)
                if seg is not None:
                    edges[i].append((j, seg))
            if stopped:
                break
        # the shortest route from s_0 to s_n over single moves and the segments found
        best = list(range(n + 1))
        via: list[tuple[int, list[int]] | None] = [None] * (n + 1)
        for k in range(n):
            if best[k] + 1 < best[k + 1]:
                best[k + 1], via[k + 1] = best[k] + 1, None
            for j, seg in edges[k]:
                if best[k] + len(seg) < best[j]:
                    best[j], via[j] = best[k] + len(seg), (k, seg)
        if best[n] >= n:
            break
        pieces: list[list[int]] = []
        k = n
        while k > 0:
            step = via[k]
            if step is None:
                pieces.append([path[k - 1]])
                k -= 1
            else:
                pieces.append(step[1])
                k = step[0]
        path = [m for piece in reversed(pieces) for m in piece]
    info = {"saved": n0 - len(path), "passes": passes, "balls": work.built,
            "ball_states": work.states, "radius": radius,
            "seconds": round(time.perf_counter() - t0, 3), "stopped": stopped}
    return path, info


def improve(puzzle: Puzzle, start: np.ndarray, path: list[int], window: int, limits: Limits,
            t0: float, extra: dict[str, Any]) -> list[int]:
    """A solver's found ``path`` shortened by :func:`shorten` within the time ``limits`` left
    since ``t0``; records ``unimproved_length`` and ``window`` (its info) in ``extra``."""
    deadline = None if limits.time_s is None else t0 + limits.time_s
    new, info = shorten(puzzle, start, path, window, deadline)
    extra["unimproved_length"] = len(path)
    extra["window"] = {"size": window, **info}
    return new
