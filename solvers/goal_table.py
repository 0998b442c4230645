"""States near the goal: a breadth-first table that ends a search early with an optimal tail.

``GoalTable(puzzle, depth)`` holds every state within ``depth`` moves of the goal, as sorted
64-bit state hashes with their exact distances (breadth-first search from the goal; the puzzles
here have invertible moves, so distances to and from the goal agree). A search that generates a
state found in the table can finish at once: ``tail(state)`` walks down the table (each step to
a neighbour one move closer) and returns a shortest path from that state to the goal.

The table keys on a hash, so a collision could make an unrelated state look close to the goal;
``tail`` then fails to reach the goal (it checks every step against the table and the last one
with the puzzle's goal test) and returns None, and the caller ignores the hit. Paths are replayed
by every solver anyway.

On puzzles whose moves act on positions whatever the state (``Puzzle.positional_moves``: the
cubes, where a state is a group element and a move sequence has one effect everywhere),
``shorten(path)`` also replaces any stretch of a path whose net effect is within ``depth`` moves
of the identity by a shortest sequence with that effect: applied to the goal, the stretch gives a
state ``G`` of table distance ``d`` smaller than its length, and the inverse of ``tail(G)`` has
the same effect in ``d`` moves. It repeats until no stretch can be shortened.

Sizes (quarter-turn cube): depth 5 about 105 k states, 6 about 0.98 M, 7 about 9.2 M (9 bytes a
state). Tables are built on first use in a process and kept (``goal_table``).
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle
from solvers import _bf_kernels as K

_CACHE: dict[tuple[str, bytes, int], GoalTable] = {}
MAX_STATES = 50_000_000


def state_hashes(states: np.ndarray) -> np.ndarray:
    """64-bit hashes ``(n,)`` of ``(n, L)`` uint8 states (the node store's hash)."""
    out = np.empty(states.shape[0], dtype=np.uint64)
    if states.shape[0]:
        K.hash_rows(np.ascontiguousarray(states, dtype=np.uint8), out)
    return out


_SORT_QUERIES = 4096


def positions(sorted_set: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(sorted_set, values)``, clipped to valid indices (``size`` -> 0).

    Many queries are sorted first: binary searches for ascending keys walk the table in order and
    stay in cache, where random keys miss it at every step (on a 9.2 M-entry table, 786,000
    queries take about a tenth of the time)."""
    if values.size >= _SORT_QUERIES:
        order = np.argsort(values)
        pos = np.empty(values.size, dtype=np.intp)
        pos[order] = np.searchsorted(sorted_set, values[order])
    else:
        pos = np.searchsorted(sorted_set, values)
    pos[pos == sorted_set.size] = 0
    return pos


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """``values[i] in sorted_set`` for a sorted array."""
    if sorted_set.size == 0:
        return np.zeros(values.shape[0], dtype=bool)
    return sorted_set[positions(sorted_set, values)] == values


class GoalTable:
    """Every state within ``depth`` moves of the goal (see the module docstring)."""

    def __init__(self, puzzle: Puzzle, depth: int) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 0:
            raise InputError(f"--goal-depth: must be an integer >= 0, got {depth!r}")
        self.puzzle = puzzle
        self.depth = int(depth)
        layer = puzzle.goal()[None, :].astype(np.uint8)
        lh = state_hashes(layer)
        all_h, all_d = [lh], [np.zeros(1, dtype=np.uint8)]
        prev = np.zeros(0, dtype=np.uint64)
        total = 1
        for d in range(1, self.depth + 1):
            children, valid = puzzle.expand(layer)
            kids = children.reshape(-1, children.shape[-1])[valid.reshape(-1)]
            kh = state_hashes(kids)
            _, first = np.unique(kh, return_index=True)
            seen = np.sort(np.concatenate([lh, prev]))
            new = first[~member(kh[first], seen)]
            total += new.size
            if total > MAX_STATES:
                raise InputError(f"--goal-depth: {depth} holds more than {MAX_STATES:,} states on "
                                 f"{puzzle.name}; choose a smaller depth")
            prev, layer, lh = lh, kids[new], kh[new]
            all_h.append(lh)
            all_d.append(np.full(new.size, d, dtype=np.uint8))
            if new.size == 0:
                break
        h = np.concatenate(all_h)
        order = np.argsort(h, kind="stable")
        self.hashes = h[order]
        self.dist = np.concatenate(all_d)[order]

    def __len__(self) -> int:
        return int(self.hashes.size)

    @property
    def nbytes(self) -> int:
        return int(self.hashes.nbytes + self.dist.nbytes)

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """Distances ``(n,)`` int64 of states by hash; -1 where not in the table."""
        out = np.full(hashes.shape[0], -1, dtype=np.int64)
        if self.hashes.size == 0 or hashes.size == 0:
            return out
        pos = positions(self.hashes, hashes)
        hit = self.hashes[pos] == hashes
        out[hit] = self.dist[pos[hit]]
        return out

    def tail(self, state: np.ndarray) -> list[int] | None:
        """A shortest path from ``state`` (in the table) to the goal, or None (module docstring)."""
        p = self.puzzle
        s = np.asarray(state, dtype=np.uint8)
        d = int(self.lookup(state_hashes(s[None, :]))[0])
        if d < 0:
            return None
        path: list[int] = []
        while d > 0:
            children, valid = p.expand(s[None, :])
            cd = self.lookup(state_hashes(children[0]))
            ok = np.flatnonzero(valid[0] & (cd == d - 1))
            if ok.size == 0:
                return None
            a = int(ok[0])
            path.append(a)
            s = children[0, a]
            d -= 1
        return path if bool(p.is_goal(s[None, :])[0]) else None


    def shorten(self, path: list[int]) -> list[int]:
        """``path`` with stretches replaced by shorter ones of the same effect (module docstring);
        ``path`` itself on puzzles without ``positional_moves``."""
        p = self.puzzle
        if not getattr(p, "positional_moves", False) or self.depth == 0:
            return list(path)
        inverse = [p.inverse_action(a) for a in range(p.num_actions)]
        goal = p.goal()
        path = list(path)
        improved = True
        while improved:
            improved = False
            n = len(path)
            for length in range(n, 1, -1):  # longest stretches first
                for i in range(n - length + 1):
                    g = p.apply_path(goal, path[i:i + length])
                    d = int(self.lookup(state_hashes(g[None, :]))[0])
                    if 0 <= d < length:
                        t = self.tail(g)
                        if t is not None:
                            path = path[:i] + [inverse[a] for a in reversed(t)] + path[i + length:]
                            improved = True
                            break
                if improved:
                    break
        return path


def goal_table(puzzle: Puzzle, depth: int) -> GoalTable:
    """The table of ``puzzle`` to ``depth``, built once per process."""
    key = (puzzle.name, puzzle.goal().tobytes(), int(depth))
    if key not in _CACHE:
        _CACHE[key] = GoalTable(puzzle, depth)
    return _CACHE[key]
