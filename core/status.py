"""Every status a search or a suite row can end with, named once."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """How a search (or a suite row) ended. Members are strings: ``Status.SOLVED == "solved"``.

    ``unsolvable`` claims a proof (the whole reachable space was searched); ``beam-empty`` and
    ``depth-limit`` end an incomplete search (beam) without one; ``iteration-limit`` ends a
    best-first search at its ``max_iterations``. ``crash``, ``error``, ``invalid`` and
    ``worker-lost`` are given by the suite runner, never by a solver: the worker died, raised,
    returned a path shorter than the reference optimum, or (on a Dask cluster) the whole worker
    running the task died twice, so that the task was given up (Dask's ``KilledWorker``).
    """

    SOLVED = "solved"
    TIMEOUT = "timeout"
    NODE_LIMIT = "node-limit"
    ITERATION_LIMIT = "iteration-limit"
    OUT_OF_MEMORY = "out-of-memory"
    UNSOLVABLE = "unsolvable"
    BEAM_EMPTY = "beam-empty"
    DEPTH_LIMIT = "depth-limit"
    CRASH = "crash"
    ERROR = "error"
    INVALID = "invalid"
    WORKER_LOST = "worker-lost"


#: every status of a suite row other than solved
FAILURE_STATUSES: tuple[Status, ...] = tuple(s for s in Status if s is not Status.SOLVED)
