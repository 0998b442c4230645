"""Instance sets: shipped published lists, seeded scrambles, reference optimal lengths."""

from __future__ import annotations

import numpy as np
import pytest

from core import registry
from suites.reference import bfs_all, bfs_distances
from suites.schema import InstanceSetSpec, load_suite
from suites.sources import import_deepcubea, load_instances, maneuver_quarter_turns, maneuver_text


def test_korf100_and_hardest17_have_their_goals_and_lengths():
    s = load_suite("puzzle15")
    korf = load_instances(s, "korf100")
    assert len(korf.instances) == 100 and korf.goal == "blank-first"
    assert [i.optimal for i in korf.instances[:3]] == [57, 55, 59]
    assert sum(i.optimal for i in korf.instances) == 5305  # Korf (1985): mean optimal length 53.05
    hard = load_instances(s, "hardest17")
    assert len(hard.instances) == 17 and {i.optimal for i in hard.instances} == {80}
    p = registry.get_puzzle("puzzle15", goal="blank-last")
    for inst in hard.instances:
        p.validate(inst.state)


def test_korf_felner50():
    s = load_suite("puzzle24")
    kf = load_instances(s, "korf-felner50")
    assert len(kf.instances) == 50 and kf.instances[0].optimal == 95


def test_vcube_published_solutions_solve_their_cubes():
    s = load_suite("cube3-htm")
    iset = load_instances(s, "vcube16")
    p = registry.get_puzzle("cube3-htm")
    assert len(iset.instances) == 16
    for inst in iset.instances:
        sol = p.parse_moves(maneuver_text(maneuver_quarter_turns(inst.meta["published_solution"]), "htm"))
        assert len(sol) == inst.optimal
        assert p.check_solution(inst.state, sol)


def test_qtm26_gives_the_three_positions_at_distance_26_and_korf10_has_no_optimum():
    from puzzles.cube.facelets import rotation_perm
    from puzzles.cube.rotations import face_map, named_rotations

    cube3 = load_suite("cube3")
    assert cube3.instance_sets["qtm26"].rotations
    q = load_instances(cube3, "qtm26")
    p = registry.get_puzzle("cube3")
    # the file's one maneuver and its conjugates under the 24 rotations: 3 distinct states
    assert len(q.instances) == 3 and len({i.state.tobytes() for i in q.instances}) == 3
    assert [i.optimal for i in q.instances] == [26, 26, 26]
    assert q.instances[0].id == "1" and all(i.id.startswith("1-") for i in q.instances[1:])
    original = q.instances[0].state
    rotations = dict(named_rotations())
    for inst in q.instances:
        assert not p.is_goal(inst.state[None, :])[0]
        # the relabelled maneuver's inverse solves it, in 26 quarter turns
        moves = p.parse_moves(inst.meta["scramble"])
        assert len(moves) == 26
        assert p.check_solution(inst.state, [p.inverse_action(a) for a in reversed(moves)])
        # and it is the original seen after the whole-cube rotation: stickers moved, recoloured
        rot = rotations[inst.meta.get("rotation", "")]
        recolour = np.array(face_map(rot), dtype=original.dtype)
        assert np.array_equal(inst.state, recolour[original[rotation_perm(3, rot, None)]])
    # every conjugate is one of the three
    from puzzles.cube.rotations import conjugates
    from suites.sources import maneuver_text as text

    turns = maneuver_quarter_turns(q.instances[0].meta["scramble"])
    states = {p.from_moves(p.parse_moves(text(t, "qtm"))).tobytes() for _, t in conjugates(turns)}
    assert states == {i.state.tobytes() for i in q.instances}
    assert len(load_instances(cube3, "qtm26", limit=2).instances) == 2
    k = load_instances(load_suite("cube3-htm"), "korf10")
    assert len(k.instances) == 10 and all(i.optimal is None for i in k.instances)


@pytest.mark.nojit
def test_bfs_distances_on_a_tiny_puzzle():
    """Breadth-first distances on 3x3 Lights Out against the exact GF(2) lengths."""
    p = registry.get_puzzle("lightsout3")
    rng = np.random.default_rng(4)
    states, _ = p.scramble(6, 4, rng)
    assert np.array_equal(bfs_distances(p, states), p.optimal_lengths(states))


def test_scrambles_are_seeded_and_limited():
    s = load_suite("puzzle8")
    a = load_instances(s, "scramble", limit=8)
    b = load_instances(s, "scramble", limit=8)
    assert len(a.instances) == 8
    assert all(np.array_equal(x.state, y.state) for x, y in zip(a.instances, b.instances, strict=True))
    assert {i.meta["depth"] for i in a.instances} == {10, 20, 40, 200}


def test_bfs_distances_agree_with_the_exhaustive_table():
    from puzzles.exhaustive import perm_ranks, puzzle8_distances

    p = registry.get_puzzle("puzzle8", goal="blank-last")
    rng = np.random.default_rng(1)
    states, _ = p.scramble(12, 30, rng)
    ours = bfs_distances(p, states)
    table = puzzle8_distances("blank-last")
    assert np.array_equal(ours, table[perm_ranks(states)])


def test_bfs_all_enumerates_the_8_puzzle():
    p = registry.get_puzzle("puzzle8")
    states, dist = bfs_all(p)
    assert len(states) == 181_440 and dist.max() == 31
    assert len(np.unique(states.view(f"S{states.shape[1]}"))) == len(states)


def test_lightsout_optimal_lengths_come_from_gf2():
    s = load_suite("lightsout7")
    iset = load_instances(s, "scramble", limit=6)
    for inst in iset.instances:
        assert inst.optimal is not None and inst.optimal <= inst.meta["depth"]


def test_deepcubea_sets_are_used_and_imported(deepcubea, tmp_path):
    s = load_suite("puzzle15")
    iset = load_instances(s, "deepcubea", limit=4)
    assert "deepcubea" in iset.origin and len(iset.instances) == 4
    assert iset.instances[0].meta["published_length"] == 38
    out = import_deepcubea(deepcubea / "puzzle15", "puzzle15", tmp_path / "p15.txt")
    lines = [ln for ln in out.read_text().splitlines() if not ln.startswith("#")]
    assert len(lines) == 500
    p = registry.get_puzzle("puzzle15", goal="blank-last")
    assert np.array_equal(p.parse(lines[0].split(maxsplit=2)[2]), iset.instances[0].state)


def test_deepcubea_cubes_load_with_published_lengths(deepcubea):
    iset = load_instances(load_suite("cube3"), "deepcubea", limit=3)
    assert "deepcubea" in iset.origin
    assert [i.meta["published_length"] for i in iset.instances] == [22, 21, 19]
    p = registry.get_puzzle("cube3")
    for inst in iset.instances:
        p.validate(inst.state)


def test_deepcubea_fallback_when_absent(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCH_SHARED", str(tmp_path / "nowhere"))
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path / "cache"))
    s = load_suite("lightsout7")
    iset = load_instances(s, "deepcubea", limit=3)
    assert "fallback" in iset.origin and iset.spec.name == "uniform"
    assert all(i.optimal is not None for i in iset.instances)


def test_unreadable_instance_line_names_file_and_line(tmp_path, monkeypatch):
    import suites.sources as L

    (tmp_path / "x.txt").write_text("# c\n1 57 1 2 3\n")
    monkeypatch.setattr(L, "INSTANCES_DIR", tmp_path)
    spec = InstanceSetSpec(name="x", source="file", path="x.txt", format="tiles", goal="blank-first")
    p = registry.get_puzzle("puzzle15", goal="blank-first")
    with pytest.raises(L.InputError, match="x.txt:2"):
        L._parse_file(spec, p, tmp_path / "x.txt")


def test_every_optimal_rule_agrees_on_8_puzzle_states():
    """The reference rules give the same optimal lengths where several apply."""
    from suites.reference import auto_rule, optimal_lengths

    p = registry.get_puzzle("puzzle8", goal="blank-first")
    states = p.scramble(5, 14, np.random.default_rng(2))[0]
    table = optimal_lengths(p, states, "table")
    assert auto_rule(p) == "table"
    np.testing.assert_array_equal(optimal_lengths(p, states, "ida:manhattan"), table)
    np.testing.assert_array_equal(optimal_lengths(p, states, "bfs"), table)
    np.testing.assert_array_equal(optimal_lengths(p, states, "exact:pdb-full"), table)
    assert optimal_lengths(p, states, "none") is None
