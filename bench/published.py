"""Figures the source papers publish, each with where it is stated.

Two sources for DeepCubeA (Agostinelli, McAleer, Shmakov and Baldi 2019): the paper's text
(``TEXT``) and its per-instance results files (``../shared/data/deepcubea/*/
deepcubea_results_output.txt``: length, nodes generated and seconds of every test state it
solved, read by :func:`per_instance`). Their means can differ slightly from the text's (rounding,
and the text sometimes reports other runs); tables label every figure with its source. A figure
stated nowhere we have is ``None`` and printed as ``not stated``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: DeepCubeA's domains as our puzzle names
DOMAINS = ("cube3", "puzzle15", "puzzle24", "puzzle35", "puzzle48", "lightsout7", "sokoban")

PAPER = "DeepCubeA (2019), text"
FILES = "DeepCubeA results files"


@dataclass(frozen=True)
class Figure:
    value: float | str | None
    source: str
    note: str = ""


#: (domain, figure) -> what the paper's text states
TEXT: dict[tuple[str, str], Figure] = {
    **{(d, "solved_pct"): Figure(100.0, PAPER, "every test state solved") for d in DOMAINS},
    ("cube3", "optimal_pct"): Figure(60.3, PAPER),
    ("cube3", "plus2_pct"): Figure(36.4, PAPER, "two moves longer than optimal"),
    ("cube3", "plus4_pct"): Figure(3.3, PAPER, "four moves longer than optimal"),
    ("puzzle15", "optimal_pct"): Figure(99.4, PAPER),
    ("puzzle24", "optimal_pct"): Figure(96.98, PAPER),
    ("puzzle35", "mean_length"): Figure(124.76, PAPER),
    ("puzzle48", "mean_length"): Figure(253.53, PAPER),
    ("hardest17", "mean_excess"): Figure(2.8, PAPER, "the 17 15-puzzles at distance 80"),
    ("hardest17", "optimal_pct"): Figure(17.6, PAPER, "the 17 15-puzzles at distance 80"),
    # ("qtm26", ...): the cube's 3 positions at distance 26 (quarter turns): none on record here
    ("puzzle24", "pdb_mean_time_s"): Figure(4239.0, PAPER, "the PDB optimal solver"),
    ("puzzle24", "mean_time_s"): Figure(19.3, PAPER),
    ("puzzle24", "pdb_worst_time"): Figure("5 days", PAPER, "the PDB optimal solver"),
    ("puzzle24", "worst_time"): Figure("2 minutes", PAPER),
    ("puzzle24", "pdb_mean_nodes"): Figure(8.19e10, PAPER, "the PDB optimal solver"),
    ("puzzle24", "pdb_optimal_pct"): Figure(100.0, PAPER, "the PDB optimal solver"),
    # memory of the optimal solvers against the networks (``deepcubea-table2``): the cube's
    # optimal solver (cube20src-based, PDBs with group theory) holds 182 GB of tables; the other
    # puzzles' PDB sizes and the networks' sizes, and the time per heuristic computation
    # (``deepcubea-table3``), are not on record here
    ("cube3", "pdb_memory"): Figure("182 GB", PAPER, "the tables of its optimal solver"),
}
#: the figures per domain that summary tables print, in order
SUMMARY_KEYS = ("solved_pct", "mean_length", "optimal_pct", "mean_nodes", "mean_time_s")


def stated(domain: str, figure: str) -> Figure:
    """What the paper's text states for ``(domain, figure)``; ``Figure(None, ...)`` if nothing."""
    return TEXT.get((domain, figure), Figure(None, PAPER, "not stated"))


def results_file(domain: str) -> Path:
    from core.paths import deepcubea_dir

    return deepcubea_dir() / domain / "deepcubea_results_output.txt"


def per_instance(domain: str) -> dict[str, Any] | None:
    """Means over DeepCubeA's per-instance results of ``domain``: ``n`` (states listed),
    ``mean_length``, ``mean_nodes``, ``mean_time_s``, ``lengths`` ({index: length}), ``times``
    ({index: seconds}); None when the file is absent."""
    from suites.importers.deepcubea import load_results

    path = results_file(domain)
    if not path.is_file():
        return None
    rows = load_results(path)
    if not rows:
        return None
    n = len(rows)
    return {"n": n,
            "mean_length": sum(r["moves"] for r in rows) / n,
            "mean_nodes": sum(r["nodes_generated"] for r in rows) / n,
            "mean_time_s": sum(r["time_s"] for r in rows) / n,
            "lengths": {r["index"]: r["moves"] for r in rows},
            "times": {r["index"]: r["time_s"] for r in rows}}


#: EfficientCube (Takano 2023): beam search guided by its policy network, from its per-instance
#: results, on DeepCubeA's test states (``states``: how many; ``None`` where not on record here)
EFFICIENTCUBE_SOURCE = "EfficientCube (Takano 2023), per-instance results"
EFFICIENTCUBE: tuple[dict[str, Any], ...] = (
    *({"puzzle": "cube3", "guide": "EfficientCube (policy)", "search": f"beam {w:,}",
       "states": 1000, "solved_pct": 100.0, "mean_length": m}
      for w, m in ((128, 25.18), (1024, 23.30), (4096, 22.55), (16_384, 21.97),
                   (262_144, 21.26))),
    *({"puzzle": "puzzle15", "guide": "EfficientCube (policy)", "search": f"beam {w:,}",
       "states": 500, "mean_length": m} for w, m in ((64, 52.97), (1024, 52.24))),
    {"puzzle": "puzzle15", "guide": "optimal (as EfficientCube states it)", "search": "-",
     "states": 500, "mean_length": 52.02, "optimal_pct": 100.0},
    {"puzzle": "lightsout7", "guide": "EfficientCube (policy)", "search": "greedy",
     "solved_pct": 100.0, "optimal_pct": 100.0},
)


# --------------------------------------------------------------------------- per-instance files
#: EfficientCube's per-instance results (``../shared/data/efficientcube/``, CC BY 4.0) by puzzle
EFFICIENTCUBE_FILES = {"cube3": "cube3_beam.csv", "puzzle15": "puzzle15_beam.csv",
                       "lightsout7": "lightsout7_beam.csv"}


@functools.cache
def efficientcube_lengths(puzzle: str) -> dict[int, dict[str, int | None]] | None:
    """``{beam width: {instance index (text): length, or None where unsolved}}`` from
    EfficientCube's per-instance results on DeepCubeA's test states of ``puzzle``, read once per
    process (callers do not change it); None when the file is absent. A malformed file is an
    ``InputError`` naming it."""
    import csv

    from core.errors import InputError
    from core.paths import shared_dir

    name = EFFICIENTCUBE_FILES.get(puzzle)
    path = shared_dir() / "data" / "efficientcube" / name if name else None
    if path is None or not path.is_file():
        return None
    out: dict[int, dict[str, int | None]] = {}
    try:
        with path.open(newline="") as f:
            for rec in csv.DictReader(f):
                width = int(rec["beam_width"])
                length = rec["length"].strip()
                out.setdefault(width, {})[str(int(rec["instance"]))] = \
                    int(length) if length else None
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise InputError(f"{path.name}: not EfficientCube's per-instance results ({exc})") \
            from None
    return out


@dataclass(frozen=True)
class Aggregate:
    """A published share of optimal solutions over a whole test set (not per instance)."""

    puzzle: str
    optimal_pct: float
    source: str
    setting: str


#: published % optimal on DeepCubeA's test sets as stated by their authors; tables print them
#: as stated, beside the per-instance figures of the same sets
AGGREGATES: tuple[Aggregate, ...] = (
    Aggregate("cube3", 60.3, PAPER, "DeepCubeA, 1,000 cubes (its results file gives 65.0%)"),
    Aggregate("cube3", 98.4, "CayleyPy (2025), paper",
              "26 agents x beam 2^24 on two H100 GPUs, 1,000 cubes"),
    Aggregate("cube3", 75.4, "CayleyPy (2025), paper", "one agent, beam 2^18, one H100, 9.2 s a cube"),
    Aggregate("cube3", 87.4, "JAxtar, benchmark page", "RTX 5090, 7.9 s a cube"),
    Aggregate("cube3", 69.6, "EfficientCube (Takano 2023), paper",
              "beam 262,144, T4 GPU, 1,000 cubes"),
    Aggregate("puzzle15", 99.4, PAPER, "DeepCubeA, 500 states (its results file: 100%)"),
    Aggregate("puzzle24", 96.98, PAPER, "DeepCubeA, 500 states (its results file: 99.8% of 496)"),
    Aggregate("lightsout7", 100.0, PAPER, "DeepCubeA, 500 states"),
    Aggregate("lightsout7", 100.0, "EfficientCube (Takano 2023), paper", "greedy (width 1)"),
)
