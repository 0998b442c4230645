"""The two-bit coset table with every edge flip (``pdb_builders.cube_coset_eo``): its edge
coordinate against cubie arithmetic, the two-bit/base encoding of small stand-ins against
plain unreduced breadth-first distances on every entry, forward against backward passes, and
a build killed with SIGKILL resuming to the same checksum."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pdb_builders import cube_coset_eo as E
from pdb_builders import cube_edge_parts as P
from pdb_builders import cube_symmetry as S
from pdb_builders import store
from puzzles._cube_coords import bfs_product

ROOT = Path(__file__).resolve().parents[1]


def _random_cubes(metric: str, n: int, seed: int) -> S.Cube:
    rng = np.random.default_rng(seed)
    moves = S._moves(metric)
    cubes = []
    for _ in range(n):
        c = S.identity()
        for a in rng.integers(0, len(moves), int(rng.integers(0, 25))):
            c = S.multiply(c, moves[int(a)])
        cubes.append(c)
    return tuple(np.stack([c[i] for c in cubes]) for i in range(4))  # type: ignore[return-value]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_edge_tables_follow_cubie_arithmetic(metric: str) -> None:
    """Every move and symmetry of the flip coordinate on random cubes (not the tables'
    representatives), and on random coordinate values through their representatives."""
    t = P.edge_tables(metric)
    cubes = _random_cubes(metric, 40, seed=3)
    ec = P.edge_coord(cubes[2], cubes[3])
    for a, m in enumerate(S._moves(metric)):
        moved = S.multiply(cubes, m)
        assert np.array_equal(P.edge_coord(moved[2], moved[3]), t["emove"][ec, a])
    for s, sym in enumerate(S.ud_symmetries()):
        conj = S.conjugate(cubes, sym)
        assert np.array_equal(P.edge_coord(conj[2], conj[3]), t["econj"][ec, s])
    from pdb_builders import cube_coset as C

    assert np.array_equal(t["proj"][ec], C.edge_coord(cubes[2], cubes[3]))
    values = np.random.default_rng(1).integers(0, 495 * 2048, 500)
    slow = P._transformed(values, metric)
    na = t["emove"].shape[1]
    assert np.array_equal(slow[:, :na], t["emove"][values])
    assert np.array_equal(slow[:, na:], t["econj"][values])
    reps = P.edge_reps(values)
    assert np.array_equal(P.edge_coord(reps[2], reps[3]), values)


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("part", ["ep2", "eo2", "eo2ep2"])
def test_ud_layer_edge_tables_follow_cubie_arithmetic(metric: str, part: str) -> None:
    """The U-D layer family (slice order and/or U-D layer flips, nxopt's EO2EP2 and its
    projections): every move and symmetry on random cubes, random values through their
    representatives, and the projection onto the fallback's coordinate."""
    t = P.ud_edge_tables(metric, part)
    cubes = _random_cubes(metric, 40, seed=5)
    ec = P.ud_edge_coord(cubes[2], cubes[3], part)
    for a, m in enumerate(S._moves(metric)):
        moved = S.multiply(cubes, m)
        assert np.array_equal(P.ud_edge_coord(moved[2], moved[3], part), t["emove"][ec, a])
    for s, sym in enumerate(S.ud_symmetries()):
        conj = S.conjugate(cubes, sym)
        assert np.array_equal(P.ud_edge_coord(conj[2], conj[3], part), t["econj"][ec, s])
    fb = E._FALLBACK[part]
    if fb in P.UD_PARTS:
        want = P.ud_edge_coord(cubes[2], cubes[3], fb)
    else:
        want = E.cc.edge_coord(cubes[2], cubes[3]) // E.cc.NFLIP
    assert np.array_equal(t["proj"][ec], want)
    n = t["emove"].shape[0]
    assert n == 495 * {"ep2": 24, "eo2": 256, "eo2ep2": 24 * 256}[part]
    values = np.random.default_rng(2).integers(0, n, 300)
    slow = P._ud_transformed(values, metric, part)
    na = t["emove"].shape[1]
    assert np.array_equal(slow[:, :na], t["emove"][values])
    assert np.array_equal(slow[:, na:], t["econj"][values])
    reps = P.ud_edge_reps(values, part)
    assert np.array_equal(P.ud_edge_coord(reps[2], reps[3], part), values)
    assert (reps[3].sum(axis=1) % 2 == 0).all()


def test_slice_order_rank_is_lexicographic() -> None:
    import itertools

    perms = np.array(list(itertools.permutations(range(4))))
    assert P.perm_rank(perms).tolist() == list(range(24))


def _plain(sp) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Unreduced breadth-first distances of every raw coset ``(C, E)``, ``C * ne + E``."""
    return bfs_product(sp.cmove, sp.emove, sp.cgoal * sp.ne + sp.egoal).astype(np.int64)


def _codes_of_every_raw_coset(sp, words: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    nc, ne = sp.cmove.shape[0], sp.ne
    corner = np.repeat(np.arange(nc), ne)
    edge = np.tile(np.arange(ne), nc)
    return E.lookup(E.table_bytes(words, sp.size), sp, corner, edge).astype(np.int64)


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("parts", [("set", "slice"), ("set", "set"), ("set", "ep2")])
def test_two_bit_table_encodes_plain_distances_on_every_entry(metric: str,
                                                              parts: tuple[str, str]) -> None:
    """The reduced two-bit table, decoded at every raw coset (so every reduced entry and its
    symmetric copies), is 0 at or below the base, ``d - base`` above it, 3 from ``base + 3``:
    checked for every base (so every distance is pinned down) and for the automatic one."""
    sp = E.coset_space(metric, *parts)
    plain = _plain(sp)
    assert (plain >= 0).all()
    top = int(plain.max())
    for base in [None, *range(0, top + 1)]:
        words, stats = E.build(metric, *parts, base=base)
        b = stats["base"]
        if base is not None:
            assert b == base
        want = np.where(plain <= b, 0, np.minimum(plain - b, 3))
        got = _codes_of_every_raw_coset(sp, words)
        assert np.array_equal(got, want), (base, b)
        # the layer counts are the reduced entries at each distance
        reduced = plain[sp.reps.astype(np.int64)[:, None] * sp.ne + np.arange(sp.ne)[None, :]]
        hist = np.bincount(reduced.ravel(), minlength=top + 1)
        assert stats["layers"] == hist[: len(stats["layers"])].tolist()
        assert stats["above"] == int(hist[b + 3:].sum())
    # the automatic base: the first layer whose successor is predicted (from the last growth)
    # above 1.5 times the share, or is found above the share by a trial pass (then done again)
    tried = 0
    for share in (0.02, 0.05, 0.1, 0.2, 0.3):
        words, stats = E.build(metric, *parts, base_share=share)
        want = None
        for d in range(1, top):
            if hist[d] ** 2 / hist[d - 1] > 1.5 * share * sp.size:
                want = d
                break
            if hist[d + 1] > share * sp.size:
                want, tried = d, tried + 1
                break
        assert stats["base"] == want, share
        b = stats["base"]
        want_codes = np.where(plain <= b, 0, np.minimum(plain - b, 3))
        assert np.array_equal(_codes_of_every_raw_coset(sp, words), want_codes)
    assert tried > 0


def test_forward_and_backward_passes_agree() -> None:
    a, sa = E.build("qtm", "set", "slice", base=5, backward_ratio=1e9)
    b, sb = E.build("qtm", "set", "slice", base=5, backward_ratio=0.0)
    assert set(sa["directions"]) == {"forward"} and set(sb["directions"]) == {"backward"}
    assert np.array_equal(a, b)


def _spawn(folder: Path, kill_at: tuple[str, int] | None) -> subprocess.CompletedProcess[str]:
    code = ("import json, sys; from pdb_builders import cube_coset_eo as E, store; "
            f"w, s = E.build('qtm', 'set', 'slice', checkpoint={str(folder)!r}, "
            f"kill_at={kill_at!r}); "
            "print(json.dumps([store.checksum(E.table_bytes(w, E.coset_space('qtm', 'set', "
            "'slice').size)), s['resumed']]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="2")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("kill_at", [("save", 4), ("pass", 6), ("pass", 7)])
def test_build_killed_with_sigkill_resumes_to_the_same_checksum(
        tmp_path: Path, kill_at: tuple[str, int]) -> None:
    """A build killed between writing a pass's table and its state, or in a pass after the base
    is set, resumes from its last finished pass to the table an uninterrupted build makes."""
    words, stats = E.build("qtm", "set", "slice")
    # pass 6 finds the layer base + 1, pass 7 the layer base + 2
    assert stats["base"] == 5 and len(stats["layers"]) == 8
    want = store.checksum(E.table_bytes(words, E.coset_space("qtm", "set", "slice").size))
    killed = _spawn(tmp_path, kill_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    state = json.loads((tmp_path / "state.json").read_text())
    assert len(state["directions"]) < kill_at[1]
    done = _spawn(tmp_path, None)
    assert done.returncode == 0, done.stderr
    checksum, resumed = json.loads(done.stdout.strip().splitlines()[-1])
    assert resumed is True
    assert checksum == want


def test_stored_table_keeps_base_and_checksum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    spec = E.table_spec("cube3", "set", "slice")
    spec.build(progress=False)
    packed = spec.ensure(progress=False)
    words, stats = E.build("qtm", "set", "slice")
    assert np.array_equal(np.asarray(packed.data), E.table_bytes(words, spec.entries))
    assert packed.attrs["base"] == stats["base"] and packed.attrs["layers"] == stats["layers"]
    assert packed.attrs["checksum"] == store.checksum(E.table_bytes(words, spec.entries))
    assert not (tmp_path / f"{spec.key}.ckpt").exists()


@pytest.mark.parametrize("every", [0.0, 1e9])
def test_trial_pass_goes_back_to_the_checkpoint(tmp_path: Path, every: float) -> None:
    """Where a trial pass finds the first large layer, the build goes back to its last
    checkpoint (after every pass, or only the first one: then it replays the passes) and makes
    the table of a build that keeps its copy in memory."""
    for k, share in enumerate((0.02, 0.05, 0.1, 0.2, 0.3)):
        want, ws = E.build("htm", "set", "slice", base_share=share)
        got, gs = E.build("htm", "set", "slice", base_share=share,
                          checkpoint=tmp_path / f"{k}", checkpoint_s=every)
        assert gs["base"] == ws["base"] and gs["layers"] == ws["layers"]
        assert np.array_equal(got, want)


@pytest.mark.parametrize("metric", ["qtm"])
def test_fallback_of_the_ud_layer_family_is_plain_distances_and_below_the_table(metric: str
                                                                               ) -> None:
    """The ``eo2`` one-byte fallback (corner stand-in ``set``) equals plain unreduced
    breadth-first distances at every raw coset, and is never above the ``eo2ep2`` coset
    distance it stands in for (its cosets contain them)."""
    sp = E.coset_space(metric, "set", "eo2")
    table = E.build_byte_table(metric, "set", "eo2", progress=False)
    plain = _plain(sp)
    nc, ne = sp.cmove.shape[0], sp.ne
    corner = np.repeat(np.arange(nc), ne)
    edge = np.tile(np.arange(ne), nc)
    assert np.array_equal(table[sp.index(corner, edge)].astype(np.int64), plain)
    full = E.coset_space(metric, "set", "eo2ep2")
    assert E.fallback_space(metric, "set", "eo2ep2") is sp
    words, stats = E.build(metric, "set", "eo2ep2")
    cubes = _random_cubes(metric, 300, seed=9)
    c, e = E.project(full, cubes)
    codes = E.lookup(E.table_bytes(words, full.size), full, c, e)
    fc, fe = E.project(sp, cubes)
    assert np.array_equal(fe, E.edge_projection(metric, "eo2ep2")[e])
    fall = table[sp.index(fc, fe)]
    decoded = E.decode(codes, stats["base"], fall)
    assert (fall <= decoded).all()
    assert (decoded[codes > 0] > stats["base"]).all()
