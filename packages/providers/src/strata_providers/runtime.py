"""The providers' async lifecycle: one HTTP client per runtime, opened and closed around a run.

    async with open_runtime(config.blocks, os.environ) as catalog:
        model = catalog.default_model()
        async with model.stream(request) as events: ...

The catalogue and its models are plain values that may be built before the runtime opens (a container
builds them without I/O); they ask the runtime for its client only when a call starts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import httpx
from attrs import define, field

from strata_core.config import ConfigBlocks
from strata_core.errors import StrataError
from strata_core.http import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT, make_client
from strata_providers.catalog import ProviderCatalog
from strata_providers.retry import RetryPolicy


class RuntimeClosedError(StrataError, RuntimeError):
    """A model was called outside `ProviderRuntime.open()`: there is no HTTP client to call it with."""


@define
class ProviderRuntime:
    """Holds the one HTTP client every wire shares, while open."""

    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    idle_read_timeout: float = DEFAULT_READ_TIMEOUT
    """Longest silence allowed between two chunks of a stream before the call fails as a transport error."""
    _client: httpx.AsyncClient | None = field(default=None, init=False)

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            raise RuntimeClosedError(
                "the provider runtime is not open: call models inside `async with runtime.open():` "
                "(or `open_runtime(...)`)"
            )
        return self._client

    @asynccontextmanager
    async def open(self) -> AsyncIterator[ProviderRuntime]:
        async with make_client(connect_timeout=self.connect_timeout, read_timeout=self.idle_read_timeout) as client:
            self._client = client
            try:
                yield self
            finally:
                self._client = None


@asynccontextmanager
async def open_runtime(
    config: ConfigBlocks,
    env: Mapping[str, str],
    *,
    retry: RetryPolicy | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    idle_read_timeout: float = DEFAULT_READ_TIMEOUT,
) -> AsyncIterator[ProviderCatalog]:
    """A catalogue whose models can be called until the block ends; the HTTP client closes with it."""
    runtime = ProviderRuntime(connect_timeout, idle_read_timeout)
    async with runtime.open():
        yield ProviderCatalog(config, env, runtime.client, retry=retry)
