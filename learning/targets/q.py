"""Q-network targets: one output per move, ``Q(s, a)`` = the cost of move ``a`` plus the cost-to-go
of the child it leads to, so that a search reads the values of all of a state's children from one
network evaluation of the state (Q* search, Agostinelli et al.; Q-beam).

Three targets, each on walks from the goal of ``k ~ U[1, K]`` moves (as the value targets'):

- ``q-distill``: distillation from a trained value network (the *teacher*, ``teacher``: a model
  name, run folder or file; default the puzzle's shipped model): ``y(s, a) = c(s, a) + V(child)``
  with ``V`` the teacher's value, clipped at 0, and 0 at the goal. The teacher evaluates every
  child once per batch; its weights' digest is kept in the run (``extra.teacher_sha256``) and a
  resumed run refuses another teacher.
- ``q-learning``: deep Q-learning with a target network, as DAVI's value iteration but per move:
  ``y(s, a) = c(s, a) + min over the child's legal moves a' of Q_target(child, a')`` (clipped at
  0), 0 when the child is the goal; the target network is updated as DAVI's (``epsilon`` at each
  check, or ``polyak``), and is 0 everywhere before its first update.
- ``q-diffusion``: regression on random-walk lengths: the move that undoes the walk's last move
  leads back along the walk, so ``y(s, undo) = k`` for a state at the end of a walk of ``k``
  moves (Lights Out: every pressed cell); the other moves are not trained on that state.

Illegal moves (sliding tiles: off the board) are left out of the losses: the mean squared error
over the trained entries. Moves cost 1 on every puzzle here.

Monitoring: per held-out depth the mean of ``min_a Q(s, a)`` and the share that a greedy rollout
by the least ``Q`` solves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from core.errors import InputError
from learning.devices import amp_dtype, infer_chunk
from learning.networks import FastForward
from learning.targets.base import ValueTarget
from learning.targets.davi import DaviTarget
from learning.targets.policy import legal_moves
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from learning.targets.base import TrainBatch
    from learning.train_config import TrainConfig

#: the cost of every move (unit-cost puzzles)
MOVE_COST = 1.0


def masked_mse(pred: torch.Tensor, y: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """Mean squared error of ``pred (B, A)`` against ``y (B, A)`` over the entries ``mask``
    marks (``None``: all)."""
    err = (pred - y) ** 2
    if mask is None:
        return err.mean()
    m = mask.to(err.dtype)
    return (err * m).sum() / m.sum().clamp_min(1.0)


def q_function(t: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The trainer ``t``'s current Q-network on states: ``(B, L) -> (B, A)`` float64, illegal
    moves ``inf`` (eval mode)."""
    t.model.eval()
    fast = FastForward(t.model, amp_dtype(t.cfg.amp))
    chunk = infer_chunk(t.device, t.cfg.eval_chunk)
    a = t.puzzle.num_actions

    def f(states: np.ndarray) -> np.ndarray:
        codes = torch.as_tensor(t.puzzle.encode(states)).to(t.device)
        q = torch.cat([fast(codes[i:i + chunk]).reshape(-1, a)
                       for i in range(0, codes.shape[0], chunk)]).cpu().double().numpy() \
            if codes.shape[0] else np.zeros((0, a))
        legal = legal_moves(t.puzzle, states)
        if legal is not None:
            q[~legal] = np.inf
        return q
    return f


class QTarget(ValueTarget):
    """What the Q targets share (module docstring): ``A`` outputs, a masked loss, monitoring by
    the least ``Q``."""

    per_move = True

    def outputs(self, puzzle: Puzzle) -> int:
        return int(puzzle.num_actions)

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        raise NotImplementedError

    def loss(self, pred: torch.Tensor, y: torch.Tensor, b: TrainBatch) -> torch.Tensor:
        mask = b.valid
        return masked_mse(pred, y, None if mask is None else torch.as_tensor(mask, device=pred.device))

    def monitor(self, t: Any) -> list[list[Any]]:
        from learning.monitoring import heldout_set, policy_rollout

        if t._heldout is None:
            t._heldout = heldout_set(t.puzzle, t.cfg)
        depths, states = t._heldout
        q = q_function(t)
        n = states.shape[1]
        flat = states.reshape(len(depths) * n, -1)
        v = np.maximum(q(flat).min(axis=1), 0.0)
        v[t.puzzle.is_goal(flat)] = 0.0
        pred = v.reshape(len(depths), n).mean(axis=1)
        limits = np.minimum(2 * depths + 10, t.cfg.eval_max_steps)
        solved = policy_rollout(t.puzzle, lambda s: -q(s), flat, np.repeat(limits, n))
        share = solved.reshape(len(depths), n).mean(axis=1)
        t.model.train()
        return [[t.iteration, int(d), round(float(p), 4), round(float(s), 4)]
                for d, p, s in zip(depths, pred, share, strict=True)]


class Teacher:
    """A trained value network evaluated on children for distillation (its weights' digest:
    ``sha256``)."""

    def __init__(self, puzzle: Puzzle, model: str | None, device: torch.device) -> None:
        from learning.checkpoint import check_puzzle, load_checkpoint
        from learning.inference import NetworkEvaluator
        from learning.model_store import resolve_model
        from learning.targets import TARGETS

        try:
            path = resolve_model(puzzle.name, model)
            ckpt = load_checkpoint(path)
            check_puzzle(ckpt, puzzle, path)
        except InputError as exc:  # named by the option that gave the model
            raise InputError("--teacher: " + str(exc).removeprefix("--model: ")) from None
        kind = TARGETS[ckpt["target"]]
        if not kind.values or kind.per_move:
            raise InputError(f"--teacher: {path} is a {ckpt['target']} network; the teacher is "
                             "a value network (davi, diffusion)")
        self.sha256 = str(ckpt.get("weights_sha256", ""))
        ev = NetworkEvaluator()
        ev.puzzle, ev.model_path = puzzle, path
        ev.load_network(ckpt, puzzle, str(device.type), None, "float32")
        self.evaluator = ev
        self.path = path

    def values(self, states: np.ndarray) -> np.ndarray:
        """``(N, L) -> (N,)`` float32 values, clipped at 0 (goals are the caller's)."""
        _, out = self.evaluator.raw_outputs(states, 1)
        return np.maximum(out[:, 0], 0.0)


class QDistillTarget(QTarget):
    """Distillation from a value network (module docstring)."""

    name = "q-distill"
    takes_teacher = True
    card_text = ("Q-values by distillation from a value network (the cost of each move plus the "
                 "teacher's value of its child)")

    def check_config(self, cfg: TrainConfig) -> None:
        if cfg.diffusion_warmup:
            raise InputError("--diffusion-warmup: only DAVI runs start with a diffusion phase")

    def teacher(self, t: Any) -> Teacher:
        teacher = t.teacher
        if teacher is None:
            teacher = Teacher(t.puzzle, t.cfg.teacher, t.device)
            known = t.cfg.extra.get("teacher_sha256")
            if known is None:
                t.cfg.extra["teacher_sha256"] = teacher.sha256
            elif known != teacher.sha256:
                raise InputError(f"--teacher: {teacher.path} is not the network this run was "
                                 "distilled from (its weights' digest differs)")
            t.teacher = teacher
        return teacher

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        assert b.children is not None and b.child_goal is not None
        teacher = self.teacher(t)
        children = b.children
        bsz, a, length = children.shape
        flat = (children.reshape(bsz * a, length).cpu().numpy() if isinstance(children, torch.Tensor)
                else np.asarray(children).reshape(bsz * a, length))
        v = torch.from_numpy(teacher.values(flat)).reshape(bsz, a).to(t.device)
        v = v.masked_fill(torch.as_tensor(b.child_goal, device=t.device), 0.0)
        return MOVE_COST + v


class QLearningTarget(QTarget, DaviTarget):
    """Deep Q-learning with a target network (module docstring)."""

    name = "q-learning"
    card_text = ("Q-learning (the cost of each move plus the least target-network Q-value of its "
                 "child, 0 at the goal)")

    def check_config(self, cfg: TrainConfig) -> None:
        ValueTarget.check_config(self, cfg)

    def in_diffusion_phase(self, cfg: TrainConfig, iteration: int) -> bool:
        return False

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        assert b.children is not None and b.child_goal is not None
        children = b.children
        bsz, a, length = children.shape
        if t.target is None:
            best = torch.zeros(bsz, a, device=t.device)
        else:
            if t._fast_target is None:
                t._fast_target = FastForward(t.target, amp_dtype(t.cfg.amp))
            flat = children.reshape(bsz * a, length)
            codes = t._codes(flat)
            chunk = infer_chunk(t.device, t.cfg.eval_chunk)
            q = torch.cat([t._fast_target(codes[i:i + chunk]).reshape(-1, a)
                           for i in range(0, codes.shape[0], chunk)]).float()
            legal = (t.domain.legal(codes) if t.domain is not None
                     else legal_moves(t.puzzle, np.asarray(flat)))
            if legal is not None:
                q = q.masked_fill(~torch.as_tensor(legal, device=q.device), float("inf"))
            best = q.min(dim=1).values.clamp_min(0.0).reshape(bsz, a)
        best = best.masked_fill(torch.as_tensor(b.child_goal, device=t.device), 0.0)
        return MOVE_COST + best


class QDiffusionTarget(QTarget):
    """Regression of the undoing move's value on the walk length (module docstring)."""

    name = "q-diffusion"
    card_text = ("Q-values by regression on random-walk lengths (the move that undoes a walk's "
                 "last move: the walk's length)")

    def check_config(self, cfg: TrainConfig) -> None:
        super().check_config(cfg)
        if cfg.backtrack:
            raise InputError("--backtrack: q-diffusion walks never play a move right after its "
                             "inverse (the undoing move is the label)")
        if cfg.data != "tensor":
            raise InputError("data: q-diffusion batches are made as tensor operations "
                             "(--data tensor)")

    def check_puzzle(self, puzzle: Puzzle, tensor_walks: bool) -> None:
        if not tensor_walks:
            raise InputError(f"q-diffusion: {puzzle.name} has no tensor walks; Q-networks by "
                             "walk length train on cubes, sliding tiles and Lights Out")

    def make_batch(self, t: Any, iteration: int, rows: slice | None) -> TrainBatch:
        cfg = t.cfg
        return t.domain.policy_batch(iteration, cfg.seed, cfg.batch, cfg.k_max, cfg.backtrack,
                                     rows=rows)

    def targets(self, t: Any, b: TrainBatch) -> torch.Tensor:
        labels = torch.as_tensor(b.labels, device=t.device)
        a = int(t.puzzle.num_actions)
        k = torch.as_tensor(b.depths, dtype=torch.float32, device=t.device)
        if labels.ndim == 1:
            mask = torch.nn.functional.one_hot(labels.long(), a).bool()
        else:
            mask = labels.bool()
        b.valid = mask  # the loss's entries: the undoing moves
        return k[:, None].expand(-1, a).contiguous()
