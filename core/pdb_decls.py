"""The pattern databases, declared once, and the heuristics of each puzzle's lower bounds.

:class:`PdbDecl` declares a PDB heuristic (its puzzles, patterns and the entry point listing its
tables); ``TILE_PDBS`` and ``CUBE_PDBS`` hold every one. ``core.registry`` makes a heuristic
entry of each, and ``pdb_builders.catalog`` derives its tables from them.

A puzzle's ``bounds`` (:class:`core.registry.PuzzleProps`) are the admissible
heuristics that give a row's certified lower bound (``suites.reference.lower_bounds``: the
value at the start state, rounded up), strongest first; the first one that can be had without
building a large table is used (a PDB whose declaration is not ``ci`` only when its tables are
already in the cache):

=================== ===================================================================
puzzle              bounds, strongest first
=================== ===================================================================
cube3               pdb-korf, pdb-coset
cube3-htm           pdb-coset, pdb-korf
cube2, cube2-htm    pdb-cube2 (exact)
puzzle8             pdb-full (exact), pdb-44-reflect, linear-conflict
puzzle15            pdb-78-reflect, pdb-663-reflect, pdb-555-reflect, linear-conflict
puzzle24            pdb-6666kf-reflect, pdb-6666-reflect, linear-conflict
puzzle35            pdb-5x7-reflect, linear-conflict
puzzle48            pdb-5x9-3-reflect, linear-conflict
lightsout*          lights-on
sokoban*            sokoban-matching
=================== ===================================================================

A ``-reflect`` variant is never below its plain sum (the max with the mirrored state) and reads
the same tables, so only it is listed. The small partitions (``pdb-3x8``, ``pdb-3x11-2``,
``pdb-3x16``) are left out: on random states of the 24, 35 and 48-puzzles their reflected sums
are below linear conflicts on average (about 1 to 3 moves), so linear conflicts is the bound
when the large tables are absent.

An optimal solver (IDA*, A*) given no heuristic runs the first of the bounds
(``core.registry.default_heuristic``), building its tables on first use, except where a puzzle
names its ``search_heuristic``: on the 3x3x3 cube, ``pdb-coset`` in both metrics. The cube's two
tables were compared on seeded states: their mean value over 1,000 100-move scrambles (seed 0)
and over 1,000 uniform states (seed 0), and the ratio of the nodes IDA* generates with each on
seeded scrambles (depths 12 to 16, seeds 1 to 4 and from 100) solved at 12 to 16 moves:

========= ================ ================ ================================================
metric    pdb-korf         pdb-coset        IDA* nodes, pdb-coset / pdb-korf
========= ================ ================ ================================================
QTM       10.90 | 10.75    10.59 | 10.63    0.10 to 0.36, 0.16 in total (21 instances)
HTM       8.85 | 8.90      9.40 | 9.37      0.07 to 0.20, 0.13 in total (12 instances)
========= ================ ================ ================================================

In the quarter-turn metric Korf's tables give the higher value on random states (so they come
first in its bounds), yet IDA* with the coset table generates 3 to 10 times fewer nodes (5 to 15
in the half-turn metric), so ``pdb-coset`` (37.5 MiB, about 20 s to build, against 82.7 MiB and
31-40 s) is the search default in both metrics. It runs there with its two extra lookups,
``probe_inverse=near`` and ``corner_pdb=corners`` (Korf's corner table, 42 MiB more): on three
18-move cubes (``results/cube3-optimal/``) they cut the nodes of the last iteration 2.0 to 2.3
times (half turns) and 2.3 to 3.0 times (quarter turns) and its CPU time 1.2 to 1.4 and 1.8 to
2.6 times; the max stays admissible (the inverse lies at the same distance), though no longer
consistent, which IDA* and A* (it reopens nodes) both allow.

Once their tables are in the cache, the two-bit coset tables (``CUBE3_SEARCH_BUILT``, the
first built of them) replace it as the search default: ``pdb-coset-eo2ep2`` (the slice edges'
order and the U-D layer flips, 7.55 GB at two bits an entry, six probes), then ``pdb-coset-eo``
(the same cosets as ``pdb-coset`` with every edge flip, 2.52 GB). They are never built on first
use (``bench solve`` says how to build them), and they are not among the bounds (a row's lower
bound never waits for a gigabyte table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: the admissible heuristics of a row's lower bound per tile puzzle, strongest first (see the
#: module docstring; every tile puzzle ends with linear conflicts, which needs no table)
TILE_BOUNDS: dict[str, tuple[str, ...]] = {
    "puzzle8": ("pdb-full", "pdb-44-reflect", "linear-conflict"),
    "puzzle15": ("pdb-78-reflect", "pdb-663-reflect", "pdb-555-reflect", "linear-conflict"),
    "puzzle24": ("pdb-6666kf-reflect", "pdb-6666-reflect", "linear-conflict"),
    "puzzle35": ("pdb-5x7-reflect", "linear-conflict"),
    "puzzle48": ("pdb-5x9-3-reflect", "linear-conflict"),
}
CUBE3_BOUNDS = ("pdb-korf", "pdb-coset")
CUBE3_HTM_BOUNDS = ("pdb-coset", "pdb-korf")
#: the 3x3x3 cube's heuristic for optimal search given none (see the module docstring)
CUBE3_SEARCH = "pdb-coset"
#: and its options there
CUBE3_SEARCH_ARGS = (("probe_inverse", "near"), ("corner_pdb", "corners"))
#: the ones used instead once their tables are built, strongest first (``bench pdb build cube3
#: pdb-coset-eo2ep2``, ``... pdb-coset-eo``)
CUBE3_SEARCH_BUILT = ("pdb-coset-eo2ep2", "pdb-coset-eo")
CUBE2_BOUNDS = ("pdb-cube2",)

#: ``probe_inverse`` of the cube coset heuristics (``pdb-coset``, ``pdb-coset-eo``), in their
#: kernels' order (``CosetTables.probe`` is an index into it)
PROBE_INVERSE = ("off", "near", "on")
#: ``corner_pdb`` of ``pdb-coset``: none, or a corner pattern of ``pdb_builders.korf_cube``
CORNER_PDBS = ("none", "corners", "corner-perm", "corner-twist")
#: Korf's two disjoint 6-edge sets (Kociemba numbering)
KORF_EDGES: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 1, 2, 3, 4, 5), (6, 7, 8, 9, 10, 11))
#: two 7-edge sets that cover every edge (they share DF and DL): 12 times the entries of a
#: 6-edge set each (510,935,040)
EDGES_7: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 1, 2, 3, 4, 5, 6), (5, 6, 7, 8, 9, 10, 11))
#: ``pdb-korf``'s ``edge_tables`` choices: the two edge sets of each
EDGE_TABLES = {"6+6": KORF_EDGES, "7+7": EDGES_7}
LIGHTS_BOUNDS = ("lights-on",)
SOKOBAN_BOUNDS = ("sokoban-matching",)


def _chunks(lo: int, hi: int, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(range(a, min(a + size, hi + 1))) for a in range(lo, hi + 1, size))


def _mirror5(tiles: tuple[int, ...]) -> tuple[int, ...]:
    """Tiles (= goal cells, blank first) of a 5x5 pattern mirrored about the main diagonal."""
    return tuple(sorted((c % 5) * 5 + c // 5 for c in tiles))


_A24 = (1, 2, 3, 4, 8, 9)


@dataclass(frozen=True)
class PdbDecl:
    """A pattern database heuristic, declared once.

    ``partition``: the key of its patterns; ``patterns``: the tile sets (blank-first tile
    numbers = goal cells) of an additive tile partition, empty for the exact tables;
    ``tables_fn``: the entry point ``(puzzle name, heuristic name) -> [TableSpec]`` that lists
    its stored tables (their sizes, files and builders); ``ci``: small enough to build in tests
    (the others are stood in for by the same code with small patterns: the heuristic
    ``stand_in``, or the same heuristic with the arguments ``stand_in_args``).
    """

    puzzles: tuple[str, ...]
    partition: str
    summary: str
    tables_fn: str
    patterns: tuple[tuple[int, ...], ...] = ()
    ci: bool = True
    stand_in: str = ""
    stand_in_args: tuple[tuple[str, Any], ...] = ()
    build: str = ""  #: measured build cost and size on the 2-core development machine (docs: registry reference)


TILE_TABLES = "pdb_builders.additive_tiles:catalog_tables"
CUBE_TABLES = "pdb_builders.korf_cube:catalog_tables"

TILE_PDBS: dict[str, PdbDecl] = {
    "pdb-full": PdbDecl(("puzzle8",), "full", "one pattern of all 8 tiles: the exact 8-puzzle table",
                        TILE_TABLES),
    "pdb-44": PdbDecl(("puzzle8",), "44", "additive disjoint PDBs, two patterns of 4 tiles (small, for tests)",
                      TILE_TABLES, ((1, 2, 3, 4), (5, 6, 7, 8))),
    "pdb-555": PdbDecl(("puzzle15",), "555", "additive disjoint PDBs, three patterns of 5 tiles",
                       TILE_TABLES, ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
                       build="7 s of CPU"),
    "pdb-663": PdbDecl(("puzzle15",), "663", "additive disjoint PDBs, patterns of 6, 6 and 3 tiles",
                       TILE_TABLES, ((1, 2, 3), (4, 5, 8, 9, 12, 13), (6, 7, 10, 11, 14, 15)),
                       build="19 s of CPU, 240 MiB peak"),
    "pdb-78": PdbDecl(("puzzle15",), "78", "additive disjoint PDBs, patterns of 7 and 8 tiles",
                      TILE_TABLES, (tuple(range(1, 8)), tuple(range(8, 16))), ci=False,
                      stand_in="pdb-555", build="27 min of CPU, 5.5 GiB peak, 577 MB of files"),
    "pdb-6666": PdbDecl(("puzzle24",), "6666", "additive disjoint PDBs, four patterns of 6 tiles",
                        TILE_TABLES, (_A24, _mirror5(_A24), (6, 7, 11, 12, 13, 17),
                                      (14, 18, 19, 22, 23, 24)), ci=False, stand_in="pdb-3x8",
                        build="10.5 min, 1.0 GiB peak, 3 x 127.5 MB"),
    "pdb-6666kf": PdbDecl(("puzzle24",), "6666kf",
                          "additive disjoint PDBs, Korf & Felner's four patterns of 6 tiles (their "
                          "mirror image is another partition: -reflect adds to it)",
                          TILE_TABLES, ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14),
                                        (10, 11, 15, 16, 20, 21), (17, 18, 19, 22, 23, 24)),
                          ci=False, stand_in="pdb-3x8",
                          build="8.4-11 min a table (two at a time on 2 cores), 4 x 127.5 MB; "
                                "IDA* reads a 244 MB sparse copy of each"),
    "pdb-5x7": PdbDecl(("puzzle35",), "5x7", "additive disjoint PDBs, seven patterns of 5 tiles",
                       TILE_TABLES, _chunks(1, 35, 5), ci=False, stand_in="pdb-3x11-2",
                       build="6.2 min, 0.6 GiB peak, 7 x 45 MB"),
    "pdb-5x9-3": PdbDecl(("puzzle48",), "5x9-3",
                         "additive disjoint PDBs, nine patterns of 5 tiles and one of 3",
                         TILE_TABLES, _chunks(1, 45, 5) + ((46, 47, 48),), ci=False,
                         stand_in="pdb-3x16", build="47 min of CPU, 2.1 GiB peak, 9 x 218 MiB"),
    # small partitions: quick, weak heuristics (and the stand-ins of the large ones in tests)
    "pdb-3x8": PdbDecl(("puzzle24",), "3x8", "additive disjoint PDBs, eight patterns of 3 tiles "
                       "(small)", TILE_TABLES, _chunks(1, 24, 3)),
    "pdb-3x11-2": PdbDecl(("puzzle35",), "3x11-2", "additive disjoint PDBs, eleven patterns of 3 "
                          "tiles and one of 2 (small)", TILE_TABLES, _chunks(1, 33, 3) + ((34, 35),)),
    "pdb-3x16": PdbDecl(("puzzle48",), "3x16", "additive disjoint PDBs, sixteen patterns of 3 "
                        "tiles (small)", TILE_TABLES, _chunks(1, 48, 3)),
}

CUBE_PDBS: dict[str, PdbDecl] = {
    "pdb-korf": PdbDecl(("cube3", "cube3-htm"), "korf",
                        "Korf 1997: corner database and two disjoint 6-edge databases (max)",
                        CUBE_TABLES, ci=False, build="31-40 s per metric, 760 MiB peak, 82.7 MiB",
                        stand_in_args=(("corners", "corner-perm"), ("edges", ((0, 1, 2), (8, 9, 10))))),
    "pdb-coset": PdbDecl(("cube3", "cube3-htm"), "coset",
                         "U-D coset table (corner layer and twists x slice edges and flips) "
                         "reduced by 16 symmetries, looked up along three axes (max)",
                         "pdb_builders.cube_coset:catalog_tables", ci=False,
                         build="about 20 s per metric, 78.6 M entries, 37.5 MiB",
                         stand_in_args=(("corner_part", "set"), ("edge_part", "set"))),
    "pdb-coset-eo": PdbDecl(("cube3", "cube3-htm"), "coset-eo",
                            "U-D coset table with every edge flip (corner layer and twists x "
                            "slice edges and all flips; nxopt's EO3EP1), reduced by 16 "
                            "symmetries, two bits an entry over a base; three axes and the "
                            "inverse, +1 when the three axes agree",
                            "pdb_builders.cube_coset_eo:catalog_tables", ci=False,
                            build="56 min on two cores beside other jobs at nice 10 (quarter "
                                  "turns), 2.52 GB at two bits + pdb-coset's 75 MB",
                            stand_in_args=(("corner_part", "set"), ("edge_part", "slice"))),
    "pdb-coset-eo2ep2": PdbDecl(("cube3", "cube3-htm"), "coset-eo2ep2",
                                "U-D coset table with the slice edges' order and the U-D layer "
                                "edges' flips (corner layer and twists x slice edges in order x "
                                "U-D layer flips; nxopt's EO2EP2), reduced by 16 symmetries, "
                                "two bits an entry over a base; three axes and the inverse, +1 "
                                "when the three axes agree",
                                "pdb_builders.cube_coset_eo:catalog_tables", ci=False,
                                build="7.55 GB at two bits + a 1.26 GB one-byte fallback "
                                      "(slice set and U-D layer flips)",
                                stand_in_args=(("corner_part", "set"), ("edge_part", "ep2"))),
    "pdb-cube2": PdbDecl(("cube2", "cube2-htm"), "cube2", "every 2x2x2 state's exact distance",
                         CUBE_TABLES),
}
