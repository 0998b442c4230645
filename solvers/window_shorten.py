"""Exact shortening of a found path by windows: meet-in-the-middle searches between its states.

A solution ``s_0 -> s_1 -> ... -> s_n`` visits ``n + 1`` states. For every window ``s_i .. s_j``
with ``2 <= j - i <= window`` the distance from ``s_i`` to ``s_j`` is found exactly, when it is at
most ``2 R``, by two breadth-first balls of radius ``R`` (:func:`ball`), one around each state: a
shortest path meets the other ball at its middle state, so the least sum of depths over the
states both balls hold is the distance (:func:`solvers._window_meet.meet`). Where it is below
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

A ball's states are held as sorted 64-bit hashes with their depths, parents and moves (14 bytes
a state, no state rows); ``window + 1`` balls live at once. The time budget (``deadline``) is
checked before each ball: when it passes, the windows found so far are used and the rest skipped.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import InputError
from core.limits import Limits
from puzzles.base import Puzzle
from solvers._window_meet import meet
from solvers.goal_table import member, state_hashes

#: parents expanded per batch while a ball is built (bounds the temporary children)
CHUNK = 1 << 15
#: bytes a ball holds per state: hash, parent, depth, move
BALL_BYTES = 8 + 4 + 1 + 1


@dataclass(frozen=True)
class Ball:
    """The states within ``radius`` moves of a centre, sorted by hash: ``hashes`` (ascending),
    ``depth`` (distance from the centre), ``parent`` (position of the state one move closer,
    -1 at the centre) and ``action`` (the move from the parent)."""

    hashes: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    action: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.hashes.nbytes + self.depth.nbytes + self.parent.nbytes
                   + self.action.nbytes)

    def __len__(self) -> int:
        return int(self.hashes.size)

    def moves_to(self, pos: int) -> list[int]:
        """The moves from the centre to the state at ``pos``."""
        out: list[int] = []
        while self.parent[pos] >= 0:
            out.append(int(self.action[pos]))
            pos = int(self.parent[pos])
        return out[::-1]


def ball(puzzle: Puzzle, centre: np.ndarray, radius: int) -> Ball:
    """Breadth-first search from ``centre`` to depth ``radius``: every state within ``radius``
    moves, once (by hash), with a shortest path to it (parent pointers)."""
    layer = np.asarray(centre, dtype=puzzle.dtype)[None, :]
    lh = state_hashes(layer)
    prev = np.zeros(0, dtype=np.uint64)
    hashes = [lh]
    depths = [np.zeros(1, dtype=np.uint8)]
    parents = [np.full(1, -1, dtype=np.int64)]
    actions = [np.zeros(1, dtype=np.uint8)]
    base = 0  # BFS index of the layer's first state
    total = 1
    for d in range(1, radius + 1):
        kid_h, kid_p, kid_a, kid_s = [], [], [], []
        keep_states = d < radius
        for c0 in range(0, layer.shape[0], CHUNK):
            children, valid = puzzle.expand(layer[c0:c0 + CHUNK])
            p_idx, a_idx = np.nonzero(valid)
            kids = children[p_idx, a_idx]
            kid_h.append(state_hashes(kids))
            kid_p.append(base + c0 + p_idx)
            kid_a.append(a_idx.astype(np.uint8))
            if keep_states:
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
        if keep_states:
            layer = np.concatenate(kid_s)[new]
    h = np.concatenate(hashes)
    order = np.argsort(h, kind="stable")
    where = np.empty(order.size, dtype=np.int64)
    where[order] = np.arange(order.size)
    par = np.concatenate(parents)[order]
    par = np.where(par >= 0, where[np.maximum(par, 0)], -1).astype(np.int32)
    return Ball(h[order], np.concatenate(depths)[order], par, np.concatenate(actions)[order])


def radius_for(puzzle: Puzzle, window: int) -> int:
    """The ball radius that finds every improvement of a window of ``window`` moves."""
    need = window - (2 if getattr(puzzle, "move_parity", False) else 1)
    return max(1, math.ceil(need / 2))


def check_window(puzzle: Puzzle, window: int) -> None:
    """``InputError`` unless ``window`` can shorten paths of ``puzzle``."""
    if isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 2:
        raise InputError(f"--improve-window: must be an integer >= 2, got {window!r}")
    if not puzzle.reversible:
        raise InputError(f"--improve-window: {puzzle.name} has moves that cannot be undone; "
                         "window shortening needs invertible moves")


def warm() -> None:
    """Compile (or load from the cache) the meeting kernel outside a timed search."""
    h = np.zeros(1, dtype=np.uint64)
    d = np.zeros(1, dtype=np.uint8)
    meet(h, d, h, d, 1)


def check_improve_window(value: int | None) -> int:
    """A solver's ``improve_window`` option: 0 (off, also for None) or a window >= 2."""
    if value is None or (not isinstance(value, bool) and isinstance(value, int | np.integer)
                         and value == 0):
        return 0
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 2:
        raise InputError(f"--improve-window: must be 0 (off) or an integer >= 2, got {value!r}")
    return int(value)


@dataclass
class _Pass:
    """What one shortening needs across its passes: balls by centre, distances by window."""

    puzzle: Puzzle
    radius: int
    keep: int
    inverse: list[int]
    balls: OrderedDict[bytes, Ball] = field(default_factory=OrderedDict)
    #: (from, to) state bytes -> a shortest segment (within 2R moves) or None (farther)
    known: dict[tuple[bytes, bytes], list[int] | None] = field(default_factory=dict)
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

    def segment(self, s: np.ndarray, t: np.ndarray) -> list[int] | None:
        """A shortest path from ``s`` to ``t`` when it has at most ``2R`` moves, else None."""
        key = (s.tobytes(), t.tobytes())
        if key in self.known:
            return self.known[key]
        bs, bt = self.ball_of(s), self.ball_of(t)
        _, i, j = meet(bs.hashes, bs.depth, bt.hashes, bt.depth, 2 * self.radius + 1)
        seg: list[int] | None = None
        if i >= 0:
            seg = bs.moves_to(int(i)) + [self.inverse[m] for m in reversed(bt.moves_to(int(j)))]
            try:
                end = self.puzzle.apply_path(s, seg)
            except ValueError:
                seg = None
            else:
                if not np.array_equal(end, t):
                    seg = None  # a hash collision: no claim
        self.known[key] = seg
        return seg


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
    work = _Pass(puzzle, radius, window + 1,
                 [puzzle.inverse_action(a) for a in range(puzzle.num_actions)])
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
                key = (states[i].tobytes(), states[j].tobytes())
                if key not in work.known and deadline is not None \
                        and time.perf_counter() >= deadline:
                    stopped = "time"
                    break
                seg = work.segment(states[i], states[j])
                if seg is not None and len(seg) < j - i:
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
