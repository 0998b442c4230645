"""Where shared data sets, caches and runs live."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

_ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """``$BENCH_SHARED``, default ``../shared`` beside the checkout (may not exist)."""
    env = os.environ.get("BENCH_SHARED")
    if env:
        return Path(env).expanduser()
    return _ROOT.parent / "shared"


def cache_dir() -> Path:
    """``$BENCH_CACHE``, default the user's cache directory; created on demand."""
    env = os.environ.get("BENCH_CACHE")
    path = Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("heuristic-bench"))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from core.errors import InputError

        raise InputError(f"{'$BENCH_CACHE' if env else 'cache folder'}: cannot use {path} as a "
                         f"folder ({exc.strerror or exc})") from None
    return path


def deepcubea_dir() -> Path:
    return shared_dir() / "data" / "deepcubea"


def instances_dir() -> Path:
    return shared_dir() / "instances"
