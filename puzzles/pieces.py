"""Puzzles as pieces on locations: what the table-driven solvers (macro operators) work on.

A state is described by where its *atoms* are: on sliding tiles an atom is a tile (the blank is
tile 0) and a location is a cell; on the cubes an atom is a sticker and a location is a sticker
position (a cubie's place and its orientation in one number). A *piece* is a tile or a cubie; its
*reference atom* (the tile itself, or the cubie's first sticker: its U/D sticker for corners) says
where the piece is and how it is turned, so a piece is home exactly when its reference atom is.

``locs[i]`` is the location of atom ``i``; the goal puts atom ``i`` on ``home[i]``. A cube move
sends every location to one place whatever the state (``dest[a]``, the cube's moves form a
group); a tile move depends on where the blank is (``blank_moves``), and sequences that start
and end with the blank on one cell act on the tiles like group elements.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.errors import InputError
from puzzles.base import Puzzle

if TYPE_CHECKING:
    from puzzles.cube.base import CubeBase
    from puzzles.npuzzle import NPuzzle


@dataclass(frozen=True)
class PieceModel:
    """The pieces, atoms and move action of one puzzle (see the module text)."""

    puzzle: str
    home: np.ndarray  #: (atoms,) int64: the goal location of each atom
    piece_names: tuple[str, ...]
    piece_atom: np.ndarray  #: (pieces,) int64: the reference atom of each piece
    location_names: tuple[str, ...]  #: a name for every location
    group: bool  #: moves act on locations independently of the state
    dest: np.ndarray | None = None  #: group: (A, locations) uint8: where move a sends each location
    blank_moves: np.ndarray | None = None  #: tiles: (cells, 4) the blank's next cell or -1
    inverse: np.ndarray | None = None  #: (A,) the inverse of each move

    @property
    def n_atoms(self) -> int:
        return int(self.home.shape[0])

    @property
    def n_locations(self) -> int:
        return len(self.location_names)

    def piece_home(self, piece: int) -> int:
        return int(self.home[self.piece_atom[piece]])

    def piece_index(self, name: str) -> int:
        try:
            return self.piece_names.index(name)
        except ValueError:
            raise InputError(f"order: {self.puzzle} has no piece {name!r} (its pieces: "
                             f"{' '.join(self.piece_names)})") from None

    def apply(self, locs: np.ndarray, action: int) -> tuple[np.ndarray, np.ndarray]:
        """Atom locations ``(B, atoms)`` after ``action``, and which rows could take it."""
        if self.group:
            assert self.dest is not None
            out = self.dest[action][locs]
            if out.dtype != locs.dtype:
                out = out.astype(locs.dtype)
            return out, np.ones(locs.shape[0], dtype=bool)
        assert self.blank_moves is not None
        blank = locs[:, 0].astype(np.int64)
        target = self.blank_moves[blank, action]
        valid = target >= 0
        out = locs[valid].copy()
        b, t = blank[valid], target[valid]
        hit = out == t[:, None].astype(out.dtype)
        out[hit] = np.broadcast_to(b[:, None], out.shape)[hit].astype(out.dtype)
        out[:, 0] = t.astype(out.dtype)
        full = locs.copy()
        full[valid] = out
        return full, valid

    def moved_by(self, actions: list[int]) -> np.ndarray:
        """Where the sequence ``actions``, applied to the goal, sends each location: ``(L,)``
        int64, -1 for locations no atom occupies. For tiles the sequence must be legal from the
        goal; the map then holds for every state with the blank where the goal has it."""
        locs = self.home[None, :].astype(np.int64)
        for a in actions:
            locs, ok = self.apply(locs, int(a))
            if not ok[0]:
                raise ValueError(f"{self.puzzle}: move {a} is illegal here")
        out = np.full(self.n_locations, -1, dtype=np.int64)
        out[self.home] = locs[0]
        return out


# ----------------------------------------------------------------------------- tiles
def _tiles_model(puzzle: NPuzzle) -> tuple[PieceModel, object]:
    from puzzles.npuzzle import INVERSE, blank_moves_table

    width = int(puzzle.width)
    goal = puzzle.goal().astype(np.int64)
    n = goal.size
    home = np.argsort(goal)  # home[t] = goal cell of tile t
    names = tuple("B" if t == 0 else str(t) for t in range(n))
    cells = tuple(names[int(goal[c])] for c in range(n))  # a cell is named by its goal tile

    def atoms(state: np.ndarray) -> np.ndarray:
        return np.argsort(np.asarray(state).reshape(-1)).astype(np.int64)

    model = PieceModel(puzzle.name, home.astype(np.int64), names, np.arange(n, dtype=np.int64),
                       cells, False, blank_moves=blank_moves_table(width).astype(np.int64),
                       inverse=INVERSE.copy())
    return model, atoms


# ----------------------------------------------------------------------------- cubes
def _cube_model(puzzle: CubeBase) -> tuple[PieceModel, object]:
    from puzzles.cube.facelets import (
        CORNER_COLORS,
        CORNER_NAMES,
        DBL,
        EDGE_COLORS,
        EDGE_NAMES,
        piece_facelets,
    )
    from puzzles.notation import FACES

    n = int(puzzle.size)
    perms = np.asarray(puzzle.PERMS)
    slots: list[np.ndarray] = []
    colours: list[np.ndarray] = []
    names: list[str] = []
    corners = piece_facelets(n, CORNER_NAMES)
    for c, name in enumerate(CORNER_NAMES):
        if n == 2 and c == DBL:
            continue  # the 2x2x2 keeps this corner fixed: it is not a piece
        slots.append(corners[c])
        colours.append(CORNER_COLORS[c])
        names.append(name)
    if n == 3:
        edges = piece_facelets(n, EDGE_NAMES)
        for e, name in enumerate(EDGE_NAMES):
            slots.append(edges[e])
            colours.append(EDGE_COLORS[e])
            names.append(name)
    stickers = np.concatenate(slots)  # atom i is the sticker whose home is stickers[i]
    atom_of = {int(p): i for i, p in enumerate(stickers)}
    piece_atom = np.array([atom_of[int(s[0])] for s in slots], dtype=np.int64)
    # the colours a slot shows -> the atoms on its stickers, for every piece in every turn
    lookup: dict[tuple[int, ...], np.ndarray] = {}
    for s, col in zip(slots, colours, strict=True):
        k = len(s)
        for r in range(k):
            shown = tuple(int(col[(i + r) % k]) for i in range(k))
            lookup[shown] = np.array([atom_of[int(s[(i + r) % k])] for i in range(k)])
    loc_names = [""] * (6 * n * n)
    for s, name in zip(slots, names, strict=True):
        for i, p in enumerate(s):
            loc_names[int(p)] = f"{name}:{name[i]}"  # the slot and the face of the sticker
    for p in range(6 * n * n):
        loc_names[p] = loc_names[p] or f"{FACES[p // (n * n)]}{p % (n * n) + 1}"
    dest = np.argsort(perms, axis=1).astype(np.uint8)  # child[i] = parent[perm[i]]
    slot_array = [np.asarray(s, dtype=np.int64) for s in slots]

    def atoms(state: np.ndarray) -> np.ndarray:
        st = np.asarray(state).reshape(-1)
        locs = np.empty(stickers.size, dtype=np.int64)
        for s in slot_array:
            key = tuple(int(x) for x in st[s])
            at = lookup.get(key)
            if at is None:
                raise InputError(f"state: the stickers {key} on one slot form no piece of "
                                 f"{puzzle.name}")
            locs[at] = s
        return locs

    model = PieceModel(puzzle.name, stickers.astype(np.int64), tuple(names), piece_atom,
                       tuple(loc_names), True, dest=dest,
                       inverse=np.array([puzzle.inverse_action(a)
                                         for a in range(puzzle.num_actions)], dtype=np.int64))
    return model, atoms


def piece_model(puzzle: Puzzle) -> tuple[PieceModel, object]:
    """``(model, atoms)``: the puzzle's piece model and the function ``state -> (atoms,)`` atom
    locations. Sliding tiles and cubes have one; other puzzles get ``InputError``."""
    from puzzles.cube.base import CubeBase
    from puzzles.npuzzle import NPuzzle

    if isinstance(puzzle, NPuzzle):
        return _tiles_model(puzzle)
    if isinstance(puzzle, CubeBase):
        return _cube_model(puzzle)
    raise InputError(f"{puzzle.name}: has no pieces to place (sliding tiles and cubes do)")
