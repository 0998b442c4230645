"""Project side of the DeepXube export: the ONNX model under the project's ``onnx`` heuristic
gives DeepXube's values on DeepXube's states.

Runs with the project's interpreter; it never imports deepxube. Reads ``check.json`` beside the
model (written by ``run_deepxube export``: DeepXube's goal, states of its random walks and its
heuristic's values on them), checks that DeepXube's goal is the project's puzzle15 goal and every
state a solvable project state, loads the model with ``heuristics.onnx.OnnxHeuristic`` (which
checks the card, the shapes and the goal's estimate) and compares its values with DeepXube's.

    python -m experiments.deepxube_puzzle15.check_onnx \
        --model results/puzzle15-deepxube/model/model.onnx
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from core.registry import get_puzzle
from heuristics.onnx import OnnxHeuristic
from puzzles.npuzzle import solvable


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the exported .onnx file")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="largest difference allowed (float32 against float64; default 1e-3)")
    args = ap.parse_args(argv)
    model = Path(args.model)
    check = json.loads(model.with_name("check.json").read_text(encoding="utf-8"))
    puzzle = get_puzzle("puzzle15")
    if not np.array_equal(np.array(check["goal"]), puzzle.goal()):
        sys.exit(f"DeepXube's goal {check['goal']} is not the project's {puzzle.goal().tolist()}")
    states = np.array(check["states"], dtype=np.int64)
    if not (np.sort(states, axis=1) == np.arange(16)).all() or not solvable(states, 4).all():
        sys.exit("a state of DeepXube's random walks is not a solvable project puzzle15 state")
    h = OnnxHeuristic(puzzle, model=model)
    raw = h.raw_outputs(states)[:, 0]
    ours = h(states)
    theirs = np.array(check["deepxube_values"])
    gap = np.abs(ours - theirs)
    goal = puzzle.is_goal(states)
    for k, (n, a, b) in enumerate(zip(check["walk_lengths"], theirs, ours, strict=True)):
        print(f"{k:3d} walk {n:3d}: deepxube {a:9.4f}  onnx {b:9.4f}")
    print(f"{len(states)} states ({int(goal.sum())} at the goal): largest difference "
          f"{float(gap.max()):.2g}; raw estimate of the goal {float(raw[goal][0]):.4f}")
    if float(gap.max()) > args.tolerance:
        sys.exit(f"the ONNX model differs from DeepXube's values by {float(gap.max()):.3g}")


if __name__ == "__main__":
    main()
