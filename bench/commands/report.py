"""``bench report`` (the tables, summary and figures of a run) and ``bench quality``; the report
a suite run writes when it finishes (:func:`write_report`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from core import safe_write
from core.errors import InputError


def write_report(run_dir: Path, figures: list[str] | None, title: str,
                  make_figures: bool = True, out: Path | None = None) -> None:
    """Tables, ``summary.md`` and figures of the suite run in ``run_dir``, written there, or to
    ``out`` (a run's committed copy, ``results.csv`` without rows, is read from ``run_dir``)."""
    from bench import report, runner

    if out is None or out == run_dir:
        wrote_tables = (run_dir / runner.ROWS).is_file()
        if wrote_tables:
            df = runner.derive_tables(run_dir)
        else:  # a committed copy or evaluation tables: they stay as they are
            df = runner.load_table(run_dir)
        out = run_dir
    else:
        df = runner.load_table(run_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--out: cannot create {out}: {exc.strerror or exc}") from None
        runner.write_tables(df, out)
        wrote_tables = True
    bad = runner.invalid_replays(df)
    unreplayable = runner.unreplayable_reason(df)
    if unreplayable and (df["status"] == "solved").any():
        click.echo(f"warning: the rows of {run_dir} cannot be replayed ({unreplayable}); their "
                   "solved rows are counted unchecked", err=True)
    if bad:
        click.echo(f"warning: {len(bad)} solved row(s) do not replay on their start state and "
                   f"count as invalid: {', '.join(bad[:5])}{', ...' if len(bad) > 5 else ''}",
                   err=True)
    df = report.with_reference_optima(df)  # once: the summary, the terminal and the figures
    untraced = report.revision_note(df)
    if untraced:
        click.echo(f"warning: {untraced}", err=True)
    md = report.report_markdown(df, title=title)
    meta = runner.read_run_json(run_dir)
    if meta is None:
        click.echo(f"warning: {run_dir / runner.RUN_JSON} is damaged; the report omits its "
                   "provenance", err=True)
    sessions = (meta or {}).get("sessions")
    from bench.run_table import evaluation_tables

    evaluations = evaluation_tables(run_dir)
    made_by = _made_by(out / "summary.md") if not (run_dir / runner.ROWS).is_file() else []
    if evaluations:
        made_by = [f"- `{path.name}` (configuration `{path.stem}`): the per-state rows of `bench "
                   "train evaluate`" + _rows_origin(df[df["config"] == path.stem])
                   for path in evaluations]
        made_by.append(f"- report: `bench {' '.join(sys.argv[1:])}`")
    elif made_by:  # a committed copy keeps the commands that made its rows, and says who redid it
        made_by.append(f"- report redone from `results.csv`: `bench {' '.join(sys.argv[1:])}`")
    elif isinstance(sessions, list):
        made_by = [f"- `bench {' '.join(str(a) for a in s_['argv'][1:])}` ({s_.get('date')}, "
                   f"{s_.get('cpu')}, {s_.get('cores')} cores, git {s_.get('git_rev')})"
                   for s_ in sessions
                   if isinstance(s_, dict) and isinstance(s_.get("argv"), list)]
    if made_by:
        head, _, rest = md.partition("\n\n")
        md = head + "\n\nMade by:\n\n" + "\n".join(made_by) + "\n\n" + rest
    safe_write.write_text(out / "summary.md", md)
    legend: list = []
    for set_name, g, summ, comp in report.set_sections(df):
        click.echo(f"\n{set_name} ({g['instance'].nunique()} instances):")
        click.echo(report.text_table(report.display_table(summ, terminal=True)))
        legend += [c for c in report.columns.shown_columns(summ, terminal=True) if c not in legend]
        if comp is not None:
            n_common = int(comp["n"].max())
            click.echo(f"\n{set_name}: on the {n_common} instances solved by every configuration "
                       "(that solved any):")
            click.echo(report.text_table(report.display_table(comp, comparison=True,
                                                              terminal=True)))
            gone = report.left_out_note(comp)
            if gone:
                click.echo(gone)
        pub = report.published_table(g)
        if pub is not None:
            click.echo(f"\n{set_name}: published solvers on the same instances:")
            click.echo(report.text_table(pub))
    if legend:
        click.echo("\n" + report.columns.legend(
            [c for c in report.columns.SUMMARY if c in legend]))
    written = []
    if make_figures:
        from bench import plots

        for fname, fig in plots.run_figures(df, figures, title=title).items():
            path = out / f"{fname}.png"
            safe_write.save_figure(fig, path, dpi=130)
            written.append(path.name)
            import matplotlib.pyplot as plt

            plt.close(fig)
    tables = "results.parquet, results.csv, " if wrote_tables else ""
    click.echo(f"\ntables: {out}/{tables}summary.md"
               + (f"; figures: {', '.join(written)}" if written else ""))


def _rows_origin(df: Any) -> str:
    """`` (git REV, DATE .. DATE, CPU)`` of a table's rows, as far as they record it."""
    parts = []
    for col in ("git_rev", "cpu"):
        if col in df:
            vals = sorted({str(v) for v in df[col].dropna()})
            if vals:
                parts.append(("git " if col == "git_rev" else "") + ", ".join(vals))
    if "date" in df and df["date"].notna().any():
        dates = sorted(str(v)[:10] for v in df["date"].dropna())
        parts.append(dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}")
    return f" ({'; '.join(parts)})" if parts else ""


def _run_title(run_dir: Path) -> str:
    """``SUITE (PROFILE)`` from the run's record, else the title of its earlier summary, else
    the folder's name."""
    from bench import runner

    meta = runner.read_run_json(run_dir) or {}
    if isinstance(meta.get("suite"), str) and isinstance(meta.get("profile"), str):
        return f"{meta['suite']} ({meta['profile']})"
    try:
        first = (run_dir / "summary.md").read_text().splitlines()[0]
    except (OSError, IndexError):
        first = ""
    return first[2:].strip() if first.startswith("# ") and first[2:].strip() else run_dir.name


def _made_by(summary: Path) -> list[str]:
    """The "Made by:" list of an earlier ``summary.md`` (its command lines), or []."""
    try:
        text = summary.read_text()
    except OSError:
        return []
    _, found, rest = text.partition("\nMade by:\n\n")
    if not found:
        return []
    return [ln for ln in rest.split("\n\n", 1)[0].splitlines()
            if ln.startswith("- ") and "report redone from" not in ln]


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--figures", "figs", multiple=True, help="only these figures")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="where the tables, summary and figures go (default: RUN_DIR; a new folder; "
                   "required for a run's committed copy, results.csv without rows)")
@click.option("--against", type=click.Path(path_type=Path), default=None, metavar="OTHER_RUN",
              help="pair RUN_DIR's rows with OTHER_RUN's by key: which searches repeat (same "
                   "outcome, path and node counts) and how their seconds compare; writes nothing")
@click.option("--csv", "csv_out", type=click.Path(path_type=Path), default=None,
              help="with --against: also write the pairs, one per row, to this new file")
@click.option("--overwrite", is_flag=True,
              help="redo the summary and figures of a run's committed copy in place, or write "
                   "into an --out folder that holds a report")
def report_cmd(run_dir: Path, figs: tuple[str, ...], out: Path | None, against: Path | None,
               csv_out: Path | None, overwrite: bool) -> None:
    """Tables and figures of RUN_DIR: a suite run (rows.jsonl) or a training run (log.csv);
    with --against, RUN_DIR beside another run of the same tasks."""
    from bench import runner
    from suites.schema import FIGURE_NAMES

    if not run_dir.is_dir():
        raise InputError(f"RUN_DIR: {run_dir} is not a folder")
    if csv_out is not None and against is None:
        raise InputError("--csv: only with --against")
    if against is not None:
        if figs or out is not None:
            raise InputError(f"{'--figures' if figs else '--out'}: not with --against "
                             "(which prints a table and writes nothing but --csv)")
        _report_against(run_dir, against, csv_out)
        return
    for f in figs:
        if f not in FIGURE_NAMES:
            raise InputError(f"--figures: unknown figure {f!r}; known: {', '.join(FIGURE_NAMES)}")
    from bench.run_table import committed_table, evaluation_tables

    evaluations = evaluation_tables(run_dir)
    if evaluations:  # tables of `bench train evaluate`: one configuration per file
        held = [f for f in ("summary.md", *(f"{name}.png" for name in FIGURE_NAMES))
                if ((out or run_dir) / f).exists() or ((out or run_dir) / f).is_symlink()]
        if held and not overwrite:
            raise InputError(f"{'--out' if out is not None else 'RUN_DIR'}: "
                             f"{out or run_dir} already holds a report ({held[0]}); "
                             "choose a new folder or --overwrite")
        write_report(run_dir, list(figs) or None, title=_run_title(run_dir), out=out)
        return
    if (run_dir / runner.ROWS).is_file() or committed_table(run_dir) is not None:
        in_place = out is None or out.resolve() == run_dir.resolve()
        if in_place and not overwrite and (run_dir / runner.ROWS).is_file():
            from bench.provenance import tracked_files

            committed = tracked_files(run_dir)
            if committed:
                raise InputError(f"RUN_DIR: {run_dir} holds committed results ({committed[0]} "
                                 "is tracked by git); give --out DIR to write its report "
                                 "elsewhere, or --overwrite to redo it in place")
        if not (run_dir / runner.ROWS).is_file() and in_place and not overwrite:
            raise InputError(f"RUN_DIR: {run_dir} holds a run's committed table (results.csv) "
                             "without its rows; give --out DIR to write its report elsewhere, or "
                             "--overwrite to redo its summary and figures in place")
        if not in_place and not overwrite and out is not None:
            from bench.provenance import tracked_files

            held = [f for f in ("summary.md", "results.csv", "results.parquet", runner.ROWS,
                                *(f"{name}.png" for name in FIGURE_NAMES))
                    if (out / f).exists() or (out / f).is_symlink()] + tracked_files(out)
            if held:
                raise InputError(f"--out: {out} already holds a report or run ({held[0]}); "
                                 "choose a new folder or --overwrite")
        write_report(run_dir, list(figs) or None, title=_run_title(run_dir), out=out)
        return
    if (run_dir / "log.csv").is_file():
        import matplotlib.pyplot as plt

        from bench import plots

        log = _read_log(run_dir / "log.csv", ("iteration", "loss", "lr"))
        if log is None or log.empty:
            raise InputError(f"RUN_DIR: {run_dir / 'log.csv'} holds no training rows yet")
        depth = _read_log(run_dir / "depth_log.csv", ("iteration", "depth", "greedy_solved"))
        fig, _ = plots.fig_training(log, depth if depth is not None and not depth.empty else None)
        dest = out or run_dir
        figure = dest / "training.png"
        if figure.exists() and not overwrite:
            from bench.provenance import tracked_by_git

            if out is not None or tracked_by_git(figure):
                raise InputError(f"{'--out' if out is not None else 'RUN_DIR'}: {figure} exists"
                                 f"{' (tracked by git)' if out is None else ''}; "
                                 f"{'choose a new folder' if out is not None else 'give --out DIR'}"
                                 " or add --overwrite to replace it")
        dest.mkdir(parents=True, exist_ok=True)
        safe_write.save_figure(fig, dest / "training.png", dpi=130)
        plt.close(fig)
        last = log.tail(1).to_dict("records")[0]
        click.echo("last step: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                             for k, v in last.items()))
        click.echo(f"figure: {dest / 'training.png'}")
        return
    raise InputError(f"RUN_DIR: {run_dir} holds neither a suite run ({runner.ROWS}), evaluation "
                     "tables (`bench train evaluate` CSVs) nor a training log (log.csv)")


def _report_against(run_dir: Path, other_dir: Path, csv_out: Path | None) -> None:
    """Print RUN_DIR's rows paired with OTHER_RUN's, per configuration (and write the pairs)."""
    from bench import report, rundiff, runner

    if not other_dir.is_dir():
        raise InputError(f"--against: {other_dir} is not a folder")
    if csv_out is not None and csv_out.exists():
        raise InputError(f"--csv: {csv_out} exists; name a new file")
    run, other = runner.load_table(run_dir), runner.load_table(other_dir)
    pairs = rundiff.pair_rows(run, other)
    if pairs.empty:
        raise InputError(f"--against: {other_dir} shares no row key with {run_dir} "
                         "(not a run of the same suite)")
    click.echo(report.text_table(rundiff.display(rundiff.by_config(pairs))))
    click.echo(f"\n{len(pairs):,} pairs of {len(run):,} rows in RUN_DIR and {len(other):,} in "
               f"OTHER_RUN; repeated: same task, status, path and node counts; x: seconds in "
               f"OTHER_RUN over seconds in RUN_DIR, over the repeated pairs whose "
               "searches ran to their own end (solved, depth or node limit...).")
    for name, df in (("RUN_DIR", run), ("OTHER_RUN", other)):
        note = report.machines_note(df, always=True)
        if note:
            click.echo(f"{name}: {note}")
    if csv_out is not None:
        csv_out.parent.mkdir(parents=True, exist_ok=True)
        safe_write.save_csv(pairs, csv_out, arg="--csv", index=False)
        click.echo(f"pairs: {csv_out}")


def _read_log(path: Path, columns: tuple[str, ...]) -> Any:
    """A training log as a DataFrame of numbers (lines that are not rows dropped), None if absent
    or empty; ``InputError`` if it lacks ``columns``."""
    import pandas as pd

    if not path.is_file():
        return None
    try:
        df = pd.read_csv(path, encoding_errors="replace")
    except pd.errors.EmptyDataError:
        return None
    except (pd.errors.ParserError, ValueError, OSError) as exc:
        raise InputError(f"RUN_DIR: {path} is not a training log "
                         f"({str(exc).strip().splitlines()[0][:120]})") from None
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"RUN_DIR: {path} is not a training log (no column {missing[0]!r})")
    df = df.apply(pd.to_numeric, errors="coerce")
    return df.dropna(subset=list(columns)).reset_index(drop=True)


# --------------------------------------------------------------------------- bench quality
#: the files ``bench quality --out DIR`` writes
QUALITY_FILES = ("quality.csv", "quality.md", "quality.png")


@click.command("quality")
@click.argument("puzzle")
@click.argument("heuristics", nargs=-1, required=True)
@click.option("--sample", type=click.IntRange(min=1, max=10**9), default=None,
              help="evaluate on this many states of the enumeration (default: every state)")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), default=None, help="folder for table and figure")
@click.option("--model", "models", multiple=True,
              help="learned heuristics: evaluate this model (name or run folder; repeatable, one row each)")
@click.option("--overwrite", is_flag=True,
              help="replace quality.csv, quality.md and quality.png where --out holds them")
def quality_cmd(puzzle: str, heuristics: tuple[str, ...], sample: int | None, seed: int,
                out: Path | None, models: tuple[str, ...], overwrite: bool) -> None:
    """h against the true distance on every state of PUZZLE (8-puzzle, 2x2x2 cube)."""
    from bench import quality, report

    if out is not None:
        for f in QUALITY_FILES:  # before the evaluation: --overwrite replaces files, not links
            safe_write.refuse_links(out / f, arg="--out")
        held = [f for f in QUALITY_FILES if (out / f).exists()]
        if held and not overwrite:
            raise InputError(f"--out: {out / held[0]} exists; choose a new folder or --overwrite "
                             "to replace it")
    table, per_state = quality.evaluate(puzzle, list(heuristics), sample=sample, seed=seed,
                                        models=list(models))
    click.echo(report.text_table(quality.display(table)))
    if out is not None:
        import matplotlib.pyplot as plt

        from bench import plots

        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise safe_write.write_error(out, exc, "--out") from None
        safe_write.save_csv(table, out / "quality.csv", arg="--out", index=False)
        from bench.provenance import provenance

        prov = provenance()
        where = table["evaluated_on"].iloc[0]
        text = (f"# Heuristic quality on {puzzle} ({where})\n\n"
                f"Command: `bench {' '.join(sys.argv[1:])}`\n\n"
                f"Made {prov['date']} on {prov['cpu']}, git {prov['git_rev']}.\n\n"
                + report.markdown_table(quality.display(table)) + "\n\n"
                "h <= d %: states never overestimated; h <= d+1 %: within one move. For "
                "comparison, DeepCubeA reports 66.8% and 97.4% for its cube network.\n")
        safe_write.write_text(out / "quality.md", text, arg="--out")
        fig, _ = plots.fig_quality(per_state)
        safe_write.save_figure(fig, out / "quality.png", arg="--out", dpi=130)
        plt.close(fig)
        click.echo(f"wrote {out}/quality.csv, quality.md, quality.png")
