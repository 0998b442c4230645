"""DeepCubeA's residual fully connected cost-to-go network (``arch="resnet"``).

Architecture (Agostinelli et al. 2019): one-hot input of ``state_dim`` positions with
``one_hot_depth`` symbols each, a hidden layer of ``h1`` units, a second of ``res_dim`` units,
``num_blocks`` residual blocks of two ``res_dim``-unit layers, then one linear output. Every
hidden linear layer is followed by batch norm (optional) and ReLU; a block adds its input before
its last ReLU. DeepCubeA's published networks use ``h1=5000, res_dim=1000, num_blocks=4``
(about 14.7 M parameters on the cube); the smaller presets are for training and searching on a
CPU.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from learning.model_config import ModelConfig
from learning.networks.base import FullyConnected


class ResidualBlock(nn.Module):
    """``x -> relu(x + bn2(fc2(relu(bn1(fc1(x))))))`` on ``(B, dim)``."""

    def __init__(self, dim: int, batch_norm: bool) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.bn1 = nn.BatchNorm1d(dim) if batch_norm else nn.Identity()
        self.fc2 = nn.Linear(dim, dim)
        self.bn2 = nn.BatchNorm1d(dim) if batch_norm else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.fc1(x)))
        y = self.bn2(self.fc2(y))
        return F.relu(x + y)


class ResnetNet(FullyConnected):
    """DeepCubeA's residual network (module docstring)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = c = config
        self._input_layer(c)
        self.hidden = nn.Linear(c.h1, c.res_dim)
        self.hidden_bn = nn.BatchNorm1d(c.res_dim) if c.batch_norm else nn.Identity()
        self.blocks = nn.ModuleList(ResidualBlock(c.res_dim, c.batch_norm)
                                    for _ in range(c.num_blocks))
        self.out = nn.Linear(c.res_dim, c.outputs)

    @classmethod
    def sized(cls, base: ModelConfig, h1: int | None, res_dim: int | None,
              num_blocks: int | None) -> ModelConfig:
        return ModelConfig(base.state_dim, base.one_hot_depth, h1 or base.h1,
                           res_dim or base.res_dim,
                           base.num_blocks if num_blocks is None else num_blocks)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.input_bn(self.input(self.one_hot(codes))))
        x = F.relu(self.hidden_bn(self.hidden(x)))
        for block in self.blocks:
            x = block(x)
        return self.out(x).squeeze(-1)

    def folded_layers(self) -> list[tuple[Any, Any]]:
        return [(self.hidden, self.hidden_bn)]

    def folded_blocks(self) -> list[tuple[Any, Any, Any, Any]]:
        return [(b.fc1, b.bn1, b.fc2, b.bn2) for b in self.blocks]
