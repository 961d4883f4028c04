"""Strata providers."""
