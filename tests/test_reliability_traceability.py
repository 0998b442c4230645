"""Every figure traceable: rows and run.json record whether the tree was dirty and a digest of
the difference; reports flag rows whose code is in no commit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from runner_fakes import make_plan

from bench import provenance, report
from bench.executor import InlineExecutor
from bench.runner import ROWS, RUN_JSON, read_rows, run_plan


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "code.py").write_text("x = 1\n")
    _git(repo, "add", "code.py")
    _git(repo, "commit", "-q", "-m", "first")
    return repo


def test_tree_state_clean_dirty_and_outside_a_checkout(repo, tmp_path):
    assert provenance.git_tree_state(repo) == (False, None)
    assert not provenance.git_revision(repo).endswith("-dirty")
    (repo / "code.py").write_text("x = 2\n")
    dirty, digest = provenance.git_tree_state(repo)
    assert dirty is True and isinstance(digest, str) and len(digest) == 16
    assert provenance.git_revision(repo).endswith("-dirty")
    # another change: another digest; the same change again: the same digest
    (repo / "code.py").write_text("x = 3\n")
    assert provenance.git_tree_state(repo)[1] != digest
    (repo / "code.py").write_text("x = 2\n")
    assert provenance.git_tree_state(repo) == (True, digest)
    # untracked files do not make a tree dirty (as git_revision)
    (repo / "code.py").write_text("x = 1\n")
    (repo / "new.py").write_text("y = 1\n")
    assert provenance.git_tree_state(repo) == (False, None)
    outside = tmp_path / "plain"
    outside.mkdir()
    assert provenance.git_tree_state(outside) == (None, None)


def test_revision_known(repo, tmp_path):
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert provenance.revision_known(head, repo) is True
    assert provenance.revision_known(head + "-dirty", repo) is True
    assert provenance.revision_known("e92528e31348", repo) is False
    assert provenance.revision_known("unknown", repo) is False
    assert provenance.revision_known("", repo) is False
    outside = tmp_path / "plain"
    outside.mkdir()
    assert provenance.revision_known(head, outside) is None


def test_rows_and_run_json_record_the_tree_state(tmp_path, monkeypatch):
    provenance.provenance.cache_clear()
    monkeypatch.setattr(provenance, "git_tree_state", lambda root=None: (True, "ab" * 8))
    monkeypatch.setattr(provenance, "git_revision", lambda root=None: "0123456789ab-dirty")
    try:
        plan = make_plan(tmp_path, [("1", "a", {}), ("2", "a", {})])
        run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"),
                 progress=False, prepare=False)
    finally:
        provenance.provenance.cache_clear()
    rows = read_rows(tmp_path / "run" / ROWS)
    assert len(rows) == 2
    for r in rows:
        assert r["git_dirty"] is True and r["git_diff_sha256"] == "ab" * 8
        assert r["git_rev"] == "0123456789ab-dirty"
    session = json.loads((tmp_path / "run" / RUN_JSON).read_text())["sessions"][-1]
    assert session["git_dirty"] is True and session["git_diff_sha256"] == "ab" * 8


def test_the_checkout_state_is_recorded_as_git_says():
    prov = provenance.provenance()
    assert prov["git_dirty"] in (True, False, None)
    assert prov["git_rev"].endswith("-dirty") == (prov["git_dirty"] is True) \
        or prov["git_rev"] == "unknown"
    assert (prov["git_diff_sha256"] is None) == (prov["git_dirty"] is not True)


def _frame(**cols):
    n = len(next(iter(cols.values())))
    return pd.DataFrame({"key": [f"s/{i}/c" for i in range(n)], **cols})


def test_reports_flag_rows_from_dirty_or_unknown_revisions():
    head = provenance.git_revision().removesuffix("-dirty")
    if head == "unknown":
        pytest.skip("not a git checkout")
    assert report.revision_note(_frame(git_rev=[head, head])) == ""
    # rows made before git_dirty was recorded: the -dirty suffix says it
    note = report.revision_note(_frame(git_rev=[head + "-dirty", head]))
    assert "1 of 2 rows were made from a tree with uncommitted changes" in note
    assert head + "-dirty" in note
    # rows that record it: the flag and the digest of the changes
    note = report.revision_note(_frame(git_rev=[head, head], git_dirty=[True, False],
                                       git_diff_sha256=["cd" * 8, None]))
    assert "1 of 2 rows" in note and "cd" * 8 in note
    # a revision missing from history, and rows with none
    note = report.revision_note(_frame(git_rev=["e92528e31348", head, None]))
    assert "1 of 3 rows name a revision missing from this checkout's history (e92528e31348)" \
        in note
    assert report.revision_note(_frame(status=["solved"])).startswith("Traceability: 1 of 1 rows"
                                                                      " name no revision")


def test_the_summary_carries_the_flag(tmp_path):
    row = {"key": "korf100/1/a", "suite": "fake", "config": "a", "instance_set": "korf100",
           "instance": "1", "status": "solved", "length": 50, "nodes_generated": 10,
           "time_s": 0.1, "peak_rss_bytes": 1, "heuristic_nbytes": 1,
           "git_rev": "0123456789ab-dirty", "git_dirty": True, "git_diff_sha256": "ef" * 8}
    md = report.report_markdown(pd.DataFrame([row]), title="t")
    assert "Traceability: 1 of 1 rows were made from a tree with uncommitted changes" in md
    assert "ef" * 8 in md
