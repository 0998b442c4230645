"""A fake task function and plans for runner tests (no puzzle, heuristic or solver needed).

Run as a script, ``python tests/runner_fakes.py RUN_DIR N SLEEP`` executes a plan of N fake
tasks into RUN_DIR with two workers (used by the kill -9 test).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SUITE_TOML = """
[suite]
name = "fake"
puzzle = "puzzle15"
[limits]
time_s = 2.0
[[instances]]
name = "korf100"
source = "file"
path = "korf100_15puzzle.txt"
format = "tiles"
goal = "blank-first"
optimal = "file"
[[configs]]
name = "a"
heuristic = "manhattan"
solver = "ida"
[[configs]]
name = "b"
heuristic = "manhattan"
solver = "astar"
"""


def fake_start(length: int) -> list[int]:
    """A 15-puzzle start state (blank-first goal) that :func:`fake_path` of ``length`` moves
    solves: the goal, or for an odd length the goal with the blank moved right."""
    state = list(range(16))
    if length % 2:
        state[0], state[1] = 1, 0
    return state


def fake_path(length: int) -> str:
    """``length`` moves that solve :func:`fake_start` (``L`` first for an odd length, then
    ``R L`` pairs): every fake solved row replays, as a real row does."""
    return " ".join((["L"] if length % 2 else []) + ["R", "L"] * (length // 2))


def solve(payload: dict[str, Any]) -> dict[str, Any]:
    """Pretend to solve: ``payload['fake']`` says how (ok, error, crash, hang, oom,
    memory-error, nodes, kill-worker...)."""
    fake = payload.get("fake", {})
    mode = fake.get("mode", "ok")
    time.sleep(fake.get("sleep", 0.0))
    if mode == "error":
        raise RuntimeError("solver blew up")
    if mode == "crash":
        os._exit(3)
    if mode == "kill-worker":  # the process that handed this task on (a Dask worker) dies
        import signal

        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(4)
    if mode == "hang":
        while True:
            time.sleep(0.05)
    if mode == "oom":
        hog = bytearray(fake.get("bytes", 400 * 2**20))
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        time.sleep(5)
    if mode == "memory-error":  # a search that touches ``bytes`` in its block, then runs out
        import numpy as np

        from solvers.memory import PeakMemory

        with PeakMemory():
            hog = np.ones(fake.get("bytes", 64 * 2**20) // 8)
            del hog
            raise MemoryError("fake")
    if mode == "fail":
        return {"status": fake.get("status", "node-limit"), "length": None,
                "nodes_generated": fake.get("nodes", 10), "time_s": 0.01}
    length = fake.get("length", 10)
    return {"status": "solved", "length": length, "actions": fake_path(length),
            "nodes_generated": fake.get("nodes", 100), "nodes_expanded": 50, "iterations": 1,
            "h_start": 5.0, "time_s": fake.get("time_s", 0.01), "peak_rss_bytes": 1000,
            "heuristic_nbytes": 0}


def make_plan(tmp: Path, specs: list[tuple[str, str, dict[str, Any]]], time_s: float = 2.0,
              memory_mb: int | None = None):
    """A Plan whose tasks are ``(instance, config, fake)`` triples."""
    import tomllib

    from bench.executor import Task
    from bench.runner import Plan, row_key
    from suites.schema import parse_suite

    path = tmp / "fake.toml"
    path.write_text(SUITE_TOML)
    suite = parse_suite(path, tomllib.loads(SUITE_TOML))
    tasks = []
    for inst, cfg, fake in specs:
        meta = {"suite": "fake", "profile": "default", "instance_set": "korf100", "instance": inst,
                "config": cfg, "puzzle": "puzzle15", "goal": "blank-first", "heuristic": "manhattan",
                "solver": "ida", "params": "{}", "seed": 0, "optimal": fake.get("optimal")}
        payload = {"fake": fake, "state": fake_start(int(fake.get("length", 10) or 0)),
                   "puzzle": "puzzle15", "heuristic": "manhattan", "solver": "ida"}
        tasks.append(Task(row_key("korf100", inst, cfg), payload, time_s=time_s,
                          memory_bytes=memory_mb * 2**20 if memory_mb else None, meta=meta))
    return Plan(suite, "default", {}, list(suite.configs.values()), tasks)


if __name__ == "__main__":
    from bench.executor import LocalExecutor
    from bench.runner import run_plan

    run_dir, n, sleep = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    specs = [(str(i), "a", {"sleep": sleep, "length": 40 + i}) for i in range(n)]
    plan = make_plan(run_dir.parent, specs)
    run_plan(plan, run_dir, LocalExecutor(jobs=2, fn="runner_fakes:solve"),
             resume="--resume" in sys.argv, progress=False, prepare=False)


def threads(payload: dict[str, Any]) -> dict[str, Any]:
    """The worker's thread settings (torch, Numba, environment)."""
    import os

    import numba
    import torch

    return {"status": "solved", "torch": torch.get_num_threads(),
            "numba": numba.get_num_threads(), "omp": os.environ.get("OMP_NUM_THREADS")}
