"""HDF5 storage of pattern-database tables (the only module that imports ``h5py``).

One file per database. The file holds one dataset ``table`` and attributes:

* the caller's attributes (``puzzle``, ``metric``, ``goal``, ``pattern``, ``ranking``,
  ``builder_version``, ...), stored natively for reading with ``h5dump`` and, all together, as
  one JSON string ``meta_json`` that the loader compares with what the caller expects;
* attributes computed here: ``length`` (number of entries), ``packing`` (``"nibble"``: two
  4-bit values a byte, entry ``i`` in the low nibble of byte ``i // 2`` when ``i`` is even,
  the high nibble when odd; or ``"none"``: one ``uint8`` a byte), ``maximum``, ``histogram``
  (count of each value ``0 .. maximum``), ``checksum`` (``blake2b``, 16-byte digest, hex, of
  the stored bytes), ``build_seconds`` (when given).

Tables are packed to 4 bits whenever every value fits in ``0 .. 15``. The dataset is stored
contiguous and uncompressed, so the loader memory-maps it at its file offset (``numpy.memmap``)
and worker processes share the page cache instead of holding copies.

Writing is atomic (``core.safe_write``): the file is written under a fresh temporary name in the
same folder and renamed over the destination (``os.replace``), so two processes that build the
same database never leave a half-written file; the last rename wins and both files are complete.
``build_lock`` serialises builders of one database so the second one finds the first one's file
instead of redoing it; its ``.lock`` is opened without following a link, and in a read-only cache
a table that is there is loaded without it (one that is missing is a one-line error).

Verification: the loader refuses a file whose attributes differ from the expected ones, whose
size cannot hold the table (truncated), or whose checksum differs (a flipped byte). Hashing runs
at about 1 GB/s, so a 260 MB table costs ~0.3 s. It is done on the first load of a file in
each process and then remembered per (path, size, mtime, inode, ctime); across processes a stamp
file ``<file>.verified`` records the size, mtime, inode, inode change time and checksum of the
last successful verification, signed with a keyed hash (HMAC-SHA256 over these fields and the
file's real path) whose key is the folder's ``.verified-key`` (32 random bytes, created
exclusively, mode 0600, only trusted when it is the user's own regular file and readable by no
one else). A later process whose file still has all of them and whose stamp's signature checks
skips the hash (``verify="auto"``, the default): checking a stamp reads 32 bytes and the stamp,
whatever the table's size, so a gigabyte table loads in well under a second. The inode change
time is set by the kernel on every write and no user call can set it back, so a table changed in
place with its mtime restored is hashed again; a stamp rewritten to the new values by anyone who
cannot read the key (another user, a folder handed over without it) fails its signature, and the
table is hashed and refused. ``verify="always"`` hashes every time, ``"never"`` skips it.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np

from core import safe_write
from core.errors import InputError

__all__ = [
    "DatabaseError",
    "save_table",
    "load_table",
    "load_packed",
    "read_attrs",
    "pack_nibbles",
    "unpack_nibbles",
    "checksum",
    "build_lock",
    "PackedTable",
]

Verify = Literal["auto", "always", "never"]

#: chunk size (bytes) for hashing and histograms of large tables
_CHUNK = 1 << 26
#: (realpath, size, mtime_ns, inode, ctime_ns) of files verified in this process
_VERIFIED: set[tuple[str, int, int, int, int]] = set()
#: the secret key of a folder's ``.verified`` stamps (module docstring)
STAMP_KEY = ".verified-key"


class DatabaseError(InputError):
    """A database file is missing, damaged, or built for something else than expected."""


# ----------------------------------------------------------------------------- packing
def pack_nibbles(values: np.ndarray) -> np.ndarray:
    """Pack ``uint8`` values in ``0 .. 15`` of shape ``(n,)`` into ``(ceil(n / 2),)`` bytes.

    Entry ``i`` goes to the low nibble of byte ``i // 2`` when ``i`` is even, the high one when odd.
    """
    v = np.ascontiguousarray(values, dtype=np.uint8).ravel()
    if v.size and int(v.max()) > 15:
        raise ValueError("pack_nibbles: values must lie in 0..15")
    if v.size % 2:
        v = np.concatenate([v, np.zeros(1, np.uint8)])
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)


def unpack_nibbles(packed: np.ndarray, length: int) -> np.ndarray:
    """Inverse of :func:`pack_nibbles`: ``(ceil(length / 2),)`` bytes -> ``(length,)`` ``uint8``."""
    p = np.asarray(packed, dtype=np.uint8)
    if p.size * 2 < length:
        raise ValueError("unpack_nibbles: packed array too short")
    out = np.empty(2 * p.size, dtype=np.uint8)
    out[0::2] = p & 15
    out[1::2] = p >> 4
    return out[:length]


def checksum(data: np.ndarray) -> str:
    """``blake2b`` (16-byte digest) of the bytes of a contiguous array, hex."""
    h = hashlib.blake2b(digest_size=16)
    flat = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    for start in range(0, flat.size, _CHUNK):
        h.update(memoryview(flat[start:start + _CHUNK]))  # type: ignore[arg-type]
    return h.hexdigest()


def _histogram(values: np.ndarray) -> np.ndarray:
    hist = np.zeros(256, dtype=np.int64)
    flat = values.reshape(-1)
    for start in range(0, flat.size, _CHUNK):
        hist += np.bincount(flat[start:start + _CHUNK], minlength=256)
    top = int(np.flatnonzero(hist).max()) if hist.any() else 0
    return hist[: top + 1]


# ----------------------------------------------------------------------------- attributes
def _jsonable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


def _native(v: Any) -> Any:
    """A value h5py can store as an attribute (nested structures become JSON strings)."""
    v = _jsonable(v)
    if isinstance(v, bool | int | float | str):
        return v
    if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return np.asarray(v, dtype=np.int64)
    return json.dumps(v)


def _meta(attrs: Mapping[str, Any]) -> str:
    return json.dumps(_jsonable(dict(attrs)), sort_keys=True)


_COMPUTED = ("length", "packing", "maximum", "histogram", "checksum", "build_seconds",
             "build_peak_rss_bytes", "meta_json",
             "dtype", "shape")


# ----------------------------------------------------------------------------- saving
def save_table(
    path: str | os.PathLike[str],
    table: np.ndarray,
    attrs: Mapping[str, Any],
    *,
    build_seconds: float | None = None,
    build_peak_rss_bytes: int | None = None,
    pack: bool | None = None,
) -> Path:
    """Write ``table`` (``uint8``, any shape; stored flat) with ``attrs`` to ``path`` atomically.

    ``pack=None`` packs to 4 bits when every value fits in ``0 .. 15``. ``build_seconds`` and
    ``build_peak_rss_bytes`` (the peak resident memory of the building process and its worker
    processes, up to the end of the build) are recorded when given. Returns the path.
    """
    path = Path(path)
    values = np.ascontiguousarray(table)
    if values.dtype != np.uint8:
        raise ValueError(f"save_table: table must be uint8, got {values.dtype}")
    clash = [k for k in attrs if k in _COMPUTED]
    if clash:
        raise ValueError(f"save_table: attribute names reserved by the store: {clash}")
    hist = _histogram(values)
    maximum = len(hist) - 1
    if pack is None:
        pack = maximum <= 15
    if pack and maximum > 15:
        raise ValueError("save_table: cannot pack values above 15 into 4 bits")
    stored = pack_nibbles(values) if pack else values.reshape(-1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise safe_write.write_error(path.parent, exc, "cache folder") from None
    import h5py

    with safe_write.atomic_path(path, arg="database file") as tmp:
        with h5py.File(tmp, "w") as f:
            f.create_dataset("table", data=stored)  # contiguous, uncompressed
            for k, v in attrs.items():
                f.attrs[k] = _native(v)
            f.attrs["meta_json"] = _meta(attrs)
            f.attrs["length"] = int(values.size)
            f.attrs["shape"] = np.asarray(values.shape, dtype=np.int64)
            f.attrs["packing"] = "nibble" if pack else "none"
            f.attrs["maximum"] = int(maximum)
            f.attrs["histogram"] = hist
            f.attrs["checksum"] = checksum(stored)
            if build_seconds is not None:
                f.attrs["build_seconds"] = float(build_seconds)
            if build_peak_rss_bytes is not None:
                f.attrs["build_peak_rss_bytes"] = int(build_peak_rss_bytes)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_stamp_path(path))
    return path


@contextlib.contextmanager
def build_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` (POSIX ``flock``) while building ``path``.

    The second builder waits, then finds the file the first one wrote. Where ``flock`` is not
    available the lock is a no-op (the atomic rename still keeps the file whole).
    """
    path = Path(path)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    err: safe_write.WriteError | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = safe_write.open_lock(str(path) + ".lock", arg="cache folder")
    except safe_write.WriteError as exc:
        err = exc
    except OSError as exc:
        err = safe_write.write_error(path.parent, exc, "cache folder")
    if err is not None:
        if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and path.is_file():
            yield  # a read-only cache: its tables are read as they are, nothing is built
            return
        raise err
    with fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# ----------------------------------------------------------------------------- loading
def _decode_attr(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def read_attrs(path: str | os.PathLike[str]) -> dict[str, Any]:
    """All attributes of a database file as plain Python values (no table data is read)."""
    path = Path(path)
    if not path.is_file():
        raise DatabaseError(f"database file {path} does not exist")
    try:
        import h5py

        with h5py.File(path, "r") as f:
            return {k: _decode_attr(v) for k, v in f.attrs.items()}
    except (OSError, RuntimeError, ValueError, KeyError) as exc:  # h5py's errors on bad bytes
        reason = " ".join(str(exc).split())
        raise DatabaseError(f"database file {path} is damaged or not HDF5 ({reason})") from None


class PackedTable:
    """A stored table as it lies in the file: ``data`` (memory-mapped bytes), its packing and length.

    ``data`` is ``(ceil(length / 2),)`` for ``packing == "nibble"``, ``(length,)`` otherwise.
    """

    def __init__(self, data: np.ndarray, packing: str, length: int, shape: tuple[int, ...],
                 attrs: dict[str, Any]) -> None:
        self.data = data
        self.packing = packing
        self.length = length
        self.shape = shape
        self.attrs = attrs

    def values(self) -> np.ndarray:
        """The values ``(shape)`` ``uint8``: the memory map itself when unpacked, else a new array."""
        if self.packing == "nibble":
            return unpack_nibbles(self.data, self.length).reshape(self.shape)
        return self.data.reshape(self.shape)


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _key_path(path: Path) -> Path:
    return path.with_name(STAMP_KEY)


def _stamp_key(path: Path, create: bool) -> bytes | None:
    """The secret key of ``path``'s folder (``.verified-key``), or None where there is none that
    can be trusted (``core.safe_write.secret_key``)."""
    return safe_write.secret_key(_key_path(path), create=create)


def _stamp(key: tuple[str, int, int, int, int], digest: str, secret: bytes) -> dict[str, Any]:
    fields = {"size": key[1], "mtime_ns": key[2], "inode": key[3], "ctime_ns": key[4],
              "checksum": digest}
    message = json.dumps([key[0], fields], sort_keys=True).encode()
    return {**fields, "hmac": hmac.new(secret, message, hashlib.sha256).hexdigest()}


def _stamp_ok(path: Path, key: tuple[str, int, int, int, int], digest: str) -> bool:
    secret = _stamp_key(path, create=False)
    if secret is None:
        return False
    try:
        stamp = json.loads(_stamp_path(path).read_text())
    except (OSError, ValueError, RecursionError):
        return False
    want = _stamp(key, digest, secret)
    return (isinstance(stamp, dict) and isinstance(stamp.get("hmac"), str)
            and hmac.compare_digest(stamp["hmac"], want["hmac"]) and stamp == want)


def _write_stamp(path: Path, key: tuple[str, int, int, int, int], digest: str) -> None:
    with contextlib.suppress(OSError, InputError):  # a read-only cache: hash at each load
        secret = _stamp_key(path, create=True)
        if secret is not None:
            safe_write.write_json(_stamp_path(path), _stamp(key, digest, secret), indent=None)


def check_meta(path: Path, stored: Mapping[str, Any], expected_attrs: Mapping[str, Any]) -> None:
    """Raise :class:`DatabaseError` unless the stored attributes hold ``expected_attrs``."""
    want = json.loads(_meta(expected_attrs))
    for k, v in want.items():
        if k not in stored:
            raise DatabaseError(f"database file {path} lacks {k!r} (expected {v!r}); rebuild it")
        if stored[k] != v:
            raise DatabaseError(
                f"database file {path} was built for {k}={stored[k]!r}, expected {v!r}; rebuild it"
            )


def load_packed(
    path: str | os.PathLike[str],
    expected_attrs: Mapping[str, Any] | None = None,
    *,
    verify: Verify = "auto",
) -> PackedTable:
    """Open a database file, check it, and memory-map its table without unpacking.

    Raises :class:`DatabaseError` if the file is missing, not HDF5, truncated, differs in any
    of ``expected_attrs``, or fails its checksum.
    """
    path = Path(path)
    attrs = read_attrs(path)
    for k in ("meta_json", "length", "packing", "checksum"):
        if k not in attrs:
            raise DatabaseError(f"database file {path} lacks the attribute {k!r}; rebuild it")
    try:
        stored = json.loads(attrs["meta_json"])
        length = int(attrs["length"])
    except (TypeError, ValueError, RecursionError):
        stored, length = None, -1
    if not isinstance(stored, dict) or length < 0:
        raise DatabaseError(f"database file {path} has damaged attributes (meta_json, length); "
                            "rebuild it")
    if expected_attrs:
        check_meta(path, stored, expected_attrs)
    import h5py

    try:
        with h5py.File(path, "r") as f:
            ds = f["table"]
            offset = ds.id.get_offset()
            nbytes = int(ds.size) * ds.dtype.itemsize
            if ds.dtype != np.uint8 or ds.chunks is not None or ds.compression is not None:
                raise DatabaseError(f"database file {path}: table is not a contiguous uint8 dataset")
    except (OSError, KeyError) as exc:
        raise DatabaseError(f"database file {path} is damaged ({exc})") from None
    packing = str(attrs["packing"])
    need = (length + 1) // 2 if packing == "nibble" else length
    if nbytes != need:
        raise DatabaseError(f"database file {path}: table holds {nbytes} bytes, expected {need}")
    st = path.stat()
    if nbytes and (offset is None or offset + nbytes > st.st_size):
        raise DatabaseError(f"database file {path} is truncated; rebuild it")
    data: np.ndarray
    if nbytes:
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=offset, shape=(nbytes,))
    else:
        data = np.zeros(0, np.uint8)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    digest = str(attrs["checksum"])
    needs_hash = verify == "always" or (
        verify == "auto" and key not in _VERIFIED and not _stamp_ok(path, key, digest)
    )
    if needs_hash:
        if checksum(data) != digest:
            _VERIFIED.discard(key)
            raise DatabaseError(f"database file {path} fails its checksum (damaged); rebuild it")
        _VERIFIED.add(key)
        if verify == "auto":
            _write_stamp(path, key, digest)
    try:
        shape = tuple(int(x) for x in attrs.get("shape", [length]))
    except (TypeError, ValueError):
        raise DatabaseError(f"database file {path} has a damaged attribute 'shape'; rebuild it") from None
    if int(np.prod(shape, dtype=object)) != length:
        raise DatabaseError(f"database file {path}: shape {shape} does not hold {length} values; "
                            "rebuild it")
    return PackedTable(data, packing, length, shape, attrs)


def load_table(
    path: str | os.PathLike[str],
    expected_attrs: Mapping[str, Any] | None = None,
    *,
    verify: Verify = "auto",
) -> np.ndarray:
    """The table's values (``uint8``, the shape it was saved with) after the checks of
    :func:`load_packed`. An unpacked table is returned as a read-only memory map; a 4-bit
    packed one is unpacked into memory (use :func:`load_packed` to keep it packed and shared).
    """
    return load_packed(path, expected_attrs, verify=verify).values()

