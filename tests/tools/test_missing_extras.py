"""A tool whose optional dependency (a strata-core extra) is not installed says which extra to install, as a
tool error the model reads, and runs nothing it could not check.

The workspace has every extra; a module is made missing here by putting `None` in `sys.modules` for it (what
Python's import system reads as "not importable") and dropping Strata's own module that imports it, so the next
import runs again and fails as it would in an install without the extra. The real base install is tested in
tests/packaging/test_base_install.py.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from strata_core.errors import MissingExtraError
from strata_core.extras import needing
from strata_core.tool.builtin.bash import BashTool
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.builtin.webfetch import WebFetchTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.runner import run_tool
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

PAGE = b"<html><body><h1>Head</h1><p>Hello <b>world</b></p></body></html>"
# A whole 1x1 PNG: Pillow can read it, so only a missing Pillow stops it.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def without(monkeypatch: pytest.MonkeyPatch, missing: str, *importers: str) -> None:
    """Make `missing` unimportable, and forget the `importers` that already imported it."""
    monkeypatch.setitem(sys.modules, missing, None)
    for name in importers:
        monkeypatch.delitem(sys.modules, name, raising=False)


@pytest.fixture
def html_server() -> Iterator[str]:
    class Page(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return None

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/page"
    httpd.shutdown()
    httpd.server_close()


async def test_bash_without_tree_sitter_is_a_tool_error_naming_the_extra_and_runs_nothing(
    monkeypatch: pytest.MonkeyPatch, project: Path, ctx: ToolContext, truncation: Truncation
) -> None:
    without(monkeypatch, "tree_sitter", "strata_core.tool.support.shell_parse")
    outcome = await run_tool(BashTool(truncation=truncation), {"command": "touch ran"}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert outcome.error == (
        "the bash tool's command parsing needs tree-sitter and tree-sitter-bash: pip install 'strata-core[bash]'"
    )
    assert not (project / "ran").exists()


async def test_webfetch_markdown_without_markdownify_names_the_extra_and_text_still_works(
    monkeypatch: pytest.MonkeyPatch, html_server: str, ctx: ToolContext
) -> None:
    without(monkeypatch, "markdownify")
    outcome = await run_tool(WebFetchTool(), {"url": html_server}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert outcome.error is not None and outcome.error.endswith("pip install 'strata-core[webfetch]'")
    assert "format 'text' or 'html'" in outcome.error
    as_text = await run_tool(WebFetchTool(), {"url": html_server, "format": "text"}, ctx, agent_ruleset=None)
    assert not as_text.is_error and as_text.result.output == "HeadHello world"


async def test_reading_an_image_without_pillow_is_a_tool_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, project: Path, ctx: ToolContext
) -> None:
    without(monkeypatch, "PIL")
    (project / "dot.png").write_bytes(PNG)
    outcome = await run_tool(ReadTool(), {"filePath": str(project / "dot.png")}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert outcome.error == (
        f"Cannot attach {project / 'dot.png'}: attaching an image needs Pillow: pip install 'strata-core[images]'"
    )


async def test_the_same_image_attaches_with_pillow(project: Path, ctx: ToolContext) -> None:
    (project / "dot.png").write_bytes(PNG)
    outcome = await run_tool(ReadTool(), {"filePath": str(project / "dot.png")}, ctx, agent_ruleset=None)
    assert not outcome.is_error and outcome.result.attachments[0].mime == "image/png"


def test_a_missing_module_of_another_package_is_not_blamed_on_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bs4", None)
    with pytest.raises(ModuleNotFoundError), needing("webfetch", "webfetch"):
        import bs4  # noqa: F401


def test_the_error_is_a_strata_error_that_survives_pickling() -> None:
    import pickle

    error = MissingExtraError("the MCP server 'x'", "mcp", "the MCP SDK (mcp)")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == "the MCP server 'x' needs the MCP SDK (mcp): pip install 'strata-core[mcp]'"
    assert again.extra == "mcp"
