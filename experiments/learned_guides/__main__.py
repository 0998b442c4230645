"""``python -m experiments.learned_guides``: train (or reuse) the guides, run their searches and
write the table ``OUT/learned-guides/`` (bad input: one line on stderr, exit status 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from core.errors import InputError


@click.command("learned-guides")
@click.option("--limit", type=click.IntRange(min=1, max=10**9), default=None,
              help="the first K states per puzzle [100]")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=1024), default=None)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="the table goes to OUT/learned-guides/, models and runs to "
                   "OUT/runs/learned-guides/ (default: runs/paper; give --out results to "
                   "regenerate the committed table)")
@click.option("--train-minutes", type=float, default=None, metavar="M",
              help="CPU minutes of training per network (models missing from "
                   "OUT/runs/learned-guides/models are trained, interrupted ones resumed)")
@click.option("--model", "models", multiple=True, metavar="PUZZLE-TARGET=PATH",
              help="use this model folder for a guide, e.g. cube3-diffusion=runs/m (TARGET: "
                   "davi, diffusion, policy; repeatable)")
@click.option("--widths", default=None, metavar="W,W,...",
              help="beam widths [128,512,2048,8192]")
@click.option("--puzzles", default=None, metavar="P,P,...",
              help="puzzles [cube3,puzzle15,lightsout7; also cube2, puzzle8]; the table of others "
                   "goes to OUT/learned-guides/P-P-only")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
              help="torch threads of training and threads per search [2]")
def cli(limit: int | None, jobs: int | None, out: Path | None, train_minutes: float | None,
        models: tuple[str, ...], widths: str | None, puzzles: str | None,
        threads: int | None) -> None:
    """DAVI, diffusion-distance and policy networks trained for the same CPU time, and the
    PDBs, under the same beams and BWAS, beside EfficientCube's and DeepCubeA's figures."""
    from bench.papers import DEFAULT_OUT
    from experiments.learned_guides import guides

    text = guides.make(out or DEFAULT_OUT, limit=limit, jobs=jobs, train_minutes=train_minutes,
                       models=models, widths=widths, puzzles=puzzles, threads=threads,
                       command="python -m experiments.learned_guides " + " ".join(sys.argv[1:]))
    click.echo(text)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input becomes one line on stderr and exit status 2, never a traceback."""
    try:
        cli.main(args=argv, prog_name="python -m experiments.learned_guides",
                 standalone_mode=False)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.UsageError as exc:
        message = " ".join(exc.format_message().split()).rstrip(".")
        click.echo(f"error: {message} (see 'python -m experiments.learned_guides --help')",
                   err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
