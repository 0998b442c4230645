"""Int8 storage of network weights (``learning.quantize``) through checkpoints and shipping."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from davi_toy import ToyLights

from heuristics.value_net import ValueNetHeuristic
from learning.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from learning.quantize import (
    SCALE_SUFFIX,
    QuantizeError,
    dequantize,
    is_quantized,
    quantize_int8,
)
from learning.train_config import TrainConfig
from learning.trainer import Trainer


def _random_dict(seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(64, 100, generator=g) * torch.logspace(-3, 1, 64).unsqueeze(1)  # rows of all scales
    w[5] = 0.0  # a row of zeros
    return {
        "input.weight": w,
        "input.bias": torch.randn(64, generator=g),
        "small.weight": torch.randn(8, 8, generator=g),           # under MIN_NUMEL: kept
        "conv.weight": torch.randn(32, 4, 8, 8, generator=g),      # four dimensions, by rows
        "out.weight": torch.randn(49, 100, generator=g),           # the output layer: kept
        "bn.num_batches_tracked": torch.tensor(7),
    }


def test_int8_rows_are_within_half_a_step_of_the_weights():
    sd = _random_dict()
    q = quantize_int8(sd)
    assert is_quantized(q) and not is_quantized(sd)
    assert q["input.weight"].dtype == torch.int8 and q["conv.weight"].dtype == torch.int8
    for kept in ("input.bias", "small.weight", "out.weight", "bn.num_batches_tracked"):
        assert torch.equal(q[kept], sd[kept]) and kept + SCALE_SUFFIX not in q
    back = dequantize(q)
    assert sorted(back) == sorted(sd)
    for name in ("input.weight", "conv.weight"):
        w, b = sd[name].reshape(sd[name].shape[0], -1), back[name].reshape(sd[name].shape[0], -1)
        assert back[name].shape == sd[name].shape and back[name].dtype == torch.float32
        step = w.abs().amax(dim=1, keepdim=True) / 127
        assert bool(((w - b).abs() <= step / 2 + 1e-7 * w.abs().amax()).all())
        assert int(q[name].abs().max()) == 127  # each row's largest weight takes the full range
    assert bool((back["input.weight"][5] == 0).all())
    # a dict already stored in int8 is left as it is; quantizing the float32 copy again is exact
    assert quantize_int8(q) == q
    again = quantize_int8(back)
    assert torch.equal(again["input.weight"], q["input.weight"])


def test_int8_tensors_and_scales_must_belong_together():
    q = quantize_int8(_random_dict())
    orphan = {k: v for k, v in q.items() if k != "input.weight" + SCALE_SUFFIX}
    with pytest.raises(QuantizeError, match="'input.weight' has no scales"):
        dequantize(orphan)
    lost = {k: v for k, v in q.items() if k != "conv.weight"}
    with pytest.raises(QuantizeError, match="belong to no int8 tensor"):
        dequantize(lost)
    short = {**q, "input.weight" + SCALE_SUFFIX: q["input.weight" + SCALE_SUFFIX][:10]}
    with pytest.raises(QuantizeError, match="shape"):
        dequantize(short)


@pytest.fixture(scope="module")
def wide_run(tmp_path_factory):
    """A toy value network wide enough that its hidden matrices are stored in int8."""
    torch.set_num_threads(1)
    toy = ToyLights(3)
    out = tmp_path_factory.mktemp("wide")
    cfg = TrainConfig(puzzle=toy.name, preset="tiny", h1=256, res_dim=128, num_blocks=1, batch=128,
                      lr=3e-3, lr_decay=1.0, k_max=12, epsilon=0.05, check_every=10,
                      eval_per_depth=8, eval_depths=3)
    Trainer(cfg, out, puzzle=toy, progress=False).train(30)
    return toy, out


def test_int8_checkpoint_is_smaller_and_computes_nearly_the_same(wide_run, tmp_path):
    toy, run = wide_run
    ck = load_checkpoint(run / "model.pt")
    save_checkpoint(tmp_path / "int8.pt", {**ck, "weights_storage": "int8"})
    stored = torch.load(tmp_path / "int8.pt", weights_only=True)
    assert stored["weights_storage"] == "int8"
    assert stored["model"]["blocks.0.fc1.weight"].dtype == torch.int8
    assert (tmp_path / "int8.pt").stat().st_size < 0.4 * (run / "model.pt").stat().st_size
    back = load_checkpoint(tmp_path / "int8.pt", puzzle=toy)
    assert back["model"]["blocks.0.fc1.weight"].dtype == torch.float32
    states = np.random.default_rng(0).integers(0, 2, (200, 9)).astype(np.uint8)
    exact = ValueNetHeuristic(toy, model=run / "model.pt")(states)
    stored_h = ValueNetHeuristic(toy, model=tmp_path / "int8.pt")(states)
    assert float(np.abs(exact - stored_h).max()) < 0.05 * float(np.abs(exact).max()) + 1e-3
    assert not np.array_equal(exact, stored_h)  # the weights did change


def test_int8_checkpoint_faults_are_detected(wide_run, tmp_path):
    toy, run = wide_run
    ck = load_checkpoint(run / "model.pt")
    save_checkpoint(tmp_path / "int8.pt", {**ck, "weights_storage": "int8"})
    data = (tmp_path / "int8.pt").read_bytes()
    stored = torch.load(tmp_path / "int8.pt", weights_only=True)
    raw = stored["model"]["blocks.0.fc1.weight"].numpy().tobytes()
    pos = data.find(raw[:64])
    assert pos > 0
    bad = bytearray(data)
    bad[pos + 200] ^= 0x55
    (tmp_path / "bad.pt").write_bytes(bytes(bad))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(tmp_path / "bad.pt")
    # stored forms that do not match what the file declares (written with valid digests)
    with pytest.raises(ValueError, match="weights_storage must be one of"):
        save_checkpoint(tmp_path / "x.pt", {**ck, "weights_storage": "int4"})
    mixed = {**ck, "model": quantize_int8(ck["model"])}
    save_checkpoint(tmp_path / "mixed.pt", mixed)
    with pytest.raises(CheckpointError, match="int8 weights in a file that declares float32"):
        load_checkpoint(tmp_path / "mixed.pt")
    q = quantize_int8(ck["model"])
    del q["blocks.0.fc1.weight" + SCALE_SUFFIX]
    save_checkpoint(tmp_path / "orphan.pt", {**ck, "model": q, "weights_storage": "int8"})
    with pytest.raises(CheckpointError, match="int8 weights: int8 tensor 'blocks.0.fc1.weight' has no scales"):
        load_checkpoint(tmp_path / "orphan.pt")


def test_ship_stores_int8_weights_and_says_so(wide_run, tmp_path):
    from learning.ship import ship

    toy, run = wide_run
    evaluation = [{"set": "uniform", "states": 4, "solver": "beam", "width": 2,
                   "distinct_moves": True, "solved": 1.0, "optimal": 1.0, "mean_length": 3.0,
                   "mean_optimal_length": 3.0, "mean_nodes": 12.0}]
    plain = ship(run, "plain", evaluation, dest_root=tmp_path)
    small = ship(run, "small", evaluation, dest_root=tmp_path, weights="int8")
    assert (small / "model.pt").stat().st_size < 0.4 * (plain / "model.pt").stat().st_size
    card = (small / "README.md").read_text()
    assert "weights stored in int8 with one float32 scale per row" in card
    assert "| uniform (4) | beam | width 2, distinct moves | 100% | 100% |" in card
    assert "int8" not in (plain / "README.md").read_text()
    assert load_checkpoint(small / "model.pt", puzzle=toy)["weights_storage"] == "int8"
