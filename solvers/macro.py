"""Korf's macro problem solver (``macro`` in the registry): no search at solve time.

For each piece of the table's solution order in turn, find where the piece is and append the
table's macro for that location (nothing when it is home); the pieces placed before stay placed,
so after the last stage the puzzle is solved. The table (``solvers.macro_table``) is learned on
first use and cached; its loading or learning counts as ``load_s``, not as solve time.

Accounting: ``nodes_generated`` and ``nodes_expanded`` are the states along the returned path
(its length + 1): the solver visits those and no others. ``iterations`` is the number of stages
that applied a macro. A state the table cannot place (outside the puzzle's reachable states) is
``unsolvable``. The time limit is checked between stages.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.paths import display_path
from core.status import Status
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from solvers.base import Solver, SolveResult, check_no_heuristic, finish
from solvers.ida import check_start
from solvers.memory import PeakMemory

_TABLES: dict[tuple[str, str, str, int], Any] = {}


def table_for(puzzle: Puzzle, max_states: int | None = None) -> Any:
    """The puzzle's macro table, loaded once per process and cache folder (a table loaded from
    one ``BENCH_CACHE`` is not served once the variable names another)."""
    from core.paths import cache_dir
    from solvers.macro_table import get_table

    key = (str(cache_dir()), puzzle.name, str(puzzle.layout or ""), int(max_states or 0))
    if key not in _TABLES:
        _TABLES[key] = get_table(puzzle, max_states=max_states)
    return _TABLES[key]


class MacroSolver(Solver):
    """Solve by one macro per piece, from a learned macro table."""

    name = "macro"

    def __init__(self, max_states: int | None = None) -> None:
        # None: the puzzle's (macro_table); bounds: the registry's entry
        self.max_states: int | None = registry.solver_entry(self.name).settings(
            {"max_states": max_states}, "solver")["max_states"]

    def solve(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        from puzzles.pieces import piece_model

        limits = limits or Limits()
        entry = registry.solver_entry(self.name)
        if not registry.solver_supports(entry, puzzle.name):
            raise InputError(f"solver macro: applies to {', '.join(entry.props.puzzles)}, "
                             f"not {puzzle.name}")
        check_no_heuristic(self.name, heuristic)
        start = check_start(puzzle, start)
        t_load = time.perf_counter()
        table = table_for(puzzle, self.max_states)
        atoms: Any = piece_model(puzzle)[1]
        load_s = time.perf_counter() - t_load
        model = table.model
        deadline = None if limits.time_s is None else time.perf_counter() + limits.time_s
        actions: list[int] = []
        stages = 0
        status = Status.SOLVED
        with PeakMemory() as mem:
            t0 = time.perf_counter()
            state = start.copy()
            for k, name in enumerate(table.order):
                if deadline is not None and time.perf_counter() > deadline:
                    status = Status.TIMEOUT
                    break
                piece = model.piece_index(name)
                where = int(atoms(state)[model.piece_atom[piece]])
                if where == model.piece_home(piece):
                    continue
                macro = table.lookup(k, where)
                if macro is None:
                    status = Status.UNSOLVABLE
                    break
                state = puzzle.apply_path(state, macro)
                actions += macro
                stages += 1
            elapsed = time.perf_counter() - t0
        if status == Status.SOLVED and not bool(puzzle.is_goal(state[None, :])[0]):
            status = Status.UNSOLVABLE  # the last pieces could not be placed: another orbit
        nodes = len(actions) + 1
        return finish(
            puzzle, start, self.name, heuristic.name, status=status,
            actions=actions if status == Status.SOLVED else None,
            generated=nodes, expanded=nodes, iterations=stages, h_start=None, time_s=elapsed,
            load_s=load_s, peak_rss_bytes=mem.peak_bytes,
            extra={"macro_table": display_path(table.path) if table.path else "", "macros": stages,
                   "table_nbytes": table.nbytes},
        )
