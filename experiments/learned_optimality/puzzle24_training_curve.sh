#!/usr/bin/env bash
# The puzzle24 diffusion network (MLP 3 x 512) at several training budgets, one search: beam
# width 4,096, bfloat16, one thread, 60 s per state, on DeepCubeA's first 100 states (% optimal
# against the optimal solutions in DeepCubeA's test file); the same search as
# puzzle24_search_curve.sh, whose rows give the shipped network (iteration 9,419).
# The networks: RUN_DIR/model-ITERATION.pt with RUN_DIR/config-ITERATION.json, the copies that a
# resumed run of results/training/puzzle24-mlp-diffusion leaves after each chunk of iterations:
#   git restore --source=a668dcd -- results/training/puzzle24-mlp-diffusion   # its checkpoint
#   cp -r results/training/puzzle24-mlp-diffusion RUN
#   python -m bench train diffusion puzzle24 --resume --threads 2 --iterations 3000 --quiet --out RUN
#   cp RUN/model.pt RUN_DIR/model-N.pt; cp RUN/config.json RUN_DIR/config-N.json   # N: its iteration
# Two networks are searched side by side (one thread each).
# Usage: experiments/learned_optimality/puzzle24_training_curve.sh RUN_DIR OUT_DIR [ITERATION ...]
set -euo pipefail
snaps=${1:?usage: puzzle24_training_curve.sh RUN_DIR OUT_DIR [ITERATION ...]}
out=${2:?usage: puzzle24_training_curve.sh RUN_DIR OUT_DIR [ITERATION ...]}
shift 2
if [ $# -eq 0 ]; then
  set -- $(ls "$snaps" | sed -n 's/^model-\([0-9]*\)\.pt$/\1/p' | sort -n)
fi
mkdir -p "$out/models"
evaluate() {
  local it=$1 dir="$out/models/it$1"
  [ -f "$out/it$it-w4096.csv" ] && return 0
  mkdir -p "$dir" "$out/runs"
  cp "$snaps/model-$it.pt" "$dir/model.pt"
  cp "$snaps/config-$it.json" "$dir/config.json"
  OMP_NUM_THREADS=1 python -m bench train evaluate puzzle24 --model "$dir" --set deepcubea \
    --count 100 --solver beam --width 4096 --precision bfloat16 --threads 1 --time-limit 60 \
    --run-dir "$out/runs/it$it" --out "$out/it$it-w4096.csv" > "$out/it$it.log" 2>&1
}
running=0
for it in "$@"; do
  evaluate "$it" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
exit "${status:-0}"
