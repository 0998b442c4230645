"""The six-probe two-bit coset heuristic (``pdb-coset-eo``) and its IDA* kernel on small
stand-ins of its table: never above the breadth-first distance around the goal (the three-axis
rule included), the kernel's root values equal to the batch values, the inverse's coordinates
with every edge flip equal to cubie arithmetic, and optimal lengths equal to the Korf kernel's,
in one thread and two, searching forward or from both sides (``sides``; more of the two-sided
search in ``test_ida_cube_two_sided.py``)."""

from __future__ import annotations

import numpy as np
import pytest

cube = pytest.importorskip("puzzles.cube")

from cube_helpers import bfs_ball  # noqa: E402

from heuristics.pdb_coset_eo import _EMODE, CosetEOCubePDB, _eo_eax, _ud_eax  # noqa: E402
from heuristics.pdb_cube import KorfCubePDB  # noqa: E402
from pdb_builders import cube_coset as cc  # noqa: E402
from pdb_builders import cube_edge_parts as P  # noqa: E402
from pdb_builders import cube_symmetry as S  # noqa: E402
from solvers import _ida_cube as korf_ida  # noqa: E402
from solvers import _ida_cube_coset_eo as ida  # noqa: E402
from solvers import _ida_cube_two_sided as two  # noqa: E402
from solvers._ida_cube_coset import inverse_cubies  # noqa: E402
from solvers.ida import kernel_module  # noqa: E402

KORF_SMALL = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}
PARTS = [("set", "slice"), ("full", "set"), ("set", "ep2"), ("set", "eo2ep2")]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path_factory.getbasetemp() / "cache-coset-eo"))


@pytest.mark.parametrize("metric, radius", [("qtm", 4), ("htm", 3)])
@pytest.mark.parametrize("parts", PARTS)
def test_never_above_the_breadth_first_distance(metric: str, radius: int,
                                                parts: tuple[str, str]) -> None:
    puzzle = cube.Cube3(metric)
    h = CosetEOCubePDB(puzzle, *parts, progress=False)
    assert h.admissible and not h.consistent
    states, dist = bfs_ball(puzzle, radius)
    values = h(states)
    assert (values <= dist).all()
    assert values.max() >= 3  # the table informs
    assert values[dist == 0].tolist() == [0]
    spec = h.ida_spec()
    fspec = CosetEOCubePDB(puzzle, *parts, progress=False, sides="forward").ida_spec()
    for i in range(0, len(states), max(1, len(states) // 40)):
        assert ida.CosetEOSearch(puzzle, fspec, states[i]).h_root == values[i]
        assert two.TwoSidedSearch(puzzle, spec, states[i]).h_root == values[i]


def test_three_axis_rule_raises_some_values_and_stays_below_the_distance() -> None:
    """Without the rule (the plain max of the six probes) the values are lower somewhere; with
    it they stay at most the breadth-first distance (checked above on the ball)."""
    puzzle = cube.Cube3("qtm")
    h = CosetEOCubePDB(puzzle, "full", "set", progress=False)
    states, dist = bfs_ball(puzzle, 4)
    cubies = h._cubies(states)
    inv = S.inverse(cubies)  # type: ignore[arg-type]
    plain = np.maximum(h.axis_values(cubies).max(axis=1), h.axis_values(inv).max(axis=1))
    values = h(states)
    assert (values >= plain).all() and (values > plain).any()
    assert (values <= dist).all()


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_inverse_coordinates_with_every_flip_follow_cubie_arithmetic(metric: str) -> None:
    puzzle = cube.Cube3(metric)
    inv = cc.inverse_tables(metric)
    eax = _eo_eax()
    rng = np.random.default_rng(4)
    states, _ = puzzle.scramble(30, 25, rng)
    icub = inverse_cubies(puzzle, states)
    cubies = tuple(np.asarray(x, dtype=np.int64) for x in puzzle.to_cubies(states))
    inverse = S.inverse(cubies)  # type: ignore[arg-type]
    for k, r in enumerate(S.axis_rotations()):
        conj = S.conjugate(inverse, r)
        want_c = cc.corner_coord(conj[0], conj[1])
        want_e = P.edge_coord(conj[2], conj[3])
        for b in range(states.shape[0]):
            c, e = ida._inv_coords(icub[b].reshape(1, 1, -1), 0, 0, k, inv["cpos"], inv["cax"],
                                   inv["epos"], eax, inv["rank8"], inv["rank12"], False, 3)
            assert (c, e) == (want_c[b], want_e[b])


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("part", ["eo2ep2", "ep2", "eo2"])
def test_inverse_coordinates_of_the_ud_layer_parts_follow_cubie_arithmetic(metric: str,
                                                                          part: str) -> None:
    """The kernels' coordinates of the slice edges' order and the U-D layer flips (nxopt's
    EO2EP2 and its two projections) along each axis, against cubie arithmetic."""
    puzzle = cube.Cube3(metric)
    inv = cc.inverse_tables(metric)
    eax = _ud_eax()
    rng = np.random.default_rng(8)
    states, _ = puzzle.scramble(30, 25, rng)
    icub = inverse_cubies(puzzle, states)
    cubies = tuple(np.asarray(x, dtype=np.int64) for x in puzzle.to_cubies(states))
    inverse = S.inverse(cubies)  # type: ignore[arg-type]
    seen = set()
    for k, r in enumerate(S.axis_rotations()):
        conj = S.conjugate(inverse, r)
        want_c = cc.corner_coord(conj[0], conj[1])
        want_e = P.ud_edge_coord(conj[2], conj[3], part)
        for b in range(states.shape[0]):
            c, e = ida._inv_coords(icub[b].reshape(1, 1, -1), 0, 0, k, inv["cpos"], inv["cax"],
                                   inv["epos"], eax, inv["rank8"], inv["rank12"], False,
                                   _EMODE[part])
            assert (c, e) == (want_c[b], want_e[b])
            seen.add(int(e))
    assert len(seen) > 60  # the coordinates vary (the scrambles are not near the goal)


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_optimal_lengths_under_the_slice_order_stand_in(metric: str) -> None:
    """The slice edges' order (``ep2``, the stand-in of ``pdb-coset-eo2ep2``'s table) under
    both searches: lengths equal to the Korf kernel's, every path replayed."""
    puzzle = cube.Cube3(metric)
    korf = KorfCubePDB(puzzle, progress=False, **KORF_SMALL).ida_spec()
    specs = [CosetEOCubePDB(puzzle, "set", "ep2", progress=False, sides=sides).ida_spec()
             for sides in ("both", "forward")]
    rng = np.random.default_rng(12)
    for depth in range(1, 8):
        states, _ = puzzle.scramble(2, depth, rng)
        for s in states:
            ref = korf_ida.search(puzzle, korf, s, None, None)
            for spec in specs:
                out = kernel_module(spec.family).search(puzzle, spec, s, None, None)
                assert out["status"] == "solved"
                assert len(out["actions"]) == len(ref["actions"])
                assert puzzle.check_solution(s, out["actions"])


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("probe, sides", [("on", "both"), ("on", "forward"), ("near", None),
                                          ("off", None)])
def test_optimal_lengths_equal_the_korf_kernels(metric: str, probe: str, sides: str | None
                                                ) -> None:
    puzzle = cube.Cube3(metric)
    spec = CosetEOCubePDB(puzzle, "full", "set", progress=False, probe_inverse=probe,
                          sides=sides).ida_spec()
    korf = KorfCubePDB(puzzle, progress=False, **KORF_SMALL).ida_spec()
    module = kernel_module(spec.family)  # sides=both: solvers._ida_cube_two_sided
    rng = np.random.default_rng(31)
    for depth in range(1, 9):
        states, _ = puzzle.scramble(2, depth, rng)
        for s in states:
            out = module.search(puzzle, spec, s, None, None)
            ref = korf_ida.search(puzzle, korf, s, None, None)
            assert out["status"] == "solved" and ref["status"] == "solved"
            assert len(out["actions"]) == len(ref["actions"]) <= depth
            assert puzzle.check_solution(s, out["actions"])
            par = module.search(puzzle, spec, s, None, None, threads=2)
            assert len(par["actions"]) == len(out["actions"])
            assert puzzle.check_solution(s, par["actions"])


def test_options_are_checked() -> None:
    from core.errors import InputError

    puzzle = cube.Cube3("htm")
    with pytest.raises(InputError, match="probe-inverse"):
        CosetEOCubePDB(puzzle, "set", "slice", progress=False, probe_inverse="yes")
    with pytest.raises(InputError, match="edge_part"):
        CosetEOCubePDB(puzzle, "set", "flips", progress=False)
    h = CosetEOCubePDB(puzzle, "set", "slice", progress=False, probe_inverse="near")
    assert h.name == "pdb-coset-eo[set|slice]+inverse-near"


@pytest.mark.parametrize("stored", [False, True])
def test_bench_solve_default_uses_the_table_once_built(stored: bool, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``bench solve --solver ida`` on cube3 runs ``pdb-coset-eo`` when its tables are in the
    cache, else ``pdb-coset`` with a line on how to build them."""
    from bench.commands import solve
    from pdb_builders import catalog

    asked: list[tuple[str, str]] = []

    def fake(puzzle: str, heuristic: str) -> bool:
        asked.append((puzzle, heuristic))
        return stored

    monkeypatch.setattr(catalog, "tables_stored", fake)
    for puzzle in ("cube3", "cube3-htm"):
        name, built = solve.built_search_heuristic(puzzle, "pdb-coset")
        assert (name, built) == (("pdb-coset-eo2ep2", True) if stored else ("pdb-coset", False))
        err = capsys.readouterr().err
        if stored:
            assert err == ""
        else:
            assert f"bench pdb build {puzzle} pdb-coset-eo (" in err and "2.52 GB" in err
            assert f"bench pdb build {puzzle} pdb-coset-eo2ep2 (" in err and "7.55 GB" in err
            assert len(err.strip().splitlines()) == 1
    if stored:  # the strongest first
        assert asked == [("cube3", "pdb-coset-eo2ep2"), ("cube3-htm", "pdb-coset-eo2ep2")]
    else:
        assert asked == [(p, h) for p in ("cube3", "cube3-htm")
                         for h in ("pdb-coset-eo2ep2", "pdb-coset-eo")]
    # only the smaller table built: it runs
    monkeypatch.setattr(catalog, "tables_stored", lambda p, h: h == "pdb-coset-eo")
    assert solve.built_search_heuristic("cube3", "pdb-coset") == ("pdb-coset-eo", True)
    assert solve.built_search_heuristic("puzzle8", "pdb-full") == ("pdb-full", False)
