"""Optional capabilities of puzzles, heuristics, policies and solvers, as types.

A capability is a ``typing.Protocol`` checked with ``isinstance`` (each is
``runtime_checkable``); code never asks ``hasattr`` or ``getattr`` of a project object whether
it can do something. Every protocol here holds methods only, so ``issubclass`` answers for a
class too (``tests/test_capabilities.py`` checks each built-in entry against what it declares).

Puzzles:

- :class:`Invertible`: the inverse position of a state and the path map between them (the
  cubes; beam search's ``inverse`` option).
- :class:`HasBoard`: how the viewer draws a state (a small JSON-able dict whose ``kind`` the
  page knows: ``cube``, ``tiles``, ``lights``, ``sokoban``).
- :class:`HasTensorMoves`: the puzzle's moves as one of the typed move tables below, from which
  the trainer builds its tensor domain (:func:`learning.walks.domain_for`).
- :class:`HasDistanceTable`: a complete table of distances, indexed by a state's rank (2x2x2).
- :class:`HasReverseWalks`: walks backwards from a set of goal states, unlabelled and
  labelled with the move that undoes each walk's last step (Sokoban).
- :class:`SolvesOptimally`: optimal solutions and their lengths in closed form (Lights Out, by
  linear algebra over GF(2)).

Heuristics and other guides of a search:

- :class:`Policy`: log-probabilities of a state's moves and no distance estimate; a policy is
  not a heuristic (:class:`heuristics.base.Heuristic`), and a solver that needs distances
  refuses one (:func:`solvers.base.require_heuristic`).
- :class:`QValues`: one value per move of a state from one evaluation (a Q-network).
- :class:`HasExtraGoals`: goals besides the puzzle's own, each with its path to the final goal
  (a multi-goal model).

Solvers:

- :class:`PolicySolver`: searches with a :class:`Policy` (beam search).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from core.limits import Limits


# --------------------------------------------------------------------------- puzzles
@runtime_checkable
class Invertible(Protocol):
    """A puzzle whose inverse position solves in as many moves as the position itself."""

    def inverse_states(self, states: np.ndarray) -> np.ndarray:
        """``(B, L) -> (B, L)``: the inverse position of each state."""
        ...

    def inverse_path(self, actions: list[int]) -> list[int]:
        """A path that solves the inverse position as one that solves the position."""
        ...


@runtime_checkable
class HasBoard(Protocol):
    """A puzzle the viewer draws."""

    def board(self) -> dict[str, Any]:
        """How the page draws a state: ``{"kind": ..., sizes ...}`` (JSON values only)."""
        ...


@dataclass(frozen=True)
class PermutationMoves:
    """Moves that permute positions (``child = state[perms[a]]``, the cubes). ``face`` and
    ``power`` (one per move: face ``0..5`` in ``URFDLB`` order, quarter turns ``1..3``) allow
    walks without same-axis cancellations; ``htm``: the half-turn metric."""

    perms: np.ndarray
    face: np.ndarray | None = None
    power: np.ndarray | None = None
    htm: bool = False


@dataclass(frozen=True)
class BlankMoves:
    """A sliding blank on a ``width x width`` board."""

    width: int


@dataclass(frozen=True)
class PressMoves:
    """Presses that XOR a mask into the state (Lights Out): ``masks (A, L)``."""

    masks: np.ndarray


TensorMoves = PermutationMoves | BlankMoves | PressMoves


@runtime_checkable
class HasTensorMoves(Protocol):
    """A puzzle whose moves the trainer can make as tensor operations."""

    def tensor_moves(self) -> TensorMoves:
        """The puzzle's moves as one of the typed move tables of this module."""
        ...


@runtime_checkable
class HasDistanceTable(Protocol):
    """A puzzle small enough for a complete distance table, indexed by a state's rank."""

    def distance_table(self) -> np.ndarray:
        """Distances by rank (``-1``: not reachable)."""
        ...

    def index(self, states: np.ndarray) -> np.ndarray:
        """``(B, L) -> (B,)`` ranks."""
        ...

    def from_index(self, index: np.ndarray) -> np.ndarray:
        """``(B,) -> (B, L)`` states of the ranks."""
        ...


@runtime_checkable
class HasReverseWalks(Protocol):
    """A puzzle whose goal is a set of states: training walks start from goals it makes."""

    def reverse_walks(self, depths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(B, L)`` ends of walks of ``depths[i]`` steps backwards from a goal."""
        ...

    def labelled_reverse_walks(self, depths: np.ndarray, rng: np.random.Generator
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(states, labels, steps taken)``: each label the forward move that undoes the
        walk's last step."""
        ...


@runtime_checkable
class SolvesOptimally(Protocol):
    """A puzzle that finds optimal solutions itself (Lights Out: GF(2) elimination)."""

    def optimal_solution(self, state: np.ndarray) -> Sequence[int]:
        """An optimal path from one state (``ValueError`` when none exists)."""
        ...

    def optimal_lengths(self, states: np.ndarray) -> np.ndarray:
        """``(B, L) -> (B,)`` optimal solution lengths."""
        ...


# --------------------------------------------------------------------------- guides
@runtime_checkable
class Policy(Protocol):
    """Ranks moves: log-probabilities of every move of a state, and no distance estimate."""

    def log_probs(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, L) -> (B, A)`` float64, normalised over the legal moves (illegal: ``-inf``);
        ``legal``: the ``(B, A)`` legal moves when the caller has them."""
        ...


@runtime_checkable
class QValues(Protocol):
    """Values for every move of a state from one evaluation of the state."""

    def q_values(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, L) -> (B, A)`` float64: each move's cost plus its child's cost-to-go; illegal
        moves ``inf``."""
        ...


@runtime_checkable
class HasExtraGoals(Protocol):
    """Goals besides the puzzle's own; a search may stop at one and append its path."""

    def extra_goals(self) -> tuple[np.ndarray, Sequence[Sequence[int]]]:
        """``(goals (G, L), paths)``: each goal's moves to the final goal."""
        ...


# --------------------------------------------------------------------------- solvers
@runtime_checkable
class PolicySolver(Protocol):
    """A solver that searches with a :class:`Policy`."""

    def solve_with_policy(self, puzzle: Any, policy: Any, start: np.ndarray,
                          limits: Limits | None = None) -> Any:
        """Solve ``start`` guided by ``policy``; the result is a ``solvers.base.SolveResult``."""
        ...
