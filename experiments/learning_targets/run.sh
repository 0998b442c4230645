#!/usr/bin/env bash
# Training targets compared at equal CPU time: DAVI, diffusion distance, and the schedule
# (diffusion for the first W iterations, then DAVI), three seeds each, on cube2 and puzzle8.
# Every run: preset mlp (3 x 512, batch norm), batch 1,000, one torch thread, stopped after
# BUDGET minutes of process CPU time (--cpu-limit; monitoring excluded); DAVI settings of the
# shipped small-puzzle models (epsilon 0.1, a check every 50 iterations).
# Then: `bench quality` against the exact distances (a sample of 200,000 states) and BWAS
# (lambda 0.6, N 10) on 500 uniform random states with `bench train evaluate`.
# Writes to results/learning-targets/. Usage, from the repository root:
#   experiments/learning_targets/run.sh [BUDGET_MINUTES] [RUNS_DIR]
set -euo pipefail
budget=${1:-2}
runs=${2:-runs/learning-targets}
out="$(cd "$(dirname "$0")/../.." && pwd)/results/learning-targets"
mkdir -p "$runs"
common=(--preset mlp --batch 1000 --threads 1 --quiet --iterations 10000000 --cpu-limit "$budget")
declare -A kmax=([cube2]=20 [puzzle8]=40)
for puzzle in cube2 puzzle8; do
  for seed in 0 1 2; do
    k=(--k-max "${kmax[$puzzle]}" --seed "$seed")
    d="$runs/$puzzle-diffusion-s$seed"; [ -f "$d/model.pt" ] || \
      python -m bench train diffusion "$puzzle" --out "$d" "${common[@]}" "${k[@]}" --check-every 500
    d="$runs/$puzzle-davi-s$seed"; [ -f "$d/model.pt" ] || \
      python -m bench train davi "$puzzle" --out "$d" "${common[@]}" "${k[@]}" --epsilon 0.1 --check-every 50
    d="$runs/$puzzle-schedule-s$seed"; [ -f "$d/model.pt" ] || \
      python -m bench train davi "$puzzle" --out "$d" "${common[@]}" "${k[@]}" --epsilon 0.1 \
        --check-every 50 --diffusion-warmup 1000
  done
  models=()
  for t in davi diffusion schedule; do for seed in 0 1 2; do models+=(--model "$runs/$puzzle-$t-s$seed"); done; done
  python -m bench quality "$puzzle" davi "${models[@]}" --sample 200000 --out "$out/quality-$puzzle"
  for t in davi diffusion schedule; do for seed in 0 1 2; do
    python -m bench train evaluate "$puzzle" --model "$runs/$puzzle-$t-s$seed" --set uniform \
      --count 500 --solver bwas --weight 0.6 --batch 10 --threads 1 \
      --out "$out/bwas-$puzzle-$t-s$seed.csv" | tail -1
  done; done > "$out/bwas-$puzzle.jsonl"
done
