"""Compare pytest-benchmark JSON of the regression set with the committed baseline.

    python tests/benchmarks/compare.py .benchmarks/gate.json --factor 1.2      # check (exit 1 on a slowdown)
    python tests/benchmarks/compare.py gate1.json gate2.json --best           # the least figure of two runs
    python tests/benchmarks/compare.py run1.json run2.json run3.json ...      # median over runs
    python tests/benchmarks/compare.py run1.json ... run5.json --update       # refresh the baseline

Each benchmark of ``test_bench_suite.py`` names the kind of work it does, and the reference
workload of that kind (``reference_workloads.py``: plain NumPy, Numba or torch, no project code)
is timed before each of its rounds; the JSON carries both series (``extra_info``:
``reference``, ``reference_s``, ``seconds``). The figure gated is

    figure = median over the rounds of (round seconds / seconds of the reference timed before it)

the benchmark's work in units of a fixed workload of the same kind, timed moments apart on the
same machine: a faster or slower machine (clock, vector units, memory latency) or a busy moment
moves both. (``median``: median seconds over median reference seconds, and ``min``, are the
other statistics a baseline may name; NOISE.md compares the three.)
Given several runs, a benchmark's figure is the median over the runs that have it, or with
``--best`` the least (``nox -s benchgate`` runs the set twice: a busy moment of a shared machine
rarely slows the same benchmark in both runs, a regression slows it in every run).

The baseline holds one entry per CPU (model name and vector units), made by ``--update`` on that
CPU. A benchmark fails when its figure exceeds its entry's by more than ``--factor``; the factor
and the noise behind it are in ``tests/benchmarks/NOISE.md`` (``noise.py`` measures them). On a
CPU with no entry, the first entry (the reference machine's) counts, with ``--other-cpu-factor``:
the references track a path across CPU models only so far (NOISE.md).

Benchmarks missing from the baseline are reported and pass; baseline entries missing from the
run are reported (a skipped benchmark) and pass. A benchmark whose reference kind differs from
the baseline's fails (refresh the baseline). A run or a baseline without the reference timings
(the format before them: one calibration for every benchmark) is refused with one line (exit 2).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).resolve().parent / "baseline.json"
FORMAT = 2
#: how a figure is made of the two series (NOISE.md compares them): the median of each, the
#: minimum of each, or the median of the rounds' ratios (each round over the reference timed
#: just before it)
STATISTICS = ("median", "min", "paired")
#: the statistic new baselines are made with (the steadiest in NOISE.md)
DEFAULT_STATISTIC = "paired"
#: CPU flags that change which kernels torch, NumPy and Numba run
VECTOR_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_tile")


class Refused(Exception):
    """A run or baseline that cannot be compared (one line, exit 2)."""


def _stat(values: list[float], stat: str) -> float:
    return float(min(values) if stat == "min" else statistics.median(values))


def _figure(secs: list[float], ref: list[float], stat: str) -> float:
    if stat == "paired" and len(secs) == len(ref):
        return float(statistics.median(s / r for s, r in zip(secs, ref, strict=True)))
    return _stat(secs, stat) / _stat(ref, stat)


def figures(run: dict, stat: str = "median", where: str = "the run") -> dict[str, dict[str, Any]]:
    """Per benchmark of ``run``, its reference kind and figure (``stat`` of its seconds over
    ``stat`` of its reference's seconds). ``Refused`` where a benchmark has no reference."""
    out: dict[str, dict[str, Any]] = {}
    for b in run.get("benchmarks", []):
        info = b.get("extra_info") or {}
        kind, ref = info.get("reference"), info.get("reference_s")
        secs = info.get("seconds") or []
        if not kind or not ref or not all(isinstance(x, (int, float)) and x > 0 for x in ref):
            raise Refused(f"{where}: benchmark {b.get('fullname', b.get('name'))} carries no "
                          "reference timings (extra_info.reference_s); run it through "
                          "tests/benchmarks/test_bench_suite.py (gated)")
        if not secs:  # rounds not recorded: the statistic pytest-benchmark keeps
            secs = [float(b["stats"]["min" if stat == "min" else "median"])]
        out[b["fullname"]] = {"reference": kind, "figure": _figure(secs, ref, stat)}
    return out


def median_figures(runs: list[dict[str, dict[str, Any]]],
                   best: bool = False) -> dict[str, dict[str, Any]]:
    """Per benchmark, the median (``best``: the least) of its figures over the runs that have it
    (its reference kind from the last of them)."""
    names = sorted({n for r in runs for n in r})
    pick = min if best else statistics.median
    return {n: {"reference": [r[n] for r in runs if n in r][-1]["reference"],
                "figure": float(pick([r[n]["figure"] for r in runs if n in r]))}
            for n in names}


def cpu_of(run: dict) -> dict[str, Any]:
    """The CPU a run was measured on: its name, family and model, and the vector flags of
    :data:`VECTOR_FLAGS` it has (pytest-benchmark's ``machine_info``)."""
    cpu = run.get("machine_info", {}).get("cpu", {}) or {}
    flags = set(cpu.get("flags") or [])
    # a virtual machine's brand may name only the vendor ("AMD EPYC"): family and model tell
    # the generations apart
    model = f"family {cpu.get('family', '?')} model {cpu.get('model', '?')}"
    return {"brand": str(cpu.get("brand_raw", "")), "model": model,
            "flags": [f for f in VECTOR_FLAGS if f in flags]}


def _cpu_text(cpu: dict[str, Any]) -> str:
    return f"{cpu.get('brand') or '?'}, {cpu.get('model', '?')}, {'+'.join(cpu.get('flags', []))}"


def load_baseline(path: Path) -> dict:
    """The baseline at ``path``; ``Refused`` when it is missing or of the old format."""
    if not path.is_file():
        raise Refused(f"no baseline at {path}; create it with --update")
    base = json.loads(path.read_text())
    machines = base.get("machines")
    if base.get("format") != FORMAT or not isinstance(machines, list) or not machines or \
            not all(isinstance(m.get("benchmarks"), dict) for m in machines):
        raise Refused(f"{path} is not a baseline of reference figures (format {FORMAT}; an old "
                      "one with one calibration for every benchmark?): make one with --update")
    return base


def machine_for(base: dict, cpu: dict[str, Any]) -> tuple[dict, bool]:
    """The baseline's entry for ``cpu`` and ``True``, or its first entry (the reference
    machine's) and ``False`` where no entry has this CPU."""
    for m in base["machines"]:
        if m.get("cpu") == cpu:
            return m, True
    return base["machines"][0], False


def compare(current: dict[str, dict[str, Any]], baseline: dict[str, dict[str, Any]],
            factor: float) -> tuple[list[str], bool]:
    """Lines of the comparison table, and whether every benchmark is within ``factor``."""
    lines, ok = [], True
    width = max((len(k) for k in current | baseline), default=10)
    for name in sorted(current | baseline):
        cur, base = current.get(name), baseline.get(name)
        if base is None:
            assert cur is not None
            lines.append(f"{name:<{width}}  {cur['figure']:10.3f}  (new; not in the baseline)")
        elif cur is None:
            lines.append(f"{name:<{width}}  {'-':>10}  (not run; baseline {base['figure']:.3f})")
        elif cur["reference"] != base["reference"]:
            ok = False
            lines.append(f"{name:<{width}}  {cur['figure']:10.3f}  reference {cur['reference']}, "
                         f"baseline's {base['reference']}: REFRESH the baseline (--update)")
        else:
            change = cur["figure"] / base["figure"]
            bad = change > factor
            ok &= not bad
            lines.append(f"{name:<{width}}  {cur['figure']:10.3f}  baseline {base['figure']:10.3f}"
                         f"  x{change:5.2f}  ({cur['reference']})"
                         + ("  SLOWER than allowed" if bad else ""))
    return lines, ok


def updated_baseline(runs: list[dict], path: Path, stat: str = DEFAULT_STATISTIC,
                     noise: dict | None = None) -> dict:
    """The baseline after ``--update`` with ``runs``: the entry of the runs' CPU (added where
    the baseline has none) gets each benchmark's median figure over the runs, keeping those the
    runs lack; on the other CPUs' entries, a benchmark whose figure moved on this CPU is moved
    by the same ratio (a change of the code moves the figure alike on every CPU; refresh those
    entries on their machines where that is not good enough) and one whose reference kind
    changed is dropped. ``noise`` (``noise.py --json``) is recorded with the entry. An old
    baseline (another format or statistic) is replaced."""
    old: dict = {}
    if path.is_file():
        try:
            old = load_baseline(path)
        except Refused:
            old = {}  # the old format: nothing carries over
    machines = [dict(m) for m in old.get("machines", [])] if old.get("statistic") == stat else []
    cpu = cpu_of(runs[-1])
    fresh = median_figures([figures(r, stat, f"run {i + 1}") for i, r in enumerate(runs)])
    mine = next((m for m in machines if m.get("cpu") == cpu), None)
    before = dict(mine["benchmarks"]) if mine else {}
    for m in machines:
        if m is mine:
            continue
        bench = dict(m["benchmarks"])
        for name, new in fresh.items():
            was, there = before.get(name), bench.get(name)
            if was is None or there is None:
                continue
            if new["reference"] != was["reference"]:
                del bench[name]
            else:
                bench[name] = {**there, "figure": there["figure"] * new["figure"] / was["figure"]}
        m["benchmarks"] = dict(sorted(bench.items()))
    entry = {"cpu": cpu, "runs": len(runs), "benchmarks": dict(sorted({**before, **fresh}.items()))}
    if noise is not None:
        entry["noise"] = noise
    elif mine and "noise" in mine:
        entry["noise"] = mine["noise"]
    if mine is None:
        machines.append(entry)
    else:
        machines[machines.index(mine)] = entry
    how = ("the median over its rounds of round seconds / seconds of the reference timed just "
           "before the round" if stat == "paired" else
           f"{stat} benchmark seconds / {stat} reference seconds")
    return {
        "about": "per CPU (model and vector units; the first entry is the reference machine, "
                 "used for any other CPU) and benchmark: its reference workload "
                 f"(tests/benchmarks/reference_workloads.py) and figure = {how}, the median over "
                 "the runs; see tests/benchmarks/compare.py and NOISE.md",
        "format": FORMAT,
        "statistic": stat,
        "machines": machines,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", type=Path, nargs="+", help="pytest-benchmark JSON (--benchmark-json), one or more")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--factor", type=float, default=1.25,
                    help="allowed slowdown of a figure where the CPU is the baseline's")
    ap.add_argument("--other-cpu-factor", type=float, default=None,
                    help="allowed slowdown where the run's CPU is not the baseline's (default: --factor)")
    ap.add_argument("--best", action="store_true",
                    help="check each benchmark's least figure over the runs, not the median (the "
                         "gate's two runs: a busy moment rarely slows both, a regression does)")
    ap.add_argument("--update", action="store_true", help="write the runs' figures as the baseline")
    ap.add_argument("--noise", type=Path, default=None,
                    help="with --update: noise figures (noise.py --json) to record in the baseline")
    args = ap.parse_args(argv)
    missing = [r for r in args.runs if not r.is_file()]
    if missing:
        print(f"error: {missing[0]} not found", file=sys.stderr)
        return 2
    loaded = []
    for r in args.runs:
        try:
            loaded.append(json.loads(r.read_text()))
        except json.JSONDecodeError as exc:
            print(f"error: {r} is not a benchmark JSON ({exc.msg}, line {exc.lineno})",
                  file=sys.stderr)
            return 2
    try:
        if args.update:
            noise = json.loads(args.noise.read_text()) if args.noise else None
            new = updated_baseline(loaded, args.baseline, noise=noise)
            args.baseline.write_text(json.dumps(new, indent=2) + "\n")
            entry, _ = machine_for(new, cpu_of(loaded[-1]))
            print(f"wrote {len(entry['benchmarks'])} benchmarks for {entry['cpu']['brand'] or '?'}"
                  f" to {args.baseline} ({len(new['machines'])} CPUs)")
            return 0
        base = load_baseline(args.baseline)
        stat = base.get("statistic", DEFAULT_STATISTIC)
        current = median_figures([figures(r, stat, str(p))
                                  for r, p in zip(loaded, args.runs, strict=True)], args.best)
    except Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    factor, note = args.factor, "a CPU of the baseline"
    run_cpu = cpu_of(loaded[-1])
    entry, same = machine_for(base, run_cpu)
    base_cpu = entry.get("cpu", {})
    if not same:
        factor = args.other_cpu_factor or args.factor
        note = (f"another CPU ({_cpu_text(run_cpu)}; the baseline has {len(base['machines'])}, "
                f"compared with its first: {_cpu_text(base_cpu)}; add this CPU's entry with "
                "--update, tests/benchmarks/NOISE.md)")
    lines, ok = compare(current, entry["benchmarks"], factor)
    what = ("median of round / reference seconds" if stat == "paired" else
            f"{stat} seconds / {stat} reference seconds")
    print(f"benchmark ({what}; allowed x{factor:g} on {note})")
    print("\n".join(lines))
    if not ok:
        print(f"FAIL: slower than {factor:g}x the baseline figure", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
