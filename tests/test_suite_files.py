"""Suite files parse and validate; faults name the file and the key."""

from __future__ import annotations

import tomllib

import pytest

from bench.registry import HEURISTICS, SOLVERS
from puzzles.base import InputError
from suites.loaders import (
    INSTANCES_DIR,
    header_comment,
    load_suite,
    maneuver_quarter_turns,
    maneuver_text,
    parse_suite,
    suite_paths,
)

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
    ('name = "c"', 'name = "c"\nlimits = { time_s = -1 }', r"configs\[0\].limits.time_s: must be positive"),
    ('name = "c"', 'name = "c"\ncolour = 1', r"bad.toml: configs\[0\].colour: unknown key"),
    ('source = "scramble"', 'source = "scramble"\ngoal = "blank-middle"',
     r"instances\[0\].goal: expected blank-first or blank-last"),
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
