"""Parallel IDA*: every iteration's tree is cut at a frontier depth and its subtrees are searched
by several threads at once (the family kernels release the GIL while they run).

Per iteration with cost bound ``B`` the family's ``frontier(B, True)`` expands the tree breadth-first,
level by level in action order (so the frontier lists its nodes in the order a depth-first search
reaches them), until a level holds enough nodes to share out; it counts what it generates and
expands exactly as the depth-first kernels do. The threads then take the frontier's nodes one by
one, in that order, and run each node's subtree with the family kernel in slices, adding up
nodes and the least cut-off ``f``. An iteration that finds no solution therefore generates and
expands exactly the nodes a one-thread search does, and ends with the same next bound; in the
last iteration the threads stop once one of them finds a solution, which is optimal (it is no
longer than the bound, and no shorter solution exists below the bound), though it may be
another optimal one than the one-thread search returns and the node counts of that iteration
differ. Iterations after a small one run from the root in one thread (``frontier(B, False)``
returns the root alone), and count as a one-thread search does even when they find the solution
(``Search.generated_at_solution``).

Subtree order (``order``): with ``actions`` the threads take the frontier's nodes in the
depth-first order above. With ``previous`` (the order of Rokicki's nxopt, which cuts every
iteration at its 4-move prefixes) each finished iteration leaves, per prefix, the nodes its
subtree generated (:func:`prefix_counts`: a subtree's count is added to its own prefix and to
every ancestor's, so a shallower frontier finds it too), and the next iteration's frontier is
sorted by that count, most first, before any thread takes a node (:func:`subtree_order`: a
prefix not searched last time takes its nearest searched ancestor's count; ties keep the
depth-first order). A subtree where the heuristic was weakest under the last bound is the
likeliest to hold a solution under the next one, so the last iteration tends to meet one
earlier; the iterations that find none search the same subtrees, so they generate and expand
exactly what ``actions`` does and end with the same next bound. Only the order changes, and
only in iterations that are split: with ``previous`` an iteration is split (with one thread
into one worker taking the frontier in turn) once the previous one generated
:data:`ORDERED_SPLIT_MIN_NODES` (or ``split_min_nodes``, if fewer), so that the iteration before
a large one, often the last, leaves its subtrees' counts; the counts of the frontier's own
expansions above its depth are not kept per prefix. An iteration after an unsplit one finds one
count (the root's) and keeps the depth-first order. nxopt also divides each prefix's count by the growth expected
of the move sequences that may follow it; here the raw counts are compared.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.status import Status
from solvers._ida_engine import EXP, GEN, INF, ITER_DONE, NEXT, SOLVED, Search

#: frontier nodes per thread a frontier level should reach before it is shared out
NODES_PER_THREAD = 256
#: an iteration after one that generated fewer nodes runs in one thread (from the root): its
#: tree is too small to pay for splitting
SPLIT_MIN_NODES = 1 << 22
#: with ``order=previous``, an iteration after one that generated at least this many nodes is
#: split (and so leaves its subtrees' counts), whatever ``split_min_nodes`` says
ORDERED_SPLIT_MIN_NODES = 1 << 12
#: the subtree orders (``order``): depth-first, or most nodes in the previous iteration first
ORDERS = ("actions", "previous")

#: a subtree's prefix: the actions (or a kernel's slots) from the start to its root
Prefix = tuple[int, ...]


@dataclass
class Frontier:
    """One iteration's tree down to the frontier depth."""

    nodes: list[tuple[tuple[int, ...], Any]] = field(default_factory=list)  #: (actions, state)
    generated: int = 0  #: children generated above and at the frontier depth
    expanded: int = 0  #: nodes expanded above the frontier depth (the root included)
    least_f: int = INF  #: the least f cut off above and at the frontier depth
    solution: list[int] | None = None  #: a goal met within the bound above the frontier


def drive_parallel(frontier: Callable[[int, bool], Frontier],
                   subtree: Callable[[tuple[int, ...], Any], Search], first_bound: int,
                   threads: int, max_nodes: int | None, deadline_s: float | None,
                   slice_nodes: int, max_bound: int,
                   next_bound: Callable[[int], int] | None = None,
                   split_min_nodes: int | None = None,
                   order: str = "actions") -> dict[str, Any]:
    """Run IDA* from the root with ``threads`` threads; the result is the kernel contract of
    :mod:`solvers.ida` plus, per iteration, ``iteration_nodes`` (nodes generated),
    ``iteration_bounds`` and ``iteration_seconds`` (wall clock, the frontier's included).
    ``next_bound`` turns an iteration's least cut-off ``f`` into the next cost bound (the
    family's ``Search.next_bound``; by default that ``f`` itself); ``split_min_nodes`` replaces
    :data:`SPLIT_MIN_NODES` for a family whose nodes cost more; ``order`` is the order in which
    the threads take a split iteration's subtrees (:data:`ORDERS`, the module's docstring)."""
    if order not in ORDERS:
        raise ValueError(f"parallel IDA*: unknown subtree order {order!r}")
    generated = expanded = iterations = 0
    iteration_nodes: list[int] = []
    iteration_bounds: list[int] = []
    iteration_seconds: list[float] = []
    min_split = SPLIT_MIN_NODES if split_min_nodes is None else split_min_nodes
    previous: dict[Prefix, int] = {}  # nodes under each prefix in the last iteration (order)

    def result(status: Status, actions: list[int] | None = None) -> dict[str, Any]:
        return dict(status=status.value, actions=actions, nodes_generated=generated,
                    nodes_expanded=expanded, iterations=iterations,
                    iteration_nodes=iteration_nodes, iteration_bounds=iteration_bounds,
                    iteration_seconds=iteration_seconds, threads=threads)

    bound = first_bound
    while True:
        if bound > max_bound:
            raise RuntimeError(f"IDA*: cost bound {bound} exceeds the search stack ({max_bound})")
        iterations += 1
        t0 = time.perf_counter()
        iteration_bounds.append(bound)
        # with ``previous`` an iteration is split from a smaller size on, so that the one before
        # a large iteration leaves its subtrees' counts (else the first large iteration, often
        # the last, would find only the root's)
        least = min(min_split, ORDERED_SPLIT_MIN_NODES) if order == "previous" else min_split
        split = bool(iteration_nodes) and iteration_nodes[-1] >= least
        fr = frontier(bound, split)
        generated += fr.generated
        expanded += fr.expanded
        if fr.solution is not None:
            iteration_nodes.append(fr.generated)
            iteration_seconds.append(time.perf_counter() - t0)
            return result(Status.SOLVED, fr.solution)
        before = generated - fr.generated
        if order == "previous" and previous:
            fr.nodes = [fr.nodes[k] for k in subtree_order([p for p, _ in fr.nodes], previous)]
        it = _Iteration(fr, subtree, bound, generated, max_nodes, deadline_s, slice_nodes)
        it.run(threads if split else 1)
        iteration_nodes.append(it.generated - before)
        iteration_seconds.append(time.perf_counter() - t0)
        generated = it.generated
        expanded += it.expanded
        if it.solution is not None:
            return result(Status.SOLVED, it.solution)
        if it.stopped is not None:
            return result(it.stopped)
        if it.least_f >= INF:
            return result(Status.UNSOLVABLE)
        if order == "previous":
            previous = prefix_counts(it.subtree_nodes)
        bound = it.least_f if next_bound is None else next_bound(it.least_f)
        if deadline_s is not None and time.monotonic() > deadline_s:
            return result(Status.TIMEOUT)


def prefix_counts(subtrees: Iterable[tuple[Prefix, int]]) -> dict[Prefix, int]:
    """Nodes generated under each prefix, from ``(prefix, nodes)`` per searched subtree: each
    subtree's count is added to its own prefix and to every ancestor's (the root ``()``
    included), so the root's count is the sum of all subtrees'."""
    out: dict[Prefix, int] = {}
    for prefix, nodes in subtrees:
        for k in range(len(prefix) + 1):
            head = prefix[:k]
            out[head] = out.get(head, 0) + int(nodes)
    return out


def order_key(prefix: Prefix, counts: dict[Prefix, int]) -> int:
    """``prefix``'s count in ``counts`` (:func:`prefix_counts`) or, when it has none, its
    nearest ancestor's that has one; 0 when no ancestor has one."""
    for k in range(len(prefix), -1, -1):
        nodes = counts.get(prefix[:k])
        if nodes is not None:
            return nodes
    return 0


def subtree_order(prefixes: Sequence[Prefix], counts: dict[Prefix, int]) -> list[int]:
    """The indices of ``prefixes`` (a frontier in depth-first order) sorted by
    :func:`order_key`, most nodes first; equal keys keep their depth-first order."""
    keys = [order_key(p, counts) for p in prefixes]
    return sorted(range(len(prefixes)), key=lambda k: -keys[k])


class _Iteration:
    """The subtrees of one iteration, shared out to threads."""

    def __init__(self, fr: Frontier, subtree: Callable[[tuple[int, ...], Any], Search],
                 bound: int, generated: int, max_nodes: int | None, deadline_s: float | None,
                 slice_nodes: int) -> None:
        self.nodes: Sequence[tuple[tuple[int, ...], Any]] = fr.nodes
        self.subtree, self.bound = subtree, bound
        self.max_nodes, self.deadline_s, self.slice_nodes = max_nodes, deadline_s, slice_nodes
        self.lock = threading.Lock()
        self.next = 0
        self.generated = generated  # all iterations so far, this one's frontier included
        self.expanded = 0
        self.least_f = fr.least_f
        self.solution: list[int] | None = None
        self.stopped: Status | None = None
        self.error: BaseException | None = None
        self.halt = threading.Event()
        self.subtree_nodes: list[tuple[Prefix, int]] = []  # (prefix, nodes) per finished subtree

    def run(self, threads: int) -> None:
        workers = [threading.Thread(target=self._work, daemon=True) for _ in range(threads)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        if self.error is not None:
            raise self.error

    def _take(self) -> tuple[tuple[int, ...], Any] | None:
        with self.lock:
            if self.halt.is_set() or self.next >= len(self.nodes):
                return None
            node = self.nodes[self.next]
            self.next += 1
            return node

    def _work(self) -> None:
        try:
            while (node := self._take()) is not None:
                self._search(*node)
        except BaseException as exc:  # noqa: BLE001 - re-raised by run() in the caller's thread
            with self.lock:
                self.error = exc
            self.halt.set()

    def _search(self, prefix: tuple[int, ...], state: Any) -> None:
        s = self.subtree(prefix, state)
        ctl = s.ctl
        ctl[:] = 0
        ctl[NEXT] = INF
        s.begin(self.bound)
        counted = 0
        with self.lock:
            self.expanded += 1  # the subtree's root
        while True:
            code = s.run(self.slice_nodes)
            with self.lock:
                self.generated += int(ctl[GEN]) - counted
                counted = int(ctl[GEN])
                if code == ITER_DONE:
                    self.least_f = min(self.least_f, int(ctl[NEXT]))
                # the limits are checked after every slice and every finished subtree (an
                # iteration of many small subtrees may have no slice that pauses)
                if code == SOLVED:
                    if self.solution is None:
                        self.solution = s.solution()
                        if not prefix:  # the whole iteration in one search: count as it does
                            self.generated -= counted - s.generated_at_solution()
                    self.halt.set()
                elif self.halt.is_set():
                    pass  # another thread solved or stopped the iteration
                elif self.max_nodes is not None and self.generated > self.max_nodes:
                    self.stopped = Status.NODE_LIMIT
                    self.halt.set()
                elif self.deadline_s is not None and time.monotonic() > self.deadline_s:
                    self.stopped = Status.TIMEOUT
                    self.halt.set()
                elif code != ITER_DONE:
                    continue
                else:
                    self.subtree_nodes.append((prefix, counted))
                self.expanded += int(ctl[EXP])
                return
