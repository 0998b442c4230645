"""A declared puzzle, heuristic or solver (:class:`Entry`): the type of every declaration, the
built-ins' (beside their classes, read by ``core.registry``) and the plugins' alike; entries
named by a size (``lightsout9``) are declared once for all sizes (:class:`SizedEntries`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic

from core.errors import InputError
from core.options import Option, settle
from core.props import P

#: every declared entry by kind (``puzzle``, ``heuristic``, ``solver``), filled in by
#: ``core.registry``: an option one entry refuses is named with the entries that take it
TABLES: dict[str, dict[str, Entry[Any]]] = {}
#: the declarations of entries named by a size (:class:`SizedEntries`), filled in by
#: ``core.registry``: a plugin may not declare a name one of them claims
SIZED: list[SizedEntries[Any]] = []


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
                users = [n for n, e in TABLES.get(kind, {}).items() if e.option(k) is not None]
                flag = "--" + k.replace("_", "-")
                if users:
                    raise InputError(f"{flag}: applies to {'/'.join(users)}, not to {self.name}")
                raise InputError(f"{flag}: {self.name} takes no such option (its options: "
                                 f"{', '.join(o.name for o in self.options) or 'none'})")
            out[k] = opt.check(v)
        return out

    def settings(self, given: dict[str, Any], kind: str) -> dict[str, Any]:
        """Every option of this entry: the values ``given`` checked (:meth:`check_options`),
        the declared defaults for the others. What the entry's class calls in its constructor,
        so that a class built from Python is checked by the declaration alone, with the command
        line's words."""
        return settle(self.options, self.check_options(given, kind), self.name)

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



@dataclass(frozen=True)
class SizedEntries(Generic[P]):
    """Entries named by ``prefix`` and a size (``lightsout9``: a 9 x 9 board), declared once
    for every size in ``[low, high]`` but those in ``skip`` (a size declared under a name of its
    own): :meth:`entry` makes the one a name asks for, whose fixed arguments are
    ``{size_arg: n}`` and whose summary is ``summary`` formatted with ``n``."""

    prefix: str
    target: str
    summary: str
    size_arg: str
    low: int
    high: int
    props: P
    skip: tuple[int, ...] = ()
    #: the properties of size ``n`` made from ``props`` where they depend on the size (None:
    #: ``props`` for every size)
    sized_props: Callable[[P, int], P] | None = None

    def claims(self, name: str) -> bool:
        """Whether ``name`` is ``prefix`` followed by digits, whatever the size (a plugin may
        not declare such a name)."""
        size = name.removeprefix(self.prefix)
        return size != name and size.isascii() and size.isdigit()

    def entry(self, name: str) -> Entry[P] | None:
        """The entry ``name`` names, or ``None`` when it names no declared size."""
        if not self.claims(name):
            return None
        n = int(name.removeprefix(self.prefix))
        if not self.low <= n <= self.high or n in self.skip:
            return None
        props = self.props if self.sized_props is None else self.sized_props(self.props, n)
        return Entry(name, self.target, self.summary.format(n=n), {self.size_arg: n}, props)
