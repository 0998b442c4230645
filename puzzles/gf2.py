"""Exact linear algebra over GF(2) with numpy ``bool`` arrays (Gaussian elimination).

Used by Lights Out: pressing cells ``x`` (a 0/1 vector of length ``m``) toggles the lights
``A x`` (mod 2), where ``A`` is the ``(m, m)`` press matrix, so a state ``b`` is solved by exactly
the ``x`` with ``A x = b``. ``GF2System`` factors ``A`` once; after that a batch of right-hand
sides is checked for consistency and solved by two matrix products mod 2, and the minimum-weight
solution is found by searching the null space (``2 ** nullity`` candidates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import InputError


def _as_bool_matrix(a: np.ndarray, what: str = "matrix") -> np.ndarray:
    m = np.asarray(a)
    if m.ndim != 2:
        raise InputError(f"{what}: expected a 2-D 0/1 array, got shape {m.shape}")
    if m.dtype != np.bool_:
        if not np.isin(m, (0, 1)).all():
            raise InputError(f"{what}: entries must be 0 or 1")
        m = m.astype(bool)
    return m


def row_reduce(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reduced row echelon form over GF(2): ``a`` (r, c) -> ``(R (r, c), E (r, r), pivots (rank,))``.

    ``E`` is the product of the row operations, so ``E @ a == R`` (mod 2); ``pivots`` are the
    pivot columns, row ``i < rank`` of ``R`` having its leading 1 in column ``pivots[i]``.
    """
    a = _as_bool_matrix(a)
    rows, cols = a.shape
    aug = np.concatenate([a, np.eye(rows, dtype=bool)], axis=1)
    pivots: list[int] = []
    r = 0
    for c in range(cols):
        if r == rows:
            break
        nz = np.flatnonzero(aug[r:, c])
        if nz.size == 0:
            continue
        p = r + int(nz[0])
        if p != r:
            aug[[r, p]] = aug[[p, r]]
        # clear column c in every other row
        hit = aug[:, c].copy()
        hit[r] = False
        aug[hit] ^= aug[r]
        pivots.append(c)
        r += 1
    return aug[:, :cols], aug[:, cols:], np.array(pivots, dtype=np.int64)


def rank(a: np.ndarray) -> int:
    """Rank of ``a`` over GF(2)."""
    return int(row_reduce(a)[2].size)


def null_space(a: np.ndarray) -> np.ndarray:
    """A basis of ``{x : a x = 0}`` over GF(2): ``(nullity, c)`` bool, one basis vector per row."""
    r_mat, _, pivots = row_reduce(a)
    return _kernel(r_mat, pivots)


def _kernel(r_mat: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    """Null space basis from a reduced row echelon form: one vector per free column."""
    cols = r_mat.shape[1]
    free = np.setdiff1d(np.arange(cols), pivots)
    basis = np.zeros((free.size, cols), dtype=bool)
    for k, f in enumerate(free):
        basis[k, f] = True
        basis[k, pivots] = r_mat[: pivots.size, f]
    return basis


def _mul(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v (B, c) @ m.T (c, r)`` mod 2 -> ``(B, r)`` bool."""
    return ((v.astype(np.int32) @ m.T.astype(np.int32)) & 1).astype(bool)


@dataclass(frozen=True)
class GF2System:
    """A factored square or rectangular system ``A x = b`` over GF(2).

    ``particular`` (c, r): ``x = particular @ b`` solves every consistent ``b``; ``checks``
    (r - rank, r): ``b`` is consistent iff ``checks @ b == 0``; ``kernel`` (nullity, c): a null
    space basis.
    """

    matrix: np.ndarray
    particular: np.ndarray
    checks: np.ndarray
    kernel: np.ndarray

    @classmethod
    def from_matrix(cls, a: np.ndarray) -> GF2System:
        a = _as_bool_matrix(a)
        r_mat, e, pivots = row_reduce(a)
        rk = pivots.size
        particular = np.zeros((a.shape[1], a.shape[0]), dtype=bool)
        particular[pivots] = e[:rk]
        return cls(a, particular, e[rk:].copy(), _kernel(r_mat, pivots))

    @property
    def rank(self) -> int:
        return self.matrix.shape[0] - self.checks.shape[0]

    @property
    def nullity(self) -> int:
        return self.kernel.shape[0]

    def consistent(self, b: np.ndarray) -> np.ndarray:
        """``(B, r) -> (B,)`` bool: whether ``A x = b`` has a solution."""
        b = np.atleast_2d(b).astype(bool)
        if self.checks.shape[0] == 0:
            return np.ones(b.shape[0], dtype=bool)
        return np.logical_not(_mul(self.checks, b).any(axis=1))

    def solve(self, b: np.ndarray) -> np.ndarray:
        """One solution per row of ``b`` (B, r) -> ``(B, c)`` bool; ``ValueError`` if inconsistent."""
        b = np.atleast_2d(b).astype(bool)
        ok = self.consistent(b)
        if not ok.all():
            raise ValueError(f"{int((~ok).sum())} right-hand side(s) have no solution over GF(2)")
        return _mul(self.particular, b)

    def min_weight_solve(self, b: np.ndarray, chunk: int = 1 << 22) -> np.ndarray:
        """The solution of least Hamming weight per row of ``b``: ``(B, r) -> (B, c)`` bool.

        Searches all ``2 ** nullity`` solutions ``x0 + span(kernel)``; ties go to the first in the
        binary order of the kernel coefficients (deterministic). Refuses nullity > 24.
        """
        x0 = self.solve(b)
        k = self.nullity
        if k == 0:
            return x0
        if k > 24:
            raise InputError(f"nullity {k} is too large for an exhaustive null-space search")
        coeffs = ((np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
        nulls = _mul(self.kernel.T, coeffs)  # (2^k, c): every element of the null space
        out = np.empty_like(x0)
        per = max(1, chunk // max(1, nulls.size))
        for i in range(0, x0.shape[0], per):
            xs = x0[i : i + per]  # (b, c)
            cand = xs[:, None, :] ^ nulls[None, :, :]  # (b, 2^k, c)
            best = cand.sum(axis=2).argmin(axis=1)
            out[i : i + per] = cand[np.arange(xs.shape[0]), best]
        return out
