"""The column table (``bench.columns``): its aggregates against counts made by hand on small
synthetic rows, one "% optimal" in every table that prints it, the legends, and the figures
every report makes (per instance set, unsolved runs shown)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import columns, compare_plots, plots, report
from bench.cli import main

ROOT = Path(__file__).resolve().parents[1]

# (instance set, instance, config, status, length, optimal, lower bound, nodes, seconds)
ROWS = [
    ("a", "0", "ida", "solved", 10, 10, 10, 100, 0.5),
    ("a", "1", "ida", "solved", 12, 12, 11, 300, 1.5),
    ("a", "2", "ida", "timeout", None, None, 9, 900, 9.0),
    ("a", "0", "bwas", "solved", 12, 10, 10, 50, 0.2),
    ("a", "1", "bwas", "solved", 12, 12, 11, 70, 0.3),
    ("a", "2", "bwas", "solved", 13, None, 9, 90, 0.4),
    ("b", "0", "ida", "solved", 20, 20, 18, 1000, 2.0),
    ("b", "1", "ida", "solved", 21, 21, 21, 2000, 4.0),
    ("b", "0", "bwas", "node-limit", None, 20, 18, 10_000, 1.0),
    ("b", "1", "bwas", "solved", 23, 21, 21, 500, 0.5),
]


def frame() -> pd.DataFrame:
    return pd.DataFrame([
        {"instance_set": s, "instance": i, "config": c, "status": st, "length": ln,
         "optimal": opt, "lower_bound": lb, "nodes_generated": n, "time_s": t,
         "solver": "ida" if c == "ida" else "bwas", "heuristic": "manhattan", "params": "{}",
         "puzzle": "puzzle15", "suite": "fake", "key": f"{s}/{i}/{c}", "limit_time_s": 60.0,
         "peak_rss_bytes": 2**20, "heuristic_nbytes": 2**20}
        for s, i, c, st, ln, opt, lb, n, t in ROWS])


def _rows(s: str, c: str) -> pd.DataFrame:
    df = frame()
    return df[(df.instance_set == s) & (df.config == c)]


# hand counts over ROWS (an unsolved instance with a reference counts as not optimal)
HAND = {  # (set, config): (% optimal k/n, % at lower bound k/n, mean length, mean excess)
    ("a", "ida"): ((2, 2), (1, 3), 11.0, 0.0),
    ("a", "bwas"): ((1, 2), (0, 3), 37 / 3, 1.0),
    ("b", "ida"): ((2, 2), (1, 2), 20.5, 0.0),
    ("b", "bwas"): ((0, 2), (0, 2), 23.0, 2.0),
}


@pytest.mark.parametrize("key", sorted(HAND))
def test_aggregates_match_hand_counts(key):
    g = _rows(*key)
    (ok, n_ref), (at, n_lb), mean_length, mean_excess = HAND[key]
    assert columns.optimal_share(g) == columns.Share(ok, n_ref)
    assert columns.at_bound_share(g) == columns.Share(at, n_lb)
    fields = columns.aggregate(g, ci=False)
    assert fields["mean_length"] == pytest.approx(mean_length)
    assert fields["mean_excess"] == pytest.approx(mean_excess)
    assert fields["optimal_pct"] == pytest.approx(100 * ok / n_ref)
    assert columns.OPTIMAL.render(fields) == f"{100 * ok / n_ref:.1f} ({ok}/{n_ref})"


def test_a_share_prints_its_denominator():
    assert str(columns.Share(2, 5)) == "40.0 (2/5)"
    assert str(columns.Share(0, 0)) == "n/a" and np.isnan(columns.Share(0, 0).pct)


def test_summary_and_comparison_per_set():
    df = frame()
    sections = {name: (summ, comp) for name, _, summ, comp in report.set_sections(df)}
    assert list(sections) == ["a", "b"]  # never pooled
    summ, comp = sections["b"]
    table = report.display_table(summ)
    row = dict(zip(table[0], table[2], strict=True))  # bwas on b
    assert row["% optimal"] == "0.0 (0/2)" and row["% at lower bound"] == "0.0 (0/2)"
    assert row["failures"] == "node-limit 1" and row["solved"] == "1"
    # the comparison: instance 1 only; nothing of the full set (failures, solved %) is shown
    ctable = report.display_table(comp, comparison=True)
    assert "failures" not in ctable[0] and "solved %" not in ctable[0]
    crow = dict(zip(ctable[0], ctable[2], strict=True))
    assert crow["n"] == "1" and crow["solved"] == "1" and crow["% optimal"] == "0.0 (0/1)"
    assert crow["mean length [95% CI]"].startswith("23.00")


def test_legends_are_printed_with_the_tables(tmp_path, capsys):
    md = report.report_markdown(frame())
    for col in (columns.OPTIMAL, columns.AT_BOUND, columns.EXCESS):
        assert f"- {col.label}: {col.legend}." in md
    run = tmp_path / "run"
    run.mkdir()
    rows = frame().to_dict("records")
    (run / "rows.jsonl").write_text("".join(json.dumps(_clean(r)) + "\n" for r in rows))
    main(["report", str(run), "--figures", "coverage", "--figures", "excess"])
    out = capsys.readouterr().out
    assert f"{columns.AT_BOUND.label}: {columns.AT_BOUND.legend}." in out
    assert f"{columns.OPTIMAL.label}: {columns.OPTIMAL.legend}." in out
    assert "% proven optimal" not in out and "% proven optimal" not in md
    for name in ("coverage", "excess"):
        path = run / f"{name}.png"
        assert path.is_file() and path.stat().st_size > 5_000, name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (run / "scatter.png").exists()  # --figures: only those named


def test_every_suite_run_gets_the_comparison_figures():
    assert plots.report_figures(("nodes-vs-length",)) == ["nodes-vs-length", "scatter",
                                                         "coverage", "by-depth", "excess"]
    assert plots.report_figures(()) is None  # every figure
    assert set(plots.ALWAYS) <= set(plots.FIGURES)


def _clean(r: dict) -> dict:
    return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()}


def _literal_labels(path: Path, label: str) -> list[int]:
    tree = ast.parse(path.read_text())
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == label]


def test_every_table_takes_percent_optimal_from_the_column_table():
    """A table that prints "% optimal" names the column (``columns.OPTIMAL.label``) and counts
    it with ``columns.optimal_share`` (or the summary built on it): no second definition."""
    found = []
    for path in sorted((ROOT / "bench").rglob("*.py")):
        if path.name == "columns.py":
            continue
        found += [f"{path.relative_to(ROOT)}:{line}"
                  for label in (columns.OPTIMAL.label, columns.AT_BOUND.label, "% proven optimal")
                  for line in _literal_labels(path, label)]
    assert not found, f"'% optimal' written outside bench/columns.py: {found}"
    users = [p for p in (ROOT / "bench").rglob("*.py") if "OPTIMAL.label" in p.read_text()]
    for path in users:
        text = path.read_text()
        assert "optimal_share" in text or "OPTIMAL.render" in text or \
            "BY_KEY[\"optimal_pct\"]" in text or "Share(" in text, path


def test_paper_tables_count_percent_optimal_with_the_shared_aggregate():
    from bench import evaluate
    from bench.papers import deepcubea_table1, learned_guides

    for key in HAND:
        g = _rows(*key)
        want = str(columns.optimal_share(g))
        assert deepcubea_table1._table1_figures(g)[columns.OPTIMAL.label] == want
        assert learned_guides.figures(g)[columns.OPTIMAL.label] == want
        # the model cards' share (bench.evaluate) is the same count
        (ok, n_ref), *_ = HAND[key]
        assert evaluate.summarize(g)["optimal"] == pytest.approx(ok / n_ref)


def test_table4_counts_unfinished_states_by_the_shared_rule(tmp_path):
    """Table 4's "% optimal" is the shared aggregate (no constant 100): references from the
    run's optimal solver, so a state it did not finish has none."""
    from bench import papers

    run = tmp_path / "p24"
    run.mkdir()
    rows = []
    for i, (status, length) in enumerate([("solved", 50), ("solved", 52), ("timeout", None)]):
        rows.append({"key": f"deepcubea/{i}/pdb-ida", "suite": "puzzle24", "config": "pdb-ida",
                     "puzzle": "puzzle24", "heuristic": "pdb-6666", "solver": "ida",
                     "params": "{}", "instance_set": "deepcubea", "instance": str(i),
                     "status": status, "length": length, "optimal": None,
                     "nodes_generated": 1000 * (i + 1), "time_s": 1.0 + i, "limit_time_s": 600.0,
                     "peak_rss_bytes": 1, "heuristic_nbytes": 1})
    (run / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = papers.make("deepcubea-table4", run_dir=[run], out=tmp_path / "out", command="c")
    table = pd.read_csv(tmp_path / "out" / "deepcubea-table4" / "table.csv")
    ours = table[table["solver"] == "ours: pdb-ida"].iloc[0]
    assert ours[columns.OPTIMAL.label] == "100.0 (2/2)" and ours["finished"] == 2
    assert "| 100.0 (2/2) |" in text


# --------------------------------------------------------------------------- figures' numbers
def test_coverage_counts_the_instances_solved_within_t():
    t, count = compare_plots.coverage_curve(_rows("a", "ida"))
    assert list(t) == [0.5, 1.5] and list(count) == [1, 2]
    t, count = compare_plots.coverage_curve(_rows("b", "bwas"))
    assert list(t) == [0.5] and list(count) == [1]


def test_by_depth_groups_by_the_reference_optimum():
    d = compare_plots.by_depth(_rows("b", "bwas")).set_index("depth")
    assert list(d.index) == [20.0, 21.0]
    assert d.loc[20.0, "instances"] == 1 and d.loc[20.0, "solved"] == 0
    assert np.isnan(d.loc[20.0, "length"])
    assert d.loc[21.0, "length"] == 23 and d.loc[21.0, "nodes_generated"] == 500


def test_excess_counts_show_the_unsolved():
    counts, unsolved = compare_plots.excess_counts(_rows("b", "bwas"))
    assert dict(counts) == {2: 1} and unsolved == 1
    counts, unsolved = compare_plots.excess_counts(_rows("a", "bwas"))
    assert dict(counts) == {0: 1, 2: 1} and unsolved == 0


def test_scatter_pairs_stay_within_a_set():
    assert compare_plots.scatter_pairs(frame()) == [("a", "ida", "bwas"), ("b", "ida", "bwas")]


def test_bwas_strips_show_the_default_lambda_too():
    df = frame()
    df.loc[(df.config == "bwas") & (df.instance_set == "b"), "params"] = '{"s.weight": 0.2}'
    d = plots.with_weights(df)
    assert set(d["config"]) == {"bwas"}  # IDA* has no weight on g
    assert sorted(d["weight"].unique()) == [0.2, 0.6]  # 0.6: the declared default of bwas


@pytest.mark.parametrize("name", ["scatter", "coverage", "by-depth", "excess"])
def test_comparison_figures_have_a_panel_per_set(name):
    import matplotlib.pyplot as plt

    fig, _ = plots.FIGURES[name](report.with_reference_optima(frame()))
    titles = [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("a") for t in titles) and any(t.startswith("b") for t in titles)
    plt.close(fig)


# --------------------------------------------------------------------------- costs
def _tiny_table(progress: bool = False, jobs: int = 1) -> np.ndarray:
    """A pattern database stand-in for the store: 4 KiB of small values."""
    return (np.arange(4096) % 7).astype(np.uint8)


def test_a_table_build_records_its_seconds_and_peak_memory(tmp_path):
    import resource

    from bench.heuristic_cost import table_costs
    from pdb_builders.catalog import TableSpec
    from pdb_builders.store import read_attrs

    spec = TableSpec(key="tiny-cost-test", attrs={"kind": "test"},
                     builder="test_report_columns:_tiny_table")
    path = spec.build(progress=False)
    attrs = read_attrs(path)
    from solvers.memory import process_peak_bytes

    # the build's figure is the larger of the process's and its finished children's peaks
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, children,
               process_peak_bytes())
    # the peak so far: at least what Python itself holds, at most the peak now
    assert 10 * 2**20 < attrs["build_peak_rss_bytes"] <= peak
    assert attrs["build_seconds"] >= 0
    cost = table_costs([path])
    assert cost["build_s"] == pytest.approx(attrs["build_seconds"])
    assert cost["build_peak_bytes"] == attrs["build_peak_rss_bytes"]
    assert cost["table_bytes"] == path.stat().st_size
    # a table made before the build's memory was recorded: no figure, not a partial one
    from pdb_builders.store import save_table

    old = save_table(tmp_path / "old.h5", _tiny_table(), {"kind": "test"}, build_seconds=2.0)
    both = table_costs([path, old])
    assert both["build_peak_bytes"] is None
    assert both["build_s"] == pytest.approx(attrs["build_seconds"] + 2.0)
    assert both["table_bytes"] == path.stat().st_size + old.stat().st_size


def test_a_network_carries_its_training_cost_from_its_model_card():
    from bench.heuristic_cost import with_heuristic_costs
    from bench.runner import model_digest

    card = json.loads((ROOT / "heuristics" / "models" / "cube3" / "config.json").read_text())
    digest = model_digest("cube3", "davi", {})
    df = pd.DataFrame([{"puzzle": "cube3", "heuristic": "davi", "params": "{}", "config": "net",
                        "instance_set": "s", "instance": "0", "status": "solved", "length": 5,
                        "model_sha256": digest},
                       {"puzzle": "cube3", "heuristic": "davi", "params": "{}", "config": "old",
                        "instance_set": "s", "instance": "0", "status": "solved", "length": 5,
                        "model_sha256": "0123456789abcdef"},
                       {"puzzle": "cube3", "heuristic": "zero", "params": "{}", "config": "blind",
                        "instance_set": "s", "instance": "0", "status": "solved", "length": 5}])
    out = with_heuristic_costs(df).set_index("config")
    assert out.loc["net", "train_cpu_s"] == card["train_cpu_seconds"]
    assert out.loc["net", "train_states"] == card["states_seen"]
    assert np.isnan(out.loc["blind", "train_cpu_s"])
    # a row searched with other weights than the card describes gets no figure
    assert np.isnan(out.loc["old", "train_cpu_s"]) and np.isnan(out.loc["old", "train_states"])
    table = report.display_table(report.summarize(with_heuristic_costs(df), ci=False))
    row = dict(zip(table[0], table[1], strict=True))
    assert row[columns.TRAIN_STATES.label] == f"{int(card['states_seen']):,}"
    assert row[columns.TRAIN_CPU.label] == f"{round(card['train_cpu_seconds']):,}"


def test_figures_name_a_network_by_what_it_was_trained_on():
    df = pd.DataFrame({"heuristic": ["davi", "pdb-korf", "davi"],
                       "model_target": ["diffusion", None, None]})
    # davi is the command line's alias of the value network
    assert plots.heuristic_labels(df).tolist() == ["value-net (diffusion)", "pdb-korf",
                                                   "value-net"]


def test_pattern_databases_carry_their_build_cost_into_the_comparison():
    from bench.heuristic_cost import heuristic_costs, with_heuristic_costs
    from bench.runner import table_digest
    from pdb_builders import catalog
    from pdb_builders.store import read_attrs

    entry = catalog.find("puzzle8", "pdb-44")
    specs = entry.tables("puzzle8")
    for spec in specs:
        if not spec.exists():
            spec.build(progress=False)
    heuristic_costs.cache_clear()
    attrs = [read_attrs(s.path) for s in specs]
    base = {"puzzle": "puzzle8", "heuristic": "pdb-44", "params": "{}", "instance_set": "s",
            "instance": "0", "status": "solved", "length": 5}
    df = pd.DataFrame([{**base, "config": "now", "tables_sha256": table_digest("puzzle8", "pdb-44")},
                       {**base, "config": "other", "tables_sha256": "0123456789abcdef"}])
    out = with_heuristic_costs(df).set_index("config")
    assert out.loc["now", "build_s"] == pytest.approx(sum(a["build_seconds"] for a in attrs))
    assert out.loc["now", "table_bytes"] == sum(s.path.stat().st_size for s in specs)
    if all("build_peak_rss_bytes" in a for a in attrs):  # tables built before it was recorded
        assert out.loc["now", "build_peak_bytes"] == max(a["build_peak_rss_bytes"] for a in attrs)
    assert out.loc[["other"], ["build_s", "table_bytes"]].isna().all(axis=None)
    table = report.display_table(report.summarize(out.reset_index(), ci=False))
    row = dict(zip(table[0], table[1], strict=True))
    assert row[columns.TABLE_MB.label] == f"{out.loc['now', 'table_bytes'] / 2**20:.1f}"
