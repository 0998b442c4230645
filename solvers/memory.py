"""Peak memory of one search.

How it is measured: :class:`PeakMemory` reads the process's resident set size (RSS, via
``psutil``) when the search starts, then samples it from a daemon thread every
``interval_s`` seconds (default 5 ms) and whenever the solver calls :meth:`PeakMemory.sample`
(the best-first engine does so once per iteration, which also enforces its memory limit).
The reported figure is ``max(sampled RSS) - RSS at start``: the growth of the process caused
by this search, not the high-water mark of a long-lived process that ran other searches
before. Tables and models loaded before the search (pattern databases, networks) are
therefore not counted; ``Heuristic.nbytes`` reports those.

Why RSS and not ``tracemalloc``: ``tracemalloc`` does see numpy buffers, but it cannot see
memory allocated inside Numba kernels or by torch's allocator, it counts allocated rather than
touched pages, and it taxes every Python allocation. Measured on one BWAS search (15-puzzle,
Manhattan, N = 10,000, 0.86 M nodes, 4 runs): tracemalloc peak 358 MiB (it counts the engine's
generously sized node arrays, whose untouched pages cost nothing), RSS growth 105-156 MiB, the
bytes the engine actually uses 121 MiB; search time the same within the machine's noise. RSS sees everything the process touches at no cost to the search. Its limits:
a search that reuses pages freed by earlier work (allocator free lists) is undercounted, pages
allocated but never touched are not counted, and a peak shorter than the sampling interval
inside one long Numba call (which holds the GIL, so the thread cannot sample) can be missed;
the IDA* kernels allocate only O(depth) memory, so neither matters there. The best-first engine
also reports the bytes of its own arrays (``extra["engine_bytes"]``).
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Iterable
from types import TracebackType

import numpy as np
import psutil

_PROCESS = psutil.Process()


def rss_bytes() -> int:
    """Resident set size of this process in bytes."""
    return int(_PROCESS.memory_info().rss)


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
    """Context manager measuring the RSS growth of the code it wraps.

    >>> with PeakMemory() as mem:
    ...     work()
    >>> mem.peak_bytes   # max RSS during the block minus RSS at its start (>= 0)
    """

    def __init__(self, interval_s: float = 0.005) -> None:
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        self.interval_s = interval_s
        self.baseline = 0
        self._peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ sampling
    def sample(self) -> int:
        """Take one sample now; return the current growth over the baseline in bytes."""
        rss = rss_bytes()
        with self._lock:
            if rss > self._peak:
                self._peak = rss
        return rss - self.baseline

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    @property
    def peak_bytes(self) -> int:
        """Peak RSS growth over the baseline seen so far (bytes, never negative)."""
        with self._lock:
            return max(0, self._peak - self.baseline)

    # ------------------------------------------------------------------ context
    def __enter__(self) -> PeakMemory:
        self.baseline = rss_bytes()
        self._peak = self.baseline
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
