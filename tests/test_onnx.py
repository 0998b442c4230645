"""The ``onnx`` heuristic and ``bench models export``: tiny networks exported with torch, read by
onnxruntime; estimates and search paths equal torch's; every fault of a model or its card one
line (exit 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from core import registry
from core.capabilities import Policy
from core.errors import InputError
from core.limits import Limits
from heuristics.base import Heuristic
from learning.train_config import TrainConfig
from learning.trainer import Trainer
from tests.cli_run import run_cli

pytest.importorskip("onnxruntime")

TINY = {"preset": "tiny", "batch": 64, "k_max": 6, "check_every": 1000, "eval_per_depth": 2,
        "eval_depths": 1}


def _train(out: Path, puzzle: str, target: str) -> Path:
    torch.set_num_threads(1)
    Trainer(TrainConfig(puzzle=puzzle, target=target, **TINY), out, progress=False).train(3)
    return out


@pytest.fixture(scope="module")
def value_model(tmp_path_factory):
    """A tiny cube2 value network, its run folder and its ONNX export."""
    from heuristics.onnx_export import export_onnx

    run = _train(tmp_path_factory.mktemp("value") / "cube2-tiny", "cube2", "davi")
    onnx_path, card, check = export_onnx(str(run), tmp_path_factory.mktemp("value-onnx"))
    assert check["max_abs_diff"] < 1e-4
    return run, onnx_path


@pytest.fixture(scope="module")
def policy_model(tmp_path_factory):
    """A tiny 8-puzzle policy (moves off the board are illegal), exported."""
    from heuristics.onnx_export import export_onnx

    run = _train(tmp_path_factory.mktemp("policy") / "puzzle8-policy", "puzzle8", "policy")
    onnx_path, _, _ = export_onnx(str(run), tmp_path_factory.mktemp("policy-onnx"))
    return run, onnx_path


def _states(puzzle, n=64, depth=12, seed=0):
    return puzzle.scramble(n, depth, np.random.default_rng(seed))[0]


def test_exported_estimates_equal_torch_and_the_card_is_complete(value_model):
    run, onnx_path = value_model
    card = json.loads(onnx_path.with_name("cube2-tiny.card.json").read_text())
    assert card["puzzle"] == "cube2" and card["encoding"] == "onehot-stickers"
    assert card["input"] == "codes" and card["output"] == "value"
    assert card["search"]["solver"] == "beam" and card["search"]["width"] == 256
    assert card["source"]["model"] == "cube2-tiny" and card["source"]["target"] == "davi"
    puzzle = registry.get_puzzle("cube2")
    ref = registry.get_heuristic("davi", puzzle, model=str(run))
    h = registry.get_heuristic("onnx", puzzle, model=str(onnx_path))
    states = np.concatenate([puzzle.goal()[None, :], _states(puzzle, 300)])
    want, got = ref(states), h(states)
    assert got.dtype == np.float32 and got[0] == 0.0
    assert np.abs(got - want).max() < 1e-4
    assert h.network_evaluations == len(states)
    h.chunk = 7  # passes of any size give the same values
    assert np.abs(h(states) - got).max() < 1e-5


@pytest.mark.parametrize("solver, args", [("beam", {"width": 32}), ("bwas", {"batch": 20})])
def test_exported_model_finds_the_same_paths(value_model, solver, args):
    run, onnx_path = value_model
    puzzle = registry.get_puzzle("cube2")
    ref = registry.get_heuristic("davi", puzzle, model=str(run))
    h = registry.get_heuristic("onnx", puzzle, model=str(onnx_path))
    s = registry.get_solver(solver, **args)
    for start in _states(puzzle, 4, 7, seed=3):
        a = s.run(puzzle, ref, start, Limits(time_s=60))
        b = s.run(puzzle, h, start, Limits(time_s=60))
        assert a.status == b.status and a.actions == b.actions
        assert a.nodes_generated == b.nodes_generated


def test_an_exported_policy_ranks_moves_as_torch_does(policy_model):
    run, onnx_path = policy_model
    puzzle = registry.get_puzzle("puzzle8")
    ref = registry.get_heuristic("policy", puzzle, model=str(run))
    h = registry.get_heuristic("onnx", puzzle, model=str(onnx_path))
    assert isinstance(h, Policy) and not isinstance(h, Heuristic)  # a policy, not a heuristic
    states = _states(puzzle, 50, 10)
    want, got = ref.log_probs(states), h.log_probs(states)
    assert np.array_equal(np.isinf(want), np.isinf(got))  # moves off the board: -inf
    ok = np.isfinite(want)
    assert np.abs(got[ok] - want[ok]).max() < 1e-4
    beam = registry.get_solver("beam", width=16)
    for start in states[:3]:
        assert beam.run(puzzle, ref, start).actions == beam.run(puzzle, h, start).actions
    assert not callable(h)  # no values to ask for
    with pytest.raises(InputError, match="ranks moves and gives no distance estimate"):
        registry.get_solver("bwas").run(puzzle, h, states[0])


def _copy(onnx_path: Path, tmp_path: Path, **card_changes) -> Path:
    dst = tmp_path / "m.onnx"
    shutil.copy(onnx_path, dst)
    card = json.loads(onnx_path.with_name(onnx_path.stem + ".card.json").read_text())
    for k, v in card_changes.items():
        if v is None:
            card.pop(k)
        else:
            card[k] = v
    (tmp_path / "m.card.json").write_text(json.dumps(card))
    return dst


def _solve_err(capsys, *args):
    code, out, err = run_cli(capsys, "solve", *args)
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    return lines[-1]


def test_faults_are_one_line(value_model, policy_model, tmp_path, capsys):
    _, onnx_path = value_model
    base = ("cube2", "--scramble", "R U", "--heuristic", "onnx")
    assert _solve_err(capsys, *base) .startswith("error: --model: the onnx heuristic needs")
    assert _solve_err(capsys, *base, "--model", str(tmp_path / "none.onnx")) == \
        f"error: --model: {tmp_path / 'none.onnx'}: no such ONNX file"
    (tmp_path / "nocard").mkdir()
    shutil.copy(onnx_path, tmp_path / "nocard" / "x.onnx")
    assert "has no card (x.card.json beside it" in _solve_err(
        capsys, *base, "--model", str(tmp_path / "nocard"))
    cases = [
        ({"search": None}, "lacks search"),
        ({"output": "q-values"}, "output must be value, policy or q, got 'q-values'"),
        ({"puzzle": "cube3"}, "is a model for cube3, not for cube2"),
        ({"encoding": "sparkly"}, "unknown encoding 'sparkly' for cube2; known: onehot-stickers"),
        ({"input": "one-hot", "symbols": 6}, "input shape ['batch', 24] does not fit cube2: "
                                             "expected [batch, 144]"),
        ({"output": "policy", "search": {"solver": "beam"}},
         "output shape ['batch'] does not fit its card's policy"),
        ({"search": {"solver": "beam", "width": 0}}, "search: --width: must be >= 1, got 0"),
        ({"goal_tolerance": 0.0, "goal_estimate": None}, "estimates cube2's goal at"),
        ({"target": 7}, "target must name what the network was trained on, got 7"),
    ]
    for i, (change, message) in enumerate(cases):
        d = tmp_path / f"case{i}"
        d.mkdir()
        model = _copy(onnx_path, d, **change)
        line = _solve_err(capsys, *base, "--model", str(model), "--solver", "beam")
        assert line.startswith("error: --model: ") and message in line, (change, line)
    (tmp_path / "junk").mkdir()
    junk = _copy(onnx_path, tmp_path / "junk")
    junk.write_bytes(b"not a model")
    assert "is not a model onnxruntime can load" in _solve_err(capsys, *base, "--model",
                                                                str(junk))
    _, policy = policy_model
    line = _solve_err(capsys, "puzzle8", "--scramble", "L U", "--heuristic", "onnx", "--model",
                      str(policy), "--solver", "astar")
    assert "ranks moves" in line or "is a policy" in line
    line = _solve_err(capsys, *base, "--model", str(onnx_path), "--device", "cuda")
    assert line == "error: --device: expected auto or cpu, got 'cuda'"


def test_fixed_batch_models_are_refused(tmp_path):
    class Net(torch.nn.Module):
        def forward(self, codes):
            return codes.float().sum(dim=1) * 0.0

    path = tmp_path / "fixed.onnx"
    torch.onnx.export(Net().eval(), (torch.zeros(5, 24, dtype=torch.int64),), str(path), dynamo=True,
                      input_names=["codes"], output_names=["value"])
    (tmp_path / "fixed.card.json").write_text(json.dumps(
        {"puzzle": "cube2", "encoding": "onehot-stickers", "input": "codes", "output": "value",
         "search": {"solver": "bwas"}}))
    with pytest.raises(InputError, match="the batch dimension is fixed at 5"):
        registry.get_heuristic("onnx", registry.get_puzzle("cube2"), model=str(path))


def test_a_plugin_encoding_feeds_the_model(value_model, tmp_path, monkeypatch):
    """A card may name an encoding an installed plugin declares (heuristic_bench.encodings)."""
    _, onnx_path = value_model
    seen = []

    class EP:
        value = "somewhere:codes"

        def load(self):
            def codes(puzzle, states):
                seen.append(len(states))
                return puzzle.encode(states)
            return codes

    monkeypatch.setitem(registry.PLUGINS.encodings, "my-stickers", EP())
    model = _copy(onnx_path, tmp_path, encoding="my-stickers")
    puzzle = registry.get_puzzle("cube2")
    h = registry.get_heuristic("onnx", puzzle, model=str(model))
    ref = registry.get_heuristic("onnx", puzzle, model=str(onnx_path))
    states = _states(puzzle, 20)
    assert np.array_equal(h(states), ref(states)) and 20 in seen


def test_export_command_and_the_recommended_search(value_model, tmp_path, capsys):
    run, _ = value_model
    code, out, err = run_cli(capsys, "models", "export", str(run), "--format", "onnx", "--out",
                             str(tmp_path / "x"))
    assert code == 0, err
    assert "onnxruntime agrees with torch within" in out
    model = tmp_path / "x" / "cube2-tiny.onnx"
    assert model.is_file() and (tmp_path / "x" / "cube2-tiny.card.json").is_file()
    code, out, err = run_cli(capsys, "models", "export", str(run), "--out", str(tmp_path / "x"))
    assert code == 2 and "exists (give --force to replace it)" in err
    code, out, err = run_cli(capsys, "solve", "cube2", "--scramble", "R U F'", "--heuristic",
                             "onnx", "--model", str(model), "--json")
    assert code == 0, err
    assert "solver: beam --width 256 (the model's recommended search)" in err
    assert json.loads(out)["status"] == "solved"
