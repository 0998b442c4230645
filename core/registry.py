"""One registry per kind (puzzles, heuristics, solvers) naming every plugin, with its options.

Entries are declared here as data: a name, an entry point ``"module:attr"``, fixed keyword
arguments, a one-line summary, typed options (:class:`Option`: name, type, range, default) and
properties. Everything else reads these declarations: the command line makes its flags from the
options, suite files are checked against them, the catalog of pattern databases is derived from
the PDB heuristics declared here, and the registry test solves a scramble with every combination
declared valid. Nothing heavy is imported until an entry is instantiated, so ``bench list`` never
imports torch or compiles Numba.

Heuristic properties: ``puzzles`` (names, ``"*"`` or a ``"prefix*"``), ``admissible``,
``consistent``, ``exact``, ``kernel`` (a per-state Numba kernel for IDA*), ``needs_pdb``,
``needs_model``, ``pdb`` (the pattern database: :class:`PdbDecl`), ``ranks_moves`` (``True``:
a policy, which gives log-probabilities of a state's moves and no distance estimate),
``recommend`` (``"module:function"`` giving a model's recommended search, see
:func:`recommended_search`). Every
heuristic evaluates batches of states. Solver properties: ``optimal`` (with an admissible
heuristic), ``needs_kernel``, ``puzzles``, ``heuristic`` (``False``: a table-driven solver that
uses no heuristic; it runs with ``zero`` and refuses any other), ``policy`` (``True``: the
solver takes a policy; the others refuse one).

Puzzle properties: ``family``, ``goal_layouts`` (takes ``--goal``), ``bounds``: the admissible
heuristics that give a row's certified lower bound (``suites.reference.lower_bounds``: the
value at the start state, rounded up), strongest first; the first one that can be had without
building a large table is used (a PDB whose declaration is not ``ci`` only when its tables are
already in the cache):

=================== ===================================================================
puzzle              bounds, strongest first
=================== ===================================================================
cube3, cube3-htm    pdb-korf
cube2, cube2-htm    pdb-cube2 (exact)
puzzle8             pdb-full (exact), pdb-44-reflect, linear-conflict
puzzle15            pdb-78-reflect, pdb-663-reflect, pdb-555-reflect, linear-conflict
puzzle24            pdb-6666kf-reflect, pdb-6666-reflect, linear-conflict
puzzle35            pdb-5x7-reflect, linear-conflict
puzzle48            pdb-5x9-3-reflect, linear-conflict
lightsout*          lights-on
sokoban*            sokoban-matching
=================== ===================================================================

A ``-reflect`` variant is never below its plain sum (the max with the mirrored state) and reads
the same tables, so only it is listed. The small partitions (``pdb-3x8``, ``pdb-3x11-2``,
``pdb-3x16``) are left out: on random states of the 24, 35 and 48-puzzles their reflected sums
are below linear conflicts on average (about 1 to 3 moves), so linear conflicts is the bound
when the large tables are absent.
"""

from __future__ import annotations

import difflib
import importlib
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import InputError


@dataclass(frozen=True)
class Option:
    """A typed option of an entry: ``kind`` is ``int``, ``float``, ``bool`` or ``str``.

    ``low``/``high`` bound numbers (``low_ok``: ``low`` itself allowed); ``cap`` is an upper
    bound reported on its own (it keeps huge values from overflowing what they size);
    ``choices`` lists the allowed strings; ``default`` is documentation (``None``: the entry's
    own default, described in ``default_text``).
    """

    name: str
    kind: type
    help: str
    default: Any = None
    default_text: str = ""
    low: float | None = None
    low_ok: bool = True
    high: float | None = None
    cap: float | None = None
    choices: tuple[str, ...] | None = None
    metavar: str = "X"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def describe(self) -> str:
        """The help text with the range and default, as the command line prints it."""
        rng = ""
        if self.low is not None and self.high is not None:
            rng = f", in [{self.low:g}, {self.high:g}]"
        elif self.low is not None:
            rng = f", {'>=' if self.low_ok else '>'} {self.low:g}"
        default = self.default_text or ("" if self.default is None else str(self.default))
        return f"{self.help}{rng}" + (f" [{default}]" if default else "")

    def check(self, value: Any) -> Any:
        """``value`` (a string from the command line, or a value from a suite file or the
        Python API) converted to this option's type and checked; ``InputError`` otherwise."""
        if value is None:
            return None
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "yes", "1", "on"):
                return True
            if text in ("false", "no", "0", "off"):
                return False
            raise InputError(f"{self.flag}: expected true or false, got {value!r}")
        if self.kind is str:
            if isinstance(value, os.PathLike):
                value = os.fspath(value)
            if not isinstance(value, str):
                raise InputError(f"{self.flag}: expected a string, got {value!r}")
            if self.choices is not None and value not in self.choices:
                listed = ", ".join(self.choices[:-1]) + " or " + self.choices[-1] \
                    if len(self.choices) > 1 else self.choices[0]
                raise InputError(f"{self.flag}: expected {listed}, got {value!r}")
            return value
        what = "an integer" if self.kind is int else "a number"
        if isinstance(value, bool):
            raise InputError(f"{self.flag}: expected {what}, got {value!r}")
        if isinstance(value, str):
            try:
                number = self.kind(value)
            except ValueError:
                raise InputError(f"{self.flag}: expected {what}, got {value!r}") from None
        else:
            try:
                number = self.kind(value)
            except (TypeError, ValueError, OverflowError):
                raise InputError(f"{self.flag}: expected {what}, got {value!r}") from None
            if self.kind is int and number != value:
                raise InputError(f"{self.flag}: expected {what}, got {value!r}")
        if isinstance(number, float) and not math.isfinite(number):
            raise InputError(f"{self.flag}: expected a finite number, got {value!r}")
        low, high = self.low, self.high
        if (low is not None and (number < low or (number == low and not self.low_ok))) or \
                (high is not None and number > high):
            if low is not None and high is not None:
                rng = f"in [{low:g}, {high:g}]"
            else:
                rng = f"{'>=' if self.low_ok else '>'} {low:g}" if low is not None \
                    else f"<= {high:g}"
            raise InputError(f"{self.flag}: must be {rng}, got {value}")
        if self.cap is not None and number > self.cap:
            raise InputError(f"{self.flag}: must be at most {self.cap:g}, got {value}")
        return number


@dataclass(frozen=True)
class Entry:
    name: str
    target: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    props: dict[str, Any] = field(default_factory=dict)
    options: tuple[Option, ...] = ()

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
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return InputError(f"unknown {kind} {name!r}{hint}; known: {', '.join(known)}")


# --------------------------------------------------------------------------- puzzles
TILE_NAMES = {3: "puzzle8", 4: "puzzle15", 5: "puzzle24", 6: "puzzle35", 7: "puzzle48"}

#: the admissible heuristics of a row's lower bound per tile puzzle, strongest first (see the
#: module docstring; every tile puzzle ends with linear conflicts, which needs no table)
_TILE_BOUNDS: dict[str, tuple[str, ...]] = {
    "puzzle8": ("pdb-full", "pdb-44-reflect", "linear-conflict"),
    "puzzle15": ("pdb-78-reflect", "pdb-663-reflect", "pdb-555-reflect", "linear-conflict"),
    "puzzle24": ("pdb-6666kf-reflect", "pdb-6666-reflect", "linear-conflict"),
    "puzzle35": ("pdb-5x7-reflect", "linear-conflict"),
    "puzzle48": ("pdb-5x9-3-reflect", "linear-conflict"),
}
_CUBE3_BOUNDS = ("pdb-korf",)
_CUBE2_BOUNDS = ("pdb-cube2",)
_LIGHTS_BOUNDS = ("lights-on",)
_SOKOBAN_BOUNDS = ("sokoban-matching",)

GOAL = Option("goal", str, "goal layout of a sliding-tile puzzle (korf1982: the 8-puzzle's "
              "1 2 3 / 8 B 4 / 7 6 5)", choices=("blank-first", "blank-last", "korf1982"),
              default_text="blank-last", metavar="LAYOUT")

PUZZLES: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("cube3", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, quarter-turn metric (12 actions, DeepCubeA)",
              {"metric": "qtm"}, {"family": "cube", "goal_layouts": False, "bounds": _CUBE3_BOUNDS}),
        Entry("cube3-htm", "puzzles.cube:Cube3", "Rubik's cube 3x3x3, half-turn metric (18 actions, Korf 1997)",
              {"metric": "htm"}, {"family": "cube", "goal_layouts": False, "bounds": _CUBE3_BOUNDS}),
        Entry("cube2", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, quarter-turn metric (6 actions)",
              {"metric": "qtm"}, {"family": "cube", "goal_layouts": False, "bounds": _CUBE2_BOUNDS}),
        Entry("cube2-htm", "puzzles.cube:Cube2", "2x2x2 cube, DBL corner fixed, half-turn metric (9 actions)",
              {"metric": "htm"}, {"family": "cube", "goal_layouts": False, "bounds": _CUBE2_BOUNDS}),
        *[
            Entry(n, "puzzles.npuzzle:NPuzzle", f"sliding-tile {w * w - 1}-puzzle ({w}x{w})",
                  {"width": w}, {"family": "tiles", "goal_layouts": True, "bounds": _TILE_BOUNDS[n]},
                  (GOAL,))
            for w, n in TILE_NAMES.items()
        ],
        Entry("lightsout7", "puzzles.lightsout:LightsOut", "Lights Out 7x7 (49 actions)",
              {"size": 7}, {"family": "lights", "goal_layouts": False, "bounds": _LIGHTS_BOUNDS}),
        Entry("sokoban", "puzzles.sokoban:Sokoban", "Sokoban 10x10, 4 boxes (DeepCubeA's levels; "
              "4 agent moves)", {"size": 10},
              {"family": "sokoban", "goal_layouts": False, "bounds": _SOKOBAN_BOUNDS}),
    ]
}

#: the cube puzzles (what the cube pattern databases and kernels serve)
CUBE_NAMES: tuple[str, ...] = tuple(n for n, e in PUZZLES.items() if e.props["family"] == "cube")

_LIGHTS_RE = re.compile(r"^lightsout([0-9]+)$", re.ASCII)
_SOKOBAN_RE = re.compile(r"^sokoban([0-9]+)$", re.ASCII)


def puzzle_entry(name: str) -> Entry:
    if name in PUZZLES:
        return PUZZLES[name]
    m = _LIGHTS_RE.match(name)
    if m and 2 <= int(m.group(1)) <= 20:
        n = int(m.group(1))
        return Entry(name, "puzzles.lightsout:LightsOut", f"Lights Out {n}x{n}", {"size": n},
                     {"family": "lights", "goal_layouts": False, "bounds": _LIGHTS_BOUNDS})
    m = _SOKOBAN_RE.match(name)
    if m and 5 <= int(m.group(1)) <= 30 and int(m.group(1)) != 10:
        n = int(m.group(1))
        return Entry(name, "puzzles.sokoban:Sokoban", f"Sokoban {n}x{n}", {"size": n},
                     {"family": "sokoban", "goal_layouts": False, "bounds": _SOKOBAN_BOUNDS})
    raise _did_you_mean("puzzle", name, list(PUZZLES))


def bound_heuristics(puzzle_name: str) -> tuple[str, ...]:
    """The admissible heuristics declared for ``puzzle_name``'s lower bounds, strongest first
    (its entry's ``bounds``; empty when it declares none)."""
    return tuple(puzzle_entry(puzzle_name).props.get("bounds", ()))


def get_puzzle(name: str, goal: str | None = None, **kwargs: Any):
    """Instantiate a puzzle. ``goal`` (``blank-first``/``blank-last``) applies to sliding tiles only."""
    entry = puzzle_entry(name)
    args = {**entry.kwargs, **kwargs}
    if goal is not None:
        if entry.option("goal") is None:
            raise InputError(f"--goal: {name} has a single goal; --goal applies to sliding-tile puzzles")
        args["goal"] = GOAL.check(goal)
    return entry.load()(**args)


# --------------------------------------------------------------------------- pattern databases
def _chunks(lo: int, hi: int, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(range(a, min(a + size, hi + 1))) for a in range(lo, hi + 1, size))


def _mirror5(tiles: tuple[int, ...]) -> tuple[int, ...]:
    """Tiles (= goal cells, blank first) of a 5x5 pattern mirrored about the main diagonal."""
    return tuple(sorted((c % 5) * 5 + c // 5 for c in tiles))


_A24 = (1, 2, 3, 4, 8, 9)


@dataclass(frozen=True)
class PdbDecl:
    """A pattern database heuristic, declared once.

    ``partition``: the key of its patterns; ``patterns``: the tile sets (blank-first tile
    numbers = goal cells) of an additive tile partition, empty for the exact tables;
    ``tables_fn``: the entry point ``(puzzle name, heuristic name) -> [TableSpec]`` that lists
    its stored tables (their sizes, files and builders); ``ci``: small enough to build in tests
    (the others are stood in for by the same code with small patterns: the heuristic
    ``stand_in``, or the same heuristic with the arguments ``stand_in_args``).
    """

    puzzles: tuple[str, ...]
    partition: str
    summary: str
    tables_fn: str
    patterns: tuple[tuple[int, ...], ...] = ()
    ci: bool = True
    stand_in: str = ""
    stand_in_args: tuple[tuple[str, Any], ...] = ()
    build: str = ""  #: measured build cost and size on the 2-core development machine (docs: registry reference)


TILE_TABLES = "pdb_builders.additive_tiles:catalog_tables"
CUBE_TABLES = "pdb_builders.korf_cube:catalog_tables"

TILE_PDBS: dict[str, PdbDecl] = {
    "pdb-full": PdbDecl(("puzzle8",), "full", "one pattern of all 8 tiles: the exact 8-puzzle table",
                        TILE_TABLES),
    "pdb-44": PdbDecl(("puzzle8",), "44", "additive disjoint PDBs, two patterns of 4 tiles (small, for tests)",
                      TILE_TABLES, ((1, 2, 3, 4), (5, 6, 7, 8))),
    "pdb-555": PdbDecl(("puzzle15",), "555", "additive disjoint PDBs, three patterns of 5 tiles",
                       TILE_TABLES, ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
                       build="7 s of CPU"),
    "pdb-663": PdbDecl(("puzzle15",), "663", "additive disjoint PDBs, patterns of 6, 6 and 3 tiles",
                       TILE_TABLES, ((1, 2, 3), (4, 5, 8, 9, 12, 13), (6, 7, 10, 11, 14, 15)),
                       build="19 s of CPU, 240 MiB peak"),
    "pdb-78": PdbDecl(("puzzle15",), "78", "additive disjoint PDBs, patterns of 7 and 8 tiles",
                      TILE_TABLES, (tuple(range(1, 8)), tuple(range(8, 16))), ci=False,
                      stand_in="pdb-555", build="27 min of CPU, 5.5 GiB peak, 577 MB of files"),
    "pdb-6666": PdbDecl(("puzzle24",), "6666", "additive disjoint PDBs, four patterns of 6 tiles",
                        TILE_TABLES, (_A24, _mirror5(_A24), (6, 7, 11, 12, 13, 17),
                                      (14, 18, 19, 22, 23, 24)), ci=False, stand_in="pdb-3x8",
                        build="10.5 min, 1.0 GiB peak, 3 x 127.5 MB"),
    "pdb-6666kf": PdbDecl(("puzzle24",), "6666kf",
                          "additive disjoint PDBs, Korf & Felner's four patterns of 6 tiles (their "
                          "mirror image is another partition: -reflect adds to it)",
                          TILE_TABLES, ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14),
                                        (10, 11, 15, 16, 20, 21), (17, 18, 19, 22, 23, 24)),
                          ci=False, stand_in="pdb-3x8",
                          build="8.4-11 min a table (two at a time on 2 cores), 4 x 127.5 MB; "
                                "IDA* reads a 244 MB sparse copy of each"),
    "pdb-5x7": PdbDecl(("puzzle35",), "5x7", "additive disjoint PDBs, seven patterns of 5 tiles",
                       TILE_TABLES, _chunks(1, 35, 5), ci=False, stand_in="pdb-3x11-2",
                       build="6.2 min, 0.6 GiB peak, 7 x 45 MB"),
    "pdb-5x9-3": PdbDecl(("puzzle48",), "5x9-3",
                         "additive disjoint PDBs, nine patterns of 5 tiles and one of 3",
                         TILE_TABLES, _chunks(1, 45, 5) + ((46, 47, 48),), ci=False,
                         stand_in="pdb-3x16", build="47 min of CPU, 2.1 GiB peak, 9 x 218 MiB"),
    # small partitions: quick, weak heuristics (and the stand-ins of the large ones in tests)
    "pdb-3x8": PdbDecl(("puzzle24",), "3x8", "additive disjoint PDBs, eight patterns of 3 tiles "
                       "(small)", TILE_TABLES, _chunks(1, 24, 3)),
    "pdb-3x11-2": PdbDecl(("puzzle35",), "3x11-2", "additive disjoint PDBs, eleven patterns of 3 "
                          "tiles and one of 2 (small)", TILE_TABLES, _chunks(1, 33, 3) + ((34, 35),)),
    "pdb-3x16": PdbDecl(("puzzle48",), "3x16", "additive disjoint PDBs, sixteen patterns of 3 "
                        "tiles (small)", TILE_TABLES, _chunks(1, 48, 3)),
}

CUBE_PDBS: dict[str, PdbDecl] = {
    "pdb-korf": PdbDecl(("cube3", "cube3-htm"), "korf",
                        "Korf 1997: corner database and two disjoint 6-edge databases (max)",
                        CUBE_TABLES, ci=False, build="31-40 s per metric, 760 MiB peak, 82.7 MiB",
                        stand_in_args=(("corners", "corner-perm"), ("edges", ((0, 1, 2), (8, 9, 10))))),
    "pdb-cube2": PdbDecl(("cube2", "cube2-htm"), "cube2", "every 2x2x2 state's exact distance",
                         CUBE_TABLES),
}


# --------------------------------------------------------------------------- heuristics
_TILES = tuple(TILE_NAMES.values())
_ADMISSIBLE = {"admissible": True, "consistent": True, "kernel": True}

MODEL = Option("model", str, "model of a learned heuristic: a name, run folder or file",
               default_text="the shipped model", metavar="M")
DEVICE = Option("device", str, "where a network evaluates", choices=("auto", "cpu", "cuda"),
                default_text="cpu", metavar="DEV")
PRECISION = Option("precision", str, "a network's hidden layers", choices=("float32", "bfloat16"),
                   default_text="the model's recommendation, else float32", metavar="P")

#: the puzzles the training engine serves (Sokoban through its own reverse walks)
LEARNED_PUZZLES = ("cube*", "puzzle*", "lightsout*", "sokoban*")
#: goal trees grow from one goal state: not Sokoban's set of goals
ONE_GOAL_PUZZLES = ("cube*", "puzzle*", "lightsout*")

HEURISTICS: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("manhattan", "heuristics.manhattan:Manhattan", "sum of tile Manhattan distances",
              {}, {"puzzles": _TILES, **_ADMISSIBLE, "needs_pdb": False}),
        Entry("linear-conflict", "heuristics.manhattan:LinearConflict",
              "Manhattan distance plus 2 per linear conflict", {},
              {"puzzles": _TILES, **_ADMISSIBLE, "needs_pdb": False}),
        Entry("lights-on", "heuristics.lights:LightsOn", "lights on divided by 5, rounded up", {},
              {"puzzles": "lightsout*", **_ADMISSIBLE, "needs_pdb": False}),
        *[
            Entry(name, "heuristics.pdb_cube:KorfCubePDB" if name == "pdb-korf"
                  else "heuristics.pdb_cube:Cube2PDB", d.summary, {},
                  {"puzzles": d.puzzles, **_ADMISSIBLE, "needs_pdb": True, "pdb": d,
                   "exact": name == "pdb-cube2"})
            for name, d in CUBE_PDBS.items()
        ],
        *[
            Entry(name + suffix, "heuristics.pdb_tiles:AdditiveTilePDB",
                  d.summary + (", max with the diagonal reflection" if suffix else ""),
                  {"partition": d.partition, "reflect": bool(suffix)},
                  {"puzzles": d.puzzles, **_ADMISSIBLE, "needs_pdb": True, "pdb": d,
                   "exact": name == "pdb-full"})
            for name, d in TILE_PDBS.items()
            for suffix in ("", "-reflect")
        ],
        Entry("zero", "heuristics.zero:Zero", "h = 0 (blind search; what table-driven solvers run "
              "with)", {}, {"puzzles": "*", "admissible": True, "consistent": True, "kernel": False,
                            "needs_pdb": False}),
        Entry("sokoban-push", "heuristics.sokoban:PushDistance",
              "Sokoban: sum over boxes of the pushes to the nearest goal (dead squares: inf)", {},
              {"puzzles": "sokoban*", "admissible": True, "consistent": True, "kernel": False,
               "needs_pdb": False}),
        Entry("sokoban-matching", "heuristics.sokoban:PushMatching",
              "Sokoban: pushes of the best assignment of boxes to goals (Hungarian algorithm)", {},
              {"puzzles": "sokoban*", "admissible": True, "consistent": True, "kernel": False,
               "needs_pdb": False}),
        Entry("davi", "heuristics.value_net:ValueNetHeuristic",
              "network trained by deep approximate value iteration (DeepCubeA)", {},
              {"puzzles": LEARNED_PUZZLES, "admissible": False, "consistent": False, "kernel": False,
               "needs_model": True}, (MODEL, DEVICE, PRECISION)),
        Entry("policy", "heuristics.policy_net:PolicyNetHeuristic",
              "move-prediction network (EfficientCube): ranks moves, gives no distance estimate; "
              "beam search only", {},
              {"puzzles": LEARNED_PUZZLES, "admissible": False, "consistent": False,
               "kernel": False, "needs_model": True, "ranks_moves": True},
              (replace(MODEL, help="policy model: a name, run folder or file (bench train "
                       "policy)", default_text="the shipped PUZZLE-policy"), DEVICE, PRECISION)),
        Entry("davi-multigoal", "heuristics.multigoal:MultiGoalHeuristic",
              "a tree of goal networks (multi-goal DeepCubeA, Moravej): min over goals of "
              "f_i + d_i; searches also stop at the tree's goals", {},
              {"puzzles": ONE_GOAL_PUZZLES, "admissible": False, "consistent": False, "kernel": False,
               "needs_model": True},
              (replace(MODEL, help="multi-goal model folder (bench train multigoal)",
                       default_text="none: required"), DEVICE, PRECISION,
               Option("combine", str, "how goal estimates combine: sum = min_i (f_i + d_i), "
                      "ratio = min_i f_i / (m d_i) (the report's)", choices=("sum", "ratio"),
                      default="sum", metavar="C"),
               Option("m", float, "the ratio combination's m", default=1.0, low=0.0,
                      low_ok=False, metavar="M"))),
        Entry("onnx", "heuristics.onnx:OnnxHeuristic",
              "a network in an ONNX file (a value network or a policy, as its card says), "
              "evaluated by onnxruntime on the CPU", {},
              {"puzzles": "*", "admissible": False, "consistent": False, "kernel": False,
               "needs_model": True, "recommend": "heuristics.onnx:recommended_search"},
              (replace(MODEL, help="ONNX file (its card NAME.card.json beside it) or a folder "
                       "holding one", default_text="none: required"),
               replace(DEVICE, choices=("auto", "cpu"), help="where a network evaluates (onnx: "
                       "the CPU)"))),
    ]
}


def heuristic_supports(entry: Entry, puzzle_name: str) -> bool:
    """Whether ``entry`` declares ``puzzle_name``: its ``puzzles`` is ``"*"``, a name, a
    ``"prefix*"`` pattern, or a tuple of names and patterns."""
    spec = entry.props.get("puzzles", "*")
    for pattern in (spec,) if isinstance(spec, str) else spec:
        if pattern == "*" or pattern == puzzle_name or \
                (pattern.endswith("*") and puzzle_name.startswith(pattern[:-1])):
            return True
    return False


def heuristic_entry(name: str) -> Entry:
    if name not in HEURISTICS:
        raise _did_you_mean("heuristic", name, list(HEURISTICS))
    return HEURISTICS[name]


def check_heuristic_options(entry: Entry, kwargs: dict[str, Any]) -> dict[str, Any]:
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


def recommended_search(entry: Entry, puzzle_name: str, model: Any) -> dict[str, Any] | None:
    """The search a model-backed heuristic recommends when no solver is given, from the function
    its ``props["recommend"]`` names (``"module:function"``, called with the puzzle name and the
    model): ``{"solver", "solver_args", "precision", "source"}``; ``None`` when it names none."""
    target = entry.props.get("recommend")
    if not target:
        return None
    module, _, attr = str(target).partition(":")
    result: dict[str, Any] = getattr(importlib.import_module(module), attr)(puzzle_name, model)
    return result


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


WEIGHT = Option("weight", float, "weight on g (lambda) of f = weight*g + h", low=0.0, high=1.0,
                metavar="L")
BATCH = Option("batch", int, "nodes expanded per iteration (N)", low=1, cap=10**9, metavar="N")
MAX_ITERATIONS = Option("max_iterations", int, "iterations before the search gives up "
                        "(status iteration-limit; Phipat 2020: 800 or 4,000)",
                        default_text="none", low=1, cap=10**12, metavar="I")
SOLVER_OPTIONS: dict[str, tuple[Option, ...]] = {
    "best_first": (WEIGHT, BATCH, MAX_ITERATIONS),
    "ida": (
        Option("threads", int, "threads searching each iteration's subtrees at once (sliding "
               "tiles; the node counts of every iteration but the last equal one thread's)",
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

SOLVERS: dict[str, Entry] = {
    e.name: e
    for e in [
        Entry("ida", "solvers.ida:IDAStar", "iterative-deepening A* (optimal; Numba per-state kernels)",
              {}, {"optimal": True, "needs_kernel": True}, SOLVER_OPTIONS["ida"]),
        Entry("bwas", "solvers.best_first:BatchBestFirst",
              "batch weighted A* (DeepCubeA): f = weight*g + h, expand the N best per iteration",
              {"weight": 0.6, "batch": 10000}, {"optimal": False},
              (replace(WEIGHT, default=0.6),
               replace(BATCH, default=10000), MAX_ITERATIONS)),
        Entry("astar", "solvers.best_first:BatchBestFirst", "A* (weight 1, batch 1)",
              {"weight": 1.0, "batch": 1, "preset": "astar"}, {"optimal": True},
              (replace(WEIGHT, default=1.0),
               replace(BATCH, default=1), MAX_ITERATIONS)),
        Entry("greedy", "solvers.best_first:BatchBestFirst", "greedy best-first on h alone",
              {"weight": 0.0, "batch": 1, "preset": "greedy"}, {"optimal": False},
              (replace(WEIGHT, default=0.0),
               replace(BATCH, default=1), MAX_ITERATIONS)),
        Entry("beam", "solvers.beam:BeamSearch",
              "beam search: per depth the W distinct children of lowest h (one batch per layer)",
              {}, {"optimal": False, "policy": True}, SOLVER_OPTIONS["beam"]),
        Entry("gf2", "solvers.gf2:GF2Solver",
              "exact Lights Out solver: Gaussian elimination over GF(2) (no heuristic)",
              {}, {"optimal": True, "puzzles": "lightsout*", "heuristic": False}),
        Entry("macro", "solvers.macro:MacroSolver",
              "Korf's macro problem solver: one learned macro per piece, no search (Korf 1982)",
              {}, {"optimal": False, "heuristic": False,
                   "puzzles": ("puzzle8", "puzzle15", "cube2", "cube2-htm", "cube3", "cube3-htm")},
              SOLVER_OPTIONS["macro"]),
        Entry("lvi", "solvers.lvi:LocalValueIteration",
              "local value iteration: tiles placed in order by small value-iteration tables "
              "(Bischoff et al. 2013)", {},
              {"optimal": False, "heuristic": False, "puzzles": ("puzzle8", "puzzle15")},
              SOLVER_OPTIONS["lvi"]),
    ]
}

_KIND: dict[str, dict[str, Entry]] = {"puzzle": PUZZLES, "heuristic": HEURISTICS, "solver": SOLVERS}


def solver_entry(name: str) -> Entry:
    if name not in SOLVERS:
        raise _did_you_mean("solver", name, list(SOLVERS))
    return SOLVERS[name]


def solver_supports(entry: Entry, puzzle_name: str) -> bool:
    return heuristic_supports(entry, puzzle_name)


#: the heuristic of solvers that use none
NO_HEURISTIC = "zero"


def uses_heuristic(solver_name: str) -> bool:
    """Whether solver ``solver_name`` reads a heuristic (table-driven solvers do not)."""
    return bool(solver_entry(solver_name).props.get("heuristic", True))


def ranks_moves(heuristic_name: str) -> bool:
    """Whether heuristic ``heuristic_name`` is a policy (ranks moves, gives no distance)."""
    return bool(heuristic_entry(heuristic_name).props.get("ranks_moves"))


def takes_policy(solver_name: str) -> bool:
    """Whether solver ``solver_name`` searches with a policy (beam search)."""
    return bool(solver_entry(solver_name).props.get("policy"))


def check_solver_heuristic(solver_name: str, heuristic_name: str | None) -> str:
    """The heuristic a configuration runs with: ``zero`` for a solver that uses none (another
    one is refused), else ``heuristic_name`` (``InputError`` when missing, or when it is a
    policy and the solver takes none)."""
    if not uses_heuristic(solver_name):
        if heuristic_name not in (None, NO_HEURISTIC):
            raise InputError(f"--heuristic: solver {solver_name} uses no heuristic; leave it out "
                             f"(or give {NO_HEURISTIC})")
        return NO_HEURISTIC
    if heuristic_name is None:
        raise InputError("--heuristic: missing (see bench list heuristics)")
    if heuristic_name in HEURISTICS and ranks_moves(heuristic_name) and \
            not takes_policy(solver_name):
        users = "/".join(n for n in SOLVERS if takes_policy(n))
        raise InputError(f"--heuristic: {heuristic_name} ranks moves and gives no distance "
                         f"estimate; solver {solver_name} needs one (use --solver {users})")
    return heuristic_name


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
#: ``HEURISTICS`` and ``SOLVERS`` (``props["plugin"]``: the package), the declarations left out
#: in ``PLUGINS.problems`` (one line each; the command line prints them), their network input
#: encodings in ``PLUGINS.encodings``
PLUGINS = _load_plugins()


def plugin_of(entry: Entry) -> str | None:
    """The package that provides ``entry``; ``None`` for a built-in."""
    return entry.props.get("plugin")
