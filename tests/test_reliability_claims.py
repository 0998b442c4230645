"""Declared properties are claims, checked against the run: a configuration declared optimal by
construction (a plugin heuristic that says it is admissible under A*) whose lengths contradict a
replayed shorter solution, a known optimum or an exact bound is neither optimal nor a reference;
a reference below a certified bound, or a bound above a solved length, is an error naming the
instance. Truth: breadth-first search over the 8-puzzle (``tiles_reference``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from tiles_reference import bfs_distances, manhattan

from bench import report
from core import registry
from core.errors import InputError
from core.props import HeuristicProps
from core.registry import Entry
from heuristics.manhattan import Manhattan


class TripleManhattan(Manhattan):
    """Three times Manhattan distance: not admissible, whatever its declaration says."""

    name = "triple-manhattan"

    def __call__(self, states):
        return super().__call__(states) * 3


@pytest.fixture
def hostile(monkeypatch):
    """A plugin heuristic that declares itself admissible (and is not)."""
    entry = Entry("triple-manhattan", "test_reliability_claims:TripleManhattan",
                  "three times Manhattan distance", {},
                  HeuristicProps(puzzles=("puzzle8",), admissible=True), plugin="hostile-pkg")
    monkeypatch.setitem(registry.HEURISTICS, entry.name, entry)
    return entry


@pytest.fixture(scope="module")
def puzzle8():
    """Four 8-puzzle states, their true optima (breadth-first search) and Manhattan bounds."""
    p = registry.get_puzzle("puzzle8")
    goal = np.asarray(p.goal())
    dist = bfs_distances(tuple(int(v) for v in goal), 3)
    rng = np.random.default_rng(5)
    states, optima = [], []
    while len(states) < 4:
        s = p.scramble(1, 40, rng)[0][0]
        d = dist[tuple(int(v) for v in s)]
        if d >= 14:
            states.append(s)
            optima.append(d)
    bounds = [manhattan(s, goal, 3) for s in states]
    return p, states, optima, bounds


@pytest.fixture(scope="module")
def lengths(puzzle8):
    """The lengths A* with three times Manhattan distance and IDA* with Manhattan distance find."""
    p, states, _, _ = puzzle8
    return ([_solve(p, TripleManhattan(p), "astar", s) for s in states],
            [_solve(p, Manhattan(p), "ida", s) for s in states])


def _solve(p, heuristic, solver_name, state) -> int:
    from core.limits import Limits

    solver = registry.get_solver(solver_name)
    r = solver.run(p, heuristic, state, Limits(time_s=20))
    assert r.status == "solved"
    return int(r.length)


def _rows(p, states, bounds, configs, bound_from="manhattan") -> pd.DataFrame:
    rows = []
    for cfg, heuristic, solver, lengths in configs:
        for i, (s, n) in enumerate(zip(states, lengths, strict=True)):
            rows.append({"instance_set": "random", "instance": str(i), "config": cfg,
                         "puzzle": "puzzle8", "goal": None, "heuristic": heuristic,
                         "solver": solver, "params": "{}", "status": "solved", "length": n,
                         "optimal": None, "lower_bound": bounds[i] if bound_from else None,
                         "lower_bound_from": bound_from,
                         "state": " ".join(str(int(v)) for v in s), "nodes_generated": 10,
                         "time_s": 0.1, "peak_rss_bytes": 1, "heuristic_nbytes": 1})
    return pd.DataFrame(rows)


def test_a_declared_admissible_plugin_under_astar_is_no_reference(hostile, puzzle8, lengths):
    p, states, optima, bounds = puzzle8
    triple, ida = lengths
    assert ida == optima  # IDA* with Manhattan distance: the breadth-first optima
    assert any(t > o for t, o in zip(triple, optima, strict=True))  # A* with 3 x MD is not
    # the plugin's configuration sorts first: before, its lengths became the references
    df = _rows(p, states, bounds, [("a-triple", "triple-manhattan", "astar", triple),
                                   ("b-ida", "manhattan", "ida", ida)])
    out = report.with_reference_optima(df)
    assert list(out["optimal"]) == optima * 2
    assert set(out["optimal_from"]) == {"run: b-ida"}
    assert set(out.loc[out.config == "a-triple", "optimal_claim"]) == {"refuted"}
    summ = report.summarize(out).set_index("config")
    k = sum(t == o for t, o in zip(triple, optima, strict=True))
    assert summ.loc["a-triple", "n_optimal"] == k < 4
    assert summ.loc["b-ida", "optimal_pct"] == 100.0
    md = report.report_markdown(df)
    assert "Declared optimal but refuted by this run" in md and "a-triple found length" in md


def test_a_declared_optimal_configuration_alone_is_refuted_by_a_shorter_solution(hostile, puzzle8,
                                                                              lengths):
    p, states, optima, bounds = puzzle8
    triple = lengths[0]
    # beam search, not optimal by construction, finds the true optima: the plugin's longer
    # lengths are refuted and no reference is left
    df = _rows(p, states, bounds, [("a-triple", "triple-manhattan", "astar", triple),
                                   ("beam", "manhattan", "beam", optima)])
    out = report.with_reference_optima(df)
    assert out["optimal"].isna().all()
    assert "a-triple" in report.report_markdown(df).split("refuted by this run")[1]


def test_an_exact_bound_refutes_a_declared_optimal_length(hostile, puzzle8, lengths):
    p, states, optima, _ = puzzle8
    triple = lengths[0]
    # the exact table's value at the start state is the optimum
    df = _rows(p, states, optima, [("a-triple", "triple-manhattan", "astar", triple)],
               bound_from="pdb-full")
    out = report.with_reference_optima(df)
    assert out["optimal"].isna().all()
    assert set(out["optimal_claim"]) == {"refuted"}
    assert "the exact bound (pdb-full) is" in report.optimality_note(out)


def test_the_report_says_where_optimality_rests_on_a_declaration(hostile, puzzle8, lengths):
    p, states, optima, _ = puzzle8
    ida = lengths[1]
    df = _rows(p, states, [0] * 4, [("ida", "manhattan", "ida", ida)])
    out = report.with_reference_optima(df)
    assert list(out["optimal"]) == optima and set(out["optimal_claim"]) == {"declared"}
    note = report.optimality_note(out)
    assert "rests only on a declared property" in note or "resting only on a declared" in note
    assert "ida 4 of 4 solved" in note and "heuristic manhattan declared admissible" in note
    # a length equal to the certified bound confirms it
    df2 = _rows(p, states, optima, [("ida", "manhattan", "ida", ida)])
    assert set(report.with_reference_optima(df2)["optimal_claim"]) == {"confirmed"}
    assert report.optimality_note(report.with_reference_optima(df2)) == ""


@pytest.mark.parametrize("change, words", [
    (dict(optimal=-3), "reference optimum -3 is negative"),
    (dict(optimal=0, lower_bound=2), "reference optimum 0 .* below the certified lower bound 2"),
    (dict(lower_bound=30), "c solved it at length 12, below the certified lower bound 30"),
])
def test_references_and_bounds_that_contradict_each_other_are_errors(change, words):
    row = {"instance_set": "s", "instance": "7", "config": "c", "puzzle": "puzzle8",
           "heuristic": "manhattan", "solver": "beam", "params": json.dumps({}),
           "status": "solved", "length": 12, "optimal": None, "optimal_source": None,
           "lower_bound": 10, "lower_bound_from": "manhattan", "nodes_generated": 1,
           "time_s": 0.1, "peak_rss_bytes": 1, "heuristic_nbytes": 1}
    df = pd.DataFrame([{**row, **change}])
    with pytest.raises(InputError, match=f"s/7: {words}"):
        report.with_reference_optima(df)


# --------------------------------------------------------------------------- heuristic values
class NanAway(Manhattan):
    """Manhattan distance, NaN (or another non-number) away from the goal."""

    name = "nan-away"
    bad = float("nan")

    def __call__(self, states):
        v = super().__call__(states).astype(np.float64)
        v[v > 0] = self.bad
        return v


class InfAway(NanAway):
    name = "inf-away"
    bad = float("inf")


class NegInfAway(NanAway):
    name = "neginf-away"
    bad = float("-inf")


class OneMore(Manhattan):
    """One value more than states."""

    name = "one-more"

    def __call__(self, states):
        v = super().__call__(states)
        return np.concatenate([v, v[:1]])


@pytest.fixture
def bad_heuristics(monkeypatch):
    for cls in (NanAway, InfAway, NegInfAway, OneMore):
        entry = Entry(cls.name, f"test_reliability_claims:{cls.__name__}", "hostile", {},
                      HeuristicProps(puzzles=("puzzle8",), kernel=True), plugin="hostile-pkg")
        monkeypatch.setitem(registry.HEURISTICS, entry.name, entry)


def _one_line(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("solver", ["astar", "greedy", "bwas", "beam", "ida"])
@pytest.mark.parametrize("heuristic, value", [("nan-away", "nan"), ("inf-away", "inf"),
                                              ("neginf-away", "-inf")])
def test_a_heuristic_value_that_is_not_a_number_is_an_error(solver, heuristic, value,
                                                            bad_heuristics, capsys):
    from cli_run import run_cli

    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L",
                             "--heuristic", heuristic, "--solver", solver)
    _one_line(code, err, heuristic, value, "finite number")
    assert "unsolvable" not in out


def test_quality_refuses_values_that_are_not_numbers(bad_heuristics):
    from bench.quality import _evaluate

    p = registry.get_puzzle("puzzle8")
    states = p.scramble(3, 4, np.random.default_rng(0))[0]
    with pytest.raises(InputError, match="nan-away gave nan for 3 of 3 states"):
        _evaluate(NanAway(p), states)


def test_a_dead_sokoban_state_keeps_its_infinite_value():
    from heuristics.base import checked_values
    from heuristics.sokoban import PushDistance

    assert PushDistance.infinite_ok  # inf: a dead state, from which no solution exists

    class Dead:
        name = "dead"
        infinite_ok = True

        def __call__(self, states):
            return np.full(len(states), np.inf)

    assert np.isinf(checked_values(Dead(), np.zeros((2, 3)))).all()


def test_bench_h_refuses_more_values_than_states(bad_heuristics, capsys):
    from cli_run import run_cli

    code, out, err = run_cli(capsys, "h", "puzzle8", "one-more", "1 2 3 4 5 6 7 0 8")
    _one_line(code, err, "one-more gave 2 values", "for 1 states")
    assert out == ""


# --------------------------------------------------------------------------- replayed paths
class Lying:
    """A plugin solver whose result is not what it says: a path that does not reach the goal,
    a length other than its path's, or a move that is not the puzzle's."""

    name = "lying"

    def __init__(self, how: str = "path") -> None:
        self.how = how

    def run(self, puzzle, heuristic, start, limits=None):
        from core.status import Status
        from solvers.base import SolveResult

        names = list(puzzle.action_names)
        if self.how == "length":  # a true solution, with a length that is not its own
            actions = registry.get_solver("astar").run(puzzle, Manhattan(puzzle), start).actions
        else:
            actions = {"path": [names.index("U")] * 3, "move": [99]}[self.how]
        length = 1 if self.how == "length" else len(actions)
        return SolveResult(status=Status.SOLVED, actions=actions, length=length,
                           nodes_generated=1, nodes_expanded=1, iterations=1, h_start=0.0,
                           time_s=0.0, solver="lying", heuristic=heuristic.name)


@pytest.fixture
def lying(monkeypatch):
    from core.props import SolverProps

    for how in ("path", "length", "move"):
        entry = Entry(f"lying-{how}", "test_reliability_claims:Lying",
                      "a solver whose results lie", {"how": how}, SolverProps(),
                      plugin="hostile-pkg")
        monkeypatch.setitem(registry.SOLVERS, entry.name, entry)


@pytest.mark.parametrize("how, words", [
    ("path", "invalid path"), ("length", "result length 1 does not match its 2 actions"),
    ("move", "invalid path")])
def test_bench_solve_replays_a_plugin_solvers_path(how, words, lying, capsys):
    from cli_run import run_cli

    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "L U",
                             "--heuristic", "manhattan", "--solver", f"lying-{how}")
    assert code == 0, err
    assert "lying with manhattan: invalid" in out and words in out
    assert "solved" not in out and "moves:" not in out
    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "L U", "--json",
                             "--heuristic", "manhattan", "--solver", f"lying-{how}")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["status"] == "invalid" and rec["length"] is None and rec["actions"] is None
