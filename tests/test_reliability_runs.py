"""Runs are never lost or overwritten: paper output, suite fingerprints, the run lock, an atomic
``run.json`` and a resume hint that keeps the profile."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from runner_fakes import make_plan

from bench import papers, runner
from bench.executor import InlineExecutor
from bench.runner import ROWS, RUN_JSON, read_rows, run_plan
from core.errors import InputError


def _run(plan, run_dir, **kw):
    return run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), progress=False,
                    prepare=False, **kw)


# --------------------------------------------------------------------------- bench paper
def _rows(run_dir: Path, suite: str) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    row = {"key": "korf100/1/555", "suite": suite, "config": "555", "instance_set": "korf100",
           "instance": "1", "status": "solved", "length": 50, "nodes_generated": 10,
           "time_s": 0.1, "peak_rss_bytes": 1, "heuristic_nbytes": 1}
    (run_dir / ROWS).write_text(json.dumps(row) + "\n")


def test_paper_refuses_a_run_of_another_suite(tmp_path):
    _rows(tmp_path / "run", "puzzle8")
    with pytest.raises(InputError, match="--run: .* is not a run of suite felner2004 \\(puzzle8\\)"):
        papers.make("felner2004", run_dir=tmp_path / "run", out=tmp_path / "results")
    assert not (tmp_path / "results").exists()
    with pytest.raises(InputError, match="not a run of suite cube3"):
        papers.make("deepcubea-fig2", run_dir=tmp_path / "run", out=tmp_path / "results")


def test_paper_refuses_a_run_with_no_suite_on_record(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / ROWS).write_text(json.dumps({"key": "a/1/x", "config": "x", "status": "solved",
                                                "length": 1}) + "\n")
    with pytest.raises(InputError, match="no suite on record"):
        papers.make("felner2004", run_dir=run_dir, out=tmp_path / "results")


def test_paper_writes_under_runs_unless_out_is_given(tmp_path, monkeypatch):
    from bench.cli import cli

    assert papers.DEFAULT_OUT == Path("runs") / "paper"
    seen = {}
    monkeypatch.setattr(papers, "make", lambda name, **kw: seen.update(kw) or "table")
    from click.testing import CliRunner

    res = CliRunner().invoke(cli, ["paper", "deepcubea-table2"])
    assert res.exit_code == 0, res.output
    assert seen["out"] == Path("runs") / "paper"
    res = CliRunner().invoke(cli, ["paper", "deepcubea-table2", "--out", "results"])
    assert seen["out"] == Path("results")


def test_paper_tables_of_no_run_refuse_run(tmp_path):
    with pytest.raises(InputError, match="--run: deepcubea-table3 reads no run"):
        papers.make("deepcubea-table3", run_dir=tmp_path, out=tmp_path / "out")


def test_results_readme_regenerates_committed_tables_with_out_results():
    text = (Path(__file__).resolve().parent.parent / "results" / "README.md").read_text()
    commands = [part for part in text.split("`") if part.startswith("bench paper ")]
    assert commands and all("--out results" in c for c in commands), commands


# --------------------------------------------------------------------------- fingerprints
def test_resume_refuses_a_folder_of_another_suite(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_dir = tmp_path / "run"
    _run(plan, run_dir)
    meta = json.loads((run_dir / RUN_JSON).read_text())
    meta["suite"] = "puzzle8"
    (run_dir / RUN_JSON).write_text(json.dumps(meta))
    before = (run_dir / ROWS).read_bytes()
    with pytest.raises(InputError, match="--resume: .* holds a run of suite puzzle8, not fake"):
        _run(plan, run_dir, resume=True)
    assert (run_dir / ROWS).read_bytes() == before
    assert json.loads((run_dir / RUN_JSON).read_text())["suite"] == "puzzle8"


def test_resume_refuses_rows_whose_task_changed(tmp_path):
    run_dir = tmp_path / "run"
    _run(make_plan(tmp_path, [("1", "a", {"length": 3}), ("2", "a", {"length": 4})]), run_dir)
    assert all(r["fingerprint"] for r in read_rows(run_dir / ROWS))
    assert json.loads((run_dir / RUN_JSON).read_text())["fingerprint"]
    changed = make_plan(tmp_path, [("1", "a", {"length": 3}), ("2", "a", {"length": 5})])
    with pytest.raises(InputError, match="1 finished rows .* --rerun-changed"):
        _run(changed, run_dir, resume=True)
    assert len(read_rows(run_dir / ROWS)) == 2
    again = _run(changed, run_dir, resume=True, rerun_changed=True)
    assert again.ran == 1 and again.skipped == 1
    table = runner.load_table(run_dir).set_index("instance")
    assert table.loc["2", "length"] == 5 and table.loc["1", "length"] == 3
    same = _run(changed, run_dir, resume=True)  # now consistent: nothing to run
    assert same.ran == 0


def test_seed_change_is_a_changed_task(tmp_path):
    run_dir = tmp_path / "run"
    plan = make_plan(tmp_path, [("1", "a", {})])
    _run(plan, run_dir)
    for t in plan.tasks:
        t.payload["seed"] = 7
    with pytest.raises(InputError, match="--rerun-changed"):
        _run(plan, run_dir, resume=True)


# --------------------------------------------------------------------------- lock
def test_a_locked_run_folder_is_refused(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_dir = tmp_path / "run"
    with runner.run_lock(run_dir):
        with pytest.raises(InputError, match="--out: .* is in use by another run \\(pid \\d+\\)"):
            _run(plan, run_dir)
    assert not (run_dir / ROWS).exists()
    _run(plan, run_dir)  # released
    assert len(read_rows(run_dir / ROWS)) == 1


def test_unwritable_out_folder_is_one_line_error(tmp_path):
    (tmp_path / "file").write_text("x")
    plan = make_plan(tmp_path, [("1", "a", {})])
    with pytest.raises(InputError, match="--out: cannot write to"):
        _run(plan, tmp_path / "file" / "run")


# --------------------------------------------------------------------------- run.json
def test_run_json_is_written_atomically(tmp_path, monkeypatch):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_dir = tmp_path / "run"
    _run(plan, run_dir)
    good = (run_dir / RUN_JSON).read_text()
    real_fsync = os.fsync

    def full_disk(fd):  # the disk fills while the new run.json is written
        if RUN_JSON in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(28, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(InputError, match="cannot write"):
        _run(plan, run_dir, resume=True)
    monkeypatch.undo()
    assert (run_dir / RUN_JSON).read_text() == good
    assert not [p for p in run_dir.iterdir() if ".tmp" in p.name]


def test_damaged_run_json_neither_breaks_resume_nor_report(tmp_path):
    from bench.commands.report import write_report as _write_report

    plan = make_plan(tmp_path, [("1", "a", {}), ("2", "a", {})])
    run_dir = tmp_path / "run"
    _run(plan, run_dir)
    (run_dir / RUN_JSON).write_text('{"suite": "fake", "sess')
    _write_report(run_dir, None, "t", make_figures=False)
    assert (run_dir / "summary.md").is_file()
    again = _run(plan, run_dir, resume=True)
    assert again.skipped == 2
    assert json.loads((run_dir / RUN_JSON).read_text())["suite"] == "fake"
    assert (run_dir / f"{RUN_JSON}.damaged").is_file()


def test_foreign_lines_in_rows_are_skipped(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_dir = tmp_path / "run"
    _run(plan, run_dir)
    with (run_dir / ROWS).open("a") as f:
        f.write("[1, 2]\n42\n\"text\"\n{\"no\": \"key\"}\n")
    assert len(read_rows(run_dir / ROWS)) == 1
    assert len(runner.load_table(run_dir)) == 1


# --------------------------------------------------------------------------- Ctrl-C hint
def test_interrupt_hint_keeps_the_profile_and_options(tmp_path, monkeypatch, capsys):
    from bench.cli import main

    def interrupted(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_plan", interrupted)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        main(["run", "suite", "lightsout7", "--quick", "--config", "gf2", "--limit", "2",
              "--seed", "3", "--out", str(out), "-q"])
    assert exc.value.code == 130
    err = capsys.readouterr().err
    assert (f"continue with: bench run suite lightsout7 --quick --config gf2 --limit 2 --seed 3 "
            f"--out {out} --resume") in err


def test_resume_without_profile_continues_the_recorded_profile(tmp_path, monkeypatch):
    from bench.cli import main

    seen = {}

    def fake_run_plan(plan, out, *a, **kw):
        seen["profile"] = plan.profile
        raise KeyboardInterrupt

    out = tmp_path / "run"
    out.mkdir()
    (out / ROWS).write_text("")
    (out / RUN_JSON).write_text(json.dumps({"suite": "lightsout7", "profile": "quick"}))
    monkeypatch.setattr(runner, "run_plan", fake_run_plan)
    with pytest.raises(SystemExit):
        main(["run", "suite", "lightsout7", "--config", "gf2", "--limit", "1", "--out", str(out),
              "--resume", "-q"])
    assert seen["profile"] == "quick"


def test_rerun_changed_needs_resume(capsys):
    from bench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["run", "suite", "lightsout7", "--rerun-changed"])
    assert exc.value.code == 2
    assert "error: --rerun-changed: only with --resume" in capsys.readouterr().err


# --------------------------------------------------------------------------- default run folder
def test_default_run_dir_skips_a_name_taken_in_the_same_second(tmp_path, monkeypatch):
    import datetime as dt

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 1, 2, 3, 4, 5)

    monkeypatch.setattr(runner._dt, "datetime", Frozen)
    first = runner.default_run_dir("cube3", "quick", root=tmp_path)
    assert first == tmp_path / "cube3-quick-20260102-030405"
    first.mkdir()
    second = runner.default_run_dir("cube3", "quick", root=tmp_path)
    assert second == tmp_path / "cube3-quick-20260102-030405-2"
    second.mkdir()
    assert runner.default_run_dir("cube3", "quick", root=tmp_path).name.endswith("-3")
    # the newest of the same second is the one a resume without --out picks
    assert runner.latest_run_dir("cube3", "quick", root=tmp_path) == second
    for n in range(3, 11):
        (tmp_path / f"cube3-quick-20260102-030405-{n}").mkdir()
    (tmp_path / "cube3-quick-20260102-030404").mkdir()
    assert runner.latest_run_dir("cube3", "quick", root=tmp_path).name.endswith("-10")
