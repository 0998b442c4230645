"""Bounds of training options, shared by the trainer and the command line (no torch import)."""

#: the most states per training iteration
MAX_BATCH = 10**7
#: the widest hidden layer
MAX_WIDTH = 10**5
