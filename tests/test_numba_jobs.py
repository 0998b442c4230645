"""``pdb_builders.catalog.numba_jobs``: the catalog builders' cap on the Numba threads."""

from __future__ import annotations

import numba
import pytest

from pdb_builders.catalog import numba_jobs


def test_caps_within_the_block_and_restores_after() -> None:
    before = numba.get_num_threads()
    with numba_jobs(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with numba_jobs(10**6):  # never above what Numba was started with
        assert numba.get_num_threads() == int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    with numba_jobs(0):  # 0: all of them, as before
        assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), numba_jobs(1):
        raise RuntimeError("a failed build")
    assert numba.get_num_threads() == before
