"""A cube coset table reduced by the 16 symmetries that keep the U-D axis (Reid 1997, Kociemba's
optimal solver, Rokicki's nxopt).

Coordinates (each a projection that moves and U-D symmetries act on):

* corner part ``C = set * 2187 + twist``: ``set`` ranks which 4 of the 8 corner positions hold
  the U-layer corners (URF UFL ULB UBR; ``0 .. 69`` in increasing order of the position
  bitmask), ``twist`` is the twist of all 8 corners (``pdb_builders.cube_tables.twist_rank``);
  153,090 values;
* edge part ``E = set * 16 + flips``: ``set`` ranks which 4 of the 12 edge positions hold the
  E-slice edges (FR FL BL BR; ``0 .. 494``), bit ``j`` of ``flips`` is the flip (the usual
  F/B-based orientation of ``korf_cube``) of the slice edge in the ``j``-th lowest of those
  positions; 7,920 values.

Conjugation by a U-D symmetry maps slice positions to slice positions and, for every one of the
16, flips all four slice positions or none of them, and its inverse does the same; so the two
flips cancel on slice edges and the usual orientation gives a well-defined action on ``E`` (the
tests check it by brute force). Corner twists of a reflection are mirrored, which the mirror
rules of :mod:`pdb_builders.cube_symmetry` handle.

The corner part splits into classes under the 16 conjugations (9,930 for the full part); each
raw value ``C`` has its class ``classof[C]``, a symmetry ``symof[C]`` taking it to the class's
representative (the least raw value of the class), and each class the bitmask ``selfsym`` of
the symmetries that fix its representative. The table holds ``classes * 7,920`` entries (78.6 M,
one byte each while built): the coset distance of ``(rep, e)`` in the metric, looked up for a
raw ``(C, E)`` at ``classof[C] * 7920 + econj[E, symof[C]]``.

``corner_part`` ``"set"`` (70 values) and ``edge_part`` ``"set"`` (495) / ``"none"`` (1) give
smaller projections of the same coordinates for tests.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError
from pdb_builders import cube_symmetry as S

#: bump when the coordinates or the table layout change: older files are then refused
BUILDER_VERSION = 1
NTWIST = 2187
NFLIP = 16
CORNER_PARTS = ("full", "set")
EDGE_PARTS = ("full", "set", "none")
METRICS = ("qtm", "htm")


@functools.cache
def _subsets(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(masks, rank)``: the ``n``-bit masks with ``k`` bits set in increasing order, and the
    rank of each mask (``-1`` for the others)."""
    masks = np.array([m for m in range(1 << n) if bin(m).count("1") == k], dtype=np.int64)
    rank = np.full(1 << n, -1, dtype=np.int64)
    rank[masks] = np.arange(masks.shape[0])
    return masks, rank


# ----------------------------------------------------------------------------- coordinates
def corner_coord(cp: np.ndarray, co: np.ndarray) -> np.ndarray:
    """``(B, 8), (B, 8) -> (B,)`` raw corner coordinate ``set * 2187 + twist``."""
    cp, co = np.atleast_2d(cp), np.atleast_2d(co)
    if (co >= 3).any():
        raise ValueError("corner_coord: a mirrored corner")
    mask = ((cp < 4).astype(np.int64) << np.arange(8)).sum(axis=1)
    twist = co[:, :7] @ (3 ** np.arange(6, -1, -1))
    return _subsets(8, 4)[1][mask] * NTWIST + twist


def edge_coord(ep: np.ndarray, eo: np.ndarray) -> np.ndarray:
    """``(B, 12), (B, 12) -> (B,)`` raw edge coordinate ``set * 16 + flips``."""
    ep, eo = np.atleast_2d(ep), np.atleast_2d(eo)
    inslice = (ep >= 8).astype(np.int64)
    mask = (inslice << np.arange(12)).sum(axis=1)
    j = np.cumsum(inslice, axis=1) - 1
    flips = (inslice * (eo << np.maximum(j, 0))).sum(axis=1)
    return _subsets(12, 4)[1][mask] * NFLIP + flips


def corner_reps(values: np.ndarray) -> S.Cube:
    """A batch of cubie elements (edges solved) with the raw corner coordinates ``values``."""
    values = np.asarray(values, dtype=np.int64)
    b = values.shape[0]
    masks = _subsets(8, 4)[0][values // NTWIST]
    cp = np.empty((b, 8), np.int64)
    bits = (masks[:, None] >> np.arange(8)) & 1
    cp[bits == 1] = np.tile(np.arange(4), b)
    cp[bits == 0] = np.tile(np.arange(4, 8), b)
    co = np.zeros((b, 8), np.int64)
    tw = values % NTWIST
    for i in range(6, -1, -1):
        co[:, i] = tw % 3
        tw //= 3
    co[:, 7] = (-co[:, :7].sum(axis=1)) % 3
    ep = np.broadcast_to(np.arange(12), (b, 12)).copy()
    return cp, co, ep, np.zeros((b, 12), np.int64)


def edge_reps(values: np.ndarray) -> S.Cube:
    """A batch of cubie elements (corners solved) with the raw edge coordinates ``values``."""
    values = np.asarray(values, dtype=np.int64)
    b = values.shape[0]
    masks = _subsets(12, 4)[0][values // NFLIP]
    bits = (masks[:, None] >> np.arange(12)) & 1
    ep = np.empty((b, 12), np.int64)
    ep[bits == 1] = np.tile(np.arange(8, 12), b)
    ep[bits == 0] = np.tile(np.arange(8), b)
    eo = np.zeros((b, 12), np.int64)
    eo[bits == 1] = ((values[:, None] % NFLIP >> np.arange(4)) & 1).ravel()
    cp = np.broadcast_to(np.arange(8), (b, 8)).copy()
    return cp, np.zeros((b, 8), np.int64), ep, eo


# ----------------------------------------------------------------------------- raw tables
@functools.cache
def raw_tables(metric: str) -> dict[str, np.ndarray]:
    """Move and conjugation tables of the full coordinates, computed from representative cubie
    states: ``cmove (153090, A)``, ``emove (7920, A)``, ``cconj (153090, 16)``,
    ``econj (7920, 16)`` (``conj[x, s]``: the coordinate of ``s^-1 c s``), all int32."""
    if metric not in METRICS:
        raise InputError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
    moves = S._moves(metric)
    syms = S.ud_symmetries()
    creps = corner_reps(np.arange(70 * NTWIST))
    ereps = edge_reps(np.arange(495 * NFLIP))
    out: dict[str, np.ndarray] = {}
    out["cmove"] = np.stack([corner_coord(*S.multiply(creps, m)[:2]) for m in moves], axis=1)
    out["emove"] = np.stack([edge_coord(*S.multiply(ereps, m)[2:]) for m in moves], axis=1)
    out["cconj"] = np.stack([corner_coord(*S.conjugate(creps, s)[:2]) for s in syms], axis=1)
    out["econj"] = np.stack([edge_coord(*S.conjugate(ereps, s)[2:]) for s in syms], axis=1)
    return {k: np.ascontiguousarray(v, dtype=np.int32) for k, v in out.items()}


@dataclass(frozen=True)
class CosetSpace:
    """The tables of one (possibly projected) coset coordinate and its reduction."""

    metric: str
    corner_part: str
    edge_part: str
    cmove: np.ndarray  # (NC, A) raw corner coordinate after each move
    emove: np.ndarray  # (NE, A)
    cconj: np.ndarray  # (NC, 16)
    econj: np.ndarray  # (NE, 16)
    classof: np.ndarray  # (NC,) class of each raw corner value
    symof: np.ndarray  # (NC,) a symmetry taking it to its class's representative
    reps: np.ndarray  # (classes,) each class's representative (raw corner value)
    selfsym: np.ndarray  # (classes,) bitmask of the symmetries fixing the representative
    cgoal: int
    egoal: int

    @property
    def ne(self) -> int:
        return int(self.emove.shape[0])

    @property
    def num_classes(self) -> int:
        return int(self.reps.shape[0])

    @property
    def size(self) -> int:
        return self.num_classes * self.ne

    def project(self, cubies: S.Cube) -> tuple[np.ndarray, np.ndarray]:
        """``(corner, edge)`` raw coordinates of this projection for a batch of cubes."""
        c = corner_coord(cubies[0], cubies[1])
        e = edge_coord(cubies[2], cubies[3])
        if self.corner_part == "set":
            c = c // NTWIST
        if self.edge_part == "set":
            e = e // NFLIP
        elif self.edge_part == "none":
            e = np.zeros_like(e)
        return c, e

    def index(self, corner: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """Table entries of raw coordinates."""
        corner = np.asarray(corner, dtype=np.int64)
        return self.classof[corner].astype(np.int64) * self.ne + self.econj[
            np.asarray(edge, dtype=np.int64), self.symof[corner]]


@functools.cache
def coset_space(metric: str, corner_part: str = "full", edge_part: str = "full") -> CosetSpace:
    """The :class:`CosetSpace` of ``metric`` and the chosen parts."""
    if corner_part not in CORNER_PARTS:
        raise InputError(f"corner_part: expected one of {', '.join(CORNER_PARTS)}, got "
                         f"{corner_part!r}")
    if edge_part not in EDGE_PARTS:
        raise InputError(f"edge_part: expected one of {', '.join(EDGE_PARTS)}, got {edge_part!r}")
    raw = raw_tables(metric)
    cmove, cconj, emove, econj = raw["cmove"], raw["cconj"], raw["emove"], raw["econj"]
    ident = S.identity()
    cgoal = int(corner_coord(ident[0], ident[1])[0])
    egoal = int(edge_coord(ident[2], ident[3])[0])
    if corner_part == "set":
        cmove = cmove[::NTWIST] // NTWIST
        cconj = cconj[::NTWIST] // NTWIST
        cgoal //= NTWIST
    if edge_part == "set":
        emove = emove[::NFLIP] // NFLIP
        econj = econj[::NFLIP] // NFLIP
        egoal //= NFLIP
    elif edge_part == "none":
        emove = np.zeros((1, emove.shape[1]), np.int32)
        econj = np.zeros((1, econj.shape[1]), np.int32)
        egoal = 0
    rep_of = cconj.min(axis=1)
    symof = cconj.argmin(axis=1).astype(np.int8)
    reps = np.unique(rep_of).astype(np.int32)
    classof = np.searchsorted(reps, rep_of).astype(np.int32)
    fixed = cconj[reps] == reps[:, None]
    selfsym = (fixed.astype(np.int64) << np.arange(16)).sum(axis=1).astype(np.int32)
    cmove, emove, cconj, econj = (np.ascontiguousarray(x) for x in (cmove, emove, cconj, econj))
    return CosetSpace(metric, corner_part, edge_part, cmove, emove, cconj, econj, classof, symof,
                      reps, selfsym, cgoal, egoal)


@functools.cache
def inverse_tables(metric: str) -> dict[str, np.ndarray]:
    """Tables to read the coset coordinates of a cube's inverse along the three axes from the
    inverse's cubies, for a search that keeps the inverse ``t`` of each node.

    A move ``m`` applied to a node ``s`` (``s * m``) premultiplies its inverse (``m^-1 * t``),
    which relabels the cubies of ``t`` rather than moving its positions, so the coset
    coordinates of ``t`` do not follow from their own values: ``t`` is kept whole (``cp, co,
    ep, eo``) and its coordinates along axis ``k`` (those of ``r_k^-1 t r_k``,
    :func:`pdb_builders.cube_symmetry.axis_rotations`) are computed when needed:

    * ``imc (A, 8, 2)``, ``ime (A, 12, 2)``: the inverse of move ``a`` as ``(cubie it puts in
      the place of cubie c, twist/flip it adds)``: ``(m^-1 t).cp[i] = imc[a, t.cp[i], 0]``,
      ``(m^-1 t).co[i] = t.co[i] + imc[a, t.cp[i], 1]``;
    * ``cpos (3, 8)``, ``cax (3, 8, 8, 3)``: per axis rotation ``r``, position ``i``, cubie ``c``
      and twist ``o`` of ``t`` at ``r.cp[i] = cpos[k, i]``: position ``i`` of ``r^-1 t r`` holds
      the corner ``r^-1.cp[c]`` with twist ``r^-1.co[c] + o + r.co[i]``; ``cax`` holds its
      share of the coordinate, ``(U-layer bit << i) << 16`` plus ``twist * 3**(6 - i)``
      (``i < 7``), so that the sum over ``i`` is ``mask << 16 | twist rank``;
    * ``epos (3, 12)``, ``eax (3, 12, 12, 2)``: the same for edges, ``(slice bit << i) << 12``
      plus ``(flip and slice bit) << i``;
    * ``rank8 (256,)``, ``rank12 (4096,)``: the subset ranks of the position masks.

    The rotations and moves hold no mirrored corner, so twists add.
    """
    from pdb_builders.korf_cube import cubie_moves

    if metric not in METRICS:
        raise InputError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
    m = cubie_moves(metric)
    num = m.num_actions
    imc = np.empty((num, 8, 2), np.int64)
    ime = np.empty((num, 12, 2), np.int64)
    for a in range(num):
        icp, ico, iep, ieo = S.inverse((m.cp[a], m.co[a], m.ep[a], m.eo[a]))
        imc[a, :, 0], imc[a, :, 1] = icp, ico
        ime[a, :, 0], ime[a, :, 1] = iep, ieo
    cpos = np.empty((3, 8), np.int64)
    epos = np.empty((3, 12), np.int64)
    cax = np.zeros((3, 8, 8, 3), np.int64)
    eax = np.zeros((3, 12, 12, 2), np.int64)
    for k, r in enumerate(S.axis_rotations()):
        if (r[1] >= 3).any():
            raise ValueError("inverse_tables: an axis rotation with a mirrored corner")
        ri = S.inverse(r)
        cpos[k], epos[k] = r[0], r[2]
        for i in range(8):
            for c in range(8):
                for o in range(3):
                    tw = (ri[1][c] + o + r[1][i]) % 3
                    cax[k, i, c, o] = (int(ri[0][c] < 4) << i << 16) + (
                        tw * 3 ** (6 - i) if i < 7 else 0)
        for i in range(12):
            for c in range(12):
                for o in range(2):
                    inslice = int(ri[2][c] >= 8)
                    flip = (ri[3][c] + o + r[3][i]) % 2
                    eax[k, i, c, o] = (inslice << i << 12) + ((flip & inslice) << i)
    return {"imc": imc, "ime": ime, "cpos": cpos, "cax": cax, "epos": epos, "eax": eax,
            "rank8": _subsets(8, 4)[1].copy(), "rank12": _subsets(12, 4)[1].copy()}


# ----------------------------------------------------------------------------- building
def build(metric: str, corner_part: str = "full", edge_part: str = "full",
          backward_ratio: float = 0.25, progress: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
    """Breadth-first coset distances ``(classes * ne,)`` uint8 of the reduced table.

    Layers are expanded forward while the frontier is small and backward once it holds more
    than ``backward_ratio`` times the unseen entries. Returns the table and build statistics.
    """
    t0 = time.perf_counter()
    sp = coset_space(metric, corner_part, edge_part)
    return build_space(sp, backward_ratio, progress, time.perf_counter() - t0)


def build_space(sp: CosetSpace, backward_ratio: float = 0.25, progress: bool = False,
                t_tables: float = 0.0) -> tuple[np.ndarray, dict[str, Any]]:
    """:func:`build` over any :class:`CosetSpace` (also those of
    :mod:`pdb_builders.cube_coset_eo`'s edge parts)."""
    from pdb_builders import _cube_coset_bfs as K
    from pdb_builders.cube_tables import count_value

    t0 = time.perf_counter()
    metric = sp.metric
    dist = np.full(sp.size, K.UNSEEN, dtype=np.uint8)
    goal = int(sp.index(np.array([sp.cgoal]), np.array([sp.egoal]))[0])
    K.mark(dist, goal, 0, sp.ne, sp.selfsym, sp.econj)
    seen = int(count_value(dist, 0))
    layers = [seen]
    directions: list[str] = []
    depth = 0
    while seen < sp.size:
        if layers[-1] > backward_ratio * (sp.size - seen):
            K.backward(dist, depth, sp.ne, sp.reps, sp.cmove, sp.emove, sp.classof, sp.symof,
                       sp.econj)
            directions.append("backward")
        else:
            K.forward(dist, depth, sp.ne, sp.reps, sp.cmove, sp.emove, sp.classof, sp.symof,
                      sp.econj, sp.selfsym)
            directions.append("forward")
        new = int(count_value(dist, depth + 1))
        if progress:
            print(f"coset {metric} depth {depth + 1}: {new:,} entries "
                  f"({time.perf_counter() - t0:.1f} s)", flush=True)
        if new == 0:
            break
        layers.append(new)
        seen += new
        depth += 1
    if seen != sp.size:
        raise RuntimeError(f"coset table: BFS reached {seen} of {sp.size} entries")
    stats = {"seconds": time.perf_counter() - t0, "table_seconds": t_tables, "layers": layers,
             "directions": directions, "classes": sp.num_classes}
    return dist, stats


def values(table: np.ndarray, sp: CosetSpace, cubies: S.Cube) -> np.ndarray:
    """``(B,)`` table values of a batch of cubes (U-D axis only)."""
    from pdb_builders import _cube_coset_bfs as K

    c, e = sp.project(cubies)
    return K.lookup(table, sp.ne, c.astype(np.int64), e.astype(np.int64), sp.classof, sp.symof,
                    sp.econj)


# ----------------------------------------------------------------------------- catalog
def build_table(metric: str, corner_part: str = "full", edge_part: str = "full",
                progress: bool = True, jobs: int = 0) -> np.ndarray:
    """Catalog builder: the reduced table ``(classes * ne,)`` uint8 of ``metric`` (the full one:
    ``9930 * 7920`` entries). ``jobs`` caps the Numba threads (``0``: all of them)."""
    from pdb_builders.catalog import numba_jobs

    with numba_jobs(jobs):
        table, _ = build(metric, corner_part, edge_part, progress=progress)
    return table


def table_spec(puzzle: str, corner_part: str = "full", edge_part: str = "full") -> Any:
    """The catalog :class:`~pdb_builders.catalog.TableSpec` of the reduced U-D coset table of
    ``cube3`` (quarter turns) or ``cube3-htm``: ``<cache>/<puzzle>-coset-ud.h5`` (projections:
    ``<puzzle>-coset-ud-<corner_part>-<edge_part>.h5``)."""
    from pdb_builders.catalog import TableSpec

    if puzzle not in ("cube3", "cube3-htm"):
        raise InputError(f"puzzle: the coset table serves cube3 and cube3-htm; got {puzzle!r}")
    metric = "htm" if puzzle.endswith("-htm") else "qtm"
    sp = coset_space(metric, corner_part, edge_part)
    size = sp.size
    full = (corner_part, edge_part) == ("full", "full")
    attrs = {
        "puzzle": puzzle,
        "metric": metric,
        "pattern": f"coset-ud:corners-{corner_part}|slice-{edge_part}",
        "ranking": "subset-mask-rank-v1",
        "entries": int(size),
        "builder": "pdb_builders.cube_coset",
        "builder_version": BUILDER_VERSION,
    }
    return TableSpec(
        key=f"{puzzle}-coset-ud" + ("" if full else f"-{corner_part}-{edge_part}"),
        attrs=attrs,
        builder="pdb_builders.cube_coset:build_table",
        build_kwargs={"metric": metric, "corner_part": corner_part, "edge_part": edge_part,
                      "jobs": 0},
        entries=int(size),
        summary=f"{puzzle} U-D coset table reduced by 16 symmetries, {size:,} entries",
    )


def catalog_tables(puzzle: str, heuristic: str) -> list[Any]:
    """Catalog entry point: the one table of ``pdb-coset``."""
    if heuristic != "pdb-coset":
        raise InputError(f"heuristic: {heuristic!r} is not the coset table")
    return [table_spec(puzzle)]
