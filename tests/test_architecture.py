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


# --------------------------------------------------------------------------- private names
LIBRARY = ["core", "puzzles", "pdb_builders", "learning", "heuristics", "solvers", "suites", "bench"]

#: ``_`` names of third-party objects the library reads, each with the reason it may
THIRD_PARTY_PRIVATE = {
    "_exit": "os._exit: the documented exit of a process that must not run its parent's cleanup",
    "_BatchNorm": "torch.nn.modules.batchnorm._BatchNorm: the base of every torch batch-norm layer, "
                  "the type a synced batch norm accepts",
    "_check_input_dim": "torch's BatchNorm1d/2d input check, called by their subclasses as "
                        "torch's own forward does",
    "_asdict": "typing.NamedTuple's documented method (its underscore keeps it apart from the "
               "field names): the IDA* records are read by field name through it",
    "_reconstruct": "numpy's multiarray._reconstruct: named by the pickles of DeepCubeA's data, "
                    "so the restricted unpickler must allow it",
}
_ACCESSORS = ("getattr", "hasattr", "setattr", "delattr")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined(tree: ast.AST, parts: tuple[str, ...]) -> set[str]:
    """The ``_`` names a module defines: functions, classes, assigned names and attributes,
    arguments, and its own module path."""
    out = {p for p in parts if _private(p)}
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            out.add(n.attr)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.alias) and n.asname:
            out.add(n.asname)
    return {x for x in out if _private(x)}


def private_crossings(root: Path, packages: list[str],
                      third_party: dict[str, str]) -> list[str]:
    """Every import or attribute read in ``packages`` under ``root`` of a ``_`` module or name of
    another of ``packages``. An attribute read (``obj._x``, ``getattr(obj, "_x")``, also on
    ``self``) is judged by where ``_x`` is defined: in the reader's package it is fine; read
    through a name imported from another package, or defined only in another package, it
    crosses; defined in none of them, it is a third-party name and must be in ``third_party``."""
    modules: dict[Path, tuple[str, ast.AST]] = {}
    defined: dict[str, set[str]] = {p: set() for p in packages}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            modules[path] = (pkg, tree)
            defined[pkg] |= _defined(tree, path.relative_to(root).with_suffix("").parts)
    faults = []
    for path, (pkg, tree) in modules.items():
        where = str(path.relative_to(root))
        foreign: set[str] = set()  # names bound to another package's modules or objects
        for n in ast.walk(tree):
            if isinstance(n, ast.Import | ast.ImportFrom):
                base = n.module if isinstance(n, ast.ImportFrom) and n.level == 0 else None
                if isinstance(n, ast.ImportFrom) and base is None:
                    continue  # a relative import stays in its package
                for a in n.names:
                    dotted = f"{base}.{a.name}" if base else a.name
                    top, *rest = dotted.split(".")
                    if top not in packages or top == pkg:
                        continue
                    foreign.add(a.asname or (a.name if base else top))
                    if any(_private(x) for x in rest):
                        faults.append(f"{where}:{n.lineno} imports {dotted}")
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and _private(n.attr):
                obj, attr = n.value, n.attr
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                    and n.func.id in _ACCESSORS and len(n.args) >= 2 \
                    and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str) \
                    and _private(n.args[1].value):
                obj, attr = n.args[0], n.args[1].value
            else:
                continue
            read = f"{where}:{n.lineno} reads {ast.unparse(obj)}.{attr}"
            if isinstance(obj, ast.Name) and obj.id in foreign:
                faults.append(f"{read} of another package")
            elif attr in defined[pkg]:
                continue
            elif any(attr in defined[p] for p in packages):
                owners = [p for p in packages if attr in defined[p]]
                faults.append(f"{read}, defined in {', '.join(owners)}")
            elif attr not in third_party:
                faults.append(f"{read}: a third-party private name not in THIRD_PARTY_PRIVATE")
    return faults


def test_no_private_name_crosses_a_package():
    """A kernel or helper another package uses is public (no ``_``); ``_`` modules, functions,
    classes, methods and attributes stay inside their package."""
    faults = private_crossings(ROOT, LIBRARY, THIRD_PARTY_PRIVATE)
    assert not faults, "\n".join(faults)


def test_every_listed_third_party_name_is_still_read():
    """``THIRD_PARTY_PRIVATE`` lists only names the library reads (none of its own)."""
    everything = private_crossings(ROOT, LIBRARY, {})
    for name in THIRD_PARTY_PRIVATE:
        assert any(f".{name}:" in f for f in everything), name
    assert all("third-party" in f for f in everything), everything


def test_private_crossings_finds_each_kind(tmp_path):
    files = {
        "a/__init__.py": "",
        "a/_kern.py": "def f(): pass\n",
        "a/mod.py": "from a._kern import f\nfrom a import _kern\n\n"
                    "def _helper(): pass\n\nclass T:\n    def _set(self): self._x = 1\n\n"
                    "_kern.f(); T()._set(); getattr(T(), '_x')\n",
        "b/__init__.py": "",
        "b/use.py": "import a._kern\nfrom a import _kern as k\nfrom a.mod import _helper\n"
                    "from a import mod\nimport os\n\ndef g(t):\n    mod._helper()\n"
                    "    t._set()\n    getattr(t, '_x')\n    os._exit(0)\n    os._other\n"
                    "    t._own\n\ndef _own(): pass\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    faults = private_crossings(tmp_path, ["a", "b"], {"_exit": "why"})
    assert all(f.startswith("b/use.py:") for f in faults), faults
    got = sorted(f.split(" ", 1)[1] for f in faults)
    assert got == sorted([
        "imports a._kern", "imports a._kern", "imports a.mod._helper",
        "reads mod._helper of another package",
        "reads t._set, defined in a", "reads t._x, defined in a",
        "reads os._other: a third-party private name not in THIRD_PARTY_PRIVATE",
    ]), faults
