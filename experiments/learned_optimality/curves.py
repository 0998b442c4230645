"""% optimal of the learned networks against training and against search, from finished rows.

Reads committed suite rows (and the CSVs of ``cube3_training_curve.sh``), fills the reference
optima (DeepCubeA's optimal solutions, replayed) and prints markdown tables: one row per
(network, search) on the instances every row of the table shares, with the share optimal, the
mean excess and the mean seconds per state. Nothing is searched here.

    python -m experiments.learned_optimality.curves --curve runs/cube3-training-curve \
        --puzzle24 runs/puzzle24-search-curve [--puzzle24-training runs/puzzle24-training-curve] \
        [--puzzle24-wide runs/puzzle24-wide-beam]
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from bench.evaluate import summarize as evaluation_summary
from bench.report_optima import with_reference_optima
from core.paths import checkout_dir

#: committed rows are named relative to the checkout, whatever the working folder
ROOT = checkout_dir()


@dataclass(frozen=True)
class Source:
    """One (network, search) row: where its rows are and how to pick them."""

    path: Path
    config: str | None
    network: str
    states: str
    width: str
    threads: int


def need(path: Path) -> Path:
    """``path`` if it is a file; else a one-line error naming it, exit status 2."""
    if not path.is_file():
        print(f"error: {path}: no such file (give the folders the rows were written to)",
              file=sys.stderr)
        raise SystemExit(2)
    return path


@functools.cache
def load(path: Path, config: str | None) -> pd.DataFrame:
    """The solved-or-not rows of one configuration with their reference optima (read once per
    process: the tables and the figure share them; callers only read them)."""
    need(path)
    if path.suffix == ".jsonl":
        df = pd.read_json(path, lines=True)
    else:
        df = pd.read_csv(path)
    if config is not None:
        df = df[df["config"] == config]
    if df.empty:
        raise SystemExit(f"{path}: no rows of configuration {config!r}")
    return with_reference_optima(df)


def summarize(df: pd.DataFrame, instances: list[str]) -> dict[str, float]:
    """Share optimal (``bench.evaluate.summarize``), mean excess of the solved ones, mean seconds
    and the host's CPU score on ``instances``."""
    rows = df[df["instance"].astype(str).isin(instances)]
    if len(rows) != len(instances):
        raise SystemExit(f"{len(rows)} rows for {len(instances)} instances")
    optimal = pd.to_numeric(rows["optimal"], errors="coerce")
    if optimal.isna().any():
        raise SystemExit("an instance without a reference optimum")
    base = evaluation_summary(rows)
    solved = rows["status"] == "solved"
    excess = (pd.to_numeric(rows["length"], errors="coerce") - optimal)[solved]
    return {"n": len(rows), "solved": int(solved.sum()),
            "optimal": round(base["optimal"] * len(rows)), "excess": float(excess.mean()),
            "seconds": base["mean_time_s"],
            "cpu_score": float(pd.to_numeric(rows["cpu_score"], errors="coerce").median())
            if "cpu_score" in rows else float("nan")}


def measure(sources: list[Source], first: int) -> list[dict[str, float]]:
    """The summary of every source on the first ``first`` instances (by number)."""
    instances = [str(i) for i in range(first)]
    return [summarize(load(s.path, s.config), instances) for s in sources]


def table(sources: list[Source], first: int) -> str:
    """A markdown table of ``sources`` on the first ``first`` instances (by number)."""
    lines = ["| network | states seen | search | threads | solved | optimal | % optimal | "
             "mean excess | s a state | host's CPU score |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for s, m in zip(sources, measure(sources, first), strict=True):
        score = "-" if math.isnan(m["cpu_score"]) else f"{m['cpu_score']:.0f}"
        lines.append(f"| {s.network} | {s.states} | {s.width} | {s.threads} | {m['solved']}/{m['n']} | "
                     f"{m['optimal']} | {100 * m['optimal'] / m['n']:.1f} | {m['excess']:.2f} | "
                     f"{m['seconds']:.1f} | {score} |")
    return "\n".join(lines)


def beam_width(search: str) -> int:
    """The width in a search's name (``"beam 16,384 + goal table 7"`` -> 16384)."""
    found = re.search(r"beam ([\d,]+)", search)
    if found is None:
        raise ValueError(f"no beam width in {search!r}")
    return int(found[1].replace(",", ""))


def figure(path: Path, training: dict[str, list[Source]], search: dict[str, list[Source]],
           goals: dict[str, float]) -> None:
    """% optimal on DeepCubeA's first 100 states against the states a network was trained on
    (left) and against the beam width, seconds a state beside each point (right), with each
    puzzle's goal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = {"cube3": "C0", "puzzle24": "C1", "puzzle24, shipped": "C3"}
    for puzzle, sources in training.items():
        states = [float(s.states.split()[0]) for s in sources]
        share = [100 * m["optimal"] / m["n"] for m in measure(sources, 100)]
        left.plot(states, share, "o-", color=colours.get(puzzle),
                  label=f"{puzzle} ({sources[0].width})")
    for puzzle, sources in search.items():
        ms = measure(sources, 100)
        width = [beam_width(s.width) for s in sources]
        for with_table in (False, True):
            pick = [i for i, s in enumerate(sources) if ("goal table" in s.width) == with_table]
            if not pick:
                continue
            right.plot([width[i] for i in pick], [100 * ms[i]["optimal"] / ms[i]["n"] for i in pick],
                       "s--" if with_table else "o-", color=colours.get(puzzle),
                       label=f"{puzzle}{' + goal table 7' if with_table else ''}")
            for i in pick:
                right.annotate(f"{ms[i]['seconds']:.1f} s", (width[i], 100 * ms[i]["optimal"] / ms[i]["n"]),
                               fontsize=7, textcoords="offset points", xytext=(4, -10))
    for axis in (left, right):
        for puzzle, goal in goals.items():
            axis.axhline(goal, ls=":", lw=1, color=colours.get(puzzle))
        axis.set_ylabel("% optimal (DeepCubeA's first 100 states)")
        axis.set_ylim(0, 100)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8, loc="upper left")
    left.set_xlabel("states trained on (millions; CPU)")
    left.set_title("against training (one search)", fontsize=10)
    right.set_xscale("log", base=2)
    right.set_xlabel("beam width (log; one network a line; seconds a state beside each point)")
    right.set_title("against search (dotted: the goals)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def states_seen(config_json: Path) -> str:
    c = json.loads(need(config_json).read_text())
    return f"{c['states_seen'] / 1e6:.0f} M"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--curve", type=Path, required=True,
                    help="the OUT_DIR of cube3_training_curve.sh")
    ap.add_argument("--puzzle24", type=Path, required=True,
                    help="the OUT_DIR of puzzle24_search_curve.sh (with models/it9419/config.json)")
    ap.add_argument("--puzzle24-training", type=Path,
                    help="the OUT_DIR of puzzle24_training_curve.sh")
    ap.add_argument("--puzzle24-wide", type=Path,
                    help="the OUT_DIR of puzzle24_wide_beam.sh (the shipped network's wider beams)")
    ap.add_argument("--figure", type=Path,
                    help="also draw % optimal against training and against search to this PNG")
    args = ap.parse_args(argv)
    if args.figure is not None and not args.figure.parent.is_dir():
        print(f"error: --figure: {args.figure.parent} is not a folder", file=sys.stderr)
        raise SystemExit(2)
    curve = args.curve
    guides = ROOT / "results/learned-guides/runs/cube3/rows.jsonl"
    guide_states = states_seen(ROOT / "results/training/learned-guides/cube3-diffusion/config.json")
    shipped = states_seen(ROOT / "heuristics/models/cube3/config.json")
    beam_curve = ROOT / "results/cube3-beam-curve/results.csv"
    training = [
        Source(curve / "cube3-diffusion-w4096.csv", None,
               "diffusion MLP 3 x 512, 60 CPU-minutes (`learned-guides`)", guide_states,
               "beam 4,096", 1),
        Source(curve / "it14000-w4096.csv", None,
               "shipped run, iteration 14,000 (git 3605a84)",
               states_seen(curve / "models/it14000/config.json"), "beam 4,096", 1),
        Source(curve / "it33371-w4096.csv", None,
               "shipped run, iteration 33,371 (git efb4a3b)",
               states_seen(curve / "models/it33371/config.json"), "beam 4,096", 1),
        # committed rows keep the configuration names they were made under (davi-beam-W,
        # learned; the suites now say diffusion-beam-W, diffusion-learned)
        Source(beam_curve, "davi-beam-4096",
               "shipped run, iteration 46,804 (shipped)", shipped,
               "beam 4,096", 1),
    ]
    print("## cube3: % optimal against training (DeepCubeA's first 100 cubes, one search)\n")
    print(table(training, 100))
    search = [Source(guides, f"diffusion-beam-{w}",
                     "diffusion MLP 3 x 512, 60 CPU-minutes (`learned-guides`)", guide_states,
                     f"beam {int(w):,}", 2) for w in ("128", "512", "2048", "8192")]
    search += [Source(beam_curve, f"davi-beam-{w}",
                      "shipped, iteration 46,804", shipped, f"beam {int(w):,}", 1)
               for w in ("1024", "4096", "16384")]
    search += [
        Source(ROOT / "results/cube3-learned200-w16384/results.csv", "learned",
               "shipped, iteration 46,804", shipped,
               "beam 16,384 + goal table 7, float32", 2),
        Source(ROOT / "results/cube3-learned200-w81920/results.csv", "learned",
               "shipped, iteration 46,804", shipped,
               "beam 81,920 + goal table 7", 2),
    ]
    print("\n## cube3: % optimal against search (DeepCubeA's first 100 cubes)\n")
    print(table(search, 100))
    print("\n## cube3: the shipped network's searches on DeepCubeA's first 200 cubes\n")
    print(table(search[4:], 200))
    p24 = states_seen(args.puzzle24 / "models/it9419/config.json")
    net = "iteration 9,419 (shipped first), diffusion MLP 3 x 512, 100 CPU-minutes"
    puzzle24 = [Source(args.puzzle24 / f"puzzle24-w{w}.csv", None, net,
                       p24, f"beam {int(w):,}", 1) for w in ("1024", "4096")]
    puzzle24.append(Source(ROOT / "results/puzzle24-learned100/results.csv", "learned", net,
                           p24, "beam 16,384 (recommended)", 2))
    resumed = Source(ROOT / "results/puzzle24-learned100-it21419/results.csv", "learned",
                     "iteration 21,419 (shipped), the same run resumed, 205 CPU-minutes",
                     states_seen(ROOT / "heuristics/models/puzzle24/config.json"),
                     "beam 16,384 (recommended)", 2)
    wide = [] if args.puzzle24_wide is None else puzzle24_wide(args.puzzle24_wide, resumed)
    print("\n## puzzle24: % optimal against search (DeepCubeA's first 100 states)\n")
    print(table(puzzle24 + [resumed] + wide, 100))
    training24 = []
    if args.puzzle24_training is not None:
        training24 = [puzzle24[1]] + puzzle24_training(args.puzzle24_training)
        print("\n## puzzle24: % optimal against training (DeepCubeA's first 100 states, one search)\n")
        print(table(training24, 100))
    if args.figure is not None:
        figure(args.figure, {"cube3": training, **({"puzzle24": training24} if training24 else {})},
               {"cube3": search[4:], "puzzle24": puzzle24,
                **({"puzzle24, shipped": [resumed] + wide} if wide else {})},
               {"cube3": 60.0, "puzzle24": 90.0})


def puzzle24_wide(folder: Path, shipped: Source) -> list[Source]:
    """The shipped network's rows of ``puzzle24_wide_beam.sh`` in ``folder``, by width."""
    found = sorted((int(m[1]), p) for p in folder.glob("shipped-w*.csv")
                   if (m := re.fullmatch(r"shipped-w(\d+)\.csv", p.name)))
    if not found:
        print(f"error: {folder}: no shipped-w*.csv rows (give the OUT_DIR of "
              "puzzle24_wide_beam.sh)", file=sys.stderr)
        raise SystemExit(2)
    return [Source(path, None, shipped.network, shipped.states, f"beam {width:,}", 2)
            for width, path in found]


def puzzle24_training(folder: Path) -> list[Source]:
    """The networks of ``puzzle24_training_curve.sh`` in ``folder``, by iteration."""
    runs = sorted(((json.loads(p.read_text()), p) for p in (folder / "models").glob("it*/config.json")),
                  key=lambda run: run[0]["iteration"])
    if not runs:
        print(f"error: {folder}: no networks under models/ (give the OUT_DIR of "
              "puzzle24_training_curve.sh)", file=sys.stderr)
        raise SystemExit(2)
    return [Source(folder / f"{config.parent.name}-w4096.csv", None,
                   f"the run resumed, iteration {c['iteration']:,} "
                   f"({c['train_cpu_seconds'] / 60:.0f} CPU-minutes)",
                   states_seen(config), "beam 4,096", 1) for c, config in runs]


if __name__ == "__main__":
    main()
