"""``bench solve``: solve one state with a heuristic and a solver."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click
import numpy as np

from bench.commands.common import goal_option, json_line, read_state, registry_options
from core import registry
from core.errors import InputError
from core.limits import Limits
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from solvers.base import SolveResult

MIB = 1 << 20


def _number(option: str, text: str | None, kind: type, low: float, low_ok: bool,
            high: float | None = None, cap: float | None = None) -> Any:
    """Parse an option value here (not by click) so bad values are one-line ``InputError``s.

    ``high``: the value lies in ``[low, high]``; ``cap``: an upper bound that keeps huge values
    (``1e308``) from overflowing what they size, reported on its own."""
    if text is None:
        return None
    try:
        value = kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise InputError(f"{option}: expected {what}, got {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{option}: expected a finite number, got {text!r}")
    if value < low or (value == low and not low_ok) or (high is not None and value > high):
        rng = (f"in [{low:g}, {high:g}]" if high is not None
               else f"{'>=' if low_ok else '>'} {low:g}")
        raise InputError(f"{option}: must be {rng}, got {text}")
    if cap is not None and value > cap:
        raise InputError(f"{option}: must be at most {cap:g}, got {text}")
    return value


def result_record(puzzle: Any, state: Any, result: SolveResult) -> dict[str, Any]:
    """The JSON object of one result: the SolveResult fields plus move names and the state."""
    rec = result.to_dict()
    rec["actions"] = (None if result.actions is None
                      else [puzzle.action_names[a] for a in result.actions])
    rec["action_ids"] = result.actions
    rec["moves"] = None if result.actions is None else puzzle.format_moves(result.actions)
    rec["puzzle"] = puzzle.name
    rec["state"] = puzzle.format(state)
    return rec


def _summary(puzzle: Any, state: Any, r: SolveResult) -> str:
    lines = [f"{puzzle.name}: {puzzle.format(state)}",
             f"{r.solver} with {r.heuristic}: {r.status}"
             + (f", length {r.length}" if r.length is not None else "")]
    if r.actions is not None:
        lines.append(f"moves: {puzzle.format_moves(r.actions) or '(none: the start is the goal)'}")
    h = "n/a" if r.h_start is None else f"{r.h_start:g}"
    evals = "" if r.network_evaluations is None else \
        f", network evaluations {r.network_evaluations:,}"
    lines.append(f"nodes generated {r.nodes_generated:,}, expanded {r.nodes_expanded:,}{evals}, "
                 f"iterations {r.iterations:,}, h(start) {h}")
    rate = r.nodes_generated / r.time_s if r.time_s > 0 else float("nan")
    lines.append(f"search {r.time_s:.3f} s ({rate:,.0f} nodes/s), load {r.load_s:.3f} s, "
                 f"peak memory {r.peak_rss_bytes / MIB:.1f} MiB")
    return "\n".join(lines)


def solve_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say what to solve and how: ``--scramble``, ``--goal``, ``--heuristic``,
    ``--solver``, their registry options and the limits (``bench solve``, ``bench view``)."""
    decorators = [
        click.option("--scramble", "moves", metavar="MOVES",
                     help="move sequence applied to the goal"),
        goal_option,
        click.option("--heuristic", "heuristic_name", metavar="H",
                     help="heuristic name (bench list heuristics)"),
        registry_options("heuristic"),
        click.option("--solver", "solver_name", metavar="S", default=None,
                     help="solver name (bench list solvers) [ida for heuristics with a per-state "
                          "kernel; a learned model's recommended search]"),
        registry_options("solver"),
        click.option("--time-limit", metavar="SEC", help="search time limit in seconds (> 0)"),
        click.option("--node-limit", metavar="N", help="limit on nodes generated (> 0)"),
        click.option("--memory-limit", metavar="MB", help="limit on the search's memory in MiB "
                     "(> 0; enforced by bwas/astar/greedy; IDA* needs memory linear in depth)"),
    ]
    for decorate in reversed(decorators):
        f = decorate(f)
    return f


@dataclass
class Solved:
    """One search of ``solve_state``: what was solved, with what, and the result."""

    puzzle: Puzzle
    state: np.ndarray
    heuristic: Heuristic
    heuristic_name: str
    #: the heuristic options given (model, precision, ...)
    heuristic_args: dict[str, Any]
    solver_name: str
    #: the solver options given or recommended (None: the solver's default)
    solver_args: dict[str, Any]
    result: SolveResult


@click.command("solve")
@click.argument("puzzle")
@click.argument("state", required=False)
@solve_options
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def solve_cmd(puzzle: str, state: str | None, moves: str | None, goal: str | None,
              heuristic_name: str | None, solver_name: str, time_limit: str | None,
              node_limit: str | None, memory_limit: str | None, as_json: bool,
              **options: str | None) -> None:
    """Solve STATE (or the state MOVES make from the goal) of PUZZLE.

    Exits 0 whenever the search ran, whatever its status (solved, timeout, node-limit,
    out-of-memory, unsolvable); 2 on bad input.
    """
    s = solve_state(puzzle, state, moves, goal, heuristic_name, solver_name, time_limit,
                    node_limit, memory_limit, options)
    if as_json:
        click.echo(json_line(result_record(s.puzzle, s.state, s.result)))
    else:
        click.echo(_summary(s.puzzle, s.state, s.result))


def solve_state(puzzle: str, state: str | None, moves: str | None, goal: str | None,
                heuristic_name: str | None, solver_name: str | None, time_limit: str | None,
                node_limit: str | None, memory_limit: str | None,
                options: dict[str, Any]) -> Solved:
    """Check the options of :func:`solve_options` (one-line ``InputError``s), make the puzzle,
    the state, the heuristic and the solver from the registry, and run the search."""
    if solver_name is not None:
        registry.solver_entry(solver_name)
        heuristic_name = registry.check_solver_heuristic(solver_name, heuristic_name)
    elif heuristic_name is None:
        raise InputError("--heuristic: missing (see bench list heuristics)")
    t = _number("--time-limit", time_limit, float, 0.0, False, cap=10**9)
    n = _number("--node-limit", node_limit, int, 0, False, cap=2**62)
    mb = _number("--memory-limit", memory_limit, float, 0.0, False, cap=2**40)
    entry = registry.heuristic_entry(heuristic_name)
    learned = bool(entry.props.get("needs_model"))
    hnames = registry.all_options("heuristic")
    hargs = registry.check_heuristic_options(
        entry, {k: v for k, v in options.items() if k in hnames})
    model, precision = hargs.get("model"), hargs.get("precision")
    p = registry.get_puzzle(puzzle, goal=goal)
    s = read_state(p, state, moves)
    sopts = registry.all_options("solver")
    given = {k: sopts[k].check(v) for k, v in options.items() if k in sopts}
    if solver_name is None:
        if registry.ranks_moves(heuristic_name):
            solver_name = "beam"
            click.echo("solver: beam (the search that takes a policy)", err=True)
        elif learned and heuristic_name != "davi" and "recommend" not in entry.props:
            solver_name = "bwas"  # a tree of goal networks: the default BWAS
            click.echo("solver: bwas (the default search for a multi-goal model)", err=True)
        elif learned:
            rec = registry.recommended_search(entry, p.name, model)
            if rec is None:
                from learning.model_store import recommended_search

                rec = recommended_search(p.name, model)
            solver_name = rec["solver"]
            given = {**rec["solver_args"], **{k: v for k, v in given.items() if v is not None}}
            precision = precision or rec["precision"]
            args = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in given.items() if v is not None)
            origin = "the model's recommended search" if rec["source"] == "model" else \
                "the default search for a learned heuristic"
            click.echo(f"solver: {solver_name} {args} ({origin})".rstrip(), err=True)
        else:
            solver_name = "ida"
    if not registry.solver_supports(registry.solver_entry(solver_name), p.name):
        raise InputError(f"--solver: {solver_name} does not apply to {p.name}")
    solver = registry.get_solver(solver_name, **given)
    if precision is not None and learned and entry.option("precision") is not None:
        hargs["precision"] = precision
    h = registry.get_heuristic(heuristic_name, p, **hargs)
    limits = Limits(time_s=t, nodes=n, memory_bytes=None if mb is None else int(mb * MIB))
    result = solver.run(p, h, s, limits)
    return Solved(p, s, h, heuristic_name, hargs, solver_name, given, result)
