"""Strata CLI."""
