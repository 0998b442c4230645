"""The declarations of the built-in puzzles: name, class, fixed arguments, summary, options
(the sliding tiles' goal layout) and properties (family, the heuristics of a row's lower bound,
the optimal search's default heuristic, the default beam width, the training defaults, how
DeepCubeA's published network reads the puzzle). ``core.registry`` reads
:data:`PUZZLES` and :data:`SIZED_PUZZLES` (its ``BUILTIN_DECLARATIONS``), the form a plugin's
entry point names too. This module imports nothing but ``core``: ``bench list`` reads it
without loading a puzzle."""

from __future__ import annotations

from dataclasses import replace

from core import pdb_decls as pdb
from core.entry import Entry, SizedEntries
from core.names import TILE_NAMES
from core.options import Option
from core.props import DeepCubeANet, PuzzleProps, TrainDefaults

GOAL = Option("goal", str, "goal layout of a sliding-tile puzzle (korf1982: the 8-puzzle's "
              "1 2 3 / 8 B 4 / 7 6 5)", choices=("blank-first", "blank-last", "korf1982"),
              default_text="blank-last", metavar="LAYOUT")

#: the default beam width of each sliding-tile puzzle (``--width`` left out), by width
TILE_BEAM_WIDTH: dict[int, int] = {3: 256, 4: 1024, 5: 1024, 6: 1024, 7: 1024}

#: the training defaults (``k_max``, ``epsilon``, ``check_every``) of each sliding-tile puzzle,
#: by width: DeepCubeA's for the 15- to 48-puzzles; the 8-puzzle (diameter 31) a K above its
#: diameter, a smaller C, and the 15-puzzle's epsilon rather than 1.0: its costs are at most 31,
#: and a target refreshed whenever the mean squared error is below 1 would chase a
#: still-inaccurate network
TILE_TRAIN: dict[int, TrainDefaults] = {
    3: TrainDefaults(40, 0.1, 500), 4: TrainDefaults(500, 0.1, 5000),
    5: TrainDefaults(500, 0.2, 5000), 6: TrainDefaults(1000, 1.0, 5000),
    7: TrainDefaults(1000, 1.0, 5000)}
#: DeepCubeA's tile networks read our states as they are, relative to the blank-last goal
_TILE_NET = DeepCubeANet("deepcubea-tiles", goal_layout="blank-last")

_CUBE3 = PuzzleProps("cube", bounds=pdb.CUBE3_BOUNDS, search_heuristic=pdb.CUBE3_SEARCH,
                     search_heuristic_args=pdb.CUBE3_SEARCH_ARGS,
                     search_heuristic_built=pdb.CUBE3_SEARCH_BUILT, beam_width=4096,
                     train=TrainDefaults(30, 0.06, 5000),
                     deepcubea=DeepCubeANet("deepcubea-cube3"))
#: the half-turn cube: the quarter-turn cube's facts but its lower bounds (and no published
#: DeepCubeA network)
_CUBE3_HTM = replace(_CUBE3, bounds=pdb.CUBE3_HTM_BOUNDS, deepcubea=None)
#: the 2x2x2 (diameter 14 qtm, 11 htm): a K above the diameter and a smaller C
_CUBE2 = PuzzleProps("cube", bounds=pdb.CUBE2_BOUNDS, beam_width=256,
                     train=TrainDefaults(20, 0.06, 500))
_CUBE2_HTM = replace(_CUBE2, train=TrainDefaults(16, 0.06, 500))
_LIGHTS = PuzzleProps("lights", bounds=pdb.LIGHTS_BOUNDS, beam_width=64,
                      deepcubea=DeepCubeANet("deepcubea-lights"))
#: Sokoban 10x10: K is the reverse-play steps of the level generator
#: (``puzzles/sokoban_levels.py``), whose levels match DeepCubeA's test levels; walks of 30
#: steps reach few states that far from a goal
_SOKOBAN = PuzzleProps("sokoban", bounds=pdb.SOKOBAN_BOUNDS, beam_width=1024,
                       train=TrainDefaults(1000, 1.0, 1000))


def lights_props(props: PuzzleProps, n: int) -> PuzzleProps:
    """Lights Out ``n x n``'s properties: K = n * n moves at most 50 (every light pressed once
    is as far as a position gets), a check every 500 iterations below 7 x 7."""
    return replace(props, train=TrainDefaults(min(50, n * n), 1.0, 500 if n < 7 else 5000))


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
          {"metric": "htm"}, _CUBE2_HTM),
    *[
        Entry(n, "puzzles.npuzzle:NPuzzle", f"sliding-tile {w * w - 1}-puzzle ({w}x{w})",
              {"width": w}, PuzzleProps("tiles", True, pdb.TILE_BOUNDS[n],
                                        beam_width=TILE_BEAM_WIDTH[w], train=TILE_TRAIN[w],
                                        deepcubea=_TILE_NET), (GOAL,))
        for w, n in TILE_NAMES.items()
    ],
    Entry("lightsout7", "puzzles.lightsout:LightsOut", "Lights Out 7x7 (49 actions)",
          {"size": 7}, replace(_LIGHTS, train=TrainDefaults(50, 1.0, 5000))),
    Entry("sokoban", "puzzles.sokoban:Sokoban", "Sokoban 10x10, 4 boxes (DeepCubeA's levels; "
          "4 agent moves)", {"size": 10}, _SOKOBAN),
]

#: the puzzles named by a size (``lightsout9``: a 9 x 9 board; ``sokoban12``), made when named
SIZED_PUZZLES: list[SizedEntries[PuzzleProps]] = [
    SizedEntries("lightsout", "puzzles.lightsout:LightsOut", "Lights Out {n}x{n}", "size",
                 2, 20, _LIGHTS, sized_props=lights_props),
    # size 10 is the declared ``sokoban``; the other sizes train with the common defaults
    SizedEntries("sokoban", "puzzles.sokoban:Sokoban", "Sokoban {n}x{n}", "size", 5, 30,
                 replace(_SOKOBAN, train=TrainDefaults()), skip=(10,)),
]
