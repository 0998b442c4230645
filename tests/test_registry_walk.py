"""The registry as the test driver: every puzzle x heuristic x solver combination it declares
valid solves a shallow scramble with a replayed path; every other one is refused with one line.

Heuristics too large to build here (``ci=False`` in their PDB declaration) are stood in for by
the same code with small patterns (``stand_in`` / ``stand_in_args``); the learned heuristic by a
tiny network trained for a few iterations on each puzzle. Such a network gives no guidance (greedy
search on it wanders), so its scrambles are one move deep: what is tested is the path from the
registry through the solver's batched evaluation to a replayed solution.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.pdb_decls import TILE_PDBS
from core.status import Status

torch = pytest.importorskip("torch")

PUZZLES = [*registry.PUZZLES]
DEPTH = 3
LIMITS = Limits(time_s=60, nodes=2_000_000)
#: solver options that keep a search on a tiny network small
SOLVER_ARGS = {"bwas": {"batch": 100}, "beam": {"width": 4096}, "qstar": {"batch": 100},
               "qbeam": {"width": 4096}, "macro": {"max_states": 700_000}}


def _valid(puzzle: str, heuristic: str, solver: str) -> bool:
    h, s = registry.HEURISTICS[heuristic], registry.SOLVERS[solver]
    return (registry.heuristic_supports(h, puzzle) and registry.solver_supports(s, puzzle)
            and (not s.props.needs_kernel or h.props.kernel)
            and (s.props.heuristic or heuristic == registry.NO_HEURISTIC)
            and (not h.props.ranks_moves or s.props.policy)
            and (not s.props.q or h.props.q_values))


def _stand_in(puzzle: str, heuristic: str) -> tuple[str, dict]:
    decl = registry.HEURISTICS[heuristic].props.pdb
    if decl is None or decl.ci:
        return heuristic, {}
    name = decl.stand_in + ("-reflect" if heuristic.endswith("-reflect") and decl.stand_in else "")
    return (name or heuristic), dict(decl.stand_in_args)


_MODELS: dict[tuple[str, str], str] = {}


def _tiny_model(puzzle: str, tmp_path_factory, target: str = "davi") -> str:
    if (puzzle, target) not in _MODELS:
        from learning.train_config import TrainConfig
        from learning.trainer import Trainer

        torch.set_num_threads(1)
        out = tmp_path_factory.mktemp(f"tiny-{target}-{puzzle}")
        cfg = TrainConfig(puzzle=puzzle, target=target, preset="tiny", batch=64, k_max=6,
                          check_every=1000, eval_per_depth=2, eval_depths=1)
        Trainer(cfg, out, puzzle=registry.get_puzzle(puzzle), progress=False).train(2)
        _MODELS[puzzle, target] = str(out / "model.pt")
    return _MODELS[puzzle, target]


_TREES: dict[str, str] = {}


def _tiny_tree(puzzle, tmp_path_factory) -> str:
    """A multi-goal model of two goals (the final one and one child), tiny networks."""
    if puzzle.name not in _TREES:
        from learning.multigoal import grow_tree, train_tree
        from learning.train_config import TrainConfig

        torch.set_num_threads(1)
        out = tmp_path_factory.mktemp(f"tree-{puzzle.name}")
        tree = grow_tree(puzzle, 1, 1, 2, np.random.default_rng(0))
        cfg = TrainConfig(puzzle=puzzle.name, preset="tiny", batch=64, k_max=6,
                          check_every=1000, eval_per_depth=2, eval_depths=1).resolved()
        train_tree(puzzle, tree, cfg, out, iterations=4)
        _TREES[puzzle.name] = str(out)
    return _TREES[puzzle.name]


def _heuristic(puzzle, heuristic: str, tmp_path_factory):
    name, args = _stand_in(puzzle.name, heuristic)
    if name == "davi-multigoal":
        args = {"model": _tiny_tree(puzzle, tmp_path_factory)}
    elif name == "onnx":
        args = {"model": _tiny_onnx(puzzle.name, tmp_path_factory)}
    elif registry.HEURISTICS[name].props.needs_model:
        props = registry.HEURISTICS[name].props
        target = "policy" if props.ranks_moves else "q-learning" if props.q_values else "davi"
        args = {"model": _tiny_model(puzzle.name, tmp_path_factory, target)}
    return registry.get_heuristic(name, puzzle, **args)


def _tiny_onnx(puzzle: str, tmp_path_factory) -> str:
    """The tiny value network of ``puzzle`` exported to ONNX with its card."""
    if (puzzle, "onnx") not in _MODELS:
        from heuristics.onnx_export import export_onnx

        out = tmp_path_factory.mktemp(f"tiny-onnx-{puzzle}")
        onnx_path, _card, _figures = export_onnx(_tiny_model(puzzle, tmp_path_factory), out,
                                                 check_states=16)
        _MODELS[puzzle, "onnx"] = str(onnx_path)
    return _MODELS[puzzle, "onnx"]


VALID = [(p, h, s) for p in PUZZLES for h in registry.HEURISTICS for s in registry.SOLVERS
         if _valid(p, h, s)]
#: valid but pointless: greedy and beam search on h = 0 wander (A* on it is uniform-cost search)
BLIND = {("zero", "greedy"), ("zero", "beam")}


def test_every_puzzle_and_heuristic_has_a_valid_combination():
    for p in PUZZLES:
        assert any(c[0] == p for c in VALID), p
    for h in registry.HEURISTICS:
        assert any(c[1] == h for c in VALID), h
    for s in registry.SOLVERS:
        assert any(c[2] == s for c in VALID), s


@pytest.mark.slow
@pytest.mark.parametrize("puzzle_name", PUZZLES)
def test_every_valid_combination_solves_a_shallow_scramble(puzzle_name, tmp_path_factory):
    puzzle = registry.get_puzzle(puzzle_name)
    rng = np.random.default_rng(7)
    states, _ = puzzle.scramble(2, DEPTH, rng)
    near, _ = puzzle.scramble(2, 1, rng)
    solved = 0
    for _, hname, sname in (c for c in VALID if c[0] == puzzle_name and c[1:] not in BLIND):
        h = _heuristic(puzzle, hname, tmp_path_factory)
        solver = registry.get_solver(sname, **SOLVER_ARGS.get(sname, {}))
        learned = registry.HEURISTICS[hname].props.needs_model
        for s in (near if learned else states):
            r = solver.solve(puzzle, h, s, LIMITS)
            assert r.status == Status.SOLVED, (hname, sname, r.status)
            # the solver replays its path; replay it here too, independently
            assert puzzle.check_solution(s, r.actions), (hname, sname)
            if registry.optimal_by_construction(sname, hname, sname in SOLVER_ARGS):
                assert r.length <= DEPTH, (hname, sname, r.length)
            solved += 1
    assert solved > 0


INVALID_HEURISTIC = [(p, h) for p in PUZZLES for h in registry.HEURISTICS
                     if not registry.heuristic_supports(registry.HEURISTICS[h], p)]


@pytest.mark.parametrize("puzzle_name", PUZZLES)
def test_heuristics_for_other_puzzles_are_refused_in_one_line(puzzle_name):
    puzzle = registry.get_puzzle(puzzle_name)
    names = [h for p, h in INVALID_HEURISTIC if p == puzzle_name]
    assert names
    for h in names:
        with pytest.raises(InputError) as exc:
            registry.get_heuristic(h, puzzle)
        msg = str(exc.value)
        assert "\n" not in msg and h in msg and puzzle_name in msg


def test_solvers_refuse_what_they_cannot_search_in_one_line(tmp_path_factory):
    refused = 0
    for p in PUZZLES:
        puzzle = registry.get_puzzle(p)
        start = puzzle.scramble(1, 2, np.random.default_rng(0))[0][0]
        for hname, h in registry.HEURISTICS.items():
            if not registry.heuristic_supports(h, p):
                continue
            for sname in registry.SOLVERS:
                if _valid(p, hname, sname):
                    continue
                heur = _heuristic(puzzle, hname, tmp_path_factory) if h.props.needs_model \
                    else None
                if heur is None:  # a PDB heuristic is refused before its tables are read
                    name, args = _stand_in(p, hname)
                    heur = registry.get_heuristic(name, puzzle, **args)
                with pytest.raises(InputError) as exc:
                    registry.get_solver(sname, **SOLVER_ARGS.get(sname, {})).solve(
                        puzzle, heur, start, LIMITS)
                assert "\n" not in str(exc.value)
                refused += 1
    assert refused > 0


def test_declared_options_check_types_and_ranges():
    beam = registry.SOLVERS["beam"]
    assert beam.check_options({"width": "12", "shorten": "false"}) == {"width": 12, "shorten": False}
    for bad, text in [({"width": 0}, "--width: must be >= 1"),
                      ({"width": "many"}, "--width: expected an integer"),
                      ({"goal_depth": 31}, "--goal-depth: must be in [0, 30]"),
                      ({"shorten": "maybe"}, "--shorten: expected true or false"),
                      ({"weight": 0.5}, "--weight: applies to bwas/astar/greedy/qstar, not to beam")]:
        with pytest.raises(InputError, match=text.replace("[", r"\[").replace("]", r"\]")):
            registry.get_solver("beam", **bad)
    with pytest.raises(InputError, match="--weight: must be in"):
        registry.get_solver("bwas", weight=100.5)
    with pytest.raises(InputError, match="--precision: expected float32 or bfloat16"):
        registry.heuristic_entry("davi").check_options({"precision": "int8"})


def test_every_pdb_is_declared_once_and_the_catalog_follows():
    from pdb_builders import catalog
    from pdb_builders.additive_tiles import PARTITIONS

    declared = {n for n, e in registry.HEURISTICS.items() if e.props.pdb}
    assert {e.heuristic for e in catalog.DATABASES} == declared
    for d in TILE_PDBS.values():
        if d.patterns:
            for p in d.puzzles:
                assert PARTITIONS[(p, d.partition)] == list(d.patterns)
            tiles = [t for pat in d.patterns for t in pat]
            assert len(tiles) == len(set(tiles)), d.partition  # disjoint
    for name, e in registry.HEURISTICS.items():
        decl = e.props.pdb
        if decl is not None and not decl.ci:
            assert decl.stand_in or decl.stand_in_args, name
