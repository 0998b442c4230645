"""``bench run suite``, ``bench suite list|show|import-deepcubea`` (``bench report`` and
``bench quality``: :mod:`bench.commands.report`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bench.commands.report import write_report
from core.errors import InputError
from core.names import DEVICES

if TYPE_CHECKING:
    from suites.schema import ConfigSpec


# --------------------------------------------------------------------------- bench run
@click.group("run")
def run_group() -> None:
    """Run benchmarks."""


@run_group.command("suite")
@click.argument("name")
@click.option("--quick", is_flag=True, help="the suite's quick profile (a few minutes on 2 cores)")
@click.option("--profile", default=None, help="profile name (default: default)")
@click.option("--config", "configs", multiple=True, help="only this configuration (repeatable)")
@click.option("--limit", type=click.IntRange(min=1, max=10**9), default=None, help="at most K instances per set")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=1024), default=None,
              help="worker processes (default: cores / threads)")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=1, show_default=True,
              help="Numba and torch threads per worker (e.g. -j 1 --threads 2: one instance at a "
                   "time on two cores)")
@click.option("--device", type=click.Choice(DEVICES), default=None,
              help="where learned heuristics evaluate [cpu, or the suite's heuristic_args]")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True,
              help="worker processes on this machine, or a Dask cluster (a LocalCluster of -j "
                   "workers, or the one at --scheduler)")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="with --executor dask: the scheduler of a running cluster, e.g. "
                   "tcp://HOST:8786 (default: start a LocalCluster)")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="run folder (default: runs/SUITE-PROFILE-TIMESTAMP)")
@click.option("--resume", is_flag=True, help="continue the run in --out (or the latest), skipping finished rows")
@click.option("--rerun-changed", is_flag=True,
              help="with --resume: run again the rows whose instance, configuration, limits or "
                   "seed changed since they were made (default: refuse)")
@click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1), default=0, show_default=True)
@click.option("--no-figures", is_flag=True, help="skip the figures")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
def run_suite_cmd(name: str, quick: bool, profile: str | None, configs: tuple[str, ...],
                  limit: int | None, jobs: int | None, threads: int, device: str | None,
                  executor: str, scheduler: str | None, out: Path | None, resume: bool,
                  rerun_changed: bool, seed: int, no_figures: bool, quiet: bool) -> None:
    """Run suite NAME (a shipped suite or a .toml file) and print its summary table."""
    from bench import runner
    from bench.executor import Executor, LocalExecutor
    from suites.schema import load_suite

    if quick and profile not in (None, "quick"):
        raise InputError("--quick: cannot be combined with --profile")
    if rerun_changed and not resume:
        raise InputError("--rerun-changed: only with --resume")
    if scheduler is not None:
        if executor != "dask":
            raise InputError("--scheduler: only with --executor dask")
        if jobs is not None:
            raise InputError("--jobs: the cluster at --scheduler runs one task per worker "
                             "thread; drop --jobs")
        from bench.dask_executor import check_address

        check_address(scheduler)
    suite = load_suite(name)
    if resume and out is not None and not quick and profile is None:
        meta = runner.read_run_json(out)  # resume the profile the run was made with
        if meta and isinstance(meta.get("profile"), str):
            profile = meta["profile"]
    prof = "quick" if quick else (profile or "default")
    suite.profile(prof)
    if out is None:
        if resume:
            out = runner.latest_run_dir(suite.name, prof)
            if out is None:
                raise InputError(f"--resume: no earlier run of {suite.name} ({prof}) under runs/; give --out")
        else:
            out = runner.default_run_dir(suite.name, prof)
    elif resume and not (out / runner.ROWS).is_file():
        raise InputError(f"--resume: {out} holds no run ({runner.ROWS} missing)")
    runner.refuse_finished_run_dir(out, resume)  # before planning: committed or finished work
    plan = runner.plan_run(suite, prof, configs, limit, seed)
    _check_models(suite.puzzle, plan.configs)
    if device is not None:
        from core import registry

        for task in plan.tasks:
            p = task.payload
            if registry.heuristic_entry(p["heuristic"]).props.needs_model:
                p["heuristic_args"] = {**p["heuristic_args"], "device": device}
    click.echo(f"{suite.name} ({prof}): {len(plan.tasks)} runs = "
               f"{sum(len(s.instances) for s in plan.sets.values())} instances x "
               f"{len(plan.configs)} configurations -> {out}", err=True)
    lost: tuple[type[BaseException], ...] = ()
    ex: Executor
    if executor == "dask":
        from bench.dask_executor import ClusterLost, DaskExecutor

        budget = max((t.memory_bytes for t in plan.tasks if t.memory_bytes), default=None)
        ex, lost = DaskExecutor(jobs=jobs, threads=threads, scheduler=scheduler,
                                memory_bytes=budget), (ClusterLost,)
    else:
        ex = LocalExecutor(jobs=jobs, threads=threads)
    again = resume_command(name, out, prof, configs, limit, seed, jobs, threads, device,
                           executor, scheduler)
    try:
        with ex:
            summary = runner.run_plan(plan, out, ex, resume=resume, progress=not quiet,
                                      rerun_changed=rerun_changed)
    except KeyboardInterrupt:
        click.echo(f"interrupted; finished rows are saved in {out}; continue with: {again}",
                   err=True)
        sys.exit(130)
    except lost as exc:
        click.echo(f"error: {exc}; finished rows are saved in {out}; continue with: {again}",
                   err=True)
        sys.exit(1)
    if summary.skipped:
        click.echo(f"resumed: {summary.skipped} rows were already done", err=True)
    from bench.plots import report_figures

    write_report(out, figures=report_figures(suite.figures), title=f"{suite.name} ({prof})",
                  make_figures=not no_figures)


def resume_command(name: str, out: Path, profile: str, configs: tuple[str, ...],
                   limit: int | None, seed: int, jobs: int | None, threads: int = 1,
                   device: str | None = None, executor: str = "local",
                   scheduler: str | None = None) -> str:
    """The command that continues an interrupted run with the same plan."""
    import shlex

    parts = ["bench", "run", "suite", name]
    parts += ["--quick"] if profile == "quick" else (["--profile", profile] if profile != "default" else [])
    for c in configs:
        parts += ["--config", c]
    if limit is not None:
        parts += ["--limit", str(limit)]
    if seed:
        parts += ["--seed", str(seed)]
    if jobs is not None:
        parts += ["--jobs", str(jobs)]
    if threads != 1:
        parts += ["--threads", str(threads)]
    if device is not None:
        parts += ["--device", device]
    if executor != "local":
        parts += ["--executor", executor]
    if scheduler is not None:
        parts += ["--scheduler", scheduler]
    parts += ["--out", str(out), "--resume"]
    return " ".join(shlex.quote(p) for p in parts)


# --------------------------------------------------------------------------- bench suite
@click.group("suite")
def suite_group() -> None:
    """List, show and import suites and instance sets."""


@suite_group.command("list")
def suite_list_cmd() -> None:
    """The shipped suites."""
    from suites.schema import load_suite, suite_paths

    for name, path in suite_paths().items():
        s = load_suite(path)
        click.echo(f"{name:<12} {s.puzzle:<10} {len(s.instance_sets)} sets, {len(s.configs)} configs, "
                   f"profiles {','.join(s.profiles)}  {s.description}")


@suite_group.command("show")
@click.argument("name")
@click.option("--profile", default=None, help="also list what this profile runs")
def suite_show_cmd(name: str, profile: str | None) -> None:
    """Instance sets, configurations, limits and profiles of suite NAME."""
    from suites.schema import load_suite
    from suites.sources import deepcubea_source

    s = load_suite(name)
    chosen = None if profile is None else s.profile(profile)
    click.echo(f"suite {s.name}: puzzle {s.puzzle} ({s.path})")
    if s.description:
        click.echo(f"  {s.description}")
    lim = s.limits.as_dict()
    click.echo("limits: " + ", ".join(f"{k}={v}" for k, v in lim.items() if v is not None))
    click.echo("instance sets:")
    for spec in s.instance_sets.values():
        what = {"file": f"file {spec.path}", "scramble": f"scrambles depth {list(spec.depth)} "
                f"x {spec.count} (seed {spec.seed})", "uniform": f"{spec.count} uniform random "
                f"(seed {spec.seed})"}.get(spec.source, "DeepCubeA test set")
        if spec.source == "deepcubea":
            src = deepcubea_source(s.puzzle)
            what += f" ({src})" if src else f" (absent; falls back to {spec.fallback})"
        click.echo(f"  {spec.name:<22} {what}; goal {spec.goal or '-'}; optimal {spec.optimal}")
        if spec.citation:
            click.echo(f"  {'':<22} {spec.citation}")
    click.echo("configurations:")
    for c in s.configs.values():
        args = ", ".join(f"{k}={v}" for k, v in {**c.heuristic_args, **c.solver_args}.items())
        sets = f" on {','.join(c.instance_sets)}" if c.instance_sets else ""
        click.echo(f"  {c.name:<22} {c.heuristic} + {c.solver}" + (f" ({args})" if args else "") + sets)
    click.echo("profiles:")
    for p in s.profiles.values():
        parts = [f"limit {p.limit}" if p.limit else "all instances",
                 f"configs {','.join(p.configs)}" if p.configs else "all configs",
                 f"sets {','.join(p.instance_sets)}" if p.instance_sets else "all sets"]
        click.echo(f"  {p.name:<10} " + "; ".join(parts) + (f"  {p.description}" if p.description else ""))
    if chosen is not None:  # what that profile runs, spelled out
        limits = s.limits.merged(chosen.limits).as_dict()
        click.echo(f"profile {chosen.name} runs:")
        click.echo(f"  configurations: {', '.join(chosen.configs or s.configs)}")
        click.echo(f"  instance sets:  {', '.join(chosen.instance_sets or s.instance_sets)}"
                   + (f" (the first {chosen.limit} instances of each)" if chosen.limit else ""))
        click.echo("  limits:         " + (", ".join(f"{k}={v}" for k, v in limits.items()
                                                     if v is not None) or "none"))


@suite_group.command("import-deepcubea")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--puzzle", default=None,
              help="our puzzle name (default: the name of PATH's folder, e.g. cube3, puzzle15)")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="output file (default: the cache, where suites find it)")
def import_cmd(path: Path, puzzle: str | None, out: Path | None) -> None:
    """Convert DeepCubeA's test set PATH (test_data_0.pkl or its folder) to our instance format."""
    from core import registry
    from suites.sources import import_deepcubea

    if not path.exists():
        raise InputError(f"PATH: {path} does not exist")
    name = puzzle or (path.name if path.is_dir() else path.parent.name)
    try:
        registry.puzzle_entry(name)
    except InputError as exc:
        raise InputError(f"--puzzle: {exc} (give --puzzle)") from None
    dest = import_deepcubea(path, name, out)
    click.echo(f"wrote {dest}")


# --------------------------------------------------------------------------- bench report
def _check_models(puzzle: str, configs: Iterable[ConfigSpec]) -> None:
    """Stop before running when a value-network configuration's model is missing (one line,
    naming the configuration and the training command) rather than failing every one of its
    rows."""
    from core import registry
    from learning.model_store import resolve_model

    for c in configs:
        if registry.canonical_heuristic(c.heuristic) == registry.VALUE_NET:
            try:
                resolve_model(puzzle, c.heuristic_args.get("model"))
            except InputError as exc:
                if c.heuristic_args.get("model") is not None:
                    raise InputError(f"--config {c.name}: {str(exc).removeprefix('--model: ')}"
                                     ) from None
                raise InputError(
                    f"--config {c.name}: needs the shipped model {puzzle!r} "
                    f"(heuristics/models/{puzzle}/), which is absent; train one with `bench "
                    f"train davi {puzzle}`, or run a profile without it") from None
