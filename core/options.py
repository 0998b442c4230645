"""A typed option of a registry entry (:class:`Option`): its flag, range, default and check."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from core.errors import InputError


@dataclass(frozen=True)
class Option:
    """A typed option of an entry: ``kind`` is ``int``, ``float``, ``bool`` or ``str``.

    ``low``/``high`` bound numbers (``low_ok``: ``low`` itself allowed); ``cap`` is an upper
    bound reported on its own (it keeps huge values from overflowing what they size);
    ``choices`` lists the allowed strings; ``off``: one more value allowed outside
    ``[low, high]`` (the value that turns the option off, as 0 for a window); ``default``: the
    value a class built without this option takes (``None``: none, or one the class derives,
    described in ``default_text``). These are the option's only statement: the command line, suite
    files and the constructors of the classes (:func:`settle`) all check values through
    :meth:`check`.
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
    off: float | None = None
    metavar: str = "X"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def describe(self) -> str:
        """The help text with the range and default, as the command line prints it."""
        rng = ""
        if self.off is not None and self.low is not None and self.high is not None:
            rng = f", {self.off:g} (off) or in [{self.low:g}, {self.high:g}]"
        elif self.low is not None and self.high is not None:
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
        if self.off is not None and number == self.off:
            return number
        if (low is not None and (number < low or (number == low and not self.low_ok))) or \
                (high is not None and number > high):
            if low is not None and high is not None:
                rng = f"in [{low:g}, {high:g}]"
                if self.off is not None:
                    rng = f"{self.off:g} (off) or {rng}"
            else:
                rng = f"{'>=' if self.low_ok else '>'} {low:g}" if low is not None \
                    else f"<= {high:g}"
            raise InputError(f"{self.flag}: must be {rng}, got {value}")
        if self.cap is not None and number > self.cap:
            raise InputError(f"{self.flag}: must be at most {self.cap:g}, got {value}")
        return number


def settle(options: tuple[Option, ...], given: dict[str, Any], owner: str) -> dict[str, Any]:
    """Every option of ``options`` by name: the value ``given`` checked by :meth:`Option.check`,
    or its declared ``default`` where ``given`` has none (or ``None``). What a class's
    constructor calls with its own arguments, so that a class built from Python is checked
    by the same declaration, with the same words, as the command line; a name ``options`` does
    not declare is an ``InputError`` naming ``owner``."""
    known = {o.name: o for o in options}
    for k, v in given.items():
        if k not in known and v is not None:
            flag = "--" + k.replace("_", "-")
            raise InputError(f"{flag}: {owner} takes no such option (its options: "
                             f"{', '.join(known) or 'none'})")
    out = {}
    for name, o in known.items():
        v = given.get(name)
        out[name] = o.default if v is None else o.check(v)
    return out
