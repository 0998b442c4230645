"""Compare a pytest-benchmark JSON with the committed baseline, normalized by the machine's speed.

    python tests/benchmarks/compare.py .benchmarks/latest.json            # check (exit 1 on a slowdown)
    python tests/benchmarks/compare.py .benchmarks/latest.json --update   # refresh the baseline
    python tests/benchmarks/compare.py run1.json run2.json run3.json ...  # median over runs

Each benchmark's median seconds are normalised by the speed of the machine that ran them, so a
faster or slower machine moves both and the figure compared stays put:

- by the CPU score (``bench.provenance.cpu_score``, millions of values one core sorts per
  second, measured in the same run by ``conftest.py`` and recorded with the baseline): the
  figure is ``median seconds x cpu_score`` (the work of the benchmark in units of the score's
  workload), where the run and the baseline both carry a score and the baseline its seconds;
- else by the calibration workload of the same run (``median seconds / calibration_s``, the
  baseline's ``ratios``): baselines made before scores were recorded.

A benchmark fails when its figure exceeds the baseline's by more than ``--factor`` (default 2.0,
generous for shared CI machines). Given several runs, each benchmark's figure is the median over
the runs that have it (three runs steady a noisy machine, for checks and baselines alike).
Benchmarks missing from the baseline are reported and pass; baseline entries missing from the
run are reported (skipped benchmarks) and pass.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

BASELINE = Path(__file__).resolve().parent / "baseline.json"


def ratios(run: dict) -> dict[str, float]:
    cal = run.get("calibration", {}).get("calibration_s")
    if not cal:
        raise SystemExit("error: the benchmark JSON has no calibration (run through tests/benchmarks)")
    return {b["fullname"]: b["stats"]["median"] / cal for b in run.get("benchmarks", [])}


def run_score(run: dict) -> float | None:
    """The CPU score a run recorded with its calibration, or ``None`` (none, or not positive)."""
    score = run.get("calibration", {}).get("cpu_score")
    return float(score) if isinstance(score, (int, float)) and score > 0 else None


def scored(run: dict) -> dict[str, float]:
    """Per benchmark, ``median seconds x cpu_score`` of the run (``SystemExit`` without a score)."""
    score = run_score(run)
    if score is None:
        raise SystemExit("error: the benchmark JSON has no CPU score (run through tests/benchmarks)")
    return {b["fullname"]: b["stats"]["median"] * score for b in run.get("benchmarks", [])}


def normalised(runs: list[dict], baseline: dict) -> tuple[dict[str, float], dict[str, float], str]:
    """The current and baseline figures to compare, and how they were normalised: by the CPU
    score where every run and the baseline carry one (the baseline its ``seconds``), else by the
    calibration workload (the baseline's ``ratios``)."""
    base_score = baseline.get("calibration", {}).get("cpu_score")
    seconds = baseline.get("seconds")
    if isinstance(base_score, (int, float)) and base_score > 0 and isinstance(seconds, dict) \
            and seconds and all(run_score(r) is not None for r in runs):
        base = {n: float(t) * float(base_score) for n, t in seconds.items()}
        return median_ratios([scored(r) for r in runs]), base, "cpu_score"
    return median_ratios([ratios(r) for r in runs]), dict(baseline.get("ratios", {})), \
        "calibration"


def median_ratios(runs: list[dict[str, float]]) -> dict[str, float]:
    """Per benchmark, the median of its ratios over the runs that have it."""
    names = sorted({n for r in runs for n in r})
    return {n: float(statistics.median(r[n] for r in runs if n in r)) for n in names}


def compare(current: dict[str, float], baseline: dict[str, float], factor: float) -> tuple[list[str], bool]:
    lines, ok = [], True
    width = max((len(k) for k in current | baseline), default=10)
    for name in sorted(current | baseline):
        cur, base = current.get(name), baseline.get(name)
        if base is None:
            lines.append(f"{name:<{width}}  {cur:10.2f}  (new; not in the baseline)")
        elif cur is None:
            lines.append(f"{name:<{width}}  {'-':>10}  (not run; baseline {base:.2f})")
        else:
            change = cur / base
            bad = change > factor
            ok &= not bad
            lines.append(f"{name:<{width}}  {cur:10.2f}  baseline {base:10.2f}  x{change:5.2f}"
                         + ("  SLOWER than allowed" if bad else ""))
    return lines, ok


def updated_baseline(runs: list[dict], path: Path) -> dict:
    """The baseline after ``--update`` with ``runs``: the calibration ratios, and, where every
    run carries a CPU score, each benchmark's median seconds normalised to the median score of
    the runs (``seconds x score / median score``, so that ``seconds x cpu_score`` is each
    benchmark's figure); entries of the old baseline that the runs lack are kept (their seconds
    rescaled to the new score)."""
    old = json.loads(path.read_text()) if path.is_file() else {}
    run = runs[-1]
    out = {
        "about": "median seconds / calibration seconds per benchmark (ratios), and median "
                 "seconds at the recorded CPU score (seconds); see tests/benchmarks/compare.py",
        "machine": run.get("machine_info", {}).get("cpu", {}).get("brand_raw", ""),
        "calibration": dict(run["calibration"]),
        "ratios": dict(sorted({**old.get("ratios", {}),
                               **median_ratios([ratios(r) for r in runs])}.items())),
    }
    scores = [run_score(r) for r in runs]
    if all(s is not None for s in scores):
        score = float(statistics.median(s for s in scores if s is not None))
        out["calibration"]["cpu_score"] = score
        kept = {}
        old_score = old.get("calibration", {}).get("cpu_score")
        if isinstance(old.get("seconds"), dict) and isinstance(old_score, (int, float)):
            kept = {n: t * old_score / score for n, t in old["seconds"].items()}
        fresh = {n: v / score for n, v in median_ratios([scored(r) for r in runs]).items()}
        out["seconds"] = dict(sorted({**kept, **fresh}.items()))
    else:
        out["calibration"].pop("cpu_score", None)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", type=Path, nargs="+", help="pytest-benchmark JSON (--benchmark-json), one or more")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--factor", type=float, default=2.0, help="allowed slowdown factor")
    ap.add_argument("--update", action="store_true", help="write the run's ratios as the baseline")
    args = ap.parse_args(argv)
    missing = [r for r in args.runs if not r.is_file()]
    if missing:
        print(f"error: {missing[0]} not found", file=sys.stderr)
        return 2
    loaded = [json.loads(r.read_text()) for r in args.runs]
    if args.update:
        args.baseline.write_text(json.dumps(updated_baseline(loaded, args.baseline), indent=2)
                                 + "\n")
        print(f"wrote {len(loaded[-1].get('benchmarks', []))} benchmarks to {args.baseline}")
        return 0
    if not args.baseline.is_file():
        print(f"error: no baseline at {args.baseline}; create it with --update", file=sys.stderr)
        return 2
    current, baseline, how = normalised(loaded, json.loads(args.baseline.read_text()))
    lines, ok = compare(current, baseline, args.factor)
    print("benchmark (seconds x CPU score)" if how == "cpu_score" else
          "benchmark (time / calibration; the baseline records no CPU score)")
    print("\n".join(lines))
    if not ok:
        print(f"FAIL: slower than {args.factor}x the baseline ratio", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
