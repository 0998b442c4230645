"""The pancake problem: a stack of ``n`` pancakes of sizes ``0 .. n-1`` (0 the smallest, on top
at position 0); action ``k`` (named ``F{k+2}``) flips the top ``k + 2`` pancakes. The goal is the
sorted stack. Every flip undoes itself."""

from __future__ import annotations

import math

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle


class Pancake(Puzzle):
    encoding_name = "pancake-sizes"

    def __init__(self, n: int = 8) -> None:
        if not 2 <= n <= 64:
            raise InputError(f"pancake: 2 to 64 pancakes, got {n}")
        self.n = n
        self.name = f"pancake{n}"
        self.state_dim = n
        self.num_symbols = n
        self.num_actions = n - 1
        self.action_names = tuple(f"F{k}" for k in range(2, n + 1))
        # index table: row a holds the positions each child reads from
        idx = np.tile(np.arange(n), (n - 1, 1))
        for a in range(n - 1):
            idx[a, : a + 2] = idx[a, : a + 2][::-1]
        self._flip = idx

    def goal(self) -> np.ndarray:
        return np.arange(self.n, dtype=np.uint8)

    def expand(self, states):
        states = np.atleast_2d(states)
        children = states[:, self._flip]  # (B, A, n)
        return children, np.ones(children.shape[:2], dtype=bool)

    def apply(self, states, actions):
        states = np.atleast_2d(states)
        actions = np.asarray(actions)
        if np.any((actions < 0) | (actions >= self.num_actions)):
            raise ValueError("flip out of range")
        return np.take_along_axis(states, self._flip[actions], axis=1)

    def inverse_action(self, action: int) -> int:
        return action

    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.stack([rng.permutation(self.n) for _ in range(n)]).astype(np.uint8)

    @property
    def num_states(self) -> int:
        return math.factorial(self.n)

    def parse(self, text: str) -> np.ndarray:
        try:
            s = np.array([int(t) for t in text.replace(",", " ").split()], dtype=np.int64)
        except ValueError:
            raise InputError(f"STATE: expected {self.n} pancake sizes 0..{self.n - 1}, "
                             f"got {text!r}") from None
        self.validate(s)
        return s.astype(np.uint8)

    def format(self, state) -> str:
        return " ".join(str(int(v)) for v in state)

    def validate(self, state) -> None:
        s = np.asarray(state)
        if s.shape != (self.n,) or sorted(s.tolist()) != list(range(self.n)):
            raise InputError(f"STATE: expected each pancake size 0..{self.n - 1} once")

    def parse_moves(self, text: str) -> list[int]:
        out = []
        for tok in text.split():
            if tok not in self.action_names:
                raise InputError(f"MOVES: unknown flip {tok!r} (F2..F{self.n})")
            out.append(self.action_names.index(tok))
        return out
