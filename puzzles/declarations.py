"""The declarations of the built-in puzzles: name, class, fixed arguments, summary, options
(the sliding tiles' goal layout) and properties (family, the heuristics of a row's lower bound,
the optimal search's default heuristic, the default beam width). ``core.registry`` reads
:data:`PUZZLES` and :data:`SIZED_PUZZLES` (its ``BUILTIN_DECLARATIONS``), the form a plugin's
entry point names too. This module imports nothing but ``core``: ``bench list`` reads it
without loading a puzzle."""

from __future__ import annotations

from dataclasses import replace

from core import pdb_decls as pdb
from core.entry import Entry, SizedEntries
from core.names import TILE_NAMES
from core.options import Option
from core.props import PuzzleProps

GOAL = Option("goal", str, "goal layout of a sliding-tile puzzle (korf1982: the 8-puzzle's "
              "1 2 3 / 8 B 4 / 7 6 5)", choices=("blank-first", "blank-last", "korf1982"),
              default_text="blank-last", metavar="LAYOUT")

#: the default beam width of each sliding-tile puzzle (``--width`` left out), by width
TILE_BEAM_WIDTH: dict[int, int] = {3: 256, 4: 1024, 5: 1024, 6: 1024, 7: 1024}

_CUBE3 = PuzzleProps("cube", bounds=pdb.CUBE3_BOUNDS, search_heuristic=pdb.CUBE3_SEARCH,
                     search_heuristic_args=pdb.CUBE3_SEARCH_ARGS,
                     search_heuristic_built=pdb.CUBE3_SEARCH_BUILT, beam_width=4096)
#: the half-turn cube: the quarter-turn cube's facts but its lower bounds
_CUBE3_HTM = replace(_CUBE3, bounds=pdb.CUBE3_HTM_BOUNDS)
_CUBE2 = PuzzleProps("cube", bounds=pdb.CUBE2_BOUNDS, beam_width=256)
_LIGHTS = PuzzleProps("lights", bounds=pdb.LIGHTS_BOUNDS, beam_width=64)
_SOKOBAN = PuzzleProps("sokoban", bounds=pdb.SOKOBAN_BOUNDS, beam_width=1024)

PUZZLES: list[Entry[PuzzleProps]] = [
    Entry("cube3", "puzzles.cube:Cube3",
          "Rubik's cube 3x3x3, quarter-turn metric (12 actions, DeepCubeA)",
          {"metric": "qtm"}, _CUBE3),
    Entry("cube3-htm", "puzzles.cube:Cube3",
          "Rubik's cube 3x3x3, half-turn metric (18 actions, Korf 1997)",
          {"metric": "htm"}, _CUBE3_HTM),
    Entry("cube2", "puzzles.cube:Cube2",
          "2x2x2 cube, DBL corner fixed, quarter-turn metric (6 actions)",
          {"metric": "qtm"}, _CUBE2),
    Entry("cube2-htm", "puzzles.cube:Cube2",
          "2x2x2 cube, DBL corner fixed, half-turn metric (9 actions)",
          {"metric": "htm"}, _CUBE2),
    *[
        Entry(n, "puzzles.npuzzle:NPuzzle", f"sliding-tile {w * w - 1}-puzzle ({w}x{w})",
              {"width": w}, PuzzleProps("tiles", True, pdb.TILE_BOUNDS[n],
                                        beam_width=TILE_BEAM_WIDTH[w]), (GOAL,))
        for w, n in TILE_NAMES.items()
    ],
    Entry("lightsout7", "puzzles.lightsout:LightsOut", "Lights Out 7x7 (49 actions)",
          {"size": 7}, _LIGHTS),
    Entry("sokoban", "puzzles.sokoban:Sokoban", "Sokoban 10x10, 4 boxes (DeepCubeA's levels; "
          "4 agent moves)", {"size": 10}, _SOKOBAN),
]

#: the puzzles named by a size (``lightsout9``: a 9 x 9 board; ``sokoban12``), made when named
SIZED_PUZZLES: list[SizedEntries[PuzzleProps]] = [
    SizedEntries("lightsout", "puzzles.lightsout:LightsOut", "Lights Out {n}x{n}", "size",
                 2, 20, _LIGHTS),
    SizedEntries("sokoban", "puzzles.sokoban:Sokoban", "Sokoban {n}x{n}", "size", 5, 30,
                 _SOKOBAN, skip=(10,)),  # size 10 is the declared ``sokoban``
]
