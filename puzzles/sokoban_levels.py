"""Sokoban level generation in the Boxoban (gym-sokoban) manner, as DeepCubeA's test levels were.

1. Room: a random walk inside the border walls carves floor with small patterns (a line of three
   cells, an L, a square; gym-sokoban's masks), ``room_steps`` steps, turning with probability
   ``turn`` per step.
2. Boxes on random floor cells, which become their goals, and the agent on another floor cell.
3. Reverse play: ``steps`` random agent steps; a step away from a box pulls it along with
   probability ``pull``. Every state of the walk is scored as Boxoban scores a room: box swaps
   (pulls of a different box than the pull before) times box displacement (the Manhattan distance
   of every box from the goal it started on), zero while a box is still on a goal. The walk's
   best state is kept; of ``tries`` walks (each in a fresh room) the best-scored one is the level.

Undoing the reverse play up to the kept state is a solution, so every level is solvable; the
solution (forward moves) comes with the level. Everything draws from the given numpy Generator
only, so a seed fixes the levels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from core.errors import InputError

FLOOR, WALL, GOAL, BOX, BOX_GOAL, AGENT, AGENT_GOAL = range(7)
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))
#: gym-sokoban's masks: the cells each step of the room's walk carves, offsets from its position
_MASKS = (((0, -1), (0, 0), (0, 1)), ((-1, 0), (0, 0), (1, 0)), ((0, -1), (0, 0), (1, 0)),
          ((0, -1), (0, 0), (1, -1), (1, 0)), ((0, 0), (0, 1), (1, 0)))


#: the largest value of each count of :class:`LevelOptions` (a level of 10,000 walks of 1,000
#: steps takes about ten seconds; larger values only keep a command busy for hours)
LEVEL_CAPS = {"steps": 10**6, "tries": 10_000, "room_steps": 10_000}


@dataclass(frozen=True)
class LevelOptions:
    """The generator's difficulty settings (module text). Defaults measured against DeepCubeA's
    test levels with ``experiments/sokoban/generator_check.py`` (results/sokoban/README.md)."""

    steps: int = 1000       #: reverse-play steps per walk
    tries: int = 16         #: walks (each in a fresh room) per level; the best-scored one is kept
    room_steps: int = 40    #: carving steps of a room's walk (gym-sokoban: 1.7 x (width + height))
    turn: float = 0.35      #: probability the carving walk changes direction at a step
    pull: float = 0.5       #: probability a step away from a box pulls it

    def checked(self) -> LevelOptions:
        """These options, or a one-line ``InputError`` naming the first one out of range."""
        for name, low in (("steps", 1), ("tries", 1), ("room_steps", 1)):
            v = getattr(self, name)
            flag = "--depth" if name == "steps" else "--" + name.replace("_", "-")
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InputError(f"{flag}: expected an integer >= {low}, got {v!r}")
            if v > LEVEL_CAPS[name]:
                raise InputError(f"{flag}: must be at most {LEVEL_CAPS[name]}, got {v}")
        for name in ("turn", "pull"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise InputError(f"--{name}: expected a probability in [0, 1], got {v!r}")
        return self

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


def carve_room(size: int, rng: np.random.Generator, room_steps: int, turn: float) -> np.ndarray:
    """A ``size x size`` room, flat: walls everywhere but the floor a random walk carves."""
    n = size
    room = np.full((n, n), WALL, dtype=np.uint8)
    pos = np.array([rng.integers(1, n - 1), rng.integers(1, n - 1)])
    direction = _DELTAS[int(rng.integers(4))]
    for _ in range(room_steps):
        if rng.random() < turn:
            direction = _DELTAS[int(rng.integers(4))]
        pos = np.clip(pos + direction, 1, n - 2)
        for dr, dq in _MASKS[int(rng.integers(len(_MASKS)))]:
            r, q = pos[0] + dr, pos[1] + dq
            if 1 <= r <= n - 2 and 1 <= q <= n - 2:
                room[r, q] = FLOOR
    return room.reshape(-1)


#: ``_MASKS`` as one array: mask, offset (padded by repeating the centre), (row, column)
_MASK_ARRAY = np.array([m + ((0, 0),) * (4 - len(m)) for m in _MASKS], dtype=np.int64)
_DELTA_ARRAY = np.array(_DELTAS, dtype=np.int64)


def carve_rooms(count: int, size: int, rng: np.random.Generator, room_steps: int,
                turn: float) -> np.ndarray:
    """``(count, size * size)``: ``count`` rooms carved as :func:`carve_room` carves one, all
    walks stepped at once (the same process, drawn in another order from ``rng``)."""
    n = size
    rooms = np.full((count, n, n), WALL, dtype=np.uint8)
    pos = rng.integers(1, n - 1, size=(count, 2))
    direction = _DELTA_ARRAY[rng.integers(4, size=count)]
    for _ in range(room_steps):
        turns = rng.random(count) < turn
        direction = np.where(turns[:, None], _DELTA_ARRAY[rng.integers(4, size=count)],
                             direction)
        pos = np.clip(pos + direction, 1, n - 2)
        cells = pos[:, None, :] + _MASK_ARRAY[rng.integers(len(_MASKS), size=count)]
        inside = ((cells >= 1) & (cells <= n - 2)).all(axis=2)
        k, j = np.nonzero(inside)
        rooms[k, cells[k, j, 0], cells[k, j, 1]] = FLOOR
    return rooms.reshape(count, -1)


def place_many(rooms: np.ndarray, boxes: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`place` for each of ``rooms (R, L)`` at once: ``(levels, ok)``, where ``ok`` is
    False for a room with too little floor (its row is left as the room)."""
    out = rooms.copy()
    floor = rooms == FLOOR
    ok = floor.sum(axis=1) >= boxes + 2
    keys = np.where(floor, rng.random(rooms.shape), 2.0)  # floor cells in random order first
    cells = np.argsort(keys, axis=1, kind="stable")[:, :boxes + 1]
    rows = np.flatnonzero(ok)
    out[rows[:, None], cells[rows, :boxes]] = BOX_GOAL
    out[rows, cells[rows, boxes]] = AGENT
    return out, ok


def place(room: np.ndarray, boxes: int, rng: np.random.Generator) -> np.ndarray | None:
    """``room`` (walls and floor) with ``boxes`` boxes on goal cells and the agent on another
    floor cell, all drawn at random; None when it has too little floor."""
    room = room.copy()
    floor = np.flatnonzero(room == FLOOR)
    if floor.size < boxes + 2:
        return None
    cells = rng.choice(floor, size=boxes + 1, replace=False)
    room[cells[:-1]] = BOX_GOAL
    room[cells[-1]] = AGENT
    return room


def reverse_play(s: np.ndarray, step1: np.ndarray, steps: int, pull: float,
                 rng: np.random.Generator) -> tuple[np.ndarray, list[int], float]:
    """Reverse play from the solved level ``s`` (module text, step 3). ``step1[c, a]`` is the
    cell next to ``c`` in direction ``a`` (-1 off the board). Returns the best-scored state of the
    walk, the forward moves that solve it, and its score (0: no state had every box off a goal)."""
    s = s.copy()
    agent = int(np.flatnonzero((s == AGENT) | (s == AGENT_GOAL))[0])
    origin = np.flatnonzero(s == BOX_GOAL)
    width = int(round(np.sqrt(s.size)))
    where = origin.copy()              # box i stands at where[i]
    box_at = {int(c): i for i, c in enumerate(origin)}
    on_goal = len(origin)              # boxes still on a goal
    swaps, last = 0, -1
    back: list[int] = []
    best, best_len, best_score = s.copy(), 0, 0.0
    for _ in range(steps):
        a = int(rng.integers(4))
        t = int(step1[agent, a])
        if t < 0 or s[t] in (WALL, BOX, BOX_GOAL):
            continue
        behind = int(step1[agent, a ^ 1])  # the cell opposite the move
        pulled = behind >= 0 and s[behind] in (BOX, BOX_GOAL) and rng.random() < pull
        s[agent] = GOAL if s[agent] == AGENT_GOAL else FLOOR
        if pulled:
            on_goal += int(s[agent] == GOAL) - int(s[behind] == BOX_GOAL)
            s[agent] = BOX_GOAL if s[agent] == GOAL else BOX
            s[behind] = GOAL if s[behind] == BOX_GOAL else FLOOR
            i = box_at.pop(behind)
            box_at[agent] = i
            where[i] = agent
            if i != last:
                swaps, last = swaps + 1, i
        s[t] = AGENT_GOAL if s[t] == GOAL else AGENT
        back.append(a ^ 1)
        agent = t
        if pulled and on_goal == 0:
            wr, wq = np.divmod(where, width)
            orr, oq = np.divmod(origin, width)
            score = float(swaps * (np.abs(wr - orr).sum() + np.abs(wq - oq).sum()))
            if score > best_score:
                best, best_len, best_score = s.copy(), len(back), score
    if best_score == 0.0:  # no state with every box off a goal: the walk's end, score 0
        return s, back[::-1], 0.0
    return best, back[:best_len][::-1], best_score


#: reverse plays shorter than this may leave boxes on goals (a level is still returned)
SHORT_PLAY = 50


def generate(size: int, boxes: int, step1: np.ndarray, rng: np.random.Generator,
             options: LevelOptions) -> tuple[np.ndarray, list[int]]:
    """A solvable level with every box off its goal and its solution (module text). Reverse
    plays of fewer than ``SHORT_PLAY`` steps (short scrambles) may not move every box off its
    goal: they return the end of a walk that did so where one did, else of the last walk."""
    for _ in range(1000):
        best: tuple[np.ndarray, list[int], float] | None = None
        partial: tuple[np.ndarray, list[int], float] | None = None
        for _ in range(options.tries):
            level = place(carve_room(size, rng, options.room_steps, options.turn), boxes, rng)
            if level is None:
                continue
            got = reverse_play(level, step1, options.steps, options.pull, rng)
            if got[2] > 0 and (best is None or got[2] > best[2]):
                best = got
            elif got[2] == 0:
                partial = got
        if best is not None:
            return best[0], best[1]
        if partial is not None and options.steps < SHORT_PLAY:
            return partial[0], partial[1]
    raise RuntimeError("no level with every box off its goal in 1,000 rounds of rooms")
