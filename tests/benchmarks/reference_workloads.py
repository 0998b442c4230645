"""Reference workloads: one per kind of benchmarked work, written with plain NumPy, Numba and
torch (no project code, so they never change with the project).

Each gated benchmark (``test_bench_suite.py``) names the kind of work it does; before each of
its rounds the reference of that kind is timed (``conftest.gated``), and ``compare.py`` gates
``benchmark seconds / reference seconds``. A faster or slower machine (clock, vector units,
memory latency) moves both, and a busy moment slows both rounds next to each other.

- ``torch_train``: a residual MLP of the shipped cube networks' shapes (144 inputs, 512, 256,
  two residual blocks of 256, batch norm), a no-grad forward of 2,000 rows (targets from
  children) and a forward, backward and Adam step on 1,000 rows;
- ``torch_search``: the same network's eval-mode forward of 1,000 rows, with the NumPy work a
  batch search does around it (hashing, sorting and de-duplicating 12,000 rows of 24 bytes);
- ``numba_search``: a depth-first walk with an incrementally updated table-lookup bound (a
  random walk on a 4x4 tile board, Manhattan distance from a 16x16 table): what IDA* does;
- ``numba_bfs``: breadth-first layers over an implicit graph of 2^18 vertices, writing
  distances into a byte table at random places: what a PDB build does;
- ``python``: interpreter work of the runner (dicts, strings, JSON, small lists) and its small
  files (20 JSON lines appended to a file, each flushed and fsynced as the runner's rows are,
  20 small files written and read back).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

KINDS = ("torch_train", "torch_search", "numba_search", "numba_bfs", "python")


# --------------------------------------------------------------------------- torch
def _torch_net() -> Any:
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, d: int) -> None:
            super().__init__()
            self.fc1, self.bn1 = nn.Linear(d, d), nn.BatchNorm1d(d)
            self.fc2, self.bn2 = nn.Linear(d, d), nn.BatchNorm1d(d)

        def forward(self, x: Any) -> Any:
            y = torch.relu(self.bn1(self.fc1(x)))
            return torch.relu(x + self.bn2(self.fc2(y)))

    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(144, 512), nn.BatchNorm1d(512), nn.ReLU(),
                         nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(),
                         Block(256), Block(256), nn.Linear(256, 1))


def _one_hot(rows: int, seed: int) -> Any:
    import torch

    g = np.random.default_rng(seed)
    x = np.zeros((rows, 144), dtype=np.float32)
    x[np.arange(rows)[:, None], np.arange(24) * 6 + g.integers(0, 6, (rows, 24))] = 1.0
    return torch.from_numpy(x)


def torch_train() -> Callable[[], float]:
    import torch

    net = _torch_net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    children, batch = _one_hot(2_000, 1), _one_hot(1_000, 2)

    def run() -> float:
        net.eval()
        with torch.no_grad():
            y = net(children).view(1_000, 2).min(dim=1).values + 1.0
        net.train()
        loss = torch.mean((net(batch).view(-1) - y) ** 2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return float(loss.detach())

    return run


def torch_search() -> Callable[[], float]:
    import torch

    net = _torch_net().eval()
    x = _one_hot(1_000, 3)
    rows = np.random.default_rng(4).integers(0, 6, (12_000, 24), dtype=np.int8)

    def run() -> float:
        with torch.no_grad():
            h = net(x).view(-1).numpy()
        keys = rows.view(np.int64).reshape(12_000, 3) @ np.array([1, 31, 961], dtype=np.int64)
        _, first = np.unique(keys, return_index=True)
        order = np.argsort(np.resize(h, first.size), kind="stable")
        return float(h[0]) + float(order[0])

    return run


# --------------------------------------------------------------------------- numba
# module-level kernels (compiled on first use), not closures: nothing of Numba's is collected
# while the interpreter shuts down
@njit(cache=False)
def _walk(steps: int, dist: np.ndarray) -> int:  # pragma: no cover - compiled
    board = np.arange(16)
    blank, h, acc, seed = 0, 0, 0, 12345
    for t in range(1, 16):
        h += dist[t, t]
    for _ in range(steps):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        d = (seed >> 16) & 3
        r, c = blank // 4, blank % 4
        if d == 0 and r > 0:
            nb = blank - 4
        elif d == 1 and r < 3:
            nb = blank + 4
        elif d == 2 and c > 0:
            nb = blank - 1
        elif d == 3 and c < 3:
            nb = blank + 1
        else:
            continue
        tile = board[nb]
        h += dist[tile, blank] - dist[tile, nb]
        board[blank], board[nb] = tile, 0
        blank = nb
        acc += h
    return acc


@njit(cache=False)
def _bfs(bits: int) -> int:  # pragma: no cover - compiled
    n = 1 << bits
    mask = n - 1
    half = bits // 2
    half_mask = (1 << half) - 1
    depth = np.full(n, 255, dtype=np.uint8)
    depth[0] = 0
    layer, found, total = 0, 1, 0
    while found:
        found = 0
        for v in range(n):
            if depth[v] != layer:
                continue
            for k in range(4):  # four generators: rotate, xor, multiply-add, swap halves
                if k == 0:
                    u = ((v << 3) | (v >> (bits - 3))) & mask
                elif k == 1:
                    u = v ^ (0x5A5A5 & mask)
                elif k == 2:
                    u = (v * 2654435761 + 1) & mask
                else:
                    u = ((v & half_mask) << (bits - half)) | (v >> half)
                if depth[u] == 255:
                    depth[u] = layer + 1
                    found += 1
        total += found
        layer += 1
    return total + layer


def numba_search() -> Callable[[], int]:
    dist = np.zeros((16, 16), dtype=np.int64)
    for t in range(1, 16):
        for p in range(16):
            dist[t, p] = abs(t // 4 - p // 4) + abs(t % 4 - p % 4)
    _walk(10, dist)  # compile
    return lambda: _walk(3_000_000, dist)


def numba_bfs() -> Callable[[], int]:
    _bfs(10)  # compile
    return lambda: _bfs(18)


# --------------------------------------------------------------------------- Python
def python() -> Callable[[], int]:
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="bench-ref-"))
    count = iter(range(10**9))

    def run() -> int:
        out = []
        for i in range(2_000):
            row = {"id": str(i), "status": "solved" if i % 7 else "timeout", "length": i % 31,
                   "nodes": i * 17, "path": [(i + k) % 12 for k in range(i % 20)]}
            out.append(json.dumps(row, sort_keys=True))
        here = folder / f"r{next(count) % 4}"
        here.mkdir(exist_ok=True)
        with open(here / "rows.jsonl", "w") as f:
            for line in out[:20]:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
        for i in range(20):
            (here / f"{i}.json").write_text(out[i])
        return sum(len(s) for s in out) + sum(len((here / f"{i}.json").read_text()) for i in range(20))

    return run


def make(kind: str) -> Callable[[], Any]:
    """The reference workload of ``kind`` (one of :data:`KINDS`), set up and compiled."""
    if kind not in KINDS:
        raise ValueError(f"unknown reference kind {kind!r}; one of {', '.join(KINDS)}")
    return globals()[kind]()
