"""DeepCubeA's Tables 2 and 3 (``bench.papers.heuristic_measures``): which heuristics they
measure (the optimal solvers' strongest tables with their options, the shipped networks), and
the published figures beside ours. Rows that need big tables are measured only where the tables
are already cached."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from bench import papers, published
from bench.papers import heuristic_measures as hm
from core import registry

MODELS = Path(__file__).resolve().parent.parent / "heuristics" / "models"


def test_every_row_names_a_registered_heuristic_with_declared_options():
    for row in hm.TABLE_HEURISTICS:
        entry = registry.heuristic_entry(row.heuristic)
        assert registry.heuristic_supports(entry, row.puzzle), row
        assert registry.check_heuristic_options(entry, dict(row.options)) == dict(row.options)


def test_the_optimal_solvers_strongest_tables_have_rows():
    keys = {(r.puzzle, r.heuristic): r for r in hm.TABLE_HEURISTICS}
    coset = keys[("cube3", "pdb-coset")]
    assert dict(coset.options) == {"probe_inverse": "near", "corner_pdb": "corners"}
    assert coset.options_text == "--probe-inverse near --corner-pdb corners"
    assert ("puzzle24", "pdb-6666kf") in keys


def test_the_learned_rows_use_the_shipped_model_of_each_puzzle():
    learned = [r for r in hm.TABLE_HEURISTICS if not registry.heuristic_entry(r.heuristic)
               .props.admissible]
    assert {r.puzzle for r in learned} >= {"puzzle24", "puzzle35", "puzzle48", "cube3"}
    for row in learned:
        assert row.heuristic == "value-net" and not row.options
        assert (MODELS / row.puzzle / "model.pt").is_file(), row.puzzle


def test_the_corner_table_option_adds_the_corner_table_to_what_a_row_reads():
    p = registry.get_puzzle("cube3")
    plain = hm._table_specs(hm.Measured("cube3", "pdb-coset"), p)
    with_corners = hm._table_specs(hm.Measured("cube3", "pdb-coset", hm.COSET_OPTIONS), p)
    assert plain is not None and with_corners is not None
    assert [t.key for t in with_corners] == [t.key for t in plain] + ["cube3-corners"]
    assert hm._table_specs(hm.Measured("puzzle8", "manhattan"), registry.get_puzzle("puzzle8")) \
        is None


def test_published_figures_sit_beside_pdb_rows_and_not_recorded_elsewhere():
    assert published.stated("cube3", "pdb_memory").value == "182 GB"
    coset = hm.Measured("cube3", "pdb-coset", hm.COSET_OPTIONS)
    assert hm.published_cell(coset, "memory") == "182 GB (the tables of its optimal solver)"
    assert hm.published_cell(hm.Measured("cube3", "value-net"), "memory") == "not recorded"
    assert hm.published_cell(coset, "time_per_state") == "not recorded"
    assert hm.published_cell(hm.Measured("puzzle24", "pdb-6666kf"), "memory") == "not recorded"


def test_a_learned_row_on_a_shipped_model_is_measured(tmp_path, monkeypatch):
    monkeypatch.setattr(hm, "TABLE_HEURISTICS", [hm.Measured("puzzle24", "value-net"),
                                                 hm.Measured("cube3", "pdb-coset",
                                                             hm.COSET_OPTIONS)])
    monkeypatch.setattr(hm, "_table_specs", lambda row, p: [] if row.heuristic == "pdb-coset"
                        else None)  # no table counts as built: refused below, not loaded
    real_load = hm._load

    def load(row, build):
        if row.heuristic == "pdb-coset":
            return "not built (run with --build)"
        return real_load(row, build)

    monkeypatch.setattr(hm, "_load", load)
    text, table = hm.deepcubea_tables("deepcubea-table3", False, tmp_path, "cmd", batch=200)
    row = table.set_index("heuristic").loc["value-net"]
    assert row["status"] == "measured" and row["what"] == "shipped model `puzzle24` (diffusion)"
    assert row["states_per_s"] > 0 and row["us_per_state"] == pytest.approx(1e6 / row["states_per_s"])
    assert row["files_mb"] == pytest.approx((MODELS / "puzzle24" / "model.pt").stat().st_size / 2**20)
    assert "| puzzle24 | value-net | shipped model `puzzle24` (diffusion) |" in text
    assert ("| cube3 | pdb-coset | --probe-inverse near --corner-pdb corners | "
            "not built (run with --build) |  | not recorded |") in text
    assert "indications" in text  # the shared machine's timings are labelled as such


def test_the_coset_row_holds_both_tables_where_they_are_cached(tmp_path):
    row = hm.Measured("cube3", "pdb-coset", hm.COSET_OPTIONS)
    specs = hm._table_specs(row, registry.get_puzzle("cube3"))
    if not specs or not all(t.exists() for t in specs):
        pytest.skip("the coset and corner tables are not cached (bench pdb build)")
    loaded = hm._load(row, build=False)
    assert not isinstance(loaded, str), loaded
    p, h, _ = loaded
    assert h.nbytes == h.table.nbytes + h.corner_table.nbytes
    assert hm._files_mb(row, p, h) == pytest.approx(
        sum(t.path.stat().st_size for t in specs) / 2**20)


def test_table2_reads_earlier_rows_by_options(tmp_path, monkeypatch):
    dest = tmp_path / "out" / "deepcubea-table2"
    dest.mkdir(parents=True)
    pd.DataFrame([{"puzzle": "cube3", "heuristic": "pdb-coset",
                   "options": "--probe-inverse near --corner-pdb corners", "status": "measured",
                   "memory_mb": 117.0, "files_mb": 79.6, "load_s": 1.5, "states_per_s": 5e4,
                   "batch": 10000},
                  {"puzzle": "cube3", "heuristic": "pdb-coset", "status": "measured",
                   "memory_mb": 75.0, "load_s": 1.0, "states_per_s": 6e4, "batch": 10000}]
                 ).to_csv(dest / "table.csv", index=False)
    monkeypatch.setattr(hm, "TABLE_HEURISTICS", [hm.Measured("cube3", "pdb-coset",
                                                             hm.COSET_OPTIONS)])
    monkeypatch.setattr(hm, "_load", lambda row, build: "not built (run with --build)")
    text = papers.make("deepcubea-table2", out=tmp_path / "out")
    assert ("| cube3 | pdb-coset | --probe-inverse near --corner-pdb corners | "
            "117.0 (earlier run) | 79.6 | 182 GB (the tables of its optimal solver) |") in text


def test_networks_are_measured_on_one_thread():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    with hm.one_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
