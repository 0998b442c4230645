"""The declarations the entry points name (pyproject.toml). This module imports only
``core.registry``: ``bench list`` reads it without loading the puzzle or heuristic code.
Properties are the registry's typed classes (a plain dict of the same keys works too)."""

from core.registry import Entry, HeuristicProps, Option, PuzzleProps, SolverProps

#: one entry per size: a puzzle takes no options, its fixed arguments go in ``kwargs``
PUZZLES = [
    Entry(f"pancake{n}", "bench_pancake.puzzle:Pancake",
          f"pancake problem, {n} pancakes (flip the top k, k = 2..{n})", {"n": n},
          PuzzleProps("pancake", bounds=("pancake-gap",)))
    for n in (8, 12, 16)
]

GAP = Entry(
    "pancake-gap", "bench_pancake.heuristic:GapHeuristic",
    "pancake gap heuristic (Helmert 2010): neighbours that are not consecutive sizes", {},
    HeuristicProps("pancake*", admissible=True, consistent=True),
    (Option("plate", bool, "count the gap between the bottom pancake and the plate",
            default=True, metavar="BOOL"),),
)

HILL_CLIMB = Entry(
    "hill-climb", "bench_pancake.solver:EnforcedHillClimbing",
    "enforced hill-climbing (Hoffmann & Nebel 2001): breadth-first search to a state of lower h",
    {}, SolverProps(optimal=False),
    (Option("max_plateau", int, "states a breadth-first escape may generate before the search "
            "gives up", default=100_000, low=1, cap=10**9, metavar="N"),),
)
