#!/usr/bin/env bash
# The training-target comparison on cube3 and puzzle15 (see run.sh for cube2 and puzzle8): DAVI,
# diffusion distance and the schedule (diffusion for the first W iterations, then DAVI), three
# seeds each, at equal CPU time. Every run: preset mlp (3 x 512, batch norm), batch 10,000,
# bfloat16 (--amp), two torch threads, stopped after BUDGET minutes of process CPU time.
# The schedule trains on diffusion for its first BUDGET x 150 iterations (about half its budget),
# then on DAVI. Evaluation: beam search (width 1,024, bfloat16, at most 40 layers on cube3 and 150
# on puzzle15) on DeepCubeA's first COUNT test states of the puzzle (solved % and mean length;
# `bench train evaluate`).
# Writes to results/learning-targets/. Usage, from the repository root:
#   experiments/learning_targets/run_large.sh PUZZLE [BUDGET_MINUTES] [COUNT] [RUNS_DIR]
set -euo pipefail
puzzle=$1
budget=${2:-20}
count=${3:-100}
runs=${4:-runs/learning-targets}
out="$(cd "$(dirname "$0")/../.." && pwd)/results/learning-targets"
mkdir -p "$runs"
common=(--preset mlp --batch 10000 --amp --threads 2 --quiet --iterations 10000000
        --cpu-limit "$budget" --check-every 1000 --eval-per-depth 20)
declare -A kmax=([cube3]=26 [puzzle15]=300)
declare -A eps=([cube3]=0.1 [puzzle15]=0.5)
declare -A depth=([cube3]=40 [puzzle15]=150)
warm=$((budget * 150))
# a run trains into NAME.partial and becomes NAME only when it ends, so a run cut off by a kill is
# started again (its checkpoint holds a model of a fraction of the budget, which must not count)
train() {
  local d=$1; shift
  [ -f "$d/model.pt" ] && return 0
  rm -rf "$d.partial"
  python -m bench train "$@" --out "$d.partial" && mv "$d.partial" "$d"
}
for seed in 0 1 2; do
  k=(--k-max "${kmax[$puzzle]}" --seed "$seed")
  train "$runs/$puzzle-diffusion-s$seed" diffusion "$puzzle" "${common[@]}" "${k[@]}"
  train "$runs/$puzzle-davi-s$seed" davi "$puzzle" "${common[@]}" "${k[@]}" --epsilon "${eps[$puzzle]}"
  train "$runs/$puzzle-schedule-s$seed" davi "$puzzle" "${common[@]}" "${k[@]}" \
    --epsilon "${eps[$puzzle]}" --diffusion-warmup "$warm"
done
for t in davi diffusion schedule; do for seed in 0 1 2; do
  python -m bench train evaluate "$puzzle" --model "$runs/$puzzle-$t-s$seed" --set deepcubea \
    --count "$count" --solver beam --width 1024 --max-depth "${depth[$puzzle]}" --precision bfloat16 \
    --time-limit 120 --threads 2 \
    --out "$out/beam-$puzzle-$t-s$seed.csv" | tail -1
done; done > "$out/beam-$puzzle.jsonl"
