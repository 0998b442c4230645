"""Whole-cube rotations: the 24 proper rotations, named, and maneuvers relabelled by them.

A proper rotation ``r`` of the whole cube is a symmetry of the move set: it carries the
clockwise quarter turn of face ``f`` to the clockwise quarter turn of face ``r(f)``. Relabelling
every face of a maneuver by ``r`` (turn directions kept) therefore gives the maneuver of the
conjugate ``r M r^-1``, whose state is the original state seen after the rotation, at the same
distance from the goal.

Rotations are named by a shortest word in ``x``, ``y``, ``z`` (clockwise quarter turns of the
whole cube about the R, U and F faces; ``2`` a half turn, ``'`` counter-clockwise), written
without spaces and applied left to right: ``x``, ``y2``, ``xy'``; the identity is ``""``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

import numpy as np

from puzzles.cube.facelets import FACE_NORMALS, F, R, U, cw_matrix
from puzzles.notation import FACES

#: the generating quarter turns of the whole cube: axis name -> face whose normal is the axis
_AXES = (("x", R), ("y", U), ("z", F))
_POWERS = (("", 1), ("2", 2), ("'", 3))


@cache
def named_rotations() -> tuple[tuple[str, np.ndarray], ...]:
    """The 24 proper rotations as ``(name, 3x3 matrix)``: the identity first, then by word length
    and in the order ``x x2 x' y y2 y' z z2 z'`` (each named by the first word that reaches it)."""
    tokens = [(axis + suffix, np.linalg.matrix_power(cw_matrix(FACE_NORMALS[face]), power))
              for axis, face in _AXES for suffix, power in _POWERS]
    found: dict[bytes, tuple[str, np.ndarray]] = {}
    eye = np.eye(3, dtype=np.int64)
    words: list[list[tuple[str, np.ndarray]]] = [[]]
    words += [[t] for t in tokens]
    words += [[a, b] for a, b in itertools.product(tokens, repeat=2) if a[0][0] != b[0][0]]
    for word in words:
        mat = eye
        for _, m in word:  # applied left to right: the later turn acts on the result
            mat = m @ mat
        key = mat.astype(np.int64).tobytes()
        if key not in found:
            found[key] = ("".join(name for name, _ in word), mat.astype(np.int64))
    return tuple(found.values())


def face_map(rotation: np.ndarray) -> tuple[int, ...]:
    """``(6,)``: the face (0..5 = U R F D L B) each face is carried to by ``rotation``."""
    normals = [tuple(n) for n in FACE_NORMALS]
    return tuple(normals.index(tuple(rotation @ n)) for n in FACE_NORMALS)


def relabel(turns: Sequence[tuple[str, int]], rotation: np.ndarray) -> list[tuple[str, int]]:
    """A maneuver ``(face letter, quarter turns)`` with each face carried by ``rotation``, turn
    directions kept: the maneuver of the conjugate by the rotation."""
    fmap = face_map(rotation)
    return [(FACES[fmap[FACES.index(face)]], q) for face, q in turns]


def conjugates(turns: Sequence[tuple[str, int]]) -> list[tuple[str, list[tuple[str, int]]]]:
    """``(rotation name, relabelled maneuver)`` under each of the 24 proper rotations, the
    identity (name ``""``) first. Different rotations may give the same state."""
    return [(name, relabel(turns, mat)) for name, mat in named_rotations()]
