"""The `webfetch` tool: GET one http(s) URL and return it as markdown, plain text or raw HTML.

A connection to a loopback, link-local or private address (each redirect hop checked, a host name judged on
the one resolution the connection then uses: `tool/support/pinned_network.py`) asks `private_network` first.
At most 5 MB is read (the body is streamed and abandoned past the cap), within a timeout of 30 s by default and
120 s at most. Images come back as attachments the model can look at. An embedder's own client
(`open_runtime(http_client=...)`) carries the requests instead: its transport decides where they go.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from functools import partial
from typing import Any, ClassVar

import anyio
import httpx
from attrs import define, field, frozen

from strata_core.extras import needing
from strata_core.http import make_client, read_capped
from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import Attachment, JSONSchema, ToolContext, ToolFailure, ToolResult

MAX_RESPONSE_BYTES = 5 * 1024 * 1024
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 120.0
TOO_LARGE = "Response too large (exceeds 5MB limit)"

# Sites that block unknown clients serve browsers; a browser's User-Agent gets the page the user would see.
BROWSER_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"
)
ACCEPT = {
    "markdown": "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
    "text": "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
    "html": "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
}


def html_to_text(html: str) -> str:
    """The visible text of a page: scripts, styles and embedded objects dropped."""
    from strata_core.tool.support.html_text import TextExtractor  # html.parser: ~3 ms, only when a page is fetched

    extractor = TextExtractor()
    extractor.feed(html)
    extractor.close()
    return "".join(extractor.parts).strip()


def html_to_markdown(html: str) -> str:
    # Imported here: markdownify pulls in BeautifulSoup and soupsieve (~50 ms), which every `strata` start-up
    # would otherwise pay for a tool most runs never call. Without it (the `webfetch` extra) a page asked for as
    # markdown is a tool error naming the extra, which the model can act on: `text` and `html` still work.
    with needing("webfetch", "webfetch's markdown conversion (call it again with format 'text' or 'html')"):
        from markdownify import markdownify

    return str(markdownify(html, heading_style="ATX", bullets="-", strip=["meta", "link"])).strip()


def is_image(media_type: str) -> bool:
    return media_type.startswith("image/") and media_type not in ("image/svg+xml", "image/vnd.fastbidsheet")


@frozen
class _Fetched:
    content_type: str
    body: bytes


Consent = Callable[[str, str, str], Awaitable[None]]
"""Called with the URL, its host and the non-global address it resolved to, before connecting; raises to stop."""
MAX_REDIRECTS = 10


async def _get(
    url: str, headers: dict[str, str], consent: Consent, own: httpx.AsyncClient | None = None
) -> tuple[int, dict[str, str], bytes]:
    # Imported on the first fetch: httpcore is not otherwise loaded by a `strata` start-up.
    from strata_core.tool.support.pinned_network import PinnedNetworkBackend, PinnedTransport

    # Redirects are followed here, one hop at a time, so each target's connection is judged on its own.
    for _ in range(MAX_REDIRECTS + 1):
        async with AsyncExitStack() as stack:
            if own is None:
                transport = PinnedTransport(PinnedNetworkBackend(partial(consent, url)))
                client = await stack.enter_async_context(
                    make_client(headers=headers, follow_redirects=False, transport=transport)
                )
            else:
                client = own
            response = await stack.enter_async_context(
                client.stream("GET", url, headers=headers, follow_redirects=False)
            )
            if response.is_redirect and "location" in response.headers:
                url = str(response.url.join(response.headers["location"]))
                continue
            return await _body(response)
    raise ToolFailure(f"Too many redirects (more than {MAX_REDIRECTS})")


async def _body(response: httpx.Response) -> tuple[int, dict[str, str], bytes]:
    if not response.is_success:
        return response.status_code, dict(response.headers), b""
    body = await read_capped(response, MAX_RESPONSE_BYTES)
    if body is None:
        raise ToolFailure(TOO_LARGE)
    return response.status_code, dict(response.headers), body


async def _allow_everything(url: str, host: str, address: str) -> None:
    return None


async def fetch(
    url: str, format: str, consent: Consent = _allow_everything, client: httpx.AsyncClient | None = None
) -> _Fetched:
    headers = {"User-Agent": BROWSER_UA, "Accept": ACCEPT.get(format, "*/*"), "Accept-Language": "en-US,en;q=0.9"}
    status, response_headers, body = await _get(url, headers, consent, client)
    if status == 403 and response_headers.get("cf-mitigated") == "challenge":
        # Cloudflare's bot challenge turns away browser look-alikes but often lets an honest client through.
        status, response_headers, body = await _get(url, {**headers, "User-Agent": "strata"}, consent, client)
    if not 200 <= status < 300:
        raise ToolFailure(f"Request failed with status code: {status}")
    return _Fetched(response_headers.get("content-type", ""), body)


@define
class _PrivateNetworkConsent:
    """Asks `private_network` the first time a host leads to a non-global address in this call; a host the
    person let through is not asked about again by a later hop or retry of the same call."""

    ctx: ToolContext
    approved: set[str] = field(factory=set)

    async def __call__(self, url: str, host: str, address: str) -> None:
        from strata_core.tool.support.network_address import PRIVATE_NETWORK

        if host not in self.approved:
            await self.ctx.ask(PRIVATE_NETWORK, [host], [host], {"url": url, "address": address})
            self.approved.add(host)


@define
class WebFetchTool(BuiltinTool):
    NAME: ClassVar[str] = "webfetch"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "url": string("The http or https URL to fetch."),
            "format": {
                "type": "string",
                "enum": ["text", "markdown", "html"],
                "description": "How to return the page: markdown (the default), text or html.",
                "default": "markdown",
            },
            "timeout": {"type": "number", "description": "Seconds to wait at most (up to 120)."},
        },
        ["url"],
    )
    client: httpx.AsyncClient | None = None
    """The embedder's own client; None: a client per hop, pinned to the addresses it judged."""

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        url = str(args["url"])
        if not url.startswith(("http://", "https://")):
            raise ToolFailure("URL must start with http:// or https://")
        format = str(args.get("format") or "markdown")
        timeout = args.get("timeout")
        await ctx.ask("webfetch", [url], ["*"], {"url": url, "format": format, "timeout": timeout})
        seconds = min(float(timeout) if timeout else DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
        try:
            with anyio.fail_after(seconds):
                fetched = await fetch(url, format, _PrivateNetworkConsent(ctx), self.client)
        except TimeoutError:
            raise ToolFailure("Request timed out") from None
        return self._result(url, format, fetched)

    def _result(self, url: str, format: str, fetched: _Fetched) -> ToolResult:
        content_type = fetched.content_type
        media_type = content_type.split(";")[0].strip().lower()
        title = f"{url} ({content_type})"
        if is_image(media_type):
            data = base64.b64encode(fetched.body).decode("ascii")
            attachment = Attachment(mime=media_type, url=f"data:{media_type};base64,{data}")
            return ToolResult(output="Image fetched successfully", title=title, attachments=(attachment,))
        text = fetched.body.decode("utf-8", errors="replace")
        if "text/html" in content_type and format == "markdown":
            text = html_to_markdown(text)
        elif "text/html" in content_type and format == "text":
            text = html_to_text(text)
        return ToolResult(output=text, title=title)
