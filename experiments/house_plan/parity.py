"""A fixed set of searches, every puzzle family and every solver, whose node counts and paths
must not move when the code is reorganised.

Runs each case through the registry (puzzle, heuristic and solver by name, as the command line
does) on seeded scrambles and writes one JSON line per search: the case, the instance, the
status, the length, the nodes generated and expanded and a digest of the path. Two runs, one on
the tree before a change and one after, are compared with ``--compare BEFORE AFTER``.

Usage::

    python -m experiments.house_plan.parity --models DIR > after.jsonl
    python -m experiments.house_plan.parity --compare before.jsonl after.jsonl

``DIR`` holds the small learned models the cases need (a multi-goal tree and an ONNX export);
missing ones are made there first with ``bench train multigoal`` and ``bench models export``,
so a comparison uses the same model files on both sides. Shipped networks are read from the
checkout; the two policy networks of the learned-guides runs are kept in history and restored
first with ``git restore --source=a668dcd -- results/training/learned-guides``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

#: (puzzle, heuristic, heuristic options, solver, solver options, states, scramble depth)
CASES: list[tuple[str, str, dict[str, Any], str, dict[str, Any], int, int]] = [
    # sliding tiles
    ("puzzle8", "manhattan", {}, "ida", {}, 20, 30),
    ("puzzle8", "linear-conflict", {}, "ida", {}, 20, 30),
    ("puzzle8", "pdb-44-reflect", {}, "ida", {}, 20, 30),
    ("puzzle8", "pdb-full", {}, "ida", {}, 10, 30),
    ("puzzle8", "manhattan", {}, "astar", {}, 10, 30),
    ("puzzle8", "manhattan", {}, "bwas", {"weight": 0.6, "batch": 10}, 10, 30),
    ("puzzle8", "manhattan", {}, "greedy", {}, 10, 30),
    ("puzzle8", "davi", {"model": "puzzle8"}, "beam", {"width": 64}, 10, 30),
    ("puzzle8", "davi", {"model": "puzzle8"}, "bwas", {"weight": 0.6, "batch": 10}, 10, 30),
    ("puzzle8", "davi-multigoal", {"model": "@tree"}, "bwas", {"weight": 0.6, "batch": 10}, 5,
     12),
    ("puzzle8", "onnx", {"model": "@onnx"}, "beam", {"width": 64}, 10, 30),
    ("puzzle8", "zero", {}, "macro", {}, 10, 30),
    ("puzzle15", "manhattan", {}, "ida", {}, 4, 40),
    ("puzzle15", "linear-conflict", {}, "ida", {}, 4, 50),
    ("puzzle15", "pdb-555-reflect", {}, "ida", {}, 4, 60),
    ("puzzle15", "pdb-555", {}, "ida", {"threads": 2}, 3, 60),
    ("puzzle15", "davi", {"model": "puzzle15"}, "beam", {"width": 256}, 5, 200),
    ("puzzle15", "policy", {"model": "results/training/learned-guides/puzzle15-policy/model.pt"},
     "beam", {"width": 256}, 5, 60),
    ("puzzle24", "davi", {"model": "puzzle24"}, "beam", {"width": 128}, 3, 300),
    ("puzzle24", "linear-conflict", {}, "ida", {}, 3, 30),
    ("puzzle35", "davi", {"model": "puzzle35"}, "beam", {"width": 64}, 2, 300),
    ("puzzle48", "davi", {"model": "puzzle48"}, "beam", {"width": 64}, 2, 300),
    # cubes
    ("cube2", "pdb-cube2", {}, "ida", {}, 20, 30),
    ("cube2", "davi", {"model": "cube2"}, "beam", {"width": 128}, 10, 30),
    ("puzzle8", "zero", {}, "lvi", {}, 5, 30),
    ("cube2-htm", "pdb-cube2", {}, "ida", {}, 10, 30),
    ("cube3", "davi", {"model": "cube3"}, "beam", {"width": 256}, 3, 100),
    ("cube3", "davi", {"model": "cube3"}, "bwas", {"weight": 0.6, "batch": 100}, 3, 12),
    ("cube3", "policy", {"model": "results/training/learned-guides/cube3-policy/model.pt"},
     "beam", {"width": 256}, 3, 10),
    ("cube3", "davi", {"model": "cube3"}, "beam", {"width": 1024, "goal_depth": 4}, 2, 100),
    # Lights Out
    ("lightsout7", "lights-on", {}, "ida", {}, 10, 12),
    ("lightsout7", "zero", {}, "gf2", {}, 10, 40),
    ("lightsout7", "davi", {"model": "lightsout7"}, "beam", {"width": 64}, 5, 10),
    # Sokoban
    ("sokoban", "sokoban-matching", {}, "astar", {}, 3, 100),
    ("sokoban", "sokoban-push", {}, "greedy", {}, 3, 100),
    ("sokoban", "davi", {"model": "sokoban"}, "bwas", {"weight": 0.8, "batch": 100}, 3, 100),
]


def _models(folder: Path) -> dict[str, str]:
    """The small learned models of the cases, made in ``folder`` with the command line when
    missing (so both sides of a comparison read the same files)."""
    folder.mkdir(parents=True, exist_ok=True)
    tree, onnx = folder / "puzzle8-tree", folder / "puzzle8-onnx"
    bench = [sys.executable, "-m", "bench"]
    if not (tree / "tree.json").exists():
        subprocess.run([*bench, "train", "multigoal", "puzzle8", "--children", "2", "--height", "1",
                        "--step", "4", "--k-max", "8", "--iterations", "60", "--preset", "tiny",
                        "--batch", "64", "--threads", "1", "--quiet", "--out", str(tree)],
                       check=True, stdout=subprocess.DEVNULL)
    if not list(onnx.glob("*.onnx")):
        subprocess.run([*bench, "models", "export", "puzzle8", "--format", "onnx", "--out",
                        str(onnx)], check=True, stdout=subprocess.DEVNULL)
    return {"@tree": str(tree), "@onnx": str(next(onnx.glob("*.onnx")))}


def _states(puzzle: Any, n: int, depth: int) -> np.ndarray:
    rng = np.random.default_rng(20261128)
    return np.asarray(puzzle.scramble(n, depth, rng)[0])


def run(models: dict[str, str]) -> None:
    import torch

    from core import registry
    from core.limits import Limits

    torch.set_num_threads(1)
    limits = Limits(time_s=300, nodes=50_000_000)
    for case in CASES:
        pname, hname, hargs, sname, sargs, n, depth = case
        hargs = {k: models.get(v, v) if isinstance(v, str) else v for k, v in hargs.items()}
        puzzle = registry.get_puzzle(pname)
        heuristic = registry.get_heuristic(hname, puzzle, **hargs)
        solver = registry.get_solver(sname, **sargs)
        for i, start in enumerate(_states(puzzle, n, depth)):
            r = solver.solve(puzzle, heuristic, start, limits)
            path = ",".join(map(str, r.actions or []))
            print(json.dumps({
                "puzzle": pname, "heuristic": hname, "solver": sname,
                "solver_args": sargs, "instance": i, "status": str(r.status),
                "length": r.length, "nodes_generated": int(r.nodes_generated),
                "nodes_expanded": int(r.nodes_expanded),
                "path_sha256": hashlib.sha256(path.encode()).hexdigest()[:16]}), flush=True)


def compare(before: Path, after: Path) -> int:
    """Prints a table per case and returns the number of searches that differ."""
    def rows(p: Path) -> dict[tuple, dict]:
        out = {}
        for line in p.read_text().splitlines():
            r = json.loads(line)
            out[(r["puzzle"], r["heuristic"], r["solver"], json.dumps(r["solver_args"]),
                 r["instance"])] = r
        return out

    a, b = rows(before), rows(after)
    keys = ("status", "length", "nodes_generated", "nodes_expanded", "path_sha256")
    cases: dict[tuple, list[int]] = {}
    differ = 0
    for k in sorted(set(a) | set(b), key=str):
        same = k in a and k in b and all(a[k][f] == b[k][f] for f in keys)
        c = cases.setdefault(k[:4], [0, 0, 0])
        c[0] += 1
        c[1] += same
        c[2] += a.get(k, {}).get("nodes_generated", 0)
        differ += not same
    print("| puzzle | heuristic | solver | solver options | searches | identical | nodes generated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (p, h, s, args), (count, equal, nodes) in cases.items():
        print(f"| {p} | {h} | {s} | {args} | {count} | {equal} | {nodes:,} |")
    total = sum(c[0] for c in cases.values())
    print(f"\n{total - differ} of {total} searches identical (status, length, nodes generated and "
          "expanded, path).")
    return differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, default=Path("runs/house-plan-models"))
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        sys.exit(1 if compare(*args.compare) else 0)
    run(_models(args.models))


if __name__ == "__main__":
    main()
