"""``bench train davi|diffusion|policy|import-deepcubea`` and ``bench models``."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from bench.commands.common import FINITE_FLOAT, goal_option, json_line, registry_options
from core.errors import InputError
from learning.limits import MAX_BATCH, MAX_WIDTH

# options that shape a run; with --resume the run's own values are used and these must be absent
# (except --epsilon and --walk: changed from the resumed iteration on, and recorded)
#: every network preset (residual, mlp*, cnn*)
PRESET_NAMES = ["tiny", "small", "medium", "deepcubea", "mlp-tiny", "mlp", "mlp-wide", "cnn-tiny",
                "cnn"]
_RUN_OPTIONS = ("batch", "preset", "seed", "k_max", "check_every",
                "polyak", "amp", "goal", "h1", "res_dim", "num_blocks", "backtrack",
                "eval_per_depth", "eval_max_steps", "diffusion_warmup", "data")


def _train_options(f: Any) -> Any:
    opts = [
        click.option("--iterations", type=click.IntRange(min=0, max=10**12), default=1000, show_default=True,
                     help="training iterations to run (more, with --resume)"),
        click.option("--time-limit", type=FINITE_FLOAT, default=None,
                     help="also stop (and save) after this many minutes"),
        click.option("--cpu-limit", type=FINITE_FLOAT, default=None,
                     help="also stop (and save) after this many minutes of process CPU time"),
        click.option("--batch", type=click.IntRange(min=2, max=MAX_BATCH), default=None,
                     help="states per iteration [10000]"),
        click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default=None,
                     help="torch device [auto: CUDA when present]"),
        click.option("--out", type=click.Path(file_okay=False), default=None,
                     help="run folder [$BENCH_CACHE/models/TARGET-PUZZLE-sSEED]"),
        click.option("--resume", is_flag=True, help="continue the run in --out exactly where it stopped"),
        click.option("--arch", type=click.Choice(["resnet", "mlp", "cnn"]), default=None,
                     help="network: DeepCubeA's residual network, a plain MLP, or Phipat's CNN "
                          "(sliding tiles) [resnet; its preset: small, mlp, cnn]"),
        click.option("--preset", type=click.Choice(PRESET_NAMES),
                     default=None, help="network sizes (mlp*: a plain MLP, cnn*: the CNN) [small]"),
        click.option("--h1", type=click.IntRange(min=1, max=MAX_WIDTH), default=None,
                     help="first hidden layer width; an MLP's width (overrides preset)"),
        click.option("--res-dim", type=click.IntRange(min=1, max=MAX_WIDTH), default=None, help="residual width (overrides preset)"),
        click.option("--num-blocks", type=click.IntRange(min=0, max=1000), default=None,
                     help="residual blocks; an MLP's hidden layers (overrides preset)"),
        click.option("--data", type=click.Choice(["tensor", "numpy"]), default=None,
                     help="make batches as tensor operations on the device, or with numpy [tensor]"),
        click.option("--walk", type=click.Choice(["canonical", "plain"]), default=None,
                     help="cube walks without same-axis cancellations, or only never undoing the "
                          "last move [canonical; with --resume: change it from here on]"),
        click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=None, help="random seed [0]"),
        click.option("--lr", type=FINITE_FLOAT, default=None, help="Adam learning rate [1e-3]; with --resume: the rate from here on"),
        click.option("--lr-decay", type=FINITE_FLOAT, default=None, help="learning-rate factor per iteration [0.9999993]; with --resume: from here on"),
        click.option("--k-max", type=click.IntRange(min=1, max=10**6), default=None, help="largest scramble length K [per puzzle]"),
        click.option("--check-every", type=click.IntRange(min=1, max=10**12), default=None, help="C: iterations between checks and logs [per puzzle]"),
        click.option("--amp", is_flag=True, default=None, help="mixed precision (bfloat16 autocast)"),
        click.option("--backtrack", is_flag=True, default=None,
                     help="random walks may undo the previous move (DeepCubeA's walks); default: they never do"),
        click.option("--eval-per-depth", type=click.IntRange(min=1, max=10**6), default=None,
                     help="held-out scrambles per monitored depth [100]"),
        click.option("--eval-max-steps", type=click.IntRange(min=1, max=10**9), default=None,
                     help="step limit of the monitoring greedy rollouts [200]"),
        click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
                     help="torch CPU threads [torch's default; with --nproc: cores / N]"),
        click.option("--nproc", type=click.IntRange(min=1, max=1024), default=None,
                     help="train in N processes (DistributedDataParallel: one GPU each, or "
                          "the CPU with gloo), each on its shard of every batch; or start the "
                          "command under torchrun [1]"),
        click.option("--quiet", is_flag=True, help="no progress bar"),
        goal_option,
    ]
    for o in reversed(opts):
        f = o(f)
    return f


#: files of a training run (or of a shipped or multi-goal model): a folder holding any of
#: them is finished work that a new run must not write over
RUN_FILES = ("checkpoint.pt", "model.pt", "config.json", "log.csv", "depth_log.csv", "tree.json")
#: set in the processes ``--nproc`` starts: their parent holds the run folder's lock
_LOCK_HELD = "BENCH_TRAIN_LOCK_HELD"


def refuse_finished_folder(folder: Path, flag: str = "--out", resumable: bool = True) -> None:
    """``InputError`` when ``folder`` holds finished work: a training run or model
    (:data:`RUN_FILES`) or files committed to git (a shipped model, committed results)."""
    from bench.provenance import tracked_files

    if not folder.is_dir():
        return
    tracked = tracked_files(folder)
    if tracked:
        raise InputError(f"{flag}: {folder} holds committed files ({tracked[0]} is tracked by "
                         "git: a shipped model or committed results); choose another folder")
    held = [f for f in RUN_FILES if (folder / f).exists()]
    if held:
        how = ("add --resume to continue it, or choose another folder"
               if resumable and "checkpoint.pt" in held else "choose another folder")
        raise InputError(f"{flag}: {folder} already holds a run or model ({held[0]}); {how}")


def refuse_existing_file(path: Path, flag: str, overwrite: bool) -> None:
    """``InputError`` when ``path`` exists and ``overwrite`` was not given; never a committed
    file without it, never a folder."""
    if path.is_dir():
        raise InputError(f"{flag}: {path} is a folder; name a file")
    if path.exists() and not overwrite:
        from bench.provenance import tracked_by_git

        what = "a committed file (tracked by git)" if tracked_by_git(path) else "a file"
        raise InputError(f"{flag}: {path} exists ({what}); name a new file, or add --overwrite "
                         "to replace it")


def _default_folder(target: str, puzzle: str, opts: dict[str, Any]) -> Path:
    from learning.model_store import user_models_dir

    if opts.get("out"):
        return Path(opts["out"])
    seed = opts.get("seed")
    return user_models_dir() / f"{target}-{puzzle}-s{0 if seed is None else seed}"


def _run(target: str, puzzle: str, opts: dict[str, Any]) -> None:
    """One training command: the run folder is checked (no finished work is written over) and
    locked (no second training writes into it at the same time) while it trains."""
    from contextlib import nullcontext

    from bench.runner import run_lock
    from learning.distributed import Dist

    dist = Dist.from_env()
    if opts.get("resume") and opts.get("out") is None:
        raise InputError("--resume: give the run folder with --out")
    folder = _default_folder(target, puzzle, opts)
    if not opts.get("resume"):
        refuse_finished_folder(folder)
    # one process holds the lock: this one, or the first of several started by torchrun
    held = os.environ.get(_LOCK_HELD) == str(folder.resolve()) or (
        dist is not None and not dist.main)
    with nullcontext() if held else run_lock(folder):
        if not opts.get("resume"):
            refuse_finished_folder(folder)  # again, now that no other run can write there
        nproc = opts.pop("nproc", None)
        if nproc is not None and nproc > 1:
            if dist is not None:
                raise InputError("--nproc: the processes were started by torchrun already "
                                 "(WORLD_SIZE is set); drop --nproc")
            os.environ[_LOCK_HELD] = str(folder.resolve())
            try:
                _launch(target, puzzle, opts, nproc)
            finally:
                os.environ.pop(_LOCK_HELD, None)
            return
        _train(target, puzzle, opts, dist)


def _train(target: str, puzzle: str, opts: dict[str, Any], dist: Any) -> None:
    import torch

    from learning.model_store import user_models_dir
    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    opts.pop("nproc", None)
    threads = opts.pop("threads")
    if threads is not None:
        if threads < 1:
            raise InputError(f"--threads: must be at least 1, got {threads}")
        torch.set_num_threads(threads)
    elif dist is not None and opts.get("device") != "cuda" and not torch.cuda.is_available():
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // dist.world))
    iterations = opts.pop("iterations")
    if iterations < 0:
        raise InputError(f"--iterations: must be >= 0, got {iterations}")
    minutes = opts.pop("time_limit")
    cpu_minutes = opts.pop("cpu_limit")
    for opt, v in (("--time-limit", minutes), ("--cpu-limit", cpu_minutes)):
        if v is not None and not (0 < v < float("inf")):
            raise InputError(f"{opt}: must be a positive number of minutes, got {v}")
    arch = opts.pop("arch")
    if arch is not None and opts.get("resume"):
        raise InputError("--resume continues with the run's own network; drop --arch")
    if arch is not None:
        from learning.model_config import ARCH_PRESET, preset_arch

        if opts.get("preset") is None:
            opts["preset"] = ARCH_PRESET[arch]
        elif preset_arch(opts["preset"]) != arch:
            raise InputError(f"--preset: {opts['preset']} is a {preset_arch(opts['preset'])} "
                             f"network, not {arch}")
    resume = opts.pop("resume")
    progress = not opts.pop("quiet")
    out = opts.pop("out")
    device = opts.pop("device")
    if resume:
        if out is None:
            raise InputError("--resume: give the run folder with --out")
        given = [k for k in _RUN_OPTIONS if opts.get(k) not in (None, False)]
        if given:
            raise InputError("--resume continues with the run's own options; drop "
                             + ", ".join("--" + k.replace("_", "-") for k in given))
        trainer = Trainer.resume(out, progress=progress, device=device, dist=dist)
        if trainer.cfg.puzzle != puzzle or trainer.cfg.target != target:
            raise InputError(f"--resume: {out} is a {trainer.cfg.target} run on {trainer.cfg.puzzle}, "
                             f"not {target} on {puzzle}")
        if opts.get("epsilon") is not None:
            trainer.change_epsilon(opts["epsilon"])
        if opts.get("walk") is not None:
            trainer.change_walk(opts["walk"])
        if opts.get("lr") is not None or opts.get("lr_decay") is not None:
            trainer.change_lr(opts.get("lr"), opts.get("lr_decay"))
    else:
        settings = {k: v for k, v in opts.items() if v is not None}
        cfg = TrainConfig(puzzle=puzzle, target=target, device=device or "auto", **settings)
        if cfg.seed is None:
            cfg.seed = 0
        folder = Path(out) if out else user_models_dir() / f"{target}-{puzzle}-s{cfg.seed}"
        refuse_finished_folder(folder)
        trainer = Trainer(cfg, folder, progress=progress, dist=dist)
    finished = False
    try:
        metrics = trainer.train(iterations, max_seconds=None if minutes is None else 60 * minutes,
                                max_cpu_seconds=None if cpu_minutes is None else 60 * cpu_minutes)
        finished = True
    finally:
        trainer.close(wait=finished)
    if not trainer.main:
        return
    click.echo(f"{trainer.cfg.target} {trainer.puzzle.name}: iteration {trainer.iteration}, "
               f"target updates {trainer.target_updates}, loss {metrics.get('loss')}, "
               f"{metrics.get('states_per_s')} states/s")
    solved = metrics.get("greedy_solved", {})
    if solved:
        click.echo("greedy solved per scramble depth: "
                   + ", ".join(f"{d}: {v:.0%}" for d, v in solved.items()))
    click.echo(f"run folder: {trainer.out_dir}")


def _launch(target: str, puzzle: str, opts: dict[str, Any], nproc: int) -> None:
    """``_run`` in ``nproc`` processes (``--nproc``); a process's bad input is reported here
    once, as one line."""
    import sys
    import tempfile

    import torch

    from learning.distributed import launch

    device = opts.get("device")
    if device == "cuda" or (device in (None, "auto") and torch.cuda.is_available()):
        gpus = torch.cuda.device_count()
        if 0 < gpus < nproc:
            raise InputError(f"--nproc: {nproc} processes, but this machine has {gpus} GPU(s); "
                             "give at most one process per GPU")
    with tempfile.TemporaryDirectory(prefix="bench-train-") as errors:
        code = launch(nproc, _rank_main, (target, puzzle, opts, errors))
        if code == 2:
            messages = sorted(Path(errors).glob("rank-*"),
                              key=lambda p: int(p.name.split("-")[1]))
            raise InputError(messages[0].read_text() if messages
                             else "a training process failed on its input")
    if code == 130:  # the first process said so, and where the run is saved
        sys.exit(130)
    if code:
        click.echo(f"error: a training process exited with status {code}", err=True)
        sys.exit(code)


def _rank_main(target: str, puzzle: str, opts: dict[str, Any], errors: str) -> int:
    """One process of ``--nproc``: its exit status (2: bad input, written to ``errors``;
    130: interrupted, the run saved)."""
    try:
        _run(target, puzzle, dict(opts))
    except InputError as exc:
        (Path(errors) / f"rank-{os.environ.get('RANK', '0')}").write_text(str(exc))
        return 2
    except KeyboardInterrupt:
        if os.environ.get("RANK") == "0":
            click.echo("interrupted; the run is saved (continue it with --resume)", err=True)
        return 130
    return 0


@click.group("train")
def train_group() -> None:
    """Train learned heuristics (DAVI, diffusion distance, policy) and import DeepCubeA's networks."""


@train_group.command("davi")
@click.argument("puzzle")
@click.option("--epsilon", type=FINITE_FLOAT, default=None,
              help="loss below which the target network is updated [per puzzle]")
@click.option("--polyak", type=FINITE_FLOAT, default=None,
              help="Polyak averaging factor per iteration instead of epsilon-triggered updates")
@click.option("--diffusion-warmup", type=click.IntRange(min=0, max=10**12), default=None,
              help="first regress this many iterations on walk lengths, then switch to DAVI [0]")
@_train_options
def davi_cmd(puzzle: str, **opts: Any) -> None:
    """Train a cost-to-go network on PUZZLE by deep approximate value iteration (DeepCubeA).

    Writes checkpoint.pt, model.pt, config.json, log.csv and depth_log.csv into the run folder;
    use it with `bench solve PUZZLE ... --heuristic davi --model RUN_DIR`.
    """
    _run("davi", puzzle, opts)


@train_group.command("diffusion")
@click.argument("puzzle")
@_train_options
def diffusion_cmd(puzzle: str, **opts: Any) -> None:
    """Train a network on PUZZLE by regression on the random-walk scramble length."""
    _run("diffusion", puzzle, opts)


@train_group.command("policy")
@click.argument("puzzle")
@_train_options
def policy_cmd(puzzle: str, **opts: Any) -> None:
    """Train a move-prediction network (a policy) on PUZZLE from random scrambles.

    The label of a scramble is the move that undoes its last move (Lights Out: the set of
    pressed cells); use the run with `bench solve PUZZLE ... --heuristic policy --model RUN_DIR`
    (beam search by cumulative log-probability).
    """
    _run("policy", puzzle, opts)


@train_group.command("multigoal")
@click.argument("puzzle")
@click.option("--children", type=click.IntRange(min=1, max=64), default=2, show_default=True,
              help="children of every goal of the tree (n)")
@click.option("--height", type=click.IntRange(min=1, max=12), default=2, show_default=True,
              help="levels of intermediate goals below the final goal (h)")
@click.option("--step", type=click.IntRange(min=1, max=1000), default=None,
              help="moves of the walk from a goal to each child [K / 2]")
@click.option("--target", type=click.Choice(["davi", "diffusion"]), default="davi",
              show_default=True, help="what each goal's network is trained on")
@click.option("--iterations", type=click.IntRange(min=1, max=10**12), required=True,
              help="training iterations in all, split evenly over the goals")
@click.option("--cpu-limit", type=FINITE_FLOAT, default=None,
              help="also stop after this many minutes of process CPU time in all")
@click.option("--arch", type=click.Choice(["resnet", "mlp", "cnn"]), default=None)
@click.option("--preset", type=click.Choice(PRESET_NAMES), default=None, help="network [small]")
@click.option("--batch", type=click.IntRange(min=2, max=MAX_BATCH), default=None,
              help="states per iteration [10000]")
@click.option("--k-max", type=click.IntRange(min=1, max=10**6), default=None,
              help="longest walk from each goal [per puzzle]")
@click.option("--seed", type=click.IntRange(min=0, max=2**32 - 1), default=0, show_default=True)
@click.option("--amp", is_flag=True, default=None, help="mixed precision (bfloat16 autocast)")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None)
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="model folder (tree.json and one run per goal); an existing one is resumed")
@click.option("--quiet", is_flag=True, help="no progress bar")
@goal_option
def multigoal_cmd(puzzle: str, children: int, height: int, step: int | None, target: str,
                  iterations: int, cpu_limit: float | None, arch: str | None,
                  preset: str | None, batch: int | None, k_max: int | None, seed: int,
                  amp: bool | None, threads: int | None, out: str, quiet: bool,
                  goal: str | None) -> None:
    """Train a multi-goal model (Moravej): a tree of goals, one network per goal."""
    import torch

    from learning.model_config import ARCH_PRESET, preset_arch
    from learning.multigoal import TREE_FILE
    from learning.train_config import TrainConfig, make_puzzle

    if threads is not None:
        torch.set_num_threads(threads)
    if cpu_limit is not None and not 0 < cpu_limit < float("inf"):
        raise InputError(f"--cpu-limit: must be a positive number of minutes, got {cpu_limit}")
    if arch is not None:
        if preset is None:
            preset = ARCH_PRESET[arch]
        elif preset_arch(preset) != arch:
            raise InputError(f"--preset: {preset} is a {preset_arch(preset)} network, not {arch}")
    p = make_puzzle(puzzle, goal)
    folder = Path(out)
    settings: dict[str, Any] = {k: v for k, v in dict(preset=preset, batch=batch, k_max=k_max,
                                                      amp=amp).items() if v is not None}
    cfg = TrainConfig(puzzle=puzzle, target=target, goal=goal, seed=seed, **settings).resolved()
    from bench.runner import run_lock

    if not (folder / TREE_FILE).is_file():
        refuse_finished_folder(folder, resumable=False)
    else:
        from bench.provenance import tracked_files

        if tracked_files(folder):
            raise InputError(f"--out: {folder} holds a committed multi-goal model (tracked by "
                             "git); train into another folder")
    with run_lock(folder):
        _train_multigoal(p, folder, cfg, children, height, step, iterations, quiet, cpu_limit)


def _train_multigoal(p: Any, folder: Path, cfg: Any, children: int, height: int,
                     step: int | None, iterations: int, quiet: bool,
                     cpu_limit: float | None) -> None:
    import numpy as np

    from learning.multigoal import TREE_FILE, GoalTree, grow_tree, train_tree

    seed = cfg.seed
    if (folder / TREE_FILE).is_file():
        tree = GoalTree.load(folder)
        if tree.puzzle != p.name or (tree.children, tree.height) != (children, height):
            raise InputError(f"--out: {folder} holds a tree of {tree.children} x {tree.height} "
                             f"goals on {tree.puzzle}; give those or another folder")
    else:
        k = int(cfg.k_max or 20)
        tree = grow_tree(p, children, height, step or max(1, k // 2),
                         np.random.default_rng(seed))
    metrics = train_tree(p, tree, cfg, folder, iterations, progress=not quiet,
                         max_cpu_seconds=None if cpu_limit is None else 60 * cpu_limit)
    click.echo(f"{p.name}: {len(tree.goals)} goals (children {tree.children}, height "
               f"{tree.height}, step {tree.step}; paths to the final goal "
               f"{min(len(x) for x in tree.paths[1:])}-{max(len(x) for x in tree.paths)} moves), "
               f"{sum(m['iteration'] for m in metrics):,} iterations in all -> {folder}")


@train_group.command("rate")
@click.argument("puzzle")
@click.option("--target", type=click.Choice(["davi", "diffusion"]), default="davi", show_default=True)
@click.option("--preset", type=click.Choice(PRESET_NAMES), default="small", show_default=True)
@click.option("--batch", type=click.IntRange(min=2, max=10**7), default=10000, show_default=True)
@click.option("--iterations", type=click.IntRange(min=1, max=10**6), default=20, show_default=True,
              help="timed iterations (after 3 warm-up iterations)")
@click.option("--amp", is_flag=True, help="bfloat16 autocast in training, bfloat16 target network")
@click.option("--data", type=click.Choice(["tensor", "numpy"]), default="tensor", show_default=True)
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
              help="torch CPU threads [torch's default]")
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
def rate_cmd(puzzle: str, target: str, preset: str, batch: int, iterations: int, amp: bool,
             data: str, device: str, threads: int | None, as_json: bool) -> None:
    """Measure training states per second on PUZZLE (no files written).

    One state is one training target: for DAVI a Bellman target with all its children
    evaluated by a target network (set to the initial network, so every iteration pays for it).
    Prints the rate and where an iteration spends its time (data, target, update).
    """
    import tempfile

    import torch

    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    if threads is not None:
        torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(puzzle=puzzle, target=target, preset=preset, batch=batch, amp=amp,
                          data=data, device=device)
        t = Trainer(cfg, tmp, progress=False)
        if target == "davi":
            t._set_target()
        sync = (torch.cuda.synchronize if t.device.type == "cuda" else (lambda: None))
        parts = {"data": 0.0, "target": 0.0, "update": 0.0}
        for i in range(3 + iterations):
            t0 = time.perf_counter()
            b = t.make_batch(i)
            sync()
            t1 = time.perf_counter()
            y = t._targets(b)
            sync()
            t2 = time.perf_counter()
            t.update(b, y)
            sync()
            t3 = time.perf_counter()
            if i >= 3:
                parts["data"] += t1 - t0
                parts["target"] += t2 - t1
                parts["update"] += t3 - t2
        total = sum(parts.values())
        params = sum(p.numel() for p in t.model.parameters())
    rec: dict[str, Any] = {"puzzle": puzzle, "target": target, "preset": preset, "parameters": params,
           "batch": batch, "iterations": iterations, "amp": amp, "data": data,
           "device": str(t.device), "threads": torch.get_num_threads(),
           "states_per_s": round(batch * iterations / total, 1),
           "seconds": {k: round(v / iterations, 4) for k, v in parts.items()}}
    seconds: dict[str, float] = rec["seconds"]
    if as_json:
        click.echo(json_line(rec))
        return
    click.echo(f"{puzzle} {target} {preset} ({params:,} parameters), batch {batch}, "
               f"{'bfloat16' if amp else 'float32'}, {data} data, {rec['device']}, "
               f"{rec['threads']} threads: {rec['states_per_s']:,.0f} states/s; per iteration "
               + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in seconds.items()))


@train_group.command("infer-rate")
@click.argument("puzzle")
@click.option("--preset", "presets", multiple=True,
              type=click.Choice(["tiny", "small", "medium", "deepcubea", "mlp-tiny", "mlp",
                                 "mlp-wide"]), help="network sizes (repeat) [small, mlp]")
@click.option("--precision", "precisions", multiple=True,
              type=click.Choice(["float32", "bfloat16"]), help="(repeat) [both]")
@click.option("--chunk", "chunks", multiple=True, type=click.IntRange(min=1, max=10**7),
              help="states per forward pass (repeat) [4096 and 65536]")
@click.option("--states", type=click.IntRange(min=1, max=10**7), default=120000, show_default=True,
              help="states per timed call")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None)
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="cpu", show_default=True)
def infer_rate_cmd(puzzle: str, presets: tuple[str, ...], precisions: tuple[str, ...],
                   chunks: tuple[int, ...], states: int, threads: int | None, device: str) -> None:
    """Heuristic evaluations per second of untrained networks of the given sizes on PUZZLE.

    Times the learned heuristic's own evaluation path (``FastForward``) on random scrambles,
    best of three calls, and the plain module (float32, one pass) beside it.
    """
    import numpy as np
    import torch

    from core import registry
    from learning.devices import num_parameters
    from learning.model_config import ModelConfig
    from learning.networks import FastForward, build_network

    if threads is not None:
        torch.set_num_threads(threads)
    dev = torch.device("cuda" if device == "auto" and torch.cuda.is_available() else
                       ("cpu" if device == "auto" else device))
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError("--device: cuda requested but torch sees no CUDA device")
    p = registry.get_puzzle(puzzle)
    x_np = p.scramble(states, 30, np.random.default_rng(0))[0]
    x = torch.as_tensor(p.encode(x_np)).to(dev)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    def best(f: Any) -> float:
        f(x[:256])
        times = []
        for _ in range(3):
            sync()
            t0 = time.perf_counter()
            f(x)
            sync()
            times.append(time.perf_counter() - t0)
        return states / min(times)

    click.echo(f"{'network':<10} {'params':>11} {'precision':<9} {'chunk':>7} {'states/s':>12}")
    for preset in presets or ("small", "mlp"):
        net = build_network(ModelConfig.preset(preset, p.state_dim, p.num_symbols)).to(dev).eval()
        n = num_parameters(net)
        with torch.inference_mode():
            rate = best(net)
        click.echo(f"{preset:<10} {n:>11,} {'module':<9} {states:>7} {rate:>12,.0f}")
        for prec in precisions or ("float32", "bfloat16"):
            fast = FastForward(net, torch.bfloat16 if prec == "bfloat16" else torch.float32)
            for chunk in chunks or (4096, 65536):
                def f(c: Any, fast: Any = fast, chunk: int = chunk) -> Any:
                    return [fast(c[i:i + chunk]) for i in range(0, c.shape[0], chunk)]
                click.echo(f"{preset:<10} {n:>11,} {prec:<9} {chunk:>7} {best(f):>12,.0f}")


@train_group.command("import-deepcubea")
@click.argument("puzzle")
@click.argument("state_dict", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="checkpoint to write [$BENCH_CACHE/models/deepcubea-PUZZLE/model.pt]")
@click.option("--overwrite", is_flag=True, help="replace the checkpoint at --out if it exists")
def import_cmd(puzzle: str, state_dict: str, out: str | None, overwrite: bool) -> None:
    """Convert DeepCubeA's published model_state_dict.pt for PUZZLE into a checkpoint."""
    from learning.deepcubea_import import import_deepcubea
    from learning.model_store import user_models_dir

    path = Path(out) if out else user_models_dir() / f"deepcubea-{puzzle}" / "model.pt"
    refuse_existing_file(path, "--out", overwrite)
    import_deepcubea(state_dict, puzzle, path)
    click.echo(f"wrote {path}; use it with --heuristic davi --model {path}")


@click.command("models")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model")
def models_cmd(as_json: bool) -> None:
    """List shipped and trained models with their training figures."""
    from learning.checkpoint import load_checkpoint
    from learning.devices import num_parameters
    from learning.model_config import ModelConfig
    from learning.model_store import SHIPPED_DIR, known_models
    from learning.networks import build_network

    rows: list[dict[str, Any]] = []
    for name, path in known_models().items():
        try:
            ck = load_checkpoint(path)
        except InputError as exc:
            rows.append({"name": name, "path": str(path), "error": str(exc)})
            continue
        m = ck.get("metrics") or {}
        cfg_path = path.parent / "config.json"
        evaluation = (json.loads(cfg_path.read_text()).get("evaluation", [])
                      if cfg_path.is_file() else [])
        solved = m.get("greedy_solved") or {}
        deepest = max(solved, key=int) if solved else None
        rows.append({
            "name": name,
            "where": "shipped" if SHIPPED_DIR in path.parents else "trained",
            "puzzle": ck["puzzle"],
            "target": ck["target"],
            "parameters": num_parameters(build_network(ModelConfig.from_dict(ck["model_config"]))),
            "iteration": ck.get("iteration"),
            "target_updates": ck.get("target_updates"),
            "loss": m.get("loss"),
            "greedy_depth": int(deepest) if deepest else None,
            "greedy_solved": solved.get(deepest) if deepest else None,
            "evaluation": evaluation,
            "path": str(path),
        })
    if as_json:
        for r in rows:
            click.echo(json_line(r))
        return
    if not rows:
        click.echo("no models found (train one with `bench train davi PUZZLE`)")
        return
    click.echo(f"{'name':<24} {'where':<8} {'puzzle':<11} {'target':<10} {'params':>9} "
               f"{'iters':>7} {'updates':>7} {'loss':>8}  {'greedy solved':<20} search")
    for r in rows:
        if "error" in r:
            click.echo(f"{r['name']:<24} error: {r['error']}")
            continue
        g = (f"{r['greedy_solved']:.0%} at depth {r['greedy_depth']}"
             if r["greedy_solved"] is not None else "-")
        loss = f"{r['loss']:.4f}" if isinstance(r["loss"], float) else "-"
        search = "; ".join(
            f"{e.get('set')} {e.get('solver')}: {e['solved']:.0%} solved"
            + (f", {e['optimal']:.0%} optimal" if e.get("optimal") is not None else "")
            for e in r["evaluation"]) or "-"
        click.echo(f"{r['name']:<24} {r['where']:<8} {r['puzzle']:<11} {r['target']:<10} "
                   f"{r['parameters']:>9,} {r['iteration'] or 0:>7} {r['target_updates'] or 0:>7} "
                   f"{loss:>8}  {g:<20} {search}")


@train_group.command("evaluate")
@click.argument("puzzle")
@click.option("--model", default=None, help="model name, run folder or file [the shipped model]")
@click.option("--set", "state_set", default="deepcubea", show_default=True,
              help="start states: deepcubea, uniform or scramble:DEPTH")
@click.option("--count", type=click.IntRange(min=1, max=10**6), default=50, show_default=True)
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True)
@click.option("--solver", default="bwas", show_default=True)
@registry_options("solver")
@click.option("--precision", type=click.Choice(["float32", "bfloat16"]), default="float32",
              show_default=True, help="the network's hidden layers")
@click.option("--node-limit", type=click.IntRange(min=1, max=2**62), default=None)
@click.option("--time-limit", type=FINITE_FLOAT, default=None, help="seconds per start state")
@click.option("--optimal-heuristic", default=None,
              help="admissible heuristic for IDA* reference lengths where no table exists")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
              help="torch CPU threads")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV of per-state rows (a new file)")
@click.option("--overwrite", is_flag=True, help="replace the CSV at --out if it exists")
@click.option("--run-dir", type=click.Path(file_okay=False), default=None,
              help="run folder (suite file, rows) [runs/evaluate-PUZZLE-TIME]")
@click.option("--resume", is_flag=True, help="continue the evaluation in --run-dir")
def evaluate_cmd(puzzle: str, model: str | None, state_set: str, count: int, seed: int, solver: str,
                 precision: str, node_limit: int | None, time_limit: float | None,
                 optimal_heuristic: str | None, threads: int | None, out: str | None,
                 run_dir: str | None, resume: bool, overwrite: bool,
                 **solver_options: str | None) -> None:
    """Solve a fixed set of PUZZLE states with a learned heuristic; print share solved/optimal.

    The evaluation is a suite (written to RUN_DIR/evaluate.toml) run by the suite runner: every
    path is replayed, every row kept in RUN_DIR/rows.jsonl."""
    import datetime as _dt

    import torch

    from bench.evaluate import SUITE_FILE, run_evaluation, suite_text, summarize
    from bench.runner import write_atomic

    if out is not None:
        refuse_existing_file(Path(out), "--out", overwrite)
    if threads is not None:
        torch.set_num_threads(max(1, threads))
    from core import registry

    sargs = registry.solver_entry(solver).check_options(solver_options, "solver")
    text = suite_text(puzzle, model, state_set, count, seed, solver, sargs, precision,
                      time_limit, node_limit, optimal_heuristic)
    if run_dir is None:
        if resume:
            raise InputError("--resume: needs --run-dir (the folder of the evaluation to continue)")
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        folder = Path("runs") / f"evaluate-{puzzle}-{stamp}"
    else:
        folder = Path(run_dir)
    path = folder / SUITE_FILE
    if resume:
        if not path.is_file():
            raise InputError(f"--resume: {folder} holds no evaluation ({SUITE_FILE} missing)")
        if path.read_text() != text:
            raise InputError(f"--resume: {folder} was made with other arguments; use another "
                             "--run-dir")
    else:
        if path.exists():
            raise InputError(f"--run-dir: {folder} already holds an evaluation; use --resume or "
                             "another --run-dir")
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    df = run_evaluation(path, folder, resume=resume)
    if out:
        df.to_csv(out, index=False)
    summary = summarize(df)
    summary.update(puzzle=puzzle, model=model or "shipped", set=state_set, solver=solver,
                   **sargs, node_limit=node_limit, time_limit=time_limit, run_dir=str(folder))
    if precision != "float32":
        summary.update(precision=precision)
    click.echo(json_line(summary))
