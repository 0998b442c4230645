"""Options and helpers shared by subcommands."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from typing import Any, Literal

import click
import numpy as np

from core import registry
from core.capabilities import Policy
from core.errors import InputError
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from puzzles.declarations import GOAL


class FiniteFloat(click.ParamType):
    """A float option that refuses NaN and infinities (ranges are checked where the value is
    used, so their messages stay those of the code that uses it)."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float) and math.isfinite(value):
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"expected a finite number, got {value!r}", param, ctx)
        return number


FINITE_FLOAT = FiniteFloat()


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    if isinstance(obj, np.generic):
        return _finite(obj.item())
    return obj


def json_line(obj: Any) -> str:
    """``obj`` as one line of strict JSON: NaN and infinities (not JSON) become ``null``."""
    import json

    return json.dumps(_finite(obj), allow_nan=False, default=str)

goal_option: Callable[[Any], Any] = click.option(
    "--goal", default=None, metavar="|".join(GOAL.choices or ()),
    help="goal layout (sliding tiles only; default blank-last; korf1982: the 8-puzzle's "
         "1 2 3 / 8 B 4 / 7 6 5)",
)


def registry_options(kind: str, skip: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """Click options for every option the registry's entries of ``kind`` declare (values stay
    text: :meth:`core.registry.Option.check` converts them, so a bad value is a one-line error
    that names the flag), except those in ``skip`` (a command that declares its own). The help
    names the entries that take each option."""
    from core import registry

    entries: dict[str, registry.Entry[Any]] = \
        dict(registry.SOLVERS) if kind == "solver" else dict(registry.HEURISTICS)
    opts = registry.all_options(kind)

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed([n for n in opts if n not in skip]):
            o = opts[name]
            users = "/".join(n for n, e in entries.items() if e.option(name) is not None)
            f = click.option(o.flag, name, metavar=o.metavar, default=None,
                             help=f"{o.describe()} ({users})")(f)
        return f

    return decorate


def read_state(puzzle: Puzzle, state: str | None, moves: str | None) -> np.ndarray:
    """The state given as text, or made by MOVES from the goal; exactly one of them."""
    if state is not None and moves is not None:
        raise InputError("give either STATE or --scramble, not both")
    if moves is not None:
        return puzzle.from_moves(puzzle.parse_moves(moves))
    if state is None:
        raise InputError("STATE: missing (give a state or --scramble MOVES)")
    return puzzle.parse(state)


def read_states(puzzle: Puzzle, states: tuple[str, ...], moves: str | None) -> Iterator[np.ndarray]:
    """States from arguments, ``-`` (stdin, one per line) or ``--scramble``."""
    if moves is not None:
        if states:
            raise InputError("give either STATE arguments or --scramble, not both")
        yield puzzle.from_moves(puzzle.parse_moves(moves))
        return
    if not states:
        raise InputError("STATE: missing (give states, '-' for stdin, or --scramble MOVES)")
    for text in states:
        if text == "-":
            for line in sys.stdin:
                if line.strip():
                    yield puzzle.parse(line.strip())
        else:
            yield puzzle.parse(text)


def _module_of(entry: registry.Entry[Any]) -> str:
    return str(entry.target).partition(":")[0]


class PluginFaults:
    """A context (reusable) that turns an exception raised by an installed plugin's code into
    one ``InputError`` line naming the plugin entry (``involved``: flag, kind, entry; built-ins
    are not plugins and their exceptions pass unchanged). The plugin blamed is the one whose
    module is deepest in the traceback, else the only plugin involved."""

    def __init__(self, involved: list[tuple[str, str, registry.Entry[Any]]]) -> None:
        self.plugins = [(flag, kind, e) for flag, kind, e in involved if registry.plugin_of(e)]

    def __enter__(self) -> PluginFaults:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: Any) -> Literal[False]:
        exits = isinstance(exc, SystemExit)
        if exc is None or not self.plugins or not (exits or isinstance(exc, Exception)) \
                or isinstance(exc, InputError | MemoryError):
            return False
        blamed = None
        frame = exc.__traceback__
        while frame is not None:
            module = str(frame.tb_frame.f_globals.get("__name__", ""))
            for item in self.plugins:
                own = _module_of(item[2])
                if module == own or module.startswith(own.split(".")[0] + "."):
                    blamed = item
            frame = frame.tb_next
        if blamed is None and len(self.plugins) == 1 and not exits:
            blamed = self.plugins[0]
        if blamed is None:  # a sys.exit is blamed only on the plugin that called it
            return False
        flag, what, e = blamed
        if isinstance(exc, SystemExit):
            raise InputError(f"{flag}: plugin {what} {e.name} ({registry.plugin_of(e)}) called "
                             f"sys.exit({exc.code!r})") from None
        text = " ".join(str(exc).split())
        raise InputError(f"{flag}: plugin {what} {e.name} ({registry.plugin_of(e)}) failed: "
                         f"{type(exc).__name__}" + (f": {text[:200]}" if text else "")) from None


def check_plugin_values(puzzle: Puzzle, h: Heuristic, state: np.ndarray, name: str,
                        package: str) -> None:
    """A plugin heuristic's values for the start state and its children, checked before the
    search trusts them: one number per state (a one-line ``InputError`` otherwise)."""
    if isinstance(h, Policy):  # a policy gives no values
        return
    children, legal = puzzle.expand(state[None, :])
    batch = np.concatenate([state[None, :], children[0][np.asarray(legal[0], dtype=bool)]])
    values = np.asarray(h(batch))
    if values.shape != (len(batch),):
        raise InputError(f"--heuristic: plugin heuristic {name} ({package}) gave values of shape "
                         f"{list(values.shape)} for {len(batch)} states; a heuristic gives one "
                         "value per state")
    if not np.issubdtype(values.dtype, np.number) or np.issubdtype(values.dtype, np.complexfloating):
        raise InputError(f"--heuristic: plugin heuristic {name} ({package}) gave values of type "
                         f"{values.dtype}; a heuristic gives numbers")


def limit_option(key: str, note: str = "") -> Callable[..., Any]:
    """The flag of the limit ``key`` as ``core.limits.LIMIT_OPTIONS`` declares it (its value is
    checked by ``core.resolve``, so a bad one is the same line everywhere)."""
    from core.limits import LIMIT_OPTIONS

    option = LIMIT_OPTIONS[key]
    return click.option(option.flag, metavar=option.metavar,
                        help=option.describe() + (f" ({note})" if note else ""))
