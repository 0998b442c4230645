"""The typed properties of registry entries, one frozen dataclass per kind.

Every declaration (``puzzles/declarations.py``, ``heuristics/declarations.py``,
``solvers/declarations.py``, a plugin's) gives its entry one of them; plugins may give a plain
dict, which :func:`from_dict` converts (an unknown key is a one-line error).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from core.pdb_decls import PdbDecl

#: which puzzles an entry serves: ``"*"``, a name, a ``"prefix*"``, or a tuple of them
PuzzleSpec = str | tuple[str, ...]


@dataclass(frozen=True)
class TrainDefaults:
    """A puzzle's training defaults (``bench train`` without the options): ``k_max``, the
    longest walk from the goal; ``epsilon``, the loss below which DAVI updates its target
    network; ``check_every``, the iterations between checks. DeepCubeA's values for the puzzles
    of its paper; for the small puzzles (cube2, puzzle8) a K above the diameter and a smaller C,
    since they converge in thousands of iterations."""

    k_max: int = 30
    epsilon: float = 1.0
    check_every: int = 1000


@dataclass(frozen=True)
class DeepCubeANet:
    """How DeepCubeA's published network for a puzzle reads it: ``adapter``, the input adapter
    that turns our states into its input (:mod:`learning.adapters`); ``goal_layout``, the goal
    layout its values are relative to (empty: the puzzle's one goal)."""

    adapter: str
    goal_layout: str = ""


@dataclass(frozen=True)
class PuzzleProps:
    """A puzzle's properties. ``family``: what kernels and tables it shares (``cube``,
    ``tiles``, ...; a plugin's defaults to its name); ``goal_layouts``: takes ``--goal``;
    ``bounds``: the admissible heuristics of a row's certified lower bound, strongest first
    (``core.pdb_decls`` lists them); ``search_heuristic``: the admissible heuristic an optimal
    solver (IDA*, A*) runs with when none is given, where it is not the first of ``bounds`` (the
    one with the fewest IDA* nodes need not have the highest values at random states);
    ``search_heuristic_args``: the options that heuristic runs with there (name, value pairs);
    ``search_heuristic_built``: stronger ones, strongest first: they run with the first whose
    tables (too large to build on first use) are in the cache instead, with its own defaults (``bench solve`` checks the
    cache and says how to build them when they are not); ``beam_width``: the width a beam
    search runs with when none is given (``core.registry.beam_width``; a model may recommend
    its own); ``train``: the training defaults (:class:`TrainDefaults`); ``deepcubea``: how
    DeepCubeA's published network for it reads it (None: DeepCubeA published none,
    ``bench train import-deepcubea`` refuses it)."""

    family: str = ""
    goal_layouts: bool = False
    bounds: tuple[str, ...] = ()
    search_heuristic: str = ""
    search_heuristic_args: tuple[tuple[str, str], ...] = ()
    search_heuristic_built: tuple[str, ...] = ()
    beam_width: int = 1024
    train: TrainDefaults = TrainDefaults()
    deepcubea: DeepCubeANet | None = None


@dataclass(frozen=True)
class WhenOption:
    """A property that depends on an option: it holds exactly when option ``option`` takes
    one of ``values`` (``pdb-coset`` is consistent only with ``probe_inverse`` off). Read it
    through ``core.registry.heuristic_props(entry, options)``, which completes the options with
    their declared defaults; used as a plain truth value it raises, so that no reader takes a
    configuration-dependent property for a constant."""

    option: str
    values: tuple[Any, ...]

    def __call__(self, options: Mapping[str, Any]) -> bool:
        return options.get(self.option) in self.values

    def __bool__(self) -> bool:
        raise TypeError(f"this property depends on option {self.option}: ask "
                        "core.registry.heuristic_props(entry, options)")


@dataclass(frozen=True)
class HeuristicProps:
    """A heuristic's properties (every heuristic evaluates batches of states).

    ``puzzles``: which it serves; ``admissible``: never above the true distance;
    ``consistent``: changes by at most one per unit-cost move (declared only where proven;
    ``tests/test_heuristic_props.py`` checks both; either may be a :class:`WhenOption`, a
    function of the options, resolved by ``core.registry.heuristic_props``); ``exact``: the true distance; ``kernel``: a
    per-state Numba kernel for IDA*; ``needs_pdb``: reads a pattern database, ``pdb`` its
    declaration; ``needs_model``: reads a trained model; ``ranks_moves``: a policy (gives
    log-probabilities of a state's moves, no distance estimate); ``q_values``: a Q-network (gives
    values for every move of a state from one evaluation, what ``qstar`` and ``qbeam`` read;
    :class:`heuristics.base.QValues`; ``None``: its model file says, as an ONNX card does);
    ``recommend``:
    ``"module:function"`` giving a model's recommended search (:func:`default_search`);
    ``default_solver``: the solver when none is given and nothing is recommended (empty: ``ida``,
    or ``bwas`` for a model-backed heuristic), ``default_note`` what ``bench solve`` prints
    when it picks it; ``model_files``: ``"module:function"`` giving the files of the model a
    model-backed heuristic loads (called with the puzzle name and the model; their digest is a
    row's ``model_sha256``); ``aliases``: former names still accepted (the first: the name task
    fingerprints hash, ``core.registry.first_name``)."""

    puzzles: PuzzleSpec = "*"
    admissible: bool | WhenOption = False
    consistent: bool | WhenOption = False
    exact: bool = False
    kernel: bool = False
    needs_pdb: bool = False
    pdb: PdbDecl | None = None
    needs_model: bool = False
    ranks_moves: bool = False
    q_values: bool | None = False
    recommend: str = ""
    default_solver: str = ""
    default_note: str = ""
    model_files: str = ""
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class SolverProps:
    """A solver's properties. ``optimal``: its solutions are optimal with an admissible
    heuristic (``optimal_any_options``: whatever options it is given; ``False``: only with its
    defaults, as A* at weight 1 and batch 1); ``needs_kernel``: IDA*-style, needs a heuristic
    with a per-state kernel; ``puzzles``: which it serves; ``heuristic`` (``False``: a
    table-driven solver that uses none; it runs with ``zero`` and refuses any other);
    ``policy``: takes a policy (the others refuse one); ``q``: reads the values of a state's
    moves from a Q-network and takes only a heuristic declaring ``q_values``."""

    optimal: bool = False
    optimal_any_options: bool = True
    needs_kernel: bool = False
    puzzles: PuzzleSpec = "*"
    heuristic: bool = True
    policy: bool = False
    q: bool = False


#: the property class of each kind of entry
PROPS: dict[str, type[Any]] = {"puzzle": PuzzleProps, "heuristic": HeuristicProps,
                          "solver": SolverProps}
P = TypeVar("P", PuzzleProps, HeuristicProps, SolverProps)


def from_dict(kind: str, given: dict[str, Any]) -> Any:
    """``given`` as ``kind``'s property class; ``ValueError`` naming an unknown key."""
    cls = PROPS[kind]
    known = [f.name for f in fields(cls)]
    unknown = sorted(k for k in given if k not in known)
    if unknown:
        raise ValueError(f"unknown {kind} propert{'ies' if len(unknown) > 1 else 'y'} "
                         f"{', '.join(map(repr, unknown))} (known: {', '.join(known)})")
    if kind == "puzzle":  # the nested records, as plain dicts too
        given = dict(given)
        if isinstance(given.get("train"), dict):
            given["train"] = TrainDefaults(**given["train"])
        if isinstance(given.get("deepcubea"), dict):
            given["deepcubea"] = DeepCubeANet(**given["deepcubea"])
    return cls(**given)
