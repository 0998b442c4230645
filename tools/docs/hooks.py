"""MkDocs hook: the README's links are checked with the site (``mkdocs build --strict``).

The README is read on the repository's front page, not in the site, so its relative links point
at files of the checkout. Every one must name a file or folder that exists, and a ``#anchor``
into a Markdown file must name one of its headings (GitHub's heading ids). A broken link is a
warning, which ``--strict`` turns into a failed build.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger("mkdocs.hooks.readme_links")

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HTML = re.compile(r"""(?:href|src)=["']([^"']+)["']""")
_FENCE = re.compile(r"^(```|~~~)")


def _markdown_text(text: str) -> str:
    """``text`` without fenced code blocks, indented code blocks and inline code."""
    out, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t"):
            continue
        out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def github_slug(heading: str) -> str:
    """The id GitHub gives a Markdown heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _markdown_text(path.read_text()).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = github_slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def readme_link_problems(readme: Path = ROOT / "README.md") -> list[str]:
    """One line per broken relative link of ``readme``."""
    text = _markdown_text(readme.read_text())
    problems = []
    for target in _LINK.findall(text) + _HTML.findall(text):
        if re.match(r"^[a-zA-Z][a-zA-Z+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (readme.parent / path).resolve() if path else readme
        if not dest.exists():
            problems.append(f"{readme.name}: link to {target!r}: no such file or folder")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{readme.name}: link to {target!r}: no heading with id {anchor!r}")
    return problems


def on_pre_build(config, **kwargs) -> None:
    for problem in readme_link_problems():
        log.warning(problem)
