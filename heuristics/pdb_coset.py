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

Two options add lookups to the max (both off by default):

* ``probe_inverse`` (``"on"``, ``"near"``): the three-axis values of the cube's inverse. A cube
  and its inverse are at the same distance (a solution of one, reversed and inverted, solves
  the other), so these are admissible too; the max is no longer consistent in general (a move
  premultiplies the inverse, which is not a move of the coset's graph). ``"near"`` changes only
  the IDA* kernel: it reads the inverse of a child only when the forward value leaves it
  exactly at the cost bound (:mod:`solvers._ida_cube_coset`); the batch values always include it.
* ``corner_pdb`` (``"corners"``: Korf's exact corner table, 88.2 M entries, shared with
  ``pdb-korf``; ``"corner-perm"``/``"corner-twist"``: its small projections, for tests). The
  inverse's corner distance equals the cube's, so it is read for the cube only.
"""

from __future__ import annotations

import time
from typing import Annotated, NamedTuple

import numpy as np

from core import registry
from core.errors import InputError
from core.pdb_decls import CORNER_PDBS, CUBE_PDBS, PROBE_INVERSE
from heuristics.base import Arr, Heuristic, IdaSpec
from heuristics.pdb_cube import state_batch
from puzzles.base import Puzzle
from puzzles.cube import CubeBase

_I1 = Annotated[np.ndarray, Arr("integer", 1)]
_I2 = Annotated[np.ndarray, Arr("integer", 2)]
_I3 = Annotated[np.ndarray, Arr("integer", 3)]
_I4 = Annotated[np.ndarray, Arr("integer", 4)]
_U16 = Annotated[np.ndarray, Arr("uint16", 2)]
_Bytes = Annotated[np.ndarray, Arr("uint8", 1)]


class CosetTables(NamedTuple):
    """What the IDA* search under ``pdb-coset`` (``solvers._ida_cube_coset``) reads."""

    cpm: _U16  #: Korf's corner positions' move table (the goal test)
    twm: _U16  #: corner twists' move table
    em: _I2  #: Korf's 6-edge coordinates' move table
    cmove: _I2  #: the coset corner coordinate's move table
    emove: _I2  #: the coset edge coordinate's move table
    classof: _I1  #: corner coordinate -> its symmetry class
    symof: _I1  #: corner coordinate -> the symmetry to its class's representative
    econj: _I2  #: edge coordinate conjugated by each symmetry
    table: _Bytes  #: the coset table (one byte an entry)
    amap: _I2  #: ``(3, A)``: move ``a`` seen along axis ``k``
    ctab: _Bytes  #: Korf's corner table (or a projection; a placeholder without one)
    imc: _I3  #: the inverse's corner update per move
    ime: _I3  #: the inverse's edge update per move
    cpos: _I2  #: corner positions read along each axis
    cax: _I4  #: corner contributions to the axis coordinates
    epos: _I2  #: edge positions read along each axis
    eax: _I4  #: edge contributions to the axis coordinates
    rank8: _I1  #: 8-bit subset ranks
    rank12: _I1  #: 12-bit subset ranks
    goal_a: int  #: the goal's coordinate of Korf's first edge set
    goal_b: int  #: ... and of the second
    ne: int  #: edge coordinates per corner class
    use_corner: bool  #: ``ctab`` joins the max
    ccpart: int  #: what ``ctab`` holds (``heuristics.pdb_cube.CORNER_PARTS``)
    nt: int  #: corner twists
    probe: int  #: ``PROBES.index(probe_inverse)``
    cset: bool  #: the corner part is the set only
    emode: int  #: how the inverse's edge coordinate is read (full, set, none)


#: ``probe_inverse`` values, in the kernel's order (``CosetTables.probe``); ``CORNER_PDBS``:
#: the ``corner_pdb`` values (both declared once in ``core.pdb_decls``)
PROBES = PROBE_INVERSE
__all__ = ["CORNER_PDBS", "PROBES", "CosetCubePDB", "CosetTables"]


class CosetCubePDB(Heuristic):
    """Max over three axes of the U-D coset table (``pdb-coset``)."""

    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle, corner_part: str = "full", edge_part: str = "full",
                 progress: bool = True, probe_inverse: str | None = None,
                 corner_pdb: str | None = None) -> None:
        super().__init__(puzzle)
        from pdb_builders import cube_coset as cc

        serves = CUBE_PDBS["pdb-coset"].puzzles
        if puzzle.name not in serves or not isinstance(puzzle, CubeBase):
            raise InputError(f"--heuristic: pdb-coset applies to {' and '.join(serves)}, not "
                             f"{puzzle.name}")
        self.cube = puzzle
        # choices and defaults: the registry's entry, their one statement
        args = registry.heuristic_entry("pdb-coset").settings(
            {"probe_inverse": probe_inverse, "corner_pdb": corner_pdb}, "heuristic")
        probe_inverse, corner_pdb = args["probe_inverse"], args["corner_pdb"]
        full = (corner_part, edge_part) == ("full", "full")
        self.name = "pdb-coset" if full else f"pdb-coset[{corner_part}|{edge_part}]"
        if probe_inverse != "off":
            self.name += "+inverse" + ("-near" if probe_inverse == "near" else "")
        if corner_pdb != "none":
            self.name += f"+{corner_pdb}"
        self.probe_inverse = probe_inverse
        self.corner_pdb = corner_pdb
        self.consistent = probe_inverse == "off"
        self.metric = "htm" if puzzle.name.endswith("-htm") else "qtm"
        t0 = time.perf_counter()
        self.space = cc.coset_space(self.metric, corner_part, edge_part)
        self.spec_table = cc.table_spec(puzzle.name, corner_part, edge_part)
        packed = self.spec_table.ensure(progress=progress, jobs=0)
        self.table = np.ascontiguousarray(packed.values(), dtype=np.uint8)
        if self.table.shape != (self.space.size,):
            raise InputError(f"pdb-coset: table {self.spec_table.key} has {self.table.shape[0]} "
                             f"entries, expected {self.space.size}")
        self.corner_pattern = None
        self.corner_table = np.zeros(1, dtype=np.uint8)
        if corner_pdb != "none":
            from pdb_builders import korf_cube as kc

            self.corner_pattern = kc.parse_pattern(corner_pdb)
            packed = kc.table_spec(puzzle.name, self.corner_pattern).ensure(progress=progress,
                                                                            jobs=0)
            self.corner_table = np.ascontiguousarray(packed.data)
        self._spec: IdaSpec | None = None
        self.load_seconds = time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes) + (int(self.corner_table.nbytes)
                                          if self.corner_pattern is not None else 0)

    def _cubies(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        parts = self.cube.to_cubies(state_batch(self.puzzle, states))
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

    def inverse_axis_coordinates(self, states: np.ndarray) -> np.ndarray:
        """``(B, 6)`` int64: the raw coordinates of each state's inverse along each axis."""
        from pdb_builders import cube_symmetry as S

        inv = S.inverse(self._cubies(states))  # type: ignore[arg-type]
        out = np.empty((inv[0].shape[0], 6), dtype=np.int64)
        for k, r in enumerate(S.axis_rotations()):
            out[:, 2 * k], out[:, 2 * k + 1] = self.space.project(S.conjugate(inv, r))
        return out

    def _axes_max(self, coords: np.ndarray, out: np.ndarray) -> None:
        for k in range(3):
            idx = self.space.index(coords[:, 2 * k], coords[:, 2 * k + 1])
            np.maximum(out, self.table[idx], out=out)

    def corner_values(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` the corner table's values (``corner_pdb``; zeros without one)."""
        from pdb_builders import cube_tables as K
        from pdb_builders import korf_cube as kc

        cubies = self._cubies(states)
        if self.corner_pattern is None:
            return np.zeros(cubies[0].shape[0], dtype=np.int32)
        idx = kc.pattern_index(self.corner_pattern, cubies)
        return K.lookup_packed(self.corner_table, idx).astype(np.int32)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B, L)`` facelet states -> ``(B,)`` int32 lower bounds on the distance."""
        coords = self.axis_coordinates(states)
        out = np.zeros(coords.shape[0], dtype=np.int32)
        self._axes_max(coords, out)
        if self.probe_inverse != "off":
            self._axes_max(self.inverse_axis_coordinates(states), out)
        if self.corner_pattern is not None:
            np.maximum(out, self.corner_values(states), out=out)
        return out

    def ida_spec(self) -> IdaSpec:
        """Tables for :mod:`solvers._ida_cube_coset`."""
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> IdaSpec:
        from heuristics.pdb_cube import CORNER_PARTS
        from pdb_builders import cube_coset as cc
        from pdb_builders import cube_symmetry as S
        from pdb_builders import korf_cube as kc

        moves = kc.cubie_moves(self.metric)
        cpm, twm = kc.corner_move_tables(self.metric)
        em = kc.edge_move_table(self.metric, 6)
        sp = self.space
        amap = np.ascontiguousarray(S.axis_move_map(self.metric), dtype=np.int64)
        inv = cc.inverse_tables(self.metric)
        goals = [kc.goal_index(kc.parse_pattern(kc.edge_pattern_name(s))) for s in kc.KORF_EDGES]
        tables = CosetTables(
            cpm=cpm.astype(np.uint16), twm=twm.astype(np.uint16), em=em, cmove=sp.cmove,
            emove=sp.emove, classof=sp.classof, symof=sp.symof.astype(np.int64),
            econj=np.ascontiguousarray(sp.econj), table=self.table, amap=amap,
            ctab=self.corner_table,
            **{k: inv[k] for k in ("imc", "ime", "cpos", "cax", "epos", "eax", "rank8",
                                   "rank12")},
            goal_a=int(goals[0]), goal_b=int(goals[1]), ne=int(sp.ne),
            use_corner=self.corner_pattern is not None,
            ccpart=CORNER_PARTS[self.corner_pdb] if self.corner_pattern is not None else 0,
            nt=2187, probe=PROBES.index(self.probe_inverse), cset=sp.corner_part == "set",
            emode=("full", "set", "none").index(sp.edge_part))
        num_actions = moves.num_actions
        params = dict(
            metric=self.metric, corner_part=sp.corner_part, edge_part=sp.edge_part,
            faces=tuple(int(f) for f in moves.faces),
            clockwise=tuple(a % (2 if self.metric == "qtm" else 3) == 0
                            for a in range(num_actions)),
        )
        return IdaSpec(family="cube_coset", kind="coset-3axis", tables=tables, params=params)
