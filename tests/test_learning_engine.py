"""Tensor training data (learning.walks) and the network's inference form (FastForward)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core import registry
from core.errors import InputError
from learning.devices import num_parameters
from learning.model_config import ModelConfig
from learning.networks import FastForward, build_network
from learning.train_config import TrainConfig
from learning.trainer import Trainer
from learning.walks import batch_generator, domain_for

FAMILIES = ["cube2", "cube3", "cube3-htm", "puzzle8", "puzzle15", "lightsout7"]


@pytest.mark.parametrize("name", FAMILIES)
def test_children_equal_the_puzzles_expand(name: str) -> None:
    p = registry.get_puzzle(name)
    d = domain_for(p)
    assert d is not None
    states = p.scramble(20, 9, np.random.default_rng(1))[0]
    ch, valid = d.children(torch.as_tensor(states))
    ref_ch, ref_valid = p.expand(states)
    np.testing.assert_array_equal(valid.numpy(), ref_valid)
    np.testing.assert_array_equal(ch.numpy()[ref_valid], ref_ch[ref_valid])
    assert d.is_goal(torch.as_tensor(p.goal()[None, :])).item()


@pytest.mark.parametrize("name", ["cube2", "puzzle8", "puzzle15", "cube3"])
def test_walks_are_legal_non_backtracking_walks(name: str) -> None:
    """Replaying a walk move by move: reconstruct each walk by trying every move sequence would
    be costly, so check depth 1 (a child of the goal), depth 2 (never back at the goal), and
    that every end state is valid for the puzzle."""
    p = registry.get_puzzle(name)
    d = domain_for(p)
    g = torch.Generator().manual_seed(0)
    one = d.walks(torch.ones(200, dtype=torch.long), g).numpy()
    kids, valid = p.expand(p.goal()[None, :])
    allowed = {k.tobytes() for k in kids[0][valid[0]]}
    assert {s.tobytes() for s in one} <= allowed
    assert len({s.tobytes() for s in one}) == len(allowed)  # every first move occurs
    two = d.walks(torch.full((300,), 2, dtype=torch.long), g).numpy()
    assert not p.is_goal(two).any()
    deep = d.walks(torch.randint(0, 40, (100,), generator=g), g).numpy()
    for s in deep[:20]:
        p.validate(s)


def test_tile_walk_parity_matches_depth() -> None:
    """A tile move changes the blank's cell colour, so a walk's length has the parity of the
    blank's Manhattan distance from its goal cell."""
    p = registry.get_puzzle("puzzle15")
    d = domain_for(p)
    depths = torch.randint(1, 60, (500,), generator=torch.Generator().manual_seed(2))
    states = d.walks(depths, torch.Generator().manual_seed(3)).numpy()
    blank = np.argmax(states == 0, axis=1)
    gb = int(np.flatnonzero(p.goal() == 0)[0])
    dist = np.abs(blank // 4 - gb // 4) + np.abs(blank % 4 - gb % 4)
    assert ((dist - depths.numpy()) % 2 == 0).all()


def test_lights_out_walks_have_exact_lengths() -> None:
    """Distinct presses on 7x7 (an invertible press matrix): the walk length is the distance."""
    p = registry.get_puzzle("lightsout7")
    d = domain_for(p)
    b = d.batch(5, seed=1, size=300, k_max=60, with_children=False)
    assert int(b.depths.max()) <= 49
    np.testing.assert_array_equal(p.optimal_lengths(b.states.numpy()), b.depths.numpy())


def test_batches_are_reproducible_and_distinct() -> None:
    p = registry.get_puzzle("cube3")
    d = domain_for(p)
    a = d.batch(7, seed=3, size=64, k_max=20, with_children=True)
    b = d.batch(7, seed=3, size=64, k_max=20, with_children=True)
    c = d.batch(8, seed=3, size=64, k_max=20, with_children=True)
    assert torch.equal(a.states, b.states) and torch.equal(a.depths, b.depths)
    assert not torch.equal(a.states, c.states)
    assert a.children is not None and a.children.shape == (64, 12, 54)
    assert torch.equal(a.is_goal, (a.states == d.goal).all(1))
    g1 = batch_generator(1, 2, torch.device("cpu"))
    g2 = batch_generator(2, 1, torch.device("cpu"))
    assert not torch.equal(torch.rand(4, generator=g1), torch.rand(4, generator=g2))


@pytest.mark.parametrize("preset", ["tiny", "mlp-tiny", "small", "mlp", "cnn-tiny", "cnn"])
def test_fast_forward_equals_the_module(preset: str) -> None:
    torch.manual_seed(0)
    if preset.startswith("cnn"):  # a board of tiles: 15-puzzle states
        net = build_network(ModelConfig.preset(preset, 16, 16))
        x = torch.stack([torch.randperm(16) for _ in range(512)]).to(torch.uint8)
    else:
        net = build_network(ModelConfig.preset(preset, 54, 6))
        x = torch.randint(0, 6, (512, 54), dtype=torch.uint8)
    opt = torch.optim.Adam(net.parameters(), 1e-2)
    for _ in range(3):  # move batch-norm statistics away from their initial values
        loss = (net(x) - x.float().mean(1)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        ref = net(x)
    fast = FastForward(net)(x)
    torch.testing.assert_close(fast, ref, rtol=1e-4, atol=1e-4)
    bf = FastForward(net, torch.bfloat16)(x)
    assert bf.dtype == torch.float32
    assert (bf - ref).abs().max().item() < 0.05 * max(1.0, ref.abs().max().item())
    # reduced precision pads a pass to a power of two rows; rows stay independent of the padding
    ff = FastForward(net, torch.bfloat16)
    for n in (1, 37, 300):
        torch.testing.assert_close(ff(x[:n]), bf[:n], rtol=1e-2, atol=1e-2)


def test_reduced_precision_passes_take_few_shapes() -> None:
    from learning.networks.base import pass_rows

    assert [pass_rows(n) for n in (1, 64, 65, 300, 4096, 4097)] == [64, 64, 128, 512, 4096, 8192]
    assert len({pass_rows(n) for n in range(1, 4097)}) == 7  # 64 .. 4,096: one kernel per shape
    net = build_network(ModelConfig.preset("mlp-tiny", 54, 6)).eval()
    seen: set[int] = set()
    ff = FastForward(net, torch.bfloat16)
    ff.form = lambda codes, f=ff.form: (seen.add(codes.shape[0]), f(codes))[1]
    for n in range(1, 400, 7):
        assert ff(torch.randint(0, 6, (n, 54), dtype=torch.uint8)).shape == (n,)
    assert seen == {64, 128, 256, 512}


def test_mlp_preset_size() -> None:
    c = ModelConfig.preset("mlp", 54, 6)
    assert c.arch == "mlp" and (c.h1, c.layers) == (512, 3)
    assert num_parameters(build_network(c)) == 324 * 512 + 512 + 2 * (512 * 512 + 512) + 513 + 3 * 1024


def test_cnn_reads_the_board_as_channels_and_refuses_other_states() -> None:
    net = build_network(ModelConfig.preset("cnn", 16, 16))
    codes = torch.tensor([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0]])
    board = net.board(codes)
    assert board.shape == (1, 16, 4, 4)
    assert board[0, 0, 3, 3] == 1 and board[0, 5, 1, 0] == 1 and board.sum() == 16
    # three 2x2 convolutions of 128 channels take a 4x4 board to 1x1, then 512 units
    assert num_parameters(net) == (16 * 4 * 128 + 128) + 2 * (128 * 4 * 128 + 128) + 3 * 256 \
        + (128 * 512 + 512) + 1024 + 513
    from core.errors import InputError

    with pytest.raises(InputError, match="cnn reads a sliding-tile board"):
        build_network(ModelConfig.preset("cnn", 54, 6))
    with pytest.raises(InputError, match="a 3x3 board takes 1 to 2"):
        build_network(ModelConfig(9, 9, 8, 16, 0, arch="cnn", layers=3))


def test_cnn_trains_on_the_8_puzzle_with_two_convolutions(tmp_path) -> None:
    cfg = TrainConfig(puzzle="puzzle8", target="diffusion", preset="cnn-tiny", batch=64,
                      k_max=10, check_every=4, eval_per_depth=2, eval_depths=1)
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(4)
    assert t.model.config.arch == "cnn" and t.model.config.layers == 2
    t2 = Trainer.resume(tmp_path / "run", progress=False)
    assert t2.model.config == t.model.config


def test_diffusion_warmup_switches_to_davi(tmp_path) -> None:
    cfg = TrainConfig(puzzle="cube2", target="davi", preset="mlp-tiny", batch=64, k_max=8,
                      check_every=4, diffusion_warmup=6, eval_per_depth=4, eval_depths=2)
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(5)
    assert t.target is None and t.target_updates == 0
    t.train(3)
    assert t.target_updates >= 1 and t.target is not None  # the switch copied the network
    t2 = Trainer.resume(tmp_path / "run", progress=False)
    assert t2.iteration == 8 and t2.target is not None


def test_resume_is_exact_with_tensor_data(tmp_path) -> None:
    cfg = TrainConfig(puzzle="puzzle8", target="davi", preset="tiny", batch=32, k_max=10,
                      check_every=3, eval_per_depth=4, eval_depths=2, seed=4)
    a = Trainer(cfg, tmp_path / "a", progress=False)
    a.train(6)
    b = Trainer(cfg, tmp_path / "b", progress=False)
    b.train(3)
    b = Trainer.resume(tmp_path / "b", progress=False)
    b.train(3)
    for k, v in a.model.state_dict().items():
        torch.testing.assert_close(v, b.model.state_dict()[k])


def test_old_runs_keep_numpy_data() -> None:
    cfg = TrainConfig.from_dict({"puzzle": "cube2", "target": "davi"})
    assert cfg.data == "numpy"
    assert TrainConfig(puzzle="cube2").data == "tensor"


def test_sigterm_saves_the_run(tmp_path) -> None:
    """A background training stopped with SIGTERM (which, unlike SIGINT, reaches background
    jobs) saves its state first, so --resume loses nothing."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", "train", "davi", "cube2", "--preset", "tiny", "--batch",
         "64", "--check-every", "1000000", "--iterations", "10000000", "--out", str(out),
         "--quiet", "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (out / "config.json").exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 130
    t = Trainer.resume(out, progress=False)
    assert t.iteration > 0


def test_cpu_limit_stops_training(tmp_path) -> None:
    cfg = TrainConfig(puzzle="puzzle8", target="diffusion", preset="mlp-tiny", batch=64, k_max=10,
                      check_every=100000, eval_per_depth=4, eval_depths=2)
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(10_000_000, max_cpu_seconds=1.0)
    assert 0 < t.iteration < 10_000_000 and t.cpu_seconds >= 1.0
    t2 = Trainer.resume(tmp_path / "run", progress=False)
    assert t2.cpu_seconds == t.cpu_seconds


def test_rate_commands(capsys) -> None:
    import json

    from bench.cli import main

    for args in (["train", "rate", "cube2", "--preset", "tiny", "--batch", "64",
                  "--iterations", "2", "--json"],
                 ["train", "rate", "puzzle8", "--preset", "mlp-tiny", "--target", "diffusion",
                  "--batch", "64", "--iterations", "2", "--json", "--amp"]):
        main(args)
        rec = json.loads(capsys.readouterr().out)
        assert rec["states_per_s"] > 0 and set(rec["seconds"]) == {"data", "target", "update"}
    main(["train", "infer-rate", "cube2", "--preset", "tiny", "--states", "500", "--chunk", "128",
          "--precision", "float32"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and "module" in lines[1] and "float32" in lines[2]


def test_canonical_cube_walks_are_closer_to_the_distance() -> None:
    """Against the exact 2x2x2 table: canonical walks of k <= 5 quarter turns end exactly k moves
    from the goal, and at every depth at least as often as plain non-backtracking walks."""
    from puzzles.exhaustive import table_distances

    p = registry.get_puzzle("cube2")
    plain, canon = domain_for(p), domain_for(p, canonical=True)
    for k in range(1, 12):
        g1, g2 = torch.Generator().manual_seed(k), torch.Generator().manual_seed(k)
        dp = table_distances(p, plain.walks(torch.full((3000,), k), g1).numpy())
        dc = table_distances(p, canon.walks(torch.full((3000,), k), g2).numpy())
        if k <= 5:
            assert (dc == k).all()
        assert (dc == k).mean() >= (dp == k).mean() - 0.01
    htm = registry.get_puzzle("cube2-htm")  # each face at most once per axis run
    for k in (2, 5):
        s = domain_for(htm, canonical=True).walks(torch.full((3000,), k), torch.Generator()).numpy()
        s2 = domain_for(htm).walks(torch.full((3000,), k), torch.Generator()).numpy()
        exact_c, exact_p = table_distances(htm, s) == k, table_distances(htm, s2) == k
        assert exact_c.mean() >= exact_p.mean() and (k > 2 or exact_c.all())


def test_walk_change_on_resume(tmp_path) -> None:
    cfg = TrainConfig(puzzle="cube2", target="diffusion", preset="mlp-tiny", batch=32, k_max=8,
                      check_every=2, eval_per_depth=2, eval_depths=2, walk="plain")
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(2)
    t = Trainer.resume(tmp_path / "run", progress=False)
    t.change_walk("canonical")
    t.train(2)
    t = Trainer.resume(tmp_path / "run", progress=False)
    assert t.cfg.walk == "canonical" and t.cfg.extra["walk_changes"] == [[2, "plain", "canonical"]]


def test_lr_change_on_resume(tmp_path) -> None:
    cfg = TrainConfig(puzzle="cube2", target="diffusion", preset="mlp-tiny", batch=32, k_max=8,
                      check_every=2, eval_per_depth=2, eval_depths=2, lr=1e-3, lr_decay=0.5)
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(2)
    assert t._lr() == pytest.approx(1e-3 * 0.25)
    t = Trainer.resume(tmp_path / "run", progress=False)
    t.change_lr(lr_decay=1.0)  # keep the rate reached, stop decaying
    t.train(2)
    assert t._lr() == pytest.approx(1e-3 * 0.25)
    t = Trainer.resume(tmp_path / "run", progress=False)
    assert t.cfg.extra["lr_changes"] == [[2, pytest.approx(2.5e-4), 1.0]]
    t.change_lr(lr=1e-4, lr_decay=0.9)
    t.train(1)
    assert t._lr() == pytest.approx(1e-4 * 0.9)
    assert t.optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)  # the rate of the last step
    for kw, word in [({"lr": 0.0}, "--lr"), ({"lr_decay": 1.5}, "--lr-decay"),
                     ({"lr": math.nan}, "--lr")]:
        with pytest.raises(InputError, match=word):
            t.change_lr(**kw)


def test_shipped_models_fit_the_size_limits_and_declare_valid_searches() -> None:
    import json

    from learning.model_store import SHIPPED_DIR, recommended_search

    files = sorted(SHIPPED_DIR.glob("*/model.pt"))
    assert files
    sizes = [f.stat().st_size for f in files]
    assert max(sizes) <= 16 * 2**20 and sum(sizes) <= 64 * 2**20
    for f in files:
        cfg = json.loads((f.parent / "config.json").read_text())
        puzzle = cfg["train_config"]["puzzle"]
        rec = recommended_search(puzzle, f.parent)
        if "search" in cfg:
            assert rec["source"] == "model" and rec["solver"] == cfg["search"]["solver"]
            registry.get_solver(rec["solver"], **rec["solver_args"])  # options it declares
