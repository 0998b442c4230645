"""One registry per kind (puzzles, heuristics, solvers) naming every plugin, with its options.

Every puzzle, heuristic and solver is declared beside its class (``puzzles/declarations.py``,
``heuristics/declarations.py``, ``solvers/declarations.py``: the modules
:data:`BUILTIN_DECLARATIONS` names, read when this module is imported, the form a plugin's
entry point names too), as data: a name, an entry point ``"module:attr"``, fixed keyword
arguments, a one-line summary, typed options (:class:`Option`: name, type, range, default) and
typed properties, one dataclass per kind (:class:`PuzzleProps`, :class:`HeuristicProps`,
:class:`SolverProps`, whose fields say what each property means). Everything else reads these
declarations: the command line makes its flags from the options, suite files are checked
against them, the catalog of pattern databases is derived from the PDB heuristics declared in
``core.pdb_decls``, reports read a solver's ``optimal`` from it, and the registry test solves a
scramble with every combination declared valid. Each default and bound is stated once, in its
:class:`Option`; the classes check their arguments through their entry
(:meth:`Entry.settings`). Nothing heavy is imported until an entry is
instantiated, so ``bench list`` never imports torch or compiles Numba.

A heuristic may be known by other names too (``aliases``: the learned value network
``value-net`` was once ``davi``); :func:`heuristic_entry` accepts them and
:func:`canonical_heuristic` gives the declared name, which new rows record.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Any

from core.entry import SIZED, TABLES, Entry, SizedEntries
from core.errors import InputError
from core.names import VALUE_NET  # noqa: F401  (VALUE_NET: read from here)
from core.options import Option
from core.props import HeuristicProps, PuzzleProps, PuzzleSpec, SolverProps, WhenOption


def _did_you_mean(kind: str, name: str, known: list[str]) -> InputError:
    import difflib  # only for this message

    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return InputError(f"unknown {kind} {name!r}{hint}; known: {', '.join(known)}")


#: the built-in declaration modules, by kind: each ``"module:attribute"`` names a list of
#: entries declared beside their classes, the form a plugin's entry point names too. They are
#: read when this module is imported (never for ``bench --help`` or ``--version``, which do not
#: import it); each imports nothing heavier than ``core``.
BUILTIN_DECLARATIONS: dict[str, tuple[str, ...]] = {
    "puzzle": ("puzzles.declarations:PUZZLES",),
    "heuristic": ("heuristics.declarations:HEURISTICS",),
    "solver": ("solvers.declarations:SOLVERS",),
}
#: the built-in declarations of entries named by a size (:class:`core.entry.SizedEntries`)
BUILTIN_SIZED: tuple[str, ...] = ("puzzles.declarations:SIZED_PUZZLES",)


def _read(ref: str) -> Any:
    """The object ``ref`` (``"module:attribute"``) names."""
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def _declared(kind: str) -> dict[str, Entry[Any]]:
    """The built-in entries of ``kind`` that :data:`BUILTIN_DECLARATIONS` names, by name."""
    out: dict[str, Entry[Any]] = {}
    for ref in BUILTIN_DECLARATIONS.get(kind, ()):
        for e in _read(ref):
            if e.name in out:
                raise ValueError(f"{ref}: {kind} {e.name!r} is declared twice")
            out[e.name] = e
    return out


# --------------------------------------------------------------------------- puzzles
PUZZLES: dict[str, Entry[PuzzleProps]] = _declared("puzzle")
#: the puzzles named by a size (``lightsout9``), made when named (:func:`puzzle_entry`)
SIZED_PUZZLES: tuple[SizedEntries[PuzzleProps], ...] = tuple(
    s for ref in BUILTIN_SIZED for s in _read(ref))

#: the cube puzzles (what the cube pattern databases and kernels serve)
CUBE_NAMES: tuple[str, ...] = tuple(n for n, e in PUZZLES.items() if e.props.family == "cube")


def _find_puzzle(name: str) -> Entry[PuzzleProps] | None:
    if name in PUZZLES:
        return PUZZLES[name]
    for sized in SIZED_PUZZLES:
        entry = sized.entry(name)
        if entry is not None:
            return entry
    return None


def puzzle_entry(name: str) -> Entry[PuzzleProps]:
    """The puzzle declared as ``name``, or made from a declared size (``lightsout9``)."""
    entry = _find_puzzle(name)
    if entry is None:
        raise _did_you_mean("puzzle", name, list(PUZZLES))
    return entry


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
        option = entry.option("goal")
        if option is None:
            raise InputError(f"--goal: {name} has a single goal; --goal applies to sliding-tile puzzles")
        args["goal"] = option.check(goal)
    return entry.load()(**args)


# --------------------------------------------------------------------------- heuristics
HEURISTICS: dict[str, Entry[HeuristicProps]] = _declared("heuristic")


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


def heuristic_props(entry: Entry[HeuristicProps] | str,
                    options: dict[str, Any] | None = None) -> HeuristicProps:
    """The properties of heuristic ``entry`` run with ``options`` (checked; the others at their
    declared defaults): a property declared as a function of the options
    (:class:`core.props.WhenOption`) is resolved to its value there."""
    if isinstance(entry, str):
        entry = heuristic_entry(entry)
    props = entry.props
    dependent = {f: getattr(props, f) for f in ("admissible", "consistent")
                 if isinstance(getattr(props, f), WhenOption)}
    if not dependent:
        return props
    settled = {**entry.kwargs, **entry.settings(options or {}, "heuristic")}
    return replace(props, **{f: rule(settled) for f, rule in dependent.items()})


def _call_declared(ref: str, *args: Any) -> Any:
    """Call the function a property names as ``"module:function"``."""
    return _read(ref)(*args)


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
def beam_width(puzzle_name: str) -> int:
    """The default beam width for ``puzzle_name``: its entry's ``beam_width`` (a puzzle the
    registry does not know takes the property's default)."""
    entry = _find_puzzle(puzzle_name)
    return (entry.props if entry is not None else PuzzleProps()).beam_width


SOLVERS: dict[str, Entry[SolverProps]] = _declared("solver")

_KIND: dict[str, dict[str, Entry[Any]]] = TABLES
_KIND.update(puzzle=PUZZLES, heuristic=HEURISTICS, solver=SOLVERS)
SIZED[:] = SIZED_PUZZLES


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
                            solver_options_given: bool = False,
                            heuristic_options: dict[str, Any] | None = None) -> bool:
    """Whether ``solver_name`` with ``heuristic_name`` always finds an optimal solution when it
    solves: the solver declares ``optimal`` and uses no heuristic or an admissible one (and,
    where optimality holds only with its defaults, was given no options); the heuristic's
    properties are those with ``heuristic_options`` (:func:`heuristic_props`)."""
    if solver_name not in SOLVERS:
        return False
    sp = SOLVERS[solver_name].props
    if not sp.optimal or (solver_options_given and not sp.optimal_any_options):
        return False
    if not sp.heuristic:  # a table-driven solver: optimal or not by itself
        return True
    name = canonical_heuristic(heuristic_name)
    return name in HEURISTICS and \
        bool(heuristic_props(HEURISTICS[name], heuristic_options).admissible)
