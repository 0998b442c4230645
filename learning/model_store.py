"""Model files: where a learned heuristic's checkpoint is found (a file, a run folder, a model
name shipped under ``heuristics/models/`` or trained into ``$BENCH_CACHE/models/``) and the search
a model recommends in its ``config.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import InputError
from core.paths import checkout_dir
from learning.devices import check_precision

#: the models shipped with the package (package data of ``heuristics``)
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "heuristics" / "models"


def user_models_dir() -> Path:
    """``$BENCH_CACHE/models``: where ``bench train`` puts runs by default."""
    from core.paths import cache_dir

    return cache_dir() / "models"


def _model_file(folder: Path) -> Path | None:
    for name in ("model.pt", "checkpoint.pt"):
        if (folder / name).is_file():
            return folder / name
    return None


def known_models() -> dict[str, Path]:
    """Model name -> file, shipped models first, then trained runs in the user's cache."""
    out: dict[str, Path] = {}
    for root in (user_models_dir(), SHIPPED_DIR):
        if root.is_dir():
            for d in sorted(root.iterdir()):
                f = _model_file(d) if d.is_dir() else None
                if f is not None:
                    out[d.name] = f
    return out


def resolve_model(puzzle_name: str, model: str | Path | None) -> Path:
    """The checkpoint file ``model`` names (see module docstring); ``InputError`` if none."""
    if model is None:
        f = _model_file(SHIPPED_DIR / puzzle_name)
        if f is None:
            raise InputError(
                f"--model: no shipped model for {puzzle_name}; train one with "
                f"`bench train davi {puzzle_name} --out DIR` and pass --model DIR"
            )
        return f
    path = Path(model).expanduser()
    if not path.is_absolute() and not path.exists() and (checkout_dir() / path).exists():
        path = checkout_dir() / path  # a path inside the checkout, as records name it
    if path.is_file():
        return path
    if path.is_dir():
        f = _model_file(path)
        if f is None:
            raise InputError(f"--model: folder {path} holds no model.pt or checkpoint.pt")
        return f
    for root in (SHIPPED_DIR, user_models_dir()):
        f = _model_file(root / str(model))
        if f is not None:
            return f
    names = ", ".join(known_models()) or "none"
    raise InputError(f"--model: {str(model)!r} is no checkpoint file, run folder or model name "
                     f"(known models: {names})")


#: search options a model's config.json may recommend (``"search"``: solver and its options)
#: the solvers a model may recommend (their options are those the registry declares)
SEARCH_SOLVERS = ("beam", "bwas", "greedy", "astar")


def recommended_search(puzzle_name: str, model: str | Path | None = None) -> dict[str, Any]:
    """The search a model recommends: ``{"solver": ..., "solver_args": {...}, "precision": ...,
    "source": "model" | "default"}``.

    A model folder's ``config.json`` may hold ``"search": {"solver": "beam", "width": 16384,
    "precision": "bfloat16"}``; without one (a user's own model) the answer is beam search at
    the puzzle's default width (``core.registry.beam_width``), in float32."""
    from core import registry

    default = {"solver": "beam", "solver_args": {"width": registry.beam_width(puzzle_name)},
               "precision": "float32", "source": "default"}
    return _declared_search(puzzle_name, resolve_model(puzzle_name, model)) or default


def recommended_policy_search(puzzle_name: str,
                              model: str | Path | None = None) -> dict[str, Any] | None:
    """The search a policy model's ``config.json`` declares (as ``recommended_search``), or None:
    then the policy heuristic's default, beam search at the solver's defaults. A model that
    cannot be found gives None too: loading the heuristic says what is missing."""
    try:
        path = policy_model(puzzle_name, model)
    except InputError:
        return None
    return _declared_search(puzzle_name, path)


def _declared_search(puzzle_name: str, path: Path) -> dict[str, Any] | None:
    """The search declared in the ``config.json`` beside checkpoint ``path``, checked against the
    registry; None where it declares none."""
    import json

    from core import registry

    cfg_path = path.parent / "config.json"
    if not cfg_path.is_file():
        return None
    where = f"--model: {cfg_path}"
    try:
        config = json.loads(cfg_path.read_bytes())
    except (ValueError, OSError, RecursionError) as exc:
        raise InputError(f"{where}: not readable JSON ({type(exc).__name__})") from None
    if not isinstance(config, dict):
        raise InputError(f"{where}: not a JSON object")
    if "search" not in config or config["search"] is None:
        return None
    rec = config["search"]
    if not isinstance(rec, dict):
        raise InputError(f"{where}: search: not a table (expected {{\"solver\": ..., options}})")
    solver = rec.get("solver")
    if not isinstance(solver, str) or solver not in registry.SOLVERS:
        raise InputError(f"{where}: search: unknown solver {solver!r} (a learned heuristic's "
                         f"search is one of {', '.join(SEARCH_SOLVERS)})")
    if solver not in SEARCH_SOLVERS:
        raise InputError(f"{where}: search: solver {solver!r} cannot search with a learned "
                         f"heuristic (one of {', '.join(SEARCH_SOLVERS)})")
    entry = registry.solver_entry(solver)
    if not registry.solver_supports(entry, puzzle_name):
        raise InputError(f"{where}: search: {solver} does not apply to {puzzle_name}")
    precision = check_precision(rec.get("precision", "float32"), f"{where}: search: precision")
    given = {k: v for k, v in rec.items() if k not in ("solver", "precision")}
    try:
        args = entry.check_options(given, "solver")
    except InputError as exc:
        raise InputError(f"{where}: search: {str(exc).removeprefix('--')}") from None
    return {"solver": solver, "solver_args": args, "precision": precision, "source": "model"}


def policy_model(puzzle_name: str, model: str | Path | None) -> Path:
    """The checkpoint ``model`` names; without one, the shipped model ``PUZZLE-policy``."""
    if model is None:
        name = f"{puzzle_name}-policy"
        for f in (SHIPPED_DIR / name / "model.pt", SHIPPED_DIR / name / "checkpoint.pt"):
            if f.is_file():
                return f
        raise InputError(f"--model: no shipped policy model for {puzzle_name}; train one with "
                         f"`bench train policy {puzzle_name} --out DIR` and pass --model DIR")
    return resolve_model(puzzle_name, model)


def q_model(puzzle_name: str, model: str | Path | None) -> Path:
    """The checkpoint ``model`` names; without one, the shipped Q-network ``PUZZLE-q``."""
    if model is None:
        name = f"{puzzle_name}-q"
        for f in (SHIPPED_DIR / name / "model.pt", SHIPPED_DIR / name / "checkpoint.pt"):
            if f.is_file():
                return f
        raise InputError(f"--model: no shipped Q-network for {puzzle_name}; train one with "
                         f"`bench train q-distill {puzzle_name} --out DIR` and pass --model DIR")
    return resolve_model(puzzle_name, model)


def q_model_files(puzzle_name: str, model: str | Path | None) -> list[Path]:
    """The file a Q-network loads, for a row's model digest."""
    return [q_model(puzzle_name, model)]


def value_model_files(puzzle_name: str, model: str | Path | None) -> list[Path]:
    """The file a value network loads (its checkpoint), for a row's model digest."""
    return [resolve_model(puzzle_name, model)]


def policy_model_files(puzzle_name: str, model: str | Path | None) -> list[Path]:
    """The file a policy network loads, for a row's model digest."""
    return [policy_model(puzzle_name, model)]
