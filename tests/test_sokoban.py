"""Sokoban: moves and pushes, levels and their errors, the generator's solutions, DeepCubeA's
levels, and the push heuristics against a plain breadth-first search of small levels."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from core import registry
from core.errors import InputError
from core.limits import Limits
from core.status import Status
from puzzles.sokoban import AGENT_GOAL, BOX, BOX_GOAL, GOAL, Sokoban

LEVEL = "#######/#.  $@#/#######"  # push the box three cells left onto the goal


@pytest.fixture(scope="module")
def p():
    return registry.get_puzzle("sokoban")


def test_level_text_round_trip_and_pushes(p):
    s = p.parse(LEVEL)
    assert p.parse(p.format(s)).tolist() == s.tolist()
    assert not p.is_goal(s[None, :])[0]
    children, valid = p.expand(s[None, :])
    assert valid[0].tolist() == [False, False, True, False]  # only L: walls up, down and right
    one = p.apply(s[None, :], np.array([2]))[0]
    assert p.format(one).split("/")[1].startswith("#. $@ #")
    assert p.check_solution(s, p.parse_moves("LLL")) and not p.check_solution(s, [2, 2])
    # a box against a wall or another box does not move
    blocked = p.parse("#######/#.$$@.#/#######")
    assert not p.expand(blocked[None, :])[1][0, 2]
    with pytest.raises(ValueError, match="illegal move L"):
        p.apply(blocked[None, :], np.array([2]))


@pytest.mark.parametrize("text,match", [
    ("#####/#@$ #/#####", "1 boxes but 0 goals"),
    ("#####/#@. #/#####", "the level has no box"),
    ("#####/#@$.@/#####", "a level has one agent, this one 2"),
    ("##########/#@$.      /##########", "not closed by walls"),
    ("#####/#@$X.#/#####", "'X' \\(row 2\\) is not a Sokoban cell"),
    ("#" * 11, "larger than the 10 x 10 board"),
])
def test_bad_levels_are_one_line_errors(p, text, match):
    with pytest.raises(InputError, match=match) as exc:
        p.parse(text)
    assert "\n" not in str(exc.value)


def test_no_single_goal_and_irreversible_moves(p):
    with pytest.raises(InputError, match="the goal is every box on a goal"):
        p.goal()
    assert not p.reversible and p.inverse_action(0) == -1


def _replay(p, start, actions):
    """The puzzle's own goal test on the state ``actions`` lead to from ``start``."""
    s = start[None, :]
    for a in actions:
        s = p.apply(s, np.array([int(a)]))
    return bool(p.is_goal(s)[0])


def test_generated_levels_are_solved_by_their_reverse_play(p):
    states, moves = p.scramble(12, 300, np.random.default_rng(5))
    again, again_moves = p.scramble(12, 300, np.random.default_rng(5))
    assert (states == again).all() and (moves == again_moves).all()  # a seed fixes the levels
    assert not (p.scramble(12, 300, np.random.default_rng(6))[0] == states).all()
    for s, m in zip(states, moves, strict=True):
        p.validate(s)
        sol = [int(a) for a in m if a >= 0]
        assert not (s == BOX_GOAL).any()  # every box off its goal, as in Boxoban
        assert int((s == BOX).sum()) == 4 and _replay(p, s, sol)


def test_selection_keeps_the_levels_whose_boxes_moved_far(p):
    from puzzles.sokoban_levels import LevelOptions

    def displacement(options):
        p10 = Sokoban(level_options=options)
        states, _ = p10.scramble(20, options.steps, np.random.default_rng(1))
        return np.mean([_box_displacement(p10, s) for s in states])

    one = displacement(LevelOptions(steps=200, tries=1))
    many = displacement(LevelOptions(steps=200, tries=8))
    assert many > one


def _box_displacement(p, s):
    """Sum over boxes of the Manhattan distance to the nearest goal (a displacement measure)."""
    n = p.size
    boxes = np.flatnonzero((s == BOX) | (s == BOX_GOAL))
    goals = np.flatnonzero((s == GOAL) | (s == BOX_GOAL) | (s == AGENT_GOAL))
    d = np.abs(boxes[:, None] // n - goals[None] // n) + np.abs(boxes[:, None] % n - goals[None] % n)
    return int(d.min(axis=1).sum())


@pytest.mark.parametrize("options,match", [
    ({"tries": 0}, "--tries: expected an integer >= 1"),
    ({"steps": 0}, "--depth: expected an integer >= 1"),
    ({"room_steps": -1}, "--room-steps: expected an integer >= 1"),
    ({"pull": 1.5}, "--pull: expected a probability"),
])
def test_bad_generator_options_are_one_line_errors(options, match):
    from puzzles.sokoban_levels import LevelOptions

    with pytest.raises(InputError, match=match):
        LevelOptions(**options).checked()


def test_tiny_generated_levels_are_valid_and_solved_by_a_star():
    from puzzles.sokoban_levels import LevelOptions

    small = Sokoban(7, 2, LevelOptions(steps=60, tries=2, room_steps=12))
    h = registry.get_heuristic("sokoban-matching", small)
    astar = registry.get_solver("astar")
    rng = np.random.default_rng(3)
    for _ in range(5):
        s, sol = small.generate(rng, boxes=2)
        small.validate(s)
        assert _replay(small, s, sol)
        r = astar.solve(small, h, s, Limits(time_s=60))
        assert r.status == Status.SOLVED and r.length <= len(sol) and _replay(small, s, r.actions)


@pytest.mark.parametrize("solver,args", [("greedy", {}), ("astar", {}),
                                         ("bwas", {"weight": 0.8, "batch": 10})])
def test_classic_searches_solve_small_levels(solver, args):
    small = registry.get_puzzle("sokoban7")
    h = registry.get_heuristic("sokoban-matching", small)
    search = registry.get_solver(solver, **args)
    rng = np.random.default_rng(8)
    for _ in range(3):
        s, _ = small.generate(rng, steps=60, boxes=2)
        r = search.solve(small, h, s, Limits(time_s=60))
        assert r.status == Status.SOLVED and _replay(small, s, r.actions)
        assert small.check_solution(s, r.actions)


def _bfs_length(p, start):
    """Optimal moves by breadth-first search over whole states."""
    seen = {start.tobytes()}
    queue = deque([(start, 0)])
    while queue:
        s, d = queue.popleft()
        if p.is_goal(s[None, :])[0]:
            return d
        children, valid = p.expand(s[None, :])
        for c in children[0][valid[0]]:
            if c.tobytes() not in seen:
                seen.add(c.tobytes())
                queue.append((c, d + 1))
    return None


def test_heuristics_are_lower_bounds_and_a_star_is_optimal():
    small = registry.get_puzzle("sokoban7")
    rng = np.random.default_rng(2)
    push = registry.get_heuristic("sokoban-push", small)
    match = registry.get_heuristic("sokoban-matching", small)
    astar = registry.get_solver("astar")
    checked = 0
    for _ in range(12):
        s, _ = small.generate(rng, steps=40, boxes=2)
        best = _bfs_length(small, s)
        hp, hm = float(push(s[None, :])[0]), float(match(s[None, :])[0])
        assert hp <= hm <= best
        r = astar.solve(small, match, s, Limits(time_s=60))
        assert r.status == Status.SOLVED and r.length == best
        checked += 1
    assert checked == 12


def test_dead_squares_are_infinite(p):
    # a box in a corner that is not a goal can never move again
    dead = p.parse("######/#$  .#/# @  #/######")
    assert np.isinf(registry.get_heuristic("sokoban-push", p)(dead[None, :])[0])
    assert np.isinf(registry.get_heuristic("sokoban-matching", p)(dead[None, :])[0])
    live = p.parse(LEVEL)
    assert registry.get_heuristic("sokoban-push", p)(live[None, :])[0] == 3


def test_deepcubea_levels(p, deepcubea):
    from suites.sources import deepcubea_instances

    inst = deepcubea_instances(p, deepcubea / "sokoban" / "test_data_0.pkl", limit=1000)
    assert len(inst) == 1000 and all("published_length" in i.meta for i in inst)
    for i in inst[:50]:
        s = i.state
        assert int((s == BOX).sum() + (s == BOX_GOAL).sum()) == 4
        assert int((s == GOAL).sum() + (s == BOX_GOAL).sum() + (s == 6).sum()) == 4
    bwas = registry.get_solver("bwas", weight=0.6, batch=100)
    h = registry.get_heuristic("sokoban-matching", p)
    for i in inst[:3]:
        r = bwas.solve(p, h, i.state, Limits(time_s=60))
        assert r.status == Status.SOLVED and p.check_solution(i.state, r.actions)


def test_from_deepcubea_refuses_boxes_on_walls(p):
    n = p.size
    walls = np.ones(n * n, dtype=np.int64)
    boxes = np.zeros(n * n, dtype=np.int64)
    boxes[0] = 1
    raw = np.concatenate([[5, 5], walls, boxes, boxes])
    with pytest.raises(InputError, match="a box or goal on a wall at row 1, column 1"):
        p.from_deepcubea(raw)


def test_deepcubea_table5_from_a_run(deepcubea, tmp_path):
    from bench import papers
    from bench.cli import main

    main(["run", "suite", "sokoban", "--quick", "--limit", "2", "--config", "push-bwas", "-q",
          "--out", str(tmp_path / "run")])
    text = papers.make("deepcubea-table5", run_dir=tmp_path / "run", out=tmp_path / "out")
    assert "| DeepCubeA (results file, all levels) | 1,000 | 100 |" in text.replace("1000", "1,000")
    assert "| ours: push-bwas | 2 | 100 |" in text


def test_reverse_walks_give_valid_levels_near_a_goal(p):
    rng = np.random.default_rng(4)
    states = p.reverse_walks(np.array([0, 1, 5, 30]), rng)
    for s in states:
        p.validate(s)
    assert p.is_goal(states[:1])[0]  # no step: a solved level


def _reference_reverse_steps(p, s, depths, actions, pulls):
    """The reverse walks stepped level by level in plain Python, from the same draws."""
    from puzzles.sokoban_levels import AGENT, FLOOR, WALL

    s = s.copy()
    for i in range(len(s)):
        ag = int(np.flatnonzero((s[i] == AGENT) | (s[i] == AGENT_GOAL))[0])
        for k in range(int(depths[i])):
            a = int(actions[i, k])
            t = int(p.step1[ag, a])
            if t < 0 or s[i, t] in (WALL, BOX, BOX_GOAL):
                continue
            behind = int(p.step1[ag, a ^ 1])
            pull = behind >= 0 and bool(pulls[i, k]) and s[i, behind] in (BOX, BOX_GOAL)
            s[i, ag] = GOAL if s[i, ag] == AGENT_GOAL else FLOOR
            if pull:
                s[i, ag] = BOX_GOAL if s[i, ag] == GOAL else BOX
                s[i, behind] = GOAL if s[i, behind] == BOX_GOAL else FLOOR
            s[i, t] = AGENT_GOAL if s[i, t] == GOAL else AGENT
            ag = t
    return s


def test_reverse_walk_kernel_matches_a_plain_reference(p):
    from puzzles._sokoban_kernels import reverse_walk_steps
    from puzzles.sokoban_levels import AGENT, carve_rooms, place_many

    rng = np.random.default_rng(11)
    o = p.level_options
    start, ok = place_many(carve_rooms(60, p.size, rng, o.room_steps, o.turn), p.boxes, rng)
    start = start[ok]
    depths = rng.integers(0, 200, size=len(start))
    actions = rng.integers(0, 4, size=(len(start), 200), dtype=np.int8)
    pulls = rng.random((len(start), 200)) < 0.5
    want = _reference_reverse_steps(p, start, depths, actions, pulls)
    got = start.copy()
    agent = np.argmax(got == AGENT, axis=1)
    reverse_walk_steps(got, agent, depths, p.step1, actions, pulls)
    assert (got == want).all()
    assert (got != start).any(axis=1).mean() > 0.5  # most walks moved something
    moved = (got == BOX).any(axis=1) | ((got == BOX_GOAL).sum(axis=1) < p.boxes)
    assert moved.any()  # and some pulled a box off its goal


def test_batched_rooms_are_carved_as_one_room_is(p):
    from collections import deque as _deque

    from puzzles.sokoban_levels import (
        AGENT,
        FLOOR,
        WALL,
        carve_room,
        carve_rooms,
        place_many,
    )

    o, n = p.level_options, p.size
    rng = np.random.default_rng(5)
    rooms = carve_rooms(400, n, rng, o.room_steps, o.turn)
    single = np.stack([carve_room(n, rng, o.room_steps, o.turn) for _ in range(400)])
    for batch in (rooms, single):
        grid = batch.reshape(-1, n, n)
        assert (grid[:, 0, :] == WALL).all() and (grid[:, :, 0] == WALL).all()
        assert (grid[:, -1, :] == WALL).all() and (grid[:, :, -1] == WALL).all()
    # the floor of every room is one 4-connected region
    for room in rooms[:100]:
        floor = set(np.flatnonzero(room == FLOOR).tolist())
        seen, todo = set(), _deque([next(iter(floor))])
        while todo:
            c = todo.popleft()
            if c in seen or c not in floor:
                continue
            seen.add(c)
            todo.extend(int(x) for x in p.step1[c] if x >= 0)
        assert seen == floor
    # the same process: the floor sizes agree in distribution (means within 3 %)
    a, b = (rooms == FLOOR).sum(axis=1).mean(), (single == FLOOR).sum(axis=1).mean()
    assert abs(a - b) / b < 0.03
    placed, ok = place_many(rooms, p.boxes, rng)
    assert ok.mean() > 0.9
    assert ((placed[ok] == BOX_GOAL).sum(axis=1) == p.boxes).all()
    assert ((placed[ok] == AGENT).sum(axis=1) == 1).all()
    assert (placed[~ok] == rooms[~ok]).all()
    # boxes and the agent stand on floor cells only
    assert (rooms[ok][(placed[ok] == BOX_GOAL) | (placed[ok] == AGENT)] == FLOOR).all()


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    """A tiny DAVI network trained for a few iterations on reverse-played generated levels."""
    import torch

    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("sokoban-davi") / "run"
    cfg = TrainConfig(puzzle="sokoban", target="davi", preset="mlp-tiny", batch=32, k_max=8,
                      check_every=3, eval_per_depth=2, eval_depths=1)
    t = Trainer(cfg, out, progress=False)
    t.train(3)
    assert t.target_updates >= 1
    return out


def test_davi_trains_on_generated_levels(tiny_net):
    from learning.checkpoint import load_checkpoint

    ckpt = load_checkpoint(tiny_net / "checkpoint.pt")
    assert ckpt["goal"] is None  # a set of goals


@pytest.mark.parametrize("solver,args", [("bwas", {"weight": 0.6, "batch": 10}),
                                         ("beam", {"width": 50}), ("greedy", {})])
def test_learned_searches_solve_a_small_level(tiny_net, solver, args):
    p = registry.get_puzzle("sokoban")
    h = registry.get_heuristic("davi", p, model=str(tiny_net))
    level = p.parse(LEVEL)
    r = registry.get_solver(solver, **args).solve(p, h, level, Limits(time_s=30))
    assert r.status == Status.SOLVED and _replay(p, level, r.actions)


def test_training_batches_are_reverse_played_generated_rooms(p):
    from learning.data import make_batch

    b = make_batch(p, 0, 0, 64, 40, True, False)
    assert b.depths.max() > 1 and not b.is_goal.all()
    for s in b.states:
        p.validate(s)
    assert (b.states == BOX).any(axis=1).mean() > 0.3  # boxes pulled off their goals
    assert len({s.tobytes() for s in (b.states == 1)}) > 8  # many rooms, not one


def test_diffusion_trains_on_generated_levels(tmp_path):
    import torch

    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    torch.set_num_threads(1)
    cfg = TrainConfig(puzzle="sokoban", target="diffusion", preset="mlp-tiny", batch=32,
                      k_max=8, check_every=3, eval_per_depth=2, eval_depths=1)
    t = Trainer(cfg, tmp_path / "run", progress=False)
    t.train(3)
    assert (tmp_path / "run" / "checkpoint.pt").is_file()


def test_learned_profile_uses_the_shipped_model_or_names_it(capsys, tmp_path):
    """With the shipped ``sokoban`` network the learned profile solves a level of the suite
    (DeepCubeA's, or the generated fallback) and replays it; without it, one line."""
    import json

    from bench.cli import main
    from learning.model_store import SHIPPED_DIR

    args = ["run", "suite", "sokoban", "--profile", "learned", "--limit", "1", "--config",
            "davi-bwas", "-q", "--threads", "1", "--out", str(tmp_path / "run")]
    if (SHIPPED_DIR / "sokoban").is_dir():
        main(args)
        rows = [json.loads(x) for x in (tmp_path / "run" / "rows.jsonl").read_text().splitlines()]
        # the runner marks a row solved only after replaying its path to a goal
        assert len(rows) == 1 and rows[0]["status"] == "solved" and rows[0]["length"] > 0
        assert rows[0]["heuristic"] == "value-net" and rows[0]["solver"] == "bwas"
        from learning.checkpoint import load_checkpoint

        # the row says what the network was trained on, as its checkpoint records it
        trained = load_checkpoint(SHIPPED_DIR / "sokoban" / "model.pt")["target"]
        assert rows[0]["model_target"] == trained and trained in ("davi", "diffusion")
        return
    with pytest.raises(SystemExit) as exc:
        main(args)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--config davi-bwas: needs the shipped model 'sokoban'" in err
    assert len(err.strip().splitlines()) == 1


def test_scramble_cli_prints_levels_and_their_solutions(capsys):
    from bench.cli import main

    main(["scramble", "sokoban", "--depth", "60", "--count", "2", "--seed", "3"])
    levels = capsys.readouterr().out.splitlines()
    main(["scramble", "sokoban", "--depth", "60", "--count", "2", "--seed", "3", "--moves"])
    sols = capsys.readouterr().out.strip().splitlines()
    p = registry.get_puzzle("sokoban")
    for level, sol in zip(levels, sols, strict=True):
        assert p.check_solution(p.parse(level), p.parse_moves(sol))
    with pytest.raises(SystemExit) as exc:
        main(["scramble", "sokoban", "--depth", "0"])
    assert exc.value.code == 2 and "--depth: a Sokoban level" in capsys.readouterr().err
    main(["scramble", "sokoban", "--count", "1", "--seed", "3", "--tries", "2", "--room-steps", "30"])
    p.parse(capsys.readouterr().out.strip())
    with pytest.raises(SystemExit) as exc:
        main(["scramble", "puzzle8", "--depth", "3", "--tries", "2"])
    assert exc.value.code == 2 and "--tries: only for Sokoban" in capsys.readouterr().err
