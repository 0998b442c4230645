"""The README stays short, starts with the two commands, and links only to what exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_short():
    assert len(README.read_text()) <= 12_000


def test_readme_first_commands_install_run_and_test():
    blocks = re.findall(r"^ {4}(\S.*)$", README.read_text(), re.M)
    assert blocks[:2] == ["pip install -e . && bench run suite cube3",
                          "pip install nox && nox -s tests"]


def test_readme_links_resolve():
    assert _hooks().readme_link_problems(README) == []


def test_readme_link_check_finds_broken_links(tmp_path):
    (tmp_path / "a.md").write_text("# Title here\n")
    readme = tmp_path / "README.md"
    readme.write_text("[ok](a.md#title-here) [gone](b.md) [bad](a.md#nope) `[code](c.md)`\n\n"
                      "    [indented](d.md)\n")
    problems = _hooks().readme_link_problems(readme)
    assert len(problems) == 2 and "b.md" in problems[0] and "nope" in problems[1]
