"""Plugins: puzzles, heuristics and solvers that other installed packages declare.

A package registers its entries under the entry-point groups of :data:`GROUPS`
(``heuristic_bench.puzzles``, ``heuristic_bench.heuristics``, ``heuristic_bench.solvers``). An
entry point names an object declared with the registry's own types: a
:class:`core.registry.Entry` (whose name is then the entry point's name) or a list or tuple of
them. The group ``heuristic_bench.encodings`` names network input encodings: functions
``encode(puzzle, states (B, L)) -> (B, L')`` that an ONNX model's card may name
(:mod:`heuristics.onnx`); they are imported only when a model uses them.

:func:`load` reads the installed entry points (``importlib.metadata``) and adds what they declare
to the registry's tables, each entry marked with the package that provides it
(``Entry.plugin``). An entry's properties are its kind's class of :mod:`core.props`, or a plain
dict of the same keys (converted; an unknown key leaves the entry out). Nothing else is imported: an entry's ``target`` loads only when it is
made, as for the built-ins, so a plugin's declaration module should import no more than
``core.registry``. A plugin whose declarations cannot be imported (an exception, ``sys.exit``, an
interrupt, output on stdout, or an import past :data:`IMPORT_DEADLINE_S` seconds:
:func:`guarded`), that declares something other than a valid ``Entry``, or whose names clash
with the built-ins' (or another plugin's) is left out and reported as one :class:`Problem`
naming its package; the rest keeps working. ``bench --help`` and ``bench --version`` load no
plugins.

Code never comes from anywhere but installed entry points: a suite file names entries, it
never imports modules. ``HEURISTIC_BENCH_NO_PLUGINS=1`` in the environment loads none.

This module imports nothing from ``core.registry`` (which calls it): the registry hands its
tables and types in (the property classes come from :mod:`core.props`).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import math
import os
import re
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from core import props
from core.entry import SIZED

#: registry kind -> entry-point group
GROUPS: dict[str, str] = {
    "puzzle": "heuristic_bench.puzzles",
    "heuristic": "heuristic_bench.heuristics",
    "solver": "heuristic_bench.solvers",
}
#: the group of network input encodings (functions, loaded when a model names one)
ENCODING_GROUP = "heuristic_bench.encodings"
#: set to 1 to load no plugins
DISABLE_ENV = "HEURISTIC_BENCH_NO_PLUGINS"

#: names of entries and encodings: lower-case letters, digits, ``.``, ``_``, ``-``
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$", re.ASCII)
#: option names: Python identifiers in lower case (the flag is ``--`` + name with ``-`` for ``_``)
OPTION_RE = re.compile(r"^[a-z][a-z0-9_]{0,40}$", re.ASCII)
TARGET_RE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$", re.ASCII)
OPTION_KINDS = (int, float, bool, str)
#: option names the commands that take registry options use for themselves (``bench solve``,
#: ``bench view``, ``bench train evaluate``): a plugin option of that name would shadow them
RESERVED_OPTIONS = frozenset({
    "puzzle", "state", "states", "moves", "scramble", "goal", "heuristic", "heuristic_name",
    "solver", "solver_name", "time_limit", "node_limit", "memory_limit", "json", "as_json",
    "compare", "port", "host", "no_browser", "target", "set", "state_set", "count", "seed",
    "threads", "out", "run_dir", "resume", "optimal_heuristic", "help", "version", "config",
    "profile", "quick", "limit", "jobs", "executor", "scheduler", "quiet",
})


@dataclass(frozen=True)
class Problem:
    """A plugin declaration left out: the package, the entry point and why (one line)."""

    package: str
    group: str
    entry_point: str
    reason: str

    def __str__(self) -> str:
        return (f"plugin {self.package}: {self.group} entry point {self.entry_point!r} "
                f"ignored: {self.reason}")


@dataclass
class Loaded:
    """What :func:`load` found: the problems and the plugin encodings (name -> entry point)."""

    problems: list[Problem] = field(default_factory=list)
    encodings: dict[str, Any] = field(default_factory=dict)
    #: (kind, name) -> package, for every entry added
    providers: dict[tuple[str, str], str] = field(default_factory=dict)


class BadEntry(Exception):
    """One declaration refused (its message is the reason)."""


def package_of(ep: Any) -> str:
    """The distribution that provides entry point ``ep`` (its top-level module without one)."""
    dist = getattr(ep, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    if not name and dist is not None:
        try:
            name = dist.metadata["Name"]
        except Exception:  # noqa: BLE001 - a distribution without readable metadata
            name = None
    return str(name) if name else str(getattr(ep, "value", "?")).split(":")[0].split(".")[0]


def entry_points(group: str, installed: Any = None) -> list[Any]:
    """The installed entry points of ``group``, deduplicated by (name, value), in a stable
    order (a package installed twice on the path is seen once). ``installed``: what
    ``importlib.metadata.entry_points()`` returned, to read several groups from one pass over
    the installed packages' metadata; by default the packages are read for this group alone."""
    seen: set[tuple[str, str]] = set()
    out = []
    found = (importlib.metadata.entry_points(group=group) if installed is None
             else installed.select(group=group))
    for ep in found:
        key = (ep.name, ep.value)
        if key not in seen:
            seen.add(key)
            out.append(ep)
    return sorted(out, key=lambda e: (e.name, e.value))


def _read_once() -> Callable[[str], list[Any]]:
    """:func:`entry_points` for :func:`load`'s groups, the installed packages read once (each
    reading of every package's metadata costs tens of milliseconds at every start)."""
    installed: list[Any] = []

    def read(group: str) -> list[Any]:
        if not installed:
            installed.append(importlib.metadata.entry_points())
        return entry_points(group, installed[0])

    return read


#: seconds one plugin's declaration module may take to import (``DEADLINE_ENV`` overrides)
IMPORT_DEADLINE_S = 30.0
DEADLINE_ENV = "HEURISTIC_BENCH_PLUGIN_TIMEOUT"


class _Deadline(BaseException):
    """Raised into a plugin's import when its deadline passes (a ``BaseException``, so the
    plugin's own ``except Exception`` does not swallow it)."""


def _deadline_s() -> float:
    try:
        value = float(os.environ.get(DEADLINE_ENV, "") or IMPORT_DEADLINE_S)
    except ValueError:
        return IMPORT_DEADLINE_S
    return value if math.isfinite(value) and value > 0 else IMPORT_DEADLINE_S


def guarded(what: str, fn: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(fn(), None)``, or ``(None, why)`` when ``fn`` (a plugin's import or declaration
    function) raises anything (``SystemExit`` and ``KeyboardInterrupt`` included), writes to
    standard output (which belongs to the command's own output, ``--json``), or runs past
    :data:`IMPORT_DEADLINE_S` seconds. The deadline is a ``SIGALRM`` timer, so it applies in
    the main thread of a POSIX process where no other real-time timer runs, and interrupts
    Python code, not a long call into C."""
    captured = io.StringIO()
    # the deadline needs the main thread and a real-time timer nobody else has set
    timer = threading.current_thread() is threading.main_thread() \
        and hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    limit = _deadline_s()
    previous: Any = None

    def expire(_signum: int, _frame: Any) -> None:
        raise _Deadline

    try:
        if timer:
            previous = signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            with contextlib.redirect_stdout(captured):
                value = fn()
        finally:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
    except _Deadline:
        return None, f"{what} did not finish within {limit:g} s"
    except SystemExit as exc:
        return None, f"{what} called sys.exit({exc.code!r})"
    except KeyboardInterrupt:
        return None, f"{what} was interrupted (KeyboardInterrupt)"
    except Exception as exc:  # noqa: BLE001 - whatever a plugin's code raises
        return None, f"{what} failed ({_one_line(exc)})"
    printed = captured.getvalue()
    if printed:
        first = " ".join(printed.split())
        return None, (f"{what} wrote {len(printed)} characters to standard output "
                      f"({first[:40]!r}); a declaration module must not print")
    return value, None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _check_option(o: Any, option_cls: Any, kind: str, tables: Mapping[str, Mapping[str, Any]]
                  ) -> None:
    if not isinstance(o, option_cls):
        raise BadEntry(f"an option is a {type(o).__name__}, not a core.registry.Option")
    if not isinstance(o.name, str) or not OPTION_RE.match(o.name):
        raise BadEntry(f"option name {o.name!r} is not a lower-case identifier")
    if o.name in RESERVED_OPTIONS:
        raise BadEntry(f"option {o.name!r} would shadow the command line's own --"
                       f"{o.name.replace('_', '-')}")
    if o.kind not in OPTION_KINDS:
        raise BadEntry(f"option {o.name!r} has kind {o.kind!r}; expected int, float, bool or str")
    if not isinstance(o.help, str) or not o.help.strip():
        raise BadEntry(f"option {o.name!r} has no help text")
    if o.choices is not None and (o.kind is not str or not o.choices
                                  or not all(isinstance(c, str) for c in o.choices)):
        raise BadEntry(f"option {o.name!r}: choices must be a non-empty tuple of strings")
    for other_kind, table in tables.items():
        for e in table.values():
            same = e.option(o.name)
            if same is None:
                continue
            if other_kind != kind:
                raise BadEntry(f"option {o.name!r} is already a {other_kind} option "
                               f"(of {e.name}); a flag serves one kind")
            if same.kind is not o.kind:
                raise BadEntry(f"option {o.name!r} is declared by {e.name} as "
                               f"{same.kind.__name__}, here as {o.kind.__name__}")


def _check_entry(e: Any, kind: str, entry_cls: Any, option_cls: Any,
                 tables: Mapping[str, Mapping[str, Any]], builtin: Mapping[str, set[str]],
                 package: str) -> Any:
    """``e`` checked and completed (its props as its kind's class, ``plugin``); ``BadEntry``
    otherwise."""
    if not isinstance(e, entry_cls):
        raise BadEntry(f"declares a {type(e).__name__}, not a core.registry.Entry")
    if not isinstance(e.name, str) or not NAME_RE.match(e.name):
        raise BadEntry(f"entry name {e.name!r} is not a lower-case name (letters, digits, . _ -)")
    # a puzzle name the registry makes from a size (``lightsout9``, ``sokoban12``) is built in
    if e.name in builtin[kind] or (kind == "puzzle" and any(sized.claims(e.name)
                                                          for sized in SIZED)):
        raise BadEntry(f"{e.name!r} clashes with the built-in {kind} of that name")
    if kind == "heuristic" and any(e.name in t.props.aliases for t in tables[kind].values()):
        raise BadEntry(f"{e.name!r} is another name of a declared heuristic")
    if e.name in tables[kind]:
        owner = tables[kind][e.name].plugin or "?"
        raise BadEntry(f"{e.name!r} is already declared by plugin {owner}")
    if not isinstance(e.target, str) or not TARGET_RE.match(e.target):
        raise BadEntry(f"{e.name}: target {e.target!r} is not 'module:attribute'")
    if not isinstance(e.summary, str) or not e.summary.strip():
        raise BadEntry(f"{e.name}: no summary")
    if not isinstance(e.kwargs, dict):
        raise BadEntry(f"{e.name}: kwargs must be a dict")
    if not isinstance(e.options, tuple):
        raise BadEntry(f"{e.name}: options must be a tuple of core.registry.Option")
    names = [o.name for o in e.options if isinstance(o, option_cls)]
    if len(set(names)) != len(names):
        raise BadEntry(f"{e.name}: an option is declared twice")
    for o in e.options:
        _check_option(o, option_cls, kind, tables)
    cls = props.PROPS[kind]
    given: Any = {} if e.props is None else e.props
    if isinstance(given, dict):
        try:
            given = props.from_dict(kind, given)
        except (TypeError, ValueError) as exc:
            raise BadEntry(f"{e.name}: {exc}") from None
    if not isinstance(given, cls):
        raise BadEntry(f"{e.name}: props must be a core.props.{cls.__name__} or a dict, "
                       f"not a {type(given).__name__}")
    if kind == "puzzle":
        if e.options:
            raise BadEntry(f"{e.name}: puzzles take no options; declare one entry per variant "
                           "(fixed arguments go in kwargs)")
        if not isinstance(given.family, str):
            raise BadEntry(f"{e.name}: props family must be a string")
        bounds = given.bounds
        if isinstance(bounds, str) or not all(isinstance(b, str) for b in bounds):
            raise BadEntry(f"{e.name}: props bounds must be a tuple of heuristic names")
        if not isinstance(given.search_heuristic, str):
            raise BadEntry(f"{e.name}: props search_heuristic must be a heuristic name")
        width = given.beam_width
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise BadEntry(f"{e.name}: props beam_width must be a positive integer")
        # --goal is the sliding tiles' option
        given = replace(given, family=given.family or e.name, bounds=tuple(bounds),
                        goal_layouts=False)
    else:
        spec = given.puzzles
        if not (isinstance(spec, str) or (isinstance(spec, tuple | list) and spec
                                          and all(isinstance(p, str) for p in spec))):
            raise BadEntry(f"{e.name}: props puzzles must be a name, 'prefix*' or a tuple "
                           "of them")
        given = replace(given, puzzles=spec if isinstance(spec, str) else tuple(spec))
        flags = [f.name for f in fields(given) if isinstance(f.default, bool)]
        given = replace(given, **{k: bool(getattr(given, k)) for k in flags})
    if kind == "heuristic":
        aliases = given.aliases
        if isinstance(aliases, str) or not all(isinstance(a, str) and NAME_RE.match(a)
                                               for a in aliases):
            raise BadEntry(f"{e.name}: props aliases must be a tuple of lower-case names")
        taken = [a for a in aliases if a in tables[kind] or any(
            a in t.props.aliases for t in tables[kind].values())]
        if taken:
            raise BadEntry(f"{e.name}: alias {taken[0]!r} already names a heuristic")
        given = replace(given, aliases=tuple(aliases))
    return replace(e, props=given, plugin=package)


def load(tables: Mapping[str, dict[str, Any]], entry_cls: Any, option_cls: Any,
         entry_points_fn: Callable[[str], list[Any]] | None = None) -> Loaded:
    """Add every plugin entry to ``tables`` (kind -> the registry's dict of that kind, changed
    in place); the problems and plugin encodings come back. Puzzles load first, so a plugin
    heuristic may name a plugin puzzle."""
    found = Loaded()
    if os.environ.get(DISABLE_ENV, "").strip() not in ("", "0"):
        return found
    if entry_points_fn is None:
        entry_points_fn = _read_once()
    builtin = {kind: set(table) for kind, table in tables.items()}
    for kind, group in GROUPS.items():
        try:
            eps = entry_points_fn(group)
        except Exception as exc:  # noqa: BLE001 - broken metadata of some installed package
            found.problems.append(Problem("?", group, "*", f"reading entry points failed "
                                                           f"({_one_line(exc)})"))
            continue
        for ep in eps:
            package = package_of(ep)
            obj, why = guarded(f"importing {ep.value}", ep.load)
            if why is not None:
                found.problems.append(Problem(package, group, ep.name, why))
                continue
            if callable(obj) and not isinstance(obj, entry_cls | list | tuple | type):
                obj, why = guarded(f"calling {ep.value}", obj)
                if why is not None:
                    found.problems.append(Problem(package, group, ep.name, why))
                    continue
            many = isinstance(obj, list | tuple)
            entries = list(obj) if many else [obj]
            if many and not entries:
                found.problems.append(Problem(package, group, ep.name, "declares no entries"))
            for e in entries:
                try:
                    checked = _check_entry(e, kind, entry_cls, option_cls, tables, builtin,
                                           package)
                    if not many and checked.name != ep.name:
                        raise BadEntry(f"the entry point is named {ep.name!r}, its Entry "
                                       f"{e.name!r} (name them alike, or point at a list)")
                except BadEntry as exc:
                    found.problems.append(Problem(package, group, ep.name, str(exc)))
                    continue
                except Exception as exc:  # noqa: BLE001 - a declaration whose fields break a check
                    found.problems.append(Problem(package, group, ep.name,
                                                  f"checking it failed ({_one_line(exc)})"))
                    continue
                tables[kind][checked.name] = checked
                found.providers[(kind, checked.name)] = package
    try:
        eps = entry_points_fn(ENCODING_GROUP)
    except Exception as exc:  # noqa: BLE001
        eps = []
        found.problems.append(Problem("?", ENCODING_GROUP, "*",
                                      f"reading entry points failed ({_one_line(exc)})"))
    for ep in eps:
        package = package_of(ep)
        if not NAME_RE.match(ep.name):
            found.problems.append(Problem(package, ENCODING_GROUP, ep.name,
                                          "not a lower-case name (letters, digits, . _ -)"))
        elif ep.name in found.encodings:
            found.problems.append(Problem(package, ENCODING_GROUP, ep.name,
                                          f"already declared by {package_of(found.encodings[ep.name])}"))
        else:
            found.encodings[ep.name] = ep
    return found
