"""Names the library's code refers to: the sliding-tile puzzles by width, and the learned
value network's heuristic name (it serves every value target: DAVI, diffusion distance)."""

#: the sliding-tile puzzles by width
TILE_NAMES = {3: "puzzle8", 4: "puzzle15", 5: "puzzle24", 6: "puzzle35", 7: "puzzle48"}
#: the learned value network's name (it serves every value target: DAVI, diffusion distance)
VALUE_NET = "value-net"
