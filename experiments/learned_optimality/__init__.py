"""% optimal of the learned networks against training and search (figures in results/learned-optimality)."""
