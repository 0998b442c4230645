"""Published tables: the published figures sit beside ours; unknown names are one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bench import papers
from core.errors import InputError


def _fake_run(run_dir, nodes_by_config, instance_set="random1000", optimal=None):
    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / "rows.jsonl").open("a") as f:
        for cfg, nodes in nodes_by_config.items():
            for i, n in enumerate(nodes):
                f.write(json.dumps({"key": f"{instance_set}/{i}/{cfg}", "suite": "felner2004",
                                    "config": cfg,
                                    "instance_set": instance_set, "instance": str(i),
                                    "status": "solved", "length": 50, "optimal": optimal,
                                    "nodes_generated": n, "time_s": 0.5,
                                    "peak_rss_bytes": 2**20, "heuristic_nbytes": 2**21}) + "\n")


def test_felner2004_table_from_a_finished_run(tmp_path):
    _fake_run(tmp_path / "run", {"555": [3_000_000, 3_200_000], "663": [600_000, 700_000]})
    _fake_run(tmp_path / "run", {"78-reflect": [30_000, 50_000]}, instance_set="korf100", optimal=50)
    text = papers.make("felner2004", run_dir=tmp_path / "run", out=tmp_path / "results",
                      command="bench paper felner2004 --run RUN")
    assert "Command: `bench paper felner2004 --run RUN`" in text
    assert "| random1000 | 5-5-5 | no | 3,090,405 | 3,100,000 [" in text
    assert "| random1000 | 6-6-3 | no | 617,555 | 650,000 [" in text
    assert "| random1000 | 7-8 | yes | 36,710 | not run here |" in text
    assert "| korf100 | 5-5-5 | no | 3,090,405 | not run here |" in text
    assert "| korf100 | 7-8 | yes | 36,710 | 40,000 [" in text
    # solved and optimal counts per set: lengths checked only where the instance file has optima
    assert "| 2/2 | 2/2 |" in text and "| 2/2 | n/a |" in text
    assert "random1000: the configurations agree on the solution length of 2 of 2 instances" in text
    table = pd.read_csv(tmp_path / "results" / "felner2004" / "table.csv")
    row = table.set_index(["instances", "partition", "reflection"]).loc[("random1000", "6-6-3", "no")]
    assert row["ratio_ours_to_published"] == pytest.approx(650_000 / 617_555)


def test_unknown_table():
    with pytest.raises(InputError, match="unknown table 'felner2005'.*did you mean 'felner2004'"):
        papers.make("felner2005")


def test_profile_is_refused_where_no_suite_runs(tmp_path):
    with pytest.raises(InputError, match="--profile: deepcubea-table2 runs no suite"):
        papers.make("deepcubea-table2", out=tmp_path, profile="quick")


def test_unknown_profile_of_a_suite_table_is_a_one_line_error(tmp_path):
    with pytest.raises(InputError, match="--profile: suite felner2004 has no profile 'nope'"):
        papers.make("felner2004", out=tmp_path, profile="nope")


def test_a_table_row_that_cannot_be_measured_keeps_the_earlier_measurement(tmp_path, monkeypatch):
    dest = tmp_path / "out" / "deepcubea-table2"
    dest.mkdir(parents=True)
    pd.DataFrame([{"puzzle": "cube2", "heuristic": "pdb-cube2", "status": "measured",
                   "memory_mb": 1.75, "load_s": 0.5, "states_per_s": 6e6, "batch": 10000}]
                 ).to_csv(dest / "table.csv", index=False)
    from bench.papers import heuristic_measures

    monkeypatch.setattr(heuristic_measures, "TABLE_HEURISTICS",
                        [heuristic_measures.Measured("cube2", "pdb-cube2"),
                         heuristic_measures.Measured("cube3", "pdb-korf")])
    monkeypatch.setattr(heuristic_measures, "_load", lambda row, build: "not built (run with --build)")
    text = papers.make("deepcubea-table2", out=tmp_path / "out")
    assert "| cube2 | pdb-cube2 | - | 1.8 (earlier run) |" in text
    assert "| cube3 | pdb-korf | - | not built (run with --build) |" in text
    table = pd.read_csv(dest / "table.csv").set_index("heuristic")
    assert table.loc["pdb-cube2", "status"] == "measured (earlier run)"
    assert table.loc["pdb-cube2", "memory_mb"] == 1.75


def test_deepcubea_summary_labels_each_source_and_reads_a_run(tmp_path, monkeypatch):
    from bench import published

    data = tmp_path / "shared" / "data" / "deepcubea" / "puzzle15"
    data.mkdir(parents=True)
    (data / "deepcubea_results_output.txt").write_text(
        "State: 0, SolnCost: 50.00, # Moves: 50, # Nodes Gen: 1,000, Time: 2.00\n"
        "State: 1, SolnCost: 54.00, # Moves: 54, # Nodes Gen: 3,000, Time: 4.00\n"
        "State: 2, SolnCost: 52.00, # Moves: 52, # Nodes Gen: 2,000, Time: 9.00\n")
    monkeypatch.setenv("BENCH_SHARED", str(tmp_path / "shared"))
    assert published.per_instance("puzzle15")["mean_length"] == 52
    assert published.per_instance("cube3") is None
    run = tmp_path / "run"
    run.mkdir()
    with (run / "rows.jsonl").open("w") as f:
        for i, (length, pub, opt) in enumerate([(52, 50, 50), (56, 54, 52)]):
            f.write(json.dumps({"key": f"deepcubea/{i}/davi", "suite": "puzzle15", "config": "davi",
                                "puzzle": "puzzle15", "instance_set": "deepcubea",
                                "instance": str(i), "status": "solved", "length": length,
                                "optimal": opt, "published_length": pub,
                                "nodes_generated": 100, "time_s": 0.5,
                                "peak_rss_bytes": 1, "heuristic_nbytes": 1}) + "\n")
    text = papers.make("deepcubea-summary", run_dir=run, out=tmp_path / "out")
    assert "| puzzle15 | % optimal | 99.4 | 50.0 (the 2 states of our run) | 0.0 (0/2) |" in text
    assert "| puzzle15 | mean length | not stated | 52.00 (the 2 states of our run) | 54 |" in text
    assert "| puzzle48 | mean length | 253.53 | no file | not run here |" in text
    # DeepCubeA's seconds over the states of our run (2 and 4 s), not over its whole file (5 s)
    assert published.per_instance("puzzle15")["mean_time_s"] == 5
    assert "| puzzle15 | mean seconds | not stated | 3.00 (the 2 states of our run) | 0.5 |" in text
    assert "| cube3 | % optimal | 60.3 | no file | not run here |" in text
    with pytest.raises(InputError, match="--limit: deepcubea-summary reads a finished run"):
        papers.make("deepcubea-summary", run_dir=run, out=tmp_path / "out", limit=3)
    # one run per puzzle: a cube run beside the 15-puzzle run fills the cube's rows too
    cube = tmp_path / "cube"
    cube.mkdir()
    # (a committed copy of a run: its exported results.csv, no rows.jsonl)
    pd.DataFrame([{"key": f"deepcubea/{i}/learned", "suite": "cube3", "config": "learned",
                   "puzzle": "cube3", "instance_set": "deepcubea", "instance": str(i),
                   "status": "solved", "length": length, "nodes_generated": 100,
                   "time_s": 0.5, "peak_rss_bytes": 1, "heuristic_nbytes": 1}
                  for i, length in enumerate([22, 24])]).to_csv(cube / "results.csv", index=False)
    text = papers.make("deepcubea-summary", run_dir=[run, cube], out=tmp_path / "out")
    assert "| puzzle15 | mean length | not stated | 52.00 (the 2 states of our run) | 54 | not run here |" in text
    assert "| cube3 | mean length | not stated | no file | not run here | 23 |" in text
    with pytest.raises(InputError, match="both runs of puzzle15"):
        papers.make("deepcubea-summary", run_dir=[run, run], out=tmp_path / "out")
    with pytest.raises(InputError, match="--run: korf1982 reads one run, not 2"):
        papers.make("korf1982", run_dir=[run, cube], out=tmp_path / "out")


def test_phipat2020_table_runs_capped_bwas(tmp_path, monkeypatch):
    rows = [{"puzzle": "cube2", "max_iterations": 800, "weight": 0.8, "batch": 64,
             "solved": None, "mean_length": None},
            {"puzzle": "puzzle35", "max_iterations": 4000, "weight": 0.7, "batch": 64,
             "solved": "99/100", "mean_length": 101.88}]
    from bench.papers import phipat2020


    monkeypatch.setattr(phipat2020, "PHIPAT2020", rows)
    from learning import model_store as learned

    shipped = learned.known_models()  # as if puzzle35 shipped no model
    monkeypatch.setattr(learned, "known_models",
                        lambda: {k: v for k, v in shipped.items() if k != "puzzle35"})
    text = papers.make("phipat2020", out=tmp_path, count=2)
    assert "| cube2 | 800 iterations, lambda 0.8, N 64 | not recorded | not recorded | 2 " in text
    assert "| puzzle35 | 4000 iterations, lambda 0.7, N 64 | 99/100 | 101.88 | - | no model here |" \
        in text
    df = pd.read_csv(tmp_path / "phipat2020" / "table.csv")
    assert df.loc[0, "solved (ours)"] == "2/2"
    assert "| puzzle15 | not stated | not stated | not stated | DeepCubeA (2019), text | " \
        "not run here |" in text
    # Table 3: our IDA* run on DeepCubeA's states beside DeepCubeA's PDB rows
    run = tmp_path / "ida15"
    run.mkdir()
    with (run / "rows.jsonl").open("w") as f:
        for i, (status, secs) in enumerate([("solved", 0.2), ("solved", 0.4), ("timeout", 60.0)]):
            f.write(json.dumps({"key": f"deepcubea/{i}/pdb-663-ida", "suite": "puzzle15",
                                "config": "pdb-663-ida", "puzzle": "puzzle15", "solver": "ida",
                                "instance_set": "deepcubea", "instance": str(i),
                                "status": status, "length": 50, "nodes_generated": 1000 * (i + 1),
                                "time_s": secs, "limit_time_s": 60.0}) + "\n")
    text = papers.make("phipat2020", run_dir=[run], out=tmp_path, count=1)
    assert "| puzzle15 | not stated | not stated | not stated | DeepCubeA (2019), text | " \
        "pdb-663-ida | 2/3 | 60 | 0.3 | 1500 |" in text
    with pytest.raises(InputError, match="two runs of puzzle15"):
        papers.make("phipat2020", run_dir=[run, run], out=tmp_path, count=1)
    felner = tmp_path / "felner"
    _fake_run(felner, {"555": [1]})
    with pytest.raises(InputError, match="has no IDA. rows on DeepCubeA's test states"):
        papers.make("phipat2020", run_dir=[felner], out=tmp_path, count=1)


def test_deepcubea_table4_from_a_run(tmp_path, monkeypatch):
    data = tmp_path / "shared" / "data" / "deepcubea" / "puzzle24"
    data.mkdir(parents=True)
    (data / "deepcubea_results_output.txt").write_text(
        "State: 0, SolnCost: 90.00, # Moves: 90, # Nodes Gen: 1,000, Time: 20.00\n"
        "State: 1, SolnCost: 96.00, # Moves: 96, # Nodes Gen: 3,000, Time: 30.00\n")
    monkeypatch.setenv("BENCH_SHARED", str(tmp_path / "shared"))
    run = tmp_path / "run"
    run.mkdir()
    with (run / "rows.jsonl").open("w") as f:
        for i, (status, length) in enumerate([("solved", 90), ("timeout", None)]):
            f.write(json.dumps({"key": f"deepcubea/{i}/pdb-6666-ida", "suite": "puzzle24",
                                "config": "pdb-6666-ida", "puzzle": "puzzle24",
                                "heuristic": "pdb-6666", "solver": "ida",
                                "instance_set": "deepcubea", "instance": str(i),
                                "status": status, "length": length, "nodes_generated": 10**9,
                                "time_s": 100.0, "limit_time_s": 600.0}) + "\n")
    text = papers.make("deepcubea-table4", run_dir=run, out=tmp_path / "out")
    # % optimal: the shared aggregate; the reference of the finished state is IDA*'s own
    assert "| puzzle24 | ours: pdb-6666-ida | 2 | 1 | 600 | 90 | 1,000,000,000 | 100 | " \
        "100.0 (1/1) | 100.0 (1/1) | 90 |" in text
    assert "| puzzle24 | PDB optimal solver (DeepCubeA, text) | - | - | - | not stated | " \
           "81,900,000,000 | 4239 | 100 | - | - |" in text
    assert "| puzzle24 | DeepCubeA (text) | - | - | - | not stated | not stated | 19.3 | 96.98 |" \
        in text
    assert "| puzzle24 | DeepCubeA (results file, 2 states) | - | - | - | 93 | 2000 | 25 | - |" in text
    felner = tmp_path / "felner"
    _fake_run(felner, {"555": [1]})
    with pytest.raises(InputError, match="is not a run of suite puzzle24 or puzzle35"):
        papers.make("deepcubea-table4", run_dir=felner, out=tmp_path / "out")
    # one run of each suite, read together; two runs of one suite are refused
    run35 = tmp_path / "run35"
    run35.mkdir()
    (run35 / "rows.jsonl").write_text(json.dumps(
        {"key": "deepcubea/0/pdb-5x7-ida", "suite": "puzzle35", "config": "pdb-5x7-ida",
         "puzzle": "puzzle35", "instance_set": "deepcubea", "instance": "0", "status": "timeout",
         "length": None, "nodes_generated": 10**9, "time_s": 600.0,
         "limit_time_s": 600.0}) + "\n")
    both = papers.make("deepcubea-table4", run_dir=[run, run35], out=tmp_path / "out")
    assert "| puzzle24 | ours: pdb-6666-ida | 2 | 1 |" in both
    assert "| puzzle35 | ours: pdb-5x7-ida | 1 | 0 | 600 | - |" in both
    with pytest.raises(InputError, match="at most one run of each suite"):
        papers.make("deepcubea-table4", run_dir=[run, run], out=tmp_path / "out")
    # a committed copy of a run (its results.csv, no rows.jsonl) is read as the run
    copy = tmp_path / "copy"
    copy.mkdir()
    pd.read_json(run / "rows.jsonl", lines=True).to_csv(copy / "results.csv", index=False)
    assert "| puzzle24 | ours: pdb-6666-ida | 2 | 1 |" in papers.make(
        "deepcubea-table4", run_dir=[copy], out=tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="has no result rows"):
        papers.make("deepcubea-table4", run_dir=[tmp_path / "empty"], out=tmp_path / "out")
    with pytest.raises(InputError, match="--limit: deepcubea-table4 reads the runs"):
        papers.make("deepcubea-table4", run_dir=[run], limit=3, out=tmp_path / "out")


def test_fig2_title_names_the_batch_sizes_of_the_run():
    import pandas as pd

    from bench.papers.deepcubea_fig2 import _bwas_batches

    df = pd.DataFrame({"params": ['{"s.batch": 1000, "s.weight": 0.0}',
                                  '{"h.precision": "bfloat16", "s.batch": 10000, "s.weight": 0.2}',
                                  '{"s.batch": 1000, "s.weight": 0.1}']})
    assert _bwas_batches(df) == "1,000 / 10,000"
    assert _bwas_batches(pd.DataFrame({"params": ["{}"]})) == "n/a"


def test_every_table_is_declared_with_figures_that_exist():
    import importlib

    for table in papers.declarations():
        assert papers.PAPERS[table.name].startswith("bench.papers.")
        assert table.runs in ("none", "one", "several") and table.summary and table.instances
        for name in table.published:
            module, _, attr = name.partition(":")
            assert hasattr(importlib.import_module(module), attr), name
        if table.runs == "none":
            assert table.profile is None


def test_a_table_names_rows_made_from_uncommitted_code(tmp_path):
    run = tmp_path / "run"
    _fake_run(run, {"555": [3_000_000, 3_200_000]})
    rows = [json.loads(x) for x in (run / "rows.jsonl").read_text().splitlines()]
    rows[0].update(git_rev="0123456789ab", git_dirty=True, git_diff_sha256="feedfacecafe")
    (run / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = papers.make("felner2004", run_dir=run, out=tmp_path / "out")
    note = next(line for line in text.splitlines() if line.startswith("Runs read:"))
    assert "1 of 2 rows were made from a tree with uncommitted changes" in note
    assert "feedfacecafe" in note and "1 of 2 rows name no revision" in note
    assert text.index("Made ") < text.index("Runs read:") < text.index("| random1000 |")
