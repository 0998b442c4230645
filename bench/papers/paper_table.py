"""What a paper table declares (:class:`PaperTable`), the request it is made for
(:class:`Request`), and what tables share: running a suite profile, checking a finished run,
the page header, frames as text cells."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from bench.provenance import provenance
from core.errors import InputError


@dataclass(frozen=True)
class Request:
    """One ``bench paper NAME`` call, its options checked for the table: ``runs`` the finished
    runs given with ``--run`` (none, one or several), ``dest`` the table's folder
    (``OUT/NAME``), ``count`` the states of a table that solves them itself (its default
    filled in)."""

    name: str
    runs: tuple[Path, ...] = ()
    limit: int | None = None
    jobs: int | None = None
    dest: Path = Path()
    command: str = ""
    build: bool = False
    profile: str | None = None
    count: int | None = None

    @property
    def run(self) -> Path | None:
        """The one finished run given (tables that read one)."""
        return self.runs[0] if self.runs else None


#: the function that makes a table: its markdown and its frame (written as ``table.csv``)
Maker = Callable[[Request], tuple[str, pd.DataFrame]]


@dataclass(frozen=True)
class PaperTable:
    """A published table regenerated with our code, declared once: ``bench paper --help`` and
    the documentation's page of paper tables (``docs/paper.md``, its sections made from the
    declarations when the site is built) read it.

    ``summary``: what it reproduces, one paragraph of plain text (the only description of the
    table). ``suites``: the suites whose runs it reads (a run given with ``--run`` must be a run
    of one of them; empty: runs of any suite, checked by the table, or none). ``runs``: how many
    finished runs ``--run`` gives (``none``: the table solves its own states; ``one``;
    ``several``). ``profile``: the suite profile it runs when no run is given (None: it runs no
    suite). ``count``: the states it solves itself unless ``--count`` says otherwise (None:
    ``--count`` does not apply). ``instances``: which instances, in words. ``build``: whether
    ``--build`` applies. ``published``: the published figures it sets beside ours, as
    ``module:attribute`` names. ``make``: the function that makes it. ``check``: the table's own
    refusals of a request, before anything runs (one-line :class:`InputError`). ``from_runs``:
    the committed runs (folders of ``results/``) that the committed table ``results/NAME`` was
    made from. ``method``: (title, page) of the documentation page that explains the method it
    runs, if one does."""

    name: str
    summary: str
    make: Maker
    instances: str
    published: tuple[str, ...]
    suites: tuple[str, ...] = ()
    runs: Literal["none", "one", "several"] = "one"
    profile: str | None = None
    count: int | None = None
    build: bool = False
    check: Callable[[Request], None] | None = field(default=None, compare=False)
    from_runs: tuple[str, ...] = ()
    method: tuple[str, str] | None = None


def run_suite(suite_name: str, profile: str, limit: int | None, jobs: int | None,
              run_dir: Path) -> Path:
    """Run (or resume) profile ``profile`` of suite ``suite_name`` in ``run_dir``."""
    from bench import runner
    from bench.executor import LocalExecutor
    from suites.schema import load_suite

    suite = load_suite(suite_name)
    plan = runner.plan_run(suite, profile, (), limit)
    resume = (run_dir / runner.ROWS).is_file()
    runner.run_plan(plan, run_dir, LocalExecutor(jobs=jobs), resume=resume)
    return run_dir


def check_run(run_dir: Path, suite_name: str) -> None:
    """Refuse a finished run that is not a run of ``suite_name`` (one-line error). A committed
    copy of a run (its ``results.csv``, no ``rows.jsonl``) is a run too."""
    from bench.run_record import ROWS, read_run_json
    from bench.run_table import load_table

    if not Path(run_dir).is_dir():
        raise InputError(f"--run: {run_dir} is not a folder")
    try:
        rows = load_table(Path(run_dir))
    except InputError:
        raise InputError(f"--run: {run_dir} has no result rows ({ROWS} or results.csv)") from None
    meta = read_run_json(run_dir) or {}
    suites = {str(s) for s in rows["suite"]} if "suite" in rows else {"None"}
    if meta.get("suite") is not None:
        suites.add(str(meta["suite"]))
    if suites != {suite_name}:
        found = ", ".join(sorted(s for s in suites if s != "None")) or "no suite on record"
        raise InputError(f"--run: {run_dir} is not a run of suite {suite_name} ({found})")


def check_run_any(run_dir: Path, suites: tuple[str, ...]) -> str:
    """The suite of ``suites`` that ``run_dir`` is a run of; refuse a run of none of them
    (one-line error)."""
    errors = []
    for suite in suites:
        try:
            check_run(run_dir, suite)
            return suite
        except InputError as exc:
            errors.append(str(exc))
    raise InputError(errors[0].replace(f"suite {suites[0]}", "suite " + " or ".join(suites)))


def refuse_profile(req: Request, why: str = "") -> None:
    """Refuse ``--profile`` for a table that runs no suite."""
    if req.profile is not None:
        raise InputError(f"--profile: {req.name} runs no suite{why}")


def refuse_run(req: Request) -> None:
    """Refuse ``--run`` for a table that reads no run."""
    if req.runs:
        raise InputError(f"--run: {req.name} reads no run")


def refuse_profile_and_run(req: Request) -> None:
    """The check of a table that runs no suite and reads no run."""
    refuse_profile(req)
    refuse_run(req)


def header(title: str, command: str, notes: list[str]) -> list[str]:
    """The lines above a table: its title, the command that made it, provenance, notes."""
    prov = provenance()
    return [f"# {title}", "", f"Command: `{command}`", "",
            f"Made {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC on {prov['cpu']} "
            f"({prov['cores']} cores), GPU {prov['gpu']}, git {prov['git_rev']}, "
            f"numpy {prov['v_numpy']}, numba {prov['v_numba']}, torch {prov['v_torch']}.", "",
            *notes, ""]


def frame_rows(df: pd.DataFrame) -> list[list[str]]:
    """A frame as header + rows of text for ``report.markdown_table``: whole numbers without a
    decimal point, at most two decimals otherwise, ``-`` where there is no figure."""
    def cell(v: Any) -> str:
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return "-"
        if isinstance(v, float | np.floating):
            x = float(v)
            if x.is_integer():
                return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
            if abs(x) < 1:
                return f"{x:.3g}"
            return f"{x:,.2f}".rstrip("0").rstrip(".")
        if isinstance(v, int | np.integer):
            return f"{int(v):,}" if abs(int(v)) >= 10_000 else str(int(v))
        return str(v)

    return [list(map(str, df.columns))] + [[cell(v) for v in row] for row in
                                            df.itertuples(index=False)]
