"""Rubik's cube 3x3x3 (``Cube3``) and 2x2x2 (``Cube2``) as sticker arrays.

State
    Facelet colours, ``uint8``, shape ``(54,)`` (2x2x2: ``(24,)``), in Kociemba's facelet order:
    faces ``U R F D L B``, each read row by row; ``U`` is seen from above with ``B`` at the top,
    ``D`` from below with ``F`` at the top, the side faces from outside with ``U`` at the top.
    Colour values ``0..5`` are ``U R F D L B`` (the colour of that face's centre when solved)::

                     U1 U2 U3
                     U4 U5 U6
                     U7 U8 U9
            L1 L2 L3 F1 F2 F3 R1 R2 R3 B1 B2 B3
            L4 L5 L6 F4 F5 F6 R4 R5 R6 B4 B5 B6
            L7 L8 L9 F7 F8 F9 R7 R8 R9 B7 B8 B9
                     D1 D2 D3
                     D4 D5 D6
                     D7 D8 D9

    indices: U1..U9 = 0..8, R1..R9 = 9..17, F = 18..26, D = 27..35, L = 36..44, B = 45..53.
    The 2x2x2 uses the same order with 4 facelets per face (``U1 U2 / U3 U4`` = 0..3, ...).

Actions (other modules rely on this order)
    ``metric="qtm"`` (quarter-turn metric, DeepCubeA): ``U U' R R' F F' D D' L L' B B'``;
    action ``a = 2*face + (0 clockwise, 1 counter-clockwise)``, faces numbered ``U R F D L B`` = 0..5.
    ``metric="htm"`` (half-turn metric, Korf 1997): ``U U' U2 R R' R2 ...``; ``a = 3*face + (0 cw,
    1 ccw, 2 half turn)``. ``ACTION_FACE[a]`` is the face, ``ACTION_POWER[a]`` the number of clockwise
    quarter turns (1, 3 or 2). The 2x2x2 keeps its down-back-left corner fixed and turns only
    ``U R F`` (faces 0, 1, 2): 6 actions (qtm) or 9 (htm), numbered by the same scheme.

Cubies (Kociemba's convention)
    Corners ``URF UFL ULB UBR DFR DLF DBL DRB`` (0..7), edges ``UR UF UL UB DR DF DL DB FR FL BL BR``
    (0..11). ``cp[i]`` is the corner in slot ``i``, ``co[i]`` its twist: which of the slot's three
    facelets (listed in the order of the slot's name, e.g. ``U9 R1 F3`` for URF) carries the corner's
    U/D colour (0, 1 or 2). ``ep[i]`` is the edge in slot ``i``, ``eo[i]`` its flip (0 when the
    edge's first colour lies on the slot's first facelet). Moves act on cubies as in Kociemba's
    cubie-level multiplication: after action ``a`` with tables ``(mcp, mco, mep, meo) =
    CUBIE_MOVES[a]``, ``cp' = cp[mcp]``, ``co' = (co[mcp] + mco) % 3``, ``ep' = ep[mep]``,
    ``eo' = (eo[mep] + meo) % 2`` (see ``apply_cubies``). ``Cube3.to_cubies`` returns
    ``(cp, co, ep, eo)``; ``Cube2.to_cubies`` returns ``(cp, co)`` with corner DBL (6) fixed in slot 6.
    The 2x2x2 also has a compact index ``cube2_index`` (corner permutation x twist, 3,674,160
    values) and ``Cube2.distance_table()``, the exact distance of every state by breadth-first search.

DeepCubeA
    ``from_deepcubea_cube3`` maps their sticker ids (faces U D L R B F, colour = id // 9, each face
    a quarter turn from our layout) to our facelets; ``deepcubea_moves`` maps their ``[face, +1|-1]``
    moves to actions (``+1`` is clockwise).

The move tables are built from the geometry of the cube (sticker positions rotated about face
axes), not typed in; the tests check them against the golden facelet strings.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from puzzles.base import InputError, Puzzle
from puzzles.notation import FACES, looks_like_moves, tokenize

U, R, F, D, L, B = range(6)
#: outward normal of each face, axes x: L->R, y: D->U, z: B->F
FACE_NORMALS = np.array(
    [[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, -1, 0], [-1, 0, 0], [0, 0, -1]], dtype=np.int64
)
OPPOSITE = (D, L, B, U, R, F)

CORNER_NAMES = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGE_NAMES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")
#: colours of each corner / edge, in the order of its name (first = U/D colour for corners)
CORNER_COLORS = np.array([[FACES.index(c) for c in n] for n in CORNER_NAMES], dtype=np.int64)
EDGE_COLORS = np.array([[FACES.index(c) for c in n] for n in EDGE_NAMES], dtype=np.int64)
DBL = 6  # the corner slot the 2x2x2 keeps fixed

_ANSI_BG = {U: "47;30", R: "41;97", F: "42;30", D: "103;30", L: "48;5;208;30", B: "44;97"}


# ----------------------------------------------------------------------------- geometry
def _rotate_cw(normal: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) a clockwise quarter turn seen from outside face ``normal``."""
    dot = v @ normal
    return normal[None, :] * dot[:, None] - np.cross(normal[None, :], v)


def _facelet_geometry(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Cubie position ``(6n^2, 3)`` and outward normal ``(6n^2, 3)`` of every facelet, in our order.

    Coordinates are ``2c - (n-1)`` for grid index ``c``, so the outer layers sit at ``+-(n-1)``.
    """
    m = n - 1
    pos = []
    nrm = []
    for face in range(6):
        for r in range(n):
            for c in range(n):
                vr, vc = 2 * r - m, 2 * c - m
                p = {
                    U: (vc, m, vr),
                    R: (m, -vr, -vc),
                    F: (vc, -vr, m),
                    D: (vc, -m, -vr),
                    L: (-m, -vr, vc),
                    B: (-vc, -vr, -m),
                }[face]
                pos.append(p)
                nrm.append(FACE_NORMALS[face])
    return np.array(pos, dtype=np.int64), np.array(nrm, dtype=np.int64)


def _index_of(pos: np.ndarray, nrm: np.ndarray) -> dict[tuple[int, ...], int]:
    return {tuple(p) + tuple(q): i for i, (p, q) in enumerate(zip(pos, nrm, strict=True))}


def _rotation_perm(n: int, rot: np.ndarray, layer_normal: np.ndarray | None) -> np.ndarray:
    """Sticker permutation of a rotation matrix ``rot`` applied to a layer (or the whole cube).

    Returns ``perm`` with ``new_state = state[perm]``.
    """
    pos, nrm = _facelet_geometry(n)
    where = _index_of(pos, nrm)
    perm = np.arange(len(pos))
    moving = np.ones(len(pos), bool) if layer_normal is None else (pos @ layer_normal == n - 1)
    new_pos = pos @ rot.T
    new_nrm = nrm @ rot.T
    for i in np.flatnonzero(moving):
        perm[where[tuple(new_pos[i]) + tuple(new_nrm[i])]] = i
    return perm


def _cw_matrix(normal: np.ndarray) -> np.ndarray:
    """3x3 integer matrix of a clockwise quarter turn about ``normal``."""
    return _rotate_cw(normal, np.eye(3, dtype=np.int64)).T


def face_turn_perm(n: int, face: int, quarter_turns: int) -> np.ndarray:
    """Sticker permutation ``(6n^2,)`` of ``quarter_turns`` clockwise turns of ``face``."""
    rot = np.linalg.matrix_power(_cw_matrix(FACE_NORMALS[face]), quarter_turns % 4)
    return _rotation_perm(n, rot, FACE_NORMALS[face])


def _all_rotations() -> list[np.ndarray]:
    """The 24 proper rotations of the cube as integer 3x3 matrices."""
    mats = []
    for p in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), dtype=np.int64)
            for row, (col, s) in enumerate(zip(p, signs, strict=True)):
                m[row, col] = s
            if round(np.linalg.det(m)) == 1:
                mats.append(m)
    return mats


def _piece_facelets(n: int, names: Sequence[str]) -> np.ndarray:
    """Facelet indices ``(pieces, len(name))`` of each named corner or edge, in the name's order."""
    pos, nrm = _facelet_geometry(n)
    where = _index_of(pos, nrm)
    m = n - 1
    out = []
    for name in names:
        faces = [FACES.index(c) for c in name]
        cubie = sum(FACE_NORMALS[f] for f in faces) * m
        out.append([where[tuple(cubie) + tuple(FACE_NORMALS[f])] for f in faces])
    return np.array(out, dtype=np.int64)


# ----------------------------------------------------------------------------- cubies
class CubieMoves(NamedTuple):
    """Cubie-level action tables; ``A`` actions.

    ``cp (A, 8)``, ``co (A, 8)``, ``ep (A, 12)``, ``eo (A, 12)`` (2x2x2: ``ep``/``eo`` are ``(A, 0)``).
    """

    cp: np.ndarray
    co: np.ndarray
    ep: np.ndarray
    eo: np.ndarray


def _corner_lookup() -> np.ndarray:
    """``table[ori_colour, c1, c2] -> corner`` or -1 (colours read clockwise from the U/D sticker)."""
    t = np.full((6, 6, 6), -1, dtype=np.int64)
    for j, (a, b, c) in enumerate(CORNER_COLORS):
        t[a, b, c] = j
    return t


def _edge_lookup() -> tuple[np.ndarray, np.ndarray]:
    """``(edge[c0, c1], flip[c0, c1])`` for the colours on a slot's first and second facelet."""
    e = np.full((6, 6), -1, dtype=np.int64)
    f = np.zeros((6, 6), dtype=np.int64)
    for j, (a, b) in enumerate(EDGE_COLORS):
        e[a, b], f[a, b] = j, 0
        e[b, a], f[b, a] = j, 1
    return e, f


_CORNER_TABLE = _corner_lookup()
_EDGE_TABLE, _FLIP_TABLE = _edge_lookup()


def _corners_from_facelets(states: np.ndarray, cf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cp, co)`` each ``(B, 8)``; ``cp`` is -1 where the stickers form no corner."""
    cols = states[:, cf].astype(np.int64)  # (B, 8, 3)
    is_ud = (cols == U) | (cols == D)
    ori = np.argmax(is_ud, axis=2)  # (B, 8)
    k = np.arange(3)
    idx = (ori[:, :, None] + k[None, None, :]) % 3
    rolled = np.take_along_axis(cols, idx, axis=2)
    cp = _CORNER_TABLE[rolled[..., 0], rolled[..., 1], rolled[..., 2]]
    cp = np.where(is_ud.sum(axis=2) == 1, cp, -1)
    return cp, ori


def _corners_to_facelets(out: np.ndarray, cp: np.ndarray, co: np.ndarray, cf: np.ndarray) -> None:
    b = np.arange(out.shape[0])[:, None]
    for k in range(3):
        slot_facelet = cf[np.arange(8)[None, :], (k + co) % 3]  # (B, 8)
        out[b, slot_facelet] = CORNER_COLORS[cp, k]


def _parity(perm: np.ndarray) -> int:
    """0 for an even permutation, 1 for odd."""
    seen = np.zeros(len(perm), bool)
    swaps = 0
    for i in range(len(perm)):
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = int(perm[j])
                length += 1
            swaps += length - 1
    return swaps % 2


def _random_perms(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, size)`` uniformly random permutations."""
    return np.argsort(rng.random((n, size)), axis=1)


def _perm_parities(perms: np.ndarray) -> np.ndarray:
    """Parities ``(n,)`` of ``(n, size)`` permutations (count of inversions mod 2)."""
    size = perms.shape[1]
    inv = np.zeros(perms.shape[0], dtype=np.int64)
    for i in range(size):
        for j in range(i + 1, size):
            inv += perms[:, i] > perms[:, j]
    return inv % 2


# ----------------------------------------------------------------------------- base class
class _CubeBase(Puzzle):
    """What ``Cube3`` and ``Cube2`` share: sticker moves, metric, move parsing, text I/O."""

    size: int
    faces: tuple[int, ...]
    num_symbols = 6
    encoding_name = "onehot-stickers"
    positional_moves = True  # a move permutes sticker positions, whatever the state

    def __init__(self, metric: str = "qtm") -> None:
        if metric not in ("qtm", "htm"):
            raise InputError(f"metric: expected 'qtm' or 'htm', got {metric!r}")
        self.metric = metric
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
        self.corner_facelets = _piece_facelets(n, CORNER_NAMES)
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

    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, L) -> (children (B, A, L), valid (B, A))``; every action is always legal."""
        states = self._check_batch(states)
        children = states[:, self.PERMS]
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
                return f"\x1b[{_ANSI_BG[c]}m {FACES[c]} \x1b[0m"
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
        cp, co = _corners_from_facelets(state[None, :], self.corner_facelets)
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


# ----------------------------------------------------------------------------- 3x3x3
class Cube3(_CubeBase):
    """Rubik's cube 3x3x3; ``metric="qtm"`` (12 actions) or ``"htm"`` (18 actions)."""

    size = 3
    faces = (U, R, F, D, L, B)

    def __init__(self, metric: str = "qtm") -> None:
        super().__init__(metric)
        self.name = "cube3" if metric == "qtm" else "cube3-htm"
        self.edge_facelets = _piece_facelets(3, EDGE_NAMES)

    @property
    def num_states(self) -> int:
        return 43_252_003_274_489_856_000

    # ------------------------------------------------------------------ cubies
    def to_cubies(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Facelets ``(B, 54)`` -> ``(cp (B, 8), co (B, 8), ep (B, 12), eo (B, 12))``, int8.

        States must be valid (see ``validate``); for a non-cube ``cp``/``ep`` hold -1.
        """
        states = self._check_batch(states)
        cp, co = _corners_from_facelets(states, self.corner_facelets)
        cols = states[:, self.edge_facelets].astype(np.int64)  # (B, 12, 2)
        ep = _EDGE_TABLE[cols[..., 0], cols[..., 1]]
        eo = _FLIP_TABLE[cols[..., 0], cols[..., 1]]
        return cp.astype(np.int8), co.astype(np.int8), ep.astype(np.int8), eo.astype(np.int8)

    def from_cubies(self, cp: np.ndarray, co: np.ndarray, ep: np.ndarray, eo: np.ndarray) -> np.ndarray:
        """``cp (B, 8), co (B, 8), ep (B, 12), eo (B, 12)`` -> facelets ``(B, 54)`` uint8."""
        cp, co, ep, eo = (np.atleast_2d(np.asarray(x, dtype=np.int64)) for x in (cp, co, ep, eo))
        if cp.shape[1:] != (8,) or co.shape != cp.shape or ep.shape[1:] != (12,) or eo.shape != ep.shape:
            raise ValueError("from_cubies: expected cp, co (B, 8) and ep, eo (B, 12)")
        out = np.repeat(self._goal[None, :], cp.shape[0], axis=0)
        _corners_to_facelets(out, cp, co, self.corner_facelets)
        b = np.arange(cp.shape[0])[:, None]
        for k in range(2):
            slot_facelet = self.edge_facelets[np.arange(12)[None, :], (k + eo) % 2]
            out[b, slot_facelet] = EDGE_COLORS[ep, k]
        return out

    def apply_cubies(
        self, cp: np.ndarray, co: np.ndarray, ep: np.ndarray, eo: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Cubie-level ``apply``: arrays ``(B, 8), (B, 8), (B, 12), (B, 12)`` and actions ``(B,)``."""
        m = self.CUBIE_MOVES
        actions = np.asarray(actions, dtype=np.int64)
        mcp, mco, mep, meo = m.cp[actions].astype(np.int64), m.co[actions], m.ep[actions].astype(np.int64), m.eo[actions]
        cp2 = np.take_along_axis(cp, mcp, axis=1)
        co2 = (np.take_along_axis(co, mcp, axis=1) + mco) % 3
        ep2 = np.take_along_axis(ep, mep, axis=1)
        eo2 = (np.take_along_axis(eo, mep, axis=1) + meo) % 2
        return cp2, co2, ep2, eo2

    # ------------------------------------------------------------------ text I/O
    def _parse_facelets(self, text: str, what: str = "STATE") -> np.ndarray:
        state = self._check_letters(text, what)
        self.validate(state, what)
        return state

    def validate(self, state: np.ndarray, what: str = "state") -> None:
        """Raise ``InputError`` naming the first fault: centres, pieces, twist, flip, parity."""
        state = np.asarray(state).reshape(-1)
        if state.shape != (54,):
            raise InputError(f"{what}: expected 54 facelets, got {state.size}")
        if state.min() < 0 or state.max() > 5:
            raise InputError(f"{what}: colours must be 0..5")
        counts = np.bincount(state.astype(np.int64), minlength=6)
        if np.any(counts != 9):
            bad = [f"{FACES[c]}={counts[c]}" for c in range(6) if counts[c] != 9]
            raise InputError(f"{what}: wrong colour counts ({', '.join(bad)}; each colour needs 9)")
        centres = state[4::9]
        if len(set(centres.tolist())) != 6:
            raise InputError(
                f"{what}: duplicated centres ({''.join(FACES[int(c)] for c in centres)}; expected URFDLB)"
            )
        if not np.array_equal(centres, np.arange(6)):
            raise InputError(
                f"{what}: wrong centres ({''.join(FACES[int(c)] for c in centres)}; expected URFDLB "
                f"with U up and F in front)"
            )
        cp, _ = self._validate_corners(state, what)
        cols = state[self.edge_facelets].astype(np.int64)
        ep = _EDGE_TABLE[cols[:, 0], cols[:, 1]]
        for i in range(12):
            if ep[i] < 0:
                c = "".join(FACES[int(x)] for x in cols[i])
                raise InputError(f"{what}: impossible edge {c} in the {EDGE_NAMES[i]} slot")
        ecounts = np.bincount(ep, minlength=12)
        for j in range(12):
            if ecounts[j] > 1:
                raise InputError(f"{what}: edge {EDGE_NAMES[j]} appears {ecounts[j]} times")
        eo = _FLIP_TABLE[cols[:, 0], cols[:, 1]]
        if int(eo.sum()) % 2 != 0:
            raise InputError(f"{what}: a flipped edge (edge flips sum to {int(eo.sum())}, odd)")
        if _parity(cp) != _parity(ep):
            raise InputError(
                f"{what}: odd permutation parity (corner and edge permutation parities differ; "
                "two pieces swapped)"
            )

    def parse_moves(self, text: str) -> list[int]:
        """Move sequence -> actions; in the quarter-turn metric ``R2`` becomes ``R R``."""
        return self._tokens_to_actions(tokenize(text, "moves"))

    # ------------------------------------------------------------------ instances
    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, 54)`` states uniform over all solvable cubes (random cubies, legal sums and parity)."""
        cp = _random_perms(n, 8, rng)
        ep = _random_perms(n, 12, rng)
        # fix parity: swap the last two edges where the parities differ
        odd = _perm_parities(cp) != _perm_parities(ep)
        ep[odd, 10], ep[odd, 11] = ep[odd, 11].copy(), ep[odd, 10].copy()
        co = rng.integers(0, 3, size=(n, 8))
        co[:, 7] = (-co[:, :7].sum(axis=1)) % 3
        eo = rng.integers(0, 2, size=(n, 12))
        eo[:, 11] = eo[:, :11].sum(axis=1) % 2
        return self.from_cubies(cp, co, ep, eo)


# ----------------------------------------------------------------------------- 2x2x2
_ROTATIONS = _all_rotations()
#: the seven corner slots a 2x2x2 move can change (all but DBL), in the order the index reads them
CUBE2_SLOTS = np.array([0, 1, 2, 3, 4, 5, 7], dtype=np.int64)
CUBE2_PERMS = 5040  # 7!
CUBE2_TWISTS = 729  # 3^6


def _int_array(x: np.ndarray, shape_tail: tuple[int, ...], what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim == len(shape_tail):
        arr = arr[None, ...]
    if arr.shape[1:] != shape_tail or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what}: expected an integer array of shape (B, {', '.join(map(str, shape_tail))}), "
                         f"got {arr.dtype} {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def cube2_index(cp: np.ndarray, co: np.ndarray) -> np.ndarray:
    """Compact index ``(B,)`` in ``0..3,674,159`` of 2x2x2 cubies ``cp, co (B, 8)`` (DBL in place).

    ``index = perm * 729 + twist``: ``perm`` is the lexicographic rank of the corners in slots
    ``URF UFL ULB UBR DFR DLF DRB`` (corner DRB counted as 6), ``twist`` the twists of the first six
    of those slots read as a base-3 number, most significant first (the seventh follows from the sum).
    The solved cube has index 0.
    """
    from puzzles import _cube_kernels as k

    cp = _int_array(cp, (8,), "cp")
    co = _int_array(co, (8,), "co")
    p = cp[:, CUBE2_SLOTS]
    p = np.where(p == 7, DBL, p)
    return k.rank_perms(p) * CUBE2_TWISTS + k.rank_base(np.ascontiguousarray(co[:, :6]), 3)


def cube2_unindex(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of ``cube2_index``: ``(B,) -> (cp (B, 8), co (B, 8))`` int64."""
    from puzzles import _cube_kernels as k

    index = np.atleast_1d(np.asarray(index))
    if index.ndim != 1 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"index: expected a 1-D integer array, got {index.dtype} {index.shape}")
    index = index.astype(np.int64)
    p = k.unrank_perms(index // CUBE2_TWISTS, 7)
    p = np.where(p == DBL, 7, p)
    cp = np.full((index.shape[0], 8), DBL, dtype=np.int64)
    cp[:, CUBE2_SLOTS] = p
    t6 = k.unrank_base(index % CUBE2_TWISTS, 3, 6)
    co = np.zeros((index.shape[0], 8), dtype=np.int64)
    co[:, :6] = t6
    co[:, 7] = (-t6.sum(axis=1)) % 3
    return cp, co


class Cube2(_CubeBase):
    """2x2x2 cube with the down-back-left corner fixed: only ``U R F`` turn.

    ``metric="qtm"``: 6 actions, diameter 14; ``"htm"``: 9 actions, diameter 11; 3,674,160 states.
    Input that turns ``L``, ``D`` or ``B``, or a facelet string in another orientation, is re-oriented
    by a whole-cube rotation so that the DBL corner sits solved in its slot.
    """

    size = 2
    faces = (U, R, F)

    def __init__(self, metric: str = "qtm") -> None:
        super().__init__(metric)
        self.name = "cube2" if metric == "qtm" else "cube2-htm"
        self._rotation_perms = np.stack([_rotation_perm(2, r, None) for r in _ROTATIONS])

    @property
    def num_states(self) -> int:
        return math.factorial(7) * 3**6

    # ------------------------------------------------------------------ cubies
    def to_cubies(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Facelets ``(B, 24)`` -> ``(cp (B, 8), co (B, 8))`` int8; slot 6 (DBL) holds corner 6, twist 0."""
        states = self._check_batch(states)
        cp, co = _corners_from_facelets(states, self.corner_facelets)
        return cp.astype(np.int8), co.astype(np.int8)

    def from_cubies(self, cp: np.ndarray, co: np.ndarray) -> np.ndarray:
        """``cp (B, 8), co (B, 8)`` -> facelets ``(B, 24)`` uint8."""
        cp, co = (np.atleast_2d(np.asarray(x, dtype=np.int64)) for x in (cp, co))
        if cp.shape[1:] != (8,) or co.shape != cp.shape:
            raise ValueError("from_cubies: expected cp, co of shape (B, 8)")
        out = np.repeat(self._goal[None, :], cp.shape[0], axis=0)
        _corners_to_facelets(out, cp, co, self.corner_facelets)
        return out

    def apply_cubies(
        self, cp: np.ndarray, co: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Cubie-level ``apply`` on ``(B, 8), (B, 8)`` with actions ``(B,)``."""
        m = self.CUBIE_MOVES
        actions = np.asarray(actions, dtype=np.int64)
        mcp, mco = m.cp[actions].astype(np.int64), m.co[actions]
        return np.take_along_axis(cp, mcp, axis=1), (np.take_along_axis(co, mcp, axis=1) + mco) % 3

    # ------------------------------------------------------------------ compact index
    def index(self, states: np.ndarray) -> np.ndarray:
        """``(B, 24) -> (B,)`` compact index (see ``cube2_index``)."""
        return cube2_index(*self.to_cubies(states))

    def from_index(self, index: np.ndarray) -> np.ndarray:
        """``(B,) -> (B, 24)`` states."""
        return self.from_cubies(*cube2_unindex(index))

    def coordinate_moves(self) -> tuple[np.ndarray, np.ndarray]:
        """Action tables on the two parts of the index: ``perm (5040, A)``, ``twist (729, A)`` int64."""
        idx_p = np.arange(CUBE2_PERMS) * CUBE2_TWISTS
        idx_t = np.arange(CUBE2_TWISTS)
        cp, co = cube2_unindex(idx_p)
        cp_t, co_t = cube2_unindex(idx_t)
        perm = np.empty((CUBE2_PERMS, self.num_actions), dtype=np.int64)
        twist = np.empty((CUBE2_TWISTS, self.num_actions), dtype=np.int64)
        for a in range(self.num_actions):
            perm[:, a] = cube2_index(*self.apply_cubies(cp, co, np.full(len(cp), a))) // CUBE2_TWISTS
            twist[:, a] = cube2_index(*self.apply_cubies(cp_t, co_t, np.full(len(cp_t), a))) % CUBE2_TWISTS
        return perm, twist

    def distance_table(self) -> np.ndarray:
        """Exact distance to the goal of every state, ``(3,674,160,)`` int8, by ``cube2_index``.

        A Numba breadth-first search over corner permutation x twist (about a second).
        """
        if getattr(self, "_distances", None) is None:
            from puzzles import _cube_kernels as k

            perm, twist = self.coordinate_moves()
            self._distances = k.bfs_product(perm, twist, 0)
        return self._distances

    # ------------------------------------------------------------------ orientation
    def reorient(self, state: np.ndarray, what: str = "state") -> np.ndarray:
        """The whole-cube rotation of ``state`` (24,) that puts the D-B-L corner solved in slot DBL."""
        state = np.asarray(state).reshape(-1)
        cand = state[self._rotation_perms]  # (24, 24)
        dbl = self.corner_facelets[DBL]
        ok = np.all(cand[:, dbl] == CORNER_COLORS[DBL][None, :], axis=1)
        if not ok.any():
            raise InputError(f"{what}: no corner with colours D, B, L (impossible corner)")
        return cand[int(np.argmax(ok))].astype(np.uint8)

    # ------------------------------------------------------------------ text I/O
    def _parse_facelets(self, text: str, what: str = "STATE") -> np.ndarray:
        state = self._check_letters(text, what)
        self._validate_corners(state, what)
        state = self.reorient(state, what)
        self.validate(state, what)
        return state

    def validate(self, state: np.ndarray, what: str = "state") -> None:
        """Raise ``InputError``: colour counts, impossible/duplicated corners, twist, DBL not fixed."""
        state = np.asarray(state).reshape(-1)
        if state.shape != (24,):
            raise InputError(f"{what}: expected 24 facelets, got {state.size}")
        if state.min() < 0 or state.max() > 5:
            raise InputError(f"{what}: colours must be 0..5")
        counts = np.bincount(state.astype(np.int64), minlength=6)
        if np.any(counts != 4):
            bad = [f"{FACES[c]}={counts[c]}" for c in range(6) if counts[c] != 4]
            raise InputError(f"{what}: wrong colour counts ({', '.join(bad)}; each colour needs 4)")
        cp, co = self._validate_corners(state, what)
        if cp[DBL] != DBL or co[DBL] != 0:
            raise InputError(f"{what}: the DBL corner is not in place (re-orient the cube, see parse)")

    def parse_moves(self, text: str) -> list[int]:
        """Moves -> actions of ``U R F``; ``L D B`` turns are rewritten as the opposite face's turn
        plus a whole-cube rotation, which changes which face later letters refer to."""
        frame = np.eye(3, dtype=np.int64)  # maps spatial directions to our frame
        tokens: list[tuple[int, int]] = []
        for face, q in tokenize(text, "moves"):
            m = frame @ FACE_NORMALS[face]
            ours = int(np.flatnonzero(np.all(FACE_NORMALS == m[None, :], axis=1))[0])
            if ours in self.faces:
                tokens.append((ours, q))
            else:
                tokens.append((OPPOSITE[ours], q))
                # the true cube = ours rotated by q clockwise quarter turns about m; fold it into the frame
                w = np.linalg.matrix_power(_cw_matrix(m), q)
                frame = w.T @ frame
        return self._tokens_to_actions(tokens)

    # ------------------------------------------------------------------ instances
    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, 24)`` states uniform over all 3,674,160 (random corners, DBL fixed, twist sum 0)."""
        others = np.array([0, 1, 2, 3, 4, 5, 7])
        perm7 = others[_random_perms(n, 7, rng)]
        cp = np.insert(perm7, DBL, DBL, axis=1)
        co7 = rng.integers(0, 3, size=(n, 7))
        co7[:, 6] = (-co7[:, :6].sum(axis=1)) % 3
        co = np.insert(co7, DBL, 0, axis=1)
        return self.from_cubies(cp, co)


# ----------------------------------------------------------------------------- DeepCubeA interop
#: DeepCubeA's face order; their sticker id ``k`` has colour ``k // 9`` in this order
DEEPCUBEA_FACES = "UDLRBF"


def _deepcubea_positions() -> np.ndarray:
    """``(54,)``: our facelet index of each of DeepCubeA's sticker positions.

    Their faces come in the order U D L R B F, 9 positions each; their position ``3*r + c`` within a
    face is our facelet (row ``2 - c``, column ``r``) of the same face, i.e. each of their faces is
    our row-major grid turned a quarter turn. Found by requiring every corner and edge of their test
    cubes to be a real cubie (one layout out of the 8^6 candidates passes), and confirmed by replaying
    all 1000 published solutions (``tests/test_cube_deepcubea.py``).
    """
    within = np.array([3 * (2 - c) + r for r in range(3) for c in range(3)], dtype=np.int64)
    return np.concatenate([9 * FACES.index(f) + within for f in DEEPCUBEA_FACES])


DEEPCUBEA_POSITIONS = _deepcubea_positions()
_DEEPCUBEA_COLOURS = np.array([FACES.index(f) for f in DEEPCUBEA_FACES], dtype=np.uint8)


def from_deepcubea_cube3(raw_states: np.ndarray) -> np.ndarray:
    """DeepCubeA cube states ``(B, 54)`` (their sticker ids 0..53 per position) -> ours ``(B, 54)`` uint8."""
    raw = np.asarray(raw_states)
    if raw.ndim == 1:
        raw = raw[None, :]
    if raw.ndim != 2 or raw.shape[1] != 54 or not np.issubdtype(raw.dtype, np.integer):
        raise InputError(f"raw_states: expected integer sticker ids of shape (B, 54), got {raw.dtype} {raw.shape}")
    if raw.size and (raw.min() < 0 or raw.max() > 53):
        raise InputError("raw_states: DeepCubeA sticker ids must lie in 0..53")
    out = np.empty(raw.shape, dtype=np.uint8)
    out[:, DEEPCUBEA_POSITIONS] = _DEEPCUBEA_COLOURS[raw // 9]
    return out


def deepcubea_moves(solution: Sequence[Sequence[object]], metric: str = "qtm") -> list[int]:
    """DeepCubeA moves ``[[face letter, +1 | -1], ...]`` -> our actions (``+1`` is clockwise)."""
    puzzle_faces = FACES
    per = 2 if metric == "qtm" else 3
    out = []
    for i, move in enumerate(solution):
        try:
            face, turn = move
            f = puzzle_faces.index(str(face))
            d = int(turn)  # type: ignore[call-overload]
        except (ValueError, TypeError):
            raise InputError(f"solution: move {i + 1} {move!r} is not [face, +1|-1]") from None
        if d not in (1, -1):
            raise InputError(f"solution: move {i + 1} {move!r} turns by {d}, expected +1 or -1")
        out.append(per * f + (0 if d == 1 else 1))
    return out


def deepcubea_cube3_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(position (54,), colour (6,))`` int64 such that DeepCubeA's network input for our cube3
    states ``s (B, 54)`` is ``colour[s[:, position]]``: their colour index (sticker id // 9, faces
    U D L R B F) at each of their sticker positions. The inverse of ``from_deepcubea_cube3``.
    """
    colour = np.empty(6, dtype=np.int64)
    colour[_DEEPCUBEA_COLOURS] = np.arange(6)
    return DEEPCUBEA_POSITIONS.copy(), colour
