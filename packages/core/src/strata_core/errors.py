"""The root of the errors a caller of strata-core can catch: every error the core raises on purpose is a `StrataError`.

Subclasses live beside the concept they belong to (`ConfigError` in `config/`, `ModelError` in `llm/`, the
permission refusals in `permission/`, ...); catching `StrataError` catches them all, and a bug (a `TypeError`,
a `KeyError`) is never one.
"""

from __future__ import annotations


class StrataError(Exception):
    """An expected failure, with a message meant for the person or program that caused it."""
