"""Q-networks as a heuristic: values for every move of a state from one network evaluation.

``QNetHeuristic(puzzle, model=None)`` loads a Q-network trained by ``bench train q-distill``,
``q-learning`` or ``q-diffusion`` (:mod:`learning.targets.q`): a checkpoint file, a run folder or
a model name; without ``model``, the shipped model ``PUZZLE-q``. ``q_values(states)`` gives
``(B, A)`` float64: ``Q(s, a)``, the cost of move ``a`` plus the estimated cost-to-go of its child,
clipped at the move's cost; illegal moves (sliding tiles: off the board) ``inf``. It is a
:class:`heuristics.base.QValues`, what the Q searches read (``qstar``, ``qbeam``:
:mod:`solvers.best_first`, :mod:`solvers.beam`). As a value heuristic (``__call__``) it gives
``min_a Q(s, a)`` (0 at the goal), so every value search runs on it too, at one network
evaluation per state. The network is evaluated as a value network's is
(:class:`learning.inference.NetworkEvaluator`: chunks, ``float32`` or ``bfloat16``, ``device``),
and ``network_evaluations`` counts the states it was given.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from heuristics.base import Heuristic
from learning.inference import NetworkEvaluator
from learning.model_config import ModelConfig
from learning.model_store import q_model
from learning.targets import TARGETS
from learning.targets.policy import legal_moves
from learning.targets.q import MOVE_COST
from puzzles.base import Puzzle


class QNetHeuristic(NetworkEvaluator, Heuristic):
    """A Q-network: ``q_values(states) -> (B, A)``; ``__call__``: the least Q (module docstring)."""

    name = "qnet"
    admissible = False
    consistent = False

    def __init__(self, puzzle: Puzzle, model: str | Path | None = None, device: str | None = None,
                 chunk: int | None = None, precision: str | None = None) -> None:
        super().__init__(puzzle)
        # device and precision: choices and defaults from the registry's entry, stated once
        args = registry.heuristic_entry("qnet").settings(
            {"device": device, "precision": precision}, "heuristic")
        device, precision = args["device"], args["precision"]
        t0 = time.perf_counter()
        ckpt = self.open_checkpoint(q_model(puzzle.name, model), puzzle)
        self.trained_target = str(ckpt["target"])
        if not TARGETS[self.trained_target].per_move:
            raise InputError(f"--model: {self.model_path} is a {self.trained_target} network, "
                             "not a Q-network (bench train q-distill|q-learning|q-diffusion)")
        config = ModelConfig.from_dict(ckpt["model_config"])
        if config.outputs != puzzle.num_actions:
            raise InputError(f"--model: {self.model_path} gives {config.outputs} values a state, "
                             f"{puzzle.name} has {puzzle.num_actions} moves")
        self.info: dict[str, Any] = {k: ckpt.get(k) for k in ("target", "iteration",
                                                               "states_seen", "metrics")}
        self.load_network(ckpt, puzzle, device, chunk, precision)
        self.load_seconds = time.perf_counter() - t0

    def q_values(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, A)`` float64 Q-values, at least the move's cost; illegal moves ``inf``
        (``legal``: the ``(B, A)`` legal moves when the caller has them)."""
        states, raw = self.raw_outputs(states, self.puzzle.num_actions)
        q = np.maximum(raw.astype(np.float64), MOVE_COST)
        if legal is None:
            legal = legal_moves(self.puzzle, states)
        if legal is not None:
            q[~legal] = np.inf
        return q

    def __call__(self, states: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(np.asarray(states))
        if states.shape[0] == 0:
            return np.zeros(0, dtype=np.float32)
        v = self.q_values(states).min(axis=1).astype(np.float32)
        v[self.puzzle.is_goal(states)] = 0.0
        return v
