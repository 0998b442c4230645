"""Sokoban on an ``n x n`` board (``sokoban``: 10 x 10, DeepCubeA's size; ``sokobanN`` others).

State: ``uint8`` array ``(n * n,)``, one code per cell, row-major, so a level's walls and goals
travel with it (every test level has its own, as in DeepCubeA's network input)::

    0 floor   1 wall   2 goal   3 box   4 box on a goal   5 agent   6 agent on a goal

The goal is a set of states: every box on a goal, the agent anywhere (``is_goal``); there is no
single goal state (``goal()`` refuses). Actions: 4, the direction the agent moves, ``U D L R``; a
move into a box pushes it one cell when the cell behind it is free (floor or goal). Cost 1 per
move, as DeepCubeA counts. Moves are not reversible (a push cannot be undone by a move), so
searches do not prune "undo" moves here (``reversible = False``).

Text: the standard level format, ``#`` wall, ``$`` box, ``.`` goal, ``*`` box on goal, ``@`` agent,
``+`` agent on goal, space (or ``-``, ``_``) floor; rows separated by newlines or ``/`` (one shell
argument). A level smaller than the board is placed at its top left and the rest filled with
wall. A level is refused (one line) when its boxes and goals differ in number, it has no box, not
one agent, or it is not closed by walls (the agent could walk off the board).

Generator (``generate``; ``scramble`` and ``random_states`` use it): ``puzzles.sokoban_levels``,
the Boxoban / gym-sokoban procedure (a room carved by a random walk, boxes on goals, reverse play
that pulls them away, the walk whose boxes moved farthest kept), with its options in
``level_options``. Undoing the pulls is a solution, so every generated level is solvable;
``scramble`` returns that solution (the moves, forward). Training states (``reverse_walks``) are
the same rooms with ``k`` random reverse steps each, no selection; those of a move-prediction
network (``labelled_reverse_walks``) carry the move that undoes their last step.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import replace
from typing import Any

import numpy as np

from core.errors import InputError
from puzzles import sokoban_levels as levels
from puzzles._sokoban_kernels import labelled_reverse_walk_steps, reverse_walk_steps
from puzzles.base import Puzzle
from puzzles.sokoban_levels import AGENT, AGENT_GOAL, BOX, BOX_GOAL, FLOOR, GOAL, WALL

CHARS = {FLOOR: " ", WALL: "#", GOAL: ".", BOX: "$", BOX_GOAL: "*", AGENT: "@", AGENT_GOAL: "+"}
_PARSE = {"#": WALL, " ": FLOOR, "-": FLOOR, "_": FLOOR, ".": GOAL, "$": BOX, "*": BOX_GOAL,
          "@": AGENT, "+": AGENT_GOAL}
ACTION_NAMES = ("U", "D", "L", "R")
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def is_goal_code(codes: np.ndarray) -> np.ndarray:
    """Where ``codes`` (cell codes, any shape) mark a goal: empty, under a box or under the agent."""
    return (codes == GOAL) | (codes == BOX_GOAL) | (codes == AGENT_GOAL)


class Sokoban(Puzzle):
    """Sokoban on a ``size x size`` board with ``boxes`` boxes in generated levels."""

    num_actions = 4
    action_names = ACTION_NAMES
    num_symbols = 7
    encoding_name = "onehot-cells"
    reversible = False

    def __init__(self, size: int = 10, boxes: int = 4,
                 level_options: levels.LevelOptions | None = None) -> None:
        if not isinstance(size, int) or not 5 <= size <= 30:
            raise InputError(f"size: a Sokoban board is 5 to 30 cells wide, got {size!r}")
        if not isinstance(boxes, int) or not 1 <= boxes <= (size - 2) ** 2 // 4:
            raise InputError(f"boxes: expected 1 to {(size - 2) ** 2 // 4}, got {boxes!r}")
        self.size = size
        self.boxes = boxes
        #: the generator's settings (``scramble``, ``random_states``, the rooms of ``reverse_walks``)
        self.level_options = (level_options or levels.LevelOptions()).checked()
        self.state_dim = size * size
        self.name = "sokoban" if size == 10 else f"sokoban{size}"
        n = size
        #: ``(n * n, 4)`` int64: the cell one step away from each cell per action, -1 off the board
        self.step1 = np.full((n * n, 4), -1, dtype=np.int64)
        #: the same two steps away (where a pushed box lands)
        self.step2 = np.full((n * n, 4), -1, dtype=np.int64)
        for c in range(n * n):
            r, q = divmod(c, n)
            for a, (dr, dq) in enumerate(_DELTAS):
                if 0 <= r + dr < n and 0 <= q + dq < n:
                    self.step1[c, a] = (r + dr) * n + q + dq
                if 0 <= r + 2 * dr < n and 0 <= q + 2 * dq < n:
                    self.step2[c, a] = (r + 2 * dr) * n + q + 2 * dq

    # ------------------------------------------------------------------ dynamics
    def goal(self) -> np.ndarray:
        raise InputError(f"{self.name}: the goal is every box on a goal, not one state; give a level")

    def example(self) -> np.ndarray:
        """A level to warm kernels and networks up with: the first seeded generated one."""
        return self.generate(np.random.default_rng(0))[0]

    def is_goal(self, states: np.ndarray) -> np.ndarray:
        s = np.atleast_2d(states)
        return ~(s == BOX).any(axis=1)

    def inverse_action(self, action: int) -> int:
        return -1  # no move undoes a push

    def _batch(self, states: np.ndarray) -> np.ndarray:
        s = np.asarray(states)
        if s.ndim == 1:
            s = s[None, :]
        if s.ndim != 2 or s.shape[1] != self.state_dim:
            raise ValueError(f"{self.name}: states must have shape (B, {self.state_dim}), "
                             f"got {s.shape}")
        return s.astype(np.uint8, copy=False)

    def _move(self, s: np.ndarray, action: int) -> tuple[np.ndarray, np.ndarray]:
        """Every state of ``s`` after ``action``: ``(children, legal)``; illegal rows are copies."""
        rows = np.arange(s.shape[0])
        agent = np.argmax((s == AGENT) | (s == AGENT_GOAL), axis=1)
        t = self.step1[agent, action]
        t2 = self.step2[agent, action]
        ct = np.where(t >= 0, s[rows, np.maximum(t, 0)], WALL)
        ct2 = np.where(t2 >= 0, s[rows, np.maximum(t2, 0)], WALL)
        free = (ct == FLOOR) | (ct == GOAL)
        push = ((ct == BOX) | (ct == BOX_GOAL)) & ((ct2 == FLOOR) | (ct2 == GOAL))
        ok = free | push
        out = s.copy()
        r = rows[ok]
        out[r, agent[ok]] = np.where(s[r, agent[ok]] == AGENT_GOAL, GOAL, FLOOR)
        out[r, t[ok]] = np.where(is_goal_code(ct[ok]), AGENT_GOAL, AGENT)
        p = rows[push]
        out[p, t2[push]] = np.where(ct2[push] == GOAL, BOX_GOAL, BOX)
        return out, ok

    def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = self._batch(states)
        children = np.empty((s.shape[0], 4, s.shape[1]), dtype=np.uint8)
        valid = np.empty((s.shape[0], 4), dtype=bool)
        for a in range(4):
            children[:, a], valid[:, a] = self._move(s, a)
        return children, valid

    def apply(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        s = self._batch(states)
        a = np.asarray(actions, dtype=np.int64).reshape(-1)
        if a.shape[0] != s.shape[0]:
            raise ValueError(f"{self.name}: {s.shape[0]} states but {a.shape[0]} actions")
        if a.size and (a.min() < 0 or a.max() > 3):
            raise ValueError(f"{self.name}: actions must be 0..3")
        out = s.copy()
        for act in range(4):
            sel = np.flatnonzero(a == act)
            if sel.size:
                child, ok = self._move(s[sel], act)
                if not ok.all():
                    raise ValueError(f"{self.name}: illegal move {ACTION_NAMES[act]} (a wall or "
                                     "a box that cannot move is in the way)")
                out[sel] = child
        return out

    # ------------------------------------------------------------------ checking
    def check_level(self, state: np.ndarray, what: str = "STATE") -> np.ndarray:
        """``state`` as a flat array, or a one-line ``InputError`` naming what is wrong."""
        s = np.asarray(state).reshape(-1)
        if s.shape != (self.state_dim,):
            raise InputError(f"{what}: {self.name} needs {self.state_dim} cells, got {s.size}")
        if s.min() < 0 or s.max() > 6:
            raise InputError(f"{what}: cell codes must be 0..6")
        s = s.astype(np.uint8)
        agents = np.flatnonzero((s == AGENT) | (s == AGENT_GOAL))
        if agents.size != 1:
            raise InputError(f"{what}: a level has one agent, this one {agents.size}")
        boxes = int(((s == BOX) | (s == BOX_GOAL)).sum())
        goals = int(is_goal_code(s).sum())
        if boxes == 0:
            raise InputError(f"{what}: the level has no box")
        if boxes != goals:
            raise InputError(f"{what}: {boxes} boxes but {goals} goals")
        n = self.size
        seen = np.zeros(n * n, dtype=bool)
        seen[agents[0]] = True
        queue = deque([int(agents[0])])
        while queue:
            c = queue.popleft()
            r, q = divmod(c, n)
            if r in (0, n - 1) or q in (0, n - 1):
                raise InputError(f"{what}: the level is not closed by walls (the agent can reach "
                                 f"row {r + 1}, column {q + 1} on the edge)")
            for a in range(4):
                t = int(self.step1[c, a])
                if t >= 0 and not seen[t] and s[t] != WALL:
                    seen[t] = True
                    queue.append(t)
        return s

    def validate(self, state: np.ndarray) -> None:
        self.check_level(state, "state")

    # ------------------------------------------------------------------ text
    def parse(self, text: str) -> np.ndarray:
        lines = [ln for ln in re.split(r"[/\n]", str(text).rstrip("\n"))]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            raise InputError("STATE: an empty level")
        n = self.size
        if len(lines) > n or max(len(ln) for ln in lines) > n:
            raise InputError(f"STATE: the level is {len(lines)} x {max(map(len, lines))}, larger "
                             f"than the {n} x {n} board of {self.name}")
        s = np.full((n, n), WALL, dtype=np.uint8)
        for r, ln in enumerate(lines):
            for q, ch in enumerate(ln):
                if ch not in _PARSE:
                    raise InputError(f"STATE: {ch!r} (row {r + 1}) is not a Sokoban cell; use "
                                     "# $ . * @ + and space")
                s[r, q] = _PARSE[ch]
        return self.check_level(s.reshape(-1))

    def format(self, state: np.ndarray) -> str:
        s = np.asarray(state).reshape(self.size, self.size)
        return "/".join("".join(CHARS[int(c)] for c in row).rstrip() for row in s)

    def board(self) -> dict[str, Any]:
        """How the viewer draws a state (:class:`core.capabilities.HasBoard`)."""
        return {"kind": "sokoban", "size": int(self.size)}

    def pretty(self, state: np.ndarray, color: bool = False) -> str:
        return self.format(state).replace("/", "\n")

    def parse_moves(self, text: str) -> list[int]:
        cleaned = re.sub(r"[\s,]+", "", str(text)).upper()
        out = []
        for ch in cleaned:
            if ch not in ACTION_NAMES:
                raise InputError(f"MOVES: {ch!r} is not a move; use U, D, L, R")
            out.append(ACTION_NAMES.index(ch))
        return out

    def from_moves(self, actions: object) -> np.ndarray:
        raise InputError(f"{self.name}: moves need a level to start from; give the level")

    # ------------------------------------------------------------------ generator
    def _room(self, rng: np.random.Generator) -> np.ndarray:
        o = self.level_options
        return levels.carve_room(self.size, rng, o.room_steps, o.turn)

    def generate(self, rng: np.random.Generator, steps: int | None = None,
                 boxes: int | None = None, options: levels.LevelOptions | None = None
                 ) -> tuple[np.ndarray, list[int]]:
        """A solvable level and a solution (the reverse play undone; ``puzzles.sokoban_levels``).
        ``options`` (default ``level_options``), with ``steps`` reverse-play steps when given."""
        o = options or self.level_options
        if steps is not None:
            o = replace(o, steps=steps)
        return levels.generate(self.size, boxes or self.boxes, self.step1, rng, o.checked())

    def solved_level(self, rng: np.random.Generator, boxes: int | None = None
                     ) -> np.ndarray | None:
        """A room with every box on a goal and the agent on a random free cell, or None when
        the room has too little floor."""
        return levels.place(self._room(rng), boxes or self.boxes, rng)

    def _solved_levels(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` solved levels in generated rooms (``level_options``' carving): every box on a
        goal, the agent on a random free cell."""
        s = np.empty((n, self.state_dim), dtype=np.uint8)
        o = self.level_options
        todo = np.arange(n)
        while todo.size:  # a room serves four levels (goals and agent placed afresh each time)
            rooms = levels.carve_rooms(-(-todo.size // 4), self.size, rng, o.room_steps, o.turn)
            placed, ok = levels.place_many(np.repeat(rooms, 4, axis=0)[:todo.size], self.boxes,
                                           rng)
            s[todo[ok]] = placed[ok]
            todo = todo[~ok]  # rooms with too little floor: carved again
        return s

    def _walk_start(self, depths: np.ndarray, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The start of random reverse walks of ``depths`` steps: solved levels, their agents'
        cells, and each step's direction and pull draw (``level_options.pull``)."""
        s = self._solved_levels(depths.size, rng)
        agent = np.argmax(s == AGENT, axis=1)
        longest = int(depths.max(initial=0))
        actions = rng.integers(0, 4, size=(depths.size, longest), dtype=np.int8)
        pulls = rng.random((depths.size, longest), dtype=np.float32) < self.level_options.pull
        return s, agent, actions, pulls

    def reverse_walks(self, depths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Training states, as DeepCubeA trains on Sokoban: per entry of ``depths`` a solved level
        in a generated room (``level_options``' carving), then that many random reverse steps
        (pulling the box behind with probability ``level_options.pull``, all levels at once);
        each ends at most ``depth`` moves from a goal state."""
        depths = np.asarray(depths, dtype=np.int64)
        s, agent, actions, pulls = self._walk_start(depths, rng)
        reverse_walk_steps(s, agent, depths, self.step1, actions, pulls)
        return s

    def labelled_reverse_walks(self, depths: np.ndarray, rng: np.random.Generator
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Training states of a move-prediction network: ``(states, labels, taken)``, the walks
        of ``reverse_walks`` (``depth`` steps drawn, lost ones included) except that a step never
        undoes the step before it (the opposite direction, pulling nothing) unless the agent is
        in a dead end. ``labels``: the move that undoes the last step taken (-1 where no step
        was taken); ``taken``: the steps taken."""
        depths = np.asarray(depths, dtype=np.int64)
        s, agent, actions, pulls = self._walk_start(depths, rng)
        taken = np.zeros(depths.size, dtype=np.int64)
        last = np.zeros(depths.size, dtype=np.int64)
        labelled_reverse_walk_steps(s, agent, depths, self.step1, actions, pulls, taken, last)
        return s, np.where(last >= 0, last ^ 1, -1), taken

    def scramble(self, n: int, depth: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` generated levels (``level_options`` with ``depth`` reverse-play steps) and their
        solutions (padded with -1: a solution is at most ``depth`` moves)."""
        if depth < 1:
            raise InputError(f"--depth: a Sokoban level takes at least one reverse-play step, "
                             f"got {depth}")
        if n < 0:
            raise InputError(f"--count: must be >= 0, got {n}")
        states = np.empty((n, self.state_dim), dtype=np.uint8)
        moves = np.full((n, depth), -1, dtype=np.int64)
        for i in range(n):
            states[i], sol = self.generate(rng, steps=depth)
            moves[i, :len(sol)] = sol
        return states, moves

    def random_states(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.scramble(n, self.level_options.steps, rng)[0]

    # ------------------------------------------------------------------ DeepCubeA
    def from_deepcubea(self, raw: np.ndarray) -> np.ndarray:
        """DeepCubeA's levels, flattened as ``[agent row, agent column, walls, boxes, goals]``
        (``suites.importers.deepcubea``), as our cell codes."""
        r = np.atleast_2d(np.asarray(raw, dtype=np.int64))
        n = self.size
        if r.shape[1] != 2 + 3 * n * n:
            raise InputError(f"DeepCubeA Sokoban levels: expected {2 + 3 * n * n} entries for a "
                             f"{n} x {n} board, got {r.shape[1]}")
        out = np.empty((r.shape[0], n * n), dtype=np.uint8)
        for i, row in enumerate(r):
            walls, boxes, goals = (row[2 + j * n * n: 2 + (j + 1) * n * n].astype(bool)
                                   for j in range(3))
            if (walls & (boxes | goals)).any():
                c = int(np.flatnonzero(walls & (boxes | goals))[0])
                raise InputError(f"DeepCubeA Sokoban level {i}: a box or goal on a wall at row "
                                 f"{c // n + 1}, column {c % n + 1}")
            s = np.where(walls, WALL, FLOOR).astype(np.uint8)
            s[goals] = GOAL
            s[boxes & goals] = BOX_GOAL
            s[boxes & ~goals] = BOX
            a = int(row[0]) * n + int(row[1])
            if not 0 <= a < n * n or walls[a] or boxes[a]:
                raise InputError(f"DeepCubeA Sokoban level {i}: the agent stands on a wall or box")
            s[a] = AGENT_GOAL if goals[a] else AGENT
            out[i] = self.check_level(s, f"DeepCubeA Sokoban level {i}")
        return out
