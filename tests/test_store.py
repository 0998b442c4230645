"""The HDF5 table store: round trips, packing, attribute checks, damage detection, atomic writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from pdb_builders import store
from pdb_builders.store import DatabaseError, load_packed, load_table, read_attrs, save_table

ATTRS = {"puzzle": "puzzle8", "metric": "tiles", "goal": "blank-last", "pattern": [1, 2, 3],
         "ranking": "partial-perm-lex", "builder_version": 1}


@pytest.mark.nojit
@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_nibble_roundtrip(n: int) -> None:
    rng = np.random.default_rng(n)
    v = rng.integers(0, 16, n).astype(np.uint8)
    p = store.pack_nibbles(v)
    assert p.shape == ((n + 1) // 2,)
    assert np.array_equal(store.unpack_nibbles(p, n), v)
    if n >= 2:  # layout: entry i in the low nibble of byte i//2 when even
        assert p[0] == (v[0] | (v[1] << 4))


@pytest.mark.parametrize("maxval,packing", [(15, "nibble"), (16, "none"), (200, "none")])
def test_roundtrip_and_attrs(tmp_path: Path, maxval: int, packing: str) -> None:
    rng = np.random.default_rng(maxval)
    table = rng.integers(0, maxval + 1, 1001).astype(np.uint8)
    table[0] = maxval
    path = save_table(tmp_path / "t.h5", table, ATTRS, build_seconds=1.5)
    got = load_table(path, ATTRS)
    assert np.array_equal(got, table)
    a = read_attrs(path)
    assert a["packing"] == packing
    assert a["maximum"] == maxval
    assert a["length"] == 1001
    assert a["pattern"] == [1, 2, 3]
    assert a["build_seconds"] == 1.5
    assert np.array_equal(a["histogram"], np.bincount(table))
    size = path.stat().st_size
    assert size >= (501 if packing == "nibble" else 1001)
    pt = load_packed(path, ATTRS)
    assert isinstance(pt.data, np.memmap)


def test_two_dimensional_shape(tmp_path: Path) -> None:
    table = np.arange(12, dtype=np.uint8).reshape(3, 4)
    path = save_table(tmp_path / "t.h5", table, ATTRS)
    assert load_table(path, ATTRS).shape == (3, 4)
    assert np.array_equal(load_table(path), table)


def test_wrong_attributes_refused(tmp_path: Path) -> None:
    table = np.arange(10, dtype=np.uint8)
    path = save_table(tmp_path / "t.h5", table, ATTRS)
    other = {**ATTRS, "pattern": [1, 2, 4]}
    with pytest.raises(DatabaseError, match="pattern"):
        load_table(path, other)
    with pytest.raises(DatabaseError, match="lacks"):
        load_table(path, {**ATTRS, "extra": 1})
    assert issubclass(DatabaseError, InputError)


def test_missing_and_not_hdf5(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="does not exist"):
        load_table(tmp_path / "nope.h5", ATTRS)
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"not an hdf5 file at all" * 10)
    with pytest.raises(DatabaseError):
        load_table(bad, ATTRS)


def test_truncated_file_detected(tmp_path: Path) -> None:
    table = np.random.default_rng(0).integers(0, 200, 100_000).astype(np.uint8)
    path = save_table(tmp_path / "t.h5", table, ATTRS)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 5000])
    with pytest.raises(DatabaseError):
        load_table(path, ATTRS)


def test_flipped_byte_detected(tmp_path: Path) -> None:
    table = np.random.default_rng(1).integers(0, 16, 100_000).astype(np.uint8)
    path = save_table(tmp_path / "t.h5", table, ATTRS)
    offset = load_packed(path, ATTRS).data.offset
    load_table(path, ATTRS)  # verified once, a stamp is written
    raw = bytearray(path.read_bytes())
    raw[offset + 1234] ^= 0x10
    path.write_bytes(bytes(raw))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(DatabaseError, match="checksum"):
        load_table(path, ATTRS)
    with pytest.raises(DatabaseError, match="checksum"):
        load_table(path, ATTRS, verify="always")


def test_save_validates(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="uint8"):
        save_table(tmp_path / "t.h5", np.zeros(3, np.int32), ATTRS)
    with pytest.raises(ValueError, match="reserved"):
        save_table(tmp_path / "t.h5", np.zeros(3, np.uint8), {"checksum": "x"})
    with pytest.raises(ValueError, match="4 bits"):
        save_table(tmp_path / "t.h5", np.full(3, 16, np.uint8), ATTRS, pack=True)


def test_no_temporary_files_left(tmp_path: Path) -> None:
    save_table(tmp_path / "t.h5", np.zeros(5, np.uint8), ATTRS)
    save_table(tmp_path / "t.h5", np.ones(5, np.uint8), ATTRS)
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tmp") == []
    assert np.array_equal(load_table(tmp_path / "t.h5", ATTRS), np.ones(5, np.uint8))


_WRITER = """
import sys, numpy as np
from pdb_builders.store import save_table
v = int(sys.argv[2])
for _ in range(5):
    save_table(sys.argv[1], np.full(200_000, v, np.uint8), {"puzzle": "p"})
"""


def test_concurrent_writers_leave_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "t.h5"
    root = Path(__file__).resolve().parent.parent
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(v)], cwd=root)
             for v in (3, 9)]
    assert [p.wait() for p in procs] == [0, 0]
    got = load_table(path, {"puzzle": "p"}, verify="always")
    assert got.shape == (200_000,) and len(set(got.tolist())) == 1 and int(got[0]) in (3, 9)


def test_table_changed_in_place_with_its_mtime_restored_is_hashed_again(tmp_path: Path) -> None:
    table = np.random.default_rng(2).integers(0, 16, 100_000).astype(np.uint8)
    path = save_table(tmp_path / "t.h5", table, ATTRS)
    offset = load_packed(path, ATTRS).data.offset
    load_table(path, ATTRS)  # verified, a stamp is written
    assert "ctime_ns" in json.loads(path.with_name("t.h5.verified").read_text())
    st = path.stat()
    with path.open("r+b") as f:  # same size, same inode, mtime set back: only ctime tells
        f.seek(offset + 777)
        byte = f.read(1)[0]
        f.seek(offset + 777)
        f.write(bytes([byte ^ 0x01]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size
    store._VERIFIED.clear()  # a new process
    with pytest.raises(DatabaseError, match="checksum"):
        load_table(path, ATTRS)


def _patch_attr(path: Path, name: str, value: object) -> None:
    import h5py

    with h5py.File(path, "r+") as f:
        f.attrs[name] = value


@pytest.mark.parametrize("name,value", [("meta_json", "{not json"), ("meta_json", "[1, 2]"),
                                        ("length", "abc"), ("length", -3), ("shape", "x")])
def test_damaged_attributes_are_a_database_error(tmp_path: Path, name: str, value: object) -> None:
    path = save_table(tmp_path / "t.h5", np.arange(100, dtype=np.uint8).reshape(10, 10), ATTRS)
    _patch_attr(path, name, value)
    with pytest.raises(DatabaseError, match="rebuild it"):
        load_table(path, ATTRS)
    with pytest.raises(DatabaseError, match="rebuild it"):
        load_table(path)


def test_damaged_attributes_are_rebuilt_by_the_catalog(tmp_path: Path, monkeypatch, capsys) -> None:
    from pdb_builders import catalog

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    spec = catalog.find("puzzle8", "pdb-44").tables("puzzle8")[0]
    spec.ensure(progress=False)
    _patch_attr(spec.path, "length", "abc")
    packed = spec.ensure(progress=False)
    assert packed.length == spec.entries
    assert "damaged attributes" in capsys.readouterr().err

