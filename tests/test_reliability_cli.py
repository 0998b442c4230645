"""Malformed option values on every command: exit status 2, one line on stderr naming the
option, never a traceback (the commands run in-process, so a traceback fails the test)."""

from __future__ import annotations

import json

import pytest

from bench.cli import main

BIG = str(10**20)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def assert_one_line_error(code: int, err: str, words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert words in err, err


SOLVE = ["solve", "puzzle8", "--scramble", "U L", "--heuristic", "manhattan"]
TRAIN = ["train", "davi", "puzzle8", "--iterations", "0"]

CASES = [
    # bench solve: parsed by the command itself
    (SOLVE + ["--memory-limit", "1e308"], "--memory-limit: must be at most"),
    (SOLVE + ["--memory-limit", "nan"], "--memory-limit: expected a finite number"),
    (SOLVE + ["--node-limit", BIG], "--node-limit: must be at most"),
    (SOLVE + ["--time-limit", "inf"], "--time-limit: expected a finite number"),
    (SOLVE + ["--time-limit", "1e300"], "--time-limit: must be at most"),
    (SOLVE + ["--solver", "bwas", "--batch", BIG], "--batch: must be at most"),
    (SOLVE + ["--solver", "beam", "--width", "1e20"], "--width: expected an integer"),
    (SOLVE + ["--solver", "beam", "--max-depth", "-1"], "--max-depth: must be >= 1"),
    (SOLVE + ["--solver", "bwas", "--weight", "inf"], "--weight: expected a finite number"),
    (["solve", "lightsout7", "--scramble", "r0c0", "--solver", "gf2",
      "--weight", "0.5"], "--weight: applies to"),
    (["solve", "lightsout7", "--scramble", "r0c0", "--heuristic", "lights-on", "--solver", "gf2"],
     "--heuristic: solver gf2 uses no heuristic"),
    (["solve", "puzzle8", "1_2,3,4,5,6,7,8,0,9", "--heuristic", "manhattan"], "is not an integer"),
    (["solve", "lightsout٧", "--heuristic", "lights-on"], "unknown puzzle"),
    # bench scramble, show, h, pdb
    (["scramble", "puzzle8", "--depth", BIG], "--depth"),
    (["scramble", "puzzle8", "--depth", "3", "--count", BIG], "--count"),
    (["scramble", "puzzle8", "--depth", "3", "--seed", "-1"], "--seed"),
    (["scramble", "puzzle8", "--depth", "3", "--seed", str(2**64)], "--seed"),
    (["show", "puzzle8", "１,2,3,4,5,6,7,8,0"], "is not an integer"),
    (["h", "puzzle8", "manhattan", "--batch", BIG, "1,2,3,4,5,6,7,8,0"], "--batch"),
    (["pdb", "build", "puzzle8", "pdb-44", "--jobs", BIG], "--jobs"),
    # bench run suite, quality, paper, report
    (["run", "suite", "lightsout7", "--limit", BIG], "--limit"),
    (["run", "suite", "lightsout7", "--jobs", "0"], "--jobs"),
    (["run", "suite", "lightsout7", "--seed", BIG], "--seed"),
    (["run", "suite", "lightsout7", "--rerun-changed"], "--rerun-changed"),
    (["quality", "puzzle8", "manhattan", "--sample", "0"], "--sample"),
    (["quality", "puzzle8", "manhattan", "--seed", "-3"], "--seed"),
    (["paper", "felner2004", "--limit", "0"], "--limit"),
    (["paper", "felner2004", "--jobs", BIG], "--jobs"),
    (["paper", "deepcubea-table2", "--run", "/nonexistent"], "--run"),
    # bench train
    (TRAIN + ["--lr", "inf"], "--lr"),
    (TRAIN + ["--lr", "nan"], "--lr"),
    (TRAIN + ["--lr", "abc"], "--lr"),
    (TRAIN + ["--lr-decay", "nan"], "--lr-decay"),
    (TRAIN + ["--epsilon", "nan"], "--epsilon"),
    (TRAIN + ["--polyak", "inf"], "--polyak"),
    (TRAIN + ["--time-limit", "inf"], "--time-limit"),
    (TRAIN + ["--cpu-limit", "nan"], "--cpu-limit"),
    (TRAIN + ["--h1", "-5"], "--h1"),
    (TRAIN + ["--res-dim", "0"], "--res-dim"),
    (TRAIN + ["--num-blocks", "-1"], "--num-blocks"),
    (TRAIN + ["--eval-per-depth", "0"], "--eval-per-depth"),
    (TRAIN + ["--eval-max-steps", "0"], "--eval-max-steps"),
    (TRAIN + ["--batch", BIG], "--batch"),
    (TRAIN + ["--k-max", "0"], "--k-max"),
    (TRAIN + ["--check-every", "0"], "--check-every"),
    (TRAIN + ["--threads", "0"], "--threads"),
    (TRAIN + ["--seed", "-1"], "--seed"),
    (["train", "davi", "puzzle8", "--iterations", "-1"], "--iterations"),
    (["train", "diffusion", "puzzle8", "--iterations", "0", "--h1", "-5"], "--h1"),
    (["train", "rate", "puzzle8", "--batch", "1"], "--batch"),
    (["train", "infer-rate", "puzzle8", "--chunk", "0"], "--chunk"),
    (["train", "evaluate", "puzzle8", "--count", "0"], "--count"),
    (["train", "evaluate", "puzzle8", "--weight", "nan"], "--weight"),
    (["train", "evaluate", "puzzle8", "--node-limit", BIG], "--node-limit"),
    (["train", "evaluate", "puzzle8", "--threads", "0"], "--threads"),
    (["train", "evaluate", "puzzle8", "--time-limit", "inf"], "--time-limit"),
]


@pytest.mark.parametrize("args,words", CASES, ids=[" ".join(a[:2] + a[-2:]) for a, _ in CASES])
def test_malformed_option_values_are_one_line_errors(args, words, capsys, tmp_path):
    if args[:2] in (["train", "davi"], ["train", "diffusion"]):
        args = args + ["--out", str(tmp_path / "run")]
    code, err = run_cli(args, capsys)
    assert_one_line_error(code, err, words)


# --------------------------------------------------------------------------- files and folders
def test_report_of_an_empty_or_header_only_training_log(tmp_path, capsys):
    (tmp_path / "log.csv").write_text("")
    assert_one_line_error(*run_cli(["report", str(tmp_path)], capsys), "holds no training rows")
    (tmp_path / "log.csv").write_text("iteration,loss,lr,target_updates,states_per_s,seconds\n")
    assert_one_line_error(*run_cli(["report", str(tmp_path)], capsys), "holds no training rows")
    (tmp_path / "log.csv").write_text("a,b\n1,2\n")
    assert_one_line_error(*run_cli(["report", str(tmp_path)], capsys), "is not a training log")


def test_report_of_a_training_log_with_a_garbage_line(tmp_path, capsys):
    (tmp_path / "log.csv").write_text("iteration,loss,lr,target_updates,states_per_s,seconds\n"
                                      "1,0.5,0.001,0,100,1\ngarbage\xff line\n2,0.4,0.001,0,100,2\n")
    code, err = run_cli(["report", str(tmp_path)], capsys)
    assert code == 0, err
    assert (tmp_path / "training.png").is_file()


def test_report_of_rows_that_are_all_foreign(tmp_path, capsys):
    (tmp_path / "rows.jsonl").write_text("[1, 2]\n42\n{\"no\": \"key\"}\n")
    assert_one_line_error(*run_cli(["report", str(tmp_path)], capsys), "has no result rows")


def test_report_unknown_figure(tmp_path, capsys):
    (tmp_path / "rows.jsonl").write_text(json.dumps({"key": "a/1/c"}) + "\n")
    assert_one_line_error(*run_cli(["report", str(tmp_path), "--figures", "nope"], capsys),
                          "--figures: unknown figure 'nope'")


def test_suite_files_that_are_not_utf8_or_not_tables(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[suite]\nname = "\xff"\n')
    assert_one_line_error(*run_cli(["suite", "show", str(bad)], capsys), "not UTF-8")
    bad.write_text('configs = [1]\n[suite]\nname = "t"\npuzzle = "puzzle8"\n'
                   '[[instances]]\nname = "s"\nsource = "uniform"\ncount = 1\n')
    assert_one_line_error(*run_cli(["run", "suite", str(bad)], capsys), "configs[0]")


def test_unwritable_run_folder(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" / "run"
    args = ["run", "suite", "lightsout7", "--quick", "--limit", "1", "--config", "gf2", "-q",
            "--out", str(out)]
    code, err = run_cli(args, capsys)
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: --out: cannot write to")


def test_cache_folder_that_is_a_file(tmp_path, capsys, monkeypatch):
    (tmp_path / "cache").write_text("x")
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path / "cache"))
    assert_one_line_error(*run_cli(["pdb", "build", "puzzle8", "pdb-44"], capsys),
                          "$BENCH_CACHE: cannot use")


def test_train_out_under_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, err = run_cli(["train", "davi", "puzzle8", "--iterations", "0", "--preset", "tiny",
                         "--out", str(tmp_path / "file" / "run")], capsys)
    assert_one_line_error(code, err, str(tmp_path / "file"))


def test_read_only_output_folder(tmp_path, capsys):
    import os

    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, err = run_cli(["quality", "puzzle8", "manhattan", "--sample", "10", "--out",
                             str(ro / "q")], capsys)
    finally:
        ro.chmod(0o700)
    assert_one_line_error(code, err, "Permission denied")


def test_json_output_is_strict_json():
    from bench.commands.common import json_line

    text = json_line({"h_start": float("nan"), "rate": float("inf"), "xs": [1.0, float("-inf")]})
    assert json.loads(text) == {"h_start": None, "rate": None, "xs": [1.0, None]}
    assert "NaN" not in text and "Infinity" not in text


def test_solve_json_has_no_nan(capsys):
    code = 0
    try:
        main(["solve", "puzzle8", "--scramble", "U L", "--heuristic", "manhattan", "--json"])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr().out
    assert code == 0
    json.loads(out, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))


# --------------------------------------------------------------------------- every numeric option
BASE_ARGS = {
    "show": ["show", "puzzle8", "1,2,3,4,5,6,7,8,0"], "scramble": ["scramble", "puzzle8"],
    "pdb build": ["pdb", "build", "puzzle8", "pdb-44"], "h": ["h", "puzzle8", "manhattan", "-"],
    "solve": SOLVE, "train davi": TRAIN, "train diffusion": ["train", "diffusion", "puzzle8"],
    "train policy": ["train", "policy", "puzzle8"],
    "train q-distill": ["train", "q-distill", "puzzle8"],
    "train q-learning": ["train", "q-learning", "puzzle8"],
    "train q-diffusion": ["train", "q-diffusion", "puzzle8"],
    "train rate": ["train", "rate", "puzzle8"], "train infer-rate": ["train", "infer-rate", "puzzle8"],
    "train evaluate": ["train", "evaluate", "puzzle8"], "run suite": ["run", "suite", "lightsout7"],
    "quality": ["quality", "puzzle8", "manhattan"], "paper": ["paper", "felner2004"],
    "macro show": ["macro", "show", "puzzle8"], "macro build": ["macro", "build", "puzzle8"],
    "train multigoal": ["train", "multigoal", "puzzle8", "--iterations", "1"],
    "view": ["view", "puzzle8", "1,2,3,4,5,6,7,8,0", "--no-browser"],
    "models speed": ["models", "speed", "puzzle8"],
}


def _numeric_options() -> list[tuple[str, str, str]]:
    """(command, option, malformed value) for every int or float option of every command."""
    import click

    from bench.cli import COMMANDS, cli

    ctx = click.Context(cli)
    cases = []
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        subs = cmd.commands.items() if isinstance(cmd, click.Group) else [(None, cmd)]
        for sub, c in subs:
            path = name if sub is None else f"{name} {sub}"
            for p in c.params:
                if not isinstance(p, click.Option) or p.is_flag or p.multiple and p.nargs != 1:
                    continue
                kind = p.type
                is_int = isinstance(kind, click.types.IntParamType)
                is_float = isinstance(kind, click.types.FloatParamType) or kind.name == "float"
                if not (is_int or is_float):
                    continue
                opt = max(p.opts, key=len)
                cases.append((path, opt, "abc"))
                cases += [(path, opt, v) for v in ((BIG, "-" + BIG) if is_int else ("nan", "inf"))]
    return cases


NUMERIC = _numeric_options()


def test_every_command_with_numeric_options_is_covered():
    assert {c for c, _, _ in NUMERIC} <= set(BASE_ARGS)
    assert len(NUMERIC) > 60


@pytest.mark.parametrize("command,option,value", NUMERIC,
                         ids=[f"{c}:{o}={v[:6]}" for c, o, v in NUMERIC])
def test_every_numeric_option_refuses_malformed_values(command, option, value, capsys, tmp_path):
    args = BASE_ARGS[command] + [option, value]
    if command in ("train davi", "train diffusion", "train policy", "train multigoal",
                   "train q-distill", "train q-learning", "train q-diffusion"):
        args += ["--out", str(tmp_path / "run")]
    code, err = run_cli(args, capsys)
    assert_one_line_error(code, err, option)


def _committed_run(tmp_path):
    """A finished fake run inside a git checkout, its report committed."""
    import subprocess

    from runner_fakes import make_plan

    from bench.executor import InlineExecutor
    from bench.runner import derive_tables, run_plan

    plan = make_plan(tmp_path, [("1", "a", {"length": 40}), ("2", "a", {"length": 41})])
    run_dir = tmp_path / "results" / "fake"
    run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), progress=False,
             prepare=False)
    derive_tables(run_dir)
    (run_dir / "summary.md").write_text("# fake (default)\n\ncommitted\n")
    for cmd in (["init", "-q"], ["add", "results"],
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "r"]):
        subprocess.run(["git", "-C", str(tmp_path), *cmd], check=True, capture_output=True)
    return run_dir


def test_report_never_rewrites_committed_results_by_default(tmp_path, capsys):
    run_dir = _committed_run(tmp_path)
    assert_one_line_error(*run_cli(["report", str(run_dir)], capsys),
                          "holds committed results (summary.md is tracked by git)")
    assert (run_dir / "summary.md").read_text() == "# fake (default)\n\ncommitted\n"
    code, err = run_cli(["report", str(run_dir), "--out", str(tmp_path / "elsewhere")], capsys)
    assert code == 0, err
    assert "## korf100" in (tmp_path / "elsewhere" / "summary.md").read_text()
    assert_one_line_error(*run_cli(["report", str(run_dir), "--out", str(tmp_path / "elsewhere")],
                                   capsys), "already holds a report or run")
    code, err = run_cli(["report", str(run_dir), "--overwrite"], capsys)
    assert code == 0, err
    assert "## korf100" in (run_dir / "summary.md").read_text()


def test_report_of_a_committed_copy_needs_out_or_overwrite(tmp_path, capsys):
    run_dir = _committed_run(tmp_path)
    (run_dir / "rows.jsonl").unlink()  # the committed copy: results.csv without rows
    assert_one_line_error(*run_cli(["report", str(run_dir)], capsys),
                          "without its rows; give --out DIR")
    code, err = run_cli(["report", str(run_dir), "--overwrite"], capsys)
    assert code == 0, err
    text = (run_dir / "summary.md").read_text()
    assert text.startswith("# fake (default)") and "report redone from `results.csv`" not in text


def test_every_command_declares_each_flag_once() -> None:
    """A flag declared twice (a command's own and a registry option of the same name) makes
    click warn and hands the value to one of them; no command may do that."""
    import warnings

    import click

    from bench.cli import cli

    def commands(group: click.Group, path: str):
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            assert cmd is not None, name
            yield f"{path} {name}", cmd
            if isinstance(cmd, click.Group):
                yield from commands(cmd, f"{path} {name}")

    found = list(commands(cli, "bench"))
    assert any(path == "bench train evaluate" for path, _ in found)
    for path, cmd in found:
        names = [p.name for p in cmd.params]
        assert len(names) == len(set(names)), (path, sorted(n for n in names if names.count(n) > 1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cmd.make_parser(click.Context(cmd))
