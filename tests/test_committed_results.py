"""Committed results recompute from their rows: for every ``results/NAME/`` folder holding a
run's rows (``rows.jsonl``, or its exported ``results.csv``), the report code recomputes the
summary's tables and each figure must equal the committed ``summary.md``'s. Committed tables and
summaries name data sets and files by their place in the checkout or the shared data folder,
never by a path of the machine that made them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.run_table import committed_table
from core.paths import deepcubea_dir

RESULTS = Path(__file__).resolve().parent.parent / "results"

#: results folders without a run's rows, and why their figures are not recomputed here
WITHOUT_ROWS: dict[str, str] = {
    **{name: "paper table (`bench paper`): made from runs kept outside results/, its table.csv "
             "is the table itself" for name in (
        "bischoff2013", "deepcubea-fig2", "deepcubea-summary", "deepcubea-table1",
        "deepcubea-table2", "deepcubea-table3", "deepcubea-table4", "deepcubea-table5",
        "felner2004", "korf1982", "phipat2020")},
    "learned-guides": "paper table (`bench paper learned-guides`) over the runs under runs/; "
                      "the paper code, not the suite report, makes it",
    "cayleypy-cube3": "another solver's output, compared in its README",
    "cnn-vs-resnet": "per-network CSVs of a script (experiments/cnn_vs_resnet/run.sh), no suite rows",
    "cube3-goal-depth": "per-setting CSVs of searches, no suite rows",
    "learned-optimality": "per-state CSVs of `bench train evaluate` in subfolders and tables.md, "
                          "made by experiments.learned_optimality.curves from them and from "
                          "other folders' rows (test_learned_optimality_tables_recompute)",
    "dask-speedup": "timings of a cluster run in its README, no rows",
    "davi-seeds": "training logs per seed, no suite rows",
    "gpu-check": "logs of a device check, no rows",
    "ida-speed": "timings of the IDA* kernel against a C program in its README, no suite rows",
    "house-plan": "parity checks against other programs (jsonl of a script), no suite rows",
    "learned-path-improvement": "window shortening applied to finished runs' paths (jsonl of a "
                                "script, experiments/path_improvement), no suite rows",
    "learning-engine": "training throughput measurements, no rows",
    "learning-targets": "per-target CSVs of a script (experiments/learning_targets/run.sh), no suite rows",
    "lightsout7-curve": "training curves and probe CSVs, no suite rows",
    "multigoal": "per-puzzle CSVs of a script (experiments/multigoal/run.sh), no suite rows",
    "onnx-export": "path comparison and speed measurements, no suite rows",
    "quality-cube2": "heuristic quality table (`bench quality`), no search rows",
    "quality-puzzle8": "heuristic quality table (`bench quality`), no search rows",
    "shipped-models": "evaluations of shipped models in their README, no suite rows",
    "sokoban": "generator check of a script, no suite rows",
    "training": "training runs (logs, models), no search rows",
    "training-cube2": "a training figure, no rows",
    "viewer": "screenshots of the viewer, no rows",
}
#: folders with rows but no summary.md: their figures are in a README
WITHOUT_SUMMARY: dict[str, str] = {
    "sokoban-learned1000": "rows and README; the README quotes the evaluation, no summary.md",
    "cube3-optimal": "experiment rows (nodes per IDA* iteration, python -m "
                     "experiments.cube3_optimal.compare and .deepcubea_solve), not suite rows; "
                     "no summary.md",
}

#: columns whose figures need a lower bound that older rows did not record (filled from the
#: tables at hand on the machine that reports: compared only where every row records its bound)
BOUND_COLUMNS = ("% at lower bound", "mean gap to bound")
#: columns read from the files at hand when the report is made (model cards, table files), not
#: from the rows: a machine without the tables, or after new weights are shipped, shows others
COST_COLUMNS = ("training CPU-s", "training states", "build s", "build peak MiB", "tables MiB")
#: columns that need DeepCubeA's published files (the shared data folder)
PUBLISHED_COLUMNS = ("% optimal", "mean excess [95% CI]", "length - DeepCubeA's")


def _folders_with_rows() -> list[str]:
    return sorted(p.name for p in RESULTS.iterdir()
                  if p.is_dir() and ((p / "rows.jsonl").is_file()
                                     or committed_table(p) is not None))


def _tables(md: str) -> dict[str, list[dict[str, str]]]:
    """The markdown tables of a summary, by the heading above each (rows as header -> cell)."""
    out: dict[str, list[dict[str, str]]] = {}
    heading, header = "", None
    for line in md.splitlines():
        if line.startswith("#"):
            heading, header = line.lstrip("#").strip(), None
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
                out[heading] = []
            elif not all(re.fullmatch(r"-+", c) for c in cells):
                out[heading].append(dict(zip(header, cells, strict=False)))
        else:
            header = None
    return out


def test_tables_are_read_by_heading_and_column():
    md = ("# t\n\n## a (2 instances)\n\n| config | n |\n| --- | --- |\n| x | 1 |\n| y | 2 |\n\n"
          "text\n\n### a: published\n\n| solver | n |\n| --- | --- |\n| z | 3 |\n")
    assert _tables(md) == {"a (2 instances)": [{"config": "x", "n": "1"},
                                               {"config": "y", "n": "2"}],
                           "a: published": [{"solver": "z", "n": "3"}]}


def test_every_results_folder_has_rows_or_a_reason():
    # results/runs/ holds ignored scratch runs (.gitignore), never committed
    folders = {p.name for p in RESULTS.iterdir() if p.is_dir() and p.name != "runs"}
    with_rows = set(_folders_with_rows())
    assert not (with_rows & set(WITHOUT_ROWS)), "a folder with rows is listed as without"
    unexplained = sorted(folders - with_rows - set(WITHOUT_ROWS))
    assert not unexplained, f"results folders without rows and without a reason: {unexplained}"


@pytest.mark.slow
@pytest.mark.parametrize("name", _folders_with_rows())
def test_committed_summary_recomputes_from_its_rows(name):
    from bench import report, runner
    from bench.commands.report import _run_title

    folder = RESULTS / name
    if name in WITHOUT_SUMMARY:
        pytest.skip(WITHOUT_SUMMARY[name])
    assert (folder / "summary.md").is_file(), f"{name}: rows without a summary.md or a reason"
    recorded = runner.load_table(folder)
    assert not runner.invalid_replays(recorded), f"{name}: rows that do not replay"
    df = report.with_reference_optima(recorded)
    fresh = _tables(report.report_markdown(df, title=_run_title(folder)))
    committed = _tables((folder / "summary.md").read_text())
    skip = set(COST_COLUMNS)
    if "lower_bound_from" not in recorded or recorded["lower_bound_from"].isna().any():
        skip |= set(BOUND_COLUMNS)
    published = deepcubea_dir().is_dir()
    if not published:
        skip |= set(PUBLISHED_COLUMNS)
    regenerate = f"(regenerate: bench report results/{name} --overwrite)"
    assert [h for h in committed if published or "published" not in h] == \
        [h for h in fresh if published or "published" not in h], \
        f"{name}: the summary's sections differ from its rows' {regenerate}"
    for heading, rows in committed.items():
        if not published and "published" in heading:
            continue
        new = {r.get("config", r.get("solver", "")): r for r in fresh[heading]}
        old = {r.get("config", r.get("solver", "")): r for r in rows}
        assert list(old) == list(new), f"{name}, {heading}: other rows {regenerate}"
        for cfg, r in old.items():
            for col, value in r.items():
                if col in skip or col not in new[cfg]:
                    continue
                assert new[cfg][col] == value, \
                    f"{name}, {heading}, {cfg}, {col}: committed {value}, rows give " \
                    f"{new[cfg][col]} {regenerate}"


MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|home|root|tmp|Users|mnt|scratch)/[^\s`|)'\"]+")


def test_committed_tables_name_no_machine_paths():
    found = []
    for path in sorted(RESULTS.rglob("*.md")):
        if path.name not in ("summary.md", "table.md", "quality.md"):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            for m in MACHINE_PATH.finditer(line):
                found.append(f"{path.relative_to(RESULTS.parent)}:{i}: {m.group(0)}")
    assert not found, "machine paths in committed tables:\n" + "\n".join(found)


def test_committed_records_name_no_machine_paths():
    """Rows, run records, suite copies and CSV tables name paths as ``core.paths.display_path``
    does (older ones were rewritten by ``experiments.tools.portable_paths``)."""
    found = []
    for path in sorted(RESULTS.rglob("*")):
        if path.suffix not in (".json", ".jsonl", ".csv", ".toml", ".txt", ".log"):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            for m in MACHINE_PATH.finditer(line):
                found.append(f"{path.relative_to(RESULTS.parent)}:{i}: {m.group(0)}")
    assert not found, "machine paths in committed records:\n" + "\n".join(found[:20])


#: suffixes of code: the scripts that made a results folder live in ``experiments/``
CODE_SUFFIXES = (".py", ".sh", ".ipynb")


def test_results_folders_keep_no_code():
    code = sorted(str(p.relative_to(RESULTS.parent)) for p in RESULTS.rglob("*")
                  if p.is_file() and p.suffix in CODE_SUFFIXES
                  and "runs" not in p.relative_to(RESULTS).parts[:1])
    assert not code, "code under results/ (it belongs in experiments/):\n" + "\n".join(code)


@pytest.mark.slow
def test_learned_optimality_tables_recompute(capsys):
    """``results/learned-optimality/tables.md`` is what its command prints from the rows."""
    folder = RESULTS / "learned-optimality"
    if not deepcubea_dir().is_dir():
        pytest.skip("the % optimal needs DeepCubeA's optimal solutions (shared data folder)")
    from experiments.learned_optimality import curves

    curves.main(["--curve", str(folder / "cube3-training"),
                 "--puzzle24", str(folder / "puzzle24-search"),
                 "--puzzle24-training", str(folder / "puzzle24-training"),
                 "--puzzle24-wide", str(folder / "puzzle24-wide")])
    assert capsys.readouterr().out == (folder / "tables.md").read_text()


def test_learned_optimality_names_a_missing_file_in_one_line(tmp_path, capsys):
    from experiments.learned_optimality import curves

    with pytest.raises(SystemExit) as exc:
        curves.main(["--curve", str(tmp_path / "none"), "--puzzle24", str(tmp_path / "none")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no such file" in err and str(tmp_path) in err


@pytest.mark.parametrize("option, junk, needle", [
    ("--puzzle24-training", None, "no networks"),
    ("--puzzle24-wide", "shipped-wide.csv", "no shipped-w*.csv"),
])
def test_learned_optimality_names_a_folder_without_its_rows_in_one_line(tmp_path, capsys, option,
                                                                          junk, needle):
    from experiments.learned_optimality import curves

    folder = RESULTS / "learned-optimality"
    if not deepcubea_dir().is_dir():
        pytest.skip("the % optimal needs DeepCubeA's optimal solutions (shared data folder)")
    if junk is not None:
        (tmp_path / junk).write_text("not a width\n")
    with pytest.raises(SystemExit) as exc:
        curves.main(["--curve", str(folder / "cube3-training"), "--puzzle24",
                     str(folder / "puzzle24-search"), option, str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and needle in err and str(tmp_path) in err


def test_learned_optimality_names_a_missing_figure_folder_in_one_line(tmp_path, capsys):
    from experiments.learned_optimality import curves

    folder = RESULTS / "learned-optimality"
    with pytest.raises(SystemExit) as exc:
        curves.main(["--curve", str(folder / "cube3-training"), "--puzzle24",
                     str(folder / "puzzle24-search"), "--figure", str(tmp_path / "none" / "c.png")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--figure" in err and str(tmp_path / "none") in err


def test_beam_width_reads_the_search_name():
    from experiments.learned_optimality.curves import beam_width

    assert beam_width("beam 16,384 + goal table 7, float32") == 16384
    assert beam_width("beam 1,024") == 1024
    with pytest.raises(ValueError, match="no beam width"):
        beam_width("bwas 0.6")
