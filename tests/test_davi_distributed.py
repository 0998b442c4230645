"""Training in several processes (DistributedDataParallel, gloo on the CPU, 2 processes).

The weights after a few iterations must equal those of one process on the same global batches
and seed. The comparison runs in float64: a linear layer's bias in front of batch norm has a
zero gradient in exact arithmetic, which float32 leaves as rounding noise that Adam turns into
steps of the learning rate's size, in a different direction for each summation order; in
float64 that noise is far below Adam's epsilon. (The machines with GPUs here have one each, so
NCCL on several GPUs is not tested.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from learning.distributed import Dist, launch
from learning.train_config import TrainConfig
from learning.trainer import Trainer

ROOT = Path(__file__).resolve().parent.parent

CONFIGS = {
    # DAVI after two iterations of diffusion: both targets, target networks, children per shard
    "davi": dict(puzzle="puzzle8", target="davi", diffusion_warmup=2, check_every=2,
                 epsilon=1000.0),
    "policy": dict(puzzle="puzzle8", target="policy", check_every=2),
    "davi-numpy": dict(puzzle="puzzle8", target="davi", data="numpy", check_every=2,
                       epsilon=1000.0),
}
COMMON = dict(preset="tiny", batch=9, seed=3, eval_per_depth=2, eval_depths=2, device="cpu")


def _float64() -> None:
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)


def train_processes(out: str, settings: dict, iterations: int, resume: bool) -> int:
    """One of the processes (started by ``launch``): train in float64."""
    _float64()
    dist = Dist.from_env()
    assert dist is not None
    if resume:
        t = Trainer.resume(out, progress=False, dist=dist)
    else:
        t = Trainer(TrainConfig(**settings, **COMMON), out, progress=False, dist=dist)
    t.train(iterations)
    t.close()
    return 0


def _single(out: Path, settings: dict, iterations: int, resume: bool = False) -> Trainer:
    old = torch.get_default_dtype()
    _float64()
    try:
        t = (Trainer.resume(out, progress=False) if resume
             else Trainer(TrainConfig(**settings, **COMMON), out, progress=False))
        t.train(iterations)
        return t
    finally:
        torch.set_default_dtype(old)


def _weights(out: Path) -> dict[str, torch.Tensor]:
    return torch.load(out / "checkpoint.pt", weights_only=False)["model"]


def _max_diff(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].double() - b[k].double()).abs().max()) for k in a)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_two_processes_train_the_weights_of_one(tmp_path, name):
    settings = CONFIGS[name]
    one, two = tmp_path / "one", tmp_path / "two"
    t = _single(one, settings, 4)
    assert launch(2, train_processes, (str(two), settings, 4, False)) == 0
    a, b = _weights(one), _weights(two)
    assert a["input.weight"].dtype == torch.float64
    assert _max_diff(a, b) < 1e-4
    init = Trainer(TrainConfig(**settings, **COMMON), tmp_path / "init", progress=False)
    moved = _max_diff(a, {k: v.double() for k, v in init.model.state_dict().items()})
    assert moved > 1e-3  # the runs trained: equal weights are not the initial ones
    ckpt = torch.load(two / "checkpoint.pt", weights_only=False)
    assert ckpt["iteration"] == 4 and ckpt["target_updates"] == t.target_updates
    assert ckpt["states_seen"] == 4 * 9
    log_one = (one / "log.csv").read_text().splitlines()
    log_two = (two / "log.csv").read_text().splitlines()
    assert len(log_two) == len(log_one) == 3  # rank 0 alone logs, at iterations 2 and 4
    for r1, r2 in zip(log_one[1:], log_two[1:], strict=True):
        l1, l2 = float(r1.split(",")[1]), float(r2.split(",")[1])
        assert abs(l1 - l2) <= 1e-6 * abs(l1)  # the global batch's loss


def test_resumes_with_another_process_count(tmp_path):
    settings = CONFIGS["davi"]
    one, mixed = tmp_path / "one", tmp_path / "mixed"
    _single(one, settings, 4)
    assert launch(2, train_processes, (str(mixed), settings, 2, False)) == 0
    _single(mixed, settings, 2, resume=True)  # two processes, then one
    assert _max_diff(_weights(one), _weights(mixed)) < 1e-4
    assert launch(2, train_processes, (str(mixed), settings, 1, True)) == 0  # and two again
    assert torch.load(mixed / "checkpoint.pt", weights_only=False)["iteration"] == 5


def test_shards_cover_the_batch_once():
    for world in (1, 2, 3, 7):
        rows = [r for rank in range(world) for r in range(9)[Dist(rank, world, rank).shard(9)]]
        assert rows == list(range(9))


# --------------------------------------------------------------------------- command line
def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**os.environ, **(env or {})})


TRAIN = ("train", "davi", "puzzle8", "--preset", "tiny", "--batch", "9", "--check-every", "2",
         "--eval-per-depth", "2", "--device", "cpu", "--quiet")


def test_nproc_on_the_command_line_stops_together_and_resumes_with_one(tmp_path):
    out = tmp_path / "run"
    res = bench(*TRAIN, "--iterations", "2", "--nproc", "2", "--out", str(out))
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.count("run folder:") == 1  # rank 0 reports
    config = json.loads((out / "config.json").read_text())
    assert config["processes"] == 2 and config["iteration"] == 2
    # SIGTERM to the launcher (a job scheduler's stop): passed on, the processes agree to stop
    # after the same iteration, rank 0 saves it
    proc = subprocess.Popen([sys.executable, "-m", "bench", "train", "davi", "puzzle8",
                             "--resume", "--out", str(out), "--iterations", "1000000",
                             "--quiet", "--nproc", "2"], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    end = time.monotonic() + 120
    while (out / "log.csv").read_text().count("\n") < 3 and time.monotonic() < end:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert "interrupted; the run is saved" in err and "Traceback" not in err
    n = torch.load(out / "checkpoint.pt", weights_only=False)["iteration"]
    assert n >= 4 and json.loads((out / "config.json").read_text())["iteration"] == n
    res = bench("train", "davi", "puzzle8", "--resume", "--out", str(out), "--iterations", "2",
                "--quiet", "--nproc", "1")
    assert res.returncode == 0, res.stderr[-3000:]
    config = json.loads((out / "config.json").read_text())
    assert config["processes"] == 1 and config["iteration"] == n + 2
    logged = [int(r.split(",")[0]) for r in (out / "log.csv").read_text().splitlines()[1:]]
    assert logged == sorted(set(logged)) and logged[0] == 2 and logged[-1] == n + 2


def test_torchrun_starts_the_processes(tmp_path):
    out = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
                          "-m", "bench", *TRAIN, "--iterations", "2", "--out", str(out)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    config = json.loads((out / "config.json").read_text())
    assert config["processes"] == 2 and config["iteration"] == 2 and config["states_seen"] == 18


@pytest.mark.parametrize("args,env,match", [
    (("--nproc", "3", "--batch", "2", "--iterations", "1"), None,
     "--nproc: 3 processes need a batch of at least 3 states, got --batch 2"),
    (("--nproc", "2", "--iterations", "1"), {"WORLD_SIZE": "2", "RANK": "0"},
     "--nproc: the processes were started by torchrun already"),
    (("--nproc", "0",), None, "--nproc"),
])
def test_bad_nproc_is_one_line_exit_2(tmp_path, args, env, match):
    res = bench("train", "davi", "puzzle8", "--preset", "tiny", "--quiet", "--out",
                str(tmp_path / "r"), *args, env=env)
    assert res.returncode == 2 and match in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and res.stderr.strip().count("\n") == 0
