"""Move-prediction (policy) networks: their move distribution and the ``policy`` heuristic
(EfficientCube, Takano 2023); their training target and loss: :mod:`learning.targets.policy`.

Training (``bench train policy PUZZLE``, target ``policy`` of :class:`learning.trainer.Trainer`).
Batches of random walks from the goal, ``k ~ U[1, K]`` moves each, made as tensor operations
(:meth:`learning.walks.TensorDomain.policy_batch`); a walk never plays a move right after
its inverse. The network (any architecture of :mod:`learning.networks`, with one output per
move) gives move logits; the label is the move that undoes the walk's last move, and the loss is
the cross-entropy of the softmax over the *legal* moves (tiles: a move off the board gets no
probability, in the loss as in search). Lights Out: presses commute and each undoes itself, so a
walk presses distinct cells and every pressed cell is a correct next press; the target is the
uniform distribution over the pressed cells and the loss its cross-entropy with the softmax over
all presses. The expected loss is least when the network gives each pressed cell the share
``1 / k`` (on 7x7, whose press matrix is invertible, the pressed set is the state's unique
shortest solution), so the output stays a distribution over moves, read by search as every other
policy's is. Sokoban (a goal set, pushes that no move undoes): the reverse walks of its value
networks, never undoing the step before unless in a dead end, labelled with the forward move that
undoes the last step (``Sokoban.labelled_reverse_walks``, :func:`learning.data.make_policy_batch`).

Search. The network reads a state and gives log-probabilities of its moves; beam search
(:mod:`solvers.beam`) keeps the ``W`` paths of highest cumulative log-probability. A policy
ranks moves and gives no distance estimate: it is a :class:`heuristics.base.PolicyGuide` (a
:class:`core.capabilities.Policy`), not a heuristic; the registry declares it (``ranks_moves``),
and every solver except ``beam`` refuses it (:func:`solvers.base.require_heuristic`).

``PolicyNet(puzzle, model=None)``: ``model`` is a checkpoint file, a run folder or a model
name (as for ``davi``); without it, the shipped model ``PUZZLE-policy``. It counts the states its
network evaluated (``network_evaluations``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from core import registry
from core.errors import InputError
from heuristics.base import PolicyGuide
from learning.inference import NetworkEvaluator
from learning.model_config import ModelConfig
from learning.model_store import policy_model
from learning.targets import TARGETS
from learning.targets.policy import legal_moves, masked_logits
from puzzles.base import Puzzle


class PolicyNet(NetworkEvaluator, PolicyGuide):
    """A move-prediction network: ``log_probs(states) -> (B, A)``; no values (module docstring)."""

    name = "policy"

    def __init__(self, puzzle: Puzzle, model: str | Path | None = None, device: str | None = None,
                 chunk: int | None = None, precision: str | None = None) -> None:
        super().__init__(puzzle)
        # device and precision: choices and defaults from the registry's entry, stated once
        args = registry.heuristic_entry("policy").settings(
            {"device": device, "precision": precision}, "heuristic")
        device, precision = args["device"], args["precision"]
        t0 = time.perf_counter()
        ckpt = self.open_checkpoint(policy_model(puzzle.name, model), puzzle)
        self.trained_target = str(ckpt["target"])
        if TARGETS[ckpt["target"]].values:
            use = "qnet" if TARGETS[ckpt["target"]].per_move else "davi"
            raise InputError(f"--model: {self.model_path} is a {ckpt['target']} network, "
                             f"not a policy; use it with --heuristic {use}")
        config = ModelConfig.from_dict(ckpt["model_config"])
        if config.outputs != puzzle.num_actions:
            raise InputError(f"--model: {self.model_path} predicts {config.outputs} moves, "
                             f"{puzzle.name} has {puzzle.num_actions}")
        self.info: dict[str, Any] = {k: ckpt.get(k) for k in ("target", "iteration",
                                                               "states_seen", "metrics")}
        self.load_network(ckpt, puzzle, device, chunk, precision)
        self.load_seconds = time.perf_counter() - t0

    def log_probs(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, A)`` float64 log-probabilities of each state's moves, normalised over the legal
        ones (illegal moves: -inf). ``legal``: the ``(B, A)`` legal moves when the caller has
        them (default: from the puzzle)."""
        states, logits = self.raw_outputs(states, self.puzzle.num_actions)
        if legal is None:
            legal = legal_moves(self.puzzle, states)
        logp = torch.log_softmax(masked_logits(torch.from_numpy(logits).double(), legal),
                                 dim=1).numpy()
        if legal is not None:
            logp[~legal] = -np.inf
        return logp
