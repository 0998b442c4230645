import subprocess
import sys

import pytest
from click.testing import CliRunner

from bench.cli import cli, main
from core.registry import HEURISTICS, PUZZLES, SOLVERS


def test_help_lists_every_command():
    out = CliRunner().invoke(cli, ["--help"])
    assert out.exit_code == 0
    for name in ("list", "show", "scramble", "pdb", "h", "solve", "run", "report"):
        assert name in out.output


def test_list_heuristics_and_solvers_do_not_import_heavy_modules():
    code = (
        "import sys; from bench.cli import main\n"
        "try:\n    main(['list', 'heuristics']); main(['list', 'solvers'])\n"
        "except SystemExit: pass\n"
        "assert 'torch' not in sys.modules and 'numba' not in sys.modules, "
        "[m for m in ('torch', 'numba') if m in sys.modules]\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    for name in list(HEURISTICS) + list(SOLVERS):
        assert name in res.stdout


def test_unknown_puzzle_is_one_line_exit_2():
    res = subprocess.run([sys.executable, "-m", "bench", "show", "cube4", "--scramble", "R"],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "unknown puzzle 'cube4'" in res.stderr
    assert "Traceback" not in res.stderr


def test_registry_names_are_unique_and_described():
    for table in (PUZZLES, HEURISTICS, SOLVERS):
        for name, entry in table.items():
            assert entry.name == name and entry.summary and ":" in entry.target


@pytest.mark.parametrize("argv, needle", [
    (["scramble", "cube3", "--depth", "-1"], "'--depth'"),
    (["scramble", "cube3", "--depth", "abc"], "'--depth'"),
    (["scramble", "cube3", "--depth", "3", "--seed", "-1"], "'--seed'"),
    (["solve", "cube3", "--bogus"], "'--bogus'"),
    (["nosuch"], "'nosuch'"),
    (["show"], "'PUZZLE'"),
    (["pdb", "build"], "'PUZZLE'"),
])
def test_click_usage_errors_are_one_line_exit_2(capsys, argv, needle):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err
    assert "--help" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["solve", "cube2", "--scramble", "R U", "--heuristic", "davi", "--model", "cube2",
     "--solver", "bwas"],
    ["h", "cube2", "davi", "--model", "cube2", "--scramble", "R U"],
])
def test_a_heuristic_whose_module_fails_to_import_is_one_line_exit_2(argv):
    code = ("import sys; sys.modules['torch'] = None  # torch missing or broken\n"
            f"from bench.cli import main; main({argv!r})\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and "value-net: cannot be loaded" in res.stderr
    assert "torch" in res.stderr


def test_version_works_from_a_checkout_and_an_install(capsys):
    try:
        code = main(["--version"])
    except SystemExit as exc:
        code = exc.code
    assert code in (0, None)
    out = capsys.readouterr().out
    assert out.startswith("bench ") and out.count("\n") == 1 and "unknown" not in out


@pytest.mark.parametrize("argv", [
    ["h", "cube3-htm", "pdb-korf", "--model", "x", "--scramble", "R"],
    ["h", "puzzle8", "manhattan", "--model", "x", "--scramble", "U"],
    ["solve", "puzzle8", "--scramble", "U", "--heuristic", "manhattan", "--model", "x"],
])
def test_model_for_a_heuristic_that_takes_none_is_one_line_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "takes no model" in err


def test_negative_seeds_are_one_line_usage_errors():
    for args in (["quality", "puzzle8", "manhattan", "--seed", "-1"],
                 ["run", "suite", "puzzle8", "--seed", "-1"],
                 ["train", "davi", "puzzle8", "--seed", "-1"]):
        res = subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True)
        assert res.returncode == 2, args
        assert "--seed" in res.stderr and res.stderr.strip().count("\n") == 0
        assert "Traceback" not in res.stderr


def test_models_list_spellings_agree(monkeypatch):
    """``bench models list`` and ``bench list models`` run the listing ``bench models`` runs
    (its --json too); the listing itself is tested in test_davi_cli."""
    import click

    from bench.commands import train_models

    def fake(as_json: bool) -> None:
        click.echo(f"models listed, json={as_json}")

    monkeypatch.setattr(train_models.models_cmd, "callback", fake)
    runner = CliRunner()
    for args, as_json in ((["models"], False), (["models", "list"], False),
                          (["list", "models"], False), (["models", "--json"], True),
                          (["models", "list", "--json"], True)):
        out = runner.invoke(cli, args)
        assert out.exit_code == 0 and out.output == f"models listed, json={as_json}\n", args
