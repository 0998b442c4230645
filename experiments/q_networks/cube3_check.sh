#!/usr/bin/env bash
# A check that a cube3 Q-network searches: Q-beam and Q* with the network of a training run
# (bench train q-distill cube3 ...), on 10 seeded uniform random cubes of our own (seed 59; not
# DeepCubeA's test set; SET scramble:DEPTH: 10 seeded scrambles of DEPTH moves instead), one
# torch thread, TIME seconds per cube. Each evaluation is a suite run
# (every path replayed, rows in OUT_DIR/runs/*/rows.jsonl); a CSV and a one-line summary each.
# Usage: experiments/q_networks/cube3_check.sh RUN_DIR OUT_DIR [TIME [SET]]
set -euo pipefail
run=${1:?usage: cube3_check.sh RUN_DIR OUT_DIR [TIME [SET]]}
out=${2:?usage: cube3_check.sh RUN_DIR OUT_DIR [TIME [SET]]}
time_limit=${3:-30}
states=${4:-uniform}
mkdir -p "$out/runs"
common=(--model "$run" --set "$states" --count 10 --seed 59 --threads 1 --time-limit "$time_limit")
python -m bench train evaluate cube3 "${common[@]}" --solver qbeam --width 1024 \
  --run-dir "$out/runs/qbeam-w1024" --out "$out/qbeam-w1024.csv" | tail -1 > "$out/qbeam-w1024.json"
python -m bench train evaluate cube3 "${common[@]}" --solver qstar --weight 0.6 --batch 1000 \
  --run-dir "$out/runs/qstar-b1000" --out "$out/qstar-b1000.csv" | tail -1 > "$out/qstar-b1000.json"
cat "$out"/*.json
