"""Runner: failure rows, the append-only record, resume after kill -9 (with a fake task function)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_fakes import make_plan

from bench.executor import InlineExecutor, LocalExecutor
from bench.runner import ROWS, derive_tables, load_table, read_rows, run_plan
from core.errors import InputError
from core.rows import Row

HERE = Path(__file__).resolve().parent


def _fake_executor(jobs: int = 2) -> LocalExecutor:
    return LocalExecutor(jobs=jobs, fn="runner_fakes:solve", grace_s=0.5, poll_s=0.05)


def test_failures_become_rows_and_the_run_goes_on(tmp_path):
    specs = [
        ("1", "a", {"length": 12, "optimal": 12}),
        ("2", "a", {"mode": "error"}),
        ("3", "a", {"mode": "crash"}),
        ("4", "a", {"mode": "hang"}),
        ("5", "a", {"mode": "fail", "status": "node-limit"}),
        ("6", "a", {"length": 9, "optimal": 10}),  # shorter than the optimum: flagged
        ("7", "a", {"length": 14}),
    ]
    plan = make_plan(tmp_path, specs, time_s=0.5)
    # IDA* with Manhattan distance is optimal by construction: its length 9 against the
    # reference 10 fails the run, naming the instance, once every row is written
    with pytest.raises(InputError, match=r"reference optima: korf100/6: a .* length 9.* says 10"):
        run_plan(plan, tmp_path / "run", _fake_executor(), progress=False, prepare=False)
    rows = {r["instance"]: r for r in read_rows(tmp_path / "run" / ROWS)}
    assert len(rows) == 7
    assert rows["1"]["status"] == "solved" and rows["1"]["length"] == 12
    assert rows["2"]["status"] == "error" and "solver blew up" in rows["2"]["error"]
    assert rows["3"]["status"] == "crash" and "exit code 3" in rows["3"]["error"]
    assert rows["3"]["time_s"] >= 0  # a lost worker's row says how long its search ran
    assert rows["4"]["status"] == "timeout"
    assert rows["5"]["status"] == "node-limit" and rows["5"]["length"] is None
    assert rows["6"]["status"] == "invalid"
    assert rows["7"]["status"] == "solved"
    for r in rows.values():
        assert r["git_rev"] and r["cpu"] and r["date"]
        assert isinstance(r["cpu_score"], float) and r["cpu_score"] > 0
        # failure rows and the watchdog's columns are declared columns of the row schema
        assert set(r) <= set(Row.__annotations__), set(r) - set(Row.__annotations__)
    assert "worker_peak_rss_bytes" in rows["3"]


def test_memory_blowup_is_out_of_memory(tmp_path):
    specs = [("1", "a", {"mode": "oom", "bytes": 600 * 2**20}), ("2", "a", {}),
             ("3", "a", {"mode": "memory-error", "bytes": 80 * 2**20})]
    plan = make_plan(tmp_path, specs, time_s=20, memory_mb=300)
    run_plan(plan, tmp_path / "run", _fake_executor(jobs=1), progress=False, prepare=False)
    rows = {r["instance"]: r for r in read_rows(tmp_path / "run" / ROWS)}
    assert rows["1"]["status"] == "out-of-memory" and "budget" in rows["1"]["error"]
    assert 0 < rows["1"]["time_s"] < 20  # how long the search ran before its memory ran out
    # what the search had taken when it was stopped: the worker's growth since the task
    # started (the fake touches its 600 MiB page by page; the worker was over its 300 MiB
    # budget in all, of which a freshly started worker holds well under 200 MiB)
    grown, worker = rows["1"]["peak_rss_bytes"], rows["1"]["worker_peak_rss_bytes"]
    assert worker > 300 * 2**20 and 100 * 2**20 <= grown <= worker
    assert rows["2"]["peak_rss_bytes"] == 1000  # a finished search's own figure stands
    # a search that raised MemoryError: the peak its block measured (80 MiB touched)
    assert rows["3"]["status"] == "out-of-memory" and rows["3"]["error"] == "MemoryError"
    assert 80 * 10**6 <= rows["3"]["peak_rss_bytes"] < 120 * 2**20
    assert rows["2"]["status"] == "solved"


def test_existing_run_needs_resume(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"), progress=False,
             prepare=False)
    with pytest.raises(InputError, match="--resume"):
        run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"), progress=False,
                 prepare=False)
    again = run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"),
                     resume=True, progress=False, prepare=False)
    assert again.skipped == 1 and again.ran == 0


def test_torn_last_line_is_ignored_and_repaired(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {}), ("2", "a", {})])
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    good = {"key": "korf100/1/a", "instance": "1", "config": "a", "status": "solved",
            "length": 3}
    (run_dir / ROWS).write_text(json.dumps(good) + "\n" + '{"key": "korf100/2/a", "sta')
    run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), resume=True,
             progress=False, prepare=False)
    rows = read_rows(run_dir / ROWS)
    assert sorted(r["key"] for r in rows) == ["korf100/1/a", "korf100/2/a"]


def test_resume_after_kill_9_keeps_every_row_once(tmp_path):
    run_dir = tmp_path / "run"
    n = 24
    cmd = [sys.executable, str(HERE / "runner_fakes.py"), str(run_dir), str(n), "0.15"]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if len(read_rows(run_dir / ROWS)) >= 6:
                break
            if proc.poll() is not None:
                pytest.fail(f"runner exited early: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers
        proc.wait()
    before = read_rows(run_dir / ROWS)
    assert 6 <= len(before) < n
    res = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = read_rows(run_dir / ROWS)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)) == n
    assert {r["instance"]: r["length"] for r in rows} == {str(i): 40 + i for i in range(n)}
    df = derive_tables(run_dir)
    assert len(df) == n and (run_dir / "results.parquet").is_file()
    assert (run_dir / "results.csv").is_file()


def test_load_table_types(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {"length": 3}), ("2", "a", {"mode": "fail"})])
    run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"), progress=False,
             prepare=False)
    df = load_table(tmp_path / "run")
    assert str(df["length"].dtype) == "Int64"
    assert df.set_index("instance").loc["1", "length"] == 3
    assert df.set_index("instance")["length"].isna().loc["2"]


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_per_worker(threads: int) -> None:
    from bench.executor import Task

    rows: list[dict] = []
    LocalExecutor(jobs=1, threads=threads, fn="runner_fakes:threads").run(
        [Task("t", {})], lambda task, row: rows.append(row))
    assert rows[0]["torch"] == threads and rows[0]["omp"] == str(threads)
    assert rows[0]["numba"] == threads
