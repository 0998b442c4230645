#!/usr/bin/env bash
# The training-target comparison on cube3 and puzzle15 (see run.sh for cube2 and puzzle8): DAVI,
# diffusion distance and the schedule (diffusion for the first W iterations, then DAVI), three
# seeds each, at equal CPU time. Every run: preset mlp (3 x 512, batch norm), batch 10,000,
# bfloat16 (--amp), two torch threads, stopped after BUDGET minutes of process CPU time.
# Evaluation: beam search (width 1,024, bfloat16) on DeepCubeA's first 100 test states of the
# puzzle, 20 s each (solved % and mean length; `bench train evaluate`).
# Usage: results/learning-targets/run_large.sh PUZZLE [BUDGET_MINUTES] [RUNS_DIR]
set -euo pipefail
puzzle=$1
budget=${2:-20}
runs=${3:-runs/learning-targets}
out=$(dirname "$0")
mkdir -p "$runs"
common=(--preset mlp --batch 10000 --amp --threads 2 --quiet --iterations 10000000
        --cpu-limit "$budget" --check-every 1000 --eval-per-depth 20)
declare -A kmax=([cube3]=26 [puzzle15]=300)
declare -A eps=([cube3]=0.1 [puzzle15]=0.5)
declare -A warm=([cube3]=3000 [puzzle15]=3000)
for seed in 0 1 2; do
  k=(--k-max "${kmax[$puzzle]}" --seed "$seed")
  d="$runs/$puzzle-diffusion-s$seed"; [ -f "$d/model.pt" ] || \
    python -m bench train diffusion "$puzzle" --out "$d" "${common[@]}" "${k[@]}"
  d="$runs/$puzzle-davi-s$seed"; [ -f "$d/model.pt" ] || \
    python -m bench train davi "$puzzle" --out "$d" "${common[@]}" "${k[@]}" --epsilon "${eps[$puzzle]}"
  d="$runs/$puzzle-schedule-s$seed"; [ -f "$d/model.pt" ] || \
    python -m bench train davi "$puzzle" --out "$d" "${common[@]}" "${k[@]}" --epsilon "${eps[$puzzle]}" \
      --diffusion-warmup "${warm[$puzzle]}"
done
for t in davi diffusion schedule; do for seed in 0 1 2; do
  python -m bench train evaluate "$puzzle" --model "$runs/$puzzle-$t-s$seed" --set deepcubea \
    --count 100 --solver beam --width 1024 --precision bfloat16 --time-limit 20 --threads 2 \
    --out "$out/beam-$puzzle-$t-s$seed.csv" | tail -1
done; done > "$out/beam-$puzzle.jsonl"
