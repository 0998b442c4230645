"""Small puzzles and heuristics defined for the solver tests (independent of the real domains).

``Pancake(n)``: stacks of ``n`` pancakes, action ``k`` (0 .. n-2) flips the top ``k + 2``; the
gap heuristic is consistent. ``ToyLights(n)``: Lights Out on an ``n x n`` board with the
``lights-on`` heuristic and the lights IDA* kernel spec. ``bfs_distances`` gives exact
distances of every reachable state.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from core.errors import InputError
from heuristics.base import Heuristic, IdaSpec
from puzzles.base import Puzzle


class Pancake(Puzzle):
    """Pancake sorting: state ``(n,)`` uint8 permutation of 0..n-1, goal 0..n-1."""

    num_symbols = 0

    def __init__(self, n: int = 6) -> None:
        self.n = n
        self.name = f"pancake{n}"
        self.num_actions = n - 1
        self.state_dim = n
        self.num_symbols = n
        self.action_names = tuple(f"F{k + 2}" for k in range(n - 1))

    def goal(self) -> np.ndarray:
        return np.arange(self.n, dtype=np.uint8)

    def expand(self, states):
        states = np.atleast_2d(states)
        out = np.repeat(states[:, None, :], self.num_actions, axis=1).copy()
        for a in range(self.num_actions):
            out[:, a, : a + 2] = states[:, a + 1 :: -1][:, : a + 2]
        return out, np.ones(out.shape[:2], dtype=bool)

    def apply(self, states, actions):
        states = np.atleast_2d(states).copy()
        for i, a in enumerate(np.asarray(actions)):
            a = int(a)
            if not 0 <= a < self.num_actions:
                raise ValueError("illegal action")
            states[i, : a + 2] = states[i, : a + 2][::-1]
        return states

    def inverse_action(self, action: int) -> int:
        return action

    def parse(self, text):
        s = np.array([int(t) for t in text.replace(",", " ").split()], dtype=np.uint8)
        self.validate(s)
        return s

    def format(self, state):
        return ",".join(str(int(v)) for v in state)

    def validate(self, state):
        if sorted(int(v) for v in state) != list(range(self.n)):
            raise InputError("STATE: not a permutation")

    def parse_moves(self, text):
        return [self.action_names.index(t) for t in text.split()]


class Gap(Heuristic):
    """Number of adjacent pairs (with a plate below) that are not neighbours; consistent."""

    name = "gap"
    admissible = True
    consistent = True

    def __call__(self, states):
        s = np.atleast_2d(states).astype(np.int64)
        plate = np.full((s.shape[0], 1), s.shape[1], dtype=np.int64)
        full = np.concatenate([s, plate], axis=1)
        return (np.abs(np.diff(full, axis=1)) != 1).sum(axis=1).astype(np.int64)


class ToyLights(Puzzle):
    """Lights Out on an ``n x n`` board: state ``(n*n,)`` 0/1, action ``p`` presses cell ``p``."""

    def __init__(self, n: int = 3) -> None:
        self.n = n
        self.name = f"lightsout{n}"
        self.num_actions = n * n
        self.state_dim = n * n
        self.num_symbols = 2
        self.action_names = tuple(f"r{p // n}c{p % n}" for p in range(n * n))
        mask = np.zeros((n * n, n * n), dtype=np.uint8)
        for p in range(n * n):
            r, c = divmod(p, n)
            for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < n and 0 <= cc < n:
                    mask[p, rr * n + cc] = 1
        self.mask = mask

    def goal(self):
        return np.zeros(self.n * self.n, dtype=np.uint8)

    def expand(self, states):
        states = np.atleast_2d(states)
        return states[:, None, :] ^ self.mask[None, :, :], np.ones(
            (states.shape[0], self.num_actions), dtype=bool)

    def apply(self, states, actions):
        return np.atleast_2d(states) ^ self.mask[np.asarray(actions, dtype=np.int64)]

    def inverse_action(self, action):
        return action

    def parse(self, text):
        s = np.array([int(ch) for ch in text.strip()], dtype=np.uint8)
        self.validate(s)
        return s

    def format(self, state):
        return "".join(str(int(v)) for v in state)

    def validate(self, state):
        if len(state) != self.n * self.n or np.any(np.asarray(state) > 1):
            raise InputError("STATE: bad lights")

    def parse_moves(self, text):
        return [self.action_names.index(t) for t in text.split()]


class ToyLightsOn(Heuristic):
    name = "lights-on"
    admissible = True
    consistent = True

    def __call__(self, states):
        return (np.atleast_2d(states).sum(axis=1).astype(np.int64) + 4) // 5

    def ida_spec(self):
        return IdaSpec(family="lights", kind="lights-on")


class NoKernel(Heuristic):
    """A batch-only heuristic (like a network): no per-state kernel."""

    name = "batch-only"

    def __call__(self, states):
        return np.zeros(np.atleast_2d(states).shape[0], dtype=np.float32)


def bfs_distances(puzzle: Puzzle) -> dict[bytes, int]:
    """Exact distances of every state reachable from the goal (small puzzles only)."""
    goal = puzzle.goal()
    dist = {goal.tobytes(): 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        d = dist[s.tobytes()]
        children, valid = puzzle.expand(s[None, :])
        for c in children[0][valid[0]]:
            k = c.tobytes()
            if k not in dist:
                dist[k] = d + 1
                queue.append(c)
    return dist


def lights_optimal_length(puzzle: ToyLights, state: np.ndarray) -> int | None:
    """Fewest presses solving ``state`` by enumerating all press sets (n <= 4)."""
    n2 = puzzle.n * puzzle.n
    best = None
    for k in range(n2 + 1):
        for combo in itertools.combinations(range(n2), k):
            if np.array_equal(np.bitwise_xor.reduce(puzzle.mask[list(combo)], axis=0)
                              if combo else np.zeros(n2, np.uint8), state):
                return k
    return best


class ToyManhattan(Heuristic):
    """Sum of tile Manhattan distances for ``puzzles.npuzzle.NPuzzle`` (either goal layout)."""

    name = "toy-manhattan"
    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle) -> None:
        super().__init__(puzzle)
        goal = puzzle.goal()
        w = int(round(len(goal) ** 0.5))
        where = np.argsort(goal)  # where[t] = goal position of tile t
        pos = np.arange(len(goal))
        self.table = (np.abs(pos[None, :] // w - where[:, None] // w)
                      + np.abs(pos[None, :] % w - where[:, None] % w)).astype(np.int64)
        self.table[0, :] = 0

    def __call__(self, states):
        s = np.atleast_2d(states).astype(np.int64)
        return self.table[s, np.arange(s.shape[1])[None, :]].sum(axis=1)
