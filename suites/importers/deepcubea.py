"""Read DeepCubeA's public test sets without running arbitrary pickled code.

Their ``test_data_0.pkl`` files are pickles of a dict with ``states`` (a list of state objects of
their classes ``Cube3State``, ``NPuzzleState``, ``LOState``, ``SokobanState``) and, for some puzzles,
``solutions``, ``times`` and ``num_nodes_generated``. ``RestrictedUnpickler`` admits only numpy's
array reconstruction and stand-ins for those four classes; anything else is refused.

Mapping their encodings to ours is the job of each puzzle (``from_deepcubea`` functions).
"""

from __future__ import annotations

import io
import pickle
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import InputError

#: the largest test set file read (theirs are a few MB)
MAX_BYTES = 1 << 30


class _StandIn:
    """Holds the attributes of one of DeepCubeA's state objects; nothing else."""

    _fields: tuple[str, ...] = ()

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict, slots)
            state = {**(state[0] or {}), **(state[1] or {})}
        if not isinstance(state, dict):
            raise pickle.UnpicklingError("unexpected state for a DeepCubeA state object")
        self.__dict__.update(state)


class Cube3State(_StandIn):
    pass


class NPuzzleState(_StandIn):
    pass


class LOState(_StandIn):
    pass


class SokobanState(_StandIn):
    pass


_ALLOWED: dict[tuple[str, str], Any] = {
    ("environments.cube3", "Cube3State"): Cube3State,
    ("environments.n_puzzle", "NPuzzleState"): NPuzzleState,
    ("environments.lights_out", "LOState"): LOState,
    ("environments.sokoban", "SokobanState"): SokobanState,
}


def _numpy_allowed() -> dict[tuple[str, str], Any]:
    allowed: dict[tuple[str, str], Any] = {}
    try:
        from numpy._core import multiarray as core_ma
    except ImportError:  # numpy < 2
        from numpy.core import multiarray as core_ma  # type: ignore[no-redef]
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[(mod, "_reconstruct")] = core_ma._reconstruct
        allowed[(mod, "scalar")] = core_ma.scalar
    allowed[("numpy", "ndarray")] = np.ndarray
    allowed[("numpy", "dtype")] = np.dtype
    return allowed


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickler with an allow-list: numpy array reconstruction and DeepCubeA's state classes."""

    def find_class(self, module: str, name: str) -> Any:
        allowed = {**_numpy_allowed(), **_ALLOWED}
        try:
            return allowed[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing to load {module}.{name}: not a numpy array or DeepCubeA state"
            ) from None


def safe_load(path: str | Path) -> Any:
    """Unpickle ``path`` with ``RestrictedUnpickler``; ``InputError`` if refused or unreadable."""
    import stat

    path = Path(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            raise InputError(f"{path}: not a regular file")
        if st.st_size > MAX_BYTES:
            raise InputError(f"{path}: larger than {MAX_BYTES >> 20} MiB; not a DeepCubeA test set")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return RestrictedUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, KeyError,
            IndexError, OverflowError, MemoryError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a DeepCubeA test set ({first})") from None


@dataclass
class DeepCubeATestSet:
    """Raw arrays from one test set, still in DeepCubeA's encoding.

    ``states``: (n, L) int array (cube: their 54 sticker ids; tiles: their tile list; lights: 0/1).
    ``solutions``: their move lists per state, or None. ``kind``: "cube3", "npuzzle" or "lightsout".
    """

    kind: str
    states: np.ndarray
    solutions: list[list[Any]] | None
    times: np.ndarray | None
    nodes_generated: np.ndarray | None


def load_test_set(path: str | Path) -> DeepCubeATestSet:
    """Load a DeepCubeA ``test_data_*.pkl`` into plain arrays."""
    obj = safe_load(path)
    if not isinstance(obj, dict) or "states" not in obj:
        raise InputError(f"{path}: not a DeepCubeA test set (no 'states')")
    raw = obj["states"]
    if not isinstance(raw, (list, tuple)):
        raise InputError(f"{path}: malformed states (expected a list of state objects)")
    if not raw:
        raise InputError(f"{path}: the test set has no states")
    first = raw[0]
    if isinstance(first, Cube3State):
        kind, attr = "cube3", "colors"
    elif isinstance(first, NPuzzleState):
        kind, attr = "npuzzle", "tiles"
    elif isinstance(first, LOState):
        kind, attr = "lightsout", "tiles"
    elif isinstance(first, SokobanState):
        kind, attr = "sokoban", ""
    else:
        raise InputError(f"{path}: unsupported state type {type(first).__name__}")
    try:
        if any(type(st) is not type(first) for st in raw):
            raise ValueError("states of mixed types")
        arrays = [_sokoban_row(st) if kind == "sokoban" else np.asarray(getattr(st, attr)).ravel()
                  for st in raw]
        states = np.stack([_integers(a, i) for i, a in enumerate(arrays)])
    except (AttributeError, ValueError, TypeError) as exc:
        raise InputError(f"{path}: malformed states ({str(exc)[:160]})") from None
    sols = obj.get("solutions")
    times = obj.get("times")
    nodes = obj.get("num_nodes_generated")
    try:
        return DeepCubeATestSet(
            kind=kind,
            states=states,
            solutions=[list(s) for s in sols] if sols is not None else None,
            times=np.asarray(times, dtype=float) if times is not None else None,
            nodes_generated=np.asarray(nodes, dtype=float) if nodes is not None else None,
        )
    except (TypeError, ValueError) as exc:
        raise InputError(f"{path}: malformed solutions, times or node counts "
                         f"({str(exc)[:160]})") from None


def _sokoban_row(state: Any) -> np.ndarray:
    """One Sokoban level as ``[agent row, agent column, walls, boxes, goals]`` (0/1 masks)."""
    parts = [np.asarray(state.agent).ravel()] + [np.asarray(getattr(state, k)).astype(np.int64)
                                                 .ravel() for k in ("walls", "boxes", "goals")]
    if parts[0].size != 2 or len({p.size for p in parts[1:]}) != 1:
        raise ValueError("a Sokoban level needs an agent position and three masks of one size")
    return np.concatenate(parts)


def _integers(values: np.ndarray, index: int) -> np.ndarray:
    """A state's entries as int64; ``ValueError`` for entries that are not whole numbers."""
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    if values.dtype.kind == "f" and np.isfinite(values).all() \
            and (values == np.round(values)).all() and np.abs(values).max(initial=0) < 2**31:
        return values.astype(np.int64)
    raise ValueError(f"state {index} holds entries that are not integers "
                     f"({values.dtype}: {values[:4].tolist()}...)")


_RESULT_RE = re.compile(
    r"State:\s*(\d+),\s*SolnCost:\s*([\d.]+),\s*# Moves:\s*(\d+),\s*# Nodes Gen:\s*([\d,]+),\s*Time:\s*([\d.]+)"
)


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Parse DeepCubeA's ``deepcubea_results_output.txt`` (one line per solved state)."""
    rows = []
    for line in Path(path).read_text().splitlines():
        m = _RESULT_RE.search(line)
        if m:
            rows.append(
                {
                    "index": int(m.group(1)),
                    "cost": float(m.group(2)),
                    "moves": int(m.group(3)),
                    "nodes_generated": int(m.group(4).replace(",", "")),
                    "time_s": float(m.group(5)),
                }
            )
    return rows
