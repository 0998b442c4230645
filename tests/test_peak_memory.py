"""Peak memory of a search (``solvers.memory``): checked against searches whose allocation is
known, in a fresh process and in one whose allocator holds the pages of an earlier search."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.limits import Limits
from core.status import Status
from heuristics.base import Heuristic
from puzzles.base import Puzzle
from solvers.base import Solver, SolveResult, finish
from solvers.memory import PeakMemory, high_water_bytes, process_peak_bytes

MIB = 2**20
MB = 10**6


class Hog(Solver):
    """A fake search that touches ``nbytes`` in arrays of ``chunk`` bytes, then frees them,
    leaving a few small arrays allocated after them (``pins``) so that the allocator cannot give
    the freed pages back by shrinking its heap: the next search reuses them."""

    name = "hog"

    def __init__(self, nbytes: int, chunk: int = MIB) -> None:
        self.nbytes, self.chunk = nbytes, chunk
        self.pins: list[np.ndarray] = []

    def solve(self, puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        with PeakMemory() as mem:
            arrays = [np.ones(self.chunk // 8) for _ in range(self.nbytes // self.chunk)]
            self.pins.extend(np.ones(16) for _ in range(1000))
            touched = sum(a.nbytes for a in arrays)
            del arrays
        return finish(puzzle, start, self.name, heuristic.name, status=Status.SOLVED, actions=[],
                      generated=0, expanded=0, iterations=0, h_start=0.0, time_s=0.0,
                      load_s=0.0, peak_rss_bytes=mem.peak_bytes, extra={"touched": touched})


@pytest.fixture(scope="module")
def lights() -> tuple[Puzzle, Heuristic]:
    puzzle = registry.get_puzzle("lightsout5")
    return puzzle, registry.get_heuristic("lights-on", puzzle)


def test_known_allocation_is_measured(lights):
    puzzle, h = lights
    hog = Hog(200 * MIB)
    result = hog.run(puzzle, h, puzzle.goal())
    assert result.extra["touched"] == 200 * MIB
    # 200 MiB touched: at least 200 MB (pages the allocator had kept resident from earlier
    # work, a few at most, are reused without growing the process), and not much more
    assert 200 * MB <= result.peak_rss_bytes <= 264 * MIB
    assert result.loaded_bytes == h.nbytes


def test_reused_pages_still_count(lights):
    """A second search that reuses the first one's freed pages (a long-lived worker) is measured
    as fully as the first: before the fix it read near zero."""
    puzzle, h = lights
    hog = Hog(120 * MIB)
    first = hog.run(puzzle, h, puzzle.goal())
    second = hog.run(puzzle, h, puzzle.goal())
    assert first.peak_rss_bytes >= 120 * MB
    assert second.peak_rss_bytes >= 120 * MB


def test_peak_inside_one_call_is_seen():
    """A peak allocated and freed inside one call that holds the interpreter (no sampling thread
    could run) is still measured: the kernel's high-water mark is exact."""
    if high_water_bytes() is None:
        pytest.skip("no /proc/self/status")
    with PeakMemory(interval_s=10.0) as mem:
        np.ones(100 * MIB // 8).sum()  # allocated, touched and freed within the block
    assert mem.exact and 100 * MB <= mem.peak_bytes <= 164 * MIB
    assert process_peak_bytes() >= mem.baseline + 100 * MB


def test_held_bytes_are_counted():
    with PeakMemory(held_bytes=5 * MIB) as mem:
        pass
    assert 5 * MIB <= mem.peak_bytes <= 5 * MIB + 16 * MIB
    with pytest.raises(ValueError, match="held_bytes"):
        PeakMemory(held_bytes=-1)


def test_beam_counts_its_goal_table():
    """A beam with a goal table counts the table (built before the timed search and held through
    it) in its peak, and the heuristic's bytes in loaded_bytes."""
    from solvers.goal_table import goal_table

    puzzle = registry.get_puzzle("cube2")
    h = registry.get_heuristic("zero", puzzle)
    solver = registry.get_solver("beam", width=16, goal_depth=4)
    start = puzzle.apply_path(puzzle.goal(), puzzle.parse_moves("R U F"))
    r = solver.run(puzzle, h, start, Limits(time_s=20.0))
    assert r.status == "solved"
    table = goal_table(puzzle, 4)
    assert r.peak_rss_bytes >= table.nbytes > 0
    assert r.loaded_bytes == h.nbytes


class MappedTable(Heuristic):
    """A heuristic holding a memory-mapped table (as the PDBs do) that reads one page of it per
    state evaluated: a search that reads pages first read during the search would count them."""

    name = "mapped-table"

    def __init__(self, puzzle: Puzzle, table: np.ndarray) -> None:
        super().__init__(puzzle)
        self.tables = [table]
        self._calls = 0

    def __call__(self, states: np.ndarray) -> np.ndarray:
        page = 4096
        self._calls += 1
        pages = (self._calls * 7919 + np.arange(len(states)) * 104729) % (self.tables[0].size // page)
        return np.asarray(self.tables[0][pages * page], dtype=np.float32)

    @property
    def nbytes(self) -> int:
        return int(self.tables[0].nbytes)


def test_beam_counts_mapped_tables_as_loaded_not_searched(tmp_path):
    """The first search of a process reads a table's pages before the timed search: they are in
    loaded_bytes, not in the search's peak."""
    puzzle = registry.get_puzzle("cube2")
    path = tmp_path / "table.bin"
    path.write_bytes(np.ones(32 * MIB, dtype=np.uint8).tobytes())
    table = np.memmap(path, dtype=np.uint8, mode="r")
    h = MappedTable(puzzle, table)
    start = puzzle.apply_path(puzzle.goal(), puzzle.parse_moves("R U F R' U'"))
    r = registry.get_solver("beam", width=512, max_depth=6).run(puzzle, h, start,
                                                                Limits(time_s=20.0))
    assert r.loaded_bytes == 32 * MIB
    assert r.peak_rss_bytes < 16 * MIB  # the search's own arrays, not the table's 32 MiB


def test_an_ended_block_keeps_its_figure():
    """A block's peak is fixed when it ends: a later, larger block (which resets the process's
    high-water mark) does not change it."""
    with PeakMemory() as small:
        np.ones(8 * MIB // 8).sum()
    before = small.peak_bytes
    with PeakMemory() as big:
        np.ones(64 * MIB // 8).sum()
    assert big.peak_bytes >= 64 * MB
    assert small.peak_bytes == before < 32 * MIB
