"""Run-to-run noise of the gated figures, and the factors it allows.

    python tests/benchmarks/noise.py --runs 5                      # run the set 5 times, report
    python tests/benchmarks/noise.py --from .benchmarks/noise/run*.json   # report on runs made before
    python tests/benchmarks/noise.py --runs 5 --json .benchmarks/noise/noise.json  # also as JSON

Each run is ``pytest tests/benchmarks/test_bench_suite.py --benchmark-enable --benchmark-only``
with one thread per pool (as ``nox -s benchgate``), written to ``--out``/runN.json. For each
benchmark and each statistic (``median``, ``min``: ``compare.py``'s figure made of either), it
prints the figures' spread over the runs, ``max/min`` and ``max/median``, and the window of
factors that lets every measured run pass against a baseline at the median of the runs
(``factor >= max/median``) while a ``--slowdown`` (1.3) of the fastest run still fails
(``factor < slowdown x min/median``). A window is empty where the noise spans ``slowdown`` or
more (``max/min >= slowdown``): no factor separates the two there. The same figures are given
for the least figure of every ``--best-of`` (2) runs, which ``nox -s benchgate`` checks
(``compare.py --best``). The last line gives the one factor that lies in every benchmark's
window, if there is one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402

SUITE = "tests/benchmarks/test_bench_suite.py"
ONE_THREAD = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


def run_suite(out: Path) -> None:
    """One run of the regression set into ``out`` (pytest-benchmark JSON)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pytest", SUITE, "--benchmark-enable", "--benchmark-only",
           f"--benchmark-json={out}", "-q", "-p", "no:cacheprovider"]
    subprocess.run(cmd, check=True, env={**os.environ, **ONE_THREAD}, cwd=HERE.parent.parent)


def _spread(vals: list[float], med: float, slowdown: float) -> dict[str, Any]:
    low, high = max(vals) / med, slowdown * min(vals) / med
    return {"figures": [round(v, 5) for v in vals], "max/min": round(max(vals) / min(vals), 4),
            "max/median": round(low, 4),
            "window": [round(low, 4), round(high, 4)] if high > low else None}


def _common(windows: list[list[float] | None]) -> list[float] | None:
    if not windows or any(w is None for w in windows):
        return None
    lo, hi = max(w[0] for w in windows if w), min(w[1] for w in windows if w)
    return [lo, hi] if hi > lo else None


def summary(runs: list[dict], slowdown: float = 1.3, best_of: int = 2) -> dict[str, Any]:
    """Per statistic and benchmark: figures over the runs, spreads, the factor window; and the
    same for the least figure of every ``best_of`` runs (``compare.py --best``, as
    ``nox -s benchgate`` checks), against the median of single runs (what ``--update`` records)."""
    out: dict[str, Any] = {"runs": len(runs), "slowdown": slowdown, "best_of": best_of,
                           "statistics": {}}
    for stat in compare.STATISTICS:
        figs = [compare.figures(r, stat, f"run {i + 1}") for i, r in enumerate(runs)]
        per: dict[str, Any] = {}
        for name in sorted({n for f in figs for n in f}):
            vals = [f[name]["figure"] for f in figs if name in f]
            med = statistics.median(vals)
            best = [min(c) for c in itertools.combinations(vals, best_of)] \
                if len(vals) >= best_of else []
            per[name] = {"reference": next(f[name]["reference"] for f in figs if name in f),
                         **_spread(vals, med, slowdown),
                         "best": _spread(best, med, slowdown) if best else None}
        out["statistics"][stat] = {
            "benchmarks": per,
            "common_window": _common([p["window"] for p in per.values()]),
            "common_window_best": _common([p["best"]["window"] if p["best"] else None
                                           for p in per.values()])}
    return out


def _window(w: list[float] | None) -> str:
    return f"[{w[0]:.3f}, {w[1]:.3f})" if w else "none"


def report(s: dict[str, Any]) -> str:
    k = s["best_of"]
    lines = [f"{s['runs']} runs; windows: factors that pass every run and fail a "
             f"{s['slowdown']}x slowdown of the fastest; 'best of {k}': the least figure of "
             f"every {k} runs (compare.py --best, as nox -s benchgate checks)"]
    for stat, body in s["statistics"].items():
        lines.append("\nfigure = " + ("median over rounds of seconds / reference seconds"
                                       if stat == "paired" else
                                       f"{stat} seconds / {stat} reference seconds"))
        per = body["benchmarks"]
        width = max((len(n.split("::")[-1]) for n in per), default=10)
        for name, p in per.items():
            b = p["best"]
            lines.append(f"  {name.split('::')[-1]:<{width}}  {p['reference'] or '-':<13}"
                         f"  max/min {p['max/min']:6.3f}  max/median {p['max/median']:6.3f}  "
                         f"factor {_window(p['window']):<16}"
                         + (f"  best of {k}: max/median {b['max/median']:6.3f} factor "
                            f"{_window(b['window'])}" if b else ""))
        lines.append(f"  one factor for all: {_window(body['common_window'])}; best of {k}: "
                     f"{_window(body['common_window_best'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs of the set to make")
    ap.add_argument("--out", type=Path, default=Path(".benchmarks/noise"), help="folder of the runs")
    ap.add_argument("--from", dest="given", type=Path, nargs="+", default=None,
                    help="report on these runs instead of making new ones")
    ap.add_argument("--slowdown", type=float, default=1.3, help="the slowdown that must fail")
    ap.add_argument("--best-of", type=int, default=2,
                    help="runs whose least figure is checked (nox -s benchgate: 2)")
    ap.add_argument("--json", type=Path, default=None, help="also write the summary as JSON")
    args = ap.parse_args(argv)
    paths = args.given
    if paths is None:
        paths = [args.out / f"run{i + 1}.json" for i in range(args.runs)]
        for p in paths:
            run_suite(p)
    runs = [json.loads(p.read_text()) for p in paths]
    try:
        s = summary(runs, args.slowdown, args.best_of)
    except compare.Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    s["cpu"] = compare.cpu_of(runs[-1])
    print(report(s))
    if args.json:
        args.json.write_text(json.dumps(s, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
