"""Iterative-deepening A* (Korf 1985) over per-family Numba kernels.

:class:`IDAStar` does the orchestration: it asks the heuristic for its per-state evaluation
data (``Heuristic.ida_spec()``), compiles the matching kernel once per process (the compile time
is reported in ``load_s``, apart from the search), touches every page of the heuristic's
memory-mapped tables (also counted in ``load_s``: otherwise the first search of a process pays
the page faults, measured 7-13x slower than the next on a 2,000-node cube3 search), runs the timed search while measuring its
peak memory (:mod:`solvers.memory`), and replays the returned path (``finish``).

Kernel contract
---------------
Each family (``spec.family``: ``"tiles"``, ``"cube"``, ``"lights"``) has a module
``solvers._ida_<family>``: its resumable depth-first search (the family's moves and move pruning,
the heuristic's incremental evaluation) wrapped as a ``solvers._ida_engine.Search``, which the
one driver (``solvers._ida_engine.drive``: iterations, slices, limits, statuses, counts) runs;
a search class per heuristic kind (``spec.kind``) reads the heuristic's tables by name from the
typed record ``spec.tables`` (``heuristics.base.IdaSpec``). The module's entry point is::

    search(puzzle, spec, start, max_nodes, deadline_s) -> dict(
        status="solved" | "timeout" | "node-limit" | "unsolvable",
        actions=list[int] | None,      # the solution from ``start``, None unless solved
        nodes_generated=int,           # children after move pruning (those the bound then
                                       # cuts off included, the root not), all iterations,
                                       # up to the first solution (as ref_ida15.c counts); a
                                       # kernel that generates siblings in one batch subtracts
                                       # those after the solution's move on its path
        nodes_expanded=int,            # nodes whose children were generated
        iterations=int,                # cost bounds tried (the last one included)
    )

- ``start``: one validated state, ``uint8`` array of shape ``(L,)``.
- ``max_nodes``: ``int`` or ``None`` (unlimited). Once more than ``max_nodes`` nodes have been
  generated without a solution the kernel stops with ``"node-limit"`` (it may overshoot by a
  small chunk of nodes).
- ``deadline_s``: ``float`` or ``None`` (unlimited): an ABSOLUTE point in time on the
  ``time.monotonic()`` clock (Linux ``CLOCK_MONOTONIC``). Past it the kernel stops with
  ``"timeout"``; it must notice within about a second (e.g. return to Python every 2^20 nodes
  with a resumable search, or read the clock every 2^16 nodes).
- The search must be optimal with an admissible heuristic (move pruning may only drop paths
  that another pruned-in path of equal length replaces).

A kernel module also defines ``warmup(puzzle, spec) -> None``, which compiles its Numba
functions (the tiles' by a search from a state one move from the goal); :class:`IDAStar` calls
it once per family, heuristic kind and puzzle in a process.
"""

from __future__ import annotations

import importlib
import inspect
import time
from types import ModuleType
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.base import Heuristic, IdaSpec, checked_values
from puzzles.base import Puzzle
from solvers.base import Solver, SolveResult, finish, require_heuristic
from solvers.memory import PeakMemory, touch_pages

#: (family, kind, puzzle name) triples whose kernels were compiled in this process
_WARM: set[tuple[str, str, str]] = set()

#: what an IDA* kernel may return (it never runs out of memory nor gives up without a proof)
_STATUSES = (Status.SOLVED, Status.TIMEOUT, Status.NODE_LIMIT, Status.UNSOLVABLE)


def kernel_module(family: str) -> ModuleType:
    """The ``solvers._ida_<family>`` module; ``InputError`` when there is none."""
    try:
        return importlib.import_module(f"solvers._ida_{family}")
    except ModuleNotFoundError as exc:
        if exc.name != f"solvers._ida_{family}":
            raise
        raise InputError(f"--solver ida: no IDA* kernel for the {family!r} family") from None


def check_start(puzzle: Puzzle, start: np.ndarray) -> np.ndarray:
    """Return ``start`` as a contiguous ``uint8`` array of shape ``(L,)``; validate it."""
    s = np.asarray(start)
    if s.shape != (puzzle.state_dim,):
        raise InputError(
            f"start: expected one {puzzle.name} state of shape ({puzzle.state_dim},), got {s.shape}"
        )
    if not np.issubdtype(s.dtype, np.integer):
        raise InputError(f"start: expected integer entries, got dtype {s.dtype}")
    s = np.ascontiguousarray(s, dtype=puzzle.dtype)
    puzzle.validate(s)
    return s


def _warm_up(module: ModuleType, puzzle: Puzzle, spec: IdaSpec) -> float:
    """Compile ``module``'s kernels for this (family, kind, puzzle) once; return the seconds spent."""
    key = (spec.family, spec.kind, puzzle.name)
    if key in _WARM:
        return 0.0
    t0 = time.perf_counter()
    module.warmup(puzzle, spec)  # every family module brings search() and warmup()
    _WARM.add(key)
    return time.perf_counter() - t0


class IDAStar(Solver):
    """Iterative-deepening A*: optimal with an admissible heuristic, memory linear in depth.
    ``threads`` > 1: each iteration's subtrees are searched by that many threads (kernels whose
    ``search`` takes ``threads``; see :mod:`solvers._ida_parallel`). ``order``: the order of
    those subtrees, ``actions`` (depth-first) or ``previous`` (most nodes in the previous
    iteration first, with one thread too; kernels whose ``search`` takes ``order``)."""

    name = "ida"

    def __init__(self, threads: int | None = None, order: str | None = None) -> None:
        # bounds, choices and defaults: the registry's entry, their one statement
        settings = registry.solver_entry(self.name).settings(
            {"threads": threads, "order": order}, "solver")
        self.threads = int(settings["threads"])
        self.order = str(settings["order"])

    def solve(
        self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, limits: Limits | None = None
    ) -> SolveResult:
        """Solve ``start`` (shape ``(L,)``) optimally; see the module docstring for the kernels."""
        limits = limits or Limits()
        require_heuristic(self.name, heuristic)
        spec = heuristic.ida_spec()
        if spec is None:
            raise InputError(
                f"--solver ida: ida needs a heuristic with a per-state kernel; {heuristic.name} "
                "has none, use bwas/astar/greedy"
            )
        start = check_start(puzzle, start)
        module = kernel_module(spec.family)
        parallel = self.threads > 1
        takes = inspect.signature(module.search).parameters
        if parallel and "threads" not in takes:
            raise InputError(f"--threads: the {spec.family} IDA* kernel searches in one thread; "
                             "use --threads 1")
        ordered = self.order != "actions"
        if ordered and "order" not in takes:
            raise InputError(f"--order: the {spec.family} IDA* kernel searches its subtrees in "
                             "action order; use --order actions")
        compile_s = _warm_up(module, puzzle, spec)
        # map the (memory-mapped) tables' pages now, so their page faults count as loading
        t_pages = time.perf_counter()
        touch_pages(spec.arrays)
        pages_s = time.perf_counter() - t_pages
        load_s = float(heuristic.load_seconds) + compile_s + pages_s
        h_start = float(checked_values(heuristic, start[None, :])[0])

        max_nodes = None if limits.nodes is None else int(limits.nodes)
        out: dict[str, Any]
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            if bool(puzzle.is_goal(start[None, :])[0]):
                out = dict(status="solved", actions=[], nodes_generated=0, nodes_expanded=0,
                           iterations=0)
            else:
                deadline = None if limits.time_s is None else time.monotonic() + limits.time_s
                kw: dict[str, Any] = {"threads": self.threads} if parallel else {}
                if ordered:
                    kw["order"] = self.order
                out = module.search(puzzle, spec, start, max_nodes, deadline, **kw)
            elapsed = time.perf_counter() - t0
        status = out["status"]
        if status not in _STATUSES:
            raise RuntimeError(f"IDA* kernel {spec.family} returned unknown status {status!r}")
        actions = [int(a) for a in out["actions"]] if status == "solved" else None
        return finish(
            puzzle, start, self.name, heuristic.name,
            status=Status(status),
            actions=actions, generated=out["nodes_generated"], expanded=out["nodes_expanded"],
            iterations=out["iterations"], h_start=h_start, time_s=elapsed, load_s=load_s,
            peak_rss_bytes=mem.peak_bytes,
            extra={"compile_s": compile_s, "pages_s": pages_s, "kernel": f"{spec.family}/{spec.kind}",
                   "threads": self.threads, "order": self.order,
                   "iteration_nodes": out.get("iteration_nodes")},
        )
