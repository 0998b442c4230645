"""``deepcubea-table2``: memory of PDBs against networks (bytes each heuristic holds, the size of
its files: the optimal solvers' strongest tables and the shipped networks), beside the figures
DeepCubeA's paper states."""

from __future__ import annotations

import pandas as pd

from bench.papers import heuristic_measures
from bench.papers.paper_table import PaperTable, Request, refuse_profile_and_run


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return heuristic_measures.deepcubea_tables("deepcubea-table2", req.build, req.dest, req.command)


TABLE = PaperTable(
    name="deepcubea-table2",
    summary="memory of PDBs against networks (bytes each heuristic holds, the size of its "
            "files: the optimal solvers' strongest tables and the shipped networks), beside "
            "the figures DeepCubeA's paper states.",
    make=_make, check=refuse_profile_and_run, runs="none", build=True,
    instances="a batch of 10,000 random states per puzzle, measured on this machine",
    published=("bench.published:TEXT",),
)
