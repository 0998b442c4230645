"""Package a training run as a shipped model: ``heuristics/models/<name>/``.

A shipped model folder holds ``model.pt`` (weights, no optimizer state), ``config.json`` (the
training options, network sizes, figures), the run's ``log.csv`` and ``depth_log.csv``, and a
``README.md`` written here from those files plus search results (``evaluation``: a list of
summaries from ``bench.evaluate.summarize`` with their settings).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from core import safe_write
from learning.checkpoint import inference_copy, load_checkpoint, save_checkpoint
from learning.model_store import SHIPPED_DIR
from learning.networks import ARCHITECTURES
from learning.networks.resnet import ResnetNet
from learning.targets import TARGETS

SIZE_NOTE = (
    "Network size: DeepCubeA's published network (first layer 5,000, residual width 1,000, "
    "4 blocks; 14.7 M parameters on the cube) evaluated about 490 cube states per second on one "
    "core of the (shared, loaded) 2-core training machine in batches of 10,000, against about "
    "32,000 for a network of first layer 256, residual width 128 and 2 blocks "
    "(`tests/benchmarks/test_bench_davi.py`): too slow for batch search with thousands of nodes "
    "per iteration, and far too slow to train here. The shipped models keep the architecture "
    "(one-hot input, two hidden layers, residual blocks, batch norm, ReLU, linear output) at "
    "that smaller size."
)


def ship(run_dir: str | Path, name: str, evaluation: list[dict[str, Any]] | None = None,
         command: str | None = None, dest_root: Path = SHIPPED_DIR,
         search: dict[str, Any] | None = None, notes: list[str] | None = None,
         weights: str = "float32") -> Path:
    """Copy run ``run_dir`` to ``dest_root/name`` and write its README; returns the folder.

    ``search``: the recommended search (``{"solver": "beam", "width": W, "precision": P}``)
    that ``bench solve`` and suites use when no solver is given; ``notes``: paragraphs for the
    model card (how it was trained, in which resumed runs); ``weights``: how ``model.pt`` stores
    them, ``"float32"`` or ``"int8"`` (``learning.quantize``: a quarter of the bytes, for a
    network whose float32 file is over the 16 MiB a shipped model may take)."""
    run = Path(run_dir)
    dest = dest_root / name
    dest.mkdir(parents=True, exist_ok=True)
    ck = load_checkpoint(run / "checkpoint.pt" if (run / "checkpoint.pt").is_file() else run / "model.pt")
    ck = {**inference_copy(ck), "weights_storage": weights}
    save_checkpoint(dest / "model.pt", ck)
    for f in ("log.csv", "depth_log.csv"):
        if (run / f).is_file():
            safe_write.copy_file(run / f, dest / f)
    config = json.loads((run / "config.json").read_text()) if (run / "config.json").is_file() else {}
    config["evaluation"] = evaluation or []
    if command:
        config["command"] = command
    if search:
        config["search"] = search
    if notes:
        config["notes"] = notes
    safe_write.write_json(dest / "config.json", config)
    safe_write.write_text(dest / "README.md", model_card(name, ck, config, dest))
    return dest


def add_evaluation(name: str, evaluation: list[dict[str, Any]], dest_root: Path = SHIPPED_DIR) -> Path:
    """Append search summaries to shipped model ``name`` (weights untouched); rewrite its README
    and the index. A summary with the same set, size, solver and settings replaces the old one."""
    config = _read_config(name, dest_root)
    keys = ("set", "states", "solver", "weight", "batch", "width", "precision", "distinct_moves",
            "node_limit", "time_limit")
    new = {tuple(e.get(k) for k in keys) for e in evaluation}
    config["evaluation"] = [e for e in config.get("evaluation", [])
                            if tuple(e.get(k) for k in keys) not in new] + list(evaluation)
    return _write_config(name, config, dest_root)


def _read_config(name: str, dest_root: Path) -> dict[str, Any]:
    path = dest_root / name / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"no shipped model {name!r} in {dest_root}")
    config: dict[str, Any] = json.loads(path.read_text())
    return config


def _write_config(name: str, config: dict[str, Any], dest_root: Path) -> Path:
    """Write shipped model ``name``'s ``config.json``, its README and the index (weights untouched)."""
    dest = dest_root / name
    safe_write.write_json(dest / "config.json", config)
    ck = load_checkpoint(dest / "model.pt")
    safe_write.write_text(dest / "README.md", model_card(name, ck, config, dest))
    write_index(dest_root)
    return dest


def set_search(name: str, search: dict[str, Any], dest_root: Path = SHIPPED_DIR) -> Path:
    """Declare the recommended search of shipped model ``name`` (``{"solver": "astar", "batch":
    100}``, ``{"solver": "beam", "width": 4096, "precision": "bfloat16"}``); rewrite its README
    and the index. The solver and its options are checked against the registry."""
    from core import registry
    from core.errors import InputError
    from learning.devices import check_precision
    from learning.model_store import SEARCH_SOLVERS

    if search.get("solver") not in SEARCH_SOLVERS:
        raise InputError(f"search: solver must be one of {', '.join(SEARCH_SOLVERS)}, "
                         f"got {search.get('solver')!r}")
    check_precision(search.get("precision", "float32"), "search: precision")
    registry.solver_entry(search["solver"]).check_options(
        {k: v for k, v in search.items() if k not in ("solver", "precision")}, "solver")
    config = _read_config(name, dest_root)
    config["search"] = dict(search)
    return _write_config(name, config, dest_root)


def trained_on_gpu(config: dict[str, Any]) -> bool:
    """Whether a model's ``config.json`` (its run's, or its training options') names CUDA."""
    return (config.get("device") or config.get("train_config", {}).get("device")) == "cuda"


def model_card(name: str, ck: dict[str, Any], config: dict[str, Any], folder: Path) -> str:
    mc = ck["model_config"]
    tc = ck.get("train_config", {})
    params = config.get("parameters")
    trained = TARGETS[ck["target"]]
    target = trained.card_text
    net = ARCHITECTURES.get(mc.get("arch", "resnet"), ResnetNet).card_text(mc)
    cpu = config.get("train_cpu_seconds")
    gpu = trained_on_gpu({"device": config.get("device"), "train_config": tc})
    notes = config.get("notes") or [
        f"Trained by {target} with `bench train {ck['target']}` on one CPU core "
        "(`torch.set_num_threads(1)`, `nice -n 10`, on a 2-core machine shared with other jobs)."
        if not gpu else
        f"Trained by {target} with `bench train {ck['target']} --device cuda` on a GPU "
        f"(torch {config.get('torch', '?')})."]
    storage = ("; weights stored in int8 with one float32 scale per row, run in float32"
               if ck.get("weights_storage") == "int8" else "")
    lines = [f"# `{name}`: learned heuristic for {ck['puzzle']}", ""]
    for n in notes:
        lines += [n, ""]
    lines += [
        f"- target: {target}",
        f"- network: {net}"
        + (f", {params:,} parameters ({(folder / 'model.pt').stat().st_size / 2**20:.1f} MiB file)" if params else "")
        + storage,
        f"- training: {ck.get('iteration')} iterations of batch {tc.get('batch')}, "
        f"{ck.get('states_seen', 0):,} states, {config.get('train_seconds', '?')} s of training"
        + (" on the GPU" if gpu else "")
        + (f" ({cpu:,.0f} s of process CPU time recorded)" if cpu and not gpu else "")
        + (f", {ck.get('target_updates')} target-network updates" if trained.target_network else "")
        + (", bfloat16 autocast (`--amp`)" if tc.get("amp") else ""),
        f"- options: K = {tc.get('k_max')}, "
        + (f"epsilon = {tc.get('epsilon')}, " if trained.target_network else "")
        + f"C = {tc.get('check_every')}, "
        f"lr = {tc.get('lr')} decayed by {tc.get('lr_decay')} per iteration, seed {tc.get('seed')}"
        + (f", {tc.get('walk')} walks" if tc.get("data") == "tensor"
           and str(tc.get("puzzle", "")).startswith("cube") else "")
        + "".join(f"; epsilon {old} until iteration {it}, {eps} from then on (`--resume --epsilon`)"
                  for it, old, eps in (tc.get("extra") or {}).get("epsilon_changes", []))
        + "".join(f"; {old} walks until iteration {it}, {new} from then on (`--resume --walk`)"
                  for it, old, new in (tc.get("extra") or {}).get("walk_changes", []))
        + "".join(f"; from iteration {it} lr {lr:.3g} decayed by {dec} per iteration (`--resume --lr`)"
                  for it, lr, dec in (tc.get("extra") or {}).get("lr_changes", [])),
        "",
    ]
    if config.get("search"):
        s = config["search"]
        args = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in s.items() if k != "solver")
        lines += [f"Recommended search (used by `bench solve` and suites when no solver is given): "
                  f"`--solver {s['solver']} {args}`.", ""]
    if mc.get("arch", "resnet") == "resnet" and mc.get("h1", 0) <= 512:
        lines += [SIZE_NOTE, ""]
    if config.get("command"):
        lines += ["Command:", "", "    " + config["command"], ""]
    depth = folder / "depth_log.csv"
    if depth.is_file():
        d = pd.read_csv(depth)
        last = d[d["iteration"] == d["iteration"].max()]
        lines += ["Last monitoring step (held-out random walks per scramble depth; greedy rollout "
                  "limited to min(2 depth + 10, eval_max_steps) steps):", "",
                  f"| depth | {'mean predicted cost-to-go' if trained.values else 'mean probability of the correct moves'} | greedy solved |",
                  "| --- | --- | --- |"]
        lines += [f"| {int(r.depth)} | {r.mean_pred:.2f} | {r.greedy_solved:.0%} |"
                  for r in last.itertuples()]
        lines.append("")
    if config.get("evaluation"):
        lines += ["Search with this model (every solution replayed):", "",
                  "| states | solver | settings | solved | optimal | mean length | mean optimal | mean nodes |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for e in config["evaluation"]:
            def num(v: Any, fmt: str = ".2f") -> str:
                return "n/a" if v is None else format(v, fmt)

            settings = ", ".join(f"{k} {e[k]}" for k in ("weight", "batch", "width", "goal_depth",
                                                        "precision", "node_limit", "time_limit")
                                 if e.get(k) is not None) \
                + (", distinct moves" if e.get("distinct_moves") else "")
            lines.append(f"| {e.get('set')} ({e.get('states')}) | {e.get('solver')} | {settings} | "
                         f"{share(e.get('solved'))} | {share(e.get('optimal'))} | {num(e.get('mean_length'))} | "
                         f"{num(e.get('mean_optimal_length'))} | {num(e.get('mean_nodes'), ',.0f')} |")
        lines.append("")
    lines += ["Files: `model.pt` (weights; `torch.load(weights_only=True)`), `config.json`, "
              "`log.csv` (iteration, loss, lr, target_updates, states_per_s, seconds), "
              "`depth_log.csv` (iteration, depth, mean_pred, greedy_solved).", ""]
    return "\n".join(lines)


def share(v: float | None) -> str:
    """A share as a percentage with one decimal where it is not whole, rounded down so that it
    never shows a threshold it misses (``0.994`` -> ``99.4%``, ``0.9999`` -> ``99.9%``, not
    ``100%``); ``n/a`` for None."""
    if v is None:
        return "n/a"
    text = f"{math.floor(round(1000 * v, 6)) / 10:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def write_index(dest_root: Path = SHIPPED_DIR) -> Path:
    """``dest_root/README.md``: one row per shipped model (size, training, search results)."""
    rows = []
    for d in sorted(p for p in dest_root.iterdir() if (p / "config.json").is_file()):
        c = json.loads((d / "config.json").read_text())
        tc, mc = c.get("train_config", {}), c.get("model_config", {})
        ev = "; ".join(
            f"{e.get('set')} ({e.get('states')}), {e.get('solver')}"
            + (f" weight {e['weight']} batch {e['batch']}" if e.get("weight") is not None else "")
            + (f" width {e['width']}" if e.get("width") is not None else "")
            + (" distinct moves" if e.get("distinct_moves") else "")
            + (f", {e['time_limit']:g} s limit" if e.get("time_limit") is not None else "")
            + f": {share(e['solved'])} solved"
            + (f", {share(e['optimal'])} optimal" if e.get("optimal") is not None else "")
            + (f", mean length {e['mean_length']:.1f}" if e.get("mean_length") is not None else "")
            for e in c.get("evaluation", []))
        shape = (f"MLP {mc.get('layers')} x {mc.get('h1')}" if mc.get("arch") == "mlp" else
                 f"{mc.get('h1')}-{mc.get('res_dim')}x{mc.get('num_blocks')}")
        rows.append(f"| [`{d.name}`]({d.name}/README.md) | {tc.get('target', 'davi')} | "
                    f"{shape} | "
                    f"{c.get('parameters', 0):,} | {c.get('iteration')} x {tc.get('batch')} | "
                    f"{c.get('train_seconds')}{' (GPU)' if trained_on_gpu(c) else ''} | "
                    f"{c.get('target_updates')} | {ev or 'n/a'} |")
    text = "\n".join([
        "# Shipped models",
        "",
        "Learned heuristics trained with `bench train` on a shared 2-core CPU machine",
        "(`train_shipped.sh` has the commands), or on a GPU where a model's README says so",
        "(`--device cuda`; `train_gpu.sh`). `--heuristic davi` without `--model` loads the folder",
        "named like the puzzle, `--heuristic policy` the folder PUZZLE-policy; a model's",
        "recommended search (its `config.json`) is used when",
        "no solver is given. Every figure below comes from `bench train evaluate` or a suite run",
        "(each solution replayed); each folder's README has the details and its training curves",
        "(`log.csv`, `depth_log.csv`; plot them with `bench report FOLDER`). A shipped model file is",
        "at most 16 MiB, all of them together at most 64 MiB.",
        "",
        SIZE_NOTE + " (This concerns the residual networks; `cube3` is a plain MLP.)",
        "",
        "| model | target | network (h1-res x blocks, or MLP) | parameters | iterations x batch | "
        "train s | target updates | search results |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    path = dest_root / "README.md"
    safe_write.write_text(path, text)
    return path
