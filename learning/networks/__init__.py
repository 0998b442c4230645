"""Networks: one module per architecture (``resnet``, ``mlp``, ``cnn``), the table that names
them, and building or loading a network from its recorded sizes (:mod:`learning.model_config`)."""

from __future__ import annotations

from typing import Any

from core.errors import InputError
from learning.model_config import ModelConfig
from learning.networks.base import FastForward, Network
from learning.networks.cnn import CnnNet
from learning.networks.mlp import MlpNet
from learning.networks.resnet import ResnetNet

#: architecture name (``ModelConfig.arch``) -> its network class
ARCHITECTURES: dict[str, type[Network]] = {"resnet": ResnetNet, "mlp": MlpNet, "cnn": CnnNet}

__all__ = ["ARCHITECTURES", "FastForward", "Network", "build_network", "load_network"]


def build_network(config: ModelConfig) -> Network:
    """A new network of ``config``'s architecture and sizes."""
    cls = ARCHITECTURES.get(config.arch)
    if cls is None:
        raise InputError(f"--arch: expected one of {', '.join(ARCHITECTURES)}, "
                         f"got {config.arch!r}")
    return cls(config)


def load_network(ckpt: dict[str, Any]) -> Network:
    """The network a checkpoint records (sizes checked), with its weights loaded;
    ``RuntimeError`` when the weights do not fit the sizes."""
    net = build_network(ModelConfig.from_dict(ckpt["model_config"]))
    net.load_state_dict(ckpt["model"])
    return net
