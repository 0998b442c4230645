"""Print the markdown table of ``compare.py --max-bound`` rows: per cube and heuristic the nodes
of the last finished iterations, their CPU and wall seconds, and the CPU time per node.

    python -m experiments.cube3_optimal.table results/cube3-optimal/probes-htm.jsonl --last 2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", type=Path)
    ap.add_argument("--last", type=int, default=2, help="finished iterations shown per row")
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    print("| cube | heuristic | h(start) | bound: nodes | CPU s | wall s | CPU ns/node (last) |")
    print("| --- | --- | ---: | --- | --- | --- | ---: |")
    for r in sorted(rows, key=lambda r: (int(r["cube"]), 0)):
        k = args.last
        b, n = r["iteration_bounds"][-k:], r["iteration_nodes"][-k:]
        cpu, wall = r["iteration_cpu_seconds"][-k:], r["iteration_seconds"][-k:]
        nodes = "; ".join(f"{x}: {y:,}" for x, y in zip(b, n, strict=True))
        per = 1e9 * cpu[-1] / max(1, n[-1])
        print(f"| {r['cube']} | `{r['heuristic']}` | {r['h_start']} | {nodes} | "
              f"{' / '.join(f'{x:.2f}' for x in cpu)} | {' / '.join(f'{x:.2f}' for x in wall)} | "
              f"{per:.0f} |")


if __name__ == "__main__":
    main()
