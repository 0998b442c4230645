"""What the 3x3x3 and the 2x2x2 share: the sticker state, move tables, parsing and formatting."""

from __future__ import annotations

from typing import Any

import numpy as np

from core.capabilities import PermutationMoves
from core.errors import InputError
from puzzles.base import Puzzle
from puzzles.cube.cubies import CubieMoves, corners_from_facelets
from puzzles.cube.facelets import (
    ANSI_BG,
    CORNER_NAMES,
    B,
    D,
    F,
    L,
    R,
    U,
    face_turn_perm,
    piece_facelets,
)
from puzzles.notation import FACES, looks_like_moves


# ----------------------------------------------------------------------------- base class
class CubeBase(Puzzle):
    """What ``Cube3`` and ``Cube2`` share: sticker moves, metric, move parsing, text I/O."""

    size: int
    faces: tuple[int, ...]
    num_symbols = 6
    encoding_name = "onehot-stickers"
    positional_moves = True  # a move permutes sticker positions, whatever the state

    def check_colours(self, state: np.ndarray, what: str = "state") -> np.ndarray:
        """``state`` as a flat array; ``InputError`` unless it has ``state_dim`` facelets of
        colours 0..5, each colour on a sixth of them."""
        state = np.asarray(state).reshape(-1)
        n = self.state_dim
        if state.shape != (n,):
            raise InputError(f"{what}: expected {n} facelets, got {state.size}")
        if state.min() < 0 or state.max() > 5:
            raise InputError(f"{what}: colours must be 0..5")
        counts = np.bincount(state.astype(np.int64), minlength=6)
        per = n // 6
        if np.any(counts != per):
            bad = [f"{FACES[c]}={counts[c]}" for c in range(6) if counts[c] != per]
            raise InputError(f"{what}: wrong colour counts ({', '.join(bad)}; each colour needs {per})")
        return state

    def __init__(self, metric: str = "qtm") -> None:
        if metric not in ("qtm", "htm"):
            raise InputError(f"metric: expected 'qtm' or 'htm', got {metric!r}")
        self.metric = metric
        # a quarter turn is a 4-cycle of corners (odd); a half turn is even
        self.move_parity = metric == "qtm"
        n = self.size
        self.state_dim = 6 * n * n
        powers = (1, 3) if metric == "qtm" else (1, 3, 2)
        suffix = {1: "", 3: "'", 2: "2"}
        self.ACTION_FACE = np.array([f for f in self.faces for _ in powers], dtype=np.int64)
        self.ACTION_POWER = np.array([p for _ in self.faces for p in powers], dtype=np.int64)
        self.num_actions = len(self.ACTION_FACE)
        self.action_names = tuple(
            FACES[f] + suffix[p] for f, p in zip(self.ACTION_FACE, self.ACTION_POWER, strict=True)
        )
        self._per_face = len(powers)
        #: ``(A, L)`` sticker permutations: child = parent[PERMS[a]]
        self.PERMS = np.stack(
            [face_turn_perm(n, int(f), int(p)) for f, p in zip(self.ACTION_FACE, self.ACTION_POWER, strict=True)]
        )
        self._inverse = np.array(
            [self.action_of(int(f), (4 - int(p)) % 4) for f, p in zip(self.ACTION_FACE, self.ACTION_POWER, strict=True)],
            dtype=np.int64,
        )
        self._goal = np.repeat(np.arange(6, dtype=np.uint8), n * n)
        self.corner_facelets = piece_facelets(n, CORNER_NAMES)
        self._cubie_moves: CubieMoves | None = None

    # ------------------------------------------------------------------ actions
    def action_of(self, face: int, quarter_turns: int) -> int:
        """The action turning ``face`` (0..5 = U R F D L B) by ``quarter_turns`` (1, 2, 3) clockwise.

        In the quarter-turn metric a half turn has no single action (``ValueError``).
        """
        if face not in self.faces:
            raise ValueError(f"{self.name} has no {FACES[face]} turns")
        k = self.faces.index(face)
        col = {1: 0, 3: 1, 2: 2}[quarter_turns % 4]
        if col >= self._per_face:
            raise ValueError(f"{self.name} (quarter-turn metric) has no half-turn action")
        return k * self._per_face + col

    def inverse_action(self, action: int) -> int:
        return int(self._inverse[action])

    def face_of(self, action: int) -> int:
        """Face (0..5 = U R F D L B) turned by ``action``."""
        return int(self.ACTION_FACE[action])

    @property
    def INVERSE(self) -> np.ndarray:  # noqa: N802 - a table, named like the others
        """``(A,)`` inverse of each action."""
        return self._inverse.copy()

    # ------------------------------------------------------------------ dynamics
    def goal(self) -> np.ndarray:
        """The solved cube, shape ``(L,)``: each face its own colour."""
        return self._goal.copy()

    def _check_batch(self, states: np.ndarray, what: str = "states") -> np.ndarray:
        states = np.asarray(states)
        if states.ndim == 1:
            states = states[None, :]
        if states.ndim != 2 or states.shape[1] != self.state_dim:
            raise ValueError(f"{what}: expected shape (B, {self.state_dim}), got {states.shape}")
        return states

    def position_maps(self) -> np.ndarray:
        """The sticker permutations ``PERMS``: ``child = parent[PERMS[a]]``."""
        return self.PERMS

    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, L) -> (children (B, A, L), valid (B, A))``; every action is always legal."""
        states = self._check_batch(states)
        # np.take gives a C-ordered (B, A, L) array; fancy indexing would give one whose
        # flattening to (B * A, L) in a search copies it again, several times slower
        children = np.take(states, self.PERMS, axis=1)
        return children, np.ones(children.shape[:2], dtype=bool)

    def apply(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``(B, L), (B,) -> (B, L)``."""
        states = self._check_batch(states)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape[0] != states.shape[0]:
            raise ValueError(f"actions: expected shape ({states.shape[0]},), got {actions.shape}")
        if actions.size and (actions.min() < 0 or actions.max() >= self.num_actions):
            raise ValueError(f"actions: out of range 0..{self.num_actions - 1} for {self.name}")
        return np.take_along_axis(states, self.PERMS[actions], axis=1)

    def scramble(
        self, n: int, depth: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` seeded random walks of ``depth`` moves that never undo the previous move.

        Each move is uniform over the ``A - 1`` actions other than the inverse of the previous
        one (all ``A`` at the first step). Returns ``(states (n, L) uint8, moves (n, depth) int64)``.
        """
        if n < 0 or depth < 0:
            raise InputError(f"scramble: n and depth must be >= 0, got {n} and {depth}")
        states = np.repeat(self._goal[None, :], n, axis=0)
        moves = np.zeros((n, depth), dtype=np.int64)
        for d in range(depth):
            if d == 0:
                a = rng.integers(0, self.num_actions, size=n)
            else:
                a = rng.integers(0, self.num_actions - 1, size=n)
                a += a >= self._inverse[moves[:, d - 1]]
            moves[:, d] = a
            states = np.take_along_axis(states, self.PERMS[a], axis=1)
        return states, moves

    # ------------------------------------------------------------------ capabilities
    def board(self) -> dict[str, Any]:
        """How the viewer draws a state (:class:`core.capabilities.HasBoard`)."""
        return {"kind": "cube", "size": int(self.size)}

    def tensor_moves(self) -> PermutationMoves:
        """The moves as sticker permutations, with each move's face and power
        (:class:`core.capabilities.HasTensorMoves`)."""
        return PermutationMoves(np.asarray(self.PERMS), np.asarray(self.ACTION_FACE),
                                np.asarray(self.ACTION_POWER), htm=self.metric == "htm")

    def encode(self, states: np.ndarray) -> np.ndarray:
        """Sticker colours as integer codes ``(B, L)`` in ``0..5`` (one-hot width ``num_symbols=6``)."""
        return self._check_batch(states).astype(np.int64)

    # ------------------------------------------------------------------ cubie level
    def to_cubies(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        """Facelets ``(B, L)`` -> cubie arrays; see ``Cube3.to_cubies`` and ``Cube2.to_cubies``."""
        raise NotImplementedError

    @property
    def CUBIE_MOVES(self) -> CubieMoves:  # noqa: N802 - the issue names it so
        """Per-action cubie tables (see the module docstring), derived from the sticker moves."""
        if self._cubie_moves is None:
            moved = self.PERMS.shape[0]
            parts = self.to_cubies(self.goal()[self.PERMS])
            if len(parts) == 2:
                empty = np.zeros((moved, 0), dtype=np.int8)
                self._cubie_moves = CubieMoves(parts[0], parts[1], empty, empty)
            else:
                self._cubie_moves = CubieMoves(*parts)
        return self._cubie_moves

    # ------------------------------------------------------------------ inverse position
    def inverse_states(self, states: np.ndarray) -> np.ndarray:
        """The inverse position of each state, ``(B, L) -> (B, L)``, computed on the cubies.

        If the moves ``a1 .. ak`` take the solved cube to ``s``, then ``inv(ak) .. inv(a1)`` take
        it to the inverse of ``s``; both lie at the same distance from solved, and a path that
        solves the inverse maps to one that solves ``s`` by :meth:`inverse_path`. In the cubie
        model a position is ``(p, o)`` with product ``(x*y).p = x.p[y.p]``, ``(x*y).o =
        x.o[y.p] + y.o``, so the inverse is ``p' = argsort(p)``, ``o' = -o[p']`` (mod 3 for
        corners, mod 2 for edges). States must be valid cubes.
        """
        parts = [np.asarray(x, dtype=np.int64) for x in self.to_cubies(states)]
        out: list[np.ndarray] = []
        for k in range(0, len(parts), 2):
            perm, ori = parts[k], parts[k + 1]
            mod = 3 if k == 0 else 2
            inv = np.argsort(perm, axis=1, kind="stable")
            out += [inv, (-np.take_along_axis(ori, inv, axis=1)) % mod]
        return np.asarray(self.from_cubies(*out), dtype=self.dtype)  # type: ignore[attr-defined]

    def inverse_path(self, actions: list[int]) -> list[int]:
        """A path that solves the inverse position as one that solves the position itself: the
        moves in reverse order, each inverted."""
        return [self.inverse_action(int(a)) for a in reversed(actions)]

    # ------------------------------------------------------------------ text I/O
    def _tokens_to_actions(self, tokens: list[tuple[int, int]]) -> list[int]:
        out: list[int] = []
        for face, q in tokens:
            if self.metric == "qtm" and q == 2:
                a = self.action_of(face, 1)
                out += [a, a]
            else:
                out.append(self.action_of(face, q))
        return out

    def format(self, state: np.ndarray) -> str:
        """The facelet string of one state (``L`` letters of ``URFDLB``)."""
        state = np.asarray(state).reshape(-1)
        return "".join(FACES[int(c)] for c in state)

    def _check_letters(self, text: str, what: str) -> np.ndarray:
        if len(text) != self.state_dim:
            hint = ""
            if 0 < len(text) < self.state_dim and all(ch in FACES for ch in text):
                # "D" or "RU" is a move sequence, not a facelet string
                hint = f"; for the moves {text!r} from solved use --scramble {text!r}"
            raise InputError(
                f"{what}: expected {self.state_dim} facelet letters (URFDLB), got {len(text)}{hint}"
            )
        for i, ch in enumerate(text):
            if ch not in FACES:
                raise InputError(
                    f"{what}: unknown symbol {ch!r} at position {i + 1} (facelets are U R F D L B)"
                )
        state = np.array([FACES.index(c) for c in text], dtype=np.uint8)
        counts = np.bincount(state, minlength=6)
        per = self.size * self.size
        bad = [f"{FACES[c]}={counts[c]}" for c in range(6) if counts[c] != per]
        if bad:
            raise InputError(f"{what}: wrong colour counts ({', '.join(bad)}; each colour needs {per})")
        return state

    def parse(self, text: str) -> np.ndarray:
        """A facelet string (``L`` letters URFDLB in Kociemba's order) or a move sequence from solved."""
        text = text.strip()
        if looks_like_moves(text):
            return self.from_moves(self.parse_moves(text))
        return self._parse_facelets(text)

    def _parse_facelets(self, text: str) -> np.ndarray:
        raise NotImplementedError

    def pretty(self, state: np.ndarray, color: bool = False) -> str:
        """The cube net (U on top, L F R B in the middle row, D below); ANSI colours if ``color``."""
        state = np.asarray(state).reshape(-1)
        n = self.size
        faces = state.reshape(6, n, n)

        def cell(c: int) -> str:
            if color:
                return f"\x1b[{ANSI_BG[c]}m {FACES[c]} \x1b[0m"
            return f" {FACES[c]} "

        blank = "   " * n
        lines = []
        for r in range(n):
            lines.append(blank + "".join(cell(int(c)) for c in faces[U, r]))
        for r in range(n):
            lines.append("".join(cell(int(c)) for f in (L, F, R, B) for c in faces[f, r]))
        for r in range(n):
            lines.append(blank + "".join(cell(int(c)) for c in faces[D, r]))
        return "\n".join(line.rstrip() for line in lines)

    def _validate_corners(self, state: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
        cp, co = corners_from_facelets(state[None, :], self.corner_facelets)
        cp, co = cp[0], co[0]
        for i in range(8):
            if cp[i] < 0:
                cols = "".join(FACES[int(c)] for c in state[self.corner_facelets[i]])
                raise InputError(f"{what}: impossible corner {cols} in the {CORNER_NAMES[i]} slot")
        counts = np.bincount(cp, minlength=8)
        for j in range(8):
            if counts[j] > 1:
                raise InputError(f"{what}: corner {CORNER_NAMES[j]} appears {counts[j]} times")
        if int(co.sum()) % 3 != 0:
            raise InputError(f"{what}: a twisted corner (corner twists sum to {int(co.sum())}, not a multiple of 3)")
        return cp, co
