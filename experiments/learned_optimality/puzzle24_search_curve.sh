#!/usr/bin/env bash
# The shipped puzzle24 network under narrower beams than its recommended 16,384 (whose rows are
# in results/puzzle24-learned100): widths 1,024 and 4,096, bfloat16, one thread, 60 s per state,
# on DeepCubeA's first 100 states (% optimal against the optimal solutions in DeepCubeA's test file).
# Usage: experiments/learned_optimality/puzzle24_search_curve.sh OUT_DIR
set -euo pipefail
out=${1:?usage: puzzle24_search_curve.sh OUT_DIR}
mkdir -p "$out"
for width in 1024 4096; do
  [ -f "$out/puzzle24-w$width.csv" ] && continue
  OMP_NUM_THREADS=1 python -m bench train evaluate puzzle24 --set deepcubea --count 100 \
    --solver beam --width "$width" --precision bfloat16 --threads 1 --time-limit 60 \
    --out "$out/puzzle24-w$width.csv"
done
