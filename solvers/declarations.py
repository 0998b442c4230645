"""The declarations of the built-in solvers: name, class, options (their bounds and defaults,
stated once) and properties. ``core.registry`` reads :data:`SOLVERS` (its
``BUILTIN_DECLARATIONS``), the form a plugin's entry point names too; each class checks its
arguments through its entry (``Entry.settings``). This module imports nothing but ``core``:
``bench list`` reads it without loading a solver."""

from __future__ import annotations

from dataclasses import replace

from core.entry import Entry
from core.options import Option
from core.props import SolverProps

#: the largest weight on g: above 1 where h counts other units than moves (diffusion distance)
MAX_WEIGHT = 100.0
WEIGHT = Option("weight", float, "weight on g (lambda) of f = weight*g + h; above 1 where h "
                "counts other units than moves (a diffusion-distance network)", low=0.0,
                high=MAX_WEIGHT,
                metavar="L")
BATCH = Option("batch", int, "nodes expanded per iteration (N)", low=1, cap=10**9, metavar="N")
MAX_ITERATIONS = Option("max_iterations", int, "iterations before the search gives up "
                        "(status iteration-limit; Phipat 2020: 800 or 4,000)",
                        default_text="none", low=1, cap=10**12, metavar="I")
IMPROVE_WINDOW = Option("improve_window", int, "after a solution is found, replace windows of "
                        "up to L moves of its path by shortest segments (exact meet-in-the-middle "
                        "searches of depth about L/2 around its states) until none improves",
                        default=0, off=0, low=2, high=40, metavar="L")
DEFERRED = Option("deferred", bool, "children enter the open list with their parent's f and "
                  "are evaluated in one batch when popped (a node whose own f is higher goes "
                  "back); each node is evaluated once", default=False, metavar="BOOL")
SOLVER_OPTIONS: dict[str, tuple[Option, ...]] = {
    "best_first": (WEIGHT, BATCH, MAX_ITERATIONS),
    "ida": (
        Option("threads", int, "threads searching each iteration's subtrees at once (sliding "
               "tiles, cubes; the node counts of every iteration but the last equal one "
               "thread's)",
               default=1, low=1, high=256, metavar="T"),
        Option("order", str, "the order of a split iteration's subtrees (sliding tiles, "
               "pdb-korf, pdb-coset): actions (depth-first) or previous (most nodes under the "
               "subtree's first moves in the previous iteration first, as nxopt; a one-thread "
               "search is split too); only the last iteration's count can change",
               default="actions", choices=("actions", "previous"), metavar="O"),
    ),
    "beam": (
        Option("width", int, "beam width", low=1, cap=10**9, default_text="per puzzle",
               metavar="W"),
        Option("max_depth", int, "layers before a beam gives up", default=1000, low=1,
               cap=10**9, metavar="D"),
        Option("goal_depth", int, "finish from any state within D moves of the goal by a "
               "breadth-first table", default=0, low=0, high=30, metavar="D"),
        Option("shorten", bool, "shorten a found path through the goal table", default=True,
               metavar="BOOL"),
        Option("inverse", bool, "also search from the inverse position (the cubes) and keep "
               "the shorter path: two searches, the limits bound both together", default=False,
               metavar="BOOL"),
        Option("distinct_moves", bool, "never make a move twice on one path (puzzles whose "
               "moves commute and undo themselves: Lights Out); every path found is then a "
               "shortest one with its effect", default=False, metavar="BOOL"),
        IMPROVE_WINDOW,
    ),
    "macro": (
        Option("max_states", int, "states the macro learner's search from the goal keeps (its "
               "depth); a table is cached per value", default_text="per puzzle", low=1000,
               cap=10**9, metavar="N"),
    ),
    "lvi": (
        Option("region", int, "tiles in each stage's first local region (l; Bischoff et al. "
               "2013, Table 2)", default=1, low=1, high=5, metavar="L"),
    ),
}

SOLVERS: list[Entry[SolverProps]] = [
    Entry("ida", "solvers.ida:IDAStar", "iterative-deepening A* (optimal; Numba per-state kernels)",
          {}, SolverProps(optimal=True, needs_kernel=True), SOLVER_OPTIONS["ida"]),
    Entry("bwas", "solvers.best_first:BatchBestFirst",
          "batch weighted A* (DeepCubeA): f = weight*g + h, expand the N best per iteration",
          {}, SolverProps(),
          (replace(WEIGHT, default=0.6),
           replace(BATCH, default=10000), MAX_ITERATIONS, IMPROVE_WINDOW, DEFERRED)),
    Entry("astar", "solvers.best_first:BatchBestFirst", "A* (weight 1, batch 1)",
          {"preset": "astar"},
          SolverProps(optimal=True, optimal_any_options=False),
          (replace(WEIGHT, default=1.0),
           replace(BATCH, default=1), MAX_ITERATIONS)),
    Entry("greedy", "solvers.best_first:BatchBestFirst", "greedy best-first on h alone",
          {"preset": "greedy"}, SolverProps(),
          (replace(WEIGHT, default=0.0),
           replace(BATCH, default=1), MAX_ITERATIONS, IMPROVE_WINDOW)),
    Entry("qstar", "solvers.best_first:BatchBestFirst",
          "Q* search: batch weighted A* whose children take f = weight*g + Q(parent, move) "
          "from their parent's Q-network values, evaluated only when popped",
          {"preset": "qstar"}, SolverProps(q=True),
          (replace(WEIGHT, default=0.6), replace(BATCH, default=10000), MAX_ITERATIONS,
           IMPROVE_WINDOW)),
    Entry("beam", "solvers.beam:BeamSearch",
          "beam search: per depth the W distinct children of lowest h (one batch per layer)",
          {}, SolverProps(policy=True), SOLVER_OPTIONS["beam"]),
    Entry("qbeam", "solvers.beam:BeamSearch",
          "Q-beam: beam search ranking children by their parent's Q-network values (one "
          "evaluation per expanded state)", {"q": True}, SolverProps(q=True),
          SOLVER_OPTIONS["beam"]),
    Entry("gf2", "solvers.gf2:GF2Solver",
          "exact Lights Out solver: Gaussian elimination over GF(2) (no heuristic)",
          {}, SolverProps(optimal=True, puzzles="lightsout*", heuristic=False)),
    Entry("macro", "solvers.macro:MacroSolver",
          "Korf's macro problem solver: one learned macro per piece, no search (Korf 1982)",
          {}, SolverProps(heuristic=False, puzzles=("puzzle8", "puzzle15", "cube2",
                                                    "cube2-htm", "cube3", "cube3-htm")),
          SOLVER_OPTIONS["macro"]),
    Entry("lvi", "solvers.lvi:LocalValueIteration",
          "local value iteration: tiles placed in order by small value-iteration tables "
          "(Bischoff et al. 2013)", {},
          SolverProps(heuristic=False, puzzles=("puzzle8", "puzzle15")),
          SOLVER_OPTIONS["lvi"]),
]
