"""Multi-goal DeepCubeA: the goal tree, one network per goal, the combined heuristic, and searches
that stop at an intermediate goal and append its stored path (every path replayed)."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from heuristics.multigoal import MultiGoalHeuristic
from learning.multigoal import GoalTree, grow_tree, train_tree
from learning.train_config import TrainConfig


def test_goal_tree_paths_lead_to_the_final_goal():
    p = registry.get_puzzle("puzzle8")
    tree = grow_tree(p, children=3, height=2, step=4, rng=np.random.default_rng(0))
    assert len(tree.goals) == 1 + 3 + 9
    assert len({g.tobytes() for g in tree.goals}) == len(tree.goals)
    for goal, path, parent in zip(tree.goals, tree.paths, tree.parent, strict=True):
        assert p.check_solution(goal, path)
        assert parent < 0 or len(path) == 4 + len(tree.paths[parent])
    with pytest.raises(InputError, match="--children: must be an integer >= 1"):
        grow_tree(p, children=0, height=1, step=3, rng=np.random.default_rng(0))


def test_with_goal_moves_the_goal_only():
    p = registry.get_puzzle("cube2")
    g = p.apply(p.goal()[None, :], np.array([0]))[0]
    q = p.with_goal(g)
    assert q.is_goal(g[None, :])[0] and not q.is_goal(p.goal()[None, :])[0]
    assert p.is_goal(p.goal()[None, :])[0]  # the original puzzle is untouched


def test_with_goal_on_tiles_moves_each_tiles_goal_cell():
    p = registry.get_puzzle("puzzle8")
    g = p.apply(p.goal()[None, :], np.array([0]))[0]
    q = p.with_goal(g)
    assert q.is_goal(g[None, :])[0] and not q.is_goal(p.goal()[None, :])[0]
    np.testing.assert_array_equal(q.goal_pos, np.argsort(g))
    np.testing.assert_array_equal(p.goal_pos, np.argsort(p.goal()))


def test_with_goal_is_refused_where_the_goal_is_a_set():
    with pytest.raises(InputError, match="not one state"):
        registry.get_puzzle("sokoban").with_goal(np.zeros(100, dtype=np.uint8))


@pytest.fixture(scope="module")
def tree_model(tmp_path_factory):
    import torch

    torch.set_num_threads(1)
    p = registry.get_puzzle("cube2")
    folder = tmp_path_factory.mktemp("multigoal")
    tree = grow_tree(p, children=2, height=1, step=3, rng=np.random.default_rng(1))
    cfg = TrainConfig(puzzle="cube2", target="davi", preset="tiny", batch=64, k_max=6,
                      check_every=5, eval_per_depth=2, eval_depths=1).resolved()
    metrics = train_tree(p, tree, cfg, folder, iterations=30)
    assert [m["iteration"] for m in metrics] == [10, 10, 10]
    return p, folder


def test_combined_heuristic(tree_model):
    p, folder = tree_model
    h = registry.get_heuristic("davi-multigoal", p, model=str(folder))
    tree = GoalTree.load(folder)
    values = h(tree.goals)
    assert values[0] == 0 and (values[1:] <= tree.distances[1:] + 1e-5).all()
    f = h.goal_values(tree.goals)
    np.testing.assert_allclose(values[1:], (f + tree.distances[:, None]).min(axis=0)[1:], rtol=1e-6)
    ratio = registry.get_heuristic("davi-multigoal", p, model=str(folder), combine="ratio", m=2.0)
    far = tree.distances > 0
    expect = (f[far] / (2.0 * tree.distances[far, None])).min(axis=0)
    np.testing.assert_allclose(ratio(tree.goals)[1:], expect[1:], rtol=1e-6)
    with pytest.raises(InputError, match="--m: must be > 0"):
        registry.get_heuristic("davi-multigoal", p, model=str(folder), combine="ratio", m=0)


@pytest.mark.parametrize("solver", ["bwas", "beam", "greedy"])
def test_a_search_ends_at_an_intermediate_goal_and_appends_its_path(tree_model, solver):
    p, folder = tree_model
    h = registry.get_heuristic("davi-multigoal", p, model=str(folder))
    tree = GoalTree.load(folder)
    s = registry.get_solver(solver)
    at_goal = s.solve(p, h, tree.goals[1], Limits(time_s=30))
    assert at_goal.status == Status.SOLVED and at_goal.actions == tree.paths[1]
    near = p.apply(tree.goals[2][None, :], np.array([1]))[0]
    r = s.solve(p, h, near, Limits(time_s=30, nodes=200_000))
    assert r.status == Status.SOLVED and p.check_solution(near, r.actions)


def test_bad_models_are_refused(tree_model, tmp_path):
    p, folder = tree_model
    with pytest.raises(InputError, match="davi-multigoal needs a multi-goal model folder"):
        MultiGoalHeuristic(p)
    with pytest.raises(InputError, match="holds no tree.json"):
        registry.get_heuristic("davi-multigoal", p, model=str(tmp_path))
    other = registry.get_puzzle("cube2-htm")
    with pytest.raises(InputError, match="is a tree for cube2, not for cube2-htm"):
        registry.get_heuristic("davi-multigoal", other, model=str(folder))


def test_bench_train_multigoal_cli(tmp_path, capsys):
    from bench.cli import main

    main(["train", "multigoal", "puzzle8", "--children", "2", "--height", "1", "--iterations",
          "6", "--preset", "tiny", "--batch", "32", "--k-max", "6", "--quiet", "--out",
          str(tmp_path / "m")])
    assert "3 goals (children 2, height 1, step 3" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["train", "multigoal", "puzzle8", "--children", "3", "--height", "1",
              "--iterations", "6", "--out", str(tmp_path / "m")])
    assert exc.value.code == 2
    assert "holds a tree of 2 x 1 goals" in capsys.readouterr().err
