"""Compare a pytest-benchmark JSON with the committed baseline, normalized by calibration.

    python tests/benchmarks/compare.py .benchmarks/latest.json            # check (exit 1 on a slowdown)
    python tests/benchmarks/compare.py .benchmarks/latest.json --update   # refresh the baseline
    python tests/benchmarks/compare.py run1.json run2.json run3.json ...  # median over runs

For each benchmark the figure compared is ``median time / calibration_s`` of the same run (see
``conftest.py``), so a faster or slower machine moves both and the ratio stays put. A benchmark
fails when its ratio exceeds the baseline's by more than ``--factor`` (default 2.0, generous for
shared CI machines). Given several runs, each benchmark's ratio is the median over the runs
that have it (three runs steady a noisy machine, for checks and baselines alike). Benchmarks missing from the baseline are reported and pass; baseline
entries missing from the run are reported (skipped benchmarks) and pass.
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
    run = loaded[-1]
    current = median_ratios([ratios(r) for r in loaded])
    if args.update:
        old = json.loads(args.baseline.read_text()).get("ratios", {}) if args.baseline.is_file() else {}
        merged = {**old, **current}
        args.baseline.write_text(json.dumps({
            "about": "median seconds / calibration seconds per benchmark; see tests/benchmarks/compare.py",
            "machine": run.get("machine_info", {}).get("cpu", {}).get("brand_raw", ""),
            "calibration": run["calibration"],
            "ratios": dict(sorted(merged.items())),
        }, indent=2) + "\n")
        print(f"wrote {len(current)} ratios to {args.baseline}")
        return 0
    if not args.baseline.is_file():
        print(f"error: no baseline at {args.baseline}; create it with --update", file=sys.stderr)
        return 2
    baseline = json.loads(args.baseline.read_text())["ratios"]
    lines, ok = compare(current, baseline, args.factor)
    print("benchmark (time / calibration)")
    print("\n".join(lines))
    if not ok:
        print(f"FAIL: slower than {args.factor}x the baseline ratio", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
