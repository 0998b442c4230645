"""The learned heuristic: a trained cost-to-go network evaluated on whole batches of states.

``LearnedHeuristic(puzzle, model=None)`` loads ``model``: a checkpoint file, a training run
folder (its ``model.pt``), or a model name (a folder under ``heuristics/models/`` shipped with
the package, or under ``$BENCH_CACHE/models/``). Without ``model`` it loads the shipped model
named like the puzzle. The values are float32 and not admissible; the goal always gets 0 and
negative outputs are clipped to 0. Evaluation uses the network's inference form
(``FastForward``: batch norm folded, embedding-bag input) in passes of ``chunk`` states (default
4,096 on the CPU, where activations then stay in the cache, and 65,536 on a GPU), in float32 or,
with ``precision="bfloat16"``, with bfloat16 hidden layers (about 3x the float32 rate on CPUs
with AMX; the output layer stays float32). ``device``: ``cpu``, ``cuda`` or ``auto`` (CUDA when
present). The number of torch threads is the caller's to set (``torch.set_num_threads``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from core.errors import InputError
from heuristics.base import Heuristic, IdaSpec
from heuristics.davi.adapters import make_input_fn
from heuristics.davi.checkpoint import check_puzzle, load_checkpoint
from heuristics.davi.model import (
    FastForward,
    ModelConfig,
    ResnetFC,
    infer_chunk,
    num_parameters,
    parameter_bytes,
    resolve_device,
)
from puzzles.base import Puzzle

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "models"


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
    import json

    from core import registry

    path = resolve_model(puzzle_name, model)
    cfg_path = path.parent / "config.json"
    default = {"solver": "beam", "solver_args": {"width": registry.beam_width(puzzle_name)},
               "precision": "float32", "source": "default"}
    if not cfg_path.is_file():
        return default
    where = f"--model: {cfg_path}"
    try:
        config = json.loads(cfg_path.read_bytes())
    except (ValueError, OSError, RecursionError) as exc:
        raise InputError(f"{where}: not readable JSON ({type(exc).__name__})") from None
    if not isinstance(config, dict):
        raise InputError(f"{where}: not a JSON object")
    if "search" not in config or config["search"] is None:
        return default
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
    precision = rec.get("precision", "float32")
    if precision not in ("float32", "bfloat16"):
        raise InputError(f"{where}: search: precision {precision!r} is not float32 or bfloat16")
    given = {k: v for k, v in rec.items() if k not in ("solver", "precision")}
    try:
        args = entry.check_options(given, "solver")
    except InputError as exc:
        raise InputError(f"{where}: search: {str(exc).removeprefix('--')}") from None
    return {"solver": solver, "solver_args": args, "precision": precision, "source": "model"}


class NetworkEvaluator:
    """The network part of a learned heuristic: loading a checkpoint's weights for inference
    (device, chunk size, precision) and raw forward passes ``(B, L) -> (B, outputs)`` float32
    with evaluation counting and a check for non-finite outputs. Shared by ``davi`` and
    ``policy`` (:mod:`heuristics.davi.policy`)."""

    puzzle: Puzzle
    model_path: Path
    network_evaluations: int | None

    def _load_network(self, ckpt: dict[str, Any], puzzle: Puzzle, device: str,
                      chunk: int | None, precision: str) -> None:
        self.device = resolve_device(device)
        if precision not in ("float32", "bfloat16"):
            raise InputError(f"--precision: expected float32 or bfloat16, got {precision!r}")
        self.precision = precision
        if chunk is not None and (isinstance(chunk, bool) or int(chunk) < 1):
            raise InputError(f"chunk: must be a positive integer, got {chunk!r}")
        self.chunk = int(chunk) if chunk is not None else infer_chunk(self.device)
        self.net = ResnetFC(ModelConfig.from_dict(ckpt["model_config"]))
        try:
            self.net.load_state_dict(ckpt["model"])
        except RuntimeError as exc:
            raise InputError(f"--model: {self.model_path}: weights do not fit the recorded network "
                             f"sizes ({str(exc).splitlines()[0]})") from None
        self.net.to(self.device).float().eval()
        self.fast = FastForward(self.net, torch.bfloat16 if precision == "bfloat16" else torch.float32)
        self._input = make_input_fn(ckpt, puzzle)
        self.network_evaluations = 0

    @property
    def nbytes(self) -> int:
        return parameter_bytes(self.net)

    @property
    def num_parameters(self) -> int:
        return num_parameters(self.net)

    def _forward(self, states: np.ndarray, outputs: int) -> tuple[np.ndarray, np.ndarray]:
        """``(states (B, L), out (B, outputs) float32)``: the network's raw outputs, in chunks."""
        states = np.atleast_2d(np.asarray(states))
        if states.ndim != 2 or states.shape[1] != self.puzzle.state_dim:
            raise ValueError(f"states: expected shape (B, {self.puzzle.state_dim}), got {states.shape}")
        n = states.shape[0]
        out = np.empty((n, outputs), dtype=np.float32)
        if n == 0:
            return states, out
        codes = torch.from_numpy(np.ascontiguousarray(self._input(states)))
        with torch.inference_mode():
            for i in range(0, n, self.chunk):
                x = codes[i:i + self.chunk].to(self.device)
                out[i:i + self.chunk] = self.fast(x).reshape(-1, outputs).cpu().numpy()
        self.network_evaluations += n
        finite = np.isfinite(out).all(axis=1)
        if not finite.all():
            raise InputError(f"--model: {self.model_path}: the network gave non-finite values "
                             f"(NaN or inf) for {int((~finite).sum())} of {n} states; "
                             "the model cannot be used")
        return states, out


class LearnedHeuristic(NetworkEvaluator, Heuristic):
    """Cost-to-go network as a batch heuristic (``__call__``: ``(B, L) -> (B,)`` float32)."""

    name = "davi"
    admissible = False
    consistent = False

    def __init__(self, puzzle: Puzzle, model: str | Path | None = None, device: str = "cpu",
                 chunk: int | None = None, precision: str = "float32") -> None:
        super().__init__(puzzle)
        t0 = time.perf_counter()
        self.model_path = resolve_model(puzzle.name, model)
        ckpt = load_checkpoint(self.model_path)
        check_puzzle(ckpt, puzzle, self.model_path)
        self.trained_target: str = ckpt["target"]
        if self.trained_target == "policy":
            raise InputError(f"--model: {self.model_path} is a policy (it ranks moves, gives no "
                             "distance); use it with --heuristic policy --solver beam")
        self.name = "davi" if self.trained_target == "davi" else self.trained_target
        self.info: dict[str, Any] = {
            k: ckpt.get(k) for k in ("target", "iteration", "target_updates", "states_seen",
                                     "metrics", "input_adapter")
        }
        self._load_network(ckpt, puzzle, device, chunk, precision)
        self.load_seconds = time.perf_counter() - t0

    def ida_spec(self) -> IdaSpec | None:
        return None

    def __call__(self, states: np.ndarray) -> np.ndarray:
        states, raw = self._forward(states, 1)
        out = raw[:, 0]
        if out.size == 0:
            return out
        np.maximum(out, 0.0, out=out)
        out[self.puzzle.is_goal(states)] = 0.0
        return out
