"""Local value iteration (Bischoff et al. 2013) against independent truth: a plain breadth-first
search of small local regions, the paper's theorems on a random sample, and path replay."""

from __future__ import annotations

from collections import deque
from itertools import permutations

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from solvers.lvi import TABLES_USED, UNSOLVED, LocalValueIteration, local_table, lvi_solve

#: Bischoff et al. (2013): Theorem 2 (share of each class, %), Theorem 3 (longest per class)
SHARE = {1: 0.04, 2: 6.62, 3: 18.3, 4: 8.3, 5: 66.6}
BOUND = {1: 142, 2: 220, 3: 248, 4: 255, 5: 288}


def _bfs_local(width: int, group: tuple[int, ...], placed: tuple[int, ...]) -> dict:
    """Cost-to-go of every (blank, G positions) arrangement by a plain breadth-first search
    backwards from the arrangements with G home (blank moves are reversible)."""
    n = width * width
    home = {t: t - 1 for t in range(1, n)}
    free = [c for c in range(n) if c not in {home[t] for t in placed}]

    def neighbours(c):
        r, q = divmod(c, width)
        for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, qq = r + dr, q + dq
            if 0 <= rr < width and 0 <= qq < width and rr * width + qq in free:
                yield rr * width + qq

    dist = {}
    queue = deque()
    goal_cells = tuple(home[t] for t in group)
    for blank in free:
        if blank not in goal_cells:
            s = (blank, *goal_cells)
            dist[s] = 0
            queue.append(s)
    while queue:
        s = queue.popleft()
        blank = s[0]
        for t in neighbours(blank):
            nxt = tuple(blank if p == t else p for p in s[1:])
            ns = (t, *nxt)
            if ns not in dist:
                dist[ns] = dist[s] + 1
                queue.append(ns)
    for arrangement in permutations(free, len(group) + 1):
        dist.setdefault(arrangement, None)  # no local solution
    return dist


@pytest.mark.parametrize("width,group,placed", [
    (3, (4, 5, 6, 7), (1, 2, 3)), (3, (7,), (1, 2, 3, 4, 5, 6)), (3, (1, 2), ()),
    (4, (12, 13), tuple(range(1, 12))), (4, (9, 10, 11, 12, 13), tuple(range(1, 9))),
])
def test_local_values_match_a_plain_breadth_first_search(width, group, placed):
    table = local_table(width, group, placed)
    truth = _bfs_local(width, group, placed)
    assert table.states == len(truth)
    f = len(table.free)
    for arrangement, d in truth.items():
        idx = sum(int(table.index_of[c]) * f ** k for k, c in enumerate(arrangement))
        got = int(table.dist[idx])
        assert (got == UNSOLVED and d is None) or got == d, arrangement


@pytest.fixture(scope="module")
def sample():
    p = registry.get_puzzle("puzzle15")
    states = p.random_states(3000, np.random.default_rng(11))
    TABLES_USED.clear()
    return p, states, [lvi_solve(4, s) for s in states]


def test_theorems_on_a_random_sample(sample):
    p, states, results = sample
    classes = np.array([r.largest_group for r in results])
    lengths = np.array([len(r.actions) for r in results])
    n = len(states)
    for k, share in SHARE.items():
        ours = 100 * float((classes == k).mean())
        sigma = 100 * np.sqrt(share / 100 * (1 - share / 100) / n)
        assert abs(ours - share) <= 4 * sigma + 0.1, (k, ours, share)  # Theorem 2
        if (classes == k).any():
            assert lengths[classes == k].max() <= BOUND[k]  # Theorem 3
    # Theorem 1 bounds the local state spaces; the largest one used is G = 9..13 once 1..8 are
    # placed: 6 objects on 8 free cells, 20,160 arrangements (the paper gives half of that)
    (width, group, placed), size = max(TABLES_USED.items(), key=lambda kv: kv[1])
    assert (group, placed, size) == ((9, 10, 11, 12, 13), tuple(range(1, 9)), 20_160)
    # and no parity halves it: tiles 14 and 15 are not part of the local state, so every one of
    # the 20,160 arrangements can be reached and solved within the free cells
    table = local_table(4, group, placed)
    assert int((table.dist < UNSOLVED).sum()) == 20_160
    assert 118 < lengths.mean() < 128  # the paper: 123.35 on average


def test_every_sampled_state_is_solved_and_replays(sample):
    p, states, results = sample
    for s, r in zip(states, results, strict=True):
        assert p.check_solution(s, r.actions)


@pytest.mark.parametrize("region", [1, 2, 3])
def test_the_solver_on_the_8_puzzle(region):
    p = registry.get_puzzle("puzzle8")
    zero = registry.get_heuristic("zero", p)
    solver = LocalValueIteration(region=region)
    from puzzles.exhaustive import table_distances

    states = p.random_states(300, np.random.default_rng(region))
    optimal = table_distances(p, states)
    for s, opt in zip(states, optimal, strict=True):
        r = solver.solve(p, zero, s, Limits())
        assert r.status == Status.SOLVED and r.length >= opt
        assert r.nodes_generated == r.length + 1 and r.extra["class"] >= region


def test_the_solver_refuses_what_it_cannot_do():
    solver = LocalValueIteration()
    first = registry.get_puzzle("puzzle15", goal="blank-first")
    with pytest.raises(InputError, match="blank-last goal"):
        solver.solve(first, registry.get_heuristic("zero", first), first.goal())
    cube = registry.get_puzzle("cube2")
    with pytest.raises(InputError, match="applies to puzzle8 and puzzle15"):
        solver.solve(cube, registry.get_heuristic("zero", cube), cube.goal())
    p = registry.get_puzzle("puzzle8")
    with pytest.raises(InputError, match="uses no heuristic"):
        solver.solve(p, registry.get_heuristic("manhattan", p), p.goal())
    with pytest.raises(InputError, match="--region: must be in"):
        registry.get_solver("lvi", region=6)


def test_paper_bischoff2013_table(tmp_path, monkeypatch):
    from bench import papers
    from bench.papers import bischoff2013

    monkeypatch.setattr(bischoff2013, "BISCHOFF2013_REGIONS", (1, 2))
    text = papers.make("bischoff2013", out=tmp_path, count=400)
    assert "local value iteration on the 15-puzzle" in text and "20,160" in text
    import pandas as pd

    df = pd.read_csv(tmp_path / "bischoff2013" / "table.csv")
    assert list(df["class / region"]) == ["S_1", "S_2", "S_3", "S_4", "S_5", "all", "l = 1",
                                          "l = 2"]
    assert 110 < df.loc[5, "average actions (ours)"] < 135
