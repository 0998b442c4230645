"""The learned-guides comparison (``python -m experiments.learned_guides``): networks trained on three
targets at an equal CPU budget, and a pattern database, as guides of the same searches.

Per puzzle (``PUZZLES``): the guides are a DAVI network, a diffusion-distance network and a
policy network (:mod:`experiments.learned_guides.guide_models`: one network size, one CPU budget), and the puzzle's
pattern database where it has one. Each guide runs under beam search at every width of
``WIDTHS``; the value guides (DAVI, diffusion) also under BWAS (``BWAS``: lambda 0.6, N 1,000); a
policy ranks moves and gives no distance, so it has no BWAS row. An optimal solver gives the
reference lengths where one finishes: IDA* with the PDB on the 15-puzzle, GF(2) elimination on
Lights Out (a row of its own beside the guides); the cube has none.

The searches of a puzzle are one suite built in code (:func:`guides_suite`, kept as
``guides.toml`` in its run folder, like ``bench train evaluate``'s ``evaluate.toml``) run by the suite runner: every path replayed,
every row kept, a second run resumes the first. The run records the models it used
(``models.json``); a run folder whose rows were made with other models is refused.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.papers.learned_guides import COLUMNS, published_rows, summarize
from core.errors import InputError
from core.limits import MIB, Limits
from experiments.learned_guides.guide_models import (
    DAVI_CHECK_EVERY,
    TARGETS,
    TRAINING,
    VALUE_TARGETS,
    GuideModel,
    ensure_model,
    given_model,
    network_text,
)
from suites.schema import (
    ConfigSpec,
    InstanceSetSpec,
    Profile,
    Suite,
    check_suite,
    suite_toml,
)


@dataclass(frozen=True)
class GuidePuzzle:
    """How one puzzle is compared: ``pdb`` the pattern database searched under the same beams
    (None: none), ``reference`` the optimal solver run beside the guides (``ida``: IDA* with
    ``pdb``; ``gf2``; None), ``optimal`` the instance sets' own rule for optimal lengths
    (``suites.reference``), ``max_depth`` the beam's layers, ``memory_mb`` a search's budget,
    ``goal`` the goal layout (sliding tiles)."""

    pdb: str | None
    reference: str | None
    optimal: str
    max_depth: int
    memory_mb: int
    goal: str | None = None
    what: str = ""


PUZZLES: dict[str, GuidePuzzle] = {
    "cube3": GuidePuzzle("pdb-korf", None, "none", 80, 3500, what="Rubik's cube, quarter turns"),
    "puzzle15": GuidePuzzle("pdb-78", "ida", "none", 150, 3000, "blank-last", "15-puzzle"),
    "lightsout7": GuidePuzzle(None, "gf2", "gf2", 100, 2500, what="Lights Out 7x7"),
    # small puzzles (quick trials and tests): exact distance tables give the optima
    "cube2": GuidePuzzle("pdb-cube2", None, "table", 40, 2500, what="2x2x2 cube"),
    "puzzle8": GuidePuzzle("pdb-44", None, "table", 60, 2500, "blank-last", "8-puzzle"),
}
#: the puzzles of the table unless ``--puzzles`` says otherwise
DEFAULT_PUZZLES = ("cube3", "puzzle15", "lightsout7")
#: beam widths unless ``--widths`` says otherwise
WIDTHS = (128, 512, 2048, 8192)
#: BWAS of the value guides: lambda (weight on g) and N (states expanded per iteration)
BWAS = {"weight": 0.6, "batch": 1000}
#: seconds per instance and search
TIME_S = 60.0
#: DeepCubeA's first states per puzzle unless ``--limit`` says otherwise
LIMIT = 100
#: the networks' hidden layers in search
PRECISION = "bfloat16"
#: the guides' names in the table
TARGET_LABELS = {"davi": "DAVI", "diffusion": "diffusion distance", "policy": "policy"}
MODELS_JSON = "models.json"
SUITE_FILE = "guides.toml"


@dataclass(frozen=True)
class Config:
    """One configuration of a puzzle's suite: ``guide`` (``davi``, ``diffusion``, ``policy``, a
    PDB heuristic, or ``reference``) under ``search`` (``beam``, ``bwas``, ``ida``, ``gf2``)."""

    name: str
    guide: str
    search: str
    width: int | None
    heuristic: str | None
    solver: str
    heuristic_args: dict[str, Any] = field(default_factory=dict)
    solver_args: dict[str, Any] = field(default_factory=dict)

    @property
    def guide_label(self) -> str:
        if self.guide in TARGET_LABELS:
            return TARGET_LABELS[self.guide]
        if self.search == "gf2":
            return "GF(2) elimination (exact)"
        if self.search == "ida":
            return f"{pdb_label(str(self.heuristic))} (IDA*, optimal)"
        return pdb_label(self.guide)

    @property
    def search_label(self) -> str:
        if self.search == "beam":
            return f"beam {self.width:,}"
        if self.search == "bwas":
            return f"BWAS (lambda {BWAS['weight']:g}, N {BWAS['batch']:,})"
        return {"ida": "IDA*", "gf2": "GF(2)"}.get(self.search, self.search)


def pdb_label(heuristic: str) -> str:
    return {"pdb-korf": "Korf's PDB", "pdb-78": "PDB 7-8", "pdb-663": "PDB 6-6-3",
            "pdb-cube2": "PDB (2x2x2, exact)", "pdb-44": "PDB 4-4"}.get(heuristic, heuristic)


# --------------------------------------------------------------------------- options
def _distinct_items(option: str, given: Any, parse: Callable[[Any], Any], what: str) -> list[Any]:
    """The items of a comma-separated text (or a sequence) for ``option``, each parsed by
    ``parse`` (which raises :class:`InputError`); repeated or missing items are one-line errors."""
    items = [x.strip() for x in given.split(",")] if isinstance(given, str) else list(given)
    out: list[Any] = []
    for item in items:
        v = parse(item)
        if v in out:
            raise InputError(f"{option}: {what} {v} given twice")
        out.append(v)
    if not out:
        raise InputError(f"{option}: give at least one {what}")
    return out


def _width(w: Any) -> int:
    try:
        v = int(w) if not isinstance(w, bool) else None
    except (TypeError, ValueError):
        v = None
    if v is None or not 1 <= v <= 10**9 or (isinstance(w, float) and not w.is_integer()):
        raise InputError(f"--widths: expected comma-separated widths from 1 to 10^9, got {w!r}")
    return v


def _puzzle(p: Any) -> str:
    if p not in PUZZLES:
        raise InputError(f"--puzzles: unknown puzzle {p!r}; choose from {', '.join(PUZZLES)}")
    return str(p)


def check_widths(widths: Any) -> tuple[int, ...]:
    """Beam widths from ``--widths`` (a comma-separated text or a sequence); one-line errors."""
    if widths is None:
        return WIDTHS
    return tuple(sorted(_distinct_items("--widths", widths, _width, "width")))


def check_puzzles(puzzles: Any) -> tuple[str, ...]:
    """Puzzles from ``--puzzles`` (a comma-separated text or a sequence); one-line errors."""
    if puzzles is None:
        return DEFAULT_PUZZLES
    return tuple(_distinct_items("--puzzles", puzzles, _puzzle, "puzzle"))


def table_folder(dest: Path, names: tuple[str, ...]) -> Path:
    """Where the table of ``names`` goes: ``dest`` (``OUT/learned-guides``) for the default
    puzzles, else ``dest/P1-P2-only``, so a table of some puzzles never replaces the table of
    all of them (the runs and models stay in ``OUT/runs/learned-guides`` either way)."""
    return dest if set(names) == set(DEFAULT_PUZZLES) else dest / f"{'-'.join(names)}-only"


# --------------------------------------------------------------------------- the suites
def configs(puzzle: str, models: dict[str, Path], widths: tuple[int, ...]) -> list[Config]:
    """The configurations of ``puzzle``'s suite: the optimal reference first, then each guide
    (``models``: target -> model folder or file) under every beam width, then BWAS."""
    from core import registry
    from learning.targets import target_for

    spec = PUZZLES[puzzle]
    out: list[Config] = []
    if spec.reference == "gf2":
        out.append(Config("gf2", "reference", "gf2", None, None, "gf2"))
    elif spec.reference == "ida" and spec.pdb is not None:
        out.append(Config(f"{spec.pdb}-ida", "reference", "ida", None, spec.pdb, "ida"))
    beam = {"max_depth": spec.max_depth}
    for target in TARGETS:
        if target not in models:
            continue
        hargs = {"model": str(Path(models[target]).resolve()), "precision": PRECISION}
        heuristic = registry.VALUE_NET if target_for(target).values else "policy"
        for w in widths:
            out.append(Config(f"{target}-beam-{w}", target, "beam", w, heuristic, "beam", hargs,
                              {"width": w, **beam}))
    if spec.pdb is not None:
        for w in widths:
            out.append(Config(f"{spec.pdb}-beam-{w}", spec.pdb, "beam", w, spec.pdb, "beam", {},
                              {"width": w, **beam}))
    for target in VALUE_TARGETS:
        if target in models:
            hargs = {"model": str(Path(models[target]).resolve()), "precision": PRECISION}
            out.append(Config(f"{target}-bwas", target, "bwas", None, "davi", "bwas", hargs,
                              dict(BWAS)))
    return out


#: the first line of a puzzle's suite file
COMMENT = ("bench paper learned-guides: guides under the same searches, DeepCubeA's test states "
           "(our uniform random states where they are absent)")


def guides_suite(puzzle: str, cfgs: list[Config], limit: int, path: Path) -> Suite:
    """The suite of ``puzzle``'s searches, to be kept as ``path`` (checked like a suite file)."""
    from core import registry

    spec = PUZZLES[puzzle]
    sets = [InstanceSetSpec(name="deepcubea", source="deepcubea", fallback="uniform",
                            goal=spec.goal, optimal=spec.optimal),
            InstanceSetSpec(name="uniform", source="uniform", count=limit, seed=0,
                            goal=spec.goal, optimal=spec.optimal)]
    configs = [ConfigSpec(name=c.name, solver=c.solver,
                          heuristic=c.heuristic if c.heuristic is not None
                          else registry.check_solver_heuristic(c.solver, None),
                          heuristic_args=dict(c.heuristic_args), solver_args=dict(c.solver_args))
               for c in cfgs]
    return check_suite(Suite(
        name="learned-guides-" + puzzle, puzzle=puzzle, path=path, description="",
        instance_sets={s.name: s for s in sets}, configs={c.name: c for c in configs},
        limits=Limits(time_s=TIME_S, memory_bytes=spec.memory_mb * MIB),
        profiles={"default": Profile(name="default", instance_sets=("deepcubea",),
                                     limit=limit)}))


def model_digest(path: Path, puzzle: str) -> str:
    """A digest of the weights file a model folder or file names (what a row was made with)."""
    from learning.model_store import resolve_model

    h = hashlib.sha256()
    with resolve_model(puzzle, path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def _check_models(run_dir: Path, used: dict[str, str]) -> None:
    """Refuse a run folder whose rows were made with other models (``models.json``)."""
    path = run_dir / MODELS_JSON
    if not path.is_file():
        return
    try:
        before = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    changed = sorted(k for k, v in used.items() if k in before and before[k] != v)
    if changed:
        raise InputError(f"--out: {run_dir} holds searches made with other models "
                         f"({', '.join(changed)} changed since); use another --out")


def build_tables(puzzle: str, cfgs: list[Config], threads: int) -> None:
    """Build the pattern databases the configurations need, once, in this process (the
    runner's preparing worker has a load timeout; the 7-8 tables take about half an hour).
    The caller passes only the configurations with searches left to run."""
    from pdb_builders import catalog

    for h in dict.fromkeys(c.heuristic for c in cfgs if c.heuristic is not None):
        entry = catalog.find(puzzle, h)
        if entry is None:
            continue
        for t in entry.tables(puzzle):
            if not t.exists():
                print(f"building pattern database {t.path.name} ({t.summary or t.key})",
                      file=sys.stderr, flush=True)
                t.build(progress=True, jobs=threads)


def run_suite(puzzle: str, cfgs: list[Config], models: dict[str, GuideModel], run_dir: Path,
              limit: int, jobs: int | None, threads: int, progress: bool = True) -> Any:
    """Run (or resume) ``puzzle``'s suite in ``run_dir``; returns the plan."""
    from bench import runner
    from bench.executor import LocalExecutor

    run_dir.mkdir(parents=True, exist_ok=True)
    used = {m.key: model_digest(m.path, puzzle) for m in models.values()}
    _check_models(run_dir, used)
    suite = guides_suite(puzzle, cfgs, limit, run_dir / SUITE_FILE)
    # planned (and checked against the rows) before its file replaces the run's
    plan = runner.plan_run(suite, "default", (), limit)
    rows = runner.read_rows(run_dir / runner.ROWS)
    fps = {t.key: runner.task_fingerprint(t.payload) for t in plan.tasks}
    changed = [r["key"] for r in rows if r["key"] in fps and r.get("fingerprint") is not None
               and r["fingerprint"] != fps[r["key"]]]
    if changed:
        raise InputError(f"--out: {run_dir} holds {len(changed)} rows made with other "
                         "settings (models, states or limits); use another --out")
    before = {}
    if (run_dir / MODELS_JSON).is_file():
        try:
            before = json.loads((run_dir / MODELS_JSON).read_text())
        except (OSError, ValueError):
            before = {}
    runner.write_atomic(run_dir / MODELS_JSON, json.dumps({**before, **used}, indent=2))
    runner.write_atomic(run_dir / SUITE_FILE, suite_toml(suite, comment=COMMENT))
    done = {r["key"] for r in rows}
    pending = {t.payload["heuristic"] for t in plan.tasks if t.key not in done}
    build_tables(puzzle, [c for c in cfgs if c.heuristic in pending], threads)
    with LocalExecutor(jobs=jobs, threads=threads) as ex:
        # a run folder of this command is always resumed, even one whose rows file is still empty
        runner.run_plan(plan, run_dir, ex, resume=(run_dir / runner.ROWS).exists(),
                        progress=progress)
    runner.derive_tables(run_dir)
    return plan


def compare(out: Path, limit: int | None, jobs: int | None, train_minutes: float | None,
            model_args: tuple[str, ...] = (), widths: Any = None, puzzles: Any = None,
            threads: int | None = None, progress: bool = True,
            runs_root: Path | None = None) -> dict[str, Any]:
    """Train or reuse the guides, run the searches, and gather the table: a dict with
    ``table`` (a DataFrame of ``COLUMNS``), ``points`` (our rows with their search kind and
    width, for the figure), ``models``, ``runs`` (puzzle -> run folder), ``states`` (puzzle ->
    where they came from), ``machines`` (puzzle -> the runs and CPU scores of its rows) and the
    settings. ``out``: the table's folder (``OUT/NAME``); models and runs go to ``runs_root``
    (default ``OUT/runs/NAME/``)."""
    from bench import report
    from experiments.learned_guides.guide_models import parse_model_option

    names = check_puzzles(puzzles)
    widths_ = check_widths(widths)
    limit = LIMIT if limit is None else int(limit)
    threads = 2 if threads is None else int(threads)
    if threads < 1:
        raise InputError(f"--threads: must be at least 1, got {threads}")
    given: dict[tuple[str, str], Path] = {}
    for text in model_args:
        puzzle, target, path = parse_model_option(text, names)
        if (puzzle, target) in given:
            raise InputError(f"--model: {puzzle}-{target} given twice")
        given[(puzzle, target)] = path
    if train_minutes is not None and not (np.isfinite(train_minutes) and train_minutes > 0):
        raise InputError(f"--train-minutes: must be a positive number of minutes, got "
                         f"{train_minutes}")
    missing = [f"{p}-{t}" for p in names for t in TARGETS if (p, t) not in given]
    if missing and train_minutes is None:
        raise InputError("--train-minutes: missing; give the CPU minutes of training per model "
                         f"(e.g. 120), or every model with --model ({', '.join(missing)})")
    checked = {k: given_model(k[0], k[1], p) for k, p in given.items()}  # before any training
    root = runs_root if runs_root is not None else out.parent / "runs" / out.name
    rows: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    all_models: list[GuideModel] = []
    runs: dict[str, Path] = {}
    states: dict[str, str] = {}
    machines: dict[str, str] = {}
    for puzzle in names:
        models: dict[str, GuideModel] = {}
        for target in TARGETS:
            if (puzzle, target) in checked:
                models[target] = checked[(puzzle, target)]
            else:
                assert train_minutes is not None
                models[target] = ensure_model(puzzle, target,
                                              root / "models" / f"{puzzle}-{target}",
                                              train_minutes, threads, progress)
        all_models += models.values()
        cfgs = configs(puzzle, {t: m.path for t, m in models.items()}, widths_)
        run_dir = root / puzzle
        plan = run_suite(puzzle, cfgs, models, run_dir, limit, jobs, threads, progress)
        ours, df = summarize(puzzle, run_dir, cfgs, {t.key for t in plan.tasks}, models)
        runs[puzzle] = run_dir
        machines[puzzle] = report.machines_note(df, always=True)
        states[puzzle] = "; ".join(f"{s.origin} ({len(s.instances)})" for s in plan.sets.values())
        points += ours
        rows += ours
        rows += published_rows(puzzle, df)
    table = pd.DataFrame(rows)
    for col in COLUMNS:
        if col not in table:
            table[col] = None
    return {"table": table[list(COLUMNS)], "points": pd.DataFrame(points), "models": all_models,
            "runs": runs, "states": states, "machines": machines, "widths": widths_, "limit": limit,
            "threads": threads, "train_minutes": train_minutes, "puzzles": names}


def _reference_text(puzzle: str) -> str:
    spec = PUZZLES[puzzle]
    if spec.reference == "ida":
        return f"IDA* with {pdb_label(str(spec.pdb))} in the same run"
    if spec.optimal == "gf2":
        return "GF(2) elimination"
    if spec.optimal == "table":
        return "the exact distance table"
    return "none known (`-`)"


def notes(res: dict[str, Any]) -> list[str]:
    """The notes above the table: the budget, the models, the searches, the references, the
    published sources (``res``: what :func:`compare` returns)."""
    from bench import published

    minutes, threads, names = res["train_minutes"], res["threads"], res["puzzles"]
    per = "; ".join(f"{p}: K = {TRAINING[p]['k_max']}, DAVI epsilon {TRAINING[p]['epsilon']:g}"
                    for p in names if p in TRAINING)
    s = "s" if threads > 1 else ""
    # the torch threads of a training are known only where this run trained (or resumed) it
    made = "; ".join(f"{m.key}: {m.source}"
                     + (f" on {threads} torch thread{s}" if m.source in ("trained", "resumed")
                        else "") + ", "
                     + (f"{m.cpu_minutes:.3g} CPU-minutes" if m.cpu_minutes else
                        "CPU time not recorded") + f" (`{m.path}`)" for m in res["models"])
    pdbs = "; ".join(f"{p}: {pdb_label(str(PUZZLES[p].pdb)) if PUZZLES[p].pdb else 'none'}"
                     for p in names)
    return [
        f"Guides: a DAVI, a diffusion-distance and a policy network per puzzle, each "
        f"{network_text(res['models'])}, "
        + (f"stopped after {minutes:g} minutes of process CPU time each" if minutes else
           "as given with --model")
        + " (every thread counted; `bench train TARGET PUZZLE --cpu-limit M`, monitoring "
        f"excluded); {per}; DAVI checks its loss for a target update every "
        f"{DAVI_CHECK_EVERY} iterations. Models: {made}.",
        "",
        f"Searches: beam widths {', '.join(f'{w:,}' for w in res['widths'])} for every guide; "
        f"BWAS (lambda {BWAS['weight']:g}, N {BWAS['batch']:,}) for the value guides (a policy "
        f"ranks moves and gives no distance: beam only); networks evaluate in {PRECISION}; "
        f"{TIME_S:g} s per instance, {threads} thread{s} per search, every path replayed. "
        f"PDBs under the same beams: {pdbs}. States: "
        + "; ".join(f"{p}: {st}" for p, st in res["states"].items()) + ".",
        "",
        "% optimal: states solved at the optimal length, of the states with a known optimum ("
        + "; ".join(f"{p}: {_reference_text(p)}" for p in names) + "). Mean length, expanded "
        "and generated states, network evaluations and seconds are over the solved states; a "
        "value network evaluates every child it scores, a policy every expanded state. "
        "`training CPU-min`: the CPU minutes the guide's network trained for.",
        "",
        f"Published: {published.FILES} (DeepCubeA's BWAS with its own lambda and N; its nodes "
        "generated and seconds on its GPU machine) over the states of our run and over all it "
        f"lists; {published.EFFICIENTCUBE_SOURCE}: beam search with its policy network on "
        "DeepCubeA's test states (1,000 cubes, all solved; 500 15-puzzles, optimal mean 52.02; "
        "Lights Out 7x7 greedy, all optimal), with its own networks and hardware, not this "
        "budget. Figure: `length-vs-time.png` (mean length against mean seconds per solved "
        "instance, one line per guide through its beam widths).",
        "",
        "Runs: " + ", ".join(f"`{r}`" for r in res["runs"].values()) + ". Machines (the "
        "seconds of one puzzle compare where its rows come from one run, or from runs whose "
        "CPU scores agree): " + " ".join(f"{p}: {m}" for p, m in res["machines"].items()
                                         if m),
    ]


def make(out: Path, limit: int | None = None, jobs: int | None = None,
         train_minutes: float | None = None, models: tuple[str, ...] = (), widths: Any = None,
         puzzles: Any = None, threads: int | None = None, command: str = "",
         progress: bool = True) -> str:
    """Train or reuse the guides, run the searches and write the table into
    ``OUT/learned-guides/`` (of other puzzles than the default three:
    ``OUT/learned-guides/P-P-only/``, :func:`table_folder`); models and runs go to
    ``OUT/runs/learned-guides/``. Returns the table's markdown."""
    from bench.papers import learned_guides

    name = "learned-guides"
    names = check_puzzles(puzzles)
    widths_ = check_widths(widths)
    dest = table_folder(out / name, names)
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {dest}: {exc.strerror or exc}") from None
    res = compare(dest, limit, jobs, train_minutes, tuple(models), widths_, names, threads,
                  progress=progress, runs_root=out / "runs" / name)
    return learned_guides.write(res, dest, command or "python -m experiments.learned_guides",
                                notes(res))
