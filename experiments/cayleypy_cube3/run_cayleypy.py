"""cayleypy 0.2.0 on the 3x3x3 cube (quarter-turn metric), run beside heuristic-bench.

Runs with the interpreter of a separate virtual environment that has cayleypy and a CPU build of
torch (see results/cayleypy-cube3/README.md); it imports nothing from heuristic-bench. The two sides exchange files:

* ``export_and_check export`` (project side) writes ``states.json``: the project's cube3 move
  tables (sticker permutations and move names), its goal, the DeepCubeA test cubes in the
  project's sticker layout, and a few random scrambles used to check the layout mapping;
* this script trains cayleypy's MLP (``train``), checks the mapping (``verify``) and solves the
  exported cubes with cayleypy's beam search (``solve``), writing one CSV row per cube with the
  path in the project's move names;
* ``export_and_check check`` replays every path with the project's cube3 puzzle.

The layout mapping is derived, not typed in: every sticker of either cube is named by its colour
in the solved state and the set of faces whose turns move it (its piece), which fixes a bijection
between the two layouts once the colours of the two sides are matched; the colour matching that
makes every cayleypy generator a project move (conjugated by that bijection) is kept, and the
script stops if none does.

From the repository root, with the cayleypy environment's interpreter:

    python -m experiments.cayleypy_cube3.run_cayleypy train --out model.pt --train-minutes 60 \
        --threads 2
    python -m experiments.cayleypy_cube3.run_cayleypy verify --states states.json
    python -m experiments.cayleypy_cube3.run_cayleypy solve --model model.pt \
        --states states.json --out results.csv --width 4096 --time-limit 60 --threads 2

It is also the peer benchmark against cayleypy: ``train`` reports its training rate (walk states
per wall and per CPU second, the seconds of walks and of updates per iteration) and ``solve`` the
seconds and scored layers per cube; ``--model-type RESMLP --layers 1024,256,256`` trains the
CayleyPy paper's 3x3x3 network, ``--bit-encoding none`` keeps one int64 per sticker.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
from cayleypy import CayleyGraph, ModelConfig, Predictor, Puzzles, load_checkpoint, save_checkpoint
from cayleypy.train import MseLoss

#: cayleypy's 3x3x3: stickers 0..53 in nine-sticker blocks, block k has colour k when solved; the
#: blocks are its faces U F R B L D in this order (puzzles/cube.py of cayleypy 0.2.0). Used only
#: to try the matching colour assignment first; the mapping is checked whatever the order.
CAYLEYPY_FACE_LETTERS = "UFRBLD"

CSV_FIELDS = ["index", "id", "solved", "length", "seconds", "status", "scored_layers", "moves"]


# ----------------------------------------------------------------------------- graph
def cube_graph(seed: int = 0, bit_encoding: str = "auto") -> CayleyGraph:
    """cayleypy's 3x3x3 cube in the quarter-turn metric: 12 generators (6 faces x 2 directions).

    ``bit_encoding`` "auto" (cayleypy's default) packs stickers into 3-bit fields; "none" keeps
    one int64 per sticker, which spares the unpacking before every network call (on the 2-core
    machine about 3 s per beam step of 49k states, twice the network's own time)."""
    definition = Puzzles.rubik_cube(3, "QTM")
    if definition.n_generators != 12 or definition.state_size != 54:
        raise SystemExit(f"unexpected cayleypy cube: {definition.n_generators} generators, "
                         f"{definition.state_size} stickers")
    return CayleyGraph(definition, device="cpu", random_seed=seed,
                       bit_encoding_width=None if bit_encoding == "none" else "auto")


# ----------------------------------------------------------------------------- layout mapping
def _turned_face(perm: np.ndarray, solved: np.ndarray) -> int:
    """Colour (in the solved state) of the face a quarter turn ``perm`` rotates: the one colour
    whose 8 non-centre stickers all move."""
    moved = perm != np.arange(perm.size)
    counts = np.bincount(solved[moved], minlength=6)
    faces = np.flatnonzero(counts == 8)
    if moved.sum() != 20 or faces.size != 1 or sorted(counts.tolist()) != [0, 3, 3, 3, 3, 8]:
        raise SystemExit("a generator is not a quarter turn of one face of a 3x3x3 cube")
    return int(faces[0])


def _sticker_keys(perms: np.ndarray, solved: np.ndarray) -> list[tuple[int, frozenset[int]]]:
    """For each sticker: (its colour when solved, the faces whose turns move it)."""
    faces = [_turned_face(p, solved) for p in perms]
    keys = []
    for i in range(solved.size):
        movers = frozenset(f for f, p in zip(faces, perms, strict=True) if p[i] != i)
        keys.append((int(solved[i]), movers))
    if len(set(keys)) != solved.size:
        raise SystemExit("stickers are not told apart by colour and piece")
    return keys


class Mapping:
    """A verified correspondence between cayleypy's cube and the project's.

    ``pos[j]``: the project sticker at cayleypy sticker ``j``; ``colour[c]``: the project colour of
    cayleypy colour ``c``; ``move_names[g]``: the project move equal to cayleypy generator ``g``.
    """

    def __init__(self, pos: np.ndarray, colour: np.ndarray, gen_to_action: list[int],
                 action_names: list[str], cayley_names: list[str]) -> None:
        self.pos = pos
        self.pos_inv = np.argsort(pos)
        self.colour = colour
        self.colour_inv = np.argsort(colour)
        self.gen_to_action = gen_to_action
        self.action_to_gen = {a: g for g, a in enumerate(gen_to_action)}
        self.action_names = action_names
        self.move_names = [action_names[a] for a in gen_to_action]
        self.cayley_names = cayley_names
        self.name_to_gen = {n: g for g, n in enumerate(self.move_names)}

    def to_cayley(self, states: np.ndarray) -> np.ndarray:
        """Project states ``(B, 54)`` -> cayleypy states ``(B, 54)``."""
        states = np.atleast_2d(np.asarray(states, dtype=np.int64))
        return self.colour_inv[states[:, self.pos]]

    def to_project(self, states: np.ndarray) -> np.ndarray:
        """cayleypy states ``(B, 54)`` -> project states ``(B, 54)``."""
        states = np.atleast_2d(np.asarray(states, dtype=np.int64))
        out = np.empty_like(states)
        out[:, self.pos] = self.colour[states]
        return out

    def generators(self, move_names: list[str]) -> list[int]:
        """Project move names -> cayleypy generator ids."""
        try:
            return [self.name_to_gen[m] for m in move_names]
        except KeyError as exc:
            raise SystemExit(f"unknown project move {exc.args[0]!r}") from None

    def describe(self, project_letters: str) -> dict:
        return {
            "cayleypy_face_to_project_face": {CAYLEYPY_FACE_LETTERS[c]: project_letters[int(p)]
                                              for c, p in enumerate(self.colour)},
            "cayleypy_to_project_sticker": self.pos.tolist(),
            "cayleypy_to_project_colour": self.colour.tolist(),
            "generators": {c: p for c, p in zip(self.cayley_names, self.move_names, strict=True)},
        }


def build_mapping(graph: CayleyGraph, project: dict) -> Mapping:
    """Find the mapping between cayleypy's cube and the project's (see the module docstring)."""
    c_perms = np.array(graph.definition.generators_permutations, dtype=np.int64)
    c_solved = np.array(graph.definition.central_state, dtype=np.int64)
    p_perms = np.array(project["perms"], dtype=np.int64)
    p_solved = np.array(project["goal"], dtype=np.int64)
    p_letters = project["colour_letters"]
    names = list(project["action_names"])
    if p_perms.shape != (12, 54) or p_solved.shape != (54,):
        raise SystemExit("states file: the project puzzle must have 12 moves on 54 stickers")
    c_keys = _sticker_keys(c_perms, c_solved)
    p_index = {k: i for i, k in enumerate(_sticker_keys(p_perms, p_solved))}
    p_rows = {tuple(p.tolist()): a for a, p in enumerate(p_perms)}

    preferred = tuple(p_letters.index(ch) for ch in CAYLEYPY_FACE_LETTERS)
    candidates = itertools.chain([preferred], itertools.permutations(range(6)))
    for colour in candidates:
        pos = np.empty(54, dtype=np.int64)
        ok = True
        for j, (col, movers) in enumerate(c_keys):
            i = p_index.get((colour[col], frozenset(colour[m] for m in movers)))
            if i is None:
                ok = False
                break
            pos[j] = i
        if not ok or len(set(pos.tolist())) != 54:
            continue
        pos_inv = np.argsort(pos)
        # cayleypy generator g equals project action a when P[a] = pos o perm_g o pos^-1
        gen_to_action = []
        for perm in c_perms:
            a = p_rows.get(tuple(pos[perm[pos_inv]].tolist()))
            if a is None:
                break
            gen_to_action.append(a)
        if len(gen_to_action) == 12 and len(set(gen_to_action)) == 12:
            return Mapping(pos, np.array(colour, dtype=np.int64), gen_to_action, names,
                           list(graph.definition.generator_names))
    raise SystemExit("no mapping between cayleypy's cube and the project's makes every generator a "
                     "project move")


def check_mapping(graph: CayleyGraph, mapping: Mapping, data: dict) -> dict:
    """Check the mapping on the states file; exit on any failure. Returns counts for the log."""
    central = np.array(graph.definition.central_state, dtype=np.int64)
    goal = np.array(data["project"]["goal"], dtype=np.int64)
    if not np.array_equal(mapping.to_cayley(goal)[0], central):
        raise SystemExit("mapping: the project's goal is not cayleypy's central state")
    # every generator: one turn from the goal on each side
    p_perms = np.array(data["project"]["perms"], dtype=np.int64)
    for g, a in enumerate(mapping.gen_to_action):
        cay = graph.apply_path(torch.as_tensor(central), [g]).cpu().numpy()
        if not np.array_equal(mapping.to_project(cay)[0], goal[p_perms[a]]):
            raise SystemExit(f"mapping: generator {graph.definition.generator_names[g]} differs "
                             f"from project move {mapping.action_names[a]}")
    # scrambles made by the project: the same moves in cayleypy give the same state
    scrambles = data.get("scrambles", [])
    for k, sc in enumerate(scrambles):
        gens = mapping.generators(sc["moves"].split())
        cay = graph.apply_path(torch.as_tensor(central), gens).cpu().numpy()
        want = np.array(sc["state"], dtype=np.int64)
        if not np.array_equal(mapping.to_project(cay)[0], want):
            raise SystemExit(f"mapping: scramble {k} ({len(gens)} moves) gives another state in "
                             "cayleypy than in the project")
        if not np.array_equal(mapping.to_cayley(want)[0], cay[0]):
            raise SystemExit(f"mapping: scramble {k}: converting the project's state disagrees")
    # round trip of every test state
    states = np.array([s["state"] for s in data["states"]], dtype=np.int64).reshape(-1, 54)
    if states.size and not np.array_equal(mapping.to_project(mapping.to_cayley(states)), states):
        raise SystemExit("mapping: converting a test state there and back changes it")
    return {"generators": 12, "scrambles": len(scrambles), "round_trips": int(states.shape[0])}


def load_states_file(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    for key in ("project", "states"):
        if key not in data:
            raise SystemExit(f"{path}: no {key!r}; write it with export_and_check.py export")
    return data


# ----------------------------------------------------------------------------- model
def make_config(layers: list[int], model_type: str = "MLP") -> ModelConfig:
    """cayleypy's network on one-hot stickers: ``MLP`` (Linear+LayerNorm+ReLU layers) or
    ``RESMLP`` (the same with residual blocks; the CayleyPy paper's 3x3x3 shape is
    ``--model-type RESMLP --layers 1024,256,256``)."""
    return ModelConfig(model_type=model_type, input_size=54, num_classes_for_one_hot=6,
                       layers_sizes=layers)


def _parse_layers(text: str) -> list[int]:
    try:
        layers = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--layers: expected sizes like 512,512,512, got {text!r}") from None
    if not layers or min(layers) < 1:
        raise SystemExit(f"--layers: expected positive sizes, got {text!r}")
    return layers


def train(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    graph = cube_graph(args.seed, args.bit_encoding)
    config = make_config(_parse_layers(args.layers), args.model_type)
    model = config.build_model()
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = MseLoss()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = out.with_suffix(".log.csv")
    budget = args.train_minutes * 60.0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    last_save = wall0
    states_seen = 0
    iteration = 0
    walk_s = step_s = 0.0
    with open(log_path, "w", newline="", encoding="utf-8") as log_fh:
        log = csv.writer(log_fh)
        log.writerow(["iteration", "states", "cpu_s", "wall_s", "walk_s", "step_s", "loss"])
        while time.process_time() - cpu0 < budget:
            t0 = time.perf_counter()
            with torch.no_grad():
                x, y = graph.random_walks(width=args.walks, length=args.walk_length, mode=args.walk_mode,
                                          nbt_history_depth=args.nbt_depth)
            t1 = time.perf_counter()
            order = torch.randperm(x.shape[0])
            x, y = x[order], y[order].float()
            losses = []
            for lo in range(0, x.shape[0], args.batch):
                pred = model(x[lo:lo + args.batch])
                loss = loss_fn(pred, y[lo:lo + args.batch])
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                losses.append(float(loss.detach()))
            t2 = time.perf_counter()
            iteration += 1
            states_seen += int(x.shape[0])
            walk_s += t1 - t0
            step_s += t2 - t1
            log.writerow([iteration, states_seen, f"{time.process_time() - cpu0:.1f}",
                          f"{t2 - wall0:.1f}", f"{t1 - t0:.3f}", f"{t2 - t1:.3f}",
                          f"{sum(losses) / len(losses):.4f}"])
            log_fh.flush()
            if iteration == 1 or iteration % args.print_every == 0:
                print(f"iteration {iteration}: {states_seen} states, loss {sum(losses) / len(losses):.3f}, "
                      f"cpu {time.process_time() - cpu0:.0f} s, wall {t2 - wall0:.0f} s", flush=True)
            if t2 - last_save > args.save_every:
                save_checkpoint(out, model, config, graph.definition)
                last_save = t2
    model.eval()
    save_checkpoint(out, model, config, graph.definition)
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    summary = {
        "cayleypy": _version("cayleypy"), "torch": torch.__version__, "threads": args.threads,
        "model_type": args.model_type, "bit_encoding": args.bit_encoding,
        "layers": config.layers_sizes, "walk_mode": args.walk_mode, "walks": args.walks,
        "walk_length": args.walk_length, "nbt_depth": args.nbt_depth, "batch": args.batch, "lr": args.lr,
        "seed": args.seed, "iterations": iteration, "states": states_seen, "cpu_s": round(cpu, 1),
        "wall_s": round(wall, 1),
        "s_per_iteration": round(wall / max(iteration, 1), 3),
        "states_per_wall_s": round(states_seen / wall, 1) if wall > 0 else None,
        "states_per_cpu_s": round(states_seen / cpu, 1) if cpu > 0 else None,
        "update_states_per_wall_s": round(states_seen / step_s, 1) if step_s > 0 else None,
        "walk_s_per_iteration": round(walk_s / max(iteration, 1), 3),
        "update_s_per_iteration": round(step_s / max(iteration, 1), 3),
        "mean_prediction_by_walk_step": _calibration(graph, model, args),
    }
    out.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=1))
    print(f"wrote {out}, {out.with_suffix('.json')} and {log_path}")


def _calibration(graph: CayleyGraph, model: torch.nn.Module, args: argparse.Namespace) -> dict:
    """Mean prediction on fresh random walks, by walk step (a rough check that training worked)."""
    with torch.no_grad():
        x, y = graph.random_walks(width=200, length=args.walk_length, mode=args.walk_mode,
                                  nbt_history_depth=args.nbt_depth)
        pred = model(x)
    return {int(d): round(float(pred[y == d].mean()), 2) for d in torch.unique(y).tolist()}


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001 - only for the log
        return "unknown"


# ----------------------------------------------------------------------------- search
class _OutOfTime(Exception):
    pass


class _TimedModel:
    """The trained model as a cayleypy predictor that gives up once the cube's time is spent.

    Beam search scores each new layer through this object, so the search stops within one layer
    of the deadline.
    """

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model
        self.deadline = math.inf
        self.calls = 0

    def predict(self, states: torch.Tensor) -> torch.Tensor:
        if time.perf_counter() > self.deadline:
            raise _OutOfTime
        self.calls += 1
        return self.model(states)


def solve(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    data = load_states_file(args.states)
    graph = cube_graph(args.seed, args.bit_encoding)
    mapping = build_mapping(graph, data["project"])
    checked = check_mapping(graph, mapping, data)
    print(f"mapping checked: {checked}", flush=True)
    model, config = load_checkpoint(args.model, device="cpu", graph_def=graph.definition)
    model.eval()
    timed = _TimedModel(model)
    predictor = Predictor(graph, timed)
    mitm = None
    if args.mitm_depth > 0:
        mitm = graph.bfs(max_diameter=args.mitm_depth, return_all_hashes=True)

    states = data["states"][: args.limit] if args.limit else data["states"]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done: set[int] = set()
    if args.resume and out.is_file():
        with open(out, newline="", encoding="utf-8") as fh:
            done = {int(r["index"]) for r in csv.DictReader(fh)}
    mode = "a" if done else "w"
    central = torch.as_tensor(graph.definition.central_state)
    with open(out, mode, newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        if not done:
            writer.writeheader()
        for item in states:
            index = int(item["index"])
            if index in done:
                continue
            start = mapping.to_cayley(np.array(item["state"]))[0]
            timed.calls = 0
            t0 = time.perf_counter()
            timed.deadline = t0 + args.time_limit
            status, path = "not found", None
            try:
                result = graph.beam_search(start_state=torch.as_tensor(start), beam_mode="simple",
                                           predictor=predictor, beam_width=args.width,
                                           max_steps=args.max_steps, return_path=True,
                                           bfs_result_for_mitm=mitm)
                if result.path_found:
                    status, path = "found", list(result.path)
                else:
                    status = "max steps"
            except _OutOfTime:
                status = "time limit"
            seconds = time.perf_counter() - t0
            if path is not None:
                end = graph.apply_path(torch.as_tensor(start), path).reshape(-1)
                if not torch.equal(end.cpu(), central):
                    status, path = "wrong path", None
            moves = [mapping.move_names[g] for g in path] if path is not None else []
            row = {"index": index, "id": item.get("id", index), "solved": int(path is not None),
                   "length": len(moves) if path is not None else "", "seconds": f"{seconds:.2f}",
                   "status": status, "scored_layers": timed.calls, "moves": " ".join(moves)}
            writer.writerow(row)
            fh.flush()
            print(f"cube {index}: {status}, length {row['length']}, {seconds:.1f} s, "
                  f"{timed.calls} scored layers", flush=True)
    print(f"wrote {out}")


def verify(args: argparse.Namespace) -> None:
    data = load_states_file(args.states)
    graph = cube_graph(0)
    mapping = build_mapping(graph, data["project"])
    checked = check_mapping(graph, mapping, data)
    report = {"checked": checked, **mapping.describe(data["project"]["colour_letters"])}
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({key: report[key] for key in ("checked", "cayleypy_face_to_project_face", "generators")},
                     indent=1))


def export_onnx(args: argparse.Namespace) -> None:
    """The trained network as an ONNX model of the project's cube3 states, with its card.

    The graph takes the project's raw states (``(B, 54)`` int64 sticker colours, the card's
    encoding ``state``), reorders and recolours them into cayleypy's layout with the mapping that
    ``verify`` checks, and runs cayleypy's network: ``bench run suite cube3 --profile cayleypy``
    evaluates it with onnxruntime under the project's own searches. The export is checked here
    against the network on the states file's scrambles."""
    data = load_states_file(args.states)
    graph = cube_graph(0)
    mapping = build_mapping(graph, data["project"])
    check_mapping(graph, mapping, data)
    model, _config = load_checkpoint(args.model, device="cpu", graph_def=graph.definition)
    model.eval()

    class ProjectInput(torch.nn.Module):
        pos: torch.Tensor
        colour_inv: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.register_buffer("pos", torch.as_tensor(mapping.pos, dtype=torch.int64))
            self.register_buffer("colour_inv",
                                 torch.as_tensor(mapping.colour_inv, dtype=torch.int64))

        def forward(self, states: torch.Tensor) -> torch.Tensor:
            cay = self.colour_inv[states.index_select(1, self.pos)]
            return self.model(cay).reshape(-1, 1)

    wrapper = ProjectInput().eval()
    x = torch.as_tensor(np.array([s["state"] for s in data["scrambles"]]), dtype=torch.int64)
    with torch.no_grad():
        direct = model(torch.as_tensor(mapping.to_cayley(x.numpy()))).reshape(-1)
        wrapped = wrapper(x).reshape(-1)
    gap = float((direct - wrapped).abs().max())
    if gap > 1e-5:
        raise SystemExit(f"the wrapped network differs from cayleypy's by {gap:g}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(wrapper, (x,), str(out), input_names=["states"], output_names=["cost"],
                      dynamic_axes={"states": {0: "batch"}, "cost": {0: "batch"}}, dynamo=False)
    card = {"puzzle": "cube3", "encoding": "state", "input": "codes", "output": "value",
            "search": {"solver": "beam", "width": args.width},
            "source": f"cayleypy {_version('cayleypy')} {type(model).__name__} ({args.model}) "
                      "behind the sticker and colour mapping of experiments/cayleypy_cube3, "
                      f"exported by torch {torch.__version__.split('+')[0]} (TorchScript exporter)"}
    card_path = out.with_suffix(".card.json")
    card_path.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} and {card_path} (checked on {len(x)} scrambles)")


# ----------------------------------------------------------------------------- CLI
def _bit_encoding_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bit-encoding", choices=["auto", "none"], default="auto",
                        help="cayleypy's bit_encoding_width: auto (its default) packs stickers "
                             "into 3 bits, none keeps one int64 per sticker (faster beam steps)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train cayleypy's MLP on random walks from the solved cube")
    t.add_argument("--out", required=True, help="checkpoint to write (cayleypy's format)")
    t.add_argument("--train-minutes", type=float, required=True, help="budget in CPU minutes of this process")
    t.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    t.add_argument("--layers", default="512,512,512", help="hidden layer sizes (default 512,512,512)")
    t.add_argument("--model-type", default="MLP", choices=["MLP", "RESMLP"],
                   help="cayleypy's network type (default MLP)")
    t.add_argument("--walk-mode", default="nbt", choices=["classic", "nbt", "bfs"],
                   help="cayleypy's random-walk mode (default nbt: non-backtracking)")
    t.add_argument("--walks", type=int, default=1000, help="random walks per iteration (default 1000)")
    t.add_argument("--walk-length", type=int, default=26,
                   help="states per walk, 26 = the cube's diameter in quarter turns (default)")
    t.add_argument("--nbt-depth", type=int, default=4, help="nbt mode: layers banned from revisits (default 4)")
    t.add_argument("--batch", type=int, default=1000, help="states per gradient step (default 1000)")
    t.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--save-every", type=float, default=300, help="seconds between checkpoints (default 300)")
    t.add_argument("--print-every", type=int, default=20, help="iterations between progress lines")
    _bit_encoding_option(t)
    t.set_defaults(func=train)

    s = sub.add_parser("solve", help="beam search on the exported cubes, one CSV row per cube")
    s.add_argument("--model", required=True, help="checkpoint written by train")
    s.add_argument("--states", required=True, help="states.json written by export_and_check.py export")
    s.add_argument("--out", required=True, help="CSV to write")
    s.add_argument("--width", type=int, default=4096, help="beam width (default 4096)")
    s.add_argument("--time-limit", type=float, default=60, help="seconds per cube (default 60)")
    s.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    s.add_argument("--max-steps", type=int, default=1000, help="beam search layers at most (default 1000)")
    s.add_argument("--mitm-depth", type=int, default=0,
                   help="meet in the middle with cayleypy's BFS ball of this radius around the goal "
                        "(default 0: plain beam search)")
    s.add_argument("--limit", type=int, default=0, help="only the first N cubes of the file")
    s.add_argument("--resume", action="store_true", help="keep rows already in --out, solve the rest")
    s.add_argument("--seed", type=int, default=0, help="seed of cayleypy's state hashing")
    _bit_encoding_option(s)
    s.set_defaults(func=solve)

    v = sub.add_parser("verify", help="check the layout mapping on the states file and print it")
    v.add_argument("--states", required=True)
    v.add_argument("--out", help="write the mapping (JSON)")
    v.set_defaults(func=verify)

    e = sub.add_parser("export-onnx", help="the trained network as ONNX of the project's states, "
                                           "with its card")
    e.add_argument("--model", required=True, help="checkpoint written by train")
    e.add_argument("--states", required=True, help="states.json written by export_and_check.py export")
    e.add_argument("--out", required=True, help="ONNX file to write (the card goes beside it)")
    e.add_argument("--width", type=int, default=4096, help="the card's recommended beam width")
    e.set_defaults(func=export_onnx)

    args = ap.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
