"""The edge coordinates of the two-bit U-D coset tables (:mod:`pdb_builders.cube_coset_eo`): the
coordinate with every flip (``eo``, nxopt's EO3EP1) and the U-D layer family (``eo2ep2``,
nxopt's EO2EP2, and its projections ``ep2`` and ``eo2``), each with its move and U-D symmetry
tables computed from cubie arithmetic on representatives.

``eo``: ``E = set * 2048 + flips``, ``set`` the rank of the 4 positions holding the E-slice
edges (``0 .. 494``), bit ``i`` of ``flips`` the flip of the edge at position ``i < 11`` (the
F/B-based orientation of :mod:`pdb_builders.korf_cube`, which U, D, R and L keep; the twelfth
flip follows from the others); 1,013,760 values.

U-D layer family: ``set``, then (``eo2ep2``, ``ep2``) ``* 24 + order``, the lexicographic rank
of the slice edges read by increasing position, then (``eo2ep2``, ``eo2``) ``* 256 + flips``,
bit ``j`` the flip of the ``j``-th lowest of the eight other positions.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from core.errors import InputError
from pdb_builders import cube_coset as cc
from pdb_builders import cube_symmetry as S

NEO = 2048
#: the U-D layer family (:func:`ud_edge_tables`): whether each part keeps the slice edges'
#: order and the U-D layer positions' flips
UD_PARTS = {"eo2ep2": (True, True), "ep2": (True, False), "eo2": (False, True)}
NPERM = 24
NUD = 256


def edge_coord(ep: np.ndarray, eo: np.ndarray) -> np.ndarray:
    """``(B, 12), (B, 12) -> (B,)`` raw edge coordinate ``set * 2048 + flips``."""
    ep, eo = np.atleast_2d(ep), np.atleast_2d(eo)
    mask = ((ep >= 8).astype(np.int64) << np.arange(12)).sum(axis=1)
    flips = (eo[:, :11].astype(np.int64) << np.arange(11)).sum(axis=1)
    return cc._subsets(12, 4)[1][mask] * NEO + flips


def edge_reps(values: np.ndarray) -> S.Cube:
    """A batch of cubie elements (corners solved) with the raw edge coordinates ``values``."""
    values = np.asarray(values, dtype=np.int64)
    b = values.shape[0]
    masks = cc._subsets(12, 4)[0][values // NEO]
    bits = (masks[:, None] >> np.arange(12)) & 1
    ep = np.empty((b, 12), np.int64)
    ep[bits == 1] = np.tile(np.arange(8, 12), b)
    ep[bits == 0] = np.tile(np.arange(8), b)
    eo = np.zeros((b, 12), np.int64)
    eo[:, :11] = (values[:, None] % NEO >> np.arange(11)) & 1
    eo[:, 11] = eo[:, :11].sum(axis=1) % 2
    cp = np.broadcast_to(np.arange(8), (b, 8)).copy()
    return cp, np.zeros((b, 8), np.int64), ep, eo


def _transformed(values: np.ndarray, metric: str) -> np.ndarray:
    """``(B, A + 16)`` raw edge coordinates of representatives of ``values`` after each move,
    then conjugated by each of the 16 symmetries (cubie arithmetic)."""
    reps = edge_reps(values)
    cols = [edge_coord(*S.multiply(reps, m)[2:]) for m in S._moves(metric)]
    cols += [edge_coord(*S.conjugate(reps, s)[2:]) for s in S.ud_symmetries()]
    return np.stack(cols, axis=1)


@functools.cache
def edge_tables(metric: str) -> dict[str, np.ndarray]:
    """``emove (1013760, A)``, ``econj (1013760, 16)`` int32 of the edge coordinate with every
    flip, and ``proj (1013760,)``: the same cube's :mod:`pdb_builders.cube_coset` edge
    coordinate (slice set and slice flips).

    A move or a symmetry maps the slice set on its own and the flips affinely over GF(2):
    ``flips' = L(flips) ^ t(set)``, with ``L`` linear (positions permuted, the twelfth flip the
    parity of the others) and the same for every set. So each is computed from cubies for the
    495 sets with no flip (``set'`` and ``t``) and for the 2,048 flips of one set (``L``), and
    combined (tests check every move and symmetry against cubie arithmetic on random values).
    """
    if metric not in cc.METRICS:
        raise InputError(f"metric: expected one of {', '.join(cc.METRICS)}, got {metric!r}")
    by_set = _transformed(np.arange(495) * NEO, metric)  # (495, X)
    by_flip = _transformed(np.arange(NEO), metric)  # (2048, X): set 0
    lin = (by_flip % NEO) ^ (by_set[0] % NEO)[None, :]
    table = ((by_set // NEO) * NEO)[:, None, :] + (lin[None, :, :] ^ (by_set % NEO)[:, None, :])
    table = table.reshape(495 * NEO, -1)
    na = table.shape[1] - 16
    reps = edge_reps(np.arange(495 * NEO))
    return {"emove": np.ascontiguousarray(table[:, :na], dtype=np.int32),
            "econj": np.ascontiguousarray(table[:, na:], dtype=np.int32),
            "proj": np.ascontiguousarray(cc.edge_coord(reps[2], reps[3]), dtype=np.int32)}


# ------------------------------------------------------------- the U-D layer family (EO2EP2)
@functools.cache
def _perm4() -> np.ndarray:
    """``(24, 4)``: the orders of four slice edges, in lexicographic order (their ranks)."""
    return np.array(list(itertools.permutations(range(4))), dtype=np.int64)


def perm_rank(ids: np.ndarray) -> np.ndarray:
    """``(B, 4) -> (B,)``: the lexicographic rank of each order of ``0 .. 3`` (Lehmer code)."""
    ids = np.asarray(ids, dtype=np.int64)
    r = np.zeros(ids.shape[0], dtype=np.int64)
    for j, w in enumerate((6, 2, 1)):
        r += w * (ids[:, j + 1:] < ids[:, j:j + 1]).sum(axis=1)
    return r


def ud_edge_coord(ep: np.ndarray, eo: np.ndarray, part: str) -> np.ndarray:
    """``(B, 12), (B, 12) -> (B,)`` raw edge coordinate of a U-D layer part: ``set`` (which 4
    positions hold the slice edges), then for ``eo2ep2`` and ``ep2`` ``* 24 + order`` (the
    rank of the slice edges' order read by increasing position), then for ``eo2ep2`` and
    ``eo2`` ``* 256 + flips`` (bit ``j``: the flip of the ``j``-th lowest of the other eight
    positions)."""
    ep, eo = np.atleast_2d(ep).astype(np.int64), np.atleast_2d(eo).astype(np.int64)
    keep_order, keep_flips = UD_PARTS[part]
    b = ep.shape[0]
    inslice = ep >= 8
    mask = (inslice.astype(np.int64) << np.arange(12)).sum(axis=1)
    v = cc._subsets(12, 4)[1][mask]
    if keep_order:
        v = v * NPERM + perm_rank(ep[inslice].reshape(b, 4) - 8)
    if keep_flips:
        v = v * NUD + (eo[~inslice].reshape(b, 8) << np.arange(8)).sum(axis=1)
    return v


def ud_edge_reps(values: np.ndarray, part: str) -> S.Cube:
    """A batch of cubie elements (corners solved) with the raw ``part`` coordinates ``values``:
    the slice edges in the coded order, the others ``0 .. 7`` in order with the coded flips
    (the first slice position's flip makes the flips' sum even)."""
    v = np.asarray(values, dtype=np.int64)
    keep_order, keep_flips = UD_PARTS[part]
    b = v.shape[0]
    flips = np.zeros(b, np.int64)
    order = np.zeros(b, np.int64)
    if keep_flips:
        v, flips = v // NUD, v % NUD
    if keep_order:
        v, order = v // NPERM, v % NPERM
    bits = ((cc._subsets(12, 4)[0][v][:, None] >> np.arange(12)) & 1).astype(bool)
    ep = np.empty((b, 12), np.int64)
    eo = np.zeros((b, 12), np.int64)
    ep[bits] = (_perm4()[order] + 8).ravel()
    ep[~bits] = np.tile(np.arange(8), b)
    eo[~bits] = ((flips[:, None] >> np.arange(8)) & 1).ravel()
    first = np.argmax(bits, axis=1)
    eo[np.arange(b), first] = eo.sum(axis=1) % 2
    cp = np.broadcast_to(np.arange(8), (b, 8)).copy()
    return cp, np.zeros((b, 8), np.int64), ep, eo


def _ud_transformed(values: np.ndarray, metric: str, part: str) -> np.ndarray:
    """``(B, A + 16)`` raw ``part`` coordinates of representatives of ``values`` after each
    move, then conjugated by each of the 16 symmetries (cubie arithmetic)."""
    reps = ud_edge_reps(values, part)
    cols = [ud_edge_coord(*S.multiply(reps, m)[2:], part) for m in S._moves(metric)]
    cols += [ud_edge_coord(*S.conjugate(reps, s)[2:], part) for s in S.ud_symmetries()]
    return np.stack(cols, axis=1)


@functools.cache
def ud_edge_tables(metric: str, part: str) -> dict[str, np.ndarray]:
    """``emove (ne, A)``, ``econj (ne, 16)`` int32 of a U-D layer part, and ``proj (ne,)``:
    each value's coordinate in the part it falls back on (:data:`_FALLBACK`).

    ``ep2`` (11,880 values) and ``eo2`` (126,720) come from cubie arithmetic on a
    representative of every value. ``eo2ep2`` (3,041,280) combines them: the slice edges'
    set and order move as ``ep2``'s, the flips of the other positions as ``eo2``'s, which do
    not depend on the order (a move or a U-D symmetry carries a U-D layer edge's flip with it,
    whichever edges sit in the slice; the tests check every move and symmetry against cubie
    arithmetic on random cubes)."""
    if metric not in cc.METRICS:
        raise InputError(f"metric: expected one of {', '.join(cc.METRICS)}, got {metric!r}")
    na = len(S._moves(metric))
    if part == "eo2ep2":
        p2, o2 = ud_edge_tables(metric, "ep2"), ud_edge_tables(metric, "eo2")
        full_p = np.concatenate([p2["emove"], p2["econj"]], axis=1).astype(np.int64)
        full_o = np.concatenate([o2["emove"], o2["econj"]], axis=1).astype(np.int64)
        if not np.array_equal(full_p[::NPERM] // NPERM, full_o[::NUD] // NUD):
            raise RuntimeError("ud_edge_tables: the two parts move the slice set differently")
        sets = np.repeat(np.arange(495 * NPERM) // NPERM, NUD)
        flips = np.tile(np.arange(NUD), 495 * NPERM)
        table = (np.repeat(full_p, NUD, axis=0) * NUD
                 + full_o[sets * NUD + flips] % NUD).astype(np.int32)
        proj = (sets * NUD + flips).astype(np.int32)
    else:
        n = 495 * (NPERM if part == "ep2" else NUD)
        table = _ud_transformed(np.arange(n), metric, part).astype(np.int32)
        proj = (np.arange(n) // (NPERM if part == "ep2" else NUD)).astype(np.int32)
    return {"emove": np.ascontiguousarray(table[:, :na]),
            "econj": np.ascontiguousarray(table[:, na:]), "proj": proj}
