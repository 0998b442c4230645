"""`bench report` on a folder of `bench train evaluate` tables: each file is one configuration,
named by the file; rows are checked and replayed as a suite run's are."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from bench.run_table import evaluation_tables, invalid_replays, load_table
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "results" / "learned-optimality" / "puzzle24-search"


def _rows(name: str, n: int) -> tuple[list[str], list[dict[str, str]]]:
    with open(SOURCE / name, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(itertools.islice(reader, n))
        return list(reader.fieldnames or []), rows


def _write(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        w.writerows(rows)


@pytest.fixture()
def evaluations(tmp_path: Path) -> Path:
    folder = tmp_path / "evals"
    folder.mkdir()
    for src, dest in (("puzzle24-w1024.csv", "narrow.csv"), ("puzzle24-w4096.csv", "wide.csv")):
        header, rows = _rows(src, 4)
        _write(folder / dest, header, rows)
    (folder / "notes.csv").write_text("a,b\n1,2\n")  # not an evaluation table: ignored
    return folder


def test_each_file_is_a_configuration_named_by_the_file(evaluations: Path) -> None:
    assert [p.name for p in evaluation_tables(evaluations)] == ["narrow.csv", "wide.csv"]
    df = load_table(evaluations)
    assert sorted(df["config"].unique()) == ["narrow", "wide"]
    assert df["key"].is_unique
    assert len(df) == 8
    # every solved path replayed on its start state
    assert (df["status"] == "solved").all() and invalid_replays(df) == []


def test_report_writes_summary_and_figures_in_place(evaluations: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "report", str(evaluations))
    assert code == 0, err
    md = (evaluations / "summary.md").read_text()
    assert "| narrow | 4 |" in md and "| wide | 4 |" in md
    assert "`narrow.csv` (configuration `narrow`)" in md
    for fig in ("scatter.png", "coverage.png", "by-depth.png"):
        assert (evaluations / fig).stat().st_size > 0
    # the tables themselves are not rewritten, and a second report asks before replacing
    assert not (evaluations / "results.csv").exists()
    code, _, err = run_cli(capsys, "report", str(evaluations))
    assert code == 2 and "already holds a report" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "report", str(evaluations), "--overwrite")
    assert code == 0, err


def test_a_table_of_several_configurations_is_refused(evaluations: Path, capsys) -> None:
    header, rows = _rows("puzzle24-w1024.csv", 2)
    rows[1]["config"] = "other"
    _write(evaluations / "mixed.csv", header, rows)
    code, _, err = run_cli(capsys, "report", str(evaluations))
    assert code == 2
    assert "mixed.csv holds several configurations" in err
    assert len(err.strip().splitlines()) == 1
