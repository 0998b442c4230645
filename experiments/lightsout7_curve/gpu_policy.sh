#!/usr/bin/env bash
# Lights Out 7x7: the 2.3 M-parameter residual policy (its file fits a shipped model's 16 MiB)
# trained on a lent GPU in chunks, each chunk's network played on our seeded uniform states
# (never DeepCubeA's) by a greedy beam that never presses a cell twice, and the best chunk's
# network brought back for the test-set run on the CPU. One call:
#
#   experiments/lightsout7_curve/gpu_policy.sh
#
# Sizes come from the environment, so the same script runs on the CPU with tiny ones first:
#   ITERS CHUNK BATCH DEVICE ARCH COUNT LR_DECAY (defaults below); OUT: what comes back
#   (select.csv, the chosen network model-best.pt and its config.json, runs.tgz: the logs).
# The choice: the chunk whose network solves the most seeded states, the later on ties.
set -u
. "$(dirname "$0")/../../tools/device_env.sh"  # packages the device image lacks
OUT=${OUT:-/tmp/lo7policy-out}
work=${WORK:-runs/gpu-lo7-policy}
mkdir -p "$OUT"; rm -rf "$work"; mkdir -p "$work/snap"
ITERS=${ITERS:-8000}; CHUNK=${CHUNK:-500}; BATCH=${BATCH:-49000}; DEVICE=${DEVICE:-cuda}
ARCH=${ARCH:---arch resnet --h1 2048 --res-dim 512 --num-blocks 2}
COUNT=${COUNT:-200}; LR_DECAY=${LR_DECAY:-0.9999}
run="$work/run"
echo "iteration,states,solved" > "$OUT/select.csv"
target=$CHUNK
while [ "$target" -le "$ITERS" ]; do
  # --iterations counts the iterations to run; with --resume, more beyond the run's own
  if [ -f "$run/config.json" ]; then
    args="--resume"
  else
    args="$ARCH --batch $BATCH --amp --k-max 49 --check-every $CHUNK --eval-per-depth 100 --seed 1 --lr-decay $LR_DECAY"
  fi
  python3 -m bench train policy lightsout7 $args --device "$DEVICE" --iterations "$CHUNK" \
      --quiet --out "$run" 2>&1 | tail -n 2 || exit 1
  at=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['iteration'])" "$run/config.json")
  [ "$at" = "$target" ] || { echo "the run is at iteration $at, not $target"; exit 1; }
  cp "$run/model.pt" "$work/snap/model-$target.pt"
  python3 -m bench train evaluate lightsout7 --model "$run" --set uniform --count "$COUNT" \
      --seed 7 --solver beam --width 1 --max-depth 60 --distinct-moves true --time-limit 10 \
      --run-dir "$work/eval-$target" 2>"$work/eval-$target.err" | tail -n 1 > "$work/eval-$target.json"
  # an evaluation that failed (its error in eval-N.err) counts as none solved
  solved=$(python3 -c "import json,sys
try: print(json.load(open(sys.argv[1]))['solved'])
except (ValueError, KeyError): print(-1)" "$work/eval-$target.json")
  echo "$target,$COUNT,$solved" | tee -a "$OUT/select.csv"
  target=$((target + CHUNK))
done
best=$(python3 - "$OUT/select.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(max(rows, key=lambda r: (float(r["solved"]), int(r["iteration"])))["iteration"])
EOF
)
echo "chosen: iteration $best"
cp "$work/snap/model-$best.pt" "$OUT/model-best.pt"
cp "$run/config.json" "$OUT/config.json"
tar czf "$OUT/runs.tgz" --exclude='*.pt' -C "$work" . 2>/dev/null
ls -la "$OUT"
