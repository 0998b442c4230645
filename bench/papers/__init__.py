"""Published tables regenerated with our code, the published figures side by side with ours.

Each table is declared once, in a module of its own (:class:`~bench.papers.paper_table.PaperTable`:
the runs or suite it reads, its instances, the published figures it sets beside ours, the
function that makes it); ``PAPERS`` names them, loaded when asked for. ``make(name, ...)``
checks the request against the declaration, runs (or reads) what the table needs and writes
``OUT/NAME/`` with ``table.md`` (the table, the command that made it, provenance),
``table.csv``, ``provenance.json`` and figures. ``OUT`` is ``runs/paper`` unless given: the
committed tables under ``results/`` change only when asked for (``--out results``). A finished
run given with ``--run`` must be a run of the table's suite. Published figures we do not have on
record are shown as ``not recorded``, never invented.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from bench.papers.paper_table import PaperTable, Request
from core import safe_write
from core.errors import InputError

DEFAULT_OUT = Path("runs") / "paper"

#: table name -> ``module:attribute`` of its declaration (a :class:`PaperTable`), in the order
#: ``bench paper --help`` lists them
PAPERS: dict[str, str] = {
    "felner2004": "bench.papers.felner2004:TABLE",
    "deepcubea-table2": "bench.papers.deepcubea_table2:TABLE",
    "deepcubea-table3": "bench.papers.deepcubea_table3:TABLE",
    "deepcubea-fig2": "bench.papers.deepcubea_fig2:TABLE",
    "korf1982": "bench.papers.korf1982:TABLE",
    "bischoff2013": "bench.papers.bischoff2013:TABLE",
    "deepcubea-summary": "bench.papers.deepcubea_summary:TABLE",
    "deepcubea-table1": "bench.papers.deepcubea_table1:TABLE",
    "deepcubea-table4": "bench.papers.deepcubea_table4:TABLE",
    "deepcubea-table5": "bench.papers.deepcubea_table5:TABLE",
    "phipat2020": "bench.papers.phipat2020:TABLE",
    "learned-guides": "bench.papers.learned_guides:TABLE",
}


def declaration(name: str) -> PaperTable:
    """The declaration of table ``name`` (its module imported now); unknown names are a
    one-line error with the closest known one."""
    if name not in PAPERS:
        import difflib

        close = difflib.get_close_matches(name, list(PAPERS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InputError(f"NAME: unknown table {name!r}{hint}; known: {', '.join(PAPERS)}")
    module, _, attr = PAPERS[name].partition(":")
    table = getattr(importlib.import_module(module), attr)
    assert isinstance(table, PaperTable) and table.name == name, PAPERS[name]
    return table


def declarations() -> list[PaperTable]:
    """Every table's declaration, in ``PAPERS`` order."""
    return [declaration(name) for name in PAPERS]


def _run_list(run_dir: Path | list[Path] | tuple[Path, ...] | None) -> list[Path]:
    """The finished runs given with ``--run``, as a list (none, one or several)."""
    return [run_dir] if isinstance(run_dir, Path) else list(run_dir or [])


def request(name: str, run_dir: Path | list[Path] | tuple[Path, ...] | None = None,
            limit: int | None = None, jobs: int | None = None, out: Path = DEFAULT_OUT,
            command: str = "", build: bool = False, profile: str | None = None,
            count: int | None = None) -> tuple[PaperTable, Request]:
    """Table ``name`` and the request of these options, checked against its declaration (the
    options every table shares first, then the table's own rules); one-line errors."""
    table = declaration(name)
    if count is not None and table.count is None:
        counted = [t.name for t in declarations() if t.count is not None]
        raise InputError(f"--count: applies to {' and '.join(counted)}, not to {name}")
    if limit is not None and table.count is not None:
        raise InputError(f"--limit: {name} solves random states; give their number with --count")
    runs = _run_list(run_dir)
    if table.runs != "several" and len(runs) > 1:
        raise InputError(f"--run: {name} reads one run, not {len(runs)}")
    req = Request(name=name, runs=tuple(runs), limit=limit, jobs=jobs, dest=out / name,
                  command=command or f"bench paper {name}", build=build, profile=profile,
                  count=count if count is not None else table.count)
    if table.check is not None:
        table.check(req)
    if table.runs == "one" and table.suites and req.run is not None:
        from bench.papers.paper_table import check_run

        check_run(req.run, table.suites[0])
    return table, req


def with_revision_note(text: str, runs: tuple[Path, ...]) -> str:
    """``text`` with a note below its provenance line naming the rows of the finished ``runs``
    whose code cannot be traced to a commit (``bench.report.revision_note``: made from a tree
    with uncommitted changes, from a revision missing from this history, or with none)."""
    if not runs:
        return text
    import pandas as pd

    from bench import report
    from bench.run_table import read_table

    frames = []
    for run in runs:
        try:  # provenance only: the table has replayed the rows it counts
            frames.append(read_table(Path(run)))
        except InputError:
            continue  # the table itself has said what is wrong with the run
    note = report.revision_note(pd.concat(frames, ignore_index=True)) if frames else ""
    if not note:
        return text
    lines = text.split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("Made ")), 1)
    return "\n".join([*lines[:at], "", f"Runs read: {note}", *lines[at:]])


def make(name: str, run_dir: Path | list[Path] | tuple[Path, ...] | None = None,
         limit: int | None = None, jobs: int | None = None, out: Path = DEFAULT_OUT,
         command: str = "", build: bool = False, profile: str | None = None,
         count: int | None = None) -> str:
    """Make table ``name`` into ``out/name/``; returns its markdown.

    ``run_dir``: the finished run(s) given with ``--run``. ``profile``: the suite profile run by
    the tables made from a suite run (the declaration's ``profile`` unless given). ``count``:
    the states of a table that solves its own (the declaration's ``count`` unless given)."""
    from bench.provenance import provenance

    table, req = request(name, run_dir, limit, jobs, out, command, build, profile, count)
    try:
        req.dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {req.dest}: {exc.strerror or exc}") from None
    text, frame = table.make(req)
    text = with_revision_note(text, req.runs)
    safe_write.write_text(req.dest / "table.md", text, arg="--out")
    safe_write.save_csv(frame, req.dest / "table.csv", arg="--out", index=False)
    safe_write.write_text(req.dest / "provenance.json", json.dumps(provenance(), indent=2, default=str),
                          arg="--out")
    return text
