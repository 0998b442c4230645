"""How well a learned heuristic solves: a solver (BWAS by default) on a fixed set of start states.

Start-state sets (``state_set``):

``deepcubea``
    the first ``count`` states of DeepCubeA's test set for the puzzle (``$BENCH_SHARED/data/
    deepcubea/<puzzle>/test_data_0.pkl``), converted to ours.
``uniform``
    ``count`` states drawn uniformly (``Puzzle.random_states``) with a fixed seed.
``scramble:D``
    ``count`` random walks of ``D`` moves from the goal (``Puzzle.scramble``), fixed seed.

Reference optimal lengths, where they can be had here: the exhaustive tables of cube2 and the
8-puzzle, the exact GF(2) solver on Lights Out, and IDA* with an admissible heuristic given by
``optimal_heuristic`` (e.g. ``pdb-663`` on the 15-puzzle); otherwise None (no share optimal).
Every solved path is replayed by the solver (``solvers.base.verified``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from core import registry
from core.errors import InputError
from core.limits import Limits
from puzzles.base import Puzzle


def start_states(puzzle: Puzzle, state_set: str, count: int, seed: int = 0) -> np.ndarray:
    """``(count, L)`` start states of ``state_set`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    if state_set == "deepcubea":
        from core.paths import deepcubea_dir
        from suites.importers.deepcubea import load_test_set
        from suites.sources import deepcubea_states

        path = deepcubea_dir() / puzzle.name / "test_data_0.pkl"
        if not path.is_file():
            raise InputError(f"--set: no DeepCubeA test set for {puzzle.name} at {path}")
        ts = load_test_set(path)
        return deepcubea_states(puzzle, ts.kind, ts.states[:count])
    if state_set == "uniform":
        return puzzle.random_states(count, rng)
    if state_set.startswith("scramble:"):
        try:
            depth = int(state_set.split(":", 1)[1])
        except ValueError:
            raise InputError(f"--set: expected scramble:DEPTH, got {state_set!r}") from None
        return puzzle.scramble(count, depth, rng)[0]
    raise InputError(f"--set: expected deepcubea, uniform or scramble:DEPTH, got {state_set!r}")


def optimal_lengths(puzzle: Puzzle, states: np.ndarray, optimal_heuristic: str | None = None,
                    time_limit: float | None = 600.0) -> np.ndarray | None:
    """Optimal solution lengths ``(n,)`` (-1 where not found), or None when none can be had."""
    from puzzles.exhaustive import table_distances

    exact = table_distances(puzzle, states)
    if exact is not None:
        return exact
    if hasattr(puzzle, "optimal_lengths"):
        return np.asarray(puzzle.optimal_lengths(states), dtype=np.int64)
    if optimal_heuristic is None:
        return None
    h = registry.get_heuristic(optimal_heuristic, puzzle)
    ida = registry.get_solver("ida")
    out = []
    for s in states:
        r = ida.solve(puzzle, h, s, Limits(time_s=time_limit))
        out.append(r.length if r.status == "solved" else -1)
    return np.array(out, dtype=np.int64)


def evaluate(puzzle: Puzzle, heuristic: Any, states: np.ndarray, solver: str = "bwas",
             weight: float | None = None, batch: int | None = None, node_limit: int | None = None,
             time_limit: float | None = None, optimal: np.ndarray | None = None,
             progress: bool = False, width: int | None = None,
             max_depth: int | None = None) -> pd.DataFrame:
    """One row per start state: status, length, optimal, nodes, seconds."""
    from tqdm import tqdm

    s = registry.get_solver(solver, weight=weight, batch=batch, width=width,
                            max_depth=max_depth)
    limits = Limits(time_s=time_limit, nodes=node_limit)
    rows = []
    for i, state in enumerate(tqdm(states, disable=not progress, desc=f"{solver} {puzzle.name}")):
        t0 = time.perf_counter()
        r = s.solve(puzzle, heuristic, state, limits)
        rows.append({
            "index": i, "status": r.status, "length": r.length,
            "optimal": None if optimal is None or optimal[i] < 0 else int(optimal[i]),
            "nodes_generated": r.nodes_generated, "time_s": r.time_s,
            "wall_s": time.perf_counter() - t0, "h_start": r.h_start,
        })
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> dict[str, Any]:
    """Share solved, share optimal (of all states with a known optimum), mean length and nodes."""
    solved = df["status"] == "solved"
    out: dict[str, Any] = {
        "states": int(len(df)),
        "solved": float(solved.mean()),
        "mean_length": float(df.loc[solved, "length"].mean()) if solved.any() else None,
        "mean_nodes": float(df.loc[solved, "nodes_generated"].mean()) if solved.any() else None,
        "mean_time_s": float(df.loc[solved, "time_s"].mean()) if solved.any() else None,
    }
    known = df["optimal"].notna()
    if known.any():
        opt = solved & known & (df["length"] == df["optimal"])
        out["optimal"] = float(opt.sum() / known.sum())
        out["mean_optimal_length"] = float(df.loc[known, "optimal"].mean())
    else:
        out["optimal"] = None
    return out
