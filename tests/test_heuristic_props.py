"""Each heuristic's declared ``admissible`` and ``consistent`` agree with its class and hold on
the states where they can be checked: admissible means ``h <= `` the true distance (exhaustive
8-puzzle and 3x3 Lights Out tables, the 2x2x2 cube's table on random states), consistent means
``|h(s) - h(t)| <= 1`` for every move ``s -> t`` (unit costs). Large PDBs are stood in for by
their declared small stand-ins, as in ``tests/test_registry_walk.py``."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.props import PROPS, HeuristicProps, WhenOption

#: heuristics checked on exhaustive or random states, by puzzle
CHECKED = {
    "puzzle8": ("zero", "manhattan", "linear-conflict", "pdb-full", "pdb-full-reflect", "pdb-44",
                "pdb-44-reflect"),
    "lightsout3": ("zero", "lights-on"),
    "cube2": ("zero", "pdb-cube2"),
}


def _puzzle8_states(puzzle):
    from puzzles import exhaustive as ex

    d = ex.puzzle8_distances()
    ok = np.flatnonzero(d >= 0)
    return ex.perm_unranks(ok, 9).astype(puzzle.dtype), d[ok].astype(np.int64)


def _lights_states(puzzle):
    cells = puzzle.cells
    states = ((np.arange(2 ** cells)[:, None] >> np.arange(cells)) & 1).astype(np.uint8)
    states = states[puzzle.solvable(states)]
    return states, np.asarray(puzzle.optimal_lengths(states), dtype=np.int64)


def _cube2_states(puzzle):
    states, _ = puzzle.scramble(3000, 30, np.random.default_rng(0))
    return states, np.asarray(puzzle.distance_table())[puzzle.index(states)].astype(np.int64)


STATES = {"puzzle8": _puzzle8_states, "lightsout3": _lights_states, "cube2": _cube2_states}


def test_every_entry_declares_typed_properties():
    for kind, table in (("puzzle", registry.PUZZLES), ("heuristic", registry.HEURISTICS),
                        ("solver", registry.SOLVERS)):
        for name, e in table.items():
            assert isinstance(e.props, PROPS[kind]), (kind, name)
    for name, e in registry.HEURISTICS.items():
        p = registry.heuristic_props(e)
        assert not p.consistent or p.admissible, name  # consistent with h(goal) = 0
        assert not p.exact or (p.admissible and p.consistent), name
        assert not p.pdb or p.needs_pdb, name
        assert not p.ranks_moves or p.needs_model, name
        if p.default_solver:
            assert p.default_solver in registry.SOLVERS, name


@pytest.mark.parametrize("name", [n for n, e in registry.HEURISTICS.items()
                                  if not e.props.needs_model])
def test_declarations_agree_with_the_class(name):
    cls = registry.HEURISTICS[name].load()
    declared = registry.heuristic_props(name)  # with the declared defaults
    assert cls.admissible == declared.admissible, name
    if name not in ("pdb-full", "pdb-full-reflect"):  # the exact table says so per instance
        assert cls.consistent == declared.consistent, name


@pytest.mark.parametrize("puzzle_name", list(CHECKED))
def test_admissible_and_consistent_hold_where_declared(puzzle_name):
    puzzle = registry.get_puzzle(puzzle_name)
    states, dist = STATES[puzzle_name](puzzle)
    children, valid = puzzle.expand(states)
    b, a, n = children.shape
    for name in CHECKED[puzzle_name]:
        declared: HeuristicProps = registry.heuristic_props(name)
        h = registry.get_heuristic(name, puzzle)
        assert (h.admissible, h.consistent) == (declared.admissible, declared.consistent), name
        hs = np.asarray(h(states), dtype=np.float64)
        if declared.admissible:
            assert (hs <= dist).all(), name
        if declared.exact:
            assert (hs == dist).all(), name
        if declared.consistent:
            hc = np.asarray(h(children.reshape(-1, n)), dtype=np.float64).reshape(b, a)
            assert (np.abs(hc - hs[:, None])[valid] <= 1).all(), name


def test_additive_tile_sums_are_not_declared_consistent_and_are_not():
    """A counterexample: the 8-puzzle's additive 4-4 sum drops by more than one on a move."""
    puzzle = registry.get_puzzle("puzzle8")
    states, _ = _puzzle8_states(puzzle)
    children, valid = puzzle.expand(states)
    h = registry.get_heuristic("pdb-44", puzzle)
    hs = np.asarray(h(states), dtype=np.int64)
    hc = np.asarray(h(children.reshape(-1, children.shape[2])), dtype=np.int64)
    assert (np.abs(hc.reshape(valid.shape) - hs[:, None])[valid] > 1).any()
    assert not registry.heuristic_entry("pdb-44").props.consistent
    assert not registry.heuristic_entry("pdb-44-reflect").props.consistent


#: option values whose tables are too large to build in tests (Korf's 88.2 M-entry corner table)
TOO_LARGE = {("pdb-coset", "corner_pdb", "corners")}
#: the small puzzle each heuristic with options is built for
PUZZLE_OF = {"pdb-korf": "cube3", "pdb-coset": "cube3", "pdb-coset-eo": "cube3",
             "pdb-coset-eo2ep2": "cube3"}


def _option_values():
    """(heuristic, option, value) for every value of every choice or true/false option of a
    heuristic built from tables (models aside)."""
    out = []
    for name, e in registry.HEURISTICS.items():
        if e.plugin is not None or e.props.needs_model:
            continue
        for o in e.options:
            values = o.choices if o.choices is not None else (False, True) \
                if o.kind is bool else ()
            out += [(name, o.name, v) for v in values if (name, o.name, v) not in TOO_LARGE]
    return out


def test_a_property_that_depends_on_an_option_is_declared_so():
    rule = registry.heuristic_entry("pdb-coset").props.consistent
    assert isinstance(rule, WhenOption) and rule.option == "probe_inverse"
    with pytest.raises(TypeError, match="depends on option probe_inverse"):
        bool(rule)
    for probe, consistent in (("off", True), ("near", False), ("on", False)):
        props = registry.heuristic_props("pdb-coset", {"probe_inverse": probe})
        assert props.consistent is consistent and props.admissible is True
    # the cube's default optimal search runs pdb-coset with the inverse probed: not consistent
    args = dict(registry.default_heuristic_args("cube3"))
    assert args.get("probe_inverse") in ("near", "on")
    assert registry.heuristic_props(registry.default_heuristic("cube3"), args).consistent is False


@pytest.mark.parametrize("name,option,value", _option_values())
def test_declared_properties_equal_the_instance_for_every_option_value(name, option, value):
    """The declared admissible and consistent, resolved for each option value, are the
    attributes of a heuristic built with it (large tables: their declared small stand-ins)."""
    entry = registry.heuristic_entry(name)
    puzzle = registry.get_puzzle(PUZZLE_OF.get(name, "puzzle8"))
    stand_in = dict(entry.props.pdb.stand_in_args) if entry.props.pdb and \
        not entry.props.pdb.ci else {}
    h = entry.load()(puzzle, **entry.kwargs, **stand_in, progress=False, **{option: value}) \
        if entry.props.needs_pdb else entry.load()(puzzle, **entry.kwargs, **{option: value})
    declared = registry.heuristic_props(entry, {option: value})
    assert (h.admissible, h.consistent) == (declared.admissible, declared.consistent), \
        (name, option, value)


def test_every_choice_option_of_a_table_heuristic_is_tried():
    tried = {(n, o) for n, o, _ in _option_values()}
    assert {("pdb-coset", "probe_inverse"), ("pdb-coset-eo", "probe_inverse"),
            ("pdb-coset", "corner_pdb"), ("pdb-korf", "edge_tables")} <= tried
