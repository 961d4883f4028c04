"""What a prompt is assembled from: the project, its agents, its skills and its instruction files."""
