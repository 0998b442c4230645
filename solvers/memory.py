"""Peak memory of one search, and of the process.

What a row's ``peak_rss_bytes`` counts: the memory the search itself needs at its peak, that is
every page the process touched during the search above what it held when the search began
(the search's arrays: node stores, heaps, beams and their hashes; a network's activations; the
Numba kernels' allocations; pages of memory-mapped tables first read during the search), plus
the bytes of the structures a solver built for this search before the timed part began and
held through it (``held_bytes``: a beam's goal table). What the configuration *loads* (the
heuristic's pattern databases and network weights, a table-driven solver's tables) is not in
it: ``SolveResult.loaded_bytes`` (the row's ``loaded_bytes`` column) reports those bytes, so
the two add up to the configuration's memory, libraries aside.

How it is measured (:class:`PeakMemory`), on Linux:

1. free memory is handed back first (:func:`release_free_memory`: glibc's ``malloc_trim(0)``).
   Without this a long-lived worker process keeps the pages an earlier search freed on its
   allocator's free lists, the next search reuses them without growing the process, and its peak
   reads near zero (beams of 3.75 M nodes once showed 4 KiB);
2. the process's high-water mark is reset (``"5"`` written to ``/proc/self/clear_refs`` resets
   ``VmHWM`` in ``/proc/self/status`` to the current resident set size) and the resident set
   size at that moment is the baseline;
3. when the block ends, ``VmHWM - baseline`` is the peak growth. The kernel keeps ``VmHWM``
   exact at every page fault, so peaks inside a long Numba or torch call, which a sampling
   thread cannot see (the call holds the GIL), are counted.

Where ``clear_refs`` cannot be written (another kernel, a sandbox), a daemon thread samples the
resident set size (``psutil``) every ``interval_s`` seconds instead, and :meth:`PeakMemory.sample`
(which the best-first engine calls once per iteration to enforce its memory limit) adds a sample;
the result is then a lower bound. Pages allocated and never touched are never counted (numpy's
``empty`` arrays cost nothing until written), which is what the machine pays.

The process's own peak over its whole life (``process_peak_bytes``: tables, networks and
libraries included) is kept across the resets; ``bench solve`` prints it beside the search's.
The resets lower what the kernel reports as the process's peak to others (``getrusage``'s
``ru_maxrss``, ``/usr/bin/time``'s maximum resident size): after a search, read
``process_peak_bytes`` instead.
``tracemalloc`` is not used: it misses memory allocated by Numba kernels and torch, counts
allocated rather than touched pages, and taxes every Python allocation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import resource
import sys
import threading
from collections.abc import Iterable
from types import TracebackType

import numpy as np
import psutil

_PROCESS = psutil.Process()
_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"
#: the highest high-water mark seen before a reset (bytes): the process's peak survives resets
_PROCESS_PEAK = 0
#: the block of the latest search (running or ended): a failure row reads its peak
_LAST: PeakMemory | None = None
_TRIM: object | None = None


def rss_bytes() -> int:
    """Resident set size of this process in bytes."""
    return int(_PROCESS.memory_info().rss)


def high_water_bytes() -> int | None:
    """The process's resident high-water mark (``VmHWM``) in bytes; None where the kernel has
    no ``/proc/self/status``."""
    try:
        with open(_STATUS, encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _malloc_trim() -> None:
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            try:
                _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
            except (OSError, AttributeError):
                _TRIM = False
    if _TRIM:
        _TRIM(0)  # type: ignore[operator]


def release_free_memory() -> None:
    """Hand the allocator's free pages back to the system (glibc's ``malloc_trim``, well under
    a millisecond; nothing elsewhere), so the next search's pages count as its own. No garbage
    collection: arrays are freed when their last reference goes, and a full collection costs
    about 0.4 s in a process that has loaded Numba, more than many searches take."""
    _malloc_trim()


def reset_peak() -> bool:
    """Reset the process's high-water mark to its resident set size (``clear_refs``), after
    folding it into :func:`process_peak_bytes`; False where that is not possible."""
    global _PROCESS_PEAK
    hwm = high_water_bytes()
    if hwm is None:
        return False
    _PROCESS_PEAK = max(_PROCESS_PEAK, hwm)
    try:
        with open(_CLEAR_REFS, "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        return False
    return True


def process_peak_bytes() -> int:
    """The process's peak resident memory since it started (resets by :class:`PeakMemory`
    included), in bytes: everything it loaded, libraries and searches."""
    hwm = high_water_bytes()
    if hwm is None:  # ru_maxrss: KiB on Linux, bytes on macOS
        scale = 1 if sys.platform == "darwin" else 1024
        hwm = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale
    return max(_PROCESS_PEAK, hwm)


def last_peak_bytes() -> int | None:
    """The peak of the latest :class:`PeakMemory` block, read now (while it runs: so far), or
    None when no search has run in this process: what a row of a search that failed (a
    ``MemoryError``) can still report."""
    return None if _LAST is None else _LAST.peak_bytes


def forget_last() -> None:
    """Forget the latest search block (a worker does so when it starts a task, so a failed
    task never reports the peak of the one before)."""
    global _LAST
    _LAST = None


def touch_pages(arrays: Iterable[np.ndarray]) -> int:
    """Read one byte of every memory page of each C-contiguous array; return the pages read.

    Pattern databases are memory-mapped (``numpy.memmap``): the first read of each page is a
    page fault (from the page cache, or from disk after a cold start). Touching every page
    before a timed search moves that cost into loading, so the first search of a process is
    not several times slower than the next ones on the same tables. Once the pages are mapped
    this costs well under a millisecond for the 130 MB of Korf's cube tables. Arrays of any
    shape and dtype are accepted; non-contiguous ones are skipped.
    """
    step = mmap.PAGESIZE
    pages = 0
    for a in arrays:
        if not isinstance(a, np.ndarray) or a.size == 0 or not a.flags.c_contiguous:
            continue
        flat = a.reshape(-1).view(np.uint8)
        sample = flat[::step]
        int(np.add.reduce(sample, dtype=np.uint64))
        pages += int(sample.shape[0])
    return pages


class PeakMemory:
    """Context manager measuring the peak memory of the code it wraps (module docstring).

    >>> with PeakMemory(held_bytes=table.nbytes) as mem:
    ...     search()
    >>> mem.peak_bytes   # peak resident growth during the block, plus held_bytes

    ``held_bytes``: bytes of structures built for the search before the block and held through
    it (a goal table), counted in the peak. ``exact`` is True where the kernel's high-water mark
    measured it, False where only sampling did (a lower bound).
    """

    def __init__(self, interval_s: float = 0.005, held_bytes: int = 0) -> None:
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        if held_bytes < 0:
            raise ValueError("held_bytes must be >= 0")
        self.interval_s = interval_s
        self.held_bytes = int(held_bytes)
        self.baseline = 0
        self.exact = False
        self._open = False  # inside the block: the high-water mark is this block's
        self._peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ sampling
    def sample(self) -> int:
        """Take one sample now; return the current growth over the baseline in bytes (the
        search's memory now, ``held_bytes`` included)."""
        rss = rss_bytes()
        with self._lock:
            if rss > self._peak:
                self._peak = rss
        return rss - self.baseline + self.held_bytes

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    @property
    def peak_bytes(self) -> int:
        """Peak growth over the baseline seen so far (while the block runs; its final figure once
        it has ended), plus ``held_bytes`` (never negative)."""
        hwm = high_water_bytes() if self.exact and self._open else None
        with self._lock:
            if hwm is not None and hwm > self._peak:
                self._peak = hwm
            return max(0, self._peak - self.baseline) + self.held_bytes

    # ------------------------------------------------------------------ context
    def __enter__(self) -> PeakMemory:
        global _LAST
        release_free_memory()
        self.exact = reset_peak()
        self.baseline = rss_bytes()
        self._peak = self.baseline
        self._open = True
        _LAST = self
        if not self.exact:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="peak-rss", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.sample()
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.peak_bytes  # noqa: B018 - folds the final high-water mark into the peak
        self._open = False  # later resets of the high-water mark are other blocks'
