"""The two-sided IDA* search under ``pdb-coset-eo`` (``sides=both``,
``solvers._ida_cube_two_sided``) on small stand-ins of its table, in both metrics: the move
restriction it reads from the table holds against breadth-first distances, its lengths are the
breadth-first distances near the goal and the forward search's on random scrambles (every path
replayed), a paused and resumed search and two threads count as one uninterrupted thread, and it
generates fewer nodes than the forward search."""

from __future__ import annotations

import numpy as np
import pytest

cube = pytest.importorskip("puzzles.cube")

from cube_helpers import bfs_ball  # noqa: E402

from core.errors import InputError  # noqa: E402
from heuristics.pdb_coset_eo import CosetEOCubePDB  # noqa: E402
from solvers import _ida_cube, _ida_cube_parallel  # noqa: E402
from solvers import _ida_cube_coset_eo as ida  # noqa: E402
from solvers import _ida_cube_two_sided as two  # noqa: E402
from solvers._ida_engine import drive  # noqa: E402

#: the stand-in the searches run on (a few seconds to build, informative enough to prune)
PARTS = ("full", "set")
#: ball radius of the breadth-first checks per metric
RADIUS = {"qtm": 5, "htm": 4}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path_factory.getbasetemp() / "cache-coset-eo"))


def _specs(metric: str, parts: tuple[str, str] = PARTS):
    puzzle = cube.Cube3(metric)
    both = CosetEOCubePDB(puzzle, *parts, progress=False)
    forward = CosetEOCubePDB(puzzle, *parts, progress=False, sides="forward")
    return puzzle, both, forward


def _ball(puzzle, radius: int) -> tuple[np.ndarray, np.ndarray, dict[bytes, int]]:
    states, dist = bfs_ball(puzzle, radius)
    return states, dist, {s.tobytes(): int(d) for s, d in zip(states, dist, strict=True)}


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_blocked_axes_hold_against_breadth_first_distances(metric: str) -> None:
    """For every state of the ball at distance ``r``: where the kernel's raw values block an
    axis, no optimal solution starts (``v_A(p^-1) >= r``) or ends (``v_A(p) >= r``) with a move
    of that axis. A solution ``t`` starts with ``m`` when ``d(p m) = r - 1``; it ends with ``m``
    when ``t^-1``, a solution of ``p^-1``, starts with ``m^-1``: ``d(p^-1 m^-1) = r - 1``."""
    puzzle, h, _ = _specs(metric, ("full", "slice"))
    spec = h.ida_spec()
    states, dist, known = _ball(puzzle, RADIUS[metric])
    rows, _, values = two.node_rows(puzzle, spec, states)
    assert (values == h(states)).all()  # the kernel's values are the batch heuristic's
    cubies = h._cubies(states)
    from pdb_builders import cube_symmetry as S

    raw = np.concatenate([h.axis_values(cubies), h.axis_values(S.inverse(cubies))], axis=1)
    assert (rows[:, two._VAL:two._VAL + 6] == raw).all()  # raw: no rule, no parity
    starts, ends = two.blocked_axes(rows, dist)
    maxis = spec.tables.maxis
    inverse = puzzle.inverse_states(states)
    far = RADIUS[metric] + 1  # beyond the ball: at least this far
    blocked = {"start": 0, "end": 0}
    used = {"start": 0, "end": 0}  # an axis that some optimal solution starts or ends with
    for a in range(puzzle.num_actions):
        ax = int(maxis[a])
        after = puzzle.apply(states, np.full(len(states), a))
        d_start = np.array([known.get(s.tobytes(), far) for s in after])
        ia = puzzle.inverse_action(a)
        after_inv = puzzle.apply(inverse, np.full(len(states), ia))
        d_end = np.array([known.get(s.tobytes(), far) for s in after_inv])
        opt_start = (d_start == dist - 1) & (dist > 0)
        opt_end = (d_end == dist - 1) & (dist > 0)
        assert not (opt_start & starts[:, ax]).any(), (metric, a, "start")
        assert not (opt_end & ends[:, ax]).any(), (metric, a, "end")
        blocked["start"] += int((starts[:, ax] & (dist > 0)).sum())
        blocked["end"] += int((ends[:, ax] & (dist > 0)).sum())
        used["start"] += int(opt_start.sum())
        used["end"] += int(opt_end.sum())
    # the check is not empty: the table blocks many moves, and optimal solutions use others
    assert min(blocked.values()) > len(states) // 10
    assert min(used.values()) >= len(states) - 1


def test_move_tables_of_the_record() -> None:
    """Each move's axis, its inverse and its right multiplication on cubies, against cubie
    arithmetic."""
    from pdb_builders import cube_coset_eo as ce
    from pdb_builders import cube_symmetry as S
    from pdb_builders import korf_cube as kc

    for metric in ("qtm", "htm"):
        puzzle, h, _ = _specs(metric, ("set", "slice"))
        t = h.ida_spec().tables
        moves = kc.cubie_moves(metric)
        # move a keeps the goal's coset along its axis (it lies in that axis's subgroup), and
        # only there
        sp = ce.coset_space(metric, "set", "slice")
        goal = tuple(x[None, :] for x in S.identity())
        for a in range(puzzle.num_actions):
            m = tuple(x[a][None, :] for x in (moves.cp, moves.co, moves.ep, moves.eo))
            kept = [k for k, r in enumerate(S.axis_rotations())
                    if ce.project(sp, S.conjugate(m, r)) == ce.project(sp, goal)]  # type: ignore[arg-type]
            assert kept == [t.maxis[a]]
        rng = np.random.default_rng(2)
        states, _ = puzzle.scramble(6, 20, rng)
        cub = tuple(np.asarray(x, dtype=np.int64) for x in puzzle.to_cubies(states))
        flat = np.concatenate(cub, axis=1)
        for a in range(puzzle.num_actions):
            want = np.concatenate(S.multiply(cub, (moves.cp[a], moves.co[a], moves.ep[a],
                                                   moves.eo[a])), axis=1)
            got = np.zeros_like(flat)
            for b in range(flat.shape[0]):
                two._right(flat[b], got[b], 0, a, t.rmc, t.rme)
            assert (got == want).all()


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_lengths_equal_breadth_first_distances_near_the_goal(metric: str) -> None:
    puzzle, h, _ = _specs(metric)
    spec = h.ida_spec()
    assert spec.family == "cube_two_sided" and h.name == "pdb-coset-eo[full|set]"
    states, dist, _ = _ball(puzzle, RADIUS[metric])
    rng = np.random.default_rng(7)
    picks = np.concatenate([rng.choice(np.flatnonzero(dist == d), size=min(12, int((dist == d)
                                                                                   .sum())),
                                       replace=False) for d in range(RADIUS[metric] + 1)])
    for i in picks:
        out = two.search(puzzle, spec, states[i], None, None)
        assert out["status"] == "solved" and len(out["actions"]) == dist[i]
        assert puzzle.check_solution(states[i], out["actions"])


def _scrambles(puzzle, seed: int, count: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([puzzle.scramble(1, int(d), rng)[0]
                           for d in rng.integers(8, 13, size=count)])


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_both_sides_against_forward_on_random_scrambles(metric: str) -> None:
    """A few dozen seeded scrambles of 8-12 moves: the same optimal lengths as the forward
    search (itself checked against Korf's kernel), every path replayed, and fewer nodes in all."""
    puzzle, h, hf = _specs(metric)
    spec, fspec = h.ida_spec(), hf.ida_spec()
    nodes = {"both": 0, "forward": 0}
    for s in _scrambles(puzzle, 58, 30):
        out = two.search(puzzle, spec, s, None, None)
        ref = ida.search(puzzle, fspec, s, None, None)
        assert out["status"] == ref["status"] == "solved"
        assert len(out["actions"]) == len(ref["actions"])
        assert puzzle.check_solution(s, out["actions"])
        assert out["nodes_expanded"] >= len(out["actions"])
        nodes["both"] += out["nodes_generated"]
        nodes["forward"] += ref["nodes_generated"]
    print(f"{metric}: nodes generated both/forward = {nodes['both']:,}/{nodes['forward']:,} "
          f"= {nodes['both'] / nodes['forward']:.3f}")
    assert nodes["both"] < nodes["forward"]


@pytest.mark.parametrize("metric", ["qtm", "htm"])
def test_paused_and_resumed_search_counts_as_one_run(metric: str) -> None:
    """Slices of 37 nodes (the kernel pauses and resumes thousands of times) find the same path
    with the same counts as one uninterrupted run."""
    puzzle, h, _ = _specs(metric)
    spec = h.ida_spec()
    for s in _scrambles(puzzle, 3, 6):
        whole = drive(two.TwoSidedSearch(puzzle, spec, s), None, None, _ida_cube.CHUNK,
                      _ida_cube.MAX_DEPTH)
        sliced = drive(two.TwoSidedSearch(puzzle, spec, s), None, None, 37, _ida_cube.MAX_DEPTH)
        assert whole["status"] == "solved" and sliced == whole


@pytest.mark.parametrize("metric", ["qtm", "htm"])
@pytest.mark.parametrize("per_thread", [16, 100])
def test_two_threads_count_as_one(monkeypatch: pytest.MonkeyPatch, metric: str,
                                  per_thread: int) -> None:
    """Split from the first iteration on (frontier depths 2 and 3: the subtree roots' side
    choices and move pruning read the path above them): every iteration but the last generates
    the nodes one thread generates; unsplit, the very same search."""
    puzzle, h, _ = _specs(metric)
    spec = h.ida_spec()
    states = np.concatenate([puzzle.scramble(1, 1, np.random.default_rng(1))[0],
                             _scrambles(puzzle, 11, 5)])
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 0)
    monkeypatch.setattr(_ida_cube_parallel, "NODES_PER_THREAD", per_thread)
    for s in states:
        one = two.search(puzzle, spec, s, None, None)
        many = two.search(puzzle, spec, s, None, None, threads=2)
        assert one["status"] == many["status"] == "solved"
        assert puzzle.check_solution(s, many["actions"])
        assert len(many["actions"]) == len(one["actions"])
        assert many["iteration_nodes"][:-1] == one["iteration_nodes"][:-1]
        assert sum(many["iteration_nodes"]) == many["nodes_generated"]
    monkeypatch.setattr(_ida_cube_parallel, "SPLIT_MIN_NODES", 1 << 62)
    for s in states[:3]:
        one = two.search(puzzle, spec, s, None, None)
        many = two.search(puzzle, spec, s, None, None, threads=2)
        assert {k: many[k] for k in one} == one


def test_sides_option() -> None:
    """``both`` is the default with the six probes, ``forward`` with fewer; ``both`` with fewer
    is refused in one line, before a table is read."""
    puzzle = cube.Cube3("htm")
    with pytest.raises(InputError, match=r"^--sides: both reads the inverse of every child, "
                                         r"so it needs --probe-inverse on, got near$"):
        CosetEOCubePDB(puzzle, "set", "slice", progress=False, probe_inverse="near",
                       sides="both")
    with pytest.raises(InputError, match="--sides: expected both or forward"):
        CosetEOCubePDB(puzzle, "set", "slice", progress=False, sides="inverse")
    for probe, sides, name, family in (
            ("on", None, "", "cube_two_sided"),
            ("on", "forward", "+forward", "cube_coset_eo"),
            ("near", None, "+inverse-near", "cube_coset_eo"),
            ("off", "forward", "+inverse-off", "cube_coset_eo")):
        h = CosetEOCubePDB(puzzle, "set", "slice", progress=False, probe_inverse=probe,
                           sides=sides)
        assert h.name == "pdb-coset-eo[set|slice]" + name and h.ida_spec().family == family
    # the forward kernel refuses a two-sided spec rather than search it forward
    with pytest.raises(ValueError, match="_ida_cube_two_sided"):
        ida.search(puzzle, CosetEOCubePDB(puzzle, "set", "slice", progress=False).ida_spec(),
                   puzzle.goal(), None, None)
