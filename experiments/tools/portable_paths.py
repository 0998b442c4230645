"""Rewrites the machine paths inside older committed records the way ``core.paths.display_path``
names paths in new ones: the checkout's own files relative to it, ``shared/...`` for the shared
data folder, ``cache/...`` for the cache, the command's name for an interpreter path, the last
three parts of anything else.

Only data files are touched (JSON, JSON lines, CSV, TOML, text and logs); documents and scripts
are left as written. Usage::

    python -m experiments.tools.portable_paths results          # lists what would change
    python -m experiments.tools.portable_paths results --write  # rewrites those files
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

DATA = {".json", ".jsonl", ".csv", ".toml", ".txt", ".log"}
#: a path of a machine: a root folder seen in older records, then path characters
MACHINE_PATH = re.compile(r"/(?:work|root|home|tmp)/[^\s\"',;\\]*")
CHECKOUTS = ("/work/main/",)
SHARED = ("/work/shared/",)
CACHES = ("/root/.cache/heuristic-bench/",)


def portable(path: str) -> str:
    """``path`` as a record of any machine may name it."""
    for prefixes, repl in ((CHECKOUTS, ""), (SHARED, "shared/"), (CACHES, "cache/")):
        for p in prefixes:
            if path.startswith(p):
                return repl + path[len(p):]
    if "/bin/" in path:
        return path.rsplit("/", 1)[1]
    parts = [p for p in path.split("/") if p]
    return "/".join(parts[-3:])


def rewrite(text: str) -> str:
    return MACHINE_PATH.sub(lambda m: portable(m.group(0)), text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--write", action="store_true", help="rewrite the files (default: list them)")
    args = ap.parse_args()
    for f in sorted(args.folder.rglob("*")):
        if not f.is_file() or f.suffix not in DATA:
            continue
        text = f.read_text()
        new = rewrite(text)
        if new != text:
            n = len(MACHINE_PATH.findall(text))
            print(f"{f}: {n} path(s)")
            if args.write:
                f.write_text(new)


if __name__ == "__main__":
    main()
