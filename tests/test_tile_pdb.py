"""Additive tile PDBs: builder vs a naive 0-1 BFS, lower bounds on every 8-puzzle state, the
exact pdb-full table, reflection and goal-layout symmetries, damaged and foreign files."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from core.registry import get_heuristic, get_puzzle
from pdb_builders import additive_tiles as at
from pdb_builders import ranking
from pdb_builders.store import DatabaseError, load_table
from puzzles.npuzzle import convert_layout
from tests import tiles_reference as ref

LAYOUTS = ("blank-first", "blank-last")


@pytest.mark.parametrize("pattern", [(1, 2, 3, 4), (5, 6, 7, 8), (2, 7)])
def test_builder_matches_naive_01_bfs(pattern: tuple[int, ...]) -> None:
    table = at.build_pattern(3, pattern, progress=False)
    naive = ref.additive_pattern_table(pattern, 3)
    assert table.shape == (ranking.num_placements(9, len(pattern)),)
    places = np.array(list(naive.keys()))
    ranks = ranking.rank(places, 9)
    assert np.array_equal(table[ranks], np.array(list(naive.values())))


def test_builder_matches_naive_on_15_puzzle_small_pattern() -> None:
    pattern = (1, 2, 3)
    table = at.build_pattern(4, pattern, progress=False)
    naive = ref.additive_pattern_table(pattern, 4)
    ranks = ranking.rank(np.array(list(naive.keys())), 16)
    assert np.array_equal(table[ranks], np.array(list(naive.values())))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_full_table_is_exact(layout: str) -> None:
    states, dist = ref.puzzle8_states(layout)
    h = get_heuristic("pdb-full", get_puzzle("puzzle8", goal=layout))
    assert h.consistent and h.admissible
    assert np.array_equal(h(states), dist)
    assert np.array_equal(get_heuristic("pdb-full-reflect", get_puzzle("puzzle8", goal=layout))(states), dist)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_additive_lower_bounds_on_every_state(layout: str) -> None:
    states, dist = ref.puzzle8_states(layout)
    p = get_puzzle("puzzle8", goal=layout)
    plain = get_heuristic("pdb-44", p)(states)
    refl = get_heuristic("pdb-44-reflect", p)(states)
    md = get_heuristic("manhattan", p)(states)
    assert np.all(plain <= dist) and np.all(refl <= dist)
    assert np.all(refl >= plain) and np.any(refl > plain)
    assert np.all(plain >= md)  # additive PDBs dominate Manhattan distance
    assert np.all((plain == 0) == (dist == 0))


def test_lookup_kernel_matches_python_lookup() -> None:
    p = get_puzzle("puzzle8", goal="blank-first")
    h = get_heuristic("pdb-44", p)
    states, _ = ref.puzzle8_states("blank-first")
    sample = states[::97]
    tables = [load_table(spec.path, spec.attrs) for spec in h.specs]
    expect = []
    for s in sample:
        pos = np.argsort(s)
        expect.append(sum(int(t[ranking.rank(pos[list(pat)], 9)])
                          for t, pat in zip(tables, [(1, 2, 3, 4), (5, 6, 7, 8)], strict=True)))
    assert np.array_equal(h(sample), expect)


def _transpose_state(s: np.ndarray, w: int) -> np.ndarray:
    tmap = at.transpose_map(w)
    out = np.empty_like(s)
    out[..., tmap] = tmap[s]
    return out


def test_reflection_and_layout_symmetries() -> None:
    states, _ = ref.puzzle8_states("blank-first")
    pf = get_puzzle("puzzle8", goal="blank-first")
    pl = get_puzzle("puzzle8", goal="blank-last")
    for name in ("pdb-44", "pdb-44-reflect", "manhattan", "linear-conflict"):
        hf, hl = get_heuristic(name, pf), get_heuristic(name, pl)
        # the same state seen in the other goal layout has the same value
        assert np.array_equal(hf(states), hl(convert_layout(states, 3)))
    refl = get_heuristic("pdb-44-reflect", pf)
    mirrored = _transpose_state(states, 3)
    assert np.array_equal(refl(states), refl(mirrored))
    plain = get_heuristic("pdb-44", pf)
    symmetric = np.all(mirrored == states, axis=1)
    assert symmetric.sum() > 10
    assert np.array_equal(plain(states[symmetric]), refl(states[symmetric]))


def test_24_puzzle_partition_uses_the_mirror_table() -> None:
    built, lookups = at.plan("puzzle24", "6666")
    assert len(built) == 3 and len(lookups) == 4
    assert sum(lk.mirrored for lk in lookups) == 1
    tmap = at.transpose_map(5)
    covered = sorted(int(tmap[t]) if lk.mirrored else t for lk in lookups for t in lk.tiles)
    assert covered == list(range(1, 25))


def test_foreign_and_damaged_files_detected(capfd: pytest.CaptureFixture[str]) -> None:
    p = get_puzzle("puzzle8")
    h = get_heuristic("pdb-44", p)
    states, dist = ref.puzzle8_states("blank-last")
    before = h(states)  # (h memory-maps the file that is overwritten in place below)
    a, b = h.specs
    # a file built for another pattern, put under this pattern's name
    shutil.copy(b.path, tmp := a.path.with_name("other.h5"))
    with pytest.raises(DatabaseError, match="pattern"):
        load_table(tmp, a.attrs)
    shutil.copy(b.path, a.path)
    h2 = get_heuristic("pdb-44", p)  # rebuilt, with a message
    assert "rebuilding" in capfd.readouterr().err
    assert np.array_equal(h2(states), before)
    assert np.all(h2(states) <= dist)


def test_unknown_partition() -> None:
    from core.errors import InputError

    with pytest.raises(InputError, match="partition"):
        at.plan("puzzle15", "44")
    with pytest.raises(InputError, match="pattern"):
        at.build_pattern(3, (1, 1), progress=False)


def test_mirrored_table_equals_the_mirror_patterns_own_table(monkeypatch) -> None:
    """A pattern's table read through the diagonal mirror is the mirror pattern's table."""
    from heuristics.pdb_tiles import AdditiveTilePDB
    from solvers import _ida_tiles

    tmap = at.transpose_map(3)
    assert tuple(int(tmap[t]) for t in (1, 2)) == (3, 6)
    t12 = at.build_pattern(3, (1, 2), progress=False)
    t36 = at.build_pattern(3, (3, 6), progress=False)
    places = ranking.unrank(np.arange(72), 9, 2)  # cells of tiles (3, 6)
    assert np.array_equal(t36[ranking.rank(places, 9)], t12[ranking.rank(tmap[places], 9)])

    monkeypatch.setitem(at.PARTITIONS, ("puzzle8", "mirror"), [(1, 2), (3, 6), (4, 5, 7, 8)])
    for layout in ("blank-first", "blank-last"):
        p = get_puzzle("puzzle8", goal=layout)
        h = AdditiveTilePDB(p, "mirror", reflect=False, progress=False)
        assert len(h.specs) == 2 and bool(h.ent_flag.any())
        states, dist = ref.puzzle8_states(layout)
        canon = states if layout == "blank-first" else convert_layout(states, 3)
        pos = np.argsort(canon, axis=1)
        t4 = at.build_pattern(3, (4, 5, 7, 8), progress=False)
        expect = (t12[ranking.rank(pos[:, [1, 2]], 9)] + t36[ranking.rank(pos[:, [3, 6]], 9)]
                  + t4[ranking.rank(pos[:, [4, 5, 7, 8]], 9)])
        got = h(states)
        assert np.array_equal(got, expect) and np.all(got <= dist)
        spec = h.ida_spec()
        for i in np.flatnonzero(dist >= 28)[:20]:
            out = _ida_tiles.search(p, spec, states[i], None, None)
            assert len(out["actions"]) == dist[i] and p.check_solution(states[i], out["actions"])


_ENSURE = """
from core.registry import get_heuristic, get_puzzle
h = get_heuristic("pdb-full", get_puzzle("puzzle8"))
print(int(h(get_puzzle("puzzle8").goal()[None])[0]))
"""


def test_concurrent_first_use_builds_once(tmp_path) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "BENCH_CACHE": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", _ENSURE], cwd=root, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert [o.strip() for o, _ in outs] == ["0", "0"]
    assert sum(e.count("building pattern database") for _, e in outs) == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".h5") == ["puzzle8-full.h5"]


@pytest.mark.parametrize("packed", [False, True])
def test_sparse_layout_holds_every_ranked_entry(packed: bool) -> None:
    from pdb_builders.additive_kernels import sparse_layout, table_get

    n, k = 9, 3
    values = np.random.default_rng(5).integers(0, 16, ranking.num_placements(n, k)).astype(np.uint8)
    table = values
    if packed:
        table = np.zeros((values.size + 1) // 2, dtype=np.uint8)
        table |= values[0::2]
        table[: values[1::2].size] |= values[1::2] << 4
    places = np.array([p for p in np.ndindex(n, n, n) if len(set(p)) == k])
    ranks = ranking.rank(places, n)
    index = places @ np.array([n * n, n, 1])
    for out_packed in (False, True):
        sparse = sparse_layout(table, packed, n, k, out_packed)
        got = [table_get(sparse, out_packed, int(i)) for i in index]
        assert np.array_equal(got, values[ranks])


def test_ida_sparse_and_ranked_lookups_search_alike(monkeypatch) -> None:
    """IDA* over the sparse tables (index moved per move, reflected terms read lazily) expands
    exactly what the ranked lookups of every term expand."""
    import heuristics.pdb_tiles as pt
    from solvers import _ida_tiles

    p = get_puzzle("puzzle15", goal="blank-first")
    rng = np.random.default_rng(11)
    states = []
    for _ in range(4):
        s = p.goal()[None, :]
        for _ in range(40):
            acts = p.legal_actions(s[0])
            s = p.apply(s, np.array([rng.choice(acts)]))
        states.append(s[0])
    sparse_h = get_heuristic("pdb-555-reflect", p)
    assert sparse_h.ida_spec().tables.sparse
    monkeypatch.setattr(pt, "SPARSE_MAX_ENTRIES", 0)
    ranked_h = pt.AdditiveTilePDB(p, "555", reflect=True)
    assert not ranked_h.ida_spec().tables.sparse
    for s in states:
        a = _ida_tiles.search(p, sparse_h.ida_spec(), s, None, None)
        b = _ida_tiles.search(p, ranked_h.ida_spec(), s, None, None)
        assert a == b
        assert len(a["actions"]) <= 40
