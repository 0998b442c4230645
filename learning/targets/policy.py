"""The policy target: move prediction (EfficientCube), trained by cross-entropy on the move that
undoes a walk's last move; illegal moves masked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch.nn import functional as F

from core.capabilities import HasReverseWalks
from core.errors import InputError
from learning.targets.base import Target
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.targets.base import TrainBatch
    from learning.train_config import TrainConfig

#: the logit given to an illegal move (its probability underflows to 0)
ILLEGAL = -1e9


def masked_logits(logits: torch.Tensor, legal: torch.Tensor | np.ndarray | None) -> torch.Tensor:
    """``logits (B, A)`` with illegal moves (``legal`` False) set to a logit of probability 0."""
    if legal is None:
        return logits
    return logits.masked_fill(~torch.as_tensor(legal, device=logits.device), ILLEGAL)


def policy_loss(logits: torch.Tensor, labels: torch.Tensor,
                legal: torch.Tensor | np.ndarray | None) -> torch.Tensor:
    """Mean cross-entropy of the legal-move softmax against ``labels``: move indices ``(B,)``,
    or ``(B, A)`` 0/1 sets of correct moves (the uniform distribution over each set)."""
    logp = F.log_softmax(masked_logits(logits, legal), dim=1)
    if labels.ndim == 1:
        return F.nll_loss(logp, labels.long())
    target = labels.float()
    target = target / target.sum(dim=1, keepdim=True).clamp_min(1.0)
    return -(target * logp).sum(dim=1).mean()


def legal_moves(puzzle: Puzzle, states: np.ndarray) -> np.ndarray | None:
    """``(B, A)`` legal moves, or None when every move is always legal (cubes, Lights Out)."""
    from puzzles.npuzzle import NPuzzle
    from puzzles.sokoban import Sokoban

    return puzzle.expand(states)[1] if isinstance(puzzle, NPuzzle | Sokoban) else None


class PolicyTarget(Target):
    """Move prediction: one output per move, cross-entropy against the move that undoes the
    walk's last move (Lights Out: the uniform distribution over the pressed cells); illegal tile
    moves are masked in the loss. No target network. Monitoring: per held-out depth, the mean
    probability of the correct moves (``mean_pred``) and the share a greedy rollout of the most
    probable move solves."""

    name = "policy"
    values = False
    card_text = "move prediction (cross-entropy against the moves that undo a random walk's last move)"

    def check_config(self, cfg: TrainConfig) -> None:
        super().check_config(cfg)
        if cfg.backtrack:
            raise InputError("--backtrack: policy scrambles never play a move right after its "
                             "inverse (the label is the move that undoes the last one)")
        if cfg.data != "tensor":
            raise InputError("data: policy batches are made as tensor operations (--data tensor)")

    def check_puzzle(self, puzzle: Puzzle, tensor_walks: bool) -> None:
        if not tensor_walks and not isinstance(puzzle, HasReverseWalks):
            raise InputError(f"policy: {puzzle.name} has no labelled scrambles; policies "
                             "train on cubes, sliding tiles, Lights Out and Sokoban")

    def outputs(self, puzzle: Puzzle) -> int:
        return int(puzzle.num_actions)

    def make_batch(self, t: Any, iteration: int, rows: slice | None) -> TrainBatch:
        cfg = t.cfg
        if t.domain is None:  # a goal set (Sokoban): labelled reverse walks in numpy
            from learning.data import make_policy_batch

            return make_policy_batch(t.puzzle, iteration, cfg.seed, cfg.batch, cfg.k_max,
                                     rows=rows)
        return t.domain.policy_batch(iteration, cfg.seed, cfg.batch, cfg.k_max, cfg.backtrack,
                                     rows=rows)

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        assert b.labels is not None
        return torch.as_tensor(b.labels)

    def loss(self, pred: torch.Tensor, y: torch.Tensor, b: TrainBatch) -> torch.Tensor:
        return policy_loss(pred, y, b.legal)

    def heldout(self, t: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Held-out policy scrambles: ``(depths (D,), states (D*n, L), labels)``, drawn from a
        stream apart from every training batch's."""
        from learning.walks import batch_generator, domain_for

        cfg = t.cfg
        assert cfg.k_max is not None
        k = cfg.k_max
        depths = np.unique(np.linspace(1, k, min(cfg.eval_depths, k)).round().astype(int))
        walks = np.repeat(depths, cfg.eval_per_depth)
        if t.domain is None:  # a goal set (Sokoban); a walk that could not move keeps its
            # solved level and the label -1 (a greedy rollout solves it in no move)
            rng = np.random.default_rng([cfg.seed, 2**31 - 1])
            states, labels, _ = t.puzzle.labelled_reverse_walks(walks, rng)
            return depths, states, labels
        # a domain of its own: the batch producer's thread walks the trainer's at the same time
        domain = domain_for(t.puzzle, t.device, canonical=cfg.walk == "canonical")
        assert domain is not None
        gen = batch_generator(cfg.seed, -1, t.device)
        states_t, labels_t = domain.labelled_walks(torch.as_tensor(walks, device=t.device),
                                                   gen, cfg.backtrack)
        return depths, states_t.cpu().numpy(), labels_t.cpu().numpy()

    def monitor(self, t: Any) -> list[list[Any]]:
        from learning.monitoring import policy_rollout

        if t._policy_eval is None:
            t._policy_eval = self.heldout(t)
        depths, states, labels = t._policy_eval
        f = t.logp_fn()
        p = np.exp(f(states))
        if labels.ndim == 1:  # (a label -1, a walk that could not move, counts as correct)
            correct = np.where(labels >= 0, p[np.arange(len(labels)), np.maximum(labels, 0)],
                               1.0)
        else:
            correct = (p * labels).sum(axis=1)
        n = t.cfg.eval_per_depth
        limits = np.minimum(2 * depths + 10, t.cfg.eval_max_steps)
        solved = policy_rollout(t.puzzle, f, states, np.repeat(limits, n))
        pred = correct.reshape(len(depths), n).mean(axis=1)
        share = solved.reshape(len(depths), n).mean(axis=1)
        t.model.train()
        return [[t.iteration, int(d), round(float(q), 4), round(float(v), 4)]
                for d, q, v in zip(depths, pred, share, strict=True)]
