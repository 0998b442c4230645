"""Suites on a Dask LocalCluster: the same rows as the local executor, lost workers, Ctrl-C.

The fake task function of ``runner_fakes`` stands in for a solver where the test is about the
executor (worker deaths, interrupts); the row comparison runs a real quick suite.
"""

from __future__ import annotations

import _thread
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from runner_fakes import make_plan

from bench.dask_executor import DaskExecutor
from bench.runner import ROWS, read_rows, run_plan

ROOT = Path(__file__).resolve().parent.parent

#: columns that differ between two runs of the same tasks (clocks, memory, machine, order)
VOLATILE = {"time_s", "load_s", "peak_rss_bytes", "worker_peak_rss_bytes", "heuristic_load_s",
            "finished_at", "date", "host", "cpu", "cpu_score", "extra"}


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**os.environ, **(env or {})})


def _stable(rows: list[dict]) -> dict[str, dict]:
    return {r["key"]: {k: v for k, v in r.items() if k not in VOLATILE} for r in rows}


def test_local_cluster_gives_the_local_executors_rows(tmp_path):
    local, dask = tmp_path / "local", tmp_path / "dask"
    res = bench("run", "suite", "puzzle8", "--quick", "-j", "2", "--out", str(local), "-q",
                "--no-figures")
    assert res.returncode == 0, res.stderr[-3000:]
    res = bench("run", "suite", "puzzle8", "--quick", "-j", "2", "--executor", "dask",
                "--out", str(dask), "-q", "--no-figures")
    assert res.returncode == 0, res.stderr[-3000:]
    a, b = read_rows(local / ROWS), read_rows(dask / ROWS)
    assert len(a) == len(b) == 8 and all(r["status"] == "solved" for r in b)
    assert _stable(a) == _stable(b)
    assert all(r["host"] and r["cpu"] and r["cpu_score"] > 0 for r in b)
    session = json.loads((dask / "run.json").read_text())["sessions"][-1]
    assert session["executor"]["executor"] == "dask"
    assert session["executor"]["workers"] == 2 and session["executor"]["allowed_failures"] == 1
    assert "manhattan-ida" in res.stdout and (dask / "results.parquet").is_file()


@pytest.mark.parametrize("args,match", [
    (("--executor", "dask", "--scheduler", "nowhere"), "--scheduler: expected a scheduler address"),
    (("--scheduler", "tcp://127.0.0.1:8786"), "--scheduler: only with --executor dask"),
    (("--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "-j", "2"), "--jobs: "),
    (("--executor", "cluster"), "Invalid value for '--executor'"),
])
def test_bad_cluster_options_are_one_line_exit_2(tmp_path, args, match):
    res = bench("run", "suite", "puzzle8", "--quick", "--out", str(tmp_path / "r"), *args)
    assert res.returncode == 2 and match in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and res.stderr.strip().count("\n") == 0
    assert not (tmp_path / "r").exists()


def test_unreachable_scheduler_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    import socket

    from bench import dask_executor
    from bench.cli import main

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT_S", 2.0)
    with pytest.raises(SystemExit) as exc:
        main(["run", "suite", "puzzle8", "--quick", "-q", "--executor", "dask",
              "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "r")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--scheduler: cannot reach a Dask scheduler at tcp://127.0.0.1:{port}" in err
    assert not (tmp_path / "r" / ROWS).exists()


# --------------------------------------------------------------------------- one cluster
@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two workers running the fake task function."""
    ex = DaskExecutor(jobs=2, fn="runner_fakes:solve", grace_s=0.5).open()
    try:
        yield ex
    finally:
        ex.close()


def _worker_pids(ex: DaskExecutor) -> dict[str, int]:
    return ex._client.run(os.getpid)


def _wait_rows(path: Path, n: int, timeout: float = 300.0) -> None:
    end = time.monotonic() + timeout
    while len(read_rows(path)) < n and time.monotonic() < end:
        time.sleep(0.05)


def test_failures_end_as_on_this_machine(cluster, tmp_path):
    specs = [("1", "a", {"length": 12}), ("2", "a", {"mode": "error"}),
             ("3", "a", {"mode": "crash"}), ("4", "a", {"mode": "hang"}),
             ("5", "a", {"mode": "fail", "status": "node-limit"})]
    plan = make_plan(tmp_path, specs, time_s=0.5)
    run_plan(plan, tmp_path / "run", cluster, progress=False, prepare=False)
    rows = {r["instance"]: r for r in read_rows(tmp_path / "run" / ROWS)}
    assert {k: r["status"] for k, r in rows.items()} == {
        "1": "solved", "2": "error", "3": "crash", "4": "timeout", "5": "node-limit"}
    assert "solver blew up" in rows["2"]["error"] and "exit code 3" in rows["3"]["error"]
    specs = [("1", "a", {"mode": "oom", "bytes": 600 * 2**20}), ("2", "a", {})]
    plan = make_plan(tmp_path, specs, time_s=60, memory_mb=400)
    run_plan(plan, tmp_path / "oom", cluster, progress=False, prepare=False)
    rows = {r["instance"]: r for r in read_rows(tmp_path / "oom" / ROWS)}
    assert rows["1"]["status"] == "out-of-memory" and rows["2"]["status"] == "solved"
    assert "over the budget 400 MiB" in rows["1"]["error"]  # the task's budget, not Dask's


def test_task_whose_worker_dies_twice_is_worker_lost(cluster, tmp_path):
    specs = [("1", "a", {"mode": "kill-worker"}), ("2", "a", {"length": 7}),
             ("3", "a", {"length": 8, "sleep": 0.2})]
    plan = make_plan(tmp_path, specs, time_s=10)
    summary = run_plan(plan, tmp_path / "run", cluster, progress=False, prepare=False)
    rows = {r["instance"]: r for r in read_rows(tmp_path / "run" / ROWS)}
    assert len(rows) == 3 and summary.statuses["worker-lost"] == 1
    assert rows["1"]["status"] == "worker-lost" and "died 2 times" in rows["1"]["error"]
    assert rows["1"]["length"] is None
    assert rows["2"]["length"] == 7 and rows["3"]["length"] == 8
    cluster._client.wait_for_workers(2, timeout=300)  # the nanny restarts what was killed


def test_worker_killed_mid_run_loses_no_finished_row(cluster, tmp_path):
    cluster._client.wait_for_workers(2, timeout=300)
    specs = [(str(i), "a", {"sleep": 0.4, "length": 20 + i}) for i in range(8)]
    plan = make_plan(tmp_path, specs, time_s=10)
    rows_path = tmp_path / "run" / ROWS
    before: list[dict] = []

    def kill_one() -> None:
        _wait_rows(rows_path, 2)
        before.extend(read_rows(rows_path))
        pid = sorted(_worker_pids(cluster).values())[0]
        os.kill(pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    run_plan(plan, tmp_path / "run", cluster, progress=False, prepare=False)
    killer.join()
    rows = read_rows(rows_path)
    keys = [r["key"] for r in rows]
    assert len(before) >= 2 and len(keys) == len(set(keys)) == 8
    assert all(r in rows for r in before)  # every row finished before the kill is kept
    for r in rows:  # the task the dead worker held was run again (or, twice unlucky, lost)
        assert r["status"] in ("solved", "worker-lost")
        if r["status"] == "solved":
            assert r["length"] == 20 + int(r["instance"])
    cluster._client.wait_for_workers(2, timeout=300)


def test_ctrl_c_cancels_the_futures_and_keeps_finished_rows(cluster, tmp_path):
    import signal

    # Ctrl-C raises KeyboardInterrupt whatever SIGINT handler an earlier test left behind
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cluster._client.wait_for_workers(2, timeout=300)
    # long enough that the interrupt lands while tasks are still queued on a loaded machine
    specs = [(str(i), "a", {"sleep": 2.0, "length": 30 + i}) for i in range(10)]
    plan = make_plan(tmp_path, specs, time_s=10)
    rows_path = tmp_path / "run" / ROWS

    def interrupt() -> None:
        _wait_rows(rows_path, 2)
        _thread.interrupt_main()  # what Ctrl-C does

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_plan(plan, tmp_path / "run", cluster, progress=False, prepare=False)
    kept = read_rows(rows_path)
    assert 2 <= len(kept) < 10 and all(r["status"] == "solved" for r in kept)

    def left(dask_scheduler) -> int:
        return sum(1 for k in dask_scheduler.tasks if str(k).startswith("bench-"))

    end = time.monotonic() + 120
    while cluster._client.run_on_scheduler(left) and time.monotonic() < end:
        time.sleep(0.1)
    assert cluster._client.run_on_scheduler(left) == 0  # nothing left queued or running
    again = run_plan(plan, tmp_path / "run", cluster, resume=True, progress=False, prepare=False)
    rows = read_rows(rows_path)
    assert again.skipped == len(kept) and len({r["key"] for r in rows}) == len(rows) == 10
    assert all(r in rows for r in kept)
