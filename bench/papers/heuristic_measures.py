"""The memory and speed of heuristics, PDBs against networks, measured here: the rows of
``deepcubea-table2`` and ``deepcubea-table3``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import report
from bench.papers.paper_table import (
    header,
)
from core.errors import InputError

#: (puzzle, heuristic, extra args) rows of the memory and speed tables
TABLE_HEURISTICS = [
    ("cube2", "pdb-cube2"), ("cube2", "davi"),
    ("puzzle8", "pdb-full"), ("puzzle8", "manhattan"), ("puzzle8", "davi"),
    ("cube3", "pdb-korf"), ("cube3", "davi"),
    ("puzzle15", "pdb-555"), ("puzzle15", "pdb-663"), ("puzzle15", "pdb-78"), ("puzzle15", "davi"),
    ("puzzle24", "pdb-6666"), ("puzzle24", "davi"),
    ("puzzle35", "pdb-5x7"), ("puzzle35", "davi"),
    ("puzzle48", "pdb-5x9-3"), ("puzzle48", "davi"),
    ("lightsout7", "lights-on"), ("lightsout7", "davi"),
]


def _load(puzzle: str, heuristic: str, build: bool) -> tuple[Any, Any, float] | str:
    from core import registry

    try:
        p = registry.get_puzzle(puzzle, goal="blank-last" if puzzle.startswith("puzzle") else None)
        entry = registry.heuristic_entry(heuristic)
        if entry.props.needs_pdb and not build and not _pdb_cached(heuristic, p):
            return "not built (run with --build)"
        t0 = time.perf_counter()
        h = registry.get_heuristic(heuristic, p)
        h(p.example()[None, :])
        return p, h, time.perf_counter() - t0
    except InputError as exc:
        return f"unavailable: {str(exc).split(';')[0]}"
    except (ImportError, AttributeError, FileNotFoundError, NotImplementedError) as exc:
        return f"unavailable: {type(exc).__name__}: {exc}"


def _pdb_cached(heuristic: str, puzzle: Any) -> bool:
    """Whether every table a PDB heuristic needs is already in the cache (the PDB catalog)."""
    try:
        from pdb_builders import catalog
    except ImportError:
        return False
    entry = catalog.find(puzzle.name, heuristic)
    if entry is None:
        return False
    return all(t.exists() for t in entry.tables(puzzle.name))


def _earlier_measurements(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Measured rows of the table already in ``out`` (``table.csv``), by (puzzle, heuristic)."""
    path = out / "table.csv"
    if not path.is_file():
        return {}
    try:
        old = pd.read_csv(path)
    except (ValueError, OSError):
        return {}
    if not {"puzzle", "heuristic", "status"} <= set(old.columns):
        return {}
    return {(r["puzzle"], r["heuristic"]): r for r in old.to_dict("records")
            if str(r["status"]).startswith("measured")}


def deepcubea_tables(which: str, build: bool, out: Path, command: str,
                     batch: int = 10_000) -> tuple[str, pd.DataFrame]:
    """Measure every row that can be measured here; a row that cannot (a table not built, a
    model absent) keeps the measurement of the table already in ``out``, marked as earlier."""
    rows: list[dict[str, Any]] = []
    rng = np.random.default_rng(0)
    earlier = _earlier_measurements(out)
    for puzzle, heuristic in TABLE_HEURISTICS:
        loaded = _load(puzzle, heuristic, build)
        if isinstance(loaded, str):
            prev = earlier.get((puzzle, heuristic))
            if prev is not None:
                rows.append({**prev, "status": "measured (earlier run)", "now": loaded})
            else:
                rows.append({"puzzle": puzzle, "heuristic": heuristic, "status": loaded})
            continue
        p, h, load_s = loaded
        try:
            states = p.random_states(batch, rng)
        except NotImplementedError:
            states, _ = p.scramble(batch, 200, rng)
        h(states[:100])  # warm
        reps, t0 = 0, time.perf_counter()
        while reps < 3 or time.perf_counter() - t0 < 1.0:
            h(states)
            reps += 1
        secs = (time.perf_counter() - t0) / reps
        rows.append({"puzzle": puzzle, "heuristic": heuristic, "status": "measured",
                     "memory_mb": h.nbytes / 2**20, "load_s": load_s,
                     "states_per_s": batch / secs, "batch": batch})
    table = pd.DataFrame(rows)
    if which == "deepcubea-table2":
        title = "DeepCubeA Table 2 (our measurement): memory of PDBs against networks"
        cols = [["puzzle", "heuristic", "memory MiB (ours)", "published", "load s"]]
        for r in rows:
            ok = str(r["status"]).startswith("measured")
            mark = " (earlier run)" if r["status"] == "measured (earlier run)" else ""
            cols.append([r["puzzle"], r["heuristic"],
                         f"{r['memory_mb']:,.1f}{mark}" if ok else r["status"],
                         "not recorded", f"{r['load_s']:.1f}" if ok else ""])
    else:
        title = "DeepCubeA Table 3 (our measurement): heuristic evaluation speed"
        cols = [["puzzle", "heuristic", "states/s (ours, batch of 10,000, one process)", "published"]]
        for r in rows:
            ok = str(r["status"]).startswith("measured")
            mark = " (earlier run)" if r["status"] == "measured (earlier run)" else ""
            cols.append([r["puzzle"], r["heuristic"],
                         f"{r['states_per_s']:,.0f}{mark}" if ok else r["status"], "not recorded"])
    lines = header(title, command, [
        "Published figures are not on record in this repository and are shown as `not recorded`; "
        "ours are measured on this machine (CPU; the published figures used GPUs for networks). "
        "A row marked `(earlier run)` could not be measured by this command (a table not built, "
        "a model absent) and keeps the figure of the table it replaced.",
    ])
    lines += [report.markdown_table(cols), ""]
    return "\n".join(lines), table



