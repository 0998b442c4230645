"""``bench train davi|diffusion|import-deepcubea`` and ``bench models``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from bench.commands.common import goal_option
from puzzles.base import InputError

# options that shape a run; with --resume the run's own values are used and these must be absent
# (except --epsilon: a changed target-update threshold from the resumed iteration on, recorded)
_RUN_OPTIONS = ("batch", "preset", "seed", "lr", "lr_decay", "k_max", "check_every",
                "polyak", "amp", "goal", "h1", "res_dim", "num_blocks", "backtrack",
                "eval_per_depth", "eval_max_steps", "diffusion_warmup", "data")


def _train_options(f: Any) -> Any:
    opts = [
        click.option("--iterations", type=int, default=1000, show_default=True,
                     help="training iterations to run (more, with --resume)"),
        click.option("--time-limit", type=float, default=None,
                     help="also stop (and save) after this many minutes"),
        click.option("--batch", type=int, default=None, help="states per iteration [10000]"),
        click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default=None,
                     help="torch device [auto: CUDA when present]"),
        click.option("--out", type=click.Path(file_okay=False), default=None,
                     help="run folder [$BENCH_CACHE/models/TARGET-PUZZLE-sSEED]"),
        click.option("--resume", is_flag=True, help="continue the run in --out exactly where it stopped"),
        click.option("--preset", type=click.Choice(["tiny", "small", "medium", "deepcubea",
                                                    "mlp-tiny", "mlp", "mlp-wide"]),
                     default=None, help="network: residual sizes, or a plain MLP (mlp*) [small]"),
        click.option("--h1", type=int, default=None,
                     help="first hidden layer width; an MLP's width (overrides preset)"),
        click.option("--res-dim", type=int, default=None, help="residual width (overrides preset)"),
        click.option("--num-blocks", type=int, default=None,
                     help="residual blocks; an MLP's hidden layers (overrides preset)"),
        click.option("--data", type=click.Choice(["tensor", "numpy"]), default=None,
                     help="make batches as tensor operations on the device, or with numpy [tensor]"),
        click.option("--seed", type=click.IntRange(min=0), default=None, help="random seed [0]"),
        click.option("--lr", type=float, default=None, help="Adam learning rate [1e-3]"),
        click.option("--lr-decay", type=float, default=None, help="learning-rate factor per iteration [0.9999993]"),
        click.option("--k-max", type=int, default=None, help="largest scramble length K [per puzzle]"),
        click.option("--check-every", type=int, default=None, help="C: iterations between checks and logs [per puzzle]"),
        click.option("--amp", is_flag=True, default=None, help="mixed precision (bfloat16 autocast)"),
        click.option("--backtrack", is_flag=True, default=None,
                     help="random walks may undo the previous move (DeepCubeA's walks); default: they never do"),
        click.option("--eval-per-depth", type=int, default=None,
                     help="held-out scrambles per monitored depth [100]"),
        click.option("--eval-max-steps", type=int, default=None,
                     help="step limit of the monitoring greedy rollouts [200]"),
        click.option("--threads", type=int, default=None, help="torch CPU threads [torch's default]"),
        click.option("--quiet", is_flag=True, help="no progress bar"),
        goal_option,
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _run(target: str, puzzle: str, opts: dict[str, Any]) -> None:
    import torch

    from heuristics.davi.heuristic import user_models_dir
    from heuristics.davi.train import TrainConfig, Trainer

    threads = opts.pop("threads")
    if threads is not None:
        if threads < 1:
            raise InputError(f"--threads: must be at least 1, got {threads}")
        torch.set_num_threads(threads)
    iterations = opts.pop("iterations")
    if iterations < 0:
        raise InputError(f"--iterations: must be >= 0, got {iterations}")
    minutes = opts.pop("time_limit")
    if minutes is not None and minutes <= 0:
        raise InputError(f"--time-limit: must be positive, got {minutes}")
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
        trainer = Trainer.resume(out, progress=progress, device=device)
        if trainer.cfg.puzzle != puzzle or trainer.cfg.target != target:
            raise InputError(f"--resume: {out} is a {trainer.cfg.target} run on {trainer.cfg.puzzle}, "
                             f"not {target} on {puzzle}")
        if opts.get("epsilon") is not None:
            trainer.change_epsilon(opts["epsilon"])
    else:
        settings = {k: v for k, v in opts.items() if v is not None}
        cfg = TrainConfig(puzzle=puzzle, target=target, device=device or "auto", **settings)
        if cfg.seed is None:
            cfg.seed = 0
        folder = Path(out) if out else user_models_dir() / f"{target}-{puzzle}-s{cfg.seed}"
        if (folder / "checkpoint.pt").exists():
            raise InputError(f"--out: {folder} already holds a run; add --resume to continue it "
                             "or choose another folder")
        trainer = Trainer(cfg, folder, progress=progress)
    metrics = trainer.train(iterations, max_seconds=None if minutes is None else 60 * minutes)
    click.echo(f"{trainer.cfg.target} {trainer.puzzle.name}: iteration {trainer.iteration}, "
               f"target updates {trainer.target_updates}, loss {metrics.get('loss')}, "
               f"{metrics.get('states_per_s')} states/s")
    solved = metrics.get("greedy_solved", {})
    if solved:
        click.echo("greedy solved per scramble depth: "
                   + ", ".join(f"{d}: {v:.0%}" for d, v in solved.items()))
    click.echo(f"run folder: {trainer.out_dir}")


@click.group("train")
def train_group() -> None:
    """Train learned heuristics (DAVI, diffusion distance) and import DeepCubeA's networks."""


@train_group.command("davi")
@click.argument("puzzle")
@click.option("--epsilon", type=float, default=None,
              help="loss below which the target network is updated [per puzzle]")
@click.option("--polyak", type=float, default=None,
              help="Polyak averaging factor per iteration instead of epsilon-triggered updates")
@click.option("--diffusion-warmup", type=click.IntRange(min=0), default=None,
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


@train_group.command("import-deepcubea")
@click.argument("puzzle")
@click.argument("state_dict", type=click.Path(dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="checkpoint to write [$BENCH_CACHE/models/deepcubea-PUZZLE/model.pt]")
def import_cmd(puzzle: str, state_dict: str, out: str | None) -> None:
    """Convert DeepCubeA's published model_state_dict.pt for PUZZLE into a checkpoint."""
    from heuristics.davi.deepcubea_import import import_deepcubea
    from heuristics.davi.heuristic import user_models_dir

    path = Path(out) if out else user_models_dir() / f"deepcubea-{puzzle}" / "model.pt"
    import_deepcubea(state_dict, puzzle, path)
    click.echo(f"wrote {path}; use it with --heuristic davi --model {path}")


@click.command("models")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model")
def models_cmd(as_json: bool) -> None:
    """List shipped and trained models with their training figures."""
    from heuristics.davi.checkpoint import load_checkpoint
    from heuristics.davi.heuristic import SHIPPED_DIR, known_models
    from heuristics.davi.model import ModelConfig, ResnetFC, num_parameters

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
            "parameters": num_parameters(ResnetFC(ModelConfig.from_dict(ck["model_config"]))),
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
            click.echo(json.dumps(r))
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
@click.option("--count", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--solver", default="bwas", show_default=True)
@click.option("--weight", type=float, default=None, help="lambda, the weight on g")
@click.option("--batch", type=int, default=None, help="N, nodes expanded per iteration")
@click.option("--node-limit", type=int, default=None)
@click.option("--time-limit", type=float, default=None, help="seconds per start state")
@click.option("--optimal-heuristic", default=None,
              help="admissible heuristic for IDA* reference lengths where no table exists")
@click.option("--threads", type=int, default=None, help="torch CPU threads")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="CSV of per-state rows")
def evaluate_cmd(puzzle: str, model: str | None, state_set: str, count: int, seed: int, solver: str,
                 weight: float | None, batch: int | None, node_limit: int | None,
                 time_limit: float | None, optimal_heuristic: str | None, threads: int | None,
                 out: str | None) -> None:
    """Solve a fixed set of PUZZLE states with a learned heuristic; print share solved/optimal."""
    import torch

    from bench import registry
    from heuristics.davi.evaluate import evaluate, optimal_lengths, start_states, summarize

    if threads is not None:
        torch.set_num_threads(max(1, threads))
    p = registry.get_puzzle(puzzle)
    h = registry.get_heuristic("davi", p, **({"model": model} if model else {}))
    states = start_states(p, state_set, count, seed)
    opt = optimal_lengths(p, states, optimal_heuristic)
    df = evaluate(p, h, states, solver, weight, batch, node_limit, time_limit, opt, progress=True)
    if out:
        df.to_csv(out, index=False)
    summary = summarize(df)
    summary.update(puzzle=puzzle, model=str(h.model_path), set=state_set, solver=solver,
                   weight=weight, batch=batch, node_limit=node_limit, time_limit=time_limit)
    click.echo(json.dumps(summary))
