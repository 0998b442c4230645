"""Learned heuristics: cost-to-go networks trained by DAVI (DeepCubeA) or on scramble depth.

Modules: ``model`` (the residual fully connected network), ``data`` (batched random walks and a
producer thread), ``train`` (the trainer, monitoring, exact resume), ``checkpoint`` (file format,
checks), ``heuristic`` (``ValueNetHeuristic``, the registry's ``davi``), ``adapters`` (input
encodings of foreign networks, goal layouts), ``deepcubea_import`` (DeepCubeA's published
weights), ``evaluate`` (search with a model on fixed state sets), ``ship`` (model folders).
Nothing here is imported by ``bench list``; torch loads with the first of these modules.
"""
