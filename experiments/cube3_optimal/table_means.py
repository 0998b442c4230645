"""The mean lower bound of a two-bit coset heuristic on uniformly random cubes (quarter turns):
one probe (the U-D axis of the cube), six probes with the three-axis rule (the heuristic's
value), and six probes with the quarter-turn parity (a bound of the other parity is one short);
nxopt.md publishes the first two for each of its table sizes ("average1", "average6").

    python -m experiments.cube3_optimal.table_means --heuristic pdb-coset-eo2ep2 --cubes 20000 \\
        --seed 7
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from core.registry import get_heuristic, get_puzzle


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heuristic", default="pdb-coset-eo2ep2")
    ap.add_argument("--cubes", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    from heuristics.pdb_cube import state_batch
    from pdb_builders import cube_symmetry as S

    puzzle = get_puzzle("cube3")
    t0 = time.perf_counter()
    h = get_heuristic(args.heuristic, puzzle, progress=False)
    loaded = time.perf_counter() - t0
    states = puzzle.random_states(args.cubes, np.random.default_rng(args.seed))
    cubies = tuple(np.asarray(x, dtype=np.int64)
                   for x in puzzle.to_cubies(state_batch(puzzle, states)))
    forward = h.axis_values(cubies)
    inverse = h.axis_values(S.inverse(cubies))  # type: ignore[arg-type]
    six = np.maximum(h.combine(forward), h.combine(inverse))
    assert np.array_equal(six, h(states))
    cp = cubies[0]
    upper = np.triu(np.ones((8, 8), dtype=bool), 1)[None]
    parity = ((cp[:, :, None] > cp[:, None, :]) & upper).sum(axis=(1, 2)) % 2
    with_parity = six + (six % 2 != parity)
    print(json.dumps({"heuristic": args.heuristic, "cubes": args.cubes, "seed": args.seed,
                      "base": h.base, "load_seconds": round(loaded, 1),
                      "average1": round(float(forward[:, 0].mean()), 4),
                      "average6": round(float(six.mean()), 4),
                      "average6_parity": round(float(with_parity.mean()), 4),
                      "one_probe_histogram": np.bincount(forward[:, 0]).tolist()}))


if __name__ == "__main__":
    main()
