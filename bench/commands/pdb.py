"""``bench pdb build|list|info`` (pattern databases) and ``bench h`` (heuristic values).

The pdb commands read the database catalog (``pdb_builders.catalog``), so every database
registered there (tile and cube PDBs alike) appears; ``bench h`` instantiates any heuristic
through ``core.registry.get_heuristic``.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import click
import numpy as np

from bench.commands.common import PluginFaults, goal_option, read_states
from core import registry
from core.capabilities import Policy
from core.errors import InputError
from core.names import DEVICES, PRECISIONS
from heuristics.base import checked_values


def _entry(puzzle: str, heuristic: str):
    from pdb_builders import catalog

    registry.puzzle_entry(puzzle)
    hentry = registry.heuristic_entry(heuristic)
    if not registry.heuristic_supports(hentry, puzzle):
        raise InputError(f"HEURISTIC: {heuristic} does not apply to {puzzle}")
    entry = catalog.find(puzzle, heuristic)
    if entry is None:
        raise InputError(f"HEURISTIC: {heuristic} on {puzzle} uses no pattern database")
    return entry


def _size(path) -> str:
    if not path.is_file():
        return "-"
    b = path.stat().st_size
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return str(b)


def _build_one(spec) -> tuple[str, float]:
    t0 = time.perf_counter()
    spec.build(progress=False)
    return spec.key, time.perf_counter() - t0


@click.group("pdb")
def pdb_group() -> None:
    """Build and inspect pattern databases (files in $BENCH_CACHE)."""


@pdb_group.command("build")
@click.argument("puzzle")
@click.argument("heuristic")
@click.option("--jobs", type=click.IntRange(min=1, max=1024), default=1, show_default=True,
              help="tables built at once, one process each")
@click.option("--force", is_flag=True, help="rebuild tables that already exist")
def build_cmd(puzzle: str, heuristic: str, jobs: int, force: bool) -> None:
    """Build every table HEURISTIC needs on PUZZLE, then load it once through the registry."""
    from pdb_builders.store import DatabaseError, load_packed

    entry = _entry(puzzle, heuristic)
    specs = entry.tables(puzzle)
    todo = []
    for spec in specs:
        if not force and spec.exists():
            try:
                load_packed(spec.path, spec.attrs)
                click.echo(f"{spec.key}: up to date ({spec.path})")
                continue
            except DatabaseError as exc:
                click.echo(f"{spec.key}: {exc}; rebuilding", err=True)
        todo.append(spec)
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            for key, secs in pool.map(_build_one, todo):
                click.echo(f"{key}: built in {secs:.1f} s")
    else:
        for spec in todo:
            t0 = time.perf_counter()
            spec.build(progress=True)
            click.echo(f"{spec.key}: built in {time.perf_counter() - t0:.1f} s ({spec.path})")
    p = registry.get_puzzle(puzzle)
    h = registry.get_heuristic(heuristic, p)
    click.echo(f"{heuristic} on {puzzle}: {len(specs)} table(s), {h.nbytes:,} bytes in memory")


@pdb_group.command("list")
def list_cmd() -> None:
    """Every known table, built or not: file, puzzle, heuristics using it, entries, size, path."""
    from pdb_builders import catalog

    users: dict[str, list[str]] = {}
    rows = []
    for e in catalog.DATABASES:
        for p in e.puzzles:
            for t in e.tables(p):
                if t.key not in users:
                    users[t.key] = []
                    rows.append((p, t))
                users[t.key].append(e.heuristic)
    click.echo(f"{'table':<40} {'puzzle':<10} {'entries':>15} {'size':>10}  {'heuristics':<36} path")
    for p, t in rows:
        hs = ",".join(dict.fromkeys(users[t.key]))
        click.echo(f"{t.key:<40} {p:<10} {t.entries:>15,} {_size(t.path):>10}  {hs:<36} "
                   f"{t.path if t.exists() else '(not built)'}")


@pdb_group.command("info")
@click.argument("puzzle")
@click.argument("heuristic")
def info_cmd(puzzle: str, heuristic: str) -> None:
    """Attributes and value histograms of the tables HEURISTIC uses on PUZZLE."""
    import json

    from pdb_builders.store import DatabaseError, check_meta, read_attrs

    entry = _entry(puzzle, heuristic)
    for spec in entry.tables(puzzle):
        click.echo(f"== {spec.key}")
        if not spec.exists():
            click.echo(f"   not built (bench pdb build {puzzle} {heuristic}); path {spec.path}")
            continue
        attrs = read_attrs(spec.path)
        hist = attrs.pop("histogram", [])
        click.echo(f"   path: {spec.path} ({_size(spec.path)})")
        try:
            stored = json.loads(attrs.pop("meta_json", "{}"))
            if not isinstance(stored, dict):
                raise ValueError("meta_json is not an object")
            check_meta(spec.path, stored, spec.attrs)
        except (ValueError, TypeError, DatabaseError) as exc:
            msg = str(exc) if isinstance(exc, DatabaseError) else \
                f"database file {spec.path} has damaged attributes ({exc}); rebuild it"
            click.echo(f"   warning: {msg} (bench pdb build {puzzle} {heuristic} --force)")
        if not isinstance(hist, list) or not all(isinstance(c, int) for c in hist):
            hist = []
        for k in sorted(attrs):
            click.echo(f"   {k}: {attrs[k]}")
        total = sum(hist) or 1
        mean = sum(v * c for v, c in enumerate(hist)) / total
        click.echo(f"   mean value: {mean:.3f}")
        click.echo("   histogram (value count share):")
        for v, c in enumerate(hist):
            if c:
                click.echo(f"   {v:>5} {c:>15,} {c / total:8.4f}")


def move_distribution(puzzle: Any, logp: np.ndarray) -> str:
    """One state's legal moves with their probabilities, most probable first (``R 0.8123 ...``)."""
    order = np.argsort(-logp, kind="stable")
    return " ".join(f"{puzzle.action_names[a]} {np.exp(logp[a]):.4f}" for a in order
                    if np.isfinite(logp[a]))


@click.command("h")
@click.argument("puzzle")
@click.argument("heuristic")
@click.argument("states", nargs=-1)
@click.option("--scramble", "moves", help="move sequence applied to the goal")
@goal_option
@click.option("--model", default=None, help="model name or checkpoint (learned heuristics)")
@click.option("--batch", type=click.IntRange(min=1, max=10**7), default=10000, show_default=True,
              help="states evaluated at once")
@click.option("--device", type=click.Choice(DEVICES), default=None,
              help="where a network evaluates (learned heuristics) [cpu]")
@click.option("--precision", type=click.Choice(PRECISIONS), default=None,
              help="a network's hidden layers (learned heuristics) [float32]")
def h_cmd(puzzle: str, heuristic: str, states: tuple[str, ...], moves: str | None,
          goal: str | None, model: str | None, batch: int, device: str | None,
          precision: str | None) -> None:
    """Print HEURISTIC's value of each STATE, one a line ('-' reads states from stdin).

    A policy (a heuristic that ranks moves) prints each state's move distribution instead: its
    legal moves with their probabilities, most probable first, one state a line."""
    p = registry.get_puzzle(puzzle, goal=goal)
    learned = bool(registry.heuristic_entry(heuristic).props.needs_model)
    kwargs: dict[str, Any] = {"model": model} if model is not None else {}
    for opt, key, val in (("--device", "device", device), ("--precision", "precision", precision)):
        if val is not None:
            if not learned:
                raise InputError(f"{opt}: applies to learned heuristics, not to {heuristic}")
            kwargs[key] = val
    it = iter(read_states(p, states, moves))
    first = list(itertools.islice(it, batch))  # parse errors surface before any loading
    guard = PluginFaults([("HEURISTIC", "heuristic", registry.heuristic_entry(heuristic))])
    with guard:
        h = registry.get_heuristic(heuristic, p, **kwargs)
    chunk = first
    while chunk and isinstance(h, Policy):
        with guard:
            dists = [move_distribution(p, row) for row in h.log_probs(np.stack(chunk))]
        click.echo("\n".join(dists))
        chunk = list(itertools.islice(it, batch))
    while chunk:
        with guard:
            values = checked_values(h, np.stack(chunk))
        if np.issubdtype(values.dtype, np.integer):
            lines = [str(int(v)) for v in values]
        else:
            lines = [f"{float(v):.4f}" for v in values]
        click.echo("\n".join(lines))
        chunk = list(itertools.islice(it, batch))
