"""A network input encoding declared by the plugin (group ``heuristic_bench.encodings``): an ONNX
model whose card says ``"encoding": "pancake-inverse"`` reads, for each size, its position."""

from __future__ import annotations

import numpy as np


def inverse_positions(puzzle, states: np.ndarray) -> np.ndarray:
    """``(B, n)``: where each pancake size lies in the stack (codes ``0 .. n-1``)."""
    return np.argsort(np.atleast_2d(states), axis=1).astype(np.int64)
