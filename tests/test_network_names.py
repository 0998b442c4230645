"""Every output names the shipped cube3 network alike, by ``core.labels.heuristic_label``:
``bench solve``'s summary, ``bench models``' list, figure legends and the viewer's curves all say
``value-net (diffusion)``, whether the command line named it ``value-net`` or ``davi``."""

from __future__ import annotations

import json

import pandas as pd
from cli_run import run_cli

from bench import plots
from bench.view.sources import curve_label
from core import registry
from core.labels import heuristic_label

CUBE3 = "value-net (diffusion)"


def test_the_label_names_the_entry_and_the_target():
    assert heuristic_label("davi", "diffusion") == heuristic_label("value-net", "diffusion") == CUBE3
    assert heuristic_label("value-net", "davi") == "value-net (davi)"
    assert heuristic_label("policy", "policy") == "policy"  # the target adds nothing here
    assert heuristic_label("pdb-korf") == "pdb-korf"
    assert heuristic_label("davi", "diffusion", {"model": "cube3"}) == \
        "value-net (diffusion, model cube3)"
    assert heuristic_label("gone-heuristic") == "gone-heuristic"  # rows of a removed entry


def test_bench_solve_names_the_network(capsys):
    code, out, err = run_cli(capsys, "solve", "cube3", "--scramble", "R U", "--heuristic", "davi",
                             "--solver", "beam", "--width", "16")
    assert code == 0, err
    assert f"beam with {CUBE3}: solved" in out


def test_bench_models_names_the_network(capsys):
    code, out, err = run_cli(capsys, "models", "--json")
    assert code == 0, err
    rows = {r["name"]: r for r in map(json.loads, out.splitlines())}
    assert rows["cube3"]["network"] == CUBE3 and rows["cube3"]["target"] == "diffusion"
    assert rows["puzzle8"]["network"] == "value-net (davi)"
    assert rows["lightsout7-policy"]["network"] == "policy"
    code, out, err = run_cli(capsys, "models")
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("cube3 ") and CUBE3 in line]


def test_figures_and_the_viewer_name_the_network():
    rows = pd.DataFrame({"heuristic": ["davi", "value-net", "pdb-korf"],
                         "model_target": ["diffusion", "diffusion", None]})
    assert plots.heuristic_labels(rows).tolist() == [CUBE3, CUBE3, "pdb-korf"]
    h = registry.get_heuristic("davi", registry.get_puzzle("cube3"))
    assert h.name == CUBE3
    assert curve_label("davi", {"device": "cpu"}, h) == CUBE3  # where it evaluates is no name
    assert curve_label("davi", {"model": "cube3"}, h) == "value-net (diffusion, model cube3)"
