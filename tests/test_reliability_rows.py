"""Rows read back are checked: a row of ``rows.jsonl`` (or of a committed ``results.csv``) with
an unknown status, no configuration, a negative count, or a negative or non-finite time is an
error naming the file and line, in reports, resumes and run comparisons; never used, nor
dropped without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run_cli
from runner_fakes import make_plan

from bench import runner
from bench.executor import InlineExecutor
from bench.runner import ROWS, read_rows, run_plan
from core.errors import InputError


@pytest.fixture
def run_dir(tmp_path) -> Path:
    plan = make_plan(tmp_path, [("1", "a", {"length": 12, "optimal": 12}),
                                ("2", "b", {"length": 14})])
    run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"), progress=False,
             prepare=False)
    return tmp_path / "run"


BAD = [
    ({"status": "optimal"}, "status 'optimal' is not one of"),
    ({"nodes_generated": -5}, "nodes_generated -5 is not a non-negative integer"),
    ({"nodes_expanded": -1}, "nodes_expanded -1 is not a non-negative integer"),
    ({"time_s": float("nan")}, "time_s nan is not a finite number"),
    ({"time_s": -0.745}, "time_s -0.745 is not a finite number"),
    ({"config": None}, "config None is not a configuration's name"),
    ({"length": None}, "a solved row without a length"),
]


def _spoil(run_dir: Path, change: dict) -> int:
    """Change the second row of ``rows.jsonl``; its line number."""
    lines = (run_dir / ROWS).read_text().splitlines()
    row = json.loads(lines[1])
    assert row["status"] == "solved"
    row.update(change)
    lines[1] = json.dumps(row)  # NaN is written as JSON's NaN, as json.dumps does
    (run_dir / ROWS).write_text("\n".join(lines) + "\n")
    return 2


@pytest.mark.parametrize("change, words", BAD)
def test_a_bad_row_is_an_error_naming_file_and_line(change, words, run_dir, capsys):
    line = _spoil(run_dir, change)
    with pytest.raises(InputError, match=f"{ROWS} line {line}: a bad row \\({words}"):
        read_rows(run_dir / ROWS)
    code, out, err = run_cli(capsys, "report", str(run_dir))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"line {line}" in err and words.split(" is ")[0] in err


def test_a_resume_and_a_run_comparison_refuse_a_bad_row(run_dir, tmp_path, capsys):
    _spoil(run_dir, {"time_s": -1.0})
    plan = make_plan(tmp_path, [("1", "a", {"length": 12, "optimal": 12}),
                                ("2", "b", {"length": 14})])
    with pytest.raises(InputError, match="line 2: a bad row"):
        run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), resume=True,
                 progress=False, prepare=False)
    with pytest.raises(InputError, match="line 2: a bad row"):
        runner.load_table(run_dir)


def test_a_bad_row_of_a_committed_table_names_its_line(run_dir, tmp_path):
    df = runner.load_table(run_dir)
    copy = tmp_path / "copy"
    copy.mkdir()
    df.assign(nodes_generated=[10, -3]).to_csv(copy / "results.csv", index=False)
    with pytest.raises(InputError, match="results.csv line 3: a bad row \\(nodes_generated"):
        runner.load_table(copy)
    pd.read_csv(copy / "results.csv")  # the file itself is a readable table
    df.to_csv(copy / "results.csv", index=False)
    assert len(runner.load_table(copy)) == 2  # empty cells are missing values, not faults
