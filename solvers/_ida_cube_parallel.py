"""Parallel IDA* for the cube kernels (Korf's databases, ``solvers._ida_cube``, and the coset
heuristic, ``solvers._ida_cube_coset``): their frontier and subtrees for
:func:`solvers._ida_parallel.drive_parallel`.

The frontier expands the tree level by level with the kernel's own expansion
(``CubeFamilySearch.children``): the same move pruning (it reads the path to the node), the same
lazily evaluated heuristic and cut-off ``f`` (with the inverse probe ``near``, the inverse is read
only for children at the bound, as in the depth-first search), and the same counts: every child
after move pruning is generated, every node kept within the bound is expanded. A frontier node
carries its path (actions from the start; for the two-sided kernel,
``solvers._ida_cube_two_sided``, slots that also say which side each move was applied to), its
coordinates and its inverse cubies (empty for Korf's kernel): everything its subtree search
needs to start where a one-thread search would reach it. With ``order=previous`` the frontier
is sorted by the nodes each prefix's subtrees generated in the previous iteration (a two-sided
kernel's prefixes are slots: a node whose side changed with the bound takes its nearest
ancestor's count), and a one-thread search is split too, into one worker.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

import numpy as np

from solvers._ida_engine import Search
from solvers._ida_parallel import Frontier, drive_parallel

#: a frontier node's state: its coordinates and its inverse
Node = tuple[np.ndarray, np.ndarray]
#: an iteration after one that generated fewer nodes runs in one thread (the cube's nodes cost
#: 30-100 times the tiles' Manhattan nodes, so smaller trees pay for splitting than there)
SPLIT_MIN_NODES = 1 << 17
#: frontier nodes per thread a level should reach before it is shared out: fewer than the
#: tiles' (each subtree costs about 30 us of Python under the GIL to start; the bound-14
#: iteration of a vcube16 cube, 2.7 M nodes, cut at 3,240 subtrees spent about 0.09 s of its
#: 0.9 s so, at 243 subtrees 0.01 s), still over a hundred subtrees per thread to balance
NODES_PER_THREAD = 64


class CubeNodeSearch(Search, Protocol):
    """A cube kernel's search as the frontier uses it (``solvers._ida_cube.CubeFamilySearch``)."""

    node: np.ndarray  #: the root's coordinates
    inode: np.ndarray  #: the root's inverse cubies (empty where the kernel keeps none)

    def spawn(self) -> CubeNodeSearch:
        """Another search from the same start over the same tables, with its own stack."""

    def reset(self, prefix: tuple[int, ...], node: np.ndarray, inode: np.ndarray) -> None:
        """Make ``node`` (coordinates, inverse) reached by ``prefix`` the iterations' root."""

    def children(self, prefix: tuple[int, ...], node: np.ndarray, inode: np.ndarray,
                 bound: int) -> tuple[int, int, list[tuple[int, np.ndarray, np.ndarray, bool]]]:
        """The kernel's expansion of ``node`` under ``bound``: children generated, their least
        ``f`` above the bound (``INF``: none), the children kept in action order."""

    def actions(self, slots: list[int]) -> list[int]:
        """The start's actions of a path of the kernel's slots (prefixes and ``children`` speak
        in slots: a two-sided kernel's say which side each move was applied to)."""


def search_parallel(root: CubeNodeSearch, threads: int, max_nodes: int | None,
                    deadline_s: float | None, slice_nodes: int,
                    max_depth: int, order: str = "actions") -> dict[str, Any]:
    """IDA* from ``root``'s start with ``threads`` threads (see :mod:`solvers.ida` for the
    result), the subtrees of a split iteration taken in ``order``
    (:mod:`solvers._ida_parallel`)."""
    expander = root.spawn()

    def frontier(bound: int, split: bool) -> Frontier:
        start: Node = (root.node, root.inode)
        if not split:  # the root is the one subtree (its expansion counted there)
            return Frontier(nodes=[((), start)])
        fr = Frontier(expanded=1)  # the root
        level: list[tuple[tuple[int, ...], Node]] = [((), start)]
        depth = 0
        while level and (depth == 0 or len(level) < NODES_PER_THREAD * threads):
            if depth >= min(bound, max_depth // 2):
                break
            nxt: list[tuple[tuple[int, ...], Node]] = []
            for prefix, (node, inode) in level:
                if depth:
                    fr.expanded += 1
                generated, least, kept = expander.children(prefix, node, inode, bound)
                fr.generated += generated
                fr.least_f = min(fr.least_f, least)
                for a, kid, ikid, goal in kept:
                    if goal:
                        fr.solution = root.actions([*prefix, a])
                        return fr
                    nxt.append(((*prefix, a), (kid, ikid)))
            level = nxt
            depth += 1
        fr.nodes = list(level)
        return fr

    mine: dict[int, CubeNodeSearch] = {}  # one search per thread, reset to each subtree root it takes

    def subtree(prefix: tuple[int, ...], node: Node) -> CubeNodeSearch:
        if prefix == ():
            return root
        srch = mine.get(threading.get_ident())
        if srch is None:
            srch = mine[threading.get_ident()] = root.spawn()
        srch.reset(prefix, *node)
        return srch

    return drive_parallel(frontier, subtree, root.first_bound(), threads, max_nodes,
                          deadline_s, slice_nodes, max_depth, next_bound=root.next_bound,
                          split_min_nodes=SPLIT_MIN_NODES, order=order)
