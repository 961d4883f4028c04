"""Instruction URLs: fetching the configured http(s) entries, once per turn, within one deadline.

Every URL is best effort: whatever goes wrong (refused, DNS, TLS, a non-2xx, a body that is not text, no
answer in time) becomes a `UrlAnswer` with the reason, and the turn goes on without that URL. The whole
phase shares one deadline, so five hanging URLs cost the timeout once, not once per wave of the limiter.
A `UrlCache` keeps the answers of one turn: its steps rebuild the system prompt, and a hanging URL would
otherwise cost its timeout again at every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import anyio
import httpx
from attrs import define, field, frozen

from strata_core.errors import StrataError
from strata_core.http import is_text_media, make_client, read_capped
from strata_core.logging import get_logger

log = get_logger(__name__)

URL_TIMEOUT_SECONDS = 5.0
"""OpenCode's: how long the instruction URLs of one system prompt may take, all of them together."""
URL_FETCH_CONCURRENCY = 4
"""OpenCode's: instruction URLs fetched at once."""
MAX_URL_BYTES = 5 * 1024 * 1024
"""What an instruction URL may weigh: webfetch's limit."""


class UrlFetchError(StrataError):
    """A URL instruction that answered with something other than a 2xx."""


class UrlFetcher(Protocol):
    """Fetches the text of an instruction URL; raises on a non-2xx answer (or any transport failure)."""

    async def get_text(self, url: str) -> str: ...


@define
class HttpUrlFetcher:
    """Default `UrlFetcher`: a plain GET, through `client` when given (the caller owns it), else a client of
    Strata's HTTP factory made for the request."""

    timeout: float = URL_TIMEOUT_SECONDS
    client: httpx.AsyncClient | None = None

    async def get_text(self, url: str) -> str:
        """The body as text: at most `MAX_URL_BYTES`, and only a text media type (a binary body would be
        injected into every system prompt as it is)."""
        if self.client is not None:
            return await self._get(self.client, url)
        async with make_client(connect_timeout=self.timeout, read_timeout=self.timeout) as client:
            return await self._get(client, url)

    async def _get(self, client: httpx.AsyncClient, url: str) -> str:
        async with client.stream("GET", url, timeout=self.timeout) as response:
            if not response.is_success:
                raise UrlFetchError(f"HTTP {response.status_code}")
            content_type = response.headers.get("content-type", "")
            if content_type and not is_text_media(content_type):
                raise UrlFetchError(f"not text: the server says it is {content_type}")
            body = await read_capped(response, MAX_URL_BYTES)
            if body is None:
                raise UrlFetchError(f"larger than the {MAX_URL_BYTES // (1024 * 1024)} MB an instruction URL may be")
            if b"\0" in body:
                raise UrlFetchError("not text: the body holds NUL bytes")
            return body.decode(response.encoding or "utf-8", errors="replace")


@frozen
class UrlAnswer:
    """What one instruction URL gave: its text, or why there is none."""

    text: str | None = None
    failure: str | None = None


@define
class UrlCache:
    """The instruction URLs of one turn and what each gave; the loop makes one per run of a session."""

    _answers: dict[str, UrlAnswer] = field(factory=dict)

    def get(self, url: str) -> UrlAnswer | None:
        return self._answers.get(url)

    def put(self, url: str, answer: UrlAnswer) -> None:
        self._answers[url] = answer


async def fetch_urls(
    urls: Sequence[str],
    fetcher: UrlFetcher,
    *,
    concurrency: int = URL_FETCH_CONCURRENCY,
    seconds: float = URL_TIMEOUT_SECONDS,
    cache: UrlCache | None = None,
) -> dict[str, UrlAnswer]:
    """Each URL's answer: from `cache` when it has one, else fetched (`concurrency` at once, all within
    `seconds` together); what is fetched goes into `cache`."""
    answers: dict[str, UrlAnswer] = {}
    missing: list[str] = []
    for url in dict.fromkeys(urls):
        known = cache.get(url) if cache is not None else None
        if known is not None:
            answers[url] = known
        else:
            missing.append(url)
    limiter = anyio.CapacityLimiter(concurrency)

    async def fetch(url: str) -> None:
        async with limiter:
            answers[url] = await _answer(fetcher, url)

    with anyio.move_on_after(seconds):
        async with anyio.create_task_group() as group:
            for url in missing:
                group.start_soon(fetch, url)
    for url in missing:
        if url not in answers:
            log.notice("instruction URL timed out, skipped", url=url, timeout_seconds=seconds)
            answers[url] = UrlAnswer(failure=f"no answer within {seconds:g} s")
        if cache is not None:
            cache.put(url, answers[url])
    return answers


async def _answer(fetcher: UrlFetcher, url: str) -> UrlAnswer:
    try:
        text = await fetcher.get_text(url)
    except Exception as error:  # best effort (see the module's docstring); cancellation still propagates
        reason = str(error) or type(error).__name__
        log.notice("instruction URL failed, skipped", url=url, error=reason)
        return UrlAnswer(failure=reason)
    if not text:
        log.notice("instruction URL empty, skipped", url=url)
    return UrlAnswer(text=text)
