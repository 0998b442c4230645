"""Solve 3x3x3 cubes with the ``cayleypy`` package's learned heuristic, for comparison.

What it measures
----------------
cayleypy 0.2.0 run the way its documentation and examples find paths with a learned heuristic
(train a network to estimate the diffusion distance from random walks, then beam-search with it):

1. The graph is cayleypy's own ``Puzzles.rubik_cube(3, "QTM")``: 54 stickers, 12 quarter-turn
   generators, central (solved) state = the colour of each sticker (0..5 for faces U F R B L D), as
   ``CayleyGraph(..., device="cpu", bit_encoding_width=None)``: states are kept as one int64 per
   sticker. cayleypy's default ("auto") packs them into 3-bit fields, which saves memory but its
   unpacking (needed before every network call) took about 3 s per beam step of 49k states here,
   twice the network's own time; ``--bit-encoding auto`` restores it.
2. Training data are cayleypy's random walks from the solved state, ``graph.random_walks(width=W,
   length=26, mode="nbt", nbt_history_depth=2)`` (its "non-backtracking" walks, which the library
   says mix faster than classic ones; 26 is the quarter-turn diameter of the cube). The label of a
   state is the number of walk steps that produced it (the "diffusion distance"). Fresh walks are
   generated while training runs and each state is used once (``--epochs-per-chunk`` reuses them).
3. The network is cayleypy's own ``ModelConfig(...).build_model()``: one-hot input (54 x 6 = 324),
   by default ``RESMLP`` with ``layers_sizes=[1024, 256, 256]`` (Linear+LayerNorm+ReLU layers of
   1024 and 256 units, then one residual 256-unit block, then one output), the shape the CayleyPy
   paper (arXiv:2502.13266) gives for the 3x3x3 cube (N1=1024, N2=256, one residual block;
   cayleypy's residual block is one Linear+LayerNorm+ReLU layer with a skip). Training is plain
   float32 Adam (lr 1e-3) on the mean squared error (cayleypy's ``MseLoss``), batch 1024. cayleypy
   has no training loop of its own; this is a plain supervised regression loop.
4. Each cube is solved with cayleypy's ``graph.beam_search(beam_mode="simple", beam_width=4096,
   predictor=Predictor(graph, model), return_path=True)``: every step expands the whole beam by the
   12 moves, drops duplicates within the new layer, stops when the solved state appears, otherwise
   keeps the 4096 states the network scores lowest. cayleypy's beam search has no time limit, so the
   network is wrapped in a callable that raises once the per-cube deadline (``--time-limit``,
   default 60 s wall clock) has passed; it is called once per step, so a search stops at most one
   step after the deadline, and a cube counts as solved only if its path was found within the limit.
   ``--max-steps`` (default 100) also bounds the number of steps.

``--train-seconds`` is a WALL-CLOCK budget by default (``--train-clock cpu`` makes it the process
CPU time, which with T threads runs up to T times faster than the wall clock); it covers everything
in training: walk generation, batching and the Adam steps. Training stops at the first minibatch
boundary after the budget, so it can overrun by the generation of one chunk of walks
(``--walk-width`` x 26 = 130,000 states, 10-20 s on the busy 2-core machine it was written on;
``train_wall_s`` in the summary is the time actually spent). The summary reports both clocks, the
number of training states, and states/s (cayleypy itself reports no rate).

Moves and the generator mapping
-------------------------------
Singmaster quarter turns: ``U D L R F B`` turn that face 90 degrees CLOCKWISE AS SEEN LOOKING AT
THAT FACE from outside the cube; ``X'`` is the counter-clockwise turn; ``X2`` (input only) is
read as ``X X`` (two quarter turns, the quarter-turn metric). cayleypy's generator names are
layer names, ``f`` / ``r`` / ``d`` for the layers parallel to F / R / D, numbered 0 (the F, R, D
face) to 2 (the B, L, U face), each in one fixed direction for the whole axis, so on the far face
it is the counter-clockwise turn:

    F = f0    F' = f0'    B = f2'   B' = f2
    R = r0    R' = r0'    L = r2'   L' = r2
    D = d0    D' = d0'    U = d2'   U' = d2

cayleypy applies a generator ``p`` to a state ``s`` as ``s'[i] = s[p[i]]`` (the sticker at
position ``p[i]`` moves to position ``i``), and a path (list of generator indices) is applied
left to right. The state layout (also the ``state:`` input format below) is the usual facelet net:
index ``9*face + 3*row + col`` with faces in the order U F R B L D, each face seen from outside
the cube, row 0 at the top, column 0 on the left, where "top" is the B side for U, the F side for
D, and the U side for F R B L (so U's row 2 touches F, F's column 2 touches R, D's row 0
touches F).

How this was verified (and is re-verified on every run, before anything else): the script carries
its own facelet cube built from 3-D geometry (each sticker is a position in {-1,0,1}^3 and an
outward normal, in the right-handed frame x towards R, y towards U, z towards F; a clockwise quarter
turn of face X rotates the stickers of that layer by -90 degrees about X's outward normal), lays its
54 stickers out by the layout above, and checks that every one of the 12 cayleypy generator
permutations equals the geometric move the table names, sticker for sticker. Every path beam search
returns is then replayed twice: with cayleypy's own permutations from the cube's cayleypy state (it
must reach cayleypy's central state) and, independently, with the geometric cube from the given
scramble (it must be solved). ``--self-test`` additionally checks that each scramble followed by its
inverse is the identity in both, and solves and replays a few random scrambles.

Input (``--cubes FILE``): one cube per line; blank lines and lines starting with ``#`` are skipped.
A line is either a scramble, quarter turns from the solved cube in the notation above separated by
spaces (``R U' F2 D``), or ``state:`` followed by 54 integers 0..5, the colour at each position of
the layout above (0=U 1=F 2=R 3=B 4=L 5=D colour), i.e. a cayleypy state.

Output (``--out FILE``, JSON lines, one per cube, in input order): ``index`` (0-based line number
among the cubes), ``solved``, ``length`` (quarter turns), ``moves`` (Singmaster, space separated;
applied to the given cube they solve it), ``time_s`` (wall time of the beam search), ``reason``
(``solved`` / ``time_limit`` / ``max_steps`` / ``replay_failed``), ``scored_steps`` (beam steps in
which the network was called: the first few layers are smaller than the beam and are kept whole),
``cayley_path`` (generator names), ``replay_cayleypy`` and ``replay_facelets`` (the two replay
checks), and the input ``scramble`` or ``state``. ``length``, ``moves`` and ``cayley_path`` are
null when no path was found; a path found only in the step that ran past the deadline is given
but has ``solved`` false. A JSON summary (settings, training, totals) is printed on stdout.

Set-up (a separate virtual environment; the CPU torch wheel must be installed first, or pip pulls
the CUDA build; cayleypy 0.2.0 accepts that torch and brings numpy, scipy, numba, h5py, kagglehub):

    python3 -m venv /tmp/cayleypy-venv
    /tmp/cayleypy-venv/bin/pip install torch==2.13.0
    /tmp/cayleypy-venv/bin/pip install cayleypy==0.2.0

Run (train once, then solve with the saved model):

    nice -n 10 /tmp/cayleypy-venv/bin/python tests/benchmarks/peers/cayleypy_cube3.py \\
        --train-seconds 3600 --threads 2 --save-model /tmp/cayleypy/model.pt \\
        --cubes cubes.txt --out cayleypy.jsonl
    nice -n 10 /tmp/cayleypy-venv/bin/python tests/benchmarks/peers/cayleypy_cube3.py \\
        --load-model /tmp/cayleypy/model.pt --cubes cubes.txt --out cayleypy.jsonl

    nice -n 10 /tmp/cayleypy-venv/bin/python tests/benchmarks/peers/cayleypy_cube3.py \\
        --self-test --train-seconds 60 --out selftest.jsonl

Comparability notes: the network is float32 on the CPU with ``--threads`` torch threads
(default 2). The default network has 664,321 parameters, about 0.66 M multiply-adds per state
(0.33 M of them in its 324 -> 1024 first layer); ``--model-type RESMLP --layers
512,256,256,256,256,256`` gives cayleypy's residual net with the same linear layers as a
324 -> 512 -> 256 -> two two-layer residual blocks of 256 net (about 0.56 M multiply-adds; its
skips span one layer instead of two, and it uses LayerNorm instead of batch norm). Labels are
random-walk step counts, which overestimate the true distance. The beam search scores every new
state with the network (it does not use a Q-model), and it keeps no closed list across steps.

It imports nothing from this project.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import cayleypy
import torch
from cayleypy import CayleyGraph, ModelConfig, Predictor, Puzzles, load_checkpoint, save_checkpoint

FACES = "UFRBLD"  # cayleypy's face order; colour c is the colour of face FACES[c]

#: Singmaster quarter turn -> cayleypy generator name (checked against geometry on every run)
SINGMASTER_TO_CAYLEY = {
    "F": "f0",
    "F'": "f0'",
    "B": "f2'",
    "B'": "f2",
    "R": "r0",
    "R'": "r0'",
    "L": "r2'",
    "L'": "r2",
    "D": "d0",
    "D'": "d0'",
    "U": "d2'",
    "U'": "d2",
}
CAYLEY_TO_SINGMASTER = {v: k for k, v in SINGMASTER_TO_CAYLEY.items()}
QUARTER_TURNS = list(SINGMASTER_TO_CAYLEY)

# Geometry of the facelet layout: outward normal, "up" (towards row 0) and "right" (towards
# column 2) of each face seen from outside. x points to R, y to U, z to F.
_NORMAL = {
    "U": (0, 1, 0),
    "D": (0, -1, 0),
    "R": (1, 0, 0),
    "L": (-1, 0, 0),
    "F": (0, 0, 1),
    "B": (0, 0, -1),
}
_UP = {
    "U": (0, 0, -1),
    "D": (0, 0, 1),
    "R": (0, 1, 0),
    "L": (0, 1, 0),
    "F": (0, 1, 0),
    "B": (0, 1, 0),
}
_RIGHT = {
    "U": (1, 0, 0),
    "D": (1, 0, 0),
    "R": (0, 0, -1),
    "L": (0, 0, 1),
    "F": (1, 0, 0),
    "B": (-1, 0, 0),
}


def _add(*vs):
    return tuple(sum(c) for c in zip(*vs, strict=True))


def _scale(k, v):
    return tuple(k * c for c in v)


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def _rot_cw(v, n):
    """Rotates v by -90 degrees about the unit axis n (clockwise seen from the tip of n)."""
    return _add(_scale(-1, _cross(n, v)), _scale(_dot(n, v), n))


class FaceletCube:
    """Independent 3x3x3 facelet cube, from 3-D geometry, in cayleypy's sticker layout."""

    def __init__(self):
        self.stickers = []  # index -> (position, normal)
        for face in FACES:
            n, up, right = _NORMAL[face], _UP[face], _RIGHT[face]
            for row in range(3):
                for col in range(3):
                    self.stickers.append((_add(n, _scale(1 - row, up), _scale(col - 1, right)), n))
        where = {s: i for i, s in enumerate(self.stickers)}
        assert len(where) == 54
        self.solved = [FACES.index(face) for face in FACES for _ in range(9)]
        # src[m][i]: position whose sticker lands on position i after move m (cayleypy's convention)
        self.src = {}
        for face in "UDLRFB":
            n = _NORMAL[face]
            dest = list(range(54))
            for i, (pos, nrm) in enumerate(self.stickers):
                if _dot(pos, n) == 1:
                    dest[i] = where[(_rot_cw(pos, n), _rot_cw(nrm, n))]
            cw = [0] * 54
            for i, j in enumerate(dest):
                cw[j] = i
            ccw = [0] * 54
            for i, j in enumerate(cw):
                ccw[j] = i
            self.src[face], self.src[face + "'"] = cw, ccw

    def apply(self, colours, moves):
        s = list(colours)
        for m in moves:
            p = self.src[m]
            s = [s[p[i]] for i in range(54)]
        return s


def parse_moves(text):
    """'R U' F2' -> ['R', "U'", 'F', 'F'] (quarter turns); raises ValueError on anything else."""
    out = []
    for tok in text.split():
        if tok in SINGMASTER_TO_CAYLEY:
            out.append(tok)
        elif len(tok) == 2 and tok[0] in "UDLRFB" and tok[1] == "2":
            out += [tok[0], tok[0]]
        else:
            raise ValueError(f"not a quarter/half turn in Singmaster notation: {tok!r}")
    return out


def invert_moves(moves):
    return [m[0] if m.endswith("'") else m + "'" for m in reversed(moves)]


def verify_generator_mapping(graph, cube):
    """Checks every cayleypy generator against the geometric move the table names."""
    d = graph.definition
    if (
        d.n_generators != 12
        or d.state_size != 54
        or sorted(d.generator_names) != sorted(CAYLEY_TO_SINGMASTER)
    ):
        raise SystemExit(f"unexpected cayleypy cube generators: {d.generator_names}")
    if [int(c) for c in d.central_state] != cube.solved:
        raise SystemExit("unexpected cayleypy central state")
    perms = d.generators_permutations
    for sm, name in SINGMASTER_TO_CAYLEY.items():
        p = [int(x) for x in perms[d.generator_names.index(name)]]
        if p != cube.src[sm]:
            raise SystemExit(
                f"cayleypy generator {name} is not the quarter turn {sm}: mapping wrong"
            )
        # and through cayleypy's own apply_path on the coloured solved state
        got = (
            graph.apply_path(graph.central_state, [d.generator_names.index(name)])
            .reshape(-1)
            .tolist()
        )
        if got != cube.apply(cube.solved, [sm]):
            raise SystemExit(f"cayleypy apply_path({name}) differs from the geometric {sm}")


def gen_ids(graph, moves):
    names = graph.definition.generator_names
    return [names.index(SINGMASTER_TO_CAYLEY[m]) for m in moves]


def read_cubes(path, cube):
    cubes = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                if line.startswith("state:"):
                    vals = [int(x) for x in line[len("state:") :].replace(",", " ").split()]
                    if len(vals) != 54 or any(v < 0 or v > 5 for v in vals):
                        raise ValueError("a state is 54 integers 0..5")
                    if any(vals.count(c) != 9 for c in range(6)) or any(
                        vals[9 * f + 4] != f for f in range(6)
                    ):
                        raise ValueError(
                            "a state has 9 stickers of each colour and centres 0..5 (U F R B L D)"
                        )
                    cubes.append({"scramble": None, "state": vals})
                else:
                    mv = parse_moves(line)
                    cubes.append({"scramble": mv, "state": cube.apply(cube.solved, mv)})
            except ValueError as e:
                raise SystemExit(f"{path}:{lineno}: {e}") from None
    return cubes


def make_scrambles(n, length, rng):
    out = []
    for _ in range(n):
        mv = []
        while len(mv) < length:
            m = rng.choice(QUARTER_TURNS)
            if mv and invert_moves([m]) == [mv[-1]]:
                continue  # no move that undoes the previous one
            mv.append(m)
        out.append(mv)
    return out


def train(graph, args, log):
    layers = [int(x) for x in args.layers.split(",")]
    cfg = ModelConfig(
        model_type=args.model_type, input_size=54, num_classes_for_one_hot=6, layers_sizes=layers
    )
    model = cfg.build_model().to(graph.device)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = cayleypy.MseLoss()
    clock = time.process_time if args.train_clock == "cpu" else time.perf_counter
    t0, w0, c0 = clock(), time.perf_counter(), time.process_time()
    gen_s = 0.0
    states = steps = chunks = 0
    last_loss = float("nan")
    done = False
    while not done and clock() - t0 < args.train_seconds:
        tg = time.perf_counter()
        x, y = graph.random_walks(
            width=args.walk_width,
            length=args.walk_length,
            mode=args.walk_mode,
            nbt_history_depth=args.nbt_depth,
        )
        y = y.float()
        gen_s += time.perf_counter() - tg
        chunks += 1
        for _ in range(args.epochs_per_chunk):
            order = torch.randperm(len(y), device=y.device)
            for i in range(0, len(y), args.batch):
                if clock() - t0 >= args.train_seconds:
                    done = True
                    break
                idx = order[i : i + args.batch]
                loss = loss_fn(model(x[idx]), y[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                states += len(idx)
                steps += 1
                last_loss = float(loss.detach())
            if done:
                break
        log(
            f"train: {time.perf_counter() - w0:.0f}s wall, {states} states, {steps} steps, "
            f"loss {last_loss:.3f}"
        )
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    model.eval()
    stats = {
        "train_clock": args.train_clock,
        "train_budget_s": args.train_seconds,
        "train_wall_s": round(wall, 2),
        "train_cpu_s": round(cpu, 2),
        "walk_generation_wall_s": round(gen_s, 2),
        "train_states": states,
        "train_states_per_wall_s": round(states / wall, 1) if wall > 0 else None,
        "sgd_states_per_wall_s": round(states / (wall - gen_s), 1) if wall > gen_s else None,
        "optimizer_steps": steps,
        "walk_chunks": chunks,
        "last_batch_mse": round(last_loss, 4),
        "model": cfg.to_dict(),
        "parameters": sum(p.numel() for p in model.parameters()),
        "walks": {
            "mode": args.walk_mode,
            "width": args.walk_width,
            "length": args.walk_length,
            "nbt_history_depth": args.nbt_depth,
            "epochs_per_chunk": args.epochs_per_chunk,
        },
        "optimizer": {"name": "Adam", "lr": args.lr, "batch": args.batch, "loss": "MseLoss"},
    }
    return model, cfg, stats


class _Deadline(Exception):
    pass


class _TimedModel:
    """The network as a plain callable that stops the beam search once the deadline has passed."""

    def __init__(self, model):
        self.model = model
        self.deadline = float("inf")

    def __call__(self, states):
        if time.perf_counter() > self.deadline:
            raise _Deadline()
        return self.model(states)


def solve_one(graph, predictor, timed, start_state, args):
    steps = {"n": 0}
    inner = timed.model

    def counting(states):
        steps["n"] += 1
        return inner(states)

    timed.model = counting
    t0 = time.perf_counter()
    timed.deadline = t0 + args.time_limit
    try:
        res = graph.beam_search(
            start_state=start_state,
            beam_mode="simple",
            predictor=predictor,
            beam_width=args.width,
            max_steps=args.max_steps,
            return_path=True,
        )
        reason = "solved" if res.path_found else "max_steps"
    except _Deadline:
        res, reason = None, "time_limit"
    finally:
        timed.model = inner
    elapsed = time.perf_counter() - t0
    path = list(res.path) if res is not None and res.path_found else None
    if path is not None and elapsed > args.time_limit:
        reason = "time_limit"  # found, but only in the step that ran past the deadline
    return path, reason, elapsed, steps["n"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--train-seconds",
        type=float,
        default=3600.0,
        help="training budget (wall clock unless --train-clock cpu)",
    )
    ap.add_argument("--train-clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--threads", type=int, default=2, help="torch threads")
    ap.add_argument("--width", type=int, default=4096, help="beam width")
    ap.add_argument(
        "--time-limit", type=float, default=60.0, help="per-cube wall-clock limit, seconds"
    )
    ap.add_argument("--max-steps", type=int, default=100, help="beam search steps at most")
    ap.add_argument("--cubes", help="input file (see the module docstring)")
    ap.add_argument("--out", help="JSON lines output, one line per cube")
    ap.add_argument("--save-model", help="save the trained network (cayleypy checkpoint) here")
    ap.add_argument("--load-model", help="skip training and load this cayleypy checkpoint")
    ap.add_argument(
        "--self-test",
        action="store_true",
        help="check the mapping, then solve and replay random scrambles",
    )
    ap.add_argument("--self-test-cubes", type=int, default=3)
    ap.add_argument("--self-test-length", type=int, default=10)
    ap.add_argument("--model-type", default="RESMLP", choices=["RESMLP", "MLP"])
    ap.add_argument(
        "--layers", default="1024,256,256", help="cayleypy layers_sizes, comma separated"
    )
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--walk-mode", default="nbt", choices=["nbt", "classic", "bfs"])
    ap.add_argument("--walk-width", type=int, default=5000, help="walks generated per chunk")
    ap.add_argument("--walk-length", type=int, default=26)
    ap.add_argument("--nbt-depth", type=int, default=2, help="nbt_history_depth of the nbt walks")
    ap.add_argument("--epochs-per-chunk", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument(
        "--bit-encoding",
        choices=["none", "auto"],
        default="none",
        help="cayleypy's bit_encoding_width: none = int64 per sticker, auto = 3-bit packing",
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    if not args.self_test and not args.cubes and not args.save_model:
        ap.error("give --cubes, --self-test or --save-model")
    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    graph = CayleyGraph(
        Puzzles.rubik_cube(3, "QTM"),
        device=args.device,
        random_seed=args.seed,
        bit_encoding_width=None if args.bit_encoding == "none" else "auto",
    )
    cube = FaceletCube()
    verify_generator_mapping(graph, cube)
    log("mapping: all 12 cayleypy generators equal the geometric quarter turns")

    if args.self_test:
        scrambles = make_scrambles(args.self_test_cubes, args.self_test_length, rng)
        scrambles += make_scrambles(20, 30, rng)  # extra, for the inverse check only
        for mv in scrambles:
            st = graph.apply_path(graph.central_state, gen_ids(graph, mv)).reshape(-1).tolist()
            if st != cube.apply(cube.solved, mv):
                raise SystemExit(
                    f"self-test: cayleypy and facelet states differ after {' '.join(mv)}"
                )
            back = graph.apply_path(torch.tensor(st), gen_ids(graph, invert_moves(mv))).reshape(-1)
            if (
                not torch.equal(back, graph.central_state)
                or cube.apply(st, invert_moves(mv)) != cube.solved
            ):
                raise SystemExit(
                    f"self-test: scramble then inverse is not the identity: {' '.join(mv)}"
                )
        log("self-test: scrambles agree in cayleypy and the facelet cube; their inverses undo them")
        cubes = [
            {"scramble": mv, "state": cube.apply(cube.solved, mv)}
            for mv in scrambles[: args.self_test_cubes]
        ]
    else:
        cubes = read_cubes(args.cubes, cube) if args.cubes else []

    if args.load_model:
        model, cfg = load_checkpoint(
            args.load_model, device=str(graph.device), graph_def=graph.definition
        )
        side = args.load_model + ".json"
        train_stats = {}
        if os.path.exists(side):
            with open(side, encoding="utf-8") as fh:
                train_stats = json.load(fh)
        train_stats = {"loaded_from": args.load_model, **train_stats}
        log(f"loaded {args.load_model}")
    else:
        model, cfg, train_stats = train(graph, args, log)
        if args.save_model:
            save_checkpoint(args.save_model, model, cfg, graph.definition)
            with open(args.save_model + ".json", "w", encoding="utf-8") as fh:
                json.dump(train_stats, fh, indent=1)
            log(f"saved {args.save_model}")
    model.eval()

    timed = _TimedModel(model)
    # a plain callable: Predictor calls it under torch.no_grad()
    predictor = Predictor(graph, timed)
    names = graph.definition.generator_names
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    results = []
    bad_replays = 0
    for i, c in enumerate(cubes):
        path, reason, elapsed, steps = solve_one(graph, predictor, timed, c["state"], args)
        rec = {"index": i, "solved": reason == "solved"}
        if path is not None:
            sm = [CAYLEY_TO_SINGMASTER[names[g]] for g in path]
            end = graph.apply_path(torch.tensor(c["state"]), path).reshape(-1)
            rec_c = bool(torch.equal(end, graph.central_state))
            rec_f = cube.apply(c["state"], sm) == cube.solved
            if c["scramble"] is not None:
                # from the solved cube through the scramble, independently of cayleypy
                scrambled = cube.apply(cube.solved, c["scramble"])
                rec_f = rec_f and cube.apply(scrambled, sm) == cube.solved
            if not (rec_c and rec_f):
                bad_replays += 1
                rec["solved"] = False
                reason = "replay_failed"
            rec.update(length=len(path), moves=" ".join(sm))
        else:
            sm, rec_c, rec_f = None, None, None
            rec.update(length=None, moves=None)
        rec.update(
            time_s=round(elapsed, 3),
            reason=reason,
            scored_steps=steps,
            cayley_path=[names[g] for g in path] if path is not None else None,
            replay_cayleypy=rec_c,
            replay_facelets=rec_f,
        )
        if c["scramble"] is not None:
            rec["scramble"] = " ".join(c["scramble"])
        else:
            rec["state"] = c["state"]
        results.append(rec)
        log(f"cube {i}: {reason}, length {rec['length']}, {elapsed:.1f}s, {steps} scored steps")
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()
    if out:
        out.close()

    solved = [r for r in results if r["solved"]]
    summary = {
        "cayleypy": getattr(cayleypy, "__version__", None) or _dist_version("cayleypy"),
        "torch": torch.__version__,
        "threads": args.threads,
        "device": str(graph.device),
        "bit_encoding": args.bit_encoding,
        "beam_width": args.width,
        "time_limit_s": args.time_limit,
        "max_steps": args.max_steps,
        "training": train_stats,
        "cubes": len(results),
        "solved": len(solved),
        "replay_failures": bad_replays,
        "mean_length": round(sum(r["length"] for r in solved) / len(solved), 3) if solved else None,
        "mean_time_s_solved": round(sum(r["time_s"] for r in solved) / len(solved), 3)
        if solved
        else None,
        "lengths": [r["length"] for r in results],
        "times_s": [r["time_s"] for r in results],
    }
    print(json.dumps(summary))
    if bad_replays:
        print(
            f"ERROR: {bad_replays} returned path(s) did not replay to the solved cube",
            file=sys.stderr,
        )
        return 1
    return 0


def _dist_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # pragma: no cover
        return None


if __name__ == "__main__":
    sys.exit(main())
