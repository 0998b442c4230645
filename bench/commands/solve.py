"""``bench solve``: solve one state with a heuristic and a solver."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import click
import numpy as np

from bench.commands.common import (
    PluginFaults,
    check_plugin_values,
    goal_option,
    json_line,
    limit_option,
    read_state,
    registry_options,
)
from core import registry
from core.limits import evaluation_deadline, grace_s
from core.resolve import resolve
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from solvers.base import SolveResult, replayed
from solvers.memory import process_peak_bytes

MIB = 1 << 20


def certified_bound(puzzle: Puzzle, state: np.ndarray) -> tuple[int | None, str | None]:
    """``(lower_bound, lower_bound_from)`` of ``state``, as a suite row has them
    (:func:`suites.reference.lower_bounds`: the strongest admissible heuristic the puzzle
    declares whose tables are at hand, rounded up); ``None`` where it is infinite (no solution
    exists) or where no bound heuristic is available."""
    from suites.reference import lower_bounds

    values, name = lower_bounds(puzzle, np.asarray(state)[None, :])
    value = int(values[0])
    return (value if value >= 0 else None), name


def result_record(puzzle: Any, state: Any, result: SolveResult) -> dict[str, Any]:
    """The JSON object of one result: the SolveResult fields plus move names, the state, the
    certified lower bound (``lower_bound``, ``lower_bound_from``: the columns of a suite row)
    and the process's peak memory (``process_peak_rss_bytes``)."""
    rec = result.to_dict()
    rec["lower_bound"], rec["lower_bound_from"] = certified_bound(puzzle, state)
    rec["process_peak_rss_bytes"] = process_peak_bytes()
    rec["actions"] = (None if result.actions is None
                      else [puzzle.action_names[a] for a in result.actions])
    rec["action_ids"] = result.actions
    rec["moves"] = None if result.actions is None else puzzle.format_moves(result.actions)
    rec["puzzle"] = puzzle.name
    rec["state"] = puzzle.format(state)
    return rec


def summary_text(puzzle: Any, state: Any, r: SolveResult) -> str:
    """The human-readable summary `bench solve` prints: the state, the status and length, the
    moves, the counts and the times."""
    lines = [f"{puzzle.name}: {puzzle.format(state)}",
             f"{r.solver} with {r.heuristic}: {r.status}"
             + (f", length {r.length}" if r.length is not None else "")
             + (f" ({(r.extra or {}).get('error')})" if r.status == "invalid" else "")]
    if r.actions is not None:
        lines.append(f"moves: {puzzle.format_moves(r.actions) or '(none: the start is the goal)'}")
    h = "n/a" if r.h_start is None else f"{r.h_start:g}"
    evals = "" if r.network_evaluations is None else \
        f", network evaluations {r.network_evaluations:,}"
    lines.append(f"nodes generated {r.nodes_generated:,}, expanded {r.nodes_expanded:,}{evals}, "
                 f"iterations {r.iterations:,}, h(start) {h}")
    rate = r.nodes_generated / r.time_s if r.time_s > 0 else float("nan")
    lines.append(f"search {r.time_s:.3f} s ({rate:,.0f} nodes/s), load {r.load_s:.3f} s")
    loaded = "" if r.loaded_bytes is None else \
        f", loaded tables and weights {r.loaded_bytes / MIB:,.1f} MiB"
    lines.append(f"peak memory of the search {r.peak_rss_bytes / MIB:,.1f} MiB{loaded}, "
                 f"the process's peak {process_peak_bytes() / MIB:,.1f} MiB")
    bound, source = certified_bound(puzzle, state)
    if bound is not None:
        lines.append(f"certified lower bound {bound} ({source})")
    return "\n".join(lines)


def solve_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say what to solve and how: ``--scramble``, ``--goal``, ``--heuristic``,
    ``--solver``, their registry options and the limits (``bench solve``, ``bench view``)."""
    decorators = [
        click.option("--scramble", "moves", metavar="MOVES",
                     help="move sequence applied to the goal"),
        goal_option,
        click.option("--heuristic", "heuristic_name", metavar="H",
                     help="heuristic name (bench list heuristics) [with --solver ida or "
                          "astar: the puzzle's default, its strongest admissible one]"),
        registry_options("heuristic"),
        click.option("--solver", "solver_name", metavar="S", default=None,
                     help="solver name (bench list solvers) [ida for heuristics with a per-state "
                          "kernel; a learned model's recommended search]"),
        registry_options("solver"),
        limit_option("time_s"),
        limit_option("nodes"),
        limit_option("memory_mb", "enforced by bwas/astar/greedy; IDA* needs memory linear in "
                                  "depth"),
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
    #: the solver options given or recommended (absent: the solver's default)
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
        click.echo(summary_text(s.puzzle, s.state, s.result))


def default_heuristic_note(puzzle_name: str, heuristic_name: str,
                           args: dict[str, Any] | None = None) -> str:
    """The line ``bench solve`` prints when it runs ``puzzle_name``'s default heuristic: which
    one, with which options (``args``), and whether its tables are built now (their builder's
    progress bar follows)."""
    opts = "".join(f" --{k.replace('_', '-')} {v}" for k, v in (args or {}).items())
    line = f"heuristic: {heuristic_name}{opts} (the default for {puzzle_name}: its strongest " \
           "admissible heuristic)"
    decl = registry.heuristic_entry(heuristic_name).props.pdb
    if decl is not None:
        from pdb_builders.catalog import tables_stored

        if not tables_stored(puzzle_name, heuristic_name):
            cost = f": {decl.build}" if decl.build else ""
            line += f"; building its tables now, once (first use{cost})"
    return line


def built_search_heuristic(puzzle_name: str, default: str,
                           given: Iterable[str] = ()) -> tuple[str, bool]:
    """``(heuristic, True)``: the first of the puzzle's ``search_heuristic_built`` (strongest
    first) whose tables are in the cache; else ``(default, False)``, after a line on stderr
    saying how to build them. Heuristics that do not take an option ``given`` are passed over
    (with none left, the default runs and nothing is said)."""
    stronger = [name for name in registry.puzzle_entry(puzzle_name).props.search_heuristic_built
                if all(registry.heuristic_entry(name).option(k) is not None for k in given)]
    if not stronger:
        return default, False
    from pdb_builders.catalog import tables_stored

    for name in stronger:
        if tables_stored(puzzle_name, name):
            return name, True
    builds = []
    for name in stronger:
        decl = registry.heuristic_entry(name).props.pdb
        cost = f" ({decl.build})" if decl is not None and decl.build else ""
        builds.append(f"bench pdb build {puzzle_name} {name}{cost}")
    click.echo(f"note: {' or '.join(stronger)}, the default once built (the first built of "
               f"these), is not built: {'; or '.join(builds)}", err=True)
    return default, False


def solve_state(puzzle: str, state: str | None, moves: str | None, goal: str | None,
                heuristic_name: str | None, solver_name: str | None, time_limit: str | None,
                node_limit: str | None, memory_limit: str | None,
                options: dict[str, Any]) -> Solved:
    """Resolve the options of :func:`solve_options` (``core.resolve.resolve``: one-line
    ``InputError``s), make the puzzle, the state, the heuristic and the solver from the
    registry, and run the search."""
    began = time.monotonic()
    hnames, snames = registry.all_options("heuristic"), registry.all_options("solver")
    cfg = resolve(puzzle, heuristic_name, {k: v for k, v in options.items() if k in hnames},
                  solver_name, {k: v for k, v in options.items() if k in snames},
                  {"time_s": time_limit, "nodes": node_limit, "memory_mb": memory_limit},
                  default_heuristic=True, upgrade=built_search_heuristic)
    if cfg.solver_note:
        click.echo(cfg.solver_note, err=True)
    p = registry.get_puzzle(puzzle, goal=goal)
    s = read_state(p, state, moves)
    entry = registry.heuristic_entry(cfg.heuristic)
    plugins: list[tuple[str, str, registry.Entry[Any]]] = [
        ("--solver", "solver", registry.solver_entry(cfg.solver)),
        ("--heuristic", "heuristic", entry)]
    with PluginFaults(plugins):
        solver = registry.get_solver(cfg.solver, **cfg.solver_args)
    if cfg.heuristic_by_default:
        click.echo(default_heuristic_note(p.name, cfg.heuristic, cfg.defaulted_args), err=True)
    t = cfg.limits.time_s
    # a network that does not return is stopped: loading within the time limit (counted from
    # the command's start), each evaluation of the search by the limit and a grace
    # (core.limits.evaluation_deadline)
    with PluginFaults(plugins), evaluation_deadline(
            None if t is None else max(0.0, t - (time.monotonic() - began))):
        h = registry.get_heuristic(cfg.heuristic, p, **cfg.heuristic_args)
        if registry.plugin_of(entry) is not None:
            check_plugin_values(p, h, s, cfg.heuristic, registry.plugin_of(entry) or "")
    with PluginFaults(plugins), evaluation_deadline(None if t is None else t + grace_s(t)):
        run = solver.run(p, h, s, cfg.limits)
    # the returned path replayed as the suite runner does (a plugin solver's too)
    result, fault = replayed(p, s, run)
    if fault is not None:
        result = replace(result, extra={**(result.extra or {}), "error": fault})
    return Solved(p, s, h, cfg.heuristic, cfg.heuristic_args, cfg.solver, cfg.solver_args,
                  result)
