"""The worker side of a run: one task (instance x configuration) solved, its path replayed.

``solve_task`` runs in the executor's worker processes (``bench.executor``); the puzzle and
heuristic of a configuration are loaded once per worker (a small LRU cache). ``prepare_task``
builds or loads what a configuration needs before its tasks run.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Any, cast

import numpy as np

from core.capabilities import Policy
from core.limits import LOAD_EVAL_S, Limits, evaluation_deadline, grace_s
from core.rows import Row, TaskPayload
from core.status import Status

_HEURISTICS: OrderedDict[tuple[Any, ...], tuple[Any, Any]] = OrderedDict()
_MAX_HEURISTICS = 2  # heavy objects kept per worker


def payload_key(p: TaskPayload) -> tuple[Any, ...]:
    return (p["puzzle"], p.get("goal"), p["heuristic"],
            json.dumps(p.get("heuristic_args", {}), sort_keys=True))


def _objects(p: TaskPayload) -> tuple[Any, Any]:
    """``(puzzle, heuristic)`` for a payload, loaded once per worker (a small LRU cache)."""
    from core import registry

    key = payload_key(p)
    if key in _HEURISTICS:
        _HEURISTICS.move_to_end(key)
        return _HEURISTICS[key]
    while len(_HEURISTICS) >= _MAX_HEURISTICS:
        _HEURISTICS.popitem(last=False)
    puzzle = registry.get_puzzle(p["puzzle"], goal=p.get("goal"))
    t0 = time.perf_counter()
    # a network that does not return while loading is stopped (within the task's time limit)
    with evaluation_deadline(LOAD_EVAL_S), \
            evaluation_deadline((p.get("limits") or {}).get("time_s")):
        h = registry.get_heuristic(p["heuristic"], puzzle, **p.get("heuristic_args", {}))
        if isinstance(h, Policy):  # force lazy loads / compilation now
            h.log_probs(puzzle.example()[None, :])
        else:
            h(puzzle.example()[None, :])
    if not h.load_seconds:
        h.load_seconds = time.perf_counter() - t0
    _HEURISTICS[key] = (puzzle, h)
    return puzzle, h


def prepare_task(payload: TaskPayload) -> Row:
    """Build or load what a configuration needs (PDB files, models) and report its size: the
    columns ``status`` (``ready``), ``heuristic_nbytes`` and ``load_s`` of a row."""
    _HEURISTICS.clear()
    puzzle, h = _objects(payload)
    from core import registry

    registry.get_solver(payload["solver"], **payload.get("solver_args", {}))
    out: Row = {"status": "ready", "heuristic_nbytes": int(h.nbytes),
                "load_s": float(h.load_seconds)}
    _HEURISTICS.clear()
    return out


def _prepare(payload: TaskPayload) -> None:
    _objects(payload)


def _solve(payload: TaskPayload) -> Row:
    """Solve one instance with one configuration; the returned path is replayed and checked."""
    from core import registry
    from solvers.base import replayed

    puzzle, h = _objects(payload)
    solver = registry.get_solver(payload["solver"], **payload.get("solver_args", {}))
    state = np.asarray(payload["state"], dtype=puzzle.dtype)
    lim = payload.get("limits", {})
    limits = Limits.from_dict(lim)
    seed = int(payload.get("seed", 0))
    np.random.seed(seed % 2**32)
    import sys

    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
    with evaluation_deadline(None if limits.time_s is None
                             else limits.time_s + grace_s(limits.time_s)):
        run = solver.run(puzzle, h, state, limits)
    result, fault = replayed(puzzle, state, run)
    record = result.to_dict()
    actions = record.pop("actions")
    row = cast(Row, record)  # the result columns of the row (core.rows.Row)
    if fault is not None:
        row["status"] = Status.INVALID.value
        row["error"] = fault
    row["actions"] = puzzle.format_moves(actions) if actions is not None else None
    row["extra"] = json.dumps(row.get("extra") or {}, default=str)
    row["heuristic_nbytes"] = int(h.nbytes)
    row["model_target"] = h.trained_target
    row["solver_nbytes"] = int((result.extra or {}).get("table_nbytes", 0))
    row["heuristic_load_s"] = float(h.load_seconds)
    return row


class SolveTask:
    """The task function of a run (``bench.executor.PreparedTask``): ``prepare`` loads the
    puzzle and the heuristic into the worker's cache, a call solves the task."""

    def __call__(self, payload: TaskPayload) -> Row:
        return _solve(payload)

    def prepare(self, payload: TaskPayload) -> None:
        _prepare(payload)


#: what a run's workers call (``"bench.run_worker:solve_task"``)
solve_task = SolveTask()

