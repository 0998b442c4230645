#!/usr/bin/env bash
# Lights Out 7x7: the two candidate networks to ship, trained in one call on a lent GPU.
#   B: EfficientCube's shape (first layer 5,000, four blocks of 1,000; 13.6 M parameters), the
#      network that played DeepCubeA's states greedily and optimally after 10,000 iterations
#      (results/lightsout7-curve/gpu/); its float32 file (54 MB) is over a shipped model's 16 MiB,
#      so it comes back in parts and is stored in int8 here.
#   A: the 2.3 M-parameter residual policy (fits the limit in float32), trained longer beside B by
#      gpu_policy.sh, which keeps the chunk whose greedy play solves most of our seeded states.
# Only our own seeded uniform states (seed 7) are played on the GPU; DeepCubeA's test states
# are played once, on the CPU, with the network chosen.
#
#   experiments/lightsout7_curve/gpu_ship.sh
#
# (the device tool's call: `bash experiments/lightsout7_curve/gpu_ship.sh`, carry [".whl"]; the
# checkout's tracked files are over the 64 MiB a call sends, so results/, which the run does not
# read, was moved out of the checkout for the call and back after it)
#
# Sizes come from the environment, so the same script runs on the CPU with tiny ones first:
#   DEVICE BATCH B_ITERS B_MIN B_ARCH B_COUNT A_ITERS A_CHUNK A_ARCH A_COUNT A_SECS PART_BYTES.
# Packages the device image lacks: tools/device_env.sh.
# Back under OUT: B-model.pt.partNN (cat them; sha256 in B-model.sha256 inside runs.tgz),
# A-model-best.pt, runs.tgz (configs, logs, selection rows).
set -u
OUT=${OUT:-/tmp/lo7ship-out}
work=${WORK:-runs/gpu-lo7-ship}
mkdir -p "$OUT"; rm -rf "$work"; mkdir -p "$work"
DEVICE=${DEVICE:-cuda}; BATCH=${BATCH:-49000}
B_ITERS=${B_ITERS:-10000}; B_MIN=${B_MIN:-6}; B_COUNT=${B_COUNT:-200}
B_ARCH=${B_ARCH:---arch resnet --h1 5000 --res-dim 1000 --num-blocks 4}
A_ITERS=${A_ITERS:-20000}; A_CHUNK=${A_CHUNK:-2500}; A_SECS=${A_SECS:-420}; A_COUNT=${A_COUNT:-200}
A_ARCH=${A_ARCH:---arch resnet --h1 2048 --res-dim 512 --num-blocks 2}
PART_BYTES=${PART_BYTES:-15000000}
here=$(dirname "$0")
. "$here/../../tools/device_env.sh"
device_info > "$work/env.txt"
cat "$work/env.txt"
start=$(date +%s)

# A, beside B on the same device; stopped after A_SECS whatever its progress
(OUT="$work/A-out" WORK="$work/A" ITERS=$A_ITERS CHUNK=$A_CHUNK BATCH=$BATCH DEVICE=$DEVICE \
    ARCH="$A_ARCH" COUNT=$A_COUNT timeout "$A_SECS" bash "$here/gpu_policy.sh" > "$work/A.log" 2>&1) &
apid=$!

echo "== B: $B_ARCH, $B_ITERS iterations (at most $B_MIN min)"
python3 -m bench train policy lightsout7 $B_ARCH --batch "$BATCH" --amp --device "$DEVICE" \
    --k-max 49 --check-every 1000 --eval-per-depth 100 --seed 1 --iterations "$B_ITERS" \
    --time-limit "$B_MIN" --quiet --out "$work/B" > "$work/B.log" 2>&1
tail -n 3 "$work/B.log"; tail -n 4 "$work/B/depth_log.csv"
echo "B trained at $(( $(date +%s) - start )) s"
python3 -m bench train evaluate lightsout7 --model "$work/B" --set uniform --count "$B_COUNT" \
    --seed 7 --solver beam --width 1 --max-depth 60 --distinct-moves true --time-limit 10 \
    --run-dir "$work/B-eval" 2>"$work/B-eval.err" | tail -n 1 > "$work/B-eval.json"
echo "B greedy on seeded uniform states: $(cat "$work/B-eval.json")"

wait $apid
echo "A ended at $(( $(date +%s) - start )) s"; tail -n 12 "$work/A.log"
if [ -f "$work/A-out/model-best.pt" ] && grep -q '^chosen: iteration [0-9]' "$work/A.log"; then
  cp "$work/A-out/model-best.pt" "$OUT/A-model-best.pt"
else  # stopped by its time, or no chunk could be chosen: the latest chunk it finished
  last=$(ls "$work/A/snap" 2>/dev/null | sed -n 's/^model-\([0-9]*\)\.pt$/\1/p' | sort -n | tail -n 1)
  [ -n "$last" ] && cp "$work/A/snap/model-$last.pt" "$OUT/A-model-best.pt" && echo "A: the chunk at iteration $last"
fi
cp "$work/A/run/config.json" "$work/A-config.json" 2>/dev/null

sha256sum "$work/B/model.pt" | cut -d' ' -f1 > "$work/B-model.sha256"
split -b "$PART_BYTES" -d "$work/B/model.pt" "$OUT/B-model.pt.part"
tar czf "$OUT/runs.tgz" --exclude='*.pt' --exclude='checkpoint*' -C "$work" . 2>/dev/null
ls -la "$OUT"
