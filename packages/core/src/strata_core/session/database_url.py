"""Which database holds the sessions: a PostgreSQL URL (`STRATA_DATABASE_URL`, `--database`), else SQLite.

Parsing only (no driver imported): a start-up without a URL loads none of the PostgreSQL code.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from strata_core.errors import StrataError

DATABASE_URL_ENV = "STRATA_DATABASE_URL"
SCHEMES = ("postgresql", "postgres")


class DatabaseUrlError(StrataError, ValueError):
    """A database URL Strata cannot use; the message names the setting and what would be right."""


class DatabaseUnavailableError(StrataError):
    """The PostgreSQL database could not be reached or did not answer in time; nothing of the call was kept."""


def is_database_url(value: str) -> bool:
    """Whether `value` looks like a database URL (a scheme and `://`), as opposed to a file path."""
    return "://" in value


def checked_database_url(url: str, *, source: str) -> str:
    """`url` when it is a PostgreSQL URL; else a `DatabaseUrlError` naming `source` (the option or variable)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError as error:
        raise DatabaseUrlError(f"{source}: {redacted(url)!r} is not a valid URL ({error})") from None
    if parts.scheme not in SCHEMES:
        raise DatabaseUrlError(
            f"{source}: {redacted(url)!r} is not a PostgreSQL URL; expected a URL like postgresql://HOST:PORT/DATABASE"
            " (a user and password may go before the host; SQLite, the default, needs no URL: leave it unset)"
        )
    return url


def configured_database_url(env: Mapping[str, str]) -> str | None:
    """The PostgreSQL URL the environment configures (`STRATA_DATABASE_URL`), checked; None for SQLite."""
    url = env.get(DATABASE_URL_ENV, "").strip()
    return checked_database_url(url, source=DATABASE_URL_ENV) if url else None


def redacted(url: str) -> str:
    """`url` with its password replaced by `***`, for messages and logs."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unparsable URL>"
    if password is None:
        return url
    netloc = parts.netloc.replace(f":{password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
