"""nox sessions: tests, lint, typecheck, bench (benchmarks), nojit (smallest tests without JIT)."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]
REGRESSION = "tests/benchmarks/test_bench_suite.py"
nox.options.reuse_existing_virtualenvs = True

INSTALL = ["-e", ".[dev]"]
#: one thread per pool while benchmarks run (the conftest also pins Numba and torch)
ONE_THREAD = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


def _install(session: nox.Session) -> None:
    # torch is pinned (==2.13.0) in pyproject.toml so pip never pulls a CUDA build.
    session.install(*INSTALL)


@nox.session
def tests(session: nox.Session) -> None:
    """The full test suite (small PDBs, tiny networks)."""
    _install(session)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    _install(session)
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """Regression benchmarks (small fixed workloads), compared against the committed baseline.

    ``nox -s bench -- tests/benchmarks`` runs every benchmark, the measurement ones too (PDB
    builds, IDA* over Korf's instances, BWAS on DeepCubeA's sets: an hour or more on 2 cores);
    the comparison then lists those as new.
    """
    _install(session)
    outs = [f".benchmarks/latest{i}.json" for i in (1, 2, 3)]
    for out in outs:  # three runs; the comparison takes each benchmark's median ratio
        session.run(
            "pytest", *(session.posargs or [REGRESSION]), "--benchmark-enable", "--benchmark-only",
            f"--benchmark-json={out}", env=ONE_THREAD,
        )
    # fails on a large slowdown; refresh with: python tests/benchmarks/compare.py OUTS... --update
    session.run("python", "tests/benchmarks/compare.py", *outs)


@nox.session
def benchgate(session: nox.Session) -> None:
    """The regression set once, against the baseline with a generous factor (6x): fast enough
    for CI, and a large slowdown cannot land unseen."""
    _install(session)
    out = ".benchmarks/gate.json"
    session.run("pytest", REGRESSION, "--benchmark-enable", "--benchmark-only",
                f"--benchmark-json={out}", env=ONE_THREAD)
    session.run("python", "tests/benchmarks/compare.py", out, "--factor", "6")


@nox.session
def nojit(session: nox.Session) -> None:
    """The smallest tests with NUMBA_DISABLE_JIT=1 (kernels run as plain Python)."""
    _install(session)
    session.run("pytest", "-m", "nojit", *session.posargs, env={"NUMBA_DISABLE_JIT": "1"})
