"""Int8 storage of a network's weights: one byte a weight, one float32 scale per output row.

A model file stored this way (``weights_storage = "int8"`` in the checkpoint) holds each large
weight matrix ``W`` (float, two or more dimensions, at least ``MIN_NUMEL`` values) as
``q = round(W / s)`` in int8 under its own name, and the row scales ``s = max |W[i]| / 127``
(float32) under ``name + SCALE_SUFFIX``; every other tensor (biases, batch-norm statistics,
small matrices) and the output layer (``out.*``, whose rounding would move the scores that
search ranks directly) stay as they were. Loading multiplies back, so the network runs in float32 (or
bfloat16) with weights off by at most half a scale step each: storage shrinks about four times
against float32, computation is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

#: the key suffix of a quantized tensor's row scales (a name no module attribute can have)
SCALE_SUFFIX = ":scale"
#: tensors smaller than this stay in their own type (the bytes they would save are few)
MIN_NUMEL = 4096
#: the networks' output layer (``learning.networks``): kept in its own type
KEEP_PREFIXES = ("out.",)
#: the storage kinds a checkpoint may declare
STORAGES = ("float32", "int8")


class QuantizeError(ValueError):
    """A state dict whose int8 tensors and scales do not belong together."""


def is_quantized(state_dict: Mapping[str, torch.Tensor]) -> bool:
    """Whether ``state_dict`` holds int8 weights with their scales."""
    return any(k.endswith(SCALE_SUFFIX) for k in state_dict)


def quantize_int8(state_dict: Mapping[str, torch.Tensor], min_numel: int = MIN_NUMEL,
                  keep_prefixes: tuple[str, ...] = KEEP_PREFIXES) -> dict[str, torch.Tensor]:
    """The state dict with every floating-point tensor of two or more dimensions and at least
    ``min_numel`` values, but those named with one of ``keep_prefixes``, stored as int8 rows and
    float32 row scales (see the module text); a dict already quantized comes back as it is."""
    if is_quantized(state_dict):
        return dict(state_dict)
    out: dict[str, torch.Tensor] = {}
    for name, t in state_dict.items():
        if not (t.is_floating_point() and t.dim() >= 2 and t.numel() >= min_numel) \
                or name.startswith(keep_prefixes):
            out[name] = t
            continue
        rows = t.detach().to(torch.float32).reshape(t.shape[0], -1)
        scale = rows.abs().amax(dim=1) / 127.0
        scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # all-zero rows stay zero
        q = torch.round(rows / scale.unsqueeze(1)).clamp_(-127, 127).to(torch.int8)
        out[name] = q.reshape(t.shape).contiguous()
        out[name + SCALE_SUFFIX] = scale.contiguous()
    return out


def dequantize(state_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The float32 state dict of one stored by ``quantize_int8``; ``QuantizeError`` when an int8
    tensor has no scales, scales have no tensor, or their sizes differ."""
    out: dict[str, torch.Tensor] = {}
    for name, t in state_dict.items():
        if name.endswith(SCALE_SUFFIX):
            base = name[: -len(SCALE_SUFFIX)]
            if base not in state_dict or state_dict[base].dtype != torch.int8:
                raise QuantizeError(f"scales {name!r} belong to no int8 tensor")
            continue
        if t.dtype != torch.int8:
            out[name] = t
            continue
        scale = state_dict.get(name + SCALE_SUFFIX)
        if scale is None:
            raise QuantizeError(f"int8 tensor {name!r} has no scales")
        if t.dim() < 1 or scale.dim() != 1 or scale.shape[0] != t.shape[0] \
                or not scale.is_floating_point():
            raise QuantizeError(f"scales of {name!r}: shape {tuple(scale.shape)} for a tensor "
                                f"of shape {tuple(t.shape)}")
        rows = t.reshape(t.shape[0], -1).to(torch.float32) * scale.to(torch.float32).unsqueeze(1)
        out[name] = rows.reshape(t.shape).contiguous()
    return out
