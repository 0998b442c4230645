"""Suite files (``suites/*.toml``), instance sets and reference optimal lengths.

A suite names one puzzle, its instance sets, its configurations (heuristic x solver x
parameters), per-instance limits and profiles. ``load_suite`` parses and validates a file;
every fault is an ``InputError`` that names the file and the key. ``load_instances`` turns one
instance set into states (arrays of shape ``(L,)``) with their reference optimal lengths (or
``None`` where none is known: never guessed).

Instance sources:

``file``       a published list shipped under ``suites/instances/`` (formats ``tiles``,
               ``maneuver``, ``vcube``, ``states``; see ``_parse_file``)
``scramble``   seeded random walks (``depth`` a list, ``count`` per depth, ``seed``)
``uniform``    states drawn uniformly (``count``, ``seed``), e.g. 15-puzzle random instances
``deepcubea``  DeepCubeA's test set for the puzzle, from ``bench suite import-deepcubea`` output
               or ``../shared/data/deepcubea``; ``fallback`` names the set used when absent

Reference optimal lengths (``optimal``): ``file`` (a column of the file), ``exact:HEURISTIC``
(a heuristic that is the exact distance, e.g. ``pdb-cube2``), ``table`` (the puzzle's exhaustive
distance table: 2x2x2 cube, 8-puzzle), ``bfs`` (breadth-first search from
the goal; small puzzles only), ``gf2`` (Lights Out, exact linear algebra over GF(2)),
or ``none``. A scramble's depth is only an upper bound and is never used as the optimum.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench import registry
from bench.paths import cache_dir, deepcubea_dir
from puzzles.base import InputError, Puzzle

SUITES_DIR = Path(__file__).resolve().parent
INSTANCES_DIR = SUITES_DIR / "instances"

SOURCES = ("file", "scramble", "uniform", "deepcubea")
FORMATS = ("tiles", "maneuver", "vcube", "states")
OPTIMAL = ("file", "table", "bfs", "gf2", "none")
#: the figures a suite may name (``bench.plots.FIGURES``, which imports matplotlib)
FIGURE_NAMES = ("bwas-strips", "excess", "nodes-vs-length")


# --------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class LimitSpec:
    """Per-instance limits; ``None`` = unlimited. ``memory_mb`` is the worker's budget."""

    time_s: float | None = None
    nodes: int | None = None
    memory_mb: int | None = None

    def merged(self, other: LimitSpec | None) -> LimitSpec:
        if other is None:
            return self
        return LimitSpec(
            time_s=other.time_s if other.time_s is not None else self.time_s,
            nodes=other.nodes if other.nodes is not None else self.nodes,
            memory_mb=other.memory_mb if other.memory_mb is not None else self.memory_mb,
        )

    def as_dict(self) -> dict[str, Any]:
        return {"time_s": self.time_s, "nodes": self.nodes, "memory_mb": self.memory_mb}


@dataclass(frozen=True)
class InstanceSetSpec:
    name: str
    source: str
    goal: str | None = None
    path: str | None = None
    format: str | None = None
    depth: tuple[int, ...] = ()
    count: int | None = None
    seed: int = 0
    optimal: str = "none"
    fallback: str | None = None
    citation: str = ""
    description: str = ""


@dataclass(frozen=True)
class ConfigSpec:
    name: str
    heuristic: str
    solver: str
    heuristic_args: dict[str, Any] = field(default_factory=dict)
    solver_args: dict[str, Any] = field(default_factory=dict)
    instance_sets: tuple[str, ...] | None = None
    limits: LimitSpec | None = None
    description: str = ""

    def params(self) -> dict[str, Any]:
        return {**{f"h.{k}": v for k, v in self.heuristic_args.items()},
                **{f"s.{k}": v for k, v in self.solver_args.items()}}


@dataclass(frozen=True)
class Profile:
    name: str
    instance_sets: tuple[str, ...] | None = None
    configs: tuple[str, ...] | None = None
    limit: int | None = None
    limits: LimitSpec | None = None
    description: str = ""


@dataclass(frozen=True)
class Suite:
    name: str
    puzzle: str
    path: Path
    description: str
    instance_sets: dict[str, InstanceSetSpec]
    configs: dict[str, ConfigSpec]
    limits: LimitSpec
    profiles: dict[str, Profile]
    figures: tuple[str, ...] = ()

    def profile(self, name: str) -> Profile:
        if name not in self.profiles:
            raise InputError(
                f"--profile: suite {self.name} has no profile {name!r}; "
                f"known: {', '.join(self.profiles)}"
            )
        return self.profiles[name]


@dataclass
class Instance:
    """One start state: ``state`` has shape ``(L,)``; ``optimal`` is None when not known."""

    set: str
    id: str
    state: np.ndarray
    optimal: int | None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class InstanceSet:
    spec: InstanceSetSpec
    puzzle: str
    goal: str | None
    instances: list[Instance]
    origin: str  # where the instances came from (a path or a generator description)


# --------------------------------------------------------------------------- parsing suites
class _Reader:
    """Reads typed keys from a TOML table; faults name the file and the key path."""

    def __init__(self, path: Path, table: dict[str, Any], where: str) -> None:
        self.path, self.table, self.where = path, table, where

    def fail(self, key: str, msg: str) -> InputError:
        name = f"{self.where}.{key}" if self.where and key else (self.where or key)
        return InputError(f"{self.path.name}: {name}: {msg}")

    def get(self, key: str, types: type | tuple[type, ...], default: Any = None,
            required: bool = False) -> Any:
        if key not in self.table:
            if required:
                raise self.fail(key, "missing")
            return default
        value = self.table[key]
        if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(key, f"expected {_type_name(types)}, got {value!r}")
        if not isinstance(value, types):
            raise self.fail(key, f"expected {_type_name(types)}, got {value!r}")
        return value

    def check_keys(self, allowed: Iterable[str]) -> None:
        allowed = set(allowed)
        for key in self.table:
            if key not in allowed:
                raise self.fail(key, f"unknown key; expected one of {', '.join(sorted(allowed))}")


def _type_name(types: type | tuple[type, ...]) -> str:
    ts = types if isinstance(types, tuple) else (types,)
    return " or ".join({"str": "a string", "int": "an integer", "float": "a number",
                        "dict": "a table", "list": "a list"}.get(t.__name__, t.__name__) for t in ts)


def _limits(r: _Reader, key: str) -> LimitSpec | None:
    table = r.get(key, dict)
    if table is None:
        return None
    sub = _Reader(r.path, table, f"{r.where}.{key}" if r.where else key)
    sub.check_keys(["time_s", "nodes", "memory_mb"])
    t = sub.get("time_s", (int, float))
    n = sub.get("nodes", int)
    m = sub.get("memory_mb", int)
    for k, v, high in (("time_s", t, 1e9), ("nodes", n, 2**62), ("memory_mb", m, 2**40)):
        if v is not None and not math.isfinite(v):
            raise sub.fail(k, f"must be a finite number, got {v}")
        if v is not None and v <= 0:
            raise sub.fail(k, f"must be positive, got {v}")
        if v is not None and v > high:
            raise sub.fail(k, f"must be at most {high:g}, got {v}")
    return LimitSpec(float(t) if t is not None else None, n, m)


def _names(r: _Reader, key: str, known: Sequence[str], what: str) -> tuple[str, ...] | None:
    value = r.get(key, list)
    if value is None:
        return None
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise r.fail(f"{key}[{i}]", f"expected a string, got {v!r}")
        if v not in known:
            raise r.fail(f"{key}[{i}]", f"unknown {what} {v!r}; known: {', '.join(known)}")
    return tuple(value)


def parse_suite(path: Path, data: dict[str, Any]) -> Suite:
    """Validate the TOML ``data`` of suite file ``path`` (registry names included)."""
    top = _Reader(path, data, "")
    top.check_keys(["suite", "limits", "instances", "configs", "profiles"])
    head = _Reader(path, top.get("suite", dict, required=True), "suite")
    head.check_keys(["name", "puzzle", "description", "figures"])
    name = head.get("name", str, required=True)
    puzzle = head.get("puzzle", str, required=True)
    try:
        pentry = registry.puzzle_entry(puzzle)
    except InputError as exc:
        raise head.fail("puzzle", str(exc)) from None
    figures = tuple(_names(head, "figures", FIGURE_NAMES, "figure") or ())
    limits = _limits(top, "limits") or LimitSpec()

    sets: dict[str, InstanceSetSpec] = {}
    for i, table in enumerate(top.get("instances", list, required=True)):
        r = _Reader(path, table, f"instances[{i}]")
        if not isinstance(table, dict):
            raise r.fail("", f"expected a table, got {table!r}")
        r.check_keys(["name", "source", "goal", "path", "format", "depth", "count", "seed",
                      "optimal", "fallback", "citation", "description"])
        sname = r.get("name", str, required=True)
        if sname in sets:
            raise r.fail("name", f"duplicate instance set {sname!r}")
        source = r.get("source", str, required=True)
        if source not in SOURCES:
            raise r.fail("source", f"expected one of {', '.join(SOURCES)}, got {source!r}")
        goal = r.get("goal", str)
        if goal is not None:
            if not pentry.props.get("goal_layouts"):
                raise r.fail("goal", f"{puzzle} has a single goal layout")
            if goal not in ("blank-first", "blank-last"):
                raise r.fail("goal", f"expected blank-first or blank-last, got {goal!r}")
        fmt = r.get("format", str)
        spath = r.get("path", str)
        if source == "file":
            if spath is None:
                raise r.fail("path", "missing (required for source = 'file')")
            if fmt not in FORMATS:
                raise r.fail("format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
            if not (INSTANCES_DIR / spath).is_file():
                raise r.fail("path", f"no such instance file {spath!r} in {INSTANCES_DIR}")
        depth = r.get("depth", (int, list), default=())
        depth = (depth,) if isinstance(depth, int) else tuple(depth)
        if any(not isinstance(d, int) or d < 0 for d in depth):
            raise r.fail("depth", f"expected non-negative integers, got {list(depth)!r}")
        count = r.get("count", int)
        if count is not None and count < 1:
            raise r.fail("count", f"must be at least 1, got {count}")
        if count is not None and count > 10**7:
            raise r.fail("count", f"must be at most 10000000, got {count}")
        if any(d > 10**6 for d in depth):
            raise r.fail("depth", f"must be at most 1000000, got {max(depth)}")
        if source in ("scramble", "uniform") and count is None:
            raise r.fail("count", f"missing (required for source = {source!r})")
        if source == "scramble" and not depth:
            raise r.fail("depth", "missing (required for source = 'scramble')")
        optimal = r.get("optimal", str, default="none")
        if not (optimal in OPTIMAL or optimal.startswith("exact:")):
            raise r.fail("optimal", f"expected one of {', '.join(OPTIMAL)} or exact:HEURISTIC, "
                                    f"got {optimal!r}")
        if optimal.startswith("exact:"):
            try:
                oentry = registry.heuristic_entry(optimal[6:])
            except InputError as exc:
                raise r.fail("optimal", str(exc)) from None
            if not oentry.props.get("exact"):
                exact = [n for n, e in registry.HEURISTICS.items() if e.props.get("exact")]
                raise r.fail("optimal", f"{optimal[6:]} is not an exact distance (an admissible "
                                        "estimate is a lower bound, not the optimum); exact: "
                                        + ", ".join(exact))
            if not registry.heuristic_supports(oentry, puzzle):
                raise r.fail("optimal", f"{optimal[6:]} does not apply to {puzzle}")
        seed = r.get("seed", int, default=0)
        if not 0 <= seed < 2**63:
            raise r.fail("seed", f"must be in [0, 2**63), got {seed}")
        sets[sname] = InstanceSetSpec(
            name=sname, source=source, goal=goal, path=spath, format=fmt, depth=depth,
            count=count, seed=seed, optimal=optimal,
            fallback=r.get("fallback", str), citation=r.get("citation", str, default=""),
            description=r.get("description", str, default=""),
        )
    for i, s in enumerate(sets.values()):
        if s.fallback is not None and s.fallback not in sets:
            raise InputError(f"{path.name}: instances[{i}].fallback: unknown instance set "
                             f"{s.fallback!r}; known: {', '.join(sets)}")

    configs: dict[str, ConfigSpec] = {}
    for i, table in enumerate(top.get("configs", list, required=True)):
        r = _Reader(path, table, f"configs[{i}]")
        if not isinstance(table, dict):
            raise r.fail("", f"expected a table, got {table!r}")
        r.check_keys(["name", "heuristic", "solver", "heuristic_args", "solver_args",
                      "instances", "limits", "description"])
        cname = r.get("name", str, required=True)
        if cname in configs:
            raise r.fail("name", f"duplicate configuration {cname!r}")
        h = r.get("heuristic", str, required=True)
        try:
            hentry = registry.heuristic_entry(h)
        except InputError as exc:
            raise r.fail("heuristic", str(exc)) from None
        if not registry.heuristic_supports(hentry, puzzle):
            raise r.fail("heuristic", f"{h} does not apply to {puzzle}")
        solver_name: str | None = r.get("solver", str, default=None)
        hargs = dict(r.get("heuristic_args", dict, default={}))
        sargs = dict(r.get("solver_args", dict, default={}))
        if solver_name is None:  # ida for heuristics with a kernel; a learned model's recommended search
            if hentry.props.get("needs_model"):
                from heuristics.davi.heuristic import recommended_search

                try:
                    rec = recommended_search(puzzle, hargs.get("model"))
                except InputError as exc:
                    raise r.fail("heuristic_args", str(exc)) from None
                solver_name = str(rec["solver"])
                sargs = {**rec["solver_args"], **sargs}
                hargs.setdefault("precision", rec["precision"])
            else:
                solver_name = "ida"
        try:
            sentry = registry.solver_entry(solver_name)
        except InputError as exc:
            raise r.fail("solver", str(exc)) from None
        options = sentry.props.get("options")
        if options is not None:
            for k in sargs:
                if k not in options:
                    raise r.fail("solver_args", f"{k!r} does not apply to {solver_name} (its "
                                                f"options: {', '.join(options) or 'none'})")
        configs[cname] = ConfigSpec(
            name=cname, heuristic=h, solver=solver_name,
            heuristic_args=hargs,
            solver_args=sargs,
            instance_sets=_names(r, "instances", list(sets), "instance set"),
            limits=_limits(r, "limits"), description=r.get("description", str, default=""),
        )

    profiles: dict[str, Profile] = {}
    ptable = top.get("profiles", dict, default={})
    for pname, table in ptable.items():
        r = _Reader(path, table, f"profiles.{pname}")
        if not isinstance(table, dict):
            raise r.fail("", "expected a table")
        r.check_keys(["instances", "configs", "limit", "limits", "description"])
        limit = r.get("limit", int)
        if limit is not None and limit < 1:
            raise r.fail("limit", f"must be at least 1, got {limit}")
        if limit is not None and limit > 10**9:
            raise r.fail("limit", f"must be at most 1000000000, got {limit}")
        profiles[pname] = Profile(
            name=pname, instance_sets=_names(r, "instances", list(sets), "instance set"),
            configs=_names(r, "configs", list(configs), "configuration"), limit=limit,
            limits=_limits(r, "limits"), description=r.get("description", str, default=""),
        )
    if "default" not in profiles:
        profiles["default"] = Profile("default")
    return Suite(name=name, puzzle=puzzle, path=path, description=head.get("description", str, default=""),
                 instance_sets=sets, configs=configs, limits=limits, profiles=profiles,
                 figures=figures)


def suite_paths() -> dict[str, Path]:
    """Shipped suite files by name (the file stem)."""
    return {p.stem: p for p in sorted(SUITES_DIR.glob("*.toml"))}


def load_suite(name_or_path: str | Path) -> Suite:
    """Load a shipped suite by name, or a suite file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        known = suite_paths()
        if str(name_or_path) not in known:
            import difflib

            close = difflib.get_close_matches(str(name_or_path), list(known), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"SUITE: unknown suite {str(name_or_path)!r}{hint}; "
                             f"known: {', '.join(known)}")
        path = known[str(name_or_path)]
    if not path.is_file():
        raise InputError(f"SUITE: no such suite file {str(path)!r}")
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path.name}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise InputError(f"SUITE: cannot read {str(path)!r}: {exc.strerror or exc}") from None
    return parse_suite(path, data)


# --------------------------------------------------------------------------- instance files
def _data_lines(path: Path) -> Iterable[tuple[int, str]]:
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield lineno, line


def header_comment(path: Path) -> str:
    """The leading ``#`` lines of an instance file (its citation)."""
    out = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        out.append(line[1:].strip())
    return " ".join(out)


_FACE_RE = re.compile(r"([URFDLB])([123]|2|'|-)?")


def maneuver_quarter_turns(text: str) -> list[tuple[str, int]]:
    """Parse a cube maneuver in any of the shipped notations into ``(face, quarter turns)``.

    ``X``/``X1`` clockwise, ``X'``/``X-``/``X3`` counter-clockwise (3 quarter turns), ``X2`` half.
    """
    out: list[tuple[str, int]] = []
    pos = 0
    compact = text.replace(" ", "")
    while pos < len(compact):
        m = _FACE_RE.match(compact, pos)
        if not m:
            raise InputError(f"maneuver: cannot read {compact[pos:pos + 8]!r}")
        face, suffix = m.group(1), m.group(2)
        turns = {None: 1, "1": 1, "2": 2, "3": 3, "'": 3, "-": 3}[suffix]
        out.append((face, turns))
        pos = m.end()
    return out


def maneuver_text(turns: Sequence[tuple[str, int]], metric: str) -> str:
    """Write ``(face, quarter turns)`` in Singmaster notation for ``metric`` ``qtm``/``htm``.

    In the quarter-turn metric a half turn is written as two quarter turns.
    """
    words = []
    for face, q in turns:
        if q == 1:
            words.append(face)
        elif q == 3:
            words.append(face + "'")
        elif metric == "qtm":
            words += [face, face]
        else:
            words.append(face + "2")
    return " ".join(words)


def _parse_file(spec: InstanceSetSpec, puzzle: Puzzle, path: Path) -> list[Instance]:
    """Read one instance file.

    ``tiles``:    ``id optimal t0 .. tN`` (tile at each position, 0 = blank)
    ``maneuver``: ``id maneuver`` or ``id optimal maneuver`` (from the solved cube)
    ``vcube``:    ``id optimal | scramble | solution``
    ``states``:   ``id optimal state`` (the puzzle's own text format; ``-`` = unknown optimal)
    """
    out: list[Instance] = []
    metric = "htm" if puzzle.num_actions in (9, 18) else "qtm"
    for lineno, line in _data_lines(path):
        where = f"{path.name}:{lineno}"
        parts = line.split()
        try:
            if spec.format == "tiles":
                iid, opt, tiles = parts[0], int(parts[1]), parts[2:]
                state = puzzle.parse(" ".join(tiles))
                meta: dict[str, Any] = {}
            elif spec.format == "maneuver":
                iid = parts[0]
                if len(parts) > 1 and parts[1].isascii() and parts[1].isdigit():
                    opt_: int | None = int(parts[1])
                    moves = " ".join(parts[2:])
                else:
                    opt_, moves = None, " ".join(parts[1:])
                state = puzzle.from_moves(puzzle.parse_moves(
                    maneuver_text(maneuver_quarter_turns(moves), metric)))
                meta = {"scramble": moves}
            elif spec.format == "vcube":
                head, scramble, solution = (x.strip() for x in line.split("|"))
                iid, opt_s = head.split()
                opt_ = int(opt_s)
                state = puzzle.from_moves(puzzle.parse_moves(
                    maneuver_text(maneuver_quarter_turns(scramble), metric)))
                meta = {"scramble": scramble, "published_solution": solution}
            else:  # states
                iid, opt_s, text = line.split(maxsplit=2)
                opt_ = None if opt_s == "-" else int(opt_s)
                state = puzzle.parse(text)
                meta = {}
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        except (ValueError, IndexError) as exc:
            raise InputError(f"{where}: malformed line ({exc})") from None
        if spec.format == "tiles":
            opt_ = opt
        if spec.optimal != "file":
            opt_ = None
        out.append(Instance(spec.name, iid, np.asarray(state, dtype=puzzle.dtype), opt_, meta))
    return out


def write_states_file(path: Path, puzzle: Puzzle, instances: Sequence[Instance], header: str) -> None:
    """Write instances in the ``states`` format (``id optimal state``), with a ``#`` header."""
    lines = [f"# {h}" for h in header.splitlines()]
    lines.append("# Columns: id optimal_length state (- = optimal length not known)")
    for inst in instances:
        opt = "-" if inst.optimal is None else str(inst.optimal)
        lines.append(f"{inst.id} {opt} {puzzle.format(inst.state)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------------------- DeepCubeA
def imported_dir() -> Path:
    """Where ``bench suite import-deepcubea`` writes converted test sets."""
    return cache_dir() / "instances" / "deepcubea"


def deepcubea_states(puzzle: Puzzle, kind: str, raw: np.ndarray) -> np.ndarray:
    """Convert DeepCubeA's raw state arrays ``(n, L')`` into ours ``(n, L)``.

    Uses the puzzle's ``from_deepcubea`` (method, or function in the puzzle's module) when it
    has one; sliding tiles and Lights Out store the same lists we parse (blank-last tiles; 0/1).
    """
    conv = getattr(puzzle, "from_deepcubea", None)
    if conv is None:
        import importlib

        module = importlib.import_module(type(puzzle).__module__)
        names = sorted(n for n in dir(module) if n.startswith("from_deepcubea"))
        wanted = {"cube3": ("cube",), "npuzzle": ("tiles",), "lights": ("lights",),
                  "lightsout": ("lights",)}.get(kind, ())
        names = [n for n in names if n == "from_deepcubea" or any(w in n[14:] for w in wanted)]
        conv = getattr(module, names[0]) if names else None
    if conv is not None:
        return np.asarray(conv(raw), dtype=puzzle.dtype)
    if kind == "cube3":
        raise InputError(f"{puzzle.name}: no converter from DeepCubeA's cube encoding "
                         "(puzzles.cube.from_deepcubea)")
    return np.stack([puzzle.parse(" ".join(str(int(v)) for v in row)) for row in raw])


def import_deepcubea(src: Path, puzzle_name: str, dest: Path | None = None) -> Path:
    """Convert DeepCubeA test set ``src`` (a ``test_data_*.pkl`` or its folder) to a states file."""
    from suites.importers.deepcubea import load_results, load_test_set

    if src.is_dir():
        src = src / "test_data_0.pkl"
    ts = load_test_set(src)
    goal = "blank-last" if registry.puzzle_entry(puzzle_name).props.get("goal_layouts") else None
    puzzle = registry.get_puzzle(puzzle_name, goal=goal)
    states = deepcubea_states(puzzle, ts.kind, ts.states)
    if states.shape[1] != puzzle.state_dim:
        raise InputError(f"{src}: states have {states.shape[1]} entries, {puzzle_name} needs "
                         f"{puzzle.state_dim}")
    for i, s in enumerate(states):
        try:
            puzzle.validate(s)
        except InputError as exc:
            raise InputError(f"{src}: state {i}: {exc}") from None
    instances = [Instance("deepcubea", str(i), s, None) for i, s in enumerate(states)]
    dest = dest or imported_dir() / f"{puzzle_name}.txt"
    header = (f"DeepCubeA test set for {puzzle_name} (Agostinelli et al. 2019), converted from {src.name}."
              f"\nGoal: {goal or 'the solved state'}.")
    write_states_file(dest, puzzle, instances, header)
    results = src.parent / "deepcubea_results_output.txt"
    if results.is_file():
        rows = load_results(results)
        (dest.with_suffix(".lengths")).write_text(
            "".join(f"{r['index']} {r['moves']} {r['nodes_generated']} {r['time_s']}\n" for r in rows))
    return dest


def deepcubea_source(puzzle_name: str) -> Path | None:
    """An imported states file for ``puzzle_name``, or the shared pickle, or None."""
    imported = imported_dir() / f"{puzzle_name}.txt"
    if imported.is_file():
        return imported
    shared = deepcubea_dir() / puzzle_name / "test_data_0.pkl"
    if shared.is_file():
        return shared
    return None


# --------------------------------------------------------------------------- loading sets
def make_puzzle(suite: Suite, spec: InstanceSetSpec) -> Puzzle:
    return registry.get_puzzle(suite.puzzle, goal=spec.goal)


def load_instances(suite: Suite, set_name: str, limit: int | None = None,
                   compute_optimal: bool = True) -> InstanceSet:
    """Materialize instance set ``set_name`` of ``suite`` (the first ``limit`` instances)."""
    spec = suite.instance_sets[set_name]
    puzzle = make_puzzle(suite, spec)
    if spec.source == "deepcubea":
        src = deepcubea_source(suite.puzzle)
        if src is None:
            if spec.fallback is None:
                raise InputError(f"{suite.path.name}: instance set {set_name}: DeepCubeA test set "
                                 f"for {suite.puzzle} not found (bench suite import-deepcubea PATH)")
            fb = load_instances(suite, spec.fallback, limit, compute_optimal)
            fb.origin += f" (fallback for {set_name}: DeepCubeA data absent)"
            return fb
        if src.suffix == ".pkl":
            from suites.importers.deepcubea import load_results, load_test_set

            ts = load_test_set(src)
            n = len(ts.states) if limit is None else min(limit, len(ts.states))
            states = deepcubea_states(puzzle, ts.kind, ts.states[:n])
            instances = [Instance(set_name, str(i), s, None) for i, s in enumerate(states)]
            res = src.parent / "deepcubea_results_output.txt"
            if res.is_file():
                for row in load_results(res):
                    if row["index"] < n:
                        instances[row["index"]].meta["published_length"] = row["moves"]
                        instances[row["index"]].meta["published_nodes"] = row["nodes_generated"]
        else:
            fspec = InstanceSetSpec(name=set_name, source="file", format="states", optimal="file")
            instances = _parse_file(fspec, puzzle, src)[:limit]
            lengths = src.with_suffix(".lengths")
            if lengths.is_file():
                pub = {p[0]: p for p in (ln.split() for ln in lengths.read_text().splitlines()) if p}
                for inst in instances:
                    if inst.id in pub:
                        inst.meta["published_length"] = int(pub[inst.id][1])
                        inst.meta["published_nodes"] = int(pub[inst.id][2])
        origin = str(src)
    elif spec.source == "file":
        path = INSTANCES_DIR / str(spec.path)
        instances = _parse_file(spec, puzzle, path)[:limit]
        origin = str(path)
    elif spec.source == "scramble":
        instances = []
        count = int(spec.count or 0)
        per = count if limit is None else min(count, max(1, -(-limit // len(spec.depth))))
        for depth in spec.depth:
            rng = np.random.default_rng([spec.seed, depth])
            states, moves = puzzle.scramble(count, depth, rng)
            for i in range(per):
                instances.append(Instance(set_name, f"d{depth}-{i}", states[i], None,
                                          {"depth": depth,
                                           "scramble": puzzle.format_moves(moves[i])}))
        instances = instances[:limit]
        origin = f"scramble(depth={list(spec.depth)}, count={count}, seed={spec.seed})"
    else:  # uniform
        rng = np.random.default_rng(spec.seed)
        count = int(spec.count or 0)
        states = puzzle.random_states(count, rng)
        n = count if limit is None else min(limit, count)
        instances = [Instance(set_name, str(i), states[i], None) for i in range(n)]
        origin = f"uniform(count={count}, seed={spec.seed})"
    if compute_optimal:
        set_optimal(puzzle, spec, instances)
    return InstanceSet(spec, suite.puzzle, spec.goal, instances, origin)


def set_optimal(puzzle: Puzzle, spec: InstanceSetSpec, instances: list[Instance]) -> None:
    """Fill ``Instance.optimal`` from the set's ``optimal`` rule (leaves None when unknown)."""
    if not instances:
        return
    rule = spec.optimal
    if rule == "table":
        from puzzles.exhaustive import table_distances

        states = np.stack([i.state for i in instances])
        table = table_distances(puzzle, states)
        dist = table if table is not None else bfs_distances(puzzle, states)  # no table: BFS
        for inst, d in zip(instances, dist, strict=True):
            inst.optimal = int(d) if d >= 0 else None
    elif rule == "bfs":
        dist = bfs_distances(puzzle, np.stack([i.state for i in instances]))
        for inst, d in zip(instances, dist, strict=True):
            inst.optimal = int(d) if d >= 0 else None
    elif rule == "gf2":
        from solvers.gf2 import gf2_optimal_lengths

        lengths = gf2_optimal_lengths(puzzle, np.stack([i.state for i in instances]))
        for inst, d in zip(instances, lengths, strict=True):
            inst.optimal = int(d)
    elif rule.startswith("exact:"):
        h = registry.get_heuristic(rule[6:], puzzle)
        values = np.asarray(h(np.stack([i.state for i in instances])))
        for inst, v in zip(instances, values, strict=True):
            inst.optimal = int(v)


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
