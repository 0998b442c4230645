"""The learned heuristic: a trained cost-to-go network evaluated on whole batches of states.

``ValueNetHeuristic(puzzle, model=None)`` loads ``model``: a checkpoint file, a training run
folder (its ``model.pt``), or a model name (a folder under ``heuristics/models/`` shipped with
the package, or under ``$BENCH_CACHE/models/``). Without ``model`` it loads the shipped model
named like the puzzle. The values are float32 and not admissible; the goal always gets 0 and
negative outputs are clipped to 0. Evaluation uses the network's inference form
(``FastForward``: batch norm folded, embedding-bag input) in passes of ``chunk`` states (default
4,096 on the CPU, where activations then stay in the cache, and 65,536 on a GPU), in float32 or,
with ``precision="bfloat16"``, with bfloat16 hidden layers (about 3x the float32 rate on CPUs
with AMX; the output layer stays float32). ``device``: ``cpu``, ``cuda`` or ``auto`` (CUDA when
present). The number of torch threads is the caller's to set (``torch.set_num_threads``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from core.labels import heuristic_label
from core.registry import VALUE_NET
from heuristics.base import Heuristic, IdaSpec
from learning.inference import NetworkEvaluator
from learning.model_store import resolve_model
from learning.targets import TARGETS
from puzzles.base import Puzzle


class ValueNetHeuristic(NetworkEvaluator, Heuristic):
    """Cost-to-go network as a batch heuristic (``__call__``: ``(B, L) -> (B,)`` float32)."""

    name = VALUE_NET
    admissible = False
    consistent = False

    def __init__(self, puzzle: Puzzle, model: str | Path | None = None, device: str | None = None,
                 chunk: int | None = None, precision: str | None = None) -> None:
        super().__init__(puzzle)
        # device and precision: choices and defaults from the registry's entry, stated once
        args = registry.heuristic_entry(VALUE_NET).settings(
            {"device": device, "precision": precision}, "heuristic")
        device, precision = args["device"], args["precision"]
        t0 = time.perf_counter()
        ckpt = self.open_checkpoint(resolve_model(puzzle.name, model), puzzle)
        self.trained_target: str = ckpt["target"]
        if not TARGETS[self.trained_target].values:
            raise InputError(f"--model: {self.model_path} is a policy (it ranks moves, gives no "
                             "distance); use it with --heuristic policy --solver beam")
        if TARGETS[self.trained_target].per_move:
            raise InputError(f"--model: {self.model_path} is a Q-network (one value per move); "
                             "use it with --heuristic qnet")
        self.name = heuristic_label(VALUE_NET, self.trained_target)  # value-net (diffusion)
        self.info: dict[str, Any] = {
            k: ckpt.get(k) for k in ("target", "iteration", "target_updates", "states_seen",
                                     "metrics", "input_adapter")
        }
        self.load_network(ckpt, puzzle, device, chunk, precision)
        self.load_seconds = time.perf_counter() - t0

    def ida_spec(self) -> IdaSpec | None:
        return None

    def __call__(self, states: np.ndarray) -> np.ndarray:
        states, raw = self.raw_outputs(states, 1)
        out = raw[:, 0]
        if out.size == 0:
            return out
        np.maximum(out, 0.0, out=out)
        out[self.puzzle.is_goal(states)] = 0.0
        return out
