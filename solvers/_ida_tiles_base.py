"""The state every tiles IDA* search shares (:class:`TilesSearch`), apart from the loops of
each heuristic kind (``_ida_tiles``: Manhattan, linear conflicts; ``_ida_tiles_pdb``: additive
PDBs), so that each kind's module imports it and neither imports the other."""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np

from heuristics.base import IdaSpec
from puzzles.npuzzle import blank_moves_table
from solvers._ida_engine import EXP, GEN, NEXT

#: nodes generated per call of the slower kernels between clock and node-limit checks
SLICE_SLOW = 1 << 20
#: the deepest path a search holds
MAX_DEPTH = 1000


class TilesSearch:
    """One tiles IDA* search (the :class:`solvers._ida_engine.Search` protocol): the state all
    kinds share (tiles, cells, the path, the counters); a subclass per heuristic kind names the
    record it reads (``record``), allocates its own per-depth arrays (:meth:`_allocate`),
    evaluates the root (:meth:`_root_value`) and runs its loop (:meth:`_run`)."""

    #: the class of ``spec.tables`` this search reads
    record: ClassVar[type]
    #: nodes per slice between the driver's checks
    slice_nodes: ClassVar[int] = SLICE_SLOW

    def __init__(self, spec: IdaSpec, w: int, start: np.ndarray,
                 prefix: tuple[int, ...] = ()) -> None:
        """A search from ``start``; with ``prefix`` (the actions that led there from the
        search's start) ``start`` is a subtree root at depth ``len(prefix)``: its iterations
        count ``g`` from the start and never undo the prefix's last move."""
        if type(spec.tables) is not self.record:
            raise TypeError(f"tiles IDA*: the {spec.kind} search reads "
                            f"{self.record.__name__}, got {type(spec.tables).__name__}")
        n = w * w
        self.w, self.n = w, n
        self.tables = spec.tables
        self._share()
        self.moves = np.ascontiguousarray(blank_moves_table(w), dtype=np.int64)
        self.moves_flat = self.moves.reshape(-1).copy()
        self._allocate_all()
        self.reset(start, prefix)

    def _share(self) -> None:
        """Make what the threads of a parallel search share, beside ``tables``."""

    def _allocate_all(self) -> None:
        n, depth_cap = self.n, MAX_DEPTH + 2
        self.pos = np.empty(n, dtype=np.int64)
        self.next_a = np.zeros(depth_cap, dtype=np.int64)
        self.path = np.zeros(depth_cap, dtype=np.int64)
        # depth, blank, generated, expanded, next bound, depth of the iteration's root
        self.st = np.zeros(6, dtype=np.int64)
        self.ctl = np.zeros(3, dtype=np.int64)
        self._allocate(depth_cap)

    def _allocate(self, depth_cap: int) -> None:
        """Allocate the kind's own per-depth arrays."""
        raise NotImplementedError

    def _root_value(self, root: int) -> int:
        """Evaluate the root (``tiles``, ``pos``) into the kind's arrays at depth ``root``;
        return its heuristic."""
        raise NotImplementedError

    def _run(self, budget_end: int) -> int:
        """Resume the iteration under ``bound`` until ``budget_end`` generated nodes; a code."""
        raise NotImplementedError

    def spawn(self, start: np.ndarray, prefix: tuple[int, ...] = ()) -> TilesSearch:
        """Another search over the same tables, with its own arrays, from ``start``."""
        other = copy.copy(self)
        other._allocate_all()
        other.reset(start, prefix)
        return other

    def reset(self, start: np.ndarray, prefix: tuple[int, ...] = ()) -> None:
        """Make ``start`` (after ``prefix``) this search's root; the arrays are reused."""
        n = self.n
        self.tiles = start.astype(np.int64)
        self.pos[self.tiles] = np.arange(n)
        self.root = root = len(prefix)
        if root:
            if root >= MAX_DEPTH:
                raise ValueError("tiles IDA*: subtree root deeper than the stack")
            self.path[:root] = prefix
        self.h_root = self._root_value(root)
        self.st[5] = root
        self.blank0 = int(self.pos[0])
        self.ctl[:] = 0
        self.bound = 0
        self.goal = bool(np.all(self.tiles == np.arange(n)))

    def is_goal(self) -> bool:
        return self.goal

    def first_bound(self) -> int:
        return self.h_root

    def next_bound(self, least_f: int) -> int:
        return least_f

    def begin(self, bound: int) -> None:
        self.bound = bound
        self.st[0] = self.root
        self.st[1] = self.blank0
        self.next_a[self.root] = 0

    def run(self, budget: int) -> int:
        st, ctl = self.st, self.ctl
        st[2], st[3], st[4] = ctl[GEN], ctl[EXP], ctl[NEXT]
        code = self._run(int(st[2]) + budget)
        ctl[GEN], ctl[EXP], ctl[NEXT] = st[2], st[3], st[4]
        return code

    def solution(self) -> list[int]:
        return [int(a) for a in self.path[: int(self.st[0])]]

    def generated_at_solution(self) -> int:
        return int(self.ctl[GEN])
