#!/usr/bin/env bash
# Window shortening applied to committed runs' paths (no new search), then the seeded-scramble
# profile that runs beam + inverse + windows in one search. From the repository root.
set -euo pipefail
out=results/learned-path-improvement
# cube3, width 81,920 on DeepCubeA's first 200: the 113 paths longer than optimal
python -m experiments.path_improvement.rows results/cube3-learned200-w81920/rows.jsonl \
    --window 10 12 14 --nonoptimal --out "$out/cube3-w81920.jsonl"
# cube3, our seeded deep scrambles: the forward + inverse paths of results/learned-inverse
python -m experiments.path_improvement.rows results/learned-inverse/rows.jsonl \
    --window 14 --out "$out/seeded-8192-w14.jsonl"
python -m experiments.path_improvement.rows results/learned-inverse/w32768/rows.jsonl \
    --window 14 --out "$out/seeded-32768-w14.jsonl"
# puzzle24, the recommended beam on DeepCubeA's first 100: the 40 paths longer than optimal
python -m experiments.path_improvement.rows results/puzzle24-learned100/results.csv \
    --window 10 20 --nonoptimal --out "$out/puzzle24.jsonl"
python -m experiments.path_improvement.rows results/puzzle24-learned100/results.csv \
    --window 30 --nonoptimal --limit 30 --out "$out/puzzle24.jsonl"
# puzzle35 and puzzle48, our seeded uniform states: every path of the width-selection runs
python -m experiments.path_improvement.rows results/puzzle35-width-select/results.csv \
    --window 16 20 --out "$out/puzzle35-seeded.jsonl"
python -m experiments.path_improvement.rows results/puzzle48-width-select/results.csv \
    --window 16 20 --out "$out/puzzle48-seeded.jsonl"
# the same beam, inverse and windows inside one search on 30 seeded deep scrambles
bench run suite cube3 --profile window-select -j 1 --threads 2 --out runs/cube3-window-select
