#!/usr/bin/env bash
# Training states per second of the code before the learning engine (OLD, a checkout of commit
# a6b3332) and of this checkout (NEW) at small and large batches, run alternately on the same
# machine with 2 torch threads (float32, `small` preset): cube3 DAVI at batch 1,000 and 10,000,
# puzzle15 DAVI at batch 1,000. Each run checks every third of its iterations: the first
# window's loss sets the target network, so the last window (monitoring excluded) is DAVI's
# steady state, read from the run's log.csv.
# Usage: experiments/learning_engine/batch_sizes.sh OLD_CHECKOUT [ROUNDS]
set -euo pipefail
old=$1; rounds=${2:-3}
new=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
run() {  # $1 checkout, $2 label, $3 puzzle, $4 batch, $5 iterations
  local dir=$1 label=$2 pz=$3 batch=$4 its=$5
  local out="$tmp/$label-$RANDOM"
  (cd "$dir" && python -m bench train davi "$pz" --out "$out" --threads 2 --iterations "$its" \
     --check-every $((its / 3)) --batch "$batch" --eval-per-depth 10 --quiet >/dev/null)
  tail -1 "$out/log.csv" | awk -F, -v l="$label" -v p="$pz" -v b="$batch" \
    '{printf "%s batch %s %s: iteration %s, target updates %s, %s states/s\n", p, b, l, $1, $4, $5}'
}
for r in $(seq "$rounds"); do
  for cfg in "cube3 1000 300" "cube3 10000 90" "puzzle15 1000 300"; do
    set -- $cfg
    run "$old" old "$@"
    run "$new" new "$@"
  done
done
rm -rf "$tmp"
