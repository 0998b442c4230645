"""Inference with a trained network: a checkpoint's weights loaded for evaluation (device, chunk
size, precision) and raw forward passes, shared by the value-network and policy heuristics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from core.errors import InputError
from learning.adapters import make_input_fn
from learning.devices import (
    infer_chunk,
    num_parameters,
    parameter_bytes,
    precision_dtype,
    resolve_device,
)
from learning.model_config import ModelConfig
from learning.networks import FastForward, build_network
from puzzles.base import Puzzle


class NetworkEvaluator:
    """The network part of a learned heuristic: loading a checkpoint's weights for inference
    (device, chunk size, precision) and raw forward passes ``(B, L) -> (B, outputs)`` float32
    with evaluation counting and a check for non-finite outputs. Shared by ``davi`` and
    ``policy`` (:mod:`heuristics.policy_net`)."""

    puzzle: Puzzle
    model_path: Path
    network_evaluations: int | None

    def open_checkpoint(self, path: Path, puzzle: Puzzle) -> dict[str, Any]:
        """Load the checkpoint at ``path`` for ``puzzle`` (refused in one line when it is not a
        checkpoint or is another puzzle's); sets ``model_path``."""
        from learning.checkpoint import check_puzzle, load_checkpoint

        self.model_path = path
        ckpt = load_checkpoint(path)
        check_puzzle(ckpt, puzzle, path)
        return ckpt

    def load_network(self, ckpt: dict[str, Any], puzzle: Puzzle, device: str,
                     chunk: int | None, precision: str) -> None:
        """Build the checkpoint's network on ``device`` in evaluation mode, for passes of
        ``chunk`` states (default: the device's) in ``precision`` (``float32`` or
        ``bfloat16``); refused in one line when the weights do not fit the recorded sizes."""
        self.device = resolve_device(device)
        dtype = precision_dtype(precision)
        self.precision = precision
        if chunk is not None and (isinstance(chunk, bool) or int(chunk) < 1):
            raise InputError(f"chunk: must be a positive integer, got {chunk!r}")
        self.chunk = int(chunk) if chunk is not None else infer_chunk(self.device)
        self.net = build_network(ModelConfig.from_dict(ckpt["model_config"]))
        try:
            self.net.load_state_dict(ckpt["model"])
        except RuntimeError as exc:
            raise InputError(f"--model: {self.model_path}: weights do not fit the recorded network "
                             f"sizes ({str(exc).splitlines()[0]})") from None
        self.net.to(self.device).float().eval()
        self.fast = FastForward(self.net, dtype)
        self._input = make_input_fn(ckpt, puzzle)
        self.network_evaluations = 0

    @property
    def nbytes(self) -> int:
        return parameter_bytes(self.net)

    @property
    def num_parameters(self) -> int:
        return num_parameters(self.net)

    def raw_outputs(self, states: np.ndarray, outputs: int) -> tuple[np.ndarray, np.ndarray]:
        """``(states (B, L), out (B, outputs) float32)``: the network's raw outputs, in chunks."""
        states = np.atleast_2d(np.asarray(states))
        if states.ndim != 2 or states.shape[1] != self.puzzle.state_dim:
            raise ValueError(f"states: expected shape (B, {self.puzzle.state_dim}), got {states.shape}")
        n = states.shape[0]
        out = np.empty((n, outputs), dtype=np.float32)
        if n == 0:
            return states, out
        codes = torch.from_numpy(np.ascontiguousarray(self._input(states)))
        with torch.inference_mode():
            for i in range(0, n, self.chunk):
                x = codes[i:i + self.chunk].to(self.device)
                out[i:i + self.chunk] = self.fast(x).reshape(-1, outputs).cpu().numpy()
        self.network_evaluations += n
        finite = np.isfinite(out).all(axis=1)
        if not finite.all():
            raise InputError(f"--model: {self.model_path}: the network gave non-finite values "
                             f"(NaN or inf) for {int((~finite).sum())} of {n} states; "
                             "the model cannot be used")
        return states, out
