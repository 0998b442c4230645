#!/usr/bin/env bash
# Continue the shipped diffusion-distance networks on a GPU: each run's committed full state
# (results/training/P-mlp-diffusion/, the state the shipped model came from) resumed with
# `bench train diffusion P --resume --device cuda` for SECS seconds, on a new learning-rate
# schedule from LR down to LR_END over the iterations the device runs in that time (measured
# first over PROBE iterations at LR). Back under OUT: the runs' full states (checkpoint.pt,
# config.json, logs; no model.pt, which the checkpoint holds) as one tar in parts of at most
# PART_BYTES, and env.txt; unpack with `cat runs.tar.part* | tar x -C runs/gpu-train`, then
# select and ship on the CPU (`learning.ship`), choosing the search on seeded states as always.
#
#   heuristics/models/train_gpu.sh
#
# Sizes come from the environment, so the same script runs on the CPU with tiny ones first:
#   SRC (where the runs are; default .carry/training, a copy of results/training's folders in an
#   ignored folder, for a machine that gets the checkout without results/), PUZZLES, SECS, LR,
#   LR_END, PROBE, DEVICE, PART_BYTES.
#
# Before the call, here: the four runs' folders (about 53 MB) in an ignored folder that the call
# carries, and results/ and heuristics/models/ (which the run does not read) set aside for the
# call, so that what travels stays under the 64 MiB a call takes:
#   mkdir -p .carry/training && echo /.carry/ >> .git/info/exclude
#   git restore --source=a668dcd -- results/training   # the checkpoints are kept in history
#   cp -r results/training/{puzzle24,puzzle35,puzzle48,cube3}-mlp-diffusion .carry/training/
set -u
. "$(dirname "$0")/../../tools/device_env.sh"  # packages the image lacks
OUT=${OUT:-/tmp/gpu-train-out}
work=${WORK:-runs/gpu-train}
SRC=${SRC:-.carry/training}
PUZZLES=${PUZZLES:-puzzle24 puzzle35 puzzle48 cube3}
SECS=${SECS:-80}; LR=${LR:-3e-4}; LR_END=${LR_END:-1e-5}; PROBE=${PROBE:-300}
DEVICE=${DEVICE:-cuda}; PART_BYTES=${PART_BYTES:-15000000}
mkdir -p "$OUT"; rm -rf "$work"; mkdir -p "$work"
device_info > "$work/env.txt"
cat "$work/env.txt"
field() {  # field RUN KEY: a number from the run's config.json
  python3 -c "import json,sys; print(json.load(open(sys.argv[1] + '/config.json'))[sys.argv[2]])" "$1" "$2"
}
for p in $PUZZLES; do
  run="$work/$p-mlp-diffusion"
  cp -r "$SRC/$p-mlp-diffusion" "$run" 2>/dev/null || { echo "$p: no run in $SRC"; continue; }
  rm -f "$run/model.pt"
  it0=$(field "$run" iteration); s0=$(field "$run" train_seconds)
  python3 -m bench train diffusion "$p" --resume --device "$DEVICE" --iterations "$PROBE" \
      --lr "$LR" --lr-decay 1.0 --quiet --out "$run" > "$work/$p-probe.log" 2>&1 \
      || { echo "$p: the probe failed"; tail -n 5 "$work/$p-probe.log"; continue; }
  s1=$(field "$run" train_seconds)
  # iterations a second: the probe's own rate (its last line), else its seconds with the checks
  rate=$(python3 -c "import json,re,sys
m = re.findall(r'([0-9.]+) states/s', open(sys.argv[1]).read())
batch = json.load(open(sys.argv[2] + '/config.json'))['train_config']['batch']
dt = float(sys.argv[4]) - float(sys.argv[3])
print(float(m[-1]) / batch if m else float(sys.argv[5]) / max(dt, 1e-3))" \
      "$work/$p-probe.log" "$run" "$s0" "$s1" "$PROBE")
  decay=$(python3 -c "import math,sys
rate, secs, lr, end = (float(v) for v in sys.argv[1:])
n = max(1.0, rate * secs)   # iterations expected in SECS
print(f'{math.exp(math.log(end / lr) / n):.10f}')" "$rate" "$SECS" "$LR" "$LR_END")
  echo "== $p: from iteration $it0, $rate iterations a second; lr $LR x $decay per iteration for $SECS s"
  python3 -m bench train diffusion "$p" --resume --device "$DEVICE" --iterations 1000000000 \
      --time-limit "$(python3 -c "print($SECS / 60)")" --lr "$LR" --lr-decay "$decay" --quiet \
      --out "$run" > "$work/$p-train.log" 2>&1 || echo "$p: training stopped with an error"
  tail -n 2 "$work/$p-train.log"
  echo "$p: iteration $(field "$run" iteration)"; rm -f "$run/model.pt"
done
tar cf - -C "$work" . | split -b "$PART_BYTES" -d - "$OUT/runs.tar.part"
cp "$work/env.txt" "$OUT/"
ls -la "$OUT"
