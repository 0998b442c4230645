#!/usr/bin/env bash
# Wall seconds of `bench train davi cube3 --preset small --threads 2` for the code before the
# learning engine (OLD, a checkout of commit a6b3332) and this checkout (NEW), on an idle machine
# and beside a load, alternating on the same machine (as side_by_side.sh does for states per
# second): batch 1,000 and 10,000, each round running every arm once per batch and load, the arms'
# order reversed every other round. The load is a second `bench train` (this checkout, cube3,
# batch 1,000, one torch thread) at normal priority pinned to the last core with taskset, started
# a few seconds before the timed run (past its imports) and stopped after it. Each timed run is a
# whole command: start-up, training, and the monitoring of its last iteration.
#
# Usage: experiments/learning_engine/side_by_side_load.sh OLD_CHECKOUT OUT_DIR [ROUNDS]
#   env BATCHES="1000:400 10000:100"  batch:iterations pairs
#       LOADS="idle loaded"           which conditions
#       ARMS="old new"                add new-spin: this checkout with GOMP_SPINCOUNT=300000
#                                     (GNU OpenMP's default spin, as before learning/openmp.py)
#       LOAD_WARMUP=5                 seconds the load runs before a timed run starts
#       TRAIN_OPTS=""                 more options of the timed runs (a quick check of this
#                                     script: "--eval-per-depth 2 --eval-max-steps 2")
# Writes OUT_DIR/runs.csv (one row per timed run, appended), OUT_DIR/machine.txt, and prints a
# table of median wall seconds and ratios (OLD / NEW: above 1, NEW is faster).
# Run it on a machine with nothing else running; `idle` rows record the load average before
# each run (column loadavg) so that a busy machine shows.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_CHECKOUT OUT_DIR [ROUNDS]" >&2; exit 2
fi
[ -d "$1" ] || { echo "error: OLD_CHECKOUT $1 is not a folder" >&2; exit 2; }
case ${3:-3} in ''|*[!0-9]*) echo "error: ROUNDS must be a whole number, got $3" >&2; exit 2 ;; esac
old=$(cd "$1" && pwd); outdir=$2; rounds=${3:-3}
new=$(cd "$(dirname "$0")/../.." && pwd)
batches=${BATCHES:-"1000:400 10000:100"}
loads=${LOADS:-"idle loaded"}
arms=${ARMS:-"old new"}
warmup=${LOAD_WARMUP:-5}
read -r -a train_opts <<< "${TRAIN_OPTS:-}"
for d in "$old" "$new"; do
  [ -d "$d/bench" ] || { echo "error: $d is not a checkout of this project" >&2; exit 2; }
done
mkdir -p "$outdir"
csv="$outdir/runs.csv"
tmp=$(mktemp -d)
load_pid=""
cleanup() {
  if [ -n "$load_pid" ]; then kill "$load_pid" 2>/dev/null || true; wait "$load_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
[ -n "$cpu" ] || cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc)
last_core=$((cores - 1))
{
  echo "cpu: $cpu"
  echo "cpuid: $(grep -m3 -E '^(cpu family|model|stepping)[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ' | paste -sd/ -) (family/model/stepping)"
  echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_bf16|amx_bf16)$' | paste -sd' ' -)"
  echo "cores: $cores"
  echo "kernel: $(uname -r)"
  echo "torch: $(cd "$new" && PYTHONPATH=$new python -c 'import torch; print(torch.__version__)')"
  echo "old: $old $(git -C "$old" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "new: $new $(git -C "$new" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$new" diff --quiet HEAD 2>/dev/null || echo ' (uncommitted changes)')"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command: bench train davi cube3 --preset small --batch B --threads 2 --iterations N --quiet ${TRAIN_OPTS:-}"
  echo "load: taskset -c $last_core bench train davi cube3 --preset small --batch 1000 --threads 1 (this checkout)"
} > "$outdir/machine.txt"
[ -s "$csv" ] || echo "round,batch,iterations,load,arm,commit,wall_s,user_s,sys_s,loadavg,cores,cpu" > "$csv"

start_load() {
  (cd "$new" && exec env PYTHONPATH="$new" taskset -c "$last_core" python -m bench train davi cube3 \
     --preset small --batch 1000 --threads 1 --iterations 100000000 --out "$tmp/load-$RANDOM" \
     --quiet >/dev/null 2>&1) &
  load_pid=$!
  sleep "$warmup"
  kill -0 "$load_pid" 2>/dev/null || { echo "error: the load process stopped" >&2; exit 1; }
}

stop_load() {
  kill "$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=""
}

timed() {  # $1 round, $2 batch, $3 iterations, $4 load, $5 arm
  local round=$1 batch=$2 iters=$3 load=$4 arm=$5 dir extra=()
  case $arm in
    old) dir=$old ;;
    new) dir=$new ;;
    new-spin) dir=$new; extra=(GOMP_SPINCOUNT=300000) ;;
    *) echo "error: unknown arm $arm (old, new, new-spin)" >&2; exit 2 ;;
  esac
  local out="$tmp/run-$RANDOM" times="$tmp/time-$RANDOM" avg
  avg=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$dir" && env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u KMP_BLOCKTIME PYTHONPATH="$dir" \
     "${extra[@]}" /usr/bin/time -f "%e %U %S" -o "$times" python -m bench train davi cube3 \
     --preset small --batch "$batch" --threads 2 --iterations "$iters" --out "$out" --quiet \
     "${train_opts[@]}" >/dev/null)
  read -r wall user sys < "$times"
  rm -rf "$out"
  echo "$round,$batch,$iters,$load,$arm,$(git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '?'),$wall,$user,$sys,$avg,$cores,\"$cpu\"" >> "$csv"
  printf 'round %s batch %6s %-6s %-8s %7.1f s wall, %7.1f s cpu\n' "$round" "$batch" "$load" "$arm" \
    "$wall" "$(echo "$user + $sys" | bc)"
}

for r in $(seq "$rounds"); do
  order=$arms
  [ $((r % 2)) -eq 0 ] && order=$(echo "$arms" | tr ' ' '\n' | tac | tr '\n' ' ')
  for spec in $batches; do
    batch=${spec%%:*}; iters=${spec##*:}
    for load in $loads; do
      for arm in $order; do
        [ "$load" = loaded ] && start_load
        timed "$r" "$batch" "$iters" "$load" "$arm"
        [ "$load" = loaded ] && stop_load
      done
    done
  done
done

python - "$csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {}
for r in rows:
    cells.setdefault((int(r["batch"]), r["load"]), {}).setdefault(r["arm"], []).append(float(r["wall_s"]))
arms = [a for a in ("old", "new", "new-spin") if any(a in c for c in cells.values())]
print(f"\nmedian wall seconds ({rows[0]['cpu']}, {rows[0]['cores']} cores; runs per cell in brackets)")
head = f"{'batch':>6} {'load':<7}" + "".join(f"{a:>14}" for a in arms) + f"{'old/new':>9}"
if "new-spin" in arms:
    head += f"{'spin/new':>9}"
print(head)
for (batch, load), c in sorted(cells.items()):
    med = {a: statistics.median(v) for a, v in c.items()}
    line = f"{batch:>6} {load:<7}" + "".join(
        f"{med[a]:>9.1f} [{len(c[a])}]" if a in med else f"{'-':>14}" for a in arms)
    line += f"{med['old'] / med['new']:>8.2f}x" if "old" in med and "new" in med else f"{'-':>9}"
    if "new-spin" in arms:
        line += f"{med['new-spin'] / med['new']:>8.2f}x" if "new-spin" in med and "new" in med else f"{'-':>9}"
    print(line)
EOF
