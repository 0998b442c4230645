"""Published optimal cube solvers on DeepCubeA's cubes, measured on this machine.

Two peers, each built from its public sources in a folder outside the checkout (nothing of
theirs is committed here; ``peers_build.sh`` says how):

- ``nxopt`` (Rokicki's cube20src): one program per table size and metric (``nxopt31q`` is the
  EO3EP1 table in quarter turns, 2.60 GB), reading move sequences on standard input. It builds
  its table on first use in the folder it runs in.
- ``h48`` (nissy-core's H48, half turns): the ``nissy`` Python module built by the project's
  ``build.sh python``, loaded from ``--module-dir``; its table (``h48h6`` and so on) is read from
  ``--table-dir`` or generated there first.

Each cube is given to the peer as the inverse of DeepCubeA's optimal solution (a move sequence
that makes the cube from the solved state), one cube at a time on one thread. Every solution a
peer returns is replayed on the cube as this project reads it (``cube3`` for quarter turns,
``cube3-htm`` for half turns) and must reach the goal; a quarter-turn length must equal the
pickle's optimum, a half-turn length may not exceed it. One JSON line per cube is written to
``--out`` (appended; cubes already there are skipped, so a stopped run resumes).

    python -m experiments.cube3_optimal.peers --peer nxopt --program PEERS/nxopt/nxopt31q \\
        --table-dir PEERS/nxopt --first 20 --out runs/peers/nxopt31q.jsonl
    python -m experiments.cube3_optimal.peers --peer h48 --module-dir PEERS/nissy \\
        --solver h48h6 --table-dir PEERS/nissy/tables --first 20 --out runs/peers/h48h6.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.provenance import cpu_name
from core import safe_write
from core.errors import InputError
from core.paths import deepcubea_dir
from core.registry import get_puzzle

#: nxopt's report of a finished position: "Solved SEQ in LENGTH probes P evals E time T"
_NXOPT_SOLVED = re.compile(r"^(Solved|Did not solve) (\d+) in ?(\d*) probes (\d+) evals (\d+) "
                           r"time ([0-9.eE+-]+)")
_NXOPT_TOKEN = {"1": "", "2": "2", "3": "'"}


def deepcubea_cubes(first: int) -> list[tuple[str, np.ndarray, list[int]]]:
    """DeepCubeA's first ``first`` cubes: (id, our cube3 state, its optimal solution as our
    quarter-turn actions), each solution replayed on its state."""
    from puzzles.cube.deepcubea import deepcubea_moves
    from suites.importers.deepcubea import load_test_set
    from suites.sources import deepcubea_states

    path = deepcubea_dir() / "cube3" / "test_data_0.pkl"
    if not path.is_file():
        raise InputError(f"--first: DeepCubeA's cube3 test set is missing ({path.name})")
    ts = load_test_set(path)
    puzzle = get_puzzle("cube3")
    states = deepcubea_states(puzzle, ts.kind, ts.states[:first])
    if ts.solutions is None:
        raise InputError(f"{path.name}: no optimal solutions")
    out = []
    for i, state in enumerate(states):
        actions = deepcubea_moves(ts.solutions[i])
        if not puzzle.check_solution(state, actions):
            raise InputError(f"{path.name}: cube {i}: the optimal solution does not solve it")
        out.append((str(i), state, actions))
    return out


def inverse_sequence(puzzle: Any, actions: Sequence[int]) -> list[str]:
    """The move tokens (standard notation) of the inverse of ``actions``."""
    tokens = puzzle.format_moves(list(actions)).split()
    inv = []
    for t in reversed(tokens):
        inv.append(t[:-1] if t.endswith("'") else t if t.endswith("2") else t + "'")
    return inv


def to_nxopt(tokens: Sequence[str]) -> str:
    """Standard tokens -> nxopt's (``U1``, ``U2``, ``U3``)."""
    return " ".join(t[0] + ("3" if t.endswith("'") else "2" if t.endswith("2") else "1")
                    for t in tokens)


def from_nxopt(tokens: Sequence[str]) -> list[str]:
    """nxopt's tokens -> standard notation."""
    out = []
    for t in tokens:
        if len(t) != 2 or t[1] not in _NXOPT_TOKEN:
            raise InputError(f"nxopt: unreadable move {t!r}")
        out.append(t[0] + _NXOPT_TOKEN[t[1]])
    return out


def run_nxopt(program: Path, table_dir: Path, scrambles: list[str]) -> Iterator[dict[str, Any]]:
    """Solve ``scrambles`` with nxopt, one thread, in order; yield one record per scramble."""
    proc = subprocess.Popen([str(program.resolve()), "-t", "1", "-"], cwd=table_dir,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(s + "\n" for s in scrambles))
    proc.stdin.close()
    pending: dict[str, Any] | None = None
    for line in proc.stdout:
        m = _NXOPT_SOLVED.match(line.strip())
        if m:
            if pending is not None:
                yield pending
            pending = {"seq": int(m[2]), "length": int(m[3]) if m[3] else None,
                       "probes": int(m[4]), "evals": int(m[5]), "seconds": float(m[6]),
                       "moves": []}
        elif pending is not None and line.strip() and re.fullmatch(r"( [UFRDBL][123])+",
                                                                   line.rstrip("\n")):
            pending["moves"] += from_nxopt(line.split())
    if pending is not None:
        yield pending
    if proc.wait() != 0:
        raise RuntimeError(f"{program.name} exited with {proc.returncode}")


def h48_solver(module_dir: Path, solver: str, table_dir: Path) -> Any:
    """A function scramble -> record that solves one cube with H48 on one thread."""
    sys.path.insert(0, str(module_dir.resolve()))
    import nissy  # type: ignore[import-not-found]

    table = table_dir / solver
    if table.is_file():
        data = bytearray(table.read_bytes())
    else:
        t0 = time.perf_counter()
        data = nissy.gendata(solver)
        table_dir.mkdir(parents=True, exist_ok=True)
        safe_write.write_bytes(table, bytes(data), arg="--table-dir")
        print(f"{solver}: table generated in {time.perf_counter() - t0:.0f} s", flush=True)

    def solve(scramble: str) -> dict[str, Any]:
        cube = nissy.applymoves(nissy.solved_cube, scramble)
        t0 = time.perf_counter()
        sols = nissy.solve(cube, solver, nissy.nissflag_normal, 0, 20, 1, 0, 1, data)
        seconds = time.perf_counter() - t0
        moves = sols[0].split() if sols else []
        return {"length": len(moves) if sols else None, "seconds": seconds, "moves": moves}

    solve.table_bytes = len(data)  # type: ignore[attr-defined]
    return solve


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", choices=("nxopt", "h48"), required=True)
    ap.add_argument("--program", type=Path, help="nxopt: the compiled program")
    ap.add_argument("--module-dir", type=Path, help="h48: the folder holding nissy's module")
    ap.add_argument("--solver", default="h48h6", help="h48: the solver (table) name")
    ap.add_argument("--table-dir", type=Path, required=True,
                    help="where the peer's table is (or is built on first use)")
    ap.add_argument("--first", type=int, default=20, help="DeepCubeA's first N cubes")
    ap.add_argument("--cubes", default=None, help="only these cube ids (comma-separated)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.peer == "nxopt" and (args.program is None or not args.program.is_file()):
        ap.error("--program: nxopt's compiled program is required")
    if args.peer == "h48" and (args.module_dir is None or not args.module_dir.is_dir()):
        ap.error("--module-dir: the folder with nissy's Python module is required")
    cubes = deepcubea_cubes(args.first)
    if args.cubes:
        wanted = set(args.cubes.split(","))
        cubes = [c for c in cubes if c[0] in wanted]
    done = set()
    if args.out.is_file():
        done = {json.loads(x)["cube"] for x in args.out.read_text().splitlines() if x.strip()}
    cubes = [c for c in cubes if c[0] not in done]
    qtm, htm = get_puzzle("cube3"), get_puzzle("cube3-htm")
    scrambles = [inverse_sequence(qtm, actions) for _, _, actions in cubes]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    common = {"peer": args.peer, "cpu": cpu_name(), "threads": 1}
    if args.peer == "nxopt":
        common["program"] = args.program.name
        metric, puzzle = ("qtm", qtm) if args.program.name.endswith("q") else ("htm", htm)
        records = run_nxopt(args.program, args.table_dir, [to_nxopt(s) for s in scrambles])
    else:
        solve = h48_solver(args.module_dir, args.solver, args.table_dir)
        common |= {"program": args.solver, "table_bytes": solve.table_bytes}
        metric, puzzle = "htm", htm
        records = (solve(" ".join(s)) for s in scrambles)
    with safe_write.open_append(args.out, binary=False, arg="--out") as f:
        for (cube_id, state, actions), rec in zip(cubes, records, strict=False):
            moves = rec.pop("moves")
            path = puzzle.parse_moves(" ".join(moves)) if moves else []
            ok = rec["length"] is not None and puzzle.check_solution(state, path)
            optimal = len(actions)
            if ok and metric == "qtm" and len(path) != optimal:
                raise RuntimeError(f"cube {cube_id}: {args.peer} length {len(path)}, optimum "
                                   f"{optimal}")
            if ok and metric == "htm" and len(path) > optimal:
                raise RuntimeError(f"cube {cube_id}: half-turn length {len(path)} above the "
                                   f"quarter-turn optimum {optimal}")
            row = {**common, "cube": cube_id, "metric": metric, "optimal_qtm": optimal,
                   "solved": bool(ok), **{k: v for k, v in rec.items() if k != "seq"},
                   "solution": " ".join(moves)}
            if rec["length"] is not None and not ok:
                raise RuntimeError(f"cube {cube_id}: {args.peer}'s solution does not replay")
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(json.dumps({k: v for k, v in row.items() if k != "solution"}), flush=True)


if __name__ == "__main__":
    main()
