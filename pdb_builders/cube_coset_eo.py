"""A U-D coset table with every edge flip, in two bits an entry (``pdb-coset-eo``; the table
family of Rokicki's nxopt, size EO3EP1).

Coordinates (projections that the moves and the 16 symmetries keeping the U-D axis act on):

* corner part: as :mod:`pdb_builders.cube_coset` (``set * 2187 + twist``, 153,090 values,
  9,930 classes under the 16 symmetries);
* edge part ``E = set * 2048 + flips``: ``set`` ranks which 4 of the 12 edge positions hold
  the E-slice edges (``0 .. 494``), bit ``i`` of ``flips`` is the flip of the edge at position
  ``i < 11`` (the F/B-based orientation of :mod:`pdb_builders.korf_cube`, which U, D, R and L
  keep; the twelfth flip follows from the others); 1,013,760 values.

The subgroup whose cosets these are holds every U and D move (quarter and half turns), R2, L2,
F2, B2: the coset of a cube is fixed by U/D moves applied before it, and its distance from the
subgroup is the least number of moves that take the cube into it. The table holds
``9,930 * 1,013,760 = 10,066,636,800`` entries, 2,516,659,200 bytes at two bits an entry.

Encoding (nxopt's): entry value ``v`` in two bits relative to a base ``b`` chosen by the build:
``1, 2`` stand for the distances ``b + 1, b + 2``, ``3`` for "at least ``b + 3``" and ``0`` for
"at most ``b``", where a lookup falls back on the next coarser coset table
(:func:`fallback_space`; for the full table it is ``pdb-coset``'s, 78.6 M one-byte entries,
whose distance is never above this one's). So a decoded value is a lower bound on the coset
distance and exact for ``b + 1`` and ``b + 2``.

Build (:func:`build`): a breadth-first search over the reduced entries
(:mod:`pdb_builders._cube_coset_eo_bfs`) in the same two bits. Up to the base the codes hold the
distance modulo 3 (``3``: not reached), so a pass finds the next layer from the entries of the
last one's code: forward (expand them; entries three layers older share the code and have no
unreached child, which costs a little time only) while that frontier is small, backward (each
unreached entry looks for a neighbour of the code) once it holds more than ``backward_ratio``
(one half) times the unreached entries: a backward pass reads all the moves of every entry
that has no neighbour in the frontier. The directions change the time, never the table (the
checkpoint of one build resumes under another ratio). Once the base is chosen, one pass turns every reached entry into
``0`` and two more passes find the layers ``b + 1`` (neighbour ``0``) and ``b + 2`` (neighbour
``1``); whatever is left keeps ``3``. The automatic base is the layer before the first one
that holds more than ``base_share`` of the table (10 %). When the growth of the last two layers
predicts the next one at more than 1.5 times that share, the base is set at once; otherwise the
pass is done in the modulo-3 codes and, when its layer is that large, the build goes back to the last checkpoint (or a copy in memory) and goes on with
the base set (kept in the checkpoint's state), so few entries fall back (those at most the base) and few are clamped (those
above ``b + 3``: the layers past the largest ones are thin).

Each pass is split into chunks of words run over the Numba threads (``prange``), with a tqdm bar
over the entries reached and its estimate of the time left; after a pass (once two minutes have
passed since the last) the table and the layer counts are written to a checkpoint folder (a new table file, then the state file renamed
over the old one), so a build killed at any moment (``kill -9`` included) resumes from its last
finished pass. The finished table is stored with its blake2b checksum by
:mod:`pdb_builders.store`, its base and layer counts in the file's attributes.

The next size, ``edge_part="eo2ep2"`` (nxopt's EO2EP2, ``pdb-coset-eo2ep2``), keeps the slice
edges' order instead of every flip: ``E = ((set * 24) + order) * 256 + flips``, ``order`` the
lexicographic rank of the slice edges read by increasing position, bit ``j`` of ``flips`` the
flip of the ``j``-th lowest of the eight other positions (3,041,280 values,
:func:`ud_edge_tables`). Its subgroup holds every U and D move, any permutation of the U-D layer
edges and any flip of the slice edges; ``9,930 * 3,041,280 = 30,199,910,400`` entries,
7,549,977,600 bytes. Its fallback is the ``eo2`` cosets (the same without ``order``, 1.26 G
entries, one byte each, :func:`fallback_spec`), which contain its cosets. ``ep2`` (without the
flips) is its stand-in in the tests.

``corner_part`` ``"set"`` and ``edge_part`` ``"slice"`` (slice edges' flips only: 7,920 values,
``pdb-coset``'s edge part) or ``"set"`` (495) give small stand-ins built by the same code in
well under a second, for tests.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from core import safe_write
from core.errors import InputError
from pdb_builders import cube_coset as cc
from pdb_builders import cube_symmetry as S
from pdb_builders.cube_edge_parts import (
    UD_PARTS,
    edge_coord,
    edge_tables,
    ud_edge_coord,
    ud_edge_tables,
)

#: bump when the coordinates, the encoding or the layout change: older files are then refused
BUILDER_VERSION = 1
EDGE_PARTS = ("eo", "eo2ep2", "slice", "set", "ep2", "eo2")
CORNER_PARTS = ("full", "set")
#: the coarser edge part each edge part falls back on (:mod:`pdb_builders.cube_coset`'s, or
#: ``eo2``: one byte an entry, :func:`fallback_spec`)
_FALLBACK = {"eo": "full", "slice": "set", "set": "none", "eo2ep2": "eo2", "ep2": "set",
             "eo2": "set"}
#: :mod:`pdb_builders.cube_coset`'s name of the same edge part
_CC_EDGE = {"slice": "full", "set": "set"}
CHECKPOINT_VERSION = 1


# ----------------------------------------------------------------------------- coordinates

@functools.cache
def coset_space(metric: str, corner_part: str = "full", edge_part: str = "eo") -> cc.CosetSpace:
    """The :class:`pdb_builders.cube_coset.CosetSpace` of ``metric`` and the chosen parts."""
    if corner_part not in CORNER_PARTS:
        raise InputError(f"corner_part: expected one of {', '.join(CORNER_PARTS)}, got "
                         f"{corner_part!r}")
    if edge_part not in EDGE_PARTS:
        raise InputError(f"edge_part: expected one of {', '.join(EDGE_PARTS)}, got {edge_part!r}")
    base = cc.coset_space(metric, corner_part, "full")
    if edge_part in UD_PARTS:
        u = ud_edge_tables(metric, edge_part)
        ident = S.identity()
        return replace(base, edge_part=edge_part, emove=u["emove"], econj=u["econj"],
                       egoal=int(ud_edge_coord(ident[2], ident[3], edge_part)[0]))
    if edge_part != "eo":
        return replace(cc.coset_space(metric, corner_part, _CC_EDGE[edge_part]),
                       edge_part=edge_part)
    t = edge_tables(metric)
    ident = S.identity()
    return replace(base, edge_part="eo", emove=t["emove"], econj=t["econj"],
                   egoal=int(edge_coord(ident[2], ident[3])[0]))


def fallback_space(metric: str, corner_part: str = "full",
                   edge_part: str = "eo") -> cc.CosetSpace:
    """The coarser coset (one byte an entry, :mod:`pdb_builders.cube_coset`) whose distance a
    lookup reads where the two-bit code says "at most the base"."""
    if _FALLBACK[edge_part] in UD_PARTS:
        return coset_space(metric, corner_part, _FALLBACK[edge_part])
    return cc.coset_space(metric, corner_part, _FALLBACK[edge_part])


def edge_projection(metric: str, edge_part: str) -> np.ndarray:
    """``(ne,)`` int32: each raw edge coordinate's value in the fallback's edge part."""
    if edge_part == "eo":
        return edge_tables(metric)["proj"]
    if edge_part in UD_PARTS:
        return ud_edge_tables(metric, edge_part)["proj"]
    if edge_part == "slice":
        return np.arange(495 * 16, dtype=np.int32) // 16
    return np.zeros(495, dtype=np.int32)


def project(sp: cc.CosetSpace, cubies: S.Cube) -> tuple[np.ndarray, np.ndarray]:
    """``(corner, edge)`` raw coordinates of ``sp`` for a batch of cubes."""
    if sp.edge_part in _CC_EDGE:
        return replace(sp, edge_part=_CC_EDGE[sp.edge_part]).project(cubies)
    c = cc.corner_coord(cubies[0], cubies[1])
    if sp.corner_part == "set":
        c = c // cc.NTWIST
    if sp.edge_part in UD_PARTS:
        return c, ud_edge_coord(cubies[2], cubies[3], sp.edge_part)
    return c, edge_coord(cubies[2], cubies[3])


def decode(codes: np.ndarray, base: int, fallback: np.ndarray) -> np.ndarray:
    """Lower bounds from two-bit ``codes`` and the fallback table's values where a code is 0."""
    codes = np.asarray(codes).astype(np.int32)
    return np.where(codes > 0, base + codes, np.asarray(fallback).astype(np.int32))


# ----------------------------------------------------------------------------- building
def _write_checkpoint(folder: Path, words: np.ndarray, state: dict[str, Any],
                      kill_at: tuple[str, int] | None) -> None:
    """The table under a new name, then the state naming it renamed over the old state, then
    the older tables removed: a kill at any point leaves a state and the table it names."""
    folder.mkdir(parents=True, exist_ok=True)
    passes = len(state["directions"])
    name = f"table-{passes}.bin"
    with safe_write.atomic_path(folder / name, root=folder, arg="checkpoint") as tmp:
        words.tofile(tmp)
    if kill_at == ("save", passes):
        os.kill(os.getpid(), signal.SIGKILL)
    _write_state(folder, dict(state, table=name))
    for old in folder.glob("table-*.bin*"):
        if old.name != name:
            old.unlink()


def _write_state(folder: Path, state: dict[str, Any]) -> None:
    safe_write.write_text(folder / "state.json", json.dumps(state), root=folder, arg="checkpoint")


def _read_checkpoint(folder: Path, ident: dict[str, Any],
                     nwords: int) -> tuple[np.ndarray, dict[str, Any]] | None:
    try:
        state = json.loads((folder / "state.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or any(state.get(k) != v for k, v in ident.items()):
        return None
    path = folder / str(state.get("table"))
    if not path.is_file() or path.stat().st_size != nwords * 8:
        return None
    return np.fromfile(path, dtype=np.uint64), state


def build(metric: str, corner_part: str = "full", edge_part: str = "eo", *,
          base: int | None = None, base_share: float = 0.1, backward_ratio: float = 0.5,
          checkpoint: str | os.PathLike[str] | None = None, checkpoint_s: float = 120.0,
          progress: bool = False,
          kill_at: tuple[str, int] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """The two-bit table ``(ceil(size / 32),)`` uint64 words and the build's statistics.

    ``base``: the base (``None``: chosen as the module docstring says). ``checkpoint``: a
    folder for the state after a pass once ``checkpoint_s`` seconds have passed since the last
    one (resumed from when it holds a build of the same table; removed by the caller once the
    table is stored). ``kill_at``: tests only, the
    process kills itself with ``SIGKILL`` in pass ``n`` after its first chunk (``("pass", n)``)
    or between writing pass ``n``'s table and its state (``("save", n)``).
    """
    from tqdm import tqdm

    from pdb_builders import _cube_coset_eo_bfs as K

    if base is not None and base < 0:
        raise InputError(f"base: must be at least 0, got {base}")
    t0 = time.perf_counter()
    sp = coset_space(metric, corner_part, edge_part)
    size = sp.size
    nwords = (size + 31) // 32
    ident = {"version": CHECKPOINT_VERSION, "metric": metric, "corner_part": corner_part,
             "edge_part": edge_part, "size": size, "base_rule": base if base is not None
             else f"auto:{base_share}"}
    folder = Path(checkpoint) if checkpoint is not None else None
    resumed = _read_checkpoint(folder, ident, nwords) if folder is not None else None
    if resumed is not None:
        words, state = resumed
        if base is None and state.get("base_next") is not None:
            base = int(state["base_next"])
    else:
        words = np.full(nwords, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
        goal = int(sp.index(np.array([sp.cgoal]), np.array([sp.egoal]))[0])
        first = K.mark(words, goal, 0, sp.ne, sp.selfsym, sp.econj)
        state = dict(ident, phase="mod3", depth=0, base=None, layers=[first], directions=[],
                     seconds=0.0)
        if folder is not None:
            _write_checkpoint(folder, words, state, None)
    prior = float(state["seconds"])
    saved = time.perf_counter()
    args = (size, sp.ne, sp.reps, sp.cmove, sp.emove, sp.classof, sp.symof, sp.econj)
    nchunks = max(1, min(64, nwords // (1 << 16)))
    bounds = np.linspace(0, nwords, nchunks + 1).astype(np.int64)
    bar = tqdm(total=size, initial=sum(state["layers"]), unit="entry", unit_scale=True,
               disable=not progress, desc=f"coset-eo {metric}", smoothing=0.05)
    try:
        while True:
            layers: list[int] = state["layers"]
            d = int(state["depth"])
            seen = sum(layers)
            if base is None and state["phase"] == "mod3" and len(layers) > 1 and layers[-2]:
                # a next layer clearly above the share (by the last growth) needs no trial pass
                if layers[-1] ** 2 / layers[-2] > 1.5 * base_share * size:
                    base = d
            if state["phase"] == "mod3" and (seen >= size or base == d):
                K.to_base(words)
                state = dict(state, phase="base", base=d)
            if state["phase"] == "base" and d >= state["base"] + 2 or seen >= size:
                break
            if state["phase"] == "mod3":
                val, new = d % 3, (d + 1) % 3
                frontier = sum(n for k, n in enumerate(layers) if k % 3 == val)
            else:
                val, new = d - state["base"], d - state["base"] + 1
                frontier = seen if val == 0 else layers[-1]
            back = frontier > backward_ratio * (size - seen)
            passes = len(state["directions"]) + 1
            auto = base is None and state["phase"] == "mod3"
            if auto and folder is None:
                before = words.copy()
            bar.set_postfix_str(f"depth {d + 1} {'backward' if back else 'forward'}")
            found = 0
            for c in range(nchunks):
                lo, hi = int(bounds[c]), int(bounds[c + 1])
                if back:
                    n = K.backward(words, lo, hi, val, new, *args)
                else:
                    n = K.forward(words, lo, hi, val, new, *args, sp.selfsym)
                found += int(n)
                bar.update(int(n))
                if kill_at == ("pass", passes):
                    os.kill(os.getpid(), signal.SIGKILL)
            if auto and found > base_share * size:
                # the first large layer: its predecessor becomes the base, and the build goes
                # on from the last checkpoint (or the copy kept in memory) with that base
                base = d
                if folder is not None:
                    words, state = _read_checkpoint(folder, ident, nwords)  # type: ignore[misc]
                    state["base_next"] = d
                    _write_state(folder, state)
                else:
                    words = before
                bar.update(sum(state["layers"]) - bar.n)
                continue
            if found == 0 and state["phase"] == "mod3":
                # every entry is reached at ``d`` or less: all of them at most the base
                K.to_base(words)
                state = dict(state, phase="base", base=d)
                break
            state = dict(state, depth=d + 1, layers=layers + [found],
                         directions=state["directions"] + ["backward" if back else "forward"],
                         seconds=prior + time.perf_counter() - t0)
            if folder is not None and (time.perf_counter() - saved >= checkpoint_s
                                       or kill_at is not None):
                _write_checkpoint(folder, words, state, kill_at)
                saved = time.perf_counter()
            if found == 0:
                break
    finally:
        bar.close()
    got = K.counts(words, size)
    b = int(state["base"])
    layers = list(state["layers"])
    expect = [sum(layers[: b + 1]), *(layers[b + 1: b + 3] + [0, 0])[:2]]
    if [int(x) for x in got[:3]] != expect:
        raise RuntimeError(f"coset-eo table: codes {got.tolist()} disagree with the layers "
                           f"{layers} (base {b})")
    stats = {"seconds": prior + time.perf_counter() - t0, "base": b, "layers": layers,
             "above": int(got[3]), "directions": list(state["directions"]),
             "classes": sp.num_classes, "resumed": resumed is not None}
    return words, stats


def table_bytes(words: np.ndarray, size: int) -> np.ndarray:
    """The stored form: the first ``ceil(size / 4)`` bytes of the words (little-endian)."""
    return np.ascontiguousarray(words).view(np.uint8)[: (size + 3) // 4]


def lookup(table: np.ndarray, sp: cc.CosetSpace, corner: np.ndarray,
           edge: np.ndarray) -> np.ndarray:
    """``(B,)`` two-bit codes of raw coordinates in a stored table (bytes)."""
    from pdb_builders import _cube_coset_eo_bfs as K

    return K.lookup(table, sp.index(corner, edge).astype(np.int64))


# ----------------------------------------------------------------------------- catalog
def _key(puzzle: str, corner_part: str, edge_part: str) -> str:
    if (corner_part, edge_part) == ("full", "eo2ep2"):
        return f"{puzzle}-coset-eo2ep2"
    full = (corner_part, edge_part) == ("full", "eo")
    return f"{puzzle}-coset-eo" + ("" if full else f"-{corner_part}-{edge_part}")


def build_table(metric: str, corner_part: str = "full", edge_part: str = "eo",
                progress: bool = True, jobs: int = 0, key: str = "",
                base: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Catalog builder: the stored bytes and the attributes that the build decides (``base``,
    layer counts). Checkpoints go to ``<cache>/<key>.ckpt/``, removed once the table is
    returned; ``jobs`` caps the Numba threads (``0``: all of them)."""
    import shutil

    from core.paths import cache_dir
    from pdb_builders.catalog import numba_jobs

    folder = cache_dir() / f"{key or _key('cube3', corner_part, edge_part)}.ckpt"
    with numba_jobs(jobs):
        words, stats = build(metric, corner_part, edge_part, base=base, checkpoint=folder,
                             progress=progress)
    sp = coset_space(metric, corner_part, edge_part)
    data = table_bytes(words, sp.size)
    if progress:
        print(f"coset-eo {metric}: base {stats['base']}, layers {stats['layers']}, "
              f"{stats['above']:,} at base + 3 or more, {stats['seconds'] / 60:.1f} min",
              flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    extra = {"base": stats["base"], "layers": stats["layers"], "above": stats["above"],
             "directions": stats["directions"], "bfs_seconds": round(stats["seconds"], 1)}
    return data, extra


def table_spec(puzzle: str, corner_part: str = "full", edge_part: str = "eo") -> Any:
    """The catalog :class:`~pdb_builders.catalog.TableSpec` of the two-bit table of ``cube3``
    (quarter turns) or ``cube3-htm``: ``<cache>/<puzzle>-coset-eo.h5`` (stand-ins:
    ``<puzzle>-coset-eo-<corner_part>-<edge_part>.h5``)."""
    from pdb_builders.catalog import TableSpec

    if puzzle not in ("cube3", "cube3-htm"):
        raise InputError(f"puzzle: the coset-eo table serves cube3 and cube3-htm; got {puzzle!r}")
    metric = "htm" if puzzle.endswith("-htm") else "qtm"
    sp = coset_space(metric, corner_part, edge_part)
    key = _key(puzzle, corner_part, edge_part)
    attrs = {
        "puzzle": puzzle,
        "metric": metric,
        "pattern": f"coset-ud:corners-{corner_part}|edges-{edge_part}",
        "ranking": "subset-mask-rank-v1",
        "encoding": "two-bit-base-v1",
        "entries": int(sp.size),
        "builder": "pdb_builders.cube_coset_eo",
        "builder_version": BUILDER_VERSION,
    }
    return TableSpec(
        key=key, attrs=attrs, builder="pdb_builders.cube_coset_eo:build_table",
        build_kwargs={"metric": metric, "corner_part": corner_part, "edge_part": edge_part,
                      "jobs": 0, "key": key},
        entries=int(sp.size),
        summary=f"{puzzle} U-D coset table ({edge_part} edges), two bits an entry, "
                f"{sp.size:,} entries",
    )


def fallback_spec(puzzle: str, corner_part: str = "full", edge_part: str = "eo") -> Any:
    """The one-byte table that lookups fall back on: :mod:`pdb_builders.cube_coset`'s, or
    the ``eo2`` cosets' (:func:`build_byte_table`) under ``eo2ep2``."""
    from pdb_builders.catalog import TableSpec

    part = _FALLBACK[edge_part]
    if part not in UD_PARTS:
        return cc.table_spec(puzzle, corner_part, part)
    metric = "htm" if puzzle.endswith("-htm") else "qtm"
    sp = coset_space(metric, corner_part, part)
    key = f"{puzzle}-coset-{part}" + ("" if corner_part == "full" else f"-{corner_part}")
    attrs = {"puzzle": puzzle, "metric": metric,
             "pattern": f"coset-ud:corners-{corner_part}|edges-{part}",
             "ranking": "subset-mask-rank-v1", "entries": int(sp.size),
             "builder": "pdb_builders.cube_coset_eo", "builder_version": BUILDER_VERSION}
    return TableSpec(
        key=key, attrs=attrs, builder="pdb_builders.cube_coset_eo:build_byte_table",
        build_kwargs={"metric": metric, "corner_part": corner_part, "edge_part": part,
                      "jobs": 0},
        entries=int(sp.size),
        summary=f"{puzzle} U-D coset table (slice set and U-D layer flips), one byte an "
                f"entry, {sp.size:,} entries")


def build_byte_table(metric: str, corner_part: str = "full", edge_part: str = "eo2",
                     progress: bool = True, jobs: int = 0) -> np.ndarray:
    """Catalog builder of a fallback table: the reduced coset distances ``(size,)`` uint8 of a
    U-D layer part (:func:`pdb_builders.cube_coset.build_space`)."""
    from pdb_builders.catalog import numba_jobs

    with numba_jobs(jobs):
        table, _ = cc.build_space(coset_space(metric, corner_part, edge_part), progress=progress)
    return table


#: the edge part of each two-bit heuristic's full table
HEURISTIC_EDGES = {"pdb-coset-eo": "eo", "pdb-coset-eo2ep2": "eo2ep2"}


def catalog_tables(puzzle: str, heuristic: str) -> list[Any]:
    """Catalog entry point: the two-bit table of ``pdb-coset-eo`` (or ``pdb-coset-eo2ep2``)
    and its fallback."""
    if heuristic not in HEURISTIC_EDGES:
        raise InputError(f"heuristic: {heuristic!r} is not a two-bit coset table")
    part = HEURISTIC_EDGES[heuristic]
    return [table_spec(puzzle, "full", part), fallback_spec(puzzle, "full", part)]
