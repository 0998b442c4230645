"""Markdown table of ida_parity.jsonl: per kernel, whether node counts and lengths agree, and the
median node rate (M nodes per CPU second) of each side with the median of the per-round ratios.

    python -m experiments.house_plan.summarize results/house-plan/ida_parity.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from typing import Any


def main(path: str) -> None:
    with open(path) as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    by: defaultdict[str, defaultdict[int, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        by[r["kernel"]][r["round"]][r["side"]] = r
    print("| kernel | instances | nodes (both) | same nodes and lengths | old M nodes/s | new M nodes/s | new/old (median of rounds) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k, rounds in by.items():
        pairs = [(v["old"], v["new"]) for v in rounds.values() if "old" in v and "new" in v]
        same = all(o["nodes"] == n["nodes"] and o["lengths"] == n["lengths"] for o, n in pairs)
        old = statistics.median(o["mnodes_per_cpu_s"] for o, _ in pairs)
        new = statistics.median(n["mnodes_per_cpu_s"] for _, n in pairs)
        ratio = statistics.median(o["cpu_s"] / n["cpu_s"] for o, n in pairs)
        print(f"| {k} | {pairs[0][0]['instances']} | {pairs[0][0]['nodes']:,} | {'yes' if same else 'NO'} "
              f"| {old:.2f} | {new:.2f} | {ratio:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1])
