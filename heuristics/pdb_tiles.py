"""Additive disjoint pattern-database heuristics for the sliding-tile puzzles.

``AdditiveTilePDB(puzzle, partition, reflect)``: the sum over the partition's patterns of each
pattern's table value (Korf & Felner 2002), with ``reflect`` the maximum of that sum and the sum
for the state mirrored about the main diagonal. ``partition="full"`` (8-puzzle) is the exact
distance table. Tables are loaded from the cache folder (memory-mapped; see
``pdb_builders.store``) and built on first use with a progress bar on stderr. See
``pdb_builders.additive_tiles`` for the partitions and what they mean in each goal layout.

Batch evaluation: ``(B, N) uint8 -> (B,) int32`` with a Numba kernel.
"""

from __future__ import annotations

import time
from typing import Annotated, NamedTuple

import numpy as np

from heuristics.base import Arr, Heuristic, IdaSpec
from heuristics.manhattan import canonical, check_states, tiles_puzzle_info
from puzzles.base import Puzzle

#: largest table (entries) whose sparse layout the IDA* kernel gets (n^k: 25^6 = 244 M for the
#: 24-puzzle's 6-tile patterns, 16^8 = 4.3 G for the 15-puzzle's 8-tile one stays ranked)
SPARSE_MAX_ENTRIES = 1 << 29


class AdditivePdbTables(NamedTuple):
    """What the tiles IDA* search of additive PDBs reads (``solvers._ida_tiles_pdb``): the
    terms ``E`` (plain ones first, then the reflected), each a pattern of tiles looked up in
    one of the tables ``T``, on a board of ``n`` cells."""

    #: ``(E, kmax)``: each term's tiles (its first ``ent_k[e]`` entries)
    ent_tiles: Annotated[np.ndarray, Arr("int64", 2)]
    ent_k: Annotated[np.ndarray, Arr("int64", 1)]  #: ``(E,)`` tiles per term
    ent_flag: Annotated[np.ndarray, Arr("bool", 1)]  #: ``(E,)`` term read mirrored
    ent_tab: Annotated[np.ndarray, Arr("int64", 1)]  #: ``(E,)`` the term's table
    transpose: Annotated[np.ndarray, Arr("int64", 1)]  #: ``(n,)`` cell mirrored on the diagonal
    #: ``(n, 2)``: the (plain, reflected) term that reads tile ``x``'s cell, or -1
    dep: Annotated[np.ndarray, Arr("int64", 2)]
    #: ``(n, 2)``: the weight of tile ``x``'s cell in those terms' sparse index
    dep_w: Annotated[np.ndarray, Arr("int64", 2)]
    packed: Annotated[np.ndarray, Arr("bool", 1)]  #: ``(T,)`` ranked table in nibbles
    #: the ranked tables (one placeholder when ``sparse``)
    tables: Annotated[tuple[np.ndarray, ...], Arr("uint8", 1)]
    num_plain: int  #: terms before the reflected ones
    sparse: bool  #: the lookups read ``flat`` (sparse layout), not ``tables``
    #: the tables in the sparse layout, one after the other (a placeholder unless ``sparse``)
    flat: Annotated[np.ndarray, Arr("uint8", 1)]
    fpacked: bool  #: ``flat`` holds nibbles
    offsets: Annotated[np.ndarray, Arr("int64", 1)]  #: ``(T,)`` where each table starts in ``flat``


class AdditiveTilePDB(Heuristic):
    """Additive tile PDB named ``pdb-<partition>[-reflect]``."""

    admissible = True
    consistent = False  # the minimum over blank regions can drop by more than one per move

    def __init__(self, puzzle: Puzzle, partition: str = "663", reflect: bool = False,
                 progress: bool = True) -> None:
        super().__init__(puzzle)
        from pdb_builders import additive_tiles as at

        t0 = time.perf_counter()
        self.width, self.layout = tiles_puzzle_info(puzzle)
        self.n = self.width * self.width
        self.partition = str(partition)
        self.reflect = bool(reflect)
        self.name = f"pdb-{self.partition}" + ("-reflect" if self.reflect else "")
        if self.partition == "full":
            self.consistent = True  # exact distances
        built, lookups = at.plan(puzzle.name, self.partition)
        self.specs = at.tables_for(puzzle.name, self.partition)
        loaded = [spec.ensure(progress=progress) for spec in self.specs]
        tables = []
        for t in loaded:
            a = np.asarray(t.data)
            a.setflags(write=False)
            tables.append(a)
        self.tables = tuple(tables)
        self.packed = np.array([t.packing == "nibble" for t in loaded], dtype=np.bool_)
        self.maxima = [int(t.attrs["maximum"]) for t in loaded]
        tmap = at.transpose_map(self.width)
        terms = [(lk.table, lk.tiles, lk.mirrored) for lk in lookups]
        if self.reflect:
            terms += [(lk.table, lk.tiles, not lk.mirrored) for lk in lookups]
        kmax = max(len(t[1]) for t in terms)
        self.ent_tiles = np.zeros((len(terms), kmax), dtype=np.int64)
        for i, (_, tiles, _) in enumerate(terms):
            self.ent_tiles[i, : len(tiles)] = tiles
        self.ent_k = np.array([len(t[1]) for t in terms], dtype=np.int64)
        self.ent_flag = np.array([t[2] for t in terms], dtype=np.bool_)
        self.ent_tab = np.array([t[0] for t in terms], dtype=np.int64)
        self.num_plain = len(lookups)
        self.transpose = tmap
        # dep[x] = (plain term, reflected term) whose value depends on tile x's cell, or -1
        self.dep = np.full((self.n, 2), -1, dtype=np.int64)
        # dep_w[x] = the weight of tile x's digit in those terms' sparse index (n^(k-1-slot))
        self.dep_w = np.zeros((self.n, 2), dtype=np.int64)
        for e in range(len(terms)):
            k = int(self.ent_k[e])
            for slot, a in enumerate(self.ent_tiles[e, :k]):
                x = int(tmap[a]) if self.ent_flag[e] else int(a)
                side = 0 if e < self.num_plain else 1
                self.dep[x, side] = e
                self.dep_w[x, side] = self.n ** (k - 1 - slot)
        self._sparse: tuple[np.ndarray, np.ndarray, bool] | None = None
        self.load_seconds = time.perf_counter() - t0

    def __call__(self, states: np.ndarray) -> np.ndarray:
        from pdb_builders.additive_kernels import eval_batch

        s = canonical(check_states(states, self.n), self.width, self.layout)
        return eval_batch(s, self.ent_tiles, self.ent_k, self.ent_flag, self.ent_tab,
                          self.num_plain, self.transpose, self.tables, self.packed)

    @property
    def nbytes(self) -> int:
        return int(sum(t.nbytes for t in self.tables))

    def sparse_tables(self) -> tuple[np.ndarray, np.ndarray, bool] | None:
        """The tables in the sparse layout the IDA* kernel reads (index = the pattern's cells as
        a base-n number, updated by one multiply-add per move), one after the other in one
        array: ``(flat, offsets, packed)``, ``offsets[t]`` where table ``t`` starts (in entries).
        Nibbles when every table has them, bytes otherwise. Made once per heuristic; None when
        one table would exceed ``SPARSE_MAX_ENTRIES`` (the kernel then ranks each lookup)."""
        from pdb_builders.additive_kernels import sparse_layout

        ks = [int(self.ent_k[int(np.flatnonzero(self.ent_tab == t)[0])])
              for t in range(len(self.tables))]
        if any(self.n ** k > SPARSE_MAX_ENTRIES for k in ks):
            return None
        if self._sparse is None:
            t0 = time.perf_counter()
            packed = bool(np.all(self.packed))
            offsets = np.cumsum([0] + [self.n ** k for k in ks], dtype=np.int64)
            if packed and np.any(offsets % 2):
                packed = False  # a table would start mid-byte
            parts = [sparse_layout(table, bool(p), self.n, k, packed)
                     for table, p, k in zip(self.tables, self.packed, ks, strict=True)]
            flat = np.concatenate(parts)
            flat.setflags(write=False)
            self._sparse = (flat, offsets[:-1], packed)
            self.load_seconds += time.perf_counter() - t0
        return self._sparse

    def ida_spec(self) -> IdaSpec:
        sparse = self.sparse_tables()
        common = dict(ent_tiles=self.ent_tiles, ent_k=self.ent_k, ent_flag=self.ent_flag,
                      ent_tab=self.ent_tab, transpose=self.transpose, dep=self.dep,
                      dep_w=self.dep_w, packed=self.packed)
        if sparse is None:
            record = AdditivePdbTables(**common, tables=tuple(self.tables), num_plain=self.num_plain,
                                       sparse=False, flat=np.zeros(1, np.uint8), fpacked=False,
                                       offsets=np.zeros(1, np.int64))
        else:
            flat, offsets, packed = sparse
            record = AdditivePdbTables(**common, tables=(np.zeros(1, np.uint8),),
                                       num_plain=self.num_plain, sparse=True, flat=flat,
                                       fpacked=packed, offsets=offsets)
        return IdaSpec(family="tiles", kind="additive-pdb", tables=record,
                       params={"width": self.width, "layout": self.layout,
                               "num_tables": len(self.tables)})
