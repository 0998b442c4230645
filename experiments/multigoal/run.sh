#!/usr/bin/env bash
# Multi-goal DeepCubeA (Moravej) against single-goal DAVI at the same training states: the same
# network (mlp, 3 x 512), batch 1,000, two threads; single-goal DAVI for N iterations, the tree
# (2 children, height 2: 7 goals, each goal's walks from it of at most K moves) for N iterations
# in all. Evaluated by BWAS (lambda 0.6, N 100) on 200 uniform random states, every path replayed.
# Writes to results/multigoal/. Usage, from the repository root:
#   experiments/multigoal/run.sh [ITERATIONS] [RUNS_DIR]
set -euo pipefail
iters=${1:-6000}
runs=${2:-runs/multigoal}
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/results/multigoal"
mkdir -p "$runs"
common=(--preset mlp --batch 1000 --threads 2 --quiet)
if [ ! -f "$runs/cube2-single/model.pt" ]; then
  rm -rf "$runs/cube2-single"
  python -m bench train davi cube2 "${common[@]}" --iterations "$iters" --k-max 14 \
    --out "$runs/cube2-single"
fi
python -m bench train multigoal cube2 --children 2 --height 2 --step 3 --k-max 10 \
  --iterations "$iters" "${common[@]}" --out "$runs/cube2-tree"
python -m experiments.multigoal.compare cube2 "$runs/cube2-single" "$runs/cube2-tree" 200 0.6 100 \
  "$out/bwas-cube2.csv" > "$out/bwas-cube2.jsonl"
