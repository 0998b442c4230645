"""Check ``pdb-coset`` against breadth-first distances on every state within 4 half turns / 5
quarter turns of the goal, and print each table's distance histogram.

    python -m experiments.cube3_optimal.ball_check
    python -m experiments.cube3_optimal.ball_check --probe-inverse on --corner-pdb corners
"""

from __future__ import annotations

import argparse

import numpy as np

from heuristics.pdb_coset import CORNER_PDBS, PROBES, CosetCubePDB
from puzzles import cube


def _ball(puzzle: cube.Cube3, depth: int) -> tuple[np.ndarray, np.ndarray]:
    goal = puzzle.goal()[None, :]
    seen = {goal.tobytes()}
    layers, frontier = [goal], goal
    for _ in range(depth):
        children, _ = puzzle.expand(frontier)
        fresh = [c for c in children.reshape(-1, goal.shape[1]) if c.tobytes() not in seen]
        seen.update(c.tobytes() for c in fresh)
        frontier = np.unique(np.asarray(fresh), axis=0)
        layers.append(frontier)
    dist = np.concatenate([np.full(len(x), d) for d, x in enumerate(layers)])
    return np.concatenate(layers), dist


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe-inverse", default="off", choices=PROBES)
    ap.add_argument("--corner-pdb", default="none", choices=CORNER_PDBS)
    args = ap.parse_args()
    for metric, radius in (("htm", 4), ("qtm", 5)):
        puzzle = cube.Cube3(metric)
        h = CosetCubePDB(puzzle, progress=False, probe_inverse=args.probe_inverse,
                         corner_pdb=args.corner_pdb)
        states, dist = _ball(puzzle, radius)
        v = h(states)
        print(f"{metric} {h.name}: {len(states)} states within {radius}, "
              f"{int((v > dist).sum())} above their distance, "
              f"{float((v == dist).mean()):.3f} exact")
        if (args.probe_inverse, args.corner_pdb) == ("off", "none"):
            hist = np.bincount(h.table)
            mean = float((hist * np.arange(hist.size)).sum() / hist.sum())
            print(f"{metric}: table histogram {hist.tolist()}, mean {mean:.2f}")


if __name__ == "__main__":
    main()
