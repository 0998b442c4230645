"""Model evaluation as a suite: one learned model, one solver, a fixed set of start states.

``bench train evaluate`` builds a suite for its arguments (``evaluation_suite``), writes its
file into a run folder and runs it with the suite runner (the same planning, rows, replay checks, reference optima and resumability as
``bench run suite``), then prints a one-line summary. The file is kept, so the evaluation can
be resumed or repeated with ``bench run suite RUN/evaluate.toml``.

Start-state sets (``state_set``): ``deepcubea`` (DeepCubeA's test set for the puzzle, the first
``count``), ``uniform`` (``count`` uniform random states, fixed seed), ``scramble:D`` (``count``
random walks of ``D`` moves). Reference optima follow ``suites.reference.auto_rule``: a distance
table, GF(2) on Lights Out, or IDA* with ``optimal_heuristic`` when one is given.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from core import registry
from core.errors import InputError
from core.paths import checkout_relative
from core.resolve import resolve
from core.status import Status
from suites.schema import ConfigSpec, InstanceSetSpec, Profile, Suite, check_suite

SUITE_FILE = "evaluate.toml"


def model_heuristic(puzzle: str, model: str | None) -> str:
    """The heuristic that reads ``model``: ``policy`` for a move-prediction network, ``qnet``
    for a Q-network, else ``value-net`` (a distance estimate; the shipped model when ``model``
    is None)."""
    if model is None:
        return registry.VALUE_NET
    from learning.checkpoint import load_checkpoint
    from learning.model_store import resolve_model
    from learning.targets import network_heuristic

    return network_heuristic(load_checkpoint(resolve_model(puzzle, model))["target"])


def evaluation_suite(path: Path, puzzle: str, model: str | None, state_set: str, count: int,
                     seed: int, solver: str, solver_args: dict[str, Any], precision: str,
                     time_limit: float | str | None, node_limit: int | str | None,
                     optimal_heuristic: str | None) -> Suite:
    """The suite of one evaluation, to be kept as ``path`` (checked like a suite file): its one
    configuration resolved from the arguments as ``bench solve`` resolves its own
    (``core.resolve.resolve``; ``solver_args`` and the limits as given on the command line or
    as values)."""
    hargs: dict[str, Any] = {"precision": precision}
    if model is not None:
        # a file or folder: inside the checkout by its path there (the rows name no machine's
        # path, and the model store finds it from any folder), elsewhere by its absolute path
        hargs["model"] = (checkout_relative(model) or str(Path(model).resolve())) \
            if Path(model).exists() else model
    heuristic = model_heuristic(puzzle, model)
    if registry.ranks_moves(heuristic) and not registry.takes_policy(solver):
        users = "/".join(n for n in registry.SOLVERS if registry.takes_policy(n))
        raise InputError(f"--solver: the model is a policy (it ranks moves, gives no distance); "
                         f"it is searched with {users}, not {solver}")
    resolved = resolve(puzzle, heuristic, hargs, solver, solver_args,
                       {"time_s": time_limit, "nodes": node_limit})
    from suites.reference import auto_rule

    p = registry.get_puzzle(puzzle)
    rule = auto_rule(p, optimal_heuristic)
    if state_set == "deepcubea":
        inst = InstanceSetSpec(name="states", source="deepcubea", optimal=rule)
    elif state_set == "uniform":
        inst = InstanceSetSpec(name="states", source="uniform", count=count, seed=seed,
                               optimal=rule)
    elif state_set.startswith("scramble:"):
        try:
            depth = int(state_set.split(":", 1)[1])
        except ValueError:
            raise InputError(f"--set: expected scramble:DEPTH, got {state_set!r}") from None
        inst = InstanceSetSpec(name="states", source="scramble", depth=(depth,), count=count,
                               seed=seed, optimal=rule)
    else:
        raise InputError(f"--set: expected deepcubea, uniform or scramble:DEPTH, got {state_set!r}")
    cfg = ConfigSpec.from_resolved("model", resolved)
    profile = Profile(name="evaluate", limit=count,
                      description="the first COUNT states of the set")
    return check_suite(Suite(
        name="evaluate-" + puzzle, puzzle=puzzle, path=path, description="",
        instance_sets={inst.name: inst}, configs={cfg.name: cfg},
        limits=resolved.limits, profiles={profile.name: profile}))


#: the first line of an evaluation's suite file
COMMENT = "bench train evaluate: one learned model, one solver, fixed start states"


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
    from bench.columns import optimal_share

    known = df["optimal"].notna() if "optimal" in df else pd.Series(False, index=df.index)
    if known.any():
        out["optimal"] = optimal_share(df).pct / 100  # the reports' % optimal, as a share
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
    from bench.run_table import committed_table

    table = committed_table(Path(run_dir))
    if table is None:
        raise ValueError(f"{run_dir}: no results.csv")
    df = pd.read_csv(table)
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
