"""The learned value network is the heuristic ``value-net``; its former name ``davi`` is still
accepted wherever a heuristic is named: the command line, suite files, committed rows (their
reports group them with new ``value-net`` rows) and their fingerprints (runs made before the
rename resume)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import report, runner
from core import registry
from suites.schema import load_suite

ROOT = Path(__file__).resolve().parents[1]
#: a committed run whose rows name ``davi``
RUN = ROOT / "results" / "cube3-width-select"


def test_davi_names_the_value_network():
    assert registry.VALUE_NET == "value-net"
    assert registry.heuristic_entry("davi") is registry.HEURISTICS["value-net"]
    assert "davi" not in registry.HEURISTICS
    assert registry.canonical_heuristic("davi") == "value-net"
    assert registry.canonical_heuristic("manhattan") == "manhattan"
    assert registry.canonical_heuristic("no-such") == "no-such"
    assert registry.check_solver_heuristic("beam", "davi") == "value-net"
    assert registry.first_name("value-net") == registry.first_name("davi") == "davi"


def test_a_committed_suite_naming_davi_loads_as_value_net():
    text = (RUN / "suite.toml").read_text()
    assert 'heuristic = "davi"' in text
    suite = load_suite(RUN / "suite.toml")
    learned = [c for c in suite.configs.values() if c.heuristic == "value-net"]
    assert learned and not [c for c in suite.configs.values() if c.heuristic == "davi"]


def test_fingerprints_do_not_change_with_the_rename():
    payload = {"puzzle": "cube3", "heuristic": "davi", "solver": "beam", "state": [0, 1]}
    renamed = {**payload, "heuristic": "value-net"}
    assert runner.task_fingerprint(payload) == runner.task_fingerprint(renamed)
    assert runner.task_fingerprint({**payload, "heuristic": "manhattan"}) != \
        runner.task_fingerprint(payload)


@pytest.mark.slow
def test_committed_rows_naming_davi_match_their_plan_and_report_as_value_net():
    rows = runner.read_rows(RUN / "rows.jsonl")
    assert {r["heuristic"] for r in rows} >= {"davi"}
    suite = load_suite(RUN / "suite.toml")
    plan = runner.plan_run(suite, profile=rows[0]["profile"])
    by_key = {r["key"]: r for r in rows}
    tasks = [t for t in plan.tasks if t.key in by_key]
    assert tasks and all(runner.task_fingerprint(t.payload) == by_key[t.key]["fingerprint"]
                         for t in tasks)  # so a resume reruns none of them
    # a new row of the same configuration names value-net; both group as one heuristic
    new = {**rows[0], "key": rows[0]["key"] + "-new", "heuristic": "value-net"}
    df = runner.rows_frame([*rows, new])
    assert "davi" not in set(df["heuristic"])
    assert df[df["heuristic"] == "value-net"].shape[0] == len(
        [r for r in rows if r["heuristic"] == "davi"]) + 1
    table = runner.load_table(RUN)
    summary = report.summarize(table, by="heuristic")
    assert "value-net" in set(summary["heuristic"]) and "davi" not in set(summary["heuristic"])
    assert report.report_markdown(table).strip()
