"""Where a result came from: git revision, package versions, CPU, GPU, date."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from core.rows import PROVENANCE

_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("numpy", "numba", "torch", "pandas", "h5py", "heuristic-bench")


def git_revision(root: Path = _ROOT) -> str:
    """The checkout's commit (with ``-dirty`` when it has uncommitted changes), or ``unknown``."""
    try:
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def git_tree_state(root: Path = _ROOT) -> tuple[bool | None, str | None]:
    """Whether the checkout's tracked files differ from its commit, and a digest of that
    difference (sha256 of ``git diff HEAD --binary``, 16 hex digits; ``None`` for a clean tree):
    ``(None, None)`` outside a checkout or where git cannot tell. Two runs with one digest ran
    the same uncommitted code; untracked files are not counted (as in :func:`git_revision`)."""
    import hashlib

    try:
        done = subprocess.run(["git", "-C", str(root), "diff", "HEAD", "--binary",
                               "--no-ext-diff", "--no-color"],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None, None
    if done.returncode != 0:
        return None, None
    if not done.stdout:
        return False, None
    return True, hashlib.sha256(done.stdout).hexdigest()[:16]


def revision_known(rev: str, root: Path = _ROOT) -> bool | None:
    """Whether the commit ``rev`` names (a ``-dirty`` suffix dropped) is in the checkout's
    history; ``None`` where git cannot tell (no git, not a checkout)."""
    rev = rev.removesuffix("-dirty")
    if not rev or rev == "unknown" or not all(c in "0123456789abcdef" for c in rev.lower()):
        return False
    try:
        done = subprocess.run(["git", "-C", str(root), "cat-file", "-e", f"{rev}^{{commit}}"],
                              capture_output=True, timeout=10)
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"],
                             capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if top.returncode != 0:
        return None
    return done.returncode == 0


def tracked_by_git(path: Path) -> bool:
    """Whether ``path`` is a file committed to the git checkout it lies in (False outside one,
    or where git cannot tell)."""
    path = Path(path)
    try:
        done = subprocess.run(["git", "-C", str(path.parent), "ls-files", "--error-unmatch",
                               path.name], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def tracked_files(folder: Path) -> list[str]:
    """The files under ``folder`` committed to the git checkout it lies in (relative names,
    those that make a run or model first; [] outside a checkout, for a folder that does not exist, or where git cannot tell)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    try:
        done = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--", "."],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    names = [n for n in done.stdout.split("\0") if n]
    # the files that make a run or a model first (summary, tables, rows, weights), then the rest
    first = ("summary.md", "results.csv", "rows.jsonl", "model.pt", "checkpoint.pt")
    return sorted(names, key=lambda n: (first.index(n) if n in first else len(first),
                                        n.startswith("."), n))


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_name() -> str:
    """The first CUDA device's name, or ``none``; never imports torch if it is not loaded."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available():
                return str(torch.cuda.get_device_name(0))
        except Exception:  # noqa: BLE001
            pass
        return "none"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        name = out.stdout.strip().splitlines()
        return name[0] if out.returncode == 0 and name else "none"
    except (OSError, subprocess.SubprocessError):
        return "none"


def cpu_score(repeats: int = 7, n: int = 1 << 20) -> float:
    """Millions of float64 values one core sorts per second (best of ``repeats`` sorts of
    ``n`` values; numpy's vectorised sort, a few hundredths of a second in all): a figure that
    tells a fast machine from a slow or busy one where the rows of one table come from several
    runs."""
    import numpy as np

    a = np.random.default_rng(0).random(n)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        np.sort(a, kind="quicksort")
        best = min(best, time.perf_counter() - t)
    return round(n / max(best, 1e-9) / 1e6, 1)


@lru_cache(maxsize=1)
def process_cpu_score() -> float:
    """:func:`cpu_score`, measured once per process (the runner's, or a Dask worker's)."""
    return cpu_score()


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


@lru_cache(maxsize=1)
def provenance() -> dict[str, Any]:
    """A flat dict describing this machine and checkout (cached per process)."""
    import os

    dirty, diff = git_tree_state()
    return {
        "git_rev": git_revision(),
        "git_dirty": dirty,
        "git_diff_sha256": diff,
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu": cpu_name(),
        "cores": os.cpu_count() or 0,
        "gpu": gpu_name(),
        "cpu_score": process_cpu_score(),
        **{f"v_{k.replace('-', '_')}": v for k, v in versions().items()},
    }


#: the provenance columns copied into every result row
ROW_FIELDS = PROVENANCE
