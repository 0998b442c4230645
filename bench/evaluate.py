"""Model evaluation as a suite: one learned model, one solver, a fixed set of start states.

``bench train evaluate`` writes a suite file for its arguments into a run folder and runs it with
the suite runner (the same planning, rows, replay checks, reference optima and resumability as
``bench run suite``), then prints a one-line summary. The file is kept, so the evaluation can
be resumed or repeated with ``bench run suite RUN/evaluate.toml``.

Start-state sets (``state_set``): ``deepcubea`` (DeepCubeA's test set for the puzzle, the first
``count``), ``uniform`` (``count`` uniform random states, fixed seed), ``scramble:D`` (``count``
random walks of ``D`` moves). Reference optima follow ``suites.reference.auto_rule``: a distance
table, GF(2) on Lights Out, or IDA* with ``optimal_heuristic`` when one is given.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from core import registry
from core.errors import InputError
from core.status import Status

SUITE_FILE = "evaluate.toml"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def model_heuristic(puzzle: str, model: str | None) -> str:
    """The heuristic that reads ``model``: ``policy`` for a move-prediction network, else
    ``davi`` (a distance estimate; the shipped model when ``model`` is None)."""
    if model is None:
        return "davi"
    from learning.checkpoint import load_checkpoint
    from learning.model_store import resolve_model

    return "policy" if load_checkpoint(resolve_model(puzzle, model))["target"] == "policy" else "davi"


def suite_text(puzzle: str, model: str | None, state_set: str, count: int, seed: int,
               solver: str, solver_args: dict[str, Any], precision: str,
               time_limit: float | None, node_limit: int | None,
               optimal_heuristic: str | None) -> str:
    """The suite file of one evaluation (checked when it is loaded)."""
    from suites.reference import auto_rule

    p = registry.get_puzzle(puzzle)
    rule = auto_rule(p, optimal_heuristic)
    inst: dict[str, Any] = {"name": "states", "optimal": rule}
    if state_set == "deepcubea":
        inst.update(source="deepcubea")
    elif state_set == "uniform":
        inst.update(source="uniform", count=count, seed=seed)
    elif state_set.startswith("scramble:"):
        try:
            depth = int(state_set.split(":", 1)[1])
        except ValueError:
            raise InputError(f"--set: expected scramble:DEPTH, got {state_set!r}") from None
        inst.update(source="scramble", depth=[depth], count=count, seed=seed)
    else:
        raise InputError(f"--set: expected deepcubea, uniform or scramble:DEPTH, got {state_set!r}")
    hargs: dict[str, Any] = {"precision": precision}
    if model is not None:
        hargs["model"] = str(Path(model).resolve()) if Path(model).exists() else model
    heuristic = model_heuristic(puzzle, model)
    if registry.ranks_moves(heuristic) and not registry.takes_policy(solver):
        users = "/".join(n for n in registry.SOLVERS if registry.takes_policy(n))
        raise InputError(f"--solver: the model is a policy (it ranks moves, gives no distance); "
                         f"it is searched with {users}, not {solver}")
    limits = {k: v for k, v in (("time_s", time_limit), ("nodes", node_limit)) if v is not None}
    cfg: dict[str, Any] = {"name": "model", "heuristic": heuristic, "solver": solver,
                           "heuristic_args": hargs}
    if solver_args:
        cfg["solver_args"] = solver_args
    lines = ["# bench train evaluate: one learned model, one solver, fixed start states",
             "[suite]", f"name = {_toml('evaluate-' + puzzle)}", f"puzzle = {_toml(puzzle)}", ""]
    if limits:
        lines += ["[limits]", *(f"{k} = {_toml(v)}" for k, v in limits.items()), ""]
    lines += ["[[instances]]", *(f"{k} = {_toml(v)}" for k, v in inst.items()), ""]
    lines += ["[[configs]]", *(f"{k} = {_toml(v)}" for k, v in cfg.items()), ""]
    lines += ["[profiles.evaluate]", f"limit = {count}",
              'description = "the first COUNT states of the set"', ""]
    return "\n".join(lines)


def run_evaluation(suite_path: Path, run_dir: Path, resume: bool = False,
                   progress: bool = True) -> pd.DataFrame:
    """Run the ``evaluate`` profile of ``suite_path`` in this process; the rows as a table."""
    from bench import runner
    from bench.executor import InlineExecutor
    from suites.schema import load_suite

    suite = load_suite(suite_path)
    plan = runner.plan_run(suite, "evaluate")
    runner.run_plan(plan, run_dir, executor=InlineExecutor(), resume=resume, progress=progress)
    return runner.load_table(run_dir)


def summarize(df: pd.DataFrame) -> dict[str, Any]:
    """Share solved, share optimal (of the states with a known optimum), mean length, nodes and
    seconds of the solved states."""
    solved = df["status"] == Status.SOLVED.value
    out: dict[str, Any] = {
        "states": int(len(df)),
        "solved": float(solved.mean()) if len(df) else math.nan,
        "mean_length": float(df.loc[solved, "length"].mean()) if solved.any() else None,
        "mean_nodes": float(df.loc[solved, "nodes_generated"].mean()) if solved.any() else None,
        "mean_time_s": float(df.loc[solved, "time_s"].mean()) if solved.any() else None,
    }
    known = df["optimal"].notna() if "optimal" in df else pd.Series(False, index=df.index)
    if known.any():
        opt = solved & known & (df["length"] == df["optimal"])
        out["optimal"] = float(opt.sum() / known.sum())
        out["mean_optimal_length"] = float(df.loc[known, "optimal"].mean())
    else:
        out["optimal"] = None
    return out


def evaluation_from_run(run_dir: str | Path, config: str, instance_set: str | None = None,
                        **settings: Any) -> dict[str, Any]:
    """A model-card summary of configuration ``config`` in suite run ``run_dir`` (optimal
    lengths from the instance set or from an optimal-by-construction configuration of the same
    run), with ``set``, ``solver`` and the search ``settings`` (``width=...``, ``time_limit=...``)
    added."""
    from bench.report import with_reference_optima

    df = pd.read_csv(Path(run_dir) / "results.csv")
    df = with_reference_optima(df)
    rows = df[df["config"] == config]
    if instance_set is not None:
        rows = rows[rows["instance_set"] == instance_set]
    if rows.empty:
        raise ValueError(f"{run_dir}: no rows of configuration {config!r}")
    out = summarize(rows)
    out["set"] = instance_set or ",".join(sorted(rows["instance_set"].unique()))
    out["solver"] = str(rows["solver"].iloc[0])
    out["run"] = str(run_dir)
    out.update(settings)
    return out
