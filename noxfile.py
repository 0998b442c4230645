"""nox sessions: tests, lint, typecheck, bench (benchmarks), nojit (smallest tests without JIT),
docs (the documentation site), plugin (the example plugin package installed beside the project)."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]
REGRESSION = "tests/benchmarks/test_bench_suite.py"
nox.options.reuse_existing_virtualenvs = True

INSTALL = ["-e", ".[dev]"]
#: the regression gate's allowed slowdown of a benchmark's figure (its seconds over its reference
#: workload's, tests/benchmarks/compare.py) where the CPU is the baseline's, and on another CPU;
#: chosen from the noise measured by tests/benchmarks/noise.py (tests/benchmarks/NOISE.md)
GATE_FACTOR = "1.15"
OTHER_CPU_FACTOR = "2"
#: one thread per pool while benchmarks run (the conftest also pins Numba and torch)
ONE_THREAD = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1"}


def _install(session: nox.Session) -> None:
    # torch is pinned (==2.13.0) in pyproject.toml, but the pin does not choose a CPU build:
    # where pip finds no local CPU wheel, PyPI's Linux x86-64 wheel is CUDA's (527 MB and 17
    # NVIDIA packages). TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu installs the
    # pinned version from that index first (README.md: "CPU build of torch").
    import os

    index = os.environ.get("TORCH_INDEX_URL")
    if index:
        session.install("torch==2.13.0", "--index-url", index)
    session.install(*INSTALL)


#: Debian's headless browser and its WebDriver, for the viewer's browser tests
BROWSER_PACKAGES = ["chromium", "chromium-driver"]


#: the variable that asks ``nox -s tests`` to install the browser (``.ci/run`` sets it)
INSTALL_BROWSER = "BENCH_INSTALL_BROWSER"


def _install_browser(session: nox.Session) -> None:
    """Install Chromium and /usr/bin/chromedriver from Debian's packages, only when asked
    (``BENCH_INSTALL_BROWSER=1``), when they are missing and apt-get can run as root (about
    15 s, 121 MB of downloads). Never fails the session: the browser tests skip, saying why,
    when there is no browser."""
    import os
    import shutil
    import subprocess

    if os.path.exists("/usr/bin/chromedriver"):
        return
    if os.environ.get(INSTALL_BROWSER) != "1":
        session.log(f"no /usr/bin/chromedriver: the browser tests skip ({INSTALL_BROWSER}=1 "
                    "installs Debian's chromium and chromium-driver as root)")
        return
    if shutil.which("apt-get") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        session.log("no /usr/bin/chromedriver and no apt-get as root: the browser tests skip")
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", *BROWSER_PACKAGES]):
        session.log(" ".join(cmd))
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            session.log(f"{cmd[1]} did not finish ({exc}): the browser tests skip")
            return
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            session.log(f"apt-get {cmd[1]} failed ({' '.join(tail)}): the browser tests skip")
            return


@nox.session
def tests(session: nox.Session) -> None:
    """The full test suite (small PDBs, tiny networks; the viewer in headless Chromium, which
    is installed only when BENCH_INSTALL_BROWSER=1 asks for it)."""
    _install(session)
    _install_browser(session)
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
    # refresh with: python tests/benchmarks/compare.py OUTS... --update (tests/benchmarks/NOISE.md)
    session.run("python", "tests/benchmarks/compare.py", *outs, "--factor", GATE_FACTOR,
                "--other-cpu-factor", OTHER_CPU_FACTOR)


@nox.session
def benchgate(session: nox.Session) -> None:
    """The regression set twice against the baseline: each benchmark's seconds over those of a
    reference workload of the same kind timed beside it (tests/benchmarks/compare.py), the
    least of the two runs' figures failing on a slowdown over GATE_FACTOR on a CPU the baseline
    has an entry for, OTHER_CPU_FACTOR on another (tests/benchmarks/NOISE.md: the noise that
    chose them). About a minute on 2 cores."""
    _install(session)
    outs = [f".benchmarks/gate{i}.json" for i in (1, 2)]
    for out in outs:  # two runs; each benchmark's least figure counts (--best)
        session.run("pytest", REGRESSION, "--benchmark-enable", "--benchmark-only",
                    f"--benchmark-json={out}", env=ONE_THREAD)
    session.run("python", "tests/benchmarks/compare.py", *outs, "--best", "--factor", GATE_FACTOR,
                "--other-cpu-factor", OTHER_CPU_FACTOR)


@nox.session
def nojit(session: nox.Session) -> None:
    """The smallest tests with NUMBA_DISABLE_JIT=1 (kernels run as plain Python)."""
    _install(session)
    session.run("pytest", "-m", "nojit", *session.posargs, env={"NUMBA_DISABLE_JIT": "1"})


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site, built with ``mkdocs build --strict`` into ``site/`` (ignored by
    git): a broken link or missing page in the site or in README.md fails the session. The
    reference pages import the project, so it is installed with the ``docs`` extra."""
    session.install("-e", ".[docs]")
    session.run("mkdocs", "build", "--strict", "--site-dir", "site", *session.posargs,
                env={"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"})


#: the example plugin package (its own pyproject.toml: entry points of heuristic_bench.*)
PLUGIN_EXAMPLE = "examples/plugin-example"


@nox.session
def plugin(session: nox.Session) -> None:
    """The example plugin (bench-pancake) installed from its folder into the project's venv, as
    a user installs one: its entries in `bench list`, solved by `bench solve`, run in a suite
    (with an ONNX model that reads the plugin's own encoding); the loader's unit tests too."""
    _install(session)
    session.install(PLUGIN_EXAMPLE)
    session.run("pytest", f"{PLUGIN_EXAMPLE}/tests", "tests/test_plugins.py", *session.posargs)
