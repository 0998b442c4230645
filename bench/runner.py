"""Run a suite: plan (instance x configuration) tasks, execute them, record every row.

The record of a run is ``RUN_DIR/rows.jsonl``: append-only, one JSON object per finished
(instance, configuration), each flushed and fsynced as it finishes, so an interrupted run loses
no finished row and ``resume`` skips them. ``results.parquet`` and ``results.csv`` are derived
from it (``derive_tables``); ``run.json`` records the suite, profile and provenance.

Each row carries the fingerprint of its task (instance, configuration, limits, seed), so a resume
after the suite file changed refuses, rather than mixes, rows made under other settings; a lock
file keeps two runs out of one folder.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from bench.executor import Executor, LocalExecutor, Task
from bench.provenance import ROW_FIELDS, provenance
from bench.run_record import (
    LOCK,
    ROWS,
    RUN_JSON,
    RowWriter,
    read_rows,
    read_run_json,
    run_lock,
    write_atomic,
)
from bench.run_table import (
    REPLAY_COLUMNS,
    derive_tables,
    invalid_replays,
    load_table,
    replay_solved,
    rows_frame,
    unreplayable_reason,
    write_tables,
)
from bench.run_worker import payload_key, prepare_task, solve_task
from core.errors import InputError
from core.limits import Limits
from core.paths import display_path
from core.resolve import task_payload
from core.rows import Row, TaskPayload
from core.status import FAILURE_STATUSES as _FAILURES
from core.status import Status
from suites.schema import ConfigSpec, InstanceSet, Suite
from suites.sources import load_instances

#: provenance columns a cluster executor reports per row (the worker's machine); otherwise
#: this machine's
WORKER_FIELDS = ("host", "cpu", "cpu_score")
FAILURE_STATUSES = tuple(str(s) for s in _FAILURES)
#: the names callers use as ``runner.NAME``: this module's own, and those of the run's record
#: (``bench.run_record``), table (``bench.run_table``) and worker side (``bench.run_worker``)
__all__ = [
    "FAILURE_STATUSES", "LOCK", "REPLAY_COLUMNS", "ROWS", "RUN_FILES", "RUN_JSON", "WORKER_FIELDS",
    "Plan", "RowWriter", "RunSummary", "default_run_dir", "derive_tables", "fill_table_digests",
    "invalid_replays", "latest_run_dir", "load_table", "model_digest", "plan_fingerprint",
    "plan_run", "prepare_task", "read_rows", "read_run_json", "reference_disagreement",
    "refuse_finished_run_dir", "replay_solved", "row_key", "rows_frame", "run_lock", "run_plan",
    "solve_task", "table_digest", "task_fingerprint", "unreplayable_reason", "write_atomic",
    "write_tables",
]


# --------------------------------------------------------------------------- planning
@dataclass
class Plan:
    """Everything a run will do: the instance sets and one task per (instance, configuration)."""

    suite: Suite
    profile: str
    sets: dict[str, InstanceSet]
    configs: list[ConfigSpec]
    tasks: list[Task]


def row_key(instance_set: str, instance: str, config: str) -> str:
    return f"{instance_set}/{instance}/{config}"


def plan_run(suite: Suite, profile: str = "default", configs: Sequence[str] = (),
             limit: int | None = None, seed: int = 0) -> Plan:
    """Materialize the profile's instance sets and configurations into tasks (config-major)."""
    prof = suite.profile(profile)
    names = list(configs) or list(prof.configs or suite.configs)
    for n in names:
        if n not in suite.configs:
            raise InputError(f"--config: suite {suite.name} has no configuration {n!r}; "
                             f"known: {', '.join(suite.configs)}")
    chosen = [suite.configs[n] for n in names]
    set_names = list(prof.instance_sets or suite.instance_sets)
    n_per_set = limit if limit is not None else prof.limit
    sets: dict[str, InstanceSet] = {}
    for sname in set_names:
        if any(c.instance_sets is None or sname in c.instance_sets for c in chosen):
            sets[sname] = load_instances(suite, sname, limit=n_per_set)
            for inst in sets[sname].instances:
                _check_reference(inst.set, inst.id, inst.optimal, inst.meta)
    tasks: list[Task] = []
    for cfg in chosen:
        lim: Limits = suite.limits.merged(prof.limits).merged(cfg.limits)
        weights = model_digest(suite.puzzle, cfg.heuristic, cfg.heuristic_args)
        tables = table_digest(suite.puzzle, cfg.heuristic)
        for sname, iset in sets.items():
            if cfg.instance_sets is not None and sname not in cfg.instance_sets:
                continue
            for inst in iset.instances:
                # the set name a row records is the spec's (a fallback keeps its own name)
                set_label = inst.set
                payload = task_payload(suite.puzzle, iset.goal, cfg.heuristic,
                                       cfg.heuristic_args, cfg.solver, cfg.solver_args,
                                       [int(v) for v in inst.state], lim, seed)
                meta: Row = {
                    "suite": suite.name, "profile": profile, "instance_set": set_label,
                    "instance": inst.id, "config": cfg.name, "puzzle": suite.puzzle,
                    "goal": iset.goal, "heuristic": cfg.heuristic, "solver": cfg.solver,
                    "params": json.dumps(cfg.params(), sort_keys=True), "seed": seed,
                    "model_sha256": weights,
                    "tables_sha256": tables,
                    "optimal": inst.optimal,
                    "optimal_source": inst.meta.get("optimal_source") if inst.optimal is not None
                    else None,
                    # certified lower bound: row columns only, never in the payload (fingerprint)
                    "lower_bound": inst.meta.get("lower_bound"),
                    "lower_bound_from": inst.meta.get("lower_bound_from"),
                    "scramble_depth": inst.meta.get("depth"),
                    "published_length": inst.meta.get("published_length"),
                    "published_nodes": inst.meta.get("published_nodes"),
                    "solver_nodes": inst.meta.get("solver_nodes"),
                    "solver_s": inst.meta.get("solver_s"),
                    "limit_time_s": lim.time_s, "limit_nodes": lim.nodes,
                    "limit_memory_mb": lim.memory_mb,
                }
                tasks.append(Task(
                    key=row_key(set_label, inst.id, cfg.name), payload=payload,
                    time_s=lim.time_s,
                    memory_bytes=lim.memory_bytes, meta=meta,
                ))
    return Plan(suite, profile, sets, chosen, tasks)


def _check_reference(set_name: str, instance: str, optimal: Any, meta: Mapping[str, Any]) -> None:
    """``InputError`` naming an instance whose reference optimum is negative or below its
    certified lower bound (then true-optimal solutions would be marked invalid)."""
    if optimal is None:
        return
    bound, source = meta.get("lower_bound"), meta.get("lower_bound_from")
    if optimal < 0:
        raise InputError(f"instance {set_name}/{instance}: reference optimum {optimal} is "
                         "negative")
    if bound is not None and optimal < bound:
        raise InputError(f"instance {set_name}/{instance}: reference optimum {optimal} "
                         f"({meta.get('optimal_source') or 'instance set'}) is below the "
                         f"certified lower bound {bound} ({source} at the start state)")


def model_digest(puzzle: str, heuristic: str, hargs: dict[str, Any]) -> str | None:
    """A row's ``model_sha256``, checked beside its fingerprint on resume (a row made with
    other weights at the same path is a changed row): SHA-256 over the files of the model a
    learned heuristic loads (its checkpoint; a multi-goal model's tree and every goal's
    network), ``None`` for heuristics without a model or a model that cannot be found (the run
    then fails that configuration by name)."""
    from core import registry

    try:
        if not registry.heuristic_entry(heuristic).props.needs_model:
            return None
        files = registry.model_files(registry.heuristic_entry(heuristic), puzzle,
                                     hargs.get("model"))
        if not files:
            return None
    except (InputError, OSError):
        return None
    h = hashlib.sha256()
    try:
        for f in files:
            h.update(f.name.encode() + b"\0")
            with f.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    h.update(block)
    except OSError:
        return None
    return h.hexdigest()[:16]


def table_digest(puzzle: str, heuristic: str) -> str | None:
    """A row's ``tables_sha256``, checked beside its fingerprint on resume (a row made with other
    pattern-database tables than the cache holds now is a changed row): SHA-256 over each table's
    name and the checksum the store records in its file (the store verifies the data against it
    on load, so nothing is hashed here); ``None`` for heuristics without tables, or where a table
    is not stored yet (it is built before the search: :func:`fill_table_digests`)."""
    from pdb_builders import catalog
    from pdb_builders.store import DatabaseError, read_attrs

    try:
        entry = catalog.find(puzzle, heuristic)
        if entry is None:
            return None
        h = hashlib.sha256()
        for spec in entry.tables(puzzle):
            if not spec.exists():
                return None
            stored = read_attrs(spec.path).get("checksum")
            if not isinstance(stored, str) or not stored:
                return None
            h.update(f"{spec.key}\0{stored}\n".encode())
    except (DatabaseError, InputError, OSError):
        return None
    return h.hexdigest()[:16]


def fill_table_digests(tasks: Sequence[Task]) -> None:
    """Record ``tables_sha256`` in the tasks planned before their tables were built (once per
    puzzle and heuristic, after :func:`_prepare_configs` built them)."""
    known: dict[tuple[str, str], str | None] = {}
    for t in tasks:
        if t.meta.get("tables_sha256") is not None:
            continue
        k = (str(t.meta.get("puzzle")), str(t.meta.get("heuristic")))
        if k not in known:
            known[k] = table_digest(*k)
        t.meta["tables_sha256"] = known[k]


def task_fingerprint(payload: TaskPayload) -> str:
    """A digest of everything that decides a task's result (state, configuration, limits, seed);
    where a network evaluates (``heuristic_args.device``, ``bench run suite --device``) is left
    out, so a run may be resumed on another device."""
    from core import registry

    hargs = {k: v for k, v in (payload.get("heuristic_args") or {}).items() if k != "device"}
    h = payload.get("heuristic")  # a renamed heuristic hashes under its first name
    named = {"heuristic": registry.first_name(h)} if isinstance(h, str) else {}
    text = json.dumps({**payload, "heuristic_args": hargs, **named}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan_fingerprint(plan: Plan) -> str:
    """A digest of the resolved plan: every task key with its fingerprint."""
    h = hashlib.sha256()
    for t in sorted(plan.tasks, key=lambda t: t.key):
        h.update(f"{t.key}={task_fingerprint(t.payload)}\n".encode())
    return h.hexdigest()[:16]



def _finish_row(task: Task, result: Row, prov: Mapping[str, Any]) -> Row:
    """The row ``rows.jsonl`` records: the task's planned columns, the worker's result (a
    solution shorter than the reference optimum or the certified bound made invalid), the
    record and provenance columns."""
    row: dict[str, Any] = dict(task.meta)  # filled column by column, then returned as a Row
    row.update({k: v for k, v in result.items() if k not in ("heuristic", "solver")})
    row["key"] = task.key
    row["fingerprint"] = task_fingerprint(task.payload)
    row.setdefault("length", None)
    status = row.get("status")
    opt = row.get("optimal")
    if status == "solved" and opt is not None and row.get("length") is not None \
            and row["length"] < opt:
        row["status"] = Status.INVALID.value
        row["error"] = f"solution of length {row['length']} is shorter than the reference optimum {opt}"
    bound, bound_from = row.get("lower_bound"), row.get("lower_bound_from")
    if row.get("status") == "solved" and row.get("length") is not None and bound_from:
        if bound is not None and row["length"] < bound:
            row["status"] = Status.INVALID.value
            row["error"] = (f"solution of length {row['length']} is shorter than the lower bound "
                            f"{bound} ({bound_from} at the start state)")
        elif bound is None:  # the heuristic is infinite at the start: no solution exists
            row["status"] = Status.INVALID.value
            row["error"] = (f"solution of length {row['length']} for a start state that "
                            f"{bound_from} says has no solution (infinite value)")
    if row.get("status") != "solved":
        row["length"] = None
    row["state"] = " ".join(str(v) for v in task.payload["state"])
    row["finished_at"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    for k in ROW_FIELDS:
        row[k] = prov.get(k)
    for k in WORKER_FIELDS:  # where the executor reports the machine that ran the task
        row[k] = result.get(k) or prov.get(k)
    return cast(Row, row)


def default_run_dir(suite: str, profile: str, root: Path | None = None) -> Path:
    """``runs/SUITE-PROFILE-YYYYmmdd-HHMMSS``; where that name is taken (a run started in the same
    second), the first free of ``...-2``, ``...-3``, ... (the folder itself is made by the run)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = (root or Path("runs")) / f"{suite}-{profile}-{stamp}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def latest_run_dir(suite: str, profile: str, root: Path | None = None) -> Path | None:
    root = root or Path("runs")
    prefix = f"{suite}-{profile}-"

    def order(folder: Path) -> tuple[str, int]:  # "...-STAMP-10" after "...-STAMP-9"
        rest = folder.name[len(prefix):]
        stamp, sep, n = rest[:15], rest[15:16], rest[16:]
        return (stamp, int(n) if sep == "-" and n.isdigit() else 1)

    found = sorted(root.glob(f"{prefix}*"), key=order)
    return found[-1] if found else None


@dataclass
class RunSummary:
    run_dir: Path
    planned: int
    skipped: int
    ran: int
    statuses: Counter[str]


def run_plan(plan: Plan, run_dir: Path, executor: Executor | None = None, resume: bool = False,
             progress: bool = True, prepare: bool = True, rerun_changed: bool = False) -> RunSummary:
    """Execute ``plan`` into ``run_dir``; with ``resume`` skip rows already recorded there.

    A resume refuses a folder of another suite, and rows whose task changed since they were
    made (other instances, solver arguments, limits or seed), unless ``rerun_changed``: then
    those rows are run again (the newer row of a key wins in the tables)."""
    refuse_finished_run_dir(run_dir, resume)
    with run_lock(run_dir):
        refuse_finished_run_dir(run_dir, resume)  # again, now that no other run can write there
        return _run_plan_locked(plan, run_dir, executor, resume, progress, prepare, rerun_changed)


#: files of a finished run or of its committed copy (rows, tables, summary; a ``run.json``
#: alone is a run interrupted before its first row)
RUN_FILES = (ROWS, "results.csv", "results.parquet", "summary.md")


def refuse_finished_run_dir(run_dir: Path, resume: bool) -> None:
    """``InputError`` when a run would write over finished work in ``run_dir``: files committed
    to git (results folders: never, not even to resume), or, without ``resume``, the rows,
    tables or summary of a run."""
    from bench.provenance import tracked_files

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        return
    tracked = tracked_files(run_dir)
    if tracked:
        raise InputError(f"--out: {run_dir} holds committed results ({tracked[0]} is tracked by "
                         "git); choose another --out")
    if not resume:
        held = [f for f in RUN_FILES if (run_dir / f).exists()]
        if held:
            raise InputError(f"--out: {run_dir} already holds a run ({held[0]}); use --resume "
                             "or another --out")


def _check_resume(plan: Plan, run_dir: Path, rows: Sequence[Row],
                  meta: dict[str, Any] | None, rerun_changed: bool) -> set[str]:
    """The keys of rows to skip; refuses a folder of another suite or changed rows."""
    suites = {r.get("suite") for r in rows if r.get("suite") is not None}
    if meta and meta.get("suite") is not None:
        suites.add(meta.get("suite"))
    other = sorted(str(s) for s in suites if s != plan.suite.name)
    if other:
        raise InputError(f"--resume: {run_dir} holds a run of suite {', '.join(other)}, "
                         f"not {plan.suite.name}; use another --out")
    fps = {t.key: task_fingerprint(t.payload) for t in plan.tasks}
    weights = {t.key: t.meta.get("model_sha256") for t in plan.tasks}
    tables = {t.key: t.meta.get("tables_sha256") for t in plan.tasks}
    last = {r["key"]: r for r in rows}  # the last record of a key wins, as in the tables
    # a row records the digest of the model files it was made with (rows made before digests
    # were recorded have none, and resume as they did)
    other_weights = {k for k, r in last.items()
                     if k in weights and r.get("model_sha256") is not None
                     and r["model_sha256"] != weights[k]}
    # and of the pattern-database tables (compared where the cache holds them now: absent
    # tables are built again from the same definition)
    other_tables = {k for k, r in last.items()
                    if tables.get(k) is not None and r.get("tables_sha256") is not None
                    and r["tables_sha256"] != tables[k]}
    changed = other_weights | other_tables | {
        k for k, r in last.items()
        if k in fps and r.get("fingerprint") is not None and r["fingerprint"] != fps[k]}
    done = set(last) - changed
    if changed and not rerun_changed:
        why = (f" ({len(other_weights)} of them with other model weights than the model "
               "files hold now)" if other_weights else "")
        why += (f" ({len(other_tables)} of them with other pattern-database tables than the "
                "cache holds now)" if other_tables else "")
        raise InputError(f"--resume: {len(changed)} finished rows of {run_dir} were made with other "
                         "instances, configurations, models, limits or seed than the suite has "
                         f"now{why}; use --rerun-changed to run them again, or another --out")
    return done


def _run_plan_locked(plan: Plan, run_dir: Path, executor: Executor | None, resume: bool,
                     progress: bool, prepare: bool, rerun_changed: bool) -> RunSummary:
    rows_path = run_dir / ROWS
    if rows_path.exists() and not resume:
        raise InputError(f"--out: {run_dir} already holds a run; use --resume or another --out")
    meta = read_run_json(run_dir)
    done = _check_resume(plan, run_dir, read_rows(rows_path), meta, rerun_changed) \
        if resume else set()
    todo = [t for t in plan.tasks if t.key not in done]
    prov = provenance()
    if meta is None:  # damaged: the rows are the record, run.json is rebuilt
        (run_dir / RUN_JSON).replace(run_dir / f"{RUN_JSON}.damaged")
        meta = {}
    meta.update({
        "suite": plan.suite.name, "suite_file": display_path(plan.suite.path), "profile": plan.profile,
        "configs": [c.name for c in plan.configs],
        "instance_sets": {k: {"origin": s.origin, "count": len(s.instances), "goal": s.goal,
                              "citation": s.spec.citation}
                          for k, s in plan.sets.items()},
        "planned": len(plan.tasks),
        "fingerprint": plan_fingerprint(plan),
    })
    import sys

    sessions = meta.get("sessions")
    if not isinstance(sessions, list):
        sessions = meta["sessions"] = []
    executor = executor or LocalExecutor()
    sessions.append({**prov, "resumed": resume, "todo": len(todo), "profile": plan.profile,
                     "fingerprint": meta["fingerprint"],
                     "argv": [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv else [],
                     "executor": executor.describe()})
    try:
        write_atomic(run_dir / RUN_JSON, json.dumps(meta, indent=2, default=str))
        write_atomic(run_dir / "suite.toml", plan.suite.path.read_text())
    except OSError as exc:
        raise InputError(f"--out: cannot write to {run_dir}: {exc.strerror or exc}") from None

    statuses: Counter[str] = Counter()
    failed: dict[tuple[Any, ...], str] = {}
    if prepare and todo:
        failed = _prepare_configs(todo, run_dir, progress, executor)
        fill_table_digests(todo)
    writer = RowWriter(rows_path)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc=plan.suite.name, unit="run", dynamic_ncols=True)

    disagreements: list[str] = []

    def on_result(task: Task, result: Row) -> None:
        merged: Row = {**task.meta, **result}
        fault = reference_disagreement(merged)  # before an invalid length is cleared
        row = _finish_row(task, result, prov)
        writer.write(row)
        if fault:
            disagreements.append(fault)
        statuses[row["status"]] += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix({k: v for k, v in statuses.most_common()}, refresh=False)

    try:
        for t in todo:  # configurations that cannot load fail by name, without a search
            if payload_key(t.payload) in failed:
                on_result(t, {"status": "error", "error": failed[payload_key(t.payload)]})
        executor.run([t for t in todo if payload_key(t.payload) not in failed], on_result)
    finally:
        writer.close()
        if bar is not None:
            bar.close()
    if disagreements:
        more = f" (and {len(disagreements) - 1} more)" if len(disagreements) > 1 else ""
        raise InputError(f"reference optima: {disagreements[0]}{more}; the rows are kept in "
                         f"{rows_path}")
    return RunSummary(run_dir, len(plan.tasks), len(plan.tasks) - len(todo), len(todo), statuses)


def reference_disagreement(row: Mapping[str, Any]) -> str | None:
    """Why a finished row contradicts its instance's reference optimum or certified bound, or
    ``None``: a solution (replayed) shorter than the bound, or a configuration that is optimal
    by construction (IDA* or A* with an admissible heuristic, GF(2)) solved it at another
    length than the reference."""
    from bench.report import optimal_by_construction

    opt, length = row.get("optimal"), row.get("length")
    bound = row.get("lower_bound")
    if row.get("status") == "solved" and length is not None and bound is not None \
            and row.get("lower_bound_from") and int(length) < int(bound):
        # the path was replayed: the optimum is at most its length, so the bound is wrong
        return (f"{row.get('instance_set')}/{row.get('instance')}: {row.get('config')} solved "
                f"it at length {length} (its path replayed), below the certified lower bound "
                f"{bound} ({row.get('lower_bound_from')} at the start state)")
    if opt is None or length is None or row.get("status") != "solved" \
            or not optimal_by_construction(row):
        return None
    if int(length) == int(opt):
        return None
    return (f"{row.get('instance_set')}/{row.get('instance')}: {row.get('config')} "
            f"(optimal by construction) found length {length}, the reference "
            f"({row.get('optimal_source') or 'instance set'}) says {opt}")


def _prepare_configs(tasks: Sequence[Task], run_dir: Path, progress: bool,
                     executor: Executor | None = None) -> dict[tuple[Any, ...], str]:
    """Build or load each distinct heuristic once, in one worker, before the parallel run
    (the executor's ``preparer``: on a cluster, on its workers).

    This builds missing PDB files once (not once per worker, racing) and records sizes.
    Returns ``{heuristic key: error}`` for the heuristics that could not be loaded.
    """
    firsts: dict[tuple[Any, ...], Task] = {}
    for t in tasks:
        firsts.setdefault(payload_key(t.payload), t)
    prep = [Task(key=f"prepare/{t.meta['config']}", payload=t.payload, meta=t.meta)
            for t in firsts.values()]
    info: dict[str, Any] = {}
    failed: dict[tuple[Any, ...], str] = {}

    def on_result(task: Task, row: Row) -> None:
        info[task.meta["config"]] = row
        if row.get("status") != "ready":
            failed[payload_key(task.payload)] = f"cannot load {task.meta['heuristic']}: " \
                                          f"{row.get('error') or row.get('status')}"

    if progress:
        print(f"preparing {len(prep)} heuristic(s): "
              + ", ".join(sorted({t.meta['heuristic'] for t in prep})), flush=True)
    (executor or LocalExecutor()).preparer("bench.run_worker:prepare_task").run(prep, on_result)
    write_atomic(run_dir / "prepare.json", json.dumps(info, indent=2, default=str))
    if progress:
        for msg in failed.values():
            print(f"warning: {msg}", flush=True)
    return failed
