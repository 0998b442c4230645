"""What the viewer's page shows: a run folder (:class:`RunSource`) or one search
(:class:`SolveSource`).

A source answers two requests: ``index()`` (the page's tables: a run's summary per instance set,
as the console prints it, its rows, its figures) and ``replay(key)`` (one row's path, :func:`bench.view.replay.replay`). A run's rows are
read as the reports read them (``rows.jsonl``, or the derived ``results.csv`` of a committed
results folder); each replayed path goes through the puzzle's own moves again.

Along a row's path the viewer evaluates every distinct heuristic of the run's configurations on
that puzzle (the row's own first), so a PDB and a network of the same run are plotted side by
side on the same states. Small pattern databases are built on first use (``BUILD_ENTRIES``); a
larger one whose tables are not in the cache, or a model that does not load, is listed with the
reason instead.
"""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np

from bench.view.replay import Curve, ReplayError, check_moves, replay
from core import registry
from core.capabilities import Policy
from core.errors import InputError
from heuristics.base import Heuristic
from heuristics.zero import Zero
from puzzles.base import Puzzle

#: missing pattern database tables of at most this many entries in all are built on first use
#: (seconds: the 2x2x2's exact table, the 8-puzzle's); larger ones are left to ``bench pdb build``
BUILD_ENTRIES = 4_000_000
#: heuristic options that change where or how precisely a network evaluates, not what it is
_EVALUATION_ARGS = ("device", "precision")


def _clean(v: Any) -> Any:
    """A table cell as plain JSON: NaN and pandas' missing values become None, numpy scalars
    Python numbers."""
    if v is None:
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    try:
        import pandas as pd

        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    return v


def curve_label(name: str, args: dict[str, Any], heuristic: Heuristic | None = None) -> str:
    """``value-net (diffusion, model cube3)``: a heuristic as every output names it
    (``core.labels.heuristic_label``: what its network was trained on, where ``heuristic`` is
    loaded) with the options that say which one it is."""
    from core.labels import heuristic_label

    shown = {k: v for k, v in args.items() if k not in _EVALUATION_ARGS and v is not None}
    return heuristic_label(name, heuristic.trained_target if heuristic is not None else None,
                           shown)


class HeuristicCache:
    """Heuristics loaded once per (puzzle, name, options); a failure is remembered with its
    reason. Pattern databases are loaded only when their tables are in the cache."""

    def __init__(self) -> None:
        self._made: dict[tuple[Any, ...], tuple[Heuristic | None, str | None]] = {}

    def get(self, puzzle: Puzzle, name: str, args: dict[str, Any]) -> tuple[Heuristic | None,
                                                                             str | None]:
        key = (puzzle.name, puzzle.layout, name,
               json.dumps(args, sort_keys=True, default=str))
        if key not in self._made:
            self._made[key] = self._make(puzzle, name, args)
        return self._made[key]

    @staticmethod
    def _make(puzzle: Puzzle, name: str, args: dict[str, Any]) -> tuple[Heuristic | None,
                                                                       str | None]:
        try:
            entry = registry.heuristic_entry(name)
        except InputError as exc:
            return None, str(exc)
        if entry.props.ranks_moves:
            return None, "a policy: it ranks moves and gives no distance estimate"
        if entry.props.needs_pdb and not args:
            from pdb_builders import catalog

            found = catalog.find(puzzle.name, name)
            tables = found.tables(puzzle.name) if found is not None else []
            missing = sum(t.entries for t in tables if not t.exists())
            if missing > BUILD_ENTRIES:
                return None, (f"pattern database not built (bench pdb build {puzzle.name} "
                              f"{name})")
        try:
            return registry.get_heuristic(name, puzzle, **args), None
        except Exception as exc:  # a model or table that does not load: say why, go on
            lines = str(exc).strip().splitlines()
            return None, f"cannot load: {lines[0] if lines else type(exc).__name__}"


class RunSource:
    """A run folder: its rows, summary and figures; a replay per row."""

    mode = "run"

    def __init__(self, run_dir: Path) -> None:
        from bench import report

        self.run_dir = Path(run_dir)
        df = read_run(self.run_dir)
        self.df = report.with_reference_optima(df)
        self.rows: dict[str, dict[str, Any]] = {
            str(r["key"]): {k: _clean(v) for k, v in r.items()}
            for r in self.df.to_dict("records")}
        self.figures = sorted(p.name for p in self.run_dir.glob("*.png")
                              if p.is_file() and not p.is_symlink())
        self._heuristics = HeuristicCache()
        self._puzzles: dict[tuple[str, str | None], Puzzle] = {}
        self._lock = threading.Lock()
        self._index = self._make_index()

    # ------------------------------------------------------------------ index
    def _make_index(self) -> dict[str, Any]:
        from bench import report

        df = self.df
        sets = []
        for set_name, g, summ, comp in report.set_sections(df):
            table = report.display_table(summ)
            entry: dict[str, Any] = {"name": set_name, "instances": int(g["instance"].nunique()),
                                     "header": table[0], "rows": table[1:],
                                     "legend": report.legend_text(summ), "comparison": None}
            if comp is not None:
                ctable = report.display_table(comp, comparison=True)
                entry["comparison"] = {"n": int(comp["n"].max()) if len(comp) else 0,
                                       "header": ctable[0], "rows": ctable[1:],
                                       "left_out": report.left_out_note(comp)}
            sets.append(entry)
        out: dict[str, Any] = {
            "mode": self.mode, "title": self.run_dir.name, "path": str(self.run_dir),
            "sets": sets, "reference_note": report.reference_note(df),
            "figures": self.figures,
        }
        cols = ("instance_set", "instance", "config", "heuristic", "solver", "status", "length",
                "optimal", "nodes_generated", "time_s")
        out["rows"] = [{"key": k, **{c: r.get(c) for c in cols}} for k, r in self.rows.items()]
        return out

    def index(self) -> dict[str, Any]:
        return self._index

    # ------------------------------------------------------------------ replay
    def _puzzle(self, row: dict[str, Any]) -> Puzzle:
        key = (str(row.get("puzzle")), row.get("goal") or None)
        if key not in self._puzzles:
            try:
                self._puzzles[key] = registry.get_puzzle(key[0], goal=key[1])
            except InputError as exc:
                raise ReplayError(f"puzzle of the row: {exc}") from None
        return self._puzzles[key]

    def _heuristic_configs(self, row: dict[str, Any]) -> list[tuple[str, dict[str, Any],
                                                                    list[str]]]:
        """Distinct ``(heuristic, options, configurations)`` of the run on the row's puzzle,
        the row's own first; ``zero`` (h = 0) is left out."""
        found: dict[tuple[str, str], tuple[str, dict[str, Any], list[str]]] = {}
        same = [r for r in self.rows.values()
                if r.get("puzzle") == row.get("puzzle") and r.get("goal") == row.get("goal")]
        for r in [row] + same:
            name = r.get("heuristic")
            if not name or name == registry.NO_HEURISTIC:
                continue
            args = heuristic_args(r)
            ident = (str(name), json.dumps({k: v for k, v in args.items()
                                            if k not in _EVALUATION_ARGS}, sort_keys=True))
            if ident not in found:
                found[ident] = (str(name), args, [])
            if r.get("config") not in found[ident][2]:
                found[ident][2].append(str(r.get("config")))
        return list(found.values())

    def replay(self, key: str) -> dict[str, Any]:
        """The replay of the row ``key`` (``KeyError`` if the run has none)."""
        row = self.rows[key]
        error = row.get("error")
        if isinstance(error, str) and error.startswith("replay: "):
            # recorded as solved, but its path did not replay when the run was read
            raise ReplayError(error.removeprefix("replay: "))
        with self._lock:
            return self._replay(key, row)

    def _replay(self, key: str, row: dict[str, Any]) -> dict[str, Any]:
        from bench import report

        puzzle = self._puzzle(row)
        start = row_state(puzzle, row)
        solved = row.get("status") == "solved"
        actions: list[int] = []
        if solved and row.get("actions"):
            check_moves(len(str(row["actions"]).split()))  # before parsing a huge path
            try:
                actions = puzzle.parse_moves(str(row["actions"]))
            except InputError as exc:
                raise ReplayError(f"the recorded moves: {exc}") from None
        length = row.get("length")
        if solved and length is not None and int(length) != len(actions):
            raise ReplayError(f"the row records length {length} but {len(actions)} moves")
        curves, unavailable = [], []
        for name, args, configs in self._heuristic_configs(row):
            h, reason = self._heuristics.get(puzzle, name, args)
            label = curve_label(name, args, h)
            if h is None:
                unavailable.append((label, reason or "unavailable"))
                continue
            own = name == row.get("heuristic") and row.get("config") in configs
            if configs != [label]:  # which configurations use it, unless named alike
                label = f"{label}: {', '.join(configs)}"
            curves.append(Curve(label, name, h, own))
        optimal = row.get("optimal")
        optimal = int(optimal) if optimal is not None else None
        path_optimal = None
        if solved and optimal is not None and len(actions) == optimal:
            path_optimal = (f"its length equals the reference optimum, from "
                            f"{row.get('optimal_from') or 'the instance set'}")
        elif solved and report.optimal_by_construction(row) \
                and row.get("optimal_claim") != "refuted":
            path_optimal = f"{row.get('solver')} with {row.get('heuristic')} is optimal" + (
                " by declaration only (nothing in the run confirms it)"
                if row.get("optimal_claim") == "declared" else "")
        own_heuristic = row.get("heuristic")
        if own_heuristic == registry.NO_HEURISTIC:
            unavailable.insert(0, (str(row.get("solver")), "the solver uses no heuristic"))
        siblings = [{"key": k, "config": r.get("config"), "status": r.get("status"),
                     "length": r.get("length")}
                    for k, r in self.rows.items()
                    if r.get("instance_set") == row.get("instance_set")
                    and r.get("instance") == row.get("instance")]
        return replay(
            puzzle, start, actions, curves, unavailable, optimal=optimal,
            path_optimal=path_optimal, require_goal=solved, key=key,
            title=f"{row.get('instance_set')}/{row.get('instance')}: {row.get('config')}",
            config=row.get("config"), heuristic=own_heuristic, solver=row.get("solver"),
            status=row.get("status"), length=length,
            h_start_recorded=row.get("h_start"), siblings=siblings,
            nodes_generated=row.get("nodes_generated"), time_s=row.get("time_s"))


def heuristic_args(row: dict[str, Any]) -> dict[str, Any]:
    """The heuristic options of a row's configuration (its ``params``' ``h.`` entries), without
    the device it ran on (the viewer evaluates on the CPU)."""
    try:
        params = json.loads(row.get("params") or "{}")
    except (TypeError, ValueError):
        params = {}
    if not isinstance(params, dict):
        return {}
    return {k[2:]: v for k, v in params.items() if k.startswith("h.") and k != "h.device"}


def row_state(puzzle: Puzzle, row: dict[str, Any]) -> np.ndarray:
    """A row's start state (``state``: space-separated values), checked by the puzzle."""
    text = row.get("state")
    try:
        values = [int(v) for v in str(text).split()]
        state = np.array(values, dtype=puzzle.dtype)
        puzzle.validate(state)
    except (ValueError, OverflowError) as exc:  # InputError is a ValueError
        raise ReplayError(f"the row's state: {exc}") from None
    return state


def _check_contained(run_dir: Path, name: str) -> None:
    """``InputError`` unless ``run_dir / name`` is absent or a regular file inside ``run_dir``
    (as the figures are served: no symlink leads out of the folder, nothing but a file is
    read); its content is never echoed."""
    path = run_dir / name
    if not path.exists() and not path.is_symlink():
        return
    try:
        real = path.resolve(strict=True)
        inside = real.parent == run_dir.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling or looping link
        inside, real = False, path
    if path.is_symlink() and not inside:
        raise InputError(f"RUN_DIR: {run_dir / name} is a link that leads out of the folder; "
                         "the viewer reads only files inside it")
    if not inside or not real.is_file():
        raise InputError(f"RUN_DIR: {run_dir / name} is not a regular file")


def read_run(run_dir: Path) -> Any:
    """A run's rows as a DataFrame, read as ``bench report`` reads them: ``rows.jsonl``, or the
    exported ``results.csv`` of a committed results folder."""
    from bench import runner
    from bench.run_table import COMMITTED_TABLES, committed_table

    if not run_dir.is_dir():
        raise InputError(f"RUN_DIR: {run_dir} is not a folder")
    for name in (runner.ROWS, *COMMITTED_TABLES, runner.RUN_JSON):
        _check_contained(run_dir, name)
    if not (run_dir / runner.ROWS).is_file() and committed_table(run_dir) is None:
        raise InputError(f"RUN_DIR: {run_dir} holds no run ({runner.ROWS} or results.csv)")
    try:
        return runner.load_table(run_dir)
    except InputError:
        raise
    except (ValueError, KeyError, OSError) as exc:  # a damaged table (pandas' errors included)
        lines = str(exc).strip().splitlines()
        raise InputError(f"RUN_DIR: cannot read the run in {run_dir} "
                         f"({lines[0][:120] if lines else type(exc).__name__})") from None


class SolveSource:
    """One search (``bench view PUZZLE STATE``): its path, with the heuristic that guided it and
    any heuristics given to compare."""

    mode = "solve"
    key = "solve"

    def __init__(self, solved: Any, summary: str, compare: tuple[str, ...] = ()) -> None:
        """``solved``: a :class:`bench.commands.solve.Solved`; ``summary``: its text."""
        self.solved = solved
        self.summary = summary
        self.compare = compare
        self._heuristics = HeuristicCache()
        self._lock = threading.Lock()
        r = solved.result
        self.row = {"key": self.key, "instance_set": "", "instance": solved.puzzle.name,
                    "config": f"{solved.solver_name} with "
                              f"{curve_label(solved.heuristic_name, {}, solved.heuristic)}",
                    "heuristic": solved.heuristic_name, "solver": solved.solver_name,
                    "status": str(r.status), "length": r.length, "optimal": None,
                    "nodes_generated": r.nodes_generated, "time_s": r.time_s}

    def index(self) -> dict[str, Any]:
        s = self.solved
        return {"mode": self.mode, "title": f"{s.puzzle.name}: {self.row['config']}",
                "path": None, "sets": [], "reference_note": "",
                "text": self.summary, "figures": [], "rows": [self.row], "open": self.key}

    def replay(self, key: str) -> dict[str, Any]:
        if key != self.key:
            raise KeyError(key)
        with self._lock:
            return self._replay()

    def _replay(self) -> dict[str, Any]:
        from bench import report

        s = self.solved
        r = s.result
        solved = str(r.status) == "solved" and r.actions is not None
        actions = list(r.actions) if solved else []
        curves, unavailable = [], []
        own_label = curve_label(s.heuristic_name, s.heuristic_args, s.heuristic)
        if isinstance(s.heuristic, Zero):
            unavailable.append((s.solver_name, "the solver uses no heuristic"))
        elif isinstance(s.heuristic, Policy):
            unavailable.append((own_label, "a policy: it ranks moves and gives no distance "
                                           "estimate"))
        else:
            curves.append(Curve(own_label, s.heuristic_name, s.heuristic, True))
        for name in self.compare:
            h, reason = self._heuristics.get(s.puzzle, name, {})
            if h is None:
                unavailable.append((name, reason or "unavailable"))
            else:
                curves.append(Curve(curve_label(name, {}, h), name, h))
        given = {f"s.{k}": v for k, v in s.solver_args.items() if v is not None}
        row = {"solver": s.solver_name, "heuristic": s.heuristic_name,
               "params": json.dumps(given)}
        path_optimal = (f"{s.solver_name} with {s.heuristic_name} is optimal"
                        if solved and report.optimal_by_construction(row) else None)
        return replay(
            s.puzzle, s.state, actions, curves, unavailable, path_optimal=path_optimal,
            require_goal=solved, key=self.key, title=self.index()["title"],
            config=self.row["config"], heuristic=s.heuristic_name, solver=s.solver_name,
            status=str(r.status), length=r.length, h_start_recorded=r.h_start,
            siblings=[], nodes_generated=r.nodes_generated, time_s=r.time_s)
