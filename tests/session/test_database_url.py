"""Which database a URL names: PostgreSQL URLs pass (host, socket or libpq's defaults), anything else is refused
naming where it came from, and a password never reaches a message."""

from __future__ import annotations

import pytest

from strata_core.session.database_url import (
    DatabaseUrlError,
    checked_database_url,
    configured_database_url,
    redacted,
)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://strata:pw@db.internal:5432/strata",
        "postgres://db.internal/strata",
        "postgresql:///strata?host=/var/run/postgresql",
        "postgresql:///strata",
    ],
)
def test_postgresql_urls_pass_as_they_are(url: str) -> None:
    assert checked_database_url(url, source="--database") == url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://db/strata", "is not a PostgreSQL URL"),
        ("postgresql://db:port/strata", "is not a valid URL"),
        ("/var/lib/strata.db", "is not a PostgreSQL URL"),
    ],
)
def test_other_urls_are_refused_naming_the_setting(url: str, says: str) -> None:
    with pytest.raises(DatabaseUrlError, match=f"^--database: .*{says}"):
        checked_database_url(url, source="--database")


def test_the_variable_is_read_checked_and_blank_means_sqlite() -> None:
    assert configured_database_url({}) is None
    assert configured_database_url({"STRATA_DATABASE_URL": "  "}) is None
    assert configured_database_url({"STRATA_DATABASE_URL": "postgres://h/d"}) == "postgres://h/d"
    with pytest.raises(DatabaseUrlError, match=r"^STRATA_DATABASE_URL: 'mysql://u:\*\*\*@h/d'"):
        configured_database_url({"STRATA_DATABASE_URL": "mysql://u:secret@h/d"})


def test_a_password_is_hidden_and_nothing_else_changes() -> None:
    assert redacted("postgresql://strata:s3cret@db:5432/x?sslmode=require") == (
        "postgresql://strata:***@db:5432/x?sslmode=require"
    )
    assert redacted("postgresql://strata@db/x") == "postgresql://strata@db/x"
