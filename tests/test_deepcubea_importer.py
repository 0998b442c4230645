import io
import pickle

import numpy as np
import pytest

from puzzles.base import InputError
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
