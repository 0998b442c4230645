"""Training learned heuristics: DAVI (DeepCubeA's Algorithm 1) and diffusion-distance regression.

DAVI (Agostinelli et al. 2019). Each iteration draws ``B`` states scrambled ``k ~ U[1, K]``
moves from the goal, computes the Bellman targets
``y(s) = min over legal actions a of (1 + J_target(child(s, a)))`` with ``J = 0`` at the goal
(``y = 0`` when ``s`` is the goal itself; illegal tile moves are ignored; ``J_target`` is clipped
at 0), and takes one Adam step on the mean squared error of ``J(s)`` against ``y``. The learning
rate is ``lr * lr_decay ** iteration`` (a resumed run may start a new schedule: ``change_lr``). Every ``check_every`` (C) iterations the mean loss of
those C iterations is compared with ``epsilon``; below it, the target network is replaced by the
trained one. Before the first update ``J_target`` is 0 everywhere (value iteration from zero).
With ``polyak`` set, the target network instead follows the trained one by Polyak averaging
every iteration (``target <- (1 - polyak) * target + polyak * online``).

Diffusion (the supervised target used by CayleyPy): regress ``J(s)`` on the scramble length
``k`` of the random walk that produced ``s``; no target network.

Policy (move prediction, EfficientCube): the network has one output per move and is trained by
cross-entropy to predict the move that undoes the last move of the walk that made ``s`` (Lights
Out: the uniform distribution over the pressed cells); illegal tile moves are masked in the loss.
No target network. Details in :mod:`heuristics.policy_net`. Its monitoring rows (below) give,
per depth, the mean probability of the correct moves (``mean_pred``) and the share a greedy
rollout of the most probable move solves.

Schedule (``diffusion_warmup`` = W > 0 on a DAVI run): the first W iterations regress on the walk
length (cheap: no children are evaluated), then the target network is set to the trained one and
DAVI's Bellman targets take over, starting from the diffusion estimate instead of from zero.

Data. With ``data="tensor"`` (the default of new runs) walks, children and goal masks are made
as tensor operations on the training device (:mod:`learning.walks`); ``data="numpy"``
(runs made before it, and puzzles without a tensor form) uses :mod:`learning.data`. The
target network evaluates children through ``FastForward`` (batch norm folded, embedding-bag
input), in bfloat16 when ``amp`` is set. ``walk="canonical"`` (new runs): cube walks without
same-axis cancellations (:mod:`learning.walks`), whose lengths are closer to the distance.

Monitoring, every C iterations and at the end (DeepCubeA's Figure 3), into the run folder:

``log.csv``
    ``iteration, loss, lr, target_updates, states_per_s, seconds`` (loss: mean over the
    iterations since the previous row; states_per_s: training states per wall-clock second).
``depth_log.csv``
    ``iteration, depth, mean_pred, greedy_solved``: on a fixed held-out set of scrambles per
    depth, the mean predicted cost-to-go and the share a greedy rollout solves (at most
    ``min(2 * depth + 10, eval_max_steps)`` steps, each to the child of least ``1 + J``).

Files of a run folder: ``checkpoint.pt`` (everything needed to resume exactly), ``model.pt``
(weights for inference), ``config.json``, ``log.csv``, ``depth_log.csv``.
"""

from __future__ import annotations

import copy
import csv
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch.nn import functional as F

from core.errors import InputError
from learning.checkpoint import (
    TARGETS,
    CheckpointError,
    check_puzzle,
    inference_copy,
    load_checkpoint,
    non_finite,
    save_checkpoint,
)
from learning.data import Batch, BatchProducer, random_walks
from learning.devices import infer_chunk, num_parameters, resolve_device
from learning.limits import MAX_BATCH, MAX_WIDTH
from learning.model_config import ModelConfig
from learning.networks import ARCHITECTURES, FastForward, Network, build_network
from learning.targets.policy import legal_moves, masked_logits, policy_loss
from learning.walks import TensorBatch, TensorDomain, batch_generator, domain_for
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.distributed import Dist

#: per-puzzle defaults (k_max, epsilon, check_every): DeepCubeA's values for the puzzles of its
#: paper; for cube2 (diameter 14 qtm) and puzzle8 (diameter 31) a K above the diameter and a
#: smaller C, since they converge in thousands of iterations. The 8-puzzle takes the 15-puzzle's
#: epsilon (0.1) rather than 1.0: its costs are at most 31, and a target refreshed whenever the
#: mean squared error is below 1 would chase a still-inaccurate network.
PUZZLE_DEFAULTS: dict[str, tuple[int, float, int]] = {
    "cube3": (30, 0.06, 5000),
    "cube3-htm": (30, 0.06, 5000),
    "cube2": (20, 0.06, 500),
    "cube2-htm": (16, 0.06, 500),
    "puzzle8": (40, 0.1, 500),
    "puzzle15": (500, 0.1, 5000),
    "puzzle24": (500, 0.2, 5000),
    "puzzle35": (1000, 1.0, 5000),
    "puzzle48": (1000, 1.0, 5000),
    "lightsout7": (50, 1.0, 5000),
    # the reverse-play steps of the level generator (puzzles/sokoban_levels.py), whose levels
    # match DeepCubeA's test levels; K = 30 walks reach few states that far from a goal
    "sokoban": (1000, 1.0, 1000),
}

LOG_COLUMNS = ("iteration", "loss", "lr", "target_updates", "states_per_s", "seconds")
DEPTH_COLUMNS = ("iteration", "depth", "mean_pred", "greedy_solved")


def puzzle_defaults(name: str) -> tuple[int, float, int]:
    """``(k_max, epsilon, check_every)`` for a puzzle name; Lights Out n x n: K = n * n."""
    if name in PUZZLE_DEFAULTS:
        return PUZZLE_DEFAULTS[name]
    if name.startswith("lightsout"):
        n = int(name[len("lightsout"):])
        return (min(50, n * n), 1.0, 500 if n < 7 else 5000)
    return (30, 1.0, 1000)


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
        for name, low, high in (("batch", 2, MAX_BATCH), ("k_max", 1, 10**6),
                                ("check_every", 1, 10**12), ("h1", 1, MAX_WIDTH),
                                ("res_dim", 1, MAX_WIDTH), ("num_blocks", 0, 1000),
                                ("eval_per_depth", 1, 10**6), ("eval_depths", 1, 10**6),
                                ("eval_max_steps", 1, 10**9), ("eval_chunk", 1, 10**9),
                                ("diffusion_warmup", 0, 10**12), ("seed", 0, 2**63 - 1)):
            v = getattr(out, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise InputError(f"--{name.replace('_', '-')}: expected an integer, got {v!r}")
            if not low <= v <= high:
                raise InputError(f"--{name.replace('_', '-')}: must be in [{low}, {high}], got {v}")
        for name in ("lr", "lr_decay", "epsilon", "polyak"):
            _check_finite("--" + name.replace("_", "-"), getattr(out, name))
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
        if out.diffusion_warmup and out.target != "davi":
            raise InputError("--diffusion-warmup: only DAVI runs start with a diffusion phase")
        if out.target == "policy" and out.backtrack:
            raise InputError("--backtrack: policy scrambles never play a move right after its "
                             "inverse (the label is the move that undoes the last one)")
        if out.target == "policy" and out.data != "tensor":
            raise InputError("data: policy batches are made as tensor operations (--data tensor)")
        if out.walk not in ("canonical", "plain"):
            raise InputError(f"--walk: expected canonical or plain, got {out.walk!r}")
        if out.data not in ("tensor", "numpy"):
            raise InputError(f"data: expected tensor or numpy, got {out.data!r}")
        if out.device not in ("auto", "cpu", "cuda"):
            raise InputError(f"--device: expected auto, cpu or cuda, got {out.device!r}")
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


def _log_iteration(row: list[str]) -> int | None:
    """The iteration a ``log.csv`` row records, or None for a line that is not one of ours."""
    try:
        return int(row[0]) if row and row[0].isascii() else None
    except ValueError:
        return None


def single_goal(puzzle: Puzzle) -> list[int] | None:
    """The puzzle's goal state as a list, or None when its goal is a set (Sokoban)."""
    if not getattr(puzzle, "reversible", True) and hasattr(puzzle, "reverse_walks"):
        return None
    return [int(v) for v in puzzle.goal()]


def make_puzzle(name: str, goal: str | None = None) -> Puzzle:
    from core.registry import get_puzzle

    return get_puzzle(name, goal=goal)


def model_config_for(puzzle: Puzzle, cfg: TrainConfig) -> ModelConfig:
    """The network sizes of a run: the preset with the run's overrides; a policy network gets
    one output per move."""
    config = _model_config(puzzle, cfg)
    if cfg.target == "policy":
        config = replace(config, outputs=int(puzzle.num_actions))
    return config


def _model_config(puzzle: Puzzle, cfg: TrainConfig) -> ModelConfig:
    base = ModelConfig.preset(cfg.preset, puzzle.state_dim, puzzle.num_symbols)
    return ARCHITECTURES[base.arch].sized(base, cfg.h1, cfg.res_dim, cfg.num_blocks)


# --------------------------------------------------------------------------- evaluation helpers
def bellman_targets(
    values: np.ndarray | torch.Tensor, valid: np.ndarray | torch.Tensor,
    child_goal: np.ndarray | torch.Tensor, is_goal: np.ndarray | torch.Tensor,
) -> torch.Tensor:
    """DAVI targets ``(B,)`` from child values ``(B, A)``, legal mask ``(B, A)``, goal masks.

    ``y = min over legal a of (1 + max(J(child), 0))`` with ``J = 0`` at goal children, and
    ``y = 0`` for states that are the goal.
    """
    j = torch.as_tensor(values, dtype=torch.float32).clamp_min(0.0)
    dev = j.device
    j = j.masked_fill(torch.as_tensor(child_goal, device=dev), 0.0)
    cost = (1.0 + j).masked_fill(~torch.as_tensor(valid, device=dev), math.inf)
    y = cost.min(dim=1).values
    return y.masked_fill(torch.as_tensor(is_goal, device=dev), 0.0)


def _rollout(puzzle: Puzzle, states: np.ndarray, max_steps: int | np.ndarray,
             step: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Batched rollout: ``step(live states) -> (next states, reached the goal)`` moves every
    unsolved state once per step. ``max_steps``: one limit or one per state ``(B,)``. Returns
    ``(B,)`` bool: reached the goal within its step limit."""
    cur = np.array(states, copy=True)
    limit = np.broadcast_to(np.asarray(max_steps, dtype=np.int64), (cur.shape[0],))
    solved = puzzle.is_goal(cur)
    for i in range(int(limit.max(initial=0))):
        live = np.flatnonzero(~solved & (limit > i))
        if live.size == 0:
            break
        cur[live], solved[live] = step(cur[live])
    return solved


def greedy_rollout(puzzle: Puzzle, value_fn: Callable[[np.ndarray], np.ndarray],
                   states: np.ndarray, max_steps: int | np.ndarray) -> np.ndarray:
    """Batched greedy search: each step moves every unsolved state to its child of least
    ``1 + J`` (goal children count 0). ``max_steps``: one limit or one per state ``(B,)``.
    Returns ``(B,)`` bool: reached the goal within its step limit."""

    def step(live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        children, valid = puzzle.expand(live)
        b, a, length = children.shape
        flat = children.reshape(b * a, length)
        goal = puzzle.is_goal(flat).reshape(b, a)
        j = np.asarray(value_fn(flat), dtype=np.float64).reshape(b, a)
        j[goal] = -1.0  # a goal child is always taken
        j[~valid] = np.inf
        best = np.argmin(j, axis=1)
        return children[np.arange(b), best], goal[np.arange(b), best]

    return _rollout(puzzle, states, max_steps, step)


def policy_rollout(puzzle: Puzzle, logp_fn: Callable[[np.ndarray], np.ndarray],
                   states: np.ndarray, max_steps: int | np.ndarray) -> np.ndarray:
    """Batched greedy rollout of a policy: each step plays every unsolved state's most probable
    legal move. ``max_steps``: one limit or one per state. Returns ``(B,)`` bool: solved."""

    def step(live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nxt = puzzle.apply(live, np.argmax(logp_fn(live), axis=1))
        return nxt, puzzle.is_goal(nxt)

    return _rollout(puzzle, states, max_steps, step)


def heldout_set(puzzle: Puzzle, cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Fixed held-out scrambles: ``(depths (D,), states (D, n, L))`` over ``eval_depths`` depths."""
    assert cfg.k_max is not None
    depths = np.unique(np.linspace(1, cfg.k_max, min(cfg.eval_depths, cfg.k_max)).round().astype(int))
    rng = np.random.default_rng([cfg.seed, 2**31 - 1])  # apart from every training batch's stream
    n = cfg.eval_per_depth
    states = random_walks(puzzle, np.repeat(depths, n), rng, backtrack=cfg.backtrack)
    return depths, states.reshape(len(depths), n, -1)


# --------------------------------------------------------------------------- trainer
def _stop_on_sigterm() -> Callable[[], None]:
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


class _Inline:
    """Batches made on demand in the trainer's thread (GPU: the device queues the work)."""

    def __init__(self, trainer: Trainer, start: int) -> None:
        self.trainer, self.next = trainer, start

    def get(self) -> Batch | TensorBatch:
        b = self.trainer.make_batch(self.next)
        self.next += 1
        return b

    def close(self) -> None:
        pass


def _optimizer_tensors(state: dict[str, Any]) -> Iterator[tuple[str, torch.Tensor]]:
    """``(name, tensor)`` of every tensor in an optimizer's state dict."""
    for pid, st in (state.get("state") or {}).items():
        if isinstance(st, dict):
            for k, v in st.items():
                if isinstance(v, torch.Tensor):
                    yield f"{pid}.{k}", v


def _check_optimizer(opt: torch.optim.Optimizer, bad: Callable[[str], Exception]) -> None:
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


class Trainer:
    """One training run in ``out_dir``; ``Trainer.resume(out_dir)`` continues it exactly.

    ``dist``: this process's place among several training processes (DistributedDataParallel,
    :mod:`learning.distributed`); each trains on its shard of every global batch, and
    only the first (rank 0) monitors, logs and saves."""

    def __init__(self, cfg: TrainConfig, out_dir: str | Path, puzzle: Puzzle | None = None,
                 progress: bool = True, dist: Dist | None = None) -> None:
        self.cfg = cfg.resolved()
        self.dist = dist
        if dist is not None and self.cfg.batch < dist.world:
            raise InputError(f"--nproc: {dist.world} processes need a batch of at least "
                             f"{dist.world} states, got --batch {self.cfg.batch}")
        self.out_dir = Path(out_dir)
        self.puzzle = puzzle if puzzle is not None else make_puzzle(self.cfg.puzzle, self.cfg.goal)
        if self.puzzle.name != self.cfg.puzzle:
            raise InputError(f"puzzle: the config names {self.cfg.puzzle}, got a {self.puzzle.name}")
        self.device = dist.device(self.cfg.device) if dist else resolve_device(self.cfg.device)
        self.progress = progress and (dist is None or dist.main)
        torch.manual_seed(self.cfg.seed)
        self.model_config = model_config_for(self.puzzle, self.cfg)
        self.model = build_network(self.model_config).to(self.device)
        self._ddp: torch.nn.Module | None = None  # the model inside DistributedDataParallel
        self.target: Network | None = None
        self._fast_target: FastForward | None = None
        self.domain: TensorDomain | None = (
            domain_for(self.puzzle, self.device, canonical=self.cfg.walk == "canonical")
            if self.cfg.data == "tensor" else None)
        if (self.cfg.target == "policy" and self.domain is None
                and not hasattr(self.puzzle, "labelled_reverse_walks")):
            raise InputError(f"policy: {self.puzzle.name} has no labelled scrambles; policies "
                             "train on cubes, sliding tiles, Lights Out and Sokoban")
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.cfg.lr)
        self.iteration = 0
        self.target_updates = 0
        self.states_seen = 0
        self.loss_sum = 0.0
        self.loss_n = 0
        self.log_loss_sum = 0.0
        self.log_loss_n = 0
        self.metrics: dict[str, Any] = {}
        self.elapsed = 0.0
        self.cpu_seconds = 0.0  # process CPU time spent training (all threads), across resumes
        self._heldout: tuple[np.ndarray, np.ndarray] | None = None
        self._policy_eval: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: wall-clock seconds between checkpoints when checks are further apart
        self.save_every_s = 300.0
        #: the iteration of the last checkpoint written or resumed from
        self.saved_iteration: int | None = None

    # ------------------------------------------------------------------ persistence
    @classmethod
    def resume(cls, out_dir: str | Path, puzzle: Puzzle | None = None, progress: bool = True,
               device: str | None = None, dist: Dist | None = None) -> Trainer:
        """Rebuild a trainer from ``out_dir/checkpoint.pt`` (made with any process count)."""
        path = Path(out_dir) / "checkpoint.pt"
        if not path.is_file():
            raise InputError(f"--resume: {out_dir} has no checkpoint.pt to resume from")
        ckpt = load_checkpoint(path)
        if ckpt.get("kind") != "train":
            raise CheckpointError(f"--resume: {path} holds weights only, no training state")

        def bad(what: str) -> CheckpointError:
            return CheckpointError(f"--resume: {path} is not a usable training checkpoint ({what})")

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
        try:
            cfg = TrainConfig.from_dict(ckpt["train_config"])
        except (TypeError, ValueError) as exc:
            raise bad(f"train_config: {str(exc).splitlines()[0][:160]}") from None
        if device is not None:
            cfg.device = device
        try:
            t = cls(cfg, out_dir, puzzle=puzzle, progress=progress, dist=dist)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            raise bad(f"train_config: {str(exc).splitlines()[0][:160] if str(exc) else exc!r}"
                      ) from None
        check_puzzle(ckpt, t.puzzle, path)
        part = "model"
        try:
            t.model.load_state_dict(ckpt["model"])
            if ckpt.get("target_model") is not None:
                part = "target_model"
                t.target = build_network(t.model_config).to(t.device)
                t.target.load_state_dict(ckpt["target_model"])
                t.target.eval()
            part = "optimizer"
            t.optimizer.load_state_dict(ckpt["optimizer"])
            part = "torch_rng"
            torch.set_rng_state(ckpt["torch_rng"])
        except (RuntimeError, ValueError, KeyError, TypeError, IndexError,
                AttributeError) as exc:
            why = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else repr(exc)
            raise bad(f"{part}: {why}") from None
        _check_optimizer(t.optimizer, bad)
        t.iteration = int(ckpt["iteration"])
        t.target_updates = int(ckpt["target_updates"])
        t.states_seen = int(ckpt.get("states_seen", 0))
        t.loss_sum, t.log_loss_sum = float(window[0]), float(window[2])
        t.loss_n, t.log_loss_n = int(window[1]), int(window[3])
        t.metrics = dict(ckpt.get("metrics", {}))
        t.elapsed = float(ckpt.get("elapsed_s", 0.0))
        t.cpu_seconds = float(ckpt.get("cpu_s", 0.0))
        t.saved_iteration = t.iteration
        t._truncate_logs()
        return t

    def checkpoint(self) -> dict[str, Any]:
        return {
            "kind": "train",
            "target": self.cfg.target,
            "puzzle": self.puzzle.name,
            "encoding": self.puzzle.encoding_name,
            "state_dim": self.puzzle.state_dim,
            "num_symbols": self.puzzle.num_symbols,
            "goal": single_goal(self.puzzle),
            "input_adapter": "none",
            "model_config": self.model_config.to_dict(),
            "train_config": self.cfg.to_dict(),
            "iteration": self.iteration,
            "target_updates": self.target_updates,
            "states_seen": self.states_seen,
            "elapsed_s": self.elapsed,
            "cpu_s": self.cpu_seconds,
            "model": {k: v.detach().cpu() for k, v in self.model.state_dict().items()},
            "target_model": ({k: v.detach().cpu() for k, v in self.target.state_dict().items()}
                             if self.target is not None else None),
            "optimizer": self.optimizer.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "loss_window": [self.loss_sum, self.loss_n, self.log_loss_sum, self.log_loss_n],
            "metrics": self.metrics,
        }

    @property
    def main(self) -> bool:
        """True in the process that monitors, logs and saves (the only one, or rank 0)."""
        return self.dist is None or self.dist.main

    def _diverged(self, what: str) -> InputError:
        saved = getattr(self, "saved_iteration", None)
        kept = (f"the checkpoint of iteration {saved} is kept" if saved is not None
                else "nothing was saved")
        return InputError(f"training diverged at iteration {self.iteration}: {what}; stopped, "
                          f"{kept} (try a smaller --lr)")

    def save(self) -> None:
        """Write the checkpoint, the model and config.json; a network or optimizer state that
        is not finite (a diverged run) is never written over the last good checkpoint."""
        if not self.main:
            return
        ckpt = self.checkpoint()
        bad = non_finite(ckpt["model"]) or non_finite(ckpt["target_model"] or {})
        if not bad:
            bad = [f"optimizer {k}" for k, t in _optimizer_tensors(ckpt["optimizer"])
                   if t.is_floating_point() and not bool(torch.isfinite(t).all())]
        if bad:
            raise self._diverged(f"the network's weights are not finite (NaN or inf in "
                                 f"{bad[0]})")
        self.out_dir.mkdir(parents=True, exist_ok=True)
        save_checkpoint(self.out_dir / "checkpoint.pt", ckpt)
        save_checkpoint(self.out_dir / "model.pt", inference_copy(ckpt))
        config = {
            "train_config": self.cfg.to_dict(),
            "model_config": self.model_config.to_dict(),
            "parameters": num_parameters(self.model),
            "iteration": self.iteration,
            "target_updates": self.target_updates,
            "states_seen": self.states_seen,
            "train_seconds": round(self.elapsed, 1),
            "train_cpu_seconds": round(self.cpu_seconds, 1),
            "metrics": self.metrics,
            "torch": torch.__version__,
            "device": str(self.device),
            "processes": self.dist.world if self.dist else 1,
        }
        (self.out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        self.saved_iteration = self.iteration

    def _truncate_logs(self) -> None:
        """Drop log rows written after the checkpoint (an interrupted run's tail)."""
        if not self.main:
            return
        for name in ("log.csv", "depth_log.csv"):
            path = self.out_dir / name
            if not path.is_file():
                continue
            with open(path, newline="", errors="replace") as f:
                rows = list(csv.reader(f))
            if not rows:
                continue
            keep = [rows[0]] + [r for r in rows[1:] if _log_iteration(r) is not None
                                and _log_iteration(r) <= self.iteration]  # type: ignore[operator]
            with open(path, "w", newline="") as f:
                csv.writer(f).writerows(keep)

    def _append(self, name: str, columns: tuple[str, ...], rows: list[list[Any]]) -> None:
        path = self.out_dir / name
        new = not path.is_file()
        with open(path, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(columns)
            w.writerows(rows)

    # ------------------------------------------------------------------ one step
    def _lr(self) -> float:
        changes = self.cfg.extra.get("lr_changes")
        if changes:  # [iteration, learning rate there, decay per iteration from there on]
            start, lr, decay = changes[-1]
            return float(lr) * float(decay) ** (self.iteration - int(start))
        return self.cfg.lr * self.cfg.lr_decay ** self.iteration

    def _lr_decay(self) -> float:
        changes = self.cfg.extra.get("lr_changes")
        return float(changes[-1][2]) if changes else self.cfg.lr_decay

    def in_diffusion_phase(self, iteration: int | None = None) -> bool:
        """True while iteration ``iteration`` (default: the next) regresses on walk lengths."""
        i = self.iteration if iteration is None else iteration
        return self.cfg.target == "diffusion" or i < self.cfg.diffusion_warmup

    def _codes(self, states: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Network input codes on the device; tensor batches are already codes (every puzzle
        with a tensor form encodes a state as its own entries)."""
        if isinstance(states, torch.Tensor):
            return states.to(self.device)
        return torch.as_tensor(self.puzzle.encode(states)).to(self.device)

    def target_values(self, children: np.ndarray | torch.Tensor) -> torch.Tensor:
        """``J_target`` of children ``(B, A, L)`` as ``(B, A)`` float32 on the device."""
        bsz, a, length = children.shape
        if self.target is None:
            return torch.zeros(bsz, a, device=self.device)
        if self._fast_target is None:
            self._fast_target = FastForward(
                self.target, torch.bfloat16 if self.cfg.amp else torch.float32)
        codes = self._codes(children.reshape(bsz * a, length))
        chunk = infer_chunk(self.device, self.cfg.eval_chunk)
        out = torch.cat([self._fast_target(codes[i:i + chunk])
                         for i in range(0, codes.shape[0], chunk)])
        return out.reshape(bsz, a)

    def _targets(self, b: Batch | TensorBatch) -> torch.Tensor:
        if self.cfg.target == "policy":
            assert b.labels is not None
            return torch.as_tensor(b.labels)
        if self.in_diffusion_phase(b.iteration):
            return torch.as_tensor(b.depths, dtype=torch.float32, device=self.device).masked_fill(
                torch.as_tensor(b.is_goal, device=self.device), 0.0)
        assert b.children is not None and b.valid is not None and b.child_goal is not None
        values = self.target_values(b.children)
        return bellman_targets(values, b.valid, b.child_goal, b.is_goal)

    def step(self, b: Batch | TensorBatch) -> float:
        """One training iteration on batch ``b``; returns its loss."""
        if (self.cfg.diffusion_warmup and self.iteration == self.cfg.diffusion_warmup
                and self.cfg.target == "davi"):
            self._set_target()  # the schedule's switch: DAVI starts from the diffusion network
        loss = self.update(b, self._targets(b))
        if (self.cfg.polyak is not None and self.cfg.target == "davi"
                and not self.in_diffusion_phase(self.iteration)):
            self._polyak()
        self.iteration += 1
        self.states_seen += self._global_states(b)
        return loss

    def update(self, b: Batch | TensorBatch, y: torch.Tensor) -> float:
        """One Adam step of the trained network on batch ``b`` against targets ``y``; the loss."""
        x = self._codes(b.states)
        for g in self.optimizer.param_groups:
            g["lr"] = self._lr()
        self.model.train()
        net = self._network()
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.cfg.amp):
            pred = net(x).float()
        if self.cfg.target == "policy":
            loss = policy_loss(pred, y.to(self.device), getattr(b, "legal", None))
        else:
            loss = F.mse_loss(pred, y.to(self.device))
        if self.dist is not None:
            # the shard's share of the global batch: DDP's mean over the processes of these
            # gradients is the gradient of the global batch's mean loss
            loss = loss * (x.shape[0] * self.dist.world / self.cfg.batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        if self.dist is not None:
            return self.dist.mean(float(loss.detach()))  # the global batch's loss
        return float(loss.detach())

    def _network(self) -> torch.nn.Module:
        """The module a training step runs: the model, or with several processes the model
        in DistributedDataParallel (made at the first step, after a resume has loaded it)."""
        if self.dist is None:
            return self.model
        if self._ddp is None:
            self._ddp = self.dist.wrap(self.model, self.device)
        return self._ddp

    def close(self, wait: bool = True) -> None:
        """Leave the process group (several processes; nothing otherwise): wait for the other
        processes (``wait``), release the DistributedDataParallel wrapper while they are there,
        then destroy the group."""
        if self.dist is None:
            return
        import gc

        import torch.distributed

        if wait and torch.distributed.is_initialized():
            torch.distributed.barrier()
        self._ddp = None
        gc.collect()
        self.dist.close()

    def _global_states(self, b: Batch | TensorBatch) -> int:
        """States of the global batch ``b`` is (a shard of)."""
        return self.cfg.batch if self.dist is not None else int(b.states.shape[0])

    def _polyak(self) -> None:
        tau = float(self.cfg.polyak or 1.0)
        if self.target is None:
            self.target = copy.deepcopy(self.model).eval()
            self.target_updates += 1
            return
        with torch.no_grad():
            for pt, po in zip(self.target.parameters(), self.model.parameters(), strict=True):
                pt.mul_(1.0 - tau).add_(po, alpha=tau)
            for bt, bo in zip(self.target.buffers(), self.model.buffers(), strict=True):
                bt.copy_(bo)
        self._fast_target = None
        self.target_updates += 1

    def _check_target(self) -> None:
        """DeepCubeA's update rule: copy the trained network when the window's loss < epsilon."""
        if self.cfg.target != "davi" or self.cfg.polyak is not None or self.loss_n == 0:
            return
        if self.in_diffusion_phase(self.iteration - 1):
            return
        assert self.cfg.epsilon is not None
        if self.loss_sum / self.loss_n < self.cfg.epsilon:
            self._set_target()

    def _set_target(self) -> None:
        """Replace the target network by a copy of the trained one."""
        if self.target is None:
            self.target = build_network(self.model_config).to(self.device)
        self.target.load_state_dict(self.model.state_dict())
        self.target.eval()
        self._fast_target = None
        self.target_updates += 1

    # ------------------------------------------------------------------ monitoring
    def value_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """The current network as a batch value function on states (eval mode)."""
        self.model.eval()
        fast = FastForward(self.model, torch.bfloat16 if self.cfg.amp else torch.float32)
        chunk = infer_chunk(self.device, self.cfg.eval_chunk)

        def f(states: np.ndarray) -> np.ndarray:
            codes = torch.as_tensor(self.puzzle.encode(states)).to(self.device)
            v = torch.cat([fast(codes[i:i + chunk]) for i in range(0, codes.shape[0], chunk)]
                          ).cpu().numpy() if codes.shape[0] else np.zeros(0, np.float32)
            v[self.puzzle.is_goal(states)] = 0.0
            return v
        return f

    def logp_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """The current policy network as a batch function ``states -> (B, A)`` log-probabilities
        over the legal moves (eval mode)."""
        self.model.eval()
        fast = FastForward(self.model, torch.bfloat16 if self.cfg.amp else torch.float32)
        chunk = infer_chunk(self.device, self.cfg.eval_chunk)
        a = self.puzzle.num_actions

        def f(states: np.ndarray) -> np.ndarray:
            codes = torch.as_tensor(self.puzzle.encode(states)).to(self.device)
            logits = torch.cat([fast(codes[i:i + chunk]).reshape(-1, a)
                                for i in range(0, codes.shape[0], chunk)]).cpu()
            return torch.log_softmax(masked_logits(logits.double(),
                                                   legal_moves(self.puzzle, states)), 1).numpy()
        return f

    def _policy_heldout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Held-out policy scrambles: ``(depths (D,), states (D*n, L), labels)``, drawn from a
        stream apart from every training batch's."""
        assert self.cfg.k_max is not None
        k = self.cfg.k_max
        depths = np.unique(np.linspace(1, k, min(self.cfg.eval_depths, k)).round().astype(int))
        walks = np.repeat(depths, self.cfg.eval_per_depth)
        if self.domain is None:  # a goal set (Sokoban); a walk that could not move keeps its
            # solved level and the label -1 (a greedy rollout solves it in no move)
            rng = np.random.default_rng([self.cfg.seed, 2**31 - 1])
            states, labels, _ = self.puzzle.labelled_reverse_walks(walks, rng)  # type: ignore[attr-defined]
            return depths, states, labels
        # a domain of its own: the batch producer's thread walks the trainer's at the same time
        domain = domain_for(self.puzzle, self.device, canonical=self.cfg.walk == "canonical")
        assert domain is not None
        gen = batch_generator(self.cfg.seed, -1, self.device)
        states_t, labels_t = domain.labelled_walks(torch.as_tensor(walks, device=self.device),
                                                   gen, self.cfg.backtrack)
        return depths, states_t.cpu().numpy(), labels_t.cpu().numpy()

    def _policy_monitor(self) -> list[list[Any]]:
        """Per held-out depth: the mean probability of the correct moves, and the share a greedy
        rollout of the most probable move solves."""
        if self._policy_eval is None:
            self._policy_eval = self._policy_heldout()
        depths, states, labels = self._policy_eval
        f = self.logp_fn()
        p = np.exp(f(states))
        if labels.ndim == 1:  # (a label -1, a walk that could not move, counts as correct)
            correct = np.where(labels >= 0, p[np.arange(len(labels)), np.maximum(labels, 0)],
                               1.0)
        else:
            correct = (p * labels).sum(axis=1)
        n = self.cfg.eval_per_depth
        limits = np.minimum(2 * depths + 10, self.cfg.eval_max_steps)
        solved = policy_rollout(self.puzzle, f, states, np.repeat(limits, n))
        pred = correct.reshape(len(depths), n).mean(axis=1)
        share = solved.reshape(len(depths), n).mean(axis=1)
        self.model.train()
        return [[self.iteration, int(d), round(float(q), 4), round(float(v), 4)]
                for d, q, v in zip(depths, pred, share, strict=True)]

    def monitor(self) -> list[list[Any]]:
        """Mean prediction and greedy-solved share per held-out depth (rows of depth_log.csv)."""
        if self.cfg.target == "policy":
            return self._policy_monitor()
        if self._heldout is None:
            self._heldout = heldout_set(self.puzzle, self.cfg)
        depths, states = self._heldout
        f = self.value_fn()
        n = states.shape[1]
        flat = states.reshape(len(depths) * n, -1)
        pred = f(flat).reshape(len(depths), n).mean(axis=1)
        limits = np.minimum(2 * depths + 10, self.cfg.eval_max_steps)
        solved = greedy_rollout(self.puzzle, f, flat, np.repeat(limits, n))
        share = solved.reshape(len(depths), n).mean(axis=1)
        rows = [[self.iteration, int(d), round(float(p), 4), round(float(v), 4)]
                for d, p, v in zip(depths, pred, share, strict=True)]
        self.model.train()
        return rows

    def _log(self, states_per_s: float) -> None:
        if not self.main:  # rank 0 monitors and logs
            self.log_loss_sum, self.log_loss_n = 0.0, 0
            return
        loss = self.log_loss_sum / self.log_loss_n if self.log_loss_n else float("nan")
        depth_rows = self.monitor()
        row = [self.iteration, round(loss, 6), f"{self._lr():.6g}", self.target_updates,
               round(states_per_s, 1), round(self.elapsed, 1)]
        self._append("log.csv", LOG_COLUMNS, [row])
        self._append("depth_log.csv", DEPTH_COLUMNS, depth_rows)
        self.metrics = {
            "loss": round(loss, 6),
            "target_updates": self.target_updates,
            "states_per_s": round(states_per_s, 1),
            "greedy_solved": {str(r[1]): r[3] for r in depth_rows},
            "mean_pred": {str(r[1]): r[2] for r in depth_rows},
        }
        self.log_loss_sum, self.log_loss_n = 0.0, 0

    def change_walk(self, walk: str) -> None:
        """Draw walks of kind ``walk`` from the current iteration on (``--resume --walk``); each
        change is kept in ``cfg.extra["walk_changes"]`` as ``[iteration, old, new]``."""
        if walk not in ("canonical", "plain"):
            raise InputError(f"--walk: expected canonical or plain, got {walk!r}")
        if self.cfg.data != "tensor":
            raise InputError("--walk: canonical walks need the tensor data path (--data tensor)")
        if walk != self.cfg.walk:
            self.cfg.extra.setdefault("walk_changes", []).append([self.iteration, self.cfg.walk, walk])
            self.cfg.walk = walk
            self.domain = domain_for(self.puzzle, self.device, canonical=walk == "canonical")

    def change_epsilon(self, epsilon: float) -> None:
        """Use a new target-update threshold from the current iteration on (``--resume
        --epsilon``, e.g. when the loss plateaus above it and target updates stall). Each change
        is kept in ``cfg.extra["epsilon_changes"]`` as ``[iteration, old, new]``."""
        if self.cfg.target != "davi" or self.cfg.polyak is not None:
            raise InputError("--epsilon: this run does not update its target by a loss threshold")
        if not epsilon > 0:
            raise InputError(f"--epsilon: must be positive, got {epsilon}")
        if not math.isfinite(epsilon):
            raise InputError(f"--epsilon: expected a finite number, got {epsilon}")
        if epsilon != self.cfg.epsilon:
            self.cfg.extra.setdefault("epsilon_changes", []).append(
                [self.iteration, self.cfg.epsilon, epsilon])
            self.cfg.epsilon = epsilon

    def change_lr(self, lr: float | None = None, lr_decay: float | None = None) -> None:
        """A new learning-rate schedule from the current iteration on (``--resume --lr
        --lr-decay``, e.g. a low-rate phase that averages out the noise of walk-length targets):
        the rate is ``lr`` here (default: the rate the run has reached) and falls by ``lr_decay``
        per iteration (default: the run's decay). Each change is kept in
        ``cfg.extra["lr_changes"]`` as ``[iteration, lr, lr_decay]``."""
        _check_finite("--lr", lr)
        _check_finite("--lr-decay", lr_decay)
        _check_schedule(lr, lr_decay)
        now, decay = self._lr(), self._lr_decay()
        new = (float(lr) if lr is not None else now, float(lr_decay) if lr_decay is not None else decay)
        if new != (now, decay):
            self.cfg.extra.setdefault("lr_changes", []).append([self.iteration, *new])

    def make_batch(self, iteration: int) -> Batch | TensorBatch:
        """Batch ``iteration`` of this run (the same batch whenever it is made); with several
        processes, this process's shard of it (the walks of the whole batch are made, the
        children of the shard only)."""
        cfg = self.cfg
        assert cfg.k_max is not None
        rows = self.dist.shard(cfg.batch) if self.dist is not None else None
        if cfg.target == "policy":
            if self.domain is None:  # a goal set (Sokoban): labelled reverse walks in numpy
                from learning.data import make_policy_batch

                return make_policy_batch(self.puzzle, iteration, cfg.seed, cfg.batch,
                                         cfg.k_max, rows=rows)
            return self.domain.policy_batch(iteration, cfg.seed, cfg.batch, cfg.k_max,
                                            cfg.backtrack, rows=rows)
        children = not self.in_diffusion_phase(iteration)
        if self.domain is not None:
            return self.domain.batch(iteration, cfg.seed, cfg.batch, cfg.k_max, children,
                                     cfg.backtrack, rows=rows)
        from learning.data import make_batch

        return make_batch(self.puzzle, iteration, cfg.seed, cfg.batch, cfg.k_max, children,
                          cfg.backtrack, rows=rows)

    def _producer(self) -> BatchProducer | _Inline:
        if self.device.type == "cuda":  # made on the device, in order, no thread needed
            return _Inline(self, self.iteration)
        return BatchProducer(self.puzzle, self.iteration, 0, 0, 0, False, make=self.make_batch)

    # ------------------------------------------------------------------ main loop
    def train(self, iterations: int, max_seconds: float | None = None,
              max_cpu_seconds: float | None = None) -> dict[str, Any]:
        """Run ``iterations`` more iterations; logs and checkpoints every C and at the end.

        With ``max_seconds``, training also stops (logged and saved) at the first iteration that
        ends after that many wall-clock seconds.
        ``max_cpu_seconds`` does the same on the process's CPU time (every thread; monitoring
        excluded), which compares runs at equal compute on a shared machine.

        On ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM while training) the state after the last
        finished iteration is saved before the exception propagates, so ``--resume`` continues
        exactly. Between checks a checkpoint is also written every ``save_every_s`` seconds.
        With several processes, Ctrl-C, SIGTERM and the limits are agreed on after each
        iteration, so all stop after the same one (rank 0 saves, then they raise together).
        """
        import threading

        from tqdm import tqdm

        if iterations < 0:
            raise InputError(f"--iterations: must be >= 0, got {iterations}")
        cfg = self.cfg
        assert cfg.check_every is not None and cfg.k_max is not None
        if self.main:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        if self.dist is not None:
            self.dist.init(self.device)
        end = self.iteration + iterations
        producer = self._producer()
        bar = tqdm(total=iterations, desc=f"{cfg.target} {self.puzzle.name}", unit="it",
                   disable=not self.progress, dynamic_ncols=True)
        window_start, window_states = time.perf_counter(), 0
        t_last = t_start = last_save = time.perf_counter()
        c_last = time.process_time()
        cpu0 = self.cpu_seconds
        stop = threading.Event()
        agreed = False  # every process raised KeyboardInterrupt after the same iteration
        if self.dist is None:
            restore = _stop_on_sigterm()
        else:
            from learning.distributed import stop_on_signals

            restore = stop_on_signals(stop)
        try:
            while self.iteration < end:
                b = producer.get()
                loss = self.step(b)
                if not math.isfinite(loss):
                    raise self._diverged(f"the loss is {loss}")
                now = time.perf_counter()
                self.elapsed += now - t_last
                t_last = now
                cnow = time.process_time()
                self.cpu_seconds += cnow - c_last
                c_last = cnow
                window_states += self._global_states(b)
                self.loss_sum += loss
                self.loss_n += 1
                self.log_loss_sum += loss
                self.log_loss_n += 1
                bar.update(1)
                bar.set_postfix(loss=f"{loss:.4f}", updates=self.target_updates)
                at_check = self.iteration % cfg.check_every == 0
                if at_check:
                    self._check_target()
                    self.loss_sum, self.loss_n = 0.0, 0
                limit = ((max_seconds is not None and now - t_start >= max_seconds)
                         or (max_cpu_seconds is not None
                             and self.cpu_seconds - cpu0 >= max_cpu_seconds))
                if self.dist is not None:  # every process stops after the same iteration
                    limit_n, stop_n = self.dist.sum([float(limit), float(stop.is_set())])
                    if stop_n:
                        agreed = True
                        raise KeyboardInterrupt
                    limit = limit_n > 0
                if limit:
                    end = self.iteration
                if at_check or self.iteration == end:
                    rate = window_states / max(time.perf_counter() - window_start, 1e-9)
                    self._log(rate)
                    self.save()
                    window_start, window_states = time.perf_counter(), 0
                    t_last = last_save = time.perf_counter()  # monitoring is not training time
                    c_last = time.process_time()
                elif now - last_save >= self.save_every_s:
                    self.save()  # between checks too, so a long check interval loses little
                    t_last = last_save = time.perf_counter()
                    c_last = time.process_time()
        except KeyboardInterrupt:
            self.save()
            if agreed:
                import torch.distributed

                torch.distributed.barrier()  # no process leaves before rank 0 has saved
            raise
        finally:
            restore()
            producer.close()
            bar.close()
        if iterations == 0:
            self.save()
        return self.metrics
