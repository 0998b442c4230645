"""Cube pattern-database heuristics: Korf's (1997) max of three databases, and the exact 2x2x2 table.

``KorfCubePDB`` (``pdb-korf``, ``cube3`` and ``cube3-htm``): the max of the corner database
(``8! * 3**7`` entries) and two disjoint 6-edge databases (``12!/6! * 2**6`` each). Other
patterns (``corners="corner-perm"``, smaller edge sets) use the same code path and serve tests
and quick experiments. ``Cube2PDB`` (``pdb-cube2``, ``cube2`` and ``cube2-htm``): the distance
of every one of the 3,674,160 states, an exact heuristic.

Tables are built on first use into ``core.paths.cache_dir()`` (or ahead with
``bench pdb build cube3 pdb-korf``), stored 4-bit packed, and evaluated from the packed form.
Each metric has its own tables; a file built for another metric or pattern is refused.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, NamedTuple

import numpy as np

from core import registry
from core.errors import InputError
from core.pdb_decls import CUBE_PDBS, EDGE_TABLES
from heuristics.base import Arr, Heuristic, IdaSpec
from puzzles.base import Puzzle
from puzzles.cube import Cube3, CubeBase

CORNER_PARTS = {"corners": 0, "corner-perm": 1, "corner-twist": 2, "cube2-full": 0}

#: a move table (``(entries, actions)``) and a 4-bit packed database
_Moves = Annotated[np.ndarray, Arr("integer", 2)]
_Packed = Annotated[np.ndarray, Arr("uint8", 1)]


class KorfTables(NamedTuple):
    """What the cube IDA* search (``solvers._ida_cube``) reads of Korf's databases: the
    corner table and two edge tables, with the move tables of their coordinates."""

    cpm: Annotated[np.ndarray, Arr("uint16", 2)]  #: corner positions' move table
    twm: Annotated[np.ndarray, Arr("uint16", 2)]  #: corner twists' move table
    em: _Moves  #: the 6-edge coordinates' move table (Korf's two sets decide the goal)
    ctab: _Packed  #: the corner database
    m1: _Moves  #: the first edge database's move table
    tab1: _Packed  #: the first edge database
    m2: _Moves  #: the second edge database's move table
    tab2: _Packed  #: the second edge database
    k_full: int  #: edges in Korf's sets (0 on the 2x2x2)
    goal_a: int  #: the goal's coordinate of Korf's first edge set
    goal_b: int  #: ... and of the second
    corner_part: int  #: what the corner table holds (``CORNER_PARTS``)
    nt: int  #: twists (3^7 or 3^6)
    k1: int  #: edges of the first edge database
    k2: int  #: ... and of the second
    same: bool  #: the edge databases are Korf's sets themselves


def state_batch(puzzle: Puzzle, states: np.ndarray) -> np.ndarray:
    """``states`` as a ``(B, L)`` batch of ``puzzle``'s facelet states (one state: ``B = 1``);
    ``InputError`` on another shape."""
    states = np.asarray(states)
    if states.ndim == 1:
        states = states[None, :]
    if states.ndim != 2 or states.shape[1] != puzzle.state_dim:
        raise InputError(f"states: expected shape (B, {puzzle.state_dim}), got {states.shape}")
    return states


class _CubePDB(Heuristic):
    """Max over cube databases; the tables are 4-bit packed ``(ceil(size / 2),)`` uint8."""

    admissible = True
    consistent = True

    def __init__(self, puzzle: Puzzle, corners: str, edges: Sequence[Sequence[int]],
                 name: str, progress: bool = True) -> None:
        super().__init__(puzzle)
        from pdb_builders import korf_cube as kc

        self.name = name
        if not isinstance(puzzle, CubeBase):
            raise InputError(f"--heuristic: {name} applies to cube puzzles, not {puzzle.name}")
        self.cube = puzzle
        self.metric = puzzle.metric
        self.cube2 = puzzle.size == 2
        t0 = time.perf_counter()
        self.corner_pattern = kc.parse_pattern(corners)
        if self.corner_pattern.kind != "corner" or self.corner_pattern.cube2 != self.cube2:
            raise InputError(f"corners: {corners!r} is not a corner pattern for {puzzle.name}")
        self.edge_sets: tuple[tuple[int, ...], ...] = tuple(tuple(int(e) for e in s) for s in edges)
        if self.cube2 and self.edge_sets:
            raise InputError("edges: the 2x2x2 has no edges")
        if not self.cube2 and len(self.edge_sets) != 2:
            raise InputError(f"edges: expected two edge sets, got {len(self.edge_sets)}")
        self.edge_patterns = [kc.parse_pattern(kc.edge_pattern_name(s)) for s in self.edge_sets]
        self.specs = [kc.table_spec(puzzle.name, p)
                      for p in [self.corner_pattern, *self.edge_patterns]]
        self.tables = [np.ascontiguousarray(s.ensure(progress=progress, jobs=0).data)
                       for s in self.specs]
        self._spec: IdaSpec | None = None
        self._facelet_args = self._make_facelet_args()
        self.load_seconds = time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return int(sum(t.nbytes for t in self.tables))

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B, L)`` facelet states -> ``(B,)`` int32 lower bounds on the distance."""
        from heuristics import cube_lookup as K

        states = state_batch(self.puzzle, states)
        out = np.zeros(states.shape[0], dtype=np.int32)
        bad = K.pdb_values_from_facelets(  # type: ignore[call-arg]
            np.ascontiguousarray(states, dtype=np.uint8), *self._facelet_args, out)
        if bad >= 0:
            raise InputError(f"states: row {bad} is not a {self.puzzle.name} state")
        return out

    def values_via_cubies(self, states: np.ndarray) -> np.ndarray:
        """The same values through ``puzzle.to_cubies`` and per-pattern indices (a reference)."""
        from pdb_builders import cube_tables as K
        from pdb_builders import korf_cube as kc

        states = np.atleast_2d(states)
        cubies = self.cube.to_cubies(states)
        if self.cube2:
            cubies = (*cubies, np.zeros((states.shape[0], 12), np.int64),
                      np.zeros((states.shape[0], 12), np.int64))
        out = np.zeros(states.shape[0], dtype=np.int32)
        for pattern, table in zip([self.corner_pattern, *self.edge_patterns], self.tables,
                                  strict=True):
            idx = kc.pattern_index(pattern, cubies)
            np.maximum(out, K.lookup_packed(table, idx), out=out)
        return out

    def _make_facelet_args(self) -> tuple:
        """Arguments of ``pdb_values_from_facelets`` after ``states`` (see that kernel)."""
        from pdb_builders import korf_cube as kc
        from puzzles import cube

        clut = np.full((6, 6, 6), -1, dtype=np.int64)
        for j, (a, b, c) in enumerate(cube.CORNER_COLORS):
            clut[a, b, c] = j
        elut = np.full((6, 6), -1, dtype=np.int64)
        flut = np.zeros((6, 6), dtype=np.int64)
        for j, (a, b) in enumerate(cube.EDGE_COLORS):
            elut[a, b], flut[a, b] = j, 0
            elut[b, a], flut[b, a] = j, 1
        cf = np.ascontiguousarray(self.cube.corner_facelets, dtype=np.int64)
        if self.cube2:
            ef = np.zeros((0, 2), dtype=np.int64)
            e1 = e2 = np.zeros(0, dtype=np.int64)
            t1 = t2 = np.zeros(1, dtype=np.uint8)
        else:
            assert isinstance(self.cube, Cube3)  # not cube2: the 3x3x3
            ef = np.ascontiguousarray(self.cube.edge_facelets, dtype=np.int64)
            e1, e2 = (np.asarray(s, dtype=np.int64) for s in self.edge_sets)
            t1, t2 = self.tables[1], self.tables[2]
        relabel = kc.CUBE2_RELABEL if self.cube2 else kc.CUBE3_RELABEL
        return (cf, ef, clut, elut, flut, int(cube.U), int(cube.D), relabel,
                CORNER_PARTS[self.corner_pattern.name], 729 if self.cube2 else 2187,
                self.tables[0], e1, t1, e2, t2)

    def ida_spec(self) -> IdaSpec:
        """Tables for :mod:`solvers._ida_cube`: move tables and the packed databases."""
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> IdaSpec:
        from pdb_builders import korf_cube as kc

        moves = kc.cubie_moves(self.metric, "URF" if self.cube2 else kc.FACES)
        cpm, twm = kc.corner_move_tables(self.metric, self.cube2)
        # 8! and 3**7 fit 16 bits: half the cache footprint of the hottest tables
        cpm, twm = cpm.astype(np.uint16), twm.astype(np.uint16)
        num_actions = cpm.shape[1]
        if self.cube2:
            em = np.zeros((1, num_actions), dtype=np.int32)
            zero = np.zeros(1, dtype=np.uint8)
            tables = KorfTables(cpm=cpm, twm=twm, em=em, ctab=self.tables[0], m1=em, tab1=zero,
                                m2=em, tab2=zero, k_full=0, goal_a=0, goal_b=0,
                                corner_part=CORNER_PARTS[self.corner_pattern.name], nt=729,
                                k1=0, k2=0, same=True)
            params: dict = dict(edges1=(), edges2=())
        else:
            goals = [kc.goal_index(kc.parse_pattern(kc.edge_pattern_name(s)))
                     for s in kc.KORF_EDGES]
            tables = KorfTables(
                cpm=cpm, twm=twm, em=kc.edge_move_table(self.metric, 6), ctab=self.tables[0],
                m1=kc.edge_move_table(self.metric, len(self.edge_sets[0])), tab1=self.tables[1],
                m2=kc.edge_move_table(self.metric, len(self.edge_sets[1])), tab2=self.tables[2],
                k_full=6, goal_a=int(goals[0]), goal_b=int(goals[1]),
                corner_part=CORNER_PARTS[self.corner_pattern.name], nt=2187,
                k1=len(self.edge_sets[0]), k2=len(self.edge_sets[1]),
                same=self.edge_sets == kc.KORF_EDGES)
            params = dict(edges1=self.edge_sets[0], edges2=self.edge_sets[1])
        params.update(
            metric=self.metric,
            cube2=self.cube2,
            faces=tuple(int(f) for f in moves.faces),
            # action 2*face (qtm) / 3*face (htm) is the clockwise quarter turn
            clockwise=tuple(a % (2 if self.metric == "qtm" else 3) == 0
                            for a in range(num_actions)),
        )
        return IdaSpec(family="cube", kind="cube-pdb-max", tables=tables, params=params)


class KorfCubePDB(_CubePDB):
    """Korf's cube heuristic: max of the corner and two 6-edge databases (``pdb-korf``).

    ``corners``: ``"corners"`` (default), ``"corner-perm"`` or ``"corner-twist"``;
    ``edge_tables``: ``"6+6"`` (Korf's two disjoint 6-edge sets, default) or ``"7+7"`` (two
    7-edge sets, ``korf_cube.EDGES_7``); ``edges``: any two edge sets (Kociemba numbering),
    instead of ``edge_tables``.
    """

    def __init__(self, puzzle: Puzzle, corners: str = "corners",
                 edges: Sequence[Sequence[int]] | None = None, progress: bool = True,
                 edge_tables: str | None = None) -> None:
        # choices and default: the registry's entry, their one statement
        edge_tables = registry.heuristic_entry("pdb-korf").settings(
            {"edge_tables": edge_tables}, "heuristic")["edge_tables"]
        edge_sets = EDGE_TABLES[edge_tables] if edges is None else edges
        named = [k for k, v in EDGE_TABLES.items() if tuple(map(tuple, edge_sets)) == v]
        if corners == "corners" and named:
            name = "pdb-korf" + ("" if named[0] == "6+6" else f"[{named[0]}]")
        else:
            name = "pdb-cube[{}|{}]".format(
                corners, "|".join(",".join(map(str, s)) for s in edge_sets))
        serves = CUBE_PDBS["pdb-korf"].puzzles
        if puzzle.name not in serves:
            raise InputError(f"--heuristic: pdb-korf applies to {' and '.join(serves)}, not "
                             f"{puzzle.name}")
        super().__init__(puzzle, corners, edge_sets, name, progress)


class Cube2PDB(_CubePDB):
    """The exact distance of every 2x2x2 state (``pdb-cube2``)."""

    def __init__(self, puzzle: Puzzle, progress: bool = True) -> None:
        serves = CUBE_PDBS["pdb-cube2"].puzzles
        if puzzle.name not in serves:
            raise InputError(f"--heuristic: pdb-cube2 applies to {' and '.join(serves)}, not "
                             f"{puzzle.name}")
        super().__init__(puzzle, "cube2-full", (), "pdb-cube2", progress)
