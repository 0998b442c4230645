"""``bench paper NAME``: a published table regenerated with our code (the tables and their
options: the declarations of :mod:`bench.papers`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bench import papers

_TABLES = papers.declarations()


def _per_table(values: dict[str, object]) -> str:
    return "; ".join(f"{name}: {value}" for name, value in values.items())


_PROFILES = _per_table({t.name: t.profile for t in _TABLES if t.profile is not None})
_COUNTS = _per_table({t.name: f"{t.count:,}" for t in _TABLES if t.count is not None})
_SEVERAL = ", ".join(t.name for t in _TABLES if t.runs == "several")
_NAMES = ", ".join(papers.PAPERS)
_TABLE_HELP = "Tables:\n\n" + "\n\n".join(f"{t.name}: {t.summary}" for t in _TABLES)


@click.command("paper", help=f"Regenerate published table NAME ({_NAMES}) with the published "
                             "figures beside ours.", epilog=_TABLE_HELP)
@click.argument("name")
@click.option("--run", "run_dirs", type=click.Path(path_type=Path), multiple=True,
              help="use this finished run instead of running (repeatable for the tables that "
                   f"read several: {_SEVERAL})")
@click.option("--limit", type=click.IntRange(min=1, max=10**9), default=None,
              help="at most K instances")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=1024), default=None)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="tables go to OUT/NAME/, raw runs to OUT/runs/NAME/ (default: runs/paper; "
                   "give --out results to regenerate the committed tables)")
@click.option("--build", is_flag=True, help="build missing PDBs for the memory and speed tables")
@click.option("--profile", default=None, help=f"suite profile to run ({_PROFILES})")
@click.option("--count", type=click.IntRange(min=1, max=10**7), default=None,
              help=f"states per puzzle ({_COUNTS})")
def paper_cmd(name: str, run_dirs: tuple[Path, ...], limit: int | None, jobs: int | None,
              out: Path | None, build: bool, profile: str | None, count: int | None) -> None:
    text = papers.make(name, run_dir=run_dirs, limit=limit, jobs=jobs,
                       out=out or papers.DEFAULT_OUT, command="bench " + " ".join(sys.argv[1:]),
                       build=build, profile=profile, count=count)
    click.echo(text)
