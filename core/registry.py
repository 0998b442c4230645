"""One registry per kind (puzzles, heuristics, solvers) naming every plugin, with its options.

Entries are declared here as data: a name, an entry point ``"module:attr"``, fixed keyword
arguments, a one-line summary, typed options (:class:`Option`: name, type, range, default) and
typed properties, one dataclass per kind (:class:`PuzzleProps`, :class:`HeuristicProps`,
:class:`SolverProps`, whose fields say what each property means). Everything else reads these
declarations: the command line makes its flags from the options, suite files are checked
against them, the catalog of pattern databases is derived from the PDB heuristics declared in
``core.pdb_decls``, reports read a solver's ``optimal`` from it, and the registry test solves a
scramble with every combination declared valid. Nothing heavy is imported until an entry is
instantiated, so ``bench list`` never imports torch or compiles Numba.

A heuristic may be known by other names too (``aliases``: the learned value network
``value-net`` was once ``davi``); :func:`heuristic_entry` accepts them and
:func:`canonical_heuristic` gives the declared name, which new rows record.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic

from core import pdb_decls as _pdb
from core.errors import InputError
from core.options import Option
from core.pdb_decls import CUBE_PDBS, TILE_PDBS
from core.props import HeuristicProps, P, PuzzleProps, PuzzleSpec, SolverProps


@dataclass(frozen=True)
class Entry(Generic[P]):
    """A declared puzzle, heuristic or solver; ``plugin``: the package that provides it
    (``None``: built in)."""

    name: str
    target: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    props: P = None  # type: ignore[assignment]  # every entry gives its kind's; plugins: filled in
    options: tuple[Option, ...] = ()
    plugin: str | None = None

    def option(self, name: str) -> Option | None:
        for o in self.options:
            if o.name == name:
                return o
        return None

    def check_options(self, given: dict[str, Any], kind: str = "") -> dict[str, Any]:
        """``given`` checked against this entry's options (``None`` values dropped); an option
        another entry of ``kind`` (``puzzle``, ``heuristic``, ``solver``) declares is refused
        naming those that take it."""
        out = {}
        for k, v in given.items():
            if v is None:
                continue
            opt = self.option(k)
            if opt is None:
                users = [n for n, e in _KIND[kind].items() if e.option(k) is not None] \
                    if kind else []
                flag = "--" + k.replace("_", "-")
                if users:
                    raise InputError(f"{flag}: applies to {'/'.join(users)}, not to {self.name}")
                raise InputError(f"{flag}: {self.name} takes no such option (its options: "
                                 f"{', '.join(o.name for o in self.options) or 'none'})")
            out[k] = opt.check(v)
        return out

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
    import difflib  # only for this message

    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return InputError(f"unknown {kind} {name!r}{hint}; known: {', '.join(known)}")


# --------------------------------------------------------------------------- puzzles
TILE_NAMES = {3: "puzzle8", 4: "puzzle15", 5: "puzzle24", 6: "puzzle35", 7: "puzzle48"}


GOAL = Option("goal", str, "goal layout of a sliding-tile puzzle (korf1982: the 8-puzzle's "
              "1 2 3 / 8 B 4 / 7 6 5)", choices=("blank-first", "blank-last", "korf1982"),
              default_text="blank-last", metavar="LAYOUT")

_CUBE3 = PuzzleProps("cube", bounds=_pdb.CUBE3_BOUNDS, search_heuristic=_pdb.CUBE3_SEARCH,
                     search_heuristic_args=_pdb.CUBE3_SEARCH_ARGS,
                     search_heuristic_built=_pdb.CUBE3_SEARCH_BUILT)
_CUBE3_HTM = PuzzleProps("cube", bounds=_pdb.CUBE3_HTM_BOUNDS, search_heuristic=_pdb.CUBE3_SEARCH,
                         search_heuristic_args=_pdb.CUBE3_SEARCH_ARGS,
                         search_heuristic_built=_pdb.CUBE3_SEARCH_BUILT)
_CUBE2 = PuzzleProps("cube", bounds=_pdb.CUBE2_BOUNDS)
_LIGHTS = PuzzleProps("lights", bounds=_pdb.LIGHTS_BOUNDS)
_SOKOBAN = PuzzleProps("sokoban", bounds=_pdb.SOKOBAN_BOUNDS)

PUZZLES: dict[str, Entry[PuzzleProps]] = {
    e.name: e
    for e in [
        Entry("cube3", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, quarter-turn metric (12 actions, DeepCubeA)",
              {"metric": "qtm"}, _CUBE3),
        Entry("cube3-htm", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, half-turn metric (18 actions, Korf 1997)",
              {"metric": "htm"}, _CUBE3_HTM),
        Entry("cube2", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, quarter-turn metric (6 actions)",
              {"metric": "qtm"}, _CUBE2),
        Entry("cube2-htm", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, half-turn metric (9 actions)",
              {"metric": "htm"}, _CUBE2),
        *[
            Entry(n, "puzzles.npuzzle:NPuzzle", f"sliding-tile {w * w - 1}-puzzle ({w}x{w})",
                  {"width": w}, PuzzleProps("tiles", True, _pdb.TILE_BOUNDS[n]), (GOAL,))
            for w, n in TILE_NAMES.items()
        ],
        Entry("lightsout7", "puzzles.lightsout:LightsOut", "Lights Out 7x7 (49 actions)",
              {"size": 7}, _LIGHTS),
        Entry("sokoban", "puzzles.sokoban:Sokoban", "Sokoban 10x10, 4 boxes (DeepCubeA's levels; "
              "4 agent moves)", {"size": 10}, _SOKOBAN),
    ]
}

#: the cube puzzles (what the cube pattern databases and kernels serve)
CUBE_NAMES: tuple[str, ...] = tuple(n for n, e in PUZZLES.items() if e.props.family == "cube")

_LIGHTS_RE = re.compile(r"^lightsout([0-9]+)$", re.ASCII)
_SOKOBAN_RE = re.compile(r"^sokoban([0-9]+)$", re.ASCII)


def puzzle_entry(name: str) -> Entry[PuzzleProps]:
    if name in PUZZLES:
        return PUZZLES[name]
    m = _LIGHTS_RE.match(name)
    if m and 2 <= int(m.group(1)) <= 20:
        n = int(m.group(1))
        return Entry(name, "puzzles.lightsout:LightsOut", f"Lights Out {n}x{n}", {"size": n},
                     _LIGHTS)
    m = _SOKOBAN_RE.match(name)
    if m and 5 <= int(m.group(1)) <= 30 and int(m.group(1)) != 10:
        n = int(m.group(1))
        return Entry(name, "puzzles.sokoban:Sokoban", f"Sokoban {n}x{n}", {"size": n}, _SOKOBAN)
    raise _did_you_mean("puzzle", name, list(PUZZLES))


def bound_heuristics(puzzle_name: str) -> tuple[str, ...]:
    """The admissible heuristics declared for ``puzzle_name``'s lower bounds, strongest first
    (its entry's ``bounds``; empty when it declares none)."""
    return tuple(puzzle_entry(puzzle_name).props.bounds)


def default_heuristic(puzzle_name: str) -> str | None:
    """The admissible heuristic an optimal search of ``puzzle_name`` runs with when none is
    given (``bench solve --solver ida``): the strongest one its entry declares, its
    ``search_heuristic``, else the first of its ``bounds``, whatever its tables cost (they are
    built on first use: the lower bounds pass over a large table that is not cached, a search
    does not). ``None`` when it declares none."""
    props = puzzle_entry(puzzle_name).props
    if props.search_heuristic:
        return props.search_heuristic
    return props.bounds[0] if props.bounds else None


def default_heuristic_args(puzzle_name: str) -> dict[str, str]:
    """The options :func:`default_heuristic` runs with on ``puzzle_name`` (empty: its
    defaults)."""
    props = puzzle_entry(puzzle_name).props
    return dict(props.search_heuristic_args) if props.search_heuristic else {}


def get_puzzle(name: str, goal: str | None = None, **kwargs: Any):
    """Instantiate a puzzle. ``goal`` (``blank-first``/``blank-last``) applies to sliding tiles only."""
    entry = puzzle_entry(name)
    args = {**entry.kwargs, **kwargs}
    if goal is not None:
        if entry.option("goal") is None:
            raise InputError(f"--goal: {name} has a single goal; --goal applies to sliding-tile puzzles")
        args["goal"] = GOAL.check(goal)
    return entry.load()(**args)


# --------------------------------------------------------------------------- heuristics
_TILES = tuple(TILE_NAMES.values())
#: an admissible heuristic with an IDA* kernel (``consistent``: proven, see HeuristicProps)
_KERNEL = HeuristicProps(admissible=True, kernel=True)

MODEL = Option("model", str, "model of a learned heuristic: a name, run folder or file",
               default_text="the shipped model", metavar="M")
DEVICE = Option("device", str, "where a network evaluates", choices=("auto", "cpu", "cuda"),
                default_text="cpu", metavar="DEV")
PRECISION = Option("precision", str, "a network's hidden layers", choices=("float32", "bfloat16"),
                   default_text="the model's recommendation, else float32", metavar="P")

#: the class of each cube pattern database heuristic
_CUBE_PDB_CLASSES = {"pdb-korf": "heuristics.pdb_cube:KorfCubePDB",
                     "pdb-coset": "heuristics.pdb_coset:CosetCubePDB",
                     "pdb-coset-eo": "heuristics.pdb_coset_eo:CosetEOCubePDB",
                     "pdb-cube2": "heuristics.pdb_cube:Cube2PDB"}

#: options of the cube pattern database heuristics
_CUBE_PDB_OPTIONS: dict[str, tuple[Option, ...]] = {
    "pdb-korf": (
        Option("edge_tables", str, "the two edge databases: 6+6 (Korf 1997: two disjoint 6-edge "
               "sets, 42.6 M entries each) or 7+7 (two 7-edge sets sharing two edges, 510.9 M "
               "entries each, 244 MiB at 4 bits, about 20 s each to build)",
               choices=("6+6", "7+7"), default="6+6", metavar="E"),
    ),
    "pdb-coset-eo": (
        Option("probe_inverse", str, "look up the inverse position along the three axes too "
               "(on: for every child; near: in IDA*, only for children the forward lookups "
               "leave exactly at the cost bound)", choices=("off", "near", "on"), default="on",
               metavar="P"),
    ),
    "pdb-coset": (
        Option("probe_inverse", str, "also look up the inverse position along the three axes "
               "(admissible, not always consistent); near: in IDA*, only for children the "
               "forward lookups leave exactly at the cost bound", choices=("off", "near", "on"),
               default="off", metavar="P"),
        Option("corner_pdb", str, "Korf's corner table in the max (corners: 88.2 M entries, "
               "exact corner distances; corner-perm/corner-twist: small projections)",
               choices=("none", "corners", "corner-perm", "corner-twist"), default="none",
               metavar="C"),
    ),
}

#: the learned value network's name (it serves every value target: DAVI, diffusion distance)
VALUE_NET = "value-net"
#: the puzzles the training engine serves (Sokoban through its own reverse walks)
LEARNED_PUZZLES = ("cube*", "puzzle*", "lightsout*", "sokoban*")
#: goal trees grow from one goal state: not Sokoban's set of goals
ONE_GOAL_PUZZLES = ("cube*", "puzzle*", "lightsout*")

HEURISTICS: dict[str, Entry[HeuristicProps]] = {
    e.name: e
    for e in [
        Entry("manhattan", "heuristics.manhattan:Manhattan", "sum of tile Manhattan distances",
              {}, replace(_KERNEL, puzzles=_TILES, consistent=True)),
        Entry("linear-conflict", "heuristics.manhattan:LinearConflict",
              "Manhattan distance plus 2 per linear conflict", {}, replace(_KERNEL, puzzles=_TILES)),
        Entry("lights-on", "heuristics.lights:LightsOn", "lights on divided by 5, rounded up", {},
              replace(_KERNEL, puzzles="lightsout*", consistent=True)),
        *[  # the max of pattern databases (exact distances of abstractions) is consistent
            Entry(name, _CUBE_PDB_CLASSES[name], d.summary, {},
                  replace(_KERNEL, puzzles=d.puzzles, consistent=name != "pdb-coset-eo", needs_pdb=True, pdb=d,
                          exact=name == "pdb-cube2"), _CUBE_PDB_OPTIONS.get(name, ()))
            for name, d in CUBE_PDBS.items()
        ],
        *[  # additive sums are not consistent (their minimum over blank regions can drop by
            # more than one per move); the exact table is
            Entry(name + suffix, "heuristics.pdb_tiles:AdditiveTilePDB",
                  d.summary + (", max with the diagonal reflection" if suffix else ""),
                  {"partition": d.partition, "reflect": bool(suffix)},
                  replace(_KERNEL, puzzles=d.puzzles, consistent=d.partition == "full",
                          needs_pdb=True, pdb=d, exact=name == "pdb-full"))
            for name, d in TILE_PDBS.items()
            for suffix in ("", "-reflect")
        ],
        Entry("zero", "heuristics.zero:Zero", "h = 0 (blind search; what table-driven solvers run "
              "with)", {}, HeuristicProps(admissible=True, consistent=True)),
        Entry("sokoban-push", "heuristics.sokoban:PushDistance",
              "Sokoban: sum over boxes of the pushes to the nearest goal (dead squares: inf)", {},
              HeuristicProps("sokoban*", admissible=True, consistent=True)),
        Entry("sokoban-matching", "heuristics.sokoban:PushMatching",
              "Sokoban: pushes of the best assignment of boxes to goals (Hungarian algorithm)", {},
              HeuristicProps("sokoban*", admissible=True, consistent=True)),
        Entry(VALUE_NET, "heuristics.value_net:ValueNetHeuristic",
              "value network: a trained cost-to-go estimate (DAVI as in DeepCubeA, diffusion "
              "distance, ...)", {},
              HeuristicProps(LEARNED_PUZZLES, needs_model=True, aliases=("davi",),
                             recommend="learning.model_store:recommended_search",
                             model_files="learning.model_store:value_model_files"),
              (MODEL, DEVICE, PRECISION)),
        Entry("policy", "heuristics.policy_net:PolicyNet",
              "move-prediction network (EfficientCube): ranks moves, gives no distance estimate; "
              "beam search only", {},
              HeuristicProps(LEARNED_PUZZLES, needs_model=True, ranks_moves=True,
                             default_solver="beam", default_note="the search that takes a policy",
                             recommend="learning.model_store:recommended_policy_search",
                             model_files="learning.model_store:policy_model_files"),
              (replace(MODEL, help="policy model: a name, run folder or file (bench train "
                       "policy)", default_text="the shipped PUZZLE-policy"), DEVICE, PRECISION)),
        Entry("qnet", "heuristics.q_net:QNetHeuristic",
              "Q-network: values for every move of a state from one evaluation (Q* search, "
              "Q-beam); as a value, the least of them", {},
              HeuristicProps(LEARNED_PUZZLES, needs_model=True, q_values=True,
                             default_solver="qstar",
                             default_note="the search that reads a Q-network's move values",
                             model_files="learning.model_store:q_model_files"),
              (replace(MODEL, help="Q-network: a name, run folder or file (bench train "
                       "q-distill|q-learning|q-diffusion)", default_text="the shipped PUZZLE-q"),
               DEVICE, PRECISION)),
        Entry("davi-multigoal", "heuristics.multigoal:MultiGoalHeuristic",
              "a tree of goal networks (multi-goal DeepCubeA, Moravej): min over goals of "
              "f_i + d_i; searches also stop at the tree's goals", {},
              HeuristicProps(ONE_GOAL_PUZZLES, needs_model=True, default_solver="bwas",
                             default_note="the default search for a multi-goal model",
                             model_files="learning.multigoal:tree_files"),
              (replace(MODEL, help="multi-goal model folder (bench train multigoal)",
                       default_text="none: required"), DEVICE, PRECISION,
               Option("combine", str, "how goal estimates combine: sum = min_i (f_i + d_i), "
                      "ratio = min_i f_i / (m d_i) (the report's)", choices=("sum", "ratio"),
                      default="sum", metavar="C"),
               Option("m", float, "the ratio combination's m", default=1.0, low=0.0,
                      low_ok=False, metavar="M"))),
        Entry("onnx", "heuristics.onnx:load_onnx",
              "a network in an ONNX file (a value network, a policy or a Q-network, as its card "
              "says), "
              "evaluated by onnxruntime on the CPU", {},
              HeuristicProps(needs_model=True, recommend="heuristics.onnx:recommended_search",
                             model_files="heuristics.onnx:model_files", q_values=None),
              (replace(MODEL, help="ONNX file (its card NAME.card.json beside it) or a folder "
                       "holding one", default_text="none: required"),
               replace(DEVICE, choices=("auto", "cpu"), help="where a network evaluates (onnx: "
                       "the CPU)"))),
    ]
}


def _serves(spec: PuzzleSpec, puzzle_name: str) -> bool:
    for pattern in (spec,) if isinstance(spec, str) else spec:
        if pattern == "*" or pattern == puzzle_name or \
                (pattern.endswith("*") and puzzle_name.startswith(pattern[:-1])):
            return True
    return False


def heuristic_supports(entry: Entry[HeuristicProps], puzzle_name: str) -> bool:
    """Whether ``entry`` declares ``puzzle_name``: its ``puzzles`` is ``"*"``, a name, a
    ``"prefix*"`` pattern, or a tuple of names and patterns."""
    return _serves(entry.props.puzzles, puzzle_name)


def canonical_heuristic(name: str) -> str:
    """The declared name of heuristic ``name`` (the heuristic an alias names; any other name
    as given): what rows record and reports group by."""
    if name in HEURISTICS:
        return name
    for e in HEURISTICS.values():
        if name in e.props.aliases:
            return e.name
    return name


def first_name(name: str) -> str:
    """The name heuristic ``name`` was first declared under (its first alias; else ``name``):
    what task fingerprints hash, so runs made before a rename resume."""
    entry = HEURISTICS.get(canonical_heuristic(name))
    return entry.props.aliases[0] if entry is not None and entry.props.aliases else name


def heuristic_entry(name: str) -> Entry[HeuristicProps]:
    """The heuristic named ``name`` or one of its ``aliases``."""
    entry = HEURISTICS.get(canonical_heuristic(name))
    if entry is None:
        raise _did_you_mean("heuristic", name, list(HEURISTICS))
    return entry


def check_heuristic_options(entry: Entry[HeuristicProps], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The declared options among ``kwargs`` checked; an option of another heuristic (a model
    for a table, say) is refused in one line."""
    if kwargs.get("model") is not None and entry.option("model") is None:
        raise InputError(f"--model: {entry.name} takes no model (only learned heuristics do)")
    for k in ("device", "precision"):
        if kwargs.get(k) is not None and entry.option(k) is None:
            raise InputError(f"--{k}: applies to learned heuristics, not to {entry.name}")
    for k, v in kwargs.items():  # another heuristic's option: refused, never ignored
        if v is not None and entry.option(k) is None and k in all_options("heuristic"):
            users = [n for n, e in HEURISTICS.items() if e.option(k) is not None]
            raise InputError(f"--{k.replace('_', '-')}: applies to {'/'.join(users)}, "
                             f"not to {entry.name}")
    return entry.check_options({k: v for k, v in kwargs.items() if entry.option(k) is not None},
                               "heuristic")


def _call_declared(ref: str, *args: Any) -> Any:
    """Call the function a property names as ``"module:function"``."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)(*args)


def recommended_search(entry: Entry[HeuristicProps], puzzle_name: str,
                       model: Any) -> dict[str, Any] | None:
    """The search a model-backed heuristic recommends when no solver is given, from the function
    its ``recommend`` names (``"module:function"``, called with the puzzle name and the model):
    ``{"solver", "solver_args", "precision", "source"}``; ``None`` when it names none."""
    if not entry.props.recommend:
        return None
    result: dict[str, Any] = _call_declared(entry.props.recommend, puzzle_name, model)
    return result


def model_files(entry: Entry[HeuristicProps], puzzle_name: str, model: Any) -> list[Any]:
    """The files of the model a model-backed heuristic loads, from the function its
    ``model_files`` names (``[]`` where it declares none)."""
    if not entry.props.model_files:
        return []
    files: list[Any] = _call_declared(entry.props.model_files, puzzle_name, model)
    return files


@dataclass(frozen=True)
class DefaultSearch:
    """The search of a configuration that names no solver: ``solver`` with ``solver_args``
    (under those given) and a network's ``precision``; ``recommended``: a model's recommended
    search (its arguments are shown); ``note``: why this one (empty: nothing is said)."""

    solver: str
    solver_args: dict[str, Any] = field(default_factory=dict)
    precision: str | None = None
    recommended: bool = False
    note: str = ""


def default_search(entry: Entry[HeuristicProps], puzzle_name: str,
                   model: Any = None) -> DefaultSearch:
    """The solver a heuristic runs with when none is given (``bench solve``, suite files): what
    its ``recommend`` function answers for the model, else its ``default_solver``."""
    rec = recommended_search(entry, puzzle_name, model)
    if rec is not None:
        note = "the model's recommended search" if rec["source"] == "model" else \
            "the default search for a learned heuristic"
        return DefaultSearch(str(rec["solver"]), dict(rec["solver_args"]), rec.get("precision"),
                             True, note)
    p = entry.props
    return DefaultSearch(p.default_solver or ("bwas" if p.needs_model else "ida"),
                         note=p.default_note)


def get_heuristic(name: str, puzzle: Any, **kwargs: Any):
    """Instantiate heuristic ``name`` for an instantiated ``puzzle``."""
    entry = heuristic_entry(name)
    if not heuristic_supports(entry, puzzle.name):
        ok = [n for n, e in HEURISTICS.items() if heuristic_supports(e, puzzle.name)]
        raise InputError(
            f"--heuristic: {name} does not apply to {puzzle.name}; choose one of {', '.join(ok)}"
        )
    given = check_heuristic_options(entry, kwargs)
    rest = {k: v for k, v in kwargs.items() if entry.option(k) is None and v is not None}
    return entry.load()(puzzle, **{**entry.kwargs, **rest, **given})


# --------------------------------------------------------------------------- solvers
#: beam width per puzzle when none is given (prefix match on the family for unlisted sizes)
BEAM_WIDTH: dict[str, int] = {
    "cube2": 256, "cube2-htm": 256, "cube3": 4096, "cube3-htm": 4096,
    "puzzle8": 256, "puzzle15": 1024, "puzzle24": 1024, "puzzle35": 1024, "puzzle48": 1024,
}


def beam_width(puzzle_name: str) -> int:
    """The default beam width for ``puzzle_name``."""
    if puzzle_name in BEAM_WIDTH:
        return BEAM_WIDTH[puzzle_name]
    if puzzle_name.startswith("lightsout"):
        return 64
    return 1024


#: the largest weight on g: above 1 where h counts other units than moves (diffusion distance)
MAX_WEIGHT = 100.0
WEIGHT = Option("weight", float, "weight on g (lambda) of f = weight*g + h; above 1 where h "
                "counts other units than moves (a diffusion-distance network)", low=0.0,
                high=MAX_WEIGHT,
                metavar="L")
BATCH = Option("batch", int, "nodes expanded per iteration (N)", low=1, cap=10**9, metavar="N")
MAX_ITERATIONS = Option("max_iterations", int, "iterations before the search gives up "
                        "(status iteration-limit; Phipat 2020: 800 or 4,000)",
                        default_text="none", low=1, cap=10**12, metavar="I")
IMPROVE_WINDOW = Option("improve_window", int, "after a solution is found, replace windows of "
                        "up to L moves of its path by shortest segments (exact meet-in-the-middle "
                        "searches of depth about L/2 around its states) until none improves; 0: "
                        "off", default=0, low=0, high=40, metavar="L")
DEFERRED = Option("deferred", bool, "children enter the open list with their parent's f and "
                  "are evaluated in one batch when popped (a node whose own f is higher goes "
                  "back); each node is evaluated once", default=False, metavar="BOOL")
SOLVER_OPTIONS: dict[str, tuple[Option, ...]] = {
    "best_first": (WEIGHT, BATCH, MAX_ITERATIONS),
    "ida": (
        Option("threads", int, "threads searching each iteration's subtrees at once (sliding "
               "tiles, cubes; the node counts of every iteration but the last equal one "
               "thread's)",
               default=1, low=1, high=256, metavar="T"),
    ),
    "beam": (
        Option("width", int, "beam width", low=1, cap=10**9, default_text="per puzzle",
               metavar="W"),
        Option("max_depth", int, "layers before a beam gives up", default=1000, low=1,
               cap=10**9, metavar="D"),
        Option("goal_depth", int, "finish from any state within D moves of the goal by a "
               "breadth-first table", default=0, low=0, high=30, metavar="D"),
        Option("shorten", bool, "shorten a found path through the goal table", default=True,
               metavar="BOOL"),
        Option("inverse", bool, "also search from the inverse position (the cubes) and keep "
               "the shorter path: two searches, the limits bound both together", default=False,
               metavar="BOOL"),
        Option("distinct_moves", bool, "never make a move twice on one path (puzzles whose "
               "moves commute and undo themselves: Lights Out); every path found is then a "
               "shortest one with its effect", default=False, metavar="BOOL"),
        IMPROVE_WINDOW,
    ),
    "macro": (
        Option("max_states", int, "states the macro learner's search from the goal keeps (its "
               "depth); a table is cached per value", default_text="per puzzle", low=1000,
               cap=10**9, metavar="N"),
    ),
    "lvi": (
        Option("region", int, "tiles in each stage's first local region (l; Bischoff et al. "
               "2013, Table 2)", default=1, low=1, high=5, metavar="L"),
    ),
}

SOLVERS: dict[str, Entry[SolverProps]] = {
    e.name: e
    for e in [
        Entry("ida", "solvers.ida:IDAStar", "iterative-deepening A* (optimal; Numba per-state kernels)",
              {}, SolverProps(optimal=True, needs_kernel=True), SOLVER_OPTIONS["ida"]),
        Entry("bwas", "solvers.best_first:BatchBestFirst",
              "batch weighted A* (DeepCubeA): f = weight*g + h, expand the N best per iteration",
              {"weight": 0.6, "batch": 10000}, SolverProps(),
              (replace(WEIGHT, default=0.6),
               replace(BATCH, default=10000), MAX_ITERATIONS, IMPROVE_WINDOW, DEFERRED)),
        Entry("astar", "solvers.best_first:BatchBestFirst", "A* (weight 1, batch 1)",
              {"weight": 1.0, "batch": 1, "preset": "astar"},
              SolverProps(optimal=True, optimal_any_options=False),
              (replace(WEIGHT, default=1.0),
               replace(BATCH, default=1), MAX_ITERATIONS)),
        Entry("greedy", "solvers.best_first:BatchBestFirst", "greedy best-first on h alone",
              {"weight": 0.0, "batch": 1, "preset": "greedy"}, SolverProps(),
              (replace(WEIGHT, default=0.0),
               replace(BATCH, default=1), MAX_ITERATIONS, IMPROVE_WINDOW)),
        Entry("qstar", "solvers.best_first:BatchBestFirst",
              "Q* search: batch weighted A* whose children take f = weight*g + Q(parent, move) "
              "from their parent's Q-network values, evaluated only when popped",
              {"weight": 0.6, "batch": 10000, "preset": "qstar"}, SolverProps(q=True),
              (replace(WEIGHT, default=0.6), replace(BATCH, default=10000), MAX_ITERATIONS,
               IMPROVE_WINDOW)),
        Entry("beam", "solvers.beam:BeamSearch",
              "beam search: per depth the W distinct children of lowest h (one batch per layer)",
              {}, SolverProps(policy=True), SOLVER_OPTIONS["beam"]),
        Entry("qbeam", "solvers.beam:BeamSearch",
              "Q-beam: beam search ranking children by their parent's Q-network values (one "
              "evaluation per expanded state)", {"q": True}, SolverProps(q=True),
              SOLVER_OPTIONS["beam"]),
        Entry("gf2", "solvers.gf2:GF2Solver",
              "exact Lights Out solver: Gaussian elimination over GF(2) (no heuristic)",
              {}, SolverProps(optimal=True, puzzles="lightsout*", heuristic=False)),
        Entry("macro", "solvers.macro:MacroSolver",
              "Korf's macro problem solver: one learned macro per piece, no search (Korf 1982)",
              {}, SolverProps(heuristic=False, puzzles=("puzzle8", "puzzle15", "cube2",
                                                        "cube2-htm", "cube3", "cube3-htm")),
              SOLVER_OPTIONS["macro"]),
        Entry("lvi", "solvers.lvi:LocalValueIteration",
              "local value iteration: tiles placed in order by small value-iteration tables "
              "(Bischoff et al. 2013)", {},
              SolverProps(heuristic=False, puzzles=("puzzle8", "puzzle15")),
              SOLVER_OPTIONS["lvi"]),
    ]
}

_KIND: dict[str, dict[str, Entry[Any]]] = {"puzzle": PUZZLES, "heuristic": HEURISTICS, "solver": SOLVERS}


def solver_entry(name: str) -> Entry[SolverProps]:
    if name not in SOLVERS:
        raise _did_you_mean("solver", name, list(SOLVERS))
    return SOLVERS[name]


def solver_supports(entry: Entry[SolverProps], puzzle_name: str) -> bool:
    return _serves(entry.props.puzzles, puzzle_name)


#: the heuristic of solvers that use none
NO_HEURISTIC = "zero"


def uses_heuristic(solver_name: str) -> bool:
    """Whether solver ``solver_name`` reads a heuristic (table-driven solvers do not)."""
    return solver_entry(solver_name).props.heuristic


def ranks_moves(heuristic_name: str) -> bool:
    """Whether heuristic ``heuristic_name`` is a policy (ranks moves, gives no distance)."""
    return heuristic_entry(heuristic_name).props.ranks_moves


def takes_policy(solver_name: str) -> bool:
    """Whether solver ``solver_name`` searches with a policy (beam search)."""
    return solver_entry(solver_name).props.policy


def check_solver_heuristic(solver_name: str, heuristic_name: str | None) -> str:
    """The heuristic a configuration runs with: ``zero`` for a solver that uses none (another
    one is refused), else ``heuristic_name``'s declared name (``InputError`` when missing, or
    when it is a policy and the solver takes none)."""
    if not uses_heuristic(solver_name):
        if heuristic_name not in (None, NO_HEURISTIC):
            raise InputError(f"--heuristic: solver {solver_name} uses no heuristic; leave it out "
                             f"(or give {NO_HEURISTIC})")
        return NO_HEURISTIC
    if heuristic_name is None:
        raise InputError("--heuristic: missing (see bench list heuristics)")
    heuristic_name = canonical_heuristic(heuristic_name)
    if heuristic_name in HEURISTICS and ranks_moves(heuristic_name) and \
            not takes_policy(solver_name):
        users = "/".join(n for n in SOLVERS if takes_policy(n))
        raise InputError(f"--heuristic: {heuristic_name} ranks moves and gives no distance "
                         f"estimate; solver {solver_name} needs one (use --solver {users})")
    if solver_entry(solver_name).props.q and heuristic_name in HEURISTICS and \
            heuristic_entry(heuristic_name).props.q_values is False:
        users = "/".join(n for n, e in HEURISTICS.items() if e.props.q_values)
        raise InputError(f"--heuristic: solver {solver_name} reads the values of a state's moves "
                         f"from a Q-network; {heuristic_name} gives none (use --heuristic {users})")
    return heuristic_name


def takes_default_heuristic(solver_name: str) -> bool:
    """Whether solver ``solver_name`` runs with its puzzle's :func:`default_heuristic` when no
    heuristic is given: an optimal solver that reads one (IDA*, A*: only an admissible
    heuristic keeps them optimal)."""
    props = solver_entry(solver_name).props
    return props.optimal and props.heuristic


def solver_default_heuristic(solver_name: str, puzzle_name: str) -> str:
    """The :func:`default_heuristic` of ``puzzle_name`` for ``solver_name`` (one that
    :func:`takes_default_heuristic`); ``InputError`` when the puzzle declares none, or when the
    solver needs a per-state kernel (IDA*) and the default has none."""
    name = default_heuristic(puzzle_name)
    if name is None:
        raise InputError(f"--heuristic: missing, and {puzzle_name} declares no default "
                         "admissible heuristic (see bench list heuristics)")
    if solver_entry(solver_name).props.needs_kernel and not heuristic_entry(name).props.kernel:
        others = "/".join(n for n in SOLVERS if takes_default_heuristic(n)
                          and not SOLVERS[n].props.needs_kernel)
        raise InputError(f"--heuristic: missing; {puzzle_name}'s default heuristic {name} has no "
                         f"per-state kernel for {solver_name} (give one, or use --solver {others})")
    return name


def get_solver(name: str, **kwargs: Any):
    """Instantiate a solver; options given as ``None`` keep the entry's default."""
    entry = solver_entry(name)
    given = entry.check_options(kwargs, "solver")
    return entry.load()(**{**entry.kwargs, **given})


def all_options(kind: str) -> dict[str, Option]:
    """Every option the entries of ``kind`` (``puzzle``, ``heuristic``, ``solver``) declare,
    by name (the first declaration of a name; its range is the same everywhere)."""
    out: dict[str, Option] = {}
    for e in _KIND[kind].values():
        for o in e.options:
            out.setdefault(o.name, o)
    return out


# --------------------------------------------------------------------------- plugins
def _load_plugins() -> Any:
    from core import plugins

    return plugins.load(_KIND, Entry, Option)


#: what the installed plugins declared (``core.plugins``): their entries are in ``PUZZLES``,
#: ``HEURISTICS`` and ``SOLVERS`` (``Entry.plugin``: the package), the declarations left out
#: in ``PLUGINS.problems`` (one line each; the command line prints them), their network input
#: encodings in ``PLUGINS.encodings``
PLUGINS = _load_plugins()


def plugin_of(entry: Entry[Any]) -> str | None:
    """The package that provides ``entry``; ``None`` for a built-in."""
    return entry.plugin


def solver_names(**props: Any) -> tuple[str, ...]:
    """The solvers whose properties have the given values (``solver_names(optimal=True,
    needs_kernel=True)``: IDA*)."""
    return tuple(n for n, e in SOLVERS.items()
                 if all(getattr(e.props, k) == v for k, v in props.items()))


def optimal_by_construction(solver_name: str, heuristic_name: str,
                            solver_options_given: bool = False) -> bool:
    """Whether ``solver_name`` with ``heuristic_name`` always finds an optimal solution when it
    solves: the solver declares ``optimal`` and uses no heuristic or an admissible one (and,
    where optimality holds only with its defaults, was given no options)."""
    if solver_name not in SOLVERS:
        return False
    sp = SOLVERS[solver_name].props
    if not sp.optimal or (solver_options_given and not sp.optimal_any_options):
        return False
    if not sp.heuristic:  # a table-driven solver: optimal or not by itself
        return True
    name = canonical_heuristic(heuristic_name)
    return name in HEURISTICS and HEURISTICS[name].props.admissible
