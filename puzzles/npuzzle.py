"""Sliding-tile puzzles (8, 15, 24, 35, 48) on a ``width x width`` board.

State: ``uint8`` array of shape ``(N,)``, ``N = width * width``, holding the tile at each position
in row-major order; ``0`` is the blank. A batch is ``(B, N)``.

Goal layouts:

* ``blank-last`` (default; DeepCubeA's): tiles ``1 .. N-1`` in order, then the blank.
* ``blank-first`` (Korf's): the blank at position 0 and tile ``t`` at position ``t``.
* ``korf1982`` (8-puzzle only): Korf's macro-operator layout ``1 2 3 / 8 B 4 / 7 6 5``, tiles
  around the border clockwise and the blank in the centre. Its states are the other half of the
  8-puzzle's permutations (the layout differs from ``blank-last`` by an odd permutation of the
  tiles); the exact distance table, the macro-operator solver and blind search serve it.

On odd widths both goals lie in the same class of states. On even widths a state is solvable to
exactly one of them: Korf's 100 15-puzzles only to ``blank-first``, DeepCubeA's test states and the
17 hardest 80-move positions only to ``blank-last``. ``convert_layout`` maps one layout onto the
other exactly (rotate the board 180 degrees, relabel tile ``t`` as ``N - t``), preserving optimal
solution lengths.

Actions: 4, named by the direction the BLANK moves: ``U, D, L, R`` = ``0, 1, 2, 3``; ``U``
undoes ``D`` and ``L`` undoes ``R``. Moves that would take the blank off the board are illegal:
``expand`` marks them invalid, ``apply`` raises ``ValueError``.

Text: a state is one row-major list of tile numbers separated by commas or spaces (``0`` = blank),
e.g. ``"1,2,3,4,5,6,7,8,0"``; moves are letters ``U D L R`` (spaced or not, any case).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from core.capabilities import BlankMoves
from core.errors import InputError
from puzzles.base import Puzzle
from puzzles.permutations import parities

LAYOUTS: tuple[str, ...] = ("blank-last", "blank-first", "korf1982")
#: Korf (1982): tiles clockwise around the border, blank in the centre
KORF1982_GOAL = (1, 2, 3, 8, 0, 4, 7, 6, 5)
ACTION_NAMES: tuple[str, ...] = ("U", "D", "L", "R")
#: inverse of each action: U<->D, L<->R
INVERSE = np.array([1, 0, 3, 2], dtype=np.int64)
#: the action that is the mirror image under a 180-degree board rotation (same as the inverse)
ROTATE_180 = INVERSE
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # (row, col) step of the blank for U, D, L, R


_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)

def _check_width(width: int) -> int:
    if not isinstance(width, int | np.integer) or not 2 <= int(width) <= 15:
        raise InputError(f"width: expected an integer from 2 to 15, got {width!r}")
    return int(width)


@cache
def _blank_moves(width: int) -> np.ndarray:
    n = width * width
    table = np.full((n, 4), -1, dtype=np.int64)
    for pos in range(n):
        r, c = divmod(pos, width)
        for a, (dr, dc) in enumerate(_DELTAS):
            rr, cc = r + dr, c + dc
            if 0 <= rr < width and 0 <= cc < width:
                table[pos, a] = rr * width + cc
    table.setflags(write=False)
    return table


def blank_moves_table(width: int) -> np.ndarray:
    """``(N, 4)`` int64: the blank's next cell for actions U, D, L, R from each cell, or -1."""
    return _blank_moves(_check_width(width))


def goal_state(width: int, layout: str = "blank-last") -> np.ndarray:
    """The goal of ``layout`` on a ``width x width`` board, shape ``(N,)`` uint8."""
    width = _check_width(width)
    n = width * width
    if layout == "blank-last":
        g = np.concatenate([np.arange(1, n), [0]])
    elif layout == "blank-first":
        g = np.arange(n)
    elif layout == "korf1982":
        if width != 3:
            raise InputError(f"goal: korf1982 is an 8-puzzle layout (width 3), not width {width}")
        g = np.array(KORF1982_GOAL)
    else:
        raise InputError(f"goal: expected {', '.join(LAYOUTS)}, got {layout!r}")
    return g.astype(np.uint8)


def convert_layout(states: np.ndarray, width: int) -> np.ndarray:
    """Map states between the two goal layouts: ``(B, N)`` or ``(N,)`` -> same shape.

    Rotates the board 180 degrees (position ``i`` -> ``N - 1 - i``) and relabels tile ``t`` as
    ``N - t`` (the blank stays 0). The map is an involution, sends the blank-first goal to the
    blank-last goal and back, and commutes with moves (blank move ``U`` becomes ``D``, ``L``
    becomes ``R``: see ``convert_moves``), so optimal solution lengths are preserved.
    """
    width = _check_width(width)
    n = width * width
    s = np.asarray(states)
    if s.shape[-1] != n:
        raise InputError(f"states: expected {n} entries per state for width {width}, got {s.shape[-1]}")
    rot = s[..., ::-1]
    out = np.where(rot == 0, 0, n - rot.astype(np.int64))
    return out.astype(np.uint8)


def convert_moves(actions: Sequence[int] | np.ndarray) -> np.ndarray:
    """The moves that mirror ``actions`` after ``convert_layout`` (U<->D, L<->R)."""
    return ROTATE_180[np.asarray(actions, dtype=np.int64)]


def _class_invariant(states: np.ndarray, width: int) -> np.ndarray:
    """Parity invariant of each state under moves: permutation parity + blank row + blank column."""
    s = np.atleast_2d(states)
    blank = np.argmax(s == 0, axis=1)
    r, c = np.divmod(blank, width)
    return (parities(s) + r + c) % 2


def solvable(states: np.ndarray, width: int, layout: str = "blank-last") -> np.ndarray:
    """Which of ``states`` (``(B, N)`` valid permutations) reach the goal of ``layout``: ``(B,)`` bool.

    Every move swaps the blank with a neighbour, flipping both the permutation parity and the
    parity of the blank's row + column, so their sum mod 2 is invariant; states with the goal's
    invariant are exactly the reachable ones.
    """
    goal = goal_state(width, layout)
    return _class_invariant(states, width) == _class_invariant(goal[None, :], width)[0]


class NPuzzle(Puzzle):
    """The ``width x width`` sliding-tile puzzle; ``goal`` is ``blank-last`` or ``blank-first``."""

    num_actions = 4
    action_names = ACTION_NAMES
    encoding_name = "onehot-tiles"
    move_parity = True  # each move takes the blank to a square of the other colour

    layout: str

    def __init__(self, width: int = 4, goal: str = "blank-last") -> None:
        self.width = _check_width(width)
        if goal not in LAYOUTS:
            raise InputError(f"goal: expected {', '.join(LAYOUTS)}, got {goal!r}")
        self.layout = goal
        self.size = self.width * self.width
        self.state_dim = self.size
        self.num_symbols = self.size
        self.name = f"puzzle{self.size - 1}"
        self._goal = goal_state(self.width, goal)  # refuses korf1982 on other widths
        self._goal.setflags(write=False)
        self._moves = _blank_moves(self.width)

    @property
    def goal_pos(self) -> np.ndarray:
        """The goal cell of each tile, ``(N,)`` int64."""
        return np.argsort(self._goal).astype(np.int64)

    # ------------------------------------------------------------------ dynamics
    def goal(self) -> np.ndarray:
        return self._goal.copy()

    def inverse_action(self, action: int) -> int:
        return int(INVERSE[action])

    def _as_batch(self, states: np.ndarray) -> np.ndarray:
        s = np.asarray(states)
        if s.ndim == 1:
            s = s[None, :]
        if s.ndim != 2 or s.shape[1] != self.size:
            raise ValueError(f"{self.name}: states must have shape (B, {self.size}), got {s.shape}")
        return s.astype(np.uint8, copy=False)

    @staticmethod
    def blank_positions(states: np.ndarray) -> np.ndarray:
        """``(B, N) -> (B,)`` int64 position of the blank."""
        return np.argmax(np.atleast_2d(states) == 0, axis=1)

    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, N) -> (children (B, 4, N) uint8, valid (B, 4) bool)``; invalid children copy the parent."""
        s = self._as_batch(states)
        blank = self.blank_positions(s)
        target = self._moves[blank]  # (B, 4)
        valid = target >= 0
        children = np.repeat(s[:, None, :], 4, axis=1)
        bi, ai = np.nonzero(valid)
        tg = target[bi, ai]
        children[bi, ai, blank[bi]] = s[bi, tg]
        children[bi, ai, tg] = 0
        return children, valid

    def apply(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``(B, N), (B,) -> (B, N)``; raises ``ValueError`` if a move takes the blank off the board."""
        s = self._as_batch(states)
        a = np.asarray(actions, dtype=np.int64).reshape(-1)
        if a.shape[0] != s.shape[0]:
            raise ValueError(f"{self.name}: {s.shape[0]} states but {a.shape[0]} actions")
        if a.size and (a.min() < 0 or a.max() > 3):
            raise ValueError(f"{self.name}: actions must be 0..3, got {a.min()}..{a.max()}")
        blank = self.blank_positions(s)
        target = self._moves[blank, a]
        bad = target < 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{self.name}: illegal move {ACTION_NAMES[a[i]]} with the blank at cell {blank[i]}"
            )
        out = s.copy()
        rows = np.arange(s.shape[0])
        out[rows, blank] = s[rows, target]
        out[rows, target] = 0
        return out

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        blank = int(np.argmax(np.asarray(state) == 0))
        return np.flatnonzero(self._moves[blank] >= 0)

    # ------------------------------------------------------------------ instances
    def scramble(
        self, n: int, depth: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` random walks of ``depth`` blank moves from the goal, never undoing the last move.

        Each step picks uniformly among the legal moves other than the inverse of the previous
        one. Returns ``(states (n, N) uint8, moves (n, depth) int64)``.
        """
        if n < 0 or depth < 0:
            raise InputError(f"scramble: n and depth must be >= 0, got {n}, {depth}")
        states = np.repeat(self._goal[None, :], n, axis=0)
        moves = np.zeros((n, depth), dtype=np.int64)
        blank = np.full(n, int(np.argmax(self._goal == 0)), dtype=np.int64)
        prev = np.full(n, -1, dtype=np.int64)
        rows = np.arange(n)
        for d in range(depth):
            target = self._moves[blank]  # (n, 4)
            ok = target >= 0
            has_prev = prev >= 0
            ok[rows[has_prev], INVERSE[prev[has_prev]]] = False
            u = rng.random((n, 4))
            u[~ok] = -1.0
            a = np.argmax(u, axis=1)
            tg = target[rows, a]
            states[rows, blank] = states[rows, tg]
            states[rows, tg] = 0
            blank = tg
            moves[:, d] = a
            prev = a
        return states, moves

    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` states uniform over the states solvable to this goal: ``(n, N)`` uint8.

        Draws a uniform random permutation; where it is in the wrong class, swaps the tiles on the
        first two non-blank cells (a bijection between the two classes for each blank cell).
        """
        if n < 0:
            raise InputError(f"random_states: n must be >= 0, got {n}")
        s = rng.permuted(np.tile(np.arange(self.size, dtype=np.uint8), (n, 1)), axis=1)
        bad = np.flatnonzero(~solvable(s, self.width, self.layout)) if n else np.array([], int)
        if bad.size:
            blank = self.blank_positions(s[bad])
            i = np.where(blank == 0, 1, 0)
            j = np.where(blank <= 1, 2, 1)
            si = s[bad, i].copy()
            s[bad, i] = s[bad, j]
            s[bad, j] = si
        return s

    @property
    def num_states(self) -> int:
        return math.factorial(self.size) // 2

    # ------------------------------------------------------------------ text I/O
    def parse(self, text: str) -> np.ndarray:
        """Parse a row-major tile list (commas or spaces, ``0`` = blank) and validate it."""
        tokens = [t for t in re.split(r"[,\s]+", str(text).strip()) if t]
        n = self.size
        if len(tokens) != n:
            raise InputError(
                f"STATE: {self.name} needs {n} numbers ({self.width}x{self.width}, 0 = blank), "
                f"got {len(tokens)}"
            )
        values = []
        for tok in tokens:
            # ASCII digits only: int() would also take '1_2' and full-width or other scripts' digits
            if not _INT_RE.fullmatch(tok):
                raise InputError(f"STATE: {tok!r} is not an integer")
            value = int(tok)
            if not 0 <= value < n:  # before numpy: a huge number must not overflow
                raise InputError(f"STATE: tile {tok[:24]}{'...' if len(tok) > 24 else ''} out of "
                                 f"range 0..{n - 1} for {self.name}")
            values.append(value)
        return self._validated(np.array(values, dtype=np.int64), "STATE")

    def _validated(self, values: np.ndarray, what: str) -> np.ndarray:
        n = self.size
        v = np.asarray(values)
        if v.shape != (n,):
            raise InputError(f"{what}: {self.name} needs shape ({n},), got {v.shape}")
        if not np.issubdtype(v.dtype, np.integer):
            raise InputError(f"{what}: expected integers, got dtype {v.dtype}")
        v = v.astype(np.int64)
        out_of_range = [int(x) for x in v if not 0 <= x < n]
        if out_of_range:
            raise InputError(
                f"{what}: tile {out_of_range[0]} out of range 0..{n - 1} for {self.name}"
            )
        counts = np.bincount(v, minlength=n)
        if (counts != 1).any():
            dup = np.flatnonzero(counts > 1).tolist()
            missing = np.flatnonzero(counts == 0).tolist()
            raise InputError(
                f"{what}: duplicate tiles {', '.join(map(str, dup))}; "
                f"missing tiles {', '.join(map(str, missing))}"
            )
        state = v.astype(np.uint8)
        if not solvable(state[None, :], self.width, self.layout)[0]:
            # korf1982 holds the other half of the 8-puzzle's states: never offered as the fix
            others = [g for g in LAYOUTS if g not in (self.layout, "korf1982")
                      and solvable(state[None, :], self.width, g)[0]]
            if others:
                hint = f"; it is solvable to the {others[0]} goal (use --goal {others[0]})"
            else:
                hint = "; swapping two tiles makes it solvable"
            raise InputError(
                f"{what}: unsolvable for the {self.layout} goal (wrong permutation parity){hint}"
            )
        return state

    def validate(self, state: np.ndarray) -> None:
        self._validated(np.asarray(state), "state")

    def format(self, state: np.ndarray) -> str:
        return ",".join(str(int(t)) for t in np.asarray(state).reshape(-1))

    def parse_moves(self, text: str) -> list[int]:
        """Letters ``U D L R`` (the direction the blank moves), spaced or not, any case."""
        cleaned = re.sub(r"[\s,]+", "", str(text)).upper()
        out = []
        for ch in cleaned:
            if ch not in ACTION_NAMES:
                raise InputError(
                    f"MOVES: {ch!r} is not a move; use U, D, L, R (the direction the blank moves)"
                )
            out.append(ACTION_NAMES.index(ch))
        return out

    def pretty(self, state: np.ndarray, color: bool = False) -> str:
        """A grid drawing; the blank is an empty cell. With ``color``, tiles already on their
        goal cell are drawn in green."""
        flat = np.asarray(state).reshape(-1)
        w = len(str(self.size - 1))
        sep = "+" + "+".join("-" * (w + 2) for _ in range(self.width)) + "+"
        lines = [sep]
        for r in range(self.width):
            cells = []
            for i in range(r * self.width, (r + 1) * self.width):
                t = int(flat[i])
                txt = " " * w if t == 0 else str(t).rjust(w)
                if color and t != 0 and self._goal[i] == t:
                    txt = f"\x1b[32m{txt}\x1b[0m"
                cells.append(f" {txt} ")
            lines.append("|" + "|".join(cells) + "|")
            lines.append(sep)
        return "\n".join(lines)

    # ------------------------------------------------------------------ capabilities
    def board(self) -> dict[str, Any]:
        """How the viewer draws a state (:class:`core.capabilities.HasBoard`)."""
        return {"kind": "tiles", "width": int(self.width), "goal": [int(v) for v in self.goal()]}

    def tensor_moves(self) -> BlankMoves:
        """A sliding blank (:class:`core.capabilities.HasTensorMoves`)."""
        return BlankMoves(int(self.width))

    # ------------------------------------------------------------------ network input
    def encode(self, states: np.ndarray) -> np.ndarray:
        """``(B, N)`` int64 codes in ``0 .. N-1``: the tile at each position (one-hot per position)."""
        return np.atleast_2d(states).astype(np.int64)


# --------------------------------------------------------------------------- DeepCubeA interop
#: DeepCubeA's move letters name the direction the TILE moves: the blank moves the opposite way.
_DEEPCUBEA_TILE_MOVE = {"U": 1, "D": 0, "L": 3, "R": 2}


def from_deepcubea_tiles(raw: np.ndarray) -> np.ndarray:
    """DeepCubeA's n-puzzle states ``(B, N)`` -> ours ``(B, N)`` uint8.

    Their goal is tiles ``1 .. N-1`` then the blank, row-major (our ``blank-last``), and their
    arrays hold the tile at each position, so the conversion is a dtype change after checking
    that each row is a permutation.
    """
    r = np.atleast_2d(np.asarray(raw))
    n = r.shape[1]
    if int(math.isqrt(n)) ** 2 != n:
        raise InputError(f"DeepCubeA tiles: {n} entries is not a square board")
    if not (np.sort(r, axis=1) == np.arange(n)[None, :]).all():
        raise InputError("DeepCubeA tiles: a row is not a permutation of 0..N-1")
    return r.astype(np.uint8)


def deepcubea_tile_moves(solution: Sequence[str]) -> list[int]:
    """Their move letters (direction the tile moves) -> our action indices (direction of the blank)."""
    out = []
    for m in solution:
        key = str(m).strip().upper()
        if key not in _DEEPCUBEA_TILE_MOVE:
            raise InputError(f"DeepCubeA moves: {m!r} is not one of U, D, L, R")
        out.append(_DEEPCUBEA_TILE_MOVE[key])
    return out
