"""One resolver (``core.resolve``): ``bench solve``, suite files and ``bench train evaluate``
turn names, options and limits into one ``ResolvedConfig``, and refuse a bad value with the same
words."""

from __future__ import annotations

import tomllib

import pandas as pd
import pytest

from core.errors import InputError
from core.limits import LIMIT_OPTIONS, MIB, Limits
from core.resolve import ArgumentError, ResolvedConfig, check_limits, resolve
from core.rows import TaskPayload
from suites.schema import parse_suite
from tests.cli_run import run_cli

SUITE = """
[suite]
name = "t"
puzzle = "puzzle8"
[[instances]]
name = "s"
source = "scramble"
depth = [5]
count = 2
[[configs]]
name = "c"
heuristic = "manhattan"
solver = "astar"
"""

#: (bench solve's arguments, the same in the suite's configuration, the command line's line,
#: the suite's line after "bad.toml: configs[0].")
SAME_FAULT = [
    (["--heuristic", "manhattan", "--solver", "astar", "--batch", "0"],
     'solver = "astar"\nsolver_args = { batch = 0 }',
     "--batch: must be >= 1, got 0", "solver_args: batch: must be >= 1, got 0"),
    (["--heuristic", "manhattan", "--solver", "astar", "--weight", "200"],
     'solver = "astar"\nsolver_args = { weight = 200 }',
     "--weight: must be in [0, 100], got 200", "solver_args: weight: must be in [0, 100], got 200"),
    (["--heuristic", "manhattan", "--solver", "astar", "--width", "5"],
     'solver = "astar"\nsolver_args = { width = 5 }',
     "--width: applies to beam/qbeam, not to astar",
     "solver_args: width: applies to beam/qbeam, not to astar"),
    (["--heuristic", "manhattan", "--solver", "astar", "--model", "m"],
     'solver = "astar"\nheuristic_args = { model = "m" }',
     "--model: manhattan takes no model (only learned heuristics do)",
     "heuristic_args: model: manhattan takes no model (only learned heuristics do)"),
    (["--heuristic", "manhattan", "--solver", "astar", "--time-limit", "-1"],
     'solver = "astar"\nlimits = { time_s = -1 }',
     "--time-limit: must be > 0, got -1", "limits.time_s: must be > 0, got -1"),
    (["--heuristic", "manhattan", "--solver", "astar", "--node-limit", "0"],
     'solver = "astar"\nlimits = { nodes = 0 }',
     "--node-limit: must be > 0, got 0", "limits.nodes: must be > 0, got 0"),
    (["--heuristic", "manhattan", "--solver", "astar", "--memory-limit", "2000000000000"],
     'solver = "astar"\nlimits = { memory_mb = 2000000000000 }',
     "--memory-limit: must be at most 1.09951e+12, got 2000000000000",
     "limits.memory_mb: must be at most 1.09951e+12, got 2000000000000"),
    (["--heuristic", "pdb-korf", "--solver", "astar"],
     'solver = "astar"\nheuristic = "pdb-korf"',
     "--heuristic: pdb-korf does not apply to puzzle8; choose one of",
     "heuristic: pdb-korf does not apply to puzzle8; choose one of"),
]


@pytest.mark.parametrize("cli,toml,cli_line,suite_line", SAME_FAULT,
                         ids=[c[2].split(":")[0] + "-" + c[0][-2] for c in SAME_FAULT])
def test_a_bad_value_is_the_same_line_on_the_command_line_and_in_a_suite_file(
        capsys, tmp_path, cli, toml, cli_line, suite_line):
    code, _, err = run_cli(capsys, "solve", "puzzle8", *cli)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {cli_line}"), err
    text = SUITE.replace('solver = "astar"', toml, 1)
    if 'heuristic = "pdb-korf"' in toml:
        text = text.replace('heuristic = "manhattan"\n', "", 1)
    with pytest.raises(InputError) as suite_fault:
        parse_suite(tmp_path / "bad.toml", tomllib.loads(text))
    assert str(suite_fault.value).startswith(f"bad.toml: configs[0].{suite_line}")
    assert suite_fault.value.args[0].count("\n") == 0
    # after the flag (the command line) and after the key (the suite file): the same words
    assert suite_line.endswith(cli_line.split(": ", 1)[1])


def test_train_evaluate_gives_the_command_lines_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args, line in ((["--batch", "0"], "--batch: must be >= 1, got 0"),
                       (["--time-limit", "-1"], "--time-limit: must be > 0, got -1"),
                       (["--node-limit", "0"], "--node-limit: must be > 0, got 0")):
        code, _, err = run_cli(capsys, "train", "evaluate", "puzzle8", *args)
        assert (code, err) == (2, f"error: {line}\n")
    assert not any((tmp_path / "runs").glob("*"))  # the evaluation's folder is not left behind


def test_resolved_config_checks_completes_and_types():
    cfg = resolve("puzzle8", "manhattan", {}, "astar", {"weight": "1", "batch": None},
                  {"time_s": "2.5", "nodes": "100", "memory_mb": "1.5"})
    assert isinstance(cfg, ResolvedConfig)
    assert (cfg.heuristic, cfg.solver, cfg.solver_args) == ("manhattan", "astar", {"weight": 1.0})
    assert cfg.limits == Limits(time_s=2.5, nodes=100, memory_bytes=int(1.5 * MIB))
    assert cfg.params() == {"s.weight": 1.0}
    payload: TaskPayload = cfg.payload([0, 1, 2, 3, 4, 5, 6, 7, 8], seed=3)
    assert payload["limits"] == {"time_s": 2.5, "nodes": 100, "memory_mb": 1}
    assert (payload["heuristic"], payload["solver_args"], payload["seed"]) == \
        ("manhattan", {"weight": 1.0}, 3)
    # a solver that uses no heuristic runs with zero; an optimal one defaults to the puzzle's
    assert resolve("lightsout7", None, {}, "gf2").heuristic == "zero"
    ida = resolve("puzzle8", None, {}, "ida", default_heuristic=True)
    assert ida.heuristic_by_default and ida.heuristic
    with pytest.raises(ArgumentError) as missing:
        resolve("puzzle8", None, {}, "ida")
    assert missing.value.argument == "heuristic"


def test_limits_are_bounded_by_their_one_declaration():
    for key, option in LIMIT_OPTIONS.items():
        assert option.cap is not None
        with pytest.raises(ArgumentError) as over:
            check_limits({key: option.cap * 2})
        assert over.value.argument == f"limits.{key}"
        assert str(over.value).startswith(f"{option.flag}: must be at most {option.cap:g}")
    with pytest.raises(InputError, match="limits: nodes must be at most"):
        Limits(nodes=int(LIMIT_OPTIONS["nodes"].cap or 0) + 1)
    with pytest.raises(InputError, match="limits: memory_bytes must be at most"):
        Limits(memory_bytes=int(LIMIT_OPTIONS["memory_mb"].cap or 0) * MIB * 2)


def test_resolved_configs_plan_the_rows_the_committed_run_recorded():
    """The shipped classic8 suite, resolved and planned now, gives every committed row of
    results/classic8 its heuristic, solver, params and fingerprint (the digest of the task:
    a changed resolution would make every resume refuse the run's rows)."""
    from bench import runner
    from core.paths import checkout_dir
    from core.registry import first_name
    from suites.schema import load_suite

    table = checkout_dir() / "results" / "classic8" / "results.csv"
    if not table.is_file():
        pytest.skip("results/classic8 is not in this checkout")
    df = pd.read_csv(table, dtype=str, keep_default_na=False)
    plan = runner.plan_run(load_suite("classic8"), "default", limit=10)
    tasks = {t.key: t for t in plan.tasks}
    rows = df[df["key"].isin(list(tasks))]
    assert len(rows) == len(tasks) == 10 * len(plan.configs)
    for _, row in rows.iterrows():
        task = tasks[row["key"]]
        assert runner.task_fingerprint(task.payload) == row["fingerprint"], row["key"]
        assert (task.meta["solver"], task.meta["params"]) == (row["solver"], row["params"])
        assert first_name(task.meta["heuristic"]) == first_name(row["heuristic"])
