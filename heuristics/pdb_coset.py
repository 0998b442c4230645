"""The symmetry-reduced coset heuristic of the 3x3x3 (``pdb-coset``, ``cube3`` and ``cube3-htm``).

One table (:mod:`pdb_builders.cube_coset`): the distance of every coset "which corners are in
the U layer, all corner twists, which edges are in the E slice and their flips", reduced by the
16 symmetries that keep the U-D axis (9,930 corner classes x 7,920 edge values, 78.6 M entries).
The heuristic looks it up along all three axes: the cube itself, and the cube conjugated by the
two rotations that carry the R-L and the F-B axes to U-D (:func:`pdb_builders.cube_symmetry
.axis_rotations`), and takes the max. Each lookup is the distance of a projection of a cube at
the same distance as the state (a conjugate), so each is admissible, and so is their max; a
move changes each by at most one, so the max is consistent.

``corner_part`` / ``edge_part`` (``"set"``, ``"none"``) choose smaller projections of the same
coordinates (tests); the defaults give the full table.
"""

from __future__ import annotations

import time

import numpy as np

from core.errors import InputError
from core.pdb_decls import CUBE_PDBS
from heuristics.base import Heuristic, IdaSpec
from puzzles.base import Puzzle


class CosetCubePDB(Heuristic):
    """Max over three axes of the U-D coset table (``pdb-coset``)."""

    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle, corner_part: str = "full", edge_part: str = "full",
                 progress: bool = True) -> None:
        super().__init__(puzzle)
        from pdb_builders import cube_coset as cc

        serves = CUBE_PDBS["pdb-coset"].puzzles
        if puzzle.name not in serves or not hasattr(puzzle, "to_cubies"):
            raise InputError(f"--heuristic: pdb-coset applies to {' and '.join(serves)}, not "
                             f"{puzzle.name}")
        full = (corner_part, edge_part) == ("full", "full")
        self.name = "pdb-coset" if full else f"pdb-coset[{corner_part}|{edge_part}]"
        self.metric = "htm" if puzzle.name.endswith("-htm") else "qtm"
        t0 = time.perf_counter()
        self.space = cc.coset_space(self.metric, corner_part, edge_part)
        self.spec_table = cc.table_spec(puzzle.name, corner_part, edge_part)
        packed = self.spec_table.ensure(progress=progress, jobs=0)
        self.table = np.ascontiguousarray(packed.values(), dtype=np.uint8)
        if self.table.shape != (self.space.size,):
            raise InputError(f"pdb-coset: table {self.spec_table.key} has {self.table.shape[0]} "
                             f"entries, expected {self.space.size}")
        self._spec: IdaSpec | None = None
        self.load_seconds = time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes)

    def _cubies(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        states = np.asarray(states)
        if states.ndim == 1:
            states = states[None, :]
        if states.ndim != 2 or states.shape[1] != self.puzzle.state_dim:
            raise InputError(
                f"states: expected shape (B, {self.puzzle.state_dim}), got {states.shape}")
        parts = self.puzzle.to_cubies(states)  # type: ignore[attr-defined]
        return tuple(np.asarray(x, dtype=np.int64) for x in parts)

    def axis_coordinates(self, states: np.ndarray) -> np.ndarray:
        """``(B, 6)`` int64: the raw corner and edge coordinates seen along each axis."""
        from pdb_builders import cube_symmetry as S

        cubies = self._cubies(states)
        out = np.empty((cubies[0].shape[0], 6), dtype=np.int64)
        for k, r in enumerate(S.axis_rotations()):
            conj = S.conjugate(cubies, r)  # type: ignore[arg-type]
            out[:, 2 * k], out[:, 2 * k + 1] = self.space.project(conj)
        return out

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B, L)`` facelet states -> ``(B,)`` int32 lower bounds on the distance."""
        coords = self.axis_coordinates(states)
        out = np.zeros(coords.shape[0], dtype=np.int32)
        for k in range(3):
            idx = self.space.index(coords[:, 2 * k], coords[:, 2 * k + 1])
            np.maximum(out, self.table[idx], out=out)
        return out

    def ida_spec(self) -> IdaSpec:
        """Tables for :mod:`solvers._ida_cube_coset`."""
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> IdaSpec:
        from pdb_builders import cube_symmetry as S
        from pdb_builders import korf_cube as kc

        moves = kc.cubie_moves(self.metric)
        cpm, twm = kc.corner_move_tables(self.metric)
        em = kc.edge_move_table(self.metric, 6)
        sp = self.space
        amap = np.ascontiguousarray(S.axis_move_map(self.metric), dtype=np.int64)
        arrays = (cpm.astype(np.uint16), twm.astype(np.uint16), em, sp.cmove, sp.emove,
                  sp.classof, sp.symof.astype(np.int64), np.ascontiguousarray(sp.econj),
                  self.table, amap)
        goals = [kc.goal_index(kc.parse_pattern(kc.edge_pattern_name(s))) for s in kc.KORF_EDGES]
        num_actions = moves.num_actions
        params = dict(
            metric=self.metric, ne=sp.ne, corner_part=sp.corner_part, edge_part=sp.edge_part, goal_a=goals[0], goal_b=goals[1],
            faces=tuple(int(f) for f in moves.faces),
            clockwise=tuple(a % (2 if self.metric == "qtm" else 3) == 0
                            for a in range(num_actions)),
        )
        return IdaSpec(family="cube_coset", kind="coset-3axis", arrays=arrays, params=params)
