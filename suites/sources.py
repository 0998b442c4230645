"""Instance sources: turning one instance set of a suite into start states.

``file``       a published list shipped under ``suites/instances/`` (formats ``tiles``,
               ``maneuver``, ``vcube``, ``states``; see ``_parse_file``)
``scramble``   seeded random walks (``depth`` a list, ``count`` per depth, ``seed``)
``uniform``    states drawn uniformly (``count``, ``seed``), e.g. 15-puzzle random instances
``deepcubea``  DeepCubeA's test set for the puzzle, from ``bench suite import-deepcubea`` output
               or ``../shared/data/deepcubea``; ``fallback`` names the set used when absent

``load_instances`` returns the states (arrays of shape ``(L,)``) with their reference optimal
lengths (``suites.reference``; ``None`` where none is known: never guessed) and certified lower
bounds (``meta["lower_bound"]``, ``meta["lower_bound_from"]``: ``suites.reference.lower_bounds``);
``compute_optimal=False`` computes neither.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core import registry, safe_write
from core.errors import InputError
from core.paths import cache_dir, deepcubea_dir, display_path
from puzzles.base import Puzzle
from suites.reference import set_lower_bounds, set_optimal
from suites.schema import INSTANCES_DIR, Instance, InstanceSet, InstanceSetSpec, Suite


# --------------------------------------------------------------------------- instance files
def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path.name}: cannot read: {exc.strerror or exc}") from None


def _data_lines(path: Path) -> Iterable[tuple[int, str]]:
    for lineno, line in enumerate(_read_text(path).splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield lineno, line


def header_comment(path: Path) -> str:
    """The leading ``#`` lines of an instance file (its citation)."""
    out = []
    for line in _read_text(path).splitlines():
        if not line.startswith("#"):
            break
        out.append(line[1:].strip())
    return " ".join(out)


_FACE_RE = re.compile(r"([URFDLB])([123]|2|'|-)?")


def maneuver_quarter_turns(text: str) -> list[tuple[str, int]]:
    """Parse a cube maneuver in any of the shipped notations into ``(face, quarter turns)``.

    ``X``/``X1`` clockwise, ``X'``/``X-``/``X3`` counter-clockwise (3 quarter turns), ``X2`` half.
    """
    out: list[tuple[str, int]] = []
    pos = 0
    compact = text.replace(" ", "")
    while pos < len(compact):
        m = _FACE_RE.match(compact, pos)
        if not m:
            raise InputError(f"maneuver: cannot read {compact[pos:pos + 8]!r}")
        face, suffix = m.group(1), m.group(2)
        turns = {None: 1, "1": 1, "2": 2, "3": 3, "'": 3, "-": 3}[suffix]
        out.append((face, turns))
        pos = m.end()
    return out


def maneuver_text(turns: Sequence[tuple[str, int]], metric: str) -> str:
    """Write ``(face, quarter turns)`` in Singmaster notation for ``metric`` ``qtm``/``htm``.

    In the quarter-turn metric a half turn is written as two quarter turns.
    """
    words = []
    for face, q in turns:
        if q == 1:
            words.append(face)
        elif q == 3:
            words.append(face + "'")
        elif metric == "qtm":
            words += [face, face]
        else:
            words.append(face + "2")
    return " ".join(words)


#: the largest optimal length an instance file may state (tables store lengths as int32)
MAX_OPTIMAL = 2**31 - 1

#: what one line of each instance file format holds (for error messages)
LINE_FORMS = {"tiles": "expected: id optimal tile tile ...",
              "maneuver": "expected: id [optimal] maneuver",
              "vcube": "expected: id optimal | scramble | solution",
              "states": "expected: id optimal state"}


def _parse_file(spec: InstanceSetSpec, puzzle: Puzzle, path: Path) -> list[Instance]:
    """Read one instance file.

    ``tiles``:    ``id optimal t0 .. tN`` (tile at each position, 0 = blank)
    ``maneuver``: ``id maneuver`` or ``id optimal maneuver`` (from the solved cube); with
                  ``rotations = true`` each maneuver gives its distinct conjugates under the 24
                  whole-cube rotations, ids ``ID`` and ``ID-ROTATION`` (``_conjugates``)
    ``vcube``:    ``id optimal | scramble | solution``
    ``states``:   ``id optimal state`` (the puzzle's own text format; ``-`` = unknown optimal)
    """
    out: list[Instance] = []
    seen: set[bytes] = set()  # the states of the conjugates so far (rotations = true)
    metric = "htm" if puzzle.num_actions in (9, 18) else "qtm"
    for lineno, line in _data_lines(path):
        where = f"{path.name}:{lineno}"
        parts = line.split()
        try:
            if spec.format == "tiles":
                iid, opt, tiles = parts[0], int(parts[1]), parts[2:]
                state = puzzle.parse(" ".join(tiles))
                meta: dict[str, Any] = {}
            elif spec.format == "maneuver":
                iid = parts[0]
                if len(parts) > 1 and parts[1].isascii() and parts[1].isdigit():
                    opt_: int | None = int(parts[1])
                    moves = " ".join(parts[2:])
                else:
                    opt_, moves = None, " ".join(parts[1:])
                if spec.rotations:  # the conjugates under the 24 whole-cube rotations
                    out += _conjugates(spec, puzzle, iid, opt_, moves, metric, seen)
                    continue
                state = puzzle.from_moves(puzzle.parse_moves(
                    maneuver_text(maneuver_quarter_turns(moves), metric)))
                meta = {"scramble": moves}
            elif spec.format == "vcube":
                head, scramble, solution = (x.strip() for x in line.split("|"))
                iid, opt_s = head.split()
                opt_ = int(opt_s)
                state = puzzle.from_moves(puzzle.parse_moves(
                    maneuver_text(maneuver_quarter_turns(scramble), metric)))
                meta = {"scramble": scramble, "published_solution": solution}
            else:  # states
                iid, opt_s, text = line.split(maxsplit=2)
                opt_ = None if opt_s == "-" else int(opt_s)
                state = puzzle.parse(text)
                meta = {}
        except (InputError, ValueError, IndexError, OverflowError):
            # the line's text is not repeated: an instance file may hold anything
            raise InputError(f"{where}: not a {spec.format} instance line "
                             f"({LINE_FORMS.get(str(spec.format), 'see suites/README.md')})"
                             ) from None
        if spec.format == "tiles":
            opt_ = opt
        if opt_ is not None and not 0 <= opt_ <= MAX_OPTIMAL:
            raise InputError(f"{where}: optimal length {opt_:.6g} is not a move count in "
                             f"[0, {MAX_OPTIMAL}]")
        if spec.optimal != "file":
            opt_ = None
        out.append(Instance(spec.name, iid, np.asarray(state, dtype=puzzle.dtype), opt_, meta))
    return out


def _conjugates(spec: InstanceSetSpec, puzzle: Puzzle, iid: str, optimal: int | None,
                moves: str, metric: str, seen: set[bytes]) -> list[Instance]:
    """The states of ``moves`` conjugated by each whole-cube rotation (``puzzles.cube.rotations``:
    faces relabelled, directions kept, so the distance is the same), skipping states already in
    ``seen``: id ``iid`` for the maneuver itself, ``iid-ROTATION`` (e.g. ``1-x``) for the others."""
    from puzzles.cube.rotations import conjugates

    out = []
    for name, turns in conjugates(maneuver_quarter_turns(moves)):
        text = maneuver_text(turns, metric)
        state = np.asarray(puzzle.from_moves(puzzle.parse_moves(text)), dtype=puzzle.dtype)
        key = state.tobytes()
        if key in seen:
            continue
        seen.add(key)
        meta: dict[str, Any] = {"scramble": text if name else moves}
        if name:
            meta.update(rotation=name, conjugate_of=iid)
        out.append(Instance(spec.name, f"{iid}-{name}" if name else iid, state,
                            optimal if spec.optimal == "file" else None, meta))
    return out


def write_states_file(path: Path, puzzle: Puzzle, instances: Sequence[Instance], header: str) -> None:
    """Write instances in the ``states`` format (``id optimal state``), with a ``#`` header."""
    lines = [f"# {h}" for h in header.splitlines()]
    lines.append("# Columns: id optimal_length state (- = optimal length not known)")
    for inst in instances:
        opt = "-" if inst.optimal is None else str(inst.optimal)
        lines.append(f"{inst.id} {opt} {puzzle.format(inst.state)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    safe_write.write_text(path, "\n".join(lines) + "\n", arg="--out")


# --------------------------------------------------------------------------- DeepCubeA
def imported_dir() -> Path:
    """Where ``bench suite import-deepcubea`` writes converted test sets."""
    return cache_dir() / "instances" / "deepcubea"


def deepcubea_states(puzzle: Puzzle, kind: str, raw: np.ndarray) -> np.ndarray:
    """Convert DeepCubeA's raw state arrays ``(n, L')`` into ours ``(n, L)``.

    Uses the puzzle's ``from_deepcubea`` (method, or function in the puzzle's module) when it
    has one; sliding tiles and Lights Out store the same lists we parse (blank-last tiles; 0/1).
    """
    conv = getattr(puzzle, "from_deepcubea", None)
    if conv is None:
        import importlib

        module = importlib.import_module(type(puzzle).__module__)
        names = sorted(n for n in dir(module) if n.startswith("from_deepcubea"))
        wanted = {"cube3": ("cube",), "npuzzle": ("tiles",), "lights": ("lights",),
                  "lightsout": ("lights",)}.get(kind, ())
        names = [n for n in names if n == "from_deepcubea" or any(w in n[14:] for w in wanted)]
        conv = getattr(module, names[0]) if names else None
    if conv is not None:
        return np.asarray(conv(raw), dtype=puzzle.dtype)
    if kind == "cube3":
        raise InputError(f"{puzzle.name}: no converter from DeepCubeA's cube encoding "
                         "(puzzles.cube.from_deepcubea)")
    return np.stack([puzzle.parse(" ".join(str(int(v)) for v in row)) for row in raw])


#: how rows and tables name the optimal lengths read from DeepCubeA's test pickles
DEEPCUBEA_OPTIMAL = "DeepCubeA's optimal solver"
#: the header line of an imported states file whose optimal column holds those lengths
_OPTIMAL_HEADER = f"Optimal lengths: {DEEPCUBEA_OPTIMAL} (solutions from the test set, replayed)."


def deepcubea_actions(puzzle: Puzzle, kind: str, solution: Sequence[Any]) -> list[int] | None:
    """One of DeepCubeA's published solutions as ``puzzle``'s actions, or ``None`` where its length
    is not an optimum of ``puzzle`` (another metric than their quarter turns, another goal layout
    than their blank-last tiles, a kind without published optima)."""
    if kind == "cube3":
        from puzzles.cube import deepcubea_moves

        return deepcubea_moves(solution) if puzzle.num_actions == 12 else None
    if kind == "npuzzle":
        from puzzles.npuzzle import deepcubea_tile_moves

        if puzzle.layout != "blank-last":
            return None
        return deepcubea_tile_moves(solution)
    return None


def deepcubea_optima(puzzle: Puzzle, kind: str, states: np.ndarray,
                     solutions: Sequence[Sequence[Any]] | None, where: str) -> list[int] | None:
    """The lengths of DeepCubeA's optimal solutions of ``states`` (our encoding, in the test set's
    order), each replayed on its state first; ``None`` where the set publishes none or they do not
    apply to ``puzzle`` (``deepcubea_actions``). A solution that is not legal or does not reach
    the goal refuses the whole set (``InputError`` naming the state): a reference is never taken
    on trust."""
    if solutions is None or len(states) == 0:
        return None
    if len(solutions) < len(states):
        raise InputError(f"{where}: {len(solutions)} optimal solutions for {len(states)} states; "
                         "the references are refused")
    out: list[int] = []
    for i, state in enumerate(states):
        try:
            actions = deepcubea_actions(puzzle, kind, solutions[i])
        except InputError as exc:
            raise InputError(f"{where}: state {i}: optimal solution unreadable ({exc}); "
                             "the references are refused") from None
        if actions is None:
            return None
        if not puzzle.check_solution(state, actions):
            raise InputError(f"{where}: state {i}: the published optimal solution "
                             f"({len(actions)} moves) does not reach the goal; the references "
                             "are refused")
        out.append(len(actions))
    return out


def import_deepcubea(src: Path, puzzle_name: str, dest: Path | None = None) -> Path:
    """Convert DeepCubeA test set ``src`` (a ``test_data_*.pkl`` or its folder) to a states file."""
    from suites.importers.deepcubea import load_results, load_test_set

    if src.is_dir():
        src = src / "test_data_0.pkl"
    ts = load_test_set(src)
    goal = "blank-last" if registry.puzzle_entry(puzzle_name).props.goal_layouts else None
    puzzle = registry.get_puzzle(puzzle_name, goal=goal)
    states = deepcubea_states(puzzle, ts.kind, ts.states)
    if states.shape[1] != puzzle.state_dim:
        raise InputError(f"{src}: states have {states.shape[1]} entries, {puzzle_name} needs "
                         f"{puzzle.state_dim}")
    for i, s in enumerate(states):
        try:
            puzzle.validate(s)
        except InputError as exc:
            raise InputError(f"{src}: state {i}: {exc}") from None
    optima = deepcubea_optima(puzzle, ts.kind, states, ts.solutions, src.name)
    instances = [Instance("deepcubea", str(i), s, None if optima is None else optima[i])
                 for i, s in enumerate(states)]
    dest = dest or imported_dir() / f"{puzzle_name}.txt"
    header = (f"DeepCubeA test set for {puzzle_name} (Agostinelli et al. 2019), converted from {src.name}."
              f"\nGoal: {goal or 'the solved state'}."
              + (f"\n{_OPTIMAL_HEADER}" if optima is not None else ""))
    write_states_file(dest, puzzle, instances, header)
    results = src.parent / "deepcubea_results_output.txt"
    if results.is_file():
        rows = load_results(results)
        safe_write.write_text(
            dest.with_suffix(".lengths"), "".join(f"{r['index']} {r['moves']} {r['nodes_generated']} {r['time_s']}\n" for r in rows),
            arg="--out")
    return dest


def deepcubea_source(puzzle_name: str) -> Path | None:
    """An imported states file for ``puzzle_name``, or the shared pickle, or None."""
    imported = imported_dir() / f"{puzzle_name}.txt"
    if imported.is_file():
        return imported
    shared = deepcubea_dir() / puzzle_name / "test_data_0.pkl"
    if shared.is_file():
        return shared
    return None


def deepcubea_instances(puzzle: Puzzle, src: Path, set_name: str = "deepcubea",
                        limit: int | None = None) -> list[Instance]:
    """The first ``limit`` of DeepCubeA's test states from ``src`` (the shared pickle or an
    imported states file: ``deepcubea_source``), with DeepCubeA's own lengths and node counts
    (``published_length``, ``published_nodes``) where its results file has them, and the nodes
    and seconds of the optimal solver that made the pickle's solutions (``solver_nodes``,
    ``solver_s``) where the pickle has them."""
    if src.suffix == ".pkl":
        from suites.importers.deepcubea import load_results, load_test_set

        ts = load_test_set(src)
        n = len(ts.states) if limit is None else min(limit, len(ts.states))
        states = deepcubea_states(puzzle, ts.kind, ts.states[:n])
        optima = deepcubea_optima(puzzle, ts.kind, states, ts.solutions, src.name)
        instances = [Instance(set_name, str(i), s, None if optima is None else optima[i],
                              {} if optima is None else {"optimal_source": DEEPCUBEA_OPTIMAL})
                     for i, s in enumerate(states)]
        if optima is not None and ts.nodes_generated is not None and ts.times is not None:
            for i, inst in enumerate(instances):
                inst.meta["solver_nodes"] = int(ts.nodes_generated[i])
                inst.meta["solver_s"] = float(ts.times[i])
        res = src.parent / "deepcubea_results_output.txt"
        if res.is_file():
            for row in load_results(res):
                if row["index"] < n:
                    instances[row["index"]].meta["published_length"] = row["moves"]
                    instances[row["index"]].meta["published_nodes"] = row["nodes_generated"]
    else:
        fspec = InstanceSetSpec(name=set_name, source="file", format="states", optimal="file")
        instances = _parse_file(fspec, puzzle, src)[:limit]
        if _OPTIMAL_HEADER in header_comment(src):
            for inst in instances:
                if inst.optimal is not None:
                    inst.meta["optimal_source"] = DEEPCUBEA_OPTIMAL
        lengths = src.with_suffix(".lengths")
        if lengths.is_file():
            pub = {p[0]: p for p in (ln.split() for ln in lengths.read_text().splitlines()) if p}
            for inst in instances:
                if inst.id in pub:
                    inst.meta["published_length"] = int(pub[inst.id][1])
                    inst.meta["published_nodes"] = int(pub[inst.id][2])
    return instances


# --------------------------------------------------------------------------- loading sets
def make_puzzle(suite: Suite, spec: InstanceSetSpec) -> Puzzle:
    return registry.get_puzzle(suite.puzzle, goal=spec.goal)


def load_instances(suite: Suite, set_name: str, limit: int | None = None,
                   compute_optimal: bool = True) -> InstanceSet:
    """Materialize instance set ``set_name`` of ``suite`` (the first ``limit`` instances)."""
    spec = suite.instance_sets[set_name]
    puzzle = make_puzzle(suite, spec)
    if spec.source == "deepcubea":
        src = deepcubea_source(suite.puzzle)
        if src is None:
            if spec.fallback is None:
                raise InputError(f"{suite.path.name}: instance set {set_name}: DeepCubeA test set "
                                 f"for {suite.puzzle} not found (bench suite import-deepcubea PATH)")
            fb = load_instances(suite, spec.fallback, limit, compute_optimal)
            fb.origin += f" (fallback for {set_name}: DeepCubeA data absent)"
            return fb
        if spec.solver_nodes_below is None:
            first = limit if spec.count is None else \
                spec.count if limit is None else min(limit, spec.count)
            instances = deepcubea_instances(puzzle, src, set_name, first)
            origin = display_path(src)
        else:  # the first `count`, those the reference solver took under that many nodes
            below = spec.solver_nodes_below
            instances = [i for i in deepcubea_instances(puzzle, src, set_name, spec.count)
                         if i.meta.get("solver_nodes", below) < below][:limit]
            origin = (f"{display_path(src)} (of the first {spec.count}: reference solver under "
                      f"{below:.3g} nodes)")
    elif spec.source == "file":
        path = spec.file if spec.file is not None else INSTANCES_DIR / str(spec.path)
        instances = _parse_file(spec, puzzle, path)[:limit]
        origin = display_path(path)
    elif spec.source == "scramble":
        instances = []
        count = int(spec.count or 0)
        per = count if limit is None else min(count, max(1, -(-limit // len(spec.depth))))
        for depth in spec.depth:
            rng = np.random.default_rng([spec.seed, depth])
            states, moves = puzzle.scramble(count, depth, rng)
            for i in range(per):
                instances.append(Instance(set_name, f"d{depth}-{i}", states[i], None,
                                          {"depth": depth,
                                           "scramble": puzzle.format_moves(moves[i])}))
        instances = instances[:limit]
        origin = f"scramble(depth={list(spec.depth)}, count={count}, seed={spec.seed})"
    else:  # uniform
        rng = np.random.default_rng(spec.seed)
        count = int(spec.count or 0)
        states = puzzle.random_states(count, rng)
        n = count if limit is None else min(limit, count)
        instances = [Instance(set_name, str(i), states[i], None) for i in range(n)]
        origin = f"uniform(count={count}, seed={spec.seed})"
    if compute_optimal:
        set_optimal(puzzle, spec, instances)
        set_lower_bounds(puzzle, instances)
    return InstanceSet(spec, suite.puzzle, spec.goal, instances, origin)


# --------------------------------------------------------------------------- references by state
@functools.cache
def published_optima(puzzle_name: str, goal: str | None) -> dict[str, tuple[int, str]]:
    """``{state text: (optimal length, source)}`` of every published reference optimum of
    ``puzzle_name`` (with tiles' ``goal`` layout) that ``../shared`` holds, read once per process:
    DeepCubeA's optimal solutions, replayed. A state's text is its values joined by spaces (the
    rows' ``state`` column). Empty where none is published or the data is absent; rows made
    before references were read get theirs from here (``bench.report.with_reference_optima``)."""
    found: dict[str, tuple[int, str]] = {}
    src = deepcubea_source(puzzle_name)
    if src is not None and puzzle_name in registry.PUZZLES:
        puzzle = registry.get_puzzle(puzzle_name, goal=goal)
        for inst in deepcubea_instances(puzzle, src):
            if inst.optimal is not None:
                text = " ".join(str(int(v)) for v in inst.state)
                found[text] = (inst.optimal, inst.meta.get("optimal_source", "DeepCubeA"))
    return found
