"""``bench train davi|diffusion|policy|q-distill|q-learning|q-diffusion|multigoal``: training learned heuristics (the commands
about trained models, which join the same group: :mod:`bench.commands.train_models`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from bench.commands.common import FINITE_FLOAT, goal_option
from core import safe_write
from core.errors import InputError
from core.names import DEVICES
from learning.limits import MAX_BATCH, MAX_WIDTH

# options that shape a run; with --resume the run's own values are used and these must be absent
# (except --epsilon and --walk: changed from the resumed iteration on, and recorded)
#: every network preset (residual, mlp*, cnn*)
PRESET_NAMES = ["tiny", "small", "medium", "deepcubea", "mlp-tiny", "mlp", "mlp-wide", "cnn-tiny",
                "cnn"]
_RUN_OPTIONS = ("batch", "preset", "seed", "k_max", "check_every",
                "polyak", "amp", "goal", "h1", "res_dim", "num_blocks", "backtrack",
                "eval_per_depth", "eval_max_steps", "diffusion_warmup", "data", "teacher")


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
        click.option("--device", type=click.Choice(DEVICES), default=None,
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
        safe_write.write_text(Path(errors) / f"rank-{os.environ.get('RANK', '0')}", str(exc))
        return 2
    except KeyboardInterrupt:
        if os.environ.get("RANK") == "0":
            click.echo("interrupted; the run is saved (continue it with --resume)", err=True)
        return 130
    return 0


@click.group("train")
def train_group() -> None:
    """Train learned heuristics (DAVI, diffusion distance, policy) and import DeepCubeA's networks."""
    from learning.openmp import bound_spin_waits

    bound_spin_waits()  # before torch loads: idle OpenMP threads sleep instead of spinning


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


@train_group.command("q-distill")
@click.argument("puzzle")
@click.option("--teacher", type=str, default=None,
              help="the value network distilled: a model name, run folder or file [the "
                   "puzzle's shipped model]")
@_train_options
def q_distill_cmd(puzzle: str, **opts: Any) -> None:
    """Train a Q-network on PUZZLE (one cost-to-go per move) by distillation from a value
    network: each move's target is its cost plus the teacher's value of its child.

    Use the run with `bench solve PUZZLE ... --heuristic qnet --model RUN_DIR --solver qstar`
    (or qbeam).
    """
    _run("q-distill", puzzle, opts)


@train_group.command("q-learning")
@click.argument("puzzle")
@click.option("--epsilon", type=FINITE_FLOAT, default=None,
              help="loss below which the target network is updated [per puzzle]")
@click.option("--polyak", type=FINITE_FLOAT, default=None,
              help="Polyak averaging factor per iteration instead of epsilon-triggered updates")
@_train_options
def q_learning_cmd(puzzle: str, **opts: Any) -> None:
    """Train a Q-network on PUZZLE by deep Q-learning: each move's target is its cost plus the
    least target-network Q-value of its child (0 at the goal)."""
    _run("q-learning", puzzle, opts)


@train_group.command("q-diffusion")
@click.argument("puzzle")
@_train_options
def q_diffusion_cmd(puzzle: str, **opts: Any) -> None:
    """Train a Q-network on PUZZLE by regression on random-walk lengths: the move that undoes a
    walk's last move is given the walk's length."""
    _run("q-diffusion", puzzle, opts)


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
