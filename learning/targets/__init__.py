"""Training targets: what a network is trained to predict, one module each (``davi``,
``diffusion``, ``policy``, the Q-networks' ``q``; the protocol in ``base``), and the one table from a target name to its
class."""

from __future__ import annotations

from learning.targets.base import Target
from learning.targets.davi import DaviTarget
from learning.targets.diffusion import DiffusionTarget
from learning.targets.policy import PolicyTarget
from learning.targets.q import QDiffusionTarget, QDistillTarget, QLearningTarget

#: target name (``TrainConfig.target``, a checkpoint's ``target``) -> its class
TARGETS: dict[str, type[Target]] = {"davi": DaviTarget, "diffusion": DiffusionTarget,
                                     "policy": PolicyTarget, "q-distill": QDistillTarget,
                                     "q-learning": QLearningTarget,
                                     "q-diffusion": QDiffusionTarget}


def target_for(name: str) -> Target:
    """The target object of a (checked) target name."""
    return TARGETS[name]()


def network_heuristic(name: str) -> str:
    """The heuristic that reads a network trained on target ``name`` (a checkpoint's
    ``target``): ``policy`` for a move-ranking network, ``qnet`` for one value per move, else
    the value network (``core.registry.VALUE_NET``)."""
    from core.registry import VALUE_NET

    kind = TARGETS[name]
    return "policy" if not kind.values else "qnet" if kind.per_move else VALUE_NET
