"""``bench h`` and ``bench pdb build|list|info`` on the 8-puzzle."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from bench.cli import main
from core.registry import get_heuristic, get_puzzle
from pdb_builders import catalog
from tests import tiles_reference as ref


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None,
            monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_h_prints_one_value_per_state(capsys, monkeypatch) -> None:
    p = get_puzzle("puzzle8")
    states, _ = p.scramble(5, 20, np.random.default_rng(0))
    texts = [p.format(s) for s in states]
    code, out, _ = run_cli(["h", "puzzle8", "pdb-full", *texts], capsys)
    assert code == 0
    dist = dict(zip(map(tuple, ref.puzzle8_states("blank-last")[0].tolist()),
                    ref.puzzle8_states("blank-last")[1].tolist(), strict=True))
    assert [int(x) for x in out.split()] == [dist[tuple(s.tolist())] for s in states]
    code, out2, _ = run_cli(["h", "puzzle8", "pdb-full", "-"], capsys, "\n".join(texts) + "\n",
                            monkeypatch)
    assert code == 0 and out2 == out
    code, out3, _ = run_cli(["h", "puzzle8", "manhattan", "--goal", "blank-first",
                             "--scramble", "R D"], capsys)
    assert code == 0 and out3.strip() == "2"


def test_h_bad_input_exit_2(capsys) -> None:
    code, _, err = run_cli(["h", "puzzle8", "manhattan", "1,2,3"], capsys)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    code, _, err = run_cli(["h", "puzzle8", "pdb-663", "1,2,3,4,5,6,7,8,0"], capsys)
    assert code == 2 and "does not apply" in err
    code, _, err = run_cli(["pdb", "build", "puzzle8", "manhattan"], capsys)
    assert code == 2 and "uses no pattern database" in err


def test_pdb_build_list_info(capsys) -> None:
    code, out, _ = run_cli(["pdb", "build", "puzzle8", "pdb-44"], capsys)
    assert code == 0 and "2 table(s)" in out
    code, out, _ = run_cli(["pdb", "build", "puzzle8", "pdb-44-reflect"], capsys)
    assert code == 0 and out.count("up to date") == 2
    code, out, _ = run_cli(["pdb", "list"], capsys)
    assert code == 0
    keys = {t.key for _, _, t in catalog.all_tables()}
    assert all(k in out for k in keys)
    assert "puzzle8-pattern-1-2-3-4" in out and "(not built)" in out
    code, out, _ = run_cli(["pdb", "info", "puzzle8", "pdb-44"], capsys)
    assert code == 0 and "pattern: [1, 2, 3, 4]" in out and "packing: nibble" in out
    h = get_heuristic("pdb-44", get_puzzle("puzzle8"))
    total = sum(int(line.split()[1].replace(",", "")) for line in out.splitlines()
                if line.strip() and line.split()[0].isdigit())
    assert total == sum(spec.entries for spec in h.specs)


def test_cli_error_has_no_traceback() -> None:
    res = subprocess.run([sys.executable, "-m", "bench", "h", "puzzle15", "pdb-555", "1,2"],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "STATE" in res.stderr


def test_pdb_info_warns_of_a_table_built_for_something_else(capsys, monkeypatch, tmp_path) -> None:
    from pdb_builders.store import save_table

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    spec = catalog.find("puzzle8", "pdb-44").tables("puzzle8")[0]
    spec.path.parent.mkdir(parents=True, exist_ok=True)
    save_table(spec.path, np.zeros(spec.entries, np.uint8), {**spec.attrs, "puzzle": "puzzle15"})
    code, out, _ = run_cli(["pdb", "info", "puzzle8", "pdb-44"], capsys)
    assert code == 0
    assert "warning: database file" in out and "was built for puzzle='puzzle15'" in out
