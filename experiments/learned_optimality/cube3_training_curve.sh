#!/usr/bin/env bash
# The cube3 diffusion network (MLP 3 x 512) at four training budgets, one search: beam width
# 4,096, bfloat16, no goal table, one thread, on DeepCubeA's first 100 cubes (% optimal against
# the optimal solutions in DeepCubeA's test file). The models come from git history (the shipped
# network at iterations 14,000 and 33,371) and from results/training/learned-guides (60 CPU-minutes);
# iteration 46,804 is the shipped network, whose rows at this width are in results/cube3-beam-curve.
# Usage: experiments/learned_optimality/cube3_training_curve.sh OUT_DIR
set -euo pipefail
out=${1:?usage: cube3_training_curve.sh OUT_DIR}
mkdir -p "$out/models"
# the 60-minute guide's weights are kept in history (results/training/README.md)
guide=results/training/learned-guides/cube3-diffusion
[ -f "$guide/model.pt" ] || git restore --source=a668dcd -- "$guide"
for pair in it14000:3605a84 it33371:efb4a3b; do
  name=${pair%%:*}; rev=${pair##*:}
  mkdir -p "$out/models/$name"
  for f in model.pt config.json; do
    git show "$rev:heuristics/models/cube3/$f" > "$out/models/$name/$f"
  done
done
for model in "$out/models/it14000" "$out/models/it33371" results/training/learned-guides/cube3-diffusion; do
  name=$(basename "$model")
  [ -f "$out/$name-w4096.csv" ] && continue
  OMP_NUM_THREADS=1 python -m bench train evaluate cube3 --model "$model" --set deepcubea \
    --count 100 --solver beam --width 4096 --precision bfloat16 --threads 1 --time-limit 60 \
    --out "$out/$name-w4096.csv"
done
