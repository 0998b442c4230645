"""Korf's macro-operator tables and solver, against independent truth: a plain breadth-first
search over the whole 8-puzzle for the shortest macros, the complete 2x2x2 enumeration for the
columns, path replay for every solution, and the store's checks for the cached file."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from puzzles.npuzzle import NPuzzle
from puzzles.pieces import piece_model
from solvers.macro import MacroSolver
from solvers.macro_table import (
    KORF1982_ORDER,
    columns,
    explore,
    get_table,
    korf_cube_order,
    learn,
    peel_order,
)

SMALL = 700_000  # states kept by the learner's search in these tests (the cubes chain macros)


def _solve_all(puzzle, states, max_states=None):
    solver = MacroSolver(max_states=max_states)
    zero = registry.get_heuristic("zero", puzzle)
    out = []
    for s in states:
        r = solver.solve(puzzle, zero, s, Limits())
        assert r.status == Status.SOLVED
        assert puzzle.check_solution(s, r.actions)  # replayed here as well as by the solver
        assert r.nodes_generated == r.length + 1
        out.append(r.length)
    return np.array(out)


# ----------------------------------------------------------------------------- the layout
def test_korf1982_goal_layout_and_its_states():
    p = registry.get_puzzle("puzzle8", goal="korf1982")
    assert p.format(p.goal()) == "1,2,3,8,0,4,7,6,5"
    # the layout is the other half of the permutations: blank-last states are refused with a hint
    with pytest.raises(InputError, match="unsolvable for the korf1982 goal.*--goal blank-last"):
        p.parse("1,2,3,4,5,6,7,8,0")
    with pytest.raises(InputError, match="korf1982 is an 8-puzzle layout"):
        registry.get_puzzle("puzzle15", goal="korf1982")
    with pytest.raises(InputError, match="the korf1982 goal is served by exact tables"):
        registry.get_heuristic("manhattan", p)


# ----------------------------------------------------------------------------- orders
def test_solution_orders():
    p8 = registry.get_puzzle("puzzle8", goal="korf1982")
    t = get_table(p8)
    assert t.order == KORF1982_ORDER
    p15 = registry.get_puzzle("puzzle15")
    # blank home bottom right: the top row, the left column, then the 3x3 that is left
    assert peel_order(4, p15.goal())[:8] == ("B", "1", "2", "3", "4", "5", "9", "13")
    first = registry.get_puzzle("puzzle15", goal="blank-first")
    assert peel_order(4, first.goal())[:5] == ("B", "15", "14", "13", "12")
    model, _ = piece_model(registry.get_puzzle("cube3-htm"))
    order = korf_cube_order(model)
    # an edge first (moved by two faces), then the corner and edges of a 2x2x2 block around it
    assert order[0] == "UR" and set(order[:4]) == {"UR", "URF", "UF", "FR"}
    assert sorted(order) == sorted(model.piece_names)


# ----------------------------------------------------------------------------- shortest macros
def _bfs_macro_lengths(puzzle: NPuzzle, order: tuple[str, ...]) -> dict[tuple[int, int], int]:
    """Shortest macro per (row, position), by a plain breadth-first search over all states:
    a state S at distance d from the goal with the blank home and the first k pieces of the
    order home certifies a macro of length d (S's path undone) for row k and the position that
    S gives piece k."""
    goal = tuple(int(x) for x in puzzle.goal())
    moves = puzzle._moves
    names = ["B" if t == 0 else str(t) for t in range(9)]
    pieces = [names.index(n) for n in order]
    home = {t: goal.index(t) for t in range(9)}
    dist = {goal: 0}
    queue = deque([goal])
    best: dict[tuple[int, int], int] = {}
    while queue:
        s = queue.popleft()
        d = dist[s]
        b = s.index(0)
        if b == home[0]:
            k = 1
            while k < 9 and s[home[pieces[k]]] == pieces[k]:
                k += 1
            if k < 9:
                j = s.index(pieces[k])
                best[(k, j)] = min(best.get((k, j), 99), d)
        else:  # the blank's row: walk the blank home
            best[(0, b)] = min(best.get((0, b), 99), d)
        for a in range(4):
            t = moves[b, a]
            if t < 0:
                continue
            n = list(s)
            n[b], n[t] = n[t], 0
            n = tuple(n)
            if n not in dist:
                dist[n] = d + 1
                queue.append(n)
    return best


@pytest.mark.parametrize("goal", ["korf1982", "blank-last"])
def test_8_puzzle_macros_are_the_shortest_ones(goal):
    p = registry.get_puzzle("puzzle8", goal=goal)
    t = get_table(p)
    truth = _bfs_macro_lengths(p, t.order)
    assert t.complete and t.count == 35  # 8 + 7 + 6 + 5 + 4 + 3 + 2 columns; the last two none
    assert {key: len(m) for key, m in t.entries.items()} == truth
    assert set(t.how.values()) == {"search"}


def test_korf_8_puzzle_table_in_the_papers_notation():
    from bench.commands.macro import notation

    p = registry.get_puzzle("puzzle8", goal="korf1982")
    t = get_table(p)
    model = t.model
    cell = {name: i for i, name in enumerate(model.location_names)}
    # the blank's column: one or two tile moves; tile 1 from position 2 takes four
    assert notation(p, t.lookup(0, cell["2"])) == "U"
    assert notation(p, t.lookup(0, cell["1"])) == "UL"
    assert len(t.lookup(1, cell["2"])) == 4
    assert t.longest == 14


# ----------------------------------------------------------------------------- columns
def test_cube_columns_match_a_complete_enumeration():
    p = registry.get_puzzle("cube2-htm")
    model, _ = piece_model(p)
    order = tuple(model.piece_index(n) for n in korf_cube_order(model))
    cols = columns(model, order)  # from a stabiliser chain
    ex = explore(model, 8_000_000, p.num_actions)
    assert ex.complete and ex.locs.shape[0] == 3_674_160
    locs = ex.locs[:, model.piece_atom].astype(np.int64)
    homes = np.array([model.piece_home(q) for q in order])
    placed = np.ones(locs.shape[0], dtype=bool)
    for k, q in enumerate(order):
        seen = set(np.unique(locs[placed, q]).tolist()) - {int(homes[k])}
        assert seen == set(cols[k]), k
        placed &= locs[:, q] == homes[k]


def test_cube_order_gives_the_papers_238_entries():
    """Korf's 3x3x3 table has 238 macros. The count depends only on which pieces come last:
    with the last layer's edges placed before its corners, parity rules out the last two corners'
    swap (3 entries) and twist the last corner's two (2), the last edge's flip 1: 244 - 6."""
    for name in ("cube3-htm", "cube3"):
        model, _ = piece_model(registry.get_puzzle(name))
        order = korf_cube_order(model)
        assert order[-4:] == ("DFR", "DLF", "DBL", "DRB")  # corners last
        cols = columns(model, tuple(model.piece_index(n) for n in order))
        assert sum(map(len, cols)) == 238
    # the same pieces with the last layer's edges placed last: 239
    swapped = order[:12] + order[16:] + order[12:16]
    cols = columns(model, tuple(model.piece_index(n) for n in swapped))
    assert sum(map(len, cols)) == 239


# ----------------------------------------------------------------------------- solving
@pytest.mark.parametrize("name,goal,max_states", [
    ("puzzle8", "korf1982", None), ("puzzle8", "blank-first", None),
    ("puzzle15", None, 300_000), ("cube2", None, 200_000), ("cube3", None, SMALL),
    ("cube3-htm", None, SMALL),
])
def test_macro_solver_solves_random_states(name, goal, max_states):
    p = registry.get_puzzle(name, goal=goal)
    states = p.random_states(25, np.random.default_rng(3))
    lengths = _solve_all(p, states, max_states)
    assert (lengths > 0).all()


def test_short_searches_chain_macros_and_every_macro_checks_out():
    p = registry.get_puzzle("cube3-htm")
    t = learn(p, max_states=SMALL)
    assert "chain" in t.how.values() and t.depth == 5
    assert t.count == sum(len(c) for c in t.columns)
    found = [len(m) for key, m in t.entries.items() if t.how[key] == "search"]
    assert max(found) <= 2 * t.depth  # a meeting in the middle of two 5-move searches


def test_macro_solver_refuses_heuristics_puzzles_and_other_orbits():
    p = registry.get_puzzle("puzzle8")
    solver = MacroSolver()
    with pytest.raises(InputError, match="solver macro uses no heuristic"):
        solver.solve(p, registry.get_heuristic("manhattan", p), p.goal())
    lights = registry.get_puzzle("lightsout7")
    with pytest.raises(InputError, match="solver macro: applies to"):
        solver.solve(lights, registry.get_heuristic("zero", lights), lights.goal())


# ----------------------------------------------------------------------------- the cache
def test_table_is_cached_and_a_damaged_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    p = registry.get_puzzle("puzzle8", goal="korf1982")
    first = get_table(p)
    assert first.path is not None and first.path.is_file()
    again = get_table(p)
    assert again.entries == first.entries and again.order == first.order
    from pdb_builders.store import load_packed

    offset = load_packed(first.path).data.offset
    data = bytearray(first.path.read_bytes())
    data[offset + 3] ^= 0x01  # one move of one macro
    first.path.write_bytes(bytes(data))
    with pytest.raises(InputError, match="checksum"):
        get_table(p)
    # a table learned for another solution order is another file, never this one
    other = ("B", "2", "1", "3", "8", "7", "4", "5", "6")
    assert get_table(p, order=other).path != first.path


# ----------------------------------------------------------------------------- command line
def test_bench_macro_show_and_its_errors(capsys):
    from bench.cli import main

    main(["macro", "show", "puzzle8", "--goal", "korf1982"])
    out = capsys.readouterr().out
    assert "35 macros, longest 14 moves" in out and "DLURRDLU" in out
    for args, text in [(["macro", "show", "lightsout7"], "macro tables exist for"),
                       (["macro", "show", "puzzle8", "--max-states", "5"], "--max-states: must be"),
                       (["solve", "puzzle8", "--solver", "macro", "--heuristic", "manhattan",
                         "1,2,3,4,5,6,7,8,0"], "solver macro uses no heuristic")]:
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert text in err and err.count("\n") == 1


def test_bench_solve_with_the_macro_solver(capsys):
    from bench.cli import main

    main(["solve", "puzzle8", "--goal", "korf1982", "--solver", "macro", "8,7,6,5,4,3,1,2,0"])
    out = capsys.readouterr().out
    assert "macro with zero: solved" in out


def test_paper_korf1982_table(tmp_path, monkeypatch):
    from bench import papers
    from bench.papers import korf1982

    monkeypatch.setattr(korf1982, "KORF1982_ROWS", [("puzzle8", "korf1982", True)])
    text = papers.make("korf1982", out=tmp_path, count=300)
    assert "Korf (1982) Table 2" in text
    table = (tmp_path / "korf1982" / "table.csv").read_text()
    assert "puzzle8 (korf1982)" in table
    import pandas as pd

    df = pd.read_csv(tmp_path / "korf1982" / "table.csv")
    row = df.iloc[0]
    assert row["macro solver (paper)"] == 39 and row["optimal (paper)"] == 22
    assert 30 < row["macro solver (ours)"] < 50 and 18 < row["optimal (ours)"] < 25
    with pytest.raises(InputError, match="--limit: korf1982 solves random states"):
        papers.make("korf1982", out=tmp_path, limit=3)


@pytest.mark.nojit
def test_pairing_kernel_against_a_naive_loop():
    """``pair_groups`` against every pair of every group, on random small data."""
    from solvers._macro_kernels import INF, pair_groups

    rng = np.random.default_rng(9)
    n, n_loc, n_atoms = 60, 7, 7
    occupant = np.stack([rng.permutation(n_atoms) for _ in range(n)]).astype(np.uint8)
    depth = np.sort(rng.integers(0, 5, size=n)).astype(np.int64)  # breadth-first order
    gid = rng.integers(0, 6, size=n)
    piece_loc = rng.integers(0, n_loc, size=n).astype(np.int64)
    home = rng.permutation(n_loc).astype(np.int64)
    skip = 3
    order = np.argsort(gid, kind="stable")
    gstart = np.concatenate([[0], np.flatnonzero(np.diff(gid[order])) + 1, [n]]).astype(np.int64)
    best = np.full(n_loc, INF, dtype=np.int64)
    ba = np.full(n_loc, -1, dtype=np.int64)
    bb = np.full(n_loc, -1, dtype=np.int64)
    pair_groups(order, gstart, piece_loc, depth, occupant, home, np.int64(skip), best, ba, bb)
    naive = np.full(n_loc, INF, dtype=np.int64)
    for a in range(n):
        for b in range(n):
            if gid[a] != gid[b] or (gid == gid[a]).sum() < 2:
                continue
            j = home[occupant[b, piece_loc[a]]]
            if j != skip:
                naive[j] = min(naive[j], depth[a] + depth[b])
    assert best.tolist() == naive.tolist()
    for j in np.flatnonzero(best < INF):  # the recorded pair gives the recorded length
        a, b = ba[j], bb[j]
        assert gid[a] == gid[b] and depth[a] + depth[b] == best[j]
        assert home[occupant[b, piece_loc[a]]] == j


def test_a_row_names_its_table_without_the_machines_path(tmp_path, monkeypatch):
    """The row's ``macro_table`` is the table's path as committed records name it
    (``cache/...``), never the cache folder of the machine that solved."""
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    p = registry.get_puzzle("puzzle8", goal="korf1982")
    start = p.random_states(1, np.random.default_rng(8))[0] if hasattr(p, "random_states") \
        else p.scramble(20, np.random.default_rng(8))
    r = MacroSolver().solve(p, registry.get_heuristic("zero", p), start, Limits())
    name = r.extra["macro_table"]
    assert name.startswith("cache/macros/") and str(tmp_path) not in name
