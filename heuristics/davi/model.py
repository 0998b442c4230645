"""DeepCubeA's residual fully connected cost-to-go network, with configurable width and depth.

Architecture (Agostinelli et al. 2019): one-hot input of ``state_dim`` positions with
``one_hot_depth`` symbols each, a hidden layer of ``h1`` units, a second of ``res_dim`` units,
``num_blocks`` residual blocks of two ``res_dim``-unit layers, then one linear output. Every
hidden linear layer is followed by batch norm (optional) and ReLU; a block adds its input before
its last ReLU. DeepCubeA's published networks use ``h1=5000, res_dim=1000, num_blocks=4``
(about 14.7 M parameters on the cube); the smaller presets are for training and searching on a
CPU.

A second architecture, ``mlp`` (``arch="mlp"``), is a plain stack of ``layers`` hidden layers of
``h1`` units with batch norm and ReLU: the network CayleyPy trains on diffusion distance
(three 512-unit layers, about 0.7 M parameters on the cube, preset ``mlp``).

A third, ``cnn`` (``arch="cnn"``, sliding tiles only), is the convolutional network of Phipat
(2020): the one-hot board as ``N`` channels of a ``width x width`` image, ``layers`` (three)
2x2 convolutions with stride 1 and no padding, each with ``h1`` channels, batch norm and ReLU
(a 4x4 board shrinks to 1x1, a 5x5 to 2x2), then two linear layers (``res_dim`` units, then the
output). Preset ``cnn``: 128 channels, 512 units (about 0.2 M parameters on the 15-puzzle).

The networks take integer codes ``(B, state_dim)`` (``Puzzle.encode``). The first layer is a
linear map of the one-hot input, computed without building the one-hot matrix: its output is the
sum of one weight column per position (``embedding_bag``), which is the same linear map at a
fraction of the cost (54 columns instead of a 324-wide product on the cube). A batch therefore
travels to the device as bytes, not as floats. Training keeps the explicit one-hot product: the
embedding-bag backward pass into the transposed weight is several times slower on the CPU.

``FastForward(net)`` is the inference form of a trained network: batch norm folded into the
linear layers, optionally in bfloat16 (which CPUs with AMX or AVX-512 BF16 and every recent GPU
run at about twice the float32 rate). DAVI's target network and the learned heuristic use it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from core.errors import InputError
from heuristics.davi.limits import MAX_WIDTH

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
    """Sizes of a ``ResnetFC``. ``one_hot_depth`` may exceed the puzzle's ``num_symbols``
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
        for name, low, high in (("state_dim", 1, 10**5), ("one_hot_depth", 1, 10**4),
                                ("h1", 1, MAX_WIDTH), ("res_dim", 1, MAX_WIDTH),
                                ("num_blocks", 0, 1000), ("layers", 0, 1000),
                                ("outputs", 1, 10**5)):
            v = getattr(out, name)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise InputError(f"model_config: {name} must be an integer in [{low}, {high}], "
                                 f"got {v!r}")
        if not isinstance(out.batch_norm, bool):
            raise InputError(f"model_config: batch_norm must be true or false, got "
                             f"{out.batch_norm!r}")
        if out.arch not in ("resnet", "mlp", "cnn"):
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
    """Cost-to-go network: integer codes ``(B, state_dim)`` -> values ``(B,)``; with
    ``outputs = A > 1`` a move-prediction network: codes -> move logits ``(B, A)``.

    ``arch="resnet"``: DeepCubeA's residual network; ``arch="mlp"``: ``layers`` hidden layers
    of ``h1`` units (``hidden``/``blocks`` then hold the layers after the first)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        if c.arch not in ARCHS:
            raise InputError(f"--arch: expected one of {', '.join(ARCHS)}, got {c.arch!r}")
        if c.arch == "cnn":
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
            return
        self.input = nn.Linear(c.state_dim * c.one_hot_depth, c.h1)
        self.input_bn = nn.BatchNorm1d(c.h1) if c.batch_norm else nn.Identity()
        if c.arch == "mlp":
            self.mlp = nn.ModuleList(nn.Linear(c.h1, c.h1) for _ in range(max(0, c.layers - 1)))
            self.mlp_bn = nn.ModuleList((nn.BatchNorm1d(c.h1) if c.batch_norm else nn.Identity())
                                        for _ in range(max(0, c.layers - 1)))
            self.out = nn.Linear(c.h1, c.outputs)
            return
        self.hidden = nn.Linear(c.h1, c.res_dim)
        self.hidden_bn = nn.BatchNorm1d(c.res_dim) if c.batch_norm else nn.Identity()
        self.blocks = nn.ModuleList(ResidualBlock(c.res_dim, c.batch_norm) for _ in range(c.num_blocks))
        self.out = nn.Linear(c.res_dim, c.outputs)

    def one_hot(self, codes: torch.Tensor) -> torch.Tensor:
        """``(B, state_dim)`` integer codes -> ``(B, state_dim * one_hot_depth)`` float input
        (the explicit input the first layer reads; ``forward`` never builds it)."""
        c = self.config
        x = F.one_hot(codes.long(), c.one_hot_depth)
        return x.reshape(codes.shape[0], c.state_dim * c.one_hot_depth).to(self.input.weight.dtype)

    def board(self, codes: torch.Tensor) -> torch.Tensor:
        """``(B, N)`` tile codes -> ``(B, N, width, width)``: channel ``t`` marks tile ``t``."""
        x = F.one_hot(codes.long(), self.config.one_hot_depth)  # (B, cell, tile)
        x = x.permute(0, 2, 1).reshape(codes.shape[0], -1, self.width, self.width)
        return x.to(self.fc.weight.dtype)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        if self.config.arch == "cnn":
            x = self.board(codes)
            for conv, bn in zip(self.convs, self.conv_bn, strict=True):
                x = F.relu(bn(conv(x)))
            x = F.relu(self.fc_bn(self.fc(x.flatten(1))))
            return self.out(x).squeeze(-1)
        x = F.relu(self.input_bn(self.input(self.one_hot(codes))))
        if self.config.arch == "mlp":
            for lin, bn in zip(self.mlp, self.mlp_bn, strict=True):
                x = F.relu(bn(lin(x)))
            return self.out(x).squeeze(-1)
        x = F.relu(self.hidden_bn(self.hidden(x)))
        for block in self.blocks:
            x = block(x)
        return self.out(x).squeeze(-1)


def _fold(lin: Any, bn: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Weight and bias of ``bn(lin(x))`` as one linear layer (batch norm in eval mode)."""
    w = lin.weight.detach()
    b = lin.bias.detach() if lin.bias is not None else torch.zeros(w.shape[0], device=w.device)
    if isinstance(bn, nn.BatchNorm1d | nn.SyncBatchNorm):  # synchronised: trained on processes
        assert bn.running_var is not None and bn.running_mean is not None
        scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
        return w * scale[:, None], (b - bn.running_mean) * scale + bn.bias.detach()
    return w, b


class FastForward:
    """Inference form of a ``ResnetFC`` (eval-mode semantics): batch norm folded into the linear
    layers, weights in ``dtype`` (float32 or bfloat16), outputs float32 ``(B,)`` (``(B, A)`` for
    a network of ``A`` outputs).

    A snapshot: it copies the weights when made (``refresh()`` copies them again)."""

    def __init__(self, net: ResnetFC, dtype: torch.dtype = torch.float32) -> None:
        self.net = net
        self.dtype = dtype
        self.refresh()

    def refresh(self) -> None:
        net, dt = self.net, self.dtype
        c = net.config
        if c.arch == "cnn":  # no folding: an eval-mode copy in the wanted precision
            import copy

            self.copy = copy.deepcopy(net).eval().to(dt)
            return
        self.depth = c.one_hot_depth
        w, b = _fold(net.input, net.input_bn)
        self.w_in = w.t().contiguous().to(dt)
        self.b_in = b.to(dt)
        if c.arch == "mlp":
            self.layers = [tuple(t.to(dt) for t in _fold(lin, bn))
                           for lin, bn in zip(net.mlp, net.mlp_bn, strict=True)]
            self.blocks: list[tuple[torch.Tensor, ...]] = []
        else:
            self.layers = [tuple(t.to(dt) for t in _fold(net.hidden, net.hidden_bn))]
            self.blocks = [tuple(t.to(dt) for t in (*_fold(blk.fc1, blk.bn1), *_fold(blk.fc2, blk.bn2)))
                           for blk in net.blocks]
        # the output layer stays in float32: bfloat16's 8-bit mantissa would round values near
        # 20 to multiples of 0.125 and create ties among states a search must rank
        self.w_out = net.out.weight.detach().float()
        self.b_out = net.out.bias.detach().float()
        self.offsets = torch.arange(c.state_dim, device=self.w_in.device) * c.one_hot_depth

    def __call__(self, codes: torch.Tensor) -> torch.Tensor:
        n = codes.shape[0]
        padded = pass_rows(n) if self.dtype != torch.float32 and codes.device.type == "cpu" else n
        if padded != n:  # zero rows (valid codes) up to the bucket size; dropped below
            codes = torch.cat([codes, codes.new_zeros((padded - n, *codes.shape[1:]))])
        with torch.inference_mode():
            if self.net.config.arch == "cnn":
                return self.copy(codes).float()[:n]
            return self._forward(codes)[:n]

    def _forward(self, codes: torch.Tensor) -> torch.Tensor:  # under __call__'s inference mode
        x = F.embedding_bag(codes.long() + self.offsets, self.w_in, mode="sum")
        x = F.relu(x + self.b_in)
        for w, b in self.layers:
            x = F.relu(F.linear(x, w, b))
        for w1, b1, w2, b2 in self.blocks:
            y = F.relu(F.linear(x, w1, b1))
            x = F.relu(x + F.linear(y, w2, b2))
        return F.linear(x.float(), self.w_out, self.b_out).squeeze(-1)


def pass_rows(n: int) -> int:
    """Rows of a reduced-precision CPU pass of ``n`` states: the next power of two (at least 64).

    On the CPU, bfloat16 layers run through oneDNN, which compiles and caches one kernel per
    batch shape; a search whose layers all differ in size would otherwise keep compiling new
    kernels and fill the cache (about 1 MB each: hundreds of MB a search). Powers of two bound
    the shapes to a handful, at the price of padding the last pass of a batch."""
    return max(64, 1 << (max(n, 1) - 1).bit_length())


def infer_chunk(device: torch.device, limit: int = 65536) -> int:
    """States per forward pass in inference: on the CPU 4,096 (activations stay in the cache;
    measured 2-3x faster than passes of 100,000 states), on a GPU ``limit``."""
    return limit if device.type == "cuda" else min(limit, 4096)


def resolve_device(name: str) -> torch.device:
    """``auto`` (CUDA when torch sees a device, else the CPU), ``cpu`` or ``cuda``."""
    if name not in ("auto", "cpu", "cuda"):
        raise InputError(f"--device: expected auto, cpu or cuda, got {name!r}")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError("--device: cuda requested but torch sees no CUDA device")
    return torch.device(name)


def num_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def parameter_bytes(model: nn.Module) -> int:
    """Bytes of parameters and buffers (batch-norm statistics) held in memory."""
    return sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
