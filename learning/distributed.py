"""Training on several processes: PyTorch DistributedDataParallel for the :class:`Trainer`.

``bench train davi|diffusion|policy ... --nproc N`` starts N processes on this machine
(:func:`launch`); ``torchrun --nproc-per-node N -m bench train ...`` starts them itself (it sets
``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR`` and ``MASTER_PORT``, which
:meth:`Dist.from_env` reads). In each process:

- the device is ``cuda:LOCAL_RANK`` (NCCL) when the run trains on CUDA, else the CPU (gloo);
- batch ``i`` is made from the seed exactly as one process makes it (the walks of the whole
  global batch), then the process keeps its shard, contiguous rows ``[B r / N, B (r+1) / N)``,
  and makes the children and targets of its shard only: the target network's work on the
  ``B * A`` children is split, and the run does not depend on the process count;
- the network is wrapped in ``DistributedDataParallel``; a shard's loss is weighted by its share
  of the global batch (``n_r N / B``), so the averaged gradient is the gradient of the global
  batch's mean loss whatever the shard sizes;
- batch norm becomes ``SyncBatchNorm`` (statistics over the global batch). torch's
  ``SyncBatchNorm`` runs on GPUs only (its kernels are CUDA ones, and DDP refuses it on CPU
  modules), so on the CPU (gloo) :class:`CpuSyncBatchNorm1d` / ``2d`` compute the same
  statistics with all-reduces;
- the loss that is logged and compared with epsilon is all-reduced (the global batch's), so
  every process updates its target network at the same iteration; a stop (time limits, Ctrl-C,
  SIGTERM) is agreed on by all-reduce too, so every process stops after the same iteration;
- rank 0 alone monitors, writes ``log.csv`` / ``depth_log.csv`` and checkpoints. A checkpoint
  records nothing of the process count, so a run resumes with another one.
"""

from __future__ import annotations

import datetime as _dt
import os
import signal
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from core.errors import InputError

#: how long a collective may wait for the slowest process (rank 0 monitors meanwhile)
TIMEOUT = _dt.timedelta(minutes=60)


@dataclass(frozen=True)
class Dist:
    """This process's place among ``world`` training processes."""

    rank: int
    world: int
    local_rank: int

    @classmethod
    def from_env(cls) -> Dist | None:
        """The process's place from torchrun's environment, or None for a single process."""
        try:
            world = int(os.environ.get("WORLD_SIZE", "1"))
            rank = int(os.environ.get("RANK", "0"))
            local = int(os.environ.get("LOCAL_RANK", str(rank)))
        except ValueError:
            raise InputError("WORLD_SIZE, RANK and LOCAL_RANK must be integers "
                             "(torchrun sets them)") from None
        if world <= 1:
            return None
        if not 0 <= rank < world:
            raise InputError(f"RANK: must be in [0, {world}), got {rank}")
        return cls(rank, world, local)

    @property
    def main(self) -> bool:
        """Rank 0: the process that monitors, logs and checkpoints."""
        return self.rank == 0

    def shard(self, n: int) -> slice:
        """This process's rows of a global batch of ``n``."""
        return slice(n * self.rank // self.world, n * (self.rank + 1) // self.world)

    def device(self, name: str) -> torch.device:
        """The device of this process for a run on ``name`` (auto, cpu, cuda)."""
        from learning.devices import resolve_device

        dev = resolve_device(name)
        if dev.type != "cuda":
            return dev
        if self.local_rank >= torch.cuda.device_count():
            raise InputError(f"--nproc: process {self.local_rank} of this machine has no GPU "
                             f"({torch.cuda.device_count()} visible)")
        torch.cuda.set_device(self.local_rank)
        return torch.device("cuda", self.local_rank)

    def init(self, device: torch.device) -> None:
        """Join the process group (NCCL on CUDA, gloo on the CPU)."""
        if dist.is_initialized():
            return
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo",
                                rank=self.rank, world_size=self.world, timeout=TIMEOUT)

    def wrap(self, model: nn.Module, device: torch.device) -> nn.Module:
        """``model`` with synchronised batch norm (in place: the parameters, and so the
        optimizer's, stay the same) inside ``DistributedDataParallel``."""
        from torch.nn.parallel import DistributedDataParallel

        self.init(device)
        sync_batch_norm(model, device)
        return DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None)

    def sum(self, values: list[float]) -> list[float]:
        """``values`` summed over the processes (float64)."""
        t = torch.tensor(values, dtype=torch.float64)
        if dist.get_backend() == "nccl":
            t = t.cuda()
        dist.all_reduce(t)
        return [float(v) for v in t.cpu()]

    def mean(self, value: float) -> float:
        return self.sum([value])[0] / self.world

    def any(self, flag: bool) -> bool:
        """True in every process when ``flag`` is true in one."""
        return self.sum([1.0 if flag else 0.0])[0] > 0

    def close(self) -> None:
        if dist.is_initialized():
            dist.destroy_process_group()


# --------------------------------------------------------------------------- batch norm
class _AllReduceSum(torch.autograd.Function):
    """Sum over the processes, differentiable: the gradient of a sum is the sum of the
    gradients each process holds for it."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        out = x.clone()
        dist.all_reduce(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        out = grad.clone()
        dist.all_reduce(out)
        return out


def _synced_batch_norm(bn: nn.modules.batchnorm._BatchNorm, x: torch.Tensor) -> torch.Tensor:
    """Batch norm of ``x`` in training with the mean and (biased) variance over the global
    batch (all-reduced, differentiable); the running statistics are updated as ``BatchNorm``
    does, with the unbiased variance."""
    dims = [0, *range(2, x.dim())]
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    count = torch.tensor([float(x.numel() // x.shape[1])], dtype=torch.float64)
    dist.all_reduce(count)
    n = float(count[0])
    mean = _AllReduceSum.apply(x.sum(dims)) / n
    centred = x - mean.view(shape)
    var = _AllReduceSum.apply((centred * centred).sum(dims)) / n
    out = centred * torch.rsqrt(var + bn.eps).view(shape)
    if bn.affine:
        out = out * bn.weight.view(shape) + bn.bias.view(shape)
    if bn.track_running_stats and bn.running_mean is not None \
            and bn.running_var is not None and bn.num_batches_tracked is not None:
        with torch.no_grad():
            bn.num_batches_tracked.add_(1)
            m = 1.0 / float(bn.num_batches_tracked) if bn.momentum is None else bn.momentum
            bn.running_mean.mul_(1 - m).add_(mean.detach(), alpha=m)
            bn.running_var.mul_(1 - m).add_(var.detach() * (n / max(n - 1.0, 1.0)), alpha=m)
    return out


def _syncing(bn: nn.Module, x: torch.Tensor) -> bool:
    return bool(bn.training and x.device.type == "cpu" and dist.is_initialized()
                and dist.get_world_size() > 1)


class CpuSyncBatchNorm1d(nn.BatchNorm1d):
    """``BatchNorm1d`` whose training statistics are those of the global batch (CPU, gloo);
    torch's own in eval mode or in one process."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not _syncing(self, input):
            return super().forward(input)
        self._check_input_dim(input)
        return _synced_batch_norm(self, input)


class CpuSyncBatchNorm2d(nn.BatchNorm2d):
    """``BatchNorm2d`` whose training statistics are those of the global batch (CPU, gloo)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        if not _syncing(self, input):
            return super().forward(input)
        self._check_input_dim(input)
        return _synced_batch_norm(self, input)


def sync_batch_norm(model: nn.Module, device: torch.device) -> nn.Module:
    """Make every batch norm of ``model`` synchronised, in place, keeping its parameters and
    buffers: torch's ``SyncBatchNorm`` on CUDA; on the CPU, where torch's refuses tensors (and
    DDP refuses it), :class:`CpuSyncBatchNorm1d` / :class:`CpuSyncBatchNorm2d`."""
    if device.type != "cpu":
        return nn.SyncBatchNorm.convert_sync_batchnorm(model)
    swap: dict[type, type] = {nn.BatchNorm1d: CpuSyncBatchNorm1d,
                              nn.BatchNorm2d: CpuSyncBatchNorm2d}
    for m in model.modules():
        if type(m) in swap:
            m.__class__ = swap[type(m)]  # a subclass with no state of its own
    return model


# --------------------------------------------------------------------------- stopping
def stop_on_signals(flag: threading.Event) -> Callable[[], None]:
    """SIGINT and SIGTERM set ``flag`` instead of interrupting (the processes then agree to
    stop after the same iteration); returns the function that restores the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        flag.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for s, h in old.items():
            signal.signal(s, h)

    return restore


# --------------------------------------------------------------------------- launching
def free_port() -> int:
    """A TCP port nobody listens on now (the rendezvous of the processes)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _process(rank: int, nproc: int, port: int, fn: Callable[..., int], args: tuple) -> None:
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nproc),
                      LOCAL_WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    code = fn(*args)
    if code:
        raise SystemExit(code)


def launch(nproc: int, fn: Callable[..., int], args: tuple = ()) -> int:
    """Run ``fn(*args)`` in ``nproc`` processes on this machine (spawned, each with torchrun's
    environment); the first non-zero exit code of a process (130 when interrupted), else 0.

    Ctrl-C or SIGTERM here is passed on to the processes, which stop after the same iteration
    and save; a second one kills them."""
    import logging

    import torch.multiprocessing as tmp

    # when one process fails, torch stops the others with a warning of its own; the failure
    # is reported here
    logging.getLogger("torch.multiprocessing.spawn").setLevel(logging.ERROR)
    ctx = tmp.start_processes(_process, args=(nproc, free_port(), fn, args), nprocs=nproc,
                              join=False, start_method="spawn")
    interrupts = 0

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        while True:
            try:
                if ctx.join(timeout=1.0):
                    return 0
            except KeyboardInterrupt:
                interrupts += 1
                for p in ctx.processes:
                    if p.is_alive():
                        if interrupts > 1:
                            p.kill()
                        else:
                            os.kill(p.pid, signal.SIGTERM)
                if interrupts > 1:
                    return 130
            except tmp.ProcessExitedException as exc:
                return int(exc.exit_code) if exc.exit_code else 1
            except tmp.ProcessRaisedException as exc:  # a bug: its traceback
                import sys

                print(str(exc).strip(), file=sys.stderr)
                return 1
    finally:
        signal.signal(signal.SIGTERM, old)
