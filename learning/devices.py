"""Devices and sizes of networks: the one resolver of a device and a precision name (a run's, an
evaluator's, a model's recommended search), states per inference pass, parameter counts.

Importing this module imports no torch (``learning.model_store`` checks a recorded precision
without it); the functions that return torch objects import it when called."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import InputError
from core.names import DEVICES, PRECISIONS

if TYPE_CHECKING:
    import torch
    from torch import nn


def check_device(name: object, flag: str = "--device") -> str:
    """``name`` when it is one of :data:`core.names.DEVICES`; else ``InputError`` naming
    ``flag``."""
    if not isinstance(name, str) or name not in DEVICES:
        raise InputError(f"{flag}: expected {', '.join(DEVICES[:-1])} or {DEVICES[-1]}, "
                         f"got {name!r}")
    return name


def resolve_device(name: str, flag: str = "--device") -> torch.device:
    """``auto`` (CUDA when torch sees a device, else the CPU), ``cpu`` or ``cuda``."""
    import torch

    check_device(name, flag)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError(f"{flag}: cuda requested but torch sees no CUDA device")
    return torch.device(name)


def check_precision(name: object, flag: str = "--precision") -> str:
    """``name`` when it is one of :data:`core.names.PRECISIONS`; else ``InputError`` naming
    ``flag``."""
    if not isinstance(name, str) or name not in PRECISIONS:
        raise InputError(f"{flag}: expected {' or '.join(PRECISIONS)}, got {name!r}")
    return name


def precision_dtype(name: str, flag: str = "--precision") -> torch.dtype:
    """The torch dtype of a precision name (checked)."""
    import torch

    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[check_precision(name, flag)]


def amp_precision(amp: bool) -> str:
    """The precision of a training run's own passes (its autocast steps, its monitoring and
    target network passes): ``bfloat16`` with ``--amp``, else ``float32``."""
    return "bfloat16" if amp else "float32"


def amp_dtype(amp: bool) -> torch.dtype:
    """The torch dtype of :func:`amp_precision`."""
    return precision_dtype(amp_precision(amp))


def infer_chunk(device: torch.device, limit: int = 65536) -> int:
    """States per forward pass in inference: on the CPU 4,096 (activations stay in the cache;
    measured 2-3x faster than passes of 100,000 states), on a GPU ``limit``."""
    return limit if device.type == "cuda" else min(limit, 4096)


def num_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def parameter_bytes(model: nn.Module) -> int:
    """Bytes of parameters and buffers (batch-norm statistics) held in memory."""
    return sum(t.numel() * t.element_size() for t in [*model.parameters(), *model.buffers()])
