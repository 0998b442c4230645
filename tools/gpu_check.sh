#!/usr/bin/env bash
# The CUDA paths of training and search, checked and timed on a machine with a GPU.
#
#   OUT=gpu-check tools/gpu_check.sh            # every step; logs in $OUT/STEP.log
#   DEV=cpu ITER=2 MIN=0.1 WIDTH=64 tools/gpu_check.sh   # the same steps, small, on the CPU
#   ONLY='rate|infer' tools/gpu_check.sh        # the steps whose names match a regular expression
#
# Steps: training rates (DAVI, DAVI with bfloat16 autocast, diffusion), evaluation rates,
# DAVI and policy training with a resume, a model trained on the device loaded on the CPU, and
# beam search and BWAS with the committed cube3 guides on the device and on the CPU on the same
# states (every path replayed by `bench solve`).
set -u
OUT=${OUT:-gpu-check}; DEV=${DEV:-cuda}; ITER=${ITER:-20}; MIN=${MIN:-1}; WIDTH=${WIDTH:-8192}
mkdir -p "$OUT"
if [ -d .whl ] && ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-}
B=(python3 -m bench.cli)
MODELS=results/training/learned-guides
# the guides' weights are kept in history (results/training/README.md)
[ -f "$MODELS/cube3-davi/model.pt" ] || git restore --source=a668dcd -- "$MODELS"
step() {
  local name=$1; shift
  [[ $name =~ ${ONLY:-.} ]] || return 0
  local t0; t0=$(date +%s.%N)
  timeout 300 "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  printf '== %s: rc %s, %s s\n' "$name" "$rc" "$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 1))")"
  grep -v '%|' "$OUT/$name.log" | tail -n 3
}
nvidia-smi -L 2>/dev/null
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
step rate-davi "${B[@]}" train rate cube3 --target davi --device "$DEV" --iterations "$ITER"
step rate-davi-amp "${B[@]}" train rate cube3 --target davi --amp --device "$DEV" --iterations "$ITER"
step rate-diffusion "${B[@]}" train rate cube3 --target diffusion --device "$DEV" --iterations "$ITER"
step infer "${B[@]}" train infer-rate cube3 --device "$DEV"
step train-davi "${B[@]}" train davi cube3 --device "$DEV" --time-limit "$MIN" --out "$OUT/davi"
step resume-davi "${B[@]}" train davi cube3 --device "$DEV" --resume --iterations 10 --out "$OUT/davi"
step train-policy "${B[@]}" train policy cube3 --device "$DEV" --time-limit "$MIN" --out "$OUT/policy"
mapfile -t STATES < <("${B[@]}" scramble cube3 --depth 40 --count 2 --seed 2026)
step cpu-load "${B[@]}" solve cube3 "${STATES[0]}" --heuristic davi --model "$OUT/davi" \
  --device cpu --solver beam --width 64 --max-depth 30 --json
i=0
for s in "${STATES[@]}"; do
  i=$((i + 1))
  for dev in "$DEV" cpu; do
    step "beam-davi-$i-$dev" "${B[@]}" solve cube3 "$s" --heuristic davi --model "$MODELS/cube3-davi" \
      --device "$dev" --solver beam --width "$WIDTH" --max-depth 80 --time-limit 120 --json
    step "beam-policy-$i-$dev" "${B[@]}" solve cube3 "$s" --heuristic policy \
      --model "$MODELS/cube3-policy" --device "$dev" --solver beam --width "$WIDTH" --max-depth 80 \
      --time-limit 120 --json
  done
  step "bwas-diffusion-$i-$DEV" "${B[@]}" solve cube3 "$s" --heuristic davi \
    --model "$MODELS/cube3-diffusion" --device "$DEV" --solver bwas --weight 0.6 --batch 1000 \
    --time-limit 120 --json
done
# every log and run folder's logs in one archive (the machine keeps nothing)
tar czf "$OUT/gpu-check.tgz" --exclude='*.pt' --exclude='gpu-check.tgz' -C "$OUT" .
