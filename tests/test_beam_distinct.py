"""Beam search with distinct moves (Lights Out): a naive reference, exhaustive optimality on a
small board, pair cancellation, refusal on puzzles whose moves do not commute."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_beam import naive_beam
from test_solve_cli import run

from core import registry
from core.errors import InputError
from heuristics.base import Heuristic
from solvers.beam import BeamSearch, cancel_pairs


class HashHeuristic(Heuristic):
    """A deterministic, uninformed value per state (so the beam's choices are arbitrary)."""

    name = "hash"

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = np.atleast_2d(states).astype(np.int64)
        w = (np.arange(1, s.shape[1] + 1, dtype=np.int64) * 2654435761) % 1000003
        return ((s * w).sum(axis=1) * 40503 % 9973).astype(np.float64)


@pytest.mark.parametrize("heuristic", ["lights-on", "hash"])
def test_matches_a_naive_reference(heuristic: str) -> None:
    p = registry.get_puzzle("lightsout4")
    h = HashHeuristic(p) if heuristic == "hash" else registry.get_heuristic(heuristic, p)
    rng = np.random.default_rng(5)
    for width in (1, 4, 32):
        for _ in range(5):
            start = p.scramble(1, 9, rng)[0][0]
            r = BeamSearch(width=width, distinct_moves=True).solve(p, h, start)
            path, gen, exp, evals = naive_beam(p, h, start, width, max_depth=p.num_actions + 1,
                                               distinct=True)
            assert r.actions == path, (width, r.status)
            if path is not None:
                assert len(set(path)) == len(path)
                assert (r.nodes_generated, r.nodes_expanded, r.extra["evaluations"]) == \
                    (gen, exp, evals)


def test_every_path_found_is_optimal_on_an_invertible_board() -> None:
    """lightsout3's press matrix is invertible over GF(2); with a width that holds every subset
    of presses (C(9, 4) = 126) the beam solves every one of the 512 states, at the GF(2)
    optimum, whatever the heuristic."""
    p = registry.get_puzzle("lightsout3")
    states = ((np.arange(512)[:, None] >> np.arange(9)) & 1).astype(np.uint8)
    optimal = p.optimal_lengths(states)
    for s, opt in zip(states, optimal, strict=True):
        r = BeamSearch(width=126, distinct_moves=True).solve(p, HashHeuristic(p), s)
        assert r.status == "solved" and r.length == opt


def test_a_goal_table_tail_is_cancelled_against_the_path() -> None:
    p = registry.get_puzzle("lightsout3")
    rng = np.random.default_rng(2)
    starts = p.random_states(40, rng)
    optimal = p.optimal_lengths(starts)
    for s, opt in zip(starts, optimal, strict=True):
        r = BeamSearch(width=126, goal_depth=3, distinct_moves=True).solve(p, HashHeuristic(p), s)
        assert r.status == "solved" and r.length == opt
        assert len(set(r.actions)) == len(r.actions)


def test_without_distinct_moves_a_path_found_is_reduced_to_the_optimum() -> None:
    """Without distinct moves the beam may press a cell again; on an invertible board the path
    found, its pairs cancelled, is the GF(2) optimum, and the result counts what was removed."""
    p = registry.get_puzzle("lightsout3")
    h = HashHeuristic(p)
    states = ((np.arange(512)[:, None] >> np.arange(9)) & 1).astype(np.uint8)
    optimal = p.optimal_lengths(states)
    shortened = 0
    for s, opt in zip(states, optimal, strict=True):
        r = BeamSearch(width=2, max_depth=200).solve(p, h, s)
        if r.status != "solved":
            continue
        raw, *_ = naive_beam(p, h, s, 2, max_depth=200)
        assert raw is not None and r.actions == cancel_pairs(raw)
        assert r.length == opt and p.check_solution(s, r.actions)
        assert r.extra.get("shortened_by", 0) == len(raw) - r.length
        shortened += len(raw) > r.length
    assert shortened > 10  # the hash heuristic wanders: many raw paths press a cell twice


def test_cancel_pairs_against_counting() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        path = [int(m) for m in rng.integers(0, 6, size=int(rng.integers(0, 12)))]
        out = cancel_pairs(path)
        assert sorted(out) == sorted(m for m in set(path) if path.count(m) % 2)
        # each kept move sits where it was last made
        assert out == [m for i, m in enumerate(path) if m in out and m not in path[i + 1:]]
    assert cancel_pairs([]) == []


def test_refused_where_moves_do_not_commute(capsys) -> None:
    p = registry.get_puzzle("puzzle8")
    h = registry.get_heuristic("manhattan", p)
    with pytest.raises(InputError, match="--distinct-moves"):
        BeamSearch(distinct_moves=True).solve(p, h, p.scramble(1, 6, np.random.default_rng(1))[0][0])
    code, _, err = run(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                       "manhattan", "--solver", "beam", "--distinct-moves", "true")
    assert code == 2 and "--distinct-moves" in err and len(err.strip().splitlines()) == 1


def test_cli_distinct_moves(capsys) -> None:
    code, out, err = run(capsys, "solve", "lightsout5", "--scramble", "r0c0 r2c2 r4c4 r1c3",
                         "--heuristic", "lights-on", "--solver", "beam", "--width", "64",
                         "--distinct-moves", "true", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and rec["extra"]["distinct_moves"] is True
    assert len(set(rec["action_ids"])) == len(rec["action_ids"])
