"""Search limits: one record for a single solve, a suite file's ``limits`` tables and a run's tasks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import InputError

MIB = 1 << 20


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

    def as_dict(self) -> dict[str, Any]:
        """``{"time_s", "nodes", "memory_mb"}``: the form of suite files and run records."""
        return {"time_s": self.time_s, "nodes": self.nodes, "memory_mb": self.memory_mb}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Limits:
        mb = d.get("memory_mb")
        return cls(time_s=d.get("time_s"), nodes=d.get("nodes"),
                   memory_bytes=int(mb) * MIB if mb else None)
