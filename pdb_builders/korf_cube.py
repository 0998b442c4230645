"""Cube pattern databases: Korf's (1997) corner and 6-edge databases and the full 2x2x2 table.

Every database is a projection of the cube onto some of its pieces, indexed by a coordinate
(see :mod:`pdb_builders.cube_tables`), and built by breadth-first search from the solved
state with coordinate move tables: a child index costs one table lookup per coordinate part,
never a rank/unrank. Layers are expanded forward (frontier states mark unseen children) while
the frontier is small and backward (unseen states look for a neighbour in the last layer) once
most of the space is seen; both scan the table in parallel (``numba.prange``).

Patterns (``pattern`` strings, also stored in the file's attributes):

* ``corners``: all 8 corners, ``8! * 3**7 = 88,179,840`` entries (Korf's corner database);
* ``corner-perm`` / ``corner-twist``: corner positions only (``8!``) / twists only (``3**7``);
* ``edges:0,1,2,3,4,5``: positions and flips of the listed edges (Kociemba numbering UR UF UL UB
  DR DF DL DB FR FL BL BR = 0..11), ``12!/(12-k)! * 2**k`` entries (``42,577,920`` for ``k = 6``);
* ``cube2-full``: the 2x2x2 with DBL fixed, ``7! * 3**6 = 3,674,160`` exact distances.

Each metric (``qtm``: 90-degree turns; ``htm``: 90- and 180-degree turns) has its own tables.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError
from core.pdb_decls import KORF_EDGES
from core.registry import CUBE_NAMES

#: bump when the ranking or the table layout changes: older files are then refused
BUILDER_VERSION = 1
RANKING = "kociemba-pos-rank-v1"

FACES = "URFDLB"
CORNER_NAMES = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGE_NAMES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")
METRICS = ("qtm", "htm")


# Kociemba's basic face turns (clockwise quarter turns) in "replaced by" form:
# (cp, co, ep, eo), cp[i] = the corner that moves into position i.
_BASE: dict[str, tuple[list[int], list[int], list[int], list[int]]] = {
    "U": ([3, 0, 1, 2, 4, 5, 6, 7], [0] * 8,
          [3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11], [0] * 12),
    "R": ([4, 1, 2, 0, 7, 5, 6, 3], [2, 0, 0, 1, 1, 0, 0, 2],
          [8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0], [0] * 12),
    "F": ([1, 5, 2, 3, 0, 4, 6, 7], [1, 2, 0, 0, 2, 1, 0, 0],
          [0, 9, 2, 3, 4, 8, 6, 7, 1, 5, 10, 11], [0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0]),
    "D": ([0, 1, 2, 3, 5, 6, 7, 4], [0] * 8,
          [0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11], [0] * 12),
    "L": ([0, 2, 6, 3, 4, 1, 5, 7], [0, 1, 2, 0, 0, 2, 1, 0],
          [0, 1, 10, 3, 4, 5, 9, 7, 8, 2, 6, 11], [0] * 12),
    "B": ([0, 1, 3, 7, 4, 5, 2, 6], [0, 0, 1, 2, 0, 0, 2, 1],
          [0, 1, 2, 11, 4, 5, 6, 10, 8, 9, 3, 7], [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1]),
}


# ----------------------------------------------------------------------------- cubie algebra
@dataclass(frozen=True)
class CubieMoves:
    """The actions of one puzzle variant at the cubie level.

    ``cp, co``: ``(A, 8)``; ``ep, eo``: ``(A, 12)`` int64, each action in "replaced by" form.
    ``faces (A,)``: the face index (``URFDLB`` = 0..5) each action turns.
    """

    metric: str
    faces: np.ndarray
    cp: np.ndarray
    co: np.ndarray
    ep: np.ndarray
    eo: np.ndarray

    @property
    def num_actions(self) -> int:
        return int(self.cp.shape[0])

    def corner_inverse(self) -> np.ndarray:
        """``(A, 8)``: ``inv[a, j]`` is the position a corner in position ``j`` moves to."""
        return np.argsort(self.cp, axis=1).astype(np.int64)

    def edge_inverse(self) -> np.ndarray:
        """``(A, 12)``: ``inv[a, j]`` is the position an edge in position ``j`` moves to."""
        return np.argsort(self.ep, axis=1).astype(np.int64)


def multiply(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The cube ``a * b`` (``b`` applied after ``a``); each a tuple ``(cp, co, ep, eo)``."""
    acp, aco, aep, aeo = a
    bcp, bco, bep, beo = b
    return (acp[bcp], (aco[bcp] + bco) % 3, aep[bep], (aeo[bep] + beo) % 2)


def identity() -> tuple[np.ndarray, ...]:
    """The solved cube ``(cp, co, ep, eo)``."""
    return (np.arange(8), np.zeros(8, np.int64), np.arange(12), np.zeros(12, np.int64))


def _base(face: str) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(x, dtype=np.int64) for x in _BASE[face])


@functools.cache
def cubie_moves(metric: str, faces: str = FACES) -> CubieMoves:
    """Cubie-level actions in the puzzle's action order.

    ``qtm``: ``X X'`` per face (action ``2*face + dir``); ``htm``: ``X X' X2`` (``3*face + k``).
    ``faces="URF"`` gives the 2x2x2 (DBL fixed) action sets.
    """
    if metric not in METRICS:
        raise InputError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
    powers = (1, 3) if metric == "qtm" else (1, 3, 2)
    parts: list[tuple[np.ndarray, ...]] = []
    face_ids: list[int] = []
    for face in faces:
        move = _base(face)
        for p in powers:
            m = identity()
            for _ in range(p):
                m = multiply(m, move)
            parts.append(m)
            face_ids.append(FACES.index(face))
    stack = [np.stack([m[i] for m in parts]) for i in range(4)]
    return CubieMoves(metric, np.asarray(face_ids, np.int64), *stack)


def apply_actions(cube: tuple[np.ndarray, ...], actions: Sequence[int], moves: CubieMoves
                  ) -> tuple[np.ndarray, ...]:
    """Apply ``actions`` in order to one cubie-level cube."""
    for a in actions:
        cube = multiply(cube, (moves.cp[a], moves.co[a], moves.ep[a], moves.eo[a]))
    return cube


# ----------------------------------------------------------------------------- patterns
CUBE2_RELABEL = np.array([0, 1, 2, 3, 4, 5, -1, 6], dtype=np.int64)
CUBE3_RELABEL = np.arange(8, dtype=np.int64)


@dataclass(frozen=True)
class Pattern:
    """One database: which pieces it tracks and how its index is formed.

    ``kind`` is ``"corner"`` (index ``P * nt + T`` from a position table and a twist table, one
    of which may be trivial) or ``"edge"`` (index ``P << k | flips``). ``size`` is the number of
    entries.
    """

    name: str
    kind: str
    size: int
    edges: tuple[int, ...] = ()
    corner_part: str = "both"  # "both", "perm", "twist" (corner kinds)
    cube2: bool = False

    @property
    def nt(self) -> int:
        """The index radix of the second part: twists for corners, ``2**k`` for edges."""
        if self.kind == "edge":
            return 1 << len(self.edges)
        if self.corner_part == "perm":
            return 1
        return 729 if self.cube2 else 2187


def _edge_size(k: int) -> int:
    size = 1 << k
    for j in range(k):
        size *= 12 - j
    return size


def parse_pattern(name: str) -> Pattern:
    """A :class:`Pattern` from its name (``corners``, ``corner-perm``, ``corner-twist``,
    ``edges:0,1,2``, ``cube2-full``); ``InputError`` on anything else."""
    if name == "corners":
        return Pattern(name, "corner", 40320 * 2187)
    if name == "corner-perm":
        return Pattern(name, "corner", 40320, corner_part="perm")
    if name == "corner-twist":
        return Pattern(name, "corner", 2187, corner_part="twist")
    if name == "cube2-full":
        return Pattern(name, "corner", 5040 * 729, cube2=True)
    if name.startswith("edges:"):
        try:
            edges = tuple(int(x) for x in name[6:].split(","))
        except ValueError:
            raise InputError(f"pattern: bad edge list in {name!r} (expected e.g. edges:0,1,2)") from None
        if not 1 <= len(edges) <= 7 or len(set(edges)) != len(edges) or not all(
            0 <= e < 12 for e in edges
        ):
            raise InputError(f"pattern: {name!r} needs 1 to 7 distinct edges in 0..11")
        return Pattern(name, "edge", _edge_size(len(edges)), edges=edges)
    raise InputError(
        f"pattern: unknown cube pattern {name!r}; expected corners, corner-perm, corner-twist, "
        "edges:<i,j,...> or cube2-full"
    )


def edge_pattern_name(edges: Sequence[int]) -> str:
    return "edges:" + ",".join(str(int(e)) for e in edges)


# ----------------------------------------------------------------------------- move tables
@functools.lru_cache(maxsize=8)
def _corner_tables(metric: str, cube2: bool) -> tuple[np.ndarray, np.ndarray]:
    from pdb_builders import cube_tables as K

    moves = cubie_moves(metric, "URF" if cube2 else FACES)
    inv = moves.corner_inverse()
    if cube2:
        keep = np.flatnonzero(CUBE2_RELABEL >= 0)
        # relabelled positions 0..6 (DBL left out)
        inv7 = CUBE2_RELABEL[inv[:, keep]]
        perm = K.pos_move_table(7, 7, np.ascontiguousarray(inv7))
        # orientations over the 7 relabelled positions; DBL keeps orientation 0
        cp7 = CUBE2_RELABEL[moves.cp[:, keep]]
        co7 = moves.co[:, keep]
        twist = K.twist_move_table(7, np.ascontiguousarray(cp7), np.ascontiguousarray(co7))
    else:
        perm = K.pos_move_table(8, 8, inv)
        twist = K.twist_move_table(8, moves.cp, moves.co)
    return perm, twist


def corner_move_tables(metric: str, cube2: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(positions (8!, A), twists (3**7, A))`` int32 (``7!``, ``3**6`` for the 2x2x2)."""
    perm, twist = _corner_tables(metric, cube2)
    return perm, twist


@functools.lru_cache(maxsize=8)
def edge_move_table(metric: str, k: int) -> np.ndarray:
    """``(12!/(12-k)!, A)`` int32 combined table ``newP << k | flip mask`` for ``k`` edges.

    The table acts on positions, so every set of ``k`` edges shares it; only the solved
    index (:func:`goal_index`) differs between edge sets.
    """
    from pdb_builders import cube_tables as K

    moves = cubie_moves(metric)
    return K.edge_move_table(k, moves.edge_inverse(), np.ascontiguousarray(moves.eo))


def pattern_tables(metric: str, pattern: Pattern) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``(pm, tm, nt, kind)`` for the BFS/lookup kernels (``kind`` 0: corner, 1: edge)."""
    if pattern.kind == "edge":
        comb = edge_move_table(metric, len(pattern.edges))
        return comb, np.zeros((1, comb.shape[1]), np.int32), pattern.nt, 1
    perm, twist = corner_move_tables(metric, pattern.cube2)
    trivial = np.zeros((1, perm.shape[1]), np.int32)
    if pattern.corner_part == "perm":
        return perm, trivial, 1, 0
    if pattern.corner_part == "twist":
        return trivial, twist, pattern.nt, 0
    return perm, twist, pattern.nt, 0


def goal_index(pattern: Pattern) -> int:
    """Index of the solved state in ``pattern``'s table."""
    from puzzles.perm_ranks import rank_partial

    if pattern.kind == "edge":
        return int(rank_partial(np.asarray(pattern.edges, np.int64), 12)) << len(pattern.edges)
    return 0


# ----------------------------------------------------------------------------- indexing states
def pattern_index(pattern: Pattern, cubies: tuple[np.ndarray, ...]) -> np.ndarray:
    """``(B,)`` int64 indices of cubie-level states ``(cp, co (B, 8), ep, eo (B, 12))``."""
    from pdb_builders import cube_tables as K

    cp, co, ep, eo = (np.ascontiguousarray(np.atleast_2d(x), dtype=np.int64) for x in cubies)
    if pattern.kind == "edge":
        return K.edge_coords(ep, eo, np.asarray(pattern.edges, np.int64))
    relabel = CUBE2_RELABEL if pattern.cube2 else CUBE3_RELABEL
    pt = K.corner_coords(cp, co, relabel)
    if pattern.corner_part == "perm":
        return pt[:, 0].copy()
    if pattern.corner_part == "twist":
        return pt[:, 1].copy()
    return pt[:, 0] * pattern.nt + pt[:, 1]


# ----------------------------------------------------------------------------- building
def build(metric: str, pattern: Pattern | str, progress: bool = False,
          backward_ratio: float = 0.25) -> tuple[np.ndarray, dict[str, Any]]:
    """Breadth-first distances ``(size,)`` uint8 of every abstract state of ``pattern``.

    A layer is expanded backward once the frontier holds more than ``backward_ratio`` times the
    unseen states. Returns the table and build statistics (seconds, layer sizes, directions).
    """
    from pdb_builders import cube_tables as K

    if isinstance(pattern, str):
        pattern = parse_pattern(pattern)
    if metric not in METRICS:
        raise InputError(f"metric: expected one of {', '.join(METRICS)}, got {metric!r}")
    t0 = time.perf_counter()
    pm, tm, nt, kind = pattern_tables(metric, pattern)
    t_tables = time.perf_counter() - t0
    dist = np.full(pattern.size, K.UNSEEN, dtype=np.uint8)
    dist[goal_index(pattern)] = 0
    layers = [1]
    directions: list[str] = []
    seen = 1
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=pattern.size, unit="state", unit_scale=True,
                   desc=f"{metric} {pattern.name}", leave=False)
        bar.update(1)
    depth = 0
    while seen < pattern.size:
        unseen = pattern.size - seen
        if layers[-1] > backward_ratio * unseen:
            K.bfs_backward(dist, depth, kind, pm, tm, nt)
            directions.append("backward")
        else:
            K.bfs_forward(dist, depth, kind, pm, tm, nt)
            directions.append("forward")
        new = int(K.count_value(dist, depth + 1))
        if new == 0:
            break
        layers.append(new)
        seen += new
        depth += 1
        if bar is not None:
            bar.update(new)
    if bar is not None:
        bar.close()
    if seen != pattern.size:
        raise RuntimeError(f"{pattern.name}: BFS reached {seen} of {pattern.size} states")
    stats = {
        "seconds": time.perf_counter() - t0,
        "table_seconds": t_tables,
        "layers": layers,
        "directions": directions,
    }
    return dist, stats


# ----------------------------------------------------------------------------- catalog
def _metric_of(puzzle: str) -> str:
    return "htm" if puzzle.endswith("-htm") else "qtm"


def build_table(metric: str, pattern: str, progress: bool = True, jobs: int = 0) -> np.ndarray:
    """Catalog builder: the distance table ``(size,)`` uint8 of ``pattern`` in ``metric``.

    ``jobs`` caps the Numba threads (``0``: all of them).
    """
    from pdb_builders.catalog import numba_jobs

    with numba_jobs(jobs):
        table, _ = build(metric, pattern, progress=progress)
    return table


def table_attrs(puzzle: str, pattern: Pattern) -> dict[str, Any]:
    """The attributes a database file must carry (the loader compares all of them)."""
    return {
        "puzzle": puzzle,
        "metric": _metric_of(puzzle),
        "pattern": pattern.name,
        "ranking": RANKING,
        "entries": int(pattern.size),
        "builder": "pdb_builders.korf_cube",
        "builder_version": BUILDER_VERSION,
    }


def table_spec(puzzle: str, pattern: Pattern | str) -> Any:
    """The catalog :class:`~pdb_builders.catalog.TableSpec` of one cube database.

    ``puzzle`` is ``cube3``, ``cube3-htm``, ``cube2`` or ``cube2-htm``; the file is
    ``<cache>/<puzzle>-<pattern>.h5`` (``edges:0,1`` -> ``edges-0-1``; the 2x2x2: ``<puzzle>-full``).
    """
    from pdb_builders.catalog import TableSpec

    if isinstance(pattern, str):
        pattern = parse_pattern(pattern)
    if puzzle not in CUBE_NAMES:
        raise InputError(f"puzzle: cube databases serve {', '.join(CUBE_NAMES)}; got {puzzle!r}")
    if pattern.cube2 != puzzle.startswith("cube2"):
        raise InputError(f"pattern: {pattern.name!r} does not apply to {puzzle}")
    safe = "full" if pattern.cube2 else pattern.name.replace(":", "-").replace(",", "-")
    what = {"corners": "all 8 corners", "cube2-full": "every 2x2x2 state (exact)"}.get(
        pattern.name, pattern.name)
    return TableSpec(
        key=f"{puzzle}-{safe}",
        attrs=table_attrs(puzzle, pattern),
        builder="pdb_builders.korf_cube:build_table",
        # jobs=0: every Numba thread. The catalog passes its own jobs=1 by default (and
        # ``bench pdb build --jobs`` counts processes, one per table), which would otherwise
        # cap the parallel breadth-first scans to one thread.
        build_kwargs={"metric": _metric_of(puzzle), "pattern": pattern.name, "jobs": 0},
        entries=int(pattern.size),
        summary=f"{puzzle} {what}, {pattern.size:,} entries",
    )


KORF_PATTERNS = ("corners", edge_pattern_name(KORF_EDGES[0]), edge_pattern_name(KORF_EDGES[1]))


def catalog_tables(puzzle: str, heuristic: str) -> list[Any]:
    """Catalog entry point: the tables of ``pdb-korf`` (cube3, cube3-htm) or ``pdb-cube2``."""
    if heuristic == "pdb-cube2":
        return [table_spec(puzzle, "cube2-full")]
    if heuristic == "pdb-korf":
        return [table_spec(puzzle, p) for p in KORF_PATTERNS]
    raise InputError(f"heuristic: {heuristic!r} is not a cube pattern database")
