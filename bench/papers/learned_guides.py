"""The table ``learned-guides``, declared in :data:`TABLE` (what it reproduces: its
``summary``).

The networks are trained and the searches run by the experiment ``experiments.learned_guides``
(:data:`HOW`), which writes this table with
:func:`write` from its runs (:func:`summarize`: our rows of each puzzle's run;
:func:`published_rows`: the published figures beside them). ``bench paper learned-guides`` says
how to run it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from bench import columns, report
from bench.papers.paper_table import PaperTable, Request, frame_rows, header
from core import safe_write
from core.errors import InputError


class GuideConfig(Protocol):
    """A configuration of a puzzle's run, as the table reads it."""

    @property
    def name(self) -> str: ...
    @property
    def guide(self) -> str: ...
    @property
    def search(self) -> str: ...
    @property
    def width(self) -> int | None: ...
    @property
    def guide_label(self) -> str: ...
    @property
    def search_label(self) -> str: ...


class GuideRecord(Protocol):
    """The model of a guide, as the table reads it: the CPU minutes it trained for."""

    @property
    def cpu_minutes(self) -> float | None: ...


#: how the table is made (``bench paper learned-guides`` answers with it)
HOW = ("python -m experiments.learned_guides --train-minutes M [--puzzles P,...] [--out OUT]")


def _mean(s: pd.Series) -> float | None:
    v = pd.to_numeric(s, errors="coerce").astype(float).dropna()
    return float(v.mean()) if len(v) else None


def figures(g: pd.DataFrame) -> dict[str, Any]:
    """The figures of one configuration's rows ``g``: solved %, mean length, % optimal (of the
    states with a known optimum, solved at it), and over the solved states the mean expanded
    and generated states, network evaluations and seconds."""
    n = len(g)
    ok = g[g["status"] == "solved"]
    opt = pd.to_numeric(g.get("optimal", pd.Series(np.nan, index=g.index)),
                        errors="coerce").astype(float)
    known = opt.notna()
    evals = ok["network_evaluations"] if "network_evaluations" in ok else pd.Series(dtype=float)
    return {"states": n,
            "solved %": columns.solved_share(g).pct if n else None,
            "mean length": _mean(ok["length"]),
            columns.OPTIMAL.label: str(columns.optimal_share(g)) if known.any() else None,
            "mean expanded": _mean(ok["nodes_expanded"]) if "nodes_expanded" in ok else None,
            "mean generated": _mean(ok["nodes_generated"]),
            "mean network evaluations": _mean(evals),
            "mean s per instance": _mean(ok["time_s"])}


COLUMNS = ("puzzle", "guide", "search", "training CPU-min", "states", "solved %", "mean length",
           columns.OPTIMAL.label, "mean expanded", "mean generated", "mean network evaluations",
           "mean s per instance", "source")


def published_rows(puzzle: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """DeepCubeA's figures (its results files on these states and on all it lists; its text)
    and EfficientCube's, for ``puzzle``; ``df``: our rows (optima filled)."""
    from bench import published

    rows: list[dict[str, Any]] = []
    base = {"puzzle": puzzle, "training CPU-min": None}
    files = published.per_instance(puzzle)
    per = df.drop_duplicates("instance")
    if "published_length" in per and per["published_length"].notna().any():
        listed = per[per["published_length"].notna()]
        lengths = pd.to_numeric(listed["published_length"]).astype(float)
        opt = pd.to_numeric(listed.get("optimal", pd.Series(np.nan, index=listed.index)),
                            errors="coerce").astype(float)
        known = opt.notna()
        rows.append({**base, "guide": "DeepCubeA", "search": "BWAS (its settings)",
                     "states": len(per), "solved %": columns.Share(len(listed), len(per)).pct,
                     "mean length": float(lengths.mean()),
                     columns.OPTIMAL.label: str(columns.optimal_share_of(lengths[known],
                                                                         opt[known]))
                     if known.any() else None,
                     "mean generated": _mean(listed["published_nodes"])
                     if "published_nodes" in listed else None,
                     "source": f"{published.FILES}: these {len(per)} states"})
    if files is not None:
        pct = published.stated(puzzle, "optimal_pct").value
        rows.append({**base, "guide": "DeepCubeA", "search": "BWAS (its settings)",
                     "states": files["n"], "solved %": published.stated(puzzle, "solved_pct").value,
                     "mean length": files["mean_length"], columns.OPTIMAL.label: pct,
                     "mean generated": files["mean_nodes"],
                     "mean s per instance": files["mean_time_s"],
                     "source": f"{published.FILES}: all it lists (solved %, % optimal: "
                               f"{published.PAPER})"})
    for fig in published.EFFICIENTCUBE:
        if fig["puzzle"] != puzzle:
            continue
        rows.append({**base, "guide": fig["guide"], "search": fig["search"],
                     "states": fig.get("states"), "solved %": fig.get("solved_pct"),
                     "mean length": fig.get("mean_length"),
                     columns.OPTIMAL.label: fig.get("optimal_pct"),
                     "source": published.EFFICIENTCUBE_SOURCE})
    return rows


def summarize(puzzle: str, run_dir: Path, cfgs: Sequence[GuideConfig], keys: set[str],
              models: Mapping[str, GuideRecord]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Our rows of ``puzzle``'s table (one per configuration, in ``cfgs`` order) and the run's
    rows of this plan (``keys``), optima filled from the run's optimal solver."""
    from bench import report
    from bench.run_table import load_table

    df = report.with_reference_optima(load_table(run_dir))
    df = df[df["key"].isin(keys)]
    out = []
    for c in cfgs:
        g = df[df["config"] == c.name]
        if g.empty:
            continue
        m = models.get(c.guide)
        out.append({"puzzle": puzzle, "guide": c.guide_label, "search": c.search_label,
                    "training CPU-min": round(m.cpu_minutes, 3) if m and m.cpu_minutes else None,
                    **figures(g), "source": "ours", "_kind": c.search, "_width": c.width,
                    "_guide": c.guide})
    return out, df


def table(res: dict[str, Any], out: Path, command: str,
          notes: list[str]) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame from ``res`` (``table``: the rows of ``COLUMNS``;
    ``points``: our rows with their search kind and width), with ``notes`` above it and the
    figure ``length-vs-time.png`` written into ``out``."""
    import matplotlib.pyplot as plt

    from bench import plots

    frame: pd.DataFrame = res["table"]
    pts = res["points"].rename(columns={"_kind": "kind", "_width": "width",
                                        "mean length": "mean_length",
                                        "mean s per instance": "mean_time_s"})
    these = frame[frame["source"].astype(str).str.contains("these") & frame["mean length"].notna()]
    levels = pd.DataFrame({"puzzle": these["puzzle"], "mean_length": these["mean length"],
                           "label": "DeepCubeA, these states"})
    fig, _ = plots.fig_length_vs_time(pts, levels)
    safe_write.save_figure(fig, out / "length-vs-time.png", arg="--out", dpi=130)
    plt.close(fig)
    lines = header("Learned guides at an equal training budget, and PDBs, under the same "
                   "searches", command, notes)
    lines += [report.markdown_table(frame_rows(frame)), ""]
    return "\n".join(lines), frame


def write(res: dict[str, Any], dest: Path, command: str, notes: list[str]) -> str:
    """Write the table into ``dest`` (``table.md``, ``table.csv``, ``provenance.json``, the
    figure), as ``bench paper`` writes every table; returns its markdown."""
    from bench.provenance import provenance

    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {dest}: {exc.strerror or exc}") from None
    text, frame = table(res, dest, command, notes)
    safe_write.write_text(dest / "table.md", text, arg="--out")
    safe_write.save_csv(frame, dest / "table.csv", arg="--out", index=False)
    safe_write.write_text(dest / "provenance.json", json.dumps(provenance(), indent=2, default=str),
                          arg="--out")
    return text


def _check(req: Request) -> None:
    raise InputError(f"NAME: learned-guides trains its networks and runs its own suites: make "
                     f"it with {HOW}")


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    _check(req)
    raise AssertionError("unreachable")


TABLE = PaperTable(
    name="learned-guides",
    summary="DAVI, diffusion-distance and policy networks trained for the same CPU time "
            "(--train-minutes each), and the PDBs (Korf's on the cube, 7-8 on the 15-puzzle), "
            "under beam search at --widths and BWAS on DeepCubeA's first states of --puzzles "
            "(cube3, puzzle15, lightsout7 by default), beside EfficientCube's and DeepCubeA's "
            "figures, with a figure of mean length against time. Made by "
            f"{HOW}: missing networks are trained first (interrupted ones resumed), and "
            "--model PUZZLE-TARGET=PATH uses a model trained elsewhere.",
    make=_make, check=_check, runs="none",
    instances="DeepCubeA's first 100 test states per puzzle (--limit)",
    published=("bench.published:per_instance", "bench.published:EFFICIENTCUBE"),
)
