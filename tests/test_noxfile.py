"""The nox sessions' set-up: the browser is installed only when asked, and torch's CPU index
only when named (nox itself stands in as a stub: the functions are called with a fake session)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


class FakeSession:
    def __init__(self) -> None:
        self.logs: list[str] = []
        self.installs: list[tuple[str, ...]] = []

    def log(self, text: str) -> None:
        self.logs.append(text)

    def install(self, *args: str) -> None:
        self.installs.append(args)


@pytest.fixture
def noxfile(monkeypatch) -> Any:
    stub = types.ModuleType("nox")
    stub.options = types.SimpleNamespace()  # type: ignore[attr-defined]
    stub.Session = FakeSession  # type: ignore[attr-defined]
    stub.session = lambda f: f  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nox", stub)
    spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def no_browser(monkeypatch) -> list[list[str]]:
    """A root shell with apt-get and no chromedriver; the commands run are recorded, not run."""
    import os
    import shutil

    calls: list[list[str]] = []
    real_exists = os.path.exists
    monkeypatch.setattr(os.path, "exists",
                        lambda p: False if p == "/usr/bin/chromedriver" else real_exists(p))
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd) or
                        subprocess.CompletedProcess(cmd, 0, "", ""))
    return calls


def test_browser_is_installed_only_when_asked(noxfile, no_browser, monkeypatch):
    monkeypatch.delenv("BENCH_INSTALL_BROWSER", raising=False)
    session = FakeSession()
    noxfile._install_browser(session)
    assert no_browser == [] and "BENCH_INSTALL_BROWSER=1" in session.logs[-1]
    monkeypatch.setenv("BENCH_INSTALL_BROWSER", "1")
    noxfile._install_browser(session)
    assert [c[:2] for c in no_browser] == [["apt-get", "update"], ["apt-get", "install"]]
    assert "chromium" in no_browser[1] and "chromium-driver" in no_browser[1]


def test_ci_asks_for_the_browser():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "export BENCH_INSTALL_BROWSER=1" in ci
    assert ci.index("export BENCH_INSTALL_BROWSER=1") < ci.index("python3 -m nox -s tests")


def test_torch_cpu_index_only_when_named(noxfile, monkeypatch):
    monkeypatch.delenv("TORCH_INDEX_URL", raising=False)
    session = FakeSession()
    noxfile._install(session)
    assert session.installs == [("-e", ".[dev]")]
    monkeypatch.setenv("TORCH_INDEX_URL", "https://download.pytorch.org/whl/cpu")
    session = FakeSession()
    noxfile._install(session)
    assert session.installs == [("torch==2.13.0", "--index-url",
                                 "https://download.pytorch.org/whl/cpu"), ("-e", ".[dev]")]
    pin = '"torch==2.13.0"'
    assert pin in (ROOT / "pyproject.toml").read_text()  # the version nox installs is the pin
