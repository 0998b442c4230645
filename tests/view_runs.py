"""Small real runs for the viewer's tests: a suite file run in this process by the suite runner
(every row a real search; a second or two)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PUZZLE15_SUITE = """
[suite]
name = "view15"
puzzle = "puzzle15"

[limits]
time_s = 30

[[instances]]
name = "scramble"
source = "scramble"
depth = [14]
count = 2
seed = 3
optimal = "none"

[[configs]]
name = "manhattan-ida"
heuristic = "manhattan"
solver = "ida"

[[configs]]
name = "lc-greedy"
heuristic = "linear-conflict"
solver = "greedy"

[[configs]]
name = "lvi"
solver = "lvi"

[[configs]]
name = "manhattan-capped"
heuristic = "manhattan"
solver = "astar"
limits = { nodes = 3 }
"""


def make_run(tmp: Path, text: str = PUZZLE15_SUITE) -> Path:
    """Run the suite ``text`` into ``tmp/run`` (inline, no worker processes); return the folder."""
    from bench.executor import InlineExecutor
    from bench.runner import plan_run, run_plan
    from suites.schema import parse_suite

    path = tmp / "suite.toml"
    path.write_text(text)
    suite = parse_suite(path, tomllib.loads(text))
    run_dir = tmp / "run"
    run_plan(plan_run(suite), run_dir, InlineExecutor(), progress=False, prepare=False)
    return run_dir
