"""Every option of a built-in solver or heuristic is stated once, in its registry entry, and that
declaration is the only validator: a value just outside the declared bounds is refused with the
same one line whether it comes from the command line or a class built directly from Python, and
a class built without an option takes the declared default."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from bench.cli import main
from core import registry
from core.errors import InputError
from core.options import Option

#: the configuration each solver is tried in from the command line
SOLVER_ARGV = {
    "qstar": ["puzzle8", "--heuristic", "qnet"],
    "qbeam": ["puzzle8", "--heuristic", "qnet"],
    "macro": ["puzzle8"],
    "lvi": ["puzzle8"],
    "gf2": ["lightsout3"],
}
#: the puzzle each heuristic is built for
HEURISTIC_PUZZLE = {"pdb-korf": "cube3", "pdb-coset": "cube3", "pdb-coset-eo": "cube3",
                    "pdb-coset-eo2ep2": "cube3",
                    "davi-multigoal": "cube2", "value-net": "cube2", "policy": "cube2",
                    "qnet": "cube2", "onnx": "cube2"}


def outside(o: Option) -> list[object]:
    """Values just outside ``o``'s declared bounds (as a command line would spell them)."""
    if o.kind is bool:
        return ["maybe"]
    if o.choices is not None:
        return ["bogus"]
    if o.kind is str:
        return []
    step = 1 if o.kind is int else 0.5
    out: list[object] = []
    if o.low is not None:
        out.append(o.kind(o.low) if not o.low_ok else o.kind(o.low - step))
    if o.high is not None:
        out.append(o.kind(o.high + step))
    if o.cap is not None:
        out.append(o.kind(o.cap + step))
    return out


def cases(table: dict) -> list[tuple[str, str, object]]:
    return [(name, o.name, bad) for name, e in table.items() if e.plugin is None
            for o in e.options for bad in outside(o)]


def cli_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("error: "), err
    return err[len("error: "):].strip()


def test_every_bounded_option_is_tried():
    tried = {(n, o) for n, o, _ in cases(registry.SOLVERS) + cases(registry.HEURISTICS)}
    assert ("beam", "goal_depth") in tried and ("ida", "threads") in tried
    assert ("bwas", "weight") in tried and ("pdb-coset", "probe_inverse") in tried


@pytest.mark.parametrize("solver,option,bad", cases(registry.SOLVERS))
def test_a_solver_refuses_out_of_bounds_values_alike_from_cli_and_python(capsys, solver, option,
                                                                          bad):
    entry = registry.solver_entry(solver)
    with pytest.raises(InputError) as exc:
        entry.load()(**entry.kwargs, **{option: bad})
    python = str(exc.value)
    assert python.startswith("--" + option.replace("_", "-") + ": "), python
    argv = ["solve", *SOLVER_ARGV.get(solver, ["puzzle8", "--heuristic", "manhattan"]),
            "--scramble", "R" if solver == "gf2" else "U", "--solver", solver,
            "--" + option.replace("_", "-"), str(bad)]
    assert cli_error(capsys, argv) == python


@pytest.mark.parametrize("heuristic,option,bad", cases(registry.HEURISTICS))
def test_a_heuristic_refuses_out_of_bounds_values_alike_from_cli_and_python(capsys, heuristic,
                                                                            option, bad):
    entry = registry.heuristic_entry(heuristic)
    puzzle = registry.get_puzzle(HEURISTIC_PUZZLE.get(heuristic, "puzzle8"))
    with pytest.raises(InputError) as exc:  # refused before any table or model is read
        entry.load()(puzzle, **entry.kwargs, **{option: bad})
    python = str(exc.value)
    assert python.startswith("--" + option.replace("_", "-") + ": "), python
    argv = ["solve", puzzle.name, "--scramble", "U" if puzzle.name == "puzzle8" else "R",
            "--heuristic", heuristic, "--" + option.replace("_", "-"), str(bad)]
    assert cli_error(capsys, argv) == python


@pytest.mark.parametrize("name", [n for n, e in registry.SOLVERS.items() if e.plugin is None])
def test_a_solver_built_without_options_takes_the_declared_defaults(name):
    entry = registry.solver_entry(name)
    solver = entry.load()(**entry.kwargs)
    params = inspect.signature(type(solver).__init__).parameters
    for o in entry.options:
        # the constructor states no default of its own: None means "the declared one"
        assert params[o.name].default is None, (name, o.name)
        assert getattr(solver, o.name) == o.default, (name, o.name)


@pytest.mark.parametrize("name", [n for n, e in registry.HEURISTICS.items()
                                  if e.plugin is None and e.options])
def test_a_heuristic_constructor_states_no_default_of_its_own(name):
    entry = registry.heuristic_entry(name)
    params = inspect.signature(entry.load()).parameters
    for o in entry.options:
        if o.name in params:
            assert params[o.name].default is None, (name, o.name)


def test_beam_goal_depth_above_the_declared_bound_is_refused_from_python():
    from solvers.beam import BeamSearch

    cap = registry.solver_entry("beam").option("goal_depth").high
    with pytest.raises(InputError, match=r"--goal-depth: must be in \[0, 30\], got 35"):
        BeamSearch(goal_depth=int(cap) + 5)
    assert BeamSearch(goal_depth=int(cap)).goal_depth == cap


def test_declarations_sit_beside_their_classes_and_are_read_lazily():
    from heuristics import declarations as hd
    from puzzles import declarations as pd
    from solvers import declarations as sd

    assert registry.BUILTIN_DECLARATIONS == {"puzzle": ("puzzles.declarations:PUZZLES",),
                                             "heuristic": ("heuristics.declarations:HEURISTICS",),
                                             "solver": ("solvers.declarations:SOLVERS",)}
    for module, table, package in ((sd.SOLVERS, registry.SOLVERS, "solvers."),
                                   (hd.HEURISTICS, registry.HEURISTICS, "heuristics."),
                                   (pd.PUZZLES, registry.PUZZLES, "puzzles.")):
        assert [e.name for e in module] == [n for n, e in table.items() if e.plugin is None]
        assert all(e.target.startswith(package) for e in module)
    assert registry.SIZED_PUZZLES == tuple(pd.SIZED_PUZZLES)
    assert all(s.target.startswith("puzzles.") for s in pd.SIZED_PUZZLES)
    code = (
        "import sys\n"
        "from bench.cli import main\n"
        "for argv in (['--help'], ['--version']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "read = [m for m in ('core.registry', 'solvers.declarations', 'heuristics.declarations',\n"
        "                    'puzzles.declarations')\n"
        "        if m in sys.modules]\n"
        "assert not read, read\n"
        "import solvers.declarations, heuristics.declarations, puzzles.declarations\n"  # core only
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('numpy', 'numba', 'torch')\n"
        "         or (m.split('.')[0] in ('solvers', 'heuristics', 'puzzles') and\n"
        "             '.' in m and not m.endswith('.declarations'))]\n"
        "assert not heavy, heavy\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_a_puzzles_facts_come_from_its_declaration():
    """The default beam width is the puzzle entry's property (the widths the committed beam
    results ran with), and the puzzles named by a size are made from their one declaration."""
    from core.props import PuzzleProps
    from puzzles import declarations as pd

    widths = {"cube2": 256, "cube2-htm": 256, "cube3": 4096, "cube3-htm": 4096, "puzzle8": 256,
              "puzzle15": 1024, "puzzle24": 1024, "puzzle35": 1024, "puzzle48": 1024,
              "lightsout7": 64, "sokoban": 1024}
    assert {e.name: e.props.beam_width for e in pd.PUZZLES} == widths
    assert {n: registry.beam_width(n) for n in widths} == widths
    assert registry.beam_width("lightsout5") == 64 and registry.beam_width("sokoban12") == 1024
    assert registry.beam_width("a-puzzle-of-a-test") == PuzzleProps().beam_width

    entry = registry.puzzle_entry("sokoban12")
    assert (entry.target, entry.kwargs, entry.summary) == \
        ("puzzles.sokoban:Sokoban", {"size": 12}, "Sokoban 12x12")
    assert registry.puzzle_entry("lightsout7") is registry.PUZZLES["lightsout7"]
    for name in ("sokoban10", "sokoban4", "lightsout1", "lightsout21", "lightsout\u0663",
                 "lightsout", "lightsout-3"):
        with pytest.raises(InputError, match=f"unknown puzzle {name!r}"):
            registry.puzzle_entry(name)
    assert all(any(s.claims(n) for s in registry.SIZED_PUZZLES)
               for n in ("lightsout99", "sokoban10"))


def test_the_goal_layout_is_the_tile_puzzles_declared_option():
    from puzzles.declarations import GOAL

    tiles = [e for e in registry.PUZZLES.values() if e.props.goal_layouts]
    assert tiles and all(e.option("goal") is GOAL for e in tiles)
    assert registry.get_puzzle("puzzle8", goal="korf1982").layout == "korf1982"
    with pytest.raises(InputError, match="--goal: expected blank-first, blank-last or korf1982"):
        registry.get_puzzle("puzzle8", goal="sideways")
    with pytest.raises(InputError, match="--goal: cube2 has a single goal"):
        registry.get_puzzle("cube2", goal="blank-last")
