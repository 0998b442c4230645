"""The 3x3x3 cube (``cube3`` in the quarter-turn metric, ``cube3-htm`` in the half-turn metric)."""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from puzzles.cube.base import CubeBase
from puzzles.cube.cubies import (
    EDGE_TABLE,
    FLIP_TABLE,
    corners_from_facelets,
    corners_to_facelets,
    random_perms,
)
from puzzles.cube.deepcubea import from_deepcubea_cube3
from puzzles.cube.facelets import EDGE_COLORS, EDGE_NAMES, B, D, F, L, R, U, piece_facelets
from puzzles.notation import FACES, tokenize
from puzzles.permutations import parities, parity


# ----------------------------------------------------------------------------- 3x3x3
class Cube3(CubeBase):
    """Rubik's cube 3x3x3; ``metric="qtm"`` (12 actions) or ``"htm"`` (18 actions)."""

    size = 3
    faces = (U, R, F, D, L, B)

    def __init__(self, metric: str = "qtm") -> None:
        super().__init__(metric)
        self.name = "cube3" if metric == "qtm" else "cube3-htm"
        self.edge_facelets = piece_facelets(3, EDGE_NAMES)

    @property
    def num_states(self) -> int:
        return 43_252_003_274_489_856_000

    # ------------------------------------------------------------------ cubies
    def from_deepcubea(self, raw_states: np.ndarray) -> np.ndarray:
        """DeepCubeA's sticker arrays ``(n, 54)`` as our states (see ``puzzles.cube.deepcubea``)."""
        return from_deepcubea_cube3(raw_states)

    def to_cubies(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Facelets ``(B, 54)`` -> ``(cp (B, 8), co (B, 8), ep (B, 12), eo (B, 12))``, int8.

        States must be valid (see ``validate``); for a non-cube ``cp``/``ep`` hold -1.
        """
        states = self._check_batch(states)
        cp, co = corners_from_facelets(states, self.corner_facelets)
        cols = states[:, self.edge_facelets].astype(np.int64)  # (B, 12, 2)
        ep = EDGE_TABLE[cols[..., 0], cols[..., 1]]
        eo = FLIP_TABLE[cols[..., 0], cols[..., 1]]
        return cp.astype(np.int8), co.astype(np.int8), ep.astype(np.int8), eo.astype(np.int8)

    def from_cubies(self, cp: np.ndarray, co: np.ndarray, ep: np.ndarray, eo: np.ndarray) -> np.ndarray:
        """``cp (B, 8), co (B, 8), ep (B, 12), eo (B, 12)`` -> facelets ``(B, 54)`` uint8."""
        cp, co, ep, eo = (np.atleast_2d(np.asarray(x, dtype=np.int64)) for x in (cp, co, ep, eo))
        if cp.shape[1:] != (8,) or co.shape != cp.shape or ep.shape[1:] != (12,) or eo.shape != ep.shape:
            raise ValueError("from_cubies: expected cp, co (B, 8) and ep, eo (B, 12)")
        out = np.repeat(self._goal[None, :], cp.shape[0], axis=0)
        corners_to_facelets(out, cp, co, self.corner_facelets)
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
        state = self.check_colours(state, what)
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
        ep = EDGE_TABLE[cols[:, 0], cols[:, 1]]
        for i in range(12):
            if ep[i] < 0:
                c = "".join(FACES[int(x)] for x in cols[i])
                raise InputError(f"{what}: impossible edge {c} in the {EDGE_NAMES[i]} slot")
        ecounts = np.bincount(ep, minlength=12)
        for j in range(12):
            if ecounts[j] > 1:
                raise InputError(f"{what}: edge {EDGE_NAMES[j]} appears {ecounts[j]} times")
        eo = FLIP_TABLE[cols[:, 0], cols[:, 1]]
        if int(eo.sum()) % 2 != 0:
            raise InputError(f"{what}: a flipped edge (edge flips sum to {int(eo.sum())}, odd)")
        if parity(cp) != parity(ep):
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
        cp = random_perms(n, 8, rng)
        ep = random_perms(n, 12, rng)
        # fix parity: swap the last two edges where the parities differ
        odd = parities(cp) != parities(ep)
        ep[odd, 10], ep[odd, 11] = ep[odd, 11].copy(), ep[odd, 10].copy()
        co = rng.integers(0, 3, size=(n, 8))
        co[:, 7] = (-co[:, :7].sum(axis=1)) % 3
        eo = rng.integers(0, 2, size=(n, 12))
        eo[:, 11] = eo[:, :11].sum(axis=1) % 2
        return self.from_cubies(cp, co, ep, eo)
