"""Project side of the cayleypy comparison on DeepCubeA's cube3 test cubes.

Runs with the project's interpreter (``python`` with heuristic-bench installed); it never imports
cayleypy. Two steps:

``export``  writes the first N DeepCubeA cube3 test cubes (default 200), read the way the
            ``deepcubea`` instance set of ``suites/cube3.toml`` reads them, in the project's
            sticker layout, together with the project's cube3 move tables and seeded random
            scrambles (moves and the state the project reaches), to a JSON file for
            ``run_cayleypy.py``;
``check``   reads the CSV written by ``run_cayleypy.py solve``, replays every returned path with
            the project's cube3 puzzle from the DeepCubeA cube (a path that does not end at the
            goal counts as unsolved), and writes a per-cube table beside DeepCubeA's own lengths
            (``deepcubea_results_output.txt``) with a summary.

    python -m experiments.cayleypy_cube3.export_and_check export --n 200 --out states.json
    python -m experiments.cayleypy_cube3.export_and_check check --states states.json \
        --csv results.csv --out check
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

import numpy as np

from core.registry import get_puzzle
from puzzles.notation import FACES
from suites.sources import deepcubea_instances, deepcubea_source


def _instances(puzzle, n: int):
    src = deepcubea_source("cube3")
    if src is None:
        sys.exit("DeepCubeA's cube3 test set not found (shared/data/deepcubea/cube3/test_data_0.pkl)")
    return src, deepcubea_instances(puzzle, src, "deepcubea", n)


def export(args: argparse.Namespace) -> None:
    puzzle = get_puzzle("cube3")
    src, instances = _instances(puzzle, args.n)
    rng = np.random.default_rng(args.seed)
    scrambles = []
    for k in range(args.scrambles):
        depth = int(rng.integers(1, 41))
        states, moves = puzzle.scramble(1, depth, np.random.default_rng([args.seed, k]))
        scrambles.append({"moves": puzzle.format_moves(moves[0]), "state": states[0].tolist()})
    data = {
        "source": str(src),
        "project": {
            "puzzle": puzzle.name,
            "action_names": list(puzzle.action_names),
            # child = parent[perms[a]] for action a
            "perms": puzzle.PERMS.tolist(),
            "goal": puzzle.goal().tolist(),
            "colour_letters": FACES,
        },
        "states": [{"index": i, "id": inst.id, "state": inst.state.tolist(),
                    "deepcubea_length": inst.meta.get("published_length")}
                   for i, inst in enumerate(instances)],
        "scrambles": scrambles,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(instances)} cubes from {src}, {len(scrambles)} scrambles")


def _replay(puzzle, state: np.ndarray, names: list[str]) -> bool:
    index = {n: a for a, n in enumerate(puzzle.action_names)}
    s = state[None, :]
    for name in names:
        if name not in index:
            return False
        s = puzzle.apply(s, np.array([index[name]]))
    return bool(puzzle.is_goal(s)[0])


def check(args: argparse.Namespace) -> None:
    puzzle = get_puzzle("cube3")
    data = json.loads(Path(args.states).read_text(encoding="utf-8"))
    exported = data["states"][: args.limit] if args.limit else data["states"]
    n = len(exported)
    _, instances = _instances(puzzle, n)  # the cubes again, straight from DeepCubeA's file
    for item, inst in zip(exported, instances, strict=True):
        if not np.array_equal(np.array(item["state"]), inst.state):
            sys.exit(f"{args.states}: cube {item['index']} is not DeepCubeA's cube {inst.id}")
    with open(args.csv, newline="", encoding="utf-8") as fh:
        rows = {int(r["index"]): r for r in csv.DictReader(fh)}

    table = []
    for i, inst in enumerate(instances):
        r = rows.get(i)
        dca = inst.meta.get("published_length")
        line = {"index": i, "status": "no result", "returned": 0, "replayed": "", "solved": 0,
                "length": "", "deepcubea_length": dca if dca is not None else "", "difference": "",
                "seconds": ""}
        if r is not None:
            line["status"] = r["status"]
            line["seconds"] = r["seconds"]
            line["returned"] = int(r["solved"])
            if int(r["solved"]):
                names = r["moves"].split()
                ok = _replay(puzzle, inst.state, names)
                line["replayed"] = "goal" if ok else "NOT GOAL"
                if ok:
                    line["solved"] = 1
                    line["length"] = len(names)
                    if dca is not None:
                        line["difference"] = len(names) - int(dca)
        table.append(line)

    solved = [t for t in table if t["solved"]]
    failed_replays = [t["index"] for t in table if t["replayed"] == "NOT GOAL"]
    with_dca = [t for t in solved if t["deepcubea_length"] != ""]
    secs = [float(t["seconds"]) for t in table if t["seconds"] != ""]
    summary = {
        "cubes": n,
        "with_result": sum(1 for t in table if t["status"] != "no result"),
        "solved": len(solved),
        "solved_percent": round(100.0 * len(solved) / n, 1) if n else 0.0,
        "failed_replays": failed_replays,
        "mean_length": round(statistics.mean(int(t["length"]) for t in solved), 2) if solved else None,
        "mean_deepcubea_length_same_cubes":
            round(statistics.mean(int(t["deepcubea_length"]) for t in with_dca), 2) if with_dca else None,
        "mean_difference": round(statistics.mean(int(t["difference"]) for t in with_dca), 2) if with_dca else None,
        "mean_seconds": round(statistics.mean(secs), 2) if secs else None,
        "status_counts": {s: sum(1 for t in table if t["status"] == s)
                          for s in sorted({t["status"] for t in table})},
    }

    cols = list(table[0]) if table else []
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(t[c]) for c in cols) + " |" for t in table]
    text = "\n".join(lines)
    print(text)
    print(json.dumps(summary, indent=1))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "per_cube.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=cols)
            w.writeheader()
            w.writerows(table)
        (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        (out / "per_cube.md").write_text(text + "\n", encoding="utf-8")
        print(f"wrote {out}/per_cube.csv, per_cube.md and summary.json")
    if failed_replays:
        sys.exit(f"{len(failed_replays)} returned path(s) do not reach the goal: {failed_replays}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write DeepCubeA's first N cube3 cubes and the move tables to JSON")
    e.add_argument("--n", type=int, default=200, help="number of cubes (default 200)")
    e.add_argument("--out", default="states.json")
    e.add_argument("--scrambles", type=int, default=50,
                   help="random scrambles (1-40 moves) for checking the layout mapping (default 50)")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=export)
    c = sub.add_parser("check", help="replay the paths of run_cayleypy.py solve and tabulate them")
    c.add_argument("--states", default="states.json", help="the file written by export")
    c.add_argument("--csv", required=True, help="CSV written by run_cayleypy.py solve")
    c.add_argument("--out", help="folder for per_cube.csv, per_cube.md and summary.json")
    c.add_argument("--limit", type=int, default=0,
                   help="only the first N exported cubes (for a partial run; default all)")
    c.set_defaults(func=check)
    args = ap.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
