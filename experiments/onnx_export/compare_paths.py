"""Pair the rows of a cube3-onnx run by instance: equal paths, lengths and node counts of the
torch and ONNX configurations, and their search seconds.

    python -m experiments.onnx_export.compare_paths RUN_DIR
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any


def main(run_dir: Path) -> None:
    rows = [json.loads(x) for x in (run_dir / "rows.jsonl").read_text().splitlines()]
    by: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["instance"], {})[r["config"]] = r
    a, b = "torch-float32-beam-1024", "onnx-beam-1024"
    pairs = [(v[a], v[b]) for v in by.values() if a in v and b in v]
    same = sum(x["actions"] == y["actions"] for x, y in pairs)
    solved = sum(x["status"] == y["status"] == "solved" for x, y in pairs)
    nodes = sum(x["nodes_generated"] == y["nodes_generated"] for x, y in pairs)
    print(f"{len(pairs)} cubes: both solved {solved}, identical paths {same}, identical node "
          f"counts {nodes}")
    for cfg in (a, b):
        rs = [r for r in rows if r["config"] == cfg]
        print(f"{cfg:<26} mean length {statistics.mean(r['length'] for r in rs if r['length']):.2f}, "
              f"mean search s {statistics.mean(r['time_s'] for r in rs):.2f}, "
              f"mean network evaluations "
              f"{statistics.mean(r['network_evaluations'] for r in rs):,.0f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
