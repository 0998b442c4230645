"""Hostile files and values are one-line errors (exit 2), never tracebacks or huge allocations:
model files whose checksum holds but whose fields lie, oversize numbers in states, foreign runs
given to paper tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from cli_run import run_cli

from learning.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from learning.model_store import SHIPPED_DIR

BIG = "99999999999999999999"


def _hostile_model(tmp_path: Path, change) -> Path:
    ck = torch.load(SHIPPED_DIR / "puzzle8" / "model.pt", weights_only=True)
    ck = {k: v for k, v in ck.items() if k not in ("format", "version", "weights_sha256",
                                                   "content_sha256")}
    ck["model_config"] = dict(ck["model_config"])
    change(ck)
    folder = tmp_path / "m"
    folder.mkdir()
    save_checkpoint(folder / "model.pt", ck)  # a valid checksum over lying fields
    return folder


@pytest.mark.parametrize("change,words", [
    (lambda ck: ck["model_config"].update(h1=-5), "h1 must be an integer"),
    (lambda ck: ck["model_config"].update(res_dim=0), "res_dim must be an integer"),
    (lambda ck: ck["model_config"].update(h1=100000, res_dim=100000, num_blocks=1000),
     "larger than any"),
    (lambda ck: ck["model_config"].update(num_blocks="2"), "num_blocks must be an integer"),
    (lambda ck: ck["model_config"].update(state_dim=10**9), "state_dim must be"),
    (lambda ck: ck["model_config"].update(arch="transformer"), "arch must be"),
    (lambda ck: ck["model_config"].update(batch_norm="yes"), "batch_norm"),
    (lambda ck: ck["model_config"].pop("state_dim"), "missing state_dim"),
    (lambda ck: ck.update(model_config=[512, 256]), "expected a table"),
    (lambda ck: ck.update(target="magic"), "target 'magic'"),
    (lambda ck: ck.update(puzzle=8), "puzzle is not a name"),
    (lambda ck: ck.update(state_dim=-1), "state_dim is not a count"),
    (lambda ck: ck.update(goal="abc"), "goal is not a list"),
    (lambda ck: ck.update(input_adapter=5), "input_adapter"),
    (lambda ck: ck.update(metrics=[1]), "metrics is not a table"),
    (lambda ck: ck["model_config"].update(outputs=5), "do not fit"),
])
def test_hostile_model_files_are_one_line_errors(change, words, tmp_path, capsys):
    folder = _hostile_model(tmp_path, change)
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "davi", "--solver", "beam", "--model", str(folder))
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("error: ") and words in err, err


def test_huge_model_sizes_are_refused_before_allocation(tmp_path, monkeypatch):
    from learning.networks.resnet import ResnetNet

    folder = _hostile_model(tmp_path, lambda ck: ck["model_config"].update(
        h1=100000, res_dim=100000, num_blocks=1000))

    def no_network(*a, **kw):
        raise AssertionError("a network was made from unchecked sizes")

    monkeypatch.setattr(ResnetNet, "__init__", no_network)
    with pytest.raises(CheckpointError, match="larger than any"):
        load_checkpoint(folder / "model.pt")


@pytest.mark.parametrize("text", ["hello world\n", "", json.dumps({"format": 1})])
def test_non_model_files_are_one_line_errors(text, tmp_path, capsys):
    bad = tmp_path / "model.pt"
    bad.write_text(text)
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "davi", "--solver", "beam", "--model", str(bad))
    assert code == 2 and "Traceback" not in err and "error: checkpoint" in err, err


@pytest.mark.parametrize("config,words", [
    ("[1, 2]", "not a JSON object"),
    ("{not json", "not readable JSON"),
    (json.dumps({"search": {"solver": 5}}), "unknown solver 5"),
])
def test_hostile_model_config_json_is_a_one_line_error(config, words, tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.pt").write_bytes((SHIPPED_DIR / "puzzle8" / "model.pt").read_bytes())
    (folder / "config.json").write_text(config)
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "davi", "--model", str(folder))
    assert code == 2 and "Traceback" not in err and words in err, err


# --------------------------------------------------------------------------- states
@pytest.mark.parametrize("command", [["show", "puzzle8"], ["h", "puzzle8", "manhattan"],
                                     ["solve", "puzzle8", "--heuristic", "manhattan"]])
@pytest.mark.parametrize("first", [BIG, "-" + BIG, "9" * 400])
def test_oversize_integers_in_states_are_one_line_errors(command, first, capsys):
    state = ",".join(["1", first, "2", "3", "4", "5", "6", "7", "8"])
    code, _, err = run_cli(capsys, *command, state)
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1, err
    assert "out of range" in err and len(err) < 300, err


# --------------------------------------------------------------------------- paper tables
def test_phipat2020_refuses_a_foreign_run_before_searching(tmp_path, monkeypatch):
    from bench import papers
    from bench.papers import phipat2020
    from core.errors import InputError

    run = tmp_path / "foreign"
    run.mkdir()
    (run / "rows.jsonl").write_text(json.dumps({"key": "s/1/c", "suite": "other",
                                                "config": "c", "status": "solved",
                                                "length": 1}) + "\n")

    def searched(*a, **kw):
        raise AssertionError("searched before the run was checked")

    monkeypatch.setattr(phipat2020, "_test_states", searched)
    with pytest.raises(InputError, match="--run: .* no IDA\\* rows"):
        papers.make("phipat2020", run_dir=[run], out=tmp_path / "out", command="bench paper")
    with pytest.raises(InputError, match="--run: .*not a folder"):
        papers.make("phipat2020", run_dir=[tmp_path / "none"], out=tmp_path / "out",
                   command="bench paper")


# --------------------------------------------------------------------------- multi-goal trees
def test_a_tree_whose_stored_path_is_wrong_is_a_one_line_error(tmp_path, capsys):
    import shutil

    folder = tmp_path / "tree"
    code, _, err = run_cli(capsys, "train", "multigoal", "cube2", "--children", "2", "--height",
                           "1", "--step", "3", "--iterations", "6", "--preset", "tiny",
                           "--batch", "16", "--k-max", "4", "--threads", "1", "--out",
                           str(folder), "--quiet")
    assert code == 0, err
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    tree = json.loads((bad / "tree.json").read_text())
    tree["paths"][1] = tree["paths"][1][:-1]  # one move short of the final goal
    (bad / "tree.json").write_text(json.dumps(tree))
    code, _, err = run_cli(capsys, "solve", "cube2", "--scramble", "R U F", "--heuristic",
                           "davi-multigoal", "--model", str(bad))
    assert code == 2 and "Traceback" not in err, err
    assert "stored path of goal 1 does not lead to the final goal" in err, err
