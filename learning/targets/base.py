"""What a training target is to the trainer (:class:`learning.trainer.Trainer`): the options it
accepts, its network's outputs, what a batch needs, how the targets of a batch are computed, the
loss, what happens around each step and at each check, and the monitoring rows.

A target object holds no state of its own: the run's state (networks, optimizer, counters) stays
on the trainer, which saves it; the methods here receive the trainer (``t``) and read or update
it. The one table from a target name to its class is :data:`learning.targets.TARGETS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from core.errors import InputError
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.data import Batch
    from learning.train_config import TrainConfig
    from learning.walks import TensorBatch

    #: a training batch: made in numpy (:class:`learning.data.Batch`) or as tensors on the
    #: device (:class:`learning.walks.TensorBatch`); both declare the same fields
    TrainBatch = Batch | TensorBatch


class Target:
    """A training target (module docstring); subclasses override what differs."""

    #: the name runs and checkpoints record (``TrainConfig.target``, checkpoint ``target``)
    name = ""
    #: True when the network estimates a distance (False: it ranks moves)
    values = True
    #: True when the run keeps a target network (updates counted, ``epsilon`` applies)
    target_network = False
    #: True when the network gives one value per move (a Q-network, :mod:`learning.targets.q`)
    per_move = False
    #: True when the run learns from a teacher network (``TrainConfig.teacher``)
    takes_teacher = False
    #: how a model card names the target
    card_text = "regression on the random-walk length (diffusion distance)"

    def check_config(self, cfg: TrainConfig) -> None:
        """``InputError`` for options this target does not take."""
        if cfg.diffusion_warmup:
            raise InputError("--diffusion-warmup: only DAVI runs start with a diffusion phase")

    def check_puzzle(self, puzzle: Puzzle, tensor_walks: bool) -> None:
        """``InputError`` when this target cannot train on ``puzzle`` (``tensor_walks``: the
        puzzle's batches are made as tensor operations)."""

    def outputs(self, puzzle: Puzzle) -> int:
        """The network's outputs."""
        return 1

    def in_diffusion_phase(self, cfg: TrainConfig, iteration: int) -> bool:
        """True while iteration ``iteration`` regresses on walk lengths."""
        return False

    def make_batch(self, t: Any, iteration: int, rows: slice | None) -> TrainBatch:
        """Batch ``iteration`` of the run of trainer ``t`` (``rows``: this process's shard)."""
        raise NotImplementedError

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        """The training targets of batch ``b``."""
        raise NotImplementedError

    def loss(self, pred: torch.Tensor, y: torch.Tensor, b: TrainBatch) -> torch.Tensor:
        """The loss of the network's outputs ``pred`` against targets ``y`` on batch ``b``."""
        raise NotImplementedError

    def before_step(self, t: Any) -> None:
        """Called at the start of each training step, before its targets are computed."""

    def after_update(self, t: Any) -> None:
        """Called after each step's Adam update, before the iteration count advances."""

    def at_check(self, t: Any) -> None:
        """Called every ``check_every`` iterations, with the window's loss sums still set."""

    def check_epsilon_change(self, cfg: TrainConfig) -> None:
        """``InputError`` unless the run updates a target network by a loss threshold."""
        raise InputError("--epsilon: this run does not update its target by a loss threshold")

    def monitor(self, t: Any) -> list[list[Any]]:
        """Rows of ``depth_log.csv`` for the current network: ``[iteration, depth, mean_pred,
        greedy_solved]`` per held-out depth."""
        raise NotImplementedError


class ValueTarget(Target):
    """A cost-to-go target: mean squared error; monitoring by the mean prediction and a greedy
    rollout on a fixed held-out set per depth."""

    def make_batch(self, t: Any, iteration: int, rows: slice | None) -> TrainBatch:
        cfg = t.cfg
        children = not self.in_diffusion_phase(cfg, iteration)
        if t.domain is not None:
            return t.domain.batch(iteration, cfg.seed, cfg.batch, cfg.k_max, children,
                                  cfg.backtrack, rows=rows)
        from learning.data import make_batch

        return make_batch(t.puzzle, iteration, cfg.seed, cfg.batch, cfg.k_max, children,
                          cfg.backtrack, rows=rows)

    def walk_length_targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        """The diffusion targets: each state's walk length (0 at the goal)."""
        return torch.as_tensor(b.depths, dtype=torch.float32, device=t.device).masked_fill(
            torch.as_tensor(b.is_goal, device=t.device), 0.0)

    def loss(self, pred: torch.Tensor, y: torch.Tensor, b: TrainBatch) -> torch.Tensor:
        from torch.nn import functional as F

        return F.mse_loss(pred, y)

    def monitor(self, t: Any) -> list[list[Any]]:
        from learning.monitoring import greedy_rollout, heldout_set

        if t._heldout is None:
            t._heldout = heldout_set(t.puzzle, t.cfg)
        depths, states = t._heldout
        f = t.value_fn()
        n = states.shape[1]
        flat = states.reshape(len(depths) * n, -1)
        pred = f(flat).reshape(len(depths), n).mean(axis=1)
        limits = np.minimum(2 * depths + 10, t.cfg.eval_max_steps)
        solved = greedy_rollout(t.puzzle, f, flat, np.repeat(limits, n))
        share = solved.reshape(len(depths), n).mean(axis=1)
        rows = [[t.iteration, int(d), round(float(p), 4), round(float(v), 4)]
                for d, p, v in zip(depths, pred, share, strict=True)]
        t.model.train()
        return rows
