"""Macro-operator tables (Korf 1982, 1985): learning, checking, caching.

The pieces of a puzzle (``puzzles.pieces``) are placed one at a time in a fixed *solution order*.
Entry ``(i, j)`` of the table is a move sequence that takes the ``i``-th piece of the order from
location ``j`` (its place and, for cubies, its orientation) to its home while every earlier piece
ends where it started (later ones may be disturbed). Solving is one table lookup per stage.

Learning, as the paper does it, from the goal:

1. **Search.** A breadth-first search from the goal keeps every state within ``D`` moves
   (``max_states`` bounds their number). Two states ``a`` and ``b`` whose first ``i`` pieces
   stand on the same locations (on tiles, with the blank, which is the first piece) give the
   sequence "``b``, then ``a`` undone": it leaves the first ``i`` pieces in place and takes the
   piece found where ``a`` put piece ``i`` home. Grouping the states by the locations of the first
   ``i`` pieces finds, per entry, the shortest such sequence of at most ``2 D`` moves (a
   bidirectional search that meets in the middle, as in the paper). When the search reaches
   every state (8-puzzle, 2x2x2 cube) every entry is a shortest macro.
2. **Composition.** An entry still empty is filled by chaining macros of its own row (and their
   inverses), each of which fixes the earlier pieces: a shortest chain by Bellman-Ford over the
   piece's locations, then cancelling moves that undo each other.

Which columns a row has is computed independently: on the cubes the orbits of a stabiliser
chain of the move group (Schreier-Sims, ``sympy``) with the order's reference stickers as base;
on sliding tiles every free cell while three or more pieces remain (with the blank home the tiles
move by even permutations), none for the last two. A table missing a column is an error, and
every macro is replayed on the location map before it is stored.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle
from puzzles.npuzzle import NPuzzle
from puzzles.pieces import PieceModel, piece_model

BUILDER_VERSION = 1
#: states kept by the search from the goal, per puzzle (what fits in a few GiB here)
MAX_STATES: dict[str, int] = {
    "puzzle8": 200_000, "puzzle15": 2_000_000, "cube2": 8_000_000, "cube2-htm": 8_000_000,
    "cube3": 9_500_000, "cube3-htm": 8_500_000,
}
#: the paper's solution order for the 8-puzzle on its goal layout (tile names, B = blank)
KORF1982_ORDER = ("B", "1", "2", "3", "8", "7", "4", "5", "6")


# ----------------------------------------------------------------------------- solution orders
def peel_order(width: int, goal: np.ndarray) -> tuple[str, ...]:
    """A sliding-tile order: the blank, then rows and columns peeled from the corner opposite
    the blank's home (a row, then a column, alternately), so the unsolved region stays a
    rectangle that holds the blank's home and shrinks towards it; the last 2x2 goes row by row.
    """
    n = width * width
    blank = int(np.flatnonzero(goal == 0)[0])
    br, bc = divmod(blank, width)
    rows = list(range(width)) if br >= width // 2 else list(range(width))[::-1]
    cols = list(range(width)) if bc >= width // 2 else list(range(width))[::-1]
    cells: list[int] = []
    r0, c0 = 0, 0  # rows[:r0] and cols[:c0] are done
    while width - r0 > 2 or width - c0 > 2:
        if width - r0 >= width - c0:
            cells += [rows[r0] * width + c for c in cols[c0:]]
            r0 += 1
        else:
            cells += [r * width + cols[c0] for r in rows[r0:]]
            c0 += 1
    cells += [r * width + c for r in rows[r0:] for c in cols[c0:]]
    order = ["B"] + [str(int(goal[c])) for c in cells if goal[c] != 0]
    assert len(order) == n
    return tuple(order)


def korf_cube_order(model: PieceModel) -> tuple[str, ...]:
    """The paper's rule for the cube: next the piece that keeps the most faces usable (faces
    whose turns move no placed piece; at the start: the piece moved by the fewest faces), ties to
    the piece that shares the most faces with the placed ones (this grows an edge into a 2x2x2
    block, a 2x2x3 block, two layers), then edges before corners, then the naming order. In the
    last layer, where no face is left usable, its edges come before its corners: that is the
    order under which the table has the paper's 238 macros (corners last leave 241 - 3 entries
    that parity and twist rule out; edges last 241 - 2, i.e. 239)."""
    assert model.dest is not None
    n_actions = model.dest.shape[0]
    moved_by: list[set[int]] = []  # faces (as sets of actions) moving each piece
    faces: dict[tuple[int, ...], int] = {}
    def moved(a: int) -> tuple[int, ...]:
        assert model.dest is not None
        return tuple(int(x) for x in np.flatnonzero(model.dest[a] != np.arange(model.n_locations)))

    for a in range(n_actions):
        faces.setdefault(moved(a), len(faces))
    face_of = [faces[moved(a)] for a in range(n_actions)]
    for p in range(len(model.piece_names)):
        h = model.piece_home(p)
        moved_by.append({face_of[a] for a in range(n_actions) if model.dest[a][h] != h})
    n_faces = len(faces)
    placed: list[int] = []
    used: set[int] = set()
    left = list(range(len(model.piece_names)))
    def score(p: int, used: set[int]) -> tuple[int, int, int, int]:
        free = n_faces - len(used | moved_by[p])
        shared = sum(len(moved_by[p] & moved_by[q]) for q in placed)
        if free == 0:  # the last layer: edges (two stickers) before corners (three)
            return (0, -len(model.piece_names[p]), shared, -p)
        return (free, shared, -len(moved_by[p]), -p)

    while left:
        best = max(left, key=lambda p: score(p, used))
        placed.append(best)
        used |= moved_by[best]
        left.remove(best)
    return tuple(model.piece_names[p] for p in placed)


def default_order(puzzle: Puzzle, model: PieceModel) -> tuple[str, ...]:
    """The solution order used unless another is given (docs/solvers/table-driven.md gives the reasons)."""
    if model.group:
        return korf_cube_order(model)
    if (puzzle.layout or "") == "korf1982":
        return KORF1982_ORDER
    return peel_order(puzzle.width if isinstance(puzzle, NPuzzle) else 0, puzzle.goal())


def check_order(model: PieceModel, order: tuple[str, ...]) -> tuple[int, ...]:
    idx = tuple(model.piece_index(n) for n in order)
    if sorted(idx) != list(range(len(model.piece_names))):
        missing = [n for n in model.piece_names if n not in order]
        raise InputError(f"order: must name every piece of {model.puzzle} once "
                         f"(missing: {' '.join(missing) or 'none'}; repeated: "
                         f"{' '.join(sorted({n for n in order if order.count(n) > 1})) or 'none'})")
    if not model.group and idx[0] != 0:
        raise InputError("order: the blank (B) comes first on sliding tiles")
    return idx


# ----------------------------------------------------------------------------- columns
def columns(model: PieceModel, order: tuple[int, ...]) -> list[list[int]]:
    """Per row, the locations (other than home) its piece can be on once the earlier pieces
    are home (see the module text)."""
    homes = [model.piece_home(p) for p in order]
    out: list[list[int]] = []
    if not model.group:
        n = model.n_locations
        for k in range(len(order)):
            left = len(order) - k
            if k == 0:
                out.append([c for c in range(n) if c != homes[0]])
            elif left >= 3:
                out.append(sorted(set(range(n)) - set(homes[:k + 1])))
            else:
                out.append([])
        return out
    from sympy.combinatorics import Permutation, PermutationGroup
    from sympy.combinatorics.perm_groups import _orbit
    from sympy.combinatorics.util import _distribute_gens_by_base

    assert model.dest is not None
    group = PermutationGroup([Permutation([int(x) for x in d]) for d in model.dest])
    base, strong = group.schreier_sims_incremental(base=list(homes))
    per_level = _distribute_gens_by_base(base, strong)
    for k, h in enumerate(homes):
        if k < len(base):
            if base[k] != h:
                raise RuntimeError("the stabiliser chain reordered the base")
            orbit = _orbit(model.n_locations, per_level[k], h)
        else:  # the earlier pieces fix everything left
            orbit = [h]
        out.append(sorted(int(x) for x in orbit if x != h))
    return out


# ----------------------------------------------------------------------------- search
@dataclass
class Explored:
    """The states within ``depth[-1]`` moves of the goal, in breadth-first order."""

    locs: np.ndarray  #: (n, atoms) uint8 atom locations
    parent: np.ndarray  #: (n,) int64, -1 for the goal
    move: np.ndarray  #: (n,) int16, -1 for the goal
    depth: np.ndarray  #: (n,) int16
    complete: bool  #: every reachable state was found

    def path(self, i: int) -> list[int]:
        """The moves from the goal to state ``i``."""
        out = []
        while self.parent[i] >= 0:
            out.append(int(self.move[i]))
            i = int(self.parent[i])
        return out[::-1]


def _keys(locs: np.ndarray, piece_atom: np.ndarray, bits: int) -> np.ndarray:
    """A 64-bit key per row: exact when the pieces' locations fit in 64 bits, a hash otherwise
    (two of ten million states share a hash with probability about 3e-6; that could only make a
    macro longer, never wrong: every macro is replayed)."""
    cols = locs[:, piece_atom].astype(np.uint64)
    if bits * piece_atom.size <= 64:
        key = np.zeros(locs.shape[0], dtype=np.uint64)
        for i in range(cols.shape[1]):
            key |= cols[:, i] << np.uint64(bits * i)
        return key
    rng = np.random.default_rng(20251)
    mult = np.asarray(rng.integers(1, 2**63, size=cols.shape[1], dtype=np.uint64)) * np.uint64(2) \
        + np.uint64(1)
    with np.errstate(over="ignore"):
        key = np.zeros(locs.shape[0], dtype=np.uint64)
        for i in range(cols.shape[1]):
            key = key * np.uint64(0x9E3779B97F4A7C15) + cols[:, i] * mult[i]
    return key


def explore(model: PieceModel, max_states: int, n_actions: int) -> Explored:
    """Breadth-first search from the goal, stopping before a layer that would take the number of
    states past ``max_states`` (estimated from the growth of the last layer)."""
    bits = max(1, int(model.n_locations - 1).bit_length())
    goal = model.home[None, :].astype(np.uint8)
    layers = [goal]
    parents = [np.array([-1], dtype=np.int64)]
    moves = [np.array([-1], dtype=np.int16)]
    keys = [np.sort(_keys(goal, model.piece_atom, bits))]
    total, offset, complete = 1, 0, False
    while True:
        front = layers[-1]
        if front.shape[0] == 0:
            complete = True
            layers.pop(), parents.pop(), moves.pop(), keys.pop()
            break
        prev = layers[-2].shape[0] if len(layers) > 1 else 1
        growth = max(front.shape[0] / prev, 1.0) if len(layers) > 1 else n_actions
        if total + front.shape[0] * growth > max_states:
            break
        kids, par, mv = [], [], []
        for a in range(n_actions):
            child, ok = model.apply(front, a)
            idx = np.flatnonzero(ok)
            kids.append(child[idx])
            par.append(offset + idx)
            mv.append(np.full(idx.size, a, dtype=np.int16))
        child = np.concatenate(kids)
        parent = np.concatenate(par)
        move = np.concatenate(mv)
        ck = _keys(child, model.piece_atom, bits)
        ck, first = np.unique(ck, return_index=True)
        fresh = np.ones(ck.size, dtype=bool)
        for old in keys[-2:]:
            pos = np.searchsorted(old, ck).clip(0, max(old.size - 1, 0))
            if old.size:
                fresh &= old[pos] != ck
        first = np.sort(first[fresh])
        offset += front.shape[0]
        layers.append(child[first])
        parents.append(parent[first])
        moves.append(move[first])
        keys.append(np.sort(ck[fresh]))
        total += first.size
    depth = np.concatenate([np.full(x.shape[0], d, dtype=np.int16) for d, x in enumerate(layers)])
    return Explored(np.concatenate(layers), np.concatenate(parents), np.concatenate(moves), depth,
                    complete)


# ----------------------------------------------------------------------------- the table
@dataclass
class MacroTable:
    """A learned table: ``entries[(row, location)] = moves``; ``how`` says search or chain."""

    puzzle: str
    goal: str
    order: tuple[str, ...]
    columns: list[list[int]]
    entries: dict[tuple[int, int], list[int]]
    how: dict[tuple[int, int], str]
    model: PieceModel
    depth: int  #: the search's depth
    complete: bool  #: the search reached every state (every macro is a shortest one)
    build_seconds: float = 0.0
    path: Path | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.entries)

    @property
    def nbytes(self) -> int:
        """Bytes the table holds: one per move, plus its row, column and length per macro."""
        return sum(len(m) for m in self.entries.values()) + 24 * len(self.entries)

    @property
    def longest(self) -> int:
        return max((len(m) for m in self.entries.values()), default=0)

    def lookup(self, row: int, location: int) -> list[int] | None:
        return self.entries.get((row, location))


def _invert(moves: list[int], inverse: np.ndarray) -> list[int]:
    return [int(inverse[a]) for a in reversed(moves)]


def check_macro(model: PieceModel, order: tuple[int, ...], row: int, location: int,
                moves: list[int]) -> bool:
    """Whether ``moves`` leaves the pieces before ``row`` home and takes the row's piece from
    ``location`` home (on tiles the blank's row walks the blank home from ``location``; the
    other rows start and end with the blank home)."""
    homes = [model.piece_home(p) for p in order]
    if row == 0 and not model.group:
        locs = model.home[None, :].astype(np.int64).copy()
        other = int(np.flatnonzero(locs[0] == location)[0])
        locs[0, other], locs[0, 0] = locs[0, 0], location
        for a in moves:
            locs, ok = model.apply(locs, int(a))
            if not ok[0]:
                return False
        return bool(locs[0, 0] == homes[0])
    try:
        sigma = model.moved_by(moves)
    except ValueError:
        return False
    return all(sigma[h] == h for h in homes[:row]) and sigma[location] == homes[row]


def learn(puzzle: Puzzle, order: tuple[str, ...] | None = None,
          max_states: int | None = None, strict: bool = True) -> MacroTable:
    """Learn the macro table of ``puzzle`` (see the module text); ``strict=False`` returns a
    table with empty entries instead of refusing it (to study what a search reaches)."""
    from solvers._macro_kernels import INF, pair_groups

    t0 = time.perf_counter()
    model, _ = piece_model(puzzle)
    order = order or default_order(puzzle, model)
    idx = check_order(model, tuple(order))
    cols = columns(model, idx)
    budget = int(max_states or MAX_STATES.get(puzzle.name, 2_000_000))
    ex = explore(model, budget, puzzle.num_actions)
    n = ex.locs.shape[0]
    inverse = model.inverse
    assert inverse is not None
    occupant = np.zeros((n, model.n_locations), dtype=np.uint8)
    atom_ids = np.arange(model.n_atoms, dtype=np.uint8)[None, :]
    for lo in range(0, n, 1 << 18):
        part = ex.locs[lo:lo + (1 << 18)]
        occupant[lo:lo + part.shape[0]][np.arange(part.shape[0])[:, None], part] = atom_ids
    depth = ex.depth.astype(np.int64)
    home = model.home.astype(np.int64)
    entries: dict[tuple[int, int], list[int]] = {}
    how: dict[tuple[int, int], str] = {}
    products = _products(model)
    gid = np.zeros(n, dtype=np.int64)
    for k, piece in enumerate(idx):
        ref = int(model.piece_atom[piece])
        h = model.piece_home(piece)
        loc = ex.locs[:, ref].astype(np.int64)
        best = np.full(model.n_locations, INF, dtype=np.int64)
        ba = np.full(model.n_locations, -1, dtype=np.int64)
        bb = np.full(model.n_locations, -1, dtype=np.int64)
        if k == 0 and not model.group:
            # the blank's row: the shortest walk of the blank from each cell home (b = goal);
            # states are in breadth-first order, so the first with the blank on a cell is nearest
            cells, first = np.unique(loc, return_index=True)
            best[cells], ba[cells], bb[cells] = depth[first], first, 0
        elif cols[k]:
            order_idx = np.argsort(gid, kind="stable")  # breadth-first order: by depth in a group
            g_sorted = gid[order_idx]
            gstart = np.concatenate([[0], np.flatnonzero(np.diff(g_sorted)) + 1, [n]])
            pair_groups(order_idx, gstart.astype(np.int64), loc, depth, occupant, home,
                        np.int64(h), best, ba, bb)
        for j in cols[k]:
            if best[j] >= INF:
                continue
            if k == 0 and not model.group:
                m = _invert(ex.path(int(ba[j])), inverse)
            else:
                m = simplify(ex.path(int(bb[j])) + _invert(ex.path(int(ba[j])), inverse), inverse,
                             products)
            if not check_macro(model, idx, k, j, m):
                raise RuntimeError(f"macro ({order[k]}, {model.location_names[j]}) fails its check")
            entries[(k, j)] = m
            how[(k, j)] = "search"
        _compose_row(model, idx, k, cols[k], entries, how, inverse, products)
        missing = [model.location_names[j] for j in cols[k] if (k, j) not in entries]
        if missing and strict:
            raise InputError(f"macro table of {puzzle.name}: piece {order[k]} has no macro for "
                             f"{', '.join(missing)} (a search of {budget:,} states reached depth "
                             f"{int(depth.max())}; give more states)")
        # the next row groups states by the locations of one more piece
        key = gid * model.n_locations + loc
        _, gid = np.unique(key, return_inverse=True)
        gid = gid.astype(np.int64)
    goal = str(puzzle.layout or "")
    return MacroTable(puzzle.name, goal, tuple(order), cols, entries, how, model,
                      int(depth.max()), ex.complete, time.perf_counter() - t0)


def _products(model: PieceModel) -> np.ndarray | None:
    """``(A, A)``: the single move equal to move ``a`` then move ``b``, -2 for no move at all,
    -1 when no single move does it (group puzzles; None for tiles)."""
    if not model.group:
        return None
    assert model.dest is not None
    d = model.dest.astype(np.int64)
    ident = np.arange(model.n_locations)
    out = np.full((d.shape[0], d.shape[0]), -1, dtype=np.int64)
    for a in range(d.shape[0]):
        for b in range(d.shape[0]):
            both = d[b][d[a]]
            if (both == ident).all():
                out[a, b] = -2
            else:
                same = np.flatnonzero((d == both[None, :]).all(axis=1))
                if same.size:
                    out[a, b] = same[0]
    return out


def simplify(moves: list[int], inverse: np.ndarray, products: np.ndarray | None) -> list[int]:
    """``moves`` with neighbours that undo each other removed and, on the cubes, neighbours that
    make one move merged (``U U`` -> ``U2`` in the half-turn metric)."""
    out: list[int] = []
    for a in moves:
        a = int(a)
        while out:
            c = int(products[out[-1], a]) if products is not None else \
                (-2 if inverse[out[-1]] == a else -1)
            if c == -1:
                break
            out.pop()
            if c == -2:
                a = -1
                break
            a = c
        if a >= 0:
            out.append(a)
    return out


def _compose_row(model: PieceModel, order: tuple[int, ...], k: int, cols: list[int],
                 entries: dict[tuple[int, int], list[int]], how: dict[tuple[int, int], str],
                 inverse: np.ndarray, products: np.ndarray | None, reach: int = 2) -> None:
    """Fill the row's empty columns with shortest chains of known macros.

    The macros of rows ``k - r .. k`` (and their inverses) all leave the pieces before row
    ``k - r`` home; a shortest chain (Dijkstra over the locations of pieces ``k - r .. k``) that
    takes those pieces home from "row ``k``'s piece on ``j``, the others home" is a macro for
    ``(k, j)``. ``r`` grows from 0 to ``reach`` while columns stay empty.
    """
    import heapq

    if k == 0 and not model.group:
        return
    homes = [model.piece_home(p) for p in order]
    for r in range(0, min(reach, k - (0 if model.group else 1)) + 1):
        todo = [j for j in cols if (k, j) not in entries]
        if not todo:
            return
        tracked = list(range(k - r, k + 1))
        gens: list[tuple[list[int], np.ndarray]] = []
        for (row, _), m in sorted(entries.items()):
            if k - r <= row <= k:
                for seq in (m, _invert(m, inverse)):
                    gens.append((seq, model.moved_by(seq)))
        if not gens:
            continue
        goal = tuple(homes[i] for i in tracked)
        # Dijkstra backwards from the goal tuple over the inverse maps
        inv_maps = []
        for _, sigma in gens:
            inv = np.full(model.n_locations, -1, dtype=np.int64)
            ok = sigma >= 0
            inv[sigma[ok]] = np.flatnonzero(ok)
            inv_maps.append(inv)
        dist = {goal: 0}
        via: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
        heap = [(0, goal)]
        wanted = {tuple(homes[i] for i in tracked[:-1]) + (j,) for j in todo}
        while heap and wanted:
            d, y = heapq.heappop(heap)
            if d > dist[y]:
                continue
            wanted.discard(y)
            for gi, inv in enumerate(inv_maps):
                x = tuple(int(inv[v]) for v in y)
                nd = d + len(gens[gi][0])
                if min(x) >= 0 and nd < dist.get(x, math.inf):
                    dist[x] = nd
                    via[x] = (gi, y)
                    heapq.heappush(heap, (nd, x))
        for j in todo:
            x = tuple(homes[i] for i in tracked[:-1]) + (j,)
            if x not in dist:
                continue
            chain: list[int] = []
            while x != goal:
                gi, x = via[x]
                chain += gens[gi][0]
            m = simplify(chain, inverse, products)
            if not check_macro(model, order, k, j, m):
                raise RuntimeError(f"composed macro for row {k} fails its check")
            entries[(k, j)] = m
            how[(k, j)] = "chain"


# ----------------------------------------------------------------------------- cache
def _attrs(puzzle: Puzzle, order: tuple[str, ...], max_states: int) -> dict[str, Any]:
    return {"kind": "macro-table", "puzzle": puzzle.name, "goal": str(puzzle.layout or ""),
            "order": " ".join(order), "max_states": int(max_states),
            "builder_version": BUILDER_VERSION}


def table_path(puzzle: Puzzle, order: tuple[str, ...], max_states: int) -> Path:
    from core.paths import cache_dir

    tag = hashlib.blake2b(" ".join(order).encode(), digest_size=4).hexdigest()
    goal = (puzzle.layout or "")
    name = f"{puzzle.name}{'-' + goal if goal else ''}-{tag}-{max_states}.h5"
    return cache_dir() / "macros" / name


def save(table: MacroTable, path: Path, max_states: int, puzzle: Puzzle) -> Path:
    from pdb_builders.store import save_table

    flat: list[int] = []
    index = []
    for (k, j), m in sorted(table.entries.items()):
        index.append([k, j, len(flat), len(m), table.how[(k, j)]])
        flat += m
    attrs = {**_attrs(puzzle, table.order, max_states), "entries_json": json.dumps(index),
             "search_depth": table.depth, "complete_search": bool(table.complete)}
    return save_table(path, np.asarray(flat, dtype=np.uint8), attrs, pack=False,
                      build_seconds=table.build_seconds)


def load(path: Path, puzzle: Puzzle, order: tuple[str, ...], max_states: int) -> MacroTable:
    """A stored table, after the store's checks (attributes, size, checksum); each macro is
    replayed again (a table that fails is refused)."""
    from pdb_builders.store import DatabaseError, load_table, read_attrs

    expected = _attrs(puzzle, order, max_states)
    moves = np.asarray(load_table(path, expected))
    attrs = read_attrs(path)
    model, _ = piece_model(puzzle)
    idx = check_order(model, order)
    entries, how = {}, {}
    for k, j, off, length, kind in json.loads(str(attrs["entries_json"])):
        m = [int(a) for a in moves[off:off + length]]
        if not check_macro(model, idx, k, j, m):
            raise DatabaseError(f"{path}: macro ({order[k]}, {j}) does not do what it should")
        entries[(int(k), int(j))] = m
        how[(int(k), int(j))] = str(kind)
    return MacroTable(puzzle.name, str(attrs.get("goal", "")), order, columns(model, idx), entries,
                      how, model, int(attrs["search_depth"]), bool(attrs["complete_search"]),
                      float(attrs.get("build_seconds", 0.0)), path)


def get_table(puzzle: Puzzle, order: tuple[str, ...] | None = None,
              max_states: int | None = None, rebuild: bool = False) -> MacroTable:
    """The macro table of ``puzzle``, learned on first use and cached (HDF5 with a checksum)."""
    from pdb_builders.store import build_lock

    model, _ = piece_model(puzzle)
    order = tuple(order or default_order(puzzle, model))
    check_order(model, order)
    budget = int(max_states or MAX_STATES.get(puzzle.name, 2_000_000))
    path = table_path(puzzle, order, budget)
    with build_lock(path):
        if path.exists() and not rebuild:
            return load(path, puzzle, order, budget)
        import sys

        print(f"learning the macro table of {puzzle.name} (a search of up to {budget:,} states "
              f"from the goal) into {path}", file=sys.stderr, flush=True)
        table = learn(puzzle, order, budget)
        save(table, path, budget, puzzle)
        table.path = path
        return table
