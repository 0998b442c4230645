"""docs/development.md's walkthrough "A heuristic under IDA*" matches the code: every module,
class, function and file it cites exists, and the built-in tile heuristics hand IDA* what it
says they hand it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "puzzles", "heuristics", "solvers", "bench", "suites", "learning")
#: the names the walkthrough makes up for its example heuristic
EXAMPLE = {"TileMax", "TileMaxTables", "TileMaxSearch", "heuristics/tile_max.py",
           "solvers/_ida_tiles_max.py", "solvers/_ida_<family>.py"}
#: methods it names bare: those of solvers._ida_tiles_base.TilesSearch
SEARCH_METHODS = ("_share", "_allocate", "_root_value", "begin", "_run", "spawn", "reset")


def _section() -> str:
    text = (ROOT / "docs" / "development.md").read_text()
    start = text.index("## A heuristic under IDA\\*")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _cited() -> list[str]:
    return re.findall(r"`([^`]+)`", _section())


def _resolve(dotted: str) -> Any:
    """The object a dotted name names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def _python_names() -> list[str]:
    names = []
    for token in _cited():
        head = re.split(r"[(\s\[]", token, maxsplit=1)[0]
        if head.startswith("registry."):
            head = "core." + head
        if "/" not in head and "." in head and head.split(".")[0] in PACKAGES:
            names.append(head)
    return names


def test_the_walkthrough_cites_many_names():
    assert len(_python_names()) >= 15, _python_names()


@pytest.mark.parametrize("name", sorted(set(_python_names())))
def test_every_python_name_it_cites_exists(name):
    assert _resolve(name) is not None


def test_every_file_it_cites_exists():
    files = [t for t in _cited() if re.fullmatch(r"[\w/<>.-]+\.py", t) and "/" in t]
    assert "tests/test_ida_records.py" in files
    for f in files:
        if f not in EXAMPLE:
            assert (ROOT / f).is_file(), f


def test_the_search_methods_and_codes_it_names_exist():
    from solvers import _ida_engine
    from solvers._ida_tiles_base import TilesSearch

    cited = set(_cited())
    for method in SEARCH_METHODS:
        assert any(t.startswith(method) for t in cited), method
        assert callable(getattr(TilesSearch, method)), method
    for code in ("PAUSED", "ITER_DONE", "SOLVED"):
        assert f"`{code}`" in _section() and isinstance(getattr(_ida_engine, code), int)
    assert "HEURISTICS" in cited
    from heuristics import declarations

    assert declarations.HEURISTICS


def test_each_tile_heuristic_hands_ida_what_the_walkthrough_says():
    """Each built-in tile heuristic with a kernel: a spec of family ``tiles`` whose params name
    the board, whose kind ``search_class`` registers, and whose record is the one its search
    class reads."""
    from core import registry
    from solvers import _ida_tiles
    from solvers._ida_tiles_base import TilesSearch

    puzzle = registry.get_puzzle("puzzle8")
    for name, options in (("manhattan", {}), ("linear-conflict", {}),
                          ("pdb-44-reflect", {"progress": False})):
        h = registry.get_heuristic(name, puzzle, **options)
        spec = h.ida_spec()
        assert spec.family == "tiles"
        assert {"width", "layout"} <= set(spec.params), name
        cls = _ida_tiles.search_class(spec)
        assert issubclass(cls, TilesSearch) and type(spec.tables) is cls.record, name
