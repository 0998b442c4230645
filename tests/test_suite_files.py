"""Suite files parse and validate; faults name the file and the key."""

from __future__ import annotations

import tomllib

import pytest

from core.errors import InputError
from core.registry import HEURISTICS, SOLVERS
from suites.schema import INSTANCES_DIR, load_suite, parse_suite, suite_paths
from suites.sources import header_comment, maneuver_quarter_turns, maneuver_text

EXPECTED = {"cube3", "cube3-htm", "cube2", "puzzle8", "puzzle15", "puzzle24", "puzzle35",
            "puzzle48", "lightsout7", "felner2004"}


def test_every_required_suite_is_shipped():
    assert EXPECTED <= set(suite_paths())


@pytest.mark.parametrize("name", sorted(suite_paths()))
def test_shipped_suite_validates(name):
    s = load_suite(name)
    assert s.name == name and s.configs and s.instance_sets
    assert {"default", "quick"} <= set(s.profiles)
    for c in s.configs.values():
        assert c.heuristic in HEURISTICS and c.solver in SOLVERS
    for spec in s.instance_sets.values():
        if spec.source == "file":
            assert header_comment(INSTANCES_DIR / spec.path)  # every shipped list cites its source


BASE = """
[suite]
name = "t"
puzzle = "puzzle8"
[[instances]]
name = "s"
source = "scramble"
depth = [5]
count = 3
[[configs]]
name = "c"
heuristic = "manhattan"
solver = "astar"
"""


def _parse(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return parse_suite(path, tomllib.loads(text))


@pytest.mark.parametrize("old,new,match", [
    ('heuristic = "manhattan"', 'heuristic = "manhatan"',
     r"bad.toml: configs\[0\].heuristic: unknown heuristic 'manhatan' \(did you mean 'manhattan'\?\)"),
    ('solver = "astar"', 'solver = "bfs"', r"bad.toml: configs\[0\].solver: unknown solver 'bfs'"),
    ('puzzle = "puzzle8"', 'puzzle = "cube4"', r"bad.toml: suite.puzzle: unknown puzzle 'cube4'"),
    ('heuristic = "manhattan"', 'heuristic = "pdb-korf"',
     r"bad.toml: configs\[0\].heuristic: pdb-korf does not apply to puzzle8"),
    ('source = "scramble"', 'source = "web"', r"bad.toml: instances\[0\].source: expected one of"),
    ("count = 3", "count = 0", r"bad.toml: instances\[0\].count: must be at least 1"),
    ("count = 3", 'count = "3"', r"bad.toml: instances\[0\].count: expected an integer"),
    ('name = "c"', 'name = "c"\nlimits = { time_s = -1 }', r"configs\[0\].limits.time_s: must be > 0, got -1$"),
    ('name = "c"', 'name = "c"\ncolour = 1', r"bad.toml: configs\[0\].colour: unknown key"),
    ('source = "scramble"', 'source = "scramble"\ngoal = "blank-middle"',
     r"instances\[0\].goal: expected blank-first, blank-last or korf1982"),
    ("count = 3", "count = 3\nrotations = true",
     r"instances\[0\].rotations: applies to source = 'file' with format = 'maneuver' only"),
    ("count = 3", 'count = 3\nrotations = "yes"',
     r"instances\[0\].rotations: expected true or false, got 'yes'"),
    ("count = 3", "count = 3\nsolver_nodes_below = 2e9",
     r"instances\[0\].solver_nodes_below: applies to source = 'deepcubea' only"),
    ('source = "scramble"\ndepth = [5]', 'source = "deepcubea"\nsolver_nodes_below = -1',
     r"instances\[0\].solver_nodes_below: must be a number > 0, got -1"),
])
def test_bad_suite_names_file_and_key(tmp_path, old, new, match):
    with pytest.raises(InputError, match=match):
        _parse(tmp_path, BASE.replace(old, new, 1))


def test_bad_profile_and_optimal_rules(tmp_path):
    with pytest.raises(InputError, match=r"profiles.quick.configs\[0\]: unknown configuration 'nope'"):
        _parse(tmp_path, BASE + '[profiles.quick]\nconfigs = ["nope"]\n')
    with pytest.raises(InputError, match=r"instances\[0\].optimal: unknown heuristic 'pdb-cube3'"):
        _parse(tmp_path, BASE.replace("count = 3", 'count = 3\noptimal = "exact:pdb-cube3"'))
    with pytest.raises(InputError, match=r"instances\[0\].optimal: expected one of"):
        _parse(tmp_path, BASE.replace("count = 3", 'count = 3\noptimal = "guess"'))


def test_unknown_suite_and_profile():
    with pytest.raises(InputError, match="unknown suite 'cube33'.*did you mean"):
        load_suite("cube33")
    with pytest.raises(InputError, match="--profile: suite cube2 has no profile 'slow'"):
        load_suite("cube2").profile("slow")


def test_invalid_toml_is_one_line(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text("[suite\nname=")
    with pytest.raises(InputError, match="x.toml: not valid TOML"):
        load_suite(path)


@pytest.mark.nojit
def test_maneuver_notations_agree():
    a = maneuver_quarter_turns("R U- F2 B'")
    b = maneuver_quarter_turns("R1U3F2B3")
    assert a == b == [("R", 1), ("U", 3), ("F", 2), ("B", 3)]
    assert maneuver_text(a, "qtm") == "R U' F F B'"
    assert maneuver_text(a, "htm") == "R U' F2 B'"
    with pytest.raises(InputError, match="maneuver"):
        maneuver_quarter_turns("R X2")


@pytest.mark.parametrize("old,new,match", [
    ("count = 3", 'count = 3\noptimal = "exact:manhattan"',
     r"instances\[0\].optimal: manhattan is not an exact distance .*exact: .*pdb-full"),
    ("count = 3", 'count = 3\noptimal = "exact:pdb-cube2"',
     r"instances\[0\].optimal: pdb-cube2 does not apply to puzzle8"),
    ("count = 3", 'count = 3\noptimal = "ida:davi"',
     r"instances\[0\].optimal: davi is not an admissible heuristic with an IDA\* kernel; for "
     r"puzzle8: manhattan, linear-conflict"),
    ("count = 3", 'count = 3\noptimal = "shortest"',
     r"instances\[0\].optimal: expected one of file, table, bfs, gf2, none, exact:HEURISTIC or "
     r"ida:HEURISTIC, got 'shortest'"),
    ('name = "c"', 'name = "c"\nlimits = { time_s = nan }',
     r"configs\[0\].limits.time_s: expected a finite number, got nan"),
    ('name = "c"', 'name = "c"\nlimits = { time_s = inf }', r"limits.time_s: expected a finite number"),
    ('name = "c"', 'name = "c"\nlimits = { memory_mb = 100000000000000000 }',
     r"limits.memory_mb: must be at most"),
    ('name = "t"', 'name = "t"\nfigures = ["nodes-vs-lenght"]',
     r"suite.figures\[0\]: unknown figure 'nodes-vs-lenght'; known: bwas-strips"),
    ('name = "t"', 'name = "t"\nfigures = [1]', r"suite.figures\[0\]: expected a string"),
    ("count = 3", "count = 3\nseed = -1", r"instances\[0\].seed: must be in"),
    ("count = 3", "count = 100000000000", r"instances\[0\].count: must be at most"),
    ("depth = [5]", "depth = [100000000000]", r"instances\[0\].depth: must be at most"),
    ('solver = "astar"', 'solver = "astar"\nsolver_args = { width = 5 }',
     r"configs\[0\].solver_args: width: applies to beam/qbeam, not to astar"),
])
def test_suite_values_that_would_mislead_are_refused(tmp_path, old, new, match):
    with pytest.raises(InputError, match=match):
        _parse(tmp_path, BASE.replace(old, new, 1))


def test_configs_that_are_not_tables_are_refused(tmp_path):
    text = "configs = [1]\n" + BASE[:BASE.index("[[configs]]")]
    with pytest.raises(InputError, match=r"bad.toml: configs\[0\]: expected a table, got 1"):
        _parse(tmp_path, text)


def _lights(text: str) -> str:
    return text.replace('puzzle = "puzzle8"', 'puzzle = "lightsout7"')


def test_gf2_solver_args_are_refused(tmp_path):
    text = _lights(BASE).replace('heuristic = "manhattan"\n', '').replace(
        'solver = "astar"', 'solver = "gf2"\nsolver_args = { weight = 0.5 }')
    with pytest.raises(InputError, match=r"solver_args: weight: applies to bwas/astar/greedy/qstar, not to gf2"):
        _parse(tmp_path, text)


def test_a_solver_that_uses_no_heuristic_runs_with_zero_and_refuses_another(tmp_path):
    suite = _parse(tmp_path, _lights(BASE).replace('heuristic = "manhattan"\n', '').replace(
        'solver = "astar"', 'solver = "gf2"'))
    assert {c.heuristic for c in suite.configs.values() if c.solver == "gf2"} == {"zero"}
    with pytest.raises(InputError, match=r"heuristic: solver gf2 uses no heuristic; leave it out"):
        _parse(tmp_path, _lights(BASE).replace('heuristic = "manhattan"', 'heuristic = "lights-on"')
               .replace('solver = "astar"', 'solver = "gf2"'))
    with pytest.raises(InputError, match=r"configs\[0\].heuristic: missing"):
        _parse(tmp_path, BASE.replace('heuristic = "manhattan"\n', ''))


def test_non_utf8_suite_file_is_one_line(tmp_path):
    path = tmp_path / "x.toml"
    path.write_bytes(BASE.encode().replace(b'"t"', b'"\xff\xfe"'))
    with pytest.raises(InputError, match="x.toml: not UTF-8 text"):
        load_suite(path)


def test_figure_names_match_the_plots():
    from bench import plots
    from suites.schema import FIGURE_NAMES

    assert set(FIGURE_NAMES) == set(plots.FIGURES)
    with pytest.raises(InputError, match="--figures: unknown figure 'nope'"):
        plots.run_figures(None, ["nope"])


def test_korf1982_goal_is_an_8_puzzle_layout(tmp_path):
    ok = BASE.replace('source = "scramble"', 'source = "scramble"\ngoal = "korf1982"').replace(
        'heuristic = "manhattan"\n', '').replace('solver = "astar"', 'solver = "macro"')
    suite = _parse(tmp_path, ok)
    assert suite.instance_sets["s"].goal == "korf1982"
    bad = ok.replace('puzzle = "puzzle8"', 'puzzle = "puzzle15"')
    with pytest.raises(InputError, match=r"instances\[0\].goal: korf1982 is an 8-puzzle layout"):
        _parse(tmp_path, bad)


@pytest.mark.parametrize("name", sorted(suite_paths()))
def test_a_suite_built_in_code_is_the_suite_its_file_gives(name):
    """Every committed suite as data (``suite_data``) and as text (``suite_toml``) reads back
    into an equal ``Suite``; a suite built in code is checked like a file (``check_suite``)."""
    import dataclasses

    from suites.schema import check_suite, suite_toml

    s = load_suite(name)
    assert check_suite(s) == s
    text = suite_toml(s, comment="written from the dataclass")
    assert parse_suite(s.path, tomllib.loads(text)) == s
    bad = dataclasses.replace(s, puzzle="nope")
    with pytest.raises(InputError, match=r"suite\.puzzle"):
        check_suite(bad)
