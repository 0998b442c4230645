"""The table ``deepcubea-table2``, declared in :data:`TABLE` (what it reproduces: its
``summary``); :mod:`bench.papers.heuristic_measures` measures its rows."""

from __future__ import annotations

import pandas as pd

from bench.papers import heuristic_measures
from bench.papers.paper_table import PaperTable, Request, refuse_profile_and_run


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return heuristic_measures.deepcubea_tables("deepcubea-table2", req.build, req.dest, req.command)


TABLE = PaperTable(
    name="deepcubea-table2",
    summary="DeepCubeA's Table 2: memory of the pattern databases against the networks: the "
            "bytes each heuristic holds and the size of its files, for the optimal solvers' "
            "strongest tables (pdb-coset with --probe-inverse near --corner-pdb corners, "
            "pdb-6666kf, ...) and the shipped networks (value-net), beside the figures the "
            "paper states (not recorded where none is on record).",
    make=_make, check=refuse_profile_and_run, runs="none", build=True,
    instances="a batch of 10,000 random states per puzzle, measured on this machine",
    published=("bench.published:TEXT",),
)
