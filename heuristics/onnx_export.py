"""Export a shipped or trained network (a ``learning`` checkpoint) as ONNX plus its card.

``export_onnx(model, out_dir)`` writes ``out_dir/NAME.onnx`` and ``NAME.card.json``
(:mod:`heuristics.onnx`). The graph is the network's inference form (``FastForward``: batch norm
folded into the linear layers, float32): it reads the integer codes ``(B, L)`` of the
checkpoint's input encoding (int64), makes their one-hot matrix in the graph (an ``Equal``
against the symbols) and multiplies it by the first layer's weights (measured faster in
onnxruntime than gathering and summing one weight row per position), then the hidden layers; a value
network gives ``(B,)``, a policy ``(B, A)`` logits, a Q-network ``(B, A)`` move values (card
output ``q``). A convolutional network is exported as it is
in evaluation mode. The card takes the puzzle, encoding and target from the checkpoint and the
recommended search from the model folder's ``config.json`` (without one: beam search at the
puzzle's default width); a value network's card records its estimate of the goal and a
``goal_tolerance`` that admits it (a diffusion network estimates about 1 there). After writing, onnxruntime's outputs are compared with torch's on the
goal and seeded random states; a difference above ``1e-3`` (relative) is an error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from core import safe_write
from core.errors import InputError
from heuristics.onnx import CARD_SUFFIX, SEARCH_SOLVERS
from learning.checkpoint import load_checkpoint
from learning.model_store import known_models
from learning.networks import Network, load_network
from learning.targets import TARGETS

#: the card's format tag
CARD_FORMAT = "heuristic-bench/onnx-card"


def resolve_export(model: str) -> tuple[str, Path]:
    """``(name, checkpoint file)`` of ``model``: a model name, run folder or checkpoint file."""
    models = known_models()
    if model in models:
        return model, models[model]
    path = Path(model).expanduser()
    if path.is_dir():
        for name in ("model.pt", "checkpoint.pt"):
            if (path / name).is_file():
                return path.name, path / name
        raise InputError(f"NAME: folder {path} holds no model.pt or checkpoint.pt")
    if path.is_file():
        return (path.parent.name if path.stem in ("model", "checkpoint") else path.stem), path
    raise InputError(f"NAME: {model!r} is no model name, run folder or checkpoint (known models: "
                     f"{', '.join(models) or 'none'})")


def _search(ckpt_path: Path, puzzle_name: str, output: str) -> dict[str, Any]:
    from core import registry

    cfg = ckpt_path.parent / "config.json"
    rec: Any = None
    if cfg.is_file():
        try:
            rec = json.loads(cfg.read_text()).get("search")
        except (ValueError, OSError, AttributeError, RecursionError):
            rec = None
    if isinstance(rec, dict) and rec.get("solver") in SEARCH_SOLVERS and \
            (output != "policy" or registry.takes_policy(rec["solver"])) and \
            (output == "q" or not registry.solver_entry(rec["solver"]).props.q):
        options = registry.solver_entry(rec["solver"]).options
        return {"solver": rec["solver"], **{o.name: rec[o.name] for o in options if o.name in rec}}
    return {"solver": "qbeam" if output == "q" else "beam",
            "width": registry.beam_width(puzzle_name)}


def network(ckpt: dict[str, Any]) -> tuple[Network, nn.Module]:
    """``(the torch network, the module to export)`` of a checkpoint."""
    net = load_network(ckpt)
    net.float().eval()
    return net, net.export_module()


def export_module(module: nn.Module, example: torch.Tensor, path: Path, output: str) -> None:
    """``module`` (int64 codes ``(B, L)`` in) written to ``path`` with a dynamic batch."""
    import logging
    import warnings

    batch = torch.export.Dim("batch", min=1, max=1 << 24)
    quiet = logging.getLogger("torch.onnx")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # optional torchvision operators, exporter progress
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(module, (example,), dynamo=True, input_names=["codes"],
                                    output_names=[output], dynamic_shapes=({0: batch},),
                                    optimize=True, verbose=False)
    quiet.setLevel(level)
    assert program is not None
    program.save(str(path))


def export_onnx(model: str, out_dir: str | os.PathLike[str], force: bool = False,
                check_states: int = 256) -> tuple[Path, Path, dict[str, Any]]:
    """Write ``NAME.onnx`` and ``NAME.card.json`` into ``out_dir`` (module docstring); return
    their paths and the check's figures."""
    from core import registry
    from learning.adapters import make_input_fn

    name, ckpt_path = resolve_export(model)
    ckpt = load_checkpoint(ckpt_path)
    out = Path(out_dir).expanduser()
    onnx_path, card = out / f"{name}.onnx", out / f"{name}{CARD_SUFFIX}"
    for p in (onnx_path, card):
        safe_write.refuse_links(p, arg="--out")  # --force replaces a file, never a link's target
        if p.exists() and not force:
            raise InputError(f"--out: {p} exists (give --force to replace it)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise safe_write.write_error(out, exc, "--out") from None
    puzzle = registry.get_puzzle(ckpt["puzzle"])
    kind = TARGETS[ckpt["target"]]
    output = "q" if kind.per_move else "value" if kind.values else "policy"
    policy = output != "value"  # one output per move
    net, module = network(ckpt)
    encode = make_input_fn(ckpt, puzzle)
    rng = np.random.default_rng(0)
    try:
        goal_row = puzzle.goal()[None, :]
    except InputError:  # a set of goals (Sokoban): no one goal state to estimate
        goal_row = None
    states = puzzle.scramble(max(1, check_states), 30, rng)[0]
    if goal_row is not None:
        states = np.concatenate([goal_row, states])
    codes = torch.from_numpy(np.ascontiguousarray(encode(states), dtype=np.int64))
    with safe_write.atomic_path(onnx_path, arg="--out") as tmp:
        export_module(module, codes[:2], tmp,
                      {"value": "value", "policy": "logits", "q": "q"}[output])

    with torch.no_grad():
        want = net(codes).numpy()
    adapter = ckpt.get("input_adapter", "none")
    meta: dict[str, Any] = {
        "format": CARD_FORMAT, "version": 1,
        "puzzle": puzzle.name,
        "encoding": ckpt["encoding"] if adapter == "none" else adapter,
        "input": "codes",
        "output": output,
        "search": _search(ckpt_path, puzzle.name, output),
    }
    if not policy and goal_row is not None:
        # a diffusion network's goal estimate is near 1, not 0: the tolerance says so
        goal = float(want[0])
        meta["goal_estimate"] = round(goal, 4)
        meta["goal_tolerance"] = max(1.0, round(abs(goal) + 0.5, 1))
    meta |= {
        "source": {"model": name, "target": ckpt["target"],
                   "weights_sha256": ckpt.get("weights_sha256"),
                   "exported_by": "bench models export", "torch": torch.__version__},
    }
    safe_write.write_json(card, meta, arg="--out")

    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"codes": codes.numpy()})[0]
    diff = float(np.abs(got - want).max())
    scale = float(np.abs(want).max()) or 1.0
    if diff > 1e-3 * max(1.0, scale):
        raise InputError(f"NAME: the exported {name} differs from the torch network by {diff:.3g} "
                         f"(on {len(states)} states); not kept: {onnx_path}")
    return onnx_path, card, {"states": len(states), "max_abs_diff": diff,
                             "bytes": onnx_path.stat().st_size}
