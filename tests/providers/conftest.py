"""Fixtures for the provider tests: one loopback-guarded HTTP client per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from strata_core.http import make_client


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as client:
        yield client
