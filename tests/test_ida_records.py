"""The typed IDA* contract: a heuristic hands its kernel a named record of its tables
(``IdaSpec.tables``), checked against the record's annotations; a plain tuple, a record built in
another order, a record of another kind or a field of the wrong type is refused, and a record
built by keyword in any order searches the same tree."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, NamedTuple

import numpy as np
import pytest

from core.registry import get_heuristic, get_puzzle
from heuristics.base import Arr, IdaSpec, check_record
from heuristics.manhattan import TileDistanceTables
from heuristics.pdb_tiles import AdditivePdbTables
from solvers import _ida_tiles


@pytest.fixture(scope="module")
def puzzle8():
    return get_puzzle("puzzle8", goal="blank-first")


@pytest.fixture(scope="module")
def pdb_spec(puzzle8) -> IdaSpec:
    return get_heuristic("pdb-44-reflect", puzzle8, progress=False).ida_spec()


def test_a_plain_tuple_is_refused(pdb_spec: IdaSpec) -> None:
    with pytest.raises(TypeError, match="typed record"):
        IdaSpec(family="tiles", kind="additive-pdb", tables=tuple(pdb_spec.tables),
                params=pdb_spec.params)


def test_a_record_built_in_another_order_is_refused(pdb_spec: IdaSpec) -> None:
    """Built by position with two fields swapped: the first field whose array does not fit
    its annotation names itself."""
    fields = list(pdb_spec.tables)
    i, j = AdditivePdbTables._fields.index("ent_k"), AdditivePdbTables._fields.index("ent_flag")
    fields[i], fields[j] = fields[j], fields[i]
    with pytest.raises(TypeError, match=r"AdditivePdbTables\.ent_k: expected 1-d int64, got 1-d bool"):
        IdaSpec(family="tiles", kind="additive-pdb", tables=AdditivePdbTables(*fields))


@pytest.mark.parametrize("field, value, message", [
    ("num_plain", 2.0, "expected an int"),
    ("sparse", 1, "expected a bool"),
    ("tables", np.zeros(4, np.uint8), "expected a non-empty tuple of arrays"),
    ("dep", np.zeros((9, 2), np.int32), "expected 2-d int64, got 2-d int32"),
])
def test_a_field_of_the_wrong_type_is_refused(pdb_spec: IdaSpec, field: str, value,
                                              message: str) -> None:
    with pytest.raises(TypeError, match=message):
        replace(pdb_spec, tables=pdb_spec.tables._replace(**{field: value}))


def test_a_record_without_annotations_is_refused() -> None:
    from collections import namedtuple

    with pytest.raises(TypeError, match="no type annotation"):
        check_record(namedtuple("Loose", "md")(np.zeros((9, 9), np.int32)))


def test_a_search_refuses_the_record_of_another_kind(puzzle8, pdb_spec: IdaSpec) -> None:
    md = get_heuristic("manhattan", puzzle8).ida_spec().tables
    assert isinstance(md, TileDistanceTables)
    wrong = replace(pdb_spec, tables=md)  # a valid record, but not the additive PDBs'
    with pytest.raises(TypeError, match="reads AdditivePdbTables, got TileDistanceTables"):
        _ida_tiles.search(puzzle8, wrong, puzzle8.goal(), None, None)


def test_keyword_order_does_not_matter(puzzle8, pdb_spec: IdaSpec) -> None:
    """Built by keyword in reverse order, the record is the same and searches the same tree."""
    named = pdb_spec.tables._asdict()
    rebuilt = AdditivePdbTables(**dict(reversed(list(named.items()))))
    spec = replace(pdb_spec, tables=rebuilt)
    states, _ = puzzle8.scramble(3, 20, np.random.default_rng(3))
    for s in states:
        assert (_ida_tiles.search(puzzle8, spec, s, None, None)
                == _ida_tiles.search(puzzle8, pdb_spec, s, None, None))


def test_every_array_of_a_record_is_listed(pdb_spec: IdaSpec) -> None:
    """``IdaSpec.arrays`` (the pages IDA* maps before searching) holds every table."""
    ids = {id(a) for a in pdb_spec.arrays}
    assert all(id(t) in ids for t in pdb_spec.tables.tables)
    assert id(pdb_spec.tables.dep) in ids


def test_a_new_record_type_checks_its_own_annotations() -> None:
    """A heuristic's own record: its annotations are the contract."""

    class Toy(NamedTuple):
        weights: Annotated[np.ndarray, Arr("integer", 1)]
        scale: int

    check_record(Toy(weights=np.arange(3, dtype=np.int16), scale=2))
    with pytest.raises(TypeError, match=r"Toy\.weights: expected 1-d integer, got 1-d float64"):
        check_record(Toy(weights=np.zeros(3), scale=2))


def test_a_cube_search_refuses_the_record_of_another_kind(puzzle8) -> None:
    cube = pytest.importorskip("puzzles.cube")
    from heuristics.pdb_cube import Cube2PDB
    from solvers import _ida_cube

    puzzle = cube.Cube2("htm")
    spec = Cube2PDB(puzzle, progress=False).ida_spec()
    wrong = replace(spec, tables=get_heuristic("manhattan", puzzle8).ida_spec().tables)
    with pytest.raises(TypeError, match="reads KorfTables, got TileDistanceTables"):
        _ida_cube.search(puzzle, wrong, puzzle.goal(), None, None)
