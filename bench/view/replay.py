"""The replay of one path: what the viewer's page reads to draw and step through a solution.

:func:`replay` returns a JSON-ready dict:

``board``        how to draw a state: ``{"kind": "cube", "size": 3}``, ``{"kind": "tiles",
                 "width": 4, "goal": [...]}``, ``{"kind": "lights", "size": 7}`` or
                 ``{"kind": "sokoban", "size": 10}``
``moves``        the move names; ``action_ids`` the puzzle's action indices
``states``       ``len(moves) + 1`` states, each a list of the puzzle's state values; state ``i``
                 is made from state ``i - 1`` by move ``i`` through ``Puzzle.apply_path``
``reaches_goal`` whether the last state is a goal
``heuristics``   one curve per heuristic: ``{"label", "name", "own", "admissible", "values",
                 "overestimates"}``, ``values[i]`` = h(state ``i``) (``None`` where infinite)
``unavailable``  heuristics that could not be evaluated: ``{"label", "reason"}``
``distance``     ``{"values", "source"}``: the true remaining distance of each state where known
                 (``None`` elsewhere): every state from an exact rule (a distance table, GF(2));
                 ``L - i`` on a path proved optimal; otherwise the start's reference optimum and
                 0 at the goal

A path of more than :data:`MAX_MOVES` moves is refused (``ReplayError``): its states and
curves would make a reply of many megabytes. Heuristics are evaluated under the viewer's
evaluation deadline (``bench.view.server``); one that fails or does not return in time is
listed under ``unavailable`` with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.capabilities import HasBoard
from core.errors import InputError
from heuristics.base import Heuristic
from puzzles.base import Puzzle


class ReplayError(ValueError):
    """A recorded path that cannot be shown: a bad state, an illegal move, no goal at its end,
    more moves than :data:`MAX_MOVES`."""


#: the longest path the viewer replays (longer ones are refused with a ``ReplayError``)
MAX_MOVES = 10_000


def check_moves(n: int) -> None:
    """``ReplayError`` for a path of ``n`` moves above :data:`MAX_MOVES`."""
    if n > MAX_MOVES:
        raise ReplayError(f"the path has {n:,} moves; the viewer replays at most "
                          f"{MAX_MOVES:,}")


@dataclass
class Curve:
    """A heuristic to evaluate along a path. ``own``: the heuristic the path's search used."""

    label: str
    name: str
    heuristic: Heuristic
    own: bool = False


def board(puzzle: Puzzle) -> dict[str, Any]:
    """How the page draws a state of ``puzzle``: the puzzle's own ``board()``
    (:class:`core.capabilities.HasBoard`; see the module docstring)."""
    if isinstance(puzzle, HasBoard):
        return puzzle.board()
    raise ReplayError(f"{puzzle.name}: the viewer has no drawing for this puzzle (it gives no "
                      "board())")


def path_states(puzzle: Puzzle, start: np.ndarray, actions: Sequence[int]) -> np.ndarray:
    """The states along ``actions`` from ``start``: ``(len(actions) + 1, L)``, each made by the
    puzzle's own move (``Puzzle.apply_path``); ``ReplayError`` names an illegal move."""
    states = [np.asarray(start, dtype=puzzle.dtype).reshape(-1)]
    for i, a in enumerate(actions):
        a = int(a)
        name = puzzle.action_names[a] if 0 <= a < puzzle.num_actions else str(a)
        try:
            states.append(puzzle.apply_path(states[-1], [a]))
        except ValueError as exc:
            raise ReplayError(f"move {i + 1} ({name}) cannot be made: {exc}") from None
    return np.stack(states)


def _number(v: float) -> float | int | None:
    if not math.isfinite(v):
        return None
    return int(v) if float(v).is_integer() else round(float(v), 4)


def heuristic_values(h: Heuristic, states: np.ndarray) -> list[float | int | None]:
    """``h`` of every state, one batch; infinite values (a dead Sokoban box) become ``None``."""
    values = np.asarray(h(np.asarray(states)), dtype=np.float64).reshape(-1)
    if values.shape[0] != len(states):
        raise ReplayError(f"{h.name}: {values.shape[0]} values for {len(states)} states")
    return [_number(float(v)) for v in values]


def true_distances(puzzle: Puzzle, states: np.ndarray, reaches_goal: bool,
                   optimal: int | None = None, path_optimal: str | None = None) -> dict[str, Any]:
    """The true remaining distance of each state where known (module docstring).

    ``optimal``: the start's reference optimum, if known; ``path_optimal``: why the path is
    optimal (its length equals the reference optimum, or its search is optimal by construction),
    or None."""
    from suites import reference

    n = len(states)
    rule = reference.auto_rule(puzzle)
    if rule in ("table", "gf2"):
        d = reference.optimal_lengths(puzzle, states, rule)
        assert d is not None
        what = "a distance table" if rule == "table" else "GF(2) elimination"
        return {"values": [int(x) if x >= 0 else None for x in d],
                "source": f"exact for every state ({what})"}
    if reaches_goal and path_optimal:
        return {"values": [n - 1 - i for i in range(n)],
                "source": f"L - i: the path is optimal ({path_optimal})"}
    values: list[int | None] = [None] * n
    known = []
    if optimal is not None:
        values[0] = int(optimal)
        known.append("the start's reference optimum")
    if reaches_goal:
        values[-1] = 0
        known.append("0 at the goal")
    source = ("only " + " and ".join(known) + "; the path is not known to be optimal") if known \
        else "unknown"
    return {"values": values, "source": source}


def _overestimates(h: Sequence[float | int | None], d: Sequence[int | None]) -> int | None:
    pairs = [(a, b) for a, b in zip(h, d, strict=True) if b is not None]
    if not pairs:
        return None
    return sum(1 for a, b in pairs if a is None or a > b)


def replay(puzzle: Puzzle, start: np.ndarray, actions: Sequence[int], curves: Sequence[Curve],
           unavailable: Sequence[tuple[str, str]] = (), optimal: int | None = None,
           path_optimal: str | None = None, require_goal: bool = False,
           **info: Any) -> dict[str, Any]:
    """The JSON of the path ``actions`` from ``start`` (module docstring); ``info`` is copied in
    (key, title, status, ...). ``require_goal``: a path that does not end at a goal is a
    ``ReplayError`` (a row recorded as solved)."""
    check_moves(len(actions))
    actions = [int(a) for a in actions]
    states = path_states(puzzle, start, actions)
    reaches_goal = bool(puzzle.is_goal(states[-1:])[0])
    if require_goal and not reaches_goal:
        raise ReplayError(f"the path of {len(actions)} moves does not reach the goal")
    distance = true_distances(puzzle, states, reaches_goal, optimal, path_optimal)
    hs = []
    unavailable = list(unavailable)
    for c in curves:
        try:
            values = heuristic_values(c.heuristic, states)
        except InputError as exc:  # a network that fails or does not return in time
            unavailable.append((c.label, str(exc)))
            continue
        hs.append({"label": c.label, "name": c.name, "own": c.own,
                   "admissible": bool(c.heuristic.admissible),
                   "values": values,
                   "overestimates": _overestimates(values, distance["values"])})
    return {
        **info,
        "puzzle": puzzle.name,
        "board": board(puzzle),
        "start": puzzle.format(states[0]),
        "moves": [puzzle.action_names[a] for a in actions],
        "action_ids": actions,
        "states": states.astype(np.int64).tolist(),
        "reaches_goal": reaches_goal,
        "optimal": optimal,
        "heuristics": hs,
        "unavailable": [{"label": label, "reason": reason} for label, reason in unavailable],
        "distance": distance,
    }
