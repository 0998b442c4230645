"""Learned heuristics: network, DAVI targets, training, checkpoints, the batch heuristic.

Runs on a toy 3x3 Lights Out (tests/davi_toy.py) with tiny networks, so it needs no other puzzle.
"""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
import torch
from davi_toy import ToyLights, exact_distances

from core.errors import InputError
from heuristics.value_net import ValueNetHeuristic
from learning.checkpoint import CheckpointError, load_checkpoint, weights_digest
from learning.data import make_batch, random_walks
from learning.devices import num_parameters, parameter_bytes
from learning.model_config import ModelConfig
from learning.monitoring import greedy_rollout
from learning.networks import build_network
from learning.targets.davi import bellman_targets
from learning.train_config import TrainConfig
from learning.trainer import Trainer


@pytest.fixture(scope="module")
def toy() -> ToyLights:
    return ToyLights(3)


@pytest.fixture(scope="module")
def toy_dist(toy):
    d = exact_distances(toy)
    states = np.array([np.frombuffer(k, dtype=np.uint8) for k in d])
    return states, np.array(list(d.values()))


def _cfg(toy, **kw) -> TrainConfig:
    base = dict(puzzle=toy.name, preset="tiny", batch=128, lr=3e-3, lr_decay=1.0, k_max=12,
                epsilon=0.05, check_every=10, eval_per_depth=8, eval_depths=3)
    return TrainConfig(**{**base, **kw})


# --------------------------------------------------------------------------- targets and data
def _naive_targets(values, valid, child_goal, is_goal):
    out = []
    for i in range(values.shape[0]):
        if is_goal[i]:
            out.append(0.0)
            continue
        best = math.inf
        for a in range(values.shape[1]):
            if not valid[i, a]:
                continue
            j = 0.0 if child_goal[i, a] else max(float(values[i, a]), 0.0)
            best = min(best, 1.0 + j)
        out.append(best)
    return np.array(out)


@pytest.mark.nojit
def test_bellman_targets_match_naive_loop():
    rng = np.random.default_rng(1)
    b, a = 200, 5
    values = rng.normal(3.0, 3.0, size=(b, a)).astype(np.float32)
    valid = rng.random((b, a)) < 0.7
    valid[np.arange(b), rng.integers(0, a, b)] = True  # at least one legal move
    child_goal = rng.random((b, a)) < 0.1
    is_goal = rng.random(b) < 0.05
    got = bellman_targets(values, valid, child_goal, is_goal).numpy()
    np.testing.assert_allclose(got, _naive_targets(values, valid, child_goal, is_goal), rtol=1e-6)


@pytest.mark.nojit
def test_random_walks_respect_depths(toy, toy_dist):
    states, dist = toy_dist
    lookup = {s.tobytes(): int(d) for s, d in zip(states, dist, strict=True)}
    rng = np.random.default_rng(0)
    depths = rng.integers(1, 8, size=300)
    walked = random_walks(toy, depths, rng)
    d = np.array([lookup[s.tobytes()] for s in walked])
    assert np.all(d <= depths)
    assert np.all(d[depths == 1] == 1)
    # no walk undoes its previous move, so two-move walks never return to the goal
    two = random_walks(toy, np.full(100, 2), rng)
    assert not toy.is_goal(two).any()


@pytest.mark.nojit
def test_batches_are_a_function_of_seed_and_iteration(toy):
    a = make_batch(toy, 7, seed=3, batch=64, k_max=9, with_children=True)
    b = make_batch(toy, 7, seed=3, batch=64, k_max=9, with_children=True)
    c = make_batch(toy, 8, seed=3, batch=64, k_max=9, with_children=True)
    assert np.array_equal(a.states, b.states) and np.array_equal(a.depths, b.depths)
    assert not np.array_equal(a.states, c.states)
    assert a.children.shape == (64, toy.num_actions, toy.state_dim)
    np.testing.assert_array_equal(a.child_goal, toy.is_goal(a.children.reshape(-1, 9)).reshape(64, 9))


# --------------------------------------------------------------------------- network
def test_model_shapes_and_parameter_count():
    cfg = ModelConfig(state_dim=9, one_hot_depth=2, h1=20, res_dim=10, num_blocks=2)
    net = build_network(cfg).eval()
    out = net(torch.zeros(5, 9, dtype=torch.long))
    assert out.shape == (5,)
    linear = (18 * 20 + 20) + (20 * 10 + 10) + 2 * 2 * (10 * 10 + 10) + (10 + 1)
    bn = 2 * (20 + 10 + 2 * 2 * 10)
    assert num_parameters(net) == linear + bn
    buffers = 2 * (20 + 10 + 4 * 10) * 4 + 6 * 8  # running mean/var (float32), counters (int64)
    assert parameter_bytes(net) == (linear + bn) * 4 + buffers


def test_one_hot_input_matches_explicit_encoding():
    cfg = ModelConfig(state_dim=3, one_hot_depth=4, h1=8, res_dim=4, num_blocks=0)
    net = build_network(cfg)
    codes = torch.tensor([[0, 3, 1]])
    x = net.one_hot(codes)
    assert x.tolist() == [[1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0]]


# --------------------------------------------------------------------------- training
def test_davi_learns_exact_cost_to_go_on_small_depths(toy, toy_dist, tmp_path):
    torch.set_num_threads(1)
    cfg = _cfg(toy, k_max=6, batch=256, lr_decay=0.993, eval_per_depth=4, eval_depths=2)
    t = Trainer(cfg, tmp_path / "run", puzzle=toy, progress=False)
    t.train(400)
    assert t.target_updates >= 4
    h = ValueNetHeuristic(toy, model=tmp_path / "run")
    states, dist = toy_dist
    v = h(states)
    near = dist <= 3
    assert np.abs(v[near] - dist[near]).max() < 0.5, "DAVI did not learn the exact cost-to-go"
    # the logs hold what the report plots
    import pandas as pd

    log = pd.read_csv(tmp_path / "run" / "log.csv")
    assert list(log.columns) == ["iteration", "loss", "lr", "target_updates", "states_per_s", "seconds"]
    assert log["iteration"].iloc[-1] == 400 and log["target_updates"].is_monotonic_increasing
    depth = pd.read_csv(tmp_path / "run" / "depth_log.csv")
    assert list(depth.columns) == ["iteration", "depth", "mean_pred", "greedy_solved"]
    last = depth[depth["iteration"] == 400]
    assert last["greedy_solved"].iloc[0] == 1.0  # depth-1 scrambles are solved greedily


def test_resume_is_exact(toy, tmp_path):
    torch.set_num_threads(1)
    cfg = _cfg(toy, check_every=7, batch=64)
    whole = Trainer(cfg, tmp_path / "whole", puzzle=toy, progress=False)
    whole.train(30)
    part = Trainer(cfg, tmp_path / "part", puzzle=toy, progress=False)
    part.train(17)  # stops mid check-window
    again = Trainer.resume(tmp_path / "part", puzzle=toy, progress=False)
    assert again.iteration == 17
    again.train(13)
    assert again.iteration == whole.iteration == 30
    assert again.target_updates == whole.target_updates
    for (k, a), (_, b) in zip(whole.model.state_dict().items(), again.model.state_dict().items(),
                              strict=True):
        assert torch.equal(a, b), k
    sa, sb = whole.optimizer.state_dict()["state"], again.optimizer.state_dict()["state"]
    assert all(torch.equal(sa[i]["exp_avg"], sb[i]["exp_avg"]) for i in sa)


def test_polyak_and_diffusion_targets(toy, tmp_path):
    torch.set_num_threads(1)
    t = Trainer(_cfg(toy, polyak=0.05), tmp_path / "polyak", puzzle=toy, progress=False)
    t.train(20)
    assert t.target is not None and t.target_updates == 20
    d = Trainer(_cfg(toy, target="diffusion"), tmp_path / "diff", puzzle=toy, progress=False)
    b = make_batch(toy, 0, seed=0, batch=32, k_max=12, with_children=False)
    y = d.targets(b).numpy()
    np.testing.assert_array_equal(y, np.where(b.is_goal, 0, b.depths))
    d.train(60)
    h = ValueNetHeuristic(toy, model=tmp_path / "diff")
    assert h.name == "value-net (diffusion)" and h.trained_target == "diffusion"
    assert load_checkpoint(tmp_path / "diff" / "model.pt")["target"] == "diffusion"


def test_mixed_precision_training_runs(toy, tmp_path):
    torch.set_num_threads(1)
    t = Trainer(_cfg(toy, amp=True, epsilon=10.0), tmp_path / "amp", puzzle=toy, progress=False)
    t.train(20)  # two checks with a loose epsilon: targets come from a network under autocast
    assert t.target_updates == 2 and t.device.type == "cpu"
    assert all(p.dtype == torch.float32 for p in t.model.parameters())
    h = ValueNetHeuristic(toy, model=tmp_path / "amp")
    assert np.isfinite(h(toy.scramble(5, 3, np.random.default_rng(0))[0])).all()


def test_bad_training_options(toy, tmp_path):
    for kw, word in [({"batch": 1}, "--batch"), ({"k_max": 0}, "--k-max"), ({"lr": -1.0}, "--lr"),
                     ({"target": "nope"}, "target"), ({"polyak": 2.0}, "--polyak"),
                     ({"preset": "huge"}, "--preset")]:
        with pytest.raises(InputError, match=word):
            Trainer(_cfg(toy, **kw), tmp_path / "x", puzzle=toy, progress=False)


def test_greedy_rollout_with_exact_values(toy, toy_dist):
    states, dist = toy_dist
    table = {s.tobytes(): float(d) for s, d in zip(states, dist, strict=True)}

    def exact(batch):
        return np.array([table[s.tobytes()] for s in batch])

    starts = states[dist == 5][:10]
    assert greedy_rollout(toy, exact, starts, max_steps=5).all()
    assert not greedy_rollout(toy, exact, starts, max_steps=4).any()


# --------------------------------------------------------------------------- checkpoints
@pytest.fixture(scope="module")
def trained(toy, tmp_path_factory):
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("trained")
    t = Trainer(_cfg(toy), out, puzzle=toy, progress=False)
    t.train(20)
    return out


def test_checkpoint_contents_load_weights_only(trained):
    ck = torch.load(trained / "checkpoint.pt", weights_only=True)
    for key in ("model", "target_model", "optimizer", "train_config", "model_config", "puzzle",
                "encoding", "iteration", "torch_rng", "target", "goal"):
        assert key in ck, key
    assert ck["iteration"] == 20 and ck["kind"] == "train"
    assert ck["weights_sha256"] == weights_digest(ck["model"])
    small = torch.load(trained / "model.pt", weights_only=True)
    assert small["kind"] == "model" and "optimizer" not in small


def test_checkpoint_for_another_puzzle_is_refused(trained):
    with pytest.raises(CheckpointError, match="toylights3, not for toylights4"):
        ValueNetHeuristic(ToyLights(4), model=trained)
    other = ToyLights(3)
    other.encoding_name = "planes"
    with pytest.raises(InputError, match="encoding"):
        ValueNetHeuristic(other, model=trained)


def test_truncated_and_corrupt_checkpoints_are_detected(toy, trained, tmp_path):
    data = (trained / "model.pt").read_bytes()
    (tmp_path / "trunc.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        load_checkpoint(tmp_path / "trunc.pt")
    # flip bytes inside the largest tensor's storage: the zip still reads, the digest catches it
    ck = torch.load(trained / "model.pt", weights_only=True)
    w = ck["model"]["input.weight"].numpy().tobytes()
    pos = data.find(w[:64])
    assert pos > 0
    bad = bytearray(data)
    for i in range(pos + 100, pos + 108):
        bad[i] ^= 0xFF
    (tmp_path / "bad.pt").write_bytes(bytes(bad))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(tmp_path / "bad.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError):
        ValueNetHeuristic(toy, model=tmp_path / "junk.pt")
    with pytest.raises(CheckpointError, match="no such file"):
        load_checkpoint(tmp_path / "missing.pt")


def test_resume_refuses_weights_only_file(toy, trained, tmp_path):
    shutil.copy(trained / "model.pt", tmp_path / "checkpoint.pt")
    with pytest.raises(CheckpointError, match="weights only"):
        Trainer.resume(tmp_path, puzzle=toy, progress=False)


# --------------------------------------------------------------------------- the heuristic
def test_heuristic_batch_evaluation(toy, toy_dist, trained):
    h = ValueNetHeuristic(toy, model=trained / "model.pt")
    states, _ = toy_dist
    batch = h(states)
    assert batch.dtype == np.float32 and batch.shape == (len(states),)
    singles = np.array([h(s)[0] for s in states[:40]])
    np.testing.assert_allclose(singles, batch[:40], rtol=1e-5, atol=1e-5)
    assert h(toy.goal())[0] == 0.0
    assert np.all(batch >= 0)
    assert h.ida_spec() is None and not h.admissible
    assert h.nbytes == parameter_bytes(h.net) > 0
    assert h.load_seconds > 0
    h2 = ValueNetHeuristic(toy, model=trained / "model.pt", chunk=7)  # chunked forward passes
    np.testing.assert_allclose(h2(states), batch, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="expected shape"):
        h(np.zeros((2, 5), dtype=np.uint8))


def test_missing_model_is_a_clear_error(toy, tmp_path):
    with pytest.raises(InputError, match="no shipped model for toylights3"):
        ValueNetHeuristic(toy)
    with pytest.raises(InputError, match="no checkpoint file, run folder or model name"):
        ValueNetHeuristic(toy, model="no-such-model")
    with pytest.raises(InputError, match="holds no model.pt"):
        ValueNetHeuristic(toy, model=tmp_path)


def test_ship_writes_a_model_folder(toy, trained, tmp_path):
    from learning.ship import ship

    evaluation = [{"set": "uniform", "states": 4, "solver": "bwas", "weight": 0.6, "batch": 10,
                   "solved": 0.75, "optimal": 0.5, "mean_length": 3.0, "mean_optimal_length": 2.5,
                   "mean_nodes": 12.0}]
    dest = ship(trained, "toy", evaluation, command="bench train davi toylights3", dest_root=tmp_path)
    assert sorted(p.name for p in dest.iterdir()) == [
        "README.md", "config.json", "depth_log.csv", "log.csv", "model.pt"]
    ck = load_checkpoint(dest / "model.pt", puzzle=toy)
    assert ck["kind"] == "model" and "optimizer" not in ck
    card = (dest / "README.md").read_text()
    assert "| uniform (4) | bwas | weight 0.6, batch 10 | 75% | 50% | 3.00 | 2.50 | 12 |" in card
    assert "bench train davi toylights3" in card


def test_shares_on_model_cards_never_round_up_to_a_threshold():
    from learning.ship import share

    assert [share(v) for v in (0.994, 0.9999, 1.0, 0.958, 0.5, 2 / 3, 0.0, None)] == [
        "99.4%", "99.9%", "100%", "95.8%", "50%", "66.6%", "0%", "n/a"]


def test_add_evaluation_appends_and_replaces_rows(toy, trained, tmp_path):
    from learning.ship import add_evaluation, ship

    first = {"set": "uniform", "states": 4, "solver": "bwas", "weight": 0.6, "batch": 10,
             "solved": 0.75, "optimal": 0.5, "mean_length": 3.0, "mean_optimal_length": 2.5,
             "mean_nodes": 12.0}
    dest = ship(trained, "toy", [first], dest_root=tmp_path)
    weights = (dest / "model.pt").read_bytes()
    wider = {**first, "batch": 100, "solved": 1.0, "optimal": 1.0}
    redo = {**first, "solved": 1.0}
    add_evaluation("toy", [wider, redo], dest_root=tmp_path)
    assert (dest / "model.pt").read_bytes() == weights
    card = (dest / "README.md").read_text()
    assert "| uniform (4) | bwas | weight 0.6, batch 100 | 100% | 100% |" in card
    assert "| uniform (4) | bwas | weight 0.6, batch 10 | 100% | 50% |" in card
    assert "| 75% |" not in card  # the same settings replace the old row
    assert "batch 100" in (tmp_path / "README.md").read_text()
    with pytest.raises(FileNotFoundError, match="no shipped model 'other'"):
        add_evaluation("other", [first], dest_root=tmp_path)


def test_set_search_declares_a_checked_search(toy, trained, tmp_path):
    import json

    from learning.model_store import recommended_search
    from learning.ship import set_search, ship

    dest = ship(trained, "toy", [], dest_root=tmp_path)
    set_search("toy", {"solver": "astar", "batch": 100}, dest_root=tmp_path)
    assert json.loads((dest / "config.json").read_text())["search"] == {"solver": "astar", "batch": 100}
    assert "`--solver astar --batch 100`" in (dest / "README.md").read_text()
    rec = recommended_search("toylights3", dest / "model.pt")
    assert rec["solver"] == "astar" and rec["solver_args"] == {"batch": 100} and rec["source"] == "model"
    with pytest.raises(InputError, match="solver must be one of"):
        set_search("toy", {"solver": "ida"}, dest_root=tmp_path)
    with pytest.raises(InputError, match="--batch: applies to .*, not to beam"):
        set_search("toy", {"solver": "beam", "batch": 3}, dest_root=tmp_path)
    with pytest.raises(InputError, match="--width"):
        set_search("toy", {"solver": "beam", "width": 0}, dest_root=tmp_path)
    with pytest.raises(InputError, match="search: precision: expected float32 or bfloat16, got .float16.$"):
        set_search("toy", {"solver": "beam", "precision": "float16"}, dest_root=tmp_path)
    with pytest.raises(FileNotFoundError, match="no shipped model 'other'"):
        set_search("other", {"solver": "beam"}, dest_root=tmp_path)


def test_evaluation_from_run_takes_optima_from_an_optimal_configuration(tmp_path):
    import pandas as pd

    from bench.evaluate import evaluation_from_run

    rows = [  # instance 0: the learned search is optimal, instance 1: one move longer
        {"config": "learned", "instance_set": "s", "instance": 0, "solver": "beam",
         "heuristic": "davi", "params": "{}", "status": "solved", "length": 10, "optimal": None,
         "nodes_generated": 100, "time_s": 0.5},
        {"config": "learned", "instance_set": "s", "instance": 1, "solver": "beam",
         "heuristic": "davi", "params": "{}", "status": "solved", "length": 13, "optimal": None,
         "nodes_generated": 300, "time_s": 1.5},
        {"config": "ida", "instance_set": "s", "instance": 0, "solver": "ida",
         "heuristic": "manhattan", "params": "{}", "status": "solved", "length": 10,
         "optimal": None, "nodes_generated": 5, "time_s": 0.1},
        {"config": "ida", "instance_set": "s", "instance": 1, "solver": "ida",
         "heuristic": "manhattan", "params": "{}", "status": "solved", "length": 12,
         "optimal": None, "nodes_generated": 5, "time_s": 0.1},
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "results.csv", index=False)
    e = evaluation_from_run(tmp_path, "learned", "s", width=4, time_limit=60)
    assert e["states"] == 2 and e["solved"] == 1.0 and e["optimal"] == 0.5
    assert e["mean_length"] == 11.5 and e["mean_optimal_length"] == 11.0
    assert e["set"] == "s" and e["solver"] == "beam" and e["width"] == 4
    with pytest.raises(ValueError, match="no rows of configuration 'other'"):
        evaluation_from_run(tmp_path, "other")


# --------------------------------------------------------------------------- non-finite networks
def test_non_finite_weights_are_refused(toy, trained, tmp_path):
    from learning.checkpoint import save_checkpoint

    ck = torch.load(trained / "model.pt", weights_only=True)
    ck = {k: v for k, v in ck.items() if k not in ("format", "version", "weights_sha256")}
    ck["model"]["input.weight"][0, 0] = float("nan")
    save_checkpoint(tmp_path / "nan.pt", ck)  # a valid digest over NaN weights
    with pytest.raises(CheckpointError, match="not finite .*input.weight"):
        load_checkpoint(tmp_path / "nan.pt")
    with pytest.raises(CheckpointError, match="not finite"):
        ValueNetHeuristic(toy, model=tmp_path / "nan.pt")
    ck["model"] = {"input.weight": "not a tensor"}
    torch.save({**ck, "format": "heuristic-bench/learned-heuristic", "version": 1},
               tmp_path / "odd.pt")
    with pytest.raises(CheckpointError, match="not a dict of named tensors"):
        load_checkpoint(tmp_path / "odd.pt")


def test_non_finite_outputs_are_refused(toy, toy_dist, trained):
    h = ValueNetHeuristic(toy, model=trained / "model.pt")
    states, _ = toy_dist
    h.fast = lambda x: torch.full((x.shape[0],), float("inf"))
    with pytest.raises(InputError, match="non-finite values .* for 3 of 3 states"):
        h(states[:3])


@pytest.mark.parametrize("kw,word", [
    ({"lr": math.inf}, "--lr: expected a finite number"),
    ({"lr_decay": math.nan}, "--lr-decay: expected a finite number"),
    ({"epsilon": math.nan}, "--epsilon: expected a finite number"),
    ({"polyak": math.inf}, "--polyak: expected a finite number"),
    ({"h1": -5}, "--h1: must be in"),
    ({"res_dim": 0}, "--res-dim: must be in"),
    ({"num_blocks": -1}, "--num-blocks: must be in"),
    ({"eval_per_depth": 0}, "--eval-per-depth: must be in"),
    ({"eval_max_steps": 0}, "--eval-max-steps: must be in"),
    ({"batch": 10**20}, "--batch: must be in"),
    ({"k_max": 1.5}, "--k-max: expected an integer"),
])
def test_training_options_are_validated(toy, tmp_path, kw, word):
    with pytest.raises(InputError, match=word):
        Trainer(_cfg(toy, **kw), tmp_path / "x", puzzle=toy, progress=False)


def test_resume_refuses_a_non_finite_epsilon(toy, trained, tmp_path):
    shutil.copytree(trained, tmp_path / "run")
    t = Trainer.resume(tmp_path / "run", puzzle=toy, progress=False)
    with pytest.raises(InputError, match="--epsilon: expected a finite number"):
        t.change_epsilon(math.inf)


def test_resume_skips_garbage_lines_in_the_logs(toy, trained, tmp_path):
    shutil.copytree(trained, tmp_path / "run")
    with open(tmp_path / "run" / "log.csv", "a") as f:
        f.write("garbage,line\n\n1e9,x\n99999,0.1,0.001,0,1,1\n")
    t = Trainer.resume(tmp_path / "run", puzzle=toy, progress=False)
    lines = (tmp_path / "run" / "log.csv").read_text().splitlines()
    assert lines[0].startswith("iteration") and all(ln.split(",")[0].isdigit() for ln in lines[1:])
    assert all(int(ln.split(",")[0]) <= t.iteration for ln in lines[1:])
