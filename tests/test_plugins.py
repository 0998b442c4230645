"""Plugins (``core.plugins``): entries other packages declare through entry points.

The loader is run on copies of the registry's tables with fake entry points
(``importlib.metadata.entry_points`` monkeypatched, the declaring modules written to a temporary
folder): good entries are added with their package, an import error, a bad entry or a clash with
a built-in name is one problem naming the package, and the rest still loads. The command line is
then run in a subprocess whose path holds a real ``.dist-info`` folder (real entry points): a
broken plugin is one warning line and ``bench list``, ``bench solve`` and suite files keep
working, with the good plugin's option as a flag and a suite field.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core import plugins, registry
from core.registry import Entry, Option

ROOT = Path(__file__).resolve().parents[1]

GOOD = '''
from core.registry import Entry, HeuristicProps, Option
from heuristics.manhattan import Manhattan

class Scaled(Manhattan):
    def __init__(self, puzzle, scale=1.0):
        super().__init__(puzzle)
        self.scale = scale
        self.admissible = scale <= 1.0

    def __call__(self, states):
        return super().__call__(states) * self.scale

SCALED = Entry("scaled-manhattan", "plugmod_good:Scaled", "Manhattan distance times --scale", {},
               {"puzzles": ("puzzle8", "puzzle15"), "admissible": False},
               (Option("scale", float, "factor on the Manhattan distance", default=1.0, low=0.0,
                       metavar="F"),))
TWO = [Entry("plug-a", "plugmod_good:Scaled", "a", {}, {"puzzles": "puzzle8"}),
       Entry("plug-b", "plugmod_good:Scaled", "b", {}, HeuristicProps("puzzle8"))]
NOT_AN_ENTRY = {"name": "dict-entry"}
CLASH = Entry("manhattan", "plugmod_good:Scaled", "shadows the built-in", {}, {})
BAD_TARGET = Entry("bad-target", "no colon here", "bad", {}, {})
BAD_OPTION = Entry("bad-option", "plugmod_good:Scaled", "bad", {}, {},
                   (Option("scale", list, "a list"),))
RESERVED = Entry("reserved-option", "plugmod_good:Scaled", "bad", {}, {},
                 (Option("time_limit", float, "shadows --time-limit"),))
OTHER_KIND = Entry("width-heuristic", "plugmod_good:Scaled", "bad", {}, {},
                   (Option("width", int, "the beam's option"),))
SOLVER = Entry("plug-greedy", "solvers.best_first:BatchBestFirst", "greedy again",
               {"weight": 0.0, "batch": 1}, {"optimal": False})
BAD_PROPS = Entry("bad-props", "plugmod_good:Scaled", "bad", {}, {"admisible": True})
ALIAS_CLASH = Entry("davi", "plugmod_good:Scaled", "a former name of value-net", {}, {})
PUZZLE_CLASH = Entry("lightsout9", "puzzles.lightsout:LightsOut", "a pattern name", {"size": 9}, {})
TILES = Entry("tiles3", "puzzles.npuzzle:NPuzzle", "8-puzzle again", {"width": 3},
              {"bounds": ("linear-conflict", "manhattan"), "search_heuristic": "manhattan",
               "beam_width": 128})
BAD_SEARCH = Entry("bad-search", "puzzles.npuzzle:NPuzzle", "bad", {"width": 3},
                   {"bounds": ("manhattan",), "search_heuristic": ("manhattan",)})
BAD_WIDTH = Entry("bad-width", "puzzles.npuzzle:NPuzzle", "bad", {"width": 3},
                  {"beam_width": 0})


def encode(puzzle, states):
    return states
'''


class FakeDist:
    def __init__(self, name: str) -> None:
        self.name = name


class FakeEntryPoint:
    """What the loader reads of an ``importlib.metadata.EntryPoint``: name, value, dist, load."""

    def __init__(self, name: str, value: str, group: str, package: str) -> None:
        self._ep = importlib.metadata.EntryPoint(name, value, group)
        self.name, self.value, self.group = name, value, group
        self.dist = FakeDist(package)

    def load(self):
        return self._ep.load()


@pytest.fixture
def fake_eps(tmp_path, monkeypatch):
    """Write the plugin modules, and make ``importlib.metadata.entry_points`` answer with the
    entry points given to the returned function."""
    (tmp_path / "plugmod_good.py").write_text(GOOD)
    (tmp_path / "plugmod_broken.py").write_text("import numpy\nraise RuntimeError('half-installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for mod in ("plugmod_good", "plugmod_broken"):
        sys.modules.pop(mod, None)
    declared: list[FakeEntryPoint] = []

    class Installed:
        """What ``entry_points()`` without a group returns: every group, for ``select``."""

        def select(self, group: str) -> list[FakeEntryPoint]:
            return [ep for ep in declared if ep.group == group]

    def entry_points(group=None, **_):
        return Installed() if group is None else Installed().select(group)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.delenv(plugins.DISABLE_ENV, raising=False)

    def declare(*eps: tuple[str, str, str, str]) -> None:
        declared.extend(FakeEntryPoint(*ep) for ep in eps)

    return declare


def _tables() -> dict[str, dict[str, Entry]]:
    return {"puzzle": dict(registry.PUZZLES), "heuristic": dict(registry.HEURISTICS),
            "solver": dict(registry.SOLVERS)}


H = plugins.GROUPS["heuristic"]


def test_a_good_plugin_is_added_with_its_package(fake_eps):
    fake_eps(("scaled-manhattan", "plugmod_good:SCALED", H, "bench-scaled"),
             ("pair", "plugmod_good:TWO", H, "bench-scaled"),
             ("plug-greedy", "plugmod_good:SOLVER", plugins.GROUPS["solver"], "bench-scaled"),
             ("my-codes", "plugmod_good:encode", plugins.ENCODING_GROUP, "bench-scaled"))
    tables = _tables()
    found = plugins.load(tables, Entry, Option)
    assert found.problems == []
    e = tables["heuristic"]["scaled-manhattan"]
    assert e.plugin == "bench-scaled"
    assert e.props.kernel is False and e.props.admissible is False
    assert e.props.puzzles == ("puzzle8", "puzzle15")
    assert {"plug-a", "plug-b"} <= set(tables["heuristic"])
    assert tables["solver"]["plug-greedy"].props.optimal is False
    assert tables["heuristic"]["plug-b"].props == registry.HeuristicProps("puzzle8")
    assert found.providers[("heuristic", "scaled-manhattan")] == "bench-scaled"
    assert found.encodings["my-codes"].load()(None, "x") == "x"
    # the entry is made like a built-in: its option checked, its target loaded
    from puzzles.npuzzle import NPuzzle

    h = e.load()(NPuzzle(3), **e.check_options({"scale": "2"}, "heuristic"))
    assert h.scale == 2.0
    assert h(NPuzzle(3).goal()[None, :])[0] == 0


@pytest.mark.parametrize("value, reason", [
    ("plugmod_broken:X", "importing plugmod_broken:X failed (RuntimeError: half-installed)"),
    ("plugmod_missing:X", "importing plugmod_missing:X failed (ModuleNotFoundError"),
    ("plugmod_good:NOT_AN_ENTRY", "declares a dict, not a core.registry.Entry"),
    ("plugmod_good:CLASH", "'manhattan' clashes with the built-in heuristic"),
    ("plugmod_good:BAD_TARGET", "target 'no colon here' is not 'module:attribute'"),
    ("plugmod_good:BAD_OPTION", "option 'scale' has kind <class 'list'>"),
    ("plugmod_good:RESERVED", "would shadow the command line's own --time-limit"),
    ("plugmod_good:OTHER_KIND", "option 'width' is already a solver option"),
    ("plugmod_good:BAD_PROPS", "bad-props: unknown heuristic property 'admisible' (known: "),
    ("plugmod_good:ALIAS_CLASH", "'davi' is another name of a declared heuristic"),
    ("plugmod_good:SCALED", "the entry point is named 'renamed', its Entry 'scaled-manhattan'"),
])
def test_a_faulty_plugin_is_one_problem_naming_its_package(fake_eps, value, reason):
    name = "renamed" if value.endswith("SCALED") else value.split(":")[1].lower()
    fake_eps((name, value, H, "bench-broken"),
             ("pair", "plugmod_good:TWO", H, "bench-fine"))
    tables = _tables()
    found = plugins.load(tables, Entry, Option)
    assert len(found.problems) == 1
    line = str(found.problems[0])
    assert line.startswith(f"plugin bench-broken: {H} entry point {name!r} ignored: ")
    assert reason in line and "\n" not in line
    # everything else still loads, and the built-ins are untouched
    assert {"plug-a", "plug-b"} <= set(tables["heuristic"])
    assert tables["heuristic"]["manhattan"] is registry.HEURISTICS["manhattan"]


def test_a_plugin_puzzle_names_its_search_default(fake_eps):
    group = plugins.GROUPS["puzzle"]
    fake_eps(("tiles3", "plugmod_good:TILES", group, "bench-tiles"),
             ("bad-search", "plugmod_good:BAD_SEARCH", group, "bench-broken"),
             ("bad-width", "plugmod_good:BAD_WIDTH", group, "bench-broken"))
    tables = _tables()
    found = plugins.load(tables, Entry, Option)
    assert [str(p) for p in found.problems] == [
        f"plugin bench-broken: {group} entry point 'bad-search' ignored: bad-search: props "
        "search_heuristic must be a heuristic name",
        f"plugin bench-broken: {group} entry point 'bad-width' ignored: bad-width: props "
        "beam_width must be a positive integer"]
    props = tables["puzzle"]["tiles3"].props
    assert props.search_heuristic == "manhattan" and props.bounds[0] == "linear-conflict"
    assert props.beam_width == 128


def test_clashes_between_plugins_and_with_puzzle_patterns(fake_eps):
    fake_eps(("pair", "plugmod_good:TWO", H, "first"),
             ("pair", "plugmod_good:TWO", H, "second"),
             ("lightsout9", "plugmod_good:PUZZLE_CLASH", plugins.GROUPS["puzzle"], "tiles-too"))
    tables = _tables()
    # the same (name, value) twice on the path is seen once; tell them apart by value
    found = plugins.load(tables, Entry, Option,
                         entry_points_fn=lambda g: [FakeEntryPoint(ep.name, ep.value, ep.group,
                                                                   ep.dist.name)
                                                    for ep in importlib.metadata.entry_points(
                                                        group=g)])
    lines = [str(p) for p in found.problems]
    assert any("plugin second" in s and "'plug-a' is already declared by plugin first" in s
               for s in lines)
    assert any("plugin tiles-too" in s and "clashes with the built-in puzzle" in s for s in lines)
    assert tables["heuristic"]["plug-a"].plugin == "first"


def test_the_installed_packages_are_read_once(fake_eps, monkeypatch):
    fake_eps(("pair", "plugmod_good:TWO", H, "bench-fine"),
             ("my-codes", "plugmod_good:encode", plugins.ENCODING_GROUP, "bench-fine"))
    calls = []
    read = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: calls.append(kw) or read(**kw))
    tables = _tables()
    found = plugins.load(tables, Entry, Option)
    assert found.problems == [] and "plug-a" in tables["heuristic"]
    assert list(found.encodings) == ["my-codes"]
    assert calls == [{}]


def test_no_plugins_when_disabled(fake_eps, monkeypatch):
    fake_eps(("pair", "plugmod_good:TWO", H, "bench-fine"))
    monkeypatch.setenv(plugins.DISABLE_ENV, "1")
    tables = _tables()
    assert plugins.load(tables, Entry, Option).problems == []
    assert "plug-a" not in tables["heuristic"]


# --------------------------------------------------------------------------- real entry points
def _install_fake_dist(root: Path, name: str, entry_points: str) -> None:
    info = root / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def _bench(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}
    env.pop(plugins.DISABLE_ENV, None)
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_installed_plugins_on_the_command_line(tmp_path):
    (tmp_path / "plugmod_good.py").write_text(GOOD)
    (tmp_path / "plugmod_broken.py").write_text("raise ImportError('needs libfoo')\n")
    _install_fake_dist(tmp_path, "bench-scaled", """
        [heuristic_bench.heuristics]
        scaled-manhattan = plugmod_good:SCALED
        """)
    _install_fake_dist(tmp_path, "bench-broken", """
        [heuristic_bench.heuristics]
        broken = plugmod_broken:X
        manhattan = plugmod_good:CLASH
        """)
    res = _bench(tmp_path, "list", "heuristics")
    assert res.returncode == 0, res.stderr
    warnings = res.stderr.strip().splitlines()
    assert len(warnings) == 2 and all(w.startswith("warning: plugin bench-broken: ")
                                      for w in warnings)
    assert "(ImportError: needs libfoo)" in warnings[0]
    assert "'manhattan' clashes with the built-in heuristic" in warnings[1]
    line = next(x for x in res.stdout.splitlines() if x.startswith("scaled-manhattan"))
    assert line.endswith("(options: --scale) [plugin: bench-scaled]")
    assert any(x.startswith("manhattan ") and "plugin" not in x for x in res.stdout.splitlines())

    # the option is a flag of bench solve, checked as declared
    res = _bench(tmp_path, "solve", "puzzle8", "--scramble", "L U L D R R U L",
                 "--heuristic", "scaled-manhattan", "--scale", "1.5", "--solver", "astar", "--json")
    assert res.returncode == 0, res.stderr
    assert '"status": "solved"' in res.stdout and '"h_start": 9.0' in res.stdout
    res = _bench(tmp_path, "solve", "puzzle8", "--scramble", "L U", "--heuristic",
                 "scaled-manhattan", "--scale", "-1", "--solver", "astar")
    assert res.returncode == 2 and res.stderr.strip().splitlines()[-1] == \
        "error: --scale: must be >= 0, got -1"
    assert "Traceback" not in res.stderr

    # and a suite field, checked when the suite loads
    suite = tmp_path / "scaled.toml"
    suite.write_text(textwrap.dedent("""
        [suite]
        name = "scaled"
        puzzle = "puzzle8"
        [[instances]]
        name = "walks"
        source = "scramble"
        depth = [6]
        count = 2
        seed = 1
        [[configs]]
        name = "scaled-astar"
        heuristic = "scaled-manhattan"
        heuristic_args = { scale = 2.0 }
        solver = "astar"
        [profiles.default]
        instances = ["walks"]
        """))
    res = _bench(tmp_path, "run", "suite", str(suite), "-q", "--no-figures", "-j", "1",
                 "--out", str(tmp_path / "run"))
    assert res.returncode == 0, res.stderr
    assert "scaled-astar" in res.stdout and "100.0" in res.stdout
    suite.write_text(suite.read_text().replace("scale = 2.0", "scale = 'big'"))
    res = _bench(tmp_path, "run", "suite", str(suite), "-q", "--out", str(tmp_path / "run2"))
    assert res.returncode == 2 and "heuristic_args: scale: expected a number, got 'big'" in res.stderr
