"""Options and helpers shared by subcommands."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click
import numpy as np

from core import registry
from core.errors import InputError
from puzzles.base import Puzzle


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
    "--goal", default=None, metavar="|".join(registry.GOAL.choices or ()),
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
