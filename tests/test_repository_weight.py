"""The checkout stays light: the tracked tree at most 100 MB, the shipped models at most 64 MiB
of it, no file over 10 MB but a shipped model, and no training state (resume checkpoints) in the
tracked tree; large committed tables are kept gzip-compressed (``results.csv.gz``), and training
checkpoints live in history (``results/training/README.md`` says how to restore them)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREE_LIMIT = 100 * 10**6
MODELS_LIMIT = 64 * 2**20
FILE_LIMIT = 10 * 10**6
MODELS = "heuristics/models/"


def _tracked() -> dict[str, int]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    sizes = {}
    for name in out.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and not path.is_symlink():
            sizes[name] = path.stat().st_size
    return sizes


def test_tracked_tree_within_limits() -> None:
    sizes = _tracked()
    total = sum(sizes.values())
    assert total <= TREE_LIMIT, f"tracked tree {total / 1e6:.1f} MB > {TREE_LIMIT / 1e6:.0f} MB"
    models = sum(s for n, s in sizes.items() if n.startswith(MODELS))
    assert models <= MODELS_LIMIT, f"shipped models {models / 2**20:.1f} MiB > 64 MiB"
    big = sorted(n for n, s in sizes.items() if s > FILE_LIMIT and not n.startswith(MODELS))
    assert not big, f"files over 10 MB outside the shipped models: {big}"


def test_no_training_state_tracked() -> None:
    """Resume checkpoints and weights of unshipped runs are not in the tracked tree."""
    sizes = _tracked()
    state = sorted(n for n in sizes if n.startswith("results/training/")
                   and n.rsplit("/", 1)[-1] in ("checkpoint.pt", "model.pt", "checkpoint.pt.tmp"))
    assert not state, f"training state tracked (keep it in history, see results/training): {state}"
