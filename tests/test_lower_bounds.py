"""Certified lower bounds: the declaration per puzzle, the heuristic chosen, bounds never above
the true distance, the rows of a run (a solved row shorter than its bound is invalid), unchanged
fingerprints, and bounds for rows made before they were recorded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from runner_fakes import make_plan

from bench.executor import InlineExecutor
from bench.runner import ROWS, load_table, plan_run, read_rows, run_plan, task_fingerprint
from core import registry
from core.errors import InputError
from core.rows import COLUMNS, Row
from suites import reference
from suites.reference import (
    NO_SOLUTION,
    bfs_distances,
    bound_candidates,
    bounds_for_states,
    lower_bounds,
    optimal_lengths,
    rounded_bounds,
    set_lower_bounds,
)
from suites.schema import Instance, load_suite

ROOT = Path(__file__).resolve().parent.parent
#: puzzles made on demand by the registry (sizes not listed in PUZZLES)
MORE_PUZZLES = ("lightsout5", "lightsout9", "sokoban8")
SOKOBAN_LEVEL = "#######/#.  $@#/#######"  # three pushes left onto the goal
DEAD_LEVEL = "######/#$  .#/# @  #/######"  # a box in a corner that is not a goal


@pytest.fixture(autouse=True)
def _fresh_bound_cache(monkeypatch):
    """Each test chooses and loads its bound heuristics afresh."""
    monkeypatch.setattr(reference, "_BOUND_HEURISTICS", type(reference._BOUND_HEURISTICS)())


# --------------------------------------------------------------------------- the declaration
@pytest.mark.parametrize("name", [*registry.PUZZLES, *MORE_PUZZLES])
def test_every_declared_bound_is_an_admissible_heuristic_of_its_puzzle(name):
    bounds = registry.bound_heuristics(name)
    assert bounds, f"{name} declares no heuristic for lower bounds"
    assert len(set(bounds)) == len(bounds)
    for h in bounds:
        entry = registry.heuristic_entry(h)
        assert entry.props.admissible is True, h
        assert registry.heuristic_supports(entry, name), f"{h} does not apply to {name}"
        assert not entry.props.needs_model and not entry.props.ranks_moves, h
        assert h != registry.NO_HEURISTIC  # zero bounds nothing
    if registry.puzzle_entry(name).props.family == "tiles":
        assert bounds[-1] == "linear-conflict"  # needs no table: every tile puzzle has a bound


@pytest.mark.parametrize("name", [*registry.PUZZLES, *MORE_PUZZLES])
def test_the_search_default_is_one_of_the_bounds(name):
    """What an optimal solver runs without --heuristic: the first bound, or the puzzle's
    ``search_heuristic`` (one of its bounds too, chosen by IDA* nodes)."""
    default = registry.default_heuristic(name)
    bounds = registry.bound_heuristics(name)
    props = registry.puzzle_entry(name).props
    assert default == (props.search_heuristic or bounds[0]) and default in bounds
    assert registry.default_heuristic("cube3") == registry.default_heuristic("cube3-htm") == \
        "pdb-coset"
    assert registry.default_heuristic("puzzle8") == "pdb-full"


def test_the_declaration_follows_the_documented_order():
    # the higher mean value at random states first (core.pdb_decls: Korf's in QTM, the coset
    # table in HTM); the other one where only its tables are cached
    assert registry.bound_heuristics("cube3") == ("pdb-korf", "pdb-coset")
    assert registry.bound_heuristics("cube3-htm") == ("pdb-coset", "pdb-korf")
    assert registry.bound_heuristics("cube2") == ("pdb-cube2",)
    assert registry.heuristic_entry("pdb-cube2").props.exact
    assert registry.bound_heuristics("puzzle15")[:2] == ("pdb-78-reflect", "pdb-663-reflect")
    assert registry.bound_heuristics("puzzle24")[:2] == ("pdb-6666kf-reflect", "pdb-6666-reflect")
    assert registry.bound_heuristics("puzzle35")[0] == "pdb-5x7-reflect"
    assert registry.bound_heuristics("puzzle48")[0] == "pdb-5x9-3-reflect"
    assert registry.bound_heuristics("sokoban") == registry.bound_heuristics("sokoban12") == \
        ("sokoban-matching",)
    assert registry.bound_heuristics("lightsout7") == ("lights-on",)
    from core import pdb_decls

    doc = (pdb_decls.__doc__ or "").replace(" (exact)", "")
    for name in registry.PUZZLES:  # the declarations' docstring lists every puzzle's bounds
        assert ", ".join(registry.bound_heuristics(name)) in doc, name


# --------------------------------------------------------------------------- the choice
def _no_large_tables(monkeypatch, stored: bool = False) -> None:
    import pdb_builders.catalog as catalog

    monkeypatch.setattr(catalog, "tables_stored", lambda puzzle, heuristic: stored)


class _FakePDB:
    """Stands in for a large PDB heuristic (never built here): h = 1 everywhere."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, states: np.ndarray) -> np.ndarray:
        return np.ones(len(np.atleast_2d(states)), dtype=np.int32)


def test_a_large_pdb_is_used_only_when_its_tables_are_stored(monkeypatch):
    _no_large_tables(monkeypatch, stored=False)
    assert bound_candidates("puzzle15") == ["pdb-663-reflect", "pdb-555-reflect",
                                            "linear-conflict"]
    assert bound_candidates("puzzle24") == ["linear-conflict"]
    assert bound_candidates("cube3") == [] and bound_candidates("cube3-htm") == []
    assert bound_candidates("cube2") == ["pdb-cube2"]  # small: built when absent
    _no_large_tables(monkeypatch, stored=True)
    assert bound_candidates("puzzle15")[0] == "pdb-78-reflect"
    assert bound_candidates("puzzle48")[0] == "pdb-5x9-3-reflect"
    assert bound_candidates("cube3") == ["pdb-korf", "pdb-coset"]
    assert bound_candidates("cube3-htm") == ["pdb-coset", "pdb-korf"]


def test_lower_bounds_name_the_strongest_available_heuristic(monkeypatch):
    p = registry.get_puzzle("puzzle24", goal="blank-last")
    states = p.random_states(4, np.random.default_rng(0))
    _no_large_tables(monkeypatch, stored=False)
    values, name = lower_bounds(p, states)
    assert name == "linear-conflict"
    assert values.tolist() == registry.get_heuristic("linear-conflict", p)(states).tolist()

    reference._BOUND_HEURISTICS.clear()
    _no_large_tables(monkeypatch, stored=True)
    real = registry.get_heuristic
    loaded = []

    def fake_get_heuristic(name, puzzle, **kw):
        loaded.append(name)
        return _FakePDB(name) if registry.heuristic_entry(name).props.pdb \
            else real(name, puzzle, **kw)

    monkeypatch.setattr(registry, "get_heuristic", fake_get_heuristic)
    values, name = lower_bounds(p, states)
    assert name == "pdb-6666kf-reflect" and loaded == ["pdb-6666kf-reflect"]
    assert values.dtype == np.int64 and values.tolist() == [1, 1, 1, 1]
    lower_bounds(p, states)
    assert loaded == ["pdb-6666kf-reflect"]  # loaded once per process


def test_no_bound_where_no_declared_heuristic_can_be_had(monkeypatch):
    _no_large_tables(monkeypatch, stored=False)
    cube = registry.get_puzzle("cube3")
    values, name = lower_bounds(cube, cube.scramble(3, 5, np.random.default_rng(1))[0])
    assert name is None and values.tolist() == [NO_SOLUTION] * 3
    # the 8-puzzle's korf1982 goal: every tile heuristic refuses it, so none applies
    korf = registry.get_puzzle("puzzle8", goal="korf1982")
    values, name = lower_bounds(korf, korf.scramble(2, 6, np.random.default_rng(2))[0])
    assert name is None and values.tolist() == [NO_SOLUTION] * 2
    insts = [Instance("s", "0", korf.goal(), None)]
    set_lower_bounds(korf, insts)
    assert insts[0].meta == {"lower_bound": None, "lower_bound_from": None}


def test_tables_stored_checks_the_cache(monkeypatch, tmp_path):
    from pdb_builders.catalog import find, tables_stored

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    assert not tables_stored("puzzle8", "pdb-44")
    assert not tables_stored("puzzle15", "pdb-78-reflect")
    assert not tables_stored("puzzle8", "linear-conflict")  # no tables at all
    registry.get_heuristic("pdb-44", registry.get_puzzle("puzzle8"), progress=False)
    assert tables_stored("puzzle8", "pdb-44") and tables_stored("puzzle8", "pdb-44-reflect")
    entry = find("puzzle8", "pdb-44")
    assert entry is not None
    path = entry.tables("puzzle8")[0].path
    path.write_bytes(path.read_bytes()[:200])  # truncated: not usable without a rebuild
    assert not tables_stored("puzzle8", "pdb-44")


# --------------------------------------------------------------------------- bounds are bounds
def test_rounding_up_and_infinite_values():
    assert rounded_bounds(np.array([0, 3, 7], dtype=np.int32)).tolist() == [0, 3, 7]
    got = rounded_bounds(np.array([2.5, 3.0, 3.0 + 1e-12, 0.1, np.inf, -0.5]))
    assert got.dtype == np.int64 and got.tolist() == [3, 3, 3, 1, NO_SOLUTION, 0]
    with pytest.raises(ValueError, match="NaN"):
        rounded_bounds(np.array([np.nan]))


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_puzzle8_bounds_never_exceed_the_bfs_distance(goal, monkeypatch):
    p = registry.get_puzzle("puzzle8", goal=goal)
    rng = np.random.default_rng(8)
    states = np.concatenate([p.random_states(60, rng),
                             *(p.scramble(10, d, rng)[0] for d in (1, 4, 12, 25))])
    dist = bfs_distances(p, states)
    assert (dist >= 0).all()
    values, name = lower_bounds(p, states)
    assert name == "pdb-full" and values.tolist() == dist.tolist()  # the exact table
    for h in registry.bound_heuristics("puzzle8"):  # each declared heuristic alone
        reference._BOUND_HEURISTICS.clear()
        monkeypatch.setattr(reference, "bound_candidates", lambda name, h=h: [h])
        values, name = lower_bounds(p, states)
        assert name == h and (values <= dist).all() and (values >= 0).all()
        assert (values[dist > 0] > 0).all()


def test_cube2_bounds_are_the_exact_distance():
    p = registry.get_puzzle("cube2")
    states = np.concatenate([p.scramble(8, d, np.random.default_rng(d))[0] for d in (0, 3, 6)])
    values, name = lower_bounds(p, states)
    assert name == "pdb-cube2"
    assert values.tolist() == bfs_distances(p, states).tolist()


def test_lights_out_bounds_never_exceed_the_gf2_optimum():
    p = registry.get_puzzle("lightsout5")
    states = p.random_states(40, np.random.default_rng(5))
    values, name = lower_bounds(p, states)
    assert name == "lights-on" and (values <= optimal_lengths(p, states, "gf2")).all()


def test_sokoban_bounds_and_dead_states():
    p = registry.get_puzzle("sokoban")
    live, dead = p.parse(SOKOBAN_LEVEL), p.parse(DEAD_LEVEL)
    values, name = lower_bounds(p, np.stack([live, dead]))
    assert name == "sokoban-matching" and values.tolist() == [3, NO_SOLUTION]
    insts = [Instance("s", "live", live, None), Instance("s", "dead", dead, None)]
    set_lower_bounds(p, insts)
    assert insts[0].meta == {"lower_bound": 3, "lower_bound_from": "sokoban-matching"}
    # infinite: no bound to print, but the heuristic that says no solution exists is named
    assert insts[1].meta == {"lower_bound": None, "lower_bound_from": "sokoban-matching"}


# --------------------------------------------------------------------------- rows of a run
TINY_SUITE = """
[suite]
name = "tiny8"
puzzle = "puzzle8"
[limits]
time_s = 20
[[instances]]
name = "scramble"
source = "scramble"
depth = [6, 14]
count = 2
seed = 3
goal = "blank-last"
optimal = "none"
[[configs]]
name = "manhattan-astar"
heuristic = "manhattan"
solver = "astar"
"""


def test_rows_of_a_suite_run_carry_their_lower_bound(tmp_path):
    path = tmp_path / "tiny8.toml"
    path.write_text(TINY_SUITE)
    plan = plan_run(load_suite(path))
    assert len(plan.tasks) == 4
    for t in plan.tasks:
        assert t.meta["lower_bound_from"] == "pdb-full" and t.meta["lower_bound"] >= 1
        assert not {"lower_bound", "lower_bound_from"} & set(t.payload)
    run_plan(plan, tmp_path / "run", InlineExecutor(), progress=False, prepare=False)
    rows = read_rows(tmp_path / "run" / ROWS)
    assert len(rows) == 4
    for r in rows:
        assert r["status"] == "solved" and r["optimal"] is None
        assert r["lower_bound_from"] == "pdb-full"
        assert r["length"] == r["lower_bound"]  # A* with Manhattan is optimal, pdb-full exact
        task = next(t for t in plan.tasks if t.key == r["key"])
        assert r["fingerprint"] == task_fingerprint(task.payload)
        # every column a real search's row holds is one the row schema declares
        assert set(r) <= set(Row.__annotations__), set(r) - set(Row.__annotations__)
    table = load_table(tmp_path / "run")
    assert str(table["lower_bound"].dtype) == "Int64"
    # the rows' states give the same bounds again (what reports do for older rows)
    values, name = bounds_for_states("puzzle8", "blank-last", [r["state"] for r in rows])
    assert name == "pdb-full" and values.tolist() == [r["lower_bound"] for r in rows]


def test_reports_fill_bounds_of_a_csv_whose_bound_columns_are_empty(tmp_path):
    """A results.csv written before bounds were rows reads its empty columns as floats; the
    report fills the bound's name into them all the same."""
    import pandas as pd

    from bench.report_optima import with_reference_optima

    states = ["1 2 3 4 5 6 7 8 0", "1 2 3 4 5 6 7 0 8", "1 2 3 4 5 6 0 7 8"]
    pd.DataFrame({"puzzle": "puzzle8", "goal": "blank-last", "instance_set": "s",
                  "instance": ["0", "1", "2"], "config": "c", "status": "solved",
                  "length": [0, 1, 2], "optimal": [None] * 3, "lower_bound": [None] * 3,
                  "lower_bound_from": [None] * 3, "state": states}).to_csv(tmp_path / "r.csv")
    df = pd.read_csv(tmp_path / "r.csv")
    assert df["lower_bound_from"].dtype == "float64"
    out = with_reference_optima(df)
    assert out["lower_bound_from"].tolist() == ["pdb-full"] * 3
    assert out["lower_bound"].tolist() == [0, 1, 2]


def test_the_columns_are_declared():
    for col in ("lower_bound", "lower_bound_from"):
        assert col in COLUMNS and col in Row.__annotations__


def test_committed_fingerprints_do_not_change():
    """Bounds are row columns, not part of the task: a committed run resumes unchanged."""
    import pandas as pd

    csv = ROOT / "results" / "classic8" / "results.csv"
    if not csv.is_file():
        pytest.skip("results/classic8 not present")
    committed = pd.read_csv(csv, dtype={"instance": str})
    fps = dict(zip(committed["key"], committed["fingerprint"], strict=True))
    plan = plan_run(load_suite("classic8"), "default", limit=2)
    assert plan.tasks
    for t in plan.tasks:
        assert t.meta["lower_bound_from"] == "pdb-full"
        assert t.meta["lower_bound"] == t.meta["optimal"]  # the exact table
        assert fps[t.key] == task_fingerprint(t.payload), t.key


def _fake_run(tmp_path, specs):
    plan = make_plan(tmp_path, [(i, "a", fake) for i, fake, _ in specs])
    for t, (_, _, bound) in zip(plan.tasks, specs, strict=True):
        t.meta.update(bound)
    # a replayed path shorter than the bound proves the bound wrong: the run fails naming the
    # instance, once every row is written
    with pytest.raises(InputError, match=r"korf100/short: a solved it at length 9 \(its path "
                                         r"replayed\), below the certified lower bound 10"):
        run_plan(plan, tmp_path / "run", InlineExecutor(fn="runner_fakes:solve"),
                 progress=False, prepare=False)
    return {r["instance"]: r for r in read_rows(tmp_path / "run" / ROWS)}


def test_a_solved_row_shorter_than_its_bound_is_invalid(tmp_path):
    pdb = "pdb-663-reflect"
    rows = _fake_run(tmp_path, [
        ("short", {"length": 9}, {"lower_bound": 10, "lower_bound_from": pdb}),
        ("equal", {"length": 10}, {"lower_bound": 10, "lower_bound_from": pdb}),
        ("longer", {"length": 12}, {"lower_bound": 10, "lower_bound_from": pdb}),
        ("unbounded", {"length": 3}, {"lower_bound": None, "lower_bound_from": None}),
        ("old", {"length": 3}, {}),  # planned before bounds existed
        ("dead", {"length": 7}, {"lower_bound": None, "lower_bound_from": "sokoban-matching"}),
        ("failed", {"mode": "fail"}, {"lower_bound": 10, "lower_bound_from": pdb}),
    ])
    short = rows["short"]
    assert short["status"] == "invalid" and short["length"] is None
    assert "length 9" in short["error"] and "lower bound 10" in short["error"] \
        and pdb in short["error"]
    for key in ("equal", "longer", "unbounded", "old"):
        assert rows[key]["status"] == "solved", key
    assert rows["longer"]["lower_bound"] == 10 and rows["longer"]["lower_bound_from"] == pdb
    assert rows["dead"]["status"] == "invalid" and "no solution" in rows["dead"]["error"]
    assert rows["failed"]["status"] == "node-limit"


# --------------------------------------------------------------------------- older rows
def test_bounds_for_states_of_older_rows():
    p = registry.get_puzzle("lightsout7")
    states = p.random_states(3, np.random.default_rng(7))
    texts = [" ".join(str(int(v)) for v in s) for s in states]
    values, name = bounds_for_states("lightsout7", float("nan"), texts)  # goal: a missing value
    assert name == "lights-on" and values.tolist() == lower_bounds(p, states)[0].tolist()
    sok = registry.get_puzzle("sokoban")
    dead = " ".join(str(int(v)) for v in sok.parse(DEAD_LEVEL))
    assert bounds_for_states("sokoban", None, [dead])[0].tolist() == [NO_SOLUTION]
    for bad in ("1 2 3", "x " * 49, None, "2 " * 49):
        with pytest.raises(InputError, match="state 1"):
            bounds_for_states("lightsout7", None, [texts[0], bad])


def test_bounds_fill_of_a_goal_column_read_as_floats_warns_nothing():
    """A CSV's goal column with no layout reads as floats (NaN); filling the bounds must not
    write strings into it (pandas warns, and will raise)."""
    import warnings

    import pandas as pd

    from bench.report_optima import _bounds_fill

    df = pd.DataFrame({"puzzle": ["puzzle8", "puzzle8"], "goal": [np.nan, np.nan],
                       "state": ["1 2 3 4 5 6 7 8 0", "1 2 3 4 5 6 7 0 8"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _bounds_fill(df)
    # the goal, and a state one move from it: bounds 0 and 1 from any admissible heuristic
    assert df["lower_bound"].tolist() == [0, 1]
    assert df["lower_bound_from"].notna().all()
