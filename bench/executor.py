"""Run tasks in worker processes, behind one small interface.

``Executor.run(tasks, on_result)`` runs every task and calls ``on_result(task, row)`` in the
parent as each one finishes, in completion order. A task whose worker crashes, runs past its
hard deadline or blows its memory budget still yields a row, with ``status`` ``crash``,
``timeout`` or ``out-of-memory``; the worker is replaced and the run goes on. Such a row, when
the search had started, says how much memory it had taken (``peak_rss_bytes``: the worker's
resident growth since the task started, at the watchdog's samples, a lower bound), as does a
row of a search that raised ``MemoryError`` (the peak its search measured).

``LocalExecutor`` keeps ``jobs`` long-lived worker processes (``spawn`` start method), each with
one Numba, one torch and one BLAS thread. A worker calls the task function ``fn``
(``"module:attr"``) as ``fn(payload) -> Row``; the function may keep heavy objects (PDBs,
networks) in a per-process cache, so they load once per worker, not once per instance. Before
solving, the worker calls ``fn.prepare(payload)`` where ``fn`` is a :class:`PreparedTask` and
tells the parent; the time limit starts then, so loading a table is not counted against the
search.

``WorkerSlot`` is one such watched worker kept between tasks; the Dask executor
(:mod:`bench.dask_executor`) runs one inside each Dask worker, so a task on a cluster ends the
same way as on this machine.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, runtime_checkable

from core.rows import Row, TaskPayload, failure
from core.status import Status
from solvers import memory

#: environment every worker starts with (one thread per worker unless ``threads`` says more)
WORKER_ENV = {
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TORCH_NUM_THREADS": "1",
}


@dataclass
class Task:
    """One unit of work. ``payload`` is picklable and goes to the task function.

    ``time_s``: the search's own limit; the worker is killed at ``time_s * 1.5 + grace_s``.
    ``memory_bytes``: the worker's resident-memory budget while it runs this task.
    """

    key: str
    payload: TaskPayload
    time_s: float | None = None
    memory_bytes: int | None = None
    #: the planned columns of the task's row
    meta: Row = field(default_factory=lambda: Row())


ResultCallback = Callable[[Task, Row], None]


@runtime_checkable
class PreparedTask(Protocol):
    """A task function that loads what a task needs (its tables, its network) in ``prepare``,
    before the search and its time limit start (``bench.run_worker.solve_task``)."""

    def __call__(self, payload: TaskPayload) -> Row:
        ...

    def prepare(self, payload: TaskPayload) -> None:
        ...


class Executor(ABC):
    """Runs tasks; the only interface the runner uses."""

    @abstractmethod
    def run(self, tasks: Sequence[Task], on_result: ResultCallback) -> None:
        """Run ``tasks``; call ``on_result`` in this process for each as it finishes."""

    def preparer(self, fn: str) -> Executor:
        """The executor that runs the preparation tasks ``fn`` (build or load each heuristic
        once before the run): one local worker, unless the executor's workers are elsewhere."""
        return LocalExecutor(jobs=1, fn=fn)

    def describe(self) -> dict[str, Any]:
        """What ran the tasks, for the run's record (``run.json``)."""
        return {"executor": type(self).__name__}

    def close(self) -> None:  # noqa: B027 - a no-op unless the executor holds something
        """Release what the executor holds between runs (a cluster); nothing by default."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _worker_env(threads: int) -> dict[str, str]:
    return {k: str(threads) for k in WORKER_ENV}


def _limit_threads(threads: int = 1) -> None:
    try:
        import numba

        numba.set_num_threads(min(threads, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))))
    except Exception:  # noqa: BLE001 - numba missing or already configured
        pass
    try:
        import sys

        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(threads)
    except Exception:  # noqa: BLE001
        pass


def _exit_with_parent() -> None:
    """Exit this worker when its parent dies (a killed runner or Dask worker), even while a
    search runs: a daemon thread watches the parent's pid."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _failed_peak(rss0: int | None) -> dict[str, int]:
    """``peak_rss_bytes`` of a task that raised ``MemoryError``: the peak its search block
    measured (:func:`solvers.memory.last_peak_bytes`), else the high-water mark since the task
    started (reset then) over its resident size then (``rss0``); nothing where neither is known."""
    peak = memory.last_peak_bytes()
    hwm = memory.high_water_bytes()
    if peak is None and rss0 is not None and hwm is not None:
        peak = max(0, hwm - rss0)
    return {} if peak is None else {"peak_rss_bytes": int(peak)}


def _worker_main(conn: Connection, fn_target: str, threads: int = 1) -> None:
    """Worker loop: receive ``(key, payload)``, answer ``("started", key, rss)`` (the worker's
    resident bytes as the search starts) then ``("done", key, row)``."""
    _exit_with_parent()
    os.environ.update(_worker_env(threads))
    fn = _load(fn_target)
    prepare = fn.prepare if isinstance(fn, PreparedTask) else None
    while True:
        try:
            msg = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if msg is None:
            return
        key, payload = msg
        t0: float | None = None  # set when the search starts
        rss0: int | None = None  # the worker's resident size then
        try:
            if prepare is not None:
                prepare(payload)
            _limit_threads(threads)
            # free pages handed back, so the watchdog's resident sizes from here on are
            # this task's growth; the resident size now goes with "started"
            memory.release_free_memory()
            memory.forget_last()
            memory.reset_peak()
            rss0 = memory.rss_bytes()
            conn.send(("started", key, rss0))
            t0 = time.perf_counter()
            row = fn(payload)
        except MemoryError:
            row = failure(Status.OUT_OF_MEMORY, "MemoryError",
                          **({} if t0 is None else {"time_s": time.perf_counter() - t0}),
                          **_failed_peak(rss0))
        except KeyboardInterrupt:
            return
        except Exception as exc:  # noqa: BLE001 - any failure becomes a row
            tb = traceback.format_exc(limit=-3).strip().splitlines()
            row = failure(Status.ERROR, f"{type(exc).__name__}: {exc}",
                          traceback="\n".join(tb[-6:]))
        try:
            conn.send(("done", key, row))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    """One worker process and the watchdog of the task it holds."""

    def __init__(self, ctx: Any, fn_target: str, threads: int = 1) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, fn_target, threads), daemon=True)
        self.proc.start()
        child.close()
        self.task: Task | None = None
        self.started_at: float | None = None
        self.assigned_at: float = 0.0
        self.peak_rss = 0
        #: the worker's resident size when its task's search started (None before)
        self.start_rss: int | None = None

    def assign(self, task: Task) -> None:
        self.task = task
        self.started_at = None
        self.assigned_at = time.monotonic()
        self.peak_rss = 0
        self.start_rss = None
        self.conn.send((task.key, task.payload))

    def check(self, readable: bool, now: float, grace_s: float,
              load_timeout_s: float) -> Row | None:
        """The row of the task this worker holds once it ended, else None (``readable``: the
        worker has sent a message). A worker that died, ran past the task's hard deadline
        or over its memory budget yields a failure row; it is killed then (``alive()`` is
        False) and must be replaced before it gets another task."""
        task = self.task
        assert task is not None
        row: Row | None = None
        if readable:
            try:
                kind, _key, data = self.conn.recv()
            except (EOFError, OSError):
                code = self.proc.exitcode if not self.proc.is_alive() else None
                self.proc.join(timeout=1)
                code = self.proc.exitcode if code is None else code
                row = failure(Status.CRASH, f"worker died (exit code {code})",
                              **self._elapsed(now))
            else:
                if kind == "started":
                    self.started_at = now
                    self.start_rss = data if isinstance(data, int) else None
                else:
                    row = data
        if row is None:
            self.peak_rss = max(self.peak_rss, self.rss())
            if task.memory_bytes and self.peak_rss > task.memory_bytes:
                row = failure(
                    Status.OUT_OF_MEMORY,
                    f"worker resident memory {self.peak_rss / 2**20:.0f} MiB "
                    f"over the budget {task.memory_bytes / 2**20:.0f} MiB",
                    **self._elapsed(now))
            elif self.started_at is not None and task.time_s is not None and \
                    now - self.started_at > 1.5 * task.time_s + grace_s:
                row = failure(Status.TIMEOUT,
                              f"killed after {now - self.started_at:.1f} s "
                              f"(limit {task.time_s} s)",
                              time_s=now - self.started_at)
            elif self.started_at is None and now - self.assigned_at > load_timeout_s:
                row = failure(Status.TIMEOUT, f"loading took over {load_timeout_s} s")
            if row is not None:
                self.kill()
        if row is not None:
            row.setdefault("worker_peak_rss_bytes", self.peak_rss)
            if self.start_rss is not None and row.get("peak_rss_bytes") is None:
                # a search the watchdog stopped (out of memory, past its deadline) or lost:
                # the worker's growth since the task started, as far as the watchdog saw it
                row["peak_rss_bytes"] = max(0, self.peak_rss - self.start_rss)
            self.task = None
        return row

    def _elapsed(self, now: float) -> dict[str, float]:
        """``time_s``: how long the search had run when the worker was lost (none before it
        started), so a failure row says how far it got."""
        return {} if self.started_at is None else {"time_s": now - self.started_at}

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()

    def stop(self) -> None:
        """Let an idle worker exit, then make sure it is gone."""
        try:
            if self.proc.is_alive() and self.task is None:
                self.conn.send(None)
                self.proc.join(timeout=2)
        except (BrokenPipeError, OSError):
            pass
        self.kill()

    def rss(self) -> int:
        try:
            import psutil

            return int(psutil.Process(self.proc.pid).memory_info().rss)
        except Exception:  # noqa: BLE001 - process gone
            return 0


def _start_worker(ctx: Any, fn: str, threads: int) -> _Worker:
    """A worker process started with ``threads`` threads in its environment."""
    saved = {k: os.environ.get(k) for k in WORKER_ENV}
    os.environ.update(_worker_env(threads))
    try:
        return _Worker(ctx, fn, threads)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class LocalExecutor(Executor):
    """Worker processes on this machine.

    ``jobs``: number of workers (default: all cores); ``threads``: Numba and torch threads per
    worker (default 1: one instance per core). ``grace_s``: seconds past
    ``1.5 * time_s`` before a search is killed. ``load_timeout_s``: how long ``prepare`` may
    take. ``poll_s``: watchdog period.
    """

    def __init__(self, jobs: int | None = None, fn: str = "bench.run_worker:solve_task",
                 grace_s: float = 10.0, load_timeout_s: float = 1800.0, poll_s: float = 0.2,
                 threads: int = 1) -> None:
        self.threads = max(1, int(threads))
        self.jobs = max(1, jobs or (os.cpu_count() or 1) // self.threads)
        self.fn = fn
        self.grace_s = grace_s
        self.load_timeout_s = load_timeout_s
        self.poll_s = poll_s

    def describe(self) -> dict[str, Any]:
        return {"executor": "local", "jobs": self.jobs, "threads": self.threads}

    def run(self, tasks: Sequence[Task], on_result: ResultCallback) -> None:
        if not tasks:
            return
        ctx = mp.get_context("spawn")
        pending = list(reversed(tasks))
        workers = [_start_worker(ctx, self.fn, self.threads)
                   for _ in range(min(self.jobs, len(tasks)))]
        try:
            for w in workers:
                w.assign(pending.pop())
            while any(w.task is not None for w in workers):
                ready = wait([w.conn for w in workers if w.task is not None], timeout=self.poll_s)
                now = time.monotonic()
                for i, w in enumerate(workers):
                    task = w.task
                    if task is None:
                        continue
                    row = w.check(w.conn in ready, now, self.grace_s, self.load_timeout_s)
                    if row is None:
                        continue
                    on_result(task, row)
                    if pending:
                        if not w.alive():
                            workers[i] = w = _start_worker(ctx, self.fn, self.threads)
                        w.assign(pending.pop())
        finally:
            for w in workers:
                w.stop()


class WorkerSlot:
    """One watched worker process that runs tasks one at a time and is kept between them, so
    its heuristic cache survives: the search process of an executor whose own workers hand
    each task on (the Dask worker of :mod:`bench.dask_executor`). The watchdog is the local
    executor's: a hard deadline, the task's memory budget, a crash; each yields a row and the
    process is replaced for the next task."""

    def __init__(self, fn: str = "bench.run_worker:solve_task", threads: int = 1,
                 grace_s: float = 10.0, load_timeout_s: float = 1800.0,
                 poll_s: float = 0.2) -> None:
        self.fn = fn
        self.threads = max(1, int(threads))
        self.grace_s = grace_s
        self.load_timeout_s = load_timeout_s
        self.poll_s = poll_s
        self._ctx = mp.get_context("spawn")
        self._worker: _Worker | None = None

    @property
    def task(self) -> Task | None:
        """The task running now, if any."""
        return self._worker.task if self._worker is not None else None

    def run(self, task: Task) -> Row:
        """Run ``task`` to its row (blocking)."""
        if self._worker is None or not self._worker.alive():
            if self._worker is not None:
                self._worker.kill()
            self._worker = _start_worker(self._ctx, self.fn, self.threads)
        w = self._worker
        w.assign(task)
        while True:
            readable = w.conn.poll(self.poll_s)
            row = w.check(readable, time.monotonic(), self.grace_s, self.load_timeout_s)
            if row is not None:
                return row

    def kill(self) -> None:
        """Kill the worker process (its running task, if any, ends as a crash)."""
        if self._worker is not None and self._worker.alive():
            self._worker.proc.kill()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None


class InlineExecutor(Executor):
    """Runs tasks one after another in this process (debugging; no watchdog)."""

    def __init__(self, fn: str = "bench.run_worker:solve_task") -> None:
        self.fn = fn

    def describe(self) -> dict[str, Any]:
        return {"executor": "inline"}

    def run(self, tasks: Sequence[Task], on_result: ResultCallback) -> None:
        fn = _load(self.fn)
        prepare = fn.prepare if isinstance(fn, PreparedTask) else None
        for task in tasks:
            row: Row
            try:
                if prepare is not None:
                    prepare(task.payload)
                row = fn(task.payload)
            except MemoryError:
                row = failure(Status.OUT_OF_MEMORY, "MemoryError")
            except Exception as exc:  # noqa: BLE001
                row = failure(Status.ERROR, f"{type(exc).__name__}: {exc}")
            on_result(task, row)
