"""Window shortening of found paths (solvers.window_shorten): figures in results/learned-path-improvement."""
