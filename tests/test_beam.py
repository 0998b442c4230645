"""Beam search: valid paths on every family, a naive reference, width 1 = greedy rollout."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_solve_cli import run

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.registry import beam_width
from heuristics.base import Heuristic
from solvers.beam import BeamSearch
from tests.toys import Pancake


class GapHeuristic(Heuristic):
    """Pancake gap heuristic (a batch callable, like every heuristic)."""

    name = "gap"

    def __call__(self, states: np.ndarray) -> np.ndarray:
        s = np.atleast_2d(states).astype(np.int64)
        n = s.shape[1]
        ext = np.concatenate([s, np.full((s.shape[0], 1), n)], axis=1)
        return (np.abs(np.diff(ext, axis=1)) > 1).sum(axis=1).astype(np.float64)


def naive_beam(puzzle, h, start, width, max_depth=1000, distinct=False):
    """Child-by-child beam with the rules of solvers.beam, dicts keyed by the state's bytes;
    ``distinct``: no move twice on a path (``distinct_moves``).

    Returns (path or None, generated, expanded, evaluations)."""
    if puzzle.is_goal(start[None, :])[0]:
        return [], 0, 0, 0
    layer = [(start.copy(), [])]
    prev: set[bytes] = set()
    gen = exp = evals = 0
    for _ in range(max_depth):
        cur = {s.tobytes() for s, _ in layer}
        cands: list[tuple[np.ndarray, list[int]]] = []
        seen: set[bytes] = set()
        for s, path in layer:
            exp += 1
            for a in puzzle.legal_actions(s):
                if distinct and int(a) in path:
                    continue
                child = puzzle.apply(s[None, :], np.array([a]))[0]
                gen += 1
                if puzzle.is_goal(child[None, :])[0]:
                    return path + [int(a)], gen, exp, evals
                key = child.tobytes()
                if key in seen or key in cur or key in prev:
                    continue
                seen.add(key)
                cands.append((child, path + [int(a)]))
        if not cands:
            return None, gen, exp, evals
        values = [float(h(c[None, :])[0]) for c, _ in cands]
        evals += len(cands)
        order = sorted(range(len(cands)), key=lambda i: (values[i], i))[:width]
        layer = [cands[i] for i in sorted(order)]
        prev = cur
    return None, gen, exp, evals


def test_matches_naive_reference_on_pancakes() -> None:
    p = Pancake(7)
    h = GapHeuristic(p)
    rng = np.random.default_rng(3)
    for width in (1, 3, 20):
        for _ in range(8):
            start = rng.permutation(7).astype(np.uint8)
            r = BeamSearch(width=width, max_depth=60).solve(p, h, start)
            path, gen, exp, evals = naive_beam(p, h, start, width, max_depth=60)
            if path is None:
                assert r.status in ("beam-empty", "depth-limit")
            else:
                assert r.status == "solved" and r.actions == path
                assert (r.nodes_generated, r.nodes_expanded) == (gen, exp)
                assert r.extra["evaluations"] == evals


@pytest.mark.parametrize("puzzle_name,heuristic", [("puzzle8", "manhattan"), ("cube2", "pdb-cube2")])
def test_matches_naive_reference_on_small_puzzles(puzzle_name: str, heuristic: str) -> None:
    p = registry.get_puzzle(puzzle_name)
    h = registry.get_heuristic(heuristic, p)
    rng = np.random.default_rng(0)
    for width in (1, 8):
        for _ in range(4):
            start = p.random_states(1, rng)[0]
            r = BeamSearch(width=width, max_depth=80).solve(p, h, start)
            path, gen, exp, evals = naive_beam(p, h, start, width, max_depth=80)
            assert r.actions == path
            if path is not None:
                assert (r.nodes_generated, r.nodes_expanded, r.extra["evaluations"]) == (gen, exp, evals)


def test_width_one_is_a_greedy_rollout() -> None:
    """Width 1 takes, at each step, the child of least h (first in action order on ties) that
    does not return to one of the last two states."""
    p = registry.get_puzzle("puzzle8")
    h = registry.get_heuristic("manhattan", p)
    rng = np.random.default_rng(11)
    for _ in range(10):
        start = p.random_states(1, rng)[0]
        r = BeamSearch(width=1, max_depth=200).solve(p, h, start)
        s, recent, path = start, [start.tobytes()], []
        while not p.is_goal(s[None, :])[0] and len(path) < 200:
            best = None
            for a in p.legal_actions(s):
                c = p.apply(s[None, :], np.array([a]))[0]
                if p.is_goal(c[None, :])[0]:
                    best = (-1.0, int(a), c)
                    break
                if c.tobytes() in recent[-2:]:
                    continue
                v = float(h(c[None, :])[0])
                if best is None or v < best[0]:
                    best = (v, int(a), c)
            if best is None:
                break
            path.append(best[1])
            s = best[2]
            recent.append(s.tobytes())
        if p.is_goal(s[None, :])[0]:
            assert r.status == "solved" and r.actions == path
        else:
            assert r.status != "solved"


@pytest.mark.parametrize("puzzle_name,heuristic,moves", [
    ("cube2", "pdb-cube2", "R U F' R2 U'"),
    ("cube3", "pdb-korf", "R U F' L D"),
    ("puzzle8", "manhattan", None),
    ("puzzle15", "linear-conflict", None),
    ("puzzle24", "manhattan", None),
    ("lightsout7", "lights-on", "r0c0 r3c3 r6c2"),
])
def test_valid_paths_on_every_family(puzzle_name: str, heuristic: str, moves: str | None) -> None:
    p = registry.get_puzzle(puzzle_name)
    h = registry.get_heuristic(heuristic, p)
    if moves is not None:
        start = p.from_moves(p.parse_moves(moves))
    else:
        start, _ = p.scramble(1, 12, np.random.default_rng(5))
        start = start[0]
    r = BeamSearch(width=64).solve(p, h, start)
    assert r.status == "solved"
    assert p.check_solution(start, r.actions)  # (finish() replays it too)
    assert r.nodes_expanded <= r.iterations * 64
    assert r.extra["evaluations"] <= r.nodes_generated


def test_start_at_goal_and_statuses() -> None:
    p = Pancake(6)
    h = GapHeuristic(p)
    r = BeamSearch(width=2).solve(p, h, p.goal())
    assert r.status == "solved" and r.actions == [] and r.nodes_generated == 0
    start = np.array([5, 3, 1, 4, 0, 2], dtype=np.uint8)
    r = BeamSearch(width=1, max_depth=1).solve(p, h, start)
    assert r.status in ("depth-limit", "solved")
    r = BeamSearch(width=2).solve(p, h, start, Limits(nodes=1))
    assert r.status == "node-limit"


class Line(Pancake):
    """States 0..n-1 on a line (one byte), goal 0, actions left/right (illegal at the ends)."""

    def __init__(self, n: int = 6) -> None:
        super().__init__(3)
        self.n, self.name, self.num_actions, self.state_dim = n, f"line{n}", 2, 1
        self.action_names = ("L", "R")

    def goal(self) -> np.ndarray:
        return np.zeros(1, dtype=np.uint8)

    def expand(self, states):
        s = np.atleast_2d(states).astype(np.int64)
        kids = np.stack([s - 1, s + 1], axis=1)
        valid = (kids[:, :, 0] >= 0) & (kids[:, :, 0] < self.n)
        kids = np.where(valid[:, :, None], kids, s[:, None, :])
        return kids.astype(np.uint8), valid

    def apply(self, states, actions):
        kids, valid = self.expand(states)
        a = np.asarray(actions)
        if not valid[np.arange(len(a)), a].all():
            raise ValueError("off the line")
        return kids[np.arange(len(a)), a]

    def inverse_action(self, action: int) -> int:
        return 1 - action


def test_beam_runs_empty_on_a_dead_end() -> None:
    """A heuristic that points away from the goal walks width 1 into the end of the line."""
    p = Line(6)

    class Away(Heuristic):
        name = "away"

        def __call__(self, states: np.ndarray) -> np.ndarray:
            return -np.atleast_2d(states)[:, 0].astype(np.float64)

    away = Away(p)
    r = BeamSearch(width=1).solve(p, away, np.array([2], dtype=np.uint8))
    assert r.status == "beam-empty" and r.actions is None
    assert r.iterations == 4  # layers {2}, {3}, {4}, {5}
    r = BeamSearch(width=2).solve(p, away, np.array([2], dtype=np.uint8))
    assert r.status == "solved" and r.actions == [0, 0]
    r = BeamSearch(width=1, max_depth=2).solve(p, away, np.array([2], dtype=np.uint8))
    assert r.status == "depth-limit"


def test_bad_options_are_one_line_errors() -> None:
    for bad in (0, -3, 1.5, True):
        with pytest.raises(InputError, match="--width"):
            BeamSearch(width=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="--max-depth"):
        BeamSearch(max_depth=0)
    with pytest.raises(InputError, match="--weight: applies to"):
        registry.get_solver("beam", weight=0.5)
    assert beam_width("cube3") == 4096 and beam_width("lightsout5") == 64


def test_cli_beam(capsys) -> None:
    code, out, err = run(capsys, "solve", "puzzle8", "--scramble", "U L D R U L", "--heuristic",
                          "manhattan", "--solver", "beam", "--width", "8", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "solved" and rec["solver"] == "beam" and rec["extra"]["width"] == 8
    code, out, err = run(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                          "manhattan", "--solver", "beam", "--width", "0")
    assert code == 2 and "--width" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                          "manhattan", "--solver", "ida", "--width", "5")
    assert code == 2 and "--width: applies to beam" in err


def test_goal_table_matches_exact_distances() -> None:
    """The breadth-first table against the exhaustive 8-puzzle and 2x2x2 tables."""
    from puzzles.exhaustive import table_distances
    from solvers.goal_table import GoalTable, state_hashes

    for name, depth in (("puzzle8", 12), ("cube2", 6)):
        p = registry.get_puzzle(name)
        t = GoalTable(p, depth)
        states = p.random_states(3000, np.random.default_rng(1))
        exact = table_distances(p, states)
        got = t.lookup(state_hashes(states))
        np.testing.assert_array_equal(got, np.where(exact <= depth, exact, -1))
        for s in states[exact <= depth][:30]:
            tail = t.tail(s)
            assert tail is not None and len(tail) == exact[(states == s).all(1)][0]
            assert p.check_solution(s, tail)
    assert len(GoalTable(registry.get_puzzle("cube3"), 5)) == 1 + 12 + 114 + 1068 + 10011 + 93840


def test_lowest_equals_the_first_k_of_a_stable_sort() -> None:
    from solvers.beam import lowest

    rng = np.random.default_rng(3)
    for n, k in ((1, 1), (10, 3), (1000, 100), (1000, 999), (5, 9)):
        for values in (rng.integers(0, 5, n).astype(np.float64),  # many ties
                       rng.normal(size=n)):
            want = sorted(sorted(range(n), key=lambda i: values[i])[:k])  # Python's sort is stable
            assert lowest(values, k).tolist() == want
    values = np.array([3.0, np.nan, 1.0, np.nan, 2.0])
    assert lowest(values, 4).tolist() == [0, 1, 2, 4]  # NaN last, the first of them kept


@pytest.mark.parametrize("queries", [10, 20_000])  # below and above the size that sorts first
def test_member_and_positions_against_a_naive_reference(queries: int) -> None:
    from solvers.goal_table import member, positions

    rng = np.random.default_rng(queries)
    table = np.unique(rng.integers(0, 2**63, 50_000, dtype=np.uint64))
    values = np.concatenate([rng.choice(table, queries // 2),
                             rng.integers(0, 2**63, queries - queries // 2, dtype=np.uint64),
                             np.array([0, 2**64 - 1], dtype=np.uint64)])  # below and past the end
    rng.shuffle(values)
    present = set(table.tolist())
    assert member(values, table).tolist() == [int(v) in present for v in values]
    pos = positions(table, values)
    for v, i in zip(values[:500], pos[:500], strict=True):
        j = int((table < v).sum())  # how many entries come before v
        assert i == (0 if j == table.size else j)
    assert not member(values, table[:0]).any()


def test_goal_depth_finishes_optimally_near_the_goal() -> None:
    p = registry.get_puzzle("cube2")
    h = registry.get_heuristic("pdb-cube2", p)
    rng = np.random.default_rng(4)
    for s in p.random_states(5, rng):
        r = BeamSearch(width=4, goal_depth=14).solve(p, h, s)  # the whole 2x2x2 is in the table
        assert r.status == "solved" and r.length == int(h(s[None, :])[0]) and r.iterations == 0
        assert r.extra["goal_depth"] == 14
    with pytest.raises(InputError, match="--goal-depth"):
        BeamSearch(goal_depth=-1)


def test_shorten_replaces_stretches_by_shortest_ones() -> None:
    from solvers.goal_table import GoalTable

    p = registry.get_puzzle("cube3")
    t = GoalTable(p, 4)
    path = p.parse_moves("R U R' U' F F' L D L' D' B")
    short = t.shorten(path)
    assert p.format_moves(short) == "R U R' U' L D L' D' B"
    start = p.from_moves([p.inverse_action(a) for a in reversed(path)])
    assert p.check_solution(start, short)
    # a stretch of four quarter turns of one face is the identity: R R R R -> nothing
    assert t.shorten(p.parse_moves("U R R R R")) == p.parse_moves("U")
    tiles = registry.get_puzzle("puzzle8")  # moves depend on the blank: never shortened
    assert GoalTable(tiles, 4).shorten([0, 1, 0, 1]) == [0, 1, 0, 1]


def test_learned_heuristic_without_solver_uses_the_recommended_search(capsys) -> None:
    code, out, err = run(capsys, "solve", "cube3", "--scramble", "R U F' D", "--heuristic", "davi",
                         "--json")
    assert code == 0, err
    from learning.model_store import SHIPPED_DIR

    width = json.loads((SHIPPED_DIR / "cube3" / "config.json").read_text())["search"]["width"]
    assert f"solver: beam --width {width}" in err and "recommended search" in err
    rec = json.loads(out)
    assert rec["solver"] == "beam" and rec["status"] == "solved" and rec["length"] == 4
    code, out, err = run(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                         "manhattan", "--json")
    assert code == 0 and json.loads(out)["solver"] == "ida"


def test_goal_depth_is_refused_before_it_exceeds_the_memory_limit() -> None:
    import time

    from solvers.goal_table import GoalTable, projected_bytes

    cube3 = registry.get_puzzle("cube3")
    zero = registry.get_heuristic("zero", cube3)
    # far beyond the limit (cube3 depth 12: hundreds of billions of states): refused after a
    # few small layers, at once
    t = time.perf_counter()
    with pytest.raises(InputError, match=r"--goal-depth: 12 on cube3 needs about .* states.*"
                                         r"more than the memory limit \(64 MiB\)"):
        BeamSearch(width=4, goal_depth=12).solve(cube3, zero, cube3.goal(),
                                                 Limits(memory_bytes=64 * 2**20))
    assert time.perf_counter() - t < 10
    # near the limit: refused at the layer whose expansion would exceed it
    with pytest.raises(InputError, match="--goal-depth: 6 on cube3 needs about"):
        GoalTable(cube3, 6, memory_bytes=100 * 2**20)
    # within it, and without a limit: built
    assert len(GoalTable(cube3, 4, memory_bytes=100 * 2**20)) == 1 + 12 + 114 + 1068 + 10011
    # the projection follows the growth of the layers built, capped by the puzzle's size
    states, _ = projected_bytes([1, 12, 114, 1068], 6, 12, 54)
    assert 900_000 < states < 1_200_000
    assert projected_bytes([1, 6, 27, 120], 14, 6, 24, cap=3_674_160)[0] == 3_674_160


def test_goal_depth_over_the_memory_limit_is_a_one_line_error(capsys) -> None:
    from cli_run import run_cli

    code, out, err = run_cli(capsys, "solve", "cube3", "U R", "--solver", "beam",
                             "--heuristic", "zero", "--goal-depth", "14", "--memory-limit", "500")
    assert code == 2, (out, err)
    assert "--goal-depth: 14 on cube3 needs about" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
