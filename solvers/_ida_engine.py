"""The IDA* driver, written once for every puzzle family: cost-bound iterations, time slices,
node and time limits, statuses and node accounting.

A family kernel (``solvers._ida_<family>``) supplies a :class:`Search` for one start state: its
Numba depth-first search resumes where it stopped and returns after about ``budget`` generated
nodes with one of the codes below, keeping its counters in the ``ctl`` array (slots ``GEN``,
``EXP``, ``NEXT``). The driver calls it in slices, so a node limit and a deadline are noticed
between slices (a slice takes well under a second), and turns the outcome into the kernel
contract of :mod:`solvers.ida`.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import numpy as np

from core.status import Status

#: what a slice of the depth-first search ends with
PAUSED, ITER_DONE, SOLVED = 0, 1, 2
#: a cost bound no search reaches
INF = 1 << 40
#: slots of the int64 ``ctl`` array every kernel keeps its counters in
GEN, EXP, NEXT = 0, 1, 2
#: index cast for the kernels' hot loops: Numba wraps a signed index that is negative (a compare
#: and a select on every array access); an unsigned index skips that. Only for indices known to
#: be in range.
U = np.uint64


class Search(Protocol):
    """One IDA* search from one start state, as a family kernel runs it."""

    ctl: np.ndarray  #: int64 counters: nodes generated and expanded, the next cost bound

    def is_goal(self) -> bool:
        """Whether the start state is the goal."""

    def first_bound(self) -> int:
        """The first cost bound: the start's heuristic (rounded up to the solutions' parity,
        where a family knows it)."""

    def next_bound(self, least_f: int) -> int:
        """The cost bound after an iteration whose least cut-off ``f`` was ``least_f``."""

    def begin(self, bound: int) -> None:
        """Start a depth-first iteration under ``bound`` (the root counts as expanded)."""

    def run(self, budget: int) -> int:
        """Continue the iteration for about ``budget`` more generated nodes; a code above."""

    def solution(self) -> list[int]:
        """The actions from the start to the goal, after ``run`` returned ``SOLVED``."""

    def generated_at_solution(self) -> int:
        """Nodes generated up to the solution, as a child-by-child search counts them."""


def drive(search: Search, max_nodes: int | None, deadline_s: float | None, slice_nodes: int,
          max_bound: int) -> dict[str, Any]:
    """Run ``search`` to a status; see :mod:`solvers.ida` for the result's fields."""
    ctl = search.ctl

    def result(status: Status, actions: list[int] | None = None,
               generated: int | None = None) -> dict[str, Any]:
        return dict(status=status.value, actions=actions,
                    nodes_generated=int(ctl[GEN]) if generated is None else generated,
                    nodes_expanded=int(ctl[EXP]), iterations=iterations)

    iterations = 0
    ctl[:] = 0
    if search.is_goal():
        return result(Status.SOLVED, [])
    bound = search.first_bound()
    while True:
        if bound > max_bound:
            raise RuntimeError(f"IDA*: cost bound {bound} exceeds the search stack ({max_bound})")
        iterations += 1
        ctl[NEXT] = INF
        ctl[EXP] += 1  # the root of every iteration is expanded
        search.begin(bound)
        while True:
            budget = slice_nodes
            if max_nodes is not None:
                budget = max(1, min(budget, int(max_nodes) + 1 - int(ctl[GEN])))
            code = search.run(budget)
            if code == SOLVED:
                return result(Status.SOLVED, search.solution(), search.generated_at_solution())
            if code == ITER_DONE:
                break
            if max_nodes is not None and ctl[GEN] > max_nodes:
                return result(Status.NODE_LIMIT)
            if deadline_s is not None and time.monotonic() > deadline_s:
                return result(Status.TIMEOUT)
        if ctl[NEXT] >= INF:
            return result(Status.UNSOLVABLE)
        bound = search.next_bound(int(ctl[NEXT]))
        if deadline_s is not None and time.monotonic() > deadline_s:
            return result(Status.TIMEOUT)
