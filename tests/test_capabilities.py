"""Capabilities are types (core.capabilities): each built-in entry has exactly the capabilities
it declares, checked with isinstance / issubclass, and a policy is refused where a heuristic is
required."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from core import registry
from core.capabilities import (
    HasBoard,
    HasDistanceTable,
    HasExtraGoals,
    HasReverseWalks,
    HasTensorMoves,
    Invertible,
    Policy,
    PolicySolver,
    QValues,
    SolvesOptimally,
)
from core.errors import InputError
from heuristics.base import Heuristic, PolicyGuide
from solvers.base import require_heuristic

PUZZLE_CAPS = (HasBoard, HasTensorMoves, Invertible, HasDistanceTable, HasReverseWalks,
               SolvesOptimally)
#: what each built-in family provides
FAMILY_CAPS = {
    "cube": {HasBoard, HasTensorMoves, Invertible},
    "tiles": {HasBoard, HasTensorMoves},
    "lights": {HasBoard, HasTensorMoves, SolvesOptimally},
    "sokoban": {HasBoard, HasReverseWalks},
}


@pytest.mark.parametrize("name", list(registry.PUZZLES))
def test_each_puzzle_has_exactly_its_familys_capabilities(name):
    puzzle = registry.get_puzzle(name)
    family = registry.puzzle_entry(name).props.family
    want = set(FAMILY_CAPS[family])
    if puzzle.num_states is not None and puzzle.num_states <= 4_000_000 and family == "cube":
        want.add(HasDistanceTable)  # the 2x2x2's complete table
    have = {c for c in PUZZLE_CAPS if isinstance(puzzle, c)}
    assert have == want, name
    board = puzzle.board()
    assert board["kind"] == family and all(isinstance(k, str) for k in board)


def _classes(name):
    """The classes an entry makes (the onnx entry: one per card output)."""
    made = registry.HEURISTICS[name].load()
    if inspect.isclass(made):
        return [made]
    from heuristics.onnx import GUIDES

    return list(GUIDES.values())


@pytest.mark.parametrize("name", list(registry.HEURISTICS))
def test_each_heuristic_entry_is_the_kind_of_guide_it_declares(name):
    props = registry.HEURISTICS[name].props
    for cls in _classes(name):
        policy = issubclass(cls, Policy)
        if props.ranks_moves or props.q_values is None:  # onnx: its card says
            assert policy != issubclass(cls, Heuristic), (name, cls)
        else:
            assert not policy and issubclass(cls, Heuristic), (name, cls)
        if props.q_values is not None:
            assert issubclass(cls, QValues) == props.q_values, (name, cls)
        assert not (issubclass(cls, QValues) and policy), (name, cls)
    if props.ranks_moves:
        assert all(issubclass(c, PolicyGuide) for c in _classes(name))


def test_only_the_multigoal_model_brings_extra_goals():
    with_goals = [n for n in registry.HEURISTICS
                  if any(issubclass(c, HasExtraGoals) for c in _classes(n))]
    assert with_goals == ["davi-multigoal"]


@pytest.mark.parametrize("name", list(registry.SOLVERS))
def test_a_solver_takes_a_policy_exactly_where_it_declares_one(name):
    cls = registry.SOLVERS[name].load()
    # a class is a PolicySolver where an entry built from it declares a policy (beam; qbeam,
    # the same class with q=True, reads a Q-network and refuses a policy in solve)
    declared = any(e.props.policy for e in registry.SOLVERS.values() if e.load() is cls)
    assert issubclass(cls, PolicySolver) == declared, name


class _Ranks(PolicyGuide):
    name = "ranks"

    def log_probs(self, states, legal=None):
        n = self.puzzle.num_actions
        return np.full((len(np.atleast_2d(states)), n), -np.log(n))


def test_a_policy_is_refused_where_a_heuristic_is_required():
    puzzle = registry.get_puzzle("puzzle8")
    policy = _Ranks(puzzle)
    assert isinstance(policy, Policy) and not isinstance(policy, Heuristic)
    start = puzzle.from_moves([0, 1])
    for solver in ("astar", "bwas", "greedy", "ida"):
        with pytest.raises(InputError) as exc:
            registry.get_solver(solver).run(puzzle, policy, start)
        assert str(exc.value) == (f"--heuristic: ranks ranks moves and gives no distance "
                                  f"estimate; solver {solver} needs a heuristic (only beam "
                                  "takes a policy)")
    with pytest.raises(InputError, match="needs a heuristic"):
        require_heuristic("astar", policy)
    manhattan = registry.get_heuristic("manhattan", puzzle)
    assert require_heuristic("astar", manhattan) is manhattan
    # beam takes it, and searches by its log-probabilities (no h_start: it gives no values)
    r = registry.get_solver("beam", width=8).run(puzzle, policy, start)
    assert r.status == "solved" and r.h_start is None


def _probes(path) -> list[str]:
    """The ``getattr``/``hasattr`` calls of a source file whose object is not a module the file
    imports (``hasattr(os, ...)`` reads a third-party module and stays)."""
    import ast

    tree = ast.parse(path.read_text())
    modules = {a.asname or a.name.split(".")[0] for node in ast.walk(tree)
               if isinstance(node, ast.Import) for a in node.names}
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args
                and not (isinstance(node.args[0], ast.Name) and node.args[0].id in modules)):
            out.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_learning_asks_no_project_object_for_an_attribute(tmp_path):
    """Batches declare ``valid`` and ``legal``, the trainer its ``teacher`` and
    ``saved_iteration``, every puzzle ``with_goal``: nothing in learning/ probes for them."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "learning"
    found = [p for f in sorted(root.rglob("*.py")) for p in _probes(f)]
    assert found == []
    sample = tmp_path / "sample.py"  # the walk sees a probe of a project object, not of a module
    sample.write_text("import os\nhasattr(os, 'x')\ngetattr(b, 'valid', None)\n")
    assert [p.split(": ", 1)[1] for p in _probes(sample)] == ["getattr(b, 'valid', None)"]
