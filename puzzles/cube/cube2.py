"""The 2x2x2 cube with its down-back-left corner fixed, its compact index and exact distance table."""

from __future__ import annotations

import math

import numpy as np

from core.errors import InputError
from puzzles.cube.base import CubeBase
from puzzles.cube.cubies import corners_from_facelets, corners_to_facelets, random_perms
from puzzles.cube.facelets import (
    CORNER_COLORS,
    DBL,
    FACE_NORMALS,
    OPPOSITE,
    F,
    R,
    U,
    all_rotations,
    cw_matrix,
    rotation_perm,
)
from puzzles.notation import tokenize

# ----------------------------------------------------------------------------- 2x2x2
_ROTATIONS = all_rotations()
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
    from puzzles import _cube_coords as k
    from puzzles.perm_ranks import rank_partial_batch

    cp = _int_array(cp, (8,), "cp")
    co = _int_array(co, (8,), "co")
    p = cp[:, CUBE2_SLOTS]
    p = np.where(p == 7, DBL, p)
    return rank_partial_batch(p, 7) * CUBE2_TWISTS + k.rank_base(np.ascontiguousarray(co[:, :6]), 3)


def cube2_unindex(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of ``cube2_index``: ``(B,) -> (cp (B, 8), co (B, 8))`` int64."""
    from puzzles import _cube_coords as k
    from puzzles.perm_ranks import unrank_partial_batch

    index = np.atleast_1d(np.asarray(index))
    if index.ndim != 1 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"index: expected a 1-D integer array, got {index.dtype} {index.shape}")
    index = index.astype(np.int64)
    p = unrank_partial_batch(index // CUBE2_TWISTS, 7, 7)
    p = np.where(p == DBL, 7, p)
    cp = np.full((index.shape[0], 8), DBL, dtype=np.int64)
    cp[:, CUBE2_SLOTS] = p
    t6 = k.unrank_base(index % CUBE2_TWISTS, 3, 6)
    co = np.zeros((index.shape[0], 8), dtype=np.int64)
    co[:, :6] = t6
    co[:, 7] = (-t6.sum(axis=1)) % 3
    return cp, co


class Cube2(CubeBase):
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
        self._rotation_perms = np.stack([rotation_perm(2, r, None) for r in _ROTATIONS])
        self._distances: np.ndarray | None = None  # distance_table(), made on first use

    @property
    def num_states(self) -> int:
        return math.factorial(7) * 3**6

    # ------------------------------------------------------------------ cubies
    def to_cubies(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Facelets ``(B, 24)`` -> ``(cp (B, 8), co (B, 8))`` int8; slot 6 (DBL) holds corner 6, twist 0."""
        states = self._check_batch(states)
        cp, co = corners_from_facelets(states, self.corner_facelets)
        return cp.astype(np.int8), co.astype(np.int8)

    def from_cubies(self, cp: np.ndarray, co: np.ndarray) -> np.ndarray:
        """``cp (B, 8), co (B, 8)`` -> facelets ``(B, 24)`` uint8."""
        cp, co = (np.atleast_2d(np.asarray(x, dtype=np.int64)) for x in (cp, co))
        if cp.shape[1:] != (8,) or co.shape != cp.shape:
            raise ValueError("from_cubies: expected cp, co of shape (B, 8)")
        out = np.repeat(self._goal[None, :], cp.shape[0], axis=0)
        corners_to_facelets(out, cp, co, self.corner_facelets)
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
        if self._distances is None:
            from puzzles import _cube_coords as k

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
        state = self.check_colours(state, what)
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
                w = np.linalg.matrix_power(cw_matrix(m), q)
                frame = w.T @ frame
        return self._tokens_to_actions(tokens)

    # ------------------------------------------------------------------ instances
    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, 24)`` states uniform over all 3,674,160 (random corners, DBL fixed, twist sum 0)."""
        others = np.array([0, 1, 2, 3, 4, 5, 7])
        perm7 = others[random_perms(n, 7, rng)]
        cp = np.insert(perm7, DBL, DBL, axis=1)
        co7 = rng.integers(0, 3, size=(n, 7))
        co7[:, 6] = (-co7[:, :6].sum(axis=1)) % 3
        co = np.insert(co7, DBL, 0, axis=1)
        return self.from_cubies(cp, co)
