"""Cube throughput benchmarks (run with ``nox -s bench``): moves, scrambles, sampling, 2x2x2 BFS."""

from __future__ import annotations

import numpy as np
import pytest

from puzzles.cube import Cube2, Cube3

BATCH = 10_000


@pytest.fixture(scope="module")
def states():
    return Cube3().random_states(BATCH, np.random.default_rng(0))


def test_cube3_expand_10k(benchmark, states):
    c = Cube3("qtm")
    children, _ = benchmark(c.expand, states)
    assert children.shape == (BATCH, 12, 54)


def test_cube3_apply_10k(benchmark, states):
    c = Cube3("htm")
    actions = np.random.default_rng(1).integers(0, 18, BATCH)
    out = benchmark(c.apply, states, actions)
    assert out.shape == states.shape


def test_cube3_scramble_10k_depth_30(benchmark):
    c = Cube3("qtm")
    s, m = benchmark(c.scramble, BATCH, 30, np.random.default_rng(2))
    assert c.check_solution(s[0], [c.inverse_action(int(a)) for a in m[0][::-1]])


def test_cube3_random_states_10k(benchmark):
    c = Cube3()
    s = benchmark(c.random_states, BATCH, np.random.default_rng(3))
    c.validate(s[0])


def test_cube3_to_cubies_10k(benchmark, states):
    c = Cube3()
    cp, *_ = benchmark(c.to_cubies, states)
    assert (cp >= 0).all()


@pytest.mark.parametrize("metric,diameter", [("qtm", 14), ("htm", 11)])
def test_cube2_full_bfs(benchmark, metric, diameter):
    def run():
        return Cube2(metric).distance_table()

    dist = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    assert dist.max() == diameter and dist.min() == 0
