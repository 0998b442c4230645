"""``python -m experiments.learned_guides``: the whole pipeline (training at an equal CPU budget, the
generated suites, the table and figure) on the 8-puzzle with tiny networks and budgets."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from bench.cli import main as bench_main
from core.errors import InputError
from experiments.learned_guides import guide_models, guides
from experiments.learned_guides.__main__ import main

#: a budget of a fraction of a second of CPU time per network
MINUTES = 0.004


@pytest.fixture(autouse=True)
def tiny_networks(monkeypatch):
    """Tiny networks and batches: the pipeline is the same, the training a fraction of a second."""
    monkeypatch.setattr(guide_models, "NETWORK", {"preset": "mlp-tiny", "batch": 64, "seed": 0,
                                                  "check_every": 1000, "eval_per_depth": 2})
    monkeypatch.setattr(guide_models, "bf16_supported", lambda: False)


def _make(out, **kw):
    args = {"limit": 2, "jobs": 1, "train_minutes": MINUTES, "widths": "4,16",
            "puzzles": "puzzle8", "threads": 1}
    return guides.make(out, **{**args, **kw})


def test_pipeline_table_models_and_reuse(tmp_path, capsys, monkeypatch):
    out = tmp_path / "paper"
    text = _make(out, command="python -m experiments.learned_guides --puzzles puzzle8")
    # a table of other puzzles than the default three goes beside theirs, never over it
    dest = out / "learned-guides" / "puzzle8-only"
    assert guides.table_folder(out / "learned-guides", ("puzzle8",)) == dest
    assert guides.table_folder(out, guides.DEFAULT_PUZZLES[::-1]) == out
    assert not (out / "learned-guides" / "table.md").exists()
    assert (dest / "length-vs-time.png").stat().st_size > 0
    table = pd.read_csv(dest / "table.csv")
    ours = table[table["source"] == "ours"]
    got = set(zip(ours["guide"], ours["search"], strict=True))
    want = {(g, f"beam {w}") for g in ("DAVI", "diffusion distance", "policy", "PDB 4-4")
            for w in (4, 16)}
    bwas = f"BWAS (lambda {guides.BWAS['weight']:g}, N {guides.BWAS['batch']:,})"
    want |= {("DAVI", bwas), ("diffusion distance", bwas)}
    assert got == want  # a policy gives no distance: no BWAS row
    assert not ((ours["guide"] == "policy") & ours["search"].str.startswith("BWAS")).any()
    assert (ours["states"] == 2).all() and (ours["puzzle"] == "puzzle8").all()
    # the 8-puzzle's exact table gives every optimum; the PDB and every network were measured
    assert ours["% optimal"].notna().all()
    learned = ours[ours["guide"] != "PDB 4-4"]
    assert (learned["training CPU-min"] >= MINUTES - 1e-3).all()
    assert ours.loc[ours["guide"] == "PDB 4-4", "training CPU-min"].isna().all()
    solved = ours[ours["solved %"] > 0]
    assert solved["mean expanded"].notna().all() and solved["mean length"].notna().all()
    assert solved.loc[solved["guide"] != "PDB 4-4", "mean network evaluations"].notna().all()
    assert solved.loc[solved["guide"] == "PDB 4-4", "mean network evaluations"].isna().all()
    assert "Command: `python -m experiments.learned_guides --puzzles puzzle8`" in text
    assert f"stopped after {MINUTES:g} minutes of process CPU time each" in text
    assert "| puzzle8 | policy | beam 16 |" in text
    assert "puzzle8: Rows from 1 run (" in text and "CPU score " in text  # one run: comparable
    # every model trained into OUT/runs/learned-guides/models with its budget recorded
    root = out / "runs" / "learned-guides"
    for target in guide_models.TARGETS:
        cfg = json.loads((root / "models" / f"puzzle8-{target}" / "config.json").read_text())
        assert cfg["train_config"]["extra"][guide_models.BUDGET_KEY] == MINUTES
        assert cfg["train_config"]["target"] == target
        assert cfg["train_cpu_seconds"] >= 60 * MINUTES - 0.1
    rows = (root / "puzzle8" / "rows.jsonl").read_text().splitlines()
    assert len(rows) == 2 * len(want)
    assert (root / "puzzle8" / guides.SUITE_FILE).is_file()
    capsys.readouterr()

    # again: the finished models are reused and the run is resumed (nothing to search, so no
    # pattern database is asked for: a missing one would not be built for searches already made)
    asked: list[list[str]] = []
    build = guides.build_tables
    monkeypatch.setattr(guides, "build_tables", lambda puzzle, cfgs, threads: (
        asked.append([c.name for c in cfgs]), build(puzzle, cfgs, threads)))
    text = _make(out)
    assert asked == [[]]
    assert "puzzle8-davi: reused" in text and "puzzle8-policy: reused" in text
    assert "training for" not in capsys.readouterr().err
    assert (root / "puzzle8" / "rows.jsonl").read_text().splitlines() == rows

    # a run stopped before its first row keeps an empty rows file: the next one resumes it
    (root / "puzzle8" / "rows.jsonl").write_text("")
    _make(out)
    assert len((root / "puzzle8" / "rows.jsonl").read_text().splitlines()) == len(rows)

    # another budget is refused, naming the option, not silently reused
    with pytest.raises(InputError, match=r"^--train-minutes: .*puzzle8-davi holds a model "
                                         rf"trained for {MINUTES:g} CPU-minutes, not 0.5; give "
                                         rf"--train-minutes {MINUTES:g}"):
        _make(out, train_minutes=0.5)

    # copies of the models given with --model: no budget needed, each recorded as given
    for t in guide_models.TARGETS:
        shutil.copytree(root / "models" / f"puzzle8-{t}", tmp_path / "given" / t)
    given = tuple(f"puzzle8-{t}={tmp_path / 'given' / t}" for t in guide_models.TARGETS)
    text = _make(tmp_path / "other", train_minutes=None, models=given, widths="4")
    assert "puzzle8-diffusion: given" in text
    assert not (tmp_path / "other" / "runs" / "learned-guides" / "models").exists()

    # a model changed in place since its searches: the run folder is refused
    from learning.trainer import Trainer

    Trainer.resume(tmp_path / "given" / "davi", progress=False).train(1)
    with pytest.raises(InputError, match=r"^--out: .* holds searches made with other models "
                                         r"\(puzzle8-davi changed since\)"):
        _make(tmp_path / "other", train_minutes=None, models=given, widths="4")


def test_an_interrupted_model_is_resumed_to_its_budget(tmp_path):
    from learning.trainer import Trainer

    folder = tmp_path / "puzzle8-diffusion"
    trainer = Trainer(guide_models.train_config("puzzle8", "diffusion", MINUTES), folder,
                      progress=False)
    trainer.train(1)  # stopped long before its budget
    assert trainer.cpu_seconds < 60 * MINUTES
    m = guide_models.ensure_model("puzzle8", "diffusion", folder, MINUTES, threads=1,
                                  progress=False)
    assert m.source == "resumed" and m.cpu_minutes is not None and m.cpu_minutes >= MINUTES
    again = guide_models.ensure_model("puzzle8", "diffusion", folder, MINUTES, progress=False)
    assert again.source == "reused"
    with pytest.raises(InputError, match="^--out: .* holds a diffusion model of puzzle8, not davi"):
        guide_models.ensure_model("puzzle8", "davi", folder, MINUTES, progress=False)


def test_configs_give_a_policy_beams_only_and_references():
    models = {t: guide_models.Path(f"/m/{t}") for t in guide_models.TARGETS}
    names = [c.name for c in guides.configs("puzzle15", models, (128, 8192))]
    assert names[0] == "pdb-78-ida"  # IDA* with the PDB: the 15-puzzle's optima in the run
    assert "policy-beam-8192" in names and "policy-bwas" not in names
    assert {"davi-bwas", "diffusion-bwas", "pdb-78-beam-128"} <= set(names)
    lights = [c.name for c in guides.configs("lightsout7", models, (128,))]
    assert lights[0] == "gf2" and not any(n.startswith("pdb") for n in lights)
    cube = guides.configs("cube3", models, guides.WIDTHS)
    assert [c.name for c in cube if c.guide == "pdb-korf"] == [
        f"pdb-korf-beam-{w}" for w in guides.WIDTHS]
    assert all(c.solver_args.get("max_depth") == 80 for c in cube if c.search == "beam")


@pytest.mark.parametrize(("args", "message"), [
    (["--widths", "0"], "--widths: expected comma-separated widths from 1 to 10^9, got '0'"),
    (["--widths", "128,x"], "--widths: expected comma-separated widths"),
    (["--widths", "128,128"], "--widths: width 128 given twice"),
    (["--puzzles", "cube4"], "--puzzles: unknown puzzle 'cube4'; choose from cube3, puzzle15"),
    (["--puzzles", "puzzle8", "--model", "cube3-davi=x"],
     "--model: 'cube3' is not among the puzzles of this table (puzzle8)"),
    (["--puzzles", "puzzle8", "--model", "puzzle8-value=x"], "--model: unknown target 'value'"),
    (["--puzzles", "puzzle8", "--model", "puzzle8-davi"], "--model: expected PUZZLE-TARGET=PATH"),
    (["--puzzles", "puzzle8", "--model", "puzzle8-davi=/no/such/folder", "--train-minutes", "1"],
     "--model puzzle8-davi: no such file or folder '/no/such/folder'"),
    (["--puzzles", "puzzle8"], "--train-minutes: missing; give the CPU minutes of training"),
    (["--puzzles", "puzzle8", "--train-minutes", "-1"],
     "--train-minutes: must be a positive number of minutes, got -1.0"),
    (["--puzzles", "puzzle8", "--train-minutes", "nan"],
     "--train-minutes: must be a positive number of minutes, got nan"),
])
def test_cli_refuses_bad_input_in_one_line(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        main(["--out", str(tmp_path), *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1
    assert "Traceback" not in err


def test_bench_paper_says_how_the_table_is_made(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_main(["paper", "learned-guides", "--out", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: NAME: learned-guides trains its networks and runs its own "
                          "suites: make it with python -m experiments.learned_guides ")
    assert err.count("\n") == 1 and not any(tmp_path.iterdir())


def test_bench_does_not_import_the_experiment():
    import subprocess
    import sys

    code = ("import sys, bench.papers, bench.commands.paper; "
            "assert not any(m.startswith('experiments') for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
