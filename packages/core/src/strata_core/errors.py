"""The root of the errors a caller of strata-core can catch: every error the core raises on purpose is a `StrataError`.

Subclasses live beside the concept they belong to (`ConfigError` in `config/`, `ModelError` in `llm/`, the
permission refusals in `permission/`, ...); catching `StrataError` catches them all, and a bug (a `TypeError`,
a `KeyError`) is never one.
"""

from __future__ import annotations


class StrataError(Exception):
    """An expected failure, with a message meant for the person or program that caused it."""


class MissingExtraError(StrataError):
    """A feature needs an optional part of strata-core that is not installed; the message names the extra.

    `MissingExtraError("the bash tool's command parsing", "bash", "tree-sitter")` reads "the bash tool's command
    parsing needs tree-sitter: pip install 'strata-core[bash]'".
    """

    def __init__(self, feature: str, extra: str, needs: str) -> None:
        super().__init__(f"{feature} needs {needs}: pip install 'strata-core[{extra}]'")
        self.feature = feature
        self.extra = extra
        """The extra to install, e.g. "mcp"."""
        self.needs = needs
        """The missing distribution(s), as the message names them."""

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.feature, self.extra, self.needs))
