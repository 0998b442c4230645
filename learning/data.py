"""Training data: batched random walks from the goal and the children of their end states.

Everything here works on whole batches through the puzzle's own batch ``expand``; a
``BatchProducer`` thread prepares the next batches while the network trains on the current one
(the batches of this module, or those of any ``make(iteration)`` function it is given).
Batch ``i`` is drawn from ``numpy.random.default_rng([seed, i])`` alone, so a resumed run sees
exactly the batches an uninterrupted run would.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.capabilities import HasReverseWalks
from core.errors import InputError
from puzzles.base import Puzzle


def random_walks(
    puzzle: Puzzle, depths: np.ndarray, rng: np.random.Generator, backtrack: bool = False
) -> np.ndarray:
    """End states of random walks from the goal, one per entry of ``depths`` (shape ``(B,)``).

    A puzzle whose goal is a set of states brings its own ``reverse_walks(depths, rng)`` (Sokoban:
    a fresh solved level per walk, then pulls), which is used instead.

    Each step picks uniformly among the legal actions (``expand``'s valid mask); unless
    ``backtrack`` is set, a step never undoes the step before it (as ``Puzzle.scramble``).
    Returns ``(B, L)`` states in the order of ``depths``.
    """
    depths = np.asarray(depths, dtype=np.int64)
    if isinstance(puzzle, HasReverseWalks):  # a set of goals (Sokoban): walks back from its own
        return np.asarray(puzzle.reverse_walks(depths, rng))
    n = depths.shape[0]
    order = np.argsort(-depths, kind="stable")  # the walkers still moving are always a prefix
    sorted_depths = depths[order]
    states = np.repeat(puzzle.goal()[None, :], n, axis=0)
    prev = np.full(n, -1, dtype=np.int64)
    inverse = np.array([puzzle.inverse_action(a) for a in range(puzzle.num_actions)], dtype=np.int64)
    max_depth = int(sorted_depths[0]) if n else 0
    # number of walkers with depth > t, for t = 0 .. max_depth - 1
    active_counts = np.searchsorted(-sorted_depths, -np.arange(max_depth), side="left")
    rows = np.arange(n)
    for t in range(max_depth):
        m = int(active_counts[t])
        children, valid = puzzle.expand(states[:m])
        if not backtrack:
            has_prev = prev[:m] >= 0
            idx = np.flatnonzero(has_prev)
            valid[idx, inverse[prev[idx]]] = False
        u = rng.random((m, puzzle.num_actions))
        u[~valid] = -1.0
        a = np.argmax(u, axis=1)
        states[:m] = children[rows[:m], a]
        prev[:m] = a
    out = np.empty_like(states)
    out[order] = states
    return out


@dataclass
class Batch:
    """One training batch.

    ``states`` (B, L) uint8; ``depths`` (B,) scramble lengths; ``is_goal`` (B,) bool;
    ``children`` (B, A, L) and ``valid`` (B, A), ``child_goal`` (B, A) bool, or None when the
    training target does not need them (diffusion).
    """

    iteration: int
    states: np.ndarray
    depths: np.ndarray
    is_goal: np.ndarray
    children: np.ndarray | None = None
    valid: np.ndarray | None = None
    child_goal: np.ndarray | None = None
    #: move-prediction batches: the move that undoes each walk's last step ``(B,)`` and the
    #: legal moves ``(B, A)``
    labels: np.ndarray | None = None
    legal: np.ndarray | None = None


def make_batch(
    puzzle: Puzzle, iteration: int, seed: int, batch: int, k_max: int, with_children: bool,
    backtrack: bool = False, rows: slice | None = None,
) -> Batch:
    """Batch ``iteration`` of a run: ``batch`` states scrambled ``k ~ U[1, k_max]`` moves;
    ``rows``: only these rows of it (a training process's shard), children included."""
    rng = np.random.default_rng([seed, iteration])
    depths = rng.integers(1, k_max + 1, size=batch)
    states = random_walks(puzzle, depths, rng, backtrack=backtrack)
    if rows is not None:
        states, depths = states[rows], depths[rows]
    b = Batch(iteration, states, depths, puzzle.is_goal(states))
    if with_children:
        children, valid = puzzle.expand(states)
        bsz, a, length = children.shape
        b.children, b.valid = children, valid
        b.child_goal = puzzle.is_goal(children.reshape(bsz * a, length)).reshape(bsz, a)
    return b


def make_policy_batch(puzzle: Puzzle, iteration: int, seed: int, batch: int, k_max: int,
                      rows: slice | None = None) -> Batch:
    """Batch ``iteration`` of a move-prediction run on a puzzle whose goal is a set of states
    (Sokoban: ``labelled_reverse_walks``, walks of ``k ~ U[1, k_max]`` steps drawn): states,
    the steps taken, the label of each (the move that undoes its last step) and its legal moves.
    A walk whose agent could not move at all (a solved level, no label) is left out, so a batch
    may hold a few states fewer than ``batch``."""
    rng = np.random.default_rng([seed, iteration])
    depths = rng.integers(1, k_max + 1, size=batch)
    if not isinstance(puzzle, HasReverseWalks):
        raise InputError(f"policy: {puzzle.name} has no labelled reverse walks")
    states, labels, taken = puzzle.labelled_reverse_walks(depths, rng)
    if rows is not None:
        states, labels, taken = states[rows], labels[rows], taken[rows]
    keep = labels >= 0
    states, labels, taken = states[keep], labels[keep], taken[keep]
    b = Batch(iteration, states, taken, puzzle.is_goal(states))
    b.labels, b.legal = labels, puzzle.expand(states)[1]
    return b


class BatchProducer:
    """A daemon thread that makes batches ``start, start+1, ...`` ahead of the trainer.

    numpy releases the GIL in its array kernels, so data generation overlaps the network's work.
    ``get()`` returns the batches in order; ``close()`` stops the thread.
    """

    def __init__(self, puzzle: Puzzle, start: int, seed: int, batch: int, k_max: int,
                 with_children: bool, backtrack: bool = False, ahead: int = 2,
                 make: Callable[[int], Any] | None = None) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=ahead)
        self._stop = threading.Event()
        self._args = (puzzle, seed, batch, k_max, with_children, backtrack)
        self._make = make
        self._next = start
        self._thread = threading.Thread(target=self._run, args=(start,), daemon=True,
                                        name="davi-batches")
        self._thread.start()

    def _run(self, start: int) -> None:
        puzzle, seed, batch, k_max, with_children, backtrack = self._args
        torch = sys.modules.get("torch")
        if torch is not None:
            # this thread's CPU tensor operations on one thread (the count is per thread; the
            # trainer's keeps its own): small batch operations split over the trainer's threads
            # waited for busy cores, which made a cube3 batch of 1,000 about 6x slower
            torch.set_num_threads(1)
        i = start
        try:
            while not self._stop.is_set():
                b = (self._make(i) if self._make is not None
                     else make_batch(puzzle, i, seed, batch, k_max, with_children, backtrack))
                while not self._stop.is_set():
                    try:
                        self._queue.put(b, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                i += 1
        except BaseException as exc:  # handed to the trainer, raised there
            self._queue.put(exc)

    def get(self) -> Any:
        item = self._queue.get()
        if isinstance(item, BaseException):
            raise item
        assert item.iteration == self._next, "batches out of order"
        self._next += 1
        return item

    def close(self) -> None:
        self._stop.set()
        while True:  # unblock a pending put
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join(timeout=10)
