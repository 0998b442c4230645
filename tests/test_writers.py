"""Every writer of the library goes through ``core.safe_write``: a walk of the source (``ast``)
finds each call that writes a file (``open`` for writing, ``write_text``, ``to_csv``,
``savefig``, ``torch.save``, ``h5py.File`` for writing, ``np.save``, a writable memory map,
``json.dump`` to a file, ``os.open``, ``mkstemp``, ``os.replace``, ``shutil`` copies, ...) and
fails on one outside that module, but for the few listed in :data:`ALLOWED` with their reason."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "bench", "heuristics", "learning", "solvers", "pdb_builders", "puzzles",
            "suites")
SAFE = "core/safe_write.py"

#: (file, writer) -> why it may write without ``core.safe_write``
ALLOWED: dict[tuple[str, str], str] = {
    ("solvers/memory.py", "open for writing"):
        "the kernel's /proc/self/clear_refs control file (writing 5 resets the peak-memory "
        "counter); not a file of the project's",
    ("bench/runner.py", "Path.rename/replace"):
        "a damaged run.json is renamed aside inside the run folder (a rename moves a link "
        "itself, never writes its target)",
}

WRITE_MODE_CHARS = set("wax+")
#: methods that write a file whatever their object (pandas, matplotlib, pathlib, numpy)
WRITER_METHODS = {"write_text", "write_bytes", "to_csv", "to_parquet", "to_json", "to_hdf",
                  "to_excel", "to_pickle", "to_feather", "to_stata", "savefig", "touch", "tofile",
                  "symlink_to", "hardlink_to"}
#: ``module.function`` calls that write (the module as the code names it)
WRITER_FUNCTIONS = {("torch", "save"), ("np", "save"), ("np", "savez"), ("np", "savetxt"),
                    ("np", "savez_compressed"), ("numpy", "save"), ("json", "dump"),
                    ("pickle", "dump"), ("os", "replace"), ("os", "rename"), ("os", "link"),
                    ("os", "symlink"), ("os", "truncate"), ("shutil", "copy"),
                    ("shutil", "copy2"), ("shutil", "copyfile"), ("shutil", "copytree"),
                    ("shutil", "move"), ("tempfile", "mkstemp"),
                    ("tempfile", "NamedTemporaryFile"), ("onnx", "save"), ("onnx", "save_model")}
#: ``os.open`` flags that make it a writer
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def _str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _kw(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _writes_mode(mode: ast.AST | None) -> bool:
    """A mode argument that may write: one with w, a, x or +, or one the walk cannot read."""
    if mode is None:
        return False
    text = _str(mode)
    return text is None or bool(WRITE_MODE_CHARS & set(text))


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def writer(call: ast.Call) -> str | None:
    """What kind of writer ``call`` is, or None for a call that writes no file."""
    func = call.func
    args = call.args
    if isinstance(func, ast.Name) and func.id == "open":
        mode = args[1] if len(args) > 1 else _kw(call, "mode")
        return "open for writing" if _writes_mode(mode) else None
    if not isinstance(func, ast.Attribute):
        return None
    owner, name = _dotted(func.value), func.attr
    if (owner, name) in WRITER_FUNCTIONS:
        return f"{owner}.{name}"
    if owner == "os" and name == "open":
        flags = args[1] if len(args) > 1 else _kw(call, "flags")
        used = {n.attr for n in ast.walk(flags) if isinstance(n, ast.Attribute)} if flags else set()
        return "os.open for writing" if used & WRITE_FLAGS or flags is None else None
    if owner == "os" and name == "fdopen":
        mode = args[1] if len(args) > 1 else _kw(call, "mode")
        return "os.fdopen for writing" if _writes_mode(mode) else None
    if name == "open":  # Path.open(mode), io.open(file, mode)
        mode = _kw(call, "mode")
        if mode is None and args and owner not in ("io", "gzip", "bz2", "lzma"):
            mode = args[0] if _str(args[0]) is not None else None
        elif mode is None and len(args) > 1:
            mode = args[1]
        return "open for writing" if mode is not None and _writes_mode(mode) else None
    if owner.endswith("h5py") and name == "File" or name == "File" and owner == "h5py":
        mode = args[1] if len(args) > 1 else _kw(call, "mode")
        return "h5py.File for writing" if mode is not None and _str(mode) != "r" else None
    if name in ("memmap", "open_memmap"):
        mode = _kw(call, "mode") or (args[2] if name == "memmap" and len(args) > 2 else None)
        return f"{name} for writing" if mode is not None and _str(mode) not in ("r", "c") else None
    if name in ("to_csv", "to_json") and not args and _kw(call, "path_or_buf") is None:
        return None  # the text returned as a string
    if name in WRITER_METHODS:
        return f".{name}"
    if name in ("rename", "replace") and owner not in ("str",) and len(args) == 1 \
            and not call.keywords and _str(args[0]) is None and _is_path_like(func.value):
        return "Path.rename/replace"
    if owner.endswith("onnx") and name == "export" and (len(args) > 2 or _kw(call, "f")):
        return "torch.onnx.export to a file"
    return None


def _is_path_like(node: ast.AST) -> bool:
    """``(folder / NAME).replace(...)``, ``path.rename(...)``: a division or a name with
    'path', 'file', 'tmp' or 'dir' in it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return True
    text = _dotted(node).lower()
    return any(w in text for w in ("path", "file", "tmp", "dir", "dest"))


def _through_safe_write(tree: ast.AST) -> set[int]:
    """Ids of the calls that go through ``core.safe_write``: its own functions, and writers whose
    first argument is the temporary file of a ``with safe_write.atomic_path(...) as NAME`` (or
    the file object of ``atomic_open``) they sit in."""
    safe: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and _dotted(node.func.value).endswith("safe_write"):
            safe.add(id(node))
        if not isinstance(node, ast.With | ast.AsyncWith):
            continue
        names = {item.optional_vars.id for item in node.items
                 if isinstance(item.optional_vars, ast.Name)
                 and isinstance(item.context_expr, ast.Call)
                 and _dotted(item.context_expr.func).split(".")[-1] in ("atomic_path",
                                                                        "atomic_open")
                 and _dotted(item.context_expr.func).startswith("safe_write")}
        for inner in (n for stmt in node.body for n in ast.walk(stmt)):
            if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.Name) \
                    and inner.args[0].id in names:
                safe.add(id(inner))
    return safe


@functools.cache
def library_writers() -> tuple[tuple[str, int, str], ...]:
    """``(file, line, kind)`` of each writer of the library that does not go through
    ``core.safe_write``."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == SAFE:
                continue
            tree = ast.parse(path.read_text(), filename=rel)
            safe = _through_safe_write(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and id(node) not in safe:
                    kind = writer(node)
                    if kind is not None:
                        found.append((rel, node.lineno, kind))
    return tuple(found)


def test_every_writer_goes_through_safe_write():
    unsafe = [f"{rel}:{line}: {kind}" for rel, line, kind in library_writers()
              if (rel, kind) not in ALLOWED]
    assert not unsafe, ("write these through core.safe_write (or add a justified exception "
                        "to ALLOWED):\n" + "\n".join(unsafe))


def test_every_exception_is_still_needed():
    used = {(rel, kind) for rel, _, kind in library_writers()}
    assert set(ALLOWED) <= used, set(ALLOWED) - used


def _kinds(source: str) -> list[str | None]:
    return [writer(n) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]


def test_the_walk_finds_each_kind_of_writer():
    """The walk itself, on code that writes in each way the issue names and on code that reads."""
    writes = {
        'open(p, "w")': "open for writing",
        'open(p, mode="ab")': "open for writing",
        'open(p, m)': "open for writing",
        'path.open("a+")': "open for writing",
        'p.write_text("x")': ".write_text",
        'p.write_bytes(b"x")': ".write_bytes",
        'df.to_csv(p, index=False)': ".to_csv",
        'df.to_parquet(p)': ".to_parquet",
        'fig.savefig(p, dpi=130)': ".savefig",
        'torch.save(obj, p)': "torch.save",
        'h5py.File(p, "w")': "h5py.File for writing",
        'h5py.File(p, "a")': "h5py.File for writing",
        'np.save(p, a)': "np.save",
        'np.memmap(p, dtype=np.uint8, mode="r+")': "memmap for writing",
        'np.memmap(p, np.uint8, "w+")': "memmap for writing",
        'json.dump(obj, f)': "json.dump",
        'os.open(p, os.O_WRONLY | os.O_CREAT)': "os.open for writing",
        'os.fdopen(fd, "w")': "os.fdopen for writing",
        'tempfile.mkstemp(dir=d)': "tempfile.mkstemp",
        'os.replace(tmp, p)': "os.replace",
        'shutil.copyfile(a, b)': "shutil.copyfile",
        '(folder / "x").replace(dest)': "Path.rename/replace",
    }
    for source, kind in writes.items():
        assert _kinds(source) == [kind], source
    reads = ['open(p)', 'open(p, "rb")', 'path.open("rb")', 'h5py.File(p, "r")', 'h5py.File(p)',
             'np.memmap(p, dtype=np.uint8, mode="r", offset=8)', 'df.to_csv(index=False)',
             'json.dumps(obj)', 'os.open(p, os.O_RDONLY | os.O_NOFOLLOW)', 'text.replace("a", "b")',
             'df.rename(columns=c)', 'self.open()', 'os.fdopen(fd, "rb")']
    for source in reads:
        assert _kinds(source) == [None], source
