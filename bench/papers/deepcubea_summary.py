"""The table ``deepcubea-summary``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the code that reads each run's rows on DeepCubeA's test states, counts them with
the shared columns (:mod:`bench.columns`) and sets DeepCubeA's figures on the same states
beside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from bench import columns, report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    frame_rows,
    header,
    refuse_profile,
)
from core.errors import InputError

#: the figures of the per-domain summary, in its order
SUMMARY_FIGURES = (("solved_pct", "solved %"), ("mean_length", "mean length"),
                   ("optimal_pct", columns.OPTIMAL.label), ("mean_nodes", "mean nodes generated"),
                   ("mean_time_s", "mean seconds"))


def _ours(run_dir: Path) -> tuple[str, dict[str, dict[str, Any]], list[int]]:
    """The puzzle of a run, per configuration its figures on DeepCubeA's test states, and the
    indices of those states in DeepCubeA's test set (the instance ids)."""
    from bench.run_table import load_table

    df = report.with_reference_optima(load_table(run_dir))
    if "instance_set" in df:
        df = df[df["instance_set"] == "deepcubea"]
    if df.empty:
        raise InputError(f"--run: {run_dir} has no rows on DeepCubeA's test states "
                         "(instance set deepcubea)")
    puzzles = sorted(df["puzzle"].dropna().unique())
    if len(puzzles) != 1:
        raise InputError(f"--run: {run_dir} mixes puzzles ({', '.join(puzzles)})")
    figures: dict[str, dict[str, Any]] = {}
    per = df.drop_duplicates("instance")
    pub: dict[str, float] = {}  # DeepCubeA's own figures on the states of this run
    if "published_length" in per and per["published_length"].notna().any():
        listed = per[per["published_length"].notna()]
        pub.update(mean_length=float(listed["published_length"].mean()), n_listed=float(len(listed)))
        if "published_nodes" in listed and listed["published_nodes"].notna().all():
            pub["mean_nodes"] = float(listed["published_nodes"].mean())
    if "published_length" in per and "optimal" in per:  # DeepCubeA's lengths against known optima
        both = per[per["published_length"].notna() & per["optimal"].notna()]
        if len(both):
            share = columns.optimal_share_of(both["published_length"], both["optimal"])
            pub.update(optimal_pct=share.pct, n=float(share.n))
    if pub:
        figures["__published__"] = pub
    for config, g in df.groupby("config", sort=False):
        st = report.summarize(g, ci=False).iloc[0]
        figures[str(config)] = {"solved_pct": st["solved_pct"], "mean_length": st["mean_length"],
                                "optimal_pct": columns.BY_KEY["optimal_pct"].render(st),
                                "mean_nodes": st["mean_nodes"],
                                "mean_time_s": st["mean_time_s"], "n": st["n"]}
    indices = sorted(int(i) for i in per["instance"] if str(i).isdigit())
    return str(puzzles[0]), figures, indices


def published_mean_time(files: dict[str, Any] | None, indices: list[int]) -> tuple[float, int] | None:
    """DeepCubeA's mean seconds over the states of our run that its results file lists, and how
    many those are (``None`` without a file or without such states): the time beside our
    lengths is over the same states as they are."""
    if files is None or "times" not in files:
        return None
    times = [files["times"][i] for i in indices if i in files["times"]]
    return (sum(times) / len(times), len(times)) if times else None


def deepcubea_summary(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                      command: str, runs: list[Path] | None = None) -> tuple[str, pd.DataFrame]:
    """The table's markdown and frame from ``runs`` (finished runs, one per puzzle)."""
    from bench import published

    per_puzzle: dict[str, tuple[Path, dict[str, dict[str, Any]]]] = {}
    indices: dict[str, list[int]] = {}
    for rd in runs or []:
        puzzle, figs, idx = _ours(rd)
        if puzzle in per_puzzle:
            raise InputError(f"--run: {per_puzzle[puzzle][0]} and {rd} are both runs of {puzzle}; "
                             "give one per puzzle")
        per_puzzle[puzzle] = (rd, figs)
        indices[puzzle] = idx
    configs = list(dict.fromkeys(c for _, figs in per_puzzle.values() for c in figs
                                 if c != "__published__"))
    rows = []
    for domain in published.DOMAINS:
        files = published.per_instance(domain)
        ours = per_puzzle.get(domain, (None, {}))[1]
        puzzle = domain if domain in per_puzzle else ""
        for key, label in SUMMARY_FIGURES:
            fig = published.stated(domain, key)
            row: dict[str, Any] = {
                "domain": domain, "figure": label,
                "DeepCubeA (text)": fig.value if fig.value is not None else "not stated",
                "DeepCubeA (results files)":
                    "no file" if files is None else
                    files.get(key) if key != "solved_pct" else f"{files['n']} listed"}
            known = ours.get("__published__") if domain == puzzle else None
            if key == "optimal_pct" and files is not None:
                row["DeepCubeA (results files)"] = "-" if known is None or "n" not in known else \
                    f"{known['optimal_pct']:.1f} (the {int(known['n'])} states of our run)"
            elif key in ("mean_length", "mean_nodes") and known is not None and key in known:
                v = known[key]
                shown = f"{v:.2f}" if key == "mean_length" else f"{round(v):,}"
                row["DeepCubeA (results files)"] = f"{shown} (the {int(known['n_listed'])} states of our run)"
            elif key == "mean_time_s" and domain == puzzle:
                timed = published_mean_time(files, indices.get(domain, []))
                if timed is not None:
                    row["DeepCubeA (results files)"] = \
                        f"{timed[0]:.2f} (the {timed[1]} states of our run)"
            for config in configs:
                mine = ours.get(config)
                value = mine.get(key) if mine is not None else "not run here"
                if key == "mean_nodes" and isinstance(value, float):
                    value = round(value)
                row[f"ours: {config}"] = value
            if key == "mean_nodes" and isinstance(row["DeepCubeA (results files)"], float):
                row["DeepCubeA (results files)"] = round(row["DeepCubeA (results files)"])
            rows.append(row)
    df = pd.DataFrame(rows)
    notes = ["DeepCubeA (text): figures stated in the paper; DeepCubeA (results files): means "
             "over its per-instance results (`deepcubea_results_output.txt`: the states it lists "
             "as solved, their lengths, nodes generated and seconds on its GPU machine). The two "
             "differ slightly where both exist (e.g. puzzle48: 253.53 in the text, the files' "
             "mean below). % optimal of the results files and ours counts the states of our run "
             "against the optimal solutions in DeepCubeA's test sets (cube3, puzzle15, puzzle24: "
             "replayed before use); where the two sources differ (cube3: 60.3% in the text, "
             "65.0% over all 1,000 in its results file) both are shown, labelled."]
    for puzzle, (rd, ours) in per_puzzle.items():
        notes.append(f"Ours, {puzzle}: `{rd}` (DeepCubeA's test states: "
                     + ", ".join(f"{c} {int(f['n'])}" for c, f in ours.items()
                                 if c != "__published__")
                     + " states), on this machine's CPU.")
    if not per_puzzle:
        notes.append("Ours: no run given (`--run RUN`, a suite run on DeepCubeA's test states).")
    lines = header("DeepCubeA's results per domain, published beside ours", command, notes)
    lines += [report.markdown_table(frame_rows(df)), ""]
    return "\n".join(lines), df


def _check(req: Request) -> None:
    refuse_profile(req, "; give a finished run with --run")
    if req.limit is not None:
        raise InputError(f"--limit: {req.name} reads a finished run (--run)")


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return deepcubea_summary(None, req.limit, req.jobs, req.dest, req.command,
                             runs=list(req.runs))


TABLE = PaperTable(
    name="deepcubea-summary",
    summary="DeepCubeA's per-domain results (the paper's text, and the means of its "
            "per-instance results files on the states of our runs) beside the runs given with "
            "--run, one per puzzle.",
    make=_make, check=_check, runs="several",
    instances="DeepCubeA's test states in the runs given (one per puzzle)",
    published=("bench.published:TEXT", "bench.published:per_instance"),
)
