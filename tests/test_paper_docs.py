"""Each paper table is described once, in its declaration: ``bench paper --help`` and the
documentation's page of paper tables are made from it, no module docstring restates it, and no
table computes or writes a percentage of its own (every share comes from ``bench.columns``)."""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import columns, papers

ROOT = Path(__file__).resolve().parent.parent
PAPERS_DIR = ROOT / "bench" / "papers"


def _gen_pages():
    spec = importlib.util.spec_from_file_location("docs_gen_pages",
                                                  ROOT / "tools" / "docs" / "gen_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _words(text: str) -> str:
    return " ".join(text.split())


def _sections(page: str) -> dict[str, str]:
    parts = re.split(r"^## `([^`]+)`\n", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


# --------------------------------------------------------------------------- the docs page
def test_generated_page_has_every_table_with_its_declared_description():
    gen = _gen_pages()
    page = gen.paper_page()
    sections = _sections(page)
    assert list(sections) == list(papers.PAPERS)  # every table, once, in the registry's order
    for table in papers.declarations():
        section = sections[table.name]
        assert gen.plain(table.summary) in section, table.name
        assert gen.plain(table.instances) in section, table.name
        assert f"`bench paper {table.name}`" in section
        for name in table.published:
            assert f"`{name}`" in section, (table.name, name)
        for run in table.from_runs:
            assert f"(results/{run}/index.md)" in section, (table.name, run)


def test_page_intro_is_the_only_hand_written_part():
    """``docs/paper.md`` holds the introduction only: no table is described there by hand."""
    intro = (ROOT / "docs" / "paper.md").read_text()
    assert not re.search(r"^## ", intro, re.M)
    for table in papers.declarations():
        assert f"`{table.name}`" not in intro, table.name
    assert _gen_pages().paper_page().startswith(intro.rstrip("\n"))


def test_plain_text_is_shown_as_written():
    gen = _gen_pages()
    assert gen.plain("IDA* on S_1 [--out OUT] a|b") == r"IDA\* on S\_1 \[--out OUT\] a\|b"


def test_declared_runs_and_method_pages_exist():
    hooks_spec = importlib.util.spec_from_file_location("docs_hooks",
                                                        ROOT / "tools" / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(hooks_spec)
    hooks_spec.loader.exec_module(hooks)
    for table in papers.declarations():
        for run in table.from_runs:
            assert (ROOT / "results" / run).is_dir(), (table.name, run)
        if table.method is not None:
            page, _, anchor = table.method[1].partition("#")
            assert (ROOT / "docs" / page).is_file(), table.method
            assert not anchor or anchor in hooks.anchors(ROOT / "docs" / page), table.method


def test_help_lists_every_declared_summary():
    from bench.cli import cli

    out = CliRunner().invoke(cli, ["paper", "--help"], terminal_width=100)
    assert out.exit_code == 0, out.output
    text = re.sub(r"\s+", "", out.output)  # click wraps lines, also after a hyphen
    for table in papers.declarations():
        assert re.sub(r"\s+", "", f"{table.name}: {table.summary}") in text, table.name


def test_module_docstrings_do_not_restate_the_summary():
    for table in papers.declarations():
        module = importlib.import_module(papers.PAPERS[table.name].partition(":")[0])
        doc = _words(module.__doc__ or "").lower()
        summary = _words(table.summary).lower()
        match = difflib.SequenceMatcher(None, doc, summary, autojunk=False) \
            .find_longest_match(0, len(doc), 0, len(summary))
        assert match.size < 40, (table.name, summary[match.b:match.b + match.size])


# --------------------------------------------------------------------------- percentages
def _is_percent_key(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return "%" in node.value
    if isinstance(node, ast.JoinedStr):
        return any(_is_percent_key(v) for v in node.values)
    if isinstance(node, ast.Attribute) and node.attr == "label":  # a bench.columns label
        return True
    return False


def hand_made_percentages(source: str) -> list[str]:
    """Where ``source`` computes a percentage itself (a product with 100) or writes one as a
    constant (a constant in a dict entry whose key is a percentage column)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                isinstance(x, ast.Constant) and x.value in (100, 100.0)
                for x in (node.left, node.right)):
            found.append(f"{node.lineno}: 100 * ...")
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if _is_percent_key(key) and isinstance(value, ast.Constant) \
                        and value.value is not None:
                    found.append(f"{value.lineno}: constant {value.value!r}")
    return found


def test_the_percentage_check_finds_hand_made_shares():
    source = ('a = {"solved %": 100.0, columns.OPTIMAL.label: "100 (stated)",\n'
              '     f"x {columns.OPTIMAL.label} y %": 3, "n": 100}\n'
              'b = 100.0 * k / n\n'
              'c = {"solved %": share.pct, "rate %": None, "n": 100 + k}\n')
    assert sorted(hand_made_percentages(source)) == [
        "1: constant '100 (stated)'", "1: constant 100.0", "2: constant 3", "3: 100 * ..."]


@pytest.mark.parametrize("path", sorted(PAPERS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_paper_table_hard_codes_a_percentage(path):
    assert hand_made_percentages(path.read_text()) == []


def test_optimal_share_of_outside_lengths_is_the_shared_rule():
    # a length equal to the optimum, one longer, one missing (not solved), one without optimum
    share = columns.optimal_share_of([20, 23, None, 19], [20, 21, 22, None])
    assert share == columns.Share(1, 3) and str(share) == "33.3 (1/3)"
    assert columns.optimal_share_of([], []) == columns.Share(0, 0)
