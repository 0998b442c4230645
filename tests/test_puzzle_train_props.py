"""A puzzle's training defaults and DeepCubeA's published network are declared with the puzzle
(``PuzzleProps.train``, ``PuzzleProps.deepcubea``): the trainer and the importer read them and
compare no puzzle name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core import props, registry
from core.errors import InputError
from learning.deepcubea_import import adapter_for, convert
from learning.train_config import TrainConfig, puzzle_defaults

ROOT = Path(__file__).resolve().parents[1]

#: (k_max, epsilon, check_every) of every puzzle DeepCubeA's paper or ours trains by default
EXPECTED = {
    "cube3": (30, 0.06, 5000), "cube3-htm": (30, 0.06, 5000), "cube2": (20, 0.06, 500),
    "cube2-htm": (16, 0.06, 500), "puzzle8": (40, 0.1, 500), "puzzle15": (500, 0.1, 5000),
    "puzzle24": (500, 0.2, 5000), "puzzle35": (1000, 1.0, 5000),
    "puzzle48": (1000, 1.0, 5000), "lightsout7": (50, 1.0, 5000),
    "sokoban": (1000, 1.0, 1000),
    # sized puzzles: Lights Out's K = n * n up to 50, C = 500 below 7 x 7; other sizes of
    # Sokoban the common defaults
    "lightsout3": (9, 1.0, 500), "lightsout6": (36, 1.0, 500), "lightsout9": (50, 1.0, 5000),
    "sokoban12": (30, 1.0, 1000),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_puzzles_training_defaults_are_its_declared_ones(name):
    assert puzzle_defaults(name) == EXPECTED[name]
    cfg = TrainConfig(puzzle=name).resolved()
    assert (cfg.k_max, cfg.epsilon, cfg.check_every) == EXPECTED[name]


def test_every_declared_puzzle_declares_training_defaults():
    for name, entry in registry.PUZZLES.items():
        assert isinstance(entry.props.train, props.TrainDefaults), name
        assert entry.props.train.k_max >= 1 and entry.props.train.check_every >= 1, name


def test_a_puzzle_the_registry_does_not_know_takes_the_common_defaults():
    """A trainer given a puzzle made in code (a test's toy) resolves its config by name."""
    assert puzzle_defaults("toylights3") == (30, 1.0, 1000) == (
        props.TrainDefaults().k_max, props.TrainDefaults().epsilon,
        props.TrainDefaults().check_every)


@pytest.mark.parametrize("name, adapter", [("cube3", "deepcubea-cube3"),
                                           ("puzzle15", "deepcubea-tiles"),
                                           ("puzzle48", "deepcubea-tiles"),
                                           ("lightsout7", "deepcubea-lights"),
                                           ("lightsout5", "deepcubea-lights")])
def test_deepcubeas_input_is_the_puzzles_declared_one(name, adapter):
    p = registry.get_puzzle(name)
    assert adapter_for(p) == (adapter, p.state_dim)


@pytest.mark.parametrize("name", ["cube3-htm", "cube2", "sokoban"])
def test_a_puzzle_without_a_published_network_is_refused(name):
    with pytest.raises(InputError, match=f"DeepCubeA published no network for {name}$"):
        convert({}, registry.get_puzzle(name))


def test_a_plugins_puzzle_props_may_give_the_records_as_tables():
    given = props.from_dict("puzzle", {"family": "pancake",
                                       "train": {"k_max": 12, "check_every": 100},
                                       "deepcubea": {"adapter": "none"}})
    assert given.train == props.TrainDefaults(12, 1.0, 100)
    assert given.deepcubea == props.DeepCubeANet("none")


def _names_an_entry(node: ast.expr) -> bool:
    """``x.name``, ``name``, ``puzzle_name`` or ``ckpt["puzzle"]``."""
    return ((isinstance(node, ast.Attribute) and node.attr == "name")
            or (isinstance(node, ast.Name) and node.id in ("name", "puzzle_name"))
            or (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and node.slice.value == "puzzle"))


def _name_comparisons(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
                _names_an_entry(s) for s in (node.left, *node.comparators)):
            found.append(ast.unparse(node))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "endswith")
                and _names_an_entry(node.func.value)):
            found.append(ast.unparse(node))
    return found


@pytest.mark.parametrize("module", ["learning/train_config.py", "learning/deepcubea_import.py"])
def test_no_puzzle_name_decides_behaviour(module):
    """No comparison with an entry's name (``==``, ``in``, ``startswith``) in the modules that
    read the declared properties instead."""
    assert _name_comparisons((ROOT / module).read_text()) == []


def test_the_name_check_sees_a_comparison():
    src = ("if puzzle.name == 'cube3': pass\nif name in TABLE: pass\n"
           "if puzzle.name.startswith('puzzle'): pass\nif k in names: pass\n")
    assert _name_comparisons(src) == ["puzzle.name == 'cube3'", "name in TABLE",
                                      "puzzle.name.startswith('puzzle')"]
