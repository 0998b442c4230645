"""The networks of the learned-guides comparison, trained at an equal CPU budget.

A guide is a network of one puzzle trained on one target: ``davi`` (cost-to-go by deep
approximate value iteration), ``diffusion`` (regression on the random-walk length) or ``policy``
(move prediction). Every guide of the comparison is trained with the same settings (``NETWORK``:
the ``mlp`` preset, 3 x 512 with batch norm, batch 10,000, bfloat16 where the machine supports
it, seed 0, the per-puzzle walk length ``K`` and DAVI threshold of ``TRAINING``, DAVI's check
interval ``DAVI_CHECK_EVERY``) and stopped
after the same process CPU time (``bench train ... --cpu-limit M``, monitoring excluded).

``ensure_model`` makes the model of a guide in its folder with the trainer of ``bench train``
(:class:`learning.trainer.Trainer`): a folder without a run is trained from scratch; a run
stopped before its budget (interrupted) is resumed exactly where it stopped and trained for the
rest of it; a finished run is reused. The budget is recorded in the run's training options
(``extra.cpu_budget_minutes``); a run made for another budget is refused, never retrained or
silently reused. ``given_model`` checks a model folder named by the user (``--model``) instead.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import InputError

#: the training targets of the comparison, in table order
TARGETS = ("davi", "diffusion", "policy")
#: targets whose network estimates a distance (searched by beam and BWAS; a policy by beam only)
VALUE_TARGETS = ("davi", "diffusion")
#: the network and batch of every guide (``bench train --preset mlp --batch 10000``)
NETWORK: dict[str, Any] = {"preset": "mlp", "batch": 10_000, "seed": 0, "check_every": 1000,
                           "eval_per_depth": 20}
#: DAVI's check interval C (iterations between target-update checks; the others log and save
#: every ``NETWORK["check_every"]``): one update can add about one move to the values, and at
#: these budgets (a few thousand iterations of batch 10,000) C = 1,000 would allow a handful of
#: updates, so values would never reach the depths of the test states
DAVI_CHECK_EVERY = 100
#: per puzzle: the longest training walk K and DAVI's target-update threshold epsilon (those of
#: ``experiments/learning_targets/run_large.sh`` on cube3 and puzzle15, the shipped models' on the
#: others)
TRAINING: dict[str, dict[str, Any]] = {
    "cube3": {"k_max": 26, "epsilon": 0.1},
    "puzzle15": {"k_max": 300, "epsilon": 0.5},
    "lightsout7": {"k_max": 50, "epsilon": 1.0},
    "cube2": {"k_max": 20, "epsilon": 0.1},
    "puzzle8": {"k_max": 40, "epsilon": 0.1},
}
#: the key of ``TrainConfig.extra`` that records a run's CPU budget
BUDGET_KEY = "cpu_budget_minutes"


@dataclass(frozen=True)
class GuideModel:
    """The model of one guide: its folder, the CPU minutes it was trained for (``None``: not
    recorded) and where it came from (``trained``, ``resumed``, ``reused`` or ``given``)."""

    puzzle: str
    target: str
    path: Path
    cpu_minutes: float | None
    source: str

    @property
    def key(self) -> str:
        return f"{self.puzzle}-{self.target}"


def bf16_supported() -> bool:
    """Whether this machine trains in bfloat16 at speed (a CUDA device with bfloat16, or a CPU
    with AVX-512 BF16 or AMX); elsewhere the guides train in float32."""
    import torch

    if torch.cuda.is_available():
        return bool(torch.cuda.is_bf16_supported())
    checks = (getattr(torch.cpu, "_is_avx512_bf16_supported", None),
              getattr(torch.cpu, "_is_amx_tile_supported", None))
    return any(bool(f()) for f in checks if f is not None)


def training_precision(models: Sequence[GuideModel] = ()) -> str:
    """How the guides were trained: ``bfloat16`` or ``float32`` as the models' own records say
    (``train_config.amp``: bfloat16 autocast), ``mixed`` where they differ; without models,
    what training here would use."""
    seen = set()
    for m in models:
        try:
            cfg = json.loads((Path(m.path) / "config.json").read_text())
            seen.add("bfloat16" if cfg["train_config"]["amp"] else "float32")
        except (OSError, ValueError, KeyError, TypeError):
            seen.add("not recorded")
    if not seen:
        return "bfloat16" if bf16_supported() else "float32"
    return seen.pop() if len(seen) == 1 else "mixed (" + ", ".join(sorted(seen)) + ")"


def network_text(models: Sequence[GuideModel] = ()) -> str:
    """The network and batch of every guide, in words (``NETWORK``), with the precision the
    ``models`` record they were trained in."""
    from learning.model_config import MLP_PRESETS

    preset = NETWORK["preset"]
    size = f" ({MLP_PRESETS[preset][1]} x {MLP_PRESETS[preset][0]}, batch norm)" \
        if preset in MLP_PRESETS else ""
    return (f"the `{preset}` network{size}, batch {NETWORK['batch']:,}, "
            f"{training_precision(models)} training, seed {NETWORK['seed']}")


def train_config(puzzle: str, target: str, minutes: float) -> Any:
    """The ``TrainConfig`` of a guide (its budget recorded in ``extra``)."""
    from learning.targets import target_for
    from learning.train_config import TrainConfig

    per = TRAINING.get(puzzle, {})
    settings: dict[str, Any] = {**NETWORK, "k_max": per.get("k_max")}
    if target_for(target).target_network:
        settings["check_every"] = DAVI_CHECK_EVERY
        if per.get("epsilon") is not None:
            settings["epsilon"] = per["epsilon"]
    return TrainConfig(puzzle=puzzle, target=target, amp=bf16_supported(), device="auto",
                       extra={BUDGET_KEY: float(minutes)}, **settings)


def recorded(folder: Path) -> dict[str, Any] | None:
    """What a training run folder records (its ``model.pt``, else ``checkpoint.pt``):
    ``puzzle``, ``target``, ``budget`` (CPU minutes, or None), ``cpu_s``; None when the folder
    holds no run."""
    from learning.checkpoint import load_checkpoint

    folder = Path(folder)
    path = next((folder / n for n in ("model.pt", "checkpoint.pt") if (folder / n).is_file()),
                None)
    if path is None:
        return None
    try:
        ckpt = load_checkpoint(path)
    except InputError as exc:
        raise InputError(f"--out: {str(exc).removeprefix('--model: ')}") from None
    tc = ckpt.get("train_config") or {}
    budget = (tc.get("extra") or {}).get(BUDGET_KEY)
    return {"puzzle": str(ckpt.get("puzzle")), "target": str(ckpt.get("target")),
            "budget": float(budget) if budget is not None else None,
            "cpu_s": float(ckpt.get("cpu_s") or 0.0)}


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def ensure_model(puzzle: str, target: str, folder: Path, minutes: float, threads: int | None = None,
                 progress: bool = True) -> GuideModel:
    """The model of guide (``puzzle``, ``target``) trained for ``minutes`` CPU-minutes in
    ``folder``: trained, resumed or reused (see the module docstring). ``progress``: a line
    when a training starts and ends (the run logs every check to its ``log.csv``)."""
    import torch

    from learning.trainer import Trainer

    folder = Path(folder)
    if not (isinstance(minutes, int | float) and math.isfinite(minutes) and minutes > 0):
        raise InputError(f"--train-minutes: must be a positive number of minutes, got {minutes}")
    rec = recorded(folder)
    has_run = (folder / "checkpoint.pt").is_file()
    if rec is not None:
        if (rec["puzzle"], rec["target"]) != (puzzle, target):
            raise InputError(f"--out: {folder} holds a {rec['target']} model of {rec['puzzle']}, "
                             f"not {target} of {puzzle}; use another --out")
        budget = rec["budget"]
        if budget is None:
            raise InputError(f"--train-minutes: {folder} holds a model with no recorded CPU "
                             f"budget ({rec['cpu_s'] / 60:.1f} CPU-minutes trained); give it with "
                             f"--model {puzzle}-{target}={folder}, or use another --out")
        if not math.isclose(budget, minutes, rel_tol=1e-9, abs_tol=1e-9):
            raise InputError(f"--train-minutes: {folder} holds a model trained for {budget:g} "
                             f"CPU-minutes, not {minutes:g}; give --train-minutes {budget:g} to "
                             "use it, or another --out")
        if rec["cpu_s"] >= 60 * minutes - 1e-6:  # (float sums of the CPU time)
            return GuideModel(puzzle, target, folder, rec["cpu_s"] / 60, "reused")
        if not has_run:
            raise InputError(f"--out: {folder} holds no checkpoint.pt to resume its training "
                             "from; use another --out")
    if threads is not None:
        torch.set_num_threads(max(1, int(threads)))
    if has_run:
        trainer = Trainer.resume(folder, progress=False)
        source = "resumed"
        what = f"resuming at {trainer.cpu_seconds / 60:.3g} of {minutes:g} CPU-minutes"
    else:
        trainer = Trainer(train_config(puzzle, target, minutes), folder, progress=False)
        source = "trained"
        what = f"training for {minutes:g} CPU-minutes"
    if progress:
        _say(f"{puzzle} {target}: {what} -> {folder} (log.csv there; Ctrl-C saves, the same "
             "command resumes)")
    left = 60 * minutes - trainer.cpu_seconds
    trainer.train(10**12, max_cpu_seconds=max(left, 1e-9))
    if progress:
        _say(f"{puzzle} {target}: {trainer.iteration:,} iterations, "
             f"{trainer.cpu_seconds / 60:.3g} CPU-minutes")
    return GuideModel(puzzle, target, folder, trainer.cpu_seconds / 60, source)


def given_model(puzzle: str, target: str, path: Path) -> GuideModel:
    """A model named with ``--model PUZZLE-TARGET=PATH``: a training run folder or a checkpoint
    file of ``target`` on ``puzzle`` (checked), with the CPU minutes it records."""
    from learning.checkpoint import load_checkpoint
    from learning.model_store import resolve_model

    flag = f"--model {puzzle}-{target}"
    path = Path(path)
    if not path.exists():
        raise InputError(f"{flag}: no such file or folder {str(path)!r}")
    try:
        file = resolve_model(puzzle, path)
    except InputError as exc:
        raise InputError(f"{flag}: {str(exc).removeprefix('--model: ')}") from None
    try:
        ckpt = load_checkpoint(file)
    except InputError as exc:
        raise InputError(f"{flag}: {str(exc).removeprefix('--model: ')}") from None
    if (ckpt.get("puzzle"), ckpt.get("target")) != (puzzle, target):
        raise InputError(f"{flag}: {path} holds a {ckpt.get('target')} model of "
                         f"{ckpt.get('puzzle')}, not {target} of {puzzle}")
    cpu_s = ckpt.get("cpu_s")
    return GuideModel(puzzle, target, path.resolve(),
                      float(cpu_s) / 60 if cpu_s else None, "given")


def parse_model_option(text: str, puzzles: tuple[str, ...]) -> tuple[str, str, Path]:
    """``PUZZLE-TARGET=PATH`` (``--model``) as ``(puzzle, target, path)``; one-line errors."""
    key, sep, path = text.partition("=")
    puzzle, dash, target = key.strip().rpartition("-")
    if not sep or not dash or not path.strip():
        raise InputError(f"--model: expected PUZZLE-TARGET=PATH (e.g. cube3-davi=runs/m), "
                         f"got {text!r}")
    if target not in TARGETS:
        raise InputError(f"--model: unknown target {target!r} in {text!r}; expected one of "
                         f"{', '.join(TARGETS)}")
    if puzzle not in puzzles:
        raise InputError(f"--model: {puzzle!r} is not among the puzzles of this table "
                         f"({', '.join(puzzles)})")
    return puzzle, target, Path(path.strip())
