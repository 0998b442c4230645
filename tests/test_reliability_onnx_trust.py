"""Hostile ONNX models, built here with ``onnx.helper``: weights kept in an external data file
are part of the model's digest; a network whose output is not the shape its card and graph
declare is an error; a network that never returns (a Loop of 2^62 trips) is stopped by the
deadlines of loading, of ``bench solve --time-limit``, of a run's preparation and of the
viewer's replays."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402

from bench import runner  # noqa: E402
from core import registry  # noqa: E402
from core.errors import InputError  # noqa: E402

CARD = {"puzzle": "puzzle8", "encoding": "state", "input": "codes", "output": "value",
        "search": {"solver": "bwas"}}


def _save(model, path: Path, external: bool = False, puzzle: str = "puzzle8") -> Path:
    model.ir_version = 8
    onnx.checker.check_model(model)
    if external:
        onnx.save_model(model, str(path), save_as_external_data=True,
                        all_tensors_to_one_file=True, location=path.name + ".data",
                        size_threshold=0)
    else:
        onnx.save_model(model, str(path))
    card = {**CARD, "puzzle": puzzle}
    path.with_name(path.name.removesuffix(".onnx") + ".card.json").write_text(json.dumps(card))
    return path


def linear_model(path: Path, weights: np.ndarray, external: bool = True) -> Path:
    """``y = x @ w``: a (batch, 9) state to a (batch, 1) value, ``w`` in an external file."""
    w = numpy_helper.from_array(weights.astype(np.float32).reshape(9, 1), "w")
    g = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["xf"], to=T.FLOAT),
         helper.make_node("MatMul", ["xf", "w"], ["y"])], "linear",
        [helper.make_tensor_value_info("x", T.INT64, ["batch", 9])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 1])], [w])
    return _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path,
                 external)


def wide_model(path: Path) -> Path:
    """Declares ``[batch, 1]`` and returns the (batch, 9) state itself, as floats minus its
    goal (0 at the goal: the goal check alone does not see it)."""
    g = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["xf"], to=T.FLOAT),
         helper.make_node("Sub", ["xf", "goal"], ["y"])], "wide",
        [helper.make_tensor_value_info("x", T.INT64, ["batch", 9])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 1])],
        [helper.make_tensor("goal", T.FLOAT, [9], [1, 2, 3, 4, 5, 6, 7, 8, 0])])
    return _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def loop_model(path: Path, puzzle: str = "puzzle8", width: int = 9) -> Path:
    """A value network that never returns: a Loop of 2^62 trips around its (zero) output."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Add", ["acc_in", "zero_b"], ["acc_out"])], "body",
        [helper.make_tensor_value_info("i", T.INT64, []),
         helper.make_tensor_value_info("c_in", T.BOOL, []),
         helper.make_tensor_value_info("acc_in", T.FLOAT, None)],
        [helper.make_tensor_value_info("c_out", T.BOOL, []),
         helper.make_tensor_value_info("acc_out", T.FLOAT, None)],
        [helper.make_tensor("zero_b", T.FLOAT, [], [0.0])])
    g = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["xf"], to=T.FLOAT),
         helper.make_node("ReduceSum", ["xf", "axes"], ["s"], keepdims=1),
         helper.make_node("Mul", ["s", "zero"], ["z"]),
         helper.make_node("Loop", ["trips", "cond", "z"], ["y"], body=body)], "loop",
        [helper.make_tensor_value_info("x", T.INT64, ["batch", width])],
        [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 1])],
        [helper.make_tensor("trips", T.INT64, [], [2**62]),
         helper.make_tensor("cond", T.BOOL, [], [True]),
         helper.make_tensor("zero", T.FLOAT, [], [0.0]),
         helper.make_tensor("axes", T.INT64, [1], [1])])
    return _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path,
                 puzzle=puzzle)


def _one_line(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


def test_external_weights_are_part_of_the_model_digest(tmp_path):
    model = linear_model(tmp_path / "m.onnx", np.zeros(9))
    data = tmp_path / "m.onnx.data"
    assert data.is_file()
    before = runner.model_digest("puzzle8", "onnx", {"model": str(model)})
    h = registry.get_heuristic("onnx", registry.get_puzzle("puzzle8"), model=str(model))
    state = np.array([[1, 2, 3, 4, 5, 6, 7, 0, 8]])
    assert h(state)[0] == 0.0
    # other weights in the data file, the .onnx file unchanged: another network
    linear_model(tmp_path / "other.onnx", np.eye(9)[8])  # the last cell's value: 0 at the goal
    data.write_bytes((tmp_path / "other.onnx.data").read_bytes())
    after = runner.model_digest("puzzle8", "onnx", {"model": str(model)})
    assert before and after and before != after
    h2 = registry.get_heuristic("onnx", registry.get_puzzle("puzzle8"), model=str(model))
    assert h2(state)[0] == 8.0  # the digest follows what the network does


def test_an_output_wider_than_declared_is_an_error(tmp_path, capsys):
    model = wide_model(tmp_path / "wide.onnx")
    code, out, err = run_cli(capsys, "h", "puzzle8", "onnx", "--model", str(model),
                             "1 2 3 4 5 6 7 0 8")
    _one_line(code, err, "--model", "output of shape [1, 9] for 1 states", "needs [1] or [1, 1]")
    assert out == ""


def test_solve_with_a_network_that_never_returns_keeps_its_time_limit(tmp_path, capsys):
    model = loop_model(tmp_path / "loop.onnx")
    registry.get_puzzle("puzzle8")  # imports outside the timed call
    t0 = time.monotonic()
    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                             "onnx", "--model", str(model), "--solver", "bwas",
                             "--time-limit", "2")
    elapsed = time.monotonic() - t0
    _one_line(code, err, "--model", "did not return within the time allowed")
    assert elapsed < 2 + 1.5, elapsed


def test_preparing_a_network_that_never_returns_is_stopped(tmp_path):
    from bench.run_worker import prepare_task

    model = loop_model(tmp_path / "loop.onnx")
    payload = {"puzzle": "puzzle8", "goal": None, "heuristic": "onnx",
               "heuristic_args": {"model": str(model)}, "solver": "bwas", "solver_args": {},
               "state": [1, 2, 3, 4, 5, 6, 7, 0, 8], "limits": {"time_s": 1.0}, "seed": 0}
    t0 = time.monotonic()
    with pytest.raises(InputError, match="did not return within the time allowed"):
        prepare_task(payload)
    assert time.monotonic() - t0 < 1 + 1.0


def _viewer_run(tmp_path: Path, model: Path, detour: int = 0, puzzle: str = "puzzle8") -> Path:
    """A run folder of one solved row (the state ``U L`` makes, solved by its inverse after
    ``detour`` back-and-forth pairs) whose configuration's heuristic is ``model``."""
    p = registry.get_puzzle(puzzle)
    scramble = p.parse_moves("U L")
    start = p.from_moves(scramble)
    solution = [p.inverse_action(a) for a in reversed(scramble)]
    actions = [solution[0], p.inverse_action(solution[0])] * detour + solution
    assert p.check_solution(start, actions)
    moves = p.format_moves(actions)
    run = tmp_path / "run"
    run.mkdir()
    row = {"key": "s/1/net", "suite": "hostile", "instance_set": "s", "instance": "1",
           "config": "net", "puzzle": puzzle, "goal": None, "heuristic": "onnx",
           "solver": "bwas", "params": json.dumps({"h.model": str(model)}), "status": "solved",
           "actions": moves, "length": len(actions), "nodes_generated": 3, "nodes_expanded": 1,
           "iterations": 1, "time_s": 0.1, "state": " ".join(str(int(v)) for v in start),
           "lower_bound": 2, "lower_bound_from": "manhattan", "optimal": 2,
           "optimal_source": "breadth-first search"}
    (run / "rows.jsonl").write_text(json.dumps(row) + "\n")
    return run


def test_the_viewer_stops_a_network_that_never_returns(tmp_path, monkeypatch):
    from bench.view import server
    from bench.view.sources import RunSource

    monkeypatch.setattr(server, "REPLAY_EVAL_S", 1.0)
    # the 15-puzzle: no distance table to load, the replay's time is the network's
    run = _viewer_run(tmp_path, loop_model(tmp_path / "loop.onnx", "puzzle15", 16),
                      puzzle="puzzle15")
    client = server.create_app(RunSource(run), run).test_client()
    t0 = time.monotonic()
    r = client.get("/api/replay", query_string={"key": "s/1/net"})
    assert time.monotonic() - t0 < 1 + 1.5
    assert r.status_code == 200 and r.json["reaches_goal"]
    (why,) = [u["reason"] for u in r.json["unavailable"] if u["label"].startswith("onnx")]
    assert "did not return within the time allowed" in why


def test_the_viewer_refuses_a_path_above_its_maximum(tmp_path):
    from bench.view import server
    from bench.view.replay import MAX_MOVES
    from bench.view.sources import RunSource

    model = linear_model(tmp_path / "m.onnx", np.zeros(9))
    # moves that reach the goal, just above the maximum (a path of any length above it is
    # refused before its moves are read)
    run = _viewer_run(tmp_path, model, detour=MAX_MOVES // 2 + 1)
    client = server.create_app(RunSource(run), run).test_client()
    t0 = time.monotonic()
    r = client.get("/api/replay", query_string={"key": "s/1/net"})
    assert time.monotonic() - t0 < 2.0
    assert r.status_code == 422 and len(r.data) < 1000
    assert f"the path has {MAX_MOVES + 4:,} moves; the viewer replays at most {MAX_MOVES:,}" \
        in r.json["error"]
