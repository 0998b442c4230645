"""`bench report RUN_DIR --against OTHER_RUN`: two runs of the same tasks paired row by row."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import rundiff
from tests.cli_run import run_cli


def row(config: str, instance: str, status: str = "solved", actions: str | None = "U R",
        nodes: int | None = 100, time_s: float | None = 1.0, fingerprint: str = "f",
        **extra: object) -> dict[str, object]:
    return {"key": f"s/{instance}/{config}", "config": config, "instance_set": "s",
            "instance": instance, "status": status, "fingerprint": fingerprint,
            "actions": actions if status == "solved" else None,
            "length": len(actions.split()) if actions and status == "solved" else None,
            "nodes_generated": nodes if status == "solved" else None,
            "time_s": time_s if status == "solved" else None, **extra}


def frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def test_repeated_searches_pair_and_their_seconds_compare() -> None:
    run = frame([row("a", "0", time_s=1.0), row("a", "1", time_s=2.0), row("a", "2")])
    other = frame([row("a", "1", time_s=5.0), row("a", "0", time_s=3.0)])  # other order, no "2"
    pairs = rundiff.pair_rows(run, other)
    assert list(pairs["key"]) == ["s/0/a", "s/1/a"]  # RUN_DIR's order, shared keys only
    assert pairs["repeats"].all() and pairs["same_task"].all()
    assert pairs["other_over_run"].tolist() == [3.0, 2.5]
    s = rundiff.by_config(pairs).iloc[0]
    assert (s["pairs"], s["repeated"], s["timed"], s["changed"]) == (2, 2, 2, "-")
    assert (s["median_other_over_run"], s["min_other_over_run"], s["max_other_over_run"]) == \
        (2.75, 2.5, 3.0)


def test_a_changed_path_count_status_or_task_is_not_a_repeat() -> None:
    run = frame([row("a", "0", actions="U R"), row("a", "1", nodes=100),
                 row("a", "2", status="solved"), row("a", "3", status="timeout"),
                 row("a", "4", fingerprint="new"), row("b", "0", status="timeout")])
    other = frame([row("a", "0", actions="R U"), row("a", "1", nodes=101),
                   row("a", "2", status="timeout"), row("a", "3", status="out-of-memory"),
                   row("a", "4"), row("b", "0", status="timeout")])
    pairs = rundiff.pair_rows(run, other).set_index("instance")
    a = pairs[pairs["config"] == "a"]
    assert not a["repeats"].any()
    assert a["other_over_run"].isna().all()  # seconds compare only where the search repeated
    assert a.loc["4", "same_task"] == False  # noqa: E712 (numpy bool)
    summary = rundiff.by_config(pairs.reset_index()).set_index("config")
    assert summary.loc["a", "changed"] == "path 2, timeout -> solved 1, out-of-memory -> timeout 1"
    assert summary.loc["a", "other_task"] == 1
    # two failures with the same status repeat; no seconds to compare
    assert summary.loc["b", "repeated"] == 1 and summary.loc["b", "timed"] == 0
    assert np.isnan(summary.loc["b", "median_other_over_run"])


def test_searches_that_ended_by_themselves_compare_their_counts_and_seconds() -> None:
    def ended(instance: str, status: str, nodes: int, time_s: float) -> dict[str, object]:
        return {**row("a", instance, status=status), "nodes_generated": nodes, "time_s": time_s}

    run = frame([ended("0", "depth-limit", 500, 2.0), ended("1", "depth-limit", 500, 2.0),
                 ended("2", "timeout", 900, 60.0), ended("3", "out-of-memory", 0, 20.0)])
    other = frame([ended("0", "depth-limit", 500, 5.0), ended("1", "depth-limit", 501, 5.0),
                   ended("2", "timeout", 950, 61.0), ended("3", "out-of-memory", 0, 30.0)])
    pairs = rundiff.pair_rows(run, other).set_index("instance")
    assert pairs["repeats"].tolist() == [True, False, True, True]  # "1": other node counts
    # only the search that ran to its own end measures the machines: a timeout lasts as long
    # as its limit, an out-of-memory row as long as the watchdog took to see it
    assert pairs.loc["0", "other_over_run"] == 2.5
    assert pairs.loc[["1", "2", "3"], "other_over_run"].isna().all()
    s = rundiff.by_config(pairs.reset_index()).iloc[0]
    assert (s["repeated"], s["timed"], s["changed"]) == (3, 1, "depth-limit counts 1")


def test_rows_without_a_path_compare_by_length() -> None:
    run = frame([row("a", "0", actions=None, length=5)])
    other = frame([row("a", "0", actions=None, length=5)])
    run["length"], other["length"] = 5, 5
    assert rundiff.pair_rows(run, other)["repeats"].all()
    other["length"] = 6
    assert not rundiff.pair_rows(run, other)["repeats"].any()


def write_run(folder: Path, rows: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True)
    (folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_cli_prints_the_pairs_and_writes_them_only_to_a_new_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run", [row("a", "0", time_s=1.0, date="d1", cpu_score=200.0),
                                       row("a", "1", time_s=1.0, date="d1", cpu_score=200.0)])
    other = write_run(tmp_path / "other", [row("a", "0", time_s=2.0, date="d0"),
                                           row("a", "1", nodes=7, date="d0")])
    before = sorted(p.name for p in run.iterdir())
    csv = tmp_path / "pairs.csv"
    code, out, err = run_cli(capsys, "report", str(run), "--against", str(other), "--csv", str(csv))
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("a "))
    assert line.split()[:4] == ["a", "2", "0", "1"]  # config, pairs, other task, repeated
    assert "2.00" in line and "path 1" in line
    assert "CPU score 200" in out and "without a CPU score" in out
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written beside the rows
    pairs = pd.read_csv(csv)
    assert len(pairs) == 2 and pairs["repeats"].tolist() == [True, False]
    code, _, err = run_cli(capsys, "report", str(run), "--against", str(other), "--csv", str(csv))
    assert code == 2 and "--csv" in err and "exists" in err and err.count("\n") == 1


@pytest.mark.parametrize(("args", "words"), [
    (["--csv", "x.csv"], "--csv: only with --against"),
    (["--against", "missing-folder"], "--against: missing-folder is not a folder"),
    (["--against", ".", "--figures", "x"], "--figures: not with --against"),
    (["--against", ".", "--out", "x"], "--out: not with --against"),
])
def test_cli_bad_options_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             args: list[str], words: str) -> None:
    run = write_run(tmp_path / "run", [row("a", "0")])
    code, _, err = run_cli(capsys, "report", str(run), *args)
    assert code == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_runs_without_a_shared_key_are_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "run", [row("a", "0")])
    other = write_run(tmp_path / "other", [row("b", "0")])
    code, _, err = run_cli(capsys, "report", str(run), "--against", str(other))
    assert code == 2 and "shares no row key" in err
