#!/usr/bin/env bash
# The puzzle24 network shipped first (iteration 9,419, 94 M states; its weights from git history,
# commit 932b47a's parent) under narrower beams than its recommended 16,384 (whose rows are in
# results/puzzle24-learned100): widths 1,024 and 4,096, bfloat16, one thread, 60 s per state, on
# DeepCubeA's first 100 states (% optimal against the optimal solutions in DeepCubeA's test file).
# Usage: experiments/learned_optimality/puzzle24_search_curve.sh OUT_DIR
set -euo pipefail
out=${1:?usage: puzzle24_search_curve.sh OUT_DIR}
model="$out/models/it9419"
mkdir -p "$model"
for f in model.pt config.json; do
  git show "932b47a~1:heuristics/models/puzzle24/$f" > "$model/$f"
done
for width in 1024 4096; do
  [ -f "$out/puzzle24-w$width.csv" ] && continue
  OMP_NUM_THREADS=1 python -m bench train evaluate puzzle24 --model "$model" --set deepcubea \
    --count 100 --solver beam --width "$width" --precision bfloat16 --threads 1 --time-limit 60 \
    --out "$out/puzzle24-w$width.csv"
done
