"""The DAVI target (DeepCubeA's Algorithm 1, Agostinelli et al. 2019).

Each iteration draws ``B`` states scrambled ``k ~ U[1, K]`` moves from the goal, computes the
Bellman targets ``y(s) = min over legal actions a of (1 + J_target(child(s, a)))`` with ``J = 0``
at the goal (``y = 0`` when ``s`` is the goal itself; illegal tile moves are ignored;
``J_target`` is clipped at 0), and takes one Adam step on the mean squared error of ``J(s)``
against ``y``. Every ``check_every`` (C) iterations the mean loss of those C iterations is
compared with ``epsilon``; below it, the target network is replaced by the trained one. Before
the first update ``J_target`` is 0 everywhere (value iteration from zero). With ``polyak`` set,
the target network instead follows the trained one by Polyak averaging every iteration
(``target <- (1 - polyak) * target + polyak * online``).

Schedule (``diffusion_warmup`` = W > 0): the first W iterations regress on the walk length
(cheap: no children are evaluated), then the target network is set to the trained one and DAVI's
Bellman targets take over, starting from the diffusion estimate instead of from zero.

The target network (``Trainer.target``, saved with the run) evaluates children through
``FastForward`` (batch norm folded, embedding-bag input), in bfloat16 when ``amp`` is set.
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from learning.devices import amp_dtype, infer_chunk
from learning.networks import FastForward, build_network
from learning.targets.base import ValueTarget

if TYPE_CHECKING:
    from learning.targets.base import TrainBatch
    from learning.train_config import TrainConfig


def bellman_targets(
    values: np.ndarray | torch.Tensor, valid: np.ndarray | torch.Tensor,
    child_goal: np.ndarray | torch.Tensor, is_goal: np.ndarray | torch.Tensor,
) -> torch.Tensor:
    """DAVI targets ``(B,)`` from child values ``(B, A)``, legal mask ``(B, A)``, goal masks.

    ``y = min over legal a of (1 + max(J(child), 0))`` with ``J = 0`` at goal children, and
    ``y = 0`` for states that are the goal.
    """
    j = torch.as_tensor(values, dtype=torch.float32).clamp_min(0.0)
    dev = j.device
    j = j.masked_fill(torch.as_tensor(child_goal, device=dev), 0.0)
    cost = (1.0 + j).masked_fill(~torch.as_tensor(valid, device=dev), math.inf)
    y = cost.min(dim=1).values
    return y.masked_fill(torch.as_tensor(is_goal, device=dev), 0.0)


def set_target_network(t: Any) -> None:
    """Replace the target network of trainer ``t`` by a copy of the trained one."""
    if t.target is None:
        t.target = build_network(t.model_config).to(t.device)
    t.target.load_state_dict(t.model.state_dict())
    t.target.eval()
    t._fast_target = None
    t.target_updates += 1


def target_values(t: Any, children: np.ndarray | torch.Tensor) -> torch.Tensor:
    """``J_target`` of children ``(B, A, L)`` as ``(B, A)`` float32 on the device."""
    bsz, a, length = children.shape
    if t.target is None:
        return torch.zeros(bsz, a, device=t.device)
    if t._fast_target is None:
        t._fast_target = FastForward(t.target, amp_dtype(t.cfg.amp))
    codes = t._codes(children.reshape(bsz * a, length))
    chunk = infer_chunk(t.device, t.cfg.eval_chunk)
    out = torch.cat([t._fast_target(codes[i:i + chunk])
                     for i in range(0, codes.shape[0], chunk)])
    return out.reshape(bsz, a)


class DaviTarget(ValueTarget):
    """Bellman targets from a target network (module docstring)."""

    name = "davi"
    target_network = True
    card_text = "DAVI (deep approximate value iteration)"

    def check_config(self, cfg: TrainConfig) -> None:
        pass  # every option applies

    def in_diffusion_phase(self, cfg: TrainConfig, iteration: int) -> bool:
        return iteration < cfg.diffusion_warmup

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        if self.in_diffusion_phase(t.cfg, b.iteration):
            return self.walk_length_targets(t, b)
        assert b.children is not None and b.valid is not None and b.child_goal is not None
        values = target_values(t, b.children)
        return bellman_targets(values, b.valid, b.child_goal, b.is_goal)

    def before_step(self, t: Any) -> None:
        if t.cfg.diffusion_warmup and t.iteration == t.cfg.diffusion_warmup:
            set_target_network(t)  # the schedule's switch: DAVI starts from the diffusion network

    def after_update(self, t: Any) -> None:
        if t.cfg.polyak is not None and not self.in_diffusion_phase(t.cfg, t.iteration):
            self.polyak(t)

    def polyak(self, t: Any) -> None:
        """``target <- (1 - polyak) * target + polyak * online`` (the first: a copy)."""
        tau = float(t.cfg.polyak or 1.0)
        if t.target is None:
            t.target = copy.deepcopy(t.model).eval()
            t.target_updates += 1
            return
        with torch.no_grad():
            for pt, po in zip(t.target.parameters(), t.model.parameters(), strict=True):
                pt.mul_(1.0 - tau).add_(po, alpha=tau)
            for bt, bo in zip(t.target.buffers(), t.model.buffers(), strict=True):
                bt.copy_(bo)
        t._fast_target = None
        t.target_updates += 1

    def at_check(self, t: Any) -> None:
        """DeepCubeA's update rule: copy the trained network when the window's loss < epsilon."""
        if t.cfg.polyak is not None or t.loss_n == 0:
            return
        if self.in_diffusion_phase(t.cfg, t.iteration - 1):
            return
        assert t.cfg.epsilon is not None
        if t.loss_sum / t.loss_n < t.cfg.epsilon:
            set_target_network(t)

    def check_epsilon_change(self, cfg: TrainConfig) -> None:
        if cfg.polyak is not None:
            super().check_epsilon_change(cfg)
