"""The example plugin, installed (``nox -s plugin``): the pancake puzzle, the gap heuristic and
enforced hill-climbing through the ``bench`` command line, a suite, and an ONNX model that reads
the plugin's own input encoding."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    importlib.metadata.distribution("bench-pancake")
except importlib.metadata.PackageNotFoundError:
    pytest.skip("bench-pancake is not installed (nox -s plugin installs it)",
                allow_module_level=True)

from bench_pancake.heuristic import GapHeuristic  # noqa: E402
from bench_pancake.puzzle import Pancake  # noqa: E402

SUITE = Path(__file__).resolve().parents[1] / "bench_pancake" / "pancake.toml"
STATE = "3 7 1 0 5 2 6 4"


def bench(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The installed ``bench`` command (the console script of this venv)."""
    exe = shutil.which("bench", path=os.path.dirname(sys.executable)) or "bench"
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def test_gap_heuristic_is_a_consistent_lower_bound():
    from suites.reference import bfs_distances

    p = Pancake(8)
    states = p.random_states(40, np.random.default_rng(1))
    h = GapHeuristic(p)
    assert np.all(h(states) <= bfs_distances(p, states))
    children, _ = p.expand(states)
    step = np.abs(h(children.reshape(-1, 8)).reshape(40, 7) - h(states)[:, None])
    assert step.max() <= 1  # consistent: one flip changes one adjacency
    assert h(p.goal()[None, :])[0] == 0


def test_listed_with_the_package_and_no_warning():
    for kind, name in (("puzzles", "pancake8"), ("heuristics", "pancake-gap"),
                       ("solvers", "hill-climb")):
        res = bench("list", kind)
        assert res.returncode == 0 and "warning" not in res.stderr, res.stderr
        line = next(x for x in res.stdout.splitlines() if x.startswith(name + " "))
        assert line.endswith("[plugin: bench-pancake]")
    res = bench("list", "puzzles")
    assert "40,320 states" in next(x for x in res.stdout.splitlines() if x.startswith("pancake8"))


def test_solved_by_bench_solve():
    from suites.reference import bfs_distances

    p = Pancake(8)
    optimum = int(bfs_distances(p, p.parse(STATE)[None, :])[0])
    res = bench("solve", "pancake8", STATE, "--heuristic", "pancake-gap", "--solver", "astar",
                "--json")
    assert res.returncode == 0, res.stderr
    rec = json.loads(res.stdout)
    assert rec["status"] == "solved" and rec["length"] == optimum
    assert p.check_solution(p.parse(STATE), rec["action_ids"])
    res = bench("solve", "pancake8", STATE, "--heuristic", "pancake-gap", "--plate", "false",
                "--solver", "hill-climb", "--max-plateau", "1000", "--json")
    rec = json.loads(res.stdout)
    assert rec["status"] == "solved" and rec["length"] >= optimum
    res = bench("solve", "pancake8", STATE, "--heuristic", "pancake-gap", "--solver",
                "hill-climb", "--max-plateau", "0")
    assert res.returncode == 2 and "error: --max-plateau: must be >= 1, got 0" in res.stderr
    res = bench("solve", "pancake8", "1 2 3", "--heuristic", "pancake-gap", "--solver", "astar")
    assert res.returncode == 2 and "STATE: expected each pancake size 0..7 once" in res.stderr


def test_the_suite_runs(tmp_path):
    out = tmp_path / "run"
    res = bench("run", "suite", str(SUITE), "--quick", "-q", "--no-figures", "--out", str(out))
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 4 * 3
    assert all(r["status"] == "solved" for r in rows)
    astar = [r for r in rows if r["config"] == "gap-astar"]
    assert all(r["length"] == r["optimal"] and r["lower_bound_from"] == "pancake-gap"
               for r in astar)


def _tiny_value_network(puzzle: Pancake, path: Path) -> None:
    """A small MLP over the plugin's encoding (each size's position, one-hot), exported as ONNX
    with its card; its last bias is shifted so that the goal's estimate is exactly 0."""
    import torch

    torch.manual_seed(0)
    n = puzzle.n
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(n * n, 32), torch.nn.ReLU(),
                              torch.nn.Linear(32, 1), torch.nn.Flatten(0))

    class Codes(torch.nn.Module):  # integer codes (B, n) -> one-hot inside the graph
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.register_buffer("eye", torch.eye(n))

        def forward(self, codes: torch.Tensor) -> torch.Tensor:
            return self.net(self.eye[codes])

    model = Codes().eval()
    from bench_pancake.encode import inverse_positions

    goal = torch.from_numpy(inverse_positions(puzzle, puzzle.goal()[None, :]))
    with torch.no_grad():
        net[3].bias -= model(goal)
        example = torch.cat([goal, goal])  # a batch of 1 would be fixed by the exporter
        torch.onnx.export(model.eval(), (example,), str(path), input_names=["codes"],
                          output_names=["value"], dynamic_shapes=({0: torch.export.Dim("batch")},),
                          dynamo=True)
    card = {"puzzle": puzzle.name, "encoding": "pancake-inverse", "input": "codes",
            "output": "value", "search": {"solver": "bwas", "weight": 0.5, "batch": 20}}
    path.with_suffix(".card.json").write_text(json.dumps(card))


def test_an_onnx_model_on_the_plugin_encoding_runs_in_a_suite(tmp_path):
    model = tmp_path / "pancake8-mlp.onnx"
    _tiny_value_network(Pancake(8), model)
    res = bench("solve", "pancake8", STATE, "--heuristic", "onnx", "--model", str(model),
                "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["status"] == "solved"
    assert "solver: bwas --weight 0.5 --batch 20 (the model's recommended search)" in res.stderr
    suite = tmp_path / "pancake-onnx.toml"
    suite.write_text(SUITE.read_text().replace(
        '[profiles.default]',
        f'[[configs]]\nname = "onnx-bwas"\nheuristic = "onnx"\n'
        f'heuristic_args = {{ model = "{model}" }}\nsolver = "bwas"\n'
        f'solver_args = {{ weight = 0.5, batch = 20 }}\n\n[profiles.default]'))
    out = tmp_path / "run"
    res = bench("run", "suite", str(suite), "--quick", "-q", "--no-figures", "--config",
                "onnx-bwas", "--config", "gap-astar", "--out", str(out))
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()]
    onnx_rows = [r for r in rows if r["config"] == "onnx-bwas"]
    assert len(onnx_rows) == 4 and all(r["status"] == "solved" for r in onnx_rows)
    assert all(r["network_evaluations"] > 0 for r in onnx_rows)
