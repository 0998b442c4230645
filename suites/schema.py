"""Suite files (``suites/*.toml``): their schema, parsed and validated.

A suite names one puzzle, its instance sets, its configurations (heuristic x solver x
parameters), per-instance limits and profiles. ``load_suite`` parses and validates a file;
every fault is an ``InputError`` that names the file and the key. Each configuration is
resolved as ``bench solve`` resolves its arguments (``core.resolve.resolve``: names, options
and limits checked against the registry's declarations, kept as checked), and a bad value is
refused with the words the command line uses, after the file and the key. The
instance sources are in ``suites.sources``, the rules for reference optimal lengths in
``suites.reference``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from core.limits import MIB, Limits
from core.resolve import ArgumentError, ResolvedConfig, check_limits, config_params, resolve
from suites.reference import check_rule

SUITES_DIR = Path(__file__).resolve().parent
INSTANCES_DIR = SUITES_DIR / "instances"

SOURCES = ("file", "scramble", "uniform", "deepcubea")
FORMATS = ("tiles", "maneuver", "vcube", "states")
#: the figures a suite may name (``bench.plots.FIGURES``, which imports matplotlib)
FIGURE_NAMES = ("bwas-strips", "excess", "nodes-vs-length", "scatter", "coverage", "by-depth")


# --------------------------------------------------------------------------- specs
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
    rotations: bool = False  # maneuver files: each maneuver's conjugates under the cube's rotations
    #: DeepCubeA sets: keep, among the first ``count`` states, those whose reference optimal
    #: solver generated fewer nodes than this (its pickle's ``num_nodes_generated``)
    solver_nodes_below: float | None = None
    file: Path | None = None  # the instance file ``path`` names, resolved and checked


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def is_plain_name(name: str) -> bool:
    """Whether ``name`` is one safe path component: letters, digits, ``.``, ``_`` and ``-``,
    starting with a letter or digit, at most 100 characters (never ``/``, ``.`` or ``..``)."""
    return bool(_PLAIN.fullmatch(name))


def instance_file(suite_path: Path, spath: str) -> Path | str:
    """The instance file ``spath`` names (relative to ``suites/instances/``, else to the suite
    file's folder), resolved: a path, or why it cannot be used. Instance files are read only
    inside the checkout, the shared data folder or the suite file's folder; a path that leads
    elsewhere (an absolute path, ``..``, a symlink) is refused, and never read."""
    from core.paths import shared_dir

    if not spath or "\0" in spath:
        return "not a file name"
    roots = [SUITES_DIR.parent, shared_dir(), Path(suite_path).parent]
    candidates = [INSTANCES_DIR / spath, Path(suite_path).parent / spath]
    outside = Path(spath).is_absolute() or ".." in Path(spath).parts
    for c in candidates:
        try:
            real = c.resolve()
        except (OSError, RuntimeError):
            continue
        if not any(real.is_relative_to(r.resolve()) for r in roots):
            outside = outside or real.exists()
            continue
        if real.is_file():
            return real
    if outside:
        return (f"{spath!r} lies outside the checkout, the shared data folder and the suite's "
                "folder (instance files are read only there)")
    return f"no such instance file {spath!r} in {INSTANCES_DIR} or the suite's folder"


@dataclass(frozen=True)
class ConfigSpec:
    name: str
    heuristic: str
    solver: str
    heuristic_args: dict[str, Any] = field(default_factory=dict)
    solver_args: dict[str, Any] = field(default_factory=dict)
    instance_sets: tuple[str, ...] | None = None
    limits: Limits | None = None
    description: str = ""

    @classmethod
    def from_resolved(cls, name: str, cfg: ResolvedConfig,
                      instance_sets: tuple[str, ...] | None = None, limits: Limits | None = None,
                      description: str = "") -> ConfigSpec:
        """The configuration ``name`` of a suite that runs ``cfg`` (``limits``: its own, over
        the suite's and the profile's; ``None``: theirs)."""
        return cls(name=name, heuristic=cfg.heuristic, solver=cfg.solver,
                   heuristic_args=dict(cfg.heuristic_args), solver_args=dict(cfg.solver_args),
                   instance_sets=instance_sets, limits=limits, description=description)

    def params(self) -> dict[str, Any]:
        """The row's ``params`` (before JSON): ``h.OPTION`` and ``s.OPTION`` values."""
        return config_params(self.heuristic_args, self.solver_args)


@dataclass(frozen=True)
class Profile:
    name: str
    instance_sets: tuple[str, ...] | None = None
    configs: tuple[str, ...] | None = None
    limit: int | None = None
    limits: Limits | None = None
    description: str = ""


@dataclass(frozen=True)
class Suite:
    name: str
    puzzle: str
    path: Path
    description: str
    instance_sets: dict[str, InstanceSetSpec]
    configs: dict[str, ConfigSpec]
    limits: Limits
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
                        "dict": "a table", "list": "a list", "bool": "true or false"}.get(t.__name__, t.__name__) for t in ts)


def _limits_table(r: _Reader, key: str) -> dict[str, Any] | None:
    """The ``key`` table of limits, typed as a suite file writes them (their bounds are checked
    by the declared options: ``core.resolve.check_limits``)."""
    table = r.get(key, dict)
    if table is None:
        return None
    sub = _Reader(r.path, table, f"{r.where}.{key}" if r.where else key)
    sub.check_keys(["time_s", "nodes", "memory_mb"])
    return {"time_s": sub.get("time_s", (int, float)), "nodes": sub.get("nodes", int),
            "memory_mb": sub.get("memory_mb", int)}


def _limits(r: _Reader, key: str) -> Limits | None:
    table = _limits_table(r, key)
    if table is None:
        return None
    try:
        return check_limits(table)
    except ArgumentError as exc:
        raise r.fail(f"{key}.{exc.argument.removeprefix('limits.')}", exc.detail) from None


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
    if not is_plain_name(name):
        raise head.fail("name", f"{name!r} is not a plain name (letters, digits, '.', '_', "
                                "'-'; it names the run folder)")
    puzzle = head.get("puzzle", str, required=True)
    try:
        pentry = registry.puzzle_entry(puzzle)
    except InputError as exc:
        raise head.fail("puzzle", str(exc)) from None
    figures = tuple(_names(head, "figures", FIGURE_NAMES, "figure") or ())
    limits = _limits(top, "limits") or Limits()

    sets: dict[str, InstanceSetSpec] = {}
    for i, table in enumerate(top.get("instances", list, required=True)):
        r = _Reader(path, table, f"instances[{i}]")
        if not isinstance(table, dict):
            raise r.fail("", f"expected a table, got {table!r}")
        r.check_keys(["name", "source", "goal", "path", "format", "depth", "count", "seed",
                      "optimal", "fallback", "citation", "description", "rotations",
                      "solver_nodes_below"])
        sname = r.get("name", str, required=True)
        if sname in sets:
            raise r.fail("name", f"duplicate instance set {sname!r}")
        source = r.get("source", str, required=True)
        if source not in SOURCES:
            raise r.fail("source", f"expected one of {', '.join(SOURCES)}, got {source!r}")
        goal = r.get("goal", str)
        if goal is not None:
            goal_option = pentry.option("goal")
            if goal_option is None or not pentry.props.goal_layouts:
                raise r.fail("goal", f"{puzzle} has a single goal layout")
            try:
                goal_option.check(goal)
            except InputError as exc:
                raise r.fail("goal", str(exc).split(": ", 1)[1]) from None
            if goal == "korf1982" and puzzle != "puzzle8":
                raise r.fail("goal", f"korf1982 is an 8-puzzle layout, not one of {puzzle}")
        fmt = r.get("format", str)
        spath = r.get("path", str)
        found: Path | str | None = None
        if source == "file":
            if spath is None:
                raise r.fail("path", "missing (required for source = 'file')")
            if fmt not in FORMATS:
                raise r.fail("format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
            found = instance_file(path, spath)
            if isinstance(found, str):
                raise r.fail("path", found)
        rotations = r.get("rotations", bool, default=False)
        if rotations and (source != "file" or fmt != "maneuver"):
            raise r.fail("rotations", "applies to source = 'file' with format = 'maneuver' only")
        depth = r.get("depth", (int, list), default=())
        depth = (depth,) if isinstance(depth, int) else tuple(depth)
        if any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in depth):
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
        below = r.get("solver_nodes_below", (int, float))
        if below is not None:
            if source != "deepcubea":
                raise r.fail("solver_nodes_below", "applies to source = 'deepcubea' only")
            if isinstance(below, bool) or not below > 0:
                raise r.fail("solver_nodes_below", f"must be a number > 0, got {below!r}")
        optimal = r.get("optimal", str, default="none")
        fault = check_rule(optimal, puzzle)
        if fault is not None:
            raise r.fail("optimal", fault)
        seed = r.get("seed", int, default=0)
        if not 0 <= seed < 2**63:
            raise r.fail("seed", f"must be in [0, 2**63), got {seed}")
        sets[sname] = InstanceSetSpec(
            name=sname, source=source, goal=goal, path=spath,
            file=found if source == "file" and isinstance(found, Path) else None,
            format=fmt, depth=depth,
            count=count, seed=seed, optimal=optimal,
            fallback=r.get("fallback", str), citation=r.get("citation", str, default=""),
            description=r.get("description", str, default=""), rotations=rotations,
            solver_nodes_below=None if below is None else float(below),
        )
    for i, s in enumerate(sets.values()):
        if s.fallback is not None and s.fallback not in sets:
            raise InputError(f"{path.name}: instances[{i}].fallback: unknown instance set "
                             f"{s.fallback!r}; known: {', '.join(sets)}")
        chain = [s.name]  # a fallback's fallback, ... must end: no set falls back on itself
        while sets[chain[-1]].fallback is not None:
            nxt = sets[chain[-1]].fallback
            assert nxt is not None
            if nxt in chain:
                loop = " -> ".join([*chain[chain.index(nxt):], nxt])
                raise InputError(f"{path.name}: instances[{i}].fallback: the fallbacks form a "
                                 f"cycle ({loop}); a chain of fallbacks must end in a set "
                                 "without one")
            chain.append(nxt)

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
        try:
            cfg = resolve(puzzle, r.get("heuristic", str, default=None),
                          dict(r.get("heuristic_args", dict, default={})),
                          r.get("solver", str, default=None),
                          dict(r.get("solver_args", dict, default={})),
                          _limits_table(r, "limits"))
        except ArgumentError as exc:
            raise r.fail(exc.argument, exc.detail) from None
        configs[cname] = ConfigSpec.from_resolved(
            cname, cfg, instance_sets=_names(r, "instances", list(sets), "instance set"),
            limits=cfg.limits if "limits" in table else None,
            description=r.get("description", str, default=""))

    profiles: dict[str, Profile] = {}
    ptable = top.get("profiles", dict, default={})
    for pname, table in ptable.items():
        r = _Reader(path, table, f"profiles.{pname}")
        if not is_plain_name(pname):
            raise r.fail("", f"{pname!r} is not a plain profile name (letters, digits, '.', "
                             "'_', '-'; it names the run folder)")
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
    except RecursionError:
        raise InputError(f"{path.name}: arrays or tables nested too deeply for a suite file"
                         ) from None
    except OSError as exc:
        raise InputError(f"SUITE: cannot read {str(path)!r}: {exc.strerror or exc}") from None
    return parse_suite(path, data)


# --------------------------------------------------------------------------- suites built in code
def _limits_data(limits: Limits) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if limits.time_s is not None:
        out["time_s"] = limits.time_s
    if limits.nodes is not None:
        out["nodes"] = limits.nodes
    if limits.memory_bytes is not None:
        out["memory_mb"] = limits.memory_bytes // MIB
    return out


def _set_data(s: InstanceSetSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": s.name, "source": s.source}
    optional: dict[str, Any] = {
        "goal": s.goal, "path": s.path, "format": s.format,
        "depth": list(s.depth) if s.depth else None, "count": s.count,
        "seed": s.seed if s.seed else None, "optimal": s.optimal if s.optimal != "none" else None,
        "fallback": s.fallback, "citation": s.citation or None,
        "description": s.description or None, "rotations": s.rotations or None,
        "solver_nodes_below": s.solver_nodes_below}
    out.update({k: v for k, v in optional.items() if v is not None})
    return out


def _config_data(c: ConfigSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "heuristic": c.heuristic, "solver": c.solver}
    if c.heuristic_args:
        out["heuristic_args"] = dict(c.heuristic_args)
    if c.solver_args:
        out["solver_args"] = dict(c.solver_args)
    if c.instance_sets is not None:
        out["instances"] = list(c.instance_sets)
    if c.limits is not None:
        out["limits"] = _limits_data(c.limits)
    if c.description:
        out["description"] = c.description
    return out


def _profile_data(p: Profile) -> dict[str, Any]:
    optional: dict[str, Any] = {
        "instances": list(p.instance_sets) if p.instance_sets is not None else None,
        "configs": list(p.configs) if p.configs is not None else None, "limit": p.limit,
        "limits": _limits_data(p.limits) if p.limits is not None else None,
        "description": p.description or None}
    return {k: v for k, v in optional.items() if v is not None}


def suite_data(suite: Suite) -> dict[str, Any]:
    """The tables of ``suite`` as a suite file holds them (``parse_suite`` reads them back into
    an equal ``Suite``)."""
    head: dict[str, Any] = {"name": suite.name, "puzzle": suite.puzzle}
    if suite.description:
        head["description"] = suite.description
    if suite.figures:
        head["figures"] = list(suite.figures)
    data: dict[str, Any] = {"suite": head}
    limits = _limits_data(suite.limits)
    if limits:
        data["limits"] = limits
    data["instances"] = [_set_data(s) for s in suite.instance_sets.values()]
    data["configs"] = [_config_data(c) for c in suite.configs.values()]
    data["profiles"] = {name: _profile_data(p) for name, p in suite.profiles.items()}
    return data


def check_suite(suite: Suite) -> Suite:
    """``suite``, built in code, validated as a suite file of it would be (registry names,
    options, instance sets), with its arguments checked and completed the same way; faults are
    one-line ``InputError`` naming ``suite.path`` and the key."""
    return parse_suite(suite.path, suite_data(suite))


def toml_value(value: Any) -> str:
    """One TOML value: a boolean, number, string, list or inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        import json

        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def suite_toml(suite: Suite, comment: str = "") -> str:
    """The text of a suite file of ``suite`` (``load_suite`` of it gives an equal suite), with
    ``comment`` as its first line."""
    data = suite_data(suite)
    lines = [f"# {comment}"] if comment else []

    def table(name: str, values: dict[str, Any]) -> None:
        lines.append(name)
        lines.extend(f"{k} = {toml_value(v)}" for k, v in values.items())
        lines.append("")

    table("[suite]", data["suite"])
    if "limits" in data:
        table("[limits]", data["limits"])
    for s in data["instances"]:
        table("[[instances]]", s)
    for c in data["configs"]:
        table("[[configs]]", c)
    for name, p in data["profiles"].items():
        key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else toml_value(name)
        table(f"[profiles.{key}]", p)
    return "\n".join(lines)
