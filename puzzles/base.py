"""The puzzle interface every domain implements.

Array-first: a batch of states is a 2-D ``numpy`` array of shape ``(B, L)`` with dtype
``uint8`` (``L`` = ``Puzzle.state_dim``); one state is a 1-D array of shape ``(L,)``.
Actions are integers ``0 .. num_actions - 1``; their names are ``Puzzle.action_names``.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from core.errors import InputError


class Puzzle(ABC):
    """A deterministic puzzle with unit-cost, invertible actions.

    Subclasses set ``name``, ``num_actions``, ``state_dim``, ``action_names`` and implement
    the abstract methods. Shapes: ``states`` is ``(B, L)``, ``actions`` is ``(B,)``.
    """

    name: str
    num_actions: int
    state_dim: int
    action_names: tuple[str, ...]
    #: number of distinct values a state entry takes (one-hot width per position for networks)
    num_symbols: int
    #: a short name of the network input encoding; checkpoints record it
    encoding_name: str = "onehot"
    #: True when a move acts on positions whatever the state (a state is a group element, so a
    #: move sequence has the same net effect from every state): the cubes, Lights Out
    positional_moves: bool = False
    #: every move has an inverse (``inverse_action``); searches prune a move that undoes the
    #: last one. Sokoban's pushes have none.
    reversible: bool = True
    #: every move flips a parity of the state (a bipartite state graph), so any two paths
    #: between the same two states differ in length by an even number: the sliding tiles (the
    #: blank's square colour), the cubes in the quarter-turn metric (a quarter turn is an odd
    #: permutation of the corners)
    move_parity: bool = False
    #: every move is its own inverse and any two moves commute (Lights Out): a path's net effect
    #: is the set of moves made an odd number of times, so a path that never repeats a move
    #: is as short as any path with its effect
    commuting_moves: bool = False
    #: the goal layout of a puzzle with several (the sliding tiles: ``blank-last``,
    #: ``blank-first``, ``korf1982``); None where there is one goal
    layout: str | None = None
    dtype = np.uint8
    #: the goal state (read-only) of a puzzle with one; ``goal()`` returns a copy of it
    _goal: np.ndarray

    # ------------------------------------------------------------------ dynamics
    @abstractmethod
    def goal(self) -> np.ndarray:
        """The goal state, shape ``(L,)``."""

    def with_goal(self, goal: np.ndarray) -> Puzzle:
        """A copy of this puzzle whose goal state is ``goal``: the same moves, its walks and goal
        tests from ``goal`` (the goals of a multi-goal tree, :mod:`learning.multigoal`). A
        puzzle whose goal is a set of states (Sokoban) has no such copy."""
        p = copy.copy(self)
        g = np.asarray(goal, dtype=self.goal().dtype).copy()
        g.setflags(write=False)
        p._goal = g
        return p

    def example(self) -> np.ndarray:
        """A valid state to warm kernels and networks up with: the goal, where there is one."""
        return self.goal()

    @abstractmethod
    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All children: ``(children (B, A, L), valid (B, A) bool)``.

        Where ``valid`` is False (a tile move off the board) the child row is a copy of the parent.
        """

    @abstractmethod
    def apply(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Apply one action per state: ``(B, L), (B,) -> (B, L)``. Illegal actions raise ``ValueError``."""

    def position_maps(self) -> np.ndarray | None:
        """``(A, L)`` index maps where every move moves entries between positions whatever the
        state (``child = parent[maps[a]]``: the cubes' sticker permutations), else None."""
        return None

    def is_goal(self, states: np.ndarray) -> np.ndarray:
        """``(B, L) -> (B,)`` bool."""
        states = np.atleast_2d(states)
        return np.all(states == self.goal()[None, :], axis=1)

    @abstractmethod
    def inverse_action(self, action: int) -> int:
        """The action that undoes ``action``."""

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        """Indices of the actions legal in one state (all of them by default)."""
        _, valid = self.expand(np.asarray(state)[None, :])
        return np.flatnonzero(valid[0])

    # ------------------------------------------------------------------ instances
    def scramble(
        self, n: int, depth: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` seeded random walks of ``depth`` moves from the goal that never undo the previous move.

        Returns ``(states (n, L), moves (n, depth))``.
        """
        states = np.repeat(self.goal()[None, :], n, axis=0)
        moves = np.zeros((n, depth), dtype=np.int64)
        prev = np.full(n, -1, dtype=np.int64)
        inverse = np.array([self.inverse_action(a) for a in range(self.num_actions)])
        for d in range(depth):
            _, valid = self.expand(states)
            has_prev = prev >= 0
            valid[np.flatnonzero(has_prev), inverse[prev[has_prev]]] = False
            # choose uniformly among the remaining legal actions
            u = rng.random((n, self.num_actions))
            u[~valid] = -1.0
            a = np.argmax(u, axis=1)
            states = self.apply(states, a)
            moves[:, d] = a
            prev = a
        return states, moves

    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` states drawn uniformly from all solvable states."""
        raise NotImplementedError(f"{self.name} has no uniform sampler")

    @property
    def num_states(self) -> int | None:
        """Number of states reachable from the goal, when known."""
        return None

    # ------------------------------------------------------------------ text I/O
    @abstractmethod
    def parse(self, text: str) -> np.ndarray:
        """Parse a state in the puzzle's input format; validate it; raise ``InputError``."""

    @abstractmethod
    def format(self, state: np.ndarray) -> str:
        """Format one state in the input format (``parse(format(s)) == s``)."""

    @abstractmethod
    def validate(self, state: np.ndarray) -> None:
        """Raise ``InputError`` naming the fault if ``state`` is not a solvable state."""

    @abstractmethod
    def parse_moves(self, text: str) -> list[int]:
        """Parse a move sequence into action indices (``InputError`` on bad input)."""

    def format_moves(self, actions: Sequence[int]) -> str:
        return " ".join(self.action_names[int(a)] for a in actions)

    def pretty(self, state: np.ndarray, color: bool = False) -> str:
        """A human-readable drawing of one state."""
        return self.format(state)

    def from_moves(self, actions: Sequence[int]) -> np.ndarray:
        """The state reached from the goal by ``actions`` (user input: ``--scramble``).

        An action that is illegal where it is applied (a tile move off the board) is an
        ``InputError`` naming the move and its position in the sequence.
        """
        state = self.goal()
        for i, a in enumerate(actions):
            try:
                state = self.apply_path(state, [a])
            except ValueError as exc:
                name = (self.action_names[int(a)] if 0 <= int(a) < self.num_actions
                        else str(a))
                raise InputError(f"MOVES: move {i + 1} ({name}) cannot be made from the state "
                                 f"the earlier moves reach ({exc})") from None
        return state

    # ------------------------------------------------------------------ network input
    def encode(self, states: np.ndarray) -> np.ndarray:
        """Integer codes ``(B, L)`` in ``0 .. num_symbols - 1`` for a one-hot network input."""
        return np.atleast_2d(states).astype(np.int64)

    # ------------------------------------------------------------------ checking
    def apply_path(self, state: np.ndarray, actions: Sequence[int]) -> np.ndarray:
        """Replay ``actions`` from ``state``; raises ``ValueError`` on an illegal action."""
        s = np.asarray(state, dtype=self.dtype)[None, :]
        for a in actions:
            a = int(a)
            if not 0 <= a < self.num_actions:
                raise ValueError(f"action {a} out of range for {self.name}")
            s = self.apply(s, np.array([a]))
        return s[0]

    def check_solution(self, state: np.ndarray, actions: Sequence[int]) -> bool:
        """True iff ``actions`` are legal from ``state`` and reach the goal."""
        try:
            end = self.apply_path(state, actions)
        except ValueError:
            return False
        return bool(self.is_goal(end[None, :])[0])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
