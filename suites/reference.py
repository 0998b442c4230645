"""Reference optimal lengths: every rule that gives a state's optimal solution length, in one place,
used by suites (an instance set's ``optimal``) and by model evaluation (``bench train evaluate``).

Rules:

``file``           a column of the instance file (read by ``suites.sources``; nothing to compute)
``table``          the puzzle's exhaustive distance table (2x2x2 cube, 8-puzzle); breadth-first
                   search where the puzzle has none
``bfs``            breadth-first search from the goal (small puzzles only)
``gf2``            Lights Out: exact linear algebra over GF(2)
``exact:H``        a heuristic that is the exact distance (e.g. ``pdb-cube2``)
``ida:H``          IDA* with the admissible heuristic ``H``, within a time limit per state
``none``           no reference

``auto_rule`` picks the rule a puzzle affords without a search (a table, then GF(2)). A scramble's
depth is only an upper bound and is never used as the optimum.

Lower bounds: where no optimum is known, a row still says how far its solution can at most be
from optimal. ``lower_bounds`` evaluates the strongest admissible heuristic the puzzle declares
for bounds (``core.registry``: the puzzle entry's ``bounds``) that can be had without building a
large table: a PDB heuristic whose declaration is ``ci`` (small) is built if needed, a larger one
is used only when its tables are already in the cache (``pdb_builders.catalog.tables_stored``),
a heuristic without tables always. Values are rounded up (lengths are integers). An infinite
value (a dead Sokoban state: no solution exists) is :data:`NO_SOLUTION` (-1) in the array, and in
a row ``lower_bound`` null with ``lower_bound_from`` naming the heuristic; a row with both null
has no bound (no declared heuristic applies, e.g. the 8-puzzle's korf1982 goal, or the cube3
tables are absent). ``set_lower_bounds`` fills the instances of a suite, ``bounds_for_states``
the rows of runs made before bounds were recorded.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core import registry
from core.capabilities import SolvesOptimally
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from puzzles.base import Puzzle

#: the rules a suite file's ``optimal`` may name (``exact:H`` and ``ida:H`` besides)
RULES = ("file", "table", "bfs", "gf2", "none")


def auto_rule(puzzle: Puzzle, heuristic: str | None = None) -> str:
    """The cheapest exact rule ``puzzle`` affords: its table, else GF(2), else IDA* with the
    admissible ``heuristic`` when one is given, else ``none``."""
    from puzzles.exhaustive import has_table

    if has_table(puzzle):
        return "table"
    if isinstance(puzzle, SolvesOptimally):
        return "gf2"
    if heuristic is not None:
        return f"ida:{heuristic}"
    return "none"


@dataclass(frozen=True)
class _HeuristicRule:
    """A ``KIND:HEURISTIC`` rule: what the heuristic must be (``needs`` its declaration), who
    else is (``others``: ``None`` lists them for the puzzle), and the optimal search it runs
    (``solver``; ``None``: its value at a state is the length)."""

    what: str
    needs: Callable[[registry.HeuristicProps], bool]
    others: str | None
    solver: str | None


#: the ``KIND:HEURISTIC`` rules by kind
HEURISTIC_RULES = {
    "exact": _HeuristicRule("an exact distance (an admissible estimate is a lower bound, not the "
                            "optimum)", lambda p: p.exact, "exact", None),
    "ida": _HeuristicRule("an admissible heuristic with an IDA* kernel",
                          lambda p: bool(p.admissible) and p.kernel, None, "ida"),
}


def check_rule(rule: str, puzzle_name: str) -> str | None:
    """Why ``rule`` cannot give optimal lengths on ``puzzle_name`` (``None`` if it can)."""
    if rule in RULES:
        return None
    kind, _, name = rule.partition(":")
    if kind not in HEURISTIC_RULES or not name:
        return (f"expected one of {', '.join(RULES)}, exact:HEURISTIC or ida:HEURISTIC, "
                f"got {rule!r}")
    try:
        entry = registry.heuristic_entry(name)
    except InputError as exc:
        return str(exc)
    hr = HEURISTIC_RULES[kind]
    if not hr.needs(registry.heuristic_props(entry)):
        ok = [n for n, e in registry.HEURISTICS.items() if hr.needs(registry.heuristic_props(e))
              and (hr.others is not None or registry.heuristic_supports(e, puzzle_name))]
        return f"{name} is not {hr.what}; {hr.others or 'for ' + puzzle_name}: " + ", ".join(ok)
    if not registry.heuristic_supports(entry, puzzle_name):
        return f"{name} does not apply to {puzzle_name}"
    return None


def optimal_lengths(puzzle: Puzzle, states: np.ndarray, rule: str,
                    time_limit: float | None = 600.0) -> np.ndarray | None:
    """``(n,)`` int64 optimal lengths of ``states`` under ``rule`` (-1 where it found none), or
    ``None`` for the rules that compute nothing here (``none``, ``file``)."""
    states = np.asarray(states)
    if rule in ("none", "file"):
        return None
    if len(states) == 0:
        return np.zeros(0, dtype=np.int64)
    if rule == "table":
        from puzzles.exhaustive import table_distances

        table = table_distances(puzzle, states)
        return table if table is not None else bfs_distances(puzzle, states)
    if rule == "bfs":
        return bfs_distances(puzzle, states)
    if rule == "gf2":
        from solvers.gf2 import gf2_optimal_lengths

        return np.asarray(gf2_optimal_lengths(puzzle, states), dtype=np.int64)
    kind, _, name = rule.partition(":")
    fault = check_rule(rule, puzzle.name)
    if fault is not None:
        raise InputError(f"optimal: {fault}")
    h = registry.get_heuristic(name, puzzle)
    solver_name = HEURISTIC_RULES[kind].solver
    if solver_name is None:
        return np.asarray(h(states)).astype(np.int64)
    solver = registry.get_solver(solver_name)
    out = []
    for s in states:
        r = solver.solve(puzzle, h, s, Limits(time_s=time_limit))
        out.append(r.length if r.status == Status.SOLVED else -1)
    return np.array(out, dtype=np.int64)


def set_optimal(puzzle: Puzzle, spec, instances: list) -> None:
    """Fill ``Instance.optimal`` of ``instances`` from ``spec.optimal`` (None where unknown) and
    ``meta["optimal_source"]`` (the rule, or the instance file) where an optimum is known.

    An instance that already carries a reference (a published optimal solution) keeps it; where
    the rule computes an optimum too, the two must agree: a disagreement is an ``InputError``
    naming the instance (one of the two references is wrong)."""
    if not instances:
        return
    rule = spec.optimal
    lengths = optimal_lengths(puzzle, np.stack([i.state for i in instances]), rule)
    if lengths is None:
        label = f"instance file {spec.path}" if rule == "file" and spec.path else "instance set"
        for inst in instances:
            if inst.optimal is not None:
                inst.meta.setdefault("optimal_source", label)
        return
    for inst, d in zip(instances, lengths, strict=True):
        found = int(d) if d >= 0 else None
        if inst.optimal is not None:
            if found is not None and found != inst.optimal:
                raise InputError(
                    f"instance set {spec.name}: instance {inst.id}: optimal length "
                    f"{inst.optimal} ({inst.meta.get('optimal_source', 'instance set')}) "
                    f"disagrees with {found} ({rule})")
            continue
        inst.optimal = found
        if found is not None:
            inst.meta["optimal_source"] = rule


# --------------------------------------------------------------------------- lower bounds
#: a lower bound's value where the heuristic is infinite: the state has no solution
NO_SOLUTION = -1
#: below a float heuristic's value before rounding up: a value that is an integer but for
#: floating-point rounding (3 + 1e-12) must not become the next integer
_CEIL_SLACK = 1e-9
#: heuristics and puzzles loaded for bounds in this process (a few: PDBs are memory-mapped)
_BOUND_HEURISTICS: OrderedDict[tuple[str, str | None, str], Any] = OrderedDict()
_MAX_BOUND_HEURISTICS = 4
_PUZZLES: dict[tuple[str, str | None], Puzzle] = {}


def bound_available(puzzle_name: str, heuristic: str) -> bool:
    """Whether ``heuristic`` can give bounds on ``puzzle_name`` without building a large table:
    it has no tables, its tables are small (a ``ci`` declaration) or already in the cache."""
    decl = registry.heuristic_entry(heuristic).props.pdb
    if decl is None or decl.ci:
        return True
    from pdb_builders.catalog import tables_stored

    return tables_stored(puzzle_name, heuristic)


def bound_candidates(puzzle_name: str) -> list[str]:
    """The heuristics declared for ``puzzle_name``'s bounds that are available now, strongest
    first (``registry.bound_heuristics`` filtered by :func:`bound_available`)."""
    return [h for h in registry.bound_heuristics(puzzle_name) if bound_available(puzzle_name, h)]


def _bound_heuristic(puzzle: Puzzle) -> tuple[str, Any] | None:
    """``(name, heuristic)``: the first available bound heuristic that loads on ``puzzle`` (one
    that refuses it, e.g. a tile heuristic on the korf1982 goal, is passed over), or ``None``."""
    layout = puzzle.layout
    for name in bound_candidates(puzzle.name):
        key = (puzzle.name, layout, name)
        if key in _BOUND_HEURISTICS:
            _BOUND_HEURISTICS.move_to_end(key)
            return name, _BOUND_HEURISTICS[key]
        try:
            h = registry.get_heuristic(name, puzzle)
        except InputError:
            continue
        except (OSError, MemoryError) as exc:
            print(f"warning: lower bounds: cannot load {name} on {puzzle.name} "
                  f"({type(exc).__name__}: {exc}); trying the next heuristic", file=sys.stderr)
            continue
        while len(_BOUND_HEURISTICS) >= _MAX_BOUND_HEURISTICS:
            _BOUND_HEURISTICS.popitem(last=False)
        _BOUND_HEURISTICS[key] = h
        return name, h
    return None


def rounded_bounds(values: np.ndarray) -> np.ndarray:
    """An admissible heuristic's values as integer bounds ``(n,)`` int64: integers as they are,
    fractions rounded up, ``+inf`` as :data:`NO_SOLUTION`; negative values become 0."""
    v = np.asarray(values).reshape(-1)
    if np.issubdtype(v.dtype, np.integer) or v.dtype == np.bool_:
        return np.maximum(v.astype(np.int64), 0)
    f = v.astype(np.float64)
    if np.isnan(f).any():
        raise ValueError("lower bounds: the heuristic gave NaN")
    out = np.zeros(len(f), dtype=np.int64)
    finite = np.isfinite(f)
    out[finite] = np.maximum(np.ceil(f[finite] - _CEIL_SLACK), 0).astype(np.int64)
    out[np.isposinf(f)] = NO_SOLUTION
    return out


def lower_bounds(puzzle: Puzzle, states: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Certified lower bounds on the optimal lengths of ``states`` ``(n, L)``: ``(values (n,)
    int64, heuristic name)``, from the first heuristic of :func:`bound_candidates` that loads.

    Values are the heuristic rounded up; :data:`NO_SOLUTION` (-1) where it is infinite (no
    solution exists). With no heuristic available the name is ``None`` and every value -1."""
    states = np.asarray(states)
    if states.size == 0:
        return np.zeros(0, dtype=np.int64), None
    states = np.atleast_2d(states)
    n = len(states)
    found = _bound_heuristic(puzzle)
    if found is None:
        return np.full(n, NO_SOLUTION, dtype=np.int64), None
    name, h = found
    values = rounded_bounds(h(states))
    if len(values) != n:
        raise ValueError(f"lower bounds: {name} gave {len(values)} values for {n} states")
    return values, name


def set_lower_bounds(puzzle: Puzzle, instances: list) -> None:
    """Fill ``meta["lower_bound"]`` (an int, or ``None``: infinite or no bound) and
    ``meta["lower_bound_from"]`` (the heuristic, ``None`` when none was available) of
    ``instances``."""
    if not instances:
        return
    values, name = lower_bounds(puzzle, np.stack([i.state for i in instances]))
    for inst, v in zip(instances, values, strict=True):
        inst.meta["lower_bound"] = int(v) if v >= 0 else None
        inst.meta["lower_bound_from"] = name


def bounds_for_states(puzzle_name: str, goal: str | None,
                      state_texts: Sequence[str]) -> tuple[np.ndarray, str | None]:
    """:func:`lower_bounds` of the states of rows (their ``state`` column: space-separated
    integers) of puzzle ``puzzle_name`` with goal layout ``goal`` (``None``, or a missing value,
    for puzzles with one goal): for rows made before bounds were recorded. Puzzles and
    heuristics are loaded once per process. A text that is not a state of the puzzle is an
    ``InputError`` naming its position."""
    if not isinstance(goal, str) or not goal:
        goal = None
    key = (puzzle_name, goal)
    if key not in _PUZZLES:
        _PUZZLES[key] = registry.get_puzzle(puzzle_name, goal=goal)
    puzzle = _PUZZLES[key]
    texts = list(state_texts)
    states = np.zeros((len(texts), puzzle.state_dim), dtype=puzzle.dtype)
    for i, text in enumerate(texts):
        try:
            values = [int(v) for v in text.split()] if isinstance(text, str) else None
        except ValueError:
            values = None
        if values is None or len(values) != puzzle.state_dim:
            raise InputError(f"state {i}: expected {puzzle.state_dim} space-separated integers "
                             f"of a {puzzle_name} state, got {text!r}")
        state = np.asarray(values)
        if state.min() < np.iinfo(puzzle.dtype).min or state.max() > np.iinfo(puzzle.dtype).max:
            raise InputError(f"state {i}: values out of range for {puzzle_name}: {text!r}")
        states[i] = state
        try:
            puzzle.validate(states[i])
        except InputError as exc:
            raise InputError(f"state {i}: {exc}") from None
    return lower_bounds(puzzle, states)


def _keys(states: np.ndarray) -> np.ndarray:
    """Fixed-width byte-string keys of rows ``(B, L)`` (exact; sortable)."""
    states = np.ascontiguousarray(states, dtype=np.uint8)
    return states.view(f"S{states.shape[1]}").ravel()


def bfs_distances(puzzle: Puzzle, targets: np.ndarray, max_states: int = 20_000_000) -> np.ndarray:
    """Breadth-first search from the goal until every target ``(T, L)`` is found.

    Returns distances ``(T,)`` (``-1`` for a target not reachable within ``max_states``).
    """
    want = _keys(targets)
    dist = np.full(len(want), -1, dtype=np.int64)
    frontier = puzzle.goal()[None, :].astype(np.uint8)
    seen = _keys(frontier)
    depth = 0
    while len(frontier):
        hit = np.isin(want, _keys(frontier))
        dist[hit & (dist < 0)] = depth
        if (dist >= 0).all() or len(seen) > max_states:
            break
        children, valid = puzzle.expand(frontier)
        kids = children[valid]
        k = _keys(kids)
        k, idx = np.unique(k, return_index=True)
        new = ~np.isin(k, seen, assume_unique=True)
        frontier = kids[idx[new]]
        seen = np.union1d(seen, k[new])
        depth += 1
    return dist


def bfs_all(puzzle: Puzzle, max_states: int = 5_000_000) -> tuple[np.ndarray, np.ndarray]:
    """Every state reachable from the goal with its distance: ``(states (S, L), dist (S,))``."""
    frontier = puzzle.goal()[None, :].astype(np.uint8)
    seen = _keys(frontier)
    all_states = [frontier]
    dists = [np.zeros(1, dtype=np.int64)]
    depth = 0
    while len(frontier):
        children, valid = puzzle.expand(frontier)
        kids = children[valid]
        k, idx = np.unique(_keys(kids), return_index=True)
        new = ~np.isin(k, seen, assume_unique=True)
        frontier = kids[idx[new]]
        if not len(frontier):
            break
        seen = np.union1d(seen, k[new])
        depth += 1
        all_states.append(frontier)
        dists.append(np.full(len(frontier), depth, dtype=np.int64))
        if len(seen) > max_states:
            raise InputError(f"{puzzle.name}: more than {max_states:,} states; too large to enumerate")
    return np.concatenate(all_states), np.concatenate(dists)
