"""Names the library's code refers to: the sliding-tile puzzles by width, the learned value
network's heuristic name (it serves every value target: DAVI, diffusion distance), and the
devices and precisions a network runs with."""

#: the sliding-tile puzzles by width
TILE_NAMES = {3: "puzzle8", 4: "puzzle15", 5: "puzzle24", 6: "puzzle35", 7: "puzzle48"}
#: the learned value network's name (it serves every value target: DAVI, diffusion distance)
VALUE_NET = "value-net"
#: where a network runs: ``auto`` (CUDA when torch sees a device, else the CPU), ``cpu``, ``cuda``
#: (resolved by ``learning.devices.resolve_device``)
DEVICES = ("auto", "cpu", "cuda")
#: the precision of a network's hidden layers in inference (``learning.devices.precision_dtype``)
PRECISIONS = ("float32", "bfloat16")
