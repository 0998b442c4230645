"""One resolver of device and precision names (``learning.devices``), the names stated once
(``core.names.DEVICES``, ``PRECISIONS``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from core.errors import InputError
from core.names import DEVICES, PRECISIONS
from learning.devices import (
    amp_dtype,
    check_device,
    check_precision,
    precision_dtype,
    resolve_device,
)

ROOT = Path(__file__).resolve().parents[1]
#: where the names are stated (core.names) and resolved (learning.devices)
RESOLVER = (ROOT / "core" / "names.py", ROOT / "learning" / "devices.py")
LIBRARY = ["core", "puzzles", "pdb_builders", "learning", "heuristics", "solvers", "suites",
           "bench"]


def test_names_resolve():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert [precision_dtype(p) for p in PRECISIONS] == [torch.float32, torch.bfloat16]
    assert (amp_dtype(False), amp_dtype(True)) == (torch.float32, torch.bfloat16)
    assert [check_device(d) for d in DEVICES] == list(DEVICES)


@pytest.mark.parametrize("call, message", [
    (lambda: check_device("gpu"), "--device: expected auto, cpu or cuda, got 'gpu'"),
    (lambda: resolve_device("tpu", "device"), "device: expected auto, cpu or cuda, got 'tpu'"),
    (lambda: check_precision("fp16"), "--precision: expected float32 or bfloat16, got 'fp16'"),
    (lambda: precision_dtype(16, "search: precision"),
     "search: precision: expected float32 or bfloat16, got 16"),
])
def test_a_bad_name_is_one_line_naming_its_flag(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_cuda_without_a_device_is_refused():
    with pytest.raises(InputError, match="--device: cuda requested but torch sees no CUDA"):
        resolve_device("cuda")


def test_checking_a_name_imports_no_torch():
    code = ("import sys; from learning.devices import check_precision; "
            "import learning.model_store; check_precision('float32'); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "False"


def _restated(source: str) -> list[str]:
    """Tuple or list literals holding every device name or every precision name, and dtype
    choices written as ``torch.bfloat16 if ... else torch.float32``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List)):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if values >= set(DEVICES) or values >= set(PRECISIONS):
                found.append(ast.unparse(node))
        if isinstance(node, ast.IfExp) and "bfloat16" in ast.unparse(node.body) \
                and "float32" in ast.unparse(node.orelse):
            found.append(ast.unparse(node))
    return found


def test_the_names_are_stated_once():
    found = [f"{f.relative_to(ROOT)}: {x}" for pkg in LIBRARY
             for f in sorted((ROOT / pkg).rglob("*.py")) if f not in RESOLVER
             for x in _restated(f.read_text())]
    assert found == []
    assert _restated("a = ('auto', 'cpu', 'cuda')\nb = t.bfloat16 if amp else t.float32\n") == [
        "('auto', 'cpu', 'cuda')", "t.bfloat16 if amp else t.float32"]
