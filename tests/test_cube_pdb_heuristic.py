"""Cube PDB heuristics: values against exact distances, files and their checks."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import InputError
from pdb_builders import korf_cube as kc
from pdb_builders import store

cube = pytest.importorskip("puzzles.cube")

from cube_helpers import bfs_ball  # noqa: E402

SMALL = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}


@pytest.fixture(scope="module", params=["qtm", "htm"])
def small(request):
    puzzle = cube.Cube3(request.param)
    from heuristics.pdb_cube import KorfCubePDB

    return puzzle, KorfCubePDB(puzzle, progress=False, **SMALL)


@pytest.fixture(scope="module")
def ball(small):
    puzzle, _ = small
    return bfs_ball(puzzle, 4)


def test_small_pattern_heuristic_is_a_lower_bound_and_exact_on_its_pieces(small, ball):
    puzzle, h = small
    states, dist = ball
    if puzzle.metric == "htm":
        assert np.bincount(dist).tolist() == [1, 18, 243, 3240, 43239]
    else:
        assert np.bincount(dist).tolist() == [1, 12, 114, 1068, 10011]
    values = h(states)
    assert values.dtype == np.int32 and values.shape == dist.shape
    assert np.all(values <= dist)
    assert values[0] == 0 and np.all(values[1:] >= 1)
    # each part equals its own table built independently
    cubies = puzzle.to_cubies(states)
    for pattern, table in zip([h.corner_pattern, *h.edge_patterns], h.tables, strict=True):
        full, _ = kc.build(puzzle.metric, pattern)
        idx = kc.pattern_index(pattern, cubies)
        assert np.array_equal(store.unpack_nibbles(table, pattern.size)[idx], full[idx])


def test_heuristic_is_consistent_on_random_states(small):
    puzzle, h = small
    rng = np.random.default_rng(5)
    states = puzzle.random_states(300, rng)
    children, _ = puzzle.expand(states)
    hs = h(states)
    hc = h(children.reshape(-1, puzzle.state_dim)).reshape(len(states), -1)
    assert np.all(np.abs(hc - hs[:, None]) <= 1)
    assert hs.max() > 3


def test_lower_bound_on_the_whole_ball_of_radius_6_htm_7_qtm(small):
    from solvers._ida_cube import ball_check

    puzzle, h = small
    depth = 6 if puzzle.metric == "htm" else 7
    out = ball_check(puzzle, h.ida_spec(), depth)
    assert out["violations"] == 0 and out["max_h"] >= 4
    # move-pruned sequence counts (htm: 18, 243, 3240, 43254, 577368, 7706988)
    if puzzle.metric == "htm":
        assert out["nodes"] == 1 + 18 + 243 + 3240 + 43254 + 577368 + 7706988


def test_heuristic_properties_and_bad_input(small):
    puzzle, h = small
    assert h.admissible and h.consistent
    assert h.nbytes == sum((p.size + 1) // 2 for p in [h.corner_pattern, *h.edge_patterns])
    spec = h.ida_spec()
    assert spec.family == "cube" and spec.kind == "cube-pdb-max"
    with pytest.raises(InputError, match="states"):
        h(np.zeros((2, 53), np.uint8))
    assert h(puzzle.goal()).tolist() == [0]


def test_cube2_table_is_exact(tmp_path):
    from heuristics.pdb_cube import Cube2PDB

    for metric in ("qtm", "htm"):
        puzzle = cube.Cube2(metric)
        h = Cube2PDB(puzzle, progress=False)
        states = puzzle.random_states(2000, np.random.default_rng(6))
        exact = np.asarray(puzzle.distance_table())[puzzle.index(states)]
        assert np.array_equal(h(states), exact)
        assert h.nbytes == (3_674_160 + 1) // 2


def test_heuristics_refuse_other_puzzles():
    from heuristics.pdb_cube import Cube2PDB, KorfCubePDB

    with pytest.raises(InputError):
        KorfCubePDB(cube.Cube2("qtm"))
    with pytest.raises(InputError):
        Cube2PDB(cube.Cube3("qtm"))
    with pytest.raises(InputError):
        KorfCubePDB(cube.Cube3("qtm"), corners="cube2-full")
    with pytest.raises(InputError):
        KorfCubePDB(cube.Cube3("qtm"), edges=((0, 1),))
    with pytest.raises(InputError, match="--edge-tables: expected 6\\+6 or 7\\+7"):
        KorfCubePDB(cube.Cube3("qtm"), edge_tables="8+8")


def test_edge_table_choices_cover_every_edge():
    from core import registry
    from core.pdb_decls import EDGE_TABLES

    # the option's choices are the declared tables' names
    assert registry.heuristic_entry("pdb-korf").option("edge_tables").choices == \
        tuple(EDGE_TABLES)
    for name, sets in EDGE_TABLES.items():
        k = int(name.split("+")[0])
        assert [len(s) for s in sets] == [k, k] and set(sets[0]) | set(sets[1]) == set(range(12))


# ----------------------------------------------------------------------------- files


def test_files_record_metric_and_pattern_and_are_checked(small):
    puzzle, h = small
    spec = h.specs[1]
    attrs = store.read_attrs(spec.path)
    assert attrs["metric"] == puzzle.metric and attrs["pattern"] == "edges:0,1,2"
    assert attrs["packing"] == "nibble" and attrs["length"] == 1320 * 8
    # a file built for the other metric or another pattern is refused
    other_metric = kc.table_spec("cube3-htm" if puzzle.metric == "qtm" else "cube3", "edges:0,1,2")
    with pytest.raises(store.DatabaseError, match="metric|puzzle"):
        store.load_packed(spec.path, other_metric.attrs)
    other_pattern = kc.table_spec(puzzle.name, "edges:0,1,3")
    with pytest.raises(store.DatabaseError, match="pattern"):
        store.load_packed(spec.path, other_pattern.attrs)


def test_truncated_and_flipped_files_are_detected(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    spec = kc.table_spec("cube3", "edges:5,6")
    spec.ensure(progress=False)
    path = spec.path
    raw = bytearray(path.read_bytes())
    offset = int(store.load_packed(path, spec.attrs, verify="always").data.offset)
    assert 0 < offset and offset + (spec.entries + 1) // 2 <= len(raw)
    flipped = tmp_path / "flipped.h5"
    raw[offset + 17] ^= 0x10
    flipped.write_bytes(bytes(raw))
    with pytest.raises(store.DatabaseError, match="checksum"):
        store.load_packed(flipped, spec.attrs, verify="always")
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(path.read_bytes()[: offset + 100])
    with pytest.raises(store.DatabaseError):
        store.load_packed(truncated, spec.attrs)


def test_catalog_builds_use_every_numba_thread(tmp_path, monkeypatch):
    """``bench pdb build`` calls ``TableSpec.build`` (the catalog's default ``jobs=1``)."""
    import numba

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    caps = []
    real = numba.set_num_threads
    monkeypatch.setattr(numba, "set_num_threads", lambda n: (caps.append(n), real(n)))
    spec = kc.table_spec("cube3-htm", "edges:5,6")
    spec.build(progress=False)
    assert spec.path.is_file() and 1 not in caps  # never capped to one thread


def test_catalog_lists_the_cube_databases():
    from pdb_builders import catalog

    korf = catalog.find("cube3-htm", "pdb-korf").tables("cube3-htm")
    assert [t.entries for t in korf] == [88_179_840, 42_577_920, 42_577_920]
    assert len({t.key for t in korf} | {t.key for t in catalog.find("cube3", "pdb-korf").tables("cube3")}) == 6
    assert all(t.attrs["metric"] == "htm" for t in korf)
    (c2,) = catalog.find("cube2", "pdb-cube2").tables("cube2")
    assert c2.entries == 3_674_160 and c2.attrs["metric"] == "qtm"


def test_fused_facelet_kernel_matches_the_cubie_path(small):
    puzzle, h = small
    rng = np.random.default_rng(13)
    states = np.concatenate([puzzle.random_states(500, rng), puzzle.scramble(50, 5, rng)[0]])
    assert np.array_equal(h(states), h.values_via_cubies(states))
    colours = states[:2].copy()
    colours[1, 5] = 9  # not a colour
    with pytest.raises(InputError, match="row 1"):
        h(colours)
    bad = states[:3].copy()
    bad[1, [0, 9]] = bad[1, [9, 0]]  # swap two stickers of different pieces
    if not np.array_equal(bad[1], states[1]):
        with pytest.raises(InputError, match="row 1"):
            h(bad)


def test_cube2_fused_kernel_matches_the_cubie_path():
    from heuristics.pdb_cube import Cube2PDB

    puzzle = cube.Cube2("htm")
    h = Cube2PDB(puzzle, progress=False)
    states = puzzle.random_states(500, np.random.default_rng(14))
    assert np.array_equal(h(states), h.values_via_cubies(states))
