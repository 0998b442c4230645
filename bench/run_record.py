"""The record of a run: ``rows.jsonl`` (append-only, one JSON object per finished task, each
flushed and fsynced), ``run.json``, the run folder's lock and atomic writes."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError

ROWS = "rows.jsonl"
RUN_JSON = "run.json"
LOCK = ".lock"


#: row columns that hold integers (lengths, counts, bytes) or null
INT_COLUMNS = ("length", "optimal", "lower_bound", "nodes_generated", "nodes_expanded",
               "network_evaluations", "iterations", "peak_rss_bytes", "heuristic_nbytes",
               "published_length", "published_nodes", "solver_nodes", "scramble_depth")
#: the largest magnitude an integer column may hold (the tables store them as int64)
INT_LIMIT = 2**62


def row_fault(row: dict[str, Any]) -> str | None:
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


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a ``rows.jsonl``; a torn last line (killed mid-write) and lines that are not
    row objects (no ``key``) are ignored; a row whose values cannot be read
    (:func:`row_fault`) is an ``InputError`` naming the file and line."""
    rows: list[dict[str, Any]] = []
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
                    rows.append(row)
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
    """Write ``text`` to ``path`` through a temporary file and a rename: never half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's lock: a second run (or resume) of the same folder is refused."""
    import fcntl

    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        f = (run_dir / LOCK).open("a+")
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
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        yield
    finally:
        f.close()


class RowWriter:
    """Appends rows to ``rows.jsonl``, one line each, flushed and fsynced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = path.open("ab")
        if self.f.tell() > 0:  # repair a torn last line left by a kill
            with path.open("rb") as r:
                r.seek(-1, os.SEEK_END)
                if r.read(1) != b"\n":
                    self.f.write(b"\n")

    def write(self, row: dict[str, Any]) -> None:
        self.f.write(json.dumps(row, default=_json_default).encode() + b"\n")
        self.f.flush()
        os.fsync(self.f.fileno())

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

