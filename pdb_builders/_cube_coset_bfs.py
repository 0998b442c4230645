"""Numba kernels: breadth-first search over symmetry-reduced cube cosets (see
:mod:`pdb_builders.cube_coset`).

A reduced entry ``i = cls * ne + e`` stands for the raw coset ``(reps[cls], e)``: the corner
class's representative and an edge coordinate already conjugated into that representative's
frame. A raw coset ``(C, E)`` lies at entry ``classof[C] * ne + econj[E, symof[C]]``; when the
representative has self-symmetries (bit ``t`` of ``selfsym[cls]``), the entries
``econj[e, t]`` are the same coset seen through ``t`` and carry the same distance.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

UNSEEN = 255


@njit(cache=True, inline="always")
def _child(i: int, a: int, ne: int, reps: np.ndarray, cmove: np.ndarray, emove: np.ndarray,
           classof: np.ndarray, symof: np.ndarray, econj: np.ndarray) -> int:
    cls = i // ne
    e = i - cls * ne
    c2 = cmove[reps[cls], a]
    e2 = emove[e, a]
    return classof[c2] * ne + econj[e2, symof[c2]]


@njit(cache=True)
def mark(dist: np.ndarray, j: int, value: int, ne: int, selfsym: np.ndarray,
         econj: np.ndarray) -> None:
    """Set entry ``j`` and every entry of the same coset seen through a self-symmetry."""
    dist[j] = value
    cls = j // ne
    mask = selfsym[cls]
    if mask > 1:
        e = j - cls * ne
        base = cls * ne
        for t in range(1, econj.shape[1]):
            if (mask >> t) & 1:
                dist[base + econj[e, t]] = value


@njit(cache=True, parallel=True)
def forward(dist: np.ndarray, depth: int, ne: int, reps: np.ndarray, cmove: np.ndarray,
            emove: np.ndarray, classof: np.ndarray, symof: np.ndarray, econj: np.ndarray,
            selfsym: np.ndarray) -> None:
    """Mark every unseen child of an entry at ``depth`` (and its self-symmetric copies)."""
    num_moves = cmove.shape[1]
    for i in prange(dist.shape[0]):
        if dist[i] == depth:
            for a in range(num_moves):
                j = _child(i, a, ne, reps, cmove, emove, classof, symof, econj)
                if dist[j] == UNSEEN:
                    mark(dist, j, depth + 1, ne, selfsym, econj)


@njit(cache=True, parallel=True)
def backward(dist: np.ndarray, depth: int, ne: int, reps: np.ndarray, cmove: np.ndarray,
             emove: np.ndarray, classof: np.ndarray, symof: np.ndarray,
             econj: np.ndarray) -> None:
    """Mark every unseen entry with a neighbour at ``depth`` (moves are closed under inverses,
    so a neighbour is a parent). Each entry is decided on its own, self-symmetric copies too."""
    num_moves = cmove.shape[1]
    for i in prange(dist.shape[0]):
        if dist[i] == UNSEEN:
            for a in range(num_moves):
                if dist[_child(i, a, ne, reps, cmove, emove, classof, symof, econj)] == depth:
                    dist[i] = depth + 1
                    break


@njit(cache=True)
def lookup(dist: np.ndarray, ne: int, corner: np.ndarray, edge: np.ndarray,
           classof: np.ndarray, symof: np.ndarray, econj: np.ndarray) -> np.ndarray:
    """``(B,)`` raw corner and edge coordinates -> ``(B,)`` uint8 table values."""
    out = np.empty(corner.shape[0], dtype=np.uint8)
    for b in range(corner.shape[0]):
        c = corner[b]
        out[b] = dist[classof[c] * ne + econj[edge[b], symof[c]]]
    return out
