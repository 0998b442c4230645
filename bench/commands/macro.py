"""``bench macro show|build``: macro-operator tables (Korf 1982)."""

from __future__ import annotations

import click

from bench.commands.common import goal_option
from core import registry
from core.errors import InputError
from puzzles.npuzzle import NPuzzle

#: a tile's move is the opposite of the blank's (the paper's letters name the tile's move)
_TILE_LETTER = {"U": "D", "D": "U", "L": "R", "R": "L"}


def _table(puzzle_name: str, goal: str | None, max_states: int | None, rebuild: bool = False):
    from solvers.macro_table import get_table

    entry = registry.solver_entry("macro")
    if not registry.solver_supports(entry, puzzle_name):
        raise InputError(f"PUZZLE: macro tables exist for {', '.join(entry.props.puzzles)}, "
                         f"not {puzzle_name}")
    if max_states is not None:
        entry.check_options({"max_states": max_states}, "solver")
    puzzle = registry.get_puzzle(puzzle_name, goal=goal)
    return puzzle, get_table(puzzle, max_states=max_states, rebuild=rebuild)


def notation(puzzle, moves: list[int]) -> str:
    """A macro as text: tile puzzles in the paper's letters (the direction the tile moves),
    cubes in the usual face-turn notation."""
    if isinstance(puzzle, NPuzzle):
        return "".join(_TILE_LETTER[puzzle.action_names[a]] for a in moves)
    return " ".join(puzzle.action_names[a] for a in moves)


def render(puzzle, table) -> str:
    from collections import Counter

    model = table.model
    how = Counter(table.how.values())
    lines = [f"macro table of {puzzle.name}" + (f" (goal {table.goal})" if table.goal else ""),
             f"solution order: {' '.join(table.order)}",
             f"{table.count} macros, longest {table.longest} moves; search depth {table.depth}"
             f" ({'every state' if table.complete else 'bidirectional'}): "
             f"{how.get('search', 0)} found by search (each a shortest macro), "
             f"{how.get('chain', 0)} by chaining shorter ones",
             f"file: {table.path}" if table.path else "not stored", ""]
    tiles = isinstance(puzzle, NPuzzle)
    if tiles:
        lines.insert(2, "moves name the direction the tile moves (U D L R)")
        # the paper's layout: one column per piece, one row per position
        pieces = list(table.order)
        cells = [[""] * len(pieces) for _ in range(model.n_locations)]
        for (k, j), m in table.entries.items():
            cells[j][k] = notation(puzzle, m)
        widths = [max(len(p), *(len(c[i]) for c in cells)) for i, p in enumerate(pieces)]
        head = "position | " + " | ".join(p.ljust(w) for p, w in zip(pieces, widths, strict=True))
        lines += [head, "-" * len(head)]
        for j in range(model.n_locations):
            row = " | ".join(c.ljust(w) for c, w in zip(cells[j], widths, strict=True))
            lines.append(f"{model.location_names[j]:>8} | {row}")
    else:
        for k, name in enumerate(table.order):
            cols = table.columns[k]
            lines.append(f"{name}: {len(cols)} macros")
            for j in cols:
                m = table.entries[(k, j)]
                lines.append(f"  {model.location_names[j]:>8}  {len(m):>2}  {notation(puzzle, m)}")
    return "\n".join(lines)


@click.group("macro")
def macro_group() -> None:
    """Macro-operator tables of the macro solver (files in $BENCH_CACHE/macros)."""


@macro_group.command("show")
@click.argument("puzzle")
@goal_option
@click.option("--max-states", type=int, default=None, metavar="N",
              help="states the learner's search keeps [per puzzle]")
def show_cmd(puzzle: str, goal: str | None, max_states: int | None) -> None:
    """Print the macro table of PUZZLE (learned and cached on first use)."""
    p, table = _table(puzzle, goal, max_states)
    click.echo(render(p, table))


@macro_group.command("build")
@click.argument("puzzle")
@goal_option
@click.option("--max-states", type=int, default=None, metavar="N",
              help="states the learner's search keeps [per puzzle]")
@click.option("--force", is_flag=True, help="learn again even when a cached table exists")
def build_cmd(puzzle: str, goal: str | None, max_states: int | None, force: bool) -> None:
    """Learn the macro table of PUZZLE and cache it; print its size and build time."""
    p, table = _table(puzzle, goal, max_states, rebuild=force)
    click.echo(f"{p.name}: {table.count} macros, longest {table.longest}, search depth "
               f"{table.depth}, built in {table.build_seconds:.1f} s -> {table.path}")
