"""Named pattern databases: which tables each PDB heuristic needs, where they live, how to build them.

A :class:`TableSpec` describes one stored table: a file name in the cache folder
(``core.paths.cache_dir()``), the attributes the file must carry (checked on load by
:mod:`pdb_builders.store`), and a builder entry point ``"module:function"`` called as
``function(**build_kwargs) -> numpy.ndarray`` (``uint8`` values), or ``(values, attrs)``
where the build decides attributes of its own (stored with the table, not checked on load). A :class:`DatabaseEntry` maps
a heuristic name (as in ``core.registry.HEURISTICS``) and the puzzles it serves to a function
``"module:function"`` that returns the list of table specs for one puzzle name. Entries are data
only; nothing heavy is imported until tables are listed or built.

A database is added by declaring it in ``core.pdb_decls`` (``TILE_PDBS``, ``CUBE_PDBS``), from
which ``core.registry`` makes its heuristics; ``DATABASES`` is derived from those declarations.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.paths import cache_dir
from pdb_builders.store import DatabaseError, PackedTable, build_lock, load_packed, save_table


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _peak_rss_bytes() -> int | None:
    """Peak resident memory so far of this process and of its finished worker processes (the
    larger), as the kernel counts it; None where it cannot tell."""
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return int(max(own, children)) * scale



@contextlib.contextmanager
def numba_jobs(jobs: int) -> Iterator[None]:
    """Within the block the Numba threads are capped at ``jobs`` (``0`` or less: all of them),
    as a catalog builder's ``jobs`` asks; the count before is restored after."""
    import numba

    before = numba.get_num_threads()
    if jobs and jobs > 0:
        most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
        numba.set_num_threads(max(1, min(int(jobs), most)))
    try:
        yield
    finally:
        numba.set_num_threads(before)

@dataclass(frozen=True)
class TableSpec:
    """One stored table. ``attrs`` are written into the file and required on load."""

    key: str
    attrs: dict[str, Any]
    builder: str
    build_kwargs: dict[str, Any] = field(default_factory=dict)
    entries: int = 0
    summary: str = ""

    @property
    def path(self) -> Path:
        return cache_dir() / f"{self.key}.h5"

    def exists(self) -> bool:
        return self.path.is_file()

    def build(self, *, progress: bool = True, jobs: int = 1) -> Path:
        """Build the table now (under a lock) and store it atomically; returns its path."""
        with build_lock(self.path):
            return self._build_locked(progress, jobs)

    def _build_locked(self, progress: bool, jobs: int) -> Path:
        t0 = time.perf_counter()
        kwargs = dict(self.build_kwargs)
        kwargs.setdefault("progress", progress)
        kwargs.setdefault("jobs", jobs)
        table = _load(self.builder)(**kwargs)
        attrs = self.attrs
        if isinstance(table, tuple):  # (table, attributes the build decided: stored beside)
            table, extra = table
            attrs = {**extra, **self.attrs}
        seconds = time.perf_counter() - t0
        return save_table(self.path, table, attrs, build_seconds=seconds,
                          build_peak_rss_bytes=_peak_rss_bytes())

    def ensure(self, *, progress: bool = True, jobs: int = 1) -> PackedTable:
        """Load the table, building it first if it is absent.

        A file that exists but fails the checks (other attributes, truncated, checksum) is
        rebuilt with a message on stderr, never used silently.
        """
        path = self.path
        try:
            return load_packed(path, self.attrs)
        except DatabaseError as exc:
            if path.exists():
                print(f"warning: {exc}; rebuilding {path.name}", file=sys.stderr)
        with build_lock(path):
            # another process may have finished it while we waited for the lock
            try:
                return load_packed(path, self.attrs)
            except DatabaseError:
                pass
            if progress:
                print(f"building pattern database {path.name} ({self.summary or self.key})",
                      file=sys.stderr)
            self._build_locked(progress, jobs)
        return load_packed(path, self.attrs)


@dataclass(frozen=True)
class DatabaseEntry:
    """A PDB heuristic's tables: ``tables(puzzle_name) -> list[TableSpec]`` (entry point)."""

    heuristic: str
    puzzles: tuple[str, ...]
    tables_fn: str
    summary: str = ""

    def tables(self, puzzle: str) -> list[TableSpec]:
        return list(_load(self.tables_fn)(puzzle, self.heuristic))


def _databases() -> list[DatabaseEntry]:
    """One entry per PDB heuristic the registry declares (``props.pdb``)."""
    from core.registry import HEURISTICS

    out = []
    for name, e in HEURISTICS.items():
        decl = e.props.pdb
        if decl is not None:
            summary = decl.summary + (" (+ reflection: same tables)" if name.endswith("-reflect") else "")
            out.append(DatabaseEntry(name, decl.puzzles, decl.tables_fn, summary))
    return out


DATABASES: list[DatabaseEntry] = _databases()


def find(puzzle: str, heuristic: str) -> DatabaseEntry | None:
    """The catalog entry for ``heuristic`` on ``puzzle``, or ``None`` (not a database heuristic)."""
    for e in DATABASES:
        if e.heuristic == heuristic and puzzle in e.puzzles:
            return e
    return None


def tables_stored(puzzle: str, heuristic: str) -> bool:
    """Whether every table of PDB heuristic ``heuristic`` on ``puzzle`` is in the cache folder
    and passes the store's checks (attributes, size, checksum: ``store.load_packed``), so that
    loading the heuristic builds nothing. ``False`` for a heuristic with no catalog entry."""
    entry = find(puzzle, heuristic)
    if entry is None:
        return False
    for spec in entry.tables(puzzle):
        if not spec.exists():
            return False
        try:
            load_packed(spec.path, spec.attrs)
        except DatabaseError:
            return False
    return True


def all_tables() -> list[tuple[DatabaseEntry, str, TableSpec]]:
    """Every (entry, puzzle, table) known, without duplicates of the same file."""
    seen: set[str] = set()
    out = []
    for e in DATABASES:
        for p in e.puzzles:
            for t in e.tables(p):
                if t.key not in seen:
                    seen.add(t.key)
                    out.append((e, p, t))
    return out
