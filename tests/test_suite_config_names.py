"""A suite configuration that searches with a network is named by what the network was trained
on: ``diffusion-beam-4096`` for the diffusion-trained cube3 network, ``davi-bwas-0.6`` for a
DAVI-trained one. The target is read from the model the configuration resolves to (the library's
own model resolution, as a run loads it), so a reshipped network with another target fails here
until its configurations are renamed. Suite files name the heuristic by its entry name, never by
an alias."""

from __future__ import annotations

import json
import tomllib

import pytest

from core import registry
from learning.checkpoint import load_checkpoint
from suites.schema import load_suite, suite_paths

#: heuristics whose configurations carry their network's target in their name
NETWORK_HEURISTICS = (registry.VALUE_NET, "policy")


def _network_configs() -> list[tuple[str, str]]:
    return [(name, c.name) for name in sorted(suite_paths())
            for c in load_suite(name).configs.values() if c.heuristic in NETWORK_HEURISTICS]


def trained_target(suite_name: str, config_name: str) -> str:
    """The target recorded by the model a suite configuration loads (its checkpoint), checked
    against the model card beside it (``config.json``) where there is one."""
    suite = load_suite(suite_name)
    c = suite.configs[config_name]
    files = registry.model_files(registry.heuristic_entry(c.heuristic), suite.puzzle,
                                 c.heuristic_args.get("model"))
    target = str(load_checkpoint(files[0])["target"])
    card = files[0].parent / "config.json"
    if card.is_file():
        assert json.loads(card.read_text())["train_config"]["target"] == target, card
    return target


def test_network_configurations_exist():
    names = dict(_network_configs())
    assert {"cube3", "puzzle15", "cube2", "puzzle8", "lightsout7", "sokoban"} <= set(names)


@pytest.mark.parametrize(("suite_name", "config_name"), _network_configs())
def test_a_configuration_is_named_by_its_network_target(suite_name, config_name):
    target = trained_target(suite_name, config_name)
    assert config_name == target or config_name.startswith(target + "-"), \
        f"{suite_name}: configuration {config_name} loads a {target}-trained network"


def test_the_main_job_names_the_diffusion_network():
    main = load_suite("cube3").profiles["default"].configs
    assert main is not None and "diffusion-beam-4096" in main and "diffusion-bwas-quick" in main
    assert not [c for c in main if c.startswith("davi")]


@pytest.mark.parametrize("name", sorted(suite_paths()))
def test_suite_files_name_heuristics_by_their_entry_name(name):
    data = tomllib.loads(suite_paths()[name].read_text())
    written = [c["heuristic"] for c in data.get("configs", []) if "heuristic" in c]
    assert all(h == registry.canonical_heuristic(h) for h in written), written
