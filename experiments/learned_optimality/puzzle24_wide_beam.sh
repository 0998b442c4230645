#!/usr/bin/env bash
# The shipped puzzle24 network (heuristics/models/puzzle24) under a beam twice as wide as its
# recommended 16,384: width 32,768, bfloat16, two threads, 60 s per state, on DeepCubeA's first
# 100 states (% optimal against the optimal solutions in DeepCubeA's test file). A point of the
# curve of % optimal against search time near the 60 s limit, not a choice of search: the
# recommended width stays the one chosen on seeded states.
# Usage: experiments/learned_optimality/puzzle24_wide_beam.sh OUT_DIR [WIDTH ...]
set -euo pipefail
out=${1:?usage: puzzle24_wide_beam.sh OUT_DIR [WIDTH ...]}
shift
[ $# -eq 0 ] && set -- 32768
mkdir -p "$out/runs"
for width in "$@"; do
  [ -f "$out/shipped-w$width.csv" ] && continue
  python -m bench train evaluate puzzle24 --model heuristics/models/puzzle24 --set deepcubea \
    --count 100 --solver beam --width "$width" --precision bfloat16 --threads 2 --time-limit 60 \
    --run-dir "$out/runs/w$width" --out "$out/shipped-w$width.csv" > "$out/w$width.log" 2>&1
done
