"""Training data as tensor operations: random walks, children and goal tests on a torch device.

A ``TensorDomain`` holds a puzzle's moves as small tensors, so that a whole training batch
(random walks from the goal, every child of their end states, goal masks) is made by gathers,
scatters and XORs on the device the network trains on; on a GPU an iteration never leaves it,
on the CPU it replaces the numpy ``expand`` of every step (which built all ``A`` children to keep
one) by one gather per step.

- Cubes: a move is a sticker permutation, ``child = state[perm[a]]``.
- Tile puzzles: the blank's position is tracked; a move swaps it with a neighbour (``-1`` in
  the move table marks a move off the board).
- Lights Out: a press XORs a mask. Walks press *distinct* cells: presses commute and undo
  themselves, so ``k`` distinct presses are a shortest path of length ``k`` whenever the press
  matrix is invertible (7x7 is), and the walk length is then the exact distance.

Walks never undo their previous move (``backtrack=False``, the default) or choose uniformly
among all legal moves (``backtrack=True``). On the cubes, ``canonical=True`` walks also never
cancel within a run of moves on one axis (faces U/D, R/L, F/B commute): in the quarter-turn
metric a face's net turn within such a run stays in {+1, +2} or {-1, -2} (no ``U U U``, no
``U D U'``), in the half-turn metric each face turns at most once per run. A walk of ``k`` moves
then ends on a state that no same-axis rewriting brings closer, so the walk length is a tighter
(still upper) bound on the distance: the label of the diffusion target. Batch ``i`` of a run is drawn from a
``torch.Generator`` seeded with ``(seed, i)`` alone, so a resumed run sees exactly the batches an
uninterrupted one would (on the same device kind).

Move-prediction (policy) batches (``policy_batch``) carry a label per walk: the move that undoes
the walk's last move (``inverse[last]``) on the cubes and tiles, and on Lights Out, where presses
commute and each undoes itself, the set of pressed cells (``(B, A)`` 0/1: any of them is a
correct next press); with the legal-move mask of the end states (tiles: moves off the board are
illegal; ``None`` where every move is legal).

``domain_for(puzzle)`` builds the domain from the moves the puzzle gives
(:class:`core.capabilities.HasTensorMoves`: a permutation, blank or press table) and returns
``None`` for a puzzle without them; the trainer then uses the numpy path of
:mod:`learning.data`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.capabilities import BlankMoves, HasTensorMoves, PermutationMoves, PressMoves
from puzzles.base import Puzzle


def batch_generator(seed: int, iteration: int, device: torch.device) -> torch.Generator:
    """The random stream of batch ``iteration`` of a run with ``seed``."""
    g = torch.Generator(device=device)
    g.manual_seed((int(seed) * 0x9E3779B1 + int(iteration) * 0x85EBCA77 + 0x165667B1) % (2**63))
    return g


@dataclass
class TensorBatch:
    """One batch on the device: ``states (B, L)`` uint8, ``depths (B,)`` int64, ``is_goal (B,)``;
    with children: ``children (B, A, L)``, ``valid (B, A)``, ``child_goal (B, A)``."""

    iteration: int
    states: torch.Tensor
    depths: torch.Tensor
    is_goal: torch.Tensor
    children: torch.Tensor | None = None
    valid: torch.Tensor | None = None
    child_goal: torch.Tensor | None = None
    #: policy batches: the move undoing the last scramble move ``(B,)`` int64, or on Lights Out
    #: the pressed cells ``(B, A)`` uint8; and the legal moves ``(B, A)`` (None: all legal)
    labels: torch.Tensor | None = None
    legal: torch.Tensor | None = None


class TensorDomain:
    """Moves of one puzzle as tensors on ``device`` (see the module docstring)."""

    kind: str
    #: whether ``_kernel_walk`` makes this domain's walks on the CPU
    compiled_walks = False

    def __init__(self, puzzle: Puzzle, device: torch.device | str = "cpu") -> None:
        self.puzzle = puzzle
        self.device = torch.device(device)
        self.A = int(puzzle.num_actions)
        self.L = int(puzzle.state_dim)
        self.goal = torch.as_tensor(puzzle.goal(), dtype=torch.uint8, device=self.device)
        self.inverse = torch.as_tensor(
            [puzzle.inverse_action(a) for a in range(self.A)], dtype=torch.long, device=self.device)

    # ----------------------------------------------------------------- per family
    def _start(self, n: int) -> None:
        """Per-walk bookkeeping before the first step (tiles: the blank's cell)."""

    def _legal(self, m: int, states: torch.Tensor) -> torch.Tensor | None:
        """``(m, A)`` legal mask of the first ``m`` walkers, or None when every move is legal."""
        return None

    def _step(self, states: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> None:
        """Apply ``actions`` to ``states[rows]`` in place."""
        raise NotImplementedError

    def _after(self, m: int, actions: torch.Tensor) -> None:
        """Per-walk bookkeeping after the first ``m`` walkers moved."""

    def children(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(B, L) -> (children (B, A, L), valid (B, A))``; invalid children copy the parent."""
        raise NotImplementedError

    def _walk_lengths(self, depths: torch.Tensor, backtrack: bool) -> torch.Tensor:
        """The number of moves each walk of ``depths`` made (the regression label)."""
        return depths

    def legal(self, states: torch.Tensor) -> torch.Tensor | None:
        """``(B, A)`` legal moves of ``states``, or None when every move is legal."""
        return None

    # ----------------------------------------------------------------- shared
    def is_goal(self, states: torch.Tensor) -> torch.Tensor:
        return (states == self.goal).all(dim=-1)

    def walks(self, depths: torch.Tensor, gen: torch.Generator, backtrack: bool = False) -> torch.Tensor:
        """End states ``(B, L)`` of random walks from the goal, ``depths[i]`` moves each."""
        return self._walk(depths, gen, backtrack)[0]

    def labelled_walks(self, depths: torch.Tensor, gen: torch.Generator,
                       backtrack: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``(end states (B, L), labels)``: the same walks as ``walks``, each labelled with the
        move that undoes its last move (``depths`` must be at least 1)."""
        states, last = self._walk(depths, gen, backtrack)
        return states, self.inverse[last.clamp(min=0)]

    def _walk(self, depths: torch.Tensor, gen: torch.Generator,
              backtrack: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """End states ``(B, L)`` and last moves ``(B,)`` (-1 for a walk of no move)."""
        depths = depths.to(self.device)
        n = int(depths.shape[0])
        order = torch.argsort(depths, descending=True, stable=True)  # moving walkers: a prefix
        sd = depths[order]
        states = self.goal.expand(n, self.L).clone()
        prev = torch.full((n,), -1, dtype=torch.long, device=self.device)
        max_depth = int(sd[0]) if n else 0
        counts = (sd.unsqueeze(0) > torch.arange(max_depth, device=self.device).unsqueeze(1)).sum(1)
        if self.device.type == "cpu" and self.compiled_walks and n:
            # the same walks by a compiled loop, from the same numbers (learning._walk_kernels)
            u = torch.rand((int(counts.sum()), self.A), generator=gen, device=self.device)
            self._kernel_walk(states.numpy(), u.numpy(), counts.numpy(), prev.numpy(), backtrack)
        else:
            self._tensor_walk(states, gen, counts, prev, backtrack)
        out = torch.empty_like(states)
        out[order] = states
        last = torch.empty_like(prev)
        last[order] = prev
        return out, last

    def _kernel_walk(self, states: np.ndarray, u: np.ndarray, counts: np.ndarray,
                     prev: np.ndarray, backtrack: bool) -> None:
        """Make the walks of ``_tensor_walk`` in place from all their random numbers ``u``
        (``sum(counts) x A``, drawn in one call) by a compiled loop (domains with
        ``compiled_walks``)."""
        raise NotImplementedError

    def _tensor_walk(self, states: torch.Tensor, gen: torch.Generator, counts: torch.Tensor,
                     prev: torch.Tensor, backtrack: bool) -> None:
        """The walks step by step as tensor operations (any device), in place."""
        self._start(states.shape[0])
        for t, m in enumerate(counts.tolist()):
            rows = torch.arange(m, device=self.device)
            u = torch.rand((m, self.A), generator=gen, device=self.device)
            legal = self._legal(m, states)
            if legal is not None:
                u = u.masked_fill(~legal, -1.0)
            if not backtrack and t > 0:
                u[rows, self.inverse[prev[:m]]] = -1.0
            a = u.argmax(dim=1)
            self._step(states, rows, a)
            self._after(m, a)
            prev[:m] = a

    def batch(self, iteration: int, seed: int, size: int, k_max: int, with_children: bool,
              backtrack: bool = False, k_min: int = 1, rows: slice | None = None) -> TensorBatch:
        """Batch ``iteration``: ``size`` walks of ``k ~ U[k_min, k_max]`` moves (see module doc).
        ``rows``: only these rows of it (a training process's shard), children included."""
        gen = batch_generator(seed, iteration, self.device)
        depths = torch.randint(k_min, k_max + 1, (size,), generator=gen, device=self.device)
        states = self.walks(depths, gen, backtrack)
        depths = self._walk_lengths(depths, backtrack)
        if rows is not None:
            states, depths = states[rows], depths[rows]
        b = TensorBatch(iteration, states, depths, self.is_goal(states))
        if with_children:
            ch, valid = self.children(states)
            b.children, b.valid, b.child_goal = ch, valid, self.is_goal(ch)
        return b

    def policy_batch(self, iteration: int, seed: int, size: int, k_max: int,
                     backtrack: bool = False, rows: slice | None = None) -> TensorBatch:
        """Batch ``iteration`` of a move-prediction run: ``size`` walks of ``k ~ U[1, k_max]``
        moves with their labels and legal moves (module docstring); ``rows``: only these."""
        gen = batch_generator(seed, iteration, self.device)
        depths = torch.randint(1, k_max + 1, (size,), generator=gen, device=self.device)
        states, labels = self.labelled_walks(depths, gen, backtrack)
        if rows is not None:
            states, labels, depths = states[rows], labels[rows], depths[rows]
        b = TensorBatch(iteration, states, self._walk_lengths(depths, backtrack),
                        self.is_goal(states))
        b.labels, b.legal = labels, self.legal(states)
        return b


class PermutationDomain(TensorDomain):
    """Puzzles whose moves permute positions (the cubes): ``child = state[perm[a]]``."""

    kind = "permutation"
    compiled_walks = True

    def __init__(self, puzzle: Puzzle, moves: PermutationMoves,
                 device: torch.device | str = "cpu", canonical: bool = False) -> None:
        super().__init__(puzzle, device)
        self.perms = torch.as_tensor(np.array(moves.perms), dtype=torch.long, device=self.device)
        self.canonical = canonical and moves.face is not None and moves.power is not None
        self._np: tuple[np.ndarray, ...] | None = None  # the tables of the compiled walks
        if self.canonical:
            face = np.asarray(moves.face)
            power = np.asarray(moves.power)
            self.axis = torch.as_tensor(face % 3, device=self.device)  # U/D 0, R/L 1, F/B 2
            self.side = torch.as_tensor(face // 3, device=self.device)  # U R F 0, D L B 1
            self.htm = moves.htm
            turn = np.where(power == 1, 1, np.where(power == 3, -1, 2))
            self.turn = torch.as_tensor(turn, device=self.device)
            self.run_axis = torch.empty(0, dtype=torch.long, device=self.device)
            self.run_net = torch.empty((0, 2), dtype=torch.long, device=self.device)

    def _start(self, n: int) -> None:
        if self.canonical:
            self.run_axis = torch.full((n,), -1, dtype=torch.long, device=self.device)
            self.run_net = torch.zeros((n, 2), dtype=torch.long, device=self.device)

    def _legal(self, m: int, states: torch.Tensor) -> torch.Tensor | None:
        if not self.canonical:
            return None
        same_axis = self.run_axis[:m, None] == self.axis[None, :]  # (m, A)
        net = self.run_net[:m][:, self.side]  # (m, A): the net turn of each action's face
        if self.htm:
            ok = net == 0
        else:
            ok = (net == 0) | (net == self.turn[None, :])
        return ~same_axis | ok

    def _after(self, m: int, actions: torch.Tensor) -> None:
        if not self.canonical:
            return
        rows = torch.arange(m, device=self.device)
        ax = self.axis[actions]
        new_run = self.run_axis[:m] != ax
        self.run_net[:m][new_run] = 0
        self.run_axis[:m] = ax
        side = self.side[actions]
        self.run_net[rows, side] += torch.ones_like(side) if self.htm else self.turn[actions]

    def _step(self, states: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> None:
        m = rows.shape[0]
        states[:m] = torch.gather(states[:m], 1, self.perms[actions])

    def _kernel_walk(self, states: np.ndarray, u: np.ndarray, counts: np.ndarray,
                     prev: np.ndarray, backtrack: bool) -> None:
        from learning._walk_kernels import permutation_walks

        if self._np is None:
            none = torch.zeros(self.A, dtype=torch.long)
            self._np = tuple(np.ascontiguousarray(x.cpu().numpy()) for x in (
                self.perms, self.inverse, *((self.axis, self.side, self.turn) if self.canonical
                                            else (none, none, none))))
        perms, inverse, axis, side, turn = self._np
        permutation_walks(states, u, counts, perms, inverse, prev, backtrack, self.canonical,
                          self.canonical and self.htm, axis, side, turn)

    def children(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ch = states[:, self.perms]  # (B, A, L)
        return ch, torch.ones(ch.shape[:2], dtype=torch.bool, device=self.device)


class TilesDomain(TensorDomain):
    """Sliding-tile puzzles: ``state[pos]`` is the tile at ``pos`` (0 = blank)."""

    kind = "tiles"
    compiled_walks = True

    def __init__(self, puzzle: Puzzle, moves: BlankMoves,
                 device: torch.device | str = "cpu") -> None:
        super().__init__(puzzle, device)
        from puzzles.npuzzle import blank_moves_table

        self.moves = torch.as_tensor(np.array(blank_moves_table(moves.width)), dtype=torch.long,
                                     device=self.device)
        self.goal_blank = int(np.flatnonzero(puzzle.goal() == 0)[0])
        self.blank = torch.empty(0, dtype=torch.long, device=self.device)
        self._np: tuple[np.ndarray, np.ndarray] | None = None  # the tables of the compiled walks

    def _start(self, n: int) -> None:
        self.blank = torch.full((n,), self.goal_blank, dtype=torch.long, device=self.device)

    def _legal(self, m: int, states: torch.Tensor) -> torch.Tensor:
        return self.moves[self.blank[:m]] >= 0

    def legal(self, states: torch.Tensor) -> torch.Tensor:
        blank = (states == 0).to(torch.uint8).argmax(dim=1)
        return self.moves[blank] >= 0

    def _step(self, states: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> None:
        m = rows.shape[0]
        b = self.blank[:m]
        t = self.moves[b, actions]
        states[rows, b] = states[rows, t]
        states[rows, t] = 0
        self.blank[:m] = t

    def _kernel_walk(self, states: np.ndarray, u: np.ndarray, counts: np.ndarray,
                     prev: np.ndarray, backtrack: bool) -> None:
        from learning._walk_kernels import tile_walks

        if self._np is None:
            self._np = (np.ascontiguousarray(self.moves.cpu().numpy()),
                        np.ascontiguousarray(self.inverse.cpu().numpy()))
        tile_walks(states, u, counts, *self._np, prev, backtrack, self.goal_blank)

    def children(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        blank = (states == 0).to(torch.uint8).argmax(dim=1)
        target = self.moves[blank]  # (B, 4)
        valid = target >= 0
        ch = states.unsqueeze(1).repeat(1, self.A, 1)
        bi, ai = torch.nonzero(valid, as_tuple=True)
        tg = target[bi, ai]
        ch[bi, ai, blank[bi]] = states[bi, tg]
        ch[bi, ai, tg] = 0
        return ch, valid


class LightsDomain(TensorDomain):
    """Lights Out: a press XORs its mask; walks press distinct cells (module docstring)."""

    kind = "lights"

    def __init__(self, puzzle: Puzzle, moves: PressMoves,
                 device: torch.device | str = "cpu") -> None:
        super().__init__(puzzle, device)
        self.masks = torch.as_tensor(np.array(moves.masks), dtype=torch.uint8, device=self.device)

    def walks(self, depths: torch.Tensor, gen: torch.Generator, backtrack: bool = False) -> torch.Tensor:
        return self.labelled_walks(depths, gen, backtrack)[0]

    def labelled_walks(self, depths: torch.Tensor, gen: torch.Generator,
                       backtrack: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """``(end states (B, L), pressed cells (B, A) uint8)``: presses commute and undo
        themselves, so every pressed cell (pressed an odd number of times) is a correct next
        press."""
        depths = depths.to(self.device)
        n = int(depths.shape[0])
        if backtrack:  # presses may repeat: a plain walk of independent presses
            presses = torch.randint(0, self.A, (n, int(depths.max()) if n else 0),
                                    generator=gen, device=self.device)
            take = torch.arange(presses.shape[1], device=self.device) < depths.unsqueeze(1)
            counts = torch.zeros((n, self.A), dtype=torch.long, device=self.device)
            counts.scatter_add_(1, presses, take.long())
            chosen = (counts % 2).to(torch.uint8)
        else:
            keys = torch.rand((n, self.A), generator=gen, device=self.device)
            rank = keys.argsort(dim=1).argsort(dim=1)
            chosen = (rank < depths.unsqueeze(1)).to(torch.uint8)
        # a float product (CUDA has no integer matmul); each cell sums at most 5 presses: exact
        states = ((chosen.float() @ self.masks.float()) % 2).to(torch.uint8)
        return states, chosen

    def _walk_lengths(self, depths: torch.Tensor, backtrack: bool) -> torch.Tensor:
        return depths if backtrack else depths.clamp(max=self.A)  # at most every cell once

    def children(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ch = states.unsqueeze(1) ^ self.masks.unsqueeze(0)
        return ch, torch.ones(ch.shape[:2], dtype=torch.bool, device=self.device)


def domain_for(puzzle: Puzzle, device: torch.device | str = "cpu",
               canonical: bool = False) -> TensorDomain | None:
    """The tensor form of ``puzzle`` (from the moves it gives,
    :class:`core.capabilities.HasTensorMoves`), or None when it has none. ``canonical``: cube
    walks without same-axis cancellations (module docstring); other puzzles ignore it."""
    if not isinstance(puzzle, HasTensorMoves):
        return None
    moves = puzzle.tensor_moves()
    if isinstance(moves, PermutationMoves):
        return PermutationDomain(puzzle, moves, device, canonical=canonical)
    if isinstance(moves, BlankMoves):
        return TilesDomain(puzzle, moves, device)
    return LightsDomain(puzzle, moves, device)
