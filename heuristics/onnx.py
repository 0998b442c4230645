"""Networks from other frameworks as heuristics: an ONNX file evaluated by onnxruntime on the CPU.

``load_onnx(puzzle, model="FILE.onnx")`` (``--heuristic onnx --model FILE.onnx``) reads the
model and its *card*, a small JSON file beside it (``FILE.card.json``), and returns the guide its
card's ``output`` names: a value network (:class:`OnnxHeuristic`), a Q-network
(:class:`OnnxQNet`, a heuristic that is also a :class:`core.capabilities.QValues`) or a policy
(:class:`OnnxPolicy`, a :class:`heuristics.base.PolicyGuide`, not a heuristic)::

    {"puzzle": "cube3",                  # the puzzle name the network was trained for
     "encoding": "onehot-stickers",      # how states become the network's input (below)
     "input": "codes",                   # "codes": (B, L) integers; "one-hot": (B, L*symbols)
     "symbols": 6,                       # one-hot width per position (required for "one-hot")
     "output": "value",                  # "value": (B,) or (B, 1) cost-to-go estimates;
                                         # "policy": (B, A) move logits (beam search only)
     "search": {"solver": "beam", "width": 16384},   # the recommended search and its options
     "goal_tolerance": 1.0,              # optional: how near 0 the goal's estimate must be
     "target": "diffusion"}              # optional: what the network was trained on (rows'
                                         # model_target)

Encodings: the puzzle's own (``Puzzle.encoding_name``, the codes of ``Puzzle.encode``), the
imported networks' adapters (``deepcubea-cube3``: DeepCubeA's sticker order and colours;
``deepcubea-tiles``, ``deepcubea-lights``), ``state`` (the raw state), or an encoding an installed
plugin declares under ``heuristic_bench.encodings`` (``core.plugins``). The input's element type
is the model's (integers or floats).

Checked on load, each fault one ``InputError`` line naming ``--model``: the card (at most
``MAX_CARD_BYTES``; ``symbols`` at most ``MAX_SYMBOLS`` and above every code) is complete
and fits the puzzle, the model has one input of width ``L`` (or ``L * symbols``) with a free
batch dimension and one output of the card's kind (``A`` = the puzzle's moves for a policy and
a Q-network), and the estimate of the goal is within ``goal_tolerance`` (default 1) of zero;
every pass's output is numbers of the card's shape (one per state, or one per move and state).
Values are float32, clipped at 0, with 0 on the goal, as the ``davi`` heuristic's. A card of
output ``q`` (a Q-network) gives ``q_values`` as the ``qnet`` heuristic does, and its least move
value as the value; the Q searches (``qstar``, ``qbeam``) take only such a card. Passes are
``chunk`` states
(default 4,096); onnxruntime runs with torch's thread count when torch is loaded (the suite
runner sets it per worker), else ``OMP_NUM_THREADS``, else its own default.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from core import registry
from core.errors import InputError
from heuristics.base import Heuristic, PolicyGuide
from puzzles.base import Puzzle

CARD_SUFFIX = ".card.json"
CARD_KEYS = ("puzzle", "encoding", "input", "output", "search")
INPUTS = ("codes", "one-hot")
OUTPUTS = ("value", "policy", "q")
#: encodings of imported networks (``learning.adapters``)
ADAPTER_ENCODINGS = ("deepcubea-cube3", "deepcubea-tiles", "deepcubea-lights")
#: the solvers a card may recommend (a policy: beam only)
SEARCH_SOLVERS = ("beam", "bwas", "greedy", "astar", "qbeam", "qstar")
DEFAULT_CHUNK = 4096
#: the largest card file read (a card is a few lines of JSON)
MAX_CARD_BYTES = 1 << 20
#: the largest one-hot width per position a card may declare (the puzzles' codes take at most
#: a few hundred values; a one-hot pass allocates states x positions x symbols)
MAX_SYMBOLS = 4096
#: the most bytes one pass's one-hot input may take (passes of fewer states when wider)
ONEHOT_PASS_BYTES = 64 << 20
_DTYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(uint8)": np.uint8,
           "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(float)": np.float32,
           "tensor(double)": np.float64}


def card_path(model: Path) -> Path:
    """The card beside ``model``: ``NAME.onnx`` -> ``NAME.card.json``."""
    return model.with_name(model.name.removesuffix(".onnx") + CARD_SUFFIX)


def resolve_onnx(model: str | os.PathLike[str] | None) -> Path:
    """The ONNX file ``model`` names: a ``.onnx`` file, or a folder holding one."""
    if model is None:
        raise InputError("--model: the onnx heuristic needs --model FILE.onnx (bench models "
                         "export NAME --format onnx --out DIR writes one)")
    path = Path(model).expanduser()
    if path.is_dir():
        files = sorted(path.glob("*.onnx"))
        if len(files) != 1:
            raise InputError(f"--model: folder {path} holds {len(files)} .onnx files; name one")
        path = files[0]
    if not path.is_file():
        raise InputError(f"--model: {path}: no such ONNX file")
    if path.suffix != ".onnx":
        raise InputError(f"--model: {path} is not an .onnx file")
    return path


def external_data(path: Path) -> list[Path]:
    """The files beside ``path`` that hold its tensors' external data (``NAME.onnx.data``: the
    weights of a model saved with ``save_as_external_data``), each once, in order."""
    try:
        import onnx
        from onnx.external_data_helper import ExternalDataInfo, uses_external_data
    except ImportError:
        return []
    try:
        proto = onnx.load(str(path), load_external_data=False)
    except Exception:  # noqa: BLE001 - not a model: loading it says why
        return []
    tensors = list(proto.graph.initializer)
    try:
        from onnx.external_data_helper import _get_all_tensors

        tensors = list(_get_all_tensors(proto))  # with those of subgraphs and Constant nodes
    except ImportError:
        pass
    out: list[Path] = []
    for t in tensors:
        if uses_external_data(t):
            f = path.parent / ExternalDataInfo(t).location
            if f not in out:
                out.append(f)
    return out


def model_files(puzzle_name: str, model: str | os.PathLike[str] | None) -> list[Path]:
    """The files an ONNX heuristic loads, for a row's model digest: the network, the files of
    its external data (weights kept beside it) and its card (the encoding and goal tolerance it
    reads)."""
    path = resolve_onnx(model)
    card = card_path(path)
    return [path, *external_data(path), *([card] if card.is_file() else [])]


def read_card(model: Path, puzzle_name: str | None = None) -> dict[str, Any]:
    """The card of ``model``, checked (and for ``puzzle_name``, when given)."""
    path = card_path(model)
    if not path.is_file():
        raise InputError(f"--model: {model} has no card ({path.name} beside it: puzzle, "
                         "encoding, input, output, search)")
    try:
        size = path.stat().st_size
        if size > MAX_CARD_BYTES:
            raise InputError(f"--model: card {path} is {size:,} bytes; a card is a few lines "
                             f"(at most {MAX_CARD_BYTES:,} bytes)")
        card = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise InputError(f"--model: card {path} is not JSON ({' '.join(str(exc).split())})"
                         ) from None
    except RecursionError:
        raise InputError(f"--model: card {path} nests arrays or objects too deeply for a card"
                         ) from None
    if not isinstance(card, dict):
        raise InputError(f"--model: card {path} is not a JSON object")
    missing = [k for k in CARD_KEYS if k not in card]
    if missing:
        raise InputError(f"--model: card {path} lacks {', '.join(missing)}")
    for key, allowed in (("input", INPUTS), ("output", OUTPUTS)):
        if card[key] not in allowed:
            raise InputError(f"--model: card {path}: {key} must be "
                             f"{', '.join(allowed[:-1])} or {allowed[-1]}, "
                             f"got {card[key]!r}")
    if not isinstance(card["puzzle"], str) or not isinstance(card["encoding"], str):
        raise InputError(f"--model: card {path}: puzzle and encoding must be names")
    if "target" in card and not (isinstance(card["target"], str) and card["target"]):
        raise InputError(f"--model: card {path}: target must name what the network was trained "
                         f"on, got {card['target']!r}")
    if card["input"] == "one-hot":
        sym = card.get("symbols")
        if isinstance(sym, bool) or not isinstance(sym, int) or not 1 <= sym <= MAX_SYMBOLS:
            raise InputError(f"--model: card {path}: a one-hot input needs symbols (the one-hot "
                             f"width per position, an integer in [1, {MAX_SYMBOLS}]), got "
                             f"{sym!r:.40}")
    tol = card.get("goal_tolerance", 1.0)
    if isinstance(tol, bool) or not isinstance(tol, int | float) or not tol >= 0:
        raise InputError(f"--model: card {path}: goal_tolerance must be a number >= 0")
    search = card["search"]
    if not isinstance(search, dict) or search.get("solver") not in SEARCH_SOLVERS:
        raise InputError(f"--model: card {path}: search must name a solver of "
                         f"{', '.join(SEARCH_SOLVERS)} with its options")
    if card["output"] == "policy" and search["solver"] != "beam":
        raise InputError(f"--model: card {path}: a policy is searched by beam, not "
                         f"{search['solver']}")
    from core import registry

    if registry.solver_entry(search["solver"]).props.q and card["output"] != "q":
        raise InputError(f"--model: card {path}: {search['solver']} reads a Q-network's move "
                         f"values; this card's output is {card['output']}")

    entry = registry.solver_entry(search["solver"])
    try:
        entry.check_options({k: v for k, v in search.items() if k != "solver"}, "solver")
    except InputError as exc:
        raise InputError(f"--model: card {path}: search: {exc}") from None
    if puzzle_name is not None and card["puzzle"] != puzzle_name:
        raise InputError(f"--model: {model} is a model for {card['puzzle']}, not for "
                         f"{puzzle_name}")
    return card


def recommended_search(puzzle_name: str, model: str | os.PathLike[str] | None) -> dict[str, Any]:
    """The search the card recommends (``core.registry.recommended_search``)."""
    card = read_card(resolve_onnx(model), puzzle_name)
    search = dict(card["search"])
    return {"solver": search.pop("solver"), "solver_args": search, "precision": None,
            "source": "model"}


def encoder(card: dict[str, Any], puzzle: Puzzle) -> Callable[[np.ndarray], np.ndarray]:
    """``states (B, L) -> codes (B, L')`` for the card's encoding on ``puzzle``."""
    name = card["encoding"]
    if name == puzzle.encoding_name or name in ("deepcubea-tiles", "deepcubea-lights"):
        return puzzle.encode
    if name == "state":
        return lambda s: np.atleast_2d(s).astype(np.int64)
    if name == "deepcubea-cube3":
        if not puzzle.name.startswith("cube3"):
            raise InputError(f"--model: encoding deepcubea-cube3 reads a 3x3x3 cube, not "
                             f"{puzzle.name}")
        from learning.adapters import to_deepcubea_cube3

        return to_deepcubea_cube3
    from core import registry

    ep = registry.PLUGINS.encodings.get(name)
    if ep is None:
        known = [puzzle.encoding_name, "state", *ADAPTER_ENCODINGS, *registry.PLUGINS.encodings]
        raise InputError(f"--model: unknown encoding {name!r} for {puzzle.name}; known: "
                         f"{', '.join(known)}")
    from core.plugins import guarded

    fn, why = guarded(f"importing {ep.value}", ep.load)
    if why is not None:
        raise InputError(f"--model: encoding {name!r} of plugin {ep.value} cannot be loaded "
                         f"({why})")
    return lambda s: np.asarray(fn(puzzle, np.atleast_2d(s)))


def _ort_reason(exc: BaseException) -> str:
    """onnxruntime's reason for refusing a model, without its status prefix, the path again
    and the source location: ``Protobuf parsing failed``, ``This is an invalid model. Graph
    output (value) does not exist in the graph``; whole sentences, at most about 300
    characters."""
    text = " ".join(str(exc).split())
    text = text.split(" failed:", 1)[1] if " failed:" in text else \
        re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ", "", text)
    text = re.sub(r"\S+\.(?:cc|h|cpp):\d+ [^(]*\([^)]*\)\s*", "", text).strip()
    if len(text) > 300:  # whole sentences only
        cut = text[:300].rfind(". ")
        text = text[:cut + 1] if cut > 0 else text[:300].rsplit(" ", 1)[0] + " ..."
    return text.rstrip(".") or type(exc).__name__


def _threads() -> int:
    if "torch" in sys.modules:
        return int(sys.modules["torch"].get_num_threads())
    try:
        return max(0, int(os.environ.get("OMP_NUM_THREADS", "0")))
    except ValueError:
        return 0


def _dim(d: Any) -> int | None:
    return d if isinstance(d, int) and not isinstance(d, bool) and d > 0 else None


class OnnxModel:
    """An ONNX network and its card, evaluated by onnxruntime (module docstring): what the value,
    Q and policy guides of this module share. ``output``: the card output the class takes."""

    name = "onnx"
    output = "value"
    puzzle: Puzzle
    load_seconds: float
    network_evaluations: int | None

    def __init__(self, puzzle: Puzzle, model: str | os.PathLike[str] | None = None,
                 device: str = "cpu", chunk: int | None = None) -> None:
        super().__init__(puzzle)  # type: ignore[call-arg]  # the Guide after this mixin
        t0 = time.perf_counter()
        if device not in ("cpu", "auto"):
            raise InputError(f"--device: the onnx heuristic evaluates on the CPU (onnxruntime), "
                             f"got {device!r}")
        if chunk is not None and (isinstance(chunk, bool) or int(chunk) < 1):
            raise InputError(f"chunk: must be a positive integer, got {chunk!r}")
        self.chunk = int(chunk) if chunk is not None else DEFAULT_CHUNK
        self.model_path = resolve_onnx(model)
        self.card = read_card(self.model_path, puzzle.name)
        if self.card["output"] != self.output:
            raise InputError(f"--model: {self.model_path} is a {self.card['output']} network "
                             f"(its card says), not a {self.output} network")
        #: one output per move (a policy's logits, a Q-network's values)
        self._per_move = self.output != "value"
        self.trained_target = self.card.get("target")
        self._encode = encoder(self.card, puzzle)
        self._symbols = int(self.card["symbols"]) if self.card["input"] == "one-hot" else None
        self._session(self.model_path)
        self.network_evaluations = 0
        self._check_goal()
        self.network_evaluations = 0
        self.load_seconds = time.perf_counter() - t0

    # ------------------------------------------------------------------ loading
    def _session(self, path: Path) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise InputError(f"--heuristic onnx: onnxruntime is not installed ({exc}); "
                             "pip install onnxruntime") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(path), sess_options=opts,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own error types
            raise InputError(f"--model: {path} is not a model onnxruntime can load "
                             f"({type(exc).__name__}: {_ort_reason(exc)})") from None
        inputs, outputs = self.session.get_inputs(), self.session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1:
            raise InputError(f"--model: {path} has {len(inputs)} inputs and {len(outputs)} "
                             "outputs; a heuristic's network has one of each")
        x, y = inputs[0], outputs[0]
        self._in_name, self._out_name = x.name, y.name
        if x.type not in _DTYPES:
            raise InputError(f"--model: {path}: input {x.name!r} is a {x.type}; expected "
                             "integers or floats")
        self._dtype = _DTYPES[x.type]
        width = int(np.asarray(self._encode(self.puzzle.example()[None, :])).shape[1])
        if self._symbols is not None:
            width *= self._symbols
        self._width = width
        shape = list(x.shape)
        if len(shape) != 2 or (_dim(shape[1]) is not None and shape[1] != width):
            raise InputError(f"--model: {path}: input shape {shape} does not fit "
                             f"{self.puzzle.name}: expected [batch, {width}] ({self.card['input']} "
                             f"of encoding {self.card['encoding']})")
        if _dim(shape[0]) is not None:
            raise InputError(f"--model: {path}: the batch dimension is fixed at {shape[0]}; "
                             "export the model with a dynamic batch")
        out = list(y.shape)
        if self._per_move:
            ok = len(out) == 2 and _dim(out[1]) in (None, self.puzzle.num_actions)
            want = (f"[batch, {self.puzzle.num_actions}] (one "
                    f"{'value' if self.output == 'q' else 'logit'} per move of "
                    f"{self.puzzle.name})")
        else:
            ok = len(out) == 1 or (len(out) == 2 and _dim(out[1]) in (None, 1))
            want = "[batch] or [batch, 1] (one estimate per state)"
        if not ok:
            raise InputError(f"--model: {path}: output shape {out} does not fit its card's "
                             f"{self.card['output']}: expected {want}")

    def _check_goal(self) -> None:
        try:
            goal = self.puzzle.goal()[None, :]
        except Exception:  # noqa: BLE001 - a puzzle with a set of goals (Sokoban)
            return
        from core.limits import LOAD_EVAL_S, evaluation_deadline

        # within any deadline of the command or task: a network that does not answer is
        # stopped, not waited for
        with evaluation_deadline(LOAD_EVAL_S):
            raw = self.raw_outputs(goal)
        if self._per_move:
            return
        tol = float(self.card.get("goal_tolerance", 1.0))
        if not abs(float(raw[0, 0])) <= tol:
            raise InputError(f"--model: {self.model_path} estimates {self.puzzle.name}'s goal at "
                             f"{float(raw[0, 0]):.3g}, not within {tol:g} of 0 (a wrong encoding "
                             "or puzzle in its card?)")

    # ------------------------------------------------------------------ evaluation
    @property
    def nbytes(self) -> int:
        return sum(f.stat().st_size for f in [self.model_path, *external_data(self.model_path)]
                   if f.is_file())

    def _inputs(self, states: np.ndarray) -> np.ndarray:
        codes = np.asarray(self._encode(states))
        if codes.ndim != 2 or codes.shape[0] != len(states):
            raise InputError(f"--model: encoding {self.card['encoding']!r} gave codes of shape "
                             f"{list(codes.shape)} for {len(states)} states; expected "
                             f"[{len(states)}, width]")
        if self._symbols is not None:
            if codes.size and (not np.issubdtype(codes.dtype, np.integer) or codes.min() < 0
                               or codes.max() >= self._symbols):
                low, high = (codes.min(), codes.max()) if codes.size else (0, 0)
                raise InputError(f"--model: card {card_path(self.model_path)}: symbols "
                                 f"{self._symbols} does not hold the codes of encoding "
                                 f"{self.card['encoding']!r} (they run from {low} to {high}; "
                                 f"a one-hot input needs symbols > {high})")
            onehot = np.zeros((codes.shape[0], codes.shape[1], self._symbols), dtype=self._dtype)
            np.put_along_axis(onehot, codes.astype(np.int64)[..., None], 1, axis=2)
            return onehot.reshape(codes.shape[0], -1)
        return np.ascontiguousarray(codes, dtype=self._dtype)

    def raw_outputs(self, states: np.ndarray) -> np.ndarray:
        """``(B, outputs)`` float32 raw outputs, in passes of ``chunk`` states."""
        states = np.atleast_2d(np.asarray(states))
        if states.ndim != 2 or states.shape[1] != self.puzzle.state_dim:
            raise ValueError(f"states: expected shape (B, {self.puzzle.state_dim}), "
                             f"got {states.shape}")
        n = states.shape[0]
        parts = []
        width = self.puzzle.num_actions if self._per_move else 1
        step = self.chunk
        if self._symbols is not None:  # one-hot passes of at most ONEHOT_PASS_BYTES
            row = self._width * np.dtype(self._dtype).itemsize
            step = max(1, min(step, ONEHOT_PASS_BYTES // max(row, 1)))
        for i in range(0, n, step):
            x = self._inputs(states[i:i + step])
            y = np.asarray(self._run(x))
            if not (np.issubdtype(y.dtype, np.number) or y.dtype == np.bool_):
                raise InputError(f"--model: {self.model_path}: the network's output is of type "
                                 f"{y.dtype}, not numbers")
            per_move = self._per_move
            if y.shape != (len(x), width) and (per_move or y.shape != (len(x),)):
                want = (f"[{len(x)}, {width}] (one value per move)" if per_move
                        else f"[{len(x)}] or [{len(x)}, 1] (one estimate per state)")
                raise InputError(f"--model: {self.model_path}: the network gave an output of "
                                 f"shape {list(y.shape)} for {len(x)} states; its card's "
                                 f"{self.card['output']} needs {want}")
            parts.append(y.reshape(len(x), width).astype(np.float32, copy=False))
        out = np.concatenate(parts) if parts else np.zeros((0, width), np.float32)
        self.network_evaluations = (self.network_evaluations or 0) + n
        finite = np.isfinite(out).all(axis=1)
        if not finite.all():
            raise InputError(f"--model: {self.model_path}: the network gave non-finite values "
                             f"for {int((~finite).sum())} of {n} states")
        return out

    def _run(self, x: np.ndarray) -> Any:
        """The network's output for inputs ``x``; under an evaluation deadline
        (``core.limits.evaluation_deadline``) a pass still running at the deadline is stopped
        (onnxruntime's ``RunOptions.terminate``, set by a timer) and is an ``InputError``."""
        import threading

        import onnxruntime as ort

        from core.limits import deadline

        opts = ort.RunOptions()
        opts.log_severity_level = 4  # the stop is reported here, in one line
        end = deadline()
        timer = None
        if end is not None:
            timer = threading.Timer(max(0.0, end - time.monotonic()),
                                    lambda: setattr(opts, "terminate", True))
            timer.daemon = True
            timer.start()
        try:
            return self.session.run([self._out_name], {self._in_name: x}, opts)[0]
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own error types
            if opts.terminate:
                raise InputError(f"--model: {self.model_path}: the network did not return "
                                 "within the time allowed (its evaluation was stopped)") from None
            raise InputError(f"--model: {self.model_path}: onnxruntime failed on a batch of "
                             f"{len(x)} states ({type(exc).__name__}: {_ort_reason(exc)})"
                             ) from None
        finally:
            if timer is not None:
                timer.cancel()


class OnnxHeuristic(OnnxModel, Heuristic):
    """A value network from an ONNX file: ``(B, L) -> (B,)`` float32 (module docstring)."""

    admissible = False
    consistent = False

    def _values(self, states: np.ndarray) -> np.ndarray:
        return self.raw_outputs(states)[:, 0].copy()

    def __call__(self, states: np.ndarray) -> np.ndarray:
        states = np.atleast_2d(np.asarray(states))
        out = self._values(states)
        if out.size:
            np.maximum(out, 0.0, out=out)
            out[self.puzzle.is_goal(states)] = 0.0
        return out


class OnnxQNet(OnnxHeuristic):
    """A Q-network from an ONNX file (card output ``q``): ``q_values``, and the least move value
    as the value (module docstring)."""

    output = "q"

    def _values(self, states: np.ndarray) -> np.ndarray:
        if not len(states):
            return np.zeros(0, np.float32)
        return self.q_values(states).min(axis=1).astype(np.float32)

    def q_values(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """A Q-network's ``(B, A)`` float64 move values, at least the move's cost; illegal moves
        ``inf`` (as :meth:`heuristics.q_net.QNetHeuristic.q_values`)."""
        states = np.atleast_2d(np.asarray(states))
        q = np.maximum(self.raw_outputs(states).astype(np.float64), 1.0)
        if legal is None:
            legal = self.puzzle.expand(states)[1]
        q[~np.asarray(legal, dtype=bool)] = np.inf
        return q


class OnnxPolicy(OnnxModel, PolicyGuide):
    """A policy from an ONNX file (card output ``policy``): move logits, read by beam search."""

    output = "policy"

    def log_probs(self, states: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """``(B, A)`` float64 log-probabilities of each state's moves over the legal ones
        (illegal: -inf); ``legal`` defaults to the puzzle's ``expand``."""
        states = np.atleast_2d(np.asarray(states))
        logits = self.raw_outputs(states).astype(np.float64)
        if legal is None:
            legal = self.puzzle.expand(states)[1]
        legal = np.asarray(legal, dtype=bool)
        logits[~legal] = -np.inf
        top = logits.max(axis=1, keepdims=True)
        top[~np.isfinite(top)] = 0.0
        shifted = logits - top
        with np.errstate(divide="ignore"):
            return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


#: the guide of each card output
GUIDES: dict[str, type[OnnxHeuristic] | type[OnnxPolicy]] = {
    "value": OnnxHeuristic, "q": OnnxQNet, "policy": OnnxPolicy}


def load_onnx(puzzle: Puzzle, model: str | os.PathLike[str] | None = None,
              device: str | None = None, chunk: int | None = None) -> OnnxHeuristic | OnnxPolicy:
    """The guide an ONNX file's card names (``--heuristic onnx``): a value network, a Q-network
    or a policy."""
    # device: choices and default from the registry's entry, stated once
    device = registry.heuristic_entry("onnx").settings({"device": device}, "heuristic")["device"]
    card = read_card(resolve_onnx(model), puzzle.name)
    return GUIDES[str(card["output"])](puzzle, model, device=device, chunk=chunk)
