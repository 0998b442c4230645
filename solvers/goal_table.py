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
state). Tables are built on first use in a process and kept (``goal_table``); a search that uses
one counts its bytes in its peak memory, and the build's own peak (``build_peak_bytes``) is
measured apart, once, as a table's build is.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle
from solvers import _bf_kernels as K
from solvers.memory import PeakMemory

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


#: bytes a stored state costs while the table is built (hash, distance) and once it is sorted
#: (the concatenated hashes, the sort order and the sorted copies)
_HELD_BYTES, _FINAL_BYTES = 9, 26
#: a projected build this many times above the memory limit is refused before the next layer
PROJECTION_MARGIN = 8


def _expand_bytes(n: int, num_actions: int, state_dim: int) -> int:
    """Bytes the expansion of a layer of ``n`` states allocates at its peak: per child, the
    children and the valid children with the puzzle's temporaries (about four copies of a
    state, ``state_dim`` bytes each), the valid mask, the hashes, the sort of np.unique (value
    and index) and the membership positions. Measured peaks (growth of the resident set):
    cube3 depth 6 235 MiB (this model: 305), lightsout7 depth 4 120 MiB (227), cube2 depth 8
    24 MiB (28)."""
    return n * num_actions * (4 * state_dim + 1 + 8 + 16 + 8 + 15)


def projected_bytes(sizes: list[int], depth: int, num_actions: int, state_dim: int,
                    cap: int | None = None) -> tuple[int, int]:
    """``(states, bytes)``: the table's projected size to ``depth`` and the peak bytes its build
    would take, from the sizes of the layers built so far (``sizes[d]``: states at distance
    ``d``; at least three): each later layer grows by the smaller of the last two layers'
    ratios, and no count exceeds ``cap`` (the puzzle's number of states, where known). The
    growth only slows as the table fills its puzzle, but it swings from layer to layer (the
    tiles' blank alternates between positions with 2, 3 and 4 moves), hence the smaller
    ratio: a projection that rarely exceeds the real size, so that a refusal on it is sound
    (the next layer's expansion is checked exactly before it is allocated in any case)."""
    n = float(sizes[-1])
    ratio = min(n / max(sizes[-2], 1), sizes[-2] / max(sizes[-3], 1))
    total = float(sum(sizes))
    peak = 0.0
    for _ in range(len(sizes), depth + 1):
        peak = max(peak, total * _HELD_BYTES + _expand_bytes(int(n), num_actions, state_dim))
        n *= ratio
        total += n
        if cap is not None:
            n, total = min(n, cap), min(total, cap)
        if total > 2**62:
            break
    peak = max(peak, total * _FINAL_BYTES)
    return int(min(total, 2**62)), int(min(peak, 2**62))


def available_bytes() -> int | None:
    """The memory this machine has available now (``psutil``), or ``None`` where unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or the platform's figure unreadable
        return None


def _refuse(puzzle: Puzzle, depth: int, states: int | None, need: int,
            memory_bytes: int, machine: bool = False) -> None:
    about = f"about {states:,} states, " if states is not None else ""
    budget = (f"the machine's available memory ({memory_bytes / 2**20:,.0f} MiB; no "
              "--memory-limit given); choose a smaller depth") if machine else \
        (f"the memory limit ({memory_bytes / 2**20:,.0f} MiB); choose a smaller depth or a "
         "larger --memory-limit")
    raise InputError(f"--goal-depth: {depth} on {puzzle.name} needs {about}about "
                     f"{need / 2**20:,.0f} MiB to build its goal table, more than {budget}")


class GoalTable:
    """Every state within ``depth`` moves of the goal (see the module docstring).

    ``memory_bytes``: the search's memory budget (``--memory-limit``); the build refuses (one
    ``InputError`` naming ``--goal-depth``) as soon as the table's projected size, from the
    layers built so far, or the next layer's expansion would exceed it, before allocating it.
    Without a budget, the machine's available memory (:func:`available_bytes`, read when the
    build starts) is the budget."""

    def __init__(self, puzzle: Puzzle, depth: int, memory_bytes: int | None = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 0:
            raise InputError(f"--goal-depth: must be an integer >= 0, got {depth!r}")
        machine = memory_bytes is None
        if machine:
            memory_bytes = available_bytes()
        self.puzzle = puzzle
        self.depth = int(depth)
        #: peak memory of the build (bytes; set by :func:`goal_table`, 0 when not measured)
        self.build_peak_bytes = 0
        layer = puzzle.goal()[None, :].astype(np.uint8)
        lh = state_hashes(layer)
        all_h, all_d = [lh], [np.zeros(1, dtype=np.uint8)]
        prev = np.zeros(0, dtype=np.uint64)
        total = 1
        sizes = [1]
        try:
            cap = puzzle.num_states
        except (NotImplementedError, AttributeError):
            cap = None
        for d in range(1, self.depth + 1):
            if memory_bytes is not None:
                # the next layer's expansion, exactly (up to the model's constant)
                need = total * _HELD_BYTES + _expand_bytes(layer.shape[0], puzzle.num_actions,
                                                           layer.shape[1])
                if need > memory_bytes:
                    _refuse(puzzle, depth, None, need, memory_bytes, machine)
                if len(sizes) >= 3:  # the whole build, projected from the growth so far:
                    # refused at once where it is far above the limit (the projection can
                    # overestimate a few times over on the tiles' uneven early layers)
                    states, projected = projected_bytes(sizes, self.depth, puzzle.num_actions,
                                                        layer.shape[1], cap)
                    if projected > PROJECTION_MARGIN * memory_bytes:
                        _refuse(puzzle, depth, states, projected, memory_bytes, machine)
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
            sizes.append(int(new.size))
            if new.size == 0:
                break
        if memory_bytes is not None and total * _FINAL_BYTES > memory_bytes:
            _refuse(puzzle, depth, total, total * _FINAL_BYTES, memory_bytes, machine)
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
        if not p.positional_moves or self.depth == 0:
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


def goal_table(puzzle: Puzzle, depth: int, memory_bytes: int | None = None) -> GoalTable:
    """The table of ``puzzle`` to ``depth``, built once per process (within ``memory_bytes``:
    :class:`GoalTable`)."""
    key = (puzzle.name, puzzle.goal().tobytes(), int(depth))
    if key not in _CACHE:
        with PeakMemory() as mem:
            table = GoalTable(puzzle, depth, memory_bytes)
        table.build_peak_bytes = mem.peak_bytes
        _CACHE[key] = table
    return _CACHE[key]
