"""A toy Lights Out on an n x n board for the learned-heuristic tests, with exact distances.

Kept apart from ``puzzles.lightsout`` so the training tests exercise the ``Puzzle`` interface
alone; ``exact_distances`` is a breadth-first search over all ``2^(n*n)`` states.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle


class ToyLights(Puzzle):
    """n x n Lights Out: state (n*n,) uint8 0/1, action i presses cell i (toggles its cross)."""

    num_symbols = 2
    encoding_name = "onehot"

    def __init__(self, n: int = 3) -> None:
        self.n = n
        self.name = f"toylights{n}"
        self.state_dim = n * n
        self.num_actions = n * n
        self.action_names = tuple(str(i) for i in range(n * n))
        m = np.zeros((n * n, n * n), dtype=np.uint8)
        for i in range(n * n):
            r, c = divmod(i, n)
            for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= r + dr < n and 0 <= c + dc < n:
                    m[i, (r + dr) * n + c + dc] = 1
        self.press = m

    def goal(self) -> np.ndarray:
        return np.zeros(self.state_dim, dtype=np.uint8)

    def expand(self, states):
        states = np.atleast_2d(states)
        children = states[:, None, :] ^ self.press[None, :, :]
        return children, np.ones(children.shape[:2], dtype=bool)

    def apply(self, states, actions):
        return np.atleast_2d(states) ^ self.press[np.asarray(actions)]

    def inverse_action(self, action: int) -> int:
        return action

    def parse(self, text):
        s = np.array([int(ch) for ch in text.strip()], dtype=np.uint8)
        self.validate(s)
        return s

    def format(self, state):
        return "".join(str(int(v)) for v in state)

    def validate(self, state):
        if np.asarray(state).shape != (self.state_dim,):
            raise InputError(f"STATE: expected {self.state_dim} lights")

    def parse_moves(self, text):
        return [int(t) for t in text.split()]


def exact_distances(p: ToyLights) -> dict[bytes, int]:
    """Breadth-first distances from the goal of every reachable state."""
    dist = {p.goal().tobytes(): 0}
    frontier = p.goal()[None, :]
    d = 0
    while frontier.shape[0]:
        d += 1
        children, _ = p.expand(frontier)
        nxt = []
        for c in children.reshape(-1, p.state_dim):
            key = c.tobytes()
            if key not in dist:
                dist[key] = d
                nxt.append(c)
        frontier = np.array(nxt, dtype=np.uint8).reshape(-1, p.state_dim)
    return dist
