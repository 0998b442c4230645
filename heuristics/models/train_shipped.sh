#!/usr/bin/env bash
# Retrain the shipped models (CPU, one torch thread each, two runs at a time).
# Usage: heuristics/models/train_shipped.sh RUNS_DIR ; then copy model.pt, config.json, log.csv,
# depth_log.csv of each run into heuristics/models/<puzzle>/.
set -euo pipefail
runs=${1:-runs/shipped}
train() { nice -n 10 python -m bench train davi "$@" --threads 1 --quiet; }
(
  train cube2 --out "$runs/cube2" --h1 256 --res-dim 128 --num-blocks 2 --batch 1000 \
    --k-max 20 --epsilon 0.1 --check-every 50 --lr-decay 0.9998 --eval-per-depth 50 \
    --iterations 100000 --time-limit 12
  train puzzle8 --out "$runs/puzzle8" --h1 256 --res-dim 128 --num-blocks 2 --batch 1000 \
    --k-max 40 --epsilon 0.1 --check-every 30 --lr-decay 0.9998 --eval-per-depth 50 \
    --iterations 100000 --time-limit 12
  train lightsout7 --out "$runs/lightsout7" --h1 256 --res-dim 128 --num-blocks 1 --batch 500 \
    --k-max 50 --epsilon 1.0 --check-every 20 --lr-decay 0.9998 --eval-per-depth 30 \
    --iterations 100000 --time-limit 12
) &
(
  train puzzle15 --out "$runs/puzzle15" --h1 256 --res-dim 128 --num-blocks 2 --batch 1000 \
    --k-max 100 --epsilon 0.15 --check-every 20 --lr-decay 0.9998 --eval-per-depth 20 \
    --eval-max-steps 100 --iterations 100000 --time-limit 22
  train cube3 --out "$runs/cube3" --h1 256 --res-dim 128 --num-blocks 2 --batch 1000 \
    --k-max 30 --epsilon 0.1 --check-every 20 --lr-decay 0.9998 --eval-per-depth 20 \
    --eval-max-steps 70 --iterations 100000 --time-limit 22
) &
wait
