"""The memory and speed of heuristics, PDBs against networks, measured here: the rows of
``deepcubea-table2`` and ``deepcubea-table3``, beside the figures DeepCubeA's paper states
(``bench.published``: ``not recorded`` where we hold none).

Each row is a :class:`Measured`: a puzzle, a heuristic of the registry and its options (the
optimal solvers' strongest tables with the options their IDA* runs use; the learned heuristic
with the shipped model of the puzzle). Memory: the bytes the loaded heuristic holds (tables,
weights) and the size of the files it reads (tables in the cache, the model file). Speed: states
per second of batch evaluation (batches of 10,000 random states, one process) and its inverse,
microseconds per state."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import report
from bench.papers.paper_table import header
from core.errors import InputError


@dataclass(frozen=True)
class Measured:
    """One row: heuristic ``heuristic`` of the registry on ``puzzle`` with ``options`` (name,
    value pairs, as ``bench solve`` takes them)."""

    puzzle: str
    heuristic: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def options_text(self) -> str:
        """The options as the command line spells them (``-`` for none)."""
        return " ".join(f"--{k.replace('_', '-')} {v}" for k, v in self.options) or "-"

    @property
    def key(self) -> tuple[str, str, str]:
        return self.puzzle, self.heuristic, self.options_text


#: the optimal solvers' strongest cube table with the options its IDA* runs use
COSET_OPTIONS = (("probe_inverse", "near"), ("corner_pdb", "corners"))

#: the rows of the memory and speed tables, per puzzle: its PDBs, then the learned heuristic
#: (``value-net``: the shipped model of the puzzle)
TABLE_HEURISTICS: list[Measured] = [
    Measured("cube2", "pdb-cube2"), Measured("cube2", "value-net"),
    Measured("puzzle8", "pdb-full"), Measured("puzzle8", "manhattan"),
    Measured("puzzle8", "value-net"),
    Measured("cube3", "pdb-korf"), Measured("cube3", "pdb-coset", COSET_OPTIONS),
    Measured("cube3", "value-net"),
    Measured("puzzle15", "pdb-555"), Measured("puzzle15", "pdb-663"),
    Measured("puzzle15", "pdb-78"), Measured("puzzle15", "value-net"),
    Measured("puzzle24", "pdb-6666"), Measured("puzzle24", "pdb-6666kf"),
    Measured("puzzle24", "value-net"),
    Measured("puzzle35", "pdb-5x7"), Measured("puzzle35", "value-net"),
    Measured("puzzle48", "pdb-5x9-3"), Measured("puzzle48", "value-net"),
    Measured("lightsout7", "lights-on"), Measured("lightsout7", "value-net"),
]


def _puzzle(name: str) -> Any:
    from core import registry

    return registry.get_puzzle(name, goal="blank-last" if name.startswith("puzzle") else None)


def _table_specs(row: Measured, puzzle: Any) -> list[Any] | None:
    """The cache tables a PDB row reads (its catalog entry's, and the corner table that a
    ``corner_pdb`` option adds), or None for a heuristic without tables."""
    try:
        from pdb_builders import catalog
    except ImportError:
        return None
    entry = catalog.find(puzzle.name, row.heuristic)
    if entry is None:
        return None
    specs = list(entry.tables(puzzle.name))
    corner = dict(row.options).get("corner_pdb", "none")
    if corner != "none":
        from pdb_builders import korf_cube

        specs.append(korf_cube.table_spec(puzzle.name, korf_cube.parse_pattern(corner)))
    return specs


def _load(row: Measured, build: bool) -> tuple[Any, Any, float] | str:
    """The puzzle, the loaded heuristic and its loading seconds; or why the row cannot be
    measured here (a table not built without ``build``, a model or option refused)."""
    from core import registry

    try:
        p = _puzzle(row.puzzle)
        entry = registry.heuristic_entry(row.heuristic)
        if entry.props.needs_pdb and not build:
            specs = _table_specs(row, p)
            if specs is None or not all(t.exists() for t in specs):
                return "not built (run with --build)"
        t0 = time.perf_counter()
        h = registry.get_heuristic(row.heuristic, p, **dict(row.options))
        h(p.example()[None, :])
        return p, h, time.perf_counter() - t0
    except InputError as exc:
        return f"unavailable: {str(exc).split(';')[0]}"
    except (ImportError, AttributeError, FileNotFoundError, NotImplementedError) as exc:
        return f"unavailable: {type(exc).__name__}: {exc}"


def _files_mb(row: Measured, p: Any, h: Any) -> float | None:
    """MiB of the files the heuristic read: its tables in the cache, or its model file."""
    model = getattr(h, "model_path", None)
    if model is not None:
        return Path(model).stat().st_size / 2**20
    specs = _table_specs(row, p)
    if not specs:
        return None
    return sum(t.path.stat().st_size for t in specs if t.exists()) / 2**20


def _what(h: Any) -> str:
    """What a loaded heuristic is beyond its name: a learned one's model and training target."""
    model = getattr(h, "model_path", None)
    if model is None:
        return "-"
    return f"shipped model `{Path(model).parent.name}` ({getattr(h, 'trained_target', '?')})"


def _earlier_measurements(out: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Measured rows of the table already in ``out`` (``table.csv``), by (puzzle, heuristic,
    options)."""
    path = out / "table.csv"
    if not path.is_file():
        return {}
    try:
        old = pd.read_csv(path)
    except (ValueError, OSError):
        return {}
    if not {"puzzle", "heuristic", "status"} <= set(old.columns):
        return {}
    return {(str(r["puzzle"]), str(r["heuristic"]), _text(r.get("options"))): r
            for r in old.to_dict("records") if str(r["status"]).startswith("measured")}


def _text(v: Any) -> str:
    """A text cell of a read table (``-`` where empty)."""
    return v if isinstance(v, str) and v else "-"


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Networks evaluate on one thread while the rows are measured, as the tables do: torch's
    default of a thread per core made batch evaluation about 3 times slower, not faster, on
    the shared 2-core machine (the threads wait on each other)."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _measure(row: Measured, p: Any, h: Any, load_s: float, batch: int,
             rng: np.random.Generator) -> dict[str, Any]:
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
    return {"puzzle": row.puzzle, "heuristic": row.heuristic, "options": row.options_text,
            "what": _what(h), "status": "measured", "memory_mb": h.nbytes / 2**20,
            "files_mb": _files_mb(row, p, h), "load_s": load_s, "states_per_s": batch / secs,
            "us_per_state": 1e6 * secs / batch, "batch": batch}


def published_cell(row: Measured, which: str) -> str:
    """The figure DeepCubeA's paper states for the row's kind (its PDB solver or its network)
    on the row's puzzle, with its source; ``not recorded`` where we hold none."""
    from bench import published
    from core import registry

    pdb = registry.heuristic_entry(row.heuristic).props.admissible
    kind = "pdb" if pdb else "network"
    figure = published.stated(row.puzzle, f"{kind}_{which}")
    if figure.value is None:
        return "not recorded"
    return f"{figure.value} ({figure.note or ('its PDB solver' if pdb else 'its network')})"


def _cell(r: dict[str, Any], key: str, fmt: str) -> str:
    v = r.get(key)
    if v is None or (isinstance(v, float) and np.isnan(v)) or v == "":
        return "-"
    return fmt.format(float(v))


def deepcubea_tables(which: str, build: bool, out: Path, command: str,
                     batch: int = 10_000) -> tuple[str, pd.DataFrame]:
    """Measure every row that can be measured here; a row that cannot (a table not built, a
    model absent) keeps the measurement of the table already in ``out``, marked as earlier."""
    rows: list[dict[str, Any]] = []
    rng = np.random.default_rng(0)
    earlier = _earlier_measurements(out)
    with one_thread():
        for row in TABLE_HEURISTICS:
            loaded = _load(row, build)
            if isinstance(loaded, str):
                prev = earlier.get(row.key)
                rows.append({**(prev or {}), "puzzle": row.puzzle, "heuristic": row.heuristic,
                             "options": row.options_text,
                             **({"status": "measured (earlier run)", "now": loaded} if prev
                                else {"status": loaded})})
                continue
            rows.append(_measure(row, *loaded, batch, rng))
    table = pd.DataFrame(rows)
    if which == "deepcubea-table2":
        title = "DeepCubeA Table 2 (our measurement): memory of PDBs against networks"
        cols = [["puzzle", "heuristic", "options / model", "memory MiB (ours, held)",
                 "files MiB (ours)", "DeepCubeA (paper)", "load s"]]
    else:
        title = "DeepCubeA Table 3 (our measurement): time per heuristic computation"
        cols = [["puzzle", "heuristic", "options / model",
                 f"states/s (ours, batch of {batch:,}, one thread)", "us per state (ours)",
                 "DeepCubeA (paper)"]]
    for row, r in zip(TABLE_HEURISTICS, rows, strict=True):
        ok = str(r["status"]).startswith("measured")
        mark = " (earlier run)" if r["status"] == "measured (earlier run)" else ""
        opts = "; ".join(x for x in (row.options_text, _text(r.get("what"))) if x != "-") or "-"
        pub = published_cell(row, "memory" if which == "deepcubea-table2" else
                             "time_per_state")
        if which == "deepcubea-table2":
            cols.append([row.puzzle, row.heuristic, opts,
                         _cell(r, "memory_mb", "{:,.1f}") + mark if ok else str(r["status"]),
                         _cell(r, "files_mb", "{:,.1f}") if ok else "", pub,
                         _cell(r, "load_s", "{:.1f}") if ok else ""])
        else:
            cols.append([row.puzzle, row.heuristic, opts,
                         _cell(r, "states_per_s", "{:,.0f}") + mark if ok else str(r["status"]),
                         _cell(r, "us_per_state", "{:.3g}") if ok else "", pub])
    lines = header(title, command, [
        "Ours: measured on this machine's CPU (the paper's networks ran on GPUs). The machine is "
        "shared with a training job and other work, so the load and speed figures are "
        "indications, not benchmarks. Memory held: the bytes of the loaded tables or weights; "
        "files: the table files in the cache or the model file. Speed: batch evaluation of "
        f"{batch:,} random states in one process on one thread (for `pdb-coset` with `--probe-inverse near` "
        "the batch values always include the inverse lookups; its IDA* kernel reads them only "
        "near the bound). The learned rows load the shipped model of each puzzle (`bench "
        "models`), named with its training target. DeepCubeA (paper): the figures of "
        "Agostinelli et al., \"Solving the Rubik's cube with deep reinforcement learning and "
        "search\" (Nature Machine Intelligence, 2019) that we hold, for its PDB optimal solver "
        "on PDB rows and its network on learned rows; `not recorded` where we hold none. A row "
        "marked `(earlier run)` could not be measured by this command (a table not built, a "
        "model absent) and keeps the figure of the table it replaced.",
    ])
    lines += [report.markdown_table(cols), ""]
    return "\n".join(lines), table
