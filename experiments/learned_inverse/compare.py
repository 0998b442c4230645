"""Forward beam vs forward + inverse beam from one run's rows (``extra.forward_length`` is the
forward search alone): mean lengths, how often the inverse search was shorter, and, where the
rows carry the optimal length, how often each is optimal.

Usage: python experiments/learned_inverse/compare.py RUN_FOLDER/rows.jsonl
"""

from __future__ import annotations

import json
import sys


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    for config in sorted({r["config"] for r in rows}):
        sel = [r for r in rows if r["config"] == config]
        extras = [json.loads(r["extra"]) if isinstance(r["extra"], str) else r["extra"] for r in sel]
        fwd = [e.get("forward_length") for e in extras]
        inv = [e.get("inverse_length") for e in extras]
        both = [r["length"] for r in sel]
        ok = [i for i in range(len(sel)) if fwd[i] is not None and both[i] is not None]
        n = len(ok)
        print(f"{config}: {len(sel)} rows, {n} with the forward search solved")
        if not n:
            continue
        mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
        print(f"  mean length forward only: {mean([fwd[i] for i in ok]):.3f}")
        inv_ok = [i for i in ok if inv[i] is not None]
        if inv_ok:
            print(f"  mean length inverse only: {mean([inv[i] for i in inv_ok]):.3f} ({len(inv_ok)} solved)")
        print(f"  mean length forward + inverse: {mean([both[i] for i in ok]):.3f}")
        shorter = sum(1 for i in inv_ok if inv[i] < fwd[i])
        longer = sum(1 for i in inv_ok if inv[i] > fwd[i])
        print(f"  inverse shorter: {shorter}/{n}, equal: {len(inv_ok) - shorter - longer}, "
              f"longer: {longer}; moves saved: {sum(fwd[i] - both[i] for i in ok)}")
        times = [r["time_s"] for r in sel]
        print(f"  time s (both searches): mean {mean(times):.2f}, max {max(times):.2f}")
        opt = [r.get("optimal") for r in sel]
        if all(o is not None for o in opt):
            print(f"  optimal forward: {sum(fwd[i] == opt[i] for i in ok)}/{n}, "
                  f"forward + inverse: {sum(both[i] == opt[i] for i in ok)}/{n}")


if __name__ == "__main__":
    main(sys.argv[1])
