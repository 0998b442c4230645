"""The table ``deepcubea-table3``, declared in :data:`TABLE` (what it reproduces: its
``summary``); :mod:`bench.papers.heuristic_measures` measures its rows."""

from __future__ import annotations

import pandas as pd

from bench.papers import heuristic_measures
from bench.papers.paper_table import PaperTable, Request, refuse_profile_and_run


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return heuristic_measures.deepcubea_tables("deepcubea-table3", req.build, req.dest, req.command)


TABLE = PaperTable(
    name="deepcubea-table3",
    summary="DeepCubeA's Table 3: time per heuristic computation (states per second and "
            "microseconds per state, batches of 10,000 states, one process on one thread), the "
            "rows of deepcubea-table2, beside the paper's figures where we hold them. Timings "
            "on a shared machine are indications.",
    make=_make, check=refuse_profile_and_run, runs="none", build=True,
    instances="a batch of 10,000 random states per puzzle, measured on this machine",
    published=("bench.published:TEXT",),
)
