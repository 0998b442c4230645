"""IDA*'s subtree order (the solver's ``order`` option, :mod:`solvers._ida_parallel`): the sort
key on hand-made counts, and on the 15-puzzle and the cube (small coset table) ``previous``
finds optimal paths of the lengths ``actions`` finds, with the same nodes in every iteration
but the last, one thread or two; ``actions`` with one thread stays the plain depth-first
search; bad values and kernels without the option are one-line errors."""

from __future__ import annotations

import numpy as np
import pytest
from cli_run import run_cli

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.registry import get_heuristic, get_puzzle
from solvers import _ida_parallel, _ida_tiles
from solvers._ida_parallel import ORDERS, order_key, prefix_counts, subtree_order
from solvers.ida import IDAStar


def test_prefix_counts_add_each_subtree_to_its_ancestors() -> None:
    counts = prefix_counts([((0, 1), 5), ((0, 2), 7), ((1, 0), 3), ((), 0)])
    assert counts == {(): 15, (0,): 12, (0, 1): 5, (0, 2): 7, (1,): 3, (1, 0): 3}
    assert prefix_counts([]) == {}


def test_order_key_takes_the_nearest_known_ancestor() -> None:
    counts = {(): 20, (0,): 12, (0, 1): 5, (2,): 8}
    assert order_key((0, 1), counts) == 5  # its own
    assert order_key((0, 3, 1), counts) == 12  # deeper, unknown: (0,)'s
    assert order_key((0, 1, 4), counts) == 5  # deeper: its parent's
    assert order_key((1, 2), counts) == 20  # no prefix but the root's
    assert order_key((), counts) == 20
    assert order_key((3,), {}) == 0  # nothing known


def test_subtree_order_most_first_ties_in_action_order() -> None:
    counts = {(): 30, (0,): 4, (1,): 20, (1, 0): 9, (1, 1): 11, (2,): 4}
    frontier = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (3, 0)]
    # keys: 4, 4, 9, 11, 4 (parent (2,)), 30 (the root's: (3,) was not searched)
    assert subtree_order(frontier, counts) == [5, 3, 2, 0, 1, 4]
    # all keys equal (a previous iteration searched from the root alone): depth-first order
    assert subtree_order(frontier, {(): 100}) == list(range(6))
    assert subtree_order([], counts) == []


def test_the_declared_choices_are_the_driver_orders() -> None:
    order = {o.name: o for o in registry.solver_entry("ida").options}["order"]
    assert order.choices == ORDERS and order.default == "actions"


class _Spy:
    """Records the keys of each sorted frontier, in the order its subtrees are taken."""

    def __init__(self) -> None:
        self.sorts: list[list[int]] = []

    def __call__(self, prefixes, counts):
        taken = subtree_order(prefixes, counts)
        self.sorts.append([order_key(prefixes[k], counts) for k in taken])
        return taken


def _compare(search, puzzle, states, spy: _Spy) -> None:
    """``previous`` (one thread, two) against ``actions`` on one thread, state by state."""
    for s in states:
        one = search(s)
        assert one["status"] == "solved"
        for threads in (1, 2):
            prev = search(s, threads=threads, order="previous")
            assert prev["status"] == "solved" and puzzle.check_solution(s, prev["actions"])
            assert len(prev["actions"]) == len(one["actions"])
            assert prev["iterations"] == one["iterations"] == len(one["iteration_nodes"])
            assert prev["iteration_nodes"][:-1] == one["iteration_nodes"][:-1]
            assert sum(prev["iteration_nodes"]) == prev["nodes_generated"]
            assert prev["threads"] == threads
    assert spy.sorts, "no iteration was ordered"
    for keys in spy.sorts:  # most nodes first
        assert keys == sorted(keys, reverse=True)
    # the counts told subtrees apart somewhere (not all ties)
    assert any(len(set(keys)) > 1 for keys in spy.sorts)


def test_tiles_previous_matches_actions(monkeypatch) -> None:
    spy = _Spy()
    monkeypatch.setattr(_ida_parallel, "subtree_order", spy)
    monkeypatch.setattr(_ida_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_parallel, "NODES_PER_THREAD", 4)
    p = get_puzzle("puzzle15", goal="blank-first")
    spec = get_heuristic("manhattan", p).ida_spec()
    states, _ = p.scramble(3, 50, np.random.default_rng(58))

    def search(s, **kw):
        return _ida_tiles.search(p, spec, s, None, None, **kw)

    _compare(search, p, states, spy)


@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_cube_previous_matches_actions(monkeypatch, metric) -> None:
    cube = pytest.importorskip("puzzles.cube")
    from heuristics.pdb_coset import CosetCubePDB
    from solvers import _ida_cube_coset, _ida_cube_parallel

    spy = _Spy()
    monkeypatch.setattr(_ida_parallel, "subtree_order", spy)
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_cube_parallel, "NODES_PER_THREAD", 8)
    puzzle = cube.Cube3(metric)
    spec = CosetCubePDB(puzzle, "set", "none", progress=False, probe_inverse="near",
                        corner_pdb="corner-perm").ida_spec()
    rng = np.random.default_rng(58)
    states = np.concatenate([puzzle.scramble(1, d, rng)[0] for d in (2, 7, 8, 8)])

    def search(s, **kw):
        return _ida_cube_coset.search(puzzle, spec, s, None, None, **kw)

    _compare(search, puzzle, states, spy)


def test_actions_on_one_thread_is_the_plain_search(monkeypatch) -> None:
    """``order=actions`` with one thread never reaches the split driver, and the solver's counts
    equal the kernel's own depth-first search."""

    def refuse(*args, **kwargs):
        raise AssertionError("the split driver ran")

    monkeypatch.setattr(_ida_parallel, "drive_parallel", refuse)
    p = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic("manhattan", p)
    s = p.scramble(1, 40, np.random.default_rng(3))[0][0]
    plain = _ida_tiles.search(p, h.ida_spec(), s, None, None)
    r = IDAStar(order="actions").solve(p, h, s, Limits(time_s=60))
    assert r.status == "solved" and r.extra["order"] == "actions"
    assert r.nodes_generated == plain["nodes_generated"]
    assert r.nodes_expanded == plain["nodes_expanded"]
    assert r.extra["iteration_nodes"] == plain["iteration_nodes"]
    assert r.actions is not None and [int(a) for a in r.actions] == plain["actions"]


def test_solver_option_reaches_the_kernel_and_bad_values(monkeypatch) -> None:
    monkeypatch.setattr(_ida_parallel, "SPLIT_MIN_NODES", 0)
    p = get_puzzle("puzzle15", goal="blank-first")
    h = get_heuristic("manhattan", p)
    s = p.scramble(1, 40, np.random.default_rng(4))[0][0]
    r = IDAStar(order="previous").solve(p, h, s, Limits(time_s=60))
    assert r.status == "solved" and r.extra["order"] == "previous" and r.actions is not None
    assert len(r.actions) == len(_ida_tiles.search(p, h.ida_spec(), s, None, None)["actions"])
    with pytest.raises(InputError, match=r"^--order: expected actions or previous, got 'depth'$"):
        IDAStar(order="depth")
    lights = get_puzzle("lightsout5")
    with pytest.raises(InputError, match="--order: the lights IDA"):
        IDAStar(order="previous").solve(lights, get_heuristic("lights-on", lights),
                                        lights.scramble(1, 5, np.random.default_rng(2))[0][0])


@pytest.mark.parametrize("args, needle", [
    (["--solver", "ida", "--order", "random"],
     "--order: expected actions or previous, got 'random'"),
    (["--solver", "bwas", "--order", "previous"], "--order"),
])
def test_cli_bad_order_is_one_line_exit_2(capsys, args, needle) -> None:
    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "D R D L",
                             "--goal", "blank-first", "--heuristic", "manhattan", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_cli_order_previous_solves(capsys) -> None:
    import json

    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "D R D L",
                             "--goal", "blank-first", "--heuristic", "manhattan",
                             "--solver", "ida", "--order", "previous", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and rec["length"] == 4


@pytest.mark.parametrize("sides", ["both", "forward"])
@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_coset_eo_previous_matches_actions(monkeypatch, metric, sides) -> None:
    """The same under the two-bit coset heuristic's kernels (``sides=both``: the two-sided
    search, whose prefixes also say which side each move was applied to)."""
    cube = pytest.importorskip("puzzles.cube")
    from heuristics.pdb_coset_eo import CosetEOCubePDB
    from solvers import _ida_cube_parallel
    from solvers.ida import kernel_module

    spy = _Spy()
    monkeypatch.setattr(_ida_parallel, "subtree_order", spy)
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_cube_parallel, "NODES_PER_THREAD", 8)
    puzzle = cube.Cube3(metric)
    spec = CosetEOCubePDB(puzzle, "set", "set", progress=False, sides=sides).ida_spec()
    module = kernel_module(spec.family)
    rng = np.random.default_rng(59)
    states = np.concatenate([puzzle.scramble(1, d, rng)[0] for d in (2, 9, 10, 10)])

    def search(s, **kw):
        return module.search(puzzle, spec, s, None, None, **kw)

    _compare(search, puzzle, states, spy)
