#!/usr/bin/env bash
# Multi-goal DeepCubeA (Moravej) against a single-goal network at the same training states, on
# the 15-puzzle, with diffusion distance as each network's target (the better target on this
# puzzle at a CPU budget: results/learning-targets). The same network (mlp, 3 x 512), batch
# 10,000, bfloat16, two threads. Single goal: ITERATIONS iterations on walks of at most 300 moves.
# The tree: 2 children, height 2 (7 goals), children STEP moves of a walk from their parent, each
# goal's network on walks of at most KTREE moves from it, ITERATIONS iterations in all.
# Evaluation: beam search (width 1,024, at most 150 layers) on DeepCubeA's first COUNT test states,
# 60 s each, every path replayed; optimal lengths from results/learning-targets/optimal-puzzle15.csv
# (IDA* with the 6-6-3 PDB, first 50 states).
# Writes to results/multigoal/. Usage, from the repository root:
#   experiments/multigoal/run_large.sh [ITERATIONS] [STEP] [KTREE] [COUNT] [RUNS_DIR]
set -euo pipefail
iters=${1:-2000}
step=${2:-30}
ktree=${3:-200}
count=${4:-50}
runs=${5:-runs/multigoal}
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/results/multigoal"
mkdir -p "$runs"
common=(--preset mlp --batch 10000 --amp --threads 2 --quiet)
if [ ! -f "$runs/puzzle15-single/model.pt" ]; then
  rm -rf "$runs/puzzle15-single"
  python -m bench train diffusion puzzle15 "${common[@]}" --iterations "$iters" --k-max 300 \
    --check-every 1000 --eval-per-depth 20 --out "$runs/puzzle15-single"
fi
python -m bench train multigoal puzzle15 --target diffusion --children 2 --height 2 \
  --step "$step" --k-max "$ktree" --iterations "$iters" "${common[@]}" --out "$runs/puzzle15-tree"
python -m experiments.multigoal.compare puzzle15 "$runs/puzzle15-single" "$runs/puzzle15-tree" "$count" 0 0 \
  "$out/beam-puzzle15.csv" --solver beam --width 1024 --max-depth 150 --states deepcubea \
  --optimal "$root/results/learning-targets/optimal-puzzle15.csv" > "$out/beam-puzzle15.jsonl"
