"""How every output names a heuristic: its entry name (an alias such as ``davi`` given as
``value-net``) and, for a network, what it was trained on, so ``bench solve``, ``bench models``,
figure legends and the viewer all call the shipped cube3 network ``value-net (diffusion)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def heuristic_label(name: str, trained_target: str | None = None,
                    options: Mapping[str, Any] | None = None) -> str:
    """``value-net (diffusion)``: heuristic ``name`` by its entry name, with the target its
    network was trained on (left out where it is the entry name, as for ``policy``) and the
    ``options`` that say which one it is (``value-net (diffusion, model cube3)``). A name no
    entry declares (rows of a heuristic since removed) is kept as written."""
    from core.registry import canonical_heuristic

    base = canonical_heuristic(name)
    parts = [trained_target] if trained_target and trained_target != base else []
    parts += [f"{k} {v}" for k, v in sorted((options or {}).items())]
    return f"{base} ({', '.join(parts)})" if parts else base

