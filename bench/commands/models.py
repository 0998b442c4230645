"""``bench models``: list models (``bench models [list] [--json]``, also ``bench list models``),
export one as ONNX plus card (``bench models export``) and time its evaluation under torch and
onnxruntime (``bench models speed``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from bench.commands.common import json_line
from bench.commands.train_models import models_cmd
from core.errors import InputError


@click.group("models", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model")
@click.pass_context
def models_group(ctx: click.Context, as_json: bool) -> None:
    """List shipped and trained models with their training figures; export one as ONNX; time
    its evaluation."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(models_cmd, as_json=as_json)


@models_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per model")
def list_models_cmd(as_json: bool) -> None:
    """List shipped and trained models with their training figures (as ``bench models`` and
    ``bench list models``)."""
    click.get_current_context().invoke(models_cmd, as_json=as_json)


@models_group.command("export")
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["onnx"]), default="onnx", show_default=True,
              help="the file format")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="folder that receives NAME.onnx and NAME.card.json")
@click.option("--force", is_flag=True, help="replace files of that name in --out")
def export_cmd(name: str, fmt: str, out: Path, force: bool) -> None:
    """Write model NAME (a shipped or trained model's name, a run folder or a checkpoint) as
    ONNX with its card (puzzle, encoding, output, recommended search), checked against torch."""
    from heuristics.onnx_export import export_onnx

    if out.exists() and not out.is_dir():
        raise InputError(f"--out: {out} is not a folder")
    onnx_path, card, check = export_onnx(name, out, force=force)
    click.echo(f"{onnx_path} ({check['bytes'] / 2**20:.1f} MiB) and {card.name}: onnxruntime "
               f"agrees with torch within {check['max_abs_diff']:.2g} on {check['states']} states")
    click.echo(f"use it: bench solve PUZZLE STATE --heuristic onnx --model {onnx_path}")


def _rate(fn: Any, states: Any, repeat: int) -> float:
    fn(states[:64])  # warm up (kernels, arenas)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(states)
        best = min(best, time.perf_counter() - t0)
    return len(states) / best


@models_group.command("speed")
@click.argument("name")
@click.option("--onnx", "onnx_file", type=click.Path(path_type=Path), default=None,
              help="the exported file [export NAME to a temporary folder]")
@click.option("--states", "count", type=click.IntRange(min=64, max=10**7), default=65536,
              show_default=True, help="states per timed evaluation")
@click.option("--repeat", type=click.IntRange(min=1, max=100), default=3, show_default=True,
              help="timed evaluations per backend (the best is kept)")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=1, show_default=True,
              help="threads of torch and onnxruntime")
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
def speed_cmd(name: str, onnx_file: Path | None, count: int, repeat: int, threads: int,
              as_json: bool) -> None:
    """States per second of model NAME's heuristic on this CPU: torch float32, torch bfloat16
    and onnxruntime (float32), on the same seeded random states, with the largest difference
    of the ONNX estimates from torch float32's."""
    import os
    import tempfile

    import numpy as np
    import torch

    from core import registry
    from heuristics.onnx import OnnxHeuristic
    from heuristics.onnx_export import export_onnx, resolve_export
    from heuristics.value_net import ValueNetHeuristic

    torch.set_num_threads(threads)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    _, ckpt_path = resolve_export(name)
    from learning.checkpoint import load_checkpoint

    puzzle = registry.get_puzzle(load_checkpoint(ckpt_path)["puzzle"])
    states = puzzle.scramble(count, 40, np.random.default_rng(0))[0]
    tmp = None
    if onnx_file is None:
        tmp = tempfile.TemporaryDirectory()
        onnx_file = export_onnx(name, tmp.name)[0]
    figures: dict[str, Any] = {"model": name, "puzzle": puzzle.name, "states": count,
                               "threads": threads, "torch": torch.__version__}
    try:
        import onnxruntime

        figures["onnxruntime"] = onnxruntime.__version__
        ref = ValueNetHeuristic(puzzle, str(ckpt_path), precision="float32")
        want = ref(states)
        for label, h in (("torch-float32", ref),
                         ("torch-bfloat16", ValueNetHeuristic(puzzle, str(ckpt_path),
                                                             precision="bfloat16")),
                         ("onnxruntime-float32", OnnxHeuristic(puzzle, onnx_file))):
            figures[label] = round(_rate(h, states, repeat))
            if h is not ref:
                figures[f"{label}-max-abs-diff"] = float(np.abs(h(states) - want).max())
    finally:
        if tmp is not None:
            tmp.cleanup()
    if as_json:
        click.echo(json_line(figures))
        return
    click.echo(f"{name} ({puzzle.name}), {count:,} states, {threads} thread(s), torch "
               f"{figures['torch']}, onnxruntime {figures['onnxruntime']}:")
    for label in ("torch-float32", "torch-bfloat16", "onnxruntime-float32"):
        diff = figures.get(f"{label}-max-abs-diff")
        note = "" if diff is None else f"  (max |h - torch float32| = {diff:.3g})"
        click.echo(f"  {label:<20} {figures[label]:>12,} states/s{note}")
