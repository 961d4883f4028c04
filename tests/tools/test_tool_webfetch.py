"""The webfetch tool against a real HTTP server on the loopback interface, started per test."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
from rebinding_dns import PUBLIC, HostileNetwork
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.permission.flow import PermissionFlow
from strata_core.tool.builtin.webfetch import TOO_LARGE, WebFetchTool
from strata_core.tool.contract import ToolContext, ToolFailure, ToolResult
from strata_core.tool.runner import run_tool
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

PAGE = (
    "<html><head><title>T</title><script>var x=1;</script><style>p{}</style></head><body><h1>Head</h1>"
    "<p>Hello <b>world</b></p><ul><li>a</li><li>b</li></ul><pre><code>x = 1</code></pre></body></html>"
)
PNG = b"\x89PNG\r\n\x1a\nfake"


class Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []
    release: ClassVar[threading.Event] = threading.Event()
    """Holds `/slow` back until the test is over (the client has given up by then)."""

    def log_message(self, format: str, *args: object) -> None:
        return None

    def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", headers.pop("length", str(len(body))))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        try:
            self.end_headers()
            self.wfile.write(body)
        except ConnectionError:
            pass  # the client gave up first (a timeout test): socketserver would print a traceback for it

    def do_GET(self) -> None:
        Handler.seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
        if self.path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif self.path == "/plain":
            self._send(200, b"just text\n", "text/plain")
        elif self.path == "/img":
            self._send(200, PNG, "image/png")
        elif self.path == "/declared-big":
            self._send(200, b"x", "text/plain", length=str(6 * 1024 * 1024))
        elif self.path == "/streamed-big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(100):
                    self.wfile.write(chunk)
            except OSError:
                pass
        elif self.path == "/slow":
            Handler.release.wait(timeout=10)
            self._send(200, b"late", "text/plain")
        elif self.path == "/to-localhost":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{self.headers['Host'].rsplit(':', 1)[1]}/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/to-rebind":
            self.send_response(302)
            self.send_header("Location", f"http://rebind.localhost:{self.headers['Host'].rsplit(':', 1)[1]}/plain")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/challenge":
            if self.headers.get("User-Agent") == "strata":
                self._send(200, b"passed", "text/plain")
            else:
                self._send(403, b"blocked", "text/html", cf_mitigated="challenge")
        else:
            self._send(404, b"nope", "text/plain")


@pytest.fixture
def server() -> Iterator[str]:
    Handler.seen = []
    Handler.release = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False  # a handler may still be answering a client that has gone
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    Handler.release.set()
    httpd.shutdown()
    httpd.server_close()


async def fetch(ctx: ToolContext, url: str, **extra: object) -> ToolResult:
    return await WebFetchTool().execute({"url": url, **extra}, ctx)


async def test_html_becomes_markdown_by_default(server: str, ctx: ToolContext) -> None:
    result = await fetch(ctx, f"{server}/page")
    assert result.output == "T\n\n# Head\n\nHello **world**\n\n- a\n- b\n\n```\nx = 1\n```"
    assert result.title == f"{server}/page (text/html; charset=utf-8)"
    assert "text/markdown;q=1.0" in Handler.seen[-1]["accept"]
    assert "Mozilla/5.0" in Handler.seen[-1]["user-agent"]


async def test_text_format_keeps_only_visible_text(server: str, ctx: ToolContext) -> None:
    result = await fetch(ctx, f"{server}/page", format="text")
    assert result.output == "THeadHello worldabx = 1"
    assert Handler.seen[-1]["accept"].startswith("text/plain;q=1.0")


async def test_html_format_returns_the_page_as_sent(server: str, ctx: ToolContext) -> None:
    assert (await fetch(ctx, f"{server}/page", format="html")).output == PAGE


async def test_other_content_is_returned_as_is(server: str, ctx: ToolContext) -> None:
    result = await fetch(ctx, f"{server}/plain")
    assert result.output == "just text\n" and result.title == f"{server}/plain (text/plain)"


async def test_an_image_comes_back_as_an_attachment(server: str, ctx: ToolContext) -> None:
    result = await fetch(ctx, f"{server}/img")
    assert result.output == "Image fetched successfully"
    (attachment,) = result.attachments
    assert attachment.mime == "image/png" and attachment.url == "data:image/png;base64,iVBORw0KGgpmYWtl"


@pytest.mark.parametrize("path", ["/declared-big", "/streamed-big"])
async def test_responses_over_5_mb_are_refused(server: str, ctx: ToolContext, path: str) -> None:
    with pytest.raises(ToolFailure, match=f"^{TOO_LARGE.replace('(', '[(]').replace(')', '[)]')}$"):
        await fetch(ctx, f"{server}{path}")


async def test_the_timeout_is_in_seconds(server: str, ctx: ToolContext) -> None:
    started = time.monotonic()
    with pytest.raises(ToolFailure, match=r"^Request timed out$"):
        await fetch(ctx, f"{server}/slow", timeout=0.3)
    assert time.monotonic() - started < 1.5


async def test_a_cloudflare_challenge_is_retried_with_an_honest_user_agent(server: str, ctx: ToolContext) -> None:
    assert (await fetch(ctx, f"{server}/challenge")).output == "passed"
    assert [seen["user-agent"] for seen in Handler.seen][-1] == "strata"


async def test_error_statuses_and_other_schemes_are_errors(server: str, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure, match=r"^Request failed with status code: 404$"):
        await fetch(ctx, f"{server}/missing")
    with pytest.raises(ToolFailure, match=r"^URL must start with http:// or https://$"):
        await fetch(ctx, "ftp://x")


async def test_each_url_is_asked_for(server: str, ctx: ToolContext, asker: Asker) -> None:
    await fetch(ctx, f"{server}/plain")
    (ask,) = asker.of("webfetch")
    assert ask.patterns == [f"{server}/plain"] and ask.always == ["*"]
    assert ask.metadata == {"url": f"{server}/plain", "format": "markdown", "timeout": None}


async def test_the_suite_never_leaves_the_machine(ctx: ToolContext, truncation: Truncation) -> None:
    outcome = await run_tool(
        WebFetchTool(), {"url": "http://example.com/"}, ctx, agent_ruleset=None, truncation=truncation
    )
    assert outcome.is_error and "non-loopback" in (outcome.error or "")


PRIVATE_ASKS = (*DEFAULT_RULES, *rules({"private_network": "ask"}))


async def test_a_loopback_address_asks_private_network_and_a_refusal_sends_nothing(
    server: str, make_ctx: MakeContext
) -> None:
    asker = Asker(rules=PRIVATE_ASKS, reject={"private_network"})
    ctx = make_ctx(ask=asker, ruleset=PRIVATE_ASKS)
    outcome = await run_tool(WebFetchTool(), {"url": f"{server}/page"}, ctx, agent_ruleset=None)
    assert outcome.is_error and outcome.blocked
    assert [(a.permission, a.patterns) for a in asker.asked] == [("private_network", ["127.0.0.1"])]
    assert asker.asked[0].metadata["address"] == "127.0.0.1"
    assert Handler.seen == []


async def test_a_host_name_is_judged_by_what_it_resolves_to_and_every_redirect_is_checked(
    server: str, make_ctx: MakeContext
) -> None:
    allowed_ip = (*PRIVATE_ASKS, *rules({"private_network": {"127.0.0.1": "allow"}}))
    asker = Asker(rules=allowed_ip, reject={"private_network"})
    ctx = make_ctx(ask=asker, ruleset=allowed_ip)
    outcome = await run_tool(WebFetchTool(), {"url": f"{server}/to-localhost"}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert [(a.permission, a.patterns) for a in asker.asked] == [("private_network", ["localhost"])]
    assert [seen["path"] for seen in Handler.seen] == ["/to-localhost"]


def port_of(server: str) -> int:
    return int(server.rsplit(":", 1)[1])


REBOUND = {
    "loopback": "127.0.0.1",
    "ipv6-loopback": "::1",
    "ipv4-mapped": "::ffff:127.0.0.1",
    "any": "0.0.0.0",
    "metadata": "169.254.169.254",
    "private": "10.0.0.5",
}


@pytest.mark.parametrize("hop", ["direct", "redirect"])
@pytest.mark.parametrize("private", REBOUND.values(), ids=REBOUND.keys())
async def test_dns_rebinding_connects_only_to_the_address_that_was_checked(
    server: str, make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch, private: str, hop: str
) -> None:
    # The attacker's DNS answers a public address first and a private one after: checking one answer and
    # connecting by another would reach the private address with no ask.
    port = port_of(server)
    network = HostileNetwork(port, {"rebind.localhost": [PUBLIC, private], "site.localhost": [PUBLIC]})
    network.install(monkeypatch)
    asker = Asker(rules=PRIVATE_ASKS, reject={"private_network"})
    url = f"http://rebind.localhost:{port}/plain" if hop == "direct" else f"http://site.localhost:{port}/to-rebind"
    outcome = await run_tool(
        WebFetchTool(), {"url": url}, make_ctx(ask=asker, ruleset=PRIVATE_ASKS), agent_ruleset=None
    )
    assert network.dialled == [PUBLIC] * (1 if hop == "direct" else 2)
    assert outcome.result.output == "just text\n" and asker.asked == []


async def test_a_name_answering_a_private_address_asks_and_a_refusal_dials_nothing(
    server: str, make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    network = HostileNetwork(port_of(server), {"rebind.localhost": ["::ffff:127.0.0.1"]})
    network.install(monkeypatch)
    asker = Asker(rules=PRIVATE_ASKS, reject={"private_network"})
    url = f"http://rebind.localhost:{port_of(server)}/plain"
    outcome = await run_tool(
        WebFetchTool(), {"url": url}, make_ctx(ask=asker, ruleset=PRIVATE_ASKS), agent_ruleset=None
    )
    assert outcome.is_error and outcome.blocked
    assert [(a.permission, a.patterns, a.metadata) for a in asker.asked] == [
        ("private_network", ["rebind.localhost"], {"url": url, "address": "::ffff:127.0.0.1"})
    ]
    assert network.dialled == [] and Handler.seen == []


async def test_headless_a_rebound_private_answer_is_refused_with_a_reason_and_nothing_is_dialled(
    server: str, make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first call gets the public answer; the second, the private one the attacker meant to reach.
    network = HostileNetwork(port_of(server), {"rebind.localhost": [PUBLIC, "127.0.0.1"]})
    network.install(monkeypatch)
    flow = PermissionFlow(Ids(SystemClock()))
    ctx = make_ctx(ask=partial(flow.ask, "ses_test", ruleset=PRIVATE_ASKS), ruleset=PRIVATE_ASKS)
    url = f"http://rebind.localhost:{port_of(server)}/plain"
    first = await run_tool(WebFetchTool(), {"url": url}, ctx, agent_ruleset=None)
    second = await run_tool(WebFetchTool(), {"url": url}, ctx, agent_ruleset=None)
    assert first.result.output == "just text\n" and network.dialled == [PUBLIC]
    assert second.blocked and (second.error or "").startswith(
        "Permission 'private_network' for rebind.localhost needs approval, but"
    )


async def test_an_approved_host_is_reached_under_its_own_name_and_not_asked_about_again_in_the_call(
    server: str, make_ctx: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    network = HostileNetwork(port_of(server), {"rebind.localhost": ["::1", "10.0.0.5"]})
    network.install(monkeypatch)
    asker = Asker(rules=PRIVATE_ASKS)
    url = f"http://rebind.localhost:{port_of(server)}/challenge"  # 403 first, so the call connects twice
    result = await fetch(make_ctx(ask=asker, ruleset=PRIVATE_ASKS), url)
    assert result.output == "passed" and network.dialled == ["::1", "10.0.0.5"]
    assert [(a.patterns, a.metadata["address"]) for a in asker.asked] == [(["rebind.localhost"], "::1")]
    assert {seen["host"] for seen in Handler.seen} == {f"rebind.localhost:{port_of(server)}"}


async def test_an_environment_proxy_is_not_used_so_the_address_checked_is_the_one_dialled(
    server: str, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    assert (await fetch(ctx, f"{server}/plain")).output == "just text\n"
    assert Handler.seen[-1]["path"] == "/plain"  # a proxy would have been sent the absolute URL
