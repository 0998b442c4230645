"""Where shared data sets, caches and runs live."""

from __future__ import annotations

import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def checkout_dir() -> Path:
    """The checkout this code runs from (its repository root)."""
    return _ROOT


def checkout_relative(path: str | Path) -> str | None:
    """``path`` relative to the checkout (POSIX form) where it lies inside it, else None."""
    try:
        return Path(path).expanduser().resolve().relative_to(_ROOT).as_posix()
    except (ValueError, OSError):
        return None


def _user_cache() -> Path:
    """The user's cache folder for this project (``platformdirs`` is imported when a path
    under it is first asked for, not at every start)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("heuristic-bench"))


def shared_dir() -> Path:
    """``$BENCH_SHARED``, default ``../shared`` beside the checkout (may not exist)."""
    env = os.environ.get("BENCH_SHARED")
    if env:
        return Path(env).expanduser()
    return _ROOT.parent / "shared"


def cache_dir() -> Path:
    """``$BENCH_CACHE``, default the user's cache directory; created on demand."""
    env = os.environ.get("BENCH_CACHE")
    path = Path(env).expanduser() if env else _user_cache()
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


def display_path(path: str | Path) -> str:
    """How committed records name ``path``: relative to the checkout where it lies inside it,
    ``shared/...`` inside the shared data folder, ``cache/...`` inside the cache, else its last
    three parts, so that no record carries a path of the machine that wrote it."""
    p = Path(path).expanduser()
    try:
        p = p.resolve()
    except OSError:
        return "/".join(p.parts[-3:])
    env_cache = os.environ.get("BENCH_CACHE")
    cache = Path(env_cache).expanduser() if env_cache else _user_cache()
    for root, prefix in ((_ROOT, ""), (shared_dir(), "shared/"), (cache, "cache/")):
        try:
            return prefix + p.relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            continue
    return "/".join(p.parts[-3:])


def new_folder(base: str | Path) -> Path:
    """Create and return a folder that did not exist: ``base``, else ``base-2``, ``base-3``, ...
    (two processes that ask for the same name at once get different folders)."""
    base = Path(base)
    n = 1
    while True:
        folder = base if n == 1 else base.with_name(f"{base.name}-{n}")
        try:
            folder.mkdir(parents=True, exist_ok=False)
            return folder
        except FileExistsError:
            n += 1
