"""Suites on a Dask cluster: the executor of ``bench run suite NAME --executor dask``.

Without an address it starts a ``LocalCluster`` on this machine (one single-threaded worker
process per job, ``-j``); with ``--scheduler tcp://HOST:PORT`` it connects to a running cluster
(``dask scheduler`` / ``dask worker``, or dask-jobqueue on SLURM or PBS).

This process (the client) plans the run, submits one Dask task per (instance, configuration)
and is the only writer of ``rows.jsonl``: each result comes back through ``on_result`` exactly as
from the local executor, so the run folder's lock, the suite fingerprint, resume, summaries and
figures are the same. Each row says which machine ran it (``host``, ``cpu``).

A task carries the instance, the configuration and the limits. On the worker it runs in a
:class:`bench.executor.WorkerSlot`: a search process under the local executor's watchdog (a
hard deadline, the task's memory budget, a crash), kept between tasks so that the worker builds
or loads each heuristic once. The worker resolves the PDB cache (``$BENCH_CACHE``) and model
paths itself: a shared file system is assumed, and checked when the client connects (a worker
that does not see this machine's cache folder is named in a warning; a table missing there is
built on that machine, once, under the table's build lock).

How a task ends:

- as on this machine (``solved``, a solver's status, ``crash``, ``timeout``, ``out-of-memory``
  when the search process passes the task's budget, ``error``);
- ``error`` when the task function itself raised, after its one retry (``retries=1``);
- ``worker-lost`` when the Dask worker running it died twice (Dask's ``KilledWorker``:
  ``distributed.scheduler.allowed-failures`` is 1 on a LocalCluster);
- if the client loses the scheduler, :class:`ClusterLost` stops the run; finished rows stay and
  ``--resume`` continues.

Ctrl-C cancels the futures not yet finished, stops the searches they started on the workers,
and keeps every finished row.

The Dask settings a LocalCluster gets are :data:`DASK_SETTINGS`; a cluster started elsewhere
needs ``distributed.worker.daemon: False`` on its workers (checked on connecting).
"""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
import uuid
from collections.abc import Sequence
from typing import Any, cast

from bench.executor import Executor, ResultCallback, Task, WorkerSlot
from core import safe_write
from core.errors import InputError
from core.rows import Row, TaskPayload, failure
from core.status import Status

#: Dask configuration of a LocalCluster (``dask.config`` keys). Worker processes must not be
#: daemonic, since each starts a search process; a task whose worker died twice is given up
#: (``KilledWorker``, then a ``worker-lost`` row); a worker holds no data worth spilling (a
#: result is one small dict), so spilling and pausing are off. The nanny's memory limit (per
#: worker: the suite's per-job budget) watches the worker process; the search process under it
#: is watched by the task's own budget, which ends it as ``out-of-memory``.
DASK_SETTINGS: dict[str, Any] = {
    "distributed.worker.daemon": False,
    "distributed.scheduler.allowed-failures": 1,
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
}
#: seconds to wait for a scheduler at ``--scheduler`` and for its first worker
CONNECT_TIMEOUT_S = 30.0
#: folder under the cache where the client leaves a file that every worker must see
CHECK_DIR = ".cluster-check"

_ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(\d{1,5})$")


class ClusterLost(Exception):
    """The client lost its scheduler mid-run (finished rows are kept)."""


def check_address(address: str) -> str:
    """``address`` if it looks like a scheduler address (``[tcp://]HOST:PORT``), else
    ``InputError`` naming ``--scheduler``."""
    m = _ADDRESS.match(address.strip())
    if m is None or not 0 < int(m.group(3)) < 65536:
        raise InputError(f"--scheduler: expected a scheduler address like tcp://HOST:8786, "
                         f"got {address!r}")
    return address.strip()


# --------------------------------------------------------------------------- worker side
#: one watched search process per worker thread (a worker usually has one thread)
_SLOTS: dict[int, WorkerSlot] = {}
_SLOTS_LOCK = threading.Lock()


def run_task(fn: str, threads: int, grace_s: float, load_timeout_s: float, key: str,
             payload: TaskPayload, time_s: float | None,
             memory_bytes: int | None) -> Row:
    """Run one task on this worker (the Dask task function): its row, with the worker's
    ``host``, ``cpu`` and ``cpu_score`` (measured once per worker process)."""
    from bench.provenance import cpu_name, process_cpu_score

    tid = threading.get_ident()
    with _SLOTS_LOCK:
        slot = _SLOTS.get(tid)
        if slot is not None and (slot.fn, slot.threads) != (fn, threads):
            slot.close()  # the preparation's process gives way to the searches'
            slot = None
        if slot is None:
            slot = _SLOTS[tid] = WorkerSlot(fn, threads, grace_s, load_timeout_s)
    slot.grace_s, slot.load_timeout_s = grace_s, load_timeout_s
    row = slot.run(Task(key, payload, time_s, memory_bytes))
    row["host"], row["cpu"] = socket.gethostname(), cpu_name()
    row["cpu_score"] = process_cpu_score()
    return row


async def stop_searches(keys: Sequence[str]) -> int:
    """Kill this worker's search processes that run one of ``keys`` (cancelled tasks); the
    number killed. A coroutine, so that the client need not wait for it."""
    wanted = set(keys)
    n = 0
    with _SLOTS_LOCK:
        slots = list(_SLOTS.values())
    for slot in slots:
        task = slot.task
        if task is not None and task.key in wanted:
            slot.kill()
            n += 1
    return n


def worker_info(token: str | None) -> dict[str, Any]:
    """What the client checks of a worker: its host, whether it may start processes, its
    cache folder, whether that folder holds the client's token (a shared file system), its
    code revision."""
    import multiprocessing
    import platform

    from bench.provenance import git_revision
    from core.paths import cache_dir

    cache = cache_dir()
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "daemon": bool(multiprocessing.current_process().daemon),
        "cache": str(cache),
        "sees_cache": token is not None and (cache / CHECK_DIR / token).is_file(),
        "git_rev": git_revision(),
        "python": platform.python_version(),
    }


# --------------------------------------------------------------------------- client side
class DaskExecutor(Executor):
    """Tasks on a Dask cluster (module docstring).

    ``jobs``: workers of the LocalCluster (default: cores / ``threads``); ignored with
    ``scheduler``. ``threads``: Numba and torch threads of each search process.
    ``memory_bytes``: a LocalCluster worker's memory limit (the suite's per-job budget;
    default: Dask's, the machine's memory shared among the workers). ``retries``: times a task
    that raised is submitted again. Use it as a context manager (or call ``close``), so a
    LocalCluster it started is shut down.
    """

    def __init__(self, jobs: int | None = None, threads: int = 1, scheduler: str | None = None,
                 memory_bytes: int | None = None, fn: str = "bench.run_worker:solve_task",
                 grace_s: float = 10.0, load_timeout_s: float = 1800.0, retries: int = 1) -> None:
        self.threads = max(1, int(threads))
        self.jobs = max(1, jobs or (os.cpu_count() or 1) // self.threads)
        self.scheduler = check_address(scheduler) if scheduler is not None else None
        self.memory_bytes = memory_bytes
        self.fn = fn
        self.grace_s = grace_s
        self.load_timeout_s = load_timeout_s
        self.retries = retries
        self._client: Any = None
        self._cluster: Any = None
        self._owner = True
        self._settings: Any = None
        self.workers: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------------ life cycle
    def __enter__(self) -> DaskExecutor:
        return self.open()

    def open(self) -> DaskExecutor:
        """Start the LocalCluster or connect to ``scheduler``, then check the workers."""
        if self._client is not None:
            return self
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as exc:  # a dependency, but say what is missing if it is
            raise InputError(f"--executor: dask needs the dask and distributed packages "
                             f"({exc}); pip install 'dask[distributed]'") from None
        if self.scheduler is None:
            import logging

            # held while the cluster lives: the nanny reads them again when it restarts a worker
            self._settings = dask.config.set(DASK_SETTINGS)
            try:
                self._cluster = LocalCluster(
                    n_workers=self.jobs, threads_per_worker=1, processes=True,
                    memory_limit=self.memory_bytes or "auto", dashboard_address=None,
                    silence_logs=logging.ERROR)
                self._client = Client(self._cluster, set_as_default=False)
            except BaseException:
                self.close()
                raise
        else:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT_S,
                                      set_as_default=False)
            except (OSError, ValueError) as exc:
                raise InputError(f"--scheduler: cannot reach a Dask scheduler at "
                                 f"{self.scheduler} ({_one_line(exc)})") from None
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        if not self._owner:
            return
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        for thing in (client, cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing what may already be gone
                    pass
        if self._settings is not None:
            self._settings.__exit__(None, None, None)
            self._settings = None

    def _check_workers(self) -> None:
        """Refuse workers that cannot start search processes; warn about workers that do not
        share this machine's cache folder or run other code."""
        from bench.provenance import git_revision
        from core.paths import cache_dir

        client = self._client
        where = self.scheduler or "the LocalCluster"
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError):
            raise InputError(f"--scheduler: no worker joined {where} within "
                             f"{CONNECT_TIMEOUT_S:.0f} s") from None
        token = uuid.uuid4().hex
        mark = cache_dir() / CHECK_DIR / token
        try:
            mark.parent.mkdir(parents=True, exist_ok=True)
            safe_write.write_text(mark, socket.gethostname())
        except (OSError, InputError):
            token = None  # type: ignore[assignment]
        try:
            infos = client.run(worker_info, token, on_error="return")
        finally:
            mark.unlink(missing_ok=True)
        here = git_revision()
        for addr, info in sorted(infos.items()):
            if isinstance(info, BaseException):
                raise InputError(f"--scheduler: worker {addr} cannot run heuristic-bench tasks "
                                 f"({_one_line(info)}); install the project on every worker")
            if info["daemon"]:
                raise InputError(f"--scheduler: the workers of {where} are daemonic processes, "
                                 "which cannot start search processes; start them with "
                                 "DASK_DISTRIBUTED__WORKER__DAEMON=False (README: suites on a "
                                 "Dask cluster)")
            if not info["sees_cache"]:
                print(f"warning: worker {addr} on {info['host']} does not see this machine's "
                      f"cache folder {cache_dir()} (its own: {info['cache']}); a pattern "
                      "database missing there is built on that machine", file=sys.stderr)
            if info["git_rev"] != here:
                print(f"warning: worker {addr} on {info['host']} runs git {info['git_rev']}, "
                      f"this machine {here}; rows record this machine's", file=sys.stderr)
        self.workers = {a: i for a, i in infos.items() if isinstance(i, dict)}

    def preparer(self, fn: str) -> Executor:
        """Preparation tasks run on the cluster's workers: a table missing there is built on
        a worker (once, under its build lock), models are read there."""
        self.open()
        view = DaskExecutor(threads=self.threads, scheduler=self.scheduler, fn=fn,
                            grace_s=self.grace_s, load_timeout_s=self.load_timeout_s,
                            retries=self.retries)
        view._client, view._owner, view.workers = self._client, False, self.workers
        return view

    def describe(self) -> dict[str, Any]:
        allowed = None
        if self._client is not None:
            try:
                allowed = self._client.run_on_scheduler(_allowed_failures)
            except Exception:  # noqa: BLE001 - the record only
                pass
        return {"executor": "dask", "scheduler": self.scheduler or "LocalCluster",
                "workers": len(self.workers), "threads": self.threads,
                "hosts": sorted({str(i["host"]) for i in self.workers.values()}),
                "allowed_failures": allowed, "retries": self.retries,
                "memory_limit_mb": (self.memory_bytes >> 20)
                if self.memory_bytes and self.scheduler is None else None}

    # ------------------------------------------------------------------ running
    def run(self, tasks: Sequence[Task], on_result: ResultCallback) -> None:
        if not tasks:
            return
        opened_here = self._client is None
        self.open()
        client = self._client
        from distributed import as_completed

        tag = uuid.uuid4().hex[:10]
        running: dict[str, tuple[Any, Task]] = {}
        try:
            for i, t in enumerate(tasks):
                fut = client.submit(run_task, self.fn, self.threads, self.grace_s,
                                    self.load_timeout_s, t.key, t.payload, t.time_s,
                                    t.memory_bytes, key=f"bench-{tag}-{i}", pure=False,
                                    retries=self.retries)
                running[fut.key] = (fut, t)
            for fut in as_completed([f for f, _ in running.values()], loop=client.loop):
                _, task = running.pop(fut.key)
                row = self._row(fut)
                fut.release()  # the cluster may forget it (an error's traceback holds it)
                on_result(task, row)
        except BaseException:
            self._cancel(running)
            raise
        finally:
            if opened_here:
                self.close()

    def _row(self, fut: Any) -> Row:
        from concurrent.futures import CancelledError

        from distributed import KilledWorker

        try:
            return cast(Row, dict(fut.result()))  # run_task's row, back from the cluster
        except KilledWorker as exc:
            last = getattr(getattr(exc, "last_worker", None), "address", None)
            times = getattr(exc, "allowed_failures", 1) + 1
            return failure(Status.WORKER_LOST,
                           f"the Dask worker running this task died {times} times "
                           f"(last {last}); Dask gave it up (KilledWorker)",
                           host=_address_host(last))
        except CancelledError:
            raise ClusterLost(f"the Dask scheduler {self.scheduler or '(LocalCluster)'} "
                              "dropped the run's tasks (connection lost?)") from None
        except Exception as exc:  # noqa: BLE001 - the task function raised (after its retry)
            return failure(Status.ERROR, f"{type(exc).__name__}: {_one_line(exc)}")

    def _cancel(self, running: dict[str, tuple[Any, Task]]) -> None:
        """Cancel the futures not finished and stop the searches they started."""
        if not running or self._client is None:
            return
        try:
            self._client.cancel([f for f, _ in running.values()], force=True)
            self._client.run(stop_searches, list(running), wait=False)
        except Exception:  # noqa: BLE001 - the cluster may be gone already
            pass


def _allowed_failures(dask_scheduler: Any) -> int:
    return int(dask_scheduler.allowed_failures)


def _address_host(address: str | None) -> str | None:
    if not address:
        return None
    m = _ADDRESS.match(address)
    return m.group(2) if m else None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text[:300] + "...") if len(text) > 300 else (text or type(exc).__name__)
