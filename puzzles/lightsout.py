"""Lights Out on an ``n x n`` board.

State: ``uint8`` array of shape ``(n*n,)`` of 0/1 lights in row-major order; the goal is all off.
Action ``i`` presses cell ``i``: it toggles that light and its up-to-4 orthogonal neighbours.
Every action is its own inverse and actions commute, so a solution is a set of cells; the
minimum number of presses is found exactly over GF(2) (``LightsOut.optimal_solution``).

Text formats:

* state: the lights as a 0/1 string in row-major order, ``n*n`` characters (spaces, commas,
  ``/`` and ``|`` between them are ignored), e.g. ``"010 111 010"`` on 3x3.
* moves: cells named ``r<row>c<col>`` with 0-based row and column (``r0c0`` is the top-left
  cell, ``r0c1`` its right neighbour), or plain 0-based cell indices ``row * n + col``,
  separated by spaces or commas; ``format_moves`` writes the ``r<row>c<col>`` names.

On boards whose press matrix is singular over GF(2) (n = 4, 5, 9, 11, 14, 16, 17, 19 among
n <= 20) only ``2 ** rank`` of the ``2 ** (n*n)`` light patterns are solvable; ``validate`` rejects
the others.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from core.capabilities import PressMoves
from core.errors import InputError
from puzzles.base import Puzzle
from puzzles.gf2 import GF2System

_MOVE_RE = re.compile(r"^r([0-9]+)c([0-9]+)$", re.ASCII)


def _check_size(size: int) -> int:
    if not isinstance(size, int | np.integer) or not 1 <= int(size) <= 20:
        raise InputError(f"size: expected an integer from 1 to 20, got {size!r}")
    return int(size)


@cache
def _press_matrix(size: int) -> np.ndarray:
    m = size * size
    a = np.zeros((m, m), dtype=np.uint8)
    for cell in range(m):
        r, c = divmod(cell, size)
        for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < size and 0 <= cc < size:
                a[rr * size + cc, cell] = 1
    a.setflags(write=False)
    return a


def press_matrix(size: int) -> np.ndarray:
    """``(m, m)`` uint8, ``m = size**2``: column ``j`` holds the lights that pressing cell ``j`` toggles.

    The matrix is symmetric, so row ``j`` is the same toggle mask.
    """
    return _press_matrix(_check_size(size))


@cache
def _system(size: int) -> GF2System:
    return GF2System.from_matrix(_press_matrix(size))


def press_system(size: int) -> GF2System:
    """The factored GF(2) system of the ``size x size`` press matrix (cached)."""
    return _system(_check_size(size))


class LightsOut(Puzzle):
    """Lights Out on a ``size x size`` board (``size * size`` actions, all legal)."""

    num_symbols = 2
    encoding_name = "binary"
    positional_moves = True  # a press XORs a fixed mask
    commuting_moves = True  # presses are involutions and commute (XOR)

    def __init__(self, size: int = 7) -> None:
        self.size = _check_size(size)
        self.cells = self.size * self.size
        self.name = f"lightsout{self.size}"
        self.num_actions = self.cells
        self.state_dim = self.cells
        self.action_names = tuple(f"r{r}c{c}" for r in range(self.size) for c in range(self.size))
        self.masks = _press_matrix(self.size)  # row i: the lights pressing cell i toggles
        self._goal = np.zeros(self.cells, dtype=np.uint8)
        self._goal.setflags(write=False)

    @property
    def system(self) -> GF2System:
        return _system(self.size)

    # ------------------------------------------------------------------ dynamics
    def goal(self) -> np.ndarray:
        return self._goal.copy()

    def inverse_action(self, action: int) -> int:
        return int(action)

    def _as_batch(self, states: np.ndarray) -> np.ndarray:
        s = np.asarray(states)
        if s.ndim == 1:
            s = s[None, :]
        if s.ndim != 2 or s.shape[1] != self.cells:
            raise ValueError(f"{self.name}: states must have shape (B, {self.cells}), got {s.shape}")
        return s.astype(np.uint8, copy=False)

    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, m) -> (children (B, m, m) uint8, valid (B, m) bool)``; every press is legal."""
        s = self._as_batch(states)
        children = s[:, None, :] ^ self.masks[None, :, :]
        return children, np.ones((s.shape[0], self.cells), dtype=bool)

    def apply(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``(B, m), (B,) -> (B, m)``: press one cell per state."""
        s = self._as_batch(states)
        a = np.asarray(actions, dtype=np.int64).reshape(-1)
        if a.shape[0] != s.shape[0]:
            raise ValueError(f"{self.name}: {s.shape[0]} states but {a.shape[0]} actions")
        if a.size and (a.min() < 0 or a.max() >= self.cells):
            raise ValueError(f"{self.name}: actions must be 0..{self.cells - 1}")
        return s ^ self.masks[a]

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        return np.arange(self.cells)

    # ------------------------------------------------------------------ instances
    def scramble(
        self, n: int, depth: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` random walks of ``depth`` presses from the goal, never pressing the same cell twice
        in a row. Returns ``(states (n, m) uint8, moves (n, depth) int64)``."""
        if n < 0 or depth < 0:
            raise InputError(f"scramble: n and depth must be >= 0, got {n}, {depth}")
        states = np.zeros((n, self.cells), dtype=np.uint8)
        moves = np.zeros((n, depth), dtype=np.int64)
        prev = np.full(n, -1, dtype=np.int64)
        for d in range(depth):
            if self.cells == 1:
                a = np.zeros(n, dtype=np.int64)
            else:
                # uniform over the cells other than the previous one
                a = rng.integers(0, self.cells - (prev >= 0), size=n)
                a = a + ((prev >= 0) & (a >= prev))
            states ^= self.masks[a]
            moves[:, d] = a
            prev = a
        return states, moves

    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` states uniform over the solvable ones: ``A x`` for uniform random presses ``x``."""
        if n < 0:
            raise InputError(f"random_states: n must be >= 0, got {n}")
        x = rng.integers(0, 2, size=(n, self.cells), dtype=np.uint8)
        return ((x.astype(np.int32) @ self.masks.astype(np.int32)) & 1).astype(np.uint8)

    @property
    def num_states(self) -> int:
        return 2 ** self.system.rank

    # ------------------------------------------------------------------ exact solutions
    def solvable(self, states: np.ndarray) -> np.ndarray:
        """``(B, m) -> (B,)`` bool."""
        return self.system.consistent(self._as_batch(states))

    def optimal_presses(self, states: np.ndarray) -> np.ndarray:
        """The minimum set of presses solving each state: ``(B, m) -> (B, m)`` bool.

        Unique on boards with a nonsingular press matrix (e.g. 7x7); on singular boards the
        least-weight member of ``x0 + null space`` is taken. ``ValueError`` if a state is unsolvable.
        """
        return self.system.min_weight_solve(self._as_batch(states))

    def optimal_solution(self, state: np.ndarray) -> list[int]:
        """A shortest solution of one state: the cells to press, in increasing order."""
        return np.flatnonzero(self.optimal_presses(np.asarray(state)[None, :])[0]).tolist()

    def optimal_lengths(self, states: np.ndarray) -> np.ndarray:
        """Optimal solution lengths ``(B, m) -> (B,)`` int64."""
        return self.optimal_presses(states).sum(axis=1).astype(np.int64)

    # ------------------------------------------------------------------ text I/O
    def parse(self, text: str) -> np.ndarray:
        """A 0/1 string of ``n*n`` lights, row-major; spaces, commas, ``/`` and ``|`` are ignored."""
        chars = re.sub(r"[\s,/|]+", "", str(text))
        if len(chars) != self.cells:
            raise InputError(
                f"STATE: {self.name} needs {self.cells} lights ({self.size}x{self.size}, "
                f"a 0/1 string in row-major order), got {len(chars)}"
            )
        bad = sorted(set(chars) - {"0", "1"})
        if bad:
            raise InputError(f"STATE: lights must be 0 or 1, found {bad[0]!r}")
        state = np.frombuffer(chars.encode(), dtype=np.uint8) - ord("0")
        self._check_solvable(state, "STATE")
        return state.astype(np.uint8)

    def _check_solvable(self, state: np.ndarray, what: str) -> None:
        if not self.system.consistent(state[None, :])[0]:
            rk = self.system.rank
            raise InputError(
                f"{what}: unsolvable on the {self.size}x{self.size} board (the press matrix has "
                f"rank {rk} of {self.cells}; only 1 in {2 ** (self.cells - rk)} light patterns "
                f"can be switched off)"
            )

    def validate(self, state: np.ndarray) -> None:
        s = np.asarray(state)
        if s.shape != (self.cells,):
            raise InputError(f"state: {self.name} needs shape ({self.cells},), got {s.shape}")
        if not np.isin(s, (0, 1)).all():
            raise InputError("state: lights must be 0 or 1")
        self._check_solvable(s.astype(np.uint8), "state")

    def format(self, state: np.ndarray) -> str:
        return "".join("1" if v else "0" for v in np.asarray(state).reshape(-1))

    def parse_moves(self, text: str) -> list[int]:
        """Cells as ``r<row>c<col>`` (0-based) or cell indices, separated by spaces or commas."""
        out = []
        for tok in (t for t in re.split(r"[\s,]+", str(text).strip()) if t):
            m = _MOVE_RE.match(tok.lower())
            if m:
                r, c = int(m.group(1)), int(m.group(2))
                if not (r < self.size and c < self.size):
                    raise InputError(
                        f"MOVES: {tok!r} is off the {self.size}x{self.size} board "
                        f"(rows and columns are 0..{self.size - 1})"
                    )
                out.append(r * self.size + c)
            elif tok.isascii() and tok.isdigit():
                if int(tok) >= self.cells:
                    raise InputError(f"MOVES: cell {tok} out of range 0..{self.cells - 1}")
                out.append(int(tok))
            else:
                raise InputError(
                    f"MOVES: {tok!r} is not a cell; use r<row>c<col> (0-based, e.g. r0c0) or an index"
                )
        return out

    def format_moves(self, actions: Sequence[int]) -> str:
        return " ".join(self.action_names[int(a)] for a in actions)

    def pretty(self, state: np.ndarray, color: bool = False) -> str:
        """A grid: ``#`` for a light that is on, ``.`` for off."""
        s = np.asarray(state).reshape(self.size, self.size)
        on = "\x1b[33m#\x1b[0m" if color else "#"
        return "\n".join(" ".join(on if v else "." for v in row) for row in s)

    # ------------------------------------------------------------------ capabilities
    def board(self) -> dict[str, Any]:
        """How the viewer draws a state (:class:`core.capabilities.HasBoard`)."""
        return {"kind": "lights", "size": int(self.size)}

    def tensor_moves(self) -> PressMoves:
        """Presses as masks (:class:`core.capabilities.HasTensorMoves`)."""
        return PressMoves(np.asarray(self.masks))

    # ------------------------------------------------------------------ network input
    def encode(self, states: np.ndarray) -> np.ndarray:
        """``(B, m)`` int64 in {0, 1}."""
        return np.atleast_2d(states).astype(np.int64)


def from_deepcubea_lights(raw: np.ndarray) -> np.ndarray:
    """DeepCubeA's Lights Out states (their 0/1 ``tiles``, row-major, goal all off) -> ours ``(B, m)``."""
    r = np.atleast_2d(np.asarray(raw))
    if not np.isin(r, (0, 1)).all():
        raise InputError("DeepCubeA lights: entries must be 0 or 1")
    return r.astype(np.uint8)
