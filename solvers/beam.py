"""Beam search: per depth, keep the W distinct states with the lowest heuristic value.

Layer ``t`` holds at most ``width`` states. Its children are generated in one batch (parent
order, then action order), tested for the goal (the search stops at the first goal child in
that order), and filtered: a child is dropped when it repeats an earlier child of the same layer
or a state of the current layer or of the layer before it (which removes every move that undoes
its parent's move, and two-move cycles). The heuristic is evaluated on the remaining children in
one call (a network sees one big batch), and the ``width`` children of lowest ``h`` form the next
layer; ties are broken by generation order, so the search is deterministic. With ``width=1`` the
beam is a greedy rollout that always takes the child of least ``h`` among those that do not
return to the last two states.

With a policy (a guide that ranks moves, :class:`core.capabilities.Policy`: a move-prediction
network, :mod:`heuristics.policy_net`; beam search is a :class:`core.capabilities.PolicySolver`)
the beam keeps the ``width`` *paths* of highest
cumulative log-probability instead: the policy is evaluated once on each layer (one network
evaluation per expanded state, not per child), a child's score is its parent's score plus the
log-probability of its move, a child reached twice in a layer keeps its best score (ties: the
first in generation order), the same repeats as above are dropped, and the ``width`` children of
highest score form the next layer (ties in generation order). ``h_start`` is then null.

With a Q-network (``q=True``, the ``qbeam`` entry: a heuristic giving values for every move of a
state, :class:`core.capabilities.QValues`) each layer is evaluated once, before its children are
generated (one network evaluation per expanded state, none per child), and a child's value is
its parent's ``Q(parent, a)``; a child reached twice in a layer keeps its least value (ties: the
first generated), the same repeats as above are dropped, and the ``width`` children of least
value form the next layer. A layer's states are all expanded together, so when a goal child is
found every state of that layer counts as expanded, and ``extra.evaluations`` equals
``nodes_expanded``.

Duplicates are found by a 64-bit hash of the whole state (:func:`solvers._bf_kernels.hash_rows`).
A collision can only drop a child that should have been kept; it cannot produce a wrong path, and
every returned path is replayed.

Goal table (``goal_depth`` D > 0, "meet in the middle"): every state within D moves of the goal
is enumerated once per process by breadth-first search (:mod:`solvers.goal_table`); when a
layer's children include such states, the search ends with the child closest to the goal (first
in generation order on ties) followed by a shortest path from it, so the last D moves of a
solution are optimal and the beam needs D fewer layers. Building the table counts as load time.
On the quarter-turn cube, D = 6 holds 983,926 states (8.4 MiB) and builds in about half a second.

With a goal table on a puzzle with ``positional_moves`` (the cubes), the path found is then
shortened: every stretch whose net effect lies within D moves of the identity is replaced by a
shortest sequence with the same effect (``GoalTable.shorten``; ``extra.shortened_by`` counts the
moves saved; ``shorten=False`` turns it off).

Unlike the best-first engine, a beam forgets: it is not complete. A beam that runs empty (every
child was a repeat) ends with the status ``beam-empty``, one that reaches ``max_depth`` layers
with ``depth-limit``; neither claims that the state is unsolvable. Limits (time, nodes, memory)
are checked once per layer and before each heuristic call.

Inverse (``inverse=True``, puzzles with an inverse position, :class:`core.capabilities.Invertible`:
the cubes): a position and its
inverse lie at the same distance from the goal, and a path that solves the inverse, reversed with
each move inverted, solves the position (``puzzle.inverse_states``, ``puzzle.inverse_path``). The
beam then runs twice at the same width, on the state and on its inverse, and returns the shorter
path (the forward one on ties) mapped to the state. The work per state is doubled (two full-width
searches); the limits bound both searches together (the inverse search gets what the forward one
left), and the counts are those of both. ``extra.forward_length`` and ``extra.inverse_length``
give each search's length (null when it did not solve), ``extra.from_inverse`` whether the path
returned came from the inverse, ``extra.inverse_beam_sizes`` the inverse search's layers.

Distinct moves (``distinct_moves=True``, puzzles whose moves commute and undo themselves:
Lights Out): a child is dropped when its move was already made on its parent's path, so every
path the beam holds makes each move at most once and the search ends after ``num_actions``
layers at most. A policy's log-probabilities are normalised over all the puzzle's legal moves,
distinct or not, so the share a policy gives to moves the path has already made (on Lights Out,
cells it would press again: a sign that the path pressed a wrong one) is lost from the path's
score. A path's net effect is the set of moves it makes an odd number of times; one
that repeats no move is therefore a shortest path with its effect (on Lights Out 7x7, whose
press matrix is invertible over GF(2), the shortest solution).

Pairs (puzzles whose moves commute and undo themselves, with or without distinct moves): a path
found is reduced to the moves it makes an odd number of times, which has the same effect
(``extra.shortened_by`` counts the moves removed). Without distinct moves a path may make a move
again, which undoes an earlier one; the reduced path is then the shortest with its effect as
above (on Lights Out 7x7: every solution found becomes the optimum). With distinct moves a tail
from the goal table may repeat a move of the beam's path; such pairs are cancelled likewise.

Window shortening (``improve_window`` L > 0): the path returned (after the goal table's
shortening and the choice between forward and inverse) is shortened by exact meet-in-the-middle
searches over its windows of up to L moves (:mod:`solvers.window_shorten`), within the time
limit left. ``extra.unimproved_length`` is the length before, ``extra.window`` what the
shortening did (moves ``saved``, ``balls`` built and their ``ball_states``, ``seconds``,
``stopped``); the balls' states are not counted as generated nodes.

Counts in the result: ``nodes_generated`` children generated (legal moves, up to the goal child
in generation order in the last layer), ``nodes_expanded`` states whose children were generated
(every state of every layer before the goal), ``iterations`` layers, ``extra.evaluations``
states the heuristic was evaluated on, ``extra.width``, ``extra.beam_sizes`` (states per layer,
run-length encoded as ``[size, count]`` pairs).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from core import registry
from core.capabilities import Invertible, Policy, QValues
from core.errors import InputError
from core.limits import Limits
from core.registry import beam_width
from core.status import Status
from heuristics.base import Guide, Heuristic, checked_values
from puzzles.base import Puzzle
from solvers.base import (
    GoalTest,
    Solver,
    SolveResult,
    check_q_heuristic,
    finish,
    require_heuristic,
)
from solvers.goal_table import GoalTable, goal_table, member, state_hashes
from solvers.memory import PeakMemory, touch_pages
from solvers.window_shorten import check_window, improve, warm


def _rle(sizes: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for s in sizes:
        if out and out[-1][0] == s:
            out[-1][1] += 1
        else:
            out.append([s, 1])
    return out


def cancel_pairs(path: list[int]) -> list[int]:
    """The moves ``path`` makes an odd number of times, each where it is last made: on a
    puzzle whose moves commute and undo themselves, the same net effect with no move twice."""
    odd = np.zeros(max(path, default=-1) + 1, dtype=bool)
    for m in path:
        odd[m] = not odd[m]
    out: list[int] = []
    for m in reversed(path):
        if odd[m]:
            out.append(m)
            odd[m] = False
    return out[::-1]


def lowest(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` lowest ``values`` in ascending index order, ties broken by index (the
    first ``k`` of a stable sort): a partition finds the k-th value, so no full sort is needed."""
    if k >= values.size:
        return np.arange(values.size)
    kth = np.partition(values, k - 1)[k - 1]
    if np.isnan(kth):  # NaN sorts last; fall back to the sort
        return np.sort(np.argsort(values, kind="stable")[:k])
    below = np.flatnonzero(values < kth)
    ties = np.flatnonzero(values == kth)[: k - below.size]
    return np.sort(np.concatenate([below, ties]))


class BeamSearch(Solver):
    """Beam search (see module docstring). ``width`` None: the puzzle's default width."""

    name = "beam"

    def __init__(self, width: int | None = None, max_depth: int | None = None,
                 goal_depth: int | None = None, shorten: bool | None = None,
                 inverse: bool | None = None, improve_window: int | None = None,
                 distinct_moves: bool | None = None, q: bool = False) -> None:
        self.q = bool(q)
        if self.q:
            self.name = "qbeam"
        # the entry (beam or qbeam) states every option's bounds and default, once
        args = registry.solver_entry(self.name).settings(
            {"width": width, "max_depth": max_depth, "goal_depth": goal_depth, "shorten": shorten,
             "inverse": inverse, "improve_window": improve_window,
             "distinct_moves": distinct_moves}, "solver")
        self.shorten = bool(args["shorten"])
        self.distinct_moves = bool(args["distinct_moves"])
        self.improve_window = int(args["improve_window"])
        self.inverse = bool(args["inverse"])
        self.goal_depth = int(args["goal_depth"])
        self._table: GoalTable | None = None
        self.width: int | None = args["width"]  # None: the puzzle's (core.registry.beam_width)
        self.max_depth = int(args["max_depth"])

    def solve_with_policy(self, puzzle: Puzzle, policy: Guide, start: np.ndarray,
                          limits: Limits | None = None) -> SolveResult:
        """The beam of highest cumulative log-probability of ``policy`` (module docstring)."""
        return self.solve(puzzle, policy, start, limits)

    def solve(self, puzzle: Puzzle, heuristic: Guide, start: np.ndarray,
              limits: Limits | None = None) -> SolveResult:
        """A beam guided by ``heuristic``: a heuristic, a policy, or with ``q`` a Q-network."""
        limits = limits or Limits()
        if self.q:
            check_q_heuristic(self.name, heuristic)
        elif not isinstance(heuristic, Policy):
            require_heuristic(self.name, heuristic)
        if self.inverse and not isinstance(puzzle, Invertible):
            raise InputError(f"--inverse: {puzzle.name} has no inverse position (the cubes have one)")
        if self.distinct_moves and not puzzle.commuting_moves:
            raise InputError(f"--distinct-moves: the moves of {puzzle.name} do not commute "
                             "(Lights Out's do)")
        if self.improve_window:
            check_window(puzzle, self.improve_window)
        width = self.width or beam_width(puzzle.name)
        start = np.asarray(start, dtype=puzzle.dtype)
        if start.shape != (puzzle.state_dim,):
            raise InputError(f"state: expected {puzzle.state_dim} entries, got shape {start.shape}")
        t_load = time.perf_counter()
        state_hashes(start[None, :])  # compile (or load) the hash kernel outside the timed search
        # the first read of a memory-mapped table's pages is loading, not search (time and
        # memory: the tables are loaded_bytes, not the search's peak)
        touch_pages(heuristic.tables if isinstance(heuristic, Heuristic) else ())
        if self.improve_window:
            warm()
        self._table = goal_table(puzzle, self.goal_depth, limits.memory_bytes) \
            if self.goal_depth else None
        h_start = float(checked_values(heuristic, start[None, :])[0]) \
            if isinstance(heuristic, Heuristic) and not isinstance(heuristic, Policy) \
            and not self.q else None
        load_s = time.perf_counter() - t_load
        extra: dict[str, Any] = {"width": width, "max_depth": self.max_depth}
        if self.distinct_moves:
            extra["distinct_moves"] = True
        if self._table is not None:
            extra.update(goal_depth=self.goal_depth, goal_table_bytes=self._table.nbytes,
                         goal_table_build_peak_bytes=self._table.build_peak_bytes)
        c = {"generated": 0, "expanded": 0, "evaluations": 0}
        sizes: list[int] = []
        inv_sizes: list[int] = []
        with PeakMemory(held_bytes=0 if self._table is None else self._table.nbytes) as mem:
            t0 = time.perf_counter()
            status, path, saved = self._run(puzzle, heuristic, start, width, limits, mem, t0, c,
                                            sizes)
            if isinstance(puzzle, Invertible) and self.inverse:
                inv_start = puzzle.inverse_states(start[None, :])[0]
                inv_status, inv_path, inv_saved = self._run(puzzle, heuristic, inv_start, width,
                                                            limits, mem, t0, c, inv_sizes)
                if inv_path is not None:
                    inv_path = puzzle.inverse_path(inv_path)
                extra.update(forward_length=None if path is None else len(path),
                             inverse_length=None if inv_path is None else len(inv_path),
                             inverse_beam_sizes=_rle(inv_sizes))
                use_inv = inv_path is not None and (path is None or len(inv_path) < len(path))
                extra["from_inverse"] = use_inv
                if use_inv:
                    status, path, saved = inv_status, inv_path, inv_saved
            if path and self.improve_window:
                path = improve(puzzle, start, path, self.improve_window, limits, t0, extra)
        if saved:
            extra["shortened_by"] = saved
        extra.update(evaluations=c["evaluations"], beam_sizes=_rle(sizes), depth=len(sizes))
        return finish(puzzle, start, self.name, heuristic.name, status=status, actions=path,
                      generated=c["generated"], expanded=c["expanded"],
                      iterations=len(sizes) + len(inv_sizes),
                      h_start=h_start, time_s=time.perf_counter() - t0, load_s=load_s,
                      peak_rss_bytes=mem.peak_bytes, extra=extra)

    def _run(self, puzzle: Puzzle, heuristic: Guide, start: np.ndarray, width: int,
             limits: Limits, mem: PeakMemory, t0: float, c: dict[str, int],
             sizes: list[int]) -> tuple[Status, list[int] | None, int]:
        """One beam from ``start``, its path shortened through the goal table: ``(status, path,
        moves the shortening saved)``."""
        status, path = self._search(puzzle, heuristic, start, width, limits, mem, t0, c, sizes)
        if not path:
            return status, path, 0
        found = len(path)
        shorteners = [cancel_pairs] if puzzle.commuting_moves else []
        if self._table is not None and self.shorten:
            shorteners.append(self._table.shorten)
        for shorten in shorteners:  # each keeps the shorter of the paths that solve the start
            short = shorten(path)
            if len(short) < len(path) and puzzle.check_solution(start, short):
                path = short
        return status, path, found - len(path)

    def _search(self, puzzle: Puzzle, heuristic: Guide, start: np.ndarray, width: int,
                limits: Limits, mem: PeakMemory, t0: float, c: dict[str, int],
                sizes: list[int]) -> tuple[Status, list[int] | None]:
        parents: list[np.ndarray] = []  # per layer t >= 1: index of each state's parent in layer t-1
        actions: list[np.ndarray] = []

        def path_to(layer: int, index: int) -> list[int]:
            out: list[int] = []
            for t in range(layer, 0, -1):
                out.append(int(actions[t - 1][index]))
                index = int(parents[t - 1][index])
            return out[::-1]

        def over_limit() -> Status | None:
            if limits.time_s is not None and time.perf_counter() - t0 >= limits.time_s:
                return Status.TIMEOUT
            if limits.nodes is not None and c["generated"] >= limits.nodes:
                return Status.NODE_LIMIT
            if limits.memory_bytes is not None and mem.sample() > limits.memory_bytes:
                return Status.OUT_OF_MEMORY
            return None

        goal_test = GoalTest(puzzle, heuristic)
        if bool(goal_test(start[None, :])[0]):
            return Status.SOLVED, goal_test.tail(start)
        table = self._table
        if table is not None:
            near = table.tail(start)
            if near is not None:
                return Status.SOLVED, near
        qnet = heuristic if self.q and isinstance(heuristic, QValues) else None
        policy = heuristic if qnet is None and isinstance(heuristic, Policy) else None
        values = require_heuristic(self.name, heuristic) if qnet is None and policy is None \
            else None
        ranks = policy is not None
        layer = start[None, :]
        layer_score = np.zeros(1)  # a policy's cumulative log-probability of each layer state
        layer_hash = state_hashes(layer)
        prev_hash = np.zeros(0, dtype=np.uint64)
        # distinct moves: per layer state, the moves its path has made
        used = np.zeros((1, puzzle.num_actions), dtype=bool) if self.distinct_moves else None
        sizes.append(1)
        while True:
            stop = over_limit()
            if stop is not None:
                return stop, None
            if len(sizes) > self.max_depth:
                return Status.DEPTH_LIMIT, None
            children, legal = puzzle.expand(layer)
            valid = legal & ~used if used is not None else legal
            b, a, length = children.shape
            qv: np.ndarray | None = None
            if qnet is not None:  # the layer once: the values of all its moves
                qv = np.asarray(qnet.q_values(layer, legal), dtype=np.float64)
                c["evaluations"] += b
            flat_valid = valid.reshape(-1)
            flat = children.reshape(b * a, length)
            goal = goal_test(flat) & flat_valid
            if goal.any():
                g = int(np.flatnonzero(goal)[0])
                c["generated"] += int(flat_valid[: g + 1].sum())
                c["expanded"] += b if qv is not None else g // a + 1
                p, act = divmod(g, a)
                return Status.SOLVED, path_to(len(sizes) - 1, p) + [act] + goal_test.tail(flat[g])
            c["generated"] += int(flat_valid.sum())
            c["expanded"] += b
            idx = np.flatnonzero(flat_valid)
            kids = flat[idx]
            hk = state_hashes(kids)
            if table is not None:
                td = table.lookup(hk)
                for i in np.flatnonzero(td >= 0)[np.argsort(td[td >= 0], kind="stable")]:
                    tail = table.tail(kids[i])
                    if tail is not None:
                        p, act = divmod(int(idx[i]), a)
                        return Status.SOLVED, path_to(len(sizes) - 1, p) + [act] + tail
            if qv is not None:
                score = -qv.reshape(-1)[idx]  # the highest score: the least Q(parent, a)
                order = np.lexsort((np.arange(idx.size), -score, hk))
                head = np.ones(order.size, dtype=bool)
                head[1:] = hk[order][1:] != hk[order][:-1]
                first = np.sort(order[head])
            elif policy is not None:
                stop = over_limit()
                if stop is not None:
                    return stop, None
                # normalised over the puzzle's legal moves, not only the distinct ones: the share a
                # policy gives to moves its path already made is lost from the path's score
                logp = np.asarray(policy.log_probs(layer, legal), dtype=np.float64)
                if np.isnan(logp).any() or (logp == np.inf).any():
                    raise InputError(f"--heuristic: {heuristic.name} gave log-probabilities "
                                     "that are not numbers (NaN or inf)")
                c["evaluations"] += b
                score = (layer_score[:, None] + logp).reshape(-1)[idx]
                # per state its best-scoring occurrence (ties: the first generated)
                order = np.lexsort((np.arange(idx.size), -score, hk))
                head = np.ones(order.size, dtype=bool)
                head[1:] = hk[order][1:] != hk[order][:-1]
                first = np.sort(order[head])
            else:
                # first occurrence of each state in generation order
                _, first = np.unique(hk, return_index=True)
                first.sort()
            # minus the states of the two layers before
            seen = np.concatenate([layer_hash, prev_hash])
            seen.sort()
            keep = first[~member(hk[first], seen)]
            if keep.size == 0:
                return Status.BEAM_EMPTY, None
            if ranks or qv is not None:
                hv = -score[keep]  # the lowest hv: the highest cumulative log-probability
            else:
                stop = over_limit()
                if stop is not None:
                    return stop, None
                assert values is not None  # solve() refused any other guide
                hv = np.asarray(checked_values(values, kids[keep]), dtype=np.float64)
                c["evaluations"] += int(keep.size)
            if keep.size > width:
                keep = keep[lowest(hv, width)]
            src = idx[keep]
            parents.append(src // a)
            actions.append(src % a)
            if used is not None:
                used = used[parents[-1]]
                used[np.arange(src.size), actions[-1]] = True
            prev_hash = layer_hash
            layer = kids[keep]
            layer_hash = hk[keep]
            if ranks:
                layer_score = score[keep]
            sizes.append(int(keep.size))
