"""The cubie model: corner and edge permutations and twists, read from and written to
facelets; uniform random permutations."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from puzzles.cube.facelets import CORNER_COLORS, EDGE_COLORS, D, U


# ----------------------------------------------------------------------------- cubies
class CubieMoves(NamedTuple):
    """Cubie-level action tables; ``A`` actions.

    ``cp (A, 8)``, ``co (A, 8)``, ``ep (A, 12)``, ``eo (A, 12)`` (2x2x2: ``ep``/``eo`` are ``(A, 0)``).
    """

    cp: np.ndarray
    co: np.ndarray
    ep: np.ndarray
    eo: np.ndarray


def _corner_lookup() -> np.ndarray:
    """``table[ori_colour, c1, c2] -> corner`` or -1 (colours read clockwise from the U/D sticker)."""
    t = np.full((6, 6, 6), -1, dtype=np.int64)
    for j, (a, b, c) in enumerate(CORNER_COLORS):
        t[a, b, c] = j
    return t


def _edge_lookup() -> tuple[np.ndarray, np.ndarray]:
    """``(edge[c0, c1], flip[c0, c1])`` for the colours on a slot's first and second facelet."""
    e = np.full((6, 6), -1, dtype=np.int64)
    f = np.zeros((6, 6), dtype=np.int64)
    for j, (a, b) in enumerate(EDGE_COLORS):
        e[a, b], f[a, b] = j, 0
        e[b, a], f[b, a] = j, 1
    return e, f


_CORNER_TABLE = _corner_lookup()
EDGE_TABLE, FLIP_TABLE = _edge_lookup()


def corners_from_facelets(states: np.ndarray, cf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cp, co)`` each ``(B, 8)``; ``cp`` is -1 where the stickers form no corner."""
    cols = states[:, cf].astype(np.int64)  # (B, 8, 3)
    is_ud = (cols == U) | (cols == D)
    ori = np.argmax(is_ud, axis=2)  # (B, 8)
    k = np.arange(3)
    idx = (ori[:, :, None] + k[None, None, :]) % 3
    rolled = np.take_along_axis(cols, idx, axis=2)
    cp = _CORNER_TABLE[rolled[..., 0], rolled[..., 1], rolled[..., 2]]
    cp = np.where(is_ud.sum(axis=2) == 1, cp, -1)
    return cp, ori


def corners_to_facelets(out: np.ndarray, cp: np.ndarray, co: np.ndarray, cf: np.ndarray) -> None:
    b = np.arange(out.shape[0])[:, None]
    for k in range(3):
        slot_facelet = cf[np.arange(8)[None, :], (k + co) % 3]  # (B, 8)
        out[b, slot_facelet] = CORNER_COLORS[cp, k]


def random_perms(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, size)`` uniformly random permutations."""
    return np.argsort(rng.random((n, size)), axis=1)


