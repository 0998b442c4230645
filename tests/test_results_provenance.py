"""Committed results stay traceable: no row made from a tree with uncommitted changes enters
``results/`` from 2026-12-08 on, and every folder holding such rows (or a table made by such
a tree) says so in a Provenance section of its README."""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
#: rows dated from this day on must come from a committed tree
CUTOFF = "2026-12-08"
#: the record files a row or a table's provenance is read from
RECORDS = (".jsonl", ".jsonl.gz", ".csv", ".csv.gz")
PROVENANCE_FILES = ("provenance.json", "run.json")


def _text(path: Path) -> str:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of one file that say which code made them (a ``git_rev`` or ``git_dirty``
    field): rows of ``.jsonl``/``.csv`` files (gzipped too), a ``provenance.json``, the sessions
    of a ``run.json``."""
    name = path.name
    if name in PROVENANCE_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data.get("sessions", []) if name == "run.json" and isinstance(data, dict) \
            else [data]
        yield from (d for d in items if isinstance(d, dict))
        return
    if not name.endswith(RECORDS):
        return
    text = _text(path)
    if "git_rev" not in text and "git_dirty" not in text:
        return
    if ".jsonl" in name:
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                if isinstance(row, dict):
                    yield row
    else:
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or not {"git_rev", "git_dirty"} & set(reader.fieldnames):
            return
        yield from reader


def from_uncommitted_tree(row: dict[str, Any]) -> bool:
    """``git_dirty`` true, or a ``git_rev`` marked ``-dirty`` (rows made before git_dirty)."""
    flag = row.get("git_dirty")
    return flag is True or str(flag).lower() == "true" or \
        str(row.get("git_rev") or "").endswith("-dirty")


def row_date(row: dict[str, Any]) -> str:
    return str(row.get("date") or row.get("finished_at") or "")[:10]


def scan(results: Path) -> tuple[list[str], set[str]]:
    """``(rows dated CUTOFF or later from uncommitted trees, as 'file: date rev'; the top
    folders holding any record from an uncommitted tree)``."""
    late: list[str] = []
    folders: set[str] = set()
    for path in sorted(results.rglob("*")):
        if not path.is_file():
            continue
        for row in records(path):
            if not from_uncommitted_tree(row):
                continue
            rel = path.relative_to(results)
            folders.add(rel.parts[0])
            if row_date(row) >= CUTOFF:
                late.append(f"{rel}: {row_date(row)} {row.get('git_rev')}")
    return late, folders


@pytest.fixture(scope="module")
def committed() -> tuple[list[str], set[str]]:
    return scan(RESULTS)


def test_no_new_rows_from_uncommitted_trees(committed):
    late, _ = committed
    assert late == [], (f"{len(late)} rows in results/ were made on or after {CUTOFF} from a "
                        f"tree with uncommitted changes (commit, then run again): {late[:5]}")


def test_folders_from_uncommitted_trees_say_so(committed):
    _, folders = committed
    assert folders, "the committed results hold rows from uncommitted trees (marked below)"
    unmarked = [f for f in sorted(folders)
                if "## Provenance" not in _readme(RESULTS / f)]
    assert unmarked == []


def _readme(folder: Path) -> str:
    path = folder / "README.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def test_scan_finds_late_rows_in_every_format(tmp_path):
    """The check itself: rows of every record format, dirty or clean, before and after the
    cutoff."""
    run = tmp_path / "run-a"
    run.mkdir()
    rows = [{"key": "1", "git_rev": "abc", "git_dirty": True, "date": "2026-12-09T10:00:00"},
            {"key": "2", "git_rev": "abc", "git_dirty": False, "date": "2026-12-09T10:00:00"},
            {"key": "3", "git_rev": "abc-dirty", "date": "2026-11-20T10:00:00"}]
    (run / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with gzip.open(run / "more.jsonl.gz", "wt") as f:
        f.write(json.dumps(rows[0]) + "\n")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["key", "git_rev", "git_dirty", "date"])
    writer.writeheader()
    writer.writerows(rows)
    (run / "results.csv").write_text(buf.getvalue())
    (tmp_path / "table-b").mkdir()
    (tmp_path / "table-b" / "provenance.json").write_text(
        json.dumps({"git_rev": "def-dirty", "date": "2026-12-10T00:00:00"}))
    (tmp_path / "clean-c").mkdir()
    (tmp_path / "clean-c" / "results.csv").write_text("key,git_rev,date\n1,abc,2026-12-10\n")
    late, folders = scan(tmp_path)
    assert sorted(late) == ["run-a/more.jsonl.gz: 2026-12-09 abc",
                            "run-a/results.csv: 2026-12-09 abc",
                            "run-a/rows.jsonl: 2026-12-09 abc",
                            "table-b/provenance.json: 2026-12-10 def-dirty"]
    assert folders == {"run-a", "table-b"}
