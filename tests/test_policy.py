"""Move-prediction (policy) networks: scramble labels, the masked loss, beam search by cumulative
log-probability against a plain-Python beam, refusals, resume, and a short cube2 training run
whose policy solves random states (paths replayed)."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from core import registry
from core.capabilities import Policy
from core.errors import InputError
from core.status import Status
from heuristics.base import Heuristic, PolicyGuide

torch = pytest.importorskip("torch")

from learning.targets.policy import policy_loss  # noqa: E402
from learning.train_config import TrainConfig  # noqa: E402
from learning.trainer import Trainer  # noqa: E402
from learning.walks import batch_generator, domain_for  # noqa: E402
from solvers.beam import BeamSearch  # noqa: E402
from tests.test_davi_cli import bench  # noqa: E402

TINY = dict(preset="mlp-tiny", batch=64, k_max=6, check_every=3, eval_per_depth=4, eval_depths=2)


# --------------------------------------------------------------------------- labels
@pytest.mark.parametrize("name", ["cube2", "cube3-htm", "puzzle8", "puzzle15"])
def test_label_of_a_one_move_scramble_is_its_inverse_move(name):
    puzzle = registry.get_puzzle(name)
    domain = domain_for(puzzle)
    states, labels = domain.labelled_walks(torch.ones(200, dtype=torch.long),
                                           batch_generator(3, 0, torch.device("cpu")))
    states, labels = states.numpy(), labels.numpy()
    goal = puzzle.goal()
    legal = {int(a) for a in puzzle.legal_actions(goal)}
    seen = set()
    for s, lab in zip(states, labels, strict=True):
        # the one move that made s from the goal, found by trying every legal move
        made = [a for a in range(puzzle.num_actions)
                if a in legal and np.array_equal(puzzle.apply(goal, [a])[0], s)]
        assert len(made) == 1
        assert lab == puzzle.inverse_action(made[0])
        assert np.array_equal(puzzle.apply(s, [lab])[0], goal)
        seen.add(made[0])
    assert seen == legal  # every first move occurs


def test_lights_out_label_is_the_set_of_pressed_cells():
    puzzle = registry.get_puzzle("lightsout7")
    domain = domain_for(puzzle)
    depths = torch.tensor([1, 1, 3, 7, 20, 49])
    states, pressed = domain.labelled_walks(depths, batch_generator(5, 0, torch.device("cpu")))
    for s, p, k in zip(states.numpy(), pressed.numpy(), depths.tolist(), strict=True):
        cells = [int(c) for c in np.flatnonzero(p)]
        assert len(cells) == k  # distinct presses
        lights = [0] * 49  # the presses applied one light at a time
        for c in cells:
            r, col = divmod(c, 7)
            for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                if 0 <= r + dr < 7 and 0 <= col + dc < 7:
                    lights[(r + dr) * 7 + col + dc] ^= 1
        assert lights == [int(v) for v in s]
        assert puzzle.check_solution(s, cells)  # any order of the pressed cells solves it


def test_policy_batches_label_legal_moves_on_tiles():
    puzzle = registry.get_puzzle("puzzle8")
    b = domain_for(puzzle).policy_batch(0, 1, 300, 12)
    legal = puzzle.expand(b.states.numpy())[1]
    assert np.array_equal(b.legal.numpy(), legal)
    assert legal[np.arange(300), b.labels.numpy()].all()


def _plain_labelled_walk(p, level, actions, pulls):
    """Plain Python: the walk ``labelled_reverse_walk_steps`` makes from ``level`` with these
    draws; returns the states it passes through and the directions of the steps taken."""
    from puzzles.sokoban_levels import AGENT, AGENT_GOAL, BOX, BOX_GOAL, FLOOR, GOAL

    n = p.size
    deltas = ((-1, 0), (1, 0), (0, -1), (0, 1))

    def cell(c, a):
        r, q = divmod(c, n)
        r, q = r + deltas[a][0], q + deltas[a][1]
        return r * n + q if 0 <= r < n and 0 <= q < n else -1

    row = [int(v) for v in level]
    ag = next(i for i, v in enumerate(row) if v in (AGENT, AGENT_GOAL))

    def free(c):
        return c >= 0 and row[c] in (FLOOR, GOAL)

    seen, steps = [list(row)], []
    for a, pull in zip(actions, pulls, strict=True):
        a = int(a)
        t, b = cell(ag, a), cell(ag, a ^ 1)
        if not free(t):
            continue
        pulled = bool(pull) and b >= 0 and row[b] in (BOX, BOX_GOAL)
        if steps and a == steps[-1] ^ 1 and not pulled \
                and any(free(cell(ag, d)) for d in range(4) if d != a):
            continue  # it would undo the step before, and the agent has another way
        under = GOAL if row[ag] == AGENT_GOAL else FLOOR
        if pulled:
            row[b] = GOAL if row[b] == BOX_GOAL else FLOOR
            under = BOX_GOAL if under == GOAL else BOX
        row[ag] = under
        row[t] = AGENT_GOAL if row[t] == GOAL else AGENT
        ag = t
        seen.append(list(row))
        steps.append(a)
    return seen, steps


def test_sokoban_labelled_walks_equal_a_plain_walk_and_their_label_undoes_the_last_step():
    from puzzles._sokoban_kernels import labelled_reverse_walk_steps
    from puzzles.sokoban_levels import AGENT

    p = registry.get_puzzle("sokoban")
    rng = np.random.default_rng(4)
    levels = p._solved_levels(60, rng)
    depths = rng.integers(1, 40, size=60)
    actions = rng.integers(0, 4, size=(60, 40), dtype=np.int8)
    pulls = rng.random((60, 40)) < 0.5
    s = levels.copy()
    agent = np.argmax(s == AGENT, axis=1)
    taken, last = np.zeros(60, dtype=np.int64), np.zeros(60, dtype=np.int64)
    labelled_reverse_walk_steps(s, agent, depths, p.step1, actions, pulls, taken, last)
    for i in range(60):
        seen, steps = _plain_labelled_walk(p, levels[i], actions[i, :depths[i]],
                                           pulls[i, :depths[i]])
        assert s[i].tolist() == seen[-1] and taken[i] == len(steps)
        assert last[i] == (steps[-1] if steps else -1)
        if steps:  # the forward move last ^ 1 gives back the state before the last step
            assert p.apply(s[i], [last[i] ^ 1])[0].tolist() == seen[-2]
    states, labels, walked = p.labelled_reverse_walks(depths, np.random.default_rng(5))
    ok = labels >= 0
    assert ok.mean() > 0.8 and (walked[ok] >= 1).all() and (walked <= depths).all()
    assert p.expand(states[ok])[1][np.arange(ok.sum()), labels[ok]].all()


def test_sokoban_policy_batches_hold_labelled_legal_moves():
    from learning.data import make_policy_batch

    p = registry.get_puzzle("sokoban")
    b = make_policy_batch(p, 0, 3, 200, 30)
    assert 150 <= len(b.states) <= 200 and (b.labels >= 0).all()
    assert np.array_equal(b.legal, p.expand(b.states)[1])
    assert b.legal[np.arange(len(b.labels)), b.labels].all()
    again = make_policy_batch(p, 0, 3, 200, 30)
    assert np.array_equal(again.states, b.states) and np.array_equal(again.labels, b.labels)


def test_a_sokoban_policy_trains_and_beam_solves_levels_with_it(tmp_path):
    """A goal set: training on labelled reverse walks, resume-ready files, and beam search by
    the policy's log-probabilities (every path replayed)."""
    p = registry.get_puzzle("sokoban")
    cfg = TrainConfig(puzzle="sokoban", target="policy", **{**TINY, "k_max": 20})
    Trainer(cfg, tmp_path, progress=False).train(3)
    assert (tmp_path / "model.pt").is_file() and (tmp_path / "depth_log.csv").is_file()
    h = registry.get_heuristic("policy", p, model=str(tmp_path))
    levels, _ = p.scramble(20, 5, np.random.default_rng(2))
    levels = levels[~p.is_goal(levels)][:3]
    assert len(levels) == 3
    for level in levels:
        r = BeamSearch(width=1024).run(p, h, level)  # 4^5 paths: every path of 5 moves is kept
        assert r.status == Status.SOLVED and 1 <= r.length <= 5
        assert p.check_solution(level, r.actions)
        assert r.network_evaluations is not None


def test_loss_is_the_cross_entropy_over_legal_moves():
    logits = torch.tensor([[2.0, 50.0, -1.0, 0.5], [0.0, 1.0, 2.0, 3.0]])
    legal = torch.tensor([[True, False, True, True], [True, True, True, True]])
    labels = torch.tensor([2, 3])

    def ce(row, ok, label):
        z = sum(math.exp(v) for v, o in zip(row, ok, strict=True) if o)
        return -(row[label] - math.log(z))
    want = (ce([2.0, 50.0, -1.0, 0.5], [1, 0, 1, 1], 2) + ce([0, 1, 2, 3], [1, 1, 1, 1], 3)) / 2
    assert float(policy_loss(logits, labels, legal)) == pytest.approx(want, rel=1e-6)
    sets = torch.tensor([[1, 0, 0, 1], [0, 1, 1, 0]], dtype=torch.uint8)  # uniform over each set
    lse1 = math.log(sum(math.exp(v) for v in (2.0, -1.0, 0.5)))  # the legal moves of row 1
    lse2 = math.log(sum(math.exp(v) for v in (0.0, 1.0, 2.0, 3.0)))
    row1 = -(0.5 * (2.0 - lse1) + 0.5 * (0.5 - lse1))
    row2 = -(0.5 * (1.0 - lse2) + 0.5 * (2.0 - lse2))
    want_sets = (row1 + row2) / 2
    assert float(policy_loss(logits, sets, legal)) == pytest.approx(want_sets, rel=1e-6)


# --------------------------------------------------------------------------- beam ranking
class HashPolicy(PolicyGuide):
    """A deterministic stand-in policy: each move's logit from the child's Manhattan distance
    plus a per-state pseudo-random term, normalised over the legal moves."""

    name = "policy"

    def __init__(self, puzzle):
        super().__init__(puzzle)
        self.network_evaluations = 0

    def logits(self, state):
        children, legal = self.puzzle.expand(state[None, :])
        goal = self.puzzle.goal()
        out = []
        for a in range(self.puzzle.num_actions):
            c = children[0, a]
            dist = sum(abs(int(np.flatnonzero(c == t)[0]) // 3 - int(np.flatnonzero(goal == t)[0]) // 3)
                       + abs(int(np.flatnonzero(c == t)[0]) % 3 - int(np.flatnonzero(goal == t)[0]) % 3)
                       for t in range(1, 9))
            noise = (zlib.crc32(c.tobytes()) % 1000) / 400.0
            out.append(-0.6 * dist + noise if legal[0, a] else None)
        return out

    def log_probs(self, states, legal=None):
        rows = []
        for s in np.atleast_2d(states):
            z = [v for v in self.logits(s) if v is not None]
            m = max(z)
            lse = m + math.log(sum(math.exp(v - m) for v in z))
            rows.append([-math.inf if v is None else v - lse for v in self.logits(s)])
        self.network_evaluations += len(rows)
        return np.array(rows)


def reference_beam(puzzle, policy, start, width, max_depth=200):
    """Beam search by cumulative log-probability in plain Python (the rules of solvers.beam)."""
    goal = tuple(int(v) for v in puzzle.goal())
    layer = [(tuple(int(v) for v in start), 0.0, [])]
    prev: set = set()
    evaluations = 0
    for _ in range(max_depth):
        current = {s for s, _, _ in layer}
        children = []
        for s, score, path in layer:
            kids, legal = puzzle.expand(np.array([s], dtype=puzzle.dtype))
            for a in range(puzzle.num_actions):
                if legal[0, a]:
                    c = tuple(int(v) for v in kids[0, a])
                    if c == goal:
                        return path + [a], evaluations
                    children.append((s, score, path, a, c))
        logp = {s: policy.log_probs(np.array([s], dtype=puzzle.dtype))[0] for s, _, _ in layer}
        best: dict = {}
        for gen, (s, score, path, a, c) in enumerate(children):
            total = score + float(logp[s][a])
            if c not in best or total > best[c][0]:
                best[c] = (total, gen, path + [a])
        evaluations += len(layer)
        cand = [(total, gen, c, path) for c, (total, gen, path) in best.items()
                if c not in current and c not in prev]
        cand.sort(key=lambda t: (-t[0], t[1]))
        chosen = sorted(cand[:width], key=lambda t: t[1])
        prev = current
        layer = [(c, total, path) for total, _, c, path in chosen]
    return None, evaluations


@pytest.mark.parametrize("width", [1, 3, 8])
def test_beam_ranking_equals_a_plain_python_beam(width):
    puzzle = registry.get_puzzle("puzzle8")
    policy = HashPolicy(puzzle)
    states, _ = puzzle.scramble(4, 14, np.random.default_rng(width))
    for s in states:
        want, evaluations = reference_beam(puzzle, policy, s, width)
        policy.network_evaluations = 0
        r = BeamSearch(width=width, max_depth=200).run(puzzle, policy, s)
        if want is None:
            assert r.status != Status.SOLVED
            continue
        assert r.status == Status.SOLVED and r.actions == want
        assert puzzle.check_solution(s, r.actions)
        assert r.network_evaluations == evaluations == r.extra["evaluations"]
        assert r.h_start is None


# --------------------------------------------------------------------------- models and refusals
@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory):
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("policy") / "cube2"
    Trainer(TrainConfig(puzzle="cube2", target="policy", **TINY), out, progress=False).train(3)
    return out


def test_solvers_other_than_beam_refuse_a_policy_in_one_line(tiny_policy):
    puzzle = registry.get_puzzle("cube2")
    h = registry.get_heuristic("policy", puzzle, model=str(tiny_policy))
    start = puzzle.from_moves([0, 2])
    for name in registry.SOLVERS:
        if name == "beam":
            r = registry.get_solver(name, width=8).run(puzzle, h, start)
            assert r.status == Status.SOLVED and puzzle.check_solution(start, r.actions)
            continue
        if not registry.solver_supports(registry.SOLVERS[name], "cube2"):
            continue
        with pytest.raises(InputError) as exc:
            registry.check_solver_heuristic(name, "policy")
        assert "\n" not in str(exc.value)
        assert ("beam" if registry.uses_heuristic(name) else "uses no heuristic") in str(exc.value)
        for call in (registry.get_solver(name).solve, registry.get_solver(name).run):
            with pytest.raises(InputError) as exc:
                call(puzzle, h, start)
            assert "\n" not in str(exc.value) and str(exc.value).startswith("--heuristic: ")
    # a policy is not a heuristic: it has log-probabilities of moves and no values to call for
    assert isinstance(h, Policy) and not isinstance(h, Heuristic) and not callable(h)


def test_a_policy_models_declared_search_is_its_default(tiny_policy, tmp_path):
    import shutil

    from learning.ship import set_search, ship

    entry = registry.heuristic_entry("policy")
    run = tmp_path / "run"
    shutil.copytree(tiny_policy, run)
    plain = registry.default_search(entry, "cube2", str(run))  # a user's run declares none
    assert plain.solver == "beam" and not plain.recommended and plain.solver_args == {}
    dest = ship(run, "cube2-policy", [], dest_root=tmp_path / "models")
    set_search("cube2-policy", {"solver": "beam", "width": 4}, dest_root=tmp_path / "models")
    rec = registry.default_search(entry, "cube2", str(dest))
    assert rec.solver == "beam" and rec.solver_args == {"width": 4} and rec.recommended
    assert rec.note == "the model's recommended search"
    assert not registry.default_search(entry, "cube2", str(tmp_path / "none")).recommended


def test_value_and_policy_models_are_not_interchangeable(tiny_policy, tmp_path):
    puzzle = registry.get_puzzle("cube2")
    with pytest.raises(InputError, match="policy"):
        registry.get_heuristic("davi", puzzle, model=str(tiny_policy))
    value = tmp_path / "value"
    Trainer(TrainConfig(puzzle="cube2", target="diffusion", **TINY), value, progress=False).train(1)
    with pytest.raises(InputError, match="not a policy"):
        registry.get_heuristic("policy", puzzle, model=str(value))


def test_policy_resume_is_exact(tmp_path):
    torch.set_num_threads(1)
    cfg = TrainConfig(puzzle="puzzle8", target="policy", seed=2, **TINY)
    a = Trainer(cfg, tmp_path / "a", progress=False)
    a.train(6)
    b = Trainer(cfg, tmp_path / "b", progress=False)
    b.train(3)
    b = Trainer.resume(tmp_path / "b", progress=False)
    b.train(3)
    assert b.iteration == 6
    for k, v in a.model.state_dict().items():
        torch.testing.assert_close(v, b.model.state_dict()[k], rtol=0, atol=0)
    assert (tmp_path / "a" / "log.csv").read_text().splitlines()[-1].split(",")[:2] == \
        (tmp_path / "b" / "log.csv").read_text().splitlines()[-1].split(",")[:2]


def test_cli_trains_prints_distributions_and_refuses_in_one_line(tiny_policy, tmp_path):
    out = tmp_path / "run"
    res = bench("train", "policy", "lightsout7", "--iterations", "2", "--out", str(out),
                "--batch", "32", "--preset", "mlp-tiny", "--eval-per-depth", "2", "--threads",
                "1", "--quiet")
    assert res.returncode == 0, res.stderr
    assert "policy lightsout7: iteration 2" in res.stdout
    res = bench("h", "lightsout7", "policy", "--model", str(out), "--scramble", "r0c0 r3c3")
    assert res.returncode == 0, res.stderr
    pairs = res.stdout.split()
    probs = [float(v) for v in pairs[1::2]]
    assert len(probs) == 49 and sum(probs) == pytest.approx(1.0, abs=1e-3)
    assert probs == sorted(probs, reverse=True)
    res = bench("solve", "cube2", "--scramble", "R U", "--heuristic", "policy", "--model",
                str(tiny_policy), "--json")
    assert res.returncode == 0, res.stderr
    assert '"network_evaluations"' in res.stdout and '"status": "solved"' in res.stdout
    for args in (["solve", "cube2", "--scramble", "R U", "--heuristic", "policy", "--model",
                  str(tiny_policy), "--solver", "bwas"],
                 ["quality", "cube2", "policy", "--model", str(tiny_policy)],
                 ["train", "policy", "cube2", "--backtrack", "--out", str(tmp_path / "x")],
                 ["train", "policy", "sokoban", "--backtrack", "--out", str(tmp_path / "y")],
                 ["solve", "cube2", "--scramble", "R U", "--heuristic", "davi", "--model",
                  str(tiny_policy), "--solver", "beam"]):
        res = bench(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr, args


def test_train_evaluate_searches_a_policy_with_beam_and_refuses_other_solvers(tiny_policy,
                                                                             tmp_path):
    """``bench train evaluate`` reads a policy model with the ``policy`` heuristic (beam only)."""
    import json

    run = tmp_path / "ev"
    res = bench("train", "evaluate", "cube2", "--model", str(tiny_policy), "--set",
                "scramble:2", "--count", "3", "--solver", "beam", "--width", "16",
                "--run-dir", str(run))
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["states"] == 3 and summary["solved"] == 1.0
    assert 'heuristic = "policy"' in (run / "evaluate.toml").read_text()
    res = bench("train", "evaluate", "cube2", "--model", str(tiny_policy), "--solver", "bwas",
                "--run-dir", str(tmp_path / "ev2"))
    assert res.returncode == 2 and "searched with beam" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "ev2").exists()


def test_value_networks_count_their_evaluations(tmp_path):
    puzzle = registry.get_puzzle("cube2")
    Trainer(TrainConfig(puzzle="cube2", target="diffusion", **TINY), tmp_path, progress=False).train(1)
    h = registry.get_heuristic("davi", puzzle, model=str(tmp_path))
    start = puzzle.from_moves([0, 2, 4])
    r = BeamSearch(width=16).run(puzzle, h, start)
    assert r.network_evaluations == r.extra["evaluations"] + 1  # and h(start)
    zero = registry.get_heuristic("zero", puzzle)
    assert BeamSearch(width=16).run(puzzle, zero, start).network_evaluations is None


# --------------------------------------------------------------------------- a trained policy
@pytest.mark.slow
def test_a_policy_trained_for_at_most_two_cpu_minutes_solves_cube2(tmp_path):
    """At most 2 minutes of CPU time (80 s), one thread, a 2-layer MLP of 256: at least 9 of 10
    random 2x2x2 states solved by beam width 512, every path replayed here."""
    torch.set_num_threads(1)
    cfg = TrainConfig(puzzle="cube2", target="policy", preset="mlp", h1=256, num_blocks=2,
                      batch=1000, k_max=14, lr=2e-3, lr_decay=1.0, check_every=10**6,
                      eval_per_depth=10, eval_depths=2)
    trainer = Trainer(cfg, tmp_path, progress=False)
    trainer.train(10**9, max_cpu_seconds=80)
    assert trainer.cpu_seconds <= 120
    puzzle = registry.get_puzzle("cube2")
    h = registry.get_heuristic("policy", puzzle, model=str(tmp_path))
    solved = 0
    for s in puzzle.random_states(10, np.random.default_rng(1)):
        r = BeamSearch(width=512).run(puzzle, h, s)
        if r.status == Status.SOLVED:
            assert puzzle.check_solution(s, r.actions)
            solved += 1
    assert solved >= 9
