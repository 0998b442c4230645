"""The OpenMP spin limits ``bench train`` sets before torch loads (``learning.openmp``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from learning.openmp import BLOCK_TIME_MS, SPIN_COUNT, bound_spin_waits

ROOT = Path(__file__).resolve().parents[1]
WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def test_sets_both_runtimes_limits_when_the_user_chose_none():
    env = {"PATH": "/bin"}
    chosen = bound_spin_waits(env)
    assert chosen == {"GOMP_SPINCOUNT": str(SPIN_COUNT), "KMP_BLOCKTIME": str(BLOCK_TIME_MS)}
    assert env["GOMP_SPINCOUNT"] == "3000" and env["KMP_BLOCKTIME"] == "1"
    assert SPIN_COUNT < 300_000  # below GNU OpenMP's own default


def test_keeps_the_users_choice():
    env = {"OMP_WAIT_POLICY": "ACTIVE"}
    assert bound_spin_waits(env) == {}
    assert env == {"OMP_WAIT_POLICY": "ACTIVE"}
    env = {"GOMP_SPINCOUNT": "300000"}
    assert bound_spin_waits(env) == {"KMP_BLOCKTIME": "1"}
    assert env["GOMP_SPINCOUNT"] == "300000"


def test_bench_train_sets_the_limit_before_torch_loads(tmp_path):
    """The train group loads without torch, and its callback sets the limit before a training
    command imports torch (the runtime reads it when it loads)."""
    code = (
        "import os, sys\n"
        "from bench.cli import main\n"
        "import bench.commands.train_models\n"
        "print('torch' in sys.modules)\n"
        "try:\n"
        f"    main(['train', 'davi', 'puzzle8', '--iterations', '0', '--preset', 'tiny', "
        f"'--batch', '8', '--quiet', '--out', {str(tmp_path / 'run')!r}])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code or 0)\n"
        "print('torch' in sys.modules, os.environ.get('GOMP_SPINCOUNT'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in WAIT_VARIABLES}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    lines = [ln for ln in out.stdout.splitlines() if ln in ("False", "True 3000")]
    assert lines == ["False", "True 3000"], out.stdout + out.stderr
    assert (tmp_path / "run" / "checkpoint.pt").is_file()
