"""Speed of the sliding-tile and Lights Out dynamics (run with ``nox -s bench``)."""

from __future__ import annotations

import numpy as np
import pytest

from puzzles.exhaustive import _tile_distances
from puzzles.lightsout import LightsOut
from puzzles.npuzzle import NPuzzle


@pytest.mark.parametrize("width", [4, 5, 7])
def test_expand_10000(benchmark, width):
    p = NPuzzle(width)
    states = p.random_states(10_000, np.random.default_rng(0))
    children, valid = benchmark(p.expand, states)
    assert children.shape == (10_000, 4, width * width) and valid.sum() > 20_000


@pytest.mark.parametrize("width", [4, 5])
def test_apply_10000(benchmark, width):
    p = NPuzzle(width)
    states = p.random_states(10_000, np.random.default_rng(0))
    actions = np.array([p.legal_actions(s)[0] for s in states])
    out = benchmark(p.apply, states, actions)
    assert (out != states).any(axis=1).all()


def test_scramble_10000_by_100(benchmark):
    p = NPuzzle(4)
    states, moves = benchmark(p.scramble, 10_000, 100, np.random.default_rng(0))
    assert states.shape == (10_000, 16) and moves.shape == (10_000, 100)


def test_random_states_10000_puzzle24(benchmark):
    p = NPuzzle(5)
    states = benchmark(p.random_states, 10_000, np.random.default_rng(0))
    assert states.shape == (10_000, 25)


def test_puzzle8_bfs(benchmark):
    _tile_distances(3, "blank-last")  # compile

    def run():
        return _tile_distances.__wrapped__(3, "blank-last")

    dist = benchmark(run)
    assert (dist >= 0).sum() == 181_440


def test_lightsout7_optimal_10000(benchmark):
    p = LightsOut(7)
    states = p.random_states(10_000, np.random.default_rng(0))
    lengths = benchmark(p.optimal_lengths, states)
    assert lengths.shape == (10_000,)


def test_lightsout7_expand_10000(benchmark):
    p = LightsOut(7)
    states = p.random_states(10_000, np.random.default_rng(0))
    children, _ = benchmark(p.expand, states)
    assert children.shape == (10_000, 49, 49)
