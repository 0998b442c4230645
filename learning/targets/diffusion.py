"""The diffusion-distance target (CayleyPy): regress ``J(s)`` on the scramble length ``k`` of the
random walk that produced ``s``; no target network."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from learning.targets.base import ValueTarget

if TYPE_CHECKING:
    from learning.targets.base import TrainBatch
    from learning.train_config import TrainConfig


class DiffusionTarget(ValueTarget):
    """Regression on walk lengths (module docstring)."""

    name = "diffusion"

    def in_diffusion_phase(self, cfg: TrainConfig, iteration: int) -> bool:
        return True

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        return self.walk_length_targets(t, b)
