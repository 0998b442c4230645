"""The tiles IDA* kernels: optimal lengths against exhaustive BFS, node counts against a naive
IDA* counted like ref_ida15.c, limits, and a subset of Korf's 100 with pdb-663-reflect."""

from __future__ import annotations

import time

import numpy as np
import pytest

from core.registry import get_heuristic, get_puzzle
from solvers import _ida_tiles
from tests import tiles_reference as ref

LAYOUTS = ("blank-first", "blank-last")
HEURISTICS = ("manhattan", "linear-conflict", "pdb-44", "pdb-44-reflect", "pdb-full")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", HEURISTICS)
def test_optimal_on_8_puzzle_states(layout: str, name: str) -> None:
    states, dist = ref.puzzle8_states(layout)
    p = get_puzzle("puzzle8", goal=layout)
    spec = get_heuristic(name, p).ida_spec()
    rng = np.random.default_rng(7)
    # the hardest states and a random sample
    idx = np.concatenate([np.flatnonzero(dist >= 30), rng.choice(len(states), 60, replace=False)])
    for i in idx:
        out = _ida_tiles.search(p, spec, states[i], None, None)
        assert out["status"] == "solved"
        assert len(out["actions"]) == dist[i]
        assert p.check_solution(states[i], out["actions"])


@pytest.mark.nojit
@pytest.mark.parametrize("name", ["linear-conflict", "pdb-44", "pdb-44-reflect"])
def test_every_tile_kernel_is_optimal_also_as_plain_python(name: str) -> None:
    """Each heuristic's search loop through the one driver (also run without JIT): the root's
    heuristic equals the batch heuristic and the paths are optimal."""
    from puzzles.exhaustive import perm_ranks, puzzle8_distances

    p = get_puzzle("puzzle8", goal="blank-first")
    h = get_heuristic(name, p, **({"progress": False} if name.startswith("pdb") else {}))
    spec = h.ida_spec()
    dist = puzzle8_distances("blank-first")
    for s in p.scramble(3, 12, np.random.default_rng(5))[0]:
        assert _ida_tiles.search_class(spec)(spec, 3, s).first_bound() == h(s[None])[0]
        out = _ida_tiles.search(p, spec, s, None, None)
        assert len(out["actions"]) == dist[perm_ranks(s[None])[0]]
        assert p.check_solution(s, out["actions"])


@pytest.mark.nojit
def test_node_counts_match_naive_ida() -> None:
    p = get_puzzle("puzzle8", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    states, _ = p.scramble(4, 14, np.random.default_rng(1))
    for s in states:
        length, generated = ref.ida_manhattan(s, p.goal(), 3)
        out = _ida_tiles.search(p, spec, s, None, None)
        assert len(out["actions"]) == length
        assert out["nodes_generated"] == generated
        assert out["nodes_expanded"] <= generated + out["iterations"]


@pytest.mark.nojit
def test_manhattan_resumes_exactly_after_any_slice(monkeypatch) -> None:
    """Slices of a few nodes (the kernel pauses and resumes hundreds of times per iteration):
    the same path, node counts and iterations as one slice, and as the naive IDA*."""
    p = get_puzzle("puzzle8", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    states, _ = p.scramble(3, 16, np.random.default_rng(4))
    for s in states:
        whole = _ida_tiles.search(p, spec, s, None, None)
        monkeypatch.setattr(_ida_tiles, "SLICE", 5)
        sliced = _ida_tiles.search(p, spec, s, None, None)
        monkeypatch.undo()
        length, generated = ref.ida_manhattan(s, p.goal(), 3)
        assert sliced == whole
        assert (len(whole["actions"]), whole["nodes_generated"]) == (length, generated)
        assert p.check_solution(s, whole["actions"])


@pytest.mark.parametrize("w", range(2, 16))
def test_manhattan_move_lists_and_deltas(w: int) -> None:
    """Each (blank cell, previous move) list of ``md_tables`` holds the legal moves but the
    inverse of the previous one, in action order, with the change of Manhattan distance."""
    md = np.array([[abs(t // w - c // w) + abs(t % w - c % w) for c in range(w * w)]
                   for t in range(w * w)])
    tab, ops0 = _ida_tiles.md_tables(w, md)
    sh = max(1, (w * w - 1).bit_length())
    rng = np.random.default_rng(w)
    for blank in range(w * w):
        for back in range(-1, 4):
            want = [(a, c) for a, c in ref.neighbours(blank, w) if a != back]
            k = ops0 + (blank * 5 + back + 1) * 5
            got = []
            while tab[k] >= 0:
                e = int(tab[k])
                a, c = e & 3, (e >> 2) & 255
                assert e >> 28 == ops0 + (c * 5 + (a ^ 1) + 1) * 5
                t = int(rng.integers(1, w * w))
                assert tab[((e >> 10) & 0x3FFFF) + t] == md[t, blank] - md[t, c]
                assert (e >> 10) & 0x3FFFF == (c * 4 + a) << sh
                got.append((a, c))
                k += 1
            assert got == want


def test_limits() -> None:
    p = get_puzzle("puzzle15", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    korf3 = np.array([14, 7, 8, 2, 13, 11, 10, 4, 9, 12, 5, 0, 3, 6, 1, 15], np.uint8)  # 59 moves
    _ida_tiles.search(p, spec, p.apply(p.goal()[None], np.array([1]))[0], None, None)  # compile
    out = _ida_tiles.search(p, spec, korf3, 50_000, None)
    assert out["status"] == "node-limit" and out["actions"] is None
    assert 50_000 < out["nodes_generated"] <= 50_010
    t0 = time.monotonic()
    out = _ida_tiles.search(p, spec, korf3, None, time.monotonic() + 0.3)
    assert out["status"] == "timeout"
    assert time.monotonic() - t0 < 1.5


def test_through_the_ida_solver() -> None:
    from core.limits import Limits
    from solvers.ida import IDAStar

    p = get_puzzle("puzzle15")
    s, _ = p.scramble(1, 40, np.random.default_rng(5))
    lengths = set()
    for name in ("manhattan", "linear-conflict"):
        r = IDAStar().solve(p, get_heuristic(name, p), s[0], Limits(time_s=60))
        assert r.status == "solved" and p.check_solution(s[0], r.actions)
        lengths.add(r.length)
    assert len(lengths) == 1


@pytest.mark.slow
@pytest.mark.shared
def test_korf100_subset_with_pdb_663_reflect(shared) -> None:
    rows = [line.split() for line in (shared / "instances" / "korf100_15puzzle.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    p = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic("pdb-663-reflect", p)
    spec = h.ida_spec()
    # the easiest instances by Manhattan-IDA* effort known from Korf (1985): shortest first
    rows.sort(key=lambda r: int(r[1]))
    solved = 0
    for r in rows[:5]:
        s = np.array([int(x) for x in r[2:]], dtype=np.uint8)
        assert h(s[None])[0] <= int(r[1])
        out = _ida_tiles.search(p, spec, s, 20_000_000, time.monotonic() + 60)
        assert out["status"] == "solved"
        assert len(out["actions"]) == int(r[1])
        assert p.check_solution(s, out["actions"])
        solved += 1
    assert solved == 5


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["manhattan", "linear-conflict", "pdb-555-reflect"])
def test_parallel_iterations_match_one_thread(monkeypatch, layout: str, name: str) -> None:
    """Two threads over subtrees: an optimal path, and every iteration before the last generates
    exactly the nodes one thread generates (the split forced from the first iteration on)."""
    from solvers import _ida_parallel

    monkeypatch.setattr(_ida_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_parallel, "NODES_PER_THREAD", 4)
    p = get_puzzle("puzzle15", goal=layout)
    spec = get_heuristic(name, p).ida_spec()
    states, _ = p.scramble(3, 60, np.random.default_rng(21))
    for s in states:
        one = _ida_tiles.search(p, spec, s, None, None)
        two = _ida_tiles.search(p, spec, s, None, None, threads=2)
        assert two["status"] == "solved" and p.check_solution(s, two["actions"])
        assert len(two["actions"]) == len(one["actions"])
        assert two["iterations"] == one["iterations"] == len(one["iteration_nodes"])
        assert two["iteration_nodes"][:-1] == one["iteration_nodes"][:-1]
        assert sum(one["iteration_nodes"]) == one["nodes_generated"]
        assert sum(two["iteration_nodes"]) == two["nodes_generated"]


def test_parallel_limits_and_the_solver_option(monkeypatch) -> None:
    from core.errors import InputError
    from core.limits import Limits
    from solvers import _ida_parallel
    from solvers.ida import IDAStar

    monkeypatch.setattr(_ida_parallel, "SPLIT_MIN_NODES", 0)
    p = get_puzzle("puzzle15", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    korf3 = np.array([14, 7, 8, 2, 13, 11, 10, 4, 9, 12, 5, 0, 3, 6, 1, 15], np.uint8)  # 59 moves
    out = _ida_tiles.search(p, spec, korf3, 200_000, None, threads=2)
    assert out["status"] == "node-limit" and out["actions"] is None
    assert out["nodes_generated"] > 200_000
    t0 = time.monotonic()
    out = _ida_tiles.search(p, spec, korf3, None, time.monotonic() + 0.3, threads=2)
    assert out["status"] == "timeout"
    assert time.monotonic() - t0 < 2.0
    r = IDAStar(threads=2).solve(p, get_heuristic("manhattan", p), p.scramble(1, 30, np.random.default_rng(2))[0][0],
                                 Limits(time_s=60))
    assert r.status == "solved" and r.extra["threads"] == 2
    with pytest.raises(InputError, match="--threads"):
        IDAStar(threads=0)
    lights = get_puzzle("lightsout5")
    with pytest.raises(InputError, match="--threads: the lights IDA"):
        IDAStar(threads=2).solve(lights, get_heuristic("lights-on", lights),
                                 lights.scramble(1, 5, np.random.default_rng(2))[0][0])
