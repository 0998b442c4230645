"""The cube's faces, pieces and facelet geometry: names, colours, and the sticker
permutation of every face turn, computed by rotating sticker positions about the face axes."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from puzzles.notation import FACES

U, R, F, D, L, B = range(6)
#: outward normal of each face, axes x: L->R, y: D->U, z: B->F
FACE_NORMALS = np.array(
    [[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, -1, 0], [-1, 0, 0], [0, 0, -1]], dtype=np.int64
)
OPPOSITE = (D, L, B, U, R, F)

CORNER_NAMES = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGE_NAMES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")
#: colours of each corner / edge, in the order of its name (first = U/D colour for corners)
CORNER_COLORS = np.array([[FACES.index(c) for c in n] for n in CORNER_NAMES], dtype=np.int64)
EDGE_COLORS = np.array([[FACES.index(c) for c in n] for n in EDGE_NAMES], dtype=np.int64)
DBL = 6  # the corner slot the 2x2x2 keeps fixed

ANSI_BG = {U: "47;30", R: "41;97", F: "42;30", D: "103;30", L: "48;5;208;30", B: "44;97"}


# ----------------------------------------------------------------------------- geometry
def _rotate_cw(normal: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (..., 3) a clockwise quarter turn seen from outside face ``normal``."""
    dot = v @ normal
    return normal[None, :] * dot[:, None] - np.cross(normal[None, :], v)


def _facelet_geometry(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Cubie position ``(6n^2, 3)`` and outward normal ``(6n^2, 3)`` of every facelet, in our order.

    Coordinates are ``2c - (n-1)`` for grid index ``c``, so the outer layers sit at ``+-(n-1)``.
    """
    m = n - 1
    pos = []
    nrm = []
    for face in range(6):
        for r in range(n):
            for c in range(n):
                vr, vc = 2 * r - m, 2 * c - m
                p = {
                    U: (vc, m, vr),
                    R: (m, -vr, -vc),
                    F: (vc, -vr, m),
                    D: (vc, -m, -vr),
                    L: (-m, -vr, vc),
                    B: (-vc, -vr, -m),
                }[face]
                pos.append(p)
                nrm.append(FACE_NORMALS[face])
    return np.array(pos, dtype=np.int64), np.array(nrm, dtype=np.int64)


def _index_of(pos: np.ndarray, nrm: np.ndarray) -> dict[tuple[int, ...], int]:
    return {tuple(p) + tuple(q): i for i, (p, q) in enumerate(zip(pos, nrm, strict=True))}


def rotation_perm(n: int, rot: np.ndarray, layer_normal: np.ndarray | None) -> np.ndarray:
    """Sticker permutation of a rotation matrix ``rot`` applied to a layer (or the whole cube).

    Returns ``perm`` with ``new_state = state[perm]``.
    """
    pos, nrm = _facelet_geometry(n)
    where = _index_of(pos, nrm)
    perm = np.arange(len(pos))
    moving = np.ones(len(pos), bool) if layer_normal is None else (pos @ layer_normal == n - 1)
    new_pos = pos @ rot.T
    new_nrm = nrm @ rot.T
    for i in np.flatnonzero(moving):
        perm[where[tuple(new_pos[i]) + tuple(new_nrm[i])]] = i
    return perm


def cw_matrix(normal: np.ndarray) -> np.ndarray:
    """3x3 integer matrix of a clockwise quarter turn about ``normal``."""
    return _rotate_cw(normal, np.eye(3, dtype=np.int64)).T


def face_turn_perm(n: int, face: int, quarter_turns: int) -> np.ndarray:
    """Sticker permutation ``(6n^2,)`` of ``quarter_turns`` clockwise turns of ``face``."""
    rot = np.linalg.matrix_power(cw_matrix(FACE_NORMALS[face]), quarter_turns % 4)
    return rotation_perm(n, rot, FACE_NORMALS[face])


def all_rotations() -> list[np.ndarray]:
    """The 24 proper rotations of the cube as integer 3x3 matrices."""
    mats = []
    for p in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), dtype=np.int64)
            for row, (col, s) in enumerate(zip(p, signs, strict=True)):
                m[row, col] = s
            if round(np.linalg.det(m)) == 1:
                mats.append(m)
    return mats


def piece_facelets(n: int, names: Sequence[str]) -> np.ndarray:
    """Facelet indices ``(pieces, len(name))`` of each named corner or edge, in the name's order."""
    pos, nrm = _facelet_geometry(n)
    where = _index_of(pos, nrm)
    m = n - 1
    out = []
    for name in names:
        faces = [FACES.index(c) for c in name]
        cubie = sum(FACE_NORMALS[f] for f in faces) * m
        out.append([where[tuple(cubie) + tuple(FACE_NORMALS[f])] for f in faces])
    return np.array(out, dtype=np.int64)
