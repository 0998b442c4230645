"""``core.safe_write``: whole files through a fresh temporary file and a rename, appended files
and locks never through a link, a full or read-only disk as one line with nothing lost."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from core import safe_write
from core.errors import InputError
from core.safe_write import WriteError

SECRET = "the user's own file\n"


def _outside(tmp_path: Path) -> Path:
    target = tmp_path / "elsewhere" / "precious.txt"
    target.parent.mkdir()
    target.write_text(SECRET)
    return target


def _one_line(exc: pytest.ExceptionInfo[BaseException], *words: str) -> None:
    msg = str(exc.value)
    assert "\n" not in msg and isinstance(exc.value, InputError), msg
    for w in words:
        assert w in msg, msg


def _fail_fsync(monkeypatch: pytest.MonkeyPatch, name_part: str, code: int = errno.ENOSPC) -> None:
    """``os.fsync`` of a file whose name holds ``name_part`` fails as a full disk does."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if name_part in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(code, os.strerror(code))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


# --------------------------------------------------------------------------- whole files
def test_write_text_replaces_the_file_whole_with_the_usual_mode(tmp_path):
    dest = tmp_path / "summary.md"
    dest.write_text("old")
    inode = dest.stat().st_ino
    safe_write.write_text(dest, "new text\n")
    assert dest.read_text() == "new text\n"
    assert dest.stat().st_ino != inode  # a new file renamed into place, not the old one rewritten
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o666 & ~umask
    assert _leftovers(tmp_path) == []


def test_a_destination_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    target = _outside(tmp_path)
    link = tmp_path / "results.csv"
    link.symlink_to(target)
    with pytest.raises(WriteError) as exc:
        safe_write.write_text(link, "rows", arg="--out")
    _one_line(exc, "--out", "symbolic link", "results.csv")
    assert target.read_text() == SECRET and link.is_symlink()
    dangling = tmp_path / "config.json"
    dangling.symlink_to(tmp_path / "elsewhere" / "new-file")
    with pytest.raises(WriteError, match="symbolic link"):
        safe_write.write_json(dangling, {"a": 1})
    assert not (tmp_path / "elsewhere" / "new-file").exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("planted", ["checkpoint.pt.tmp", ".checkpoint.pt.tmp",
                                     f".checkpoint.pt.{os.getpid()}.tmp"])
def test_a_planted_temporary_name_is_never_written_through(tmp_path, planted):
    target = _outside(tmp_path)
    (tmp_path / planted).symlink_to(target)
    dest = tmp_path / "checkpoint.pt"
    safe_write.write_bytes(dest, b"checkpoint bytes")
    assert target.read_text() == SECRET
    assert dest.read_bytes() == b"checkpoint bytes" and not dest.is_symlink()
    assert (tmp_path / planted).is_symlink()


def test_a_linked_folder_inside_the_root_is_refused(tmp_path):
    root = tmp_path / "run"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "figures").symlink_to(elsewhere)
    with pytest.raises(WriteError) as exc:
        safe_write.write_text(root / "figures" / "excess.png", "x", root=root)
    _one_line(exc, "figures", "symbolic link")
    assert list(elsewhere.iterdir()) == []
    with pytest.raises(WriteError, match="outside"):
        safe_write.write_text(tmp_path / "x.txt", "x", root=root)
    # the root itself may be a link the user made (runs/latest -> runs/2026-...)
    (tmp_path / "latest").symlink_to(root)
    safe_write.write_text(tmp_path / "latest" / "summary.md", "ok", root=tmp_path / "latest")
    assert (root / "summary.md").read_text() == "ok"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    dest = tmp_path / "results.csv"
    dest.write_text("finished rows\n")
    with pytest.raises(RuntimeError), safe_write.atomic_open(dest, "w") as f:
        f.write("half of a ")
        raise RuntimeError("killed mid-write")
    assert dest.read_text() == "finished rows\n"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("code,words", [(errno.ENOSPC, "No space left on device"),
                                        (errno.EDQUOT, "quota"),
                                        (errno.EROFS, "Read-only file system")])
def test_a_full_or_read_only_disk_is_one_line_and_keeps_the_old_file(tmp_path, monkeypatch,
                                                                      code, words):
    dest = tmp_path / "summary.md"
    dest.write_text("the last good summary")
    _fail_fsync(monkeypatch, "summary.md", code)
    with pytest.raises(WriteError) as exc:
        safe_write.write_text(dest, "a new summary", arg="--out")
    _one_line(exc, "--out", "summary.md", "cannot write")
    assert words.lower() in str(exc.value).lower()
    assert exc.value.errno == code
    monkeypatch.undo()
    assert dest.read_text() == "the last good summary"
    assert _leftovers(tmp_path) == []


def test_a_read_only_folder_refuses_the_temporary_file_in_one_line(tmp_path, monkeypatch):
    import tempfile

    def read_only(*a, **kw):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(WriteError) as exc:
        safe_write.write_text(tmp_path / "quality.md", "x", arg="--out")
    _one_line(exc, "--out", "Read-only file system", "writable folder")


def test_a_library_reporting_a_full_disk_in_its_message_is_one_line(tmp_path):
    """HDF5 names the errno in its message only (``errno = 28, error message = ...``)."""
    dest = tmp_path / "table.h5"
    with pytest.raises(WriteError) as exc, safe_write.atomic_path(dest) as tmp:
        assert tmp.parent == tmp_path and tmp.exists() and tmp != dest
        raise OSError("Unable to synchronously write data (file write failed: time = Mon, "
                      "errno = 28, error message = 'No space left on device')")
    _one_line(exc, "table.h5", "No space left on device")
    assert not dest.exists() and _leftovers(tmp_path) == []


def test_table_helpers_write_what_they_are_given(tmp_path):
    import pandas as pd

    df = pd.DataFrame({"config": ["a", "b"], "length": [20, 16], "time_s": [0.5, 1.25]})
    safe_write.save_csv(df, tmp_path / "results.csv", index=False)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "results.csv"), df)
    safe_write.save_parquet(df, tmp_path / "results.parquet", index=False)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), df)
    safe_write.write_json(tmp_path / "config.json", {"a": [1, 2]})
    assert json.loads((tmp_path / "config.json").read_text()) == {"a": [1, 2]}
    safe_write.copy_file(tmp_path / "config.json", tmp_path / "copy.json")
    assert (tmp_path / "copy.json").read_bytes() == (tmp_path / "config.json").read_bytes()
    assert _leftovers(tmp_path) == []


def test_figure_helper_writes_a_png(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    safe_write.save_figure(fig, tmp_path / "excess.png", dpi=20)
    plt.close(fig)
    assert (tmp_path / "excess.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _leftovers(tmp_path) == []


def test_torch_helper_writes_what_loads_back(tmp_path):
    import torch

    obj = {"w": torch.arange(6.0).reshape(2, 3), "iteration": 7}
    safe_write.save_torch(obj, tmp_path / "model.pt")
    back = torch.load(tmp_path / "model.pt", weights_only=True)
    assert back["iteration"] == 7 and torch.equal(back["w"], obj["w"])


# --------------------------------------------------------------------------- appends and locks
def test_append_adds_to_a_regular_file_and_creates_a_missing_one(tmp_path):
    log = tmp_path / "log.csv"
    with safe_write.open_append(log, binary=False, newline="") as f:
        f.write("iteration,loss\n")
    with safe_write.open_append(log, binary=False, newline="") as f:
        f.write("1,0.5\n")
    assert log.read_text() == "iteration,loss\n1,0.5\n"


@pytest.mark.parametrize("opener", [
    lambda p: safe_write.open_append(p, arg="--out"),
    lambda p: safe_write.open_lock(p, arg="--out"),
])
def test_append_and_lock_refuse_a_link_a_fifo_and_a_hard_link(tmp_path, opener):
    target = _outside(tmp_path)
    link = tmp_path / "rows.jsonl"
    link.symlink_to(target)
    with pytest.raises(WriteError) as exc:
        opener(link)
    _one_line(exc, "--out", "symbolic link")
    link.unlink()
    os.link(target, link)  # the same file under a second name
    with pytest.raises(WriteError) as exc:
        opener(link)
    _one_line(exc, "hard link")
    assert target.read_text() == SECRET
    fifo = tmp_path / ".lock"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            opener(fifo)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            done.append(e)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(5)
    assert done and isinstance(done[0], WriteError) and "not a regular file" in str(done[0])


def test_a_lock_is_never_truncated_by_opening_it(tmp_path):
    lock = tmp_path / ".lock"
    lock.write_text("4242")
    with safe_write.open_lock(lock) as f:
        assert f.read() == "4242"


# --------------------------------------------------------------------------- a real full file
FULL = """
import json, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
from bench.run_record import RowWriter
from core.errors import InputError
path = Path(sys.argv[1])
w = RowWriter(path)
resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))
try:
    for i in range(1000):
        w.write({"key": f"set/{i}/cfg", "status": "solved", "pad": "x" * 40})
except InputError as exc:
    print(json.dumps({"error": str(exc), "written": w.written}))
"""


def test_rows_on_a_file_that_cannot_grow_are_kept_whole(tmp_path):
    """The kernel refuses to grow ``rows.jsonl`` past 2 kB (``RLIMIT_FSIZE``, as a full disk
    refuses a block): a one-line error, and every row written before it is whole and kept."""
    rows = tmp_path / "rows.jsonl"
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(FULL), str(rows)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "\n" not in out["error"] and "cannot write a row" in out["error"]
    assert f"{out['written']} row(s)" in out["error"] and "--resume" in out["error"]
    data = rows.read_bytes()
    assert len(data) <= 2048 and data.endswith(b"\n")
    lines = data.splitlines()
    assert len(lines) == out["written"] > 0
    assert [json.loads(x)["key"] for x in lines] == [f"set/{i}/cfg" for i in range(len(lines))]


#: a finished row as a run writes it (the fields a row read back must have)
ROW_A = {"key": "a", "suite": "s", "instance": "1", "config": "c", "status": "timeout",
         "length": None, "nodes_generated": 1, "time_s": 0.5}


def test_a_full_disk_mid_row_cuts_the_row_off_again(tmp_path, monkeypatch):
    from bench.run_record import RowWriter, read_rows

    rows = tmp_path / "rows.jsonl"
    w = RowWriter(rows)
    w.write(ROW_A)
    real = os.write
    calls = {"n": 0}

    def half(fd: int, data) -> int:  # writes half the row, then the disk is full
        calls["n"] += 1
        if calls["n"] == 1:
            return real(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(WriteError) as exc:
        w.write({**ROW_A, "key": "b", "pad": "y" * 100})
    _one_line(exc, "No space left on device", "1 row(s)", "--resume")
    monkeypatch.undo()
    w.close()
    assert rows.read_bytes() == json.dumps(ROW_A).encode() + b"\n"
    assert [r["key"] for r in read_rows(rows)] == ["a"]


def test_np_save_through_atomic_path(tmp_path):
    """Array files go through :func:`atomic_path` (``np.save`` onto the temporary name)."""
    arr = np.arange(10, dtype=np.int32)
    dest = tmp_path / "a.npy"
    with safe_write.atomic_path(dest) as tmp, open(tmp, "wb") as f:  # noqa: PTH123
        np.save(f, arr)
    assert np.array_equal(np.load(dest), arr)
