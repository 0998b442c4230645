#!/usr/bin/env bash
# Training states per second of the code before the learning engine (OLD, a checkout of commit
# a6b3332) and of this checkout (NEW), run alternately on the same machine with 2 torch threads:
# cube3 DAVI at the `small` preset, batch 10,000, float32 and --amp (bfloat16). Each run trains
# 90 iterations with a check every 30: the first window's loss (below cube3's epsilon
# 0.06) sets the target network at iteration 60, so the third window (iterations 61-90,
# monitoring excluded) is the steady state of DAVI, read from the run's log.csv.
# Usage: experiments/learning_engine/side_by_side.sh OLD_CHECKOUT [ROUNDS]
set -euo pipefail
old=$1; rounds=${2:-2}
new=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
run() {  # $1 checkout, $2 label, $3.. extra options
  local dir=$1 label=$2; shift 2
  local out="$tmp/$label-$RANDOM"
  (cd "$dir" && python -m bench train davi cube3 --out "$out" --threads 2 \
     --iterations 90 --check-every 30 --batch 10000 --eval-per-depth 10 --quiet "$@" >/dev/null)
  tail -1 "$out/log.csv" | awk -F, -v l="$label" '{printf "%s: iteration %s, target updates %s, %s states/s\n", l, $1, $4, $5}'
}
for r in $(seq "$rounds"); do
  for mode in fp32 amp; do
    extra=(); [ "$mode" = amp ] && extra=(--amp)
    run "$old" "old-$mode" "${extra[@]}"
    run "$new" "new-$mode" "${extra[@]}"
  done
done
rm -rf "$tmp"
