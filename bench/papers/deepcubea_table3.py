"""``deepcubea-table3``: time per heuristic computation (states per second and microseconds per
state, batch evaluation: the optimal solvers' strongest tables and the shipped networks), beside
the figures DeepCubeA's paper states."""

from __future__ import annotations

import pandas as pd

from bench.papers import heuristic_measures
from bench.papers.paper_table import PaperTable, Request, refuse_profile_and_run


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return heuristic_measures.deepcubea_tables("deepcubea-table3", req.build, req.dest, req.command)


TABLE = PaperTable(
    name="deepcubea-table3",
    summary="time per heuristic computation (states per second and microseconds per state, "
            "batch evaluation: the optimal solvers' strongest tables and the shipped networks), "
            "beside the figures DeepCubeA's paper states.",
    make=_make, check=refuse_profile_and_run, runs="none", build=True,
    instances="a batch of 10,000 random states per puzzle, measured on this machine",
    published=("bench.published:TEXT",),
)
