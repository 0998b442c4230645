"""DeepCubeA's sticker layout and move notation for the 3x3x3, mapped to ours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.errors import InputError
from puzzles.notation import FACES

# ----------------------------------------------------------------------------- DeepCubeA interop
#: DeepCubeA's face order; their sticker id ``k`` has colour ``k // 9`` in this order
DEEPCUBEA_FACES = "UDLRBF"


def _deepcubea_positions() -> np.ndarray:
    """``(54,)``: our facelet index of each of DeepCubeA's sticker positions.

    Their faces come in the order U D L R B F, 9 positions each; their position ``3*r + c`` within a
    face is our facelet (row ``2 - c``, column ``r``) of the same face, i.e. each of their faces is
    our row-major grid turned a quarter turn. Found by requiring every corner and edge of their test
    cubes to be a real cubie (one layout out of the 8^6 candidates passes), and confirmed by replaying
    all 1000 published solutions (``tests/test_cube_deepcubea.py``).
    """
    within = np.array([3 * (2 - c) + r for r in range(3) for c in range(3)], dtype=np.int64)
    return np.concatenate([9 * FACES.index(f) + within for f in DEEPCUBEA_FACES])


DEEPCUBEA_POSITIONS = _deepcubea_positions()
_DEEPCUBEA_COLOURS = np.array([FACES.index(f) for f in DEEPCUBEA_FACES], dtype=np.uint8)


def from_deepcubea_cube3(raw_states: np.ndarray) -> np.ndarray:
    """DeepCubeA cube states ``(B, 54)`` (their sticker ids 0..53 per position) -> ours ``(B, 54)`` uint8."""
    raw = np.asarray(raw_states)
    if raw.ndim == 1:
        raw = raw[None, :]
    if raw.ndim != 2 or raw.shape[1] != 54 or not np.issubdtype(raw.dtype, np.integer):
        raise InputError(f"raw_states: expected integer sticker ids of shape (B, 54), got {raw.dtype} {raw.shape}")
    if raw.size and (raw.min() < 0 or raw.max() > 53):
        raise InputError("raw_states: DeepCubeA sticker ids must lie in 0..53")
    out = np.empty(raw.shape, dtype=np.uint8)
    out[:, DEEPCUBEA_POSITIONS] = _DEEPCUBEA_COLOURS[raw // 9]
    return out


def deepcubea_moves(solution: Sequence[Sequence[object]], metric: str = "qtm") -> list[int]:
    """DeepCubeA moves ``[[face letter, +1 | -1], ...]`` -> our actions (``+1`` is clockwise)."""
    puzzle_faces = FACES
    per = 2 if metric == "qtm" else 3
    out = []
    for i, move in enumerate(solution):
        try:
            face, turn = move
            f = puzzle_faces.index(str(face))
            d = int(turn)  # type: ignore[call-overload]
        except (ValueError, TypeError):
            raise InputError(f"solution: move {i + 1} {move!r} is not [face, +1|-1]") from None
        if d not in (1, -1):
            raise InputError(f"solution: move {i + 1} {move!r} turns by {d}, expected +1 or -1")
        out.append(per * f + (0 if d == 1 else 1))
    return out


def deepcubea_cube3_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(position (54,), colour (6,))`` int64 such that DeepCubeA's network input for our cube3
    states ``s (B, 54)`` is ``colour[s[:, position]]``: their colour index (sticker id // 9, faces
    U D L R B F) at each of their sticker positions. The inverse of ``from_deepcubea_cube3``.
    """
    colour = np.empty(6, dtype=np.int64)
    colour[_DEEPCUBEA_COLOURS] = np.arange(6)
    return DEEPCUBEA_POSITIONS.copy(), colour
