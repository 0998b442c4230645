"""Learning: networks, their training and their files; the learned heuristics that use them live in
``heuristics/`` (``value_net``, ``policy_net``, ``multigoal``).

Modules: ``networks`` (one module per architecture, ``ARCHITECTURES``), ``model_config`` (network
sizes and presets), ``devices``, ``targets`` (DAVI, diffusion distance, policy: what a batch
needs, the targets, the loss, monitoring), ``train_config`` (a run's options), ``trainer`` (the
loop, checkpoints, exact resume), ``run_files``, ``monitoring``, ``data`` and ``walks`` (batched
random walks), ``distributed`` (several processes), ``checkpoint`` (file format, checks),
``adapters`` (input encodings of foreign networks, goal layouts), ``inference`` (a checkpoint
loaded for evaluation), ``model_store`` (model names and folders), ``deepcubea_import``
(DeepCubeA's published weights), ``ship`` (model folders), ``multigoal`` (trees of goals),
``openmp`` (how torch's threads wait, set before torch loads).
Nothing here is imported by ``bench list``; torch loads with the first of these modules but
``openmp``.
"""
