"""Window shortening applied to the paths of a finished run: how many become optimal.

For each solved row (its ``actions`` and ``state``) and each window, the path is shortened by
:func:`solvers.window_shorten.shorten` (no new search); one output line per row and window:
the length before and after, the row's optimal length where one is published for its state
(DeepCubeA's optimal solutions, ``suites.sources.published_optima``), the seconds and the balls
built. Lines already in ``--out`` are kept and skipped, so a stopped run resumes. A summary per
window follows (printed, and written beside ``--out`` as ``.md`` with ``--summary``).

Usage: python -m experiments.path_improvement.rows ROWS.jsonl|RESULTS.csv --window 10 12 14 --out OUT.jsonl
       [--nonoptimal] [--limit N] [--summary]
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np

from core import registry
from solvers.window_shorten import shorten
from suites.sources import published_optima


def _rows(path: Path) -> list[dict]:
    """The rows of a run's ``rows.jsonl`` or a result's ``results.csv``."""
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
        for r in rows:
            r["length"] = int(r["length"]) if r["length"] else None
            r["optimal"] = int(r["optimal"]) if r["optimal"] else None
            r["goal"] = r["goal"] or None
        return rows
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def summary(lines: list[dict], windows: list[int]) -> str:
    out = ["| window | rows | optimal before | optimal after | mean length before | "
           "mean length after | moves saved | mean s | max s |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for w in windows:
        sel = [x for x in lines if x["window"] == w]
        if not sel:
            continue
        with_opt = [x for x in sel if x["optimal"] is not None]
        ob = sum(x["before"] == x["optimal"] for x in with_opt)
        oa = sum(x["after"] == x["optimal"] for x in with_opt)
        mb = np.mean([x["before"] for x in sel])
        ma = np.mean([x["after"] for x in sel])
        sec = [x["seconds"] for x in sel]
        out.append(f"| {w} | {len(sel)} | {ob}/{len(with_opt)} | {oa}/{len(with_opt)} | "
                   f"{mb:.3f} | {ma:.3f} | {sum(x['before'] - x['after'] for x in sel)} | "
                   f"{np.mean(sec):.1f} | {max(sec):.1f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", type=Path)
    ap.add_argument("--window", type=int, nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--nonoptimal", action="store_true",
                    help="only rows whose length exceeds the published optimum")
    ap.add_argument("--limit", type=int, default=None, help="the first N rows")
    ap.add_argument("--summary", action="store_true", help="also write OUT with suffix .md")
    args = ap.parse_args()
    rows = [r for r in _rows(args.rows) if r.get("status") == "solved"][: args.limit]
    puzzle = registry.get_puzzle(rows[0]["puzzle"], goal=rows[0].get("goal"))
    optima = published_optima(puzzle.name, rows[0].get("goal"))
    done = [json.loads(x) for x in args.out.read_text(encoding="utf-8").splitlines() if x] \
        if args.out.is_file() else []
    have = {(x["key"], x["window"]) for x in done}
    with args.out.open("a", encoding="utf-8") as fh:
        for w in args.window:
            for r in rows:
                opt = r.get("optimal")
                if opt is None and r["state"] in optima:
                    opt = optima[r["state"]][0]
                if args.nonoptimal and (opt is None or r["length"] == opt):
                    continue
                if (r["key"], w) in have:
                    continue
                start = np.array([int(v) for v in r["state"].split()], dtype=puzzle.dtype)
                path = puzzle.parse_moves(r["actions"])
                t0 = time.perf_counter()
                new, info = shorten(puzzle, start, path, w)
                assert puzzle.check_solution(start, new) and len(new) <= len(path)
                line = {"key": r["key"], "window": w, "before": len(path), "after": len(new),
                        "optimal": opt, "seconds": round(time.perf_counter() - t0, 2),
                        "balls": info["balls"], "ball_states": info["ball_states"],
                        "passes": info["passes"], "actions": puzzle.format_moves(new)}
                fh.write(json.dumps(line) + "\n")
                fh.flush()
                done.append(line)
                print(f"w={w} {r['key']}: {len(path)} -> {len(new)} (optimal {opt}) "
                      f"{line['seconds']} s", flush=True)
    text = summary(done, args.window)
    print(text)
    if args.summary:
        args.out.with_suffix(".md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
