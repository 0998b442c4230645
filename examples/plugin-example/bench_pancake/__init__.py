"""bench-pancake: an example heuristic-bench plugin (the pancake problem, the gap heuristic,
enforced hill-climbing and a custom network input encoding). ``declare`` holds what the
entry points name; the code loads only when an entry is made."""
