"""The result record and limits shared by every solver."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from core.capabilities import HasExtraGoals, Policy, PolicySolver, QValues
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.base import Guide, Heuristic
from heuristics.zero import Zero
from puzzles.base import Puzzle


@dataclass(frozen=True)
class SolveResult:
    """What every solver returns. ``actions`` were replayed and checked when ``status == 'solved'``."""

    status: Status
    actions: list[int] | None
    length: int | None
    nodes_generated: int
    nodes_expanded: int
    iterations: int
    h_start: float | None
    time_s: float
    load_s: float = 0.0
    peak_rss_bytes: int = 0
    heuristic: str = ""
    solver: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: states a network evaluated in this solve (learned heuristics), None without a network;
    #: set by :meth:`Solver.run`
    network_evaluations: int | None = None
    #: bytes of what the search loaded and read (the heuristic's tables and weights, a
    #: table-driven solver's tables), kept apart from ``peak_rss_bytes`` (the search's own
    #: memory, :mod:`solvers.memory`); set by :meth:`Solver.run`
    loaded_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SolutionError(RuntimeError):
    """A solver returned a path that does not solve the start state (a bug, never user input)."""


def verified(puzzle: Puzzle, start: np.ndarray, result: SolveResult) -> SolveResult:
    """Replay a solved result's actions from ``start``; raise ``SolutionError`` if they fail
    (no path, a move that is not one of the puzzle's, a path that does not reach the goal, or a
    length other than the path's)."""
    if result.status == "solved":
        actions = result.actions
        try:
            ok = actions is not None and all(
                isinstance(a, int | np.integer) and not isinstance(a, bool)
                and 0 <= a < puzzle.num_actions for a in actions) \
                and puzzle.check_solution(start, [int(a) for a in actions])
        except (IndexError, TypeError, ValueError):
            ok = False
        if not ok:
            raise SolutionError(
                f"{result.solver}/{result.heuristic} returned an invalid path on {puzzle.name}"
            )
        assert actions is not None
        if result.length != len(actions):
            raise SolutionError(f"{result.solver}/{result.heuristic}: result length "
                                f"{result.length} does not match its {len(actions)} actions")
    return result


def replayed(puzzle: Puzzle, start: np.ndarray, result: SolveResult) -> tuple[SolveResult,
                                                                              str | None]:
    """A solver's result after its path is replayed as the suite runner does: unchanged with
    ``None``, or, where :func:`verified` refuses it, marked ``invalid`` (no moves, no length)
    with the reason."""
    try:
        return verified(puzzle, start, result), None
    except SolutionError as exc:
        return replace(result, status=Status.INVALID, actions=None, length=None), str(exc)


def finish(puzzle: Puzzle, start: np.ndarray, solver: str, heuristic: str, *, status: Status,
           actions: list[int] | None, generated: int, expanded: int, iterations: int,
           h_start: float | None, time_s: float, load_s: float, peak_rss_bytes: int,
           extra: dict[str, Any]) -> SolveResult:
    """Build a solver's result (length from its actions) and replay it (:func:`verified`)."""
    return verified(puzzle, start, SolveResult(
        status=status, actions=actions, length=len(actions) if actions is not None else None,
        nodes_generated=int(generated), nodes_expanded=int(expanded), iterations=int(iterations),
        h_start=h_start, time_s=time_s, load_s=load_s, peak_rss_bytes=peak_rss_bytes,
        heuristic=heuristic, solver=solver, extra=extra))


class GoalTest:
    """The puzzle's goal test, plus the extra goals a heuristic may bring (a multi-goal model's
    intermediate goals, each with its path to the final goal: a
    :class:`core.capabilities.HasExtraGoals`). A search that reaches an extra goal appends that
    goal's path (``tail``)."""

    def __init__(self, puzzle: Puzzle, heuristic: Guide) -> None:
        self.puzzle = puzzle
        goals, tails = heuristic.extra_goals() if isinstance(heuristic, HasExtraGoals) else \
            (np.zeros((0, puzzle.state_dim)), [])
        self.goals = np.ascontiguousarray(goals, dtype=puzzle.dtype)
        self.tails = [list(t) for t in tails]
        rng = np.random.default_rng(7)
        self._mult = rng.integers(1, 2**62, size=puzzle.state_dim, dtype=np.int64)
        self._keys = self._hash(self.goals) if len(self.goals) else np.zeros(0, np.int64)

    def _hash(self, states: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return (np.asarray(states, dtype=np.int64) * self._mult).sum(axis=1)

    def which(self, states: np.ndarray) -> np.ndarray:
        """``(B,)``: -1 for the final goal, the extra goal's index, or -2 for no goal."""
        states = np.atleast_2d(states)
        out = np.where(self.puzzle.is_goal(states), -1, -2)
        if len(self.goals) and states.shape[0]:
            cand = np.flatnonzero(np.isin(self._hash(states), self._keys) & (out == -2))
            for i in cand:  # a hash match is checked exactly
                same = np.flatnonzero((self.goals == states[i]).all(axis=1))
                if same.size:
                    out[i] = int(same[0])
        return out

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``(B,)`` bool: a goal, final or extra."""
        return self.which(states) != -2

    def tail(self, state: np.ndarray) -> list[int]:
        """The moves from ``state`` (a goal) to the final goal: none for the final goal."""
        k = int(self.which(state[None, :])[0])
        return [] if k < 0 else list(self.tails[k])


def check_no_heuristic(solver: str, heuristic: Guide) -> None:
    """A table-driven solver runs with the zero heuristic (:class:`heuristics.zero.Zero`);
    another guide is refused (a row must not name an estimate the solver never read)."""
    if not isinstance(heuristic, Zero):
        raise InputError(f"--heuristic: solver {solver} uses no heuristic; leave it out "
                         f"(or give {Zero.name}), not {heuristic.name}")


def require_heuristic(solver: str, guide: Guide) -> Heuristic:
    """``guide`` as a :class:`heuristics.base.Heuristic`; a policy
    (:class:`core.capabilities.Policy`: it ranks moves and gives no distance estimate), or any
    other object, is an ``InputError`` naming the solver."""
    if isinstance(guide, Heuristic):
        return guide
    kind = "ranks moves and gives" if isinstance(guide, Policy) else "gives"
    raise InputError(f"--heuristic: {guide.name} {kind} no distance estimate; solver "
                     f"{solver} needs a heuristic (only beam takes a policy)")


def check_q_heuristic(solver: str, heuristic: Guide) -> QValues:
    """A Q search (``qstar``, ``qbeam``) needs values for every move of a state
    (:class:`core.capabilities.QValues`: a Q-network)."""
    if not isinstance(heuristic, QValues):
        raise InputError(f"--heuristic: solver {solver} reads the values of a state's moves "
                         f"from a Q-network (--heuristic qnet); {heuristic.name} gives none")
    return heuristic


class Solver(ABC):
    """Solvers take ``(puzzle, heuristic, start, limits)`` and return a checked ``SolveResult``."""

    name: str

    @abstractmethod
    def solve(
        self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, limits: Limits | None = None
    ) -> SolveResult:
        ...

    def run(self, puzzle: Puzzle, heuristic: Guide, start: np.ndarray,
            limits: Limits | None = None) -> SolveResult:
        """``solve`` (``solve_with_policy`` for a policy, where the solver is a
        :class:`core.capabilities.PolicySolver`; another solver refuses one), with the network
        evaluations it caused counted in the result and the bytes it loaded (``loaded_bytes``:
        ``heuristic.nbytes`` plus the solver's own tables, ``extra["table_nbytes"]``): what the
        command line and the suite runner call."""
        before = heuristic.network_evaluations
        if isinstance(heuristic, Policy) and isinstance(self, PolicySolver):
            result = self.solve_with_policy(puzzle, heuristic, start, limits)
        else:
            result = self.solve(puzzle, require_heuristic(self.name, heuristic), start, limits)
        after = heuristic.network_evaluations
        loaded = int(heuristic.nbytes) + int((result.extra or {}).get("table_nbytes", 0))
        if before is None or after is None:
            return replace(result, loaded_bytes=loaded)
        return replace(result, network_evaluations=int(after - before), loaded_bytes=loaded)
