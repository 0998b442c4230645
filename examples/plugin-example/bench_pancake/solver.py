"""Enforced hill-climbing (Hoffmann & Nebel 2001): from the current state, a breadth-first
search until a state of strictly lower h (or a goal) is found; the path to it is kept and the
search goes on from there. Not optimal; any puzzle and any distance heuristic."""

from __future__ import annotations

import time

import numpy as np

from core.limits import Limits
from core.status import Status
from solvers.base import Solver, SolveResult, finish, require_heuristic
from solvers.memory import PeakMemory


class EnforcedHillClimbing(Solver):
    name = "hill-climb"

    def __init__(self, max_plateau: int = 100_000) -> None:
        self.max_plateau = int(max_plateau)

    def solve(self, puzzle, heuristic, start, limits: Limits | None = None) -> SolveResult:
        require_heuristic(self.name, heuristic)
        limits = limits or Limits()
        # the search's own peak memory (the project's measurement: solvers.memory)
        mem = PeakMemory().__enter__()
        t0 = time.perf_counter()
        start = np.asarray(start, dtype=puzzle.dtype)
        state, h = start, float(heuristic(start[None, :])[0])
        h_start = h
        actions: list[int] = []
        generated = expanded = iterations = 0
        status = Status.SOLVED

        def done(status: Status, path: list[int] | None) -> SolveResult:
            mem.__exit__(None, None, None)
            return finish(puzzle, start, self.name, heuristic.name, status=status, actions=path,
                          generated=generated, expanded=expanded, iterations=iterations,
                          h_start=h_start, time_s=time.perf_counter() - t0,
                          load_s=heuristic.load_seconds,
                          peak_rss_bytes=mem.peak_bytes,
                          extra={"max_plateau": self.max_plateau})

        while not puzzle.is_goal(state[None, :])[0]:
            iterations += 1
            seen: dict[bytes, tuple[bytes, int] | None] = {state.tobytes(): None}
            frontier = state[None, :]
            found = None
            plateau = 0
            while found is None:
                children, valid = puzzle.expand(frontier)
                expanded += len(frontier)
                b, a, width = children.shape
                flat = children.reshape(-1, width)
                keep = []
                for i in np.flatnonzero(valid.reshape(-1)):
                    key = flat[i].tobytes()
                    if key not in seen:
                        seen[key] = (frontier[i // a].tobytes(), int(i % a))
                        keep.append(i)
                generated += len(keep)
                plateau += len(keep)
                if not keep:
                    return done(Status.UNSOLVABLE, None)
                layer = flat[keep]
                values = np.asarray(heuristic(layer), dtype=np.float64)
                better = np.flatnonzero((values < h) | puzzle.is_goal(layer))
                if better.size:
                    pick = int(better[np.argmin(values[better])])
                    found, h = layer[pick], float(values[pick])
                    break
                if limits.time_s is not None and time.perf_counter() - t0 > limits.time_s:
                    return done(Status.TIMEOUT, None)
                if limits.nodes is not None and generated >= limits.nodes:
                    return done(Status.NODE_LIMIT, None)
                if plateau >= self.max_plateau:
                    return done(Status.DEPTH_LIMIT, None)
                frontier = layer
            steps = []
            key = found.tobytes()
            while seen[key] is not None:
                key, move = seen[key]  # type: ignore[misc]
                steps.append(move)
            actions.extend(reversed(steps))
            state = found
        return done(status, actions)
