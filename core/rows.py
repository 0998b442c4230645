"""The row: the record of one (instance, configuration) of a suite run, shared by the runner
(which plans and finishes rows), the executor (which reports failed workers as rows) and the
reports (which read them back from ``rows.jsonl`` and the derived tables).

A row is a JSON object; :class:`Row` types its columns and :data:`COLUMNS` says what each holds.
Columns come in four groups: planned (known before the search), result (from the solver),
record (added when the row is written) and provenance (the machine and versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

from core.limits import LimitsRecord
from core.status import Status


class TaskPayload(TypedDict):
    """One task of a run as the runner plans it (``bench.runner.plan_run``, built by
    ``core.resolve.task_payload``) and a worker runs it (``bench.run_worker.solve_task``): the
    configuration, the start state, the limits and the seed. Its digest is the row's
    ``fingerprint`` (``bench.runner.task_fingerprint``)."""

    puzzle: str
    goal: str | None
    heuristic: str
    heuristic_args: dict[str, Any]
    solver: str
    solver_args: dict[str, Any]
    state: list[int]
    limits: LimitsRecord
    seed: int


class Row(TypedDict, total=False):
    """A row's columns (:data:`COLUMNS` says what each holds), and each part of one as it
    crosses the runner: the planned columns (``bench.executor.Task.meta``), a worker's result
    (``bench.run_worker.solve_task``, :func:`failure`, what an executor hands its
    ``ResultCallback``), the finished row ``rows.jsonl`` holds (``bench.run_record``)."""

    # planned
    key: str
    fingerprint: str
    suite: str
    profile: str
    instance_set: str
    instance: str
    config: str
    puzzle: str
    goal: str | None
    heuristic: str
    solver: str
    params: str
    model_sha256: str | None
    model_target: str | None
    tables_sha256: str | None
    seed: int
    optimal: int | None
    optimal_source: str | None
    lower_bound: int | None
    lower_bound_from: str | None
    scramble_depth: int | None
    published_length: int | None
    published_nodes: int | None
    solver_nodes: int | None
    solver_s: float | None
    limit_time_s: float | None
    limit_nodes: int | None
    limit_memory_mb: int | None
    # result
    status: str
    actions: str | None
    length: int | None
    nodes_generated: int
    nodes_expanded: int
    network_evaluations: int | None
    iterations: int
    h_start: float | None
    time_s: float
    load_s: float
    peak_rss_bytes: int
    worker_peak_rss_bytes: int
    loaded_bytes: int
    extra: str
    heuristic_nbytes: int
    solver_nbytes: int
    heuristic_load_s: float
    error: str
    traceback: str
    # record
    state: str
    finished_at: str
    # provenance
    host: str
    git_rev: str | None
    git_dirty: bool | None
    git_diff_sha256: str | None
    date: str
    cpu: str
    cpu_score: float | None
    gpu: str | None
    v_numpy: str | None
    v_numba: str | None
    v_torch: str | None


COLUMNS: dict[str, str] = {
    "key": "instance set / instance / configuration: the row's identity in its run",
    "fingerprint": "digest of the task (state, configuration, limits, seed); a resume refuses "
                   "rows whose task changed",
    "suite": "suite name", "profile": "profile name",
    "instance_set": "instance set", "instance": "instance id within its set",
    "config": "configuration name", "puzzle": "puzzle name",
    "goal": "goal layout (sliding tiles) or null",
    "heuristic": "heuristic name", "solver": "solver name",
    "params": "the configuration's heuristic and solver arguments (JSON)",
    "model_sha256": "digest of the model files a learned heuristic loaded (part of the "
                    "fingerprint: a resume after the weights changed refuses the rows); null "
                    "for heuristics without a model and in rows made before it was recorded",
    "model_target": "what the network of a learned heuristic was trained on (davi, diffusion, "
                    "policy; an ONNX card's target); null for heuristics without a network, "
                    "for an ONNX card that names none and in rows made before it was recorded",
    "tables_sha256": "digest of the pattern-database tables a PDB heuristic read (over the "
                     "checksums the store records in each table file; a resume after the tables "
                     "changed refuses the rows); null for heuristics without tables and in rows "
                     "made before it was recorded",
    "seed": "random seed of the task",
    "optimal": "reference optimal length, or null where none is known",
    "optimal_source": "where the reference optimal length comes from (DeepCubeA's optimal "
                      "solver, an instance file, a rule such as gf2 or ida:HEURISTIC), or null",
    "lower_bound": "certified lower bound on the optimal length: the value of lower_bound_from "
                   "at the start state, rounded up (a solved row shorter than it is invalid); "
                   "null where no bound is known, or where lower_bound_from is infinite there "
                   "(a dead Sokoban state: no solution exists); absent in rows made before "
                   "bounds were recorded (suites.reference.bounds_for_states fills them)",
    "lower_bound_from": "the admissible heuristic that gave lower_bound (the strongest the puzzle "
                        "declares whose tables were at hand: core.registry, bounds), or null "
                        "where none applied",
    "scramble_depth": "moves of the scramble that made the instance, or null",
    "published_length": "the length a paper reports for this instance, or null",
    "published_nodes": "the nodes a paper reports for this instance, or null",
    "solver_nodes": "nodes generated by the optimal solver that made the instance's reference "
                    "optimum (DeepCubeA's pickles), or null",
    "solver_s": "seconds that optimal solver took on the instance (as published), or null",
    "limit_time_s": "time limit (s)", "limit_nodes": "node limit",
    "limit_memory_mb": "the worker's memory budget (MiB)",
    "status": "how the task ended: " + ", ".join(s.value for s in Status),
    "actions": "the solution's moves, or null",
    "length": "solution length (null unless solved)",
    "nodes_generated": "nodes generated", "nodes_expanded": "nodes expanded (states whose "
    "children were generated)",
    "network_evaluations": "states a learned heuristic's network evaluated in the search (a "
                           "value network: one per child it scores; a policy: one per expanded "
                           "state; a multi-goal model: one per state and goal network); null "
                           "for heuristics without a network",
    "iterations": "search iterations (IDA* bounds, BWAS batches, beam layers)",
    "h_start": "heuristic value of the start state",
    "time_s": "search seconds (loading excluded; on a timeout, crash or out-of-memory row, how "
              "long the search ran before it was stopped)", "load_s": "loading seconds in the search",
    "peak_rss_bytes": "peak memory of the search itself: the process's resident high-water "
                      "mark during the search over its resident size when the search began "
                      "(free allocator pages handed back first), so the search's arrays, a "
                      "network's activations and Numba's allocations count; plus the goal table "
                      "a beam built for it (solvers.memory); tables and weights loaded before "
                      "are loaded_bytes. On a row the watchdog made (out-of-memory, timeout, "
                      "crash) after the search started: the worker's growth since, as far as it "
                      "was sampled; absent in rows of searches that never started",
    "worker_peak_rss_bytes": "the highest resident size of the whole worker process (tables, "
                             "weights and the search together) its watchdog sampled while it "
                             "held the task; absent in rows of the inline executor",
    "loaded_bytes": "bytes of what the search loaded and read, apart from peak_rss_bytes: the "
                    "heuristic's tables and weights (heuristic_nbytes) plus a table-driven "
                    "solver's tables (solver_nbytes); absent in rows made before it was "
                    "recorded",
    "extra": "solver-specific figures (JSON)",
    "heuristic_nbytes": "memory the heuristic holds (tables, weights)",
    "solver_nbytes": "memory a table-driven solver's own tables hold (macro, local value tables)",
    "heuristic_load_s": "seconds to load or build the heuristic",
    "error": "what went wrong (failed rows)", "traceback": "the last frames of an exception",
    "state": "the start state, as space-separated values",
    "finished_at": "UTC time the row was written",
    "host": "machine that ran the search (a Dask worker's host on a cluster)",
    "git_rev": "commit of the code (``-dirty`` when the tree had uncommitted changes)",
    "git_dirty": "whether the checkout's tracked files differed from git_rev's commit when the "
                 "run began (reports flag such rows: their code is in no commit); null where git "
                 "could not tell, and in rows made before it was recorded",
    "git_diff_sha256": "digest of the uncommitted changes (sha256 of ``git diff HEAD --binary``, "
                       "16 hex digits; rows with one digest ran the same code), null for a clean "
                       "tree",
    "date": "date of the run's provenance record",
    "cpu": "processor (the worker's, on a cluster)",
    "cpu_score": "millions of float64 values one core of the run's machine sorted per second "
                 "when the run began (rows of runs whose scores differ were timed on machines "
                 "of different speed); null in rows made before it was recorded",
    "gpu": "GPU or null",
    "v_numpy": "numpy version", "v_numba": "numba version", "v_torch": "torch version",
}

#: the provenance columns copied into every row
PROVENANCE: tuple[str, ...] = ("git_rev", "git_dirty", "git_diff_sha256", "date", "cpu",
                                "cpu_score", "gpu", "v_numpy", "v_numba", "v_torch")
#: the columns every report aggregate reads (missing ones count as unknown)
REPORTED: tuple[str, ...] = ("status", "length", "optimal", "nodes_generated", "time_s",
                             "peak_rss_bytes", "heuristic_nbytes")


def failure(status: Status, error: str, **more: Any) -> Row:
    """The result part of a row for a task that ended without a solver's result (``more``:
    other result columns, such as ``time_s``)."""
    return cast(Row, {"status": status.value, "error": error, **more})


#: columns that count something (a row's value: a non-negative integer, or null)
COUNT_COLUMNS: tuple[str, ...] = ("length", "nodes_generated", "nodes_expanded",
                                  "network_evaluations", "iterations", "peak_rss_bytes",
                                  "heuristic_nbytes", "solver_nbytes")
#: columns of seconds (a row's value: a finite number >= 0, or null)
SECONDS_COLUMNS: tuple[str, ...] = ("time_s", "load_s", "heuristic_load_s")
STATUSES = frozenset(s.value for s in Status)


def row_problem(row: Mapping[str, Any], nan_is_missing: bool = False) -> str | None:
    """What is wrong with a row read back (``rows.jsonl``, a derived table), or ``None``: its
    status is not one of :class:`Status`, it names no configuration, a count is negative or not
    an integer, a time is negative or not finite. ``nan_is_missing``: a NaN stands for an empty
    cell (a CSV table), not for a value."""
    import math

    status = row.get("status")
    if status not in STATUSES:
        return f"status {status!r} is not one of {', '.join(sorted(STATUSES))}"
    config = row.get("config")
    if not isinstance(config, str) or not config:
        return f"config {config!r} is not a configuration's name"
    for col in (*COUNT_COLUMNS, *SECONDS_COLUMNS):
        v = row.get(col)
        if v is None or (nan_is_missing and isinstance(v, float) and math.isnan(v)):
            continue
        count = col in COUNT_COLUMNS
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                or v < 0 or (count and v != int(v)):
            what = "a non-negative integer" if count else "a finite number of seconds >= 0"
            return f"{col} {v!r} is not {what}"
    if status == Status.SOLVED.value and row.get("length") is None:
        return "a solved row without a length"
    return None
