"""Batch best-first search: DeepCubeA's batch weighted A* (BWAS), with A* and greedy as presets.

Each iteration pops the ``batch`` open nodes with the lowest cost ``f = weight * g + h`` (ties:
lower ``h`` first), expands them all at once with ``puzzle.expand``, drops the child that undoes
the parent's last move, looks every child up in the closed set, and evaluates the heuristic on
the whole batch of new children with one call of its batch ``__call__`` (a network sees one big
batch). Presets, as in the registry:

- ``bwas``: ``weight`` and ``batch`` settable (DeepCubeA's values by default), goal test at
  generation;
- ``astar``: ``weight = 1``, ``batch = 1``, goal test at expansion: optimal with an admissible
  heuristic (with a consistent one no node is ever reopened);
- ``greedy``: ``weight = 0`` (best-first on ``h`` alone), ``batch = 1``, goal test at generation.

Every option's default and bounds are the preset's entry in :mod:`core.registry`, their only
statement: the constructor checks its arguments through it (``Entry.settings``).

Goal test. ``goal_test="generate"`` (DeepCubeA's choice, the default of ``bwas`` and ``greedy``)
tests children as soon as a batch is generated and stops at the first goal child (children
count as generated in parent-then-action order up to that child, the rule IDA* counts by, and
the batch's parents count as expanded up to that child's parent). ``goal_test="expand"`` tests nodes when they are popped
for expansion, which A* needs to be optimal (a goal generated early may be reached by a cheaper
path later). The start state itself is tested before the search (solved with length 0).

Closed set. Every generated state is kept in a node store (struct of arrays) and keyed by its
full state row, exactly (see :mod:`solvers._bf_kernels`: a Numba open-addressing table that
stores node ids and compares whole rows; ``closed="dict"`` uses a Python ``dict`` keyed by the
row's bytes instead, kept as a reference and for the benchmark that chose the table). A state
reached again by a cheaper path gets the new ``g`` and parent and is reopened (pushed again), as
in DeepCubeA. Parent pointers and actions rebuild the path.

Limits end the search with a status, never an exception: ``node-limit`` once at least
``limits.nodes`` nodes were generated, ``timeout`` once ``limits.time_s`` passed (checked after
each iteration and before each batch heuristic evaluation, so both can overshoot by one batch),
``out-of-memory`` when the search's memory (the larger of its RSS growth, see
:mod:`solvers.memory`, and the bytes of its own arrays) exceeds ``limits.memory_bytes`` or an
allocation fails, and ``unsolvable`` when the open list runs empty.

Window shortening (``improve_window`` L > 0, on ``bwas`` and ``greedy``): a found path is then
shortened by exact meet-in-the-middle searches over its windows of up to L moves
(:mod:`solvers.window_shorten`) within the time limit left; ``extra.unimproved_length`` is the
length before, ``extra.window`` what the shortening did (its balls' states are not counted as
generated nodes).

When nodes are evaluated (``evaluation``):

- ``children`` (the default): every new child, in one batch per iteration, as above.
- ``deferred`` (``bwas --deferred``): a child enters the open list with its parent's cost
  ``f = weight * g(parent) + h(parent)`` and is evaluated only when it is popped, in one batch
  with the other popped nodes; a popped node whose own ``f = weight * g + h`` is higher than the
  key it was popped with goes back into the open list with that ``f`` (lazy A*), the others are
  expanded. Each node is evaluated once. With a consistent heuristic a parent's ``f`` is never
  above its child's, so ``deferred`` with ``goal_test="expand"`` at weight 1 stays optimal.
- ``q`` (the ``qstar`` preset, Q* search): the heuristic is a Q-network
  (:class:`core.capabilities.QValues`); the popped nodes are evaluated once, in one batch, giving
  the values of all their moves, and each child enters the open list with
  ``f = weight * g(parent) + Q(parent, a)`` (with an exact ``Q`` and weight 1: A*'s
  ``g(child) + h*(child)``), never evaluated until it is itself popped. ``qstar`` tests goals at
  expansion by default (then a node is evaluated exactly when it is expanded).

``extra.evaluations`` counts the states the heuristic was evaluated on in the search.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from core import registry
from core.capabilities import QValues
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.base import Heuristic, checked_values
from puzzles.base import Puzzle
from solvers import _bf_kernels as K
from solvers.base import (
    GoalTest,
    Solver,
    SolveResult,
    check_q_heuristic,
    finish,
    require_heuristic,
)
from solvers.ida import check_start
from solvers.memory import PeakMemory, touch_pages
from solvers.window_shorten import check_window, improve, warm

_PRESETS: dict[str, dict[str, Any]] = {
    "bwas": dict(goal_test="generate", evaluation="children", fixed_weight=False),
    "astar": dict(goal_test="expand", evaluation="children", fixed_weight=True),
    "greedy": dict(goal_test="generate", evaluation="children", fixed_weight=True),
    "qstar": dict(goal_test="expand", evaluation="q", fixed_weight=False),
}
#: when nodes are evaluated (module docstring)
EVALUATIONS = ("children", "deferred", "q")
_COMPILED = False


class _OutOfMemory(Exception):
    """The search's own arrays would exceed its memory limit."""


def _compile_kernels() -> float:
    """Compile (or load from cache) the engine's kernels once per process; return seconds."""
    global _COMPILED
    if _COMPILED:
        return 0.0
    t0 = time.perf_counter()
    store = _Store(state_dim=3, capacity=4, closed="numba", limit=None)
    store.add_root(np.zeros(3, dtype=np.uint8), 0.0, 0.0)
    kids = np.array([[1, 0, 0], [0, 0, 0]], dtype=np.uint8)
    store.insert(kids, np.array([1, 1]), np.array([0, 0]), np.array([0, 1]))
    heap = _Heap(capacity=4, limit=None)
    heap.push(np.array([1.0, 0.5]), np.array([1.0, 0.5]), np.array([0, 1]))
    out = np.empty(2, dtype=np.int64)
    K.heap_pop_batch(heap.data, heap.size, store.closed, store.fcur, 2, out)
    _COMPILED = True
    return time.perf_counter() - t0


def _next_pow2(n: int) -> int:
    return 1 << max(4, int(n - 1).bit_length())


class _Store:
    """Node store ``(C, L)`` plus the closed-set index; grows by doubling."""

    def __init__(self, state_dim: int, capacity: int, closed: str, limit: int | None,
                 table_size: int = 4096) -> None:
        self.L = state_dim
        self.n = 0
        self.closed_kind = closed
        self.limit = limit
        self._alloc(capacity)
        # open addressing, load at most 1/2; grows (x4) with the node count
        self.table = np.zeros((_next_pow2(table_size), 2), dtype=np.uint64)
        self.index: dict[bytes, int] = {}

    def _alloc(self, cap: int) -> None:
        # np.empty: pages are only backed by memory once the search writes them, so a generous
        # capacity costs address space, not RSS; rows beyond ``n`` are never read
        self.states = np.empty((cap, self.L), dtype=np.uint8)
        self.g = np.empty(cap, dtype=np.int64)
        self.h = np.empty(cap, dtype=np.float64)
        self.fcur = np.empty(cap, dtype=np.float64)
        self.parent = np.empty(cap, dtype=np.int64)
        self.action = np.empty(cap, dtype=np.int64)
        self.hashes = np.empty(cap, dtype=np.uint64)
        self.closed = np.empty(cap, dtype=np.bool_)
        self.evaluated = np.empty(cap, dtype=np.bool_)

    @property
    def capacity(self) -> int:
        return int(self.g.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes in use: ``n`` node rows plus the hash table."""
        return int(self.n * self.bytes_per_node() + self.table.nbytes)

    def bytes_per_node(self) -> int:
        return self.L + 8 * 6 + 2

    def ensure(self, extra: int, other_bytes: int) -> None:
        """Make room for ``extra`` more nodes (table load stays at most one half)."""
        need = self.n + extra
        if need > self.capacity:
            cap = max(need, 2 * self.capacity)
            if self.limit is not None and need * self.bytes_per_node() + other_bytes > self.limit:
                raise _OutOfMemory
            old: list[np.ndarray] = [self.states, self.g, self.h, self.fcur, self.parent,
                                     self.action, self.hashes, self.closed, self.evaluated]
            self._alloc(cap)
            new: list[np.ndarray] = [self.states, self.g, self.h, self.fcur, self.parent,
                                     self.action, self.hashes, self.closed, self.evaluated]
            for a, b in zip(old, new, strict=True):
                b[: self.n] = a[: self.n]
        if self.closed_kind == "numba" and 2 * need > self.table.shape[0]:
            size = _next_pow2(4 * need)
            if self.limit is not None and 16 * size + self.nbytes + other_bytes > self.limit:
                raise _OutOfMemory
            self.table = np.zeros((size, 2), dtype=np.uint64)
            K.rebuild_table(self.table, self.hashes, self.n)

    def add_root(self, state: np.ndarray, h: float, f: float) -> int:
        ids, _ = self.insert(state[None, :], np.array([0]), np.array([-1]), np.array([-1]))
        self.h[0] = h
        self.fcur[0] = f
        self.evaluated[0] = True
        return int(ids[0])

    def insert(self, children: np.ndarray, g: np.ndarray, parent: np.ndarray,
               action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Closed-set lookup of ``children (M, L)``; returns ``(ids (M,), kinds (M,))``."""
        m = children.shape[0]
        out_ids = np.empty(m, dtype=np.int64)
        out_kind = np.empty(m, dtype=np.int8)
        g = np.ascontiguousarray(g, dtype=np.int64)
        parent = np.ascontiguousarray(parent, dtype=np.int64)
        action = np.ascontiguousarray(action, dtype=np.int64)
        if self.closed_kind == "numba":
            children = np.ascontiguousarray(children)
            hashes = np.empty(m, dtype=np.uint64)
            K.hash_rows(children, hashes)
            self.n = K.insert_children(
                self.table, self.hashes, self.states, self.g, self.parent, self.action,
                self.closed, self.n, children, hashes, g, parent, action, out_ids, out_kind,
            )
        else:
            self._insert_dict(children, g, parent, action, out_ids, out_kind)
        return out_ids, out_kind

    def _insert_dict(self, children, g, parent, action, out_ids, out_kind) -> None:
        index = self.index
        n = self.n
        for i in range(children.shape[0]):
            key = children[i].tobytes()
            idx = index.get(key)
            if idx is None:
                index[key] = n
                self.states[n] = children[i]
                self.g[n] = g[i]
                self.parent[n] = parent[i]
                self.action[n] = action[i]
                self.closed[n] = False
                out_ids[i] = n
                out_kind[i] = K.NEW
                n += 1
            elif g[i] < self.g[idx]:
                self.g[idx] = g[i]
                self.parent[idx] = parent[i]
                self.action[idx] = action[i]
                self.closed[idx] = False
                out_ids[i] = idx
                out_kind[i] = K.IMPROVED
            else:
                out_ids[i] = -1
                out_kind[i] = K.DUPLICATE
        self.n = n

    def path_to(self, node: int) -> list[int]:
        actions: list[int] = []
        while self.parent[node] >= 0:
            actions.append(int(self.action[node]))
            node = int(self.parent[node])
        return actions[::-1]


class _Heap:
    """Open list: binary min-heap of ``(H, 3) float64`` records ``[f, h, id]`` (see ``_bf_kernels``)."""

    def __init__(self, capacity: int, limit: int | None) -> None:
        self.limit = limit
        self.data = np.empty((capacity, 3), dtype=np.float64)
        self.size = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        """Bytes in use (``size`` records)."""
        return int(24 * self.size[0])

    def push(self, f: np.ndarray, h: np.ndarray, ids: np.ndarray, other_bytes: int = 0) -> None:
        need = int(self.size[0]) + ids.shape[0]
        if need > self.data.shape[0]:
            cap = max(need, 2 * self.data.shape[0])
            if self.limit is not None and 24 * need + other_bytes > self.limit:
                raise _OutOfMemory
            n = int(self.size[0])
            new = np.empty((cap, 3), dtype=np.float64)
            new[:n] = self.data[:n]
            self.data = new
        K.heap_push(self.data, self.size, np.ascontiguousarray(f, dtype=np.float64),
                    np.ascontiguousarray(h, dtype=np.float64), np.ascontiguousarray(ids, dtype=np.int64))


class BatchBestFirst(Solver):
    """The batch best-first engine; ``bwas``, ``astar`` and ``greedy`` are its presets.

    Parameters (``None``: the declared default; bounds: the preset's registry entry):
    ``weight`` (lambda, the weight on ``g``, above 1 for an ``h`` counted in other units than
    moves; ``astar`` and ``greedy`` fix it at their declared default), ``batch`` (nodes
    expanded per iteration), ``preset`` (``"bwas"``, ``"astar"``, ``"greedy"``: the name
    and the default goal test), ``goal_test`` (``"generate"`` or ``"expand"``, overrides the preset),
    ``closed`` (``"numba"`` hash table, default, or ``"dict"``), ``max_iterations`` (stop with
    ``iteration-limit`` after that many iterations; Phipat 2020 caps its searches so),
    ``deferred`` (evaluate children when popped, module docstring; not with ``qstar``, whose
    evaluation is the Q-network's).
    """

    def __init__(self, weight: float | None = None, batch: int | None = None,
                 preset: str = "bwas", goal_test: str | None = None, closed: str = "numba",
                 max_iterations: int | None = None, improve_window: int | None = None,
                 deferred: bool | None = None) -> None:
        if preset not in _PRESETS:
            raise InputError(f"preset: expected one of {', '.join(_PRESETS)}, got {preset!r}")
        # the preset's registry entry states every option's bounds and default, once
        entry = registry.solver_entry(preset)
        given = {"weight": weight, "batch": batch, "max_iterations": max_iterations,
                 "improve_window": improve_window, "deferred": deferred}
        args = entry.settings(given, "solver")
        weight, batch = args["weight"], args["batch"]
        self.deferred = bool(args.get("deferred", False))
        self.evaluation: str = _PRESETS[preset]["evaluation"]
        if self.deferred:
            self.evaluation = "deferred"
        fixed = entry.option("weight")
        if _PRESETS[preset]["fixed_weight"] and fixed is not None and weight != fixed.default:
            raise InputError(f"--weight: {preset} fixes the weight at {fixed.default:g}; use bwas "
                             f"for weight {weight:g}")
        goal_test = goal_test or _PRESETS[preset]["goal_test"]
        if goal_test not in ("generate", "expand"):
            raise InputError(f"goal_test: expected 'generate' or 'expand', got {goal_test!r}")
        if closed not in ("numba", "dict"):
            raise InputError(f"closed: expected 'numba' or 'dict', got {closed!r}")
        self.name = preset
        self.weight = float(weight)
        self.batch = int(batch)
        self.goal_test = goal_test
        self.closed = closed
        self.max_iterations = args["max_iterations"]
        self.improve_window = int(args.get("improve_window") or 0)

    def __repr__(self) -> str:
        return (f"BatchBestFirst({self.name}, weight={self.weight}, batch={self.batch}, "
                f"goal_test={self.goal_test}, closed={self.closed}, "
                f"evaluation={self.evaluation})")

    def solve(
        self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, limits: Limits | None = None
    ) -> SolveResult:
        """Search from ``start`` (shape ``(L,)``); see the module docstring."""
        limits = limits or Limits()
        require_heuristic(self.name, heuristic)
        qnet = check_q_heuristic(self.name, heuristic) if self.evaluation == "q" else None
        start = check_start(puzzle, start)
        if self.improve_window:
            check_window(puzzle, self.improve_window)
        compile_s = _compile_kernels()
        if self.improve_window:
            t_warm = time.perf_counter()
            warm()
            compile_s += time.perf_counter() - t_warm
        # map the pages of memory-mapped PDB tables (``heuristic.tables``, where there are
        # any) now, so the first search of a process does not pay their page faults
        t_pages = time.perf_counter()
        touch_pages(heuristic.tables)
        pages_s = time.perf_counter() - t_pages
        t_h = time.perf_counter()
        root_q: np.ndarray | None = None
        if qnet is not None:  # the root's Q row, read again when the root is expanded
            root_q = np.asarray(qnet.q_values(start[None, :]), dtype=np.float64)
            h_start = 0.0 if puzzle.is_goal(start[None, :])[0] else \
                max(float(np.min(root_q[0])) - 1.0, 0.0)
        else:
            h_start = float(checked_values(heuristic, start[None, :])[0])
        first_eval_s = time.perf_counter() - t_h
        load_s = float(heuristic.load_seconds) + compile_s + pages_s + first_eval_s

        counters = dict(generated=0, expanded=0, iterations=0, reopened=0, evaluations=1,
                        requeued=0)
        extra: dict[str, Any] = dict(weight=self.weight, batch=self.batch,
                                     max_iterations=self.max_iterations,
                                     goal_test=self.goal_test, closed_set=self.closed,
                                     evaluation=self.evaluation, pages_s=pages_s)
        actions: list[int] | None = None
        status: Status
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            try:
                status, actions, engine_bytes, stored = self._search(
                    puzzle, heuristic, start, h_start, limits, mem, counters, root_q)
                extra.update(engine_bytes=engine_bytes, nodes_stored=stored,
                             reopened=counters["reopened"])
                if self.evaluation == "deferred":
                    extra["requeued"] = counters["requeued"]
            except (_OutOfMemory, MemoryError):
                status = Status.OUT_OF_MEMORY
            if actions and self.improve_window:
                actions = improve(puzzle, start, actions, self.improve_window, limits, t0, extra)
            elapsed = time.perf_counter() - t0
        extra["evaluations"] = counters["evaluations"]
        return finish(
            puzzle, start, self.name, heuristic.name, status=status, actions=actions,
            generated=counters["generated"], expanded=counters["expanded"],
            iterations=counters["iterations"], h_start=h_start, time_s=elapsed, load_s=load_s,
            peak_rss_bytes=mem.peak_bytes, extra=extra,
        )

    # ------------------------------------------------------------------ the search
    def _search(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, h_start: float,
                limits: Limits, mem: PeakMemory, counters: dict[str, int],
                root_q: np.ndarray | None = None) -> tuple[Status, list[int] | None, int, int]:
        goal_test = GoalTest(puzzle, heuristic)
        if bool(goal_test(start[None, :])[0]):
            return Status.SOLVED, goal_test.tail(start), 0, 1
        deadline = None if limits.time_s is None else time.perf_counter() + limits.time_s
        mem_limit = limits.memory_bytes
        weight, batch = self.weight, self.batch
        inverse = np.array([puzzle.inverse_action(a) for a in range(puzzle.num_actions)],
                           dtype=np.int64)
        cap = max(1024, min(64 * batch * puzzle.num_actions, 1 << 22))
        max_new = batch * puzzle.num_actions  # at most this many new nodes per iteration
        store = _Store(puzzle.state_dim, cap, self.closed, mem_limit,
                       table_size=min(max(4096, 16 * max_new), 1 << 24))
        heap = _Heap(2 * cap, mem_limit)
        store.add_root(start, h_start, h_start)
        heap.push(np.array([h_start]), np.array([h_start]), np.array([0]))
        popped = np.empty(batch, dtype=np.int64)

        def finish(status: Status, actions: list[int] | None) -> tuple:
            return status, actions, store.nbytes + heap.nbytes, store.n

        evaluation = self.evaluation
        while True:
            k = int(K.heap_pop_batch(heap.data, heap.size, store.closed, store.fcur, batch, popped))
            if k == 0:
                return finish(Status.UNSOLVABLE, None)
            ids = popped[:k].copy()
            counters["iterations"] += 1
            if evaluation == "deferred":
                ids = self._evaluate_popped(heuristic, store, heap, ids, counters)
                if ids.size == 0:
                    if deadline is not None and time.perf_counter() >= deadline:
                        return finish(Status.TIMEOUT, None)
                    continue
                k = int(ids.size)
            parents = store.states[ids]
            if self.goal_test == "expand":
                goals = goal_test(parents)
                if goals.any():
                    hit = ids[goals]
                    best = int(hit[np.argmin(store.g[hit])])
                    return finish(Status.SOLVED, store.path_to(best)
                                  + goal_test.tail(store.states[best]))
            q: np.ndarray | None = None
            if evaluation == "q":  # every popped node once: the values of all its moves
                if root_q is not None and k == 1 and ids[0] == 0:
                    q, root_q = root_q, None
                else:
                    if deadline is not None and time.perf_counter() >= deadline:
                        return finish(Status.TIMEOUT, None)
                    assert isinstance(heuristic, QValues)  # solve() refused another
                    q = np.asarray(heuristic.q_values(parents), dtype=np.float64)
                    counters["evaluations"] += k
            counters["expanded"] += k
            children, valid = puzzle.expand(parents)  # (k, A, L), (k, A)
            if puzzle.reversible:  # never undo the move that made the node
                last_action = store.action[ids]
                has = last_action >= 0
                valid[np.flatnonzero(has), inverse[last_action[has]]] = False
            pi, ai = np.nonzero(valid)
            kids = children[pi, ai]  # (M, L)
            m = kids.shape[0]
            kid_parent = ids[pi]
            if self.goal_test == "generate" and m:
                goals = goal_test(kids)
                if goals.any():
                    j = int(np.argmax(goals))
                    counters["generated"] += j + 1  # children in order up to the goal child
                    if q is None:  # and expanded: the batch's parents up to the goal child's
                        # parent (a Q search evaluated, and so expanded, them all)
                        counters["expanded"] -= k - (int(pi[j]) + 1)
                    return finish(Status.SOLVED, store.path_to(int(kid_parent[j])) + [int(ai[j])]
                                  + goal_test.tail(kids[j]))
            counters["generated"] += m
            if deadline is not None and time.perf_counter() >= deadline:
                return finish(Status.TIMEOUT, None)
            store.ensure(m, heap.nbytes)
            kid_ids, kinds = store.insert(kids, store.g[kid_parent] + 1, kid_parent, ai)
            is_new, is_improved = kinds == K.NEW, kinds == K.IMPROVED
            sel = is_new | is_improved
            push = kid_ids[sel]
            counters["reopened"] += int(is_improved.sum())
            if evaluation == "children":
                new = kid_ids[is_new]
                if new.size:
                    store.h[new] = checked_values(heuristic, store.states[new])
                    store.evaluated[new] = True
                    counters["evaluations"] += int(new.size)
                push = np.concatenate([new, kid_ids[is_improved]])
                f = weight * store.g[push] + store.h[push]
            elif evaluation == "deferred":
                # a child not yet evaluated takes its parent's value and f
                store.evaluated[kid_ids[is_new]] = False
                par = kid_parent[sel]
                own = store.evaluated[push]
                store.h[push[~own]] = store.h[par[~own]]
                f = np.where(own, weight * store.g[push] + store.h[push],
                             weight * store.g[par] + store.h[par])
            else:  # q: f = weight * g(parent) + Q(parent, a)
                assert q is not None
                qa = q[pi[sel], ai[sel]]
                store.h[push] = np.maximum(qa - 1.0, 0.0)  # the child's estimated cost-to-go
                store.evaluated[push] = False
                f = weight * store.g[kid_parent[sel]] + qa
            if push.size:
                store.fcur[push] = f
                heap.push(f, store.h[push], push, store.nbytes)
            # limits, checked once per iteration
            if limits.nodes is not None and counters["generated"] >= limits.nodes:
                return finish(Status.NODE_LIMIT, None)
            if self.max_iterations is not None and counters["iterations"] >= self.max_iterations:
                return finish(Status.ITERATION_LIMIT, None)
            if deadline is not None and time.perf_counter() >= deadline:
                return finish(Status.TIMEOUT, None)
            if mem_limit is not None:
                used = max(mem.sample(), store.nbytes + heap.nbytes)
                if used > mem_limit:
                    return finish(Status.OUT_OF_MEMORY, None)

    def _evaluate_popped(self, heuristic: Heuristic, store: _Store, heap: _Heap,
                         ids: np.ndarray, counters: dict[str, int]) -> np.ndarray:
        """Deferred evaluation: evaluate the popped nodes not yet evaluated (one batch); those
        whose own ``f`` is above the key they were popped with go back into the open list.
        Returns the nodes to expand now."""
        todo = ids[~store.evaluated[ids]]
        if todo.size == 0:
            return ids
        store.h[todo] = checked_values(heuristic, store.states[todo])
        store.evaluated[todo] = True
        counters["evaluations"] += int(todo.size)
        f = self.weight * store.g[todo] + store.h[todo]
        later = f > store.fcur[todo]
        if later.any():
            back = todo[later]
            store.fcur[back] = f[later]
            store.closed[back] = False
            heap.push(f[later], store.h[back], back, store.nbytes)
            counters["requeued"] += int(back.size)
            keep = np.ones(ids.size, dtype=bool)
            keep[np.isin(ids, back)] = False
            return ids[keep]
        return ids
