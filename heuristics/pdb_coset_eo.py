"""The two-bit coset heuristic of the 3x3x3 with every edge flip (``pdb-coset-eo``, ``cube3`` and
``cube3-htm``; the table family of Rokicki's nxopt).

One table (:mod:`pdb_builders.cube_coset_eo`): the distance of every coset "which corners are
in the U layer, all corner twists, which edges are in the E slice, all edge flips" of the
subgroup that keeps every U and D move, reduced by the 16 symmetries that keep the U-D axis
(9,930 corner classes x 1,013,760 edge values, 10.07 G entries, 2.52 GB at two bits an entry
relative to a base). A code of 0 ("at most the base") falls back on the coarser ``pdb-coset``
table (slice flips only, one byte an entry, 75 MB), whose distance is never above this one's.

Six probes: the cube and its inverse, each along its three axes (conjugated by the rotations
that carry R-L and F-B to U-D). Each is the coset distance of a cube at the cube's distance, so
each is admissible. Where a cube's (or its inverse's) three axis values agree, one more is
admissible (nxopt's rule; the argument is in :mod:`solvers._ida_cube_coset_eo`), for every cube
but the solved one. The heuristic is admissible, not consistent (the inverse and the rule can
drop by more than one across a move).

``probe_inverse``: ``on`` (the six probes for every child, the default), ``near`` (in IDA*, the
inverse only for children the forward values leave exactly at the bound; batch values always
read it) or ``off``. ``sides`` (IDA* only): ``both`` searches the position or its inverse at each
node, whichever the table leaves fewer moves (nxopt's search,
:mod:`solvers._ida_cube_two_sided`); ``forward`` the position only
(:mod:`solvers._ida_cube_coset_eo`). ``both`` reads the six probes of every child, so it is the
default with ``probe_inverse=on`` and refused with ``near`` or ``off`` (whose default is
``forward``). ``corner_part`` / ``edge_part`` (``"set"``, ``"slice"``) choose the small
stand-ins of the tests.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from core import registry
from core.errors import InputError
from core.pdb_decls import CUBE_PDBS, PROBE_INVERSE
from heuristics.base import Heuristic, IdaSpec
from heuristics.pdb_coset import _I1, _I2, _I3, _I4, _U16, _Bytes
from heuristics.pdb_cube import state_batch
from puzzles.base import Puzzle
from puzzles.cube import CubeBase


class CosetEOTables(NamedTuple):
    """What the IDA* search under ``pdb-coset-eo`` (``solvers._ida_cube_coset_eo``) reads (the
    fields it shares with ``heuristics.pdb_coset.CosetTables`` mean the same)."""

    cpm: _U16
    twm: _U16
    em: _I2
    cmove: _I2
    emove: _I2
    classof: _I1
    symof: _I1
    econj: _I2
    table: _Bytes  #: the two-bit codes, four entries a byte
    amap: _I2
    fconj: _I2  #: the fallback table's edge coordinate conjugated by each symmetry
    eproj: _I1  #: edge coordinate -> the fallback table's
    ftab: _Bytes  #: the fallback table (one byte an entry)
    imc: _I3
    ime: _I3
    rmc: _I3  #: each move's corners ``(A, 8, 2)``: the position it takes from, the twist added
    rme: _I3  #: each move's edges ``(A, 12, 2)``
    maxis: _I1  #: the axis (``amap``'s) whose two faces each move turns
    cpos: _I2
    cax: _I4
    epos: _I2
    eax: _I4
    rank8: _I1
    rank12: _I1
    goal_a: int
    goal_b: int
    ne: int  #: edge coordinates per corner class
    base: int  #: the value of code 0 ("at most base"); codes 1..3 give base + code
    nf: int  #: the fallback table's edge coordinates per corner class
    probe: int  #: ``PROBES.index(probe_inverse)``
    cset: bool
    emode: int  #: how the inverse's edge coordinate is read (``_EMODE``)
    two_sided: bool  #: ``sides`` is ``both`` (:mod:`solvers._ida_cube_two_sided`)


#: ``probe_inverse`` values, in the kernel's order (``CosetEOTables.probe``)
PROBES = PROBE_INVERSE
#: the kernel's ``emode`` of each edge part (its way of reading the inverse's edge coordinate)
_EMODE = {"slice": 0, "set": 1, "eo": 3, "eo2ep2": 4, "ep2": 5, "eo2": 6}


class CosetEOCubePDB(Heuristic):
    """Six probes of the two-bit U-D coset table with every edge flip (``pdb-coset-eo``)."""

    admissible = True
    consistent = False
    #: the registry entry whose options this class reads
    entry_name = "pdb-coset-eo"

    def __init__(self, puzzle: Puzzle, corner_part: str = "full", edge_part: str = "eo",
                 progress: bool = True, probe_inverse: str | None = None,
                 sides: str | None = None) -> None:
        super().__init__(puzzle)
        from pdb_builders import cube_coset_eo as ce

        serves = CUBE_PDBS[self.entry_name].puzzles
        if puzzle.name not in serves or not isinstance(puzzle, CubeBase):
            raise InputError(f"--heuristic: {self.entry_name} applies to {' and '.join(serves)},"
                             f" not {puzzle.name}")
        self.cube = puzzle
        # choices and default: the registry's entry, their one statement
        settings = registry.heuristic_entry(self.entry_name).settings(
            {"probe_inverse": probe_inverse, "sides": sides}, "heuristic")
        probe_inverse, sides = settings["probe_inverse"], settings["sides"]
        if sides is None:
            sides = "both" if probe_inverse == "on" else "forward"
        elif sides == "both" and probe_inverse != "on":
            raise InputError(f"--sides: both reads the inverse of every child, so it needs "
                             f"--probe-inverse on, got {probe_inverse}")
        if corner_part == "full" and edge_part in _FULL_NAME:
            self.name = _FULL_NAME[edge_part]
        else:
            self.name = f"pdb-coset-eo[{corner_part}|{edge_part}]"
        if probe_inverse != "on":
            self.name += f"+inverse-{probe_inverse}"
        elif sides == "forward":
            self.name += "+forward"
        self.probe_inverse = probe_inverse
        self.sides = sides
        self.metric = "htm" if puzzle.name.endswith("-htm") else "qtm"
        t0 = time.perf_counter()
        self.space = ce.coset_space(self.metric, corner_part, edge_part)
        self.fspace = ce.fallback_space(self.metric, corner_part, edge_part)
        self.eproj = ce.edge_projection(self.metric, edge_part)
        self.spec_table = ce.table_spec(puzzle.name, corner_part, edge_part)
        packed = self.spec_table.ensure(progress=progress, jobs=0)
        self.table = np.asarray(packed.data)
        self.base = int(packed.attrs["base"])
        if self.table.shape != ((self.space.size + 3) // 4,):
            raise InputError(f"pdb-coset-eo: table {self.spec_table.key} holds "
                             f"{self.table.shape[0]} bytes, expected {(self.space.size + 3) // 4}")
        fpacked = ce.fallback_spec(puzzle.name, corner_part, edge_part).ensure(progress=progress,
                                                                               jobs=0)
        self.ftable = np.ascontiguousarray(fpacked.values(), dtype=np.uint8)
        self._spec: IdaSpec | None = None
        self.load_seconds = time.perf_counter() - t0

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes + self.ftable.nbytes)

    def _cubies(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        parts = self.cube.to_cubies(state_batch(self.puzzle, states))
        return tuple(np.asarray(x, dtype=np.int64) for x in parts)

    def axis_values(self, cubies: tuple[np.ndarray, ...]) -> np.ndarray:
        """``(B, 3)`` decoded lower bounds of a batch of cubes along the three axes."""
        from pdb_builders import cube_coset_eo as ce
        from pdb_builders import cube_symmetry as S

        out = np.empty((cubies[0].shape[0], 3), dtype=np.int32)
        sp, fsp = self.space, self.fspace
        for k, r in enumerate(S.axis_rotations()):
            c, e = ce.project(sp, S.conjugate(cubies, r))  # type: ignore[arg-type]
            codes = ce.lookup(self.table, sp, c, e)
            fall = self.ftable[fsp.index(c, self.eproj[e])]
            out[:, k] = ce.decode(codes, self.base, fall)
        return out

    @staticmethod
    def combine(values: np.ndarray) -> np.ndarray:
        """``(B, 3) -> (B,)``: the max, or one more than the least where that is larger and the
        least is at least 1 (the three-axis rule)."""
        lo = values.min(axis=1)
        return np.maximum(values.max(axis=1), np.where(lo >= 1, lo + 1, 0)).astype(np.int32)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B, L)`` facelet states -> ``(B,)`` int32 lower bounds on the distance."""
        from pdb_builders import cube_symmetry as S

        cubies = self._cubies(states)
        out = self.combine(self.axis_values(cubies))
        if self.probe_inverse != "off":
            inv = S.inverse(cubies)  # type: ignore[arg-type]
            np.maximum(out, self.combine(self.axis_values(inv)), out=out)
        return out

    def ida_spec(self) -> IdaSpec:
        """Tables for :mod:`solvers._ida_cube_two_sided` (``sides=both``) or
        :mod:`solvers._ida_cube_coset_eo` (``forward``)."""
        if self._spec is None:
            self._spec = self._make_spec()
        return self._spec

    def _make_spec(self) -> IdaSpec:
        from pdb_builders import cube_coset as cc
        from pdb_builders import cube_symmetry as S
        from pdb_builders import korf_cube as kc
        from pdb_builders.cube_edge_parts import UD_PARTS

        moves = kc.cubie_moves(self.metric)
        cpm, twm = kc.corner_move_tables(self.metric)
        em = kc.edge_move_table(self.metric, 6)
        sp, fsp = self.space, self.fspace
        amap = np.ascontiguousarray(S.axis_move_map(self.metric), dtype=np.int64)
        inv = dict(cc.inverse_tables(self.metric))
        if sp.edge_part == "eo":
            inv["eax"] = _eo_eax()
        elif sp.edge_part in UD_PARTS:
            inv["eax"] = _ud_eax()
        faces = np.asarray(moves.faces, dtype=np.int64)
        # the axis of each move: the rotation k that makes it a U or D turn (faces 0 and 3)
        ud = faces[amap] % 3 == 0
        if not (ud.sum(axis=0) == 1).all():
            raise ValueError("pdb-coset-eo: a move is a U or D turn along other than one axis")
        maxis = np.argmax(ud, axis=0).astype(np.int64)
        goals = [kc.goal_index(kc.parse_pattern(kc.edge_pattern_name(s))) for s in kc.KORF_EDGES]
        tables = CosetEOTables(
            cpm=cpm.astype(np.uint16), twm=twm.astype(np.uint16), em=em, cmove=sp.cmove,
            emove=sp.emove, classof=sp.classof, symof=sp.symof.astype(np.int64),
            econj=np.ascontiguousarray(sp.econj), table=self.table, amap=amap,
            fconj=np.ascontiguousarray(fsp.econj), eproj=np.ascontiguousarray(self.eproj),
            ftab=self.ftable,
            **{k: inv[k] for k in ("imc", "ime", "cpos", "cax", "epos", "eax", "rank8",
                                   "rank12")},
            rmc=np.stack([moves.cp, moves.co], axis=2).astype(np.int64),
            rme=np.stack([moves.ep, moves.eo], axis=2).astype(np.int64), maxis=maxis,
            two_sided=self.sides == "both",
            goal_a=int(goals[0]), goal_b=int(goals[1]), ne=int(sp.ne), base=self.base,
            nf=int(fsp.ne), probe=PROBES.index(self.probe_inverse),
            cset=sp.corner_part == "set", emode=_EMODE[sp.edge_part])
        params = dict(
            metric=self.metric, corner_part=sp.corner_part, edge_part=sp.edge_part,
            faces=tuple(int(f) for f in moves.faces),
            clockwise=tuple(a % (2 if self.metric == "qtm" else 3) == 0
                            for a in range(moves.num_actions)))
        if self.sides == "both":
            return IdaSpec(family="cube_two_sided", kind="coset-eo-two-sided", tables=tables,
                           params=params)
        return IdaSpec(family="cube_coset_eo", kind="coset-eo-6probe", tables=tables,
                       params=params)


class CosetEO2EP2CubePDB(CosetEOCubePDB):
    """Six probes of the two-bit U-D coset table that keeps the slice edges' order and the U-D
    layer edges' flips (``pdb-coset-eo2ep2``, nxopt's EO2EP2: 30.2 G entries, 7.55 GB), falling
    back on the ``eo2`` cosets (slice set and U-D layer flips, one byte an entry, 1.26 GB)."""

    entry_name = "pdb-coset-eo2ep2"

    def __init__(self, puzzle: Puzzle, corner_part: str = "full", edge_part: str = "eo2ep2",
                 progress: bool = True, probe_inverse: str | None = None,
                 sides: str | None = None) -> None:
        super().__init__(puzzle, corner_part, edge_part, progress, probe_inverse, sides)


#: the name of each full-size table's heuristic
_FULL_NAME = {"eo": "pdb-coset-eo", "eo2ep2": "pdb-coset-eo2ep2"}


def _edge_eax(slice_order: bool) -> np.ndarray:
    """``eax (3, 12, 12, 2)``: each edge's share of the sum that
    :func:`solvers._ida_cube_coset_eo.edge_value` decodes, per axis rotation, position ``i``,
    cubie and flip (as :func:`pdb_builders.cube_coset.inverse_tables`'s): the slice bit at
    ``12 + i``; the flip at bit ``i``, for every position with ``slice_order`` (the U-D layer
    family, ``emode`` 4 to 6, which also puts the slice edge's number ``0 .. 3`` at bits
    ``24 + 2 i``), else for ``i < 11`` (every flip but the twelfth, ``emode`` 3)."""
    from pdb_builders import cube_symmetry as S

    eax = np.zeros((3, 12, 12, 2), np.int64)
    for k, r in enumerate(S.axis_rotations()):
        ri = S.inverse(r)
        for i in range(12):
            for c in range(12):
                for o in range(2):
                    label = int(ri[2][c])
                    inslice = int(label >= 8)
                    flip = (ri[3][c] + o + r[3][i]) % 2
                    share = (inslice << i << 12) + ((flip << i) if slice_order or i < 11 else 0)
                    if slice_order and inslice:
                        share += (label - 8) << (24 + 2 * i)
                    eax[k, i, c, o] = share
    return eax


def _eo_eax() -> np.ndarray:
    """:func:`_edge_eax` of the coordinate with every flip."""
    return _edge_eax(False)


def _ud_eax() -> np.ndarray:
    """:func:`_edge_eax` of the U-D layer family."""
    return _edge_eax(True)
