"""Configuration: config files found, read, substituted, merged and checked; where Strata keeps things."""
