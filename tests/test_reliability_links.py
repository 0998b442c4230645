"""Hostile folders handed over by someone else: no command writes through a link placed in a run
or training folder, no command overwrites files it did not make, a changed PDB table never loads
on a forged stamp, a full or read-only disk is one line with nothing lost, and a failed evaluation
leaves no empty run folder."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from runner_fakes import make_plan

from bench.executor import InlineExecutor
from bench.runner import ROWS, read_rows, run_plan
from core.errors import InputError
from core.safe_write import WriteError
from tests.cli_run import run_cli

SECRET = "root:x:0:0:a file the receiver can write\n"
TINY = ["--batch", "64", "--preset", "tiny", "--check-every", "10", "--eval-per-depth", "5",
        "--threads", "1", "--quiet"]


def one_line_error(code: int, err: str, *words: str) -> None:
    """Exit 2 and one ``error:`` line (warnings about the run's rows may come before it)."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if not x.startswith("warning: ")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and err.endswith("\n"), err
    for w in words:
        assert w in err, err


def _target(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "precious"
    target.parent.mkdir(exist_ok=True)
    target.write_text(SECRET)
    return target


def _link(folder: Path, name: str, target: Path) -> None:
    path = folder / name
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished suite run (fake searches of known lengths, inline) with its report."""
    from bench.commands.report import write_report as _write_report

    tmp = tmp_path_factory.mktemp("links")
    plan = make_plan(tmp, [(str(i), c, {"length": 10 + i, "optimal": 10 + i})
                           for i in range(3) for c in ("a", "b")])
    run_dir = tmp / "run"
    run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), progress=False,
             prepare=False)
    rows = read_rows(run_dir / ROWS)  # bounds recorded, as a run records them: none to compute
    (run_dir / ROWS).write_text("".join(
        json.dumps({**r, "lower_bound": 10, "lower_bound_from": "manhattan"}) + "\n"
        for r in rows))
    _write_report(run_dir, ["excess"], "fake", make_figures=True)
    assert (run_dir / "excess.png").is_file()
    return run_dir


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "handed-over"
    shutil.copytree(run_dir, dest, symlinks=True)
    return dest


# --------------------------------------------------------------------------- run folders
@pytest.mark.parametrize("name", ["summary.md", "results.csv", "results.parquet", "excess.png"])
def test_report_never_writes_through_a_link_in_the_run_folder(suite_run, tmp_path, capsys, name):
    run = _copy(suite_run, tmp_path)
    target = _target(tmp_path)
    _link(run, name, target)
    code, _, err = run_cli(capsys, "report", str(run), "--figures", "excess")
    one_line_error(code, err, name, "symbolic link")
    assert target.read_text() == SECRET
    assert (run / name).is_symlink()


def test_resume_never_appends_to_a_linked_rows_file(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {}), ("2", "a", {})])
    run_dir = tmp_path / "run"
    ex = InlineExecutor(fn="runner_fakes:solve")
    run_plan(make_plan(tmp_path, [("1", "a", {})]), run_dir, ex, progress=False, prepare=False)
    target = _target(tmp_path)
    _link(run_dir, ROWS, target)
    with pytest.raises(WriteError, match="rows.jsonl is a symbolic link"):
        run_plan(plan, run_dir, ex, resume=True, progress=False, prepare=False)
    assert target.read_text() == SECRET


def test_a_linked_lock_is_never_truncated_to_a_process_id(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    target = _target(tmp_path)
    _link(run_dir, ".lock", target)
    plan = make_plan(tmp_path, [("1", "a", {})])
    with pytest.raises(WriteError, match=r"\.lock is a symbolic link"):
        run_plan(plan, run_dir, InlineExecutor(fn="runner_fakes:solve"), progress=False,
                 prepare=False)
    assert target.read_text() == SECRET
    assert not (run_dir / ROWS).exists()


def test_a_run_json_or_suite_file_link_is_refused(tmp_path):
    plan = make_plan(tmp_path, [("1", "a", {})])
    run_dir = tmp_path / "run"
    ex = InlineExecutor(fn="runner_fakes:solve")
    run_plan(plan, run_dir, ex, progress=False, prepare=False)
    target = _target(tmp_path)
    _link(run_dir, "suite.toml", target)
    with pytest.raises(WriteError, match="suite.toml is a symbolic link"):
        run_plan(plan, run_dir, ex, resume=True, progress=False, prepare=False)
    assert target.read_text() == SECRET


def test_a_hard_linked_rows_file_or_a_fifo_lock_is_refused_without_a_hang(tmp_path):
    """Cases of the same kind: ``rows.jsonl`` a second name of another file (appending would
    change it), ``.lock`` a FIFO (opening it to write would wait for a reader forever)."""
    plan = make_plan(tmp_path, [("1", "a", {}), ("2", "a", {})])
    run_dir = tmp_path / "run"
    ex = InlineExecutor(fn="runner_fakes:solve")
    run_plan(make_plan(tmp_path, [("1", "a", {})]), run_dir, ex, progress=False, prepare=False)
    target = _target(tmp_path)
    (run_dir / ROWS).unlink()
    os.link(target, run_dir / ROWS)
    with pytest.raises(WriteError, match="hard link"):
        run_plan(plan, run_dir, ex, resume=True, progress=False, prepare=False)
    assert target.read_text() == SECRET
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    os.mkfifo(fresh / ".lock")
    with pytest.raises(WriteError, match="not a regular file"):
        run_plan(plan, fresh, ex, progress=False, prepare=False)


# --------------------------------------------------------------------------- --out folders
def test_report_out_never_overwrites_an_existing_figure(suite_run, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "excess.png").write_bytes(b"my own figure")
    code, _, err = run_cli(capsys, "report", str(suite_run), "--out", str(out),
                           "--figures", "excess")
    one_line_error(code, err, "--out", "excess.png", "--overwrite")
    assert (out / "excess.png").read_bytes() == b"my own figure"
    assert sorted(p.name for p in out.iterdir()) == ["excess.png"]


def test_report_out_with_overwrite_still_refuses_a_link(suite_run, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    target = _target(tmp_path)
    _link(out, "excess.png", target)
    code, _, err = run_cli(capsys, "report", str(suite_run), "--out", str(out),
                           "--figures", "excess", "--overwrite")
    one_line_error(code, err, "excess.png", "symbolic link")
    assert target.read_text() == SECRET


@pytest.mark.parametrize("held", ["quality.csv", "quality.md", "quality.png"])
def test_quality_out_never_overwrites_existing_results(tmp_path, capsys, held):
    out = tmp_path / "quality-puzzle8"
    out.mkdir()
    (out / held).write_text("committed")
    code, _, err = run_cli(capsys, "quality", "puzzle8", "manhattan", "--sample", "50",
                           "--out", str(out))
    one_line_error(code, err, "--out", held, "--overwrite")
    assert (out / held).read_text() == "committed"
    assert [p.name for p in out.iterdir()] == [held]


@pytest.mark.parametrize("name", ["quality.csv", "quality.md", "quality.png"])
def test_quality_overwrite_never_writes_through_a_link(tmp_path, capsys, name):
    out = tmp_path / "quality-puzzle8"
    out.mkdir()
    target = _target(tmp_path)
    _link(out, name, target)
    code, _, err = run_cli(capsys, "quality", "puzzle8", "manhattan", "--sample", "50",
                           "--out", str(out), "--overwrite")
    one_line_error(code, err, "--out", name, "symbolic link")
    assert target.read_text() == SECRET
    assert [p.name for p in out.iterdir()] == [name]


# --------------------------------------------------------------------------- training folders
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.cli import main

    out = tmp_path_factory.mktemp("trained") / "run8"
    try:
        main(["train", "davi", "puzzle8", "--iterations", "10", "--out", str(out), *TINY])
    except SystemExit as exc:
        assert not exc.code
    assert (out / "log.csv").is_file() and (out / "depth_log.csv").is_file()
    return out


@pytest.mark.parametrize("name", [".lock", "log.csv", "depth_log.csv", "config.json",
                                  "checkpoint.pt"])
def test_resume_never_writes_through_a_link_in_the_training_folder(trained, tmp_path, capsys,
                                                                    name):
    run = _copy(trained, tmp_path)
    target = _target(tmp_path)
    if name == "checkpoint.pt":  # the link's target is a genuine checkpoint: it loads
        shutil.copyfile(run / name, target)
    before = target.read_bytes()
    _link(run, name, target)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "20", "--out",
                           str(run), "--resume", "--threads", "1", "--quiet")
    one_line_error(code, err, name, "symbolic link")
    assert target.read_bytes() == before
    assert (run / name).is_symlink()


@pytest.mark.parametrize("planted", ["checkpoint.pt.tmp", "model.pt.tmp"])
def test_a_planted_temporary_checkpoint_link_is_never_written(trained, tmp_path, capsys, planted):
    from learning.checkpoint import load_checkpoint

    run = _copy(trained, tmp_path)
    before = load_checkpoint(run / "checkpoint.pt")["iteration"]
    target = _target(tmp_path)
    _link(run, planted, target)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "2", "--out",
                           str(run), "--resume", "--threads", "1", "--quiet")
    assert code == 0, err
    assert target.read_text() == SECRET
    for name in ("checkpoint.pt", "model.pt"):
        assert not (run / name).is_symlink()
    assert load_checkpoint(run / "checkpoint.pt")["iteration"] == before + 2
    assert load_checkpoint(run / "model.pt")["iteration"] == before + 2


def test_a_linked_lock_of_a_new_training_is_untouched(tmp_path, capsys):
    folder = tmp_path / "new"
    folder.mkdir()
    target = _target(tmp_path)
    _link(folder, ".lock", target)
    code, _, err = run_cli(capsys, "train", "davi", "puzzle8", "--iterations", "1", "--out",
                           str(folder), *TINY)
    one_line_error(code, err, ".lock", "symbolic link")
    assert target.read_text() == SECRET
    assert not (folder / "checkpoint.pt").exists()


@pytest.mark.parametrize("suffix", [".onnx", ".card.json"])
def test_export_force_never_writes_through_a_link(tmp_path, capsys, suffix):
    out = tmp_path / "export"
    out.mkdir()
    target = _target(tmp_path)
    _link(out, "puzzle8" + suffix, target)
    code, _, err = run_cli(capsys, "models", "export", "puzzle8", "--out", str(out), "--force")
    one_line_error(code, err, "--out", "puzzle8" + suffix, "symbolic link")
    assert target.read_text() == SECRET
    assert sorted(p.name for p in out.iterdir()) == ["puzzle8" + suffix]


# --------------------------------------------------------------------------- bench train evaluate
def test_a_failed_evaluate_leaves_no_empty_run_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "train", "evaluate", "puzzle8", "--count", "1",
                           "--model", str(tmp_path / "no-such-model"))
    one_line_error(code, err, "no-such-model")
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


# --------------------------------------------------------------------------- PDB tables
def _table(tmp_path: Path) -> Path:
    from pdb_builders.store import save_table

    rng = np.random.default_rng(0)
    return save_table(tmp_path / "cache" / "t.h5", rng.integers(0, 12, 5000, dtype=np.uint8),
                      {"puzzle": "toy"})


def _forge_stamp(path: Path, secret: bytes | None) -> None:
    """What a hostile folder's stamp says: the file's current size, times and inode and its
    stored checksum, signed with a key other than the folder's (``secret``), or with the
    signature of the stamp it replaces (``None``)."""
    from pdb_builders import store

    st = path.stat()
    stamp_file = path.with_name(path.name + ".verified")
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    stamp = store._stamp(key, store.read_attrs(path)["checksum"], secret or b"\0" * 32)
    if secret is None:
        stamp["hmac"] = json.loads(stamp_file.read_text())["hmac"]
    stamp_file.write_text(json.dumps(stamp))


def _flip_a_table_byte(path: Path) -> None:
    import h5py

    with h5py.File(path, "r") as f:
        offset = f["table"].id.get_offset()
    st = path.stat()
    with open(path, "r+b") as fh:  # noqa: PTH123
        fh.seek(offset + 100)
        b = fh.read(1)
        fh.seek(offset + 100)
        fh.write(bytes([b[0] ^ 0x11]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("secret", [None, b"k" * 32])
def test_a_changed_table_never_loads_on_a_rewritten_stamp(tmp_path, secret):
    from pdb_builders import store

    path = _table(tmp_path)
    store.load_packed(path)  # verified: the stamp is written
    assert path.with_name("t.h5.verified").is_file()
    _flip_a_table_byte(path)
    _forge_stamp(path, secret)  # the new ctime, a signature made without the folder's key
    store._VERIFIED.clear()  # a new process
    with pytest.raises(store.DatabaseError, match="fails its checksum"):
        store.load_packed(path)


def test_a_stamp_skips_the_hash_in_a_new_process(tmp_path, monkeypatch):
    from pdb_builders import store

    path = _table(tmp_path)
    store.load_packed(path)
    store._VERIFIED.clear()
    calls = []
    real = store.checksum
    monkeypatch.setattr(store, "checksum", lambda data: calls.append(1) or real(data))
    assert store.load_packed(path).length == 5000
    assert calls == []  # the stamp's signature checked, the table not hashed
    key = path.with_name(store.STAMP_KEY)
    assert key.stat().st_mode & 0o077 == 0 and key.stat().st_size == 32


def test_a_key_readable_by_others_is_not_trusted(tmp_path, monkeypatch):
    from pdb_builders import store

    path = _table(tmp_path)
    store.load_packed(path)
    os.chmod(path.with_name(store.STAMP_KEY), 0o644)
    store._VERIFIED.clear()
    calls = []
    real = store.checksum
    monkeypatch.setattr(store, "checksum", lambda data: calls.append(1) or real(data))
    store.load_packed(path)
    assert calls == [1]


def test_a_linked_stamp_or_key_is_never_written_through(tmp_path, monkeypatch):
    from pdb_builders import store

    target = _target(tmp_path)
    path = _table(tmp_path)
    key = path.with_name(store.STAMP_KEY)
    stamp = path.with_name("t.h5.verified")
    stamp.symlink_to(target)
    store.load_packed(path)  # verified; the stamp is not written through the link
    assert target.read_text() == SECRET and stamp.is_symlink()
    stamp.unlink()
    key.unlink()
    key.symlink_to(target)
    store._VERIFIED.clear()
    store.load_packed(path)
    assert target.read_text() == SECRET
    store._VERIFIED.clear()
    calls = []
    real = store.checksum
    monkeypatch.setattr(store, "checksum", lambda data: calls.append(1) or real(data))
    store.load_packed(path)
    assert calls == [1]  # no key to trust: the table is hashed at each load


def test_a_linked_table_lock_is_refused(tmp_path):
    from pdb_builders.store import build_lock

    target = _target(tmp_path)
    (tmp_path / "t.h5.lock").symlink_to(target)
    with pytest.raises(WriteError, match="symbolic link"), build_lock(tmp_path / "t.h5"):
        pass
    assert target.read_text() == SECRET


def test_a_read_only_cache_loads_its_tables_and_refuses_to_build_in_one_line(tmp_path,
                                                                            monkeypatch):
    from core import safe_write
    from pdb_builders import store

    path = _table(tmp_path)
    real_open = safe_write.os.open

    def read_only(p, flags, *a, **kw):
        if str(p).endswith(".lock") and flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(p))
        return real_open(p, flags, *a, **kw)

    monkeypatch.setattr(os, "open", read_only)
    with store.build_lock(path):  # the table is there: read without a lock
        assert store.load_packed(path).length == 5000
    missing = tmp_path / "cache" / "other.h5"
    with pytest.raises(WriteError) as exc, store.build_lock(missing):
        pass
    assert "\n" not in str(exc.value) and "Read-only file system" in str(exc.value)


def test_a_full_disk_while_saving_a_table_keeps_the_old_one(tmp_path, monkeypatch):
    from pdb_builders import store

    path = _table(tmp_path)
    before = path.read_bytes()
    real = os.fsync

    def full(fd):
        if ".tmp" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(InputError) as exc:
        store.save_table(path, np.zeros(5000, np.uint8), {"puzzle": "toy"})
    assert "\n" not in str(exc.value) and "No space left on device" in str(exc.value)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if ".tmp" in p.name]


# --------------------------------------------------------------------------- full disk in a run
def test_a_full_disk_mid_run_is_one_line_and_keeps_the_finished_rows(tmp_path, monkeypatch):
    specs = [(str(i), "a", {}) for i in range(5)]
    plan = make_plan(tmp_path, specs)
    run_dir = tmp_path / "run"
    ex = InlineExecutor(fn="runner_fakes:solve")
    real = os.write
    rows_written = {"n": 0}

    def full_after_two(fd: int, data) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(ROWS):
            if rows_written["n"] == 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            rows_written["n"] += 1
        return real(fd, data)

    monkeypatch.setattr(os, "write", full_after_two)
    with pytest.raises(WriteError) as exc:
        run_plan(plan, run_dir, ex, progress=False, prepare=False)
    assert "\n" not in str(exc.value) and "No space left on device" in str(exc.value)
    assert "--resume" in str(exc.value)
    monkeypatch.undo()
    kept = read_rows(run_dir / ROWS)
    assert len(kept) == 2 and (run_dir / ROWS).read_bytes().endswith(b"\n")
    summary = run_plan(plan, run_dir, ex, resume=True, progress=False, prepare=False)
    assert summary.skipped == 2
    assert sorted(r["instance"] for r in read_rows(run_dir / ROWS)) == [str(i) for i in range(5)]


def test_a_full_disk_under_report_is_one_line_at_the_command_line(suite_run, tmp_path, capsys,
                                                                  monkeypatch):
    run = _copy(suite_run, tmp_path)
    before = (run / "summary.md").read_text()
    real = os.fsync

    def full(fd):
        if "summary.md" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run_cli(capsys, "report", str(run), "--figures", "excess")
    one_line_error(code, err, "summary.md", "No space left on device")
    assert (run / "summary.md").read_text() == before


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_an_unconverted_disk_error_is_one_line_at_the_command_line(monkeypatch, capsys, code):
    from bench import cli

    def fail(*a, **kw):
        raise OSError(code, os.strerror(code), "/cache/macro")

    monkeypatch.setattr(cli.cli, "main", fail)
    exit_code, _, err = run_cli(capsys, "list")
    one_line_error(exit_code, err, "/cache/macro", os.strerror(code))


def test_other_os_errors_are_not_hidden(monkeypatch):
    from bench import cli

    def fail(*a, **kw):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(cli.cli, "main", fail)
    with pytest.raises(OSError, match="Input/output error"):
        cli.main(["list"])
