import io
import pickle

import numpy as np
import pytest

from core.errors import InputError
from suites.importers.deepcubea import load_results, load_test_set, safe_load


class Evil:
    def __reduce__(self):
        return (print, ("pwned",))


def test_refuses_arbitrary_globals(tmp_path):
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps({"states": [Evil()]}))
    with pytest.raises(InputError, match="refusing to load builtins.print"):
        safe_load(path)


def test_accepts_plain_numpy(tmp_path):
    path = tmp_path / "ok.pkl"
    arr = np.arange(6, dtype=np.int64).reshape(2, 3)
    path.write_bytes(pickle.dumps({"a": arr, "b": np.int64(3)}))
    out = safe_load(path)
    assert np.array_equal(out["a"], arr) and out["b"] == 3


def test_garbage_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.pkl"
    path.write_bytes(b"not a pickle at all")
    with pytest.raises(InputError, match="not a DeepCubeA test set"):
        safe_load(path)


@pytest.mark.parametrize(
    "name,kind,shape",
    [("cube3", "cube3", (1000, 54)), ("puzzle15", "npuzzle", (500, 16)),
     ("puzzle24", "npuzzle", (496, 25)), ("lightsout7", "lightsout", (500, 49))],
)
def test_reads_published_sets(deepcubea, name, kind, shape):
    ts = load_test_set(deepcubea / name / "test_data_0.pkl")
    assert ts.kind == kind and ts.states.shape == shape
    rows = load_results(deepcubea / name / "deepcubea_results_output.txt")
    assert len(rows) == shape[0] and rows[0]["index"] == 0


def test_unpickler_stream_refusal():
    from suites.importers.deepcubea import RestrictedUnpickler

    data = pickle.dumps(object())
    with pytest.raises(pickle.UnpicklingError):
        RestrictedUnpickler(io.BytesIO(data)).load()


@pytest.fixture
def their_classes(monkeypatch):
    """Stand-ins importable under DeepCubeA's module names, so tests can pickle their states."""
    import sys
    import types

    env = types.ModuleType("environments")
    mod = types.ModuleType("environments.n_puzzle")

    class NPuzzleState:
        def __init__(self, tiles):
            self.tiles = tiles

    NPuzzleState.__module__ = "environments.n_puzzle"
    NPuzzleState.__qualname__ = "NPuzzleState"
    mod.NPuzzleState = NPuzzleState
    monkeypatch.setitem(sys.modules, "environments", env)
    monkeypatch.setitem(sys.modules, "environments.n_puzzle", mod)
    return NPuzzleState


def _write(tmp_path, obj):
    path = tmp_path / "test_data_0.pkl"
    path.write_bytes(pickle.dumps(obj))
    return path


def test_integer_tiles_are_read(their_classes, tmp_path):
    tiles = np.array([1, 2, 3, 4, 5, 6, 7, 8, 0], dtype=np.uint8)
    ts = load_test_set(_write(tmp_path, {"states": [their_classes(tiles)]}))
    assert ts.states.tolist() == [tiles.tolist()]
    whole = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 0])  # floats holding whole numbers are fine
    assert load_test_set(_write(tmp_path, {"states": [their_classes(whole)]})).states.dtype == np.int64


@pytest.mark.parametrize("states,match", [
    (lambda S: [S(np.array([1.7, 2, 3, 4, 5, 6, 7, 8, 0]))], "state 0 holds entries that are not integers"),
    (lambda S: [S(np.array([np.nan] * 9))], "not integers"),
    (lambda S: [S(np.array(["a"] * 9))], "not integers"),
    (lambda S: [S(np.arange(9)), S(np.arange(4))], "malformed states"),
    (lambda S: [S(np.arange(9)), 5], "malformed states"),
    (lambda S: 7, "malformed states"),
    (lambda S: [S(None)], "not integers"),
])
def test_malformed_allow_listed_test_sets_are_one_line_errors(their_classes, tmp_path, states, match):
    with pytest.raises(InputError, match=match):
        load_test_set(_write(tmp_path, {"states": states(their_classes)}))


def test_malformed_solutions_are_one_line_errors(their_classes, tmp_path):
    obj = {"states": [their_classes(np.arange(9))], "solutions": 5}
    with pytest.raises(InputError, match="malformed solutions"):
        load_test_set(_write(tmp_path, obj))


def test_huge_array_in_a_pickle_is_refused(tmp_path):
    arr = np.zeros(4, dtype=np.uint8)
    data = pickle.dumps({"states": arr}, protocol=2)
    fake = data.replace(pickle.dumps((4,), protocol=2)[2:-1], pickle.dumps((10**13,), protocol=2)[2:-1])
    path = tmp_path / "big.pkl"
    path.write_bytes(fake)
    with pytest.raises(InputError, match="not a DeepCubeA test set"):
        safe_load(path)


def test_fifo_and_oversized_files_are_refused_without_reading(tmp_path, monkeypatch):
    import os

    from suites.importers import deepcubea

    fifo = tmp_path / "fifo.pkl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        safe_load(fifo)  # would block forever if opened
    path = tmp_path / "big.pkl"
    path.write_bytes(b"x" * 100)
    monkeypatch.setattr(deepcubea, "MAX_BYTES", 10)
    with pytest.raises(InputError, match="larger than"):
        safe_load(path)
