"""The heuristic interface.

A heuristic estimates the cost-to-go of states of one puzzle. Every heuristic has a batch
evaluator (``__call__``); heuristics that can be evaluated per state inside a Numba search also
expose ``ida_spec()`` (see ``solvers.ida``), networks return ``None`` there.

A move-prediction network (``ranks_moves = True``, :mod:`heuristics.policy_net`) is a heuristic
of another kind: it gives log-probabilities of a state's moves (``log_probs``) and no distance
estimate; only beam search takes it. Heuristics backed by a network count the states it
evaluated in ``network_evaluations`` (``None`` for heuristics without one).

A Q-network (:class:`QValues`, :mod:`heuristics.q_net`) gives values for every move of a state
from one evaluation of the state: ``q_values(states) -> (B, A)``, the cost of each move plus the
cost-to-go of its child (illegal moves ``inf``); the Q searches (``qstar``, ``qbeam``) read
children's values from it without evaluating the children.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from puzzles.base import Puzzle


@dataclass(frozen=True)
class IdaSpec:
    """What a Numba IDA* kernel needs to evaluate a heuristic per state.

    ``family`` names the kernel family (``"tiles"``, ``"cube"``, ``"lights"``), ``kind`` the
    heuristic within it (e.g. ``"manhattan"``, ``"additive-pdb"``, ``"cube-pdb-max"``), and
    ``arrays`` the tables the kernel reads. ``params`` holds small scalars.
    """

    family: str
    kind: str
    arrays: tuple[np.ndarray, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class QValues(Protocol):
    """Values for every move of a state (module docstring)."""

    def q_values(self, states: np.ndarray) -> np.ndarray:
        """``(B, L) -> (B, A)`` float64: each move's cost plus its child's cost-to-go; illegal
        moves ``inf``."""
        ...


class Heuristic(ABC):
    """Cost-to-go estimate for states of ``puzzle``."""

    name: str
    admissible: bool = False
    consistent: bool = False
    #: True for a policy: ``log_probs(states) -> (B, A)`` and no values (module docstring)
    ranks_moves: bool = False
    #: states a network evaluated since the heuristic was made; None: no network
    network_evaluations: int | None = None
    #: True where ``inf`` is a value: a state from which no solution exists (a dead Sokoban
    #: state); elsewhere a non-finite value is an error (:func:`checked_values`)
    infinite_ok: bool = False
    #: what a learned heuristic's network was trained on (``davi``, ``diffusion``, ``policy``,
    #: as its checkpoint records; an ONNX card's ``target``); None: no network or not known
    trained_target: str | None = None

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        #: seconds spent loading tables / models / compiling kernels (reported apart from search)
        self.load_seconds: float = 0.0

    @abstractmethod
    def __call__(self, states: np.ndarray) -> np.ndarray:
        """Values for a batch ``(B, L) -> (B,)``: integers for admissible tables, float32 otherwise."""

    @property
    def nbytes(self) -> int:
        """Bytes of tables or parameters held in memory."""
        return 0

    def ida_spec(self) -> IdaSpec | None:
        """Per-state evaluation data for the Numba IDA* kernels, or ``None`` (IDA* refuses)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} on {self.puzzle.name}>"


def checked_values(heuristic: Any, states: np.ndarray) -> np.ndarray:
    """``heuristic(states)`` for a batch ``(B, L)``, checked: one value per state, each a number
    (NaN, ``-inf``, and ``inf`` from a heuristic without ``infinite_ok``, are an ``InputError``
    naming the heuristic: an estimate that is not a number would steer a search, or a quality
    figure, without a word). The values keep their type (integers stay integers)."""
    from core.errors import InputError

    name = getattr(heuristic, "name", type(heuristic).__name__)
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
        if not getattr(heuristic, "infinite_ok", False):
            bad |= values == np.inf
        if bad.any():
            first = float(values[np.flatnonzero(bad)[0]])
            raise InputError(f"--heuristic: {name} gave {first} for {int(bad.sum())} of {n} "
                             "states; a heuristic's value is a finite number")
    return values
