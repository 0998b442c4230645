"""Numba IDA* kernels for the sliding-tile puzzles (see ``solvers.ida`` for the contract).

The search runs in the blank-first canonical layout (blank-last starts are converted with
``puzzles.npuzzle.convert_layout`` and the solution's moves mirrored back, U<->D, L<->R). The
depth-first search keeps an explicit stack, so it can stop after a budget of generated nodes and
resume exactly where it stopped: the driver (``solvers._ida_engine``) calls it in slices of
``SLICE`` nodes and checks the node limit and the clock between slices (a slice takes well under
a second). Each heuristic kind has its own search class (a :class:`TilesSearch`, registered
in :func:`search_class`) over its own loop, tuned for it (Manhattan evaluates a child before
moving the tile, so children beyond the bound cost no move, and walks precomputed lists of each
cell's moves without the previous move's inverse, see :func:`md_tables`); the additive PDBs'
search is ``solvers._ida_tiles_pdb.AdditivePdbSearch``. A search reads its heuristic's tables
from the typed record ``spec.tables`` by name (``heuristics.manhattan.TileDistanceTables``,
``heuristics.pdb_tiles.AdditivePdbTables``).

Heuristics, all evaluated incrementally per move:

* ``manhattan``: ``h += md[t, old blank cell] - md[t, tile's old cell]`` for the moved tile ``t``
  (one lookup in a table of these differences per tile and move);
* ``linear-conflict``: the same plus the conflicts of the two lines the tile left and entered;
* ``additive-pdb``: only the terms that read the moved tile (one plain, one reflected) or the
  blank (``pdb-full``) are looked up again; the plain and reflected sums are kept apart.

Counting follows ``ref_ida15.c``: a node is generated when a move (never the inverse of the
previous one) is applied, over all iterations, up to the first solution found; a node is
expanded when its children are generated (the root of each iteration and every child within the
bound that is not the goal).
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from heuristics.manhattan import TileDistanceTables
from heuristics.tiles_conflicts import line_conflicts
from puzzles.npuzzle import blank_moves_table
from solvers._ida_engine import U, drive
from solvers._ida_tiles_base import MAX_DEPTH, TilesSearch
from solvers._ida_tiles_pdb import AdditivePdbSearch

#: nodes generated per call of the kernel between clock and node-limit checks (Manhattan runs
#: at ~10^8 nodes/s, the others at ~10^6..10^7)
SLICE = 1 << 22

# status codes of the search kernels (_run_md, _run_lc, _ida_tiles_pdb.run_pdb): the driver's
from solvers._ida_engine import ITER_DONE, PAUSED, SOLVED  # noqa: E402


@njit(cache=True, nogil=True)
def _run_lc(w: int, bound: int, budget_end: int, tiles: np.ndarray, moves: np.ndarray,
            st: np.ndarray, next_a: np.ndarray, path: np.ndarray, hs: np.ndarray,
            md: np.ndarray, lcr: np.ndarray, lcc: np.ndarray) -> int:
    """Resume the depth-first iteration with cost ``bound`` under linear conflicts.

    ``st`` (int64): [0] depth, [1] blank cell, [2] generated, [3] expanded, [4] next bound,
    [5] the depth of the iteration's root (0, or the length of the path prefix ``path[:st[5]]``
    that led a parallel search's subtree root there).
    Per depth ``d``: ``next_a[d]`` the next action to try, ``path[d]`` the action taken from
    depth ``d``, ``hs[d]`` the heuristic, ``lcr/lcc[d]`` the row/column conflicts. ``moves`` is
    ``(n, 4)``, ``md`` ``(n, n)``. Returns PAUSED, ITER_DONE or SOLVED.
    """
    d = st[0]
    blank = st[1]
    gen = st[2]
    exp = st[3]
    nextb = st[4]
    keys = np.empty(w, dtype=np.int64)
    lis = np.empty(w, dtype=np.int64)
    status = ITER_DONE
    while True:
        if gen >= budget_end:
            status = PAUSED
            break
        a = next_a[d]
        if a >= 4:
            if d == st[5]:
                status = ITER_DONE
                break
            d -= 1
            # undo path[d]: the blank goes back to where it came from
            ob = moves[blank, path[d] ^ 1]
            tiles[blank] = tiles[ob]
            tiles[ob] = 0
            blank = ob
            continue
        next_a[d] = a + 1
        if d > 0 and a == (path[d - 1] ^ 1):
            continue
        nb = moves[blank, a]
        if nb < 0:
            continue
        t = tiles[nb]
        ob = blank
        tiles[ob] = t
        tiles[nb] = 0
        blank = nb
        gen += 1
        # heuristic of the child (at depth d + 1): Manhattan delta plus the conflicts of the
        # two lines the tile left and entered
        for i in range(w):
            lcr[d + 1, i] = lcr[d, i]
            lcc[d + 1, i] = lcc[d, i]
        if a < 2:  # vertical move: the tile changed rows
            lcr[d + 1, ob // w] = line_conflicts(tiles, w, ob // w, True, keys, lis)
            lcr[d + 1, nb // w] = line_conflicts(tiles, w, nb // w, True, keys, lis)
        else:
            lcc[d + 1, ob % w] = line_conflicts(tiles, w, ob % w, False, keys, lis)
            lcc[d + 1, nb % w] = line_conflicts(tiles, w, nb % w, False, keys, lis)
        mdsum = hs[d] - 2 * (lcr[d].sum() + lcc[d].sum()) + md[t, ob] - md[t, nb]
        h = mdsum + 2 * (lcr[d + 1].sum() + lcc[d + 1].sum())
        f = d + 1 + h
        if f > bound:
            if f < nextb:
                nextb = f
            tiles[nb] = t
            tiles[ob] = 0
            blank = ob
            continue
        path[d] = a
        d += 1
        if h == 0:
            status = SOLVED
            break
        if d >= path.shape[0] - 1:
            raise RuntimeError("tiles IDA*: search deeper than the stack")
        next_a[d] = 0
        hs[d] = h
        exp += 1
    st[0] = d
    st[1] = blank
    st[2] = gen
    st[3] = exp
    st[4] = nextb
    return status


def md_tables(w: int, md: np.ndarray) -> tuple[np.ndarray, int]:
    """The one table of the Manhattan kernel :func:`_run_md` and the start of its move lists.

    A move ``m = nb * 4 + a`` brings the blank to cell ``nb`` with action ``a``, so the tile
    that was on ``nb`` goes to the cell the blank left. ``tab[(m << sh) + t]`` is the change of
    ``md`` when tile ``t`` makes move ``m`` (``sh`` bits hold a tile). From ``ops0`` on, each
    (blank cell, inverse of the previous action or none) has five slots: its legal moves in
    action order, then -1. A slot packs what the loop needs with constant shifts:
    ``(child's list << 28) | ((m << sh) << 10) | (nb << 2) | a``, the child's list being the
    one for (``nb``, ``a ^ 1``).
    """
    n = w * w
    sh = max(1, (n - 1).bit_length())
    ops0 = (n * 4) << sh
    if n > 256 or ops0 >= 1 << 18:
        raise ValueError(f"tiles IDA*: width {w} is too large for the Manhattan kernel")
    moves = blank_moves_table(w)
    md = np.asarray(md, dtype=np.int64)
    tab = np.zeros(ops0 + n * 25, dtype=np.int64)
    nb, a = np.divmod(np.arange(n * 4), 4)
    left = moves[nb, a ^ 1]  # the cell the blank came from: where the tile goes
    ok = left >= 0
    tiles = np.arange(n)
    rows = (np.flatnonzero(ok) << sh)[:, None] + tiles[None, :]
    tab[rows] = (md[:, left[ok]] - md[:, nb[ok]]).T
    tab[ops0:] = -1
    for b in range(n):
        for back in range(-1, 4):
            k = ops0 + (b * 5 + back + 1) * 5
            for act in range(4):
                c = int(moves[b, act])
                if act != back and c >= 0:
                    child = ops0 + (c * 5 + (act ^ 1) + 1) * 5
                    tab[k] = (child << 28) | (((c * 4 + act) << sh) << 10) | (c << 2) | act
                    k += 1
    return tab, ops0


@njit(cache=True, nogil=True)
def _run_md(ops0: int, bound: int, budget_end: int, tiles: np.ndarray, tab: np.ndarray,
            st: np.ndarray, path: np.ndarray, fr: np.ndarray) -> int:
    """The search kernel for Manhattan distance (the hot loop of the node-rate benchmark);
    ``st`` and the return codes are those of :func:`_run_lc`.

    ``tab`` and ``ops0`` come from :func:`md_tables`. ``fr`` holds two int64 per depth ``d``:
    the position in the node's move list of the next move to try, with the node's blank cell
    above bit 32 (position 0: the list is not started; it is found from the blank and
    ``path[d - 1]``), and the node's heuristic. ``path`` is written on return (the actions from
    the iteration's root to depth ``st[0]``), not per node. Children beyond the bound are
    counted without being applied.
    """
    d = st[0]
    blank = st[1]
    gen = st[2]
    exp = st[3]
    nextb = st[4]
    root = st[5]
    h = fr[U(2 * d + 1)]
    p = fr[U(2 * d)] & 0xFFFFFFFF
    if p == 0:
        back = path[U(d - 1)] ^ 1 if d > 0 else -1
        p = ops0 + (blank * 5 + back + 1) * 5
    lim = bound - d - 1  # a child at depth d + 1 is within the bound when its h <= lim
    status = ITER_DONE
    # no `continue`: every path falls through to the loop's one end, so LLVM keeps one loop
    # (with several back edges it splits off a loop of descents, and each child cut off by the
    # bound then leaves that loop and reloads the counters from the stack: 10% slower)
    while True:
        e = tab[U(p)]
        if e < 0:
            if d == root:
                status = ITER_DONE
                break
            d -= 1
            q = U(2 * d)
            w0 = fr[q]
            ob = w0 >> 32
            t = tiles[U(ob)]
            tiles[U(blank)] = t
            tiles[U(ob)] = 0
            blank = ob
            p = w0 & 0xFFFFFFFF
            h = fr[q + U(1)]
            lim += 1
        else:
            p += 1
            nb = (e >> 2) & 255
            t = tiles[U(nb)]
            nh = h + tab[U(((e >> 10) & 0x3FFFF) + t)]
            gen += 1
            if nh > lim:
                nextb = min(nextb, nh + (bound - lim))
            else:
                tiles[U(blank)] = t
                tiles[U(nb)] = 0
                q = U(2 * d)
                fr[q] = p | (blank << 32)
                fr[q + U(1)] = h
                blank = nb
                d += 1
                lim -= 1
                if nh == 0:
                    status = SOLVED
                    break
                p = e >> 28
                h = nh
                exp += 1
                if gen >= budget_end:
                    fr[U(2 * d)] = p
                    fr[U(2 * d + 1)] = nh
                    status = PAUSED
                    break
    for dd in range(root, d):  # the move taken at dd is the slot before its list position
        path[U(dd)] = tab[U((fr[U(2 * dd)] & 0xFFFFFFFF) - 1)] & 3
    st[0] = d
    st[1] = blank
    st[2] = gen
    st[3] = exp
    st[4] = nextb
    return status


@njit(cache=True)
def _initial_lc(w: int, tiles: np.ndarray, md: np.ndarray, lcr: np.ndarray,
                lcc: np.ndarray) -> int:
    """Fill the depth-0 line conflicts ``lcr[0], lcc[0]`` of the root and return its heuristic
    (Manhattan distance plus twice the conflicts)."""
    n = w * w
    h = 0
    for c in range(n):
        h += md[tiles[c], c]
    keys = np.empty(w, dtype=np.int64)
    lis = np.empty(w, dtype=np.int64)
    for i in range(w):
        lcr[0, i] = line_conflicts(tiles, w, i, True, keys, lis)
        lcc[0, i] = line_conflicts(tiles, w, i, False, keys, lis)
    h += 2 * (lcr[0].sum() + lcc[0].sum())
    return h


class ManhattanSearch(TilesSearch):
    """A tiles IDA* search under Manhattan distance (:func:`_run_md`)."""

    record: ClassVar[type] = TileDistanceTables
    slice_nodes: ClassVar[int] = SLICE
    tables: TileDistanceTables

    def _share(self) -> None:
        self.md_tab, self.md_ops0 = md_tables(self.w, self.tables.md)

    def _allocate(self, depth_cap: int) -> None:
        self.frames = np.zeros(2 * depth_cap, dtype=np.int64)  # see _run_md

    def _root_value(self, root: int) -> int:
        h = int(self.tables.md[self.tiles, np.arange(self.n)].sum())
        self.frames[2 * root + 1] = h
        return h

    def begin(self, bound: int) -> None:
        super().begin(bound)
        self.frames[2 * self.root] = 0

    def _run(self, budget_end: int) -> int:
        return int(_run_md(self.md_ops0, self.bound, budget_end, self.tiles, self.md_tab,
                           self.st, self.path, self.frames))


class LinearConflictSearch(TilesSearch):
    """A tiles IDA* search under linear conflicts (:func:`_run_lc`): the heuristic and the
    conflicts of every row and column per depth."""

    record: ClassVar[type] = TileDistanceTables
    tables: TileDistanceTables

    def _allocate(self, depth_cap: int) -> None:
        self.hs = np.zeros(depth_cap, dtype=np.int64)
        self.lcr = np.zeros((depth_cap, self.w), dtype=np.int64)
        self.lcc = np.zeros((depth_cap, self.w), dtype=np.int64)

    def _root_value(self, root: int) -> int:
        md = self.tables.md
        h = int(_initial_lc(self.w, self.tiles, md, self.lcr, self.lcc))
        self.hs[0] = h
        for a in (self.hs, self.lcr, self.lcc):
            a[root] = a[0]
        return h

    def _run(self, budget_end: int) -> int:
        return int(_run_lc(self.w, self.bound, budget_end, self.tiles, self.moves, self.st,
                           self.next_a, self.path, self.hs, self.tables.md, self.lcr, self.lcc))


#: the search class of each tile heuristic kind (``IdaSpec.kind``): the one place a tile
#: heuristic is registered for IDA* (its class names the record of ``spec.tables`` it reads)
SEARCHES: dict[str, type[TilesSearch]] = {
    "manhattan": ManhattanSearch,
    "linear-conflict": LinearConflictSearch,
    "additive-pdb": AdditivePdbSearch,
}


def search_class(spec: IdaSpec) -> type[TilesSearch]:
    """The search class of ``spec.kind``, from :data:`SEARCHES`."""
    cls = SEARCHES.get(spec.kind)
    if cls is None:
        raise ValueError(f"tiles IDA*: unknown heuristic kind {spec.kind!r}")
    return cls


def search(puzzle: Any, spec: IdaSpec, start: np.ndarray, max_nodes: int | None,
           deadline_s: float | None, threads: int = 1, order: str = "actions") -> dict[str, Any]:
    """IDA* from ``start`` (``(N,)`` uint8) under ``spec``; see ``solvers.ida`` for the contract.
    ``threads`` > 1 searches each iteration's subtrees in parallel (:mod:`solvers._ida_parallel`);
    ``order=previous`` takes a split iteration's subtrees most nodes in the previous iteration
    first, and splits a one-thread search too (``actions`` with one thread: the plain
    depth-first search)."""
    # a tile heuristic's spec names the board (manhattan, linear-conflict, the additive PDBs)
    w = int(spec.params["width"])
    layout = str(spec.params["layout"])
    n = w * w
    s = np.ascontiguousarray(start, dtype=np.uint8).reshape(-1)
    if s.shape != (n,):
        raise ValueError(f"tiles IDA*: start must have shape ({n},), got {s.shape}")
    if layout == "blank-last":
        from puzzles.npuzzle import convert_layout

        s = np.ascontiguousarray(convert_layout(s, w), dtype=np.uint8)
    cls = search_class(spec)
    tiles_search = cls(spec, w, s)
    slice_nodes = cls.slice_nodes
    if (threads > 1 or order != "actions") and not tiles_search.is_goal():
        out = _search_parallel(w, tiles_search, threads, max_nodes, deadline_s, slice_nodes,
                               order)
    else:
        out = drive(tiles_search, max_nodes, deadline_s, slice_nodes, MAX_DEPTH)
    if out["actions"] and layout == "blank-last":
        out["actions"] = [a ^ 1 for a in out["actions"]]  # U<->D, L<->R under the rotation
    return out


def _search_parallel(w: int, root: TilesSearch, threads: int,
                     max_nodes: int | None, deadline_s: float | None,
                     slice_nodes: int, order: str) -> dict[str, Any]:
    """IDA* from ``root``'s start with ``threads`` threads (canonical layout), a split
    iteration's subtrees taken in ``order``."""
    from solvers._ida_parallel import NODES_PER_THREAD, Frontier, drive_parallel

    n = w * w
    moves = root.moves
    goal = np.arange(n, dtype=np.int64)
    evaluator = root.spawn(root.tiles)  # the h of frontier nodes

    def h_of(tiles: np.ndarray) -> int:
        evaluator.reset(tiles)
        return evaluator.first_bound()

    def frontier(bound: int, split: bool) -> Frontier:
        if not split:  # the root is the one subtree (its expansion counted there)
            return Frontier(nodes=[((), root.tiles)])
        fr = Frontier(expanded=1)  # the root
        level: list[tuple[tuple[int, ...], np.ndarray, int, int]] = [
            ((), root.tiles.copy(), root.blank0, root.first_bound())]
        depth = 0
        while level and (depth == 0 or len(level) < NODES_PER_THREAD * threads):
            if depth >= min(bound, MAX_DEPTH // 2):
                break
            nxt = []
            for prefix, tiles, blank, _h in level:
                if depth:
                    fr.expanded += 1
                back = prefix[-1] ^ 1 if prefix else -1
                for a in range(4):
                    nb = int(moves[blank, a])
                    if a == back or nb < 0:
                        continue
                    child = tiles.copy()
                    child[blank] = child[nb]
                    child[nb] = 0
                    fr.generated += 1
                    hc = h_of(child)
                    f = depth + 1 + hc
                    if f > bound:
                        fr.least_f = min(fr.least_f, f)
                        continue
                    if hc == 0 and np.array_equal(child, goal):
                        fr.solution = [*prefix, a]
                        return fr
                    nxt.append(((*prefix, a), child, nb, hc))
            level = nxt
            depth += 1
        fr.nodes = [(prefix, tiles) for prefix, tiles, _b, _h in level]
        return fr

    mine: dict[int, TilesSearch] = {}  # one search per thread, reset to each subtree root it takes

    def subtree(prefix: tuple[int, ...], tiles: np.ndarray) -> TilesSearch:
        if prefix == ():
            return root
        srch = mine.get(threading.get_ident())
        if srch is None:
            srch = mine[threading.get_ident()] = root.spawn(tiles, prefix)
        else:
            srch.reset(tiles, prefix)
        return srch

    return drive_parallel(frontier, subtree, root.first_bound(), threads, max_nodes,
                          deadline_s, slice_nodes, MAX_DEPTH, order=order)


def warmup(puzzle: Any, spec: IdaSpec) -> None:
    """Compile the kernels for this heuristic kind with a search one move from the goal."""
    goal = puzzle.goal()
    a = int(puzzle.legal_actions(goal)[0])
    near = puzzle.apply(goal[None, :], np.array([a]))[0]
    search(puzzle, spec, near, 1000, None)
