"""How torch's OpenMP threads wait between parallel operations; set before torch loads.

A training step on the CPU is a few hundred parallel operations (a cube3 step of 1,000 states
on the ``small`` network: about 300, counted as wake-ups of the second thread), each split over
torch's threads, which meet at a barrier at its end. GNU
OpenMP (``libgomp``, the runtime of torch's Linux wheels) makes an idle thread spin 300,000
times before it sleeps, about 4 ms here, after every operation and at every barrier. On an idle
machine that costs nothing, since each spinning thread owns a core. Beside other processes it
costs a great deal: a thread that spins keeps a core the other jobs, or the partner thread it
waits for, need. Measured on 2 cores beside another 2-thread job, cube3 at batch 1,000 on two
threads, 20 to 30 iterations each: 250 to 700 ms an iteration with the default spin, against
70 to 140 ms with short spins or none, and 3 to 8 times less CPU time for the same work.

:func:`bound_spin_waits` sets ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` (40 to 80 microseconds of
spinning here: of the gaps between the 153 top-level operations of that cube3 step, the median
is 8 microseconds and 28 are longer than 40, so on an idle machine a thread is still spinning
when almost every operation comes, and wakes from sleep a few dozen times a step at most) and, for the LLVM and Intel runtimes, ``KMP_BLOCKTIME`` to 1 ms (their
default is 200 ms). It must run before torch is imported: the runtime reads these variables
when it loads. A choice the user made in the environment (``OMP_WAIT_POLICY``,
``GOMP_SPINCOUNT``, ``KMP_BLOCKTIME``) is kept. Processes started afterwards (the training
processes of ``--nproc``) inherit the setting.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

#: spins of an idle GNU OpenMP thread before it sleeps (the runtime's default: 300,000)
SPIN_COUNT = 3000
#: milliseconds an idle LLVM or Intel OpenMP thread spins before it sleeps (their default: 200)
BLOCK_TIME_MS = 1


def bound_spin_waits(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Set the OpenMP spin limits of the module docstring in ``environ`` (default: this
    process's environment) where the user set no wait policy; returns the variables it set."""
    env = os.environ if environ is None else environ
    if "OMP_WAIT_POLICY" in env:
        return {}
    chosen = {}
    for name, value in (("GOMP_SPINCOUNT", SPIN_COUNT), ("KMP_BLOCKTIME", BLOCK_TIME_MS)):
        if name not in env:
            env[name] = chosen[name] = str(value)
    return chosen
