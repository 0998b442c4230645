"""``bench list``, ``bench show``, ``bench scramble``: puzzle inspection commands."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import click
import numpy as np

from bench.commands.common import goal_option, read_state
from core import registry
from core.errors import InputError
from puzzles.sokoban_levels import LEVEL_CAPS


@click.command("list")
@click.argument("kind", type=click.Choice(["puzzles", "heuristics", "solvers", "models"]),
                default="puzzles")
def list_cmd(kind: str) -> None:
    """List the registered puzzles (name, actions, states), heuristics or solvers, or the
    shipped and trained models (as ``bench models list``); an entry an installed plugin
    declares ends with [plugin: PACKAGE]. A heuristic that optimal solvers (ida, astar) run
    with when no --heuristic is given says so: [default for PUZZLES]."""
    if kind == "models":
        from bench.commands.train_models import models_cmd

        click.get_current_context().invoke(models_cmd, as_json=False)
    elif kind == "puzzles":
        for name, e in registry.PUZZLES.items():
            try:
                p = registry.get_puzzle(name)
            except Exception as exc:  # noqa: BLE001 - a plugin's code that fails is listed so
                if registry.plugin_of(e) is None:
                    raise
                reason = " ".join(str(exc).split()) or type(exc).__name__
                click.echo(f"{name:<12} {'?':>3} actions  {'?':>32} states  {e.summary}"
                           f"{_provider(e)} (cannot be made: {reason})")
                continue
            n = p.num_states
            states = f"{n:,}" if n is not None else "unknown"
            click.echo(f"{name:<12} {p.num_actions:>3} actions  {states:>32} states  "
                       f"{e.summary}{_provider(e)}")
    elif kind == "heuristics":
        defaults: dict[str, list[str]] = {}  # heuristic -> the puzzles it is the default of
        for pname in registry.PUZZLES:
            d = registry.default_heuristic(pname)
            if d is not None:
                defaults.setdefault(d, []).append(pname)
        for name, h in registry.HEURISTICS.items():
            puzzles = h.props.puzzles
            where = puzzles if isinstance(puzzles, str) else ",".join(puzzles)
            adm = "admissible" if h.props.admissible else "inadmissible"
            line = f"{name:<20} {adm:<13} {where:<40} {h.summary}"
            if h.props.aliases:  # former names, still accepted
                line += f" [also: {', '.join(h.props.aliases)}]"
            if name in defaults:  # what --solver ida/astar run without --heuristic
                line += f" [default for {', '.join(defaults[name])}]"
            decl = h.props.pdb
            if decl is not None and decl.build:  # sizes: bench pdb list (imports the builders)
                line += f" [built in {decl.build}]"
            opts = ", ".join(o.flag for o in h.options)
            click.echo(line + (f" (options: {opts})" if opts else "") + _provider(h))
    else:
        for name, s in registry.SOLVERS.items():
            opts = ", ".join(o.flag for o in s.options)
            click.echo(f"{name:<8} {s.summary}" + (f" (options: {opts})" if opts else "")
                       + _provider(s))


def _provider(entry: registry.Entry[Any]) -> str:
    """`` [plugin: PACKAGE]`` for an entry an installed plugin declares, else nothing."""
    package = registry.plugin_of(entry)
    return f" [plugin: {package}]" if package else ""


@click.command("show")
@click.argument("puzzle")
@click.argument("state", required=False)
@click.option("--scramble", "moves", help="move sequence applied to the goal")
@goal_option
def show_cmd(puzzle: str, state: str | None, moves: str | None, goal: str | None) -> None:
    """Validate STATE (or the state MOVES make) and pretty-print it."""
    p = registry.get_puzzle(puzzle, goal=goal)
    s = read_state(p, state, moves)
    click.echo(p.pretty(s, color=sys.stdout.isatty()))
    click.echo(p.format(s))


@click.command("scramble")
@click.argument("puzzle")
@click.option("--depth", type=click.IntRange(min=0, max=10**6), help="random-walk length")
@click.option("--count", type=click.IntRange(min=1, max=10**7), default=1, show_default=True)
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True,
              help="seed of the numpy random Generator (>= 0)")
@click.option("--moves", "show_moves", is_flag=True,
              help="print the move sequences instead (Sokoban: each level's solution)")
@click.option("--uniform", is_flag=True, help="draw uniformly from all solvable states")
@click.option("--tries", type=click.IntRange(min=1, max=LEVEL_CAPS["tries"]), default=None,
              help="Sokoban: reverse-play walks per level, the one whose boxes moved farthest kept "
                   "[16]")
@click.option("--room-steps", type=click.IntRange(min=1, max=LEVEL_CAPS["room_steps"]),
              default=None,
              help="Sokoban: steps of the random walk that carves a room [40]")
@goal_option
def scramble_cmd(puzzle: str, depth: int | None, count: int, seed: int, show_moves: bool,
                 uniform: bool, tries: int | None, room_steps: int | None,
                 goal: str | None) -> None:
    """Print COUNT seeded states, one per line, in the puzzle's input format (Sokoban: generated
    levels, --depth reverse-play steps [1000]; puzzles/sokoban_levels.py)."""
    from puzzles.sokoban import Sokoban

    p = registry.get_puzzle(puzzle, goal=goal)
    rng = np.random.default_rng(seed)
    if not isinstance(p, Sokoban):
        for flag, v in (("--tries", tries), ("--room-steps", room_steps)):
            if v is not None:
                raise InputError(f"{flag}: only for Sokoban's level generator")
    else:
        generator = p.level_options
        o = replace(generator, tries=generator.tries if tries is None else tries,
                    room_steps=generator.room_steps if room_steps is None else room_steps)
        p.level_options = o.checked()
        if depth is None and not uniform:
            depth = o.steps
    if uniform:
        if depth is not None or show_moves:
            raise InputError("--uniform: cannot be combined with --depth or --moves")
        for s in p.random_states(count, rng):
            click.echo(p.format(s))
        return
    if depth is None:
        raise InputError("--depth: required (or use --uniform)")
    states, moves = p.scramble(count, depth, rng)
    for s, m in zip(states, moves, strict=True):  # -1 pads a move list shorter than depth
        click.echo(p.format_moves([a for a in m if a >= 0]) if show_moves else p.format(s))
