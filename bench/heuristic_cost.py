"""What a heuristic costs before its first search, beside what its searches cost: for a network,
the CPU-seconds and states of its training (its model card, ``config.json`` beside the weights);
for pattern databases, the seconds and peak memory of their build and the bytes stored (each
table file's metadata, ``pdb_builders.store``). ``with_heuristic_costs(df)`` adds them to a run's
rows as columns (one value per configuration), read from the files at hand when the report is
made; a figure that is not recorded stays empty."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

#: the columns ``with_heuristic_costs`` adds
COST_COLUMNS = ("train_cpu_s", "train_states", "build_s", "build_peak_bytes", "table_bytes")


def model_card_costs(model_file: Path) -> dict[str, float | None]:
    """Training CPU-seconds and states seen from the model card beside ``model_file`` (its
    ``config.json``), None where the card does not record them."""
    card = model_file.parent / "config.json"
    try:
        meta = json.loads(card.read_text())
    except (OSError, ValueError):
        return {"train_cpu_s": None, "train_states": None}
    if not isinstance(meta, dict):
        return {"train_cpu_s": None, "train_states": None}

    def number(key: str) -> float | None:
        v = meta.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    return {"train_cpu_s": number("train_cpu_seconds"), "train_states": number("states_seen")}


def table_costs(paths: list[Path]) -> dict[str, float | None]:
    """Build seconds (summed), build peak memory (the largest) and stored bytes (summed) of
    the pattern-database files ``paths``; a figure no file records is None, and one that some
    files lack is None too (a sum over part of the tables would understate it)."""
    from pdb_builders.store import read_attrs

    seconds: list[float | None] = []
    peaks: list[float | None] = []
    size = 0
    for p in paths:
        attrs = read_attrs(p)
        b = attrs.get("build_seconds")
        m = attrs.get("build_peak_rss_bytes")
        seconds.append(float(b) if isinstance(b, int | float) else None)
        peaks.append(float(m) if isinstance(m, int | float) else None)
        size += p.stat().st_size
    return {"build_s": None if not seconds or None in seconds else sum(s or 0.0 for s in seconds),
            "build_peak_bytes": None if not peaks or None in peaks
            else max(m or 0.0 for m in peaks),
            "table_bytes": float(size) if paths else None}


@lru_cache(maxsize=64)
def heuristic_costs(puzzle: str, heuristic: str, model: str | None) -> dict[str, float | None]:
    """The costs of one configuration's heuristic (``model``: its ``model`` argument, None for
    the shipped one): every column of ``COST_COLUMNS``, None where not known here."""
    from core import registry
    from core.errors import InputError
    from pdb_builders import catalog
    from pdb_builders.store import DatabaseError

    out: dict[str, float | None] = dict.fromkeys(COST_COLUMNS)
    try:
        entry = registry.heuristic_entry(heuristic)
        if entry.props.needs_model:
            files = registry.model_files(entry, puzzle, model)
            if files:
                out.update(model_card_costs(Path(files[0])))
        tables = catalog.find(puzzle, heuristic)
        if tables is not None:
            specs = tables.tables(puzzle)
            if specs and all(s.exists() for s in specs):
                out.update(table_costs([s.path for s in specs]))
    except (InputError, DatabaseError, OSError, KeyError):
        pass
    return out


def _model_arg(params: Any) -> str | None:
    try:
        p = json.loads(params) if isinstance(params, str) and params else {}
    except ValueError:
        return None
    v = p.get("h.model", p.get("model")) if isinstance(p, dict) else None
    return str(v) if v is not None else None


@lru_cache(maxsize=64)
def _digests(puzzle: str, heuristic: str, model: str | None) -> tuple[str | None, str | None]:
    """The digests of the model and tables ``heuristic`` would load here now."""
    from bench.runner import model_digest, table_digest

    return (model_digest(puzzle, heuristic, {"model": model} if model is not None else {}),
            table_digest(puzzle, heuristic))


def _same(recorded: Any, now: str | None) -> bool:
    return isinstance(recorded, str) and bool(recorded) and recorded == now


def with_heuristic_costs(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the ``COST_COLUMNS`` of each row's heuristic (rows that carry them keep
    theirs). A figure is given only where the row's digest of its model (``model_sha256``) or
    tables (``tables_sha256``) is that of the files read here: the cost of other weights or
    tables than the row's search used is not its cost (rows made before digests were recorded
    get none)."""
    if df.empty or "heuristic" not in df or "puzzle" not in df:
        return df
    n = len(df)
    keys = list(zip(df["puzzle"], df["heuristic"],
                    df["params"] if "params" in df else [None] * n, strict=True))
    found = {k: heuristic_costs(str(k[0]), str(k[1]), _model_arg(k[2])) for k in set(keys)
             if isinstance(k[0], str) and isinstance(k[1], str)}
    digests = {k: _digests(str(k[0]), str(k[1]), _model_arg(k[2])) for k in found}
    models = df["model_sha256"] if "model_sha256" in df else [None] * n
    tables = df["tables_sha256"] if "tables_sha256" in df else [None] * n
    ok_model = [k in digests and _same(m, digests[k][0]) for k, m in zip(keys, models,
                                                                          strict=True)]
    ok_tables = [k in digests and _same(t, digests[k][1]) for k, t in zip(keys, tables,
                                                                          strict=True)]
    out = df.copy()
    for col in COST_COLUMNS:
        ok = ok_model if col.startswith("train") else ok_tables
        values = [found.get(k, {}).get(col) if good else None
                  for k, good in zip(keys, ok, strict=True)]
        fresh = pd.Series(values, index=df.index, dtype=float)
        out[col] = pd.to_numeric(df[col], errors="coerce").fillna(fresh) if col in df else fresh
    return out
