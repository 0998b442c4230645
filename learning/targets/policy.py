"""The policy target: move prediction (EfficientCube), trained by cross-entropy on the move that
undoes a walk's last move; illegal moves masked."""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from puzzles.base import Puzzle

#: the logit given to an illegal move (its probability underflows to 0)
ILLEGAL = -1e9


def masked_logits(logits: torch.Tensor, legal: torch.Tensor | np.ndarray | None) -> torch.Tensor:
    """``logits (B, A)`` with illegal moves (``legal`` False) set to a logit of probability 0."""
    if legal is None:
        return logits
    return logits.masked_fill(~torch.as_tensor(legal, device=logits.device), ILLEGAL)


def policy_loss(logits: torch.Tensor, labels: torch.Tensor,
                legal: torch.Tensor | None) -> torch.Tensor:
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
