"""Input adapters: from our puzzle states to the codes a given network was trained on.

A checkpoint records the puzzle, its encoding, its goal state and an ``input_adapter`` name.
``make_input_fn`` returns the function ``states (B, L) uint8 -> codes (B, L') int`` that feeds the
network:

``none``
    ``puzzle.encode(states)`` (networks trained here).
``deepcubea-cube3``
    DeepCubeA's cube input: their 54 stickers (faces U, D, L, R, B, F in their own orientation)
    holding their colour index (sticker id // 9). Built from the inverse of
    ``puzzles.cube.from_deepcubea_cube3``.
``deepcubea-tiles``, ``deepcubea-lights``
    their tile-per-position and 0/1 inputs; these equal ours (same goal layout for tiles).

Independently of the adapter, a sliding-tile network trained for one goal layout serves a puzzle
with the other layout by converting each state (``puzzles.npuzzle.convert_layout``: a 180 degree
rotation with tiles relabelled, which preserves distances).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from learning.checkpoint import CheckpointError
from puzzles.base import Puzzle

ADAPTERS = ("none", "deepcubea-cube3", "deepcubea-tiles", "deepcubea-lights")


def deepcubea_cube3_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(position (54,), colour (6,))``: DeepCubeA's input of our cube3 state ``s`` is
    ``colour[s[:, position]]``, the inverse of ``puzzles.cube.from_deepcubea_cube3`` (their
    position ``q`` shows our facelet ``position[q]``; our colour ``c`` is their colour ``colour[c]``).
    """
    from puzzles.cube import DEEPCUBEA_FACES, DEEPCUBEA_POSITIONS, FACES

    colour = np.array([DEEPCUBEA_FACES.index(f) for f in FACES], dtype=np.int64)
    return np.asarray(DEEPCUBEA_POSITIONS, dtype=np.int64), colour


def to_deepcubea_cube3(states: np.ndarray) -> np.ndarray:
    """Our cube3 states ``(B, 54)`` -> DeepCubeA's network input ``(B, 54)``: their colour index
    (sticker id // 9) at each of their sticker positions."""
    position, colour = deepcubea_cube3_tables()
    return colour[np.atleast_2d(states)[:, position]]


def _layout_converter(ckpt: dict[str, Any], puzzle: Puzzle) -> Callable[[np.ndarray], np.ndarray] | None:
    """None if the goals agree; a state converter if a tile layout conversion maps one to the other."""
    if ckpt.get("goal", 0) is None:  # trained on a set of goals (Sokoban): nothing to convert
        return None
    goal = np.asarray(ckpt.get("goal", puzzle.goal()), dtype=np.int64)
    ours = puzzle.goal().astype(np.int64)
    if goal.shape == ours.shape and np.array_equal(goal, ours):
        return None
    from puzzles.npuzzle import convert_layout

    width = int(round(puzzle.state_dim ** 0.5))
    if width * width == puzzle.state_dim and ckpt["puzzle"].startswith("puzzle"):
        converted = convert_layout(puzzle.goal()[None, :], width)[0].astype(np.int64)
        if np.array_equal(converted, goal):
            return lambda s: convert_layout(np.atleast_2d(s), width)
    raise CheckpointError(
        f"--model: the model was trained for another goal of {puzzle.name} than this puzzle's"
    )


def make_input_fn(ckpt: dict[str, Any], puzzle: Puzzle) -> Callable[[np.ndarray], np.ndarray]:
    """The function ``states (B, L) -> network input codes`` for ``ckpt`` on ``puzzle``."""
    adapter = ckpt.get("input_adapter", "none")
    if adapter not in ADAPTERS:
        raise CheckpointError(f"--model: unknown input adapter {adapter!r}")
    convert = _layout_converter(ckpt, puzzle)
    if adapter == "deepcubea-cube3":
        base: Callable[[np.ndarray], np.ndarray] = to_deepcubea_cube3
    else:
        base = puzzle.encode
    if convert is None:
        return base
    return lambda s: base(convert(s))
