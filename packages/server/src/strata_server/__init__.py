"""strata-server."""
