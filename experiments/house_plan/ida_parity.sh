#!/usr/bin/env bash
# Every IDA* kernel, old code against new, side by side: node counts must be identical and the
# node rate at least the old one. OLD is a checkout of the code before the change (e.g.
# `git worktree add /tmp/old <rev>`); both run tests/benchmarks/ida_kernels.py of this checkout,
# one kernel at a time, alternating old/new for ROUNDS rounds, one Numba thread each (each run
# solves its instances once untimed, which compiles and loads, then times a second pass).
# Usage: experiments/house_plan/ida_parity.sh OLD [ROUNDS] > results/house-plan/ida_parity.jsonl
set -euo pipefail
old=$1
rounds=${2:-3}
new=$(cd "$(dirname "$0")/../.." && pwd)
script="$new/tests/benchmarks/ida_kernels.py"
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export BENCH_SHARED=${BENCH_SHARED:-$(cd "$new/.." && pwd)/shared}  # both read the same data
kernels=(tiles-manhattan tiles-linear-conflict tiles-pdb-555 tiles-pdb-555-reflect tiles-pdb-44
         cube-korf cube2 lights-on)
for r in $(seq "$rounds"); do
  for k in "${kernels[@]}"; do
    for side in old new; do
      dir=$([ "$side" = old ] && echo "$old" || echo "$new")
      (cd "$dir" && PYTHONPATH="$dir" python "$script" "$k" --repeat 1 2>/dev/null) |
        python -c "import json,sys; [print(json.dumps({**json.loads(l), 'side': '$side', 'round': $r})) for l in sys.stdin]"
    done
  done
done
