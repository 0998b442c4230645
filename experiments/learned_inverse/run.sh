#!/usr/bin/env bash
# Forward vs forward + inverse beam on 30 of our seeded deep scrambles (width 8,192), then the
# comparison of the two from the same rows. From the repository root.
set -euo pipefail
bench run suite cube3 --profile inverse-select -j 1 --threads 2 --out runs/cube3-inverse-select
python experiments/learned_inverse/compare.py runs/cube3-inverse-select/rows.jsonl
