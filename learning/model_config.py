"""Network sizes: ``ModelConfig`` (what a checkpoint records as ``model_config``, checked before any
network is made from it) and the named presets of each architecture (:mod:`learning.networks`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from core.errors import InputError
from learning.limits import MAX_WIDTH

#: the most parameters a recorded network may have (4 GB of float32 weights)
MAX_PARAMETERS = 10**9

#: named sizes: (h1, res_dim, num_blocks)
PRESETS: dict[str, tuple[int, int, int]] = {
    "tiny": (64, 32, 1),  # tests
    "small": (512, 256, 2),  # CPU training of the shipped models (0.3-0.6 M parameters)
    "medium": (1000, 500, 3),  # about 2 M parameters
    "deepcubea": (5000, 1000, 4),  # the published size
}
#: named plain MLPs: (width, hidden layers)
MLP_PRESETS: dict[str, tuple[int, int]] = {
    "mlp-tiny": (32, 2),  # tests
    "mlp": (512, 3),  # CayleyPy's cube network, about 0.7 M parameters on the cube
    "mlp-wide": (1024, 3),  # about 2.4 M parameters
}
#: named CNNs (sliding tiles): (channels, linear units, convolutions)
CNN_PRESETS: dict[str, tuple[int, int, int]] = {
    "cnn-tiny": (8, 16, 3),  # tests
    "cnn": (128, 512, 3),
}
ARCHS = ("resnet", "mlp", "cnn")
#: the preset each architecture starts from when only the architecture is named
ARCH_PRESET = {"resnet": "small", "mlp": "mlp", "cnn": "cnn"}


def preset_arch(name: str) -> str:
    """The architecture of a preset name."""
    return "mlp" if name in MLP_PRESETS else "cnn" if name in CNN_PRESETS else "resnet"


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of a network (:mod:`learning.networks`). ``one_hot_depth`` may exceed the puzzle's ``num_symbols``
    (DeepCubeA's Lights Out network one-hot encodes 0/1 with depth 6)."""

    state_dim: int
    one_hot_depth: int
    h1: int = 512
    res_dim: int = 256
    num_blocks: int = 2
    batch_norm: bool = True
    arch: str = "resnet"
    #: hidden layers of the ``mlp`` architecture (all ``h1`` wide)
    layers: int = 3
    #: outputs: 1 for a cost-to-go network, the number of moves ``A`` for a move-prediction
    #: (policy) network, whose outputs are the logits of the moves
    outputs: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelConfig:
        """The sizes recorded in ``d``, each checked (type and range) before any network is
        made from them: ``InputError`` naming the first that is wrong."""
        if not isinstance(d, dict):
            raise InputError(f"model_config: expected a table, got {type(d).__name__}")
        for k in ("state_dim", "one_hot_depth"):
            if k not in d:
                raise InputError(f"model_config: missing {k}")
        out = cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})
        sizes: tuple[tuple[str, Any, int, int], ...] = (
            ("state_dim", out.state_dim, 1, 10**5), ("one_hot_depth", out.one_hot_depth, 1, 10**4),
            ("h1", out.h1, 1, MAX_WIDTH), ("res_dim", out.res_dim, 1, MAX_WIDTH),
            ("num_blocks", out.num_blocks, 0, 1000), ("layers", out.layers, 0, 1000),
            ("outputs", out.outputs, 1, 10**5))
        for name, v, low, high in sizes:
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise InputError(f"model_config: {name} must be an integer in [{low}, {high}], "
                                 f"got {v!r}")
        if not isinstance(out.batch_norm, bool):
            raise InputError(f"model_config: batch_norm must be true or false, got "
                             f"{out.batch_norm!r}")
        if out.arch not in ARCHS:
            raise InputError(f"model_config: arch must be resnet, mlp or cnn, got {out.arch!r}")
        wide = max(out.h1, out.res_dim)
        estimate = (out.state_dim * out.one_hot_depth * out.h1 + out.h1 * out.res_dim
                    + (2 * out.num_blocks + out.layers) * wide * wide + wide * out.outputs)
        if estimate > MAX_PARAMETERS:
            raise InputError(f"model_config: a network of about {estimate:.3g} parameters is "
                             f"larger than any this program makes ({MAX_PARAMETERS:.0e})")
        return out

    @classmethod
    def preset(cls, name: str, state_dim: int, one_hot_depth: int) -> ModelConfig:
        if name in MLP_PRESETS:
            width, layers = MLP_PRESETS[name]
            return cls(state_dim, one_hot_depth, width, width, 0, arch="mlp", layers=layers)
        if name in CNN_PRESETS:
            channels, units, convs = CNN_PRESETS[name]
            return cls(state_dim, one_hot_depth, channels, units, 0, arch="cnn", layers=convs)
        if name not in PRESETS:
            raise InputError(f"--preset: unknown network size {name!r}; known: "
                             f"{', '.join([*PRESETS, *MLP_PRESETS, *CNN_PRESETS])}")
        h1, res, blocks = PRESETS[name]
        return cls(state_dim, one_hot_depth, h1, res, blocks)
