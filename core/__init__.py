"""The base layer: names, errors, statuses, limits, paths and the row schema.

Every other package (puzzles, heuristics, pdb_builders, solvers, suites, bench) may import from
``core``; ``core`` imports none of them at module level (the registry names entry points as
``"module:attr"`` strings and imports them only when an entry is instantiated).
"""
