#!/usr/bin/env bash
# Phipat's CNN against DeepCubeA's residual network and the plain MLP on the 15-puzzle, at equal
# CPU time: each network trained by diffusion distance (K = 300, batch 10,000, bfloat16, two
# threads) for BUDGET minutes of process CPU time, then searched by beam (width 1,024, at most
# 150 layers, bfloat16) on DeepCubeA's first COUNT test states; every path replayed.
# Writes to results/cnn-vs-resnet/. Usage, from the repository root:
#   experiments/cnn_vs_resnet/run.sh [BUDGET_MINUTES] [COUNT] [RUNS_DIR]
set -euo pipefail
budget=${1:-10}
count=${2:-50}
runs=${3:-runs/cnn-vs-resnet}
out="$(cd "$(dirname "$0")/../.." && pwd)/results/cnn-vs-resnet"
mkdir -p "$runs"
train() {  # a run trains into NAME.partial and becomes NAME when it ends
  local d=$1; shift
  [ -f "$d/model.pt" ] && return 0
  rm -rf "$d.partial"
  python -m bench train diffusion puzzle15 "$@" --out "$d.partial" && mv "$d.partial" "$d"
}
common=(--batch 10000 --amp --threads 2 --quiet --iterations 10000000 --cpu-limit "$budget"
        --check-every 1000 --eval-per-depth 20 --k-max 300 --seed 0)
for arch in cnn resnet mlp; do
  train "$runs/puzzle15-$arch" --arch "$arch" "${common[@]}"
done
for arch in cnn resnet mlp; do
  python -m bench train evaluate puzzle15 --model "$runs/puzzle15-$arch" --set deepcubea \
    --count "$count" --solver beam --width 1024 --max-depth 150 --precision bfloat16 \
    --time-limit 120 --threads 2 --out "$out/beam-puzzle15-$arch.csv" | tail -1
done > "$out/beam-puzzle15.jsonl"
