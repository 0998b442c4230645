"""A run's rows as a table: loaded from ``rows.jsonl`` (or a committed ``results.csv``), every
solved path replayed, and the derived ``results.parquet`` / ``results.csv``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.run_record import INT_COLUMNS, ROWS, read_rows, row_fault
from core.errors import InputError
from core.status import Status

#: the exported table of a committed copy of a run (results/NAME/), plain or gzip-compressed
#: (large tables are committed compressed to keep the checkout light)
COMMITTED_TABLES = ("results.csv", "results.csv.gz")


def committed_table(run_dir: Path) -> Path | None:
    """The exported table in ``run_dir`` (``results.csv`` or ``results.csv.gz``), or None."""
    for name in COMMITTED_TABLES:
        if (Path(run_dir) / name).is_file():
            return Path(run_dir) / name
    return None


def evaluation_tables(run_dir: Path) -> list[Path]:
    """The per-state tables of ``bench train evaluate`` in ``run_dir`` (``*.csv`` whose header
    holds a row ``key`` and a ``config``), sorted by name; [] where it has a run's own table."""
    run_dir = Path(run_dir)
    if (run_dir / ROWS).is_file() or committed_table(run_dir) is not None:
        return []
    found = []
    for path in sorted(run_dir.glob("*.csv")):
        if path.is_symlink() or not path.is_file():
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            header = fh.readline().rstrip("\r\n").split(",")
        if {"key", "config", "status"} <= set(header):
            found.append(path)
    return found


def _evaluation_rows(tables: list[Path]) -> list[dict[str, Any]]:
    """The rows of several evaluation tables as one run: every row's configuration is named by
    its file (``w4096.csv`` -> ``w4096``), since each table holds one searched configuration."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for path in tables:
        table = pd.read_csv(path, dtype={"instance": str})
        configs = set(table["config"].dropna().astype(str))
        if len(configs) > 1:
            raise InputError(f"RUN_DIR: {path.name} holds several configurations "
                             f"({', '.join(sorted(configs))}); an evaluation table holds one")
        name = path.stem
        table["config"] = name
        table["key"] = table["instance_set"].astype(str) + "/" + table["instance"].astype(str) \
            + "/" + name
        rows.extend(table.to_dict("records"))
    return rows


def load_table(run_dir: Path) -> Any:
    """The run's rows as a pandas DataFrame (one row per instance x configuration), every
    solved row's path replayed (:func:`replay_solved`: one that does not replay is invalid)."""
    return replay_solved(read_table(run_dir))


def read_table(run_dir: Path) -> Any:
    """The run's rows as :func:`load_table` gives them, without replaying their paths (for
    what a row records about itself: provenance, settings)."""
    rows: Sequence[Mapping[str, Any]] = read_rows(Path(run_dir) / ROWS)
    exported = committed_table(run_dir)
    evaluations = [] if rows or exported is not None else evaluation_tables(run_dir)
    if evaluations:
        rows = _evaluation_rows(evaluations)
        from core.rows import row_problem

        for row in rows:
            problem = row_fault(row) or row_problem(row, nan_is_missing=True)
            if problem is not None:
                raise InputError(f"RUN_DIR: {run_dir}: {row['key']}: a bad row ({problem})")
    if not rows and exported is not None:
        # a committed copy of a run (results/NAME/): its exported table
        import pandas as pd

        table = pd.read_csv(exported, dtype={"instance": str})
        if "key" not in table:
            raise InputError(f"RUN_DIR: {exported} is not a run's table (no key column)")
        rows = table.to_dict("records")
        from core.rows import row_problem

        for n, record in enumerate(rows, 2):  # line 1: the header (no field spans lines)
            fault = row_fault(record)
            if fault is not None:
                raise InputError(f"RUN_DIR: {exported}:{n}: {fault}")
            problem = row_problem(record, nan_is_missing=True)
            if problem is not None:
                raise InputError(f"RUN_DIR: {exported} line {n}: a bad row "
                                 f"({problem}); fix or remove the line")
    if not rows:
        raise InputError(f"RUN_DIR: {run_dir} has no result rows ({ROWS})")
    return rows_frame(rows)


def rows_frame(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Rows (``rows.jsonl`` objects, or records of a derived table) as a DataFrame with typed
    columns, the last record of each key kept."""
    import pandas as pd

    df = pd.DataFrame(list(rows))
    # the last record of a key wins (a resumed run never writes a key twice, but be safe)
    df = df.drop_duplicates("key", keep="last").reset_index(drop=True)
    if "heuristic" in df:  # rows naming a heuristic by a former name group with the others
        from core.registry import canonical_heuristic

        df["heuristic"] = df["heuristic"].map(
            lambda h: canonical_heuristic(h) if isinstance(h, str) else h)
    for col in INT_COLUMNS:
        if col in df:
            df[col] = pd.to_numeric(df[col], errors="coerce").astype("Int64")
    for col in ("time_s", "h_start", "load_s", "heuristic_load_s", "solver_s"):
        if col in df:
            df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def replay_solved(df: Any) -> Any:
    """``df`` with every solved row's path replayed on its start state (``state``, ``actions``,
    the row's puzzle and goal): a row whose path is missing, illegal, does not reach the goal or
    whose ``length`` is not its number of moves becomes ``invalid`` (its length cleared, the
    fault in ``error``), so no report counts it solved or optimal. A table without the columns
    of a path (:func:`unreplayable_reason`) is returned as it is; reports say so."""
    import pandas as pd

    from core import registry

    if df.empty or "status" not in df or unreplayable_reason(df) is not None:
        return df
    solved = df.index[df["status"] == Status.SOLVED.value]
    if len(solved) == 0:
        return df
    df = df.copy()
    if "error" not in df:
        df["error"] = None
    df["error"] = df["error"].astype(object)
    faults: dict[Any, str] = {}
    groups: dict[tuple[str, str | None], list[Any]] = {}

    def cell(i: Any, col: str) -> Any:
        v = df.at[i, col] if col in df else None
        return None if v is None or (not isinstance(v, str) and pd.isna(v)) else v

    for i in solved:
        name, goal = cell(i, "puzzle"), cell(i, "goal")
        groups.setdefault((str(name), None if goal is None else str(goal)), []).append(i)
    for (name, goal), idx in groups.items():
        try:
            puzzle = registry.get_puzzle(name, goal=goal) if goal is not None \
                else registry.get_puzzle(name)
        except (InputError, ValueError, TypeError) as exc:
            faults.update({i: f"replay: {str(exc).splitlines()[0]}" for i in idx})
            continue
        paths: dict[Any, tuple[np.ndarray, list[int]]] = {}
        for i in idx:
            try:
                state_text, actions_text, length = cell(i, "state"), cell(i, "actions"), \
                    cell(i, "length")
                if state_text is None or actions_text is None:
                    raise ValueError("no start state or path recorded")
                state = np.array([int(v) for v in str(state_text).split()], dtype=np.int64)
                if state.shape != (puzzle.state_dim,):
                    raise ValueError("the start state is not one of the puzzle")
                actions = puzzle.parse_moves(str(actions_text)) \
                    if str(actions_text).strip() else []
                if length is None or int(length) != len(actions):
                    raise ValueError(f"its length {length} is not its path's {len(actions)} "
                                     "moves")
                paths[i] = (state.astype(puzzle.dtype), actions)
            except (InputError, ValueError, TypeError, OverflowError, IndexError) as exc:
                faults[i] = f"replay: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        for i in _unreplayed(puzzle, paths):
            faults[i] = "replay: its path does not reach the goal from its start state"
    for i, why in faults.items():
        df.at[i, "status"] = Status.INVALID.value
        df.at[i, "error"] = why
        df.at[i, "length"] = pd.NA
    return df


#: the columns a row's replay reads
REPLAY_COLUMNS = ("puzzle", "state", "actions", "length")


def unreplayable_reason(df: Any) -> str | None:
    """Why the rows of ``df`` cannot be replayed at all (a table without the columns of a path:
    made by hand, or by a tool that dropped them), or ``None``."""
    missing = [c for c in REPLAY_COLUMNS if c not in df]
    return f"no {', '.join(missing)} column" if missing else None


def _unreplayed(puzzle: Any, paths: dict[Any, tuple[np.ndarray, list[int]]]) -> list[Any]:
    """The keys of ``paths`` (start state, moves) that do not reach ``puzzle``'s goal: all
    paths replayed together, one batched move at a time (``Puzzle.check_solution`` per path
    where a batch meets an illegal move)."""
    if not paths:
        return []
    keys = list(paths)
    states = np.stack([paths[k][0] for k in keys])
    lengths = np.array([len(paths[k][1]) for k in keys])
    moves = np.zeros((len(keys), int(lengths.max(initial=0))), dtype=np.int64)
    for r, k in enumerate(keys):
        moves[r, :lengths[r]] = paths[k][1]
    try:
        for t in range(moves.shape[1]):
            live = np.flatnonzero(lengths > t)
            if np.any((moves[live, t] < 0) | (moves[live, t] >= puzzle.num_actions)):
                raise ValueError("move out of range")
            states[live] = puzzle.apply(states[live], moves[live, t])
        reached = np.asarray(puzzle.is_goal(states), dtype=bool)
        return [k for k, ok in zip(keys, reached, strict=True) if not ok]
    except (ValueError, IndexError):
        return [k for k in keys if not puzzle.check_solution(*paths[k])]


def invalid_replays(df: Any) -> list[str]:
    """Keys of the rows :func:`replay_solved` made invalid (their error starts ``replay:``)."""
    if "error" not in df:
        return []
    err = df["error"].astype(str)
    return [str(k) for k in df.loc[err.str.startswith("replay:"), "key"]]


def derive_tables(run_dir: Path) -> Any:
    """Write ``results.parquet`` and ``results.csv`` from ``rows.jsonl``; return the DataFrame."""
    df = load_table(run_dir)
    write_tables(df, Path(run_dir))
    return df


def write_tables(df: Any, folder: Path) -> None:
    """Write the run table ``df`` as ``results.parquet`` and ``results.csv`` in ``folder``."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = out[col].map(lambda v: v if v is None or isinstance(v, str)
                                    else json.dumps(v, default=str))
    from core import safe_write

    safe_write.save_parquet(out, folder / "results.parquet", index=False)
    safe_write.save_csv(out, folder / "results.csv", index=False)
