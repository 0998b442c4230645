"""The heuristic interface, and the policy interface beside it.

A heuristic estimates the cost-to-go of states of one puzzle. Every heuristic has a batch
evaluator (``__call__``); heuristics that can be evaluated per state inside a Numba search also
expose ``ida_spec()`` (see ``solvers.ida``), networks return ``None`` there.

A move-prediction network (:class:`PolicyGuide`, :mod:`heuristics.policy_net`) is not a
heuristic: it gives log-probabilities of a state's moves (``log_probs``,
:class:`core.capabilities.Policy`) and no distance estimate; only beam search takes it. Both
are a :class:`Guide` (what a solver is given: a name, the seconds spent loading, the bytes held,
and the states a network evaluated in ``network_evaluations``, ``None`` without a network).

A Q-network (:class:`core.capabilities.QValues`, :mod:`heuristics.q_net`) gives values for every
move of a state from one evaluation of the state: ``q_values(states) -> (B, A)``, the cost of
each move plus the cost-to-go of its child (illegal moves ``inf``); the Q searches (``qstar``,
``qbeam``) read children's values from it without evaluating the children.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import (
    Annotated,
    Any,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

import numpy as np

from core.capabilities import QValues
from puzzles.base import Puzzle

__all__ = ["Guide", "Heuristic", "IdaSpec", "PolicyGuide", "QValues", "checked_values"]


@dataclass(frozen=True)
class Arr:
    """What a field of an IDA* record holds (``Annotated[np.ndarray, Arr("int64", 2)]``): an
    array of that dtype (``"integer"``: any integer type) and number of dimensions (a ``tuple``
    field: every array in it)."""

    dtype: str
    ndim: int


@cache
def _record_fields(cls: Any) -> tuple[tuple[str, Any, Arr | None], ...]:
    """``(name, type, Arr or None)`` of each field of the record class ``cls``."""
    hints = get_type_hints(cls, include_extras=True)
    out = []
    for name in vars(cls)["_fields"]:
        if name not in hints:
            raise TypeError(f"IDA* tables: {cls.__name__}.{name} has no type annotation")
        hint = hints[name]
        arr = None
        if get_origin(hint) is Annotated:
            hint, *meta = get_args(hint)
            arr = next((m for m in meta if isinstance(m, Arr)), None)
        out.append((name, get_origin(hint) or hint, arr))
    return tuple(out)


def check_record(record: Any) -> None:
    """``TypeError`` unless ``record`` is a typed record (a ``typing.NamedTuple``) whose every
    field holds what its annotation says: arrays of the declared dtype and dimensions, ``int``,
    ``bool``. A plain tuple has no names and is refused; a record built by position in another
    order fails on the first field whose array does not fit."""
    cls = type(record)
    if not (isinstance(record, tuple) and isinstance(vars(cls).get("_fields"), tuple)):
        raise TypeError(f"IDA* tables: expected a typed record (a typing.NamedTuple of named "
                        f"arrays), got {cls.__name__}")
    values = cast(Any, record)._asdict()
    for name, kind, arr in _record_fields(cast(Any, cls)):
        value = values[name]
        where = f"IDA* tables: {cls.__name__}.{name}"
        if arr is not None:
            items = value if kind is tuple and isinstance(value, tuple) else (value,)
            if kind is tuple and (not isinstance(value, tuple) or not value):
                raise TypeError(f"{where}: expected a non-empty tuple of arrays, got "
                                f"{type(value).__name__}")
            for a in items:
                if not isinstance(a, np.ndarray):
                    raise TypeError(f"{where}: expected an array, got {type(a).__name__}")
                fits = (np.issubdtype(a.dtype, np.integer) if arr.dtype == "integer"
                        else a.dtype == np.dtype(arr.dtype))
                if not fits or a.ndim != arr.ndim:
                    raise TypeError(f"{where}: expected {arr.ndim}-d {arr.dtype}, got "
                                    f"{a.ndim}-d {a.dtype}")
        elif kind is bool:
            if not isinstance(value, bool | np.bool_):
                raise TypeError(f"{where}: expected a bool, got {type(value).__name__}")
        elif kind is int:
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
                raise TypeError(f"{where}: expected an int, got {type(value).__name__}")


def record_arrays(record: Any) -> tuple[np.ndarray, ...]:
    """Every array of a record, in field order (those of a tuple field one by one)."""
    out: list[np.ndarray] = []
    for value in record:
        for a in value if isinstance(value, tuple) else (value,):
            if isinstance(a, np.ndarray):
                out.append(a)
    return tuple(out)


@dataclass(frozen=True)
class IdaSpec:
    """What a Numba IDA* kernel needs to evaluate a heuristic per state.

    ``family`` names the kernel family (``"tiles"``, ``"cube"``, ``"lights"``: the module
    ``solvers._ida_<family>``), ``kind`` the heuristic within it (e.g. ``"manhattan"``,
    ``"additive-pdb"``, ``"cube-pdb-max"``: the family's search class for it), ``tables`` the
    typed record of what the kernel reads (a ``typing.NamedTuple`` declared beside the
    heuristic, its fields annotated ``Annotated[np.ndarray, Arr(dtype, ndim)]``, ``int`` or
    ``bool``; ``None`` for a heuristic without tables), built by keyword and read by name, and
    checked here (:func:`check_record`). ``params`` holds facts of the puzzle the kernel's
    Python side reads (width, layout, metric, ...).
    """

    family: str
    kind: str
    tables: Any = None
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.tables is not None:
            check_record(self.tables)

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every array of ``tables`` (those whose pages IDA* maps before it searches)."""
        return () if self.tables is None else record_arrays(self.tables)


class Guide(ABC):
    """What a solver is given to steer it: a :class:`Heuristic` or a :class:`PolicyGuide`."""

    name: str
    #: states a network evaluated since the guide was made; None: no network
    network_evaluations: int | None = None
    #: what a learned guide's network was trained on (``davi``, ``diffusion``, ``policy``,
    #: as its checkpoint records; an ONNX card's ``target``); None: no network or not known
    trained_target: str | None = None

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        #: seconds spent loading tables / models / compiling kernels (reported apart from search)
        self.load_seconds: float = 0.0

    @property
    def nbytes(self) -> int:
        """Bytes of tables or parameters held in memory."""
        return 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} on {self.puzzle.name}>"


class PolicyGuide(Guide):
    """A policy: ranks a state's moves (:class:`core.capabilities.Policy`), gives no values."""

    @abstractmethod
    def log_probs(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, L) -> (B, A)`` float64 log-probabilities over the legal moves (illegal:
        ``-inf``)."""


class Heuristic(Guide):
    """Cost-to-go estimate for states of ``puzzle``."""

    admissible: bool = False
    consistent: bool = False
    #: arrays a search reads at random (pattern databases), paged in before a search is timed
    tables: Sequence[np.ndarray] = ()
    #: True where ``inf`` is a value: a state from which no solution exists (a dead Sokoban
    #: state); elsewhere a non-finite value is an error (:func:`checked_values`)
    infinite_ok: bool = False

    @abstractmethod
    def __call__(self, states: np.ndarray) -> np.ndarray:
        """Values for a batch ``(B, L) -> (B,)``: integers for admissible tables, float32 otherwise."""

    def ida_spec(self) -> IdaSpec | None:
        """Per-state evaluation data for the Numba IDA* kernels, or ``None`` (IDA* refuses)."""
        return None


def checked_values(heuristic: Heuristic, states: np.ndarray) -> np.ndarray:
    """``heuristic(states)`` for a batch ``(B, L)``, checked: one value per state, each a number
    (NaN, ``-inf``, and ``inf`` from a heuristic without ``infinite_ok``, are an ``InputError``
    naming the heuristic: an estimate that is not a number would steer a search, or a quality
    figure, without a word). The values keep their type (integers stay integers)."""
    from core.errors import InputError

    name = heuristic.name
    n = len(states)
    values = np.asarray(heuristic(states))
    if values.shape != (n,) and not (values.ndim == 2 and values.shape == (n, 1)):
        raise InputError(f"--heuristic: {name} gave {values.size} values of shape "
                         f"{tuple(values.shape)} for {n} states; a heuristic gives one value "
                         "per state")
    values = values.reshape(n)
    if values.dtype.kind not in "iubf":
        raise InputError(f"--heuristic: {name} gave values of type {values.dtype}, not numbers")
    if values.dtype.kind == "f":
        bad = np.isnan(values) | (values == -np.inf)
        if not heuristic.infinite_ok:
            bad |= values == np.inf
        if bad.any():
            first = float(values[np.flatnonzero(bad)[0]])
            raise InputError(f"--heuristic: {name} gave {first} for {int(bad.sum())} of {n} "
                             "states; a heuristic's value is a finite number")
    return values
