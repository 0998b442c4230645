"""A plain stack of ``layers`` hidden layers of ``h1`` units with batch norm and ReLU
(``arch="mlp"``): the network CayleyPy trains on diffusion distance (three 512-unit layers,
about 0.7 M parameters on the cube, preset ``mlp``)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from learning.model_config import ModelConfig
from learning.networks.base import FullyConnected


class MlpNet(FullyConnected):
    """``layers`` hidden layers of ``h1`` units (``mlp``/``mlp_bn`` hold those after the
    first)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = c = config
        self._input_layer(c)
        self.mlp = nn.ModuleList(nn.Linear(c.h1, c.h1) for _ in range(max(0, c.layers - 1)))
        self.mlp_bn = nn.ModuleList((nn.BatchNorm1d(c.h1) if c.batch_norm else nn.Identity())
                                    for _ in range(max(0, c.layers - 1)))
        self.out = nn.Linear(c.h1, c.outputs)

    @classmethod
    def sized(cls, base: ModelConfig, h1: int | None, res_dim: int | None,
              num_blocks: int | None) -> ModelConfig:
        """``--h1`` sets the width, ``--num-blocks`` the number of hidden layers."""
        width = h1 or base.h1
        return ModelConfig(base.state_dim, base.one_hot_depth, width, width, 0, arch="mlp",
                           layers=base.layers if num_blocks is None else num_blocks)

    @classmethod
    def card_text(cls, mc: dict[str, Any]) -> str:
        return (f"one-hot input {mc['state_dim']} x {mc['one_hot_depth']}, {mc.get('layers')} "
                f"hidden layers of {mc['h1']} (batch norm, ReLU), linear output")

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.input_bn(self.input(self.one_hot(codes))))
        for lin, bn in zip(self.mlp, self.mlp_bn, strict=True):
            x = F.relu(bn(lin(x)))
        return self.out(x).squeeze(-1)

    def folded_layers(self) -> list[tuple[Any, Any]]:
        return list(zip(self.mlp, self.mlp_bn, strict=True))
