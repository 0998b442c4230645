"""Figures the source papers publish, each with where it is stated.

Two sources for DeepCubeA (Agostinelli, McAleer, Shmakov and Baldi 2019): the paper's text
(``TEXT``) and its per-instance results files (``../shared/data/deepcubea/*/
deepcubea_results_output.txt``: length, nodes generated and seconds of every test state it
solved, read by :func:`per_instance`). Their means can differ slightly from the text's (rounding,
and the text sometimes reports other runs); tables label every figure with its source. A figure
stated nowhere we have is ``None`` and printed as ``not stated``.
"""

from __future__ import annotations

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
    ``mean_length``, ``mean_nodes``, ``mean_time_s``, ``lengths`` ({index: length}); None when
    the file is absent."""
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
            "lengths": {r["index"]: r["moves"] for r in rows}}


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
