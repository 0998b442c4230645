"""Training targets: what a network is trained to predict (DAVI, diffusion distance, policy)."""
