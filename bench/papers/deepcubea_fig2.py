"""The figure ``deepcubea-fig2``, declared in :data:`TABLE` (what it reproduces: its
``summary``): the code that runs (or reads) the suite's run and draws length, nodes and time
per state for each lambda."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bench import report
from bench.papers.paper_table import (
    PaperTable,
    Request,
    check_run,
    header,
    run_suite,
)
from core import safe_write


def _bwas_batches(df: pd.DataFrame) -> str:
    """The batch sizes N of the rows of ``df``, as ``"1,000"`` or ``"1,000 / 10,000"``."""
    from bench import plots

    batch = plots.with_params(df).get("batch", pd.Series(dtype=float)).dropna()
    return " / ".join(f"{n:,}" for n in sorted({int(n) for n in batch})) or "n/a"


def deepcubea_fig2(run_dir: Path | None, limit: int | None, jobs: int | None, out: Path,
                   command: str, profile: str | None = None) -> tuple[str, pd.DataFrame]:
    import matplotlib.pyplot as plt

    from bench import plots
    from bench.run_table import load_table

    if run_dir is not None:
        check_run(run_dir, "cube3")
    run_dir = run_dir or run_suite("cube3", profile or "fig2", limit, jobs,
                                    out.parent / "runs" / out.name)
    df = load_table(run_dir)
    fig, _ = plots.fig_bwas_strips(df)
    out.mkdir(parents=True, exist_ok=True)
    safe_write.save_figure(fig, out / "fig2.png", arg="--out", dpi=130)
    plt.close(fig)
    summ = report.summarize(df)
    lines = header(f"DeepCubeA Figure 2: BWAS (N = {_bwas_batches(df)}) with lambda 0.0 / 0.1 / "
                    "0.2, learned heuristic against Korf's PDB", command, [
                        f"Instances: {df['instance'].nunique()} cubes ("
                        + ", ".join(f"{k}: {v}" for k, v in
                                    df.groupby("instance_set")["instance"].nunique().items())
                        + "). DeepCubeA's figure used its 1000 test cubes (profile `fig2`); "
                        "profile `fig2-short` runs the same six configurations on short scrambles "
                        "that both heuristics solve on a CPU. Figure: `fig2.png`."])
    lines += [report.markdown_table(report.display_table(summ)), ""]
    return "\n".join(lines), summ


def _make(req: Request) -> tuple[str, pd.DataFrame]:
    return deepcubea_fig2(req.run, req.limit, req.jobs, req.dest, req.command,
                          profile=req.profile)


TABLE = PaperTable(
    name="deepcubea-fig2",
    summary="DeepCubeA's Figure 2: BWAS with N = 10,000 and lambda 0.0 / 0.1 / 0.2 on "
            "DeepCubeA's cubes, the shipped network against Korf's PDB: length, nodes and "
            "time, one dot per state (--profile fig2-short: on short scrambles).",
    make=_make, suites=("cube3",), runs="one", profile="fig2",
    instances="suite cube3's profile fig2 (DeepCubeA's 1000 test cubes)",
    published=(),
)
