"""The table ``korf1982``, declared in :data:`TABLE` (what it reproduces: its ``summary``):
the published lengths (:data:`KORF1982`) and the code that builds each puzzle's macro table,
solves random states with it and sets the mean lengths beside the paper's."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench import report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    frame_rows,
    header,
    refuse_profile_and_run,
)

#: Korf (1982), Table 2: average number of primitive moves
KORF1982: dict[str, dict[str, int | None]] = {
            "puzzle8": {"optimal": 22, "macro": 39, "human": 38},
            "cube3-htm": {"optimal": None, "macro": 90, "human": 125}}
#: rows of our Table 2: (puzzle, goal layout, in the paper)
KORF1982_ROWS = [("puzzle8", "korf1982", True), ("cube3-htm", None, True),
                 ("cube3", None, False), ("cube2-htm", None, False), ("puzzle15", None, False)]


def korf1982(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path, command: str,
             count: int = 10_000, seed: int = 0) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame over ``count`` uniformly random states per puzzle."""
    from core import registry
    from core.limits import Limits
    from puzzles.exhaustive import has_table, table_distances
    from solvers.macro import MacroSolver, table_for

    solver = MacroSolver()
    zero = None
    rows = []
    for puzzle_name, goal, published in KORF1982_ROWS:
        puzzle = registry.get_puzzle(puzzle_name, goal=goal)
        zero = registry.get_heuristic("zero", puzzle)
        t0 = time.perf_counter()
        table = table_for(puzzle)
        load_s = time.perf_counter() - t0
        states = puzzle.random_states(count, np.random.default_rng(seed))
        lengths, times = [], []
        for s in states:
            r = solver.solve(puzzle, zero, s, Limits())
            if r.status != "solved" or r.length is None:
                raise RuntimeError(f"macro solver failed on a {puzzle_name} state: {r.status}")
            lengths.append(r.length)
            times.append(r.time_s)
        opt = table_distances(puzzle, states) if has_table(puzzle) else None
        paper: dict[str, int | None] = KORF1982.get(puzzle_name, {}) if published else {}
        rows.append({
            "puzzle": puzzle_name + (f" ({goal})" if goal else ""),
            "states": count,
            "macros": table.count, "longest macro": table.longest,
            "optimal (paper)": paper.get("optimal"),
            "optimal (ours)": None if opt is None else round(float(np.mean(opt)), 2),
            "macro solver (paper)": paper.get("macro"),
            "macro solver (ours)": round(float(np.mean(lengths)), 2),
            "longest solution (ours)": int(np.max(lengths)),
            "human (paper)": paper.get("human"),
            "ms per state (ours)": round(1000 * float(np.mean(times)), 3),
            "table load or build s": round(load_s, 1),
        })
    table_df = pd.DataFrame(rows)
    lines = header("Korf (1982) Table 2: average solution length of the macro problem solver",
                    command, [
                        f"{count:,} uniformly random states per puzzle (seed {seed}); every "
                        "solution replayed. Moves are the paper's primitive moves: blank moves on "
                        "the 8-puzzle (its goal 1 2 3 / 8 B 4 / 7 6 5, order B 1 2 3 8 7 4 5 6), "
                        "the eighteen quarter and half twists on the cube (`cube3-htm`). Optimal "
                        "8-puzzle lengths come from the exact table. The paper's table has 238 "
                        "cube macros of at most 16 moves; `macros` and `longest macro` give ours. "
                        "Rows the paper does not have are ours only (`-` where it has no figure)."])
    lines += [report.markdown_table(frame_rows(table_df)), ""]
    return "\n".join(lines), table_df


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    assert req.count is not None
    return korf1982(None, req.limit, req.jobs, req.dest, req.command, count=req.count)


TABLE = PaperTable(
    name="korf1982",
    summary="Korf (1982), Table 2: the macro problem solver's mean solution length on random "
            "states (8-puzzle 39 on the paper's layout, the cube 90 in the half-turn metric), "
            "beside optimal (8-puzzle 22) and human (38, 125), with each macro table's size "
            "and longest macro; also the quarter-turn cube, the 2x2x2 and the 15-puzzle, ours "
            "only.",
    make=_make, check=refuse_profile_and_run, runs="none", count=10_000,
    instances="uniformly random states per puzzle (seed 0)",
    published=("bench.papers.korf1982:KORF1982",),
    method=("table-driven solvers", "solvers/table-driven.md#macro-operators"),
)
