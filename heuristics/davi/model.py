"""DeepCubeA's residual fully connected cost-to-go network, with configurable width and depth.

Architecture (Agostinelli et al. 2019): one-hot input of ``state_dim`` positions with
``one_hot_depth`` symbols each, a hidden layer of ``h1`` units, a second of ``res_dim`` units,
``num_blocks`` residual blocks of two ``res_dim``-unit layers, then one linear output. Every
hidden linear layer is followed by batch norm (optional) and ReLU; a block adds its input before
its last ReLU. DeepCubeA's published networks use ``h1=5000, res_dim=1000, num_blocks=4``
(about 14.7 M parameters on the cube); the smaller presets are for training and searching on a
CPU.

The network takes integer codes ``(B, state_dim)`` (``Puzzle.encode``) and does the one-hot
expansion itself, so a batch travels to the device as bytes, not as floats.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from puzzles.base import InputError

#: named sizes: (h1, res_dim, num_blocks)
PRESETS: dict[str, tuple[int, int, int]] = {
    "tiny": (64, 32, 1),  # tests
    "small": (512, 256, 2),  # CPU training of the shipped models (0.3-0.6 M parameters)
    "medium": (1000, 500, 3),  # about 2 M parameters
    "deepcubea": (5000, 1000, 4),  # the published size
}


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of a ``ResnetFC``. ``one_hot_depth`` may exceed the puzzle's ``num_symbols``
    (DeepCubeA's Lights Out network one-hot encodes 0/1 with depth 6)."""

    state_dim: int
    one_hot_depth: int
    h1: int = 512
    res_dim: int = 256
    num_blocks: int = 2
    batch_norm: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelConfig:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    @classmethod
    def preset(cls, name: str, state_dim: int, one_hot_depth: int) -> ModelConfig:
        if name not in PRESETS:
            raise InputError(f"--preset: unknown network size {name!r}; known: {', '.join(PRESETS)}")
        h1, res, blocks = PRESETS[name]
        return cls(state_dim, one_hot_depth, h1, res, blocks)


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


class ResnetFC(nn.Module):
    """Cost-to-go network: integer codes ``(B, state_dim)`` -> values ``(B,)``."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        self.input = nn.Linear(c.state_dim * c.one_hot_depth, c.h1)
        self.input_bn = nn.BatchNorm1d(c.h1) if c.batch_norm else nn.Identity()
        self.hidden = nn.Linear(c.h1, c.res_dim)
        self.hidden_bn = nn.BatchNorm1d(c.res_dim) if c.batch_norm else nn.Identity()
        self.blocks = nn.ModuleList(ResidualBlock(c.res_dim, c.batch_norm) for _ in range(c.num_blocks))
        self.out = nn.Linear(c.res_dim, 1)

    def one_hot(self, codes: torch.Tensor) -> torch.Tensor:
        """``(B, state_dim)`` integer codes -> ``(B, state_dim * one_hot_depth)`` float input."""
        c = self.config
        x = F.one_hot(codes.long(), c.one_hot_depth)
        return x.reshape(codes.shape[0], c.state_dim * c.one_hot_depth).to(self.input.weight.dtype)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.input_bn(self.input(self.one_hot(codes))))
        x = F.relu(self.hidden_bn(self.hidden(x)))
        for block in self.blocks:
            x = block(x)
        return self.out(x).squeeze(-1)


def num_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def parameter_bytes(model: nn.Module) -> int:
    """Bytes of parameters and buffers (batch-norm statistics) held in memory."""
    return sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
