"""The convolutional network of Phipat (2020) for sliding tiles (``arch="cnn"``).

The one-hot board as ``N`` channels of a ``width x width`` image, ``layers`` (three) 2x2
convolutions with stride 1 and no padding, each with ``h1`` channels, batch norm and ReLU (a 4x4
board shrinks to 1x1, a 5x5 to 2x2), then two linear layers (``res_dim`` units, then the output).
Preset ``cnn``: 128 channels, 512 units (about 0.2 M parameters on the 15-puzzle). Its inference
form is an eval-mode copy in the wanted precision (nothing is folded).
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.nn import functional as F

from core.errors import InputError
from learning.model_config import ModelConfig
from learning.networks.base import InferenceForm, Network


class CnnNet(Network):
    """Convolutions over the board, then two linear layers (module docstring)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = c = config
        width = int(round(c.state_dim ** 0.5))
        if width * width != c.state_dim or c.one_hot_depth != c.state_dim:
            raise InputError("--arch: cnn reads a sliding-tile board (a square of tiles); "
                             "use resnet or mlp here")
        if not 1 <= c.layers < width:
            raise InputError(f"--num-blocks: a {width}x{width} board takes 1 to {width - 1} "
                             f"2x2 convolutions, got {c.layers}")
        self.width = width
        chans = [c.one_hot_depth] + [c.h1] * c.layers
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 2) for a, b in zip(chans, chans[1:],
                                                                      strict=False))
        self.conv_bn = nn.ModuleList((nn.BatchNorm2d(c.h1) if c.batch_norm else nn.Identity())
                                     for _ in range(c.layers))
        side = width - c.layers
        self.fc = nn.Linear(c.h1 * side * side, c.res_dim)
        self.fc_bn = nn.BatchNorm1d(c.res_dim) if c.batch_norm else nn.Identity()
        self.out = nn.Linear(c.res_dim, c.outputs)

    @classmethod
    def sized(cls, base: ModelConfig, h1: int | None, res_dim: int | None,
              num_blocks: int | None) -> ModelConfig:
        """``--h1``: channels, ``--res-dim``: linear units, ``--num-blocks``: convolutions (by
        default the preset's, at most ``width - 1``: a 3x3 board takes two 2x2 convolutions)."""
        width = int(round(base.state_dim ** 0.5))
        return ModelConfig(base.state_dim, base.one_hot_depth, h1 or base.h1,
                           res_dim or base.res_dim, 0, arch="cnn",
                           layers=min(base.layers, max(1, width - 1)) if num_blocks is None
                           else num_blocks)

    def board(self, codes: torch.Tensor) -> torch.Tensor:
        """``(B, N)`` tile codes -> ``(B, N, width, width)``: channel ``t`` marks tile ``t``."""
        x = F.one_hot(codes.long(), self.config.one_hot_depth)  # (B, cell, tile)
        x = x.permute(0, 2, 1).reshape(codes.shape[0], -1, self.width, self.width)
        return x.to(self.fc.weight.dtype)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = self.board(codes)
        for conv, bn in zip(self.convs, self.conv_bn, strict=True):
            x = F.relu(bn(conv(x)))
        x = F.relu(self.fc_bn(self.fc(x.flatten(1))))
        return self.out(x).squeeze(-1)

    def inference_form(self, dtype: torch.dtype) -> InferenceForm:
        net = copy.deepcopy(self).eval().to(dtype)
        return lambda codes: net(codes).float()

    def export_module(self) -> nn.Module:
        return _EvalNet(self)


class _EvalNet(nn.Module):
    """A network exported as it is in evaluation mode."""

    def __init__(self, net: CnnNet) -> None:
        super().__init__()
        self.net = net.eval()

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        return self.net(codes)
