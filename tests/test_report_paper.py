"""Published tables: the published figures sit beside ours; unknown names are one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bench import paper
from puzzles.base import InputError


def _fake_run(run_dir, nodes_by_config):
    run_dir.mkdir(parents=True)
    with (run_dir / "rows.jsonl").open("w") as f:
        for cfg, nodes in nodes_by_config.items():
            for i, n in enumerate(nodes):
                f.write(json.dumps({"key": f"r/{i}/{cfg}", "config": cfg, "instance_set": "random1000",
                                    "instance": str(i), "status": "solved", "length": 50,
                                    "optimal": None, "nodes_generated": n, "time_s": 0.5,
                                    "peak_rss_bytes": 2**20, "heuristic_nbytes": 2**21}) + "\n")


def test_felner2004_table_from_a_finished_run(tmp_path):
    _fake_run(tmp_path / "run", {"555": [3_000_000, 3_200_000], "663": [600_000, 700_000]})
    text = paper.make("felner2004", run_dir=tmp_path / "run", out=tmp_path / "results",
                      command="bench paper felner2004 --run RUN")
    assert "Command: `bench paper felner2004 --run RUN`" in text
    assert "| 5-5-5 | no | 3,090,405 | 3,100,000 [" in text
    assert "| 6-6-3 | no | 617,555 | 650,000 [" in text
    assert "| 7-8 | yes | 36,710 | not run here |" in text
    table = pd.read_csv(tmp_path / "results" / "felner2004" / "table.csv")
    row = table.set_index(["partition", "reflection"]).loc[("6-6-3", "no")]
    assert row["ratio_ours_to_published"] == pytest.approx(650_000 / 617_555)


def test_unknown_table():
    with pytest.raises(InputError, match="unknown table 'felner2005'.*did you mean 'felner2004'"):
        paper.make("felner2005")
