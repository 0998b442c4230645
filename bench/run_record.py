"""The record of a run: ``rows.jsonl`` (append-only, one JSON object per finished task, each
flushed and fsynced), ``run.json``, the run folder's lock and atomic writes."""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import numpy as np

from core import safe_write
from core.errors import InputError
from core.rows import Row

ROWS = "rows.jsonl"
RUN_JSON = "run.json"
LOCK = ".lock"


#: row columns that hold integers (lengths, counts, bytes) or null
INT_COLUMNS = ("length", "optimal", "lower_bound", "nodes_generated", "nodes_expanded",
               "network_evaluations", "iterations", "peak_rss_bytes", "heuristic_nbytes",
               "published_length", "published_nodes", "solver_nodes", "scramble_depth")
#: the largest magnitude an integer column may hold (the tables store them as int64)
INT_LIMIT = 2**62


def row_fault(row: Mapping[str, Any]) -> str | None:
    """What makes ``row`` unreadable as a run's row, in a few words naming the column (an
    integer column holding a fraction, a number beyond int64 or text; ``params`` that are not
    a JSON object), or ``None``. A NaN is a missing value (a table's empty cell)."""
    for col in INT_COLUMNS:
        v = row.get(col)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            ok = False
        elif isinstance(v, int | np.integer):
            ok = abs(int(v)) <= INT_LIMIT
        else:
            f = float(v)
            ok = math.isfinite(f) and f.is_integer() and abs(f) <= INT_LIMIT
        if not ok:
            return f"{col}: expected an integer or null, got {_short(v)}"
    params = row.get("params")
    if params is not None and not (isinstance(params, float) and math.isnan(params)):
        if not isinstance(params, str):
            return f"params: expected the configuration's arguments as JSON text, got {_short(params)}"
        try:
            given = json.loads(params) if params.strip() else {}
        except (ValueError, RecursionError):
            return f"params: not JSON ({_short(params)})"
        if not isinstance(given, dict):
            return f"params: expected a JSON object, got {_short(params)}"
    return None


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def read_rows(path: Path) -> list[Row]:
    """Rows of a ``rows.jsonl``; a torn last line (killed mid-write) and lines that are not
    row objects (no ``key``) are ignored. A row whose values cannot be read (:func:`row_fault`)
    or that is not a valid row (``core.rows.row_problem``: an unknown status, no configuration, a
    negative count, a negative or non-finite time) is an ``InputError`` naming the file and line:
    it is never used, nor dropped without a word."""
    from core.rows import row_problem

    rows: list[Row] = []
    if not path.is_file():
        return rows
    try:
        with path.open("rb") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    row = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    continue
                if isinstance(row, dict) and isinstance(row.get("key"), str):
                    fault = row_fault(row)
                    if fault is not None:
                        raise InputError(f"RUN_DIR: {path}:{lineno}: {fault}")
                    problem = row_problem(row)
                    if problem is not None:
                        raise InputError(f"RUN_DIR: {path} line {lineno}: a bad row ({problem}); "
                                         "fix or remove the line")
                    rows.append(cast(Row, row))  # its columns checked above
    except OSError as exc:
        raise InputError(f"RUN_DIR: cannot read {path}: {exc.strerror or exc}") from None
    return rows


def read_run_json(run_dir: Path) -> dict[str, Any] | None:
    """``run.json`` of a run: ``{}`` when absent, ``None`` when damaged (not a JSON object)."""
    path = Path(run_dir) / RUN_JSON
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return meta if isinstance(meta, dict) else None


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a fresh temporary file and a rename: never half a file,
    never through a link (``core.safe_write``)."""
    safe_write.write_text(path, text)


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's lock: a second run (or resume) of the same folder is refused."""
    import fcntl

    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        f = safe_write.open_lock(run_dir / LOCK, arg="--out")
    except OSError as exc:
        raise InputError(f"--out: cannot write to {run_dir}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            who = f.read().strip()
            raise InputError(f"--out: {run_dir} is in use by another run"
                             + (f" (pid {who})" if who.isdigit() else "")
                             + "; wait for it to finish or use another --out") from None
        with contextlib.suppress(OSError):  # the pid is for the message above; a full disk
            os.ftruncate(f.fileno(), 0)   # may refuse it
            os.pwrite(f.fileno(), str(os.getpid()).encode(), 0)
        yield
    finally:
        f.close()


class RowWriter:
    """Appends rows to ``rows.jsonl``, one line each, flushed and fsynced; opened without
    following a link (``core.safe_write.open_append``). A row that cannot be written (a full
    disk) is cut off again, so the file holds the finished rows and nothing else."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise safe_write.write_error(path.parent, exc, "--out") from None
        self.f = safe_write.open_append(path, arg="--out", what="row file", buffering=0)
        self.written = 0
        end = os.fstat(self.f.fileno()).st_size
        if end > 0:  # repair a torn last line left by a kill
            with path.open("rb") as r:
                r.seek(-1, os.SEEK_END)
                torn = r.read(1) != b"\n"
            if torn:
                self._append(b"\n")

    def _append(self, data: bytes) -> None:
        fd = self.f.fileno()
        end = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):  # drop the part of the line that was written
                os.ftruncate(fd, end)
            raise safe_write.WriteError(
                f"--out: cannot write a row to {self.path} ({exc.strerror or exc}); the "
                f"{self.written} row(s) finished in this session are kept; free space and "
                "continue with --resume") from None

    def write(self, row: Row) -> None:
        self._append(json.dumps(row, default=_json_default).encode() + b"\n")
        self.written += 1

    def close(self) -> None:
        self.f.close()


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)

