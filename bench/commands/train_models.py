"""``bench train rate|infer-rate|import-deepcubea|evaluate`` and ``bench models``' list: the
commands about trained models (their speed, imports, evaluation) beside the training commands of
:mod:`bench.commands.train`, whose group they join."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from bench.commands.common import json_line, limit_option, registry_options
from bench.commands.train import PRESET_NAMES, refuse_existing_file, train_group
from core import safe_write
from core.errors import InputError
from core.names import DEVICES, PRECISIONS

__all__ = ["models_cmd", "train_group"]


@train_group.command("rate")
@click.argument("puzzle")
@click.option("--target", type=click.Choice(["davi", "diffusion"]), default="davi", show_default=True)
@click.option("--preset", type=click.Choice(PRESET_NAMES), default="small", show_default=True)
@click.option("--batch", type=click.IntRange(min=2, max=10**7), default=10000, show_default=True)
@click.option("--iterations", type=click.IntRange(min=1, max=10**6), default=20, show_default=True,
              help="timed iterations (after 3 warm-up iterations)")
@click.option("--amp", is_flag=True, help="bfloat16 autocast in training, bfloat16 target network")
@click.option("--data", type=click.Choice(["tensor", "numpy"]), default="tensor", show_default=True)
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
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

    from learning.devices import amp_precision
    from learning.train_config import TrainConfig
    from learning.trainer import Trainer

    if threads is not None:
        torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(puzzle=puzzle, target=target, preset=preset, batch=batch, amp=amp,
                          data=data, device=device)
        t = Trainer(cfg, tmp, progress=False)
        if t.objective.target_network:  # every iteration pays for the target network
            t.set_target()
        sync = (torch.cuda.synchronize if t.device.type == "cuda" else (lambda: None))
        parts = {"data": 0.0, "target": 0.0, "update": 0.0}
        for i in range(3 + iterations):
            t0 = time.perf_counter()
            b = t.make_batch(i)
            sync()
            t1 = time.perf_counter()
            y = t.targets(b)
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
               f"{amp_precision(amp)}, {data} data, {rec['device']}, "
               f"{rec['threads']} threads: {rec['states_per_s']:,.0f} states/s; per iteration "
               + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in seconds.items()))


@train_group.command("infer-rate")
@click.argument("puzzle")
@click.option("--preset", "presets", multiple=True,
              type=click.Choice(["tiny", "small", "medium", "deepcubea", "mlp-tiny", "mlp",
                                 "mlp-wide"]), help="network sizes (repeat) [small, mlp]")
@click.option("--precision", "precisions", multiple=True,
              type=click.Choice(PRECISIONS), help="(repeat) [both]")
@click.option("--chunk", "chunks", multiple=True, type=click.IntRange(min=1, max=10**7),
              help="states per forward pass (repeat) [4096 and 65536]")
@click.option("--states", type=click.IntRange(min=1, max=10**7), default=120000, show_default=True,
              help="states per timed call")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None)
@click.option("--device", type=click.Choice(DEVICES), default="cpu", show_default=True)
def infer_rate_cmd(puzzle: str, presets: tuple[str, ...], precisions: tuple[str, ...],
                   chunks: tuple[int, ...], states: int, threads: int | None, device: str) -> None:
    """Heuristic evaluations per second of untrained networks of the given sizes on PUZZLE.

    Times the learned heuristic's own evaluation path (``FastForward``) on random scrambles,
    best of three calls, and the plain module (float32, one pass) beside it.
    """
    import numpy as np
    import torch

    from core import registry
    from learning.devices import num_parameters, precision_dtype, resolve_device
    from learning.model_config import ModelConfig
    from learning.networks import FastForward, build_network

    if threads is not None:
        torch.set_num_threads(threads)
    dev = resolve_device(device)
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
        for prec in precisions or PRECISIONS:
            fast = FastForward(net, precision_dtype(prec))
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


def _evaluation(cfg_path: Path) -> list[dict[str, Any]]:
    """The ``evaluation`` entries of a model's ``config.json`` (none without the file); a
    ``ValueError`` names what is damaged."""
    if not cfg_path.is_file():
        return []
    try:
        config = json.loads(cfg_path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        raise ValueError(f"config.json is not readable JSON ({type(exc).__name__})") from None
    if not isinstance(config, dict):
        raise ValueError("config.json is not a JSON object")
    evaluation = config.get("evaluation") or []
    number = (int, float)
    if not isinstance(evaluation, list) or not all(
            isinstance(e, dict) and isinstance(e.get("solved"), number)
            and isinstance(e.get("optimal", 0.0) or 0.0, number) for e in evaluation):
        raise ValueError("config.json: evaluation is not a list of results with a solved share")
    return evaluation


@click.command("models")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model")
def models_cmd(as_json: bool) -> None:
    """List shipped and trained models with their training figures."""
    from core.labels import heuristic_label
    from learning.checkpoint import load_checkpoint
    from learning.devices import num_parameters
    from learning.model_config import ModelConfig
    from learning.model_store import SHIPPED_DIR, known_models
    from learning.networks import build_network
    from learning.targets import network_heuristic

    rows: list[dict[str, Any]] = []
    for name, path in known_models().items():
        try:
            ck = load_checkpoint(path)
        except InputError as exc:
            rows.append({"name": name, "path": str(path), "error": str(exc)})
            continue
        m = ck.get("metrics") or {}
        cfg_path = path.parent / "config.json"
        try:
            evaluation = _evaluation(cfg_path)
            solved = m.get("greedy_solved") or {}
            if not isinstance(solved, dict) or not all(
                    isinstance(v, int | float) and not isinstance(v, bool)
                    for v in solved.values()):
                raise ValueError("metrics: greedy_solved is not a table of shares")
            deepest = max(solved, key=int) if solved else None
        except (ValueError, TypeError, OverflowError) as exc:
            rows.append({"name": name, "path": str(path), "error": f"{path.parent}: "
                         f"{' '.join(str(exc).split())}"})
            continue
        rows.append({
            "name": name,
            "where": "shipped" if SHIPPED_DIR in path.parents else "trained",
            "puzzle": ck["puzzle"],
            "target": ck["target"],
            "network": heuristic_label(network_heuristic(ck["target"]), ck["target"]),
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
    click.echo(f"{'name':<24} {'where':<8} {'puzzle':<11} {'network':<24} {'params':>9} "
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
        click.echo(f"{r['name']:<24} {r['where']:<8} {r['puzzle']:<11} {r['network']:<24} "
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
# --threads is torch's here (a network has no IDA* kernel, so ida's search threads never apply)
@registry_options("solver", skip=("threads",))
@click.option("--precision", type=click.Choice(PRECISIONS), default="float32",
              show_default=True, help="the network's hidden layers")
@limit_option("nodes")
@limit_option("time_s", "per start state")
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
                 precision: str, node_limit: str | None, time_limit: str | None,
                 optimal_heuristic: str | None, threads: int | None, out: str | None,
                 run_dir: str | None, resume: bool, overwrite: bool,
                 **solver_options: str | None) -> None:
    """Solve a fixed set of PUZZLE states with a learned heuristic; print share solved/optimal.

    The evaluation is a suite (written to RUN_DIR/evaluate.toml) run by the suite runner: every
    path is replayed, every row kept in RUN_DIR/rows.jsonl."""
    import datetime as _dt

    import torch

    if out is not None:
        refuse_existing_file(Path(out), "--out", overwrite)
    if threads is not None:
        torch.set_num_threads(max(1, threads))
    sargs = {k: v for k, v in solver_options.items() if v is not None}
    if run_dir is None:
        if resume:
            raise InputError("--resume: needs --run-dir (the folder of the evaluation to continue)")
        from core.paths import new_folder

        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        folder = new_folder(Path("runs") / f"evaluate-{puzzle}-{stamp}")
        try:
            _evaluate(folder, False, puzzle, model, state_set, count, seed, solver, sargs,
                      precision, node_limit, time_limit, optimal_heuristic, out)
        except BaseException:
            _remove_if_rowless(folder)
            raise
    else:
        _evaluate(Path(run_dir), resume, puzzle, model, state_set, count, seed, solver, sargs,
                  precision, node_limit, time_limit, optimal_heuristic, out)


def _remove_if_rowless(folder: Path) -> None:
    """Remove the run folder an evaluation made for itself when it failed before its first row
    (an empty ``runs/evaluate-*`` explains nothing); a folder with rows is kept to resume."""
    import shutil

    from bench.runner import ROWS

    rows = folder / ROWS
    if rows.is_file() and rows.stat().st_size > 0:
        return
    shutil.rmtree(folder, ignore_errors=True)


def _evaluate(folder: Path, resume: bool, puzzle: str, model: str | None, state_set: str,
              count: int, seed: int, solver: str, sargs: dict[str, Any], precision: str,
              node_limit: str | None, time_limit: str | None, optimal_heuristic: str | None,
              out: str | None) -> None:
    """``bench train evaluate`` in run folder ``folder``: write its suite, run it, print."""
    from bench.evaluate import COMMENT, SUITE_FILE, evaluation_suite, run_evaluation, summarize
    from bench.runner import write_atomic
    from suites.schema import load_suite, suite_data, suite_toml

    path = folder / SUITE_FILE
    suite = evaluation_suite(path, puzzle, model, state_set, count, seed, solver, sargs,
                             precision, time_limit, node_limit, optimal_heuristic)
    if resume:
        if not path.is_file():
            raise InputError(f"--resume: {folder} holds no evaluation ({SUITE_FILE} missing)")
        try:
            same = suite_data(load_suite(path)) == suite_data(suite)
        except InputError:
            same = False
        if not same:
            raise InputError(f"--resume: {folder} was made with other arguments; use another "
                             "--run-dir")
    else:
        if path.exists():
            raise InputError(f"--run-dir: {folder} already holds an evaluation; use --resume or "
                             "another --run-dir")
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, suite_toml(suite, comment=COMMENT))
    df = run_evaluation(path, folder, resume=resume)
    if out:
        safe_write.save_csv(df, out, arg="--out", index=False)
    summary = summarize(df)
    config = suite.configs["model"]  # as resolved: the options and limits checked
    summary.update(puzzle=puzzle, model=model or "shipped", set=state_set, solver=config.solver,
                   **config.solver_args, node_limit=suite.limits.nodes,
                   time_limit=suite.limits.time_s, run_dir=str(folder))
    if precision != "float32":
        summary.update(precision=precision)
    click.echo(json_line(summary))
