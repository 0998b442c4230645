"""Training Q-networks (:mod:`learning.targets.q`): each target's numbers against an independent
computation, a short run whose loss falls and whose checkpoint loads as the ``qnet`` heuristic
and resumes, and the refusals between value networks, policies and Q-networks."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.status import Status

torch = pytest.importorskip("torch")

from learning.train_config import TrainConfig  # noqa: E402
from learning.trainer import Trainer  # noqa: E402
from tests.test_davi_cli import bench  # noqa: E402

TINY = dict(preset="mlp-tiny", batch=64, k_max=8, check_every=10, eval_per_depth=4,
            eval_depths=2)


def _trainer(tmp_path, target: str, **kw) -> Trainer:
    torch.manual_seed(0)
    cfg = TrainConfig(puzzle="puzzle8", target=target, **{**TINY, **kw})
    return Trainer(cfg, tmp_path / target, progress=False)


def test_distillation_targets_are_move_cost_plus_the_teachers_child_values(tmp_path):
    from heuristics.value_net import ValueNetHeuristic

    t = _trainer(tmp_path, "q-distill")
    b = t.make_batch(0)
    y = t.objective.targets(t, b).numpy()
    p8 = t.puzzle
    teacher = ValueNetHeuristic(p8)  # the shipped puzzle8 network: the default teacher
    children = b.children.numpy()
    n, a, length = children.shape
    v = teacher(children.reshape(n * a, length)).reshape(n, a)  # 0 at goals, clipped at 0
    valid = b.valid.numpy()
    np.testing.assert_allclose(y[valid], 1.0 + v[valid], rtol=1e-5, atol=1e-5)
    assert y.shape == (n, p8.num_actions)
    assert t.cfg.extra["teacher_sha256"]


def test_q_learning_targets_from_the_target_network(tmp_path):
    t = _trainer(tmp_path, "q-learning")
    b = t.make_batch(0)
    y0 = t.objective.targets(t, b)
    assert torch.all(y0[b.valid] == 1.0)  # no target network yet: Q_target = 0
    t.train(3)
    t.set_target()
    y = t.objective.targets(t, b).numpy()
    p8 = t.puzzle
    children = b.children.numpy()
    n, a, length = children.shape
    flat = children.reshape(n * a, length)
    t.target.eval()
    with torch.no_grad():
        q = t.target(torch.as_tensor(p8.encode(flat))).double().numpy().reshape(n * a, a)
    _, legal = p8.expand(flat)
    q[~legal] = np.inf
    want = 1.0 + np.maximum(q.min(axis=1), 0.0)
    want[p8.is_goal(flat)] = 1.0
    want = want.reshape(n, a)
    valid = b.valid.numpy()
    np.testing.assert_allclose(y[valid], want[valid], rtol=1e-4, atol=1e-4)


def test_walk_length_targets_train_the_move_that_undoes_the_walk(tmp_path):
    t = _trainer(tmp_path, "q-diffusion")
    b = t.make_batch(0)
    y = t.objective.targets(t, b)
    p8 = t.puzzle
    states, labels = b.states.numpy(), b.labels.numpy()
    depths = b.depths.numpy()
    # the label undoes the last move: one move scramble -> the goal
    mask = b.valid.numpy()
    assert (mask.sum(axis=1) == 1).all() and (mask.argmax(axis=1) == labels).all()
    assert np.array_equal(y.numpy()[np.arange(len(labels)), labels], depths.astype(np.float32))
    one = np.flatnonzero(depths == 1)
    assert one.size
    assert p8.is_goal(p8.apply(states[one], labels[one])).all()


def test_a_short_distillation_run_lowers_its_loss_saves_loads_and_resumes(tmp_path):
    from heuristics.q_net import QNetHeuristic

    torch.set_num_threads(1)
    t = _trainer(tmp_path, "q-distill", lr=3e-3)
    t.train(40)
    with open(tmp_path / "q-distill" / "log.csv") as f:
        losses = [float(r["loss"]) for r in csv.DictReader(f)]
    assert len(losses) == 4 and losses[-1] < 0.5 * losses[0]
    p8 = registry.get_puzzle("puzzle8")
    h = registry.get_heuristic("qnet", p8, model=str(tmp_path / "q-distill"))
    assert isinstance(h, QNetHeuristic) and h.trained_target == "q-distill"
    rng = np.random.default_rng(1)
    states, _ = p8.scramble(16, 6, rng)
    q = h.q_values(states)
    _, legal = p8.expand(states)
    assert q.shape == (16, 4) and np.isinf(q[~legal]).all() and (q[legal] >= 1.0).all()
    assert np.allclose(h(states), np.where(p8.is_goal(states), 0.0, q.min(axis=1)), atol=1e-6)
    near, _ = p8.scramble(3, 1, rng)
    for s in near:
        r = registry.get_solver("qstar", batch=8).run(p8, h, s)
        assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
        assert r.network_evaluations == r.nodes_expanded
    from bench.evaluate import model_heuristic

    assert model_heuristic("puzzle8", str(tmp_path / "q-distill")) == "qnet"
    again = Trainer.resume(tmp_path / "q-distill", progress=False)
    assert again.iteration == 40 and again.cfg.target == "q-distill"
    again.train(2)
    assert again.iteration == 42


def test_value_policy_and_q_networks_refuse_each_others_models(tmp_path):
    from heuristics.policy_net import PolicyNet
    from heuristics.q_net import QNetHeuristic
    from heuristics.value_net import ValueNetHeuristic

    t = _trainer(tmp_path, "q-learning")
    t.train(1)
    p8 = t.puzzle
    with pytest.raises(InputError, match="Q-network"):
        ValueNetHeuristic(p8, model=str(tmp_path / "q-learning"))
    with pytest.raises(InputError, match="--heuristic qnet"):
        PolicyNet(p8, model=str(tmp_path / "q-learning"))
    with pytest.raises(InputError, match="no shipped Q-network"):
        QNetHeuristic(p8)  # no shipped Q-network: the message says how to train one
    with pytest.raises(InputError, match="not a Q-network"):
        QNetHeuristic(p8, model="puzzle8")  # the shipped value network


def test_teacher_option_applies_to_distillation_only(tmp_path):
    with pytest.raises(InputError, match="--teacher"):
        TrainConfig(puzzle="puzzle8", target="davi", teacher="puzzle8").resolved()
    r = bench("train", "q-distill", "puzzle8", "--teacher", str(tmp_path / "none"),
              "--iterations", "1", "--out", str(tmp_path / "run"), "--quiet")
    assert r.returncode == 2 and "--teacher" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_q_network_exported_to_onnx_gives_the_same_move_values(tmp_path):
    pytest.importorskip("onnxruntime")
    import json

    from core.capabilities import Policy, QValues
    from heuristics.onnx import OnnxQNet, load_onnx
    from heuristics.onnx_export import export_onnx
    from heuristics.q_net import QNetHeuristic
    from solvers.beam import BeamSearch

    t = _trainer(tmp_path, "q-learning")
    t.train(3)
    onnx_path, card, figures = export_onnx(str(tmp_path / "q-learning"), tmp_path / "onnx",
                                           check_states=16)
    meta = json.loads(card.read_text())
    assert meta["output"] == "q" and meta["search"]["solver"] == "qbeam"
    p8 = t.puzzle
    torch_q = QNetHeuristic(p8, model=str(tmp_path / "q-learning"))
    onnx_q = load_onnx(p8, model=str(onnx_path))
    assert isinstance(onnx_q, OnnxQNet) and isinstance(onnx_q, QValues)
    assert not isinstance(onnx_q, Policy)
    rng = np.random.default_rng(5)
    states, _ = p8.scramble(32, 10, rng)
    a, b = torch_q.q_values(states), onnx_q.q_values(states)
    assert np.array_equal(np.isinf(a), np.isinf(b))
    np.testing.assert_allclose(b[np.isfinite(b)], a[np.isfinite(a)], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(onnx_q(states), torch_q(states), rtol=1e-4, atol=1e-4)
    near, _ = p8.scramble(2, 1, rng)
    for s in near:
        r = BeamSearch(q=True, width=8).run(p8, onnx_q, s)
        assert r.status == Status.SOLVED and p8.check_solution(s, r.actions)
        assert r.network_evaluations == r.nodes_expanded
    # from the command line: the card says Q-network, so the Q searches take it
    res = bench("solve", "puzzle8", "--scramble", "U", "--heuristic", "onnx", "--model",
                str(onnx_path), "--solver", "qstar", "--json")
    assert res.returncode == 0, res.stderr
    row = json.loads(res.stdout[res.stdout.index("{"):])
    assert row["status"] == "solved" and row["network_evaluations"] == row["nodes_expanded"]
    # a value network's card does not
    value = _trainer(tmp_path, "davi")
    value.train(1)
    v_path, _, _ = export_onnx(str(tmp_path / "davi"), tmp_path / "onnx-v", check_states=8)
    res = bench("solve", "puzzle8", "--scramble", "U", "--heuristic", "onnx", "--model",
                str(v_path), "--solver", "qbeam")
    assert res.returncode == 2 and "Q-network" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


@pytest.mark.slow
def test_a_suite_runs_the_q_searches_and_deferred_bwas_with_replayed_rows(tmp_path):
    from bench import runner
    from bench.executor import InlineExecutor
    from suites.schema import load_suite

    t = _trainer(tmp_path, "q-learning")
    t.train(2)
    model = tmp_path / "q-learning"
    text = f"""
[suite]
name = "q-searches"
puzzle = "puzzle8"
description = "Q searches"

[limits]
time_s = 30

[[instances]]
name = "near"
source = "scramble"
depth = [2]
count = 2
seed = 3
optimal = "table"

[[configs]]
name = "qbeam"
heuristic = "qnet"
solver = "qbeam"
heuristic_args = {{ model = "{model}" }}
solver_args = {{ width = 16 }}

[[configs]]
name = "qstar"
heuristic = "qnet"
solver = "qstar"
heuristic_args = {{ model = "{model}" }}
solver_args = {{ batch = 8 }}

[[configs]]
name = "deferred"
heuristic = "manhattan"
solver = "bwas"
solver_args = {{ deferred = true, batch = 8 }}
"""
    path = tmp_path / "q.toml"
    path.write_text(text)
    plan = runner.plan_run(load_suite(path), "default")
    runner.run_plan(plan, tmp_path / "run", executor=InlineExecutor(), progress=False)
    df = runner.load_table(tmp_path / "run")
    assert len(df) == 6 and (df["status"] == "solved").all()
    assert (df["length"] >= df["optimal"]).all()
    q = df[df["solver"].isin(["qbeam", "qstar"])]
    assert (q["network_evaluations"] == q["nodes_expanded"]).all()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('heuristic = "manhattan"\nsolver = "bwas"',
                                'heuristic = "manhattan"\nsolver = "qstar"'))
    with pytest.raises(InputError, match="Q-network"):
        load_suite(bad)
