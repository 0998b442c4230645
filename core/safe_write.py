"""Every file the project writes goes through this module: whole files atomically, appended files
and locks without following links, and a full or read-only disk as one line.

* **Whole files** (``summary.md``, ``results.csv``, figures, ``config.json``, checkpoints, model
  exports, tables): :func:`atomic_open` creates a fresh temporary file in the destination's folder
  with ``tempfile.mkstemp`` (``O_EXCL``: never an existing file or a link planted under a
  predictable name), writes it, ``fsync``\\ s it and renames it over the destination
  (``os.replace``). A reader sees the old file or the new one, never half of one, and no file
  outside the folder is ever opened for writing. The helpers :func:`write_text`,
  :func:`write_json`, :func:`save_csv`, :func:`save_parquet`, :func:`save_figure`,
  :func:`save_torch` and :func:`copy_file` use it; :func:`atomic_path` hands the temporary file's
  name to libraries that want a path (``h5py``, the ONNX exporter).
* **Appended files** (``rows.jsonl``, ``log.csv``) and **locks** (``.lock``): :func:`open_append`
  and :func:`open_lock` open them with ``O_NOFOLLOW`` (a symbolic link is refused, not followed),
  refuse anything but a regular file (a FIFO would block, a device would be written) and a file
  with other hard links (appending would change the other name's file too).
* **Links**: a destination that is a symbolic link is refused, and so is a link among the folders
  between ``root`` (a run or training folder) and the file, so a folder handed over by someone else
  cannot make a command write elsewhere.
* **Disk errors**: a full disk (``ENOSPC``, ``EDQUOT``, ``EFBIG``), a read-only file system
  (``EROFS``) or a refused permission (``EACCES``, ``EPERM``) becomes :class:`WriteError`, an
  ``InputError`` (one line, exit status 2 at the command line), and the temporary file is removed:
  the destination keeps its former contents.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from core.errors import InputError

__all__ = [
    "DISK_ERRNOS", "WriteError", "write_error", "refuse_links", "atomic_open", "atomic_path",
    "write_text", "write_bytes", "write_json", "save_csv", "save_parquet", "save_figure",
    "save_torch", "copy_file", "open_append", "open_lock", "secret_key",
]

#: errors of the disk or its permissions, reported as one line rather than a traceback
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES,
                         errno.EPERM})

PathLike = str | os.PathLike[str]


class WriteError(InputError):
    """A file could not be written: a link in the way, a full or read-only disk, no permission.
    ``errno``: the operating system's error number where one caused it, else None."""

    errno: int | None = None


def _disk_errno(exc: OSError) -> int | None:
    """The disk error behind ``exc``, also where a library (HDF5) only names it in its message."""
    if exc.errno in DISK_ERRNOS:
        return exc.errno
    text = str(exc)
    for code in DISK_ERRNOS:
        if f"errno = {code}," in text or os.strerror(code) in text:
            return code
    return None


def _where(path: PathLike, arg: str | None) -> str:
    return f"{arg}: {path}" if arg else str(path)


def write_error(path: PathLike, exc: OSError, arg: str | None = None) -> WriteError:
    """The one-line :class:`WriteError` for ``exc`` raised while writing ``path``."""
    code = exc.errno if exc.errno is not None else _disk_errno(exc)
    reason = exc.strerror or (os.strerror(code) if code else str(exc)) or type(exc).__name__
    if code in (errno.ENOSPC, errno.EDQUOT):
        reason += "; free space and run the command again"
    elif code == errno.EROFS:
        reason += "; choose a writable folder"
    err = WriteError(f"{_where(path, arg)}: cannot write ({' '.join(reason.split())})")
    err.errno = code
    return err


def refuse_links(path: PathLike, root: PathLike | None = None, arg: str | None = None) -> None:
    """Raise :class:`WriteError` if ``path`` is a symbolic link, or if one of the folders between
    ``root`` (exclusive) and ``path`` is (``root`` itself is the caller's to choose)."""
    p = Path(path)
    chain = [p]
    if root is not None:
        try:
            rel = p.relative_to(Path(root))
        except ValueError:
            raise WriteError(f"{_where(p, arg)}: lies outside {root}; refusing to write it") from None
        part = Path(root)
        for name in rel.parts[:-1]:
            part = part / name
            chain.insert(-1, part)
    for q in chain:
        try:
            if stat.S_ISLNK(os.lstat(q).st_mode):
                raise WriteError(f"{_where(q, arg)} is a symbolic link; refusing to write through "
                                 "it (remove the link)")
        except FileNotFoundError:
            return
        except NotADirectoryError:
            raise WriteError(f"{_where(q, arg)}: a part of the path is not a folder") from None


def _mode() -> int:
    """``0o666`` less the umask: what ``open`` would give a new file (mkstemp gives 0600). The
    umask is read from ``/proc`` where it can be (setting it to read it back is not thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            umask = next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0)
        os.umask(umask)
    return 0o666 & ~umask


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: PathLike, *, root: PathLike | None = None,
                arg: str | None = None) -> Iterator[Path]:
    """The name of a fresh temporary file beside ``path`` (created exclusively, empty) for a
    library to write; on a clean exit it is fsynced and renamed over ``path``, on an error removed."""
    dest = Path(path)
    refuse_links(dest, root, arg)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp",
                                        dir=dest.parent or Path("."))
    except OSError as exc:
        raise write_error(dest, exc, arg) from None
    tmp = Path(tmp_name)
    try:
        try:
            os.fchmod(fd, _mode())
        finally:
            os.close(fd)
        yield tmp
        try:
            fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            refuse_links(dest, root, arg)
            os.replace(tmp, dest)
        except OSError as exc:
            raise write_error(dest, exc, arg) from None
        _sync_folder(dest.parent)
    except OSError as exc:  # from the library that wrote the file
        if _disk_errno(exc) is not None:
            raise write_error(dest, exc, arg) from None
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_open(path: PathLike, mode: str = "w", *, root: PathLike | None = None,
                arg: str | None = None, newline: str | None = None,
                encoding: str | None = None) -> Iterator[IO[Any]]:
    """A file object (``mode`` ``"w"`` or ``"wb"``) on a fresh temporary file beside ``path``;
    on a clean exit it is flushed, fsynced and renamed over ``path``; on an error removed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path, root=root, arg=arg) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
        kw: dict[str, Any] = {} if mode == "wb" else {"newline": newline,
                                                       "encoding": encoding or "utf-8"}
        with os.fdopen(fd, mode, **kw) as f:
            yield f
            f.flush()


def write_bytes(path: PathLike, data: bytes, **kw: Any) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_open`'s keywords)."""
    with atomic_open(path, "wb", **kw) as f:
        f.write(data)
    return Path(path)


def write_text(path: PathLike, text: str, **kw: Any) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_open`'s keywords)."""
    with atomic_open(path, "w", **kw) as f:
        f.write(text)
    return Path(path)


def write_json(path: PathLike, obj: Any, *, indent: int | None = 2, default: Any = None,
               **kw: Any) -> Path:
    """Write ``obj`` as JSON (and a final newline) to ``path`` atomically."""
    return write_text(path, json.dumps(obj, indent=indent, default=default) + "\n", **kw)


def save_csv(df: Any, path: PathLike, *, root: PathLike | None = None, arg: str | None = None,
             **to_csv: Any) -> Path:
    """``df.to_csv(path, **to_csv)``, atomically."""
    with atomic_open(path, "w", root=root, arg=arg, newline="") as f:
        df.to_csv(f, **to_csv)
    return Path(path)


def save_parquet(df: Any, path: PathLike, *, root: PathLike | None = None,
                 arg: str | None = None, **to_parquet: Any) -> Path:
    """``df.to_parquet(path, **to_parquet)``, atomically."""
    with atomic_open(path, "wb", root=root, arg=arg) as f:
        df.to_parquet(f, **to_parquet)
    return Path(path)


def save_figure(fig: Any, path: PathLike, *, root: PathLike | None = None,
                arg: str | None = None, **savefig: Any) -> Path:
    """``fig.savefig(path, **savefig)``, atomically (the format from the name's suffix)."""
    p = Path(path)
    savefig.setdefault("format", p.suffix.lstrip(".") or "png")
    with atomic_open(p, "wb", root=root, arg=arg) as f:
        fig.savefig(f, **savefig)
    return p


def save_torch(obj: Any, path: PathLike, *, root: PathLike | None = None,
               arg: str | None = None) -> Path:
    """``torch.save(obj, path)``, atomically."""
    import torch

    with atomic_open(path, "wb", root=root, arg=arg) as f:
        torch.save(obj, f)
    return Path(path)


def copy_file(src: PathLike, dest: PathLike, *, root: PathLike | None = None,
              arg: str | None = None) -> Path:
    """Copy the bytes of ``src`` to ``dest`` atomically (``dest`` a new file, never a link's target)."""
    import shutil

    with open(src, "rb") as r, atomic_open(dest, "wb", root=root, arg=arg) as f:
        shutil.copyfileobj(r, f)
    return Path(dest)


def _open_nofollow(path: Path, flags: int, arg: str | None, what: str) -> int:
    """``os.open`` without following a final link; refuse all but a regular file of one name."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                     0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # EMLINK: O_NOFOLLOW on a link (BSD)
            raise WriteError(f"{_where(path, arg)} is a symbolic link; refusing to open the "
                             f"{what} through it (remove the link)") from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader (O_NONBLOCK)
            raise WriteError(f"{_where(path, arg)} is not a regular file; refusing to use it as "
                             f"the {what}") from None
        raise write_error(path, exc, arg) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise WriteError(f"{_where(path, arg)} is not a regular file; refusing to use it as "
                             f"the {what}")
        if st.st_nlink > 1:
            raise WriteError(f"{_where(path, arg)} has {st.st_nlink - 1} other hard link(s); "
                             f"refusing to write the {what} into a file shared with another name")
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path: PathLike, *, binary: bool = True, newline: str | None = None,
                root: PathLike | None = None, arg: str | None = None,
                what: str = "appended file", buffering: int = -1) -> IO[Any]:
    """``path`` opened for appending (created if absent) without following a link; a link, a
    file that is not regular or that has other hard links is refused (:class:`WriteError`)."""
    p = Path(path)
    refuse_links(p, root, arg)
    fd = _open_nofollow(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, arg, what)
    if binary:
        return os.fdopen(fd, "ab", buffering=buffering)
    return os.fdopen(fd, "a", newline=newline, encoding="utf-8")


def open_lock(path: PathLike, *, root: PathLike | None = None, arg: str | None = None) -> IO[str]:
    """A lock file opened for reading and writing (created if absent, never truncated here)
    without following a link; the checks of :func:`open_append`."""
    p = Path(path)
    refuse_links(p, root, arg)
    fd = _open_nofollow(p, os.O_RDWR | os.O_CREAT, arg, "lock")
    return os.fdopen(fd, "r+", encoding="utf-8", errors="replace")


def secret_key(path: PathLike, *, create: bool = True, size: int = 32) -> bytes | None:
    """A secret of ``size`` random bytes kept in ``path``: created exclusively (``O_EXCL``,
    mode 0600, never through a link) when absent and ``create``; None where there is none that
    can be trusted: a link, not a regular file, a file of another user or one that others may
    read or write, one of another size, or a folder that cannot be written (read-only)."""
    p = Path(path)
    if create:
        with contextlib.suppress(OSError):
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                os.write(fd, os.urandom(size))
                os.fsync(fd)
            finally:
                os.close(fd)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077 \
                or st.st_size != size:
            return None
        key = os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key if len(key) == size else None
