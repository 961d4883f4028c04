"""Strata core."""
