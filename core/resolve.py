"""One resolver: the names and options a user gives, checked and completed into the one typed
configuration a search runs with (:class:`ResolvedConfig`).

``bench solve`` (and ``bench view``), suite files (``suites.schema``) and ``bench train
evaluate`` all call :func:`resolve` with a puzzle name, a heuristic name and its options, a
solver name and its options and the limits. Every option value goes through the option its
entry declares (``core.options.Option.check``), every limit through the one declaration of
its bounds (:data:`core.limits.LIMIT_OPTIONS`); what is missing is completed from the
declarations (the solver a heuristic runs with, a model's recommended search, an optimal
solver's default heuristic). Bad input is an :class:`ArgumentError`: the command line prints
its one line as it is, a suite file puts its file and key in front of the same words
(:attr:`ArgumentError.detail`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from core import registry
from core.errors import InputError
from core.limits import LIMIT_OPTIONS, MIB, Limits
from core.rows import TaskPayload


class ArgumentError(InputError):
    """A value :func:`resolve` refuses. ``str(exc)`` is the command line's line (``--weight:
    must be in [0, 100], got 200``); ``argument`` is the key a suite file's configuration gives
    it under (``puzzle``, ``heuristic``, ``heuristic_args``, ``solver``, ``solver_args``,
    ``limits.time_s``, ``limits.nodes``, ``limits.memory_mb``)."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument

    @property
    def detail(self) -> str:
        """The line as a suite file says it after its file and key: in a table of options the
        option's name without its dashes (``weight: must be in [0, 100], got 200``), elsewhere
        without the flag the key already names (``limits.time_s: must be > 0, got -1``)."""
        text = str(self)
        if self.argument in ("heuristic_args", "solver_args"):
            return text.removeprefix("--")
        if self.argument.startswith("limits."):
            flag = LIMIT_OPTIONS[self.argument.removeprefix("limits.")].flag
        else:
            flag = "--" + self.argument
        return text.removeprefix(f"{flag}: ")


@contextmanager
def _argument(name: str) -> Iterator[None]:
    """An ``InputError`` raised in the block, as an :class:`ArgumentError` of ``name``."""
    try:
        yield
    except ArgumentError:
        raise
    except InputError as exc:
        raise ArgumentError(name, str(exc)) from None


def check_limits(values: Mapping[str, Any]) -> Limits:
    """:class:`Limits` from ``values`` keyed as suite files and run records key them
    (``time_s``, ``nodes``, ``memory_mb``; the command line's strings or a file's numbers;
    ``None`` or absent: unlimited), each checked by its declared option."""
    checked: dict[str, Any] = {}
    for key, option in LIMIT_OPTIONS.items():
        with _argument(f"limits.{key}"):
            checked[key] = option.check(values.get(key))
    mb = checked["memory_mb"]
    return Limits(time_s=checked["time_s"], nodes=checked["nodes"],
                  memory_bytes=None if mb is None else int(mb * MIB))


@dataclass(frozen=True)
class ResolvedConfig:
    """What one search runs with: entry names as declared (an alias such as ``davi`` resolved),
    their options checked and completed, the limits. ``heuristic_by_default``: the puzzle's
    default heuristic was chosen (an optimal solver named without one), with
    ``defaulted_args`` filled in; ``solver_note``: the line saying which solver runs and why,
    when none was named (empty: nothing to say)."""

    puzzle: str
    heuristic: str
    solver: str
    heuristic_args: dict[str, Any] = field(default_factory=dict)
    solver_args: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    heuristic_by_default: bool = False
    defaulted_args: dict[str, Any] = field(default_factory=dict)
    solver_note: str = ""

    def params(self) -> dict[str, Any]:
        """The row's ``params`` (before JSON): ``h.OPTION`` and ``s.OPTION`` values."""
        return config_params(self.heuristic_args, self.solver_args)

    def payload(self, state: list[int], goal: str | None = None, seed: int = 0,
                limits: Limits | None = None) -> TaskPayload:
        """The task of solving ``state`` with this configuration (``limits``: in place of its
        own, as a suite merges them)."""
        return task_payload(self.puzzle, goal, self.heuristic, self.heuristic_args,
                            self.solver, self.solver_args, state,
                            self.limits if limits is None else limits, seed)


def config_params(heuristic_args: Mapping[str, Any],
                  solver_args: Mapping[str, Any]) -> dict[str, Any]:
    """A configuration's row ``params``: ``h.OPTION`` and ``s.OPTION`` values."""
    return {**{f"h.{k}": v for k, v in heuristic_args.items()},
            **{f"s.{k}": v for k, v in solver_args.items()}}


def task_payload(puzzle: str, goal: str | None, heuristic: str, heuristic_args: dict[str, Any],
                 solver: str, solver_args: dict[str, Any], state: list[int], limits: Limits,
                 seed: int) -> TaskPayload:
    """What a worker needs to run one search (``bench.run_worker.solve_task``); its digest is
    the row's ``fingerprint``."""
    return {"puzzle": puzzle, "goal": goal, "heuristic": heuristic,
            "heuristic_args": heuristic_args, "solver": solver, "solver_args": solver_args,
            "state": state, "limits": limits.as_dict(), "seed": seed}


def _missing_heuristic(default_heuristic: bool) -> ArgumentError:
    if not default_heuristic:
        return ArgumentError("heuristic", "--heuristic: missing (only a solver that uses no "
                                          "heuristic goes without)")
    optimal = "/".join(n for n in registry.SOLVERS if registry.takes_default_heuristic(n))
    return ArgumentError("heuristic", f"--heuristic: missing (see bench list heuristics; with "
                                      f"--solver {optimal} it defaults to the puzzle's "
                                      "strongest admissible one)")


#: ``(puzzle, default heuristic, heuristic options given) -> (heuristic, its tables are built)``:
#: the command line's choice of a stronger default whose tables are at hand
Upgrade = Callable[[str, str, list[str]], tuple[str, bool]]


def resolve(puzzle: str, heuristic: str | None, heuristic_args: Mapping[str, Any] | None = None,
            solver: str | None = None, solver_args: Mapping[str, Any] | None = None,
            limits: Mapping[str, Any] | None = None, *, default_heuristic: bool = False,
            upgrade: Upgrade | None = None) -> ResolvedConfig:
    """The configuration of ``puzzle`` with ``heuristic`` and ``solver`` and their options
    (``None`` values: not given), checked against the registry's declarations.

    ``solver`` None: the heuristic's declared default or its model's recommended search (with
    its arguments under those given). ``heuristic`` None: only for a solver that uses none,
    or, with ``default_heuristic`` (``bench solve``), for an optimal solver, which runs the
    puzzle's strongest admissible heuristic (``upgrade`` may pick a stronger one whose tables
    are built). ``limits``: ``time_s``, ``nodes``, ``memory_mb`` (:func:`check_limits`).
    Faults: :class:`ArgumentError`."""
    with _argument("puzzle"):
        registry.puzzle_entry(puzzle)
    given_h = {k: v for k, v in (heuristic_args or {}).items() if v is not None}
    given_s = {k: v for k, v in (solver_args or {}).items() if v is not None}
    by_default = built = False
    if solver is not None:
        with _argument("solver"):
            registry.solver_entry(solver)
        with _argument("heuristic"):
            if heuristic is None and default_heuristic \
                    and registry.takes_default_heuristic(solver):
                heuristic = registry.solver_default_heuristic(solver, puzzle)
                by_default = True
                if upgrade is not None:
                    heuristic, built = upgrade(puzzle, heuristic, list(given_h))
            elif heuristic is None and default_heuristic and registry.uses_heuristic(solver):
                raise _missing_heuristic(True)
            heuristic = registry.check_solver_heuristic(solver, heuristic)
    elif heuristic is None:
        raise _missing_heuristic(default_heuristic)
    checked_limits = check_limits(limits or {})
    with _argument("heuristic"):
        entry = registry.heuristic_entry(heuristic)
    heuristic = entry.name  # an alias (davi) runs, and is recorded, as the heuristic it names
    if not registry.heuristic_supports(entry, puzzle):
        ok = [n for n, e in registry.HEURISTICS.items() if registry.heuristic_supports(e, puzzle)]
        raise ArgumentError("heuristic", f"--heuristic: {heuristic} does not apply to {puzzle}; "
                                         f"choose one of {', '.join(ok)}")
    with _argument("heuristic_args"):
        registry.check_heuristic_options(entry, given_h)  # its messages for learned options
        hargs = entry.check_options(given_h, "heuristic")
    defaulted: dict[str, Any] = {}
    if by_default and not built:  # the default heuristic's options, where not given
        defaulted = {k: v for k, v in registry.default_heuristic_args(puzzle).items()
                     if hargs.get(k) is None}
        with _argument("heuristic_args"):
            hargs.update(entry.check_options(defaulted, "heuristic"))
    with _argument("solver_args"):  # values first, whichever solver runs
        options = registry.all_options("solver")
        for k, v in given_s.items():
            if k in options:
                options[k].check(v)
    note = ""
    recommended = False
    if solver is None:  # the heuristic's declared default, or a model's recommendation
        with _argument("heuristic_args"):
            d = registry.default_search(entry, puzzle, hargs.get("model"))
        solver, recommended, note = d.solver, d.recommended, d.note
        given_s = {**d.solver_args, **given_s}
        if d.precision is not None and entry.option("precision") is not None:
            hargs.setdefault("precision", d.precision)
    with _argument("solver"):
        sentry = registry.solver_entry(solver)
    if not registry.solver_supports(sentry, puzzle):
        raise ArgumentError("solver", f"--solver: {solver} does not apply to {puzzle}")
    with _argument("solver_args"):
        sargs = sentry.check_options(given_s, "solver")
    if recommended:
        args = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sargs.items())
        note = f"solver: {solver} {args} ({note})".rstrip()
    elif note:
        note = f"solver: {solver} ({note})"
    return ResolvedConfig(puzzle=puzzle, heuristic=heuristic, solver=solver,
                          heuristic_args=hargs, solver_args=sargs, limits=checked_limits,
                          heuristic_by_default=by_default, defaulted_args=defaulted,
                          solver_note=note)
