"""Search limits: one record for a single solve, a suite file's ``limits`` tables and a run's tasks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from core.errors import InputError
from core.options import Option

MIB = 1 << 20

#: every search limit, declared once: its command-line flag (``--time-limit``), its range and
#: the cap that keeps a huge value from overflowing what it sizes; keyed by the name suite files
#: and run records give it (:meth:`Limits.as_dict`). ``bench solve``, ``bench train evaluate``
#: and suite files check a limit through these (``core.resolve.check_limits``), and so does
#: :class:`Limits` itself.
LIMIT_OPTIONS: dict[str, Option] = {
    "time_s": Option("time_limit", float, "search time limit in seconds", low=0.0,
                     low_ok=False, cap=1e9, metavar="SEC"),
    "nodes": Option("node_limit", int, "limit on nodes generated", low=0, low_ok=False,
                    cap=2**62, metavar="N"),
    "memory_mb": Option("memory_limit", float, "limit on the search's memory in MiB", low=0.0,
                        low_ok=False, cap=2**40, metavar="MB"),
}


class LimitsRecord(TypedDict):
    """:class:`Limits` as suite files, run records and task payloads hold them."""

    time_s: float | None
    nodes: int | None
    memory_mb: int | None


@dataclass(frozen=True)
class Limits:
    """Per-search limits; ``None`` means unlimited.

    ``time_s``: search seconds; ``nodes``: nodes generated; ``memory_bytes``: the search's memory
    (a suite worker's whole budget). Suite files and run records state memory in MiB
    (``memory_mb``); :meth:`as_dict` and :meth:`from_dict` use that form.
    """

    time_s: float | None = None
    nodes: int | None = None
    memory_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("time_s", "nodes", "memory_bytes"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
                raise InputError(f"limits: {name} must be a number, got {value!r}")
            if not value > 0 or (name != "time_s" and value != int(value)):
                what = "a positive number of seconds" if name == "time_s" else "a positive integer"
                raise InputError(f"limits: {name} must be {what}, got {value!r}")
            option = LIMIT_OPTIONS["memory_mb" if name == "memory_bytes" else name]
            scale = MIB if name == "memory_bytes" else 1
            if option.cap is not None and value > option.cap * scale:
                raise InputError(f"limits: {name} must be at most {option.cap * scale:g}, "
                                 f"got {value!r}")

    @property
    def memory_mb(self) -> int | None:
        return None if self.memory_bytes is None else int(self.memory_bytes // MIB)

    def merged(self, other: Limits | None) -> Limits:
        """These limits with every limit ``other`` sets replaced by its value."""
        if other is None:
            return self
        return Limits(
            time_s=other.time_s if other.time_s is not None else self.time_s,
            nodes=other.nodes if other.nodes is not None else self.nodes,
            memory_bytes=other.memory_bytes if other.memory_bytes is not None else self.memory_bytes,
        )

    def as_dict(self) -> LimitsRecord:
        """``{"time_s", "nodes", "memory_mb"}``: the form of suite files and run records."""
        return {"time_s": self.time_s, "nodes": self.nodes, "memory_mb": self.memory_mb}

    @classmethod
    def from_dict(cls, d: LimitsRecord | dict[str, Any]) -> Limits:
        mb = d.get("memory_mb")
        return cls(time_s=d.get("time_s"), nodes=d.get("nodes"),
                   memory_bytes=int(mb) * MIB if mb else None)


# --------------------------------------------------------------------------- evaluation deadline
#: the monotonic time by which a network's evaluation must return (``None``: no deadline); set
#: per thread and task by :func:`evaluation_deadline`
_DEADLINE: ContextVar[float | None] = ContextVar("evaluation_deadline", default=None)


@contextmanager
def evaluation_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, a network's evaluation that would end later than ``seconds`` from now
    (or than an enclosing block's deadline, whichever is sooner) is stopped and is an
    ``InputError`` (:func:`deadline`); ``None`` leaves the enclosing deadline."""
    now = time.monotonic()
    outer = _DEADLINE.get()
    mine = None if seconds is None else now + float(seconds)
    token = _DEADLINE.set(mine if outer is None else outer if mine is None else min(outer, mine))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def grace_s(time_s: float) -> float:
    """Seconds past a search's time limit that a network's evaluation may still run (a search
    checks its limit between evaluations): a quarter of the limit, at least one second."""
    return max(1.0, 0.25 * float(time_s))


#: seconds the evaluations of loading a heuristic (a network's goal check, a first batch) may take
LOAD_EVAL_S = 60.0


def deadline() -> float | None:
    """The monotonic time the current :func:`evaluation_deadline` block ends, or ``None``."""
    return _DEADLINE.get()
