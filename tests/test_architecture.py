"""The layers of ARCHITECTURE.md: a package imports only from the packages below it (function-level
imports included), and no package imports another in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["core", "puzzles", "pdb_builders", "learning", "heuristics", "solvers", "suites", "bench",
          "experiments"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_no_package_imports_a_layer_above_it():
    rank = {p: i for i, p in enumerate(LAYERS)}
    faults = []
    for pkg in LAYERS:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for mod in _imports(path):
                top = mod.split(".")[0]
                if top in rank and rank[top] > rank[pkg]:
                    faults.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not faults, "\n".join(faults)


def test_no_two_modules_of_a_package_import_each_other():
    faults = []
    for pkg in LAYERS:
        mods = {}
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = _imports(path)
        for a, imps in mods.items():
            for b in imps:
                if b in mods and b != a and a in mods[b] and not a.startswith(b + ".") \
                        and not b.startswith(a + "."):
                    faults.append(f"{a} <-> {b}")
    assert not faults, "\n".join(sorted(set(faults)))


def test_private_module_names_are_unique_across_packages():
    """A ``_``-prefixed module is named by what it holds: no two packages hold one of the same
    file name (``__init__`` and ``__main__`` aside)."""
    seen: dict[str, list[str]] = {}
    for pkg in LAYERS:
        for path in (ROOT / pkg).rglob("_*.py"):
            if path.name not in ("__init__.py", "__main__.py"):
                seen.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    faults = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not faults, faults
