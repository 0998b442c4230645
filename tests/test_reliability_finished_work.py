"""Finished work is never written over: shipped models, trained runs, committed results folders
and files; one training per folder at a time; a diverging run keeps its last good checkpoint;
hostile or corrupt training checkpoints are one-line errors on ``--resume``."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import torch

from bench.cli import main
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--batch", "64", "--preset", "tiny", "--check-every", "10", "--eval-per-depth", "5",
        "--threads", "1", "--quiet"]


def one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    for w in words:
        assert w in err, err


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def run8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 20-iteration training run (tiny network)."""
    out = tmp_path_factory.mktemp("finished") / "run8"
    try:
        main(["train", "davi", "puzzle8", "--iterations", "20", "--out", str(out), *TINY])
    except SystemExit as exc:
        assert not exc.code
    assert (out / "checkpoint.pt").is_file()
    return out


# --------------------------------------------------------------------------- training folders
def test_training_never_writes_over_a_shipped_model(capsys):
    shipped = ROOT / "heuristics" / "models" / "puzzle8"
    before = digests(shipped)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "1",
                           "--out", str(shipped), *TINY)
    one_line_error(code, err, "--out", "tracked by git")
    assert digests(shipped) == before
    assert not (shipped / ".lock").exists()


@pytest.mark.parametrize("held", ["model.pt", "config.json", "log.csv", "tree.json"])
def test_training_never_writes_over_a_finished_run_without_checkpoint(held, tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / held).write_text("finished work")
    code, _, err = run_cli(capsys, "train", "diffusion", "puzzle8", "--iterations", "1",
                           "--out", str(folder), *TINY)
    one_line_error(code, err, "--out", held, "another folder")
    assert (folder / held).read_text() == "finished work"


def test_multigoal_never_writes_over_a_model_folder(tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.pt").write_text("finished work")
    code, _, err = run_cli(capsys, "train", "multigoal", "puzzle8", "--iterations", "2",
                           "--out", str(folder), "--quiet")
    one_line_error(code, err, "--out", "model.pt")


def test_two_trainings_into_one_folder_are_refused(tmp_path, capsys):
    from bench.runner import run_lock

    folder = tmp_path / "busy"
    with run_lock(folder):  # another training holds the folder
        code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "1",
                               "--out", str(folder), *TINY)
    one_line_error(code, err, "--out", "in use by another run")
    assert not (folder / "checkpoint.pt").exists()


def test_a_diverging_resume_keeps_the_last_good_checkpoint(run8, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(run8, run)
    before = digests(run)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "30", "--out",
                           str(run), "--resume", "--lr", "1e30", "--threads", "1", "--quiet")
    one_line_error(code, err, "diverged", "not finite" if "weights" in err else "loss",
                   "iteration 20 is kept")
    after = digests(run)
    for name in ("checkpoint.pt", "model.pt", "config.json"):
        assert after[name] == before[name], name
    from learning.checkpoint import load_checkpoint

    assert load_checkpoint(run / "checkpoint.pt")["iteration"] == 20


def test_a_step_that_makes_weights_non_finite_is_never_saved(run8, tmp_path):
    from core.errors import InputError
    from learning.trainer import Trainer

    run = tmp_path / "run"
    shutil.copytree(run8, run)
    before = digests(run)
    t = Trainer.resume(run, progress=False)
    with torch.no_grad():
        next(t.model.parameters())[...] = float("inf")
    with pytest.raises(InputError, match="diverged.*not finite.*iteration 20 is kept"):
        t.save()
    assert digests(run)["checkpoint.pt"] == before["checkpoint.pt"]


# --------------------------------------------------------------------------- hostile checkpoints
def _tamper(src: Path, dest: Path, change, resign: bool = True) -> None:
    from learning.checkpoint import save_checkpoint

    shutil.copytree(src, dest)
    ck = torch.load(dest / "checkpoint.pt", weights_only=True)
    change(ck)
    if resign:  # digests made anew: only the field checks can tell
        save_checkpoint(dest / "checkpoint.pt", ck)
    else:
        torch.save(ck, dest / "checkpoint.pt")


def test_flipped_metadata_is_caught_by_the_checksum(run8, tmp_path, capsys):
    def flip(ck):
        ck["iteration"] = ck["iteration"] ^ 0x40

    _tamper(run8, tmp_path / "r", flip, resign=False)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "1", "--out",
                           str(tmp_path / "r"), "--resume", "--quiet")
    one_line_error(code, err, "corrupt", "checksum")


@pytest.mark.parametrize("change,words", [
    (lambda ck: ck.pop("optimizer"), "missing optimizer"),
    (lambda ck: ck.pop("torch_rng"), "missing torch_rng"),
    (lambda ck: ck.update(iteration=-5), "iteration is not a count (-5)"),
    (lambda ck: ck.update(iteration="20"), "iteration is not a count ('20')"),
    (lambda ck: ck.update(loss_window=[1.0]), "loss_window"),
    (lambda ck: ck.update(torch_rng=torch.zeros(3)), "torch_rng"),
    (lambda ck: ck["optimizer"].update(param_groups=[]), "optimizer"),
    (lambda ck: ck["optimizer"]["param_groups"][0].update(lr="fast"), "optimizer lr"),
    (lambda ck: ck["optimizer"]["state"][0].update(exp_avg=torch.zeros(2)), "exp_avg"),
    (lambda ck: ck["train_config"].update(batch="many"), "--batch"),
    (lambda ck: ck["train_config"].update(h1=10**12), "--h1"),
    (lambda ck: ck.update(train_config=[1, 2]), "train_config"),
    (lambda ck: ck["model"].pop("output.weight", None) or ck["model"].popitem(), "resume"),
])
def test_hostile_training_checkpoints_are_one_line_errors(run8, tmp_path, capsys, change, words):
    _tamper(run8, tmp_path / "r", change)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "1", "--out",
                           str(tmp_path / "r"), "--resume", "--quiet")
    one_line_error(code, err, words)


# --------------------------------------------------------------------------- suites and outputs
def test_run_suite_never_writes_into_a_committed_results_folder(capsys):
    folder = ROOT / "results" / "classic8"
    assert not (folder / "rows.jsonl").exists()  # the case the old check missed
    before = digests(folder)
    for extra in ([], ["--resume"]):
        code, _, err = run_cli(capsys, "run", "suite", "classic8", "--quick", "--limit", "1",
                               "--out", str(folder), "--quiet", "--no-figures", *extra)
        if extra:  # no rows.jsonl: refused before the committed check
            assert code == 2 and "Traceback" not in err
        else:
            one_line_error(code, err, "--out", "tracked by git")
    assert digests(folder) == before
    assert not (folder / ".lock").exists()


@pytest.mark.parametrize("held", ["results.csv", "summary.md", "results.parquet"])
def test_run_suite_never_writes_over_a_finished_table(held, tmp_path, capsys):
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / held).write_text("finished")
    code, _, err = run_cli(capsys, "run", "suite", "lightsout7", "--quick", "--limit", "1",
                           "--out", str(folder), "--quiet", "--no-figures")
    one_line_error(code, err, "--out", held)
    assert (folder / held).read_text() == "finished"


def test_runner_refuses_committed_folders_even_to_resume(monkeypatch, tmp_path):
    from bench import provenance, runner
    from core.errors import InputError

    (tmp_path / "rows.jsonl").write_text("")
    monkeypatch.setattr(provenance, "tracked_files", lambda folder: ["rows.jsonl"])
    with pytest.raises(InputError, match="tracked by git"):
        runner.refuse_finished_run_dir(tmp_path, resume=True)


def test_evaluate_out_refuses_an_existing_file(tmp_path, capsys):
    csv = tmp_path / "rows.csv"
    csv.write_text("finished")
    code, _, err = run_cli(capsys, "train", "evaluate", "puzzle8", "--count", "1",
                           "--out", str(csv), "--run-dir", str(tmp_path / "ev"))
    one_line_error(code, err, "--out", "--overwrite")
    assert csv.read_text() == "finished"
    assert not (tmp_path / "ev").exists()  # refused before anything ran


def test_import_deepcubea_out_refuses_an_existing_file(tmp_path, capsys):
    dest = tmp_path / "model.pt"
    dest.write_text("finished")
    code, _, err = run_cli(capsys, "train", "import-deepcubea", "puzzle8",
                           str(tmp_path / "missing.pt"), "--out", str(dest))
    one_line_error(code, err, "--out", "--overwrite")
    assert dest.read_text() == "finished"


def test_report_of_a_training_run_never_replaces_a_committed_figure(capsys, tmp_path):
    from bench.provenance import tracked_by_git

    shipped = ROOT / "heuristics" / "models" / "puzzle8"
    before = digests(shipped)
    figure = shipped / "training.png"
    if figure.exists() and tracked_by_git(figure):
        code, _, err = run_cli(capsys, "report", str(shipped))
        one_line_error(code, err, "tracked by git")
    out = tmp_path / "fig"
    out.mkdir()
    (out / "training.png").write_text("finished")
    code, _, err = run_cli(capsys, "report", str(shipped), "--out", str(out))
    one_line_error(code, err, "--out", "--overwrite")
    assert (out / "training.png").read_text() == "finished"
    assert digests(shipped) == before


def test_report_into_a_folder_with_committed_files_is_refused(capsys, tmp_path, monkeypatch):
    from bench import provenance

    run = tmp_path / "run"
    run.mkdir()
    (run / "rows.jsonl").write_text(json.dumps({"key": "s/1/c", "status": "solved"}) + "\n")
    (run / "excess.png").write_text("committed figure")
    monkeypatch.setattr(provenance, "tracked_files", lambda folder: ["excess.png"])
    code, _, err = run_cli(capsys, "report", str(run))
    one_line_error(code, err, "RUN_DIR", "excess.png", "--overwrite")
    assert (run / "excess.png").read_text() == "committed figure"
