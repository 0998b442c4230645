"""Import DeepCubeA's published networks (``model_state_dict.pt`` of their ``ResnetModel``).

Their state dict names the layers ``fc1``, ``bn1``, ``fc2``, ``bn2``, ``blocks.<i>.<j>`` (``j`` =
0 linear, 1 batch norm, 2 linear, 3 batch norm) and ``fc_out`` (a ``module.`` prefix, left by
``DataParallel``, is dropped). The layer order is ours, so the import renames the tensors, reads
the sizes off their shapes and records the input adapter that turns our states into their input
(``learning.adapters``): cube3 needs a sticker and colour mapping; their tile-per-position
and 0/1 Lights Out inputs equal ours, with their blank-last tile goal.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import torch

from core.errors import InputError
from core.props import DeepCubeANet
from learning.checkpoint import CheckpointError, load_failure, non_finite, save_checkpoint
from learning.model_config import ModelConfig
from puzzles.base import Puzzle

#: the largest state dict file read (their largest network is about 60 MB)
MAX_BYTES = 4 << 30

_BLOCK_PARTS = {"0": "fc1", "1": "bn1", "2": "fc2", "3": "bn2"}
_TOP = {"fc1": "input", "bn1": "input_bn", "fc2": "hidden", "bn2": "hidden_bn", "fc_out": "out"}
_KEY = re.compile(r"^(?:module\.)?(?:(fc1|bn1|fc2|bn2|fc_out)|blocks\.(\d+)\.([0-3]))\.(\w+)$")


def rename_state_dict(theirs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """DeepCubeA's ``ResnetModel`` tensor names -> ours (``ResnetNet``); ``InputError`` on others."""
    out: dict[str, torch.Tensor] = {}
    for key, value in theirs.items():
        if not isinstance(key, str) or not isinstance(value, torch.Tensor):
            raise InputError(f"STATE_DICT: entry {key!r} is not a named tensor")
        m = _KEY.match(key)
        if m is None:
            raise InputError(f"STATE_DICT: unexpected tensor {key!r} for DeepCubeA's ResnetModel")
        top, block, part, attr = m.groups()
        name = _TOP[top] if top else f"blocks.{block}.{_BLOCK_PARTS[part]}"
        out[f"{name}.{attr}"] = value
    return out


def adapter_for(puzzle: Puzzle) -> tuple[str, int]:
    """``(input_adapter, state_dim of their input)`` for a puzzle DeepCubeA trained on (its
    entry's ``deepcubea``; their input has as many positions as our state)."""
    net = _published(puzzle)
    return net.adapter, puzzle.state_dim


def _published(puzzle: Puzzle) -> DeepCubeANet:
    from core.registry import puzzle_entry

    net = puzzle_entry(puzzle.name).props.deepcubea
    if net is None:
        raise InputError(f"PUZZLE: DeepCubeA published no network for {puzzle.name}")
    return net


def convert(theirs: dict[str, torch.Tensor], puzzle: Puzzle) -> dict[str, Any]:
    """A ``kind="model"`` checkpoint dict (unsaved) from their state dict for ``puzzle``."""
    adapter, state_dim = adapter_for(puzzle)
    ours = rename_state_dict(theirs)
    try:
        h1, in_dim = ours["input.weight"].shape
        res_dim = ours["hidden.weight"].shape[0]
    except KeyError as exc:
        raise InputError(f"STATE_DICT: missing tensor {exc.args[0]}") from None
    except (ValueError, IndexError):
        raise InputError("STATE_DICT: input.weight/hidden.weight have the wrong number of "
                         "dimensions for a ResnetModel") from None
    if min(int(h1), int(in_dim), int(res_dim)) < 1:
        raise InputError("STATE_DICT: a layer has no units")
    bad = non_finite(ours)
    if bad:
        raise InputError(f"STATE_DICT: the weights are not finite (NaN or inf in {bad[0]})")
    if in_dim % state_dim:
        raise InputError(f"STATE_DICT: input width {in_dim} is no multiple of {puzzle.name}'s "
                         f"{state_dim} positions")
    blocks = {int(k.split(".")[1]) for k in ours if k.startswith("blocks.")}
    cfg = ModelConfig(state_dim=state_dim, one_hot_depth=in_dim // state_dim, h1=int(h1),
                      res_dim=int(res_dim), num_blocks=len(blocks),
                      batch_norm="input_bn.weight" in ours)
    if adapter != "deepcubea-lights" and cfg.one_hot_depth < puzzle.num_symbols:
        raise InputError(f"STATE_DICT: one-hot depth {cfg.one_hot_depth} is too small for "
                         f"{puzzle.name} ({puzzle.num_symbols} symbols)")
    from learning.networks import build_network

    net = build_network(cfg)
    try:
        missing, unexpected = net.load_state_dict(ours, strict=False)
    except RuntimeError as exc:
        raise InputError(f"STATE_DICT: does not fit a ResnetModel "
                         f"({str(exc).strip().splitlines()[-1].strip()[:160]})") from None
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise InputError(f"STATE_DICT: does not fit a ResnetModel: missing {missing[:3]}, "
                         f"unexpected {unexpected[:3]}")
    return {
        "kind": "model",
        "target": "davi",
        "puzzle": puzzle.name,
        "encoding": puzzle.encoding_name,
        "state_dim": puzzle.state_dim,
        "num_symbols": puzzle.num_symbols,
        "goal": [int(v) for v in _deepcubea_goal(puzzle)],
        "input_adapter": adapter,
        "model_config": cfg.to_dict(),
        "train_config": {"source": "DeepCubeA (Agostinelli et al. 2019), published weights"},
        "iteration": 0,
        "target_updates": 0,
        "states_seen": 0,
        "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "metrics": {},
    }


def _deepcubea_goal(puzzle: Puzzle) -> Any:
    """The goal their network's values are relative to, in our state format: the goal of the
    layout their entry names (tiles: blank-last), else the puzzle's own."""
    layout = _published(puzzle).goal_layout
    if layout and layout != puzzle.layout:
        from core.registry import get_puzzle

        return get_puzzle(puzzle.name, goal=layout).goal()
    return puzzle.goal()


def import_deepcubea(path: str | Path, puzzle_name: str, out: str | Path) -> Path:
    """Read DeepCubeA's ``model_state_dict.pt`` for ``puzzle_name`` and write our checkpoint."""
    from core.registry import get_puzzle

    puzzle = get_puzzle(puzzle_name)
    path = Path(path)
    if not path.exists():
        raise InputError(f"STATE_DICT: {path}: no such file")
    if not path.is_file():
        raise InputError(f"STATE_DICT: {path} is not a regular file")
    if path.stat().st_size > MAX_BYTES:
        raise InputError(f"STATE_DICT: {path} is larger than {MAX_BYTES >> 30} GiB; "
                         "not a published DeepCubeA network")
    try:
        with warnings.catch_warnings():  # torch's notes on pickle protocols
            warnings.simplefilter("ignore")
            theirs = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many types for unreadable files
        raise CheckpointError(f"STATE_DICT: {path} is not a readable torch state dict "
                              f"({load_failure(exc)})") from None
    if not isinstance(theirs, dict):
        raise InputError(f"STATE_DICT: {path} holds no state dict")
    return save_checkpoint(out, convert(theirs, puzzle))
