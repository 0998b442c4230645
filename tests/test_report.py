"""Summary statistics against a naive computation; the commonly-solved comparison rule."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from bench import plots, report


def _frame() -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(7)
    for cfg, fail_every in (("pdb-ida", 0), ("davi-bwas", 3), ("greedy", 2)):
        for i in range(12):
            opt = 20 + i % 5 if i % 4 else None  # some instances have no known optimum
            fails = fail_every and i % fail_every == 0
            length = None if fails else (opt or 22) + int(rng.integers(0, 3))
            rows.append({
                "config": cfg, "instance_set": "s", "instance": str(i),
                "status": ("timeout" if i % 2 else "node-limit") if fails else "solved",
                "length": length, "optimal": opt,
                "nodes_generated": None if fails else int(rng.integers(100, 10_000)),
                "time_s": float(rng.uniform(0.1, 2.0)),
                "peak_rss_bytes": int(rng.integers(1, 10)) * 2**20, "heuristic_nbytes": 2**20,
            })
    return pd.DataFrame(rows)


def _has(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _naive(rows: list[dict]) -> dict:
    solved = [r for r in rows if r["status"] == "solved"]
    lengths = [r["length"] for r in solved]
    known = [r for r in solved if r["optimal"] is not None and not
             (isinstance(r["optimal"], float) and math.isnan(r["optimal"]))]
    return {
        "n": len(rows), "solved": len(solved), "solved_pct": 100 * len(solved) / len(rows),
        "mean_length": sum(lengths) / len(lengths), "median_length": statistics.median(lengths),
        # % optimal: over every instance with a reference, solved or not (unsolved: not optimal)
        "optimal_pct": 100 * sum(r["length"] == r["optimal"] for r in known)
        / sum(_has(r["optimal"]) for r in rows),
        "mean_excess": sum(r["length"] - r["optimal"] for r in known) / len(known),
        "mean_nodes": sum(r["nodes_generated"] for r in solved) / len(solved),
        "median_nodes": statistics.median(r["nodes_generated"] for r in solved),
        "mean_time_s": sum(r["time_s"] for r in solved) / len(solved),
        "nodes_per_s": sum(r["nodes_generated"] for r in solved) / sum(r["time_s"] for r in solved),
        "peak_rss_mb": max(r["peak_rss_bytes"] for r in rows) / 2**20,
    }


def test_summary_matches_naive_computation():
    df = _frame()
    summ = report.summarize(df).set_index("config")
    for cfg, g in df.groupby("config"):
        want = _naive(g.to_dict("records"))
        got = summ.loc[cfg]
        for k, v in want.items():
            assert got[k] == pytest.approx(v), (cfg, k)
        assert got["mean_length_lo"] <= got["mean_length"] <= got["mean_length_hi"]
    assert summ.loc["davi-bwas", "failures"] == "node-limit 2, timeout 2"
    assert summ.loc["pdb-ida", "failures"] == "-"


def test_percent_optimal_is_not_available_without_a_reference():
    df = _frame()
    df["optimal"] = None
    summ = report.summarize(df)
    assert summ["optimal_pct"].isna().all() and summ["mean_excess"].isna().all()
    assert "n/a" in report.markdown_table(report.display_table(summ))


def test_compare_uses_only_instances_every_configuration_solved():
    df = _frame()
    comp = report.compare(df).set_index("config")
    solved_by = df[df.status == "solved"].groupby("instance")["config"].nunique()
    common = set(solved_by[solved_by == 3].index)
    assert common == {str(i) for i in range(12) if i % 2 and i % 3}
    for cfg in comp.index:
        rows = df[(df.config == cfg) & df.instance.isin(common)].to_dict("records")
        want = _naive(rows)
        assert comp.loc[cfg, "n"] == len(common)
        assert comp.loc[cfg, "mean_length"] == pytest.approx(want["mean_length"])
        assert comp.loc[cfg, "mean_nodes"] == pytest.approx(want["mean_nodes"])
    # the comparison shows what concerns the common instances only: no failures of the full
    # set, "solved" a whole count equal to n
    table = report.display_table(comp.reset_index(), comparison=True)
    assert "failures" not in table[0] and "solved %" not in table[0]
    solved = table[0].index("solved")
    assert all(row[solved] == str(len(common)) for row in table[1:])
    assert not any("node-limit" in cell for row in table for cell in row)
    # with two configurations the common set grows
    two = report.compare(df, ["pdb-ida", "davi-bwas"])
    assert set(two["n"]) == {8}


def test_bootstrap_interval_brackets_the_mean_and_shrinks_with_n():
    rng = np.random.default_rng(0)
    small, large = rng.normal(10, 2, 20), rng.normal(10, 2, 2000)
    lo1, hi1 = report.bootstrap_ci(small)
    lo2, hi2 = report.bootstrap_ci(large)
    assert lo1 < small.mean() < hi1 and lo2 < large.mean() < hi2
    assert hi2 - lo2 < hi1 - lo1
    assert all(math.isnan(v) for v in report.bootstrap_ci([]))


def test_markdown_report_names_failures():
    md = report.report_markdown(_frame(), title="t")
    assert "### s: the 4 instances solved by every configuration (that solved any)" in md
    assert "- greedy: node-limit (6): s/0, s/2, s/4, s/6, s/8, s/10" in md


@pytest.mark.parametrize("name", sorted(plots.FIGURES))
def test_figures_from_a_tiny_table(name):
    df = _frame()
    df["params"] = df["config"].map(lambda c: '{"s.weight": 0.2}' if "bwas" in c else "{}")
    df["heuristic"] = df["config"].str.split("-").str[0]
    df["solver"] = df["config"].map({"pdb-ida": "ida", "davi-bwas": "bwas", "greedy": "greedy"})
    fig, ax = plots.FIGURES[name](df)
    assert fig.axes and ax is not None
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_run_where_nothing_was_solved():
    df = pd.DataFrame([{"config": "davi", "instance_set": "s", "instance": str(i), "status": "error",
                        "params": "{}", "heuristic": "davi"} for i in range(3)])
    summ = report.summarize(df)
    assert summ.loc[0, "solved"] == 0 and summ.loc[0, "failures"] == "error 3"
    assert "- davi: error (3): s/0, s/1, s/2" in report.report_markdown(df)
    import matplotlib.pyplot as plt

    for fig in plots.run_figures(df).values():
        plt.close(fig)


def test_a_configuration_that_solved_nothing_does_not_empty_the_comparison():
    df = _frame()
    dead = df[df.config == "greedy"].assign(config="broken", status="error", length=None)
    comp = report.compare(pd.concat([df, dead])).set_index("config")
    assert comp.loc["broken", "n"] == 0
    assert comp.loc["pdb-ida", "n"] == 4
    # printed: the configuration that solved nothing is named under the table, not a row of it
    table = report.display_table(comp.reset_index(), comparison=True)
    assert [row[0] for row in table[1:]] == ["pdb-ida", "davi-bwas", "greedy"]
    assert report.left_out_note(comp.reset_index()) == \
        "Not compared (solved no instance): broken."
    md = report.report_markdown(pd.concat([df, dead]))
    common = md.split("solved by every configuration (that solved any)")[1].split("###")[0]
    assert "| broken |" not in common and "error 12" not in common
    assert "Not compared (solved no instance): broken." in common


def test_bootstrap_does_not_depend_on_the_order_rows_finished():
    x = np.random.default_rng(3).normal(10, 3, 40)
    assert report.bootstrap_ci(x) == report.bootstrap_ci(x[::-1])
    assert report.bootstrap_ci(x) == report.bootstrap_ci(np.random.default_rng(4).permutation(x))


def _run_without_optima() -> pd.DataFrame:
    rows = []
    for cfg, solver, heuristic, params, extra in (
            ("ida-md", "ida", "manhattan", "{}", 0), ("bwas-davi", "bwas", "davi", "{}", 2),
            ("astar-w", "astar", "manhattan", '{"s.weight": 0.5}', 4)):
        for i in range(4):
            rows.append({"config": cfg, "solver": solver, "heuristic": heuristic, "params": params,
                         "instance_set": "random", "instance": str(i), "status": "solved",
                         "length": 20 + i + (extra if i % 2 else 0), "optimal": None,
                         "nodes_generated": 100, "time_s": 0.1, "peak_rss_bytes": 2**20,
                         "heuristic_nbytes": 2**20})
    return pd.DataFrame(rows)


def test_an_optimal_configuration_of_the_run_is_the_reference():
    df = report.with_reference_optima(_run_without_optima())
    assert (df["optimal"] == [20, 21, 22, 23] * 3).all()
    assert set(df["optimal_from"]) == {"run: ida-md"}
    summ = report.summarize(df).set_index("config")
    assert summ.loc["ida-md", "optimal_pct"] == 100.0
    assert summ.loc["bwas-davi", "optimal_pct"] == 50.0 and summ.loc["bwas-davi", "mean_excess"] == 1.0
    md = report.report_markdown(_run_without_optima(), title="t")
    assert "Reference optima (instances): random: run: ida-md 4." in md
    # weighted A* is not optimal by construction: alone, it gives no reference
    only_w = _run_without_optima().query("config != 'ida-md'")
    assert report.with_reference_optima(only_w)["optimal"].isna().all()


def test_excess_histogram_draws_no_bar_below_zero():
    import matplotlib.pyplot as plt

    df = _frame()
    fig, axes = plots.FIGURES["excess"](df)
    ax = axes[0]
    bars = ax.patches
    assert bars and min(b.get_x() for b in bars) >= -0.4
    assert ax.get_xlim()[0] >= -0.6
    # the unsolved instances with a reference are a bar of their own, not hidden
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[-1] == "unsolved"
    unsolved = {cfg: int(((df.config == cfg) & (df.status != "solved") & df.optimal.notna()).sum())
                for cfg in df.config.unique()}
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [f"{cfg} (unsolved {n})" for cfg, n in unsolved.items()]
    plt.close(fig)


def test_figures_have_a_title_and_name_configurations_they_cannot_show():
    import matplotlib.pyplot as plt

    df = _frame()
    dead = df[df.config == "greedy"].assign(config="broken", status="error", length=None)
    figs = plots.run_figures(pd.concat([df, dead]), ["nodes-vs-length", "excess"],
                             title="puzzle8 (quick)")
    for name, fig in figs.items():
        assert fig._suptitle is not None and fig._suptitle.get_text() == "puzzle8 (quick)"
        texts = [t.get_text() for t in fig.texts]
        if name == "excess":  # its unsolved runs are drawn, marked
            legend = [t.get_text() for ax in fig.axes if ax.get_legend()
                      for t in ax.get_legend().get_texts()]
            assert "broken (unsolved 9)" in legend, legend
        else:
            assert any("not shown" in t and "broken" in t for t in texts), texts
        plt.close(fig)


def test_machines_note_names_runs_and_flags_scores_far_apart():
    df = _frame()
    assert report.machines_note(df) == ""  # no provenance columns: nothing to say
    df["date"] = "2026-11-27T06:58:57+00:00"
    df["cpu_score"] = 40.0
    assert report.machines_note(df) == ""  # one run: its seconds compare
    assert report.machines_note(df, always=True) == (
        "Rows from 1 run (2026-11-27 06:58 UTC); CPU score 40 (millions of values one core "
        "sorts per second).")
    later = df["instance"].astype(int) >= 6
    df.loc[later, "date"] = "2026-11-28T10:04:00+00:00"
    df.loc[later, "cpu_score"] = 44.0  # within the spread: comparable
    note = report.machines_note(df)
    assert note.startswith("Rows from 2 runs (2026-11-27 06:58 to 2026-11-28 10:04 UTC); "
                           "CPU scores 40 to 44 ")
    assert "not comparable" not in note
    df.loc[later, "cpu_score"] = 88.0
    assert report.machines_note(df).endswith(
        "2.2 times apart: seconds of different runs are not comparable.")
    df.loc[later, "cpu_score"] = None  # rows made before the score was recorded
    assert report.machines_note(df).endswith(
        "CPU score 40 (millions of values one core sorts per second); 1 run without a CPU "
        "score (made before it was recorded): whether their machines ran at the same speed is "
        "unknown.")
    assert "Rows from 2 runs" in report.report_markdown(df)


def test_cpu_score_is_a_positive_rate():
    from bench.provenance import cpu_score

    assert cpu_score(repeats=1, n=1 << 14) > 0
