"""Beam search on a position and on its inverse (``inverse=True``): the result is the shorter of
the two single searches, mapped to the position, replayed, with the counts of both."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_solve_cli import run

from core import registry
from core.errors import InputError
from core.limits import Limits
from solvers.beam import BeamSearch


def test_inverse_beam_is_the_shorter_of_two_single_beams() -> None:
    p = registry.get_puzzle("cube2")
    h = registry.get_heuristic("davi", p)
    states, _ = p.scramble(12, 40, np.random.default_rng(21))
    from_inverse = solved_by_inverse_only = 0
    for s in states:
        fwd = BeamSearch(width=16, max_depth=40).solve(p, h, s)
        inv_alone = BeamSearch(width=16, max_depth=40).solve(p, h, p.inverse_states(s[None, :])[0])
        both = BeamSearch(width=16, max_depth=40, inverse=True).solve(p, h, s)
        lengths = [r.length for r in (fwd, inv_alone) if r.status == "solved"]
        assert both.extra["forward_length"] == fwd.length
        assert both.extra["inverse_length"] == inv_alone.length
        assert both.nodes_generated == fwd.nodes_generated + inv_alone.nodes_generated
        assert both.extra["evaluations"] == fwd.extra["evaluations"] + inv_alone.extra["evaluations"]
        if not lengths:
            assert both.status == fwd.status and both.actions is None
            continue
        assert both.status == "solved" and p.check_solution(s, both.actions)
        assert both.length == min(lengths)
        if fwd.status == "solved":
            assert both.length <= fwd.length
        else:
            solved_by_inverse_only += 1
        if both.extra["from_inverse"]:
            assert both.actions == p.inverse_path(inv_alone.actions)
            assert fwd.status != "solved" or inv_alone.length < fwd.length
            from_inverse += 1
        else:
            assert both.actions == fwd.actions
    # the narrow beam is neither always optimal nor always successful: the inverse helps
    assert from_inverse > 0 and solved_by_inverse_only > 0


def test_limits_bound_both_searches_together() -> None:
    p = registry.get_puzzle("cube2")
    h = registry.get_heuristic("davi", p)
    s = p.scramble(1, 40, np.random.default_rng(3))[0][0]
    fwd = BeamSearch(width=16, max_depth=40).solve(p, h, s)
    assert fwd.status == "solved"
    r = BeamSearch(width=16, max_depth=40, inverse=True).solve(p, h, s, Limits(nodes=fwd.nodes_generated + 1))
    assert r.status == "solved" and r.actions == fwd.actions
    assert r.extra["inverse_length"] is None and r.extra["from_inverse"] is False


def test_inverse_is_refused_without_an_inverse_position(capsys) -> None:
    p = registry.get_puzzle("puzzle8")
    h = registry.get_heuristic("manhattan", p)
    with pytest.raises(InputError, match="--inverse"):
        BeamSearch(inverse=True).solve(p, h, p.scramble(1, 6, np.random.default_rng(1))[0][0])
    code, _, err = run(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                       "manhattan", "--solver", "beam", "--inverse", "true")
    assert code == 2 and "--inverse" in err and len(err.strip().splitlines()) == 1


def test_cli_inverse_on_cube2(capsys) -> None:
    code, out, err = run(capsys, "solve", "cube2", "--scramble", "R U F' R U' F R' U", "--solver",
                         "beam", "--heuristic", "davi", "--width", "16", "--max-depth", "40",
                         "--inverse", "true", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and "from_inverse" in rec["extra"]
    assert rec["length"] == min(n for n in (rec["extra"]["forward_length"],
                                             rec["extra"]["inverse_length"]) if n is not None)
