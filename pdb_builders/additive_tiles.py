"""Additive disjoint pattern databases for the sliding-tile puzzles (Korf & Felner 2002;
Felner, Korf & Hanan 2004), and the exact 8-puzzle table ``pdb-full``.

Canonical layout
----------------
Every table is built for the blank-first goal (blank in cell 0, tile ``t`` in cell ``t``), and a
pattern is named by the GOAL CELLS of its tiles in that layout, which in the blank-first layout
are the tile numbers. A blank-last state is looked up after ``puzzles.npuzzle.convert_layout``
(rotate the board 180 degrees, relabel tile ``t`` as ``N - t``), an exact symmetry of the puzzle,
so one file serves both layouts. In the blank-last layout a pattern of cells ``C`` is therefore
the tiles whose goal cells are ``N - 1 - c`` for ``c`` in ``C``, i.e. tiles ``N - c``; for example
Korf's 7-8 (tiles 1-7 / 8-15, blank-first) is tiles 9-15 / 1-8 in the blank-last layout.

Additive patterns
-----------------
Only moves of pattern tiles count; the blank moves freely. The build is a breadth-first search
over (placement of the pattern tiles, region of non-pattern cells holding the blank); see
``additive_kernels``. The stored value of a placement is the minimum over its blank regions, so
the sum over disjoint patterns is a lower bound on the true distance. Reflection (``-reflect``):
``max(h(s), h(T s))`` where ``T`` mirrors the board about the main diagonal (Korf & Felner); it
reads the same tables.

Partitions (blank-first tile numbers = goal cells)
--------------------------------------------------
========= ========== ==============================================================
puzzle    name       patterns
========= ========== ==============================================================
puzzle8   ``44``     {1,2,3,4} {5,6,7,8} (small, for tests)
puzzle8   ``full``   the exact distance table of all 9!/2 states (blank included)
puzzle15  ``555``    {1,2,3,6,7} {4,5,8,9,12} {10,11,13,14,15}
puzzle15  ``663``    {1,2,3} {4,5,8,9,12,13} {6,7,10,11,14,15}
puzzle15  ``78``     {1..7} {8..15} (Korf & Felner 2002)
puzzle24  ``6666``   A={1,2,3,4,8,9}, T(A)={5,10,15,16,20,21}, B={6,7,11,12,13,17},
                     D={14,18,19,22,23,24}
puzzle35  ``5x7``    {1..5} {6..10} ... {31..35}
puzzle48  ``5x9-3``  {1..5} {6..10} ... {41..45} {46,47,48}
========= ========== ==============================================================

The same patterns as blank-last tile numbers (tile ``N - c`` for goal cell ``c``):

========= ========== ==============================================================
puzzle    name       patterns (blank-last tiles)
========= ========== ==============================================================
puzzle8   ``44``     {5,6,7,8} {1,2,3,4}
puzzle15  ``555``    {9,10,13,14,15} {4,7,8,11,12} {1,2,3,5,6}
puzzle15  ``663``    {13,14,15} {3,4,7,8,11,12} {1,2,5,6,9,10}
puzzle15  ``78``     {9..15} {1..8}
puzzle24  ``6666``   {16,17,21,22,23,24} {4,5,9,10,15,20} {8,12,13,14,18,19} {1,2,3,6,7,11}
puzzle35  ``5x7``    {31..35} {26..30} ... {1..5}
puzzle48  ``5x9-3``  {44..48} {39..43} ... {4..8} {1,2,3}
========= ========== ==============================================================

The diagonal mirror of the reflection is the main-diagonal transpose in both layouts (the
180-degree rotation commutes with it).

``pdb-6666`` builds three tables (A, B, D): the table of T(A) is A's, read through the diagonal
mirror. Only one pair can share: a pattern and its mirror are disjoint only if the pattern avoids
the diagonal, and the four diagonal cells 6, 12, 18, 24 must go into mirror-closed patterns.

``pdb-full`` is NOT additive: it is the exact 8-puzzle distance of every state, blank included
(an additive pattern of all 8 tiles with a free blank would not be exact). Its entries are
indexed by the cells of the blank and tiles 1..6 (9!/2 entries, all reachable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError
from pdb_builders import additive_kernels as _k
from pdb_builders.catalog import TableSpec
from pdb_builders.ranking import SCHEME, num_placements

BUILDER_VERSION = 1
METRIC = "tile-moves-additive"

_WIDTH = {"puzzle8": 3, "puzzle15": 4, "puzzle24": 5, "puzzle35": 6, "puzzle48": 7}


def transpose_map(w: int) -> np.ndarray:
    """``(n,)`` int64: the cell mirrored about the main diagonal (also the tile map, blank-first)."""
    c = np.arange(w * w)
    return ((c % w) * w + c // w).astype(np.int64)


def _partitions() -> dict[tuple[str, str], list[tuple[int, ...]]]:
    """The patterns of every additive partition the registry declares, by (puzzle, name)."""
    from core.pdb_decls import TILE_PDBS

    return {(puzzle, d.partition): list(d.patterns)
            for d in TILE_PDBS.values() if d.patterns for puzzle in d.puzzles}


PARTITIONS = _partitions()


@dataclass(frozen=True)
class Lookup:
    """One term of the additive sum: table ``table`` read for ``tiles`` (plain or mirrored)."""

    table: int
    tiles: tuple[int, ...]
    mirrored: bool


def plan(puzzle: str, partition: str) -> tuple[list[tuple[int, ...]], list[Lookup]]:
    """The patterns to build (canonical tiles) and the lookups whose sum is the heuristic."""
    if partition == "full":
        if puzzle != "puzzle8":
            raise InputError(f"partition: 'full' exists for puzzle8 only, not {puzzle}")
        items = tuple(range(0, 7))
        return [items], [Lookup(0, items, False)]
    key = (puzzle, partition)
    if key not in PARTITIONS:
        known = sorted(p for (z, p) in PARTITIONS if z == puzzle)
        raise InputError(f"partition: {partition!r} is not defined for {puzzle}; known: {known}")
    w = _WIDTH[puzzle]
    tmap = transpose_map(w)
    built: list[tuple[int, ...]] = []
    lookups: list[Lookup] = []
    for pat in PARTITIONS[key]:
        mirror = tuple(sorted(int(tmap[t]) for t in pat))
        if mirror in built and mirror != pat:
            base = built.index(mirror)
            # tiles of the mirrored pattern, in the order of the base table's tiles
            lookups.append(Lookup(base, built[base], True))
        else:
            built.append(pat)
            lookups.append(Lookup(len(built) - 1, pat, False))
    n = w * w
    cover = sorted(t for lk in lookups for t in (tmap[list(lk.tiles)] if lk.mirrored else lk.tiles))
    assert cover == list(range(1, n)), f"partition {partition} does not cover the tiles"
    return built, lookups


def table_attrs(puzzle: str, pattern: tuple[int, ...], full: bool = False) -> dict[str, Any]:
    return {
        "puzzle": puzzle,
        "metric": "tile-moves-exact" if full else METRIC,
        "goal": "blank-first",
        "pattern": list(pattern),
        "ranking": SCHEME + (":blank-and-first-tiles" if full else ""),
        "builder_version": BUILDER_VERSION,
    }


def table_spec(puzzle: str, pattern: tuple[int, ...], full: bool = False) -> TableSpec:
    n = _WIDTH[puzzle] ** 2
    if full:
        key = f"{puzzle}-full"
        entries = math.factorial(n) // 2
        builder = "pdb_builders.additive_tiles:build_full"
        kwargs: dict[str, Any] = {"width": _WIDTH[puzzle]}
    else:
        key = f"{puzzle}-pattern-" + "-".join(map(str, pattern))
        entries = num_placements(n, len(pattern))
        builder = "pdb_builders.additive_tiles:build_pattern"
        kwargs = {"width": _WIDTH[puzzle], "pattern": tuple(pattern)}
    return TableSpec(key, table_attrs(puzzle, pattern, full), builder, kwargs, entries,
                     f"{len(pattern)}-tile pattern" if not full else "exact table")


def tables_for(puzzle: str, partition: str) -> list[TableSpec]:
    built, _ = plan(puzzle, partition)
    return [table_spec(puzzle, p, full=partition == "full") for p in built]


def catalog_tables(puzzle: str, heuristic: str) -> list[TableSpec]:
    """Catalog hook: the tables of heuristic ``pdb-<partition>[-reflect]`` on ``puzzle``."""
    name = heuristic.removeprefix("pdb-").removesuffix("-reflect")
    return tables_for(puzzle, name)


# ----------------------------------------------------------------------------- builders
def build_pattern(width: int, pattern: tuple[int, ...], progress: bool = True, jobs: int = 1,
                  chunk: int = 1 << 17) -> np.ndarray:
    """Additive PDB of ``pattern`` (canonical tiles = goal cells) on a ``width x width`` board.

    Returns ``(n!/(n-k)!,)`` uint8: per placement rank, the fewest pattern-tile moves to the goal
    placement with the blank free (minimum over blank regions). ``jobs`` is unused (one thread).
    """
    from tqdm import tqdm

    n = width * width
    k = len(pattern)
    if not 1 <= k < n or len(set(pattern)) != k or min(pattern) < 1 or max(pattern) >= n:
        raise InputError(f"pattern: expected distinct tiles in 1..{n - 1}, got {pattern}")
    if n > 64:
        raise InputError("width: boards above 8x8 do not fit the 64-bit cell masks")
    entries = num_placements(n, k)
    table = np.full(entries, _k.UNSEEN, dtype=np.uint8)
    visited = np.zeros((entries * n + 63) // 64, dtype=np.uint64)
    goal = np.asarray(pattern, dtype=np.int64)
    seed = _k.seed_codes(goal, 0, n, width)
    visited[seed >> 6] |= np.uint64(1) << np.uint64(seed & 63)
    table[seed // n] = 0
    frontier = np.array([seed], dtype=np.int64)
    depth = 0
    bar = tqdm(total=entries, desc=f"pattern {'-'.join(map(str, pattern))}", unit="entry",
               disable=not progress, unit_scale=True, leave=False)
    filled = np.ones(1, dtype=np.int64)
    bar.update(1)
    buf = np.empty(chunk * 4 * k, dtype=np.int64)
    while frontier.size:
        depth += 1
        if depth >= _k.UNSEEN:
            raise RuntimeError("pattern database depth overflow")
        parts = []
        for a in range(0, frontier.size, chunk):
            before = int(filled[0])
            cnt = _k.expand_chunk(frontier[a:a + chunk], n, width, k, visited, table, depth, buf,
                                  filled)
            parts.append(buf[:cnt].copy())
            bar.update(int(filled[0]) - before)
        del frontier
        frontier = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        del parts
        bar.set_postfix(depth=depth)
    bar.close()
    if int(filled[0]) != entries:
        raise RuntimeError("pattern database has unreached placements")
    return table


def build_full(width: int, progress: bool = True, jobs: int = 1) -> np.ndarray:
    """Exact distances of all ``n!/2`` states (``width`` 3 only in practice), ``(n!/2,)`` uint8."""
    n = width * width
    if width != 3:
        raise InputError("width: the full table exists for the 8-puzzle only")
    table = np.full(math.factorial(n) // 2, _k.UNSEEN, dtype=np.uint8)
    reached = _k.full_bfs(n, width, n - 2, table, 0)
    if reached != table.size or np.any(table == _k.UNSEEN):
        raise RuntimeError("full table: not every state was reached")
    return table
