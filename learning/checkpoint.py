"""Checkpoint files of learned heuristics: save atomically, load safely, check what they are for.

A checkpoint is a ``torch.save`` file whose contents load with ``torch.load(weights_only=True)``
(dicts, lists, strings, numbers and tensors only). Keys:

``format``, ``version``
    ``"heuristic-bench/learned-heuristic"`` and the format version.
``kind``
    ``"train"`` (everything needed to resume training) or ``"model"`` (weights for inference).
``target``
    what the network was trained to predict: ``"davi"`` (cost-to-go by deep approximate value
    iteration), ``"diffusion"`` (regression on the random-walk scramble depth) or ``"policy"``
    (move prediction: one logit per move, ``model_config["outputs"]`` = the number of moves),
    or a Q-network's ``"q-distill"``, ``"q-learning"``, ``"q-diffusion"`` (one cost-to-go per
    move: the move's cost plus the child's value; :mod:`learning.targets.q`).
``puzzle``, ``encoding``, ``state_dim``, ``num_symbols``, ``goal``
    the puzzle name, its ``encoding_name``, input sizes and the goal state (a list) the values
    are relative to; a loader refuses a checkpoint whose puzzle or encoding differ.
``input_adapter``
    how our encoded states become the network's input: ``"none"`` for networks trained here,
    ``"deepcubea-cube3"`` etc. for imported ones (see ``learning.adapters``).
``model_config``, ``train_config``
    the network sizes (``ModelConfig``) and the training options (``TrainConfig``), as dicts.
``iteration``, ``target_updates``, ``states_seen``
    training progress.
``model``, ``target_model``, ``optimizer``
    state dicts (the last two only in ``"train"`` checkpoints, ``target_model`` may be None).
``torch_rng``, ``loss_window``
    torch's CPU generator state and the running loss sums of the current check window; data
    batches are drawn from ``numpy.random.default_rng([seed, iteration])``, so ``iteration``
    is the data RNG's state.
``metrics``
    the last monitoring figures (loss, greedy-solved share per depth, ...).
``weights_sha256``
    SHA-256 over the model's tensors (name, dtype, shape, bytes in key order): a corrupt file
    whose zip container still reads is caught by this check.
``weights_storage``
    ``"float32"`` (the default when absent: tensors as the network holds them) or ``"int8"``
    (large weight matrices as int8 rows with float32 row scales, ``learning.quantize``): the
    file stores ``model`` that way, the digests cover the stored form, and loading gives the
    float32 weights back.
``content_sha256``
    SHA-256 over every other field too (``content_digest``): progress, configurations,
    optimizer and generator states; absent in files written before it was added.
"""

from __future__ import annotations

import hashlib
import pickle
import re
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from core import safe_write
from core.errors import InputError
from learning.model_config import ModelConfig
from learning.quantize import STORAGES, QuantizeError, dequantize, is_quantized, quantize_int8
from puzzles.base import Puzzle

FORMAT = "heuristic-bench/learned-heuristic"
VERSION = 1
TARGETS = ("davi", "diffusion", "policy", "q-distill", "q-learning", "q-diffusion")
#: targets whose network gives one value per move (a Q-network)
Q_TARGETS = ("q-distill", "q-learning", "q-diffusion")
#: targets whose network estimates a distance (the others rank moves)
VALUE_TARGETS = ("davi", "diffusion")


class CheckpointError(InputError):
    """A checkpoint file that cannot be used: unreadable, corrupt, or made for another puzzle."""


def weights_digest(state_dict: Mapping[str, torch.Tensor]) -> str:
    """SHA-256 over every tensor's name, dtype, shape and bytes, in sorted key order."""
    h = hashlib.sha256()
    for key in sorted(state_dict):
        t = state_dict[key].detach().cpu().contiguous()
        h.update(key.encode())
        h.update(str(t.dtype).encode())
        h.update(repr(tuple(t.shape)).encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


#: keys a checkpoint's content digest leaves out (the format and the digests themselves)
_UNDIGESTED = ("format", "version", "weights_sha256", "content_sha256")


def _feed(h: Any, obj: Any) -> None:
    """Feed ``obj`` (dicts, lists, tensors, scalars, strings) to hash ``h``, type-tagged."""
    if isinstance(obj, torch.Tensor):
        t = obj.detach().cpu().contiguous()
        h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    elif isinstance(obj, Mapping):
        h.update(f"D{len(obj)}".encode())
        for k in sorted(obj, key=repr):
            h.update(repr(k).encode())
            _feed(h, obj[k])
    elif isinstance(obj, list | tuple):
        h.update(f"L{len(obj)}".encode())
        for v in obj:
            _feed(h, v)
    else:
        h.update(f"S{type(obj).__name__}:{obj!r};".encode())


def content_digest(ckpt: Mapping[str, Any]) -> str:
    """SHA-256 over every field of a checkpoint but its format and digests: training progress,
    configurations, optimizer and generator states, metrics (a flipped byte anywhere is seen)."""
    h = hashlib.sha256()
    _feed(h, {k: v for k, v in ckpt.items() if k not in _UNDIGESTED})
    return h.hexdigest()


def non_finite(state_dict: Mapping[str, torch.Tensor]) -> list[str]:
    """Names of the floating-point tensors of ``state_dict`` holding NaN or inf."""
    return [k for k in sorted(state_dict)
            if state_dict[k].is_floating_point() and not bool(torch.isfinite(state_dict[k]).all())]


def save_checkpoint(path: str | Path, ckpt: dict[str, Any]) -> Path:
    """Write ``ckpt`` to ``path`` atomically (a fresh temporary file, fsync, rename:
    ``core.safe_write``; a link at ``path`` is refused); add format and digest."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    storage = ckpt.get("weights_storage", "float32")
    if storage not in STORAGES:
        raise ValueError(f"weights_storage must be one of {', '.join(STORAGES)}, got {storage!r}")
    if storage == "int8":
        ckpt = {**ckpt, "model": quantize_int8(ckpt["model"])}
    data = {**ckpt, "format": FORMAT, "version": VERSION,
            "weights_sha256": weights_digest(ckpt["model"]), "content_sha256": content_digest(ckpt)}
    return safe_write.save_torch(data, path)


def load_failure(exc: BaseException) -> str:
    """Why ``torch.load(weights_only=True)`` refused a file, in a few complete words: the
    unpickler's own reason where torch wraps it in advice, else the first sentence of the
    message (never a sentence cut in the middle)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, pickle.UnpicklingError) and text.startswith("Weights only load failed"):
        found = re.search(r"unsupported GLOBAL (\S+)", text)
        if found:
            return (f"it holds objects other than tensors, dicts, lists, strings and numbers: "
                    f"{found.group(1)}")
        found = re.search(r"Unsupported operand (\d+)", text)
        return "its bytes are not a torch.save file" + (
            f": unsupported pickle operand {found.group(1)}" if found else "")
    if isinstance(exc, zipfile.BadZipFile | EOFError) or "PytorchStreamReader" in text:
        first = re.split(r"(?<=[a-z)])\. ", text, maxsplit=1)[0].rstrip(".")
        return first or "an unreadable zip archive"
    if isinstance(exc, IndexError | KeyError | TypeError | AttributeError | ValueError |
                  pickle.UnpicklingError):
        # the unpickler met bytes that are no pickle (a text file, random data)
        return "its bytes are not a torch.save file"
    first = re.split(r"(?<=[a-z)])\. ", text, maxsplit=1)[0].rstrip(".")
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def load_checkpoint(
    path: str | Path, puzzle: Puzzle | None = None, map_location: str | torch.device = "cpu"
) -> dict[str, Any]:
    """Load and check a checkpoint; ``CheckpointError`` (an ``InputError``) names the fault.

    With ``puzzle`` given, the checkpoint must be for that puzzle name and encoding.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path}: no such file")
    try:
        with warnings.catch_warnings():  # torch's notes on pickle protocols: not the user's fault
            warnings.simplefilter("ignore")
            ckpt = torch.load(path, map_location=map_location, weights_only=True)
    except MemoryError:
        raise CheckpointError(f"checkpoint {path}: not a checkpoint (its contents would not fit "
                              "in memory)") from None
    except Exception as exc:  # noqa: BLE001 - torch's unpickler raises anything on foreign bytes
        raise CheckpointError(f"checkpoint {path}: not a checkpoint, or corrupt or truncated "
                              f"({load_failure(exc)})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path}: not a heuristic-bench learned-heuristic checkpoint")
    if int(ckpt.get("version", -1)) > VERSION:
        raise CheckpointError(f"checkpoint {path}: format version {ckpt['version']} is newer than "
                              f"this program reads ({VERSION})")
    missing = [k for k in ("puzzle", "encoding", "model", "model_config", "target") if k not in ckpt]
    if missing:
        raise CheckpointError(f"checkpoint {path}: missing {', '.join(missing)}")
    for key in ("puzzle", "encoding", "target"):
        if not isinstance(ckpt[key], str):
            raise CheckpointError(f"checkpoint {path}: {key} is not a name ({ckpt[key]!r:.60})")
    if ckpt["target"] not in TARGETS:
        raise CheckpointError(f"checkpoint {path}: target {ckpt['target']!r} is not one of "
                              f"{', '.join(TARGETS)}")
    for key in ("state_dim", "num_symbols", "iteration", "target_updates", "states_seen"):
        v = ckpt.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise CheckpointError(f"checkpoint {path}: {key} is not a count ({v!r:.60})")
    goal = ckpt.get("goal")
    if goal is not None and not (isinstance(goal, list | tuple) and all(
            isinstance(v, int) and not isinstance(v, bool) and -2**31 <= v < 2**31
            for v in goal)):
        raise CheckpointError(f"checkpoint {path}: goal is not a list of integers")
    if not isinstance(ckpt.get("input_adapter", "none"), str):
        raise CheckpointError(f"checkpoint {path}: input_adapter is not a name")
    if not isinstance(ckpt.get("metrics") or {}, dict):
        raise CheckpointError(f"checkpoint {path}: metrics is not a table")
    try:  # sizes checked before anything is allocated from them
        ModelConfig.from_dict(ckpt["model_config"])
    except InputError as exc:
        raise CheckpointError(f"checkpoint {path}: {exc}") from None
    model = ckpt["model"]
    if not isinstance(model, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in model.items()):
        raise CheckpointError(f"checkpoint {path}: 'model' is not a dict of named tensors")
    if weights_digest(model) != ckpt.get("weights_sha256"):
        raise CheckpointError(f"checkpoint {path} is corrupt: the weights do not match their checksum")
    recorded = ckpt.get("content_sha256")  # absent in checkpoints written before it was added
    if recorded is not None and recorded != content_digest(ckpt):
        raise CheckpointError(f"checkpoint {path} is corrupt: its contents do not match their "
                              "checksum")
    storage = ckpt.get("weights_storage", "float32")
    if storage not in STORAGES:
        raise CheckpointError(f"checkpoint {path}: weights_storage {storage!r} is not one of "
                              f"{', '.join(STORAGES)}")
    if storage == "int8":
        try:
            model = ckpt["model"] = dequantize(model)
        except QuantizeError as exc:
            raise CheckpointError(f"checkpoint {path}: int8 weights: {exc}") from None
    elif is_quantized(model) or any(t.dtype == torch.int8 for t in model.values()):
        raise CheckpointError(f"checkpoint {path}: int8 weights in a file that declares "
                              f"{storage} storage")
    bad = non_finite(model)
    if bad:
        raise CheckpointError(f"checkpoint {path}: the network's weights are not finite (NaN or inf "
                              f"in {', '.join(bad[:3])}{', ...' if len(bad) > 3 else ''}); "
                              "the model cannot be used (did its training diverge?)")
    if puzzle is not None:
        check_puzzle(ckpt, puzzle, path)
    return ckpt


def check_puzzle(ckpt: dict[str, Any], puzzle: Puzzle, path: str | Path = "checkpoint") -> None:
    """``CheckpointError`` unless ``ckpt`` was made for ``puzzle``'s name and encoding."""
    if ckpt["puzzle"] != puzzle.name:
        raise CheckpointError(
            f"--model: {path} is a model for {ckpt['puzzle']}, not for {puzzle.name}"
        )
    if ckpt["encoding"] != puzzle.encoding_name:
        raise CheckpointError(
            f"--model: {path} expects the {ckpt['encoding']!r} encoding of {puzzle.name}, "
            f"the puzzle gives {puzzle.encoding_name!r}"
        )
    if int(ckpt.get("state_dim", puzzle.state_dim)) != puzzle.state_dim:
        raise CheckpointError(
            f"--model: {path} expects states of length {ckpt['state_dim']}, "
            f"{puzzle.name} has {puzzle.state_dim}"
        )


def inference_copy(ckpt: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint without optimizer and target network (``kind="model"``): what ships."""
    drop = ("optimizer", "target_model", "torch_rng", "loss_window")
    out = {k: v for k, v in ckpt.items() if k not in drop and k not in ("format", "version",
                                                                      "weights_sha256")}
    out["kind"] = "model"
    return out
