"""IDA* kernel for the cube family (``cube3``, ``cube3-htm``, ``cube2``, ``cube2-htm``).

The search runs in cubie coordinates with move tables (:mod:`pdb_builders.korf_cube`): a node is
``(corner positions, corner twists, edge set A, edge set B)`` plus the indices of the two edge
pattern databases when these are not sets A and B themselves. A child costs one table lookup
per coordinate part; its heuristic is the max of the corner table and the two edge tables, each
read from its 4-bit packed form, and evaluated lazily: the corner table first, an edge set's move
and table only while no earlier table has cut the child off. In the quarter-turn metric every
solution's length has the parity of the corner permutation (a quarter turn is a 4-cycle of
corners), so cost bounds of the other parity are skipped.

Move pruning, which never loses an optimal path (every pruned sequence has an unpruned one of
the same length reaching the same state):

* half-turn metric: never turn the same face twice in a row;
* quarter-turn metric: ``X X`` (a half turn) is allowed, but not ``X X'``, ``X' X``, ``X' X'``
  (same as ``X X``) nor a third turn of the same face;
* opposite faces commute: after ``D`` never ``U``, after ``L`` never ``R``, after ``B`` never ``F``.

A node's children are generated together (:func:`_expand`): the corner table is read for all
of them in one pass, the edge tables in later passes for the survivors, so the cache misses of
siblings overlap (about 1.4x faster than evaluating child by child). ``nodes_generated`` counts
every child of an expanded node after move pruning, the ones the cost bound then cuts off
included; on the iteration that finds the solution, the siblings after the solution's move at
each depth of its path (generated in the batch, but never by a child-by-child search that stops
at the solution) are subtracted, so the count equals that of ``ref_ida15.c``'s search order.

The depth-first search is iterative with its stack in arrays, so the kernel returns to Python
every ``CHUNK`` generated nodes and resumes where it stopped; Python checks the node limit and the
deadline in between (a node limit may be overshot by one expansion). Counts run over all
iterations up to the first solution; ``nodes_expanded`` counts the nodes whose children were
generated.

With ``threads`` > 1 each large iteration is cut at a frontier whose subtrees several threads
search (:mod:`solvers._ida_cube_parallel`): the kernel then starts at a subtree root, a node at
some depth after the path that reached it, which the move pruning reads. ``order=previous``
(the solver's option) takes those subtrees most nodes in the previous iteration first, and
splits a one-thread search too (:mod:`solvers._ida_parallel`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from heuristics.base import IdaSpec
from heuristics.cube_lookup import corner_value, korf_value
from heuristics.pdb_cube import KorfTables
from pdb_builders.cube_tables import nibble
from puzzles.base import Puzzle
from puzzles.permutations import parity
from solvers._ida_engine import EXP, GEN, INF, ITER_DONE, NEXT, PAUSED, SOLVED, drive

#: nodes generated between returns to Python (about 60 ms of CPU at 4-5 million nodes/s, so a
#: deadline is noticed well within a second even on a loaded machine)
CHUNK = 1 << 18
#: deepest path the stack holds (God's number is 20 htm / 26 qtm)
MAX_DEPTH = 64

_INF = 1 << 30
# slots of ``cur``: depth, cost bound, whether the root still has to be expanded, the root's depth
_D, _BOUND, _FRESH, _ROOT = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _allowed(a: int, d: int, path: np.ndarray, face: np.ndarray, cw: np.ndarray, qtm: bool) -> bool:
    if d == 0:
        return True
    last = path[d - 1]
    f = face[a]
    lf = face[last]
    if f == lf:
        if not qtm:
            return False
        # only X X with both turns clockwise, and never a third turn of the face
        if not (cw[a] and cw[last]):
            return False
        if d >= 2 and face[path[d - 2]] == f:
            return False
        return True
    # opposite faces (f, f + 3) commute: only the order U..D, R..L, F..B
    return f + 3 != lf


@njit(cache=True)
def _expand(d: int, bound: int, path: np.ndarray, st: np.ndarray, kids: np.ndarray,
            fval: np.ndarray, face: np.ndarray, cw: np.ndarray, qtm: bool,
            cpm: np.ndarray, twm: np.ndarray, em: np.ndarray, kf: int,
            cpart: int, nt: int, ctab: np.ndarray,
            m1: np.ndarray, k1: int, tab1: np.ndarray, m2: np.ndarray, k2: int, tab2: np.ndarray,
            same: bool) -> tuple[int, int]:
    """Generate every child of the node at depth ``d``; returns ``(children, least f > bound)``.

    ``kids[d, a]`` gets the child's coordinates and ``fval[d, a]`` its ``f`` (``_INF`` for a
    pruned move). The tables are read in passes over all children, the corner table first and
    an edge table only for children no earlier table cut off, so the memory reads of siblings
    overlap instead of waiting on each other.
    """
    num_moves = cpm.shape[1]
    maskf = (1 << kf) - 1
    mask1 = (1 << k1) - 1
    mask2 = (1 << k2) - 1
    g = d + 1
    p0 = st[d, 0]
    p1 = st[d, 1]
    generated = 0
    nextb = _INF
    for a in range(num_moves):
        if not _allowed(a, d, path, face, cw, qtm):
            fval[d, a] = _INF
            continue
        generated += 1
        cp = cpm[p0, a]
        tw = twm[p1, a]
        kids[d, a, 0] = cp
        kids[d, a, 1] = tw
        fval[d, a] = g + corner_value(cp, tw, cpart, nt, ctab)
    # first edge table for the survivors
    ea0 = st[d, 2]
    eb0 = st[d, 3]
    for a in range(num_moves):
        f = fval[d, a]
        if f > bound:
            continue
        if same:
            e1 = em[ea0 >> kf, a] ^ (ea0 & maskf)
        else:
            e1 = m1[st[d, 4] >> k1, a] ^ (st[d, 4] & mask1)
        kids[d, a, 4] = e1
        h = g + nibble(tab1, e1)
        if h > f:
            fval[d, a] = h
    # second edge table, then the full-state edge coordinates of the children kept
    for a in range(num_moves):
        f = fval[d, a]
        if f > bound:
            if f < nextb:
                nextb = f
            continue
        if same:
            e2 = em[eb0 >> kf, a] ^ (eb0 & maskf)
        else:
            e2 = m2[st[d, 5] >> k2, a] ^ (st[d, 5] & mask2)
        kids[d, a, 5] = e2
        h = g + nibble(tab2, e2)
        if h > bound:
            fval[d, a] = h
            if h < nextb:
                nextb = h
            continue
        if same:
            kids[d, a, 2] = kids[d, a, 4]
            kids[d, a, 3] = e2
        else:
            kids[d, a, 2] = em[ea0 >> kf, a] ^ (ea0 & maskf)
            kids[d, a, 3] = em[eb0 >> kf, a] ^ (eb0 & maskf)
    return generated, nextb


@njit(cache=True, nogil=True)
def _run(ctl: np.ndarray, cur: np.ndarray, path: np.ndarray, nxt: np.ndarray, st: np.ndarray,
         kids: np.ndarray, fval: np.ndarray, budget: int,
         face: np.ndarray, cw: np.ndarray, qtm: bool,
         cpm: np.ndarray, twm: np.ndarray, em: np.ndarray, kf: int, goal_a: int, goal_b: int,
         cpart: int, nt: int, ctab: np.ndarray,
         m1: np.ndarray, k1: int, tab1: np.ndarray, m2: np.ndarray, k2: int, tab2: np.ndarray,
         same: bool) -> int:
    """Resume the depth-first iteration stored in ``cur, path, nxt, st, kids, fval``.

    ``st (MAX_DEPTH + 1, 6)``: per depth the node's ``cp, tw, eA, eB, e1, e2``;
    ``kids (MAX_DEPTH + 1, A, 6)`` and ``fval (MAX_DEPTH + 1, A)`` its generated children;
    ``path (MAX_DEPTH,)`` actions; ``nxt (MAX_DEPTH + 1,)`` the next child to visit. The
    iteration's root is ``st[r]``, ``r = cur[_ROOT]`` (0, or the depth of a parallel search's
    subtree root, reached by the actions ``path[:r]``, which the move pruning reads). With
    ``cur[_FRESH]`` set the root is expanded first; ``ctl`` holds the driver's counters.
    Returns SOLVED (``cur[_D]`` is the path length), ITER_DONE or PAUSED.
    """
    num_moves = cpm.shape[1]
    d = cur[_D]
    bound = cur[_BOUND]
    root = cur[_ROOT]
    nextb = ctl[NEXT]
    gen = ctl[GEN]
    exp = ctl[EXP]
    stop = gen + budget
    if cur[_FRESH]:
        cur[_FRESH] = 0
        n, nb = _expand(root, bound, path, st, kids, fval, face, cw, qtm, cpm, twm, em, kf,
                        cpart, nt, ctab, m1, k1, tab1, m2, k2, tab2, same)
        gen += n
        if nb < nextb:
            nextb = nb
    status = ITER_DONE
    while d >= root:
        a = nxt[d]
        if a >= num_moves:
            d -= 1
            continue
        if fval[d, a] > bound:
            nxt[d] = a + 1
            continue
        if gen >= stop:
            status = PAUSED
            break
        nxt[d] = a + 1
        path[d] = a
        if (kids[d, a, 0] == 0 and kids[d, a, 1] == 0 and kids[d, a, 2] == goal_a
                and kids[d, a, 3] == goal_b):
            d += 1
            status = SOLVED
            break
        if d + 1 >= path.shape[0]:
            continue
        for j in range(6):
            st[d + 1, j] = kids[d, a, j]
        d += 1
        nxt[d] = 0
        exp += 1
        n, nb = _expand(d, bound, path, st, kids, fval, face, cw, qtm, cpm, twm, em, kf,
                        cpart, nt, ctab, m1, k1, tab1, m2, k2, tab2, same)
        gen += n
        if nb < nextb:
            nextb = nb
    cur[_D] = d
    ctl[NEXT] = nextb
    ctl[GEN] = gen
    ctl[EXP] = exp
    return status


def _kernel_args(puzzle: Puzzle, spec: IdaSpec) -> tuple[Any, ...]:
    """The kernel's arguments after ``budget``, read by name from ``spec.tables`` (a
    :class:`heuristics.pdb_cube.KorfTables`) and the puzzle's moves in ``spec.params``."""
    t = spec.tables
    if type(t) is not KorfTables:
        raise TypeError(f"cube IDA*: the {spec.kind} search reads KorfTables, got "
                        f"{type(t).__name__}")
    p = spec.params
    face = np.asarray(p["faces"], dtype=np.int64)
    cw = np.asarray(p["clockwise"], dtype=np.bool_)
    if face.shape[0] != puzzle.num_actions or t.cpm.shape[1] != puzzle.num_actions:
        raise ValueError(f"cube IDA* spec has {t.cpm.shape[1]} actions, {puzzle.name} has "
                         f"{puzzle.num_actions}")
    return (face, cw, bool(p["metric"] == "qtm"), t.cpm, t.twm, t.em, int(t.k_full),
            int(t.goal_a), int(t.goal_b), int(t.corner_part), int(t.nt), t.ctab,
            t.m1, int(t.k1), t.tab1, t.m2, int(t.k2), t.tab2, bool(t.same))


def coordinates(puzzle: Puzzle, spec: IdaSpec, states: np.ndarray) -> np.ndarray:
    """``(B, L)`` facelet states -> ``(B, 6)`` int64 ``cp, tw, eA, eB, e1, e2``."""
    from pdb_builders import cube_tables as K
    from pdb_builders import korf_cube as kc

    p = spec.params
    parts = puzzle.to_cubies(np.atleast_2d(states))  # type: ignore[attr-defined]
    cp, co = (np.ascontiguousarray(x, dtype=np.int64) for x in parts[:2])
    out = np.zeros((cp.shape[0], 6), dtype=np.int64)
    out[:, :2] = K.corner_coords(cp, co, kc.CUBE2_RELABEL if p["cube2"] else kc.CUBE3_RELABEL)
    if not p["cube2"]:
        ep, eo = (np.ascontiguousarray(x, dtype=np.int64) for x in parts[2:])
        for col, edges in ((2, kc.KORF_EDGES[0]), (3, kc.KORF_EDGES[1]), (4, p["edges1"]),
                           (5, p["edges2"])):
            out[:, col] = K.edge_coords(ep, eo, np.asarray(edges, dtype=np.int64))
    return out


class CubeFamilySearch:
    """What the cube kernels' searches share: the :class:`solvers._ida_engine.Search` protocol
    around a resumable kernel whose stack lives in arrays (``path, nxt, st, kids, fval`` and,
    for a kernel that keeps each node's inverse, ``ist, ikids``).

    A search starts from its start state or, after :meth:`reset`, from a subtree root of a
    parallel search: a node reached from the start by ``prefix``, whose iterations count ``g``
    from the start and prune its first moves after the prefix's last ones, as the one-thread
    search does. A subclass sets ``args`` (the kernel's arguments after ``budget``), ``h_root``
    and calls :meth:`_setup`; it calls its kernel in :meth:`run` and its expansion in
    :meth:`_expand_at`.
    """

    args: tuple[Any, ...]
    h_root: int
    #: action slots per depth: ``sides * A`` (a two-sided kernel's path holds ``side * A + a``)
    sides = 1

    def _setup(self, puzzle: Puzzle, start: np.ndarray, node: np.ndarray, inode: np.ndarray,
               goal_a: int, goal_b: int, qtm: bool) -> None:
        self.node, self.inode = node, inode  # the root's coordinates and inverse (or none)
        self.prefix: tuple[int, ...] = ()
        self.goal_a, self.goal_b = goal_a, goal_b
        self.goal = self._is_goal_row(node)
        self.parity: int | None = None
        if qtm:
            # a quarter turn is a 4-cycle of corners: solution lengths have the permutation's parity
            cperm = puzzle.to_cubies(np.asarray(start)[None, :])[0][0]  # type: ignore[attr-defined]
            self.parity = parity(np.asarray(cperm, dtype=np.int64))
        self.num_actions = puzzle.num_actions
        self._allocate()

    def _allocate(self) -> None:
        """Fresh stack arrays (and counters) for this search."""
        w, iw, na = self.node.shape[0], self.inode.shape[0], self.num_actions * self.sides
        self.path = np.zeros(MAX_DEPTH, dtype=np.int64)
        self.nxt = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
        self.st = np.zeros((MAX_DEPTH + 1, w), dtype=np.int64)
        self.kids = np.zeros((MAX_DEPTH + 1, na, w), dtype=np.int64)
        self.fval = np.zeros((MAX_DEPTH + 1, na), dtype=np.int64)
        self.ist = np.zeros((MAX_DEPTH + 1, iw), dtype=np.int64)
        self.ikids = np.zeros((MAX_DEPTH + 1, na, iw), dtype=np.int64)
        self.cur = np.zeros(4, dtype=np.int64)
        self.ctl = np.zeros(3, dtype=np.int64)

    def spawn(self) -> CubeFamilySearch:
        """Another search from the same start over the same tables, with its own stack."""
        other = copy.copy(self)
        other._allocate()
        return other

    def reset(self, prefix: tuple[int, ...], node: np.ndarray, inode: np.ndarray) -> None:
        """Make ``node`` (coordinates, inverse) reached by ``prefix`` the iterations' root."""
        if len(prefix) >= MAX_DEPTH:
            raise ValueError("cube IDA*: subtree root deeper than the stack")
        self.prefix, self.node, self.inode = prefix, node, inode

    def is_goal(self) -> bool:
        return self.goal

    def _is_goal_row(self, row: np.ndarray) -> bool:
        """Whether a node's coordinates (a row of ``st`` or ``kids``) are the goal's."""
        return bool(row[0] == 0 and row[1] == 0 and row[2] == self.goal_a
                    and row[3] == self.goal_b)

    def actions(self, slots: list[int]) -> list[int]:
        """The actions from the start of a path of the kernel's slots (here the actions)."""
        return [int(a) for a in slots]

    def _with_parity(self, bound: int) -> int:
        if self.parity is not None and (bound - self.parity) % 2:
            return bound + 1  # quarter turns: every solution has the corner permutation's parity
        return bound

    def first_bound(self) -> int:
        return self._with_parity(self.h_root)

    def next_bound(self, least_f: int) -> int:
        return self._with_parity(least_f)

    def begin(self, bound: int) -> None:
        r = len(self.prefix)
        self.path[:r] = self.prefix
        self.st[r] = self.node
        self.ist[r] = self.inode
        self.nxt[r] = 0
        self.cur[:] = (r, bound, 1, r)

    def run(self, budget: int) -> int:
        raise NotImplementedError

    def _expand_at(self, d: int, bound: int) -> tuple[int, int]:
        """Generate the children of the node ``st[d], ist[d]`` after ``path[:d]`` (the
        kernel's expansion); returns ``(children, least f > bound)``."""
        raise NotImplementedError

    def children(self, prefix: tuple[int, ...], node: np.ndarray, inode: np.ndarray,
                 bound: int) -> tuple[int, int, list[tuple[int, np.ndarray, np.ndarray, bool]]]:
        """Expand ``node`` (reached by ``prefix``) as the kernel does under ``bound``: the
        children generated, their least ``f`` above the bound (``solvers._ida_engine.INF``:
        none) and, in action order, each child within the bound as ``(action, coordinates,
        inverse, is goal)`` (a two-sided kernel's actions are its slots, ``prefix`` too)."""
        d = len(prefix)
        self.path[:d] = prefix
        self.st[d] = node
        self.ist[d] = inode
        n, least = self._expand_at(d, bound)
        kept = []
        for a in range(self.num_actions * self.sides):
            if self.fval[d, a] <= bound:
                kid = self.kids[d, a]
                kept.append((a, kid.copy(), self.ikids[d, a].copy(), self._is_goal_row(kid)))
        return int(n), int(least) if least < _INF else INF, kept

    def solution(self) -> list[int]:
        return self.actions([int(a) for a in self.path[: int(self.cur[_D])]])

    def generated_at_solution(self) -> int:
        return int(self.ctl[GEN]) - _unvisited_siblings(self.path, self.fval, int(self.cur[_D]))


class CubeSearch(CubeFamilySearch):
    """One cube IDA* search under Korf's databases."""

    def __init__(self, puzzle: Puzzle, spec: IdaSpec, start: np.ndarray) -> None:
        self.args = _kernel_args(puzzle, spec)
        root = coordinates(puzzle, spec, start)[0]
        cp, tw, ea, eb, e1, e2 = (int(x) for x in root)
        t = spec.tables
        self.h_root = int(korf_value(cp, tw, e1, e2, t.corner_part, t.nt, t.ctab, t.tab1, t.tab2))
        # the expansion's arguments: the kernel's without the goal's edge coordinates
        self.expand_args = self.args[:7] + self.args[9:]
        self._setup(puzzle, start, root, np.zeros(0, dtype=np.int64), t.goal_a, t.goal_b,
                    spec.params["metric"] == "qtm")

    def run(self, budget: int) -> int:
        return int(_run(self.ctl, self.cur, self.path, self.nxt, self.st, self.kids, self.fval,
                        budget, *self.args))

    def _expand_at(self, d: int, bound: int) -> tuple[int, int]:
        return _expand(d, bound, self.path, self.st, self.kids, self.fval,  # type: ignore[no-any-return]
                       *self.expand_args)


def search(puzzle: Puzzle, spec: IdaSpec, start: np.ndarray, max_nodes: int | None,
           deadline_s: float | None, threads: int = 1, order: str = "actions") -> dict[str, Any]:
    """IDA* from ``start (L,)``; see :mod:`solvers.ida` for the contract. ``threads`` > 1
    searches each iteration's subtrees in parallel (:mod:`solvers._ida_cube_parallel`), in
    ``order`` (:func:`search_with`)."""
    return search_with(CubeSearch(puzzle, spec, start), max_nodes, deadline_s, threads, order)


def search_with(root: CubeFamilySearch, max_nodes: int | None, deadline_s: float | None,
                threads: int, order: str = "actions") -> dict[str, Any]:
    """Run ``root``'s search in one thread or, with ``threads`` > 1, several. With
    ``order=previous`` the split iterations' subtrees are taken most nodes in the previous
    iteration first (:mod:`solvers._ida_parallel`), with one thread too; ``actions`` with one
    thread is the plain depth-first search."""
    if (threads > 1 or order != "actions") and not root.is_goal():
        from solvers._ida_cube_parallel import search_parallel

        return search_parallel(root, threads, max_nodes, deadline_s, CHUNK, MAX_DEPTH, order)
    return drive(root, max_nodes, deadline_s, CHUNK, MAX_DEPTH)


def _unvisited_siblings(path: np.ndarray, fval: np.ndarray, length: int) -> int:
    """Children generated in a batch but after the solution's move at each depth of its path.

    A node's children are generated together, but a one-child-at-a-time depth-first search
    (``ref_ida15.c``) stops at the solution and never generates the siblings that follow the
    solution's move at each depth; they are subtracted so that ``nodes_generated`` counts the
    same nodes. Pruned moves are marked ``_INF`` in ``fval (MAX_DEPTH + 1, A)``.
    """
    return sum(int(np.count_nonzero(fval[k, int(path[k]) + 1:] < _INF)) for k in range(length))


def warm_with(puzzle: Puzzle, spec: IdaSpec, search_fn: Callable[..., Any]) -> None:
    """Compile a cube kernel by solving a state two moves from the goal with ``search_fn`` (the
    kernel module's ``search``), and map every page of the (memory-mapped) tables, so that the
    next search pays neither."""
    from solvers.memory import touch_pages

    touch_pages(spec.arrays)
    goal = puzzle.goal()
    near = puzzle.apply(puzzle.apply(goal[None, :], np.array([0])), np.array([puzzle.num_actions - 1]))
    search_fn(puzzle, spec, near[0], 10_000, time.monotonic() + 600.0)


def warmup(puzzle: Puzzle, spec: IdaSpec) -> None:
    """Compile the kernel and map the tables' pages (:func:`warm_with`)."""
    warm_with(puzzle, spec, search)


@njit(cache=True)
def _ball(depth: int, root: np.ndarray, face: np.ndarray, cw: np.ndarray, qtm: bool,
          cpm: np.ndarray, twm: np.ndarray, em: np.ndarray, kf: int, goal_a: int, goal_b: int,
          cpart: int, nt: int, ctab: np.ndarray,
          m1: np.ndarray, k1: int, tab1: np.ndarray, m2: np.ndarray, k2: int, tab2: np.ndarray,
          same: bool) -> np.ndarray:
    """Walk every move-pruned sequence of at most ``depth`` moves from ``root (6,)``.

    Returns ``(3,)`` int64: nodes visited, nodes with ``h > g`` (moves so far), and the
    largest ``h`` seen.
    """
    num_moves = cpm.shape[1]
    path = np.zeros(depth + 1, dtype=np.int64)
    nxt = np.zeros(depth + 1, dtype=np.int64)
    st = np.zeros((depth + 1, 6), dtype=np.int64)
    st[0] = root
    out = np.zeros(3, dtype=np.int64)
    out[0] = 1
    d = 0
    mask1 = (1 << k1) - 1
    mask2 = (1 << k2) - 1
    maskf = (1 << kf) - 1
    while d >= 0:
        a = nxt[d]
        if a >= num_moves or d == depth:
            d -= 1
            continue
        nxt[d] = a + 1
        if not _allowed(a, d, path, face, cw, qtm):
            continue
        path[d] = a
        cp = cpm[st[d, 0], a]
        tw = twm[st[d, 1], a]
        ea = em[st[d, 2] >> kf, a] ^ (st[d, 2] & maskf)
        eb = em[st[d, 3] >> kf, a] ^ (st[d, 3] & maskf)
        if same:
            e1 = ea
            e2 = eb
        else:
            e1 = m1[st[d, 4] >> k1, a] ^ (st[d, 4] & mask1)
            e2 = m2[st[d, 5] >> k2, a] ^ (st[d, 5] & mask2)
        h = korf_value(cp, tw, e1, e2, cpart, nt, ctab, tab1, tab2)
        out[0] += 1
        if h > d + 1:
            out[1] += 1
        if h > out[2]:
            out[2] = h
        d += 1
        st[d, 0] = cp
        st[d, 1] = tw
        st[d, 2] = ea
        st[d, 3] = eb
        st[d, 4] = e1
        st[d, 5] = e2
        nxt[d] = 0
    return out


def ball_check(puzzle: Puzzle, spec: IdaSpec, depth: int) -> dict[str, int]:
    """Check the heuristic against every state within ``depth`` moves of the goal.

    Every state at distance ``d <= depth`` is reached by some move-pruned sequence of exactly
    ``d`` moves (pruning keeps an optimal path to every state), so ``violations == 0`` means
    ``h(s) <= d(s)`` on the whole ball. Returns ``nodes``, ``violations`` and ``max_h``.
    """
    args = _kernel_args(puzzle, spec)
    root = coordinates(puzzle, spec, puzzle.goal())[0]
    out = _ball(int(depth), root, *args)
    return {"nodes": int(out[0]), "violations": int(out[1]), "max_h": int(out[2])}
