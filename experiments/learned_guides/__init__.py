"""The learned-guides experiment: DAVI, diffusion-distance and policy networks trained at an
equal CPU budget, and the pattern databases, as guides of the same searches
(:mod:`experiments.learned_guides.guides`; the networks: :mod:`.guide_models`). Run as
``python -m experiments.learned_guides --train-minutes M``; the table it writes is
``bench.papers.learned_guides``."""
