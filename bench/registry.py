"""One registry per kind (puzzles, heuristics, solvers) naming every plugin.

Entries are declared here as data: a name, an entry point ``"module:attr"``, default keyword
arguments, a one-line summary and properties. Nothing heavy is imported until an entry is
instantiated, so ``bench list`` never imports torch or compiles Numba.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from puzzles.base import InputError


@dataclass(frozen=True)
class Entry:
    name: str
    target: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    props: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Callable[..., Any]:
        """Import the entry point; a module that fails to import is a one-line ``InputError``."""
        module, _, attr = self.target.partition(":")
        try:
            obj: Any = importlib.import_module(module)
        except ImportError as exc:  # e.g. an optional dependency (torch) missing or broken
            raise InputError(
                f"{self.name}: cannot be loaded: importing {module} failed "
                f"({type(exc).__name__}: {' '.join(str(exc).split())})"
            ) from None
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj


def _did_you_mean(kind: str, name: str, known: list[str]) -> InputError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return InputError(f"unknown {kind} {name!r}{hint}; known: {', '.join(known)}")


# --------------------------------------------------------------------------- puzzles
_TILE_NAMES = {3: "puzzle8", 4: "puzzle15", 5: "puzzle24", 6: "puzzle35", 7: "puzzle48"}

PUZZLES: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("cube3", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, quarter-turn metric (12 actions, DeepCubeA)",
              {"metric": "qtm"}, {"family": "cube", "goal_layouts": False}),
        Entry("cube3-htm", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, half-turn metric (18 actions, Korf 1997)",
              {"metric": "htm"}, {"family": "cube", "goal_layouts": False}),
        Entry("cube2", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, quarter-turn metric (6 actions)",
              {"metric": "qtm"}, {"family": "cube", "goal_layouts": False}),
        Entry("cube2-htm", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, half-turn metric (9 actions)",
              {"metric": "htm"}, {"family": "cube", "goal_layouts": False}),
        *[
            Entry(n, "puzzles.npuzzle:NPuzzle", f"sliding-tile {w * w - 1}-puzzle ({w}x{w})",
                  {"width": w}, {"family": "tiles", "goal_layouts": True})
            for w, n in _TILE_NAMES.items()
        ],
        Entry("lightsout7", "puzzles.lightsout:LightsOut", "Lights Out 7x7 (49 actions)",
              {"size": 7}, {"family": "lights", "goal_layouts": False}),
    ]
}

_LIGHTS_RE = re.compile(r"^lightsout([0-9]+)$", re.ASCII)


def puzzle_entry(name: str) -> Entry:
    if name in PUZZLES:
        return PUZZLES[name]
    m = _LIGHTS_RE.match(name)
    if m and 2 <= int(m.group(1)) <= 20:
        n = int(m.group(1))
        return Entry(name, "puzzles.lightsout:LightsOut", f"Lights Out {n}x{n}", {"size": n},
                     {"family": "lights", "goal_layouts": False})
    raise _did_you_mean("puzzle", name, list(PUZZLES))


def get_puzzle(name: str, goal: str | None = None, **kwargs: Any):
    """Instantiate a puzzle. ``goal`` (``blank-first``/``blank-last``) applies to sliding tiles only."""
    entry = puzzle_entry(name)
    args = {**entry.kwargs, **kwargs}
    if goal is not None:
        if not entry.props.get("goal_layouts"):
            raise InputError(f"--goal: {name} has a single goal; --goal applies to sliding-tile puzzles")
        if goal not in ("blank-first", "blank-last"):
            raise InputError(f"--goal: expected blank-first or blank-last, got {goal!r}")
        args["goal"] = goal
    return entry.load()(**args)


# --------------------------------------------------------------------------- heuristics
_TILES = tuple(_TILE_NAMES.values())
_TILE_PDBS = {
    "pdb-full": ("puzzle8", "one pattern of all 8 tiles: the exact 8-puzzle table"),
    "pdb-44": ("puzzle8", "additive disjoint PDBs, two patterns of 4 tiles (small, for tests)"),
    "pdb-555": ("puzzle15", "additive disjoint PDBs, three patterns of 5 tiles"),
    "pdb-663": ("puzzle15", "additive disjoint PDBs, patterns of 6, 6 and 3 tiles"),
    "pdb-78": ("puzzle15", "additive disjoint PDBs, patterns of 7 and 8 tiles"),
    "pdb-6666": ("puzzle24", "additive disjoint PDBs, four patterns of 6 tiles"),
    "pdb-5x7": ("puzzle35", "additive disjoint PDBs, seven patterns of 5 tiles"),
    "pdb-5x9-3": ("puzzle48", "additive disjoint PDBs, nine patterns of 5 tiles and one of 3"),
}

HEURISTICS: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("manhattan", "heuristics.manhattan:Manhattan", "sum of tile Manhattan distances",
              {}, {"puzzles": _TILES, "admissible": True, "needs_pdb": False}),
        Entry("linear-conflict", "heuristics.manhattan:LinearConflict",
              "Manhattan distance plus 2 per linear conflict", {},
              {"puzzles": _TILES, "admissible": True, "needs_pdb": False}),
        Entry("lights-on", "heuristics.lights:LightsOn", "lights on divided by 5, rounded up", {},
              {"puzzles": "lightsout*", "admissible": True, "needs_pdb": False}),
        Entry("pdb-korf", "heuristics.pdb_cube:KorfCubePDB",
              "max of Korf's corner PDB and two disjoint 6-edge PDBs", {},
              {"puzzles": ("cube3", "cube3-htm"), "admissible": True, "needs_pdb": True}),
        Entry("pdb-cube2", "heuristics.pdb_cube:Cube2PDB", "the full 2x2x2 distance table (exact)", {},
              {"puzzles": ("cube2", "cube2-htm"), "admissible": True, "exact": True,
               "needs_pdb": True}),
        *[
            Entry(name + suffix, "heuristics.pdb_tiles:AdditiveTilePDB",
                  summary + (", max with the diagonal reflection" if suffix else ""),
                  {"partition": name[4:], "reflect": bool(suffix)},
                  {"puzzles": (puzzle,), "admissible": True, "needs_pdb": True,
                   "exact": name == "pdb-full"})
            for name, (puzzle, summary) in _TILE_PDBS.items()
            for suffix in ("", "-reflect")
        ],
        Entry("davi", "heuristics.davi.heuristic:LearnedHeuristic",
              "network trained by deep approximate value iteration (DeepCubeA)", {},
              {"puzzles": "*", "admissible": False, "needs_model": True}),
    ]
}


def heuristic_supports(entry: Entry, puzzle_name: str) -> bool:
    spec = entry.props.get("puzzles", "*")
    if spec == "*":
        return True
    if isinstance(spec, str) and spec.endswith("*"):
        return puzzle_name.startswith(spec[:-1])
    return puzzle_name in spec


def heuristic_entry(name: str) -> Entry:
    if name not in HEURISTICS:
        raise _did_you_mean("heuristic", name, list(HEURISTICS))
    return HEURISTICS[name]


def get_heuristic(name: str, puzzle: Any, **kwargs: Any):
    """Instantiate heuristic ``name`` for an instantiated ``puzzle``."""
    entry = heuristic_entry(name)
    if not heuristic_supports(entry, puzzle.name):
        ok = [n for n, e in HEURISTICS.items() if heuristic_supports(e, puzzle.name)]
        raise InputError(
            f"--heuristic: {name} does not apply to {puzzle.name}; choose one of {', '.join(ok)}"
        )
    if kwargs.get("model") is not None and not entry.props.get("needs_model"):
        raise InputError(f"--model: {name} takes no model (only learned heuristics do)")
    return entry.load()(puzzle, **{**entry.kwargs, **kwargs})


# --------------------------------------------------------------------------- solvers
SOLVERS: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("ida", "solvers.ida:IDAStar", "iterative-deepening A* (optimal; Numba per-state kernels)",
              {}, {"optimal": True, "needs_kernel": True, "options": ()}),
        Entry("bwas", "solvers.best_first:BatchBestFirst",
              "batch weighted A* (DeepCubeA): f = weight*g + h, expand the N best per iteration",
              {"weight": 0.6, "batch": 10000}, {"optimal": False, "options": ("weight", "batch")}),
        Entry("astar", "solvers.best_first:BatchBestFirst", "A* (weight 1, batch 1)",
              {"weight": 1.0, "batch": 1, "preset": "astar"},
              {"optimal": True, "options": ("weight", "batch")}),
        Entry("greedy", "solvers.best_first:BatchBestFirst", "greedy best-first on h alone",
              {"weight": 0.0, "batch": 1, "preset": "greedy"},
              {"optimal": False, "options": ("weight", "batch")}),
        Entry("beam", "solvers.beam:BeamSearch",
              "beam search: per depth the W distinct children of lowest h (one batch per layer)",
              {}, {"optimal": False, "options": ("width", "max_depth", "goal_depth", "shorten")}),
        Entry("gf2", "solvers.gf2:GF2Solver",
              "exact Lights Out solver: Gaussian elimination over GF(2) (ignores the heuristic)",
              {}, {"optimal": True, "puzzles": "lightsout*", "options": ()}),
    ]
}


def solver_entry(name: str) -> Entry:
    if name not in SOLVERS:
        raise _did_you_mean("solver", name, list(SOLVERS))
    return SOLVERS[name]


def get_solver(name: str, **kwargs: Any):
    """Instantiate a solver; keyword arguments with value ``None`` keep the preset's default."""
    entry = solver_entry(name)
    given = {k: v for k, v in kwargs.items() if v is not None}
    options = entry.props.get("options")
    if options is not None:
        for k in given:
            if k not in options:
                users = [n for n, e in SOLVERS.items() if k in e.props.get("options", ())]
                raise InputError(f"--{k.replace('_', '-')}: applies to {'/'.join(users)}, "
                                 f"not to {name}")
    return entry.load()(**{**entry.kwargs, **given})
