"""Solvers: IDA* orchestration and the Lights Out kernel, the batch best-first engine, memory."""

from __future__ import annotations

import heapq
import mmap

import numpy as np
import pytest
from toys import (
    Gap,
    NoKernel,
    Pancake,
    ToyLights,
    ToyLightsOn,
    ToyManhattan,
    bfs_distances,
    lights_optimal_length,
)

from core.errors import InputError
from core.limits import Limits
from solvers import _bf_kernels as K
from solvers import _ida_lights
from solvers.best_first import BatchBestFirst
from solvers.ida import IDAStar
from solvers.memory import PeakMemory, touch_pages


def _random_lights(p: ToyLights, rng: np.random.Generator) -> np.ndarray:
    presses = rng.random(p.n * p.n) < 0.5
    return (p.mask[presses].sum(axis=0) % 2).astype(np.uint8)


# --------------------------------------------------------------------------- memory
@pytest.mark.nojit
def test_peak_memory_sees_an_allocation_inside_the_block_only():
    # RSS is process-wide: a thread left behind by an earlier test (torch, numba) may allocate
    # while a block runs, so take the best of three tries rather than trusting one sample.
    big = np.ones(64 << 20, dtype=np.uint8)  # touched before the blocks: not counted
    del big
    seen, quiet_seen = 0, 1 << 62
    for _ in range(3):
        with PeakMemory(interval_s=0.001) as quiet:
            np.zeros(10, dtype=np.uint8)
        with PeakMemory(interval_s=0.001) as mem:
            # fresh anonymous pages: a numpy buffer may reuse heap memory an earlier test freed
            # (already resident), which would not raise RSS
            buf = mmap.mmap(-1, 48 << 20)
            view = np.frombuffer(buf, dtype=np.uint8)
            view[::mmap.PAGESIZE] = 1  # touch every page
            mem.sample()
            del view
            buf.close()
        seen, quiet_seen = max(seen, mem.peak_bytes), min(quiet_seen, quiet.peak_bytes)
        if seen >= 40 << 20 and quiet_seen < 16 << 20:
            break
    assert seen >= 40 << 20
    assert quiet_seen < 16 << 20


@pytest.mark.nojit
def test_touch_pages_reads_one_byte_per_page_of_memory_mapped_tables(tmp_path):
    page = mmap.PAGESIZE
    path = tmp_path / "table.bin"
    path.write_bytes(bytes(range(256)) * (5 * page // 256) + b"\x07")  # 5 pages and 1 byte
    table = np.memmap(path, dtype=np.uint8, mode="r")
    wide = np.zeros((3, page // 8), dtype=np.int64)  # 3 pages of int64, 2-D
    assert touch_pages([table]) == 6
    assert touch_pages([table, wide]) == 9
    assert touch_pages([wide[:, ::2], np.zeros(0, np.uint8)]) == 0  # non-contiguous, empty: skipped


def test_ida_counts_page_touching_as_loading_not_search():
    p = ToyLights(3)
    r = IDAStar().solve(p, ToyLightsOn(p), _random_lights(p, np.random.default_rng(3)))
    assert r.status == "solved"
    assert 0.0 <= r.extra["pages_s"] <= r.load_s


def test_best_first_maps_heuristic_table_pages_as_loading():
    p = ToyLights(3)
    h = ToyLightsOn(p)
    h.tables = (np.zeros(3 * mmap.PAGESIZE, dtype=np.uint8),)  # as the PDB heuristics hold them
    r = BatchBestFirst(**ASTAR).solve(p, h, _random_lights(p, np.random.default_rng(4)))
    assert r.status == "solved"
    assert 0.0 <= r.extra["pages_s"] <= r.load_s


# --------------------------------------------------------------------------- lights IDA*
def _naive_lights_ida(n: int, start: np.ndarray) -> dict:
    """Plain-Python IDA* with the same pruning (increasing presses, dead ends) and counters."""
    toggles, count, fin_cells, fin_start = _ida_lights.tables(n)
    N = n * n
    last = np.zeros(N, dtype=np.int64)
    for q in range(N):
        last[fin_cells[fin_start[q]:fin_start[q + 1]]] = q
    lights = [int(v) for v in start]
    counters = dict(gen=0, exp=0)

    def press(p):
        for k in toggles[p, : count[p]]:
            lights[k] ^= 1

    def dfs(depth, m, bound, path):
        counters["exp"] += 1
        best = None
        for p in range(m, N):
            if any(lights[k] for k in range(N) if m <= last[k] <= p - 1):
                break
            press(p)
            counters["gen"] += 1
            on = sum(lights)
            dead = any(lights[k] for k in range(N) if last[k] == p)
            f = depth + 1 + (on + 4) // 5
            if dead:
                press(p)
                continue
            if f > bound:
                best = f if best is None else min(best, f)
                press(p)
                continue
            if on == 0:
                return path + [p], None
            found, nb = dfs(depth + 1, p + 1, bound, path + [p])
            if found is not None:
                return found, None
            if nb is not None:
                best = nb if best is None else min(best, nb)
            press(p)
        return None, best

    bound = (sum(lights) + 4) // 5
    iterations = 0
    while True:
        iterations += 1
        found, nb = dfs(0, 0, bound, [])
        if found is not None:
            return dict(actions=found, gen=counters["gen"], exp=counters["exp"], it=iterations)
        if nb is None:
            return dict(actions=None, gen=counters["gen"], exp=counters["exp"], it=iterations)
        bound = nb


@pytest.mark.nojit
def test_lights_kernel_matches_naive_reference_on_3x3():
    rng = np.random.default_rng(3)
    p = ToyLights(3)
    spec = ToyLightsOn(p).ida_spec()
    for _ in range(6):
        s = _random_lights(p, rng)
        if not s.any():
            continue
        out = _ida_lights.search(p, spec, s, None, None)
        ref = _naive_lights_ida(3, s)
        assert out["status"] == "solved"
        assert out["actions"] == ref["actions"]
        assert (out["nodes_generated"], out["nodes_expanded"], out["iterations"]) == (
            ref["gen"], ref["exp"], ref["it"])


def test_lights_kernel_matches_naive_reference_on_5x5():
    rng = np.random.default_rng(5)
    p = ToyLights(5)
    spec = ToyLightsOn(p).ida_spec()
    for _ in range(3):
        s = _random_lights(p, rng)
        out = _ida_lights.search(p, spec, s, None, None)
        ref = _naive_lights_ida(5, s)
        assert out["actions"] == ref["actions"]
        assert out["nodes_generated"] == ref["gen"] and out["iterations"] == ref["it"]


@pytest.mark.parametrize("n", [3, 4])
def test_ida_lights_lengths_are_optimal(n):
    rng = np.random.default_rng(n)
    p = ToyLights(n)
    h = ToyLightsOn(p)
    for _ in range(12 if n == 3 else 6):
        s = _random_lights(p, rng)
        r = IDAStar().solve(p, h, s)
        assert r.status == "solved" and p.check_solution(s, r.actions)
        assert r.length == lights_optimal_length(p, s)
        assert r.h_start == h(s[None])[0] and r.solver == "ida" and r.heuristic == "lights-on"


def test_ida_lights_7x7_is_fast_and_consistent_with_bwas_bound():
    rng = np.random.default_rng(7)
    p = ToyLights(7)
    h = ToyLightsOn(p)
    s = _random_lights(p, rng)
    r = IDAStar().solve(p, h, s)
    assert r.status == "solved" and r.length == int(np.count_nonzero(
        np.bincount(r.actions, minlength=49)))  # each cell pressed at most once
    assert r.nodes_generated >= r.nodes_expanded > 0 and r.iterations >= 1


def test_ida_lights_unsolvable_state_is_reported():
    p = ToyLights(4)  # the 4x4 press matrix is singular: a single lit corner is unsolvable
    s = np.zeros(16, dtype=np.uint8)
    s[0] = 1
    r = IDAStar().solve(p, ToyLightsOn(p), s)
    assert r.status == "unsolvable" and r.actions is None and r.length is None


def test_ida_start_is_goal():
    p = ToyLights(3)
    r = IDAStar().solve(p, ToyLightsOn(p), p.goal())
    assert r.status == "solved" and r.actions == [] and r.length == 0


def test_ida_limits(monkeypatch):
    p = ToyLights(7)
    h = ToyLightsOn(p)
    s = _random_lights(p, np.random.default_rng(11))
    r = IDAStar().solve(p, h, s, Limits(nodes=50))
    # every kernel stops once more than the limit was generated; this one checks per node
    assert r.status == "node-limit" and r.actions is None and r.nodes_generated == 51
    monkeypatch.setattr(_ida_lights, "CHUNK", 64)
    r = IDAStar().solve(p, h, s, Limits(time_s=1e-9))
    assert r.status == "timeout" and r.nodes_generated <= 64


def test_ida_refuses_a_heuristic_without_kernel():
    p = ToyLights(3)
    with pytest.raises(InputError, match="per-state kernel; batch-only has none, use bwas"):
        IDAStar().solve(p, NoKernel(p), p.apply(p.goal()[None], [4])[0])


def test_ida_rejects_engine_parameters_and_bad_starts():
    from core.registry import get_solver

    with pytest.raises(InputError, match="--weight: applies to bwas/astar/greedy/qstar, not to ida"):
        get_solver("ida", weight=0.5)
    p = ToyLights(3)
    with pytest.raises(InputError, match="shape"):
        IDAStar().solve(p, ToyLightsOn(p), np.zeros(8, dtype=np.uint8))


# --------------------------------------------------------------------------- kernels
@pytest.mark.nojit
def test_heap_kernel_pops_in_f_then_h_order():
    rng = np.random.default_rng(0)
    n = 200
    f = rng.integers(0, 10, n).astype(np.float64)
    h = rng.integers(0, 5, n).astype(np.float64)
    ids = np.arange(n, dtype=np.int64)
    heap = np.empty((n, 3))
    size = np.zeros(1, dtype=np.int64)
    K.heap_push(heap, size, f[:120], h[:120], ids[:120])
    K.heap_push(heap, size, f[120:], h[120:], ids[120:])
    closed = np.zeros(n, dtype=np.bool_)
    closed[:10] = True  # stale entries are skipped
    out = np.empty(n, dtype=np.int64)
    k = K.heap_pop_batch(heap, size, closed, f, n, out)
    ref = sorted((f[i], h[i]) for i in range(10, n))
    assert k == n - 10 and [(f[i], h[i]) for i in out[:k]] == ref
    assert closed.all() and size[0] == 0
    heapq.heapify(ref)  # the reference itself is a valid heap order


def _dict_reference(children, g):
    index, best, kinds = {}, {}, []
    for row, gi in zip(children, g, strict=True):
        key = row.tobytes()
        if key not in index:
            index[key] = len(index)
            best[key] = gi
            kinds.append(K.NEW)
        elif gi < best[key]:
            best[key] = gi
            kinds.append(K.IMPROVED)
        else:
            kinds.append(K.DUPLICATE)
    return kinds, len(index)


@pytest.mark.nojit
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # uint64 wrap without JIT
def test_closed_set_kernel_is_exact_and_reopens_cheaper_paths():
    rng = np.random.default_rng(1)
    m, L = 400, 5
    children = rng.integers(0, 3, (m, L)).astype(np.uint8)  # many repeats
    g = rng.integers(0, 20, m).astype(np.int64)
    cap = 512
    table = np.zeros((1024, 2), dtype=np.uint64)
    states = np.zeros((cap, L), dtype=np.uint8)
    gs, parent, action = (np.zeros(cap, dtype=np.int64) for _ in range(3))
    hashes = np.zeros(cap, dtype=np.uint64)
    closed = np.ones(cap, dtype=np.bool_)
    out_ids = np.empty(m, dtype=np.int64)
    out_kind = np.empty(m, dtype=np.int8)
    child_hash = np.empty(m, dtype=np.uint64)
    K.hash_rows(children, child_hash)
    n = K.insert_children(table, hashes, states, gs, parent, action, closed, 0, children,
                          child_hash, g, np.arange(m, dtype=np.int64), np.zeros(m, dtype=np.int64),
                          out_ids, out_kind)
    kinds, count = _dict_reference(children, g)
    assert list(out_kind) == kinds and n == count
    assert len({states[i].tobytes() for i in range(n)}) == n  # never two nodes for one state
    for i in range(n):  # every node keeps the cheapest g seen, and its parent is that child
        same = np.all(children == states[i], axis=1)
        assert gs[i] == g[same].min() and g[parent[i]] == gs[i]
    # a table rebuilt from the stored hashes finds every node again
    table2 = np.zeros((4096, 2), dtype=np.uint64)
    K.rebuild_table(table2, hashes, n)
    assert sorted(table2[table2[:, 0] > 0, 0] - 1) == list(range(n))


@pytest.mark.nojit
def test_a_hash_collision_never_merges_two_states():
    """Every child gets the same hash: only the full-row comparison tells states apart."""
    rng = np.random.default_rng(2)
    m, L = 120, 4
    children = rng.integers(0, 3, (m, L)).astype(np.uint8)
    g = rng.integers(0, 9, m).astype(np.int64)
    table = np.zeros((256, 2), dtype=np.uint64)
    states = np.zeros((m, L), dtype=np.uint8)
    gs, parent, action = (np.zeros(m, dtype=np.int64) for _ in range(3))
    out_ids = np.empty(m, dtype=np.int64)
    out_kind = np.empty(m, dtype=np.int8)
    n = K.insert_children(table, np.zeros(m, dtype=np.uint64), states, gs, parent, action,
                          np.zeros(m, dtype=np.bool_), 0, children,
                          np.full(m, 12345, dtype=np.uint64), g, np.arange(m, dtype=np.int64),
                          np.zeros(m, dtype=np.int64), out_ids, out_kind)
    kinds, count = _dict_reference(children, g)
    assert list(out_kind) == kinds and n == count
    assert len({states[i].tobytes() for i in range(n)}) == n


# --------------------------------------------------------------------------- best-first engine
ASTAR = dict(weight=1.0, batch=1, preset="astar")


@pytest.mark.parametrize("closed", ["numba", "dict"])
def test_astar_is_optimal_on_pancakes(closed):
    p = Pancake(7)
    dist = bfs_distances(p)
    rng = np.random.default_rng(0)
    solver = BatchBestFirst(**ASTAR, closed=closed)
    for _ in range(25):
        s = rng.permutation(7).astype(np.uint8)
        r = solver.solve(p, Gap(p), s)
        assert r.status == "solved" and r.length == dist[s.tobytes()]


def test_astar_is_optimal_on_the_8_puzzle():
    from puzzles.exhaustive import perm_ranks, puzzle8_distances
    from puzzles.npuzzle import NPuzzle

    p = NPuzzle(3)
    dist = puzzle8_distances()
    rng = np.random.default_rng(8)
    states = p.random_states(12, rng)
    solver = BatchBestFirst(**ASTAR)
    for s in states:
        r = solver.solve(p, ToyManhattan(p), s)
        assert r.status == "solved" and r.length == dist[perm_ranks(s)[0]]
        assert r.nodes_generated >= r.nodes_expanded >= r.length


def test_numba_and_dict_closed_sets_search_identically():
    p = Pancake(8)
    s = np.array([3, 7, 1, 0, 5, 2, 6, 4], dtype=np.uint8)
    a = BatchBestFirst(weight=0.6, batch=16, closed="numba").solve(p, Gap(p), s)
    b = BatchBestFirst(weight=0.6, batch=16, closed="dict").solve(p, Gap(p), s)
    assert (a.actions, a.nodes_generated, a.nodes_expanded, a.iterations) == (
        b.actions, b.nodes_generated, b.nodes_expanded, b.iterations)


def test_a_weight_above_one_matches_a_heuristic_counted_in_other_units():
    # f = k*g + k*h orders the open list as g + h does: a network whose h counts k units a move
    # (diffusion distance) searches with weight k as a move-counting one with weight 1
    class Scaled(Gap):
        def __call__(self, states):
            return 4 * super().__call__(states)

    p = Pancake(8)
    s = np.array([3, 7, 1, 0, 5, 2, 6, 4], dtype=np.uint8)
    a = BatchBestFirst(weight=1.0, batch=16).solve(p, Gap(p), s)
    b = BatchBestFirst(weight=4.0, batch=16).solve(p, Scaled(p), s)
    assert a.status == b.status == "solved" and p.check_solution(s, b.actions)
    assert (a.actions, a.nodes_generated, a.nodes_expanded, a.iterations) == (
        b.actions, b.nodes_generated, b.nodes_expanded, b.iterations)
    with pytest.raises(InputError, match=r"--weight: must be in \[0, 100\]"):
        BatchBestFirst(weight=101.0)


@pytest.mark.parametrize("kw", [dict(weight=0.6, batch=50), dict(weight=0.0, batch=1, preset="greedy"),
                                dict(weight=0.2, batch=1000)])
def test_bwas_and_greedy_paths_are_valid(kw):
    from puzzles.npuzzle import NPuzzle

    p = NPuzzle(3)
    solver = BatchBestFirst(**kw)
    for s in p.random_states(5, np.random.default_rng(2)):
        r = solver.solve(p, ToyManhattan(p), s)
        assert r.status == "solved" and p.check_solution(s, r.actions) and r.length == len(r.actions)
        assert r.iterations >= 1 and r.nodes_generated > 0 and r.h_start == ToyManhattan(p)(s[None])[0]


def test_bwas_on_lights_out_with_every_preset():
    p = ToyLights(4)
    rng = np.random.default_rng(4)
    s = _random_lights(p, rng)
    opt = lights_optimal_length(p, s)
    assert BatchBestFirst(**ASTAR).solve(p, ToyLightsOn(p), s).length == opt
    for kw in (dict(weight=0.6, batch=100), dict(weight=0.0, batch=1, preset="greedy")):
        r = BatchBestFirst(**kw).solve(p, ToyLightsOn(p), s)
        assert r.status == "solved" and r.length >= opt


def test_best_first_start_is_goal_and_unsolvable():
    p = ToyLights(4)
    for kw in (ASTAR, dict(weight=0.6, batch=100)):
        r = BatchBestFirst(**kw).solve(p, ToyLightsOn(p), p.goal())
        assert r.status == "solved" and r.length == 0 and r.actions == []
    s = np.zeros(16, dtype=np.uint8)
    s[0] = 1  # not in the span of the 4x4 presses
    r = BatchBestFirst(weight=0.6, batch=100).solve(p, ToyLightsOn(p), s)
    assert r.status == "unsolvable" and r.actions is None
    assert r.extra["nodes_stored"] == 2 ** 12  # the whole 4x4 class: 2^rank states


def test_best_first_limits():
    p = Pancake(9)
    s = np.array([8, 2, 6, 0, 4, 1, 7, 3, 5], dtype=np.uint8)
    solver = BatchBestFirst(weight=0.6, batch=10)
    r = solver.solve(p, Gap(p), s, Limits(nodes=100))
    assert r.status == "node-limit" and 100 <= r.nodes_generated < 100 + 10 * 8
    r = solver.solve(p, Gap(p), s, Limits(time_s=1e-9))
    assert r.status == "timeout" and r.iterations == 1
    r = solver.solve(p, Gap(p), s, Limits(memory_bytes=1))
    assert r.status == "out-of-memory" and r.actions is None


def test_astar_reopens_a_node_reached_by_a_cheaper_path():
    """With an inconsistent heuristic A* meets states again on cheaper paths and reopens them."""
    from heuristics.base import Heuristic

    class Bumpy(Heuristic):
        name = "bumpy"

        def __call__(self, states):
            s = np.atleast_2d(states)
            return Gap(p)(s) * (1 + (s[:, 0] % 3))  # inflated, inconsistent

    p = Pancake(8)
    rng = np.random.default_rng(6)
    reopened = 0
    for _ in range(10):
        s = rng.permutation(8).astype(np.uint8)
        r = BatchBestFirst(weight=1.0, batch=1, preset="astar", closed="dict").solve(p, Bumpy(p), s)
        r2 = BatchBestFirst(weight=1.0, batch=1, preset="astar").solve(p, Bumpy(p), s)
        assert r.status == r2.status == "solved" and r.actions == r2.actions
        reopened += r.extra["reopened"]
        assert r.extra["reopened"] == r2.extra["reopened"]
    assert reopened > 0


@pytest.mark.parametrize("kw, msg", [
    (dict(weight=100.5), "--weight"), (dict(weight=-0.1), "--weight"), (dict(batch=0), "--batch"),
    (dict(batch=2.5), "--batch"), (dict(preset="beam"), "preset"), (dict(closed="list"), "closed"),
    (dict(preset="astar", weight=0.5), "astar fixes the weight at 1"),
    (dict(preset="greedy", weight=0.5), "greedy fixes the weight at 0"),
])
def test_engine_rejects_bad_parameters(kw, msg):
    with pytest.raises(InputError, match=msg):
        BatchBestFirst(**kw)


def test_registry_presets():
    from core.registry import get_solver

    bwas = get_solver("bwas", weight=None, batch=None)
    assert (bwas.name, bwas.weight, bwas.batch, bwas.goal_test) == ("bwas", 0.6, 10000, "generate")
    a = get_solver("astar")
    assert (a.name, a.weight, a.batch, a.goal_test) == ("astar", 1.0, 1, "expand")
    gr = get_solver("greedy", batch=5)
    assert (gr.name, gr.weight, gr.batch) == ("greedy", 0.0, 5)
    assert get_solver("ida").name == "ida"


@pytest.mark.parametrize("kw", [dict(time_s=0), dict(time_s=-1.0), dict(nodes=0), dict(nodes=2.5),
                                dict(memory_bytes=-5), dict(nodes="10"), dict(time_s=True)])
def test_limits_reject_nonsense(kw):
    with pytest.raises(InputError, match="limits: "):
        Limits(**kw)
    assert Limits(time_s=0.5, nodes=10, memory_bytes=1 << 20).nodes == 10


def test_generated_counts_stop_at_the_goal_child():
    p = ToyLights(3)
    s = p.apply(p.goal()[None], [4])[0]  # one press of the centre
    r = BatchBestFirst(weight=0.6, batch=1).solve(p, ToyLightsOn(p), s)
    assert (r.actions, r.nodes_generated, r.nodes_expanded, r.iterations) == ([4], 5, 1, 1)
    r = BatchBestFirst(**ASTAR).solve(p, ToyLightsOn(p), s)  # goal test at expansion
    assert (r.actions, r.nodes_generated, r.nodes_expanded, r.iterations) == ([4], 9, 1, 2)


@pytest.mark.parametrize("presses", [[0, 8], [1, 7], [2, 6], [3, 5]])
def test_batch_counts_expanded_parents_up_to_the_goal_childs_parent(presses):
    """One big batch: the root's 9 children, then 8 per parent (its own press is dropped)."""
    p = ToyLights(3)
    s = p.apply_path(p.goal(), presses)
    r = BatchBestFirst(weight=0.6, batch=10_000).solve(p, ToyLightsOn(p), s)
    assert r.status == "solved" and r.length == 2 and r.iterations == 2
    q, rest = divmod(r.nodes_generated - 9 - 1, 8)  # q parents before the goal child's parent
    assert 0 <= rest < 8
    assert r.nodes_expanded == 1 + q + 1


def test_ida_reports_compile_time_once_and_heuristic_load_time():
    p = ToyLights(3)
    h = ToyLightsOn(p)
    h.load_seconds = 0.25
    s = p.apply(p.goal()[None], [0])[0]
    IDAStar().solve(p, h, s)  # compiles (or loads the cached kernel) at most once per process
    r = IDAStar().solve(p, h, s)
    assert r.extra["compile_s"] == 0.0
    assert r.load_s == pytest.approx(0.25 + r.extra["pages_s"])
    b = BatchBestFirst(**ASTAR).solve(p, h, s)
    assert b.load_s >= 0.25 and b.time_s >= 0


def test_best_first_stops_at_its_iteration_limit():
    from core import registry as reg
    from core.status import Status as St

    p = reg.get_puzzle("puzzle15")
    h = reg.get_heuristic("manhattan", p)
    start = p.apply_path(p.goal(), p.parse_moves("UULLDDRRUULDLURDRDLU"))
    capped = reg.get_solver("bwas", batch=1, max_iterations=5).solve(p, h, start)
    assert capped.status == St.ITERATION_LIMIT and capped.iterations == 5
    free = reg.get_solver("bwas", batch=1).solve(p, h, start)
    assert free.status == St.SOLVED and free.iterations > 5
    enough = reg.get_solver("bwas", batch=1, max_iterations=free.iterations).solve(p, h, start)
    assert enough.status == St.SOLVED and enough.actions == free.actions
