"""DeepXube 0.3.x on the 15-puzzle: its own training, then its network as ONNX for the project.

Runs with the interpreter of a separate virtual environment holding deepxube and a CPU build of
torch (results/puzzle15-deepxube/README.md); it imports nothing from heuristic-bench.

``train``   runs DeepXube's training command (``python -m deepxube train``: DAVI, a value network
            ``resnet_fc`` trained on one-step Bellman backups of states from random walks off the
            goal) in a child process, and stops it after the first finished update past a budget
            of wall-clock minutes. DeepXube saves the network and its status after every update;
            the log says how many updates, training iterations and generated states there were,
            and this script adds the CPU seconds of DeepXube's processes (read from /proc while
            they run) in ``train.json``.
``export``  loads the trained network with DeepXube's own classes and writes it as ONNX with its
            card. DeepXube's 15-puzzle state is the tile at each cell, row-major, 0 the blank,
            goal 1..15 then the blank: exactly the project's ``blank-last`` puzzle15 state, so the
            graph takes the project's raw state (card encoding ``state``) and one-hots it inside,
            as DeepXube's network does. The ONNX graph is checked against DeepXube's heuristic
            function on the goal and on states of DeepXube's random walks; those states and
            DeepXube's values go to ``check.json`` for ``check_onnx`` (project side).

    $DX -m experiments.deepxube_puzzle15.run_deepxube train --dir DIR --minutes 34
    $DX -m experiments.deepxube_puzzle15.run_deepxube export --dir DIR \
        --out results/puzzle15-deepxube/model/model.onnx
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np
import torch

#: DeepXube's network for the runs here: its ``resnet_fc`` (one-hot input, a linear layer, residual
#: blocks of two linear layers, a linear output) with batch norm, 400 wide with 2 blocks (about
#: the shipped puzzle15 network's size; DeepXube's default is 1000 wide with 4 blocks)
HEUR = "resnet_fc.400H_2B_bn"
DOMAIN = "npuzzle.4"
#: DeepXube's training options (its command-line defaults except where noted)
RECIPE = {
    "--heur_type": "V",          # a value network (cost-to-go of a state)
    "--pathfind": "graph_v",     # with --search_itrs 1: expand once, Bellman backup (DAVI)
    "--search_itrs": "1",
    "--backup": "1",             # one-step Bellman backup (DeepXube's default)
    "--step_max": "500",         # random walks of 0..500 moves (DeepCubeA's 15-puzzle setting)
    "--batch_size": "1000",      # DeepXube's default
    "--up_itrs": "100",          # gradient steps per update (DeepXube's default)
    "--up_gen_itrs": "20",       # 20 batches of new states per update (default: 100)
    "--procs": "1",
    "--chkpt": "5",              # keep the network every 5 updates
    "--display": "100",
}
_TRAIN_LINE = re.compile(r"^Train - itrs: (\d+), loss: (\S+), targ_updated: (\w+)")
_DATA_LINE = re.compile(r"^Getting Data - itr: (\d+), update_num: (\d+).*num_gen: ([\d,]+)")


def _session_cpu(sid: int, seen: dict[int, float]) -> None:
    """Record user+system CPU seconds of every live process of session ``sid`` in ``seen``."""
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid:  # field 6 of stat: session id
            seen[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick


def _log_summary(log: Path) -> dict:
    updates, last_loss, gen = 0, None, 0
    itr = 0
    for line in log.read_text().splitlines() if log.is_file() else []:
        m = _DATA_LINE.match(line)
        if m:
            itr, gen = int(m.group(1)), int(m.group(3).replace(",", ""))
        m = _TRAIN_LINE.match(line)
        if m:
            updates += 1
            last_loss = float(m.group(2))
            itr += int(m.group(1))
    return {"updates": updates, "iterations": itr, "states_per_update": gen,
            "states_generated": updates * gen, "last_loss": last_loss}


def train(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "deepxube", "train", "--domain", DOMAIN, "--heur", HEUR,
           "--max_itrs", str(10**9), "--dir", str(out)]
    for key, value in RECIPE.items():
        cmd += [key, value]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    print(" ".join(cmd), flush=True)
    log = out / "output.txt"  # DeepXube's own log
    start = time.time()
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            stdout=open(out / "stdout.txt", "a"), stderr=subprocess.STDOUT)
    cpu: dict[int, float] = {}
    deadline = start + 60 * args.minutes
    at_deadline = None
    while proc.poll() is None:
        time.sleep(5)
        _session_cpu(proc.pid, cpu)
        done = _log_summary(log)["updates"]
        if time.time() >= deadline and at_deadline is None:
            at_deadline = done
            print(f"budget reached after {done} updates; stopping after the next one", flush=True)
        if at_deadline is not None and (done > at_deadline or time.time() > deadline + 600):
            time.sleep(2)  # the status file is written just before the log line
            _session_cpu(proc.pid, cpu)
            os.killpg(proc.pid, signal.SIGTERM)
            break
    proc.wait()
    summary = {"deepxube": version("deepxube"), "torch": torch.__version__, "domain": DOMAIN,
               "heur": HEUR, "recipe": RECIPE, "threads": args.threads,
               "budget_minutes": args.minutes, "wall_s": round(time.time() - start, 1),
               "cpu_s": round(sum(cpu.values()), 1), **_log_summary(log)}
    (out / "train.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


def _load(model_file: Path):  # noqa: ANN202 - DeepXube's types
    from deepxube.nnet.nnet_utils import load_nnet
    from deepxube.utils.command_line_utils import get_domain_from_arg, get_heur_nnet_par_from_arg

    domain, name = get_domain_from_arg(DOMAIN)
    par = get_heur_nnet_par_from_arg(domain, name, HEUR, "V")[0]
    nnet = load_nnet(str(model_file), par.get_nnet())
    nnet.eval()
    return domain, par, nnet


def export(args: argparse.Namespace) -> None:
    from deepxube.domains.npuzzle import NPState

    model_file = Path(args.dir) / "heur.pt"
    domain, par, nnet = _load(model_file)

    class ProjectInput(torch.nn.Module):
        """``(B, 16)`` int64 project states -> ``(B, 1)`` DeepXube's cost-to-go (unclipped)."""

        def __init__(self) -> None:
            super().__init__()
            self.nnet = nnet

        def forward(self, states: torch.Tensor) -> torch.Tensor:
            return self.nnet([states])[0].reshape(-1, 1)

    wrapper = ProjectInput().eval()
    goal = np.asarray(domain.goal_tiles, dtype=np.int64)
    rng = np.random.default_rng(args.seed)
    np.random.seed(args.seed)
    steps = [0, 1, 2, 5, 10] + sorted(int(s) for s in rng.integers(10, 501, args.states - 5))
    starts = [NPState(domain.goal_tiles.copy()) for _ in steps]
    walked = domain.random_walk(starts, steps)[0]
    goals = domain.sample_goalstate_goal_pairs(len(walked))[1]
    dx_values = np.asarray(par.get_nnet_fn(nnet, 4096, torch.device("cpu"), None)(walked, goals))
    x = torch.as_tensor(np.stack([s.tiles for s in walked]).astype(np.int64))
    with torch.no_grad():
        wrapped = np.maximum(wrapper(x).reshape(-1).numpy(), 0)
    gap = float(np.abs(wrapped - dx_values).max())
    if gap > 1e-4:
        raise SystemExit(f"the wrapped network differs from DeepXube's heuristic by {gap:g}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(wrapper, (x,), str(out), input_names=["states"], output_names=["cost"],
                      dynamic_axes={"states": {0: "batch"}, "cost": {0: "batch"}}, dynamo=False)
    card = {"puzzle": "puzzle15", "encoding": "state", "input": "codes", "output": "value",
            "search": {"solver": "beam", "width": args.width, "max_depth": 150},
            "target": "davi",
            "source": f"deepxube {version('deepxube')} {HEUR} ({DOMAIN}, DAVI) trained by "
                      "experiments/deepxube_puzzle15, exported by torch "
                      f"{torch.__version__.split('+')[0]} (TorchScript exporter)"}
    card_path = out.with_name(out.name.removesuffix(".onnx") + ".card.json")
    card_path.write_text(json.dumps(card, indent=1) + "\n")
    check = {"goal": goal.tolist(), "walk_lengths": steps, "states": x.tolist(),
             "deepxube_values": [round(float(v), 6) for v in dx_values]}
    check_path = out.with_name("check.json")
    check_path.write_text(json.dumps(check) + "\n")
    print(f"wrote {out}, {card_path} and {check_path}: wrapper and DeepXube agree within {gap:.2g} "
          f"on {len(steps)} states; goal {dx_values[0]:.4f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="DeepXube's training, stopped after a budget")
    t.add_argument("--dir", required=True, help="DeepXube's training folder (resumes if present)")
    t.add_argument("--minutes", type=float, required=True,
                   help="wall-clock budget; the update running at the budget finishes")
    t.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS (default 1)")
    t.set_defaults(func=train)
    e = sub.add_parser("export", help="the trained network as ONNX of project states, with card")
    e.add_argument("--dir", required=True, help="the training folder (its heur.pt is exported)")
    e.add_argument("--out", required=True, help="ONNX file (card and check.json go beside it)")
    e.add_argument("--width", type=int, default=4096, help="the card's beam width (default 4096)")
    e.add_argument("--states", type=int, default=50, help="check states (default 50)")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=export)
    args = ap.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
