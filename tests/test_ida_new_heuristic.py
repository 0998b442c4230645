"""A throwaway heuristic added under IDA* the way docs/development.md's "A heuristic under IDA*"
says: its record and class in a module of its own, its search (a ``TilesSearch`` subclass and
its Numba loop) in another, an ``Entry`` read by the registry's declaration mechanism (the
plugin loader, from a declaring module), and one registration in ``solvers._ida_tiles.SEARCHES``.
``bench solve --solver ida`` then solves with it, and the path replays at the optimal length.

The modules are written into a temporary folder; the heuristic is the number of tiles out of
place (admissible), so the check needs no table."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap

import numpy as np
import pytest
from cli_run import run_cli

from core import plugins, registry
from core.entry import Entry
from core.options import Option
from solvers import _ida_tiles

NAME, KIND = "misplaced-tiles", "misplaced"

#: step 1: the record, beside the heuristic
HEURISTIC = '''
from __future__ import annotations

from typing import Annotated, NamedTuple

import numpy as np

from heuristics.base import Arr, Heuristic, IdaSpec
from heuristics.manhattan import canonical, check_states, tiles_puzzle_info


class MisplacedTables(NamedTuple):
    """What the search reads: the goal cell of each tile (blank-first layout)."""

    home: Annotated[np.ndarray, Arr("int64", 1)]


class Misplaced(Heuristic):
    """The tiles out of place (the blank not counted)."""

    name = "misplaced-tiles"
    admissible = True

    def __init__(self, puzzle):
        super().__init__(puzzle)
        self.width, self.layout = tiles_puzzle_info(puzzle)
        self.n = self.width * self.width
        self.home = np.arange(self.n, dtype=np.int64)

    def __call__(self, states):
        s = canonical(check_states(states, self.n), self.width, self.layout)
        return ((s != self.home[None, :]) & (s != 0)).sum(axis=1).astype(np.int32)

    def ida_spec(self):
        return IdaSpec(family="tiles", kind="misplaced", tables=MisplacedTables(home=self.home),
                       params={"width": self.width, "layout": self.layout})
'''

#: step 2: the declaration
DECLARATION = '''
from core.entry import Entry
from core.props import HeuristicProps

HEURISTICS = [Entry("misplaced-tiles", "tmp_misplaced:Misplaced", "tiles out of place", {},
                    HeuristicProps(puzzles=("puzzle8", "puzzle15"), admissible=True,
                                   kernel=True))]
'''

#: step 3: the search, in its own kernel module
SEARCH = '''
from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from solvers._ida_engine import ITER_DONE, PAUSED, SOLVED
from solvers._ida_tiles_base import TilesSearch
from tmp_misplaced import MisplacedTables


@njit(cache=False)
def _misplaced(tiles, home):
    h = 0
    for c in range(tiles.shape[0]):
        if tiles[c] != 0 and tiles[c] != home[c]:
            h += 1
    return h


@njit(cache=False)
def _run(bound, budget_end, tiles, moves, st, next_a, path, home):
    d, blank, gen, exp, nextb, root = st[0], st[1], st[2], st[3], st[4], st[5]
    status = ITER_DONE
    while True:
        a = next_a[d]
        if a >= 4:
            if d == root:
                status = ITER_DONE
                break
            d -= 1
            back = moves[blank, path[d] ^ 1]
            tiles[blank] = tiles[back]
            tiles[back] = 0
            blank = back
            continue
        next_a[d] = a + 1
        nb = moves[blank, a]
        if nb < 0 or (d > 0 and a == (path[d - 1] ^ 1)):
            continue
        t = tiles[nb]
        tiles[blank] = t
        tiles[nb] = 0
        gen += 1
        h = _misplaced(tiles, home)
        if d + 1 + h > bound:
            nextb = min(nextb, d + 1 + h)
            tiles[nb] = t
            tiles[blank] = 0
            continue
        path[d] = a
        blank = nb
        d += 1
        next_a[d] = 0
        if h == 0:
            status = SOLVED
            break
        exp += 1
        if gen >= budget_end:
            status = PAUSED
            break
    st[0], st[1], st[2], st[3], st[4] = d, blank, gen, exp, nextb
    return status


class MisplacedSearch(TilesSearch):
    record: ClassVar[type] = MisplacedTables
    tables: MisplacedTables

    def _allocate(self, depth_cap):
        pass

    def _root_value(self, root):
        return int(_misplaced(self.tiles, self.tables.home))

    def _run(self, budget_end):
        return int(_run(self.bound, budget_end, self.tiles, self.moves, self.st, self.next_a,
                        self.path, self.tables.home))
'''


class _EntryPoint:
    """An installed package's entry point, as ``importlib.metadata`` gives it."""

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name, self.value, self.group = name, value, group
        self.dist = None

    def load(self):
        module, attr = self.value.split(":")
        return getattr(importlib.import_module(module), attr)


@pytest.fixture
def misplaced(tmp_path, monkeypatch):
    for name, text in (("tmp_misplaced", HEURISTIC), ("tmp_misplaced_decl", DECLARATION),
                       ("tmp_ida_tiles_misplaced", SEARCH)):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(plugins.DISABLE_ENV, raising=False)
    # the declaration, read and checked as the registry reads a package's declarations
    tables = {"puzzle": dict(registry.PUZZLES), "heuristic": dict(registry.HEURISTICS),
              "solver": dict(registry.SOLVERS)}
    ep = _EntryPoint(NAME, "tmp_misplaced_decl:HEURISTICS", plugins.GROUPS["heuristic"])
    loaded = plugins.load(tables, Entry, Option,
                          entry_points_fn=lambda g: [ep] if g == ep.group else [])
    assert loaded.problems == []
    monkeypatch.setitem(registry.HEURISTICS, NAME, tables["heuristic"][NAME])
    # step 4: the one registration
    search = importlib.import_module("tmp_ida_tiles_misplaced").MisplacedSearch
    monkeypatch.setitem(_ida_tiles.SEARCHES, KIND, search)
    yield search
    for name in ("tmp_misplaced", "tmp_misplaced_decl", "tmp_ida_tiles_misplaced"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def _solve(capsys, state: str, *args: str) -> dict:
    code, out, err = run_cli(capsys, "solve", "puzzle8", state, *args, "--json")
    assert code == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_a_new_heuristic_solves_under_ida_at_the_optimal_length(misplaced, goal, capsys):
    p = registry.get_puzzle("puzzle8", goal=goal)
    h = registry.get_heuristic(NAME, p)
    assert type(h.ida_spec().tables) is misplaced.record
    starts = p.scramble(3, 14, np.random.default_rng(7))[0]
    for start in starts:
        state = ",".join(str(int(v)) for v in start)
        ours = _solve(capsys, state, "--goal", goal, "--heuristic", NAME, "--solver", "ida")
        ref = _solve(capsys, state, "--goal", goal, "--heuristic", "manhattan", "--solver", "ida")
        assert ours["status"] == ref["status"] == "solved"
        assert (ours["heuristic"], ours["extra"]["kernel"]) == (NAME, "tiles/misplaced")
        # Manhattan distance is admissible: its IDA* length is the optimal one
        assert ours["length"] == ref["length"] == ref["lower_bound"]
        # the path replays from the start to the goal
        assert p.check_solution(start, ours["action_ids"])
        # the heuristic is weaker than Manhattan distance: IDA* generates at least as many nodes
        assert ours["nodes_generated"] >= ref["nodes_generated"]
        assert ours["h_start"] == float(h(start[None, :])[0])
