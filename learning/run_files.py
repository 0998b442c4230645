"""The files and process plumbing of a training run: checks of a resumed optimizer state, the
log rows of an interrupted run, SIGTERM as ``KeyboardInterrupt``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import torch


def log_iteration(row: list[str]) -> int | None:
    """The iteration a ``log.csv`` row records, or None for a line that is not one of ours."""
    try:
        return int(row[0]) if row and row[0].isascii() else None
    except ValueError:
        return None


def stop_on_sigterm() -> Callable[[], None]:
    """Make SIGTERM raise ``KeyboardInterrupt`` in the main thread (so ``train`` saves before it
    stops: background jobs ignore SIGINT); returns the function that restores the old handler."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)

    def restore() -> None:
        signal.signal(signal.SIGTERM, old)

    return restore


def optimizer_tensors(state: dict[str, Any]) -> Iterator[tuple[str, torch.Tensor]]:
    """``(name, tensor)`` of every tensor in an optimizer's state dict."""
    for pid, st in (state.get("state") or {}).items():
        if isinstance(st, dict):
            for k, v in st.items():
                if isinstance(v, torch.Tensor):
                    yield f"{pid}.{k}", v


def check_optimizer(opt: torch.optim.Optimizer, bad: Callable[[str], Exception]) -> None:
    """Refuse a loaded optimizer state that does not fit the network: each parameter's Adam
    moments must have its shape (``load_state_dict`` checks only the group sizes)."""
    for group in opt.param_groups:
        for key in ("lr", "eps", "weight_decay"):
            v = group.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                                  or not math.isfinite(v)):
                raise bad(f"optimizer {key} {v!r} is not a finite number")
        betas = group.get("betas")
        if betas is not None and not (isinstance(betas, list | tuple) and len(betas) == 2
                                      and all(isinstance(b, int | float) for b in betas)):
            raise bad(f"optimizer betas {betas!r} are not two numbers")
        for p in group["params"]:
            st = opt.state.get(p, {})
            for k in ("exp_avg", "exp_avg_sq"):
                v = st.get(k)
                if v is not None and (not isinstance(v, torch.Tensor) or v.shape != p.shape):
                    raise bad(f"optimizer {k} does not fit the network's parameters")
            step = st.get("step")
            if step is not None and not isinstance(step, torch.Tensor | int | float):
                raise bad("optimizer step is not a number")


def check_training_state(ckpt: dict[str, Any], bad: Callable[[str], Exception]) -> None:
    """Refuse a training checkpoint whose progress, loss window, generator state, configuration
    or optimizer entries are missing or of the wrong kind (``bad(what)`` is raised)."""
    missing = [k for k in ("train_config", "optimizer", "iteration", "target_updates",
                           "loss_window", "torch_rng") if k not in ckpt]
    if missing:
        raise bad(f"missing {', '.join(missing)}")
    for key in ("iteration", "target_updates", "states_seen"):
        v = ckpt.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**62:
            raise bad(f"{key} {v!r} is not a count")
    for key in ("elapsed_s", "cpu_s"):
        v = ckpt.get(key, 0.0)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                or v < 0:
            raise bad(f"{key} {v!r} is not a number of seconds")
    window = ckpt["loss_window"]
    if not (isinstance(window, list | tuple) and len(window) == 4
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in window)):
        raise bad("loss_window is not four numbers")
    rng = ckpt["torch_rng"]
    if not (isinstance(rng, torch.Tensor) and rng.dtype == torch.uint8 and rng.dim() == 1):
        raise bad("torch_rng is not a random generator state")
    if not isinstance(ckpt["train_config"], dict) or not isinstance(ckpt["optimizer"], dict):
        raise bad("train_config or optimizer is not a table")
    if not isinstance(ckpt.get("metrics", {}), dict):
        raise bad("metrics is not a table")
