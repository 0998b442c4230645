"""The options of a training run (``TrainConfig``, stored in checkpoints), the per-puzzle defaults
(declared with each puzzle: ``core.props.TrainDefaults``) and the network sizes a run trains
(``model_config_for``)."""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from core.capabilities import HasReverseWalks
from core.errors import InputError
from learning.checkpoint import TARGETS
from learning.devices import check_device
from learning.limits import MAX_BATCH, MAX_WIDTH
from learning.model_config import ModelConfig
from learning.networks import ARCHITECTURES
from learning.targets import target_for
from puzzles.base import Puzzle


def puzzle_defaults(name: str) -> tuple[int, float, int]:
    """``(k_max, epsilon, check_every)`` of puzzle ``name``: its entry's declared training
    defaults (``core.props.TrainDefaults``); a puzzle made in code under a name the registry
    does not know (a trainer given its puzzle object) takes the common defaults."""
    from core.props import TrainDefaults
    from core.registry import puzzle_entry

    try:
        d = puzzle_entry(name).props.train
    except InputError:
        d = TrainDefaults()
    return d.k_max, d.epsilon, d.check_every


def _check_finite(flag: str, v: Any) -> None:
    """A given option value must be a finite number (``None``: not given)."""
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                          or not math.isfinite(v)):
        raise InputError(f"{flag}: expected a finite number, got {v}")


def _check_schedule(lr: float | None, lr_decay: float | None) -> None:
    """A learning rate must be positive, its decay per iteration in (0, 1] (``None``: not given)."""
    if lr is not None and not lr > 0:
        raise InputError(f"--lr: must be positive, got {lr}")
    if lr_decay is not None and not 0 < lr_decay <= 1:
        raise InputError(f"--lr-decay: must be in (0, 1], got {lr_decay}")


@dataclass
class TrainConfig:
    """Options of one training run (JSON-serialisable; stored in checkpoints)."""

    puzzle: str
    target: str = "davi"
    goal: str | None = None
    preset: str = "small"
    h1: int | None = None
    res_dim: int | None = None
    num_blocks: int | None = None
    batch: int = 10000
    lr: float = 1e-3
    lr_decay: float = 0.9999993
    k_max: int | None = None
    epsilon: float | None = None
    check_every: int | None = None
    polyak: float | None = None
    diffusion_warmup: int = 0
    #: q-distill: the value network distilled (a model name, run folder or file; None: the
    #: puzzle's shipped model)
    teacher: str | None = None
    data: str = "tensor"
    walk: str = "canonical"
    backtrack: bool = False
    seed: int = 0
    device: str = "auto"
    amp: bool = False
    eval_per_depth: int = 100
    eval_depths: int = 10
    eval_max_steps: int = 200
    eval_chunk: int = 65536
    extra: dict[str, Any] = field(default_factory=dict)

    def resolved(self) -> TrainConfig:
        """A copy with the per-puzzle defaults filled in, validated (``InputError``)."""
        k, eps, c = puzzle_defaults(self.puzzle)
        out = copy.deepcopy(self)
        out.k_max = k if out.k_max is None else out.k_max
        out.epsilon = eps if out.epsilon is None else out.epsilon
        out.check_every = c if out.check_every is None else out.check_every
        if out.target not in TARGETS:
            raise InputError(f"target: expected one of {', '.join(TARGETS)}, got {out.target!r}")
        integers: tuple[tuple[str, Any, int, int], ...] = (
            ("batch", out.batch, 2, MAX_BATCH), ("k_max", out.k_max, 1, 10**6),
            ("check_every", out.check_every, 1, 10**12), ("h1", out.h1, 1, MAX_WIDTH),
            ("res_dim", out.res_dim, 1, MAX_WIDTH), ("num_blocks", out.num_blocks, 0, 1000),
            ("eval_per_depth", out.eval_per_depth, 1, 10**6),
            ("eval_depths", out.eval_depths, 1, 10**6),
            ("eval_max_steps", out.eval_max_steps, 1, 10**9),
            ("eval_chunk", out.eval_chunk, 1, 10**9),
            ("diffusion_warmup", out.diffusion_warmup, 0, 10**12),
            ("seed", out.seed, 0, 2**63 - 1))
        for name, v, low, high in integers:
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise InputError(f"--{name.replace('_', '-')}: expected an integer, got {v!r}")
            if not low <= v <= high:
                raise InputError(f"--{name.replace('_', '-')}: must be in [{low}, {high}], got {v}")
        for flag, value in (("--lr", out.lr), ("--lr-decay", out.lr_decay),
                            ("--epsilon", out.epsilon), ("--polyak", out.polyak)):
            _check_finite(flag, value)
        if out.batch < 2:
            raise InputError(f"--batch: must be at least 2 (batch norm), got {out.batch}")
        if out.k_max < 1:
            raise InputError(f"--k-max: must be at least 1, got {out.k_max}")
        if out.check_every < 1:
            raise InputError(f"--check-every: must be at least 1, got {out.check_every}")
        _check_schedule(out.lr, out.lr_decay)
        if out.epsilon <= 0:
            raise InputError(f"--epsilon: must be positive, got {out.epsilon}")
        if out.polyak is not None and not 0 < out.polyak <= 1:
            raise InputError(f"--polyak: must be in (0, 1], got {out.polyak}")
        if out.diffusion_warmup < 0:
            raise InputError(f"--diffusion-warmup: must be >= 0, got {out.diffusion_warmup}")
        target_for(out.target).check_config(out)
        if out.teacher is not None and not target_for(out.target).takes_teacher:
            raise InputError(f"--teacher: a {out.target} run learns from no teacher network "
                             "(q-distill runs do)")
        if out.walk not in ("canonical", "plain"):
            raise InputError(f"--walk: expected canonical or plain, got {out.walk!r}")
        if out.data not in ("tensor", "numpy"):
            raise InputError(f"data: expected tensor or numpy, got {out.data!r}")
        check_device(out.device)
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in fields(cls)}
        d = dict(d)
        d.setdefault("data", "numpy")  # runs recorded before the tensor data path
        d.setdefault("walk", "plain")  # and before canonical cube walks
        return cls(**{k: v for k, v in d.items() if k in names})


def single_goal(puzzle: Puzzle) -> list[int] | None:
    """The puzzle's goal state as a list, or None when its goal is a set (Sokoban)."""
    if not puzzle.reversible and isinstance(puzzle, HasReverseWalks):
        return None
    return [int(v) for v in puzzle.goal()]


def make_puzzle(name: str, goal: str | None = None) -> Puzzle:
    from core.registry import get_puzzle

    return get_puzzle(name, goal=goal)


def model_config_for(puzzle: Puzzle, cfg: TrainConfig) -> ModelConfig:
    """The network sizes of a run: the preset with the run's overrides; a policy network and a
    Q-network get one output per move."""
    config = _model_config(puzzle, cfg)
    outputs = target_for(cfg.target).outputs(puzzle)
    return config if outputs == 1 else replace(config, outputs=outputs)


def _model_config(puzzle: Puzzle, cfg: TrainConfig) -> ModelConfig:
    base = ModelConfig.preset(cfg.preset, puzzle.state_dim, puzzle.num_symbols)
    return ARCHITECTURES[base.arch].sized(base, cfg.h1, cfg.res_dim, cfg.num_blocks)
