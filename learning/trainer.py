"""The trainer: one training run (batches, targets, Adam steps, monitoring, checkpoints, exact
resume), whatever its target (:mod:`learning.targets`: DAVI, diffusion distance, policy).

The learning rate is ``lr * lr_decay ** iteration`` (a resumed run may start a new schedule:
``change_lr``). Each iteration asks the run's target object for its batch (``make_batch``), its
targets and its loss, and lets it act before and after the update and at each check (every
``check_every`` iterations: DAVI's target-network update).

Data. With ``data="tensor"`` (the default of new runs) walks, children and goal masks are made
as tensor operations on the training device (:mod:`learning.walks`); ``data="numpy"`` (runs made
before it, and puzzles without a tensor form) uses :mod:`learning.data`. ``walk="canonical"``
(new runs): cube walks without same-axis cancellations (:mod:`learning.walks`), whose lengths
are closer to the distance.

Monitoring, every C iterations and at the end, into the run folder: ``log.csv`` and
``depth_log.csv`` (:mod:`learning.monitoring`).

Files of a run folder: ``checkpoint.pt`` (everything needed to resume exactly), ``model.pt``
(weights for inference), ``config.json``, ``log.csv``, ``depth_log.csv``.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from core import safe_write
from core.errors import InputError
from learning.checkpoint import (
    CheckpointError,
    check_puzzle,
    inference_copy,
    load_checkpoint,
    non_finite,
    save_checkpoint,
)
from learning.data import Batch, BatchProducer
from learning.devices import amp_dtype, infer_chunk, num_parameters, resolve_device
from learning.monitoring import DEPTH_COLUMNS, LOG_COLUMNS
from learning.networks import FastForward, Network, build_network
from learning.run_files import (
    check_optimizer,
    check_training_state,
    log_iteration,
    optimizer_tensors,
    stop_on_sigterm,
)
from learning.targets import Target, target_for
from learning.targets.davi import set_target_network
from learning.targets.policy import legal_moves, masked_logits
from learning.train_config import (
    TrainConfig,
    _check_finite,
    _check_schedule,
    make_puzzle,
    model_config_for,
    single_goal,
)
from learning.walks import TensorBatch, TensorDomain, domain_for
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.distributed import Dist
    from learning.targets.q import Teacher

class _Inline:
    """Batches made on demand in the trainer's thread: on a GPU (the device queues the work),
    and on a CPU whose every core runs one of the trainer's threads (:func:`spare_core`)."""

    def __init__(self, trainer: Trainer, start: int) -> None:
        self.trainer, self.next = trainer, start

    def get(self) -> Batch | TensorBatch:
        b = self.trainer.make_batch(self.next)
        self.next += 1
        return b

    def close(self) -> None:
        pass


def spare_core() -> bool:
    """Whether this process may use more cores than torch's threads: only then does a thread
    making batches beside the training overlap with it. Without one it slows every step: a
    parallel operation waits for its slowest thread, and one of them shares a core with the
    batch maker (measured on 2 cores: a cube3 step of 1,000 states on two threads took 23.5 ms
    alone, 71 ms beside a busy thread, and 41 ms on one thread)."""
    import os

    import torch

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return torch.get_num_threads() < (cores or 1)


class Trainer:
    """One training run in ``out_dir``; ``Trainer.resume(out_dir)`` continues it exactly.

    ``dist``: this process's place among several training processes (DistributedDataParallel,
    :mod:`learning.distributed`); each trains on its shard of every global batch, and
    only the first (rank 0) monitors, logs and saves."""

    def __init__(self, cfg: TrainConfig, out_dir: str | Path, puzzle: Puzzle | None = None,
                 progress: bool = True, dist: Dist | None = None) -> None:
        self.cfg = cfg.resolved()
        #: what the network is trained to predict (:mod:`learning.targets`)
        self.objective: Target = target_for(self.cfg.target)
        self.dist = dist
        if dist is not None and self.cfg.batch < dist.world:
            raise InputError(f"--nproc: {dist.world} processes need a batch of at least "
                             f"{dist.world} states, got --batch {self.cfg.batch}")
        self.out_dir = Path(out_dir)
        self.puzzle = puzzle if puzzle is not None else make_puzzle(self.cfg.puzzle, self.cfg.goal)
        if self.puzzle.name != self.cfg.puzzle:
            raise InputError(f"puzzle: the config names {self.cfg.puzzle}, got a {self.puzzle.name}")
        self.device = dist.device(self.cfg.device) if dist else resolve_device(self.cfg.device)
        self.progress = progress and (dist is None or dist.main)
        torch.manual_seed(self.cfg.seed)
        self.model_config = model_config_for(self.puzzle, self.cfg)
        self.model = build_network(self.model_config).to(self.device)
        self._ddp: torch.nn.Module | None = None  # the model inside DistributedDataParallel
        self.target: Network | None = None
        self._fast_target: FastForward | None = None
        self.domain: TensorDomain | None = (
            domain_for(self.puzzle, self.device, canonical=self.cfg.walk == "canonical")
            if self.cfg.data == "tensor" else None)
        self.objective.check_puzzle(self.puzzle, self.domain is not None)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.cfg.lr)
        self.iteration = 0
        self.target_updates = 0
        self.states_seen = 0
        self.loss_sum = 0.0
        self.loss_n = 0
        self.log_loss_sum = 0.0
        self.log_loss_n = 0
        self.metrics: dict[str, Any] = {}
        self.elapsed = 0.0
        self.cpu_seconds = 0.0  # process CPU time spent training (all threads), across resumes
        self._heldout: tuple[np.ndarray, np.ndarray] | None = None
        self._policy_eval: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: wall-clock seconds between checkpoints when checks are further apart
        self.save_every_s = 300.0
        #: the iteration of the last checkpoint written or resumed from
        self.saved_iteration: int | None = None
        #: q-distill: the value network distilled, loaded at the first batch
        #: (:meth:`learning.targets.q.QDistillTarget.teacher`)
        self.teacher: Teacher | None = None

    # ------------------------------------------------------------------ persistence
    @classmethod
    def resume(cls, out_dir: str | Path, puzzle: Puzzle | None = None, progress: bool = True,
               device: str | None = None, dist: Dist | None = None) -> Trainer:
        """Rebuild a trainer from ``out_dir/checkpoint.pt`` (made with any process count)."""
        path = Path(out_dir) / "checkpoint.pt"
        if not path.is_file():
            raise InputError(f"--resume: {out_dir} has no checkpoint.pt to resume from")
        ckpt = load_checkpoint(path)
        if ckpt.get("kind") != "train":
            raise CheckpointError(f"--resume: {path} holds weights only, no training state")

        def bad(what: str) -> CheckpointError:
            return CheckpointError(f"--resume: {path} is not a usable training checkpoint ({what})")

        check_training_state(ckpt, bad)
        window = ckpt["loss_window"]
        try:
            cfg = TrainConfig.from_dict(ckpt["train_config"])
        except (TypeError, ValueError) as exc:
            raise bad(f"train_config: {str(exc).splitlines()[0][:160]}") from None
        if device is not None:
            cfg.device = device
        try:
            t = cls(cfg, out_dir, puzzle=puzzle, progress=progress, dist=dist)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            raise bad(f"train_config: {str(exc).splitlines()[0][:160] if str(exc) else exc!r}"
                      ) from None
        check_puzzle(ckpt, t.puzzle, path)
        part = "model"
        try:
            t.model.load_state_dict(ckpt["model"])
            if ckpt.get("target_model") is not None:
                part = "target_model"
                t.target = build_network(t.model_config).to(t.device)
                t.target.load_state_dict(ckpt["target_model"])
                t.target.eval()
            part = "optimizer"
            t.optimizer.load_state_dict(ckpt["optimizer"])
            part = "torch_rng"
            torch.set_rng_state(ckpt["torch_rng"])
        except (RuntimeError, ValueError, KeyError, TypeError, IndexError,
                AttributeError) as exc:
            why = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else repr(exc)
            raise bad(f"{part}: {why}") from None
        check_optimizer(t.optimizer, bad)
        t.iteration = int(ckpt["iteration"])
        t.target_updates = int(ckpt["target_updates"])
        t.states_seen = int(ckpt.get("states_seen", 0))
        t.loss_sum, t.log_loss_sum = float(window[0]), float(window[2])
        t.loss_n, t.log_loss_n = int(window[1]), int(window[3])
        t.metrics = dict(ckpt.get("metrics", {}))
        t.elapsed = float(ckpt.get("elapsed_s", 0.0))
        t.cpu_seconds = float(ckpt.get("cpu_s", 0.0))
        t.saved_iteration = t.iteration
        t._truncate_logs()
        return t

    def checkpoint(self) -> dict[str, Any]:
        return {
            "kind": "train",
            "target": self.cfg.target,
            "puzzle": self.puzzle.name,
            "encoding": self.puzzle.encoding_name,
            "state_dim": self.puzzle.state_dim,
            "num_symbols": self.puzzle.num_symbols,
            "goal": single_goal(self.puzzle),
            "input_adapter": "none",
            "model_config": self.model_config.to_dict(),
            "train_config": self.cfg.to_dict(),
            "iteration": self.iteration,
            "target_updates": self.target_updates,
            "states_seen": self.states_seen,
            "elapsed_s": self.elapsed,
            "cpu_s": self.cpu_seconds,
            "model": {k: v.detach().cpu() for k, v in self.model.state_dict().items()},
            "target_model": ({k: v.detach().cpu() for k, v in self.target.state_dict().items()}
                             if self.target is not None else None),
            "optimizer": self.optimizer.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "loss_window": [self.loss_sum, self.loss_n, self.log_loss_sum, self.log_loss_n],
            "metrics": self.metrics,
        }

    @property
    def main(self) -> bool:
        """True in the process that monitors, logs and saves (the only one, or rank 0)."""
        return self.dist is None or self.dist.main

    def _diverged(self, what: str) -> InputError:
        saved = self.saved_iteration
        kept = (f"the checkpoint of iteration {saved} is kept" if saved is not None
                else "nothing was saved")
        return InputError(f"training diverged at iteration {self.iteration}: {what}; stopped, "
                          f"{kept} (try a smaller --lr)")

    def save(self) -> None:
        """Write the checkpoint, the model and config.json; a network or optimizer state that
        is not finite (a diverged run) is never written over the last good checkpoint."""
        if not self.main:
            return
        ckpt = self.checkpoint()
        bad = non_finite(ckpt["model"]) or non_finite(ckpt["target_model"] or {})
        if not bad:
            bad = [f"optimizer {k}" for k, t in optimizer_tensors(ckpt["optimizer"])
                   if t.is_floating_point() and not bool(torch.isfinite(t).all())]
        if bad:
            raise self._diverged(f"the network's weights are not finite (NaN or inf in "
                                 f"{bad[0]})")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        save_checkpoint(self.out_dir / "checkpoint.pt", ckpt)
        save_checkpoint(self.out_dir / "model.pt", inference_copy(ckpt))
        config = {
            "train_config": self.cfg.to_dict(),
            "model_config": self.model_config.to_dict(),
            "parameters": num_parameters(self.model),
            "iteration": self.iteration,
            "target_updates": self.target_updates,
            "states_seen": self.states_seen,
            "train_seconds": round(self.elapsed, 1),
            "train_cpu_seconds": round(self.cpu_seconds, 1),
            "metrics": self.metrics,
            "torch": torch.__version__,
            "device": str(self.device),
            "processes": self.dist.world if self.dist else 1,
        }
        safe_write.write_json(self.out_dir / "config.json", config, arg="--out")
        self.saved_iteration = self.iteration

    def _truncate_logs(self) -> None:
        """Drop log rows written after the checkpoint (an interrupted run's tail)."""
        if not self.main:
            return
        for name in ("log.csv", "depth_log.csv"):
            path = self.out_dir / name
            if not path.is_file():
                continue
            with open(path, newline="", errors="replace") as f:
                rows = list(csv.reader(f))
            if not rows:
                continue
            keep = [rows[0]] + [r for r in rows[1:] if log_iteration(r) is not None
                                and log_iteration(r) <= self.iteration]  # type: ignore[operator]
            with safe_write.atomic_open(path, "w", newline="", arg="--out") as f:
                csv.writer(f).writerows(keep)

    def _append(self, name: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
        path = self.out_dir / name
        new = not path.is_file()
        with safe_write.open_append(path, binary=False, newline="", arg="--out",
                                    what="training log") as f:
            w = csv.writer(f)
            if new:
                w.writerow(columns)
            w.writerows(rows)

    # ------------------------------------------------------------------ one step
    def _lr(self) -> float:
        changes = self.cfg.extra.get("lr_changes")
        if changes:  # [iteration, learning rate there, decay per iteration from there on]
            start, lr, decay = changes[-1]
            return float(lr) * float(decay) ** (self.iteration - int(start))
        return self.cfg.lr * self.cfg.lr_decay ** self.iteration

    def _lr_decay(self) -> float:
        changes = self.cfg.extra.get("lr_changes")
        return float(changes[-1][2]) if changes else self.cfg.lr_decay

    def in_diffusion_phase(self, iteration: int | None = None) -> bool:
        """True while iteration ``iteration`` (default: the next) regresses on walk lengths."""
        i = self.iteration if iteration is None else iteration
        return self.objective.in_diffusion_phase(self.cfg, i)

    def _codes(self, states: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Network input codes on the device; tensor batches are already codes (every puzzle
        with a tensor form encodes a state as its own entries)."""
        if isinstance(states, torch.Tensor):
            return states.to(self.device)
        return torch.as_tensor(self.puzzle.encode(states)).to(self.device)

    def targets(self, b: Batch | TensorBatch) -> torch.Tensor:
        """The regression or classification targets of batch ``b`` under the run's target
        (:mod:`learning.targets`), computed as a training step computes them."""
        return self.objective.targets(self, b)

    def step(self, b: Batch | TensorBatch) -> float:
        """One training iteration on batch ``b``; returns its loss."""
        self.objective.before_step(self)
        loss = self.update(b, self.targets(b))
        self.objective.after_update(self)
        self.iteration += 1
        self.states_seen += self._global_states(b)
        return loss

    def update(self, b: Batch | TensorBatch, y: torch.Tensor) -> float:
        """One Adam step of the trained network on batch ``b`` against targets ``y``; the loss."""
        x = self._codes(b.states)
        for g in self.optimizer.param_groups:
            g["lr"] = self._lr()
        self.model.train()
        net = self._network()
        with torch.autocast(self.device.type, dtype=amp_dtype(True), enabled=self.cfg.amp):
            pred = net(x).float()
        loss = self.objective.loss(pred, y.to(self.device), b)
        if self.dist is not None:
            # the shard's share of the global batch: DDP's mean over the processes of these
            # gradients is the gradient of the global batch's mean loss
            loss = loss * (x.shape[0] * self.dist.world / self.cfg.batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        if self.dist is not None:
            return self.dist.mean(float(loss.detach()))  # the global batch's loss
        return float(loss.detach())

    def _network(self) -> torch.nn.Module:
        """The module a training step runs: the model, or with several processes the model
        in DistributedDataParallel (made at the first step, after a resume has loaded it)."""
        if self.dist is None:
            return self.model
        if self._ddp is None:
            self._ddp = self.dist.wrap(self.model, self.device)
        return self._ddp

    def close(self, wait: bool = True) -> None:
        """Leave the process group (several processes; nothing otherwise): wait for the other
        processes (``wait``), release the DistributedDataParallel wrapper while they are there,
        then destroy the group."""
        if self.dist is None:
            return
        import gc

        import torch.distributed

        if wait and torch.distributed.is_initialized():
            torch.distributed.barrier()
        self._ddp = None
        gc.collect()
        self.dist.close()

    def _global_states(self, b: Batch | TensorBatch) -> int:
        """States of the global batch ``b`` is (a shard of)."""
        return self.cfg.batch if self.dist is not None else int(b.states.shape[0])

    def _check_target(self) -> None:
        self.objective.at_check(self)

    def set_target(self) -> None:
        """Replace the target network by a copy of the trained one."""
        set_target_network(self)

    # ------------------------------------------------------------------ monitoring
    def value_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """The current network as a batch value function on states (eval mode)."""
        self.model.eval()
        fast = FastForward(self.model, amp_dtype(self.cfg.amp))
        chunk = infer_chunk(self.device, self.cfg.eval_chunk)

        def f(states: np.ndarray) -> np.ndarray:
            codes = torch.as_tensor(self.puzzle.encode(states)).to(self.device)
            v = torch.cat([fast(codes[i:i + chunk]) for i in range(0, codes.shape[0], chunk)]
                          ).cpu().numpy() if codes.shape[0] else np.zeros(0, np.float32)
            v[self.puzzle.is_goal(states)] = 0.0
            return v
        return f

    def logp_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """The current policy network as a batch function ``states -> (B, A)`` log-probabilities
        over the legal moves (eval mode)."""
        self.model.eval()
        fast = FastForward(self.model, amp_dtype(self.cfg.amp))
        chunk = infer_chunk(self.device, self.cfg.eval_chunk)
        a = self.puzzle.num_actions

        def f(states: np.ndarray) -> np.ndarray:
            codes = torch.as_tensor(self.puzzle.encode(states)).to(self.device)
            logits = torch.cat([fast(codes[i:i + chunk]).reshape(-1, a)
                                for i in range(0, codes.shape[0], chunk)]).cpu()
            return torch.log_softmax(masked_logits(logits.double(),
                                                   legal_moves(self.puzzle, states)), 1).numpy()
        return f

    def monitor(self) -> list[list[Any]]:
        """Rows of depth_log.csv: the target's figures per held-out depth."""
        return self.objective.monitor(self)

    def _log(self, states_per_s: float) -> None:
        if not self.main:  # rank 0 monitors and logs
            self.log_loss_sum, self.log_loss_n = 0.0, 0
            return
        loss = self.log_loss_sum / self.log_loss_n if self.log_loss_n else float("nan")
        depth_rows = self.monitor()
        row = [self.iteration, round(loss, 6), f"{self._lr():.6g}", self.target_updates,
               round(states_per_s, 1), round(self.elapsed, 1)]
        self._append("log.csv", LOG_COLUMNS, [row])
        self._append("depth_log.csv", DEPTH_COLUMNS, depth_rows)
        self.metrics = {
            "loss": round(loss, 6),
            "target_updates": self.target_updates,
            "states_per_s": round(states_per_s, 1),
            "greedy_solved": {str(r[1]): r[3] for r in depth_rows},
            "mean_pred": {str(r[1]): r[2] for r in depth_rows},
        }
        self.log_loss_sum, self.log_loss_n = 0.0, 0

    def change_walk(self, walk: str) -> None:
        """Draw walks of kind ``walk`` from the current iteration on (``--resume --walk``); each
        change is kept in ``cfg.extra["walk_changes"]`` as ``[iteration, old, new]``."""
        if walk not in ("canonical", "plain"):
            raise InputError(f"--walk: expected canonical or plain, got {walk!r}")
        if self.cfg.data != "tensor":
            raise InputError("--walk: canonical walks need the tensor data path (--data tensor)")
        if walk != self.cfg.walk:
            self.cfg.extra.setdefault("walk_changes", []).append([self.iteration, self.cfg.walk, walk])
            self.cfg.walk = walk
            self.domain = domain_for(self.puzzle, self.device, canonical=walk == "canonical")

    def change_epsilon(self, epsilon: float) -> None:
        """Use a new target-update threshold from the current iteration on (``--resume
        --epsilon``, e.g. when the loss plateaus above it and target updates stall). Each change
        is kept in ``cfg.extra["epsilon_changes"]`` as ``[iteration, old, new]``."""
        self.objective.check_epsilon_change(self.cfg)
        if not epsilon > 0:
            raise InputError(f"--epsilon: must be positive, got {epsilon}")
        if not math.isfinite(epsilon):
            raise InputError(f"--epsilon: expected a finite number, got {epsilon}")
        if epsilon != self.cfg.epsilon:
            self.cfg.extra.setdefault("epsilon_changes", []).append(
                [self.iteration, self.cfg.epsilon, epsilon])
            self.cfg.epsilon = epsilon

    def change_lr(self, lr: float | None = None, lr_decay: float | None = None) -> None:
        """A new learning-rate schedule from the current iteration on (``--resume --lr
        --lr-decay``, e.g. a low-rate phase that averages out the noise of walk-length targets):
        the rate is ``lr`` here (default: the rate the run has reached) and falls by ``lr_decay``
        per iteration (default: the run's decay). Each change is kept in
        ``cfg.extra["lr_changes"]`` as ``[iteration, lr, lr_decay]``."""
        _check_finite("--lr", lr)
        _check_finite("--lr-decay", lr_decay)
        _check_schedule(lr, lr_decay)
        now, decay = self._lr(), self._lr_decay()
        new = (float(lr) if lr is not None else now, float(lr_decay) if lr_decay is not None else decay)
        if new != (now, decay):
            self.cfg.extra.setdefault("lr_changes", []).append([self.iteration, *new])

    def make_batch(self, iteration: int) -> Batch | TensorBatch:
        """Batch ``iteration`` of this run (the same batch whenever it is made); with several
        processes, this process's shard of it (the walks of the whole batch are made, the
        children of the shard only)."""
        cfg = self.cfg
        assert cfg.k_max is not None
        rows = self.dist.shard(cfg.batch) if self.dist is not None else None
        return self.objective.make_batch(self, iteration, rows)

    def _producer(self) -> BatchProducer | _Inline:
        if self.device.type == "cuda" or not spare_core():
            # on the device, in order, no thread needed; or no core free for a thread
            return _Inline(self, self.iteration)
        return BatchProducer(self.puzzle, self.iteration, 0, 0, 0, False, make=self.make_batch)

    # ------------------------------------------------------------------ main loop
    def train(self, iterations: int, max_seconds: float | None = None,
              max_cpu_seconds: float | None = None) -> dict[str, Any]:
        """Run ``iterations`` more iterations; logs and checkpoints every C and at the end.

        With ``max_seconds``, training also stops (logged and saved) at the first iteration that
        ends after that many wall-clock seconds.
        ``max_cpu_seconds`` does the same on the process's CPU time (every thread; monitoring
        excluded), which compares runs at equal compute on a shared machine.

        On ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM while training) the state after the last
        finished iteration is saved before the exception propagates, so ``--resume`` continues
        exactly. Between checks a checkpoint is also written every ``save_every_s`` seconds.
        With several processes, Ctrl-C, SIGTERM and the limits are agreed on after each
        iteration, so all stop after the same one (rank 0 saves, then they raise together).
        """
        import threading

        from tqdm import tqdm

        if iterations < 0:
            raise InputError(f"--iterations: must be >= 0, got {iterations}")
        cfg = self.cfg
        assert cfg.check_every is not None and cfg.k_max is not None
        if self.main:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        if self.dist is not None:
            self.dist.init(self.device)
        end = self.iteration + iterations
        producer = self._producer()
        bar = tqdm(total=iterations, desc=f"{cfg.target} {self.puzzle.name}", unit="it",
                   disable=not self.progress, dynamic_ncols=True)
        window_start, window_states = time.perf_counter(), 0
        t_last = t_start = last_save = time.perf_counter()
        c_last = time.process_time()
        cpu0 = self.cpu_seconds
        stop = threading.Event()
        agreed = False  # every process raised KeyboardInterrupt after the same iteration
        if self.dist is None:
            restore = stop_on_sigterm()
        else:
            from learning.distributed import stop_on_signals

            restore = stop_on_signals(stop)
        try:
            while self.iteration < end:
                b = producer.get()
                loss = self.step(b)
                if not math.isfinite(loss):
                    raise self._diverged(f"the loss is {loss}")
                now = time.perf_counter()
                self.elapsed += now - t_last
                t_last = now
                cnow = time.process_time()
                self.cpu_seconds += cnow - c_last
                c_last = cnow
                window_states += self._global_states(b)
                self.loss_sum += loss
                self.loss_n += 1
                self.log_loss_sum += loss
                self.log_loss_n += 1
                bar.update(1)
                bar.set_postfix(loss=f"{loss:.4f}", updates=self.target_updates)
                at_check = self.iteration % cfg.check_every == 0
                if at_check:
                    self._check_target()
                    self.loss_sum, self.loss_n = 0.0, 0
                limit = ((max_seconds is not None and now - t_start >= max_seconds)
                         or (max_cpu_seconds is not None
                             and self.cpu_seconds - cpu0 >= max_cpu_seconds))
                if self.dist is not None:  # every process stops after the same iteration
                    limit_n, stop_n = self.dist.sum([float(limit), float(stop.is_set())])
                    if stop_n:
                        agreed = True
                        raise KeyboardInterrupt
                    limit = limit_n > 0
                if limit:
                    end = self.iteration
                if at_check or self.iteration == end:
                    rate = window_states / max(time.perf_counter() - window_start, 1e-9)
                    self._log(rate)
                    self.save()
                    window_start, window_states = time.perf_counter(), 0
                    t_last = last_save = time.perf_counter()  # monitoring is not training time
                    c_last = time.process_time()
                elif now - last_save >= self.save_every_s:
                    self.save()  # between checks too, so a long check interval loses little
                    t_last = last_save = time.perf_counter()
                    c_last = time.process_time()
        except KeyboardInterrupt:
            self.save()
            if agreed:
                import torch.distributed

                torch.distributed.barrier()  # no process leaves before rank 0 has saved
            raise
        finally:
            restore()
            producer.close()
            bar.close()
        if iterations == 0:
            self.save()
        return self.metrics
