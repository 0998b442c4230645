"""What every network architecture shares: the ``Network`` base class, the inference form
``FastForward`` and the folded fully connected form of the ``resnet`` and ``mlp`` networks.

The networks take integer codes ``(B, state_dim)`` (``Puzzle.encode``). The first layer of a fully
connected network is a linear map of the one-hot input, computed in inference without building
the one-hot matrix: its output is the sum of one weight column per position (``embedding_bag``),
which is the same linear map at a fraction of the cost (54 columns instead of a 324-wide product
on the cube). A batch therefore travels to the device as bytes, not as floats. Training keeps the
explicit one-hot product: the embedding-bag backward pass into the transposed weight is several
times slower on the CPU.

``FastForward(net)`` is the inference form of a trained network: batch norm folded into the
linear layers, optionally in bfloat16 (which CPUs with AMX or AVX-512 BF16 and every recent GPU
run at about twice the float32 rate). DAVI's target network and the learned heuristics use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from learning.model_config import ModelConfig

#: a network's inference computation: codes ``(B, L)`` -> float32 ``(B,)`` or ``(B, A)``
InferenceForm = Callable[[torch.Tensor], torch.Tensor]


class Network(nn.Module):
    """A network of one architecture: integer codes ``(B, state_dim)`` -> values ``(B,)``; with
    ``outputs = A > 1`` a move-prediction network: codes -> move logits ``(B, A)``.

    An architecture (a subclass, listed in :data:`learning.networks.ARCHITECTURES`) says how the
    run's size options shape its preset (``sized``), how it computes in inference
    (``inference_form``) and which module stands for it in an ONNX export (``export_module``)."""

    config: ModelConfig

    @classmethod
    def sized(cls, base: ModelConfig, h1: int | None, res_dim: int | None,
              num_blocks: int | None) -> ModelConfig:
        """The sizes of a run: the preset ``base`` with the run's ``--h1``, ``--res-dim`` and
        ``--num-blocks`` (each None: the preset's)."""
        raise NotImplementedError

    @classmethod
    def card_text(cls, mc: dict[str, Any]) -> str:
        """How a model card describes a network of the recorded sizes ``mc``."""
        return (f"one-hot input {mc['state_dim']} x {mc['one_hot_depth']}, first layer {mc['h1']}, "
                f"residual width {mc['res_dim']}, {mc['num_blocks']} residual blocks")

    def inference_form(self, dtype: torch.dtype) -> InferenceForm:
        """The eval-mode computation of this network in ``dtype``, a snapshot of its weights."""
        raise NotImplementedError

    def export_module(self) -> nn.Module:
        """A float32 module computing what ``FastForward`` computes, for torch's ONNX export."""
        raise NotImplementedError


class FullyConnected(Network):
    """A network whose first layer reads the one-hot input (``resnet``, ``mlp``)."""

    input: nn.Linear
    input_bn: nn.Module
    out: nn.Linear

    def _input_layer(self, c: ModelConfig) -> None:
        self.input = nn.Linear(c.state_dim * c.one_hot_depth, c.h1)
        self.input_bn = nn.BatchNorm1d(c.h1) if c.batch_norm else nn.Identity()

    def one_hot(self, codes: torch.Tensor) -> torch.Tensor:
        """``(B, state_dim)`` integer codes -> ``(B, state_dim * one_hot_depth)`` float input
        (the explicit input the first layer reads; inference never builds it)."""
        c = self.config
        x = F.one_hot(codes.long(), c.one_hot_depth)
        return x.reshape(codes.shape[0], c.state_dim * c.one_hot_depth).to(self.input.weight.dtype)

    def folded_layers(self) -> list[tuple[Any, Any]]:
        """``(linear, batch norm)`` pairs after the input layer, outside residual blocks."""
        raise NotImplementedError

    def folded_blocks(self) -> list[tuple[Any, Any, Any, Any]]:
        """``(fc1, bn1, fc2, bn2)`` of each residual block."""
        return []

    def inference_form(self, dtype: torch.dtype) -> InferenceForm:
        return FoldedFC(self, dtype)

    def export_module(self) -> nn.Module:
        return FoldedNet(FoldedFC(self, torch.float32), self.config.outputs).eval()


def _fold(lin: Any, bn: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Weight and bias of ``bn(lin(x))`` as one linear layer (batch norm in eval mode)."""
    w = lin.weight.detach()
    b = lin.bias.detach() if lin.bias is not None else torch.zeros(w.shape[0], device=w.device)
    if isinstance(bn, nn.BatchNorm1d | nn.SyncBatchNorm):  # synchronised: trained on processes
        assert bn.running_var is not None and bn.running_mean is not None
        scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
        return w * scale[:, None], (b - bn.running_mean) * scale + bn.bias.detach()
    return w, b


class FoldedFC:
    """The inference form of a fully connected network: batch norm folded into the linear
    layers, hidden weights in ``dtype``, an embedding-bag input layer."""

    def __init__(self, net: FullyConnected, dt: torch.dtype) -> None:
        c = net.config
        self.depth = c.one_hot_depth
        w, b = _fold(net.input, net.input_bn)
        self.w_in = w.t().contiguous().to(dt)
        self.b_in = b.to(dt)
        self.layers = [tuple(t.to(dt) for t in _fold(lin, bn)) for lin, bn in net.folded_layers()]
        self.blocks = [tuple(t.to(dt) for t in (*_fold(f1, b1), *_fold(f2, b2)))
                       for f1, b1, f2, b2 in net.folded_blocks()]
        # the output layer stays in float32: bfloat16's 8-bit mantissa would round values near
        # 20 to multiples of 0.125 and create ties among states a search must rank
        self.w_out = net.out.weight.detach().float()
        self.b_out = net.out.bias.detach().float()
        self.offsets = torch.arange(c.state_dim, device=self.w_in.device) * c.one_hot_depth

    def __call__(self, codes: torch.Tensor) -> torch.Tensor:  # under FastForward's inference mode
        x = F.embedding_bag(codes.long() + self.offsets, self.w_in, mode="sum")
        x = F.relu(x + self.b_in)
        for w, b in self.layers:
            x = F.relu(F.linear(x, w, b))
        for w1, b1, w2, b2 in self.blocks:
            y = F.relu(F.linear(x, w1, b1))
            x = F.relu(x + F.linear(y, w2, b2))
        return F.linear(x.float(), self.w_out, self.b_out).squeeze(-1)


def _linear(w: torch.Tensor, b: torch.Tensor) -> nn.Linear:
    """A float32 ``nn.Linear`` holding weight ``w (out, in)`` and bias ``b``."""
    lin = nn.Linear(w.shape[1], w.shape[0])
    with torch.no_grad():
        lin.weight.copy_(w.float())
        lin.bias.copy_(b.float())
    return lin


class FoldedNet(nn.Module):
    """``FoldedFC``'s float32 computation as a module torch can export: codes ``(B, L)``
    int64 -> ``(B,)`` values or ``(B, A)`` logits."""

    w_in: torch.Tensor
    b_in: torch.Tensor
    symbols: torch.Tensor

    def __init__(self, fast: FoldedFC, outputs: int) -> None:
        super().__init__()
        self.outputs = outputs
        self.register_buffer("w_in", fast.w_in.float().clone())
        self.register_buffer("b_in", fast.b_in.float().clone())
        self.register_buffer("symbols", torch.arange(fast.depth))
        self.layers = nn.ModuleList()
        for w, b in fast.layers:
            self.layers.append(_linear(w, b))
        self.firsts = nn.ModuleList(_linear(w1, b1) for w1, b1, _, _ in fast.blocks)
        self.seconds = nn.ModuleList(_linear(w2, b2) for _, _, w2, b2 in fast.blocks)
        self.out = _linear(fast.w_out, fast.b_out)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        onehot = torch.eq(codes.long().unsqueeze(-1), self.symbols).float()
        x = F.relu(onehot.flatten(1) @ self.w_in + self.b_in)
        for lin in self.layers:
            x = F.relu(lin(x))
        for first, second in zip(self.firsts, self.seconds, strict=True):
            x = F.relu(x + second(F.relu(first(x))))
        y = self.out(x)
        return y.squeeze(-1) if self.outputs == 1 else y


class FastForward:
    """Inference form of a ``Network`` (eval-mode semantics): for the fully connected networks,
    batch norm folded into the linear layers, weights in ``dtype`` (float32 or bfloat16), outputs
    float32 ``(B,)`` (``(B, A)`` for a network of ``A`` outputs).

    A snapshot: it copies the weights when made (``refresh()`` copies them again)."""

    def __init__(self, net: Network, dtype: torch.dtype = torch.float32) -> None:
        self.net = net
        self.dtype = dtype
        self.refresh()

    def refresh(self) -> None:
        self.form = self.net.inference_form(self.dtype)

    def __call__(self, codes: torch.Tensor) -> torch.Tensor:
        n = codes.shape[0]
        padded = pass_rows(n) if self.dtype != torch.float32 and codes.device.type == "cpu" else n
        if padded != n:  # zero rows (valid codes) up to the bucket size; dropped below
            codes = torch.cat([codes, codes.new_zeros((padded - n, *codes.shape[1:]))])
        with torch.inference_mode():
            return self.form(codes)[:n]


def pass_rows(n: int) -> int:
    """Rows of a reduced-precision CPU pass of ``n`` states: the next power of two (at least 64).

    On the CPU, bfloat16 layers run through oneDNN, which compiles and caches one kernel per
    batch shape; a search whose layers all differ in size would otherwise keep compiling new
    kernels and fill the cache (about 1 MB each: hundreds of MB a search). Powers of two bound
    the shapes to a handful, at the price of padding the last pass of a batch."""
    return max(64, 1 << (max(n, 1) - 1).bit_length())
