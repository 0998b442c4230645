#!/usr/bin/env bash
# Lights Out 7x7 policy training at EfficientCube's scale, on a lent GPU (one call).
# Two networks, each for a fixed wall time, 49,000 states per iteration (1,000 walks x 49 as
# EfficientCube), then greedy play (beam width 1) on DeepCubeA's first COUNT test states.
# Sizes come from the environment so the same script is tried on the CPU with tiny ones first:
#   MIN_A MIN_B (minutes), BATCH, COUNT, DEVICE, A_ARCH, B_ARCH ("--arch .. --h1 .. --preset ..")
set -u
. "$(dirname "$0")/../../tools/device_env.sh"  # packages the device image lacks, device_info
OUT=${OUT:-/tmp/lo7gpu-out}
mkdir -p "$OUT"
work=${WORK:-runs/gpu-lo7}
rm -rf "$work"; mkdir -p "$work"
MIN_A=${MIN_A:-2.5}; MIN_B=${MIN_B:-3.5}; BATCH=${BATCH:-49000}; COUNT=${COUNT:-200}
DEVICE=${DEVICE:-cuda}
A_ARCH=${A_ARCH:---arch resnet --h1 2048 --res-dim 512 --num-blocks 2}
B_ARCH=${B_ARCH:---arch resnet --h1 5000 --res-dim 1000 --num-blocks 4}
device_info | tee "$OUT/env.txt"
for run in A B; do
  if [ $run = A ]; then arch=$A_ARCH; mins=$MIN_A; else arch=$B_ARCH; mins=$MIN_B; fi
  secs=$(python3 -c "print(int($mins*60+90))")
  echo "== train $run ($arch, $mins min)"
  timeout "$secs" python3 -m bench train policy lightsout7 $arch --batch "$BATCH" --amp \
      --device "$DEVICE" --k-max 49 --check-every 500 --eval-per-depth 100 --seed 1 \
      --iterations 10000 --time-limit "$mins" --quiet --out "$work/$run" 2>&1 | tail -n 4
  tail -n 10 "$work/$run/depth_log.csv"
  echo "== greedy on DeepCubeA's first $COUNT ($run)"
  timeout 120 python3 -m bench train evaluate lightsout7 --model "$work/$run" --set deepcubea \
      --count "$COUNT" --solver beam --width 1 --max-depth 100 --time-limit 10 \
      --out "$work/$run/greedy-deepcubea.csv" --run-dir "$work/$run/eval" 2>&1 | tail -n 1
done
cp "$work/A/model.pt" "$OUT/A-model.pt" 2>/dev/null
tar czf "$OUT/runs.tgz" --exclude='*.pt' -C "$work" . 2>/dev/null
ls -la "$OUT"
